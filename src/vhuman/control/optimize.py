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
from vhuman.control.evolution import (
    Evaluation,
    EvolutionConfig,
    EvolutionResult,
    evolve,
    resumable_state,
)
from vhuman.control.simulation import Push, PushDirection, simulate
from vhuman.errors import InputError
from vhuman.executor import make_executor
from vhuman.io.filesystem import PathLike

__all__ = [
    "FEEDBACK_BOUND",
    "FEEDBACK_LOWER",
    "FEEDBACK_UPPER",
    "OBJECTIVE_NAMES",
    "PLACEMENT_RANGES",
    "PROBE_OBJECTIVE_NAMES",
    "PUSH_FORCE",
    "PUSH_GROWTH",
    "SEARCH_LOWER",
    "SEARCH_UPPER",
    "SEARCH_X0",
    "WalkProblem",
    "check_pushes",
    "optimize_controller",
    "probe_loss",
    "push_series",
]

FEEDBACK_BOUND = 0.3
"""Each feedback-matrix entry is searched within ± this of :data:`SIMBICON_FEEDBACK`, except
the foot-placement gains (see :data:`PLACEMENT_RANGES`)."""
PLACEMENT_RANGES = {
    (0, 0): (-0.6, 0.05),
    (0, 1): (-0.6, 0.05),
    (1, 2): (0.3, 1.5),
    (1, 3): (0.0, 0.8),
}
"""Search ranges of the foot-placement gains (feedback matrix ``(row, column)``), kept on their
stabilising side (SIMBICON's signs: the swing foot lands further along the way the centre of
mass is off or moving): swing hip pitch from d_x and v_x (flexion is negative), swing hip roll
from d_y and v_y."""


def _feedback_box() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    lower = SIMBICON_FEEDBACK.ravel() - FEEDBACK_BOUND
    upper = SIMBICON_FEEDBACK.ravel() + FEEDBACK_BOUND
    for (row, col), (lo, hi) in PLACEMENT_RANGES.items():
        lower[row * FEEDBACK_SHAPE[1] + col], upper[row * FEEDBACK_SHAPE[1] + col] = lo, hi
    lower.flags.writeable = upper.flags.writeable = False
    return lower, upper


# Corners of the feedback part of the search box (flattened matrix, 24 values).
FEEDBACK_LOWER, FEEDBACK_UPPER = _feedback_box()
_WIDTH_RANGE = (0.0, 0.12)
IDEAL_SPEED_RANGE = (0.0, 0.8)
"""Search range of the ideal forward velocity [m/s] the feedback regulates v_x towards (the
feedback state's ideal ``v_x``): with 0, foot placement brakes every step, and a walker that
a backward push has stopped keeps placing its swing foot ahead of the centre of mass and
drifts backwards until it falls; near the walking speed, the swing foot lands under or behind
the centre of mass of a stopped walker and it walks on (velocity regulation as in Coros,
Beaudoin and van de Panne 2010)."""
TORSO_GAIN_RANGE = (1.0, 4.0)
"""Search range of the controller's ``torso_gain`` (factor on the pelvis's PD gains)."""
SEARCH_LOWER = np.concatenate(
    [FEEDBACK_LOWER, [_WIDTH_RANGE[0], IDEAL_SPEED_RANGE[0], TORSO_GAIN_RANGE[0]]]
)
"""Lower corner of the whole search box: the feedback matrix, the stance width [rad], the
ideal forward velocity [m/s] and the torso gain."""
SEARCH_UPPER = np.concatenate(
    [FEEDBACK_UPPER, [_WIDTH_RANGE[1], IDEAL_SPEED_RANGE[1], TORSO_GAIN_RANGE[1]]]
)
"""Upper corner of the whole search box."""
SEARCH_X0 = np.concatenate([SIMBICON_FEEDBACK.ravel(), [0.0, 0.0, 1.0]])
"""The hand-set start individual (SIMBICON's gains, no extra stance width, ideal velocity 0,
the pelvis's PD gains as they are)."""
OBJECTIVE_NAMES = ("tracking_rmse_rad", "energy_j_per_cycle", "torso_sway_rad")
PROBE_OBJECTIVE_NAMES = ("tracking_rmse_rad", "energy_j_per_cycle", "probe_time_lost")
"""Objectives with probe pushes (``probe_force`` > 0): the last is :func:`probe_loss`."""
PROBE_TIMES = (2.0, 2.1, 2.2, 2.3)
"""Start times [s] of the probe pushes (spread over about one step of this walk)."""
PROBE_WATCH = 3.0
"""How long [s] after a probe push ends the walker is watched for a fall."""
PUSH_FORCE = 30.0
"""Force [N] of the first push of the evaluation runs of the shipped controller."""
PUSH_GROWTH = 0.0
"""Growth [N] of the push force from one push to the next in those runs."""
_PUSH_START, _PUSH_EVERY, _PUSH_DURATION, _PUSH_COUNT = 2.0, 1.7, 0.2, 40
_PUSH_ORDER = (
    PushDirection.LEFT,
    PushDirection.FORWARD,
    PushDirection.RIGHT,
    PushDirection.BACKWARD,
)
_initial = cache(initial_controller)
_SELF_COLLISION_LIMIT = 0.25  # share of the run with self-contact that counts as a violation


def push_series(force: float, growth: float = 0.0) -> tuple[Push, ...]:
    """The pushes of an evaluation run: one every 1.7 s, turning direction.

    Push k (k = 0 … 39) has force ``force + k · growth`` [N], lasts 0.2 s and
    starts at ``2 + 1.7 k`` s, turning through left, forward, right, backward
    (1.7 s is no multiple of the ~0.37 s step, so the pushes land at different
    phases of the gait). No pushes when ``force`` ≤ 0.
    """
    if force <= 0.0:
        return ()
    return tuple(
        Push(
            force + k * growth,
            _PUSH_DURATION,
            _PUSH_START + _PUSH_EVERY * k,
            _PUSH_ORDER[k % len(_PUSH_ORDER)],
        )
        for k in range(_PUSH_COUNT)
    )


def probe_loss(ctrl: Controller, force: float) -> float:
    """Share of the time after single pushes that a walker spends fallen, in [0, 1].

    One run per direction (:class:`PushDirection`) and start time
    (:data:`PROBE_TIMES`): a 0.2 s chest push of ``force`` [N], the walker
    watched until :data:`PROBE_WATCH` s after the push ends. Each run loses the
    share of that watch after its fall (0: no fall); the result is their mean,
    0 when the walker survives every probe.
    """
    lost = 0.0
    runs = [(d, at) for d in PushDirection for at in PROBE_TIMES]
    for direction, at in runs:
        end = at + _PUSH_DURATION + PROBE_WATCH
        result, _ = simulate(
            ctrl,
            1.5 * end / ctrl.period,
            pushes=[Push(force, _PUSH_DURATION, at, direction)],
            record_fps=None,
        )
        if result.fell and result.fall_time_s is not None:
            lost += (end - min(max(result.fall_time_s, at), end)) / (end - at)
        elif result.duration_s < end - 1e-6:  # the run ended early without a fall
            lost += (end - result.duration_s) / (end - at)
    return lost / len(runs)


@dataclass(frozen=True)
class WalkProblem:
    """Simulation of one individual (a picklable callable for the executors).

    An individual ``x (27,)`` is the flattened feedback matrix (24 values),
    the stance width [rad], the ideal forward velocity [m/s] and the torso
    gain (:data:`SEARCH_LOWER`). Calling the problem with ``x`` and a horizon
    [cycles] simulates the initial controller with them while pushed by
    :func:`push_series` ``(push_force, push_growth)`` — a walker that only
    survives unperturbed is balanced on a knife's edge (rounding its gains to
    1e-6 can make it fall) — and returns the objectives (tracking RMSE [rad],
    energy per cycle [J], torso sway [rad]), the gait cycles survived, and
    whether self-collision lasted over 25 % of the run (the swing foot
    brushing the stance shin is common in this narrow gait).

    With ``probe_force`` > 0 the third objective is :func:`probe_loss` at
    that force instead of the torso sway (1 for an individual that does not
    walk the whole horizon: the probes are run only for those that do).

    ``base`` replaces ``initial_controller(clip, keyframes)`` as the
    controller the individuals modify (e.g. one with refined keyframes, see
    `vhuman.control.refine`); it travels with the problem to the workers.
    """

    clip: str = "walk"
    keyframes: int = 20
    push_force: float = 0.0
    push_growth: float = 0.0
    base: Controller | None = None
    probe_force: float = 0.0

    def controller(self, x: NDArray[np.float64]) -> Controller:
        """The initial controller with individual ``x``'s feedback matrix, stance width, ideal
        forward velocity and torso gain (each of the last three, when ``x`` has it)."""
        x = np.asarray(x, dtype=np.float64)
        size = FEEDBACK_SHAPE[0] * FEEDBACK_SHAPE[1]
        base = _initial(self.clip, self.keyframes) if self.base is None else self.base
        ctrl = base.with_feedback(x[:size].reshape(FEEDBACK_SHAPE))
        ctrl = replace(ctrl, stance_width=float(x[size]) if x.size > size else 0.0)
        if x.size > size + 1:
            ideal = ctrl.ideal.copy()
            ideal[:, 1] = x[size + 1]
            ctrl = replace(ctrl, ideal=ideal)
        if x.size > size + 2:
            ctrl = replace(ctrl, torso_gain=float(x[size + 2]))
        return ctrl

    def __call__(self, x: NDArray[np.float64], horizon: float) -> Evaluation:
        ctrl = self.controller(x)
        pushes = push_series(self.push_force, self.push_growth)
        result, _ = simulate(ctrl, horizon, pushes=pushes, record_fps=None)
        survived = result.steps / 2.0
        cycles = max(survived, 0.5)
        third = result.torso_sway_rad
        if self.probe_force > 0.0:
            walks = survived >= horizon - 1e-9 and not result.fell
            third = probe_loss(ctrl, self.probe_force) if walks else 1.0
        return Evaluation(
            objectives=(result.tracking_rmse_rad, result.energy_j / cycles, third),
            survived=float(survived),
            violation=result.self_collision_s
            > _SELF_COLLISION_LIMIT * max(result.duration_s, 1e-9),
        )


def check_pushes(push_force: float, push_growth: float) -> None:
    """Refuse a push force or growth [N] that is not a finite number >= 0.

    Raises
    ------
    InputError
        Naming both values.
    """
    if not all(np.isfinite(f) and f >= 0.0 for f in (push_force, push_growth)):
        raise InputError(f"push force and growth must be >= 0 N, got {push_force}, {push_growth}")


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
    push_force: float = PUSH_FORCE,
    push_growth: float = PUSH_GROWTH,
    refine_budget: int = 0,
    probe_force: float = 0.0,
    stop_at_target: bool = True,
    com_velocity: bool = False,
    xcom_margin: float | None = None,
    level_swing_foot: bool = False,
    quick_step_time: float | None = None,
    checkpoint: PathLike | None = None,
    on_generation: Callable[[dict[str, Any]], None] | None = None,
    log: PathLike | None = None,
) -> tuple[Controller, EvolutionResult]:
    """Evolve the feedback matrix, stance width, ideal forward velocity and torso gain of the
    walking controller of ``clip``.

    Every individual walks while pushed (``push_force`` [N], growing by
    ``push_growth`` per push, see :func:`push_series`; 0: no pushes). With
    ``probe_force`` > 0 [N], the third objective is :func:`probe_loss` at that force
    (push recovery) instead of the torso sway. With ``stop_at_target`` False the
    evolution spends all ``generations`` (see `EvolutionConfig`). With
    ``refine_budget`` > 0, the initial controller's keyframe targets are first
    refined by :func:`vhuman.control.refine.refine_keyframes` with that many
    simulations at most (the patent's step 1 before the evolution of step 2).
    ``com_velocity``, ``xcom_margin``, ``level_swing_foot`` and ``quick_step_time`` set
    those fields of every individual (`vhuman.control.controller.Controller`: the feedback
    on the centre of mass's velocity, the lateral foot placement beyond the extrapolated
    centre of mass, the swing sole held level, early swing shortened while the extrapolated
    centre of mass is past the stance foot).
    Returns the controller with the best individual's feedback matrix (its
    ``meta`` records the run) and the evolution's result. ``checkpoint``,
    ``on_generation`` and ``log``: see :func:`vhuman.control.evolution.evolve`.

    Raises
    ------
    InputError
        For an unknown clip or a non-positive budget (generations, population,
        target cycles, workers), a negative push, growth or probe force, or a
        refinement budget below one Gauss–Newton iteration.
    """
    for name, value in (
        ("generations", generations),
        ("population", population),
        ("workers", workers),
    ):
        if int(value) != value or value < 1:
            raise InputError(f"{name} must be a positive integer, got {value}")
    if not (np.isfinite(target_cycles) and target_cycles > 0):
        raise InputError(f"target cycles must be > 0, got {target_cycles}")
    check_pushes(push_force, push_growth)
    if not (np.isfinite(probe_force) and probe_force >= 0.0):
        raise InputError(f"probe push force must be finite and >= 0 N, got {probe_force}")
    if int(refine_budget) != refine_budget or refine_budget < 0:
        raise InputError(f"refinement budget must be a non-negative integer, got {refine_budget}")
    base = _initial(clip, WalkProblem.keyframes)  # unknown clip → InputError before any work
    base = replace(  # checks the margin and the quick step time
        base,
        com_velocity=com_velocity,
        xcom_margin=xcom_margin,
        level_swing_foot=level_swing_foot,
        quick_step_time=quick_step_time,
    )
    config = EvolutionConfig(
        lower=SEARCH_LOWER,
        upper=SEARCH_UPPER,
        x0=SEARCH_X0,
        population=population,
        generations=generations,
        window_start=min(window_step, target_cycles),
        window_step=window_step,
        target=target_cycles,
        screen=screen,
        stop_at_target=stop_at_target,
    )
    identity = {
        "clip": clip,
        "seed": seed,
        "push_force_n": float(push_force),
        "push_growth_n": float(push_growth),
        "refine_budget": int(refine_budget),
        "probe_force_n": float(probe_force),
        **({"com_velocity": True} if com_velocity else {}),
        **({} if xcom_margin is None else {"xcom_margin_m": float(xcom_margin)}),
        **({"level_swing_foot": True} if level_swing_foot else {}),
        **({} if quick_step_time is None else {"quick_step_time_s": float(quick_step_time)}),
    }
    resumable_state(checkpoint, config, identity)  # another run's checkpoint: refused now
    if refine_budget:
        from vhuman.control.refine import refine_keyframes

        base = refine_keyframes(base, int(refine_budget))
    problem = WalkProblem(
        clip,
        push_force=float(push_force),
        push_growth=float(push_growth),
        base=base,
        probe_force=float(probe_force),
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
            identity=identity,
        )
    ctrl = problem.controller(result.best)
    meta = dict(ctrl.meta)
    meta.update(
        {
            "optimised": {
                "seed": seed,
                "push_force_n": push_force,
                "push_growth_n": push_growth,
                "probe_force_n": probe_force,
                "stop_at_target": stop_at_target,
                "generations": result.generations,
                "population": population,
                "target_cycles": target_cycles,
                "window_reached": result.window,
                "reached_target": result.reached_target,
                "simulations": result.simulations,
                "screened": result.screened,
                "objectives": list(PROBE_OBJECTIVE_NAMES if probe_force else OBJECTIVE_NAMES),
                "best_objectives": list(result.best_evaluation.objectives),
                "best_survived_cycles": result.best_evaluation.survived,
            }
        }
    )
    return replace(ctrl, meta=meta), result
