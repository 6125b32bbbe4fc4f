"""`Target`: where the end effector of a chain should go (position, optional orientation)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry.quaternion import quat_canonical
from vhuman.skeleton.kinematics import forward_kinematics

if TYPE_CHECKING:
    from vhuman.ik.chain import Chain

__all__ = ["Target", "random_reachable_targets"]


@dataclass(frozen=True)
class Target:
    """A world position, and optionally a world orientation, for a chain's end effector.

    Batched: ``position`` of shape ``(..., 3)`` holds one target per leading index.

    Parameters
    ----------
    position : array_like, shape (..., 3)
        Target position of the end effector [m], world frame (z up).
    orientation : array_like, shape (..., 4), optional
        Target world rotation of the end joint's frame, (w, x, y, z); broadcast
        against ``position``.
    orientation_weight : float
        Length [m per rad] that converts orientation error into position error
        when the two are traded off (about the size of the hand or foot).

    Raises
    ------
    InputError
        If a position or orientation value is NaN or infinite, a shape is wrong,
        or the weight is not > 0.

    Examples
    --------
    >>> Target([0.4, 0.2, 1.1]).batch_shape
    ()
    """

    position: NDArray[np.float64]
    orientation: NDArray[np.float64] | None = None
    orientation_weight: float = 0.1

    def __post_init__(self) -> None:
        p = np.array(self.position, dtype=np.float64)
        if p.ndim == 0 or p.shape[-1] != 3:
            raise InputError(f"target position must have shape (..., 3) [m], got {p.shape}")
        if not np.all(np.isfinite(p)):
            raise InputError("target position contains NaN or infinite values; give finite metres")
        if self.orientation is not None:
            q = np.array(self.orientation, dtype=np.float64)
            if q.ndim == 0 or q.shape[-1] != 4:
                raise InputError(
                    f"target orientation must have shape (..., 4) (w, x, y, z), got {q.shape}"
                )
            if not np.all(np.isfinite(q)):
                raise InputError("target orientation contains NaN or infinite values")
            q = quat_canonical(q)
            shape = np.broadcast_shapes(p.shape[:-1], q.shape[:-1])
            p = np.broadcast_to(p, (*shape, 3)).copy()
            q = np.broadcast_to(q, (*shape, 4)).copy()
            q.setflags(write=False)
            object.__setattr__(self, "orientation", q)
        w = float(self.orientation_weight)
        if not (np.isfinite(w) and w > 0.0):
            raise InputError(f"orientation_weight must be a finite length > 0 m/rad, got {w}")
        p.setflags(write=False)
        object.__setattr__(self, "position", p)
        object.__setattr__(self, "orientation_weight", w)

    @classmethod
    def of(cls, target: Target | ArrayLike) -> Target:
        """``target`` itself, or a position-only target from an array of positions."""
        return target if isinstance(target, Target) else cls(np.asarray(target, dtype=np.float64))

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Leading shape: one target per index."""
        return self.position.shape[:-1]


def random_reachable_targets(chain: Chain, n: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """End-effector positions of ``n`` random poses of the chain's joints within their limits.

    Every target is reachable by construction: it is where the end effector
    is when the chain's joints take random in-limit rotations
    (`vhuman.skeleton.Skeleton.random_rotations`), every other joint at rest
    and the root at its rest position. Root motions of the chain are not used.

    Parameters
    ----------
    chain : Chain
        The chain whose end effector the targets are for.
    n : int
        Number of targets.
    rng : numpy.random.Generator
        Source of the random poses.

    Returns
    -------
    ndarray, shape (n, 3)
        Target positions [m], world frame.
    """
    sk = chain.skeleton
    q = sk.random_rotations(n, rng, chain.joints)
    return forward_kinematics(sk.parents, sk.offsets, sk.offsets[0], q)[0][:, chain.joints[-1]]
