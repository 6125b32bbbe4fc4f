"""Turning user errors into one line on stderr and exit status 2."""

from __future__ import annotations

import shlex
import signal
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.markup import escape

# Typer runs on its own copy of click; the running command's context is held there.
from typer._click.globals import get_current_context

from vhuman.errors import InputError

__all__ = ["command_line", "interruptible", "option_spelling", "stderr", "user_errors"]

stderr = Console(stderr=True, highlight=False)


def _command_spellings() -> dict[str, str]:
    """Parameter name → long option spelling of the command being run (empty outside one)."""
    ctx = get_current_context(silent=True)
    if ctx is None:
        return {}
    spellings = {}
    for param in ctx.command.params:
        long = [o for o in param.opts if o.startswith("--")]
        if long and param.name:
            spellings[param.name] = long[0]
    return spellings


def option_spelling(message: str, spellings: Mapping[str, str]) -> str:
    """``message`` with the parameter name it starts with written as its option.

    Library errors name the value they reject (``"step_length must be ..."``);
    at the command line the option is named as typed (``"--step-length"``).

    Parameters
    ----------
    message : str
        An error message.
    spellings : mapping of str to str
        Parameter name (as the message starts) → option spelling.

    Returns
    -------
    str
        The message, its first words replaced when they are a known name.

    Examples
    --------
    >>> option_spelling("leg_ik must be one of analytic, ccd", {"leg_ik": "--leg-ik"})
    '--leg-ik must be one of analytic, ccd'
    """
    for name in sorted(spellings, key=len, reverse=True):
        if message.startswith(f"{name} "):
            return spellings[name] + message[len(name) :]
    return message


@contextmanager
def user_errors(spellings: Mapping[str, str] | None = None) -> Iterator[None]:
    """Report bad input (an `InputError` or an unreadable path) in one line, exit 2.

    Parameters
    ----------
    spellings : mapping of str to str, optional
        Names used by the library's messages that are not a parameter of the
        command (``"turn_rate"``) → the option that sets them (``"--turn"``);
        the command's own parameters are known already.
    """
    try:
        yield
    except InputError as exc:
        names = {**_command_spellings(), **(spellings or {})}
        text = option_spelling(str(exc), names)
        stderr.print(f"[bold red]error:[/] {escape(text)}", soft_wrap=True)
        raise typer.Exit(2) from None
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError) as exc:
        what = exc.strerror or type(exc).__name__
        stderr.print(
            f"[bold red]error:[/] {escape(str(exc.filename))}: {escape(what)}", soft_wrap=True
        )
        raise typer.Exit(2) from None


def command_line(extra: Sequence[str] = ()) -> str:
    """This process's command line as a user would type it, with ``extra`` appended."""
    args = [a for a in sys.argv[1:]] + [a for a in extra if a not in sys.argv[1:]]
    return shlex.join(["vhuman", *args])


@contextmanager
def interruptible(resume: str | None) -> Iterator[None]:
    """Ctrl-C ends a long job with one line saying how to resume it, and exit status 130.

    The job's own checkpoint (written after every epoch or generation) is what
    a resume continues from. A second Ctrl-C while the job winds down stops it
    at once.

    Parameters
    ----------
    resume : str or None
        The command that resumes the job, or None when nothing can be resumed.
    """
    try:
        yield
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        hint = f"resume with: {resume}" if resume else "no checkpoint was kept; it starts over"
        stderr.print(f"interrupted; {escape(hint)}", soft_wrap=True)
        raise typer.Exit(130) from None
