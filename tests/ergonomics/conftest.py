"""Poses of the standard humanoid with known joint angles, for the ergonomics tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest
from numpy.typing import NDArray

from vhuman.geometry import euler_to_quat
from vhuman.skeleton import Motion, Skeleton, standard_humanoid

PoseFactory = Callable[..., Motion]


@pytest.fixture(scope="session")
def humanoid() -> Skeleton:
    """The 50th-percentile male standard humanoid."""
    return standard_humanoid()


def axis_angle(axis: tuple[float, float, float], degrees: float) -> NDArray[np.float64]:
    """Quaternion (w, x, y, z) of ``degrees`` about the unit ``axis``."""
    half = np.radians(degrees) / 2.0
    return np.concatenate([[np.cos(half)], np.sin(half) * np.asarray(axis, dtype=float)])


@pytest.fixture(scope="session")
def pose(humanoid: Skeleton) -> PoseFactory:
    """``pose(joint=("XYZ", [a, b, c]) | ("hinge", deg), ...)`` → one-frame Motion.

    Euler angles in degrees (intrinsic sequence), hinge angles about the joint's axis.
    """

    def make(**joints: tuple[str, object]) -> Motion:
        q = np.zeros((humanoid.n_joints, 4))
        q[:, 0] = 1.0
        for name, (kind, value) in joints.items():
            j = humanoid.index(name)
            if kind == "hinge":
                q[j] = axis_angle(tuple(humanoid.axes[j]), float(value))  # type: ignore[arg-type]
            else:
                q[j] = euler_to_quat(value, kind, degrees=True)
        return Motion(humanoid, 30.0, humanoid.offsets[0][None], q[None])

    return make
