"""`vhuman demo` on embedded defaults writes the report and the files it names."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from vhuman.cli import app


def test_demo_writes_report(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    report = Path(summary["report"])
    assert report.stat().st_size > 1_000_000
    walk = summary["cmu_walk"]
    assert walk["frames"] > 300
    assert walk["bvh_round_trip_max_error_m"] < 1e-5
    for name in walk["files"]:
        assert (out / name).stat().st_size > 0
    assert json.loads((out / "summary.json").read_text())["report"] == summary["report"]
    assert not list(out.glob(".*"))  # no temporary file left behind
