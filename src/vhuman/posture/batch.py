"""Many posture tasks (scenes × workers × targets) through an executor: local processes or Dask."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from vhuman.errors import InputError
from vhuman.executor import make_executor
from vhuman.posture.solver import PostureResult, PostureSettings, solve_posture, worker_skeleton
from vhuman.scene import Scene, Target, load_scene

__all__ = ["PostureTask", "run_task", "solve_many"]


@dataclass(frozen=True)
class PostureTask:
    """One posture problem.

    Parameters
    ----------
    scene : str
        A built-in scene name or a scene file path.
    worker : str
        See :data:`vhuman.posture.WORKERS` (e.g. ``"p95-male"``).
    seed : int
    target : tuple of 3 floats, optional
        A target position [m] replacing the scene's (same orientation and approach).
    """

    scene: str
    worker: str = "p95-male"
    seed: int = 0
    target: tuple[float, float, float] | None = None

    def load(self) -> Scene:
        """The scene with this task's target.

        Raises
        ------
        InputError
            For an unknown scene, or a target that is not 3 finite numbers or lies
            inside a solid.
        """
        scene = load_scene(self.scene)
        if self.target is None:
            return scene
        t = scene.target
        return dataclasses.replace(
            scene,
            target=Target(
                np.asarray(self.target, dtype=np.float64),
                t.rotation,
                t.approach,
                t.name,
                t.description,
            ),
        )


def run_task(task: PostureTask, settings: PostureSettings | None = None) -> PostureResult:
    """Solve one task.

    Raises
    ------
    InputError
        For an unknown scene or worker, or a bad target.
    """
    return solve_posture(
        task.load(),
        worker_skeleton(task.worker),
        settings=settings,
        seed=task.seed,
        worker=task.worker,
    )


def _run_or_error(
    task: PostureTask, settings: PostureSettings | None
) -> PostureResult | InputError:
    try:
        return run_task(task, settings)
    except InputError as exc:
        return exc


def solve_many(
    tasks: Sequence[PostureTask],
    *,
    workers: int = 2,
    scheduler: str | None = None,
    settings: PostureSettings | None = None,
) -> list[PostureResult | InputError]:
    """Solve every task, in order, in parallel.

    Parameters
    ----------
    tasks : sequence of PostureTask
    workers : int
        Local worker processes (1: in this process); ignored with ``scheduler``.
    scheduler : str, optional
        Address of a Dask scheduler (e.g. ``tcp://10.0.0.5:8786``): the tasks run
        on its cluster (needs ``dask[distributed]``).
    settings : PostureSettings, optional

    Returns
    -------
    list of PostureResult or InputError
        The result of each task, in order; bad input in one task is returned as
        its `InputError` and does not stop the others.

    Raises
    ------
    InputError
        For ``workers`` < 1, or a scheduler that cannot be reached.
    """
    items = list(tasks)
    cfg = [settings] * len(items)
    if int(workers) != workers or workers < 1:
        raise InputError(f"workers must be a positive integer, got {workers}")
    # One task runs here: a process pool would only add its start-up time.
    local = 1 if len(items) <= 1 else workers
    with make_executor(local, scheduler) as executor:
        return list(executor.map(_run_or_error, items, cfg))
