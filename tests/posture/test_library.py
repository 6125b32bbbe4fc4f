"""The posture library: postures, floor contact, computed REBA Table A scores, bad files."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vhuman.ergonomics import REBAConditions, body_angles, reba_posture_a
from vhuman.errors import FileFormatError
from vhuman.posture import PostureLibrary, load_library, posture_rotations, worker_skeleton
from vhuman.posture.check import lowest_line_points, static_balance
from vhuman.scene import BodyModel, CollisionWorld, Scene, Target
from vhuman.skeleton import Skeleton

REQUIRED = (
    "standing",
    "stooping",
    "squatting",
    "kneeling-one-knee",
    "kneeling-both-knees",
    "sitting-floor",
    "lying-back",
    "lying-side",
)


def test_library_has_the_seed_postures(library: PostureLibrary) -> None:
    assert len(library) >= 8
    assert set(REQUIRED) <= set(library.names)


def test_every_posture_touches_the_floor(library: PostureLibrary, body: BodyModel) -> None:
    for p in library:
        a, b = body.capsules(p.root_position, p.local_rotations)
        low = np.minimum(a[:, 2], b[:, 2]) - body.radii
        assert low.min() == pytest.approx(0.0, abs=1e-9), p.name


@pytest.mark.parametrize("worker", ["p5-female", "p50-male", "p95-male"])
def test_every_posture_is_statically_balanced_on_what_it_rests_on(worker: str) -> None:
    body = BodyModel.from_skeleton(worker_skeleton(worker), samples_per_segment=2)
    library = load_library(body.skeleton, body=body)
    target = Target([2.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0])
    world = CollisionWorld(Scene("open floor", (), target), resolution=0.1)
    names = np.asarray(body.skeleton.names)[body.joints]
    for p in library:
        balance = static_balance(world, body, p.root_position, p.local_rotations)
        assert balance.stable, (p.name, balance.margin)
        pts, _ = lowest_line_points(body, p.root_position, p.local_rotations)
        low = pts[:, 2].reshape(len(names), -1).min(axis=1)  # per capsule [m]
        resting = set(names[low <= 0.04])
        if "both knees on the floor" in p.description:  # the thighs' lower ends down
            assert {"l_hip", "r_hip"} <= resting, (p.name, resting)
        if p.name == "lying-side":  # the left shoulder and hip both down
            assert {"l_shoulder", "pelvis", "l_hip"} <= resting, resting


def test_reba_scores_are_computed_from_the_pose(library: PostureLibrary, p95: Skeleton) -> None:
    for p in library:
        expected = reba_posture_a(p.motion(p95), REBAConditions(sitting=p.sitting))[0]
        assert p.reba_a == expected
    assert library["standing"].reba_a == 1
    assert library["stooping"].reba_a > library["standing"].reba_a
    assert library["squatting"].reba_a > library["kneeling-both-knees"].reba_a
    assert len(set(library.reba_a.tolist())) >= 4  # the scores differ


def test_anatomical_angles_are_measured_back(p95: Skeleton) -> None:
    rot = posture_rotations(p95, {"l_knee": {"flexion": 70}, "r_hip": {"flexion": 40}})
    a = body_angles(load_pose(p95, rot))
    assert np.degrees(a.knee_flexion[0]) == pytest.approx([70.0, 0.0], abs=1e-6)
    assert np.degrees(a.hip_flexion[0]) == pytest.approx([0.0, 40.0], abs=1e-6)
    bent = body_angles(load_pose(p95, posture_rotations(p95, {"spine": {"flexion": 20}})))
    assert 0.0 < np.degrees(bent.trunk_flexion[0]) < 20.0


def load_pose(skeleton: Skeleton, rot: np.ndarray):
    from vhuman.skeleton import Motion

    return Motion(skeleton, 30.0, skeleton.offsets[:1], rot[None])


def test_bad_file_names_the_field(tmp_path: Path, p95: Skeleton) -> None:
    bad = tmp_path / "lib.yaml"
    bad.write_text("postures:\n  - name: x\n    joints:\n      r_knee: {bend: 30}\n")
    with pytest.raises(FileFormatError, match=r"postures\[0\].*bend"):
        load_library(p95, bad)
    bad.write_text("postures:\n  - name: x\n    joints:\n      r_knee: {flexion: .nan}\n")
    with pytest.raises(FileFormatError, match="finite"):
        load_library(p95, bad)
