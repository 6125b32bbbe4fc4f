"""Analytic two-bone IK: exact, batched, anatomical bend, pole, limits, unreachable targets."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vhuman.errors import InputError
from vhuman.geometry import rotvec_to_quat
from vhuman.ik import Chain, two_bone_ik
from vhuman.skeleton import Skeleton, forward_kinematics

PoseSampler = Callable[[list[int], int, np.random.Generator], np.ndarray]
LIMBS = [
    ("l_ankle", "l_hip"),
    ("r_ankle", "r_hip"),
    ("l_wrist", "l_shoulder"),
    ("r_wrist", "r_shoulder"),
]


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), limb=st.sampled_from(LIMBS))
def test_exact_for_reachable_targets(
    humanoid: Skeleton, sample_pose: PoseSampler, seed: int, limb: tuple[str, str]
) -> None:
    chain = Chain(humanoid, limb[0], start=limb[1])
    upper, middle, end = chain.joints
    q = sample_pose([upper, middle], 50, np.random.default_rng(seed))
    pos, _ = forward_kinematics(humanoid.parents, humanoid.offsets, humanoid.offsets[0], q)
    result = two_bone_ik(chain, pos[:, end], pole=pos[:, middle])
    assert np.all(result.position_error < 1e-9)
    assert np.all(result.converged)
    # With the generating knee/elbow as pole, the solution is the generating pose.
    dots = np.abs(np.sum(result.local_rotations[:, [upper, middle]] * q[:, [upper, middle]], -1))
    assert np.allclose(dots, 1.0, atol=1e-9)
    assert np.all(humanoid.limit_violation(result.local_rotations) <= 1e-9)


def test_without_pole_still_exact_and_within_limits(
    humanoid: Skeleton, sample_pose: PoseSampler
) -> None:
    chain = Chain(humanoid, "r_wrist", start="r_shoulder")
    q = sample_pose(list(chain.joints[:2]), 300, np.random.default_rng(2))
    pos, _ = forward_kinematics(humanoid.parents, humanoid.offsets, humanoid.offsets[0], q)
    result = two_bone_ik(chain, pos[:, chain.joints[2]])
    assert np.mean(result.position_error < 1e-9) >= 0.99
    assert np.all(humanoid.limit_violation(result.local_rotations) <= 1e-9)


def test_knee_bends_forward_towards_the_pole(humanoid: Skeleton) -> None:
    leg = Chain(humanoid, "l_ankle", start="l_hip")
    hip, knee, ankle = leg.joints
    frames = 40
    t = np.linspace(0.0, 1.0, frames)
    # A swing ankle path below the hip, as walking asks for: batched over frames.
    target = np.stack(
        [0.3 * np.sin(2 * np.pi * t), np.full(frames, 0.08), 0.12 + 0.08 * np.sin(np.pi * t)],
        axis=-1,
    )
    pole = target + np.array([1.0, 0.0, 0.4])
    result = two_bone_ik(leg, target, pole=pole)
    assert result.batch_shape == (frames,)
    assert np.all(result.position_error < 1e-9)
    angles = humanoid.joint_angles(result.local_rotations)
    assert np.all(angles[:, knee, 0] > 0.0)  # flexion, within 0..135°
    pos = result.to_motion(humanoid).global_positions
    line = pos[:, ankle] - pos[:, hip]
    off = pos[:, knee] - pos[:, hip]
    off -= np.sum(off * line, -1, keepdims=True) / np.sum(line * line, -1, keepdims=True) * line
    assert np.all(off[:, 0] > 0.0)  # the knee is in front of the hip-ankle line


def test_unreachable_target_straightens_the_limb(humanoid: Skeleton) -> None:
    leg = Chain(humanoid, "l_ankle", start="l_hip")
    hip = humanoid.rest_positions()[leg.joints[0]]
    target = hip + np.array([[0.0, 0.0, -1.5], [0.0, 0.0, -0.5]])
    result = two_bone_ik(leg, target)
    assert not result.converged[0]
    assert result.converged[1]
    assert result.position_error[0] == pytest.approx(1.5 - leg.length, abs=1e-9)


def test_end_orientation_keeps_the_foot_flat(humanoid: Skeleton) -> None:
    leg = Chain(humanoid, "r_ankle", start="r_hip")
    # Within the ankle's 20° of dorsiflexion: a deeper knee bend could not keep it flat.
    target = np.array([[0.1, -0.08, 0.12], [0.2, -0.08, 0.2]])
    flat = np.tile([1.0, 0.0, 0.0, 0.0], (2, 1))
    pole = target + np.array([1.0, 0.0, 0.5])
    result = two_bone_ik(leg, target, pole=pole, end_orientation=flat)
    _, rot = forward_kinematics(
        humanoid.parents, humanoid.offsets, humanoid.offsets[0], result.local_rotations
    )
    assert np.allclose(np.abs(rot[:, leg.joints[2], 0]), 1.0, atol=1e-9)
    assert np.all(result.joint_updates == 3)


def test_batch_shapes_broadcast(humanoid: Skeleton) -> None:
    leg = Chain(humanoid, "l_ankle", start="l_hip")
    q = np.tile([1.0, 0, 0, 0], (4, 1, humanoid.n_joints, 1))
    q[:, :, 0] = rotvec_to_quat(np.linspace(0, 0.3, 4)[:, None, None] * [0, 0, 1.0])
    result = two_bone_ik(leg, np.zeros((4, 5, 3)) + np.array([0.1, 0.08, 0.2]), q)
    assert result.batch_shape == (4, 5)


@pytest.mark.parametrize(
    ("end", "start", "message"),
    [("l_hand", "l_elbow", "BALL → HINGE → end"), ("l_knee", "pelvis", "BALL → HINGE → end")],
)
def test_wrong_chain(humanoid: Skeleton, end: str, start: str, message: str) -> None:
    with pytest.raises(InputError, match=message):
        two_bone_ik(Chain(humanoid, end, start=start), [0.0, 0.0, 0.5])


def test_nan_target(humanoid: Skeleton) -> None:
    with pytest.raises(InputError, match="target contains NaN"):
        two_bone_ik(Chain(humanoid, "l_ankle", start="l_hip"), [0.0, np.nan, 0.5])
