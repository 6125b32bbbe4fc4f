"""Motion prediction on the published CMU protocol, beside the published LTD, MSR-GCN and PGBIG.

The protocol of :mod:`vhuman.prediction.literature` (every second frame,
10 observed → 25 predicted poses, 13 joints filled in, MPJPE over all 38
joints, mean over each action's windows, then over actions), on the trials of
``--data`` (default: the held-out trial of each of the literature's CMU
actions in the shared training data, the highest-numbered one, which no
shipped model was trained or chosen on; ``washwindow`` has no file there).
Scores the shipped Lie-algebra Transformer (Ueda et al. 2022) and siMLPe
(Guo et al. 2023), LTD (Mao et al. 2019) re-implemented when its file is
given (none is shipped), each also with test-time mirror averaging
(:mod:`vhuman.prediction.mirror`), zero and constant velocity; once with every
window (MSR-GCN, PGBIG) and once with LTD's eight windows per file. Prints the
tables and one JSON line.

Run: ``.venv/bin/python benchmarks/prediction_literature.py [--data FOLDER] [--ltd LTD.pt]``
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import torch
from rich.console import Console
from rich.table import Table

from headline import figure, run_script
from vhuman.prediction import build_model, load_cmu_sequences, load_model
from vhuman.prediction.data import mirror_joints
from vhuman.prediction.literature import PUBLISHED_MPJPE_MM, WindowRule, evaluate_literature
from vhuman.prediction.mirror import MirrorAveraged
from vhuman.prediction.shipped import default_model_path

CMU = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cmu_mocap"
ACTIONS = ("basketball", "jumping", "running", "soccer", "walking", "washwindow")
"""The CMU actions of the published tables."""


def held_out_folder(root: Path, into: Path) -> Path:
    """A folder of links to the highest-numbered trial of each of :data:`ACTIONS` under ``root``."""
    for action in ACTIONS:
        files = sorted(
            (root / "train" / action).glob("*.txt"), key=lambda f: int(f.stem.rsplit("_", 1)[1])
        )
        if files:
            (into / action).mkdir(parents=True)
            (into / action / files[-1].name).symlink_to(files[-1])
    return into


def main() -> None:
    """Evaluate and print the tables and the JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="folder of CMU test files")
    parser.add_argument("--ltd", type=Path, help="an LTD model file, scored too")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.data is None and not CMU.is_dir():
        print(json.dumps({"skipped": f"needs the CMU data in {CMU}"}))
        return
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data or held_out_folder(CMU, Path(tmp))
        sequences = load_cmu_sequences(data)
    models = {}
    for kind in ("lie-transformer", "simlpe"):
        models[kind], _ = load_model(default_model_path(kind))
    if args.ltd is not None:
        models["ltd"], _ = load_model(args.ltd)
    swap = mirror_joints(sequences.skeleton)
    for name in list(models):
        models[f"{name}, mirror-averaged"] = MirrorAveraged(models[name], swap)
    for kind in ("zero_velocity", "constant_velocity"):
        models[kind] = build_model(kind, sequences, None, n_observed=10, n_future=25)
    console = Console(width=150)
    out = {"data": str(args.data or "held-out trials of the shared training data")}
    for rule in WindowRule:
        result = evaluate_literature(models, sequences, rule)
        d = result.to_dict()
        table = Table(
            title=f"CMU, published protocol, {rule.value} windows ({d['windows']}: "
            + ", ".join(f"{a} {n}" for a, n in d["windows_per_action"].items())
            + "), MPJPE in mm over 38 joints; labels as at 25 fps, true times in brackets"
        )
        table.add_column("model")
        for h, t in zip(d["horizons_ms"], d["horizons_true_ms"], strict=True):
            table.add_column(f"{h} ms ({t:.0f})", justify="right")
        for name, s in d["models"].items():
            table.add_row(name, *(f"{v:.1f}" for v in s["mpjpe_mm"]))
        for name, row in PUBLISHED_MPJPE_MM.items():
            table.add_row(f"{name}, published", *(f"{v:.1f}" for v in row))
        console.print(table)
        out[rule.value] = d
    out["headline"] = headline(out["all"])
    print(json.dumps(out))


def headline(result: dict) -> list[dict]:
    """The shipped model (mirror-averaged) at 400 and 1000 ms beside the published LTD."""
    ours = result["models"]["lie-transformer, mirror-averaged"]["mpjpe_mm"]
    ltd = PUBLISHED_MPJPE_MM["LTD (Mao et al. 2019)"]
    rows = []
    for label in (400, 1000):
        k = result["horizons_ms"].index(label)
        rows.append(
            figure(
                "prediction",
                f"MPJPE at {label} ms, literature protocol",
                ours[k],
                "mm",
                peer="LTD (published)",
                peer_value=ltd[k],
                target=1.0,
                higher_is_better=False,
            )
        )
    return rows


if __name__ == "__main__":
    run_script(main)
