"""Model files that load without executing code.

Files are written with ``torch.save`` and read with ``torch.load(...,
weights_only=True)``: only tensors, numbers, strings, lists and dicts, never
pickled objects. A model file holds ``{"format", "config" (JSON text),
"state"}``; the same weights give the same bytes (the archive is serialised in
memory, so no temporary file name ends up inside it).
"""

from __future__ import annotations

import io
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from vhuman.errors import FileFormatError, InputError
from vhuman.io import atomic_write
from vhuman.io.filesystem import PathLike
from vhuman.prediction.data import PROTOCOL_FPS
from vhuman.prediction.models import MODEL_KINDS, MotionPredictor, canonical_kind

__all__ = [
    "MODEL_FORMAT",
    "ModelInfo",
    "load_model",
    "model_config",
    "read_model_file",
    "save_model",
    "serialized",
]

MODEL_FORMAT = "vhuman.prediction/1"
"""The ``format`` entry of model and checkpoint files."""


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


def model_config(model: MotionPredictor, info: ModelInfo) -> dict[str, Any]:
    """The JSON-ready configuration of ``model`` (kind, skeleton, sizes, options, ``info``)."""
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
    model = MODEL_KINDS[canonical_kind(config["kind"])](
        config["parents"],
        config["offsets"],
        config["position_joints"],
        config["angle_joints"],
        config["n_observed"],
        config["n_future"],
        **config["options"],
    )
    i = config["info"]
    info = ModelInfo(
        tuple(i["joint_names"]), i["sample_fps"], i["label_fps"], i["data"], i["train"]
    )
    return model, info


def save_model(model: MotionPredictor, info: ModelInfo, path: PathLike) -> None:
    """Write ``model`` (weights and configuration) to ``path`` atomically; see the module notes."""
    payload = {
        "format": MODEL_FORMAT,
        "config": json.dumps(model_config(model, info)),
        "state": {k: v.detach().cpu() for k, v in model.state_dict().items()},
    }
    atomic_write(path, serialized(payload))


def serialized(payload: dict[str, Any]) -> bytes:
    """``torch.save`` bytes of ``payload``, the same for the same payload.

    Saved to a file name, torch names the archive's inner folder after it (a
    temporary name here); saved to memory it is always ``archive``.
    """
    buffer = io.BytesIO()
    torch.save(payload, buffer)
    return buffer.getvalue()


def read_model_file(path: PathLike) -> dict[str, Any]:
    """The payload of a model or checkpoint file, read without executing code.

    Raises
    ------
    InputError
        If the file cannot be read; FileFormatError if it is empty or not such a file.
    """
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
    data = read_model_file(path)
    try:
        model, info = _model_from_config(json.loads(data["config"]))
        model.load_state_dict(data["state"])
    except (
        KeyError,
        TypeError,
        ValueError,
        RuntimeError,
        AttributeError,
        IndexError,
        OverflowError,
        MemoryError,
    ) as exc:
        reason = " ".join(str(exc).split()) or type(exc).__name__
        raise FileFormatError(f"{path}: damaged prediction model ({reason[:200]})") from None
    if not all(
        torch.isfinite(v).all() for v in model.state_dict().values() if v.is_floating_point()
    ):
        raise FileFormatError(f"{path}: damaged prediction model (weights not finite)")
    model.eval()
    return model, info
