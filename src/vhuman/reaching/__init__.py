"""Human-like arm reaching: the 7-DOF arm, the swivel angle and minimum-jerk hand paths."""

from vhuman.reaching.arm import JOINT_LIMITS, ArmModel, ArmPose, Side
from vhuman.reaching.minimum_jerk import MinimumJerkTrajectory, minimum_jerk
from vhuman.reaching.swivel import (
    UP,
    ArmSolution,
    feasible_swivel_intervals,
    nearest_feasible_swivel,
    solve_arm,
    swivel_angle,
)

__all__ = [
    "JOINT_LIMITS",
    "UP",
    "ArmModel",
    "ArmPose",
    "ArmSolution",
    "MinimumJerkTrajectory",
    "Side",
    "feasible_swivel_intervals",
    "minimum_jerk",
    "nearest_feasible_swivel",
    "solve_arm",
    "swivel_angle",
]
