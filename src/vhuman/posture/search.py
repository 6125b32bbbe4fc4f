"""Placement candidates of library postures: every heading, every posture, any approach.

For each library posture the working shoulder is put on shells around the
target (distances a share of the arm's reach, 24 directions around it) and the
body turned to every heading (``heading_step`` apart over the full 360°). A
candidate is kept only when its pelvis and chest lie in the free space
connected to the worker's entry (:class:`vhuman.scene.ReachableSpace`), so it is
never inside or behind a solid. Candidates are ranked by the placement cost of
Luo et al. (:mod:`vhuman.posture.placement`: collision ratio of the trunk on the
occupancy grid + α·D_effective + β·V_comfort) plus γ times the misalignment of
the shoulder-to-target direction with the approach direction,
``(1 − a·u) / 2`` for the unit approach ``a`` and shoulder-to-target ``u``.
:func:`diverse` then picks candidates that differ in posture, position or
heading, so that a budget of arm attempts is not spent on near-copies.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.geometry import euler_to_quat, quat_multiply, quat_to_rotmat, rotmat_to_quat
from vhuman.posture.library import PostureLibrary
from vhuman.posture.placement import PlacementWeights, comfort_value, effective_distance
from vhuman.reaching import Side
from vhuman.scene import BodyModel, CollisionWorld, ReachableSpace
from vhuman.skeleton import forward_kinematics

__all__ = [
    "CLUSTER_ANGLE",
    "CLUSTER_DISTANCE",
    "Candidate",
    "arm_solutions",
    "diverse",
    "near",
    "placement_candidates",
]

APPROACH_WEIGHT = 0.05
"""γ: weight of the approach misalignment in the placement cost."""
CLUSTER_DISTANCE = 0.15
"""Pelvis distance [m] over the floor within which two placements of a posture are near."""
CLUSTER_ANGLE = float(np.radians(30.0))
"""Heading difference [rad] within which two placements of a posture are near."""


@dataclass(frozen=True, eq=False)
class Candidate:
    """A library posture placed in the world.

    Attributes
    ----------
    index : int
        Library index of the posture.
    posture : str
    yaw : float
        Heading [rad] (0 = facing +x).
    root_position : ndarray, shape (3,)
        World pelvis position [m].
    local_rotations : ndarray, shape (J, 4)
        The posture with the heading in its root.
    shoulder_distance : float
        Working shoulder to target [m].
    collision_ratio, cost : float
        Trunk volume share in solids (grid) and the placement cost.
    """

    index: int
    posture: str
    yaw: float
    root_position: NDArray[np.float64]
    local_rotations: NDArray[np.float64]
    shoulder_distance: float
    collision_ratio: float
    cost: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "posture": self.posture,
            "pelvis_m": self.root_position.tolist(),
            "yaw_deg": float(np.degrees(self.yaw)),
            "shoulder_target_distance_m": self.shoulder_distance,
            "collision_ratio": self.collision_ratio,
            "cost": self.cost,
        }


def _turned(
    point: NDArray[np.float64], root: NDArray[np.float64], c: NDArray, s: NDArray
) -> NDArray[np.float64]:
    """World positions ``(B, 3)`` of a posture-frame offset from the pelvis, turned by yaws
    of cosines ``c`` and sines ``s`` ``(B,)``, for pelvis positions ``root (B, 3)``."""
    x = c * point[0] - s * point[1]
    y = s * point[0] + c * point[1]
    return root + np.column_stack([x, y, np.full(len(x), point[2])])


def placement_candidates(
    world: CollisionWorld,
    body: BodyModel,
    library: PostureLibrary,
    space: ReachableSpace,
    side: Side,
    *,
    reach: float,
    arm_length: float,
    distances: Sequence[float] = (0.5, 0.6, 0.7, 0.8, 0.9),
    heading_step: float = np.radians(15.0),
    n_directions: int = 24,
    weights: PlacementWeights | None = None,
    exclude: Sequence[str] = (),
) -> list[Candidate]:
    """All connected placements of every posture, cheapest first.

    Parameters
    ----------
    world : CollisionWorld
    body : BodyModel
    library : PostureLibrary
    space : ReachableSpace
        Free space connected to the entry.
    side : Side
        The working arm.
    reach : float
        The arm's reach [m] (shoulder to hand, straight).
    arm_length : float
        L_arm [m] of the D_effective term.
    distances : sequence of float
        Shoulder–target distances as shares of ``reach``.
    heading_step : float
        Heading step [rad] over the full turn.
    n_directions : int
        Directions of the shoulder around the target.
    weights : PlacementWeights, optional
    exclude : sequence of str
        Segments left out of the collision ratio (the working arm).

    Returns
    -------
    list of Candidate
        Sorted by (collision ratio > 0, cost).
    """
    w = PlacementWeights() if weights is None else weights
    scene = world.scene
    t = scene.target.position
    a = scene.target.approach
    sk = library.skeleton
    s = "r" if side is Side.RIGHT else "l"
    sh_j, neck_j, chest_j = sk.indices([f"{s}_shoulder", "neck", "chest"])
    keep = [n for n in body.names if n not in set(exclude)]
    yaws = np.arange(0.0, 2.0 * np.pi - 1e-9, heading_step)
    phis = np.linspace(0.0, 2.0 * np.pi, n_directions, endpoint=False)
    d3 = reach * np.asarray(distances, dtype=np.float64)
    l_s, sigma = w.comfort_distance * arm_length, w.sigma * arm_length
    out: list[Candidate] = []
    for m, posture in enumerate(library):
        root0, rot0 = posture.root_position, posture.local_rotations
        gpos, _ = forward_kinematics(sk.parents, sk.offsets, root0, rot0)
        local = gpos[[sh_j, neck_j, chest_j]] - root0  # (3, 3) posture frame, about the pelvis
        z_sh = root0[2] + local[0, 2] + scene.floor
        dz = z_sh - t[2]
        ok_d = d3 > abs(dz) + 1e-6
        if not ok_d.any():
            continue
        r_h = np.sqrt(d3[ok_d] ** 2 - dz**2)
        # Grid (yaw, direction, distance).
        yy, pp, rr = np.meshgrid(yaws, phis, r_h, indexing="ij")
        yy, pp, rr = yy.ravel(), pp.ravel(), rr.ravel()
        c, sn = np.cos(yy), np.sin(yy)
        sh_xy = t[:2] + rr[:, None] * np.column_stack([np.cos(pp), np.sin(pp)])
        off = np.column_stack(
            [c * local[0, 0] - sn * local[0, 1], sn * local[0, 0] + c * local[0, 1]]
        )
        root = np.column_stack([sh_xy - off, np.full(len(yy), root0[2] + scene.floor)])

        neck = _turned(local[1], root, c, sn)
        conn = space.connected(root) & space.connected(_turned(local[2], root, c, sn))
        if not conn.any():
            continue
        idx = np.flatnonzero(conn)
        yaw = yy[idx]
        rots = np.repeat(rot0[None], len(idx), axis=0)
        qz = euler_to_quat(np.column_stack([0 * yaw, 0 * yaw, yaw]), "xyz")
        rots[:, 0] = quat_multiply(qz, rot0[0])
        ratio = world.collision_ratio(body, root[idx], rots, segments=keep)
        d_eff = effective_distance(np.linalg.norm(neck[idx] - t, axis=1), l_s, sigma)
        sh = np.column_stack([sh_xy[idx], np.full(len(idx), z_sh)])
        u = (t - sh) / np.linalg.norm(t - sh, axis=1, keepdims=True)
        misalign = 0.5 * (1.0 - u @ a)
        v = float(comfort_value(posture.reba_a))
        cost = ratio + w.alpha * d_eff + w.beta * v + APPROACH_WEIGHT * misalign
        dist = np.linalg.norm(t - sh, axis=1)
        for b in range(len(idx)):
            out.append(
                Candidate(
                    m,
                    posture.name,
                    float(yaw[b]),
                    root[idx[b]],
                    rots[b],
                    float(dist[b]),
                    float(ratio[b]),
                    float(cost[b]),
                )
            )
    out.sort(key=lambda cd: (cd.collision_ratio > 0.0, cd.cost))
    return out


def near(
    candidates: Sequence[Candidate],
    others: Sequence[Candidate],
    *,
    distance: float = CLUSTER_DISTANCE,
    angle: float = CLUSTER_ANGLE,
) -> NDArray[np.bool_]:
    """Which ``candidates`` ``(N,)`` are placements of the same posture as one of ``others``
    with the pelvis within ``distance`` [m] over the floor and the heading within ``angle``
    [rad] (in the same cluster as :func:`diverse` forms)."""
    out = np.zeros(len(candidates), dtype=bool)
    if not len(candidates) or not len(others):
        return out
    index = np.array([c.index for c in candidates])
    xy = np.array([c.root_position[:2] for c in candidates])  # (N, 2)
    yaw = np.array([c.yaw for c in candidates])
    for o in others:
        gap = np.hypot(xy[:, 0] - o.root_position[0], xy[:, 1] - o.root_position[1])
        turn = np.abs(np.angle(np.exp(1j * (yaw - o.yaw))))
        out |= (index == o.index) & (gap < distance) & (turn < angle)
    return out


def diverse(
    candidates: Sequence[Candidate],
    *,
    distance: float = CLUSTER_DISTANCE,
    angle: float = CLUSTER_ANGLE,
    limit: int | None = None,
) -> list[Candidate]:
    """One candidate per cluster, the postures taken in turn.

    A candidate within ``distance`` [m] and ``angle`` [rad] of an earlier one
    of the same posture belongs to its cluster and is skipped. The clusters of
    each posture keep their order; the result takes the first cluster of
    every posture (postures ordered by their cheapest), then the second, and so
    on, so that no posture uses up the budget of arm attempts; at most ``limit``.
    """
    per: dict[int, list[Candidate]] = {}
    where: dict[int, list[tuple[float, float, float]]] = {}
    cap = None if limit is None else int(limit)
    for cd in candidates:
        same = per.setdefault(cd.index, [])
        if cap is not None and len(same) >= cap:
            continue
        pts = where.setdefault(cd.index, [])
        if pts:
            a = np.asarray(pts)
            gap = np.hypot(a[:, 0] - cd.root_position[0], a[:, 1] - cd.root_position[1])
            turn = np.abs(np.angle(np.exp(1j * (a[:, 2] - cd.yaw))))
            if np.any((gap < distance) & (turn < angle)):
                continue
        same.append(cd)
        pts.append((float(cd.root_position[0]), float(cd.root_position[1]), cd.yaw))
    lists = [v for v in per.values() if v]
    out: list[Candidate] = []
    for r in range(max((len(v) for v in lists), default=0)):
        out += [v[r] for v in lists if r < len(v)]
    return out if cap is None else out[:cap]


def arm_solutions(
    world: CollisionWorld,
    body: BodyModel,
    candidates: Sequence[Candidate],
    side: Side,
    *,
    n_swivel: int = 72,
) -> NDArray[np.int64]:
    """Per candidate, how many swivel angles give a usable closed-form arm ``(B,)``.

    Usable: the IK solution (:func:`vhuman.reaching.solve_arm`, batched over
    candidates and ``n_swivel`` swivel angles) is within the arm model's
    limits and the skeleton's joint limits, and the arm is free of the scene
    on the occupancy grid. A cheap forecast of the arm attempt, used to try
    first the placements where the hand can reach the target at all.
    """
    from vhuman.posture.arm import arm_local_rotations
    from vhuman.reaching import ArmModel, solve_arm

    out = np.zeros(len(candidates), dtype=np.int64)
    if not len(candidates):
        return out
    sk = body.skeleton
    s = "r" if side is Side.RIGHT else "l"
    joints = sk.indices([f"{s}_shoulder", f"{s}_elbow", f"{s}_wrist"])
    parent = sk.parents[joints[0]]
    model = ArmModel.from_skeleton(sk, side)
    target = world.scene.target
    roots = np.array([c.root_position for c in candidates])
    rots = np.array([c.local_rotations for c in candidates])
    pos, grot = forward_kinematics(sk.parents, sk.offsets, roots, rots)
    r_sh = quat_to_rotmat(grot[:, parent])  # (B, 3, 3)
    r_t = r_sh.transpose(0, 2, 1)
    p = np.einsum("bij,bj->bi", r_t, target.position - pos[:, joints[0]])
    r_hand = r_t @ quat_to_rotmat(target.rotation)
    wrist = p + model.hand * r_hand[:, :, 2]
    lo, hi = model.reach
    dist = np.linalg.norm(wrist, axis=-1)
    ok = np.flatnonzero((dist <= hi * (1 - 1e-9)) & (dist >= lo * (1 + 1e-9)))
    if not len(ok):
        return out
    phi = np.linspace(-np.pi, np.pi, n_swivel, endpoint=False)
    sol = solve_arm(model, p[ok, None, :], rotmat_to_quat(r_hand[ok])[:, None, :], phi[None, :])
    b, k = np.nonzero(sol.feasible)
    if not len(b):
        return out
    poses = rots[ok[b]].copy()  # (N, J, 4)
    poses[:, joints] = arm_local_rotations(model, sol.q[b, k])
    good = sk.limit_violation(poses)[:, joints].max(axis=-1) <= 1e-3
    arm = [sk.names[j] for j in joints]
    free = world.collision_ratio(body, roots[ok[b]], poses, segments=arm) <= 0.0
    np.add.at(out, ok[b], (good & free).astype(np.int64))
    return out
