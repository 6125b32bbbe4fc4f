"""Optimum angles and comfortable ranges per joint degree of freedom, with their sources.

Rule: the comfortable range is the lowest-discomfort (or lowest-score) band a
published method gives for that motion, and the optimum its middle. Sign
conventions follow :class:`~vhuman.ergonomics.BodyAngles` (flexion,
abduction, external rotation, pronation, radial deviation positive).

Luo et al. (Table 2, "rotation angle range of the virtual human's arm joints")
states the 7 arm degrees of freedom but its numbers did not survive in our
copy, so the ranges below come from the literature:

- [RULA] McAtamney & Corlett (1993), Applied Ergonomics 24(2) 91–99, Fig. 1:
  upper arm 20° extension–20° flexion and lower arm 60–100° score 1; wrist
  twist "mainly in mid-range" scores 1.
- [REBA] Hignett & McAtamney (2000), Applied Ergonomics 31(2) 201–205,
  Tables 1–2: neck 0–20° flexion scores 1; trunk within 20° of upright adds
  least; legs: knee flexion below 30° adds nothing.
- [LUBA] Kee & Karwowski (2001), Applied Ergonomics 32(4) 357–366, postural
  classification scheme for the wrist (class 1, relative discomfort 1):
  flexion 0–20°, extension 0–20°, radial deviation 0–10°, ulnar 0–10°.
- [AAOS] forearm pronation and supination ranges of 80° each
  (:data:`vhuman.skeleton.anthropometry.AAOS_ROM_DEG`); "mid-range" is read
  as within half of them.
- [MacLeod] D. MacLeod, "Posture evaluation", Ergoweb Learning Center:
  "motions and positions held within ±15°–20° of the optimal position are
  generally acceptable" — used, at ±15°, where no joint-specific published
  band was at hand (shoulder ab/adduction and axial rotation, trunk and neck
  side bend and twist, hip flexion). These are the weakest entries.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from vhuman.errors import InputError

__all__ = ["ARM_DOFS", "JOINT_COMFORT", "JointComfort"]


@dataclass(frozen=True)
class JointComfort:
    """Comfort data of one degree of freedom.

    Parameters
    ----------
    optimum : float
        Most comfortable angle [rad].
    low, high : float
        Comfortable range [rad], ``low < optimum < high``.
    source : str
        Where the numbers come from (a key of the module references).
    """

    optimum: float
    low: float
    high: float
    source: str

    def __post_init__(self) -> None:
        if not (np.isfinite([self.low, self.optimum, self.high]).all()):
            raise InputError(f"JointComfort angles must be finite, got {self}")
        if not self.low < self.optimum < self.high:
            raise InputError(
                f"JointComfort needs low < optimum < high, got {self.low}, "
                f"{self.optimum}, {self.high}"
            )


def _deg(optimum: float, low: float, high: float, source: str) -> JointComfort:
    return JointComfort(*(float(np.radians(v)) for v in (optimum, low, high)), source)


JOINT_COMFORT: dict[str, JointComfort] = {
    # The seven arm degrees of freedom of Luo et al.
    "shoulder_flexion": _deg(0.0, -20.0, 20.0, "RULA"),
    "shoulder_abduction": _deg(0.0, -15.0, 15.0, "MacLeod"),
    "shoulder_rotation": _deg(0.0, -15.0, 15.0, "MacLeod"),
    "elbow_flexion": _deg(80.0, 60.0, 100.0, "RULA"),
    "forearm_pronation": _deg(0.0, -40.0, 40.0, "RULA, AAOS"),
    "wrist_deviation": _deg(0.0, -10.0, 10.0, "LUBA"),
    "wrist_flexion": _deg(0.0, -20.0, 20.0, "LUBA"),
    # Trunk, neck and legs.
    "trunk_flexion": _deg(0.0, -20.0, 20.0, "REBA"),
    "trunk_side_bend": _deg(0.0, -15.0, 15.0, "MacLeod"),
    "trunk_twist": _deg(0.0, -15.0, 15.0, "MacLeod"),
    "neck_flexion": _deg(10.0, 0.0, 20.0, "REBA"),
    "neck_side_bend": _deg(0.0, -15.0, 15.0, "MacLeod"),
    "neck_twist": _deg(0.0, -15.0, 15.0, "MacLeod"),
    "hip_flexion": _deg(0.0, -15.0, 15.0, "MacLeod"),
    "knee_flexion": _deg(15.0, 0.0, 30.0, "REBA"),
}
"""Comfort data per degree of freedom (radians); see the module notes for sources."""

ARM_DOFS: tuple[str, ...] = (
    "shoulder_flexion",
    "shoulder_abduction",
    "shoulder_rotation",
    "elbow_flexion",
    "forearm_pronation",
    "wrist_deviation",
    "wrist_flexion",
)
"""The 7 arm angles in Luo et al.'s order: shoulder flexion/extension, abduction/adduction,
external/internal rotation; elbow flexion, pronation/supination; wrist radial/ulnar
deviation, flexion/extension."""
