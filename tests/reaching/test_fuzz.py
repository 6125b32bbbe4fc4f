"""Damaged swivel predictor files are refused in one line naming the file, never unpickled."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import (
    FUZZ,
    damaged_arrays,
    damaged_bytes,
    npz_arrays,
    npz_bytes,
    pickled_npz,
    read_or_refuse,
    refused_at_the_command_line,
)
from vhuman.data import shipped_path
from vhuman.errors import InputError
from vhuman.reaching import FEATURE_NAMES, SwivelPredictor, load_predictor

FILES = ("swivel_lsq.npz", "swivel_mlp.npz")
VALID = {name: shipped_path("models", name).read_bytes() for name in FILES}
ARRAYS = {name: npz_arrays(shipped_path("models", name)) for name in FILES}


def _read(path: Path) -> SwivelPredictor:
    """The predictor of ``path``; a read predictor must give finite angles."""
    predictor = load_predictor(path)
    assert np.all(np.isfinite(predictor.predict(np.full((3, len(FEATURE_NAMES)), 0.2))))
    return predictor


def _file(folder: Path, data: bytes) -> Path:
    path = folder / "predictor.npz"
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("name", FILES)
def test_the_valid_files_read(tmp_path: Path, name: str) -> None:
    assert isinstance(_read(_file(tmp_path, VALID[name])), SwivelPredictor)


@pytest.mark.parametrize("name", FILES)
@FUZZ
@given(edit=st.data())
def test_damaged_bytes(tmp_path: Path, name: str, edit: st.DataObject) -> None:
    read_or_refuse(_read, _file(tmp_path, edit.draw(damaged_bytes(VALID[name]))))


@pytest.mark.parametrize("name", FILES)
@FUZZ
@given(edit=st.data())
def test_damaged_arrays(tmp_path: Path, name: str, edit: st.DataObject) -> None:
    read_or_refuse(_read, _file(tmp_path, edit.draw(damaged_arrays(ARRAYS[name]))))


def test_a_pickled_object_is_refused_unread(tmp_path: Path) -> None:
    marker = tmp_path / "unpickled"
    path = _file(tmp_path, pickled_npz(ARRAYS[FILES[0]], marker))
    assert isinstance(read_or_refuse(_read, path), InputError)
    assert not marker.exists()


@pytest.mark.parametrize("damage", ["truncated", "pickled", "nan weights"])
def test_the_command_line_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, damage: str
) -> None:
    arrays = dict(ARRAYS[FILES[0]])
    data = {
        "truncated": VALID[FILES[0]][:200],
        "pickled": pickled_npz(arrays, tmp_path / "unpickled"),
        "nan weights": npz_bytes({**arrays, "weights": np.full_like(arrays["weights"], np.nan)}),
    }[damage]
    path = _file(tmp_path, data)
    argv = ["reach", "--target", "0.5", "0", "1", "-o", str(tmp_path / "r.npz")]
    refused_at_the_command_line([*argv, "--checkpoint", str(path)], path, monkeypatch, capsys)
