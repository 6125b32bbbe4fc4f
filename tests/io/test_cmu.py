"""CMU exp-map files: the README's row-vector convention on real files, round trips, handedness."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vhuman.errors import FileFormatError, InputError
from vhuman.io import (
    CMU_FPS,
    CMU_ROOT_UNIT_M,
    cmu_skeleton,
    cmu_walking_example,
    read_cmu,
    write_cmu,
)
from vhuman.skeleton import Motion, standard_humanoid

REAL_FILES = [
    "walking/walking_1.txt",
    "running/running_2.txt",
    "basketball/basketball_3.txt",
    "soccer/soccer_1.txt",
    "directing_traffic/directing_traffic_4.txt",
]


def rodrigues(r: np.ndarray) -> np.ndarray:
    """R = I + sin θ [k]× + (1 − cos θ) [k]×², as in the README."""
    theta = np.linalg.norm(r)
    if theta < 1e-12:
        return np.eye(3)
    k = r / theta
    kx = np.array([[0.0, -k[2], k[1]], [k[2], 0.0, -k[0]], [-k[1], k[0], 0.0]])
    return np.eye(3) + np.sin(theta) * kx + (1.0 - np.cos(theta)) * kx @ kx


def readme_positions(values: np.ndarray, skeleton_json: dict) -> np.ndarray:
    """The README's forward kinematics for one frame, row vectors, millimetres, y up."""
    parents = skeleton_json["parents"]
    offsets = np.array(skeleton_json["offsets_mm"])
    p = np.zeros((len(parents), 3))
    g = np.zeros((len(parents), 3, 3))
    for i, j in enumerate(parents):
        r = rodrigues(values[3 + 3 * i : 6 + 3 * i])
        if j < 0:
            p[i] = offsets[0] + values[[2, 1, 0]]
            g[i] = r
        else:
            p[i] = offsets[i] @ g[j] + p[j]
            g[i] = r @ g[j]
    return p


def to_ours_m(p_mm: np.ndarray) -> np.ndarray:
    """x' = z, y' = x, z' = y; mm → m."""
    return p_mm[..., [2, 0, 1]] / 1000.0


@pytest.mark.shared
@pytest.mark.parametrize("name", REAL_FILES)
def test_positions_follow_the_readme_convention(shared_data: Path, name: str) -> None:
    """Joint positions relative to the root match the README's FK on real frames."""
    spec = json.loads((shared_data / "skeleton.json").read_text())
    values = np.loadtxt(shared_data / "train" / name, delimiter=",")
    motion = read_cmu(shared_data / "train" / name)
    assert motion.n_frames == len(values)
    assert motion.fps == CMU_FPS
    relative = motion.global_positions - motion.root_positions[:, None]
    for t in (0, len(values) // 2, len(values) - 1):
        expected = to_ours_m(readme_positions(values[t], spec))
        assert np.allclose(relative[t], expected - expected[0], atol=1e-9)
        # The root itself: values 0..2 as (x, y, z) in CMU_ROOT_UNIT_M units, y up.
        root = values[t, :3] * CMU_ROOT_UNIT_M
        assert np.allclose(motion.root_positions[t], root[[2, 0, 1]], atol=1e-12)


@pytest.mark.shared
def test_root_translation_keeps_stance_feet_still(shared_data: Path) -> None:
    """Why the root departs from the README: with it, the stance foot stays put."""
    values = np.loadtxt(shared_data / "train" / "walking" / "walking_1.txt", delimiter=",")
    motion = read_cmu(shared_data / "train" / "walking" / "walking_1.txt")
    toes = motion.global_positions[:, motion.skeleton.indices(["ltoe", "rtoe"]), :2]
    slowest_foot_step = np.linalg.norm(np.diff(toes, axis=0), axis=-1).min(axis=1)  # (T-1,)
    assert np.percentile(slowest_foot_step, 25) < 1e-3  # < 1 mm per frame for a quarter
    travel = np.linalg.norm(motion.root_positions[-1, :2] - motion.root_positions[0, :2])
    assert travel > 3.0
    # The README's reading (v2, v1, v0 in mm) would move the root only centimetres.
    readme_travel = np.linalg.norm((values[-1, [2, 1, 0]] - values[0, [2, 1, 0]]) / 1000.0)
    assert readme_travel < 0.1


def body_left(motion: Motion) -> np.ndarray:
    """Unit left direction (T, 3) of the body: up × forward, forward along the feet."""
    names = motion.skeleton.names
    p = motion.global_positions
    forward = sum(p[:, names.index(f"{s}toe")] - p[:, names.index(f"{s}ankle")] for s in "lr")
    forward[:, 2] = 0.0
    left = np.cross([0.0, 0.0, 1.0], forward)
    return left / np.linalg.norm(left, axis=-1, keepdims=True)


def test_left_joints_on_the_left_and_z_up() -> None:
    motion = cmu_walking_example()
    names = motion.skeleton.names
    p = motion.global_positions
    left = body_left(motion)
    for side in ("shoulder", "elbow", "hip", "knee"):
        lr = p[:, names.index(f"l{side}")] - p[:, names.index(f"r{side}")]
        assert np.all(np.sum(lr * left, axis=-1) > 0.04), side
    head_above_feet = p[:, names.index("head")] - p[:, names.index("ltoe")]
    assert np.all(head_above_feet[:, 2] > 1.2)
    rest = cmu_skeleton().rest_positions()
    assert rest[names.index("lshoulder"), 1] > 0.1  # +y is the left in the rest pose


@pytest.mark.shared
def test_packaged_example_is_walking_1(shared_data: Path) -> None:
    ours = cmu_walking_example(fps=25.0)
    ref = read_cmu(shared_data / "train" / "walking" / "walking_1.txt", fps=25.0)
    assert ours.fps == 25.0
    assert np.array_equal(ours.global_positions, ref[1:].global_positions)


def test_packaged_example_has_no_jump() -> None:
    # Frame 0 of the file is not a pose; without it no joint moves over 5 cm a frame at 120 fps
    # (about 6 m/s).
    p = cmu_walking_example().global_positions
    assert np.linalg.norm(np.diff(p, axis=0), axis=-1).max() < 0.05


def test_skeleton_in_metres() -> None:
    sk = cmu_skeleton()
    assert sk.n_joints == 38
    upper_arm = np.linalg.norm(sk.offsets[sk.index("lelbow")])
    assert upper_arm == pytest.approx(0.3405591)
    height = np.ptp(sk.rest_positions()[:, 2])
    assert 1.5 < height < 2.0


def test_round_trip(tmp_path: Path) -> None:
    motion = cmu_walking_example()
    path = tmp_path / "w.txt"
    write_cmu(motion, path)
    back = read_cmu(path)
    assert back.n_frames == motion.n_frames
    assert np.allclose(back.global_positions, motion.global_positions, atol=1e-9, rtol=0)
    source = np.loadtxt(tmp_path / "w.txt", delimiter=",")
    with_gz = tmp_path / "w.txt.gz"
    write_cmu(back, with_gz)
    again = np.loadtxt(with_gz, delimiter=",")
    assert np.allclose(again, source, atol=1e-12)


def test_round_trip_of_exp_maps_up_to_2pi(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    values = np.zeros((30, 117))
    values[:, :3] = rng.normal(size=(30, 3)) * 100.0
    r = rng.normal(size=(30, 38, 3))
    r *= rng.uniform(0.0, 3.0 * np.pi, size=(30, 38, 1)) / np.linalg.norm(r, axis=-1, keepdims=True)
    values[:, 3:] = r.reshape(30, -1)
    src = tmp_path / "in.txt"
    np.savetxt(src, values, delimiter=",", fmt="%.17g")
    write_cmu(read_cmu(src), tmp_path / "out.txt")
    out = np.loadtxt(tmp_path / "out.txt", delimiter=",")
    assert np.allclose(out[:, :3], values[:, :3], atol=1e-9)
    r_out = out[:, 3:].reshape(30, 38, 3)
    angle = np.linalg.norm(r, axis=-1)
    plain = angle < np.pi - 1e-6
    assert np.allclose(r_out[plain], r[plain], atol=1e-9)
    for t, j in np.argwhere(~plain):
        assert np.allclose(rodrigues(r_out[t, j]), rodrigues(r[t, j]), atol=1e-9)


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("1,2,3\n", "3 values; a CMU exp-map frame has 117"),
        (",".join(["0"] * 116 + ["x"]) + "\n", "'x' is not a number"),
        (",".join(["0"] * 116 + ["nan"]) + "\n", "NaN"),
        ("\n\n", "no frames"),
    ],
)
def test_bad_files(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(FileFormatError, match=match):
        read_cmu(path)


def test_write_needs_the_cmu_skeleton(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="CMU skeleton"):
        write_cmu(Motion.rest(standard_humanoid()), tmp_path / "x.txt")
    assert not (tmp_path / "x.txt").exists()
    with pytest.raises(InputError, match="fps"):
        read_cmu(tmp_path / "x.txt", fps=0.0)
