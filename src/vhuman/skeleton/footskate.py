"""Feet sliding on the floor: the horizontal travel of foot points that rest on it.

A foot slides where a point of it rests on the floor in two consecutive frames
and moves horizontally between them. The points are the centres of the end
spheres of the foot's capsules (heel, ball, toe tip); one rests on the floor
when its sphere's lowest point lies within :data:`CONTACT_HEIGHT` of it. A
sphere rolling on the floor about its centre does not move it, so this counts
sliding and not the foot's roll (the foot-skate of Kovar, Schreiner and
Gleicher, "Footskate cleanup for motion capture editing", SCA 2002).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import InputError
from vhuman.geometry.quaternion import quat_apply
from vhuman.skeleton.motion import Motion

__all__ = ["CONTACT_HEIGHT", "FOOT_SEGMENTS", "SLIDE_TOLERANCE", "foot_points", "foot_slide"]

CONTACT_HEIGHT = 0.005
"""Height [m] above the floor within which a foot sphere's lowest point rests on it."""
SLIDE_TOLERANCE = 0.001
"""Horizontal travel [m] per frame above which a foot point on the floor slides."""
FOOT_SEGMENTS = ("l_ankle", "l_toe", "r_ankle", "r_toe")
"""Segments whose capsules make the feet (foot from the ankle, toes)."""


def foot_points(motion: Motion) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """World centres ``(N, P, 3)`` [m] and radii ``(P,)`` [m] of the feet's end spheres.

    The two end spheres of each capsule of :data:`FOOT_SEGMENTS` that the
    skeleton has, P of them in all (8 for the standard humanoid).

    Raises
    ------
    InputError
        If the skeleton has no capsule on any of :data:`FOOT_SEGMENTS`.
    """
    sk = motion.skeleton
    feet = [
        (j, seg)
        for j, (name, seg) in enumerate(zip(sk.names, sk.segments or (), strict=False))
        if name in FOOT_SEGMENTS and seg is not None
    ]
    if not feet:
        raise InputError(
            f"the skeleton has no foot capsules (segments on {', '.join(FOOT_SEGMENTS)}); "
            "use standard_humanoid()"
        )
    joints = [j for j, _ in feet]
    ends = np.array([[seg.start, seg.end] for _, seg in feet])  # (F, 2, 3)
    radii = np.array([seg.radius for _, seg in feet])
    pos = motion.global_positions[:, joints, None, :]
    rot = motion.global_rotations[:, joints, None, :]
    centres = pos + quat_apply(rot, ends)  # (N, F, 2, 3)
    n = motion.n_frames
    return centres.reshape(n, -1, 3), np.repeat(radii, 2)


def foot_slide(motion: Motion, floor: float = 0.0) -> NDArray[np.float64]:
    """Horizontal travel ``(N,)`` [m] from each frame to the next of the foot points on the floor.

    Parameters
    ----------
    motion : Motion
        N frames of a skeleton with foot capsules (:func:`foot_points`).
    floor : float
        Floor height [m].

    Returns
    -------
    ndarray, shape (N,)
        The largest travel of a foot capsule's end-sphere centre whose lowest
        point lies within :data:`CONTACT_HEIGHT` of the floor in both frames; 0
        where none does, and at the last frame.
    """
    centres, radii = foot_points(motion)
    down = centres[..., 2] - radii - floor <= CONTACT_HEIGHT
    both = down[:-1] & down[1:]
    travel = np.linalg.norm(np.diff(centres[..., :2], axis=0), axis=-1)
    out = np.zeros(motion.n_frames)
    out[:-1] = np.where(both, travel, 0.0).max(axis=-1, initial=0.0)
    return out
