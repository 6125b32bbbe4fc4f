"""The swivel priors of benchmarks/swivel_priors.py checked against the arm's own kinematics."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np
import pytest

from vhuman.reaching import (
    CMU_HAND_TO_FOREARM,
    ArmModel,
    swivel_angle,
    synthetic_swivel_dataset,
    wrap_angle,
)

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def priors_module():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        yield importlib.import_module("swivel_priors")
    finally:
        sys.path.remove(str(BENCHMARKS))


def test_manipulability_is_the_wrist_jacobian_of_the_first_four_joints(priors_module) -> None:
    # J J^T projected on u, from finite differences of ArmModel.forward in joints 1-4.
    arm = ArmModel(0.33, 0.22, CMU_HAND_TO_FOREARM * 0.22)
    data = synthetic_swivel_dataset(arm, 6, np.random.default_rng(4))
    q, elbow, wrist = priors_module._postures(data.features)
    head = priors_module._head_point()
    score = priors_module._manipulability(q, elbow, wrist, data.features, head)
    for i in range(6):
        for g in (0, 90, 200):
            step = 1e-6
            columns = []
            for j in range(4):
                dq = np.zeros(7)
                dq[j] = step
                ahead = arm.forward(q[i, g] + dq).wrist
                behind = arm.forward(q[i, g] - dq).wrist
                columns.append((ahead - behind) / (2.0 * step))
            jac = np.stack(columns, axis=1)
            u = head * (arm.upper_arm + arm.forearm) - wrist[i]
            u = u / np.linalg.norm(u)
            np.testing.assert_allclose(score[i, g], u @ jac @ jac.T @ u, rtol=1e-6, atol=1e-9)


def test_postures_put_the_elbow_at_each_sampled_swivel(priors_module) -> None:
    arm = ArmModel(0.33, 0.22, CMU_HAND_TO_FOREARM * 0.22)
    data = synthetic_swivel_dataset(arm, 4, np.random.default_rng(5))
    _, elbow, wrist = priors_module._postures(data.features)
    phi = swivel_angle(np.zeros(3), elbow, wrist[:, None])
    assert np.abs(wrap_angle(phi - priors_module.GRID)).max() < 1e-6
