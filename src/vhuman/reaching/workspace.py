"""A grid of hand targets over an arm's reachable workspace, for measuring reaches.

Targets lie on a spherical grid about the shoulder of the standing body:
azimuth (0 straight ahead, positive across the body), elevation (0 at
shoulder height, positive up) and distance (fractions of the hand's longest
reach). Targets whose hand capsule would overlap the body are left out (they
are inside the body, not reach targets). The left arm's grid is the mirror
image of the right arm's through the sagittal plane.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.reaching.arm import ArmModel, Side
from vhuman.reaching.clearance import ArmBodyClearance, segment_distance
from vhuman.skeleton import Skeleton

__all__ = [
    "AZIMUTHS_DEG",
    "DISTANCE_FRACTIONS",
    "ELEVATIONS_DEG",
    "REGIONS",
    "WorkspaceTargets",
    "workspace_targets",
]

AZIMUTHS_DEG = (-150.0, -120.0, -90.0, -60.0, -30.0, 0.0, 30.0, 60.0)
"""Default azimuths [deg]: from behind and outward (−150°) to across the body (60°)."""

ELEVATIONS_DEG = (-75.0, -50.0, -25.0, 0.0, 25.0, 50.0, 75.0)
"""Default elevations above shoulder height [deg]."""

DISTANCE_FRACTIONS = (0.45, 0.65, 0.85)
"""Default hand distances from the shoulder, as fractions of the arm's longest reach."""

REGIONS = ("front", "across", "beside", "behind", "overhead", "low")
"""Region labels of :func:`workspace_targets`."""

_MAX_TARGETS = 100_000


@dataclass(frozen=True)
class WorkspaceTargets:
    """Hand targets of one arm.

    Attributes
    ----------
    side : Side
    positions : ndarray, shape (N, 3)
        Hand end targets in the world [m].
    regions : tuple of str, length N
        Each target's region (see :data:`REGIONS`).
    spherical : ndarray, shape (N, 3)
        Azimuth [deg], elevation [deg] and distance [m] from the shoulder,
        in the right arm's convention (positive azimuth across the body).
    """

    side: Side
    positions: NDArray[np.float64]
    regions: tuple[str, ...]
    spherical: NDArray[np.float64]

    def __len__(self) -> int:
        return len(self.regions)


def _region(azimuth: float, elevation: float) -> str:
    if elevation >= 50.0:
        return "overhead"
    if elevation <= -50.0:
        return "low"
    if azimuth > 15.0:
        return "across"
    if azimuth >= -45.0:
        return "front"
    if azimuth >= -105.0:
        return "beside"
    return "behind"


def workspace_targets(
    skeleton: Skeleton,
    side: Side | str = Side.RIGHT,
    *,
    azimuths_deg: ArrayLike = AZIMUTHS_DEG,
    elevations_deg: ArrayLike = ELEVATIONS_DEG,
    fractions: ArrayLike = DISTANCE_FRACTIONS,
) -> WorkspaceTargets:
    """Hand targets on a spherical grid about one shoulder of a standing body.

    Parameters
    ----------
    skeleton : Skeleton
        With the joints and capsules of :func:`vhuman.skeleton.standard_humanoid`.
    side : Side or {"right", "left"}
    azimuths_deg, elevations_deg : array_like, shape (A,), (E,)
        Grid angles [deg] (see the module), each within [−180, 180] and [−90, 90].
    fractions : array_like, shape (D,)
        Distances as fractions of the longest hand reach, in (0, 1].

    Returns
    -------
    WorkspaceTargets
        The ``A × E × D`` grid less the targets inside the body.

    Raises
    ------
    InputError
        For angles or fractions out of range, or more than 100,000 grid points.
    """
    arm = Side.parse(side)
    az = np.atleast_1d(np.asarray(azimuths_deg, dtype=np.float64))
    el = np.atleast_1d(np.asarray(elevations_deg, dtype=np.float64))
    fr = np.atleast_1d(np.asarray(fractions, dtype=np.float64))
    if not (np.all(np.abs(az) <= 180.0) and np.all(np.abs(el) <= 90.0)):
        raise InputError("azimuths_deg must lie in [-180, 180] and elevations_deg in [-90, 90]")
    if not np.all((fr > 0.0) & (fr <= 1.0)):
        raise InputError(f"fractions must lie in (0, 1], got {fr.tolist()}")
    if az.size * el.size * fr.size > _MAX_TARGETS:
        raise InputError(f"the grid must have at most {_MAX_TARGETS:,} points")
    model = ArmModel.from_skeleton(skeleton, arm)
    longest = model.upper_arm + model.forearm + model.hand
    a, e, f = (x.ravel() for x in np.meshgrid(np.radians(az), np.radians(el), fr, indexing="ij"))
    direction = np.stack([np.cos(e) * np.cos(a), np.cos(e) * np.sin(a), np.sin(e)], axis=-1)
    offset = direction * (f * longest)[:, None]
    if arm is Side.LEFT:
        offset = offset * np.array([1.0, -1.0, 1.0])
    s = "r" if arm is Side.RIGHT else "l"
    shoulder = skeleton.rest_positions()[skeleton.index(f"{s}_shoulder")]
    positions = shoulder + offset
    clearance = ArmBodyClearance.from_skeleton(skeleton, arm)
    gap = segment_distance(
        positions[:, None], positions[:, None], clearance.body_starts, clearance.body_ends
    )  # (N, K)
    outside = np.all(gap > clearance.body_radii + clearance.arm_radii[2], axis=1)
    outside &= positions[:, 2] > 0.0
    spherical = np.stack([np.degrees(a), np.degrees(e), f * longest], axis=-1)[outside]
    return WorkspaceTargets(
        side=arm,
        positions=positions[outside],
        regions=tuple(_region(x, y) for x, y, _ in spherical),
        spherical=spherical,
    )
