"""Motion: validation, slicing, resampling, concatenation, mirroring."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.geometry import quat_angle, rotvec_to_quat
from vhuman.skeleton import Motion, standard_humanoid


@pytest.fixture(scope="module")
def walkish() -> Motion:
    """A smooth synthetic motion: every joint turns slowly about a fixed axis."""
    sk = standard_humanoid()
    t = np.arange(40) / 20.0
    rng = np.random.default_rng(0)
    axes = rng.normal(size=(sk.n_joints, 3)) * 0.3
    rv = np.sin(2 * np.pi * 0.5 * t)[:, None, None] * axes[None]
    root = np.stack([1.2 * t, 0.05 * np.sin(t), 0.9 + 0.02 * np.cos(4 * t)], axis=1)
    return Motion(sk, 20.0, root, rotvec_to_quat(rv))


def test_validation_errors() -> None:
    sk = standard_humanoid()
    q = np.zeros((3, sk.n_joints, 4))
    q[..., 0] = 1
    with pytest.raises(InputError, match="fps"):
        Motion(sk, 0.0, np.zeros((3, 3)), q)
    with pytest.raises(InputError, match="local_rotations must have shape"):
        Motion(sk, 30.0, np.zeros((3, 3)), q[:, :5])
    with pytest.raises(InputError, match="root_positions must have shape"):
        Motion(sk, 30.0, np.zeros((2, 3)), q)
    bad = q.copy()
    bad[1, 2, 0] = np.nan
    with pytest.raises(InputError, match="NaN"):
        Motion(sk, 30.0, np.zeros((3, 3)), bad)


def test_arrays_are_read_only(walkish: Motion) -> None:
    with pytest.raises(ValueError, match="read-only"):
        walkish.root_positions[0, 0] = 1.0
    with pytest.raises(ValueError, match="read-only"):
        walkish.global_positions[0, 0, 0] = 1.0


def test_slicing(walkish: Motion) -> None:
    part = walkish[10:30:2]
    assert part.n_frames == 10
    assert part.fps == pytest.approx(10.0)
    assert np.allclose(part.global_positions, walkish.global_positions[10:30:2])
    assert walkish[-1].n_frames == 1
    with pytest.raises(InputError, match="out of range"):
        walkish[40]


def test_resample_keeps_duration_and_samples(walkish: Motion) -> None:
    up = walkish.resample(60.0)
    assert up.duration == pytest.approx(walkish.duration)
    # Every third frame of the 60 fps motion is an original frame.
    assert np.allclose(up.global_positions[::3], walkish.global_positions, atol=1e-9)
    down = up.resample(20.0)
    assert np.allclose(down.global_positions, walkish.global_positions, atol=1e-9)
    # In-between frames lie between their neighbours (slerp, not extrapolation).
    mid = up.local_rotations[1]
    a, b = walkish.local_rotations[0], walkish.local_rotations[1]
    assert np.all(quat_angle(a, mid) <= quat_angle(a, b) + 1e-9)


def test_concatenate(walkish: Motion) -> None:
    both = walkish[:10].concatenate(walkish[10:])
    assert np.allclose(both.global_positions, walkish.global_positions)
    with pytest.raises(InputError, match="fps"):
        walkish.concatenate(walkish[::2])


def test_mirror_is_reflection_and_involution(walkish: Motion) -> None:
    sk = walkish.skeleton
    mirrored = walkish.mirrored()
    expected = walkish.global_positions[:, sk.mirror] * [1.0, -1.0, 1.0]
    assert np.allclose(mirrored.global_positions, expected, atol=1e-12)
    twice = mirrored.mirrored()
    assert np.allclose(twice.local_rotations, walkish.local_rotations)
    assert sk.names[sk.mirror[sk.index("l_elbow")]] == "r_elbow"
    assert sk.mirror[sk.index("spine")] == sk.index("spine")


def test_extent_and_trajectory(walkish: Motion) -> None:
    lo, hi = walkish.extent()
    p = walkish.global_positions
    assert np.allclose(lo, p.reshape(-1, 3).min(0))
    assert np.allclose(hi, p.reshape(-1, 3).max(0))
    traj = walkish.joint_trajectory(["l_hand", "pelvis"])
    assert traj.shape == (40, 2, 3)
    assert np.allclose(traj[:, 1], walkish.root_positions)
