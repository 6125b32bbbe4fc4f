"""RULA: published tables, worksheet walk-throughs, scores of measured poses, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.ergonomics import (
    RULA_TABLE_A,
    RULA_TABLE_B,
    RULA_TABLE_C,
    BodyAngles,
    LoadPattern,
    RULAConditions,
    assess_rula,
    rula_action_level,
    rula_table_a,
    rula_table_b,
    rula_table_c,
)
from vhuman.errors import InputError
from vhuman.skeleton import Motion, Skeleton


def test_table_a_rows_as_published() -> None:
    """Table A of McAtamney & Corlett (1993), as on the RULA Employee Assessment Worksheet:
    rows upper arm 1-6 × lower arm 1-3; columns wrist 1-4 × wrist twist 1-2."""
    published = [
        [1, 2, 2, 2, 2, 3, 3, 3],
        [2, 2, 2, 2, 3, 3, 3, 3],
        [2, 3, 3, 3, 3, 3, 4, 4],
        [2, 3, 3, 3, 3, 4, 4, 4],
        [3, 3, 3, 3, 3, 4, 4, 4],
        [3, 4, 4, 4, 4, 4, 5, 5],
        [3, 3, 4, 4, 4, 4, 5, 5],
        [3, 4, 4, 4, 4, 4, 5, 5],
        [4, 4, 4, 4, 4, 5, 5, 5],
        [4, 4, 4, 4, 4, 5, 5, 5],
        [4, 4, 4, 4, 4, 5, 5, 5],
        [4, 4, 4, 5, 5, 5, 6, 6],
        [5, 5, 5, 5, 5, 6, 6, 7],
        [5, 6, 6, 6, 6, 7, 7, 7],
        [6, 6, 6, 7, 7, 7, 7, 8],
        [7, 7, 7, 7, 7, 8, 8, 9],
        [8, 8, 8, 8, 8, 9, 9, 9],
        [9, 9, 9, 9, 9, 9, 9, 9],
    ]
    assert np.array_equal(RULA_TABLE_A.reshape(18, 8), published)
    assert rula_table_a(4, 3, 4, 2) == 6
    assert rula_table_a(1, 1, 1, 1) == 1


def test_table_b_rows_as_published() -> None:
    """Table B: rows neck 1-6; columns trunk 1-6 × legs 1-2."""
    published = [
        [1, 3, 2, 3, 3, 4, 5, 5, 6, 6, 7, 7],
        [2, 3, 2, 3, 4, 5, 5, 5, 6, 7, 7, 7],
        [3, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 7],
        [5, 5, 5, 6, 6, 7, 7, 7, 7, 7, 8, 8],
        [7, 7, 7, 7, 7, 8, 8, 8, 8, 8, 8, 8],
        [8, 8, 8, 8, 8, 8, 8, 9, 9, 9, 9, 9],
    ]
    assert np.array_equal(RULA_TABLE_B.reshape(6, 12), published)
    assert rula_table_b(3, 4, 1) == 5


def test_table_c_and_action_levels() -> None:
    """Table C (grand score): score C rows 1-8+, score D columns 1-7+."""
    cells = {
        (1, 1): 1,
        (1, 7): 5,
        (2, 4): 4,
        (3, 7): 6,
        (4, 5): 5,
        (5, 1): 4,
        (5, 6): 7,
        (6, 3): 5,
        (7, 1): 5,
        (8, 4): 7,
        (8, 7): 7,
        (12, 12): 7,
        (9, 1): 5,
    }
    for (c, d), want in cells.items():
        assert rula_table_c(c, d) == want, (c, d)
    assert np.all(np.diff(RULA_TABLE_C, axis=0) >= 0)
    assert np.all(np.diff(RULA_TABLE_C, axis=1) >= 0)
    assert rula_action_level([1, 2, 3, 4, 5, 6, 7]).tolist() == [1, 1, 2, 2, 3, 3, 4]


def test_worksheet_walkthrough_high_risk() -> None:
    """Scored step by step on the RULA Employee Assessment Worksheet (after McAtamney &
    Corlett 1993); every lookup is a cell of the published tables.

    Upper arm 50° → 3, shoulder raised +1 → 4. Lower arm 110° → 2, across the midline +1 → 3.
    Wrist 20° extension → 3, deviated +1 → 4; twist near end of range → 2.
    Table A[4][3][4][2] = 6; static +1; 5 kg intermittent → force 1; score C 8.
    Neck 15° → 2, twisted +1 → 3. Trunk 30° → 3, side bending +1 → 4. Legs supported → 1.
    Table B[3][4][1] = 5; +1 +1 → score D 7. Table C[8+][7+] = 7: action level 4.
    """
    a = BodyAngles.from_degrees(
        upper_arm_flexion=50,
        shoulder_elevation=15,
        elbow_flexion=110,
        wrist_midline_offset=-0.05,
        wrist_flexion=-20,
        wrist_deviation=-15,
        forearm_rotation=60,
        neck_flexion=[15],
        neck_twist=20,
        trunk_flexion=30,
        trunk_side_bend=15,
    )
    r = assess_rula(a, RULAConditions(load_kg=5.0, static_or_repeated=True))
    assert r.upper_arm[0].tolist() == [4, 4]
    assert r.lower_arm[0].tolist() == [3, 3]
    assert r.wrist[0].tolist() == [4, 4]
    assert r.wrist_twist[0].tolist() == [2, 2]
    assert r.table_a[0].tolist() == [6, 6]
    assert r.score_c[0].tolist() == [8, 8]
    assert (r.neck[0], r.trunk[0], r.legs[0], r.table_b[0], r.score_d[0]) == (3, 4, 1, 5, 7)
    assert int(r.score[0]) == 7
    assert int(r.action_level[0]) == 4
    assert r.action == ["investigate and change immediately"]


def test_worksheet_walkthrough_acceptable() -> None:
    """Keyboard work: upper arm 15° → 1, lower arm 80° → 1, wrist neutral → 1, twist
    mid-range → 1; Table A 1. Neck 5° → 1, trunk upright → 1, legs 1; Table B 1.
    No muscle or force scores → Table C[1][1] = 1, action level 1."""
    a = BodyAngles.from_degrees(upper_arm_flexion=15, elbow_flexion=80, neck_flexion=[5])
    r = assess_rula(a)
    assert r.table_a[0].tolist() == [1, 1]
    assert int(r.table_b[0]) == 1
    assert int(r.score[0]) == 1
    assert int(r.action_level[0]) == 1


def test_rest_pose(humanoid: Skeleton, pose) -> None:
    """Standing at rest the straight elbows score 2 (outside 60-100°), so RULA is 2;
    with the elbows at 80° the rest posture scores the minimum, 1."""
    r = assess_rula(Motion.rest(humanoid))
    assert r.lower_arm[0].tolist() == [2, 2]
    assert int(r.score[0]) == 2
    r = assess_rula(pose(l_elbow=("hinge", 80.0), r_elbow=("hinge", 80.0)))
    assert r.lower_arm[0].tolist() == [1, 1]
    assert int(r.score[0]) == 1


def test_measured_pose_scores(pose) -> None:
    """Neck flexed 25° (3), trunk stooped 30° (3); left arm reaching across the body."""
    m = pose(
        pelvis=("XYZ", [0, 30, 0]),
        l_hip=("XYZ", [0, -30, 0]),
        r_hip=("XYZ", [0, -30, 0]),
        neck=("XYZ", [0, 15, 0]),
        head=("XYZ", [0, 10, 0]),
        l_shoulder=("YZX", [-60, -30, -30]),
        l_elbow=("hinge", 90.0),
    )
    r = assess_rula(m)
    assert (int(r.neck[0]), int(r.trunk[0]), int(r.legs[0])) == (3, 3, 1)
    assert int(r.upper_arm[0, 0]) == 3
    assert int(r.lower_arm[0, 0]) == 2
    assert int(r.score[0]) == int(r.side_scores[0].max())


def test_mirrored_poses_score_the_same(humanoid: Skeleton) -> None:
    q = humanoid.random_rotations(30, rng=12)
    m = Motion(humanoid, 30.0, np.tile(humanoid.offsets[0], (30, 1)), q)
    a, b = assess_rula(m), assess_rula(m.mirrored())
    assert np.array_equal(a.score, b.score)
    assert np.array_equal(a.table_a, b.table_a[:, ::-1])
    assert len(np.unique(a.score)) > 2


def test_force_score() -> None:
    def f(kg: float, pattern: LoadPattern = LoadPattern.INTERMITTENT, shock: bool = False) -> int:
        return RULAConditions(load_kg=kg, load_pattern=pattern, shock=shock).force_score

    assert [f(0), f(1.9), f(2), f(10), f(11)] == [0, 0, 1, 1, 2]
    assert [f(5, LoadPattern.STATIC), f(5, LoadPattern.REPEATED), f(12, LoadPattern.STATIC)] == [
        2,
        2,
        3,
    ]
    assert f(0.5, shock=True) == 3


def test_seated_supported() -> None:
    a = BodyAngles.from_degrees(trunk_flexion=[30], foot_clearance=[0.0, 0.2])
    r = assess_rula(a)
    assert (int(r.trunk[0]), int(r.legs[0])) == (3, 2)
    r = assess_rula(a, RULAConditions(seated_supported=True))
    assert (int(r.trunk[0]), int(r.legs[0])) == (1, 1)


def test_invalid_input_raises() -> None:
    with pytest.raises(InputError, match="load_kg"):
        RULAConditions(load_kg=-0.5)
    with pytest.raises(InputError, match="load_kg"):
        RULAConditions(load_kg=float("nan"))
    with pytest.raises(InputError, match="load_pattern"):
        RULAConditions(load_pattern="sometimes")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="True or False"):
        RULAConditions(arm_supported=1)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="wrist twist score"):
        rula_table_a(1, 1, 1, 3)
    with pytest.raises(InputError, match="neck score"):
        rula_table_b(0, 1, 1)
    with pytest.raises(InputError, match="RULAConditions"):
        assess_rula(BodyAngles.from_degrees(), conditions=object())  # type: ignore[arg-type]
