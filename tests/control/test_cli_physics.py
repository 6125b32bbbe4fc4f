"""`vhuman physics` sub-app (tested on its own Typer app)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from vhuman.cli.physics import physics_app
from vhuman.control.controller import standing_controller

runner = CliRunner()


def test_simulate_standing_controller_json_and_bvh(tmp_path) -> None:
    path = tmp_path / "stand.json"
    standing_controller("standard").save(path)
    out = tmp_path / "sim.bvh"
    args = ["simulate", "--controller", str(path), "--cycles", "1", "--push", "50:0.2:0.5"]
    res = runner.invoke(physics_app, [*args, "-o", str(out), "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    for key in ("cycles_completed", "fell", "tracking_rmse_rad", "energy_j",
                "sim_speed_x_realtime"):  # fmt: skip
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
