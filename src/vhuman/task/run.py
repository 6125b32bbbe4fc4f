"""Running a task: the steps composed into one motion, checked and scored frame by frame."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

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
from vhuman.io.checkpoint import read_checkpoint, write_checkpoint
from vhuman.io.filesystem import PathLike
from vhuman.posture import (
    ArmSetting,
    Candidate,
    PostureResult,
    PostureSettings,
    anatomical_angles,
    load_library,
    solve_posture,
    worker_skeleton,
)
from vhuman.reaching import Side
from vhuman.scene import BodyModel, CollisionWorld, Scene, Target, load_scene
from vhuman.skeleton import Motion
from vhuman.task.check import MotionCheck, check_motion, failed_checks
from vhuman.task.feet import feet_move, foot_placements
from vhuman.task.floor import FloorTransitionError, facing, floor_transition, via_poses
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

__all__ = [
    "HAND_ON_FLOOR",
    "KNEE_ON_FLOOR",
    "MAX_PLACEMENTS",
    "PRE_GRASP",
    "StepRecord",
    "TaskResult",
    "builtin_tasks",
    "hands_down",
    "knees_down",
    "load_task",
    "run_task",
    "score_frames",
    "task_identity",
]

PRE_GRASP = 0.12
"""Distance [m] back along the approach where the hand waits before a reach."""
MAX_PLACEMENTS = 6
"""Most placements a posture step tries: the posture solver's best and, while the way to one
and down into it fails a frame check, the next-ranked ones."""
BODY_RADIUS = 0.38
"""Distance [m] walking paths keep the pelvis from solids: half the shoulders' width and
the arms' swing."""
WIDER_CLEARANCE = (0.05, 0.1)
"""Extra distances [m] from the solids tried in turn, on top of :data:`BODY_RADIUS`, for a
walk whose path at :data:`BODY_RADIUS` fails a frame check."""
MAX_STROKES = 12
"""Most strokes of one turn step."""
KNEE_ON_FLOOR = 0.02
"""Height [m] above the floor within which a knee bears weight (REBA and RULA then score
the legs as supported on both sides)."""
HAND_ON_FLOOR = 0.02
"""Height [m] above the floor within which a hand bears weight: with both hands down, REBA
and RULA score the arms as supported (upper arm −1)."""
STEPPING_TIME = 1.2
"""Shortest transition [s] in which the feet step (each foot a third of it): long enough that
the stepping leg's knee turns slower than :data:`vhuman.reaching.MAX_JOINT_SPEED`."""
TURN_STEP = np.radians(40.0)
"""Largest turn on the spot [rad] of one transition: the feet step round one after the other
while the pelvis turns, within the hips' axial rotation range (±45°)."""
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
        return {
            "kind": self.kind,
            "start_s": self.start_s,
            "end_s": self.end_s,
            "done": self.done,
            "reason": self.reason or None,
        }


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
    postures : list of str
        The library posture (:attr:`vhuman.posture.PostureResult.library_posture`) the
        solver chose at each posture step.
    run_time_s : float
        Seconds this call ran (a resumed run: since it resumed).
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
    postures: list[str]
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
            "postures": list(self.postures),
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
    return {
        "max": float(comfort[worst]),
        "mean": float(comfort[posed].mean()),
        "worst_time_s": float(worst / fps),
        "frames": int(posed.sum()),
    }


class _StepError(Exception):
    """A step that cannot be done; the message is the reason."""


class _Composer:
    """The motion so far, the worker's pose and hand, step by step."""

    def __init__(self, spec: TaskSpec, scene: Scene, seed: int) -> None:
        self.spec, self.scene, self.seed = spec, scene, seed
        self.fps = spec.fps
        self.sk = worker_skeleton(spec.worker)
        self.body = BodyModel.from_skeleton(self.sk, samples_per_segment=2)
        self.library = load_library(self.sk, body=self.body)
        self.world = CollisionWorld(scene, resolution=0.1)
        self.grid: FloorGrid = floor_grid(scene, BODY_RADIUS, height=stature(self.sk) + 0.1)
        self._grids: dict[float, FloorGrid] = {}
        self.heading = spec.start_heading
        self.pose = standing_pose(self.sk, spec.start_position, self.heading, self.fps)
        self.roots: list[NDArray[np.float64]] = [self.pose[0][None]]
        self.locals: list[NDArray[np.float64]] = [self.pose[1][None]]
        self.walking: list[NDArray[np.bool_]] = [np.zeros(1, dtype=bool)]
        self.sitting: list[NDArray[np.bool_]] = [np.zeros(1, dtype=bool)]
        self.seated = False  # in a library posture scored with REBA's sitting rule
        self.arm_angles: list[NDArray[np.float64]] = [np.full((1, 7), np.nan)]
        self.paths: list[NDArray[np.float64]] = []
        self.postures: list[str] = []
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
        # A foot that would slide more than the slide tolerance steps there, even where
        # every joint turns less than the poses' tolerance.
        stepping = feet_move(self.sk, self.pose, first)
        if angle > _POSE_TOL[0] or shift > _POSE_TOL[1] or stepping:
            seconds = float(np.clip(max(angle / np.radians(60.0), shift / 0.5), 0.3, 2.0))
            if stepping:
                seconds = max(seconds, STEPPING_TIME)
            self.append(
                transition(self.body, self.pose, first, seconds, self.fps, self.scene.floor)
            )
        self._append_raw(motion, walking, arm)

    def clear(self, roots: NDArray[np.float64], local: NDArray[np.float64]) -> bool:
        """Whether no pose ``roots (N, 3)``, ``local (N, J, 4)`` touches the scene."""
        return not any(r.in_collision for r in self.world.check_many(self.body, roots, local))

    def motion(self) -> Motion:
        return Motion(self.sk, self.fps, np.concatenate(self.roots), np.concatenate(self.locals))

    def walk_to(
        self, xy: NDArray[np.float64], heading: float | None, *, exact: bool = True
    ) -> None:
        """Walk to ``xy`` (with ``exact`` False: to the free floor nearest it), then face
        ``heading``; where that fails a frame check (a swinging hand brushing a solid), on a
        path that keeps :data:`WIDER_CLEARANCE` more from the solids, if one passes."""
        here = self.pose[0][:2]
        start = here if self.grid.is_free(here) else _nearest_free(self.grid, here)
        goal = xy if exact or self.grid.is_free(xy) else _nearest_free(self.grid, xy)
        try:
            path = plan_path(self.grid, start, goal, goal_heading=heading)
        except PathBlockedError as exc:
            raise _StepError(
                f"no walking path from ({here[0]:.2f}, {here[1]:.2f}) to "
                f"({xy[0]:.2f}, {xy[1]:.2f}) m: {exc}"
            ) from None
        saved, first = self.state(), self.frames
        self._walk(path, heading)
        if not self._failures(first):
            return
        for extra in WIDER_CLEARANCE:
            grid = self._wider(extra)
            if not grid.is_free(goal):
                continue
            try:
                wide = plan_path(
                    grid,
                    here if grid.is_free(here) else _nearest_free(grid, here),
                    goal,
                    goal_heading=heading,
                )
            except PathBlockedError:
                continue
            self.restore(*saved)
            self._walk(wide, heading)
            if not self._failures(first):
                return
        self.restore(*saved)  # none passes: the first, the frame check reports it
        self._walk(path, heading)

    def _wider(self, extra: float) -> FloorGrid:
        """The free floor for a body ``extra`` [m] wider than :data:`BODY_RADIUS`."""
        if extra not in self._grids:
            height = stature(self.sk) + 0.1
            self._grids[extra] = floor_grid(self.scene, BODY_RADIUS + extra, height=height)
        return self._grids[extra]

    def _walk(self, path: NDArray[np.float64], heading: float | None) -> None:
        """Walk from here along the floor ``path (K, 2)`` [m], then face ``heading``."""
        here = self.pose[0][:2]
        path = np.concatenate([here[None], path])
        keep = np.concatenate([[True], np.linalg.norm(np.diff(path, axis=0), axis=-1) > 1e-3])
        path = path[keep]
        if len(path) >= 2 and np.linalg.norm(path[-1] - path[0]) > 0.05:
            self.paths.append(path)
            d = path[1] - path[0]
            self.face(float(np.arctan2(d[1], d[0])))
            # The first step from where the feet stand (the walk's own first frame puts them
            # up to a few centimetres off, depending on the path).
            feet = foot_placements(self.sk, *self.pose)
            walk = walk_along(self.sk, path, self.fps, feet=feet)
            d = np.diff(path[-2:], axis=0)[0]
            self.heading = float(np.arctan2(d[1], d[0]))
            self.append(walk, walking=True)
        if heading is not None:
            self.face(heading)

    def face(self, heading: float) -> None:
        """Turn on the spot to ``heading`` [rad] (nothing within 2°): the short way round, or
        the long way where the short one fails a frame check (a hand swinging through a
        handwheel as the body turns) and the long one passes."""
        turn = _wrap(heading - self.heading)
        if abs(turn) <= np.radians(2.0):
            return
        saved, start = self.state(), self.frames
        for way in (turn, turn - np.copysign(2.0 * np.pi, turn)):
            self._turn(way)
            if not self._failures(start):
                break
            self.restore(*saved)
        else:  # neither way passes: the short one, the frame check reports it
            self._turn(turn)
        self.heading = heading

    def _turn(self, turn: float) -> None:
        """Turn on the spot by ``turn`` [rad] in equal turns of at most :data:`TURN_STEP`, each
        stepping the feet round one after the other."""
        parts = int(np.ceil(abs(turn) / TURN_STEP))
        start = self.heading
        for k in range(1, parts + 1):
            self.heading = start + turn * k / parts
            pose = standing_pose(self.sk, self.pose[0][:2], self.heading, self.fps)
            self.append(_still(pose, self.sk, self.fps))

    def posture(self, step: PostureStep) -> None:
        """Walk to the placement the posture solver ranks best and get down into it; where
        that way (the walk, the turns, the getting down) fails a frame check, the next-ranked
        placement instead, up to :data:`MAX_PLACEMENTS` in all; the step stops where none
        passes."""
        scene = self.scene
        if step.target is not None:
            t = step.target
            scene = replace(scene, target=Target(t.position, t.rotation, t.approach, "posture"))
        saved = self.state()
        passed_over: list[Candidate] = []
        refusals: list[str] = []
        while len(passed_over) < MAX_PLACEMENTS:
            result = solve_posture(
                scene,
                self.sk,
                library=self.library,
                settings=PostureSettings(side=self.spec.side),
                seed=self.seed,
                worker=self.spec.worker,
                exclude=passed_over,
            )
            if not result.reached:
                if not passed_over:
                    raise _StepError(f"no valid posture reaches the target ({result.reason})")
                break
            start = self.frames
            try:
                self._get_down(result, scene.target, step.duration)
                failed = self._failures(start)
            except (_StepError, FloorTransitionError) as exc:
                failed = str(exc)
            if not failed:
                self.postures.append(result.library_posture)
                return
            self.restore(*saved)
            passed_over.append(result.placement)
            xy = result.placement.root_position
            refusals.append(f"{result.library_posture} at ({xy[0]:.2f}, {xy[1]:.2f}) m: {failed}")
        raise _StepError(
            f"no way to a posture reaching the target passes the frame checks "
            f"({len(refusals)} placements tried: {'; '.join(refusals)})"
        )

    def _get_down(self, result: PostureResult, target: Target, duration: float) -> None:
        """Walk to ``result``'s placement, face the way it does and get down into it, the hand
        ready :data:`PRE_GRASP` back from ``target``; ``duration`` [s] of the getting down.

        Raises ``_StepError`` where no path leads there and
        :class:`~vhuman.task.floor.FloorTransitionError` where no planned way down is clear.
        """
        place = result.placement
        final = (result.motion.root_positions[0], result.motion.local_rotations[0])
        # Facing where the pelvis will face (away from the work to lie down on the back).
        self.walk_to(place.root_position[:2], facing(final[1][0]), exact=False)
        side = Side.parse(self.spec.side)
        setting = ArmSetting(self.body, final[0], final[1], side, target)
        q_final = result.arm.q
        back = Target(
            target.position - PRE_GRASP * target.approach, target.rotation, target.approach
        )
        q = arm_solutions(ArmSetting(self.body, final[0], final[1], side, back))
        if len(q):
            q_ready = q[int(np.argmin(np.linalg.norm(q - q_final, axis=-1)))]
            ready = (final[0], setting.poses(q_ready))
            self.hand, self.arm_q = back, q_ready
        else:
            ready, self.hand, self.arm_q = final, target, q_final
        self.append(
            floor_transition(
                self.body,
                self.pose,
                ready,
                duration,
                self.fps,
                self.scene.floor,
                via=via_poses(self.library, self.body, ready, self.scene.floor),
                clear=self.clear,
            )
        )
        self.goal = target
        self.seated = self.library[result.library_posture].sitting

    def _failures(self, start: int) -> str:
        """The frame checks (:func:`vhuman.task.check.check_motion`) that the frames from
        ``start`` on fail, the step into them from the frame before included, in words; ""
        where every one passes."""
        first = max(start - 1, 0)
        motion = Motion(
            self.sk,
            self.fps,
            np.concatenate(self.roots)[first:],
            np.concatenate(self.locals)[first:],
        )
        static = ~np.concatenate(self.walking)[first:]
        check = check_motion(self.world, self.body, motion, static)
        if first < start:  # the frame before was checked with its own step: only the step on
            check = replace(
                check,
                contacts=np.concatenate([[0], check.contacts[1:]]),
                limit_violation=np.concatenate([[0.0], check.limit_violation[1:]]),
                static=np.concatenate([[False], check.static[1:]]),
            )
        if check.passed():
            return ""
        d = check.to_dict()
        words = failed_checks(d)
        if d["frames_in_contact"]:
            first_hit = int(np.flatnonzero(check.contacts)[0])
            hit = self.world.check(
                self.body, motion.root_positions[first_hit], motion.local_rotations[first_hit]
            ).contacts[0]
            words = (
                f"{d['frames_in_contact']} frames in contact (first {hit.segment} with "
                f"{hit.solid}), {words}"
            )
        return words

    def reach(self, step: Reach) -> None:
        assert self.hand is not None
        goal = self.goal
        if step.target is not None:
            t = step.target
            goal = Target(t.position, t.rotation, t.approach, "reach")
        pos, rot = hand_line(
            self.hand.position,
            self.hand.rotation,
            goal.position,
            goal.rotation,
            step.duration,
            self.fps,
        )
        self._arm(pos, rot, goal.approach)
        self.hand = goal

    def turn(self, step: Turn) -> None:
        assert self.hand is not None
        p0 = self.hand.position
        v = p0 - step.centre
        off_axis = float(np.linalg.norm(v - np.dot(v, step.axis) * step.axis))
        if abs(off_axis - step.radius) > 0.08:
            raise _StepError(
                f"the hand is {off_axis:.3f} m from the wheel's axis, its rim is at "
                f"{step.radius:.3f} m: the hand is not on the rim"
            )
        # In strokes of at most 80 % of what the arm's joint ranges allow from the grip; between
        # strokes the hand slides back along the rim to the grip (the wheel stays).
        left, duration = step.angle, step.duration
        strokes = 0
        while abs(left) > np.radians(0.5):
            pos, rot = hand_arc(
                p0,
                self.hand.rotation,
                step.centre,
                step.axis,
                left,
                duration * abs(left / step.angle),
                self.fps,
            )
            try:
                self._arm(pos, rot, self.hand.approach, stop=False)
                left = 0.0
            except ArmUnreachableError as exc:
                s = ease(Easing.MINIMUM_JERK, np.array([max(exc.frame - 1, 0) / (len(pos) - 1)]))
                stroke = 0.8 * left * float(s[0])
                if abs(stroke) < np.radians(5.0) or strokes >= MAX_STROKES:
                    raise _StepError(
                        f"the wheel turned {np.degrees(step.angle - left):.0f} of "
                        f"{np.degrees(step.angle):.0f} deg: {exc}"
                    ) from None
                pos, rot = hand_arc(
                    p0,
                    self.hand.rotation,
                    step.centre,
                    step.axis,
                    stroke,
                    duration * abs(stroke / step.angle),
                    self.fps,
                )
                stroke_motion, q = self._arm(pos, rot, self.hand.approach)
                back = Motion(
                    self.sk,
                    self.fps,
                    stroke_motion.root_positions[::-1],
                    stroke_motion.local_rotations[::-1],
                )
                self._append_raw(back, arm=q[::-1])
                self.arm_q = q[0]
                left -= stroke
            strokes += 1
        self.hand = Target(pos[-1], rot[-1], self.hand.approach)

    def _arm(
        self,
        pos: NDArray[np.float64],
        rot: NDArray[np.float64],
        approach: NDArray[np.float64],
        *,
        stop: bool = True,
    ) -> tuple[Motion, NDArray[np.float64]]:
        """The arm along hand frames, appended; returns its motion and joint angles ``(N, 7)``.

        ArmUnreachableError is re-raised (``stop`` False) or stops the step.
        """
        try:
            motion, q = arm_path(
                self.body,
                self.pose,
                self.spec.side,
                pos,
                rot,
                approach,
                self.fps,
                previous=self.arm_q,
            )
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
        self.sitting.append(np.full(n, self.seated))
        self.arm_angles.append(np.full((n, 7), np.nan) if arm is None else arm[1:])
        self.pose = (motion.root_positions[-1].copy(), motion.local_rotations[-1].copy())

    def state(self) -> tuple[dict[str, Any], dict[str, NDArray[Any]]]:
        """What the steps so far changed, as JSON values and arrays (see `restore`)."""
        arrays: dict[str, NDArray[Any]] = {
            "roots": np.concatenate(self.roots),
            "locals": np.concatenate(self.locals),
            "walking": np.concatenate(self.walking),
            "sitting": np.concatenate(self.sitting),
            "arm_angles": np.concatenate(self.arm_angles),
            "pose_root": self.pose[0],
            "pose_local": self.pose[1],
            **{f"path_{k}": p for k, p in enumerate(self.paths)},
        }
        if self.arm_q is not None:
            arrays["arm_q"] = self.arm_q
        targets = {"goal": self.goal, "hand": self.hand}
        for key, t in targets.items():
            if t is not None:
                arrays.update({f"{key}_{f}": getattr(t, f) for f in _TARGET_ARRAYS})
        names = {k: None if t is None else [t.name, t.description] for k, t in targets.items()}
        state = {
            "heading": self.heading,
            "seated": self.seated,
            "postures": list(self.postures),
            "paths": len(self.paths),
            "targets": names,
        }
        return state, arrays

    def restore(self, state: dict[str, Any], arrays: dict[str, NDArray[Any]]) -> None:
        """Continue from a `state` (bit for bit: the motion goes on as it would have)."""
        self.roots, self.locals = [arrays["roots"]], [arrays["locals"]]
        self.walking, self.arm_angles = [arrays["walking"]], [arrays["arm_angles"]]
        self.sitting = [arrays["sitting"]]
        self.pose = (arrays["pose_root"], arrays["pose_local"])
        self.heading = float(state["heading"])
        self.seated = bool(state["seated"])
        self.postures = list(state["postures"])
        self.paths = [arrays[f"path_{k}"] for k in range(int(state["paths"]))]
        self.arm_q = arrays.get("arm_q")
        for key, names in state["targets"].items():
            target = None if names is None else _stored_target(arrays, key, *names)
            setattr(self, key, target)

    def stand_up(self, step: StandUp) -> None:
        if self.hand is not None:  # the hand first back off the work, along the approach
            back = self.hand.position - PRE_GRASP * self.hand.approach
            pos, rot = hand_line(
                self.hand.position, self.hand.rotation, back, self.hand.rotation, 0.6, self.fps
            )
            try:
                self._arm(pos, rot, self.hand.approach, stop=False)
            except ArmUnreachableError as exc:  # as far back as the arm's ranges allow
                if exc.frame > 1:
                    self._arm(pos[: exc.frame], rot[: exc.frame], self.hand.approach)
        stand = standing_pose(self.sk, self.pose[0][:2], self.heading, self.fps)
        try:
            up = floor_transition(
                self.body,
                self.pose,
                stand,
                step.duration,
                self.fps,
                self.scene.floor,
                via=via_poses(self.library, self.body, self.pose, self.scene.floor),
                clear=self.clear,
            )
        except FloorTransitionError as exc:
            raise _StepError(str(exc)) from None
        self.seated = False
        self.append(up)
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


_TARGET_ARRAYS = ("position", "rotation", "approach")


def _stored_target(
    arrays: dict[str, NDArray[Any]], key: str, name: str, description: str
) -> Target:
    """The target ``key`` of a checkpoint's arrays exactly as stored.

    Built without `Target`'s checks, which would normalise the quaternion and
    approach again and could change their last bits.
    """
    target = object.__new__(Target)
    for field in _TARGET_ARRAYS:
        value = np.array(arrays[f"{key}_{field}"], dtype=np.float64)
        value.setflags(write=False)
        object.__setattr__(target, field, value)
    object.__setattr__(target, "name", name)
    object.__setattr__(target, "description", description)
    return target


def task_identity(spec: TaskSpec, scene: Scene, seed: int) -> dict[str, Any]:
    """What a task checkpoint must match to be resumed: SHA-256 digests of the task (every
    field but the file's path) and of its scene, and the seed."""

    def digest(value: Any) -> str:
        text = json.dumps(value, sort_keys=True, default=lambda a: np.asarray(a).tolist())
        return hashlib.sha256(text.encode()).hexdigest()

    fields = {f.name: getattr(spec, f.name) for f in dataclasses.fields(spec)}
    fields.pop("source")
    fields["steps"] = [[s.kind, dataclasses.asdict(s)] for s in spec.steps]
    return {"task": digest(fields), "scene": digest(scene.to_dict()), "seed": int(seed)}


R = TypeVar("R", REBAResult, RULAResult)
C = TypeVar("C", REBAConditions, RULAConditions)


def _per_frame(standing: R, *cases: tuple[NDArray[np.bool_], R]) -> R:
    """``standing`` (scored with the legs measured) with the frames of each case's mask
    ``(N,)`` taken from that case's result (scored with its legs' support)."""
    out = standing
    for mask, other in cases:
        values: dict[str, Any] = {}
        for f in fields(out):
            a, b = getattr(out, f.name), getattr(other, f.name)
            if isinstance(a, dict):
                values[f.name] = {k: _where(mask, b[k], v) for k, v in a.items()}
            elif isinstance(a, np.ndarray):
                values[f.name] = _where(mask, b, a)
        out = replace(out, **values)
    return out


def score_frames(
    body: BodyModel, motion: Motion, floor: float, sitting: NDArray[np.bool_]
) -> tuple[REBAResult, RULAResult]:
    """REBA and RULA of every frame, each scored with the support its body has there.

    The legs score as sitting (REBA) and supported (RULA) on the ``sitting`` frames, as
    weight-bearing on both sides where a knee rests on the floor (:func:`knees_down`), as
    measured elsewhere; the arms as supported (upper arm −1, "arm supported or person
    leaning": Hignett & McAtamney 2000, McAtamney & Corlett 1993) where both hands rest on
    the floor (:func:`hands_down`).

    Parameters
    ----------
    body : BodyModel
        The worker's capsules.
    motion : Motion
        N frames.
    floor : float
        Floor height [m].
    sitting : ndarray of bool, shape (N,)
        Frames seated in a sitting posture.

    Returns
    -------
    REBAResult, RULAResult
        Per frame.
    """
    kneeling = knees_down(body, motion, floor) & ~sitting
    hands = hands_down(body, motion, floor)
    standing = ~sitting & ~kneeling
    reba = _per_frame(
        assess_reba(motion),
        *_supports(
            motion,
            assess_reba,
            hands,
            (standing, REBAConditions()),
            (sitting, REBAConditions(sitting=True)),
            (kneeling, REBAConditions(bilateral_support=True)),
        ),
    )
    rula = _per_frame(
        assess_rula(motion),
        *_supports(
            motion,
            assess_rula,
            hands,
            (standing, RULAConditions()),
            (~standing, RULAConditions(legs_supported=True)),
        ),
    )
    return reba, rula


def _supports(
    motion: Motion,
    assess: Callable[[Motion, C], R],
    hands: NDArray[np.bool_],
    *legs: tuple[NDArray[np.bool_], C],
) -> list[tuple[NDArray[np.bool_], R]]:
    """The cases of :func:`_per_frame`: each leg support's frames ``(mask (N,), conditions)``
    scored with the arms as they are where a hand is off the floor and as supported where both
    hands rest on it (``hands (N,)``); the default conditions' free-armed frames, which the
    standing score already has, and cases without a frame are left out."""
    out = []
    for mask, c in legs:
        for arms in (False, True):
            frames = mask & (hands == arms)
            if frames.any() and (arms or c != type(c)()):
                out.append((frames, assess(motion, replace(c, arm_supported=arms))))
    return out


def _where(mask: NDArray[np.bool_], a: NDArray[Any], b: NDArray[Any]) -> NDArray[Any]:
    """``a`` where ``mask (N,)``, else ``b``; arrays ``(N, ...)``."""
    return np.where(mask.reshape(-1, *([1] * (a.ndim - 1))), a, b)


def knees_down(body: BodyModel, motion: Motion, floor: float) -> NDArray[np.bool_]:
    """Frames ``(N,)`` where a knee rests on the floor: the lowest point at a knee, of the
    thigh's capsule at its lower end or the shank's at its upper end, within
    :data:`KNEE_ON_FLOOR` of it (kneeling on both knees, the thigh's end bears on the floor
    and the shank rises from it to the foot on its toes)."""
    names = np.asarray(motion.skeleton.names)[body.joints]
    thighs = [int(np.flatnonzero(names == f"{side}_hip")[0]) for side in "lr"]
    shanks = [int(np.flatnonzero(names == f"{side}_knee")[0]) for side in "lr"]
    a, b = body.capsules(motion.root_positions, motion.local_rotations)
    knee = np.minimum(
        b[:, thighs, 2] - body.radii[thighs], a[:, shanks, 2] - body.radii[shanks]
    )  # (N, 2) [m]
    return np.asarray((knee - floor <= KNEE_ON_FLOOR).any(axis=-1))


def hands_down(body: BodyModel, motion: Motion, floor: float) -> NDArray[np.bool_]:
    """Frames ``(N,)`` where both hands rest on the floor: the lowest point of each hand's
    capsule within :data:`HAND_ON_FLOOR` of it (the arms then bear the trunk's weight)."""
    hands = [body.names.index(f"{side}_wrist") for side in "lr"]
    a, b = body.capsules(motion.root_positions, motion.local_rotations)
    low = np.minimum(a[:, hands, 2], b[:, hands, 2]) - body.radii[hands]  # (N, 2) [m]
    return np.asarray((low - floor <= HAND_ON_FLOOR).all(axis=-1))


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


def run_task(
    task: TaskSpec | str | Path,
    *,
    seed: int = 0,
    checkpoint: PathLike | None = None,
    resume: bool = False,
    stop_after: int | None = None,
) -> TaskResult:
    """Run a task: compose the motion step by step, check every frame, score REBA and RULA.

    A posture step walks to the placement the posture solver ranks best and
    gets down into it; where that way fails a frame check (contact, joint
    ranges and speeds, balance, feet sliding: :func:`vhuman.task.check.check_motion`)
    or has no planned way down, it is taken back and the next-ranked placement
    tried (:func:`vhuman.posture.solve_posture` with ``exclude``), up to
    :data:`MAX_PLACEMENTS`. A step that cannot be done (no posture reaches its
    target, no placement's way there and down passes the checks, no path, no
    arm solution along the hand's path, no clear way up) stops the task there:
    the result holds the motion up to it, that step marked not done with the
    reason.

    Parameters
    ----------
    task : TaskSpec, or a task file path or built-in name
    seed : int
        Seed of the posture solver's arm NSGA-II.
    checkpoint : str or Path, optional
        Written after every step done (:mod:`vhuman.io.checkpoint`): the motion
        so far and the composer's state, with the run's identity
        (:func:`task_identity`).
    resume : bool
        Continue after the steps done in ``checkpoint`` if it exists; the
        result is then the one of an uninterrupted run.
    stop_after : int, optional
        Stop (as if interrupted) once this many steps are done in all; the
        result holds the motion so far.

    Raises
    ------
    InputError
        For a bad task file or an unknown scene, or a checkpoint that is
        damaged or of another task, scene or seed.
    """
    started = time.perf_counter()
    spec = task if isinstance(task, TaskSpec) else load_task(task)
    scene = load_scene(spec.scene)
    identity = task_identity(spec, scene, seed)
    comp = _Composer(spec, scene, seed)
    records: list[StepRecord] = []
    if resume and checkpoint is not None and Path(checkpoint).is_file():
        state, arrays = read_checkpoint(checkpoint, identity, "or run without --resume")
        comp.restore(state["composer"], arrays)
        records = [StepRecord(**r) for r in state["steps"]]
    last = len(spec.steps) if stop_after is None else min(len(spec.steps), stop_after)
    for step in spec.steps[len(records) : last]:
        t0 = comp.now
        try:
            comp.run(step)
        except _StepError as exc:
            records.append(StepRecord(step.kind, t0, comp.now, False, f"{step.kind}: {exc}"))
            break
        records.append(StepRecord(step.kind, t0, comp.now, True))
        if checkpoint is not None:
            state, arrays = comp.state()
            steps = [dataclasses.asdict(r) for r in records]
            write_checkpoint(checkpoint, identity, {"composer": state, "steps": steps}, arrays)
    motion = comp.motion()
    static = ~np.concatenate(comp.walking)
    check = check_motion(comp.world, comp.body, motion, static)
    sitting = np.concatenate(comp.sitting)
    reba, rula = score_frames(comp.body, motion, scene.floor, sitting)
    q = np.concatenate(comp.arm_angles)
    comfort = np.full(len(q), np.nan)
    posed = np.all(np.isfinite(q), axis=-1)
    if posed.any():
        comfort[posed] = arm_discomfort(anatomical_angles(q[posed]))
    return TaskResult(
        spec,
        scene,
        motion,
        tuple(records),
        check,
        reba,
        rula,
        comfort,
        comp.paths,
        comp.postures,
        time.perf_counter() - started,
        seed,
    )
