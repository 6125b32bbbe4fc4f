"""Physically grounded swivel priors on the CMU trials: each alone, with no per-action data.

Every prior picks, for each sample's hand pose, the swivel angle φ (sampled every
1°) that optimises a criterion of the arm's posture; the elbow on its circle and
the joint angles come from the arm's closed-form inverse kinematics
(`vhuman.reaching.swivel_postures`, `ArmModel.forward`; the wrist centre
`CMU_HAND_TO_FOREARM` ``· d2`` behind the hand end, moved into reach where the
measured lengths leave it just out). Priors:

``manipulability``
    Kim, Miller, Byl, Abrams & Rosen (2012): the φ that maximises the wrist's
    manipulability projected on the unit vector ``u`` from the wrist to the
    head, ``uᵀ J Jᵀ u``, with ``J`` (3 × 4) the wrist velocity of the three
    shoulder joints and the elbow of Xia et al.'s D-H chain: joint 1 about the
    forward axis, joint 3 about the upper arm, joint 2 about the axis normal
    to both, the elbow about the normal of the arm plane. The head point is
    the CMU skeleton's ``head`` joint relative to the right shoulder in its
    rest pose (the thorax frame), scaled by the arm length ``d1 + d2``.
``elbow-lowest``
    φ = 0: the elbow as low as the hand pose lets it be (least potential
    energy of the upper arm and forearm).
``shoulder-torque``
    The φ whose arm's centre of mass lies nearest the vertical through the
    shoulder (least gravity torque there): Winter's (2009) segment masses
    (upper arm 0.028, forearm 0.016, hand 0.006 of the body mass) and centres
    (0.436, 0.430 and 0.506 of the segment from its proximal end).
``joint-centre``
    The φ whose joint angles lie nearest the middle of Xia et al.'s limits,
    ``Σ (1 − cos(q_j − centre_j))`` (all joints weighted alike).
``palm``
    `vhuman.reaching.palm_angle`: the palm's angle about the shoulder→wrist
    axis (no search).

Printed per prior: the MAE over the training trials' samples and the mean of
the 7 actions' MAEs, the same after one constant offset (the circular mean of
φ − prior over the training samples; the only thing fit), and the held-out
trials' MAE with that offset. Swivel convention and samples as
``benchmarks/swivel.py``.

Run: ``.venv/bin/python benchmarks/swivel_priors.py [--data CMU_FOLDER]`` (one core,
about 2 minutes); prints the table, then one JSON line.

References
----------
Kim, H., Miller, L. M., Byl, N., Abrams, G. M., & Rosen, J. (2012). Redundancy
resolution of the human arm and an upper limb exoskeleton. IEEE Transactions on
Biomedical Engineering 59(6), 1770–1779.
Winter, D. A. (2009). Biomechanics and motor control of human movement, 4th ed.,
Table 4.1.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: before numpy loads its BLAS

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from headline import run_script
from vhuman.io import cmu_skeleton
from vhuman.reaching import (
    CMU_HAND_TO_FOREARM,
    JOINT_LIMITS,
    ArmModel,
    cmu_swivel_dataset,
    palm_angle,
    swivel_postures,
    validation_split_highest_numbered,
    wrap_angle,
)

CMU = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cmu_mocap"
GRID = np.radians(np.arange(-180.0, 180.0))
"""Sampled swivel angles [rad], every 1°."""
CHUNK = 100
"""Samples per batch of inverse kinematics (keeps the (samples, 360, 7, 4, 4) frames small)."""


def _head_point() -> NDArray[np.float64]:
    """The CMU ``head`` joint from ``rshoulder`` at rest over the arm length, shape (3,)."""
    skeleton = cmu_skeleton()
    rest = skeleton.rest_positions()
    head, shoulder, elbow, wrist = rest[
        skeleton.indices(["head", "rshoulder", "relbow", "rhand_base"])
    ]
    length = np.linalg.norm(elbow - shoulder) + np.linalg.norm(wrist - elbow)
    return (head - shoulder) / length


def _postures(
    x: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Joint angles (N, 360, 7), elbows (N, 360, 3) and wrists (N, 3) at every sampled φ."""
    q, wrist = swivel_postures(x, GRID)
    arms = [ArmModel(d1, d2, CMU_HAND_TO_FOREARM * d2) for d1, d2 in x[:, 6:8]]
    elbow = np.stack([arm.forward(qi).elbow for arm, qi in zip(arms, q, strict=True)])
    return q, elbow, wrist


def _manipulability(
    q: NDArray, elbow: NDArray, wrist: NDArray, x: NDArray, head: NDArray
) -> NDArray[np.float64]:
    """Kim et al.'s ``uᵀ J Jᵀ u`` (N, 360) of the wrist towards the head."""
    w = np.broadcast_to(wrist[:, None], elbow.shape)
    u = head * (x[:, 6] + x[:, 7])[:, None, None] - w
    u = u / np.linalg.norm(u, axis=-1, keepdims=True)
    forward = np.broadcast_to([1.0, 0.0, 0.0], elbow.shape)
    upper = elbow / np.linalg.norm(elbow, axis=-1, keepdims=True)
    across = np.cross(forward, upper)
    across = across / np.maximum(np.linalg.norm(across, axis=-1, keepdims=True), 1e-12)
    normal = np.cross(elbow, w - elbow)
    normal = normal / np.maximum(np.linalg.norm(normal, axis=-1, keepdims=True), 1e-12)
    velocities = [np.cross(a, w) for a in (forward, across, upper)] + [np.cross(normal, w - elbow)]
    return sum(np.sum(v * u, axis=-1) ** 2 for v in velocities)


def _torque(q: NDArray, elbow: NDArray, wrist: NDArray, x: NDArray) -> NDArray[np.float64]:
    """Minus the horizontal distance (N, 360) [m·kg/kg] of the arm's centre of mass."""
    w = wrist[:, None]
    hand = x[:, None, :3]
    mass = 0.028 * 0.436 * elbow + 0.016 * (elbow + 0.430 * (w - elbow))
    mass = mass + 0.006 * (w + 0.506 * (hand - w))
    return -np.hypot(mass[..., 0], mass[..., 1])


def _joint_centre(q: NDArray, elbow: NDArray, wrist: NDArray, x: NDArray) -> NDArray[np.float64]:
    """Minus ``Σ (1 − cos(q − centre))`` (N, 360) over the joints."""
    return -np.sum(1.0 - np.cos(q - JOINT_LIMITS.mean(axis=1)), axis=-1)


def priors(x: NDArray[np.float64]) -> dict[str, NDArray[np.float64]]:
    """Each prior's φ (N,) [rad] of features ``m`` (N, 8)."""
    head = _head_point()
    scores: dict[str, Callable[..., NDArray[np.float64]]] = {
        "manipulability": lambda *a: _manipulability(*a, head),
        "shoulder-torque": _torque,
        "joint-centre": _joint_centre,
    }
    out: dict[str, list[NDArray[np.float64]]] = {k: [] for k in scores}
    for start in range(0, x.shape[0], CHUNK):
        part = x[start : start + CHUNK]
        posture = _postures(part)
        for name, score in scores.items():
            out[name].append(GRID[np.argmax(score(*posture, part), axis=1)])
    result = {k: np.concatenate(v) for k, v in out.items()}
    return {**result, "elbow-lowest": np.zeros(x.shape[0]), "palm": palm_angle(x)}


def _mae(err: NDArray[np.float64], action: NDArray[np.str_]) -> tuple[float, float]:
    deg = np.degrees(np.abs(err))
    return float(deg.mean()), float(np.mean([deg[action == a].mean() for a in np.unique(action)]))


def measure(data: Path) -> dict[str, Any]:
    """Every prior's MAE [°] on the training trials, alone and offset, and held out."""
    train, test = validation_split_highest_numbered(cmu_swivel_dataset(data))
    action = np.char.replace(train.activity, "walking_extra", "walking")
    fit, held = priors(train.features), priors(test.features)
    rows = {}
    for name, phi in fit.items():
        offset = float(np.angle(np.mean(np.exp(1j * (train.swivel - phi)))))
        alone = _mae(wrap_angle(phi - train.swivel), action)
        shifted = _mae(wrap_angle(phi + offset - train.swivel), action)
        rows[name] = {
            "train_mae_deg": alone[0],
            "train_action_mean_deg": alone[1],
            "offset_deg": float(np.degrees(offset)),
            "train_offset_mae_deg": shifted[0],
            "train_offset_action_mean_deg": shifted[1],
            "heldout_offset_mae_deg": float(
                np.degrees(np.abs(wrap_angle(held[name] + offset - test.swivel))).mean()
            ),
        }
    return {"train_samples": len(train), "heldout_samples": len(test), "priors": rows}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("VHUMAN_CMU_DATA", CMU)))
    args = parser.parse_args()
    if not (args.data / "train").is_dir():
        parser.error(f"--data must be the CMU data folder holding train/, got {args.data}")
    result = measure(args.data)
    print(
        f"swivel MAE °, {result['train_samples']} training samples "
        f"({result['heldout_samples']} held out); per action: the mean of the actions' MAEs"
    )
    print("                    training            offset  training + offset      held-out")
    print(" prior             samples  per action     °    samples  per action   + offset")
    for name, r in result["priors"].items():
        print(
            f" {name:16s} {r['train_mae_deg']:7.2f} {r['train_action_mean_deg']:10.2f}"
            f" {r['offset_deg']:7.1f} {r['train_offset_mae_deg']:9.2f}"
            f" {r['train_offset_action_mean_deg']:10.2f} {r['heldout_offset_mae_deg']:10.2f}"
        )
    print(json.dumps({"benchmark": "swivel_priors", **result}))


if __name__ == "__main__":
    run_script(main)
