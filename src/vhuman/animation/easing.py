"""Easing (timing) curves: maps of normalised time [0, 1] → [0, 1] with fixed ends."""

from __future__ import annotations

import enum

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["Easing", "ease"]


class Easing(enum.Enum):
    """Timing of an in-between segment of a keyframe track."""

    LINEAR = "linear"
    """Constant speed."""
    EASE_IN = "ease-in"
    """Starts at rest: u = s²."""
    EASE_OUT = "ease-out"
    """Ends at rest: u = 1 − (1 − s)²."""
    EASE_OUT_CUBIC = "ease-out-cubic"
    """Ends at rest, fastest at the start (three times the mean rate): u = 1 − (1 − s)³."""
    EASE_IN_OUT = "ease-in-out"
    """Starts and ends at rest (smoothstep): u = 3s² − 2s³."""
    MINIMUM_JERK = "minimum-jerk"
    """Starts and ends at rest with zero acceleration: u = 10s³ − 15s⁴ + 6s⁵."""


def ease(easing: Easing, s: ArrayLike) -> NDArray[np.float64]:
    """Apply a timing curve to normalised times ``s`` in [0, 1] (clipped).

    Every curve is monotonic with ``ease(e, 0) = 0`` and ``ease(e, 1) = 1``, so
    keys are still hit exactly.
    """
    s = np.clip(np.asarray(s, dtype=np.float64), 0.0, 1.0)
    if easing is Easing.LINEAR:
        return s
    if easing is Easing.EASE_IN:
        return s * s
    if easing is Easing.EASE_OUT:
        return 1.0 - (1.0 - s) ** 2
    if easing is Easing.EASE_OUT_CUBIC:
        return 1.0 - (1.0 - s) ** 3
    if easing is Easing.EASE_IN_OUT:
        return s * s * (3.0 - 2.0 * s)
    return s**3 * (10.0 - 15.0 * s + 6.0 * s * s)
