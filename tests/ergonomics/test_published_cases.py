"""Every shipped published REBA and RULA case agrees with vhuman (see
`vhuman/data/ergonomics/published_cases.yaml` for the sources)."""

from __future__ import annotations

import re

import pytest

from vhuman.data import shipped_path
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


def test_every_case_says_whether_it_is_independent() -> None:
    for cases in published_cases().values():
        for c in cases:
            assert isinstance(c.get("independent"), bool), c["id"]
    case = {**published_cases()["rula"][0]}
    del case["independent"]
    with pytest.raises(InputError, match="independent must be true or false"):
        check_case("rula", case)


def test_a_tables_case_runs_the_worksheet_to_the_final_score() -> None:
    # REBA: trunk 2, neck 1, legs 1 -> Table A 2; upper arm 1, lower arm 1, wrist 1 ->
    # Table B 1; load 2 and coupling 1 give scores A 4 and B 2, Table C 4, activity 1 -> 5.
    reba = {
        "id": "t",
        "kind": "tables",
        "independent": False,
        "source": "HM2000 Tables 1-5",
        "scores": {"trunk": 2, "neck": 1, "legs": 1, "upper_arm": 1, "lower_arm": 1, "wrist": 1},
        "factor_scores": {"load": 2, "coupling": 1, "activity": 1},
        "expect": {
            "table_a": 2,
            "table_b": 1,
            "score_a": 4,
            "score_b": 2,
            "table_c": 4,
            "score": 5,
        },
    }
    check = check_case("reba", reba)
    assert check.agrees, check.to_dict()
    # RULA: score C and score D of 8 and more share the last row and column of Table C.
    rula = {
        "id": "t",
        "kind": "tables",
        "independent": False,
        "source": "MC1993 Figure 3",
        "scores": {
            "upper_arm": 6,
            "lower_arm": 3,
            "wrist": 4,
            "wrist_twist": 2,
            "neck": 6,
            "trunk": 6,
            "legs": 2,
        },
        "factor_scores": {"muscle_use_a": 1, "force_a": 3, "muscle_use_b": 1, "force_b": 3},
        "expect": {"table_a": 9, "table_b": 9, "score_c": 13, "score_d": 13, "score": 7},
    }
    check = check_case("rula", rula)
    assert check.agrees, check.to_dict()


@pytest.mark.parametrize(
    ("factor_scores", "message"),
    [
        ({"load": 4}, "load must be a whole score 0-3"),
        ({"coupling": -1}, "coupling must be a whole score 0-3"),
        ({"activity": 1.5}, "activity must be a whole score 0-3"),
        ({"muscle_use": 1}, "unknown factor scores"),
    ],
)
def test_a_bad_factor_score_is_one_clear_error(factor_scores: dict, message: str) -> None:
    case = {
        "id": "bad",
        "kind": "tables",
        "independent": False,
        "source": "x",
        "scores": {"trunk": 1, "neck": 1, "legs": 1, "upper_arm": 1, "lower_arm": 1, "wrist": 1},
        "factor_scores": factor_scores,
        "expect": {"score": 1},
    }
    with pytest.raises(InputError, match=message):
        check_case("reba", case)


def test_a_published_value_off_the_method_needs_a_note() -> None:
    case = next(c for c in published_cases()["rula"] if c.get("published"))
    check = check_case("rula", case)
    assert check.published != check.expected
    assert check.note
    with pytest.raises(InputError, match="needs a 'note'"):
        check_case("rula", {**case, "note": ""})


def test_a_tables_case_missing_a_body_part_is_one_clear_error() -> None:
    case = {
        "id": "short",
        "kind": "tables",
        "independent": False,
        "source": "x",
        "scores": {"trunk": 1, "neck": 1},
        "expect": {"table_c": 1},
    }
    with pytest.raises(InputError, match=r"scores lack \['legs', 'lower_arm'"):
        check_case("reba", case)


def test_a_tables_case_may_give_one_group_only() -> None:
    # REBA group B alone: upper arm 4, lower arm 2, wrist 1 -> Table B 5; coupling 1 -> score B 6.
    case = {
        "id": "b",
        "kind": "tables",
        "independent": False,
        "source": "HM2000 Table B",
        "scores": {"upper_arm": 4, "lower_arm": 2, "wrist": 1},
        "factor_scores": {"coupling": 1},
        "expect": {"table_b": 5, "score_b": 6},
    }
    check = check_case("reba", case)
    assert check.agrees, check.to_dict()
    with pytest.raises(InputError, match=r"\['table_c'\] are not computed from the given scores"):
        check_case("reba", {**case, "expect": {"table_c": 5}})


def test_a_printed_score_is_taken_as_given_not_checked() -> None:
    # RULA: body parts give Table A 5 and Table B 6; the printed scores C 6 and D 7 enter
    # Table C as given (grand score 7) and are not themselves checked.
    case = {
        "id": "c",
        "kind": "tables",
        "independent": False,
        "source": "MC1993 Tables 1-2",
        "scores": {
            "upper_arm": 4,
            "lower_arm": 3,
            "wrist": 3,
            "wrist_twist": 1,
            "neck": 3,
            "trunk": 4,
            "legs": 2,
            "score_c": 6,
            "score_d": 7,
        },
        "expect": {"table_a": 5, "table_b": 6, "score": 7},
    }
    check = check_case("rula", case)
    assert check.agrees, check.to_dict()
    assert check_case("rula", {**case, "expect": {"score": 6}}).agrees is False
    with pytest.raises(InputError, match=r"\['score_c'\] are not computed"):
        check_case("rula", {**case, "expect": {"score_c": 6}})


def test_an_unknown_score_name_is_one_clear_error() -> None:
    case = {
        "id": "u",
        "kind": "tables",
        "independent": False,
        "source": "x",
        "scores": {"upper_arm": 1, "lower_arm": 1, "wrist": 1, "elbow": 2},
        "expect": {"table_b": 1},
    }
    with pytest.raises(InputError, match=r"unknown scores \['elbow'\]; allowed"):
        check_case("reba", case)


def test_cases_of_one_worked_example_share_its_name() -> None:
    reba = {c["id"]: check_case("reba", c) for c in published_cases()["reba"]}
    assert reba["gallon-pushing"].to_dict()["example"] == "gallon-pushing"
    assert reba["gallon-pushing-table-c"].example == "gallon-pushing"
    assert reba["rs9000-left"].example == reba["rs9000-right"].example
    case = {**published_cases()["rula"][0], "example": ""}
    with pytest.raises(InputError, match="example must name the worked example"):
        check_case("rula", case)


def test_every_independent_case_cites_a_listed_source() -> None:
    text = shipped_path("ergonomics", "published_cases.yaml").read_text(encoding="utf-8")
    listed = {line.split()[1] for line in text.splitlines() if re.match(r"#   [A-Z]", line)}
    for cases in published_cases().values():
        for c in cases:
            if c["independent"]:
                assert c["source"].split()[0] in listed, c["id"]
