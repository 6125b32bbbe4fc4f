"""The walking-controller optimisation: the feedback matrix found by `evolution.evolve`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.control.controller import (
    FEEDBACK_SHAPE,
    SIMBICON_FEEDBACK,
    Controller,
    initial_controller,
)
from vhuman.control.evolution import Evaluation, EvolutionConfig, EvolutionResult, evolve
from vhuman.control.executors import make_executor
from vhuman.control.simulation import simulate
from vhuman.errors import InputError
from vhuman.io._common import PathLike

__all__ = [
    "FEEDBACK_BOUND",
    "FEEDBACK_LOWER",
    "FEEDBACK_UPPER",
    "OBJECTIVE_NAMES",
    "WalkProblem",
    "optimize_controller",
]

FEEDBACK_BOUND = 0.3
"""Each feedback-matrix entry is searched within ± this of :data:`SIMBICON_FEEDBACK`."""
FEEDBACK_LOWER = SIMBICON_FEEDBACK.ravel() - FEEDBACK_BOUND
"""Lower corner of the search box (flattened feedback matrix, 24 values)."""
FEEDBACK_UPPER = SIMBICON_FEEDBACK.ravel() + FEEDBACK_BOUND
"""Upper corner of the search box."""
OBJECTIVE_NAMES = ("tracking_rmse_rad", "energy_j_per_cycle", "torso_sway_rad")
_initial = cache(initial_controller)
_SELF_COLLISION_LIMIT = 0.25  # share of the run with self-contact that counts as a violation


@dataclass(frozen=True)
class WalkProblem:
    """Simulation of one feedback matrix (a picklable callable for the executors).

    Calling it with ``x (24,)`` and a horizon [cycles] simulates the initial
    controller with feedback ``x.reshape(4, 6)`` and returns the objectives
    (tracking RMSE [rad], energy per cycle [J], torso sway [rad]), gait
    cycles survived, and whether self-collision lasted over 25 % of the run (the swing foot brushing
    the stance shin is common in this narrow gait).
    """

    clip: str = "walk"
    keyframes: int = 20

    def controller(self, x: NDArray[np.float64]) -> Controller:
        """The initial controller with feedback matrix ``x``."""
        return _initial(self.clip, self.keyframes).with_feedback(
            np.asarray(x).reshape(FEEDBACK_SHAPE)
        )

    def __call__(self, x: NDArray[np.float64], horizon: float) -> Evaluation:
        result, _ = simulate(self.controller(x), horizon, record_fps=None)
        survived = result.steps / 2.0
        cycles = max(survived, 0.5)
        return Evaluation(
            objectives=(result.tracking_rmse_rad, result.energy_j / cycles, result.torso_sway_rad),
            survived=float(survived),
            violation=result.self_collision_s
            > _SELF_COLLISION_LIMIT * max(result.duration_s, 1e-9),
        )


def optimize_controller(
    clip: str = "walk",
    *,
    generations: int = 10,
    population: int = 12,
    target_cycles: float = 20.0,
    window_step: float = 5.0,
    seed: int = 0,
    workers: int = 1,
    scheduler: str | None = None,
    screen: bool = True,
    checkpoint: PathLike | None = None,
    on_generation: Callable[[dict[str, Any]], None] | None = None,
) -> tuple[Controller, EvolutionResult]:
    """Evolve the feedback matrix of the walking controller of ``clip``.

    Returns the controller with the best individual's feedback matrix (its
    ``meta`` records the run) and the evolution's result.

    Raises
    ------
    InputError
        For an unknown clip or a non-positive budget (generations, population,
        target cycles, workers).
    """
    for name, value in (("generations", generations), ("population", population),
                        ("workers", workers)):  # fmt: skip
        if int(value) != value or value < 1:
            raise InputError(f"{name} must be a positive integer, got {value}")
    if not (np.isfinite(target_cycles) and target_cycles > 0):
        raise InputError(f"target cycles must be > 0, got {target_cycles}")
    problem = WalkProblem(clip)
    problem.controller(np.zeros(FEEDBACK_SHAPE))  # unknown clip → InputError before any work
    config = EvolutionConfig(
        lower=FEEDBACK_LOWER,
        upper=FEEDBACK_UPPER,
        x0=SIMBICON_FEEDBACK.ravel(),
        population=population,
        generations=generations,
        window_start=min(window_step, target_cycles),
        window_step=window_step,
        target=target_cycles,
        screen=screen,
    )
    with make_executor(workers, scheduler) as executor:
        result = evolve(problem, config, rng=seed, executor=executor, checkpoint=checkpoint,
                        on_generation=on_generation)  # fmt: skip
    ctrl = problem.controller(result.best)
    meta = dict(ctrl.meta)
    meta.update({
        "optimised": {
            "seed": seed, "generations": result.generations, "population": population,
            "target_cycles": target_cycles, "window_reached": result.window,
            "reached_target": result.reached_target, "simulations": result.simulations,
            "screened": result.screened, "objectives": list(OBJECTIVE_NAMES),
            "best_objectives": list(result.best_evaluation.objectives),
            "best_survived_cycles": result.best_evaluation.survived,
        }
    })  # fmt: skip
    return replace(ctrl, meta=meta), result
