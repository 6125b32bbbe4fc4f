"""Tests of minimum-jerk trajectories."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.geometry import quat_angle, rotvec_to_quat
from vhuman.reaching import minimum_jerk


def test_point_to_point_profile() -> None:
    p0, pf = np.array([0.1, -0.2, 0.0]), np.array([0.4, 0.1, 0.3])
    traj = minimum_jerk(p0, pf, duration=1.2, fps=100)
    assert traj.times.shape == (121,)
    np.testing.assert_allclose(traj.positions[[0, -1]], [p0, pf], atol=1e-15)
    np.testing.assert_allclose(traj.velocities[[0, -1]], 0.0, atol=1e-12)
    np.testing.assert_allclose(traj.accelerations[[0, -1]], 0.0, atol=1e-12)
    speed = np.linalg.norm(traj.velocities, axis=1)
    mean = np.linalg.norm(pf - p0) / 1.2
    assert speed.max() / mean == pytest.approx(1.875, abs=1e-6)
    # Straight path and derivatives consistent with the positions.
    direction = (pf - p0) / np.linalg.norm(pf - p0)
    offsets = traj.positions - p0
    np.testing.assert_allclose(
        offsets - (offsets @ direction)[:, None] * direction, 0.0, atol=1e-15
    )
    np.testing.assert_allclose(
        np.gradient(traj.positions, traj.times, axis=0)[1:-1], traj.velocities[1:-1], atol=2e-3
    )


def test_orientation_uses_the_same_time_law() -> None:
    qf = rotvec_to_quat([0.0, 0.0, 1.2])
    traj = minimum_jerk([0, 0, 0], [0.3, 0, 0], 1.0, 50, q0=[1, 0, 0, 0], qf=qf)
    assert traj.orientations is not None
    fraction = traj.positions[:, 0] / 0.3
    np.testing.assert_allclose(
        quat_angle(traj.orientations, [1, 0, 0, 0]), 1.2 * fraction, atol=1e-12
    )


def test_via_points_are_passed_at_rest() -> None:
    via = np.array([[0.2, 0.1, 0.0]])
    traj = minimum_jerk([0, 0, 0], [0.4, 0, 0], 1.0, 1000, via=via)
    k = int(np.argmin(np.linalg.norm(traj.positions - via[0], axis=1)))
    np.testing.assert_allclose(traj.positions[k], via[0], atol=1e-12)
    np.testing.assert_allclose(traj.velocities[[0, k, -1]], 0.0, atol=1e-12)
    assert traj.times[k] == pytest.approx(0.5)  # equal segment lengths, equal durations


def test_to_dict_is_json_ready() -> None:
    d = minimum_jerk([0, 0, 0], [0.1, 0, 0], 0.5, 10).to_dict()
    assert len(d["times"]) == 6
    assert d["orientations"] is None


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"duration": 0.0}, "duration"),
        ({"duration": -1.0}, "duration"),
        ({"duration": float("nan")}, "duration"),
        ({"fps": 0.0}, "fps"),
        ({"pf": [np.nan, 0, 0]}, "pf"),
        ({"via": [[0, np.inf, 0]]}, "via"),
        ({"q0": [1, 0, 0, 0]}, "q0"),
    ],
)
def test_bad_input(kwargs: dict, match: str) -> None:
    args = {"p0": [0, 0, 0], "pf": [0.3, 0, 0], "duration": 1.0, "fps": 100} | kwargs
    with pytest.raises(InputError, match=match):
        minimum_jerk(**args)
