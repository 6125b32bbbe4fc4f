"""Format detection, load/save by file name, conversions that keep frames and handedness."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from vhuman.errors import FileFormatError, InputError
from vhuman.io import (
    MotionFormat,
    atomic_write,
    cmu_walking_example,
    deepmimic_clip_path,
    detect_format,
    load_motion,
    read_deepmimic,
    save_motion,
)
from vhuman.skeleton import Motion, standard_humanoid

SMALL_BVH = Path(__file__).parent / "fixtures" / "small.bvh"


def needs_pybullet() -> None:
    pytest.importorskip("pybullet_data")


def test_detect_by_suffix_and_content(tmp_path: Path) -> None:
    assert detect_format(SMALL_BVH) == "bvh"
    assert detect_format("a.NPZ") == "npz"
    assert detect_format("clip.json") == "deepmimic"
    cmu = tmp_path / "c.txt"
    cmu.write_text("  -1.5,2,3\n")
    assert detect_format(cmu) == "cmu"
    clip = tmp_path / "d.txt"
    clip.write_text('\n {"Loop": "wrap"}')
    assert detect_format(clip) == "deepmimic"
    odd = tmp_path / "o.txt"
    odd.write_text("hello")
    with pytest.raises(FileFormatError, match="cannot tell"):
        detect_format(odd)
    with pytest.raises(FileFormatError, match=r"unknown motion file type '\.fbx'.*\.bvh"):
        detect_format("a.fbx")
    with pytest.raises(FileFormatError, match="no suffix"):
        detect_format("motion")
    with pytest.raises(InputError, match="format must be one of"):
        load_motion(SMALL_BVH, format="fbx")
    assert set(MotionFormat) == {"bvh", "cmu", "deepmimic", "npz"}


@pytest.mark.parametrize("suffix", [".bvh", ".npz", ".bvh.gz"])
def test_save_and_load_by_name(tmp_path: Path, suffix: str) -> None:
    motion = load_motion(SMALL_BVH)
    path = tmp_path / f"m{suffix}"
    save_motion(motion, path)
    back = load_motion(path)
    assert back.n_frames == motion.n_frames
    assert np.allclose(back.global_positions, motion.global_positions, atol=1e-6)


def test_txt_written_as_cmu_or_deepmimic_by_skeleton(tmp_path: Path) -> None:
    needs_pybullet()
    cmu = cmu_walking_example()[:10]
    save_motion(cmu, tmp_path / "c.txt")
    assert detect_format(tmp_path / "c.txt") == "cmu"
    assert np.allclose(load_motion(tmp_path / "c.txt").global_positions, cmu.global_positions)
    clip = read_deepmimic(deepmimic_clip_path("walk"))
    for name in ("d.txt", "d.json"):
        save_motion(clip, tmp_path / name)
        assert detect_format(tmp_path / name) == "deepmimic"
        back = load_motion(tmp_path / name)
        assert np.allclose(back.global_positions, clip.global_positions, atol=1e-9)
    with pytest.raises(InputError, match=r"neither: save it as \.bvh or \.npz"):
        save_motion(Motion.rest(standard_humanoid()), tmp_path / "h.txt")
    with pytest.raises(InputError, match="CMU skeleton"):
        save_motion(Motion.rest(standard_humanoid()), tmp_path / "h.txt", format="cmu")
    with pytest.raises(FileFormatError, match="unknown motion file type"):
        save_motion(cmu, tmp_path / "c.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "d.json", "d.txt"]


def by_name(motion: Motion, names: tuple[str, ...]) -> np.ndarray:
    return motion.global_positions[:, motion.skeleton.indices(names)]


@pytest.mark.parametrize("chain", [("bvh", "npz"), ("npz", "bvh"), ("bvh", "bvh")])
def test_conversions_keep_frames_and_handedness(tmp_path: Path, chain: tuple[str, str]) -> None:
    """CMU and DeepMimic motions through BVH and npz and back: same frames, same positions."""
    needs_pybullet()
    cases = [
        (cmu_walking_example(), "lshoulder", "rshoulder", "cmu"),
        (read_deepmimic(deepmimic_clip_path("run")), "left_hip", "right_hip", "deepmimic"),
    ]
    for motion, left, right, back_format in cases:
        names = motion.skeleton.names
        current = motion
        for i, fmt in enumerate((*chain, back_format)):
            path = tmp_path / f"{back_format}{i}.{'txt' if fmt == back_format else fmt}"
            save_motion(current, path, format=fmt)
            current = load_motion(path, format=fmt)
            assert current.n_frames == motion.n_frames
            assert current.fps == pytest.approx(motion.fps)
            assert np.allclose(by_name(current, names), motion.global_positions, atol=1e-5)
        assert current.skeleton.names == names
        # Left stays left: the left joint keeps its side of the right one (+y when facing +x).
        lr = by_name(current, (left,))[:, 0] - by_name(current, (right,))[:, 0]
        assert np.allclose(
            lr, by_name(motion, (left,))[:, 0] - by_name(motion, (right,))[:, 0], atol=1e-5
        )
        assert np.mean(lr[:, 1]) > 0.1


def test_atomic_write_leaves_nothing_half_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "f.txt"
    atomic_write(path, "first")
    assert path.read_text() == "first"
    plain = tmp_path / "plain.txt"
    plain.write_text("x")  # permissions as any new file gets them (umask applied)
    assert path.stat().st_mode & 0o777 == plain.stat().st_mode & 0o777
    plain.unlink()

    def broken_replace(src: str, dst: str) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(InputError, match=r"cannot write .*No space left"):
        atomic_write(path, "second")
    assert path.read_text() == "first"
    assert [p.name for p in tmp_path.iterdir()] == ["f.txt"]


def test_a_killed_writers_temporary_file_is_removed_by_the_next_write(tmp_path: Path) -> None:
    path = tmp_path / "model.json"
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    stale = tmp_path / f".model.{dead.stdout.strip()}-0123456789ab.tmp.json"
    stale.write_text('{"partial": ')
    live = tmp_path / f".model.{os.getpid()}-0123456789ab.tmp.json"  # a writer still running
    live.write_text("{")
    other = tmp_path / ".other.1-0123456789ab.tmp.json"  # another output's
    other.write_text("{")
    atomic_write(path, "{}")
    assert path.read_text() == "{}"
    assert not stale.exists()
    assert live.exists()
    assert other.exists()
