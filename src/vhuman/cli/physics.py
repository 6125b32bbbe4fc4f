"""`vhuman physics optimize|simulate`: evolve a walking controller, simulate one."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from vhuman.cli.errors import command_line, interruptible, user_errors
from vhuman.cli.options import renamed

__all__ = ["physics_app"]

physics_app = typer.Typer(
    help="Physics-based motion: MuJoCo humanoid, PD + feedback controller, evolution.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console(highlight=False, stderr=True)


@physics_app.command(cls=renamed({"--workers": "--jobs"}))
def optimize(
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Controller JSON to write.")
    ] = Path("controller.json"),
    clip: Annotated[str, typer.Option(help="DeepMimic clip name.")] = "walk",
    generations: Annotated[int, typer.Option(min=1, help="Generation budget.")] = 10,
    population: Annotated[
        int, typer.Option(min=2, help="Parents and offspring per generation.")
    ] = 12,
    target_cycles: Annotated[float, typer.Option(help="Target window (cycles).")] = 20.0,
    window_step: Annotated[
        float,
        typer.Option(
            help="How far the window moves (cycles); the first window is the smaller of this "
            "and the target (a step of the target: only individuals that walk the whole target "
            "are feasible)."
        ),
    ] = 5.0,
    jobs: Annotated[
        int,
        typer.Option("--jobs", "-j", min=1, help="Local worker processes (may differ on resume)."),
    ] = 1,
    scheduler: Annotated[
        str | None,
        typer.Option(help="Dask scheduler address, instead of --jobs (may differ on resume)."),
    ] = None,
    seed: Annotated[int, typer.Option(min=0, help="Random seed.")] = 0,
    checkpoint: Annotated[
        Path | None,
        typer.Option(
            help="Checkpoint JSON, written every generation; a run resumes from it when it "
            "exists, if every setting that changes the result is the same."
        ),
    ] = None,
    log: Annotated[
        Path | None,
        typer.Option(
            help="Per-generation log, JSON lines; on resume rewritten from the checkpoint, "
            "which holds every line (the path may differ on resume)."
        ),
    ] = None,
    no_screen: Annotated[bool, typer.Option("--no-screen", help="Ablation: no SVM.")] = False,
    push_force: Annotated[
        float, typer.Option(help="Force (N) of the pushes each individual walks through (0: none).")
    ] = 30.0,
    push_growth: Annotated[float, typer.Option(help="Push force growth per push (N).")] = 0.0,
    probe_force: Annotated[
        float,
        typer.Option(
            help="Force (N) of single probe pushes (0.2 s, each direction, four start times "
            "over about one step); the time a walker spends fallen after them replaces the "
            "torso sway as the third objective (0: no probes)."
        ),
    ] = 0.0,
    com_velocity: Annotated[
        bool,
        typer.Option(
            "--com-velocity",
            help="Feed back the centre of mass's velocity (SIMBICON's) instead of the pelvis's.",
        ),
    ] = False,
    xcom_margin: Annotated[
        float | None,
        typer.Option(
            help="Place the swing foot at least this far (m) beyond the extrapolated centre "
            "of mass towards the swing side (Hof 2008; default: no bound)."
        ),
    ] = None,
    level_swing_foot: Annotated[
        bool,
        typer.Option(
            "--level-swing-foot",
            help="Hold the swing foot's sole level with the ground (its world roll zero) "
            "instead of square to the shank.",
        ),
    ] = False,
    quick_step_time: Annotated[
        float | None,
        typer.Option(
            help="Early swing (s) while the extrapolated centre of mass is past the stance "
            "foot, away from the swing leg (a shorter step after a side push; default: the "
            "state time always)."
        ),
    ] = None,
    full_budget: Annotated[
        bool,
        typer.Option(
            "--full-budget",
            help="Spend every generation: go on improving the objectives of walkers after "
            "the window reaches the target.",
        ),
    ] = False,
    refine_budget: Annotated[
        int,
        typer.Option(
            help="Simulations for refining the keyframe targets before the evolution "
            "(0: none; otherwise at least one Jacobian's worth: 128 for the walk clip).",
            min=0,
        ),
    ] = 0,
    speed: Annotated[
        float | None,
        typer.Option(
            help="Evolve the gait of --base for this walking speed (m/s) instead of the "
            "feedback matrix of --clip's initial controller."
        ),
    ] = None,
    base: Annotated[
        Path | None,
        typer.Option(
            help="With --speed: the controller to start from (default: the shipped walk)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Evolve a walking controller (SVM-screened, multi-objective): its feedback matrix, or
    with --speed its gait for a walking speed."""
    from vhuman.control.optimize import optimize_controller
    from vhuman.errors import InputError
    from vhuman.io import check_writable

    resume = command_line() if checkpoint is not None else None
    with user_errors({"target cycles": "--target-cycles"}), interruptible(resume):
        check_writable(output, "--output")
        for path, name in ((checkpoint, "--checkpoint"), (log, "--log")):
            if path is not None:
                check_writable(path, name)
        lines: list[str] = []
        with Progress(
            TextColumn("generation"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[info]}"),
            TimeElapsedColumn(),
            console=console,
            disable=as_json,
            transient=True,
        ) as progress:
            task = progress.add_task("evolve", total=max(generations, 1), info="")

            def on_generation(entry: dict) -> None:
                lines.append(json.dumps(entry))
                info = f"window {entry['window']:g} sims {entry['simulations']}"
                progress.update(task, completed=entry["generation"], info=info)
                if not as_json:
                    console.print(lines[-1], soft_wrap=True)

            common = {
                "generations": generations,
                "population": population,
                "target_cycles": target_cycles,
                "window_step": window_step,
                "seed": seed,
                "workers": jobs,
                "scheduler": scheduler,
                "screen": not no_screen,
                "push_force": push_force,
                "push_growth": push_growth,
                "checkpoint": checkpoint,
                "on_generation": on_generation,
                "log": log,
            }
            if speed is None:
                if base is not None:
                    raise InputError("--base goes with --speed")
                ctrl, result = optimize_controller(
                    clip,
                    refine_budget=refine_budget,
                    probe_force=probe_force,
                    stop_at_target=not full_budget,
                    com_velocity=com_velocity,
                    xcom_margin=xcom_margin,
                    level_swing_foot=level_swing_foot,
                    quick_step_time=quick_step_time,
                    **common,
                )
            else:
                from vhuman.control.controller import default_controller_path, load_controller
                from vhuman.control.gait import optimize_gait

                if refine_budget:
                    raise InputError("--refine-budget does not go with --speed")
                if (
                    probe_force
                    or full_budget
                    or com_velocity
                    or xcom_margin is not None
                    or level_swing_foot
                    or quick_step_time is not None
                ):
                    raise InputError(
                        "--probe-force, --full-budget, --com-velocity, --xcom-margin, "
                        "--level-swing-foot and --quick-step-time do not go with --speed"
                    )
                base_ctrl = load_controller(base or default_controller_path())
                ctrl, result = optimize_gait(base_ctrl, speed, **common)
        ctrl.save(output)
    summary = {"controller": str(output), **result.to_dict()}
    if as_json:
        print(json.dumps(summary))
        return
    best = result.best_evaluation
    Console(highlight=False).print(
        f"wrote {output}: window {result.window:g}/{target_cycles:g} cycles, "
        f"best survived {best.survived:.2f} cycles, {result.simulations} simulations, "
        f"{result.screened} offspring screened out",
        soft_wrap=True,
    )


@physics_app.command()
def simulate(
    output: Annotated[
        Path,
        typer.Option("-o", "--output", help="Simulated motion to write (.bvh or .npz)."),
    ] = Path("simulate.bvh"),
    controller: Annotated[
        Path | None,
        typer.Option(
            help="Controller JSON, or a shipped one by name: walk (the default), "
            "walk_push_recovery, walk_push_xcom, walk_push_step, walk_1.0."
        ),
    ] = None,
    speed: Annotated[
        float | None,
        typer.Option(
            help="Target walking speed (m/s) of a shipped controller (1.0), instead of "
            "--controller."
        ),
    ] = None,
    cycles: Annotated[float, typer.Option(help="Gait cycles to simulate (two steps each).")] = 20.0,
    push: Annotated[
        list[str] | None,
        typer.Option(
            help="Push on the chest FORCE_N:DURATION_S:AT_S:DIRECTION, DIRECTION one of "
            "forward, backward, left, right (relative to the body's heading), "
            "e.g. 200:0.2:4.0:left; repeatable."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Simulate a controller: cycles completed, fall, walking speed and cadence, tracking error
    per joint, energy, simulation speed."""
    from vhuman.control.controller import (
        default_controller_path,
        load_controller,
        speed_controller_path,
    )
    from vhuman.control.simulation import parse_push
    from vhuman.control.simulation import simulate as run
    from vhuman.errors import InputError

    with user_errors():
        if controller is not None and speed is not None:
            raise InputError("give --controller or --speed, not both")
        path = speed_controller_path(speed) if speed is not None else controller
        ctrl = load_controller(path or default_controller_path())
        pushes = [parse_push(p) for p in push or []]
        with console.status("simulating", spinner="dots"):
            result, motion = run(ctrl, cycles, pushes=pushes, record_fps=30.0)
        if motion is not None:
            from vhuman.io import save_motion

            save_motion(motion, output)
    summary = {
        "output": None if motion is None else str(output),
        **result.to_dict(),
        **walking_figures(result.distance_m, result.duration_s, result.steps),
        "target_speed_m_s": ctrl.meta.get("gait", {}).get("target_speed_m_s"),
    }
    if as_json:
        print(json.dumps(summary))
        return
    Console(highlight=False).print(simulation_table(summary, cycles))


def walking_figures(distance: float, duration: float, steps: int) -> dict[str, float]:
    """Mean forward speed [m/s], cadence [steps/min] and step length [m] of a run."""
    speed = distance / duration if duration > 0 else 0.0
    cadence = 60.0 * steps / duration if duration > 0 else 0.0
    return {
        "speed_m_s": speed,
        "cadence_steps_min": cadence,
        "step_length_m": distance / steps if steps else 0.0,
    }


def simulation_table(summary: dict, asked_cycles: float) -> Table:
    """The figures of `vhuman physics simulate` as a two-column table for people."""
    table = Table(
        title=f"physics simulate → {summary['output'] or '(no motion)'}", show_header=False
    )
    fell = summary["fell"]
    table.add_row("cycles completed", f"{summary['cycles_completed']} of {asked_cycles:g}")
    table.add_row("fell", f"yes, at {summary['fall_time_s']:.2f} s" if fell else "no")
    table.add_row("simulated time", f"{summary['duration_s']:.2f} s")
    distance, duration = summary["distance_m"], summary["duration_s"]
    speed = distance / duration if duration > 0 else 0.0
    table.add_row("distance", f"{distance:.2f} m ({speed:.2f} m/s)")
    table.add_row(
        "steps",
        f"{summary['cadence_steps_min']:.0f} /min, {summary['step_length_m']:.2f} m each",
    )
    rmse = summary["tracking_rmse_rad"]
    table.add_row("tracking RMSE", f"{rmse:.3f} rad ({math.degrees(rmse):.1f}°), all hinges")
    table.add_row("torso sway", f"{summary['torso_sway_rad']:.3f} rad (RMS pitch and roll)")
    table.add_row("energy", f"{summary['energy_j']:,.0f} J")
    table.add_row("self-collision", f"{summary['self_collision_s']:.2f} s")
    for p in summary["pushes"]:
        table.add_row(
            "push",
            f"{p['force_n']:g} N for {p['duration_s']:g} s at {p['at_s']:g} s, {p['direction']}",
        )
    table.add_row("speed", f"{summary['sim_speed_x_realtime']:.0f}× real time")
    return table
