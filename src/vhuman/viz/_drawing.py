"""What every view of a motion draws: bone polylines by body side, the frames shown, the box.

Shared by the matplotlib figures, the animations and the plotly viewer, so that
they agree on colours, on which frames a long motion is reduced to and on the
region of space they show.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import InputError
from vhuman.skeleton import Skeleton
from vhuman.viz.scene_mesh import SceneMesh

__all__ = ["BoneGroup", "FrameSelection", "bone_groups", "select_frames", "view_box"]

SIDE_COLORS: dict[str, str] = {"left": "#1f77b4", "right": "#d62728", "centre": "#444444"}
"""Bone colour by body side: left blue, right red, midline dark grey."""


@dataclass(frozen=True, eq=False)
class BoneGroup:
    """The bones on one side of the body, as one polyline broken by gaps.

    Attributes
    ----------
    name : str
        ``"left"``, ``"right"`` or ``"centre"``.
    color : str
        ``"#rrggbb"``.
    points : ndarray of int, shape (P,)
        Joint index of each polyline point; −1 marks a gap between chains.
    """

    name: str
    color: str
    points: NDArray[np.intp]

    def polyline(self, positions: NDArray[np.float64]) -> NDArray[np.float64]:
        """Polyline points ``(..., P, 3)`` [m] of joint positions ``(..., J, 3)``; gaps are NaN."""
        out = positions[..., np.maximum(self.points, 0), :]
        out[..., self.points < 0, :] = np.nan
        return out


def _chains(bones: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Join (parent, child) bones into as few joint chains as the tree allows."""
    chains: list[list[int]] = []
    chain_ending_at: dict[int, int] = {}
    for parent, child in bones:
        k = chain_ending_at.pop(parent, None)
        if k is None:
            k = len(chains)
            chains.append([parent])
        chains[k].append(child)
        chain_ending_at[child] = k
    return chains


def bone_groups(skeleton: Skeleton) -> tuple[BoneGroup, ...]:
    """Bones (joint to parent) grouped by the body side of the child joint.

    A joint is on the left when it has a mirror counterpart (see
    :attr:`Skeleton.mirror`) and lies further towards +y at rest than that
    counterpart; joints without a counterpart are on the midline. Empty groups
    are left out; a skeleton without bones is one ``"centre"`` group holding its root.
    """
    rest_y = skeleton.rest_positions()[:, 1]
    mirror = skeleton.mirror
    side = np.where(
        mirror == np.arange(skeleton.n_joints),
        "centre",
        np.where(rest_y > rest_y[mirror], "left", "right"),
    )
    groups = []
    for name, color in SIDE_COLORS.items():
        bones = [(int(p), j) for j, p in enumerate(skeleton.parents) if p >= 0 and side[j] == name]
        if not bones:
            continue
        points: list[int] = []
        for chain in _chains(bones):
            points.extend([*chain, -1])
        groups.append(BoneGroup(name, color, np.array(points[:-1], dtype=np.intp)))
    if not groups:
        groups.append(BoneGroup("centre", SIDE_COLORS["centre"], np.zeros(1, dtype=np.intp)))
    return tuple(groups)


@dataclass(frozen=True)
class FrameSelection:
    """The frames of a motion that a view shows, and how fast to play them.

    Attributes
    ----------
    indices : ndarray of int, shape (N,)
        Increasing frame indices into the motion.
    fps : float
        Playback rate [frames/s] at which the ``N`` frames take the motion's duration.
    """

    indices: NDArray[np.intp]
    fps: float


def select_frames(
    n_frames: int, fps: float, *, max_frames: int, target_fps: float | None = None
) -> FrameSelection:
    """Frames to show so that playback is real time at about ``target_fps``.

    Parameters
    ----------
    n_frames : int
        Frames T of the motion (≥ 1).
    fps : float
        Frame rate of the motion [1/s].
    max_frames : int
        Most frames to keep (≥ 1); longer motions play at a lower rate.
    target_fps : float, optional
        Wanted playback rate [1/s]; the motion's own rate by default. Never more
        frames than the motion has are shown.

    Returns
    -------
    FrameSelection
        Evenly spread frames, always including the first and the last.

    Raises
    ------
    InputError
        If ``max_frames`` < 1 or ``target_fps`` ≤ 0.
    """
    if int(max_frames) < 1:
        raise InputError(f"max_frames must be an integer >= 1; got {max_frames}")
    target = fps if target_fps is None else float(target_fps)
    if not (np.isfinite(target) and target > 0.0):
        raise InputError(f"fps must be a finite number > 0; got {target_fps}")
    duration = (n_frames - 1) / fps
    n = min(int(np.floor(duration * target + 1e-9)) + 1, n_frames, int(max_frames))
    indices = np.unique(np.round(np.linspace(0, n_frames - 1, n)).astype(np.intp))
    play_fps = (len(indices) - 1) / duration if len(indices) > 1 else target
    return FrameSelection(indices, play_fps)


def view_box(
    points: NDArray[np.float64],
    scene: Sequence[SceneMesh] = (),
    *,
    margin: float = 0.1,
    min_size: float = 1.0,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The box a view shows: the points, the scene and the floor (z = 0), with a margin.

    Parameters
    ----------
    points : ndarray, shape (N, 3)
        Points to hold [m] (NaN ignored).
    scene : sequence of SceneMesh, optional
        Meshes whose vertices the box holds too.
    margin : float, optional
        Added on every side [m].
    min_size : float, optional
        Smallest side length [m], so that a flat or empty set still gets a box.

    Returns
    -------
    lo, hi : ndarray, shape (3,)
        Opposite corners [m].
    """
    pts = np.concatenate(
        [np.asarray(points, dtype=np.float64).reshape(-1, 3), *(m.vertices for m in scene)]
    )
    pts = pts[np.all(np.isfinite(pts), axis=1)]
    if len(pts) == 0:
        pts = np.zeros((1, 3))
    lo = pts.min(axis=0)
    hi = pts.max(axis=0)
    lo[2] = min(lo[2], 0.0)
    hi[2] = max(hi[2], 0.0)
    centre = 0.5 * (lo + hi)
    half = np.maximum(0.5 * (hi - lo) + margin, 0.5 * min_size)
    return centre - half, centre + half
