"""DeepMimic motion clips and the DeepMimic humanoid, as shipped in pybullet's data.

A clip is JSON: ``{"Loop": "wrap" | "none", "Frames": [[...], ...]}``, each
frame 44 numbers: the frame's duration [s], the root position (3) [m] and
root quaternion (w, x, y, z), then per joint of the humanoid, in the order of
``humanoid/humanoid.urdf``, a quaternion (w, x, y, z) for each spherical joint
and one angle [rad] about the joint axis for each revolute one (knees,
elbows); fixed joints (wrists) have none. The layout is derived from the urdf
and checked to give 44 numbers.

Axes and scale: DeepMimic is y up; in the urdf the left hip lies at −z, the
feet point to +x and the walk clip's root moves along +x, so the humanoid faces
+x with its left at −z. The proper rotation ``x' = x, y' = −z, z' = y`` (+90°
about x) maps that onto vhuman's frame (z up, facing +x, left at +y), so a
walk goes along +x and left stays left. The urdf is drawn 4 times too large:
pybullet's DeepMimic environment loads it with ``globalScaling=0.25``
(``pybullet_envs/deep_mimic/env/humanoid_stable_pd.py``), the scale of the
clips' root positions, and so does :func:`deepmimic_humanoid`.

Frame rate: ``1 / duration``, from the durations of all frames but the last
(DeepMimic writes 0 there, as no frame follows). A clip whose durations differ
(``humanoid3d_roll`` has one frame twice as long) is resampled at the rate of
the median duration: root positions linearly, rotations by slerp.
"""

from __future__ import annotations

import enum
import json
import xml.etree.ElementTree as ET
from functools import cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import FileFormatError, InputError
from vhuman.geometry.euler import euler_to_quat
from vhuman.geometry.quaternion import quat_apply, quat_identity
from vhuman.io._axes import DEEPMIMIC_AXES
from vhuman.io.filesystem import PathLike, atomic_write, decode_text, on_skeleton, read_bytes
from vhuman.skeleton.kinematics import forward_kinematics
from vhuman.skeleton.motion import Motion, resample_samples
from vhuman.skeleton.skeleton import JointType, Segment, Skeleton

__all__ = [
    "DEEPMIMIC_FRAME_SIZE",
    "URDF_SCALE",
    "DeepMimicLoop",
    "deepmimic_clip_names",
    "deepmimic_clip_path",
    "deepmimic_humanoid",
    "read_deepmimic",
    "write_deepmimic",
]

DEEPMIMIC_FRAME_SIZE = 44
"""Numbers per clip frame: duration, root position 3, root quaternion 4, joints 36."""

URDF_SCALE = 0.25
"""``globalScaling`` of pybullet's DeepMimic environment for ``humanoid/humanoid.urdf``."""

_DURATION_TOL = 1e-6  # s; clips write durations with 6 decimals
_CLIP_PREFIX = "humanoid3d_"
_INSTALL_HINT = "install pybullet, which ships the DeepMimic data: pip install vhuman[data]"
_MAX_VALUE = 1e6  # positions [m] and quaternion parts beyond this are damage


class DeepMimicLoop(enum.StrEnum):
    """A DeepMimic clip's ``Loop`` entry: its playback mode."""

    WRAP = "wrap"
    """Repeat the clip."""
    NONE = "none"
    """Play it once."""


def _data_path() -> Path:
    try:
        import pybullet_data
    except ImportError:
        raise InputError(f"DeepMimic clips and humanoid need pybullet; {_INSTALL_HINT}") from None
    return Path(pybullet_data.getDataPath())


@cache
def _urdf() -> ET.Element:
    path = _data_path() / "humanoid" / "humanoid.urdf"
    # The file ends in a NUL byte, which XML parsers reject.
    data = read_bytes(path).rstrip(b"\x00")
    try:
        return ET.fromstring(data)
    except ET.ParseError as exc:
        raise FileFormatError(f"{path}: not valid URDF ({exc})") from None


def _floats(el: ET.Element | None, attr: str, default: str) -> NDArray[np.float64]:
    text = default if el is None else el.get(attr, default)
    return np.array([float(x) for x in text.split()])


def _segment(link: ET.Element) -> Segment | None:
    """The link's collision shape as a capsule, its mass and centre of mass, in our axes [m].

    Spheres become zero-length capsules; a box becomes the capsule along its
    longest side with the radius of half its shortest side (an approximation).
    """
    collision = link.find("collision")
    inertial = link.find("inertial")
    if collision is None or inertial is None:
        return None
    origin = collision.find("origin")
    centre = _floats(origin, "xyz", "0 0 0")
    q = euler_to_quat(_floats(origin, "rpy", "0 0 0"), "xyz")  # URDF rpy: fixed axes x, y, z
    geometry = collision.find("geometry")
    shape = None if geometry is None else next(iter(geometry), None)
    if shape is None:
        return None
    if shape.tag == "sphere":
        radius, half = float(shape.get("radius", "0")), np.zeros(3)
    elif shape.tag == "capsule":
        radius = float(shape.get("radius", "0"))
        half = quat_apply(q, [0.0, 0.0, float(shape.get("length", "0")) / 2.0])
    elif shape.tag == "box":
        size = _floats(shape, "size", "0 0 0")
        radius = float(size.min()) / 2.0
        long_axis = np.eye(3)[int(np.argmax(size))]
        half = quat_apply(q, long_axis * max(float(size.max()) / 2.0 - radius, 0.0))
    else:
        return None
    mass_el = inertial.find("mass")
    com = _floats(inertial.find("origin"), "xyz", "0 0 0")
    s = URDF_SCALE
    return Segment(
        start=DEEPMIMIC_AXES.vectors_to_ours(centre - half) * s,
        end=DEEPMIMIC_AXES.vectors_to_ours(centre + half) * s,
        radius=radius * s,
        mass=float("0" if mass_el is None else mass_el.get("value", "0")),
        com=DEEPMIMIC_AXES.vectors_to_ours(com) * s,
    )


def _link_of(joint: ET.Element, tag: str) -> str:
    el = joint.find(tag)
    if el is None or el.get("link") is None:
        raise FileFormatError(f"humanoid.urdf: joint {joint.get('name')!r} has no {tag} link")
    return str(el.get("link"))


@cache
def _humanoid() -> tuple[Skeleton, tuple[str, ...]]:
    """The humanoid and the urdf type of each joint (``fixed``, ``spherical``, ``revolute``)."""
    robot = _urdf()
    links = {link.get("name"): link for link in robot.iter("link")}
    joints = list(robot.iter("joint"))
    child_of = {_link_of(joint, "child"): i for i, joint in enumerate(joints)}
    names, parents, kinds = [], [], []
    offsets, axes, limits, segments = [], [], [], []
    for joint in joints:
        origin = joint.find("origin")
        if np.any(_floats(origin, "rpy", "0 0 0")):
            raise FileFormatError(
                f"humanoid.urdf: joint {joint.get('name')!r} has a rotated origin"
            )
        names.append(str(joint.get("name")))
        parents.append(child_of.get(_link_of(joint, "parent"), -1))
        kinds.append(str(joint.get("type")))
        offsets.append(DEEPMIMIC_AXES.vectors_to_ours(_floats(origin, "xyz", "0 0 0")) * URDF_SCALE)
        axes.append(DEEPMIMIC_AXES.vectors_to_ours(_floats(joint.find("axis"), "xyz", "1 0 0")))
        bounds = np.array([[-np.inf, np.inf]] * 3)
        limit = joint.find("limit")
        if kinds[-1] == "revolute" and limit is not None:
            bounds[0] = [float(limit.get("lower", "-inf")), float(limit.get("upper", "inf"))]
        limits.append(bounds)
        segments.append(_segment(links[_link_of(joint, "child")]))
    size = 1 + 3 + 4 + sum({"spherical": 4, "revolute": 1}.get(k, 0) for k in kinds[1:])
    if size != DEEPMIMIC_FRAME_SIZE:
        raise FileFormatError(
            f"humanoid.urdf gives {size} numbers per clip frame, not {DEEPMIMIC_FRAME_SIZE}"
        )
    types = tuple(
        JointType.FREE
        if p < 0
        else JointType.HINGE
        if k == "revolute"
        else JointType.FIXED
        if k == "fixed"
        else JointType.BALL
        for p, k in zip(parents, kinds, strict=True)
    )
    offsets_arr = np.array(offsets)
    # Rest root position: the lowest point of the bodies at the rest pose on z = 0.
    rest, _ = forward_kinematics(parents, offsets_arr, np.zeros(3), quat_identity((len(names),)))
    offsets_arr[0, 2] = -min(
        rest[j, 2] + min(seg.start[2], seg.end[2]) - seg.radius
        for j, seg in enumerate(segments)
        if seg is not None
    )
    skeleton = Skeleton(
        tuple(names),
        np.array(parents),
        offsets_arr,
        types,
        np.array(axes),
        np.array(limits),
        segments=tuple(segments),
    )
    return skeleton, tuple(kinds)


def deepmimic_humanoid() -> Skeleton:
    """The DeepMimic humanoid of pybullet's ``humanoid/humanoid.urdf``, in vhuman's frame.

    15 joints: ``root`` (FREE), ``chest``, ``neck``, then right and left
    ``hip``, ``knee`` (HINGE), ``ankle``, ``shoulder``, ``elbow`` (HINGE) and
    ``wrist`` (FIXED), named as in the urdf (``right_hip``, ...). Offsets are
    the urdf joint origins × :data:`URDF_SCALE`; hinge axes and their limits
    come from the urdf (knees flex with negative angles, elbows with positive
    ones); segments are the links' collision shapes as capsules with the
    links' masses. ``offsets[0]`` puts the soles on z = 0 at the rest pose.

    Raises
    ------
    InputError
        If pybullet (its ``pybullet_data`` package) is not installed.
    """
    return _humanoid()[0]


def deepmimic_clip_names() -> tuple[str, ...]:
    """Names of the humanoid clips in pybullet's data (``"walk"``, ``"run"``, ...)."""
    folder = _data_path() / "data" / "motions"
    return tuple(sorted(p.stem[len(_CLIP_PREFIX) :] for p in folder.glob(f"{_CLIP_PREFIX}*.txt")))


def deepmimic_clip_path(name: str) -> Path:
    """Path of pybullet's DeepMimic clip ``name`` (``"walk"`` → ``humanoid3d_walk.txt``).

    Raises
    ------
    InputError
        If there is no such clip (the message lists the available names) or
        pybullet is not installed.
    """
    path = _data_path() / "data" / "motions" / f"{_CLIP_PREFIX}{name}.txt"
    if not path.is_file():
        raise InputError(
            f"unknown DeepMimic clip {name!r}; available: {', '.join(deepmimic_clip_names())}"
        )
    return path


def _frames(text: str, source: str) -> NDArray[np.float64]:
    """The ``Frames`` array ``(T, 44)`` of a clip's JSON text, validated."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileFormatError(
            f"{source}:{exc.lineno}: not valid JSON ({exc.msg}); a DeepMimic clip is a JSON "
            "object with 'Loop' and 'Frames'"
        ) from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4300 digits
        raise FileFormatError(f"{source}: unreadable JSON ({exc})") from None
    frames = data.get("Frames") if isinstance(data, dict) else None
    if not isinstance(frames, list) or not frames:
        raise FileFormatError(
            f"{source}: a DeepMimic clip is a JSON object whose 'Frames' is a non-empty list "
            f"of frames of {DEEPMIMIC_FRAME_SIZE} numbers"
        )
    for i, frame in enumerate(frames):
        if not (
            isinstance(frame, list)
            and len(frame) == DEEPMIMIC_FRAME_SIZE
            and all(isinstance(x, int | float) and not isinstance(x, bool) for x in frame)
        ):
            raise FileFormatError(
                f"{source}: frame {i} is not a list of {DEEPMIMIC_FRAME_SIZE} numbers (duration, "
                "root position 3, root quaternion w-x-y-z, then the joints' quaternions and "
                "knee/elbow angles)"
            )
    try:
        values = np.array(frames, dtype=np.float64)
    except OverflowError:
        raise FileFormatError(f"{source}: a frame value is too large for a float") from None
    bad = np.flatnonzero(~np.isfinite(values).all(axis=1))
    if len(bad):
        raise FileFormatError(f"{source}: frame {bad[0]} contains NaN or infinite values")
    huge = np.flatnonzero((np.abs(values[:, 1:]) > _MAX_VALUE).any(axis=1))
    if len(huge):
        raise FileFormatError(f"{source}: frame {huge[0]} has a value beyond ±{_MAX_VALUE:g}")
    return values


def read_deepmimic(path: PathLike) -> Motion:
    """Read a DeepMimic clip (see the module notes for layout, axes and frame rate).

    The clip's ``Loop`` mode is not kept.

    Returns
    -------
    Motion
        On :func:`deepmimic_humanoid`; metres, vhuman's frame.

    Raises
    ------
    FileFormatError
        For text that is not such a clip: invalid JSON, frames of the wrong
        size, non-numbers, NaN, zero quaternions, durations that are not > 0.
    InputError
        If the file cannot be read or pybullet is not installed.
    """
    source = str(path)
    values = _frames(decode_text(read_bytes(path), source), source)
    skeleton, kinds = _humanoid()
    durations = values[:-1, 0] if len(values) > 1 else values[:, 0]
    if not np.all(durations > 0.0):
        raise FileFormatError(
            f"{source}: frame durations must be > 0 s (only the last frame's may be 0), "
            f"got {durations.min()}"
        )
    n_frames, n_joints = len(values), skeleton.n_joints
    quats = np.zeros((n_frames, n_joints, 4))
    quats[:, 0] = values[:, 4:8]
    column = 8
    for j in range(1, n_joints):
        if kinds[j] == "spherical":
            quats[:, j] = values[:, column : column + 4]
            column += 4
        elif kinds[j] == "revolute":
            half = 0.5 * values[:, column, None]
            axis = DEEPMIMIC_AXES.vectors_from_ours(skeleton.axes[j])
            quats[:, j] = np.concatenate([np.cos(half), np.sin(half) * axis], axis=-1)
            column += 1
        else:
            quats[:, j, 0] = 1.0
    root = DEEPMIMIC_AXES.vectors_to_ours(values[:, 1:4])
    try:
        quats = DEEPMIMIC_AXES.quats_to_ours(quats)
        dt = float(np.median(durations))
        if np.ptp(durations) > _DURATION_TOL:
            times = np.concatenate([[0.0], np.cumsum(durations)])
            if times[-1] / dt > 4 * n_frames:
                raise FileFormatError(
                    f"{source}: frame durations range from {durations.min()} to "
                    f"{durations.max()} s, too uneven to resample at 1/{dt} fps"
                )
            root, quats = resample_samples(times, root, quats, 1.0 / dt)
        return Motion(skeleton, 1.0 / dt, root, quats)
    except InputError as exc:
        raise FileFormatError(f"{source}: {exc}") from None


def write_deepmimic(
    motion: Motion, path: PathLike, *, loop: DeepMimicLoop | str = DeepMimicLoop.WRAP
) -> None:
    """Write ``motion`` as a DeepMimic clip (atomically), one frame a line.

    Every frame's duration is ``1 / fps``. Knee and elbow rotations are stored
    as their angle about the hinge axis (any swing off the axis is dropped).

    Parameters
    ----------
    motion : Motion
        On :func:`deepmimic_humanoid` (or the same joints in another order,
        matched by name, as after a round trip through BVH).
    path : str or Path
    loop : DeepMimicLoop or {"wrap", "none"}
        DeepMimic's playback mode: repeat the clip, or play it once.

    Raises
    ------
    InputError
        If the skeleton is not the DeepMimic humanoid, ``loop`` is not allowed,
        or the file cannot be written.
    """
    if loop not in list(DeepMimicLoop):
        raise InputError(f"loop must be one of {', '.join(DeepMimicLoop)}, got {loop!r}")
    loop = DeepMimicLoop(loop)
    skeleton, kinds = _humanoid()
    sk = motion.skeleton
    motion = on_skeleton(
        motion,
        skeleton,
        "write_deepmimic needs a motion on the DeepMimic humanoid "
        f"(vhuman.io.deepmimic_humanoid(): {', '.join(skeleton.names)}); this motion has "
        f"{sk.n_joints} joints starting {sk.names[0]!r}; save it as BVH or npz instead",
    )
    sk = motion.skeleton
    n = motion.n_frames
    q_file = DEEPMIMIC_AXES.quats_from_ours(motion.local_rotations)
    hinge_angles = sk.joint_angles(motion.local_rotations)[..., 0]  # (T, J)
    columns = [
        np.full((n, 1), 1.0 / motion.fps),
        DEEPMIMIC_AXES.vectors_from_ours(motion.root_positions),
        q_file[:, 0],
    ]
    for j in range(1, sk.n_joints):
        if kinds[j] == "spherical":
            columns.append(q_file[:, j])
        elif kinds[j] == "revolute":
            columns.append(hinge_angles[:, j, None])
    rows = np.concatenate(columns, axis=1).tolist()
    body = ",\n".join("[" + ", ".join(map(repr, row)) + "]" for row in rows)
    atomic_write(path, f'{{\n"Loop": "{loop}",\n"Frames":\n[\n{body}\n]\n}}\n')
