"""Solid shapes of scene objects, in their own frame: box, cylinder, sphere, capsule, mesh.

Every shape is centred on its frame's origin; cylinders and capsules run along
the local z axis. Lengths are in metres. Each shape answers, vectorised over
points, whether a point lies inside it, and gives its volume, the half extents
of its local bounding box and a triangulation for drawing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError

__all__ = ["CUBE_FACES", "Box", "Capsule", "Cylinder", "Mesh", "Shape", "Sphere", "capsule_mesh"]

_MESH_SECTIONS = 24  # around the axis of drawn cylinders, spheres and capsules


def _positive(value: float, name: str, kind: str) -> float:
    v = float(value)
    if not (np.isfinite(v) and v > 0.0):
        raise InputError(f"{kind} {name} must be a finite number > 0 m, got {value!r}")
    return v


def _points(points: ArrayLike) -> NDArray[np.float64]:
    p = np.asarray(points, dtype=np.float64)
    if p.ndim == 0 or p.shape[-1] != 3:
        raise InputError(f"points must have shape (..., 3), got {p.shape}")
    return p


@dataclass(frozen=True)
class Box:
    """A rectangular box with full side lengths ``size`` along local x, y, z [m]."""

    size: tuple[float, float, float]
    kind: ClassVar[str] = "box"

    def __post_init__(self) -> None:
        s = tuple(float(v) for v in np.asarray(self.size, dtype=np.float64).reshape(-1))
        if len(s) != 3 or not all(np.isfinite(v) and v > 0 for v in s):
            raise InputError(f"box size must be 3 finite numbers > 0 m, got {self.size!r}")
        object.__setattr__(self, "size", s)

    @property
    def half_extents(self) -> NDArray[np.float64]:
        """Half side lengths of the local bounding box ``(3,)`` [m]."""
        return 0.5 * np.array(self.size)

    @property
    def volume(self) -> float:
        """Volume [m³]."""
        return float(np.prod(self.size))

    def contains(self, points: ArrayLike) -> NDArray[np.bool_]:
        """Whether local points ``(..., 3)`` lie inside or on the surface ``(...,)``."""
        return np.all(np.abs(_points(points)) <= self.half_extents, axis=-1)

    def triangulate(self) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
        """Local vertices ``(8, 3)`` and outward triangles ``(12, 3)``."""
        return _box_mesh(self.half_extents)


@dataclass(frozen=True)
class Sphere:
    """A ball of ``radius`` [m]."""

    radius: float
    kind: ClassVar[str] = "sphere"

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", _positive(self.radius, "radius", "sphere"))

    @property
    def half_extents(self) -> NDArray[np.float64]:
        """Half side lengths of the local bounding box ``(3,)`` [m]."""
        return np.full(3, self.radius)

    @property
    def volume(self) -> float:
        """Volume [m³]."""
        return 4.0 / 3.0 * np.pi * self.radius**3

    def contains(self, points: ArrayLike) -> NDArray[np.bool_]:
        """Whether local points ``(..., 3)`` lie inside or on the surface ``(...,)``."""
        return np.sum(_points(points) ** 2, axis=-1) <= self.radius**2

    def triangulate(self) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
        """Local vertices and triangles of a UV sphere."""
        return capsule_mesh(np.zeros(3), np.zeros(3), self.radius)


@dataclass(frozen=True)
class Cylinder:
    """A solid cylinder of ``radius`` [m] and ``length`` [m] along local z, centred."""

    radius: float
    length: float
    kind: ClassVar[str] = "cylinder"

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", _positive(self.radius, "radius", "cylinder"))
        object.__setattr__(self, "length", _positive(self.length, "length", "cylinder"))

    @property
    def half_extents(self) -> NDArray[np.float64]:
        """Half side lengths of the local bounding box ``(3,)`` [m]."""
        return np.array([self.radius, self.radius, 0.5 * self.length])

    @property
    def volume(self) -> float:
        """Volume [m³]."""
        return np.pi * self.radius**2 * self.length

    def contains(self, points: ArrayLike) -> NDArray[np.bool_]:
        """Whether local points ``(..., 3)`` lie inside or on the surface ``(...,)``."""
        p = _points(points)
        radial = p[..., 0] ** 2 + p[..., 1] ** 2 <= self.radius**2
        return radial & (np.abs(p[..., 2]) <= 0.5 * self.length)

    def triangulate(self) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
        """Local vertices and outward triangles (side and both caps)."""
        n = _MESH_SECTIONS
        ang = 2.0 * np.pi * np.arange(n) / n
        ring = np.column_stack([self.radius * np.cos(ang), self.radius * np.sin(ang)])
        h = 0.5 * self.length
        verts = np.concatenate(
            [
                np.column_stack([ring, np.full(n, -h)]),
                np.column_stack([ring, np.full(n, h)]),
                [[0.0, 0.0, -h], [0.0, 0.0, h]],
            ]
        )
        i = np.arange(n)
        k = (i + 1) % n
        faces = np.concatenate(
            [
                np.column_stack([i, k, n + k]),
                np.column_stack([i, n + k, n + i]),
                np.column_stack([np.full(n, 2 * n), k, i]),
                np.column_stack([np.full(n, 2 * n + 1), n + i, n + k]),
            ]
        )
        return verts, faces.astype(np.intp)


@dataclass(frozen=True)
class Capsule:
    """A capsule: the points within ``radius`` [m] of a segment of ``length`` [m] along z."""

    radius: float
    length: float
    kind: ClassVar[str] = "capsule"

    def __post_init__(self) -> None:
        object.__setattr__(self, "radius", _positive(self.radius, "radius", "capsule"))
        length = float(self.length)
        if not (np.isfinite(length) and length >= 0.0):
            raise InputError(f"capsule length must be a finite number >= 0 m, got {self.length!r}")
        object.__setattr__(self, "length", length)

    @property
    def half_extents(self) -> NDArray[np.float64]:
        """Half side lengths of the local bounding box ``(3,)`` [m]."""
        return np.array([self.radius, self.radius, 0.5 * self.length + self.radius])

    @property
    def volume(self) -> float:
        """Volume [m³]."""
        return np.pi * self.radius**2 * (self.length + 4.0 / 3.0 * self.radius)

    def contains(self, points: ArrayLike) -> NDArray[np.bool_]:
        """Whether local points ``(..., 3)`` lie inside or on the surface ``(...,)``."""
        p = _points(points)
        h = 0.5 * self.length
        z = np.clip(p[..., 2], -h, h)
        return p[..., 0] ** 2 + p[..., 1] ** 2 + (p[..., 2] - z) ** 2 <= self.radius**2

    def triangulate(self) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
        """Local vertices and triangles."""
        h = 0.5 * self.length
        return capsule_mesh(np.array([0.0, 0.0, -h]), np.array([0.0, 0.0, h]), self.radius)


@dataclass(frozen=True, eq=False)
class Mesh:
    """A closed triangle mesh (a solid), from an STL or OBJ file.

    Parameters
    ----------
    vertices : array_like, shape (V, 3)
        Vertex positions in the object's frame [m].
    faces : array_like of int, shape (F, 3)
        Triangles, indices into ``vertices``; the mesh must be closed (watertight),
        so that inside and outside are defined.
    source : str
        The file it came from, as written in the scene file (relative to it).
    scale : float
        Factor applied to the file's coordinates to get ``vertices`` (recorded
        for saving).
    """

    vertices: NDArray[np.float64]
    faces: NDArray[np.intp]
    source: str = ""
    scale: float = 1.0
    kind: ClassVar[str] = "mesh"

    def __post_init__(self) -> None:
        v = np.array(self.vertices, dtype=np.float64)
        f = np.asarray(self.faces)
        if v.ndim != 2 or v.shape[1] != 3 or len(v) < 4 or not np.all(np.isfinite(v)):
            raise InputError(
                f"mesh {self.source!r}: vertices must be at least 4 finite points of shape "
                f"(V, 3), got shape {v.shape}"
            )
        if f.ndim != 2 or f.shape[1] != 3 or len(f) < 4 or not np.issubdtype(f.dtype, np.integer):
            raise InputError(
                f"mesh {self.source!r}: faces must be at least 4 integer triangles of shape "
                f"(F, 3), got {f.dtype} of shape {f.shape}"
            )
        if f.min() < 0 or f.max() >= len(v):
            raise InputError(f"mesh {self.source!r}: face indices must lie in 0..{len(v) - 1}")
        f = f.astype(np.intp)
        edges = np.sort(f[:, [0, 1, 1, 2, 2, 0]].reshape(-1, 2), axis=1)
        _, counts = np.unique(edges, axis=0, return_counts=True)
        if np.any(counts != 2):
            raise InputError(
                f"mesh {self.source!r} is not closed ({int(np.sum(counts != 2))} edges are not "
                "shared by exactly two triangles); scene meshes must be watertight solids"
            )
        v.setflags(write=False)
        f.setflags(write=False)
        object.__setattr__(self, "vertices", v)
        object.__setattr__(self, "faces", f)
        object.__setattr__(self, "scale", float(self.scale))

    @property
    def half_extents(self) -> NDArray[np.float64]:
        """Half side lengths of the local bounding box about the origin ``(3,)`` [m]."""
        return np.max(np.abs(self.vertices), axis=0)

    @property
    def volume(self) -> float:
        """Enclosed volume [m³] (divergence theorem; orientation-independent)."""
        a, b, c = (self.vertices[self.faces[:, k]] for k in range(3))
        return abs(float(np.sum(np.einsum("ij,ij->i", a, np.cross(b, c))))) / 6.0

    def contains(self, points: ArrayLike, *, chunk: int = 4096) -> NDArray[np.bool_]:
        """Whether local points ``(..., 3)`` lie inside ``(...,)``, by the winding number.

        The generalised winding number (sum of the solid angles of the triangles
        seen from the point, over 4π) is 1 inside a closed mesh and 0 outside,
        whatever the orientation of its triangles (its absolute value is used).
        Cost: points × triangles; points outside the bounding box are skipped.

        References
        ----------
        Van Oosterom & Strackee, "The solid angle of a plane triangle", IEEE Trans.
        Biomed. Eng. 30 (1983); Jacobson et al., "Robust inside-outside segmentation
        using generalized winding numbers", ACM TOG 32 (2013).
        """
        p = _points(points)
        flat = p.reshape(-1, 3)
        out = np.zeros(len(flat), dtype=bool)
        lo, hi = self.vertices.min(axis=0), self.vertices.max(axis=0)
        candidates = np.flatnonzero(np.all((flat >= lo) & (flat <= hi), axis=1))
        tri = self.vertices[self.faces]  # (F, 3, 3)
        for start in range(0, len(candidates), chunk):
            idx = candidates[start : start + chunk]
            d = tri[None, :, :, :] - flat[idx, None, None, :]  # (n, F, 3, 3)
            a, b, c = d[..., 0, :], d[..., 1, :], d[..., 2, :]
            la, lb, lc = (np.linalg.norm(x, axis=-1) for x in (a, b, c))
            num = np.einsum("nfi,nfi->nf", a, np.cross(b, c))
            den = (
                la * lb * lc
                + np.einsum("nfi,nfi->nf", a, b) * lc
                + np.einsum("nfi,nfi->nf", b, c) * la
                + np.einsum("nfi,nfi->nf", c, a) * lb
            )
            winding = np.sum(2.0 * np.arctan2(num, den), axis=1) / (4.0 * np.pi)
            out[idx] = np.abs(winding) > 0.5
        return out.reshape(p.shape[:-1])

    def triangulate(self) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
        """Local vertices and triangles (the mesh itself)."""
        return self.vertices, self.faces


Shape = Box | Sphere | Cylinder | Capsule | Mesh
"""Any scene object shape."""


CUBE_FACES = np.array(
    [
        [0, 1, 3],
        [0, 3, 2],
        [4, 6, 7],
        [4, 7, 5],
        [0, 4, 5],
        [0, 5, 1],
        [2, 3, 7],
        [2, 7, 6],
        [0, 2, 6],
        [0, 6, 4],
        [1, 5, 7],
        [1, 7, 3],
    ],
    dtype=np.intp,
)
"""The 12 outward triangles of a cube over its 8 corners ordered x-major, then y, then z."""


def _box_mesh(half: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    return corners * half, CUBE_FACES.copy()


def capsule_mesh(
    a: ArrayLike, b: ArrayLike, radius: float, *, sections: int = 12
) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """Triangle mesh of the capsule around segment ``a``–``b`` (a sphere if they coincide).

    Parameters
    ----------
    a, b : array_like, shape (3,)
        Axis end points [m].
    radius : float
        Radius [m].
    sections : int, optional
        Vertices around the axis; each half sphere has ``sections // 2`` rings.

    Returns
    -------
    vertices : ndarray, shape (V, 3)
    faces : ndarray of int, shape (F, 3)
    """
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    axis = b - a
    length = float(np.linalg.norm(axis))
    u = axis / length if length > 1e-12 else np.array([0.0, 0.0, 1.0])
    helper = np.array([1.0, 0.0, 0.0]) if abs(u[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = np.cross(u, helper)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(u, e1)
    rings = max(sections // 2, 2)
    # Polar angles from the bottom pole to the top pole; the equator ring is doubled
    # so the cylinder part spans a..b.
    lower = np.linspace(-0.5 * np.pi, 0.0, rings + 1)[1:]
    upper = np.linspace(0.0, 0.5 * np.pi, rings + 1)[:-1]
    ang = 2.0 * np.pi * np.arange(sections) / sections
    circle = np.cos(ang)[:, None] * e1 + np.sin(ang)[:, None] * e2  # (n, 3)
    ring_pts = []
    for phi, centre in [*((p, a) for p in lower), *((p, b) for p in upper)]:
        ring_pts.append(centre + radius * (np.cos(phi) * circle + np.sin(phi) * u))
    verts = np.concatenate([[a - radius * u], *ring_pts, [b + radius * u]])
    n_rings = len(ring_pts)
    i = np.arange(sections)
    k = (i + 1) % sections
    faces = [np.column_stack([np.zeros(sections, int), 1 + k, 1 + i])]
    for r in range(n_rings - 1):
        base0, base1 = 1 + r * sections, 1 + (r + 1) * sections
        faces.append(np.column_stack([base0 + i, base0 + k, base1 + k]))
        faces.append(np.column_stack([base0 + i, base1 + k, base1 + i]))
    top = len(verts) - 1
    last = 1 + (n_rings - 1) * sections
    faces.append(np.column_stack([np.full(sections, top), last + i, last + k]))
    return verts, np.concatenate(faces).astype(np.intp)
