"""Physics benchmark: evolution ablation, simulation speed, worker scaling, keyframe refinement.

Ablation (same seed, same simulation budget, horizon = target cycles):
- full: the seed-003 evolution (SVM pre-screen, Weibull resampling, density, window);
- no-svm: the same without the pre-screen;
- nsga2: pymoo's plain NSGA-II on the objectives with "cycles short of the target" as
  a constraint;
- cma: CMA-ES (``cma``) on a weighted objective (objectives + 10 × cycles short), started at the
  initial controller like the evolution's first population.
Figures: simulations until a walker (an individual surviving the target) first
appears (None if never), best objectives among walkers, wall time.

Push sweep: per direction (forward, backward, left, right of the heading) and gait phase
(0, 0.25, 0.5, 0.75 of the sixth cycle of the unpushed run), the largest 0.2 s chest push
after which the walker walks on for 3 s, bisected to 5 N, beside the 250 N target and
SIMBICON's 350 N, and the smallest as an impulse per kg of body mass beside theirs
(SIMBICON's at 70 kg) (``--controller A.json B.json`` sweeps other controllers).
``benchmarks/physics_falls.py`` shows what ends the walk after a push.

Refinement (``--refine``): the walk's initial keyframe targets refined with the root held
(`vhuman.control.refine`, Levenberg–Marquardt) against CMA-ES on the same offset coefficients,
objective and simulation budget; figures: held-root tracking RMSE of the refined hinges before
and after, simulations, CPU time; then the shipped controller walking 20 cycles with its own
(clip) targets and with the refined ones (feedback unchanged): tracking RMSE overall, of the
refined hinges and of the rest, cycles and speed.

Run: ``python benchmarks/physics.py`` runs every part (9 minutes here at load 4-5: 1 for
speed, pushes and refinement, 8 for the ablation); each
``--skip-{speed,pushes,refine,ablation}`` leaves one out, ``--budget``, ``--seeds``,
``--target`` size the ablation (the push sweep of the shipped walk alone took 50 s of wall
time at load 9: 16 bisections, 4 directions × 4 phases). Prints the tables, then one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from headline import figure, run_script
from vhuman.control.controller import default_controller_path, load_controller
from vhuman.control.evolution import EvolutionConfig, evolve
from vhuman.control.optimize import (
    PUSH_FORCE,
    SEARCH_LOWER,
    SEARCH_UPPER,
    SEARCH_X0,
    WalkProblem,
)
from vhuman.control.simulation import Push, simulate

DIM = len(SEARCH_X0)


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
        first = next((i + 1 for i, (s, _) in enumerate(self.log) if s >= self.target - 1e-9), None)
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
    c = Counter(WalkProblem(push_force=PUSH_FORCE), target)
    step = max(target / 4.0, 1.0)
    cfg = EvolutionConfig(
        lower=SEARCH_LOWER,
        upper=SEARCH_UPPER,
        x0=SEARCH_X0,
        population=pop,
        generations=max(budget // pop - 1, 1),
        target=target,
        window_start=min(step, target),
        window_step=step,
        screen=screen,
    )
    t = time.perf_counter()
    evolve(c, cfg, rng=seed)
    return c.summary(time.perf_counter() - t)


def run_nsga2(budget: int, target: float, seed: int, pop: int) -> dict:
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.core.problem import ElementwiseProblem
    from pymoo.optimize import minimize

    c = Counter(WalkProblem(push_force=PUSH_FORCE), target)

    class P(ElementwiseProblem):
        def __init__(self) -> None:
            super().__init__(n_var=DIM, n_obj=3, n_ieq_constr=1, xl=SEARCH_LOWER, xu=SEARCH_UPPER)

        def _evaluate(self, x, out, *args, **kwargs) -> None:
            e = c(x, target)
            out["F"] = list(e.objectives)
            out["G"] = [target - e.survived + (1.0 if e.violation else 0.0)]

    t = time.perf_counter()
    minimize(P(), NSGA2(pop_size=pop), ("n_evals", budget), seed=seed, verbose=False)
    return c.summary(time.perf_counter() - t)


def run_cma(budget: int, target: float, seed: int, pop: int) -> dict:
    import cma

    c = Counter(WalkProblem(push_force=PUSH_FORCE), target)
    span = SEARCH_UPPER - SEARCH_LOWER  # CMA-ES searches the box scaled to [0, 1]
    es = cma.CMAEvolutionStrategy(
        (SEARCH_X0 - SEARCH_LOWER) / span,
        0.15,
        {
            "bounds": [0.0, 1.0],
            "seed": seed + 1,
            "popsize": pop,
            "verbose": -9,
            "maxfevals": budget,
        },
    )
    t = time.perf_counter()
    while not es.stop() and len(c.log) < budget:
        xs = es.ask()
        fs = []
        for x in xs:
            e = c(SEARCH_LOWER + np.asarray(x) * span, target)
            o = e.objectives
            fs.append(o[0] + o[1] / 1000.0 + o[2] + 10.0 * max(target - e.survived, 0.0))
        es.tell(xs, fs)
    return c.summary(time.perf_counter() - t)


def _sim(seconds: float) -> tuple[float, float, float]:
    """Simulate at least ``seconds`` of closed-loop walking (runs of 5 cycles); return the
    simulated time, the wall time and this process's CPU time [s]."""
    ctrl = load_controller(default_controller_path())
    t, c = time.perf_counter(), time.process_time()
    done = 0.0
    while done < seconds:
        r, _ = simulate(ctrl, 5.0, record_fps=None, stop_on_fall=False)
        done += r.duration_s
    return done, time.perf_counter() - t, time.process_time() - c


def _warm() -> None:
    """Pool initializer: build the humanoid and load the clip before the clock starts.

    A worker ignores Ctrl-C, which reaches the whole process group: the parent
    handles it (see ``headline.run_script``), with no traceback from each worker.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _sim(0.1)


def speed(seconds: float) -> dict:
    """Closed-loop speed on one core and throughput with 1 vs 2 worker processes.

    Each of ``2 n`` tasks simulates ``seconds``; throughput is the simulated time over the wall
    time of the batch. ``cpu_*`` figures divide by CPU time instead (what the work costs,
    whatever else the machine runs); the load average is recorded alongside.
    """
    _sim(0.1)
    done, wall, cpu = _sim(seconds)
    out: dict = {
        "load_average_1min": os.getloadavg()[0],
        "cpu_count": os.cpu_count(),
        "sim_speed_x_realtime_1core": done / wall,
        "sim_speed_x_realtime_1core_cpu": done / cpu,
    }
    for n in (1, 2):
        with ProcessPoolExecutor(n, initializer=_warm) as pool:
            list(pool.map(_warm_task, range(n)))  # all workers up and warm
            t = time.perf_counter()
            runs = list(pool.map(_sim, [seconds] * (2 * n)))
            wall = time.perf_counter() - t
        total = sum(r[0] for r in runs)
        out[f"throughput_{n}_proc_x_realtime"] = total / wall
        out[f"throughput_{n}_proc_cpu_x_realtime_per_process"] = total / sum(r[2] for r in runs)
    out["scaling_2_vs_1"] = (
        out["throughput_2_proc_x_realtime"] / out["throughput_1_proc_x_realtime"]
    )
    return out


def _warm_task(_: int) -> None:
    time.sleep(0.2)


PUSH_PHASES = (0.0, 0.25, 0.5, 0.75)
"""Gait phases of the push sweep (0: a foot strike that starts a cycle, 0.5: the other foot's)."""
PUSH_CYCLE = 5
"""The sweep pushes during the gait cycle that starts at this many cycles."""
SIMBICON_PUSH_N = 350.0
"""Largest 0.2 s torso push SIMBICON's walker survives (Yin, Loken, van de Panne 2007)."""
TARGET_PUSH_N = 250.0
"""The push [N] (0.2 s, any direction and phase) a walker is to survive."""
PUSH_S = 0.2
"""Duration [s] of the sweep's pushes (SIMBICON's)."""
SIMBICON_MASS_KG = 70.0
"""Body mass [kg] the SIMBICON push is compared at, per kg (an adult's; Simbody's SIMBICON
example humanoid weighs 70.4 kg, its segment masses summed)."""


def push_times(ctrl, phases=PUSH_PHASES, cycle: int = PUSH_CYCLE) -> dict[float, float]:
    """Push start time [s] per gait phase: the unpushed run's strikes at ``cycle`` and
    ``cycle + 1`` cycles (a run of n cycles ends at its 2 n-th foot strike) interpolated."""
    t0 = simulate(ctrl, float(cycle), record_fps=None)[0].duration_s
    t1 = simulate(ctrl, float(cycle + 1), record_fps=None)[0].duration_s
    return {phase: t0 + phase * (t1 - t0) for phase in phases}


def survives_push(ctrl, force: float, direction: str, at: float) -> bool:
    """Whether ``ctrl`` walks on (no fall for 3 s after it ends) after one 0.2 s push."""
    end = at + PUSH_S + 3.0
    r, _ = simulate(
        ctrl, 1.5 * end / ctrl.period, pushes=[Push(force, PUSH_S, at, direction)], record_fps=None
    )
    return not r.fell and r.duration_s >= end - 1e-6


def largest_push(ctrl, direction: str, at: float, hi: float = 600.0, tol: float = 5.0) -> float:
    """Bisection for the largest force [N] (within ``tol``) survived in one direction."""
    lo = 0.0
    if not survives_push(ctrl, tol, direction, at):
        return 0.0
    if survives_push(ctrl, hi, direction, at):
        return hi
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if survives_push(ctrl, mid, direction, at):
            lo = mid
        else:
            hi = mid
    return lo


def push_limits(ctrl) -> dict:
    """Largest push survived per direction and gait phase, and the smallest over the phases."""
    times = push_times(ctrl)
    mass = float(ctrl.humanoid.model.body_subtreemass[1])
    out: dict = {"push_start_s": {f"{p:g}": t for p, t in times.items()}, "mass_kg": mass}
    for name in ("forward", "backward", "left", "right"):
        per_phase = {f"{p:g}": largest_push(ctrl, name, t) for p, t in times.items()}
        worst = min(per_phase.values())
        out[name] = {
            "per_phase_n": per_phase,
            "min_n": worst,
            "min_impulse_n_s_per_kg": worst * PUSH_S / mass,
        }
    return out


def _cma_refine(ctrl, budget: int, seed: int) -> tuple[float, int]:
    """Held-root RMSE [rad] CMA-ES reaches on `refine_keyframes`' problem within ``budget``
    simulations, and the simulations used."""
    import cma

    from vhuman.control.refine import offset_problem

    problem = offset_problem(ctrl)

    def loss(x: np.ndarray) -> float:
        return float(np.linalg.norm(problem.residuals(np.asarray(x))))

    x0 = np.zeros(problem.n_coefficients)
    es = cma.CMAEvolutionStrategy(x0, 0.03, {"seed": seed + 1, "verbose": -9, "maxfevals": budget})
    best, used = loss(x0), 1
    while not es.stop() and used + es.popsize <= budget:
        xs = es.ask()
        fs = [loss(x) for x in xs]
        used += len(xs)
        best = min(best, *fs)
        es.tell(xs, fs)
    return best, used


def refinement(budget: int, seed: int) -> dict:
    """Held-root refinement of the walk's keyframes (LM vs CMA-ES) and its effect on walking."""
    from dataclasses import replace

    from vhuman.control.controller import initial_controller
    from vhuman.control.refine import keyframe_hinges, refine_keyframes

    ctrl = initial_controller("walk")
    cpu = time.process_time()
    refined = refine_keyframes(ctrl, budget)
    lm_cpu = time.process_time() - cpu
    cpu = time.process_time()
    cma_rmse, cma_used = _cma_refine(ctrl, budget, seed)
    meta = refined.meta["refined"]
    out: dict = {
        "budget": budget,
        "held_rmse_before_rad": meta["held_rmse_before_rad"],
        "lm": {
            "held_rmse_after_rad": meta["held_rmse_after_rad"],
            "simulations": meta["simulations"],
            "cpu_s": lm_cpu,
        },
        "cma": {
            "held_rmse_after_rad": cma_rmse,
            "simulations": cma_used,
            "cpu_s": time.process_time() - cpu,
        },
    }
    shipped = load_controller(default_controller_path())
    upper = list(keyframe_hinges(ctrl))
    rest = [i for i in range(ctrl.targets.shape[1]) if i not in upper]
    for name, targets in (
        ("walk_clip_targets", shipped.targets),
        ("walk_refined", refined.targets),
    ):
        r, _ = simulate(replace(shipped, targets=targets), 20.0, record_fps=None)
        e = np.array(r.tracking_rmse_per_hinge_rad)
        out[name] = {
            "cycles": r.cycles_completed,
            "fell": r.fell,
            "tracking_rmse_rad": r.tracking_rmse_rad,
            "refined_hinges_rmse_rad": float(np.sqrt(np.mean(e[upper] ** 2))),
            "other_hinges_rmse_rad": float(np.sqrt(np.mean(e[rest] ** 2))),
            "speed_m_s": r.distance_m / r.duration_s,
        }
    return out


def _tables(results: dict) -> list[Table]:
    """The benchmark's figures as tables for people."""
    tables = []
    if "speed" in results:
        t = Table(title="closed-loop simulation speed (shipped walker)", show_header=False)
        for k, v in results["speed"].items():
            t.add_row(k, f"{v:.2f}")
        tables.append(t)
    for label, pushes in results.get("pushes", {}).items():
        t = Table(title=f"largest 0.2 s chest push survived (N) by gait phase, {label}")
        t.add_column("direction")
        for phase in PUSH_PHASES:
            t.add_column(f"phase {phase:g}", justify="right")
        for col in ("smallest", "target", "SIMBICON", "smallest N s/kg", "target", "SIMBICON"):
            t.add_column(col, justify="right")
        per_kg = PUSH_S / pushes["mass_kg"]
        for name in ("forward", "backward", "left", "right"):
            v = pushes[name]
            t.add_row(
                name,
                *(f"{f:.0f}" for f in v["per_phase_n"].values()),
                f"{v['min_n']:.0f}",
                f"{TARGET_PUSH_N:.0f}",
                f"{SIMBICON_PUSH_N:.0f}",
                f"{v['min_impulse_n_s_per_kg']:.2f}",
                f"{TARGET_PUSH_N * per_kg:.2f}",
                f"{SIMBICON_PUSH_N * PUSH_S / SIMBICON_MASS_KG:.2f}",
            )
        t.caption = (
            f"body mass {pushes['mass_kg']:.1f} kg; SIMBICON per kg at {SIMBICON_MASS_KG:g} kg"
        )
        tables.append(t)
    if "refine" in results:
        r = results["refine"]
        t = Table(title=f"refinement, held-root RMSE {r['held_rmse_before_rad']:.4f} rad before")
        for col in ("method", "RMSE after rad", "simulations", "CPU s"):
            t.add_column(col, justify="left" if col == "method" else "right")
        for name in ("lm", "cma"):
            m = r[name]
            t.add_row(
                name, f"{m['held_rmse_after_rad']:.4f}", str(m["simulations"]), f"{m['cpu_s']:.1f}"
            )
        tables.append(t)
        w = Table(title="shipped walker, 20 cycles, clip vs refined keyframe targets")
        for col in ("targets", "cycles", "RMSE rad", "refined hinges", "other hinges", "m/s"):
            w.add_column(col, justify="left" if col == "targets" else "right")
        for name in ("walk_clip_targets", "walk_refined"):
            v = r[name]
            w.add_row(
                name,
                str(v["cycles"]),
                f"{v['tracking_rmse_rad']:.4f}",
                f"{v['refined_hinges_rmse_rad']:.4f}",
                f"{v['other_hinges_rmse_rad']:.4f}",
                f"{v['speed_m_s']:.2f}",
            )
        tables.append(w)
    if "ablation" in results:
        t = Table(
            title="ablation: simulations until the first walker (none: not within the budget)"
        )
        t.add_column("method")
        seeds = list(results["ablation"])
        for seed in seeds:
            t.add_column(f"seed {seed}", justify="right")
        for method in results["ablation"][seeds[0]]:
            t.add_row(
                method,
                *(str(results["ablation"][s][method]["simulations_to_walker"]) for s in seeds),
            )
        tables.append(t)
    return tables


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--budget", type=int, default=240, help="ablation: simulations per method")
    ap.add_argument("--population", type=int, default=12)
    ap.add_argument("--target", type=float, default=20.0, help="target cycles")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2], help="ablation seeds")
    ap.add_argument("--speed-seconds", type=float, default=20.0)
    ap.add_argument("--skip-ablation", action="store_true")
    ap.add_argument("--skip-speed", action="store_true")
    ap.add_argument("--skip-pushes", action="store_true", help="no push bisection")
    ap.add_argument(
        "--controller", nargs="+", default=None, help="push sweep controllers (default: walk)"
    )
    ap.add_argument("--skip-refine", action="store_true", help="no keyframe refinement")
    ap.add_argument("--refine-budget", type=int, default=300, help="simulations per method")
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    results: dict = {}
    if not args.skip_speed:
        results["speed"] = speed(args.speed_seconds)
    if not args.skip_pushes:
        paths = args.controller or [str(default_controller_path())]
        results["pushes"] = {Path(p).name: push_limits(load_controller(p)) for p in paths}
    if not args.skip_refine:
        results["refine"] = refinement(args.refine_budget, args.seeds[0])
    if not args.skip_ablation:
        b, tg, p = args.budget, args.target, args.population
        results["ablation"] = {
            str(s): {
                "full": run_evolution(True, b, tg, s, p),
                "no_svm": run_evolution(False, b, tg, s, p),
                "nsga2": run_nsga2(b, tg, s, p),
                "cma": run_cma(b, tg, s, p),
            }
            for s in args.seeds
        }
    console = Console(width=120, highlight=False)
    for table in _tables(results):
        console.print(table)
    print(json.dumps({"benchmark": "physics", **results, "headline": headline(results)}))


def headline(results: dict) -> list[dict]:
    """Real-time factor, 2-worker scaling and the weakest push survived, where measured."""
    rows = []
    if "speed" in results:
        sp = results["speed"]
        rows += [
            figure(
                "physics", "simulation, one core", sp["sim_speed_x_realtime_1core"], "× real time"
            ),
            figure(
                "physics",
                "throughput, 2 workers",
                sp["throughput_2_proc_x_realtime"],
                "× real time",
                peer="1 worker",
                peer_value=sp["throughput_1_proc_x_realtime"],
            ),
        ]
    for name, limits in results.get("pushes", {}).items():
        worst = min(limits[d]["min_n"] for d in ("forward", "backward", "left", "right"))
        rows.append(
            figure("physics", f"weakest push survived, {name}", worst, "N", target=TARGET_PUSH_N)
        )
    return rows


if __name__ == "__main__":
    run_script(main)
