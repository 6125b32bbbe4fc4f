"""Space-time refinement of the keyframe targets (held root, Gauss–Newton)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from vhuman.control.controller import standing_controller
from vhuman.control.refine import held_tracking_rmse, keyframe_hinges, refine_keyframes
from vhuman.control.simulation import simulate
from vhuman.errors import InputError

# A tiny budget: one harmonic (3 coefficients a hinge), one cycle a simulation.
TINY = {"harmonics": 1, "cycles": 1.0}


@pytest.fixture(scope="module")
def refined(walk_controller):
    """The walk's initial controller refined on the tiny budget (one Gauss–Newton step)."""
    n = 3 * len(keyframe_hinges(walk_controller))
    return refine_keyframes(walk_controller, n + 2, **TINY)


def test_keyframe_hinges_are_the_upper_body_of_a_walker(walk_controller) -> None:
    names = walk_controller.humanoid.hinge_names
    upper = [names[i] for i in keyframe_hinges(walk_controller)]
    assert len(upper) == 14
    assert not any(f in n for n in upper for f in ("hip", "knee", "ankle"))
    assert keyframe_hinges(replace(walk_controller, gait=None)) == tuple(range(len(names)))


def test_refinement_lowers_the_held_root_tracking_error(walk_controller, refined) -> None:
    before = held_tracking_rmse(walk_controller, cycles=1.0)
    after = held_tracking_rmse(refined, cycles=1.0)
    meta = refined.meta["refined"]
    assert meta["held_rmse_before_rad"] == pytest.approx(before)
    assert meta["held_rmse_after_rad"] == pytest.approx(after)
    assert meta["simulations"] <= meta["budget"]
    assert after < 0.7 * before  # the PD lag of the arms is mostly taken out
    # Only the keyframe-driven hinges moved; the legs follow the state machine.
    moved = np.flatnonzero(np.any(refined.targets != walk_controller.targets, axis=0))
    assert set(moved.tolist()) <= set(keyframe_hinges(walk_controller))
    assert moved.size > 0


def test_refined_targets_track_the_clip_better_while_walking(walk_controller, refined) -> None:
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    from vhuman.control.controller import default_controller_path, load_controller

    shipped = load_controller(default_controller_path())  # its feedback keeps it walking
    assert np.allclose(shipped.targets, walk_controller.targets)
    upper = list(keyframe_hinges(walk_controller))
    rmse = []
    for targets in (walk_controller.targets, refined.targets):
        result, _ = simulate(replace(shipped, targets=targets), 4.0, record_fps=None)
        assert not result.fell
        per_hinge = np.array(result.tracking_rmse_per_hinge_rad)
        assert per_hinge.shape == (targets.shape[1],)
        assert np.sqrt(np.mean(per_hinge**2)) == pytest.approx(result.tracking_rmse_rad)
        rmse.append(float(np.sqrt(np.mean(per_hinge[upper] ** 2))))
    assert rmse[1] < 0.8 * rmse[0]


def test_refinement_is_repeatable_and_refines_a_tracking_controller(walk_controller) -> None:
    tracking = replace(walk_controller, gait=None)
    hinges = (9, 13, 17, 24)  # the elbows and knees
    runs = [
        refine_keyframes(tracking, 2 * len(hinges) + 2, hinges=hinges, harmonics=0, cycles=0.5)
        for _ in range(2)
    ]
    assert np.array_equal(runs[0].targets, runs[1].targets)
    before = held_tracking_rmse(tracking, hinges, cycles=0.5)
    assert held_tracking_rmse(runs[0], hinges, cycles=0.5) < before


def test_bad_refinement_input(walk_controller) -> None:
    with pytest.raises(InputError, match="clip"):
        refine_keyframes(standing_controller("standard"), 100)
    with pytest.raises(InputError, match="budget"):
        refine_keyframes(walk_controller, 10, **TINY)
    with pytest.raises(InputError, match="harmonics"):
        refine_keyframes(walk_controller, 100, harmonics=-1)
    with pytest.raises(InputError, match="hinges"):
        refine_keyframes(walk_controller, 100, hinges=(99,))
    with pytest.raises(InputError, match="cycles"):
        held_tracking_rmse(walk_controller, cycles=0.0)


def test_optimize_controller_evolves_from_the_refined_keyframes(walk_controller) -> None:
    from vhuman.control.optimize import optimize_controller

    with pytest.raises(InputError, match="refinement budget"):
        optimize_controller("walk", generations=1, refine_budget=-1)
    ctrl, _ = optimize_controller(
        "walk", generations=1, population=2, target_cycles=0.5, push_force=0.0, refine_budget=130
    )
    assert ctrl.meta["refined"]["budget"] == 130
    assert ctrl.meta["refined"]["simulations"] <= 130
    assert held_tracking_rmse(ctrl) < 0.5 * held_tracking_rmse(walk_controller)


def test_cli_refine_budget_too_small_exits_2(tmp_path) -> None:
    from typer.testing import CliRunner

    from vhuman.cli.physics import physics_app

    args = ["optimize", "--refine-budget", "10", "-o", str(tmp_path / "c.json")]
    res = CliRunner().invoke(physics_app, args)
    assert res.exit_code == 2
    assert "refinement budget" in res.output
