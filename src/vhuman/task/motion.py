"""Pieces of one continuous task motion: walks on a floor path, transitions, hand paths.

- Walks: the parametric walk of :func:`vhuman.animation.generate_walk` laid on
  a planned floor path, the distance along it following a minimum-jerk profile
  in time (Flash & Hogan 1985), so the steps shorten to a stop at both ends
  and the feet stay planted in stance; set off from where the feet stand,
  each foot's first stance and swing moved onto it (:func:`from_feet`).
- Transitions between two poses: every joint's local rotation by spherical
  linear interpolation (Shoemake 1985) with minimum-jerk timing, the root
  moved with the same timing and lifted or lowered so that the lowest point
  of the body stays on the floor; the feet held planted by leg inverse
  kinematics and stepped one after the other (:mod:`vhuman.task.feet`).
- Hand paths: hand frames by minimum jerk (position) and slerp (orientation),
  the arm solved per frame by the closed-form 7-DOF IK over the swivel angle
  (:meth:`vhuman.posture.ArmSetting.ik_seeds`), taking the solution nearest the
  previous frame's joint angles.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.spatial.transform import Rotation, Slerp

from vhuman.animation import Easing, GaitParameters, ease, generate_walk, paced_path
from vhuman.geometry import quat_angle, quat_apply, quat_conjugate, quat_multiply, quat_slerp
from vhuman.posture import ArmSetting
from vhuman.reaching import Side
from vhuman.scene import BodyModel, Target
from vhuman.skeleton import Motion, Skeleton
from vhuman.skeleton.footskate import (
    CONTACT_HEIGHT,
    FOOT_SEGMENTS,
    SLIDE_TOLERANCE,
    foot_points,
    foot_slide,
)
from vhuman.task.feet import (
    LEGS,
    STEP_CLEARANCE,
    FootPlacement,
    foot_placements,
    plant_feet,
    stepped_feet,
)

__all__ = [
    "WEIGHT_SHIFT",
    "ArmUnreachableError",
    "arm_path",
    "arm_solutions",
    "from_feet",
    "ground",
    "hand_arc",
    "hand_line",
    "hold",
    "lowest_points",
    "planted",
    "standing_pose",
    "stature",
    "transition",
    "walk_along",
]

LIMIT_TOLERANCE = 1e-3
"""Excess [rad] of a leg joint over its range (beyond the end poses') above which a
transition's leg correction fails and its poses are kept interpolated."""
MOST_JOINT_STEP = np.radians(19.0)
"""Turn [rad] of a joint in one frame above which the correction fails likewise."""
WEIGHT_SHIFT = 0.3
"""Fraction of the way from the feet's midpoint to the standing foot that the pelvis leans
at the middle of a step (the weight over the standing foot while the other is off the
floor)."""
WALK_SPEED = 1.0
"""Walking speed that sets the cadence with the default step length [m/s]."""
TURN_LENGTH = 0.5
"""Length of path [m] over which a walk's heading turns through a corner of the path (the
pelvis turning slower than :data:`vhuman.reaching.MAX_JOINT_SPEED` at walking speed)."""


class ArmUnreachableError(Exception):
    """The arm has no joint solution for a hand frame on the path; the message says where.

    ``frame`` is the index of that hand frame on the path.
    """

    def __init__(self, message: str, frame: int) -> None:
        super().__init__(message)
        self.frame = frame


def _wxyz(q: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.concatenate([q[..., 3:], q[..., :3]], axis=-1)


def _xyzw(q: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.concatenate([q[..., 1:], q[..., :1]], axis=-1)


def ground(
    body: BodyModel, roots: NDArray[np.float64], local: NDArray[np.float64], floor: float
) -> NDArray[np.float64]:
    """Roots ``(N, 3)`` moved up or down: the lowest capsule point of each pose on ``floor``."""
    out = np.array(roots, dtype=np.float64)
    out[:, 2] += floor - lowest_points(body, roots, local)
    return out


def _foot_bottoms(
    body: BodyModel, roots: NDArray[np.float64], local: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Height ``(2, N)`` [m] of the lowest point of the left and right feet (the capsules of
    the ankle and toe segments) in poses ``roots (N, 3)``, ``local (N, J, 4)``."""
    names = np.asarray(body.skeleton.names)[body.joints]
    a, b = body.capsules(roots, local)
    low = np.minimum(a[..., 2], b[..., 2]) - body.radii
    return np.stack([low[:, np.isin(names, leg[2:])].min(axis=-1) for leg in LEGS])


def walk_along(
    skeleton: Skeleton,
    path: ArrayLike,
    fps: float,
    *,
    speed: float = WALK_SPEED,
    feet: tuple[FootPlacement, FootPlacement] | None = None,
) -> Motion:
    """A walk along a floor path ``(K, 2)`` [m], starting and ending at rest.

    The pelvis travels the path's length with a minimum-jerk profile, slowed
    where the path turns so that the heading turns at most
    :data:`vhuman.animation.walking.TURN_PER_STEP` a step
    (:func:`~vhuman.animation.walking.paced_path`); the cadence is that of
    ``speed`` with the default step length for the skeleton's stature, and the
    walk lasts whole gait cycles, enough that the longest step stays under the
    default step length. Headings follow the path's tangent, averaged over
    :data:`TURN_LENGTH` of path.

    ``feet``, the left and right feet's placements where the walker stands, set
    off from there (:func:`from_feet`): the walk's first frame then has its
    feet there, not where the walk on this path would start them.

    Returns
    -------
    Motion
        Frames at ``fps``; the root on the path at both ends.
    """
    pts = np.asarray(path, dtype=np.float64)
    seg = np.linalg.norm(np.diff(pts, axis=0), axis=-1)
    arc = np.concatenate([[0.0], np.cumsum(seg)])
    base = GaitParameters(speed=speed, fps=fps).for_stature(stature(skeleton))
    step = float(base.step_length)  # type: ignore[arg-type]
    yaw = np.unwrap(np.arctan2(np.diff(pts[:, 1]), np.diff(pts[:, 0])))
    fine, heading = _path_heading(arc, yaw)
    cycles, distance = paced_path(fine, heading, step, base.cycle_duration)

    def floor_path(t: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        s = distance(t)
        xy = np.stack([np.interp(s, arc, pts[:, 0]), np.interp(s, arc, pts[:, 1])], axis=-1)
        return xy, np.interp(s, fine, heading)

    params = GaitParameters(step_length=step, speed=speed, cycles=cycles, fps=fps, path=floor_path)
    walk = generate_walk(params, skeleton).motion
    return walk if feet is None else from_feet(walk, feet)


def from_feet(walk: Motion, feet: tuple[FootPlacement, FootPlacement]) -> Motion:
    """``walk`` set off from the foot placements ``feet`` (left, right).

    Each foot's path through its first stance and swing is moved by the rigid
    motion that takes its first placement onto ``feet`` (so it stays planted
    where it stands until it lifts off), and blended back to the walk's own
    by a minimum-jerk weight while it is off the floor, all of its points
    (:func:`vhuman.skeleton.footskate.foot_points`) higher than
    :data:`~vhuman.skeleton.footskate.CONTACT_HEIGHT` over its lowest point in
    the walk; from its first landing on it follows the walk. The legs are
    corrected onto these placements (:func:`vhuman.task.feet.plant_feet`), each
    on the frames where its foot is moved; a foot that never leaves the floor
    keeps the walk's placements.
    """
    sk = walk.skeleton
    roots, local = walk.root_positions, walk.local_rotations
    placed = foot_placements(sk, roots, local)
    centres, radii = foot_points(walk)
    bottom = centres[..., 2] - radii  # (N, P)
    # The joint each point belongs to: two end spheres per foot capsule, in skeleton order.
    owner = np.repeat(
        [
            n
            for n, seg in zip(sk.names, sk.segments or (), strict=False)
            if n in FOOT_SEGMENTS and seg is not None
        ],
        2,
    )
    targets = []
    moved = np.zeros((2, walk.n_frames), dtype=bool)
    for i, (own, start) in enumerate(zip(placed, feet, strict=True)):
        low = bottom[:, np.isin(owner, LEGS[i][2:])]
        up = np.flatnonzero((low > low.min() + CONTACT_HEIGHT).all(axis=-1))
        if not len(up):
            targets.append(own)
            continue
        breaks = np.flatnonzero(np.diff(up) > 1)  # the first span off the floor
        lift, land = int(up[0]), int(up[breaks[0]] if len(breaks) else up[-1])
        # 1 on the floor before, 0 from the landing (or the walk's last frame) on.
        done = min(land + 1, walk.n_frames - 1)
        weight = np.zeros(walk.n_frames)
        weight[:lift] = 1.0
        span = np.arange(lift, done)
        weight[span] = 1.0 - ease(Easing.MINIMUM_JERK, (span - lift + 1) / (done - lift + 1))
        turn = quat_multiply(start.rotation, quat_conjugate(own.rotation[0]))
        rigid = start.ankle + quat_apply(turn, own.ankle - own.ankle[0])
        toe_turn = quat_multiply(start.toe, quat_conjugate(own.toe[0]))
        targets.append(
            FootPlacement(
                own.ankle + weight[:, None] * (rigid - own.ankle),
                quat_slerp(own.rotation, quat_multiply(turn, own.rotation), weight),
                quat_slerp(own.toe, quat_multiply(toe_turn, own.toe), weight),
            )
        )
        moved[i] = weight > 0.0
    out = np.array(local, dtype=np.float64)
    k = np.flatnonzero(moved.any(axis=0))
    if len(k):
        left, right = (FootPlacement(*(f[k] for f in t)) for t in targets)
        legs = plant_feet(sk, roots[k], local[k], (left, right))
        for leg, frames in zip(LEGS, moved[:, k], strict=True):  # each leg where it moved
            j = sk.indices(list(leg))
            out[k[frames][:, None], j] = legs[frames][:, j]
    return Motion(sk, walk.fps, roots, out)


def _path_heading(
    arc: NDArray[np.float64], yaw: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Heading [rad] along a floor path: at distances ``(M,)`` [m] every 5 mm along it, the
    mean direction of its segments over :data:`TURN_LENGTH` of path about each point (a
    moving average, which spreads a corner's turn over that length), the window shortened
    near the ends so that they keep the first and last segments' directions.

    ``arc (K,)`` are the vertices' distances along the path [m], ``yaw (K - 1,)`` the
    segments' unwrapped directions [rad]."""
    length = float(arc[-1])
    fine = np.linspace(0.0, length, max(2, int(np.ceil(length / 0.005)) + 1))
    seg = np.clip(np.searchsorted(arc, fine, side="right") - 1, 0, len(yaw) - 1)
    direction = yaw[seg]
    area = np.concatenate(
        [[0.0], np.cumsum(0.5 * (direction[1:] + direction[:-1]) * np.diff(fine))]
    )
    half = np.minimum(0.5 * TURN_LENGTH, np.minimum(fine, length - fine))
    wide = half > 1e-9
    out = direction.copy()
    lo, hi = fine[wide] - half[wide], fine[wide] + half[wide]
    out[wide] = (np.interp(hi, fine, area) - np.interp(lo, fine, area)) / (hi - lo)
    return fine, out


def stature(skeleton: Skeleton) -> float:
    """Height [m] of the skeleton's rest pose, lowest to highest joint."""
    pos = skeleton.rest_positions()
    return float(pos[:, 2].max() - pos[:, 2].min())


def standing_pose(
    skeleton: Skeleton, xy: ArrayLike, heading: float, fps: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Root ``(3,)`` and local rotations ``(J, 4)`` of the worker standing at ``xy``, facing
    ``heading`` [rad]: the first frame of a walk setting off that way."""
    xy = np.asarray(xy, dtype=np.float64)
    ahead = xy + np.array([np.cos(heading), np.sin(heading)])
    walk = walk_along(skeleton, np.stack([xy, ahead]), fps)
    return walk.root_positions[0].copy(), walk.local_rotations[0].copy()


def transition(
    body: BodyModel,
    start: tuple[NDArray[np.float64], NDArray[np.float64]],
    end: tuple[NDArray[np.float64], NDArray[np.float64]],
    duration: float,
    fps: float,
    floor: float,
) -> Motion:
    """From pose ``start`` to pose ``end`` (root (3,), local (J, 4)) in ``duration`` [s].

    Slerp of every joint with minimum-jerk timing; the root's horizontal
    position by the same timing and its height set so the lowest capsule
    point stays on ``floor`` (the two end poses are kept as given). The legs
    are then corrected to keep the feet planted, each foot stepping once from
    its start to its end placement (:mod:`vhuman.task.feet`), and the body
    lifted where that would take it under the floor, unless the corrected
    legs let a foot slide, leave their joint ranges or jump
    (then the interpolated poses are kept, and the feet slide).
    The first frame is ``start``, the last ``end``.
    """
    n = max(2, round(duration * fps) + 1)
    s = ease(Easing.MINIMUM_JERK, np.linspace(0.0, 1.0, n))
    (r0, q0), (r1, q1) = start, end
    joints = q0.shape[0]
    local = np.empty((n, joints, 4))
    for j in range(joints):
        key = Rotation.from_quat(_xyzw(np.stack([q0[j], q1[j]])))
        local[:, j] = _wxyz(Slerp([0.0, 1.0], key)(s).as_quat())
    roots = r0 + s[:, None] * (r1 - r0)
    grounded = ground(body, roots, local, floor)[:, 2]
    # The ends kept exact: the grounded height plus the ends' own offsets from it, blended.
    roots[:, 2] = grounded + (1.0 - s) * (r0[2] - grounded[0]) + s * (r1[2] - grounded[-1])
    local[0], local[-1] = q0, q1
    stepped = _stepped(body, roots, local, s, floor)
    if stepped is not None:
        roots, local = stepped
    return Motion(body.skeleton, fps, roots, local)


def _stepped(
    body: BodyModel,
    roots: NDArray[np.float64],
    local: NDArray[np.float64],
    s: NDArray[np.float64],
    floor: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """The interpolated poses ``roots (N, 3)``, ``local (N, J, 4)`` (timing ``s (N,)``) with
    the feet planted and stepped one after the other (:func:`planted`), the pelvis leaning
    :data:`WEIGHT_SHIFT` of the way over the standing foot at mid-step; None where that
    fails its checks."""
    start, end = (foot_placements(body.skeleton, roots[i], local[i]) for i in (0, -1))
    feet, lift = stepped_feet(start, end, len(roots))
    # The pelvis leans over the standing foot while the other is off the floor.
    mid = 0.5 * (feet[0].ankle + feet[1].ankle)
    leaned = roots.copy()
    for i in (0, 1):
        leaned[:, :2] += WEIGHT_SHIFT * lift[i][:, None] * (feet[1 - i].ankle - mid)[:, :2]
    return planted(body, leaned, local, feet, lift, s, floor)


def planted(
    body: BodyModel,
    roots: NDArray[np.float64],
    local: NDArray[np.float64],
    feet: tuple[FootPlacement, FootPlacement],
    lift: NDArray[np.float64],
    s: NDArray[np.float64],
    floor: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """Poses ``roots (N, 3)``, ``local (N, J, 4)`` with the legs corrected to put the feet at
    ``feet`` (:func:`vhuman.task.feet.plant_feet`), the body lifted where the corrected legs
    would take it under the floor; None where that fails its checks.

    Parameters
    ----------
    body : BodyModel
    roots : ndarray, shape (N, 3)
        Root positions [m].
    local : ndarray, shape (N, J, 4)
        Local rotations; the first and last frames are kept as given.
    feet : pair of FootPlacement
        Left and right foot placements per frame, each field ``(N, ...)``.
    lift : ndarray, shape (2, N)
        Each foot's step lift profile (1 at mid-step, 0 when planted): a stepping foot is
        raised where its lowest point would pass under :data:`STEP_CLEARANCE` times it.
    s : ndarray, shape (N,)
        Progress from the first frame (0) to the last (1): the depth under the floor the
        body may reach is that of the ends, blended by it.
    floor : float
        Floor height [m].

    Returns
    -------
    (ndarray, ndarray) or None
        Roots and local rotations; None where a foot point on the floor slides
        (:func:`vhuman.skeleton.footskate.foot_slide`), a leg joint leaves its range (more
        than at the ends) or a joint turns by more than :data:`MOST_JOINT_STEP` in a frame.
    """
    sk = body.skeleton
    first = plant_feet(sk, roots, local, feet)
    low = _foot_bottoms(body, roots, first) - floor
    raise_by = np.maximum(STEP_CLEARANCE * lift - low, 0.0)
    feet = (
        feet[0]._replace(ankle=feet[0].ankle + np.outer(raise_by[0], [0.0, 0.0, 1.0])),
        feet[1]._replace(ankle=feet[1].ankle + np.outer(raise_by[1], [0.0, 0.0, 1.0])),
    )
    out = plant_feet(sk, roots, local, feet)
    out[0], out[-1] = local[0], local[-1]
    # Lifted where the corrected legs would take the body under the floor (deeper than the
    # ends themselves, blended).
    sunk = floor - lowest_points(body, roots, out)
    allowed = (1.0 - s) * sunk[0] + s * sunk[-1]
    lifted = roots.copy()
    lifted[:, 2] += np.maximum(sunk - allowed, 0.0)
    slide = foot_slide(Motion(sk, 1.0, lifted, out), floor).max()
    legs = sk.indices([name for leg in LEGS for name in leg])
    excess = sk.limit_violation(out)[:, legs]
    beyond = float((excess - np.maximum(excess[0], excess[-1])).max())
    step = float(quat_angle(out[:-1], out[1:]).max())
    if slide > SLIDE_TOLERANCE or beyond > LIMIT_TOLERANCE or step > MOST_JOINT_STEP:
        return None
    return lifted, out


def lowest_points(
    body: BodyModel, roots: NDArray[np.float64], local: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Height ``(N,)`` [m] of the lowest capsule point of each pose."""
    a, b = body.capsules(roots, local)
    return np.asarray((np.minimum(a[..., 2], b[..., 2]) - body.radii).min(axis=-1))


def hold(
    pose: tuple[NDArray[np.float64], NDArray[np.float64]],
    seconds: float,
    fps: float,
    skeleton: Skeleton,
) -> Motion:
    """The pose kept still for ``seconds`` (at least two frames)."""
    n = max(2, round(seconds * fps) + 1)
    root, local = pose
    return Motion(skeleton, fps, np.tile(root, (n, 1)), np.tile(local, (n, 1, 1)))


def arm_path(
    body: BodyModel,
    pose: tuple[NDArray[np.float64], NDArray[np.float64]],
    side: str,
    positions: NDArray[np.float64],
    rotations: NDArray[np.float64],
    approach: NDArray[np.float64],
    fps: float,
    previous: NDArray[np.float64] | None = None,
    max_step: float = np.radians(20.0),
) -> tuple[Motion, NDArray[np.float64]]:
    """The arm following hand frames ``positions (N, 3)``, ``rotations (N, 4)`` from ``pose``.

    The rest of the body keeps ``pose``. Each frame's candidates are the
    closed-form IK solutions over 72 swivel angles within the joint ranges;
    the chain through them with the least total joint travel, no joint angle
    changing by more than ``max_step`` [rad] between frames (nor from
    ``previous (7,)`` at the first), is found by dynamic programming.

    Returns
    -------
    Motion, ndarray of shape (N, 7)
        The motion and the arm's joint angles per frame [rad].

    Raises
    ------
    ArmUnreachableError
        Naming the first frame the chain cannot reach and its hand position.
    """
    root, local = pose
    settings = [
        ArmSetting(body, root, local, Side.parse(side), Target(p, r, approach))
        for p, r in zip(positions, rotations, strict=True)
    ]
    cost = None
    back: list[NDArray[np.intp]] = []
    cands: list[NDArray[np.float64]] = []
    for k, setting in enumerate(settings):
        q = arm_solutions(setting)
        if len(q):
            if cost is None:
                jump = (
                    np.zeros((1, len(q)))
                    if previous is None
                    else np.abs(q - previous).max(axis=-1)[None]
                )
                prior = np.zeros(1)
            else:
                jump = np.abs(cands[-1][:, None, :] - q[None, :, :]).max(axis=-1)
                prior = cost
            total = prior[:, None] + jump
            total[jump > max_step] = np.inf
            back.append(np.argmin(total, axis=0))
            cost = total.min(axis=0)
        if not len(q) or not np.isfinite(cost).any():  # type: ignore[union-attr]
            p = positions[k]
            raise ArmUnreachableError(
                f"no continuous arm motion within the joint ranges brings the hand to "
                f"({p[0]:.3f}, {p[1]:.3f}, {p[2]:.3f}) m (frame {k} of {len(positions)})",
                k,
            )
        cands.append(q)
    assert cost is not None
    pick = [int(np.argmin(cost))]
    for k in range(len(cands) - 1, 0, -1):
        pick.append(int(back[k][pick[-1]]))
    qs = np.array([c[i] for c, i in zip(cands, pick[::-1], strict=True)])
    frames = np.array([s.poses(q) for s, q in zip(settings, qs, strict=True)])
    n = len(frames)
    return Motion(body.skeleton, fps, np.tile(root, (n, 1)), frames), qs


def arm_solutions(setting: ArmSetting, tolerance: float = 1e-3) -> NDArray[np.float64]:
    """Closed-form arm solutions ``(K, 7)`` over 72 swivel angles whose whole-body pose keeps
    every joint of the skeleton within its range (``tolerance`` [rad] of rounding)."""
    q, ok = setting.ik_seeds()
    q = q[ok]
    if not len(q):
        return q
    excess = setting.skeleton.limit_violation(setting.poses(q)).max(axis=-1)
    return q[excess <= tolerance]


def hand_line(
    p0: NDArray[np.float64],
    r0: NDArray[np.float64],
    p1: NDArray[np.float64],
    r1: NDArray[np.float64],
    duration: float,
    fps: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Hand frames from ``(p0, r0)`` to ``(p1, r1)``: minimum-jerk straight line and slerp."""
    n = max(2, round(duration * fps) + 1)
    s = ease(Easing.MINIMUM_JERK, np.linspace(0.0, 1.0, n))
    key = Rotation.from_quat(_xyzw(np.stack([r0, r1])))
    return p0 + s[:, None] * (p1 - p0), _wxyz(Slerp([0.0, 1.0], key)(s).as_quat())


def hand_arc(
    p0: NDArray[np.float64],
    r0: NDArray[np.float64],
    centre: NDArray[np.float64],
    axis: NDArray[np.float64],
    angle: float,
    duration: float,
    fps: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Hand frames turned with a wheel: ``(p0, r0)`` rotated about ``axis`` through ``centre``
    by a minimum-jerk angle from 0 to ``angle`` [rad]."""
    n = max(2, round(duration * fps) + 1)
    phi = angle * ease(Easing.MINIMUM_JERK, np.linspace(0.0, 1.0, n))
    turn = Rotation.from_rotvec(phi[:, None] * axis)
    pos = centre + turn.apply(p0 - centre)
    rot = (turn * Rotation.from_quat(_xyzw(r0))).as_quat()
    return pos, _wxyz(rot)
