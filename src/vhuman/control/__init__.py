"""Physics-based motion: MuJoCo humanoid, PD + feedback controller, multi-objective evolution."""

from vhuman.control.controller import (
    BodySkeleton,
    Controller,
    default_controller_path,
    initial_controller,
    load_controller,
    standing_controller,
)
from vhuman.control.evolution import Evaluation, EvolutionConfig, EvolutionResult, evolve
from vhuman.control.gait import GaitProblem, optimize_gait
from vhuman.control.model import Humanoid, build_humanoid, skeleton_signature
from vhuman.control.optimize import WalkProblem, optimize_controller
from vhuman.control.refine import held_tracking_rmse, refine_keyframes
from vhuman.control.simulation import (
    Push,
    PushDirection,
    SimulationResult,
    parse_push,
    simulate,
)

__all__ = [
    "BodySkeleton",
    "Controller",
    "Evaluation",
    "EvolutionConfig",
    "EvolutionResult",
    "GaitProblem",
    "Humanoid",
    "Push",
    "PushDirection",
    "SimulationResult",
    "WalkProblem",
    "build_humanoid",
    "default_controller_path",
    "evolve",
    "held_tracking_rmse",
    "initial_controller",
    "load_controller",
    "optimize_controller",
    "optimize_gait",
    "parse_push",
    "refine_keyframes",
    "simulate",
    "skeleton_signature",
    "standing_controller",
]
