"""No foot point skims the floor: a heel, ball or toe-tip sphere within 5 mm of the floor in
two consecutive frames moves at most 1 mm between them, whatever the speed, step or path."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.typing import NDArray

from vhuman.animation import Easing, GaitParameters, ease, generate_walk
from vhuman.skeleton.footskate import CONTACT_HEIGHT, SLIDE_TOLERANCE, foot_points, foot_slide

RADIUS = 2.0  # [m] of the arc walked with a start and a stop
CYCLES = 4


def _arc_with_stops(duration: float) -> object:
    """A quarter circle walked from rest to rest (minimum-jerk distance over ``duration``)."""

    def path(t: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        angle = 0.5 * np.pi * ease(Easing.MINIMUM_JERK, np.clip(t / duration, 0.0, 1.0))
        xy = RADIUS * np.stack([np.sin(angle), 1.0 - np.cos(angle)], axis=-1)
        return xy, angle

    return path


def _stop_and_go(step: float, speed: float) -> GaitParameters:
    base = GaitParameters(step_length=step, speed=speed, cycles=CYCLES)
    return GaitParameters(
        step_length=step,
        speed=speed,
        cycles=CYCLES,
        path=_arc_with_stops(base.duration),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    "params",
    [
        *(GaitParameters(speed=v, cycles=CYCLES) for v in (0.8, 1.0, 1.3, 1.6)),
        *(
            GaitParameters(step_length=s, speed=v, cycles=CYCLES)
            for s, v in ((0.4, 0.8), (0.55, 1.3), (0.9, 1.3))
        ),
        GaitParameters(step_length=1.0, speed=1.6, cycles=CYCLES),
        GaitParameters(step_length=0.6, speed=1.0, cycles=CYCLES, turn_rate=np.radians(30.0)),
        GaitParameters(speed=1.3, cycles=CYCLES, turn_rate=np.radians(-20.0), fps=100.0),
        _stop_and_go(0.7, 1.3),
        _stop_and_go(0.5, 1.0),
    ],
    ids=lambda p: (
        f"{p.speed}m/s-{f'{p.step_length}m' if p.step_length else 'default-step'}"
        f"-{np.degrees(p.turn_rate):.0f}deg/s-{p.fps:.0f}fps"
        f"{'-stop-and-go' if p.path is not None else ''}"
    ),
)
def test_no_foot_point_slides_near_the_floor(params: GaitParameters) -> None:
    motion = generate_walk(params).motion
    slide = foot_slide(motion)
    assert slide.max() <= SLIDE_TOLERANCE, (
        f"{1e3 * slide.max():.2f} mm at frame {int(np.argmax(slide))} of {motion.n_frames}"
    )


def test_feet_do_rest_on_the_floor_and_leave_it() -> None:
    """The measure is not vacuous on a walk: every foot point rests on the floor in some frames
    and is far above it in others, and the heel lands on the floor."""
    motion = generate_walk(GaitParameters(speed=1.3, cycles=CYCLES)).motion
    centres, radii = foot_points(motion)
    height = centres[..., 2] - radii
    assert np.all((height <= CONTACT_HEIGHT).any(axis=0))
    assert np.all((height > 0.02).any(axis=0))
    assert height.min() > -1e-3
