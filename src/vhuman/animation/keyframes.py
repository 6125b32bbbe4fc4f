"""Keyframe tracks: joint rotations and root positions at key times, and their in-betweens."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.animation.easing import Easing, ease
from vhuman.errors import InputError
from vhuman.geometry.euler import euler_to_quat, quat_to_euler
from vhuman.geometry.interpolation import quat_slerp, quat_squad
from vhuman.geometry.quaternion import quat_normalize
from vhuman.skeleton.motion import Motion, frame_count
from vhuman.skeleton.skeleton import Skeleton

__all__ = ["SEED_EULER_SEQUENCE", "Interpolation", "KeyframeTrack"]

SEED_EULER_SEQUENCE = "YXZ"
"""Chen et al.'s order: first about Y by β, then X by α, then Z by γ, each
about the axes already turned (intrinsic), i.e. ``R = R_y(β) R_x(α) R_z(γ)``."""


class Interpolation(enum.Enum):
    """How rotations are interpolated between keys."""

    SLERP = "slerp"
    """Spherical linear interpolation per segment (the seed): C⁰ at keys."""
    SQUAD = "squad"
    """Shoemake's spherical quadrangle spline: C¹ at evenly spaced keys."""


@dataclass(frozen=True, eq=False)
class KeyframeTrack:
    """Key poses of a skeleton at increasing times.

    Parameters
    ----------
    times : array_like, shape (K,)
        Strictly increasing key times [s], K ≥ 2.
    local_rotations : array_like, shape (K, J, 4)
        Local joint rotations (w, x, y, z) at each key.
    root_positions : array_like, shape (K, 3)
        Root positions [m] at each key (interpolated linearly in time after easing).
    easing : Easing or sequence of Easing
        Timing of each of the K − 1 segments (one value for all).
    """

    times: NDArray[np.float64]
    local_rotations: NDArray[np.float64]
    root_positions: NDArray[np.float64]
    easing: tuple[Easing, ...] | Easing = Easing.LINEAR

    def __post_init__(self) -> None:
        times = np.asarray(self.times, dtype=np.float64)
        if times.ndim != 1 or len(times) < 2:
            raise InputError(f"a keyframe track needs K >= 2 key times, got shape {times.shape}")
        if not np.all(np.isfinite(times)) or np.any(np.diff(times) <= 0.0):
            raise InputError("key times must be finite and strictly increasing")
        q = quat_normalize(self.local_rotations)
        if q.ndim != 3 or q.shape[0] != len(times):
            raise InputError(f"local_rotations must have shape ({len(times)}, J, 4), got {q.shape}")
        root = np.asarray(self.root_positions, dtype=np.float64)
        if root.shape != (len(times), 3) or not np.all(np.isfinite(root)):
            raise InputError(f"root_positions must be finite with shape ({len(times)}, 3)")
        easing = (
            (self.easing,) * (len(times) - 1)
            if isinstance(self.easing, Easing)
            else tuple(Easing(e) for e in self.easing)
        )
        if len(easing) != len(times) - 1:
            raise InputError(f"easing needs one value per segment ({len(times) - 1})")
        object.__setattr__(self, "times", times)
        object.__setattr__(self, "local_rotations", q)
        object.__setattr__(self, "root_positions", root)
        object.__setattr__(self, "easing", easing)

    @classmethod
    def from_euler(
        cls,
        times: ArrayLike,
        angles: ArrayLike,
        root_positions: ArrayLike,
        *,
        sequence: str = SEED_EULER_SEQUENCE,
        degrees: bool = False,
        easing: Easing | Sequence[Easing] = Easing.LINEAR,
    ) -> KeyframeTrack:
        """Keys as Euler angles ``(K, J, 3)`` in ``sequence`` (default Chen et al.'s Y-X-Z)."""
        q = euler_to_quat(angles, sequence, degrees=degrees)
        return cls(np.asarray(times), q, np.asarray(root_positions), easing)  # type: ignore[arg-type]

    def euler_angles(self, sequence: str = SEED_EULER_SEQUENCE, *, degrees: bool = False):
        """Key rotations as Euler angles ``(K, J, 3)``; at gimbal lock the third angle is 0."""
        return quat_to_euler(self.local_rotations, sequence, degrees=degrees)

    @property
    def duration(self) -> float:
        """Time from the first to the last key [s]."""
        return float(self.times[-1] - self.times[0])

    def sample(
        self, t: ArrayLike, interpolation: Interpolation = Interpolation.SLERP
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Root positions ``(N, 3)`` and local rotations ``(N, J, 4)`` at times ``t`` ``(N,)``.

        Times are clipped to the track; each segment's easing reshapes its local
        time before interpolating, so keys are reproduced exactly.
        """
        t = np.clip(np.atleast_1d(np.asarray(t, dtype=np.float64)), self.times[0], self.times[-1])
        seg = np.clip(np.searchsorted(self.times, t, side="right") - 1, 0, len(self.times) - 2)
        s = (t - self.times[seg]) / (self.times[seg + 1] - self.times[seg])
        u = np.empty_like(s)
        for e in set(self.easing):
            mask = np.array([self.easing[k] is e for k in seg], dtype=bool)
            u[mask] = ease(e, s[mask])
        root = (1.0 - u)[:, None] * self.root_positions[seg] + u[:, None] * self.root_positions[
            seg + 1
        ]
        if interpolation is Interpolation.SLERP:
            rot = quat_slerp(self.local_rotations[seg], self.local_rotations[seg + 1], u[:, None])
        else:
            # SQUAD in eased key time: the key index plus the eased fraction.
            rot = quat_squad(self.local_rotations, np.arange(len(self.times)), seg + u)
        return root, rot

    def to_motion(
        self,
        skeleton: Skeleton,
        fps: float,
        interpolation: Interpolation = Interpolation.SLERP,
    ) -> Motion:
        """Sample the track every ``1/fps`` s from the first to the last key as a `Motion`."""
        if not (np.isfinite(fps) and fps > 0.0):
            raise InputError(f"fps must be a finite number > 0, got {fps}")
        if self.local_rotations.shape[1] != skeleton.n_joints:
            raise InputError(
                f"the track has {self.local_rotations.shape[1]} joints, the skeleton "
                f"{skeleton.n_joints}"
            )
        n = frame_count(self.duration, fps)
        root, rot = self.sample(self.times[0] + np.arange(n) / fps, interpolation)
        return Motion(skeleton, fps, root, rot)
