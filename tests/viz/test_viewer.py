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
    assert play.args[0] is None  # every frame
    assert play.args[1]["frame"]["duration"] == pytest.approx(1000 / 30)
    assert play.args[1]["frame"]["redraw"] is True
    assert tuple(pause.args[0]) == (None,)


def test_frames_hold_the_forward_kinematics_in_mm(motion: Motion) -> None:
    fig = motion_figure(motion)
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
    fig = motion_figure(m, max_frames=11)
    assert len(fig.frames) == 11
    assert [f.name for f in fig.frames] == [str(i) for i in range(0, 101, 10)]
    steps = fig.layout.sliders[0].steps
    assert [s.label for s in steps] == [f"{t:.2f}" for t in np.linspace(0.0, 2.0, 11)]
    play = fig.layout.updatemenus[0].buttons[0]
    assert play.args[1]["frame"]["duration"] == pytest.approx(200.0)


def test_equal_aspect_fixed_ranges_floor_and_camera(motion: Motion) -> None:
    fig = motion_figure(motion)
    scene = fig.layout.scene
    lo = np.array([scene.xaxis.range[0], scene.yaxis.range[0], scene.zaxis.range[0]])
    hi = np.array([scene.xaxis.range[1], scene.yaxis.range[1], scene.zaxis.range[1]])
    pos = motion.global_positions.reshape(-1, 3)
    assert np.all(lo <= pos.min(0))
    assert np.all(hi >= pos.max(0))
    ratio = np.array([scene.aspectratio.x, scene.aspectratio.y, scene.aspectratio.z])
    np.testing.assert_allclose(ratio / ratio.max(), (hi - lo) / (hi - lo).max())
    assert scene.aspectmode == "manual"
    assert (scene.camera.up.x, scene.camera.up.y, scene.camera.up.z) == (0, 0, 1)
    assert scene.xaxis.title.text == "x [m]"
    floor = [t for t in fig.data if t.name in ("floor", "floor grid")]
    assert len(floor) == 2
    assert np.nanmax(np.abs(_coords(floor[1])[:, 2])) == 0.0


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


def test_one_frame_motion_is_a_still_figure(motion: Motion) -> None:
    fig = motion_figure(motion[5])
    assert len(fig.frames) == 0
    assert not fig.layout.sliders
    assert not fig.layout.updatemenus


def test_title_is_escaped(motion: Motion) -> None:
    assert motion_figure(motion).layout.title.text == "20 frames, 0.63 s at 30 fps"
    fig = motion_figure(motion, title="<b>walk</b> & run")
    assert fig.layout.title.text == "&lt;b&gt;walk&lt;/b&gt; &amp; run"


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
    assert extra < 500_000  # motion data and page around plotly.js


def test_write_viewer_rejects_bad_path(tmp_path, motion: Motion) -> None:
    with pytest.raises(InputError, match=r"\.html"):
        write_viewer(motion, tmp_path / "view.png")
    with pytest.raises(InputError, match="max_frames"):
        write_viewer(motion, tmp_path / "view.html", max_frames=0)
    assert list(tmp_path.iterdir()) == []
