"""Batched FK against a naive per-joint loop; FK ∘ inverse = identity."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.geometry import quat_to_rotmat, rotvec_to_quat
from vhuman.skeleton import Motion, forward_kinematics, global_to_local, standard_humanoid


def naive_fk(parents, offsets, root, local):
    """Per-frame, per-joint loop with rotation matrices (reference)."""
    t_count, j_count = local.shape[:2]
    pos = np.zeros((t_count, j_count, 3))
    rot = np.zeros((t_count, j_count, 3, 3))
    for t in range(t_count):
        for j in range(j_count):
            r_local = quat_to_rotmat(local[t, j])
            if parents[j] < 0:
                rot[t, j] = r_local
                pos[t, j] = root[t]
            else:
                p = parents[j]
                rot[t, j] = rot[t, p] @ r_local
                pos[t, j] = pos[t, p] + rot[t, p] @ offsets[j]
    return pos, rot


@pytest.fixture
def random_motion() -> Motion:
    rng = np.random.default_rng(0)
    sk = standard_humanoid()
    q = rotvec_to_quat(rng.normal(size=(12, sk.n_joints, 3)))
    return Motion(sk, 30.0, rng.normal(size=(12, 3)), q)


def test_fk_matches_naive_loop(random_motion: Motion) -> None:
    sk = random_motion.skeleton
    pos_ref, rot_ref = naive_fk(
        sk.parents, sk.offsets, random_motion.root_positions, random_motion.local_rotations
    )
    assert np.allclose(random_motion.global_positions, pos_ref, atol=1e-12)
    assert np.allclose(quat_to_rotmat(random_motion.global_rotations), rot_ref, atol=1e-12)


def test_fk_batches_over_leading_shape(random_motion: Motion) -> None:
    sk = random_motion.skeleton
    local = random_motion.local_rotations.reshape(3, 4, sk.n_joints, 4)
    root = random_motion.root_positions.reshape(3, 4, 3)
    pos, rot = forward_kinematics(sk.parents, sk.offsets, root, local)
    assert pos.shape == (3, 4, sk.n_joints, 3)
    assert np.allclose(pos.reshape(12, -1, 3), random_motion.global_positions)
    assert np.allclose(rot.reshape(12, -1, 4), random_motion.global_rotations)


def test_inverse_of_fk_is_identity(random_motion: Motion) -> None:
    sk = random_motion.skeleton
    local = global_to_local(sk.parents, random_motion.global_rotations)
    dots = np.abs(np.sum(local * random_motion.local_rotations, axis=-1))
    assert np.allclose(dots, 1.0, atol=1e-12)
    rebuilt = Motion.from_global(
        sk, 30.0, random_motion.root_positions, random_motion.global_rotations
    )
    assert np.allclose(rebuilt.global_positions, random_motion.global_positions, atol=1e-12)


def test_rest_pose_fk_is_sum_of_offsets() -> None:
    sk = standard_humanoid()
    rest = Motion.rest(sk, 2)
    p = rest.global_positions[0]
    for j in range(1, sk.n_joints):
        assert np.allclose(p[j], p[sk.parents[j]] + sk.offsets[j])
