"""`Scene`: named solid objects placed in the world, a floor, a ceiling and the maintenance target.

World frame as everywhere in vhuman: z up, metres. The floor is the solid
half space below ``floor`` and the ceiling (when given) the solid half space
above ``ceiling``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry import RigidTransform, quat_apply, quat_normalize, quat_to_rotmat
from vhuman.scene.shapes import Box, Capsule, Cylinder, Mesh, Shape, Sphere

__all__ = ["Scene", "SceneObject", "Target"]


def _vector3(value: ArrayLike, name: str) -> NDArray[np.float64]:
    v = np.array(value, dtype=np.float64)
    if v.shape != (3,) or not np.all(np.isfinite(v)):
        raise InputError(f"{name} must be 3 finite numbers, got {value!r}")
    v.setflags(write=False)
    return v


def _quat(value: ArrayLike, name: str) -> NDArray[np.float64]:
    q = np.array(value, dtype=np.float64)
    if q.shape != (4,) or not np.all(np.isfinite(q)) or np.linalg.norm(q) < 1e-9:
        raise InputError(f"{name} must be a non-zero quaternion (w, x, y, z), got {value!r}")
    q = quat_normalize(q)
    if q[0] < 0.0:
        q = -q
    q.setflags(write=False)
    return q


def _vec_dict(v: NDArray[np.float64]) -> list[float]:
    return [float(x) for x in v]


@dataclass(frozen=True, eq=False)
class SceneObject:
    """A solid shape placed in the world.

    Parameters
    ----------
    name : str
        Unique within the scene; used in contact reports.
    shape : Box, Sphere, Cylinder, Capsule or Mesh
        The solid in its own frame.
    position : array_like, shape (3,)
        Origin of the shape's frame in the world [m].
    rotation : array_like, shape (4,)
        Orientation ``q_world_object`` (w, x, y, z); normalised, w ≥ 0.
    color : str, optional
        Colour for drawings (any CSS/matplotlib colour); not used by the geometry.
    description : str, optional
        Free text.
    """

    name: str
    shape: Shape
    position: NDArray[np.float64]
    rotation: NDArray[np.float64]
    color: str | None = None
    description: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InputError(f"object name must be a non-empty string, got {self.name!r}")
        if not isinstance(self.shape, Box | Sphere | Cylinder | Capsule | Mesh):
            raise InputError(
                f"object {self.name!r}: shape must be a Box, Sphere, Cylinder, Capsule or Mesh, "
                f"got {type(self.shape).__name__}"
            )
        object.__setattr__(self, "position", _vector3(self.position, f"{self.name}.position"))
        object.__setattr__(self, "rotation", _quat(self.rotation, f"{self.name}.rotation"))

    @property
    def pose(self) -> RigidTransform:
        """``T_world_object``."""
        return RigidTransform(self.rotation, self.position)

    def to_local(self, points: ArrayLike) -> NDArray[np.float64]:
        """World points ``(..., 3)`` in the object's frame."""
        rt = quat_to_rotmat(self.rotation)
        return (np.asarray(points, dtype=np.float64) - self.position) @ rt

    def contains(self, points: ArrayLike) -> NDArray[np.bool_]:
        """Whether world points ``(..., 3)`` lie inside the object ``(...,)``."""
        return self.shape.contains(self.to_local(points))

    def bounds(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """World axis-aligned bounding box ``(lo, hi)`` that holds the whole solid [m]."""
        rot = quat_to_rotmat(self.rotation)
        shape = self.shape
        if isinstance(shape, Mesh):
            v = shape.vertices @ rot.T + self.position
            return v.min(axis=0), v.max(axis=0)
        if isinstance(shape, Cylinder | Capsule):
            # Exact box of a disc-ended cylinder: |u_i| h + r sqrt(1 − u_i²) per axis;
            # a capsule's box is that of its segment grown by r.
            u = rot[:, 2]
            h = 0.5 * shape.length
            disc = np.sqrt(np.clip(1.0 - u**2, 0.0, 1.0))
            half = np.abs(u) * h + shape.radius * (1.0 if isinstance(shape, Capsule) else disc)
        else:
            half = np.abs(rot) @ shape.half_extents
        return self.position - half, self.position + half

    def triangulate(self) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
        """World vertices ``(V, 3)`` and triangles ``(F, 3)`` for drawing."""
        v, f = self.shape.triangulate()
        return quat_apply(self.rotation, v) + self.position, f

    def to_dict(self) -> dict[str, Any]:
        """The object as in a scene file (metres, quaternion), mesh path as given."""
        shape = self.shape
        out: dict[str, Any] = {"name": self.name, "type": shape.kind}
        if isinstance(shape, Box):
            out["size"] = list(shape.size)
        elif isinstance(shape, Sphere):
            out["radius"] = shape.radius
        elif isinstance(shape, Cylinder | Capsule):
            out["radius"], out["length"] = shape.radius, shape.length
        else:
            out["path"] = shape.source
            if shape.scale != 1.0:
                out["scale"] = shape.scale
        out["position"] = _vec_dict(self.position)
        out["quaternion"] = _vec_dict(self.rotation)
        if self.color is not None:
            out["color"] = self.color
        if self.description:
            out["description"] = self.description
        return out


@dataclass(frozen=True, eq=False)
class Target:
    """The maintenance target: the frame the working hand must reach, and where it comes from.

    Parameters
    ----------
    position : array_like, shape (3,)
        Where the hand (the ``hand`` end site of the skeleton) should be [m], world.
    rotation : array_like, shape (4,)
        Wanted orientation of the hand frame ``q_world_hand`` (w, x, y, z).
    approach : array_like, shape (3,)
        Direction in which the hand moves onto the target (world, normalised);
        the worker stands on the side it comes from.
    name : str, optional
        E.g. ``"valve handwheel"``.
    description : str, optional
        Free text.
    """

    position: NDArray[np.float64]
    rotation: NDArray[np.float64]
    approach: NDArray[np.float64]
    name: str = "target"
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "position", _vector3(self.position, "target.position"))
        object.__setattr__(self, "rotation", _quat(self.rotation, "target.rotation"))
        a = np.array(self.approach, dtype=np.float64)
        if a.shape != (3,) or not np.all(np.isfinite(a)) or np.linalg.norm(a) < 1e-9:
            raise InputError(f"target.approach must be a non-zero 3-vector, got {self.approach!r}")
        a = a / np.linalg.norm(a)
        a.setflags(write=False)
        object.__setattr__(self, "approach", a)

    @property
    def pose(self) -> RigidTransform:
        """``T_world_target``."""
        return RigidTransform(self.rotation, self.position)

    def to_dict(self) -> dict[str, Any]:
        """The target as in a scene file."""
        out: dict[str, Any] = {
            "name": self.name,
            "position": _vec_dict(self.position),
            "quaternion": _vec_dict(self.rotation),
            "approach": _vec_dict(self.approach),
        }
        if self.description:
            out["description"] = self.description
        return out


@dataclass(frozen=True, eq=False)
class Scene:
    """A maintenance scene: solid objects, floor, ceiling and the target.

    Parameters
    ----------
    name : str
        Short name (the built-in scenes are called by it).
    objects : sequence of SceneObject
        With unique names (``"floor"`` and ``"ceiling"`` are reserved).
    target : Target
        The maintenance target; it must lie above the floor, below the ceiling
        and outside every object.
    floor : float, optional
        Height of the floor surface [m].
    ceiling : float or None, optional
        Height of the ceiling surface [m] (> floor), or None for an open top.
    description : str, optional
        Free text (dimensions, what the task is).

    Raises
    ------
    InputError
        For duplicate or reserved names, a ceiling not above the floor, or a
        target below the floor, above the ceiling or inside an object (the
        message names the object).
    """

    name: str
    objects: tuple[SceneObject, ...]
    target: Target
    floor: float = 0.0
    ceiling: float | None = None
    description: str = ""

    def __post_init__(self) -> None:
        objects = tuple(self.objects)
        names = [o.name for o in objects]
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise InputError(f"scene {self.name!r}: object names must be unique; repeated: {dup}")
        reserved = sorted({"floor", "ceiling"} & set(names))
        if reserved:
            raise InputError(f"scene {self.name!r}: object names {reserved} are reserved")
        floor = float(self.floor)
        if not np.isfinite(floor):
            raise InputError(f"scene {self.name!r}: floor must be a finite height in m")
        ceiling = None if self.ceiling is None else float(self.ceiling)
        if ceiling is not None and not (np.isfinite(ceiling) and ceiling > floor):
            raise InputError(
                f"scene {self.name!r}: ceiling must be a finite height above the floor "
                f"({floor} m), got {self.ceiling!r}"
            )
        object.__setattr__(self, "objects", objects)
        object.__setattr__(self, "floor", floor)
        object.__setattr__(self, "ceiling", ceiling)
        where = self.containing(self.target.position)
        if where is not None:
            p = ", ".join(f"{x:.3f}" for x in self.target.position)
            raise InputError(
                f"scene {self.name!r}: target.position ({p}) m lies inside "
                + (f"the {where}" if where in ("floor", "ceiling") else f"object {where!r}")
                + "; the target must be in free space (e.g. just in front of the part)"
            )

    @property
    def object_names(self) -> tuple[str, ...]:
        """Names of the objects, in order."""
        return tuple(o.name for o in self.objects)

    def object(self, name: str) -> SceneObject:
        """The object called ``name``.

        Raises
        ------
        InputError
            If there is none; the message lists the names.
        """
        for o in self.objects:
            if o.name == name:
                return o
        raise InputError(f"scene {self.name!r} has no object {name!r}; it has {self.object_names}")

    def contains(self, points: ArrayLike) -> NDArray[np.bool_]:
        """Whether world points ``(..., 3)`` lie in a solid (object, floor or ceiling) ``(...,)``.

        Exact for the primitives; meshes by the winding number.

        Raises
        ------
        InputError
            If ``points`` has NaN or the wrong shape.
        """
        p = np.asarray(points, dtype=np.float64)
        if p.ndim == 0 or p.shape[-1] != 3:
            raise InputError(f"points must have shape (..., 3), got shape {p.shape}")
        if not np.all(np.isfinite(p)):
            raise InputError("points contain NaN or infinite values")
        inside = p[..., 2] < self.floor
        if self.ceiling is not None:
            inside |= p[..., 2] > self.ceiling
        for o in self.objects:
            inside |= o.contains(p)
        return inside

    def containing(self, point: ArrayLike) -> str | None:
        """Name of the first solid holding a world point (3,): an object, ``"floor"``,
        ``"ceiling"``, or None when the point is in free space."""
        p = _vector3(point, "point")
        if p[2] < self.floor:
            return "floor"
        if self.ceiling is not None and p[2] > self.ceiling:
            return "ceiling"
        for o in self.objects:
            if bool(o.contains(p)):
                return o.name
        return None

    def bounds(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """World box ``(lo, hi)`` holding all objects and the target, from floor to ceiling [m]."""
        boxes = [o.bounds() for o in self.objects]
        pts = np.array([self.target.position, *(b for box in boxes for b in box)])
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        lo[2] = self.floor
        if self.ceiling is not None:
            hi[2] = self.ceiling
        return lo, hi

    def to_dict(self) -> dict[str, Any]:
        """The scene as written by `save_scene` (metres, quaternions)."""
        out: dict[str, Any] = {"name": self.name, "units": "m"}
        if self.description:
            out["description"] = self.description
        out["floor"] = self.floor
        if self.ceiling is not None:
            out["ceiling"] = self.ceiling
        out["target"] = self.target.to_dict()
        out["objects"] = [o.to_dict() for o in self.objects]
        return out
