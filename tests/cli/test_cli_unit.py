"""`--unit` of the commands that read motion files: BVH lengths in m, cm, mm, in or auto."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from vhuman.cli import app
from vhuman.io import load_motion

runner = CliRunner()
CM_FILE = Path(__file__).parents[1] / "io" / "fixtures" / "wild" / "pybvh_mixed_channel_orders.bvh"


def info(*args: str) -> dict:
    result = runner.invoke(app, ["info", str(CM_FILE), "--json", *args])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_info_reports_the_unit_auto_chose_and_a_human_height() -> None:
    auto, metres = info("--unit", "auto"), info()
    assert auto["unit"] == "cm (auto)"
    assert metres["unit"] == "m"
    assert 1.4 < auto["height_m"] < 2.0
    assert metres["height_m"] == pytest.approx(auto["height_m"] * 100)


def test_convert_and_view_take_the_unit(tmp_path: Path) -> None:
    out = tmp_path / "m.npz"
    result = runner.invoke(app, ["convert", str(CM_FILE), str(out), "--unit", "cm"])
    assert result.exit_code == 0, result.output
    converted, cm = load_motion(out), load_motion(CM_FILE, unit="cm")
    assert np.allclose(converted.global_positions, cm.global_positions)
    html = tmp_path / "v.html"
    result = runner.invoke(app, ["view", str(CM_FILE), "-o", str(html), "--unit", "auto"])
    assert result.exit_code == 0, result.output
    assert html.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--unit", "ft"], "unit must be one of m, cm, mm, in or auto"),
        (["--unit", "cm", "npz"], "applies to BVH files only"),
    ],
)
def test_bad_units_exit_2_with_one_line(args: list[str], message: str, tmp_path: Path) -> None:
    source = CM_FILE
    if args[-1] == "npz":
        source = tmp_path / "m.npz"
        assert runner.invoke(app, ["convert", str(CM_FILE), str(source)]).exit_code == 0
        args = args[:-1]
    result = runner.invoke(app, ["info", str(source), *args])
    assert result.exit_code == 2
    assert message in result.output
