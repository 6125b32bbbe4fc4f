"""Task walks on floor paths: the feet stay out of the floor while the steps speed up and stop."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.geometry import quat_angle
from vhuman.posture import worker_skeleton
from vhuman.scene import BodyModel
from vhuman.skeleton.footskate import SLIDE_TOLERANCE, foot_slide
from vhuman.task.check import joint_speed_limits
from vhuman.task.motion import LIMIT_TOLERANCE, walk_along

FPS = 30.0


def _curved_path() -> np.ndarray:
    """A straight run into a half turn to the left and a straight run out (K, 2) [m]."""
    turn = np.linspace(-0.5 * np.pi, 0.5 * np.pi, 25)
    arc = np.stack([0.6 * np.cos(turn), 0.6 + 0.6 * np.sin(turn)], axis=-1)
    return np.concatenate([[[-1.2, 0.0]], arc, [[-1.2, 1.2]]])


@pytest.mark.parametrize("worker", ["p5-female", "p50-male", "p95-male"])
def test_path_walk_keeps_every_foot_capsule_out_of_the_floor(worker: str) -> None:
    sk = worker_skeleton(worker)
    path = _curved_path()
    motion = walk_along(sk, path, FPS)
    body = BodyModel.from_skeleton(sk, samples_per_segment=2)
    a, b = body.capsules(motion.root_positions, motion.local_rotations)
    lowest = np.minimum(a[..., 2], b[..., 2]) - body.radii  # (frames, capsules) [m]
    feet = np.isin(np.asarray(sk.names)[body.joints], ["l_ankle", "r_ankle", "l_toe", "r_toe"])
    # The walk goes from rest at one end of the path to rest at the other.
    root = motion.root_positions[:, :2]
    assert np.linalg.norm(root[[0, -1]] - path[[0, -1]], axis=-1).max() < 0.05  # [m]: sway
    speed = np.linalg.norm(np.diff(root, axis=0), axis=-1) * FPS  # [m/s]
    assert speed.max() > 0.5
    assert lowest[:, feet].min() > -1e-4  # [m]: within 0.1 mm of the floor at most
    # Every frame has a foot on the floor (within 1 mm), none floats.
    assert np.all(lowest[:, feet].min(axis=1) < 1e-3)


def _random_path(rng: np.random.Generator) -> np.ndarray:
    """A floor path (K, 2) [m] of 2-4 straight legs joined by corners of 20-170° left or
    right, corner-cut as the floor planner smooths its paths (Chaikin 1974), the last leg
    short (a turn near the end) one time in two."""
    legs = int(rng.integers(2, 5))
    turns = rng.uniform(np.radians(20.0), np.radians(170.0), legs - 1) * rng.choice(
        [-1, 1], legs - 1
    )
    lengths = rng.uniform(0.4, 1.2, legs)
    if rng.random() < 0.5:
        lengths[-1] = rng.uniform(0.15, 0.35)
    heading = rng.uniform(-np.pi, np.pi) + np.concatenate([[0.0], np.cumsum(turns)])
    steps = lengths[:, None] * np.stack([np.cos(heading), np.sin(heading)], axis=-1)
    pts = np.concatenate([[[0.0, 0.0]], np.cumsum(steps, axis=0)])
    for _ in range(4):
        q = 0.75 * pts[:-1] + 0.25 * pts[1:]
        r = 0.25 * pts[:-1] + 0.75 * pts[1:]
        pts = np.concatenate([pts[:1], np.stack([q, r], axis=1).reshape(-1, 2)[1:-1], pts[-1:]])
    return pts


@pytest.mark.parametrize("worker", ["p5-female", "p50-male", "p95-male"])
def test_curved_walks_keep_the_joints_in_range_the_feet_planted_and_the_joints_in_speed(
    worker: str,
) -> None:
    sk = worker_skeleton(worker)
    limits = joint_speed_limits(sk)
    rng = np.random.default_rng(2005)
    for _ in range(12):
        path = _random_path(rng)
        motion = walk_along(sk, path, FPS)
        q = motion.local_rotations
        excess = sk.limit_violation(q)  # (frames, joints) [rad]
        assert excess.max() <= LIMIT_TOLERANCE, sk.names[int(np.argmax(excess.max(axis=0)))]
        assert foot_slide(motion).max() <= SLIDE_TOLERANCE
        speed = quat_angle(q[:-1], q[1:]) * FPS / limits  # (frames − 1, joints)
        assert speed.max() <= 1.0, sk.names[int(np.argmax(speed.max(axis=0)))]
