"""`vhuman physics` sub-app (tested on its own Typer app)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from interrupt import sigint_as_in_a_terminal
from vhuman.cli.physics import physics_app
from vhuman.control.controller import standing_controller

runner = CliRunner()


def test_simulate_standing_controller_json_and_bvh(tmp_path) -> None:
    path = tmp_path / "stand.json"
    standing_controller("standard").save(path)
    out = tmp_path / "sim.bvh"
    args = ["simulate", "--controller", str(path), "--cycles", "1", "--push", "50:0.2:0.5:left"]
    res = runner.invoke(physics_app, [*args, "-o", str(out), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for key in (
        "cycles_completed",
        "fell",
        "tracking_rmse_rad",
        "energy_j",
        "sim_speed_x_realtime",
    ):
        assert key in data
    assert data["cycles_completed"] == 1
    assert not data["fell"]
    assert out.read_text().startswith("HIERARCHY")


def test_bad_input_exits_2(tmp_path) -> None:
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    out = str(tmp_path / "c.json")
    res = runner.invoke(physics_app, ["optimize", "--clip", "moonwalk", "-o", out])
    assert res.exit_code == 2
    assert "moonwalk" in res.output
    res = runner.invoke(physics_app, ["optimize", "--generations", "0", "-o", out])
    assert res.exit_code == 2
    assert "generations" in res.output
    res = runner.invoke(physics_app, ["optimize", "--probe-force", "-5", "-o", out])
    assert res.exit_code == 2
    assert "probe push force" in res.output
    res = runner.invoke(physics_app, ["optimize", "--speed", "1.0", "--full-budget", "-o", out])
    assert res.exit_code == 2
    assert "--full-budget" in res.output
    for extra in (
        ["--xcom-margin", "0.1"],
        ["--com-velocity"],
        ["--level-swing-foot"],
        ["--quick-step-time", "0.1"],
    ):
        res = runner.invoke(physics_app, ["optimize", "--speed", "1.0", *extra, "-o", out])
        assert res.exit_code == 2
        assert extra[0] in res.output
    res = runner.invoke(physics_app, ["optimize", "--xcom-margin", "0.9", "-o", out])
    assert res.exit_code == 2
    assert "xcom margin" in res.output
    res = runner.invoke(physics_app, ["optimize", "--quick-step-time", "0", "-o", out])
    assert res.exit_code == 2
    assert "quick step time" in res.output
    path = tmp_path / "other.json"
    data = standing_controller("standard").to_dict()
    data["signature"] = "ffffffffffffffff"
    path.write_text(json.dumps(data))
    res = runner.invoke(physics_app, ["simulate", "--controller", str(path)])
    assert res.exit_code == 2
    assert "another skeleton" in res.output
    res = runner.invoke(physics_app, ["simulate", "--controller", str(tmp_path / "none.json")])
    assert res.exit_code == 2
    res = runner.invoke(physics_app, ["simulate", "--controller", str(path), "--push", "x"])
    assert res.exit_code == 2


def _optimize(out, ckpt, *extra: str) -> list[str]:
    vhuman = str(Path(sys.executable).parent / "vhuman")
    return [
        vhuman,
        "physics",
        "optimize",
        "--population",
        "4",
        "--generations",
        "5",
        "--target-cycles",
        "8",
        "--seed",
        "3",
        "-o",
        str(out),
        "--checkpoint",
        str(ckpt),
        "--json",
        *extra,
    ]


def _generation(ckpt: Path) -> int:
    try:
        return json.loads(ckpt.read_text())["state"]["generation"]
    except (OSError, ValueError, KeyError):
        return -1


@pytest.mark.parametrize("kill_at", [-1, 0, 2])
def test_optimize_killed_at_any_point_resumes_to_the_same_controller(
    tmp_path, kill_at: int
) -> None:
    """SIGKILL before the first checkpoint (-1) or just after generation ``kill_at``'s
    (before its log line is written, as often as not): controller and log as uninterrupted."""
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    whole_out, whole_log = tmp_path / "whole.json", tmp_path / "whole.jsonl"
    subprocess.run(
        _optimize(whole_out, tmp_path / "whole.ckpt", "--log", str(whole_log)),
        check=True,
        capture_output=True,
    )
    out, ckpt, log = tmp_path / "c.json", tmp_path / "c.ckpt", tmp_path / "c.jsonl"
    log.write_text('{"generation": 99}\n')  # a stale log of an earlier run is replaced
    job = subprocess.Popen(
        _optimize(out, ckpt, "--log", str(log)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while _generation(ckpt) < kill_at and job.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert job.poll() is None, "the run ended before it could be killed"
    job.kill()
    job.wait(timeout=30)
    assert not out.exists()
    subprocess.run(_optimize(out, ckpt, "--log", str(log)), check=True, capture_output=True)
    whole, resumed = json.loads(whole_out.read_text()), json.loads(out.read_text())
    assert resumed == whole
    assert log.read_text() == whole_log.read_text()
    assert len(log.read_text().splitlines()) == whole["meta"]["optimised"]["generations"]
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_optimize_resumed_with_another_push_force_is_refused(tmp_path) -> None:
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    out, ckpt = tmp_path / "c.json", tmp_path / "c.ckpt"
    subprocess.run([*_optimize(out, ckpt), "--generations", "1"], check=True, capture_output=True)
    run = subprocess.run(
        [*_optimize(out, ckpt), "--push-force", "0"], capture_output=True, text=True, check=False
    )
    assert run.returncode == 2
    assert run.stderr.count("\n") == 1
    assert "push_force_n = 30.0; this run has push_force_n = 0.0" in run.stderr
    # Every other setting that changes the result, refused before any work (even refining).
    for option, value, message in (
        ("--seed", "4", "seed = 3; this run has seed = 4"),
        ("--push-growth", "1", "push_growth_n = 0.0; this run has push_growth_n = 1.0"),
        ("--refine-budget", "128", "refine_budget = 0; this run has refine_budget = 128"),
        ("--population", "6", "config.population = 4; this run has config.population = 6"),
        ("--no-screen", None, "config.screen = True; this run has config.screen = False"),
    ):
        extra = [option] if value is None else [option, value]
        res = runner.invoke(physics_app, [*_optimize(out, ckpt)[2:], *extra])
        assert res.exit_code == 2, (option, res.output)
        assert message in res.output
        assert res.output.strip().count("\n") == 0


def test_optimize_into_a_missing_folder_fails_before_any_simulation(tmp_path) -> None:
    res = runner.invoke(physics_app, ["optimize", "-o", str(tmp_path / "no" / "c.json")])
    assert res.exit_code == 2
    assert "does not exist" in res.output
    assert "generation" not in res.output


@pytest.mark.parametrize(
    ("push", "words"),
    [
        ("200:0.2:4:up", "direction 'up'"),
        ("200:-0.2:4:left", "duration must be > 0"),
        ("200:0.2:4", "FORCE_N:DURATION_S:AT_S:DIRECTION"),
        ("-5:0.2:4:left", "force must be finite and >= 0"),
    ],
)
def test_malformed_push_gets_one_line_and_exit_2(tmp_path, push: str, words: str) -> None:
    path = tmp_path / "stand.json"
    standing_controller("standard").save(path)
    res = runner.invoke(physics_app, ["simulate", "--controller", str(path), "--push", push])
    assert res.exit_code == 2
    assert res.output.count("\n") == 1
    assert words in res.output


def test_simulate_json_reports_pushes_and_outcome(tmp_path) -> None:
    path = tmp_path / "stand.json"
    standing_controller("standard").save(path)
    args = [
        "simulate",
        "--controller",
        str(path),
        "--cycles",
        "2",
        "--json",
        "--push",
        "60:0.2:0.3:left",
        "--push",
        "2000:0.3:1.0:backward",
        "-o",
        str(tmp_path / "s.npz"),
    ]
    res = runner.invoke(physics_app, args)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert [p["direction"] for p in data["pushes"]] == ["left", "backward"]
    assert data["fell"] is True
    assert 1.0 < data["fall_time_s"] <= data["duration_s"] < 2.0
    assert data["cycles_completed"] == 1
    assert data["distance_m"] < 0.0  # pushed backwards


def test_results_on_stdout_progress_on_stderr(tmp_path) -> None:
    """`simulate` and `optimize` print their result alone on stdout; the generation log of
    `optimize` goes to stderr."""
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    vhuman = str(Path(sys.executable).parent / "vhuman")
    path = tmp_path / "stand.json"
    standing_controller("standard").save(path)
    sim = subprocess.run(
        [
            vhuman,
            "physics",
            "simulate",
            "--controller",
            str(path),
            "--cycles",
            "1",
            "-o",
            str(tmp_path / "s.bvh"),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(sim.stdout)["cycles_completed"] == 1
    opt = subprocess.run(
        [
            vhuman,
            "physics",
            "optimize",
            "--population",
            "2",
            "--generations",
            "1",
            "--target-cycles",
            "1",
            "-o",
            str(tmp_path / "c.json"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    assert opt.stdout.startswith(f"wrote {tmp_path / 'c.json'}")
    assert "generation" not in opt.stdout
    assert '"generation": 1' in opt.stderr


def test_simulate_by_speed(tmp_path) -> None:
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    res = runner.invoke(
        physics_app,
        ["simulate", "--speed", "1.0", "--cycles", "2", "--json", "-o", str(tmp_path / "s.npz")],
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["target_speed_m_s"] == 1.0
    assert data["speed_m_s"] == pytest.approx(data["distance_m"] / data["duration_s"])
    assert data["cadence_steps_min"] == pytest.approx(60 * data["steps"] / data["duration_s"])
    assert set(data["tracking_rmse_per_joint_rad"]) >= {"left_knee", "right_hip_y", "chest_x"}
    res = runner.invoke(physics_app, ["simulate", "--speed", "1.2"])
    assert res.exit_code == 2
    assert "no shipped controller for 1.2 m/s" in res.output
    res = runner.invoke(physics_app, ["simulate", "--speed", "1.0", "--controller", "c.json"])
    assert res.exit_code == 2
    assert "not both" in res.output


def test_optimize_ctrl_c_keeps_the_checkpoint_and_says_how_to_resume(tmp_path) -> None:
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    out, ckpt = tmp_path / "c.json", tmp_path / "c.ckpt"
    job = subprocess.Popen(  # every generation of a long budget: still running at the signal
        _optimize(out, ckpt, "--jobs", "2", "--full-budget", "--generations", "60"),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=sigint_as_in_a_terminal,
        start_new_session=True,  # its own process group, the workers in it
        text=True,
    )
    deadline = time.monotonic() + 120
    while _generation(ckpt) < 0 and job.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert job.poll() is None, "the run ended before it could be interrupted"
    os.killpg(job.pid, signal.SIGINT)  # Ctrl-C in a terminal: the whole process group
    _, err = job.communicate(timeout=60)
    assert job.returncode == 130
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("interrupted; resume with: vhuman physics optimize")
    assert _generation(ckpt) >= 0
    assert not out.exists()
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]
