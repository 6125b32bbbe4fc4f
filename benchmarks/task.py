"""Whole maintenance tasks: the shipped examples run end to end, every frame checked.

For each built-in task (``vhuman.task.builtin_tasks``): frames composed, wall
time of ``run_task`` (posture solve, motion composition, every frame checked
against the scene, REBA/RULA) and frames per second of that, and the figures
of the check (``vhuman.task.check``):

- foot slide: the largest horizontal travel per frame [mm] of a heel, ball or
  toe-tip sphere resting on the floor (its bottom within 5 mm) in two
  consecutive frames, out of walking (stance in transitions, turns on the
  spot, postures) and in walking, with the frames above 1 mm/frame;
- contact frames (body in a solid, the floor or the ceiling), static frames
  with the centre of mass outside the support polygon, frames beyond joint
  limits (over 0.06°) and the largest excess;
- the fastest joint rotation [deg/s] between two frames;
- REBA and RULA maxima.

Prints a table and one JSON line (``{"benchmark": "task", ...}``).

Run: ``.venv/bin/python benchmarks/task.py [--only NAME ...] [--seed 0]``
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from rich.console import Console
from rich.table import Table

from headline import figure, run_script
from vhuman.task import builtin_tasks, run_task


def measure(name: str, seed: int) -> dict[str, Any]:
    """Run one task and collect its figures."""
    started = time.perf_counter()
    result = run_task(name, seed=seed)
    wall = time.perf_counter() - started
    m = result.motion
    check = result.check.to_dict()
    return {
        "task": name,
        "status": "done" if result.done else "stopped",
        "frames": m.n_frames,
        "wall_s": wall,
        "frames_per_s": m.n_frames / wall,
        "foot_slide_max_mm_per_frame": check["foot_slide_max_mm_per_frame"],
        "static_frames_feet_sliding": check["static_frames_feet_sliding"],
        "walking_foot_slide_max_mm_per_frame": check["walking_foot_slide_max_mm_per_frame"],
        "walking_frames_feet_sliding": check["walking_frames_feet_sliding"],
        "contact_frames": check["frames_in_contact"],
        "static_frames": check["static_frames"],
        "unbalanced_frames": check["static_frames_unbalanced"],
        "joint_limit_frames": check["frames_beyond_joint_limits"],
        "joint_limit_max_deg": check["joint_limit_violation_max_deg"],
        "joint_speed_max_deg_s": check["joint_speed_max_deg_s"],
        "joint_speed_frames": check["frames_over_joint_speed"],
        "reba_max": int(result.reba.score.max()),
        "rula_max": int(result.rula.score.max()),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", default=None, help="Task names (default: all).")
    parser.add_argument("--seed", type=int, default=0, help="Posture solver seed.")
    args = parser.parse_args()
    rows = [measure(name, args.seed) for name in (args.only or builtin_tasks())]
    table = Table(title="vhuman task: the shipped tasks, every frame checked")
    columns = (
        ("task", "task", "{}"),
        ("frames", "frames", "{:,}"),
        ("wall s", "wall_s", "{:.1f}"),
        ("frames/s", "frames_per_s", "{:.0f}"),
        ("slide mm/frame (stance)", "foot_slide_max_mm_per_frame", "{:.2f}"),
        ("frames sliding", "static_frames_feet_sliding", "{}"),
        ("slide mm/frame (walk)", "walking_foot_slide_max_mm_per_frame", "{:.1f}"),
        ("contact frames", "contact_frames", "{}"),
        ("unbalanced frames", "unbalanced_frames", "{}"),
        ("joint-limit frames", "joint_limit_frames", "{}"),
        ("joint speed max °/s", "joint_speed_max_deg_s", "{:.0f}"),
        ("frames over joint speed limit", "joint_speed_frames", "{}"),
        ("REBA max", "reba_max", "{}"),
        ("RULA max", "rula_max", "{}"),
    )
    for label, _, _ in columns:
        table.add_column(label, justify="left" if label == "task" else "right")
    for row in rows:
        table.add_row(*(fmt.format(row[key]) for _, key, fmt in columns))
    Console(width=190).print(table)
    headline = [
        figure(
            "task",
            f"{r['task']}: max foot slide in stance",
            r[key],
            "mm/frame",
            target=1.0,
            higher_is_better=False,
        )
        for r in rows
        for key in ("foot_slide_max_mm_per_frame",)
    ]
    print(json.dumps({"benchmark": "task", "tasks": rows, "headline": headline}))


if __name__ == "__main__":
    run_script(main)
