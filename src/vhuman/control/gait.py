"""Walking at a given speed: human cadence and step length, and the gait evolved to them.

People lengthen their steps and quicken them as they walk faster; over the CMU
walking trials cadence is close to ``60 + 30 v`` steps/min and step length to
``0.37 + 0.31 v`` m at speed ``v`` [m/s] (linear fits; their product agrees
with the speed within 3 % between 1.0 and 1.8 m/s). A SIMBICON walker (Yin,
Loken, van de Panne 2007) goes faster with a forward torso lean, a longer
reach of the swing hip and weaker sagittal foot-placement feedback.
:class:`GaitProblem` searches those with the state-machine timing, the cycle
period and the coronal placement gains (:data:`GAIT_VARIABLES`) by
`vhuman.control.evolution.evolve` (the same SVM-screened multi-objective
evolution as the feedback matrix), with the ideal forward velocity of the
feedback state set to the target speed (foot placement regulated towards a
desired velocity, as in Coros, Beaudoin and van de Panne 2010), scoring the
errors of speed and cadence from the human figures.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.control.controller import Controller
from vhuman.control.evolution import Evaluation, EvolutionConfig, EvolutionResult, evolve
from vhuman.control.optimize import check_pushes, push_series
from vhuman.control.simulation import simulate
from vhuman.errors import InputError
from vhuman.executor import make_executor
from vhuman.io.filesystem import PathLike

__all__ = [
    "GAIT_OBJECTIVES",
    "GAIT_VARIABLES",
    "GaitProblem",
    "gait_vector",
    "human_cadence",
    "human_step_length",
    "optimize_gait",
]

GAIT_VARIABLES: dict[str, tuple[float, float]] = {
    "torso_pitch": (-0.05, 0.35),
    "state_time": (0.25, 0.5),
    "swing_hip_early": (-0.9, -0.1),
    "swing_hip_late": (-0.7, 0.1),
    "swing_knee_early": (-1.4, -0.5),
    "period": (0.9, 1.6),
    "placement_d_x": (-0.6, 0.05),
    "placement_v_x": (-0.6, 0.05),
    "ideal_d_x": (-0.15, 0.15),
    "placement_d_y": (0.3, 1.5),
    "placement_v_y": (0.0, 0.8),
    "stance_width": (0.0, 0.12),
}
"""The searched gait settings and their ranges: torso pitch [rad] (forward lean positive),
state time [s], SIMBICON swing hip world pitch in early and late swing and swing knee in early
swing [rad], the cycle period [s] (two steps: it times the upper body's keyframes), the
feedback matrix's sagittal foot-placement gains (swing hip pitch from d_x [rad/m] and v_x
[rad s/m]), the ideal d_x [m] (centre of mass ahead of the stance ankle), the coronal ones
(swing hip roll from d_y and v_y) and the stance width [rad]. The state time and the period
are kept near human step times (a gait cycle of 1.1–1.3 s at 1.0–1.6 m/s): with shorter ones
the evolution finds a shuffle of quick short steps (over 200 steps/min) first."""
GAIT_OBJECTIVES = ("speed_error", "cadence_error", "torso_sway_rad")
"""Objectives of :class:`GaitProblem`: relative error of the forward speed and of the cadence
from the human figures at the target speed, and the torso sway [rad]."""
_LOWER = np.array([lo for lo, _ in GAIT_VARIABLES.values()])
_UPPER = np.array([hi for _, hi in GAIT_VARIABLES.values()])
_SELF_COLLISION_LIMIT = 0.25
MAX_SPEED = 3.0
"""Largest target speed [m/s] accepted (a walk, not a run)."""


def human_cadence(speed: float) -> float:
    """Cadence [steps/min] of people walking at ``speed`` [m/s]: ``60 + 30 v``."""
    return 60.0 + 30.0 * speed


def human_step_length(speed: float) -> float:
    """Step length [m] of people walking at ``speed`` [m/s]: ``0.37 + 0.31 v``."""
    return 0.37 + 0.31 * speed


def _check_speed(speed: float) -> float:
    if not (np.isfinite(speed) and 0.0 < speed <= MAX_SPEED):
        raise InputError(f"walking speed must be in (0, {MAX_SPEED:g}] m/s, got {speed}")
    return float(speed)


def gait_vector(ctrl: Controller) -> NDArray[np.float64]:
    """The searched settings ``(12,)`` of a walking controller (order of :data:`GAIT_VARIABLES`),
    clipped to their ranges.

    Raises
    ------
    InputError
        If the controller has no state machine (``gait`` is None).
    """
    if ctrl.gait is None:
        raise InputError("the controller has no gait state machine to tune")
    g = ctrl.gait
    x = np.array(
        [
            ctrl.torso_pitch,
            ctrl.state_time,
            g[0, 0],
            g[1, 0],
            g[0, 1],
            ctrl.period,
            ctrl.feedback[0, 0],
            ctrl.feedback[0, 1],
            float(np.mean(ctrl.ideal[:, 0])),
            ctrl.feedback[1, 2],
            ctrl.feedback[1, 3],
            ctrl.stance_width,
        ]
    )
    return np.clip(x, _LOWER, _UPPER)


@dataclass(frozen=True)
class GaitProblem:
    """Simulation of one gait individual for `evolve` (picklable).

    An individual ``x (12,)`` holds the settings of :data:`GAIT_VARIABLES`;
    they replace those of ``base`` (whose other feedback gains, stance width
    and upper-body keyframes stay), with the cycle period set to two steps at
    the human cadence, the start velocity and the ideal forward velocity set
    to ``speed``. Calling the problem with ``x`` and a horizon [cycles]
    simulates it (``max_cycles`` at most) while pushed by
    ``push_series(push_force, push_growth)`` and returns the
    objectives :data:`GAIT_OBJECTIVES`, the cycles survived and whether
    self-collision lasted over 25 % of the run.
    """

    base: Controller
    speed: float
    push_force: float = 0.0
    max_cycles: float = 20.0
    push_growth: float = 0.0

    def controller(self, x: NDArray[np.float64]) -> Controller:
        """``base`` with individual ``x``'s gait settings, for walking at ``speed``."""
        x = np.asarray(x, dtype=np.float64)
        if x.shape != (len(GAIT_VARIABLES),):
            raise InputError(f"a gait individual has {len(GAIT_VARIABLES)} values, got {x.shape}")
        (
            torso_pitch,
            state_time,
            hip_early,
            hip_late,
            knee_early,
            period,
            c_d,
            c_v,
            ideal_d,
            c_d_y,
            c_v_y,
            width,
        ) = x.tolist()
        assert self.base.gait is not None
        gait = self.base.gait.copy()
        gait[0, 0], gait[1, 0], gait[0, 1] = hip_early, hip_late, knee_early
        feedback = self.base.feedback.copy()
        feedback[0, 0], feedback[0, 1], feedback[1, 2], feedback[1, 3] = c_d, c_v, c_d_y, c_v_y
        ideal = self.base.ideal.copy()
        ideal[:, 0], ideal[:, 1] = ideal_d, self.speed
        start_qvel = self.base.start_qvel.copy()
        start_qvel[0] = self.speed
        meta = dict(self.base.meta)
        meta["gait"] = {
            "target_speed_m_s": self.speed,
            "settings": dict(zip(GAIT_VARIABLES, x.tolist(), strict=True)),
        }
        return replace(
            self.base,
            gait=gait,
            feedback=feedback,
            ideal=ideal,
            start_qvel=start_qvel,
            torso_pitch=torso_pitch,
            state_time=state_time,
            stance_width=width,
            period=period,
            meta=meta,
        )

    def __call__(self, x: NDArray[np.float64], horizon: float) -> Evaluation:
        ctrl = self.controller(x)
        horizon = min(horizon, self.max_cycles)
        result, _ = simulate(
            ctrl, horizon, pushes=push_series(self.push_force, self.push_growth), record_fps=None
        )
        duration = max(result.duration_s, 1e-9)
        speed = result.distance_m / duration
        cadence = 60.0 * result.steps / duration
        return Evaluation(
            objectives=(
                abs(speed - self.speed) / self.speed,
                abs(cadence - human_cadence(self.speed)) / human_cadence(self.speed),
                result.torso_sway_rad,
            ),
            survived=result.steps / 2.0,
            violation=result.self_collision_s > _SELF_COLLISION_LIMIT * duration,
        )


def optimize_gait(
    base: Controller,
    speed: float,
    *,
    generations: int = 20,
    population: int = 12,
    target_cycles: float = 20.0,
    window_step: float = 5.0,
    seed: int = 0,
    workers: int = 1,
    scheduler: str | None = None,
    push_force: float = 0.0,
    push_growth: float = 0.0,
    screen: bool = True,
    checkpoint: PathLike | None = None,
    on_generation: Callable[[dict[str, Any]], None] | None = None,
    log: PathLike | None = None,
) -> tuple[Controller, EvolutionResult]:
    """Evolve the gait settings of ``base`` for walking at ``speed`` [m/s].

    The first population holds ``base``'s own settings (:func:`gait_vector`).
    Individuals walk ``target_cycles`` at most, so the evolution's window
    stops there and the whole generation budget goes to the objectives among
    the walkers (it does not end at the first walker).
    Returns the controller of the best individual (its ``meta`` records the
    run and the target) and the evolution's result. ``checkpoint``,
    ``on_generation`` and ``log``: see :func:`vhuman.control.evolution.evolve`.

    Raises
    ------
    InputError
        For a speed outside (0, :data:`MAX_SPEED`], a controller without a
        state machine, a non-positive budget or a negative push force.
    """
    speed = _check_speed(speed)
    x0 = gait_vector(base)
    check_pushes(push_force, push_growth)
    problem = GaitProblem(base, speed, float(push_force), float(target_cycles), float(push_growth))
    config = EvolutionConfig(
        lower=_LOWER,
        upper=_UPPER,
        x0=x0,
        population=population,
        generations=generations,
        window_start=min(window_step, target_cycles),
        window_step=window_step,
        target=target_cycles + window_step,
        screen=screen,
    )
    with make_executor(workers, scheduler) as executor:
        result = evolve(
            problem,
            config,
            rng=seed,
            executor=executor,
            checkpoint=checkpoint,
            on_generation=on_generation,
            log=log,
            identity={
                "gait_speed_m_s": speed,
                "seed": seed,
                "push_force_n": float(push_force),
                "push_growth_n": float(push_growth),
                "base_signature": base.signature,
                "base_x": x0.tolist(),
                "base_feedback": base.feedback.ravel().tolist(),
            },
        )
    ctrl = problem.controller(result.best)
    meta = dict(ctrl.meta)
    meta["gait"] = {
        **meta["gait"],
        "seed": seed,
        "push_force_n": push_force,
        "push_growth_n": push_growth,
        "generations": result.generations,
        "population": population,
        "target_cycles": target_cycles,
        "window_reached": result.window,
        "walker": result.best_evaluation.survived >= target_cycles - 1e-9,
        "simulations": result.simulations,
        "objectives": list(GAIT_OBJECTIVES),
        "best_objectives": list(result.best_evaluation.objectives),
        "best_survived_cycles": result.best_evaluation.survived,
    }
    return replace(ctrl, meta=meta), result
