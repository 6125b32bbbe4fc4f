"""Tests of the 7-DOF arm model: lengths, D-H forward kinematics, mirroring."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.geometry import quat_to_rotmat
from vhuman.reaching import JOINT_LIMITS, ArmModel, Side
from vhuman.skeleton import standard_humanoid

# The seed's Table 1 as printed: θ offset [°], a, d, α [°] (a, d as symbols).
TABLE = [
    (0, "0", "0", -90),
    (-90, "0", "0", 90),
    (0, "0", "-dse", -90),
    (0, "0", "0", 90),
    (0, "0", "-dew", -90),
    (90, "0", "0", 90),
    (0, "a", "0", 0),
]
R_SHOULDER_DH = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])


def naive_fk(q: np.ndarray, dse: float, dew: float, a: float) -> list[np.ndarray]:
    """Frames 1..7 in D-H frame 0, by the textbook product of 4x4 matrices."""
    values = {"0": 0.0, "-dse": -dse, "-dew": -dew, "a": a}
    frame, frames = np.eye(4), []
    for (offset, ai, di, alpha), qi in zip(TABLE, q, strict=True):
        th, al = np.radians(offset) + qi, np.radians(alpha)
        rz = np.array(
            [
                [np.cos(th), -np.sin(th), 0, 0],
                [np.sin(th), np.cos(th), 0, 0],
                [0, 0, 1, 0],
                [0, 0, 0, 1],
            ]
        )
        tz, tx = np.eye(4), np.eye(4)
        tz[2, 3], tx[0, 3] = values[di], values[ai]
        rx = np.array(
            [
                [1, 0, 0, 0],
                [0, np.cos(al), -np.sin(al), 0],
                [0, np.sin(al), np.cos(al), 0],
                [0, 0, 0, 1],
            ]
        )
        frame = frame @ rz @ tz @ tx @ rx
        frames.append(frame)
    return frames


def random_q(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.uniform(JOINT_LIMITS[:, 0], JOINT_LIMITS[:, 1], size=(n, 7))


def test_fk_matches_naive_dh_product() -> None:
    rng = np.random.default_rng(1)
    arm = ArmModel(0.33, 0.22, 0.08)
    q = rng.uniform(-np.pi, np.pi, size=(50, 7))
    pose = arm.forward(q)
    for k in range(len(q)):
        frames = naive_fk(q[k], 0.33, 0.22, 0.08)
        np.testing.assert_allclose(pose.elbow[k], R_SHOULDER_DH @ frames[2][:3, 3], atol=1e-12)
        np.testing.assert_allclose(pose.wrist[k], R_SHOULDER_DH @ frames[4][:3, 3], atol=1e-12)
        np.testing.assert_allclose(pose.hand[k], R_SHOULDER_DH @ frames[6][:3, 3], atol=1e-12)
        r = R_SHOULDER_DH @ frames[6][:3, :3] @ R_SHOULDER_DH.T
        np.testing.assert_allclose(quat_to_rotmat(pose.hand_orientation[k]), r, atol=1e-12)
    np.testing.assert_array_equal(pose.shoulder, 0.0)


def test_zero_configuration_is_the_hanging_arm() -> None:
    pose = ArmModel(0.33, 0.22, 0.08).forward(np.zeros(7))
    np.testing.assert_allclose(pose.elbow, [0, 0, -0.33], atol=1e-15)
    np.testing.assert_allclose(pose.hand, [0, 0, -0.63], atol=1e-15)
    np.testing.assert_allclose(np.abs(pose.hand_orientation), [1, 0, 0, 0], atol=1e-15)


def test_joint_senses_are_anatomical() -> None:
    arm = ArmModel(0.33, 0.22, 0.08)
    up = np.radians(-90.0)
    abducted = arm.forward([up, 0, 0, 0, 0, 0, 0]).hand  # right arm out to the right
    flexed = arm.forward([0, up, 0, 0, 0, 0, 0]).hand  # arm forward
    elbow = arm.forward([0, 0, 0, up, 0, 0, 0]).hand  # forearm forward
    assert abducted[1] < -0.6
    assert flexed[0] > 0.6
    assert elbow[0] > 0.2
    assert np.all(arm.within_limits(np.zeros(7)))


def test_left_arm_is_the_mirror_image() -> None:
    rng = np.random.default_rng(2)
    q = random_q(rng, 20)
    right = ArmModel(0.3, 0.25, 0.07).forward(q)
    left = ArmModel(0.3, 0.25, 0.07, "left").forward(q)
    m = np.diag([1.0, -1.0, 1.0])
    np.testing.assert_allclose(left.hand, right.hand @ m, atol=1e-15)
    np.testing.assert_allclose(left.elbow, right.elbow @ m, atol=1e-15)
    np.testing.assert_allclose(
        quat_to_rotmat(left.hand_orientation),
        m @ quat_to_rotmat(right.hand_orientation) @ m,
        atol=1e-12,
    )
    abducted = ArmModel(0.3, 0.25, 0.07, Side.LEFT).forward([-1.5, 0, 0, 0, 0, 0, 0]).hand
    assert abducted[1] > 0.5  # q1 < 0 abducts the left arm too, to the left


def test_from_skeleton_takes_the_humanoid_lengths() -> None:
    sk = standard_humanoid(stature=1.8)
    for side, prefix in (("right", "r_"), ("left", "l_")):
        arm = ArmModel.from_skeleton(sk, side)
        assert arm.side is Side(side)
        expected = [
            np.linalg.norm(sk.offsets[sk.index(prefix + j)]) for j in ("elbow", "wrist", "hand")
        ]
        np.testing.assert_allclose([arm.upper_arm, arm.forearm, arm.hand], expected)
        assert 0.25 < arm.upper_arm < 0.40


@pytest.mark.parametrize("name", ["upper_arm", "forearm", "hand"])
@pytest.mark.parametrize("value", [0.0, -0.1, float("nan"), float("inf")])
def test_bad_length_is_named(name: str, value: float) -> None:
    lengths = {"upper_arm": 0.3, "forearm": 0.25, "hand": 0.08, name: value}
    with pytest.raises(InputError, match=name):
        ArmModel(**lengths)


def test_bad_side_and_q() -> None:
    with pytest.raises(InputError, match="side"):
        ArmModel(0.3, 0.25, 0.08, "middle")
    arm = ArmModel(0.3, 0.25, 0.08)
    with pytest.raises(InputError, match="q"):
        arm.forward(np.zeros(6))
    with pytest.raises(InputError, match="NaN"):
        arm.forward([np.nan] * 7)
