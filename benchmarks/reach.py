"""Reaches over the workspace, reach generation speed, and the arm IK against ikpy.

0. Workspace suite (`vhuman.reaching.workspace_targets`): every target of the grid over
   both arms' workspace (in front, across the body, overhead, low, beside, behind; the
   left arm's targets the mirror image of the right's), one `generate_reach` each
   (shipped deep MLP, 1 s at 60 fps from the ready pose), every frame measured from the
   motion by `vhuman.reaching.audit_reach`: success (reached, no self-collision, within
   the limits), refusals, self-collision frames, limit-violation frames, hand-path
   straightness, peak/mean hand speed, largest joint speed (wrapped angles), time per
   reach. Beside it ikpy on the same targets and hand orientations: its numerical IK
   (full pose, warm-started from the previous frame) at ``--ikpy-frames`` frames of the
   same minimum-jerk hand path, measured by the same audit.

1. Full reach generation, batched (`vhuman.reaching.reach.plan_reaches`): minimum-jerk
   hand path + swivel predicted by the shipped deep MLP at every frame + closed-form IK
   (+ the feasible-swivel path search where a prediction has no in-limit solution),
   on seeded random reachable hand poses of the standard humanoid's right arm,
   each a 1 s reach at 60 fps from the ready pose (no body: collisions not checked).
2. Closed-form IK (`vhuman.reaching.solve_arm`, the swivel angle of the true pose
   given) against ikpy (`Chain.inverse_kinematics` with the full orientation,
   from the zero pose) on Xia et al.'s (2021) D-H chain built link by link in ikpy, on
   the same seeded random in-limit poses: time per solve and accuracy.

Run: ``.venv/bin/python benchmarks/reach.py [--reaches N] [--ikpy N] [--seed S]
[--workspace-step K] [--ikpy-frames F] [--lean]`` (one core); prints the tables, then one
JSON line.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: before numpy loads its BLAS
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import time
import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray
from rich.console import Console
from rich.table import Table
from scipy.spatial.transform import Rotation

from headline import figure, run_script
from vhuman.animation.easing import Easing, ease
from vhuman.errors import InputError
from vhuman.geometry import quat_angle, quat_slerp, quat_to_rotmat, rotmat_to_quat
from vhuman.reaching import (
    JOINT_LIMITS,
    ArmModel,
    arm_motion,
    audit_reach,
    generate_reach,
    solve_arm,
    swivel_angle,
    workspace_targets,
)
from vhuman.reaching.arm import DH_ALPHA, DH_OFFSETS, R_SHOULDER_DH
from vhuman.reaching.reach import (
    READY_ARM_ANGLES,
    default_predictor,
    natural_orientation,
    plan_reaches,
)
from vhuman.skeleton import Skeleton, standard_humanoid

_MIRROR = np.array([1.0, -1.0, 1.0])


def random_poses(model: ArmModel, n: int, rng: np.random.Generator) -> tuple[NDArray, Any]:
    """In-limit arm angles (elbow flexed ≥ 10°) and their hand poses."""
    q = rng.uniform(JOINT_LIMITS[:, 0], JOINT_LIMITS[:, 1], size=(4 * n, 7))
    q = q[q[:, 3] < -np.radians(10.0)][:n]
    return q, model.forward(q)


def front_targets(model: ArmModel, n: int, rng: np.random.Generator) -> tuple[NDArray, NDArray]:
    """Hand targets in front of the shoulder (what `vhuman reach` gets), natural orientation.

    Positions uniform in a box 0.25–0.6 m forward, 0.35 m outward to 0.1 m inward
    and 0.4 m below to 0.3 m above the shoulder, kept within 0.95 of the reach.
    """
    lo, hi = np.array([0.25, -0.35, -0.4]), np.array([0.6, 0.1, 0.3])
    p = rng.uniform(lo, hi, size=(4 * n, 3))
    p = p[np.linalg.norm(p, axis=1) < 0.95 * (model.upper_arm + model.forearm + model.hand)][:n]
    return p, np.stack([natural_orientation(model, x) for x in p])


def bench_reaches(model: ArmModel, n: int, seed: int) -> list[dict[str, Any]]:
    """Frames per second of batched reach generation, on two kinds of targets."""
    predictor = default_predictor()
    _, pose = random_poses(model, n, np.random.default_rng(seed))
    sets = {
        "targets in front, natural orientation": front_targets(
            model, n, np.random.default_rng(seed)
        ),
        "random in-limit arm poses": (pose.hand, pose.hand_orientation),
    }
    ready = model.forward(READY_ARM_ANGLES)
    rows = []
    for name, (hand, orientation) in sets.items():
        start = np.broadcast_to(ready.hand, hand.shape)
        start_q = np.broadcast_to(ready.hand_orientation, orientation.shape)
        t0 = time.perf_counter()
        plan = plan_reaches(
            model, start, start_q, hand, orientation, duration=1.0, fps=60.0, predictor=predictor
        )
        elapsed = time.perf_counter() - t0
        frames = plan.q.shape[0] * plan.q.shape[1]
        searched = ~np.all(plan.swivel == plan.swivel_predicted, axis=1)
        rows.append(
            {
                "targets": name,
                "reaches": int(hand.shape[0]),
                "frames": frames,
                "seconds": elapsed,
                "frames_per_s": frames / elapsed,
                "reaches_with_swivel_search": int(searched.sum()),
                "infeasible_frames": int((~plan.feasible).sum()),
            }
        )
    return rows


_IKPY_CLIPS = "The initial position is outside the bounds"
"""ikpy's warning that it clips a start outside the joint limits to them (as ours do)."""


def ikpy_chain(model: ArmModel) -> Any:
    """Xia et al.'s (2021) D-H arm, link by link, as an ikpy chain (base = the shoulder frame)."""
    from ikpy.chain import Chain
    from ikpy.link import OriginLink, URDFLink

    d, a = model.dh_parameters()

    def rpy(matrix: NDArray) -> NDArray:
        with warnings.catch_warnings():
            # At gimbal lock any split of the angles gives the same matrix.
            warnings.filterwarnings("ignore", message="Gimbal lock detected")
            return Rotation.from_matrix(matrix).as_euler("xyz")  # R = Rz(y) Ry(p) Rx(r)

    def rz(angle: float) -> NDArray:
        return Rotation.from_euler("z", angle).as_matrix()

    links = [OriginLink()]
    before = R_SHOULDER_DH  # rotation of the frame before joint 1
    shift = np.zeros(3)
    for i in range(7):
        links.append(
            URDFLink(
                f"q{i + 1}",
                shift,
                rpy(before @ rz(DH_OFFSETS[i])),
                rotation=[0.0, 0.0, 1.0],
                bounds=tuple(JOINT_LIMITS[i]),
            )
        )
        before = Rotation.from_euler("x", DH_ALPHA[i]).as_matrix()
        shift = np.array([a[i], 0.0, d[i]])
    links.append(URDFLink("hand", shift, rpy(before), joint_type="fixed"))
    return Chain(links, active_links_mask=[False] + [True] * 7 + [False])


def bench_ik(model: ArmModel, n: int, seed: int) -> dict[str, Any]:
    """Closed-form IK vs ikpy on the same poses: time per solve, errors."""
    q, pose = random_poses(model, n, np.random.default_rng(seed + 1))
    phi = swivel_angle(pose.shoulder, pose.elbow, pose.wrist)
    # One at a time, then batched.
    t0 = time.perf_counter()
    singles = [solve_arm(model, pose.hand[k], pose.hand_orientation[k], phi[k]).q for k in range(n)]
    single_s = (time.perf_counter() - t0) / n
    t0 = time.perf_counter()
    batch = solve_arm(model, pose.hand, pose.hand_orientation, phi)
    batch_s = (time.perf_counter() - t0) / n
    ours = model.forward(np.stack(singles))
    rows = [
        {
            "solver": "vhuman closed form (one at a time)",
            "ms_per_solve": single_s * 1e3,
            "position_error_m_max": float(np.abs(ours.hand - pose.hand).max()),
            "orientation_error_rad_max": float(
                quat_angle(ours.hand_orientation, pose.hand_orientation).max()
            ),
            "success": float(np.mean(batch.feasible)),
        },
        {
            "solver": "vhuman closed form (batched)",
            "ms_per_solve": batch_s * 1e3,
            "position_error_m_max": float(np.abs(model.forward(batch.q).hand - pose.hand).max()),
            "orientation_error_rad_max": float(
                quat_angle(model.forward(batch.q).hand_orientation, pose.hand_orientation).max()
            ),
            "success": float(np.mean(batch.feasible)),
        },
    ]
    try:
        chain = ikpy_chain(model)
    except ImportError:
        return {"rows": rows, "ikpy": "not installed (pip install ikpy): not compared"}
    # The chain's hand frame is R_SHOULDER_DH-rotated relative to ours: check FK first.
    full = np.concatenate([np.zeros((n, 1)), q, np.zeros((n, 1))], axis=1)
    frames = [chain.forward_kinematics(x) for x in full]
    fk_gap = max(float(np.abs(f[:3, 3] - p).max()) for f, p in zip(frames, pose.hand, strict=True))
    pos_err, rot_err, times = [], [], []
    for k in range(n):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=_IKPY_CLIPS)
            t0 = time.perf_counter()
            x = chain.inverse_kinematics(
                frames[k][:3, 3], frames[k][:3, :3], orientation_mode="all"
            )
            times.append(time.perf_counter() - t0)
        got = chain.forward_kinematics(x)
        pos_err.append(float(np.linalg.norm(got[:3, 3] - frames[k][:3, 3])))
        rel = got[:3, :3].T @ frames[k][:3, :3]
        rot_err.append(float(np.arccos(np.clip((np.trace(rel) - 1.0) / 2.0, -1.0, 1.0))))
    pos_err, rot_err = np.array(pos_err), np.array(rot_err)
    rows.append(
        {
            "solver": "ikpy (full pose, from zero)",
            "ms_per_solve": float(np.mean(times)) * 1e3,
            "position_error_m_max": float(pos_err.max()),
            "orientation_error_rad_max": float(rot_err.max()),
            "success": float(np.mean((pos_err <= 1e-3) & (rot_err <= np.radians(1.0)))),
        }
    )
    return {"rows": rows, "ikpy_fk_max_diff_m": fk_gap, "solves": n}


def _summary(rows: list[dict[str, Any]], solver: str, seconds: float) -> dict[str, Any]:
    """Totals of the per-target rows of one solver."""
    done = [r for r in rows if not r["refused"]]
    ok = [r for r in done if r["success"]]
    regions = sorted({r["region"] for r in rows})

    def mean(key: str) -> float | None:
        return float(np.mean([r[key] for r in done])) if done else None

    by_region = {
        g: [
            sum(r["success"] for r in rows if r["region"] == g),
            sum(r["region"] == g for r in rows),
        ]
        for g in regions
    }
    return {
        "solver": solver,
        "targets": len(rows),
        "success": len(ok),
        "success_rate": len(ok) / len(rows),
        "refused": len(rows) - len(done),
        "collision_frames": int(sum(r["collision_frames"] for r in done)),
        "limit_violation_frames": int(sum(r["limit_violation_frames"] for r in done)),
        "straightness_mean": mean("straightness"),
        "peak_to_mean_speed_mean": mean("peak_to_mean_speed"),
        "max_joint_speed_rad_s": max((r["max_joint_speed_rad_s"] for r in done), default=None),
        "ms_per_reach": 1e3 * seconds / len(rows),
        "success_by_region": by_region,
    }


def _hand_figures(hand: NDArray, duration: float) -> dict[str, float]:
    steps = np.linalg.norm(np.diff(hand, axis=0), axis=-1)
    length = float(steps.sum())
    chord = float(np.linalg.norm(hand[-1] - hand[0]))
    peak = float(steps.max() * steps.size / duration) if length > 0 else 0.0
    return {
        "straightness": chord / length if length > 0 else 1.0,
        "peak_to_mean_speed": peak / (length / duration) if length > 0 else 0.0,
    }


def bench_workspace(skeleton: Skeleton, step: int, ikpy_frames: int, lean: bool) -> dict[str, Any]:
    """Our reaches and ikpy's over the workspace grid of both arms, measured alike."""
    predictor = default_predictor()
    cases = []
    for side in ("right", "left"):
        grid = workspace_targets(skeleton, side)
        cases += [(side, p, g) for p, g in zip(grid.positions, grid.regions, strict=True)][::step]
    variants = [("vhuman", False)] + ([("vhuman, trunk lean allowed", True)] if lean else [])
    summaries, orientations = [], {}
    for name, allow in variants:
        rows, t0 = [], time.perf_counter()
        for k, (side, target, region) in enumerate(cases):
            row: dict[str, Any] = {"region": region, "side": side}
            try:
                result = generate_reach(
                    target, side=side, skeleton=skeleton, predictor=predictor, allow_lean=allow
                )
            except InputError:
                rows.append({**row, "refused": True, "success": False})
                continue
            audit = audit_reach(result.motion, side)
            fig = result.to_dict()
            orientations.setdefault(k, result.target_orientation)
            rows.append(
                {
                    **row,
                    "refused": False,
                    "success": audit.clean and fig["final_position_error_mm"] < 1.0,
                    "collision_frames": audit.collision_frames,
                    "limit_violation_frames": audit.limit_violation_frames,
                    "straightness": fig["path_straightness"],
                    "peak_to_mean_speed": fig["peak_to_mean_speed"],
                    "max_joint_speed_rad_s": audit.max_joint_speed_rad_s,
                }
            )
        summaries.append(_summary(rows, name, time.perf_counter() - t0))
    try:
        summaries.append(_ikpy_workspace(skeleton, cases, orientations, ikpy_frames))
    except ImportError:
        return {"targets": len(cases), "rows": summaries, "ikpy": "not installed: not compared"}
    return {"targets": len(cases), "rows": summaries}


def _ikpy_workspace(
    skeleton: Skeleton,
    cases: list[tuple[str, NDArray, str]],
    orientations: dict[int, NDArray],
    frames: int,
) -> dict[str, Any]:
    """ikpy along the same minimum-jerk hand paths (the right-arm chain; left targets mirrored)."""
    model = ArmModel.from_skeleton(skeleton, "right")
    chain = ikpy_chain(model)
    ready = model.forward(READY_ARM_ANGLES)
    law = ease(Easing.MINIMUM_JERK, np.linspace(0.0, 1.0, frames))
    shoulder = skeleton.rest_positions()[skeleton.index("r_shoulder")]
    rows, total = [], 0.0
    for k, (side, target, region) in enumerate(cases):
        # The left arm is the mirror image of the right: solve its mirrored task.
        goal = (target * _MIRROR if side == "left" else target) - shoulder
        if k in orientations:
            r = quat_to_rotmat(orientations[k])
            goal_q = orientations[k] if side == "right" else _mirror_quat(r)
        else:
            goal_q = natural_orientation(model, goal)
        path = ready.hand + (goal - ready.hand) * law[:, None]
        rot = quat_to_rotmat(quat_slerp(ready.hand_orientation, goal_q, law))
        q = np.zeros((frames, 7))
        x = np.concatenate([[0.0], READY_ARM_ANGLES, [0.0]])
        t0 = time.perf_counter()
        for f in range(frames):
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", message=_IKPY_CLIPS)
                x = chain.inverse_kinematics(
                    path[f], rot[f] @ R_SHOULDER_DH, orientation_mode="all", initial_position=x
                )
            q[f] = x[1:8]
        total += time.perf_counter() - t0
        audit = audit_reach(arm_motion(skeleton, "right", q, (frames - 1) / 1.0), "right")
        pose = model.forward(q)
        error = float(np.linalg.norm(pose.hand[-1] - goal))
        angle = float(np.degrees(quat_angle(pose.hand_orientation[-1], goal_q)))
        rows.append(
            {
                "region": region,
                "side": side,
                "refused": False,
                "success": audit.clean and error < 1e-3 and angle < 1.0,
                "collision_frames": audit.collision_frames,
                "limit_violation_frames": audit.limit_violation_frames,
                **_hand_figures(pose.hand, 1.0),
                "max_joint_speed_rad_s": audit.max_joint_speed_rad_s,
            }
        )
    return _summary(rows, f"ikpy, {frames} frames", total)


def _mirror_quat(matrix: NDArray) -> NDArray:
    return rotmat_to_quat(_MIRROR[:, None] * matrix * _MIRROR)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reaches", type=int, default=400, help="reaches generated in one batch")
    parser.add_argument("--ikpy", type=int, default=50, help="poses solved by each IK")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--workspace-step", type=int, default=1, help="use every K-th workspace target (1: all)"
    )
    parser.add_argument(
        "--ikpy-frames",
        type=int,
        default=16,
        help="frames of each ikpy reach (ikpy solves each frame)",
    )
    parser.add_argument(
        "--lean", action="store_true", help="also run the suite with the trunk lean allowed"
    )
    args = parser.parse_args()
    skeleton = standard_humanoid()
    model = ArmModel.from_skeleton(skeleton, "right")
    workspace = bench_workspace(skeleton, args.workspace_step, args.ikpy_frames, args.lean)
    result = {
        "arm_m": [model.upper_arm, model.forearm, model.hand],
        "workspace": workspace,
        "reach": bench_reaches(model, args.reaches, args.seed),
        "ik": bench_ik(model, args.ikpy, args.seed),
    }
    fastest = max(r["frames_per_s"] for r in result["reach"])
    result["targets_met"] = {"reach generation ≥ 20,000 frames/s": bool(fastest >= 20_000)}
    console = Console(width=130, highlight=False)
    suite = Table(
        title=f"workspace suite: {workspace['targets']} targets, both arms, "
        "1 s reaches, every frame measured from the motion"
    )
    for col in (
        "solver",
        "success",
        "refused",
        "collision frames",
        "limit frames",
        "straightness",
        "peak/mean speed",
        "max joint rad/s",
        "ms / reach",
    ):
        suite.add_column(col, justify="left" if col == "solver" else "right")

    def num(x: float | None, fmt: str) -> str:
        return "-" if x is None else format(x, fmt)

    for r in workspace["rows"]:
        suite.add_row(
            r["solver"],
            f"{r['success']} ({r['success_rate']:.0%})",
            str(r["refused"]),
            str(r["collision_frames"]),
            str(r["limit_violation_frames"]),
            num(r["straightness_mean"], ".3f"),
            num(r["peak_to_mean_speed_mean"], ".3f"),
            num(r["max_joint_speed_rad_s"], ".1f"),
            f"{r['ms_per_reach']:.0f}",
        )
    console.print(suite)
    regions = Table(title="success by region")
    regions.add_column("solver")
    names = sorted(workspace["rows"][0]["success_by_region"])
    for g in names:
        regions.add_column(g, justify="right")
    for r in workspace["rows"]:
        regions.add_row(
            r["solver"], *(f"{a}/{b}" for a, b in (r["success_by_region"][g] for g in names))
        )
    console.print(regions)
    gen = Table(title="reach generation, batched (1 s reaches at 60 fps from the ready pose)")
    for col in (
        "targets",
        "reaches",
        "frames",
        "s",
        "frames/s",
        "with swivel search",
        "frames off limits",
    ):
        gen.add_column(col, justify="left" if col == "targets" else "right")
    for r in result["reach"]:
        gen.add_row(
            r["targets"],
            str(r["reaches"]),
            str(r["frames"]),
            f"{r['seconds']:.3f}",
            f"{r['frames_per_s']:,.0f}",
            str(r["reaches_with_swivel_search"]),
            str(r["infeasible_frames"]),
        )
    console.print(gen)
    table = Table(
        title=f"7-DOF arm IK on {args.ikpy} random in-limit hand poses (seed {args.seed})"
    )
    for col in (
        "solver",
        "ms / solve",
        "max position error m",
        "max orientation error rad",
        "success",
    ):
        table.add_column(col, justify="left" if col == "solver" else "right")
    for row in result["ik"]["rows"]:
        table.add_row(
            row["solver"],
            f"{row['ms_per_solve']:.4f}",
            f"{row['position_error_m_max']:.1e}",
            f"{row['orientation_error_rad_max']:.1e}",
            f"{row['success']:.0%}",
        )
    console.print(table)
    if "ikpy_fk_max_diff_m" in result["ik"]:
        console.print(
            f"ikpy chain vs ArmModel FK: max |Δp| = {result['ik']['ikpy_fk_max_diff_m']:.1e} m"
        )
    else:
        console.print(result["ik"]["ikpy"])
    print(json.dumps({"benchmark": "reach", **result, "headline": headline(result)}))


def headline(result: dict[str, Any]) -> list[dict[str, Any]]:
    """Workspace reaches clean (vhuman beside ikpy where run) and batched generation rate."""
    rows = {r["solver"]: r for r in result["workspace"]["rows"]}
    ours = next(r for name, r in rows.items() if name != "ikpy")
    ikpy = rows.get("ikpy")
    peer = {"peer": "ikpy", "peer_value": 100 * ikpy["success_rate"]} if ikpy else {}
    fastest = max(r["frames_per_s"] for r in result["reach"])
    return [
        figure(
            "reach",
            f"clean reaches, {ours['targets']} workspace targets",
            100 * ours["success_rate"],
            "%",
            **peer,
        ),
        figure("reach", "reach generation, batched", fastest, "frames/s", target=20_000.0),
    ]


if __name__ == "__main__":
    run_script(main)
