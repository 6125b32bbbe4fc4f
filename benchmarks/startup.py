"""Start-up time of the command line: `vhuman --help` and `vhuman info` on a small BVH file.

Each command runs as a fresh process; the figure is the best wall time of ``--repeats`` runs
beside a bare ``python -c pass`` (the interpreter's own start) and the targets (0.25 s for
``--help``, 0.35 s for ``info``). Prints a table, then one JSON line.

Run: ``.venv/bin/python benchmarks/startup.py [--repeats N]``
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

from headline import figure, run_script
from vhuman.io import save_motion
from vhuman.skeleton import Motion, standard_humanoid


def best_wall(command: list[str], repeats: int) -> float:
    """Smallest wall time [s] of ``repeats`` runs of ``command``."""
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7, help="runs per command (best kept)")
    args = parser.parse_args()
    vhuman = shutil.which("vhuman", path=str(Path(sys.executable).parent)) or "vhuman"
    with tempfile.TemporaryDirectory() as tmp:
        small = Path(tmp) / "small.bvh"
        save_motion(Motion.rest(standard_humanoid(), n_frames=60), small)
        rows = [
            ("python -c pass", [sys.executable, "-c", "pass"], None),
            ("vhuman --help", [vhuman, "--help"], 0.25),
            ("vhuman info small.bvh", [vhuman, "info", str(small)], 0.35),
        ]
        times = {name: best_wall(cmd, args.repeats) for name, cmd, _ in rows}
    table = Table(title=f"start-up, best of {args.repeats} (load {os.getloadavg()[0]:.1f})")
    for col in ("command", "wall s", "target s", "met"):
        table.add_column(col, justify="left" if col == "command" else "right")
    for name, _, target in rows:
        met = "-" if target is None else ("yes" if times[name] <= target else "NO")
        table.add_row(name, f"{times[name]:.3f}", "-" if target is None else f"{target}", met)
    Console(highlight=False).print(table)
    headline = [
        figure("start-up", name, times[name], "s", target=target, higher_is_better=False)
        for name, _, target in rows
        if target is not None
    ]
    print(
        json.dumps(
            {
                "benchmark": "startup",
                "wall_s": times,
                "load_average_1min": os.getloadavg()[0],
                "headline": headline,
            }
        )
    )


if __name__ == "__main__":
    run_script(main)
