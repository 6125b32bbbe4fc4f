"""Damaged scene files are read or refused in one line naming the file, never a traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given

from fuzzing import (
    FUZZ,
    damaged_bytes,
    damaged_document,
    read_or_refuse,
    refused_at_the_command_line,
)
from vhuman.data import shipped_path
from vhuman.scene import Scene, load_scene

SCENES = shipped_path("scenes")
VALID = (SCENES / "ship-valve.yaml").read_bytes()
DOC = yaml.safe_load(VALID)


def _scene_file(folder: Path, data: bytes) -> Path:
    """``data`` as ``scene.yaml`` in ``folder``, beside the mesh the ship-valve scene uses."""
    shutil.copy(SCENES / "handwheel.obj", folder / "handwheel.obj")
    path = folder / "scene.yaml"
    path.write_bytes(data)
    return path


def test_the_valid_file_reads(tmp_path: Path) -> None:
    assert isinstance(load_scene(_scene_file(tmp_path, VALID)), Scene)


@FUZZ
@given(data=damaged_bytes(VALID))
def test_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    read_or_refuse(load_scene, _scene_file(tmp_path, data))


@FUZZ
@given(doc=damaged_document(DOC))
def test_damaged_fields(tmp_path: Path, doc: object) -> None:
    read_or_refuse(load_scene, _scene_file(tmp_path, yaml.safe_dump(doc).encode()))


BAD = {
    "truncated": VALID[: len(VALID) // 2],
    "binary": b"\x00\xff\xfe" * 40,
    "nan position": VALID.replace(b"position: [0.54, 0.0, 0.66]", b"position: [.nan, 0, 0.66]"),
    "list root": b"- 1\n- 2\n",
}


@pytest.mark.parametrize("damage", BAD)
def test_the_command_line_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, damage: str
) -> None:
    path = _scene_file(tmp_path, BAD[damage])
    argv = ["posture", "--scene", str(path), "-o", str(tmp_path / "out")]
    refused_at_the_command_line(argv, path, monkeypatch, capsys)
