"""Slerp and SQUAD: endpoints, constant angular speed, shortest arc, C¹ continuity."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.geometry import (
    quat_angle,
    quat_multiply,
    quat_slerp,
    quat_squad,
    rotvec_to_quat,
)
from vhuman.geometry.quaternion import quat_conjugate
from vhuman.geometry.so3 import quat_to_rotvec


def _random(rng: np.random.Generator, n: int) -> np.ndarray:
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def test_slerp_endpoints_and_constant_speed() -> None:
    rng = np.random.default_rng(0)
    q0, q1 = _random(rng, 20), _random(rng, 20)
    t = np.linspace(0.0, 1.0, 11)
    path = quat_slerp(q0[None], q1[None], t[:, None])  # (11, 20, 4)
    assert np.allclose(quat_angle(path[0], q0), 0.0, atol=1e-7)
    assert np.allclose(quat_angle(path[-1], q1), 0.0, atol=1e-7)
    steps = quat_angle(path[:-1], path[1:])  # (10, 20)
    assert np.allclose(steps, steps[:1], atol=1e-9)
    # Shortest arc: the total turn is the geodesic distance, at most π.
    assert np.allclose(steps.sum(axis=0), quat_angle(q0, q1), atol=1e-9)
    assert np.all(quat_angle(q0, q1) <= np.pi + 1e-12)


def test_slerp_takes_shortest_arc_for_antipodal_representations() -> None:
    q0 = rotvec_to_quat([0.0, 0.0, 0.1])
    q1 = -rotvec_to_quat([0.0, 0.0, 0.3])  # same rotation as +, other hemisphere
    mid = quat_slerp(q0, q1, 0.5)
    assert np.isclose(quat_angle(mid, rotvec_to_quat([0.0, 0.0, 0.2])), 0.0, atol=1e-7)


def test_squad_hits_keys_and_is_c1() -> None:
    rng = np.random.default_rng(1)
    keys = rotvec_to_quat(rng.normal(size=(6, 3)) * 0.8)
    times = np.arange(6, dtype=float)
    at_keys = quat_squad(keys, times, times)
    assert np.allclose(quat_angle(at_keys, keys), 0.0, atol=1e-7)

    def angular_velocity(t: float, h: float = 1e-6) -> np.ndarray:
        qa, qb = quat_squad(keys, times, [t - h, t + h])
        return quat_to_rotvec(quat_multiply(qb, quat_conjugate(qa))) / (2 * h)

    for k in (1, 2, 3, 4):
        left = angular_velocity(k - 1e-4)
        right = angular_velocity(k + 1e-4)
        assert np.linalg.norm(left - right) < 1e-2 * max(1.0, np.linalg.norm(left))


def test_squad_rejects_bad_times() -> None:
    keys = rotvec_to_quat(np.zeros((3, 3)))
    with pytest.raises(InputError, match="increasing"):
        quat_squad(keys, [0.0, 2.0, 1.0], [0.5])
    with pytest.raises(InputError, match="K >= 2"):
        quat_squad(keys[:1], [0.0], [0.0])
