"""`WorkFactors`, factors and body-map files, and `assess_motion` over many frames."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vhuman.ergonomics import (
    CMU_BODY_MAP,
    Coupling,
    LoadPattern,
    PostureThresholds,
    WorkFactors,
    assess_motion,
    assess_reba,
    assess_rula,
    read_body_map,
    read_factors,
)
from vhuman.errors import InputError
from vhuman.skeleton import Motion, Skeleton


def test_factors_map_onto_both_methods() -> None:
    f = WorkFactors(
        load_kg=6,
        load_pattern="repeated",
        coupling="Poor",
        static=True,
        repeated=True,
        sitting=True,
        legs_supported=False,
    )
    reba, rula = f.reba(), f.rula()
    assert (reba.load_score, reba.coupling, reba.activity_score) == (1, Coupling.POOR, 2)
    assert reba.sitting
    assert reba.bilateral_support is False
    assert rula.load_pattern is LoadPattern.REPEATED
    assert (rula.force_score, rula.muscle_score) == (2, 1)  # static and repeated count once
    assert rula.seated_supported
    assert rula.legs_supported is False
    assert f.to_dict()["coupling"] == "poor"


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"load_kg": -0.1}, "load_kg"),
        ({"coupling": "tight"}, "coupling"),
        ({"coupling": 5}, "coupling"),
        ({"load_pattern": "daily"}, "load_pattern"),
        ({"shock": "yes"}, "shock"),
        ({"legs_supported": 1}, "legs_supported"),
    ],
)
def test_bad_factors_are_refused(kwargs: dict, needle: str) -> None:
    with pytest.raises(InputError, match=needle):
        WorkFactors(**kwargs)


def test_read_factors_file(tmp_path: Path) -> None:
    p = tmp_path / "f.yaml"
    p.write_text("load_kg: 3\nshock: true\nthresholds:\n  twist: 20\n  support_height: 0.1\n")
    values, th = read_factors(p)
    assert values == {"load_kg": 3, "shock": True}
    assert th.twist == np.radians(20.0)
    assert th.support_height == 0.1
    assert th.side_bend == PostureThresholds().side_bend


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "expected a mapping"),
        ("load_kg: [1\n", "not valid YAML"),
        ("thresholds:\n  tilt: 3\n", "unknown PostureThresholds fields"),
        ("thresholds:\n  twist: -3\n", "must be a finite number >= 0"),
    ],
)
def test_bad_factors_file(tmp_path: Path, text: str, needle: str) -> None:
    p = tmp_path / "f.yaml"
    p.write_text(text)
    with pytest.raises(InputError, match=needle):
        read_factors(p)
    with pytest.raises(InputError, match="unknown factors"):
        WorkFactors.from_mapping({"weight": 3}, source="f.yaml")


def test_read_body_map(tmp_path: Path) -> None:
    assert read_body_map("cmu") is CMU_BODY_MAP
    with pytest.raises(InputError, match="unknown body map 'xyz'"):
        read_body_map("xyz")
    p = tmp_path / "m.yaml"
    p.write_text("pelvis: hips\nwing: [a, b]\n")
    with pytest.raises(InputError, match=r"unknown parts \['wing'\].*missing parts"):
        read_body_map(p)


def test_motion_scores_equal_frame_by_frame_scores(humanoid: Skeleton) -> None:
    """Batched scoring of T frames equals scoring each frame on its own."""
    q = humanoid.random_rotations(40, rng=5)
    m = Motion(humanoid, 20.0, np.tile(humanoid.offsets[0], (40, 1)), q)
    f = WorkFactors(load_kg=4, static=True)
    r = assess_motion(m, f)
    for k in (0, 7, 39):
        one = Motion(humanoid, 20.0, m.root_positions[k : k + 1], q[k : k + 1])
        assert int(assess_reba(one, f.reba()).score[0]) == int(r.reba.score[k])
        assert int(assess_rula(one, f.rula()).score[0]) == int(r.rula.score[k])
    levels = r.time_by_action_level()
    assert sum(levels["reba"].values()) == pytest.approx(2.0)
    w = r.worst()["rula"]
    assert w["score"] == int(r.rula.score.max())
    assert r.rula.score[: w["frame"]].max(initial=0) < w["score"]  # the first worst frame
    csv = r.to_csv().splitlines()
    assert len(csv) == 41
    assert "reba_score" in csv[0].split(",")


def test_deepmimic_humanoid_maps_by_default() -> None:
    """The DeepMimic humanoid (no hand, clavicle or toe joints) is scored with its built-in
    map; wrist angles it cannot measure read 0, the other angles are measured."""
    from vhuman.ergonomics import DEEPMIMIC_BODY_MAP, body_angles, default_body_map
    from vhuman.geometry import rotvec_to_quat
    from vhuman.io import deepmimic_humanoid

    sk = deepmimic_humanoid()
    assert default_body_map(sk) is DEEPMIMIC_BODY_MAP
    q = rotvec_to_quat(np.random.default_rng(3).normal(size=(30, sk.n_joints, 3)) * 0.4)
    m = Motion(sk, 30.0, np.tile(sk.offsets[0], (30, 1)), q)
    a = body_angles(m)
    assert np.all(a.wrist_flexion == 0.0)
    assert np.all(a.forearm_rotation == 0.0)
    assert np.ptp(a.elbow_flexion) > 0.1
    assert np.ptp(a.trunk_flexion) > 0.1
    r = assess_motion(m)
    assert r.reba.score.shape == (30,)
    assert np.all(r.reba.wrist == 1)
