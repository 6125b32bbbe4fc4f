"""Turning user errors into one line on stderr and exit status 2."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import typer
from rich.console import Console
from rich.markup import escape

from vhuman.errors import InputError

__all__ = ["stderr", "user_errors"]

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
