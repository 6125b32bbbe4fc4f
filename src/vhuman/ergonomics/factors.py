"""`WorkFactors`: what REBA and RULA need beyond the posture, given once for both methods.

Load, shock, coupling, activity, muscle use, arm and leg support are observed,
not measured on a pose. `WorkFactors` holds them in one place and turns them
into :class:`REBAConditions` and :class:`RULAConditions`; a small YAML (or
JSON) file gives them for a recording, with an optional ``thresholds:`` block
that overrides :class:`PostureThresholds` (angles in degrees, lengths in
metres)::

    load_kg: 7.5
    load_pattern: repeated   # intermittent | static | repeated (RULA)
    shock: false
    coupling: fair           # good | fair | poor | unacceptable (REBA)
    static: true             # a body part held > 1 min
    repeated: false          # small-range actions > 4 per min
    rapid_change: false      # rapid large changes of posture or unstable base (REBA)
    arm_supported: false
    sitting: false
    legs_supported: null     # null: from the measured foot clearance
    thresholds:
      twist: 15              # degrees
      support_height: 0.08   # metres
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from vhuman.ergonomics._inputs import check_flag, check_load
from vhuman.ergonomics._yaml import read_yaml_mapping
from vhuman.ergonomics.reba import Coupling, REBAConditions
from vhuman.ergonomics.rula import LoadPattern, RULAConditions
from vhuman.ergonomics.thresholds import PostureThresholds
from vhuman.errors import InputError

__all__ = ["WorkFactors", "read_factors"]


@dataclass(frozen=True)
class WorkFactors:
    """Non-angle factors of REBA and RULA.

    Parameters
    ----------
    load_kg : float
        Load handled or force exerted, as a mass [kg] (≥ 0); both methods.
    load_pattern : LoadPattern or str
        How the load is applied (RULA force score): intermittent, static or repeated.
    shock : bool
        Shock or a rapid build-up of force (REBA load +1, RULA force 3).
    coupling : Coupling, int or str
        Hand hold quality (REBA): good, fair, poor, unacceptable (0-3).
    static : bool
        One or more body parts held for more than a minute (REBA activity +1,
        RULA muscle use +1).
    repeated : bool
        Small-range actions repeated more than 4 times a minute (REBA activity
        +1, RULA muscle use +1; RULA counts static and repeated once).
    rapid_change : bool
        Rapid large changes of posture or an unstable base (REBA activity +1).
    arm_supported : bool
        Arm supported or person leaning (upper arm −1, both methods).
    sitting : bool
        Seated (REBA legs 1; RULA trunk 1 and legs 1, "sitting and well supported").
    legs_supported : bool, optional
        Both legs bear weight evenly (REBA legs 1 vs 2, RULA legs 1 vs 2);
        None: from the measured foot clearance.
    """

    load_kg: float = 0.0
    load_pattern: LoadPattern = LoadPattern.INTERMITTENT
    shock: bool = False
    coupling: Coupling = Coupling.GOOD
    static: bool = False
    repeated: bool = False
    rapid_change: bool = False
    arm_supported: bool = False
    sitting: bool = False
    legs_supported: bool | None = None

    def __post_init__(self) -> None:
        owner = type(self).__name__
        object.__setattr__(self, "load_kg", check_load(owner, self.load_kg))
        couplings = f"{[c.name.lower() for c in Coupling]} or 0-3"
        try:
            coupling = (
                Coupling[self.coupling.strip().upper()]
                if isinstance(self.coupling, str)
                else Coupling(self.coupling)
            )
        except (KeyError, ValueError):
            raise InputError(
                f"{owner}.coupling must be one of {couplings}, got {self.coupling!r}"
            ) from None
        object.__setattr__(self, "coupling", coupling)
        try:
            object.__setattr__(self, "load_pattern", LoadPattern(self.load_pattern))
        except ValueError:
            raise InputError(
                f"{owner}.load_pattern must be one of {[p.value for p in LoadPattern]}, "
                f"got {self.load_pattern!r}"
            ) from None
        for name in ("shock", "static", "repeated", "rapid_change", "arm_supported", "sitting"):
            check_flag(owner, name, getattr(self, name))
        if self.legs_supported is not None:
            check_flag(owner, "legs_supported", self.legs_supported)

    @classmethod
    def from_mapping(cls, values: dict[str, Any], source: str | None = "factors") -> WorkFactors:
        """Factors from a mapping of field names (as in a YAML file); unknown keys are refused.

        Parameters
        ----------
        values : dict
            Field name → value.
        source : str or None
            Where the values come from (a file name), named first in errors; ``None``
            for values that are not from a file (a bad value is then named alone).

        Raises
        ------
        InputError
            Naming ``source`` and the key for an unknown key or a bad value.
        """
        names = [f.name for f in fields(cls)]
        unknown = sorted(set(values) - set(names))
        if unknown:
            where = f"{source}: " if source else ""
            raise InputError(f"{where}unknown factors {unknown}; allowed: {names}")
        try:
            return cls(**values)
        except InputError as exc:
            if source is None:
                raise
            raise InputError(f"{source}: {exc}") from exc

    def reba(self) -> REBAConditions:
        """The REBA conditions of these factors."""
        return REBAConditions(
            load_kg=self.load_kg,
            shock=self.shock,
            coupling=self.coupling,
            static=self.static,
            repeated=self.repeated,
            rapid_change=self.rapid_change,
            arm_supported=self.arm_supported,
            sitting=self.sitting,
            bilateral_support=self.legs_supported,
        )

    def rula(self) -> RULAConditions:
        """The RULA conditions of these factors."""
        return RULAConditions(
            load_kg=self.load_kg,
            load_pattern=self.load_pattern,
            shock=self.shock,
            static_or_repeated=self.static or self.repeated,
            arm_supported=self.arm_supported,
            seated_supported=self.sitting,
            legs_supported=self.legs_supported,
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (enums by name)."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self)}
        out["coupling"] = self.coupling.name.lower()
        out["load_pattern"] = self.load_pattern.value
        return out


def read_factors(path: str | os.PathLike[str]) -> tuple[dict[str, Any], PostureThresholds]:
    """Read a factors file (YAML or JSON): the factor fields and the thresholds.

    Returns
    -------
    values : dict
        Factor fields found in the file (to merge with command-line values and
        pass to :meth:`WorkFactors.from_mapping`).
    thresholds : PostureThresholds
        Defaults overridden by the file's ``thresholds:`` block (degrees, metres).

    Raises
    ------
    InputError
        For an unreadable or empty file, bad YAML, a top level that is not a
        mapping, or a bad threshold; the message names the file.
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: factors file not found")
    doc = read_yaml_mapping(p, "a factors file", "a mapping of factors")
    values = dict(doc)
    raw = values.pop("thresholds", None) or {}
    if not isinstance(raw, dict) or not all(isinstance(k, str) for k in raw):
        raise InputError(f"{p}: thresholds must be a mapping of name: value")
    try:
        thresholds = PostureThresholds.from_degrees(**raw)
    except InputError as exc:
        raise InputError(f"{p}: thresholds: {exc}") from None
    return values, thresholds
