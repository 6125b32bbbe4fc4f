"""Plotly views of scenes: the right traces, with the right numbers of triangles."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
import pytest

from vhuman.errors import InputError
from vhuman.scene import CollisionWorld, free_space, load_scene
from vhuman.viz.scene_view import (
    body_traces,
    octree_traces,
    scene_figure,
    scene_meshes,
    scene_traces,
)


def test_scene_traces_one_mesh_per_object_plus_ceiling_and_target():
    scene = load_scene("ship-valve")
    traces = scene_traces(scene)
    meshes = [t for t in traces if isinstance(t, go.Mesh3d)]
    assert len(meshes) == len(scene.objects) + 1  # + the ceiling
    assert [t.name for t in meshes[:-1]] == list(scene.object_names)
    assert sum(isinstance(t, go.Scatter3d) for t in traces) == 1
    wheel = scene_meshes(scene)[scene.object_names.index("valve handwheel")]
    assert len(wheel.faces) == 384
    assert len(scene_traces(scene, ceiling=False, target=False)) == len(scene.objects)


def test_body_and_octree_traces_and_figure(p95_body, rest_pose):
    scene = load_scene("ship-valve")
    q = rest_pose(p95_body.skeleton.n_joints)
    pose = (np.array([-0.3, 0.0, 0.94]), q)
    (body,) = body_traces(p95_body, *pose)
    v, f = p95_body.meshes(*pose)
    assert len(body.i) == len(f)
    assert len(body.x) == len(v)
    assert np.max(body.z) == pytest.approx(1.775, abs=0.01)
    space = free_space(CollisionWorld(scene, resolution=0.05), 0.78, max_depth=3)
    cells = octree_traces(space, states=("free", "occupied", "mixed"))
    counts = [int(np.sum(space.state == k)) for k in range(3)]
    assert [len(t.i) for t in cells] == [12 * n for n in counts if n]
    fig = scene_figure(scene, body=p95_body, pose=pose, free_space=space)
    names = [t.name for t in fig.data]
    assert "body" in names
    assert any(n.startswith("free cells") for n in names)
    n_free = int(np.sum(space.state == 0))
    assert f"free cells ({n_free})" in names
    with pytest.raises(InputError, match="both body and pose"):
        scene_figure(scene, body=p95_body)
    with pytest.raises(InputError, match="unknown cell state"):
        octree_traces(space, states=("empty",))


def test_solids_between_camera_and_body_are_see_through(p95_body, rest_pose):
    from vhuman.scene import Box, Scene, SceneObject, Target
    from vhuman.viz.scene_view import body_camera, occluders

    def wall(name, x):
        return SceneObject(name, Box((0.1, 3.0, 2.0)), [x, 0.0, 1.0], [1, 0, 0, 0])

    # The default camera looks from -x, -y, +z: the wall at x = -1 stands in front of a
    # body at the origin, the one at x = +1 behind it.
    scene = Scene(
        "walls",
        (wall("front", -1.0), wall("back", 1.0)),
        Target([0.5, 0.0, 1.0], [1, 0, 0, 0], [1, 0, 0]),
    )
    pose = (np.array([0.0, 0.0, 0.94]), rest_pose(p95_body.skeleton.n_joints))
    a, b = p95_body.capsules(*pose)
    assert occluders(scene, [-5.0, -6.0, 3.0], np.concatenate([a, b])) == ["front"]
    fig = scene_figure(scene, body=p95_body, pose=pose)
    opacity = {t.name: t.opacity for t in fig.data if isinstance(t, go.Mesh3d)}
    assert opacity["front (see-through)"] < 0.5
    assert opacity["back"] == 1.0
    # The camera looks at the body's centre, from the default direction.
    lo, hi = np.array([-2.0, -2.0, 0.0]), np.array([2.0, 2.0, 2.0])
    centre, eye = body_camera(lo, hi, np.concatenate([a, b]))
    assert np.allclose(centre[:2], 0.0, atol=0.03)
    d = eye - centre
    assert np.allclose(
        d / np.linalg.norm(d), np.array([-1.2, -1.6, 0.9]) / np.linalg.norm([-1.2, -1.6, 0.9])
    )


def test_segments_in_contact_are_drawn_red(p95_body, rest_pose):
    pose = (np.array([0.0, 0.0, 0.94]), rest_pose(p95_body.skeleton.n_joints))
    (plain,) = body_traces(p95_body, *pose)
    assert plain.vertexcolor is None
    touching = p95_body.names[3]
    (body,) = body_traces(p95_body, *pose, contacts=[touching])
    colours = np.asarray(body.vertexcolor)
    assert len(colours) == len(body.x)
    per = len(colours) // len(p95_body.names)
    red = np.flatnonzero(colours == "#ff0000")
    assert len(red) == per * sum(n == touching for n in p95_body.names)
    assert set(red // per) == {k for k, n in enumerate(p95_body.names) if n == touching}
    assert body.name == "body (contacts red)"
    with pytest.raises(InputError, match="no body segment 'tail'"):
        body_traces(p95_body, *pose, contacts=["tail"])
