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


def test_initial_controller_keyframes_and_state_machine(walk_controller) -> None:
    c = walk_controller
    assert c.targets.shape == (20, 28)
    assert c.gait is not None
    assert c.gait.shape == (2, 5)
    assert c.right_stance[:10].all()
    assert not c.right_stance[10:].any()
    # Without feedback (F = 0) the SIMBICON structure alone does not keep balance for long.
    result, _ = simulate(c, 20.0, record_fps=None)
    assert result.fell
    assert result.cycles_completed < 20


def test_simbicon_feedback_walks_forward(walk_controller) -> None:
    from vhuman.control.controller import SIMBICON_FEEDBACK

    c = walk_controller.with_feedback(SIMBICON_FEEDBACK)
    result, motion = simulate(c, 4.0)
    assert not result.fell
    assert result.cycles_completed == 4
    assert result.steps == 8
    # Real steps: it travels forward (> 0.2 m/s), tracks the clip within 0.3 rad RMS.
    assert result.distance_m / result.duration_s > 0.2
    assert 0.0 < result.tracking_rmse_rad < 0.3
    assert result.energy_j > 0.0
    assert motion.n_frames == pytest.approx(motion.fps * result.duration_s, abs=2)
    assert 29.0 < motion.fps < 32.0


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
    xs = [np.zeros(24), np.full(24, 0.05)]
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
