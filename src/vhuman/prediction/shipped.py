"""The prediction models shipped with vhuman, trained on the CMU files."""

from __future__ import annotations

from pathlib import Path

from vhuman.data import shipped_path
from vhuman.errors import InputError
from vhuman.prediction.models import ModelKind, canonical_kind

__all__ = ["SHIPPED_MODELS", "default_model_path"]

SHIPPED_MODELS = {
    ModelKind.LIE_TRANSFORMER: "prediction_lie_transformer.pt",
    ModelKind.SIMLPE: "prediction_simlpe.pt",
}
"""Model kind → its shipped file in ``vhuman/data/models`` (see the README there)."""


def default_model_path(kind: ModelKind | str = ModelKind.LIE_TRANSFORMER) -> Path:
    """The shipped model file of ``kind``.

    Parameters
    ----------
    kind : {"lie-transformer", "simlpe"}
        The model kind (``"seed"``: a former spelling of ``"lie-transformer"``).

    Returns
    -------
    Path
        The file, read by `vhuman.prediction.load_model`.

    Raises
    ------
    InputError
        For a kind with no shipped model (the message lists those shipped).
    """
    name = SHIPPED_MODELS.get(canonical_kind(kind))
    if name is None:
        raise InputError(
            f"no shipped model of kind {str(kind)!r}; shipped: {', '.join(SHIPPED_MODELS)}"
        )
    return shipped_path("models", name)
