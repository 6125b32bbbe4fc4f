"""The `vhuman` Typer application: the commands and their registration."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer import Abort

# Typer runs on its own copy of click; its exceptions are the ones raised here.
from typer._click.exceptions import ClickException, NoArgsIsHelpError, UsageError

from vhuman import __version__
from vhuman.cli.ergo import ergo
from vhuman.cli.errors import command_line, interruptible, stderr, user_errors
from vhuman.cli.options import renamed
from vhuman.cli.physics import physics_app
from vhuman.cli.posture import posture
from vhuman.cli.predict import predict_app
from vhuman.cli.reaching import reach, swivel_app
from vhuman.cli.task import task
from vhuman.errors import InputError

__all__ = ["app", "main"]

app = typer.Typer(
    name="vhuman",
    help="Virtual humans: generate, control, score and show human motion and posture.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console(highlight=False)


def _version(value: bool) -> None:
    if value:
        console.print(f"vhuman {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool | None,
        typer.Option("--version", callback=_version, is_eager=True, help="Print the version."),
    ] = None,
) -> None:
    """Virtual humans: generate, control, score and show human motion and posture."""


UnitOption = Annotated[
    str | None,
    typer.Option(
        "--unit",
        help="Length unit of a BVH input: m, cm, mm, in, or auto (from the body's size; "
        "'vhuman info' shows the choice). Default: m.",
    ),
]


def motion_summary(path: Path, unit: str | None = None) -> dict:
    """The figures `vhuman info` prints, as a JSON-ready dict."""
    import numpy as np

    from vhuman.io import MotionFormat, detect_format, guess_bvh_unit, load_motion

    motion = load_motion(path, unit=unit)
    fmt = detect_format(path)
    length_unit = None
    if fmt is MotionFormat.BVH:
        length_unit = f"{guess_bvh_unit(path)} (auto)" if unit == "auto" else unit or "m"
    lo, hi = motion.extent()
    root = motion.root_positions
    travel = float(np.linalg.norm(np.diff(root[:, :2], axis=0), axis=1).sum())
    return {
        "file": str(path),
        "format": fmt,
        "unit": length_unit,
        "joints": motion.skeleton.n_joints,
        "joint_names": list(motion.skeleton.names),
        "frames": motion.n_frames,
        "fps": motion.fps,
        "duration_s": motion.duration,
        "extent_min_m": lo.tolist(),
        "extent_max_m": hi.tolist(),
        "height_m": float(hi[2] - lo[2]),
        "root_travel_m": travel,
    }


@app.command()
def info(
    file: Annotated[Path, typer.Argument(help="Motion file: .bvh, .npz, CMU or DeepMimic .txt.")],
    unit: UnitOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Joints, frames, fps, duration and spatial extent of a motion file."""
    with user_errors():
        summary = motion_summary(file, unit)
    if as_json:
        print(json.dumps(summary))
        return
    table = Table(title=str(file), show_header=False)
    table.add_row("format", summary["format"])
    if summary["unit"]:
        table.add_row("length unit", summary["unit"])
    table.add_row("joints", str(summary["joints"]))
    table.add_row("frames", str(summary["frames"]))
    table.add_row("fps", f"{summary['fps']:g}")
    table.add_row("duration", f"{summary['duration_s']:.3f} s")
    lo, hi = summary["extent_min_m"], summary["extent_max_m"]
    for axis, a, b in zip("xyz", lo, hi, strict=True):
        table.add_row(f"extent {axis}", f"{a:+.3f} … {b:+.3f} m")
    table.add_row("root travel", f"{summary['root_travel_m']:.3f} m")
    console.print(table)


@app.command()
def convert(
    source: Annotated[Path, typer.Argument(help="Input motion file.")],
    target: Annotated[Path, typer.Argument(help="Output file; the format follows the suffix.")],
    fps: Annotated[
        float | None, typer.Option(help="Resample to this frame rate (default: keep every frame).")
    ] = None,
    unit: UnitOption = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Convert between BVH, npz, CMU exp-map and DeepMimic files (z-up inside, no mirroring)."""
    from vhuman.io import load_motion, save_motion

    with user_errors():
        motion = load_motion(source, unit=unit)
        if fps is not None:
            motion = motion.resample(fps)
        save_motion(motion, target)
    result = {
        "source": str(source),
        "target": str(target),
        "frames": motion.n_frames,
        "fps": motion.fps,
        "joints": motion.skeleton.n_joints,
    }
    if as_json:
        print(json.dumps(result))
    else:
        console.print(
            f"wrote {target}: {motion.n_frames} frames at {motion.fps:g} fps, "
            f"{motion.skeleton.n_joints} joints"
        )


@app.command()
def view(
    file: Annotated[Path, typer.Argument(help="Motion file to show.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="HTML file to write.")] = Path(
        "view.html"
    ),
    trajectory: Annotated[
        list[str] | None,
        typer.Option("--trajectory", "-t", help="Joint whose path to draw (repeatable)."),
    ] = None,
    max_frames: Annotated[
        int, typer.Option(min=2, help="Subsample to at most this many animation frames.")
    ] = 300,
    unit: UnitOption = None,
    fps: Annotated[
        float,
        typer.Option(min=1.0, max=240.0, help="Playback rate (frames/s); frames are decimated."),
    ] = 30.0,
    sticks: Annotated[
        bool, typer.Option("--sticks", help="Draw the bones as lines instead of the body.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Write a self-contained interactive HTML viewer of the body (orbit, play/pause, slider)."""
    from vhuman.io import load_motion
    from vhuman.viz import write_viewer

    with user_errors():
        motion = load_motion(file, unit=unit)
        joints = tuple(trajectory or ())
        motion.skeleton.indices(joints)  # unknown joint names fail before any work
        write_viewer(
            motion,
            output,
            trajectories=joints,
            max_frames=max_frames,
            fps=fps,
            sticks=sticks,
            title=file.name,
        )
    if as_json:
        print(json.dumps({"file": str(file), "output": str(output), "frames": motion.n_frames}))
    else:
        console.print(f"wrote {output}")


@app.command()
def walk(
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Motion file (.bvh or .npz).")
    ] = Path("walk.bvh"),
    step_length: Annotated[
        float | None,
        typer.Option(help="Step length (m); default 0.41 × stature × √(speed / 1.3)."),
    ] = None,
    speed: Annotated[
        float, typer.Option(help="Walking speed (m/s); cadence = speed / step.")
    ] = 1.3,
    cycles: Annotated[int, typer.Option(help="Gait cycles (two steps each).")] = 4,
    turn: Annotated[float, typer.Option(help="Turning rate (deg/s), positive to the left.")] = 0.0,
    stature: Annotated[
        float | None, typer.Option(help="Stature in m (default GB/T 10000 male P50, 1.678 m).")
    ] = None,
    fps: Annotated[float, typer.Option(help="Frame rate of the output.")] = 60.0,
    leg_ik: Annotated[
        str,
        typer.Option(
            help="Leg IK: 'analytic' (law of cosines, exact) or 'ccd' (Chen et al.'s CCD on the "
            "leg chain up to the pelvis, frame after frame; slower)."
        ),
    ] = "analytic",
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Generate a walk from step length and speed (keyframes + leg IK)."""
    from vhuman.animation import GaitParameters, generate_walk
    from vhuman.io import save_motion
    from vhuman.skeleton import standard_humanoid

    with user_errors({"turn_rate": "--turn"}):
        params = GaitParameters(
            step_length=step_length,
            speed=speed,
            cycles=cycles,
            turn_rate=math.radians(turn),
            fps=fps,
            leg_ik=leg_ik,
        )
        result = generate_walk(params, standard_humanoid(stature=stature))
        save_motion(result.motion, output)
    figures = {"output": str(output), **result.to_dict()}
    if as_json:
        print(json.dumps(figures))
        return
    table = Table(title=f"walk → {output}", show_header=False)
    table.add_row("frames", f"{figures['frames']} at {fps:g} fps ({figures['duration_s']:.2f} s)")
    measured = figures["step_length_m"]
    table.add_row(
        "step length",
        ("-" if measured is None else f"{measured:.3f} m")
        + (" (from speed)" if step_length is None else f" (asked {step_length:g})"),
    )
    table.add_row("speed", f"{figures['speed_m_s']:.3f} m/s (asked {speed:g})")
    table.add_row("cadence", f"{figures['cadence_steps_min']:.1f} steps/min")
    table.add_row("foot skate", f"{figures['foot_skate_mm']:.3f} mm")
    table.add_row("ground penetration", f"{figures['ground_penetration_mm']:.3f} mm")
    table.add_row("largest joint step", f"{figures['max_joint_step_deg']:.1f}° per frame")
    updates = figures["ik_joint_updates"]
    table.add_row(
        "leg IK",
        f"{figures['ik_solver']}: {figures['ik_converged']} of {figures['ik_solves']} converged"
        + ("" if updates is None else f", {updates:,} joint updates"),
    )
    table.add_row("generation", f"{figures['generation_fps']:,.0f} frames/s")
    console.print(table)


app.command(cls=renamed({"--model": "--checkpoint"}))(reach)
app.command(cls=renamed({"--worker": "--body"}))(posture)
app.command()(ergo)
app.command()(task)
app.add_typer(swivel_app, name="swivel")
app.add_typer(physics_app, name="physics")
app.add_typer(predict_app, name="predict")


@app.command()
def demo(
    output: Annotated[Path, typer.Option("-o", "--output", help="Folder for the results.")] = Path(
        "demo-out"
    ),
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Run the main job on embedded defaults and write an HTML report.

    Run again after an interruption, it reuses the parts done (OUTPUT/sections).
    """
    from vhuman.cli.demo import run_demo

    with user_errors(), interruptible(command_line()):
        if output.exists() and not output.is_dir():
            raise InputError(f"output {output} exists and is not a folder")
        summary = run_demo(output, console=None if as_json else stderr)
    if as_json:
        print(json.dumps(summary))
    else:
        console.print(f"[bold green]report:[/] {summary['report']}")


def main() -> None:
    """Entry point of the `vhuman` console script.

    Usage errors (an unknown option, a value of the wrong type, a missing
    argument) are one line on stderr naming the command and the option, with
    exit status 2, instead of Typer's framed box.
    """
    try:
        code = app(standalone_mode=False)
    except NoArgsIsHelpError as exc:
        if exc.format_message().strip():  # Typer's rich help is printed already
            exc.show()
        sys.exit(2)
    except UsageError as exc:
        where = exc.ctx.command_path if exc.ctx is not None else "vhuman"
        stderr.print(
            f"[bold red]error:[/] {escape(where)}: {escape(exc.format_message())} "
            f"(see {escape(where)} --help)",
            soft_wrap=True,
        )
        sys.exit(2)
    except ClickException as exc:
        stderr.print(f"[bold red]error:[/] {escape(exc.format_message())}", soft_wrap=True)
        sys.exit(exc.exit_code)
    except Abort:
        stderr.print("aborted")
        sys.exit(130)
    sys.exit(code if isinstance(code, int) else 0)
