"""The torso-and-leg posture library of Luo et al.: named postures as joint angles, on the floor.

Postures are read from a YAML file of anatomical joint angles in degrees (the
built-in one is ``vhuman/data/postures/library.yaml``, which documents the
format) and turned into poses of a skeleton with the joints of
:func:`vhuman.skeleton.standard_humanoid`. Each pose is lowered until its lowest
body point (a capsule surface of `vhuman.scene.BodyModel`) touches the floor,
and scored with REBA Table A (trunk, neck, legs), the comfort term V_comfort of
the placement search.

References
----------
Luo M. et al., "Modelling of virtual human maintenance postures in narrow ship
spaces", section 4.1 and Fig. 5 (the posture library) and section 2.2 (3)
(V_comfort from REBA's trunk and legs). Hignett, S., & McAtamney, L. (2000).
Rapid Entire Body Assessment (REBA). Applied Ergonomics 31(2), 201–205.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from numpy.typing import NDArray

from vhuman.data import shipped_path
from vhuman.ergonomics import REBAConditions, reba_posture_a
from vhuman.errors import FileFormatError, InputError
from vhuman.geometry import euler_to_quat
from vhuman.scene import BodyModel
from vhuman.skeleton import JointType, Motion, Skeleton

__all__ = [
    "LIBRARY_MOTIONS",
    "LibraryPosture",
    "PostureLibrary",
    "default_library_path",
    "load_library",
    "pose_on_floor",
    "posture_rotations",
]

LIBRARY_MOTIONS: dict[str, tuple[str, ...]] = {
    "root": ("pitch", "roll", "yaw"),
    "trunk": ("flexion", "side_bend", "twist"),
    "clavicle": ("elevation", "protraction"),
    "hip": ("flexion", "abduction", "external_rotation"),
    "knee": ("flexion",),
    "ankle": ("dorsiflexion",),
    "toe": ("extension",),
    "shoulder": ("flexion", "abduction", "external_rotation"),
    "elbow": ("flexion",),
}
"""Anatomical motions allowed per kind of joint in a library file (degrees)."""

_TRUNK = ("spine", "chest", "neck", "head")


def _kind(joint: str) -> str:
    if joint in _TRUNK:
        return "trunk"
    base = joint[2:] if joint[:2] in ("l_", "r_") else ""
    if base not in LIBRARY_MOTIONS or base in ("root", "trunk"):
        allowed = [*_TRUNK] + [f"{s}_{k}" for k in list(LIBRARY_MOTIONS)[2:] for s in "lr"]
        raise InputError(f"joint {joint!r} cannot be set in a posture; allowed: {allowed}")
    return base


def _hinge(angle: float, axis: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * axis])


def _joint_rotation(skeleton: Skeleton, joint: str, values: Mapping[str, float]) -> NDArray:
    """Local rotation (4,) of ``joint`` from anatomical angles [rad] (see the data file)."""
    kind = _kind(joint)
    j = skeleton.index(joint)
    get = values.get
    # Left and right limbs mirror through the sagittal plane: rotations about x and z
    # change sign on the right side, those about y do not.
    side = -1.0 if joint.startswith("r_") else 1.0
    if kind in ("knee", "elbow", "toe"):
        # Knee flexion is about +y, elbow flexion and toe extension about −y.
        angle = get("flexion", 0.0) if kind != "toe" else get("extension", 0.0)
        return _hinge(angle, skeleton.axes[j])
    if kind == "trunk":
        angles = [get("flexion", 0.0), -get("side_bend", 0.0), get("twist", 0.0)]
    elif kind == "clavicle":
        angles = [0.0, side * get("elevation", 0.0), side * get("protraction", 0.0)]
    elif kind == "hip":
        angles = [
            -get("flexion", 0.0),
            side * get("abduction", 0.0),
            side * get("external_rotation", 0.0),
        ]
    elif kind == "ankle":
        angles = [-get("dorsiflexion", 0.0), 0.0, 0.0]
    else:  # shoulder, sequence YZX: flexion, axial rotation, abduction
        angles = [
            -get("flexion", 0.0),
            side * get("external_rotation", 0.0),
            side * get("abduction", 0.0),
        ]
    return euler_to_quat(np.array(angles), skeleton.limit_sequences[j])


def posture_rotations(
    skeleton: Skeleton,
    joints: Mapping[str, Mapping[str, float]],
    root: Mapping[str, float] | None = None,
    *,
    degrees: bool = True,
) -> NDArray[np.float64]:
    """Local joint rotations ``(J, 4)`` of a posture given as anatomical angles.

    Parameters
    ----------
    skeleton : Skeleton
        With the joint names of :func:`~vhuman.skeleton.standard_humanoid`.
    joints : mapping
        ``{joint name: {motion: angle}}`` with the motions of :data:`LIBRARY_MOTIONS`
        (e.g. ``{"r_knee": {"flexion": 90}}``); unlisted joints stay at rest.
    root : mapping, optional
        Pelvis ``pitch`` (forward +), ``roll`` (to the right +), ``yaw`` (left +);
        ``R = Rz(yaw) Ry(pitch) Rx(roll)``.
    degrees : bool
        Angles in degrees (default) or radians.

    Returns
    -------
    ndarray, shape (J, 4)
        Local rotations (w, x, y, z).

    Raises
    ------
    InputError
        For an unknown joint or motion, or a non-finite angle.
    """
    scale = np.pi / 180.0 if degrees else 1.0
    q = np.tile([1.0, 0.0, 0.0, 0.0], (skeleton.n_joints, 1))
    items = [("root", root or {}), *list(joints.items())]
    for joint, values in items:
        kind = "root" if joint == "root" else _kind(joint)
        if not isinstance(values, Mapping):
            raise InputError(f"{joint}: expected a mapping of motions to angles, got {values!r}")
        allowed = LIBRARY_MOTIONS[kind]
        rad: dict[str, float] = {}
        for motion, value in values.items():
            if motion not in allowed:
                raise InputError(f"{joint}.{motion}: unknown motion; allowed: {list(allowed)}")
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise InputError(f"{joint}.{motion}: expected a number of degrees, got {value!r}")
            if not abs(value) <= 1e6:  # NaN, infinities and integers beyond a float fail
                raise InputError(f"{joint}.{motion}: expected a finite angle, got {value!r}")
            rad[motion] = float(value) * scale
        if joint == "root":
            angles = [rad.get("yaw", 0.0), rad.get("pitch", 0.0), rad.get("roll", 0.0)]
            q[skeleton.index(skeleton.names[0])] = euler_to_quat(np.array(angles), "ZYX")
        else:
            q[skeleton.index(joint)] = _joint_rotation(skeleton, joint, rad)
    return q


@dataclass(frozen=True, eq=False)
class LibraryPosture:
    """One posture of the library, posed on the floor in its own frame.

    The posture frame faces +x with the pelvis above the origin (x = y = 0) and
    the lowest body point on z = 0.

    Attributes
    ----------
    name, description : str
    sitting : bool
        Scored with REBA's sitting rule.
    root_position : ndarray, shape (3,)
        Pelvis position in the posture frame [m].
    local_rotations : ndarray, shape (J, 4)
        Local joint rotations (w, x, y, z).
    reba_a : int
        REBA Table A score (trunk, neck, legs), 1–9, computed from the pose.
    angles_deg : dict
        The joint angles as given in the file [deg].
    """

    name: str
    description: str
    sitting: bool
    root_position: NDArray[np.float64]
    local_rotations: NDArray[np.float64]
    reba_a: int
    angles_deg: dict[str, Any]

    def motion(self, skeleton: Skeleton, fps: float = 30.0) -> Motion:
        """The posture as a one-frame `Motion` of ``skeleton`` in the posture frame."""
        return Motion(skeleton, fps, self.root_position[None], self.local_rotations[None])

    def to_dict(self) -> dict[str, Any]:
        """Name, description, sitting flag, pelvis height [m], REBA Table A score."""
        return {
            "name": self.name,
            "description": self.description,
            "sitting": self.sitting,
            "pelvis_height_m": float(self.root_position[2]),
            "reba_table_a": self.reba_a,
        }


def _lowest_point(body: BodyModel, root: NDArray, rotations: NDArray) -> float:
    a, b = body.capsules(root, rotations)
    return float(np.min(np.minimum(a[:, 2], b[:, 2]) - body.radii))


def pose_on_floor(body: BodyModel, rotations: NDArray[np.float64]) -> NDArray[np.float64]:
    """Pelvis position ``(3,)`` [m] that puts the lowest capsule point of a pose on z = 0."""
    root = np.zeros(3)
    root[2] = -_lowest_point(body, root, rotations)
    return root


@dataclass(frozen=True, eq=False)
class PostureLibrary:
    """Library postures of one skeleton.

    Attributes
    ----------
    skeleton : Skeleton
    postures : tuple of LibraryPosture
    source : str
        Where the postures were read from.
    """

    skeleton: Skeleton
    postures: tuple[LibraryPosture, ...]
    source: str

    @property
    def names(self) -> tuple[str, ...]:
        """Posture names, in file order."""
        return tuple(p.name for p in self.postures)

    def __len__(self) -> int:
        return len(self.postures)

    def __iter__(self) -> Iterator[LibraryPosture]:
        return iter(self.postures)

    def __getitem__(self, name: str) -> LibraryPosture:
        for p in self.postures:
            if p.name == name:
                return p
        raise InputError(f"no library posture {name!r}; postures: {', '.join(self.names)}")

    @property
    def local_rotations(self) -> NDArray[np.float64]:
        """All postures' local rotations ``(M, J, 4)``."""
        return np.stack([p.local_rotations for p in self.postures])

    @property
    def root_positions(self) -> NDArray[np.float64]:
        """All postures' pelvis positions ``(M, 3)`` [m] in their posture frames."""
        return np.stack([p.root_position for p in self.postures])

    @property
    def reba_a(self) -> NDArray[np.int64]:
        """REBA Table A scores ``(M,)``."""
        return np.array([p.reba_a for p in self.postures], dtype=np.int64)

    def to_dict(self) -> dict[str, Any]:
        """The library summary: source and one entry per posture."""
        return {"source": self.source, "postures": [p.to_dict() for p in self.postures]}


def default_library_path() -> Path:
    """The built-in library file ``vhuman/data/postures/library.yaml``."""
    return shipped_path("postures", "library.yaml")


def load_library(
    skeleton: Skeleton,
    path: str | os.PathLike[str] | None = None,
    *,
    body: BodyModel | None = None,
) -> PostureLibrary:
    """Read a posture library and pose it on ``skeleton``.

    Parameters
    ----------
    skeleton : Skeleton
        With the joints of :func:`~vhuman.skeleton.standard_humanoid` and segments.
    path : path, optional
        A library YAML file (format in the built-in file's header); default the
        built-in library of 10 postures.
    body : BodyModel, optional
        The body's capsules for the floor contact (default: built from ``skeleton``).

    Returns
    -------
    PostureLibrary

    Raises
    ------
    FileFormatError
        For a malformed file; the message names the file and the bad field,
        e.g. ``postures[2].joints.r_knee.flexion``.
    InputError
        For a missing file.

    Examples
    --------
    >>> from vhuman.skeleton import standard_humanoid
    >>> lib = load_library(standard_humanoid(sex="male", percentile=95))
    >>> len(lib) >= 8, int(lib["standing"].reba_a)
    (True, 1)
    """
    file = default_library_path() if path is None else Path(path)
    try:
        doc = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read posture library {str(file)!r}: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{file}: not UTF-8 text (byte {exc.start})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise FileFormatError(f"{file}{line}: not valid YAML: {problem}") from None
    if skeleton.joint_types[0] is not JointType.FREE:
        raise InputError("the skeleton's root must be a free joint (the pelvis)")
    body = BodyModel.from_skeleton(skeleton, samples_per_segment=1) if body is None else body
    entries = doc.get("postures") if isinstance(doc, dict) else None
    if not isinstance(entries, list) or not entries:
        raise FileFormatError(f"{file}: postures: expected a non-empty list of postures")
    postures: list[LibraryPosture] = []
    allowed = {"name", "description", "sitting", "root", "joints"}
    for i, entry in enumerate(entries):
        where = f"{file}: postures[{i}]"
        if not isinstance(entry, dict):
            raise FileFormatError(f"{where}: expected a mapping, got {entry!r}")
        unknown = sorted(set(entry) - allowed, key=str)
        if unknown:
            raise FileFormatError(
                f"{where}.{unknown[0]}: unknown field; allowed: {sorted(allowed)}"
            )
        name = entry.get("name")
        if not isinstance(name, str) or not name or name in [p.name for p in postures]:
            raise FileFormatError(f"{where}.name: expected a new non-empty name, got {name!r}")
        sitting = entry.get("sitting", False)
        if not isinstance(sitting, bool):
            raise FileFormatError(f"{where}.sitting: expected true or false, got {sitting!r}")
        joints = entry.get("joints") or {}
        root = entry.get("root") or {}
        if not isinstance(joints, dict) or not isinstance(root, dict):
            raise FileFormatError(f"{where}: root and joints must be mappings")
        if not all(isinstance(k, str) for k in (*joints, *root)):
            raise FileFormatError(f"{where}: root and joints must be mappings of names")
        try:
            rot = posture_rotations(skeleton, joints, root)
        except InputError as exc:
            raise FileFormatError(f"{where}.joints: {exc}") from None
        pelvis = pose_on_floor(body, rot)
        motion = Motion(skeleton, 30.0, pelvis[None], rot[None])
        score = int(reba_posture_a(motion, REBAConditions(sitting=sitting))[0])
        pelvis.setflags(write=False)
        rot.setflags(write=False)
        postures.append(
            LibraryPosture(
                name=name,
                description=str(entry.get("description", "")),
                sitting=sitting,
                root_position=pelvis,
                local_rotations=rot,
                reba_a=score,
                angles_deg={"root": dict(root), **{k: dict(v) for k, v in joints.items()}},
            )
        )
    return PostureLibrary(skeleton, tuple(postures), str(file))
