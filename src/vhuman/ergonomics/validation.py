"""Published REBA and RULA cases, and vhuman's agreement with them.

The cases ship as package data (``vhuman/data/ergonomics/published_cases.yaml``);
each names its source (paper, worksheet or published scored example), the
published wording it checks, its inputs (angles in degrees as read off a
worksheet, the non-angle factors, or body-part scores for the tables) and the
published scores.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from vhuman.data import shipped_path
from vhuman.ergonomics.angles import BodyAngles
from vhuman.ergonomics.factors import WorkFactors
from vhuman.ergonomics.reba import assess_reba, reba_table_a, reba_table_b, reba_table_c
from vhuman.ergonomics.rula import assess_rula, rula_table_a, rula_table_b, rula_table_c
from vhuman.errors import InputError

__all__ = ["CaseCheck", "check_case", "published_cases"]

METHODS: tuple[str, str] = ("reba", "rula")


@dataclass(frozen=True)
class CaseCheck:
    """One published case scored by vhuman: what was expected, what came out, agreement."""

    method: str
    id: str
    source: str
    expected: dict[str, Any]
    got: dict[str, Any]

    @property
    def agrees(self) -> bool:
        """Every expected score equals vhuman's."""
        return self.expected == self.got

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"method": self.method, "id": self.id, "source": self.source,
                "expected": self.expected, "got": self.got, "agrees": self.agrees}  # fmt: skip


def published_cases() -> dict[str, list[dict[str, Any]]]:
    """The shipped cases by method (``"reba"``, ``"rula"``), as read from the YAML file."""
    import yaml

    path = shipped_path("ergonomics", "published_cases.yaml")
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    return {m: list(doc[m]) for m in METHODS}


def _value(v: Any) -> Any:
    """A score of one pose: a number, or ``[left, right]`` when the sides differ."""
    a = np.asarray(v)
    if a.shape == (2,):
        return a[0].item() if a[0] == a[1] else a.tolist()
    return a.item()


def _tables(method: str, s: dict[str, int]) -> dict[str, int]:
    if method == "reba":
        a = reba_table_a(s["trunk"], s["neck"], s["legs"])
        b = reba_table_b(s["upper_arm"], s["lower_arm"], s["wrist"])
        return {"table_a": int(a), "table_b": int(b), "table_c": int(reba_table_c(a, b))}
    a = rula_table_a(s["upper_arm"], s["lower_arm"], s["wrist"], s["wrist_twist"])
    b = rula_table_b(s["neck"], s["trunk"], s["legs"])
    return {"table_a": int(a), "table_b": int(b), "table_c": int(rula_table_c(a, b))}


def check_case(method: str, case: dict[str, Any]) -> CaseCheck:
    """Score one case with vhuman's public API and compare with the published scores.

    ``kind: angles`` cases go through :meth:`BodyAngles.from_degrees`,
    :class:`WorkFactors` and :func:`assess_reba` / :func:`assess_rula`;
    ``kind: tables`` cases look the body-part scores up in the tables. A
    per-side result is compared as one value when both sides agree.

    Raises
    ------
    InputError
        For an unknown method, kind or expected score name.
    """
    if method not in METHODS:
        raise InputError(f"method must be one of {METHODS}, got {method!r}")
    expected = dict(case["expect"])
    if case["kind"] == "tables":
        out = _tables(method, case["scores"])
    elif case["kind"] == "angles":
        angles = BodyAngles.from_degrees(**case["angles"])
        factors = WorkFactors.from_mapping(case.get("factors", {}), source=case["id"])
        result = (
            assess_reba(angles, factors.reba())
            if method == "reba"
            else assess_rula(angles, factors.rula())
        )
        unknown = [k for k in expected if not hasattr(result, k)]
        if unknown:
            raise InputError(f"case {case['id']}: unknown scores {unknown}")
        out = {k: _value(getattr(result, k)) for k in expected}
    else:
        raise InputError(f"case {case['id']}: kind must be 'angles' or 'tables'")
    got = {k: out[k] for k in expected}
    return CaseCheck(method, case["id"], case["source"], expected, got)
