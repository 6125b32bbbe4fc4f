"""The swivel (arm) angle and the closed-form inverse kinematics of the 7-DOF arm.

The swivel angle φ is the angle, about the shoulder→wrist axis, between the
arm plane (shoulder S, elbow E, wrist W) and a reference plane, signed by the
right-hand rule about S→W.

Reference plane
---------------
Xia et al. (2021), after Shimizu et al. (2008), take the arm plane at ``q3 = 0``. For the
D-H chain of Xia et al. that plane is the plane through S→W and the joint-1 axis,
which is the body's forward axis: it is undefined for a straight-ahead reach,
the commonest reach of all. We therefore use the common alternative of the
human-motion literature: the **vertical plane through S→W** (the plane
containing S→W and ``reference_up``, by default the shoulder frame's z axis),
with ``φ = 0`` when the elbow is at its lowest, i.e. when E − S, taken
perpendicular to S→W, points along −``reference_up`` taken perpendicular to
S→W. For the right arm φ > 0 swings the elbow inwards (towards the body),
φ < 0 outwards; on the left arm, the mirror image, the signs swap. Passing
``reference_up=(1, 0, 0)`` (forward) gives Xia et al.'s ``q3 = 0`` plane. Where
S→W is parallel to ``reference_up`` (within 1e-9 rad) the reference falls back
to the shoulder frame's forward axis in place of ``reference_up``.

References
----------
Xia, Z., et al. (2021), arm angle φ and Fig. 1.
Shimizu, M., Kakuya, H., Yoon, W.-K., Kitagaki, K., & Kosuge, K. (2008).
Analytical inverse kinematic computation for 7-DOF redundant manipulators with
joint limits and its application to redundancy resolution. IEEE Trans.
Robotics 24(5), 1131–1142, Sections III–IV.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry import quat_normalize, quat_to_rotmat
from vhuman.geometry.quaternion import as_quat_array
from vhuman.reaching.arm import JOINT_LIMITS, LIMIT_TOL, R_SHOULDER_DH, ArmModel, Side

__all__ = [
    "UP",
    "ArmSolution",
    "arm_branches",
    "feasible_swivel_intervals",
    "limit_violation",
    "nearest_feasible_swivel",
    "solve_arm",
    "swivel_angle",
]

UP = (0.0, 0.0, 1.0)
"""Default ``reference_up``: the shoulder frame's vertical."""

_FORWARD = np.array([1.0, 0.0, 0.0])
_MIRROR = np.array([1.0, -1.0, 1.0])
_PARALLEL_EPS = 1e-9


class ArmSolution(NamedTuple):
    """Joint angles from :func:`solve_arm`.

    Attributes
    ----------
    q : ndarray, shape (..., 7)
        Joint angles [rad]; where no branch is within the limits, the branch
        that violates them least.
    feasible : ndarray of bool, shape (...)
        Whether ``q`` is within the joint limits (to :data:`~vhuman.reaching.arm.LIMIT_TOL`).
    """

    q: NDArray[np.float64]
    feasible: NDArray[np.bool_]


def _vectors(x: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim == 0 or arr.shape[-1] != 3:
        raise InputError(f"{name} must have shape (..., 3) [m], got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} contains NaN or infinite values")
    return arr


def _unit(v: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(n > 0.0, n, 1.0), n[..., 0]


def _reference_direction(w: NDArray[np.float64], up: NDArray[np.float64]) -> NDArray[np.float64]:
    """Unit elbow direction at φ = 0 (−``up`` perpendicular to unit ``w``), shape (..., 3)."""

    def perp(v: NDArray[np.float64]) -> NDArray[np.float64]:
        return v - np.sum(v * w, axis=-1, keepdims=True) * w

    r, n = _unit(perp(-up))
    fallback, _ = _unit(perp(np.broadcast_to(-_FORWARD, w.shape)))
    return np.where((n > _PARALLEL_EPS)[..., None], r, fallback)


def _reference_up(reference_up: ArrayLike) -> NDArray[np.float64]:
    up, n = _unit(_vectors(reference_up, "reference_up"))
    if np.any(n == 0.0):
        raise InputError("reference_up must be a non-zero vector")
    return up


def swivel_angle(
    shoulder: ArrayLike,
    elbow: ArrayLike,
    wrist: ArrayLike,
    *,
    reference_up: ArrayLike = UP,
) -> NDArray[np.float64]:
    """Swivel angle φ of arm postures, in (−π, π] [rad].

    Parameters
    ----------
    shoulder, elbow, wrist : array_like, shape (..., 3)
        Joint centres [m], in any frame shared with ``reference_up``.
    reference_up : array_like, shape (3,) or (..., 3)
        The "up" of the reference plane (see the module); default the z axis.
        Where S→W is parallel to it, the frame's x axis takes its place.

    Returns
    -------
    ndarray, shape (...)
        φ, NaN where the elbow lies on the shoulder→wrist line (straight arm)
        or the wrist is at the shoulder.

    Raises
    ------
    InputError
        For arrays that are not (..., 3) or not finite, or a zero ``reference_up``.
    """
    s = _vectors(shoulder, "shoulder")
    w, length = _unit(_vectors(wrist, "wrist") - s)
    e = _vectors(elbow, "elbow") - s
    e_perp, e_norm = _unit(e - np.sum(e * w, axis=-1, keepdims=True) * w)
    ref = _reference_direction(w, _reference_up(reference_up))
    phi = np.arctan2(np.sum(w * np.cross(ref, e_perp), axis=-1), np.sum(ref * e_perp, axis=-1))
    defined = (e_norm > 1e-12 * np.maximum(length, 1.0)) & (length > 0.0)
    return np.where(defined, phi, np.nan)


def _to_right(
    model: ArmModel,
    position: NDArray[np.float64],
    rotation: NDArray[np.float64],
    phi: NDArray[np.float64],
    up: NDArray[np.float64],
) -> tuple[NDArray[np.float64], ...]:
    """Mirror a left-arm task into the right arm's (identity for the right arm)."""
    if model.side is Side.RIGHT:
        return position, rotation, phi, up
    return _MIRROR * position, _MIRROR[:, None] * rotation * _MIRROR, -phi, _MIRROR * up


class _Variants(NamedTuple):
    """The distinct values of each joint angle over the eight branches of :func:`arm_branches`.

    Branch ``k = 4 e + 2 s + w`` (``e``: elbow flexed, ``q4 ≤ 0``, then
    extended; ``s``: shoulder with ``cos q2 ≥ 0``, then ``≤ 0``; ``w``: wrist
    with ``cos q6 ≥ 0``, then ``≤ 0``) takes joint ``j`` from
    ``angles[j][_VARIANT[j][k]]``: ``q1`` and ``q2`` depend on ``s`` alone,
    ``q3`` on ``e`` and ``s``, ``q4`` on ``e``, ``q5``–``q7`` on all three.

    Attributes
    ----------
    angles : tuple of 7 ndarrays
        Joint angles [rad], shapes (2, ...), (2, ...), (4, ...), (2, ...) (``q4``:
        the hand pose's shape, which broadcasts against the others'), (8, ...) × 3.
    shape : tuple of int
        The shape ``...`` of the solutions.
    """

    angles: tuple[NDArray[np.float64], ...]
    shape: tuple[int, ...]

    def per_branch(self) -> tuple[NDArray[np.float64], ...]:
        """The angles as views that broadcast over the branch axes (e, s, w)."""
        return tuple(
            a.reshape(*lead, *a.shape[1:]) for a, lead in zip(self.angles, _AXES, strict=True)
        )


_K = np.arange(8)
_E, _S = _K >> 2, (_K >> 1) & 1
_VARIANT = (_S, _S, 2 * _E + _S, _E, _K, _K, _K)
"""Index into each joint's variants of branch ``k`` (see :class:`_Variants`)."""
_AXES = ((1, 2, 1), (1, 2, 1), (2, 2, 1), (2, 1, 1), (2, 2, 2), (2, 2, 2), (2, 2, 2))
"""Each joint's variants over the branch axes (e, s, w)."""


def _branches(
    model: ArmModel,
    wrist: NDArray[np.float64],
    rotation_dh: NDArray[np.float64],
    phi: NDArray[np.float64],
    up: NDArray[np.float64],
) -> _Variants:
    """The joint angles of all eight closed-form solutions, joint by joint.

    ``wrist`` (..., 3) and ``rotation_dh`` (..., 3, 3) have the hand pose's
    shape, which broadcasts against ``phi`` (...): what does not depend on φ
    is computed once per pose. The rotation from frame 4 to frame 7,
    ``R47 = R24ᵀ R02ᵀ R07``, is needed only in its third column and third
    row; those are formed entry by entry from the columns of ``R02ᵀ R07``.
    """
    d1, d2 = model.upper_arm, model.forearm
    w, length = _unit(wrist)
    cos_elbow = np.clip((length**2 - d1**2 - d2**2) / (2.0 * d1 * d2), -1.0, 1.0)
    elbow_abs = np.arccos(cos_elbow)
    cos_beta = np.clip((d1**2 + length**2 - d2**2) / (2.0 * d1 * length), -1.0, 1.0)
    sin_beta = np.sqrt(1.0 - cos_beta**2)
    ref = _reference_direction(w, up)
    across = np.cross(w, ref)
    c_phi, s_phi = np.cos(phi), np.sin(phi)
    # The elbow on its circle; upper arm u and forearm f in D-H frame 0, where
    # v0 = v · R_SHOULDER_DH = (−v_z, v_y, v_x).
    elbow = [
        d1 * (cos_beta * w[..., i] + sin_beta * (c_phi * ref[..., i] + s_phi * across[..., i]))
        for i in range(3)
    ]
    u0 = (-(elbow[2] / d1), elbow[1] / d1, elbow[0] / d1)
    f = [(wrist[..., i] - elbow[i]) / d2 for i in range(3)]
    f0 = [-f[2], f[1], f[0]]
    rho = np.hypot(u0[0], u0[1])
    q1, q2, q3 = np.empty((2, *phi.shape)), np.empty((2, *phi.shape)), np.empty((4, *phi.shape))
    q5, q6, q7 = (np.empty((8, *phi.shape)) for _ in range(3))
    shoulders = []
    for s, sh in enumerate((1.0, -1.0)):
        # u0 = −z2 = (c1 c2, s1 c2, −s2)
        np.arctan2(-u0[2], sh * rho, out=q2[s, ...])
        np.arctan2(sh * u0[1], sh * u0[0], out=q1[s, ...])
        c1, s1, c2, s2 = np.cos(q1[s]), np.sin(q1[s]), np.cos(q2[s]), np.sin(q2[s])
        r02 = ((s2 * c1, -s1, -c1 * c2), (s1 * s2, c1, -s1 * c2), (c2, 0.0, s2))
        # Columns of G = R02ᵀ R07 (R07: the hand in D-H frame 0).
        g = [_transposed_times(r02, [rotation_dh[..., m, j] for m in range(3)]) for j in range(3)]
        shoulders.append((_transposed_times(r02, f0), g))
    c4 = np.cos(elbow_abs)
    for e, elbow_sign in enumerate((-1.0, 1.0)):
        s4 = np.sin(elbow_sign * elbow_abs)
        for s, (f2, g) in enumerate(shoulders):
            # −f2 = z4 in frame 2 = (s4 c3, s4 s3, c4)
            k = 4 * e + 2 * s
            np.arctan2(-elbow_sign * f2[1], -elbow_sign * f2[0], out=q3[2 * e + s, ...])
            c3, s3 = np.cos(q3[2 * e + s]), np.sin(q3[2 * e + s])
            # Third column (c5 c6, s5 c6, −s6) and third row (−c6 c7, c6 s7, ·) of
            # R47 = R24ᵀ G, with R24 = ((c3 c4, −s3, s4 c3), (s3 c4, c3, s3 s4), (−s4, 0, c4)).
            along = c3 * g[2][0] + s3 * g[2][1]
            x, z = c4 * along - s4 * g[2][2], s4 * along + c4 * g[2][2]
            y = c3 * g[2][1] - s3 * g[2][0]
            row = [s4 * (c3 * g[j][0] + s3 * g[j][1]) + c4 * g[j][2] for j in range(2)]
            sideways = np.hypot(x, y)
            # 0 − v and v + 0 turn a −0 into +0: the wrist angles lie in (−π, π]
            # whatever sign rounding leaves on an entry that is zero.
            np.arctan2(0.0 - z, sideways, out=q6[k, ...])
            np.arctan2(0.0 - z, -sideways, out=q6[k + 1, ...])
            np.arctan2(y + 0.0, x, out=q5[k, ...])
            np.arctan2(0.0 - y, -x, out=q5[k + 1, ...])
            np.arctan2(row[1] + 0.0, -row[0], out=q7[k, ...])
            np.arctan2(0.0 - row[1], row[0], out=q7[k + 1, ...])
    q4 = np.stack([-elbow_abs, elbow_abs])
    return _Variants((q1, q2, q3, q4, q5, q6, q7), phi.shape)


def _transposed_times(
    r: tuple[tuple[NDArray[np.float64] | float, ...], ...], v: list[NDArray[np.float64]]
) -> list[NDArray[np.float64]]:
    """``Rᵀ v`` of 3 × 3 matrices ``r`` (rows of entries) and vectors ``v`` (3 entries)."""
    return [r[0][i] * v[0] + r[1][i] * v[1] + r[2][i] * v[2] for i in range(3)]


def _pose_branches(
    model: ArmModel,
    hand_position: ArrayLike,
    hand_orientation: ArrayLike,
    swivel: ArrayLike,
    reference_up: ArrayLike,
) -> _Variants:
    """:func:`_branches` of checked inputs (see :func:`arm_branches`)."""
    position = _vectors(hand_position, "hand_position")
    quat = as_quat_array(hand_orientation, "hand_orientation")
    phi = np.asarray(swivel, dtype=np.float64)
    if not np.all(np.isfinite(phi)):
        raise InputError("swivel contains NaN or infinite values")
    shape = np.broadcast_shapes(position.shape[:-1], quat.shape[:-1], phi.shape)
    # The hand pose's own shape: what does not depend on φ is computed once per pose.
    pose = np.broadcast_shapes(position.shape[:-1], quat.shape[:-1])
    pose = (1,) * (len(shape) - len(pose)) + pose
    position = np.broadcast_to(position, (*pose, 3))
    rotation = np.broadcast_to(quat_to_rotmat(quat_normalize(quat)), (*pose, 3, 3))
    phi = np.broadcast_to(phi, shape)
    position, rotation, phi, up = _to_right(
        model, position, rotation, phi, _reference_up(reference_up)
    )
    wrist = position + model.hand * rotation[..., :, 2]  # the hand points along its −z
    _check_reach(model, np.broadcast_to(wrist, (*shape, 3)))
    return _branches(model, wrist, R_SHOULDER_DH.T @ rotation @ R_SHOULDER_DH, phi, up)


def arm_branches(
    model: ArmModel,
    hand_position: ArrayLike,
    hand_orientation: ArrayLike,
    swivel: ArrayLike,
    *,
    reference_up: ArrayLike = UP,
) -> NDArray[np.float64]:
    """All eight closed-form joint-angle solutions of a hand pose and a swivel angle.

    The eight (elbow sign × shoulder branch × wrist branch) put the arm in the
    same place; they differ in how the angles represent it, so at most some
    are within the joint limits. :func:`solve_arm` picks one.

    Parameters
    ----------
    model : ArmModel
    hand_position : array_like, shape (..., 3)
        Hand end point in the shoulder frame [m].
    hand_orientation : array_like, shape (..., 4)
        ``q_shoulder_hand`` (w, x, y, z).
    swivel : array_like, shape (...)
        Swivel angle φ [rad].
    reference_up : array_like, shape (3,)

    Returns
    -------
    ndarray, shape (8, ..., 7)
        Joint angles [rad] in (−π, π], broadcast over the inputs.

    Raises
    ------
    InputError
        As :func:`solve_arm`.
    """
    variants = _pose_branches(model, hand_position, hand_orientation, swivel, reference_up)
    out = np.empty((8, *variants.shape, 7))
    for j, a in enumerate(variants.per_branch()):
        out[..., j] = np.broadcast_to(a, (2, 2, 2, *variants.shape)).reshape(out.shape[:-1])
    return out


def limit_violation(q: ArrayLike) -> NDArray[np.float64]:
    """Total distance of joint angles ``q`` (..., 7) outside :data:`JOINT_LIMITS` [rad], (...)."""
    q = np.asarray(q, dtype=np.float64)
    return sum((_joint_excess(q[..., j], j) for j in range(1, 7)), _joint_excess(q[..., 0], 0))


def _joint_excess(angle: NDArray[np.float64], joint: int) -> NDArray[np.float64]:
    """Distance [rad] of angles ``angle`` (any shape) of ``joint`` outside its limits, 0 within."""
    return np.abs(angle - np.clip(angle, *JOINT_LIMITS[joint]))


def solve_arm(
    model: ArmModel,
    hand_position: ArrayLike,
    hand_orientation: ArrayLike,
    swivel: ArrayLike,
    *,
    reference_up: ArrayLike = UP,
) -> ArmSolution:
    """Closed-form inverse kinematics of the arm for a hand pose and a swivel angle.

    The wrist centre follows from the hand pose; the elbow angle from the
    triangle shoulder–elbow–wrist; the elbow position from φ on the circle of
    possible elbows; the shoulder joints (two branches) from the upper-arm
    direction, joint 3 from the forearm direction, and the wrist joints (two
    branches) from the remaining rotation. Of the eight branches (two elbow
    signs too, see :func:`arm_branches`), the first within the joint limits is
    returned (order: elbow flexed, then ``cos q2 ≥ 0``, then ``cos q6 ≥ 0``);
    where none is, the one with the smallest total limit violation, flagged
    not feasible.

    Parameters
    ----------
    model : ArmModel
    hand_position : array_like, shape (..., 3)
        Hand end point in the shoulder frame [m].
    hand_orientation : array_like, shape (..., 4)
        ``q_shoulder_hand`` (w, x, y, z), as :meth:`ArmModel.forward` gives it.
    swivel : array_like, shape (...)
        Swivel angle φ [rad] (see the module for the reference plane).
    reference_up : array_like, shape (3,)
        Up of the reference plane, in the shoulder frame.

    Returns
    -------
    ArmSolution
        ``q`` (..., 7) [rad] and ``feasible`` (...), broadcast over the inputs.

    Raises
    ------
    InputError
        For non-finite or mis-shaped inputs, or a wrist centre out of reach
        (the message gives its distance and the reachable distances).

    References
    ----------
    Shimizu et al. (2008), Section III (closed form for a given arm angle).
    """
    variants = _pose_branches(model, hand_position, hand_orientation, swivel, reference_up)
    # Limits and their violations per distinct joint value, combined over the branch axes in
    # joint order (as within_limits and limit_violation of the (8, ..., 7) branches).
    lo, hi = JOINT_LIMITS[:, 0] - LIMIT_TOL, JOINT_LIMITS[:, 1] + LIMIT_TOL
    feasible = np.array(True)
    violation = np.array(0.0)
    for j, a in enumerate(variants.per_branch()):
        feasible = feasible & ((a >= lo[j]) & (a <= hi[j]))
        violation = violation + _joint_excess(a, j)
    feasible = np.broadcast_to(feasible, (2, 2, 2, *variants.shape)).reshape(8, *variants.shape)
    violation = violation.reshape(8, *variants.shape)
    found = np.any(feasible, axis=0)
    best = np.where(found, np.argmax(feasible, axis=0), np.argmin(violation, axis=0))
    q = np.empty((*variants.shape, 7))
    for j, (a, variant) in enumerate(zip(variants.angles, _VARIANT, strict=True)):
        a = np.broadcast_to(a, (a.shape[0], *variants.shape))
        q[..., j] = np.take_along_axis(a, variant[best][None], axis=0)[0]
    return ArmSolution(q, found)


def _check_reach(model: ArmModel, wrist: NDArray[np.float64]) -> None:
    lo, hi = model.reach
    dist = np.linalg.norm(wrist, axis=-1)
    tol = 1e-12 * hi
    bad = (dist > hi + tol) | (dist < lo - tol)
    if np.any(bad):
        index = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InputError(
            f"hand pose out of reach: its wrist centre is {dist[index]:.6g} m from the "
            f"shoulder (at index {index}); reachable distances are "
            f"[{lo:.6g}, {hi:.6g}] m"
        )


def _grid(samples: int) -> NDArray[np.float64]:
    if int(samples) != samples or samples < 4:
        raise InputError(f"samples must be an integer ≥ 4, got {samples}")
    return -np.pi + 2.0 * np.pi * np.arange(int(samples)) / int(samples)


def feasible_swivel_intervals(
    model: ArmModel,
    hand_position: ArrayLike,
    hand_orientation: ArrayLike,
    *,
    samples: int = 720,
    reference_up: ArrayLike = UP,
) -> list[tuple[float, float]]:
    """Swivel intervals in which one hand pose has a within-limits solution.

    φ is sampled at ``samples`` evenly spaced values in [−π, π); each interval
    runs from its first to its last feasible sample, so it is exact at the
    sample spacing (2π / ``samples``) and conservative.

    Parameters
    ----------
    model : ArmModel
    hand_position : array_like, shape (3,)
        Hand end point in the shoulder frame [m].
    hand_orientation : array_like, shape (4,)
        ``q_shoulder_hand`` (w, x, y, z).
    samples : int
        Number of φ samples (default 720, i.e. every 0.5°).
    reference_up : array_like, shape (3,)

    Returns
    -------
    list of (float, float)
        ``(start, end)`` [rad], ``start`` in [−π, π), ``end ≥ start``; an
        interval that wraps through ±π ends above π; ``[(−π, π)]`` when every
        sample is feasible and ``[]`` when none is.

    Raises
    ------
    InputError
        As :func:`solve_arm`, or for a batch of poses.
    """
    if np.ndim(hand_position) != 1 or np.ndim(hand_orientation) != 1:
        raise InputError("feasible_swivel_intervals takes one hand pose: shapes (3,) and (4,)")
    grid = _grid(samples)
    ok = solve_arm(model, hand_position, hand_orientation, grid, reference_up=reference_up)
    feasible = ok.feasible
    if feasible.all():
        return [(-np.pi, np.pi)]
    step = 2.0 * np.pi / grid.size
    # Start from an infeasible sample so that no run is split at the array end.
    shift = int(np.argmin(feasible))
    rolled = np.roll(feasible, -shift)
    edges = np.diff(np.concatenate([[0], rolled.astype(np.int8), [0]]))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1
    intervals = []
    for a, b in zip(starts, ends, strict=True):
        start = grid[(a + shift) % grid.size]
        intervals.append((float(start), float(start + (b - a) * step)))
    return sorted(intervals)


def nearest_feasible_swivel(
    model: ArmModel,
    hand_position: ArrayLike,
    hand_orientation: ArrayLike,
    swivel: ArrayLike,
    *,
    samples: int = 720,
    reference_up: ArrayLike = UP,
) -> NDArray[np.float64]:
    """The feasible swivel angle nearest to a requested one, per hand pose.

    Returns ``swivel`` itself where it is feasible, else the nearest (on the
    circle) of ``samples`` evenly spaced feasible values.

    Parameters
    ----------
    model : ArmModel
    hand_position : array_like, shape (..., 3)
    hand_orientation : array_like, shape (..., 4)
    swivel : array_like, shape (...)
        Requested φ [rad].
    samples : int
        Number of φ samples in [−π, π).
    reference_up : array_like, shape (3,)

    Returns
    -------
    ndarray, shape (...)
        φ [rad]; NaN where no sampled φ is feasible.

    Raises
    ------
    InputError
        As :func:`solve_arm`.
    """
    phi = np.asarray(swivel, dtype=np.float64)
    requested = solve_arm(model, hand_position, hand_orientation, phi, reference_up=reference_up)
    grid = _grid(samples)
    position = np.asarray(hand_position, dtype=np.float64)[..., None, :]
    orientation = np.asarray(hand_orientation, dtype=np.float64)[..., None, :]
    sampled = solve_arm(model, position, orientation, grid, reference_up=reference_up)
    phi_b = np.broadcast_to(phi, requested.feasible.shape)
    gap = np.abs(np.angle(np.exp(1j * (grid - phi_b[..., None]))))
    gap = np.where(sampled.feasible, gap, np.inf)
    nearest = np.take_along_axis(
        np.broadcast_to(grid, gap.shape), np.argmin(gap, axis=-1)[..., None], -1
    )[..., 0]
    nearest = np.where(np.isfinite(gap.min(axis=-1)), nearest, np.nan)
    return np.where(requested.feasible, phi_b, nearest)
