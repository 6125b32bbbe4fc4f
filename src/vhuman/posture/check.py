"""The full-body check every reported posture passes: contacts, joint limits, static balance.

A posture is *valid* when

- no body capsule penetrates any solid, the floor or the ceiling deeper than
  the collision world's tolerance (exact capsule–solid queries with coal,
  :meth:`vhuman.scene.CollisionWorld.check` over every segment);
- every joint lies within the skeleton's limits
  (:meth:`vhuman.skeleton.Skeleton.limit_violation`, up to ``limit_tolerance``);
- it is statically balanced: the horizontal projection of the whole-body
  centre of mass lies inside the support polygon, the convex hull of the
  body points resting on the floor or on top of a solid (the lowest line of
  each capsule within ``support_tolerance`` of a surface below it). The
  margin is the distance from the centre of mass to the nearest edge of that
  polygon, positive inside (the static stability criterion of
  McGhee R. B., Frank A. A., "On the stability properties of quadruped
  creeping gaits", Mathematical Biosciences 3, 1968).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.geometry import quat_apply
from vhuman.scene import BodyModel, CollisionReport, CollisionWorld

__all__ = [
    "Balance",
    "PostureCheck",
    "centre_of_mass",
    "check_posture",
    "lowest_line_points",
    "static_balance",
    "support_points",
]

_AXIS_SAMPLES = 7  # points along each capsule's lowest line


def centre_of_mass(
    body: BodyModel, root_position: ArrayLike, local_rotations: ArrayLike
) -> NDArray[np.float64]:
    """Whole-body centre of mass ``(..., 3)`` [m] from the skeleton's segment masses.

    Parameters
    ----------
    body : BodyModel
        Its skeleton's segments carry the masses [kg] and joint-local centres.
    root_position : array_like, shape (..., 3)
    local_rotations : array_like, shape (..., J, 4)
    """
    sk = body.skeleton
    segs = [sk.segments[j] for j in body.joints]  # type: ignore[index]
    mass = np.array([s.mass for s in segs])  # type: ignore[union-attr]
    com = np.array([s.com for s in segs])  # type: ignore[union-attr]
    pos, rot = body.joint_frames(root_position, local_rotations)
    p = pos[..., body.joints, :] + quat_apply(rot[..., body.joints, :], com)  # (..., S, 3)
    return np.einsum("...si,s->...i", p, mass) / mass.sum()


def lowest_line_points(
    body: BodyModel, root_positions: ArrayLike, local_rotations: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The lowest line of each capsule (its axis lowered by the radius), sampled at 7 points.

    Parameters
    ----------
    body : BodyModel
        S capsules.
    root_positions : array_like, shape (..., 3)
        Root positions [m] of poses of any batch shape.
    local_rotations : array_like, shape (..., J, 4)
        Their local rotations.

    Returns
    -------
    points : ndarray, shape (..., S·7, 3)
        The sampled points [m], capsule by capsule.
    radius : ndarray, shape (S·7,)
        The radius [m] of each point's capsule.
    """
    a, b = body.capsules(root_positions, local_rotations)  # (..., S, 3)
    t = np.linspace(0.0, 1.0, _AXIS_SAMPLES)
    pts = a[..., :, None, :] + t[:, None] * (b - a)[..., :, None, :]
    pts[..., 2] -= body.radii[:, None]
    return pts.reshape(*pts.shape[:-3], -1, 3), np.repeat(body.radii, _AXIS_SAMPLES)


def support_points(
    world: CollisionWorld,
    body: BodyModel,
    root_position: ArrayLike,
    local_rotations: ArrayLike,
    *,
    tolerance: float = 0.04,
) -> NDArray[np.float64]:
    """Body points ``(K, 3)`` [m] that rest on the floor or on top of a solid.

    The lowest line of each capsule (its axis lowered by the radius), sampled
    at 7 points, counts where it lies within ``tolerance`` above the floor or
    above a solid surface; each such point stands for a contact patch, the
    square of half side the capsule's radius around it (a capsule is a coarse
    stand-in for a foot, a knee or a back resting on a surface).
    """
    pts, radius = lowest_line_points(body, root_position, local_rotations)
    below = pts - np.array([0.0, 0.0, tolerance])
    scene = world.scene
    on_floor = pts[:, 2] - scene.floor <= tolerance
    on_solid = np.zeros(len(pts), dtype=bool)
    for k in world.objects_near(below.min(axis=0), pts.max(axis=0)):
        on_solid |= scene.objects[k].contains(below)
    keep = on_floor | on_solid
    patch = np.array([[0, 0, 0], [1, 1, 0], [1, -1, 0], [-1, 1, 0], [-1, -1, 0]], float)
    return (pts[keep, None, :] + radius[keep, None, None] * patch).reshape(-1, 3)


@dataclass(frozen=True)
class Balance:
    """Static balance of a posture.

    Attributes
    ----------
    com : ndarray, shape (3,)
        Whole-body centre of mass [m].
    support : ndarray, shape (K, 2)
        Vertices of the support polygon (convex hull, counter-clockwise) [m].
    margin : float
        Distance [m] from the centre of mass's projection to the polygon's
        nearest edge: positive inside, negative outside (−inf without support).
    """

    com: NDArray[np.float64]
    support: NDArray[np.float64]
    margin: float

    @property
    def stable(self) -> bool:
        """Whether the centre of mass lies over the support polygon."""
        return bool(self.margin >= 0.0)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures (metres)."""
        return {
            "com_m": self.com.tolist(),
            "support_polygon_m": self.support.tolist(),
            "balance_margin_m": self.margin if np.isfinite(self.margin) else None,
            "stable": self.stable,
        }


def _hull(points: NDArray[np.float64]) -> NDArray[np.float64]:
    """Convex hull ``(H, 2)`` of 2D points, counter-clockwise (monotone chain; Andrew 1979)."""
    p = np.unique(np.round(points, 6), axis=0)
    if len(p) < 3:
        return p

    def half(seq: NDArray[np.float64]) -> list[NDArray[np.float64]]:
        out: list[NDArray[np.float64]] = []
        for q in seq:
            while len(out) >= 2:
                u, v = out[-1] - out[-2], q - out[-2]
                if u[0] * v[1] - u[1] * v[0] > 1e-12:
                    break
                out.pop()
            out.append(q)
        return out

    lower, upper = half(p), half(p[::-1])
    return np.array(lower[:-1] + upper[:-1])


def polygon_margin(point: ArrayLike, polygon: ArrayLike) -> float:
    """Signed distance [m] from a 2D point to a convex polygon's boundary, positive inside.

    ``polygon`` ``(H, 2)`` is counter-clockwise; with fewer than 3 vertices
    (a point or a segment) the point is never inside and the result is minus
    its distance.
    """
    x = np.asarray(point, dtype=np.float64)
    poly = np.asarray(polygon, dtype=np.float64).reshape(-1, 2)
    if len(poly) == 0:
        return -np.inf
    nxt = np.roll(poly, -1, axis=0)
    e = nxt - poly
    # Distance to each edge (to its nearest point, Ericson 2005, Section 5.1.2), the nearest.
    length2 = np.sum(e * e, axis=-1)
    t = np.clip(np.sum((x - poly) * e, axis=-1) / np.where(length2 > 0.0, length2, 1.0), 0.0, 1.0)
    dist = float(np.linalg.norm(x - (poly + t[:, None] * e), axis=-1).min())
    if len(poly) < 3:
        return -dist
    cross = e[:, 0] * (x[1] - poly[:, 1]) - e[:, 1] * (x[0] - poly[:, 0])
    return dist if bool(np.all(cross >= 0.0)) else -dist


def static_balance(
    world: CollisionWorld,
    body: BodyModel,
    root_position: ArrayLike,
    local_rotations: ArrayLike,
    *,
    tolerance: float = 0.04,
) -> Balance:
    """Centre of mass, support polygon and balance margin of one pose (see module notes)."""
    com = centre_of_mass(body, root_position, local_rotations)
    pts = support_points(world, body, root_position, local_rotations, tolerance=tolerance)
    hull = _hull(pts[:, :2]) if len(pts) else np.zeros((0, 2))
    return Balance(com, hull, float(polygon_margin(com[:2], hull)))


@dataclass(frozen=True)
class PostureCheck:
    """The full-body check of one posture.

    Attributes
    ----------
    collision : CollisionReport
        Every segment against every solid, the floor and the ceiling.
    limit_violation : float
        Largest excess of a joint angle over its limits [rad] (0 inside).
    limit_joint : str
        The joint at that excess ("" when none).
    balance : Balance
    limit_tolerance : float
        Excess [rad] still counted as within the limits (rounding).
    """

    collision: CollisionReport
    limit_violation: float
    limit_joint: str
    balance: Balance
    limit_tolerance: float

    @property
    def within_limits(self) -> bool:
        """Whether every joint respects its limits."""
        return self.limit_violation <= self.limit_tolerance

    @property
    def valid(self) -> bool:
        """No contact, within the joint limits and statically balanced."""
        return (not self.collision.in_collision) and self.within_limits and self.balance.stable

    def failures(self) -> list[str]:
        """What fails, in words (empty when valid)."""
        out = []
        if self.collision.in_collision:
            c = self.collision.contacts[0]
            out.append(
                f"{self.collision.n_contacts} contact(s), deepest {c.segment} in {c.solid} "
                f"by {1e3 * c.depth:.1f} mm"
            )
        if not self.within_limits:
            out.append(
                f"{self.limit_joint} {np.degrees(self.limit_violation):.1f} deg beyond its limits"
            )
        if not self.balance.stable:
            out.append(f"centre of mass {1e3 * -self.balance.margin:.0f} mm outside the support")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures."""
        return {
            "valid": self.valid,
            "collisions": self.collision.n_contacts,
            "max_penetration_m": self.collision.max_penetration,
            "joint_limit_violation_deg": float(np.degrees(self.limit_violation)),
            "joint_limit_joint": self.limit_joint,
            **self.balance.to_dict(),
            "failures": self.failures(),
        }


def check_posture(
    world: CollisionWorld,
    body: BodyModel,
    root_position: ArrayLike,
    local_rotations: ArrayLike,
    *,
    limit_tolerance: float = 1e-3,
    support_tolerance: float = 0.04,
) -> PostureCheck:
    """Check one whole-body pose: contacts, joint limits and static balance.

    Parameters
    ----------
    world : CollisionWorld
        The scene registered with coal.
    body : BodyModel
    root_position : array_like, shape (3,)
        World pelvis position [m].
    local_rotations : array_like, shape (J, 4)
    limit_tolerance : float
        Joint-limit excess [rad] ignored as rounding.
    support_tolerance : float
        Height [m] above a surface within which a body point supports the body.

    Returns
    -------
    PostureCheck
    """
    rot = np.asarray(local_rotations, dtype=np.float64)
    report = world.check(body, root_position, rot)
    excess = body.skeleton.limit_violation(rot)
    j = int(np.argmax(excess))
    worst = float(excess[j])
    balance = static_balance(world, body, root_position, rot, tolerance=support_tolerance)
    return PostureCheck(
        collision=report,
        limit_violation=worst,
        limit_joint=body.skeleton.names[j] if worst > 0.0 else "",
        balance=balance,
        limit_tolerance=float(limit_tolerance),
    )
