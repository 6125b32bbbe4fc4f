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

import importlib.util
from collections.abc import Callable
from pathlib import Path

from vhuman.errors import FileFormatError, InputError
from vhuman.io.bvh import read_bvh, write_bvh
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
    "MOTION_FORMATS",
    "atomic_path",
    "atomic_write",
    "check_writable",
    "detect_format",
    "load_motion",
    "save_motion",
]

MOTION_FORMATS: tuple[str, ...] = ("bvh", "cmu", "deepmimic", "npz")
"""Names accepted by the ``format`` argument of :func:`load_motion` and :func:`save_motion`."""

_BY_SUFFIX = {".bvh": "bvh", ".npz": "npz", ".json": "deepmimic"}
_SUPPORTED = (
    ".bvh (BVH), .npz (vhuman archive), .json (DeepMimic clip), .txt (CMU exp-map or "
    "DeepMimic clip), each optionally followed by .gz"
)
_READERS: dict[str, Callable[[PathLike], Motion]] = {
    "bvh": read_bvh,
    "cmu": read_cmu,
    "deepmimic": read_deepmimic,
    "npz": load_npz,
}
_WRITERS: dict[str, Callable[[Motion, PathLike], None]] = {
    "bvh": write_bvh,
    "cmu": write_cmu,
    "deepmimic": write_deepmimic,
    "npz": save_npz,
}


def _suffix(path: PathLike) -> str:
    p = Path(path)
    return (Path(p.stem).suffix if p.suffix == ".gz" else p.suffix).lower()


def _check_format(fmt: str) -> str:
    if fmt not in MOTION_FORMATS:
        raise InputError(f"format must be one of {', '.join(MOTION_FORMATS)}, got {fmt!r}")
    return fmt


def detect_format(path: PathLike) -> str:
    """The format of the motion file ``path``: one of :data:`MOTION_FORMATS`.

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
        return "deepmimic"
    if head and head in b"0123456789+-.":
        return "cmu"
    raise FileFormatError(
        f"{path}: cannot tell the format of this .txt file; a DeepMimic clip starts with '{{', "
        "a CMU exp-map file with a number"
    )


def load_motion(path: PathLike, format: str | None = None, *, unit: str | None = None) -> Motion:
    """Read a motion file of any supported format.

    Parameters
    ----------
    path : str or Path
    format : {"bvh", "cmu", "deepmimic", "npz"}, optional
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
    if fmt != "bvh":
        raise InputError(
            f"{path}: a length unit applies to BVH files only; {fmt} files fix their units"
        )
    return read_bvh(path, unit=unit)


def _txt_format(motion: Motion) -> str:
    """``"cmu"`` or ``"deepmimic"``, from the motion's skeleton."""
    candidates = [("cmu", cmu_skeleton)]
    if importlib.util.find_spec("pybullet_data") is not None:
        candidates.append(("deepmimic", deepmimic_humanoid))
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


def save_motion(motion: Motion, path: PathLike, format: str | None = None) -> None:
    """Write ``motion`` in the format given by ``format`` or the file name (atomically).

    Parameters
    ----------
    motion : Motion
    path : str or Path
    format : {"bvh", "cmu", "deepmimic", "npz"}, optional
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
