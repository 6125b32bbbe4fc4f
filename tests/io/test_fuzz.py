"""Readers meet damaged files: every mutation of a valid file is read or refused cleanly.

Each reader gets a valid file with random bytes flipped, cut short, duplicated
or inserted (hypothesis picks the damage); the only acceptable outcomes are a
motion or an :class:`~vhuman.errors.InputError` (one clear message), never
another exception.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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

FUZZ = settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with one to four random edits: flips, cuts, repeats, insertions."""
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


def _clean(read: Callable[[Path], Motion], path: Path) -> None:
    try:
        motion: Motion | str = read(path)
    except InputError as exc:
        motion = str(exc)
    if isinstance(motion, str):
        assert motion.strip(), "an error without a message"
    else:
        assert np.all(np.isfinite(motion.root_positions))


def _written(write: Callable[[Path], object], suffix: str) -> bytes:
    """The bytes ``write`` puts in a file of ``suffix`` (in a private temporary folder)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / f"valid{suffix}"
        write(path)
        return path.read_bytes()


NPZ = _written(lambda p: save_motion(Motion.rest(standard_humanoid(), n_frames=3), p), ".npz")
CMU = _written(lambda p: write_cmu(cmu_walking_example()[:4], p), ".txt")


def _deepmimic_valid() -> bytes:
    try:
        clip = json.loads(deepmimic_clip_path("walk").read_text())
    except InputError:  # pybullet's data is not installed
        return b""
    return json.dumps({"Loop": clip["Loop"], "Frames": clip["Frames"][:3]}).encode()


DEEPMIMIC = _deepmimic_valid()


@FUZZ
@given(data=damaged(NPZ))
def test_npz_reader(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "m.npz"
    path.write_bytes(data)
    _clean(load_motion, path)


@FUZZ
@given(data=damaged(CMU))
def test_cmu_reader(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "m.txt"
    path.write_bytes(data)
    _clean(read_cmu, path)


@FUZZ
@given(data=damaged(DEEPMIMIC))
def test_deepmimic_reader(tmp_path: Path, data: bytes) -> None:
    if not DEEPMIMIC:
        pytest.skip("the DeepMimic clips ship with pybullet (vhuman[data])")
    path = tmp_path / "m.txt"
    path.write_bytes(data)
    _clean(read_deepmimic, path)


def test_the_valid_files_read(tmp_path: Path) -> None:
    for data, suffix, read in ((NPZ, ".npz", load_motion), (CMU, ".txt", read_cmu)):
        path = tmp_path / f"check{suffix}"
        path.write_bytes(data)
        assert isinstance(read(path), Motion)
    if DEEPMIMIC:
        path = tmp_path / "check-deepmimic.txt"
        path.write_bytes(DEEPMIMIC)
        assert read_deepmimic(path).n_frames == 3
