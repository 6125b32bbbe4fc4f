"""Fixtures for the IK tests: the standard humanoid, its chains and reachable targets."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest
from numpy.typing import NDArray

from vhuman.geometry import rotvec_to_quat
from vhuman.ik import Chain, RootDofs
from vhuman.skeleton import Skeleton, forward_kinematics, standard_humanoid

PoseSampler = Callable[[Sequence[int], int, np.random.Generator], NDArray[np.float64]]


@pytest.fixture(scope="session")
def humanoid() -> Skeleton:
    """The 50th-percentile male standard humanoid."""
    return standard_humanoid()


@pytest.fixture(scope="session")
def chains(humanoid: Skeleton) -> dict[str, Chain]:
    """Chains of the humanoid used across the tests."""
    return {
        "arm": Chain(humanoid, "l_hand", start="l_shoulder"),
        "leg": Chain(humanoid, "r_ankle", start="r_hip"),
        "torso_arm": Chain(humanoid, "r_hand", start="spine"),
        "body": Chain(humanoid, "l_hand", root=RootDofs.horizontal()),
    }


@pytest.fixture(scope="session")
def sample_pose(humanoid: Skeleton) -> PoseSampler:
    """``f(joints, n, rng)``: ``n`` poses ``(n, J, 4)``, given joints uniform within limits."""

    def sample(joints: Sequence[int], n: int, rng: np.random.Generator) -> NDArray[np.float64]:
        return humanoid.random_rotations(n, rng, joints)

    return sample


Targets = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]
TargetSampler = Callable[[Chain, int, int], Targets]


@pytest.fixture(scope="session")
def reachable(sample_pose: PoseSampler) -> TargetSampler:
    """``f(chain, n, seed)``: targets reachable by construction (FK of in-limit poses)."""

    def targets(chain: Chain, n: int, seed: int) -> Targets:
        return reachable_targets(chain, sample_pose, n, seed)

    return targets


def reachable_targets(chain: Chain, sample: PoseSampler, n: int, seed: int) -> Targets:
    """Targets reachable by construction: FK of random in-limit poses of the chain.

    Returns the effector positions ``(n, 3)`` and rotations ``(n, 4)`` and the poses.
    A chain with root motions also gets a random step (0.5-2 m) and turn.
    """
    sk = chain.skeleton
    rng = np.random.default_rng(seed)
    q = sample([j for j in chain.joints if j != 0], n, rng)
    root = np.broadcast_to(sk.offsets[0], (n, 3)).copy()
    if chain.includes_root:
        q[:, 0] = rotvec_to_quat(rng.uniform(-np.pi, np.pi, (n, 1)) * [0.0, 0.0, 1.0])
        r, a = rng.uniform(0.5, 2.0, n), rng.uniform(-np.pi, np.pi, n)
        root += np.stack([r * np.cos(a), r * np.sin(a), 0.0 * r], axis=-1)
    pos, rot = forward_kinematics(sk.parents, sk.offsets, root, q)
    return pos[:, chain.joints[-1]], rot[:, chain.joints[-1]], q
