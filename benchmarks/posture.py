"""Maintenance posture: our method (library placement + NSGA-II arm) vs the whole-body GA.

Scenes ship-valve, low-deck and over-pipe; worker GB/T 10000 95th-percentile male.
Also, on each scene, the best library posture "placed by hand": every library
posture on a 2 cm line of pelvis positions facing the target (working shoulder
in line with it), arm by closed-form IK over 72 swivel angles, keeping the
collision-free reaches; its lowest REBA is the reference.

Run: ``.venv/bin/python benchmarks/posture.py [--seed N] [--json FILE]``
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from vhuman.ergonomics import REBAConditions, arm_discomfort, assess_reba
from vhuman.posture import (
    ArmSetting,
    anatomical_angles,
    load_library,
    solve_posture,
    solve_posture_ga,
)
from vhuman.reaching import Side
from vhuman.scene import BodyModel, CollisionWorld, load_scene
from vhuman.skeleton import Motion, standard_humanoid

SCENES = ("ship-valve", "low-deck", "over-pipe")


def hand_placed(scene_name: str) -> dict:
    """Best REBA over library postures on a line of pelvis positions, arm by closed-form IK."""
    sk = standard_humanoid(sex="male", percentile=95)
    body = BodyModel.from_skeleton(sk, samples_per_segment=8)
    lib = load_library(sk, body=body)
    scene = load_scene(scene_name)
    world = CollisionWorld(scene)
    best: dict = {"reba_score": None}
    sh_y = sk.rest_positions()[sk.index("r_shoulder"), 1]
    for p in lib:
        for x in np.arange(-0.9, 0.5, 0.02):
            root = p.root_position + np.array([scene.target.position[0] + x, -sh_y, 0.0])
            s = ArmSetting(body, root, p.local_rotations, Side.RIGHT, scene.target)
            q, ok = s.ik_seeds()
            if not ok.any():
                continue
            q = q[ok]
            q = q[np.argsort(arm_discomfort(anatomical_angles(q)))][:3]
            for qi in q:
                rot = s.poses(qi)
                if world.check(body, root, rot).in_collision:
                    continue
                m = Motion(sk, 30.0, root[None], rot[None])
                score = int(assess_reba(m, REBAConditions(sitting=p.sitting)).score[0])
                if best["reba_score"] is None or score < best["reba_score"]:
                    best = {"reba_score": score, "posture": p.name, "pelvis_x_m": float(root[0])}
                break
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    args = ap.parse_args()
    sk = standard_humanoid(sex="male", percentile=95)
    rows = []
    for name in SCENES:
        scene = load_scene(name)
        ours = solve_posture(scene, sk, seed=args.seed).to_dict()
        base = solve_posture_ga(scene, sk, seed=args.seed).to_dict()
        ref = hand_placed(name)
        for method, d in (("ours", ours), ("whole-body GA", base)):
            rows.append({
                "scene": name, "method": method, "status": d["status"],
                "posture": d.get("library_posture", f"d={d.get('distance_m')} m"),
                "time_s": d["solve_time_s"], "collisions": d["collisions"],
                "reach_mm": d["reach_position_error_mm"],
                "reach_deg": d["reach_orientation_error_deg"],
                "reba": d["reba_score"], "rula": d["rula_score"],
            })  # fmt: skip
        rows.append({"scene": name, "method": "hand-placed library (IK)", "status": "reference",
                     "posture": ref.get("posture", "-"), "time_s": None, "collisions": 0,
                     "reach_mm": 0.0, "reach_deg": 0.0, "reba": ref["reba_score"],
                     "rula": None})  # fmt: skip
    head = ("scene", "method", "status", "posture", "time_s", "collisions", "reach_mm",
            "reach_deg", "reba", "rula")  # fmt: skip
    print(" | ".join(f"{h:>14s}" for h in head))
    for r in rows:
        cells = []
        for h in head:
            v = r[h]
            cells.append(
                f"{v:14.2f}" if isinstance(v, float) else f"{'-' if v is None else v!s:>14}"
            )
        print(" | ".join(cells))
    out = {"seed": args.seed, "worker": "p95-male", "rows": rows}
    print(json.dumps(out))
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(out, fh, indent=1)


if __name__ == "__main__":
    main()
