"""Unit quaternions in (w, x, y, z) order, batched over any leading shape.

A quaternion ``q_a_b`` rotates vectors expressed in frame ``b`` into frame ``a``;
``quat_multiply(q_a_b, q_b_c)`` is ``q_a_c``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "as_quat_array",
    "quat_angle",
    "quat_apply",
    "quat_canonical",
    "quat_conjugate",
    "quat_identity",
    "quat_inverse",
    "quat_multiply",
    "quat_normalize",
    "quat_to_rotmat",
    "rotmat_to_quat",
]

_NORM_EPS = 1e-12


def as_quat_array(q: ArrayLike, name: str = "quaternion") -> NDArray[np.float64]:
    """Return ``q`` as a float array of shape ``(..., 4)``, checking shape and finiteness.

    Raises
    ------
    InputError
        If the last axis is not 4 long or a value is NaN or infinite.
    """
    from vhuman.errors import InputError

    arr = np.asarray(q, dtype=np.float64)
    if arr.ndim == 0 or arr.shape[-1] != 4:
        raise InputError(f"{name} must have shape (..., 4) in (w, x, y, z) order, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} contains NaN or infinite values")
    return arr


def quat_identity(shape: tuple[int, ...] = ()) -> NDArray[np.float64]:
    """Identity rotations of shape ``shape + (4,)``."""
    q = np.zeros((*shape, 4))
    q[..., 0] = 1.0
    return q


def quat_normalize(q: ArrayLike) -> NDArray[np.float64]:
    """Scale quaternions ``(..., 4)`` to unit norm.

    Raises
    ------
    InputError
        If a quaternion has (near) zero norm and so encodes no rotation, or a
        norm too large for a float.
    """
    from vhuman.errors import InputError

    q = as_quat_array(q)
    with np.errstate(over="ignore"):
        norm = np.linalg.norm(q, axis=-1, keepdims=True)
    if np.any(norm < _NORM_EPS):
        raise InputError("quaternion of zero norm cannot be normalised to a rotation")
    if not np.all(np.isfinite(norm)):
        raise InputError("quaternion of infinite or overflowing norm cannot be normalised")
    return q / norm


def quat_canonical(q: ArrayLike) -> NDArray[np.float64]:
    """Unit quaternions with ``w >= 0`` (``q`` and ``-q`` are the same rotation)."""
    q = quat_normalize(q)
    return np.where(q[..., :1] < 0.0, -q, q)


def quat_conjugate(q: ArrayLike) -> NDArray[np.float64]:
    """Conjugate ``(w, -x, -y, -z)``; the inverse rotation for unit quaternions."""
    q = np.asarray(q, dtype=np.float64)
    out = -q
    out[..., 0] = q[..., 0]
    return out


quat_inverse = quat_conjugate
"""Inverse of a unit quaternion (same as :func:`quat_conjugate`)."""


def quat_multiply(q_a_b: ArrayLike, q_b_c: ArrayLike) -> NDArray[np.float64]:
    """Hamilton product ``q_a_b ⊗ q_b_c = q_a_c`` (apply ``q_b_c`` first).

    Parameters
    ----------
    q_a_b, q_b_c : array_like, shape (..., 4)
        Broadcastable quaternions (w, x, y, z).

    Returns
    -------
    ndarray, shape (..., 4)
    """
    p = np.asarray(q_a_b, dtype=np.float64)
    q = np.asarray(q_b_c, dtype=np.float64)
    pw, px, py, pz = p[..., 0], p[..., 1], p[..., 2], p[..., 3]
    qw, qx, qy, qz = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    return np.stack(
        [
            pw * qw - px * qx - py * qy - pz * qz,
            pw * qx + px * qw + py * qz - pz * qy,
            pw * qy - px * qz + py * qw + pz * qx,
            pw * qz + px * qy - py * qx + pz * qw,
        ],
        axis=-1,
    )


def quat_apply(q_a_b: ArrayLike, v_b: ArrayLike) -> NDArray[np.float64]:
    """Rotate vectors ``v_b (..., 3)`` by unit quaternions ``q_a_b (..., 4)`` → ``v_a``."""
    q = np.asarray(q_a_b, dtype=np.float64)
    v = np.asarray(v_b, dtype=np.float64)
    w = q[..., :1]
    u = q[..., 1:]
    t = 2.0 * np.cross(u, v)
    return v + w * t + np.cross(u, t)


def quat_to_rotmat(q: ArrayLike) -> NDArray[np.float64]:
    """Rotation matrices ``(..., 3, 3)`` of unit quaternions ``(..., 4)``."""
    q = np.asarray(q, dtype=np.float64)
    w, x, y, z = q[..., 0], q[..., 1], q[..., 2], q[..., 3]
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    m = np.empty((*q.shape[:-1], 3, 3))
    m[..., 0, 0] = 1.0 - 2.0 * (yy + zz)
    m[..., 0, 1] = 2.0 * (xy - wz)
    m[..., 0, 2] = 2.0 * (xz + wy)
    m[..., 1, 0] = 2.0 * (xy + wz)
    m[..., 1, 1] = 1.0 - 2.0 * (xx + zz)
    m[..., 1, 2] = 2.0 * (yz - wx)
    m[..., 2, 0] = 2.0 * (xz - wy)
    m[..., 2, 1] = 2.0 * (yz + wx)
    m[..., 2, 2] = 1.0 - 2.0 * (xx + yy)
    return m


def rotmat_to_quat(m: ArrayLike) -> NDArray[np.float64]:
    """Canonical unit quaternions ``(..., 4)`` (w ≥ 0) of rotation matrices ``(..., 3, 3)``.

    Uses scipy's robust conversion; a matrix that is not exactly orthonormal is
    projected to the nearest rotation.
    """
    from vhuman.errors import InputError

    m = np.asarray(m, dtype=np.float64)
    if m.ndim < 2 or m.shape[-2:] != (3, 3):
        raise InputError(f"rotation matrices must have shape (..., 3, 3), got {m.shape}")
    if not np.all(np.isfinite(m)):
        raise InputError("rotation matrix contains NaN or infinite values")
    lead = m.shape[:-2]
    if m.size == 0:
        return np.zeros((*lead, 4))
    # scipy.spatial takes a quarter of a second to import: only where it is used.
    from scipy.spatial.transform import Rotation

    q = Rotation.from_matrix(m.reshape(-1, 3, 3)).as_quat(canonical=True, scalar_first=True)
    return q.reshape(*lead, 4)


def quat_angle(q_a_b: ArrayLike, q_a_c: ArrayLike | None = None) -> NDArray[np.float64]:
    """Rotation angle in radians, in [0, π].

    With one argument, the angle of each rotation; with two, the angle of the
    relative rotation between them (a geodesic distance on SO(3)).
    """
    q = np.asarray(q_a_b, dtype=np.float64)
    if q_a_c is not None:
        q = quat_multiply(quat_conjugate(q), q_a_c)
    w = np.abs(q[..., 0])
    v = np.linalg.norm(q[..., 1:], axis=-1)
    return 2.0 * np.arctan2(v, w)
