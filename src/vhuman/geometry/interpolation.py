"""Interpolation of rotations: slerp (shortest arc) and SQUAD (C¹ across keys)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.geometry.quaternion import quat_conjugate, quat_multiply, quat_normalize
from vhuman.geometry.so3 import quat_to_rotvec, rotvec_to_quat

__all__ = ["quat_slerp", "quat_squad", "squad_control_points"]


def _great_arc(q0: NDArray, q1: NDArray, t: NDArray) -> NDArray[np.float64]:
    """``q0 ⊗ (q0⁻¹ ⊗ q1)^t`` along the great circle of the 4-sphere, without any flip."""
    delta = quat_multiply(quat_conjugate(q0), q1)
    v = delta[..., 1:]
    s = np.linalg.norm(v, axis=-1, keepdims=True)
    half = np.arctan2(s, delta[..., :1])  # in [0, π]: the arc may exceed 90° on the sphere
    axis = v / np.where(s > 1e-12, s, 1.0)
    h = t * half
    return quat_multiply(q0, np.concatenate([np.cos(h), np.sin(h) * axis], axis=-1))


def quat_slerp(q0: ArrayLike, q1: ArrayLike, t: ArrayLike) -> NDArray[np.float64]:
    """Spherical linear interpolation along the shortest arc.

    ``q(t) = q0 ⊗ exp(t · log(q0⁻¹ ⊗ q1))``, with ``q1`` negated first when the two
    are more than 90° apart in quaternion space, so the angular speed is constant
    and the path is the shorter of the two great arcs.

    Parameters
    ----------
    q0, q1 : array_like, shape (..., 4)
        Unit quaternions (w, x, y, z) at ``t = 0`` and ``t = 1``.
    t : array_like, shape (...)
        Interpolation parameters, broadcast against the leading shape; values
        outside [0, 1] extrapolate along the same great circle.

    Returns
    -------
    ndarray, shape (..., 4)
    """
    q0 = quat_normalize(q0)
    q1 = quat_normalize(q1)
    t = np.asarray(t, dtype=np.float64)[..., None]
    dot = np.sum(q0 * q1, axis=-1, keepdims=True)
    return _great_arc(q0, np.where(dot < 0.0, -q1, q1), t)


def _same_hemisphere(keys: ArrayLike) -> NDArray[np.float64]:
    """Unit keys ``(K, ..., 4)`` with each flipped onto its predecessor's hemisphere."""
    q = quat_normalize(keys).copy()
    for i in range(1, q.shape[0]):
        flip = np.sum(q[i] * q[i - 1], axis=-1, keepdims=True) < 0.0
        q[i] = np.where(flip, -q[i], q[i])
    return q


def squad_control_points(keys: ArrayLike) -> NDArray[np.float64]:
    """Inner control quaternions ``s_i`` of SQUAD for keys ``(K, ..., 4)``.

    ``s_i = q_i ⊗ exp(−(log(q_i⁻¹ q_{i+1}) + log(q_i⁻¹ q_{i−1})) / 4)`` (Shoemake
    1987), with the end keys repeated so the curve starts and ends on them.
    Neighbouring keys are first flipped onto the same hemisphere.
    """
    q = _same_hemisphere(keys)
    prev = np.concatenate([q[:1], q[:-1]], axis=0)
    nxt = np.concatenate([q[1:], q[-1:]], axis=0)
    inv = quat_conjugate(q)
    log_next = quat_to_rotvec(quat_multiply(inv, nxt))
    log_prev = quat_to_rotvec(quat_multiply(inv, prev))
    return quat_multiply(q, rotvec_to_quat(-(log_next + log_prev) / 4.0))


def quat_squad(keys: ArrayLike, times: ArrayLike, t: ArrayLike) -> NDArray[np.float64]:
    """SQUAD spline through key rotations: passes every key, C¹ across them.

    The angular velocity is continuous across keys when the keys are evenly
    spaced in time; with uneven spacing its direction is continuous but its
    magnitude may jump (the curve is G¹).

    Parameters
    ----------
    keys : array_like, shape (K, ..., 4)
        Key quaternions, K ≥ 2, at increasing ``times``.
    times : array_like, shape (K,)
        Strictly increasing key times.
    t : array_like, shape (N,)
        Query times; clamped to ``[times[0], times[-1]]``.

    Returns
    -------
    ndarray, shape (N, ..., 4)

    References
    ----------
    K. Shoemake, "Animating rotation with quaternion curves", SIGGRAPH 1985;
    "Quaternion calculus and fast animation", SIGGRAPH course notes 1987.
    """
    from vhuman.errors import InputError

    q = _same_hemisphere(keys)
    times = np.asarray(times, dtype=np.float64)
    if q.shape[0] < 2 or times.shape != (q.shape[0],):
        raise InputError(
            f"SQUAD needs K >= 2 keys with one time each, got keys {q.shape}, times {times.shape}"
        )
    if np.any(np.diff(times) <= 0.0):
        raise InputError("SQUAD key times must be strictly increasing")
    s = squad_control_points(q)
    tq = np.clip(np.atleast_1d(np.asarray(t, dtype=np.float64)), times[0], times[-1])
    seg = np.clip(np.searchsorted(times, tq, side="right") - 1, 0, len(times) - 2)
    h = (tq - times[seg]) / (times[seg + 1] - times[seg])
    h = h.reshape(h.shape + (1,) * (q.ndim - 2))
    # Plain great arcs, no shortest-arc flips: a flip inside a segment would make
    # the curve jump (keys are already on one hemisphere).
    h = h[..., None]
    a = _great_arc(q[seg], q[seg + 1], h)
    b = _great_arc(s[seg], s[seg + 1], h)
    return _great_arc(a, b, 2.0 * h * (1.0 - h))
