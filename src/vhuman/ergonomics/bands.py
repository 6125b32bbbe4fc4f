"""Angle bands and yes/no adjustments that REBA and RULA share, vectorised.

Band edges are the published ones in degrees. A value on an edge belongs to
the lower band ("0–20°" includes 20°, "20–45°" starts above it), as an
observer reading a protractor to the stated figure would score it.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vhuman.ergonomics.angles import BodyAngles
from vhuman.ergonomics.thresholds import PostureThresholds

__all__ = [
    "arm_adjustments",
    "lower_arm_band",
    "neck_adjustments",
    "supporting_legs",
    "trunk_adjustments",
    "upper_arm_band",
]


def _deg(a: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.degrees(a)


def upper_arm_band(flexion: NDArray[np.float64]) -> NDArray[np.int64]:
    """Upper-arm posture score, same in both methods: 20° extension–20° flexion 1;
    > 20° extension or 20–45° flexion 2; 45–90° 3; > 90° 4.

    ``flexion`` [rad], negative for extension.
    """
    f = _deg(flexion)
    return np.select([f < -20.0, f <= 20.0, f <= 45.0, f <= 90.0], [2, 1, 2, 3], 4).astype(np.int64)


def lower_arm_band(elbow_flexion: NDArray[np.float64]) -> NDArray[np.int64]:
    """Lower-arm posture score, same in both methods: 60–100° flexion 1, otherwise 2."""
    e = _deg(elbow_flexion)
    return np.where((e >= 60.0) & (e <= 100.0), 1, 2).astype(np.int64)


def arm_adjustments(
    angles: BodyAngles, thresholds: PostureThresholds
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """``(abducted, shoulder_raised)``, each ``S + (2,)``."""
    abducted = angles.upper_arm_abduction > thresholds.abduction
    raised = angles.shoulder_elevation > thresholds.shoulder_raise
    return abducted, raised


def trunk_adjustments(
    angles: BodyAngles, thresholds: PostureThresholds
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """``(twisted, side_bent)`` of the trunk, each of shape S."""
    return (
        np.abs(angles.trunk_twist) > thresholds.twist,
        np.abs(angles.trunk_side_bend) > thresholds.side_bend,
    )


def neck_adjustments(
    angles: BodyAngles, thresholds: PostureThresholds
) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
    """``(twisted, side_bent)`` of the neck, each of shape S."""
    return (
        np.abs(angles.neck_twist) > thresholds.twist,
        np.abs(angles.neck_side_bend) > thresholds.side_bend,
    )


def supporting_legs(angles: BodyAngles, thresholds: PostureThresholds) -> NDArray[np.bool_]:
    """Which legs bear weight ``S + (2,)``: lowest point within ``support_height`` of the floor."""
    return angles.foot_clearance <= thresholds.support_height
