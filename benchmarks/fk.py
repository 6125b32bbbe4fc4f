"""Forward kinematics and BVH reading: vhuman against a Python loop, pybvh and bvhio.

One run, one motion: 10,000 frames of the standard humanoid (23 joints) with
smooth random joint rotations, written once as BVH. Prints a table and one JSON
line. Targets: batched FK ≥ 10 million joint-frames/s on one core;
reading the 10,000-frame BVH < 0.5 s.

Run: ``.venv/bin/python benchmarks/fk.py [--frames N] [--repeats R]``
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

# One core, as the target says: set before numpy loads its BLAS.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np
from rich.console import Console
from rich.table import Table

from headline import figure, run_script
from vhuman.geometry import euler_to_quat, quat_to_rotmat
from vhuman.io import read_bvh, write_bvh
from vhuman.skeleton import Motion, forward_kinematics, standard_humanoid


def best_time(fn: Callable[[], object], repeats: int) -> float:
    """Smallest wall time of ``repeats`` calls [s]."""
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def python_loop_fk(parents, offsets, root, local) -> np.ndarray:
    """Reference: a Python loop over frames and joints with 3×3 matrices."""
    t_count, j_count = local.shape[:2]
    mats = quat_to_rotmat(local)
    pos = np.zeros((t_count, j_count, 3))
    rot = np.zeros((j_count, 3, 3))
    for t in range(t_count):
        for j in range(j_count):
            p = parents[j]
            if p < 0:
                rot[j] = mats[t, j]
                pos[t, j] = root[t]
            else:
                rot[j] = rot[p] @ mats[t, j]
                pos[t, j] = pos[t, p] + rot[p] @ offsets[j]
    return pos


def smooth_motion(n_frames: int, seed: int = 0) -> tuple[Motion, np.ndarray]:
    """Standard humanoid with smooth random ZXY Euler trajectories inside ±40°, and the angles."""
    sk = standard_humanoid()
    rng = np.random.default_rng(seed)
    t = np.arange(n_frames) / 60.0
    freq = rng.uniform(0.2, 1.5, size=(1, sk.n_joints, 3))
    phase = rng.uniform(0, 2 * np.pi, size=(1, sk.n_joints, 3))
    euler = np.radians(40.0) * np.sin(2 * np.pi * freq * t[:, None, None] + phase)
    root = np.stack([1.2 * t, 0.1 * np.sin(t), 0.9 + 0.02 * np.sin(6 * t)], axis=1)
    return Motion(sk, 60.0, root, euler_to_quat(euler, "ZXY")), euler


def growth(sizes: list[int], repeats: int) -> list[dict]:
    """Batched FK rate over motion lengths, beside copying the rotations at each length.

    The copy reads 32 and writes 32 bytes per joint-frame, more than FK's least
    traffic (32 bytes of rotation in, 24 of position out): FK cannot run faster
    than it, so it is the memory bound.
    """
    out = []
    for n in sizes:
        motion, _ = smooth_motion(n)
        sk = motion.skeleton
        dst = np.empty_like(motion.local_rotations)
        fk = best_time(
            lambda m=motion, s=sk: forward_kinematics(
                s.parents, s.offsets, m.root_positions, m.local_rotations
            ),
            repeats,
        )
        copy = best_time(lambda m=motion, d=dst: np.copyto(d, m.local_rotations), repeats)
        jf = n * sk.n_joints
        out.append(
            {"frames": n, "fk_joint_frames_per_s": jf / fk, "copy_joint_frames_per_s": jf / copy}
        )
    return out


def headline(rows: list[dict], grown: list[dict], frames: int) -> list[dict]:
    """Batched FK beside the Python loop and pybvh; its rate over lengths beside the copy."""
    rate = {r["implementation"]: r.get("joint_frames_per_s") for r in rows}
    ours = rate["vhuman batched (quaternions)"]
    out = [
        figure(
            "FK",
            f"{frames:,} frames",
            ours,
            "joint-frames/s",
            peer="Python loop",
            peer_value=rate["Python loop over frames and joints (1 run)"],
        ),
        figure(
            "FK",
            f"{frames:,} frames",
            ours,
            "joint-frames/s",
            peer="pybvh",
            peer_value=rate["pybvh frames_to_node_positions (Euler)"],
        ),
    ]
    out += [
        figure(
            "FK",
            f"{g['frames']:,} frames",
            g["fk_joint_frames_per_s"],
            "joint-frames/s",
            peer="memory bound",
            peer_value=g["copy_joint_frames_per_s"],
        )
        for g in grown
    ]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument(
        "--growth",
        type=int,
        nargs="*",
        default=[1000, 10_000, 100_000, 1_000_000],
        help="motion lengths [frames] for FK's rate beside the memory bound",
    )
    args = parser.parse_args()
    motion, euler = smooth_motion(args.frames)
    sk = motion.skeleton
    jf = args.frames * sk.n_joints
    rows: list[dict] = []

    def fk_quat() -> object:
        return forward_kinematics(
            sk.parents, sk.offsets, motion.root_positions, motion.local_rotations
        )

    ours = fk_quat()[0]
    t = best_time(fk_quat, args.repeats)
    rows.append(
        {
            "task": "FK",
            "implementation": "vhuman batched (quaternions)",
            "seconds": t,
            "joint_frames_per_s": jf / t,
        }
    )

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.bvh"
        write_bvh(motion, path)
        size_mb = path.stat().st_size / 1e6
        t = best_time(lambda: read_bvh(path), args.repeats)
        rows.append(
            {
                "task": "BVH read",
                "implementation": "vhuman read_bvh",
                "seconds": t,
                "frames_per_s": args.frames / t,
            }
        )
        loaded = read_bvh(path)
        max_diff_read = float(np.abs(loaded.global_positions - ours).max())

        import bvhio
        import pybvh

        t = best_time(lambda: pybvh.read_bvh_file(path, world_up="+y"), args.repeats)
        rows.append(
            {
                "task": "BVH read",
                "implementation": "pybvh read_bvh_file",
                "seconds": t,
                "frames_per_s": args.frames / t,
            }
        )
        t = best_time(lambda: bvhio.readAsBvh(str(path)), 1)
        rows.append(
            {
                "task": "BVH read",
                "implementation": "bvhio readAsBvh (1 run)",
                "seconds": t,
                "frames_per_s": args.frames / t,
            }
        )
        bvh = pybvh.read_bvh_file(path, world_up="+y")

        def fk_pybvh() -> object:
            return pybvh.frames_to_node_positions(
                bvh, root_pos=bvh.root_pos, joint_angles=bvh.joint_angles
            )

        t = best_time(fk_pybvh, args.repeats)
        rows.append(
            {
                "task": "FK",
                "implementation": "pybvh frames_to_node_positions (Euler)",
                "seconds": t,
                "joint_frames_per_s": jf / t,
            }
        )

    def fk_euler() -> object:
        q = euler_to_quat(euler, "ZXY")
        return forward_kinematics(sk.parents, sk.offsets, motion.root_positions, q)

    t = best_time(fk_euler, args.repeats)
    rows.append(
        {
            "task": "FK",
            "implementation": "vhuman from Euler angles (incl. conversion)",
            "seconds": t,
            "joint_frames_per_s": jf / t,
        }
    )
    t = best_time(
        lambda: python_loop_fk(
            sk.parents, sk.offsets, motion.root_positions, motion.local_rotations
        ),
        1,
    )
    rows.append(
        {
            "task": "FK",
            "implementation": "Python loop over frames and joints (1 run)",
            "seconds": t,
            "joint_frames_per_s": jf / t,
        }
    )
    loop = python_loop_fk(
        sk.parents, sk.offsets, motion.root_positions[:50], motion.local_rotations[:50]
    )
    loop_diff = float(np.abs(loop - ours[:50]).max())

    table = Table(
        title=f"FK and BVH reading, {args.frames} frames × {sk.n_joints} joints, "
        f"BVH {size_mb:.1f} MB"
    )
    for col in ("task", "implementation", "time [ms]", "throughput"):
        table.add_column(col)
    for r in rows:
        rate = (
            f"{r['joint_frames_per_s'] / 1e6:.2f} M joint-frames/s"
            if "joint_frames_per_s" in r
            else f"{r['frames_per_s']:,.0f} frames/s"
        )
        table.add_row(r["task"], r["implementation"], f"{r['seconds'] * 1e3:.1f}", rate)
    grown = growth(args.growth, args.repeats)
    console = Console()
    console.print(table)
    for g in grown:
        console.print(
            f"FK over {g['frames']:>9,} frames: "
            f"{g['fk_joint_frames_per_s'] / 1e6:6.2f} M joint-frames/s; copying the "
            f"rotations (memory bound) {g['copy_joint_frames_per_s'] / 1e6:6.1f} M"
        )
    console.print(
        f"vhuman FK vs Python loop, first 50 frames: max |Δp| = {loop_diff:.1e} m; "
        f"BVH written then read: max |Δp| = {max_diff_read:.1e} m"
    )
    print(
        json.dumps(
            {
                "benchmark": "fk",
                "frames": args.frames,
                "joints": sk.n_joints,
                "rows": rows,
                "max_diff_python_loop_m": loop_diff,
                "max_diff_bvh_round_trip_m": max_diff_read,
                "growth": grown,
                "headline": headline(rows, grown, args.frames),
            }
        )
    )


if __name__ == "__main__":
    run_script(main)
