"""Component-wise rotation algebra of the kernels against vhuman.geometry, on both backends."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.geometry import EULER_SEQUENCES, quat_to_euler, rotvec_to_quat
from vhuman.geometry.quaternion import quat_apply, quat_multiply
from vhuman.ik._ops import (
    BATCH,
    SCALAR,
    EulerAxes,
    euler_from_quat,
    qmul,
    qrotate,
    quat_from_euler,
)


@pytest.mark.parametrize("seq", EULER_SEQUENCES)
def test_euler_matches_geometry_and_round_trips(seq: str) -> None:
    q = rotvec_to_quat(np.random.default_rng(1).normal(size=(200, 3)))
    axes = EulerAxes.from_sequence(seq)
    angles = np.stack(euler_from_quat(tuple(q.T), axes, BATCH), axis=-1)
    assert np.allclose(angles, quat_to_euler(q, seq), atol=1e-12)
    back = np.stack(quat_from_euler(tuple(angles.T), axes, BATCH), axis=-1)
    assert np.allclose(np.abs(np.sum(back * q, axis=-1)), 1.0, atol=1e-12)
    one = euler_from_quat(tuple(float(v) for v in q[0]), axes, SCALAR)
    assert np.allclose(one, angles[0], atol=1e-12)


def test_products_match_geometry() -> None:
    rng = np.random.default_rng(2)
    a, b = rotvec_to_quat(rng.normal(size=(2, 50, 3)))
    v = rng.normal(size=(50, 3))
    assert np.allclose(np.stack(qmul(tuple(a.T), tuple(b.T)), -1), quat_multiply(a, b))
    assert np.allclose(np.stack(qrotate(tuple(a.T), tuple(v.T)), -1), quat_apply(a, v))
