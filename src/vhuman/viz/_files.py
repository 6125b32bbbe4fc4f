"""Output files of the viewers: suffix checks and atomic writes (temporary file, then rename)."""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from vhuman.errors import InputError

__all__ = ["atomic_path", "output_path"]


def output_path(path: str | os.PathLike[str], suffixes: Sequence[str], what: str) -> Path:
    """Check that ``path`` ends in one of ``suffixes`` and that its folder exists.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write.
    suffixes : sequence of str
        Allowed lower-case suffixes, with the dot (``".png"``); matched case-insensitively.
    what : str
        What the file holds, for error messages (``"figure"``).

    Returns
    -------
    Path
        ``path`` as a `Path`.

    Raises
    ------
    InputError
        If the suffix is not allowed or the folder does not exist.
    """
    p = Path(path)
    if p.suffix.lower() not in suffixes:
        raise InputError(
            f"{what} path {str(p)!r} must end in {', '.join(suffixes)}; "
            f"got {p.suffix or 'no suffix'!r}"
        )
    if not p.parent.is_dir():
        raise InputError(f"folder {str(p.parent)!r} for the {what} {p.name!r} does not exist")
    return p


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """A temporary path beside ``path``; on success it replaces ``path`` in one rename.

    The temporary file is hidden (its name starts with a dot) and keeps the
    suffix of ``path``, so writers that choose a format by suffix still work.
    It is flushed to disk before the rename. If the body raises, the temporary
    file is removed and ``path`` is left as it was.

    Examples
    --------
    >>> with atomic_path(Path("out.txt")) as tmp:  # doctest: +SKIP
    ...     tmp.write_text("done")
    """
    tmp = path.with_name(f".{path.stem}.{secrets.token_hex(4)}.tmp{path.suffix}")
    try:
        yield tmp
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
