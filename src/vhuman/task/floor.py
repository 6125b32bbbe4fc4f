"""Getting down from standing to a floor posture and back up, the feet planted throughout.

A transition from a standing pose to a posture much lower (kneeling, squatting,
sitting or lying on the floor) goes through keyframes planned from the two
poses alone, so it works for any library posture:

1. *Step*: each foot that ends on the floor steps to where it will be, flat,
   turned to its final heading, the point of it that ends lowest (heel, ball or
   toe tip) over its final spot; a foot that ends off the floor (a kneeling
   leg's) steps likewise to where its toes will be, landing on its toes — the
   lunge. The feet step one after the other, the pelvis following their mean
   displacement and leaning towards the standing foot while the other is up.
2. *Lower*: the body goes down into the posture, each stepped foot turning to
   its final orientation about that lowest point (which stays where it is) and
   the kneeling leg's knee going down; where both feet end off the floor, one
   of them stays planted where it stood (the half-kneel) ...
3. *Follow*: ... and then comes off the floor to its final place while its
   knee goes down, the pelvis leaning over the foot and knee that stay as in a
   step.

Each phase interpolates the joints (slerp, Shoemake 1985) between its
keyframes with minimum-jerk timing (Flash & Hogan 1985); the legs are then
corrected by the two-bone IK of :mod:`vhuman.task.feet` onto the planned foot
placements, the pelvis lowered where a leg could not reach its foot, and the
result checked like every other transition (:func:`vhuman.task.motion.planted`:
no foot point on the floor sliding, leg joints within their ranges, no joint
jump). The variants (no lean, one foot following once the body is down, the
other foot following, more time) are planned too; a plan that fails its
checks, or touches the scene (where the caller says so), is passed over, and of
the rest the one with the fewest frames whose centre of mass lies outside the
support polygon of the body points on the floor is taken (McGhee & Frank 1968,
as :func:`vhuman.posture.check.static_balance`); where none passes, or where
it balances better, library postures are passed through (:func:`via_poses`):
sitting on the floor before lying on the back, and lying on the back before
rolling onto the side, the feet lifted off the floor before they move on into
the next posture; kneeling upright before bending forward on the knees, the
toes turning where they rest. Getting up is getting down played backwards.

Sitting on the floor is also planned as people sit down from a squat
(:func:`_sit_down`): the feet step ahead (either one first, whichever plan balances
better: a foot resting on its heel alone, the toes raised, leaves the floor as the
knees bend, rolling about its raised ball once the ankle is at the end of its
dorsiflexion, and the other foot then carries the body better), the body squats with
the trunk bent forward, the pelvis pitched forward at the hips and the arms raised so
that the centre of mass stays over the feet (found by bisection on the bend), where it
would still leave the feet both hands go down to the floor beside the hips, behind it,
landing as soon as the arms reach the floor, the buttocks come down behind the heels
with the feet and hands carrying the body, the trunk comes up, the feet are lifted and
placed where the posture has them and the hands come up. Within the knees' flexion range
the hips stay far enough from the ankles that the centre of mass falls behind the heels,
with the trunk and hips at the ends of their ranges, while the buttocks are still off the
floor; the hands carry it there. Of the plans, the one with the fewest frames out of
balance is taken as above.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray
from scipy.spatial import ConvexHull

from vhuman.animation import Easing, ease
from vhuman.geometry import (
    quat_angle,
    quat_apply,
    quat_conjugate,
    quat_multiply,
    quat_slerp,
    quat_to_euler,
    rotvec_to_quat,
)
from vhuman.posture import LibraryPosture, PostureLibrary
from vhuman.posture.check import centre_of_mass, lowest_line_points, polygon_margin
from vhuman.reaching import MAX_JOINT_SPEED
from vhuman.scene import BodyModel
from vhuman.skeleton import Motion, Skeleton
from vhuman.skeleton.footskate import CONTACT_HEIGHT, SLIDE_TOLERANCE
from vhuman.skeleton.kinematics import forward_kinematics
from vhuman.task.feet import (
    LEGS,
    STEP_HEIGHT,
    FootPlacement,
    bend_and_swing,
    foot_placements,
    lift_profile,
    plant_feet,
    step_path,
)
from vhuman.task.motion import WEIGHT_SHIFT, lowest_points, planted, transition

__all__ = [
    "ARM_RAISE",
    "COM_INSIDE",
    "DOWN_DROP",
    "HAND_BEHIND",
    "HAND_BENDS",
    "HAND_CLEARANCE",
    "HAND_LIFT",
    "HAND_MARGIN",
    "HAND_SIDE",
    "HAND_WIDE",
    "KNEE_DIP",
    "KNEE_MARGIN",
    "LEAN_MARGIN",
    "LEAN_STEP",
    "MOST_ROOT_SPEED",
    "PELVIS_TILT",
    "PIVOT_TOLERANCE",
    "REACH",
    "SEAT_CLEARANCE",
    "SLOWEST",
    "SQUAT_SHIFT",
    "SUPPORT_HEIGHT",
    "TOES_UP",
    "FloorTransitionError",
    "facing",
    "floor_transition",
    "foot_spheres",
    "unbalanced_frames",
    "via_pose",
    "via_poses",
]

SUPPORT_HEIGHT = 0.04
"""Height [m] above the floor within which a body point supports the body (that of
:func:`vhuman.posture.check.static_balance`)."""
DOWN_DROP = 0.15
"""Drop [m] of the pelvis between two poses above which a transition gets down (or up)
through the planned keyframes."""
SLOWEST = 2.0
"""Most times the given duration a transition down or up may take."""
MOST_ROOT_SPEED = 1.5
"""Speed [m/s] of the pelvis above which a planned transition is too fast (a brisk walk's)."""
REACH = 0.97
"""Fraction of a leg's length (thigh plus shank) the hip–ankle distance is kept within: the
pelvis is lowered where a leg would have to stretch further to reach its foot."""
TOES_UP = 0.5
"""Fraction of the turn from flat to its end orientation that a foot ending off the floor
has made when it lands from its step (the back foot of the lunge on its toes)."""
LEAN_MARGIN = np.radians(2.0)
"""Forward bend [rad] of a trunk joint kept inside its range when the trunk leans."""
COM_INSIDE = 0.05
"""Distance [m] in front of the back of the support to which a squat's trunk bends the centre
of mass forward."""
KNEE_MARGIN = np.radians(8.0)
"""Knee flexion [rad] kept inside its range where the pelvis comes down behind the heels."""
KNEE_DIP = 0.03
"""Drop [m] of the pelvis, the knees bending, while the feet step ahead before a squat."""
SEAT_CLEARANCE = 0.12
"""Distance [m] the pelvis sits further behind the ankles than the knees' flexion needs."""
LEAN_STEP = 0.05
"""Most change [rad] of the trunk's added forward bend from one frame to the next."""
ARM_RAISE = 1.5
"""Forward raise of the arms at the shoulders per radian of the trunk's forward bend."""
PELVIS_TILT = np.radians(12.0)
"""Backward tilt [rad] of the pelvis, beyond the floor posture's, while the buttocks come down
behind the heels: the hips flex less, the knees drawn up."""
SQUAT_SHIFT = 0.8
"""Fraction of the way from the feet's midpoint to the standing foot that the pelvis moves at
the middle of a step ahead before a squat."""
PIVOT_TOLERANCE = 0.01
"""Distance [m] within which a foot's lowest end sphere lies at the same spot in two floor
postures, so that the foot turns about it on the floor between them."""
_PHASES = ((0.5, 0.5), (0.35, 0.35, 0.3))  # share of the time of each phase (without, with follow)
_STEP_WINDOWS = ((0.0, 0.55), (0.45, 1.0))  # the two steps in the step phase (its fractions)
HAND_SIDE = 0.3
"""Distance [m] to either side of the seat (the pelvis sitting on the floor) at which the hands
rest on the floor while the buttocks come down."""
HAND_BEHIND = 0.03
"""Distance [m] behind the rearmost centre of mass they carry at which the hands rest on the
floor."""
HAND_MARGIN = 0.01
"""Distance [m] inside the support of the feet (and buttocks) below which the centre of mass
needs the hands on the floor."""
HAND_BENDS = (0.9, 0.95)
"""Fractions of an arm's length (shoulder to the hand's end) at which its hand may land on the
floor (the elbow bent)."""
HAND_CLEARANCE = 0.003
"""Height [m] of a resting hand's lowest point above the floor."""
HAND_LIFT = 0.1
"""Height [m] above its spot on the floor from which a hand comes down onto it."""
HAND_WIDE = 0.3
"""Distance [m] out to the side of its spot from which a hand starts reaching for it (round
the thighs)."""
_HAND_REACHES = (0.15, 0.1, 0.08, 0.065, 0.05)  # shares of the time to reach the floor
_HAND_LEAD = 0.1  # share of a hand's reach within which it comes down onto its spot (goes up)
_SIT_PHASES = (0.3, 0.3, 0.15, 0.25)  # shares of stepping, squatting, sitting up, placing
_ARM = ("shoulder", "elbow", "wrist", "hand")  # an arm's joints, after the side's prefix
_TRUNK = ("spine", "chest")  # the joints bending the trunk forward
_SHOULDERS = ("l_shoulder", "r_shoulder")  # the joints raising the arms forward
_LATERAL = np.array([0.0, 1.0, 0.0])  # the pelvis's and the trunk joints' lateral axis (local)
_DIP_TIME = 0.4  # share of the stepping phase in which the knees bend to KNEE_DIP
_MOST_LEAN = 1.0  # [rad] most forward bend of the trunk sought
_BISECTIONS = 12

Pose = tuple[NDArray[np.float64], NDArray[np.float64]]
PosesCheck = Callable[[NDArray[np.float64], NDArray[np.float64]], bool]


class FloorTransitionError(Exception):
    """No planned way down to a floor posture (or up from it) passes its checks and keeps
    clear of the scene; the message says which failed."""


def foot_spheres(
    skeleton: Skeleton, leg: tuple[str, str, str, str], foot: FootPlacement
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Centres ``(..., 4, 3)`` [m] and radii ``(4,)`` [m] of a foot's end spheres at placement
    ``foot``: heel and ball (the foot's capsule), ball and toe tip (the toes' capsule)."""
    a, t = skeleton.index(leg[2]), skeleton.index(leg[3])
    foot_seg, toe_seg = skeleton.segments[a], skeleton.segments[t]  # type: ignore[index]
    shape = foot.ankle.shape
    toe_offset = np.broadcast_to(skeleton.offsets[t], shape)
    in_foot = [
        np.broadcast_to(foot_seg.start, shape),  # type: ignore[union-attr]
        np.broadcast_to(foot_seg.end, shape),  # type: ignore[union-attr]
        toe_offset + quat_apply(foot.toe, np.broadcast_to(toe_seg.start, shape)),  # type: ignore[union-attr]
        toe_offset + quat_apply(foot.toe, np.broadcast_to(toe_seg.end, shape)),  # type: ignore[union-attr]
    ]
    centres = np.stack([foot.ankle + quat_apply(foot.rotation, p) for p in in_foot], axis=-2)
    radii = np.array([foot_seg.radius] * 2 + [toe_seg.radius] * 2)  # type: ignore[union-attr]
    return centres, radii


def _yaw(rotation: NDArray[np.float64]) -> float:
    """Heading [rad] of a foot: that of its lateral (y) axis less 90°, which a pitch of the
    foot (toes down, heel up) leaves unchanged."""
    y = quat_apply(rotation, np.array([0.0, 1.0, 0.0]))
    return float(np.arctan2(y[1], y[0]) - 0.5 * np.pi)


def _flat(
    skeleton: Skeleton,
    leg: tuple[str, str, str, str],
    standing: FootPlacement,
    end: FootPlacement,
    pivot: int,
) -> FootPlacement:
    """The standing foot turned to ``end``'s heading and moved over the floor so that its end
    sphere ``pivot`` lies above that of ``end``."""
    turn = _about_z(_yaw(end.rotation) - _yaw(standing.rotation))
    turned = standing._replace(rotation=quat_multiply(turn, standing.rotation))
    here = foot_spheres(skeleton, leg, turned)[0][pivot]
    there = foot_spheres(skeleton, leg, end)[0][pivot]
    shift = np.array([there[0] - here[0], there[1] - here[1], 0.0])
    return turned._replace(ankle=turned.ankle + shift)


def _roll(
    skeleton: Skeleton,
    leg: tuple[str, str, str, str],
    start: FootPlacement,
    end: FootPlacement,
    pivot: int,
    u: NDArray[np.float64],
) -> FootPlacement:
    """Placements ``(N, ...)`` from ``start`` to ``end`` at phases ``u (N,)`` in [0, 1]: the
    foot turned (slerp) about its end sphere ``pivot``, whose centre moves on the straight
    line between its two places (vertically where they lie one above the other)."""
    rot = quat_slerp(start.rotation, end.rotation, u)
    toe = quat_slerp(start.toe, end.toe, u)
    c0 = foot_spheres(skeleton, leg, start)[0][pivot]
    c1 = foot_spheres(skeleton, leg, end)[0][pivot]
    centre = c0 + u[:, None] * (c1 - c0)
    n = len(u)
    turned = FootPlacement(np.zeros((n, 3)), rot, toe)
    offset = foot_spheres(skeleton, leg, turned)[0][:, pivot]
    return FootPlacement(centre - offset, rot, toe)


def _about_z(angle: float) -> NDArray[np.float64]:
    """The rotation ``(4,)`` by ``angle`` [rad] about the vertical."""
    return np.array([np.cos(0.5 * angle), 0.0, 0.0, np.sin(0.5 * angle)])


def _hold(foot: FootPlacement, n: int) -> FootPlacement:
    return FootPlacement(*(np.tile(f, (n, 1)) for f in foot))


def _join(parts: list[FootPlacement]) -> FootPlacement:
    """Placements of consecutive phases, each phase's first frame dropped but the first."""
    return FootPlacement(
        *(
            np.concatenate([parts[0][k]] + [p[k][1:] for p in parts[1:]])
            for k in range(len(FootPlacement._fields))
        )
    )


def _keyframes(
    keys: list[Pose], counts: list[int]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Roots ``(N, 3)``, local rotations ``(N, J, 4)`` and overall progress ``(N,)`` through
    ``keys`` (K poses), phase k having ``counts[k]`` frames after its first: slerp of every
    joint and a straight root path, each phase with minimum-jerk timing; the first and last
    frames are the first and last keys as given."""
    s = np.concatenate(
        [[0.0]]
        + [
            k + ease(Easing.MINIMUM_JERK, np.linspace(0.0, 1.0, c + 1)[1:])
            for k, c in enumerate(counts)
        ]
    )
    knots = np.arange(len(keys), dtype=np.float64)
    roots = np.stack([np.interp(s, knots, [k[0][i] for k in keys]) for i in range(3)], axis=-1)
    rotations = np.stack([k[1] for k in keys])  # (K, J, 4)
    phase = np.minimum(s.astype(int), len(keys) - 2)
    local = quat_slerp(rotations[phase], rotations[phase + 1], (s - phase)[:, None])
    (roots[0], local[0]), (roots[-1], local[-1]) = keys[0], keys[-1]  # the ends exact
    return roots, local, s / (len(keys) - 1)


def _reach_lowered(
    skeleton: Skeleton,
    roots: NDArray[np.float64],
    local: NDArray[np.float64],
    feet: tuple[FootPlacement, FootPlacement],
) -> NDArray[np.float64]:
    """Roots ``(N, 3)`` lowered where a hip would be further from its ankle target than
    :data:`REACH` of the leg's length."""
    pos = forward_kinematics(skeleton.parents, skeleton.offsets, roots, local)[0]
    s = np.linspace(0.0, 1.0, len(roots))
    drop = np.zeros(len(roots))
    for leg, foot in zip(LEGS, feet, strict=True):
        h, k, a = (skeleton.index(n) for n in leg[:3])
        limb = float(np.linalg.norm(skeleton.offsets[k]) + np.linalg.norm(skeleton.offsets[a]))
        d = pos[:, h] - foot.ankle
        ends = np.linalg.norm(d[[0, -1]], axis=-1)
        # As far as REACH of the leg, or as the ends themselves stretch (blended).
        length = np.maximum(REACH * limb, (1.0 - s) * ends[0] + s * ends[1])
        across = np.minimum(np.linalg.norm(d[:, :2], axis=-1), length)
        drop = np.maximum(drop, d[:, 2] - np.sqrt(length**2 - across**2))
    out = roots.copy()
    out[:, 2] -= np.maximum(drop, 0.0)
    return out


def _down(
    body: BodyModel,
    stand: Pose,
    floor_pose: Pose,
    n: int,
    floor: float,
    swap: bool,
    lean: float,
    follow_late: bool = False,
) -> Pose | None:
    """Getting down from ``stand`` to ``floor_pose`` in ``n`` frames (see the module notes);
    None where the planned motion fails the checks of :func:`vhuman.task.motion.planted`.

    With ``follow_late``, one foot follows after the body is down even where the feet end on
    the floor (the other foot stepping ahead, the body going down between the two)."""
    sk = body.skeleton
    start = foot_placements(sk, *stand)
    end = foot_placements(sk, *floor_pose)
    bottoms = [foot_spheres(sk, leg, f) for leg, f in zip(LEGS, end, strict=True)]
    height = np.array([c[:, 2] - r - floor for c, r in bottoms])  # (2, 4)
    grounded = height.min(axis=-1) <= CONTACT_HEIGHT
    pivots = [int(np.argmin(h)) for h in height]
    pre = [_flat(sk, leg, s, e, p) for leg, s, e, p in zip(LEGS, start, end, pivots, strict=True)]
    for i in np.flatnonzero(~grounded):  # on its toes: partly turned to its end orientation
        dropped = end[i]._replace(ankle=end[i].ankle - [0.0, 0.0, height[i].min()])
        rolled = _roll(sk, LEGS[i], pre[i], dropped, pivots[i], np.array([TOES_UP]))
        pre[i] = FootPlacement(*(f[0] for f in rolled))
    travel = [
        float(np.linalg.norm(e.ankle[:2] - s.ankle[:2])) for s, e in zip(start, end, strict=True)
    ]
    # The foot that follows: where both feet end off the floor (or with ``follow_late``), the
    # one travelling less (with ``swap``, the other; None without an alternative).
    late = follow_late or not grounded.any()
    follow = (1 if travel[0] >= travel[1] else 0) if late else None
    if swap:
        if follow is None:
            return None
        follow = 1 - follow
    stepping = [i for i in (0, 1) if i != follow]
    stepping.sort(key=lambda i: -travel[i])
    shares = _PHASES[follow is not None]
    counts = [max(2, round(f * (n - 1))) for f in shares]
    counts[-1] = max(2, n - 1 - sum(counts[:-1]))
    # Keyframe 1: standing, the pelvis moved with the feet's mean displacement.
    moved = np.mean(
        [(pre[i] if i in stepping else start[i]).ankle - start[i].ankle for i in (0, 1)], axis=0
    )
    k1 = (stand[0] + np.array([moved[0], moved[1], 0.0]), stand[1])
    keys: list[Pose] = [stand, k1]
    if follow is not None:
        keys.append((floor_pose[0], floor_pose[1]))
    keys.append(floor_pose)
    roots, local, s = _keyframes(keys, counts)
    # Foot placements phase by phase.
    c1 = counts[0]
    parts: list[list[FootPlacement]] = [[], []]
    lift = np.zeros((2, len(s)))
    time = np.linspace(0.0, 1.0, c1 + 1)
    for order, i in enumerate(stepping):
        a, b = _STEP_WINDOWS[order] if len(stepping) == 2 else (0.0, 1.0)
        u = np.clip((time - a) / (b - a), 0.0, 1.0)
        parts[i].append(step_path(start[i], pre[i], u))
        lift[i, : c1 + 1] = lift_profile(u)
    if follow is not None:
        parts[follow].append(_hold(start[follow], c1 + 1))
    u2 = ease(Easing.MINIMUM_JERK, np.linspace(0.0, 1.0, counts[1] + 1))
    for i in (0, 1):
        if i == follow:
            parts[i].append(_hold(start[i], counts[1] + 1))
        else:
            parts[i].append(_roll(sk, LEGS[i], pre[i], end[i], pivots[i], u2))
    if follow is not None:
        u3 = np.linspace(0.0, 1.0, counts[2] + 1)
        for i in (0, 1):
            if i == follow:
                parts[i].append(step_path(start[i], end[i], u3))
                lift[i, -len(u3) :] = lift_profile(u3)
            else:
                parts[i].append(_hold(end[i], counts[2] + 1))
    feet = (_join(parts[0]), _join(parts[1]))
    # While the feet step, the pelvis follows their mean displacement (the weight shifting
    # onto the foot that lands).
    mid = 0.5 * (feet[0].ankle + feet[1].ankle)
    shift = mid - 0.5 * (start[0].ankle + start[1].ankle)
    # ... and leans over the standing foot while the other is off the floor, in the steps and
    # while the last foot follows.
    over = sum(lean * lift[i][:, None] * (feet[1 - i].ankle - mid) for i in (0, 1))
    roots[: c1 + 1, :2] = stand[0][:2] + shift[: c1 + 1, :2] + over[: c1 + 1, :2]
    if follow is not None:
        roots[c1 + counts[1] :, :2] += over[c1 + counts[1] :, :2]
    roots = _reach_lowered(sk, roots, local, feet)
    return planted(body, roots, local, feet, lift, s, floor)


def _settle(body: BodyModel, a: Pose, b: Pose, n: int, floor: float) -> Pose | None:
    """From floor posture ``a`` to floor posture ``b`` in ``n`` frames; None where that fails
    the checks of :func:`vhuman.task.motion.planted`.

    A foot whose lowest end sphere (heel, ball or toe tip) in ``b`` rests on the floor in
    both postures at the same spot (within :data:`PIVOT_TOLERANCE`) stays on the floor,
    turning about that sphere (kneeling upright, then bending forward: the toes stay where
    they are); the other feet are lifted off the floor before they follow the interpolated
    legs (their travel and turn from ``a`` delayed and eased as in a step,
    :func:`vhuman.task.feet.step_path`)."""
    sk = body.skeleton
    roots, local, s = _keyframes([a, b], [n - 1])
    # Lifted where the interpolated body would pass under the floor (deeper than the ends).
    sunk = floor - lowest_points(body, roots, local)
    roots[:, 2] += np.maximum(sunk - ((1.0 - s) * sunk[0] + s * sunk[-1]), 0.0)
    u = np.linspace(0.0, 1.0, n)
    follow = ease(Easing.MINIMUM_JERK, np.clip((u - 0.25) / 0.5, 0.0, 1.0))
    carried = foot_placements(sk, roots, local)
    feet = []
    lift = np.zeros((2, n))
    ends = zip(foot_placements(sk, *a), foot_placements(sk, *b), strict=True)
    for i, (leg, (start, end)) in enumerate(zip(LEGS, ends, strict=True)):
        (c0, r), (c1, _) = foot_spheres(sk, leg, start), foot_spheres(sk, leg, end)
        pivot = int(np.argmin(c1[:, 2] - r))
        grounded = max(c0[pivot, 2], c1[pivot, 2]) - r[pivot] - floor <= CONTACT_HEIGHT
        if grounded and np.linalg.norm(c1[pivot, :2] - c0[pivot, :2]) <= PIVOT_TOLERANCE:
            feet.append(_roll(sk, leg, start, end, pivot, s))
            continue
        free = carried[i]
        ankle = start.ankle + follow[:, None] * (free.ankle - start.ankle)
        ankle[:, 2] += STEP_HEIGHT * lift_profile(u)
        rot = quat_slerp(start.rotation, free.rotation, follow)
        toe = quat_slerp(start.toe, free.toe, follow)
        feet.append(FootPlacement(ankle, rot, toe))
        lift[i] = lift_profile(u)
    return planted(body, roots, local, (feet[0], feet[1]), lift, s, floor)


def _straight_down(
    body: BodyModel, stand: Pose, low: Pose, n: int, floor: float, accept: PosesCheck
) -> Pose | None:
    """Of the getting-downs from ``stand`` to ``low`` in ``n`` frames that pass their checks
    and ``accept`` (sitting down from a deep squat, :func:`_sit_down`, where ``low`` sits on
    the floor, either foot stepping first; leaning over the standing foot while stepping or
    not; both feet stepping before the body goes down, or one following after it, either
    foot), the one with the fewest frames whose centre of mass lies outside the support
    (:func:`unbalanced_frames`; the first tried of those)."""
    best: Pose | None = None
    fewest = np.inf
    for swap in (False, True):
        planned = _sit_down(body, stand, low, n, floor, accept, swap)
        if planned is not None:
            count = unbalanced_frames(body, *planned, floor)
            if count < fewest:
                best, fewest = planned, count
    if fewest == 0:
        return best
    for late, lean, swap in itertools.product((False, True), (WEIGHT_SHIFT, 0.0), (False, True)):
        planned = _down(body, stand, low, n, floor, swap, lean, late)
        if planned is not None and accept(*planned):
            count = unbalanced_frames(body, *planned, floor)
            if count < fewest:
                best, fewest = planned, count
            if count == 0:
                break
    return best


def _down_via(
    body: BodyModel,
    stand: Pose,
    via: Sequence[Pose],
    low: Pose,
    n: int,
    floor: float,
    accept: PosesCheck,
) -> Pose | None:
    """Getting down from ``stand`` to the first of the floor postures ``via`` in ``n`` frames,
    then settling from each into the next and the last into ``low`` in half as many again
    together; None where any fails its checks or ``accept``."""
    ends = [*via, low]
    count = max(2, n // (2 * len(via)) + 1)
    settled = []
    for a, b in itertools.pairwise(ends):
        part = _settle(body, a, b, count, floor)
        if part is None or not accept(*part):
            return None
        settled.append(part)
    first = _straight_down(body, stand, via[0], n, floor, accept)
    if first is None:
        return None
    return (
        np.concatenate([first[0], *(part[0][1:] for part in settled)]),
        np.concatenate([first[1], *(part[1][1:] for part in settled)]),
    )


def _lean(
    skeleton: Skeleton,
    local: NDArray[np.float64],
    amount: NDArray[np.float64],
    hips: bool = False,
) -> NDArray[np.float64]:
    """``local (N, J, 4)`` with the trunk bent forward by ``amount (N,)`` [rad] about the
    spine's and chest's lateral axes (with ``hips``, also the pelvis pitched forward about its
    own, the thighs kept where they are, the hips flexing), shared between them in proportion
    to the forward bend each has left within its range (:data:`LEAN_MARGIN` inside it; a
    pelvis's, the flexion left to the hip with the least), and the arms raised forward at the
    shoulders by :data:`ARM_RAISE` times the trunk's bend (the hands kept off the floor, their
    weight carried forward)."""
    joints = skeleton.indices(list(_TRUNK))
    room = [_forward_room(skeleton, local[:, j], j) for j in joints]
    legs = skeleton.indices([leg[0] for leg in LEGS])
    if hips:
        room.append(np.min([_flexion_room(skeleton, local[:, j], j) for j in legs], axis=0))
    share = np.stack(room, axis=-1)
    total = np.maximum(share.sum(axis=-1), 1e-9)
    bend = np.minimum(amount, total)
    part = (bend / total)[:, None] * share  # (N, K) [rad]
    trunk = part[:, : len(joints)].sum(axis=-1)
    out = local.copy()
    for k, j in enumerate(joints):
        out[:, j] = quat_multiply(rotvec_to_quat(part[:, k, None] * _LATERAL), local[:, j])
    if hips:
        pitch = part[:, -1, None] * _LATERAL
        out[:, 0] = quat_multiply(local[:, 0], rotvec_to_quat(pitch))
        for j in legs:
            out[:, j] = quat_multiply(rotvec_to_quat(-pitch), local[:, j])
    for j in skeleton.indices(list(_SHOULDERS)):
        out[:, j] = quat_multiply(
            rotvec_to_quat(-ARM_RAISE * trunk[:, None] * _LATERAL), local[:, j]
        )
    return out


def _forward_room(skeleton: Skeleton, q: NDArray[np.float64], j: int) -> NDArray[np.float64]:
    """Forward bend [rad] left to joint ``j`` at local rotations ``q (N, 4)`` within its range."""
    bend = quat_to_euler(q, skeleton.limit_sequences[j])[:, 0]
    top = skeleton.limits[j, 0, 1] if skeleton.limits is not None else 0.5 * np.pi
    return np.maximum(top - LEAN_MARGIN - bend, 0.0)


def _flexion_room(skeleton: Skeleton, q: NDArray[np.float64], j: int) -> NDArray[np.float64]:
    """Flexion [rad] left to hip ``j`` at local rotations ``q (N, 4)`` within its range (the
    thigh forward about the lateral axis: the angle's negative end)."""
    angle = quat_to_euler(q, skeleton.limit_sequences[j])[:, 0]
    bottom = skeleton.limits[j, 0, 0] if skeleton.limits is not None else -0.5 * np.pi
    return np.maximum(angle - bottom - LEAN_MARGIN, 0.0)


def _balance_lean(
    body: BodyModel,
    roots: NDArray[np.float64],
    local: NDArray[np.float64],
    floor: float,
    forward: NDArray[np.float64],
    hips: bool = False,
) -> NDArray[np.float64]:
    """Forward bend of the trunk ``(N,)`` [rad] (:func:`_lean`, with ``hips`` the pelvis
    pitching forward too) that brings the centre of mass
    of poses ``roots (N, 3)``, ``local (N, J, 4)`` forward (along the unit ``forward (2,)``)
    to :data:`COM_INSIDE` in front of the back of the feet's support (their points on the
    floor, :func:`_support_points`), or as near as the trunk's range allows; 0 where it is there
    already. Bisection, the trunk's bend moving the centre of mass forward."""
    support = _support_points(body, roots, local, floor, feet_only=True)
    rear = np.array([(p @ forward).min() if len(p) else np.nan for p in support]) + COM_INSIDE

    def short(amount: NDArray[np.float64]) -> NDArray[np.float64]:
        com = centre_of_mass(body, roots, _lean(body.skeleton, local, amount, hips))[:, :2]
        return np.nan_to_num(rear - com @ forward, nan=0.0)

    lo, hi = np.zeros(len(roots)), np.full(len(roots), _MOST_LEAN)
    need = short(lo) > 0.0
    for _ in range(_BISECTIONS):
        mid = 0.5 * (lo + hi)
        behind = short(mid) > 0.0
        lo, hi = np.where(behind, mid, lo), np.where(behind, hi, mid)
    return np.where(need, hi, 0.0)


def _sit_down(
    body: BodyModel,
    stand: Pose,
    low: Pose,
    n: int,
    floor: float,
    accept: PosesCheck,
    swap: bool = False,
) -> Pose | None:
    """Sitting down from ``stand`` onto the floor at ``low`` in ``n`` frames without the
    hands; None where ``low`` is not sitting on the floor (both feet on it, the pelvis below
    the knees) or the plan fails its checks or ``accept``.

    1. *Step*: the feet step, one after the other (the one travelling further first, or
       with ``swap`` the other), to where they are as far ahead of ``low``'s pelvis as the
       knees need at their most flexion (less :data:`KNEE_MARGIN`, plus
       :data:`SEAT_CLEARANCE`), the pelvis following their mean
       displacement, :data:`SQUAT_SHIFT` of the way over the standing foot at mid-step, the
       knees bending by :data:`KNEE_DIP`.
    2. *Squat*: the pelvis goes down to its place in ``low``, kept far enough behind the
       ankles for the knees, tilted back by :data:`PELVIS_TILT` (the hips flexing less);
       the trunk bends forward, the pelvis pitching forward at the hips, and the arms rise
       (:func:`_balance_lean`) so that the centre of mass stays over the feet as far as
       their ranges allow, until the buttocks rest on the floor behind the heels, the bend
       coming back to the posture's by then.
    3. *Sit up*: the trunk comes to ``low``'s posture, the buttocks and feet carrying it.
    4. *Place the feet*: one after the other the feet are lifted and placed where ``low``
       has them (:func:`vhuman.task.feet.step_path`).

    The hands go down to the floor beside the hips before the centre of mass would leave
    the feet, carry the body with them while the buttocks come down and stay there through
    the sitting up and the first foot's step (:func:`_hand_support`); they come up to
    ``low``'s arms by the end.

    The legs are corrected onto the feet and checked as in :func:`_down`.
    """
    sk = body.skeleton
    start = foot_placements(sk, *stand)
    end = foot_placements(sk, *low)
    pos = forward_kinematics(sk.parents, sk.offsets, low[0], low[1])[0]
    height = [
        float((c[:, 2] - r).min()) - floor
        for c, r in (foot_spheres(sk, leg, f) for leg, f in zip(LEGS, end, strict=True))
    ]
    knees = pos[sk.indices([leg[1] for leg in LEGS]), 2]
    if max(height) > CONTACT_HEIGHT or low[0][2] >= knees.min():
        return None
    heading = facing(low[1][0])
    forward = np.array([np.cos(heading), np.sin(heading)])
    k = sk.index(LEGS[0][1])
    l1 = float(np.linalg.norm(sk.offsets[k]))
    l2 = float(np.linalg.norm(sk.offsets[sk.index(LEGS[0][2])]))
    top = (sk.limits[k, 0, 1] if sk.limits is not None else np.pi) - KNEE_MARGIN
    shortest = float(np.sqrt(l1**2 + l2**2 + 2.0 * l1 * l2 * np.cos(top)))
    ankles = 0.5 * (start[0].ankle + start[1].ankle)
    ahead = np.sqrt(max(shortest**2 - (low[0][2] - ankles[2]) ** 2, 0.0)) + SEAT_CLEARANCE
    shift = np.array([*(low[0][:2] + ahead * forward - ankles[:2]), 0.0])
    pre = [f._replace(ankle=f.ankle + shift) for f in start]
    counts = [max(2, round(f * (n - 1))) for f in _SIT_PHASES]
    counts[-1] = max(2, n - 1 - sum(counts[:-1]))
    c1, c2, c3 = np.cumsum(counts[:3]) + 1  # frames to the end of each of the first phases
    # Foot placements: stepped to ``pre``, held, placed.
    travel = [float(np.linalg.norm(e.ankle - a.ankle)) for a, e in zip(start, end, strict=True)]
    order = (0, 1) if (travel[0] >= travel[1]) != swap else (1, 0)
    parts: list[list[FootPlacement]] = [[], []]
    lift = np.zeros((2, n))
    for first, last, a, b, c in ((0, c1, start, pre, counts[0]), (c3 - 1, n, pre, end, counts[3])):
        time = np.linspace(0.0, 1.0, c + 1)
        for i, (u0, u1) in zip(order, _STEP_WINDOWS, strict=True):
            u = np.clip((time - u0) / (u1 - u0), 0.0, 1.0)
            parts[i].append(step_path(a[i], b[i], u))
            lift[i, first:last] = lift_profile(u)
        if first == 0:
            for i in (0, 1):
                parts[i].append(_hold(pre[i], counts[1] + counts[2] + 1))
    feet = (_join(parts[0]), _join(parts[1]))
    # Keyframes: standing over the stepped feet, the seat with the trunk bent forward so that
    # the centre of mass is over the feet, the seat with ``low``'s trunk, ``low``.
    over = (stand[0] + shift - [0.0, 0.0, KNEE_DIP], stand[1])
    seat = (low[0], low[1].copy())
    seat[1][0] = quat_multiply(seat[1][0], rotvec_to_quat(-PELVIS_TILT * _LATERAL))
    seat_legs = plant_feet(sk, low[0][None], seat[1][None], (_hold(pre[0], 1), _hold(pre[1], 1)))
    bend = _balance_lean(body, low[0][None], seat_legs, floor, forward)
    bent = (low[0], _lean(sk, seat[1][None], bend)[0])
    roots, local, s = _keyframes([stand, over, bent, seat, low], counts)
    # While stepping, the pelvis follows the feet's mean displacement.
    mid = 0.5 * (feet[0].ankle[:c1] + feet[1].ankle[:c1])
    roots[:c1, :2] = stand[0][:2] + (mid - ankles)[:, :2]
    # ... the knees bending to KNEE_DIP before the first foot is off the floor ...
    dip = ease(Easing.MINIMUM_JERK, np.clip(np.linspace(0.0, 1.0, c1) / _DIP_TIME, 0.0, 1.0))
    roots[:c1, 2] = stand[0][2] - KNEE_DIP * dip
    # ... and goes over the standing foot while the other is off the floor.
    for i in (0, 1):
        weight = SQUAT_SHIFT * lift[i, :c1, None]
        roots[:c1, :2] += weight * (feet[1 - i].ankle[:c1, :2] - mid[:, :2])
    # While squatting, the pelvis kept far enough behind the ankles for the knees ...
    squat = slice(c1 - 1, c2)
    hips = forward_kinematics(sk.parents, sk.offsets, roots[squat], local[squat])[0]
    hips = hips[:, sk.indices([leg[0] for leg in LEGS])]  # (M, 2, 3)
    targets = np.stack([pre[0].ankle, pre[1].ankle])  # (2, 3)
    need = np.sqrt(np.maximum(shortest**2 - (hips[..., 2] - targets[:, 2]) ** 2, 0.0))
    behind = (targets[:, :2] - hips[..., :2]) @ forward  # (M, 2)
    roots[squat, :2] -= np.maximum(need - behind, 0.0).max(axis=-1)[:, None] * forward
    # ... and the trunk bent further where the centre of mass would leave the feet.
    legs = plant_feet(
        sk, roots[squat], local[squat], (_hold(pre[0], c2 - c1 + 1), _hold(pre[1], c2 - c1 + 1))
    )
    more = _balance_lean(body, roots[squat], legs, floor, forward, hips=True)
    # ... its change per frame at most LEAN_STEP: the least such bend above what is needed,
    # from none at the start of the squat to none at its end (the buttocks down).
    for k in range(1, len(more)):
        more[k] = max(more[k], more[k - 1] - LEAN_STEP)
    for k in range(len(more) - 2, -1, -1):
        more[k] = max(more[k], more[k + 1] - LEAN_STEP)
    ramp = LEAN_STEP * np.arange(len(more))
    more = np.minimum(more, np.minimum(ramp, 3 * ramp[::-1]))
    local[squat] = _lean(sk, legs, more, hips=True)
    roots = _reach_lowered(sk, roots, local, feet)
    # The hands go down to the floor beside the seat, behind the centre of mass, where the feet
    # would no longer carry the body, and stay there until the trunk is up and the first foot
    # placed.
    off = c3 - 1 + counts[3] // 2
    hands = _hand_support(body, roots, local, feet, floor, forward, low[0], (c1, c2, off), accept)
    planned = planted(body, roots, hands if hands is not None else local, feet, lift, s, floor)
    if planned is None or not accept(*planned):
        return None
    return planned


def _hand_support(
    body: BodyModel,
    roots: NDArray[np.float64],
    local: NDArray[np.float64],
    feet: tuple[FootPlacement, FootPlacement],
    floor: float,
    forward: NDArray[np.float64],
    seat: NDArray[np.float64],
    frames: tuple[int, int, int],
    accept: PosesCheck,
) -> NDArray[np.float64] | None:
    """``local (N, J, 4)`` with both hands put down on ``floor`` [m] while the buttocks come
    down; None where the feet and buttocks carry the body throughout, or no hand plan passes.

    ``frames`` are the first frame of the squat, the frame the buttocks are down by and the
    frame the hands start coming up. Of the squat's frames whose centre of mass would lie less
    than :data:`HAND_MARGIN` inside the support of the feet (and buttocks) on ``floor``
    (:func:`_support_points`, the legs corrected onto ``feet``), the hands rest on the floor
    :data:`HAND_BEHIND` behind the rearmost centre of mass along ``forward (2,)`` and
    :data:`HAND_SIDE` to either side of the seat ``seat (3,)``, landing at the first frame
    of the squat where both shoulders are within a fraction of :data:`HAND_BENDS` of the
    arm's length of them, held there by the arm's inverse kinematics (:func:`_arm_reach`,
    the elbows turned back) until they come up to the arms as planned by the end. They reach
    there from the raised arms in a share of the time of ``_HAND_REACHES``, from
    :data:`HAND_WIDE` out to the side (round the thighs), coming down onto their spots from
    :data:`HAND_LIFT` above them (and going up likewise), the arm short of its spot pointing
    there bent to that fraction. Of the fractions and shares whose hands do not slide on the
    floor (:func:`_hand_slide` within :data:`vhuman.skeleton.footskate.SLIDE_TOLERANCE`) and
    whose poses ``accept(roots, local)`` takes, the one leaving the fewest frames out of
    balance (:func:`unbalanced_frames`; the first tried of those) is taken."""
    sk = body.skeleton
    first, down, off = frames
    n = len(roots)
    legs = plant_feet(sk, roots, local, feet)
    com = centre_of_mass(body, roots, legs)[:, :2]
    margin = _margins(body, roots, legs, floor, com)
    short = first + np.flatnonzero(margin[first:down] < HAND_MARGIN)
    if not len(short):
        return None
    left = np.array([-forward[1], forward[0], 0.0])
    ahead = np.array([*forward, 0.0])
    up = np.array([0.0, 0.0, 1.0])
    back = float((com[short] @ forward).min()) - HAND_BEHIND
    names = list(np.asarray(sk.names)[body.joints])
    rest = floor + float(body.radii[names.index("l_wrist")]) + HAND_CLEARANCE
    sides = (("l", 1.0), ("r", -1.0))
    hands = [
        back * ahead + (seat @ left + sign * HAND_SIDE) * left + rest * up for _, sign in sides
    ]
    pos = forward_kinematics(sk.parents, sk.offsets, roots, local)[0]
    shoulders = [pos[:, sk.index(f"{side}_shoulder")] for side, _ in sides]
    lengths = [
        sum(float(np.linalg.norm(sk.offsets[sk.index(f"{side}_{j}")])) for j in _ARM[1:])
        for side, _ in sides
    ]
    k = np.arange(n, dtype=np.float64)
    lift = ease(Easing.MINIMUM_JERK, np.clip((n - 1 - k) / (n - 1 - off), 0.0, 1.0))
    best: NDArray[np.float64] | None = None
    fewest = np.inf
    for bend, share in itertools.product(HAND_BENDS, _HAND_REACHES):
        landed = np.all(
            [
                np.linalg.norm(h - sh, axis=-1) <= bend * length
                for h, sh, length in zip(hands, shoulders, lengths, strict=True)
            ],
            axis=0,
        )
        landed[:first] = False
        if not landed[:down].any():
            continue
        on = int(np.argmax(landed))
        frames_to_reach = max(2.0, share * (n - 1))
        weight = np.minimum(
            ease(Easing.MINIMUM_JERK, np.clip((k - on + frames_to_reach) / frames_to_reach, 0, 1)),
            lift,
        )
        # Coming down onto its spot from above it, and going up off it, within _HAND_LEAD of
        # the reach; from out to the side before.
        rise = HAND_LIFT * np.minimum((1.0 - weight) / _HAND_LEAD, 1.0)
        out = legs.copy()
        for (side, sign), hand, shoulder, length in zip(
            sides, hands, shoulders, lengths, strict=True
        ):
            spot = hand + np.outer(rise, up) + np.outer(HAND_WIDE * (1.0 - weight), sign * left)
            # Short of its spot, the hand where the arm so bent reaches on the way there.
            away = np.linalg.norm(spot - shoulder, axis=-1)
            reach = shoulder + np.minimum(bend * length / away, 1.0)[:, None] * (spot - shoulder)
            arm = _arm_reach(sk, roots, local, side, reach, -ahead)
            for j in sk.indices([f"{side}_shoulder", f"{side}_elbow"]):
                out[:, j] = quat_slerp(local[:, j], arm[:, j], weight)
        if _hand_slide(body, roots, out, floor) > SLIDE_TOLERANCE:
            continue
        # Out of balance: as without the hands where the arms are as planned, else checked.
        moved = weight > 0.0
        count = int(np.sum(margin[~moved] < 0.0)) + unbalanced_frames(
            body, roots[moved], out[moved], floor
        )
        if count < fewest and accept(roots, out):
            best, fewest = out, count
            if count == 0:
                break
    return best


def _hand_slide(
    body: BodyModel, roots: NDArray[np.float64], local: NDArray[np.float64], floor: float
) -> float:
    """Largest horizontal travel [m] from a frame to the next of the end spheres of a hand's
    capsule (the wrist's segment) whose lowest point lies within
    :data:`vhuman.skeleton.footskate.CONTACT_HEIGHT` of ``floor`` [m] in both, over poses
    ``roots (N, 3)``, ``local (N, J, 4)`` (as :func:`vhuman.skeleton.footskate.foot_slide`
    for the feet); 0 where none does."""
    hands = body.segment_indices(("l_wrist", "r_wrist"))
    a, b = body.capsules(roots, local)
    centres = np.concatenate([a[:, hands], b[:, hands]], axis=1)  # (N, 4, 3)
    radii = np.tile(body.radii[hands], 2)
    down = centres[..., 2] - radii - floor <= CONTACT_HEIGHT
    travel = np.linalg.norm(np.diff(centres[..., :2], axis=0), axis=-1)
    return float(np.where(down[:-1] & down[1:], travel, 0.0).max(initial=0.0))


def _arm_reach(
    skeleton: Skeleton,
    roots: NDArray[np.float64],
    local: NDArray[np.float64],
    side: str,
    target: NDArray[np.float64],
    elbow: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """``local (N, J, 4)`` with the arm of ``side`` ("l" or "r") turned to put the hand's end
    at ``target (N, 3)`` [m] where it can reach it (else pointing there, the elbow as bent as
    the distance needs, straight beyond reach): the analytic two-bone inverse kinematics of
    the shoulder–elbow chain with the forearm and hand as one link (Tolani, Goswami and
    Badler 2000), the elbow's flexion set by the shoulder–target distance, the upper arm
    swung by the smallest rotation that brings the hand onto the target; with ``elbow (3,)``,
    the arm then turned about the shoulder–target line (the swivel, which leaves the hand
    where it is) to put the elbow on the side of that line ``elbow`` points to."""
    s, e, w, h = skeleton.indices([f"{side}_{name}" for name in _ARM])
    out = local.copy()
    pos, rot = forward_kinematics(skeleton.parents, skeleton.offsets, roots, out)
    end = skeleton.offsets[w] + quat_apply(
        out[:, w], np.broadcast_to(skeleton.offsets[h], (len(roots), 3))
    )
    top = skeleton.limits[e, 0, 1] if skeleton.limits is not None else np.pi
    axis = skeleton.axes[e] if skeleton.axes is not None else np.array([0.0, -1.0, 0.0])
    shoulder, bent = bend_and_swing(
        pos[:, s], rot[:, s], skeleton.offsets[e], end, axis, (0.0, top), target
    )
    if elbow is not None:
        line = target - pos[:, s]
        line /= np.maximum(np.linalg.norm(line, axis=-1, keepdims=True), 1e-12)
        at = quat_apply(shoulder, np.broadcast_to(skeleton.offsets[e], (len(roots), 3)))
        here = at - np.sum(at * line, axis=-1, keepdims=True) * line
        there = elbow - (line @ elbow)[:, None] * line
        turn = np.arctan2(
            np.sum(np.cross(here, there) * line, axis=-1), np.sum(here * there, axis=-1)
        )
        shoulder = quat_multiply(rotvec_to_quat(turn[:, None] * line), shoulder)
    out[:, s] = quat_multiply(quat_conjugate(rot[:, skeleton.parents[s]]), shoulder)
    out[:, e] = bent
    return out


def _support_points(
    body: BodyModel,
    roots: NDArray[np.float64],
    local: NDArray[np.float64],
    floor: float,
    feet_only: bool = False,
) -> list[NDArray[np.float64]]:
    """Per pose of ``roots (N, 3)``, ``local (N, J, 4)``, the floor points ``(P, 2)`` [m] of the
    body (or with ``feet_only``, of the feet and toes) resting on ``floor`` [m]: the lowest
    line of each capsule, sampled, within :data:`SUPPORT_HEIGHT` of it, each point a square of
    half side the capsule's radius."""
    pts, radius = lowest_line_points(body, roots, local)  # (N, P, 3), (P,)
    if feet_only:
        names = np.asarray(body.skeleton.names)[body.joints]
        feet = np.isin(names, [name for leg in LEGS for name in leg[2:]])
        keep = np.repeat(feet, len(radius) // len(feet))
        pts, radius = pts[:, keep], radius[keep]
    on = pts[..., 2] - floor <= SUPPORT_HEIGHT
    corners = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    patch = radius[:, None, None] * corners  # (P, 4, 2)
    return [(pts[k, :, None, :2] + patch)[on[k]].reshape(-1, 2) for k in range(len(roots))]


def _margins(
    body: BodyModel,
    roots: NDArray[np.float64],
    local: NDArray[np.float64],
    floor: float,
    com: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Distance ``(N,)`` [m] of the centre of mass's floor projection (``com (N, 2)`` where
    given) inside (+) or outside (−) the support polygon of the body points on ``floor``
    (:func:`_support_points`) of poses ``roots (N, 3)``, ``local (N, J, 4)``; −inf where
    fewer than three corners rest on it."""
    if com is None:
        com = centre_of_mass(body, roots, local)[:, :2]
    out = np.full(len(roots), -np.inf)
    for k, (c, pts) in enumerate(zip(com, _support_points(body, roots, local, floor), strict=True)):
        if len(pts) >= 3:
            out[k] = polygon_margin(c, pts[ConvexHull(pts).vertices])
    return out


def unbalanced_frames(
    body: BodyModel, roots: NDArray[np.float64], local: NDArray[np.float64], floor: float
) -> int:
    """Poses ``roots (N, 3)``, ``local (N, J, 4)`` whose centre of mass lies outside the
    support polygon of the body points on ``floor`` [m] (the rule of
    :func:`vhuman.posture.check.support_points`, the floor alone: the lowest line of each
    capsule, sampled, within :data:`SUPPORT_HEIGHT` of it, each point a square of half side
    the capsule's radius)."""
    return int(np.sum(_margins(body, roots, local, floor) < 0.0))


def _root_speed(roots: NDArray[np.float64], fps: float) -> float:
    """Fastest travel [m/s] of the root ``(N, 3)`` between two frames."""
    return float(np.linalg.norm(np.diff(roots, axis=0), axis=-1).max() * fps)


def _joint_speed(local: NDArray[np.float64], fps: float) -> float:
    """Fastest turn [rad/s] of a joint ``local (N, J, 4)`` between two frames."""
    return float(quat_angle(local[:-1], local[1:]).max() * fps)


def floor_transition(
    body: BodyModel,
    start: Pose,
    end: Pose,
    duration: float,
    fps: float,
    floor: float,
    via: Sequence[Pose] = (),
    clear: PosesCheck | None = None,
) -> Motion:
    """From pose ``start`` to pose ``end`` (root (3,), local (J, 4)) in ``duration`` [s] or
    longer.

    Where the pelvis drops or rises by more than :data:`DOWN_DROP`, the body gets down or up
    through the planned keyframes (see the module notes) in ``duration`` or up to
    :data:`SLOWEST` times it, or through the floor postures ``via`` (sitting on the floor
    before lying down: :func:`via_poses`) likewise, settling from each into the next and into
    the floor posture in half as long again. Of the plans that pass their checks (no joint
    turning too far in a frame nor faster than :data:`vhuman.reaching.MAX_JOINT_SPEED`, the
    pelvis no faster than :data:`MOST_ROOT_SPEED`), the one with the fewest frames out of
    static balance (:func:`unbalanced_frames`) is taken, the first tried (straight down,
    fastest) of those. For a smaller change of height,
    :func:`vhuman.task.motion.transition` from ``start`` to ``end``, or that from ``end`` to
    ``start`` played backwards where it has fewer frames out of static balance (standing up
    from a half squat as the getting down reversed). The first frame is ``start``, the last
    ``end``.

    ``clear(roots (N, 3), local (N, J, 4))``, where given, says whether planned frames are
    free of the scene (no contact); a plan or transition it refuses is passed over like one
    failing its checks.

    Raises
    ------
    FloorTransitionError
        Where the pelvis drops or rises by more than :data:`DOWN_DROP` and no plan passes its
        checks and ``clear``, or by less and ``clear`` refuses the transition both ways: the
        body has no checked way down (or up) here, and the caller decides what to do instead
        (another place, another posture, stop).
    """
    drop = float(start[0][2] - end[0][2])
    if abs(drop) > DOWN_DROP:
        down = drop > 0.0
        stand, low = (start, end) if down else (end, start)

        refused = {"too fast": 0, "touching the scene": 0}

        def accept(roots: NDArray[np.float64], local: NDArray[np.float64]) -> bool:
            if _root_speed(roots, fps) > MOST_ROOT_SPEED or _joint_speed(local, fps) > (
                MAX_JOINT_SPEED
            ):
                refused["too fast"] += 1
                return False
            if clear is not None and not clear(roots, local):
                refused["touching the scene"] += 1
                return False
            return True

        best: Pose | None = None
        fewest = np.inf
        routes = ((), tuple(via)) if via else ((),)
        for through, factor in itertools.product(routes, np.linspace(1.0, SLOWEST, 3)):
            n = max(2, round(factor * duration * fps) + 1)
            if not through:
                planned = _straight_down(body, stand, low, n, floor, accept)
            else:
                planned = _down_via(body, stand, through, low, n, floor, accept)
            if planned is not None:
                count = unbalanced_frames(body, *planned, floor)
                if count < fewest:
                    best, fewest = planned, count
                if count == 0:
                    break
        if best is None:
            why = ", ".join(f"{n} {k}" for k, n in refused.items() if n)
            why = why or "none keeps the feet planted within the legs' ranges"
            raise FloorTransitionError(
                f"no planned way {'down' if down else 'up'} by {abs(drop):.2f} m passes its "
                f"checks: {why}"
            )
        roots, local = best
        if not down:
            roots, local = roots[::-1], local[::-1]
        return Motion(body.skeleton, fps, roots, local)
    # A smaller change of height: the plain transition, or the one back played backwards
    # where that leaves the support in fewer frames; of those ``clear`` accepts.
    there = transition(body, start, end, duration, fps, floor)
    back = transition(body, end, start, duration, fps, floor)
    backwards = Motion(body.skeleton, fps, back.root_positions[::-1], back.local_rotations[::-1])
    both = sorted((there, backwards), key=lambda m: unbalanced_frames(body, *_pose(m), floor))
    for motion in both:
        if clear is None or clear(*_pose(motion)):
            return motion
    raise FloorTransitionError(
        f"the transition by {abs(drop):.2f} m in height touches the scene either way"
    )


def _pose(motion: Motion) -> Pose:
    """Roots ``(N, 3)`` and local rotations ``(N, J, 4)`` of ``motion``."""
    return motion.root_positions, motion.local_rotations


def facing(rotation: NDArray[np.float64]) -> float:
    """Heading [rad] a pelvis rotation ``(4,)`` faces: that of its forward (x) axis, or where
    that is nearer vertical than its lateral (y) axis (lying on the back), of the lateral
    axis less 90°; where the lateral axis is the nearest of the three to the vertical (lying
    on the side), that from the head to the pelvis (of its long axis reversed), the way the
    body faces sitting up from lying on its back."""
    x, y, z = quat_apply(rotation, np.eye(3))
    if abs(y[2]) >= max(abs(x[2]), abs(z[2])):
        return float(np.arctan2(-z[1], -z[0]))
    if abs(x[2]) <= abs(y[2]):
        return float(np.arctan2(x[1], x[0]))
    return float(np.arctan2(y[1], y[0]) - 0.5 * np.pi)


def _knee_heights(
    body: BodyModel, root: NDArray[np.float64], local: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Height ``(2,)`` [m] of the lowest point at each knee of pose ``root (3,)``,
    ``local (J, 4)``: of the thigh's capsule at its lower end or the shank's at its upper
    end."""
    names = list(np.asarray(body.skeleton.names)[body.joints])
    thighs = [names.index(leg[0]) for leg in LEGS]
    shanks = [names.index(leg[1]) for leg in LEGS]
    a, b = body.capsules(root, local)
    return np.minimum(b[thighs, 2] - body.radii[thighs], a[shanks, 2] - body.radii[shanks])


def _pivots(
    skeleton: Skeleton, root: NDArray[np.float64], local: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Midpoint ``(2,)`` [m] over the floor of the two feet's lowest end spheres in pose
    ``root (3,)``, ``local (J, 4)``."""
    feet = foot_placements(skeleton, root, local)
    lowest = []
    for leg, foot in zip(LEGS, feet, strict=True):
        c, r = foot_spheres(skeleton, leg, foot)
        lowest.append(c[int(np.argmin(c[:, 2] - r)), :2])
    return np.mean(lowest, axis=0)


def _turned(posture: LibraryPosture, heading: float) -> Pose:
    """``posture``'s root ``(3,)`` and local rotations ``(J, 4)`` turned about the vertical
    through its pelvis to face ``heading`` [rad] (:func:`facing`)."""
    local = posture.local_rotations.copy()
    local[0] = quat_multiply(_about_z(heading - facing(local[0])), local[0])
    return posture.root_position.copy(), local


_SAME_HEIGHT = 1e-6
"""Head heights [m] closer than this are the same (rounding of a floor's height)."""


def via_pose(library: PostureLibrary, body: BodyModel, low: Pose, floor: float) -> Pose | None:
    """The posture of ``library`` to pass through on the way down to ``low`` (root (3,),
    local (J, 4)), turned to face where ``low``'s pelvis faces; None where the library has
    none.

    - Where ``low`` rests on both knees (the lowest point at each, of the thigh's capsule at
      its lower end or the shank's at its upper end, within :data:`SUPPORT_HEIGHT` of the
      floor), of the library's postures that do, the one with the highest head (kneeling
      upright), placed with the midpoint of its feet's lowest end spheres on ``low``'s (the
      body bends forward over the knees from it, the toes staying where they are); None
      where ``low``'s head is as high (``low`` itself kneels upright).
    - Where ``low`` lies on its side (the pelvis's lateral axis the nearest of its axes to
      the vertical), the posture lying on the back (its forward axis the nearest to straight
      up), turned about the vertical so that its head points where ``low``'s does, its pelvis
      above ``low``'s (the body rolls onto its side from it).
    - Otherwise, of those with both feet on the floor and the pelvis below the knees (sitting
      on the floor), the one with the lowest pelvis, its pelvis above ``low``'s; None where
      ``low`` is that posture.
    """
    sk = body.skeleton
    head = sk.index("head")
    heading = facing(low[1][0])

    def head_height(root: NDArray[np.float64], local: NDArray[np.float64]) -> float:
        return float(forward_kinematics(sk.parents, sk.offsets, root, local)[0][head, 2])

    if _knee_heights(body, *low).max() - floor <= SUPPORT_HEIGHT:
        kneeling = [
            p
            for p in library
            if _knee_heights(body, p.root_position, p.local_rotations).max() <= SUPPORT_HEIGHT
        ]
        if not kneeling:
            return None
        upright = max(kneeling, key=lambda p: head_height(p.root_position, p.local_rotations))
        root, local = _turned(upright, heading)
        if head_height(root, local) <= head_height(low[0], low[1]) - floor + _SAME_HEIGHT:
            return None
        shift = _pivots(sk, *low) - _pivots(sk, root, local)
        return np.array([root[0] + shift[0], root[1] + shift[1], floor + root[2]]), local
    axes = quat_apply(low[1][0], np.eye(3))  # the pelvis's forward, lateral and long axes
    if int(np.argmax(np.abs(axes[:, 2]))) == 1:
        back = max(library, key=lambda p: quat_apply(p.local_rotations[0], np.eye(3)[0])[2])
        local = back.local_rotations.copy()
        turn = _horizontal_heading(axes[2]) - _horizontal_heading(
            quat_apply(local[0], np.eye(3)[2])
        )
        local[0] = quat_multiply(_about_z(turn), local[0])
        return np.array([low[0][0], low[0][1], floor + back.root_position[2]]), local
    best: LibraryPosture | None = None
    for p in library:
        pos = forward_kinematics(sk.parents, sk.offsets, p.root_position, p.local_rotations)[0]
        knees = pos[sk.indices(["l_knee", "r_knee"]), 2]
        feet = foot_placements(sk, p.root_position, p.local_rotations)
        low_spheres = [
            float((c[:, 2] - r).min())
            for c, r in (foot_spheres(sk, leg, f) for leg, f in zip(LEGS, feet, strict=True))
        ]
        grounded = max(low_spheres) <= CONTACT_HEIGHT
        lower = best is None or p.root_position[2] < best.root_position[2]
        if grounded and p.root_position[2] < knees.min() and lower:
            best = p
    if best is None or np.allclose(best.local_rotations[1:], low[1][1:]):
        return None
    _, local = _turned(best, heading)
    root = np.array([low[0][0], low[0][1], floor + best.root_position[2]])
    return root, local


def via_poses(
    library: PostureLibrary, body: BodyModel, low: Pose, floor: float
) -> tuple[Pose, ...]:
    """The postures of ``library`` to pass through, in order, on the way down to ``low``
    (root (3,), local (J, 4)): :func:`via_pose` of ``low``, that of it, and so on (sitting on
    the floor and lying on the back before lying on the side); empty where there is none."""
    chain: list[Pose] = []
    step = via_pose(library, body, low, floor)
    while step is not None and len(chain) < len(library):
        if chain and np.allclose(step[0], chain[0][0]) and np.allclose(step[1], chain[0][1]):
            break
        chain.insert(0, step)
        step = via_pose(library, body, step, floor)
    return tuple(chain)


def _horizontal_heading(direction: NDArray[np.float64]) -> float:
    """Heading [rad] of a direction ``(3,)``'s horizontal part."""
    return float(np.arctan2(direction[1], direction[0]))
