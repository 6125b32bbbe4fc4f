"""Damaged files for the readers' fuzz tests: hypothesis strategies and the one accepted failure.

Every reader of vhuman meets a valid file that hypothesis has damaged, at the
byte level (:func:`damaged_bytes`: flips, cuts, repeats, insertions, a cut-off
end) or in its structure (:func:`damaged_document` for YAML/JSON trees,
:func:`damaged_arrays` for ``.npz`` archives: a field deleted or replaced by a
wrong type, NaN, infinity, a huge number or a huge list). A reader may read the
file or refuse it with :class:`~vhuman.errors.InputError`, whose message is one
line naming the file (:func:`read_or_refuse`); any other exception fails the test.

Fuzz tests run with :data:`FUZZ`: derandomized, so CI sees the same examples
every run.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from vhuman.cli import main
from vhuman.errors import InputError

T = TypeVar("T")

FUZZ = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
"""Settings of every fuzz test: 60 examples, the same ones each run."""

WEIRD_VALUES: tuple[Any, ...] = (
    None,
    math.nan,
    math.inf,
    -math.inf,
    -1,
    0,
    10**12,
    10**400,
    1e308,
    -1e308,
    True,
    "text",
    "",
    [],
    {},
    [math.nan, math.nan, math.nan],
    [1, 2],
    [[1, 2, 3]],
    {"key": "value"},
    list(range(20_000)),
)
"""Values put in place of a field: wrong types, NaN, infinities, huge numbers and lists."""


@st.composite
def damaged_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with one to four random edits: flips, cuts, repeats, insertions, a cut-off end."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["flip", "cut", "repeat", "insert", "truncate"]))
        at = draw(st.integers(0, max(len(out) - 1, 0)))
        if kind == "flip" and out:
            out[at] = draw(st.integers(0, 255))
        elif kind == "cut":
            del out[at : at + draw(st.integers(1, 64))]
        elif kind == "repeat":
            out[at:at] = out[at : at + draw(st.integers(1, 64))]
        elif kind == "insert":
            out[at:at] = draw(st.binary(min_size=1, max_size=16))
        else:
            del out[at:]
    return bytes(out)


def _places(doc: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Paths (keys and indices from the root) of every node of a YAML/JSON tree, root first."""
    found = [path]
    if isinstance(doc, dict):
        for key, value in doc.items():
            found += _places(value, (*path, key))
    elif isinstance(doc, list):
        for k, value in enumerate(doc[:8]):
            found += _places(value, (*path, k))
    return found


def _copy(doc: T) -> T:
    if isinstance(doc, dict):
        return {k: _copy(v) for k, v in doc.items()}  # type: ignore[return-value]
    if isinstance(doc, list):
        return [_copy(v) for v in doc]  # type: ignore[return-value]
    return doc


@st.composite
def damaged_document(draw: st.DrawFn, doc: Any) -> Any:
    """A copy of the YAML/JSON tree ``doc`` with one to three fields deleted, replaced or added.

    A replaced or added field gets one of :data:`WEIRD_VALUES` or random text;
    an added field has a random text or number as its key; the root itself may
    be replaced (a file that holds a number or a list).
    """
    out = _copy(doc)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_places(out)))
        value = _copy(draw(st.one_of(st.sampled_from(WEIRD_VALUES), st.text(max_size=12))))
        node = out
        for key in path:
            node = node[key]
        edit = draw(st.sampled_from(["delete", "replace", "add"]))
        if edit == "add" and isinstance(node, dict):
            node[draw(st.one_of(st.text(max_size=8), st.integers(-2, 2)))] = value
        elif not path:
            return value
        else:
            parent = out
            for key in path[:-1]:
                parent = parent[key]
            if edit == "delete":
                del parent[path[-1]]
            else:
                parent[path[-1]] = value
    return out


def _weird_array(draw: st.DrawFn, array: NDArray[Any]) -> NDArray[Any]:
    kind = draw(st.sampled_from(["nan", "inf", "shape", "dtype", "empty", "scalar", "huge"]))
    if kind in ("nan", "inf") and array.dtype.kind == "f" and array.size:
        out = array.copy()
        out.flat[draw(st.integers(0, array.size - 1))] = np.nan if kind == "nan" else np.inf
        return out
    if kind == "shape" and array.size:
        return array.reshape(-1)[: draw(st.integers(0, array.size))]
    if kind == "dtype":
        return np.full(array.shape, "x") if array.dtype.kind != "U" else np.zeros(array.shape)
    if kind == "empty":
        return np.zeros((0,) * max(array.ndim, 1), dtype=array.dtype)
    if kind == "huge":
        return np.full(array.shape, 1e300 if array.dtype.kind == "f" else 2**62)
    return np.array(7)


@st.composite
def damaged_arrays(draw: st.DrawFn, arrays: dict[str, NDArray[Any]]) -> bytes:
    """``.npz`` bytes of ``arrays`` with one to three arrays deleted or replaced.

    A replaced array holds a NaN or infinity, is cut short or flattened, has
    text instead of numbers (or numbers instead of text), is empty, a scalar,
    or huge values.
    """
    out = dict(arrays)
    for _ in range(draw(st.integers(1, 3))):
        if not out:
            break
        key = draw(st.sampled_from(sorted(out)))
        if draw(st.booleans()):
            del out[key]
        else:
            out[key] = _weird_array(draw, out[key])
    return npz_bytes(out)


def npz_arrays(path: Path) -> dict[str, NDArray[Any]]:
    """Every array of the ``.npz`` file ``path`` (no pickled objects)."""
    with np.load(path, allow_pickle=False) as archive:
        return {key: archive[key] for key in archive.files}


def npz_bytes(arrays: dict[str, NDArray[Any]]) -> bytes:
    """``.npz`` bytes of ``arrays``."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


class CodeOnLoad:
    """An object whose unpickling runs code: it creates the file ``marker``."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, tuple[str, str]]:
        return open, (str(self.marker), "w")


def pickled_npz(arrays: dict[str, NDArray[Any]], marker: Path) -> bytes:
    """``.npz`` bytes of ``arrays`` plus an object array whose loading creates ``marker``."""
    payload = np.empty(1, dtype=object)
    payload[0] = CodeOnLoad(marker)
    return npz_bytes({**arrays, "payload": payload})


def read_or_refuse(read: Callable[[Path], T], path: Path) -> T | InputError:
    """``read(path)``, or the `InputError` it raised after checking its message.

    The message must be one line and name the file (its name appears in it).
    Any other exception propagates: the fuzz test fails with its traceback.
    """
    try:
        return read(path)
    except InputError as exc:
        message = str(exc)
        assert message.strip(), f"an error without a message for {path.name}"
        assert "\n" not in message.strip(), f"a message of several lines: {message!r}"
        assert path.name in message, f"the message does not name {path.name}: {message!r}"
        return exc


def refused_at_the_command_line(
    argv: list[str], path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> str:
    """The error line of ``vhuman argv``, which must refuse ``path`` with exit status 2.

    The refusal is one line on stderr naming the file, nothing on stdout.
    ``monkeypatch`` and ``capsys`` are the test's pytest fixtures.
    """
    monkeypatch.setattr("sys.argv", ["vhuman", *argv])
    with pytest.raises(SystemExit) as exit_info:
        main()
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert exit_info.value.code == 2, captured.err
    assert captured.out == ""
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("error: "), lines[0]
    assert path.name in lines[0], lines[0]
    return lines[0]
