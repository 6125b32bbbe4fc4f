"""The engine pages in docs/ cannot drift from the code and the README.

Every ``vhuman ...`` command quoted in a page must exist with every option it
names (checked on the Typer application and by ``--help``), and every figure of
a page's "Figures against the references" section must also appear in
README.md, whose figures the benchmark scripts produce.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.main import get_command
from typer.testing import CliRunner

from vhuman.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ENGINE_PAGES = ("walking", "reaching", "posture", "physics", "prediction", "ergonomics")
FIGURES_HEADING = "## Figures against the references"

_CODE = re.compile(r"`([^`]+)`", re.DOTALL)
_NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?(?![\w])")


def _pages() -> list[Path]:
    return sorted(DOCS.glob("*.md"))


def _commands(text: str) -> list[list[str]]:
    """The token lists of every inline code span that starts with ``vhuman``."""
    spans = (" ".join(m.group(1).split()) for m in _CODE.finditer(text))
    return [span.split()[1:] for span in spans if span.split()[:1] == ["vhuman"]]


def _check_command(tokens: list[str]) -> tuple[list[str], list[str]]:
    """Walk ``tokens`` down the command tree.

    Returns
    -------
    path, problems : the sub-command path found and what in ``tokens`` does not
        exist (an unknown sub-command or option).
    """
    command = get_command(app)
    path: list[str] = []
    problems: list[str] = []
    for token in tokens:
        commands = getattr(command, "commands", None)
        if commands is not None and not token.startswith("-"):
            if token not in commands:
                problems.append(f"no command 'vhuman {' '.join([*path, token])}'")
                break
            command = commands[token]
            path.append(token)
            continue
        if commands is not None:
            problems.append(f"'vhuman {' '.join(path)}' needs a sub-command before {token}")
            break
        if re.match(r"--?[A-Za-z]", token):
            name = token.split("=", 1)[0].rstrip(",")
            names = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
            if name not in names:
                problems.append(f"'vhuman {' '.join(path)}' has no option {name}")
    return path, problems


def test_engine_pages_exist_with_their_sections() -> None:
    for name in ENGINE_PAGES:
        page = DOCS / f"{name}.md"
        assert page.is_file(), f"docs/{name}.md is missing"
        text = page.read_text(encoding="utf-8")
        assert _commands(text), f"docs/{name}.md names no vhuman command"
        if name != "ergonomics":
            for heading in ("## Method and sources", "## Command line", "## API"):
                assert heading in text, f"docs/{name}.md has no '{heading}' section"
            assert FIGURES_HEADING in text, f"docs/{name}.md has no figures section"


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_commands_and_options_in_docs_exist(page: Path) -> None:
    runner = CliRunner()
    problems: list[str] = []
    helped: set[tuple[str, ...]] = set()
    for tokens in _commands(page.read_text(encoding="utf-8")):
        path, found = _check_command(tokens)
        problems += found
        if tuple(path) not in helped:
            helped.add(tuple(path))
            result = runner.invoke(app, [*path, "--help"])
            if result.exit_code != 0:
                problems.append(f"'vhuman {' '.join(path)} --help' exits {result.exit_code}")
    assert not problems, f"{page.name}: " + "; ".join(problems)


def _figures(text: str) -> list[str]:
    """The numbers of the page's figures section (up to the next level-2 heading)."""
    if FIGURES_HEADING not in text:
        return []
    section = text.split(FIGURES_HEADING, 1)[1].split("\n## ", 1)[0]
    return _NUMBER.findall(section)


@pytest.mark.parametrize("page", _pages(), ids=lambda p: p.name)
def test_figures_in_docs_appear_in_readme(page: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [
        figure
        for figure in _figures(page.read_text(encoding="utf-8"))
        if not re.search(rf"(?<![\w.]){re.escape(figure)}(?![\w]|\.\d)", readme)
    ]
    assert not missing, f"{page.name} quotes figures not in README.md: {missing}"


def test_the_checks_catch_drift() -> None:
    assert _check_command(["walk", "--step-length", "0.7"])[1] == []
    assert _check_command(["walk", "--stride", "0.7"])[1]
    assert _check_command(["physics", "simulat"])[1]
    assert _figures(f"{FIGURES_HEADING}\n\nr 0.987, 1,234.5 mm\n\n## Next\n9") == [
        "0.987",
        "1,234.5",
    ]
