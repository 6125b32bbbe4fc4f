"""Reading the small YAML files of the ergonomics (body maps, work factors)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vhuman.errors import InputError

__all__ = ["MAX_FILE_BYTES", "read_yaml_mapping"]

MAX_FILE_BYTES = 1_000_000
"""Largest YAML file read [bytes]: these files are a few lines long."""


def read_yaml_mapping(path: Path, what: str, expected: str) -> dict[str, Any]:
    """The mapping at the top of YAML file ``path``, or one clear error.

    Parameters
    ----------
    path : Path
        An existing file.
    what : str
        What the file is, for messages ("a body map file").
    expected : str
        What the top level should be, for messages ("a mapping of factors").

    Raises
    ------
    InputError
        For a file over :data:`MAX_FILE_BYTES`, missing pyyaml, invalid YAML or
        UTF-8, or a top level that is not a mapping; the message names the file.
    """
    if path.stat().st_size > MAX_FILE_BYTES:
        raise InputError(f"{path}: {what} larger than {MAX_FILE_BYTES} bytes")
    try:
        import yaml
    except ImportError:  # pragma: no cover - pyyaml ships with the scene extra
        raise InputError(f"reading {what} needs pyyaml: pip install 'vhuman[scene]'") from None
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        reason = (str(exc).splitlines() or [type(exc).__name__])[0]
        raise InputError(f"{path}: not valid YAML ({reason})") from None
    if not isinstance(doc, dict):
        raise InputError(f"{path}: expected {expected}, got {type(doc).__name__}")
    return doc
