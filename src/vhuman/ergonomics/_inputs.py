"""Input checks shared by the REBA and RULA scorers."""

from __future__ import annotations

import enum
from dataclasses import fields
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.ergonomics.angles import BodyAngles, body_angles
from vhuman.ergonomics.body_map import BodyMap
from vhuman.errors import InputError
from vhuman.skeleton.motion import Motion

_MAX_LOAD_KG = 1e6  # heavier loads are a damaged input, not a task

__all__ = ["as_angles", "check_conditions", "check_flag", "check_load", "table_index"]


def check_flag(owner: str, name: str, value: object) -> None:
    """Raise `InputError` unless ``value`` is a bool (``owner.name`` names it)."""
    if not isinstance(value, (bool, np.bool_)):
        raise InputError(f"{owner}.{name} must be True or False, got {value!r}")


def check_load(owner: str, load_kg: object) -> float:
    """``load_kg`` as a float, or `InputError` unless it is a finite mass >= 0 [kg]."""
    if isinstance(load_kg, (bool, np.bool_)) or not isinstance(load_kg, (int, float)):
        raise InputError(f"{owner}.load_kg must be a number of kilograms, got {load_kg!r}")
    if not (0.0 <= load_kg < np.inf):  # NaN fails too; compared exactly, however large
        raise InputError(f"{owner}.load_kg must be a finite mass >= 0 kg, got {load_kg}")
    if load_kg > _MAX_LOAD_KG:
        raise InputError(f"{owner}.load_kg must be at most {_MAX_LOAD_KG:g} kg")
    return float(load_kg)


def check_conditions(
    conditions: Any, choice: str, kind: type[enum.Enum], allowed: str, optional: str
) -> None:
    """Check a frozen conditions dataclass in place: ``load_kg``, one enum field, the flags.

    ``choice`` is converted to ``kind`` (``allowed`` lists its values in the error);
    every other field but ``load_kg`` must be a bool, ``optional`` may also be None.
    """
    owner = type(conditions).__name__
    object.__setattr__(conditions, "load_kg", check_load(owner, conditions.load_kg))
    raw = getattr(conditions, choice)
    try:
        object.__setattr__(conditions, choice, kind(raw))
    except ValueError:
        raise InputError(f"{owner}.{choice} must be one of {allowed}, got {raw!r}") from None
    for f in fields(conditions):
        value = getattr(conditions, f.name)
        if f.name in ("load_kg", choice) or (f.name == optional and value is None):
            continue
        check_flag(owner, f.name, value)


def table_index(value: ArrayLike, name: str, top: int) -> NDArray[np.intp]:
    """Zero-based table rows of whole scores 1..``top``, or `InputError` naming ``name``."""
    v = np.asarray(value)
    if not np.issubdtype(v.dtype, np.integer) and (
        not np.all(np.isfinite(v)) or np.any(v != np.round(v))
    ):
        raise InputError(f"{name} must be whole scores 1–{top}, got {value!r}")
    v = v.astype(np.intp)
    if np.any((v < 1) | (v > top)):
        raise InputError(f"{name} must be between 1 and {top}, got {value!r}")
    return v - 1


def as_angles(pose: BodyAngles | Motion, body_map: BodyMap | None) -> BodyAngles:
    """``pose`` itself if `BodyAngles`, else the angles measured on the `Motion`."""
    if isinstance(pose, BodyAngles):
        return pose
    if isinstance(pose, Motion):
        return body_angles(pose, body_map=body_map)
    raise InputError(f"pose must be a Motion or BodyAngles, got {type(pose).__name__}")
