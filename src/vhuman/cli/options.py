"""Option spellings shared by every command: old spellings kept as hidden aliases.

The vocabulary (README, "Command-line vocabulary"): ``--model`` is a model
kind, ``--checkpoint`` a model or checkpoint file, ``--jobs``/``-j`` the
parallel worker processes, ``--body`` the body (a percentile of the GB/T 10000
population), ``--seed`` a random seed. A command built with :func:`renamed`
still accepts an option's former spelling for one release: the spelling is
rewritten before parsing, with one note on stderr, and is not shown by
``--help``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from typer.core import TyperCommand

__all__ = ["renamed", "rewrite_spellings"]


def rewrite_spellings(
    args: list[str], aliases: Mapping[str, str]
) -> tuple[list[str], list[tuple[str, str]]]:
    """``args`` with every former option spelling replaced by its current one.

    Parameters
    ----------
    args : list of str
        Command-line arguments of one command (after its name).
    aliases : mapping of str to str
        Former spelling (``"--workers"``) → current spelling (``"--jobs"``).

    Returns
    -------
    args : list of str
        The arguments, ``--old`` and ``--old=VALUE`` rewritten; everything
        after a lone ``--`` is left as it is.
    used : list of (str, str)
        The (former, current) pairs that were found, in order, each once.

    Examples
    --------
    >>> rewrite_spellings(["--workers=4", "-o", "x"], {"--workers": "--jobs"})
    (['--jobs=4', '-o', 'x'], [('--workers', '--jobs')])
    """
    out: list[str] = []
    used: list[tuple[str, str]] = []
    for i, arg in enumerate(args):
        if arg == "--":
            out.extend(args[i:])
            break
        name, eq, value = arg.partition("=")
        new = aliases.get(name)
        if new is None:
            out.append(arg)
            continue
        out.append(f"{new}{eq}{value}")
        if (name, new) not in used:
            used.append((name, new))
    return out, used


def renamed(aliases: Mapping[str, str]) -> type[TyperCommand]:
    """A Typer command class that accepts the former spellings in ``aliases``.

    Pass it as ``cls`` to ``app.command``; each former spelling used prints one
    note on stderr naming the current one.

    Parameters
    ----------
    aliases : mapping of str to str
        Former option spelling → current spelling, both with their dashes.

    Returns
    -------
    type
        A subclass of ``typer.core.TyperCommand``.
    """
    frozen = MappingProxyType(dict(aliases))

    class RenamedCommand(TyperCommand):
        former_spellings = frozen

        def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
            from vhuman.cli.errors import stderr

            args, used = rewrite_spellings(args, frozen)
            for old, new in used:
                stderr.print(f"note: {old} is now {new}; {old} goes in a later release")
            return super().parse_args(ctx, args)

    return RenamedCommand
