"""Keyframe tracks: keys hit exactly, continuity, easing, Euler round trips, extraction."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.animation import (
    SEED_EULER_SEQUENCE,
    Easing,
    Interpolation,
    KeyframeTrack,
    ease,
    extract_keyframes,
)
from vhuman.errors import InputError
from vhuman.geometry import euler_to_quat, quat_angle, quat_to_rotmat, rotvec_to_quat
from vhuman.skeleton import Motion, standard_humanoid


@pytest.fixture(scope="module")
def track() -> KeyframeTrack:
    sk = standard_humanoid()
    rng = np.random.default_rng(0)
    k = 5
    q = rotvec_to_quat(rng.normal(size=(k, sk.n_joints, 3)) * 0.6)
    root = np.column_stack([np.linspace(0, 2, k), np.zeros(k), np.full(k, 0.9)])
    easing = [Easing.LINEAR, Easing.EASE_IN_OUT, Easing.MINIMUM_JERK, Easing.EASE_OUT]
    return KeyframeTrack(np.array([0.0, 0.4, 0.8, 1.2, 1.6]), q, root, easing)


@pytest.mark.parametrize("interp", list(Interpolation))
def test_keys_are_hit_exactly(track: KeyframeTrack, interp: Interpolation) -> None:
    root, rot = track.sample(track.times, interp)
    assert np.allclose(root, track.root_positions, atol=1e-12)
    assert np.allclose(quat_angle(rot, track.local_rotations), 0.0, atol=1e-7)


@pytest.mark.parametrize("interp", list(Interpolation))
def test_sampling_is_continuous(track: KeyframeTrack, interp: Interpolation) -> None:
    """No jump anywhere: neighbouring samples 1 ms apart differ by a bounded angle."""
    t = np.arange(0.0, 1.6, 1e-3)
    _, rot = track.sample(t, interp)
    steps = quat_angle(rot[:-1], rot[1:]).max(axis=1)
    assert steps.max() < 0.05  # < 3° per ms everywhere: no flip, no jump across keys
    # Across each inner key the step is like its neighbours' (no kink in C⁰ sense).
    for key in track.times[1:-1]:
        i = round(float(key) / 1e-3)
        assert steps[i - 1] < 5 * max(steps[i - 3], steps[i + 2]) + 1e-9


def test_slerp_segment_has_constant_angular_speed_when_linear(track: KeyframeTrack) -> None:
    t = np.linspace(0.0, 0.4, 41)  # the first segment is LINEAR
    _, rot = track.sample(t)
    steps = quat_angle(rot[:-1], rot[1:])
    assert np.allclose(steps, steps[:1], atol=1e-9)


@pytest.mark.parametrize("easing", list(Easing))
def test_easing_ends_and_monotonic(easing: Easing) -> None:
    s = np.linspace(0, 1, 101)
    u = ease(easing, s)
    assert u[0] == 0.0
    assert u[-1] == pytest.approx(1.0)
    assert np.all(np.diff(u) >= -1e-15)


def test_seed_euler_order_is_y_then_x_then_z() -> None:
    beta, alpha, gamma = 0.3, -0.5, 0.8
    q = euler_to_quat([beta, alpha, gamma], SEED_EULER_SEQUENCE)

    def rot(axis: int, a: float) -> np.ndarray:
        c, s = np.cos(a), np.sin(a)
        m = np.eye(3)
        i, j = [k for k in range(3) if k != axis]
        m[i, i], m[i, j], m[j, i], m[j, j] = c, -s, s, c
        if axis == 1:
            m = m.T  # R_y has the sine signs swapped relative to the cyclic pattern
        return m

    expected = rot(1, beta) @ rot(0, alpha) @ rot(2, gamma)
    assert np.allclose(quat_to_rotmat(q), expected)


def test_euler_keys_round_trip_through_gimbal_lock() -> None:
    sk = standard_humanoid()
    angles = np.zeros((3, sk.n_joints, 3))
    angles[1, :, 1] = np.pi / 2  # middle angle at the lock for every joint
    angles[1, :, 0] = 0.4
    angles[1, :, 2] = -0.2
    track = KeyframeTrack.from_euler([0.0, 1.0, 2.0], angles, np.zeros((3, 3)))
    again = KeyframeTrack.from_euler([0.0, 1.0, 2.0], track.euler_angles(), np.zeros((3, 3)))
    assert np.allclose(quat_angle(again.local_rotations, track.local_rotations), 0.0, atol=1e-7)


def test_to_motion(track: KeyframeTrack) -> None:
    motion = track.to_motion(standard_humanoid(), fps=50.0)
    assert motion.n_frames == 81
    assert motion.duration == pytest.approx(1.6)
    assert np.allclose(motion.root_positions[[0, -1]], track.root_positions[[0, -1]])


def test_bad_tracks() -> None:
    q = np.tile([1.0, 0, 0, 0], (2, 3, 1))
    with pytest.raises(InputError, match="increasing"):
        KeyframeTrack(np.array([1.0, 0.0]), q, np.zeros((2, 3)))
    with pytest.raises(InputError, match="one value per segment"):
        KeyframeTrack(np.array([0.0, 1.0]), q, np.zeros((2, 3)), (Easing.LINEAR,) * 2)
    with pytest.raises(InputError, match="K >= 2"):
        KeyframeTrack(np.array([0.0]), q[:1], np.zeros((1, 3)))


def test_extraction_error_falls_with_more_keys() -> None:
    sk = standard_humanoid()
    t = np.arange(120) / 60.0
    rv = np.sin(2 * np.pi * 0.8 * t)[:, None, None] * np.full((1, sk.n_joints, 3), 0.3)
    root = np.column_stack([1.3 * t, np.zeros_like(t), np.full_like(t, 0.9)])
    motion = Motion(sk, 60.0, root, rotvec_to_quat(rv))
    errors = [extract_keyframes(motion, k).max_error_m for k in (4, 16, 64)]
    assert errors[0] > 3 * errors[1] > 9 * errors[2]  # error falls ~ 1/K²
    result = extract_keyframes(motion, 32)
    assert result.indices[0] == 0
    assert result.indices[-1] == 119
    assert len(set(result.indices.tolist())) == 32
    assert extract_keyframes(motion, 120).max_error_m < 1e-9
    with pytest.raises(InputError, match="n_keys"):
        extract_keyframes(motion, 1)
