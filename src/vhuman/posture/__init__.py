"""Maintenance postures in narrow spaces: library, search, full-body check, NSGA-II arms, suite."""

from vhuman.posture.arm import (
    ACCESS_WEIGHT,
    ArmSetting,
    ArmSolveResult,
    access_errors,
    anatomical_angles,
    arm_local_rotations,
    solve_arm_nsga2,
)
from vhuman.posture.baseline import BaselineResult, solve_posture_ga
from vhuman.posture.batch import PostureTask, run_task, solve_each, solve_into, solve_many
from vhuman.posture.check import Balance, PostureCheck, check_posture
from vhuman.posture.library import (
    LIBRARY_MOTIONS,
    LibraryPosture,
    PostureLibrary,
    default_library_path,
    load_library,
    pose_on_floor,
    posture_rotations,
)
from vhuman.posture.placement import (
    Placement,
    PlacementWeights,
    candidate_positions,
    comfort_value,
    effective_distance,
    rank_placements,
)
from vhuman.posture.search import Candidate, diverse, near, placement_candidates
from vhuman.posture.solver import (
    WORKERS,
    PostureResult,
    PostureSettings,
    hand_frame_error,
    solve_posture,
    worker_skeleton,
)
from vhuman.posture.suite import SuiteCase, Witness, find_witness, load_suite

__all__ = [
    "ACCESS_WEIGHT",
    "LIBRARY_MOTIONS",
    "WORKERS",
    "ArmSetting",
    "ArmSolveResult",
    "Balance",
    "BaselineResult",
    "Candidate",
    "LibraryPosture",
    "Placement",
    "PlacementWeights",
    "PostureCheck",
    "PostureLibrary",
    "PostureResult",
    "PostureSettings",
    "PostureTask",
    "SuiteCase",
    "Witness",
    "access_errors",
    "anatomical_angles",
    "arm_local_rotations",
    "candidate_positions",
    "check_posture",
    "comfort_value",
    "default_library_path",
    "diverse",
    "effective_distance",
    "find_witness",
    "hand_frame_error",
    "load_library",
    "load_suite",
    "near",
    "placement_candidates",
    "pose_on_floor",
    "posture_rotations",
    "rank_placements",
    "run_task",
    "solve_arm_nsga2",
    "solve_each",
    "solve_into",
    "solve_many",
    "solve_posture",
    "solve_posture_ga",
    "worker_skeleton",
]
