"""What every benchmark script shares: its headline figures and how it is run.

Every script prints, as its last line, one JSON object; its ``"headline"`` entry
lists the figures that matter to a user, each beside the peer or the limit it
is judged against, measured in the same run (:func:`figure`), for
``benchmarks/table.py``. Every script's ``__main__`` block calls :func:`run_script`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from vhuman.errors import InputError

INTERRUPTED_EXIT = 130
"""Exit status after Ctrl-C: 128 + SIGINT, as a shell reports it."""


def run_script(main: Callable[[], None]) -> None:
    """Run a benchmark's ``main``; Ctrl-C and bad input end it with one line, no traceback.

    Ctrl-C (SIGINT) prints ``interrupted`` on stderr and exits 130; an
    :class:`~vhuman.errors.InputError` (e.g. an output folder that is not
    writable, checked before the work) prints its message and exits 2.
    """
    try:
        main()
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(INTERRUPTED_EXIT) from None
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


def figure(
    engine: str,
    name: str,
    value: float,
    unit: str,
    *,
    peer: str | None = None,
    peer_value: float | None = None,
    target: float | None = None,
    higher_is_better: bool = True,
) -> dict[str, Any]:
    """One headline figure.

    Parameters
    ----------
    engine, name : str
        What is measured (``"BVH"``, ``"read 5,000 frames"``).
    value : float
        vhuman's figure, in ``unit``.
    peer, peer_value : str, float, optional
        The named peer (another library, a plain loop, a bound) and its figure
        in the same unit, measured in the same run.
    target : float, optional
        The limit the figure is held to: a ratio to the peer when a peer is
        given (e.g. ``2.0`` for "twice as fast"), else a value in ``unit``.
    higher_is_better : bool
        Whether a larger ``value`` is better (a rate) or worse (a time).

    Returns
    -------
    dict
        The fields above, plus ``ratio`` (how many times better than the peer;
        ``None`` without one) and ``met`` (``None`` without a target).
    """
    ratio = None
    if peer_value is not None and value > 0 and peer_value > 0:
        ratio = value / peer_value if higher_is_better else peer_value / value
    met = None
    if target is not None:
        if ratio is not None:
            met = ratio >= target
        else:
            met = value >= target if higher_is_better else value <= target
    return {
        "engine": engine,
        "figure": name,
        "value": value,
        "unit": unit,
        "peer": peer,
        "peer_value": peer_value,
        "ratio": ratio,
        "target": target,
        "higher_is_better": higher_is_better,
        "met": met,
    }
