"""The walking controller: clip targets, simulation metrics, pushes, controller files, Dask."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vhuman.control.controller import Controller, load_controller, standing_controller
from vhuman.control.executors import DaskExecutor, make_executor
from vhuman.control.optimize import WalkProblem, optimize_controller
from vhuman.control.simulation import Push, parse_push, simulate
from vhuman.errors import FileFormatError, InputError


def test_initial_controller_follows_the_clip_for_a_while(walk_controller) -> None:
    c = walk_controller
    assert c.targets.shape == (10, 28)
    assert c.period == pytest.approx(38 / 30.0, rel=1e-3)
    assert c.right_stance[:3].all()
    assert not c.right_stance[6:9].any()
    result, motion = simulate(c, 2.0)
    # It walks forward about as fast as the clip before losing balance (~1 m/s).
    survived = result.fall_time_s or result.duration_s
    assert survived > 0.8
    assert result.distance_m / survived > 0.5
    assert 0.0 < result.tracking_rmse_rad < 0.6
    assert result.energy_j > 0.0
    assert motion.n_frames == pytest.approx(30 * result.duration_s, abs=2)


def test_push_changes_the_run() -> None:
    ctrl = standing_controller("standard")
    calm, _ = simulate(ctrl, 1.5, record_fps=None)
    pushed, _ = simulate(ctrl, 1.5, pushes=[Push(400.0, 0.2, 0.3, "lateral")], record_fps=None)
    assert not calm.fell
    assert pushed.torso_sway_rad > 2 * calm.torso_sway_rad
    assert parse_push("200:0.2:5:frontal") == Push(200.0, 0.2, 5.0, "frontal")
    for bad in ("200", "a:b:c", "1:0:1", "1:0.2:1:up"):
        with pytest.raises(InputError):
            parse_push(bad)


def test_controller_round_trip_and_other_skeleton_rejected(tmp_path) -> None:
    ctrl = standing_controller("standard")
    path = tmp_path / "c.json"
    ctrl.save(path)
    back = load_controller(path)
    assert np.allclose(back.targets, ctrl.targets, atol=1e-6)
    data = json.loads(path.read_text())
    data["signature"] = "0123456789abcdef"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="another skeleton"):
        load_controller(path)
    path.write_text("{}")
    with pytest.raises(FileFormatError):
        load_controller(path)
    with pytest.raises(InputError):
        Controller.from_dict({**ctrl.to_dict(), "feedback": [[1.0]]})


def test_bad_optimisation_input() -> None:
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    with pytest.raises(InputError, match="unknown DeepMimic clip"):
        optimize_controller("moonwalk", generations=1)
    for kw in ({"generations": 0}, {"population": -2}, {"target_cycles": 0.0}):
        with pytest.raises(InputError):
            optimize_controller("walk", **kw)
    with pytest.raises(InputError):
        simulate(standing_controller("standard"), 0.0)


def test_population_on_a_real_local_dask_cluster(walk_controller) -> None:
    distributed = pytest.importorskip("distributed")
    problem = WalkProblem("walk")
    xs = [np.zeros(24), np.full(24, 0.1)]
    local = [problem(x, 0.3) for x in xs]
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        make_executor(scheduler=cluster.scheduler_address) as ex,
    ):
        assert isinstance(ex, DaskExecutor)
        remote = ex.map(problem, xs, [0.3, 0.3])
        workers = set(ex.client.run(lambda: 1))
    assert remote == local  # deterministic simulation, same answers off this process
    assert len(workers) == 2
