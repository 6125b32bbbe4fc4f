"""`vhuman ergo`: scores of every frame, the summaries, the files, and exit 2 on bad input."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from vhuman.cli import app
from vhuman.ergonomics import BodyAngles, REBAConditions, assess_reba
from vhuman.geometry import euler_to_quat
from vhuman.io import save_motion
from vhuman.skeleton import Motion, standard_humanoid

runner = CliRunner()
FPS = 10.0


@pytest.fixture(scope="module")
def stoop_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """20 frames of the standard humanoid: upright for 1 s, then a 70° stoop for 1 s."""
    sk = standard_humanoid()
    q = np.zeros((20, sk.n_joints, 4))
    q[..., 0] = 1.0
    bend = euler_to_quat([0.0, 70.0, 0.0], "XYZ", degrees=True)
    back = euler_to_quat([0.0, -70.0, 0.0], "XYZ", degrees=True)
    q[10:, sk.index("pelvis")] = bend
    q[10:, sk.index("l_hip")] = back
    q[10:, sk.index("r_hip")] = back
    root = np.tile(sk.offsets[0], (20, 1))
    path = tmp_path_factory.mktemp("ergo") / "stoop.bvh"
    save_motion(Motion(sk, FPS, root, q), path)
    return path


def test_json_per_frame_and_summaries(stoop_file: Path) -> None:
    result = runner.invoke(app, ["ergo", str(stoop_file), "--json", "--load", "6"])
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    reba, rula = d["reba"]["per_frame"], d["rula"]["per_frame"]
    assert len(reba["score"]) == len(rula["score"]) == 20
    # Upright frames score trunk 1, the 70° stoop trunk 4 (">60° flexion"; "60° or more").
    assert reba["trunk"][:10] == [1] * 10
    assert reba["trunk"][10:] == [4] * 10
    assert rula["trunk"][:10] == [1] * 10
    assert rula["trunk"][10:] == [4] * 10
    assert reba["load"] == 1
    assert rula["force"] == 1
    assert np.array(reba["upper_arm"]).shape == (20, 2)  # left, right
    assert set(reba["adjustments"]) >= {"upper_arm_abducted_or_rotated", "shoulder_raised"}
    # Every REBA score is its Table C cell plus activity (0 here).
    assert reba["score"] == [max(c) for c in reba["table_c"]]
    levels = d["time_by_action_level_s"]
    assert sum(levels["reba"].values()) == pytest.approx(2.0)
    assert sum(levels["rula"].values()) == pytest.approx(2.0)
    worst = d["worst"]["reba"]
    assert worst["frame"] == 10
    assert worst["time_s"] == pytest.approx(1.0)
    assert worst["score"] == max(reba["score"])
    assert worst["pose"]["trunk_flexion_deg"] == pytest.approx(70.0, abs=0.5)


def test_scores_agree_with_the_angle_api(stoop_file: Path) -> None:
    """The command's frame scores equal `assess_reba` on the same angles read back."""
    result = runner.invoke(
        app, ["ergo", str(stoop_file), "--json", "--coupling", "poor", "--static"]
    )
    d = json.loads(result.stdout)
    pose = d["worst"]["reba"]["pose"]
    angles = BodyAngles.from_degrees(
        **{k[:-4]: v for k, v in pose.items() if k.endswith("_deg")},
        **{k[:-2]: v for k, v in pose.items() if k.endswith("_m")},
    )
    r = assess_reba(angles, REBAConditions(coupling=2, static=True))
    assert int(r.score) == d["worst"]["reba"]["score"]


def test_csv_plot_report_and_table(stoop_file: Path, tmp_path: Path) -> None:
    out_csv, png, html = tmp_path / "s.csv", tmp_path / "s.png", tmp_path / "r.html"
    result = runner.invoke(
        app,
        ["ergo", str(stoop_file), "--csv", str(out_csv), "--plot", str(png), "--report", str(html)],
    )
    assert result.exit_code == 0, result.output
    assert "REBA" in result.stdout
    assert "worst" in result.stdout
    rows = list(csv.DictReader(out_csv.open()))
    assert len(rows) == 20
    assert {
        "reba_score",
        "rula_score",
        "reba_upper_arm_left",
        "rula_wrist_right",
        "trunk_flexion_deg",
        "reba_shoulder_raised_left",
    } <= set(rows[0])
    assert [int(r["reba_trunk"]) for r in rows] == [1] * 10 + [4] * 10
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = html.read_text()
    assert page.count('<img src="data:image/png;base64,') == 3  # scores, two worst poses


def test_factors_file_and_options(stoop_file: Path, tmp_path: Path) -> None:
    f = tmp_path / "f.yaml"
    f.write_text("load_kg: 12\nload_pattern: static\ncoupling: fair\nthresholds:\n  twist: 30\n")
    d = json.loads(
        runner.invoke(app, ["ergo", str(stoop_file), "--factors", str(f), "--json"]).stdout
    )
    assert d["reba"]["per_frame"]["load"] == 2
    assert d["rula"]["per_frame"]["force"] == 3
    assert d["reba"]["per_frame"]["coupling"] == 1
    # Options override the file.
    d = json.loads(
        runner.invoke(
            app, ["ergo", str(stoop_file), "--factors", str(f), "--load", "1", "--json"]
        ).stdout
    )
    assert d["reba"]["per_frame"]["load"] == 0


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--load", "-1"], "--load must be a finite mass >= 0 kg"),
        (["--map", "nosuch"], "unknown body map 'nosuch'"),
        (["--coupling", "tight"], "coupling must be one of"),
        (["--load-pattern", "daily"], "--load-pattern must be one of"),
        (["--plot", "x.jpg"], "must end in .png"),
    ],
)
def test_bad_options_exit_2(stoop_file: Path, args: list[str], needle: str) -> None:
    result = runner.invoke(app, ["ergo", str(stoop_file), *args])
    assert result.exit_code == 2
    assert needle in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_missing_joints_and_bad_map_file_exit_2(stoop_file: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "renamed.bvh"
    renamed.write_text(stoop_file.read_text().replace("l_elbow", "l_forearm"))
    result = runner.invoke(app, ["ergo", str(renamed)])
    assert result.exit_code == 2
    assert "lacks joints REBA and RULA need: ['l_elbow']" in result.output
    bad_map = tmp_path / "map.yaml"
    bad_map.write_text("pelvis: pelvis\nshoulder: [a, b]\n")
    result = runner.invoke(app, ["ergo", str(stoop_file), "--map", str(bad_map)])
    assert result.exit_code == 2
    assert "missing parts" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_map_file_renames_joints(stoop_file: Path, tmp_path: Path) -> None:
    """A skeleton with other joint names scores the same once a map names its joints."""
    from vhuman.ergonomics import STANDARD_BODY_MAP

    renamed = tmp_path / "renamed.bvh"
    renamed.write_text(stoop_file.read_text().replace("l_elbow", "l_forearm"))
    lines = []
    for name, value in vars(STANDARD_BODY_MAP).items():
        v = list(value) if isinstance(value, tuple) else value
        lines.append(f"{name}: {json.dumps(v).replace('l_elbow', 'l_forearm')}")
    m = tmp_path / "map.yaml"
    m.write_text("\n".join(lines) + "\n")
    a = json.loads(runner.invoke(app, ["ergo", str(stoop_file), "--json"]).stdout)
    b = json.loads(runner.invoke(app, ["ergo", str(renamed), "--map", str(m), "--json"]).stdout)
    assert a["reba"]["per_frame"] == b["reba"]["per_frame"]
    assert a["rula"]["per_frame"] == b["rula"]["per_frame"]


def test_help_shows_units() -> None:
    result = runner.invoke(app, ["ergo", "--help"], terminal_width=200)
    assert result.exit_code == 0
    assert "in kg" in result.output


def test_a_negative_load_in_the_factors_file_names_the_file(
    stoop_file: Path, tmp_path: Path
) -> None:
    factors = tmp_path / "factors.yaml"
    factors.write_text("load_kg: -3\n")
    result = runner.invoke(app, ["ergo", str(stoop_file), "--factors", str(factors)])
    assert result.exit_code == 2
    assert f"{factors}: WorkFactors.load_kg must be a finite mass >= 0 kg, got -3" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_missing_joints_is_one_line(stoop_file: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "renamed.bvh"
    renamed.write_text(stoop_file.read_text().replace("l_knee", "l_shin"))
    result = runner.invoke(app, ["ergo", str(renamed)])
    assert result.exit_code == 2
    assert "lacks joints REBA and RULA need: ['l_knee']" in result.output
    assert len(result.output.strip().splitlines()) == 1
