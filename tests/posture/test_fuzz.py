"""Damaged posture library, suite manifest and witness files: read, or refused in one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml
from hypothesis import given

from fuzzing import FUZZ, damaged_bytes, damaged_document, read_or_refuse
from vhuman.data import shipped_path
from vhuman.posture import PostureLibrary, Witness, load_library, load_suite
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


SUITE = shipped_path("scenes", "suite")
SUITE_VALID = (SUITE / "suite.yaml").read_bytes()
WITNESS_VALID = (SUITE / "witnesses" / "floor-bolt.json").read_bytes()


def _suite_folder(folder: Path, manifest: bytes, witness: bytes = WITNESS_VALID) -> Path:
    """A copy of the shipped suite in ``folder`` with ``manifest`` and floor-bolt's ``witness``."""
    copy = folder / "suite"
    if not copy.is_dir():
        shutil.copytree(SUITE, copy)
    (copy / "suite.yaml").write_bytes(manifest)
    (copy / "witnesses" / "floor-bolt.json").write_bytes(witness)
    return copy


def _floor_bolt_witness(path: Path) -> Witness | None:
    """The witness of the floor-bolt case of the suite holding witness file ``path``."""
    (case,) = [c for c in load_suite(path.parent.parent) if c.name == "floor-bolt"]
    return case.witness()


def test_the_valid_suite_reads(tmp_path: Path) -> None:
    cases = load_suite(_suite_folder(tmp_path, SUITE_VALID))
    assert {c.name for c in cases} >= {"floor-bolt", "closed-cage"}
    (case,) = [c for c in cases if c.name == "floor-bolt"]
    assert isinstance(case.witness(), Witness)


@FUZZ
@given(data=damaged_bytes(SUITE_VALID))
def test_suite_manifest_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    folder = _suite_folder(tmp_path, data)
    read_or_refuse(lambda p: load_suite(p.parent), folder / "suite.yaml")


@FUZZ
@given(doc=damaged_document(yaml.safe_load(SUITE_VALID)))
def test_suite_manifest_damaged_fields(tmp_path: Path, doc: object) -> None:
    folder = _suite_folder(tmp_path, yaml.safe_dump(doc).encode())
    read_or_refuse(lambda p: load_suite(p.parent), folder / "suite.yaml")


@FUZZ
@given(
    data=damaged_bytes(WITNESS_VALID)
    | damaged_document(json.loads(WITNESS_VALID)).map(lambda doc: json.dumps(doc).encode())
)
def test_witness_damaged(tmp_path: Path, data: bytes) -> None:
    folder = _suite_folder(tmp_path, SUITE_VALID, data)
    read_or_refuse(_floor_bolt_witness, folder / "witnesses" / "floor-bolt.json")
