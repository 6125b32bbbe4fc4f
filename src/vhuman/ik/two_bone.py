"""Analytic two-bone IK (law of cosines) for legs and arms, batched over frames.

For a chain upper (BALL) → middle (HINGE) → end, e.g. hip → knee → ankle or
shoulder → elbow → wrist: the hinge angle follows from the distance between
the upper joint and the target in the triangle upper-middle-end (the law of
cosines, generalised to offsets that are not collinear), taking the root that
lies within the hinge's limits, so a knee or an elbow bends the anatomical way;
the upper joint then turns the limb onto the target, with its swivel about the
upper→target line set by a pole point that the middle joint points towards.

References
----------
M. Chen, J. Chen, C. Xu, "Virtual human motion control based on two-stage IK and
keyframes" (Chen et al.), section 2.2: leg joint angles from the pelvis and ankle
positions by the law of cosines in the hip-knee-ankle triangle.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry.quaternion import (
    as_quat_array,
    quat_apply,
    quat_conjugate,
    quat_multiply,
    quat_normalize,
    quat_to_rotmat,
    rotmat_to_quat,
)
from vhuman.ik.chain import Chain
from vhuman.ik.result import IKResult
from vhuman.skeleton import JointType, Skeleton, forward_kinematics

__all__ = ["two_bone_ik"]


def _unit(v: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    norm = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.maximum(norm, 1e-300), norm[..., 0]


def _reject(v: NDArray[np.float64], n: NDArray[np.float64]) -> NDArray[np.float64]:
    return v - np.sum(v * n, axis=-1, keepdims=True) * n


def _axis_rotate(
    axis: NDArray[np.float64], angle: NDArray[np.float64], v: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``v (N, 3)`` rotated by ``angle (N,)`` about unit ``axis`` ((3,) or (N, 3); Rodrigues)."""
    c, s = np.cos(angle)[:, None], np.sin(angle)[:, None]
    return v * c + np.cross(axis, v) * s + axis * np.sum(axis * v, -1, keepdims=True) * (1.0 - c)


def _hinge_angle(
    off_m: NDArray[np.float64],
    off_e: NDArray[np.float64],
    axis: NDArray[np.float64],
    dist: NDArray[np.float64],
    lo: float,
    hi: float,
) -> NDArray[np.float64]:
    """Hinge angle within [lo, hi] putting the end at ``dist`` from the upper joint.

    ``|off_m + R(axis, θ) off_e|² = dist²`` reduces to ``A cos θ + B sin θ = K``.
    Of its two roots the one inside the limits is taken (the anatomical bend); out
    of reach, the angle that comes closest.
    """
    ha, hb = axis @ off_m, axis @ off_e
    a = off_m @ off_e - ha * hb
    b = off_m @ np.cross(axis, off_e)
    k = 0.5 * (dist**2 - off_m @ off_m - off_e @ off_e) - ha * hb
    r = np.hypot(a, b)
    phi = np.arctan2(b, a)
    alpha = np.arccos(np.clip(k / max(r, 1e-300), -1.0, 1.0))
    roots = np.stack([phi + alpha, phi - alpha], axis=-1)
    roots = (roots + np.pi) % (2.0 * np.pi) - np.pi
    clipped = np.clip(roots, lo, hi)
    # Prefer a root inside the limits; else the one the limits move least.
    miss = np.abs(clipped - roots)
    pick = np.argmin(miss + 1e-12 * np.arange(2), axis=-1)
    return np.take_along_axis(clipped, pick[:, None], axis=-1)[:, 0]


def _frame(primary: NDArray[np.float64], secondary: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rotation matrices ``(N, 3, 3)`` with columns (primary, secondary, primary × secondary)."""
    return np.stack([primary, secondary, np.cross(primary, secondary)], axis=-1)


_SWIVELS = 36
"""Swivel angles tried (every 10°) when the hinted one puts the upper joint out of its limits."""


def _swivel(
    sk: Skeleton,
    upper: int,
    g_par: NDArray[np.float64],
    to_target: NDArray[np.float64],
    side: NDArray[np.float64],
    w_local: NDArray[np.float64],
    bend: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Local rotation ``(N, 4)`` of the upper joint for the swivel nearest the hint ``side``
    that keeps it within its limits (the least violating one if none does)."""
    n = len(to_target)
    angles = np.concatenate([[0.0], np.arange(1, _SWIVELS) * (2.0 * np.pi / _SWIVELS)])
    angles = (angles + np.pi) % (2.0 * np.pi) - np.pi
    sides = np.stack([_axis_rotate(to_target, np.full(n, a), side) for a in angles], axis=1)
    local = _frame(w_local, bend).transpose(0, 2, 1)[:, None]  # (N, 1, 3, 3)
    world = _frame(np.broadcast_to(to_target[:, None], sides.shape), sides) @ local
    parent = quat_to_rotmat(quat_conjugate(g_par))[:, None]
    q = rotmat_to_quat(parent @ world)  # (N, K, 4)
    full = np.zeros((n, len(angles), sk.n_joints, 4))
    full[..., 0] = 1.0
    full[:, :, upper] = q
    excess = sk.limit_violation(full)[:, :, upper]
    pick = np.argmin(1e3 * excess + np.abs(angles), axis=1)
    return q[np.arange(n), pick]


def two_bone_ik(
    chain: Chain,
    target: ArrayLike,
    local_rotations: ArrayLike | None = None,
    root_position: ArrayLike | None = None,
    *,
    pole: ArrayLike | None = None,
    end_orientation: ArrayLike | None = None,
    tolerance: float = 1e-6,
) -> IKResult:
    """Place the end of a two-bone limb on a target, in closed form, for many frames at once.

    Parameters
    ----------
    chain : Chain
        Three joints: a BALL joint, a HINGE joint, the end, e.g.
        ``Chain(skeleton, "l_ankle", start="l_hip")`` or
        ``Chain(skeleton, "l_wrist", start="l_shoulder")``.
    target : array_like, shape (..., 3)
        World position of the end joint [m].
    local_rotations : array_like, shape (..., J, 4), optional
        Pose of every joint (default: rest); only the limb's joints change.
    root_position : array_like, shape (..., 3), optional
        Root position [m] (default: the skeleton's rest root).
    pole : array_like, shape (..., 3), optional
        World point the middle joint (knee, elbow) should point towards, e.g. a
        point in front of the knee. Default: keep the limb's current swivel. If
        that swivel would take the upper joint out of its limits, the nearest
        swivel (in 10° steps) that does not is used instead.
    end_orientation : array_like, shape (..., 4), optional
        World rotation for the end joint (e.g. a flat foot); clamped to its limits.
    tolerance : float
        Residual [m] under which a frame counts as converged.

    Returns
    -------
    IKResult
        Batched over the broadcast leading shape; ``iterations`` is 1 and
        ``joint_updates`` 2 (3 with ``end_orientation``) per frame. A target out
        of reach (or beyond the hinge's limits) gives the closest pose, with
        ``converged`` False and the residual.

    Raises
    ------
    InputError
        If the chain is not BALL → HINGE → end, or an input has NaNs or a wrong shape.

    Examples
    --------
    >>> from vhuman.skeleton import standard_humanoid
    >>> leg = Chain(standard_humanoid(), "l_ankle", start="l_hip")
    >>> res = two_bone_ik(leg, [0.1, 0.08, 0.15], pole=[1.0, 0.08, 0.5])
    >>> float(res.position_error) < 1e-9, bool(res.converged)
    (True, True)
    """
    if not isinstance(chain, Chain):
        raise InputError(f"chain must be a vhuman.ik.Chain, got {type(chain).__name__}")
    kinds = [spec.kind for spec in chain.specs]
    if len(kinds) != 3 or kinds[0] is not JointType.BALL or kinds[1] is not JointType.HINGE:
        got = " → ".join(f"{n} ({k.name})" for n, k in zip(chain.names, kinds, strict=True))
        raise InputError(
            "two-bone IK needs a chain of three joints: BALL → HINGE → end (e.g. hip → knee → "
            f"ankle); got {got}"
        )
    sk = chain.skeleton
    upper, middle, end = chain.joints
    tgt = np.asarray(target, dtype=np.float64)
    if tgt.ndim == 0 or tgt.shape[-1] != 3:
        raise InputError(f"target must have shape (..., 3) [m], got {tgt.shape}")
    if not np.all(np.isfinite(tgt)):
        raise InputError("target contains NaN or infinite values; give finite metres")
    if not (np.isfinite(tolerance) and tolerance > 0.0):
        raise InputError(f"tolerance must be a finite distance > 0 m, got {tolerance}")
    q = np.zeros((sk.n_joints, 4))
    q[:, 0] = 1.0
    if local_rotations is not None:
        q = quat_normalize(as_quat_array(local_rotations, "local_rotations"))
        if q.ndim < 2 or q.shape[-2] != sk.n_joints:
            raise InputError(
                f"local_rotations must have shape (..., {sk.n_joints}, 4), got {q.shape}"
            )
    root = sk.offsets[0] if root_position is None else np.asarray(root_position, dtype=np.float64)
    if root.ndim == 0 or root.shape[-1] != 3 or not np.all(np.isfinite(root)):
        raise InputError(f"root_position must be finite with shape (..., 3) [m], got {root.shape}")
    extra = []
    if pole is not None:
        pole = np.asarray(pole, dtype=np.float64)
        if pole.ndim == 0 or pole.shape[-1] != 3 or not np.all(np.isfinite(pole)):
            raise InputError(f"pole must be finite with shape (..., 3) [m], got {pole.shape}")
        extra.append(pole.shape[:-1])
    if end_orientation is not None:
        end_orientation = quat_normalize(as_quat_array(end_orientation, "end_orientation"))
        extra.append(end_orientation.shape[:-1])
    try:
        shape = np.broadcast_shapes(q.shape[:-2], root.shape[:-1], tgt.shape[:-1], *extra)
    except ValueError:
        raise InputError(
            "batch shapes of target, pose, pole and end_orientation do not broadcast"
        ) from None
    n = int(np.prod(shape, dtype=np.int64))
    q = np.broadcast_to(q, (*shape, sk.n_joints, 4)).reshape(n, sk.n_joints, 4).copy()
    root = np.broadcast_to(root, (*shape, 3)).reshape(n, 3)
    tgt = np.broadcast_to(tgt, (*shape, 3)).reshape(n, 3)

    spec_m, spec_e = chain.specs[1], chain.specs[2]
    off_m, off_e = np.array(spec_m.offset), np.array(spec_e.offset)
    axis = np.array(spec_m.axis)
    lo, hi = spec_m.lower[0], spec_m.upper[0]
    pos, rot = forward_kinematics(sk.parents, sk.offsets, root, q)
    p_u = pos[:, upper]
    g_par = rot[:, sk.parents[upper]]
    g_u = rot[:, upper]

    to_target, dist = _unit(tgt - p_u)
    theta = _hinge_angle(off_m, off_e, axis, dist, lo, hi)
    w_local, _ = _unit(off_m + _axis_rotate(axis, theta, np.broadcast_to(off_e, (n, 3))))
    # Where the middle joint lies off the upper→end line; for a straight limb, the
    # side it moves to when the hinge bends (half-way through its range).
    bend = _reject(np.broadcast_to(off_m, (n, 3)), w_local)
    ref = np.clip(0.5 * (max(lo, -np.pi) + min(hi, np.pi)), lo, hi)
    w_ref, _ = _unit(off_m + _axis_rotate(axis, np.full(n, ref), np.broadcast_to(off_e, (n, 3))))
    bend_ref = _reject(_reject(np.broadcast_to(off_m, (n, 3)), w_ref), w_local)
    straight = np.linalg.norm(bend, axis=-1) < 1e-9 * chain.length
    bend, _ = _unit(np.where(straight[:, None], bend_ref, bend))

    current = quat_apply(g_u, bend)
    wanted = current if pole is None else np.broadcast_to(pole, (*shape, 3)).reshape(n, 3) - p_u
    side, size = _unit(_reject(wanted, to_target))
    fallback, _ = _unit(_reject(current, to_target))
    side = np.where((size < 1e-9)[:, None], fallback, side)

    q[:, upper] = _swivel(sk, upper, g_par, to_target, side, w_local, bend)
    q[:, middle] = np.concatenate(
        [np.cos(0.5 * theta)[:, None], np.sin(0.5 * theta)[:, None] * axis], axis=-1
    )
    # The hinge angle is already within its limits; the upper joint may not be.
    q[:, [upper, middle, end]] = sk.clamp(q)[:, [upper, middle, end]]
    updates = 2
    if end_orientation is not None:
        q_end = np.broadcast_to(end_orientation, (*shape, 4)).reshape(n, 4)
        g_mid = quat_multiply(quat_multiply(g_par, q[:, upper]), q[:, middle])
        q[:, end] = quat_multiply(quat_conjugate(g_mid), q_end)
        q[:, end] = sk.clamp(q)[:, end]
        updates = 3
    final, _ = forward_kinematics(sk.parents, sk.offsets, root, q)
    error = np.linalg.norm(final[:, end] - tgt, axis=-1)
    q = np.where(q[..., :1] < 0.0, -q, q)
    return IKResult(
        local_rotations=q.reshape(*shape, sk.n_joints, 4),
        root_position=root.reshape(*shape, 3).copy(),
        position_error=error.reshape(shape),
        orientation_error=None,
        iterations=np.ones(shape, dtype=np.int64),
        joint_updates=np.full(shape, updates, dtype=np.int64),
        converged=(error <= tolerance).reshape(shape),
    )
