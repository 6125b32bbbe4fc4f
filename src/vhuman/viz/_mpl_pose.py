"""Matplotlib artists of a skeleton in a 3D axes, drawn once and then moved in place."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from matplotlib.artist import Artist
from matplotlib.ticker import MaxNLocator
from mpl_toolkits.mplot3d import Axes3D
from mpl_toolkits.mplot3d.art3d import Line3D, Poly3DCollection
from numpy.typing import NDArray

from vhuman.skeleton import Skeleton
from vhuman.viz._drawing import bone_groups
from vhuman.viz.scene_mesh import SceneMesh

__all__ = ["PoseArtists"]

# Camera ahead of the body and to its right (the body faces +x, +y is its left).
_ELEVATION_DEG = 15.0
_AZIMUTH_DEG = -55.0


class PoseArtists:
    """Bones of ``skeleton`` (one line per body side) and a time title in ``ax``.

    Sets up ``ax`` for the box ``lo``–``hi``: fixed limits, equal scale on the
    three axes, z up, axes labelled in metres; draws ``scene`` once. `update`
    moves the bones to a new pose without creating artists, which is what makes
    animations cheap.

    Parameters
    ----------
    ax : Axes3D
        Axes to draw into.
    skeleton : Skeleton
        The body.
    lo, hi : ndarray, shape (3,)
        Corners of the box to show [m].
    scene : sequence of SceneMesh, optional
        Static meshes.
    """

    def __init__(
        self,
        ax: Axes3D,
        skeleton: Skeleton,
        lo: NDArray[np.float64],
        hi: NDArray[np.float64],
        scene: Sequence[SceneMesh] = (),
    ) -> None:
        ax.set_xlim(lo[0], hi[0])
        ax.set_ylim(lo[1], hi[1])
        ax.set_zlim(lo[2], hi[2])
        ax.set_box_aspect(tuple(hi - lo))
        for axis, name in ((ax.xaxis, "x"), (ax.yaxis, "y"), (ax.zaxis, "z")):
            axis.set_major_locator(MaxNLocator(nbins=4))
            axis.set_label_text(f"{name} [m]")
        ax.view_init(elev=_ELEVATION_DEG, azim=_AZIMUTH_DEG)
        for mesh in scene:
            ax.add_collection3d(
                Poly3DCollection(
                    mesh.vertices[mesh.faces],
                    facecolor=mesh.color,
                    edgecolor="none",
                    alpha=mesh.opacity,
                    label=mesh.name,
                )
            )
        self._groups = bone_groups(skeleton)
        self.lines: tuple[Line3D, ...] = tuple(
            ax.plot(
                [], [], [], color=g.color, label=g.name, linewidth=2.5, marker="o", markersize=3
            )[0]
            for g in self._groups
        )
        self.title = ax.set_title(" ")

    @property
    def artists(self) -> tuple[Artist, ...]:
        """The artists that `update` changes."""
        return (*self.lines, self.title)

    def update(self, positions: NDArray[np.float64], time: float) -> None:
        """Move the bones to joint positions ``(J, 3)`` [m] and show the time ``time`` [s]."""
        for line, group in zip(self.lines, self._groups, strict=True):
            p = group.polyline(positions)
            line.set_data_3d(p[:, 0], p[:, 1], p[:, 2])
        self.title.set_text(f"t = {time:.2f} s")
