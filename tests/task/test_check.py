"""The task check's foot-slide count: feet on the floor that move are caught, still or lifted
feet are not."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.posture import worker_skeleton
from vhuman.scene import BodyModel
from vhuman.skeleton import Motion
from vhuman.task.check import CONTACT_HEIGHT, SLIDE_TOLERANCE, foot_slide
from vhuman.task.motion import standing_pose

FPS = 30.0


@pytest.fixture(scope="module")
def standing() -> tuple[BodyModel, np.ndarray, np.ndarray]:
    sk = worker_skeleton("p50-male")
    root, local = standing_pose(sk, np.zeros(2), 0.0, FPS)
    return BodyModel.from_skeleton(sk, samples_per_segment=2), root, local


def _moved(
    standing: tuple[BodyModel, np.ndarray, np.ndarray], step: np.ndarray, n: int = 10
) -> tuple[BodyModel, Motion]:
    body, root, local = standing
    roots = root + np.arange(n)[:, None] * step
    return body, Motion(body.skeleton, FPS, roots, np.tile(local, (n, 1, 1)))


def test_standing_still_does_not_slide(standing: tuple) -> None:
    body, motion = _moved(standing, np.zeros(3))
    assert np.all(foot_slide(body, motion, 0.0) == 0.0)


@pytest.mark.parametrize("step_mm", [1.5, 5.0, 30.0])
def test_a_foot_dragged_on_the_floor_slides(standing: tuple, step_mm: float) -> None:
    body, motion = _moved(standing, np.array([step_mm * 1e-3, 0.0, 0.0]))
    slide = foot_slide(body, motion, 0.0)
    assert slide[:-1] == pytest.approx(step_mm * 1e-3)
    assert slide[-1] == 0.0
    assert np.all(slide[:-1] > SLIDE_TOLERANCE)


def test_lifted_feet_do_not_count(standing: tuple) -> None:
    body, motion = _moved(standing, np.array([0.03, 0.0, 0.0]))
    lifted = Motion(
        body.skeleton,
        FPS,
        motion.root_positions + np.array([0.0, 0.0, 2.0 * CONTACT_HEIGHT]),
        motion.local_rotations,
    )
    assert np.all(foot_slide(body, lifted, 0.0) == 0.0)
