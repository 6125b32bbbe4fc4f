"""Two-stage CCD: the body walks first for far targets, with fewer joint updates than CCD."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.ik import CCD, Chain, RootDofs, TwoStageCCD
from vhuman.skeleton import JointType, Skeleton

TargetSampler = Callable[[Chain, int, int], tuple[np.ndarray, np.ndarray, np.ndarray]]


def test_fewer_joint_updates_than_full_chain_ccd(
    chains: dict[str, Chain], reachable: TargetSampler
) -> None:
    body = chains["body"]
    targets, _, _ = reachable(body, 150, 21)
    full = CCD().solve(body, targets)
    two = TwoStageCCD().solve(body, targets)
    assert two.success_rate >= full.success_rate
    # benchmarks/ik.py measures about 40 % fewer; a margin keeps this test robust.
    assert two.joint_updates.mean() <= 0.75 * full.joint_updates.mean()


def test_near_target_is_full_chain_ccd(chains: dict[str, Chain], humanoid: Skeleton) -> None:
    body = chains["body"]
    shoulder = humanoid.rest_positions()[humanoid.index("l_shoulder")]
    near = shoulder + np.array([[0.3, 0.1, -0.2], [0.2, 0.3, 0.1]])
    two = TwoStageCCD().solve(body, near)
    full = CCD().solve(body, near)
    assert np.array_equal(two.joint_updates, full.joint_updates)
    assert np.allclose(two.local_rotations, full.local_rotations)


def test_far_stage_moves_the_body(chains: dict[str, Chain], humanoid: Skeleton) -> None:
    body = chains["body"]
    target = humanoid.rest_positions()[humanoid.index("l_shoulder")] + np.array([2.5, 0.0, -0.3])
    result = TwoStageCCD().solve(body, target)
    assert result.converged
    assert np.linalg.norm(result.root_position[:2] - humanoid.offsets[0, :2]) > 1.5
    assert result.root_position[2] == pytest.approx(humanoid.offsets[0, 2])


def test_switching_distance_default_scales_with_the_arm(humanoid: Skeleton) -> None:
    body = Chain(humanoid, "l_hand", root=RootDofs.horizontal())
    sub, anchor = TwoStageCCD().stages(body)
    assert body.names[sub] == "pelvis"
    assert body.names[anchor] == "l_shoulder"


@pytest.mark.parametrize(
    ("chain_kwargs", "solver", "message"),
    [
        (
            {"end": "l_hand", "root": RootDofs(rotation=JointType.FIXED)},
            TwoStageCCD(),
            "cannot move",
        ),
        (
            {"end": "l_hand", "root": RootDofs.horizontal()},
            TwoStageCCD(sub_root="spine", anchor="pelvis"),
            "must come after",
        ),
        (
            {"end": "l_hand", "root": RootDofs.horizontal()},
            TwoStageCCD(sub_root="l_wrist"),
            "leaves no joint",
        ),
        (
            {"end": "l_hand", "root": RootDofs.horizontal()},
            TwoStageCCD(anchor="r_elbow"),
            "not on the chain",
        ),
    ],
)
def test_bad_stage_setup(
    humanoid: Skeleton, chain_kwargs: dict, solver: TwoStageCCD, message: str
) -> None:
    chain = Chain(humanoid, **chain_kwargs)
    with pytest.raises(InputError, match=message):
        solver.solve(chain, [1.0, 0.0, 1.0])
