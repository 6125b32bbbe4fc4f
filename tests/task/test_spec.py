"""Task files: the built-ins parse; malformed files fail with one line naming FILE:LINE: field."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from vhuman.errors import FileFormatError, InputError
from vhuman.task import STEP_KINDS, builtin_tasks, load_task, parse_task

GOOD = """\
name: t
scene: ship-valve
worker: p50-female
start: {position: [-0.5, 0.0], heading: 90}
steps:
  - walk_to: {position: [-0.6, 0.3], heading: 0}
  - posture: {}
  - reach: {duration: 0.5}
  - turn: {centre: [0.6, 0, 0.55], axis: [2, 0, 0], radius: 0.11, angle: 45}
  - hold: {seconds: 1}
  - stand_up: {}
"""


def test_builtin_tasks_parse() -> None:
    names = builtin_tasks()
    assert {"ship-valve", "pipe-alley"} <= set(names)
    for name in names:
        spec = load_task(name)
        assert spec.steps[0].kind == "walk_to"
        assert Path(spec.scene).is_file()


def test_fields_are_read_in_si_units() -> None:
    spec = parse_task(GOOD, source="t.yaml")
    assert [s.kind for s in spec.steps] == list(STEP_KINDS)
    assert math.isclose(spec.start_heading, math.pi / 2)
    turn = spec.steps[3]
    assert math.isclose(turn.angle, math.pi / 4)
    assert turn.axis.tolist() == [1.0, 0.0, 0.0]  # normalised
    assert spec.steps[0].line == 6


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("  - hold: {seconds: 1}", "  - hold: {secs: 1}", "t.yaml:10: steps[4].hold.secs: unknown"),
        ("  - hold: {seconds: 1}", "  - jump: {}", "t.yaml:10: steps[4].jump: unknown step"),
        ("radius: 0.11", "radius: -1", "t.yaml:9: steps[3].turn.radius: expected a number"),
        ("worker: p50-female", "worker: giant", "t.yaml:3: worker: unknown worker"),
        ("heading: 90}", "heading: .nan}", "t.yaml:4: start.heading: expected a number"),
        ("  - posture: {}\n", "", "steps[1].reach: reach is done in a posture"),
        (
            "  - stand_up: {}\n",
            "  - stand_up: {}\n  - stand_up: {}\n",
            "steps[6].stand_up: stand_up is done in a posture",
        ),
        ("steps:", "stepz:", "t.yaml:5: stepz: unknown field"),
        ("name: t\n", "name: [t\n", "t.yaml:2: not valid YAML"),
    ],
)
def test_bad_fields_fail_with_file_line_and_field(old: str, new: str, message: str) -> None:
    assert old in GOOD
    with pytest.raises(FileFormatError) as err:
        parse_task(GOOD.replace(old, new), source="t.yaml")
    text = str(err.value)
    assert message in text
    assert "\n" not in text


def test_empty_file_and_unknown_name() -> None:
    with pytest.raises(FileFormatError, match=r"t\.yaml:1: .*empty"):
        parse_task("", source="t.yaml")
    with pytest.raises(InputError, match=r"built-in tasks: .*ship-valve"):
        load_task("no-such-task")


def test_absurd_length_is_refused_up_front() -> None:
    text = GOOD + "".join("  - hold: {seconds: 600}\n" for _ in range(20))
    with pytest.raises(FileFormatError, match=r"t\.yaml:5: steps: holds and durations add up"):
        parse_task(text, source="t.yaml")
