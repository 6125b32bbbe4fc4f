"""Axis conventions of file formats, as proper rotations onto vhuman's frame (z up, facing +x)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["DEEPMIMIC_AXES", "IDENTITY_AXES", "Y_UP_AXES", "AxisMap"]


@dataclass(frozen=True)
class AxisMap:
    """A change of basis that permutes and negates axes: ``ours[i] = sign[i] · file[index[i]]``.

    Only proper rotations (determinant +1) are allowed, so left stays left.
    Vectors map with the matrix ``C``; rotations with ``C R Cᵀ``, which for a
    quaternion maps its vector part like a vector and keeps ``w``.

    Attributes
    ----------
    index : tuple of 3 int
        File axis that becomes each of our x, y, z axes.
    sign : tuple of 3 float
        ±1 per our axis.
    """

    index: tuple[int, int, int]
    sign: tuple[float, float, float]

    def __post_init__(self) -> None:
        if sorted(self.index) != [0, 1, 2] or not all(abs(s) == 1.0 for s in self.sign):
            raise ValueError(f"not an axis permutation: {self}")
        if np.linalg.det(self.matrix) < 0.0:
            raise ValueError(
                f"axis map {self} is a mirror; only proper rotations keep left and right"
            )

    @property
    def matrix(self) -> NDArray[np.float64]:
        """The rotation ``C`` ``(3, 3)`` with ``v_ours = C v_file``."""
        c = np.zeros((3, 3))
        c[[0, 1, 2], list(self.index)] = self.sign
        return c

    def vectors_to_ours(self, v: ArrayLike) -> NDArray[np.float64]:
        """Vectors ``(..., 3)`` in the file's axes → ours."""
        v = np.asarray(v, dtype=np.float64)
        return v[..., list(self.index)] * np.asarray(self.sign)

    def vectors_from_ours(self, v: ArrayLike) -> NDArray[np.float64]:
        """Vectors ``(..., 3)`` in our axes → the file's."""
        v = np.asarray(v, dtype=np.float64)
        out = np.empty_like(v)
        out[..., list(self.index)] = v * np.asarray(self.sign)
        return out

    def quats_to_ours(self, q: ArrayLike) -> NDArray[np.float64]:
        """Rotations ``(..., 4)`` (w, x, y, z) about the file's axes → ours (``C R Cᵀ``)."""
        q = np.asarray(q, dtype=np.float64)
        return np.concatenate([q[..., :1], self.vectors_to_ours(q[..., 1:])], axis=-1)

    def quats_from_ours(self, q: ArrayLike) -> NDArray[np.float64]:
        """Rotations ``(..., 4)`` about our axes → the file's (``Cᵀ R C``)."""
        q = np.asarray(q, dtype=np.float64)
        return np.concatenate([q[..., :1], self.vectors_from_ours(q[..., 1:])], axis=-1)


IDENTITY_AXES = AxisMap((0, 1, 2), (1.0, 1.0, 1.0))
"""Files already in vhuman's frame."""

Y_UP_AXES = AxisMap((2, 0, 1), (1.0, 1.0, 1.0))
"""y up, facing +z, left at +x (BVH, CMU): ``x' = z, y' = x, z' = y``, a cyclic permutation."""

DEEPMIMIC_AXES = AxisMap((0, 2, 1), (1.0, -1.0, 1.0))
"""y up, facing +x, left at −z (DeepMimic): ``x' = x, y' = −z, z' = y``, +90° about x."""
