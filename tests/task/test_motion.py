"""Task walks on floor paths: the feet stay out of the floor while the steps speed up and stop."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.posture import worker_skeleton
from vhuman.scene import BodyModel
from vhuman.task.motion import walk_along

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
