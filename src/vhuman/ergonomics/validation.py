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

__all__ = ["FACTOR_SCORES", "CaseCheck", "check_case", "published_cases"]

METHODS: tuple[str, str] = ("reba", "rula")


@dataclass(frozen=True)
class CaseCheck:
    """One published case scored by vhuman: what was expected, what came out, agreement.

    ``independent`` is true for a worked example scored by someone else;
    ``example`` names the worked example (one posture of one source) the case
    checks, shared by the cases that check parts of the same posture. Where the
    source printed a score that its method's own wording does not allow,
    ``published`` holds what it printed, ``expected`` the score by that wording and
    ``note`` the wording that resolves it.
    """

    method: str
    id: str
    source: str
    expected: dict[str, Any]
    got: dict[str, Any]
    independent: bool
    published: dict[str, Any] | None = None
    note: str = ""
    example: str = ""

    @property
    def agrees(self) -> bool:
        """Every expected score equals vhuman's."""
        return self.expected == self.got

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "method": self.method,
            "id": self.id,
            "source": self.source,
            "independent": self.independent,
            "example": self.example or self.id,
            "expected": self.expected,
            "got": self.got,
            "agrees": self.agrees,
            "published": self.published,
            "note": self.note,
        }


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


#: Non-posture scores a ``tables`` case may give, with their published ranges: REBA load/force
#: 0-3 (0-2 plus 1 for shock), coupling 0-3 and activity 0-3 (Hignett & McAtamney 2000,
#: Tables 3 and 5); RULA muscle use 0-1 and force/load 0-3 for group A (arm and wrist) and
#: group B (neck, trunk, legs) (McAtamney & Corlett 1993, Figure 3).
FACTOR_SCORES: dict[str, dict[str, int]] = {
    "reba": {"load": 3, "coupling": 3, "activity": 3},
    "rula": {"muscle_use_a": 1, "force_a": 3, "muscle_use_b": 1, "force_b": 3},
}


#: Body-part scores a ``tables`` case gives, adjustments included.
BODY_PARTS: dict[str, tuple[str, ...]] = {
    "reba": ("trunk", "neck", "legs", "upper_arm", "lower_arm", "wrist"),
    "rula": ("upper_arm", "lower_arm", "wrist", "wrist_twist", "neck", "trunk", "legs"),
}


def _factor_scores(method: str, case: dict[str, Any]) -> dict[str, int]:
    """The case's non-posture scores (missing ones 0), or `InputError` naming the bad one."""
    given = dict(case.get("factor_scores", {}))
    allowed = FACTOR_SCORES[method]
    unknown = sorted(set(given) - set(allowed))
    if unknown:
        raise InputError(
            f"case {case['id']}: unknown factor scores {unknown}; allowed: {sorted(allowed)}"
        )
    out = {}
    for name, top in allowed.items():
        v = given.get(name, 0)
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= top:
            raise InputError(f"case {case['id']}: {name} must be a whole score 0-{top}, got {v!r}")
        out[name] = v
    return out


@dataclass(frozen=True)
class _Half:
    """One half of a worksheet: body parts → posture table → the score entering Table C."""

    parts: tuple[str, ...]
    table: str
    score: str
    factors: tuple[str, ...]


#: The two halves of each worksheet: REBA group A (Table A + load = score A) and group B
#: (Table B + coupling = score B) (Hignett & McAtamney 2000); RULA group A (Table A + muscle
#: use + force = score C) and group B (Table B + muscle use + force = score D) (McAtamney &
#: Corlett 1993, Figure 3).
HALVES: dict[str, tuple[_Half, _Half]] = {
    "reba": (
        _Half(("trunk", "neck", "legs"), "table_a", "score_a", ("load",)),
        _Half(("upper_arm", "lower_arm", "wrist"), "table_b", "score_b", ("coupling",)),
    ),
    "rula": (
        _Half(
            ("upper_arm", "lower_arm", "wrist", "wrist_twist"),
            "table_a",
            "score_c",
            ("muscle_use_a", "force_a"),
        ),
        _Half(("neck", "trunk", "legs"), "table_b", "score_d", ("muscle_use_b", "force_b")),
    ),
}

_TABLES = {
    ("reba", "table_a"): reba_table_a,
    ("reba", "table_b"): reba_table_b,
    ("rula", "table_a"): rula_table_a,
    ("rula", "table_b"): rula_table_b,
}


def _tables(method: str, case: dict[str, Any]) -> dict[str, int]:
    """Every worksheet score the case's scores lead to, through the published tables.

    Each half of the worksheet starts from its body-part scores (adjustments
    included), from its posture-table score (``table_a`` / ``table_b``) or
    from the score entering Table C (REBA ``score_a`` / ``score_b``, RULA
    ``score_c`` / ``score_d``), whichever the source gives; a score the source
    prints is taken as given. A case may give one half only (a source that
    prints one group); Table C and the final score need both.

    Returns
    -------
    dict
        The scores computed here (never the given ones), by name.
    """
    s, f = dict(case["scores"]), _factor_scores(method, case)
    given = set(s)
    out: dict[str, int] = {}
    halves = HALVES[method]
    names = {n for h in halves for n in (*h.parts, h.table, h.score)}
    if given - names:
        raise InputError(
            f"case {case['id']}: unknown scores {sorted(given - names)}; allowed: {sorted(names)}"
        )
    partial = [h for h in halves if 0 < len(given & set(h.parts)) < len(h.parts)]
    resolved = [h for h in halves if set(h.parts) <= given or {h.table, h.score} & given]
    if partial or not resolved:
        parts, final = BODY_PARTS[method], [h.score for h in halves]
        raise InputError(
            f"case {case['id']}: scores lack {sorted(set(parts) - given)}; give all of "
            f"{list(parts)}, or table_a and table_b, or {final} (or one group of them)"
        )
    for h in resolved:
        if set(h.parts) <= given and h.table not in given:
            s[h.table] = out[h.table] = int(_TABLES[method, h.table](*(s[p] for p in h.parts)))
        if h.score not in given:
            s[h.score] = out[h.score] = s[h.table] + sum(f[k] for k in h.factors)
    if len(resolved) < 2:
        return out
    a, b = (s[h.score] for h in halves)
    if method == "reba":
        c = int(reba_table_c(a, b))
        return {**out, "table_c": c, "score": c + f["activity"]}
    grand = int(rula_table_c(a, b))
    return {**out, "table_c": grand, "score": grand}


def check_case(method: str, case: dict[str, Any]) -> CaseCheck:
    """Score one case with vhuman's public API and compare with the published scores.

    ``kind: angles`` cases go through :meth:`BodyAngles.from_degrees`,
    :class:`WorkFactors` and :func:`assess_reba` / :func:`assess_rula`;
    ``kind: tables`` cases take the body-part scores (adjustments included)
    and the factor scores of :data:`FACTOR_SCORES` through the tables to the
    final score. A per-side result is compared as one value when both sides
    agree.

    Raises
    ------
    InputError
        For an unknown method, kind, expected score name or factor score, or
        a score out of its published range.
    """
    if method not in METHODS:
        raise InputError(f"method must be one of {METHODS}, got {method!r}")
    expected = dict(case["expect"])
    if case["kind"] == "tables":
        out = _tables(method, case)
        beyond = [k for k in expected if k not in out]
        if beyond:
            raise InputError(
                f"case {case['id']}: {beyond} are not computed from the given scores "
                f"{sorted(case['scores'])}; expect only scores the tables lead to"
            )
    elif case["kind"] == "angles":
        angles = BodyAngles.from_degrees(**case["angles"])
        factors = WorkFactors.from_mapping(case.get("factors", {}), source=case["id"])
        result = (
            assess_reba(angles, factors.reba())
            if method == "reba"
            else assess_rula(angles, factors.rula())
        )
        out = {k: _value(getattr(result, k)) for k in expected if hasattr(result, k)}
    else:
        raise InputError(f"case {case['id']}: kind must be 'angles' or 'tables'")
    unknown = [k for k in expected if k not in out]
    if unknown:
        raise InputError(f"case {case['id']}: unknown scores {unknown}")
    got = {k: out[k] for k in expected}
    independent = case.get("independent")
    if not isinstance(independent, bool):
        raise InputError(f"case {case['id']}: independent must be true or false")
    example = case.get("example", case["id"])
    if not isinstance(example, str) or not example.strip():
        raise InputError(
            f"case {case['id']}: example must name the worked example, got {example!r}"
        )
    published, note = case.get("published"), str(case.get("note", "")).strip()
    if published is not None and not note:
        raise InputError(
            f"case {case['id']}: a 'published' value differing from 'expect' needs a 'note' "
            "citing the wording that resolves it"
        )
    return CaseCheck(
        method,
        case["id"],
        case["source"],
        expected,
        got,
        independent,
        None if published is None else dict(published),
        note,
        example,
    )
