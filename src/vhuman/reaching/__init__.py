"""Human-like arm reaching: the 7-DOF arm, swivel angle, its learning, minimum-jerk paths."""

from vhuman.reaching.arm import JOINT_LIMITS, ArmModel, ArmPose, Side
from vhuman.reaching.dataset import (
    CMU_ARM_JOINTS,
    FEATURE_NAMES,
    MIN_ELBOW_FLEXION,
    SwivelDataset,
    SwivelSamples,
    cmu_swivel_dataset,
    split_by_trial,
    swivel_samples_from_motion,
    synthetic_swivel_dataset,
    validation_split_highest_numbered,
)
from vhuman.reaching.minimum_jerk import MinimumJerkTrajectory, minimum_jerk
from vhuman.reaching.predictors import (
    LeastSquaresPredictor,
    MeanPredictor,
    MLPPredictor,
    SwivelPredictor,
    evaluate,
    load_predictor,
    wrap_angle,
)
from vhuman.reaching.swivel import (
    UP,
    ArmSolution,
    feasible_swivel_intervals,
    nearest_feasible_swivel,
    solve_arm,
    swivel_angle,
)

__all__ = [
    "CMU_ARM_JOINTS",
    "FEATURE_NAMES",
    "JOINT_LIMITS",
    "MIN_ELBOW_FLEXION",
    "UP",
    "ArmModel",
    "ArmPose",
    "ArmSolution",
    "LeastSquaresPredictor",
    "MLPPredictor",
    "MeanPredictor",
    "MinimumJerkTrajectory",
    "Side",
    "SwivelDataset",
    "SwivelPredictor",
    "SwivelSamples",
    "cmu_swivel_dataset",
    "evaluate",
    "feasible_swivel_intervals",
    "load_predictor",
    "minimum_jerk",
    "nearest_feasible_swivel",
    "solve_arm",
    "split_by_trial",
    "swivel_angle",
    "swivel_samples_from_motion",
    "synthetic_swivel_dataset",
    "validation_split_highest_numbered",
    "wrap_angle",
]
