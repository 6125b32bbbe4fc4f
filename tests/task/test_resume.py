"""`vhuman task` stopped or killed, then resumed: the outputs of an uninterrupted run."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import typer
from typer.testing import CliRunner

from interrupt import sigint_as_in_a_terminal
from vhuman.cli.task import CHECKPOINT, task
from vhuman.task import TaskResult, load_task, run_task
from vhuman.task.report import write_task_outputs

app = typer.Typer()
app.command()(task)
app.command("noop")(lambda: None)  # two commands: "task" is then a subcommand
runner = CliRunner()

ENGINE_ROOM = Path(load_task("ship-valve").scene)


@pytest.fixture
def small(tmp_path: Path) -> Path:
    """Walk in, hold, walk out: three steps, a few seconds."""
    f = tmp_path / "small.yaml"
    f.write_text(
        f"name: small\nscene: {ENGINE_ROOM}\nstart: {{position: [-2.55, 0.0]}}\nsteps:\n"
        "  - walk_to: {position: [-0.6, 0.3]}\n  - hold: {seconds: 0.5}\n"
        "  - walk_to: {position: [-2.55, 0.0], heading: 180}\n"
    )
    return f


def _figures(r: TaskResult) -> dict:
    d = r.to_dict()
    d.pop("run_time_s")
    return d


def _assert_same_result(a: TaskResult, b: TaskResult) -> None:
    assert _figures(a) == _figures(b)
    np.testing.assert_array_equal(a.motion.root_positions, b.motion.root_positions)
    np.testing.assert_array_equal(a.motion.local_rotations, b.motion.local_rotations)
    np.testing.assert_array_equal(a.arm_comfort, b.arm_comfort)
    np.testing.assert_array_equal(a.check.min_clearance, b.check.min_clearance)
    assert len(a.paths) == len(b.paths)
    for pa, pb in zip(a.paths, b.paths, strict=True):
        np.testing.assert_array_equal(pa, pb)


def _assert_same_outputs(a: Path, b: Path) -> None:
    for name in ("task.npz", "frames.npz"):
        with np.load(a / name) as fa, np.load(b / name) as fb:
            assert fa.files == fb.files
            for key in fa.files:
                np.testing.assert_array_equal(fa[key], fb[key], err_msg=f"{name}: {key}")
    assert (a / "task.bvh").read_text() == (b / "task.bvh").read_text()
    ja, jb = (json.loads((d / "task.json").read_text()) for d in (a, b))
    for d in (ja, jb):
        d.pop("run_time_s")
        d.pop("files")
    assert ja == jb


@pytest.mark.parametrize("done", [1, 2])
def test_task_stopped_after_a_step_resumes_to_the_uninterrupted_result(
    small: Path, tmp_path: Path, done: int
) -> None:
    whole = run_task(small)
    ckpt = tmp_path / CHECKPOINT
    part = run_task(small, checkpoint=ckpt, stop_after=done)
    assert len(part.steps) == done
    _assert_same_result(run_task(small, checkpoint=ckpt, resume=True), whole)


def test_task_killed_at_a_random_moment_resumes_to_the_same_outputs(
    small: Path, tmp_path: Path
) -> None:
    """SIGKILL at a random moment after the first step's checkpoint (later steps, their
    checkpoint writes and the outputs' writes are all in the window), then --resume."""
    whole = tmp_path / "whole"
    write_task_outputs(run_task(small), whole)
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    job = subprocess.Popen(
        [sys.executable, "-m", "vhuman", "task", str(small), "-o", str(out), "--json"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while not (out / CHECKPOINT).exists() and job.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(random.uniform(0.0, 3.0))
    job.send_signal(signal.SIGKILL)
    job.wait(timeout=30)
    res = runner.invoke(app, ["task", str(small), "-o", str(out), "--resume", "--json"])
    assert res.exit_code == 0, res.output
    _assert_same_outputs(out, whole)
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]


def test_resume_with_another_seed_or_a_damaged_checkpoint_is_one_line(
    small: Path, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    out.mkdir()
    run_task(small, checkpoint=out / CHECKPOINT, stop_after=1)
    args = ["task", str(small), "-o", str(out), "--resume"]
    res = runner.invoke(app, [*args, "--seed", "1"])
    assert res.exit_code == 2, res.output
    assert res.output.strip().count("\n") == 0
    assert "seed = 0; this run has seed = 1" in res.output
    small.write_text(small.read_text().replace("seconds: 0.5", "seconds: 0.6"))
    res = runner.invoke(app, args)
    assert res.exit_code == 2, res.output
    assert "belongs to a run with task = " in res.output
    for damage in (b"", (out / CHECKPOINT).read_bytes()[:100]):
        (out / CHECKPOINT).write_bytes(damage)
        res = runner.invoke(app, args)
        assert res.exit_code == 2, res.output
        assert res.output.strip().count("\n") == 0
        assert str(out / CHECKPOINT) in " ".join(res.output.split())


def test_output_that_is_a_file_fails_before_any_step(small: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    res = runner.invoke(app, ["task", str(small), "-o", str(blocker)])
    assert res.exit_code == 2
    assert res.output.strip().count("\n") == 0
    assert "--output" in res.output


def test_ctrl_c_keeps_the_checkpoint_and_says_how_to_resume(small: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    job = subprocess.Popen(
        [sys.executable, "-m", "vhuman", "task", str(small), "-o", str(out)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        preexec_fn=sigint_as_in_a_terminal,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not (out / CHECKPOINT).exists() and job.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    job.send_signal(signal.SIGINT)
    _, err = job.communicate(timeout=60)
    if (out / "task.json").exists():
        # The whole task and its outputs were written before the signal arrived
        # (the process may then die of SIGINT while it shuts down: status -2).
        pytest.skip(f"the task ended before Ctrl-C reached it (status {job.returncode})")
    assert job.returncode == 130, err
    assert err.strip().splitlines()[-1] == (
        f"interrupted; resume with: vhuman task {small} -o {out} --resume"
    )
    assert (out / CHECKPOINT).is_file()
    assert not (out / "task.json").exists()
