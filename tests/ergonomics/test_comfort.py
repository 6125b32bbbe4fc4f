"""Joint comfort functions f_rot and their data table."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.ergonomics import (
    ARM_DOFS,
    JOINT_COMFORT,
    JointComfort,
    arm_discomfort,
    joint_discomfort,
    joint_discomforts,
)
from vhuman.errors import InputError


@pytest.mark.parametrize("dof", sorted(JOINT_COMFORT))
def test_zero_at_optimum_one_at_range_ends(dof: str) -> None:
    c = JOINT_COMFORT[dof]
    f = joint_discomfort([c.optimum, c.low, c.high], dof)
    assert np.allclose(f, [0.0, 1.0, 1.0])
    # Grows monotonically away from the optimum on both sides, 4 at twice the range.
    up = joint_discomfort(c.optimum + np.linspace(0, 2 * (c.high - c.optimum), 50), dof)
    down = joint_discomfort(c.optimum - np.linspace(0, 2 * (c.optimum - c.low), 50), dof)
    assert np.all(np.diff(up) > 0)
    assert np.all(np.diff(down) > 0)
    assert np.isclose(up[-1], 4.0)
    assert np.isclose(down[-1], 4.0)


def test_published_values() -> None:
    """Elbow 60-100° (RULA lower arm 1); wrist flexion 0-20°, deviation 0-10° (LUBA class 1)."""
    elbow = JOINT_COMFORT["elbow_flexion"]
    assert np.allclose(np.degrees([elbow.low, elbow.optimum, elbow.high]), [60, 80, 100])
    assert np.isclose(np.degrees(JOINT_COMFORT["wrist_flexion"].high), 20.0)
    assert np.isclose(np.degrees(JOINT_COMFORT["wrist_deviation"].high), 10.0)
    assert len(ARM_DOFS) == 7
    assert set(ARM_DOFS) <= set(JOINT_COMFORT)


def test_vectorised_and_summed() -> None:
    rng = np.random.default_rng(0)
    theta = rng.uniform(-1.0, 1.5, (4, 5, 7))
    per = joint_discomforts(theta, ARM_DOFS)
    assert per.shape == (4, 5, 7)
    for k, dof in enumerate(ARM_DOFS):
        assert np.allclose(per[..., k], joint_discomfort(theta[..., k], dof))
    assert np.allclose(arm_discomfort(theta), per.sum(axis=-1))
    optimum = np.array([JOINT_COMFORT[d].optimum for d in ARM_DOFS])
    assert arm_discomfort(optimum) == 0.0
    assert arm_discomfort(optimum + np.radians(5.0)) > 0.0


def test_asymmetric_range() -> None:
    c = JointComfort(optimum=0.0, low=-0.1, high=0.4, source="test")
    assert np.allclose(joint_discomfort([-0.1, 0.4, 0.2], c), [1.0, 1.0, 0.25])


def test_invalid_input_raises() -> None:
    with pytest.raises(InputError, match="unknown degree of freedom 'knee'"):
        joint_discomfort(0.0, "knee")
    with pytest.raises(InputError, match="NaN"):
        joint_discomfort([0.0, np.nan], "elbow_flexion")
    with pytest.raises(InputError, match="last axis of 7"):
        arm_discomfort(np.zeros((3, 6)))
    with pytest.raises(InputError, match="low < optimum < high"):
        JointComfort(optimum=0.5, low=0.0, high=0.4, source="bad")
