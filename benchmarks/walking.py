"""Generated walking against real walking (CMU motion capture, DeepMimic clip).

For each real clip: speed, cadence, step length over stature, the ranges of
knee and hip flexion measured from joint positions, and how fast the knees move
(the largest and the 99th-percentile change of knee flexion between frames at
60 fps, both legs); then the same figures for vhuman's walk generated at the
same speed and the same step length over stature (so the cadence differs only
through stature), plus generation speed. Then the knee steps of every CMU
walking trial between 0.9 and 1.5 m/s beside the generated walk at its speed
and step, and the leg IK table. Prints the tables and one JSON line.

Run: ``.venv/bin/python benchmarks/walking.py``
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from vhuman.animation import LEG_IK, GaitParameters, generate_walk
from vhuman.errors import InputError
from vhuman.geometry import flexion_angle
from vhuman.io import deepmimic_clip_path, read_cmu, read_deepmimic
from vhuman.skeleton import Motion, standard_humanoid

CMU = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cmu_mocap" / "train"
CMU_WALKS = ("walking/walking_1.txt", "walking/walking_2.txt", "walking/walking_3.txt",
             "walking_extra/walking_13.txt", "walking_extra/walking_20.txt")  # fmt: skip
# Joint names per skeleton: pelvis, thorax, left/right hip, knee, ankle, head top.
NAMES = {
    "cmu": ("hips", "thorax", "lhip", "rhip", "lknee", "rknee", "lankle", "rankle", "head_top"),
    "deepmimic": ("root", "chest", "left_hip", "right_hip", "left_knee", "right_knee",
                  "left_ankle", "right_ankle", "neck"),
    "vhuman": ("pelvis", "chest", "l_hip", "r_hip", "l_knee", "r_knee", "l_ankle", "r_ankle",
               "head"),
}  # fmt: skip


def knee_flexion(hip: np.ndarray, knee: np.ndarray, ankle: np.ndarray) -> np.ndarray:
    """Knee flexion ``(T,)`` [deg]: the angle between thigh and shank, from positions ``(T, 3)``."""
    return np.degrees(flexion_angle(hip, knee, ankle))


def flexion_ranges(motion: Motion, names: tuple[str, ...]) -> tuple[float, float, float, float]:
    """Knee flexion (min, max) and hip flexion (min, max) of the left leg [deg]."""
    sk = motion.skeleton
    p = motion.global_positions
    pel, tho, lhip, rhip, lknee, _, lankle, _, _ = (p[:, sk.index(n)] for n in names)
    thigh = lknee - lhip
    knee = knee_flexion(lhip, lknee, lankle)
    lateral = lhip - rhip
    lateral /= np.linalg.norm(lateral, axis=-1, keepdims=True)
    up = tho - pel
    up -= np.sum(up * lateral, -1, keepdims=True) * lateral
    up /= np.linalg.norm(up, axis=-1, keepdims=True)
    forward = np.cross(lateral, up)
    hip = np.degrees(np.arctan2(np.sum(thigh * forward, -1), np.sum(thigh * -up, -1)))
    return float(knee.min()), float(knee.max()), float(hip.min()), float(hip.max())


def knee_steps(motion: Motion, names: tuple[str, ...], fps: float = 60.0) -> tuple[float, float]:
    """Largest and 99th-percentile change of knee flexion between frames at ``fps`` [deg].

    Knee flexion from joint positions of both legs, resampled to ``fps`` by
    linear interpolation in time (the CMU files are at 120 fps, the DeepMimic
    clip at 30).
    """
    sk = motion.skeleton
    p = motion.global_positions
    times = np.arange(0.0, motion.duration + 1e-9, 1.0 / fps)
    steps = []
    for leg in ((names[2], names[4], names[6]), (names[3], names[5], names[7])):
        flexion = knee_flexion(*(p[:, sk.index(n)] for n in leg))
        steps.append(np.abs(np.diff(np.interp(times, motion.times, flexion))))
    all_steps = np.concatenate(steps)
    return float(all_steps.max()), float(np.percentile(all_steps, 99))


def cadence_and_speed(motion: Motion, names: tuple[str, ...]) -> tuple[float, float]:
    """Steps per minute and speed [m/s] of a straight walk.

    Steps are the sign changes of the feet's fore-aft separation (one per
    step); speed is displacement over time (a frame-to-frame path would sum
    mocap jitter).
    """
    sk = motion.skeleton
    p = motion.global_positions
    root = motion.root_positions[:, :2]
    direction = (root[-1] - root[0]) / np.linalg.norm(root[-1] - root[0])
    signal = (p[:, sk.index(names[6]), :2] - p[:, sk.index(names[7]), :2]) @ direction
    # Sub-frame times of the sign changes, by linear interpolation.
    i = np.flatnonzero(np.sign(signal[:-1]) * np.sign(signal[1:]) < 0)
    crossings = (i + signal[i] / (signal[i] - signal[i + 1])) / motion.fps
    cadence = 60.0 * (len(crossings) - 1) / (crossings[-1] - crossings[0])
    return float(cadence), float(np.linalg.norm(root[-1] - root[0])) / motion.duration


def stature(motion: Motion, names: tuple[str, ...]) -> float:
    """Standing height [m]: top joint over the lowest joint in the rest pose."""
    rest = motion.skeleton.rest_positions()
    return float(rest[:, 2].max() - rest[:, 2].min())


def row(label: str, motion: Motion, names: tuple[str, ...], height: float) -> dict:
    cadence, speed = cadence_and_speed(motion, names)
    kmin, kmax, hmin, hmax = flexion_ranges(motion, names)
    step = speed * 60.0 / cadence
    knee_max, knee_p99 = knee_steps(motion, names)
    return {"clip": label, "speed_m_s": speed, "cadence_steps_min": cadence,
            "step_over_stature": step / height, "knee_flexion_deg": [kmin, kmax],
            "hip_flexion_deg": [hmin, hmax], "knee_step_deg": [knee_max, knee_p99]}  # fmt: skip


def cmu_knee_steps(h: float) -> list[dict]:
    """Knee steps of every CMU walking trial at 0.9–1.5 m/s and of our walk at its gait."""
    rows = []
    for path in sorted(CMU.glob("walking*/*.txt")):
        m = read_cmu(path)[1:]
        real = row(path.stem, m, NAMES["cmu"], stature(m, NAMES["cmu"]))
        if not 0.9 <= real["speed_m_s"] <= 1.5:
            continue
        params = GaitParameters(
            step_length=real["step_over_stature"] * h, speed=real["speed_m_s"], cycles=4
        )
        ours = generate_walk(params)
        rows.append({"clip": path.stem, "speed_m_s": real["speed_m_s"],
                     "step_over_stature": real["step_over_stature"],
                     "knee_step_deg": real["knee_step_deg"],
                     "vhuman_knee_step_deg": list(knee_steps(ours.motion, NAMES["vhuman"])),
                     "vhuman_max_joint_step_deg": ours.max_joint_step_deg})  # fmt: skip
    return rows


def leg_ik_rows(repeats: int = 3) -> list[dict]:
    """The default walk (0.7 m, 1.3 m/s, 4 cycles) with each leg IK: speed and contacts."""
    rows, reference = [], None
    for method in LEG_IK:
        params = GaitParameters(cycles=4, leg_ik=method)
        results = [generate_walk(params) for _ in range(repeats)]
        best = max(results, key=lambda r: r.generation_fps)
        figures = best.to_dict()
        ankles = best.motion.skeleton.indices(["l_ankle", "r_ankle"])
        ankle = best.motion.global_positions[:, ankles]
        reference = ankle if reference is None else reference
        gap = 1e3 * float(np.linalg.norm(ankle - reference, axis=-1).max())
        rows.append({
            "leg_ik": method, "generation_fps": best.generation_fps,
            "joint_updates_per_solve": None if figures["ik_joint_updates"] is None
            else figures["ik_joint_updates"] / figures["ik_solves"],
            "converged": f"{figures['ik_converged']}/{figures['ik_solves']}",
            "ankle_gap_to_analytic_mm": gap,
            "foot_skate_mm": best.foot_skate_mm, "max_joint_step_deg": best.max_joint_step_deg,
        })  # fmt: skip
    return rows


def main() -> None:
    rows: list[dict] = []
    real: list[tuple[str, Motion, tuple[str, ...], float]] = []
    dm = read_deepmimic(deepmimic_clip_path("walk"))
    # The DeepMimic humanoid's head top is not a joint: neck + head sphere (0.25 scale).
    real.append(("DeepMimic walk", dm, NAMES["deepmimic"], stature(dm, NAMES["deepmimic"]) + 0.2))
    if CMU.is_dir():
        for name in CMU_WALKS:
            m = read_cmu(CMU / name)[1:]  # frame 0 of these files is a reset pose
            real.append((f"CMU {Path(name).stem}", m, NAMES["cmu"], stature(m, NAMES["cmu"])))
    body = standard_humanoid()
    h = 1.678
    for label, motion, names, height in real:
        r = row(label, motion, names, height)
        rows.append(r)
        params = GaitParameters(
            step_length=r["step_over_stature"] * h, speed=r["speed_m_s"], cycles=4
        )
        t0 = time.perf_counter()
        try:
            ours = generate_walk(params, body)
        except InputError as exc:
            rows.append({"clip": "  vhuman: not generated", "of": label, "reason": str(exc)})
            continue
        elapsed = time.perf_counter() - t0
        mine = row("  vhuman", ours.motion, NAMES["vhuman"], h)
        mine["generation_fps"] = ours.motion.n_frames / elapsed
        mine["foot_skate_mm"] = ours.foot_skate_mm
        rows.append(mine)
    table = Table(title="Generated vs real walking (left leg; flexion from joint positions)")
    for col in ("clip", "speed m/s", "cadence /min", "step/stature", "knee flex °", "hip flex °",
                "knee °/frame max, p99"):  # fmt: skip
        table.add_column(col)
    for r in rows:
        if "reason" in r:
            table.add_row(r["clip"], "", "", "", "", "", "")
            continue
        table.add_row(
            r["clip"], f"{r['speed_m_s']:.2f}", f"{r['cadence_steps_min']:.0f}",
            f"{r['step_over_stature']:.3f}",
            "{:.0f} … {:.0f}".format(*r["knee_flexion_deg"]),
            "{:.0f} … {:.0f}".format(*r["hip_flexion_deg"]),
            "{:.1f}, {:.1f}".format(*r["knee_step_deg"]),
        )  # fmt: skip
    Console(width=120).print(table)
    for r in rows:
        if "reason" in r:
            Console(width=120).print(f"vhuman at the gait of {r['of']}: {r['reason']}")
    knee_rows = cmu_knee_steps(h) if CMU.is_dir() else []
    if knee_rows:
        real_p99 = np.array([r["knee_step_deg"][1] for r in knee_rows])
        ours_p99 = np.array([r["vhuman_knee_step_deg"][1] for r in knee_rows])
        ours_max = np.array([r["vhuman_max_joint_step_deg"] for r in knee_rows])
        Console(width=120).print(
            f"Knee change per frame at 60 fps, {len(knee_rows)} CMU walking trials at "
            f"0.9–1.5 m/s: 99th percentile {real_p99.min():.1f}–{real_p99.max():.1f}° "
            f"(median {np.median(real_p99):.1f}°, {np.mean(real_p99 > 5.0):.0%} of trials "
            f"above 5°); vhuman at the same gaits {ours_p99.min():.1f}–{ours_p99.max():.1f}° "
            f"(median {np.median(ours_p99):.1f}°), largest joint step "
            f"{ours_max.min():.1f}–{ours_max.max():.1f}°"
        )
    ik_rows = leg_ik_rows()
    table = Table(title="Leg IK of the default walk (0.7 m, 1.3 m/s, 4 cycles; best of 3)")
    for col in ("leg IK", "frames/s", "updates/solve", "converged", "ankle gap mm", "skate mm",
                "max step °"):  # fmt: skip
        table.add_column(col)
    for r in ik_rows:
        per = r["joint_updates_per_solve"]
        table.add_row(
            r["leg_ik"], f"{r['generation_fps']:,.0f}", "-" if per is None else f"{per:.0f}",
            r["converged"], f"{r['ankle_gap_to_analytic_mm']:.2f}", f"{r['foot_skate_mm']:.2f}",
            f"{r['max_joint_step_deg']:.1f}",
        )  # fmt: skip
    Console(width=120).print(table)
    if not CMU.is_dir():
        Console().print(f"CMU clips skipped: {CMU} is missing")
    print(json.dumps({"benchmark": "walking", "rows": rows, "cmu_knee_steps": knee_rows,
                      "leg_ik": ik_rows}))  # fmt: skip


if __name__ == "__main__":
    main()
