"""Motion readers meet damaged files: each is read or refused in one line naming the file.

Each reader (BVH, npz, CMU exp-map, DeepMimic) gets a valid file damaged by
hypothesis (see ``tests/fuzzing.py``): bytes flipped, cut, repeated or
inserted; for BVH also its words replaced, deleted or inserted (keywords,
braces, ``nan``, ``1e999``); for npz also arrays deleted or replaced by NaN, wrong shapes or
types; for DeepMimic also JSON fields. The only acceptable outcomes are a
motion with finite positions or an :class:`~vhuman.errors.InputError`, and at
the command line exit status 2 with one line.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import (
    FUZZ,
    damaged_arrays,
    damaged_bytes,
    damaged_document,
    npz_arrays,
    npz_bytes,
    pickled_npz,
    read_or_refuse,
    refused_at_the_command_line,
)
from vhuman.errors import InputError
from vhuman.io import (
    cmu_walking_example,
    deepmimic_clip_path,
    load_motion,
    read_cmu,
    read_deepmimic,
    save_motion,
    write_cmu,
)
from vhuman.skeleton import Motion, standard_humanoid


def _written(write: Callable[[Path], object], suffix: str) -> bytes:
    """The bytes ``write`` puts in a file of ``suffix`` (in a private temporary folder)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"valid{suffix}"
        write(path)
        return path.read_bytes()


REST = Motion.rest(standard_humanoid(), n_frames=3)
NPZ = _written(lambda p: save_motion(REST, p), ".npz")
BVH = _written(lambda p: save_motion(REST, p), ".bvh")
CMU = _written(lambda p: write_cmu(cmu_walking_example()[:4], p), ".txt")
with tempfile.TemporaryDirectory() as _folder:
    (Path(_folder) / "m.npz").write_bytes(NPZ)
    NPZ_ARRAYS = npz_arrays(Path(_folder) / "m.npz")


def _deepmimic_valid() -> dict[str, Any] | None:
    try:
        clip = json.loads(deepmimic_clip_path("walk").read_text())
    except InputError:  # pybullet's data is not installed
        return None
    return {"Loop": clip["Loop"], "Frames": clip["Frames"][:3]}


DEEPMIMIC = _deepmimic_valid()
NEEDS_DEEPMIMIC = pytest.mark.skipif(
    DEEPMIMIC is None, reason="the DeepMimic clips ship with pybullet (vhuman[data])"
)


def _read(read: Callable[[Path], Motion], folder: Path, name: str, data: bytes) -> None:
    """``read`` the file ``name`` holding ``data``: a finite motion or a clean refusal."""
    path = folder / name
    path.write_bytes(data)
    motion = read_or_refuse(read, path)
    if isinstance(motion, Motion):
        assert np.all(np.isfinite(motion.root_positions))


@FUZZ
@given(data=damaged_bytes(NPZ))
def test_npz_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    _read(load_motion, tmp_path, "m.npz", data)


@FUZZ
@given(data=damaged_arrays(NPZ_ARRAYS))
def test_npz_damaged_arrays(tmp_path: Path, data: bytes) -> None:
    _read(load_motion, tmp_path, "m.npz", data)


def test_npz_pickled_object_is_refused_unread(tmp_path: Path) -> None:
    marker = tmp_path / "unpickled"
    path = tmp_path / "m.npz"
    path.write_bytes(pickled_npz(NPZ_ARRAYS, marker))
    assert isinstance(read_or_refuse(load_motion, path), InputError)
    assert not marker.exists()


_BVH_WORDS = (
    b"{",
    b"}",
    b"JOINT",
    b"End",
    b"Site",
    b"OFFSET",
    b"CHANNELS",
    b"MOTION",
    b"ROOT",
    b"Frames:",
    b"Frame",
    b"Time:",
    b"nan",
    b"1e999",
    b"-1",
    b"0",
    b"x",
    b"\n",
)
"""Words put in a BVH file: its keywords and braces, odd numbers, a stray letter."""


@st.composite
def bvh_word_edits(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` (BVH text) with one to four words replaced, deleted or inserted."""
    pieces = re.split(rb"(\s+)", data)
    kind = draw(st.sampled_from(["replace", "delete", "insert"]))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(pieces) - 1))
        if kind == "delete":
            pieces[i] = b""
        elif kind == "insert":
            pieces.insert(i, b" " + draw(st.sampled_from(_BVH_WORDS)) + b" ")
        else:
            pieces[i] = draw(st.sampled_from(_BVH_WORDS))
    return b"".join(pieces)


@FUZZ
@given(data=st.one_of(damaged_bytes(BVH), bvh_word_edits(BVH)))
def test_bvh_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "m.bvh"
    path.write_bytes(data)
    motion = read_or_refuse(load_motion, path)
    if isinstance(motion, Motion):
        assert np.all(np.isfinite(motion.global_positions))


@FUZZ
@given(data=damaged_bytes(CMU))
def test_cmu_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    _read(read_cmu, tmp_path, "m.txt", data)


@NEEDS_DEEPMIMIC
@FUZZ
@given(data=damaged_bytes(json.dumps(DEEPMIMIC).encode()))
def test_deepmimic_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    _read(read_deepmimic, tmp_path, "m.txt", data)


@NEEDS_DEEPMIMIC
@FUZZ
@given(doc=damaged_document(DEEPMIMIC))
def test_deepmimic_damaged_fields(tmp_path: Path, doc: object) -> None:
    _read(read_deepmimic, tmp_path, "m.txt", json.dumps(doc).encode())


def test_the_valid_files_read(tmp_path: Path) -> None:
    for data, name, read in (
        (NPZ, "check.npz", load_motion),
        (BVH, "check.bvh", load_motion),
        (CMU, "check.txt", read_cmu),
    ):
        path = tmp_path / name
        path.write_bytes(data)
        assert isinstance(read(path), Motion)
    if DEEPMIMIC is not None:
        path = tmp_path / "check-deepmimic.txt"
        path.write_text(json.dumps(DEEPMIMIC))
        assert read_deepmimic(path).n_frames == 3


BAD = {
    "npz truncated": ("m.npz", NPZ[: len(NPZ) // 2]),
    "npz nan": (
        "m.npz",
        npz_bytes({**NPZ_ARRAYS, "root_positions": NPZ_ARRAYS["root_positions"] * np.nan}),
    ),
    "bvh truncated": ("m.bvh", BVH[: len(BVH) // 2]),
    "bvh binary": ("m.bvh", b"HIERARCHY\x00\xff" * 20),
    "cmu text": ("m.txt", CMU.replace(b",", b",x", 3)),
}


@pytest.mark.parametrize("damage", BAD)
def test_the_command_line_refuses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, damage: str
) -> None:
    name, data = BAD[damage]
    path = tmp_path / name
    path.write_bytes(data)
    refused_at_the_command_line(["info", str(path)], path, monkeypatch, capsys)
