"""Training windows drawn, ordered and augmented (see :mod:`vhuman.prediction.training`).

The window order, mirror and time-reversal flags and speed factors of epoch
``e`` derive from ``(seed, e)`` alone, so a resumed run draws what the
uninterrupted run draws.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np
import torch

from vhuman.prediction.data import PoseSequences, Windows
from vhuman.prediction.kinematics import TorchFK

if TYPE_CHECKING:
    from vhuman.prediction.training import TrainConfig

__all__ = ["WindowSampler", "batch_tensors", "epoch_order", "mirror_rotations"]


def batch_tensors(
    sequences: PoseSequences, windows: Windows, index: np.ndarray | slice, device: str = "cpu"
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(q (B, L, J, 4), p (B, L, J, 3))`` float32 tensors of windows ``index``; root identity."""
    frames = windows.frame_index()[index]
    q = torch.from_numpy(sequences.local_rotations[frames].astype(np.float32))
    q[..., 0, :] = q.new_tensor([1.0, 0.0, 0.0, 0.0])
    p = torch.from_numpy(sequences.positions[frames].astype(np.float32))
    return q.to(device), p.to(device)


def epoch_order(
    n: int, config: TrainConfig, epoch: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The epoch's window order ``(n,)`` (a seeded subset with ``max_windows``), mirror and
    time-reversal flags and speed factors."""
    g = torch.Generator().manual_seed(config.seed * 1_000_003 + epoch)
    order = torch.randperm(n, generator=g)
    flip = torch.rand(n, generator=g) < 0.5 if config.mirror else torch.zeros(n, dtype=torch.bool)
    back = torch.rand(n, generator=g) < 0.5 if config.reverse else torch.zeros(n, dtype=torch.bool)
    log_speed = math.log1p(config.speed)
    factor = torch.exp(log_speed * (2.0 * torch.rand(n, generator=g, dtype=torch.float64) - 1.0))
    if config.max_windows:
        order, flip, back, factor = (x[: config.max_windows] for x in (order, flip, back, factor))
    return order.numpy(), flip.numpy(), back.numpy(), factor.numpy()


class WindowSampler:
    """Training windows kept on the training device, drawn and augmented there.

    The rotations of all frames live on ``device`` (float64, root the
    identity); a batch is a gather by window index and speed factor, the
    augmentations are elementwise selections and the positions one FK pass,
    so a training step needs nothing from the host but the step's slice of the
    epoch's window order, itself on the device.

    Parameters
    ----------
    sequences : PoseSequences
    windows : Windows
    fk : TorchFK
        The skeleton's forward kinematics, on ``device``.
    swap : tuple of int, optional
        :func:`~vhuman.prediction.data.mirror_joints` of the skeleton (needed to mirror).
    device : str or torch.device
    """

    def __init__(
        self,
        sequences: PoseSequences,
        windows: Windows,
        fk: TorchFK,
        swap: tuple[int, ...] | None = None,
        device: str | torch.device = "cpu",
    ) -> None:
        q = torch.from_numpy(np.ascontiguousarray(sequences.local_rotations, dtype=np.float64))
        q = q.clone()
        q[..., 0, :] = q.new_tensor([1.0, 0.0, 0.0, 0.0])
        self.rotations = q.to(device)  # (F, J, 4)
        self.starts = torch.from_numpy(windows.starts.astype(np.int64)).to(device)
        last = sequences.trial_starts[windows.trial + 1] - 1
        self.last = torch.from_numpy(last.astype(np.int64)).to(device)
        self.length = windows.length
        self.fk = fk
        self.swap = None if swap is None else torch.tensor(swap, device=device)
        self._joints = torch.arange(q.shape[1], device=device)
        # a mirrored rotation (w, x, y, z) is (w, −x, y, −z) at the mirror joint
        self._mirror_sign = torch.tensor([1.0, -1.0, 1.0, -1.0], device=device)
        self._steps = torch.arange(self.length, dtype=torch.float64, device=device)

    def rotations_at(self, index: torch.Tensor, factors: torch.Tensor) -> torch.Tensor:
        """Local rotations ``(B, L, J, 4)`` float32 of windows ``index`` played at ``factors``.

        Parameters
        ----------
        index : Tensor of int64, shape (B,)
            Windows to take.
        factors : Tensor of float64, shape (B,)
            Speed factors (> 0): pose ``k`` of a window is taken at frame
            ``start + factor · k`` (rotations interpolated by normalised linear
            interpolation between the two nearest frames); a factor that would
            run past the trial's last frame is reduced to reach it exactly.
        """
        return self._interpolated(*self._times(index, factors))

    def _times(
        self, index: torch.Tensor, factors: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Frame times ``(B, L)`` of the windows' poses and their trials' last frames ``(B,)``."""
        starts, last = self.starts[index], self.last[index]
        factor = torch.minimum(factors, (last - starts).double() / (self.length - 1))
        return starts[:, None] + factor[:, None] * self._steps, last

    def _interpolated(
        self, t: torch.Tensor, last: torch.Tensor, joints: torch.Tensor | None = None
    ) -> torch.Tensor:
        """Rotations ``(B, L, J, 4)`` float32 at frame times ``t`` (B, L), of joints ``joints``
        (B, J) of each window (None: all in order)."""
        lo = torch.minimum(t.floor().long(), last[:, None])
        hi = torch.minimum(lo + 1, last[:, None])
        w = (t - lo)[..., None, None]
        n_joints = self.rotations.shape[1]
        frames = torch.stack([lo, hi])  # (2, B, L)
        # one gather of rows for both frames (``index_select``: a plain gather, several times
        # faster on a CPU than advanced indexing with two broadcast index tensors)
        if joints is None:
            q01 = self.rotations.index_select(0, frames.view(-1))
        else:
            rows = frames[..., None] * n_joints + joints[:, None]  # (2, B, L, J)
            q01 = self.rotations.view(-1, 4).index_select(0, rows.view(-1))
        q0, q1 = q01.view(2, *lo.shape, n_joints, 4).unbind(0)
        q1 = torch.where((q0 * q1).sum(-1, keepdim=True) < 0.0, -q1, q1)
        q = torch.lerp(q0, q1, w)
        return (q / torch.linalg.vector_norm(q, dim=-1, keepdim=True)).float()

    def batch(
        self,
        index: torch.Tensor,
        factors: torch.Tensor,
        flip: torch.Tensor,
        back: torch.Tensor,
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Augmented windows: ``(q (B, L, J, 4), p (B, L, J, 3))``, see the module notes.

        The reversal and the mirror's joint swap are folded into the gather of
        the recorded frames (the frame times in reverse order, each window's
        joints in mirror order), its sign change into one product: the values
        of :meth:`rotations_at`, then :func:`mirror_rotations` and a flip of
        the time axis, to the bit (tested).

        Parameters
        ----------
        index, factors : Tensor, shape (B,)
            See :meth:`rotations_at`.
        flip, back : Tensor of bool, shape (B,)
            Windows to mirror left/right (needs ``swap``) and to play backwards.
        """
        with torch.no_grad():
            t, last = self._times(index, factors)
            t = torch.where(back[:, None], t.flip(1), t)
            if self.swap is None:
                q = self._interpolated(t, last)
            else:
                joints = torch.where(flip[:, None], self.swap, self._joints)  # (B, J)
                sign = torch.where(flip[:, None], self._mirror_sign, 1.0)  # (B, 4)
                q = self._interpolated(t, last, joints) * sign[:, None, None]
            return q, self.fk(q)


def mirror_rotations(q: torch.Tensor, swap: tuple[int, ...] | torch.Tensor) -> torch.Tensor:
    """Left/right mirror images of poses (see the module notes).

    Parameters
    ----------
    q : Tensor, shape (..., J, 4)
        Local rotations, root the identity.
    swap : tuple of int or Tensor, length J
        :func:`~vhuman.prediction.data.mirror_joints` of the skeleton.

    Returns
    -------
    Tensor, shape (..., J, 4)
        The mirrored local rotations; their FK gives the mirrored positions
        (``y → −y``, left and right swapped; tested).
    """
    index = swap if isinstance(swap, torch.Tensor) else torch.tensor(swap, device=q.device)
    w, x, y, z = q[..., index, :].unbind(-1)
    return torch.stack([w, -x, y, -z], dim=-1)
