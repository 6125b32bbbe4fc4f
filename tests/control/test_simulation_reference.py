"""`simulate` gives the figures recorded in ``data/simulate_reference.json`` (made by the same
runs before the simulation loop was split into its parts): the split changed no result."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from vhuman.control.controller import SIMBICON_FEEDBACK, initial_controller, standing_controller
from vhuman.control.simulation import Push, simulate

REFERENCE = Path(__file__).parent / "data" / "simulate_reference.json"
TIMING = ("sim_speed_x_realtime", "sim_speed_x_realtime_cpu")


def _runs() -> dict[str, dict]:
    walk = initial_controller("walk").with_feedback(SIMBICON_FEEDBACK)
    pushes = [Push(80.0, 0.2, 1.0, "left"), Push(60.0, 0.2, 2.0, "forward")]
    cases = (
        ("walk", walk, 4.0, []),
        ("walk_pushed", walk, 4.0, pushes),
        ("walk_fall", walk, 6.0, [Push(500.0, 0.2, 1.0, "right")]),
        ("stand", standing_controller("standard"), 2.0, [Push(300.0, 0.2, 0.5, "backward")]),
    )
    out = {}
    for name, ctrl, cycles, p in cases:
        result, motion = simulate(replace(ctrl), cycles, pushes=p, record_fps=30.0)
        figures = {k: v for k, v in result.to_dict().items() if k not in TIMING}
        figures["motion_root_sum"] = float(motion.root_positions.sum())
        out[name] = figures
    return out


def test_simulate_gives_the_recorded_figures() -> None:
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    reference = json.loads(REFERENCE.read_text())
    runs = _runs()
    assert runs.keys() == reference.keys()
    for name, figures in runs.items():
        want = reference[name]
        assert figures.keys() == want.keys(), name
        for key, value in figures.items():
            if isinstance(value, float | list | dict) and key != "pushes":
                assert value == pytest.approx(want[key], rel=1e-9, abs=1e-12), (name, key)
            else:
                assert value == want[key], (name, key)
