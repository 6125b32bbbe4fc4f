"""Running a task: the steps composed into one motion, checked and scored frame by frame."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.animation import Easing, ease
from vhuman.ergonomics import (
    REBAConditions,
    REBAResult,
    RULAConditions,
    RULAResult,
    arm_discomfort,
    assess_reba,
    assess_rula,
)
from vhuman.errors import FileFormatError, InputError
from vhuman.geometry import quat_angle
from vhuman.posture import (
    ArmSetting,
    PostureResult,
    PostureSettings,
    anatomical_angles,
    solve_posture,
    worker_skeleton,
)
from vhuman.reaching import Side
from vhuman.scene import BodyModel, CollisionWorld, Scene, Target, load_scene
from vhuman.skeleton import Motion
from vhuman.task.check import MotionCheck, check_motion
from vhuman.task.motion import (
    ArmUnreachableError,
    arm_path,
    arm_solutions,
    hand_arc,
    hand_line,
    hold,
    standing_pose,
    stature,
    transition,
    walk_along,
)
from vhuman.task.path import FloorGrid, PathBlockedError, floor_grid, plan_path
from vhuman.task.spec import (
    Hold,
    PostureStep,
    Reach,
    StandUp,
    Step,
    TaskSpec,
    Turn,
    WalkTo,
    parse_task,
)

__all__ = ["PRE_GRASP", "StepRecord", "TaskResult", "builtin_tasks", "load_task", "run_task"]

PRE_GRASP = 0.12
"""Distance [m] back along the approach where the hand waits before a reach."""
BODY_RADIUS = 0.38
"""Distance [m] walking paths keep the pelvis from solids: half the shoulders' width and
the arms' swing."""
MAX_STROKES = 12
"""Most strokes of one turn step."""
_POSE_TOL = (np.radians(1.0), 0.005)  # joint angle [rad] and root [m] below which poses match


def _builtin_folder() -> Path:
    return Path(str(resources.files("vhuman") / "data" / "tasks"))


def builtin_tasks() -> tuple[str, ...]:
    """Names of the tasks shipped with vhuman, sorted."""
    return tuple(sorted(p.stem for p in _builtin_folder().glob("*.yaml")))


def load_task(name_or_path: str | Path) -> TaskSpec:
    """Read a task file, or a built-in task by name (see `builtin_tasks`).

    Raises
    ------
    InputError
        For a missing file or unknown name (the message lists the built-ins).
    FileFormatError
        For a malformed file: ``FILE:LINE: field: problem``.
    """
    path = Path(name_or_path)
    if not path.suffix and not path.exists():
        path = _builtin_folder() / f"{name_or_path}.yaml"
        if not path.is_file():
            raise InputError(
                f"no task file or built-in task {str(name_or_path)!r}; built-in tasks: "
                f"{', '.join(builtin_tasks())}"
            )
    if not path.is_file():
        raise InputError(f"{path}: no such task file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise FileFormatError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    return parse_task(text, source=str(path), folder=path.parent)


@dataclass(frozen=True)
class StepRecord:
    """One step as run: its kind, span in the motion [s], whether it was done, why not."""

    kind: str
    start_s: float
    end_s: float
    done: bool
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"kind": self.kind, "start_s": self.start_s, "end_s": self.end_s,
                "done": self.done, "reason": self.reason or None}  # fmt: skip


@dataclass(frozen=True, eq=False)
class TaskResult:
    """A run task.

    Attributes
    ----------
    spec : TaskSpec
    scene : Scene
    motion : Motion
        The whole motion, up to the step that stopped it.
    steps : tuple of StepRecord
        The steps run (the last one not done when the task stopped).
    check : MotionCheck
        Every frame checked.
    reba, rula : REBAResult, RULAResult
        Per frame.
    arm_comfort : ndarray, shape (N,)
        Joint discomfort Σ f_rot of the working arm's anatomical angles per frame
        (:func:`vhuman.ergonomics.arm_discomfort`, Luo et al.) where the arm is posed by
        inverse kinematics (reach, turn, hold and the hand's moves); NaN elsewhere.
    paths : list of ndarray
        The planned floor paths ``(K, 2)`` [m].
    postures : list of PostureResult
    run_time_s : float
    seed : int
    """

    spec: TaskSpec
    scene: Scene
    motion: Motion
    steps: tuple[StepRecord, ...]
    check: MotionCheck
    reba: REBAResult
    rula: RULAResult
    arm_comfort: NDArray[np.float64]
    paths: list[NDArray[np.float64]]
    postures: list[PostureResult]
    run_time_s: float
    seed: int

    @property
    def done(self) -> bool:
        """Whether every step was done."""
        return all(s.done for s in self.steps) and len(self.steps) == len(self.spec.steps)

    @property
    def reason(self) -> str:
        """Why the task stopped ("" when done)."""
        return next((s.reason for s in self.steps if not s.done), "")

    def to_dict(self) -> dict[str, Any]:
        """The summary (``vhuman task --json``)."""
        fps = self.motion.fps
        return {
            "task": self.spec.name,
            "scene": self.scene.name,
            "worker": self.spec.worker,
            "seed": self.seed,
            "status": "done" if self.done else "stopped",
            "reason": self.reason or None,
            "frames": self.motion.n_frames,
            "fps": fps,
            "duration_s": self.motion.duration,
            "steps": [s.to_dict() for s in self.steps],
            "first_contact": self.check.first_contact,
            "check": self.check.to_dict(),
            "reba": _score_summary(self.reba.score, self.reba.action_level, fps, lowest=0),
            "rula": _score_summary(self.rula.score, self.rula.action_level, fps, lowest=1),
            "arm_comfort": _comfort_summary(self.arm_comfort, fps),
            "postures": [p.library_posture for p in self.postures],
            "run_time_s": self.run_time_s,
        }


def _score_summary(
    score: NDArray[np.int64], level: NDArray[np.int64], fps: float, lowest: int
) -> dict[str, Any]:
    """Max score, its time and frame, and the time [s] in each action level from ``lowest``
    (REBA's levels start at 0, RULA's at 1) to the highest reached."""
    worst = int(np.argmax(score))
    levels = {str(a): float(np.sum(level == a) / fps) for a in range(lowest, int(level.max()) + 1)}
    return {
        "max": int(score[worst]),
        "max_action_level": int(level.max()),
        "worst_time_s": float(worst / fps),
        "worst_frame": worst,
        "time_by_action_level_s": levels,
    }


def _comfort_summary(comfort: NDArray[np.float64], fps: float) -> dict[str, Any] | None:
    posed = np.isfinite(comfort)
    if not posed.any():
        return None
    worst = int(np.nanargmax(comfort))
    return {"max": float(comfort[worst]), "mean": float(comfort[posed].mean()),
            "worst_time_s": float(worst / fps), "frames": int(posed.sum())}  # fmt: skip


class _StepError(Exception):
    """A step that cannot be done; the message is the reason."""


class _Composer:
    """The motion so far, the worker's pose and hand, step by step."""

    def __init__(self, spec: TaskSpec, scene: Scene, seed: int) -> None:
        self.spec, self.scene, self.seed = spec, scene, seed
        self.fps = spec.fps
        self.sk = worker_skeleton(spec.worker)
        self.body = BodyModel.from_skeleton(self.sk, samples_per_segment=2)
        self.grid: FloorGrid = floor_grid(scene, BODY_RADIUS, height=stature(self.sk) + 0.1)
        self.heading = spec.start_heading
        self.pose = standing_pose(self.sk, spec.start_position, self.heading, self.fps)
        self.roots: list[NDArray[np.float64]] = [self.pose[0][None]]
        self.locals: list[NDArray[np.float64]] = [self.pose[1][None]]
        self.walking: list[NDArray[np.bool_]] = [np.zeros(1, dtype=bool)]
        self.arm_angles: list[NDArray[np.float64]] = [np.full((1, 7), np.nan)]
        self.paths: list[NDArray[np.float64]] = []
        self.postures: list[PostureResult] = []
        self.hand: Target | None = None
        self.arm_q: NDArray[np.float64] | None = None
        self.goal: Target = scene.target

    @property
    def frames(self) -> int:
        return sum(len(r) for r in self.roots)

    @property
    def now(self) -> float:
        return (self.frames - 1) / self.fps

    def append(
        self, motion: Motion, walking: bool = False, arm: NDArray[np.float64] | None = None
    ) -> None:
        """Add ``motion`` after a transition from the current pose when its first frame differs.

        ``arm (N, 7)``: the working arm's joint angles per frame where the arm is posed by IK.
        """
        first = (motion.root_positions[0], motion.local_rotations[0])
        angle = float(quat_angle(self.pose[1], first[1]).max())
        shift = float(np.linalg.norm(first[0] - self.pose[0]))
        if angle > _POSE_TOL[0] or shift > _POSE_TOL[1]:
            seconds = float(np.clip(max(angle / np.radians(60.0), shift / 0.5), 0.3, 2.0))
            self.append(transition(self.body, self.pose, first, seconds, self.fps,
                                   self.scene.floor))  # fmt: skip
        self._append_raw(motion, walking, arm)

    def motion(self) -> Motion:
        return Motion(self.sk, self.fps, np.concatenate(self.roots), np.concatenate(self.locals))

    def walk_to(self, xy: NDArray[np.float64], heading: float | None, *, exact: bool = True
                ) -> None:  # fmt: skip
        """Walk to ``xy`` (with ``exact`` False: to the free floor nearest it), then face
        ``heading``."""
        here = self.pose[0][:2]
        start = here if self.grid.is_free(here) else _nearest_free(self.grid, here)
        goal = xy if exact or self.grid.is_free(xy) else _nearest_free(self.grid, xy)
        try:
            path = plan_path(self.grid, start, goal, goal_heading=heading)
        except PathBlockedError as exc:
            raise _StepError(f"no walking path from ({here[0]:.2f}, {here[1]:.2f}) to "
                        f"({xy[0]:.2f}, {xy[1]:.2f}) m: {exc}") from None  # fmt: skip
        path = np.concatenate([here[None], path])
        keep = np.concatenate([[True], np.linalg.norm(np.diff(path, axis=0), axis=-1) > 1e-3])
        path = path[keep]
        if len(path) >= 2 and np.linalg.norm(path[-1] - path[0]) > 0.05:
            self.paths.append(path)
            walk = walk_along(self.sk, path, self.fps)
            d = path[1] - path[0]
            self.face(float(np.arctan2(d[1], d[0])))
            d = np.diff(path[-2:], axis=0)[0]
            self.heading = float(np.arctan2(d[1], d[0]))
            self.append(walk, walking=True)
        if heading is not None:
            self.face(heading)

    def face(self, heading: float) -> None:
        """Turn on the spot to ``heading`` [rad] (nothing within 2°)."""
        if abs(_wrap(heading - self.heading)) > np.radians(2.0):
            self.heading = heading
            self.append(_still(standing_pose(self.sk, self.pose[0][:2], heading, self.fps),
                               self.sk, self.fps))  # fmt: skip

    def posture(self, step: PostureStep) -> None:
        scene = self.scene
        if step.target is not None:
            t = step.target
            scene = replace(scene, target=Target(t.position, t.rotation, t.approach, "posture"))
        result = solve_posture(scene, self.sk, settings=PostureSettings(side=self.spec.side),
                               seed=self.seed, worker=self.spec.worker)  # fmt: skip
        if not result.reached:
            raise _StepError(f"no valid posture reaches the target ({result.reason})")
        self.postures.append(result)
        place = result.placement
        self.walk_to(place.root_position[:2], place.yaw, exact=False)
        final = (result.motion.root_positions[0], result.motion.local_rotations[0])
        target = scene.target
        side = Side.parse(self.spec.side)
        setting = ArmSetting(self.body, final[0], final[1], side, target)
        q_final = result.arm.q
        back = Target(target.position - PRE_GRASP * target.approach, target.rotation,
                      target.approach)  # fmt: skip
        q = arm_solutions(ArmSetting(self.body, final[0], final[1], side, back))
        if len(q):
            q_ready = q[int(np.argmin(np.linalg.norm(q - q_final, axis=-1)))]
            ready = (final[0], setting.poses(q_ready))
            self.hand, self.arm_q = back, q_ready
        else:
            ready, self.hand, self.arm_q = final, target, q_final
        self.append(transition(self.body, self.pose, ready, step.duration, self.fps,
                               self.scene.floor))  # fmt: skip
        self.goal = target

    def reach(self, step: Reach) -> None:
        assert self.hand is not None
        goal = self.goal
        if step.target is not None:
            t = step.target
            goal = Target(t.position, t.rotation, t.approach, "reach")
        pos, rot = hand_line(self.hand.position, self.hand.rotation, goal.position,
                             goal.rotation, step.duration, self.fps)  # fmt: skip
        self._arm(pos, rot, goal.approach)
        self.hand = goal

    def turn(self, step: Turn) -> None:
        assert self.hand is not None
        p0 = self.hand.position
        v = p0 - step.centre
        off_axis = float(np.linalg.norm(v - np.dot(v, step.axis) * step.axis))
        if abs(off_axis - step.radius) > 0.08:
            raise _StepError(f"the hand is {off_axis:.3f} m from the wheel's axis, its rim is at "
                        f"{step.radius:.3f} m: the hand is not on the rim")  # fmt: skip
        # In strokes of at most 80 % of what the arm's joint ranges allow from the grip; between
        # strokes the hand slides back along the rim to the grip (the wheel stays).
        left, duration = step.angle, step.duration
        strokes = 0
        while abs(left) > np.radians(0.5):
            pos, rot = hand_arc(p0, self.hand.rotation, step.centre, step.axis, left,
                                duration * abs(left / step.angle), self.fps)  # fmt: skip
            try:
                self._arm(pos, rot, self.hand.approach, stop=False)
                left = 0.0
            except ArmUnreachableError as exc:
                s = ease(Easing.MINIMUM_JERK, np.array([max(exc.frame - 1, 0) / (len(pos) - 1)]))
                stroke = 0.8 * left * float(s[0])
                if abs(stroke) < np.radians(5.0) or strokes >= MAX_STROKES:
                    raise _StepError(f"the wheel turned {np.degrees(step.angle - left):.0f} of "
                                f"{np.degrees(step.angle):.0f} deg: {exc}") from None  # fmt: skip
                pos, rot = hand_arc(p0, self.hand.rotation, step.centre, step.axis, stroke,
                                    duration * abs(stroke / step.angle), self.fps)  # fmt: skip
                stroke_motion, q = self._arm(pos, rot, self.hand.approach)
                back = Motion(self.sk, self.fps, stroke_motion.root_positions[::-1],
                              stroke_motion.local_rotations[::-1])  # fmt: skip
                self._append_raw(back, arm=q[::-1])
                self.arm_q = q[0]
                left -= stroke
            strokes += 1
        self.hand = Target(pos[-1], rot[-1], self.hand.approach)

    def _arm(self, pos: NDArray[np.float64], rot: NDArray[np.float64],
             approach: NDArray[np.float64], *, stop: bool = True
             ) -> tuple[Motion, NDArray[np.float64]]:  # fmt: skip
        """The arm along hand frames, appended; returns its motion and joint angles ``(N, 7)``.

        ArmUnreachableError is re-raised (``stop`` False) or stops the step.
        """
        try:
            motion, q = arm_path(self.body, self.pose, self.spec.side, pos, rot, approach,
                                 self.fps, previous=self.arm_q)  # fmt: skip
        except ArmUnreachableError as exc:
            if not stop:
                raise
            raise _StepError(str(exc)) from None
        self.arm_q = q[-1]
        self.append(motion, arm=q)
        return motion, q

    def _append_raw(
        self, motion: Motion, walking: bool = False, arm: NDArray[np.float64] | None = None
    ) -> None:
        """Add ``motion``, whose first frame is the current pose (dropped)."""
        n = motion.n_frames - 1
        self.roots.append(motion.root_positions[1:])
        self.locals.append(motion.local_rotations[1:])
        self.walking.append(np.full(n, walking))
        self.arm_angles.append(np.full((n, 7), np.nan) if arm is None else arm[1:])
        self.pose = (motion.root_positions[-1].copy(), motion.local_rotations[-1].copy())

    def stand_up(self, step: StandUp) -> None:
        if self.hand is not None:  # the hand first back off the work, along the approach
            back = self.hand.position - PRE_GRASP * self.hand.approach
            pos, rot = hand_line(self.hand.position, self.hand.rotation, back,
                                 self.hand.rotation, 0.6, self.fps)  # fmt: skip
            try:
                self._arm(pos, rot, self.hand.approach, stop=False)
            except ArmUnreachableError as exc:  # as far back as the arm's ranges allow
                if exc.frame > 1:
                    self._arm(pos[: exc.frame], rot[: exc.frame], self.hand.approach)
        stand = standing_pose(self.sk, self.pose[0][:2], self.heading, self.fps)
        self.append(transition(self.body, self.pose, stand, step.duration, self.fps,
                               self.scene.floor))  # fmt: skip
        self.hand, self.arm_q = None, None

    def run(self, step: Step) -> None:
        if isinstance(step, WalkTo):
            self.walk_to(step.position, step.heading)
        elif isinstance(step, PostureStep):
            self.posture(step)
        elif isinstance(step, Reach):
            self.reach(step)
        elif isinstance(step, Turn):
            self.turn(step)
        elif isinstance(step, Hold):
            still = hold(self.pose, step.seconds, self.fps, self.sk)
            arm = None if self.arm_q is None else np.tile(self.arm_q, (still.n_frames, 1))
            self.append(still, arm=arm)
        else:
            self.stand_up(step)


def _wrap(a: float) -> float:
    return float((a + np.pi) % (2.0 * np.pi) - np.pi)


def _still(pose: tuple[NDArray[np.float64], NDArray[np.float64]], sk: Any, fps: float) -> Motion:
    return Motion(sk, fps, pose[0][None], pose[1][None])


def _nearest_free(grid: FloorGrid, xy: NDArray[np.float64]) -> NDArray[np.float64]:
    """The centre of the free cell nearest ``xy`` (``xy`` itself when none is free)."""
    ij = np.argwhere(grid.free)
    if not len(ij):
        return xy
    centres = grid.origin + grid.spacing * ij
    return centres[int(np.argmin(np.linalg.norm(centres - xy, axis=-1)))]


def run_task(task: TaskSpec | str | Path, *, seed: int = 0) -> TaskResult:
    """Run a task: compose the motion step by step, check every frame, score REBA and RULA.

    A step that cannot be done (no posture reaches its target, no path, no
    arm solution along the hand's path) stops the task there: the result holds
    the motion up to it, that step marked not done with the reason.

    Parameters
    ----------
    task : TaskSpec, or a task file path or built-in name
    seed : int
        Seed of the posture solver's arm NSGA-II.

    Raises
    ------
    InputError
        For a bad task file or an unknown scene.
    """
    started = time.perf_counter()
    spec = task if isinstance(task, TaskSpec) else load_task(task)
    scene = load_scene(spec.scene)
    comp = _Composer(spec, scene, seed)
    records: list[StepRecord] = []
    for step in spec.steps:
        t0 = comp.now
        try:
            comp.run(step)
        except _StepError as exc:
            records.append(StepRecord(step.kind, t0, comp.now, False, f"{step.kind}: {exc}"))
            break
        records.append(StepRecord(step.kind, t0, comp.now, True))
    motion = comp.motion()
    static = ~np.concatenate(comp.walking)
    world = CollisionWorld(scene, resolution=0.1)
    check = check_motion(world, comp.body, motion, static)
    sitting = any(p.library_posture.startswith("sitting") for p in comp.postures)
    reba = assess_reba(motion, REBAConditions(sitting=sitting))
    rula = assess_rula(motion, RULAConditions(seated_supported=sitting))
    q = np.concatenate(comp.arm_angles)
    comfort = np.full(len(q), np.nan)
    posed = np.all(np.isfinite(q), axis=-1)
    if posed.any():
        comfort[posed] = arm_discomfort(anatomical_angles(q[posed]))
    return TaskResult(spec, scene, motion, tuple(records), check, reba, rula, comfort,
                      comp.paths, comp.postures, time.perf_counter() - started, seed)  # fmt: skip
