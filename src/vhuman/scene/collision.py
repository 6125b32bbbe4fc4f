"""Collision and distance between a body (capsules) and a scene, with coal.

`CollisionWorld` registers the scene's solids once as coal collision
geometries (boxes, cylinders, spheres and capsules as exact primitives,
meshes as bounding-volume hierarchies of their triangles, floor and ceiling as
half spaces) and answers, for body poses:

- contacts: the (segment, solid) pairs that penetrate deeper than a tolerance,
  with their penetration depth (from coal's signed distance, EPA);
- the clearance: the smallest signed distance between the body and the
  objects and ceiling (the floor, which the body stands on, is left out);
- the collision ratio: the share of the body volume inside solids, from the
  body's sample points looked up in an occupancy grid of the scene
  (`OccupancyGrid`), vectorised over many poses and placements.

Pairs are pruned by axis-aligned bounding boxes: the gap between two boxes is
a lower bound of the distance between the solids they hold, so exact coal
queries run only for pairs that may touch or may be the closest.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry import RigidTransform, quat_to_rotmat
from vhuman.scene.body import BodyModel
from vhuman.scene.scene import Scene
from vhuman.scene.shapes import Box, Capsule, Cylinder, Mesh, Sphere

__all__ = ["CollisionReport", "CollisionWorld", "Contact", "OccupancyGrid"]


_FREE, _OCCUPIED, _MIXED = 0, 1, 2
_CORNERS = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)


class GridLookup(enum.StrEnum):
    """How `OccupancyGrid.lookup` reads the grid between its nodes."""

    TRILINEAR = "trilinear"
    NEAREST = "nearest"

    @classmethod
    def parse(cls, value: GridLookup | str) -> GridLookup:
        """The lookup named ``value``; `InputError` names the allowed ones otherwise."""
        try:
            return cls(value)
        except ValueError:
            raise InputError(f"method must be 'trilinear' or 'nearest', got {value!r}") from None


@dataclass(frozen=True, eq=False)
class OccupancyGrid:
    """Occupancy of a scene sampled on a regular grid of nodes.

    Node values are 1 where the node lies inside an object and 0 elsewhere;
    looked up by nearest node or trilinear interpolation (a fraction in
    [0, 1] near surfaces). Below the floor and above the ceiling the
    occupancy is 1 exactly (not from the grid); outside the grid it is 0.

    Attributes
    ----------
    origin : ndarray, shape (3,)
        Position of node (0, 0, 0) [m].
    spacing : float
        Distance between neighbouring nodes [m].
    values : ndarray of float32, shape (nx, ny, nz)
        Node occupancy.
    floor, ceiling : float
        Heights of the floor and ceiling surfaces [m] (ceiling +inf when open).
    """

    origin: NDArray[np.float64]
    spacing: float
    values: NDArray[np.float32]
    floor: float
    ceiling: float

    @classmethod
    def from_scene(
        cls, scene: Scene, resolution: float = 0.02, *, window: float | None = None
    ) -> OccupancyGrid:
        """Sample the objects of ``scene`` every ``resolution`` metres over their bounding box.

        The grid reaches two spacings beyond the objects' bounding box on every side.
        With ``window`` [m], only the objects within that horizontal distance of the
        target (the square of half side ``window`` around it) are sampled, and the grid
        ends there: beyond it the occupancy reads 0.

        Raises
        ------
        InputError
            If ``resolution`` (or ``window``) is not a finite number > 0 or the grid would
            exceed 50 million nodes.
        """
        h = float(resolution)
        if not (np.isfinite(h) and h > 0.0):
            raise InputError(f"grid resolution must be a finite number > 0 m, got {resolution!r}")
        if window is not None and not (np.isfinite(window) and window > 0.0):
            raise InputError(f"grid window must be a finite number > 0 m, got {window!r}")
        ceiling = np.inf if scene.ceiling is None else scene.ceiling
        objects = list(scene.objects)
        boxes = [o.bounds() for o in objects]
        if window is not None and boxes:
            t = scene.target.position
            w_lo = np.array([t[0] - window, t[1] - window, -np.inf])
            w_hi = np.array([t[0] + window, t[1] + window, np.inf])
            keep = [
                i for i, (blo, bhi) in enumerate(boxes) if np.all(blo < w_hi) and np.all(w_lo < bhi)
            ]
            objects = [objects[i] for i in keep]
            boxes = [(np.maximum(boxes[i][0], w_lo), np.minimum(boxes[i][1], w_hi)) for i in keep]
        if not boxes:
            return cls(np.zeros(3), h, np.zeros((1, 1, 1), np.float32), scene.floor, ceiling)
        # Two spacings of margin: the outermost nodes and their neighbours are empty.
        lo = np.min([b[0] for b in boxes], axis=0) - 2.0 * h
        hi = np.max([b[1] for b in boxes], axis=0) + 2.0 * h
        shape = np.ceil((hi - lo) / h).astype(int) + 1
        if np.prod(shape, dtype=np.int64) > 50_000_000:
            raise InputError(
                f"an occupancy grid of {tuple(shape)} nodes at {h} m is too large; "
                "use a coarser resolution"
            )
        values = np.zeros(tuple(shape), dtype=np.float32)
        for obj, (olo, ohi) in zip(objects, boxes, strict=True):
            i0 = np.clip(np.floor((olo - lo) / h).astype(int), 0, shape - 1)
            i1 = np.clip(np.ceil((ohi - lo) / h).astype(int), 0, shape - 1)
            axes = [lo[k] + h * np.arange(i0[k], i1[k] + 1) for k in range(3)]
            nodes = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)
            block = values[i0[0] : i1[0] + 1, i0[1] : i1[1] + 1, i0[2] : i1[2] + 1]
            block[obj.contains(nodes)] = 1.0
        values.setflags(write=False)
        lo.setflags(write=False)
        return cls(lo, h, values, scene.floor, ceiling)

    def lookup(
        self, points: ArrayLike, method: GridLookup | str = GridLookup.TRILINEAR
    ) -> NDArray[np.float64]:
        """Occupancy ``(...,)`` in [0, 1] at world points ``(..., 3)``."""
        lookup = GridLookup.parse(method)
        p = np.asarray(points, dtype=np.float64)
        flat = p.reshape(-1, 3)
        shape = np.array(self.values.shape)
        vals = self.values.reshape(-1)
        sx, sy = int(shape[1] * shape[2]), int(shape[2])
        # The outermost nodes lie beyond every object, so clamping points onto the
        # grid gives 0 outside it without a mask.
        g = (flat - self.origin) * (1.0 / self.spacing)
        if lookup is GridLookup.NEAREST:
            i = np.rint(np.clip(g, 0.0, shape - 1)).astype(np.int64)
            out = vals[i[:, 0] * sx + i[:, 1] * sy + i[:, 2]].astype(np.float64)
        else:
            np.clip(g, 0.0, shape - 1, out=g)
            i = np.minimum(g.astype(np.int64), shape - 2)
            f = (g - i).astype(np.float32)
            b = i[:, 0] * sx + i[:, 1] * sy + i[:, 2]
            fx, fy, fz = f[:, 0], f[:, 1], f[:, 2]
            gx, gy, gz = 1.0 - fx, 1.0 - fy, 1.0 - fz
            lo = gy * (gz * vals[b] + fz * vals[b + 1]) + fy * (
                gz * vals[b + sy] + fz * vals[b + sy + 1]
            )
            hi = gy * (gz * vals[b + sx] + fz * vals[b + sx + 1]) + fy * (
                gz * vals[b + sx + sy] + fz * vals[b + sx + sy + 1]
            )
            out = (gx * lo + fx * hi).astype(np.float64)
        z = flat[:, 2]
        out[(z < self.floor) | (z > self.ceiling)] = 1.0
        return out.reshape(p.shape[:-1])


@dataclass(frozen=True)
class Contact:
    """A body segment penetrating a solid of the scene.

    Attributes
    ----------
    segment : str
        Body segment (name of the joint carrying the capsule).
    solid : str
        Object name, ``"floor"`` or ``"ceiling"``.
    depth : float
        Penetration depth [m] (> the world's tolerance). For a capsule wholly
        inside a mesh it is estimated as its clearance to the mesh surface plus
        its diameter; where coal's EPA fails on a mesh triangle (the capsule's
        axis in the triangle's plane) as the capsule's radius.
    """

    segment: str
    solid: str
    depth: float

    def to_dict(self) -> dict[str, Any]:
        """``{"segment", "solid", "depth_m"}``."""
        return {"segment": self.segment, "solid": self.solid, "depth_m": self.depth}


@dataclass(frozen=True)
class CollisionReport:
    """Collision and clearance of one body pose in a scene.

    Attributes
    ----------
    contacts : tuple of Contact
        Segment–solid pairs penetrating deeper than the tolerance, deepest first.
    min_clearance : float
        Smallest signed distance [m] between the body and the objects and ceiling
        (negative when penetrating); +inf for an empty scene without ceiling.
    closest_segment, closest_solid : str
        The pair at ``min_clearance`` ("" when there is none).
    """

    contacts: tuple[Contact, ...]
    min_clearance: float
    closest_segment: str
    closest_solid: str

    @property
    def n_contacts(self) -> int:
        """Number of penetrating segment–solid pairs."""
        return len(self.contacts)

    @property
    def max_penetration(self) -> float:
        """Deepest penetration [m] (0 without contacts)."""
        return max((c.depth for c in self.contacts), default=0.0)

    @property
    def in_collision(self) -> bool:
        """Whether any pair penetrates."""
        return bool(self.contacts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures (metres)."""
        clearance = self.min_clearance if np.isfinite(self.min_clearance) else None
        return {
            "collisions": self.n_contacts,
            "max_penetration_m": self.max_penetration,
            "min_clearance_m": clearance,
            "closest_segment": self.closest_segment,
            "closest_solid": self.closest_solid,
            "contacts": [c.to_dict() for c in self.contacts],
        }


def _axis_rotations(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """Rotations ``(S, 3, 3)`` whose z column points from ``a`` to ``b`` (any if equal)."""
    d = b - a
    n = np.linalg.norm(d, axis=-1, keepdims=True)
    u = np.where(n > 1e-12, d / np.maximum(n, 1e-12), [0.0, 0.0, 1.0])
    helper = np.where(np.abs(u[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
    e1 = np.cross(u, helper)
    e1 /= np.linalg.norm(e1, axis=-1, keepdims=True)
    e2 = np.cross(u, e1)
    return np.stack([e1, e2, u], axis=-1)


class CollisionWorld:
    """A scene registered with coal, for collision, distance and occupancy queries.

    Parameters
    ----------
    scene : Scene
        The scene.
    resolution : float, optional
        Node spacing of the occupancy grid used by :meth:`collision_ratio` [m].
    tolerance : float, optional
        Penetration [m] below which a segment–solid pair is not a contact (a
        foot standing on the floor touches it at zero depth).
    window : float, optional
        Horizontal half side [m] of the square around the target that the
        occupancy grid covers (default: all objects). The exact queries see
        every object whatever the window; they prune pairs by bounding boxes.

    Raises
    ------
    InputError
        For a resolution or tolerance that is not a finite number (> 0, ≥ 0).
    """

    def __init__(
        self,
        scene: Scene,
        *,
        resolution: float = 0.02,
        tolerance: float = 1e-3,
        window: float | None = None,
    ) -> None:
        import coal

        if not isinstance(scene, Scene):
            raise InputError(f"scene must be a Scene, got {type(scene).__name__}")
        tol = float(tolerance)
        if not (np.isfinite(tol) and tol >= 0.0):
            raise InputError(f"tolerance must be a finite number >= 0 m, got {tolerance!r}")
        self._coal = coal
        self.scene = scene
        self.tolerance = tol
        self.grid = OccupancyGrid.from_scene(scene, resolution, window=window)
        names, geoms, transforms, lo, hi, meshes = [], [], [], [], [], []
        for obj in scene.objects:
            names.append(obj.name)
            geoms.append(self._geometry(obj.shape))
            transforms.append(coal.Transform3s(quat_to_rotmat(obj.rotation), obj.position))
            blo, bhi = obj.bounds()
            lo.append(blo)
            hi.append(bhi)
            meshes.append(obj if isinstance(obj.shape, Mesh) else None)
        inf = np.inf
        names.append("floor")
        geoms.append(coal.Halfspace(np.array([0.0, 0.0, 1.0]), scene.floor))
        transforms.append(coal.Transform3s())
        lo.append([-inf, -inf, -inf])
        hi.append([inf, inf, scene.floor])
        meshes.append(None)
        if scene.ceiling is not None:
            names.append("ceiling")
            geoms.append(coal.Halfspace(np.array([0.0, 0.0, -1.0]), -scene.ceiling))
            transforms.append(coal.Transform3s())
            lo.append([-inf, -inf, scene.ceiling])
            hi.append([inf, inf, inf])
            meshes.append(None)
        self.solid_names: tuple[str, ...] = tuple(names)
        """Objects, then ``"floor"`` and (if any) ``"ceiling"``."""
        self._geoms = geoms
        self._transforms = transforms
        self._lo = np.array(lo, dtype=np.float64)
        self._hi = np.array(hi, dtype=np.float64)
        self._meshes = meshes
        self._floor_index = len(scene.objects)
        self._dreq = coal.DistanceRequest()
        self._dres = coal.DistanceResult()
        self._creq = coal.CollisionRequest()
        self._creq.enable_contact = True
        self._creq.num_max_contacts = 64
        self._cbool = coal.CollisionRequest()

    def _geometry(self, shape: Box | Sphere | Cylinder | Capsule | Mesh) -> Any:
        coal = self._coal
        if isinstance(shape, Box):
            return coal.Box(*shape.size)
        if isinstance(shape, Sphere):
            return coal.Sphere(shape.radius)
        if isinstance(shape, Cylinder):
            return coal.Cylinder(shape.radius, shape.length)
        if isinstance(shape, Capsule):
            return coal.Capsule(shape.radius, shape.length)
        bvh = coal.BVHModelOBBRSS()
        bvh.beginModel(len(shape.faces), len(shape.vertices))
        bvh.addVertices(np.ascontiguousarray(shape.vertices))
        bvh.addTriangles(np.ascontiguousarray(shape.faces, dtype=np.int64))
        bvh.endModel()
        return bvh

    # -- points -----------------------------------------------------------------------
    def contains(self, points: ArrayLike) -> NDArray[np.bool_]:
        """Whether world points ``(..., 3)`` lie in a solid (exact; see `Scene.contains`)."""
        return self.scene.contains(points)

    def containing(self, point: ArrayLike) -> str | None:
        """Name of the solid holding a world point, or None (see `Scene.containing`)."""
        return self.scene.containing(point)

    # -- pairs ------------------------------------------------------------------------
    def _signed_distance(self, k: int, geom: Any, tf: Any) -> float:
        """Signed distance [m] between solid ``k`` and a placed geometry (< 0: depth)."""
        self._dres.clear()
        d = float(
            self._coal.distance(
                self._geoms[k], self._transforms[k], geom, tf, self._dreq, self._dres
            )
        )
        if self._meshes[k] is None or d > 0.0:
            return d
        # A mesh is a surface for coal: the depth comes from its triangle contacts.
        res = self._coal.CollisionResult()
        self._coal.collide(self._geoms[k], self._transforms[k], geom, tf, self._creq, res)
        depths = [res.getContact(i).penetration_depth for i in range(res.numContacts())]
        # EPA fails (±DBL_MAX) when the capsule's axis lies in a triangle's plane; the
        # depth there is the capsule's radius.
        valid = [d for d in depths if abs(d) < 1e6]
        if len(valid) < len(depths):
            valid.append(-float(geom.radius))
        return min(0.0, *valid)

    def check(
        self,
        body: BodyModel,
        root_positions: ArrayLike,
        local_rotations: ArrayLike,
        *,
        segments: Sequence[str] | None = None,
    ) -> CollisionReport:
        """Contacts and clearance of one pose.

        Parameters
        ----------
        body : BodyModel
            The body's capsules.
        root_positions : array_like, shape (3,)
            Root position [m].
        local_rotations : array_like, shape (J, 4)
            Local joint rotations (w, x, y, z).
        segments : sequence of str, optional
            Only these segments (joint names, e.g. the arm's); all by default.

        Returns
        -------
        CollisionReport

        Raises
        ------
        InputError
            For NaN or infinite values, wrong shapes or unknown segment names.
        """
        a, b = body.capsules(root_positions, local_rotations)
        if a.ndim != 2:
            raise InputError(f"check takes one pose; got a batch {a.shape[:-2]}, use check_many")
        return self._check_capsules(body, a, b, body.segment_indices(segments))

    def check_many(
        self,
        body: BodyModel,
        root_positions: ArrayLike,
        local_rotations: ArrayLike,
        *,
        segments: Sequence[str] | None = None,
    ) -> list[CollisionReport]:
        """:meth:`check` for each pose of a batch ``(B, 3)``, ``(B, J, 4)``."""
        a, b = body.capsules(root_positions, local_rotations)
        if a.ndim != 3:
            raise InputError(f"check_many takes a batch (B, ...); got shape {a.shape[:-2]}")
        idx = body.segment_indices(segments)
        return [self._check_capsules(body, ai, bi, idx) for ai, bi in zip(a, b, strict=True)]

    def _check_capsules(
        self,
        body: BodyModel,
        a: NDArray[np.float64],
        b: NDArray[np.float64],
        idx: NDArray[np.intp],
    ) -> CollisionReport:
        coal = self._coal
        a, b, r = a[idx], b[idx], body.radii[idx]
        names = [body.names[i] for i in idx]
        clo = np.minimum(a, b) - r[:, None]
        chi = np.maximum(a, b) + r[:, None]
        # Per-axis gaps between capsule boxes (S) and solid boxes (O): a lower bound.
        gap = np.maximum(self._lo[None] - chi[:, None], clo[:, None] - self._hi[None])
        bound = np.linalg.norm(np.maximum(gap, 0.0), axis=-1)  # (S, O)
        rot = _axis_rotations(a, b)
        mid = 0.5 * (a + b)
        lengths = np.linalg.norm(b - a, axis=-1)
        geoms = [coal.Capsule(float(ri), float(li)) for ri, li in zip(r, lengths, strict=True)]
        tfs = [coal.Transform3s(rot[s], mid[s]) for s in range(len(idx))]
        exact: dict[tuple[int, int], float] = {}
        for s, k in zip(*np.nonzero(bound <= 0.0), strict=True):
            exact[(int(s), int(k))] = self._signed_distance(int(k), geoms[s], tfs[s])
        for s, k in self._inside_mesh_pairs(a, b, bound):
            if exact[(s, k)] > 0.0:  # wholly inside, clear of the surface
                exact[(s, k)] = -(exact[(s, k)] + 2.0 * float(r[s]))
        contacts = sorted(
            (
                Contact(names[s], self.solid_names[k], -d)
                for (s, k), d in exact.items()
                if -d > self.tolerance
            ),
            key=lambda c: -c.depth,
        )
        # Clearance: visit pairs by their lower bound until none can be closer.
        best, best_pair = np.inf, ("", "")
        cand = np.ones(bound.shape, dtype=bool)
        cand[:, self._floor_index] = False
        order = np.argsort(np.where(cand, bound, np.inf), axis=None)
        flat_bound = bound.reshape(-1)
        for f in order:
            if not cand.reshape(-1)[f] or flat_bound[f] >= best:
                break
            s, k = divmod(int(f), bound.shape[1])
            d = exact.get((s, k))
            if d is None:
                d = self._signed_distance(k, geoms[s], tfs[s])
            if d < best:
                best, best_pair = d, (names[s], self.solid_names[k])
        for (s, k), d in exact.items():  # penetrations deeper than the visited best
            if k != self._floor_index and d < best:
                best, best_pair = d, (names[s], self.solid_names[k])
        return CollisionReport(tuple(contacts), float(best), *best_pair)

    def _inside_mesh_pairs(
        self, a: NDArray[np.float64], b: NDArray[np.float64], bound: NDArray[np.float64]
    ) -> list[tuple[int, int]]:
        """Capsules whose axis midpoint lies inside a mesh whose surface they may not touch."""
        out = []
        for k, obj in enumerate(self._meshes):
            if obj is None:
                continue
            near = np.flatnonzero(bound[:, k] <= 0.0)
            if len(near):
                inside = obj.contains(0.5 * (a[near] + b[near]))
                out += [(int(s), k) for s in near[inside]]
        return out

    # -- volume -------------------------------------------------------------------------
    def collision_ratio(
        self,
        body: BodyModel,
        root_positions: ArrayLike,
        local_rotations: ArrayLike,
        *,
        placement: RigidTransform | None = None,
        segments: Sequence[str] | None = None,
        method: GridLookup | str = GridLookup.TRILINEAR,
    ) -> NDArray[np.float64]:
        """Share of the body volume inside solids, in [0, 1], for a batch of poses.

        Each sample point of the body (see `BodyModel`) counts with the volume it
        stands for; its occupancy is looked up in the world's `OccupancyGrid`
        (objects) and tested exactly against floor and ceiling.

        Parameters
        ----------
        body : BodyModel
            The body.
        root_positions, local_rotations : array_like
            Poses, batch shape ``P`` (see `BodyModel.joint_frames`).
        placement : RigidTransform, optional
            Rigid transforms of batch shape ``B`` applied after the pose.
        segments : sequence of str, optional
            Only these segments count (volume share among them).
        method : GridLookup or {"trilinear", "nearest"}
            Grid lookup.

        Returns
        -------
        ndarray, shape (*B, *P)
            The collision ratio of each placed pose.
        """
        idx = body.segment_indices(segments)
        pts = body.sample_points(root_positions, local_rotations, placement)[..., idx, :, :]
        occ = self.grid.lookup(pts, method)  # (..., S, N)
        w = body.sample_weights[idx]
        return np.einsum("...sn,sn->...", occ, w) / w.sum()

    def objects_near(self, lo: ArrayLike, hi: ArrayLike) -> NDArray[np.intp]:
        """Indices of the objects whose bounding boxes meet the box ``lo``–``hi`` [m]."""
        n_obj = len(self.scene.objects)
        a, b = np.asarray(lo, dtype=np.float64), np.asarray(hi, dtype=np.float64)
        return np.flatnonzero(np.all((self._lo[:n_obj] <= b) & (a <= self._hi[:n_obj]), axis=1))

    # -- voxels ------------------------------------------------------------------------
    def occupied_voxels(
        self, origin: ArrayLike, spacing: float, shape: tuple[int, int, int]
    ) -> NDArray[np.bool_]:
        """Which voxels of a regular grid meet an object (floor and ceiling left out).

        Only the voxels inside an object's bounding box are tested (the boxes
        are the broad phase): a voxel whose centre lies inside the object is
        occupied; an axis-aligned box occupies every voxel its bounding box
        overlaps; the other voxels are tested exactly, cube against solid, with coal.

        Parameters
        ----------
        origin : array_like, shape (3,)
            Lowest corner of voxel (0, 0, 0) [m].
        spacing : float
            Voxel side [m].
        shape : tuple of 3 int

        Returns
        -------
        ndarray of bool, shape ``shape``
        """
        coal = self._coal
        lo0 = np.asarray(origin, dtype=np.float64)
        h = float(spacing)
        dims = np.array(shape, dtype=np.intp)
        out = np.zeros(tuple(int(d) for d in dims), dtype=bool)
        n_obj = len(self.scene.objects)
        i0 = np.floor((self._lo[:n_obj] - lo0) / h).astype(np.intp)
        i1 = np.ceil((self._hi[:n_obj] - lo0) / h).astype(np.intp)
        hit = np.all((i1 > 0) & (i0 < dims), axis=1)
        cube = coal.Box(h, h, h)
        for k in np.flatnonzero(hit):
            a, b = np.maximum(i0[k], 0), np.minimum(i1[k], dims)
            obj = self.scene.objects[k]
            block = out[a[0] : b[0], a[1] : b[1], a[2] : b[2]]
            if isinstance(obj.shape, Box) and np.allclose(
                np.abs(quat_to_rotmat(obj.rotation)), np.eye(3)
            ):
                block[...] = True
                continue
            axes = [lo0[d] + h * (np.arange(a[d], b[d]) + 0.5) for d in range(3)]
            centres = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1)
            inside = obj.contains(centres)
            block |= inside
            for idx in np.argwhere(~inside):
                res = coal.CollisionResult()
                tf = coal.Transform3s(np.eye(3), centres[tuple(idx)])
                if coal.collide(self._geoms[k], self._transforms[k], cube, tf, self._cbool, res):
                    block[tuple(idx)] = True
        return out

    # -- boxes (octree) ---------------------------------------------------------------
    def classify_cells(self, centres: ArrayLike, half: float) -> NDArray[np.int8]:
        """State of axis-aligned cubes: 0 free, 1 occupied, 2 mixed.

        A cube is free when it meets no solid, occupied when it lies wholly in one
        solid (all corners inside a convex primitive; for a mesh, no contact with its
        surface and the centre inside; for floor and ceiling, wholly beyond them),
        and mixed otherwise (so a cube filled by two objects together is mixed).

        Parameters
        ----------
        centres : array_like, shape (n, 3)
            Cube centres [m].
        half : float
            Half the side length [m].

        Returns
        -------
        ndarray of int8, shape (n,)
        """
        coal = self._coal
        c = np.asarray(centres, dtype=np.float64).reshape(-1, 3)
        h = float(half)
        lo, hi = c - h, c + h
        n = len(c)
        touches = np.zeros(n, dtype=bool)
        inside = np.zeros(n, dtype=bool)
        cube = coal.Box(2.0 * h, 2.0 * h, 2.0 * h)
        corners = c[:, None, :] + h * _CORNERS  # (n, 8, 3)
        n_obj = len(self.scene.objects)
        # Broad phase: only the objects whose boxes meet the cubes' overall box.
        span_lo, span_hi = lo.min(axis=0), hi.max(axis=0)
        meet = np.all((self._lo[:n_obj] < span_hi) & (span_lo < self._hi[:n_obj]), axis=1)
        for k in np.flatnonzero(meet):
            near = np.flatnonzero(np.all((lo < self._hi[k]) & (self._lo[k] < hi), axis=1) & ~inside)
            if not len(near):
                continue
            hit = np.zeros(len(near), dtype=bool)
            for m, i in enumerate(near):
                res = coal.CollisionResult()
                tf = coal.Transform3s(np.eye(3), c[i])
                hit[m] = (
                    coal.collide(self._geoms[k], self._transforms[k], cube, tf, self._cbool, res)
                    > 0
                )
            obj = self.scene.objects[k]
            if self._meshes[k] is not None:
                quiet = near[~hit]
                wholly = obj.contains(c[quiet])
                inside[quiet[wholly]] = True
                touches[quiet[wholly]] = True
                touches[near[hit]] = True
            else:
                touches[near[hit]] = True
                hits = near[hit]
                inside[hits[np.all(obj.contains(corners[hits]), axis=1)]] = True
        floor = self.scene.floor
        inside |= hi[:, 2] <= floor
        touches |= lo[:, 2] < floor
        if self.scene.ceiling is not None:
            inside |= lo[:, 2] >= self.scene.ceiling
            touches |= hi[:, 2] > self.scene.ceiling
        return np.where(inside, _OCCUPIED, np.where(touches, _MIXED, _FREE)).astype(np.int8)
