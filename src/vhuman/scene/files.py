"""Scene files (YAML or JSON): reading with field-by-field validation, atomic writing, built-ins.

The format (YAML shown; JSON has the same structure)::

    name: ship-valve                 # required, a short name
    description: free text           # optional
    units: m                         # optional, "m" (default) or "mm": all lengths
    floor: 0.0                       # optional, floor surface height (default 0)
    ceiling: 1.45                    # optional, ceiling surface height (> floor)
    target:                          # required: the maintenance target frame
      name: valve handwheel          # optional
      position: [0.56, 0.0, 0.62]    # where the hand should be
      rpy: [0, 90, 0]                # orientation: rpy in degrees, or
      # quaternion: [w, x, y, z]     #   a quaternion (not both; neither = identity)
      approach: [1, 0, 0]            # direction the hand moves onto the target
      description: free text         # optional
    objects:                         # list of solids, each with a unique name
      - name: tank
        type: cylinder               # box | cylinder | sphere | capsule | mesh
        radius: 0.45                 # cylinder, sphere, capsule
        length: 1.2                  # cylinder, capsule: along the local z axis
        # size: [sx, sy, sz]         # box: full side lengths
        # path: parts/valve.stl      # mesh: STL or OBJ, relative to this file
        # scale: 0.001               # mesh: optional factor on the file's numbers
        position: [1.1, 0.0, 0.6]    # centre of the shape
        rpy: [0, 0, 0]               # or quaternion, as for the target
        color: "#8c9aa8"             # optional, for drawings
        description: free text       # optional

Conventions: z up, metres (or millimetres with ``units: mm``); ``rpy`` is
roll about x, then pitch about y, then yaw about z, all about the fixed world
axes (``R = Rz(yaw) Ry(pitch) Rx(roll)``); quaternions are (w, x, y, z).
Shapes are centred on ``position``; cylinders and capsules run along their
local z axis (``length`` is a capsule's axis length, without its caps).
Meshes must be closed (watertight) solids. Unknown fields are errors, so a
typo is not silently ignored. Errors are one line naming the file, the line
and the field, e.g. ``scene.yaml:12: objects[3].size: expected 3 positive
numbers, got [0.3, -1, 0.2]`` (also for an empty file, bad YAML or JSON, NaN
and a target inside a solid).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from vhuman.data import shipped_path
from vhuman.errors import FileFormatError, InputError
from vhuman.geometry import euler_to_quat
from vhuman.io import atomic_write
from vhuman.scene.scene import Scene, SceneObject, Target
from vhuman.scene.shapes import Box, Capsule, Cylinder, Mesh, Shape, Sphere

__all__ = ["SCENE_SUFFIXES", "builtin_scenes", "load_scene", "save_scene", "scene_from_dict"]

SCENE_SUFFIXES: tuple[str, ...] = (".yaml", ".yml", ".json")
"""File name endings of scene files."""

_UNITS = {"m": 1.0, "mm": 0.001}
_MAX_MAGNITUDE = 1e6  # largest number in a scene file (1 km in mm): more is damage


def _finite(value: Any) -> bool:
    """Whether ``value`` is a number (not a bool) that is finite as a float."""
    if not isinstance(value, int | float) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an integer beyond the float range
        return False


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml when PyYAML has it
_TOP_FIELDS = ("name", "description", "units", "floor", "ceiling", "target", "objects")
_POSE_FIELDS = ("position", "rpy", "quaternion")
_SHAPE_FIELDS: dict[str, tuple[str, ...]] = {
    "box": ("size",),
    "sphere": ("radius",),
    "cylinder": ("radius", "length"),
    "capsule": ("radius", "length"),
    "mesh": ("path", "scale"),
}
_OBJECT_FIELDS = ("name", "type", *_POSE_FIELDS, "color", "description")
_TARGET_FIELDS = ("name", *_POSE_FIELDS, "approach", "description")


def _builtin_folder() -> Path:
    return shipped_path("scenes")


def builtin_scenes() -> tuple[str, ...]:
    """Names of the scenes shipped with vhuman (load them with `load_scene`), sorted."""
    return tuple(sorted(p.stem for p in _builtin_folder().glob("*.yaml")))


def _field_lines(text: str) -> dict[str, int]:
    """Line (1-based) of every field path in a YAML or JSON text, e.g. ``objects[3].size``.

    Empty when the text is not YAML (JSON is YAML here).
    """
    try:
        root = yaml.compose(text)
    except yaml.YAMLError:
        return {}
    out: dict[str, int] = {}

    def walk(node: yaml.Node, path: str) -> None:
        if path:
            out[path] = node.start_mark.line + 1
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                name = str(key.value)
                out[f"{path}.{name}" if path else name] = key.start_mark.line + 1
                walk(value, f"{path}.{name}" if path else name)
                # A field's line is its key's (a flow list may start on the next line).
                out[f"{path}.{name}" if path else name] = key.start_mark.line + 1
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, f"{path}[{i}]")

    if root is not None:
        walk(root, "")
    return out


class _Reader:
    """Validates one parsed scene document; errors name the file, line and field path."""

    def __init__(self, source: str, folder: Path | None, text: str | None = None) -> None:
        self.source = source
        self.folder = folder
        self.factor = 1.0
        self.raw = text
        self._lines: dict[str, int] | None = None

    @property
    def lines(self) -> dict[str, int]:
        """Field path → line, parsed from the text on the first error only."""
        if self._lines is None:
            self._lines = _field_lines(self.raw) if self.raw is not None else {}
        return self._lines

    def where(self, field: str) -> str:
        """``source:line`` of a field path (of its nearest listed parent)."""
        path = field
        while path:
            if path in self.lines:
                return f"{self.source}:{self.lines[path]}"
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        # A missing top-level field: the document's first line.
        return f"{self.source}:1" if self.lines else self.source

    def fail(self, where: str, message: str) -> FileFormatError:
        return FileFormatError(f"{self.where(where)}: {where}: {message}")

    def mapping(self, value: Any, where: str, allowed: tuple[str, ...]) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(where, f"expected a mapping of fields, got {value!r}")
        unknown = [k for k in value if k not in allowed]
        if unknown:
            raise self.fail(
                f"{where}.{unknown[0]}" if where else str(unknown[0]),
                f"unknown field; allowed: {', '.join(allowed)}",
            )
        return value

    def number(self, value: Any, where: str, *, positive: bool = False) -> float:
        if _finite(value) and (not positive or value > 0):
            if abs(value) > _MAX_MAGNITUDE:
                raise self.fail(where, f"expected at most {_MAX_MAGNITUDE:g}, got {value!r}")
            return float(value)
        kind = "a positive number" if positive else "a finite number"
        raise self.fail(where, f"expected {kind}, got {value!r}")

    def numbers(self, value: Any, where: str, n: int, *, positive: bool = False) -> list[float]:
        ok = isinstance(value, list | tuple) and len(value) == n
        ok = ok and all(_finite(v) and (not positive or v > 0) for v in value)
        if not ok:
            kind = "positive numbers" if positive else "finite numbers"
            raise self.fail(where, f"expected {n} {kind}, got {value!r}")
        if any(abs(v) > _MAX_MAGNITUDE for v in value):
            raise self.fail(where, f"expected numbers of at most {_MAX_MAGNITUDE:g}, got {value!r}")
        return [float(v) for v in value]

    def text(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise self.fail(where, f"expected a non-empty string, got {value!r}")
        return value

    def length(self, value: Any, where: str, *, positive: bool = True) -> float:
        return self.number(value, where, positive=positive) * self.factor

    def rotation(self, fields: Mapping[str, Any], where: str) -> np.ndarray:
        if "rpy" in fields and "quaternion" in fields:
            raise self.fail(where, "give the orientation as rpy or as quaternion, not both")
        if "rpy" in fields:
            rpy = self.numbers(fields["rpy"], f"{where}.rpy", 3)
            return euler_to_quat(rpy, "xyz", degrees=True)
        if "quaternion" in fields:
            q = self.numbers(fields["quaternion"], f"{where}.quaternion", 4)
            if np.linalg.norm(q) < 1e-9:
                raise self.fail(f"{where}.quaternion", f"expected a non-zero (w, x, y, z), got {q}")
            return np.array(q) / np.linalg.norm(q)
        return np.array([1.0, 0.0, 0.0, 0.0])

    def position(self, fields: Mapping[str, Any], where: str) -> np.ndarray:
        if "position" not in fields:
            raise self.fail(where, "missing field 'position' ([x, y, z])")
        return np.array(self.numbers(fields["position"], f"{where}.position", 3)) * self.factor

    def shape(self, kind: str, fields: Mapping[str, Any], where: str) -> Shape:
        for key in _SHAPE_FIELDS[kind]:
            if key not in fields and key != "scale":
                raise self.fail(where, f"missing field {key!r} for a {kind}")
        if kind == "box":
            size = self.numbers(fields["size"], f"{where}.size", 3, positive=True)
            return Box(tuple(s * self.factor for s in size))  # type: ignore[arg-type]
        if kind == "sphere":
            return Sphere(self.length(fields["radius"], f"{where}.radius"))
        if kind in ("cylinder", "capsule"):
            radius = self.length(fields["radius"], f"{where}.radius")
            length = self.length(fields["length"], f"{where}.length", positive=kind == "cylinder")
            if kind == "capsule" and length < 0:
                raise self.fail(f"{where}.length", f"expected a number >= 0, got {length}")
            return Cylinder(radius, length) if kind == "cylinder" else Capsule(radius, length)
        return self.mesh(fields, where)

    def mesh(self, fields: Mapping[str, Any], where: str) -> Mesh:
        rel = self.text(fields["path"], f"{where}.path")
        scale = self.number(fields.get("scale", 1.0), f"{where}.scale", positive=True)
        path = Path(rel) if Path(rel).is_absolute() or self.folder is None else self.folder / rel
        if path.suffix.lower() not in (".stl", ".obj"):
            raise self.fail(f"{where}.path", f"expected an .stl or .obj file, got {rel!r}")
        if not path.is_file():
            raise self.fail(f"{where}.path", f"no such file {str(path)!r}")
        import trimesh

        try:
            loaded = trimesh.load(
                path, file_type=path.suffix.lower()[1:], force="mesh", process=True
            )
        except Exception as exc:  # trimesh raises many kinds for a malformed file
            raise self.fail(f"{where}.path", f"cannot read mesh {rel!r}: {exc}") from None
        total = scale * self.factor
        try:
            return Mesh(
                np.asarray(loaded.vertices) * total,
                np.asarray(loaded.faces),
                str(path.resolve()),
                total,
            )
        except InputError as exc:
            raise self.fail(f"{where}.path", str(exc)) from None

    def scene_object(self, value: Any, where: str) -> SceneObject:
        kind = value.get("type") if isinstance(value, Mapping) else None
        if not isinstance(kind, str) or kind not in _SHAPE_FIELDS:
            if not isinstance(value, Mapping):
                raise self.fail(where, f"expected a mapping of fields, got {value!r}")
            raise self.fail(
                f"{where}.type", f"expected one of {', '.join(_SHAPE_FIELDS)}, got {kind!r}"
            )
        fields = self.mapping(value, where, (*_OBJECT_FIELDS, *_SHAPE_FIELDS[kind]))
        if "name" not in fields:
            raise self.fail(where, "missing field 'name'")
        name = self.text(fields["name"], f"{where}.name")
        color = fields.get("color")
        if color is not None:
            color = self.text(color, f"{where}.color")
        return SceneObject(
            name=name,
            shape=self.shape(kind, fields, where),
            position=self.position(fields, where),
            rotation=self.rotation(fields, where),
            color=color,
            description=str(fields.get("description", "")),
        )

    def target(self, value: Any) -> Target:
        fields = self.mapping(value, "target", _TARGET_FIELDS)
        if "approach" not in fields:
            raise self.fail("target", "missing field 'approach' ([dx, dy, dz])")
        approach = self.numbers(fields["approach"], "target.approach", 3)
        if np.linalg.norm(approach) < 1e-9:
            raise self.fail("target.approach", f"expected a non-zero direction, got {approach}")
        return Target(
            position=self.position(fields, "target"),
            rotation=self.rotation(fields, "target"),
            approach=approach,
            name=self.text(fields.get("name", "target"), "target.name"),
            description=str(fields.get("description", "")),
        )

    def scene(self, doc: Any) -> Scene:
        fields = self.mapping(doc, "", _TOP_FIELDS)
        units = fields.get("units", "m")
        if not isinstance(units, str) or units not in _UNITS:
            raise self.fail("units", f"expected one of {', '.join(_UNITS)}, got {units!r}")
        self.factor = _UNITS[units]
        if "name" not in fields:
            raise self.fail("name", "missing (a short name for the scene)")
        if "target" not in fields:
            raise self.fail("target", "missing (the maintenance target frame)")
        objects = fields.get("objects", [])
        if not isinstance(objects, list):
            raise self.fail("objects", f"expected a list of objects, got {objects!r}")
        parsed = [self.scene_object(o, f"objects[{i}]") for i, o in enumerate(objects)]
        seen: dict[str, int] = {}
        for i, o in enumerate(parsed):
            if o.name in seen:
                first = f"objects[{seen[o.name]}]"
                raise self.fail(f"objects[{i}].name", f"{o.name!r} is already the name of {first}")
            if o.name in ("floor", "ceiling"):
                raise self.fail(f"objects[{i}].name", f"{o.name!r} is reserved")
            seen[o.name] = i
        floor = self.length(fields.get("floor", 0.0), "floor", positive=False)
        ceiling = fields.get("ceiling")
        if ceiling is not None:
            ceiling = self.length(ceiling, "ceiling", positive=False)
            if ceiling <= floor:
                raise self.fail("ceiling", f"expected a height above the floor ({floor} m)")
        target = self.target(fields["target"])
        try:
            return Scene(
                name=self.text(fields["name"], "name"),
                objects=tuple(parsed),
                target=target,
                floor=floor,
                ceiling=ceiling,
                description=str(fields.get("description", "")),
            )
        except InputError as exc:
            field = "target.position" if "target" in str(exc) else "objects"
            raise FileFormatError(f"{self.where(field)}: {exc}") from None


def scene_from_dict(
    doc: Mapping[str, Any], *, folder: str | os.PathLike[str] | None = None, source: str = "scene"
) -> Scene:
    """A `Scene` from a parsed scene document (the structure of the file format above).

    Parameters
    ----------
    doc : mapping
        As read from YAML or JSON.
    folder : path, optional
        Folder that relative mesh paths start from (default: the working folder).
    source : str, optional
        Name used in error messages.

    Raises
    ------
    FileFormatError
        For any invalid field; the message is ``"<source>: <field path>: <problem>"``,
        e.g. ``"scene.yaml: objects[3].size: expected 3 positive numbers, got [1, -2, 3]"``.
    """
    return _Reader(source, None if folder is None else Path(folder)).scene(doc)


def load_scene(path_or_name: str | os.PathLike[str]) -> Scene:
    """Read a scene file, or a built-in scene by name.

    Scene files are YAML (``.yaml``, ``.yml``) or JSON (``.json``) in the format
    described in :mod:`vhuman.scene.files`: a ``name``, optional ``description``,
    ``units`` (``m`` or ``mm``), ``floor`` and ``ceiling`` heights, the
    ``target`` (``position``, ``rpy`` in degrees or ``quaternion`` w-x-y-z,
    ``approach`` direction) and a list of ``objects``, each with a unique
    ``name``, a ``type`` (``box`` with ``size``; ``sphere`` with ``radius``;
    ``cylinder`` or ``capsule`` with ``radius`` and ``length`` along local z;
    ``mesh`` with an STL/OBJ ``path`` relative to the scene file and an optional
    ``scale``), a ``position``, an optional orientation (``rpy`` or
    ``quaternion``), ``color`` and ``description``.

    Parameters
    ----------
    path_or_name : str or os.PathLike
        A file path, or the name of a built-in scene (see `builtin_scenes`).

    Returns
    -------
    Scene
        In metres, rotations as quaternions.

    Raises
    ------
    InputError
        For a missing file or an unknown built-in name (the message lists the built-ins).
    FileFormatError
        For a malformed file; the message gives the file, the line and the path of
        the bad field, e.g. ``scene.yaml:12: objects[3].size: expected 3 positive
        numbers, got [1, -2, 3]``, or names the object that holds the target.

    Examples
    --------
    >>> scene = load_scene("ship-valve")
    >>> scene.ceiling < 1.775  # a standing 95th-percentile man does not fit
    True
    """
    path = Path(path_or_name)
    if path.suffix.lower() not in SCENE_SUFFIXES and not path.exists():
        names = builtin_scenes()
        if str(path_or_name) not in names:
            raise InputError(
                f"no scene file or built-in scene {str(path_or_name)!r}; built-in scenes: "
                f"{', '.join(names)}; files must end in {', '.join(SCENE_SUFFIXES)}"
            )
        path = _builtin_folder() / f"{path_or_name}.yaml"
    if path.suffix.lower() not in SCENE_SUFFIXES:
        raise InputError(f"scene file {str(path)!r} must end in {', '.join(SCENE_SUFFIXES)}")
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise InputError(f"cannot read scene file {str(path)!r}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise FileFormatError(f"{path}: not UTF-8 text") from None
    try:
        doc = json.loads(text) if path.suffix.lower() == ".json" else yaml.load(text, _LOADER)
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"{path}:{exc.lineno}: not valid JSON: {exc.msg}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FileFormatError(f"{path}{line}: not valid YAML: {problem}") from None
    if doc is None:
        raise FileFormatError(f"{path}: the file is empty; a scene needs name, target and objects")
    return _Reader(str(path), path.parent, text).scene(doc)


def save_scene(scene: Scene, path: str | os.PathLike[str]) -> Path:
    """Write ``scene`` to a YAML or JSON file (by suffix), atomically.

    Lengths are written in metres and rotations as quaternions; mesh paths are
    written relative to the new file's folder, so that `load_scene` reads back
    the same scene.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    InputError
        If the suffix is not one of :data:`SCENE_SUFFIXES` or the file cannot be written.
    """
    p = Path(path)
    if p.suffix.lower() not in SCENE_SUFFIXES:
        raise InputError(f"scene file {str(p)!r} must end in {', '.join(SCENE_SUFFIXES)}")
    doc = scene.to_dict()
    folder = p.resolve().parent
    for entry in doc["objects"]:
        if entry["type"] == "mesh":
            # On another drive (Windows) there is no relative path: keep it absolute.
            with contextlib.suppress(ValueError):
                entry["path"] = Path(os.path.relpath(entry["path"], folder)).as_posix()
    if p.suffix.lower() == ".json":
        text = json.dumps(doc, indent=2) + "\n"
    else:
        header = "# vhuman scene file: z up, metres, quaternions (w, x, y, z)\n"
        text = header + yaml.safe_dump(doc, sort_keys=False, default_flow_style=None)
    atomic_write(p, text)
    return p
