"""Rotation vectors and the SO(3) exponential and logarithm maps.

A rotation vector ``r = θ k`` (unit axis ``k``, angle ``θ`` in radians) is an
element of the Lie algebra so(3); ``so3_exp`` maps it to a rotation matrix by
Rodrigues' formula and ``so3_log`` maps back, with Taylor branches near θ = 0
and a dedicated branch near θ = π where the usual formula divides by sin θ ≈ 0.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.geometry.quaternion import quat_canonical, rotmat_to_quat

__all__ = [
    "quat_to_rotvec",
    "rotmat_to_rotvec",
    "rotvec_to_quat",
    "rotvec_to_rotmat",
    "skew",
    "so3_exp",
    "so3_log",
]

_SMALL = 1e-6


def skew(v: ArrayLike) -> NDArray[np.float64]:
    """Skew-symmetric matrices ``[v]×`` ``(..., 3, 3)`` with ``[v]× u = v × u``."""
    v = np.asarray(v, dtype=np.float64)
    x, y, z = v[..., 0], v[..., 1], v[..., 2]
    o = np.zeros_like(x)
    return np.stack(
        [np.stack([o, -z, y], -1), np.stack([z, o, -x], -1), np.stack([-y, x, o], -1)], -2
    )


def rotvec_to_quat(r: ArrayLike) -> NDArray[np.float64]:
    """Unit quaternions ``(..., 4)`` of rotation vectors ``(..., 3)`` (radians)."""
    r = np.asarray(r, dtype=np.float64)
    theta = np.linalg.norm(r, axis=-1, keepdims=True)
    half = 0.5 * theta
    # sin(θ/2)/θ with its Taylor series near 0: 1/2 - θ²/48 + θ⁴/3840.
    small = theta < _SMALL
    t2 = theta * theta
    scale = np.where(
        small, 0.5 - t2 / 48.0 + t2 * t2 / 3840.0, np.sin(half) / np.where(small, 1.0, theta)
    )
    return np.concatenate([np.cos(half), scale * r], axis=-1)


def quat_to_rotvec(q: ArrayLike) -> NDArray[np.float64]:
    """Rotation vectors ``(..., 3)`` with angle in [0, π] of unit quaternions ``(..., 4)``."""
    q = quat_canonical(q)
    w = q[..., :1]
    v = q[..., 1:]
    s = np.linalg.norm(v, axis=-1, keepdims=True)
    theta = 2.0 * np.arctan2(s, w)
    # θ/s = 2 atan(s/w)/s → (2/w)(1 − s²/(3w²)) as s → 0 (w ≈ 1 there).
    small = s < _SMALL
    w_s = np.where(small, w, 1.0)
    series = (2.0 / w_s) * (1.0 - s * s / (3.0 * w_s * w_s))
    scale = np.where(small, series, theta / np.where(small, 1.0, s))
    return scale * v


def so3_exp(r: ArrayLike) -> NDArray[np.float64]:
    """Exponential map so(3) → SO(3): rotation matrices ``(..., 3, 3)`` of rotation vectors.

    Rodrigues' formula ``R = I + sin θ [k]× + (1 − cos θ) [k]×²``, evaluated as
    ``I + a [r]× + b [r]×²`` with ``a = sin θ / θ`` and ``b = (1 − cos θ)/θ²``
    (Taylor series below 1e-6 rad).
    """
    r = np.asarray(r, dtype=np.float64)
    theta = np.linalg.norm(r, axis=-1)[..., None, None]
    small = theta < _SMALL
    t2 = theta * theta
    safe = np.where(small, 1.0, theta)
    a = np.where(small, 1.0 - t2 / 6.0, np.sin(safe) / safe)
    b = np.where(small, 0.5 - t2 / 24.0, (1.0 - np.cos(safe)) / (safe * safe))
    k = skew(r)
    return np.eye(3) + a * k + b * (k @ k)


def so3_log(m: ArrayLike) -> NDArray[np.float64]:
    """Logarithm map SO(3) → so(3): rotation vectors ``(..., 3)``, angle in [0, π].

    Goes through the quaternion (Shepperd's method in scipy), which stays
    accurate near θ = 0 and θ = π where ``(R − Rᵀ)/(2 sin θ)`` fails.
    """
    return quat_to_rotvec(rotmat_to_quat(m))


def rotvec_to_rotmat(r: ArrayLike) -> NDArray[np.float64]:
    """Alias of :func:`so3_exp`."""
    return so3_exp(r)


def rotmat_to_rotvec(m: ArrayLike) -> NDArray[np.float64]:
    """Alias of :func:`so3_log`."""
    return so3_log(m)
