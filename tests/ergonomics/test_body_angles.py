"""Body angles measured on poses of the standard humanoid built with known joint angles."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.ergonomics import (
    CMU_BODY_MAP,
    STANDARD_BODY_MAP,
    BodyAngles,
    BodyMap,
    body_angles,
    body_angles_from_rotations,
    default_body_map,
)
from vhuman.errors import InputError, UnknownJointError
from vhuman.geometry import euler_to_quat, quat_multiply
from vhuman.io.cmu import cmu_skeleton
from vhuman.skeleton import Motion, Skeleton

TOL = 0.5  # degrees


def deg(a: np.ndarray) -> np.ndarray:
    return np.degrees(a)


def test_rest_pose_is_neutral(humanoid: Skeleton) -> None:
    """Rest pose: upright, arms hanging at the sides (checked on rest_positions), all angles 0."""
    rest = humanoid.rest_positions()
    shoulder, elbow, wrist = (rest[humanoid.index(n)] for n in ("l_shoulder", "l_elbow", "l_wrist"))
    assert np.allclose((elbow - shoulder)[:2], 0.0)
    assert elbow[2] < shoulder[2]
    assert np.allclose((wrist - elbow)[:2], 0.0)
    assert wrist[2] < elbow[2]
    a = body_angles(Motion.rest(humanoid, n_frames=3))
    assert a.shape == (3,)
    for name in BodyAngles.SINGLE:
        assert np.allclose(getattr(a, name), 0.0, atol=1e-9), name
    for name in (
        "knee_flexion",
        "upper_arm_flexion",
        "upper_arm_abduction",
        "elbow_flexion",
        "shoulder_elevation",
        "forearm_rotation",
        "wrist_flexion",
        "wrist_deviation",
        "foot_clearance",
        "hip_flexion",
    ):
        assert np.allclose(getattr(a, name), 0.0, atol=1e-9), name
    # Wrists hang at shoulder width from the midline, not out to the side.
    assert np.allclose(a.wrist_midline_offset, rest[humanoid.index("l_wrist"), 1])
    assert np.allclose(a.wrist_lateral_offset, 0.0, atol=1e-9)


@pytest.mark.parametrize("angle", [10.0, 30.0, 70.0])
def test_trunk_flexion_of_a_stoop(pose, angle: float) -> None:
    """Pelvis pitched forward, hips counter-rotated (legs stay vertical): a stoop of ``angle``."""
    m = pose(
        pelvis=("XYZ", [0.0, angle, 0.0]),
        l_hip=("XYZ", [0.0, -angle, 0.0]),
        r_hip=("XYZ", [0.0, -angle, 0.0]),
    )
    a = body_angles(m)
    assert abs(deg(a.trunk_flexion[0]) - angle) < TOL
    assert abs(deg(a.trunk_side_bend[0])) < TOL
    assert abs(deg(a.trunk_twist[0])) < TOL
    assert np.allclose(deg(a.hip_flexion[0]), angle, atol=TOL)
    assert np.allclose(deg(a.knee_flexion[0]), 0.0, atol=TOL)
    # The arms are carried by the trunk: relative to it they still hang.
    assert np.allclose(deg(a.upper_arm_flexion[0]), 0.0, atol=TOL)


def test_trunk_extension_side_bend_and_twist(pose) -> None:
    a = body_angles(
        pose(pelvis=("XYZ", [0, -15, 0]), l_hip=("XYZ", [0, 15, 0]), r_hip=("XYZ", [0, 15, 0]))
    )
    assert abs(deg(a.trunk_flexion[0]) + 15.0) < TOL
    # Rotation about +x tilts the trunk towards -y, the body's right.
    a = body_angles(
        pose(pelvis=("XYZ", [20, 0, 0]), l_hip=("XYZ", [-20, 0, 0]), r_hip=("XYZ", [-20, 0, 0]))
    )
    assert abs(deg(a.trunk_side_bend[0]) + 20.0) < TOL
    assert abs(deg(a.trunk_flexion[0])) < TOL
    a = body_angles(pose(chest=("XYZ", [0, 0, 25])))
    assert abs(deg(a.trunk_twist[0]) - 25.0) < TOL
    assert abs(deg(a.neck_twist[0])) < TOL  # the head turns with the chest


def test_neck_angles_relative_to_trunk(pose) -> None:
    a = body_angles(pose(neck=("XYZ", [0, 15, 0]), head=("XYZ", [0, 10, 0])))
    assert abs(deg(a.neck_flexion[0]) - 25.0) < TOL
    a = body_angles(pose(head=("XYZ", [0, -15, 0])))
    assert abs(deg(a.neck_flexion[0]) + 15.0) < TOL
    a = body_angles(pose(head=("XYZ", [0, 0, 30])))
    assert abs(deg(a.neck_twist[0]) - 30.0) < TOL
    a = body_angles(pose(neck=("XYZ", [12, 0, 0])))
    assert abs(deg(a.neck_side_bend[0]) + 12.0) < TOL
    # A stooped trunk with the head in line: no neck flexion.
    a = body_angles(pose(pelvis=("XYZ", [0, 40, 0])))
    assert abs(deg(a.neck_flexion[0])) < TOL
    assert abs(deg(a.trunk_flexion[0]) - 40.0) < TOL


def test_knee_flexion_and_support(pose) -> None:
    """Both legs bent alike: both bear weight; one leg lifted: only the other does."""
    m = pose(
        l_hip=("XYZ", [0, -25, 0]),
        r_hip=("XYZ", [0, -25, 0]),
        l_knee=("hinge", 50.0),
        r_knee=("hinge", 50.0),
        l_ankle=("XYZ", [0, -25, 0]),
        r_ankle=("XYZ", [0, -25, 0]),
    )
    a = body_angles(m)
    assert np.allclose(deg(a.knee_flexion[0]), 50.0, atol=TOL)
    assert np.allclose(deg(a.hip_flexion[0]), 25.0, atol=TOL)
    assert np.allclose(a.foot_clearance[0], 0.0, atol=1e-9)
    a = body_angles(pose(l_hip=("XYZ", [0, -60, 0]), l_knee=("hinge", 60.0)))
    assert abs(deg(a.knee_flexion[0, 0]) - 60.0) < TOL
    assert a.foot_clearance[0, 0] > 0.1
    assert a.foot_clearance[0, 1] == 0.0


def test_arm_angles(pose) -> None:
    # Flexion is -y at the shoulder, abduction +x on the left, -x on the right.
    a = body_angles(pose(l_shoulder=("YZX", [-30, 0, 0]), r_shoulder=("YZX", [-100, 0, 0])))
    assert np.allclose(deg(a.upper_arm_flexion[0]), [30.0, 100.0], atol=TOL)
    assert np.allclose(deg(a.upper_arm_abduction[0]), 0.0, atol=TOL)
    a = body_angles(pose(l_shoulder=("YZX", [25, 0, 0])))
    assert abs(deg(a.upper_arm_flexion[0, 0]) + 25.0) < TOL  # extension
    a = body_angles(pose(l_shoulder=("YZX", [0, 0, 35]), r_shoulder=("YZX", [0, 0, -35])))
    assert np.allclose(deg(a.upper_arm_abduction[0]), 35.0, atol=TOL)
    assert np.allclose(deg(a.upper_arm_flexion[0]), 35.0, atol=TOL)  # elevation, sideways
    a = body_angles(pose(l_elbow=("hinge", 90.0), r_elbow=("hinge", 45.0)))
    assert np.allclose(deg(a.elbow_flexion[0]), [90.0, 45.0], atol=TOL)
    assert np.allclose(deg(a.forearm_rotation[0]), 0.0, atol=TOL)
    a = body_angles(pose(l_clavicle=("YXZ", [0, 15, 0]), r_clavicle=("YXZ", [0, -15, 0])))
    assert np.allclose(deg(a.shoulder_elevation[0]), 15.0, atol=TOL)


def test_wrist_angles(pose) -> None:
    """Left wrist (ZXY): pronation -z, flexion -x, radial deviation -y; right mirrored."""
    a = body_angles(pose(l_wrist=("ZXY", [0, -30, 0]), r_wrist=("ZXY", [0, 30, 0])))
    assert np.allclose(deg(a.wrist_flexion[0]), 30.0, atol=TOL)
    assert np.allclose(deg(a.wrist_deviation[0]), 0.0, atol=TOL)
    a = body_angles(pose(l_wrist=("ZXY", [0, 0, -12]), r_wrist=("ZXY", [0, 0, -12])))
    assert np.allclose(deg(a.wrist_deviation[0]), 12.0, atol=TOL)
    a = body_angles(pose(l_wrist=("ZXY", [-50, 0, 0]), r_wrist=("ZXY", [50, 0, 0])))
    assert np.allclose(deg(a.forearm_rotation[0]), 50.0, atol=TOL)
    # Forearm rotation is measured against the humerus: elbow flexion does not change it.
    a = body_angles(pose(l_elbow=("hinge", 80.0), l_wrist=("ZXY", [-50, 0, 0])))
    assert abs(deg(a.forearm_rotation[0, 0]) - 50.0) < TOL
    assert abs(deg(a.wrist_flexion[0, 0])) < TOL


def test_mirrored_motion_mirrors_the_angles(humanoid: Skeleton) -> None:
    q = humanoid.random_rotations(20, rng=3)
    m = Motion(humanoid, 30.0, np.tile(humanoid.offsets[0], (20, 1)), q)
    a, b = body_angles(m), body_angles(m.mirrored()).mirrored()
    paired = ("knee_flexion", "upper_arm_flexion", "wrist_flexion", "forearm_rotation")
    for name in (*BodyAngles.SINGLE, *paired, "wrist_midline_offset"):
        assert np.allclose(getattr(a, name), getattr(b, name), atol=1e-9), name


def test_angles_do_not_depend_on_heading_or_place(humanoid: Skeleton) -> None:
    q = humanoid.random_rotations(10, rng=5)
    yaw = euler_to_quat(np.array([0.0, 0.0, 1.3]), "XYZ")
    turned = q.copy()
    turned[:, 0] = quat_multiply(yaw, q[:, 0])
    a = body_angles_from_rotations(humanoid, q)
    b = body_angles_from_rotations(humanoid, turned, np.tile([3.0, -2.0, 0.9], (10, 1)))
    for name in (
        "trunk_flexion",
        "trunk_twist",
        "neck_flexion",
        "upper_arm_abduction",
        "elbow_flexion",
        "wrist_deviation",
    ):
        assert np.allclose(getattr(a, name), getattr(b, name), atol=1e-9), name


def test_batched_shapes(humanoid: Skeleton) -> None:
    q = humanoid.random_rotations(6, rng=1).reshape(2, 3, humanoid.n_joints, 4)
    a = body_angles_from_rotations(humanoid, q)
    assert a.shape == (2, 3)
    assert a.knee_flexion.shape == (2, 3, 2)
    flat = body_angles_from_rotations(humanoid, q.reshape(6, -1, 4))
    assert np.allclose(a.elbow_flexion.reshape(6, 2), flat.elbow_flexion)


def test_cmu_skeleton_is_measured_with_its_map() -> None:
    """The CMU rest pose is a T-pose: arms abducted 90°, legs straight."""
    sk = cmu_skeleton()
    assert default_body_map(sk) is CMU_BODY_MAP
    a = body_angles(Motion.rest(sk))
    assert np.allclose(deg(a.upper_arm_abduction[0]), 90.0, atol=3.0)
    assert np.allclose(deg(a.elbow_flexion[0]), 0.0, atol=1.0)
    assert abs(deg(a.trunk_flexion[0])) < 5.0


def test_unknown_joints_raise(humanoid: Skeleton) -> None:
    other = Skeleton(("root", "a", "b"), np.array([-1, 0, 1]), np.eye(3))
    with pytest.raises(UnknownJointError, match="body map"):
        default_body_map(other)
    bad = BodyMap(**{**STANDARD_BODY_MAP.__dict__, "head": "skull"})
    with pytest.raises(UnknownJointError, match="skull"):
        body_angles(Motion.rest(humanoid), body_map=bad)


def test_invalid_input_raises(humanoid: Skeleton) -> None:
    q = np.tile([1.0, 0.0, 0.0, 0.0], (1, humanoid.n_joints, 1))
    with pytest.raises(InputError, match=r"shape \(\.\.\., 23, 4\)"):
        body_angles_from_rotations(humanoid, q[:, :5])
    nan = q.copy()
    nan[0, 3, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        body_angles_from_rotations(humanoid, nan)
    with pytest.raises(InputError, match="zero quaternion"):
        body_angles_from_rotations(humanoid, np.zeros_like(q))
    with pytest.raises(InputError, match="root_positions"):
        body_angles_from_rotations(humanoid, q, np.zeros((2, 3)))
    with pytest.raises(InputError, match="Motion"):
        body_angles(q)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="NaN"):
        BodyAngles.from_degrees(trunk_flexion=np.nan)
    with pytest.raises(InputError, match="unknown BodyAngles fields"):
        BodyAngles.from_degrees(spine_flexion=10.0)
    with pytest.raises(InputError, match="last axis of 2"):
        BodyAngles.from_degrees(knee_flexion=[1.0, 2.0, 3.0])
    with pytest.raises(InputError, match="pair of joint names"):
        BodyMap(**{**STANDARD_BODY_MAP.__dict__, "knee": "l_knee"})
    with pytest.raises(InputError, match="palm_normal"):
        BodyMap(**{**STANDARD_BODY_MAP.__dict__, "palm_normal": (0.0, 0.0, 0.0)})


def test_to_dict_in_degrees() -> None:
    a = BodyAngles.from_degrees(trunk_flexion=[30.0, 45.0], elbow_flexion=[[80.0, 90.0]] * 2)
    d = a.to_dict()
    assert d["sides"] == ["left", "right"]
    assert np.allclose(d["trunk_flexion_deg"], [30.0, 45.0])
    assert np.allclose(d["elbow_flexion_deg"], [[80.0, 90.0]] * 2)
    assert np.allclose(d["wrist_midline_offset_m"], 0.2)


@pytest.mark.parametrize("angle", [-60.0, -20.0, 35.0, 70.0])
def test_upper_arm_rotation_about_the_humerus(pose, angle: float) -> None:
    """Left arm hanging, elbow at 90°: turning the humerus about its own (vertical) axis by
    ``angle`` towards the midline (internal) reads +angle; the right arm mirrors it."""
    m = pose(
        l_shoulder=("XYZ", [0.0, 0.0, -angle]),
        l_elbow=("hinge", 90.0),
        r_shoulder=("XYZ", [0.0, 0.0, angle]),
        r_elbow=("hinge", 90.0),
    )
    a = body_angles(m)
    assert np.allclose(deg(a.upper_arm_rotation[0]), [angle, angle], atol=TOL)
    # Internal rotation carries the forearm towards the midline (−y for the left arm).
    assert abs(deg(a.upper_arm_flexion[0, 0])) < TOL
    wrist_y = m.global_positions[0, m.skeleton.index("l_wrist"), 1]
    elbow_y = m.global_positions[0, m.skeleton.index("l_elbow"), 1]
    assert np.sign(wrist_y - elbow_y) == -np.sign(angle)


def test_upper_arm_rotation_survives_flexion(pose) -> None:
    """Flexing the shoulder (a swing) adds no rotation about the humerus."""
    a = body_angles(pose(l_shoulder=("YZX", [-80.0, 0.0, 0.0]), l_elbow=("hinge", 90.0)))
    assert abs(deg(a.upper_arm_rotation[0, 0])) < TOL
    assert abs(deg(a.upper_arm_flexion[0, 0]) - 80.0) < TOL
