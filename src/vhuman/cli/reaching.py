"""`vhuman reach` and `vhuman swivel train|evaluate`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from vhuman.cli.errors import command_line, interruptible, stderr, user_errors
from vhuman.cli.options import renamed
from vhuman.cli.tables import print_table
from vhuman.errors import InputError

__all__ = ["reach", "swivel_app"]

console = Console(highlight=False)

swivel_app = typer.Typer(
    help="Swivel-angle predictors: train on and evaluate against real motion capture.",
    no_args_is_help=True,
)

_KINDS = ("mlp", "lsq", "mean")

_SEGMENT_WORDS = {
    "shoulder": "upper arm",
    "elbow": "forearm",
    "wrist": "hand",
    "pelvis": "pelvis",
    "spine": "abdomen",
    "chest": "chest",
    "neck": "neck",
    "head": "head",
    "hip": "thigh",
}


def reach(
    target: Annotated[
        tuple[float, float, float],
        typer.Option(help="Hand target X Y Z in the world, in m; the body stands at the origin."),
    ],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Motion file (.bvh or .npz).")
    ] = Path("reach.bvh"),
    arm: Annotated[str, typer.Option(help="Which arm: right or left.")] = "right",
    target_rpy: Annotated[
        tuple[float, float, float] | None,
        typer.Option(
            help="Hand roll pitch yaw in degrees about a forward, palm-down hand "
            "(default: in line with the forearm, thumb up)."
        ),
    ] = None,
    start: Annotated[
        tuple[float, float, float] | None,
        typer.Option(help="Start hand X Y Z in m (default: elbow at 90°, forearm forward)."),
    ] = None,
    duration: Annotated[float, typer.Option(help="Movement time (s).")] = 1.0,
    fps: Annotated[float, typer.Option(help="Frame rate of the output.")] = 60.0,
    stature: Annotated[
        float | None, typer.Option(help="Stature in m (default GB/T 10000 male P50, 1.678 m).")
    ] = None,
    checkpoint: Annotated[
        Path | None,
        typer.Option(help="Swivel predictor file (default: the shipped deep MLP)."),
    ] = None,
    allow_lean: Annotated[
        bool,
        typer.Option(
            "--allow-lean",
            "--lean",
            help="Lean the trunk (up to 40° forward, 15° sideways, 20° twist) where the arm "
            "alone cannot reach the target.",
        ),
    ] = False,
    max_joint_speed: Annotated[
        float, typer.Option(help="Largest speed of any arm angle, in rad/s.")
    ] = 8.0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Reach with one arm: minimum-jerk hand path, predicted swivel angle, analytic IK.

    The arm keeps within its joint limits and out of the trunk, pelvis, head and
    thighs; a target it cannot reach so is refused with the reason.
    """
    import numpy as np

    from vhuman.io import save_motion
    from vhuman.reaching import load_predictor
    from vhuman.reaching.reach import generate_reach, hand_orientation_from_rpy
    from vhuman.skeleton import standard_humanoid

    with user_errors({"side": "--arm"}):
        orientation = (
            None if target_rpy is None else hand_orientation_from_rpy(np.radians(target_rpy), arm)
        )
        result = generate_reach(
            target,
            side=arm,
            target_orientation=orientation,
            start=start,
            duration=duration,
            fps=fps,
            skeleton=standard_humanoid(stature=stature),
            predictor=None if checkpoint is None else load_predictor(checkpoint),
            allow_lean=allow_lean,
            max_joint_speed=max_joint_speed,
        )
        save_motion(result.motion, output)
    figures = {"output": str(output), **result.to_dict()}
    if as_json:
        print(json.dumps(figures))
        return
    table = Table(title=f"{arm} reach → {output}", show_header=False)
    table.add_row("frames", f"{figures['frames']} at {fps:g} fps ({figures['duration_s']:.2f} s)")
    table.add_row("final position error", f"{figures['final_position_error_mm']:.3g} mm")
    table.add_row("final orientation error", f"{figures['final_orientation_error_deg']:.3g}°")
    table.add_row("path straightness", f"{figures['path_straightness']:.4f} (chord / length)")
    table.add_row("peak / mean hand speed", f"{figures['peak_to_mean_speed']:.3f} (ideal 1.875)")
    table.add_row("max joint speed", f"{figures['max_joint_speed_rad_s']:.2f} rad/s")
    start_speed, end_speed = figures["joint_speed_at_ends_rad_s"]
    table.add_row("joint speed at ends", f"{start_speed:.3g}, {end_speed:.3g} rad/s")
    table.add_row(
        "swivel angle",
        f"{figures['swivel_start_deg']:.1f}° → {figures['swivel_end_deg']:.1f}°",
    )
    table.add_row("joint limits", f"{figures['joint_limit_violations']} frames outside")
    pair = "–".join(
        _SEGMENT_WORDS[n.removeprefix("r_").removeprefix("l_")]
        for n in figures["closest_pair"].split("–")
    )
    table.add_row(
        "self-collision",
        f"{figures['self_collision_frames']} frames ({pair} closest, "
        f"{figures['min_clearance_mm']:.0f} mm)",
    )
    lean = figures["trunk_lean_deg"]
    table.add_row(
        "adjusted",
        f"swivel at {figures['swivel_adjusted_frames']} frames, "
        + ("joint-space path" if figures["joint_space_path"] else "hand path kept")
        + (", trunk lean " + "/".join(f"{x:g}" for x in lean) + "°" if any(lean) else ""),
    )
    console.print(table)


def _status(text: str) -> Any:
    return stderr.status(text, spinner="dots")


def _held_out(data: Path) -> tuple[Any, Any]:
    """Training and held-out swivel samples of a CMU folder (split by trial)."""
    from vhuman.reaching import cmu_swivel_dataset, validation_split_highest_numbered

    with _status(f"reading swivel samples from {data}"):
        return validation_split_highest_numbered(cmu_swivel_dataset(data))


@swivel_app.command("train")
def swivel_train(
    data: Annotated[
        Path,
        typer.Option(
            help="CMU data folder (holding train/ACTION/*.txt); default: $VHUMAN_CMU_DATA.",
            envvar="VHUMAN_CMU_DATA",
        ),
    ],
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Model file (.npz) to write.")
    ] = Path("swivel.npz"),
    model: Annotated[str, typer.Option(help=f"Predictor kind: {', '.join(_KINDS)}.")] = "mlp",
    hidden: Annotated[
        list[int] | None,
        typer.Option(
            min=1, help="MLP hidden units per layer, repeatable (default: 40, as Xia et al. 2021)."
        ),
    ] = None,
    rotation: Annotated[
        str,
        typer.Option(
            help="MLP input for the hand orientation: rotvec (Xia et al. 2021), matrix, "
            "shape (matrix and arm-shape cues), wrist (scale-free wrist features) or swivel "
            "(wrist features and the hand's axes about the shoulder-wrist axis)."
        ),
    ] = "rotvec",
    epochs: Annotated[int, typer.Option(min=1, help="MLP training epochs.")] = 300,
    seed: Annotated[
        int, typer.Option(min=0, help="Seed of the MLP's initialisation and batches.")
    ] = 0,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="mlp: continue from <output>.ckpt (written after every epoch) if it is there; "
            "--data, --hidden, --rotation, --epochs and --seed must be the ones it was "
            "written with.",
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Train a swivel predictor on all but the highest-numbered trial of each activity.

    The mlp writes a checkpoint <output>.ckpt after every epoch; --resume continues from it.
    """
    from vhuman.io import check_writable
    from vhuman.reaching import (
        LeastSquaresPredictor,
        MeanPredictor,
        MLPPredictor,
        evaluate,
    )

    ckpt = Path(f"{output}.ckpt")
    resume_with = command_line(["--resume"]) if model == "mlp" else None
    with user_errors({"root": "--data"}), interruptible(resume_with):
        if model not in _KINDS:
            raise InputError(f"--model must be one of {list(_KINDS)}, got {model!r}")
        check_writable(output, "--output")
        if model == "mlp":
            check_writable(ckpt, "the checkpoint")
            if resume and ckpt.is_file():
                from vhuman.prediction.checkpoint import load_checkpoint

                load_checkpoint(ckpt)  # a damaged one is refused before any work
        train, test = _held_out(data)
        predictor = {
            "mlp": lambda: MLPPredictor(
                hidden or [40], epochs=epochs, seed=seed, rotation=rotation
            ),
            "lsq": LeastSquaresPredictor,
            "mean": MeanPredictor,
        }[model]()
        with _status(f"fitting {model} on {len(train)} samples"):
            if isinstance(predictor, MLPPredictor):
                predictor.fit(train.features, train.swivel, checkpoint=ckpt, resume=resume)
            else:
                predictor.fit(train.features, train.swivel)
        predictor.save(output)
        scores = evaluate(predictor, test)
    result = {"output": str(output), "model": model, "train_samples": len(train), **scores}
    if as_json:
        print(json.dumps(result))
    else:
        console.print(
            f"wrote {output}: {model} trained on {len(train)} samples; held-out MAE "
            f"{scores['mae_deg']:.2f}°, RMSE {scores['rmse_deg']:.2f}° on {scores['n']} samples"
        )


@swivel_app.command("evaluate", cls=renamed({"--model": "--checkpoint"}))
def swivel_evaluate(
    data: Annotated[
        Path,
        typer.Option(
            help="Folder of CMU trials: the CMU data folder (train/ACTION/*.txt; its held-out "
            "trials are used), one subfolder per action, or the .txt files themselves; "
            "default: $VHUMAN_CMU_DATA.",
            envvar="VHUMAN_CMU_DATA",
        ),
    ],
    checkpoint: Annotated[
        list[Path] | None,
        typer.Option(
            help="Predictor file (repeatable; default: the shipped MLPs and least squares)."
        ),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """MAE, RMSE (deg) and MSE (deg²) of swivel predictors on CMU trials, beside a mean baseline.

    On the CMU data folder: its held-out trials (the highest-numbered of each
    activity), the mean of the other trials as baseline. On any other folder:
    every trial file, the mean of those same samples as baseline.
    """
    from vhuman.reaching import MeanPredictor, cmu_folder_swivel_dataset, evaluate, load_predictor
    from vhuman.reaching.reach import DEFAULT_MODELS, default_predictor

    with user_errors({"root": "--data"}):
        if checkpoint:
            predictors = {path.stem: load_predictor(path) for path in checkpoint}
        else:
            predictors = {kind: default_predictor(kind) for kind in DEFAULT_MODELS}
        if (data / "train").is_dir():
            train, test = _held_out(data)
            what = "held-out samples ({trials} trials, the highest-numbered of each activity)"
            baseline = "mean"
        else:
            with _status(f"reading swivel samples from {data}"):
                test = train = cmu_folder_swivel_dataset(data)
            what = "samples of " + str(data) + " ({trials} trials, every file)"
            baseline = "mean (of these samples)"
        predictors[baseline] = MeanPredictor().fit(train.features, train.swivel)
        scores = {name: evaluate(p, test) for name, p in predictors.items()}
    keys = ("mae_deg", "rmse_deg", "mse_deg2", "mae_rad", "rmse_rad", "mse_rad2", "per_activity")
    result = {
        "samples": len(test),
        "trials": len(set(test.groups.tolist())),
        "models": {name: {k: s[k] for k in keys} for name, s in scores.items()},
    }
    if as_json:
        print(json.dumps(result))
        return
    table = Table(
        title=f"swivel angle on {result['samples']} " + what.format(trials=result["trials"])
    )
    for col in ("model", "MAE °", "RMSE °", "MSE °²"):
        table.add_column(col, justify="left" if col == "model" else "right")
    for name, s in result["models"].items():
        table.add_row(name, f"{s['mae_deg']:.2f}", f"{s['rmse_deg']:.2f}", f"{s['mse_deg2']:.1f}")
    print_table(table, console)
    activities = sorted(next(iter(scores.values()))["per_activity"])
    per = Table(title="MAE ° per activity")
    per.add_column("activity")
    for name in scores:
        per.add_column(name, justify="right")
    for act in activities:
        per.add_row(act, *(f"{scores[n]['per_activity'][act]['mae_deg']:.2f}" for n in scores))
    print_table(per, console)
