"""IK solvers side by side: CCD, two-stage CCD, FABRIK, DLS (vhuman) and ikpy.

One run, the same seeded random reachable targets for every solver, on two
problems of the standard humanoid (50th-percentile male), starting from the
rest pose:

* ``arm7``: the left arm as a 7-DOF chain (shoulder 3, elbow 1, wrist 3) to
  the hand; targets are the hand positions of random poses within the limits.
  ikpy solves the same targets on the same chain (one revolute link per Euler
  angle, same offsets and bounds).
* ``body``: whole-body reaches of the left hand, the body stepping (0.5 m per
  update) and turning (``RootDofs.horizontal()``); targets are the hand
  positions of random poses of spine, chest, clavicle and arm after a random
  step of 0.5-2 m and turn, kept when out of the arm's reach from the starting
  stance (farther from the shoulder than the arm is long), so that the body
  must move. ``--sweep-switch`` also reports targets without that condition.

Success: the hand within 1 mm of the target. Single solves are timed one by
one (median and 95th percentile); batches of ``--batch`` targets are solved in
one call (ikpy has no batch: its throughput is 1 / its mean single-solve time).
Targets: single-target
CCD ≥ 5× faster than ikpy at equal or better success; batched CCD ≥ 100× ikpy's
throughput; two-stage CCD ≥ 40 % fewer joint updates than full-chain CCD on
whole-body targets at equal success.

ikpy (``pip install ikpy``, in the ``dev`` extra) is compared when installed.
The tables, on one core, are followed by one JSON line.

Run: ``.venv/bin/python benchmarks/ik.py [--targets N] [--batch B] [--seed S] [--sweep-switch]``
"""

from __future__ import annotations

import os

# One core: set before numpy loads its BLAS.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray
from rich.console import Console
from rich.table import Table

from headline import figure, run_script
from vhuman.cli.tables import print_table
from vhuman.geometry.so3 import rotvec_to_quat
from vhuman.ik.ccd import CCD
from vhuman.ik.chain import Chain, RootDofs
from vhuman.ik.dls import DLS
from vhuman.ik.fabrik import FABRIK
from vhuman.ik.target import random_reachable_targets
from vhuman.ik.two_stage import TwoStageCCD
from vhuman.skeleton.humanoid import standard_humanoid
from vhuman.skeleton.kinematics import forward_kinematics
from vhuman.skeleton.skeleton import JointType

SUCCESS_M = 1e-3
"""A solve succeeds when the end effector is within 1 mm of the target."""


def body_targets(
    chain: Chain,
    n: int,
    rng: np.random.Generator,
    distance: tuple[float, float] = (0.5, 2.0),
    *,
    out_of_reach: bool = True,
) -> NDArray:
    """Hand positions ``(n, 3)`` [m] after a random step (``distance`` [m]) and turn.

    With ``out_of_reach``, only targets farther from the starting shoulder than the
    arm's length (drawn until there are ``n``).
    """
    sk = chain.skeleton
    shoulder = sk.rest_positions()[sk.index("l_shoulder")]
    arm_length = Chain(sk, chain.end, start="l_shoulder").length
    found: list[NDArray] = []
    while sum(len(f) for f in found) < n:
        q = sk.random_rotations(n, rng, chain.joints[1:])
        q[:, 0] = rotvec_to_quat(rng.uniform(-np.pi, np.pi, (n, 1)) * [0.0, 0.0, 1.0])
        r, a = rng.uniform(*distance, n), rng.uniform(-np.pi, np.pi, n)
        root = sk.offsets[0] + np.stack([r * np.cos(a), r * np.sin(a), 0.0 * r], axis=-1)
        hand = forward_kinematics(sk.parents, sk.offsets, root, q)[0][:, chain.joints[-1]]
        if out_of_reach:
            hand = hand[np.linalg.norm(hand - shoulder, axis=-1) > arm_length]
        found.append(hand)
    return np.concatenate(found)[:n]


def ikpy_arm(chain: Chain) -> Any:
    """The 7-DOF arm as an ikpy chain: one revolute link per Euler angle, same bounds."""
    from ikpy.chain import Chain as IkpyChain
    from ikpy.link import OriginLink, URDFLink

    sk = chain.skeleton
    shoulder, elbow, wrist, hand = chain.joints
    links = [OriginLink()]
    # At rest every frame is parallel to the world, so the shoulder sits at its rest position.
    origin = sk.rest_positions()[shoulder]
    for j in (shoulder, elbow, wrist):
        if sk.joint_types[j] is JointType.HINGE:
            axes, bounds = [sk.axes[j]], [tuple(sk.limits[j, 0])]
        else:
            seq = sk.limit_sequences[j]  # intrinsic: one link per angle, in order
            axes = [np.eye(3)["XYZ".index(c)] for c in seq]
            bounds = [tuple(sk.limits[j, k]) for k in range(3)]
        for k, (axis, bound) in enumerate(zip(axes, bounds, strict=True)):
            offset = (origin if j == shoulder else sk.offsets[j]) if k == 0 else np.zeros(3)
            links.append(
                URDFLink(f"{sk.names[j]}_{k}", offset, [0.0, 0.0, 0.0], rotation=axis, bounds=bound)
            )
    links.append(URDFLink("hand", sk.offsets[hand], [0.0, 0.0, 0.0], joint_type="fixed"))
    return IkpyChain(links, active_links_mask=[False] + [True] * 7 + [False])


def check_ikpy(ik_chain: Any, chain: Chain, rng: np.random.Generator) -> float:
    """Largest hand-position difference [m] between ikpy's and vhuman's FK on random poses."""
    sk = chain.skeleton
    q = sk.random_rotations(20, rng, chain.joints)
    ours = forward_kinematics(sk.parents, sk.offsets, sk.offsets[0], q)[0][:, chain.joints[-1]]
    angles = sk.joint_angles(q)
    worst = 0.0
    for k in range(len(q)):
        a = angles[k]
        values = [0.0, *a[chain.joints[0]], a[chain.joints[1], 0], *a[chain.joints[2]], 0.0]
        worst = max(
            worst, float(np.linalg.norm(ik_chain.forward_kinematics(values)[:3, 3] - ours[k]))
        )
    return worst


def time_singles(solve: Callable[[NDArray], float], targets: NDArray) -> tuple[NDArray, NDArray]:
    """Time one call per target; returns times [s] and position errors [m]."""
    times, errors = np.empty(len(targets)), np.empty(len(targets))
    for k, t in enumerate(targets):
        t0 = time.perf_counter()
        errors[k] = solve(t)
        times[k] = time.perf_counter() - t0
    return times, errors


def run_solver(
    name: str, solver: Any, chain: Chain, problem: str, targets: NDArray, batch: NDArray
) -> dict[str, Any]:
    """Single solves and one batch solve of ``solver``; one table row."""
    updates = []

    def solve(t: NDArray) -> float:
        result = solver.solve(chain, t)
        updates.append(int(result.joint_updates))
        return float(result.position_error)

    solver.solve(chain, targets[0])  # warm caches
    times, errors = time_singles(solve, targets)
    t0 = time.perf_counter()
    batched = solver.solve(chain, batch)
    batch_s = time.perf_counter() - t0
    return {
        "solver": name,
        "problem": problem,
        "success": float(np.mean(errors <= SUCCESS_M)),
        "median_ms": float(np.median(times) * 1e3),
        "p95_ms": float(np.percentile(times, 95) * 1e3),
        "mean_joint_updates": float(np.mean(updates)),
        "batch_success": float(np.mean(batched.position_error <= SUCCESS_M)),
        "batch_mean_joint_updates": float(batched.joint_updates.mean()),
        "batch_solves_per_s": len(batch) / batch_s,
    }


def run_ikpy(chain: Chain, targets: NDArray) -> dict[str, Any]:
    """ikpy on the 7-DOF arm, from the rest pose (all angles 0), position only."""
    ik_chain = ikpy_arm(chain)

    def solve(t: NDArray) -> float:
        with warnings.catch_warnings():
            # ikpy clips a start outside the joint limits to them, as the other solvers do.
            warnings.filterwarnings("ignore", message="The initial position is outside the bounds")
            angles = ik_chain.inverse_kinematics(t)
        return float(np.linalg.norm(ik_chain.forward_kinematics(angles)[:3, 3] - t))

    times, errors = time_singles(solve, targets)
    return {
        "solver": "ikpy",
        "problem": "arm7",
        "success": float(np.mean(errors <= SUCCESS_M)),
        "median_ms": float(np.median(times) * 1e3),
        "p95_ms": float(np.percentile(times, 95) * 1e3),
        "mean_joint_updates": None,
        "batch_success": None,
        "batch_mean_joint_updates": None,
        "batch_solves_per_s": 1.0 / float(np.mean(times)),
    }


def sweep_switch(body: Chain, n: int, seed: int) -> list[dict[str, Any]]:
    """Mean joint updates of two-stage CCD against the switching distance, and full CCD."""
    rows = []
    for distance, out in (
        ((0.5, 2.0), True),
        ((0.5, 2.0), False),
        ((0.3, 1.5), False),
        ((1.0, 3.0), False),
    ):
        targets = body_targets(body, n, np.random.default_rng(seed), distance, out_of_reach=out)
        full = CCD().solve(body, targets)
        row = {
            "step_m": distance,
            "out_of_reach_only": out,
            "ccd_updates": float(full.joint_updates.mean()),
            "ccd_success": full.success_rate,
            "two_stage": {},
        }
        for d in (0.3, 0.4, 0.5, 0.55, 0.59, 0.6, 0.65, 0.7, 0.8, 1.0):
            two = TwoStageCCD(switch_distance=d).solve(body, targets)
            row["two_stage"][d] = (float(two.joint_updates.mean()), two.success_rate)
        rows.append(row)
    return rows


def run_benchmark(
    targets: int = 200,
    batch: int = 1000,
    seed: int = 0,
    *,
    sweep: bool = False,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Run every solver on the same seeded targets; return rows, checks and targets met.

    Parameters
    ----------
    targets : int
        Targets solved one at a time (timed one by one).
    batch : int
        Targets solved in one batched call.
    seed : int
        Seed of the random targets.
    sweep : bool
        Also measure two-stage CCD's joint updates against its switching distance.
    progress : callable, optional
        Called with a short description before each solver runs.
    """
    say = progress or (lambda _: None)
    sk = standard_humanoid()
    arm = Chain(sk, "l_hand", start="l_shoulder")
    body = Chain(sk, "l_hand", root=RootDofs.horizontal())
    rng = np.random.default_rng(seed)
    problems = {
        "arm7": (
            arm,
            random_reachable_targets(arm, targets, rng),
            random_reachable_targets(arm, batch, rng),
        ),
        "body": (body, body_targets(body, targets, rng), body_targets(body, batch, rng)),
    }
    solvers = {"CCD": CCD(), "two-stage CCD": TwoStageCCD(), "FABRIK": FABRIK(), "DLS": DLS()}
    rows = []
    for problem, (chain, singles, many) in problems.items():
        for name, solver in solvers.items():
            if name == "two-stage CCD" and problem == "arm7":
                continue  # needs a chain with root motions
            say(f"{name} on {problem}")
            rows.append(run_solver(name, solver, chain, problem, singles, many))
    result: dict[str, Any] = {
        "benchmark": "ik",
        "targets": targets,
        "batch": batch,
        "seed": seed,
        "success_within_m": SUCCESS_M,
        "rows": rows,
    }
    try:
        import ikpy  # noqa: F401
    except ImportError:
        result["ikpy"] = "not installed (pip install ikpy): not compared"
    else:
        say("ikpy on arm7")
        result["ikpy_fk_max_diff_m"] = check_ikpy(
            ikpy_arm(arm), arm, np.random.default_rng(seed + 1)
        )
        rows.append(run_ikpy(arm, problems["arm7"][1]))
        result["checks"], result["targets_met"] = _checks(rows)
    if sweep:
        say("switching-distance sweep")
        result["switch_sweep"] = sweep_switch(body, targets, seed)
    return result


def _checks(rows: list[dict[str, Any]]) -> tuple[dict[str, float], dict[str, bool]]:
    """Whether the targets of the module notes are met, from the rows of one run."""
    by = {(r["solver"], r["problem"]): r for r in rows}
    ccd, ikpy = by["CCD", "arm7"], by["ikpy", "arm7"]
    full, two = by["CCD", "body"], by["two-stage CCD", "body"]
    checks = {
        "single_ccd_speedup_vs_ikpy": ikpy["median_ms"] / ccd["median_ms"],
        "single_ccd_success_minus_ikpy": ccd["success"] - ikpy["success"],
        "batch_ccd_throughput_vs_ikpy": ccd["batch_solves_per_s"] / ikpy["batch_solves_per_s"],
        "two_stage_update_reduction": 1.0 - two["mean_joint_updates"] / full["mean_joint_updates"],
        "two_stage_batch_update_reduction": 1.0
        - two["batch_mean_joint_updates"] / full["batch_mean_joint_updates"],
        "two_stage_success_minus_ccd": two["success"] - full["success"],
    }
    met = {
        "single CCD ≥ 5× faster than ikpy at ≥ success": checks["single_ccd_speedup_vs_ikpy"] >= 5
        and checks["single_ccd_success_minus_ikpy"] >= 0,
        "batched CCD ≥ 100× ikpy throughput": checks["batch_ccd_throughput_vs_ikpy"] >= 100,
        # On the batch: the mean over 1,000 targets; full CCD's restart tail makes the
        # mean over the single-solve targets noisy (it is printed too).
        "two-stage ≥ 40 % fewer joint updates at ≥ success": checks[
            "two_stage_batch_update_reduction"
        ]
        >= 0.4
        and checks["two_stage_success_minus_ccd"] >= 0,
    }
    return checks, met


def print_ik_tables(result: dict[str, Any], console: Console) -> None:
    """The tables of the benchmark for people."""
    rows = result["rows"]
    table = Table(
        title=f"IK on the standard humanoid: {result['targets']} single targets, batch of "
        f"{result['batch']}, seed {result['seed']}, success = within 1 mm"
    )
    table.caption = "ikpy's batch rate: one over its mean single-solve time"
    for col in (
        "solver",
        "on",
        "solved",
        "median ms",
        "p95 ms",
        "joint updates",
        "batch solved",
        "batch /s",
    ):
        table.add_column(col, justify="left" if col in ("solver", "on") else "right")
    for r in rows:
        updates = "-" if r["mean_joint_updates"] is None else f"{r['mean_joint_updates']:.1f}"
        bsucc = "-" if r["batch_success"] is None else f"{r['batch_success']:.1%}"
        table.add_row(
            r["solver"],
            r["problem"],
            f"{r['success']:.1%}",
            f"{r['median_ms']:.2f}",
            f"{r['p95_ms']:.2f}",
            updates,
            bsucc,
            f"{r['batch_solves_per_s']:,.0f}",
        )
    print_table(table, console)
    if "checks" not in result:
        console.print(f"ikpy {result['ikpy']}")
        return
    checks, met = result["checks"], result["targets_met"]
    console.print(
        "ikpy chain vs vhuman FK on 20 random arm poses: "
        f"max |Δp| = {result['ikpy_fk_max_diff_m']:.1e} m"
    )
    console.print(
        f"single CCD {checks['single_ccd_speedup_vs_ikpy']:.1f}× faster than ikpy (median), "
        f"success {checks['single_ccd_success_minus_ikpy']:+.1%}; batched CCD "
        f"{checks['batch_ccd_throughput_vs_ikpy']:.0f}× ikpy's throughput; two-stage CCD "
        f"{checks['two_stage_batch_update_reduction']:.0%} fewer joint updates than CCD on the "
        f"{result['batch']} whole-body targets ({checks['two_stage_update_reduction']:.0%} on "
        f"the {result['targets']} single ones), success "
        f"{checks['two_stage_success_minus_ccd']:+.1%}"
    )
    for label, ok in met.items():
        console.print(f"  {'met   ' if ok else 'MISSED'} {label}")
    sweep = result.get("switch_sweep")
    if sweep:
        st = Table(title="two-stage CCD: mean joint updates (success) against switch_distance")
        st.add_column("step (m), targets")
        st.add_column("full CCD", justify="right")
        for d in sweep[0]["two_stage"]:
            st.add_column(f"{d} m", justify="right")
        for row in sweep:
            kind = "out of arm's reach" if row["out_of_reach_only"] else "all"
            st.add_row(
                f"{row['step_m'][0]}-{row['step_m'][1]}, {kind}",
                f"{row['ccd_updates']:.1f} ({row['ccd_success']:.0%})",
                *(f"{u:.1f} ({s:.0%})" for u, s in row["two_stage"].values()),
            )
        print_table(st, console)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=200, help="targets solved one at a time")
    parser.add_argument("--batch", type=int, default=1000, help="targets solved in one call")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random targets")
    parser.add_argument("--sweep-switch", action="store_true", help="sweep the switch distance")
    args = parser.parse_args()
    if min(args.targets, args.batch) < 1 or args.seed < 0:
        parser.error("--targets and --batch must be >= 1, --seed >= 0")
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
    run_script(main)
