"""The `vhuman` command: every command's happy path, --json, and exit 2 on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from vhuman import __version__
from vhuman.cli import app
from vhuman.geometry import rotvec_to_quat
from vhuman.io import load_motion, save_motion
from vhuman.skeleton import Motion, standard_humanoid

runner = CliRunner()


@pytest.fixture
def bvh_file(tmp_path: Path) -> Path:
    sk = standard_humanoid()
    rng = np.random.default_rng(0)
    q = rotvec_to_quat(rng.normal(size=(25, sk.n_joints, 3)) * 0.2)
    root = np.column_stack([np.linspace(0, 1, 25), np.zeros(25), np.full(25, 0.9)])
    path = tmp_path / "clip.bvh"
    save_motion(Motion(sk, 25.0, root, q), path)
    return path


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0
    assert __version__ in result.stdout


def test_info_json(bvh_file: Path) -> None:
    result = runner.invoke(app, ["info", str(bvh_file), "--json"])
    assert result.exit_code == 0, result.output
    info = json.loads(result.stdout)
    assert info["joints"] >= 23
    assert info["frames"] == 25
    assert info["fps"] == pytest.approx(25.0)
    assert info["duration_s"] == pytest.approx(24 / 25)
    assert info["extent_max_m"][0] - info["extent_min_m"][0] > 1.0  # walked 1 m forward
    assert info["root_travel_m"] == pytest.approx(1.0, abs=1e-3)


def test_info_table(bvh_file: Path) -> None:
    result = runner.invoke(app, ["info", str(bvh_file)])
    assert result.exit_code == 0
    assert "frames" in result.stdout
    assert "25" in result.stdout


def test_convert_round_trip_keeps_frames_and_positions(bvh_file: Path, tmp_path: Path) -> None:
    npz = tmp_path / "clip.npz"
    back = tmp_path / "back.bvh"
    assert runner.invoke(app, ["convert", str(bvh_file), str(npz)]).exit_code == 0
    result = runner.invoke(app, ["convert", str(npz), str(back), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["frames"] == 25
    a, b = load_motion(bvh_file), load_motion(back)
    assert np.abs(a.global_positions - b.global_positions).max() < 1e-6


def test_view_writes_html(bvh_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "view.html"
    result = runner.invoke(app, ["view", str(bvh_file), "-o", str(out), "-t", "l_hand"])
    assert result.exit_code == 0, result.output
    assert out.stat().st_size > 100_000  # plotly.js is embedded
    page = out.read_text(encoding="utf-8")
    assert '"name":"body"' in page  # the shaded body, not the bones
    assert "left bones" not in page
    sticks = tmp_path / "sticks.html"
    result = runner.invoke(app, ["view", str(bvh_file), "-o", str(sticks), "--sticks"])
    assert result.exit_code == 0, result.output
    page = sticks.read_text(encoding="utf-8")
    assert "left bones" in page
    assert '"name":"body"' not in page


@pytest.mark.parametrize(
    ("content", "suffix", "args", "needle"),
    [
        ("HIERARCHY\nROOT hips\n{\n", ".bvh", [], "error:"),
        ("not a motion", ".xyz", [], "error:"),
        (None, ".bvh", [], "error:"),  # missing file
    ],
)
def test_bad_input_exits_2_with_one_line(tmp_path, content, suffix, args, needle) -> None:
    path = tmp_path / f"bad{suffix}"
    if content is not None:
        path.write_text(content)
    result = runner.invoke(app, ["info", str(path), *args])
    assert result.exit_code == 2
    assert needle in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.output


def test_unknown_trajectory_joint_exits_2(bvh_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "v.html"
    result = runner.invoke(app, ["view", str(bvh_file), "-o", str(out), "-t", "tail"])
    assert result.exit_code == 2
    assert "unknown joint 'tail'" in result.stderr
    assert not out.exists()


def test_convert_failure_leaves_no_file(bvh_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "out.unknown"
    result = runner.invoke(app, ["convert", str(bvh_file), str(out)])
    assert result.exit_code == 2
    assert list(tmp_path.iterdir()) == [bvh_file]


def test_console_script_exit_status(tmp_path: Path) -> None:
    """The installed entry point (not only the Typer app) exits 2 on bad input."""
    bad = tmp_path / "bad.bvh"
    bad.write_text("HIERARCHY\n")
    proc = subprocess.run(
        [sys.executable, "-m", "vhuman", "info", str(bad)], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:")


def test_markup_like_text_in_errors_is_printed_verbatim(tmp_path: Path) -> None:
    path = tmp_path / "x[/y] [m].bvh"
    result = runner.invoke(app, ["info", str(path)])
    assert result.exit_code == 2
    assert "[/y] [m].bvh" in result.stderr


def test_zero_frame_file_is_rejected(bvh_file: Path, tmp_path: Path) -> None:
    text = bvh_file.read_text()
    head = text[: text.index("Frames:")]
    empty = tmp_path / "empty.bvh"
    empty.write_text(head + "Frames: 0\nFrame Time: 0.04\n")
    result = runner.invoke(app, ["info", str(empty)])
    assert result.exit_code == 2
    assert "at least one frame" in result.stderr


def test_walk_json_is_strict_json_even_for_one_cycle(tmp_path: Path) -> None:
    result = runner.invoke(app, ["walk", "--cycles", "1", "-o", str(tmp_path / "w.bvh"), "--json"])
    assert result.exit_code == 0, result.output

    def reject(token: str) -> None:
        raise AssertionError(f"non-standard JSON constant {token}")

    figures = json.loads(result.stdout, parse_constant=reject)
    assert figures["frames"] > 0
    assert figures["foot_skate_mm"] < 2.0


def test_walk_with_ccd_legs(tmp_path: Path) -> None:
    args = ["walk", "--cycles", "1", "--leg-ik", "ccd", "-o", str(tmp_path / "w.bvh"), "--json"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert figures["ik_solver"] == "CCD"
    assert figures["ik_solves"] == 2 * figures["frames"]
    assert figures["ik_converged"] >= 0.98 * figures["ik_solves"]  # the rest within 1 mm
    assert figures["ik_max_error_mm"] < 1.0
    bad = runner.invoke(app, ["walk", "--leg-ik", "jacobian", "-o", str(tmp_path / "x.bvh")])
    assert bad.exit_code == 2
    assert "--leg-ik must be one of analytic, ccd" in bad.stderr
    assert not (tmp_path / "x.bvh").exists()


def test_reach_writes_bvh_and_reports_its_figures(tmp_path: Path) -> None:
    out = tmp_path / "reach.bvh"
    result = CliRunner().invoke(
        app, ["reach", "--target", "0.55", "-0.25", "1.45", "-o", str(out), "--json"]
    )
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    for key in (
        "final_position_error_mm",
        "final_orientation_error_deg",
        "path_straightness",
        "peak_to_mean_speed",
        "max_joint_speed_rad_s",
        "joint_speed_at_ends_rad_s",
        "joint_limit_violations",
        "self_collision_frames",
        "swivel_adjusted_frames",
        "joint_space_path",
        "trunk_lean_deg",
    ):
        assert key in figures
    assert figures["final_position_error_mm"] < 1e-6
    assert out.stat().st_size > 0


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (["--target", "1.5", "0", "1.4"], "out of reach"),
        (["--target", "0.5", "-0.2", "nan"], "NaN"),
        (["--target", "0.5", "-0.2", "1.3", "--duration", "0"], "duration"),
        (["--target", "0.5", "-0.2", "1.3", "--arm", "middle"], "--arm must be one of"),
        (["--target", "0.15", "-0.15", "1.2"], "within its joint limits at the target"),
        (["--target", "0.5", "-0.2", "1.3", "--max-joint-speed", "0"], "--max-joint-speed must be"),
    ],
)
def test_reach_bad_input_exits_2(tmp_path: Path, args: list[str], match: str) -> None:
    out = tmp_path / "r.bvh"
    result = CliRunner().invoke(app, ["reach", *args, "-o", str(out)])
    assert result.exit_code == 2
    assert match in result.output
    assert len(result.output.strip().splitlines()) == 1
    assert not out.exists()


@pytest.mark.parametrize("flag", ["--allow-lean", "--lean"])
def test_reach_with_a_trunk_lean_reports_it(tmp_path: Path, flag: str) -> None:
    out = tmp_path / "reach.bvh"
    args = ["reach", "--target", "0.15", "-0.15", "1.2", flag, "-o", str(out), "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    figures = json.loads(result.stdout)
    assert any(figures["trunk_lean_deg"])
    assert figures["self_collision_frames"] == 0
    assert figures["joint_limit_violations"] == 0
    assert figures["max_joint_speed_rad_s"] <= 8.0


@pytest.mark.shared
def test_swivel_evaluate_takes_a_flat_folder_of_trials(shared_data: Path, tmp_path: Path) -> None:
    for f in sorted((shared_data / "train" / "soccer").glob("*.txt"))[:2]:
        (tmp_path / f.name).symlink_to(f)
    result = CliRunner().invoke(app, ["swivel", "evaluate", "--data", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    scores = json.loads(result.stdout)
    assert scores["trials"] == 2
    assert set(scores["models"]["mlp-deep"]["per_activity"]) == {"soccer"}
    assert scores["models"]["mlp-deep"]["mae_deg"] > 0.0
    empty = CliRunner().invoke(app, ["swivel", "evaluate", "--data", str(tmp_path / "none")])
    assert empty.exit_code == 2


@pytest.mark.shared
def test_swivel_evaluate_reports_each_model(shared_data: Path) -> None:
    result = CliRunner().invoke(app, ["swivel", "evaluate", "--data", str(shared_data), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert set(out["models"]) == {"ensemble", "mlp-deep", "mlp-shape", "mlp", "lsq", "mean"}
    mae = {name: m["mae_deg"] for name, m in out["models"].items()}
    assert mae["mlp-deep"] < mae["mlp"] < mae["lsq"] < mae["mean"]
    assert mae["mlp-shape"] < mae["mlp"]
    assert mae["ensemble"] < mae["mlp"]
    assert out["samples"] > 1000
