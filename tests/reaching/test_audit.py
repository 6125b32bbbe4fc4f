"""Tests of the audit of a written reach: collisions, limits and wrapped speeds from the motion."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.io import cmu_walking_example, load_motion, save_motion
from vhuman.reaching import JOINT_LIMITS, ArmModel
from vhuman.reaching.audit import audit_reach, wrap_to_pi
from vhuman.reaching.clearance import ArmBodyClearance
from vhuman.reaching.reach import READY_ARM_ANGLES, arm_motion, generate_reach
from vhuman.skeleton import standard_humanoid

SKELETON = standard_humanoid()


def _into_the_body(side: str) -> np.ndarray:
    """In-limit arm angles whose arm overlaps the body by more than 3 cm."""
    rng = np.random.default_rng(5)
    model = ArmModel.from_skeleton(SKELETON, side)
    body = ArmBodyClearance.from_skeleton(SKELETON, side)
    q = rng.uniform(model.limits[:, 0], model.limits[:, 1], size=(4000, 7))
    pose = model.forward(q)
    s = "r" if side == "right" else "l"
    shoulder = SKELETON.rest_positions()[SKELETON.index(f"{s}_shoulder")]
    depth = body.penetration(
        *(shoulder + p for p in (pose.shoulder, pose.elbow, pose.wrist, pose.hand))
    ).max(axis=(1, 2))
    return q[int(np.argmax(depth > 0.03))]


def test_wrap_to_pi_is_half_open() -> None:
    got = wrap_to_pi(np.array([np.pi, -np.pi, 3 * np.pi, 0.1, -0.1 - 2 * np.pi]))
    np.testing.assert_allclose(got, [np.pi, np.pi, np.pi, 0.1, -0.1])


@pytest.mark.parametrize("side", ["right", "left"])
def test_audit_recovers_the_arm_angles_and_finds_a_collision(side) -> None:
    bad = _into_the_body(side)
    q = READY_ARM_ANGLES + (bad - READY_ARM_ANGLES) * np.linspace(0.0, 1.0, 31)[:, None]
    audit = audit_reach(arm_motion(SKELETON, side, q, 30.0), side)
    assert audit.reconstruction_error_m < 1e-9
    assert audit.limit_violation_frames == 0
    assert audit.collision_frames >= 1
    assert audit.max_penetration_m > 0.03
    assert not audit.clean
    want = np.abs(np.diff(q, axis=0)).max() * 30.0
    assert audit.max_joint_speed_rad_s == pytest.approx(want, rel=1e-6)


def test_audit_counts_frames_outside_the_limits() -> None:
    q = np.tile(READY_ARM_ANGLES, (11, 1))
    q[5:, 2] = JOINT_LIMITS[2, 1] + np.radians(40.0)  # internal humeral rotation past its limit
    audit = audit_reach(arm_motion(SKELETON, "right", q, 60.0), "right")
    assert audit.limit_violation_frames == 6
    assert audit.max_limit_violation_deg == pytest.approx(40.0, abs=1e-6)


def test_audit_speeds_use_wrapped_angle_differences() -> None:
    # Pronation from 175° to 185° (= -175°): 1° per frame, not 350°.
    q = np.tile(READY_ARM_ANGLES, (11, 1))
    q[:, 4] = np.radians(np.linspace(175.0, 185.0, 11))
    audit = audit_reach(arm_motion(SKELETON, "right", q, 60.0), "right")
    assert audit.max_joint_speed_rad_s == pytest.approx(np.radians(1.0) * 60.0, rel=1e-6)
    assert audit.max_joint_step_deg == pytest.approx(1.0, rel=1e-6)


def test_audit_of_the_written_file_agrees_with_the_motion(tmp_path) -> None:
    result = generate_reach((0.5, -0.3, 1.25), skeleton=SKELETON)
    path = tmp_path / "reach.bvh"
    save_motion(result.motion, path)
    before = audit_reach(result.motion, "right")
    after = audit_reach(load_motion(path), "right", body=SKELETON)
    assert after.clean
    assert after.collision_frames == before.collision_frames
    assert after.max_penetration_m == pytest.approx(before.max_penetration_m, abs=1e-4)
    assert after.max_joint_speed_rad_s == pytest.approx(before.max_joint_speed_rad_s, rel=1e-3)
    assert after.swivel_end_deg == pytest.approx(before.swivel_end_deg, abs=1e-3)
    assert before.max_joint_speed_rad_s == pytest.approx(result.to_dict()["max_joint_speed_rad_s"])


def test_bad_tolerances_are_refused() -> None:
    motion = arm_motion(SKELETON, "right", np.tile(READY_ARM_ANGLES, (3, 1)), 60.0)
    with pytest.raises(InputError, match="tolerance"):
        audit_reach(motion, "right", tolerance=-1.0)
    with pytest.raises(InputError, match="same order"):
        audit_reach(motion, "right", body=cmu_walking_example().skeleton)
