"""Turning user errors into one line on stderr and exit status 2."""

from __future__ import annotations

import shlex
import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.markup import escape

from vhuman.errors import InputError

__all__ = ["command_line", "interruptible", "stderr", "user_errors"]

stderr = Console(stderr=True, highlight=False)


@contextmanager
def user_errors() -> Iterator[None]:
    """Report bad input (an `InputError` or an unreadable path) in one line, exit 2."""
    try:
        yield
    except InputError as exc:
        stderr.print(f"[bold red]error:[/] {escape(str(exc))}", soft_wrap=True)
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
