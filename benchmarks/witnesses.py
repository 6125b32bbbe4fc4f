"""Find and store a witness posture for every feasible scene of the posture suite.

Brute force (:func:`vhuman.posture.suite.find_witness`): every library posture
at 10° headings on a 5 cm pelvis grid, closed-form arm IK over 72 swivel
angles, the full-body check. Prints per scene whether a witness was found, its
posture, the checks it took and the time; writes ``witnesses/<name>.json`` of
the built-in suite (only with ``--write``).

Run: ``.venv/bin/python benchmarks/witnesses.py [--write] [--only NAME ...] [--infeasible]``
"""

from __future__ import annotations

import argparse
import json
import time

from headline import run_script
from vhuman.posture import load_library, worker_skeleton
from vhuman.posture.suite import find_witness, load_suite
from vhuman.scene import BodyModel, CollisionWorld


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="store the witnesses found")
    ap.add_argument("--only", nargs="*", default=None, help="scene names to search")
    ap.add_argument(
        "--infeasible",
        action="store_true",
        help="also search the infeasible scenes (exhaustive, minutes each)",
    )
    args = ap.parse_args()
    rows = []
    for case in load_suite():
        if (args.only and case.name not in args.only) or not (case.feasible or args.infeasible):
            continue
        sk = worker_skeleton(case.worker)
        body = BodyModel.from_skeleton(sk, samples_per_segment=8)
        lib = load_library(sk, body=body)
        scene = case.scene()
        t0 = time.perf_counter()
        wit, checks = find_witness(scene, lib, body, side=case.side, world=CollisionWorld(scene))
        dt = time.perf_counter() - t0
        found = wit is not None
        if found and args.write and case.feasible:
            from dataclasses import replace

            case.save_witness(replace(wit, worker=case.worker))
        row = {
            "scene": case.name,
            "expect": case.expect,
            "witness": found,
            "posture": wit.posture if wit else "-",
            "checks": checks,
            "time_s": dt,
        }
        rows.append(row)
        print(
            f"{case.name:>24s} {case.expect:>12s} {'found' if found else 'none':>6s} "
            f"{row['posture']:>20s} {checks:6d} checks {dt:6.1f} s",
            flush=True,
        )
    print(json.dumps({"rows": rows}))


if __name__ == "__main__":
    run_script(main)
