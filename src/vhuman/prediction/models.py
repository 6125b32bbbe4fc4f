"""Motion predictors: a Lie-algebra spatio-temporal Transformer, siMLPe, LTD, two baselines.

Every predictor maps the observed body poses of a window to the future ones:
``forward(q_obs (B, N, J, 4), p_obs (B, N, J, 3)) → Prediction``, with local
rotations (root the identity) and root-relative positions [m] as produced by
:mod:`vhuman.prediction.data`.

:class:`LieTransformer` follows Ueda et al. (2022): position tokens (encoder)
and Lie-algebra rotation-vector tokens (decoder, cross-attending to the
positions per frame) relative to the last observed pose, temporal attention
with a frequency-aware relative position encoding (Wu et al. 2021), and a
DCT-coefficient head plus a linear skip path; poses come back through the
differentiable forward kinematics, so bone lengths are exact. siMLPe (Guo et
al. 2023) and LTD (Mao et al. 2019) are re-implemented on positions only.
``docs/prediction.md`` describes each architecture, the choices made where
the papers leave them open, and the training runs behind the defaults.

References
----------
Ueda, I., Shishido, H., Kitahara, I. (2022). Spatio-temporal aggregation of
skeletal motion features for human motion prediction. Array 15, 100212.
Guo, W., Du, Y., Shen, X., Lepetit, V., Alameda-Pineda, X., Moreno-Noguer, F.
(2023). Back to MLP: a simple baseline for human motion prediction. WACV.
Mao, W., Liu, M., Salzmann, M., Li, H. (2019). Learning trajectory
dependencies for human motion prediction (LTD). ICCV.
Wu, K., Peng, H., Chen, M., Fu, J., Chao, H. (2021). Rethinking and improving
relative position encoding for vision transformer (iRPE). ICCV.
"""

from __future__ import annotations

import enum
import math
import numbers
from typing import Any, ClassVar, NamedTuple

import numpy as np
import torch
from numpy.typing import ArrayLike
from torch import nn

from vhuman.errors import InputError
from vhuman.prediction.attention import spatial_attention, temporal_attention
from vhuman.prediction.kinematics import (
    TorchFK,
    norm3_t,
    quat_angle_t,
    quat_multiply_conjugate_t,
    quat_multiply_t,
    quat_to_rotvec_t,
    rotvec_to_quat_t,
)

__all__ = [
    "KIND_ALIASES",
    "LTD",
    "MODEL_KINDS",
    "ConstantVelocity",
    "LieTransformer",
    "ModelKind",
    "MotionPredictor",
    "Prediction",
    "SiMLPe",
    "ZeroVelocity",
    "canonical_kind",
    "dct_matrix",
]


class ModelKind(enum.StrEnum):
    """The kinds of predictor, each named after its method (saved in model files)."""

    LIE_TRANSFORMER = "lie-transformer"
    """:class:`LieTransformer`."""
    SIMLPE = "simlpe"
    """:class:`SiMLPe` (Guo et al. 2023)."""
    LTD = "ltd"
    """:class:`LTD` (Mao et al. 2019)."""
    ZERO_VELOCITY = "zero_velocity"
    """:class:`ZeroVelocity`: the last observed pose, held."""
    CONSTANT_VELOCITY = "constant_velocity"
    """:class:`ConstantVelocity`: each joint's last rotation step, continued."""


class Prediction(NamedTuple):
    """Future poses predicted for a batch of windows.

    Attributes
    ----------
    rotations : Tensor, shape (B, M, J, 4), or None
        Local rotations (root the identity); None for position-only models.
    positions : Tensor, shape (B, M, J, 3)
        Root-relative positions [m].
    """

    rotations: torch.Tensor | None
    positions: torch.Tensor


def dct_matrix(n: int) -> torch.Tensor:
    """The orthonormal DCT-II matrix ``(n, n)``: ``C @ x`` transforms along the first axis."""
    k = torch.arange(n, dtype=torch.float64)[:, None]
    i = torch.arange(n, dtype=torch.float64)[None, :]
    c = torch.cos(math.pi * (i + 0.5) * k / n) * math.sqrt(2.0 / n)
    c[0] /= math.sqrt(2.0)
    return c.float()


class MotionPredictor(nn.Module):
    """Base of all predictors: skeleton, joint sets and window lengths.

    Parameters
    ----------
    parents : array_like of int, shape (J,)
    offsets : array_like, shape (J, 3)
        Rest offsets [m].
    position_joints, angle_joints : sequence of int
        See :class:`vhuman.prediction.data.JointSets`.
    n_observed, n_future : int
        Poses in and out.
    """

    kind: ClassVar[str] = ""
    trainable: ClassVar[bool] = False

    def __init__(
        self,
        parents: ArrayLike,
        offsets: ArrayLike,
        position_joints: ArrayLike,
        angle_joints: ArrayLike,
        n_observed: int,
        n_future: int,
    ) -> None:
        super().__init__()
        if int(n_observed) < 2 or int(n_future) < 1:
            raise InputError(
                f"n_observed must be ≥ 2 and n_future ≥ 1, got {n_observed} and {n_future}"
            )
        self.fk = TorchFK(parents, offsets)
        self.n_joints = len(self.fk.parents)
        self.position_joints = [int(j) for j in position_joints]
        self.angle_joints = [int(j) for j in angle_joints]
        # The joint sets as index tensors on the model's device (derived, not saved): indexing
        # with them needs no host-to-device copy in a training step.
        self.register_buffer("position_index", torch.tensor(self.position_joints), persistent=False)
        self.register_buffer("angle_index", torch.tensor(self.angle_joints), persistent=False)
        self.n_observed = int(n_observed)
        self.n_future = int(n_future)

    def options(self) -> dict[str, Any]:
        """Hyper-parameters beyond the skeleton (saved with the model)."""
        return {}

    def forward(self, q_obs: torch.Tensor, p_obs: torch.Tensor) -> Prediction:
        """Predict ``n_future`` poses from ``q_obs`` (B, N, J, 4) and ``p_obs`` (B, N, J, 3)."""
        raise NotImplementedError

    def loss(self, pred: Prediction, q_true: torch.Tensor, p_true: torch.Tensor) -> torch.Tensor:
        """Training loss: mean per-joint position error [m] over position joints and frames."""
        # distances of all joints, then those of the position joints: a gather of a third
        # of the numbers that a gather of the positions would move
        return norm3_t(pred.positions - p_true).index_select(-1, self.position_index).mean()

    def _hold(self, q_last: torch.Tensor) -> torch.Tensor:
        return q_last[:, None].expand(-1, self.n_future, -1, -1)


class ZeroVelocity(MotionPredictor):
    """Repeat the last observed pose."""

    kind = ModelKind.ZERO_VELOCITY

    def forward(self, q_obs: torch.Tensor, p_obs: torch.Tensor) -> Prediction:
        """See :meth:`MotionPredictor.forward`."""
        q = self._hold(q_obs[:, -1])
        return Prediction(q, self._hold(p_obs[:, -1]))


class ConstantVelocity(MotionPredictor):
    """Continue each joint's last rotation step: ``q_{N+k} = (q_N q_{N−1}⁻¹)^k q_N``."""

    kind = ModelKind.CONSTANT_VELOCITY

    def forward(self, q_obs: torch.Tensor, p_obs: torch.Tensor) -> Prediction:
        """See :meth:`MotionPredictor.forward`."""
        q_last = q_obs[:, -1]
        step = quat_to_rotvec_t(quat_multiply_conjugate_t(q_last, q_obs[:, -2]))
        k = torch.arange(1, self.n_future + 1, dtype=q_obs.dtype, device=q_obs.device)
        q = quat_multiply_t(rotvec_to_quat_t(k[:, None, None] * step[:, None]), q_last[:, None])
        return Prediction(q, self.fk(q))


def _check_sizes(minimum: int, **sizes: Any) -> None:
    """Refuse a size (features, heads, layers, blocks) that is not a whole number ≥ ``minimum``.

    Checked before any layer is built, so that a bad model configuration is
    refused in one line, without torch's warnings about zero-element tensors.
    """
    for name, value in sizes.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
            raise InputError(f"{name} must be a whole number ≥ {minimum}, got {value!r}")


def _check_dropout(rate: float) -> None:
    """Refuse a dropout rate outside ``[0, 1)``."""
    if not 0.0 <= float(rate) < 1.0:
        raise InputError(f"dropout must be in [0, 1), got {rate}")


def _velocity(x: torch.Tensor) -> torch.Tensor:
    """Frame-to-frame differences along axis 1, the first frame's set to zero."""
    return torch.cat([torch.zeros_like(x[:, :1]), torch.diff(x, dim=1)], dim=1)


class _TemporalAttention(nn.Module):
    """Self-attention over time with the frequency-aware relative position encoding.

    Every joint of every window is one sequence of ``L`` tokens. The
    sequences are laid out last and contiguous, ``(channels, L, sequences)``,
    so that the ``L × L`` logits and the weighted sum of the values are
    elementwise products over long rows: for ``L`` = 7 tokens that is faster
    on a CPU than one tiny matrix product per sequence and head, and the
    same maths (:func:`~vhuman.prediction.attention.temporal_attention`,
    tested against the definition). With the tokens time first, ``(L, B, J,
    dim)``, that layout is the transpose of the tokens' rows: the projections
    read and write them as they are, without a copy.
    """

    def __init__(self, dim: int, heads: int, length: int, n_freq: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.rpe = nn.Parameter(torch.zeros(heads, self.head_dim, 2 * n_freq))
        nn.init.normal_(self.rpe, std=0.02)
        delta = torch.arange(length)[:, None] - torch.arange(length)[None, :]
        w = math.pi * torch.arange(n_freq)[None, None, :] * delta[..., None] / length
        self.register_buffer("phi", torch.cat([torch.cos(w), torch.sin(w)], dim=-1).float())

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """Attend over axis 0 of ``x`` (L, B, J, dim), each joint of each window alone."""
        n, b, j, d = x.shape
        h, c = self.heads, self.head_dim
        cols = x.reshape(n * b * j, d).t()  # (dim, L · B · J), a view
        qkv = torch.addmm(self.qkv.bias[:, None], self.qkv.weight, cols)
        q, k, v = qkv.view(3, h, c, n, b * j).unbind(0)  # each (heads, d, L, S)
        # q_i·W φ(i − j) = q_i·R_ij with R = W φ, the relative keys (Shaw et al. 2018)
        rel = torch.einsum("hdk,ijk->hdij", self.rpe, self.phi)
        y = temporal_attention(q, k, v, rel)  # (heads, d, L, S)
        out = torch.addmm(self.out.bias, y.view(d, n * b * j).t(), self.out.weight.t())
        return out.view(n, b, j, d)


class _Attention(nn.Module):
    """Multi-head attention of ``x`` (queries) over ``ctx`` (keys and values).

    The product, softmax and weighted sum are
    :func:`~vhuman.prediction.attention.spatial_attention` (the maths of
    :func:`torch.nn.functional.scaled_dot_product_attention`, its batched
    products laid out for a CPU core).
    """

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, dim // heads
        self.q = nn.Linear(dim, dim)
        self.kv = nn.Linear(dim, 2 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, ctx: torch.Tensor) -> torch.Tensor:
        return self.out(spatial_attention(self.q(x), self.kv(ctx), self.heads))


class _Layer(nn.Module):
    """Temporal attention, spatial attention, [cross-attention], feed-forward (pre-LN)."""

    def __init__(
        self,
        dim: int,
        heads: int,
        ff: int,
        length: int,
        n_freq: int,
        cross: bool,
        dropout: float = 0.0,
    ) -> None:
        super().__init__()
        self.drop = nn.Dropout(dropout) if dropout else nn.Identity()
        self.norm_t, self.norm_s, self.norm_f = (
            nn.LayerNorm(dim),
            nn.LayerNorm(dim),
            nn.LayerNorm(dim),
        )
        self.temporal = _TemporalAttention(dim, heads, length, n_freq)
        self.spatial = _Attention(dim, heads)
        self.cross = _Attention(dim, heads) if cross else None
        self.norm_c = nn.LayerNorm(dim) if cross else None
        self.ff = nn.Sequential(nn.Linear(dim, ff), nn.GELU(), nn.Linear(ff, dim))

    def forward(self, x: torch.Tensor, memory: torch.Tensor | None = None) -> torch.Tensor:
        t, b, j, d = x.shape  # (L, B, joints, dim), time first
        x = x + self.drop(self.temporal(self.norm_t(x)))
        h = self.norm_s(x).reshape(t * b, j, d)
        x = x + self.drop(self.spatial(h, h).view(t, b, j, d))
        if self.cross is not None and memory is not None:
            h = self.norm_c(x).reshape(t * b, j, d)
            mem = memory.reshape(t * b, memory.shape[2], d)
            x = x + self.drop(self.cross(h, mem).view(t, b, j, d))
        return x + self.drop(self.ff(self.norm_f(x)))


class LieTransformer(MotionPredictor):
    """Position-encoder / angle-decoder Transformer on Lie-algebra poses (Ueda et al. 2022).

    See the module notes.

    Parameters
    ----------
    dim : int
        Token width.
    heads : int
    ff : int
        Hidden width of the feed-forward blocks.
    encoder_layers, decoder_layers : int
    n_freq : int
        DCT frequencies K of the relative position encoding.
    angle_weight : float
        Weight of the rotation-vector error [rad] beside the position error [m].
    frames_per_token : int
        Consecutive frames per token; must divide ``n_observed`` and ``n_future``.
    n_dct : int
        DCT coefficients of the output offsets (0 … ``n_future``; 0: per-token head).
    velocity_features : bool
        Add frame-to-frame steps to the token inputs.
    velocity_weight : float
        Weight of the velocity (position step) error in the loss.
    skip_spatial : bool
        Mix the linear skip path's coefficients across joints.
    jacobian_features : bool
        Add to the angle tokens the rotation vectors that the position offsets
        imply through the FK Jacobian at the last observed pose (damped least
        squares, damping :attr:`JACOBIAN_DAMPING`).
    dropout : float
        Dropout rate of every residual branch (attention and feed-forward) in training.
    """

    kind = ModelKind.LIE_TRANSFORMER
    trainable = True
    JACOBIAN_DAMPING: ClassVar[float] = 1e-3
    """Damping λ [m²] of the Jacobian features' least squares (a lever arm of about 3 cm)."""

    def __init__(
        self,
        *args: Any,
        dim: int = 32,
        heads: int = 4,
        ff: int = 64,
        encoder_layers: int = 1,
        decoder_layers: int = 1,
        n_freq: int = 4,
        angle_weight: float = 0.05,
        frames_per_token: int = 5,
        n_dct: int = 15,
        velocity_features: bool = True,
        velocity_weight: float = 1.0,
        skip_spatial: bool = True,
        jacobian_features: bool = True,
        dropout: float = 0.0,
    ) -> None:
        super().__init__(*args)
        _check_sizes(1, dim=dim, heads=heads, ff=ff)
        if not self.angle_joints:
            raise InputError("angle_joints must name at least one joint, got none")
        _check_sizes(0, encoder_layers=encoder_layers, decoder_layers=decoder_layers, n_freq=n_freq)
        f = int(frames_per_token)
        if f < 1 or self.n_observed % f or self.n_future % f:
            raise InputError(
                f"frames_per_token must divide n_observed ({self.n_observed}) and n_future "
                f"({self.n_future}), got {frames_per_token}"
            )
        self.frames_per_token = f
        length = (self.n_observed + self.n_future) // f
        self._opts = {
            "dim": dim,
            "heads": heads,
            "ff": ff,
            "encoder_layers": encoder_layers,
            "decoder_layers": decoder_layers,
            "n_freq": n_freq,
            "angle_weight": angle_weight,
            "frames_per_token": f,
            "n_dct": int(n_dct),
            "velocity_features": bool(velocity_features),
            "velocity_weight": float(velocity_weight),
            "skip_spatial": bool(skip_spatial),
            "jacobian_features": bool(jacobian_features),
            "dropout": float(dropout),
        }
        self.jacobian_features = bool(jacobian_features)
        self.skip_spatial = bool(skip_spatial)
        if not 0 <= int(n_dct) <= self.n_future:
            raise InputError(f"n_dct must be in 0 … n_future ({self.n_future}), got {n_dct}")
        self.n_dct = int(n_dct)
        self.velocity_features = bool(velocity_features)
        self.velocity_weight = float(velocity_weight)
        _check_dropout(dropout)
        if dim % heads:
            raise InputError(f"dim must be a multiple of heads, got dim={dim}, heads={heads}")
        self.angle_weight = float(angle_weight)
        n_p, n_a = len(self.position_joints), len(self.angle_joints)
        c = 9 if self.velocity_features else 6  # offset, last pose [, step] × xyz
        c_a = c + (c - 3) * self.jacobian_features  # [rotation vectors from positions, step]
        self.embed_p = nn.Linear(c * f, dim)
        self.embed_a = nn.Linear(c_a * f, dim)
        self.joint_p = nn.Parameter(torch.randn(n_p, dim) * 0.02)
        self.joint_a = nn.Parameter(torch.randn(n_a, dim) * 0.02)
        self.time_p = nn.Parameter(torch.randn(length, 1, dim) * 0.02)
        self.time_a = nn.Parameter(torch.randn(length, 1, dim) * 0.02)
        self.encoder = nn.ModuleList(
            _Layer(dim, heads, ff, length, n_freq, False, dropout) for _ in range(encoder_layers)
        )
        self.decoder = nn.ModuleList(
            _Layer(dim, heads, ff, length, n_freq, True, dropout) for _ in range(decoder_layers)
        )
        self.norm_out = nn.LayerNorm(dim)
        if self.n_dct:
            self.head = nn.Linear(length * dim, 3 * self.n_dct)
            basis = dct_matrix(self.n_future)[: self.n_dct].T.contiguous()  # (M, K)
            self.register_buffer("basis", basis)
            self.skip = nn.Linear(self.n_observed, self.n_dct)
            nn.init.zeros_(self.skip.weight)
            nn.init.zeros_(self.skip.bias)
            if self.skip_spatial:
                self.skip_mix = nn.Linear(3 * n_a, 3 * n_a)
                nn.init.eye_(self.skip_mix.weight)
                nn.init.zeros_(self.skip_mix.bias)
        else:
            self.head = nn.Linear(dim, 3 * f)
        nn.init.zeros_(self.head.weight)
        nn.init.zeros_(self.head.bias)

    def options(self) -> dict[str, Any]:
        """See :meth:`MotionPredictor.options`."""
        return dict(self._opts)

    def _embedded(self, features: list[torch.Tensor], embed: nn.Linear) -> torch.Tensor:
        """Token embeddings ``(L, B, J, dim)``, time first, of features ``(B, N, J, 3)``.

        ``f`` consecutive frames make a token (their features side by side).
        The future frames hold the last observed pose: their offsets from it,
        their steps and the rotation vectors implied by the offsets are zero,
        and their second feature, the last pose itself, is the last frame's.
        Each future token therefore embeds to ``b + (Σ_f W_f) p_last``, with
        ``W_f`` the weights of frame ``f``'s second feature: only the observed
        frames' tokens go through the whole embedding.
        """
        x = torch.cat(features, -1)  # (B, N, J, C)
        b, n, j, c = x.shape
        f = self.frames_per_token
        tokens = x.view(b, n // f, f, j, c).permute(1, 0, 3, 2, 4).reshape(n // f, b, j, f * c)
        held_weight = embed.weight.view(-1, f, c)[:, :, 3:6].sum(1)  # (dim, 3)
        held = nn.functional.linear(features[1][:, -1], held_weight, embed.bias)  # (B, J, dim)
        return torch.cat([embed(tokens), held.expand(self.n_future // f, -1, -1, -1)])

    def _position_rotvecs(self, q_last: torch.Tensor, dp: torch.Tensor) -> torch.Tensor:
        """Rotation vectors ``(B, L, A, 3)`` that best explain position offsets ``dp`` (B, L, P, 3).

        ``(JᵀJ + λI)⁻¹ Jᵀ dp`` with ``J`` the FK Jacobian at the last observed
        pose ``q_last`` (B, J, 4): Ueda et al.'s linear map between positions and
        Lie-algebra angles near the last pose (its eqs. 11–13), inverted. The
        positions are inputs, so no gradient flows through this map.
        """
        b, n = dp.shape[:2]
        with torch.no_grad():  # a feature of the input pose: nothing to learn through it
            # Jᵀ as the Jacobian is built, contiguous (3A, 3P): both products below read it
            # in that layout
            jt = self.fk.jacobian(q_last, self.position_index, self.angle_index).transpose(-1, -2)
            normal = jt @ jt.transpose(-1, -2)
            normal.diagonal(dim1=-2, dim2=-1).add_(self.JACOBIAN_DAMPING)
            # JᵀJ + λI is symmetric positive definite: a Cholesky solve with the window's
            # L right-hand sides Jᵀ dp instead of an LU inverse (the factor is not checked,
            # which on a GPU would wait for the device: λ > 0 makes it exist). The
            # right-hand sides (dp J)ᵀ are column-major, as LAPACK takes them.
            rhs = torch.bmm(dp.reshape(b, n, -1), jt.transpose(-1, -2)).transpose(1, 2)
            x = torch.cholesky_solve(rhs, torch.linalg.cholesky_ex(normal).L)  # (B, 3A, L)
        return x.transpose(1, 2).reshape(b, n, -1, 3)

    def forward(self, q_obs: torch.Tensor, p_obs: torch.Tensor) -> Prediction:
        """See :meth:`MotionPredictor.forward`."""
        pj, aj = self.position_index, self.angle_index
        q_last = q_obs[:, -1]
        p = p_obs.index_select(2, pj)  # (B, N, P, 3)
        p_last = p[:, -1:]
        q = q_obs.index_select(2, aj)  # (B, N, A, 4)
        r = quat_to_rotvec_t(quat_multiply_conjugate_t(q, q[:, -1:]))
        r_last = quat_to_rotvec_t(q[:, -1:])
        dp = p - p_last
        p_feat, r_feat = [dp, p_last.expand_as(p)], [r, r_last.expand_as(r)]
        if self.velocity_features:
            p_feat.append(_velocity(p))
            r_feat.append(_velocity(r))
        if self.jacobian_features:
            r_jac = self._position_rotvecs(q_last, dp)
            r_feat += [r_jac, _velocity(r_jac)] if self.velocity_features else [r_jac]
        enc = self._embedded(p_feat, self.embed_p)
        enc = enc + self.joint_p + self.time_p[:, None]  # (L, B, P, dim)
        for layer in self.encoder:
            enc = layer(enc)
        dec = self._embedded(r_feat, self.embed_a)
        dec = dec + self.joint_a + self.time_a[:, None]
        for layer in self.decoder:
            dec = layer(dec, enc)
        f = self.frames_per_token
        if self.n_dct:
            n, b, a, d = dec.shape
            h = self.norm_out(dec).permute(1, 2, 0, 3).reshape(b, a, n * d)
            coef = self.head(h).view(b, a, self.n_dct, 3)  # DCT coefficients of the offsets
            obs = r[:, : self.n_observed].permute(0, 2, 3, 1)  # (B, A, 3, N)
            lin = self.skip(obs).transpose(2, 3)  # (B, A, K, 3)
            if self.skip_spatial:
                mixed = self.skip_mix(lin.transpose(1, 2).reshape(b, self.n_dct, a * 3))
                lin = mixed.view(b, self.n_dct, a, 3).transpose(1, 2)
            coef = coef + lin
            r_out = torch.einsum("mk,bakc->bmac", self.basis, coef)
        else:
            out = self.head(self.norm_out(dec[self.n_observed // f :]))  # (M / f, B, A, 3 f)
            n, b, a, _ = out.shape
            r_out = out.view(n, b, a, f, 3).permute(1, 0, 3, 2, 4).reshape(b, n * f, a, 3)
        q_turned = quat_multiply_t(rotvec_to_quat_t(r_out), q_last.index_select(1, aj)[:, None])
        q_future = self._hold(q_last).index_copy(2, aj, q_turned)
        return Prediction(q_future, self.fk(q_future))

    def loss(self, pred: Prediction, q_true: torch.Tensor, p_true: torch.Tensor) -> torch.Tensor:
        """Position error [m] plus ``angle_weight`` × mean geodesic rotation error [rad]."""
        aj = self.angle_index
        if pred.rotations is None:
            return super().loss(pred, q_true, p_true)
        q_pred = pred.rotations.index_select(2, aj)
        err = quat_multiply_conjugate_t(q_pred, q_true.index_select(2, aj))
        angle = quat_angle_t(err).mean()
        loss = super().loss(pred, q_true, p_true) + self.angle_weight * angle
        if self.velocity_weight:
            v_err = torch.diff(pred.positions, dim=1) - torch.diff(p_true, dim=1)
            v_dist = norm3_t(v_err).index_select(-1, self.position_index)
            loss = loss + self.velocity_weight * v_dist.mean()
        return loss


class _PositionPredictor(MotionPredictor):
    """A predictor of positions only: joints outside the position set are filled in.

    A joint outside the position set copies the joint it duplicates (a fixed
    one, at zero offset from its parent); any other keeps its last observed
    position.
    """

    _opts: dict[str, Any]

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        if not self.position_joints:
            raise InputError("position_joints must name at least one joint, got none")
        offsets = np.asarray(self.fk.offsets)
        source = list(range(self.n_joints))
        for j in range(1, self.n_joints):
            if j not in self.position_joints and np.linalg.norm(offsets[j]) < 1e-6:
                source[j] = source[self.fk.parents[j]]
        self.source = source

    def options(self) -> dict[str, Any]:
        """See :meth:`MotionPredictor.options`."""
        return dict(self._opts)

    def _padded(self, p_obs: torch.Tensor) -> torch.Tensor:
        """Position joints flattened per frame, padded with the last pose: (B, N + M, 3P)."""
        x = p_obs[:, :, self.position_joints].flatten(2)
        return torch.cat([x, x[:, -1:].expand(-1, self.n_future, -1)], dim=1)

    def _complete(self, p_obs: torch.Tensor, future: torch.Tensor) -> Prediction:
        """All joints' positions from the position joints' ``future`` (B, M, P, 3)."""
        full = p_obs[:, -1:].expand(-1, self.n_future, -1, -1).clone()
        full[:, :, self.position_joints] = future
        return Prediction(None, full[:, :, self.source])

    def loss(self, pred: Prediction, q_true: torch.Tensor, p_true: torch.Tensor) -> torch.Tensor:
        """Position L2 plus ``velocity_weight`` × velocity L2 (siMLPe's ℓ_re + ℓ_v)."""
        j = self.position_joints
        p_hat, p = pred.positions[..., j, :], p_true[..., j, :]
        err = (p_hat - p).norm(dim=-1).mean()
        if not self.velocity_weight:
            return err
        vel = (torch.diff(p_hat, dim=1) - torch.diff(p, dim=1)).norm(dim=-1).mean()
        return err + self.velocity_weight * vel


class SiMLPe(_PositionPredictor):
    """siMLPe: DCT + MLP on joint positions (see the module notes).

    Parameters
    ----------
    n_blocks : int
        MLP blocks (48 in the paper).
    velocity_weight : float
        Weight of the velocity loss.
    """

    kind = ModelKind.SIMLPE
    trainable = True

    def __init__(self, *args: Any, n_blocks: int = 48, velocity_weight: float = 1.0) -> None:
        super().__init__(*args)
        _check_sizes(0, n_blocks=n_blocks)
        self._opts = {"n_blocks": n_blocks, "velocity_weight": velocity_weight}
        self.velocity_weight = float(velocity_weight)
        length = self.n_observed + self.n_future
        d = 3 * len(self.position_joints)
        self.register_buffer("dct", dct_matrix(length))
        self.fc_in = nn.Linear(d, d)
        self.temporal = nn.ModuleList(nn.Linear(length, length) for _ in range(n_blocks))
        self.norms = nn.ModuleList(nn.LayerNorm(d) for _ in range(n_blocks))
        self.fc_out = nn.Linear(d, d)
        nn.init.xavier_uniform_(self.fc_out.weight, gain=1e-8)
        nn.init.zeros_(self.fc_out.bias)

    def forward(self, q_obs: torch.Tensor, p_obs: torch.Tensor) -> Prediction:
        """See :meth:`MotionPredictor.forward`."""
        pj = self.position_joints
        x = self._padded(p_obs)  # (B, L, D)
        b = x.shape[0]
        n, d = x.shape[1], x.shape[2]
        # Time-major (L, B·D) layout: each temporal FC is one matrix product, no transposes.
        h = self.fc_in((self.dct @ x.transpose(0, 1).reshape(n, b * d)).view(n, b, d))
        for fc, norm in zip(self.temporal, self.norms, strict=True):
            h = h + norm(torch.addmm(fc.bias[:, None], fc.weight, h.view(n, b * d)).view(n, b, d))
        h = self.fc_out(h).view(n, b * d)
        y = (self.dct.T @ h).view(n, b, d).transpose(0, 1) + x[:, -1:]
        return self._complete(p_obs, y[:, self.n_observed :].reshape(b, self.n_future, len(pj), 3))


class _GraphConv(nn.Module):
    """LTD's graph convolution: ``A (x W) + b`` with a learned, dense adjacency ``A``."""

    def __init__(self, n_in: int, n_out: int, nodes: int) -> None:
        super().__init__()
        bound = 1.0 / math.sqrt(n_out)
        self.weight = nn.Parameter(torch.empty(n_in, n_out).uniform_(-bound, bound))
        self.adjacency = nn.Parameter(torch.empty(nodes, nodes).uniform_(-bound, bound))
        self.bias = nn.Parameter(torch.empty(n_out).uniform_(-bound, bound))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.adjacency @ (x @ self.weight) + self.bias


class _GraphBlock(nn.Module):
    """Graph convolution, then batch normalisation over nodes × features, tanh and dropout."""

    def __init__(self, n_in: int, n_out: int, nodes: int, dropout: float) -> None:
        super().__init__()
        self.conv = _GraphConv(n_in, n_out, nodes)
        self.norm = nn.BatchNorm1d(nodes * n_out)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        b, n, f = y.shape
        return self.drop(torch.tanh(self.norm(y.reshape(b, n * f)).view(b, n, f)))


class LTD(_PositionPredictor):
    """LTD: DCT + graph convolutions on joint coordinates (see the module notes).

    Parameters
    ----------
    hidden : int
        Features per node in the residual blocks (256 in the paper).
    n_blocks : int
        Residual blocks of two graph convolutions (12 in the paper).
    dropout : float
        Dropout after every hidden graph convolution in training (0.5 in the paper).
    velocity_weight : float
        Weight of the velocity loss (0 in the paper).
    """

    kind = ModelKind.LTD
    trainable = True
    SCALE: ClassVar[float] = 1000.0
    """Coordinates inside the network are in millimetres, as in LTD's code: its
    initialisation (output noise of order one) assumes that scale."""

    def __init__(
        self,
        *args: Any,
        hidden: int = 256,
        n_blocks: int = 12,
        dropout: float = 0.5,
        velocity_weight: float = 0.0,
    ) -> None:
        super().__init__(*args)
        _check_dropout(dropout)
        _check_sizes(1, hidden=hidden)
        _check_sizes(0, n_blocks=n_blocks)
        self._opts = {
            "hidden": hidden,
            "n_blocks": n_blocks,
            "dropout": float(dropout),
            "velocity_weight": float(velocity_weight),
        }
        self.velocity_weight = float(velocity_weight)
        length = self.n_observed + self.n_future
        nodes = 3 * len(self.position_joints)
        self.register_buffer("dct", dct_matrix(length))
        self.first = _GraphBlock(length, hidden, nodes, dropout)
        self.blocks = nn.ModuleList(
            nn.Sequential(
                _GraphBlock(hidden, hidden, nodes, dropout),
                _GraphBlock(hidden, hidden, nodes, dropout),
            )
            for _ in range(n_blocks)
        )
        self.last = _GraphConv(hidden, length, nodes)

    def forward(self, q_obs: torch.Tensor, p_obs: torch.Tensor) -> Prediction:
        """See :meth:`MotionPredictor.forward`."""
        pj = self.position_joints
        x = self._padded(p_obs)  # (B, L, D)
        b = x.shape[0]
        c = (self.dct @ (x * self.SCALE)).transpose(1, 2)  # (B, D nodes, L coefficients)
        h = self.first(c)
        for block in self.blocks:
            h = h + block(h)
        y = self.dct.T @ (self.last(h) + c).transpose(1, 2) / self.SCALE  # (B, L, D) [m]
        return self._complete(p_obs, y[:, self.n_observed :].reshape(b, self.n_future, len(pj), 3))


MODEL_KINDS: dict[ModelKind, type[MotionPredictor]] = {
    cls.kind: cls for cls in (LieTransformer, SiMLPe, LTD, ZeroVelocity, ConstantVelocity)
}
"""Predictor classes by ``kind``."""
KIND_ALIASES: dict[str, ModelKind] = {"seed": ModelKind.LIE_TRANSFORMER}
"""Former spellings of model kinds, still accepted (``--model``, model files)."""


def canonical_kind(kind: ModelKind | str) -> ModelKind | str:
    """``kind`` as a :class:`ModelKind`, a former spelling (:data:`KIND_ALIASES`) included.

    A string that names no kind is returned as it is, for the caller to refuse
    with a message of its own.
    """
    kind = KIND_ALIASES.get(kind, kind)
    try:
        return ModelKind(kind)
    except ValueError:
        return kind
