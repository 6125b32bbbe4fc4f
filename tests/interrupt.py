"""Starting a child process that Ctrl-C reaches as it would in a terminal."""

from __future__ import annotations

import signal


def sigint_as_in_a_terminal() -> None:
    """``preexec_fn`` of a child that a test interrupts with SIGINT.

    A test runner started in the background (``make test &``, a CI step without
    a terminal) ignores SIGINT, its children inherit that, and a Python started
    with SIGINT ignored installs no KeyboardInterrupt handler: the signal would
    not reach the code under test. The child starts with the default action
    instead, as under an interactive shell.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)
