"""Greedy placement of library postures in the free space around the target (Luo et al., 2.2).

For every library posture m and rigid placement t (a position on the floor and
a yaw), the cost

    cost(m, t) = collision_ratio(m, t) + α·D_effective(m, t) + β·V_comfort(m)

is evaluated for all placements of a posture at once on the scene's occupancy
grid; the placements are ranked by it.

- collision_ratio: share of the body volume inside solids (the working arm,
  posed later, is left out);
- D_effective = 1 − exp(−(L − L_S)² / (2σ²)), L the neck–target distance,
  L_S = ``comfort_distance`` · L_arm and σ = ``sigma`` · L_arm: 0 at the
  comfortable distance, tending to 1 far from it (the normalised Gaussian of
  Luo et al.);
- V_comfort = (REBA Table A − 1) / 8: the trunk/neck/legs score in [0, 1].

Candidate positions for the neck: the horizontal centres of the octree's free
cells around the target (Luo et al.'s free space) and a polar grid on the floor
on the side the hand comes from; each faces the target, turned by a few yaw
offsets.

References
----------
Luo M. et al., "Modelling of virtual human maintenance postures in narrow ship
spaces", section 2.2, eqs. for D_effective and the matching objective.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry import RigidTransform, euler_to_quat, quat_multiply
from vhuman.posture.library import PostureLibrary
from vhuman.scene import BodyModel, CollisionWorld, FreeSpace
from vhuman.skeleton import forward_kinematics

__all__ = [
    "Placement",
    "PlacementWeights",
    "candidate_positions",
    "comfort_value",
    "effective_distance",
    "rank_placements",
]


@dataclass(frozen=True)
class PlacementWeights:
    """Weights and distances of the placement cost.

    Parameters
    ----------
    alpha : float
        Weight α of D_effective (≥ 0).
    beta : float
        Weight β of V_comfort (≥ 0).
    comfort_distance : float
        L_S / L_arm: the comfortable neck–target distance as a share of the arm length.
    sigma : float
        σ / L_arm of the Gaussian (> 0).

    Notes
    -----
    The defaults weigh a whole step of D_effective or of V_comfort like 5 % of
    the body volume in collision, so that collision-free placements win and
    reach and comfort order them; L_S = 0.75 L_arm is the neck–hand distance
    of an arm with the elbow near its comfortable 80° and the hand ahead of the
    shoulder.
    """

    alpha: float = 0.05
    beta: float = 0.05
    comfort_distance: float = 0.75
    sigma: float = 0.5

    def __post_init__(self) -> None:
        for name in ("alpha", "beta", "comfort_distance", "sigma"):
            v = getattr(self, name)
            if not (np.isfinite(v) and v >= 0.0) or (name == "sigma" and v == 0.0):
                raise InputError(f"PlacementWeights.{name} must be a finite number >= 0, got {v}")

    def to_dict(self) -> dict[str, float]:
        """The weights."""
        return {
            "alpha": self.alpha,
            "beta": self.beta,
            "comfort_distance_over_arm": self.comfort_distance,
            "sigma_over_arm": self.sigma,
        }


def effective_distance(distance: ArrayLike, comfortable: float, sigma: float) -> NDArray:
    """D_effective = 1 − exp(−(L − L_S)² / (2σ²)) of neck–target distances L [m], in [0, 1)."""
    d = np.asarray(distance, dtype=np.float64)
    return 1.0 - np.exp(-((d - comfortable) ** 2) / (2.0 * sigma**2))


def comfort_value(reba_a: ArrayLike) -> NDArray[np.float64]:
    """V_comfort = (REBA Table A − 1) / 8, in [0, 1]."""
    return (np.asarray(reba_a, dtype=np.float64) - 1.0) / 8.0


@dataclass(frozen=True)
class Placement:
    """A library posture placed in the world, with its cost terms.

    Attributes
    ----------
    posture : str
        Library posture name.
    index : int
        Its index in the library.
    root_position : ndarray, shape (3,)
        World pelvis position [m].
    local_rotations : ndarray, shape (J, 4)
        The posture's local rotations with the yaw in the root.
    yaw : float
        Heading [rad] (0 = facing +x).
    neck_distance : float
        Neck–target distance L [m].
    collision_ratio, d_effective, v_comfort, cost : float
    """

    posture: str
    index: int
    root_position: NDArray[np.float64]
    local_rotations: NDArray[np.float64]
    yaw: float
    neck_distance: float
    collision_ratio: float
    d_effective: float
    v_comfort: float
    cost: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "posture": self.posture,
            "pelvis_m": self.root_position.tolist(),
            "yaw_deg": float(np.degrees(self.yaw)),
            "neck_target_distance_m": self.neck_distance,
            "collision_ratio": self.collision_ratio,
            "d_effective": self.d_effective,
            "v_comfort": self.v_comfort,
            "cost": self.cost,
        }


def candidate_positions(
    target: ArrayLike,
    approach: ArrayLike,
    space: FreeSpace | None,
    *,
    radii: Sequence[float] = tuple(np.arange(0.1, 1.01, 0.05)),
    spread: float = np.radians(60.0),
    n_angles: int = 9,
    cell: float = 0.04,
) -> NDArray[np.float64]:
    """Horizontal neck positions ``(n, 2)`` [m] around the target.

    The polar grid lies on the side the hand comes from (``−approach``, within
    ±``spread``); the octree's free-cell centres are added; positions closer
    than ``cell`` are merged.
    """
    t = np.asarray(target, dtype=np.float64)
    a = np.asarray(approach, dtype=np.float64)[:2]
    back = np.arctan2(-a[1], -a[0]) if np.linalg.norm(a) > 1e-9 else 0.0
    ang = back + np.linspace(-spread, spread, n_angles)
    r = np.asarray(radii, dtype=np.float64)
    polar = t[:2] + np.stack(
        [np.outer(r, np.cos(ang)).ravel(), np.outer(r, np.sin(ang)).ravel()], axis=-1
    )
    pts = [polar]
    if space is not None and np.any(space.state == 0):
        pts.append(space.candidates[:, :2])
    allp = np.concatenate(pts)
    _, keep = np.unique(np.round(allp / cell).astype(np.int64), axis=0, return_index=True)
    return allp[np.sort(keep)]


def rank_placements(
    world: CollisionWorld,
    body: BodyModel,
    library: PostureLibrary,
    positions: ArrayLike,
    *,
    arm_length: float,
    weights: PlacementWeights | None = None,
    yaw_offsets: Sequence[float] = tuple(np.radians([-20.0, -10.0, 0.0, 10.0, 20.0])),
    exclude: Sequence[str] = (),
) -> list[Placement]:
    """Every library posture at every candidate neck position and yaw, cheapest first.

    Parameters
    ----------
    world : CollisionWorld
        The scene (its target is what the neck distance is measured to).
    body : BodyModel
        The body (its sample points give the collision ratio).
    library : PostureLibrary
    positions : array_like, shape (n, 2)
        Horizontal neck positions [m] (see :func:`candidate_positions`).
    arm_length : float
        L_arm [m].
    weights : PlacementWeights, optional
    yaw_offsets : sequence of float
        Turns [rad] added to the heading that faces the target from the neck.
    exclude : sequence of str
        Body segments left out of the collision ratio (the working arm).

    Returns
    -------
    list of Placement
        All ``M × n × len(yaw_offsets)`` placements, by increasing cost.
    """
    w = PlacementWeights() if weights is None else weights
    pos = np.asarray(positions, dtype=np.float64).reshape(-1, 2)
    if not np.all(np.isfinite(pos)):
        raise InputError("candidate positions contain NaN or infinite values")
    scene = world.scene
    target = scene.target.position
    sk = library.skeleton
    neck_j = sk.index("neck")
    keep = [n for n in body.names if n not in set(exclude)]
    l_s, sigma = w.comfort_distance * arm_length, w.sigma * arm_length
    offsets = np.asarray(yaw_offsets, dtype=np.float64)
    out: list[Placement] = []
    for m, posture in enumerate(library):
        root, rot = posture.root_position, posture.local_rotations
        gpos, _ = forward_kinematics(sk.parents, sk.offsets, root, rot)
        neck = gpos[neck_j]  # posture frame
        # Heading that points the posture's +x from the neck to the target.
        d = target[:2] - pos
        yaw = (np.arctan2(d[:, 1], d[:, 0])[:, None] + offsets).ravel()  # (B,)
        c, s = np.cos(yaw), np.sin(yaw)
        neck_xy = np.repeat(pos, len(offsets), axis=0)
        rotated = np.stack([c * neck[0] - s * neck[1], s * neck[0] + c * neck[1]], -1)
        trans = np.zeros((len(yaw), 3))
        trans[:, :2] = neck_xy - rotated
        trans[:, 2] = scene.floor
        qz = np.stack([np.cos(yaw / 2), 0 * yaw, 0 * yaw, np.sin(yaw / 2)], -1)
        ratio = world.collision_ratio(
            body, root, rot, placement=RigidTransform(qz, trans), segments=keep
        )
        neck_world = np.column_stack([neck_xy, np.full(len(yaw), neck[2] + scene.floor)])
        dist = np.linalg.norm(neck_world - target, axis=-1)
        d_eff = effective_distance(dist, l_s, sigma)
        v = float(comfort_value(posture.reba_a))
        cost = ratio + w.alpha * d_eff + w.beta * v
        for b in np.argsort(cost, kind="stable")[:200]:
            q_root = quat_multiply(euler_to_quat([0.0, 0.0, yaw[b]], "xyz"), rot[0])
            local = rot.copy()
            local[0] = q_root
            world_root = trans[b] + np.array(
                [c[b] * root[0] - s[b] * root[1], s[b] * root[0] + c[b] * root[1], root[2]]
            )
            out.append(
                Placement(
                    posture=posture.name,
                    index=m,
                    root_position=world_root,
                    local_rotations=local,
                    yaw=float(yaw[b]),
                    neck_distance=float(dist[b]),
                    collision_ratio=float(ratio[b]),
                    d_effective=float(d_eff[b]),
                    v_comfort=v,
                    cost=float(cost[b]),
                )
            )
    out.sort(key=lambda p: p.cost)
    return out
