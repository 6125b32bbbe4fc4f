"""Matplotlib figures: pose, trajectories, curves, and atomic PNG writing."""

from __future__ import annotations

import itertools

import imageio.v3 as iio
import numpy as np
import pytest
from matplotlib.figure import Figure
from mpl_toolkits.mplot3d import Axes3D
from mpl_toolkits.mplot3d.art3d import Poly3DCollection

from vhuman.errors import InputError, UnknownJointError
from vhuman.skeleton import Motion, standard_humanoid
from vhuman.viz import SceneMesh, plot_curves, plot_pose, plot_trajectories, save_figure
from vhuman.viz._drawing import bone_groups, select_frames, view_box


def _bone_lines(fig: Figure) -> dict[str, np.ndarray]:
    (ax,) = fig.axes
    return {
        line.get_label(): np.column_stack(line.get_data_3d())
        for line in ax.lines
        if line.get_label() in ("left", "right", "centre")
    }


# -- shared drawing -----------------------------------------------------------------------
def test_bone_groups_cover_every_bone_once_on_its_side() -> None:
    sk = standard_humanoid()
    seen = []
    for group in bone_groups(sk):
        pts = group.points
        for a, b in itertools.pairwise(pts):
            if a >= 0 and b >= 0:
                assert sk.parents[b] == a
                seen.append(b)
                name = sk.names[b]
                expected = (
                    "left"
                    if name.startswith("l_")
                    else "right"
                    if name.startswith("r_")
                    else "centre"
                )
                assert group.name == expected, name
    assert sorted(seen) == list(range(1, sk.n_joints))


def test_bone_groups_join_bones_into_few_chains() -> None:
    # Standard humanoid: an arm and a leg on each side, pelvis to head on the midline.
    groups = {g.name: g for g in bone_groups(standard_humanoid())}
    chains = {name: int(np.sum(g.points < 0)) + 1 for name, g in groups.items()}
    assert chains == {"left": 2, "right": 2, "centre": 1}


def test_select_frames_is_real_time_and_capped() -> None:
    sel = select_frames(100, 30.0, max_frames=300)
    np.testing.assert_array_equal(sel.indices, np.arange(100))
    assert sel.fps == pytest.approx(30.0)
    sel = select_frames(100, 30.0, max_frames=10)
    assert len(sel.indices) == 10
    assert (sel.indices[0], sel.indices[-1]) == (0, 99)
    assert sel.fps == pytest.approx(9 / (99 / 30.0))
    sel = select_frames(31, 30.0, max_frames=300, target_fps=10.0)
    np.testing.assert_array_equal(sel.indices, np.arange(0, 31, 3))
    assert sel.fps == pytest.approx(10.0)
    assert len(select_frames(1, 30.0, max_frames=5).indices) == 1
    with pytest.raises(InputError, match="max_frames"):
        select_frames(10, 30.0, max_frames=0)


def test_view_box_holds_points_scene_and_floor(box: SceneMesh) -> None:
    pts = np.array([[0.0, 0.0, 1.0], [0.2, 0.1, 1.5]])
    lo, hi = view_box(pts, [box])
    assert np.all(lo <= np.minimum(pts.min(0), box.vertices.min(0)))
    assert np.all(hi >= np.maximum(pts.max(0), box.vertices.max(0)))
    assert lo[2] <= 0.0
    assert np.all(hi - lo >= 1.0 - 1e-12)


# -- plot_pose ----------------------------------------------------------------------------
@pytest.mark.parametrize("frame", [0, 7, -1])
def test_plot_pose_lines_are_the_forward_kinematics(motion: Motion, frame: int) -> None:
    fig = plot_pose(motion, frame)
    lines = _bone_lines(fig)
    expected = motion.global_positions[frame]
    groups = bone_groups(motion.skeleton)
    assert set(lines) == {g.name for g in groups}
    for g in groups:
        data = lines[g.name]
        gap = g.points < 0
        assert np.all(np.isnan(data[gap]))
        np.testing.assert_allclose(data[~gap], expected[g.points[~gap]], atol=1e-12)


def test_plot_pose_axes_are_3d_equal_labelled_metres(motion: Motion) -> None:
    fig = plot_pose(motion, 3)
    (ax,) = fig.axes
    assert isinstance(ax, Axes3D)
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_zlabel()) == ("x [m]", "y [m]", "z [m]")
    ranges = np.array([np.ptp(ax.get_xlim()), np.ptp(ax.get_ylim()), np.ptp(ax.get_zlim())])
    aspect = np.asarray(ax.get_box_aspect())
    np.testing.assert_allclose(aspect / aspect.max(), ranges / ranges.max(), rtol=1e-6)
    lo = np.array([ax.get_xlim()[0], ax.get_ylim()[0], ax.get_zlim()[0]])
    hi = np.array([ax.get_xlim()[1], ax.get_ylim()[1], ax.get_zlim()[1]])
    pos = motion.global_positions[3]
    assert np.all(lo <= pos.min(0))
    assert np.all(hi >= pos.max(0))
    assert "t = 0.10 s" in ax.get_title()


def test_plot_pose_into_given_axes_with_scene(motion: Motion, box: SceneMesh) -> None:
    fig = Figure()
    ax = fig.add_subplot(1, 2, 2, projection="3d")
    assert plot_pose(motion, 0, ax, scene=[box]) is fig
    meshes = [c for c in ax.collections if isinstance(c, Poly3DCollection)]
    assert len(meshes) == 1
    assert meshes[0].get_label() == "box"
    assert ax.get_xlim()[1] >= 1.4


def test_plot_pose_rejects_bad_frame_and_2d_axes(motion: Motion) -> None:
    with pytest.raises(InputError, match="frame"):
        plot_pose(motion, 20)
    with pytest.raises(InputError, match="3D"):
        plot_pose(motion, 0, Figure().add_subplot())


# -- plot_trajectories and plot_curves ----------------------------------------------------
def test_plot_trajectories_top_and_side_views(motion: Motion) -> None:
    fig = plot_trajectories(motion, ["l_hand", "r_toe"])
    top, side = fig.axes
    assert (top.get_title(), side.get_title()) == ("top view", "side view")
    assert (top.get_xlabel(), top.get_ylabel()) == ("x [m]", "y [m]")
    assert (side.get_xlabel(), side.get_ylabel()) == ("x [m]", "z [m]")
    paths = motion.joint_trajectory(["l_hand", "r_toe"])
    for ax, b in ((top, 1), (side, 2)):
        labelled = {ln.get_label(): ln for ln in ax.lines if not ln.get_label().startswith("_")}
        assert list(labelled) == ["l_hand", "r_toe"]
        for i, name in enumerate(["l_hand", "r_toe"]):
            xd, yd = labelled[name].get_data()
            np.testing.assert_allclose(xd, paths[:, i, 0])
            np.testing.assert_allclose(yd, paths[:, i, b])
        assert ax.get_aspect() == 1.0


def test_plot_trajectories_defaults_and_errors(motion: Motion) -> None:
    labels = [ln.get_label() for ln in plot_trajectories(motion).axes[0].lines]
    assert [x for x in labels if not x.startswith("_")] == [
        "pelvis",
        "head",
        "l_hand",
        "r_hand",
        "l_toe",
        "r_toe",
    ]
    with pytest.raises(UnknownJointError):
        plot_trajectories(motion, ["tail"])
    with pytest.raises(InputError, match="at least one"):
        plot_trajectories(motion, [])
    with pytest.raises(InputError, match="sequence of joint names"):
        plot_trajectories(motion, "l_hand")


def test_plot_curves_lines_labels_legend() -> None:
    t = np.linspace(0.0, 1.0, 11)
    fig = plot_curves(t, {"knee": t**2, "hip": np.sin(t)}, ylabel="angle [deg]", title="Angles")
    (ax,) = fig.axes
    assert [ln.get_label() for ln in ax.lines] == ["knee", "hip"]
    np.testing.assert_allclose(ax.lines[1].get_ydata(), np.sin(t))
    assert (ax.get_xlabel(), ax.get_ylabel(), ax.get_title()) == (
        "time [s]",
        "angle [deg]",
        "Angles",
    )
    assert ax.get_legend() is not None
    with pytest.raises(InputError, match="'knee'"):
        plot_curves(t, {"knee": t[:-1]}, ylabel="y")
    with pytest.raises(InputError, match="at least one"):
        plot_curves(t, {}, ylabel="y")


# -- save_figure --------------------------------------------------------------------------
def test_save_figure_writes_png_atomically(tmp_path, motion: Motion) -> None:
    fig = plot_pose(motion)
    out = save_figure(fig, tmp_path / "pose.png", dpi=50)
    assert out == tmp_path / "pose.png"
    image = iio.imread(out)
    assert image.shape[:2] == (300, 300)  # 6 in × 50 dpi
    assert [p.name for p in tmp_path.iterdir()] == ["pose.png"]


def test_save_figure_failure_leaves_old_file_and_no_temp(tmp_path, monkeypatch) -> None:
    target = tmp_path / "fig.png"
    target.write_bytes(b"old")
    fig = Figure()

    def broken_savefig(path, **kwargs):
        with open(path, "wb") as f:
            f.write(b"partial")
        raise RuntimeError("disk full")

    monkeypatch.setattr(fig, "savefig", broken_savefig)
    with pytest.raises(RuntimeError, match="disk full"):
        save_figure(fig, target)
    assert [p.name for p in tmp_path.iterdir()] == ["fig.png"]
    assert target.read_bytes() == b"old"


def test_save_figure_rejects_suffix_and_missing_folder(tmp_path) -> None:
    with pytest.raises(InputError, match=r"\.png"):
        save_figure(Figure(), tmp_path / "fig.jpg")
    with pytest.raises(InputError, match="does not exist"):
        save_figure(Figure(), tmp_path / "missing" / "fig.png")
    assert list(tmp_path.iterdir()) == []


def test_scene_mesh_validates_and_normalises_colour() -> None:
    mesh = SceneMesh("tri", [[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]], color="red")
    assert mesh.color == "#ff0000"
    assert not mesh.vertices.flags.writeable
    with pytest.raises(InputError, match="index the 3 vertices"):
        SceneMesh("tri", np.eye(3), [[0, 1, 3]])
    with pytest.raises(InputError, match="shape"):
        SceneMesh("tri", np.eye(2), [[0, 1, 1]])
    with pytest.raises(InputError, match="colour"):
        SceneMesh("tri", np.eye(3), [[0, 1, 2]], color="not-a-colour")
    with pytest.raises(InputError, match="opacity"):
        SceneMesh("tri", np.eye(3), [[0, 1, 2]], opacity=2.0)


def test_pareto_joins_exactly_the_non_dominated_points() -> None:
    from vhuman.viz import plot_pareto

    f = np.array([[1.0, 5.0], [2.0, 3.0], [3.0, 4.0], [4.0, 1.0], [5.0, 5.0]])
    fig = plot_pareto(f, ["a", "b"], chosen=1)
    ax = fig.axes[0]
    line = next(x for x in ax.get_lines() if x.get_label() == "non-dominated")
    np.testing.assert_allclose(np.column_stack(line.get_data()), f[[0, 1, 3]])
    dominated = ax.collections[0].get_offsets()
    np.testing.assert_allclose(np.asarray(dominated), f[[2, 4]])
    with pytest.raises(InputError, match="N, 2"):
        plot_pareto(np.zeros((3, 3)), ["a", "b"])
