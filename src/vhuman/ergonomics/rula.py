"""RULA, the Rapid Upper Limb Assessment (McAtamney & Corlett 1993), from a measured pose.

Group A (upper arm, lower arm, wrist, wrist twist) per side → Table A, plus
muscle use and force/load → score C; group B (neck, trunk, legs) → Table B,
plus muscle use and force/load → score D; Table C (score C, rows 1–8+, ×
score D, columns 1–7+) → grand score 1–7 and its action level. Both arms are
scored and the higher grand score reported.

Body-part bands (degrees; :mod:`vhuman.ergonomics.bands` has each edge with its
wording; "X or more" puts X in the higher band):

- Upper arm: 20° extension–20° flexion 1; > 20° extension or 20–45° flexion
  2; 45–90° 3; 90° or more 4; +1 shoulder raised, +1 abducted, −1 arm
  supported or person leaning.
- Lower arm: 60–100° flexion 1; less than 60° or more than 100° 2; +1
  working across the midline of the body or out to the side.
- Wrist: neutral 1; 0–15° flexion or extension 2; 15° or more 3; +1 deviated
  (radial or ulnar). Wrist twist: mainly in mid-range 1; at or near the end
  of range 2.
- Neck: 0–10° flexion 1; 10–20° 2; 20° or more 3; in extension 4; +1
  twisted, +1 side bending.
- Trunk: upright, or seated and well supported, 1; 0–20° flexion 2; 20–60°
  3; 60° or more 4; +1 twisted, +1 side bending. The paper gives no band for
  trunk extension; here extension beyond the neutral tolerance scores 2.
- Legs: well supported and evenly balanced (standing on both feet, or seated
  with legs and feet supported) 1; otherwise 2.
- Muscle use: +1 if the posture is mainly static (held > 1 min) or repeated
  more than 4 times a minute.
- Force/load: less than 2 kg intermittent 0; 2–10 kg intermittent 1; 2–10 kg
  static or repeated, or more than 10 kg intermittent 2; more than 10 kg
  static or repeated, or shock / rapid build-up of force 3. (Under 2 kg held
  statically scores 0.) The paper's text says "more than 10 kg", so 10 kg is
  in the 2–10 kg class.

References
----------
McAtamney, L., & Corlett, E. N. (1993). RULA: a survey method for the
investigation of work-related upper limb disorders. Applied Ergonomics 24(2),
91–99: Figures 1–2 (body-part scores), Table 1 (Table A, the upper limb
posture score: upper arm × lower arm rows, wrist × wrist twist columns),
Table 2 (Table B), Figure 6 (grand score, Table C), action levels 1–4. The
same three tables are printed on the RULA Employee Assessment Worksheet
(Ergonomics Plus), whose Table A the tests compare cell by cell.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.ergonomics._inputs import as_angles, check_conditions, table_index
from vhuman.ergonomics.angles import BodyAngles
from vhuman.ergonomics.bands import (
    arm_adjustments,
    neck_adjustments,
    rula_lower_arm_band,
    rula_neck_band,
    rula_trunk_band,
    rula_upper_arm_band,
    rula_wrist_band,
    supporting_legs,
    trunk_adjustments,
)
from vhuman.ergonomics.body_map import BodyMap
from vhuman.ergonomics.thresholds import PostureThresholds
from vhuman.errors import InputError
from vhuman.skeleton.motion import Motion

__all__ = [
    "RULA_ACTION",
    "RULA_TABLE_A",
    "RULA_TABLE_B",
    "RULA_TABLE_C",
    "LoadPattern",
    "RULAConditions",
    "RULAResult",
    "assess_rula",
    "rula_action_level",
    "rula_table_a",
    "rula_table_b",
    "rula_table_c",
]

RULA_TABLE_A = np.array(
    [
        # wrist 1  wrist 2  wrist 3  wrist 4   (wrist twist 1, 2 in each)
        [
            [[1, 2], [2, 2], [2, 3], [3, 3]],  # upper arm 1, lower arm 1
            [[2, 2], [2, 2], [3, 3], [3, 3]],  # lower arm 2
            [[2, 3], [3, 3], [3, 3], [4, 4]],
        ],  # lower arm 3
        [
            [[2, 3], [3, 3], [3, 4], [4, 4]],  # upper arm 2
            [[3, 3], [3, 3], [3, 4], [4, 4]],
            [[3, 4], [4, 4], [4, 4], [5, 5]],
        ],
        [
            [[3, 3], [4, 4], [4, 4], [5, 5]],  # upper arm 3
            [[3, 4], [4, 4], [4, 4], [5, 5]],
            [[4, 4], [4, 4], [4, 5], [5, 5]],
        ],
        [
            [[4, 4], [4, 4], [4, 5], [5, 5]],  # upper arm 4
            [[4, 4], [4, 4], [4, 5], [5, 5]],
            [[4, 4], [4, 5], [5, 5], [6, 6]],
        ],
        [
            [[5, 5], [5, 5], [5, 6], [6, 7]],  # upper arm 5
            [[5, 6], [6, 6], [6, 7], [7, 7]],
            [[6, 6], [6, 7], [7, 7], [7, 8]],
        ],
        [
            [[7, 7], [7, 7], [7, 8], [8, 9]],  # upper arm 6
            [[8, 8], [8, 8], [8, 9], [9, 9]],
            [[9, 9], [9, 9], [9, 9], [9, 9]],
        ],
    ],
    dtype=np.int64,
)
"""Table A ``[upper arm − 1, lower arm − 1, wrist − 1, twist − 1]``: McAtamney & Corlett
(1993), Table 1 "Table A: upper limb posture score"."""

RULA_TABLE_B = np.array(
    [
        # trunk 1  trunk 2  trunk 3  trunk 4  trunk 5  trunk 6   (legs 1, 2 in each)
        [[1, 3], [2, 3], [3, 4], [5, 5], [6, 6], [7, 7]],  # neck 1
        [[2, 3], [2, 3], [4, 5], [5, 5], [6, 7], [7, 7]],  # neck 2
        [[3, 3], [3, 4], [4, 5], [5, 6], [6, 7], [7, 7]],  # neck 3
        [[5, 5], [5, 6], [6, 7], [7, 7], [7, 7], [8, 8]],  # neck 4
        [[7, 7], [7, 7], [7, 8], [8, 8], [8, 8], [8, 8]],  # neck 5
        [[8, 8], [8, 8], [8, 8], [8, 9], [9, 9], [9, 9]],  # neck 6
    ],
    dtype=np.int64,
)
"""Table B ``[neck − 1, trunk − 1, legs − 1]`` (McAtamney & Corlett 1993)."""

RULA_TABLE_C = np.array(
    [
        [1, 2, 3, 3, 4, 5, 5],
        [2, 2, 3, 4, 4, 5, 5],
        [3, 3, 3, 4, 4, 5, 6],
        [3, 3, 3, 4, 5, 6, 6],
        [4, 4, 4, 5, 6, 7, 7],
        [4, 4, 5, 6, 6, 7, 7],
        [5, 5, 6, 6, 7, 7, 7],
        [5, 5, 6, 7, 7, 7, 7],
    ],
    dtype=np.int64,
)
"""Table C ``[min(score C, 8) − 1, min(score D, 7) − 1]`` (McAtamney & Corlett 1993)."""

RULA_ACTION: tuple[str, ...] = (
    "acceptable if not maintained or repeated for long periods",
    "investigate further; changes may be needed",
    "investigate further and change soon",
    "investigate and change immediately",
)
"""Action levels 1–4 (grand scores 1–2, 3–4, 5–6, 7), index 0–3."""


class LoadPattern(enum.Enum):
    """How a RULA load or force is applied."""

    INTERMITTENT = "intermittent"
    STATIC = "static"
    REPEATED = "repeated"


@dataclass(frozen=True)
class RULAConditions:
    """What RULA needs beyond the posture: muscle use, force and observations.

    Parameters
    ----------
    load_kg : float
        Load or force as a mass [kg] (≥ 0).
    load_pattern : LoadPattern
        Intermittent, static (held) or repeated.
    shock : bool
        Shock or forces with a rapid build-up (force score 3).
    static_or_repeated : bool
        Posture mainly static (held > 1 min) or repeated > 4 times a minute
        (muscle use +1, added to both groups).
    arm_supported : bool
        Arm supported or person leaning (upper arm −1).
    seated_supported : bool
        Seated, well supported (trunk 1 and legs 1).
    legs_supported : bool, optional
        Legs and feet supported and evenly balanced; None: both feet bear
        weight by the measured foot clearance.
    """

    load_kg: float = 0.0
    load_pattern: LoadPattern = LoadPattern.INTERMITTENT
    shock: bool = False
    static_or_repeated: bool = False
    arm_supported: bool = False
    seated_supported: bool = False
    legs_supported: bool | None = None

    def __post_init__(self) -> None:
        allowed = str([p.value for p in LoadPattern])
        check_conditions(self, "load_pattern", LoadPattern, allowed, "legs_supported")

    @property
    def muscle_score(self) -> int:
        """Muscle use score 0–1."""
        return int(self.static_or_repeated)

    @property
    def force_score(self) -> int:
        """Force/load score 0–3.

        McAtamney & Corlett (1993): "less than 2 kg intermittent" 0; "2–10 kg
        intermittent" 1; "2–10 kg static or repeated" or "intermittent but more
        than 10 kg" 2; "more than 10 kg ... statically or repeatedly" or shock 3.
        So 2 kg scores 1 and 10 kg stays in the 2–10 kg class.
        """
        if self.shock:
            return 3
        held = self.load_pattern is not LoadPattern.INTERMITTENT
        if self.load_kg < 2.0:
            return 0
        if self.load_kg <= 10.0:
            return 2 if held else 1
        return 3 if held else 2


def rula_table_a(
    upper_arm: ArrayLike, lower_arm: ArrayLike, wrist: ArrayLike, wrist_twist: ArrayLike
) -> NDArray[np.int64]:
    """Table A: upper arm 1–6, lower arm 1–3, wrist 1–4, twist 1–2 → posture score A 1–9."""
    return RULA_TABLE_A[
        table_index(upper_arm, "upper arm score", 6),
        table_index(lower_arm, "lower arm score", 3),
        table_index(wrist, "wrist score", 4),
        table_index(wrist_twist, "wrist twist score", 2),
    ]


def rula_table_b(neck: ArrayLike, trunk: ArrayLike, legs: ArrayLike) -> NDArray[np.int64]:
    """Table B: neck 1–6, trunk 1–6, legs 1–2 → posture score B 1–9."""
    return RULA_TABLE_B[
        table_index(neck, "neck score", 6),
        table_index(trunk, "trunk score", 6),
        table_index(legs, "legs score", 2),
    ]


def rula_table_c(score_c: ArrayLike, score_d: ArrayLike) -> NDArray[np.int64]:
    """Table C: score C (≥ 1; 8 and above share a row) × score D (≥ 1; 7+) → grand score 1–7."""
    c = np.minimum(table_index(score_c, "score C", 13), 7)
    d = np.minimum(table_index(score_d, "score D", 13), 6)
    return RULA_TABLE_C[c, d]


def rula_action_level(score: ArrayLike) -> NDArray[np.int64]:
    """Action level 1–4 of grand scores 1–7 (1–2, 3–4, 5–6, 7)."""
    s = table_index(score, "RULA grand score", 7) + 1
    return (np.digitize(s, [3, 5, 7]) + 1).astype(np.int64)


@dataclass(frozen=True, eq=False)
class RULAResult:
    """RULA of a batch of poses (shape S), with every intermediate score.

    Group A entries are per side, ``S + (2,)`` (left, right); ``score`` is the
    higher side's grand score and ``side`` says which (0 left, 1 right).
    ``adjustments`` holds the worksheet's yes/no adjustments (bool, ``S`` or
    ``S + (2,)``).
    """

    upper_arm: NDArray[np.int64]
    lower_arm: NDArray[np.int64]
    wrist: NDArray[np.int64]
    wrist_twist: NDArray[np.int64]
    table_a: NDArray[np.int64]
    muscle: int
    force: int
    score_c: NDArray[np.int64]
    neck: NDArray[np.int64]
    trunk: NDArray[np.int64]
    legs: NDArray[np.int64]
    table_b: NDArray[np.int64]
    score_d: NDArray[np.int64]
    side_scores: NDArray[np.int64]
    score: NDArray[np.int64]
    side: NDArray[np.int64]
    action_level: NDArray[np.int64]
    adjustments: dict[str, NDArray[np.bool_]]

    @property
    def action(self) -> list[str]:
        """Action text of each pose (flattened)."""
        return [RULA_ACTION[int(a) - 1] for a in self.action_level.ravel()]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every score (nested lists) and the action texts."""
        out: dict[str, Any] = {
            "method": "RULA (McAtamney & Corlett 1993)",
            "sides": ["left", "right"],
        }
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, dict):
                v = {k: a.tolist() for k, a in v.items()}
            out[f.name] = v.tolist() if isinstance(v, np.ndarray) else v
        out["action"] = self.action
        return out


def assess_rula(
    pose: BodyAngles | Motion,
    conditions: RULAConditions | None = None,
    *,
    thresholds: PostureThresholds | None = None,
    body_map: BodyMap | None = None,
) -> RULAResult:
    """RULA of each pose: body-part scores, tables A, B, C, grand score and action level.

    Parameters
    ----------
    pose : Motion or BodyAngles
        Poses; a Motion is measured with :func:`~vhuman.ergonomics.body_angles`.
    conditions : RULAConditions, optional
        Muscle use, force; default: none.
    thresholds : PostureThresholds, optional
        When an angle counts as twisted, abducted, ...
    body_map : BodyMap, optional
        Joint mapping for a Motion of a skeleton other than the built-in ones.

    Returns
    -------
    RULAResult

    Raises
    ------
    InputError
        For a pose that is neither, or invalid conditions.
    """
    c = RULAConditions() if conditions is None else conditions
    if not isinstance(c, RULAConditions):
        raise InputError(f"conditions must be RULAConditions, got {type(c).__name__}")
    th = PostureThresholds() if thresholds is None else thresholds
    a = as_angles(pose, body_map)
    n = th.neutral

    abducted, _, raised = arm_adjustments(a, th)
    upper = np.clip(
        rula_upper_arm_band(a.upper_arm_flexion) + abducted + raised - c.arm_supported, 1, 6
    )
    across = a.wrist_midline_offset < -th.midline_margin
    outside = a.wrist_lateral_offset > th.side_reach
    lower = rula_lower_arm_band(a.elbow_flexion) + (across | outside)
    deviated = np.abs(a.wrist_deviation) > th.wrist_deviation
    wrist = rula_wrist_band(a.wrist_flexion, n) + deviated
    twist = np.where(np.abs(a.forearm_rotation) > th.wrist_twist, 2, 1)
    table_a = RULA_TABLE_A[upper - 1, lower - 1, wrist - 1, twist - 1]
    score_c = table_a + c.muscle_score + c.force_score

    neck_twisted, neck_bent = neck_adjustments(a, th)
    neck = rula_neck_band(a.neck_flexion, n) + neck_twisted + neck_bent
    trunk = rula_trunk_band(a.trunk_flexion, n)
    if c.seated_supported:
        trunk = np.ones_like(trunk)
    trunk_twisted, trunk_bent = trunk_adjustments(a, th)
    trunk = trunk + trunk_twisted + trunk_bent
    if c.legs_supported is None:
        balanced = supporting_legs(a, th).all(axis=-1) | c.seated_supported
    else:
        balanced = np.full(a.shape, c.legs_supported)
    legs = np.where(balanced, 1, 2)
    table_b = RULA_TABLE_B[neck - 1, trunk - 1, legs - 1]
    score_d = table_b + c.muscle_score + c.force_score

    side_scores = RULA_TABLE_C[np.minimum(score_c, 8) - 1, np.minimum(score_d, 7)[..., None] - 1]
    score = side_scores.max(axis=-1)
    return RULAResult(
        upper_arm=upper.astype(np.int64),
        lower_arm=lower.astype(np.int64),
        wrist=wrist.astype(np.int64),
        wrist_twist=twist.astype(np.int64),
        table_a=table_a,
        muscle=c.muscle_score,
        force=c.force_score,
        score_c=score_c,
        neck=neck.astype(np.int64),
        trunk=trunk.astype(np.int64),
        legs=legs.astype(np.int64),
        table_b=table_b,
        score_d=score_d,
        side_scores=side_scores,
        score=score,
        side=np.argmax(side_scores, axis=-1).astype(np.int64),
        action_level=(np.digitize(score, [3, 5, 7]) + 1).astype(np.int64),
        adjustments={
            "shoulder_raised": raised,
            "upper_arm_abducted": abducted,
            "arm_supported": np.full(a.shape, c.arm_supported),
            "across_midline_or_out_to_side": across | outside,
            "wrist_deviated": deviated,
            "neck_twisted": neck_twisted,
            "neck_side_bent": neck_bent,
            "trunk_twisted": trunk_twisted,
            "trunk_side_bent": trunk_bent,
        },
    )
