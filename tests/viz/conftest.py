"""Shared inputs of the viz tests: a short motion that moves every body side."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from vhuman.geometry import rotvec_to_quat
from vhuman.scene.shapes import CUBE_FACES
from vhuman.skeleton import Motion, standard_humanoid
from vhuman.viz import SceneMesh


def _swinging_motion(n_frames: int, fps: float) -> Motion:
    """A humanoid walking forward 1 m/s while its left arm swings and right knee bends."""
    sk = standard_humanoid()
    rest = Motion.rest(sk, n_frames, fps)
    t = rest.times
    phase = 2.0 * np.pi * t / max(rest.duration, 1e-9)
    rot = np.array(rest.local_rotations)
    zero = np.zeros_like(t)
    rot[:, sk.index("l_shoulder")] = rotvec_to_quat(np.stack([zero, 0.8 * np.sin(phase), zero], -1))
    rot[:, sk.index("r_knee")] = rotvec_to_quat(np.stack([zero, 1.2 * np.sin(phase / 2), zero], -1))
    rot[:, sk.index("chest")] = rotvec_to_quat(np.stack([zero, zero, 0.3 * np.sin(phase)], -1))
    root = np.array(rest.root_positions)
    root[:, 0] += t
    return Motion(sk, fps, root, rot)


@pytest.fixture(scope="session")
def make_motion() -> Callable[..., Motion]:
    """``make_motion(n_frames=20, fps=30.0)``: the swinging motion at another length or rate."""

    def make(n_frames: int = 20, fps: float = 30.0) -> Motion:
        return _swinging_motion(n_frames, fps)

    return make


@pytest.fixture(scope="session")
def motion() -> Motion:
    """The swinging motion: 20 frames at 30 fps."""
    return _swinging_motion(20, 30.0)


@pytest.fixture(scope="session")
def box() -> SceneMesh:
    """A 0.4 m cube (12 triangles) in front of the body."""
    v = np.array(
        [[x, y, z] for x in (1.0, 1.4) for y in (-0.2, 0.2) for z in (0.6, 1.0)], dtype=float
    )
    return SceneMesh("box", v, CUBE_FACES, color="orange", opacity=0.8)
