"""`vhuman task`: a whole maintenance job from a task file, checked and scored frame by frame."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from vhuman.cli.errors import command_line, interruptible, stderr, user_errors
from vhuman.cli.tables import print_table
from vhuman.errors import InputError

__all__ = ["CHECKPOINT", "EXIT_STOPPED", "task"]

CHECKPOINT = "task-checkpoint.npz"
"""The checkpoint of `vhuman task`, in its output folder."""

EXIT_STOPPED = 3
"""Exit status of a task stopped at a step that cannot be done (bad input is 2)."""

console = Console(highlight=False)


def task(
    task_file: Annotated[
        str, typer.Argument(metavar="TASK", help="Task file (YAML) or a built-in task name.")
    ],
    output: Annotated[Path, typer.Option("-o", "--output", help="Output folder.")] = Path("task"),
    seed: Annotated[int, typer.Option(min=0, help="Seed of the posture solver's arm NSGA-II.")] = 0,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help=f"Continue after the steps done in OUTPUT/{CHECKPOINT} if it is there; the "
            "task file, its scene and --seed must be the ones it was written with.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """A maintenance task: walk, posture, reach, turn, hold, stand up; every frame checked.

    A checkpoint OUTPUT/task-checkpoint.npz is written after every step; --resume continues
    from it. OUTPUT/task.json is written last. Exit status 3 when a step cannot be done (the
    outputs up to it are written).
    """
    from vhuman.io import check_writable
    from vhuman.task import load_task, run_task
    from vhuman.task.report import SUMMARY, write_task_outputs

    with user_errors(), interruptible(command_line(["--resume"])):
        spec = load_task(task_file)
        try:
            output.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise InputError(f"--output {output}: {exc.strerror or exc}") from None
        for name in (SUMMARY, CHECKPOINT):
            check_writable(output / name, "--output")
        (output / SUMMARY).unlink(missing_ok=True)  # the folder is complete when it is back
        with stderr.status(f"running task {spec.name}", spinner="dots"):
            result = run_task(spec, seed=seed, checkpoint=output / CHECKPOINT, resume=resume)
            files = write_task_outputs(result, output)
    doc = {**result.to_dict(), "files": files}
    if as_json:
        print(json.dumps(doc))
    else:
        table = Table(title=f"task {spec.name} → {output}")
        for col in ("step", "start s", "end s", "done"):
            table.add_column(col, justify="left" if col in ("step", "done") else "right")
        for s in result.steps:
            table.add_row(s.kind, f"{s.start_s:.2f}", f"{s.end_s:.2f}", "yes" if s.done else "no")
        print_table(table, console)
        contact = doc["first_contact"]
        verdict = (
            "none"
            if contact is None
            else f"{contact['body_part']} in {contact['solid']} at {contact['time_s']:.2f} s"
        )
        c = doc["check"]
        passes = "every frame passes" if c["passed"] else "not every frame passes"
        console.print(
            f"status: {doc['status']}"
            + (f" ({doc['reason']})" if doc["reason"] else "")
            + f"; {passes} the checks below"
        )
        console.print(f"first contact: {verdict} ({c['frames_checked']} frames checked)")
        console.print(
            f"beyond joint limits: {c['frames_beyond_joint_limits']} frames (at most "
            f"{c['joint_limit_violation_max_deg']:.1f}°); centre of mass outside the support: "
            f"{c['static_frames_unbalanced']} of {c['static_frames']} frames out of walking"
        )
        console.print(
            f"feet sliding on the floor (over 1 mm a frame): {c['static_frames_feet_sliding']} "
            f"frames out of walking (at most {c['foot_slide_max_mm_per_frame']:.1f} mm), "
            f"{c['walking_frames_feet_sliding']} walking (at most "
            f"{c['walking_foot_slide_max_mm_per_frame']:.1f} mm)"
        )
        console.print(
            f"joints faster than {c['joint_speed_limit_deg_s']:.0f}°/s (knees, ankles "
            f"{c['leg_joint_speed_limit_deg_s']:.0f}°/s): {c['frames_over_joint_speed']} frames "
            f"(fastest {c['joint_speed_max_deg_s']:.0f}°/s)"
        )
        for key in ("reba", "rula"):
            e = doc[key]
            spent = ", ".join(f"{a}: {v:.1f} s" for a, v in e["time_by_action_level_s"].items())
            console.print(
                f"{key.upper()} max {e['max']} at {e['worst_time_s']:.2f} s; "
                f"time by action level {spent}"
            )
    if not result.done:
        raise typer.Exit(EXIT_STOPPED)
