"""Fixtures of the scene tests: the P95 worker's body, one-capsule bodies, one-box scenes."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from vhuman.scene import BodyModel, Box, Scene, SceneObject, Target
from vhuman.skeleton import Segment, Skeleton, standard_humanoid


@pytest.fixture(scope="session")
def p95_body() -> BodyModel:
    """Capsules of the 95th-percentile Chinese man (stature 1.775 m)."""
    return BodyModel.from_skeleton(standard_humanoid(stature=1.775))


@pytest.fixture
def capsule_body() -> Callable[..., BodyModel]:
    """Factory: a body of one capsule fixed to its root joint (a sphere when start == end)."""

    def make(start, end, radius, samples=32):
        seg = Segment(np.array(start, float), np.array(end, float), radius, 1.0, np.zeros(3))
        sk = Skeleton(("root", "tip"), [-1, 0], [[0, 0, 0], [0, 0, 0.1]], segments=(seg, None))
        return BodyModel.from_skeleton(sk, samples_per_segment=samples, rng=1)

    return make


@pytest.fixture
def box_scene() -> Callable[..., Scene]:
    """Factory: one box (and a target far from it) above a floor, optionally under a ceiling."""

    def make(size=(1.0, 1.0, 1.0), position=(0.0, 0.0, 0.0), *, floor=-5.0, ceiling=None):
        return Scene(
            "box",
            (SceneObject("box", Box(size), position, [1, 0, 0, 0]),),
            Target([3.0, 3.0, 0.0], [1, 0, 0, 0], [1, 0, 0]),
            floor=floor,
            ceiling=ceiling,
        )

    return make


def rest(n_joints: int) -> np.ndarray:
    """Identity local rotations ``(n_joints, 4)``."""
    q = np.zeros((n_joints, 4))
    q[:, 0] = 1.0
    return q


@pytest.fixture
def rest_pose() -> Callable[[int], np.ndarray]:
    """Factory: identity local rotations of ``n`` joints."""
    return rest
