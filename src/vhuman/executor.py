"""Executors for many independent jobs: in this process, local processes, or a Dask cluster.

Simulations (`vhuman.control`) and posture tasks (`vhuman.posture`) are
independent of each other; both map a function over their jobs with an
executor from :func:`make_executor`, whose ``map`` returns results in order.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from typing import Any, Protocol

from vhuman.errors import InputError

__all__ = [
    "DaskExecutor",
    "MapExecutor",
    "SerialExecutor",
    "die_with_parent",
    "make_executor",
    "start_worker",
]


class MapExecutor(Protocol):
    """Anything with an ordered ``map(fn, *iterables)``."""

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any]) -> Iterable[Any]:
        """Results of ``fn`` over the zipped items, in order."""
        ...


class SerialExecutor:
    """Evaluates in this process, in order."""

    def map(self, fn: Callable[..., Any], *iterables: Iterable[Any]) -> Iterator[Any]:
        """``fn(*args)`` for each ``args`` of ``zip(*iterables)``, each computed when asked for."""
        return (fn(*args) for args in zip(*iterables, strict=True))


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
    pool = ProcessPoolExecutor(max_workers=int(workers), initializer=start_worker)
    try:
        yield pool
    except BaseException:
        # Interrupted or failed: do not wait for the queued jobs.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def start_worker() -> None:
    """Initializer of every local worker process: it ignores SIGINT and dies with its parent.

    Ctrl-C in a terminal sends SIGINT to the whole foreground process group, the workers
    too; the parent alone handles it (it cancels the queued jobs and says how to resume),
    where each worker would otherwise print its own KeyboardInterrupt traceback.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent()


def die_with_parent() -> None:
    """Ask the kernel to end this process when its parent dies (Linux; elsewhere nothing).

    A worker process whose parent is killed (SIGKILL leaves it no chance to
    clean up) would otherwise live on, idle, re-parented to init. Called
    from every local worker's initializer (:func:`start_worker`); ``prctl(PR_SET_PDEATHSIG,
    SIGKILL)`` is the kernel's own mechanism for this.
    """
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGKILL)
    if os.getppid() == 1:  # the parent died before the call: go now
        os._exit(1)
