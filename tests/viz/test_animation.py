"""Animations: GIF and MP4 files that decode to the right frames, sizes and rates."""

from __future__ import annotations

import imageio.v3 as iio
import numpy as np
import pytest
from PIL import Image

import vhuman.viz.animation as animation
from vhuman.errors import InputError
from vhuman.skeleton import Motion
from vhuman.viz import SceneMesh, save_animation

SMALL = (160, 120)


def test_gif_has_every_frame_at_real_time(tmp_path, motion: Motion) -> None:
    out = save_animation(motion, tmp_path / "walk.gif", size=SMALL)
    frames = iio.imread(out)
    assert frames.shape == (20, 120, 160, 3)
    assert not np.array_equal(frames[0], frames[-1])
    with Image.open(out) as im:
        durations = []
        for i in range(im.n_frames):
            im.seek(i)
            durations.append(im.info["duration"])
    # Whole centiseconds whose sum keeps real time: 19 intervals of 1/30 s.
    assert set(durations) <= {30, 40}
    assert sum(durations[:-1]) == pytest.approx(1000 * 19 / 30, abs=10)
    assert [p.name for p in tmp_path.iterdir()] == ["walk.gif"]


def test_mp4_decodes_with_size_frames_and_fps(tmp_path, motion: Motion) -> None:
    pytest.importorskip("imageio_ffmpeg")
    out = save_animation(motion, tmp_path / "walk.MP4", size=SMALL)
    frames = iio.imread(out)
    assert frames.shape == (20, 120, 160, 3)
    assert iio.immeta(out)["fps"] == pytest.approx(30.0)
    assert [p.name for p in tmp_path.iterdir()] == ["walk.MP4"]


def test_long_motion_is_subsampled(tmp_path, make_motion) -> None:
    m = make_motion(61, 30.0)
    out = save_animation(m, tmp_path / "long.gif", size=SMALL, max_frames=5)
    assert iio.imread(out).shape[0] == 5
    out = save_animation(m, tmp_path / "slow.gif", size=SMALL, fps=10.0)
    assert iio.imread(out).shape[0] == 21


def test_progress_reports_each_frame_and_figure_is_built_once(
    tmp_path, motion: Motion, box: SceneMesh, monkeypatch
) -> None:
    built = []

    class CountingPose(animation.PoseArtists):
        def __init__(self, *args, **kwargs) -> None:
            built.append(1)
            super().__init__(*args, **kwargs)

    monkeypatch.setattr(animation, "PoseArtists", CountingPose)
    calls: list[tuple[int, int]] = []
    save_animation(
        motion,
        tmp_path / "a.gif",
        size=SMALL,
        max_frames=8,
        scene=[box],
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls == [(i, 8) for i in range(1, 9)]
    assert built == [1]


def test_unknown_suffix_names_the_allowed_ones(tmp_path, motion: Motion) -> None:
    with pytest.raises(InputError, match=r"\.gif, \.mp4"):
        save_animation(motion, tmp_path / "walk.avi")
    with pytest.raises(InputError, match="even"):
        save_animation(motion, tmp_path / "walk.mp4", size=(161, 120))
    with pytest.raises(InputError, match="size"):
        save_animation(motion, tmp_path / "walk.gif", size=(8, 8))
    assert list(tmp_path.iterdir()) == []


def test_failure_while_rendering_leaves_nothing(tmp_path, motion: Motion) -> None:
    target = tmp_path / "walk.gif"
    target.write_bytes(b"old")

    def stop(done: int, total: int) -> None:
        if done == 3:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        save_animation(motion, target, size=SMALL, progress=stop)
    assert [p.name for p in tmp_path.iterdir()] == ["walk.gif"]
    assert target.read_bytes() == b"old"


def test_failure_while_encoding_mp4_leaves_nothing(tmp_path, motion: Motion) -> None:
    pytest.importorskip("imageio_ffmpeg")

    def stop(done: int, total: int) -> None:
        if done == 5:
            raise RuntimeError("stop")

    with pytest.raises(RuntimeError, match="stop"):
        save_animation(motion, tmp_path / "walk.mp4", size=SMALL, progress=stop)
    assert list(tmp_path.iterdir()) == []
