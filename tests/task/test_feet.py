"""Feet planted through transitions: leg IK onto foot placements, stepping, turns on the spot."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.geometry import quat_angle
from vhuman.posture import worker_skeleton
from vhuman.scene import BodyModel
from vhuman.skeleton import Motion
from vhuman.skeleton.footskate import SLIDE_TOLERANCE, foot_points, foot_slide
from vhuman.skeleton.kinematics import forward_kinematics
from vhuman.task.feet import FootPlacement, feet_move, foot_placements, plant_feet, step_path
from vhuman.task.motion import standing_pose, transition

FPS = 30.0


@pytest.fixture(scope="module")
def body() -> BodyModel:
    return BodyModel.from_skeleton(worker_skeleton("p50-male"), samples_per_segment=2)


def _crouch(body: BodyModel) -> tuple[np.ndarray, np.ndarray]:
    """A standing pose with its pelvis lowered 8 cm (the legs then correct onto the feet)."""
    root, local = standing_pose(body.skeleton, [0.0, 0.0], 0.0, FPS)
    return root - [0.0, 0.0, 0.08], local


def test_feet_already_placed_leave_the_pose_unchanged(body: BodyModel) -> None:
    sk = body.skeleton
    root, local = standing_pose(sk, [0.3, -0.2], 0.7, FPS)
    roots, locals_ = np.tile(root, (3, 1)), np.tile(local, (3, 1, 1))
    feet = foot_placements(sk, roots, locals_)
    out = plant_feet(sk, roots, locals_, feet)
    assert np.degrees(quat_angle(out, locals_).max()) < 1e-4


def test_legs_put_the_feet_on_their_targets(body: BodyModel) -> None:
    sk = body.skeleton
    stand = standing_pose(sk, [0.0, 0.0], 0.0, FPS)
    feet = foot_placements(sk, stand[0], stand[1])
    root, local = _crouch(body)
    left, right = (FootPlacement(f.ankle[None], f.rotation[None], f.toe[None]) for f in feet)
    out = plant_feet(sk, root[None], local[None], (left, right))
    # The balls of the feet (the toe joints) where they stood; the heels may rise.
    toes = sk.indices(["l_toe", "r_toe"])
    was = forward_kinematics(sk.parents, sk.offsets, stand[0], stand[1])[0][toes]
    now = forward_kinematics(sk.parents, sk.offsets, root, out[0])[0][toes]
    assert np.linalg.norm(now - was, axis=-1).max() < 1e-6  # [m]
    assert sk.limit_violation(out).max() < 1e-3  # [rad]
    assert np.degrees(quat_angle(out[0], local).max()) > 5.0  # the knees did bend


def test_a_step_lifts_the_foot_before_it_travels(body: BodyModel) -> None:
    sk = body.skeleton
    start = foot_placements(sk, *standing_pose(sk, [0.0, 0.0], 0.0, FPS))[0]
    end = FootPlacement(start.ankle + np.array([0.25, 0.0, 0.0]), start.rotation, start.toe)
    u = np.linspace(0.0, 1.0, 41)
    path = step_path(start, end, u)
    assert np.allclose(path.ankle[0], start.ankle)
    assert np.allclose(path.ankle[-1], end.ankle)
    moving = np.linalg.norm(np.diff(path.ankle[:, :2], axis=0), axis=-1) > 1e-9
    lifted = (path.ankle[:, 2] - start.ankle[2])[1:] > 0.01  # [m]
    assert np.all(lifted[moving])


@pytest.mark.parametrize("turn_deg", [-40.0, 25.0, 40.0])
def test_a_turn_on_the_spot_steps_without_sliding(body: BodyModel, turn_deg: float) -> None:
    sk = body.skeleton
    start = standing_pose(sk, [1.0, 2.0], 0.3, FPS)
    end = standing_pose(sk, [1.0, 2.0], 0.3 + np.radians(turn_deg), FPS)
    motion = transition(body, start, end, 0.9, FPS, floor=0.0)
    assert np.allclose(motion.local_rotations[[0, -1]], [start[1], end[1]])
    assert foot_slide(motion, 0.0).max() <= SLIDE_TOLERANCE
    step = np.degrees(quat_angle(motion.local_rotations[:-1], motion.local_rotations[1:]))
    assert step.max() < 20.0  # deg per frame
    assert sk.limit_violation(motion.local_rotations).max() < 1e-3  # [rad]
    # Each foot turned with the body.
    a = foot_placements(sk, motion.root_positions[0], motion.local_rotations[0])
    b = foot_placements(sk, motion.root_positions[-1], motion.local_rotations[-1])
    for f0, f1 in zip(a, b, strict=True):
        assert abs(np.degrees(quat_angle(f0.rotation, f1.rotation)) - abs(turn_deg)) < 2.0


@pytest.mark.parametrize("seed", range(4))
def test_a_foot_that_would_slide_past_the_tolerance_steps(body: BodyModel, seed: int) -> None:
    # Small moves of the standing worker (a few millimetres, a degree): wherever a foot point
    # travels more than the slide tolerance between the poses, the feet step there.
    sk = body.skeleton
    rng = np.random.default_rng(seed)
    start = standing_pose(sk, [0.0, 0.0], 0.0, FPS)
    seen = set()
    for _ in range(40):
        xy, heading = rng.uniform(-0.001, 0.001, 2), rng.uniform(-0.004, 0.004)
        end = standing_pose(sk, xy, heading, FPS)
        both = Motion(sk, FPS, np.stack([start[0], end[0]]), np.stack([start[1], end[1]]))
        centres = foot_points(both)[0]
        travel = float(np.linalg.norm(centres[1, :, :2] - centres[0, :, :2], axis=-1).max())
        moves = feet_move(sk, start, end)
        seen.add(moves)
        if travel > SLIDE_TOLERANCE:
            assert moves, f"a foot point travels {1e3 * travel:.2f} mm unstepped"
        if moves:  # then the transition steps it: no foot point slides
            motion = transition(body, start, end, 1.2, FPS, floor=0.0)
            assert foot_slide(motion, 0.0).max() <= SLIDE_TOLERANCE
    assert seen == {True, False}  # the moves fall on both sides of the tolerance
