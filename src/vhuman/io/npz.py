"""vhuman's own motion files: a numpy ``.npz`` archive holding a Motion and its whole Skeleton.

Plain arrays only (no pickles, ``allow_pickle=False``), in vhuman's frame and
SI units, so every field comes back bit for bit: joint names, parents,
offsets, joint types, hinge axes, limits, limit sequences, segments (if any),
fps, root positions and local rotations. Keys:

==================  ===========  ==============================================
key                 shape        meaning
==================  ===========  ==============================================
format, version     ()           ``"vhuman.motion"``, 1
names               (J,)         joint names (unicode)
parents             (J,)         parent index, −1 for the root
offsets             (J, 3)       rest offsets [m]
joint_types         (J,)         ``JointType`` values (``"free"``, ``"ball"``, ...)
axes                (J, 3)       hinge axes
limits              (J, 3, 2)    lower/upper bounds [rad] (±inf when free)
limit_sequences     (J,)         Euler sequences of BALL limits
segment_present     (J,)         whether the joint carries a segment (only
                                 when the skeleton has segments, with the
                                 ``segment_*`` arrays below)
segment_start/end   (J, 3)       capsule end points [m]
segment_radius      (J,)         capsule radius [m]
segment_mass        (J,)         mass [kg]
segment_com         (J, 3)       centre of mass [m]
fps                 ()           frames per second
root_positions      (T, 3)       world root positions [m]
local_rotations     (T, J, 4)    local rotations (w, x, y, z)
==================  ===========  ==============================================
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import FileFormatError, InputError
from vhuman.io.filesystem import PathLike, atomic_write, read_bytes
from vhuman.skeleton.motion import Motion
from vhuman.skeleton.skeleton import JointType, Segment, Skeleton

__all__ = ["NPZ_FORMAT", "load_npz", "save_npz"]

NPZ_FORMAT = "vhuman.motion"
"""Value of the ``format`` key."""

_VERSION = 1
_SEGMENT_KEYS = ("start", "end", "radius", "mass", "com")


def save_npz(motion: Motion, path: PathLike) -> None:
    """Write ``motion`` with its skeleton to a ``.npz`` archive (atomically, compressed).

    Raises
    ------
    InputError
        If the file cannot be written.
    """
    sk = motion.skeleton
    arrays: dict[str, NDArray] = {
        "format": np.array(NPZ_FORMAT),
        "version": np.array(_VERSION),
        "names": np.array(sk.names, dtype=np.str_),
        "parents": np.asarray(sk.parents, dtype=np.int64),
        "offsets": sk.offsets,
        "joint_types": np.array([t.value for t in sk.joint_types], dtype=np.str_),
        "axes": sk.axes,
        "limits": sk.limits,
        "limit_sequences": np.array(sk.limit_sequences, dtype=np.str_),
        "fps": np.array(motion.fps),
        "root_positions": motion.root_positions,
        "local_rotations": motion.local_rotations,
    }
    if sk.segments is not None:
        present = np.array([s is not None for s in sk.segments])
        arrays["segment_present"] = present
        for key in _SEGMENT_KEYS:
            values = [
                np.asarray(getattr(s, key), dtype=np.float64) if s is not None else None
                for s in sk.segments
            ]
            shape = () if key in ("radius", "mass") else (3,)
            arrays[f"segment_{key}"] = np.array(
                [np.zeros(shape) if v is None else v for v in values], dtype=np.float64
            ).reshape(sk.n_joints, *shape)
    buffer = io.BytesIO()
    np.savez_compressed(buffer, allow_pickle=False, **arrays)
    atomic_write(path, buffer.getvalue())


def _get(data: dict[str, NDArray], key: str, kind: str, source: str) -> NDArray:
    if key not in data:
        raise FileFormatError(f"{source}: key {key!r} missing; not a vhuman motion archive")
    value = data[key]
    if value.dtype.kind not in kind:
        raise FileFormatError(f"{source}: {key!r} has dtype {value.dtype}, expected kind {kind!r}")
    return value


def load_npz(path: PathLike) -> Motion:
    """Read a motion written by :func:`save_npz`.

    Raises
    ------
    FileFormatError
        If the file is not such an archive (not a zip, keys missing, wrong
        types or shapes, inconsistent skeleton).
    InputError
        If the file cannot be read.
    """
    source = str(path)
    raw = read_bytes(path)
    try:
        with np.load(io.BytesIO(raw), allow_pickle=False) as archive:
            data = {key: archive[key] for key in archive.files}
    except Exception as exc:  # any failure to decode untrusted bytes is a format error
        raise FileFormatError(f"{source}: not a readable .npz archive ({exc})") from None
    if _get(data, "format", "U", source).tolist() != NPZ_FORMAT:
        raise FileFormatError(f"{source}: 'format' is not {NPZ_FORMAT!r}")
    if _get(data, "version", "iu", source).tolist() != _VERSION:
        raise FileFormatError(f"{source}: unsupported version {data['version']}; this reads 1")
    # Huge values overflow in the unit-length checks, which then refuse them.
    with np.errstate(over="ignore", invalid="ignore"):
        return _motion(data, source)


def _motion(data: dict[str, NDArray[Any]], source: str) -> Motion:
    """The motion of the arrays ``data`` of archive ``source``, validated."""
    try:
        types = tuple(JointType(t) for t in _get(data, "joint_types", "U", source).tolist())
        segments = None
        if "segment_present" in data:
            present = _get(data, "segment_present", "b", source)
            parts = {k: _get(data, f"segment_{k}", "f", source) for k in _SEGMENT_KEYS}
            segments = tuple(
                Segment(**{k: v[j] for k, v in parts.items()}) if present[j] else None
                for j in range(len(present))
            )
        skeleton = Skeleton(
            names=tuple(_get(data, "names", "U", source).tolist()),
            parents=_get(data, "parents", "iu", source),
            offsets=_get(data, "offsets", "f", source),
            joint_types=types,
            axes=_get(data, "axes", "f", source),
            limits=_get(data, "limits", "f", source),
            limit_sequences=tuple(_get(data, "limit_sequences", "U", source).tolist()),
            segments=segments,
        )
        return Motion(
            skeleton,
            float(_get(data, "fps", "f", source)),
            _get(data, "root_positions", "f", source),
            _get(data, "local_rotations", "f", source),
        )
    except FileFormatError:
        raise
    except (InputError, ValueError, TypeError, IndexError) as exc:
        raise FileFormatError(f"{source}: inconsistent motion archive ({exc})") from None
