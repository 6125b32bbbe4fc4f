"""Executors for many independent jobs: in this process, local processes, or a Dask cluster.

Simulations (`vhuman.control`) and posture tasks (`vhuman.posture`) are
independent of each other; both map a function over their jobs with an
executor from :func:`make_executor`, whose ``map`` returns results in order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, Protocol

from vhuman.errors import InputError

__all__ = ["DaskExecutor", "MapExecutor", "SerialExecutor", "make_executor"]


class MapExecutor(Protocol):
    """Anything with an ordered ``map(fn, *iterables)``."""

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any]) -> Iterable[Any]:
        """Results of ``fn`` over the zipped items, in order."""
        ...


class SerialExecutor:
    """Evaluates in this process, in order."""

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any]) -> list[Any]:
        """``[fn(*args) for args in zip(*iterables)]``."""
        return [fn(*args) for args in zip(*iterables, strict=True)]


class DaskExecutor:
    """Evaluates on a Dask cluster through a ``distributed.Client``; results in order."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any]) -> list[Any]:
        """Submit ``fn`` over the items (each task keyed uniquely) and gather the results."""
        futures = self.client.map(fn, *[list(it) for it in iterables], pure=False)
        return list(self.client.gather(futures))


@contextmanager
def make_executor(workers: int = 1, scheduler: str | None = None) -> Iterator[MapExecutor]:
    """An executor for independent jobs, closed on exit.

    Parameters
    ----------
    workers : int
        Local worker processes (1: evaluate in this process). Ignored with a
        scheduler.
    scheduler : str, optional
        Address of a Dask scheduler (``tcp://host:8786``).

    Raises
    ------
    InputError
        If ``workers`` < 1, or the scheduler cannot be reached or Dask is missing.
    """
    if scheduler is not None:
        try:
            from distributed import Client
        except ImportError:
            raise InputError(
                "--scheduler needs dask[distributed]: pip install 'vhuman[physics]'"
            ) from None
        try:
            client = Client(scheduler, timeout=10)
        except (OSError, TimeoutError, ValueError) as exc:
            raise InputError(f"cannot reach the Dask scheduler {scheduler!r}: {exc}") from None
        try:
            yield DaskExecutor(client)
        finally:
            client.close()
        return
    if int(workers) != workers or workers < 1:
        raise InputError(f"workers must be a positive integer, got {workers}")
    if workers == 1:
        yield SerialExecutor()
        return
    with ProcessPoolExecutor(max_workers=int(workers)) as pool:
        yield pool
