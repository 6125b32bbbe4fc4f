"""The working arm: angle mapping, reach errors, seeded NSGA-II."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.ergonomics import body_angles
from vhuman.posture import (
    ArmSetting,
    PostureLibrary,
    access_errors,
    anatomical_angles,
    solve_arm_nsga2,
)
from vhuman.reaching import ArmModel, Side
from vhuman.scene import BodyModel, CollisionWorld, load_scene
from vhuman.skeleton import Motion, Skeleton


def test_anatomical_signs_match_measured_angles(
    p95: Skeleton, library: PostureLibrary, body: BodyModel
) -> None:
    """One D-H joint at a time: the mapped angle equals what body_angles measures."""
    setting = ArmSetting(
        body,
        p95.offsets[0],
        library["standing"].local_rotations,
        Side.RIGHT,
        load_scene("ship-valve").target,
    )
    # D-H joint → (index in ARM_DOFS, measured field).
    fields = {
        1: (0, "upper_arm_flexion"),
        3: (3, "elbow_flexion"),
        4: (4, "forearm_rotation"),
        5: (5, "wrist_deviation"),
        6: (6, "wrist_flexion"),
    }
    for k, (dof, name) in fields.items():
        q = np.zeros(7)
        q[3] = -np.radians(60.0)
        q[k] = np.radians(25.0) if setting.model.limits[k, 1] > 0.3 else -np.radians(25.0)
        if k == 3:
            q[k] = -np.radians(70.0)
        motion = Motion(p95, 30.0, p95.offsets[:1], setting.poses(q)[None])
        measured = getattr(body_angles(motion), name)[0, 1]
        assert anatomical_angles(q)[dof] == pytest.approx(measured, abs=1e-6), name


def test_arm_rotations_follow_the_arm_model(
    p95: Skeleton, library: PostureLibrary, body: BodyModel
) -> None:
    """FK of the skeleton with the mapped arm puts the hand where ArmModel.forward does."""
    scene = load_scene("ship-valve")
    p = library["kneeling-bent"]
    setting = ArmSetting(body, p.root_position, p.local_rotations, Side.RIGHT, scene.target)
    rng = np.random.default_rng(3)
    lim = ArmModel.from_skeleton(p95).limits
    q = rng.uniform(lim[:, 0], lim[:, 1], (5, 7))
    hand, rot = setting.hand_frames(q)
    motion = Motion(p95, 30.0, np.tile(p.root_position, (5, 1)), setting.poses(q))
    fk_hand = motion.global_positions[:, p95.index("r_hand")]
    fk_rot = motion.global_rotations[:, p95.index("r_wrist")]
    assert np.allclose(fk_hand, hand, atol=1e-9)
    _t, r = access_errors(hand, fk_rot, scene.target)
    _t2, r2 = access_errors(hand, rot, scene.target)
    assert np.allclose(r, r2, atol=1e-7)


def test_access_errors_on_a_known_offset() -> None:
    target = load_scene("ship-valve").target
    q_turn = np.array([np.cos(np.radians(5)), 0.0, 0.0, np.sin(np.radians(5))])  # 10° about z
    from vhuman.geometry import quat_multiply

    t, r = access_errors(
        target.position + np.array([0.003, 0.004, 0.0]),
        quat_multiply(target.rotation, q_turn),
        target,
    )
    assert t == pytest.approx(0.005)
    assert np.degrees(r) == pytest.approx(10.0)


def test_nsga2_is_seeded_and_reaches(library: PostureLibrary, body: BodyModel) -> None:
    scene = load_scene("ship-valve")
    world = CollisionWorld(scene)
    p = library["squatting"]
    root = p.root_position + np.array([-0.2, 0.19, 0.0])
    setting = ArmSetting(body, root, p.local_rotations, Side.RIGHT, scene.target)
    a = solve_arm_nsga2(setting, world, population=16, generations=8, seed=7)
    b = solve_arm_nsga2(setting, world, population=16, generations=8, seed=7)
    assert np.array_equal(a.q, b.q)
    assert np.array_equal(a.pareto_f, b.pareto_f)
    assert a.reached
    assert a.diff_t <= 0.005
    assert np.degrees(a.diff_r) <= 3.0
    assert a.collision_ratio == 0.0
    assert setting.model.within_limits(a.q)
    # The Pareto set is non-dominated.
    f = a.pareto_f
    assert np.all(np.diff(f[:, 0]) >= 0)
    assert np.all(np.diff(f[:, 1]) < 0)
