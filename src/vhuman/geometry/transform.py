"""Rigid transforms (rotation + translation), batched over any leading shape."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry.quaternion import (
    as_quat_array,
    quat_apply,
    quat_conjugate,
    quat_multiply,
    quat_normalize,
    quat_to_rotmat,
    rotmat_to_quat,
)

__all__ = ["RigidTransform"]


@dataclass(frozen=True)
class RigidTransform:
    """A batch of rigid transforms ``T_a_b``: points in frame ``b`` → frame ``a``.

    ``T_a_b(p) = R_a_b p + t_a_b``. Compose with ``@``: ``T_a_b @ T_b_c = T_a_c``.

    Attributes
    ----------
    rotation : ndarray, shape (..., 4)
        Unit quaternions (w, x, y, z).
    translation : ndarray, shape (..., 3)
        Translations in metres.
    """

    rotation: NDArray[np.float64]
    translation: NDArray[np.float64]

    def __post_init__(self) -> None:
        q = quat_normalize(as_quat_array(self.rotation, "rotation"))
        t = np.asarray(self.translation, dtype=np.float64)
        if t.ndim == 0 or t.shape[-1] != 3:
            raise InputError(f"translation must have shape (..., 3), got {t.shape}")
        if not np.all(np.isfinite(t)):
            raise InputError("translation contains NaN or infinite values")
        shape = np.broadcast_shapes(q.shape[:-1], t.shape[:-1])
        object.__setattr__(self, "rotation", np.broadcast_to(q, (*shape, 4)).copy())
        object.__setattr__(self, "translation", np.broadcast_to(t, (*shape, 3)).copy())

    @property
    def shape(self) -> tuple[int, ...]:
        """Leading batch shape."""
        return self.rotation.shape[:-1]

    @classmethod
    def identity(cls, shape: tuple[int, ...] = ()) -> RigidTransform:
        """Identity transforms of batch shape ``shape``."""
        q = np.zeros((*shape, 4))
        q[..., 0] = 1.0
        return cls(q, np.zeros((*shape, 3)))

    @classmethod
    def from_matrix(cls, m: ArrayLike) -> RigidTransform:
        """From homogeneous matrices ``(..., 4, 4)``."""
        m = np.asarray(m, dtype=np.float64)
        if m.ndim < 2 or m.shape[-2:] != (4, 4):
            raise InputError(f"homogeneous matrices must have shape (..., 4, 4), got {m.shape}")
        return cls(rotmat_to_quat(m[..., :3, :3]), m[..., :3, 3])

    def as_matrix(self) -> NDArray[np.float64]:
        """Homogeneous matrices ``(..., 4, 4)``."""
        m = np.zeros((*self.shape, 4, 4))
        m[..., :3, :3] = quat_to_rotmat(self.rotation)
        m[..., :3, 3] = self.translation
        m[..., 3, 3] = 1.0
        return m

    def inverse(self) -> RigidTransform:
        """``T_b_a`` from ``T_a_b``."""
        q_inv = quat_conjugate(self.rotation)
        return RigidTransform(q_inv, -quat_apply(q_inv, self.translation))

    def apply(self, points: ArrayLike) -> NDArray[np.float64]:
        """Transform points ``(..., 3)`` given in frame ``b`` into frame ``a``."""
        return quat_apply(self.rotation, points) + self.translation

    def __matmul__(self, other: RigidTransform) -> RigidTransform:
        return RigidTransform(
            quat_multiply(self.rotation, other.rotation),
            quat_apply(self.rotation, other.translation) + self.translation,
        )
