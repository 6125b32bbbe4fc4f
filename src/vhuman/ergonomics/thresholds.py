"""`PostureThresholds`: when a measured angle counts as "twisted", "raised", "abducted"...

REBA and RULA define their angle bands in degrees (those live in
:mod:`vhuman.ergonomics.bands`) but leave the yes/no adjustments to the
observer's eye ("if the trunk is twisted: +1"). Neither paper gives a number
for them, so every default here is vhuman's choice, stated with its reason;
each can be overridden (``PostureThresholds(twist=...)``,
:meth:`PostureThresholds.from_degrees`, or the ``thresholds:`` block of a
factors file of ``vhuman ergo``). Angles in radians, distances in metres; a
measured value strictly beyond a threshold switches the adjustment on.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np

from vhuman.errors import InputError

__all__ = ["PostureThresholds"]

_MAX_VALUE = 1e6  # largest threshold read (degrees or metres); more is damage


@dataclass(frozen=True)
class PostureThresholds:
    """Limits beyond which an adjustment of REBA or RULA applies.

    Parameters
    ----------
    neutral : float
        Tolerance of "upright" trunk, "neutral" wrist and "no extension" of the
        neck [rad]; default 5°, the resolution of an observer's estimate.
    twist : float
        Trunk or neck counted as twisted beyond this [rad]; default 10°, the
        limit below which posture checks after EN 1005-4 call trunk twisting
        "not clearly visible" (vhuman's choice).
    side_bend : float
        Trunk or neck counted as side bending beyond this [rad]; default 10°,
        as for ``twist`` (vhuman's choice).
    abduction : float
        Upper arm counted as abducted beyond this angle out of the sagittal
        plane [rad]; default 20°, the edge of the neutral ±20° upper-arm band
        of both methods.
    arm_rotation : float
        Upper arm counted as "rotated" (REBA) beyond this internal or external
        rotation of the humerus about its own axis [rad]; default 45°, about
        half the AAOS ranges of internal (70°) and external (90°) rotation.
    shoulder_raise : float
        Shoulder counted as raised when the clavicle rises this much above
        its rest angle [rad]; default 10° (a quarter of the 40° elevation
        range of the standard humanoid's sternoclavicular joint).
    wrist_deviation : float
        Wrist counted as deviated beyond this [rad]; default 10°, the end of
        the least-discomfort class for radial and ulnar deviation in Kee &
        Karwowski (2001).
    wrist_twist : float
        Forearm rotation beyond this counts as "twisted" (REBA) or "at or near
        the end of range" (RULA) [rad]; default 40°, half the 80° pronation and
        supination ranges of the AAOS tables.
    midline_margin : float
        A wrist more than this across the mid-sagittal plane works "across
        the midline" (RULA) [m]; default 0, any crossing (vhuman's choice).
    side_reach : float
        A wrist more than this outside its shoulder works "out to the side"
        (RULA) [m]; default 0.15 m, an estimate (about half a forearm).
    support_height : float
        A leg bears weight when its lowest point (knee, ankle or toe) is within
        this of the lowest point of both legs [m]; default 0.05 m, about a
        shoe sole (vhuman's choice).
    """

    neutral: float = float(np.radians(5.0))
    twist: float = float(np.radians(10.0))
    side_bend: float = float(np.radians(10.0))
    abduction: float = float(np.radians(20.0))
    arm_rotation: float = float(np.radians(45.0))
    shoulder_raise: float = float(np.radians(10.0))
    wrist_deviation: float = float(np.radians(10.0))
    wrist_twist: float = float(np.radians(40.0))
    midline_margin: float = 0.0
    side_reach: float = 0.15
    support_height: float = 0.05

    LENGTHS: ClassVar[tuple[str, ...]] = ("midline_margin", "side_reach", "support_height")
    """Fields in metres; the others are angles in radians."""

    @classmethod
    def from_degrees(cls, **values: float) -> PostureThresholds:
        """Thresholds with the angles given in degrees (lengths in metres); others default.

        Raises
        ------
        InputError
            For an unknown name or a value that is not a finite number >= 0.
        """
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(values) - set(names))
        if unknown:
            raise InputError(f"unknown PostureThresholds fields {unknown}; allowed: {names}")
        out: dict[str, float] = {}
        for name, value in values.items():
            if not isinstance(value, (int, float)) or isinstance(value, bool):
                raise InputError(f"PostureThresholds.{name} must be a number, got {value!r}")
            if abs(value) > _MAX_VALUE:  # NaN passes on to the finite check
                raise InputError(f"PostureThresholds.{name} must be at most {_MAX_VALUE:g}")
            out[name] = float(value) if name in cls.LENGTHS else float(np.radians(value))
        return cls(**out)

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if not (isinstance(value, (int, float)) and np.isfinite(value) and value >= 0.0):
                raise InputError(
                    f"PostureThresholds.{f.name} must be a finite number >= 0, got {value!r}"
                )
            object.__setattr__(self, f.name, float(value))
