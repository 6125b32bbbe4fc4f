"""Differentiable rotations and forward kinematics in PyTorch, batched over leading dimensions.

The torch counterparts of :mod:`vhuman.geometry` (quaternions w-x-y-z, rotation
vectors ``r = θ k`` with the SO(3) exponential and logarithm) and of
:func:`vhuman.skeleton.forward_kinematics`, with the same conventions, so that
a model can be trained through its skeleton: ``G_j = G_parent ⊗ L_j`` and
``p_j = p_parent + G_parent · offset_j``.
"""

from __future__ import annotations

import numpy as np
import torch
from numpy.typing import ArrayLike

__all__ = [
    "TorchFK",
    "quat_conjugate_t",
    "quat_multiply_t",
    "quat_to_rotmat_t",
    "quat_to_rotvec_t",
    "rotvec_to_quat_t",
]

_SMALL = 1e-6


def quat_multiply_t(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Hamilton products ``a ⊗ b`` of quaternions ``(..., 4)`` (w, x, y, z)."""
    aw, ax, ay, az = a.unbind(-1)
    bw, bx, by, bz = b.unbind(-1)
    return torch.stack(
        [
            aw * bw - ax * bx - ay * by - az * bz,
            aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
        ],
        dim=-1,
    )


def quat_conjugate_t(q: torch.Tensor) -> torch.Tensor:
    """Conjugates ``(w, −x, −y, −z)``: the inverse rotations of unit quaternions ``(..., 4)``."""
    return q * q.new_tensor([1.0, -1.0, -1.0, -1.0])


def rotvec_to_quat_t(r: torch.Tensor) -> torch.Tensor:
    """Unit quaternions ``(..., 4)`` of rotation vectors ``(..., 3)`` [rad] (the exponential map).

    Differentiable at 0: ``sin(θ/2)/θ`` uses its Taylor series below θ = 1e-6.
    """
    theta2 = (r * r).sum(-1, keepdim=True)
    small = theta2 < _SMALL**2
    theta = torch.sqrt(torch.where(small, torch.ones_like(theta2), theta2))
    scale = torch.where(small, 0.5 - theta2 / 48.0, torch.sin(0.5 * theta) / theta)
    w = torch.where(small, 1.0 - theta2 / 8.0, torch.cos(0.5 * theta))
    return torch.cat([w, scale * r], dim=-1)


def quat_to_rotvec_t(q: torch.Tensor) -> torch.Tensor:
    """Rotation vectors ``(..., 3)`` with angle in [0, π] of unit quaternions ``(..., 4)`` (log)."""
    q = torch.where(q[..., :1] < 0.0, -q, q)
    w, v = q[..., :1], q[..., 1:]
    s2 = (v * v).sum(-1, keepdim=True)
    small = s2 < _SMALL**2
    s = torch.sqrt(torch.where(small, torch.ones_like(s2), s2))
    # θ/s = 2 atan2(s, w)/s → (2/w)(1 − s²/(3w²)) as s → 0.
    ratio = torch.where(small, 2.0 / w * (1.0 - s2 / (3.0 * w * w)), 2.0 * torch.atan2(s, w) / s)
    return ratio * v


def quat_to_rotmat_t(q: torch.Tensor) -> torch.Tensor:
    """Rotation matrices ``(..., 3, 3)`` of unit quaternions ``(..., 4)``."""
    w, x, y, z = q.unbind(-1)
    return torch.stack(
        [
            1 - 2 * (y * y + z * z),
            2 * (x * y - w * z),
            2 * (x * z + w * y),
            2 * (x * y + w * z),
            1 - 2 * (x * x + z * z),
            2 * (y * z - w * x),
            2 * (x * z - w * y),
            2 * (y * z + w * x),
            1 - 2 * (x * x + y * y),
        ],
        dim=-1,
    ).reshape(*q.shape[:-1], 3, 3)


class TorchFK(torch.nn.Module):
    """Batched, differentiable forward kinematics of one skeleton.

    Parameters
    ----------
    parents : array_like of int, shape (J,)
        Parent indices, −1 for the root (index 0); parents before children.
    offsets : array_like, shape (J, 3)
        Rest offset of each joint from its parent, in the parent's frame [m].

    Notes
    -----
    Equals :func:`vhuman.skeleton.forward_kinematics` (tested); the offsets are
    a buffer, so they move with ``.to(device)`` and are saved with the model.
    """

    def __init__(self, parents: ArrayLike, offsets: ArrayLike) -> None:
        super().__init__()
        self.parents: list[int] = [int(p) for p in parents]
        self.register_buffer("offsets", torch.tensor(np.array(offsets, dtype=np.float32)))
        # Joints grouped by depth in the tree: one batched step per level, not per joint.
        depth = [0] * len(self.parents)
        for j in range(1, len(self.parents)):
            depth[j] = depth[self.parents[j]] + 1
        self._levels: list[list[int]] = [
            [j for j in range(len(depth)) if depth[j] == d] for d in range(max(depth) + 1)
        ]
        place = {j: (d, i) for d, level in enumerate(self._levels) for i, j in enumerate(level)}
        self._parent_slot: list[list[int]] = [
            [place[self.parents[j]][1] for j in level] for level in self._levels[1:]
        ]
        order = [j for level in self._levels for j in level]
        self._unsort: list[int] = [int(i) for i in np.argsort(order)]
        ancestor = np.zeros((len(self.parents), len(self.parents)), dtype=bool)
        for j in range(1, len(self.parents)):
            ancestor[:, j] = ancestor[:, self.parents[j]]
            ancestor[self.parents[j], j] = True
        self._ancestor = torch.from_numpy(ancestor)  # [a, i]: a is a strict ancestor of i

    def forward(
        self, local_rotations: torch.Tensor, root_positions: torch.Tensor | None = None
    ) -> torch.Tensor:
        """World positions ``(..., J, 3)`` [m] from local rotations ``(..., J, 4)``.

        ``root_positions`` ``(..., 3)`` defaults to the origin (root-relative positions).
        """
        return self.frames(local_rotations, root_positions)[0]

    def frames(
        self, local_rotations: torch.Tensor, root_positions: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """World positions ``(..., J, 3)`` [m] and rotation matrices ``(..., J, 3, 3)`` of joints.

        See :meth:`forward`; joint ``j``'s matrix maps its own frame to the world.
        """
        rot = quat_to_rotmat_t(local_rotations)  # (..., J, 3, 3)
        offsets = self.offsets.to(rot.dtype)
        lead = rot.shape[:-3]
        root = (
            rot.new_zeros((*lead, 1, 3))
            if root_positions is None
            else root_positions.expand(*lead, 3).to(rot.dtype)[..., None, :]
        )
        glob = rot[..., :1, :, :]
        pos, mats = [root], [glob]
        for level, slots in zip(self._levels[1:], self._parent_slot, strict=True):
            g_par = glob[..., slots, :, :]
            p = pos[-1][..., slots, :] + (g_par @ offsets[level][..., None])[..., 0]
            glob = g_par @ rot[..., level, :, :]
            pos.append(p)
            mats.append(glob)
        return (
            torch.cat(pos, dim=-2)[..., self._unsort, :],
            torch.cat(mats, dim=-3)[..., self._unsort, :, :],
        )

    def jacobian(
        self, local_rotations: torch.Tensor, position_joints: list[int], angle_joints: list[int]
    ) -> torch.Tensor:
        """Jacobian ``(..., 3P, 3A)`` of joint positions with respect to joint rotation vectors.

        The derivative, at ``r = 0``, of the positions of ``position_joints``
        (P) when each joint ``a`` of ``angle_joints`` (A) turns as
        ``q_a ← exp(r_a) ⊗ q_a`` (``r_a`` in its parent's frame, as the
        seed's eq. 3): a joint ``i`` below ``a`` moves by
        ``(R_parent(a) r_a) × (p_i − p_a)``; others do not move. Rows are
        ``(joint, xyz)`` of the positions, columns ``(joint, xyz)`` of the
        rotation vectors.

        Parameters
        ----------
        local_rotations : Tensor, shape (..., J, 4)
            The pose at which to differentiate.
        position_joints, angle_joints : list of int
        """
        pos, mats = self.frames(local_rotations)
        lever = pos[..., None, position_joints, :] - pos[..., angle_joints, None, :]  # (…, A, P, 3)
        x, y, z = lever.unbind(-1)
        zero = torch.zeros_like(x)
        skew = torch.stack([zero, -z, y, z, zero, -x, -y, x, zero], -1).unflatten(-1, (3, 3))
        parent_mats = mats[..., [self.parents[a] for a in angle_joints], None, :, :]
        below = self._ancestor[angle_joints][:, position_joints].to(pos.device)  # (A, P)
        block = -(skew @ parent_mats) * below[..., None, None].to(pos.dtype)  # (…, A, P, 3, 3)
        lead = block.shape[:-4]
        n_a, n_p = len(angle_joints), len(position_joints)
        return block.movedim(-4, -2).reshape(*lead, n_p * 3, n_a * 3)
