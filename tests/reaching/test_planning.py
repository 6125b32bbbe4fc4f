"""Batched reach planning against results recorded from the one-reach-at-a-time search.

``data/plan_reference.npz`` holds the swivel angles, arm angles, ``ok``,
``joint_space`` flags and refusal reasons that :func:`plan_reaches` returned
for :func:`cases` when the feasible-swivel search ran one reach at a time
(recorded with ``record()`` below, before the search was batched over reaches).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.reaching import ArmModel, LeastSquaresPredictor, swivel_angle, synthetic_swivel_dataset
from vhuman.reaching.arm import JOINT_LIMITS
from vhuman.reaching.audit import wrap_to_pi
from vhuman.reaching.clearance import ArmBodyClearance
from vhuman.reaching.planning import _HARD, EDGE_BLOCK, _best_edges
from vhuman.reaching.reach import READY_ARM_ANGLES, natural_orientation, plan_reaches
from vhuman.reaching.workspace import workspace_targets
from vhuman.skeleton import standard_humanoid

REFERENCE = Path(__file__).parent / "data" / "plan_reference.npz"
SKELETON = standard_humanoid(stature=1.75)
FPS = 30.0


def _predictor() -> LeastSquaresPredictor:
    data = synthetic_swivel_dataset(ArmModel(0.3, 0.25, 0.19), 3000, np.random.default_rng(1))
    return LeastSquaresPredictor().fit(data.features, data.swivel)


def _random_poses(model: ArmModel, n: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    q = rng.uniform(JOINT_LIMITS[:, 0], JOINT_LIMITS[:, 1], size=(4 * n, 7))
    pose = model.forward(q[q[:, 3] < -np.radians(10.0)][:n])
    return pose.hand, pose.hand_orientation


def _workspace(side: str, model: ArmModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    s = side[0]
    shoulder = SKELETON.rest_positions()[SKELETON.index(f"{s}_shoulder")]
    goals = workspace_targets(SKELETON, side).positions[::9] - shoulder
    hand, orientation = [], []
    for g in goals:
        try:
            orientation.append(natural_orientation(model, g))
        except InputError:
            continue
        hand.append(g)
    return np.stack(hand), np.stack(orientation), shoulder


def cases() -> dict[str, dict[str, Any]]:
    """Named batches of reaches: plan_reaches arguments (1 s at 30 fps)."""
    out: dict[str, dict[str, Any]] = {}
    right = ArmModel.from_skeleton(SKELETON, "right")
    ready = right.forward(READY_ARM_ANGLES)
    hand, orientation = _random_poses(right, 40)
    out["free"] = {
        "model": right,
        "start": np.broadcast_to(ready.hand, hand.shape),
        "start_orientation": np.broadcast_to(ready.hand_orientation, orientation.shape),
        "target": hand,
        "target_orientation": orientation,
    }
    for side in ("right", "left"):
        model = ArmModel.from_skeleton(SKELETON, side)
        ready = model.forward(READY_ARM_ANGLES)
        hand, orientation, shoulder = _workspace(side, model)
        phi0 = float(swivel_angle(ready.shoulder, ready.elbow, ready.wrist))
        out[f"body_{side}"] = {
            "model": model,
            "start": np.broadcast_to(ready.hand, hand.shape),
            "start_orientation": np.broadcast_to(ready.hand_orientation, orientation.shape),
            "target": hand,
            "target_orientation": orientation,
            "body": ArmBodyClearance.from_skeleton(SKELETON, side),
            "shoulder": shoulder,
            "start_swivel": np.full(hand.shape[0], phi0),
        }
    return out


def _plan(case: dict[str, Any]) -> Any:
    args = dict(case)
    model = args.pop("model")
    return plan_reaches(
        model,
        args.pop("start"),
        args.pop("start_orientation"),
        args.pop("target"),
        args.pop("target_orientation"),
        duration=1.0,
        fps=FPS,
        predictor=_predictor(),
        hand_to_forearm=None,  # the predictor is fit on this arm's own hand
        **args,
    )


def record(path: Path = REFERENCE) -> None:
    """Write the plans of :func:`cases` to ``path`` (run once with the reference code)."""
    arrays: dict[str, np.ndarray] = {}
    for name, case in cases().items():
        plan = _plan(case)
        arrays[f"{name}_swivel"] = plan.swivel
        arrays[f"{name}_q"] = plan.q
        arrays[f"{name}_ok"] = plan.ok
        arrays[f"{name}_joint_space"] = plan.joint_space
        arrays[f"{name}_reasons"] = np.array(plan.reasons)
    path.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(path, **arrays)


@pytest.mark.parametrize("name", ["free", "body_right", "body_left"])
def test_batched_search_reproduces_the_recorded_plans(name: str) -> None:
    want = np.load(REFERENCE)
    plan = _plan(cases()[name])
    np.testing.assert_array_equal(plan.ok, want[f"{name}_ok"])
    np.testing.assert_array_equal(plan.joint_space, want[f"{name}_joint_space"])
    assert list(plan.reasons) == want[f"{name}_reasons"].tolist()
    np.testing.assert_allclose(plan.swivel, want[f"{name}_swivel"], rtol=0.0, atol=1e-9)
    np.testing.assert_allclose(plan.q, want[f"{name}_q"], rtol=0.0, atol=1e-9)


def test_best_edges_cost_the_wrapped_joint_speeds_in_excess() -> None:
    rng = np.random.default_rng(0)
    b, c = EDGE_BLOCK + 3, 6  # one full block of reaches and a part of one
    total = rng.uniform(0.0, 5.0, size=(b, c))
    jump = rng.uniform(0.0, 1.0, size=(b, c, c))
    q_from, q_to = rng.uniform(-np.pi, np.pi, size=(2, b, c, 7))
    q_to[0, 0] = np.pi  # steps of exactly ±2π and 0 between the edges of the range
    q_from[0, :2] = [np.full(7, -np.pi), np.full(7, np.pi)]
    dt, max_speed = 0.05, 8.0
    source, cost = _best_edges(total, jump, q_from, q_to, dt, max_speed)
    step = np.abs(wrap_to_pi(q_to[:, None, :, :] - q_from[:, :, None, :])).max(axis=-1)
    edges = total[:, :, None] + jump + _HARD * np.maximum(step / dt - 0.8 * max_speed, 0.0)
    np.testing.assert_allclose(cost, edges.min(axis=1), rtol=1e-12, atol=1e-9)
    chosen = np.take_along_axis(edges, source[:, None, :], axis=1)[:, 0]
    np.testing.assert_allclose(chosen, cost, rtol=1e-12, atol=1e-9)
    assert np.all(cost >= (total[:, :, None] + jump).min(axis=1))
    # −π to π is no step at all: that edge costs no more than its path and jump.
    assert cost[0, 0] <= total[0, 0] + jump[0, 0, 0]
