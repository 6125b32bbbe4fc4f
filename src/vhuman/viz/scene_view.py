"""Interactive 3D views of a maintenance scene (plotly): objects, target, body capsules, octree.

Each ``*_traces`` function returns plotly traces to add to any figure;
`scene_figure` puts them together with the same axes, camera and floor as the
motion viewer. `scene_meshes` turns a scene into `SceneMesh` objects, so that
`motion_figure` can draw a motion inside the scene.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.scene import BodyModel, CellState, FreeSpace, Scene
from vhuman.scene.shapes import CUBE_FACES
from vhuman.viz._drawing import view_box
from vhuman.viz.scene_mesh import SceneMesh
from vhuman.viz.viewer import _floor, _xyz

__all__ = [
    "body_camera",
    "body_traces",
    "occluders",
    "octree_traces",
    "scene_figure",
    "scene_meshes",
    "scene_traces",
]

_OBJECT_COLOR = "#9aa5b1"
_BODY_COLOR = "#e0a96d"
_TARGET_COLOR = "#d62728"
_CONTACT_COLOR = "#ff0000"
_CEILING_COLOR = "#5d6d7e"
_EYE = (-1.2, -1.6, 0.9)  # default camera direction (normalised scene units)
_SEE_THROUGH = 0.2  # opacity of solids between the camera and the body
_CELL_COLORS = {"free": "#2ca02c", "occupied": "#7f7f7f", "mixed": "#ff7f0e"}
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
            _mesh3d(
                verts,
                np.array([[0, 1, 2], [0, 2, 3]]),
                color=_CEILING_COLOR,
                opacity=0.15,
                name=f"ceiling ({scene.ceiling:.2f} m)",
                hoverinfo="name",
                showlegend=True,
            )
        )
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
    body: BodyModel,
    root_position: ArrayLike,
    local_rotations: ArrayLike,
    *,
    name: str = "body",
    contacts: Sequence[str] = (),
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
    contacts : sequence of str, optional
        Segments in contact with the scene (`Contact.segment`), drawn red.

    Raises
    ------
    InputError
        For a contact segment the body lacks.
    """
    v, f = body.meshes(root_position, local_rotations)
    if not contacts:
        return [_mesh3d(v, f, color=_BODY_COLOR, opacity=1.0, name=name, hoverinfo="name")]
    body.segment_indices(list(contacts))  # an unknown segment name raises
    touching = np.isin(np.asarray(body.names), list(contacts))
    colours = np.where(np.repeat(touching, len(v) // len(body.names)), _CONTACT_COLOR, _BODY_COLOR)
    return [
        _mesh3d(
            v,
            f,
            vertexcolor=colours.tolist(),
            opacity=1.0,
            name=f"{name} (contacts red)",
            hoverinfo="name",
        )
    ]


def octree_traces(
    space: FreeSpace,
    *,
    states: tuple[CellState | str, ...] = (CellState.FREE,),
    opacity: float = 0.25,
) -> list[go.BaseTraceType]:
    """One Mesh3d of cubes per cell state asked for (free green, occupied grey, mixed orange).

    Parameters
    ----------
    space : FreeSpace
        The octree.
    states : tuple of CellState or str, optional
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
    chosen = [CellState.parse(s) for s in states]
    sizes, centres = space.sizes, space.centres
    traces: list[go.BaseTraceType] = []
    for s in chosen:
        sel = space.state == s.code
        n = int(sel.sum())
        if not n:
            continue
        lo = centres[sel] - 0.5 * sizes[sel, None]
        verts = (lo[:, None, :] + _CUBE_CORNERS * sizes[sel, None, None]).reshape(-1, 3)
        faces = (CUBE_FACES[None] + 8 * np.arange(n)[:, None, None]).reshape(-1, 3)
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
    contacts: Sequence[str] = (),
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
    contacts : sequence of str, optional
        Body segments in contact with the scene, drawn red (see `body_traces`).
    title : str, optional
        Figure title (default: the scene's name).

    Returns
    -------
    plotly.graph_objects.Figure
        Floor and grid, then the traces of `scene_traces`, `body_traces` and
        `octree_traces`; equal scale on the three axes (metres), z up. With a
        body, the camera frames it (:func:`body_camera`) and the objects between
        the camera and the body are drawn see-through (:func:`occluders`); every
        object is a legend entry that shows or hides it.

    Raises
    ------
    InputError
        If only one of ``body`` and ``pose`` is given.
    """
    if (body is None) != (pose is None):
        raise InputError("give both body and pose to draw a body, or neither")
    traces = scene_traces(scene)
    body_pts = None
    if body is not None and pose is not None:
        traces += body_traces(body, *pose, contacts=contacts)
        a, b = body.capsules(*pose)
        body_pts = np.concatenate([a, b, 0.5 * (a + b)])
    if free_space is not None:
        traces += octree_traces(free_space)
    lo_s, hi_s = scene.bounds()
    pts = [np.array([lo_s, hi_s])]
    for t in traces:
        if isinstance(t, go.Mesh3d):
            pts.append(
                np.column_stack(
                    [np.asarray(t.x, float), np.asarray(t.y, float), np.asarray(t.z, float)]
                )
            )
    lo, hi = view_box(np.concatenate(pts), margin=0.1)
    ranges = hi - lo
    aspect = ranges / ranges.max()
    camera: dict[str, Any] = {
        "up": {"x": 0, "y": 0, "z": 1},
        "eye": dict(zip("xyz", _EYE, strict=True)),
    }
    if body_pts is not None:
        centre, eye = body_camera(lo, hi, body_pts)
        camera["center"] = dict(zip("xyz", centre.tolist(), strict=True))
        camera["eye"] = dict(zip("xyz", eye.tolist(), strict=True))
        eye_world = lo + (eye / aspect + 0.5) * ranges
        hiding = set(occluders(scene, eye_world, body_pts))
        for t in traces[: len(scene.objects)]:
            if t.name in hiding:
                t.opacity = _SEE_THROUGH
                t.name = f"{t.name} (see-through)"
    layout = {
        "title": {"text": title or f"scene {scene.name}"},
        "scene": {
            "xaxis": {"title": {"text": "x [m]"}, "range": [lo[0], hi[0]]},
            "yaxis": {"title": {"text": "y [m]"}, "range": [lo[1], hi[1]]},
            "zaxis": {"title": {"text": "z [m]"}, "range": [lo[2], hi[2]]},
            "aspectmode": "manual",
            "aspectratio": dict(zip("xyz", aspect.tolist(), strict=True)),
            "camera": camera,
        },
        "legend": {"x": 0.0, "y": 1.0, "title": {"text": "click to show / hide"}},
        "margin": {"l": 0, "r": 0, "t": 40, "b": 0},
        "template": "plotly_white",
    }
    return go.Figure(data=[*_floor(lo, hi), *traces], layout=layout)


def body_camera(
    lo: ArrayLike, hi: ArrayLike, points: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Plotly camera ``center`` and ``eye`` (normalised scene coordinates) that frame a body.

    The view box ``lo``–``hi`` [m] is drawn with its longest side 1 and
    centred on 0 (plotly's ``aspectmode="manual"`` with the ratios of the box);
    the camera looks at the centre of ``points`` (N, 3) [m] from the default
    direction, at a distance of 2.5 times their extent in those units.
    """
    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    ranges = hi - lo
    scale = 1.0 / ranges.max()
    centre = (0.5 * (p.min(axis=0) + p.max(axis=0)) - 0.5 * (lo + hi)) * scale
    size = float(np.max(p.max(axis=0) - p.min(axis=0))) * scale
    direction = np.asarray(_EYE) / np.linalg.norm(_EYE)
    return centre, centre + max(2.5 * size, 0.6) * direction


def occluders(scene: Scene, eye: ArrayLike, points: ArrayLike) -> list[str]:
    """Objects whose bounding box meets a sight line from ``eye`` (3,) [m] to ``points`` (N, 3).

    A slab test on each object's world bounding box: conservative (a box may be
    crossed where its solid is not).
    """
    e = np.asarray(eye, dtype=np.float64)
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    d = p - e  # (N, 3): the sight lines, from t = 0 (eye) to t = 1 (body)
    with np.errstate(divide="ignore", invalid="ignore"):
        inv = 1.0 / d
    out = []
    for obj in scene.objects:
        blo, bhi = obj.bounds()
        if np.all((p >= blo) & (p <= bhi), axis=1).any():
            continue  # the body is inside the box (e.g. under a bench top): not in front
        with np.errstate(invalid="ignore"):
            t1, t2 = (blo - e) * inv, (bhi - e) * inv
        t1 = np.where(np.isnan(t1), -np.inf, t1)
        t2 = np.where(np.isnan(t2), np.inf, t2)
        near = np.max(np.minimum(t1, t2), axis=1)
        far = np.min(np.maximum(t1, t2), axis=1)
        if np.any((near <= far) & (far >= 0.0) & (near <= 1.0)):
            out.append(obj.name)
    return out
