"""Interactive 3D views of a maintenance scene (plotly): objects, target, body capsules, octree.

Each ``*_traces`` function returns plotly traces to add to any figure;
`scene_figure` puts them together with the same axes, camera and floor as the
motion viewer. `scene_meshes` turns a scene into `SceneMesh` objects, so that
`motion_figure` can draw a motion inside the scene.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.scene import STATES, BodyModel, FreeSpace, Scene
from vhuman.viz._drawing import view_box
from vhuman.viz.scene_mesh import SceneMesh
from vhuman.viz.viewer import _floor, _xyz

__all__ = ["body_traces", "octree_traces", "scene_figure", "scene_meshes", "scene_traces"]

_OBJECT_COLOR = "#9aa5b1"
_BODY_COLOR = "#e0a96d"
_TARGET_COLOR = "#d62728"
_CEILING_COLOR = "#5d6d7e"
_CELL_COLORS = {"free": "#2ca02c", "occupied": "#7f7f7f", "mixed": "#ff7f0e"}
# The 12 triangles of a cube over corners ordered x-major, y, then z (as in `_cube_corners`).
_CUBE_FACES = np.array(
    [[0, 1, 3], [0, 3, 2], [4, 6, 7], [4, 7, 5], [0, 4, 5], [0, 5, 1],
     [2, 3, 7], [2, 7, 6], [0, 2, 6], [0, 6, 4], [1, 5, 7], [1, 7, 3]],
    dtype=np.intp,
)  # fmt: skip
_CUBE_CORNERS = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], float)


def _mesh3d(vertices: NDArray[np.float64], faces: NDArray[np.intp], **style: Any) -> go.Mesh3d:
    return go.Mesh3d(
        **_xyz(vertices), i=faces[:, 0], j=faces[:, 1], k=faces[:, 2], flatshading=True, **style
    )


def scene_meshes(scene: Scene) -> list[SceneMesh]:
    """One `SceneMesh` per object (its own colour or grey), for `motion_figure`."""
    out = []
    for obj in scene.objects:
        v, f = obj.triangulate()
        out.append(SceneMesh(obj.name, v, f, obj.color or _OBJECT_COLOR))
    return out


def scene_traces(
    scene: Scene, *, ceiling: bool = True, target: bool = True, opacity: float = 1.0
) -> list[go.BaseTraceType]:
    """Traces of the objects (one Mesh3d each), the ceiling and the target.

    Parameters
    ----------
    scene : Scene
        The scene.
    ceiling : bool, optional
        Draw the ceiling over the scene's extent as a see-through plane (if it has one).
    target : bool, optional
        Draw the target point and an arrow along its approach direction.
    opacity : float, optional
        Opacity of the objects, in [0, 1].

    Returns
    -------
    list of plotly traces
        ``len(scene.objects)`` Mesh3d, then one Mesh3d for the ceiling, then one
        Scatter3d for the target (each when asked for and present).
    """
    traces: list[go.BaseTraceType] = [
        _mesh3d(
            m.vertices,
            m.faces,
            color=m.color,
            opacity=opacity,
            name=m.name,
            hoverinfo="name",
            showlegend=True,
        )
        for m in scene_meshes(scene)
    ]
    if ceiling and scene.ceiling is not None:
        lo, hi = scene.bounds()
        corners = np.array(
            [[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]], dtype=np.float64
        )
        verts = np.column_stack([corners, np.full(4, scene.ceiling)])
        traces.append(
            _mesh3d(verts, np.array([[0, 1, 2], [0, 2, 3]]), color=_CEILING_COLOR, opacity=0.15,
                    name=f"ceiling ({scene.ceiling:.2f} m)", hoverinfo="name", showlegend=True)
        )  # fmt: skip
    if target:
        t = scene.target
        tip = t.position - 0.15 * t.approach  # the arrow points along the approach, onto the target
        pts = np.array([tip, t.position])
        traces.append(
            go.Scatter3d(
                **_xyz(pts),
                mode="lines+markers",
                line={"color": _TARGET_COLOR, "width": 6},
                marker={"color": _TARGET_COLOR, "size": [2, 6]},
                name=f"target: {t.name}",
                hovertemplate="%{x:.3f}, %{y:.3f}, %{z:.3f} m<extra>" + t.name + "</extra>",
            )
        )
    return traces


def body_traces(
    body: BodyModel, root_position: ArrayLike, local_rotations: ArrayLike, *, name: str = "body"
) -> list[go.BaseTraceType]:
    """One Mesh3d holding the capsules of every body segment in one pose.

    Parameters
    ----------
    body : BodyModel
        The body.
    root_position : array_like, shape (3,)
        Root position [m].
    local_rotations : array_like, shape (J, 4)
        Local joint rotations (w, x, y, z).
    name : str, optional
        Legend entry.
    """
    v, f = body.meshes(root_position, local_rotations)
    return [_mesh3d(v, f, color=_BODY_COLOR, opacity=1.0, name=name, hoverinfo="name")]


def octree_traces(
    space: FreeSpace, *, states: tuple[str, ...] = ("free",), opacity: float = 0.25
) -> list[go.BaseTraceType]:
    """One Mesh3d of cubes per cell state asked for (free green, occupied grey, mixed orange).

    Parameters
    ----------
    space : FreeSpace
        The octree.
    states : tuple of str, optional
        Any of ``"free"``, ``"occupied"``, ``"mixed"``; states without cells are skipped.
    opacity : float, optional
        Cube opacity.

    Returns
    -------
    list of plotly.graph_objects.Mesh3d
        Each with 8 vertices and 12 triangles per cell.

    Raises
    ------
    InputError
        For an unknown state.
    """
    bad = [s for s in states if s not in STATES]
    if bad:
        raise InputError(f"unknown cell state {bad[0]!r}; use some of {', '.join(STATES)}")
    sizes, centres = space.sizes, space.centres
    traces: list[go.BaseTraceType] = []
    for s in states:
        sel = space.state == STATES.index(s)
        n = int(sel.sum())
        if not n:
            continue
        lo = centres[sel] - 0.5 * sizes[sel, None]
        verts = (lo[:, None, :] + _CUBE_CORNERS * sizes[sel, None, None]).reshape(-1, 3)
        faces = (_CUBE_FACES[None] + 8 * np.arange(n)[:, None, None]).reshape(-1, 3)
        traces.append(
            _mesh3d(
                verts,
                faces,
                color=_CELL_COLORS[s],
                opacity=opacity,
                name=f"{s} cells ({n})",
                hoverinfo="name",
            )
        )
    return traces


def scene_figure(
    scene: Scene,
    *,
    body: BodyModel | None = None,
    pose: tuple[ArrayLike, ArrayLike] | None = None,
    free_space: FreeSpace | None = None,
    title: str | None = None,
) -> go.Figure:
    """A plotly figure of the scene, optionally with a body pose and the octree's free cells.

    Parameters
    ----------
    scene : Scene
        The scene.
    body : BodyModel, optional
        The body; needs ``pose``.
    pose : (root_position (3,), local_rotations (J, 4)), optional
        The pose to draw.
    free_space : FreeSpace, optional
        Its free cells are drawn.
    title : str, optional
        Figure title (default: the scene's name).

    Returns
    -------
    plotly.graph_objects.Figure
        Floor and grid, then the traces of `scene_traces`, `body_traces` and
        `octree_traces`; equal scale on the three axes (metres), z up.

    Raises
    ------
    InputError
        If only one of ``body`` and ``pose`` is given.
    """
    if (body is None) != (pose is None):
        raise InputError("give both body and pose to draw a body, or neither")
    traces = scene_traces(scene)
    if body is not None and pose is not None:
        traces += body_traces(body, *pose)
    if free_space is not None:
        traces += octree_traces(free_space)
    lo_s, hi_s = scene.bounds()
    pts = [np.array([lo_s, hi_s])]
    for t in traces:
        if isinstance(t, go.Mesh3d):
            pts.append(np.column_stack([np.asarray(t.x, float), np.asarray(t.y, float),
                                        np.asarray(t.z, float)]))  # fmt: skip
    lo, hi = view_box(np.concatenate(pts), margin=0.1)
    ranges = hi - lo
    aspect = ranges / ranges.max()
    layout = {
        "title": {"text": title or f"scene {scene.name}"},
        "scene": {
            "xaxis": {"title": {"text": "x [m]"}, "range": [lo[0], hi[0]]},
            "yaxis": {"title": {"text": "y [m]"}, "range": [lo[1], hi[1]]},
            "zaxis": {"title": {"text": "z [m]"}, "range": [lo[2], hi[2]]},
            "aspectmode": "manual",
            "aspectratio": dict(zip("xyz", aspect.tolist(), strict=True)),
            "camera": {"up": {"x": 0, "y": 0, "z": 1}, "eye": {"x": -1.2, "y": -1.6, "z": 0.9}},
        },
        "legend": {"x": 0.0, "y": 1.0},
        "margin": {"l": 0, "r": 0, "t": 40, "b": 0},
        "template": "plotly_white",
    }
    return go.Figure(data=[*_floor(lo, hi), *traces], layout=layout)
