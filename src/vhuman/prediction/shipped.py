"""Where the prediction models shipped with vhuman lie (package data)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from vhuman.errors import InputError
from vhuman.prediction.models import canonical_kind

__all__ = ["SHIPPED_MODELS", "default_model_path"]

SHIPPED_MODELS = {
    "lie-transformer": "prediction_lie_transformer.pt",
    "simlpe": "prediction_simlpe.pt",
}
"""File name of the shipped model of each kind, under ``vhuman/data/models``."""


def default_model_path(kind: str = "lie-transformer") -> Path:
    """The shipped model of ``kind``, trained on the CMU files (``data/models/README.md``).

    Raises
    ------
    InputError
        If no model of ``kind`` is shipped.
    """
    name = SHIPPED_MODELS.get(canonical_kind(kind))
    if name is None:
        raise InputError(f"no shipped model of kind {kind!r}; shipped: {', '.join(SHIPPED_MODELS)}")
    return Path(str(resources.files("vhuman").joinpath("data", "models", name)))
