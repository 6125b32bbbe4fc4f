"""Many posture tasks (scenes × workers × targets) through an executor: local processes or Dask.

:func:`solve_into` writes a batch into one folder, a case folder per task,
so that a killed batch resumes where it stopped: each case's record
(``case.json``: the task, the settings and the result's figures) is written
after its files, and a case whose record matches its task and settings is not
solved again; the folder's ``manifest.json`` is written last, once every case
is there, and removed when a batch starts, so its presence marks a complete
batch. Every file is written atomically.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vhuman.errors import InputError
from vhuman.executor import make_executor
from vhuman.io import atomic_write
from vhuman.posture.solver import PostureResult, PostureSettings, solve_posture, worker_skeleton
from vhuman.scene import Scene, Target, load_scene

__all__ = [
    "CASE_RECORD",
    "MANIFEST",
    "PostureTask",
    "case_folder",
    "run_task",
    "solve_each",
    "solve_into",
    "solve_many",
]

CASE_RECORD = "case.json"
"""Name of a case's record in its folder, written after the case's files."""
MANIFEST = "manifest.json"
"""Name of a batch folder's manifest, written once every case is complete."""


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
    return list(solve_each(tasks, workers=workers, scheduler=scheduler, settings=settings))


def solve_each(
    tasks: Sequence[PostureTask],
    *,
    workers: int = 2,
    scheduler: str | None = None,
    settings: PostureSettings | None = None,
) -> Iterator[PostureResult | InputError]:
    """The results of :func:`solve_many`, each yielded as soon as it and those before it are
    in (on a Dask cluster, all together at the end).

    Closing the iterator early (an error or Ctrl-C in the caller) cancels the
    tasks not yet started.
    """
    items = list(tasks)
    cfg = [settings] * len(items)
    if int(workers) != workers or workers < 1:
        raise InputError(f"workers must be a positive integer, got {workers}")
    # One task runs here: a process pool would only add its start-up time.
    local = 1 if len(items) <= 1 else workers
    with make_executor(local, scheduler) as executor:
        yield from executor.map(_run_or_error, items, cfg)


def case_folder(output: Path, task: PostureTask) -> Path:
    """The folder of ``task``'s files in the batch folder ``output``: ``<scene>_<worker>``."""
    scene = Path(task.scene).stem if "." in task.scene else task.scene
    return Path(output) / f"{re.sub(r'[^A-Za-z0-9._-]+', '_', scene)}_{task.worker}"


def _case_identity(task: PostureTask, settings: PostureSettings | None) -> dict[str, Any]:
    """What a case's record must match to be reused: the task and the solver settings."""
    settings_dict = dataclasses.asdict(settings or PostureSettings())
    identity = {"task": dataclasses.asdict(task), "settings": settings_dict}
    return json.loads(json.dumps(identity, default=str))


def _finished(folder: Path, identity: dict[str, Any]) -> dict[str, Any] | None:
    """The stored output of a finished case with ``identity`` in ``folder``, else None."""
    with contextlib.suppress(OSError, ValueError, TypeError):
        record = json.loads((folder / CASE_RECORD).read_text())
        if record.get("identity") == identity and isinstance(record.get("output"), dict):
            return record["output"]
    return None


def solve_into(
    tasks: Sequence[PostureTask],
    output: Path,
    write: Callable[[PostureResult, Path], dict[str, str]],
    *,
    workers: int = 2,
    scheduler: str | None = None,
    settings: PostureSettings | None = None,
    on_case: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Solve ``tasks`` into case folders of ``output``, skipping finished cases (module notes).

    Parameters
    ----------
    tasks : sequence of PostureTask
    output : Path
        The batch folder (created if missing).
    write : callable ``(result, folder) -> {file kind: path}``
        Writes one case's files into its folder.
    workers, scheduler, settings
        See :func:`solve_many`.
    on_case : callable ``(complete, total)``, optional
        Called with the count of complete cases when the batch starts (the
        finished ones reused) and after each case.

    Returns
    -------
    list of dict
        Per task, in order, the result's figures (``PostureResult.to_dict``)
        and ``files``; the same list is in the manifest under ``cases``.

    Raises
    ------
    InputError
        For bad input in a task (the cases before it stay finished), an
        unwritable folder, or a bad executor setting.
    """
    output = Path(output)
    identities = [_case_identity(t, settings) for t in tasks]
    folders = [case_folder(output, t) for t in tasks]
    with contextlib.suppress(FileNotFoundError):
        (output / MANIFEST).unlink()
    outputs = [_finished(f, i) for f, i in zip(folders, identities, strict=True)]
    todo = [k for k, o in enumerate(outputs) if o is None]
    if on_case is not None:
        on_case(len(tasks) - len(todo), len(tasks))
    solved = solve_each(
        [tasks[k] for k in todo], workers=workers, scheduler=scheduler, settings=settings
    )
    with contextlib.closing(solved):
        for k, result in zip(todo, solved, strict=True):
            if isinstance(result, InputError):
                raise result
            files = write(result, folders[k])
            outputs[k] = {**result.to_dict(), "files": files}
            record = {"identity": identities[k], "output": outputs[k]}
            atomic_write(folders[k] / CASE_RECORD, json.dumps(record, indent=1) + "\n")
            if on_case is not None:
                on_case(sum(o is not None for o in outputs), len(tasks))
    done = [o for o in outputs if o is not None]
    atomic_write(output / MANIFEST, json.dumps({"complete": True, "cases": done}, indent=1) + "\n")
    return done
