"""Differentiable rotations and forward kinematics in PyTorch, batched over leading dimensions.

The torch counterparts of :mod:`vhuman.geometry` (quaternions w-x-y-z, rotation
vectors ``r = θ k`` with the SO(3) exponential and logarithm) and of
:func:`vhuman.skeleton.forward_kinematics`, with the same conventions, so that
a model can be trained through its skeleton: ``G_j = G_parent ⊗ L_j`` and
``p_j = p_parent + G_parent · offset_j``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from numpy.typing import ArrayLike

__all__ = [
    "TorchFK",
    "norm3_t",
    "quat_angle_t",
    "quat_conjugate_t",
    "quat_multiply_conjugate_t",
    "quat_multiply_t",
    "quat_to_rotmat_t",
    "quat_to_rotvec_t",
    "rotvec_to_quat_t",
]

_SMALL = 1e-6


def _squared_norm3(v: torch.Tensor) -> torch.Tensor:
    """``x² + y² + z²`` of vectors ``(..., 3)`` as ``(..., 1)``, written out: a reduction over
    an axis of 3 is several times slower on a CPU than these elementwise operations."""
    x, y, z = v[..., 0:1], v[..., 1:2], v[..., 2:3]
    return x * x + y * y + z * z


def norm3_t(v: torch.Tensor) -> torch.Tensor:
    """Euclidean norms ``(...)`` of vectors ``(..., 3)``, with a zero gradient at zero.

    The values and gradients of ``torch.linalg.vector_norm(v, dim=-1)`` (up
    to rounding), written out as elementwise operations (see
    :func:`_squared_norm3`).
    """
    s2 = _squared_norm3(v)[..., 0]
    positive = s2 > 0.0
    return torch.where(positive, torch.where(positive, s2, 1.0).sqrt(), 0.0)


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


def quat_multiply_conjugate_t(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Hamilton products ``a ⊗ b*`` with the conjugates of ``b`` (..., 4): the rotations from
    ``b`` to ``a`` for unit quaternions. The values of ``quat_multiply_t(a,
    quat_conjugate_t(b))`` to the bit, the conjugate's signs written into the products."""
    aw, ax, ay, az = a.unbind(-1)
    bw, bx, by, bz = b.unbind(-1)
    return torch.stack(
        [
            aw * bw + ax * bx + ay * by + az * bz,
            ax * bw - aw * bx - ay * bz + az * by,
            ax * bz - aw * by + ay * bw - az * bx,
            ay * bx - (aw * bz + ax * by) + az * bw,
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
    theta2 = _squared_norm3(r)
    small = theta2 < _SMALL**2
    theta = torch.sqrt(torch.where(small, torch.ones_like(theta2), theta2))
    scale = torch.where(small, 0.5 - theta2 / 48.0, torch.sin(0.5 * theta) / theta)
    w = torch.where(small, 1.0 - theta2 / 8.0, torch.cos(0.5 * theta))
    return torch.cat([w, scale * r], dim=-1)


def quat_to_rotvec_t(q: torch.Tensor) -> torch.Tensor:
    """Rotation vectors ``(..., 3)`` with angle in [0, π] of unit quaternions ``(..., 4)`` (log)."""
    q = torch.where(q[..., :1] < 0.0, -q, q)
    w, v = q[..., :1], q[..., 1:]
    s2 = _squared_norm3(v)
    small = s2 < _SMALL**2
    s = torch.sqrt(torch.where(small, torch.ones_like(s2), s2))
    # θ/s = 2 atan2(s, w)/s → (2/w)(1 − s²/(3w²)) as s → 0, where w ≈ 1. Each branch is fed
    # only the values it is taken for (1 in the others), so that neither puts a NaN into the
    # gradient of the other (at w = 0, a half turn, 2/w would).
    w_small = torch.where(small, w, torch.ones_like(w))
    series = 2.0 / w_small * (1.0 - s2 / (3.0 * w_small * w_small))
    ratio = torch.where(small, series, 2.0 * torch.atan2(s, w) / s)
    return ratio * v


def quat_angle_t(q: torch.Tensor) -> torch.Tensor:
    """Rotation angles ``(...)`` in [0, π] [rad] of unit quaternions ``(..., 4)``.

    ``2 atan2(|v|, |w|)``: the norm of :func:`quat_to_rotvec_t` (up to
    rounding) in fewer operations, with a zero gradient with respect to
    ``v`` at the identity (that of :func:`norm3_t`).
    """
    return 2.0 * torch.atan2(norm3_t(q[..., 1:]), q[..., 0].abs())


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


def _rotmat_batch_last(q: torch.Tensor) -> torch.Tensor:
    """Rotation matrices ``(J, 3, 3, N)`` of unit quaternions ``(J, 4, N)`` (batch last).

    The entries of :func:`quat_to_rotmat_t` from the nine products ``2 a b``
    of the components, each computed once.
    """
    w, x, y, z = q.unbind(1)
    x2, y2, z2 = 2.0 * x, 2.0 * y, 2.0 * z
    xx, yy, zz = x * x2, y * y2, z * z2
    xy, xz, yz = x * y2, x * z2, y * z2
    wx, wy, wz = w * x2, w * y2, w * z2
    return torch.stack(
        [
            1 - (yy + zz),
            xy - wz,
            xz + wy,
            xy + wz,
            1 - (xx + zz),
            yz - wx,
            xz - wy,
            yz + wx,
            1 - (xx + yy),
        ],
        dim=1,
    ).unflatten(1, (3, 3))


def _matmul_batch_last(g: torch.Tensor, r: torch.Tensor) -> torch.Tensor:
    """Products ``g r`` of matrices ``g`` (n, 3, 3, N) and ``r`` (n, 3, m, N or 1), batch last.

    Written out as three elementwise products over the batch rows (no
    (n, 3, 3, m, N) intermediate), the second and third added in place: ``(n, 3, m, N)``.
    The columns of ``g`` and rows of ``r`` are taken by one ``unbind`` each.
    """
    g0, g1, g2 = g.unsqueeze(3).unbind(2)  # columns, each (n, 3, 1, N)
    r0, r1, r2 = r.unsqueeze(1).unbind(2)  # rows, each (n, 1, m, N or 1)
    out = g0 * r0
    out.addcmul_(g1, r1)
    return out.addcmul_(g2, r2)


Parents = slice | torch.Tensor
"""The parents of a tree level's joints among the level above: a slice where they are
consecutive joints, each with one child in this level (a view, no copy), else an index."""


def _rows(x: torch.Tensor, parents: Parents) -> torch.Tensor:
    """The rows ``parents`` of ``x``: a view for a slice, else one ``index_select`` (a plain
    gather, several times faster on a CPU than indexing with a tensor)."""
    return x[parents] if isinstance(parents, slice) else x.index_select(0, parents)


def _chain(
    rots: torch.Tensor,
    offsets: torch.Tensor,
    sizes: list[int],
    parents: tuple[Parents, ...],
    root: torch.Tensor,
) -> tuple[list[torch.Tensor], list[torch.Tensor], list[torch.Tensor]]:
    """The kinematic chain one tree level at a time, batch last.

    Parameters
    ----------
    rots : Tensor, shape (J, 3, 3, N)
        Local rotation matrices of the joints in level order.
    offsets : Tensor, shape (J, 3, 1, 1)
        Rest offsets [m] of the joints in level order.
    sizes : list of int
        Joints per level.
    parents : tuple of slice or Tensor of int64
        For each level from the second, its joints' parents' places in the level above.
    root : Tensor, shape (1, 3, N)
        Root positions [m].

    Returns
    -------
    pos, glob, g_par : lists of Tensor
        Positions ``(n_d, 3, N)`` and world rotations ``(n_d, 3, 3, N)`` of each
        level, and the parents' world rotations ``(n_d, 3, 3, N)`` of each level
        from the second.

    Notes
    -----
    ``G_parent R_j`` and the lever ``G_parent o_j`` as in
    :func:`_matmul_batch_last`, from one set of ``G_parent``'s columns; the
    rows of every level's ``R_j`` and ``o_j`` are taken once for all levels.
    """
    r_rows = [x.split(sizes) for x in rots.unsqueeze(1).unbind(2)]  # [c][d]: (n_d, 1, 3, N)
    o_rows = [x.split(sizes) for x in offsets.unsqueeze(1).unbind(2)]  # [c][d]: (n_d, 1, 1, 1)
    pos, glob, g_par = [root], [rots[: sizes[0]]], []
    for d in range(1, len(sizes)):
        g = _rows(glob[-1], parents[d - 1])  # (n_d, 3, 3, N)
        g0, g1, g2 = g.unsqueeze(3).unbind(2)  # columns, each (n_d, 3, 1, N)
        lever = g0 * o_rows[0][d]  # G_parent o_j
        lever.addcmul_(g1, o_rows[1][d]).addcmul_(g2, o_rows[2][d])
        pos.append(_rows(pos[-1], parents[d - 1]) + lever.squeeze(2))
        g_j = g0 * r_rows[0][d]  # G_parent R_j
        glob.append(g_j.addcmul_(g1, r_rows[1][d]).addcmul_(g2, r_rows[2][d]))
        g_par.append(g)
    return pos, glob, g_par


def _add_rows(out: torch.Tensor, parents: Parents, rows: torch.Tensor) -> torch.Tensor:
    """Each of ``rows`` added, in place, to its parent's row of ``out``; ``out`` returned.

    In the order of the rows, as ``index_put_(..., accumulate=True)`` adds them;
    rows of consecutive parents in one elementwise addition to a view.
    """
    if isinstance(parents, torch.Tensor):
        return out.index_put_((parents,), rows, accumulate=True)
    out[parents].add_(rows)
    return out


class _ChainPositions(torch.autograd.Function):
    """Joint positions of :func:`_chain` with the chain rule applied by hand in reverse.

    With ``p_j = p_parent + G_parent o_j`` and ``G_j = G_parent R_j``, the
    gradients flow from the deepest level up: ``∂p_parent += ∂p_j``,
    ``∂G_parent += ∂p_j o_jᵀ + ∂G_j R_jᵀ`` and ``∂R_j = G_parentᵀ ∂G_j``, each
    level in a few elementwise operations over the batch rows, fewer than
    autograd's backward pass of the forward's operations would take.
    """

    @staticmethod
    def forward(
        ctx: Any,
        rots: torch.Tensor,
        root: torch.Tensor,
        offsets: torch.Tensor,
        parents: tuple[Parents, ...],
        sizes: list[int],
    ) -> torch.Tensor:
        pos, _, g_par = _chain(rots, offsets, sizes, parents, root)
        ctx.save_for_backward(rots, *g_par)
        ctx.offsets, ctx.parents, ctx.sizes = offsets, parents, sizes
        return torch.cat(pos)  # (J, 3, N), level order

    @staticmethod
    def backward(ctx: Any, dpos: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        rots, *g_par = ctx.saved_tensors
        sizes = ctx.sizes
        levels = rots.split(sizes)
        o_t = ctx.offsets.transpose(1, 2).split(sizes)  # o_jᵀ, (n_d, 1, 3, 1)
        r_cols = [x.split(sizes) for x in rots.unsqueeze(1).unbind(3)]  # [m][d]: (n_d, 1, 3, N)
        dpos_levels = dpos.split(sizes)
        dp = dpos_levels[-1]  # the level's position gradients, its children's added
        dg: torch.Tensor | None = None  # the level's world rotations' gradients
        drots: list[torch.Tensor] = [torch.empty(0)] * len(levels)
        for d in range(len(levels) - 1, 0, -1):
            g, parents = g_par[d - 1], ctx.parents[d - 1]
            contribution = dp.unsqueeze(2) * o_t[d]  # ∂p_j o_jᵀ, (n_d, 3, 3, N)
            if dg is None:
                drots[d] = torch.zeros_like(levels[d])
            else:
                dg0, dg1, dg2 = dg.unsqueeze(3).unbind(2)  # + ∂G_j R_jᵀ
                contribution.addcmul_(dg0, r_cols[0][d])
                contribution.addcmul_(dg1, r_cols[1][d]).addcmul_(dg2, r_cols[2][d])
                drots[d] = _matmul_batch_last(g.transpose(1, 2), dg)  # G_parentᵀ ∂G_j
            if isinstance(parents, slice) and parents == slice(None):  # one child each
                dp, dg = dpos_levels[d - 1] + dp, contribution
            else:
                dp = _add_rows(dpos_levels[d - 1].clone(), parents, dp)
                dg = _add_rows(torch.zeros_like(levels[d - 1]), parents, contribution)
        drots[0] = dg if dg is not None else torch.zeros_like(levels[0])
        return torch.cat(drots), dp, None, None, None


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
    Joints are processed one tree level at a time (11 steps on the CMU
    skeleton, not 38), each step one batched operation over the level's
    joints, with the batch as the last, contiguous axis: the 3 × 3 products
    are then elementwise operations over long rows rather than many tiny
    matrix products, which is what makes them fast on a CPU core.
    """

    def __init__(self, parents: ArrayLike, offsets: ArrayLike) -> None:
        super().__init__()
        self.parents: list[int] = [int(p) for p in parents]
        self.register_buffer("offsets", torch.tensor(np.array(offsets, dtype=np.float32)))
        depth = [0] * len(self.parents)
        for j in range(1, len(self.parents)):
            depth[j] = depth[self.parents[j]] + 1
        levels = [[j for j in range(len(depth)) if depth[j] == d] for d in range(max(depth) + 1)]
        place = {j: i for level in levels for i, j in enumerate(level)}
        order = [j for level in levels for j in level]
        self.level_sizes = [len(level) for level in levels]
        # Index buffers (not saved: derived from the parents) so that they follow .to(device).
        self.register_buffer("_order", torch.tensor(order), persistent=False)
        # Each level's parents in the level above: a slice where they are consecutive joints
        # of one child each in this level, else an index buffer ``_slot{d}``.
        self._slices: list[slice | None] = []
        for d, level in enumerate(levels[1:], start=1):
            slots = [place[self.parents[j]] for j in level]
            if slots == list(range(slots[0], slots[0] + len(slots))):
                whole = slots[0] == 0 and len(slots) == len(levels[d - 1])
                self._slices.append(slice(None) if whole else slice(slots[0], slots[-1] + 1))
            else:
                self._slices.append(None)
                self.register_buffer(f"_slot{d}", torch.tensor(slots), persistent=False)
        self.n_levels = len(levels)
        self.register_buffer(
            "_parent", torch.tensor([max(p, 0) for p in self.parents]), persistent=False
        )
        self.register_buffer("_unsort", torch.from_numpy(np.argsort(order)), persistent=False)
        ancestor = np.zeros((len(self.parents), len(self.parents)), dtype=bool)
        for j in range(1, len(self.parents)):
            ancestor[:, j] = ancestor[:, self.parents[j]]
            ancestor[self.parents[j], j] = True
        # [a, i]: a is a strict ancestor of i
        self.register_buffer("_ancestor", torch.from_numpy(ancestor), persistent=False)

    def forward(
        self, local_rotations: torch.Tensor, root_positions: torch.Tensor | None = None
    ) -> torch.Tensor:
        """World positions ``(..., J, 3)`` [m] from local rotations ``(..., J, 4)``.

        ``root_positions`` ``(..., 3)`` defaults to the origin (root-relative positions).
        """
        return self._solve(local_rotations, root_positions, matrices=False)[0]

    def frames(
        self, local_rotations: torch.Tensor, root_positions: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """World positions ``(..., J, 3)`` [m] and rotation matrices ``(..., J, 3, 3)`` of joints.

        See :meth:`forward`; joint ``j``'s matrix maps its own frame to the world.
        Computed without gradients (for features of a given pose, such as
        :meth:`jacobian`).
        """
        pos, mats = self._solve(local_rotations, root_positions, matrices=True)
        assert mats is not None
        return pos, mats

    def _solve(
        self, local_rotations: torch.Tensor, root_positions: torch.Tensor | None, matrices: bool
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        lead = local_rotations.shape[:-2]
        n_joints = local_rotations.shape[-2]
        q = local_rotations.reshape(-1, n_joints, 4).permute(1, 2, 0)  # (J, 4, N)
        # One gather into level order, then contiguous per-level pieces: their gradients are
        # concatenated, not scattered into a zero tensor of every joint once per level.
        rots = _rotmat_batch_last(q.index_select(0, self._order))  # (J, 3, 3, N), level order
        offsets = self.offsets.to(rots.dtype)[self._order][:, :, None, None]  # (J, 3, 1, 1)
        parents = tuple(
            getattr(self, f"_slot{d}") if sl is None else sl
            for d, sl in enumerate(self._slices, start=1)
        )
        n = q.shape[-1]
        root = (
            q.new_zeros((1, 3, n))
            if root_positions is None
            else root_positions.expand(*lead, 3).reshape(n, 3).T.to(q.dtype)[None]
        )
        if matrices or not (torch.is_grad_enabled() and (rots.requires_grad or root.requires_grad)):
            with torch.no_grad():
                pos, mats, _ = _chain(rots, offsets, self.level_sizes, parents, root)
            positions = torch.cat(pos)
        else:
            positions = _ChainPositions.apply(rots, root, offsets, parents, self.level_sizes)
        # Back to the batch first, contiguous: reductions over the last axis of a batch-last
        # layout (e.g. a loss's distances) would run with the batch's stride.
        out = positions.index_select(0, self._unsort).permute(2, 0, 1).contiguous()
        if not matrices:
            return out.view(*lead, n_joints, 3), None
        m = torch.cat(mats).index_select(0, self._unsort).permute(3, 0, 1, 2).contiguous()
        return out.view(*lead, n_joints, 3), m.view(*lead, n_joints, 3, 3)

    def jacobian(
        self,
        local_rotations: torch.Tensor,
        position_joints: list[int] | torch.Tensor,
        angle_joints: list[int] | torch.Tensor,
    ) -> torch.Tensor:
        """Jacobian ``(..., 3P, 3A)`` of joint positions with respect to joint rotation vectors.

        The derivative, at ``r = 0``, of the positions of ``position_joints``
        (P) when each joint ``a`` of ``angle_joints`` (A) turns as
        ``q_a ← exp(r_a) ⊗ q_a`` (``r_a`` in its parent's frame, as
        eq. 3 of Ueda et al. 2022): a joint ``i`` below ``a`` moves by
        ``(R_parent(a) r_a) × (p_i − p_a)``; others do not move. Rows are
        ``(joint, xyz)`` of the positions, columns ``(joint, xyz)`` of the
        rotation vectors.

        Parameters
        ----------
        local_rotations : Tensor, shape (..., J, 4)
            The pose at which to differentiate.
        position_joints, angle_joints : list of int or Tensor of int64
            Joint indices (tensors on the module's device need no host copy).

        Returns
        -------
        Tensor, shape (..., 3P, 3A)
            The transpose of a contiguous ``(..., 3A, 3P)`` array (``Jᵀ``, as
            the normal equations use it).

        Notes
        -----
        Column ``c`` of joint ``a``'s block is ``e_c' × (p_i − p_a)`` with
        ``e_c'`` column ``c`` of ``R_parent(a)``: one batched cross product
        over all (A, P, 3) blocks, not A · P small matrix products, each of
        its three coordinates a product over rows of the P levers.
        """
        pos, mats = self.frames(local_rotations)
        below = self._ancestor[angle_joints][:, position_joints].to(pos.dtype)  # (A, P)
        pt = pos.transpose(-1, -2)  # (…, 3, J)
        # levers p_i − p_a, zero where i is not below a: (…, A, 3 xyz, P)
        at_a = pt[..., angle_joints].transpose(-1, -2)[..., None]  # (…, A, 3, 1)
        lever = pt[..., None, :, position_joints] - at_a
        lx, ly, lz = (lever * below[:, None]).unsqueeze(-3).unbind(-2)  # each (…, A, 1, P)
        axes = mats[..., self._parent[angle_joints], :, :]  # (…, A, 3 xyz, 3 c)
        ex, ey, ez = axes.unsqueeze(-1).unbind(-3)  # each (…, A, 3 c, 1)
        # e × l = (e_y l_z − e_z l_y, e_z l_x − e_x l_z, e_x l_y − e_y l_x), laid out as Jᵀ
        jt = torch.stack([ey * lz - ez * ly, ez * lx - ex * lz, ex * ly - ey * lx], dim=-1)
        n_a, n_p = len(angle_joints), len(position_joints)
        return jt.reshape(*jt.shape[:-4], n_a * 3, n_p * 3).transpose(-1, -2)
