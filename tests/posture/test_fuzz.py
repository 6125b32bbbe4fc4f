"""Damaged posture library files are read or refused in one line naming the file."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from hypothesis import given

from fuzzing import FUZZ, damaged_bytes, damaged_document, read_or_refuse
from vhuman.posture import PostureLibrary, load_library
from vhuman.posture.library import default_library_path
from vhuman.scene import BodyModel
from vhuman.skeleton import Skeleton, standard_humanoid

SKELETON = standard_humanoid(sex="male", percentile=95)
BODY = BodyModel.from_skeleton(SKELETON, samples_per_segment=1)
VALID = default_library_path().read_bytes()
DOC = yaml.safe_load(VALID)


def _read(path: Path, skeleton: Skeleton = SKELETON) -> PostureLibrary:
    return load_library(skeleton, path, body=BODY)


def _library_file(folder: Path, data: bytes) -> Path:
    path = folder / "library.yaml"
    path.write_bytes(data)
    return path


def test_the_valid_file_reads(tmp_path: Path) -> None:
    assert len(_read(_library_file(tmp_path, VALID))) == len(DOC["postures"])


@FUZZ
@given(data=damaged_bytes(VALID))
def test_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    read_or_refuse(_read, _library_file(tmp_path, data))


@FUZZ
@given(doc=damaged_document(DOC))
def test_damaged_fields(tmp_path: Path, doc: object) -> None:
    read_or_refuse(_read, _library_file(tmp_path, yaml.safe_dump(doc).encode()))


@pytest.mark.parametrize(
    "data", [b"", b"postures: [", b"\xff\xfe not text", b"postures:\n  - 1\n"], ids=repr
)
def test_small_bad_files(tmp_path: Path, data: bytes) -> None:
    assert isinstance(read_or_refuse(_read, _library_file(tmp_path, data)), Exception)
