"""Draw ``docs/images/ergonomics-angles.png``: how vhuman measures the REBA/RULA angles.

One posture of the standard humanoid (trunk flexed and twisted, neck flexed,
right arm raised forward and out, elbow and knees bent) seen from the side,
the front and above, each angle drawn where it is measured and labelled with
the value :func:`vhuman.ergonomics.body_angles` measures on that posture (not
the value the posture was built with).

Run: ``.venv/bin/python docs/ergonomics_figure.py [OUT.png]``
"""

from __future__ import annotations

import sys
from dataclasses import fields
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from numpy.typing import NDArray
from scipy.spatial.transform import Rotation

from vhuman.ergonomics import body_angles
from vhuman.skeleton import Motion, Skeleton, standard_humanoid

OUT = Path(__file__).resolve().parent / "images" / "ergonomics-angles.png"

POSE_DEG: dict[str, tuple[str, tuple[float, ...]]] = {
    "spine": ("yz", (20.0, 8.0)),
    "chest": ("yz", (15.0, 8.0)),
    "neck": ("y", (25.0,)),
    "l_shoulder": ("y", (-30.0,)),
    "r_shoulder": ("xy", (-40.0, -60.0)),
    "r_elbow": ("y", (-80.0,)),
    "l_hip": ("y", (-40.0,)),
    "r_hip": ("y", (-40.0,)),
    "l_knee": ("y", (45.0,)),
    "r_knee": ("y", (45.0,)),
    "l_ankle": ("y", (-10.0,)),
    "r_ankle": ("y", (-10.0,)),
}
"""Joint → intrinsic Euler axes and angles [deg] of the drawn posture (x forward, y left, z up)."""


def posture(skeleton: Skeleton) -> Motion:
    """One frame of ``skeleton`` in the drawn posture, pelvis lowered onto bent knees."""
    rotations = np.tile([1.0, 0.0, 0.0, 0.0], (1, skeleton.n_joints, 1))
    for name, (axes, degrees) in POSE_DEG.items():
        xyzw = Rotation.from_euler(axes, degrees, degrees=True).as_quat()
        rotations[0, skeleton.index(name)] = np.roll(xyzw, 1)
    lifted = Motion(skeleton, 30.0, np.zeros((1, 3)), rotations)
    root = np.array([[0.0, 0.0, -lifted.global_positions[0, :, 2].min()]])  # feet on the floor
    return Motion(skeleton, 30.0, root, rotations)


def draw_body(ax: Axes, skeleton: Skeleton, points: NDArray, axes: tuple[int, int]) -> None:
    """Bones as lines in the plane of world axes ``axes`` (0 x, 1 y, 2 z)."""
    for j, parent in enumerate(skeleton.parents):
        if parent < 0:
            continue
        side = skeleton.names[j][:2]
        colour = {"l_": "#1f77b4", "r_": "#d62728"}.get(side, "#444444")
        a, b = points[parent], points[j]
        ax.plot([a[axes[0]], b[axes[0]]], [a[axes[1]], b[axes[1]]], color=colour, lw=3)
    ax.scatter(points[:, axes[0]], points[:, axes[1]], s=10, color="k", zorder=3)
    ax.set_aspect("equal")
    ax.grid(alpha=0.3)


def arc(ax: Axes, centre: NDArray, start: float, end: float, radius: float, key: str) -> None:
    """The shorter arc from ``start`` to ``end`` [rad] about the 2-D ``centre``, marked ``key``."""
    sweep = (end - start + np.pi) % (2 * np.pi) - np.pi
    t = start + np.linspace(0.0, sweep, 30)
    ax.plot(centre[0] + radius * np.cos(t), centre[1] + radius * np.sin(t), color="#2ca02c", lw=1.5)
    mid = start + 0.5 * sweep
    ax.text(
        centre[0] + 1.45 * radius * np.cos(mid),
        centre[1] + 1.45 * radius * np.sin(mid),
        key,
        fontsize=9,
        fontweight="bold",
        color="#2ca02c",
        ha="center",
        va="center",
    )


def legend(ax: Axes, lines: list[str]) -> None:
    """The measured values under the panel (below the figure's plots), one line per arc."""
    ax.figure.text(
        ax.get_position().x0,
        0.2,
        "\n".join(lines),
        fontsize=9,
        va="top",
        family="monospace",
    )


def heading_angle(v: NDArray) -> float:
    """Angle of the 2-D vector ``v`` from the +first axis [rad]."""
    return float(np.arctan2(v[1], v[0]))


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    sk = standard_humanoid()
    motion = posture(sk)
    p = motion.global_positions[0]
    a = body_angles(motion)
    deg = {f.name: np.degrees(np.asarray(getattr(a, f.name))[0]) for f in fields(a)}
    i = {n: sk.index(n) for n in sk.names}
    r = 1  # right side in the paired angles (left, right)

    fig, (side, front, top) = plt.subplots(1, 3, figsize=(13, 6.4))
    pelvis, neck, shoulder = p[i["pelvis"]], p[i["neck"]], p[i["r_shoulder"]]
    elbow, knee = p[i["r_elbow"]], p[i["r_knee"]]
    xz, yz, xy = [0, 2], [1, 2], [0, 1]
    up = np.pi / 2

    draw_body(side, sk, p, (0, 2))
    side.set(title="side (x forward, z up)", xlabel="x [m]", ylabel="z [m]")
    trunk = heading_angle((neck - pelvis)[xz])
    side.plot(*np.c_[pelvis[xz], pelvis[xz] + [0, 0.55]], ls=":", color="#2ca02c")
    arc(side, pelvis[xz], up, trunk, 0.3, "1")
    arc(side, neck[xz], trunk, heading_angle((p[i["head"]] - neck)[xz]), 0.12, "2")
    arm = heading_angle((elbow - shoulder)[xz])
    arc(side, shoulder[xz], trunk + np.pi, arm, 0.14, "3")
    arc(side, elbow[xz], arm, heading_angle((p[i["r_wrist"]] - elbow)[xz]), 0.1, "4")
    thigh = heading_angle((knee - p[i["r_hip"]])[xz])
    arc(side, knee[xz], thigh, heading_angle((p[i["r_ankle"]] - knee)[xz]), 0.1, "5")
    notes: dict[Axes, list[str]] = {}
    notes[side] = [
        f"1 trunk flexion     {deg['trunk_flexion']:5.1f}° (pelvis→neck from vertical)",
        f"2 neck flexion      {deg['neck_flexion']:5.1f}° (head axis in the trunk frame)",
        f"3 upper arm flexion {deg['upper_arm_flexion'][r]:5.1f}° (from the trunk's down axis)",
        f"4 elbow flexion     {deg['elbow_flexion'][r]:5.1f}° (0 = straight)",
        f"5 knee flexion      {deg['knee_flexion'][r]:5.1f}° (0 = straight)",
    ]

    draw_body(front, sk, p, (1, 2))
    front.set(title="front (y left, z up)", xlabel="y [m]", ylabel="z [m]")
    front.invert_xaxis()  # seen from the front: the body's left on the right
    arc(front, shoulder[yz], -up, heading_angle((elbow - shoulder)[yz]), 0.14, "6")
    arc(front, pelvis[yz], up, heading_angle((neck - pelvis)[yz]), 0.3, "7")
    notes[front] = [
        f"6 upper arm abduction {deg['upper_arm_abduction'][r]:5.1f}°",
        "  (out of the trunk's sagittal plane)",
        f"7 trunk side bend     {deg['trunk_side_bend']:5.1f}°",
        "  (out of the heading's sagittal plane)",
    ]

    draw_body(top, sk, p, (0, 1))
    top.set(title="above (x forward, y left)", xlabel="x [m]", ylabel="y [m]")
    hips = heading_angle((p[i["l_hip"]] - p[i["r_hip"]])[xy])
    chest = heading_angle((p[i["l_shoulder"]] - p[i["r_shoulder"]])[xy])
    arc(top, 0.5 * (p[i["l_hip"]] + p[i["r_hip"]])[xy], hips, chest, 0.2, "8")
    for a_, b_ in (("r_hip", "l_hip"), ("r_shoulder", "l_shoulder")):
        top.plot(*np.c_[p[i[a_]][xy], p[i[b_]][xy]], color="#888888", ls="--", lw=1)
    notes[top] = [
        f"8 trunk twist {deg['trunk_twist']:5.1f}°",
        "  (shoulder line against hip line,",
        "   about the trunk line)",
    ]

    fig.suptitle(
        "REBA/RULA angles as vhuman measures them (values measured on this posture; "
        "right arm in red)",
        fontsize=11,
    )
    fig.tight_layout(rect=(0, 0.22, 1, 1))
    for ax, lines in notes.items():
        legend(ax, lines)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
