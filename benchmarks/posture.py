"""Maintenance posture on the scene suite: our solver beside the whole-body GA baseline.

The suite (``vhuman/data/scenes/suite``, see :mod:`vhuman.posture.suite`)
holds scenes written from maintenance situations, each with its worker and
working hand, feasible ones proven by a stored witness posture and
infeasible ones with the expected reason. Per scene and method: solved, solve
time, hand error, contacts, balance margin, REBA and RULA; then the share of
feasible scenes solved, the infeasible ones reported correctly, and the median
and largest solve times.

A feasible scene counts as solved when the method says ``reached`` and an
independent re-check of its output agrees: the hand by forward kinematics
within 5 mm and 3° of the target, no contact in the full-body collision test,
the joints within their limits and the centre of mass over the support
(:func:`vhuman.posture.check.check_posture`). An infeasible scene is handled
when our solver says ``unreachable`` with the expected reason (the baseline
gives no reason: it counts when it does not claim ``reached``).

With ``--clutter N ...`` it times instead one suite scene with N extra objects
strewn over a 30 m hall: written to a file, read back and solved (the
occupancy grid covers 4 m around the target; the exact queries prune object
pairs by bounding boxes).

Run: ``.venv/bin/python benchmarks/posture.py [--seed N] [--no-baseline] [--only NAME ...]
[--json FILE] [--clutter N ...]``
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

from headline import figure, run_script
from vhuman.io import atomic_write, check_writable
from vhuman.posture import PostureSettings, solve_posture, solve_posture_ga, worker_skeleton
from vhuman.posture.check import check_posture
from vhuman.posture.suite import hand_error, load_suite
from vhuman.scene import BodyModel, CollisionWorld


def _verify(case, motion, world: CollisionWorld) -> dict:
    """Independent figures of a method's output pose."""
    body = BodyModel.from_skeleton(motion.skeleton, samples_per_segment=1)
    root, rot = motion.root_positions[0], motion.local_rotations[0]
    chk = check_posture(world, body, root, rot)
    t, r = hand_error(body, root, rot, case.side, world.scene)
    ok = bool(chk.valid and t <= 0.005 and np.degrees(r) <= 3.0)
    return {
        "hand_mm": 1e3 * t,
        "hand_deg": float(np.degrees(r)),
        "contacts": chk.collision.n_contacts,
        "balance_mm": 1e3 * chk.balance.margin,
        "limits_ok": chk.within_limits,
        "verified": ok,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-baseline", action="store_true", help="skip the whole-body GA")
    ap.add_argument("--only", nargs="*", default=None, help="scene names")
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    ap.add_argument(
        "--clutter",
        type=int,
        nargs="+",
        default=[],
        help="instead time a scene with each of these numbers of extra objects (growth)",
    )
    args = ap.parse_args()
    if args.json:
        check_writable(args.json, "--json")
    if args.clutter:
        grown = [_cluttered(n, args.seed) for n in args.clutter]
        print(json.dumps({"benchmark": "posture", "clutter": grown, "headline": _grown(grown)}))
        return
    rows = []
    for case in load_suite():
        if args.only and case.name not in args.only:
            continue
        scene = case.scene()
        sk = worker_skeleton(case.worker)
        world = CollisionWorld(scene)
        res = solve_posture(
            scene,
            sk,
            settings=PostureSettings(side=case.side),
            seed=args.seed,
            world=world,
            worker=case.worker,
        )
        d = res.to_dict()
        v = _verify(case, res.motion, world)
        if case.feasible:
            solved = d["status"] == "reached" and v["verified"]
        else:
            solved = d["status"] == "unreachable" and d["reason"] == case.reason
        rows.append(
            {
                "scene": case.name,
                "method": "ours",
                "expect": case.expect,
                "status": d["status"],
                "reason": d["reason"] or "-",
                "solved": solved,
                "posture": d["library_posture"],
                "time_s": d["solve_time_s"],
                **v,
                "reba": d["reba_score"],
                "rula": d["rula_score"],
            }
        )
        if not args.no_baseline:
            t0 = time.perf_counter()
            base = solve_posture_ga(scene, sk, seed=args.seed, side=case.side, world=world)
            b = base.to_dict()
            vb = _verify(case, base.motion, world)
            solved_b = (
                (b["status"] == "reached" and vb["verified"])
                if case.feasible
                else (b["status"] != "reached")
            )
            rows.append(
                {
                    "scene": case.name,
                    "method": "whole-body GA",
                    "expect": case.expect,
                    "status": b["status"],
                    "reason": "-",
                    "solved": solved_b,
                    "posture": f"d={b['distance_m']} m",
                    "time_s": time.perf_counter() - t0,
                    **vb,
                    "reba": b["reba_score"],
                    "rula": b["rula_score"],
                }
            )
        print(_line(rows[-2] if not args.no_baseline else rows[-1]), flush=True)
        if not args.no_baseline:
            print(_line(rows[-1]), flush=True)
    summary = {}
    for method in sorted({r["method"] for r in rows}):
        mine = [r for r in rows if r["method"] == method]
        feas = [r for r in mine if r["expect"] == "reached"]
        infeas = [r for r in mine if r["expect"] != "reached"]
        times = np.array([r["time_s"] for r in mine])
        summary[method] = {
            "feasible_solved": sum(r["solved"] for r in feas),
            "feasible": len(feas),
            "fraction_solved": sum(r["solved"] for r in feas) / max(len(feas), 1),
            "infeasible_correct": sum(r["solved"] for r in infeas),
            "infeasible": len(infeas),
            "median_time_s": float(np.median(times)) if len(times) else None,
            "max_time_s": float(times.max()) if len(times) else None,
        }
        s = summary[method]
        print(
            f"{method}: feasible solved {s['feasible_solved']}/{s['feasible']} "
            f"({100 * s['fraction_solved']:.0f} %), infeasible correct "
            f"{s['infeasible_correct']}/{s['infeasible']}, median {s['median_time_s']:.1f} s, "
            f"max {s['max_time_s']:.1f} s"
        )
    out = {
        "benchmark": "posture",
        "seed": args.seed,
        "summary": summary,
        "rows": rows,
        "headline": _headline(summary),
    }
    print(json.dumps(out))
    if args.json:
        atomic_write(args.json, json.dumps(out, indent=1))


def _headline(summary: dict) -> list[dict]:
    """Share of feasible scenes solved and median solve time, beside the whole-body GA."""
    ours = summary["ours"]
    base = summary.get("whole-body GA")
    peer = {"peer": "whole-body GA"} if base else {}
    n = f"{ours['feasible']} scenes"
    return [
        figure(
            "posture",
            f"solved and verified ({n})",
            100 * ours["fraction_solved"],
            "%",
            peer_value=100 * base["fraction_solved"] if base else None,
            **peer,
        ),
        figure(
            "posture",
            "median solve time, scene suite",
            ours["median_time_s"],
            "s",
            peer_value=base["median_time_s"] if base else None,
            higher_is_better=False,
            **peer,
        ),
    ]


def _grown(grown: list[dict]) -> list[dict]:
    """Load + solve time of the largest cluttered scene beside the smallest (cost growth)."""
    small, large = grown[0], grown[-1]
    cost = large["load_s"] + large["solve_s"]
    return [
        figure(
            "posture",
            f"load + solve, {large['objects']:,} objects",
            cost,
            "s",
            peer=f"{small['objects']:,} objects",
            peer_value=small["load_s"] + small["solve_s"],
            higher_is_better=False,
        ),
    ]


def _cluttered(n: int, seed: int) -> dict:
    """Time a suite scene with ``n`` extra 0.1 m boxes strewn over a 30 m x 30 m hall.

    The boxes keep 2.5 m away from the target, so the answer stays that of the
    suite scene; the scene is written to a YAML file and read back, then solved.
    """
    import dataclasses
    import resource
    import tempfile
    from pathlib import Path

    from vhuman.scene import Box, SceneObject, load_scene, save_scene

    case = next(c for c in load_suite() if c.name == "low-valve-duct")
    base = case.scene()
    rng = np.random.default_rng(seed)
    pos = np.column_stack(
        [rng.uniform(-15, 15, 3 * n), rng.uniform(-15, 15, 3 * n), rng.uniform(0.05, 3.0, 3 * n)]
    )
    pos = pos[np.hypot(*(pos[:, :2] - base.target.position[:2]).T) > 2.5][:n]
    parts = tuple(
        SceneObject(f"part {i}", Box((0.1, 0.1, 0.1)), p, [1, 0, 0, 0]) for i, p in enumerate(pos)
    )
    scene = dataclasses.replace(base, name="cluttered", objects=base.objects + parts, ceiling=3.2)
    with tempfile.TemporaryDirectory() as tmp:
        path = save_scene(scene, Path(tmp) / "cluttered.yaml")
        t0 = time.perf_counter()
        scene = load_scene(path)
        t_load = time.perf_counter() - t0
    res = solve_posture(scene, worker_skeleton(case.worker), seed=seed)
    v = _verify(case, res.motion, CollisionWorld(scene, window=4.0))
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    out = {
        "objects": len(scene.objects),
        "load_s": t_load,
        "solve_s": res.solve_time_s,
        "status": res.status,
        "verified": v["verified"],
        "max_rss_mb": rss,
    }
    print(
        f"{len(scene.objects)} objects: load {t_load:.1f} s, solve {res.solve_time_s:.1f} s, "
        f"{res.status}, verified {v['verified']}, max RSS {rss:.0f} MB"
    )
    return out


_HEAD = (
    "scene",
    "method",
    "status",
    "reason",
    "solved",
    "posture",
    "time_s",
    "hand_mm",
    "hand_deg",
    "contacts",
    "balance_mm",
    "reba",
    "rula",
)


def _line(r: dict) -> str:
    cells = []
    for h in _HEAD:
        v = r[h]
        cells.append(f"{v:9.1f}" if isinstance(v, float) else f"{v!s:>9}"[:22])
    return " | ".join(cells)


if __name__ == "__main__":
    print(" | ".join(f"{h:>9s}" for h in _HEAD))
    run_script(main)
