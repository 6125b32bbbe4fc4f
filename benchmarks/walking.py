"""Generated walking against the CMU walking trials, measured the same way from joint positions.

vhuman walks at 1.0, 1.3 and 1.6 m/s (speed given, step from speed) are set
beside the CMU walking trials (train/walking, train/walking_extra; frame 0 of
each file dropped, 120 fps) of the same Froude number: the CMU subject's
speeds are scaled by √(L_vhuman / L_CMU) with L the hip-knee-ankle leg length,
its lengths by L_vhuman / L_CMU and its cadence by √(L_CMU / L_vhuman) (dynamic
similarity, Alexander & Jayes 1983). A CMU trial counts for a speed when its
scaled speed lies within ±0.15 m/s of it; trials that are not steady straight
walks (step under half the leg length, or a stance share outside 0.55–0.70) are
left out.

Every figure comes from :mod:`vhuman.animation.gait_analysis` (gait events by
Zeni et al. 2008, angles from joint positions, cycles normalised to 0–100 %):
knee, hip and ankle curves (correlation and RMS against the CMU mean with
offsets removed, knee maxima from mid-stance to the swing peak, key values, the
ankle from mid-swing to heel strike),
pelvis excursion, curvature ratio at its minima over its maxima, obliquity,
lateral sway, cadence and step against speed, ball clearance, elbow range,
per-frame smoothness at 60 fps, and from the generator its own foot slide,
floor penetration and generation speed, and the foot-skate measure of the task
check (:func:`vhuman.skeleton.footskate.foot_slide`: the largest horizontal
travel per frame of a heel, ball or toe-tip sphere whose bottom lies within
5 mm of the floor in both frames). Prints one table per speed, the leg IK
table and one JSON line; writes a PNG of vhuman's curves over CMU's mean ± 1 sd.

Run: ``.venv/bin/python benchmarks/walking.py [--figure out/walking_curves.png]``
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from headline import figure, run_script
from vhuman.animation import GaitParameters, LegIK, generate_walk
from vhuman.animation.gait_analysis import (
    CMU_JOINTS,
    VHUMAN_JOINTS,
    GaitAnalysis,
    analyse_gait,
    curve_agreement,
    knee_maxima,
    leg_length,
    monotonic_until,
)
from vhuman.io import check_writable, read_cmu
from vhuman.skeleton import standard_humanoid
from vhuman.skeleton.footskate import SLIDE_TOLERANCE, foot_slide

CMU = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cmu_mocap" / "train"
SPEEDS = (1.0, 1.3, 1.6)
BAND = 0.15  # [m/s] of Froude-scaled speed
CYCLES = 6
CURVES = ("knee", "hip", "ankle")


def cmu_trials(leg_vhuman: float) -> list[dict]:
    """Every steady CMU walking trial, analysed and scaled to vhuman's leg length."""
    trials = []
    for path in sorted(CMU.glob("walking*/*.txt")):
        motion = read_cmu(path)[1:]  # frame 0 is not a pose
        a = analyse_gait(motion, CMU_JOINTS)
        leg = leg_length(motion, CMU_JOINTS)
        if a.step_length_m < 0.5 * leg or not 0.55 <= a.stance_fraction <= 0.7:
            continue
        k = leg_vhuman / leg
        trials.append(
            {
                "name": path.stem,
                "analysis": a,
                "length_scale": k,
                "speed": a.speed_m_s * np.sqrt(k),
                "raw_speed": a.speed_m_s,
            }
        )
    return trials


def figures(a: GaitAnalysis, length_scale: float = 1.0) -> dict:
    """The scalar figures of one analysed walk (lengths times ``length_scale``)."""
    knee, hip, ankle = (a.curves[c].mean(axis=0) for c in CURVES)
    swing_peak = 50 + int(np.argmax(knee[50:]))
    stance_wave = 5 + int(np.argmax(knee[5:30]))
    hip_peak = 30 + int(np.argmin(hip[30:80]))
    toe_off = round(100 * a.stance_fraction)
    mid_swing = round(50 * (1.0 + a.stance_fraction))
    return {
        "knee_maxima": float(np.mean(knee_maxima(a.curves["knee"]))),
        "knee_swing_peak_deg": float(knee[swing_peak]),
        "knee_swing_peak_pct": swing_peak,
        "knee_stance_wave_deg": float(knee[stance_wave]),
        "knee_stance_wave_pct": stance_wave,
        "knee_toe_off_deg": float(knee[min(toe_off, 100)]),
        "hip_extension_peak_pct": hip_peak,
        "hip_range_deg": float(np.ptp(hip)),
        "hip_monotonic": bool(monotonic_until(hip, 0) >= 0),
        "ankle_loading_deg": float(ankle[3:12].min()),
        "ankle_push_off_deg": float(ankle[55:72].min()),
        "ankle_push_off_pct": 55 + int(np.argmin(ankle[55:72])),
        "ankle_swing_low_deg": float(ankle[mid_swing:].min()),
        "ankle_swing_high_deg": float(ankle[mid_swing:].max()),
        "stance_fraction": a.stance_fraction,
        "cadence_steps_min": a.cadence_steps_min / np.sqrt(length_scale),
        "step_length_m": a.step_length_m * length_scale,
        "pelvis_excursion_cm": 100 * a.pelvis_excursion_m * length_scale,
        "pelvis_curvature_ratio": a.pelvis_curvature_ratio,
        "obliquity_deg": a.obliquity_deg,
        "sway_cm": 100 * a.sway_m * length_scale,
        "ball_clearance_cm": 100 * a.ball_clearance_m * length_scale,
        "elbow_range_deg": a.elbow_range_deg,
        "hip_step_deg": a.angle_step_deg["hip"],
        "knee_step_deg": a.angle_step_deg["knee"],
        "ankle_step_deg": a.angle_step_deg["ankle"],
        "leg_acceleration_p99_deg": a.leg_acceleration_p99_deg,
    }


def speed_table(speed: float, ours: dict, band: list[dict], result) -> dict:
    """Print vhuman's figures at ``speed`` beside the CMU trials of its band; return them."""
    a: GaitAnalysis = ours["analysis"]
    cmu = [figures(t["analysis"], t["length_scale"]) for t in band]
    mine = figures(a)
    agreement = {}
    for c in CURVES:
        cycles = np.concatenate([t["analysis"].curves[c] for t in band])
        agreement[c] = curve_agreement(a.curves[c].mean(axis=0), cycles.mean(axis=0))
    limit_acc = 5.0 * max(1.0, mine["cadence_steps_min"] / 110.0)
    mine.update(
        {
            "knee_r": agreement["knee"][0],
            "knee_rms_deg": agreement["knee"][1],
            "hip_r": agreement["hip"][0],
            "hip_rms_deg": agreement["hip"][1],
            "ankle_r": agreement["ankle"][0],
            "ankle_rms_deg": agreement["ankle"][1],
            "foot_skate_mm": result.foot_skate_mm,
            "ground_penetration_mm": result.ground_penetration_mm,
            "floor_slide_mm_per_frame": 1e3 * float(foot_slide(result.motion).max()),
            "generation_fps": ours["generation_fps"],
            "speed_m_s": a.speed_m_s,
        }
    )
    table = Table(
        title=f"vhuman at {speed} m/s beside {len(band)} CMU trials "
        f"({sum(t['analysis'].cycles for t in band)} cycles) at "
        f"{speed - BAND:.2f}–{speed + BAND:.2f} m/s, Froude-scaled"
    )
    for col in ("figure", "vhuman", "CMU mean ± sd", "target"):
        table.add_column(col)

    def add(label: str, key: str, fmt: str = ".1f", target: str = "") -> None:
        values = np.array([c[key] for c in cmu], dtype=np.float64)
        real = f"{values.mean():{fmt}} ± {values.std():{fmt}}" if len(values) else "-"
        table.add_row(label, f"{mine[key]:{fmt}}", real, target)

    for c in CURVES:
        table.add_row(
            f"{c} r / RMS° vs CMU mean",
            f"{mine[c + '_r']:.2f} / {mine[c + '_rms_deg']:.1f}",
            "1 / 0",
            {"knee": "≥ 0.92 / ≤ 7", "hip": "≥ 0.95 / ≤ 6", "ankle": "≥ 0.85 / ≤ 6"}[c],
        )
    add("knee maxima, mid-stance → swing peak", "knee_maxima", ".2f", "1")
    add("knee at toe-off °", "knee_toe_off_deg", ".0f", "≥ 35")
    add("knee swing peak °", "knee_swing_peak_deg", ".0f", "60–70")
    add("knee swing peak %", "knee_swing_peak_pct", ".0f", "70–78")
    add("knee stance wave °", "knee_stance_wave_deg", ".0f", "10–20")
    add("knee stance wave %", "knee_stance_wave_pct", ".0f", "12–18")
    table.add_row(
        "hip extends monotonically to its peak",
        str(mine["hip_monotonic"]),
        f"{np.mean([c['hip_monotonic'] for c in cmu]):.0%} of trials",
        "yes",
    )
    add("hip extension peak %", "hip_extension_peak_pct", ".0f", "50–58")
    add("hip range °", "hip_range_deg", ".0f", "40–55")
    add("ankle loading response °", "ankle_loading_deg", ".1f", "−3…−8")
    add("ankle push-off °", "ankle_push_off_deg", ".1f", "−15…−20")
    add("ankle push-off %", "ankle_push_off_pct", ".0f", "60–67")
    add("ankle from mid-swing to heel strike, least °", "ankle_swing_low_deg", ".1f", "≥ −5")
    add("ankle from mid-swing to heel strike, most °", "ankle_swing_high_deg", ".1f", "≤ 5")
    add("stance fraction (Zeni events)", "stance_fraction", ".3f")
    add("cadence steps/min", "cadence_steps_min", ".0f")
    add("step m", "step_length_m", ".3f")
    add(
        "pelvis excursion cm",
        "pelvis_excursion_cm",
        ".1f",
        {1.0: "≈ 2.5", 1.3: "≈ 4", 1.6: "≈ 5"}[speed],
    )
    add("pelvis curvature, minima / maxima", "pelvis_curvature_ratio", ".2f", "0.7–1.5")
    add("pelvic obliquity °", "obliquity_deg", ".1f", "6–12")
    add("lateral sway cm", "sway_cm", ".1f", "falls ~6 → 3.5")
    add("ball clearance, mid-swing cm", "ball_clearance_cm", ".1f", "2–3")
    add("elbow range °", "elbow_range_deg", ".0f", "15–25")
    add("hip °/frame max at 60 fps", "hip_step_deg", ".1f", "≤ 7")
    add("knee °/frame max at 60 fps", "knee_step_deg", ".1f", "≤ 10")
    add("ankle °/frame max at 60 fps", "ankle_step_deg", ".1f", "≤ 10")
    add(
        "leg angular acceleration p99 °/frame²",
        "leg_acceleration_p99_deg",
        ".2f",
        f"≤ {limit_acc:.1f}",
    )
    table.add_row(
        "foot slide mm / penetration mm",
        f"{mine['foot_skate_mm']:.3f} / {mine['ground_penetration_mm']:.3f}",
        "-",
        "≤ 1 / ≤ 1",
    )
    table.add_row(
        "heel/ball/toe slide while within 5 mm of the floor, mm/frame",
        f"{mine['floor_slide_mm_per_frame']:.2f}",
        "-",
        f"≤ {1e3 * SLIDE_TOLERANCE:.0f}",
    )
    table.add_row("generation frames/s", f"{mine['generation_fps']:,.0f}", "-", "≥ 5,000")
    Console(width=120).print(table)
    return {
        "speed_m_s": speed,
        "vhuman": mine,
        "cmu_trials": [t["name"] for t in band],
        "cmu": {
            k: [float(np.mean([c[k] for c in cmu])), float(np.std([c[k] for c in cmu]))]
            for k in mine
            if k in cmu[0]
        }
        if cmu
        else {},
    }


def speed_relations(trials: list[dict], ours: dict[float, dict]) -> dict:
    """Cadence and step against speed: CMU's least-squares lines (raw units) and vhuman's."""
    v = np.array([t["raw_speed"] for t in trials])
    cadence = np.array([t["analysis"].cadence_steps_min for t in trials])
    step = np.array([t["analysis"].step_length_m for t in trials])
    fit_c, fit_s = np.polyfit(v, cadence, 1), np.polyfit(v, step, 1)
    r_c, r_s = np.corrcoef(v, cadence)[0, 1], np.corrcoef(v, step)[0, 1]
    table = Table(title="Cadence and step against speed")
    for col in ("", "cadence = a + b·v", "r", "step = a + b·v", "r"):
        table.add_column(col)
    table.add_row(
        f"CMU, {len(trials)} trials (own units)",
        f"{fit_c[1]:.0f} + {fit_c[0]:.0f}·v",
        f"{r_c:.2f}",
        f"{fit_s[1]:.2f} + {fit_s[0]:.2f}·v",
        f"{r_s:.2f}",
    )
    for speed, o in ours.items():
        a = o["analysis"]
        table.add_row(
            f"vhuman at {speed} m/s",
            f"{a.cadence_steps_min:.0f} steps/min",
            "",
            f"{a.step_length_m:.3f} m",
            "",
        )
    Console(width=120).print(table)
    return {
        "cmu_cadence_fit": [float(fit_c[1]), float(fit_c[0]), float(r_c)],
        "cmu_step_fit": [float(fit_s[1]), float(fit_s[0]), float(r_s)],
    }


def plot(path: Path, ours: dict[float, dict], bands: dict[float, list[dict]]) -> None:
    """vhuman's mean curves over the CMU mean ± 1 sd, one row per speed (PNG, atomic)."""
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from vhuman.io import atomic_write

    x = np.arange(101)
    fig, axes = plt.subplots(len(ours), 3, figsize=(12, 3 * len(ours)), squeeze=False)
    for row, (speed, o) in enumerate(ours.items()):
        for col, c in enumerate(CURVES):
            ax = axes[row, col]
            if bands[speed]:
                cycles = np.concatenate([t["analysis"].curves[c] for t in bands[speed]])
                mean, sd = cycles.mean(axis=0), cycles.std(axis=0)
                ax.fill_between(x, mean - sd, mean + sd, color="0.8", label="CMU ± 1 sd")
                ax.plot(x, mean, color="0.3", label="CMU mean")
            ax.plot(x, o["analysis"].curves[c].mean(axis=0), color="C3", label="vhuman")
            ax.set_title(f"{c}, {speed} m/s")
            ax.set_xlabel("% of gait cycle")
            ax.set_ylabel("degrees")
    axes[0, 0].legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=90)
    atomic_write(path, buffer.getvalue())
    plt.close(fig)


def leg_ik_rows(repeats: int = 3) -> list[dict]:
    """The README's walk (0.7 m, 1.3 m/s, 4 cycles) with each leg IK: speed and contacts."""
    rows, reference = [], None
    for method in LegIK:
        params = GaitParameters(step_length=0.7, speed=1.3, cycles=4, leg_ik=method)
        results = [generate_walk(params) for _ in range(repeats)]
        best = max(results, key=lambda r: r.generation_fps)
        figures_ = best.to_dict()
        ankles = best.motion.skeleton.indices(["l_ankle", "r_ankle"])
        ankle = best.motion.global_positions[:, ankles]
        reference = ankle if reference is None else reference
        gap = 1e3 * float(np.linalg.norm(ankle - reference, axis=-1).max())
        rows.append(
            {
                "leg_ik": method,
                "generation_fps": best.generation_fps,
                "joint_updates_per_solve": None
                if figures_["ik_joint_updates"] is None
                else figures_["ik_joint_updates"] / figures_["ik_solves"],
                "converged": f"{figures_['ik_converged']}/{figures_['ik_solves']}",
                "ankle_gap_to_analytic_mm": gap,
                "foot_skate_mm": best.foot_skate_mm,
                "max_joint_step_deg": best.max_joint_step_deg,
            }
        )
    table = Table(title="Leg IK of the README walk (0.7 m, 1.3 m/s, 4 cycles; best of 3)")
    for col in (
        "leg IK",
        "frames/s",
        "updates/solve",
        "converged",
        "ankle gap mm",
        "skate mm",
        "max step °",
    ):
        table.add_column(col)
    for r in rows:
        per = r["joint_updates_per_solve"]
        table.add_row(
            r["leg_ik"],
            f"{r['generation_fps']:,.0f}",
            "-" if per is None else f"{per:.0f}",
            r["converged"],
            f"{r['ankle_gap_to_analytic_mm']:.2f}",
            f"{r['foot_skate_mm']:.2f}",
            f"{r['max_joint_step_deg']:.1f}",
        )
    Console(width=120).print(table)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--figure",
        type=Path,
        default=Path("out/walking_curves.png"),
        help="PNG of vhuman's curves over CMU's mean ± 1 sd",
    )
    args = parser.parse_args()
    args.figure.parent.mkdir(parents=True, exist_ok=True)
    check_writable(args.figure, "--figure")
    body = standard_humanoid()
    ours: dict[float, dict] = {}
    for speed in SPEEDS:
        params = GaitParameters(speed=speed, cycles=CYCLES)
        best = None
        for _ in range(3):
            t0 = time.perf_counter()
            result = generate_walk(params, body)
            fps = result.motion.n_frames / (time.perf_counter() - t0)
            best = (result, fps) if best is None or fps > best[1] else best
        result, fps = best
        ours[speed] = {
            "result": result,
            "generation_fps": fps,
            "analysis": analyse_gait(result.motion, VHUMAN_JOINTS),
        }
    leg = leg_length(ours[SPEEDS[0]]["result"].motion, VHUMAN_JOINTS)
    trials = cmu_trials(leg) if CMU.is_dir() else []
    if not trials:
        Console().print(f"CMU trials missing ({CMU}): vhuman's figures only")
    bands = {s: [t for t in trials if abs(t["speed"] - s) <= BAND] for s in SPEEDS}
    rows = [speed_table(s, ours[s], bands[s], ours[s]["result"]) for s in SPEEDS]
    relations = speed_relations(trials, ours) if trials else {}
    ik = leg_ik_rows()
    plot(args.figure, ours, bands)
    Console(width=120).print(f"figure: {args.figure}")
    print(
        json.dumps(
            {
                "benchmark": "walking",
                "speeds": rows,
                "speed_relations": relations,
                "leg_ik": ik,
                "figure": str(args.figure),
                "headline": headline(rows, bands),
            }
        )
    )


def headline(rows: list[dict], bands: dict[float, list[dict]]) -> list[dict]:
    """At 1.3 m/s: knee, hip and ankle curves against the CMU mean (r), and generation rate."""
    k = SPEEDS.index(1.3)
    mine = rows[k]["vhuman"]
    out = []
    if bands[1.3]:
        for joint, target in (("knee", 0.92), ("hip", 0.95), ("ankle", 0.85)):
            out.append(
                figure(
                    "walking",
                    f"{joint} curve r vs CMU mean, 1.3 m/s",
                    mine[f"{joint}_r"],
                    "",
                    target=target,
                )
            )
    out.append(
        figure("walking", "generation, 1.3 m/s", mine["generation_fps"], "frames/s", target=5000.0)
    )
    return out


if __name__ == "__main__":
    run_script(main)
