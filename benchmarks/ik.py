"""IK solvers side by side: CCD, two-stage CCD, FABRIK, DLS (vhuman) and ikpy.

The same seeded random reachable targets for every solver, on a 7-DOF arm and
on whole-body reaches of the standard humanoid; see `vhuman.ik.benchmark` for
the problems and the targets. The tables are those of `vhuman ik bench`, on
one core, followed by one JSON line.

Run: ``.venv/bin/python benchmarks/ik.py [--targets N] [--batch B] [--seed S] [--sweep-switch]``
"""

from __future__ import annotations

import os

# One core: set before numpy loads its BLAS.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
from typing import Any

from rich.console import Console

from headline import figure
from vhuman.cli.app import print_ik_tables
from vhuman.ik.benchmark import run_benchmark


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=200, help="targets solved one at a time")
    parser.add_argument("--batch", type=int, default=1000, help="targets solved in one call")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random targets")
    parser.add_argument("--sweep-switch", action="store_true", help="sweep the switch distance")
    args = parser.parse_args()
    result = run_benchmark(args.targets, args.batch, args.seed, sweep=args.sweep_switch)
    print_ik_tables(result, Console(width=150, highlight=False))
    print(json.dumps({"benchmark": "ik", **result, "headline": headline(result)}, default=str))


def headline(result: dict[str, Any]) -> list[dict[str, Any]]:
    """CCD beside ikpy on the 7-DOF arm; two-stage CCD's joint updates beside full CCD's."""
    by = {(r["solver"], r["problem"]): r for r in result["rows"]}
    ccd, body_ccd, two = by["CCD", "arm7"], by["CCD", "body"], by["two-stage CCD", "body"]
    rows = [
        figure(
            "IK",
            "two-stage CCD updates, body batch",
            two["batch_mean_joint_updates"],
            "updates",
            peer="full CCD",
            peer_value=body_ccd["batch_mean_joint_updates"],
            target=1 / (1 - 0.4),
            higher_is_better=False,
        ),
    ]
    if ("ikpy", "arm7") in by:
        ikpy = by["ikpy", "arm7"]
        rows += [
            figure(
                "IK",
                "CCD solve, 7-DOF arm, median",
                ccd["median_ms"],
                "ms",
                peer="ikpy",
                peer_value=ikpy["median_ms"],
                target=5.0,
                higher_is_better=False,
            ),
            figure(
                "IK",
                "CCD batched solves, 7-DOF arm",
                ccd["batch_solves_per_s"],
                "solves/s",
                peer="ikpy",
                peer_value=ikpy["batch_solves_per_s"],
                target=100.0,
            ),
        ]
    return rows


if __name__ == "__main__":
    main()
