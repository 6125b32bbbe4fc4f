"""`BodyMap`: which joints of a skeleton play the body parts that REBA and RULA score.

The angle measurement (:mod:`vhuman.ergonomics.angles`) works on any skeleton
whose rest pose follows the project convention (upright, facing +x, +y on the
body's left, rest frames parallel to the world): it reads joint positions and
frames from forward kinematics and needs only to know which joint is the hip,
the knee, the shoulder, ... A `BodyMap` names them. Three maps are built in:
the standard humanoid (:func:`vhuman.skeleton.standard_humanoid`), the CMU
skeleton (:func:`vhuman.io.cmu.cmu_skeleton`) and the DeepMimic humanoid
(:func:`vhuman.io.deepmimic_humanoid`). One joint may play several parts
where a skeleton has no separate joint for each.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.ergonomics._yaml import read_yaml_mapping
from vhuman.errors import InputError, UnknownJointError
from vhuman.skeleton.skeleton import Skeleton

__all__ = [
    "BUILT_IN_BODY_MAPS",
    "CMU_BODY_MAP",
    "DEEPMIMIC_BODY_MAP",
    "STANDARD_BODY_MAP",
    "BodyIndices",
    "BodyMap",
    "default_body_map",
    "read_body_map",
]

_PAIRED = ("clavicle", "shoulder", "elbow", "wrist", "hand", "hip", "knee", "ankle", "toe")


@dataclass(frozen=True)
class BodyMap:
    """Body part → joint name(s); paired parts are ``(left, right)``.

    Parameters
    ----------
    pelvis : str
        Bottom of the trunk line (the pelvis centre; its frame gives the
        heading when the hip line is vertical).
    upper_trunk : str
        Joint whose frame carries the shoulder girdle (trunk twist is the turn of
        its lateral axis against the hip line).
    neck : str
        Cervicothoracic joint: top of the trunk line.
    head : str
        Joint whose frame is the head's (its rest +z is the head axis, +x the face).
    clavicle, shoulder, elbow, wrist, hand : tuple of str
        Sternoclavicular joint, glenohumeral joint, elbow, wrist, and a point
        distal on the hand (for the hand axis), left then right.
    hip, knee, ankle, toe : tuple of str
        Leg joints, left then right; the lowest of knee, ankle and toe is the
        leg's contact with the ground.
    palm_normal : tuple of float
        Unit direction the left palm faces in the rest pose, world frame (the
        right palm is its mirror image through the x-z plane). The rest pose's
        forearm rotation is the neutral (mid-prone) one.
    """

    pelvis: str
    upper_trunk: str
    neck: str
    head: str
    clavicle: tuple[str, str]
    shoulder: tuple[str, str]
    elbow: tuple[str, str]
    wrist: tuple[str, str]
    hand: tuple[str, str]
    hip: tuple[str, str]
    knee: tuple[str, str]
    ankle: tuple[str, str]
    toe: tuple[str, str]
    palm_normal: tuple[float, float, float] = (0.0, -1.0, 0.0)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _PAIRED:
                if not (
                    isinstance(value, tuple)
                    and len(value) == 2
                    and all(isinstance(v, str) and v for v in value)
                ):
                    raise InputError(
                        f"BodyMap.{f.name} must be a (left, right) pair of joint names, "
                        f"got {value!r}"
                    )
            elif f.name != "palm_normal" and not (isinstance(value, str) and value):
                raise InputError(f"BodyMap.{f.name} must be a joint name, got {value!r}")
        try:
            n = np.asarray(self.palm_normal, dtype=np.float64)
        except (TypeError, ValueError):
            n = np.full(0, np.nan)
        if n.shape != (3,) or not np.all(np.isfinite(n)) or np.linalg.norm(n) < 1e-9:
            raise InputError(
                f"BodyMap.palm_normal must be a non-zero finite 3-vector, got {self.palm_normal!r}"
            )
        object.__setattr__(self, "palm_normal", tuple(float(x) for x in n / np.linalg.norm(n)))

    @classmethod
    def from_mapping(cls, values: dict[str, Any], source: str = "body map") -> BodyMap:
        """A map from a mapping (as in a YAML file): paired parts as ``[left, right]`` lists.

        Raises
        ------
        InputError
            Naming ``source`` for unknown or missing parts or bad joint names.
        """
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(values) - set(names))
        missing = [n for n in names if n not in values and n != "palm_normal"]
        if unknown or missing:
            raise InputError(
                f"{source}: "
                + (f"unknown parts {unknown}; " if unknown else "")
                + (f"missing parts {missing}; " if missing else "")
                + f"a body map has: {names}"
            )
        args = {k: tuple(v) if isinstance(v, list) else v for k, v in values.items()}
        try:
            return cls(**args)
        except InputError as exc:
            raise InputError(f"{source}: {exc}") from None

    def joint_names(self) -> tuple[str, ...]:
        """Every joint name the map uses."""
        out: list[str] = []
        for f in fields(self):
            value = getattr(self, f.name)
            if f.name in _PAIRED:
                out.extend(value)
            elif f.name != "palm_normal":
                out.append(value)
        return tuple(out)

    def resolve(self, skeleton: Skeleton) -> BodyIndices:
        """Joint indices of this map on ``skeleton``.

        Raises
        ------
        UnknownJointError
            If ``skeleton`` lacks a named joint; the message lists the missing
            names and the skeleton's joints.
        """
        missing = [n for n in self.joint_names() if n not in skeleton.names]
        if missing:
            raise UnknownJointError(
                f"body map names joints the skeleton does not have: {missing}; "
                f"the skeleton has: {', '.join(skeleton.names)}"
            )

        def pair(p: tuple[str, str]) -> NDArray[np.intp]:
            return skeleton.indices(p)

        return BodyIndices(
            pelvis=skeleton.index(self.pelvis),
            upper_trunk=skeleton.index(self.upper_trunk),
            neck=skeleton.index(self.neck),
            head=skeleton.index(self.head),
            clavicle=pair(self.clavicle),
            shoulder=pair(self.shoulder),
            elbow=pair(self.elbow),
            wrist=pair(self.wrist),
            hand=pair(self.hand),
            hip=pair(self.hip),
            knee=pair(self.knee),
            ankle=pair(self.ankle),
            toe=pair(self.toe),
        )


@dataclass(frozen=True, eq=False)
class BodyIndices:
    """Joint indices of a `BodyMap` on one skeleton; paired entries are ``(2,)`` (left, right)."""

    pelvis: int
    upper_trunk: int
    neck: int
    head: int
    clavicle: NDArray[np.intp]
    shoulder: NDArray[np.intp]
    elbow: NDArray[np.intp]
    wrist: NDArray[np.intp]
    hand: NDArray[np.intp]
    hip: NDArray[np.intp]
    knee: NDArray[np.intp]
    ankle: NDArray[np.intp]
    toe: NDArray[np.intp]


STANDARD_BODY_MAP = BodyMap(
    pelvis="pelvis",
    upper_trunk="chest",
    neck="neck",
    head="head",
    clavicle=("l_clavicle", "r_clavicle"),
    shoulder=("l_shoulder", "r_shoulder"),
    elbow=("l_elbow", "r_elbow"),
    wrist=("l_wrist", "r_wrist"),
    hand=("l_hand", "r_hand"),
    hip=("l_hip", "r_hip"),
    knee=("l_knee", "r_knee"),
    ankle=("l_ankle", "r_ankle"),
    toe=("l_toe", "r_toe"),
    palm_normal=(0.0, -1.0, 0.0),
)
"""The standard humanoid: rest pose with arms hanging, palms facing the thighs."""

CMU_BODY_MAP = BodyMap(
    pelvis="hips",
    upper_trunk="thorax",
    neck="neck_base",
    head="head",
    clavicle=("lclavicle_base", "rclavicle_base"),
    shoulder=("lshoulder", "rshoulder"),
    elbow=("lelbow", "relbow"),
    wrist=("lwrist", "rwrist"),
    hand=("lhand", "rhand"),
    hip=("lhip", "rhip"),
    knee=("lknee", "rknee"),
    ankle=("lankle", "rankle"),
    toe=("ltoe", "rtoe"),
    # Rest pose: T-pose, thumbs forward (+x), so palms face down.
    palm_normal=(0.0, 0.0, -1.0),
)
"""The 38-joint CMU skeleton (rest pose: a T-pose with palms down)."""


DEEPMIMIC_BODY_MAP = BodyMap(
    pelvis="root",
    upper_trunk="chest",
    neck="neck",
    head="neck",
    clavicle=("chest", "chest"),
    shoulder=("left_shoulder", "right_shoulder"),
    elbow=("left_elbow", "right_elbow"),
    wrist=("left_wrist", "right_wrist"),
    hand=("left_wrist", "right_wrist"),
    hip=("left_hip", "right_hip"),
    knee=("left_knee", "right_knee"),
    ankle=("left_ankle", "right_ankle"),
    toe=("left_ankle", "right_ankle"),
    palm_normal=(0.0, -1.0, 0.0),
)
"""The 15-joint DeepMimic humanoid. It has no clavicle, hand, toe or separate head
joint: the neck joint's frame is the head's, the shoulders are rigid on the chest
(shoulder raise reads 0), the hand has no length (wrist flexion, deviation and
forearm rotation read 0) and the ankle is the foot's lowest point."""

BUILT_IN_BODY_MAPS: dict[str, BodyMap] = {
    "standard": STANDARD_BODY_MAP,
    "cmu": CMU_BODY_MAP,
    "deepmimic": DEEPMIMIC_BODY_MAP,
}
"""Built-in maps by name, in the order :func:`default_body_map` tries them."""


def default_body_map(skeleton: Skeleton) -> BodyMap:
    """The first built-in map whose joints ``skeleton`` has (standard, CMU, DeepMimic).

    Raises
    ------
    UnknownJointError
        If no built-in map fits; pass a `BodyMap` for other skeletons.
    """
    names = set(skeleton.names)
    for body_map in BUILT_IN_BODY_MAPS.values():
        if names.issuperset(body_map.joint_names()):
            return body_map
    missing = sorted(set(STANDARD_BODY_MAP.joint_names()) - names)
    raise UnknownJointError(
        f"no built-in body map fits this skeleton (it lacks {missing} of the standard "
        "humanoid's joints and some of the CMU and DeepMimic skeletons'); "
        "pass body_map=BodyMap(...)"
    )


def read_body_map(spec: str | os.PathLike[str]) -> BodyMap:
    """A built-in map by name (:data:`BUILT_IN_BODY_MAPS`) or one read from a YAML/JSON file.

    The file maps each `BodyMap` field to a joint name, paired parts to
    ``[left, right]``, e.g. ``shoulder: [LeftArm, RightArm]``.

    Raises
    ------
    InputError
        For a name that is neither built in nor an existing file, an unreadable or
        malformed file, or missing/unknown parts; one line naming the problem.
    """
    name = str(spec)
    if name in BUILT_IN_BODY_MAPS:
        return BUILT_IN_BODY_MAPS[name]
    p = Path(spec)
    if not p.is_file():
        raise InputError(
            f"unknown body map {name!r}: neither a built-in map "
            f"({', '.join(BUILT_IN_BODY_MAPS)}) nor an existing YAML file"
        )
    doc = read_yaml_mapping(p, "a body map file", "a mapping of body part: joint name(s)")
    return BodyMap.from_mapping(doc, source=str(p))
