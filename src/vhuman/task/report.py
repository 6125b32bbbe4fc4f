"""Task outputs: motion (BVH, npz), JSON summary, timeline, checks over time, HTML report."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.task.check import failed_checks
from vhuman.task.run import TaskResult

__all__ = [
    "ACTION_LEVEL_COLORS",
    "SUMMARY",
    "check_rows",
    "checks_figure",
    "failed_checks",
    "timeline_figure",
    "write_task_outputs",
]

SUMMARY = "task.json"
"""The summary's file name; written last, so that it marks a complete output folder."""

ACTION_LEVEL_COLORS = ("#2ca02c", "#bcbd22", "#ff7f0e", "#d62728", "#8c564b")
"""Colours of REBA/RULA action levels 0 … 4 (none … now)."""
_STEP_COLORS = {
    "walk_to": "#9ecae1",
    "posture": "#fdae6b",
    "reach": "#a1d99b",
    "turn": "#fc9272",
    "hold": "#bcbddc",
    "stand_up": "#fdd0a2",
}


def timeline_figure(result: TaskResult) -> Any:
    """A matplotlib figure: the steps as spans over time, REBA and RULA scores under them,
    coloured by action level, the worst moment and the first contact marked."""
    from matplotlib.figure import Figure

    t = result.motion.times
    fig = Figure(figsize=(9.0, 4.6))
    ax_steps, ax_score = fig.subplots(2, 1, sharex=True, height_ratios=(1, 3))
    for s in result.steps:
        colour = _STEP_COLORS.get(s.kind, "#cccccc") if s.done else "#ff9896"
        ax_steps.axvspan(s.start_s, max(s.end_s, s.start_s + 0.05), color=colour, alpha=0.9)
        label = s.kind if s.done else f"{s.kind} (not done)"
        ax_steps.text(
            0.5 * (s.start_s + s.end_s),
            0.5,
            label,
            ha="center",
            va="center",
            fontsize=7,
            rotation=90 if s.end_s - s.start_s < 2.0 else 0,
        )
    ax_steps.set_yticks([])
    ax_steps.set_title(f"task {result.spec.name}: steps, REBA and RULA over time")
    for name, res, style in (("REBA", result.reba, "-"), ("RULA", result.rula, "--")):
        score = res.score.astype(float)
        ax_score.plot(t, score, style, color="#444444", lw=1.2, label=f"{name} score")
        level = res.action_level
        for a in np.unique(level):
            ax_score.scatter(
                t[level == a], score[level == a], s=4, color=ACTION_LEVEL_COLORS[min(int(a), 4)]
            )
    for a, colour in enumerate(ACTION_LEVEL_COLORS[:4]):
        ax_score.scatter([], [], s=12, color=colour, label=f"action level {a}")
    worst = int(np.argmax(result.reba.score))
    ax_score.axvline(t[worst], color="#d62728", lw=0.8, ls=":", label="worst moment (REBA)")
    contact = result.check.first_contact
    if contact is not None:
        ax_score.axvline(contact["time_s"], color="black", lw=1.0, label="first contact")
    ax_score.set_xlabel("time [s]")
    ax_score.set_ylabel("score")
    ax_score.legend(loc="upper left", fontsize=7, ncol=2)
    ax_score.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def checks_figure(result: TaskResult) -> Any:
    """A matplotlib figure: the frame-by-frame checks over time, the steps shaded behind.

    Five panels: clearance to the scene [mm] (below 0 is a contact), the
    centre of mass's margin inside the support [mm] (out of walking; below 0
    is unbalanced), the largest foot slide on the floor [mm/frame] with its
    1 mm tolerance, the largest excess over a joint range [°] and the fastest
    joint relative to its own speed limit (:func:`vhuman.task.check.joint_speed_ratio`).
    """
    from matplotlib.figure import Figure

    from vhuman.skeleton.footskate import SLIDE_TOLERANCE

    c = result.check
    t = result.motion.times
    fig = Figure(figsize=(9.0, 7.6))
    axes = fig.subplots(5, 1, sharex=True)
    panels = (
        ("clearance [mm]", 1e3 * c.min_clearance, 0.0),
        ("balance margin [mm]", np.where(c.static, 1e3 * c.balance_margin, np.nan), 0.0),
        ("foot slide [mm/frame]", 1e3 * c.foot_slide, 1e3 * SLIDE_TOLERANCE),
        ("beyond joint range [°]", np.degrees(c.limit_violation), 0.0),
        ("joint speed / its limit", c.joint_speed_ratio, 1.0),
    )
    for ax, (label, values, limit) in zip(axes, panels, strict=True):
        for s in result.steps:
            colour = _STEP_COLORS.get(s.kind, "#cccccc")
            ax.axvspan(s.start_s, max(s.end_s, s.start_s + 0.05), color=colour, alpha=0.25, lw=0)
        ax.plot(t, values, color="#333333", lw=0.9)
        ax.axhline(limit, color="#d62728", lw=0.8, ls="--")
        ax.set_ylabel(label, fontsize=8)
        ax.grid(alpha=0.3)
    axes[0].set_title(
        f"task {result.spec.name}: checks per frame (dashed: the limit; steps shaded as above)"
    )
    axes[-1].set_xlabel("time [s]")
    fig.tight_layout()
    return fig


def check_rows(check: dict[str, Any]) -> list[dict[str, str]]:
    """One table row per check of a task's ``check`` summary (``MotionCheck.to_dict()``).

    Each row names the check, the frames that fail it and its worst value.
    """
    contact = check["first_contact"]
    return [
        {
            "check": "contact with the scene",
            "frames failing": f"{check['frames_in_contact']} of {check['frames_checked']}",
            "worst": "none"
            if contact is None
            else f"first at {contact['time_s']:.2f} s: {contact['body_part']} in "
            f"{contact['solid']}, {1e3 * contact['depth_m']:.1f} mm deep",
        },
        {
            "check": "joint ranges",
            "frames failing": f"{check['frames_beyond_joint_limits']} of {check['frames_checked']}",
            "worst": f"{check['joint_limit_violation_max_deg']:.1f}° beyond",
        },
        {
            "check": f"joints under {check['joint_speed_limit_deg_s']:.0f}°/s (knees, ankles "
            f"{check['leg_joint_speed_limit_deg_s']:.0f}°/s)",
            "frames failing": f"{check['frames_over_joint_speed']} of {check['frames_checked']}",
            "worst": f"{check['joint_speed_max_deg_s']:.0f}°/s",
        },
        {
            "check": "centre of mass over the support (out of walking)",
            "frames failing": f"{check['static_frames_unbalanced']} of {check['static_frames']}",
            "worst": "—"
            if check["balance_margin_min_m"] is None
            else f"margin {1e3 * check['balance_margin_min_m']:.0f} mm",
        },
        {
            "check": "feet not sliding, over 1 mm a frame (out of walking)",
            "frames failing": f"{check['static_frames_feet_sliding']} of {check['static_frames']}",
            "worst": f"{check['foot_slide_max_mm_per_frame']:.1f} mm a frame",
        },
        {
            "check": "feet not sliding, over 1 mm a frame (walking)",
            "frames failing": f"{check['walking_frames_feet_sliding']} of "
            f"{check['frames_checked'] - check['static_frames']}",
            "worst": f"{check['walking_foot_slide_max_mm_per_frame']:.1f} mm a frame",
        },
    ]


def _scene_meshes(result: TaskResult) -> list[Any]:
    from vhuman.viz import SceneMesh

    out = []
    for obj in result.scene.objects:
        v, f = obj.triangulate()
        lo, hi = obj.bounds()
        wall = float(np.sort(hi - lo)[-2]) > 1.5  # walls: faint, the worker seen through them
        out.append(
            SceneMesh(obj.name, v, f, color=obj.color or "#b0b0b0", opacity=0.15 if wall else 0.9)
        )
    return out


def _verdict(result: TaskResult) -> str:
    c = result.check.first_contact
    if c is None:
        return f"no contact in {result.check.frames_checked} frames checked"
    return (
        f"first contact at {c['time_s']:.2f} s: {c['body_part']} in {c['solid']} "
        f"by {1e3 * c['depth_m']:.1f} mm"
    )


def _per_frame(result: TaskResult) -> dict[str, NDArray[Any]]:
    c = result.check
    return {
        "time_s": result.motion.times,
        "reba_score": result.reba.score,
        "reba_action_level": result.reba.action_level,
        "rula_score": result.rula.score,
        "rula_action_level": result.rula.action_level,
        "contacts": c.contacts,
        "min_clearance_m": c.min_clearance,
        "joint_limit_violation_rad": c.limit_violation,
        "balance_margin_m": c.balance_margin,
        "walking": ~c.static,
        "foot_slide_m": c.foot_slide,
        "joint_speed_rad_s": c.joint_speed,
        "joint_speed_ratio": c.joint_speed_ratio,
        "arm_comfort": result.arm_comfort,
    }


def write_task_outputs(result: TaskResult, folder: str | Path) -> dict[str, str]:
    """Write ``task.bvh``, ``task.npz``, ``frames.npz``, ``timeline.png``, ``checks.png``,
    ``report.html`` and, last, ``task.json`` into ``folder`` (each file atomically).

    ``frames.npz`` holds the per-frame figures (time, REBA/RULA score and action
    level, contacts, clearance, joint-limit excess, balance margin, walking,
    foot slide, fastest joint, arm comfort).

    Returns
    -------
    dict
        File kind → path.
    """
    from vhuman.io import atomic_path, atomic_write, save_motion
    from vhuman.viz import Report, motion_figure, save_figure
    from vhuman.viz.scene_view import scene_figure

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    names = {
        "bvh": "task.bvh",
        "npz": "task.npz",
        "frames": "frames.npz",
        "json": SUMMARY,
        "timeline": "timeline.png",
        "checks": "checks.png",
        "report": "report.html",
    }
    paths = {k: out / name for k, name in names.items()}
    save_motion(result.motion, paths["bvh"])
    save_motion(result.motion, paths["npz"])
    with atomic_path(paths["frames"]) as tmp, open(tmp, "wb") as fh:
        np.savez_compressed(fh, **_per_frame(result))
    files = {k: str(v) for k, v in paths.items()}
    save_figure(timeline_figure(result), paths["timeline"])
    save_figure(checks_figure(result), paths["checks"])

    doc = result.to_dict()
    report = Report(f"Task: {result.spec.name}")
    status = "done" if result.done else f"stopped — {result.reason}"
    head = report.add_section(
        "Task",
        f"{result.spec.description or result.spec.name}\n\nWorker {result.spec.worker} in scene "
        f"**{result.scene.name}**: {status}. {result.motion.n_frames} frames at "
        f"{result.motion.fps:g} fps ({result.motion.duration:.1f} s). Collision: "
        f"{_verdict(result)}. REBA max {doc['reba']['max']}, RULA max {doc['rula']['max']}.",
    )
    report.add_summary(head, f"{status}; {_verdict(result)}; {failed_checks(doc['check'])}")
    rows = [
        {
            "step": s.kind,
            "start s": f"{s.start_s:.2f}",
            "end s": f"{s.end_s:.2f}",
            "done": "yes" if s.done else f"no: {s.reason}",
        }
        for s in result.steps
    ]
    head.add_table(rows, caption="Steps")
    view = report.add_section("The worker in the scene")
    view.add_plotly(
        motion_figure(
            result.motion,
            scene=_scene_meshes(result),
            follow=False,
            title=f"{result.spec.name}: {result.spec.worker}",
        ),
        caption="The whole task, body capsules in the scene (walls drawn faint)",
    )
    time_section = report.add_section("Ergonomics over time")
    time_section.add_image(paths["timeline"], caption="Steps, REBA and RULA scores per frame")
    levels = []
    for name, key in (("REBA", "reba"), ("RULA", "rula")):
        spent = doc[key]["time_by_action_level_s"].items()
        levels.append(
            {
                "method": name,
                "max": doc[key]["max"],
                **{f"level {a} s": f"{v:.1f}" for a, v in spent},
            }
        )
    time_section.add_table(levels, caption="Time in each action level [s]")
    worst = doc["reba"]["worst_frame"]
    m = result.motion
    pose_section = report.add_section(
        "Worst moment", f"REBA {doc['reba']['max']} at {doc['reba']['worst_time_s']:.2f} s."
    )
    from vhuman.scene import BodyModel

    pose_section.add_plotly(
        scene_figure(
            result.scene,
            body=BodyModel.from_skeleton(m.skeleton, samples_per_segment=1),
            pose=(m.root_positions[worst], m.local_rotations[worst]),
            title=f"worst moment, {doc['reba']['worst_time_s']:.2f} s",
        ),
        caption="The pose with the highest REBA score",
    )
    checks = report.add_section("Checks", f"Every frame checked: {_verdict(result)}.")
    checks.add_table(check_rows(doc["check"]), caption="Checks over all frames")
    checks.add_image(
        paths["checks"],
        caption="Clearance, balance margin, foot slide, joint-range excess and joint speed per "
        "frame: look for the curves crossing their dashed limits",
    )
    checks.add_json(doc, caption="All figures (task.json)")
    report.write(paths["report"])
    summary = {**result.to_dict(), "files": files}
    atomic_write(paths["json"], json.dumps(summary, indent=1) + "\n")
    return files
