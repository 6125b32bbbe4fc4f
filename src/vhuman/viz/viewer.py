"""Interactive HTML viewer of a motion (plotly): 3D skeleton, play/pause, a time slider.

`motion_figure` builds the plotly figure; `write_viewer` writes it as one
self-contained HTML file (plotly.js embedded) that works offline.
"""

from __future__ import annotations

import html
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import NDArray

from vhuman.errors import InputError
from vhuman.io import atomic_path
from vhuman.skeleton import Motion
from vhuman.viz._drawing import bone_groups, select_frames, view_box
from vhuman.viz._files import output_path
from vhuman.viz.scene_mesh import SceneMesh

__all__ = ["VIEWER_DIV_ID", "motion_figure", "write_viewer"]

VIEWER_DIV_ID = "vhuman-viewer"
"""HTML id of the plot in a file written by `write_viewer`."""

_DECIMALS = 3  # coordinates rounded to millimetres keep the file small
_FLOOR_COLOR = "#eeeeee"
_GRID_COLOR = "#bbbbbb"
_PATH_COLOR = "#2ca02c"


def _xyz(points: NDArray[np.float64]) -> dict[str, list[float | None]]:
    """Coordinates ``(N, 3)`` [m] as plotly's x, y, z lists, rounded to mm; NaN → None (a gap).

    Short decimal lists make a smaller file than binary arrays, and build faster.
    """
    p = np.round(points, _DECIMALS).astype(object)
    p[np.isnan(points)] = None
    return {"x": p[:, 0].tolist(), "y": p[:, 1].tolist(), "z": p[:, 2].tolist()}


def _floor(lo: NDArray[np.float64], hi: NDArray[np.float64]) -> list[go.BaseTraceType]:
    """A light floor just under z = 0 and lines on it every 0.5 m (every metre if wide)."""
    step = 0.5 if max(hi[0] - lo[0], hi[1] - lo[1]) <= 10.0 else 1.0
    segments = []
    for a, b in ((0, 1), (1, 0)):
        for v in np.arange(np.ceil(lo[a] / step), np.floor(hi[a] / step) + 1) * step:
            seg = np.full((3, 3), np.nan)
            seg[:2, a] = v
            seg[:2, b] = lo[b], hi[b]
            seg[:2, 2] = 0.0
            segments.append(seg)
    # The floor sits 2 mm low so that the lines and the soles are not hidden in it.
    corners = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    return [
        go.Mesh3d(
            **_xyz(np.column_stack([corners, np.full(4, -0.002)])),
            i=[0, 0],
            j=[1, 2],
            k=[2, 3],
            color=_FLOOR_COLOR,
            name="floor",
            hoverinfo="skip",
        ),
        go.Scatter3d(
            **_xyz(np.concatenate(segments)),
            mode="lines",
            line={"color": _GRID_COLOR, "width": 1},
            name="floor grid",
            hoverinfo="skip",
            showlegend=False,
        ),
    ]


def _animate(frames: list[str] | list[None] | None, duration_ms: float) -> list[Any]:
    """Arguments of plotly's ``animate`` method: which frames, each shown ``duration_ms``."""
    return [
        frames,
        {
            "mode": "immediate",
            "fromcurrent": True,
            "frame": {"duration": duration_ms, "redraw": True},  # 3D scenes need a redraw
            "transition": {"duration": 0},
        },
    ]


def _default_title(motion: Motion) -> str:
    return f"{motion.n_frames} frames, {motion.duration:.2f} s at {motion.fps:g} fps"


def motion_figure(
    motion: Motion,
    *,
    scene: Sequence[SceneMesh] | None = None,
    trajectories: Sequence[str] = (),
    max_frames: int = 300,
    title: str | None = None,
) -> go.Figure:
    """A plotly figure of the skeleton moving, with play/pause and a time slider.

    Bones are coloured by body side (left blue, right red, midline grey), with
    joint names on hover. The 3D camera orbits with the mouse; the three axes
    are in metres at the same scale and hold the whole motion, the scene and a
    floor grid at z = 0, so the view does not jump while the motion plays.
    Playback is real time; a motion longer than ``max_frames`` is shown with
    fewer, evenly spread frames. Coordinates are rounded to millimetres.

    Parameters
    ----------
    motion : Motion
        The motion (a one-frame motion gives a still figure without controls).
    scene : sequence of SceneMesh, optional
        Surroundings, drawn as meshes.
    trajectories : sequence of str, optional
        Joints whose whole path is drawn as a line.
    max_frames : int, optional
        Most animation frames.
    title : str, optional
        Figure title; by default the number of frames, duration and rate.

    Returns
    -------
    plotly.graph_objects.Figure
        One plotly frame per shown motion frame, named by its index in ``motion``;
        the slider's steps are labelled with their times in seconds.

    Raises
    ------
    InputError
        If ``max_frames`` < 1 or ``trajectories`` is a string; `UnknownJointError`
        for a trajectory joint the skeleton lacks.
    """
    if isinstance(trajectories, str):
        raise InputError(f"trajectories must be a sequence of joint names; got {trajectories!r}")
    scene = tuple(scene or ())
    selection = select_frames(motion.n_frames, motion.fps, max_frames=max_frames)
    positions = motion.global_positions[selection.indices]  # (N, J, 3)
    times = motion.times[selection.indices]
    lo, hi = view_box(positions, scene)
    paths = motion.joint_trajectory(list(trajectories))[selection.indices]  # (N, K, 3)

    traces: list[go.BaseTraceType] = _floor(lo, hi)
    traces += [
        go.Mesh3d(
            **_xyz(m.vertices),
            i=m.faces[:, 0],
            j=m.faces[:, 1],
            k=m.faces[:, 2],
            color=m.color,
            opacity=m.opacity,
            name=m.name,
            flatshading=True,
            hoverinfo="name",
            showlegend=True,
        )
        for m in scene
    ]
    traces += [
        go.Scatter3d(
            **_xyz(paths[:, i]),
            mode="lines",
            line={"color": _PATH_COLOR, "width": 3},
            name=f"path of {name}",
            hoverinfo="name",
        )
        for i, name in enumerate(trajectories)
    ]
    groups = bone_groups(motion.skeleton)
    names = np.array(motion.skeleton.names, dtype=object)
    first_bone = len(traces)
    traces += [
        go.Scatter3d(
            **_xyz(g.polyline(positions[0])),
            mode="lines+markers",
            line={"color": g.color, "width": 6},
            marker={"color": g.color, "size": 3},
            name=f"{g.name} bones",
            text=np.where(g.points >= 0, names[g.points], ""),
            hovertemplate="%{text}<br>x %{x:.3f} m, y %{y:.3f} m, z %{z:.3f} m<extra></extra>",
        )
        for g in groups
    ]
    bone_traces = list(range(first_bone, len(traces)))
    # Plain dicts: the figure validates them once (go.Frame would validate twice more).
    frames = [
        {
            "name": str(index),
            "data": [{"type": "scatter3d", **_xyz(g.polyline(positions[i]))} for g in groups],
            "traces": bone_traces,
        }
        for i, index in enumerate(selection.indices)
    ]

    ranges = hi - lo
    aspect = ranges / ranges.max()
    layout: dict[str, Any] = {
        "title": {"text": html.escape(title or _default_title(motion), quote=False)},
        "scene": {
            "xaxis": {"title": {"text": "x [m]"}, "range": [lo[0], hi[0]]},
            "yaxis": {"title": {"text": "y [m]"}, "range": [lo[1], hi[1]]},
            "zaxis": {"title": {"text": "z [m]"}, "range": [lo[2], hi[2]]},
            # Manual ratios equal to the ranges: one metre is as long on every axis.
            "aspectmode": "manual",
            "aspectratio": dict(zip("xyz", aspect.tolist(), strict=True)),
            "camera": {"up": {"x": 0, "y": 0, "z": 1}, "eye": {"x": 1.2, "y": -1.5, "z": 0.6}},
        },
        "legend": {"x": 0.0, "y": 1.0},
        "margin": {"l": 0, "r": 0, "t": 40, "b": 0},
        "template": "plotly_white",
        "uirevision": "motion",
    }
    if len(frames) > 1:
        frame_ms = 1000.0 / selection.fps
        layout["updatemenus"] = [
            {
                "type": "buttons",
                "direction": "left",
                "x": 0.0,
                "y": 0.0,
                "xanchor": "left",
                "yanchor": "top",
                "pad": {"t": 40, "r": 10},
                "showactive": False,
                "buttons": [
                    # All frames from the current one; [None] stops the animation.
                    {"label": "Play", "method": "animate", "args": _animate(None, frame_ms)},
                    {"label": "Pause", "method": "animate", "args": _animate([None], 0)},
                ],
            }
        ]
        layout["sliders"] = [
            {
                "active": 0,
                "x": 0.12,
                "y": 0.0,
                "len": 0.88,
                "xanchor": "left",
                "yanchor": "top",
                "pad": {"t": 30},
                "currentvalue": {"prefix": "t = ", "suffix": " s"},
                "steps": [
                    {
                        "label": f"{t:.2f}",
                        "method": "animate",
                        "args": _animate([f["name"]], 0),
                    }
                    for f, t in zip(frames, times, strict=True)
                ],
            }
        ]
    return go.Figure(data=traces, frames=frames if len(frames) > 1 else None, layout=layout)


def write_viewer(motion: Motion, path: str | os.PathLike[str], **kwargs: Any) -> Path:
    """Write the viewer of ``motion`` as one self-contained HTML file, atomically.

    plotly.js is embedded (about 5 MB), so the file opens offline in any browser.

    Parameters
    ----------
    motion : Motion
        The motion.
    path : str or os.PathLike
        Target ``.html`` file; its folder must exist.
    **kwargs
        Passed to `motion_figure` (``scene``, ``trajectories``, ``max_frames``, ``title``).

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    InputError
        If ``path`` does not end in ``.html`` or ``.htm``, or its folder does not exist.
    """
    p = output_path(path, (".html", ".htm"), "viewer")
    fig = motion_figure(motion, **kwargs)
    return write_figure(fig, p, title=kwargs.get("title") or _default_title(motion))


def write_figure(fig: go.Figure, path: str | os.PathLike[str], *, title: str) -> Path:
    """Write a plotly figure as one self-contained HTML page (plotly.js embedded), atomically.

    Raises
    ------
    InputError
        If ``path`` does not end in ``.html`` or ``.htm``, or its folder does not exist.
    """
    p = output_path(path, (".html", ".htm"), "figure")
    page = fig.to_html(
        include_plotlyjs=True,
        full_html=True,
        div_id=VIEWER_DIV_ID,
        auto_play=False,
        default_height="96vh",
        config={"displaylogo": False, "responsive": True},
    )
    page = page.replace("<head>", f"<head><title>{html.escape(title)}</title>", 1)
    with atomic_path(p) as tmp:
        tmp.write_text(page, encoding="utf-8")
    return p
