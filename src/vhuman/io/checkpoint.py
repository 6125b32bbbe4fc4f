"""Checkpoints of long jobs: state to resume from, what run it belongs to, and a checksum.

A checkpoint is one ``.npz`` archive (read without pickle) holding named
arrays and a JSON header: the run's identity (every setting that changes the
result, JSON values), the job's state (JSON values) and a SHA-256 digest of
the header and every array's dtype, shape and bytes. It is written atomically
(:func:`vhuman.io.atomic_path`), so a kill leaves the previous checkpoint or
the new one, never a mix. A resume refuses, in one line naming the file, a
checkpoint that is empty, truncated, not such a file, changed after it was
written (digest mismatch), or of a run with another setting (naming the
setting with its stored and given value).
"""

from __future__ import annotations

import hashlib
import json
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import FileFormatError, InputError
from vhuman.io.filesystem import PathLike, atomic_path

__all__ = ["load_checkpoint", "read_checkpoint", "write_checkpoint"]

_HEADER = "__checkpoint__"


def _digest(header: Mapping[str, Any], arrays: Mapping[str, NDArray[Any]]) -> str:
    """SHA-256 (hex) of ``header`` (JSON, keys sorted) and each array, by name."""
    h = hashlib.sha256(json.dumps(header, sort_keys=True).encode())
    for name in sorted(arrays):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}:{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def write_checkpoint(
    path: PathLike,
    identity: Mapping[str, Any],
    state: Mapping[str, Any],
    arrays: Mapping[str, NDArray[Any]] | None = None,
) -> None:
    """Write a checkpoint atomically (module notes).

    Parameters
    ----------
    path : str or Path
        The file (``.npz``).
    identity : mapping
        The run's settings that change the result (JSON values).
    state : mapping
        The job's state (JSON values).
    arrays : mapping of str to ndarray, optional
        Numeric state, stored bit for bit (no object arrays).

    Raises
    ------
    InputError
        If the file cannot be written.
    """
    arrays = {k: np.asarray(v) for k, v in (arrays or {}).items()}
    header = json.loads(json.dumps({"identity": dict(identity), "state": dict(state)}))
    text = json.dumps({**header, "sha256": _digest(header, arrays)})
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        np.savez(fh, **{_HEADER: np.frombuffer(text.encode(), dtype=np.uint8)}, **arrays)


def load_checkpoint(
    path: PathLike,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, NDArray[Any]]]:
    """Identity, state and arrays of checkpoint ``path``, checked against its digest.

    Raises
    ------
    InputError
        One line naming the file and what is wrong: unreadable, empty,
        truncated, not a checkpoint (FileFormatError), or changed after it was
        written.
    """
    p = Path(path)
    try:
        size = p.stat().st_size
        with np.load(p, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
    except OSError as exc:
        if isinstance(exc, FileNotFoundError | PermissionError | IsADirectoryError):
            raise InputError(f"cannot read checkpoint {p}: {exc.strerror or exc}") from None
        what = "empty (0 bytes)" if not size else f"not a checkpoint ({exc})"
        raise FileFormatError(f"checkpoint {p} is {what}; delete it to start over") from None
    except (ValueError, EOFError, zipfile.BadZipFile, KeyError) as exc:
        what = "empty (0 bytes)" if not size else f"truncated or not a checkpoint ({exc})"
        raise FileFormatError(f"checkpoint {p} is {what}; delete it to start over") from None
    try:
        raw = json.loads(arrays.pop(_HEADER).tobytes().decode())
        header = {"identity": raw["identity"], "state": raw["state"]}
        stored_digest = raw["sha256"]
    except (KeyError, TypeError, ValueError, AttributeError):
        raise FileFormatError(
            f"checkpoint {p} is not a checkpoint of this job; delete it to start over"
        ) from None
    if stored_digest != _digest(header, arrays):
        raise FileFormatError(
            f"checkpoint {p} was changed after it was written (checksum mismatch); "
            "delete it to start over"
        )
    return header["identity"], header["state"], arrays


def read_checkpoint(
    path: PathLike, identity: Mapping[str, Any], hint: str = "or start without --resume"
) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
    """The state and arrays of checkpoint ``path``, written by a run with ``identity``.

    Parameters
    ----------
    path : str or Path
    identity : mapping
        The resuming run's settings that change the result (JSON values).
    hint : str
        How else to go on, ending the message of a setting that differs.

    Returns
    -------
    state : dict
    arrays : dict of str to ndarray

    Raises
    ------
    InputError
        One line naming the file and what is wrong (module notes); for a
        setting that differs, its name, the stored and the given value.
    """
    p = Path(path)
    stored, state, arrays = load_checkpoint(p)
    given = json.loads(json.dumps(dict(identity)))
    for key in sorted(set(stored) | set(given)):
        if stored.get(key) != given.get(key):
            raise InputError(
                f"checkpoint {p} belongs to a run with {key} = {stored.get(key)!r}; this run "
                f"has {key} = {given.get(key)!r} (use the same value, {hint})"
            )
    return state, arrays
