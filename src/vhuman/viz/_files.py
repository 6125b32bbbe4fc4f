"""Output files of the viewers: suffix and folder checks (writes go through `atomic_path`)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from vhuman.errors import InputError

__all__ = ["output_path"]


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
