"""The plotly viewer: frames, slider, controls, scene, and the self-contained HTML file."""

from __future__ import annotations

import re

import numpy as np
import plotly.graph_objects as go
import plotly.offline
import pytest

from vhuman.errors import InputError, UnknownJointError
from vhuman.skeleton import Motion
from vhuman.viz import VIEWER_DIV_ID, SceneMesh, motion_figure, write_viewer
from vhuman.viz._drawing import bone_groups
from vhuman.viz.manikin import Manikin


def _coords(trace) -> np.ndarray:
    return np.array([[np.nan if v is None else v for v in trace[a]] for a in "xyz"], dtype=float).T


def test_one_frame_per_motion_frame_with_slider_in_seconds(motion: Motion) -> None:
    fig = motion_figure(motion)
    assert len(fig.frames) == 20
    (slider,) = fig.layout.sliders
    assert len(slider.steps) == 20
    assert [s.label for s in slider.steps] == [f"{t:.2f}" for t in motion.times]
    assert slider.currentvalue.suffix == " s"
    assert [tuple(s.args[0]) for s in slider.steps] == [(f.name,) for f in fig.frames]
    assert all(s.method == "animate" for s in slider.steps)


def test_play_and_pause_buttons(motion: Motion) -> None:
    (menu,) = motion_figure(motion).layout.updatemenus
    play, pause = menu.buttons
    assert (play.label, pause.label) == ("Play", "Pause")
    assert play.method == pause.method == "animate"
    assert play.args[0] == "motion"  # every frame of the group "motion"
    assert play.args[1]["frame"]["duration"] == pytest.approx(1000 / 30)
    assert play.args[1]["frame"]["redraw"] is True
    assert tuple(pause.args[0]) == (None,)


def test_body_frames_hold_the_manikin_vertices_in_mm(motion: Motion) -> None:
    fig = motion_figure(motion)
    (body,) = [t for t in fig.data if t.name == "body"]
    assert isinstance(body, go.Mesh3d)
    manikin = Manikin.from_skeleton(motion.skeleton)
    verts = manikin.motion_vertices(motion, np.arange(motion.n_frames))
    _, faces = manikin.local_mesh()
    np.testing.assert_array_equal(np.column_stack([body.i, body.j, body.k]), faces)
    np.testing.assert_allclose(_coords(body), verts[0], atol=5e-4 + 1e-9)
    index = list(fig.data).index(body)
    for k in (0, 13):
        frame = fig.frames[k]
        assert list(frame.traces) == [index]
        (data,) = frame.data
        # Only the vertices change per frame: the triangles are stored once.
        assert data.i is None
        assert data.j is None
        assert data.k is None
        np.testing.assert_allclose(_coords(data), verts[k], atol=5e-4 + 1e-9)


def test_sticks_frames_hold_the_forward_kinematics_in_mm(motion: Motion) -> None:
    fig = motion_figure(motion, sticks=True)
    assert not [t for t in fig.data if t.name == "body"]
    groups = bone_groups(motion.skeleton)
    first_bone = len(fig.data) - len(groups)
    for k in (0, 13):
        frame = fig.frames[k]
        assert list(frame.traces) == list(range(first_bone, len(fig.data)))
        for trace, g in zip(frame.data, groups, strict=True):
            data = _coords(trace)
            gap = g.points < 0
            assert np.all(np.isnan(data[gap]))
            expected = motion.global_positions[k, g.points[~gap]]
            np.testing.assert_allclose(data[~gap], expected, atol=5e-4 + 1e-9)
    np.testing.assert_array_equal(_coords(fig.data[first_bone]), _coords(fig.frames[0].data[0]))


def test_long_motion_is_subsampled(make_motion) -> None:
    m = make_motion(101, 50.0)
    fig = motion_figure(m, max_frames=11, follow=False, trajectories=["l_hand"])
    assert len(fig.frames) == 11
    (path,) = [t for t in fig.data if t.name == "path of l_hand"]
    # The static path keeps every frame: a smooth line under a decimated body.
    np.testing.assert_allclose(_coords(path), m.joint_trajectory(["l_hand"])[:, 0], atol=5e-4)
    assert [f.name for f in fig.frames] == [str(i) for i in range(0, 101, 10)]
    steps = fig.layout.sliders[0].steps
    assert [s.label for s in steps] == [f"{t:.2f}" for t in np.linspace(0.0, 2.0, 11)]
    play = fig.layout.updatemenus[0].buttons[0]
    assert play.args[1]["frame"]["duration"] == pytest.approx(200.0)


def test_equal_aspect_fixed_ranges_floor_and_camera(motion: Motion) -> None:
    fig = motion_figure(motion)
    assert all("layout" not in f or f.layout.scene.xaxis.range is None for f in fig.frames)
    scene = fig.layout.scene
    lo = np.array([scene.xaxis.range[0], scene.yaxis.range[0], scene.zaxis.range[0]])
    hi = np.array([scene.xaxis.range[1], scene.yaxis.range[1], scene.zaxis.range[1]])
    (body,) = [t for t in fig.data if t.name == "body"]
    pos = np.concatenate([_coords(f.data[0]) for f in fig.frames] + [_coords(body)])
    assert np.all(lo <= pos.min(0))
    assert np.all(hi >= pos.max(0))
    ratio = np.array([scene.aspectratio.x, scene.aspectratio.y, scene.aspectratio.z])
    np.testing.assert_allclose(ratio / ratio.max(), (hi - lo) / (hi - lo).max())
    assert scene.aspectmode == "manual"
    assert (scene.camera.up.x, scene.camera.up.y, scene.camera.up.z) == (0, 0, 1)
    assert scene.xaxis.title.text == "x [m]"
    floor = [t for t in fig.data if t.name in ("floor", "floor grid")]
    assert len(floor) == 2
    grid = _coords(floor[1])
    assert np.nanmax(np.abs(grid[:, 2])) == 0.0
    # Lines every metre: each line lies on a whole number of metres in x or in y.
    ends = grid[~np.isnan(grid[:, 0])]
    on_metre = np.isclose(ends[:, :2], np.round(ends[:, :2])).any(axis=1)
    assert on_metre.all()


def test_scene_meshes_and_trajectories(motion: Motion, box: SceneMesh) -> None:
    fig = motion_figure(motion, scene=[box], trajectories=["l_hand", "pelvis"])
    (mesh,) = [t for t in fig.data if isinstance(t, go.Mesh3d) and t.name == "box"]
    np.testing.assert_allclose(np.column_stack([mesh.x, mesh.y, mesh.z]), box.vertices)
    np.testing.assert_array_equal(np.column_stack([mesh.i, mesh.j, mesh.k]), box.faces)
    assert (mesh.color, mesh.opacity) == ("#ffa500", 0.8)
    paths = {t.name: t for t in fig.data if t.name.startswith("path of")}
    assert list(paths) == ["path of l_hand", "path of pelvis"]
    np.testing.assert_allclose(
        _coords(paths["path of l_hand"]), motion.joint_trajectory(["l_hand"])[:, 0], atol=5e-4
    )
    assert fig.layout.scene.xaxis.range[1] >= 1.4
    with pytest.raises(UnknownJointError):
        motion_figure(motion, trajectories=["tail"])
    with pytest.raises(InputError, match="sequence of joint names"):
        motion_figure(motion, trajectories="l_hand")


def test_camera_follows_a_walk_and_a_button_plays_the_whole_path(make_motion) -> None:
    m = make_motion(61, 30.0)  # the root travels 2 m along x
    fig = motion_figure(m)
    moving = [f for f in fig.frames if f.group == "motion"]
    whole = [f for f in fig.frames if f.group == "whole path"]
    assert len(moving) == len(whole) == 61
    (body,) = [t for t in fig.data if t.name == "body"]
    root = m.global_positions[:, 0]
    sides, offsets = set(), []
    for k, f in enumerate(moving):
        sc = f.layout.scene
        lo = np.array([sc.xaxis.range[0], sc.yaxis.range[0], sc.zaxis.range[0]])
        hi = np.array([sc.xaxis.range[1], sc.yaxis.range[1], sc.zaxis.range[1]])
        offsets.append(0.5 * (lo + hi)[:2] - root[k, :2])
        verts = _coords(f.data[0])
        assert np.all(verts >= lo)
        assert np.all(verts <= hi)
        sides.add(tuple(np.round(hi - lo, 3)))
        ratio = [sc.aspectratio.x, sc.aspectratio.y, sc.aspectratio.z]
        np.testing.assert_allclose(ratio, 1.0, atol=1e-3)
    # The box moves with the root, at one offset of a few cm (the body's middle).
    np.testing.assert_allclose(offsets, offsets[0][None].repeat(len(offsets), 0), atol=1e-3)
    assert np.linalg.norm(offsets[0]) < 0.3
    assert len(sides) == 1  # one cube size: the body keeps its size on screen
    (side,) = sides
    assert side[2] < 2.5  # the body (1.75 m) fills most of the box height, not a 2 m path
    for w, f in zip(whole, moving, strict=True):
        assert (w.baseframe, w.name) == (f.name, f"{f.name} whole")
        assert w.data is None or len(w.data) == 0
        assert w.layout.scene.xaxis.range[1] - w.layout.scene.xaxis.range[0] > 2.0
    play, play_whole, _pause = fig.layout.updatemenus[0].buttons
    assert (play.args[0], play_whole.args[0]) == ("motion", "whole path")
    assert "follows the body" in fig.layout.title.text
    assert np.all(_coords(body) >= -1.0)
    assert not [f for f in motion_figure(m, follow=False).frames if f.group == "whole path"]


def test_a_body_with_a_ghost_beside_it_is_framed_as_tightly(make_motion) -> None:
    m = make_motion(61, 30.0)
    beside = m.root_positions + np.array([0.0, 0.8, 0.0])
    ghost = Motion(m.skeleton, m.fps, beside, m.local_rotations)

    def side(fig: go.Figure) -> float:
        sc = fig.frames[0].layout.scene
        return sc.zaxis.range[1] - sc.zaxis.range[0]

    # The two bodies together are 1.5 m wide, less than the body is tall: the cube keeps its
    # size (centred on the root it would have to reach 0.8 m further to one side).
    assert side(motion_figure(m, ghost=ghost)) == pytest.approx(side(motion_figure(m)), abs=1e-3)


def test_ghost_and_points(motion: Motion) -> None:
    ghost = motion.mirrored()
    fig = motion_figure(motion, ghost=ghost, ghost_name="true", points={"target": (1, 0, 1)})
    body, true = (next(t for t in fig.data if t.name == n) for n in ("body", "true"))
    assert body.opacity == 1.0
    assert 0.0 < true.opacity < 1.0
    manikin = Manikin.from_skeleton(ghost.skeleton)
    verts = manikin.motion_vertices(ghost, np.arange(ghost.n_frames))
    index = list(fig.data).index(true)
    frame = fig.frames[7]
    assert index in frame.traces
    np.testing.assert_allclose(
        _coords(frame.data[list(frame.traces).index(index)]), verts[7], atol=5e-4 + 1e-9
    )
    (target,) = [t for t in fig.data if t.name == "target"]
    assert (target.x, target.y, target.z) == ((1.0,), (0.0,), (1.0,))
    with pytest.raises(InputError, match="ghost must have as many frames"):
        motion_figure(motion, ghost=motion[:5])
    with pytest.raises(InputError, match="point 'target' must be 3 finite numbers"):
        motion_figure(motion, points={"target": (1, 0)})


def test_one_frame_motion_is_a_still_figure(motion: Motion) -> None:
    fig = motion_figure(motion[5])
    assert len(fig.frames) == 0
    assert not fig.layout.sliders
    assert not fig.layout.updatemenus


def test_title_is_escaped_and_states_the_playback(motion: Motion, make_motion) -> None:
    title = motion_figure(motion).layout.title.text
    assert title.startswith("20 frames, 0.63 s at 30 fps<br>")
    assert "every frame, played at 30 frames/s" in title
    fig = motion_figure(motion, title="<b>walk</b> & run")
    assert fig.layout.title.text.startswith("&lt;b&gt;walk&lt;/b&gt; &amp; run<br>")
    decimated = motion_figure(make_motion(61, 60.0), fps=15.0).layout.title.text
    assert "16 of 61 frames (decimated), played at 15 frames/s" in decimated


def test_write_viewer_is_one_self_contained_file(tmp_path, motion: Motion, box: SceneMesh) -> None:
    out = write_viewer(motion, tmp_path / "view.html", scene=[box], title="<Walk>")
    assert [p.name for p in tmp_path.iterdir()] == ["view.html"]
    page = out.read_text(encoding="utf-8")
    assert page.count(plotly.offline.get_plotlyjs()[:500]) == 1
    assert not re.search(r"<script[^>]*\ssrc=", page)
    assert not re.search(r"<link[^>]*\shref=", page)
    assert f'id="{VIEWER_DIV_ID}"' in page
    assert "<title>&lt;Walk&gt;</title>" in page
    assert "<Walk>" not in page


def test_write_viewer_size_for_300_frames(tmp_path, make_motion) -> None:
    out = write_viewer(make_motion(600, 60.0), tmp_path / "view.html")
    extra = out.stat().st_size - len(plotly.offline.get_plotlyjs())
    assert extra < 300 * 15_000  # body vertices of 300 frames and the page around plotly.js
    out = write_viewer(make_motion(600, 60.0), tmp_path / "sticks.html", sticks=True)
    assert out.stat().st_size - len(plotly.offline.get_plotlyjs()) < 500_000


def test_write_viewer_rejects_bad_path(tmp_path, motion: Motion) -> None:
    with pytest.raises(InputError, match=r"\.html"):
        write_viewer(motion, tmp_path / "view.png")
    with pytest.raises(InputError, match="max_frames"):
        write_viewer(motion, tmp_path / "view.html", max_frames=0)
    assert list(tmp_path.iterdir()) == []


def test_joint_values_colour_each_capsule_by_its_joint(motion: Motion) -> None:
    n_joints = motion.skeleton.n_joints
    values = np.tile(np.arange(n_joints, dtype=float), (motion.n_frames, 1))
    values *= np.arange(1, motion.n_frames + 1)[:, None]  # grows frame by frame
    values[0, 0] = np.nan  # counts as 0
    fig = motion_figure(motion, joint_values=values, value_label="error [mm]")
    body = next(t for t in fig.data if t.name == "body")
    manikin = Manikin.from_skeleton(motion.skeleton)
    per = manikin.local_mesh()[0].shape[1]
    carriers = np.repeat(manikin.joints, per)
    np.testing.assert_allclose(body.intensity, np.nan_to_num(values[0])[carriers])
    assert body.cmin == 0.0
    assert body.cmax == pytest.approx(np.nanmax(values[:, manikin.joints]))
    assert body.colorbar.title.text == "error [mm]"
    index = list(fig.data).index(body)
    frame = fig.frames[5]
    data = frame.data[list(frame.traces).index(index)]
    np.testing.assert_allclose(data.intensity, values[5][carriers])
    with pytest.raises(InputError, match=r"joint_values must have shape \(20, "):
        motion_figure(motion, joint_values=values[:3])
    with pytest.raises(InputError, match="cannot go with sticks"):
        motion_figure(motion, joint_values=values, sticks=True)


def test_curves_under_the_player_with_a_line_at_the_time_shown(motion: Motion) -> None:
    error = np.linspace(0.0, 95.0, motion.n_frames)
    error[:4] = np.nan
    fig = motion_figure(motion, curves={"model": error}, curve_label="MPJPE [mm]")
    (curve,) = [t for t in fig.data if t.name == "model"]
    np.testing.assert_allclose(curve.x, motion.times, atol=1e-4)
    np.testing.assert_allclose(curve.y, error, atol=0.01)
    assert fig.layout.yaxis.title.text == "MPJPE [mm]"
    assert fig.layout.scene.domain.y[0] > fig.layout.yaxis.domain[1]  # the curves under the body
    (now,) = [t for t in fig.data if t.name == "time shown"]
    index = list(fig.data).index(now)
    for k in (0, 9, 19):
        frame = fig.frames[k]
        line = frame.data[list(frame.traces).index(index)]
        assert line.x == (pytest.approx(motion.times[k], abs=1e-4),) * 2
        assert line.y == (20.0, 95.0)  # over the values drawn
    with pytest.raises(InputError, match="curve 'model' must hold one number per frame"):
        motion_figure(motion, curves={"model": error[:5]})
