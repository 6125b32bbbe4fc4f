"""Lateral foot placement at the extrapolated centre of mass (Hof 2008) and SIMBICON's
centre-of-mass velocity in the balance feedback."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from vhuman.control.controller import Controller, load_controller
from vhuman.control.simulation import Push, simulate, swing_roll
from vhuman.errors import FileFormatError, InputError

LEG = 0.83


def _foot(roll: float, hip: float) -> float:
    """Lateral place [m] of a straight leg's foot rolled by ``roll`` [rad] from ``hip`` [m]."""
    return hip + LEG * math.sin(roll)


@pytest.mark.parametrize("left", [True, False])
def test_swing_roll_places_the_foot_beyond_the_extrapolated_com(left: bool) -> None:
    rng = np.random.default_rng(0)
    side = 1.0 if left else -1.0
    for want, hip, xcom, margin in rng.uniform(
        [-0.4, -0.2, -0.3, 0.0], [0.4, 0.2, 0.3, 0.2], (200, 4)
    ):
        out = swing_roll(
            want, hip_lateral=hip, xcom=xcom, margin=margin, leg_length=LEG, left_swings=left
        )
        # Never further towards the stance side than asked, and never short of the bound.
        assert side * out >= side * want - 1e-12
        assert side * (_foot(out, hip) - xcom) >= margin - 1e-9
        # Where the feedback already places the foot beyond the bound, it is left alone.
        if side * (_foot(want, hip) - xcom) >= margin:
            assert out == want


def test_swing_roll_is_mirror_symmetric_and_monotone_in_the_xcom() -> None:
    kw = {"margin": 0.1, "leg_length": LEG}
    for want, hip, xcom in [(0.05, 0.1, 0.2), (-0.1, 0.12, 0.05), (0.3, 0.1, -0.1)]:
        left = swing_roll(want, hip_lateral=hip, xcom=xcom, left_swings=True, **kw)
        right = swing_roll(-want, hip_lateral=-hip, xcom=-xcom, left_swings=False, **kw)
        assert left == pytest.approx(-right)
    # The centre of mass heading further left only moves the left swing foot further left.
    rolls = [
        swing_roll(0.0, hip_lateral=0.1, xcom=x, left_swings=True, **kw)
        for x in np.linspace(-0.2, 0.6, 17)
    ]
    assert np.all(np.diff(rolls) >= 0.0)
    assert rolls[-1] > rolls[0]


def test_placement_options_round_trip_and_default_off(tmp_path) -> None:
    base = load_controller("walk_push_recovery")
    assert base.xcom_margin is None
    assert not base.com_velocity
    ctrl = replace(base, com_velocity=True, xcom_margin=0.12)
    ctrl.save(tmp_path / "c.json")
    back = load_controller(tmp_path / "c.json")
    assert back.com_velocity
    assert back.xcom_margin == 0.12
    assert Controller.from_dict(base.to_dict()).xcom_margin is None
    with pytest.raises(InputError, match="xcom margin"):
        replace(base, xcom_margin=float("nan"))
    with pytest.raises(FileFormatError, match="com_velocity must be true or false"):
        Controller.from_dict(base.to_dict() | {"com_velocity": "no"})


def test_xcom_placement_recovers_a_side_push_the_feedback_alone_does_not() -> None:
    base = load_controller("walk_push_recovery")
    shipped = load_controller("walk_push_xcom")
    assert shipped.xcom_margin is not None
    assert shipped.com_velocity
    # A left push as the left foot strikes (the 11th step: left stance begins), 65 N for
    # 0.2 s, then 3 s of walking; the walkers differ only in the two placement options.
    at = simulate(base, 5.25, record_fps=None)[0].duration_s
    push = [Push(65.0, 0.2, at, "left")]
    cycles = 1.5 * (at + 3.2) / base.period
    without, _ = simulate(base, cycles, pushes=push, record_fps=None)
    with_bound, _ = simulate(shipped, cycles, pushes=push, record_fps=None)
    assert (base.to_dict() | {"com_velocity": True, "xcom_margin_m": shipped.xcom_margin}) == (
        shipped.to_dict()
    )
    assert without.fell
    assert not with_bound.fell
    assert with_bound.duration_s >= at + 3.2 - 1e-6


def test_optimize_gives_every_walker_the_placement_options() -> None:
    from vhuman.control.optimize import optimize_controller

    with pytest.raises(InputError, match="xcom margin"):
        optimize_controller("walk", generations=1, xcom_margin=2.0)
    ctrl, _ = optimize_controller(
        "walk",
        generations=1,
        population=2,
        target_cycles=0.5,
        push_force=0.0,
        com_velocity=True,
        xcom_margin=0.1,
    )
    assert ctrl.com_velocity
    assert ctrl.xcom_margin == 0.1
