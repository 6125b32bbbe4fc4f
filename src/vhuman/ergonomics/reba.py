"""REBA, the Rapid Entire Body Assessment (Hignett & McAtamney 2000), from a measured pose.

Group A (trunk, neck, legs) → Table A, plus load/force → score A; group B
(upper arm, lower arm, wrist) per side → Table B, plus coupling → score B;
Table C (score A × score B) plus activity → REBA score 1–15 and its action
level. Both sides are scored and the higher one is reported, as the authors
allow ("score both sides and take the highest forward").

Body-part bands (degrees; :mod:`vhuman.ergonomics.bands` has each edge with its wording):

- Trunk: upright 1; 0–20° flexion or extension 2; 20–60° flexion or > 20°
  extension 3; > 60° flexion 4; +1 if twisted or side flexed.
- Neck: 0–20° flexion 1; > 20° flexion or in extension 2; +1 if twisted or
  side flexed.
- Legs: bilateral weight bearing, walking or sitting 1; unilateral, feather
  weight bearing or unstable 2; +1 if the knee(s) flex 30–60°, +2 if > 60°
  (not when sitting). The knee of a weight-bearing leg counts.
- Upper arm: 20° extension–20° flexion 1; > 20° extension or 20–45° flexion
  2; 45–90° 3; > 90° 4; +1 abducted or rotated, +1 shoulder raised, −1 arm
  supported, person leaning or posture gravity-assisted.
- Lower arm: 60–100° flexion 1; < 60° or > 100° 2.
- Wrist: 0–15° flexion/extension 1; > 15° 2; +1 if deviated or twisted.
- Load/force: < 5 kg 0; 5–10 kg 1; > 10 kg 2; +1 shock or rapid build-up.
- Coupling: good 0, fair 1, poor 2, unacceptable 3.
- Activity: +1 each for one or more body parts static (held > 1 min),
  repeated small-range actions (> 4 per min), rapid large changes of
  posture or an unstable base.

References
----------
Hignett, S., & McAtamney, L. (2000). Rapid Entire Body Assessment (REBA).
Applied Ergonomics 31(2), 201–205: Tables 1–3 (body-part scores), Table A,
Table B, Table C, Table 4 (action levels).
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
    reba_knee_adjustment,
    reba_lower_arm_band,
    reba_neck_band,
    reba_trunk_band,
    reba_upper_arm_band,
    reba_wrist_band,
    supporting_legs,
    trunk_adjustments,
)
from vhuman.ergonomics.body_map import BodyMap
from vhuman.ergonomics.thresholds import PostureThresholds
from vhuman.errors import InputError
from vhuman.skeleton.motion import Motion

__all__ = [
    "REBA_ACTION",
    "REBA_TABLE_A",
    "REBA_TABLE_B",
    "REBA_TABLE_C",
    "Coupling",
    "REBAConditions",
    "REBAResult",
    "assess_reba",
    "reba_action_level",
    "reba_posture_a",
    "reba_table_a",
    "reba_table_b",
    "reba_table_c",
]

REBA_TABLE_A = np.array(
    [
        # neck 1       neck 2        neck 3       (legs 1..4 in each)
        [[1, 2, 3, 4], [1, 2, 3, 4], [3, 3, 5, 6]],  # trunk 1
        [[2, 3, 4, 5], [3, 4, 5, 6], [4, 5, 6, 7]],  # trunk 2
        [[2, 4, 5, 6], [4, 5, 6, 7], [5, 6, 7, 8]],  # trunk 3
        [[3, 5, 6, 7], [5, 6, 7, 8], [6, 7, 8, 9]],  # trunk 4
        [[4, 6, 7, 8], [6, 7, 8, 9], [7, 8, 9, 9]],  # trunk 5
    ],
    dtype=np.int64,
)
"""Table A ``[trunk − 1, neck − 1, legs − 1]`` (Hignett & McAtamney 2000)."""

REBA_TABLE_B = np.array(
    [
        # lower arm 1   lower arm 2  (wrist 1..3 in each)
        [[1, 2, 2], [1, 2, 3]],  # upper arm 1
        [[1, 2, 3], [2, 3, 4]],  # upper arm 2
        [[3, 4, 5], [4, 5, 5]],  # upper arm 3
        [[4, 5, 5], [5, 6, 7]],  # upper arm 4
        [[6, 7, 8], [7, 8, 8]],  # upper arm 5
        [[7, 8, 8], [8, 9, 9]],  # upper arm 6
    ],
    dtype=np.int64,
)
"""Table B ``[upper arm − 1, lower arm − 1, wrist − 1]`` (Hignett & McAtamney 2000)."""

REBA_TABLE_C = np.array(
    [
        [1, 1, 1, 2, 3, 3, 4, 5, 6, 7, 7, 7],
        [1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 7, 8],
        [2, 3, 3, 3, 4, 5, 6, 7, 7, 8, 8, 8],
        [3, 4, 4, 4, 5, 6, 7, 8, 8, 9, 9, 9],
        [4, 4, 4, 5, 6, 7, 8, 8, 9, 9, 9, 9],
        [6, 6, 6, 7, 8, 8, 9, 9, 10, 10, 10, 10],
        [7, 7, 7, 8, 9, 9, 9, 10, 10, 11, 11, 11],
        [8, 8, 8, 9, 10, 10, 10, 10, 10, 11, 11, 11],
        [9, 9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12],
        [10, 10, 10, 11, 11, 11, 11, 12, 12, 12, 12, 12],
        [11, 11, 11, 11, 12, 12, 12, 12, 12, 12, 12, 12],
        [12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12],
    ],
    dtype=np.int64,
)
"""Table C ``[score A − 1, score B − 1]`` (Hignett & McAtamney 2000)."""

REBA_ACTION: tuple[tuple[str, str], ...] = (
    ("negligible", "none necessary"),
    ("low", "may be necessary"),
    ("medium", "necessary"),
    ("high", "necessary soon"),
    ("very high", "necessary now"),
)
"""(risk level, action) for action levels 0–4: REBA scores 1, 2–3, 4–7, 8–10, 11–15."""


class Coupling(enum.IntEnum):
    """REBA coupling score: how well the hands (or body) hold the load."""

    GOOD = 0
    """Well-fitting handle and a mid-range power grip."""
    FAIR = 1
    """Hand hold acceptable but not ideal, or coupling acceptable via another body part."""
    POOR = 2
    """Hand hold not acceptable although possible."""
    UNACCEPTABLE = 3
    """Awkward, unsafe grip, no handles; coupling unacceptable with other body parts."""


@dataclass(frozen=True)
class REBAConditions:
    """What REBA needs beyond the posture: load, coupling, activity and observations.

    Parameters
    ----------
    load_kg : float
        Load handled or force exerted, as a mass [kg] (≥ 0).
    shock : bool
        Shock or a rapid build-up of force (+1 to the load score).
    coupling : Coupling or int
        Hand hold quality, 0–3.
    static : bool
        One or more body parts held for more than a minute.
    repeated : bool
        Small-range actions repeated more than 4 times a minute.
    rapid_change : bool
        Rapid large-range changes in posture, or an unstable base.
    arm_supported : bool
        Arm supported, person leaning, or the arm posture gravity-assisted (−1).
    sitting : bool
        The person sits (legs score 1, no knee adjustment).
    bilateral_support : bool, optional
        Both legs bear weight; None: from the measured foot clearance.
    """

    load_kg: float = 0.0
    shock: bool = False
    coupling: Coupling = Coupling.GOOD
    static: bool = False
    repeated: bool = False
    rapid_change: bool = False
    arm_supported: bool = False
    sitting: bool = False
    bilateral_support: bool | None = None

    def __post_init__(self) -> None:
        allowed = f"{[c.name for c in Coupling]} (0-3)"
        check_conditions(self, "coupling", Coupling, allowed, "bilateral_support")

    @property
    def load_score(self) -> int:
        """Load/force score 0–3.

        Hignett & McAtamney (2000), Table 3: "<5 kg" 0; "5–10 kg" 1; ">10 kg" 2;
        "+1 shock or rapid build up of force". 5 kg and 10 kg score 1.
        """
        base = 0 if self.load_kg < 5.0 else (1 if self.load_kg <= 10.0 else 2)
        return base + int(self.shock)

    @property
    def activity_score(self) -> int:
        """Activity score 0–3."""
        return int(self.static) + int(self.repeated) + int(self.rapid_change)


def reba_table_a(trunk: ArrayLike, neck: ArrayLike, legs: ArrayLike) -> NDArray[np.int64]:
    """Table A: trunk 1–5, neck 1–3, legs 1–4 → posture score A 1–9 (broadcast)."""
    return REBA_TABLE_A[
        table_index(trunk, "trunk score", 5),
        table_index(neck, "neck score", 3),
        table_index(legs, "legs score", 4),
    ]


def reba_table_b(upper_arm: ArrayLike, lower_arm: ArrayLike, wrist: ArrayLike) -> NDArray[np.int64]:
    """Table B: upper arm 1–6, lower arm 1–2, wrist 1–3 → posture score B 1–9 (broadcast)."""
    return REBA_TABLE_B[
        table_index(upper_arm, "upper arm score", 6),
        table_index(lower_arm, "lower arm score", 2),
        table_index(wrist, "wrist score", 3),
    ]


def reba_table_c(score_a: ArrayLike, score_b: ArrayLike) -> NDArray[np.int64]:
    """Table C: score A 1–12 × score B 1–12 → score C 1–12 (broadcast)."""
    return REBA_TABLE_C[table_index(score_a, "score A", 12), table_index(score_b, "score B", 12)]


def reba_action_level(score: ArrayLike) -> NDArray[np.int64]:
    """Action level 0–4 of REBA scores 1–15 (1; 2–3; 4–7; 8–10; 11–15)."""
    s = table_index(score, "REBA score", 15) + 1
    return np.digitize(s, [2, 4, 8, 11]).astype(np.int64)


@dataclass(frozen=True, eq=False)
class REBAResult:
    """REBA of a batch of poses (shape S), with every intermediate score.

    Per-side entries have shape ``S + (2,)`` (left, right); ``score`` is the
    higher side's and ``side`` says which (0 left, 1 right). ``adjustments``
    holds the worksheet's yes/no adjustments (bool, ``S`` or ``S + (2,)``) and
    the knee adjustment of the legs (0-2, ``S``).
    """

    trunk: NDArray[np.int64]
    neck: NDArray[np.int64]
    legs: NDArray[np.int64]
    table_a: NDArray[np.int64]
    load: int
    score_a: NDArray[np.int64]
    upper_arm: NDArray[np.int64]
    lower_arm: NDArray[np.int64]
    wrist: NDArray[np.int64]
    table_b: NDArray[np.int64]
    coupling: int
    score_b: NDArray[np.int64]
    table_c: NDArray[np.int64]
    activity: int
    side_scores: NDArray[np.int64]
    score: NDArray[np.int64]
    side: NDArray[np.int64]
    action_level: NDArray[np.int64]
    adjustments: dict[str, NDArray[Any]]

    @property
    def risk(self) -> list[str]:
        """Risk level text of each pose (flattened), e.g. ``"medium"``."""
        return [REBA_ACTION[int(a)][0] for a in self.action_level.ravel()]

    @property
    def action(self) -> list[str]:
        """Action text of each pose (flattened), e.g. ``"necessary soon"``."""
        return [REBA_ACTION[int(a)][1] for a in self.action_level.ravel()]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of every score (nested lists), risk and action texts."""
        out: dict[str, Any] = {
            "method": "REBA (Hignett & McAtamney 2000)",
            "sides": ["left", "right"],
        }
        for f in fields(self):
            v = getattr(self, f.name)
            if isinstance(v, dict):
                v = {k: a.tolist() for k, a in v.items()}
            out[f.name] = v.tolist() if isinstance(v, np.ndarray) else v
        out["risk"] = self.risk
        out["action"] = self.action
        return out


def _group_a(
    a: BodyAngles, c: REBAConditions, th: PostureThresholds
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], dict[str, NDArray[Any]]]:
    twisted, bent = trunk_adjustments(a, th)
    trunk_adj = twisted | bent
    trunk = reba_trunk_band(a.trunk_flexion, th.neutral) + trunk_adj
    twisted, bent = neck_adjustments(a, th)
    neck_adj = twisted | bent
    neck = reba_neck_band(a.neck_flexion, th.neutral) + neck_adj

    loaded = supporting_legs(a, th)
    bilateral = loaded.all(axis=-1) if c.bilateral_support is None else c.bilateral_support
    legs = np.where(bilateral | c.sitting, 1, 2) + np.zeros(a.shape, dtype=np.int64)
    knee_adj = np.zeros(a.shape, dtype=np.int64)
    if not c.sitting:
        knee_adj = reba_knee_adjustment(np.where(loaded, a.knee_flexion, -np.inf).max(axis=-1))
    adjustments = {
        "trunk_twisted_or_side_bent": trunk_adj,
        "neck_twisted_or_side_bent": neck_adj,
        "knee_flexion": knee_adj,
    }
    return trunk, neck, (legs + knee_adj).astype(np.int64), adjustments


def reba_posture_a(
    pose: BodyAngles | Motion,
    conditions: REBAConditions | None = None,
    *,
    thresholds: PostureThresholds | None = None,
    body_map: BodyMap | None = None,
) -> NDArray[np.int64]:
    """REBA Table A score (trunk, neck and legs) 1–9 of each pose, shape S.

    The comfort term V_comfort of the posture library (Luo et al. use REBA's
    trunk and legs evaluation); no load, coupling or arms involved.
    """
    c = REBAConditions() if conditions is None else conditions
    th = PostureThresholds() if thresholds is None else thresholds
    trunk, neck, legs, _ = _group_a(as_angles(pose, body_map), c, th)
    return REBA_TABLE_A[trunk - 1, neck - 1, legs - 1]


def assess_reba(
    pose: BodyAngles | Motion,
    conditions: REBAConditions | None = None,
    *,
    thresholds: PostureThresholds | None = None,
    body_map: BodyMap | None = None,
) -> REBAResult:
    """REBA of each pose: body-part scores, tables A, B, C, final score and action level.

    Parameters
    ----------
    pose : Motion or BodyAngles
        Poses; a Motion is measured with :func:`~vhuman.ergonomics.body_angles`.
    conditions : REBAConditions, optional
        Load, coupling, activity; default: no load, good coupling, no activity.
    thresholds : PostureThresholds, optional
        When an angle counts as twisted, abducted, ...
    body_map : BodyMap, optional
        Joint mapping for a Motion of a skeleton other than the built-in ones.

    Returns
    -------
    REBAResult

    Raises
    ------
    InputError
        For a pose that is neither, or invalid conditions.

    Examples
    --------
    >>> from vhuman.skeleton import Motion, standard_humanoid
    >>> r = assess_reba(Motion.rest(standard_humanoid()))
    >>> int(r.table_a[0]), r.risk
    (1, ['negligible'])
    """
    c = REBAConditions() if conditions is None else conditions
    if not isinstance(c, REBAConditions):
        raise InputError(f"conditions must be REBAConditions, got {type(c).__name__}")
    th = PostureThresholds() if thresholds is None else thresholds
    a = as_angles(pose, body_map)
    trunk, neck, legs, adjustments = _group_a(a, c, th)
    table_a = REBA_TABLE_A[trunk - 1, neck - 1, legs - 1]
    score_a = table_a + c.load_score

    abducted, rotated, raised = arm_adjustments(a, th)
    upper = np.clip(
        reba_upper_arm_band(a.upper_arm_flexion) + (abducted | rotated) + raised - c.arm_supported,
        1,
        6,
    )
    lower = reba_lower_arm_band(a.elbow_flexion)
    deviated = (np.abs(a.wrist_deviation) > th.wrist_deviation) | (
        np.abs(a.forearm_rotation) > th.wrist_twist
    )
    wrist = reba_wrist_band(a.wrist_flexion) + deviated
    adjustments.update(
        upper_arm_abducted_or_rotated=abducted | rotated,
        shoulder_raised=raised,
        arm_supported=np.full(a.shape, c.arm_supported),
        wrist_deviated_or_twisted=deviated,
    )
    table_b = REBA_TABLE_B[upper - 1, lower - 1, wrist - 1]
    score_b = table_b + int(c.coupling)

    table_c = REBA_TABLE_C[score_a[..., None] - 1, score_b - 1]
    side_scores = table_c + c.activity_score
    side = np.argmax(side_scores, axis=-1)
    score = np.max(side_scores, axis=-1)
    return REBAResult(
        trunk=trunk,
        neck=neck,
        legs=legs,
        table_a=table_a,
        load=c.load_score,
        score_a=score_a,
        upper_arm=upper.astype(np.int64),
        lower_arm=lower,
        wrist=wrist.astype(np.int64),
        table_b=table_b,
        coupling=int(c.coupling),
        score_b=score_b,
        table_c=table_c,
        activity=c.activity_score,
        side_scores=side_scores,
        score=score,
        side=side.astype(np.int64),
        action_level=np.digitize(score, [2, 4, 8, 11]).astype(np.int64),
        adjustments={k: np.asarray(v) for k, v in adjustments.items()},
    )
