"""The prediction models shipped with vhuman, trained on the CMU files."""

from __future__ import annotations

from pathlib import Path

from vhuman.data import shipped_path
from vhuman.errors import InputError

__all__ = ["SHIPPED_MODELS", "default_model_path"]

SHIPPED_MODELS = {"seed": "prediction_seed.pt", "simlpe": "prediction_simlpe.pt"}
"""Model kind → its shipped file in ``vhuman/data/models`` (see the README there)."""


def default_model_path(kind: str = "seed") -> Path:
    """The shipped model file of ``kind``.

    Parameters
    ----------
    kind : {"seed", "simlpe"}
        The model kind.

    Returns
    -------
    Path
        The file, read by `vhuman.prediction.load_model`.

    Raises
    ------
    InputError
        For a kind with no shipped model (the message lists those shipped).
    """
    if kind not in SHIPPED_MODELS:
        raise InputError(f"kind must be one of {sorted(SHIPPED_MODELS)}, got {kind!r}")
    return shipped_path("models", SHIPPED_MODELS[kind])
