"""Gait parameters and the timing of a walking cycle (phases and events)."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from vhuman.errors import InputError

__all__ = ["LEG_IK", "GaitParameters"]

LEG_IK = ("analytic", "ccd")
"""Leg IK methods of the walking generator."""


@dataclass(frozen=True)
class GaitParameters:
    """What a user asks of a walk.

    One gait cycle is two steps: right heel strike, left heel strike, right
    heel strike again. The cadence follows from speed and step length.

    Parameters
    ----------
    step_length : float
        Distance between successive footprints along the path [m] (> 0).
    speed : float
        Walking speed of the pelvis along the path [m/s] (> 0).
    cycles : int
        Number of gait cycles (≥ 1).
    turn_rate : float
        Rate of change of heading [rad/s], positive to the left.
    double_support : float
        Share of the cycle with both feet on the ground (both periods together),
        0.05 … 0.5. Default 0.2: stance 60 %, swing 40 % of the cycle at
        self-selected speed (J. Perry, J. M. Burnfield, *Gait Analysis: Normal
        and Pathological Function*, 2nd ed., 2010, ch. 1).
    step_width : float or None
        Lateral distance between the left and right footprints [m]; default
        0.3 × the hip-joint separation + 0.05 m (about 0.10 m, the typical
        adult step width).
    heel_strike : float
        Pitch of the foot, toes up, at heel strike [rad]; it rolls about the
        heel to flat by 10 % of the cycle (the heel rocker).
    heel_rise : float
        Pitch of the foot at toe-off [rad]: the heel lifts about the ball of the
        foot from 31 % of the cycle after heel strike until toe-off; higher
        where the trailing knee would otherwise straighten before toe-off
        (long steps).
    swing_knee : float
        Peak knee flexion in swing [rad] (Perry & Burnfield: about 60°); the
        swinging foot's clearance follows from it.
    fps : float
        Frame rate of the generated motion [frames/s].
    leg_ik : {"analytic", "ccd"}
        How the legs reach their ankle targets: the law of cosines (exact, the
        default) or Chen et al.'s CCD on the hip-knee-ankle chain, which ends at
        the pelvis (its sub-root), each frame starting from the previous one.
    """

    step_length: float = 0.7
    speed: float = 1.3
    cycles: int = 4
    turn_rate: float = 0.0
    double_support: float = 0.2
    step_width: float | None = None
    heel_strike: float = np.radians(20.0)
    heel_rise: float = np.radians(55.0)
    swing_knee: float = np.radians(60.0)
    fps: float = 60.0
    leg_ik: str = "analytic"

    def __post_init__(self) -> None:
        checks = {
            "step_length": (self.step_length, "a length in metres > 0"),
            "speed": (self.speed, "a speed in m/s > 0"),
            "fps": (self.fps, "a frame rate > 0"),
        }
        for name, (value, allowed) in checks.items():
            if not (np.isfinite(value) and value > 0.0):
                raise InputError(f"{name} must be {allowed}, got {value}")
        if int(self.cycles) != self.cycles or self.cycles < 1:
            raise InputError(f"cycles must be a whole number >= 1, got {self.cycles}")
        if not np.isfinite(self.turn_rate):
            raise InputError(f"turn_rate must be a finite number of rad/s, got {self.turn_rate}")
        if not 0.05 <= self.double_support < 0.5:
            raise InputError(
                f"double_support must be in [0.05, 0.5) (walking; less is the walk-run "
                f"transition), got {self.double_support}"
            )
        if self.step_width is not None and not (
            np.isfinite(self.step_width) and self.step_width >= 0
        ):
            raise InputError(f"step_width must be >= 0 m, got {self.step_width}")
        if not (np.isfinite(self.heel_strike) and 0.0 <= self.heel_strike <= np.radians(30.0)):
            raise InputError(
                f"heel_strike must be in [0, 30°], got {np.degrees(self.heel_strike)}°"
            )
        if not (np.isfinite(self.swing_knee) and 0.0 < self.swing_knee <= np.radians(90.0)):
            raise InputError(f"swing_knee must be in (0, 90°], got {np.degrees(self.swing_knee)}°")
        if not (np.isfinite(self.heel_rise) and 0.0 <= self.heel_rise <= np.radians(60.0)):
            raise InputError(f"heel_rise must be in [0, 60°], got {np.degrees(self.heel_rise)}°")
        if self.leg_ik not in LEG_IK:
            raise InputError(f"leg_ik must be one of {', '.join(LEG_IK)}, got {self.leg_ik!r}")
        cadence = self.cadence
        if not 40.0 <= cadence <= 160.0:
            raise InputError(
                f"speed {self.speed} m/s with step length {self.step_length} m means a cadence of "
                f"{cadence:.0f} steps/min; walking is 40–160 steps/min (speed = cadence × step)"
            )

    @property
    def cadence(self) -> float:
        """Steps per minute."""
        return 60.0 * self.speed / self.step_length

    @property
    def cycle_duration(self) -> float:
        """Duration of one gait cycle (two steps) [s]."""
        return 2.0 * self.step_length / self.speed

    @property
    def stance_fraction(self) -> float:
        """Share of the cycle each foot is on the ground."""
        return 0.5 + self.double_support / 2.0

    @property
    def duration(self) -> float:
        """Duration of the whole walk [s]."""
        return self.cycles * self.cycle_duration

    def to_dict(self) -> dict:
        """JSON-ready parameters (angles in radians)."""
        return asdict(self)
