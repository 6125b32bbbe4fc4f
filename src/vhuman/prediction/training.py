"""Training a predictor, with checkpoints to resume from.

Schedule (:mod:`vhuman.prediction.schedule`): Adam, learning rate
cosine-decayed from ``lr`` to ``lr / 100`` over all steps (with ``warmup``,
first ramped up linearly), gradient norm clipped at 1. Options
(:class:`TrainConfig`), offered to every model kind alike:

- ``weight_decay``: AdamW's decoupled weight decay on the parameters of two
  or more dimensions (weight matrices, embeddings; not biases or norms);
- ``ema``: an exponential moving average of the weights (decay ``ema``,
  warmed up as ``min(ema, (1 + s) / (10 + s))`` at step ``s``), kept in the
  checkpoint and written as the model;
- ``mirror``: each epoch every training window is mirrored left/right with
  probability 1/2 (drawn from ``(seed, epoch)``): the pose reflected in the
  body's sagittal plane (``y → −y``, x forward, z up), left and right joints
  swapped (:func:`~vhuman.prediction.data.mirror_joints`); a local rotation
  ``(w, x, y, z)`` becomes ``(w, −x, y, −z)`` at the mirror joint and the
  positions are recomputed by FK, so they match the skeleton's bone lengths
  exactly;
- ``reverse``: each epoch every training window is played backwards with
  probability 1/2 (an independent draw from ``(seed, epoch)``): the motion
  run in reverse, its last future pose observed first;
- ``speed``: each epoch every training window is played at a speed factor
  drawn log-uniformly from ``[1 / (1 + speed), 1 + speed]`` (an independent
  draw from ``(seed, epoch)``): its poses are taken every ``factor`` frames
  from its first one (rotations interpolated between the two nearest frames
  by normalised linear interpolation, positions by FK); a window near its
  trial's end is sped up only as far as the trial reaches.

Device: on ``device="cuda"`` the whole step runs on the GPU
(:class:`~vhuman.prediction.sampling.WindowSampler` keeps the rotations
there, the epoch's order, flips and speeds are copied once per pass), and
nothing is read back within a step but the loss every ``progress_every``
steps. The same seed gives the same weights on the same device (tested on
the CPU; ``benchmarks/prediction_gpu.sh`` checks it on a GPU, with the
difference from the CPU's weights).

Checkpoints (:mod:`vhuman.prediction.checkpoint`) are written after every
epoch; a run resumed from one continues exactly as the uninterrupted run would
(the window order and any randomness of epoch ``e`` derive from ``(seed, e)``
alone, :mod:`vhuman.prediction.sampling`; tested), and the model file is
written at the end (:mod:`vhuman.prediction.files`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from vhuman.errors import InputError
from vhuman.io.filesystem import PathLike
from vhuman.prediction.checkpoint import data_digest, read_checkpoint, write_checkpoint
from vhuman.prediction.data import (
    N_FUTURE,
    N_OBSERVED,
    PROTOCOL_FPS,
    JointSets,
    PoseSequences,
    mirror_joints,
)
from vhuman.prediction.files import MODEL_FORMAT, ModelInfo, model_config, save_model
from vhuman.prediction.models import MODEL_KINDS, ModelKind, MotionPredictor, canonical_kind
from vhuman.prediction.sampling import WindowSampler, epoch_order
from vhuman.prediction.schedule import ema_update, lr_at, make_optimizer

__all__ = [
    "DEFAULT_LR",
    "TrainConfig",
    "build_model",
    "check_device",
    "train",
]

DEFAULT_LR = {ModelKind.LIE_TRANSFORMER: 2e-3, ModelKind.SIMLPE: 3e-4, ModelKind.LTD: 5e-4}
"""Initial learning rate by model kind (siMLPe's paper uses 3e-4, LTD's 5e-4)."""


@dataclass(frozen=True)
class TrainConfig:
    """How to train a predictor.

    Attributes
    ----------
    kind : ModelKind or str
        ``"lie-transformer"``, ``"simlpe"`` or ``"ltd"`` (``"seed"``: a former
        spelling of ``"lie-transformer"``).
    epochs : int
        Passes over the training windows.
    steps : int or None
        Optimizer steps in all, overriding ``epochs`` (the last pass is cut
        short); None for ``epochs`` full passes. Steps fix the training
        budget more finely than epochs and stay reproducible, as a wall-time
        limit would not.
    batch_size : int
    lr : float or None
        Initial learning rate; None for :data:`DEFAULT_LR` of ``kind``.
    seed : int
        Seeds the initial weights and every epoch's window order.
    stride : int
        Training windows start every ``stride`` frames.
    max_windows : int or None
        Windows drawn per epoch (a seeded subset); None for all.
    n_observed : int
        Observed poses per window (the model's input length).
    options : dict
        Model hyper-parameters (see :mod:`vhuman.prediction.models`).
    weight_decay : float
        AdamW weight decay of the weight matrices and embeddings (0: Adam).
    ema : float
        Decay of the exponential moving average of the weights (0: none); in [0, 1).
    mirror : bool
        Mirror each window left/right with probability 1/2 (see the module notes).
    reverse : bool
        Play each window backwards with probability 1/2 (see the module notes).
    speed : float
        Play each window at a speed factor in ``[1 / (1 + speed), 1 + speed]``
        (0: never; see the module notes).
    warmup : int
        Steps over which the learning rate ramps up linearly (0: none).
    """

    kind: ModelKind | str = ModelKind.LIE_TRANSFORMER
    epochs: int = 8
    steps: int | None = None
    batch_size: int = 64
    lr: float | None = None
    seed: int = 0
    stride: int = 1
    max_windows: int | None = None
    n_observed: int = N_OBSERVED
    options: dict[str, Any] = field(default_factory=dict)
    weight_decay: float = 0.0
    ema: float = 0.0
    mirror: bool = False
    reverse: bool = False
    speed: float = 0.0
    warmup: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", canonical_kind(self.kind))
        trainable = sorted(k for k, c in MODEL_KINDS.items() if c.trainable)
        if self.kind not in trainable:
            raise InputError(
                f"model kind must be one of {', '.join(trainable)}; got {str(self.kind)!r}"
            )
        for name in ("epochs", "batch_size", "stride", "n_observed"):
            if int(getattr(self, name)) < 1:
                raise InputError(f"{name} must be an integer ≥ 1, got {getattr(self, name)}")
        if self.steps is not None and int(self.steps) < 1:
            raise InputError(f"steps must be an integer ≥ 1, got {self.steps}")
        if not float(self.weight_decay) >= 0.0:
            raise InputError(f"weight_decay must be ≥ 0, got {self.weight_decay}")
        if not 0.0 <= float(self.ema) < 1.0:
            raise InputError(f"ema must be in [0, 1), got {self.ema}")
        if not 0.0 <= float(self.speed) <= 1.0:
            raise InputError(f"speed must be in [0, 1], got {self.speed}")
        if int(self.warmup) < 0:
            raise InputError(f"warmup must be an integer ≥ 0, got {self.warmup}")

    @property
    def learning_rate(self) -> float:
        """``lr`` or the default of ``kind``."""
        return float(self.lr) if self.lr is not None else DEFAULT_LR[self.kind]


def build_model(
    kind: ModelKind | str,
    sequences: PoseSequences,
    joints: JointSets | None = None,
    *,
    n_observed: int = N_OBSERVED,
    n_future: int = N_FUTURE,
    options: dict[str, Any] | None = None,
) -> MotionPredictor:
    """A fresh predictor of ``kind`` for the skeleton of ``sequences``.

    Raises
    ------
    InputError
        For an unknown kind or bad options.
    """
    kind = canonical_kind(kind)
    if kind not in MODEL_KINDS:
        raise InputError(f"model kind must be one of {', '.join(MODEL_KINDS)}; got {str(kind)!r}")
    joints = joints or sequences.joint_sets()
    sk = sequences.skeleton
    try:
        return MODEL_KINDS[kind](
            sk.parents,
            sk.offsets,
            joints.position,
            joints.angle,
            n_observed,
            n_future,
            **(options or {}),
        )
    except TypeError as exc:
        raise InputError(f"bad options for a {str(kind)!r} model: {exc}") from None


def check_device(device: str) -> None:
    """Refuse a training device other than ``cpu`` or an available ``cuda``.

    Raises
    ------
    InputError
        For another name, or ``cuda`` where torch sees no CUDA device.
    """
    if device not in ("cpu", "cuda"):
        raise InputError(f"device must be cpu or cuda, got {device!r}")
    if device == "cuda" and not torch.cuda.is_available():
        raise InputError("device cuda asked for, but torch sees no CUDA device; use --device cpu")


def train(
    sequences: PoseSequences,
    config: TrainConfig,
    *,
    output: PathLike,
    checkpoint: PathLike | None = None,
    resume: bool = False,
    device: str = "cpu",
    stop_after: int | None = None,
    progress: Callable[[int, int, float], None] | None = None,
    progress_every: int = 50,
) -> tuple[MotionPredictor, ModelInfo, list[float]]:
    """Train a predictor on the training trials of ``sequences``; write it to ``output``.

    Parameters
    ----------
    sequences : PoseSequences
    config : TrainConfig
    output : path
        The model file, written at the end.
    checkpoint : path, optional
        Written after every epoch (default ``<output>.ckpt``).
    resume : bool
        Continue from ``checkpoint`` if it exists: it must be intact and of a
        run with the same configuration, training data (by digest) and device.
    device : {"cpu", "cuda"}
    stop_after : int, optional
        Stop after this many epochs in total (the checkpoint stays; for tests
        and time-boxed runs); the model file is written as it is then.
    progress : callable, optional
        Called with ``(step, total_steps, loss)`` after every ``progress_every``-th
        step and the last of each epoch, ``loss`` that step's batch loss.
    progress_every : int
        Steps between progress calls: each reads the loss back from the
        device, the only host read of a step.

    Returns
    -------
    model, info, history
        ``history`` holds the mean training loss of each epoch.

    Raises
    ------
    InputError
        For a device that is not available, no training windows, or a
        checkpoint that is damaged or of another run (naming the first setting
        that differs, stored and given).
    """
    check_device(device)
    windows = sequences.windows(
        split="train", stride=config.stride, n_observed=config.n_observed, n_future=N_FUTURE
    )
    if len(windows) == 0:
        raise InputError(
            f"no training windows of {config.n_observed + N_FUTURE} frames in {sequences.source}"
        )
    checkpoint = Path(checkpoint) if checkpoint is not None else Path(f"{output}.ckpt")
    torch.manual_seed(config.seed)
    model = build_model(
        config.kind, sequences, n_observed=config.n_observed, options=config.options
    ).to(device)
    info = ModelInfo(
        sequences.skeleton.names,
        sequences.sample_fps,
        PROTOCOL_FPS,
        sequences.source,
        {**asdict(config), "epochs_done": 0},
    )
    opt = make_optimizer(model, config.learning_rate, float(config.weight_decay))
    ema = {k: v.detach().clone() for k, v in model.state_dict().items()} if config.ema else None
    swap = mirror_joints(sequences.skeleton) if config.mirror else None
    history: list[float] = []
    start = 0
    identity = {**asdict(config), "data": data_digest(sequences), "device": device}
    if resume and checkpoint.is_file():
        data = read_checkpoint(checkpoint, identity)
        model.load_state_dict(data["state"])
        opt.load_state_dict(data["optimizer"])
        if ema is not None:
            ema = {k: v.to(device) for k, v in data["ema"].items()}
        start, history = int(data["epoch"]), list(json.loads(data["history"]))
    n_batches = math.ceil(min(len(windows), config.max_windows or len(windows)) / config.batch_size)
    total = n_batches * config.epochs if config.steps is None else int(config.steps)
    n_epochs = math.ceil(total / n_batches)
    last = n_epochs if stop_after is None else min(n_epochs, stop_after)
    sampler = WindowSampler(sequences, windows, model.fk, swap, device)
    state = model.state_dict()
    params = list(model.parameters())
    n = model.n_observed
    for epoch in range(start, last):
        model.train()
        torch.manual_seed(config.seed * 7_919 + epoch)
        order, flip, back, factor = (
            torch.from_numpy(x).to(device) for x in epoch_order(len(windows), config, epoch)
        )
        loss_sum = torch.zeros((), dtype=torch.float64, device=device)
        steps_done = min(n_batches, total - epoch * n_batches)
        for b in range(steps_done):
            step = epoch * n_batches + b
            for group in opt.param_groups:
                group["lr"] = lr_at(step, total, config.learning_rate, int(config.warmup))
            batch = slice(b * config.batch_size, (b + 1) * config.batch_size)
            q, p = sampler.batch(order[batch], factor[batch], flip[batch], back[batch])
            pred = model(q[:, :n], p[:, :n])
            loss = model.loss(pred, q[:, n:], p[:, n:])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(params, 1.0, foreach=True)
            opt.step()
            if ema is not None:
                ema_update(ema, state, min(config.ema, (1 + step) / (10 + step)))
            loss_sum += loss.detach()
            if progress is not None and ((step + 1) % progress_every == 0 or b == steps_done - 1):
                progress(step + 1, total, loss.item())  # the only host read within an epoch
        history.append(loss_sum.item() / steps_done)
        payload = {
            "format": MODEL_FORMAT,
            "config": json.dumps(model_config(model, info)),
            "identity": json.dumps(identity),
            "state": {k: v.detach().cpu() for k, v in model.state_dict().items()},
            "optimizer": opt.state_dict(),
            **({} if ema is None else {"ema": {k: v.detach().cpu() for k, v in ema.items()}}),
            "epoch": epoch + 1,
            "history": json.dumps(history),
        }
        write_checkpoint(checkpoint, payload)
    model.eval()
    if ema is not None:
        model.load_state_dict(ema)
    info = ModelInfo(
        info.joint_names,
        info.sample_fps,
        info.label_fps,
        info.data,
        {**asdict(config), "epochs_done": len(history)},
    )
    save_model(model.cpu(), info, output)
    return model, info, history
