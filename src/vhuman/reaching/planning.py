"""Arm angles along a hand path that keep within the joint limits, out of the body, and slow.

Two strategies, tried in order for each reach:

1. **Hand path** (:func:`swivel_paths`): the hand follows its minimum-jerk
   path exactly and the swivel angle φ is chosen, at every frame, inside the
   feasible set of that hand pose (joint limits *and* no arm–body overlap),
   as near the predicted φ as continuity and a joint-speed bound allow: a
   shortest path over a φ grid (dynamic programming, as the redundancy
   resolution by the arm angle of Shimizu et al. 2008 sweeps its feasible
   intervals).
2. **Joint space** (:func:`joint_space_paths`): where no swivel path exists,
   or it would need joints faster than the bound, the seven angles move from
   the start posture to a feasible posture at the target by one
   minimum-jerk profile (Flash & Hogan 1985 applied per joint): limits hold on
   the straight joint-space line between two postures within them, and the
   peak speed is ``1.875 · |Δq| / duration``. The hand then leaves the
   straight line.

Where neither works the reach has no feasible plan and :func:`refusal` says why.

References
----------
Shimizu, M., Kakuya, H., Yoon, W.-K., Kitagaki, K., & Kosuge, K. (2008).
Analytical inverse kinematic computation for 7-DOF redundant manipulators with
joint limits and its application to redundancy resolution. IEEE Trans.
Robotics 24(5), 1131–1142.
Flash, T., & Hogan, N. (1985). The coordination of arm movements.
J. Neuroscience 5(7), 1688–1703.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from vhuman.reaching.arm import ArmModel, Side
from vhuman.reaching.audit import wrap_to_pi
from vhuman.reaching.clearance import ArmBodyClearance
from vhuman.reaching.swivel import limit_violation, solve_arm, swivel_angle

__all__ = [
    "MAX_JOINT_SPEED",
    "SWIVEL_GRID",
    "ArmPath",
    "BodyCapsules",
    "joint_space_paths",
    "predicted_paths",
    "refusal",
    "swivel_grid",
    "swivel_paths",
]

MAX_JOINT_SPEED = 8.0
"""Default bound on every arm angle's speed [rad/s]."""

SWIVEL_GRID = 72
"""φ samples per knot (every 5°) of :func:`swivel_paths` and :func:`joint_space_paths`."""

PLAN_MARGIN = 0.0
"""Capsule overlap [m] allowed while planning: none (the audit tolerates a few mm more)."""

_KNOT_SPACING = 3  # frames between the knots of the φ search; φ is linear in between
_HARD = 1e3  # cost per radian of limit violation, per metre·1e-3 of overlap, per rad/s too fast
_JUMP_WEIGHT = 3.0  # cost per radian of φ change between knots
_JUMP_CURVE = 0.3  # cost per radian² of φ change between knots: of paths that turn φ as far, the
# most even one is the cheapest (no exact ties left to rounding, so left and right agree)

_ARM_WORDS = {"shoulder": "upper arm", "elbow": "forearm", "wrist": "hand"}
_BODY_WORDS = {
    "pelvis": "pelvis",
    "spine": "abdomen",
    "chest": "chest",
    "neck": "neck",
    "head": "head",
    "l_hip": "left thigh",
    "r_hip": "right thigh",
}


class ArmPath(NamedTuple):
    """Arm angles of one reach and how they were found.

    Attributes
    ----------
    q : ndarray, shape (T, 7)
        Arm angles [rad].
    swivel : ndarray, shape (T,)
        Swivel angle φ [rad], the arm's own sign, continuous (not wrapped).
    ok : bool
        Within the limits, no arm–body overlap beyond :data:`PLAN_MARGIN` and
        no joint faster than the bound at every frame.
    penetration : float
        Largest arm–body overlap [m].
    speed : float
        Largest joint speed [rad/s] (wrapped differences).
    """

    q: NDArray[np.float64]
    swivel: NDArray[np.float64]
    ok: bool
    penetration: float
    speed: float


class BodyCapsules(NamedTuple):
    """Body capsule axes in the shoulder frame, frame by frame.

    Attributes
    ----------
    starts, ends : ndarray, shape (T, K, 3)
        End points [m] of the capsules of :class:`ArmBodyClearance` (its radii).
    """

    starts: NDArray[np.float64]
    ends: NDArray[np.float64]


def swivel_grid(model: ArmModel, n: int) -> NDArray[np.float64]:
    """``n`` evenly spaced φ [rad] from −π, in the arm's own sign (the left arm's are negated).

    Mirrored grids make a left reach the exact mirror image of the right one,
    ties of the searches included.
    """
    grid = -np.pi + 2.0 * np.pi * np.arange(n) / n
    return grid if model.side is Side.RIGHT else -grid


def _overlap(
    model: ArmModel, body: ArmBodyClearance | None, capsules: BodyCapsules | None, q: NDArray
) -> NDArray[np.float64]:
    """Largest arm–body overlap (...) [m] of arm angles (..., 7); −inf without a body.

    ``capsules`` broadcast against the leading shape of ``q`` (shape (..., K, 3)).
    """
    if body is None or capsules is None:
        return np.full(q.shape[:-1], -np.inf)
    pose = model.forward(q)
    depth = body.penetration(
        pose.shoulder,
        pose.elbow,
        pose.wrist,
        pose.hand,
        body_starts=capsules.starts,
        body_ends=capsules.ends,
    )
    return depth.max(axis=(-2, -1))


def _checked(
    model: ArmModel,
    body: ArmBodyClearance | None,
    capsules: BodyCapsules | None,
    q: NDArray[np.float64],
    swivel: NDArray[np.float64],
    fps: float,
    max_speed: float,
) -> list[ArmPath]:
    """Check arm angles (B, T, 7) with their φ (B, T) frame by frame, one ArmPath per reach."""
    pen = _overlap(model, body, capsules, q).max(axis=-1)  # (B,)
    step = np.abs(wrap_to_pi(np.diff(q, axis=1)))
    speed = step.max(axis=(1, 2)) * fps if step.size else np.zeros(q.shape[0])
    inside = np.all(model.within_limits(q), axis=-1)
    ok = inside & (pen <= PLAN_MARGIN) & (speed <= max_speed)
    return [
        ArmPath(q[b], swivel[b], bool(ok[b]), float(pen[b]), float(speed[b]))
        for b in range(q.shape[0])
    ]


def predicted_paths(
    model: ArmModel,
    hand: NDArray[np.float64],
    orientation: NDArray[np.float64],
    predicted: NDArray[np.float64],
    *,
    fps: float,
    body: ArmBodyClearance | None,
    capsules: BodyCapsules | None,
    max_speed: float = MAX_JOINT_SPEED,
) -> list[ArmPath]:
    """The arm angles of the predicted φ themselves, checked, for a batch of reaches.

    Parameters
    ----------
    hand : ndarray, shape (B, T, 3)
    orientation : ndarray, shape (B, T, 4)
    predicted : ndarray, shape (B, T)
    fps, body, capsules, max_speed
        As in :func:`swivel_paths`.

    Returns
    -------
    list of ArmPath
        One per reach; ``ok`` where no search is needed.
    """
    q = solve_arm(model, hand, orientation, predicted).q  # (B, T, 7)
    return _checked(model, body, capsules, q, np.unwrap(predicted, axis=-1), fps, max_speed)


SEARCH_CHUNK = 32
"""Reaches searched together by :func:`swivel_paths` (bounds the memory of its candidates)."""


def swivel_paths(
    model: ArmModel,
    hand: NDArray[np.float64],
    orientation: NDArray[np.float64],
    predicted: NDArray[np.float64],
    *,
    fps: float,
    body: ArmBodyClearance | None,
    capsules: BodyCapsules | None,
    start_swivel: NDArray[np.float64] | None = None,
    max_speed: float = MAX_JOINT_SPEED,
) -> list[ArmPath]:
    """The feasible φ sequences nearest the predictions along exact hand paths, batched.

    For each reach, a shortest path (dynamic programming) over knots every
    third frame (and the last), each with the predicted φ and
    :data:`SWIVEL_GRID` evenly spaced values: a node costs its distance to the
    prediction plus a heavy cost for leaving the joint limits or overlapping
    the body, an edge ``3 ×`` the change of φ plus ``0.3 ×`` its square and a heavy cost for joints
    faster than ``max_speed``. φ is linear between knots; the whole path is
    then checked frame by frame. The reaches are independent; they are
    searched together, :data:`SEARCH_CHUNK` at a time, as array operations
    over the reach axis, the joint steps of all edges between two knots
    joint by joint (:func:`_best_edges`).

    Parameters
    ----------
    model : ArmModel
    hand : ndarray, shape (B, T, 3)
        Hand end points, shoulder frame [m].
    orientation : ndarray, shape (B, T, 4)
        Hand orientations (w, x, y, z).
    predicted : ndarray, shape (B, T)
        Predicted φ [rad] (the arm's own sign).
    fps : float
        Frame rate [1/s].
    body : ArmBodyClearance or None
        The body to keep out of (its radii); None ignores collisions.
    capsules : BodyCapsules or None
        Its capsules at every frame, shoulder frame, shape (T, K, 3) (the
        same for every reach).
    start_swivel : ndarray, shape (B,), optional
        φ of the first frames, fixed (the start postures'); ``predicted``
        should start there too (:func:`vhuman.reaching.plan_reaches` shifts it).
    max_speed : float
        Joint-speed bound [rad/s].

    Returns
    -------
    list of ArmPath
        One per reach.
    """
    plans: list[ArmPath] = []
    for lo in range(0, predicted.shape[0], SEARCH_CHUNK):
        part = slice(lo, lo + SEARCH_CHUNK)
        first = None if start_swivel is None else start_swivel[part]
        phi = _search(
            model,
            hand[part],
            orientation[part],
            predicted[part],
            fps=fps,
            body=body,
            capsules=capsules,
            start_swivel=first,
            max_speed=max_speed,
        )
        q = solve_arm(model, hand[part], orientation[part], phi).q
        plans += _checked(model, body, capsules, q, phi, fps, max_speed)
    return plans


def _search(
    model: ArmModel,
    hand: NDArray[np.float64],
    orientation: NDArray[np.float64],
    predicted: NDArray[np.float64],
    *,
    fps: float,
    body: ArmBodyClearance | None,
    capsules: BodyCapsules | None,
    start_swivel: NDArray[np.float64] | None,
    max_speed: float,
) -> NDArray[np.float64]:
    """φ (B, T) [rad] of :func:`swivel_paths` for one chunk of reaches (arguments as there)."""
    b, n = predicted.shape
    knots = np.unique(np.append(np.arange(0, n, _KNOT_SPACING), n - 1))
    grid = swivel_grid(model, SWIVEL_GRID)
    first = predicted[:, knots].copy()  # (B, K)
    if start_swivel is not None:
        first[:, 0] = start_swivel
    cand = np.concatenate(
        [first[..., None], np.broadcast_to(grid, (b, knots.size, grid.size))], -1
    )  # (B, K, C)
    sol = solve_arm(model, hand[:, knots, None], orientation[:, knots, None], cand)  # (B, K, C, 7)
    assert sol.q.min() >= -np.pi, "_best_edges needs arm angles in [−π, π]"
    assert sol.q.max() <= np.pi, "_best_edges needs arm angles in [−π, π]"
    at_knots = None if capsules is None else BodyCapsules(*(c[knots, None] for c in capsules))
    overlap = np.maximum(_overlap(model, body, at_knots, sol.q) - PLAN_MARGIN, 0.0)
    node = _angle_gap(cand, first[..., None]) + _HARD * (limit_violation(sol.q) + 1e3 * overlap)
    if start_swivel is not None:
        node[:, 0, 1:] = np.inf
    dt = np.diff(knots) / fps
    total = node[:, 0]  # (B, C)
    back = np.zeros(cand.shape, dtype=np.intp)
    # The φ jump's cost (B, from, to): between grid values the same at every knot.
    jump = np.empty((b, cand.shape[-1], cand.shape[-1]))
    jump[:, 1:, 1:] = _jump_cost(_angle_gap(grid[None, :], grid[:, None]))
    for k in range(1, knots.size):
        jump[:, 0, :] = _jump_cost(_angle_gap(cand[:, k], cand[:, k - 1, :1]))
        jump[:, 1:, 0] = _jump_cost(_angle_gap(cand[:, k, :1], cand[:, k - 1, 1:]))
        back[:, k], least = _best_edges(
            total, jump, sol.q[:, k - 1], sol.q[:, k], dt[k - 1], max_speed
        )
        total = least + node[:, k]
    path = np.empty((b, knots.size), dtype=np.intp)
    path[:, -1] = np.argmin(total, axis=-1)
    for k in range(knots.size - 1, 0, -1):
        path[:, k - 1] = np.take_along_axis(back[:, k], path[:, k, None], axis=-1)[:, 0]
    # φ between knots: the prediction plus the knots' offsets from it, interpolated, so that
    # the prediction is kept exactly wherever the search keeps it.
    chosen = np.take_along_axis(cand, path[..., None], axis=-1)[..., 0]  # (B, K)
    offset = np.unwrap(wrap_to_pi(chosen - first), axis=-1)
    frames = np.arange(n)
    return np.unwrap(predicted, axis=-1) + np.stack([np.interp(frames, knots, o) for o in offset])


EDGE_BLOCK = 8
"""Reaches whose edge costs :func:`_best_edges` forms together (arrays that stay in cache)."""


def _best_edges(
    total: NDArray[np.float64],
    jump: NDArray[np.float64],
    q_from: NDArray[np.float64],
    q_to: NDArray[np.float64],
    dt: float,
    max_speed: float,
) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """The least-cost edge into each candidate of a knot and the path cost through it.

    An edge costs the path so far (``total`` of its source) plus its φ jump
    plus ``_HARD ×`` the largest joint speed in excess of ``0.8 · max_speed``;
    every edge is costed. The joint steps are formed joint by joint over all
    (from, to) pairs of :data:`EDGE_BLOCK` reaches at a time, in place.

    The arm angles must lie in [−π, π] (as those of :func:`solve_arm` do;
    :func:`_search` checks it once per chunk of reaches, not here, in the
    loop over knots): then a step ``d`` has ``|d| ≤ 2π`` and its wrapped
    magnitude ``|wrap_to_pi(d)|`` is ``min(|d|, 2π − |d|)``. Outside that
    range a step of more than 2π would get a negative magnitude, and its edge
    too low a cost.

    Parameters
    ----------
    total : ndarray, shape (B, C)
        Least path cost to each candidate of the first knot.
    jump : ndarray, shape (B, C, C)
        Cost of the φ jump of each edge (from, to).
    q_from, q_to : ndarray, shape (B, C, 7)
        Arm angles [rad] of the candidates at the two knots, in [−π, π].
    dt : float
        Time between the knots [s].
    max_speed : float
        Joint-speed bound [rad/s].

    Returns
    -------
    source : ndarray of int, shape (B, C)
        The least edge's source into each candidate of the second knot (the
        first of equal ones).
    cost : ndarray, shape (B, C)
        The path cost through it.
    """
    n, c = total.shape
    joints_from, joints_to = (np.moveaxis(q, -1, 0).copy() for q in (q_from, q_to))  # (7, B, C)
    source, cost = np.empty((n, c), dtype=np.intp), np.empty((n, c))
    largest, step, other = (np.empty((min(n, EDGE_BLOCK), c, c)) for _ in range(3))
    for lo in range(0, n, EDGE_BLOCK):
        part = slice(lo, min(lo + EDGE_BLOCK, n))
        m = part.stop - lo
        big, d, e = largest[:m], step[:m], other[:m]
        big.fill(0.0)
        for a_from, a_to in zip(joints_from[:, part], joints_to[:, part], strict=True):
            np.subtract(a_to[:, None, :], a_from[:, :, None], out=d)
            np.abs(d, out=d)
            np.subtract(2.0 * np.pi, d, out=e)
            np.minimum(d, e, out=d)
            np.maximum(big, d, out=big)
        # fast = max(speed − 0.8 · max_speed, 0); edge = (total + jump) + _HARD · fast
        np.divide(big, dt, out=big)
        np.subtract(big, 0.8 * max_speed, out=big)
        np.maximum(big, 0.0, out=big)
        np.multiply(big, _HARD, out=big)
        np.add(total[part, :, None], jump[part], out=d)
        np.add(d, big, out=d)
        source[part] = np.argmin(d, axis=1)
        cost[part] = np.take_along_axis(d, source[part, None, :], axis=1)[:, 0]
    return source, cost


def joint_space_paths(
    model: ArmModel,
    q_start: NDArray[np.float64],
    hand: NDArray[np.float64],
    orientation: NDArray[np.float64],
    predicted: NDArray[np.float64],
    s: NDArray[np.float64],
    *,
    fps: float,
    body: ArmBodyClearance | None,
    capsules: BodyCapsules | None,
    max_speed: float = MAX_JOINT_SPEED,
) -> list[ArmPath]:
    """Minimum jerk in joint space from start postures to feasible postures at the targets.

    For each reach, every φ of :data:`SWIVEL_GRID` (and the predicted one) at
    the target gives a candidate end posture (solved for all reaches
    together); those within the limits and out of the body are joined to
    ``q_start`` by ``q(t) = q_start + (q_end − q_start) · s(t)``, and the
    candidate whose whole path stays out of the body is kept, the nearest the
    predicted φ among those within the speed bound (else the slowest).

    Parameters
    ----------
    model : ArmModel
    q_start : ndarray, shape (B, 7)
        Start arm angles within the limits [rad].
    hand : ndarray, shape (B, 3)
        Hand end targets, shoulder frame [m].
    orientation : ndarray, shape (B, 4)
        Hand orientations at the targets.
    predicted : ndarray, shape (B,)
        Predicted φ at the targets [rad].
    s : ndarray, shape (T,)
        Time law from 0 to 1 (minimum jerk).
    fps : float
    body, capsules, max_speed
        As in :func:`swivel_paths`.

    Returns
    -------
    list of ArmPath
        One per reach, ``ok`` False where no candidate is feasible; then the
        least bad one.
    """
    grid = swivel_grid(model, SWIVEL_GRID)
    cand = np.concatenate(
        [predicted[:, None], np.broadcast_to(grid, (predicted.size, grid.size))], 1
    )
    ends = solve_arm(model, hand[:, None], orientation[:, None], cand).q  # (B, C, 7)
    chosen = np.empty((predicted.size, s.size, 7))
    for b, q_end in enumerate(ends):
        delta = q_end - q_start[b]
        path = q_start[b] + delta[:, None, :] * s[:, None]  # (C, T, 7)
        overlap = _overlap(model, body, capsules, path).max(axis=-1)  # (C,)
        feasible = model.within_limits(q_end) & (overlap <= PLAN_MARGIN)
        peak = np.abs(np.diff(path, axis=1)).max(axis=(1, 2)) * fps
        cost = (
            _angle_gap(cand[b], predicted[b])
            + _HARD * ~feasible
            + _HARD * np.maximum(peak - max_speed, 0.0)
            + _HARD * 1e3 * np.maximum(overlap, 0.0)
            + _HARD * limit_violation(q_end)
        )
        chosen[b] = path[np.argmin(cost)]
    pose = model.forward(chosen)
    phi = swivel_angle(pose.shoulder, pose.elbow, pose.wrist)
    phi = np.unwrap(np.where(np.isfinite(phi), phi, 0.0), axis=-1)
    return _checked(model, body, capsules, chosen, phi, fps, max_speed)


def refusal(
    model: ArmModel,
    hand: NDArray[np.float64],
    orientation: NDArray[np.float64],
    *,
    body: ArmBodyClearance | None,
    capsules: BodyCapsules | None,
    best: ArmPath,
    max_speed: float,
) -> str:
    """Why a reach has no feasible plan, in words (the target pose first, then the path).

    Parameters
    ----------
    model : ArmModel
    hand, orientation : ndarray, shapes (3,), (4,)
        The target hand pose, shoulder frame.
    body, capsules
        As in :func:`swivel_paths` (the last frame's capsules are used).
    best : ArmPath
        The least bad plan found.
    max_speed : float
        Joint-speed bound [rad/s].
    """
    grid = swivel_grid(model, 4 * SWIVEL_GRID)
    sol = solve_arm(model, hand, orientation, grid)
    if not sol.feasible.any():
        least = float(np.degrees(limit_violation(sol.q).min()))
        return (
            f"no swivel angle keeps the {model.side.value} arm within its joint limits at the "
            f"target (at best {least:.1f}° outside)"
        )
    if body is not None and capsules is not None:
        pose = model.forward(sol.q[sol.feasible])
        depth = body.penetration(
            pose.shoulder,
            pose.elbow,
            pose.wrist,
            pose.hand,
            body_starts=capsules.starts[-1],
            body_ends=capsules.ends[-1],
        )  # (C, 3, K)
        worst = depth.max(axis=(1, 2))
        if worst.min() > PLAN_MARGIN:
            k = int(np.argmin(worst))
            a, b = np.unravel_index(int(np.argmax(depth[k])), depth.shape[1:])
            return (
                f"every swivel angle within the joint limits puts the "
                f"{_words(body, int(a), int(b))} at the target (at least "
                f"{1e3 * worst[k]:.0f} mm deep)"
            )
    if best.penetration > PLAN_MARGIN or not np.all(model.within_limits(best.q)):
        return (
            "the target posture is feasible but no path to it from the start posture keeps "
            "the arm within its joint limits and out of the body"
        )
    return (
        f"the reach needs joint speeds up to {best.speed:.1f} rad/s, above the "
        f"{max_speed:g} rad/s allowed; a longer duration lowers them"
    )


def _words(body: ArmBodyClearance, arm: int, other: int) -> str:
    part = body.arm_names[arm].split("_", 1)[1]
    return f"{_ARM_WORDS[part]} into the {_BODY_WORDS[body.body_names[other]]}"


def _jump_cost(gap: NDArray[np.float64]) -> NDArray[np.float64]:
    """Cost of a change ``gap`` [rad] of φ between two knots: linear, plus a small square."""
    return _JUMP_WEIGHT * gap + _JUMP_CURVE * gap**2


def _angle_gap(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """|a − b| on the circle, in [0, π]."""
    d = np.mod(a - b, 2.0 * np.pi)
    return np.minimum(d, 2.0 * np.pi - d)
