"""Damaged task files are read or refused in one line naming the file, never a traceback."""

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
from vhuman.task import TaskSpec, load_task

TASKS = shipped_path("tasks")
VALID = (TASKS / "ship-valve.yaml").read_bytes()
DOC = yaml.safe_load(VALID)


def _task_file(folder: Path, data: bytes) -> Path:
    """``data`` as ``task.yaml`` in ``folder``, beside the scene the ship-valve task uses."""
    (folder / "scenes").mkdir(exist_ok=True)
    shutil.copy(TASKS / "scenes" / "engine-room.yaml", folder / "scenes" / "engine-room.yaml")
    path = folder / "task.yaml"
    path.write_bytes(data)
    return path


def test_the_valid_file_reads(tmp_path: Path) -> None:
    assert isinstance(load_task(_task_file(tmp_path, VALID)), TaskSpec)


@FUZZ
@given(data=damaged_bytes(VALID))
def test_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    read_or_refuse(load_task, _task_file(tmp_path, data))


@FUZZ
@given(doc=damaged_document(DOC))
def test_damaged_fields(tmp_path: Path, doc: object) -> None:
    read_or_refuse(load_task, _task_file(tmp_path, yaml.safe_dump(doc).encode()))


BAD = {
    "truncated": VALID[: VALID.index(b"steps:")],
    "latin-1": VALID.replace(b"Walk in", b"Walk \xe9n"),
    "nan duration": VALID.replace(b"posture: {duration: 2.0}", b"posture: {duration: .nan}"),
    "list root": b"- 1\n- 2\n",
}


@pytest.mark.parametrize("damage", BAD)
def test_the_command_line_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, damage: str
) -> None:
    path = _task_file(tmp_path, BAD[damage])
    argv = ["task", str(path), "-o", str(tmp_path / "out")]
    refused_at_the_command_line(argv, path, monkeypatch, capsys)
