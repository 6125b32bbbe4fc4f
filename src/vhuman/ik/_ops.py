"""Component-wise rotation algebra on two backends: Python floats or batches of numpy arrays.

The IK kernels are written once, on components: a vector is a tuple ``(x, y, z)``
and a quaternion a tuple ``(w, x, y, z)`` whose entries are either Python floats
(one target) or numpy arrays of shape ``(B,)`` (a batch of targets, each step
vectorised over B). Arithmetic operators work on both; the few functions that
differ (square root, arctangent, clipping, selection) come from a backend
object, :data:`SCALAR` or :data:`BATCH`. One target on floats runs about ten
times faster than on length-1 arrays, whose per-call overhead dominates.

Quaternions follow vhuman: (w, x, y, z), ``qmul(q_a_b, q_b_c) = q_a_c``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np

from vhuman.geometry.euler import check_euler_sequence

__all__ = [
    "BATCH",
    "SCALAR",
    "Backend",
    "EulerAxes",
    "Quat",
    "Vec",
    "cross",
    "dot",
    "euler_from_quat",
    "mat_from_quat",
    "mat_rotate",
    "mat_rotate_t",
    "qaxis",
    "qconj",
    "qmul",
    "qrotate",
    "quat_from_euler",
]

Col: TypeAlias = Any
"""One component: a Python float or a numpy array of shape (B,)."""
Vec: TypeAlias = tuple[Col, Col, Col]
Quat: TypeAlias = tuple[Col, Col, Col, Col]
Mat: TypeAlias = tuple[Col, Col, Col, Col, Col, Col, Col, Col, Col]
"""Row-major 3×3 matrix."""


class Backend:
    """Elementary functions of one backend (see the module docstring)."""

    batched: bool = False

    sqrt = staticmethod(math.sqrt)
    sin = staticmethod(math.sin)
    cos = staticmethod(math.cos)
    atan2 = staticmethod(math.atan2)
    hypot = staticmethod(math.hypot)

    @staticmethod
    def clip(x: Col, lo: float, hi: float) -> Col:
        """``x`` limited to [lo, hi]."""
        return lo if x < lo else (hi if x > hi else x)

    @staticmethod
    def maximum(x: Col, y: Col) -> Col:
        """Element-wise maximum."""
        return x if x > y else y

    abs = staticmethod(abs)

    @staticmethod
    def sign(x: Col) -> Col:
        """−1, 0 or 1."""
        return (x > 0) - (x < 0)

    @staticmethod
    def where(cond: Col, a: Col, b: Col) -> Col:
        """``a`` where ``cond`` else ``b``."""
        return a if cond else b

    @staticmethod
    def any(cond: Col) -> bool:
        """Whether ``cond`` holds for any element."""
        return bool(cond)

    @staticmethod
    def not_(cond: Col) -> Col:
        """Logical negation."""
        return not cond

    @staticmethod
    def wrap(x: Col) -> Col:
        """Angle ``x`` [rad] wrapped into [−π, π]."""
        return math.remainder(x, 2.0 * math.pi)


class _Batch(Backend):
    batched = True
    sqrt = staticmethod(np.sqrt)
    sin = staticmethod(np.sin)
    cos = staticmethod(np.cos)
    atan2 = staticmethod(np.arctan2)
    hypot = staticmethod(np.hypot)

    @staticmethod
    def clip(x: Col, lo: float, hi: float) -> Col:
        return np.minimum(np.maximum(x, lo), hi)

    maximum = staticmethod(np.maximum)
    abs = staticmethod(np.abs)
    sign = staticmethod(np.sign)
    where = staticmethod(np.where)

    @staticmethod
    def any(cond: Col) -> bool:
        return bool(np.any(cond))

    not_ = staticmethod(np.logical_not)

    @staticmethod
    def wrap(x: Col) -> Col:
        return (x + np.pi) % (2.0 * np.pi) - np.pi


SCALAR = Backend()
"""Python floats: one target."""
BATCH = _Batch()
"""numpy arrays of shape (B,): a batch of targets."""


def dot(a: Vec, b: Vec) -> Col:
    """Dot product."""
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


def cross(a: Vec, b: Vec) -> Vec:
    """Cross product ``a × b``."""
    return (
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    )


def qmul(a: Quat, b: Quat) -> Quat:
    """Hamilton product ``a ⊗ b`` (apply ``b`` first)."""
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (
        aw * bw - ax * bx - ay * by - az * bz,
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
    )


def qconj(q: Quat) -> Quat:
    """Conjugate (the inverse of a unit quaternion)."""
    return (q[0], -q[1], -q[2], -q[3])


def qrotate(q: Quat, v: Vec) -> Vec:
    """Vector ``v`` rotated by the unit quaternion ``q``: ``v + w t + u × t``, ``t = 2 u × v``."""
    w, x, y, z = q
    vx, vy, vz = v
    tx = 2.0 * (y * vz - z * vy)
    ty = 2.0 * (z * vx - x * vz)
    tz = 2.0 * (x * vy - y * vx)
    return (
        vx + w * tx + (y * tz - z * ty),
        vy + w * ty + (z * tx - x * tz),
        vz + w * tz + (x * ty - y * tx),
    )


def qaxis(axis: Vec, angle: Col, xp: Backend) -> Quat:
    """Rotation by ``angle`` [rad] about the unit ``axis``."""
    h = 0.5 * angle
    s = xp.sin(h)
    return (xp.cos(h), s * axis[0], s * axis[1], s * axis[2])


def mat_from_quat(q: Quat) -> Mat:
    """Row-major rotation matrix of a unit quaternion."""
    w, x, y, z = q
    xx, yy, zz = x * x, y * y, z * z
    xy, xz, yz = x * y, x * z, y * z
    wx, wy, wz = w * x, w * y, w * z
    return (
        1.0 - 2.0 * (yy + zz),
        2.0 * (xy - wz),
        2.0 * (xz + wy),
        2.0 * (xy + wz),
        1.0 - 2.0 * (xx + zz),
        2.0 * (yz - wx),
        2.0 * (xz - wy),
        2.0 * (yz + wx),
        1.0 - 2.0 * (xx + yy),
    )


def mat_rotate(m: Mat, v: Vec) -> Vec:
    """``M v``."""
    return (
        m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
        m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
        m[6] * v[0] + m[7] * v[1] + m[8] * v[2],
    )


def mat_rotate_t(m: Mat, v: Vec) -> Vec:
    """``Mᵀ v`` (the inverse rotation)."""
    return (
        m[0] * v[0] + m[3] * v[1] + m[6] * v[2],
        m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
        m[2] * v[0] + m[5] * v[1] + m[8] * v[2],
    )


_AXIS_INDEX = {"x": 0, "y": 1, "z": 2}


@dataclass(frozen=True)
class EulerAxes:
    """Constants of one Euler sequence for :func:`euler_from_quat` and :func:`quat_from_euler`.

    Attributes
    ----------
    sequence : str
        The sequence, as in :mod:`vhuman.geometry.euler` (upper case intrinsic).
    axes : tuple of int
        Axis index (0 = x, 1 = y, 2 = z) of the first, second and third angle.
    intrinsic : bool
        Rotations about the moving axes.
    """

    sequence: str
    axes: tuple[int, int, int]
    intrinsic: bool

    @classmethod
    def from_sequence(cls, seq: str) -> EulerAxes:
        """Constants of ``seq`` (one of :data:`vhuman.geometry.EULER_SEQUENCES`)."""
        check_euler_sequence(seq)
        a = tuple(_AXIS_INDEX[c] for c in seq.lower())
        return cls(seq, (a[0], a[1], a[2]), seq.isupper())

    @property
    def proper(self) -> bool:
        """First and third axes are the same (e.g. ZXZ); else Tait-Bryan."""
        return self.axes[0] == self.axes[2]

    @property
    def middle_range(self) -> tuple[float, float]:
        """Range [rad] of the middle angle: [−π/2, π/2] (Tait-Bryan) or [0, π] (proper)."""
        return (0.0, math.pi) if self.proper else (-0.5 * math.pi, 0.5 * math.pi)


def euler_from_quat(q: Quat, e: EulerAxes, xp: Backend) -> tuple[Col, Col, Col]:
    """Euler angles [rad] of a unit quaternion, as :func:`vhuman.geometry.quat_to_euler`.

    The direct method of Bernardes & Viollet (2022), which scipy also uses; away
    from gimbal lock both give the same angles. At gimbal lock the split between
    the first and third angle differs, but the angles still reproduce ``q``.

    References
    ----------
    E. Bernardes, S. Viollet, "Quaternion to Euler angles conversion: a direct,
    general and computationally efficient method", PLoS ONE 17(11), 2022.
    """
    i, j, k = e.axes if not e.intrinsic else e.axes[::-1]
    proper = i == k
    if proper:
        k = 3 - i - j
    sign = (i - j) * (j - k) * (k - i) // 2
    v = q[1:]
    w = q[0]
    if proper:
        a, b, c, d = w, v[i], v[j], v[k] * sign
    else:
        a, b, c, d = w - v[j], v[i] + v[k] * sign, v[j] + w, v[k] * sign - v[i]
    mid = 2.0 * xp.atan2(xp.hypot(c, d), xp.hypot(a, b))
    half_sum = xp.atan2(b, a)
    half_diff = xp.atan2(d, c)
    first = xp.wrap(half_sum - half_diff)
    third = xp.wrap(half_sum + half_diff)
    if not proper:
        third = third * sign
        mid = mid - 0.5 * math.pi
    if e.intrinsic:
        first, third = third, first
    return first, mid, third


def _times_elementary(q: Quat, axis: int, angle: Col, xp: Backend, *, left: bool) -> Quat:
    """``e ⊗ q`` (``left``) or ``q ⊗ e`` for the elementary rotation ``e`` about a basis axis.

    ``e = (c, s·ê)`` has two non-zero entries, so the product takes a third of a
    full Hamilton product.
    """
    h = 0.5 * angle
    c, s = xp.cos(h), xp.sin(h)
    w, v = q[0], list(q[1:])
    i, j, k = axis, (axis + 1) % 3, (axis + 2) % 3
    # ê × v and v × ê have only the j and k entries: (ê × v)_j = −v_k, (ê × v)_k = v_j.
    sign = 1.0 if left else -1.0
    out = [0.0, 0.0, 0.0]
    out[i] = c * v[i] + s * w
    out[j] = c * v[j] - sign * s * v[k]
    out[k] = c * v[k] + sign * s * v[j]
    return (c * w - s * v[i], out[0], out[1], out[2])


def quat_from_euler(angles: tuple[Col, Col, Col], e: EulerAxes, xp: Backend) -> Quat:
    """Unit quaternion of Euler angles [rad] about the axes of ``e``."""
    one: Quat = (1.0, 0.0, 0.0, 0.0)
    if e.intrinsic:
        q = _times_elementary(one, e.axes[0], angles[0], xp, left=False)
        q = _times_elementary(q, e.axes[1], angles[1], xp, left=False)
        return _times_elementary(q, e.axes[2], angles[2], xp, left=False)
    q = _times_elementary(one, e.axes[0], angles[0], xp, left=True)
    q = _times_elementary(q, e.axes[1], angles[1], xp, left=True)
    return _times_elementary(q, e.axes[2], angles[2], xp, left=True)
