"""npz archives: exact round trips of every skeleton field and the motion, bad archives."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from vhuman.errors import FileFormatError
from vhuman.geometry import rotvec_to_quat
from vhuman.io import cmu_walking_example, load_npz, parse_bvh, save_npz
from vhuman.skeleton import Motion, Skeleton, standard_humanoid

VALID = (Path(__file__).parent / "fixtures" / "small.bvh").read_text()


def random_motion(skeleton: Skeleton, n_frames: int = 7) -> Motion:
    rng = np.random.default_rng(3)
    q = rotvec_to_quat(rng.normal(size=(n_frames, skeleton.n_joints, 3)))
    return Motion(skeleton, 24.5, rng.normal(size=(n_frames, 3)), q)


def assert_same(a: Motion, b: Motion) -> None:
    sa, sb = a.skeleton, b.skeleton
    assert sa.names == sb.names
    assert sa.joint_types == sb.joint_types
    assert sa.limit_sequences == sb.limit_sequences
    for field in ("parents", "offsets", "axes", "limits"):
        assert np.array_equal(getattr(sa, field), getattr(sb, field)), field
    assert (sa.segments is None) == (sb.segments is None)
    for x, y in zip(sa.segments or (), sb.segments or (), strict=True):
        assert (x is None) == (y is None)
        if x is not None:
            for field in ("start", "end", "radius", "mass", "com"):
                assert np.array_equal(getattr(x, field), getattr(y, field)), field
    assert a.fps == b.fps
    assert np.array_equal(a.root_positions, b.root_positions)
    # Motion renormalises quaternions on construction, which may move the last bit.
    assert np.max(np.abs(a.local_rotations - b.local_rotations)) <= 2 * np.finfo(float).eps


@pytest.mark.parametrize(
    "motion",
    [
        random_motion(standard_humanoid()),
        random_motion(standard_humanoid(sex="female", percentile=5)).with_rotations(
            np.tile([1.0, 0.0, 0.0, 0.0], (7, 23, 1))
        ),
        cmu_walking_example()[:20],
        parse_bvh(VALID),
    ],
    ids=["humanoid", "female-rest", "cmu", "bvh"],
)
def test_exact_round_trip(tmp_path: Path, motion: Motion) -> None:
    path = tmp_path / "m.npz"
    save_npz(motion, path)
    assert_same(motion, load_npz(path))
    with np.load(path, allow_pickle=False) as archive:
        assert all(archive[key].dtype.kind != "O" for key in archive.files)


def test_round_trip_with_partial_segments(tmp_path: Path) -> None:
    sk = standard_humanoid()
    assert sk.segments is not None
    assert None in sk.segments  # the hands carry no segment
    save_npz(random_motion(sk), tmp_path / "m.npz")
    assert load_npz(tmp_path / "m.npz").skeleton.segments[sk.index("l_hand")] is None


def archive_bytes(**arrays: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def test_bad_archives(tmp_path: Path) -> None:
    path = tmp_path / "bad.npz"
    path.write_bytes(b"not a zip")
    with pytest.raises(FileFormatError, match=r"not a readable \.npz"):
        load_npz(path)
    path.write_bytes(archive_bytes(x=np.zeros(3)))
    with pytest.raises(FileFormatError, match="key 'format' missing"):
        load_npz(path)
    good = tmp_path / "good.npz"
    save_npz(parse_bvh(VALID), good)
    with np.load(good) as archive:
        arrays = {key: archive[key] for key in archive.files}
    for key, value, match in [
        ("format", np.array("other"), "'format' is not"),
        ("version", np.array(2), "unsupported version"),
        ("offsets", np.zeros((2, 3)), "inconsistent motion archive"),
        ("joint_types", np.array(["free"] * 4 + ["spring"]), "inconsistent motion archive"),
        ("local_rotations", np.zeros((3, 5, 4)), "inconsistent motion archive"),
        ("fps", np.array("30"), "expected kind 'f'"),
    ]:
        path.write_bytes(archive_bytes(**{**arrays, key: value}))
        with pytest.raises(FileFormatError, match=match):
            load_npz(path)
