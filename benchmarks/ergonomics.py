"""REBA and RULA: agreement with the published cases, and scoring speed on a long recording.

1. Every case of ``vhuman/data/ergonomics/published_cases.yaml`` (band edges worded in
   Hignett & McAtamney 2000 and McAtamney & Corlett 1993, load/force classes, published
   scored examples) scored through the public API: expected and obtained scores side by side,
   and per method the count of independent worked examples (scored by someone else): the
   cases, the worked examples (postures) they come from, and how many of those examples
   are checked up to their final score.
2. `vhuman.ergonomics.assess_motion` (both methods, both sides, every intermediate score)
   on a 100,000-frame recording: the embedded CMU walking trial tiled end to end. The peer
   is the same call made frame by frame (one `Motion` per frame), timed on the first
   ``--loop-frames`` frames; its 100,000-frame time is that rate extrapolated (marked so).
   Batched times are the median of three runs.

Run: ``.venv/bin/python benchmarks/ergonomics.py [--frames N] [--loop-frames N] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

from headline import figure, run_script
from vhuman.ergonomics import WorkFactors, assess_motion, body_angles
from vhuman.ergonomics.validation import check_case, published_cases
from vhuman.io import cmu_walking_example
from vhuman.skeleton import Motion


def agreement() -> list[dict[str, Any]]:
    """Every published case, checked."""
    return [check_case(m, c).to_dict() for m, cases in published_cases().items() for c in cases]


def long_motion(frames: int) -> Motion:
    """The embedded CMU walking trial (120 fps) tiled to ``frames`` frames."""
    m = cmu_walking_example()
    reps = -(-frames // m.n_frames)
    q = np.tile(m.local_rotations, (reps, 1, 1))[:frames]
    root = np.tile(m.root_positions, (reps, 1))[:frames]
    return Motion(m.skeleton, m.fps, root, q)


def speed(frames: int, loop_frames: int) -> dict[str, Any]:
    """Batched scoring of ``frames`` frames against frame-by-frame scoring."""
    motion = long_motion(frames)
    factors = WorkFactors(load_kg=6.0, coupling="fair", static=True)
    runs = []
    for _ in range(3):  # median of three: the first run also pays for page faults
        t0 = time.perf_counter()
        result = assess_motion(motion, factors)
        runs.append(time.perf_counter() - t0)
    t_assess = float(np.median(runs))
    runs = []
    for _ in range(3):
        t0 = time.perf_counter()
        angles = body_angles(motion)
        runs.append(time.perf_counter() - t0)
    t_angles = float(np.median(runs))
    n = min(loop_frames, frames)
    t3 = time.perf_counter()
    loop_scores = [
        int(
            assess_motion(
                Motion(
                    motion.skeleton,
                    motion.fps,
                    motion.root_positions[k : k + 1],
                    motion.local_rotations[k : k + 1],
                ),
                factors,
            ).reba.score[0]
        )
        for k in range(n)
    ]
    t4 = time.perf_counter()
    assert loop_scores == result.reba.score[:n].tolist()  # same answers, only slower
    loop_rate = n / (t4 - t3)
    return {
        "frames": frames,
        "body_angles_s": t_angles,
        "assess_motion_s": t_assess,
        "batched_frames_per_s": frames / t_assess,
        "loop_frames_timed": n,
        "loop_frames_per_s": loop_rate,
        "loop_s_extrapolated": frames / loop_rate,
        "speedup": (frames / t_assess) / loop_rate,
        "max_reba": int(result.reba.score.max()),
        "max_rula": int(result.rula.score.max()),
        "angles_shape": list(angles.shape),
    }


def independent_counts(checks: list[dict[str, Any]], method: str) -> dict[str, int]:
    """Independent cases of ``method``: how many, how many agree, from how many worked
    examples (postures) whose every case agrees, how many of those examples are checked up
    to the final score, and how many cases agree only after a printed score was resolved."""
    cases = [c for c in checks if c["method"] == method and c["independent"]]
    examples: dict[str, list[dict[str, Any]]] = {}
    for c in cases:
        examples.setdefault(c["example"], []).append(c)
    agreeing = {e for e, cs in examples.items() if all(c["agrees"] for c in cs)}
    return {
        "cases": len(cases),
        "agree": sum(c["agrees"] for c in cases),
        "examples": len(agreeing),
        "examples_final": sum(any("score" in c["expected"] for c in examples[e]) for e in agreeing),
        "resolved": sum(c["published"] is not None for c in cases),
    }


def headline(summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Agreement with the published cases; batched scoring beside frame-by-frame scoring."""
    rows = [
        figure(
            "ergonomics",
            f"{m.upper()} published cases ({summary['cases'][m]})",
            100 * summary["agree"][m] / max(summary["cases"][m], 1),
            "%",
            target=100.0,
        )
        for m in ("reba", "rula")
    ]
    rows += [
        figure(
            "ergonomics",
            f"{m.upper()} worked examples, independent",
            float(summary["independent"][m]["examples"]),
            "examples",
            target=10.0,
        )
        for m in ("reba", "rula")
    ]
    rows.append(
        figure(
            "ergonomics",
            f"REBA + RULA, {summary['frames']:,} frames",
            summary["batched_frames_per_s"],
            "frames/s",
            peer="frame by frame",
            peer_value=summary["loop_frames_per_s"],
        )
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=100_000)
    parser.add_argument("--loop-frames", type=int, default=500)
    parser.add_argument("--json", action="store_true", help="print only the JSON line")
    args = parser.parse_args()

    checks = agreement()
    perf = speed(args.frames, args.loop_frames)
    summary = {
        "benchmark": "ergonomics",
        "cases": {m: sum(c["method"] == m for c in checks) for m in ("reba", "rula")},
        "agree": {
            m: sum(c["agrees"] for c in checks if c["method"] == m) for m in ("reba", "rula")
        },
        "independent": {m: independent_counts(checks, m) for m in ("reba", "rula")},
        **perf,
    }
    summary["headline"] = headline(summary)
    if not args.json:
        console = Console(width=160, highlight=False)
        table = Table(title="Published REBA/RULA cases scored by vhuman")
        for col in ("method", "case", "independent", "source", "published", "vhuman", "agree"):
            table.add_column(col, overflow="fold")
        for c in checks:
            table.add_row(
                c["method"].upper(),
                c["id"],
                f"yes ({c['example']})" if c["independent"] else "no",
                c["source"],
                json.dumps(c["expected"]),
                json.dumps(c["got"]),
                "yes" if c["agrees"] else "NO",
            )
        console.print(table)
        for c in checks:
            if c["published"] is not None:
                console.print(
                    f"{c['method'].upper()} {c['id']}: the source printed "
                    f"{json.dumps(c['published'])}; {c['note']}"
                )
        for m in ("reba", "rula"):
            ind = summary["independent"][m]
            console.print(
                f"{m.upper()}: {summary['agree'][m]} of {summary['cases'][m]} cases agree; "
                f"independent: {ind['agree']} of {ind['cases']} cases agree ({ind['resolved']} "
                "only after resolving a printed score by the paper's wording), from "
                f"{ind['examples']} worked examples, {ind['examples_final']} of them checked "
                "up to the final score"
            )
        t = Table(title=f"Scoring {perf['frames']:,} frames (CMU walking trial, 38 joints)")
        for col in ("method", "time s", "frames/s"):
            t.add_column(col, justify="left" if col == "method" else "right")
        t.add_row(
            "assess_motion, batched (body angles + REBA + RULA)",
            f"{perf['assess_motion_s']:.2f}",
            f"{perf['batched_frames_per_s']:,.0f}",
        )
        t.add_row(
            "  of which body_angles (FK and angles; timed on its own)",
            f"{perf['body_angles_s']:.2f}",
            "",
        )
        t.add_row(
            f"assess_motion frame by frame ({perf['loop_frames_timed']} frames timed; "
            "time extrapolated)",
            f"{perf['loop_s_extrapolated']:.1f}",
            f"{perf['loop_frames_per_s']:,.0f}",
        )
        console.print(t)
        console.print(f"batched is {perf['speedup']:.0f}× the frame-by-frame rate")
    print(json.dumps(summary))


if __name__ == "__main__":
    run_script(main)
