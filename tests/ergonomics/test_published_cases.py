"""Every shipped published REBA and RULA case agrees with vhuman (see
`vhuman/data/ergonomics/published_cases.yaml` for the sources)."""

from __future__ import annotations

import pytest

from vhuman.ergonomics.validation import check_case, published_cases
from vhuman.errors import InputError

CASES = [(m, c) for m, cases in published_cases().items() for c in cases]


@pytest.mark.parametrize(("method", "case"), CASES, ids=[f"{m}-{c['id']}" for m, c in CASES])
def test_published_case_agrees(method: str, case: dict) -> None:
    check = check_case(method, case)
    assert check.agrees, check.to_dict()


def test_every_case_names_its_source() -> None:
    for method, cases in published_cases().items():
        assert len({c["id"] for c in cases}) == len(cases), method
        for c in cases:
            assert c["source"].strip(), c["id"]
            assert c["expect"], c["id"]


def test_a_wrong_expectation_disagrees() -> None:
    case = {**published_cases()["rula"][0], "expect": {"upper_arm": 1}}
    check = check_case("rula", case)
    assert not check.agrees
    assert check.got == {"upper_arm": 2}
    with pytest.raises(InputError, match="unknown scores"):
        check_case("reba", {**case, "expect": {"elbow": 1}})
    with pytest.raises(InputError, match="method must be one of"):
        check_case("owas", case)
