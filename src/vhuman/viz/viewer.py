"""Interactive HTML viewer of a motion (plotly): a shaded body, play/pause, a time slider.

`motion_figure` builds the plotly figure; `write_viewer` writes it as one
self-contained HTML file (plotly.js embedded) that works offline.
"""

from __future__ import annotations

import html
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.io import atomic_path
from vhuman.skeleton import Motion
from vhuman.viz._drawing import FrameSelection, bone_groups, select_frames, view_box
from vhuman.viz._files import output_path
from vhuman.viz.manikin import Manikin
from vhuman.viz.scene_mesh import SceneMesh

__all__ = [
    "BODY_COLOR",
    "GHOST_COLOR",
    "VIEWER_DIV_ID",
    "follow_boxes",
    "motion_figure",
    "write_figure",
    "write_viewer",
]

VIEWER_DIV_ID = "vhuman-viewer"
"""HTML id of the plot in a file written by `write_viewer`."""

_DECIMALS = 3  # coordinates rounded to millimetres keep the file small
_FLOOR_COLOR = "#eeeeee"
_GRID_COLOR = "#bbbbbb"
_PATH_COLOR = "#2ca02c"
_POINT_COLOR = "#d62728"
BODY_COLOR = "#e0a96d"
"""Colour of the shaded body (a light tan, apart from the side colours of the bones)."""
GHOST_COLOR = "#4a7ab5"
"""Colour of a second, translucent body drawn for comparison."""
GHOST_OPACITY = 0.35
_SECTIONS = 8  # vertices around each capsule: 34 per capsule, 64 triangles
_BODY_LIGHTING = {"ambient": 0.55, "diffuse": 0.7, "specular": 0.15, "roughness": 0.6}
_LIGHT_POSITION = {"x": 5e4, "y": -3e4, "z": 1e5}
_PATH_POINTS = 600  # most points of a joint path
_FOLLOW_TRAVEL = 1.0  # [m] of root travel beyond which the camera follows the root
_EYE = {"x": 0.95, "y": -1.2, "z": 0.45}
_VALUE_SCALE = [[0.0, BODY_COLOR], [1.0, _POINT_COLOR]]  # joint values: low tan, high red
_CURVE_COLORS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd", "#8c564b")
_CURVE_HEIGHT = 0.2  # share of the figure's height under the 3D view holding the curves


def _xyz(points: NDArray[np.float64]) -> dict[str, list[float | None]]:
    """Coordinates ``(N, 3)`` [m] as plotly's x, y, z lists, rounded to mm; NaN → None (a gap).

    Short decimal lists make a smaller file than binary arrays, and build faster.
    """
    p = np.round(points, _DECIMALS).astype(object)
    p[np.isnan(points)] = None
    return {"x": p[:, 0].tolist(), "y": p[:, 1].tolist(), "z": p[:, 2].tolist()}


def _floor(lo: NDArray[np.float64], hi: NDArray[np.float64]) -> list[go.BaseTraceType]:
    """A light floor just under z = 0 and grid lines on it every metre."""
    step = 1.0
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


def _animate(frames: str | list[str] | list[None], duration_ms: float) -> list[Any]:
    """Arguments of plotly's ``animate`` method: which frames, each shown ``duration_ms``.

    ``frames`` is a frame group's name (play it), a list of frame names, or
    ``[None]`` (stop).
    """
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


def _playback_note(motion: Motion, selection: FrameSelection) -> str:
    """What the player shows of the motion: every frame, or which decimation."""
    n = len(selection.indices)
    if n == 1:
        return "one frame"
    if n == motion.n_frames:
        return f"every frame, played at {selection.fps:.3g} frames/s (real time)"
    return (
        f"{n} of {motion.n_frames} frames (decimated), played at {selection.fps:.3g} "
        f"frames/s (real time)"
    )


def _body_mesh(
    motion: Motion, frames: NDArray[np.intp], *, name: str, color: str, opacity: float
) -> tuple[dict[str, Any], NDArray[np.float64], NDArray[np.intp]]:
    """A Mesh3d of the manikin at the first of ``frames``, its vertices ``(N, V, 3)`` [m] and
    the joint carrying each vertex ``(V,)``."""
    manikin = Manikin.from_skeleton(motion.skeleton)
    local, faces = manikin.local_mesh(sections=_SECTIONS)
    verts = manikin.motion_vertices(motion, frames, sections=_SECTIONS)
    carriers = np.repeat(manikin.joints, local.shape[1])
    trace = {
        "type": "mesh3d",
        **_xyz(verts[0]),
        "i": faces[:, 0].tolist(),
        "j": faces[:, 1].tolist(),
        "k": faces[:, 2].tolist(),
        "color": color,
        "opacity": opacity,
        "flatshading": False,
        "lighting": _BODY_LIGHTING,
        "lightposition": _LIGHT_POSITION,
        "name": name,
        "hoverinfo": "name",
        "showlegend": True,
    }
    return trace, verts, carriers


def _stick_traces(
    motion: Motion, positions: NDArray[np.float64], *, suffix: str, opacity: float
) -> tuple[list[dict[str, Any]], list[list[dict[str, Any]]]]:
    """Bone polylines by body side: traces at the first frame, and each frame's data."""
    groups = bone_groups(motion.skeleton)
    names = np.array(motion.skeleton.names, dtype=object)
    traces = [
        {
            "type": "scatter3d",
            **_xyz(g.polyline(positions[0])),
            "mode": "lines+markers",
            "line": {"color": g.color, "width": 6},
            "marker": {"color": g.color, "size": 3},
            "opacity": opacity,
            "name": f"{g.name} bones{suffix}",
            "text": np.where(g.points >= 0, names[g.points], "").tolist(),
            "hovertemplate": "%{text}<br>x %{x:.3f} m, y %{y:.3f} m, z %{z:.3f} m<extra></extra>",
        }
        for g in groups
    ]
    frames = [[{"type": "scatter3d", **_xyz(g.polyline(p))} for g in groups] for p in positions]
    return traces, frames


def _scene_axes(lo: NDArray[np.float64], hi: NDArray[np.float64]) -> dict[str, Any]:
    """Axis ranges and equal-scale aspect ratio of a 3D scene showing the box lo..hi."""
    box = np.round(np.stack([lo, hi]), _DECIMALS)  # (2, 3)
    ranges = box[1] - box[0]
    aspect = ranges / ranges.max()
    return {
        **{f"{a}axis": {"range": box[:, k].tolist()} for k, a in enumerate("xyz")},
        # Manual ratios equal to the ranges: one metre is as long on every axis.
        "aspectmode": "manual",
        "aspectratio": dict(zip("xyz", aspect.tolist(), strict=True)),
    }


def follow_boxes(
    centres: NDArray[np.float64], points: NDArray[np.float64], *, margin: float = 0.15
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Cubes of one size that move with ``centres`` horizontally and hold ``points`` at every frame.

    Parameters
    ----------
    centres : ndarray, shape (N, 3)
        Point followed at each frame [m] (the root); only x and y are used.
    points : ndarray, shape (N, P, 3)
        Points each frame's cube must hold [m] (the body); NaN ignored.
    margin : float, optional
        Space around the points [m].

    Returns
    -------
    lo, hi : ndarray, shape (N, 3)
        Cube corners [m]: horizontally centred on ``centres`` plus one fixed
        offset (the middle of the points' horizontal extent about the centres,
        so that a body with a second one beside it is framed tightly), the z
        range from the floor (or the lowest point) up, one side length for all frames.
    """
    rel = points[..., :2] - centres[:, None, :2]
    offset = 0.5 * (np.nanmin(rel, axis=(0, 1)) + np.nanmax(rel, axis=(0, 1)))
    half = np.nanmax(np.abs(rel - offset)) + margin
    z_lo = min(float(np.nanmin(points[..., 2])), 0.0) - margin
    z_hi = float(np.nanmax(points[..., 2])) + margin
    side = max(2.0 * half, z_hi - z_lo)
    lo = np.column_stack([centres[:, :2] + offset - 0.5 * side, np.full(len(centres), z_lo)])
    return lo, lo + side


def motion_figure(
    motion: Motion,
    *,
    scene: Sequence[SceneMesh] | None = None,
    trajectories: Sequence[str] = (),
    points: Mapping[str, ArrayLike] | None = None,
    ghost: Motion | None = None,
    ghost_name: str = "ghost",
    joint_values: ArrayLike | None = None,
    value_label: str = "",
    curves: Mapping[str, ArrayLike] | None = None,
    curve_label: str = "",
    sticks: bool = False,
    follow: bool | None = None,
    fps: float | None = None,
    max_frames: int = 300,
    title: str | None = None,
) -> go.Figure:
    """A plotly figure of the body moving, with play/pause and a time slider.

    The body is a shaded manikin: the capsules of `Manikin` (the collision
    body for skeletons with segments, capsules along the bones otherwise),
    one Mesh3d whose triangles are stored once and whose vertices change per
    frame. With ``sticks`` the bones are drawn as lines instead, coloured by
    body side (left blue, right red, midline grey), with joint names on hover.
    The three axes are in metres at the same scale with a floor and a 1 m
    grid at z = 0. For a motion that travels (a walk), the camera follows the
    root: each frame's axis box is a cube of fixed size centred on it; the
    button "Play whole path" plays it in a box holding the whole motion.
    Playback is real time at ``fps`` (the motion's own rate by default) with
    at most ``max_frames`` frames; the title's second line states the frames
    shown and their rate. Coordinates are rounded to millimetres.

    Parameters
    ----------
    motion : Motion
        The motion (a one-frame motion gives a still figure without controls).
    scene : sequence of SceneMesh, optional
        Surroundings, drawn as meshes.
    trajectories : sequence of str, optional
        Joints whose whole path is drawn as a line (from every frame, at most 600 points).
    points : mapping of str to array_like (3,), optional
        Fixed points drawn as markers, by legend name (e.g. a reach target) [m].
    ghost : Motion, optional
        A second motion with as many frames, drawn translucent in the same
        player (e.g. the true future beside a predicted one).
    ghost_name : str, optional
        Legend name of the ghost.
    joint_values : array_like, shape (T, J), optional
        A value per frame and joint of ``motion`` (e.g. a prediction's error);
        each capsule of the body is coloured by the value of the joint carrying
        it, from the body's tan at 0 to red at the largest value, with a colour
        bar; NaN counts as 0. Not with ``sticks``.
    value_label : str, optional
        Title of that colour bar, with the unit (e.g. ``"error [mm]"``).
    curves : mapping of str to array_like (T,), optional
        Curves over the motion's time, drawn in a plot under the 3D view (NaN
        leaves a gap), by legend name; a vertical line marks the time shown.
    curve_label : str, optional
        Title of the curves' y axis, with the unit.
    sticks : bool, optional
        Draw bones as lines instead of the shaded body.
    follow : bool, optional
        Camera follows the root; by default when the root travels more than
        1 m horizontally.
    fps : float, optional
        Playback rate [frames/s]; frames are decimated evenly to reach it.
    max_frames : int, optional
        Most animation frames.
    title : str, optional
        Figure title; by default the number of frames, duration and rate.

    Returns
    -------
    plotly.graph_objects.Figure
        One plotly frame per shown motion frame, named by its index in ``motion``
        (group ``"motion"``); with a following camera, as many frames again in
        group ``"whole path"`` (named ``"<index> whole"``) holding only the box.
        The slider's steps are labelled with their times in seconds.

    Raises
    ------
    InputError
        If ``max_frames`` < 1, ``fps`` ≤ 0, ``trajectories`` is a string, a point
        is not 3 finite numbers, ``ghost`` has another number of frames, or
        ``joint_values`` or a curve does not have one value per frame (and joint);
        `UnknownJointError` for a trajectory joint the skeleton lacks.
    """
    if isinstance(trajectories, str):
        raise InputError(f"trajectories must be a sequence of joint names; got {trajectories!r}")
    if ghost is not None and ghost.n_frames != motion.n_frames:
        raise InputError(
            f"ghost must have as many frames as the motion ({motion.n_frames}); "
            f"got {ghost.n_frames}"
        )
    marks = {name: _point(name, p) for name, p in (points or {}).items()}
    values = None if joint_values is None else _joint_values(motion, joint_values, sticks)
    lines = {name: _curve(name, c, motion.n_frames) for name, c in (curves or {}).items()}
    scene = tuple(scene or ())
    selection = select_frames(motion.n_frames, motion.fps, max_frames=max_frames, target_fps=fps)
    idx = selection.indices
    positions = motion.global_positions[idx]  # (N, J, 3)
    times = motion.times[idx]
    # Paths are static lines: drawn from (up to _PATH_POINTS of) all frames, not the shown ones.
    path_frames = np.unique(np.linspace(0, motion.n_frames - 1, _PATH_POINTS).round().astype(int))
    paths = motion.joint_trajectory(list(trajectories))[path_frames]  # (P, K, 3)

    traces: list[dict[str, Any]] = []
    per_frame: list[list[dict[str, Any]]] = [[] for _ in idx]
    body_points = [positions]
    for m, name, color, opacity in (
        (motion, "body", BODY_COLOR, 1.0),
        (ghost, ghost_name, GHOST_COLOR, GHOST_OPACITY),
    ):
        if m is None:
            continue
        if sticks:
            suffix = "" if m is motion else f" ({ghost_name})"
            sticks_traces, data = _stick_traces(
                m, m.global_positions[idx], suffix=suffix, opacity=opacity
            )
            traces += sticks_traces
            body_points.append(m.global_positions[idx])
        else:
            mesh, verts, carriers = _body_mesh(m, idx, name=name, color=color, opacity=opacity)
            data = [[{"type": "mesh3d", **_xyz(v)}] for v in verts]
            if m is motion and values is not None:
                shown = np.round(values[idx][:, carriers], 1)  # (N, V)
                top = max(float(shown.max()), 1e-9)
                mesh.pop("color")
                mesh.update(
                    intensity=shown[0].tolist(),
                    colorscale=_VALUE_SCALE,
                    cmin=0.0,
                    cmax=top,
                    colorbar={"title": {"text": value_label}, "len": 0.5},
                )
                for d, v in zip(data, shown, strict=True):
                    d[0]["intensity"] = v.tolist()
            traces.append(mesh)
            body_points.append(verts)
        for frame, d in zip(per_frame, data, strict=True):
            frame.extend(d)
    if lines:
        stacked = np.array(list(lines.values()))
        span = [float(np.nanmin(stacked)), float(np.nanmax(stacked))]
        traces.append(
            {
                "type": "scatter",
                **_now(times[0], span),
                "xaxis": "x",
                "yaxis": "y",
                "mode": "lines",
                "line": {"color": "#444444", "width": 1},
                "name": "time shown",
                "showlegend": False,
                "hoverinfo": "skip",
            }
        )
        for frame, t in zip(per_frame, times, strict=True):
            frame.append({"type": "scatter", **_now(t, span)})
    n_animated = len(traces)
    body = np.concatenate(body_points, axis=1)  # (N, P, 3)
    fixed = [paths.reshape(-1, 3), np.array(list(marks.values())).reshape(-1, 3)]
    lo, hi = view_box(np.concatenate([body.reshape(-1, 3), *fixed]), scene)
    root = positions[:, 0]
    travel = np.ptp(motion.global_positions[:, 0, :2], axis=0).max() if len(positions) else 0.0
    following = bool(travel > _FOLLOW_TRAVEL) if follow is None else bool(follow)
    if following:
        box_lo, box_hi = follow_boxes(root, body)
    else:
        box_lo, box_hi = np.repeat(lo[None], len(idx), 0), np.repeat(hi[None], len(idx), 0)

    static: list[go.BaseTraceType] = _floor(lo, hi)
    static += [
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
    static += [
        go.Scatter3d(
            **_xyz(paths[:, i]),
            mode="lines",
            line={"color": _PATH_COLOR, "width": 3},
            name=f"path of {name}",
            hoverinfo="name",
        )
        for i, name in enumerate(trajectories)
    ]
    static += [
        go.Scatter3d(
            **_xyz(p[None]),
            mode="markers",
            marker={"color": _POINT_COLOR, "size": 6, "symbol": "diamond"},
            name=name,
            text=[html.escape(name)],
            hovertemplate="%{text}<br>%{x:.3f}, %{y:.3f}, %{z:.3f} m<extra></extra>",
        )
        for name, p in marks.items()
    ]
    static += [
        go.Scatter(
            x=np.round(motion.times, 4),
            y=np.round(c, 2),
            xaxis="x",
            yaxis="y",
            mode="lines",
            line={"color": _CURVE_COLORS[k % len(_CURVE_COLORS)], "width": 2},
            name=name,
        )
        for k, (name, c) in enumerate(lines.items())
    ]
    animated = list(range(len(static), len(static) + n_animated))
    # Plain dicts: the figure validates them once (go.Frame would validate twice more).
    frames: list[dict[str, Any]] = [
        {
            "name": str(index),
            "group": "motion",
            "data": data,
            "traces": animated,
            **({"layout": {"scene": _scene_axes(a, b)}} if following else {}),
        }
        for index, data, a, b in zip(idx, per_frame, box_lo, box_hi, strict=True)
    ]
    if following:
        whole = {"scene": _scene_axes(lo, hi)}
        frames += [
            {
                "name": f"{index} whole",
                "group": "whole path",
                "baseframe": str(index),
                "layout": whole,
            }
            for index in idx
        ]

    heading = html.escape(title or _default_title(motion), quote=False)
    note = _playback_note(motion, selection)
    if following:
        note += "; the camera follows the body"
    layout: dict[str, Any] = {
        "title": {"text": f"{heading}<br><sup>{note}</sup>"},
        "scene": {
            **_scene_axes(box_lo[0], box_hi[0]),
            "camera": {"up": {"x": 0, "y": 0, "z": 1}, "eye": _EYE},
        },
        "legend": {"x": 0.0, "y": 1.0},
        "margin": {"l": 0, "r": 0, "t": 50, "b": 0},
        "template": "plotly_white",
        "uirevision": "motion",
    }
    for axis in "xyz":
        layout["scene"][f"{axis}axis"]["title"] = {"text": f"{axis} [m]"}
    if lines:
        layout["scene"]["domain"] = {"x": [0.0, 1.0], "y": [_CURVE_HEIGHT + 0.05, 1.0]}
        layout["xaxis"] = {
            "domain": [0.08, 0.92],
            "anchor": "y",
            "title": {"text": "time [s]"},
            "range": [float(motion.times[0]), float(motion.times[-1])],
        }
        layout["yaxis"] = {
            "domain": [0.0, _CURVE_HEIGHT],
            "anchor": "x",
            "title": {"text": curve_label},
        }
    if len(idx) > 1:
        frame_ms = 1000.0 / selection.fps
        buttons = [
            {"label": "Play", "method": "animate", "args": _animate("motion", frame_ms)},
            {"label": "Pause", "method": "animate", "args": _animate([None], 0)},
        ]
        if following:
            buttons.insert(
                1,
                {
                    "label": "Play whole path",
                    "method": "animate",
                    "args": _animate("whole path", frame_ms),
                },
            )
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
                "buttons": buttons,
            }
        ]
        layout["sliders"] = [
            {
                "active": 0,
                "x": 0.0,
                "y": 0.0,
                "len": 1.0,
                "xanchor": "left",
                "yanchor": "top",
                "pad": {"t": 75},
                "currentvalue": {"prefix": "t = ", "suffix": " s"},
                "steps": [
                    {
                        "label": f"{t:.2f}",
                        "method": "animate",
                        "args": _animate([str(index)], 0),
                    }
                    for index, t in zip(idx, times, strict=True)
                ],
            }
        ]
    fig = go.Figure(data=static, layout=layout)
    # Animated traces and frames as plain dicts: validated once, not per frame.
    fig.add_traces(traces)
    if len(idx) > 1:
        fig.frames = frames
    return fig


def _now(t: float, span: list[float]) -> dict[str, list[float]]:
    """A vertical line at time ``t`` [s] over the curves' value ``span``."""
    return {"x": [round(float(t), 4)] * 2, "y": span}


def _joint_values(motion: Motion, values: ArrayLike, sticks: bool) -> NDArray[np.float64]:
    """``values`` checked to be ``(T, J)`` for ``motion``, NaN as 0, for a shaded body."""
    if sticks:
        raise InputError("joint_values colour the shaded body; they cannot go with sticks")
    v = np.asarray(values, dtype=np.float64)
    shape = (motion.n_frames, motion.skeleton.n_joints)
    if v.shape != shape:
        raise InputError(f"joint_values must have shape {shape} (frames, joints); got {v.shape}")
    return np.nan_to_num(v, nan=0.0)


def _curve(name: str, c: ArrayLike, n_frames: int) -> NDArray[np.float64]:
    """Curve ``c`` checked to hold one value per frame."""
    a = np.asarray(c, dtype=np.float64)
    if a.shape != (n_frames,) or np.all(np.isnan(a)):
        raise InputError(
            f"curve {name!r} must hold one number per frame ({n_frames}), not all NaN; "
            f"got shape {a.shape}"
        )
    return a


def _point(name: str, p: ArrayLike) -> NDArray[np.float64]:
    a = np.asarray(p, dtype=np.float64)
    if a.shape != (3,) or not np.all(np.isfinite(a)):
        raise InputError(f"point {name!r} must be 3 finite numbers (x, y, z in m); got {p!r}")
    return a


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
        Passed to `motion_figure` (``scene``, ``trajectories``, ``points``, ``ghost``,
        ``ghost_name``, ``joint_values``, ``value_label``, ``curves``, ``curve_label``,
        ``sticks``, ``follow``, ``fps``, ``max_frames``, ``title``).

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
