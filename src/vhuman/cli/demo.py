"""`vhuman demo`: the main job on embedded defaults, gathered in one HTML report.

It makes a walk generated from step length and speed (keyframes + analytic leg
IK) and two real walks, motion capture from CMU (shipped with vhuman) and the
DeepMimic clip when pybullet's data is installed, each converted to BVH and
npz and read back, rendered (pose, trajectories, joint-angle curves, GIF) and
shown in an interactive viewer; a right-hand reach (minimum jerk, learned
swivel angle, closed-form arm IK) with its speed, joint-velocity and
swivel-angle plots; the maintenance posture of a 95th-percentile man at a
ship's valve (scene, octree, Pareto front, REBA/RULA); the shipped walking
controller simulated in MuJoCo with a short run of its evolution; and the
shipped prediction model continuing the CMU walk beside the truth.

Each part, once done, is kept in ``sections/<part>.npz`` (its figures and its
report sections, a checkpoint of :mod:`vhuman.io.checkpoint`); ``summary.json``
is written last and marks the folder complete. Run again into a folder without
it (a run that was killed), the demo reuses the parts done and runs the rest;
into a complete folder, it starts over.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

from vhuman.errors import InputError
from vhuman.geometry import flexion_angle
from vhuman.skeleton import Motion

__all__ = ["DEMO_REACH_TARGET", "SECTIONS", "VIEW_FPS", "run_demo"]

SECTIONS = "sections"
"""Folder (in the demo's output) of the parts done, each ``<part>.npz``."""

VIEW_FPS = 10.0
"""Playback rate [frames/s] of the report's body viewers: motions are decimated to it."""
PHYSICS_VIEW_FPS = 8.0
"""Playback rate [frames/s] of the 8 s simulated walk, lower to keep the report small."""


def _flexion_curves(motion: Motion, triples: dict[str, tuple[str, str, str]]) -> dict:
    """Flexion in degrees at the middle joint of named joint triples."""
    pos = motion.global_positions
    sk = motion.skeleton
    out = {}
    for label, (a, b, c) in triples.items():
        ia, ib, ic = sk.indices([a, b, c])
        out[label] = np.degrees(flexion_angle(pos[:, ia], pos[:, ib], pos[:, ic]))
    return out


def _walk_section(
    report, motion: Motion, out: Path, name: str, joints: dict, step, extra: dict
) -> dict:
    """Convert, read back, render and view one clip; add its section to the report.

    ``extra`` holds figures for the summary, and under ``"ghost"`` optionally a
    (motion, legend name, caption) drawn in the viewer beside the clip.
    """
    from vhuman.io import load_motion, save_motion
    from vhuman.viz import (
        motion_figure,
        plot_curves,
        plot_pose,
        plot_trajectories,
        save_animation,
        save_figure,
    )

    ghost, ghost_name, ghost_caption = extra.pop("ghost", (None, "ghost", ""))
    bvh, npz = out / f"{name}.bvh", out / f"{name}.npz"
    save_motion(motion, bvh)
    save_motion(motion, npz)
    step()
    back_bvh, back_npz = load_motion(bvh), load_motion(npz)
    err_bvh = float(motion.position_difference(back_bvh).max())
    err_npz = float(motion.position_difference(back_npz).max())
    step()
    mid = motion.n_frames // 2
    pose_png, traj_png, curve_png = (out / f"{name}_{k}.png" for k in ("pose", "paths", "angles"))
    save_figure(plot_pose(motion, mid), pose_png)
    save_figure(plot_trajectories(motion, list(joints["paths"])), traj_png)
    curves = _flexion_curves(motion, joints["angles"])
    save_figure(
        plot_curves(motion.times, curves, ylabel="flexion [deg]", title=f"{name}: joint angles"),
        curve_png,
    )
    gif = out / f"{name}.gif"
    save_animation(motion, gif, max_frames=120)
    step()
    lo, hi = motion.extent()
    travel = float(np.linalg.norm(np.ptp(motion.root_positions[:, :2], axis=0)))
    figures = {
        **extra,
        "frames": motion.n_frames,
        "fps": motion.fps,
        "duration_s": motion.duration,
        "joints": motion.skeleton.n_joints,
        "extent_m": [lo.tolist(), hi.tolist()],
        "bvh_round_trip_max_error_m": err_bvh,
        "npz_round_trip_max_error_m": err_npz,
        "files": [str(p.name) for p in (bvh, npz, pose_png, traj_png, curve_png, gif)],
    }
    section = report.add_section(name)
    section.add_text(
        f"{motion.n_frames} frames at {motion.fps:g} fps ({motion.duration:.2f} s), "
        f"{motion.skeleton.n_joints} joints. Written as BVH and npz and read back: largest "
        f"joint-position difference {err_bvh * 1e3:.2g} mm (BVH), {err_npz * 1e3:.2g} mm (npz)."
    )
    section.add_plotly(
        motion_figure(
            motion,
            trajectories=tuple(joints["paths"]),
            title=name,
            fps=VIEW_FPS,
            ghost=ghost,
            ghost_name=ghost_name,
        ),
        "The body (capsules) walking, axes in metres, 1 m floor grid; the camera follows the "
        "pelvis, 'Play whole path' shows the whole walk. Look for feet that stay put in stance."
        + ghost_caption,
    )
    section.add_image(pose_png, f"pose at frame {mid} (m): a mid-stride posture, sides coloured")
    section.add_image(traj_png, "joint paths, top and side views (m): even steps, a steady head")
    section.add_image(curve_png, "flexion angles (deg) over time (s): one bell per gait cycle")
    section.add_file_link(gif, f"{gif.name}: the same walk as a GIF (stick figure)")
    section.add_json(figures, "figures")
    generated = extra.get("generated")
    if generated is not None:
        report.add_summary(
            section,
            f"step {generated['step_length_m']:.3f} m, {generated['speed_m_s']:.2f} m/s, "
            f"{generated['cadence_steps_min']:.0f} steps/min, foot skate "
            f"{generated['foot_skate_mm']:.2g} mm, made at "
            f"{generated['generation_fps']:.0f} frames/s",
            "asked 0.7 m at 1.3 m/s; skate 0 mm",
        )
    else:
        report.add_summary(
            section,
            f"{motion.n_frames} frames, {motion.duration:.2f} s, {travel:.2f} m walked; BVH "
            f"round trip {err_bvh * 1e3:.2g} mm",
            "round trip under 0.01 mm",
        )
    step()
    return figures


def _cmu_beside_generated() -> tuple[Motion, dict]:
    """The CMU walk, and beside it a walk generated at its measured speed and step length.

    The generated walk is time-aligned to the CMU walk by gait cycle (left heel
    strikes) and put 0.8 m to its left, as the viewer's ghost.
    """
    from vhuman.animation import GaitParameters, generate_walk
    from vhuman.animation.gait_analysis import CMU_JOINTS, analyse_gait
    from vhuman.io import cmu_walking_example
    from vhuman.viz.comparison import gait_aligned

    clip = cmu_walking_example()
    gait = analyse_gait(clip, CMU_JOINTS)
    params = GaitParameters(step_length=gait.step_length_m, speed=gait.speed_m_s, cycles=3)
    generated = generate_walk(params).motion
    ghost = gait_aligned(
        generated, clip, reference_joints=("pelvis", "l_ankle"), motion_joints=("hips", "lankle")
    )
    caption = (
        f" Beside it (blue ghost), a walk generated at the CMU walk's measured speed "
        f"({gait.speed_m_s:.2f} m/s) and step length ({gait.step_length_m:.2f} m), time-aligned "
        "by gait cycle (left heel strikes at the same frames): compare the two at equal phase."
    )
    compared = {"speed_m_s": gait.speed_m_s, "step_length_m": gait.step_length_m}
    return clip, {"ghost": (ghost, "generated walk", caption), "generated_beside": compared}


DEMO_REACH_TARGET = (0.55, -0.25, 1.45)
"""World target [m] of the demo's right-hand reach (the standard humanoid at the origin)."""


def _reach_section(report, out: Path, step: Callable[[], None]) -> dict:
    """A right-hand reach with the shipped deep MLP, and that MLP on the shipped CMU clip."""
    from vhuman.io import cmu_walking_example, save_motion
    from vhuman.reaching import swivel_samples_from_motion, wrap_angle
    from vhuman.reaching.reach import default_predictor, generate_reach
    from vhuman.viz import motion_figure, plot_curves, save_figure

    result = generate_reach(DEMO_REACH_TARGET, side="right")
    motion = result.motion
    bvh = out / "reach.bvh"
    save_motion(motion, bvh)
    step()
    t = motion.times
    hand = motion.global_positions[:, motion.skeleton.index("r_hand")]
    speed = np.linalg.norm(np.gradient(hand, t, axis=0), axis=-1)
    speed_png, joints_png, swivel_png = (
        out / f"reach_{k}.png" for k in ("speed", "joints", "swivel")
    )
    save_figure(
        plot_curves(
            t, {"hand speed": speed}, ylabel="speed [m/s]", title="hand speed (minimum jerk)"
        ),
        speed_png,
    )
    names = (
        "q1 abduction",
        "q2 flexion",
        "q3 rotation",
        "q4 elbow",
        "q5 pronation",
        "q6 wrist flexion",
        "q7 wrist deviation",
    )
    velocity = np.degrees(np.gradient(result.arm_angles, t, axis=0))
    save_figure(
        plot_curves(
            t,
            dict(zip(names, velocity.T, strict=True)),
            ylabel="joint speed [deg/s]",
            title="arm joint velocities",
        ),
        joints_png,
    )
    # The shipped deep MLP on the CMU walk shipped with vhuman (a training trial: a check of
    # the fit, not a held-out score; `vhuman swivel evaluate` gives the held-out one).
    clip = cmu_walking_example()
    measured = swivel_samples_from_motion(clip, "right")
    keep = np.isfinite(measured.swivel)
    predicted = default_predictor().predict(measured.features[keep])
    clip_mae = float(np.degrees(np.mean(np.abs(wrap_angle(predicted - measured.swivel[keep])))))
    save_figure(
        plot_curves(
            clip.times[keep],
            {"measured φ": np.degrees(measured.swivel[keep]), "predicted φ": np.degrees(predicted)},
            ylabel="swivel angle [deg]",
            title="right arm, CMU walk: measured vs predicted swivel angle",
        ),
        swivel_png,
    )
    step()
    figures = {
        **result.to_dict(),
        "cmu_walk_swivel_mae_deg": clip_mae,
        "files": [p.name for p in (bvh, speed_png, joints_png, swivel_png)],
    }
    section = report.add_section("reach")
    section.add_text(
        f"Right-hand reach to {list(DEMO_REACH_TARGET)} m in {motion.duration:g} s from the ready "
        "pose: minimum-jerk hand path, swivel angle from the shipped deep MLP at every frame, "
        "closed-form arm IK (Xia et al. 2021). Final hand error "
        f"{figures['final_position_error_mm']:.2g} mm, path straightness "
        f"{figures['path_straightness']:.4f}, peak/mean speed {figures['peak_to_mean_speed']:.3f} "
        f"(ideal 1.875), largest joint speed {figures['max_joint_speed_rad_s']:.2f} rad/s."
    )
    section.add_plotly(
        motion_figure(
            motion,
            trajectories=("r_hand",),
            points={"target": DEMO_REACH_TARGET},
            title="reach",
            fps=VIEW_FPS,
        ),
        "The body reaching (axes in metres): the hand's path (green) runs straight to the "
        "target (red diamond) and stops on it.",
    )
    section.add_image(speed_png, "hand speed (m/s) over time (s): a single bell, zero at both ends")
    section.add_image(joints_png, "arm joint velocities (deg/s) over time (s): zero at both ends")
    section.add_image(
        swivel_png,
        f"swivel angle (deg) on the CMU walk shipped with vhuman (a training trial): predicted "
        f"follows measured, MAE {clip_mae:.1f}°",
    )
    section.add_json(figures, "figures")
    report.add_summary(
        section,
        f"hand error {figures['final_position_error_mm']:.2g} mm, peak/mean speed "
        f"{figures['peak_to_mean_speed']:.3f}, swivel MAE {clip_mae:.1f}° (CMU walk)",
        "minimum jerk peak/mean speed 1.875 (Flash & Hogan 1985)",
    )
    step()
    return figures


def _physics_section(report, out: Path, step: Callable[[], None]) -> dict:
    """The shipped walking controller in MuJoCo, and a short live run of the evolution."""
    from vhuman.control.controller import default_controller_path, load_controller
    from vhuman.control.optimize import optimize_controller
    from vhuman.control.simulation import simulate
    from vhuman.io import deepmimic_clip_path, read_deepmimic, save_motion
    from vhuman.viz import motion_figure, plot_curves, plot_pareto, save_figure
    from vhuman.viz.comparison import gait_aligned, repeated

    result, motion = simulate(load_controller(default_controller_path()), 8.0)
    assert motion is not None  # record_fps is set
    bvh = out / "physics_walk.bvh"
    save_motion(motion, bvh)
    step()
    # Three copies of the one-cycle reference clip: two complete cycles between heel strikes.
    reference = gait_aligned(
        repeated(read_deepmimic(deepmimic_clip_path("walk")), 3),
        motion,
        reference_joints=("root", "left_ankle"),
        motion_joints=("root", "left_ankle"),
    )
    # Without pushes, so that several parents survive the 20-cycle window and form a front.
    _, evolution = optimize_controller(
        generations=6, population=12, target_cycles=20.0, push_force=0.0, seed=0
    )
    history = evolution.history
    objectives = np.array([h["best_objectives"] for h in history])
    curves_png, pareto_png = out / "physics_objectives.png", out / "physics_pareto.png"
    save_figure(
        plot_curves(
            [h["generation"] for h in history],
            {
                name: objectives[:, k] / objectives[0, k]
                for k, name in enumerate(("tracking RMSE", "energy / cycle", "torso sway"))
            },
            ylabel="best objective / generation 1",
            xlabel="generation",
            title="evolution of the feedback matrix (short demo run)",
        ),
        curves_png,
    )
    save_figure(
        plot_pareto(
            evolution.parent_objectives[:, :2],
            ["tracking RMSE [rad]", "energy / cycle [J]"],
            title="final parents of the demo run",
        ),
        pareto_png,
    )
    step()
    figures = {
        **result.to_dict(),
        "demo_evolution": {k: v for k, v in evolution.to_dict().items() if k != "history"},
        "files": [p.name for p in (bvh, curves_png, pareto_png)],
    }
    section = report.add_section("physics")
    section.add_text(
        "The shipped walking controller (DeepMimic humanoid in MuJoCo, SIMBICON-structured "
        "PD control with an evolved feedback matrix, patent CN108805965B) simulated for "
        f"{result.duration_s:.1f} s: {result.cycles_completed} cycles, "
        f"{'fell' if result.fell else 'no fall'}, tracking RMSE {result.tracking_rmse_rad:.3f} rad "
        f"against the clip, {result.sim_speed_x_realtime:.0f}× real time. Below, a short "
        "run of the SVM-screened evolution (population 12, 20-cycle target, no pushes): "
        f"{evolution.simulations} simulations, {evolution.screened} offspring screened out."
    )
    section.add_plotly(
        motion_figure(
            motion,
            trajectories=("left_ankle", "right_ankle"),
            title="simulated walk",
            fps=PHYSICS_VIEW_FPS,
            ghost=reference,
            ghost_name="reference clip",
        ),
        "The simulated DeepMimic humanoid (its collision capsules and spheres, axes in metres); "
        "the camera follows the pelvis. Beside it (blue ghost), the reference clip it tracks, "
        "time-aligned by gait cycle (left heel strikes at the same frames). Look for a steady "
        "torso, no stumble, and limbs that move like the reference's.",
    )
    section.add_image(
        curves_png,
        "best objectives per generation over their generation-1 values (no unit): lower is better",
    )
    section.add_image(
        pareto_png,
        "tracking RMSE (rad) against energy per cycle (J) of the final parents of the short run: "
        "the joined points trade one for the other (non-dominated)",
    )
    section.add_json(figures, "figures")
    report.add_summary(
        section,
        f"{result.cycles_completed} cycles, {'fell' if result.fell else 'no fall'}, tracking "
        f"RMSE {result.tracking_rmse_rad:.3f} rad, {result.sim_speed_x_realtime:.0f}× real time",
        "8 cycles without a fall; the DeepMimic reference clip",
    )
    step()
    return figures


def _posture_section(report, out: Path, step: Callable[[], None]) -> dict:
    """The maintenance posture of a 95th-percentile man at the ship-valve scene."""
    from vhuman.cli.posture import write_posture_outputs
    from vhuman.posture import solve_posture
    from vhuman.posture.arm import ArmSetting, solve_arm_nsga2
    from vhuman.posture.solver import GRID_WINDOW
    from vhuman.reaching import Side
    from vhuman.scene import BodyModel, CollisionWorld, load_scene

    scene = load_scene("ship-valve")
    result = solve_posture(scene, seed=0, worker="p95-male")
    # The closed-form IK answers this scene (a one-point Pareto set); NSGA-II without IK
    # seeds at the same placement shows the trade-off between comfort and reach accuracy.
    body = BodyModel.from_skeleton(
        result.motion.skeleton, samples_per_segment=result.settings.samples_per_segment
    )
    setting = ArmSetting(
        body,
        result.placement.root_position,
        result.placement.local_rotations,
        Side.parse(result.settings.side),
        scene.target,
    )
    arm = solve_arm_nsga2(
        setting,
        CollisionWorld(scene, window=GRID_WINDOW),
        population=40,
        generations=40,
        seed=0,
        ik_seeding=False,
    )
    step()
    folder = out / "posture"
    files = write_posture_outputs(result, folder, also_into=report, front=arm.pareto_f)
    figures = result.to_dict()
    report.add_summary(
        report.sections[-1],
        f"{'reached' if result.reached else 'not reached'}, {figures['collisions']} collisions, "
        f"clearance {figures['min_clearance_mm']:.1f} mm, {figures['library_posture']}, "
        f"REBA {figures['reba_score']} ({figures['reba_risk']}), RULA {figures['rula_score']}",
        "REBA 1 negligible to 11+ very high risk (Hignett & McAtamney 2000)",
    )
    step()
    return {**figures, "files": [str(Path(p).relative_to(out)) for p in files.values()]}


def _prediction_section(report, out: Path, step: Callable[[], None]) -> dict:
    """The shipped Transformer continuing the CMU walk, beside zero velocity and the truth."""
    from vhuman.io import cmu_walking_example, save_motion
    from vhuman.prediction import load_model, mpjpe, predict_motion
    from vhuman.prediction.shipped import default_model_path
    from vhuman.viz import motion_figure, plot_curves, save_figure

    model, info = load_model(default_model_path("lie-transformer"))
    clip = cmu_walking_example().resample(info.sample_fps)
    horizon = model.n_future
    cut = clip.n_frames - horizon - 1
    observed, truth = clip[:cut], clip[cut : cut + horizon]
    predicted = predict_motion(model, info, observed, horizon)
    still = observed[cut - 1 :]
    zero = Motion(
        clip.skeleton,
        clip.fps,
        np.repeat(still.root_positions, horizon, axis=0),
        np.repeat(still.local_rotations, horizon, axis=0),
    )
    bvh = out / "prediction.bvh"
    save_motion(predicted, bvh)
    step()

    def centred(m: Motion) -> NDArray[np.float64]:  # root-relative joint positions (T, J, 3)
        p = m.global_positions
        return p - p[:, :1]

    t_ms = 1000.0 * np.arange(1, horizon + 1) / clip.fps
    errors = {
        "transformer": mpjpe(centred(predicted), centred(truth)),
        "zero velocity": mpjpe(centred(zero), centred(truth)),
    }
    curve_png = out / "prediction_error.png"
    save_figure(
        plot_curves(
            t_ms,
            errors,
            ylabel="MPJPE [mm] (root-relative, all joints)",
            xlabel="time after the last observed frame [ms]",
            title="CMU walk continued by the shipped model",
        ),
        curve_png,
    )
    step()
    figures = {
        "model": "lie-transformer",
        "sample_fps": info.sample_fps,
        "observed_frames": model.n_observed,
        "predicted_frames": horizon,
        "mpjpe_mm_at_end": {k: float(v[-1]) for k, v in errors.items()},
        "mpjpe_mm_mean": {k: float(v.mean()) for k, v in errors.items()},
        "files": [p.name for p in (bvh, curve_png)],
    }
    section = report.add_section("prediction")
    section.add_text(
        f"The shipped Transformer (rotation vectors; Ueda et al. 2022) observes "
        f"{model.n_observed} frames of the CMU walk shipped with vhuman (a training trial: an "
        f"illustration, not a score; `vhuman predict evaluate` scores held-out trials) and "
        f"predicts the next {horizon} at {info.sample_fps:g} fps. Mean root-relative MPJPE "
        f"over the horizon: {figures['mpjpe_mm_mean']['transformer']:.0f} mm, zero velocity "
        f"{figures['mpjpe_mm_mean']['zero velocity']:.0f} mm."
    )
    tail = observed[max(cut - 2 * horizon, 0) :]
    gap = np.full(tail.n_frames, np.nan)
    joint_error = 1000.0 * np.linalg.norm(centred(predicted) - centred(truth), axis=-1)
    section.add_plotly(
        motion_figure(
            tail.concatenate(predicted),
            ghost=tail.concatenate(truth),
            ghost_name="true future",
            joint_values=np.concatenate(
                [np.zeros((tail.n_frames, joint_error.shape[1])), joint_error]
            ),
            value_label="joint error [mm]",
            curves={k: np.concatenate([gap, v]) for k, v in errors.items()},
            curve_label="MPJPE [mm]",
            title="observed, then predicted (coloured by joint error) and the true future "
            "(blue ghost)",
            fps=VIEW_FPS,
        ),
        f"The last {tail.duration:.2f} s observed, then {horizon} predicted frames "
        f"({1000.0 * horizon / clip.fps:.0f} ms); axes in metres. Each body part turns from tan "
        "to red with its root-relative position error (mm); where the ghost and the body part, "
        "the prediction is off. Under the player, the error over the horizon (mm) against time "
        "(s), the line marking the frame shown.",
        height=760,
    )
    section.add_image(
        curve_png,
        "MPJPE (mm) over the horizon (ms): the model stays under the zero-velocity baseline",
    )
    section.add_json(figures, "figures")
    end_ms = 1000.0 * horizon / clip.fps
    report.add_summary(
        section,
        f"MPJPE {figures['mpjpe_mm_mean']['transformer']:.0f} mm mean, "
        f"{figures['mpjpe_mm_at_end']['transformer']:.0f} mm at {end_ms:.0f} ms",
        f"zero velocity {figures['mpjpe_mm_mean']['zero velocity']:.0f} mm mean, "
        f"{figures['mpjpe_mm_at_end']['zero velocity']:.0f} mm at {end_ms:.0f} ms",
    )
    step()
    return figures


def _task_section(report, out: Path, step: Callable[[], None]) -> dict:
    """The built-in ship-valve task: walk in, get down, reach, turn, hold, stand up, walk out."""
    from vhuman.task import run_task
    from vhuman.task.report import check_rows, failed_checks, write_task_outputs

    result = run_task("ship-valve", seed=0)
    step()
    files = write_task_outputs(result, out / "task")
    d = result.to_dict()
    contact = d["first_contact"]
    contact_text = (
        "no contact"
        if contact is None
        else f"first contact {contact['body_part']} in {contact['solid']} at "
        f"{contact['time_s']:.2f} s ({1e3 * contact['depth_m']:.1f} mm)"
    )
    section = report.add_section("task")
    section.add_text(
        "The built-in ship-valve task (`vhuman task ship-valve`): the worker walks in on a "
        "path planned round the floor obstacles, gets down into the posture the posture "
        "solver picks, reaches the valve, turns its handwheel, holds, stands up and walks "
        "out, as one motion; every frame is checked against the scene, the joint limits and "
        f"(out of walking) balance. Status {d['status']}, {d['frames']} frames at "
        f"{d['fps']:g} fps, {contact_text}; {failed_checks(d['check'])}. The animated worker "
        "in the scene is in its own report, linked below."
    )
    section.add_table(check_rows(d["check"]), caption="Checks over all frames")
    section.add_image(
        files["timeline"],
        "REBA and RULA action levels over time (s), steps shaded: look for the time spent "
        "at level 2 and above while the worker is down at the valve",
    )
    section.add_file_link(Path(files["report"]), "task/report.html: the task's own report")
    section.add_file_link(Path(files["bvh"]), "task/task.bvh: the whole motion")
    section.add_json(d, "figures")
    report.add_summary(
        section,
        f"{d['status']}, {d['frames']} frames, {contact_text}; {failed_checks(d['check'])}; "
        f"REBA max {d['reba']['max']}, RULA max {d['rula']['max']}",
        "a job that passes every check, REBA/RULA as low as the posture allows",
    )
    step()
    return {**d, "files": {k: str(Path(v).relative_to(out)) for k, v in files.items()}}


def _part(report: Any, folder: Path, name: str, run: Callable[[], dict]) -> dict:
    """The figures of part ``name``: run (its report sections added, the whole kept in
    ``folder/<name>.npz``), or as kept there by an earlier run of this version."""
    from vhuman import __version__
    from vhuman.io.checkpoint import load_checkpoint, write_checkpoint

    path = folder / f"{name}.npz"
    identity = {"part": name, "vhuman": __version__}
    if path.is_file():
        stored, state, _ = load_checkpoint(path)
        if stored == identity:
            report.add_stored(state["sections"])
            return state["figures"]
    start = len(report.sections)
    figures = run()
    write_checkpoint(path, identity, {"figures": figures, "sections": report.stored(start)})
    return figures


def run_demo(output: Path, console: Console | None = None) -> dict:
    """Run the demo into ``output``; return its summary (also written as summary.json).

    Parameters
    ----------
    output : Path
        Folder for every file the demo writes (created if missing).
    console : rich Console, optional
        Where to show progress; None for silence.
    """
    from vhuman.animation import GaitParameters, generate_walk
    from vhuman.io import atomic_write, check_writable
    from vhuman.viz import Report

    output.mkdir(parents=True, exist_ok=True)
    parts = output / SECTIONS
    manifest = check_writable(output / "summary.json", "--output")
    if manifest.is_file():  # a complete run: start over
        for kept in parts.glob("*.npz"):
            kept.unlink()
        manifest.unlink()
    parts.mkdir(exist_ok=True)
    report = Report("vhuman demo")
    summary: dict = {"output": str(output)}

    def walk() -> tuple[Motion, dict]:
        result = generate_walk(GaitParameters(step_length=0.7, speed=1.3, cycles=4))
        figures = result.to_dict()
        figures.pop("requested")
        return result.motion, {"generated": figures}

    clips: list[tuple[str, Callable[[], tuple[Motion, dict]], dict]] = [
        (
            "generated_walk",
            walk,
            {
                "paths": ("l_ankle", "r_ankle", "l_hand", "head"),
                "angles": {
                    "left knee": ("l_hip", "l_knee", "l_ankle"),
                    "right knee": ("r_hip", "r_knee", "r_ankle"),
                    "left elbow": ("l_shoulder", "l_elbow", "l_wrist"),
                },
            },
        ),
        (
            "cmu_walk",
            _cmu_beside_generated,
            {
                "paths": ("lankle", "rankle", "lwrist", "head"),
                "angles": {
                    "left knee": ("lhip", "lknee", "lankle"),
                    "right knee": ("rhip", "rknee", "rankle"),
                    "left elbow": ("lshoulder", "lelbow", "lwrist"),
                },
            },
        ),
    ]
    try:
        from vhuman.io import deepmimic_clip_path, read_deepmimic

        path = deepmimic_clip_path("walk")
        clips.append(
            (
                "deepmimic_walk",
                lambda: (read_deepmimic(path), {}),
                {
                    "paths": ("left_ankle", "right_ankle", "left_wrist"),
                    "angles": {
                        "left knee": ("left_hip", "left_knee", "left_ankle"),
                        "right knee": ("right_hip", "right_knee", "right_ankle"),
                    },
                },
            )
        )
    except InputError:  # pybullet's data is not installed
        summary["deepmimic"] = (
            "skipped: pybullet's data is not installed (pip install vhuman[data])"
        )
    steps_per_clip = 5
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=console is None,
        transient=False,
    ) as progress:
        task = progress.add_task("demo", total=steps_per_clip * len(clips) + 3 + 2 + 3 + 3 + 2 + 1)

        def advance() -> None:
            progress.advance(task)

        for name, load, joints in clips:
            progress.update(task, description=f"{name}: load")

            def clip(name: str = name, load: Callable = load, joints: dict = joints) -> dict:
                motion, extra = load()
                advance()

                def step() -> None:
                    progress.update(task, description=f"{name}: convert, render, view")
                    advance()

                return _walk_section(report, motion, output, name, joints, step, extra)

            summary[name] = _part(report, parts, name, clip)
        sections = {
            "reach": _reach_section,
            "posture": _posture_section,
            "task": _task_section,
            "physics": _physics_section,
            "prediction": _prediction_section,
        }
        for name, section in sections.items():
            progress.update(task, description=name)
            if name == "physics" and "deepmimic" in summary:
                summary[name] = summary["deepmimic"]  # the DeepMimic humanoid comes with it
                continue
            summary[name] = _part(
                report, parts, name, lambda section=section: section(report, output, advance)
            )
        report_path = output / "report.html"
        report.write(report_path)
        progress.advance(task)
    summary["report"] = str(report_path)
    atomic_write(manifest, json.dumps(summary, indent=2))
    return summary
