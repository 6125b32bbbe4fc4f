"""Angles between vectors and at joints."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from vhuman.geometry import flexion_angle, vector_angle

finite = st.floats(-10.0, 10.0, allow_nan=False)
vec = arrays(np.float64, (3,), elements=finite)


@given(vec, vec, st.floats(0.1, 10.0))
def test_vector_angle_matches_the_arccosine_and_ignores_scale(u, v, scale: float) -> None:
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu < 1e-3 or nv < 1e-3:
        return
    reference = np.arccos(np.clip(u @ v / (nu * nv), -1.0, 1.0))
    assert vector_angle(u, v) == pytest.approx(reference, abs=1e-6)
    assert vector_angle(scale * u, v) == pytest.approx(vector_angle(u, v), abs=1e-12)
    assert vector_angle(v, u) == pytest.approx(vector_angle(u, v), abs=1e-12)


def test_vector_angle_is_accurate_near_zero_and_pi() -> None:
    tiny = 1e-9
    u = np.array([1.0, 0.0, 0.0])
    assert vector_angle(u, [1.0, tiny, 0.0]) == pytest.approx(tiny, rel=1e-6)
    assert vector_angle(u, [-1.0, tiny, 0.0]) == pytest.approx(np.pi - tiny, rel=1e-12)


def test_flexion_is_zero_when_straight_and_batched() -> None:
    rng = np.random.default_rng(0)
    a, direction = rng.normal(size=(50, 3)), rng.normal(size=(50, 3))
    b, c = a + direction, a + 2.5 * direction
    np.testing.assert_allclose(flexion_angle(a, b, c), 0.0, atol=1e-7)
    assert flexion_angle(a, b, a).shape == (50,)
    np.testing.assert_allclose(flexion_angle(a, b, a), np.pi, atol=1e-7)
