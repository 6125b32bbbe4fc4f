"""`vhuman predict train|evaluate|run`: motion prediction (Ueda et al. 2022) at the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from vhuman.cli.errors import command_line, interruptible, user_errors
from vhuman.cli.options import renamed
from vhuman.cli.tables import print_table
from vhuman.errors import InputError

__all__ = ["predict_app"]

predict_app = typer.Typer(
    name="predict",
    help="Human motion prediction: train, evaluate, and continue a motion.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console(highlight=False)

DataOption = Annotated[
    str,
    typer.Option(
        "--data",
        help="Folder of CMU exp-map files (ACTION/*.txt, optionally under train/) or of BVH "
        "files, or 'deepmimic' (pybullet's clips); default: $VHUMAN_CMU_DATA.",
        envvar="VHUMAN_CMU_DATA",
    ),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON object.")]


def _progress(enabled: bool) -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.fields[info]}"),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        disable=not enabled,
    )


@predict_app.command()
def train(
    data: DataOption,
    output: Annotated[
        Path, typer.Option("-o", "--output", help="Model file to write (.pt).")
    ] = Path("prediction.pt"),
    model: Annotated[
        str, typer.Option("--model", help="lie-transformer, simlpe or ltd.")
    ] = "lie-transformer",
    epochs: Annotated[int, typer.Option("--epochs", help="Passes over the windows.")] = 8,
    steps: Annotated[
        int | None,
        typer.Option("--steps", help="Optimizer steps in all (overrides --epochs; a budget)."),
    ] = None,
    lr: Annotated[
        float | None,
        typer.Option("--lr", help="Initial learning rate (default: the model kind's)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Random seed.")] = 0,
    device: Annotated[
        str,
        typer.Option(
            "--device",
            help="cpu or cuda; with cuda the whole step runs on the GPU (same seed, same "
            "weights on the same device).",
        ),
    ] = "cpu",
    batch_size: Annotated[
        int, typer.Option("--batch-size", min=1, help="Windows per optimizer step.")
    ] = 64,
    observed: Annotated[
        int | None,
        typer.Option("--observed", help="Observed poses per window (default: the protocol's)."),
    ] = None,
    max_windows: Annotated[
        int | None, typer.Option("--max-windows", help="Windows per epoch (seeded subset).")
    ] = None,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads", help="CPU threads for torch (default: torch's; may differ on resume)."
        ),
    ] = None,
    weight_decay: Annotated[
        float, typer.Option("--weight-decay", help="AdamW weight decay (weights, embeddings).")
    ] = 0.0,
    ema: Annotated[
        float,
        typer.Option(
            "--ema",
            help="Decay of a moving average of the weights, saved (0: none); at step s "
            "it is min(EMA, (1+s)/(10+s)), so 0.999 is reached after 9,000 steps.",
        ),
    ] = 0.0,
    mirror: Annotated[
        bool, typer.Option("--mirror", help="Mirror half the windows left/right each epoch.")
    ] = False,
    reverse: Annotated[
        bool, typer.Option("--reverse", help="Play half the windows backwards each epoch.")
    ] = False,
    speed: Annotated[
        float,
        typer.Option(
            "--speed",
            help="Play each window at a random speed in [1/(1+S), 1+S] each epoch (0: never).",
        ),
    ] = 0.0,
    warmup: Annotated[
        int,
        typer.Option(
            "--warmup", help="Steps over which the learning rate ramps up linearly (0: none)."
        ),
    ] = 0,
    dropout: Annotated[
        float | None,
        typer.Option(
            "--dropout", help="Dropout rate (lie-transformer: default 0; ltd: default 0.5)."
        ),
    ] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Continue from <output>.ckpt if it is there; every other setting but "
            "--threads must be the one it was written with.",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """Train a predictor; a checkpoint <output>.ckpt is written after every epoch."""
    from vhuman.io import check_writable

    with user_errors({"model kind": "--model"}), interruptible(command_line(["--resume"])):
        check_writable(output, "--output")
        check_writable(f"{output}.ckpt", "the checkpoint")
        import torch

        if resume and Path(f"{output}.ckpt").is_file():
            from vhuman.prediction.checkpoint import load_checkpoint

            load_checkpoint(f"{output}.ckpt")  # a damaged one is refused before any work

        from vhuman.prediction import TrainConfig, load_sequences
        from vhuman.prediction import train as train_model
        from vhuman.prediction.training import check_device

        check_device(device)  # before the data are loaded
        if threads is not None:
            torch.set_num_threads(max(1, threads))
        sequences = load_sequences(data)
        from vhuman.prediction.data import N_OBSERVED

        config = TrainConfig(
            kind=model,
            epochs=epochs,
            steps=steps,
            lr=lr,
            batch_size=batch_size,
            seed=seed,
            max_windows=max_windows,
            n_observed=N_OBSERVED if observed is None else observed,
            weight_decay=weight_decay,
            ema=ema,
            mirror=mirror,
            reverse=reverse,
            speed=speed,
            warmup=warmup,
            options={} if dropout is None else {"dropout": dropout},
        )
        with _progress(not as_json) as progress:
            task = progress.add_task(f"train {model}", total=None, info="")

            def report(step: int, total: int, loss: float) -> None:
                progress.update(task, completed=step, total=total, info=f"loss {loss:.4f}")

            _, _, history = train_model(
                sequences, config, output=output, resume=resume, device=device, progress=report
            )
    result = {"output": str(output), "model": model, "epochs": len(history), "loss": history}
    if as_json:
        print(json.dumps(result))
        return
    console.print(f"wrote {output}: {model}, {len(history)} epochs, last loss {history[-1]:.4f}")


def _table(result: dict[str, Any]) -> Table:
    table = Table(title=f"motion prediction, {result['windows']} validation windows")
    table.add_column("model")
    for h, t in zip(result["horizons_ms"], result["horizons_true_ms"], strict=True):
        table.add_column(f"{h} ms\n(true {t:.0f})", justify="right")
    table.add_column("mean", justify="right")
    table.add_column("Euler @400", justify="right")
    table.add_column("bone drift mm", justify="right")
    table.add_column("ms/seq", justify="right")
    i400 = result["horizons_ms"].index(400) if 400 in result["horizons_ms"] else -1
    for name, s in result["models"].items():
        euler = s["euler_error_rad"]
        table.add_row(
            name,
            *(f"{v:.1f}" for v in s["mpjpe_mm"]),
            f"{s['mpjpe_mean_mm']:.1f}",
            "—" if euler is None else f"{euler[i400]:.3f}",
            f"{s['bone_drift_mm']:.2f}",
            f"{s['inference_ms']:.1f}",
        )
    return table


def _literature_table(result: dict[str, Any]) -> Table:
    table = Table(title=f"CMU, published protocol, {result['windows']} windows")
    table.add_column("model")
    for h, t in zip(result["horizons_ms"], result["horizons_true_ms"], strict=True):
        table.add_column(f"{h} ms\n({t:.0f})", justify="right")
    for name, s in result["models"].items():
        table.add_row(name, *(f"{v:.1f}" for v in s["mpjpe_mm"]))
    for name, row in result["published"].items():
        table.add_row(name, *(f"{v:.1f}" for v in row))
    return table


_EVALUATE_FILES = {
    "lie-transformer": "--checkpoint",
    "simlpe": "--simlpe-checkpoint",
    "ltd": "--ltd-checkpoint",
}
"""Model kind → the option of `vhuman predict evaluate` naming its file."""


@predict_app.command(
    cls=renamed(
        {"--model": "--checkpoint", "--simlpe": "--simlpe-checkpoint", "--ltd": "--ltd-checkpoint"}
    )
)
def evaluate(
    data: DataOption,
    checkpoint: Annotated[
        Path | None,
        typer.Option(
            "--checkpoint",
            help="Model file of Ueda et al.'s Transformer (default: the shipped one).",
        ),
    ] = None,
    simlpe: Annotated[
        Path | None,
        typer.Option("--simlpe-checkpoint", help="siMLPe model file (default: the shipped one)."),
    ] = None,
    ltd: Annotated[
        Path | None,
        typer.Option("--ltd-checkpoint", help="LTD model file, evaluated too (none is shipped)."),
    ] = None,
    protocol: Annotated[
        str,
        typer.Option(
            "--protocol",
            help="validation: the held-out trials of --data, windows every 5 frames, with "
            "Euler error, foot skating and timing; literature: every file of --data by the "
            "published CMU protocol (LTD, MSR-GCN, PGBIG), 38-joint MPJPE.",
        ),
    ] = "validation",
    windows: Annotated[
        str,
        typer.Option(
            "--windows",
            help="With --protocol literature: all (every window, MSR-GCN/PGBIG) or ltd8 "
            "(8 seeded windows per file, LTD).",
        ),
    ] = "all",
    mirror_average: Annotated[
        bool,
        typer.Option(
            "--mirror-average",
            help="Average each trained model's forecast with its mirrored forecast of the "
            "left/right mirrored input.",
        ),
    ] = False,
    as_json: JsonOption = False,
) -> None:
    """MPJPE (mm) and Euler error at 80…1000 ms for the model and every baseline."""
    with user_errors():
        from vhuman.prediction import build_model, default_model_path, load_model, load_sequences
        from vhuman.prediction import evaluate as evaluate_models
        from vhuman.prediction.literature import EvaluationProtocol, WindowRule, parse_choice

        chosen = parse_choice(EvaluationProtocol, protocol, "--protocol")
        rule = parse_choice(WindowRule, windows, "--windows")
        sequences = load_sequences(data)
        files = {"lie-transformer": checkpoint or default_model_path("lie-transformer")}
        files["simlpe"] = simlpe or default_model_path("simlpe")
        if ltd is not None:
            files["ltd"] = ltd
        trained = {}
        for kind, path in files.items():
            trained[kind], _ = load_model(path)
            if trained[kind].kind != kind:
                raise InputError(
                    f"{_EVALUATE_FILES[kind]} needs a model of kind {kind!r}; {path} holds one "
                    f"of kind {str(trained[kind].kind)!r}"
                )
        if mirror_average:
            from vhuman.prediction.data import mirror_joints
            from vhuman.prediction.mirror import MirrorAveraged

            swap = mirror_joints(sequences.skeleton)
            trained = {k: MirrorAveraged(m, swap) for k, m in trained.items()}
        main_model = trained.pop("lie-transformer")
        models = {"lie-transformer": main_model}
        for kind in ("zero_velocity", "constant_velocity"):
            models[kind] = build_model(
                kind,
                sequences,
                None,
                n_observed=main_model.n_observed,
                n_future=main_model.n_future,
            )
        models.update(trained)
        with _progress(not as_json) as progress:
            task = progress.add_task("evaluate", total=len(models), info="")

            def report(name: str) -> None:
                progress.update(task, advance=1, info=name)

            if chosen is EvaluationProtocol.LITERATURE:
                from vhuman.prediction.literature import evaluate_literature

                scored = evaluate_literature(models, sequences, rule, progress=report)
                result = scored.to_dict()
            else:
                result = evaluate_models(models, sequences, progress=report).to_dict()
            result["mirror_average"] = mirror_average
    if as_json:
        print(json.dumps(result))
        return
    if chosen is EvaluationProtocol.LITERATURE:
        print_table(_literature_table(result), console)
        console.print(
            f"MPJPE in mm over all {result['joints']} joints (13 filled in as the reference "
            f"code does), mean over the {len(result['windows_per_action'])} actions of "
            f"{result['windows']} windows ({result['windows_rule']})"
            + ("; trained models mirror-averaged" if mirror_average else "")
            + "; labels as at 25 fps, "
            "true times in brackets; published rows as printed in the papers"
        )
        return
        print(json.dumps(result))
        return
    print_table(_table(result), console)
    console.print(
        f"MPJPE in mm over {len(result['joints']['position'])} joints; {result['protocol']}"
    )


@predict_app.command(cls=renamed({"--model": "--checkpoint"}))
def run(
    input: Annotated[Path, typer.Option("--input", help="Observed motion (.bvh, CMU .txt, .npz).")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Predicted motion file.")] = Path(
        "future.bvh"
    ),
    frames: Annotated[int, typer.Option("--frames", help="Frames to predict.")] = 25,
    checkpoint: Annotated[
        Path | None, typer.Option("--checkpoint", help="Model file (default: the shipped one).")
    ] = None,
    as_json: JsonOption = False,
) -> None:
    """Predict the frames that follow the end of --input and write them (BVH by default).

    The model predicts the body's pose; the root goes on at the horizontal
    velocity and turning rate of the last half second observed.
    """
    with user_errors():
        from vhuman.io import load_motion, save_motion
        from vhuman.prediction import default_model_path, load_model, predict_motion
        from vhuman.prediction.root import ROOT_WINDOW_S

        predictor, info = load_model(checkpoint or default_model_path("lie-transformer"))
        motion = load_motion(input)
        future = predict_motion(predictor, info, motion, frames)
        save_motion(future, output)
    import numpy as np

    root = np.concatenate([motion.root_positions[-1:], future.root_positions])
    speed = float(np.linalg.norm(np.diff(root[:, :2], axis=0), axis=1).mean() * future.fps)
    result = {
        "input": str(input),
        "output": str(output),
        "frames": future.n_frames,
        "fps": future.fps,
        "observed": predictor.n_observed,
        "root_speed_m_s": speed,
    }
    if as_json:
        print(json.dumps(result))
        return
    console.print(
        f"wrote {output}: {future.n_frames} predicted frames at {future.fps:g} fps; the body's "
        f"pose predicted, its root extrapolated at {speed:.2f} m/s (the pace of the last "
        f"{ROOT_WINDOW_S:g} s observed)"
    )
