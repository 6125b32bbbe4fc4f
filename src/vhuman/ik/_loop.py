"""The iteration driver of the iterative solvers: convergence, stalls, restarts, batch upkeep."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from vhuman.errors import InputError
from vhuman.ik._ops import Backend, Col, qaxis, quat_from_euler
from vhuman.ik._state import (
    ChainState,
    Outputs,
    Problem,
    chain_fk,
    errors,
    keep_best,
    recall_best,
    take,
)
from vhuman.ik._sweep import FK
from vhuman.ik.chain import Chain
from vhuman.ik.result import IKResult
from vhuman.skeleton import JointType

__all__ = ["check_solver_options", "iterate"]

# A solve whose error has not fallen by _PROGRESS of its best (or by the tolerance, if
# less) for _PATIENCE iterations is stalled: blocked by joint limits, crawling, or at the
# closest point to an unreachable target.
_PATIENCE = 12
_PROGRESS = 0.02


def check_solver_options(
    max_iterations: int,
    tolerance: float,
    orientation_tolerance: float,
    max_step: float | None = None,
    restarts: int = 0,
) -> None:
    """Raise `InputError` for option values out of range (shared by the solvers)."""
    if not (isinstance(max_iterations, int | np.integer) and max_iterations >= 1):
        raise InputError(f"max_iterations must be an integer >= 1, got {max_iterations!r}")
    if not (isinstance(restarts, int | np.integer) and restarts >= 0):
        raise InputError(f"restarts must be an integer >= 0, got {restarts!r}")
    if not (np.isfinite(tolerance) and tolerance > 0.0):
        raise InputError(f"tolerance must be a finite distance > 0 m, got {tolerance}")
    if not (np.isfinite(orientation_tolerance) and orientation_tolerance > 0.0):
        raise InputError(
            f"orientation_tolerance must be a finite angle > 0 rad, got {orientation_tolerance}"
        )
    if max_step is not None and not (max_step > 0.0):
        raise InputError(f"max_step must be an angle > 0 rad (inf for none), got {max_step}")


@dataclass(frozen=True, kw_only=True)
class SolverOptions:
    """The options every iterative solver has (documented on :class:`~vhuman.ik.CCD`)."""

    max_iterations: int = 300
    tolerance: float = 1e-3
    orientation_tolerance: float = 1e-2
    max_step: float = 1.0
    restarts: int = 5
    seed: int = 0

    def __post_init__(self) -> None:
        check_solver_options(
            self.max_iterations,
            self.tolerance,
            self.orientation_tolerance,
            self.max_step,
            self.restarts,
        )


def _restart(
    chain: Chain, st: ChainState, mask: Col, rng: np.random.Generator, xp: Backend
) -> None:
    """Give the chain joints of the targets in ``mask`` a random pose within their limits."""
    n = st.size

    def draw(lo: float, hi: float) -> Col:
        lo, hi = max(lo, -math.pi), min(hi, math.pi)
        values = rng.uniform(lo, hi, size=n)
        return float(values[0]) if not xp.batched else values

    for i, spec in enumerate(chain.specs):
        if spec.is_root or not spec.moving:
            continue
        if spec.kind is JointType.HINGE:
            theta = draw(spec.lower[0], spec.upper[0])
            qn = qaxis(spec.axis, theta, xp)
            st.theta[i] = xp.where(mask, theta, st.theta[i])
        else:
            angles = tuple(draw(lo, hi) for lo, hi in zip(spec.lower, spec.upper, strict=True))
            qn = quat_from_euler(angles, spec.euler, xp)  # type: ignore[arg-type]
        st.q[i] = tuple(xp.where(mask, a, b) for a, b in zip(qn, st.q[i], strict=True))  # type: ignore[assignment]


def iterate(
    problem: Problem,
    st: ChainState,
    step: Callable[[ChainState, FK], None],
    *,
    max_iterations: int,
    tolerance: float,
    orientation_tolerance: float,
    restarts: int = 0,
    seed: int = 0,
    escalate: Callable[[ChainState, Col], Col] | None = None,
) -> IKResult:
    """Run ``step(st, fk)`` until each target converges, stalls or uses ``max_iterations``.

    A stalled target (error not falling for a while) is first offered to
    ``escalate(st, stalled)``, which may move it to a next phase of the solver and
    returns those it moved; the others restart from a random pose within the
    limits (up to ``restarts`` times, drawn from ``seed``) or finish unconverged.
    Finished targets leave the batch, so their counts stop.
    """
    chain, xp = problem.chain, problem.xp
    outputs = Outputs(problem)
    weight = problem.orientation_weight
    rng = np.random.default_rng(seed)

    def converged(pe: Col, oe: Col | None) -> Col:
        ok = pe <= tolerance
        return ok if oe is None else ok & (oe <= orientation_tolerance)

    for it in range(max_iterations + 1):
        fk = chain_fk(chain, st)
        pe, oe = errors(st, fk[0][-1], fk[1][-1], xp)
        done = converged(pe, oe)
        score = pe if oe is None else pe + weight * oe
        # Progress: the error falls by _PROGRESS of its best, or by the tolerance when that
        # is less (a solve stretching towards an unreachable target still counts).
        need = xp.where(_PROGRESS * st.best < tolerance, _PROGRESS * st.best, tolerance)
        improved = score < st.best - need - 1e-3 * tolerance
        st.best = xp.where(improved, score, st.best)
        st.since_best = xp.where(improved, 0.0, st.since_best + 1.0)
        stalled = (st.since_best > _PATIENCE) & xp.not_(done) & (st.alive > 0.0)
        if escalate is not None and xp.any(stalled):
            moved = escalate(st, stalled)
            st.best = xp.where(moved, np.inf, st.best)
            st.since_best = xp.where(moved, 0.0, st.since_best)
            stalled = stalled & xp.not_(moved)
        retry = stalled & (st.restarts < restarts)
        if xp.any(retry):
            keep_best(st, retry, score, xp)
            _restart(chain, st, retry, rng, xp)
            st.restarts = st.restarts + retry
            st.best = xp.where(retry, np.inf, st.best)
            st.since_best = xp.where(retry, 0.0, st.since_best)
            stalled = stalled & xp.not_(retry)
            fk = chain_fk(chain, st)
        stop = done | stalled | (it == max_iterations)
        if restarts and xp.any(stop & (st.alive > 0.0)):
            recall_best(st, xp.where(stop & (st.alive > 0.0), score, -np.inf), xp)
        if not xp.batched:
            if stop:
                outputs.store(st, converged)
                return outputs.result()
        else:
            st.alive = np.where(stop, 0.0, st.alive)
            finished = st.alive == 0.0
            n_finished = int(np.count_nonzero(finished))
            if n_finished == st.size:
                outputs.store(st, converged)
                return outputs.result()
            # Dropping finished targets costs a copy of the state: do it in bulk.
            if n_finished * 4 >= st.size:
                outputs.store(st.take(np.flatnonzero(finished)), converged)
                keep = np.flatnonzero(~finished)
                st = st.take(keep)
                fk = take(fk, keep)
        st.iters = st.iters + st.alive
        step(st, fk)
    return outputs.result()  # pragma: no cover - the loop returns at it == max_iterations
