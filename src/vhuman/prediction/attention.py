"""Scaled dot-product attention with hand-written gradients, laid out for a CPU core.

Two kernels of the Lie-algebra Transformer (:mod:`vhuman.prediction.models`),
each a :class:`torch.autograd.Function` whose backward pass applies the
analytic gradients of ``y = softmax(q kᵀ / √d + bias) v`` (Vaswani et al.
2017) to the tensors saved by the forward pass:

- :func:`spatial_attention`: attention over the joints of each frame, ``n``
  queries and ``m`` keys per (window, frame, head). Every batched product is
  arranged so that its output has the ``d`` = 8 channels as rows and the
  joints as columns, or is the ``n × m`` weight matrix: batched products of
  ``n × m`` by ``m × d`` matrices run 2–2.5 times slower on a CPU core than
  these (MKL, one thread), and autograd's own backward pass of the
  products would use that form three times out of four.
- :func:`temporal_attention`: attention over the ``L`` = 7 time tokens of
  each (window, joint) sequence, the sequences laid out last and contiguous,
  ``(heads, d, L, S)``. For 7 × 7 logits per sequence, elementwise products
  over rows of ``S`` sequences are faster than one tiny matrix product per
  sequence; written as in-place multiply-adds (``addcmul_``), one channel
  or one token at a time, they make one pass over memory where a product and
  a sum make two, and no intermediate of every channel is kept for the
  backward pass.

Both equal the definition (tested against
:func:`torch.nn.functional.scaled_dot_product_attention`, values and
gradients, in float64; the temporal one with its relative position term as
the additive mask).

References
----------
Vaswani, A., Shazeer, N., Parmar, N., Uszkoreit, J., Jones, L., Gomez, A. N.,
Kaiser, Ł., Polosukhin, I. (2017). Attention is all you need. NeurIPS.
"""

from __future__ import annotations

from typing import Any

import torch

__all__ = ["spatial_attention", "temporal_attention"]


def _softmax_grad(w: torch.Tensor, dw: torch.Tensor, dim: int) -> torch.Tensor:
    """Gradient ``w (dw − Σ w dw)`` of the logits of ``w = softmax(logits, dim)``, given ``dw``.

    Torch's own kernel of the softmax's backward pass: several times faster
    than those operations written out when ``dim`` is a short last axis (the
    sum over it is not vectorised).
    """
    return torch._softmax_backward_data(dw, w, dim, w.dtype)


class _Spatial(torch.autograd.Function):
    """``softmax(q kᵀ s) v`` over groups of rows: see :func:`spatial_attention`."""

    @staticmethod
    def forward(ctx: Any, q: torch.Tensor, kv: torch.Tensor, heads: int) -> torch.Tensor:
        b, n, width = q.shape
        m, d = kv.shape[1], width // heads
        qs = torch.empty((b, heads, n, d), dtype=q.dtype, device=q.device)
        torch.mul(q.view(b, n, heads, d).transpose(1, 2), d**-0.5, out=qs)
        # keys and values, each (G, d, m), in one copy
        kt, vt = kv.view(b, m, 2, heads, d).permute(2, 0, 3, 4, 1).reshape(2, b * heads, d, m)
        qs = qs.view(b * heads, n, d)
        w = torch.bmm(qs, kt).softmax(-1)  # (G, n, m)
        yt = torch.bmm(vt, w.transpose(1, 2))  # (G, d, n)
        ctx.save_for_backward(qs, kt, vt, w)
        ctx.heads = heads
        return yt.view(b, heads, d, n).permute(0, 3, 1, 2).reshape(b, n, width)

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor | None, ...]:
        qs, kt, vt, w = ctx.saved_tensors
        heads = ctx.heads
        b, n, width = dy.shape
        d, m = kt.shape[1], kt.shape[2]
        dyt = dy.reshape(b, n, heads, d).permute(0, 2, 3, 1).reshape(b * heads, d, n)  # (G, d, n)
        dkvt = torch.empty((2, b * heads, d, m), dtype=dy.dtype, device=dy.device)
        torch.bmm(dyt, w, out=dkvt[1])  # the values' gradient, (G, d, m)
        dl = _softmax_grad(w, torch.bmm(dyt.transpose(1, 2), vt), -1)  # (G, n, m)
        dqt = torch.bmm(kt, dl.transpose(1, 2)).mul_(d**-0.5)  # (G, d, n)
        torch.bmm(qs.transpose(1, 2), dl, out=dkvt[0])  # the keys'; qs carries the scale
        dq = dqt.view(b, heads, d, n).permute(0, 3, 1, 2).reshape(b, n, width)
        dkv = dkvt.view(2, b, heads, d, m).permute(1, 4, 0, 2, 3).reshape(b, m, 2 * width)
        return dq, dkv, None


def spatial_attention(q: torch.Tensor, kv: torch.Tensor, heads: int) -> torch.Tensor:
    """Multi-head scaled dot-product attention of ``n`` queries over ``m`` keys per group.

    ``y = softmax(q_h k_hᵀ / √d) v_h`` for each group (leading axis) and head
    ``h`` (channels ``h d … (h + 1) d − 1`` of the width, ``d = width / heads``).

    Parameters
    ----------
    q : Tensor, shape (G, n, width)
        Queries (any strides).
    kv : Tensor, shape (G, m, 2 width)
        Keys and values side by side (as one projection gives them; their
        gradient comes back as one tensor, not two to be concatenated).
    heads : int
        Heads; must divide ``width``.

    Returns
    -------
    Tensor, shape (G, n, width)
        The heads' outputs side by side, contiguous.
    """
    return _Spatial.apply(q, kv, heads)


class _Temporal(torch.autograd.Function):
    """``softmax(q·(k s + R)) v`` along axis 2, sequences last: see :func:`temporal_attention`."""

    @staticmethod
    def forward(
        ctx: Any, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, rel: torch.Tensor
    ) -> torch.Tensor:
        h, d, length, s = q.shape
        scale = d**-0.5
        # q_i·R_ij of each head and query token i: one batched product of (L, d) by (d, S)
        # matrices, (heads · L, L, S), which the logits' layout is
        q_rows = q.transpose(1, 2).reshape(h * length, d, s)
        rel_rows = rel.permute(0, 2, 3, 1).reshape(h * length, length, d)
        logits = torch.bmm(rel_rows, q_rows).view(h, length, length, s)
        # + q_i·k_j s, one channel at a time (slices taken by one unbind of a view each)
        q_c = q.unsqueeze(3).unbind(1)  # q[:, c, :, None], (heads, L, 1, S)
        k_c = k.unsqueeze(2).unbind(1)  # k[:, c, None], (heads, 1, L, S)
        for qc, kc in zip(q_c, k_c, strict=True):
            logits.addcmul_(qc, kc, value=scale)
        w = logits.softmax(2)
        y = torch.zeros_like(q, memory_format=torch.contiguous_format)  # (heads, d, L, S)
        w_j = w.unsqueeze(1).unbind(3)  # w[:, None, :, j], (heads, 1, L, S)
        v_j = v.unsqueeze(2).unbind(3)  # v[:, :, None, j], (heads, d, 1, S)
        for wj, vj in zip(w_j, v_j, strict=True):
            y.addcmul_(wj, vj)
        ctx.save_for_backward(q, k, v, rel, w, q_rows)
        return y

    @staticmethod
    def backward(ctx: Any, dy: torch.Tensor) -> tuple[torch.Tensor, ...]:
        q, k, v, rel, w, q_rows = ctx.saved_tensors
        h, d, length, s = q.shape
        scale = d**-0.5
        dw = torch.zeros_like(w)
        for dyc, vc in zip(dy.unsqueeze(3).unbind(1), v.unsqueeze(2).unbind(1), strict=True):
            dw.addcmul_(dyc, vc)  # dy[:, c, :, None] v[:, c, None]
        dv = torch.zeros_like(v, memory_format=torch.contiguous_format)
        for wi, dyi in zip(w.unsqueeze(1).unbind(2), dy.unsqueeze(3).unbind(2), strict=True):
            dv.addcmul_(wi, dyi)  # w[:, None, i] dy[:, :, i, None]
        dl = _softmax_grad(w, dw, 2)  # (heads, L, L, S), the logits' gradient
        dl_rows = dl.view(h * length, length, s)  # each (head, query token): (L, S)
        # the relative term's gradients as batched products: Σ_t dl_it R_it, (heads, d, L, S),
        # and Σ_s dl_ij q_i, (heads, d, L, L)
        rel_cols = rel.transpose(1, 2).reshape(h * length, d, length)
        dq = torch.bmm(rel_cols, dl_rows).view(h, length, d, s).transpose(1, 2)
        drel = torch.bmm(q_rows, dl_rows.transpose(1, 2)).view(h, length, d, length)
        dk = torch.zeros_like(k, memory_format=torch.contiguous_format)
        dl_t = dl.unsqueeze(1).unbind(3)  # dl[:, None, :, t], (heads, 1, L, S)
        dl_i = dl.unsqueeze(1).unbind(2)  # dl[:, None, t], (heads, 1, L, S)
        k_t = k.unsqueeze(2).unbind(3)  # k[:, :, None, t], (heads, d, 1, S)
        q_t = q.unsqueeze(3).unbind(2)  # q[:, :, t, None], (heads, d, 1, S)
        for dlt, dli, kt, qt in zip(dl_t, dl_i, k_t, q_t, strict=True):
            dq.addcmul_(dlt, kt, value=scale)
            dk.addcmul_(dli, qt, value=scale)
        return dq, dk, dv, drel.transpose(1, 2)


def temporal_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, rel: torch.Tensor
) -> torch.Tensor:
    """Multi-head attention along the token axis with relative keys, sequences last.

    ``y[h, :, i, s] = Σ_j w[h, i, j, s] v[h, :, j, s]`` with
    ``w = softmax_j(q[h, :, i, s]·(k[h, :, j, s] / √d + rel[h, :, i, j]))``: scaled
    dot-product attention plus the relative position term ``q_i·R_ij`` of
    Shaw et al. (2018).

    Parameters
    ----------
    q, k, v : Tensor, shape (heads, d, L, S)
        Queries, keys and values of ``S`` sequences of ``L`` tokens.
    rel : Tensor, shape (heads, d, L, L)
        Relative keys ``R_ij`` of query token ``i`` and key token ``j``.

    Returns
    -------
    Tensor, shape (heads, d, L, S)
        Contiguous.

    References
    ----------
    Shaw, P., Uszkoreit, J., Vaswani, A. (2018). Self-attention with relative
    position representations. NAACL.
    """
    return _Temporal.apply(q, k, v, rel)
