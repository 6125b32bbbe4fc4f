"""Angles between vectors and at joints, batched."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["flexion_angle", "vector_angle"]


def vector_angle(u: ArrayLike, v: ArrayLike) -> NDArray[np.float64]:
    """Angle ``(...,)`` [rad] in [0, π] between vectors ``u`` and ``v`` ``(..., 3)``.

    Computed as ``atan2(|u × v|, u · v)``, accurate near 0 and π where the
    arccosine of the normalised dot product loses digits. Zero-length vectors
    give 0.

    Examples
    --------
    >>> float(vector_angle([1.0, 0.0, 0.0], [0.0, 2.0, 0.0]))
    1.5707963267948966
    """
    a = np.asarray(u, dtype=np.float64)
    b = np.asarray(v, dtype=np.float64)
    return np.arctan2(np.linalg.norm(np.cross(a, b), axis=-1), np.sum(a * b, axis=-1))


def flexion_angle(a: ArrayLike, b: ArrayLike, c: ArrayLike) -> NDArray[np.float64]:
    """Flexion ``(...,)`` [rad] at point ``b`` of the chain ``a → b → c`` (positions ``(..., 3)``).

    Zero when the chain is straight, π when it folds back on itself: the angle
    between the segments ``b − a`` and ``c − b`` (the knee's flexion from hip,
    knee and ankle positions, say).

    Examples
    --------
    >>> round(float(flexion_angle([0, 0, 1], [0, 0, 0], [1, 0, 0])), 6)  # a right angle
    1.570796
    """
    a, b, c = (np.asarray(x, dtype=np.float64) for x in (a, b, c))
    return vector_angle(b - a, c - b)
