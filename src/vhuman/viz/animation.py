"""Animations of a motion written to GIF (pillow) or MP4 (ffmpeg through imageio-ffmpeg)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from numpy.typing import NDArray
from PIL import Image

from vhuman.errors import InputError
from vhuman.io import atomic_path
from vhuman.skeleton import Motion
from vhuman.viz._drawing import FrameSelection, select_frames, view_box
from vhuman.viz._files import output_path
from vhuman.viz._mpl_pose import PoseArtists
from vhuman.viz.scene_mesh import SceneMesh

__all__ = ["ANIMATION_SUFFIXES", "save_animation"]

ANIMATION_SUFFIXES: tuple[str, ...] = (".gif", ".mp4")
"""File suffixes `save_animation` writes."""

GIF_MAX_FPS = 50.0
"""GIF frame delays are whole centiseconds and browsers slow down shorter ones."""

_DPI = 100.0


def _check_size(size: tuple[int, int], suffix: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in size)
    except (TypeError, ValueError):
        raise InputError(f"size must be (width, height) in pixels; got {size!r}") from None
    if not (16 <= w <= 4096 and 16 <= h <= 4096):
        raise InputError(f"size must be (width, height) with both in [16, 4096] px; got {size!r}")
    if suffix == ".mp4" and (w % 2 or h % 2):
        raise InputError(f"size of an MP4 must be even in width and height; got {size!r}")
    return w, h


def _render_frames(
    motion: Motion,
    selection: FrameSelection,
    size: tuple[int, int],
    scene: Sequence[SceneMesh],
    progress: Callable[[int, int], None] | None,
) -> Iterator[NDArray[np.uint8]]:
    """RGB images ``(height, width, 3)`` of the selected frames, from one reused figure."""
    w, h = size
    fig = Figure(figsize=(w / _DPI, h / _DPI), dpi=_DPI)
    canvas = FigureCanvasAgg(fig)
    ax = fig.add_subplot(projection="3d")
    positions = motion.global_positions[selection.indices]  # (N, J, 3)
    lo, hi = view_box(positions, scene)
    pose = PoseArtists(ax, motion.skeleton, lo, hi, scene)
    times = motion.times[selection.indices]
    # Blitting: draw the still parts once, then per frame only the moving artists
    # over a copy of them (about ten times faster than redrawing the 3D axes).
    for artist in pose.artists:
        artist.set_animated(True)
    canvas.draw()
    background = canvas.copy_from_bbox(fig.bbox)
    total = len(selection.indices)
    for i in range(total):
        canvas.restore_region(background)
        pose.update(positions[i], float(times[i]))
        for artist in pose.artists:
            ax.draw_artist(artist)
        yield np.asarray(canvas.buffer_rgba())[:h, :w, :3].copy()
        if progress is not None:
            progress(i + 1, total)


def _write_gif(path: Path, frames: Iterator[NDArray[np.uint8]], fps: float) -> None:
    first = Image.fromarray(next(frames)).quantize(256, dither=Image.Dither.NONE)
    # One palette for every frame: the colours do not change, and no flicker.
    rest = [Image.fromarray(f).quantize(palette=first, dither=Image.Dither.NONE) for f in frames]
    # GIF delays are whole centiseconds: round the frame times, not each delay,
    # so that the animation keeps real time (33 ms at 30 fps becomes 30, 40, 30, ...).
    centiseconds = np.round(np.arange(len(rest) + 2) * 100.0 / fps)
    first.save(
        path,
        format="GIF",
        save_all=True,
        append_images=rest,
        duration=(10 * np.diff(centiseconds)).astype(int).tolist(),
        loop=0,
    )


def _write_mp4(
    path: Path, frames: Iterator[NDArray[np.uint8]], fps: float, size: tuple[int, int]
) -> None:
    try:
        import imageio_ffmpeg
    except ImportError as e:
        raise InputError(
            "writing .mp4 needs the optional package imageio-ffmpeg "
            "(pip install 'vhuman[video]'); write a .gif instead"
        ) from e
    writer = imageio_ffmpeg.write_frames(
        str(path),
        size,
        fps=fps,
        codec="libx264",
        pix_fmt_in="rgb24",
        pix_fmt_out="yuv420p",
        quality=7,
        macro_block_size=1,
        ffmpeg_log_level="error",
    )
    writer.send(None)
    try:
        for frame in frames:
            writer.send(frame.tobytes())
    finally:
        writer.close()


def save_animation(
    motion: Motion,
    path: str | os.PathLike[str],
    *,
    fps: float | None = None,
    max_frames: int = 300,
    size: tuple[int, int] = (640, 480),
    scene: Sequence[SceneMesh] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Render the skeleton frame by frame into an animated GIF or an MP4 video.

    The view is the one of :func:`~vhuman.viz.plot_pose`, fixed for the whole
    motion (the box holds every frame); the skeleton is drawn over the scene.
    Playback is real time: a long motion is shown with fewer, evenly spread
    frames at a lower rate. The file appears only when complete (written to a
    temporary file, then renamed).

    Parameters
    ----------
    motion : Motion
        The motion.
    path : str or os.PathLike
        Target file; ``.gif`` (pillow) or ``.mp4`` (H.264, needs imageio-ffmpeg);
        its folder must exist.
    fps : float, optional
        Frame rate of the file [1/s]; the motion's by default, at most 50 for a GIF.
    max_frames : int, optional
        Most frames to render.
    size : (int, int), optional
        Width and height [px]; even for an MP4.
    scene : sequence of SceneMesh, optional
        Surroundings drawn in every frame.
    progress : callable, optional
        Called as ``progress(done, total)`` after each rendered frame.

    Returns
    -------
    Path
        ``path``.

    Raises
    ------
    InputError
        If the suffix is not one of `ANIMATION_SUFFIXES`, the folder does not
        exist, or ``fps``, ``max_frames`` or ``size`` is invalid.
    """
    p = output_path(path, ANIMATION_SUFFIXES, "animation")
    suffix = p.suffix.lower()
    w, h = _check_size(size, suffix)
    target_fps = motion.fps if fps is None else fps
    if suffix == ".gif":
        target_fps = min(target_fps, GIF_MAX_FPS)
    selection = select_frames(
        motion.n_frames, motion.fps, max_frames=max_frames, target_fps=target_fps
    )
    frames = _render_frames(motion, selection, (w, h), tuple(scene or ()), progress)
    with atomic_path(p) as tmp:
        if suffix == ".gif":
            _write_gif(tmp, frames, selection.fps)
        else:
            _write_mp4(tmp, frames, selection.fps, (w, h))
    return p
