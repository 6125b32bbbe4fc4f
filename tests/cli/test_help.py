"""Every command's help: units survive rich's markup, every option says what it is."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import typer
from rich.text import Text
from typer.testing import CliRunner

from vhuman.cli import app

runner = CliRunner()


def _commands(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    """Every command under ``command`` (typer's own click), depth first."""
    yield path, command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


def _options(command: Any) -> list[Any]:
    return [p for p in command.params if p.param_type_name == "option"]


COMMANDS = list(_commands(typer.main.get_command(app)))


def _ids() -> list[str]:
    return [" ".join(("vhuman", *path)) for path, _ in COMMANDS]


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=_ids())
def test_help_texts_are_not_eaten_by_markup(path: tuple[str, ...], command: Any) -> None:
    texts = [command.help or ""] + [p.help or "" for p in _options(command)]
    for text in texts:
        # Rich reads "[m]" as a style tag and drops it; a help text must render as written.
        assert Text.from_markup(text).plain == text, text


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=_ids())
def test_every_option_is_described(path: tuple[str, ...], command: Any) -> None:
    assert command.help, f"{' '.join(path)} has no description"
    for param in _options(command):
        if param.name != "help":
            assert param.help, f"{' '.join(path)} {param.opts[0]} has no help text"


@pytest.mark.parametrize(("path", "command"), COMMANDS, ids=_ids())
def test_help_runs_and_shows_units(path: tuple[str, ...], command: Any) -> None:
    result = runner.invoke(app, [*path, "--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    assert "Usage" in result.output
    for param in _options(command):
        if param.help and "(m)" in param.help:
            assert "(m)" in result.output


def test_walk_help_names_its_units() -> None:
    out = runner.invoke(app, ["walk", "--help"], terminal_width=100).output
    assert "Step length (m)" in out
    assert "Walking speed (m/s)" in out
