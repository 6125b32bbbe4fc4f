"""Arm-against-body clearance with the capsule body model of `vhuman.scene.BodyModel`.

The arm is three capsules (upper arm, forearm, hand: the segments carried by
``<s>_shoulder``, ``<s>_elbow`` and ``<s>_wrist``), the body it must not pass
through is the trunk, pelvis, neck, head and both thighs. Capsules overlap by
``r_a + r_b − d`` where ``d`` is the distance between their axes; that overlap
(the penetration depth) is what is measured, positive inside.

The standard humanoid's capsules are deliberately round: with the arm hanging
at the side the forearm capsule already touches the thigh capsule by about
2 mm, so a pose counts as a self-collision only beyond a tolerance
(:data:`DEFAULT_TOLERANCE`).

References
----------
Ericson, C. (2005). Real-Time Collision Detection. Morgan Kaufmann,
Section 5.1.9 (closest points of two segments).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.reaching.arm import Side
from vhuman.scene.body import BodyModel
from vhuman.skeleton import Skeleton

__all__ = [
    "ARM_SEGMENTS",
    "BODY_SEGMENTS",
    "DEFAULT_TOLERANCE",
    "ArmBodyClearance",
    "segment_distance",
]

BODY_SEGMENTS = ("pelvis", "spine", "chest", "neck", "head", "l_hip", "r_hip")
"""Body capsules the reaching arm must keep out of (joint names carrying them):
pelvis, abdomen, thorax, neck, head, left and right thigh."""

ARM_SEGMENTS = ("shoulder", "elbow", "wrist")
"""Arm capsules, by the joint carrying them (``r_``/``l_`` prefix): upper arm, forearm, hand."""

DEFAULT_TOLERANCE = 0.005
"""Capsule overlap [m] beyond which a pose counts as a self-collision."""


def segment_distance(
    a0: ArrayLike, a1: ArrayLike, b0: ArrayLike, b1: ArrayLike
) -> NDArray[np.float64]:
    """Shortest distance between segments ``a0–a1`` and ``b0–b1``, batched.

    Parameters
    ----------
    a0, a1, b0, b1 : array_like, shape (..., 3)
        Segment end points [m]; broadcast together. Degenerate segments
        (points) are allowed.

    Returns
    -------
    ndarray, shape (...)
        Distances [m].

    References
    ----------
    Ericson (2005), Section 5.1.9, ``ClosestPtSegmentSegment``.

    Examples
    --------
    >>> float(segment_distance([0, 0, 0], [1, 0, 0], [0.5, 1, -1], [0.5, 1, 1]))
    1.0
    """
    p1, q1, p2, q2 = (np.asarray(x, dtype=np.float64) for x in (a0, a1, b0, b1))
    d1, d2, r = q1 - p1, q2 - p2, p1 - p2
    a = np.sum(d1 * d1, axis=-1)
    e = np.sum(d2 * d2, axis=-1)
    f = np.sum(d2 * r, axis=-1)
    c = np.sum(d1 * r, axis=-1)
    b = np.sum(d1 * d2, axis=-1)
    eps = 1e-18
    safe_a, safe_e = np.where(a > eps, a, 1.0), np.where(e > eps, e, 1.0)
    denom = a * e - b * b
    s = np.where(denom > eps, np.clip((b * f - c * e) / np.where(denom > eps, denom, 1.0), 0, 1), 0)
    t = (b * s + f) / safe_e
    # t outside [0, 1]: clamp it and recompute s for the clamped t.
    s = np.where(t < 0.0, np.clip(-c / safe_a, 0.0, 1.0), s)
    s = np.where(t > 1.0, np.clip((b - c) / safe_a, 0.0, 1.0), s)
    t = np.clip(t, 0.0, 1.0)
    # Degenerate segments: a point against a segment, or two points.
    s = np.where(a <= eps, 0.0, s)
    t = np.where(a <= eps, np.clip(f / safe_e, 0.0, 1.0), t)
    s = np.where((e <= eps) & (a > eps), np.clip(-c / safe_a, 0.0, 1.0), s)
    t = np.where(e <= eps, 0.0, t)
    gap = (p1 + s[..., None] * d1) - (p2 + t[..., None] * d2)
    return np.linalg.norm(gap, axis=-1)


@dataclass(frozen=True)
class ArmBodyClearance:
    """The capsules of one arm and of the body it reaches around, in the standing pose.

    Build it with :meth:`from_skeleton`. The body capsules are those of
    :class:`vhuman.scene.BodyModel` at the skeleton's rest pose (standing,
    trunk upright); :meth:`penetration` places the arm capsules from joint
    positions, :meth:`penetration_of_capsules` takes any posed capsules
    (e.g. every frame of a motion, trunk included).

    Attributes
    ----------
    side : Side
    arm_names, body_names : tuple of str
        Joints carrying the arm capsules (3) and the body capsules (K).
    arm_indices, body_indices : ndarray of int, shapes (3,), (K,)
        Their capsule indices in ``body``.
    arm_radii : ndarray, shape (3,)
    body_radii : ndarray, shape (K,)
        Capsule radii [m].
    body_starts, body_ends : ndarray, shape (K, 3)
        Body capsule axes at the rest pose, world frame [m].
    body : BodyModel
        The whole body's capsules.
    """

    side: Side
    arm_names: tuple[str, ...]
    body_names: tuple[str, ...]
    arm_indices: NDArray[np.intp]
    body_indices: NDArray[np.intp]
    arm_radii: NDArray[np.float64]
    body_radii: NDArray[np.float64]
    body_starts: NDArray[np.float64]
    body_ends: NDArray[np.float64]
    body: BodyModel

    @classmethod
    def from_skeleton(cls, skeleton: Skeleton, side: Side | str = Side.RIGHT) -> ArmBodyClearance:
        """Arm and body capsules of a skeleton with the standard humanoid's segments.

        Raises
        ------
        InputError
            For an unknown side, or a skeleton without the capsules named in
            :data:`ARM_SEGMENTS` and :data:`BODY_SEGMENTS`.
        """
        arm = Side.parse(side)
        body = BodyModel.from_skeleton(skeleton, samples_per_segment=1)
        prefix = "r_" if arm is Side.RIGHT else "l_"
        arm_names = tuple(prefix + n for n in ARM_SEGMENTS)
        arm_idx = body.segment_indices(arm_names)
        body_idx = body.segment_indices(BODY_SEGMENTS)
        n = skeleton.n_joints
        rest = np.tile(np.array([1.0, 0.0, 0.0, 0.0]), (n, 1))
        starts, ends = body.capsules(skeleton.rest_positions()[0], rest)
        return cls(
            side=arm,
            arm_names=arm_names,
            body_names=BODY_SEGMENTS,
            arm_indices=arm_idx,
            body_indices=body_idx,
            arm_radii=body.radii[arm_idx],
            body_radii=body.radii[body_idx],
            body_starts=starts[body_idx],
            body_ends=ends[body_idx],
            body=body,
        )

    def pair_names(self) -> list[str]:
        """``"arm–body"`` names of the (3 × K) pairs, row-major."""
        return [f"{a}–{b}" for a in self.arm_names for b in self.body_names]

    def penetration(
        self,
        shoulder: ArrayLike,
        elbow: ArrayLike,
        wrist: ArrayLike,
        hand: ArrayLike,
        *,
        body_starts: ArrayLike | None = None,
        body_ends: ArrayLike | None = None,
    ) -> NDArray[np.float64]:
        """Overlap of each arm capsule with each body capsule.

        Parameters
        ----------
        shoulder, elbow, wrist, hand : array_like, shape (..., 3)
            Arm joint centres and the hand end [m], in the frame of the body capsules.
        body_starts, body_ends : array_like, shape (..., K, 3), optional
            Body capsule axes [m] in a pose of their own (broadcast against the
            arm's leading shape); default the standing pose's, world frame.

        Returns
        -------
        ndarray, shape (..., 3, K)
            ``r_arm + r_body − distance`` [m]: positive where they overlap.
        """
        pts = [np.asarray(x, dtype=np.float64) for x in (shoulder, elbow, wrist, hand)]
        a0 = np.stack(pts[:3], axis=-2)[..., :, None, :]  # (..., 3, 1, 3)
        a1 = np.stack(pts[1:], axis=-2)[..., :, None, :]
        b0 = self.body_starts if body_starts is None else np.asarray(body_starts)[..., None, :, :]
        b1 = self.body_ends if body_ends is None else np.asarray(body_ends)[..., None, :, :]
        d = segment_distance(a0, a1, b0, b1)  # (..., 3, K)
        return self.arm_radii[:, None] + self.body_radii - d

    def penetration_of_capsules(self, starts: ArrayLike, ends: ArrayLike) -> NDArray[np.float64]:
        """Overlap of arm and body capsules posed by :meth:`BodyModel.capsules`.

        Parameters
        ----------
        starts, ends : array_like, shape (..., S, 3)
            World capsule axes of every segment of ``body`` [m].

        Returns
        -------
        ndarray, shape (..., 3, K)
            As :meth:`penetration`.

        Raises
        ------
        InputError
            If the capsule arrays do not have one row per body segment.
        """
        a, b = np.asarray(starts, dtype=np.float64), np.asarray(ends, dtype=np.float64)
        if a.shape != b.shape or a.ndim < 2 or a.shape[-2:] != (self.body.n_segments, 3):
            raise InputError(
                f"capsule ends must both have shape (..., {self.body.n_segments}, 3), "
                f"got {a.shape} and {b.shape}"
            )
        arm = (a[..., self.arm_indices, None, :], b[..., self.arm_indices, None, :])
        other = (a[..., None, self.body_indices, :], b[..., None, self.body_indices, :])
        d = segment_distance(*arm, *other)
        return self.arm_radii[:, None] + self.body_radii - d
