"""Prediction metrics: MPJPE, Euler-angle error, foot skating and bone-length drift.

Definitions (the motion-prediction literature's where it has one):

- **MPJPE** [mm]: the L2 distance between predicted and true joint positions
  (global translation and rotation removed), averaged over the given joints
  and the windows, per future frame.
- **Euler-angle error** [rad]: each joint's local rotation as intrinsic
  ``"ZYX"`` Euler angles; per frame the L2 norm of the difference of the
  stacked angle vectors of the given joints, averaged over windows (the
  "mean angle error" of Martinez et al. 2017 and LTD, on our joint set).
- **Foot skating** [mm/s]: horizontal speed of each foot joint between
  consecutive frames in which it is in contact (below ``floor + contact``
  in both), averaged over such frame pairs; the body is placed on the
  root trajectory given (the true one), so sliding feet mean the predicted
  legs do not carry the body as the recorded ones did.
- **Bone-length drift** [mm]: mean ``| |p_j − p_parent| − L_j |`` over the
  bones with a rest length of at least 1 mm, against their rest lengths; zero
  for any model that poses a skeleton, positive for models that output
  positions.

References
----------
Martinez, J., Black, M. J., Romero, J. (2017). On human motion prediction using
recurrent neural networks. CVPR.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry import quat_apply, quat_to_euler

__all__ = ["EULER_SEQUENCE", "bone_length_drift", "euler_error", "foot_skating", "mpjpe"]

EULER_SEQUENCE = "ZYX"
"""Euler sequence of the angle error (intrinsic z-y-x)."""


def _pair(a: ArrayLike, b: ArrayLike, last: int, what: str) -> tuple[NDArray, NDArray]:
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if x.shape != y.shape or x.ndim < 3 or x.shape[-1] != last:
        raise InputError(
            f"{what}: predicted and true arrays must have one shape (..., T, J, {last}), "
            f"got {x.shape} and {y.shape}"
        )
    return x, y


def mpjpe(pred: ArrayLike, true: ArrayLike, joints: ArrayLike | None = None) -> NDArray[np.float64]:
    """Mean per-joint position error [mm] per frame: ``(T,)`` from ``(..., T, J, 3)`` [m]."""
    x, y = _pair(pred, true, 3, "mpjpe")
    j = slice(None) if joints is None else np.asarray(joints, dtype=np.intp)
    d = np.linalg.norm(x[..., j, :] - y[..., j, :], axis=-1).mean(axis=-1)  # (..., T)
    return 1000.0 * d.reshape(-1, d.shape[-1]).mean(axis=0)


def euler_error(
    pred: ArrayLike, true: ArrayLike, joints: ArrayLike | None = None
) -> NDArray[np.float64]:
    """Euler-angle error [rad] per frame ``(T,)`` from local rotations ``(..., T, J, 4)``."""
    x, y = _pair(pred, true, 4, "euler_error")
    j = slice(None) if joints is None else np.asarray(joints, dtype=np.intp)
    ex = quat_to_euler(x[..., j, :], EULER_SEQUENCE)
    ey = quat_to_euler(y[..., j, :], EULER_SEQUENCE)
    diff = (ex - ey).reshape(*ex.shape[:-2], -1)  # (..., T, 3 J)
    e = np.linalg.norm(diff, axis=-1)
    return e.reshape(-1, e.shape[-1]).mean(axis=0)


def foot_skating(
    positions: ArrayLike,
    root_positions: ArrayLike,
    root_rotations: ArrayLike,
    feet: ArrayLike,
    fps: float,
    *,
    floor: ArrayLike,
    contact: float = 0.05,
) -> float:
    """Mean horizontal foot speed in contact [mm/s] (see the module notes).

    Parameters
    ----------
    positions : array_like, shape (W, T, J, 3)
        Root-relative positions [m] (root rotation removed).
    root_positions : array_like, shape (W, T, 3)
    root_rotations : array_like, shape (W, T, 4)
        The root's world rotation.
    feet : array_like of int
        Foot joints.
    fps : float
        Frame rate [frames/s].
    floor : array_like, shape (W,)
        Floor height of each window [m].
    contact : float
        Height above the floor below which a foot is in contact [m].

    Returns
    -------
    float
        NaN if no foot is ever in contact.
    """
    p = np.asarray(positions, dtype=np.float64)[..., np.asarray(feet, dtype=np.intp), :]
    q = np.asarray(root_rotations, dtype=np.float64)[..., None, :]
    world = quat_apply(q, p) + np.asarray(root_positions, dtype=np.float64)[..., None, :]
    low = world[..., 2] < np.asarray(floor, dtype=np.float64)[:, None, None] + contact  # (W, T, F)
    both = low[:, 1:] & low[:, :-1]
    step = np.linalg.norm(np.diff(world[..., :2], axis=1), axis=-1)
    if not both.any():
        return float("nan")
    return float(1000.0 * fps * step[both].mean())


def bone_length_drift(positions: ArrayLike, parents: ArrayLike, offsets: ArrayLike) -> float:
    """Mean deviation [mm] of bone lengths in ``positions (..., J, 3)`` from rest lengths."""
    p = np.asarray(positions, dtype=np.float64)
    par = np.asarray(parents, dtype=np.intp)
    rest = np.linalg.norm(np.asarray(offsets, dtype=np.float64), axis=-1)
    bones = np.flatnonzero((par >= 0) & (rest >= 1e-3))
    length = np.linalg.norm(p[..., bones, :] - p[..., par[bones], :], axis=-1)
    return float(1000.0 * np.abs(length - rest[bones]).mean())
