"""Damaged factors and body map files are refused in one line naming the file, exit 2."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
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
from vhuman.ergonomics import STANDARD_BODY_MAP, BodyMap, WorkFactors, read_body_map, read_factors
from vhuman.io import save_motion
from vhuman.skeleton import Motion, standard_humanoid

FACTORS = {
    "load_kg": 12.0,
    "load_pattern": "static",
    "shock": True,
    "coupling": "fair",
    "static": True,
    "repeated": False,
    "rapid_change": False,
    "arm_supported": False,
    "sitting": False,
    "legs_supported": True,
    "thresholds": {"twist": 30},
}
BODY_MAP = {
    name: list(value) if isinstance(value, tuple) else value
    for name, value in vars(STANDARD_BODY_MAP).items()
}


def _factors(path: Path) -> WorkFactors:
    """The factors of file ``path`` as the ``ergo`` command reads them."""
    values, _ = read_factors(path)
    return WorkFactors.from_mapping(values, source=str(path))


def _file(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


def test_the_valid_files_read(tmp_path: Path) -> None:
    factors = _factors(_file(tmp_path, "f.yaml", yaml.safe_dump(FACTORS).encode()))
    assert factors.load_kg == 12.0
    body_map = read_body_map(_file(tmp_path, "m.yaml", yaml.safe_dump(BODY_MAP).encode()))
    assert isinstance(body_map, BodyMap)
    assert dataclasses.astuple(body_map) == dataclasses.astuple(STANDARD_BODY_MAP)


@FUZZ
@given(data=damaged_bytes(yaml.safe_dump(FACTORS).encode()))
def test_factors_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    read_or_refuse(_factors, _file(tmp_path, "f.yaml", data))


@FUZZ
@given(doc=damaged_document(FACTORS))
def test_factors_damaged_fields(tmp_path: Path, doc: object) -> None:
    read_or_refuse(_factors, _file(tmp_path, "f.yaml", yaml.safe_dump(doc).encode()))


@FUZZ
@given(data=damaged_bytes(yaml.safe_dump(BODY_MAP).encode()))
def test_body_map_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    read_or_refuse(read_body_map, _file(tmp_path, "m.yaml", data))


@FUZZ
@given(doc=damaged_document(BODY_MAP))
def test_body_map_damaged_fields(tmp_path: Path, doc: object) -> None:
    read_or_refuse(read_body_map, _file(tmp_path, "m.yaml", yaml.safe_dump(doc).encode()))


@pytest.fixture(scope="module")
def motion_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    sk = standard_humanoid()
    q = np.zeros((4, sk.n_joints, 4))
    q[..., 0] = 1.0
    path = tmp_path_factory.mktemp("ergo") / "stand.npz"
    save_motion(Motion(sk, 30.0, np.tile(sk.offsets[0], (4, 1)), q), path)
    return path


BAD = {
    "not yaml": b"load_kg: [1, 2\n",
    "not utf-8": b"load_kg: \xff\n",
    "nan load": b"load_kg: .nan\n",
    "list root": b"- 1\n",
    "bad threshold": b"thresholds: {twist: -4}\n",
}


@pytest.mark.parametrize("option", ["--factors", "--map"])
@pytest.mark.parametrize("damage", BAD)
def test_the_command_line_refuses(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
    motion_file: Path,
    option: str,
    damage: str,
) -> None:
    path = _file(tmp_path, "bad.yaml", BAD[damage])
    argv = ["ergo", str(motion_file), option, str(path)]
    refused_at_the_command_line(argv, path, monkeypatch, capsys)
