"""Skeleton validation, topology queries and joint limits."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError, UnknownJointError
from vhuman.geometry import rotvec_to_quat
from vhuman.skeleton import JointType, Skeleton, standard_humanoid


def test_unknown_joint_lists_names() -> None:
    sk = standard_humanoid()
    with pytest.raises(UnknownJointError, match=r"unknown joint 'l_elbo'.*l_elbow"):
        sk.index("l_elbo")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"names": ("a", "a"), "parents": [-1, 0], "offsets": [[0, 0, 0], [0, 0, 1]]}, "unique"),
        ({"names": ("a", "b"), "parents": [0, -1], "offsets": [[0, 0, 0], [0, 0, 1]]}, "root"),
        ({"names": ("a", "b"), "parents": [-1, 1], "offsets": [[0, 0, 0], [0, 0, 1]]}, "parent"),
        (
            {"names": ("a", "b"), "parents": [-1, 0], "offsets": [[0, 0, 0], [0, 0, 0]]},
            "zero-length bone",
        ),
        ({"names": ("a", "b"), "parents": [-1, 0], "offsets": [[0, 0, 0], [0, np.nan, 1]]}, "NaN"),
        ({"names": ("a", "b"), "parents": [-1, 0], "offsets": [[0, 0, 0]]}, "offsets"),
    ],
)
def test_invalid_skeletons(kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        Skeleton(**kwargs)


def test_default_joint_types() -> None:
    sk = Skeleton(("root", "mid", "tip"), [-1, 0, 1], [[0, 0, 1], [0, 0, 0.5], [0, 0, 0.5]])
    assert sk.joint_types == (JointType.FREE, JointType.BALL, JointType.FIXED)
    assert sk.chain("tip") == (0, 1, 2)
    assert sk.children("root") == (1,)


def test_clamp_respects_limits_and_is_idempotent() -> None:
    sk = standard_humanoid()
    rng = np.random.default_rng(0)
    q = rotvec_to_quat(rng.normal(size=(200, sk.n_joints, 3)) * 1.5)
    assert np.any(sk.limit_violation(q) > 0.1)
    clamped = sk.clamp(q)
    assert np.all(sk.limit_violation(clamped) < 1e-9)
    again = sk.clamp(clamped)
    assert np.allclose(np.abs(np.sum(again * clamped, axis=-1)), 1.0, atol=1e-9)


def test_within_limits_rotation_is_unchanged() -> None:
    sk = standard_humanoid()
    elbow = sk.index("l_elbow")
    q = np.tile([1.0, 0.0, 0.0, 0.0], (1, sk.n_joints, 1))
    q[0, elbow] = rotvec_to_quat(np.radians(90.0) * sk.axes[elbow])
    assert sk.limit_violation(q)[0, elbow] == pytest.approx(0.0, abs=1e-12)
    assert np.allclose(sk.clamp(q), q)
    assert sk.joint_angles(q)[0, elbow, 0] == pytest.approx(np.radians(90.0))
    # Hyperextension beyond 0° and any sideways bend of a hinge are violations.
    q[0, elbow] = rotvec_to_quat(np.radians(-20.0) * sk.axes[elbow])
    assert sk.limit_violation(q)[0, elbow] == pytest.approx(np.radians(20.0))
    q[0, elbow] = rotvec_to_quat([0.3, 0.0, 0.0])
    assert sk.limit_violation(q)[0, elbow] == pytest.approx(0.3)


def test_scaled() -> None:
    sk = standard_humanoid()
    big = sk.scaled(2.0)
    assert np.allclose(big.rest_positions(), 2.0 * sk.rest_positions())
    assert big.total_mass == pytest.approx(sk.total_mass)
    with pytest.raises(InputError, match="scale factor"):
        sk.scaled(0.0)


def test_clamp_selected_joints_only() -> None:
    sk = standard_humanoid()
    rng = np.random.default_rng(1)
    q = rotvec_to_quat(rng.normal(size=(50, sk.n_joints, 3)) * 1.5)
    knee = sk.index("l_knee")
    out = sk.clamp(q, [knee])
    assert np.all(sk.limit_violation(out)[:, knee] < 1e-9)
    others = [j for j in range(sk.n_joints) if j != knee]
    dots = np.abs(np.sum(out[:, others] * q[:, others], axis=-1))
    assert np.allclose(dots, 1.0)  # untouched (up to sign)


def test_random_rotations_are_within_limits_and_seeded() -> None:
    sk = standard_humanoid()
    q = sk.random_rotations(300, 7)
    assert q.shape == (300, sk.n_joints, 4)
    assert np.all(sk.limit_violation(q) < 1e-9)
    assert np.array_equal(q, sk.random_rotations(300, 7))
    spread = np.abs(q[:, sk.index("l_shoulder"), 1:]).max()
    assert spread > 0.5  # the draw covers the range, not only the rest pose
    arm = sk.random_rotations(5, 0, [sk.index("l_elbow")])
    others = np.delete(arm, sk.index("l_elbow"), axis=1)
    assert np.allclose(others[..., 0], 1.0)
