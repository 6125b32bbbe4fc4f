"""Swivel labels of the CMU trials in the thorax frame beside the upright frame.

For every training file (frame 0 dropped, every 4th frame, both arms) the swivel
samples are built twice with `vhuman.reaching.swivel_samples_from_motion`: in the
thorax frame (the default CMU joint mapping) and in the upright frame turned with
the shoulder line (the mapping without ``thorax``). Printed: the thorax's lean
from the vertical, the difference between the two swivel definitions on the same
frames, and the change of the label from one sample to the next within a trial
(30 samples/s) by elbow bend, for both definitions. No model is fit.

Run: ``.venv/bin/python benchmarks/swivel_labels.py [--data CMU_FOLDER]`` (one core,
under a minute); prints the figures, then one JSON line.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: before numpy loads its BLAS

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from headline import run_script
from vhuman.geometry import quat_to_rotmat
from vhuman.io import read_cmu
from vhuman.reaching import swivel_samples_from_motion, wrap_angle
from vhuman.reaching.dataset import CMU_ARM_JOINTS

CMU = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cmu_mocap"
UPRIGHT = {k: v for k, v in CMU_ARM_JOINTS.items() if k != "thorax"}
BENDS = ((10, 20), (20, 30), (30, 45), (45, 90), (90, 180))


def _steps_deg(phi: NDArray[np.float64], keep: NDArray[np.bool_]) -> NDArray[np.float64]:
    """|φ change| [deg] between consecutive samples that both pass ``keep``."""
    both = keep[1:] & keep[:-1]
    return np.degrees(np.abs(wrap_angle(np.diff(phi))))[both]


def measure(data: Path) -> dict[str, Any]:
    """Lean, definition difference and label steps over every training file of ``data``."""
    lean, diff = [], []
    steps: dict[str, dict[str, list[NDArray[np.float64]]]] = {
        frame: {f"{a}-{b}": [] for a, b in BENDS} for frame in ("thorax", "upright")
    }
    for path in sorted((data / "train").glob("*/*.txt")):
        motion = read_cmu(path)[1::4]
        up = quat_to_rotmat(motion.global_rotations[:, motion.skeleton.index("thorax")])[:, :, 2]
        lean.append(np.degrees(np.arccos(np.clip(up[:, 2], -1.0, 1.0))))
        for side in ("right", "left"):
            thorax = swivel_samples_from_motion(motion, side)
            upright = swivel_samples_from_motion(motion, side, names=UPRIGHT)
            bend = np.degrees(thorax.elbow_flexion)
            ok = np.isfinite(thorax.swivel) & (bend >= 10.0)
            diff.append(np.degrees(np.abs(wrap_angle(thorax.swivel - upright.swivel)))[ok])
            for a, b in BENDS:
                keep = ok & (bend >= a) & (bend < b)
                steps["thorax"][f"{a}-{b}"].append(_steps_deg(thorax.swivel, keep))
                steps["upright"][f"{a}-{b}"].append(_steps_deg(upright.swivel, keep))
    lean_all, diff_all = np.concatenate(lean), np.concatenate(diff)
    return {
        "thorax_lean_deg": {
            "median": float(np.median(lean_all)),
            "p95": float(np.percentile(lean_all, 95)),
        },
        "definition_difference_deg": {
            "median": float(np.median(diff_all)),
            "p90": float(np.percentile(diff_all, 90)),
        },
        "label_step_mean_deg": {
            frame: {k: float(np.concatenate(v).mean()) for k, v in per.items()}
            for frame, per in steps.items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("VHUMAN_CMU_DATA", CMU)))
    args = parser.parse_args()
    if not (args.data / "train").is_dir():
        parser.error(f"--data must be the CMU data folder holding train/, got {args.data}")
    result = measure(args.data)
    lean, diff = result["thorax_lean_deg"], result["definition_difference_deg"]
    print(
        f"thorax lean from the vertical: median {lean['median']:.1f}°, 95th percentile "
        f"{lean['p95']:.1f}°"
    )
    print(
        f"φ thorax − φ upright, arms bent ≥ 10°: median {diff['median']:.1f}°, 90th "
        f"percentile {diff['p90']:.1f}°"
    )
    print("mean |Δφ| between consecutive samples (30/s), by elbow bend:")
    for k in result["label_step_mean_deg"]["thorax"]:
        t, u = (result["label_step_mean_deg"][f][k] for f in ("thorax", "upright"))
        print(f"  {k:>7}°: thorax {t:5.2f}°, upright {u:5.2f}°")
    print(json.dumps({"benchmark": "swivel_labels", **result}))


if __name__ == "__main__":
    run_script(main)
