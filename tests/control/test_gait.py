"""Walking at a given speed: human figures, the gait problem, its evolution, shipped files."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.control.controller import (
    SHIPPED_SPEEDS,
    load_controller,
    speed_controller_path,
)
from vhuman.control.gait import (
    GAIT_VARIABLES,
    GaitProblem,
    gait_vector,
    human_cadence,
    human_step_length,
    optimize_gait,
)
from vhuman.errors import InputError


@pytest.mark.parametrize("speed", [1.0, 1.3, 1.6, 1.8])
def test_human_cadence_times_step_length_is_the_speed(speed: float) -> None:
    assert human_cadence(speed) / 60.0 * human_step_length(speed) == pytest.approx(speed, rel=0.03)
    assert human_cadence(speed + 0.1) > human_cadence(speed)
    assert human_step_length(speed + 0.1) > human_step_length(speed)


def test_gait_problem_puts_the_settings_in_place(walk_controller) -> None:
    from vhuman.control.controller import SIMBICON_FEEDBACK

    base = walk_controller.with_feedback(SIMBICON_FEEDBACK)
    x = gait_vector(base)
    assert x.shape == (len(GAIT_VARIABLES),)
    ctrl = GaitProblem(base, 1.3).controller(x)
    np.testing.assert_allclose(gait_vector(ctrl), x)
    assert np.array_equal(ctrl.gait, base.gait)
    assert np.array_equal(ctrl.feedback, base.feedback)
    assert np.all(ctrl.ideal[:, 1] == 1.3)
    assert ctrl.start_qvel[0] == 1.3
    y = x.copy()
    y[list(GAIT_VARIABLES).index("torso_pitch")] = 0.2
    y[list(GAIT_VARIABLES).index("swing_hip_late")] = -0.3
    other = GaitProblem(base, 1.3).controller(y)
    assert other.torso_pitch == pytest.approx(0.2)
    assert other.gait[1, 0] == pytest.approx(-0.3)
    with pytest.raises(InputError):
        GaitProblem(base, 1.3).controller(x[:-1])


def test_optimize_gait_short_run_and_bad_input(walk_controller) -> None:
    from vhuman.control.controller import SIMBICON_FEEDBACK

    base = walk_controller.with_feedback(SIMBICON_FEEDBACK)
    ctrl, result = optimize_gait(
        base, 0.8, generations=1, population=3, target_cycles=1.0, window_step=0.5, seed=2
    )
    assert result.simulations >= 3
    gait = ctrl.meta["gait"]
    assert gait["target_speed_m_s"] == 0.8
    assert gait["simulations"] == result.simulations
    assert set(gait["settings"]) == set(GAIT_VARIABLES)
    assert ctrl.start_qvel[0] == 0.8
    for bad in (0.0, -1.0, 9.0, float("nan")):
        with pytest.raises(InputError, match="walking speed"):
            optimize_gait(base, bad)


def test_speed_controller_path_refuses_other_speeds() -> None:
    assert speed_controller_path(1.0).name == "walk_1.0.json"
    assert speed_controller_path(1.0).is_file()
    with pytest.raises(
        InputError, match=r"no shipped controller for 1\.2 m/s; shipped speeds: 1\.0"
    ):
        speed_controller_path(1.2)


def test_shipped_controllers_load_by_bare_name_and_local_files_come_first(
    tmp_path, monkeypatch
) -> None:
    from vhuman.control.controller import default_controller_path

    shipped = default_controller_path().parent
    for name in ("walk", "walk_push_recovery", "walk_push_xcom", "walk_push_step", "walk_1.0"):
        by_name = load_controller(name).to_dict()
        assert by_name == load_controller(name + ".json").to_dict()
        assert by_name == load_controller(shipped / f"{name}.json").to_dict()
    assert load_controller("walk").to_dict() != load_controller("walk_push_recovery").to_dict()
    monkeypatch.chdir(tmp_path)
    load_controller("walk_1.0").save(tmp_path / "walk.json")  # a local file of that name
    assert load_controller("walk.json").to_dict() == load_controller("walk_1.0").to_dict()
    with pytest.raises(InputError, match="no_such_walker"):
        load_controller("no_such_walker")


@pytest.mark.parametrize("speed", SHIPPED_SPEEDS)
def test_shipped_speed_controllers_walk_faster_than_the_default(speed: float) -> None:
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    from vhuman.control.controller import default_controller_path
    from vhuman.control.simulation import simulate

    ctrl = load_controller(speed_controller_path(speed))
    assert ctrl.meta["gait"]["target_speed_m_s"] == speed
    result, _ = simulate(ctrl, 20.0, record_fps=None)
    assert not result.fell
    assert result.cycles_completed == 20
    default, _ = simulate(load_controller(default_controller_path()), 20.0, record_fps=None)
    walked = result.distance_m / result.duration_s
    assert walked > 1.2 * default.distance_m / default.duration_s
    assert len(result.tracking_rmse_per_hinge_rad) == len(result.hinge_names) == 28
