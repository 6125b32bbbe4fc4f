"""Walks along curved floor paths, measured with the whole-task engine's own checks.

The suite lays :func:`vhuman.task.motion.walk_along` (the task's floor walks) on

- synthetic paths: a straight lead-in, an arc turning 30-180° left or right at a
  radius of 0.3-2 m, and a straight run-out, the arc near the start, in the
  middle or near the end of a short (1.5 m) or long (4 m) path;
- paths from the task's floor planner (:func:`vhuman.task.path.plan_path`,
  Dijkstra on the free floor, shortcut and Chaikin-smoothed) on small scenes of
  boxes, with and without a final heading (the path then arrives straight along
  it);

for the 5th-percentile woman and the 50th- and 95th-percentile man
(:func:`vhuman.posture.worker_skeleton`) at 30 fps (the task files' default).
Each walk is measured as :func:`vhuman.task.check.check_motion` measures a task's
frames: a frame is out of range where a joint lies more than 1e-3 rad beyond its
range (:meth:`vhuman.skeleton.Skeleton.limit_violation`), the feet slide where a
sole sphere on the floor travels more than
:data:`vhuman.skeleton.footskate.SLIDE_TOLERANCE` in a frame, and a joint is too
fast above :func:`vhuman.task.check.joint_speed_limits`. Prints, per joint, the
share of walks with no frame beyond that joint's range and the largest excess
[deg], then the walks' totals and one JSON line.

Run: ``.venv/bin/python benchmarks/walk_paths.py``
"""

from __future__ import annotations

import argparse
import itertools
import json
import time

import numpy as np
from numpy.typing import NDArray
from rich.console import Console
from rich.table import Table

from vhuman.geometry import quat_angle
from vhuman.posture import worker_skeleton
from vhuman.scene import Box, Scene, SceneObject, Target
from vhuman.skeleton.footskate import SLIDE_TOLERANCE, foot_slide
from vhuman.task.check import joint_speed_limits
from vhuman.task.motion import stature, walk_along
from vhuman.task.path import PathBlockedError, floor_grid, plan_path

WORKERS = ("p5-female", "p50-male", "p95-male")
FPS = 30.0
LIMIT_TOLERANCE = 1e-3  # [rad], as the task check
BODY_RADIUS = 0.38  # [m], the task engine's path clearance


def arc_path(
    turn: float, radius: float, where: str, length: float, *, spacing: float = 0.02
) -> NDArray[np.float64]:
    """Floor path ``(K, 2)`` [m]: straight along +x, an arc turning by ``turn`` [rad] (+ left)
    at ``radius`` [m], straight again; the arc's middle at 15 %, 50 % or 85 % (``where`` is
    "start", "middle" or "end") of the path's ``length`` [m] (at least the arc's length)."""
    arc = abs(turn) * radius
    rest = max(length - arc, 0.0)
    share = {"start": 0.15, "middle": 0.5, "end": 0.85}[where]
    before = min(max(share * length - 0.5 * arc, 0.0), rest)
    after = rest - before
    total = before + arc + after
    s = np.linspace(0.0, total, max(3, round(total / spacing)) + 1)
    mid = 0.5 * (s[1:] + s[:-1])
    heading = turn * np.clip((mid - before) / max(arc, 1e-9), 0.0, 1.0)
    ds = np.diff(s)
    x = np.concatenate([[0.0], np.cumsum(np.cos(heading) * ds)])
    y = np.concatenate([[0.0], np.cumsum(np.sin(heading) * ds)])
    return np.stack([x, y], axis=-1)


def synthetic_paths() -> list[tuple[str, NDArray[np.float64]]]:
    """The synthetic suite: turns × radii × places × lengths (arcs longer than the path
    are left out)."""
    out = []
    for deg, radius, where, length in itertools.product(
        (30, 60, 90, 135, 180), (0.3, 0.6, 1.0, 2.0), ("start", "middle", "end"), (1.5, 4.0)
    ):
        if np.radians(deg) * radius > 0.9 * length:
            continue
        for side in (1, -1):
            name = f"arc {side * deg:+d}° r{radius:g} {where} {length:g}m"
            out.append((name, arc_path(side * np.radians(deg), radius, where, length)))
    return out


def _box(name: str, x: float, y: float, sx: float, sy: float) -> SceneObject:
    return SceneObject(name, Box((sx, sy, 1.2)), np.array([x, y, 0.6]), np.array([1.0, 0, 0, 0]))


def scenes() -> list[Scene]:
    """Small scenes of boxes on a 6 × 6 m floor (walls around it)."""
    target = Target(np.array([2.9, 2.9, 1.5]), np.array([1.0, 0, 0, 0]), np.array([1.0, 0, 0]))
    walls = [
        _box("wall_s", 0.0, -3.1, 6.4, 0.2),
        _box("wall_n", 0.0, 3.1, 6.4, 0.2),
        _box("wall_w", -3.1, 0.0, 0.2, 6.4),
        _box("wall_e", 3.1, 0.0, 0.2, 6.4),
    ]
    layouts = {
        "pillar": [_box("pillar", 0.0, 0.0, 0.8, 0.8)],
        "alley": [_box("left", 0.0, 1.0, 3.0, 0.6), _box("right", 0.6, -1.0, 3.0, 0.6)],
        "corner": [_box("block", 1.0, 1.0, 2.0, 2.0), _box("crate", -1.2, -0.6, 0.6, 0.6)],
    }
    return [Scene(name, tuple(walls + objs), target) for name, objs in layouts.items()]


def planner_paths(skeleton_height: float) -> list[tuple[str, NDArray[np.float64]]]:
    """Paths of the floor planner between fixed points of :func:`scenes`, with no final
    heading and with three."""
    rng = np.random.default_rng(7)
    out = []
    for scene in scenes():
        grid = floor_grid(scene, BODY_RADIUS, height=skeleton_height + 0.1)
        found = 0
        while found < 8:
            a, b = rng.uniform(-2.4, 2.4, (2, 2))
            if np.linalg.norm(a - b) < 1.0:
                continue
            heading = [None, *rng.uniform(-np.pi, np.pi, 3)][found % 4]
            try:
                path = plan_path(grid, a, b, goal_heading=heading)
            except PathBlockedError:
                continue
            label = "free" if heading is None else f"{np.degrees(heading):+.0f}°"
            out.append((f"{scene.name} {found} ({label})", path))
            found += 1
    return out


def measure(skeleton, path: NDArray[np.float64]) -> dict:
    """The task check's figures of one walk along ``path``."""
    motion = walk_along(skeleton, path, FPS)
    local = motion.local_rotations
    excess = skeleton.limit_violation(local)  # (N, J) [rad]
    speeds = np.zeros((motion.n_frames, skeleton.n_joints))
    speeds[:-1] = quat_angle(local[:-1], local[1:]) * motion.fps
    ratio = speeds / joint_speed_limits(skeleton)
    slide = foot_slide(motion, 0.0)
    return {
        "excess": excess.max(axis=0),
        "frames_out": int(np.sum(excess.max(axis=-1) > LIMIT_TOLERANCE)),
        "frames": motion.n_frames,
        "speed_ratio": float(ratio.max()),
        "fastest": skeleton.names[int(np.argmax(ratio.max(axis=0)))],
        "slide_mm": float(1e3 * slide.max()) if len(slide) else 0.0,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json-only", action="store_true", help="print only the JSON line")
    args = ap.parse_args()
    started = time.perf_counter()
    rows = []
    for worker in WORKERS:
        sk = worker_skeleton(worker)
        suites = {"synthetic": synthetic_paths(), "planner": planner_paths(stature(sk))}
        for suite, paths in suites.items():
            for name, path in paths:
                rows.append({"worker": worker, "suite": suite, "path": name} | measure(sk, path))
    names = worker_skeleton(WORKERS[0]).names
    excess = np.stack([r["excess"] for r in rows])  # (W, J)
    out = excess > LIMIT_TOLERANCE
    legs = ("l_hip", "r_hip", "l_knee", "r_knee", "l_ankle", "r_ankle")
    joints = [j for j in range(len(names)) if out[:, j].any() or names[j] in legs]
    summary = {
        "walks": len(rows),
        "walks_in_range": float(np.mean(~out.any(axis=1))),
        "per_joint": {
            names[j]: {
                "in_range": float(np.mean(~out[:, j])),
                "worst_deg": float(np.degrees(excess[:, j].max())),
            }
            for j in joints
        },
        "frames_out": int(sum(r["frames_out"] for r in rows)),
        "frames": int(sum(r["frames"] for r in rows)),
        "worst_speed_ratio": max(r["speed_ratio"] for r in rows),
        "walks_too_fast": int(sum(r["speed_ratio"] > 1.0 for r in rows)),
        "too_fast_joints": sorted({r["fastest"] for r in rows if r["speed_ratio"] > 1.0}),
        "walks_sliding": int(sum(r["slide_mm"] > 1e3 * SLIDE_TOLERANCE for r in rows)),
        "worst_slide_mm": max(r["slide_mm"] for r in rows),
        "by_suite": {
            suite: float(
                np.mean(
                    [~(r["excess"] > LIMIT_TOLERANCE).any() for r in rows if r["suite"] == suite]
                )
            )
            for suite in ("synthetic", "planner")
        },
        "seconds": time.perf_counter() - started,
    }
    if not args.json_only:
        console = Console()
        table = Table(title=f"{len(rows)} walks along curved paths: joints beyond their ranges")
        for col in ("joint", "walks in range", "worst excess [deg]"):
            table.add_column(col)
        for name, fig in summary["per_joint"].items():
            table.add_row(name, f"{100 * fig['in_range']:.1f} %", f"{fig['worst_deg']:.2f}")
        console.print(table)
        worst = sorted((r for r in rows if r["frames_out"]), key=lambda r: -r["excess"].max())[:8]
        for r in worst:
            j = int(np.argmax(r["excess"]))
            console.print(
                f"  {r['worker']:9s} {r['path']:32s} {names[j]} "
                f"{np.degrees(r['excess'][j]):.2f}° ({r['frames_out']} frames)"
            )
        console.print(
            f"all joints in range: {100 * summary['walks_in_range']:.1f} % of walks "
            f"(synthetic {100 * summary['by_suite']['synthetic']:.1f} %, planner "
            f"{100 * summary['by_suite']['planner']:.1f} %); frames out of range "
            f"{summary['frames_out']} of {summary['frames']}; walks with a sliding foot "
            f"{summary['walks_sliding']} (worst {summary['worst_slide_mm']:.2f} mm/frame); "
            f"walks with a joint over its speed limit {summary['walks_too_fast']} "
            f"({', '.join(summary['too_fast_joints']) or 'none'}; fastest "
            f"{summary['worst_speed_ratio']:.2f} of its limit)"
        )
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
