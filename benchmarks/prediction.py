"""Motion prediction on the CMU validation trials: the Lie-algebra Transformer and baselines.

One run on the held-out trials (the highest-numbered trial of each action, see
``vhuman.prediction.data``): the Lie-algebra Transformer (Ueda et al. 2022) and siMLPe (the shipped
models, or the files given), LTD when its file is given (none is shipped),
zero velocity and constant velocity; MPJPE [mm]
at 80/160/320/400/560/1000 ms (protocol labels, as at 25 fps: frames 2 … 25
after the last observed one, every second frame of the 120 fps files kept, so
truly 33/67/133/167/233/417 ms, which the table shows too) and their mean,
the Euler-angle error at 400 ms, bone-length drift, and inference time per
sequence (batch of one) on one core; then the Transformer's gain over zero
velocity at 400 ms and its mean MPJPE minus siMLPe's and LTD's,
and how each model was trained. Prints a table and one JSON line.

Run: ``.venv/bin/python benchmarks/prediction.py [LIE_TRANSFORMER.pt [SIMLPE.pt [LTD.pt]]]``
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from headline import figure, run_script
from vhuman.prediction import build_model, evaluate, load_cmu_sequences, load_model
from vhuman.prediction.shipped import default_model_path

MAIN = "lie-transformer"
CMU = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cmu_mocap"


def main() -> None:
    """Evaluate and print the table and the JSON line."""
    torch.set_num_threads(1)
    if not CMU.is_dir():
        print(json.dumps({"skipped": f"needs the CMU data in {CMU}"}))
        return
    main_path = Path(sys.argv[1]) if len(sys.argv) > 1 else default_model_path(MAIN)
    files = {MAIN: main_path}
    files["simlpe"] = Path(sys.argv[2]) if len(sys.argv) > 2 else default_model_path("simlpe")
    if len(sys.argv) > 3:
        files["ltd"] = Path(sys.argv[3])
    sequences = load_cmu_sequences(CMU)
    models, infos = {}, {}
    for kind, path in files.items():
        models[kind], infos[kind] = load_model(path)
        if models[kind].kind != kind:
            raise SystemExit(f"{path} holds a {str(models[kind].kind)!r} model, not {kind!r}")
    models["zero_velocity"] = build_model("zero_velocity", sequences)
    models["constant_velocity"] = build_model("constant_velocity", sequences)
    result = evaluate(models, sequences, timing_runs=50).to_dict()
    table = Table(
        title=f"CMU motion prediction, {result['windows']} validation windows, MPJPE [mm] over "
        f"{len(result['joints']['position'])} joints (horizons labelled as at 25 fps, the "
        "protocol; true times in brackets)"
    )
    table.add_column("model")
    for h, t in zip(result["horizons_ms"], result["horizons_true_ms"], strict=True):
        table.add_column(f"{h} ms\n(true {t:.0f})", justify="right")
    table.add_column("mean", justify="right")
    table.add_column("Euler @400 [rad]", justify="right")
    table.add_column("bone drift [mm]", justify="right")
    table.add_column("ms / sequence", justify="right")
    i400 = result["horizons_ms"].index(400)
    zero_400 = result["models"]["zero_velocity"]["mpjpe_mm"][i400]
    for name, s in result["models"].items():
        euler = s["euler_error_rad"]
        table.add_row(
            name,
            *(f"{v:.1f}" for v in s["mpjpe_mm"]),
            f"{s['mpjpe_mean_mm']:.1f}",
            "—" if euler is None else f"{euler[i400]:.3f}",
            f"{s['bone_drift_mm']:.2f}",
            f"{s['inference_ms']:.2f}",
        )
    console = Console(width=150)
    console.print(table)
    main_400 = result["models"][MAIN]["mpjpe_mm"][i400]
    result["gain_vs_zero_velocity_at_400ms"] = 1.0 - main_400 / zero_400
    gain = 100 * result["gain_vs_zero_velocity_at_400ms"]
    mean = {k: s["mpjpe_mean_mm"] for k, s in result["models"].items()}
    gaps = ""
    for kind, label in (("simlpe", "siMLPe"), ("ltd", "LTD")):
        if kind in files:
            result[f"minus_{kind}_mean_mm"] = mean[MAIN] - mean[kind]
            gaps += f"; {MAIN} − {label} mean MPJPE: {mean[MAIN] - mean[kind]:+.1f} mm"
    result["training"] = {k: info.train for k, info in infos.items()}
    console.print(
        f"{MAIN} vs zero velocity at 400 ms: {gain:.1f}% better{gaps}; {result['protocol']}"
    )
    result["headline"] = [
        figure(
            "prediction",
            f"MPJPE at 400 ms, {result['windows']} validation windows",
            result["models"][MAIN]["mpjpe_mm"][i400],
            "mm",
            peer="zero velocity",
            peer_value=zero_400,
            higher_is_better=False,
        ),
        figure(
            "prediction",
            "inference, one sequence, one core",
            result["models"][MAIN]["inference_ms"],
            "ms",
            target=10.0,
            higher_is_better=False,
        ),
    ]
    print(json.dumps(result))


if __name__ == "__main__":
    run_script(main)
