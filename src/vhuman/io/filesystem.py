"""Files on disk: reading and decoding text, atomic writes, matching a motion to a skeleton."""

from __future__ import annotations

import contextlib
import glob
import gzip
import os
import uuid
import zlib
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from vhuman.errors import FileFormatError, InputError
from vhuman.skeleton.motion import Motion
from vhuman.skeleton.skeleton import Skeleton

__all__ = ["PathLike", "atomic_path", "atomic_write", "decode_text", "on_skeleton", "read_bytes"]

PathLike = str | os.PathLike[str]
"""A file system path given as ``str`` or ``pathlib.Path``."""


def read_bytes(path: PathLike) -> bytes:
    """The content of ``path``, decompressed when its name ends in ``.gz``.

    Raises
    ------
    InputError
        If the file cannot be read (missing, a directory, no permission).
    FileFormatError
        If a ``.gz`` file is not valid gzip data.
    """
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror or exc}") from None
    if p.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise FileFormatError(f"{p}: not valid gzip data ({exc})") from None
    return data


def decode_text(data: bytes, source: str) -> str:
    """UTF-8 text of ``data`` (a byte-order mark is dropped), with line ends made ``\\n``.

    Raises
    ------
    FileFormatError
        If ``data`` is not UTF-8; the message names ``source`` and the byte offset.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise FileFormatError(
            f"{source}: not UTF-8 text (invalid byte at offset {exc.start}); "
            "motion files must be UTF-8 or ASCII"
        ) from None
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, another user's
        return True
    return True


def _remove_stale_temporaries(path: Path) -> None:
    """Remove temporary files of ``path`` whose writing process no longer runs."""
    prefix, suffix = f".{path.stem}.", f".tmp{path.suffix}"
    try:
        siblings = list(path.parent.glob(f"{glob.escape(prefix)}*{glob.escape(suffix)}"))
    except OSError:
        return
    for tmp in siblings:
        pid = tmp.name[len(prefix) : -len(suffix)].split("-", 1)[0]
        if pid.isdigit() and not _process_alive(int(pid)):
            with contextlib.suppress(OSError):
                tmp.unlink()


@contextlib.contextmanager
def atomic_path(path: PathLike) -> Iterator[Path]:
    """A temporary path beside ``path``; on success it replaces ``path`` in one rename.

    For writers that take a file name (matplotlib, imageio, numpy). The
    temporary file is hidden (its name starts with a dot, then the stem of
    ``path`` and the writing process's id) and keeps the suffix of ``path``, so
    writers that choose a format by suffix still work. It is flushed to disk
    before the rename (``os.replace``, atomic on POSIX and Windows). If the
    body raises, the temporary file is removed and ``path`` is left as it was;
    temporary files of ``path`` left by a process that was killed while
    writing it are removed first.

    Raises
    ------
    InputError
        If the file cannot be written (missing folder, no permission, disk full).
    """
    p = Path(path)
    _remove_stale_temporaries(p)
    tmp = p.with_name(f".{p.stem}.{os.getpid()}-{uuid.uuid4().hex[:12]}.tmp{p.suffix}")
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, p)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write {p}: {exc.strerror or exc}") from None
        raise


def check_writable(path: PathLike, what: str = "output") -> Path:
    """``path`` as a ``Path`` if a file can be written there; else one clear error.

    For long jobs, to fail before the work rather than after it: the folder
    must exist and be writable, and ``path`` must not be a folder or a file
    this process cannot replace. Temporary files of ``path`` left by a process
    killed while writing it are removed (see :func:`atomic_path`).

    Raises
    ------
    InputError
        Naming ``what`` (e.g. ``"--output"``), the path and the reason.
    """
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise InputError(f"{what} {p} is a folder; give a file name")
    if not folder.is_dir():
        raise InputError(f"{what} {p}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{what} {p}: the folder {folder} is not writable")
    if p.exists() and not os.access(p, os.W_OK):
        raise InputError(f"{what} {p} exists and is not writable")
    _remove_stale_temporaries(p)
    return p


def atomic_write(path: PathLike, data: bytes | str) -> None:
    """Write ``data`` to ``path`` so that the file is either complete or untouched.

    See :func:`atomic_path`. A ``str`` is written as UTF-8; a name ending in
    ``.gz`` is gzip-compressed (with a zero timestamp, so equal data gives
    equal files).

    Raises
    ------
    InputError
        If the file cannot be written; no temporary file is left behind.
    """
    payload = data.encode("utf-8") if isinstance(data, str) else data
    if Path(path).suffix == ".gz":
        payload = gzip.compress(payload, mtime=0)
    with atomic_path(path) as tmp:
        tmp.write_bytes(payload)


def on_skeleton(motion: Motion, reference: Skeleton, requirement: str) -> Motion:
    """``motion`` moved onto ``reference``, which must have the same joints in any order.

    Joints are matched by name; each must have the same parent (by name) and
    the same offset (within 1e-6 m). A BVH file, for one, stores joints depth
    first, which may reorder a skeleton; this undoes that.

    Raises
    ------
    InputError
        With the message ``requirement`` when the skeletons differ.
    """
    sk = motion.skeleton
    if sk is reference:
        return motion
    if sorted(sk.names) == sorted(reference.names):
        order = sk.indices(reference.names)  # our index of each reference joint
        parent_names = [None if p < 0 else sk.names[p] for p in sk.parents[order]]
        ref_parent_names = [None if p < 0 else reference.names[p] for p in reference.parents]
        if parent_names == ref_parent_names and np.allclose(
            sk.offsets[order], reference.offsets, rtol=0.0, atol=1e-6
        ):
            return Motion(
                reference, motion.fps, motion.root_positions, motion.local_rotations[:, order]
            )
    raise InputError(requirement)
