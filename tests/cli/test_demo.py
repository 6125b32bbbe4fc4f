"""`vhuman demo` on embedded defaults writes the report and the files it names."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from vhuman.cli import app


def test_demo_writes_report(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    result = CliRunner().invoke(app, ["demo", "-o", str(out), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    report = Path(summary["report"])
    assert 1_000_000 < report.stat().st_size <= 10_000_000  # one file, plotly.js embedded once
    page = report.read_text(encoding="utf-8")
    glance = page[page.index('<section id="at-a-glance">') : page.index('<nav class="toc">')]
    # One summary row per part, each linking to its section.
    assert glance.count('<tr><td><a href="#') == 8
    assert page.count('"name":"body"') >= 6  # a shaded body in every motion viewer
    assert "true future" in page
    assert "joint error [mm]" in page  # the prediction's body coloured by its joint errors
    assert '"name":"reference clip"' in page  # the physics walk beside the clip it tracks
    assert '"name":"generated walk"' in page  # the CMU walk beside a generated one
    walk = summary["cmu_walk"]
    assert walk["frames"] > 300
    round_trips = {
        (clip, key): figures[key]
        for clip, figures in summary.items()
        if isinstance(figures, dict)
        for key in figures
        if key.endswith("round_trip_max_error_m")
    }
    assert {clip for clip, _ in round_trips} == {"generated_walk", "cmu_walk", "deepmimic_walk"}
    for where, error in round_trips.items():
        assert error < 1e-5, where  # below 0.01 mm, joints compared by name
    for name in walk["files"]:
        assert (out / name).stat().st_size > 0
    reach = summary["reach"]
    assert reach["final_position_error_mm"] < 1e-6
    assert reach["joint_limit_violations"] == 0
    assert reach["peak_to_mean_speed"] > 1.8
    for name in reach["files"]:
        assert (out / name).stat().st_size > 0
    posture = summary["posture"]
    assert posture["collisions"] == 0
    assert posture["reach_position_error_mm"] < 5.0
    for name in posture["files"]:
        assert (out / name).stat().st_size > 0
    task = summary["task"]
    assert task["status"] == "done"
    assert task["first_contact"] is None
    assert task["check"]["frames_checked"] == task["frames"]
    for name in task["files"].values():
        assert (out / name).stat().st_size > 0
    prediction = summary["prediction"]
    mean = prediction["mpjpe_mm_mean"]
    assert mean["transformer"] < mean["zero velocity"]
    for name in prediction["files"]:
        assert (out / name).stat().st_size > 0
    physics = summary["physics"]
    assert not physics["fell"]
    assert physics["cycles_completed"] == 8
    # The demo's Pareto plot (tracking, energy) shows a front: several non-dominated parents.
    f = np.array(physics["demo_evolution"]["parent_objectives"])[:, :2]
    dominated = [bool(np.any(np.all(f <= x, axis=1) & np.any(f < x, axis=1))) for x in f]
    assert dominated.count(False) >= 3
    beside = summary["cmu_walk"]["generated_beside"]
    assert 1.2 < beside["speed_m_s"] < 1.6  # the generated walk at the CMU walk's speed
    for name in physics["files"]:
        assert (out / name).stat().st_size > 0
    assert json.loads((out / "summary.json").read_text())["report"] == summary["report"]
    assert not list(out.glob(".*"))  # no temporary file left behind


def test_demo_without_pybullet_data_skips_deepmimic(tmp_path: Path, monkeypatch) -> None:
    import vhuman.io
    from vhuman.errors import InputError

    def missing(name: str) -> Path:
        raise InputError("DeepMimic clips need pybullet (pip install vhuman[data])")

    monkeypatch.setattr(vhuman.io, "deepmimic_clip_path", missing)
    result = CliRunner().invoke(app, ["demo", "-o", str(tmp_path / "d"), "--json"])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert summary["deepmimic"].startswith("skipped")
    assert "deepmimic_walk" not in summary
    assert summary["physics"].startswith("skipped")
