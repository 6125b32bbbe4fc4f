"""Whole maintenance tasks: walk in, get into a posture, reach, turn, hold, stand up, walk out."""

from vhuman.task.check import MotionCheck, check_motion
from vhuman.task.path import FloorGrid, PathBlockedError, floor_grid, plan_path
from vhuman.task.run import StepRecord, TaskResult, builtin_tasks, load_task, run_task
from vhuman.task.spec import STEP_KINDS, TaskSpec, parse_task

__all__ = [
    "STEP_KINDS",
    "FloorGrid",
    "MotionCheck",
    "PathBlockedError",
    "StepRecord",
    "TaskResult",
    "TaskSpec",
    "builtin_tasks",
    "check_motion",
    "floor_grid",
    "load_task",
    "parse_task",
    "plan_path",
    "run_task",
]
