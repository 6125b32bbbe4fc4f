"""Training checkpoints: damaged, foreign or changed files refused in one line; kills and
Ctrl-C resume to the uninterrupted run's bytes."""

from __future__ import annotations

import dataclasses
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from typer.testing import CliRunner

from interrupt import sigint_as_in_a_terminal
from vhuman.cli.predict import predict_app
from vhuman.errors import FileFormatError, InputError
from vhuman.io import cmu_walking_example, save_motion
from vhuman.prediction import TrainConfig, train
from vhuman.prediction.files import serialized

runner = CliRunner()
SMALL = {"dim": 16, "heads": 2, "ff": 32, "encoder_layers": 1, "decoder_layers": 1}


def _config(**kw: object) -> TrainConfig:
    settings: dict[str, object] = {"epochs": 2, "batch_size": 8, "seed": 3, "stride": 4}
    return TrainConfig(kind="seed", options=SMALL, **{**settings, **kw})


@pytest.fixture
def checkpoint(toy, tmp_path: Path) -> Path:
    """The checkpoint of one epoch of a small training run."""
    train(toy, _config(), output=tmp_path / "m.pt", stop_after=1)
    return tmp_path / "m.pt.ckpt"


def test_a_changed_tensor_byte_is_noticed(toy, checkpoint: Path) -> None:
    data = torch.load(checkpoint, weights_only=True)
    weight = next(v for v in data["state"].values() if v.numel() > 100)
    raw = bytearray(checkpoint.read_bytes())
    at = raw.find(weight.contiguous().numpy().tobytes()[:64])
    assert at > 0
    raw[at + 3] ^= 0x10
    checkpoint.write_bytes(bytes(raw))
    with pytest.raises(FileFormatError, match="changed after it was written") as info:
        train(toy, _config(), output=checkpoint.with_suffix(""), resume=True)
    assert "\n" not in str(info.value)


def test_a_changed_setting_inside_is_noticed(toy, checkpoint: Path) -> None:
    data = torch.load(checkpoint, weights_only=True)
    data["epoch"] = 2
    checkpoint.write_bytes(serialized(data))
    with pytest.raises(FileFormatError, match="changed after it was written"):
        train(toy, _config(), output=checkpoint.with_suffix(""), resume=True)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", r"empty \(0 bytes\)"),
        (None, "not a vhuman prediction model"),
        (b"PK\x03\x04", "not a vhuman prediction model"),
    ],
)
def test_empty_truncated_or_foreign_checkpoints_are_one_line(
    toy, checkpoint: Path, content: bytes | None, message: str
) -> None:
    raw = checkpoint.read_bytes()
    checkpoint.write_bytes(raw[: len(raw) // 2] if content is None else content)
    with pytest.raises(FileFormatError, match=message) as info:
        train(toy, _config(), output=checkpoint.with_suffix(""), resume=True)
    assert "\n" not in str(info.value)
    assert str(checkpoint) in str(info.value)


def test_a_model_file_is_no_checkpoint(toy, checkpoint: Path) -> None:
    model = checkpoint.with_suffix("")
    train(toy, _config(), output=model, stop_after=1)
    with pytest.raises(FileFormatError, match="not a training checkpoint"):
        train(toy, _config(), output=model, checkpoint=model, resume=True)


def test_other_data_or_settings_are_refused_by_name(toy, checkpoint: Path) -> None:
    output = checkpoint.with_suffix("")
    moved = dataclasses.replace(toy, positions=toy.positions + 0.01)
    with pytest.raises(InputError, match=r"belongs to a run with data = '[0-9a-f]{64}'; this run "):
        train(moved, _config(), output=output, resume=True)
    for setting, value in (("seed", 4), ("epochs", 3), ("mirror", True), ("max_windows", 5)):
        with pytest.raises(InputError, match=f"{setting} = .*; this run has {setting} = {value}"):
            train(toy, _config(**{setting: value}), output=output, resume=True)


def test_the_cli_reports_a_damaged_checkpoint_in_one_line(tmp_path: Path) -> None:
    folder = _bvh_folder(tmp_path)
    (tmp_path / "m.pt.ckpt").write_bytes(b"")
    res = runner.invoke(
        predict_app, ["train", "--data", str(folder), "-o", str(tmp_path / "m.pt"), "--resume"]
    )
    assert res.exit_code == 2
    assert res.stderr.strip().count("\n") == 0
    assert "m.pt.ckpt: the file is empty (0 bytes)" in res.stderr


@pytest.mark.parametrize("where", ["missing", "read-only"])
def test_an_unwritable_output_fails_before_any_work(tmp_path: Path, where: str) -> None:
    folder = tmp_path / "out"
    if where == "read-only":
        folder.mkdir()
        folder.chmod(0o500)
        if os.access(folder, os.W_OK):
            pytest.skip("this user can write into read-only folders (root)")
    res = runner.invoke(
        predict_app, ["train", "--data", str(tmp_path / "no-data"), "-o", str(folder / "m.pt")]
    )
    assert res.exit_code == 2
    assert res.stderr.strip().count("\n") == 0
    assert "--output" in res.stderr


def _bvh_folder(tmp_path: Path) -> Path:
    walk = cmu_walking_example()
    folder = tmp_path / "bvh" / "walk"
    folder.mkdir(parents=True)
    for k, a in enumerate((0, 20, 40)):
        save_motion(walk[a : a + 200], folder / f"walk_{k + 1}.bvh")
    return folder.parent


def _train_command(data: Path, output: Path, *extra: str) -> list[str]:
    return [
        sys.executable,
        "-m",
        "vhuman",
        "predict",
        "train",
        "--data",
        str(data),
        "--epochs",
        "6",
        "--max-windows",
        "32",
        "--batch-size",
        "8",
        "--threads",
        "1",
        "-o",
        str(output),
        "--json",
        *extra,
    ]


def _hidden(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.startswith(".")]


def test_killed_at_random_points_resumes_to_the_same_bytes(tmp_path: Path) -> None:
    """SIGKILL at a random moment after the first checkpoint (within an epoch or during a
    write), then at a random moment from the start (maybe before any work)."""
    data = _bvh_folder(tmp_path)
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    whole.mkdir()
    cut.mkdir()
    reference = subprocess.Popen(
        _train_command(data, whole / "m.pt"), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    rng = random.Random(27)
    ckpt = cut / "m.pt.ckpt"
    for after_checkpoint in (True, False):
        job = subprocess.Popen(
            _train_command(data, cut / "m.pt", "--resume"),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while after_checkpoint and not ckpt.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 1.0) if after_checkpoint else rng.uniform(1.0, 5.0))
        job.kill()
        job.wait(timeout=30)
    subprocess.run(_train_command(data, cut / "m.pt", "--resume"), check=True, capture_output=True)
    assert reference.wait(timeout=120) == 0, reference.stderr.read() if reference.stderr else ""
    assert (cut / "m.pt").read_bytes() == (whole / "m.pt").read_bytes()
    assert (cut / "m.pt.ckpt").read_bytes() == (whole / "m.pt.ckpt").read_bytes()
    assert not _hidden(cut)


def test_ctrl_c_keeps_the_checkpoint_and_says_how_to_resume(tmp_path: Path) -> None:
    data = _bvh_folder(tmp_path)
    output = tmp_path / "m.pt"
    ckpt = tmp_path / "m.pt.ckpt"
    job = subprocess.Popen(
        _train_command(data, output),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=sigint_as_in_a_terminal,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not ckpt.exists() and job.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert job.poll() is None, "the run ended before it could be interrupted"
    job.send_signal(signal.SIGINT)
    _, err = job.communicate(timeout=60)
    assert job.returncode == 130
    lines = err.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith("interrupted; resume with: vhuman predict train --data")
    assert lines[0].endswith("--resume")
    assert ckpt.is_file()
    assert not output.exists()
    assert not _hidden(tmp_path)
    epochs = torch.load(ckpt, weights_only=True)["epoch"]
    assert 1 <= epochs < 6
