"""`vhuman posture` through Typer's CliRunner: outputs, JSON figures, bad input → exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from vhuman.cli.posture import posture

app = typer.Typer()
app.command()(posture)
app.command("noop")(lambda: None)  # two commands: "posture" is then a subcommand
runner = CliRunner()


def test_ship_valve_writes_everything(tmp_path: Path) -> None:
    res = runner.invoke(app, ["posture", "--scene", "ship-valve", "-o", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    for key in (
        "collisions",
        "min_clearance_mm",
        "reach_position_error_mm",
        "reach_orientation_error_deg",
        "reba_score",
        "reba_action_level",
        "rula_score",
        "library_posture",
        "solve_time_s",
    ):
        assert key in d
    assert d["collisions"] == 0
    assert d["status"] == "reached"
    for name in ("posture.bvh", "posture.json", "pareto.png", "view.html", "report.html"):
        assert (tmp_path / name).stat().st_size > 100, name
    saved = json.loads((tmp_path / "posture.json").read_text())
    assert len(saved["pose"]["local_rotations_wxyz"]) == 23
    assert saved["reba"]["score"] == [d["reba_score"]]


BAD_SCENE = """name: bad
target: {position: [0.5, 0, 0.5], approach: [1, 0, 0]}
objects:
  - {name: box, type: box, size: [1, -2, 1], position: [2, 0, 0.5]}
"""


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scene", "{bad}"], "objects[0].size"),
        (["--scene", "{nan}"], "target.position"),
        (["--scene", "ship-valve", "--target", "1.3", "0", "0.6"], "inside"),
        (["--scene", "ship-valve", "--body", "giant"], "p95-male"),
        (["--scene", "nowhere"], "built-in scenes"),
    ],
)
def test_bad_input_exits_2(tmp_path: Path, args: list[str], message: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(BAD_SCENE)
    nan = tmp_path / "nan.yaml"
    nan.write_text(BAD_SCENE.replace("[0.5, 0, 0.5]", "[.nan, 0, 0.5]").replace("-2", "2"))
    args = [a.format(bad=bad, nan=nan) for a in args]
    res = runner.invoke(app, ["posture", *args, "-o", str(tmp_path / "out")])
    assert res.exit_code == 2, res.output
    assert message in res.output
    assert "Traceback" not in res.output
