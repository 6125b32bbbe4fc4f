"""Angle bands of REBA and RULA with the published edges, and the shared yes/no adjustments.

Each band function quotes the wording of the method's paper, which decides on
which side of an edge a value lies:

- **REBA** (Hignett & McAtamney 2000, Tables 1 and 2) writes the open side
  with ">": "0°–20° flexion" then ">20° flexion". A value on an edge belongs
  to the *lower* band (20° → "0°–20°"). Where two ranges share an edge without
  a ">" (upper arm "20°–45°" and "45°–90°"), vhuman reads them the same way:
  45° scores 2.
- **RULA** (McAtamney & Corlett 1993, Figures 1 and 2) writes the top band
  as "X° or more": neck "20° or more", trunk "60° or more", upper arm "90° or
  more", wrist "15° or more". A value on such an edge belongs to the *upper*
  band. Where two ranges share an edge with no "or more" (neck "0–10°" and
  "10–20°", upper arm "20° extension to 20° flexion" and "20–45°", "20–45°"
  and "45–90°"), vhuman reads them the same way: the edge opens the higher band.
  The lower arm is the exception both papers spell out: "60–100°" scores 1,
  "less than 60° or more than 100°" 2, so 60° and 100° score 1.

Angles arrive in radians and every edge is ``np.radians`` of the published
degrees, the same conversion :meth:`BodyAngles.from_degrees` applies: a
worksheet angle given exactly on an edge compares equal to it (no
degree → radian → degree round trip, which would turn 60° into 59.99999999999999).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vhuman.ergonomics.angles import BodyAngles
from vhuman.ergonomics.thresholds import PostureThresholds

__all__ = [
    "arm_adjustments",
    "edge",
    "neck_adjustments",
    "reba_knee_adjustment",
    "reba_lower_arm_band",
    "reba_neck_band",
    "reba_trunk_band",
    "reba_upper_arm_band",
    "reba_wrist_band",
    "rula_lower_arm_band",
    "rula_neck_band",
    "rula_trunk_band",
    "rula_upper_arm_band",
    "rula_wrist_band",
    "supporting_legs",
    "trunk_adjustments",
]


def edge(degrees: float) -> float:
    """A published band edge in radians, converted exactly as ``BodyAngles.from_degrees`` does."""
    return float(np.radians(degrees))


def _i(a: NDArray[np.bool_] | NDArray[np.int64]) -> NDArray[np.int64]:
    return np.asarray(a, dtype=np.int64)


# --- REBA (Hignett & McAtamney 2000) ---------------------------------------------------------


def reba_trunk_band(flexion: NDArray[np.float64], neutral: float) -> NDArray[np.int64]:
    """REBA trunk: "upright" 1; "0°–20° flexion, 0°–20° extension" 2; "20°–60° flexion,
    >20° extension" 3; ">60° flexion" 4 (Hignett & McAtamney 2000, Table 1).

    ``flexion`` [rad], negative for extension; within ``neutral`` [rad] of 0 is upright.
    Edges: 20° and −20° score 2, 60° scores 3.
    """
    ext = -flexion
    score = np.select(
        [np.abs(flexion) <= neutral, flexion > 0.0, ext <= edge(20.0)],
        [1, 2 + _i(flexion > edge(20.0)) + _i(flexion > edge(60.0)), 2],
        3,
    )
    return _i(score)


def reba_neck_band(flexion: NDArray[np.float64], neutral: float) -> NDArray[np.int64]:
    """REBA neck: "0°–20° flexion" 1; ">20° flexion or in extension" 2 (Table 1).

    Extension counts beyond ``neutral`` [rad]; 20° flexion scores 1.
    """
    return _i(np.where((flexion >= -neutral) & (flexion <= edge(20.0)), 1, 2))


def reba_knee_adjustment(knee_flexion: NDArray[np.float64]) -> NDArray[np.int64]:
    """REBA legs: "+1 if knee(s) between 30° and 60° flexion; +2 if knee(s) are >60° flexion"
    (Table 1). 30° and 60° both add 1."""
    return _i(np.select([knee_flexion > edge(60.0), knee_flexion >= edge(30.0)], [2, 1], 0))


def reba_upper_arm_band(flexion: NDArray[np.float64]) -> NDArray[np.int64]:
    """REBA upper arm: "20° extension to 20° flexion" 1; ">20° extension, 20°–45° flexion" 2;
    "45°–90° flexion" 3; ">90° flexion" 4 (Table 2).

    ``flexion`` [rad], negative for extension. ±20° score 1, 45° scores 2, 90° scores 3.
    """
    return _i(
        np.select(
            [
                flexion < -edge(20.0),
                flexion <= edge(20.0),
                flexion <= edge(45.0),
                flexion <= edge(90.0),
            ],
            [2, 1, 2, 3],
            4,
        )
    )


def reba_lower_arm_band(elbow_flexion: NDArray[np.float64]) -> NDArray[np.int64]:
    """REBA lower arm: "60°–100° flexion" 1; "<60° flexion or >100° flexion" 2 (Table 2)."""
    inside = (elbow_flexion >= edge(60.0)) & (elbow_flexion <= edge(100.0))
    return _i(np.where(inside, 1, 2))


def reba_wrist_band(flexion: NDArray[np.float64]) -> NDArray[np.int64]:
    """REBA wrist: "0°–15° flexion/extension" 1; ">15° flexion/extension" 2 (Table 2)."""
    return _i(np.where(np.abs(flexion) <= edge(15.0), 1, 2))


# --- RULA (McAtamney & Corlett 1993) ---------------------------------------------------------


def rula_upper_arm_band(flexion: NDArray[np.float64]) -> NDArray[np.int64]:
    """RULA upper arm: "20° of extension to 20° of flexion" 1; "extension greater than 20°
    or 20–45° of flexion" 2; "45–90° of flexion" 3; "90° or more of flexion" 4
    (McAtamney & Corlett 1993, Figure 1).

    ``flexion`` [rad]. −20° scores 1 ("greater than 20°" excludes it); 20° scores 2,
    45° scores 3 and 90° scores 4 (the "or more" reading, see the module notes).
    """
    return _i(
        np.select(
            [
                flexion < -edge(20.0),
                flexion < edge(20.0),
                flexion < edge(45.0),
                flexion < edge(90.0),
            ],
            [2, 1, 2, 3],
            4,
        )
    )


def rula_lower_arm_band(elbow_flexion: NDArray[np.float64]) -> NDArray[np.int64]:
    """RULA lower arm: "60–100° flexion" 1; "less than 60° or more than 100°" 2 (Figure 1)."""
    inside = (elbow_flexion >= edge(60.0)) & (elbow_flexion <= edge(100.0))
    return _i(np.where(inside, 1, 2))


def rula_wrist_band(flexion: NDArray[np.float64], neutral: float) -> NDArray[np.int64]:
    """RULA wrist: "neutral" 1; "0–15° in either flexion or extension" 2; "15° or more" 3
    (Figure 1). Within ``neutral`` [rad] of 0 is neutral; 15° scores 3."""
    f = np.abs(flexion)
    return _i(np.select([f <= neutral, f < edge(15.0)], [1, 2], 3))


def rula_neck_band(flexion: NDArray[np.float64], neutral: float) -> NDArray[np.int64]:
    """RULA neck: "0–10° flexion" 1; "10–20° flexion" 2; "20° or more flexion" 3;
    "in extension" 4 (Figure 2). Extension counts beyond ``neutral`` [rad];
    10° scores 2 and 20° scores 3."""
    return _i(
        np.select([flexion < -neutral, flexion < edge(10.0), flexion < edge(20.0)], [4, 1, 2], 3)
    )


def rula_trunk_band(flexion: NDArray[np.float64], neutral: float) -> NDArray[np.int64]:
    """RULA trunk: 1 upright (the worksheet's 0°; the paper's "sitting and well supported"
    is a condition, :class:`RULAConditions`); "0–20° flexion" 2; "20–60° flexion" 3;
    "60° or more flexion" 4 (Figure 2). 20° scores 3 and 60° scores 4.

    The paper gives no band for trunk extension; vhuman scores extension beyond
    ``neutral`` [rad] 2, like slight flexion.
    """
    return _i(
        np.select(
            [np.abs(flexion) <= neutral, flexion < 0.0, flexion < edge(20.0), flexion < edge(60.0)],
            [1, 2, 2, 3],
            4,
        )
    )


# --- Yes/no adjustments shared by both methods -------------------------------------------------


def arm_adjustments(
    angles: BodyAngles, thresholds: PostureThresholds
) -> tuple[NDArray[np.bool_], NDArray[np.bool_], NDArray[np.bool_]]:
    """``(abducted, rotated, shoulder_raised)``, each ``S + (2,)``.

    REBA adds 1 if the upper arm is "abducted or rotated", RULA 1 if it is
    abducted; both add 1 if the shoulder is raised.
    """
    abducted = angles.upper_arm_abduction > thresholds.abduction
    rotated = np.abs(angles.upper_arm_rotation) > thresholds.arm_rotation
    raised = angles.shoulder_elevation > thresholds.shoulder_raise
    return abducted, rotated, raised


def trunk_adjustments(
    angles: BodyAngles, thresholds: PostureThresholds
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """``(twisted, side_bent)`` of the trunk, each of shape S."""
    return (
        np.abs(angles.trunk_twist) > thresholds.twist,
        np.abs(angles.trunk_side_bend) > thresholds.side_bend,
    )


def neck_adjustments(
    angles: BodyAngles, thresholds: PostureThresholds
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """``(twisted, side_bent)`` of the neck, each of shape S."""
    return (
        np.abs(angles.neck_twist) > thresholds.twist,
        np.abs(angles.neck_side_bend) > thresholds.side_bend,
    )


def supporting_legs(angles: BodyAngles, thresholds: PostureThresholds) -> NDArray[np.bool_]:
    """Which legs bear weight ``S + (2,)``: lowest point within ``support_height`` of the floor."""
    return angles.foot_clearance <= thresholds.support_height
