"""Load and save motions in any supported format, chosen from the file name or its content.

======================  =========  ==============================================
file name               format     read / written by
======================  =========  ==============================================
``*.bvh``               bvh        :func:`~vhuman.io.read_bvh` / ``write_bvh``
``*.npz``               npz        :func:`~vhuman.io.load_npz` / ``save_npz``
``*.json``              deepmimic  :func:`~vhuman.io.read_deepmimic` / ``write_deepmimic``
``*.txt``               cmu or     told apart by content when reading (a DeepMimic
                        deepmimic  clip is JSON starting with ``{``, a CMU file is
                                   comma-separated numbers), by the motion's
                                   skeleton when writing
======================  =========  ==============================================

Any of these names may end in ``.gz`` (gzip). Every format keeps every frame
and the body's handedness; the readers' defaults apply (BVH: y up, metres;
CMU: 50 fps).
"""

from __future__ import annotations

import enum
import importlib.util
from collections.abc import Callable
from pathlib import Path

from vhuman.errors import FileFormatError, InputError
from vhuman.io.bvh import LengthUnit, read_bvh, write_bvh
from vhuman.io.cmu import cmu_skeleton, read_cmu, write_cmu
from vhuman.io.deepmimic import deepmimic_humanoid, read_deepmimic, write_deepmimic
from vhuman.io.filesystem import (
    PathLike,
    atomic_path,
    atomic_write,
    check_writable,
    on_skeleton,
    read_bytes,
)
from vhuman.io.npz import load_npz, save_npz
from vhuman.skeleton.motion import Motion

__all__ = [
    "MotionFormat",
    "atomic_path",
    "atomic_write",
    "check_writable",
    "detect_format",
    "load_motion",
    "save_motion",
]


class MotionFormat(enum.StrEnum):
    """The motion file formats of :func:`load_motion` and :func:`save_motion`."""

    BVH = "bvh"
    CMU = "cmu"
    DEEPMIMIC = "deepmimic"
    NPZ = "npz"


_BY_SUFFIX = {".bvh": MotionFormat.BVH, ".npz": MotionFormat.NPZ, ".json": MotionFormat.DEEPMIMIC}
_SUPPORTED = (
    ".bvh (BVH), .npz (vhuman archive), .json (DeepMimic clip), .txt (CMU exp-map or "
    "DeepMimic clip), each optionally followed by .gz"
)
_READERS: dict[MotionFormat, Callable[[PathLike], Motion]] = {
    MotionFormat.BVH: read_bvh,
    MotionFormat.CMU: read_cmu,
    MotionFormat.DEEPMIMIC: read_deepmimic,
    MotionFormat.NPZ: load_npz,
}
_WRITERS: dict[MotionFormat, Callable[[Motion, PathLike], None]] = {
    MotionFormat.BVH: write_bvh,
    MotionFormat.CMU: write_cmu,
    MotionFormat.DEEPMIMIC: write_deepmimic,
    MotionFormat.NPZ: save_npz,
}


def _suffix(path: PathLike) -> str:
    p = Path(path)
    return (Path(p.stem).suffix if p.suffix == ".gz" else p.suffix).lower()


def _check_format(fmt: MotionFormat | str) -> MotionFormat:
    if fmt not in list(MotionFormat):
        raise InputError(f"format must be one of {', '.join(MotionFormat)}, got {fmt!r}")
    return MotionFormat(fmt)


def detect_format(path: PathLike) -> MotionFormat:
    """The format of the motion file ``path``.

    ``.txt`` files are told apart by their first non-blank character.

    Raises
    ------
    FileFormatError
        For a name without a supported suffix (the message lists them) or a
        ``.txt`` file that starts with neither ``{`` nor a number.
    InputError
        If a ``.txt`` file cannot be read.
    """
    suffix = _suffix(path)
    if suffix in _BY_SUFFIX:
        return _BY_SUFFIX[suffix]
    if suffix != ".txt":
        raise FileFormatError(
            f"{path}: unknown motion file type {suffix or '(no suffix)'!r}; supported: {_SUPPORTED}"
        )
    head = read_bytes(path).lstrip()[:1]
    if head == b"{":
        return MotionFormat.DEEPMIMIC
    if head and head in b"0123456789+-.":
        return MotionFormat.CMU
    raise FileFormatError(
        f"{path}: cannot tell the format of this .txt file; a DeepMimic clip starts with '{{', "
        "a CMU exp-map file with a number"
    )


def load_motion(
    path: PathLike,
    format: MotionFormat | str | None = None,
    *,
    unit: LengthUnit | str | None = None,
) -> Motion:
    """Read a motion file of any supported format.

    Parameters
    ----------
    path : str or Path
    format : MotionFormat or {"bvh", "cmu", "deepmimic", "npz"}, optional
        Default: from the file name and, for ``.txt``, the content (see :func:`detect_format`).
    unit : {"m", "cm", "mm", "in", "auto"}, optional
        Length unit of a BVH file (see :func:`~vhuman.io.read_bvh`; default metres).
        The other formats fix their units, so ``unit`` is refused for them.

    Raises
    ------
    FileFormatError
        For an unknown file type or malformed content.
    InputError
        If the file cannot be read, ``format`` is not allowed, or ``unit`` is
        given for a format other than BVH.
    """
    fmt = detect_format(path) if format is None else _check_format(format)
    if unit is None:
        return _READERS[fmt](path)
    if fmt is not MotionFormat.BVH:
        raise InputError(
            f"{path}: a length unit applies to BVH files only; {fmt} files fix their units"
        )
    return read_bvh(path, unit=unit)


def _txt_format(motion: Motion) -> MotionFormat:
    """CMU or DeepMimic, from the motion's skeleton."""
    candidates = [(MotionFormat.CMU, cmu_skeleton)]
    if importlib.util.find_spec("pybullet_data") is not None:
        candidates.append((MotionFormat.DEEPMIMIC, deepmimic_humanoid))
    for fmt, reference in candidates:
        try:
            on_skeleton(motion, reference(), "")
        except InputError:
            continue
        return fmt
    raise InputError(
        "a .txt motion file holds a CMU exp-map motion (needs vhuman.io.cmu_skeleton()) or a "
        "DeepMimic clip (needs vhuman.io.deepmimic_humanoid()); this motion's skeleton is "
        "neither: save it as .bvh or .npz"
    )


def save_motion(motion: Motion, path: PathLike, format: MotionFormat | str | None = None) -> None:
    """Write ``motion`` in the format given by ``format`` or the file name (atomically).

    Parameters
    ----------
    motion : Motion
    path : str or Path
    format : MotionFormat or {"bvh", "cmu", "deepmimic", "npz"}, optional
        Default: from the file name; ``.txt`` picks CMU or DeepMimic from the
        motion's skeleton.

    Raises
    ------
    FileFormatError
        For a file name without a supported suffix.
    InputError
        If the format needs another skeleton (CMU, DeepMimic), ``format`` is
        not allowed, or the file cannot be written.
    """
    if format is not None:
        fmt = _check_format(format)
    elif _suffix(path) == ".txt":
        fmt = _txt_format(motion)
    else:
        fmt = detect_format(path)
    _WRITERS[fmt](motion, path)
