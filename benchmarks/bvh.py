"""BVH reading and writing: vhuman against pybvh and bvhio, over file sizes, with peak memory.

Files: the 38-joint CMU skeleton (``vhuman.io.cmu_skeleton``) with smooth
random ZXY joint rotations and a walking root, written by vhuman in
centimetres with 6 decimals (the common export form), from CMU-clip sizes to
100,000 frames. Every implementation reads the same file; repeats are
interleaved (ours, pybvh, bvhio, ours, ...) and the best time is kept, so a
busy machine slows all alike (``--repeats`` from 5,000 frames up, more on
smaller files: ``repeats · 5000 / frames``, at most ten times as many).

- read: ``read_bvh`` to a ``Motion`` (quaternions, metres, z up, checked), against
  ``pybvh.read_bvh_file`` (Euler angles), pybvh's read plus ``to_quat()``, and
  ``bvhio.readAsBvh`` (Euler angles; pure Python, run on files up to
  ``--bvhio-max`` frames).
- write: ``write_bvh`` against ``pybvh.write_bvh_file`` and
  ``bvhio.writeBvh``, each from its own reader's object of the same file.
  ``write_bvh`` is atomic and durable: it writes a temporary file, flushes it
  to disk (fsync) and renames it; the peers write in place and return with
  the text in the page cache. So the peers are timed twice: as they are, and
  followed by an fsync of their file ("synced": every writer's file on disk).
- memory: peak traced allocation (tracemalloc) of ``read_bvh`` over the
  decoded float array (frames × channels × 8 bytes). ``read_bvh`` maps the
  file (page cache, not traced) instead of copying it.
- times: best wall time (what a user waits; vhuman's reader uses up to 4
  threads on files over 16 MB of frames) and, in the JSON, best CPU time of
  all threads (steadier on a shared machine).

Prints a table and one JSON line (``{"benchmark": "bvh", ...}``).

Run: ``.venv/bin/python benchmarks/bvh.py [--frames 500 5000 20000 100000] [--repeats 3]``
(``--quick``: 500, 5000 and 20,000 frames).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import tracemalloc
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from headline import figure, run_script
from vhuman.geometry import euler_to_quat
from vhuman.io import cmu_skeleton, read_bvh, write_bvh
from vhuman.skeleton import Motion


def cmu_like_motion(n_frames: int, seed: int = 0) -> Motion:
    """CMU skeleton, 120 fps, smooth random ZXY rotations within ±40°, root walking along x."""
    sk = cmu_skeleton()
    rng = np.random.default_rng(seed)
    t = np.arange(n_frames) / 120.0
    freq = rng.uniform(0.2, 1.5, size=(1, sk.n_joints, 3))
    phase = rng.uniform(0, 2 * np.pi, size=(1, sk.n_joints, 3))
    euler = np.radians(40.0) * np.sin(2 * np.pi * freq * t[:, None, None] + phase)
    root = np.stack([1.2 * t, 0.1 * np.sin(t), 0.9 + 0.02 * np.sin(6 * t)], axis=1)
    return Motion(sk, 120.0, root, euler_to_quat(euler, "ZXY"))


def interleaved_best(
    fns: dict[str, Callable[[], object]], repeats: int
) -> tuple[dict[str, float], dict[str, float]]:
    """Best wall time and best CPU time (all threads) [s] of each function, interleaved rounds."""
    wall, cpu = dict.fromkeys(fns, np.inf), dict.fromkeys(fns, np.inf)
    for _ in range(repeats):
        for name, fn in fns.items():
            t0, c0 = time.perf_counter(), time.process_time()
            fn()
            wall[name] = min(wall[name], time.perf_counter() - t0)
            cpu[name] = min(cpu[name], time.process_time() - c0)
    return wall, cpu


def synced(write: Callable[[], object], path: Path) -> Callable[[], None]:
    """``write``, then an fsync of ``path``: the file on disk, as ``write_bvh`` leaves its own."""

    def run() -> None:
        write()
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    return run


def peak_ratio(path: Path, decoded_bytes: int) -> float:
    """Peak traced memory of ``read_bvh(path)`` over ``decoded_bytes``."""
    tracemalloc.start()
    try:
        read_bvh(path, unit="cm")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak / decoded_bytes


def repeats_for(n_frames: int, repeats: int) -> int:
    """Repeats for a file: ``repeats`` from 5,000 frames up, more below (up to 10×).

    A best time is only as good as its quietest repeat; small files are quick
    to repeat, and on a busy machine a few repeats seldom include a quiet one.
    """
    return max(repeats, min(10 * repeats, round(repeats * 5000 / n_frames)))


def measure(n_frames: int, repeats: int, bvhio_max: int, tmp: Path) -> dict:
    """Read, write and memory figures for one file size (``repeats`` as :func:`repeats_for`)."""
    repeats = repeats_for(n_frames, repeats)
    with warnings.catch_warnings():
        # bvhio imports PyGLM by its old name, which PyGLM marks as pending deprecation.
        warnings.filterwarnings(
            "ignore", 'Importing PyGLM via "import glm"', PendingDeprecationWarning
        )
        import bvhio
    import pybvh

    motion = cmu_like_motion(n_frames)
    path = tmp / f"cmu_{n_frames}.bvh"
    write_bvh(motion, path, unit="cm")
    ours = read_bvh(path, unit="cm")
    error = float(np.abs(ours.global_positions - motion.global_positions).max())
    n_channels = len(path.read_text().splitlines()[-1].split())
    run_bvhio = n_frames <= bvhio_max

    reads: dict[str, Callable[[], object]] = {
        "vhuman": lambda: read_bvh(path, unit="cm"),
        "pybvh": lambda: pybvh.read_bvh_file(path),
        "pybvh+quat": lambda: pybvh.read_bvh_file(path).to_quat(),
    }
    if run_bvhio:
        reads["bvhio"] = lambda: bvhio.readAsBvh(str(path))
    read, read_cpu = interleaved_best(reads, repeats)
    peer_bvh = pybvh.read_bvh_file(path)
    writes: dict[str, Callable[[], object]] = {
        "vhuman": lambda: write_bvh(ours, tmp / "out_vhuman.bvh", unit="cm"),
        "pybvh": lambda: pybvh.write_bvh_file(peer_bvh, tmp / "out_pybvh.bvh"),
    }
    if run_bvhio:
        container = bvhio.readAsBvh(str(path))
        writes["bvhio"] = lambda: bvhio.writeBvh(str(tmp / "out_bvhio.bvh"), container, 6)
    for name in [k for k in writes if k != "vhuman"]:
        writes[f"{name} synced"] = synced(writes[name], tmp / f"out_{name}.bvh")
    write, write_cpu = interleaved_best(writes, repeats)
    peers_read = [v for k, v in read.items() if k in ("pybvh", "bvhio")]
    peers_write = [v for k, v in write.items() if k in ("pybvh", "bvhio")]
    peers_synced = [v for k, v in write.items() if k.endswith(" synced")]
    return {
        "frames": n_frames,
        "repeats": repeats,
        "joints": motion.skeleton.n_joints,
        "channels": n_channels,
        "file_mb": path.stat().st_size / 1e6,
        "read_s": read,
        "write_s": write,
        "read_cpu_s": read_cpu,
        "write_cpu_s": write_cpu,
        "read_speedup_vs_fastest_peer": min(peers_read) / read["vhuman"],
        "read_speedup_vs_pybvh_quat": read["pybvh+quat"] / read["vhuman"],
        "write_speedup_vs_fastest_peer": min(peers_write) / write["vhuman"],
        "write_speedup_vs_fastest_peer_synced": min(peers_synced) / write["vhuman"],
        "read_cpu_speedup_vs_pybvh": read_cpu["pybvh"] / read_cpu["vhuman"],
        "write_cpu_speedup_vs_pybvh": write_cpu["pybvh"] / write_cpu["vhuman"],
        "peak_memory_over_decoded": peak_ratio(path, n_frames * n_channels * 8),
        "round_trip_max_error_m": error,
    }


def headline(rows: list[dict]) -> list[dict]:
    """Read and write time per file size beside the fastest peer; peak memory of the largest.

    Writing is judged twice: against the peers as they are, and against the
    peers followed by an fsync of their file (each file on disk, as ``write_bvh``
    leaves its own).
    """
    out = []
    for r in rows:
        for kind, peer_names, label in (
            ("read", ("pybvh", "bvhio"), "read"),
            ("write", ("pybvh", "bvhio"), "write"),
            ("write", ("pybvh synced", "bvhio synced"), "write, peers synced,"),
        ):
            times = r[f"{kind}_s"]
            peers = {k: v for k, v in times.items() if k in peer_names}
            best = min(peers, key=peers.__getitem__)
            out.append(
                figure(
                    "BVH",
                    f"{label} {r['frames']:,} frames",
                    1e3 * times["vhuman"],
                    "ms",
                    peer=best,
                    peer_value=1e3 * peers[best],
                    target=2.0,
                    higher_is_better=False,
                )
            )
    largest = rows[-1]
    out.append(
        figure(
            "BVH",
            f"read peak memory, {largest['frames']:,} frames",
            largest["peak_memory_over_decoded"],
            "× decoded",
            target=3.0,
            higher_is_better=False,
        )
    )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, nargs="+", default=[500, 5000, 20_000, 100_000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--bvhio-max",
        type=int,
        default=20_000,
        help="Largest file (frames) bvhio reads; it is pure Python.",
    )
    parser.add_argument("--quick", action="store_true", help="500, 5000 and 20,000 frames.")
    args = parser.parse_args()
    sizes = [500, 5000, 20_000] if args.quick else args.frames
    with tempfile.TemporaryDirectory() as tmp:
        rows = [measure(n, args.repeats, args.bvhio_max, Path(tmp)) for n in sizes]

    def ms(row: dict, kind: str, name: str) -> str:
        value = row[kind].get(name)
        return "not run" if value is None else f"{value * 1e3:.1f}"

    table = Table(title="BVH read and write [ms, best of interleaved repeats]")
    for column in (
        "frames",
        "MB",
        "read vhuman",
        "pybvh",
        "pybvh+quat",
        "bvhio",
        "read ×",
        "write vhuman",
        "pybvh",
        "bvhio",
        "write ×",
        "+ fsync: pybvh",
        "bvhio",
        "write ×",
        "peak mem",
    ):
        table.add_column(column, justify="right")
    for r in rows:
        table.add_row(
            f"{r['frames']:,}",
            f"{r['file_mb']:.1f}",
            ms(r, "read_s", "vhuman"),
            ms(r, "read_s", "pybvh"),
            ms(r, "read_s", "pybvh+quat"),
            ms(r, "read_s", "bvhio"),
            f"{r['read_speedup_vs_fastest_peer']:.2f}",
            ms(r, "write_s", "vhuman"),
            ms(r, "write_s", "pybvh"),
            ms(r, "write_s", "bvhio"),
            f"{r['write_speedup_vs_fastest_peer']:.2f}",
            ms(r, "write_s", "pybvh synced"),
            ms(r, "write_s", "bvhio synced"),
            f"{r['write_speedup_vs_fastest_peer_synced']:.2f}",
            f"{r['peak_memory_over_decoded']:.2f}×",
        )
    console = Console(width=180)
    console.print(table)
    console.print(
        "read × / write ×: fastest peer's time over vhuman's (target ≥ 2); write_bvh syncs its "
        "file to disk (fsync), the peers do not: '+ fsync' times each peer's write followed by "
        "an fsync of its file. peak mem: read_bvh's peak traced memory over the decoded float "
        "array (target ≤ 3)."
    )
    print(json.dumps({"benchmark": "bvh", "rows": rows, "headline": headline(rows)}))


if __name__ == "__main__":
    run_script(main)
