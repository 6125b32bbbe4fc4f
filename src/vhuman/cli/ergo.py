"""`vhuman ergo`: REBA and RULA of every frame of a recorded motion."""

from __future__ import annotations

import contextlib
import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from vhuman.cli.errors import stderr, user_errors
from vhuman.cli.tables import print_table
from vhuman.errors import InputError, UnknownJointError

if TYPE_CHECKING:
    from vhuman.ergonomics import BodyMap, MotionErgonomics
    from vhuman.skeleton import Motion

__all__ = ["ergo"]

console = Console(highlight=False)


def _body_map(motion: Motion, spec: str | None, file: Path) -> BodyMap:
    from vhuman.ergonomics import BUILT_IN_BODY_MAPS, read_body_map

    if spec is not None:
        body_map = read_body_map(spec)
    else:
        names = set(motion.skeleton.names)
        fits = [m for m in BUILT_IN_BODY_MAPS.values() if names.issuperset(m.joint_names())]
        if not fits:
            closest = min(
                BUILT_IN_BODY_MAPS.items(), key=lambda kv: len(set(kv[1].joint_names()) - names)
            )
            missing = [n for n in closest[1].joint_names() if n not in names]
            raise InputError(
                f"{file}: the motion lacks joints REBA and RULA need: {missing} (of the "
                f"{closest[0]!r} map); give --map FILE naming this skeleton's joints"
            )
        body_map = fits[0]
    try:
        body_map.resolve(motion.skeleton)
    except UnknownJointError as exc:
        missing = [n for n in body_map.joint_names() if n not in motion.skeleton.names]
        raise InputError(
            f"{file}: the body map names joints the motion does not have: {missing}"
        ) from exc
    return body_map


def _factor_values(file_values: dict[str, Any], options: dict[str, Any]) -> dict[str, Any]:
    """File values, overridden by the options given on the command line (not None)."""
    return {**file_values, **{k: v for k, v in options.items() if v is not None}}


def _print_summary(result: MotionErgonomics, file: Path) -> None:
    d = result.to_dict(per_frame=False)
    table = Table(title=f"{file.name}: {d['frames']} frames, {d['duration_s']:.2f} s")
    for col in ("method", "max", "mean", "worst at s", "frame", "side"):
        table.add_column(col, justify="left" if col == "method" else "right")
    for name in ("reba", "rula"):
        w = d["worst"][name]
        table.add_row(
            name.upper(),
            str(d[name]["max_score"]),
            f"{d[name]['mean_score']:.2f}",
            f"{w['time_s']:.2f}",
            str(w["frame"]),
            w["side"],
        )
    print_table(table, console)
    for name in ("reba", "rula"):
        levels = ", ".join(
            f"{label.split(' (')[0]} {s:.2f} s"
            for label, s in d["time_by_action_level_s"][name].items()
        )
        console.print(f"{name.upper()} time by action level: {levels}")
    for name in ("reba", "rula"):
        s = d["worst"][name]["scores"]
        if name == "reba":
            parts = (
                f"trunk {s['trunk']}, neck {s['neck']}, legs {s['legs']} → table A "
                f"{s['table_a']} + load {s['load']} = score A {s['score_a']}; upper arm "
                f"{s['upper_arm']}, lower arm {s['lower_arm']}, wrist {s['wrist']} → table B "
                f"{s['table_b']} + coupling {s['coupling']} = score B {s['score_b']}; table C "
                f"{s['table_c']} + activity {s['activity']} = {s['score']}"
            )
        else:
            parts = (
                f"upper arm {s['upper_arm']}, lower arm {s['lower_arm']}, wrist {s['wrist']}, "
                f"twist {s['wrist_twist']} → table A {s['table_a']} + muscle {s['muscle']} + "
                f"force {s['force']} = score C {s['score_c']}; neck {s['neck']}, trunk "
                f"{s['trunk']}, legs {s['legs']} → table B {s['table_b']} = score D "
                f"{s['score_d']}; grand score {s['score']}"
            )
        console.print(f"worst {name.upper()} (left, right): {parts}")


def _write_report(
    result: MotionErgonomics, motion: Motion, path: Path, png: Path, file: Path
) -> None:
    from vhuman.viz import Report, plot_pose

    d = result.to_dict(per_frame=False)
    report = Report(f"Ergonomic scores: {file.name}")
    section = report.add_section(
        "REBA and RULA over time",
        f"{d['frames']} frames at {d['fps']:g} fps; REBA (Hignett & McAtamney 2000) and RULA "
        "(McAtamney & Corlett 1993), both sides, the higher side reported.",
    )
    section.add_image(png, caption="Scores over time with the action-level bands")
    rows = [
        {"method": m.upper(), "action level": label, "time s": round(s, 3)}
        for m in ("reba", "rula")
        for label, s in d["time_by_action_level_s"][m].items()
    ]
    section.add_table(rows, caption="Time in each action level")
    for name in ("reba", "rula"):
        w = d["worst"][name]
        fig = plot_pose(motion, w["frame"])
        fig.suptitle(f"worst {name.upper()}: {w['score']} at {w['time_s']:.2f} s ({w['side']})")
        section.add_image(fig, caption=f"Pose at the worst {name.upper()} frame ({w['frame']})")
    section.add_json(d["worst"], caption="Worst moment of each method, with its pose")
    section.add_json(d["factors"], caption="Non-angle factors")
    report.write(path)


def ergo(
    motion_file: Annotated[
        Path,
        typer.Argument(metavar="MOTION", help="Motion file: .bvh, .npz, CMU or DeepMimic .txt."),
    ],
    body_map: Annotated[
        str | None,
        typer.Option(
            "--map", help="Body map: standard, cmu, deepmimic, or a YAML file of joint names."
        ),
    ] = None,
    factors: Annotated[
        Path | None,
        typer.Option(help="YAML file of non-angle factors and thresholds (options override it)."),
    ] = None,
    load: Annotated[float | None, typer.Option(help="Load or force, in kg.")] = None,
    load_pattern: Annotated[
        str | None, typer.Option(help="RULA load pattern: intermittent, static or repeated.")
    ] = None,
    coupling: Annotated[
        str | None, typer.Option(help="REBA coupling: good, fair, poor or unacceptable.")
    ] = None,
    shock: Annotated[
        bool | None, typer.Option("--shock/--no-shock", help="Shock or rapid build-up of force.")
    ] = None,
    static: Annotated[
        bool | None, typer.Option("--static/--no-static", help="A body part held over 1 min.")
    ] = None,
    repeated: Annotated[
        bool | None,
        typer.Option("--repeated/--no-repeated", help="Small-range actions over 4 per min."),
    ] = None,
    rapid_change: Annotated[
        bool | None,
        typer.Option(
            "--rapid-change/--no-rapid-change", help="Rapid large posture changes (REBA)."
        ),
    ] = None,
    arm_supported: Annotated[
        bool | None,
        typer.Option("--arm-supported/--no-arm-supported", help="Arm supported or person leaning."),
    ] = None,
    sitting: Annotated[
        bool | None, typer.Option("--sitting/--no-sitting", help="Seated and well supported.")
    ] = None,
    legs_supported: Annotated[
        bool | None,
        typer.Option(
            "--legs-supported/--legs-unsupported",
            help="Both legs bear weight evenly (default: from the foot heights).",
        ),
    ] = None,
    csv: Annotated[
        Path | None, typer.Option("--csv", help="Write every frame's scores here.")
    ] = None,
    plot: Annotated[
        Path | None, typer.Option(help="Write the scores over time as a PNG image here.")
    ] = None,
    report: Annotated[
        Path | None, typer.Option(help="Write an HTML report here (with the plot beside it).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """REBA and RULA of every frame: intermediate scores, time per action level, worst moment."""
    from vhuman.ergonomics import PostureThresholds, WorkFactors, assess_motion, read_factors
    from vhuman.io import atomic_write, load_motion
    from vhuman.viz import plot_ergonomic_scores, save_figure

    options = {
        "load_kg": load,
        "load_pattern": load_pattern,
        "coupling": coupling,
        "shock": shock,
        "static": static,
        "repeated": repeated,
        "rapid_change": rapid_change,
        "arm_supported": arm_supported,
        "sitting": sitting,
        "legs_supported": legs_supported,
    }
    # A bad value given as an option is named by its option; one from --factors by its key.
    given = {
        f"WorkFactors.{key}": "--load" if key == "load_kg" else "--" + key.replace("_", "-")
        for key, value in options.items()
        if value is not None
    }
    with user_errors(given):
        file_values: dict[str, Any] = {}
        thresholds = PostureThresholds()
        if factors is not None:
            file_values, thresholds = read_factors(factors)
        if load is not None and not (math.isfinite(load) and load >= 0.0):
            raise InputError(f"--load must be a finite mass >= 0 kg, got {load}")
        work = WorkFactors.from_mapping(
            _factor_values(file_values, options), source=None if factors is None else str(factors)
        )
        for path, suffixes in ((plot, (".png",)), (report, (".html", ".htm"))):
            if path is not None and path.suffix.lower() not in suffixes:
                raise InputError(f"{path}: must end in {' or '.join(suffixes)}")
        busy = contextlib.nullcontext() if as_json else stderr.status(f"scoring {motion_file}")
        with busy:
            motion = load_motion(motion_file)
            mapping = _body_map(motion, body_map, motion_file)
            result = assess_motion(motion, work, thresholds=thresholds, body_map=mapping)
        if csv is not None:
            atomic_write(csv, result.to_csv())
        png = plot
        if report is not None and png is None:
            png = report.with_suffix(".png")
        if png is not None:
            save_figure(plot_ergonomic_scores(result, f"{motion_file.name}: REBA and RULA"), png)
        if report is not None:
            _write_report(result, motion, report, png, motion_file)  # type: ignore[arg-type]
    if as_json:
        print(json.dumps(result.to_dict()))
        return
    _print_summary(result, motion_file)
    for label, path in (("csv", csv), ("plot", png), ("report", report)):
        if path is not None:
            console.print(f"wrote {label}: {path}")
