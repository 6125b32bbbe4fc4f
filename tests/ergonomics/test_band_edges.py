"""Every band edge of REBA and RULA, scored through `BodyAngles.from_degrees` exactly on the
edge and a hundredth of a degree to each side.

Expected scores follow the wording of Hignett & McAtamney (2000, Tables 1-3) for REBA
(">X°": an edge value belongs to the lower band) and McAtamney & Corlett (1993,
Figures 1-2 and the force text) for RULA ("X° or more": an edge value belongs to the
higher band); see `vhuman.ergonomics.bands`.
"""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.ergonomics import (
    BodyAngles,
    LoadPattern,
    REBAConditions,
    RULAConditions,
    assess_reba,
    assess_rula,
)

H = 0.01  # degrees either side of an edge

# (field, edge in degrees, score just below, on the edge, just above), read off the
# published wording quoted beside each row.
REBA_EDGES = [
    ("trunk", "trunk_flexion", 20.0, 2, 2, 3),  # "0-20° flexion" 2, "20-60°" 3
    ("trunk", "trunk_flexion", 60.0, 3, 3, 4),  # "20-60° flexion" 3, ">60°" 4
    ("trunk", "trunk_flexion", -20.0, 3, 2, 2),  # "0-20° extension" 2, ">20° extension" 3
    ("neck", "neck_flexion", 20.0, 1, 1, 2),  # "0-20° flexion" 1, ">20°" 2
    ("upper_arm", "upper_arm_flexion", 20.0, 1, 1, 2),  # "20° ext. to 20° flex." 1
    ("upper_arm", "upper_arm_flexion", -20.0, 2, 1, 1),  # ">20° extension" 2
    ("upper_arm", "upper_arm_flexion", 45.0, 2, 2, 3),  # "20-45°" 2, "45-90°" 3
    ("upper_arm", "upper_arm_flexion", 90.0, 3, 3, 4),  # "45-90°" 3, ">90°" 4
    ("lower_arm", "elbow_flexion", 60.0, 2, 1, 1),  # "<60°" 2, "60-100°" 1
    ("lower_arm", "elbow_flexion", 100.0, 1, 1, 2),  # "60-100°" 1, ">100°" 2
    ("wrist", "wrist_flexion", 15.0, 1, 1, 2),  # "0-15°" 1, ">15°" 2
    ("wrist", "wrist_flexion", -15.0, 2, 1, 1),  # extension alike
    ("legs", "knee_flexion", 30.0, 1, 2, 2),  # "+1 if knee(s) between 30 and 60°"
    ("legs", "knee_flexion", 60.0, 2, 2, 3),  # "+2 if knee(s) >60°"
]

RULA_EDGES = [
    ("upper_arm", "upper_arm_flexion", 20.0, 1, 2, 2),  # "20-45° of flexion" 2
    ("upper_arm", "upper_arm_flexion", -20.0, 2, 1, 1),  # "extension greater than 20°" 2
    ("upper_arm", "upper_arm_flexion", 45.0, 2, 3, 3),  # "45-90°" 3
    ("upper_arm", "upper_arm_flexion", 90.0, 3, 4, 4),  # "90° or more" 4
    ("lower_arm", "elbow_flexion", 60.0, 2, 1, 1),  # "less than 60°" 2, "60-100°" 1
    ("lower_arm", "elbow_flexion", 100.0, 1, 1, 2),  # "more than 100°" 2
    ("wrist", "wrist_flexion", 15.0, 2, 3, 3),  # "0-15°" 2, "15° or more" 3
    ("wrist", "wrist_flexion", -15.0, 3, 3, 2),  # extension alike
    ("neck", "neck_flexion", 10.0, 1, 2, 2),  # "0-10°" 1, "10-20°" 2
    ("neck", "neck_flexion", 20.0, 2, 3, 3),  # "20° or more" 3
    ("trunk", "trunk_flexion", 20.0, 2, 3, 3),  # "0-20°" 2, "20-60°" 3
    ("trunk", "trunk_flexion", 60.0, 3, 4, 4),  # "60° or more" 4
]


def _part(result: object, part: str) -> int:
    v = np.asarray(getattr(result, part))
    return int(v.reshape(-1)[0])


# Elbow at 80° keeps RULA's lower arm out of the way; the rest is neutral.
BASE = {"elbow_flexion": 80.0}


@pytest.mark.parametrize(("part", "field", "deg", "below", "on", "above"), REBA_EDGES)
def test_reba_edge(part: str, field: str, deg: float, below: int, on: int, above: int) -> None:
    got = []
    for d in (deg - H, deg, deg + H):
        a = BodyAngles.from_degrees(**{**BASE, field: d})
        got.append(_part(assess_reba(a), part))
    assert got == [below, on, above]


@pytest.mark.parametrize(("part", "field", "deg", "below", "on", "above"), RULA_EDGES)
def test_rula_edge(part: str, field: str, deg: float, below: int, on: int, above: int) -> None:
    got = []
    for d in (deg - H, deg, deg + H):
        a = BodyAngles.from_degrees(**{**BASE, field: d})
        got.append(_part(assess_rula(a), part))
    assert got == [below, on, above]


def test_edge_values_arrive_exactly() -> None:
    """No degree → radian → degree round trip: 60° meets the 60° edge, 30° the 30° edge."""
    a = BodyAngles.from_degrees(elbow_flexion=60.0, knee_flexion=30.0)
    assert assess_reba(a).lower_arm.tolist() == [1, 1]
    assert assess_rula(a).lower_arm.tolist() == [1, 1]
    assert int(assess_reba(a).legs) == 2


@pytest.mark.parametrize(("kg", "score"), [(4.99, 0), (5.0, 1), (10.0, 1), (10.01, 2)])
def test_reba_load_edges(kg: float, score: int) -> None:
    """Table 3: "<5 kg" 0, "5-10 kg" 1, ">10 kg" 2."""
    assert REBAConditions(load_kg=kg).load_score == score


@pytest.mark.parametrize(
    ("kg", "pattern", "score"),
    [
        (1.99, "intermittent", 0),
        (2.0, "intermittent", 1),
        (10.0, "intermittent", 1),
        (10.01, "intermittent", 2),
        (2.0, "static", 2),
        (10.0, "repeated", 2),
        (10.01, "static", 3),
        (1.0, "static", 0),
    ],
)
def test_rula_force_edges(kg: float, pattern: str, score: int) -> None:
    """ "less than 2 kg intermittent" 0; "2-10 kg intermittent" 1; "2-10 kg static or
    repeated" or intermittent "more than 10 kg" 2; "more than 10 kg" static/repeated 3."""
    c = RULAConditions(load_kg=kg, load_pattern=LoadPattern(pattern))
    assert c.force_score == score


def test_thresholds_at_their_value_do_not_switch() -> None:
    """A yes/no adjustment switches on strictly beyond its threshold (given in degrees)."""
    from vhuman.ergonomics import PostureThresholds

    th = PostureThresholds.from_degrees(twist=15.0)
    on = BodyAngles.from_degrees(trunk_twist=[15.0, 15.01], elbow_flexion=80.0)
    assert assess_reba(on, thresholds=th).trunk.tolist() == [1, 2]
    assert assess_rula(on, thresholds=th).trunk.tolist() == [1, 2]


@pytest.mark.parametrize(
    ("method", "part", "field", "on", "beyond"),
    [
        ("reba", "trunk", "trunk_flexion", 1, 2),
        ("reba", "neck", "neck_flexion", 1, 2),
        ("rula", "neck", "neck_flexion", 1, 4),
        ("rula", "trunk", "trunk_flexion", 1, 2),
        ("rula", "wrist", "wrist_flexion", 1, 2),
    ],
)
def test_neutral_tolerance_edge(method: str, part: str, field: str, on: int, beyond: int) -> None:
    """ "Upright", "neutral" and "in extension" allow vhuman's 5° observer tolerance
    (`PostureThresholds.neutral`): 5° extension is still neutral, 5.01° is not."""
    assess = assess_reba if method == "reba" else assess_rula
    got = [_part(assess(BodyAngles.from_degrees(**{**BASE, field: d})), part) for d in (-5, -5.01)]
    assert got == [on, beyond]
