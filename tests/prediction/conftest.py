"""Fixtures for the prediction tests: a small synthetic dataset on the CMU skeleton, a cache dir."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.io import cmu_skeleton
from vhuman.prediction.data import PoseSequences, motion_pose_arrays
from vhuman.skeleton import Motion


@pytest.fixture(autouse=True)
def _cache(tmp_path, monkeypatch):
    monkeypatch.setenv("VHUMAN_CACHE_DIR", str(tmp_path / "cache"))


def _swing(n_frames: int, phase: float) -> Motion:
    sk = cmu_skeleton()
    t = np.arange(n_frames) / 25.0
    q = np.zeros((n_frames, sk.n_joints, 4))
    q[..., 0] = 1.0
    for j, amp in (
        (sk.index("lhip"), 0.5),
        (sk.index("rhip"), -0.5),
        (sk.index("lknee"), 0.4),
        (sk.index("lshoulder"), 0.6),
        (sk.index("relbow"), 0.3),
    ):
        a = amp * np.sin(2 * np.pi * 1.1 * t + phase)
        q[:, j] = np.stack([np.cos(a / 2), np.sin(a / 2), 0 * a, 0 * a], -1)
    root = np.stack([0.5 * t, 0 * t, 0.9 + 0 * t], -1)
    return Motion(sk, 25.0, root, q)


@pytest.fixture(scope="session")
def toy() -> PoseSequences:
    """Three 60-frame trials of one action (the last held out) on the CMU skeleton."""
    from vhuman.prediction.data import validation_trials

    motions = [_swing(60, p) for p in (0.0, 1.0, 2.0)]
    arrays = [motion_pose_arrays(m) for m in motions]
    trials = ["swing/swing_1", "swing/swing_2", "swing/swing_3"]
    actions = ["swing"] * 3
    return PoseSequences(
        motions[0].skeleton,
        25.0,
        np.concatenate([a[0] for a in arrays]),
        np.concatenate([m.root_positions for m in motions]),
        np.concatenate([a[1] for a in arrays]),
        np.array([0, 60, 120, 180]),
        tuple(trials),
        tuple(actions),
        validation_trials(trials, actions),
        "toy",
    )
