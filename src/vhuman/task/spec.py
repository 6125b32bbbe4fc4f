"""Task files (YAML): a scene, a worker and a list of steps, read into frozen dataclasses.

The format::

    name: ship-valve                  # required, a short name
    description: free text            # optional
    scene: scenes/engine-room.yaml    # built-in scene name, or a scene file relative to this file
    worker: p50-male                  # optional, p<percentile>-<male|female> (default p50-male)
    side: right                       # optional, the working arm (right | left)
    fps: 30                           # optional, frame rate of the motion (10 … 120)
    start: {position: [-2.5, 0.0], heading: 0}   # where the worker stands first [m, deg]
    steps:                            # one single-key mapping per step, in order
      - walk_to: {position: [-0.6, 0.3], heading: 0}   # heading optional [deg]
      - posture: {}                   # target: the scene's, or {position, rpy, approach}
      - reach: {}                     # target: the posture's, or {position, rpy, approach}
      - turn: {centre: [0.6, 0, 0.55], axis: [1, 0, 0], radius: 0.11, angle: 90}
      - hold: {seconds: 2}
      - stand_up: {}
      - walk_to: {position: [-2.5, 0.0], heading: 180}

Optional ``duration`` [s] on ``posture``, ``reach``, ``turn`` and ``stand_up``.
Unknown fields are errors. Every error is one line
``FILE:LINE: field: what is wrong, what is allowed``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from numpy.typing import NDArray

from vhuman.errors import FileFormatError
from vhuman.skeleton import Side

__all__ = [
    "STEP_KINDS",
    "HandTarget",
    "Hold",
    "PostureStep",
    "Reach",
    "StandUp",
    "Step",
    "TaskSpec",
    "Turn",
    "WalkTo",
    "parse_task",
]

STEP_KINDS: tuple[str, ...] = ("walk_to", "posture", "reach", "turn", "hold", "stand_up")
"""Kinds of task steps."""
MAX_STEPS = 100
"""Most steps in a task."""
MAX_SECONDS = 600.0
"""Longest hold or step duration [s]."""
MAX_TIMED_FRAMES = 200_000
"""Most frames the timed steps (holds and durations, walks not counted) may take together."""
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True)
class HandTarget:
    """A hand target frame: position [m], rotation (w, x, y, z) and approach direction."""

    position: NDArray[np.float64]
    rotation: NDArray[np.float64]
    approach: NDArray[np.float64]


@dataclass(frozen=True)
class WalkTo:
    """Walk to a floor position ``(2,)`` [m], then turn to ``heading`` [rad] (None: as the
    path arrives)."""

    position: NDArray[np.float64]
    heading: float | None
    line: int = 0
    kind: str = "walk_to"


@dataclass(frozen=True)
class PostureStep:
    """Get into the library posture that reaches ``target`` (None: the scene's target)."""

    target: HandTarget | None
    duration: float = 2.0
    line: int = 0
    kind: str = "posture"


@dataclass(frozen=True)
class Reach:
    """Move the hand onto ``target`` (None: the posture's target) by minimum jerk."""

    target: HandTarget | None
    duration: float = 1.0
    line: int = 0
    kind: str = "reach"


@dataclass(frozen=True)
class Turn:
    """Turn a handwheel: the hand follows its rim by ``angle`` [rad] about ``axis``.

    ``centre (3,)`` [m], unit ``axis (3,)`` (right-handed: positive angles turn
    anticlockwise seen from its tip), rim ``radius`` [m].
    """

    centre: NDArray[np.float64]
    axis: NDArray[np.float64]
    radius: float
    angle: float
    duration: float = 2.0
    line: int = 0
    kind: str = "turn"


@dataclass(frozen=True)
class Hold:
    """Keep the pose for ``seconds``."""

    seconds: float
    line: int = 0
    kind: str = "hold"


@dataclass(frozen=True)
class StandUp:
    """Get up from the posture into standing."""

    duration: float = 2.0
    line: int = 0
    kind: str = "stand_up"


Step = WalkTo | PostureStep | Reach | Turn | Hold | StandUp


@dataclass(frozen=True)
class TaskSpec:
    """A parsed task file.

    Attributes
    ----------
    name, description : str
    scene : str
        Built-in scene name or a scene file path (resolved against the task file).
    worker : str
        ``p<percentile>-<male|female>``.
    side : Side
        The working arm.
    fps : float
    start_position : ndarray, shape (2,)
        Start on the floor [m].
    start_heading : float
        Start heading [rad] (0 = +x, anticlockwise).
    steps : tuple of Step
    source : str
        The file the task came from (for messages).
    """

    name: str
    description: str
    scene: str
    worker: str
    side: Side
    fps: float
    start_position: NDArray[np.float64]
    start_heading: float
    steps: tuple[Step, ...]
    source: str


def _lines(text: str) -> dict[str, int]:
    """Line (1-based) of every field path of a YAML text, e.g. ``steps[2].turn.axis``."""
    out: dict[str, int] = {}

    def walk(node: yaml.Node, path: str) -> None:
        out.setdefault(path, node.start_mark.line + 1)
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                sub = f"{path}.{key.value}" if path else str(key.value)
                out[sub] = key.start_mark.line + 1
                walk(value, sub)
        elif isinstance(node, yaml.SequenceNode):
            for i, item in enumerate(node.value):
                walk(item, f"{path}[{i}]")

    try:
        root = yaml.compose(text, Loader=_LOADER)
    except yaml.YAMLError:
        return out
    if root is not None:
        walk(root, "")
    return out


class _Reader:
    """Field-by-field validation with one-line ``FILE:LINE: field: problem`` errors."""

    def __init__(self, source: str, lines: dict[str, int]) -> None:
        self.source = source
        self.lines = lines

    def fail(self, path: str, problem: str) -> FileFormatError:
        line = self.lines.get(path)
        while line is None and path:
            path = path.rpartition(".")[0] if "." in path else ""
            line = self.lines.get(path)
        where = f"{self.source}:{line or 1}"
        return FileFormatError(f"{where}: {path or 'task'}: {problem}")

    def mapping(self, value: Any, path: str, allowed: tuple[str, ...]) -> Mapping[str, Any]:
        if value is None:
            value = {}
        if not isinstance(value, Mapping):
            raise self.fail(path, f"expected a mapping of {', '.join(allowed)}, got {value!r}")
        for key in value:
            if key not in allowed:
                raise self.fail(
                    f"{path}.{key}" if path else str(key),
                    f"unknown field; allowed: {', '.join(allowed)}",
                )
        return value

    def number(self, value: Any, path: str, lo: float, hi: float, unit: str) -> float:
        ok = isinstance(value, (int, float)) and not isinstance(value, bool)
        if not ok or not lo <= value <= hi or not math.isfinite(value):
            raise self.fail(path, f"expected a number in [{lo:g}, {hi:g}] {unit}, got {value!r}")
        return float(value)

    def vector(self, value: Any, path: str, n: int, limit: float = 100.0) -> NDArray[np.float64]:
        ok = isinstance(value, list) and len(value) == n
        ok = ok and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
        if not ok or not all(abs(v) <= limit and math.isfinite(v) for v in value):
            raise self.fail(path, f"expected {n} numbers within ±{limit:g} m, got {value!r}")
        return np.array(value, dtype=np.float64)

    def direction(self, value: Any, path: str) -> NDArray[np.float64]:
        v = self.vector(value, path, 3)
        n = float(np.linalg.norm(v))
        if n < 1e-9:
            raise self.fail(path, f"expected a non-zero direction of 3 numbers, got {value!r}")
        return v / n

    def target(self, value: Any, path: str) -> HandTarget | None:
        from vhuman.geometry import euler_to_quat

        if value is None:
            return None
        doc = self.mapping(value, path, ("position", "rpy", "approach"))
        if "position" not in doc:
            raise self.fail(path, "a target needs a position [x, y, z] in m")
        rpy = self.vector(doc.get("rpy", [0, 0, 0]), f"{path}.rpy", 3, limit=360.0)
        rotation = euler_to_quat(np.radians(rpy), "xyz")
        return HandTarget(
            position=self.vector(doc["position"], f"{path}.position", 3),
            rotation=np.asarray(rotation, dtype=np.float64),
            approach=self.direction(doc.get("approach", [1, 0, 0]), f"{path}.approach"),
        )

    def step(self, item: Any, path: str) -> Step:
        if not (isinstance(item, Mapping) and len(item) == 1):
            raise self.fail(
                path,
                f"a step is one mapping `KIND: {{fields}}`, KIND one of "
                f"{', '.join(STEP_KINDS)}; got {item!r}",
            )
        kind, body = next(iter(item.items()))
        if kind not in STEP_KINDS:
            raise self.fail(f"{path}.{kind}", f"unknown step; steps: {', '.join(STEP_KINDS)}")
        at = f"{path}.{kind}"
        line = self.lines.get(at, 0)
        dur = (0.2, MAX_SECONDS, "s")
        if kind == "walk_to":
            doc = self.mapping(body, at, ("position", "heading"))
            if "position" not in doc:
                raise self.fail(at, "walk_to needs a floor position [x, y] in m")
            pos = self.vector(doc["position"], f"{at}.position", 2)
            if "heading" not in doc:
                return WalkTo(pos, None, line)
            heading = self.number(doc["heading"], f"{at}.heading", -360, 360, "deg")
            return WalkTo(pos, math.radians(heading), line)
        if kind == "posture":
            doc = self.mapping(body, at, ("target", "duration"))
            t = self.target(doc.get("target"), f"{at}.target")
            return PostureStep(
                t, self.number(doc.get("duration", 2.0), f"{at}.duration", *dur), line
            )
        if kind == "reach":
            doc = self.mapping(body, at, ("target", "duration"))
            t = self.target(doc.get("target"), f"{at}.target")
            return Reach(t, self.number(doc.get("duration", 1.0), f"{at}.duration", *dur), line)
        if kind == "turn":
            doc = self.mapping(body, at, ("centre", "axis", "radius", "angle", "duration"))
            for need in ("centre", "axis", "radius", "angle"):
                if need not in doc:
                    raise self.fail(at, f"turn needs {need} (centre, axis, radius, angle)")
            return Turn(
                centre=self.vector(doc["centre"], f"{at}.centre", 3),
                axis=self.direction(doc["axis"], f"{at}.axis"),
                radius=self.number(doc["radius"], f"{at}.radius", 0.02, 1.0, "m"),
                angle=math.radians(self.number(doc["angle"], f"{at}.angle", -720, 720, "deg")),
                duration=self.number(doc.get("duration", 2.0), f"{at}.duration", *dur),
                line=line,
            )
        if kind == "hold":
            doc = self.mapping(body, at, ("seconds",))
            if "seconds" not in doc:
                raise self.fail(at, "hold needs seconds")
            return Hold(self.number(doc["seconds"], f"{at}.seconds", 0.0, MAX_SECONDS, "s"), line)
        doc = self.mapping(body, at, ("duration",))
        return StandUp(self.number(doc.get("duration", 2.0), f"{at}.duration", *dur), line)

    def task(self, doc: Any, folder: Path | None) -> TaskSpec:
        from vhuman.posture import WORKERS

        top = ("name", "description", "scene", "worker", "side", "fps", "start", "steps")
        doc = self.mapping(doc, "", top)
        for need in ("name", "scene", "steps"):
            if need not in doc:
                raise self.fail("", f"missing field {need!r}; a task needs name, scene, steps")
        name, scene = doc["name"], doc["scene"]
        if not isinstance(name, str) or not name.strip():
            raise self.fail("name", f"expected a non-empty text, got {name!r}")
        if not isinstance(scene, str) or not scene.strip():
            raise self.fail("scene", f"expected a built-in scene name or a file, got {scene!r}")
        if folder is not None and Path(scene).suffix in (".yaml", ".yml", ".json"):
            scene = str(folder / scene)
        worker = doc.get("worker", "p50-male")
        if worker not in WORKERS:
            raise self.fail("worker", f"unknown worker {worker!r}; workers: {', '.join(WORKERS)}")
        side = doc.get("side", "right")
        if side not in list(Side):
            raise self.fail("side", f"expected right or left, got {side!r}")
        start = self.mapping(doc.get("start"), "start", ("position", "heading"))
        steps = doc["steps"]
        if not isinstance(steps, list) or not 1 <= len(steps) <= MAX_STEPS:
            raise self.fail("steps", f"expected a list of 1 to {MAX_STEPS} steps, got {steps!r}")
        fps = self.number(doc.get("fps", 30), "fps", 10, 120, "frames/s")
        parsed = tuple(self.step(s, f"steps[{i}]") for i, s in enumerate(steps))
        return TaskSpec(
            name=name.strip(),
            description=str(doc.get("description", "") or "").strip(),
            scene=scene,
            worker=worker,
            side=Side(side),
            fps=fps,
            start_position=self.vector(start.get("position", [0, 0]), "start.position", 2),
            start_heading=math.radians(
                self.number(start.get("heading", 0.0), "start.heading", -360, 360, "deg")
            ),
            steps=self.frames(self.order(parsed), fps),
            source=self.source,
        )

    def frames(self, steps: tuple[Step, ...], fps: float) -> tuple[Step, ...]:
        """The steps, checked not to ask for more than :data:`MAX_TIMED_FRAMES` frames."""
        seconds = sum(float(getattr(s, "seconds", getattr(s, "duration", 0.0))) for s in steps)
        if seconds * fps > MAX_TIMED_FRAMES:
            raise self.fail(
                "steps",
                f"holds and durations add up to {seconds:g} s, "
                f"{seconds * fps:.0f} frames at {fps:g} fps; at most "
                f"{MAX_TIMED_FRAMES} frames",
            )
        return steps

    def order(self, steps: tuple[Step, ...]) -> tuple[Step, ...]:
        """The steps, checked to be in a doable order (standing ↔ in the posture)."""
        down = False
        needs = {"walk_to": False, "posture": False, "reach": True, "turn": True, "stand_up": True}
        for i, step in enumerate(steps):
            want = needs.get(step.kind)
            if want is not None and want != down:
                where = "in a posture (after posture)" if want else "standing (not after posture "
                where += "" if want else "without stand_up)"
                raise self.fail(f"steps[{i}].{step.kind}", f"{step.kind} is done {where}")
            down = {"posture": True, "stand_up": False}.get(step.kind, down)
        return steps


def parse_task(
    text: str, *, source: str = "task", folder: str | os.PathLike[str] | None = None
) -> TaskSpec:
    """A `TaskSpec` from the text of a task file.

    Parameters
    ----------
    text : str
        YAML (see the module docstring for the format).
    source : str
        File name used in error messages.
    folder : path, optional
        Folder that a relative scene file path starts from.

    Raises
    ------
    FileFormatError
        One line ``SOURCE:LINE: field: problem, what is allowed`` for bad YAML or
        any invalid field.
    """
    try:
        doc = yaml.load(text, Loader=_LOADER)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        problem = getattr(exc, "problem", None) or "not valid YAML"
        raise FileFormatError(f"{source}:{line}: not valid YAML: {problem}") from None
    if doc is None:
        raise FileFormatError(
            f"{source}:1: task: the file is empty; a task needs name, scene, steps"
        )
    reader = _Reader(source, _lines(text))
    return reader.task(doc, None if folder is None else Path(folder))
