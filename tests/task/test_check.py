"""The foot-slide measure the task check counts: feet on the floor that move are caught,
still or lifted feet are not; the joint speed it counts is each joint's own turn per second."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.geometry import quat_multiply, rotvec_to_quat
from vhuman.posture import worker_skeleton
from vhuman.skeleton import Motion, Skeleton
from vhuman.skeleton.footskate import CONTACT_HEIGHT, SLIDE_TOLERANCE, foot_points, foot_slide
from vhuman.task.check import (
    JOINT_SPEED_LIMIT,
    LEG_JOINT_SPEED_LIMIT,
    joint_speed,
    joint_speed_ratio,
)
from vhuman.task.motion import standing_pose

FPS = 30.0


@pytest.fixture(scope="module")
def standing() -> tuple[Skeleton, np.ndarray, np.ndarray]:
    sk = worker_skeleton("p50-male")
    root, local = standing_pose(sk, np.zeros(2), 0.0, FPS)
    return sk, root, local


def _moved(
    standing: tuple[Skeleton, np.ndarray, np.ndarray], step: np.ndarray, n: int = 10
) -> Motion:
    sk, root, local = standing
    roots = root + np.arange(n)[:, None] * step
    return Motion(sk, FPS, roots, np.tile(local, (n, 1, 1)))


def test_standing_still_does_not_slide(standing: tuple) -> None:
    assert np.all(foot_slide(_moved(standing, np.zeros(3)), 0.0) == 0.0)


def test_standing_feet_rest_on_the_floor(standing: tuple) -> None:
    centres, radii = foot_points(_moved(standing, np.zeros(3), n=1))
    assert centres.shape == (1, 8, 3)
    assert np.min(centres[0, :, 2] - radii) == pytest.approx(0.0, abs=1e-6)


@pytest.mark.parametrize("step_mm", [1.5, 5.0, 30.0])
def test_a_foot_dragged_on_the_floor_slides(standing: tuple, step_mm: float) -> None:
    slide = foot_slide(_moved(standing, np.array([step_mm * 1e-3, 0.0, 0.0])), 0.0)
    assert slide[:-1] == pytest.approx(step_mm * 1e-3)
    assert slide[-1] == 0.0
    assert np.all(slide[:-1] > SLIDE_TOLERANCE)


def test_lifted_feet_do_not_count(standing: tuple) -> None:
    motion = _moved(standing, np.array([0.03, 0.0, 0.0]))
    lifted = Motion(
        motion.skeleton,
        FPS,
        motion.root_positions + np.array([0.0, 0.0, 2.0 * CONTACT_HEIGHT]),
        motion.local_rotations,
    )
    assert np.all(foot_slide(lifted, 0.0) == 0.0)


def test_a_skeleton_without_feet_is_refused(standing: tuple) -> None:
    sk = standing[0]
    bare = Skeleton(sk.names, sk.parents, sk.offsets)
    with pytest.raises(InputError, match="no foot capsules"):
        foot_points(Motion(bare, FPS, np.zeros((2, 3)), np.tile(standing[2], (2, 1, 1))))


@pytest.mark.parametrize("rate", [0.5, 3.0, 12.0])
def test_joint_speed_is_the_fastest_joint_turn(standing: tuple, rate: float) -> None:
    # The right knee turns at `rate` rad/s, the left elbow at half of it, the root moves.
    sk, root, local = standing
    n = 12
    frames = np.tile(local, (n, 1, 1))
    knee, elbow = sk.names.index("r_knee"), sk.names.index("l_elbow")
    t = np.arange(n) / FPS
    frames[:, knee] = quat_multiply(local[knee], rotvec_to_quat(np.outer(rate * t, [0, 1, 0])))
    frames[:, elbow] = quat_multiply(
        local[elbow], rotvec_to_quat(np.outer(0.5 * rate * t, [1, 0, 0]))
    )
    roots = root + np.outer(t, [1.0, 0.0, 0.0])
    speed = joint_speed(Motion(sk, FPS, roots, frames))
    np.testing.assert_allclose(speed[:-1], rate, rtol=1e-9)
    assert speed[-1] == 0.0
    assert joint_speed(_moved(standing, np.array([0.01, 0.0, 0.0]))).max() < 1e-6


def test_knees_and_ankles_have_the_walking_limit() -> None:
    # A knee and an elbow each at 1.1 × their own limit: both frames fail by the same ratio.
    sk = worker_skeleton("p50-male")
    root, local = standing_pose(sk, np.zeros(2), 0.0, FPS)
    n = 4
    t = np.arange(n) / FPS
    for joint, limit in (("r_knee", LEG_JOINT_SPEED_LIMIT), ("l_elbow", JOINT_SPEED_LIMIT)):
        frames = np.tile(local, (n, 1, 1))
        j = sk.names.index(joint)
        frames[:, j] = quat_multiply(local[j], rotvec_to_quat(np.outer(1.1 * limit * t, [0, 1, 0])))
        ratio = joint_speed_ratio(Motion(sk, FPS, np.tile(root, (n, 1)), frames))
        np.testing.assert_allclose(ratio[:-1], 1.1, rtol=1e-9)
    assert LEG_JOINT_SPEED_LIMIT > JOINT_SPEED_LIMIT
