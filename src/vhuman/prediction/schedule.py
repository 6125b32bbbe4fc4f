"""The optimiser, its learning-rate schedule and the moving average of the weights.

Adam, learning rate cosine-decayed from ``lr`` to ``lr / 100`` over all steps
(with ``warmup``, first ramped up linearly: step ``s`` takes
``(s + 1) / warmup`` of that rate until ``s + 1 = warmup``); AdamW's
decoupled weight decay on the parameters of two or more dimensions; an
exponential moving average of the weights (Polyak and Juditsky, 1992).
"""

from __future__ import annotations

import math

import torch

__all__ = ["ema_update", "lr_at", "make_optimizer"]


def lr_at(step: int, total: int, lr: float, warmup: int = 0) -> float:
    """Learning rate of step ``step`` of ``total`` (see the module notes).

    Parameters
    ----------
    step : int
        Step index, from 0.
    total : int
        Steps in the whole run.
    lr : float
        Initial (peak) learning rate.
    warmup : int
        Steps of the linear ramp up (0: none).

    Returns
    -------
    float
        The cosine schedule from ``lr`` down to ``lr / 100`` at ``total``, times
        ``min(1, (step + 1) / warmup)``.
    """
    ramp = min(1.0, (step + 1) / warmup) if warmup > 0 else 1.0
    cosine = 0.5 * (1.0 + math.cos(math.pi * min(step / max(total, 1), 1.0)))
    return ramp * lr * (0.01 + 0.99 * cosine)


def make_optimizer(model: torch.nn.Module, lr: float, weight_decay: float) -> torch.optim.Optimizer:
    """Adam, or AdamW with weight decay on the parameters of two or more dimensions; the
    fused implementation (one kernel for all the parameters, on the CPU and the GPU alike),
    the same update up to rounding."""
    if not weight_decay:
        return torch.optim.Adam(model.parameters(), lr=lr, fused=True)
    params = list(model.parameters())
    groups = [
        {"params": [p for p in params if p.ndim >= 2], "weight_decay": weight_decay},
        {"params": [p for p in params if p.ndim < 2], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=lr, fused=True)


def ema_update(ema: dict[str, torch.Tensor], state: dict[str, torch.Tensor], decay: float) -> None:
    """``ema ← ema + (1 − decay)(state − ema)`` for the floating-point entries, in one
    multi-tensor operation; other entries copied."""
    with torch.no_grad():
        floats = [k for k, v in state.items() if v.is_floating_point()]
        torch._foreach_lerp_([ema[k] for k in floats], [state[k] for k in floats], 1.0 - decay)
        for k, v in state.items():
            if not v.is_floating_point():
                ema[k].copy_(v)
