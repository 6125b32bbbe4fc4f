"""Training checkpoints: the state to resume from, what run it belongs to, and a checksum.

A checkpoint is a model file (see :mod:`vhuman.prediction.files`) plus the
optimizer state, the epoch reached, the loss history, the run's identity
(every setting that changes the result: the training configuration, a digest
of the training data, the device) and a SHA-256 digest of all of it. A resume
refuses a checkpoint whose digest does not match (changed after it was
written) or whose identity differs from the run's, naming the first setting
that differs with its stored and given value.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import torch

from vhuman.errors import FileFormatError, InputError
from vhuman.io import atomic_write
from vhuman.io.filesystem import PathLike
from vhuman.prediction.data import PoseSequences
from vhuman.prediction.files import read_model_file, serialized

__all__ = [
    "data_digest",
    "load_checkpoint",
    "payload_digest",
    "read_checkpoint",
    "write_checkpoint",
]


def data_digest(sequences: PoseSequences) -> str:
    """SHA-256 (hex) of the poses, trial layout and split of ``sequences``."""
    h = hashlib.sha256()
    for array in (
        sequences.local_rotations,
        sequences.positions,
        sequences.trial_starts,
        sequences.validation,
    ):
        a = np.ascontiguousarray(array)
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(a.tobytes())
    h.update(json.dumps(list(sequences.trials)).encode())
    return h.hexdigest()


def _feed(h: Any, value: Any) -> None:
    """Add ``value`` (nested dicts, lists, tensors, numbers, strings) to the hash ``h``."""
    if isinstance(value, torch.Tensor):
        t = value.detach().cpu().contiguous()
        h.update(f"T{t.dtype}{tuple(t.shape)}".encode())
        h.update(t.reshape(-1).view(torch.uint8).numpy().tobytes())
    elif isinstance(value, Mapping):
        h.update(f"D{len(value)}".encode())
        for key in sorted(value, key=str):
            h.update(repr(key).encode())
            _feed(h, value[key])
    elif isinstance(value, list | tuple):
        h.update(f"L{len(value)}".encode())
        for item in value:
            _feed(h, item)
    else:
        h.update(repr(value).encode())


def payload_digest(payload: Mapping[str, Any]) -> str:
    """SHA-256 (hex) of a checkpoint's entries other than ``sha256``, tensors by their bytes."""
    h = hashlib.sha256()
    _feed(h, {k: v for k, v in payload.items() if k != "sha256"})
    return h.hexdigest()


def write_checkpoint(path: PathLike, payload: Mapping[str, Any]) -> None:
    """Write ``payload`` (which must hold ``identity``, JSON text) with its digest, atomically."""
    atomic_write(path, serialized({**payload, "sha256": payload_digest(payload)}))


def load_checkpoint(path: PathLike) -> dict[str, Any]:
    """The payload of checkpoint ``path``, checked against its digest.

    Raises
    ------
    InputError
        One line naming the file and what is wrong: unreadable, empty,
        truncated, not a checkpoint (FileFormatError), or changed after it was
        written.
    """
    p = Path(path)
    data = read_model_file(p)
    needed = {"identity", "sha256", "state", "optimizer", "epoch", "history"}
    if not needed <= set(data):
        missing = ", ".join(sorted(needed - set(data)))
        raise FileFormatError(
            f"checkpoint {p} is not a training checkpoint of this version (no {missing}); "
            "delete it to start over"
        )
    if data["sha256"] != payload_digest(data):
        raise FileFormatError(
            f"checkpoint {p} was changed after it was written (checksum mismatch); "
            "delete it to start over"
        )
    return data


def read_checkpoint(path: PathLike, identity: Mapping[str, Any]) -> dict[str, Any]:
    """The payload of checkpoint ``path`` (see :func:`load_checkpoint`), of a run with ``identity``.

    Parameters
    ----------
    path : path
    identity : mapping
        The resuming run's settings that change the result (JSON values).

    Raises
    ------
    InputError
        As :func:`load_checkpoint`, or for a checkpoint of a run with another
        setting: one line with its name, stored and given value.
    """
    data = load_checkpoint(path)
    stored = json.loads(data["identity"])
    given = json.loads(json.dumps(dict(identity)))
    for key in sorted(set(stored) | set(given)):
        if stored.get(key) != given.get(key):
            raise InputError(
                f"checkpoint {path} belongs to a run with {key} = {stored.get(key)!r}; this run "
                f"has {key} = {given.get(key)!r} (use the same value, or train without --resume)"
            )
    return data
