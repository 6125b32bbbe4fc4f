"""Free space connected to the worker's entry: voxels, clearance and flood fill.

A box of voxels around the target, from the floor up, is marked occupied
where a voxel meets a solid (exact cube–solid tests with coal, only for the
voxels in each object's bounding box: the objects' boxes are the broad phase).
The Euclidean distance transform of the free voxels gives each one's
clearance; the free voxels with at least ``clearance`` metres to every solid
are split into 6-connected components (flood fill). The worker's body stands
in the component of the entry point, or, without one, the component with the
most room within 1.2 m of the target (horizontally):
a placement whose pelvis or chest lies elsewhere is inside or behind a solid.
The target is *enclosed* when no free voxel near it is connected to that
component, whatever the clearance.

References
----------
Maurer C. R., Qi R., Raghavan V., "A linear time algorithm for computing exact
Euclidean distance transforms of binary images in arbitrary dimensions",
IEEE TPAMI 25(2), 2003 (the distance transform of :mod:`scipy.ndimage`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.scene.collision import CollisionWorld

__all__ = ["ReachableSpace", "reachable_space"]

_MAX_VOXELS = 20_000_000


@dataclass(frozen=True, eq=False)
class ReachableSpace:
    """Voxels around the target: occupancy, clearance and connected components.

    Attributes
    ----------
    origin : ndarray, shape (3,)
        Lowest corner of voxel (0, 0, 0) [m].
    spacing : float
        Voxel side [m].
    occupied : ndarray of bool, shape (nx, ny, nz)
        Voxels meeting a solid.
    clearance : ndarray of float, shape (nx, ny, nz)
        Distance [m] from each voxel centre to the nearest occupied voxel centre (0 when occupied).
    labels : ndarray of int, shape (nx, ny, nz)
        Components of the voxels with clearance ≥ ``body_clearance`` (0: none).
    free_labels : ndarray of int, shape (nx, ny, nz)
        Components of all free voxels (0: occupied).
    entry_label : int
        The worker's component in ``labels`` (0 when there is none).
    body_clearance : float
        Clearance [m] of the voxels the worker's trunk may occupy.
    """

    origin: NDArray[np.float64]
    spacing: float
    occupied: NDArray[np.bool_]
    clearance: NDArray[np.float64]
    labels: NDArray[np.int32]
    free_labels: NDArray[np.int32]
    entry_label: int
    body_clearance: float

    def _cells(self, points: ArrayLike) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
        p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        i = np.floor((p - self.origin) / self.spacing).astype(np.intp)
        shape = np.array(self.occupied.shape)
        inside = np.all((i >= 0) & (i < shape), axis=1)
        return np.clip(i, 0, shape - 1), inside

    def connected(self, points: ArrayLike) -> NDArray[np.bool_]:
        """Whether world points ``(..., 3)`` lie in the worker's component.

        Points above the voxel box count as connected (the box holds the floor
        region the body moves in); points beside or below it do not.
        """
        p = np.asarray(points, dtype=np.float64)
        i, inside = self._cells(p)
        above = (p.reshape(-1, 3)[:, 2] >= self.origin[2]) & ~inside
        top = np.array(self.occupied.shape) - 1
        above &= np.all((i[:, :2] > 0) & (i[:, :2] < top[:2]), axis=1)
        ok = self.labels[i[:, 0], i[:, 1], i[:, 2]] == self.entry_label
        return ((ok & inside) | above).reshape(p.shape[:-1]) & (self.entry_label > 0)

    def enclosed(self, point: ArrayLike, radius: float = 0.1) -> bool:
        """Whether the free voxels within ``radius`` [m] of ``point`` are all cut off from the
        worker's component (False when no free voxel lies that near: the point may be
        reached by touching)."""
        if self.entry_label == 0:
            return True
        c = np.asarray(point, dtype=np.float64)
        r = int(np.ceil(radius / self.spacing))
        i, _ = self._cells(c)
        lo = np.maximum(i[0] - r, 0)
        hi = np.minimum(i[0] + r + 1, np.array(self.occupied.shape))
        block = self.free_labels[lo[0] : hi[0], lo[1] : hi[1], lo[2] : hi[2]]
        near = np.unique(block[block > 0])
        if not len(near):
            return False
        mine = np.unique(self.free_labels[self.labels == self.entry_label])
        return not bool(np.isin(near, mine).any())

    def to_dict(self) -> dict[str, Any]:
        """Summary figures."""
        return {
            "origin_m": self.origin.tolist(),
            "spacing_m": self.spacing,
            "shape": list(self.occupied.shape),
            "occupied_voxels": int(self.occupied.sum()),
            "entry_voxels": int(np.sum(self.labels == self.entry_label)) if self.entry_label else 0,
            "body_clearance_m": self.body_clearance,
        }


def reachable_space(
    world: CollisionWorld,
    *,
    centre: ArrayLike | None = None,
    half_width: float = 2.0,
    height: float = 2.2,
    spacing: float = 0.05,
    body_clearance: float = 0.06,
    entry: ArrayLike | None = None,
) -> ReachableSpace:
    """Voxelise the space around the target and flood-fill it from the entry.

    Parameters
    ----------
    world : CollisionWorld
    centre : array_like, shape (3,), optional
        Horizontal centre of the box (default the target).
    half_width : float
        Half the box's horizontal side [m].
    height : float
        Box height above the floor [m] (at least to 0.3 m above the target; up to
        the ceiling when there is one).
    spacing : float
        Voxel side [m].
    body_clearance : float
        Clearance [m] of the voxels the trunk may occupy.
    entry : array_like, shape (3,), optional
        A point where the worker comes in; default the component with the most
        voxels within 1.2 m of the target, horizontally.

    Raises
    ------
    InputError
        For sizes that are not finite and positive, or more than 20 million voxels.
    """
    from scipy import ndimage

    scene = world.scene
    for name, v in (
        ("half_width", half_width),
        ("height", height),
        ("spacing", spacing),
        ("body_clearance", body_clearance),
    ):
        if not (np.isfinite(v) and v > 0):
            raise InputError(f"{name} must be a finite number > 0 m, got {v!r}")
    t = scene.target.position
    c = t if centre is None else np.asarray(centre, dtype=np.float64)
    top = max(scene.floor + height, t[2] + 0.3)
    if scene.ceiling is not None:
        top = scene.ceiling
    lo = np.array([c[0] - half_width, c[1] - half_width, scene.floor])
    shape = np.ceil((np.array([c[0] + half_width, c[1] + half_width, top]) - lo) / spacing)
    shape = np.maximum(shape.astype(np.intp), 1)
    if int(np.prod(shape)) > _MAX_VOXELS:
        raise InputError(
            f"{tuple(shape)} voxels of {spacing} m exceed {_MAX_VOXELS}; use a larger spacing"
        )
    occupied = world.occupied_voxels(lo, spacing, tuple(int(s) for s in shape))
    clearance = ndimage.distance_transform_edt(~occupied, sampling=spacing)
    labels, _ = ndimage.label(clearance >= body_clearance)
    free_labels, _ = ndimage.label(~occupied)
    if entry is not None:
        i = np.floor((np.asarray(entry, dtype=np.float64) - lo) / spacing).astype(np.intp)
        if np.any(i < 0) or np.any(i >= shape):
            raise InputError(f"entry {entry!r} lies outside the voxel box around the target")
        entry_label = int(labels[tuple(i)])
    else:
        # The component with the most room within 1.2 m (horizontally) of the target.
        axes = [lo[d] + spacing * (np.arange(shape[d]) + 0.5) for d in range(2)]
        gx, gy = np.meshgrid(*axes, indexing="ij")
        near = np.hypot(gx - t[0], gy - t[1]) <= 1.2
        counts = np.bincount(labels[near].ravel(), minlength=1)
        counts[0] = 0
        entry_label = int(np.argmax(counts)) if counts.sum() else 0
    return ReachableSpace(
        lo,
        float(spacing),
        occupied,
        clearance,
        labels.astype(np.int32),
        free_labels.astype(np.int32),
        entry_label,
        float(body_clearance),
    )
