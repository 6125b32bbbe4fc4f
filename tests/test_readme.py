"""Every console example of the README runs as written and prints what the README shows.

Each ```console block is run in a fresh folder (commands in order, so a block
can use the files its earlier commands wrote), through bash with the
environment the README describes: the virtual environment at ``.venv`` and
``VHUMAN_CMU_DATA`` pointing at the CMU data. Every shown output line must
appear in the real output in the same order with the same words, and its
numbers must agree within 2 % or one unit of the last digit shown (timings
excepted: their words are checked). Commands whose full run takes minutes
are run with a smaller budget from :data:`SHORTENED`, which names the options
replaced, so a renamed option still fails here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
README = REPO_ROOT / "README.md"
SHARED_CMU = REPO_ROOT.parent / "shared" / "data" / "cmu_mocap"

SHORTENED: dict[str, tuple[dict[str, str], str]] = {
    "vhuman swivel train": ({"--epochs 150": "--epochs 2"}, "150 epochs take minutes"),
    "vhuman predict train": (
        {"--steps 9000": "--steps 3"},
        "9,000 steps take 15 minutes on one thread",
    ),
    "vhuman physics optimize": (
        {
            "--generations 30": "--generations 1",
            "--population 12": "--population 4",
            "--target-cycles 20": "--target-cycles 1",
        },
        "30 generations of 12 walkers take many minutes",
    ),
}
"""Command prefix → (README text → text run instead, why)."""

TIMING = ("frames/s", "real time", "time s", "0:00:", "ms/seq", "ms / seq", "generation ")
"""Words of output lines whose numbers are timings: their words are checked, not numbers."""

_BOX = re.compile(r"[│┃┏┓┗┛┡┩└┘┌┐├┤┬┴┼━─╇╈╋┳┻═║╭╮╰╯]")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])")


@dataclass(frozen=True)
class Example:
    """One ``$ command`` of a console block and the output lines shown under it."""

    line: int
    command: str
    shown: tuple[str, ...]


def console_blocks(text: str) -> list[tuple[int, list[Example]]]:
    """The README's console blocks: (line number, examples in order)."""
    blocks: list[tuple[int, list[Example]]] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() != "```console":
            i += 1
            continue
        start, i = i + 1, i + 1
        examples: list[Example] = []
        command: list[str] = []
        shown: list[str] = []
        at = start
        while i < len(lines) and lines[i].strip() != "```":
            line = lines[i]
            if line.startswith("$ ") or (command and command[-1].endswith("\\")):
                if line.startswith("$ ") and command and not command[-1].endswith("\\"):
                    examples.append(Example(at, "\n".join(command), tuple(shown)))
                    command, shown = [], []
                if line.startswith("$ "):
                    at = i + 1
                command.append(line[2:] if line.startswith("$ ") else line)
            else:
                shown.append(line)
            i += 1
        if command:
            examples.append(Example(at, "\n".join(command), tuple(shown)))
        blocks.append((start, examples))
        i += 1
    return blocks


def _shape(line: str) -> tuple[str, list[float]]:
    """A line's words with numbers replaced by ``#``, and the numbers."""
    flat = " ".join(_BOX.sub(" ", line).split())
    numbers = [float(m.replace(",", "")) for m in _NUMBER.findall(flat)]
    return _NUMBER.sub("#", flat), numbers


def _decimals(line: str) -> list[int]:
    flat = " ".join(_BOX.sub(" ", line).split())
    return [len(m.split(".")[1].split("e")[0]) if "." in m else 0 for m in _NUMBER.findall(flat)]


def compare_output(shown: tuple[str, ...], actual: str) -> list[str]:
    """Differences between the shown lines and the real output (empty: they agree)."""
    real = [_shape(line) for line in actual.splitlines()]
    problems: list[str] = []
    at = 0
    for line in shown:
        shape, numbers = _shape(line)
        if not re.search(r"[A-Za-z0-9]", shape) or shape == "...":
            continue
        found = next((k for k in range(at, len(real)) if real[k][0] == shape), None)
        if found is None:
            problems.append(f"not in the output: {line.strip()!r}")
            continue
        at = found + 1
        if any(word in line for word in TIMING):
            continue
        for want, got, places in zip(numbers, real[found][1], _decimals(line), strict=True):
            if abs(want - got) > max(0.02 * abs(want), 1.5 * 10.0**-places):
                problems.append(f"{line.strip()!r}: {want:g} shown, {got:g} printed")
    return problems


def _prepared(command: str) -> tuple[str, str | None]:
    """The command to run (budget shortened where listed) and the reason, if shortened."""
    for prefix, (replace, reason) in SHORTENED.items():
        if command.startswith(prefix):
            for old, new in replace.items():
                assert old in command, f"the README's {prefix!r} no longer has {old!r}"
                command = command.replace(old, new)
            return command, reason
    return command, None


BLOCKS = console_blocks(README.read_text(encoding="utf-8"))


def test_the_readme_has_console_examples_of_every_engine() -> None:
    commands = [e.command for _, examples in BLOCKS for e in examples]
    for name in ("demo", "walk", "reach", "posture", "physics", "predict", "swivel", "convert"):
        assert any(c.startswith(f"vhuman {name}") for c in commands), name
    assert all(c.startswith("vhuman ") for c in commands), commands


def test_compare_output_catches_a_changed_figure_and_a_missing_line() -> None:
    shown = ("│ step length │ 0.700 m (asked 0.7) │", "│ generation │ 13,752 frames/s │")
    assert compare_output(
        shown, "│ step length │ 0.720 m (asked 0.7) │\n│ generation │ 9 frames/s │"
    )
    assert not compare_output(
        shown, "│ step length │ 0.7004 m (asked 0.7) │\n│ generation │ 9 frames/s │"
    )
    assert compare_output(
        shown, "│ step length │ 0.800 m (asked 0.7) │\n│ generation │ 9 frames/s │"
    )
    assert compare_output(shown, "│ generation │ 9 frames/s │")


@pytest.mark.parametrize(("start", "examples"), BLOCKS, ids=[f"README line {s}" for s, _ in BLOCKS])
def test_console_block_runs_as_shown(start: int, examples: list[Example], tmp_path: Path) -> None:
    if any("VHUMAN_CMU_DATA" in e.command for e in examples) and not SHARED_CMU.is_dir():
        pytest.skip(f"needs the CMU data that VHUMAN_CMU_DATA names; {SHARED_CMU} is missing")
    if any("pybullet_data" in e.command for e in examples):
        pytest.importorskip("pybullet_data", reason="needs pybullet's data (vhuman[data])")
    venv = Path(sys.prefix)
    (tmp_path / ".venv").symlink_to(venv, target_is_directory=True)
    env = {
        **os.environ,
        "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "VHUMAN_CMU_DATA": str(SHARED_CMU),
        "COLUMNS": "80",
        "TERM": "dumb",
    }
    problems: list[str] = []
    for example in examples:
        command, shortened = _prepared(example.command)
        run = subprocess.run(
            ["bash", "-c", command],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        output = run.stdout + run.stderr
        expects_error = any(line.startswith("error:") for line in example.shown)
        where = f"README line {example.line}: {example.command.splitlines()[0]}"
        if (run.returncode != 0) != expects_error:
            problems.append(f"{where}: exit {run.returncode}\n{output[-3000:]}")
            continue
        if shortened is None:
            problems += [f"{where}: {p}" for p in compare_output(example.shown, output)]
    assert not problems, "\n".join(problems)
