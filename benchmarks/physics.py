"""Physics benchmark: evolution ablation, closed-loop simulation speed, worker scaling.

Ablation (same seed, same simulation budget, horizon = target cycles):
- full: the seed-003 evolution (SVM pre-screen, Weibull resampling, density, window);
- no-svm: the same without the pre-screen;
- nsga2: pymoo's plain NSGA-II on the objectives with "cycles short of the target" as
  a constraint;
- cma: CMA-ES (``cma``) on a weighted objective (objectives + 10 × cycles short), started at the
  initial controller like the evolution's first population.
Figures: simulations until a walker (an individual surviving the target) first
appears (None if never), best objectives among walkers, wall time.

Run: ``python benchmarks/physics.py [--budget 120] [--target 4] [--seed 0] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from vhuman.control.controller import SIMBICON_FEEDBACK, default_controller_path, load_controller
from vhuman.control.evolution import EvolutionConfig, evolve
from vhuman.control.optimize import FEEDBACK_BOUND, FEEDBACK_LOWER, FEEDBACK_UPPER, WalkProblem
from vhuman.control.simulation import simulate

DIM = 24


class Counter:
    """Wraps the problem; records every simulation's survival in order."""

    def __init__(self, problem: WalkProblem, target: float) -> None:
        self.problem, self.target = problem, target
        self.log: list[tuple[float, tuple[float, ...]]] = []

    def __call__(self, x: np.ndarray, horizon: float):
        e = self.problem(x, horizon)
        self.log.append((e.survived, e.objectives))
        return e

    def summary(self, wall: float) -> dict:
        first = next((i + 1 for i, (s, _) in enumerate(self.log) if s >= self.target - 1e-9),
                     None)  # fmt: skip
        walkers = [o for s, o in self.log if s >= self.target - 1e-9]
        return {
            "simulations": len(self.log),
            "simulations_to_walker": first,
            "walkers": len(walkers),
            "best_objectives": np.min(walkers, axis=0).tolist() if walkers else None,
            "max_survived_cycles": max(s for s, _ in self.log) if self.log else 0.0,
            "wall_s": wall,
        }


def run_evolution(screen: bool, budget: int, target: float, seed: int, pop: int) -> dict:
    c = Counter(WalkProblem(), target)
    step = max(target / 4.0, 1.0)
    cfg = EvolutionConfig(lower=FEEDBACK_LOWER, upper=FEEDBACK_UPPER, x0=SIMBICON_FEEDBACK.ravel(),
                          population=pop, generations=max(budget // pop - 1, 1), target=target,
                          window_start=min(step, target), window_step=step,
                          screen=screen)  # fmt: skip
    t = time.perf_counter()
    evolve(c, cfg, rng=seed)
    return c.summary(time.perf_counter() - t)


def run_nsga2(budget: int, target: float, seed: int, pop: int) -> dict:
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.core.problem import ElementwiseProblem
    from pymoo.optimize import minimize

    c = Counter(WalkProblem(), target)

    class P(ElementwiseProblem):
        def __init__(self) -> None:
            super().__init__(n_var=DIM, n_obj=3, n_ieq_constr=1, xl=FEEDBACK_LOWER,
                             xu=FEEDBACK_UPPER)  # fmt: skip

        def _evaluate(self, x, out, *args, **kwargs) -> None:
            e = c(x, target)
            out["F"] = list(e.objectives)
            out["G"] = [target - e.survived + (1.0 if e.violation else 0.0)]

    t = time.perf_counter()
    minimize(P(), NSGA2(pop_size=pop), ("n_evals", budget), seed=seed, verbose=False)
    return c.summary(time.perf_counter() - t)


def run_cma(budget: int, target: float, seed: int, pop: int) -> dict:
    import cma

    c = Counter(WalkProblem(), target)
    es = cma.CMAEvolutionStrategy(SIMBICON_FEEDBACK.ravel(), FEEDBACK_BOUND / 3, {
        "bounds": [list(FEEDBACK_LOWER), list(FEEDBACK_UPPER)], "seed": seed + 1, "popsize": pop,
        "verbose": -9, "maxfevals": budget})  # fmt: skip
    t = time.perf_counter()
    while not es.stop() and len(c.log) < budget:
        xs = es.ask()
        fs = []
        for x in xs:
            e = c(np.asarray(x), target)
            o = e.objectives
            fs.append(o[0] + o[1] / 1000.0 + o[2] + 10.0 * max(target - e.survived, 0.0))
        es.tell(xs, fs)
    return c.summary(time.perf_counter() - t)


def _sim(seconds: float) -> float:
    ctrl = load_controller(default_controller_path())
    t = time.perf_counter()
    done = 0.0
    while done < seconds:
        r, _ = simulate(ctrl, 5.0, record_fps=None, stop_on_fall=False)
        done += r.duration_s
    return done / (time.perf_counter() - t)


def speed(seconds: float) -> dict:
    """Closed-loop speed on one core and throughput with 1 vs 2 processes."""
    one = _sim(seconds)
    out = {"sim_speed_x_realtime_1core": one}
    for n in (1, 2):
        with ProcessPoolExecutor(n) as pool:
            t = time.perf_counter()
            total = sum(pool.map(_sim_total, [seconds] * (2 * n)))
            out[f"throughput_{n}_proc_x_realtime"] = total / (time.perf_counter() - t)
    out["scaling_2_vs_1"] = out["throughput_2_proc_x_realtime"] / out[
        "throughput_1_proc_x_realtime"]  # fmt: skip
    return out


def _sim_total(seconds: float) -> float:
    """Simulate ``seconds`` of closed-loop walking; return the simulated time [s]."""
    _sim(seconds)
    return seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=120, help="simulations per method")
    ap.add_argument("--population", type=int, default=12)
    ap.add_argument("--target", type=float, default=20.0, help="target cycles")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--speed-seconds", type=float, default=20.0)
    ap.add_argument("--skip-ablation", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    results: dict = {"speed": speed(args.speed_seconds)}
    if not args.skip_ablation:
        b, tg, s, p = args.budget, args.target, args.seed, args.population
        results["ablation"] = {
            "full": run_evolution(True, b, tg, s, p),
            "no_svm": run_evolution(False, b, tg, s, p),
            "nsga2": run_nsga2(b, tg, s, p),
            "cma": run_cma(b, tg, s, p),
        }
    if args.json:
        print(json.dumps(results))
        return
    for k, v in results["speed"].items():
        print(f"{k:34s} {v:8.2f}")
    for name, r in results.get("ablation", {}).items():
        print(f"{name:8s} sims={r['simulations']:4d} to_walker={r['simulations_to_walker']} "
              f"max_survived={r['max_survived_cycles']:.2f} best={r['best_objectives']} "
              f"wall={r['wall_s']:.1f}s")  # fmt: skip


if __name__ == "__main__":
    main()
