"""Transitions between two poses that keep the feet on the floor: step, then lower the body.

From an upright pose ``A`` to a pose ``B`` (getting down into a library
posture, turning on the spot, settling after a walk):

1. **Stepping.** Each foot that is not yet where ``B`` wants it is lifted and
   placed there, one foot at a time, flat on the floor and turned to ``B``'s
   foot heading. Before a foot lifts, the pelvis shifts so that the centre of
   mass lies over the other foot (static balance in single support, McGhee and
   Frank 1968); after the last step it returns between the feet.
2. **Lowering.** The body goes from that upright stance to ``B``: every joint
   by slerp with minimum-jerk timing (the arms later than the trunk, so they
   stay close to the body while it goes down and reach out last), each foot
   turning about the point of it that rests on the floor in ``B`` (heel, ball
   or toe tip), so that point does not move.

Throughout, the legs are posed by analytic two-bone inverse kinematics from
the pelvis to the planted or swinging foot (the law of cosines in the
hip-knee-ankle triangle, Chen et al.), which is what keeps a planted foot
still instead of dragging it (the foot-skate of Kovar, Schreiner and Gleicher
2002). From a low pose to an upright one (standing up) the same motion is
built the other way and played backwards.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
from numpy.typing import NDArray
from scipy.spatial.transform import Rotation, Slerp

from vhuman.animation import Easing, ease
from vhuman.geometry import quat_angle, quat_apply, quat_conjugate, quat_multiply
from vhuman.ik import Chain, two_bone_ik
from vhuman.posture.check import centre_of_mass
from vhuman.scene import BodyModel
from vhuman.skeleton import Motion

__all__ = ["ARM_JOINTS", "LIFT", "SIDES", "transition"]

Pose = tuple[NDArray[np.float64], NDArray[np.float64]]

SIDES = ("l", "r")
LIFT = 0.05
"""Height [m] a stepping foot is lifted by at mid-step."""
CLEARANCE = 0.005
"""Height [m] a lifted foot keeps above its planned path, so that it leaves the floor at
once."""
STEP_S = 0.4
"""Duration [s] of one step (foot off the floor and down again)."""
MAX_STEP = 0.3
"""Longest step [m] of a foot; farther places are reached in several steps."""
SHIFT_S = 0.3
"""Duration [s] of a weight shift from one support to another."""
ARM_JOINTS = ("clavicle", "shoulder", "elbow", "wrist", "hand")
"""Joint names (after the side prefix) that move with the arm's own timing."""
REST_HEIGHT = 0.05
"""Height [m] above the floor within which the lowest point of a foot of the end pose
rests on it (a foot higher than that is not planted while the body goes down)."""
REACH = 0.99
"""Fraction of a leg's length the hip is kept within from the ankle."""
MAX_ROLL = np.radians(30.0)
"""Largest turn [rad] of a foot planted between steps away from its planned rotation that
it rolls with (the ankle's range stopping it); beyond it the plan is kept."""
PIVOT_PASSES = 3
"""Passes of leg inverse kinematics that move each pivoting ankle to the foot rotation the
ankle's range allows, so the pivot point stays put."""
_FOOT_MOVED = (1e-3, np.radians(1.0))  # ankle shift [m], foot turn [rad] that need a step


@dataclass(frozen=True)
class _Foot:
    """A foot's world placement: ankle joint position (3,), ankle and toe joint rotations (4,)."""

    ankle: NDArray[np.float64]
    rotation: NDArray[np.float64]
    toe: NDArray[np.float64]


@dataclass(frozen=True)
class _Track:
    """A foot over N frames: ankle targets (N, 3), ankle and toe world rotations (N, 4), and
    where it is planted (N,) the centres of its heel, ball and toe-tip spheres there (N, 3)."""

    ankle: NDArray[np.float64]
    rotation: NDArray[np.float64]
    toe: NDArray[np.float64]
    planted: NDArray[np.bool_]
    heel: NDArray[np.float64]
    ball: NDArray[np.float64]
    tip: NDArray[np.float64]

    def __getitem__(self, frames: slice) -> _Track:
        return _Track(*(getattr(self, f.name)[frames] for f in fields(self)))

    @staticmethod
    def join(*tracks: _Track) -> _Track:
        """The tracks one after the other."""
        return _Track(
            *(np.concatenate([getattr(t, f.name) for t in tracks]) for f in fields(_Track))
        )


class _Feet:
    """The foot geometry of a body: where heel, ball and toe tip lie in their joints' frames."""

    def __init__(self, body: BodyModel, reference: Pose, floor: float) -> None:
        self.body, self.floor = body, floor
        sk = body.skeleton
        segs = list(np.asarray(sk.names)[body.joints])
        self.joint = {s: (sk.index(f"{s}_ankle"), sk.index(f"{s}_toe")) for s in SIDES}
        self.seg = {s: (segs.index(f"{s}_ankle"), segs.index(f"{s}_toe")) for s in SIDES}
        self.chain = {s: Chain(sk, f"{s}_ankle", start=f"{s}_hip") for s in SIDES}
        self.hip = {s: sk.index(f"{s}_hip") for s in SIDES}
        self.reference = {s: self.placement(reference, s) for s in SIDES}

    def points(self, foot: _Foot, side: str) -> dict[str, NDArray[np.float64]]:
        """Centres (3,) of the heel, ball and toe-tip spheres, by name."""
        (_, t), (sa, st) = self.joint[side], self.seg[side]
        b = self.body
        toe_joint = foot.ankle + quat_apply(foot.rotation, b.skeleton.offsets[t])
        return {
            "heel": foot.ankle + quat_apply(foot.rotation, b.starts[sa]),
            "ball": foot.ankle + quat_apply(foot.rotation, b.ends[sa]),
            "tip": toe_joint + quat_apply(foot.toe, b.ends[st]),
        }

    def radius(self, side: str, point: str) -> float:
        sa, st = self.seg[side]
        return float(self.body.radii[st if point == "tip" else sa])

    def placement(self, pose: Pose, side: str) -> _Foot:
        pos, rot = self.body.joint_frames(pose[0], pose[1])
        a, t = self.joint[side]
        return _Foot(pos[a].copy(), rot[a].copy(), rot[t].copy())

    def pivot(self, foot: _Foot, side: str) -> str | None:
        """The point the foot rests on: the lowest of heel, ball and toe tip when within
        :data:`REST_HEIGHT` of the floor, else None."""
        heights = {
            n: p[2] - self.radius(side, n) - self.floor for n, p in self.points(foot, side).items()
        }
        low = min(heights, key=heights.__getitem__)
        return low if heights[low] <= REST_HEIGHT else None

    def yaw(self, foot: _Foot, side: str) -> float:
        pts = self.points(foot, side)
        d = pts["ball"] - pts["heel"]
        return float(np.arctan2(d[1], d[0]))

    def flat(self, side: str, yaw: float, point: str, at: NDArray[np.float64]) -> _Foot:
        """The foot flat on the floor (heel, ball and toe tip on it) heading ``yaw`` [rad],
        with ``point``'s centre over ``at`` (2,) [m]."""
        ref = self.reference[side]
        sa, st = self.seg[side]
        b = self.body
        d = quat_apply(ref.rotation, b.ends[sa] - b.starts[sa])
        level = _align(d, np.array([d[0], d[1], 0.0]))
        rot = quat_multiply(level, ref.rotation)
        toe = quat_multiply(level, ref.toe)
        e = quat_apply(toe, b.ends[st])  # toe joint to tip
        toe = quat_multiply(_align(e, self._tip_direction(rot, e, side)), toe)
        turn = _qz(yaw - self.yaw(_Foot(ref.ankle, rot, toe), side))
        foot = _Foot(np.zeros(3), quat_multiply(turn, rot), quat_multiply(turn, toe))
        centre = self.points(foot, side)[point]
        height = self.floor + self.radius(side, point)
        foot = _Foot(np.array([at[0], at[1], height]) - centre, foot.rotation, foot.toe)
        return foot

    def _tip_direction(
        self, rot: NDArray[np.float64], e: NDArray[np.float64], side: str
    ) -> NDArray[np.float64]:
        """Direction of the toe joint-to-tip vector ``e`` (3,) that puts the tip sphere on the
        floor when the foot, rotated by ``rot``, has its heel and ball on it."""
        sa, st = self.seg[side]
        b = self.body
        toe_joint = quat_apply(rot, b.skeleton.offsets[self.joint[side][1]])
        heel = quat_apply(rot, b.starts[sa])
        # Heights above the heel centre, which lies at the foot capsule's radius.
        want = (b.radii[st] - b.radii[sa]) - (toe_joint[2] - heel[2])
        length = float(np.linalg.norm(e))
        z = float(np.clip(want, -length, length))
        flat = np.hypot(e[0], e[1])
        scale = np.sqrt(max(length**2 - z**2, 0.0)) / max(flat, 1e-9)
        return np.array([e[0] * scale, e[1] * scale, z])

    def rolled(self, side: str, track: _Track, rotation: NDArray[np.float64]) -> NDArray:
        """Ankle positions ``(N, 3)`` of a foot rolling on its anchors with foot rotations
        ``(N, 4)``: it rests on the heel, the ball or the toe tip, at the anchor's place,
        whichever keeps the others above their own (so the point on the floor does not
        slide)."""
        (_, t), (sa, st) = self.joint[side], self.seg[side]
        b = self.body
        toe_joint = quat_apply(rotation, b.skeleton.offsets[t])
        ankles = np.stack(
            [
                track.heel - quat_apply(rotation, b.starts[sa]),
                track.ball - quat_apply(rotation, b.ends[sa]),
                track.tip - quat_apply(track.toe, b.ends[st]) - toe_joint,
            ]
        )
        pick = np.argmax(ankles[..., 2], axis=0)
        ankle = np.take_along_axis(ankles, pick[None, :, None], axis=0)[0]
        return np.where(track.planted[:, None], ankle, track.ankle)

    def pose_legs(
        self,
        roots: NDArray[np.float64],
        local: NDArray[np.float64],
        targets: dict[str, _Track],
    ) -> NDArray[np.float64]:
        """``local (N, J, 4)`` with each side's leg put on its track: the ankle on its target,
        foot and toe at their world rotations."""
        out = local.copy()
        pos, _ = self.body.joint_frames(roots, out)
        for side, track in targets.items():
            ankle, rot, toe = track.ankle, track.rotation, track.toe
            hip = pos[:, self.hip[side]]
            fwd = quat_apply(rot, np.array([1.0, 0.0, 0.0]))
            fwd[:, 2] = 0.0
            fwd /= np.maximum(np.linalg.norm(fwd, axis=-1, keepdims=True), 1e-9)
            pole = 0.5 * (hip + ankle) + 0.5 * fwd
            res = two_bone_ik(self.chain[side], ankle, out, roots, pole=pole, end_orientation=rot)
            out = res.local_rotations.copy()
            _, grot = self.body.joint_frames(roots, out)
            a, t = self.joint[side]
            out[:, t] = quat_multiply(quat_conjugate(grot[:, a]), toe)
            out[:, t] = self.body.skeleton.clamp(out)[:, t]
        return out


def _align(u: NDArray[np.float64], v: NDArray[np.float64]) -> NDArray[np.float64]:
    """The smallest rotation (w, x, y, z) turning direction ``u`` (3,) onto ``v`` (3,)."""
    u, v = u / np.linalg.norm(u), v / np.linalg.norm(v)
    q = np.concatenate([[1.0 + float(u @ v)], np.cross(u, v)])
    return q / np.linalg.norm(q)


def _qz(angle: float) -> NDArray[np.float64]:
    return np.array([np.cos(0.5 * angle), 0.0, 0.0, np.sin(0.5 * angle)])


def _slerp(q0: NDArray[np.float64], q1: NDArray[np.float64], s: NDArray[np.float64]) -> NDArray:
    """Slerp ``(N, 4)`` from ``q0`` to ``q1`` (w, x, y, z) at fractions ``s (N,)``."""
    key = Rotation.from_quat(np.stack([q0, q1])[:, [1, 2, 3, 0]])
    out = Slerp([0.0, 1.0], key)(np.clip(s, 0.0, 1.0)).as_quat()
    return out[:, [3, 0, 1, 2]]


def _heading(rotation: NDArray[np.float64]) -> float:
    """Heading [rad] of a pelvis rotation: its forward (+x) axis, or its left (+y) axis turned
    back by 90° where the forward axis is near vertical."""
    f = quat_apply(rotation, np.array([1.0, 0.0, 0.0]))
    if np.hypot(f[0], f[1]) > 0.2:
        return float(np.arctan2(f[1], f[0]))
    y = quat_apply(rotation, np.array([0.0, 1.0, 0.0]))
    return float(np.arctan2(y[1], y[0]) - 0.5 * np.pi)


def _minjerk(n: int) -> NDArray[np.float64]:
    return ease(Easing.MINIMUM_JERK, np.linspace(0.0, 1.0, max(n, 2)))


def _com_offset(body: BodyModel, pose: Pose) -> NDArray[np.float64]:
    """Horizontal offset (2,) [m] of the centre of mass from the root."""
    return (centre_of_mass(body, pose[0], pose[1]) - pose[0])[:2]


def _foot_centre(feet: _Feet, foot: _Foot, side: str) -> NDArray[np.float64]:
    pts = feet.points(foot, side)
    return 0.5 * (pts["heel"] + pts["ball"])[:2]


def _still(feet: _Feet, foot: _Foot, side: str, n: int) -> _Track:
    """The foot planted at ``foot`` for ``n`` frames."""
    pts = feet.points(foot, side)

    def tile(v: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.tile(v, (n, 1))

    return _Track(
        tile(foot.ankle),
        tile(foot.rotation),
        tile(foot.toe),
        np.ones(n, bool),
        tile(pts["heel"]),
        tile(pts["ball"]),
        tile(pts["tip"]),
    )


def _swing(a: _Foot, b: _Foot, n: int) -> _Track:
    """The foot lifted from ``a`` and put down at ``b`` in ``n`` frames: up, across, down."""
    u = np.linspace(0.0, 1.0, n + 1)[1:]
    s = ease(Easing.MINIMUM_JERK, np.clip((u - 0.25) / 0.5, 0.0, 1.0))
    ankle = a.ankle + s[:, None] * (b.ankle - a.ankle)
    ankle[:, 2] += LIFT * np.sin(np.pi * u) + CLEARANCE * (u < 1.0)
    zero = np.zeros((n, 3))
    return _Track(
        ankle,
        _slerp(a.rotation, b.rotation, s),
        _slerp(a.toe, b.toe, s),
        np.zeros(n, bool),
        zero,
        zero,
        zero,
    )


def _between(a: _Foot, b: _Foot, s: float) -> _Foot:
    """The foot placement ``s`` of the way from ``a`` to ``b`` (positions lerped, rotations
    slerped)."""
    at = np.array([s])
    return _Foot(
        a.ankle + s * (b.ankle - a.ankle),
        _slerp(a.rotation, b.rotation, at)[0],
        _slerp(a.toe, b.toe, at)[0],
    )


def _moved(a: _Foot, b: _Foot) -> bool:
    return bool(
        np.linalg.norm(a.ankle - b.ankle) > _FOOT_MOVED[0]
        or float(quat_angle(a.rotation, b.rotation)) > _FOOT_MOVED[1]
    )


def _stepping(
    feet: _Feet, start: Pose, stance: Pose, placed: dict[str, _Foot], fps: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], dict[str, _Track]]:
    """Frames from ``start`` to ``stance`` stepping the feet to ``placed``: roots ``(N, 3)``,
    local rotations ``(N, J, 4)`` (legs not yet posed) and the feet's tracks.

    Steps longer than :data:`MAX_STEP` are split; before each step the pelvis
    shifts the centre of mass over the foot that stays.
    """
    now = {f: feet.placement(start, f) for f in SIDES}
    moved = sorted(
        (f for f in SIDES if _moved(now[f], placed[f])),
        key=lambda f: -float(np.linalg.norm(now[f].ankle - placed[f].ankle)),
    )
    tracks = {f: [_still(feet, now[f], f, 1)] for f in SIDES}
    if not moved:
        return start[0][None], start[1][None], {f: tracks[f][0] for f in SIDES}
    reach = max(float(np.linalg.norm((now[f].ankle - placed[f].ankle)[:2])) for f in moved)
    rounds = max(1, int(np.ceil(reach / MAX_STEP)))
    plan = [
        (f, _between(now[f], placed[f], (r + 1) / rounds)) for r in range(rounds) for f in moved
    ]
    offset = _com_offset(feet.body, start)
    shift, step = round(SHIFT_S * fps), round(STEP_S * fps)
    xy = [start[0][:2]]
    roots_xy: list[NDArray[np.float64]] = []
    turns: list[NDArray[np.float64]] = []
    for k, (side, target) in enumerate(plan):
        other = "r" if side == "l" else "l"
        goal = _foot_centre(feet, now[other], other) - offset
        s = _minjerk(shift + 1)[1:]
        roots_xy += [xy[-1] + s[:, None] * (goal - xy[-1]), np.tile(goal, (step, 1))]
        xy.append(goal)
        for f in SIDES:
            tracks[f].append(_still(feet, now[f], f, shift))
        tracks[side].append(_swing(now[side], target, step))
        tracks[other].append(_still(feet, now[other], other, step))
        u = np.linspace(0.0, 1.0, step + 1)[1:]
        turns += [np.full(shift, k / len(plan)), (k + u) / len(plan)]
        now[side] = target
    s = _minjerk(shift + 1)[1:]
    roots_xy.append(xy[-1] + s[:, None] * (stance[0][:2] - xy[-1]))
    turns.append(np.ones(shift))
    for f in SIDES:
        tracks[f].append(_still(feet, now[f], f, shift))
    xy_all = np.concatenate([start[0][None, :2], *roots_xy])
    roots = np.column_stack([xy_all, np.full(len(xy_all), start[0][2])])
    local = np.repeat(start[1][None], len(xy_all), axis=0)
    local[:, 0] = _slerp(start[1][0], stance[1][0], np.concatenate([[0.0], *turns]))
    return roots, local, {f: _Track.join(*tracks[f]) for f in SIDES}


def _lowering(
    feet: _Feet,
    stance: Pose,
    end: Pose,
    placed: dict[str, _Foot],
    duration: float,
    fps: float,
    arm_lag: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64], dict[str, _Track]]:
    """Frames from ``stance`` to ``end``, each foot that rests on the floor in ``end``
    rolling at its place in ``placed``; the arms move after ``arm_lag`` of the time."""
    sk = feet.body.skeleton
    n = max(2, round(duration * fps) + 1)
    u = np.linspace(0.0, 1.0, n)
    s = ease(Easing.MINIMUM_JERK, u)
    s_arm = ease(Easing.MINIMUM_JERK, np.clip((u - arm_lag) / (1.0 - arm_lag), 0.0, 1.0))
    arms = {f"{side}_{j}" for side in SIDES for j in ARM_JOINTS}
    local = np.empty((n, sk.n_joints, 4))
    for j, name in enumerate(sk.names):
        local[:, j] = _slerp(stance[1][j], end[1][j], s_arm if name in arms else s)
    roots = stance[0] + s[:, None] * (end[0] - stance[0])
    tracks = {}
    for side in SIDES:
        b = feet.placement(end, side)
        point = feet.pivot(b, side)
        if point is None:
            continue
        a = placed[side]
        still = _still(feet, a, side, n)
        rot, toe = _slerp(a.rotation, b.rotation, s), _slerp(a.toe, b.toe, s)
        # The point it rests on ends at its height in ``end`` (within REST_HEIGHT).
        anchor = getattr(still, point).copy()
        anchor[:, 2] += s * (feet.points(b, side)[point][2] - anchor[0, 2])
        ends = {point: anchor}
        if point == "tip":  # on tiptoe the foot turns about the tip alone
            ends.update(heel=still.heel - [0.0, 0.0, 1.0], ball=still.ball - [0.0, 0.0, 1.0])
        track = replace(still, rotation=rot, toe=toe, **ends)
        tracks[side] = replace(track, ankle=feet.rolled(side, track, rot))
    return roots, local, tracks


def _upright_first(start: Pose, end: Pose) -> bool:
    return bool(start[0][2] >= end[0][2] - 0.05)


def transition(
    body: BodyModel,
    start: Pose,
    end: Pose,
    duration: float,
    fps: float,
    floor: float,
    *,
    reference: Pose,
    arm_lag: float = 0.5,
) -> Motion:
    """From pose ``start`` to pose ``end`` (root (3,), local (J, 4)) stepping and lowering.

    Parameters
    ----------
    body : BodyModel
    start, end : tuple of ndarray
        Root position (3,) [m] and local rotations (J, 4); the higher of the two
        (by root height) is taken to stand on its feet.
    duration : float
        Duration [s] of the lowering (or rising); the steps add to it
        (:data:`SHIFT_S` and :data:`STEP_S` each).
    fps : float
    floor : float
        Floor height [m].
    reference : tuple of ndarray
        A pose of the same skeleton standing (its feet give their shape, levelled flat).
    arm_lag : float
        Fraction of the lowering, in [0, 1), before the arms start to move
        (rising: the fraction left after they are back).

    Returns
    -------
    Motion
        First frame ``start``, last frame ``end``.
    """
    if not _upright_first(start, end):
        m = transition(body, end, start, duration, fps, floor, reference=reference, arm_lag=arm_lag)
        return Motion(body.skeleton, fps, m.root_positions[::-1], m.local_rotations[::-1])
    feet = _Feet(body, reference, floor)
    placed = {}
    for f in SIDES:
        finish = feet.placement(end, f)
        point = feet.pivot(finish, f) or "heel"
        placed[f] = feet.flat(f, feet.yaw(finish, f), point, feet.points(finish, f)[point][:2])
    turn = _heading(end[1][0]) - _heading(start[1][0])
    stance_local = start[1].copy()
    stance_local[0] = quat_multiply(_qz(turn), start[1][0])
    centre = 0.5 * (_foot_centre(feet, placed["l"], "l") + _foot_centre(feet, placed["r"], "r"))
    xy = centre - _com_offset(body, (start[0], stance_local))
    stance = (np.array([xy[0], xy[1], start[0][2]]), stance_local)
    r1, q1, t1 = _stepping(feet, start, stance, placed, fps)
    if len(r1) == 1:  # no step: lower from where the body stands
        stance = start
    r2, q2, t2 = _lowering(feet, stance, end, placed, duration, fps, arm_lag)
    roots = np.concatenate([r1, r2[1:]])
    local = np.concatenate([q1, q2[1:]])
    n1 = len(r1)
    free = [f for f in SIDES if f not in t2]
    local[:n1] = feet.pose_legs(roots[:n1], local[:n1], {f: t1[f] for f in free})
    tracks = {f: _Track.join(t1[f], t2[f][1:]) for f in t2}
    roots = _within_reach(feet, roots, local, tracks)
    roots = _above_floor(feet, roots, feet.pose_legs(roots, local, tracks), tracks)
    for _ in range(PIVOT_PASSES):
        tracks = _rolled(feet, roots, feet.pose_legs(roots, local, tracks), tracks, n1)
    local = feet.pose_legs(roots, local, tracks)
    local[0], local[-1] = start[1], end[1]
    roots[0], roots[-1] = start[0], end[0]
    return Motion(body.skeleton, fps, roots, local)


def _rolled(
    feet: _Feet,
    roots: NDArray[np.float64],
    local: NDArray[np.float64],
    tracks: dict[str, _Track],
    first: int,
) -> dict[str, _Track]:
    """Tracks whose planted ankles roll each foot on its anchors with the foot rotations the
    legs reached (:meth:`_Feet.rolled`)."""
    _, rot = feet.body.joint_frames(roots, local)
    out = {}
    for side, t in tracks.items():
        a, k = feet.joint[side]
        near = t.planted & (
            (np.arange(len(t.planted)) >= first) | (quat_angle(rot[:, a], t.rotation) < MAX_ROLL)
        )
        r = np.where(near[:, None], rot[:, a], t.rotation)
        moved = replace(t, rotation=r, toe=np.where(near[:, None], rot[:, k], t.toe))
        out[side] = replace(moved, ankle=feet.rolled(side, moved, r))
    return out


def _within_reach(
    feet: _Feet,
    roots: NDArray[np.float64],
    local: NDArray[np.float64],
    tracks: dict[str, _Track],
) -> NDArray[np.float64]:
    """Roots lowered where a hip is farther from its ankle target than the leg reaches."""
    pos, _ = feet.body.joint_frames(roots, local)
    drop = np.zeros(len(roots))
    for side, t in tracks.items():
        reach = REACH * feet.chain[side].length
        d = pos[:, feet.hip[side]] - t.ankle
        flat = np.minimum(np.hypot(d[:, 0], d[:, 1]), reach)
        drop = np.maximum(drop, d[:, 2] - np.sqrt(reach**2 - flat**2))
    out = roots.copy()
    out[:, 2] -= np.maximum(drop, 0.0)
    return out


def _above_floor(
    feet: _Feet,
    roots: NDArray[np.float64],
    local: NDArray[np.float64],
    tracks: dict[str, _Track],
) -> NDArray[np.float64]:
    """Roots raised where a capsule other than the posed feet dips under the floor."""
    body = feet.body
    a, b = body.capsules(roots, local)
    low = np.minimum(a[..., 2], b[..., 2]) - body.radii - feet.floor
    skip = [i for f in tracks for i in feet.seg[f]]
    low[:, skip] = np.inf
    out = roots.copy()
    out[:, 2] -= np.minimum(low.min(axis=-1), 0.0)
    return out
