"""Damaged controller and evolution checkpoint files are refused in one line naming the file."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import (
    FUZZ,
    damaged_bytes,
    damaged_document,
    read_or_refuse,
    refused_at_the_command_line,
)
from vhuman.control.controller import Controller, default_controller_path, load_controller
from vhuman.control.evolution import Evaluation, EvolutionConfig, evolve

CONTROLLER = default_controller_path().read_bytes()
DOC = json.loads(CONTROLLER)


def _file(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def test_the_valid_file_reads(tmp_path: Path) -> None:
    assert isinstance(load_controller(_file(tmp_path, "c.json", CONTROLLER)), Controller)


@FUZZ
@given(data=damaged_bytes(CONTROLLER))
def test_controller_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    read_or_refuse(load_controller, _file(tmp_path, "c.json", data))


@FUZZ
@given(doc=damaged_document(DOC))
def test_controller_damaged_fields(tmp_path: Path, doc: object) -> None:
    read_or_refuse(load_controller, _file(tmp_path, "c.json", json.dumps(doc).encode()))


BAD = {
    "truncated": CONTROLLER[: len(CONTROLLER) // 2],
    "not utf-8": b"\xff\xfe" + CONTROLLER,
    "list root": b"[1, 2]",
    "nan": json.dumps({**DOC, "period_s": float("nan")}).encode(),
}


@pytest.mark.parametrize("damage", BAD)
def test_the_command_line_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, damage: str
) -> None:
    path = _file(tmp_path, "c.json", BAD[damage])
    argv = ["physics", "simulate", "--controller", str(path), "-o", str(tmp_path / "s.npz")]
    refused_at_the_command_line(argv, path, monkeypatch, capsys)


def _toy(x: np.ndarray, horizon: float) -> Evaluation:
    return Evaluation(objectives=tuple(float(v) for v in x), survived=horizon, violation=False)


def _config() -> EvolutionConfig:
    return EvolutionConfig(
        lower=np.zeros(2),
        upper=np.ones(2),
        population=4,
        generations=2,
        target=1.0,
        window_start=1.0,
    )


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("ckpt") / "run.json"
    evolve(_toy, _config(), rng=0, checkpoint=path, stop_after=1)
    return path.read_bytes()


@FUZZ
@given(edit=st.data())
def test_checkpoint_files(tmp_path: Path, checkpoint: bytes, edit: st.DataObject) -> None:
    path = _file(tmp_path, "run.json", edit.draw(damaged_bytes(checkpoint)))
    read_or_refuse(lambda p: evolve(_toy, _config(), checkpoint=p), path)
