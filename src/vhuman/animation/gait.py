"""Gait parameters and the timing of a walking cycle (phases and events)."""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import InputError

__all__ = ["GaitParameters", "LegIK", "default_stance_fraction", "default_step_length"]


class LegIK(enum.StrEnum):
    """How the legs reach their ankle targets."""

    ANALYTIC = "analytic"
    """The law of cosines on the hip-knee-ankle triangle (exact)."""
    CCD = "ccd"
    """Chen et al.'s cyclic coordinate descent on the leg chain up to the pelvis."""


MAX_STEP_OVER_STATURE = 0.6
"""Longest step accepted, as a share of stature (1.0 m for a 1.68 m body)."""


def default_step_length(speed: float, stature: float) -> float:
    """Step length [m] that people choose at ``speed`` [m/s]: 0.41 · H · √(v / 1.3).

    Step length grows with the square root of speed at a self-chosen cadence
    (Grieve & Gear 1966; the step is about 0.41 of the stature H at 1.3 m/s,
    Perry & Burnfield 2010, ch. 1), so cadence grows as √v too.

    Examples
    --------
    >>> round(default_step_length(1.3, 1.678), 3)
    0.688
    """
    return 0.41 * stature * float(np.sqrt(speed / 1.3))


def default_stance_fraction(speed: float) -> float:
    """Share of the cycle a foot is on the ground at ``speed`` [m/s].

    0.62 at 1.0 m/s falling by 0.05 per m/s (0.59 at 1.6 m/s; Murray et al. 1966,
    Perry & Burnfield 2010), kept within 0.55 … 0.65.
    """
    return float(np.clip(0.62 - 0.05 * (speed - 1.0), 0.55, 0.65))


@dataclass(frozen=True)
class GaitParameters:
    """What a user asks of a walk.

    One gait cycle is two steps: right heel strike, left heel strike, right
    heel strike again. The cadence follows from speed and step length; given
    the speed alone, the step is :func:`default_step_length` of the body's
    stature (:meth:`for_stature`).

    Parameters
    ----------
    step_length : float or None
        Distance between successive footprints along the path [m] (> 0); None:
        :func:`default_step_length` of the walker's stature.
    speed : float
        Walking speed of the pelvis along the path [m/s] (> 0).
    cycles : int
        Number of gait cycles (≥ 1).
    turn_rate : float
        Rate of change of heading [rad/s], positive to the left.
    double_support : float or None
        Share of the cycle with both feet on the ground (both periods together),
        0.05 … 0.5. None: twice the stance share of
        :func:`default_stance_fraction` less one (0.24 at 1.0 m/s, 0.18 at
        1.6 m/s; J. Perry, J. M. Burnfield, *Gait Analysis: Normal and
        Pathological Function*, 2nd ed., 2010, ch. 1).
    step_width : float or None
        Lateral distance between the left and right footprints [m]; default
        0.3 × the hip-joint separation + 0.05 m (about 0.10 m, the typical
        adult step width).
    heel_strike : float
        Pitch of the foot, toes up, at heel strike [rad] (default 25°: the
        ankle is then about 10° more dorsiflexed at heel strike than at its
        loading-response dip, as in the recorded CMU walks); it rolls about
        the heel to flat by 10 % of the cycle (the heel rocker). A step
        shorter than ``step_length`` (on a ``path`` that slows down) lands
        flatter, in proportion, down to 0.4 of this.
    heel_rise : float
        Largest pitch of the foot before toe-off [rad]: from 31 % of the cycle
        after heel strike the heel lifts about the ball of the foot as far as
        the knee's flexion in terminal stance and pre-swing needs, at most this
        (and at most the toe joint's extension).
    swing_knee : float
        Peak knee flexion in swing [rad] (Perry & Burnfield: 60–65°, at about
        73 % of the cycle); the swinging foot's clearance follows from it.
    fps : float
        Frame rate of the generated motion [frames/s].
    leg_ik : LegIK or {"analytic", "ccd"}
        How the legs reach their ankle targets: the law of cosines (exact, the
        default) or Chen et al.'s CCD on the hip-knee-ankle chain, which ends at
        the pelvis (its sub-root), each frame starting from the previous one.
    path : callable or None
        The pelvis path on the floor, times ``(N,)`` [s] → positions ``(N, 2)``
        [m] and headings ``(N,)`` [rad], replacing the line or circle of
        ``speed`` and ``turn_rate``; ``speed`` then only sets the cadence
        (with the step length). Footprints lie on it where the pelvis passes
        about a quarter cycle after each heel strike (``walking.PELVIS_LEAD``), so
        a path that slows down to a stop gives shorter steps.
    """

    step_length: float | None = None
    speed: float = 1.3
    cycles: int = 4
    turn_rate: float = 0.0
    double_support: float | None = None
    step_width: float | None = None
    heel_strike: float = np.radians(25.0)
    heel_rise: float = np.radians(65.0)
    swing_knee: float = np.radians(63.0)
    fps: float = 60.0
    leg_ik: LegIK = LegIK.ANALYTIC
    path: (
        Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], NDArray[np.float64]]] | None
    ) = field(default=None, compare=False)

    def __post_init__(self) -> None:
        checks = {
            "step_length": (self.step_length, "a length in metres > 0 (or None)"),
            "speed": (self.speed, "a speed in m/s > 0"),
            "fps": (self.fps, "a frame rate > 0"),
        }
        for name, (value, allowed) in checks.items():
            if value is not None and not (np.isfinite(value) and value > 0.0):
                raise InputError(f"{name} must be {allowed}, got {value}")
        if self.double_support is None:
            default = 2.0 * default_stance_fraction(self.speed) - 1.0
            object.__setattr__(self, "double_support", default)
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
        if not (np.isfinite(self.heel_rise) and 0.0 <= self.heel_rise <= np.radians(70.0)):
            raise InputError(f"heel_rise must be in [0, 70°], got {np.degrees(self.heel_rise)}°")
        if self.leg_ik not in list(LegIK):
            allowed = ", ".join(LegIK)
            raise InputError(f"leg_ik must be one of {allowed}, got {self.leg_ik!r}")
        object.__setattr__(self, "leg_ik", LegIK(self.leg_ik))
        if self.step_length is None:
            return
        cadence = self.cadence
        if not 40.0 <= cadence <= 160.0:
            raise InputError(
                f"speed {self.speed} m/s with step length {self.step_length} m means a cadence of "
                f"{cadence:.0f} steps/min; walking is 40–160 steps/min (speed = cadence × step)"
            )

    def for_stature(self, stature: float) -> GaitParameters:
        """These parameters with the step length set for a walker of ``stature`` [m].

        A given step length is kept; None becomes :func:`default_step_length`.

        Raises
        ------
        InputError
            If the step is longer than :data:`MAX_STEP_OVER_STATURE` of the stature.
        """
        step = self.step_length
        if step is None:
            step = default_step_length(self.speed, stature)
        longest = MAX_STEP_OVER_STATURE * stature
        if step > longest:
            raise InputError(
                f"step length {step:.3g} m is too long for a stature of {stature:.3f} m: "
                f"at most {MAX_STEP_OVER_STATURE:g} × stature ({longest:.2f} m)"
            )
        return replace(self, step_length=step)

    @property
    def _step(self) -> float:
        if self.step_length is None:
            raise InputError(
                "step_length is not set: give one, or take for_stature(stature) of these parameters"
            )
        return self.step_length

    @property
    def cadence(self) -> float:
        """Steps per minute."""
        return 60.0 * self.speed / self._step

    @property
    def cycle_duration(self) -> float:
        """Duration of one gait cycle (two steps) [s]."""
        return 2.0 * self._step / self.speed

    @property
    def stance_fraction(self) -> float:
        """Share of the cycle each foot is on the ground."""
        return 0.5 + self.double_support / 2.0

    @property
    def duration(self) -> float:
        """Duration of the whole walk [s]."""
        return self.cycles * self.cycle_duration

    def to_dict(self) -> dict:
        """JSON-ready parameters (angles in radians; a custom ``path`` is left out)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if f.name != "path"}
