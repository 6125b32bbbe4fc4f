"""Body angles for REBA and RULA, measured geometrically from a pose.

Everything is read from forward kinematics (world joint positions and frames),
so the angles mean the same on any skeleton a `BodyMap` describes:

- **Trunk line**: from the pelvis joint to the neck (cervicothoracic) joint.
  **Heading**: horizontal, perpendicular to the hip line (left hip − right
  hip), pointing forward. Trunk flexion is the angle of the trunk line
  from vertical in the heading's sagittal plane (positive forward), side bend
  its angle out of that plane (positive to the left), twist the turn of the
  upper trunk's lateral axis against the hip line about the trunk line
  (positive to the left).
- **Trunk frame** (for neck and arms): up = trunk line, left = the upper
  trunk's lateral axis made perpendicular to it, forward = left × up.
- **Neck**: the head axis (head frame's rest +z) in the trunk frame: flexion in
  the sagittal plane (positive forward), side bend out of it; twist = turn of
  the face (rest +x) against trunk forward about the head axis.
- **Upper arm** (shoulder → elbow) in the trunk frame: elevation = angle from
  the trunk's downward axis; ``upper_arm_flexion`` = that elevation, negative
  (extension) when the arm points more backward than sideways;
  ``upper_arm_abduction`` = angle out of the sagittal plane, positive away
  from the body. ``upper_arm_rotation`` = internal (positive) or external
  rotation of the humerus about its own axis against the upper trunk: the
  twist of the shoulder joint's rotation relative to the upper-trunk frame
  about the rest arm axis (swing-twist decomposition), 0 in the rest pose.
  **Shoulder elevation**: rise of the clavicle (sternoclavicular
  → shoulder) above the trunk's transverse plane, relative to the rest pose.
- **Elbow flexion**: angle between upper arm and forearm (0 straight).
- **Wrist**: the forearm axis in the hand frame (palm normal, radial axis, hand
  axis): flexion towards the palm positive, deviation towards the thumb
  (radial) positive. **Forearm rotation**: turn of the hand's radial axis
  about the forearm against the humerus frame, pronation positive, 0 in the
  rest pose (mid-prone: palms facing the thighs on the standard humanoid).
- **Legs**: knee flexion = angle between thigh and shank, hip flexion = the
  thigh's angle from the trunk's downward axis in the sagittal plane; foot
  clearance = height of the leg's lowest point (knee, ankle, toe) above the
  lowest point of both legs [m].

Angles are in radians; sides are ordered :data:`SIDES` (left, right) on the last axis.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.ergonomics.body_map import BodyIndices, BodyMap, default_body_map
from vhuman.errors import InputError
from vhuman.geometry.quaternion import quat_apply, quat_conjugate, quat_multiply
from vhuman.skeleton.kinematics import forward_kinematics
from vhuman.skeleton.motion import Motion
from vhuman.skeleton.skeleton import Skeleton

__all__ = ["SIDES", "BodyAngles", "body_angles", "body_angles_from_rotations"]

SIDES: tuple[str, str] = ("left", "right")
"""Order of the last axis of the paired angles."""

_SIGN = np.array([1.0, -1.0])  # left, right
_X = np.array([1.0, 0.0, 0.0])
_Y = np.array([0.0, 1.0, 0.0])
_Z = np.array([0.0, 0.0, 1.0])
_EPS = 1e-12


@dataclass(frozen=True, eq=False)
class BodyAngles:
    """Posture angles of a batch of poses (shape ``S``; paired parts ``S + (2,)``).

    Angles in radians, offsets in metres; see the module notes for each definition.

    Attributes
    ----------
    trunk_flexion, trunk_side_bend, trunk_twist : ndarray, shape S
    neck_flexion, neck_side_bend, neck_twist : ndarray, shape S
    hip_flexion, knee_flexion : ndarray, shape S + (2,)
    foot_clearance : ndarray, shape S + (2,)
        Height of each leg's lowest point above the lowest of both [m].
    shoulder_elevation : ndarray, shape S + (2,)
        Clavicle rise above its rest angle.
    upper_arm_flexion, upper_arm_abduction, upper_arm_rotation : ndarray, shape S + (2,)
    elbow_flexion : ndarray, shape S + (2,)
    forearm_rotation, wrist_flexion, wrist_deviation : ndarray, shape S + (2,)
    wrist_midline_offset : ndarray, shape S + (2,)
        Distance of the wrist from the mid-sagittal plane, positive on its own
        side, negative across the midline [m].
    wrist_lateral_offset : ndarray, shape S + (2,)
        How far the wrist lies outside the shoulder, sideways [m].
    """

    trunk_flexion: NDArray[np.float64]
    trunk_side_bend: NDArray[np.float64]
    trunk_twist: NDArray[np.float64]
    neck_flexion: NDArray[np.float64]
    neck_side_bend: NDArray[np.float64]
    neck_twist: NDArray[np.float64]
    hip_flexion: NDArray[np.float64]
    knee_flexion: NDArray[np.float64]
    foot_clearance: NDArray[np.float64]
    shoulder_elevation: NDArray[np.float64]
    upper_arm_flexion: NDArray[np.float64]
    upper_arm_abduction: NDArray[np.float64]
    upper_arm_rotation: NDArray[np.float64]
    elbow_flexion: NDArray[np.float64]
    forearm_rotation: NDArray[np.float64]
    wrist_flexion: NDArray[np.float64]
    wrist_deviation: NDArray[np.float64]
    wrist_midline_offset: NDArray[np.float64]
    wrist_lateral_offset: NDArray[np.float64]

    SINGLE: ClassVar[tuple[str, ...]] = (
        "trunk_flexion",
        "trunk_side_bend",
        "trunk_twist",
        "neck_flexion",
        "neck_side_bend",
        "neck_twist",
    )
    """Fields with one value per pose; the others have one per side."""
    LENGTHS: ClassVar[tuple[str, ...]] = (
        "foot_clearance",
        "wrist_midline_offset",
        "wrist_lateral_offset",
    )
    """Fields in metres; the others are angles in radians."""

    def __post_init__(self) -> None:
        shape = np.shape(self.trunk_flexion)
        for f in fields(self):
            a = np.array(getattr(self, f.name), dtype=np.float64)
            want = shape if f.name in self.SINGLE else (*shape, 2)
            if a.shape != want:
                raise InputError(f"BodyAngles.{f.name} must have shape {want}, got {a.shape}")
            if not np.all(np.isfinite(a)):
                raise InputError(f"BodyAngles.{f.name} contains NaN or infinite values")
            a.setflags(write=False)
            object.__setattr__(self, f.name, a)

    @property
    def shape(self) -> tuple[int, ...]:
        """Batch shape S of the poses."""
        return tuple(self.trunk_flexion.shape)

    @classmethod
    def from_degrees(cls, **values: ArrayLike) -> BodyAngles:
        """Angles given in degrees (offsets in metres), e.g. read off a worksheet.

        Every field may be given as a scalar or an array; paired fields also as
        ``(left, right)`` or ``S + (2,)``. Missing fields are neutral: angles 0,
        foot clearance 0 (both feet on the ground), wrist 0.2 m to its own side
        of the midline and not outside the shoulder.

        Degrees become radians by ``np.radians``, the conversion the band edges
        of :mod:`vhuman.ergonomics.bands` use, so an angle given exactly on a
        published edge (60° elbow flexion, 30° knee flexion) compares equal to it.

        Raises
        ------
        InputError
            For an unknown field name or shapes that do not broadcast.
        """
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - names)
        if unknown:
            raise InputError(f"unknown BodyAngles fields {unknown}; allowed: {sorted(names)}")
        defaults = {"wrist_midline_offset": 0.2}
        raw: dict[str, NDArray[np.float64]] = {}
        leads: list[tuple[int, ...]] = []
        for name in names:
            a = np.asarray(values.get(name, defaults.get(name, 0.0)), dtype=np.float64)
            if name not in cls.SINGLE:
                if a.ndim == 0:
                    a = np.full(2, float(a))
                if a.shape[-1] != 2:
                    raise InputError(
                        f"{name} must be a scalar or have a last axis of 2 (left, right), "
                        f"got shape {a.shape}"
                    )
                leads.append(a.shape[:-1])
            else:
                leads.append(a.shape)
            raw[name] = a if name in cls.LENGTHS else np.radians(a)
        try:
            shape = np.broadcast_shapes(*leads)
        except ValueError:
            raise InputError(f"BodyAngles fields do not broadcast: shapes {leads}") from None
        out = {
            n: np.broadcast_to(a, shape if n in cls.SINGLE else (*shape, 2)) for n, a in raw.items()
        }
        return cls(**out)

    def mirrored(self) -> BodyAngles:
        """The angles of the left-right mirror image of the poses."""
        out: dict[str, NDArray[np.float64]] = {}
        for f in fields(self):
            a = getattr(self, f.name)
            if f.name in self.SINGLE:
                out[f.name] = -a if f.name.endswith(("side_bend", "twist")) else a
            else:
                out[f.name] = a[..., ::-1]
        return BodyAngles(**out)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict: angles in degrees (``*_deg``), offsets in metres (``*_m``)."""
        out: dict[str, Any] = {"sides": list(SIDES)}
        for f in fields(self):
            a = getattr(self, f.name)
            if f.name in self.LENGTHS:
                out[f"{f.name}_m"] = a.tolist()
            else:
                out[f"{f.name}_deg"] = np.degrees(a).tolist()
        return out


def body_angles(motion: Motion, *, body_map: BodyMap | None = None) -> BodyAngles:
    """Posture angles of every frame of ``motion`` (shape ``S = (T,)``).

    Parameters
    ----------
    motion : Motion
        Poses of a skeleton that ``body_map`` describes.
    body_map : BodyMap, optional
        Default: :func:`~vhuman.ergonomics.body_map.default_body_map` of the skeleton.

    Raises
    ------
    UnknownJointError
        If the skeleton lacks a joint of the body map.
    """
    if not isinstance(motion, Motion):
        raise InputError(f"motion must be a Motion, got {type(motion).__name__}")
    return body_angles_from_rotations(
        motion.skeleton, motion.local_rotations, motion.root_positions, body_map=body_map
    )


def body_angles_from_rotations(
    skeleton: Skeleton,
    local_rotations: ArrayLike,
    root_positions: ArrayLike | None = None,
    *,
    body_map: BodyMap | None = None,
) -> BodyAngles:
    """Posture angles of poses given as local joint rotations.

    Parameters
    ----------
    skeleton : Skeleton
    local_rotations : array_like, shape (..., J, 4)
        Local joint rotations (w, x, y, z); normalised here.
    root_positions : array_like, shape (..., 3), optional
        Root positions [m]; default the rest position (angles do not depend on it).
    body_map : BodyMap, optional
        Default: the built-in map that fits ``skeleton``.

    Returns
    -------
    BodyAngles
        Batch shape ``S`` = the leading shape of ``local_rotations``.

    Raises
    ------
    InputError
        For a wrong shape, NaN or infinite values, or a zero quaternion.
    UnknownJointError
        If the skeleton lacks a joint of the body map.
    """
    if not isinstance(skeleton, Skeleton):
        raise InputError(f"skeleton must be a Skeleton, got {type(skeleton).__name__}")
    q = np.asarray(local_rotations, dtype=np.float64)
    j = skeleton.n_joints
    if q.ndim < 2 or q.shape[-2:] != (j, 4):
        raise InputError(f"local_rotations must have shape (..., {j}, 4), got {q.shape}")
    if not np.all(np.isfinite(q)):
        raise InputError("local_rotations contain NaN or infinite values")
    norms = np.linalg.norm(q, axis=-1, keepdims=True)
    if np.any(norms < 1e-9):
        raise InputError("local_rotations contain a zero quaternion, which is no rotation")
    q = q / norms
    lead = q.shape[:-2]
    if root_positions is None:
        root = np.broadcast_to(skeleton.offsets[0], (*lead, 3))
    else:
        root = np.asarray(root_positions, dtype=np.float64)
        if root.shape != (*lead, 3):
            raise InputError(f"root_positions must have shape {(*lead, 3)}, got {root.shape}")
        if not np.all(np.isfinite(root)):
            raise InputError("root_positions contain NaN or infinite values")
    body_map = default_body_map(skeleton) if body_map is None else body_map
    idx = body_map.resolve(skeleton)
    pos, rot = forward_kinematics(skeleton.parents, skeleton.offsets, root, q)
    return _measure(idx, body_map, skeleton.rest_positions(), pos, rot)


def _unit(v: NDArray[np.float64]) -> NDArray[np.float64]:
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), _EPS)


def _dot(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.sum(a * b, axis=-1)


def _reject(v: NDArray[np.float64], axis: NDArray[np.float64]) -> NDArray[np.float64]:
    """Unit component of ``v`` perpendicular to the unit ``axis``."""
    return _unit(v - _dot(v, axis)[..., None] * axis)


def _signed_angle(
    a: NDArray[np.float64], b: NDArray[np.float64], axis: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Angle from ``a`` to ``b`` about ``axis`` (right hand), all perpendicular to it."""
    return np.arctan2(_dot(np.cross(a, b), axis), _dot(a, b))


def _asin(x: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.arcsin(np.clip(x, -1.0, 1.0))


def _acos(x: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.arccos(np.clip(x, -1.0, 1.0))


def _twist(q: NDArray[np.float64], axis: NDArray[np.float64]) -> NDArray[np.float64]:
    """Angle [rad] in (−π, π] of the twist of rotations ``q`` (..., 4) about the unit ``axis``."""
    q = np.where(q[..., :1] < 0.0, -q, q)
    return 2.0 * np.arctan2(_dot(q[..., 1:], axis), q[..., 0])


def _rest_clavicle_elevation(idx: BodyIndices, rest: NDArray[np.float64]) -> NDArray[np.float64]:
    up = _unit(rest[idx.neck] - rest[idx.pelvis])
    c = _unit(rest[idx.shoulder] - rest[idx.clavicle])
    return _asin(c @ up)


def _hand_axes(
    idx: BodyIndices, body_map: BodyMap, rest: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Rest palm normals and radial (thumb-side) axes ``(2, 3)``, world = joint frame at rest."""
    n_left = np.asarray(body_map.palm_normal)
    normal = np.stack([n_left, n_left * [1.0, -1.0, 1.0]])
    hand = _unit(rest[idx.hand] - rest[idx.wrist])
    radial = np.stack([np.cross(normal[0], hand[0]), np.cross(hand[1], normal[1])])
    return normal, _unit(radial)


def _measure(
    idx: BodyIndices,
    body_map: BodyMap,
    rest: NDArray[np.float64],
    pos: NDArray[np.float64],
    rot: NDArray[np.float64],
) -> BodyAngles:
    hips = pos[..., idx.hip, :]  # (..., 2, 3)
    base = pos[..., idx.pelvis, :]
    up = _unit(pos[..., idx.neck, :] - base)
    hip_line = hips[..., 0, :] - hips[..., 1, :]
    heading = np.stack([hip_line[..., 1], -hip_line[..., 0], np.zeros_like(hip_line[..., 0])], -1)
    # A vertical hip line (lying on the side) has no heading; use the pelvis frame's.
    pelvis_fwd = quat_apply(rot[..., idx.pelvis, :], _X) * [1.0, 1.0, 0.0]
    flat = np.linalg.norm(heading, axis=-1, keepdims=True) < 1e-6
    heading = _unit(np.where(flat, pelvis_fwd, heading))
    side = np.cross(_Z, heading)

    trunk_flexion = np.arctan2(_dot(up, heading), up[..., 2])
    trunk_side_bend = _asin(_dot(up, side))
    left = _reject(quat_apply(rot[..., idx.upper_trunk, :], _Y), up)
    trunk_twist = _signed_angle(_reject(hip_line, up), left, up)
    fwd = np.cross(left, up)

    head_axis = quat_apply(rot[..., idx.head, :], _Z)
    face = quat_apply(rot[..., idx.head, :], _X)
    neck_flexion = np.arctan2(_dot(head_axis, fwd), _dot(head_axis, up))
    neck_side_bend = _asin(_dot(head_axis, left))
    neck_twist = _signed_angle(_reject(fwd, head_axis), _reject(face, head_axis), head_axis)

    # Paired parts: trunk frame broadcast over the side axis.
    u, f = up[..., None, :], fwd[..., None, :]
    out = _SIGN[:, None] * left[..., None, :]  # lateral, away from the body
    shoulder = pos[..., idx.shoulder, :]
    elbow = pos[..., idx.elbow, :]
    wrist = pos[..., idx.wrist, :]

    arm = _unit(elbow - shoulder)
    along_fwd, along_out = _dot(arm, f), _dot(arm, out)
    elevation = _acos(-_dot(arm, u))
    backward = (along_fwd < 0.0) & (-along_fwd >= np.abs(along_out))
    upper_arm_flexion = np.where(backward, -elevation, elevation)
    upper_arm_abduction = _asin(along_out)
    upper_arm_rotation = _SIGN * _twist(
        quat_multiply(
            quat_conjugate(rot[..., idx.upper_trunk, None, :]), rot[..., idx.shoulder, :]
        ),
        _unit(rest[idx.elbow] - rest[idx.shoulder]),
    )
    clavicle = _unit(shoulder - pos[..., idx.clavicle, :])
    shoulder_elevation = _asin(_dot(clavicle, u)) - _rest_clavicle_elevation(idx, rest)

    forearm = _unit(wrist - elbow)
    elbow_flexion = _acos(_dot(arm, forearm))
    normal0, radial0 = _hand_axes(idx, body_map, rest)
    q_wrist = rot[..., idx.wrist, :]
    palm = quat_apply(q_wrist, normal0)
    radial = quat_apply(q_wrist, radial0)
    hand = _unit(pos[..., idx.hand, :] - wrist)
    wrist_flexion = np.arctan2(-_dot(forearm, palm), _dot(forearm, hand))
    wrist_deviation = _asin(-_dot(forearm, radial))
    # A map whose hand is the wrist joint itself (no hand segment) measures no wrist angles.
    no_hand = idx.hand == idx.wrist
    wrist_flexion = np.where(no_hand, 0.0, wrist_flexion)
    wrist_deviation = np.where(no_hand, 0.0, wrist_deviation)
    # Forearm rotation against the humerus frame: the elbow's flexion axis is the
    # rest palm normal carried by the humerus, so this reference ignores flexion.
    ref_normal = _reject(quat_apply(rot[..., idx.shoulder, :], normal0), forearm)
    ref_radial = np.stack(
        [
            np.cross(ref_normal[..., 0, :], forearm[..., 0, :]),
            np.cross(forearm[..., 1, :], ref_normal[..., 1, :]),
        ],
        axis=-2,
    )
    forearm_rotation = _SIGN * _signed_angle(ref_radial, _reject(radial, forearm), forearm)
    forearm_rotation = np.where(no_hand, 0.0, forearm_rotation)
    wrist_midline_offset = _SIGN * _dot(wrist - base[..., None, :], left[..., None, :])
    wrist_lateral_offset = _dot(wrist - shoulder, out)

    knee = pos[..., idx.knee, :]
    thigh = _unit(knee - hips)
    shank = _unit(pos[..., idx.ankle, :] - knee)
    knee_flexion = _acos(_dot(thigh, shank))
    hip_flexion = np.arctan2(_dot(thigh, f), -_dot(thigh, u))
    low = np.minimum(np.minimum(knee[..., 2], pos[..., idx.ankle, 2]), pos[..., idx.toe, 2])
    foot_clearance = low - low.min(axis=-1, keepdims=True)

    return BodyAngles(
        trunk_flexion=trunk_flexion,
        trunk_side_bend=trunk_side_bend,
        trunk_twist=trunk_twist,
        neck_flexion=neck_flexion,
        neck_side_bend=neck_side_bend,
        neck_twist=neck_twist,
        hip_flexion=hip_flexion,
        knee_flexion=knee_flexion,
        foot_clearance=foot_clearance,
        shoulder_elevation=shoulder_elevation,
        upper_arm_flexion=upper_arm_flexion,
        upper_arm_abduction=upper_arm_abduction,
        upper_arm_rotation=upper_arm_rotation,
        elbow_flexion=elbow_flexion,
        forearm_rotation=forearm_rotation,
        wrist_flexion=wrist_flexion,
        wrist_deviation=wrist_deviation,
        wrist_midline_offset=wrist_midline_offset,
        wrist_lateral_offset=wrist_lateral_offset,
    )
