"""Damaged model and checkpoint files: one clear error, never a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from vhuman.errors import FileFormatError
from vhuman.prediction import default_model_path, load_model, save_model


def test_an_empty_model_file_says_so(tmp_path: Path) -> None:
    path = tmp_path / "model.pt"
    path.write_bytes(b"")
    with pytest.raises(FileFormatError, match=r"model.pt: the file is empty \(0 bytes\)"):
        load_model(path)


@pytest.mark.parametrize("keep", [1, 100, 10_000])
def test_a_truncated_model_file_is_one_line(tmp_path: Path, keep: int) -> None:
    path = tmp_path / "model.pt"
    path.write_bytes(default_model_path("seed").read_bytes()[:keep])
    with pytest.raises(FileFormatError, match="not a vhuman prediction model") as info:
        load_model(path)
    assert "\n" not in str(info.value)


def test_the_same_model_gives_the_same_bytes(tmp_path: Path) -> None:
    model, info = load_model(default_model_path("seed"))
    save_model(model, info, tmp_path / "a.pt")
    save_model(model, info, tmp_path / "b.pt")
    assert (tmp_path / "a.pt").read_bytes() == (tmp_path / "b.pt").read_bytes()
