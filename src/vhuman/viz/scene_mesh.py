"""`SceneMesh`: a triangle mesh of the surroundings, drawn beside a motion."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from matplotlib.colors import is_color_like, to_hex
from numpy.typing import NDArray

from vhuman.errors import InputError

__all__ = ["SceneMesh"]


@dataclass(frozen=True, eq=False)
class SceneMesh:
    """A named triangle mesh in world coordinates, as the viewers draw it.

    The hand-off point between scene descriptions (boxes, cylinders, meshes)
    and the plots and viewers: anything that can be triangulated is drawn this way.

    Parameters
    ----------
    name : str
        Label shown in legends and hover text.
    vertices : array_like, shape (V, 3)
        Vertex positions in the world frame [m] (z up).
    faces : array_like of int, shape (F, 3)
        Vertex indices of each triangle.
    color : str or tuple of float, optional
        Any colour matplotlib understands (``"grey"``, ``"#b0b0b0"``, ``(r, g, b)``
        in [0, 1]); stored as ``"#rrggbb"`` so that plotly reads it too.
    opacity : float, optional
        In [0, 1]; 1 is opaque.

    Raises
    ------
    InputError
        If a shape, an index, the colour or the opacity is invalid.

    Examples
    --------
    >>> SceneMesh("floor tile", [[0, 0, 0], [1, 0, 0], [0, 1, 0]], [[0, 1, 2]]).color
    '#b0b0b0'
    """

    name: str
    vertices: NDArray[np.float64]
    faces: NDArray[np.intp]
    color: str = "#b0b0b0"
    opacity: float = 1.0

    def __post_init__(self) -> None:
        v = np.array(self.vertices, dtype=np.float64)
        if v.ndim != 2 or v.shape[1] != 3 or not np.all(np.isfinite(v)):
            raise InputError(
                f"vertices of scene mesh {self.name!r} must be finite, shape (V, 3); "
                f"got shape {v.shape}"
            )
        f = np.asarray(self.faces)
        if f.ndim != 2 or f.shape[1] != 3 or not np.issubdtype(f.dtype, np.integer):
            raise InputError(
                f"faces of scene mesh {self.name!r} must be integers of shape (F, 3); "
                f"got {f.dtype} of shape {f.shape}"
            )
        if f.size and (f.min() < 0 or f.max() >= len(v)):
            raise InputError(
                f"faces of scene mesh {self.name!r} must index the {len(v)} vertices "
                f"(0 to {len(v) - 1}); got {f.min()} to {f.max()}"
            )
        if not is_color_like(self.color):
            raise InputError(
                f"color of scene mesh {self.name!r} must be a matplotlib colour "
                f"(a name, '#rrggbb' or an (r, g, b) tuple); got {self.color!r}"
            )
        opacity = float(self.opacity)
        if not 0.0 <= opacity <= 1.0:
            raise InputError(
                f"opacity of scene mesh {self.name!r} must be in [0, 1]; got {opacity}"
            )
        f = f.astype(np.intp)
        v.setflags(write=False)
        f.setflags(write=False)
        object.__setattr__(self, "vertices", v)
        object.__setattr__(self, "faces", f)
        object.__setattr__(self, "color", to_hex(self.color))
        object.__setattr__(self, "opacity", opacity)
