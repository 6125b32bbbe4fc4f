"""Static matplotlib figures: a 3D pose, joint paths, curves over time, Pareto fronts.

Every function returns a `matplotlib.figure.Figure` built without pyplot (no
global state, no display needed); `save_figure` writes one to PNG.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure
from mpl_toolkits.mplot3d import Axes3D
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.io import atomic_path
from vhuman.skeleton import Motion
from vhuman.viz._drawing import view_box
from vhuman.viz._files import output_path
from vhuman.viz._mpl_pose import PoseArtists
from vhuman.viz.scene_mesh import SceneMesh

if TYPE_CHECKING:
    from vhuman.ergonomics import MotionErgonomics
    from vhuman.posture import PostureResult

__all__ = [
    "plot_curves",
    "plot_ergonomic_scores",
    "plot_pareto",
    "plot_pose",
    "plot_posture_pareto",
    "plot_trajectories",
    "save_figure",
]


def _frame_index(motion: Motion, frame: int) -> int:
    n = motion.n_frames
    if not isinstance(frame, (int, np.integer)) or not -n <= frame < n:
        raise InputError(f"frame must be an integer in [{-n}, {n - 1}]; got {frame!r}")
    return int(frame) % n


def plot_pose(
    motion: Motion,
    frame: int = 0,
    ax: Axes3D | None = None,
    *,
    scene: Sequence[SceneMesh] | None = None,
) -> Figure:
    """The skeleton at one frame in 3D: a line from each joint to its parent.

    Bones are coloured by body side (left blue, right red, midline grey); the
    axes are in metres, z up, equally scaled, and hold the pose, the scene
    and the floor (z = 0).

    Parameters
    ----------
    motion : Motion
        The motion (a pose is a one-frame motion).
    frame : int, optional
        Frame index; negative counts from the end.
    ax : Axes3D, optional
        3D axes (``projection="3d"``) to draw into; a new 6 × 6 in figure by default.
    scene : sequence of SceneMesh, optional
        Surroundings to draw as well.

    Returns
    -------
    Figure
        The figure holding the axes.

    Raises
    ------
    InputError
        If ``frame`` is out of range or ``ax`` is not a 3D axes.

    Examples
    --------
    >>> from vhuman.skeleton import Motion, standard_humanoid
    >>> fig = plot_pose(Motion.rest(standard_humanoid()))
    """
    k = _frame_index(motion, frame)
    if ax is None:
        ax = Figure(figsize=(6.0, 6.0)).add_subplot(projection="3d")
    elif not isinstance(ax, Axes3D):
        raise InputError(f"ax must be a 3D axes (projection='3d'); got {type(ax).__name__}")
    scene = tuple(scene or ())
    positions = motion.global_positions[k]  # (J, 3)
    lo, hi = view_box(positions, scene)
    PoseArtists(ax, motion.skeleton, lo, hi, scene).update(positions, float(motion.times[k]))
    return ax.get_figure(root=True)


def _leaf_and_root_joints(motion: Motion) -> list[str]:
    sk = motion.skeleton
    has_child = np.zeros(sk.n_joints, dtype=bool)
    has_child[sk.parents[sk.parents >= 0]] = True
    return [sk.names[0], *(n for n, c in zip(sk.names[1:], has_child[1:], strict=True) if not c)]


def plot_trajectories(motion: Motion, joints: Sequence[str] | None = None) -> Figure:
    """Paths of joints seen from above (x-y) and from the side (x-z).

    Parameters
    ----------
    motion : Motion
        The motion.
    joints : sequence of str, optional
        Joints to trace; by default the root and every end joint (head, hands,
        toes for the standard humanoid).

    Returns
    -------
    Figure
        Two axes, ``"top view"`` (x, y) and ``"side view"`` (x, z), equally scaled
        in metres; one line per joint, labelled with its name, and a dot at its start.

    Raises
    ------
    InputError
        If ``joints`` is empty or a string; `UnknownJointError` for a name the
        skeleton lacks.
    """
    if isinstance(joints, str):
        raise InputError(f"joints must be a sequence of joint names; got {joints!r}")
    names = _leaf_and_root_joints(motion) if joints is None else list(joints)
    if not names:
        raise InputError("joints must name at least one joint (or be None for the defaults)")
    paths = motion.joint_trajectory(names)  # (T, N, 3)
    fig = Figure(figsize=(10.0, 5.0), layout="constrained")
    top, side = fig.subplots(1, 2)
    for ax, (a, b), title in ((top, (0, 1), "top view"), (side, (0, 2), "side view")):
        for i, name in enumerate(names):
            (line,) = ax.plot(paths[:, i, a], paths[:, i, b], label=name, linewidth=1.5)
            ax.plot(paths[0, i, a], paths[0, i, b], "o", color=line.get_color(), markersize=4)
        ax.set_title(title)
        ax.set_xlabel(f"{'xyz'[a]} [m]")
        ax.set_ylabel(f"{'xyz'[b]} [m]")
        ax.set_aspect("equal", adjustable="datalim")
        ax.grid(True, alpha=0.3)
    side.legend(loc="best", fontsize="small")
    return fig


def plot_curves(
    times: ArrayLike,
    curves: Mapping[str, ArrayLike],
    *,
    ylabel: str,
    title: str | None = None,
    xlabel: str = "time [s]",
) -> Figure:
    """Curves over time, one line each (joint angles, speeds, scores).

    Parameters
    ----------
    times : array_like, shape (T,)
        Sample times [s].
    curves : mapping of str to array_like, shape (T,)
        Label → values at ``times``.
    ylabel : str
        Label of the value axis, with its unit (``"knee flexion [deg]"``).
    title : str, optional
        Axes title.
    xlabel : str, optional
        Label of the x axis (default ``"time [s]"``; ``times`` may be any abscissa).

    Returns
    -------
    Figure
        One axes, a legend when there is more than one curve.

    Raises
    ------
    InputError
        If ``curves`` is empty or a curve's shape differs from ``(T,)``.
    """
    t = np.asarray(times, dtype=np.float64)
    if t.ndim != 1:
        raise InputError(f"times must have shape (T,); got {t.shape}")
    if not curves:
        raise InputError("curves must hold at least one curve")
    fig = Figure(figsize=(8.0, 4.0), layout="constrained")
    ax = fig.add_subplot()
    for label, values in curves.items():
        y = np.asarray(values, dtype=np.float64)
        if y.shape != t.shape:
            raise InputError(f"curve {label!r} must have shape {t.shape} like times; got {y.shape}")
        ax.plot(t, y, label=label)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    if len(curves) > 1:
        ax.legend(loc="best", fontsize="small")
    return fig


def plot_pareto(
    objectives: ArrayLike,
    labels: Sequence[str],
    *,
    chosen: int | None = None,
    title: str | None = None,
) -> Figure:
    """Scatter of two objectives of a population, its non-dominated points joined.

    Parameters
    ----------
    objectives : array_like, shape (N, 2)
        Objective values (both minimised) of N individuals.
    labels : sequence of 2 str
        Axis labels with units.
    chosen : int, optional
        Index of the individual picked from the front, drawn as a star.
    title : str, optional

    Returns
    -------
    Figure

    Raises
    ------
    InputError
        If ``objectives`` is not (N, 2) with N ≥ 1, holds NaN, or ``labels`` is not 2 long.
    """
    f = np.asarray(objectives, dtype=np.float64)
    if f.ndim != 2 or f.shape[1] != 2 or f.shape[0] < 1 or not np.all(np.isfinite(f)):
        raise InputError(f"objectives must be a finite (N, 2) array, N ≥ 1; got shape {f.shape}")
    if len(labels) != 2:
        raise InputError(f"labels must name the 2 objectives; got {len(labels)}")
    dominated = np.array(
        [np.any(np.all(f <= x, axis=1) & np.any(f < x, axis=1)) for x in f], dtype=bool
    )
    front = f[~dominated]
    front = front[np.argsort(front[:, 0])]
    fig = Figure(figsize=(6.0, 4.5), layout="constrained")
    ax = fig.add_subplot()
    ax.scatter(f[dominated, 0], f[dominated, 1], s=18, c="0.6", label="dominated")
    ax.plot(front[:, 0], front[:, 1], "o-", c="tab:blue", ms=5, label="non-dominated")
    if chosen is not None:
        ax.plot(*f[chosen], "*", c="tab:red", ms=16, label="chosen")
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    if title is not None:
        ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    return fig


def plot_posture_pareto(result: PostureResult, front: NDArray | None = None) -> Figure:
    """The arm NSGA-II's final Pareto set of a maintenance posture, the chosen member starred.

    Joint comfort (the sum of the joint rotation costs, Luo et al.) against
    reach accuracy ``DiffR + α·DiffT`` on a symmetric-log axis.

    Parameters
    ----------
    result : vhuman.posture.PostureResult
        A solved posture; its ``arm.pareto_f`` ``(N, 2)`` is the final feasible set.
    front : ndarray, shape (M, 2), optional
        A front from another search at the same placement (e.g. NSGA-II without IK
        seeds), drawn instead of ``arm.pareto_f``.

    Returns
    -------
    Figure
    """
    fig = Figure(figsize=(6.4, 4.4))
    ax = fig.add_subplot()
    from vhuman.posture.arm import ACCESS_WEIGHT

    f = result.arm.pareto_f if front is None else front
    label = "final Pareto set (feasible)" if front is None else "NSGA-II front, no IK seeds"
    ax.plot(f[:, 0], f[:, 1], "o-", color="#1f77b4", label=label)
    chosen = result.arm.diff_r + ACCESS_WEIGHT * result.arm.diff_t
    ax.plot([result.arm.comfort], [chosen], "*", ms=14, color="#d62728", label="chosen posture")
    ax.set_xlabel("joint comfort  Σ f_rot")
    ax.set_ylabel("reach accuracy  f_access = DiffR + α·DiffT")
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_title(f"arm NSGA-II on {result.scene.name} ({result.library_posture})")
    ax.legend(loc="best")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


# Action-level bands drawn behind the scores: (low, high, colour) per level.
_REBA_BANDS = (
    (0.5, 1.5, "#1a9850"),
    (1.5, 3.5, "#a6d96a"),
    (3.5, 7.5, "#fee08b"),
    (7.5, 10.5, "#fc8d59"),
    (10.5, 15.5, "#d73027"),
)
_RULA_BANDS = (
    (0.5, 2.5, "#1a9850"),
    (2.5, 4.5, "#fee08b"),
    (4.5, 6.5, "#fc8d59"),
    (6.5, 7.5, "#d73027"),
)


def plot_ergonomic_scores(result: MotionErgonomics, title: str) -> Figure:
    """REBA and RULA scores over time ``(s)``, the action-level bands behind them.

    The worst frame of each method is marked; a legend beside each panel
    names the action levels (Hignett & McAtamney 2000; McAtamney & Corlett
    1993).

    Parameters
    ----------
    result : MotionErgonomics
        Scores of every frame (:func:`vhuman.ergonomics.assess_motion`).
    title : str
        Title over the upper panel.
    """
    from vhuman.ergonomics.assessment import REBA_LEVELS, RULA_LEVELS

    fig = Figure(figsize=(9.0, 5.6))
    axes = fig.subplots(2, 1, sharex=True)
    t = result.times
    worst = result.worst()
    for ax, name, r, bands, labels, top in (
        (axes[0], "REBA", result.reba, _REBA_BANDS, REBA_LEVELS, 15),
        (axes[1], "RULA", result.rula, _RULA_BANDS, RULA_LEVELS, 7),
    ):
        for (lo, hi, colour), label in zip(bands, labels, strict=True):
            ax.axhspan(lo, hi, color=colour, alpha=0.25, lw=0, label=f"action level {label}")
        ax.step(t, r.score, where="post", color="black", lw=1.2, label=f"{name} score")
        w = worst[name.lower()]
        ax.plot(
            [w["time_s"]],
            [w["score"]],
            "v",
            ms=9,
            color="#762a83",
            label=f"worst: {w['score']} at {w['time_s']:.2f} s",
        )
        ax.set_ylim(0.5, top + 0.5)
        ax.set_ylabel(f"{name} score")
        ax.grid(alpha=0.3)
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=7, frameon=False)
    axes[1].set_xlabel("time (s)")
    axes[0].set_title(title)
    fig.tight_layout()
    return fig


def save_figure(fig: Figure, path: str | os.PathLike[str], *, dpi: float = 100.0) -> Path:
    """Write ``fig`` to a PNG file, atomically (a temporary file, then a rename).

    Parameters
    ----------
    fig : Figure
        The figure.
    path : str or os.PathLike
        Target ``.png`` file; its folder must exist.
    dpi : float, optional
        Pixels per inch.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    InputError
        If ``path`` does not end in ``.png`` or its folder does not exist.
    """
    p = output_path(path, (".png",), "figure")
    with atomic_path(p) as tmp:
        fig.savefig(tmp, format="png", dpi=dpi)
    return p
