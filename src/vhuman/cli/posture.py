"""`vhuman posture`: a maintenance posture in a narrow space (Luo et al.)."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from vhuman.cli.errors import command_line, interruptible, stderr, user_errors
from vhuman.cli.tables import print_table
from vhuman.errors import InputError

if TYPE_CHECKING:
    from vhuman.posture import PostureResult

__all__ = ["posture", "write_posture_outputs"]

console = Console(highlight=False)


def _pose_dict(result: PostureResult) -> dict[str, Any]:
    m = result.motion
    return {
        "joints": list(m.skeleton.names),
        "root_position_m": m.root_positions[0].tolist(),
        "local_rotations_wxyz": m.local_rotations[0].tolist(),
    }


def write_posture_outputs(
    result: PostureResult, folder: Path, *, also_into: Any = None, front: Any = None
) -> dict[str, str]:
    """Write posture.bvh, posture.json, pareto.png, view.html and report.html into ``folder``.

    ``also_into``, a `vhuman.viz.Report`, gets the same posture section (the demo's report).
    ``front`` (N, 2), comfort and f_access of another arm search at the same placement,
    is plotted in pareto.png instead of the arm's own Pareto set (one point when the
    closed-form IK answered).

    Returns
    -------
    dict
        File kind → path.
    """
    from vhuman.io import atomic_write, save_motion
    from vhuman.viz import Report, plot_posture_pareto, save_figure, write_figure
    from vhuman.viz.scene_view import scene_figure

    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        "bvh": folder / "posture.bvh",
        "json": folder / "posture.json",
        "pareto": folder / "pareto.png",
        "view": folder / "view.html",
        "report": folder / "report.html",
    }
    save_motion(result.motion, paths["bvh"])
    figures = result.to_dict()
    doc = {
        **figures,
        "reba": result.reba.to_dict(),
        "rula": result.rula.to_dict(),
        "pose": _pose_dict(result),
    }
    atomic_write(paths["json"], json.dumps(doc, indent=1) + "\n")
    pareto = plot_posture_pareto(result, front)
    save_figure(pareto, paths["pareto"])
    body_model = _body(result)
    view = scene_figure(
        result.scene,
        body=body_model,
        pose=(result.motion.root_positions[0], result.motion.local_rotations[0]),
        free_space=result.space,
        contacts=[c.segment for c in result.collision.contacts],
        title=f"{result.scene.name}: {result.library_posture} ({result.worker or 'worker'})",
    )
    report = Report(f"Maintenance posture: {result.scene.name}")
    add_posture_section(report, result, view, paths["pareto"], doc)
    if also_into is not None:
        add_posture_section(also_into, result, view, paths["pareto"], doc)
    write_figure(view, paths["view"], title=f"{result.scene.name}: {result.library_posture}")
    report.write(paths["report"])
    return {k: str(v) for k, v in paths.items()}


def add_posture_section(
    report: Any, result: PostureResult, view: Any, pareto_png: Path, doc: dict[str, Any]
) -> None:
    """Add a posture's section to ``report``: 3D view, Pareto front, REBA/RULA tables, figures.

    ``view`` is the plotly scene figure, ``pareto_png`` the written Pareto plot and
    ``doc`` the posture JSON (figures plus the REBA and RULA breakdowns).
    """
    figures = result.to_dict()
    status = (
        "reached"
        if result.reached
        else f"NOT reached ({result.reason}; the valid posture nearest the target is shown)"
    )
    margin = figures["balance_margin_mm"]
    section = report.add_section(
        f"Posture: {result.scene.name}",
        f"Library posture **{result.library_posture}**, hand {status}: "
        f"{figures['reach_position_error_mm']:.2f} mm, "
        f"{figures['reach_orientation_error_deg']:.2f}°; "
        f"{figures['collisions']} contacts; balance margin "
        f"{'-' if margin is None else f'{margin:.0f}'} mm; "
        f"solved in {figures['solve_time_s']:.2f} s.",
    )
    section.add_plotly(
        view,
        caption="Scene, body and the octree's free cells (axes in metres): solids between the "
        "camera and the worker are see-through, body segments in contact red; click a legend "
        "entry to show or hide a solid. Look for a hand on the target and no red.",
    )
    section.add_image(
        pareto_png,
        caption="Arm NSGA-II: joint comfort (Σ f_rot, no unit) against reach accuracy "
        "(f_access, rad + α·m), both lower is better; the star is the chosen posture",
    )
    rows = [
        {
            "method": "REBA",
            "score": figures["reba_score"],
            "action level": figures["reba_action_level"],
            "risk": figures["reba_risk"],
        },
        {
            "method": "RULA",
            "score": figures["rula_score"],
            "action level": figures["rula_action_level"],
            "risk": "",
        },
    ]
    section.add_table(rows, caption="Ergonomic scores of the final posture")
    section.add_json(doc["reba"], caption="REBA breakdown")
    section.add_json(doc["rula"], caption="RULA breakdown")
    section.add_json(figures, caption="All figures")


def _body(result: PostureResult) -> Any:
    from vhuman.scene import BodyModel

    return BodyModel.from_skeleton(result.motion.skeleton, samples_per_segment=1)


def _make_folder(folder: Path) -> None:
    """Create ``folder`` (and its parents) or say in one line why it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        raise InputError(f"--output {folder} is a file; give a folder") from None
    except OSError as exc:
        raise InputError(f"--output {folder}: cannot create it ({exc.strerror or exc})") from None


def posture(
    scene: Annotated[
        list[str],
        typer.Option(
            help="Built-in scene (ship-valve, low-deck, over-pipe) or a scene file; repeatable."
        ),
    ],
    output: Annotated[Path, typer.Option("-o", "--output", help="Output folder.")] = Path(
        "posture"
    ),
    body: Annotated[
        list[str] | None,
        typer.Option(
            help="Body: p<percentile>-<male|female>, GB/T 10000 (default p95-male); repeatable."
        ),
    ] = None,
    target: Annotated[
        tuple[float, float, float] | None,
        typer.Option(help="Replace the scene's target position X Y Z, in m."),
    ] = None,
    seed: Annotated[int, typer.Option(min=0, help="Seed of the arm NSGA-II.")] = 0,
    jobs: Annotated[
        int,
        typer.Option("--jobs", "-j", min=1, help="Local worker processes (may differ on a rerun)."),
    ] = 2,
    scheduler: Annotated[
        str | None, typer.Option(help="Dask scheduler address: run the tasks on its cluster.")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Maintenance posture: library placement in the free space, then the arm by NSGA-II.

    With several tasks, each goes to its own folder in OUTPUT and OUTPUT/manifest.json is
    written last; the same command run again after an interruption skips finished tasks.
    """
    from vhuman.io import check_writable
    from vhuman.posture import PostureTask, solve_into, solve_many
    from vhuman.posture.solver import WORKERS

    workers = body or ["p95-male"]
    batch = len(scene) * len(workers) > 1 or scheduler is not None
    with user_errors(), interruptible(command_line() if batch else None):
        for w in workers:
            if w not in WORKERS:
                raise InputError(f"--body {w!r} is unknown; bodies: {', '.join(WORKERS)}")
        if target is not None and not all(math.isfinite(v) for v in target):
            raise InputError(f"--target must be 3 finite numbers [m], got {list(target)}")
        tasks = [PostureTask(s, w, seed, target) for s, w in itertools.product(scene, workers)]
        # Bad input fails fast, before any solving: load every scene here.
        for t in tasks:
            t.load()
        _make_folder(output)
        check_writable(output / "posture.json", "--output")
        if not batch:
            (result,) = solve_many(tasks, workers=1)
            if isinstance(result, InputError):
                raise result
            outputs = [{**result.to_dict(), "files": write_posture_outputs(result, output)}]
        else:
            with stderr.status(f"solving {len(tasks)} posture tasks", spinner="dots") as status:

                def on_case(done: int, total: int) -> None:
                    status.update(f"solving {total} posture tasks: {done} complete")

                outputs = solve_into(
                    tasks,
                    output,
                    write_posture_outputs,
                    workers=jobs,
                    scheduler=scheduler,
                    on_case=on_case,
                )
    if as_json:
        print(json.dumps(outputs[0] if len(outputs) == 1 else {"tasks": outputs}))
        return
    table = Table(title=f"maintenance posture → {output}")
    for col in (
        "scene",
        "body",
        "posture",
        "status",
        "contacts",
        "clearance mm",
        "balance mm",
        "reach mm",
        "reach °",
        "REBA",
        "RULA",
        "time s",
    ):
        table.add_column(col, justify="left" if col in ("scene", "body", "posture") else "right")
    for o in outputs:
        clear, margin = o["min_clearance_mm"], o["balance_margin_mm"]
        status = o["status"] + (f" ({o['reason']})" if o["reason"] else "")
        table.add_row(
            o["scene"],
            o["worker"],
            o["library_posture"],
            status,
            str(o["collisions"]),
            "-" if clear is None else f"{clear:.1f}",
            "-" if margin is None else f"{margin:.0f}",
            f"{o['reach_position_error_mm']:.2f}",
            f"{o['reach_orientation_error_deg']:.2f}",
            str(o["reba_score"]),
            str(o["rula_score"]),
            f"{o['solve_time_s']:.2f}",
        )
    print_table(table, console)
