"""Training, checkpoints with resume, and model files that load without executing code.

Files are written with ``torch.save`` and read with ``torch.load(...,
weights_only=True)``: only tensors, numbers, strings, lists and dicts, never
pickled objects. A model file holds ``{"format", "kind", "config" (JSON text),
"state"}``; a checkpoint adds the optimizer state, the epoch reached and the
loss history, so a run resumed from it continues exactly as the uninterrupted
run would (the window order and any randomness of epoch ``e`` derive from
``(seed, e)`` alone; tested).

Schedule: Adam, learning rate cosine-decayed from ``lr`` to ``lr / 100`` over
all steps (with ``warmup``, first ramped up linearly: step ``s`` takes
``(s + 1) / warmup`` of that rate until ``s + 1 = warmup``), gradient norm
clipped at 1. Options (:class:`TrainConfig`), offered
to every model kind alike:

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
(:class:`WindowSampler` keeps the rotations there, the epoch's order, flips
and speeds are copied once per pass), and nothing is read back within a step
but the loss every ``progress_every`` steps. The same seed gives the same
weights on the same device (tested on the CPU; ``benchmarks/prediction_gpu.sh``
checks it on a GPU, with the difference from the CPU's weights).
"""

from __future__ import annotations

import io
import json
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch

from vhuman.errors import FileFormatError, InputError
from vhuman.io import atomic_write
from vhuman.io.filesystem import PathLike
from vhuman.prediction.data import (
    N_FUTURE,
    N_OBSERVED,
    PROTOCOL_FPS,
    JointSets,
    PoseSequences,
    Windows,
    mirror_joints,
)
from vhuman.prediction.kinematics import TorchFK
from vhuman.prediction.models import MODEL_KINDS, MotionPredictor

__all__ = [
    "DEFAULT_LR",
    "MODEL_FORMAT",
    "ModelInfo",
    "TrainConfig",
    "WindowSampler",
    "batch_tensors",
    "build_model",
    "check_device",
    "load_model",
    "lr_at",
    "mirror_rotations",
    "save_model",
    "train",
]

MODEL_FORMAT = "vhuman.prediction/1"
"""The ``format`` entry of model and checkpoint files."""

DEFAULT_LR = {"seed": 2e-3, "simlpe": 3e-4, "ltd": 5e-4}
"""Initial learning rate by model kind (siMLPe's paper uses 3e-4, LTD's 5e-4)."""


@dataclass(frozen=True)
class TrainConfig:
    """How to train a predictor.

    Attributes
    ----------
    kind : str
        ``"seed"``, ``"simlpe"`` or ``"ltd"``.
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

    kind: str = "seed"
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
        trainable = sorted(k for k, c in MODEL_KINDS.items() if c.trainable)
        if self.kind not in trainable:
            raise InputError(f"model kind must be one of {', '.join(trainable)}; got {self.kind!r}")
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


@dataclass(frozen=True)
class ModelInfo:
    """What a model was trained on, saved beside its weights.

    Attributes
    ----------
    joint_names : tuple of str
        The skeleton the model needs (inputs must match by name and parents).
    sample_fps : float
        True frame rate of the model's frames [frames/s].
    label_fps : float
        Frame rate by which horizons are labelled (the protocol's 25 fps).
    data : str
        The training data's source.
    train : dict
        The :class:`TrainConfig` as a dict, plus the epochs done.
    """

    joint_names: tuple[str, ...]
    sample_fps: float
    label_fps: float = PROTOCOL_FPS
    data: str = ""
    train: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {**asdict(self), "joint_names": list(self.joint_names)}


def build_model(
    kind: str,
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
    if kind not in MODEL_KINDS:
        raise InputError(f"model kind must be one of {', '.join(MODEL_KINDS)}; got {kind!r}")
    joints = joints or sequences.joint_sets()
    sk = sequences.skeleton
    try:
        return MODEL_KINDS[kind](
            sk.parents, sk.offsets, joints.position, joints.angle, n_observed, n_future,
            **(options or {}),
        )  # fmt: skip
    except TypeError as exc:
        raise InputError(f"bad options for a {kind!r} model: {exc}") from None


def batch_tensors(
    sequences: PoseSequences, windows: Windows, index: np.ndarray | slice, device: str = "cpu"
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(q (B, L, J, 4), p (B, L, J, 3))`` float32 tensors of windows ``index``; root identity."""
    frames = windows.frame_index()[index]
    q = torch.from_numpy(sequences.local_rotations[frames].astype(np.float32))
    q[..., 0, :] = q.new_tensor([1.0, 0.0, 0.0, 0.0])
    p = torch.from_numpy(sequences.positions[frames].astype(np.float32))
    return q.to(device), p.to(device)


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


def _config_of(model: MotionPredictor, info: ModelInfo) -> dict[str, Any]:
    return {
        "kind": model.kind,
        "parents": list(model.fk.parents),
        "offsets": model.fk.offsets.tolist(),
        "position_joints": model.position_joints,
        "angle_joints": model.angle_joints,
        "n_observed": model.n_observed,
        "n_future": model.n_future,
        "options": model.options(),
        "info": info.to_dict(),
    }


def _model_from_config(config: dict[str, Any]) -> tuple[MotionPredictor, ModelInfo]:
    model = MODEL_KINDS[config["kind"]](
        config["parents"], config["offsets"], config["position_joints"], config["angle_joints"],
        config["n_observed"], config["n_future"], **config["options"],
    )  # fmt: skip
    i = config["info"]
    info = ModelInfo(
        tuple(i["joint_names"]), i["sample_fps"], i["label_fps"], i["data"], i["train"]
    )
    return model, info


def save_model(model: MotionPredictor, info: ModelInfo, path: PathLike) -> None:
    """Write ``model`` (weights and configuration) to ``path`` atomically; see the module notes."""
    payload = {
        "format": MODEL_FORMAT,
        "config": json.dumps(_config_of(model, info)),
        "state": {k: v.detach().cpu() for k, v in model.state_dict().items()},
    }
    atomic_write(path, _serialized(payload))


def _serialized(payload: dict[str, Any]) -> bytes:
    """``torch.save`` bytes of ``payload``, the same for the same payload.

    Saved to a file name, torch names the archive's inner folder after it (a
    temporary name here); saved to memory it is always ``archive``.
    """
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    return buffer.getvalue()


def _read(path: PathLike) -> dict[str, Any]:
    p = Path(path)
    try:
        data = torch.load(p, map_location="cpu", weights_only=True)
    except (FileNotFoundError, IsADirectoryError, PermissionError) as exc:
        raise InputError(f"cannot read {p}: {exc.strerror or exc}") from None
    except Exception as exc:
        if p.is_file() and p.stat().st_size == 0:
            raise FileFormatError(f"{p}: the file is empty (0 bytes); delete it") from None
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:200]
        raise FileFormatError(
            f"{p}: not a vhuman prediction model (loading without code execution failed: {reason})"
        ) from None
    if not isinstance(data, dict) or data.get("format") != MODEL_FORMAT:
        raise FileFormatError(
            f"{p}: not a vhuman prediction model (format {MODEL_FORMAT} expected)"
        )
    return data


def load_model(path: PathLike) -> tuple[MotionPredictor, ModelInfo]:
    """Read a model written by :func:`save_model` (or a checkpoint) without executing code.

    Raises
    ------
    InputError
        If the file cannot be read; FileFormatError if it is not such a model.
    """
    data = _read(path)
    try:
        model, info = _model_from_config(json.loads(data["config"]))
        model.load_state_dict(data["state"])
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:
        raise FileFormatError(f"{path}: damaged prediction model ({exc})") from None
    model.eval()
    return model, info


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


def _epoch_order(
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
        starts, last = self.starts[index], self.last[index]
        factor = torch.minimum(factors, (last - starts).double() / (self.length - 1))
        t = starts[:, None] + factor[:, None] * self._steps  # (B, L) frame times
        lo = torch.minimum(t.floor().long(), last[:, None])
        hi = torch.minimum(lo + 1, last[:, None])
        w = (t - lo)[..., None, None]
        q0, q1 = self.rotations[lo], self.rotations[hi]
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

        Parameters
        ----------
        index, factors : Tensor, shape (B,)
            See :meth:`rotations_at`.
        flip, back : Tensor of bool, shape (B,)
            Windows to mirror left/right (needs ``swap``) and to play backwards.
        """
        with torch.no_grad():
            q = self.rotations_at(index, factors)
            if self.swap is not None:
                q = torch.where(flip[:, None, None, None], mirror_rotations(q, self.swap), q)
            q = torch.where(back[:, None, None, None], q.flip(1), q)
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


def _optimizer(model: MotionPredictor, config: TrainConfig) -> torch.optim.Optimizer:
    """Adam, or AdamW with weight decay; the fused implementation (one kernel for all the
    parameters, on the CPU and the GPU alike), the same update up to rounding."""
    if not config.weight_decay:
        return torch.optim.Adam(model.parameters(), lr=config.learning_rate, fused=True)
    params = list(model.parameters())
    groups = [
        {"params": [p for p in params if p.ndim >= 2], "weight_decay": config.weight_decay},
        {"params": [p for p in params if p.ndim < 2], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(groups, lr=config.learning_rate, fused=True)


def _ema_update(ema: dict[str, torch.Tensor], state: dict[str, torch.Tensor], decay: float) -> None:
    """``ema ← ema + (1 − decay)(state − ema)`` for the floating-point entries, in one
    multi-tensor operation; other entries copied."""
    with torch.no_grad():
        floats = [k for k, v in state.items() if v.is_floating_point()]
        torch._foreach_lerp_([ema[k] for k in floats], [state[k] for k in floats], 1.0 - decay)
        for k, v in state.items():
            if not v.is_floating_point():
                ema[k].copy_(v)


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
        Continue from ``checkpoint`` if it exists (same configuration required).
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
        checkpoint of another configuration.
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
        sequences.skeleton.names, sequences.sample_fps, PROTOCOL_FPS, sequences.source,
        {**asdict(config), "epochs_done": 0},
    )  # fmt: skip
    opt = _optimizer(model, config)
    ema = {k: v.detach().clone() for k, v in model.state_dict().items()} if config.ema else None
    swap = mirror_joints(sequences.skeleton) if config.mirror else None
    history: list[float] = []
    start = 0
    if resume and checkpoint.is_file():
        data = _read(checkpoint)
        if json.loads(data["train"]) != asdict(config):
            raise InputError(
                f"{checkpoint}: checkpoint of another training configuration; "
                "delete it or train without --resume"
            )
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
            torch.from_numpy(x).to(device) for x in _epoch_order(len(windows), config, epoch)
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
                _ema_update(ema, state, min(config.ema, (1 + step) / (10 + step)))
            loss_sum += loss.detach()
            if progress is not None and ((step + 1) % progress_every == 0 or b == steps_done - 1):
                progress(step + 1, total, loss.item())  # the only host read within an epoch
        history.append(loss_sum.item() / steps_done)
        payload = {
            "format": MODEL_FORMAT,
            "config": json.dumps(_config_of(model, info)),
            "train": json.dumps(asdict(config)),
            "state": {k: v.detach().cpu() for k, v in model.state_dict().items()},
            "optimizer": opt.state_dict(),
            **({} if ema is None else {"ema": {k: v.detach().cpu() for k, v in ema.items()}}),
            "epoch": epoch + 1,
            "history": json.dumps(history),
        }
        atomic_write(checkpoint, _serialized(payload))
    model.eval()
    if ema is not None:
        model.load_state_dict(ema)
    info = ModelInfo(
        info.joint_names, info.sample_fps, info.label_fps, info.data,
        {**asdict(config), "epochs_done": len(history)},
    )  # fmt: skip
    save_model(model.cpu(), info, output)
    return model, info, history
