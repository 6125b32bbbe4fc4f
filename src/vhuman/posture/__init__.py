"""Maintenance postures in narrow spaces: posture library, placement, NSGA-II arms, baseline."""

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
from vhuman.posture.batch import PostureTask, run_task, solve_many
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
from vhuman.posture.solver import (
    WORKERS,
    PostureResult,
    PostureSettings,
    hand_frame_error,
    solve_posture,
    worker_skeleton,
)

__all__ = [
    "ACCESS_WEIGHT",
    "LIBRARY_MOTIONS",
    "WORKERS",
    "ArmSetting",
    "ArmSolveResult",
    "BaselineResult",
    "LibraryPosture",
    "Placement",
    "PlacementWeights",
    "PostureLibrary",
    "PostureResult",
    "PostureSettings",
    "PostureTask",
    "access_errors",
    "anatomical_angles",
    "arm_local_rotations",
    "candidate_positions",
    "comfort_value",
    "default_library_path",
    "effective_distance",
    "hand_frame_error",
    "load_library",
    "pose_on_floor",
    "posture_rotations",
    "rank_placements",
    "run_task",
    "solve_arm_nsga2",
    "solve_many",
    "solve_posture",
    "solve_posture_ga",
    "worker_skeleton",
]
