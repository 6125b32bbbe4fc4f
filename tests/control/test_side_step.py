"""Side-push stepping options: a level swing foot (Coros et al. 2010) and early swing shortened
while the extrapolated centre of mass is past the stance foot (Hof 2008, Pratt et al. 2006)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from vhuman.control.controller import Controller, load_controller, sides
from vhuman.control.simulation import Push, crosses_stance, simulate
from vhuman.errors import FileFormatError, InputError


def test_crosses_stance_signs_and_mirror() -> None:
    # Left leg swinging: the right foot stands, so the stance side is the right (negative).
    assert crosses_stance(-0.01, left_swings=True)
    assert not crosses_stance(0.01, left_swings=True)
    assert crosses_stance(0.01, left_swings=False)
    assert not crosses_stance(-0.01, left_swings=False)
    for x in np.linspace(-0.5, 0.5, 21):
        assert crosses_stance(x, left_swings=True) == crosses_stance(-x, left_swings=False)


def test_options_round_trip_default_off_and_are_checked(tmp_path) -> None:
    base = load_controller("walk_push_xcom")
    assert not base.level_swing_foot
    assert base.quick_step_time is None
    ctrl = replace(base, level_swing_foot=True, quick_step_time=0.15)
    ctrl.save(tmp_path / "c.json")
    back = load_controller(tmp_path / "c.json")
    assert back.level_swing_foot
    assert back.quick_step_time == 0.15
    old = base.to_dict()
    del old["level_swing_foot"], old["quick_step_time_s"]
    assert Controller.from_dict(old).to_dict() == base.to_dict()
    for bad in (0.0, -0.1, float("nan"), base.state_time + 0.01):
        with pytest.raises(InputError, match="quick step time"):
            replace(base, quick_step_time=bad)
    with pytest.raises(FileFormatError, match="level_swing_foot must be true or false"):
        Controller.from_dict(base.to_dict() | {"level_swing_foot": "yes"})


def _push_at(ctrl: Controller) -> float:
    """Start time [s] of gait phase 0.25 of the sixth cycle (mid right stance)."""
    t0 = simulate(ctrl, 5.0, record_fps=None)[0].duration_s
    t1 = simulate(ctrl, 6.0, record_fps=None)[0].duration_s
    return t0 + 0.25 * (t1 - t0)


def test_level_swing_foot_lands_flatter_after_a_side_push() -> None:
    base = load_controller("walk_push_xcom")
    right, left = sides(base.humanoid)
    at = _push_at(base)

    def landing_roll(ctrl: Controller) -> float:
        rolls: list[float] = []
        last = [0]

        def observe(data, right_stance: bool, state: int, steps: int) -> None:
            if steps != last[0]:  # a strike: the foot that landed now stands
                last[0] = steps
                m = data.xmat[(right if right_stance else left)[4]]
                rolls.append(abs(math.atan2(m[7], m[8])))

        result, _ = simulate(
            ctrl, 10.0, pushes=[Push(60.0, 0.2, at, "left")], record_fps=None, observe=observe
        )
        assert not result.fell
        return max(rolls)

    assert landing_roll(replace(base, level_swing_foot=True)) < 0.5 * landing_roll(base)


def test_quick_step_leaves_the_unpushed_walk_alone_and_recovers_a_side_push() -> None:
    base = load_controller("walk_push_xcom")
    quick = replace(base, quick_step_time=0.15)
    plain, _ = simulate(base, 5.0, record_fps=None)
    same, _ = simulate(quick, 5.0, record_fps=None)
    assert same.distance_m == plain.distance_m
    assert same.duration_s == plain.duration_s
    shipped = load_controller("walk_push_step")
    assert shipped.to_dict() == (
        base.to_dict() | {"level_swing_foot": True, "quick_step_time_s": 0.15}
    )
    # 76 N to the left for 0.2 s in mid right stance (the left leg swinging), then 3 s.
    at = _push_at(base)
    push = [Push(76.0, 0.2, at, "left")]
    cycles = 1.5 * (at + 3.2) / base.period
    durations: list[float] = []
    last = [0, 0.0]

    def observe(data, right_stance: bool, state: int, steps: int) -> None:
        if steps != last[0]:
            durations.append(float(data.time) - last[1])
            last[:] = [steps, float(data.time)]

    without, _ = simulate(base, cycles, pushes=push, record_fps=None)
    with_quick, _ = simulate(shipped, cycles, pushes=push, record_fps=None, observe=observe)
    assert without.fell
    assert not with_quick.fell
    assert with_quick.duration_s >= at + 3.2 - 1e-6
    # Some step after the push is cut short of the unpushed steps (state time + late swing).
    unpushed = min(durations[2:10])
    assert min(durations[10:]) < unpushed - 0.05


def test_optimize_gives_every_walker_the_stepping_options() -> None:
    from vhuman.control.optimize import optimize_controller

    with pytest.raises(InputError, match="quick step time"):
        optimize_controller("walk", generations=1, quick_step_time=5.0)
    ctrl, _ = optimize_controller(
        "walk",
        generations=1,
        population=2,
        target_cycles=0.5,
        push_force=0.0,
        level_swing_foot=True,
        quick_step_time=0.1,
    )
    assert ctrl.level_swing_foot
    assert ctrl.quick_step_time == 0.1
