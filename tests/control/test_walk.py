"""The walking controller: clip targets, simulation metrics, pushes, controller files, Dask."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vhuman.control.controller import Controller, load_controller, standing_controller
from vhuman.control.optimize import WalkProblem, optimize_controller
from vhuman.control.simulation import Push, parse_push, simulate
from vhuman.errors import FileFormatError, InputError
from vhuman.executor import DaskExecutor, make_executor


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
    pushed, _ = simulate(ctrl, 1.5, pushes=[Push(400.0, 0.2, 0.3, "left")], record_fps=None)
    assert not calm.fell
    assert pushed.torso_sway_rad > 2 * calm.torso_sway_rad
    assert parse_push("200:0.2:5:forward") == Push(200.0, 0.2, 5.0, "forward")
    for bad in (
        "200",
        "a:b:c",
        "1:0.2:1",
        "1:0:1:left",
        "1:-0.2:1:left",
        "-5:0.2:1:left",
        "1:0.2:-1:left",
        "1:0.2:1:up",
        "1:0.2:1:lateral",
        "nan:0.2:1:left",
    ):
        with pytest.raises(InputError):
            parse_push(bad)


@pytest.mark.parametrize(
    ("direction", "axis", "sign"),
    [("forward", 0, 1.0), ("backward", 0, -1.0), ("left", 1, 1.0), ("right", 1, -1.0)],
)
def test_push_direction_is_relative_to_the_heading(direction: str, axis: int, sign: float) -> None:
    """A standing body turned by 90° about z is pushed along its own heading's axes."""
    from dataclasses import replace

    from scipy.spatial.transform import Rotation

    ctrl = standing_controller("standard")
    qpos = ctrl.start_qpos.copy()
    turn = Rotation.from_euler("z", 90, degrees=True)
    xyzw = (turn * Rotation.from_quat(qpos[3:7], scalar_first=True)).as_quat()
    qpos[3:7] = np.roll(xyzw, 1)
    turned = replace(ctrl, start_qpos=qpos)
    _, motion = simulate(turned, 0.6, pushes=[Push(150.0, 0.2, 0.1, direction)], record_fps=30)
    moved = motion.root_positions[-1] - motion.root_positions[0]
    heading_axis = np.array([[0.0, 1.0], [-1.0, 0.0]])[axis]  # x → world +y, y → world −x
    assert sign * float(moved[:2] @ heading_axis) > 0.02
    assert abs(float(moved[:2] @ heading_axis[::-1])) < abs(float(moved[:2] @ heading_axis))


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


def test_push_series_turns_and_grows() -> None:
    from vhuman.control.optimize import push_series

    assert push_series(0.0) == ()
    pushes = push_series(30.0, growth=10.0)
    assert [p.direction for p in pushes[:5]] == ["left", "forward", "right", "backward", "left"]
    assert [p.force for p in pushes[:4]] == [30.0, 40.0, 50.0, 60.0]
    starts = np.array([p.at for p in pushes])
    assert starts[0] == pytest.approx(2.0)
    assert np.allclose(np.diff(starts), 1.7)
    assert all(p.duration == pytest.approx(0.2) for p in pushes)


def test_stance_width_is_saved_checked_and_widens_the_gait(tmp_path, walk_controller) -> None:
    from dataclasses import replace

    from vhuman.control.controller import SIMBICON_FEEDBACK, humanoid_for

    ctrl = replace(walk_controller.with_feedback(SIMBICON_FEEDBACK), stance_width=0.08)
    ctrl.save(tmp_path / "w.json")
    assert load_controller(tmp_path / "w.json").stance_width == pytest.approx(0.08)
    with pytest.raises(InputError, match="stance width"):
        replace(ctrl, stance_width=0.9)
    # The feet land further apart: mean lateral foot distance over the first two cycles.
    h = humanoid_for("deepmimic")
    spread = []
    for width in (0.0, 0.08):
        _, motion = simulate(replace(ctrl, stance_width=width), 2.0)
        pos = motion.global_positions
        feet = [h.skeleton.index(n) for n in ("right_ankle", "left_ankle")]
        spread.append(float(np.mean(pos[:, feet[1], 1] - pos[:, feet[0], 1])))
    assert spread[1] > spread[0] + 0.03


def test_walk_problem_individual_sets_feedback_width_ideal_speed_and_torso_gain(
    walk_controller,
) -> None:
    from vhuman.control.optimize import SEARCH_LOWER, SEARCH_UPPER, SEARCH_X0

    assert SEARCH_LOWER.shape == SEARCH_UPPER.shape == SEARCH_X0.shape == (27,)
    assert np.all(SEARCH_LOWER <= SEARCH_X0)
    assert np.all(SEARCH_X0 <= SEARCH_UPPER)
    x = np.append(np.arange(24) / 100.0, [0.05, 0.4, 2.5])
    ctrl = WalkProblem().controller(x)
    assert np.allclose(ctrl.feedback.ravel(), x[:24])
    assert ctrl.stance_width == pytest.approx(0.05)
    assert np.allclose(ctrl.ideal[:, 1], 0.4)
    assert np.allclose(np.delete(ctrl.ideal, 1, axis=1), 0.0)
    assert ctrl.torso_gain == pytest.approx(2.5)
    short = WalkProblem().controller(x[:24])
    assert short.stance_width == 0.0
    assert short.torso_gain == 1.0
    assert np.allclose(short.ideal, 0.0)


def test_torso_gain_is_saved_checked_and_holds_the_pelvis_stiffer(tmp_path, walk_controller):
    from dataclasses import replace

    from vhuman.control.controller import SIMBICON_FEEDBACK

    ctrl = replace(walk_controller.with_feedback(SIMBICON_FEEDBACK), torso_gain=3.0)
    ctrl.save(tmp_path / "w.json")
    assert load_controller(tmp_path / "w.json").torso_gain == pytest.approx(3.0)
    data = ctrl.to_dict()
    del data["torso_gain"]  # files without the field hold the pelvis with the plain gains
    assert Controller.from_dict(data).torso_gain == 1.0
    for bad in (0.0, -1.0, float("nan"), 11.0):
        with pytest.raises(InputError, match="torso gain"):
            replace(ctrl, torso_gain=bad)
    # The same chest push tilts the pelvis less with the stiffer torso PD.
    push = [Push(40.0, 0.2, 1.0, "left")]
    sway = [
        simulate(replace(ctrl, torso_gain=g), 2.0, pushes=push, record_fps=None)[0].torso_sway_rad
        for g in (1.0, 3.0)
    ]
    assert sway[1] < sway[0]


def test_probe_loss_is_zero_without_falls_and_grows_with_the_force(walk_controller) -> None:
    from vhuman.control.controller import default_controller_path
    from vhuman.control.optimize import probe_loss

    ctrl = load_controller(default_controller_path())
    light, heavy = probe_loss(ctrl, 5.0), probe_loss(ctrl, 600.0)
    assert light == 0.0
    assert 0.5 < heavy <= 1.0
    problem = WalkProblem(probe_force=600.0)
    evaluation = problem(np.zeros(24), 20.0)  # F = 0 falls: no probes run
    assert evaluation.survived < 20.0
    assert evaluation.objectives[2] == 1.0


def test_shipped_controller_walks_through_pushes() -> None:
    """The shipped walker: 20 cycles through the 30 N evaluation pushes, and a 40 N side push."""
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    from vhuman.control.controller import default_controller_path
    from vhuman.control.optimize import PUSH_FORCE, push_series

    ctrl = load_controller(default_controller_path())
    result, _ = simulate(ctrl, 20.0, pushes=push_series(PUSH_FORCE), record_fps=None)
    assert not result.fell
    assert result.cycles_completed == 20
    assert result.distance_m / result.duration_s > 0.2  # it walks, not steps in place
    assert result.tracking_rmse_rad < 0.2
    assert result.sim_speed_x_realtime_cpu > 0.0
    pushed, _ = simulate(ctrl, 8.0, pushes=[Push(40.0, 0.2, 4.0, "left")], record_fps=None)
    assert not pushed.fell
    # A push far beyond what it can take topples it (the fall detection works).
    toppled, _ = simulate(ctrl, 8.0, pushes=[Push(600.0, 0.2, 4.0, "left")], record_fps=None)
    assert toppled.fell
    assert 4.0 < toppled.fall_time_s < 6.0


def test_observer_sees_every_control_step_and_the_stance_swaps(walk_controller) -> None:
    """The observer is called once per control step; the stance side swaps at each step."""
    from vhuman.control.controller import SIMBICON_FEEDBACK
    from vhuman.control.model import TIMESTEP
    from vhuman.control.simulation import CONTROL_SUBSTEPS

    seen: list[tuple[float, bool, int, int]] = []

    def observe(data, right: bool, state: int, steps: int) -> None:
        seen.append((float(data.time), right, state, steps))

    ctrl = walk_controller.with_feedback(SIMBICON_FEEDBACK)
    result, _ = simulate(ctrl, 2.0, record_fps=None, observe=observe)
    times = np.array([s[0] for s in seen])
    assert np.allclose(np.diff(times), TIMESTEP * CONTROL_SUBSTEPS)
    assert times[-1] == pytest.approx(result.duration_s)
    steps = np.array([s[3] for s in seen])
    right = np.array([s[1] for s in seen])
    assert steps[-1] == result.steps == 4
    swapped = right[1:] != right[:-1]
    assert np.array_equal(swapped, np.diff(steps) == 1)
    assert {s[2] for s in seen} == {0, 1}


def test_fall_criteria_end_a_run_that_topples() -> None:
    """A standing body pushed hard falls: the run ends at the first control step after which
    the pelvis is low or a body part other than the feet touches the ground, or before which
    the pelvis was tilted (the attitude the control step acted on)."""
    from vhuman.control.controller import pelvis_attitude
    from vhuman.control.simulation import FALL_HEIGHT_RATIO, FALL_TILT_RAD

    ctrl = standing_controller("standard")
    model = ctrl.humanoid.model
    feet = [b for b in range(model.nbody) if any(k in model.body(b).name for k in ("ankle", "toe"))]
    foot_geoms = set(np.flatnonzero(np.isin(model.geom_bodyid, feet)).tolist())
    fallen: list[bool] = []
    before = [pelvis_attitude(ctrl.start_qpos[3:7])]

    def observe(data, right: bool, state: int, steps: int) -> None:
        _, pitch, roll = before[-1]
        before.append(pelvis_attitude(data.qpos[3:7]))
        touch = any(
            (g1 == 0 or g2 == 0) and (g2 if g1 == 0 else g1) not in foot_geoms
            for g1, g2 in data.contact.geom[: data.ncon].tolist()
        )
        low = data.qpos[2] < FALL_HEIGHT_RATIO * ctrl.start_qpos[2]
        fallen.append(touch or low or max(abs(pitch), abs(roll)) > FALL_TILT_RAD)

    result, _ = simulate(
        ctrl, 3.0, pushes=[Push(600.0, 0.3, 0.2, "backward")], record_fps=None, observe=observe
    )
    assert result.fell
    assert result.duration_s < 3.0 * ctrl.period
    assert fallen[-1]
    assert not any(fallen[:-1])


def test_an_unstable_step_ends_the_run_even_without_stop_on_fall() -> None:
    """MuJoCo resets the state after a non-finite acceleration; the run ends there as a fall,
    with the time and distance of the last valid step (not of the reset state)."""
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    from vhuman.control.controller import default_controller_path
    from vhuman.control.model import TIMESTEP
    from vhuman.control.simulation import CONTROL_SUBSTEPS

    ctrl = load_controller(default_controller_path())
    blow_up_at = 40
    calls: list[float] = []

    def observe(data, right: bool, state: int, steps: int) -> None:
        calls.append(float(data.time))
        if len(calls) == blow_up_at:
            data.qvel[:] = 1e300  # the next step's acceleration is not finite

    result, _ = simulate(ctrl, 5.0, record_fps=None, stop_on_fall=False, observe=observe)
    dt = TIMESTEP * CONTROL_SUBSTEPS
    assert len(calls) == blow_up_at
    assert result.fell
    assert result.fall_time_s == pytest.approx(blow_up_at * dt)
    assert result.duration_s == pytest.approx(blow_up_at * dt)
    assert result.distance_m > 0.0
