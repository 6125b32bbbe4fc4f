"""Feet planted through a transition: each foot held where it stands, stepped, held again.

A transition between two poses interpolates every joint, which drags the feet
over the floor. Here each foot instead keeps its start placement (ankle
position, foot orientation, toe angle) until its step, moves to its end
placement in a minimum-jerk step (Flash & Hogan 1985) lifted off the floor,
and keeps that after; one foot steps after the other. The legs of the
interpolated poses are then corrected to put the feet there, by the
analytic two-bone inverse kinematics of the hip–knee–ankle chain (Tolani,
Goswami and Badler, "Real-time inverse kinematics techniques for
anthropomorphic limbs", 2000): the knee's flexion set by the hip–ankle
distance, the thigh swung by the smallest rotation that brings the ankle
onto its target, which keeps the knee in the interpolated pose's bend plane
so it cannot flip. Where the interpolated pose already has its feet on the
targets (the first and last frames) the correction is zero.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from vhuman.animation import Easing, ease
from vhuman.geometry import (
    quat_angle,
    quat_apply,
    quat_conjugate,
    quat_multiply,
    quat_to_euler,
)
from vhuman.skeleton import Skeleton
from vhuman.skeleton.footskate import SLIDE_TOLERANCE
from vhuman.skeleton.kinematics import forward_kinematics

__all__ = [
    "FOOT_REACH",
    "LEGS",
    "STEP_CLEARANCE",
    "STEP_HEIGHT",
    "FootPlacement",
    "bend_and_swing",
    "feet_move",
    "foot_placements",
    "foot_travel",
    "lift_profile",
    "plant_feet",
    "step_path",
    "stepped_feet",
]

LEGS = (("l_hip", "l_knee", "l_ankle", "l_toe"), ("r_hip", "r_knee", "r_ankle", "r_toe"))
"""Hip, knee, ankle and toe joint names of each leg."""
STEP_HEIGHT = 0.03
"""Height [m] the ankle is lifted at the middle of a step."""
STEP_CLEARANCE = 0.01
"""Height [m] above the floor of a stepping foot's lowest point at mid-step, at least."""
_TWIST_ITERATIONS = 4  # turns of the leg about hip–ankle that take the foot's yaw off the ankle
_ROLL_ITERATIONS = 4  # solves of a leg that roll the foot onto its ball
_MOST_ROLL = np.radians(60.0)  # largest roll [rad] of a foot onto its ball or toe tip
_ROLL_MARGIN = np.radians(1.0)  # dorsiflexion [rad] kept inside the ankle's range
_LIFT_OFF = 0.25  # step phase at which the foot starts (and before whose end it stops) moving
FOOT_REACH = 0.25
"""Distance [m] from the ankle that no point of a foot (heel, ball, toe tip) exceeds: the
workers' farthest, the p99 male's toe tip, is 0.21 m from it."""


class FootPlacement(NamedTuple):
    """Where a foot is: ankle position ``(..., 3)`` [m], foot (ankle) world rotation
    ``(..., 4)`` and toe local rotation ``(..., 4)`` (w, x, y, z)."""

    ankle: NDArray[np.float64]
    rotation: NDArray[np.float64]
    toe: NDArray[np.float64]


def foot_placements(
    skeleton: Skeleton, root: NDArray[np.float64], local: NDArray[np.float64]
) -> tuple[FootPlacement, FootPlacement]:
    """The left and right feet's placements in poses ``root (..., 3)``, ``local (..., J, 4)``."""
    pos, rot = forward_kinematics(skeleton.parents, skeleton.offsets, root, local)
    out = []
    for _, _, ankle, toe in LEGS:
        a, t = skeleton.index(ankle), skeleton.index(toe)
        out.append(FootPlacement(pos[..., a, :], rot[..., a, :], local[..., t, :]))
    return out[0], out[1]


def feet_move(
    skeleton: Skeleton,
    start: tuple[NDArray[np.float64], NDArray[np.float64]],
    end: tuple[NDArray[np.float64], NDArray[np.float64]],
) -> bool:
    """Whether a foot steps between poses ``start`` and ``end`` (root (3,), local (J, 4)):
    a point of it may travel more than the slide tolerance (:func:`foot_travel`)."""
    return any(
        _moves(a, b)
        for a, b in zip(
            foot_placements(skeleton, *start), foot_placements(skeleton, *end), strict=True
        )
    )


def foot_travel(start: FootPlacement, end: FootPlacement) -> NDArray[np.float64]:
    """Bound ``(...)`` [m] on how far any point of a foot travels from placement ``start`` to
    ``end``: the ankle's travel plus the foot's and the toes' turns [rad] times
    :data:`FOOT_REACH` (a point ``r`` from the joint it turns about moves at most ``θ r``)."""
    turn = quat_angle(start.rotation, end.rotation) + quat_angle(start.toe, end.toe)
    return np.asarray(np.linalg.norm(end.ankle - start.ankle, axis=-1) + FOOT_REACH * turn)


def _moves(start: FootPlacement, end: FootPlacement) -> bool:
    """Whether a foot moving from ``start`` to ``end`` on the floor could slide a point of it
    by more than :data:`~vhuman.skeleton.footskate.SLIDE_TOLERANCE`: then it steps, lifted
    off the floor."""
    return float(foot_travel(start, end)) > SLIDE_TOLERANCE


def _slerp(
    q0: NDArray[np.float64], q1: NDArray[np.float64], s: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Spherical linear interpolation from ``q0 (4,)`` to ``q1 (4,)`` at ``s (N,)``: ``(N, 4)``."""
    q1 = q1 if np.dot(q0, q1) >= 0.0 else -q1
    angle = float(np.arccos(np.clip(np.dot(q0, q1), -1.0, 1.0)))
    if angle < 1e-9:
        return np.tile(q0, (len(s), 1))
    w0 = np.sin((1.0 - s) * angle) / np.sin(angle)
    w1 = np.sin(s * angle) / np.sin(angle)
    return w0[:, None] * q0 + w1[:, None] * q1


def step_path(start: FootPlacement, end: FootPlacement, u: NDArray[np.float64]) -> FootPlacement:
    """Foot placements ``(N, ...)`` of one step from ``start`` to ``end`` at step phases
    ``u (N,)`` in [0, 1] (0 before, 1 after the step): the ankle lifted by
    :data:`STEP_HEIGHT` times :func:`lift_profile` (not when the foot stays), and in the
    middle half of the step, once the foot is off the floor, minimum-jerk travel and turn."""
    m = ease(Easing.MINIMUM_JERK, np.clip((u - _LIFT_OFF) / (1.0 - 2.0 * _LIFT_OFF), 0.0, 1.0))
    ankle = start.ankle + m[:, None] * (end.ankle - start.ankle)
    if _moves(start, end):
        ankle[:, 2] += STEP_HEIGHT * lift_profile(u)
    return FootPlacement(
        ankle, _slerp(start.rotation, end.rotation, m), _slerp(start.toe, end.toe, m)
    )


def lift_profile(u: NDArray[np.float64]) -> NDArray[np.float64]:
    """Lift ``16 u² (1 − u)²`` over step phases ``u (N,)`` in [0, 1]: 1 at mid-step, 0 with
    zero speed at both ends."""
    return 16.0 * u**2 * (1.0 - u) ** 2


def _swing(v: NDArray[np.float64], w: NDArray[np.float64]) -> NDArray[np.float64]:
    """Smallest rotations ``(N, 4)`` taking directions ``v (N, 3)`` onto ``w (N, 3)``."""
    v = v / np.linalg.norm(v, axis=-1, keepdims=True)
    w = w / np.linalg.norm(w, axis=-1, keepdims=True)
    q = np.concatenate([1.0 + np.sum(v * w, axis=-1, keepdims=True), np.cross(v, w)], axis=-1)
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def _hinge(angle: NDArray[np.float64], axis: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rotations ``(N, 4)`` by ``angle (N,)`` [rad] about the unit ``axis (3,)``."""
    half = 0.5 * angle
    return np.concatenate([np.cos(half)[:, None], np.sin(half)[:, None] * axis], axis=-1)


def bend_and_swing(
    upper_position: NDArray[np.float64],
    upper_rotation: NDArray[np.float64],
    middle_offset: NDArray[np.float64],
    end: NDArray[np.float64],
    axis: NDArray[np.float64],
    flex_range: tuple[float, float],
    target: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Two-link analytic inverse kinematics (Tolani, Goswami and Badler 2000): the middle
    hinge bent so that the upper joint–end distance is the upper joint–target distance (law
    of cosines, clamped to ``flex_range``), then the upper joint swung by the smallest
    rotation that points the limb at the target.

    Parameters
    ----------
    upper_position : ndarray, shape (N, 3)
        World position of the upper joint (hip, shoulder) [m].
    upper_rotation : ndarray, shape (N, 4)
        Its world rotation before the swing (w, x, y, z).
    middle_offset : ndarray, shape (3,)
        The middle joint's (knee, elbow) offset in the upper joint's frame [m].
    end : ndarray, shape (N, 3)
        The end point (ankle, hand end) in the middle joint's frame [m].
    axis : ndarray, shape (3,)
        The middle hinge's unit axis.
    flex_range : (float, float)
        Bounds of the hinge angle [rad].
    target : ndarray, shape (N, 3)
        World position for the end point [m].

    Returns
    -------
    upper : ndarray, shape (N, 4)
        World rotation of the upper joint.
    middle : ndarray, shape (N, 4)
        Local rotation of the middle hinge.
    """
    l1 = float(np.linalg.norm(middle_offset))
    l2 = np.linalg.norm(end, axis=-1)
    reach = target - upper_position
    d = np.linalg.norm(reach, axis=-1)
    cos_bend = (d**2 - l1**2 - l2**2) / (2.0 * l1 * l2)
    flex = np.clip(np.arccos(np.clip(cos_bend, -1.0, 1.0)), *flex_range)
    middle = _hinge(flex, axis)
    end_in_upper = middle_offset + quat_apply(middle, end)
    upper = quat_multiply(_swing(quat_apply(upper_rotation, end_in_upper), reach), upper_rotation)
    return upper, middle


def _leg(
    skeleton: Skeleton,
    pos: NDArray[np.float64],
    rot: NDArray[np.float64],
    local: NDArray[np.float64],
    leg: tuple[str, str, str, str],
    ankle: NDArray[np.float64],
    foot: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Hip, knee and ankle local rotations ``(N, 4)`` putting the ankle at ``ankle (N, 3)``
    with the foot's world rotation ``foot (N, 4)``, from the global joint positions
    ``pos (N, J, 3)``, rotations ``rot (N, J, 4)`` and local rotations ``local (N, J, 4)``
    of the poses to correct. The leg is turned about its hip–ankle line until the ankle's
    axial twist is that of ``local``."""
    h, k, a = (skeleton.index(n) for n in leg[:3])
    axis = skeleton.axes[k] if skeleton.axes is not None else np.array([0.0, 1.0, 0.0])
    lo, hi = skeleton.limits[k, 0] if skeleton.limits is not None else (-np.pi, np.pi)
    shank = np.broadcast_to(skeleton.offsets[a], (len(ankle), 3))
    hip_rot, knee_q = bend_and_swing(
        pos[:, h], rot[:, h], skeleton.offsets[k], shank, axis, (max(lo, 0.0), hi), ankle
    )
    reach = ankle - pos[:, h]
    down = reach / np.linalg.norm(reach, axis=-1)[:, None]
    given = local[:, a]
    twist0 = 2.0 * np.arctan2(given[:, 3], given[:, 0])
    for _ in range(_TWIST_ITERATIONS):  # the leg turned about hip–ankle: the foot's yaw
        ankle_q = quat_multiply(quat_conjugate(quat_multiply(hip_rot, knee_q)), foot)
        twist = 2.0 * np.arctan2(ankle_q[:, 3], ankle_q[:, 0]) - twist0
        twist = (twist + np.pi) % (2.0 * np.pi) - np.pi
        spin = np.concatenate(
            [np.cos(0.5 * twist)[:, None], -np.sin(0.5 * twist)[:, None] * down], axis=-1
        )
        hip_rot = quat_multiply(spin, hip_rot)
    hip_local = quat_multiply(quat_conjugate(rot[:, skeleton.parents[h]]), hip_rot)
    ankle_local = quat_multiply(quat_conjugate(quat_multiply(hip_rot, knee_q)), foot)
    return hip_local, knee_q, ankle_local


def _rolled(
    skeleton: Skeleton,
    leg: tuple[str, str, str, str],
    target: FootPlacement,
    roll: NDArray[np.float64],
) -> FootPlacement:
    """``target`` with the foot pitched by ``roll (N,)`` [rad] about its lateral axis: heel up
    about the ball (the toe joint) where positive, the toes kept on the floor; toes up about
    the toe tip where negative, foot and toes as one."""
    toe_index = skeleton.index(leg[3])
    toe_offset = np.broadcast_to(skeleton.offsets[toe_index], target.ankle.shape)
    segment = skeleton.segments[toe_index] if skeleton.segments is not None else None
    tip_in_toe = np.zeros(3) if segment is None else segment.end
    tip = toe_offset + quat_apply(target.toe, np.broadcast_to(tip_in_toe, target.ankle.shape))
    pivot = np.where((roll >= 0.0)[:, None], toe_offset, tip)  # in the foot's frame
    pitch = _hinge(roll, np.array([0.0, 1.0, 0.0]))
    foot = quat_multiply(target.rotation, pitch)
    ankle = target.ankle + quat_apply(target.rotation, pivot) - quat_apply(foot, pivot)
    toe = np.where(
        (roll >= 0.0)[:, None], quat_multiply(quat_conjugate(pitch), target.toe), target.toe
    )
    return FootPlacement(ankle, foot, toe)


def plant_feet(
    skeleton: Skeleton,
    roots: NDArray[np.float64],
    local: NDArray[np.float64],
    feet: tuple[FootPlacement, FootPlacement],
) -> NDArray[np.float64]:
    """Local rotations ``(N, J, 4)`` with each leg corrected to put its foot at ``feet``.

    Where the ankle would bend up (dorsiflex) past its range, the foot rolls
    onto its ball instead, the heel rising, the ball and toes staying where
    they are; where it would point (plantarflex) past its range, the foot
    turns toes-up about its toe tip.

    Parameters
    ----------
    skeleton : Skeleton
    roots : ndarray, shape (N, 3)
        Root positions [m].
    local : ndarray, shape (N, J, 4)
        Local rotations of the poses to correct.
    feet : pair of FootPlacement
        Left and right targets, each field ``(N, ...)``.

    Returns
    -------
    ndarray, shape (N, J, 4)
        ``local`` with the hip, knee, ankle and toe rotations of both legs
        replaced. The knee's flexion is kept within its range; a target beyond
        the leg's reach leaves the ankle as near it as the straight (or most
        flexed) leg allows.
    """
    out = np.array(local, dtype=np.float64)
    pos, rot = forward_kinematics(skeleton.parents, skeleton.offsets, roots, out)
    for leg, target in zip(LEGS, feet, strict=True):
        h, k, a, t = (skeleton.index(n) for n in leg)
        lo, hi = (
            skeleton.limits[a, 0] + np.array([_ROLL_MARGIN, -_ROLL_MARGIN])
            if skeleton.limits is not None
            else (-np.pi, np.pi)
        )
        roll = np.zeros(len(out))
        placed = target
        for _ in range(_ROLL_ITERATIONS):
            *_, ankle_q = _leg(skeleton, pos, rot, out, leg, placed.ankle, placed.rotation)
            flexion = quat_to_euler(ankle_q, skeleton.limit_sequences[a])[:, 0]
            roll = np.clip(roll + np.clip(flexion, lo, hi) - flexion, -_MOST_ROLL, _MOST_ROLL)
            placed = _rolled(skeleton, leg, target, roll)
        out[:, h], out[:, k], out[:, a] = _leg(
            skeleton, pos, rot, out, leg, placed.ankle, placed.rotation
        )
        out[:, t] = placed.toe
    return out


def stepped_feet(
    start: tuple[FootPlacement, FootPlacement],
    end: tuple[FootPlacement, FootPlacement],
    n: int,
    windows: tuple[tuple[float, float], tuple[float, float]] = ((0.0, 0.5), (0.45, 0.95)),
) -> tuple[tuple[FootPlacement, FootPlacement], NDArray[np.float64]]:
    """Foot placements over ``n`` frames: the foot that travels further steps first, in the
    first of ``windows`` (fractions of the transition's time), the other in the second.

    Returns
    -------
    (FootPlacement, FootPlacement), ndarray of shape (2, n)
        The left and right feet's placements per frame, and each foot's lift profile:
        :func:`lift_profile` of its step phase (1 at mid-step, 0 when planted).
    """
    travel = [float(np.linalg.norm(e.ankle - s.ankle)) for s, e in zip(start, end, strict=True)]
    order = (0, 1) if travel[0] >= travel[1] else (1, 0)
    time = np.linspace(0.0, 1.0, n)
    out: list[FootPlacement] = [start[0], start[1]]
    lift = np.zeros((2, n))
    for foot, (a, b) in zip(order, windows, strict=True):
        u = np.clip((time - a) / (b - a), 0.0, 1.0)
        out[foot] = step_path(start[foot], end[foot], u)
        lift[foot] = lift_profile(u)
    return (out[0], out[1]), lift
