"""Tests of the swivel angle and the closed-form arm IK."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.geometry import quat_angle
from vhuman.reaching import (
    JOINT_LIMITS,
    ArmModel,
    feasible_swivel_intervals,
    nearest_feasible_swivel,
    solve_arm,
    swivel_angle,
)


def random_q(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.uniform(JOINT_LIMITS[:, 0], JOINT_LIMITS[:, 1], size=(n, 7))


def wrap(x: np.ndarray) -> np.ndarray:
    return np.angle(np.exp(1j * x))


@pytest.mark.parametrize("side", ["right", "left"])
def test_ik_reproduces_fk_poses_and_swivel(side: str) -> None:
    rng = np.random.default_rng(3)
    arm = ArmModel(0.33, 0.22, 0.08, side)
    q = random_q(rng, 2000)
    pose = arm.forward(q)
    phi = swivel_angle(pose.shoulder, pose.elbow, pose.wrist)
    sol = solve_arm(arm, pose.hand, pose.hand_orientation, phi)
    assert sol.q.shape == (2000, 7)
    assert sol.feasible.all()
    got = arm.forward(sol.q)
    np.testing.assert_allclose(got.hand, pose.hand, atol=1e-9)
    np.testing.assert_array_less(quat_angle(got.hand_orientation, pose.hand_orientation), 1e-9)
    np.testing.assert_array_less(
        np.abs(wrap(swivel_angle(got.shoulder, got.elbow, got.wrist) - phi)), 1e-9
    )
    # With the swivel fixed the solution is unique within the limits: the same q.
    np.testing.assert_allclose(sol.q, q, atol=1e-8)


def test_requested_swivel_is_returned_and_limits_hold() -> None:
    rng = np.random.default_rng(4)
    arm = ArmModel(0.3, 0.26, 0.09)
    pose = arm.forward(random_q(rng, 500))
    phi = rng.uniform(-np.pi, np.pi, size=500)
    sol = solve_arm(arm, pose.hand, pose.hand_orientation, phi)
    got = arm.forward(sol.q)
    np.testing.assert_allclose(got.hand, pose.hand, atol=1e-9)
    np.testing.assert_array_less(quat_angle(got.hand_orientation, pose.hand_orientation), 1e-9)
    np.testing.assert_array_less(
        np.abs(wrap(swivel_angle(got.shoulder, got.elbow, got.wrist) - phi)), 1e-9
    )
    ok = sol.q[sol.feasible]
    assert 0 < len(ok) < 500
    assert np.all((ok >= JOINT_LIMITS[:, 0] - 1e-9) & (ok <= JOINT_LIMITS[:, 1] + 1e-9))
    assert not np.any(arm.within_limits(sol.q[~sol.feasible]))


def test_swivel_sign_and_zero() -> None:
    s, w = np.zeros(3), np.array([0.5, 0.0, 0.0])
    assert swivel_angle(s, [0.25, 0.0, -0.1], w) == pytest.approx(0.0)
    assert swivel_angle(s, [0.25, 0.1, 0.0], w) == pytest.approx(np.pi / 2)  # elbow to the left
    assert swivel_angle(s, [0.25, -0.1, 0.0], w) == pytest.approx(-np.pi / 2)
    assert np.isnan(swivel_angle(s, [0.25, 0.0, 0.0], w))  # straight arm


def test_vertical_wrist_falls_back_to_the_forward_axis() -> None:
    s, w = np.zeros(3), np.array([0.0, 0.0, -0.5])
    assert swivel_angle(s, [-0.1, 0.0, -0.25], w) == pytest.approx(0.0)  # elbow behind
    assert swivel_angle(s, [0.0, 0.1, -0.25], w) == pytest.approx(np.pi / 2)


def test_forward_reference_is_the_seed_q3_zero_plane() -> None:
    rng = np.random.default_rng(5)
    arm = ArmModel(0.33, 0.22, 0.08)
    q = random_q(rng, 300)
    q[:, 2] = 0.0
    pose = arm.forward(q)
    phi = swivel_angle(pose.shoulder, pose.elbow, pose.wrist, reference_up=(1.0, 0.0, 0.0))
    assert np.all(np.minimum(np.abs(phi), np.pi - np.abs(phi)) < 1e-9)


def test_feasible_intervals_contain_exactly_the_feasible_samples() -> None:
    rng = np.random.default_rng(6)
    arm = ArmModel(0.33, 0.22, 0.08)
    pose = arm.forward(random_q(rng, 1)[0])
    phi0 = swivel_angle(pose.shoulder, pose.elbow, pose.wrist)
    intervals = feasible_swivel_intervals(arm, pose.hand, pose.hand_orientation)
    assert intervals
    assert any(
        lo - 1e-9 <= phi0 + k * 2 * np.pi <= hi + np.pi / 360
        for lo, hi in intervals
        for k in (0, 1)
    )
    grid = -np.pi + 2 * np.pi * np.arange(720) / 720
    feasible = solve_arm(arm, pose.hand, pose.hand_orientation, grid).feasible
    inside = np.zeros(720, dtype=bool)
    for lo, hi in intervals:
        for k in (0, 1):
            inside |= (grid + k * 2 * np.pi >= lo - 1e-12) & (grid + k * 2 * np.pi <= hi + 1e-12)
    np.testing.assert_array_equal(inside, feasible)


def test_nearest_feasible_swivel() -> None:
    rng = np.random.default_rng(7)
    arm = ArmModel(0.33, 0.22, 0.08)
    pose = arm.forward(random_q(rng, 40))
    phi = rng.uniform(-np.pi, np.pi, size=40)
    near = nearest_feasible_swivel(arm, pose.hand, pose.hand_orientation, phi)
    assert near.shape == (40,)
    assert np.all(np.isfinite(near))
    assert solve_arm(arm, pose.hand, pose.hand_orientation, near).feasible.all()
    already = solve_arm(arm, pose.hand, pose.hand_orientation, phi).feasible
    np.testing.assert_array_equal(near[already], phi[already])


def test_out_of_reach_gives_reachable_distance() -> None:
    arm = ArmModel(0.33, 0.22, 0.08)
    hand = np.array([[0.0, 0.0, -0.5], [1.0, 0.0, 0.0]])
    with pytest.raises(InputError, match=r"reachable distances are \[0\.11, 0\.55\] m"):
        solve_arm(arm, hand, [1.0, 0.0, 0.0, 0.0], 0.0)


@pytest.mark.parametrize(
    ("hand", "orientation", "phi", "match"),
    [
        ([np.nan, 0.0, -0.4], [1, 0, 0, 0], 0.0, "hand_position"),
        ([0.1, 0.0, -0.4], [np.nan, 0, 0, 0], 0.0, "hand_orientation"),
        ([0.1, 0.0, -0.4], [1, 0, 0, 0], np.nan, "swivel"),
        ([0.1, 0.0], [1, 0, 0, 0], 0.0, "hand_position"),
    ],
)
def test_bad_ik_input(hand: list, orientation: list, phi: float, match: str) -> None:
    with pytest.raises(InputError, match=match):
        solve_arm(ArmModel(0.33, 0.22, 0.08), hand, orientation, phi)
