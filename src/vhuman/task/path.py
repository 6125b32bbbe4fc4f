"""Walking paths on a scene's free floor: a grid inflated by the body's radius, Dijkstra, smoothing.

The floor is sampled on a square grid; a cell is blocked where a solid of the
scene occupies its column between ankle and head height (the body's
standing height, below the ceiling), and free cells are those farther than
the body's radius from any blocked one (the configuration-space obstacles
of a disc, Lozano-Pérez 1983). The shortest 8-connected path (Dijkstra 1959)
is shortened by line-of-sight shortcuts and its corners are rounded by
Chaikin's corner cutting (Chaikin 1974) wherever the rounded curve stays on
free cells.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import ndimage
from scipy.sparse import coo_matrix
from scipy.sparse.csgraph import dijkstra

from vhuman.errors import InputError
from vhuman.scene import Scene

__all__ = ["FloorGrid", "PathBlockedError", "floor_grid", "plan_path"]

MAX_CELLS = 2_000_000
"""Most cells of a floor grid."""


class PathBlockedError(Exception):
    """No walking path joins the two floor points; the message says why."""


@dataclass(frozen=True)
class FloorGrid:
    """Free floor cells of a scene for a walking body.

    Attributes
    ----------
    origin : ndarray, shape (2,)
        Centre of cell (0, 0) [m].
    spacing : float
        Cell side [m].
    free : ndarray of bool, shape (nx, ny)
        Cells where the body's vertical axis may stand.
    radius : float
        The body radius the obstacles were inflated by [m].
    """

    origin: NDArray[np.float64]
    spacing: float
    free: NDArray[np.bool_]
    radius: float

    def cell(self, xy: ArrayLike) -> NDArray[np.intp]:
        """Grid indices ``(..., 2)`` of floor points ``(..., 2)`` [m] (may lie outside)."""
        return np.rint((np.asarray(xy, dtype=np.float64) - self.origin) / self.spacing).astype(
            np.intp
        )

    def is_free(self, xy: ArrayLike) -> NDArray[np.bool_]:
        """Whether floor points ``(..., 2)`` [m] lie on free cells (outside the grid: False)."""
        ij = self.cell(xy)
        inside = np.all((ij >= 0) & (ij < np.array(self.free.shape)), axis=-1)
        i = np.clip(ij[..., 0], 0, self.free.shape[0] - 1)
        j = np.clip(ij[..., 1], 0, self.free.shape[1] - 1)
        return inside & self.free[i, j]

    def segment_free(self, a: ArrayLike, b: ArrayLike) -> bool:
        """Whether the straight segment from ``a`` to ``b`` (2,) stays on free cells."""
        a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
        n = max(2, int(np.ceil(np.linalg.norm(b - a) / (0.5 * self.spacing))) + 1)
        s = np.linspace(0.0, 1.0, n)[:, None]
        return bool(self.is_free(a + s * (b - a)).all())


def floor_grid(
    scene: Scene, radius: float, *, height: float = 1.8, spacing: float = 0.05
) -> FloorGrid:
    """The free floor of ``scene`` for a body of ``radius`` [m] and standing ``height`` [m].

    Parameters
    ----------
    scene : Scene
    radius : float
        Half the body's width at the shoulders, the disc the path keeps clear [m].
    height : float
        Head height of the standing body above the floor [m]; columns are
        checked from 5 cm above the floor to it (or to the ceiling).
    spacing : float
        Cell side [m].

    Raises
    ------
    InputError
        For a radius or spacing that is not a positive number, or a grid above
        :data:`MAX_CELLS` cells.
    """
    if not (np.isfinite(radius) and radius >= 0.0 and np.isfinite(spacing) and spacing > 0.0):
        raise InputError(f"radius must be >= 0 m and spacing > 0 m, got {radius}, {spacing}")
    lo, hi = scene.bounds()
    origin = lo[:2]
    shape = np.ceil((hi[:2] - lo[:2]) / spacing).astype(int) + 1
    if int(np.prod(shape)) > MAX_CELLS:
        raise InputError(
            f"the scene's floor needs {int(np.prod(shape))} cells at {spacing} m; "
            f"at most {MAX_CELLS} (use a coarser spacing)"
        )
    top = scene.floor + height
    if scene.ceiling is not None:
        top = min(top, scene.ceiling - 1e-3)
    zs = np.linspace(scene.floor + 0.05, top, 16)
    gx = origin[0] + spacing * np.arange(shape[0])
    gy = origin[1] + spacing * np.arange(shape[1])
    xx, yy = np.meshgrid(gx, gy, indexing="ij")
    blocked = np.zeros(tuple(shape), dtype=bool)
    for z in zs:
        pts = np.stack([xx, yy, np.full_like(xx, z)], axis=-1)
        blocked |= scene.contains(pts.reshape(-1, 3)).reshape(xx.shape)
    # Distance from each cell centre to the nearest blocked cell's edge; outside the grid blocked.
    padded = np.pad(~blocked, 1, constant_values=False)
    dist = ndimage.distance_transform_edt(padded)[1:-1, 1:-1] * spacing - 0.5 * spacing
    return FloorGrid(origin, float(spacing), dist > radius, float(radius))


def _dijkstra_cells(grid: FloorGrid, a: NDArray[np.intp], b: NDArray[np.intp]) -> NDArray:
    """Cell indices ``(K, 2)`` of the shortest 8-connected free path from cell ``a`` to ``b``."""
    nx, ny = grid.free.shape
    idx = np.arange(nx * ny).reshape(nx, ny)
    rows, cols, weights = [], [], []
    for di, dj in ((1, 0), (0, 1), (1, 1), (1, -1)):
        i0, i1, j0, j1 = max(0, -di), nx - max(0, di), max(0, -dj), ny - max(0, dj)
        both = grid.free[i0:i1, j0:j1] & grid.free[i0 + di : i1 + di, j0 + dj : j1 + dj]
        s = idx[i0:i1, j0:j1][both]
        d = idx[i0 + di : i1 + di, j0 + dj : j1 + dj][both]
        rows += [s, d]
        cols += [d, s]
        weights += [np.full(2 * len(s), np.hypot(di, dj))]
    graph = coo_matrix(
        (np.concatenate(weights), (np.concatenate(rows), np.concatenate(cols))),
        shape=(nx * ny, nx * ny),
    ).tocsr()
    start, goal = int(idx[a[0], a[1]]), int(idx[b[0], b[1]])
    dist, pred = dijkstra(graph, indices=start, return_predecessors=True)
    if not np.isfinite(dist[goal]):
        raise PathBlockedError("no free floor path joins them")
    cells = [goal]
    while cells[-1] != start:
        cells.append(int(pred[cells[-1]]))
    return np.array(np.unravel_index(cells[::-1], (nx, ny))).T


def _shortcut(grid: FloorGrid, pts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Greedy line-of-sight shortcuts of a polyline ``(K, 2)``."""
    out = [pts[0]]
    i = 0
    while i < len(pts) - 1:
        j = len(pts) - 1
        while j > i + 1 and not grid.segment_free(pts[i], pts[j]):
            j -= 1
        out.append(pts[j])
        i = j
    return np.array(out)


def _chaikin(grid: FloorGrid, pts: NDArray[np.float64], rounds: int = 4) -> NDArray[np.float64]:
    """Corners cut at quarter points (Chaikin 1974); a corner whose cut leaves the free
    cells is kept as it is."""
    for _ in range(rounds):
        out = [pts[0]]
        for k in range(1, len(pts) - 1):
            q = 0.75 * pts[k] + 0.25 * pts[k - 1]
            r = 0.75 * pts[k] + 0.25 * pts[k + 1]
            if grid.segment_free(out[-1], q) and grid.segment_free(q, r):
                out += [q, r]
            else:
                out.append(pts[k])
        out.append(pts[-1])
        pts = np.array(out)
    return pts


def plan_path(
    grid: FloorGrid,
    start: ArrayLike,
    goal: ArrayLike,
    *,
    goal_heading: float | None = None,
    lead: float = 0.4,
) -> NDArray[np.float64]:
    """A smooth free walking path ``(K, 2)`` [m] from ``start`` to ``goal`` on the floor.

    With ``goal_heading`` [rad], the path arrives at ``goal`` straight along it
    for ``lead`` metres where that is free.

    Raises
    ------
    PathBlockedError
        When ``start`` or ``goal`` lies within the body's radius of a solid, or
        no free path joins them.
    """
    a, b = np.asarray(start, dtype=np.float64), np.asarray(goal, dtype=np.float64)
    for name, p in (("start", a), ("goal", b)):
        if not grid.is_free(p):
            raise PathBlockedError(
                f"the {name} ({p[0]:.2f}, {p[1]:.2f}) m is within {grid.radius:.2f} m of a solid "
                f"or off the floor"
            )
    head, tail = [a], [b]
    if goal_heading is not None:
        p = b - lead * np.array([np.cos(goal_heading), np.sin(goal_heading)])
        if grid.segment_free(p, b) and np.linalg.norm(b - head[-1]) > 2.0 * lead:
            tail.insert(0, p)
    if grid.segment_free(head[-1], tail[0]):
        middle = np.array([head[-1], tail[0]])
    else:
        cells = _dijkstra_cells(grid, grid.cell(head[-1]), grid.cell(tail[0]))
        inner = grid.origin + grid.spacing * cells[1:-1]
        middle = _shortcut(grid, np.concatenate([[head[-1]], inner, [tail[0]]]))
    pts = np.concatenate(
        [np.array(head[:-1]).reshape(-1, 2), middle, np.array(tail[1:]).reshape(-1, 2)]
    )
    keep = np.concatenate([[True], np.linalg.norm(np.diff(pts, axis=0), axis=-1) > 1e-6])
    return _chaikin(grid, pts[keep])
