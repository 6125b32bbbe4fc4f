"""Running tasks: steps in order, one continuous checked motion, stops with a reason."""

from __future__ import annotations

import dataclasses
import itertools
import json
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from vhuman.cli.task import task
from vhuman.ergonomics import assess_reba
from vhuman.geometry import quat_angle
from vhuman.posture import (
    Candidate,
    PostureResult,
    load_library,
    near,
    solve_posture,
    worker_skeleton,
)
from vhuman.scene import BodyModel
from vhuman.skeleton import Motion
from vhuman.skeleton.footskate import SLIDE_TOLERANCE
from vhuman.task import TaskResult, load_task, run_task
from vhuman.task import run as task_run
from vhuman.task.floor import DOWN_DROP, FloorTransitionError, Pose, facing, floor_transition
from vhuman.task.motion import standing_pose
from vhuman.task.report import check_rows, failed_checks, write_task_outputs
from vhuman.task.run import (
    HAND_ON_FLOOR,
    KNEE_ON_FLOOR,
    MAX_PLACEMENTS,
    hands_down,
    knees_down,
    score_frames,
)

app = typer.Typer()
app.command()(task)
app.command("noop")(lambda: None)  # two commands: "task" is then a subcommand
runner = CliRunner()

ENGINE_ROOM = Path(load_task("ship-valve").scene)


@pytest.fixture(scope="module")
def ship_valve() -> TaskResult:
    return run_task("ship-valve", seed=0)


def test_steps_done_in_order_and_contiguous(ship_valve: TaskResult) -> None:
    r = ship_valve
    assert r.done
    assert r.reason == ""
    assert [s.kind for s in r.steps] == [s.kind for s in r.spec.steps]
    assert r.steps[0].start_s == 0.0
    for a, b in zip(r.steps[:-1], r.steps[1:], strict=True):
        assert b.start_s == pytest.approx(a.end_s)
        assert b.end_s > b.start_s
    assert r.steps[-1].end_s == pytest.approx(r.motion.duration)


def test_every_frame_checked_without_contact(ship_valve: TaskResult) -> None:
    r = ship_valve
    assert r.check.frames_checked == r.motion.n_frames
    assert r.check.first_contact is None
    assert int(r.check.contacts.sum()) == 0
    assert np.all(r.check.min_clearance > 0.0)
    # Static balance is checked on every frame but the walks'.
    assert np.all(np.isfinite(r.check.balance_margin[r.check.static]))


def test_motion_is_continuous(ship_valve: TaskResult) -> None:
    m = ship_valve.motion
    step = np.degrees(quat_angle(m.local_rotations[:-1], m.local_rotations[1:]))
    assert step.max() < 20.0  # deg per frame at 30 fps: no joint jumps
    root = np.linalg.norm(np.diff(m.root_positions, axis=0), axis=-1)
    assert root.max() < 0.06  # m per frame: walking pace at most


def test_planted_toes_do_not_slide(ship_valve: TaskResult) -> None:
    r = ship_valve
    m = r.motion
    walking = ~r.check.static
    assert walking.sum() > 100
    for name in ("l_toe", "r_toe"):
        p = m.global_positions[:, m.skeleton.index(name)]
        planted = walking & (p[:, 2] < p[walking, 2].min() + 0.005)
        both = planted[:-1] & planted[1:]
        assert both.sum() > 50
        slide = np.linalg.norm(np.diff(p[:, :2], axis=0), axis=-1)[both]
        assert slide.max() < 1e-3  # m per frame


def test_paths_avoid_the_pump(ship_valve: TaskResult) -> None:
    pump = ship_valve.scene.object("pump")
    lo, hi = pump.bounds()
    for path in ship_valve.paths:
        s = np.linspace(0, 1, 20)[:, None]
        dense = np.concatenate([a + s * (b - a) for a, b in itertools.pairwise(path)])
        gap = np.maximum(np.maximum(lo[:2] - dense, dense - hi[:2]), 0.0)
        assert np.linalg.norm(gap, axis=-1).min() >= 0.3  # the body radius less a grid cell
    # The way in passes beside the pump, not through its footprint's line.
    assert np.abs(ship_valve.paths[0][:, 1]).max() > hi[1]


def test_summary_and_outputs(ship_valve: TaskResult, tmp_path: Path) -> None:
    files = write_task_outputs(ship_valve, tmp_path)
    d = json.loads(Path(files["json"]).read_text())
    assert d["status"] == "done"
    assert d["reason"] is None
    assert d["frames"] == ship_valve.motion.n_frames
    assert d["fps"] == 30
    assert d["first_contact"] == ship_valve.check.first_contact
    assert {s["kind"] for s in d["steps"]} == {
        "walk_to",
        "posture",
        "reach",
        "turn",
        "hold",
        "stand_up",
    }
    for key in ("reba", "rula"):
        levels = d[key]["time_by_action_level_s"]
        assert sum(levels.values()) == pytest.approx(d["frames"] / d["fps"])
        assert d[key]["max"] >= 1
    names = ("task.bvh", "task.npz", "frames.npz", "task.json", "timeline.png", "checks.png")
    for name in (*names, "report.html"):
        assert (tmp_path / name).stat().st_size > 0
    assert d["files"]["bvh"] == str(tmp_path / "task.bvh")
    frames = np.load(tmp_path / "frames.npz")
    assert len(frames["reba_score"]) == d["frames"]
    sliding = frames["foot_slide_m"] > 1e-3
    assert int(np.sum(sliding & ~frames["walking"])) == d["check"]["static_frames_feet_sliding"]
    # The report's table names every failing frame count the JSON gives, each against its total.
    c = d["check"]
    expected = [
        c["frames_in_contact"],
        c["frames_beyond_joint_limits"],
        c["frames_over_joint_speed"],
        c["static_frames_unbalanced"],
        c["static_frames_feet_sliding"],
        c["walking_frames_feet_sliding"],
    ]
    counts = [r["frames failing"].split(" of ") for r in check_rows(c)]
    failing = [int(n) for n, _ in counts]
    totals = [int(total) for _, total in counts]
    assert failing == expected
    assert totals == [
        d["frames"],
        d["frames"],
        d["frames"],
        c["static_frames"],
        c["static_frames"],
        d["frames"] - c["static_frames"],
    ]
    assert "Checks over all frames" in (tmp_path / "report.html").read_text()
    assert c["passed"] is (not any(expected))
    text = failed_checks(c)
    assert (f"{c['static_frames_unbalanced']} frames unbalanced" in text) == (
        c["static_frames_unbalanced"] > 0
    )
    passing = {
        k: 0 for k in c if k.startswith("frames_") or k.endswith(("_unbalanced", "_sliding"))
    }
    assert failed_checks({**c, **passing}) == "every other check passed"
    assert int(np.sum(frames["joint_speed_ratio"] > 1.0)) == c["frames_over_joint_speed"]
    assert np.degrees(frames["joint_speed_rad_s"]).max() == pytest.approx(
        c["joint_speed_max_deg_s"]
    )


def _task(tmp_path: Path, scene: str, steps: str) -> Path:
    f = tmp_path / "t.yaml"
    f.write_text(f"name: t\nscene: {scene}\nstart: {{position: [-2.55, 0.0]}}\nsteps:\n{steps}")
    return f


def test_impossible_step_stops_with_exit_3(tmp_path: Path) -> None:
    f = _task(tmp_path, str(ENGINE_ROOM), "  - walk_to: {position: [1.3, 0.0]}\n")  # in the tank
    res = runner.invoke(app, ["task", str(f), "-o", str(tmp_path / "out"), "--json"])
    assert res.exit_code == 3, res.output
    d = json.loads(res.stdout)
    assert d["status"] == "stopped"
    assert d["reason"].startswith("walk_to: no walking path")
    assert d["steps"][0]["done"] is False
    assert (tmp_path / "out" / "task.bvh").is_file()


def test_first_contact_is_named(tmp_path: Path) -> None:
    # The ship-valve compartment is 1.45 m high: walking upright, the head meets the ceiling.
    f = _task(tmp_path, "ship-valve", "  - walk_to: {position: [-0.4, -0.3]}\n")
    f.write_text(f.read_text().replace("[-2.55, 0.0]", "[-0.6, -0.3]"))
    r = run_task(load_task(f))
    c = r.check.first_contact
    assert c is not None
    assert (c["solid"], c["body_part"], c["time_s"]) == ("ceiling", "head", 0.0)


def test_bad_file_exits_2_with_one_line(tmp_path: Path) -> None:
    f = _task(tmp_path, "ship-valve", "  - hold: {seconds: -1}\n")
    res = runner.invoke(app, ["task", str(f), "-o", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    assert f"{f}:5: steps[0].hold.seconds: expected a number" in " ".join(res.output.split())
    assert "Traceback" not in res.output


def test_hand_follows_the_rim_while_turning(ship_valve: TaskResult) -> None:
    r = ship_valve
    turn_step = next(s for s in r.spec.steps if s.kind == "turn")
    span = next(s for s in r.steps if s.kind == "turn")
    m = r.motion
    frames = np.arange(round(span.start_s * m.fps), round(span.end_s * m.fps) + 1)
    hand = m.global_positions[frames, m.skeleton.index("r_hand")]
    v = hand - turn_step.centre
    off_axis = np.linalg.norm(v - (v @ turn_step.axis)[:, None] * turn_step.axis, axis=-1)
    assert np.abs(off_axis - turn_step.radius).max() < 2e-3
    # The wheel turns by the angle asked: the hand's forward travel round the axis, summed
    # over the strokes (between strokes it slides back without turning the wheel).
    u = v - (v @ turn_step.axis)[:, None] * turn_step.axis
    theta = np.arctan2(np.cross(u[0], u) @ turn_step.axis, u @ u[0])
    forward = np.clip(np.diff(theta), 0.0, None).sum()
    assert np.degrees(forward) == pytest.approx(np.degrees(turn_step.angle), abs=1.0)


def test_arm_comfort_where_the_arm_is_posed(ship_valve: TaskResult) -> None:
    c = ship_valve.arm_comfort
    assert len(c) == ship_valve.motion.n_frames
    assert np.all(np.isnan(c[~ship_valve.check.static]))  # walking: not posed by IK
    span = next(s for s in ship_valve.steps if s.kind == "hold")
    held = c[round(span.start_s * 30) + 1 : round(span.end_s * 30)]
    assert np.all(np.isfinite(held))
    assert np.all(held >= 0.0)


def test_stopped_after_the_turn_and_resumed_the_task_is_the_uninterrupted_one(
    ship_valve: TaskResult, tmp_path: Path
) -> None:
    """The checkpoint holds the hand on the wheel, the arm's angles and the posture chosen."""
    ckpt = tmp_path / "task.ckpt.npz"
    run_task("ship-valve", seed=0, checkpoint=ckpt, stop_after=4)
    resumed = run_task("ship-valve", seed=0, checkpoint=ckpt, resume=True)
    a, b = resumed.to_dict(), ship_valve.to_dict()
    a.pop("run_time_s")
    b.pop("run_time_s")
    assert a == b
    np.testing.assert_array_equal(resumed.motion.local_rotations, ship_valve.motion.local_rotations)
    np.testing.assert_array_equal(resumed.motion.root_positions, ship_valve.motion.root_positions)
    np.testing.assert_array_equal(resumed.arm_comfort, ship_valve.arm_comfort)


def test_feet_sliding_counted_on_every_frame(ship_valve: TaskResult) -> None:
    c = ship_valve.check
    assert c.foot_slide.shape == (ship_valve.motion.n_frames,)
    assert np.all(c.foot_slide >= 0.0)
    d = c.to_dict()
    assert d["static_frames_feet_sliding"] == int(np.sum(c.static & c.sliding))
    assert d["walking_frames_feet_sliding"] == int(np.sum(~c.static & c.sliding))
    assert d["foot_slide_max_mm_per_frame"] == pytest.approx(1e3 * c.foot_slide[c.static].max())


def test_no_foot_slides_out_of_walking(ship_valve: TaskResult) -> None:
    # Getting down to the posture and back up included (vhuman.task.floor).
    c = ship_valve.check
    assert c.static.sum() > 300
    assert c.foot_slide[c.static].max() <= SLIDE_TOLERANCE
    assert c.to_dict()["frames_in_contact"] == 0


def test_legs_scored_by_their_support_per_frame(ship_valve: TaskResult) -> None:
    r = ship_valve
    assert r.spec.name == "ship-valve"
    sitting = r.postures[0] == "sitting-floor"
    span = next(s for s in r.steps if s.kind == "hold")
    held = slice(round(span.start_s * 30) + 1, round(span.end_s * 30))
    walking = ~r.check.static
    standing = assess_reba(r.motion)
    # Walking is scored with the legs as measured, whatever the posture.
    assert np.array_equal(r.reba.legs[walking], standing.legs[walking])
    if sitting:  # REBA's sitting rule (legs 1) and RULA's supported legs while seated
        assert np.all(r.reba.legs[held] == 1)
        assert np.all(r.rula.legs[held] == 1)


def test_kneeling_on_both_knees_is_scored_as_kneeling() -> None:
    sk = worker_skeleton("p50-male")
    body = BodyModel.from_skeleton(sk, samples_per_segment=2)
    library = load_library(sk, body=body)
    names = np.asarray(sk.names)[body.joints]
    shanks = np.isin(names, ("l_knee", "r_knee"))

    def still(name: str) -> Motion:
        p = library[name]
        return Motion(sk, 30.0, p.root_position[None], p.local_rotations[None])

    kneel = still("kneeling-both-knees")
    a, _ = body.capsules(kneel.root_positions, kneel.local_rotations)
    # The thigh's end bears on the floor; the shank's knee end alone is off it.
    assert np.all(a[0, shanks, 2] - body.radii[shanks] > KNEE_ON_FLOOR)
    assert knees_down(body, kneel, 0.0).all()
    assert knees_down(body, still("kneeling-one-knee"), 0.0).all()
    for name in ("standing", "squatting", "sitting-floor"):
        assert not knees_down(body, still(name), 0.0).any()
    lifted = Motion(
        sk, 30.0, kneel.root_positions + np.array([0.0, 0.0, 0.05]), kneel.local_rotations
    )
    assert not knees_down(body, lifted, 0.0).any()


def test_hands_down_needs_both_hands_on_the_floor() -> None:
    sk = worker_skeleton("p50-male")
    body = BodyModel.from_skeleton(sk, samples_per_segment=2)
    p = load_library(sk, body=body)["sitting-floor"]
    wrists = [body.names.index(n) for n in ("l_wrist", "r_wrist")]
    a, b = body.capsules(p.root_position[None], p.local_rotations[None])
    low = (np.minimum(a[0, wrists, 2], b[0, wrists, 2]) - body.radii[wrists]).max()
    for drop, down in ((0.0, low <= HAND_ON_FLOOR), (low - 0.5 * HAND_ON_FLOOR, True)):
        lowered = Motion(
            sk, 30.0, p.root_position[None] - [0.0, 0.0, drop], p.local_rotations[None]
        )
        assert hands_down(body, lowered, 0.0).all() == down
        assert not hands_down(body, lowered, -2.0 * HAND_ON_FLOOR).any()


def test_arms_scored_as_supported_exactly_while_both_hands_bear_on_the_floor() -> None:
    """REBA's and RULA's upper arm −1 ("arm supported or person leaning", Hignett & McAtamney
    2000) on the frames where the worker, sitting down, leans on both hands, and only there."""
    body = BodyModel.from_skeleton(worker_skeleton("p50-male"), samples_per_segment=2)
    library = load_library(body.skeleton, body=body)
    low = library["sitting-floor"]
    stand = standing_pose(body.skeleton, np.zeros(2), facing(low.local_rotations[0]), 30.0)
    motion = floor_transition(body, stand, (low.root_position, low.local_rotations), 3.0, 30.0, 0.0)
    names = np.asarray(body.skeleton.names)[body.joints]
    wrists = [int(np.flatnonzero(names == n)[0]) for n in ("l_wrist", "r_wrist")]
    a, b = body.capsules(motion.root_positions, motion.local_rotations)
    lowest = np.minimum(a[:, wrists, 2], b[:, wrists, 2]) - body.radii[wrists]
    leaning = np.all(lowest <= HAND_ON_FLOOR, axis=-1)
    assert 0 < leaning.sum() < motion.n_frames  # the hands take the weight on the way down
    reba, rula = score_frames(body, motion, 0.0, np.zeros(motion.n_frames, dtype=bool))
    for res in (reba, rula):
        supported = np.asarray(res.adjustments["arm_supported"]).reshape(len(leaning), -1)
        assert np.array_equal(supported.all(axis=-1), leaning)
        assert not supported[~leaning].any()
    plain = assess_reba(motion).upper_arm  # the legs' support does not change the arms
    assert np.array_equal(reba.upper_arm[leaning], np.maximum(plain[leaning] - 1, 1))
    assert np.array_equal(reba.upper_arm[~leaning], plain[~leaning])


@pytest.fixture(scope="module", params=["ship-valve", "pipe-alley"])
def shipped(request: pytest.FixtureRequest, ship_valve: TaskResult) -> TaskResult:
    """Each shipped task's result (ship-valve's the module's own)."""
    return ship_valve if request.param == "ship-valve" else run_task(request.param, seed=0)


def test_no_joint_turns_faster_than_the_limit(shipped: TaskResult) -> None:
    r = shipped
    assert r.done
    assert r.check.joint_speed_ratio.max() <= 1.0


def test_a_turn_on_the_spot_that_would_hit_the_scene_goes_the_other_way_round() -> None:
    """Standing up at the pipe alley's valve, the 95th-percentile woman turning the short way
    to walk out swings her left hand through the handwheel; she turns the long way instead."""
    spec = dataclasses.replace(load_task("pipe-alley"), worker="p95-female")
    r = run_task(spec, seed=0)
    assert r.done
    assert r.check.first_contact is None
    assert int(r.check.contacts.sum()) == 0


def test_a_walk_that_fails_its_checks_keeps_further_from_the_solids() -> None:
    """The 5th-percentile woman walking out of the pipe alley on the path at the body's radius
    turns a knee too fast; a path further from the solids passes every check."""
    spec = dataclasses.replace(load_task("pipe-alley"), worker="p5-female")
    r = run_task(spec, seed=0)
    assert r.done
    assert r.check.passed(), r.to_dict()["check"]


def test_every_frame_of_the_shipped_tasks_passes_every_check(shipped: TaskResult) -> None:
    r = shipped
    assert r.done
    assert r.check.frames_checked == r.motion.n_frames
    assert r.check.passed(), r.to_dict()["check"]


# A room of open floor with a cabinet, its valve 0.5 m above the floor: the worker gets down.
CABINET_ROOM = """name: cabinet-room
units: m
floor: 0.0
ceiling: 2.4
target: {name: valve, position: [0.5, 0.0, 0.5], rpy: [0, -90, 0], approach: [1, 0, 0]}
objects:
  - {name: cabinet, type: box, size: [0.5, 1.0, 1.0], position: [0.8, 0.0, 0.5]}
  - {name: back wall, type: box, size: [0.05, 3.0, 2.4], position: [-2.5, 0.0, 1.2]}
  - {name: front wall, type: box, size: [0.05, 3.0, 2.4], position: [1.1, 0.0, 1.2]}
  - {name: left wall, type: box, size: [3.6, 0.05, 2.4], position: [-0.7, 1.5, 1.2]}
  - {name: right wall, type: box, size: [3.6, 0.05, 2.4], position: [-0.7, -1.5, 1.2]}
"""


@pytest.fixture
def cabinet_task(tmp_path: Path) -> Path:
    (tmp_path / "room.yaml").write_text(CABINET_ROOM)
    f = tmp_path / "t.yaml"
    f.write_text(
        "name: t\nscene: room.yaml\nworker: p50-male\n"
        "start: {position: [-1.5, 0.0], heading: 0}\n"
        "steps:\n  - posture: {duration: 2.0}\n"
    )
    return f


class _Blocked:
    """`floor_transition` refusing the way down (by raising as where every plan touches the
    scene) to the first ``refuse`` floor postures asked for, recording every one asked for."""

    def __init__(self, refuse: int) -> None:
        self.refuse = refuse
        self.asked: list[Pose] = []

    def __call__(
        self, body: BodyModel, start: Pose, end: Pose, *args: Any, **kwargs: Any
    ) -> Motion:
        if start[0][2] - end[0][2] > DOWN_DROP:  # getting down
            self.asked.append(end)
            if len(self.asked) <= self.refuse:
                raise FloorTransitionError("every plan touches the scene (refused here)")
        return floor_transition(body, start, end, *args, **kwargs)


def _solved(monkeypatch: pytest.MonkeyPatch) -> list[tuple[PostureResult, list[Candidate]]]:
    """Every posture solved in the task, with the placements it was told to pass over."""
    calls: list[tuple[PostureResult, list[Candidate]]] = []

    def solve(*args: Any, exclude: Sequence[Candidate] = (), **kwargs: Any) -> PostureResult:
        result = solve_posture(*args, exclude=exclude, **kwargs)
        calls.append((result, list(exclude)))
        return result

    monkeypatch.setattr(task_run, "solve_posture", solve)
    return calls


def test_a_blocked_way_down_goes_on_with_the_next_ranked_placement(
    cabinet_task: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocked = _Blocked(refuse=1)
    monkeypatch.setattr(task_run, "floor_transition", blocked)
    calls = _solved(monkeypatch)
    r = run_task(load_task(cabinet_task))
    assert r.done, r.reason
    assert len(blocked.asked) >= 2
    chosen = calls[-1][0]
    assert calls[0][1] == []
    # Each solve passes over every placement refused before it, and gives another one.
    for k, (result, exclude) in enumerate(calls[1:], start=1):
        assert [c.root_position.tolist() for c in exclude] == [
            c[0].placement.root_position.tolist() for c in calls[:k]
        ]
        assert not near([result.placement], exclude).any()
    assert r.postures == [chosen.library_posture]
    # The worker ends where the last placement has the pelvis, not at the refused one.
    end = r.motion.root_positions[-1]
    np.testing.assert_allclose(end, chosen.motion.root_positions[0], atol=1e-9)
    # Nothing of the refused way is left in the motion: every frame passes every check.
    assert r.check.frames_checked == r.motion.n_frames
    assert r.check.passed(), r.to_dict()["check"]


def test_no_way_down_to_any_placement_stops_the_task_with_the_reason(
    cabinet_task: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blocked = _Blocked(refuse=MAX_PLACEMENTS + 1)
    monkeypatch.setattr(task_run, "floor_transition", blocked)
    res = runner.invoke(app, ["task", str(cabinet_task), "-o", str(tmp_path / "out"), "--json"])
    assert res.exit_code == 3, res.output
    d = json.loads(res.stdout)
    assert d["status"] == "stopped"
    assert [s["done"] for s in d["steps"]] == [False]
    assert d["reason"].startswith("posture: no way to a posture reaching the target passes")
    assert "every plan touches the scene (refused here)" in d["reason"]
    tried = re.search(r"\((\d+) placements tried: ", d["reason"])
    assert tried is not None
    assert 2 <= len(blocked.asked) <= int(tried[1]) <= MAX_PLACEMENTS
    # The motion is the start pose alone: nothing of the ways refused is left.
    assert d["frames"] == 1
    assert d["check"]["passed"]
