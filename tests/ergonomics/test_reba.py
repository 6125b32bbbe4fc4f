"""REBA: published tables, worksheet walk-throughs, scores of measured poses, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.ergonomics import (
    REBA_TABLE_A,
    REBA_TABLE_B,
    REBA_TABLE_C,
    BodyAngles,
    Coupling,
    REBAConditions,
    assess_reba,
    reba_action_level,
    reba_posture_a,
    reba_table_a,
    reba_table_b,
    reba_table_c,
)
from vhuman.errors import InputError
from vhuman.skeleton import Motion, Skeleton


def test_table_a_rows_as_published() -> None:
    """Every row of Table A (Hignett & McAtamney 2000; REBA Employee Assessment Worksheet,
    Ergonomics Plus): trunk rows 1-5, neck 1-3 × legs 1-4 left to right."""
    published = [
        [1, 2, 3, 4, 1, 2, 3, 4, 3, 3, 5, 6],
        [2, 3, 4, 5, 3, 4, 5, 6, 4, 5, 6, 7],
        [2, 4, 5, 6, 4, 5, 6, 7, 5, 6, 7, 8],
        [3, 5, 6, 7, 5, 6, 7, 8, 6, 7, 8, 9],
        [4, 6, 7, 8, 6, 7, 8, 9, 7, 8, 9, 9],
    ]
    assert np.array_equal(REBA_TABLE_A.reshape(5, 12), published)
    assert reba_table_a(3, 2, 4) == 7
    assert reba_table_a(1, 3, 1) == 3
    assert reba_table_a(5, 3, 4) == 9


def test_table_b_rows_as_published() -> None:
    """Table B: upper arm rows 1-6, lower arm 1-2 × wrist 1-3."""
    published = [
        [1, 2, 2, 1, 2, 3],
        [1, 2, 3, 2, 3, 4],
        [3, 4, 5, 4, 5, 5],
        [4, 5, 5, 5, 6, 7],
        [6, 7, 8, 7, 8, 8],
        [7, 8, 8, 8, 9, 9],
    ]
    assert np.array_equal(REBA_TABLE_B.reshape(6, 6), published)
    assert reba_table_b(4, 2, 3) == 7
    assert reba_table_b(6, 1, 1) == 7


def test_table_c_spot_checks() -> None:
    """Table C cells (score A row, score B column) from the published table."""
    cells = {
        (1, 1): 1,
        (1, 4): 2,
        (1, 12): 7,
        (2, 12): 8,
        (3, 1): 2,
        (4, 5): 5,
        (5, 4): 5,
        (6, 1): 6,
        (6, 12): 10,
        (7, 10): 11,
        (8, 9): 10,
        (9, 7): 11,
        (10, 8): 12,
        (11, 4): 11,
        (11, 5): 12,
        (12, 1): 12,
    }
    for (a, b), want in cells.items():
        assert reba_table_c(a, b) == want, (a, b)
    assert REBA_TABLE_C.shape == (12, 12)
    # The published table never decreases along a row or a column.
    assert np.all(np.diff(REBA_TABLE_C, axis=0) >= 0)
    assert np.all(np.diff(REBA_TABLE_C, axis=1) >= 0)


def test_action_levels() -> None:
    assert reba_action_level([1, 2, 3, 4, 7, 8, 10, 11, 15]).tolist() == [0, 1, 1, 2, 2, 3, 3, 4, 4]


def test_worksheet_walkthrough_high_risk() -> None:
    """A lift scored step by step on the REBA Employee Assessment Worksheet (Ergonomics Plus,
    after Hignett & McAtamney 2000); every lookup below is a cell of the published tables.

    Neck 25° flexion → 2, twisted +1 → 3. Trunk 45° flexion → 3, side bending +1 → 4.
    Both legs down → 1, knees 40° → +1 → 2. Table A[4][3][2] = 7; load 7 kg → +1; score A 8.
    Upper arm 100° → 4, abducted +1 → 5. Lower arm 50° → 2. Wrist 20° flexion → 2,
    deviated +1 → 3. Table B[5][2][3] = 8; fair coupling +1; score B 9.
    Table C[8][9] = 10; static +1 → REBA 11: very high risk, action necessary now.
    """
    a = BodyAngles.from_degrees(
        neck_flexion=25,
        neck_twist=20,
        trunk_flexion=[45],
        trunk_side_bend=15,
        knee_flexion=40,
        upper_arm_flexion=100,
        upper_arm_abduction=30,
        elbow_flexion=50,
        wrist_flexion=20,
        wrist_deviation=15,
    )
    r = assess_reba(a, REBAConditions(load_kg=7.0, coupling=Coupling.FAIR, static=True))
    assert (r.neck[0], r.trunk[0], r.legs[0], r.table_a[0], r.score_a[0]) == (3, 4, 2, 7, 8)
    assert r.upper_arm[0].tolist() == [5, 5]
    assert r.lower_arm[0].tolist() == [2, 2]
    assert r.wrist[0].tolist() == [3, 3]
    assert r.table_b[0].tolist() == [8, 8]
    assert r.score_b[0].tolist() == [9, 9]
    assert r.table_c[0].tolist() == [10, 10]
    assert int(r.score[0]) == 11
    assert r.risk == ["very high"]
    assert r.action == ["necessary now"]


def test_worksheet_walkthrough_low_risk() -> None:
    """Worksheet steps for a light task on one leg: neck 10° → 1; trunk 10° → 2; one leg raised
    → 2; Table A[2][1][2] = 3, no load → score A 3. Upper arm 30° → 2, lower arm 80° → 1,
    wrist 10° → 1; Table B[2][1][1] = 1, good coupling → score B 1. Table C[3][1] = 2,
    no activity → REBA 2: low risk, change may be necessary.
    """
    a = BodyAngles.from_degrees(
        neck_flexion=10,
        trunk_flexion=[10],
        foot_clearance=[0.0, 0.3],
        upper_arm_flexion=30,
        elbow_flexion=80,
        wrist_flexion=10,
    )
    r = assess_reba(a)
    assert (r.neck[0], r.trunk[0], r.legs[0], r.table_a[0]) == (1, 2, 2, 3)
    assert r.table_b[0].tolist() == [1, 1]
    assert int(r.score[0]) == 2
    assert r.risk == ["low"]
    assert r.to_dict()["action"] == ["may be necessary"]


def test_rest_pose_scores_minimal(humanoid: Skeleton) -> None:
    r = assess_reba(Motion.rest(humanoid))
    assert (r.trunk[0], r.neck[0], r.legs[0], r.table_a[0]) == (1, 1, 1, 1)
    assert int(r.score[0]) == 1
    assert r.risk == ["negligible"]
    assert reba_posture_a(Motion.rest(humanoid)).tolist() == [1]


@pytest.mark.parametrize(("angle", "trunk"), [(3.0, 1), (15.0, 2), (30.0, 3), (45.0, 3), (70.0, 4)])
def test_measured_stoop_trunk_score(pose, angle: float, trunk: int) -> None:
    """Stoop of ``angle`` on the standard humanoid → the published trunk band."""
    m = pose(
        pelvis=("XYZ", [0, angle, 0]), l_hip=("XYZ", [0, -angle, 0]), r_hip=("XYZ", [0, -angle, 0])
    )
    r = assess_reba(m)
    assert int(r.trunk[0]) == trunk
    assert int(reba_posture_a(m)[0]) == REBA_TABLE_A[trunk - 1, 0, 0]


def test_measured_pose_scores(pose) -> None:
    """Squat with knees at 70° (legs 1 + 2), neck extended (2), arm raised 100° (4) with
    shoulder shrugged (+1), elbow at 90° (1), wrist flexed 30° (2)."""
    m = pose(
        l_hip=("XYZ", [0, -35, 0]),
        r_hip=("XYZ", [0, -35, 0]),
        l_knee=("hinge", 70.0),
        r_knee=("hinge", 70.0),
        l_ankle=("XYZ", [0, -35, 0]),
        r_ankle=("XYZ", [0, -35, 0]),
        head=("XYZ", [0, -20, 0]),
        r_shoulder=("YZX", [-100, 0, 0]),
        r_clavicle=("YXZ", [0, -15, 0]),
        r_elbow=("hinge", 90.0),
        r_wrist=("ZXY", [0, 30, 0]),
    )
    r = assess_reba(m)
    assert (r.trunk[0], r.neck[0], r.legs[0]) == (1, 2, 3)
    assert r.upper_arm[0].tolist() == [1, 5]
    assert r.lower_arm[0].tolist() == [2, 1]
    assert r.wrist[0].tolist() == [1, 2]
    assert int(r.side[0]) == 1
    assert int(r.score[0]) == int(r.side_scores[0, 1])


def test_sitting_and_supported_arm() -> None:
    a = BodyAngles.from_degrees(trunk_flexion=[0], knee_flexion=90, upper_arm_flexion=50)
    assert int(assess_reba(a).legs[0]) == 3
    assert int(assess_reba(a, REBAConditions(sitting=True)).legs[0]) == 1
    assert int(assess_reba(a, REBAConditions(bilateral_support=False)).legs[0]) == 4
    assert assess_reba(a, REBAConditions(arm_supported=True)).upper_arm[0].tolist() == [2, 2]


def test_mirrored_poses_score_the_same(humanoid: Skeleton) -> None:
    q = humanoid.random_rotations(30, rng=11)
    m = Motion(humanoid, 30.0, np.tile(humanoid.offsets[0], (30, 1)), q)
    a, b = assess_reba(m), assess_reba(m.mirrored())
    assert np.array_equal(a.score, b.score)
    assert np.array_equal(a.table_a, b.table_a)
    assert np.array_equal(a.upper_arm, b.upper_arm[:, ::-1])
    assert len(np.unique(a.score)) > 2  # the poses are varied enough to mean something


def test_load_and_activity_scores() -> None:
    assert [REBAConditions(load_kg=w).load_score for w in (0, 4.9, 5, 10, 10.1)] == [0, 0, 1, 1, 2]
    assert REBAConditions(load_kg=12, shock=True).load_score == 3
    assert REBAConditions(static=True, repeated=True, rapid_change=True).activity_score == 3


def test_invalid_input_raises() -> None:
    for bad in (-1.0, np.nan, np.inf):
        with pytest.raises(InputError, match="load_kg"):
            REBAConditions(load_kg=bad)
    with pytest.raises(InputError, match="load_kg"):
        REBAConditions(load_kg="heavy")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="coupling"):
        REBAConditions(coupling=7)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="True or False"):
        REBAConditions(static="yes")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="trunk score must be between 1 and 5"):
        reba_table_a(6, 1, 1)
    with pytest.raises(InputError, match="whole scores"):
        reba_table_b(1.5, 1, 1)
    with pytest.raises(InputError, match="score B"):
        reba_table_c(1, 13)
    with pytest.raises(InputError, match="Motion or BodyAngles"):
        assess_reba(np.zeros(3))  # type: ignore[arg-type]
    with pytest.raises(InputError, match="REBAConditions"):
        assess_reba(BodyAngles.from_degrees(), conditions=object())  # type: ignore[arg-type]


def test_upper_arm_abducted_or_rotated_adds_one() -> None:
    """REBA: "+1 if arm is abducted or rotated" (one point for either or both); RULA counts
    abduction only."""
    from vhuman.ergonomics import assess_rula

    a = BodyAngles.from_degrees(
        upper_arm_flexion=30,
        elbow_flexion=80,
        upper_arm_rotation=[[50, 0], [50, 0]],
        upper_arm_abduction=[[0, 0], [30, 0]],
    )
    r = assess_reba(a)
    assert r.upper_arm.tolist() == [[3, 2], [3, 2]]
    assert r.adjustments["upper_arm_abducted_or_rotated"].tolist() == [[True, False]] * 2
    assert assess_rula(a).upper_arm.tolist() == [[2, 2], [3, 2]]
