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
from vhuman.reaching.arm import JOINT_LIMITS, R_SHOULDER_DH, ArmModel, Side

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
        Whether ``q`` is within the joint limits (to 1e-9 rad).
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


def _branches(
    model: ArmModel,
    wrist: NDArray[np.float64],
    rotation_dh: NDArray[np.float64],
    phi: NDArray[np.float64],
    up: NDArray[np.float64],
) -> NDArray[np.float64]:
    """All eight closed-form solutions, shape (8, ..., 7): elbow × shoulder × wrist branch.

    ``wrist`` (..., 3) may have size 1 where ``phi`` (...) does not (one hand pose, many φ).
    """
    d1, d2 = model.upper_arm, model.forearm
    w, length = _unit(wrist)
    cos_elbow = np.clip((length**2 - d1**2 - d2**2) / (2.0 * d1 * d2), -1.0, 1.0)
    elbow_abs = np.arccos(cos_elbow)
    cos_beta = np.clip((d1**2 + length**2 - d2**2) / (2.0 * d1 * length), -1.0, 1.0)
    sin_beta = np.sqrt(1.0 - cos_beta**2)

    ref = _reference_direction(w, up)
    normal = np.cos(phi)[..., None] * ref + np.sin(phi)[..., None] * np.cross(w, ref)
    elbow = d1 * (cos_beta[..., None] * w + sin_beta[..., None] * normal)  # (..., 3), φ's shape
    elbow_abs = np.broadcast_to(elbow_abs, phi.shape)
    # Shoulder-frame vectors → D-H frame 0 (row vectors: v0 = v · R_shoulder_dh).
    u0 = (elbow / d1) @ R_SHOULDER_DH
    f0 = ((wrist - elbow) / d2) @ R_SHOULDER_DH

    # The shoulder angles and the forearm in frame 2 do not depend on the elbow's sign.
    shoulders = []
    for sh in (1.0, -1.0):
        # u0 = −z2 = (c1 c2, s1 c2, −s2)
        q2 = np.arctan2(-u0[..., 2], sh * np.hypot(u0[..., 0], u0[..., 1]))
        q1 = np.arctan2(sh * u0[..., 1], sh * u0[..., 0])
        c1, s1, c2, s2 = np.cos(q1), np.sin(q1), np.cos(q2), np.sin(q2)
        r02 = _matrix(((s2 * c1, -s1, -c1 * c2), (s1 * s2, c1, -s1 * c2), (c2, 0.0, s2)))
        f2 = np.einsum("...ji,...j->...i", r02, f0)
        shoulders.append((q1, q2, r02, f2))

    out = np.empty((8, *phi.shape, 7))
    k = 0
    for elbow_sign in (-1.0, 1.0):
        q4 = elbow_sign * elbow_abs
        s4, c4 = np.sin(q4), np.cos(q4)
        for q1, q2, r02, f2 in shoulders:
            # −f2 = z4 in frame 2 = (s4 c3, s4 s3, c4)
            q3 = np.arctan2(-elbow_sign * f2[..., 1], -elbow_sign * f2[..., 0])
            c3, s3 = np.cos(q3), np.sin(q3)
            r24 = _matrix(((c3 * c4, -s3, s4 * c3), (s3 * c4, c3, s3 * s4), (-s4, 0.0, c4)))
            r47 = np.swapaxes(r02 @ r24, -1, -2) @ rotation_dh
            for wr in (1.0, -1.0):
                # third column (c5 c6, s5 c6, −s6), third row (−c6 c7, c6 s7, ·)
                out[k, ..., 0], out[k, ..., 1], out[k, ..., 2], out[k, ..., 3] = q1, q2, q3, q4
                out[k, ..., 5] = np.arctan2(
                    -r47[..., 2, 2], wr * np.hypot(r47[..., 0, 2], r47[..., 1, 2])
                )
                out[k, ..., 4] = np.arctan2(wr * r47[..., 1, 2], wr * r47[..., 0, 2])
                out[k, ..., 6] = np.arctan2(wr * r47[..., 2, 1], -wr * r47[..., 2, 0])
                k += 1
    return out


def _matrix(rows: tuple[tuple[NDArray[np.float64] | float, ...], ...]) -> NDArray[np.float64]:
    """3 × 3 matrices ``(..., 3, 3)`` from nine entries, arrays of one shape or numbers."""
    shape = np.broadcast_shapes(*(np.shape(x) for row in rows for x in row))
    out = np.empty((*shape, 3, 3))
    for i, row in enumerate(rows):
        for j, x in enumerate(row):
            out[..., i, j] = x
    return out


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
    rotation_dh = np.broadcast_to(R_SHOULDER_DH.T @ rotation @ R_SHOULDER_DH, (*shape, 3, 3))
    return _branches(model, wrist, rotation_dh, phi, up)


def limit_violation(q: ArrayLike) -> NDArray[np.float64]:
    """Total distance of joint angles ``q`` (..., 7) outside :data:`JOINT_LIMITS` [rad], (...)."""
    q = np.asarray(q, dtype=np.float64)
    # At most one of the two excesses is positive (the lower limit is below the upper).
    below, above = JOINT_LIMITS[:, 0] - q, q - JOINT_LIMITS[:, 1]
    return np.sum(np.maximum(np.maximum(below, above, out=below), 0.0, out=below), axis=-1)


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
    candidates = arm_branches(
        model, hand_position, hand_orientation, swivel, reference_up=reference_up
    )  # (8, ..., 7)
    violation = limit_violation(candidates)  # (8, ...)
    feasible = model.within_limits(candidates)
    best = np.where(np.any(feasible, axis=0), np.argmax(feasible, axis=0), np.argmin(violation, 0))
    q = np.take_along_axis(candidates, best[None, ..., None], axis=0)[0]
    return ArmSolution(q, np.any(feasible, axis=0))


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
