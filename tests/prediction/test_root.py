"""The extrapolated root: the observed pace goes on, straight or on a curve."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vhuman.errors import InputError
from vhuman.geometry import quat_multiply, rotvec_to_quat
from vhuman.prediction.root import extrapolate_root, root_velocity


def _circle(n: int, fps: float, speed: float, yaw_rate: float, tilt: float = 0.1):
    """Root positions and rotations of a walk at ``speed`` turning at ``yaw_rate``."""
    t = np.arange(n) / fps
    yaw = yaw_rate * t
    if abs(yaw_rate) < 1e-12:
        xy = np.column_stack([speed * t, np.zeros(n)])
    else:
        r = speed / yaw_rate
        xy = np.column_stack([r * np.sin(yaw), r * (1 - np.cos(yaw))])
    pos = np.column_stack([xy, np.full(n, 0.95)])
    heading = rotvec_to_quat(np.column_stack([np.zeros((n, 2)), yaw]))
    lean = rotvec_to_quat(np.array([0.0, tilt, 0.0]))  # a constant forward lean
    return pos, quat_multiply(heading, np.broadcast_to(lean, (n, 4)))


@given(
    speed=st.floats(0.0, 2.0),
    yaw_rate=st.floats(-1.5, 1.5),
    fps=st.sampled_from([25.0, 60.0, 120.0]),
)
def test_a_steady_walk_goes_on_along_its_circle(speed: float, yaw_rate: float, fps: float) -> None:
    n_obs, n_future = int(fps), int(fps // 2)
    pos, rot = _circle(n_obs + n_future, fps, speed, yaw_rate)
    velocity, rate = root_velocity(pos[:n_obs], rot[:n_obs], fps)
    assert rate == pytest.approx(yaw_rate, abs=1e-9)
    future_pos, future_rot = extrapolate_root(pos[:n_obs], rot[:n_obs], fps, n_future)
    assert future_pos.shape == (n_future, 3)
    # On a circle the least-squares chord velocity lags the tangent a little.
    np.testing.assert_allclose(future_pos, pos[n_obs:], atol=0.02 * max(speed, 1e-3))
    dots = np.abs(np.sum(future_rot * rot[n_obs:], axis=-1))
    np.testing.assert_allclose(dots, 1.0, atol=1e-9)
    assert np.linalg.norm(velocity) == pytest.approx(speed, rel=0.02, abs=1e-9)


def test_height_and_tilt_are_held_not_extrapolated() -> None:
    pos, rot = _circle(60, 60.0, 1.2, 0.0)
    pos[:, 2] += 0.03 * np.sin(np.arange(60) * 0.5)  # pelvis bob
    future_pos, future_rot = extrapolate_root(pos, rot, 60.0, 120)
    np.testing.assert_allclose(future_pos[:, 2], pos[-1, 2])
    np.testing.assert_allclose(np.abs(np.sum(future_rot * rot[-1], axis=-1)), 1.0, atol=1e-12)
    assert future_pos[-1, 0] - pos[-1, 0] == pytest.approx(2.4, rel=1e-6)


def test_a_single_frame_stays_where_it_is() -> None:
    pos, rot = _circle(1, 30.0, 1.0, 0.3)
    future_pos, future_rot = extrapolate_root(pos, rot, 30.0, 5)
    np.testing.assert_allclose(future_pos, np.repeat(pos, 5, axis=0))
    np.testing.assert_allclose(future_rot, np.repeat(rot, 5, axis=0))


@pytest.mark.parametrize(
    ("fps", "n_frames", "window"),
    [(0.0, 5, 0.5), (float("nan"), 5, 0.5), (30.0, 0, 0.5), (30.0, 2.5, 0.5), (30.0, 5, -1.0)],
)
def test_bad_arguments_are_refused(fps: float, n_frames: float, window: float) -> None:
    pos, rot = _circle(10, 30.0, 1.0, 0.0)
    with pytest.raises(InputError):
        extrapolate_root(pos, rot, fps, n_frames, window)  # type: ignore[arg-type]
