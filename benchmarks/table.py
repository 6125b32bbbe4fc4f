"""Every benchmark in one run, and one table of their headline figures beside their peers.

Runs each script of ``benchmarks/`` as its own process (in turn, so they do
not compete for the cores), keeps each one's full output in
``--out/<name>.txt`` and collects the ``"headline"`` figures of its JSON line
(see ``headline.py``): each beside the peer or limit it is judged against,
measured in the same run. ``--quick`` runs every part on a smaller workload
(under two minutes here); the default runs each as ``make bench`` did. Parts
that need data absent on this machine say so in the table instead of a figure.

Prints the table, then one JSON line (``{"benchmark": "table", ...}``).
Exits 1 when a part fails.

Run: ``.venv/bin/python benchmarks/table.py [--quick] [--only NAME ...] [--out DIR]``
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from headline import run_script
from vhuman.cli.tables import print_table
from vhuman.errors import InputError
from vhuman.io import atomic_write, check_writable

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Part:
    """One benchmark script and its arguments for a quick and a full run."""

    name: str
    script: str
    quick: tuple[str, ...]
    full: tuple[str, ...] = ()


PARTS = (
    Part(
        "fk",
        "fk.py",
        ("--frames", "10000", "--repeats", "3", "--growth", "1000", "10000", "100000"),
    ),
    Part("bvh", "bvh.py", ("--frames", "500", "5000", "--repeats", "2", "--bvhio-max", "5000")),
    Part("startup", "startup.py", ("--repeats", "3")),
    Part("ik", "ik.py", ("--targets", "20", "--batch", "1000")),
    Part("posture", "posture.py", ("--only", "low-valve-duct", "overhead-panel", "beyond-reach")),
    Part(
        "posture-growth",
        "posture.py",
        ("--clutter", "10", "1000"),
        ("--clutter", "10", "100", "1000", "10000"),
    ),
    Part("ergonomics", "ergonomics.py", ("--frames", "20000", "--loop-frames", "200")),
    Part("walking", "walking.py", ()),
    Part("reach", "reach.py", ("--reaches", "100", "--ikpy", "10", "--workspace-step", "4")),
    Part(
        "physics",
        "physics.py",
        ("--skip-ablation", "--skip-refine", "--skip-pushes", "--speed-seconds", "5"),
    ),
    Part("task", "task.py", ("--only", "ship-valve")),
    Part("prediction", "prediction.py", ()),
    Part("prediction-literature", "prediction_literature.py", ()),
)


def run_part(part: Part, quick: bool, out: Path) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Run one script; its headline figures and how the run went (status, seconds, reason)."""
    args = part.quick if quick else part.full
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, str(HERE / part.script), *args],
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - started
    atomic_write(out / f"{part.name}.txt", proc.stdout + proc.stderr)
    info: dict[str, Any] = {"seconds": seconds, "command": [part.script, *args]}
    if proc.returncode != 0:
        tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-1:] or [""]
        return [], {**info, "status": "failed", "reason": f"exit {proc.returncode}: {tail[0]}"}
    result = last_json(proc.stdout)
    if result is None:
        return [], {**info, "status": "failed", "reason": "no JSON line in its output"}
    if "skipped" in result:
        return [], {**info, "status": "skipped", "reason": str(result["skipped"])}
    if "headline" not in result:
        return [], {**info, "status": "failed", "reason": "its JSON line has no headline"}
    return list(result["headline"]), {**info, "status": "ok"}


def last_json(stdout: str) -> dict[str, Any] | None:
    """The last line of ``stdout`` that is a JSON object, or ``None``."""
    for line in reversed(stdout.splitlines()):
        line = line.strip()
        if line.startswith("{"):
            try:
                value = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(value, dict):
                return value
    return None


def number(value: float) -> str:
    """A figure with three significant digits, thousands grouped."""
    if value == 0 or abs(value) >= 100:
        return f"{value:,.0f}"
    return f"{value:.3g}"


def with_unit(value: float, unit: str, *, show_unit: bool = True) -> str:
    """``value`` and its unit (or only the value), large rates in millions."""
    shown = unit if show_unit else ""
    if abs(value) >= 1e6 and unit.endswith("/s"):
        return f"{number(value / 1e6)} M {shown}".strip()
    return f"{number(value)} {shown}".strip()


def target_text(row: dict[str, Any]) -> str:
    """The target as written: a ratio to the peer, or a limit in the figure's unit."""
    if row.get("target") is None:
        return ""
    sign = "≥" if row["higher_is_better"] or row.get("peer") is not None else "≤"
    if row.get("peer") is not None:
        return f"{sign} {row['target']:.3g}×"
    return f"{sign} {with_unit(row['target'], row['unit'])}"


def build_table(figures: list[dict[str, Any]], parts: dict[str, dict[str, Any]]) -> Table:
    """One row per headline figure; one row per part that gave none, with its reason."""
    table = Table(title="vhuman benchmarks")
    for header in ("engine", "figure", "vhuman", "peer or limit", "×", "target", "met"):
        table.add_column(header, justify="right" if header in ("vhuman", "×") else "left")
    for row in figures:
        peer = ""
        if row.get("peer") is not None:
            peer = row["peer"]
            if row.get("peer_value") is not None:  # in the unit of the vhuman column
                peer += f" {with_unit(row['peer_value'], row['unit'], show_unit=False)}"
        ratio = "" if row.get("ratio") is None else f"{row['ratio']:.2f}"
        met = {True: "yes", False: "NO", None: ""}[row.get("met")]
        value = with_unit(row["value"], row["unit"])
        table.add_row(row["engine"], row["figure"], value, peer, ratio, target_text(row), met)
    for name, info in parts.items():
        if info["status"] != "ok":
            table.add_row(name, f"{info['status']}: {info['reason']}", "", "", "", "", "")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller workloads (< 2 min)")
    names = [p.name for p in PARTS]
    parser.add_argument("--only", nargs="+", choices=names, help="run only these parts")
    parser.add_argument(
        "--out", type=Path, default=HERE.parent / "out" / "bench", help="full outputs"
    )
    args = parser.parse_args()
    selected = [p for p in PARTS if not args.only or p.name in args.only]
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"--out {args.out}: cannot create it ({exc.strerror})") from None
    for part in selected:
        check_writable(args.out / f"{part.name}.txt", "--out")
    console = Console(stderr=True)
    figures: list[dict[str, Any]] = []
    parts: dict[str, dict[str, Any]] = {}
    started = time.perf_counter()
    for part in selected:
        with console.status(f"{part.name} ({part.script})"):
            rows, info = run_part(part, args.quick, args.out)
        console.print(f"{part.name}: {info['status']} in {info['seconds']:.1f} s")
        figures += rows
        parts[part.name] = info
    total = time.perf_counter() - started
    # A terminal gets its own width; a file or pipe 150 columns, so the table stays one table.
    print_table(build_table(figures, parts), Console(width=None if sys.stdout.isatty() else 150))
    print(f"{len(parts)} parts in {total:.0f} s; full outputs in {args.out}/")
    summary = {"benchmark": "table", "quick": args.quick, "seconds": total}
    print(json.dumps({**summary, "figures": figures, "parts": parts}))
    if any(info["status"] == "failed" for info in parts.values()):
        sys.exit(1)


if __name__ == "__main__":
    run_script(main)
