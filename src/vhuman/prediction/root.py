"""Where the body goes: the root trajectory continued from the observed motion.

The pose predictors work on root-relative poses (the protocol removes global
translation and rotation), so the root of a predicted motion is extrapolated:
the horizontal velocity and the turning rate are the slopes of least-squares
lines through the last ``window_s`` of observed frames (half a second by
default, one step of a walk, so the speed's rise and fall within a step
averages out), the body turns at that rate while it moves on at that speed,
and the height and the tilt (pitch, roll) stay those of the last frame.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import InputError
from vhuman.geometry import quat_multiply, rotvec_to_quat

__all__ = ["ROOT_WINDOW_S", "extrapolate_root", "root_velocity"]

ROOT_WINDOW_S = 0.5
"""Observed time [s] the root's velocity and turning rate are fitted over."""


def _yaw_steps(rotations: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rotation about world z between consecutive frames ``(T-1,)`` [rad].

    The twist about z of ``q[t] · q[t-1]⁻¹`` (swing-twist decomposition), which
    needs no knowledge of the body's forward axis.
    """
    w1, v1 = rotations[1:, 0], rotations[1:, 1:]
    w0, v0 = rotations[:-1, 0], -rotations[:-1, 1:]
    # z and w components of the product q1 · conj(q0)
    dw = w1 * w0 - np.sum(v1 * v0, axis=-1)
    dz = w1 * v0[:, 2] + w0 * v1[:, 2] + v1[:, 0] * v0[:, 1] - v1[:, 1] * v0[:, 0]
    angle = 2.0 * np.arctan2(dz, dw)
    return (angle + np.pi) % (2.0 * np.pi) - np.pi


def root_velocity(
    positions: NDArray[np.float64],
    rotations: NDArray[np.float64],
    fps: float,
    window_s: float = ROOT_WINDOW_S,
) -> tuple[NDArray[np.float64], float]:
    """Horizontal velocity and turning rate of the root over its last ``window_s``.

    Parameters
    ----------
    positions : ndarray, shape (T, 3)
        Root positions [m], z up.
    rotations : ndarray, shape (T, 4)
        Root rotations, quaternions (w, x, y, z).
    fps : float
        Frame rate [1/s].
    window_s : float
        Time [s] fitted over (at least two frames are used; all of them when
        the motion is shorter).

    Returns
    -------
    velocity : ndarray, shape (2,)
        Horizontal velocity (x, y) [m/s] along the heading of the last frame;
        zero for a single frame.
    yaw_rate : float
        Turning rate about world z [rad/s], positive to the left.

    Raises
    ------
    InputError
        For no frames, a frame rate or window that is not positive and finite.
    """
    if not np.isfinite(fps) or fps <= 0:
        raise InputError(f"fps must be a positive number, got {fps}")
    if not np.isfinite(window_s) or window_s <= 0:
        raise InputError(f"the root window must be a positive time in s, got {window_s}")
    n = len(positions)
    if n == 0:
        raise InputError("cannot extrapolate the root of a motion without frames")
    if n == 1:
        return np.zeros(2), 0.0
    k = min(n, max(2, round(window_s * fps) + 1))
    t = np.arange(k) / fps
    design = np.column_stack([t, np.ones(k)])
    yaw = np.concatenate([[0.0], np.cumsum(_yaw_steps(rotations[-k:]))])
    slopes = np.linalg.lstsq(design, np.column_stack([positions[-k:, :2], yaw]), rcond=None)[0]
    velocity, yaw_rate = slopes[0, :2], float(slopes[0, 2])
    # The fitted velocity points along the heading of the window's middle; turn it
    # to the heading of the last frame.
    lag = yaw_rate * (k - 1) / (2.0 * fps)
    c, s = np.cos(lag), np.sin(lag)
    return np.array(
        [c * velocity[0] - s * velocity[1], s * velocity[0] + c * velocity[1]]
    ), yaw_rate


def extrapolate_root(
    positions: NDArray[np.float64],
    rotations: NDArray[np.float64],
    fps: float,
    n_frames: int,
    window_s: float = ROOT_WINDOW_S,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The root's next ``n_frames`` positions and rotations at the observed pace.

    Velocity and turning rate come from :func:`root_velocity`; the velocity
    turns with the body, so a walk on a curve goes on along the curve.

    Parameters
    ----------
    positions : ndarray, shape (T, 3)
        Observed root positions [m].
    rotations : ndarray, shape (T, 4)
        Observed root rotations (w, x, y, z).
    fps : float
        Frame rate of the observed and of the continued frames [1/s].
    n_frames : int
        Frames to continue (>= 1).
    window_s : float
        Observed time [s] the pace is fitted over.

    Returns
    -------
    positions : ndarray, shape (n_frames, 3)
    rotations : ndarray, shape (n_frames, 4)
    """
    if int(n_frames) != n_frames or n_frames < 1:
        raise InputError(f"frames must be an integer >= 1, got {n_frames}")
    velocity, yaw_rate = root_velocity(positions, rotations, fps, window_s)
    dt = 1.0 / fps
    k = np.arange(1, int(n_frames) + 1)
    # The heading turns by yaw_rate·dt each frame and the velocity with it; the
    # step from frame k-1 to k follows the heading halfway between them.
    turn = yaw_rate * dt * k  # (N,)
    c, s = np.cos(turn - 0.5 * yaw_rate * dt), np.sin(turn - 0.5 * yaw_rate * dt)
    step = np.column_stack([c * velocity[0] - s * velocity[1], s * velocity[0] + c * velocity[1]])
    out_pos = np.repeat(positions[-1:], len(k), axis=0)
    out_pos[:, :2] += np.cumsum(step * dt, axis=0)
    yaw = rotvec_to_quat(np.column_stack([np.zeros((len(k), 2)), turn]))
    return out_pos, quat_multiply(yaw, rotations[-1])
