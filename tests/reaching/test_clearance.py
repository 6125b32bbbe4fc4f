"""Tests of the arm–body capsule clearance: segment distance, the body model, overlaps."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.geometry import rotmat_to_quat
from vhuman.reaching import ArmModel
from vhuman.reaching.clearance import (
    BODY_SEGMENTS,
    DEFAULT_TOLERANCE,
    ArmBodyClearance,
    segment_distance,
)
from vhuman.scene import BodyModel
from vhuman.skeleton import standard_humanoid

SKELETON = standard_humanoid()


def _sampled_distance(a0, a1, b0, b1, n: int = 2001) -> np.ndarray:
    t = np.linspace(0.0, 1.0, n)
    pa = a0[:, None] + (a1 - a0)[:, None] * t[:, None]  # (B, n, 3)
    pb = b0[:, None] + (b1 - b0)[:, None] * t[:, None]
    return np.min(np.linalg.norm(pa[:, :, None] - pb[:, None], axis=-1), axis=(1, 2))


def test_segment_distance_matches_dense_sampling() -> None:
    rng = np.random.default_rng(0)
    a0, a1, b0, b1 = rng.normal(size=(4, 40, 3))
    got = segment_distance(a0, a1, b0, b1)
    want = _sampled_distance(a0, a1, b0, b1, n=801)
    assert np.all(got <= want + 1e-12)  # never more than any pair of sampled points
    np.testing.assert_allclose(got, want, atol=2e-2)
    np.testing.assert_allclose(got, segment_distance(b0, b1, a0, a1), atol=1e-12)


def test_segment_distance_of_degenerate_and_parallel_segments() -> None:
    origin, x = np.zeros(3), np.array([1.0, 0.0, 0.0])
    assert segment_distance(origin, origin, [0, 3, 4], [0, 3, 4]) == pytest.approx(5.0)
    assert segment_distance(origin, x, [0.5, 2, 0], [0.5, 2, 0]) == pytest.approx(2.0)
    assert segment_distance([0.5, 2, 0], [0.5, 2, 0], origin, x) == pytest.approx(2.0)
    assert segment_distance(origin, x, [0.2, 1, 0], [3, 1, 0]) == pytest.approx(1.0)
    assert segment_distance(origin, x, [2, 1, 0], [3, 1, 0]) == pytest.approx(np.sqrt(2.0))


def test_body_capsules_are_the_scene_body_models() -> None:
    clearance = ArmBodyClearance.from_skeleton(SKELETON, "right")
    body = BodyModel.from_skeleton(SKELETON, samples_per_segment=1)
    rest = np.tile([1.0, 0.0, 0.0, 0.0], (SKELETON.n_joints, 1))
    starts, _ = body.capsules(SKELETON.rest_positions()[0], rest)
    idx = body.segment_indices(BODY_SEGMENTS)
    np.testing.assert_allclose(clearance.body_starts, starts[idx])
    np.testing.assert_allclose(clearance.body_radii, body.radii[idx])
    np.testing.assert_allclose(
        clearance.arm_radii, body.radii[body.segment_indices(["r_shoulder", "r_elbow", "r_wrist"])]
    )


def test_hanging_arm_clears_the_body_and_a_hand_in_the_chest_does_not() -> None:
    clearance = ArmBodyClearance.from_skeleton(SKELETON, "right")
    rest = SKELETON.rest_positions()
    s, e, w, h = rest[SKELETON.indices(["r_shoulder", "r_elbow", "r_wrist", "r_hand"])]
    # The standard humanoid's round capsules touch by a hair with the arm hanging.
    assert clearance.penetration(s, e, w, h).max() < DEFAULT_TOLERANCE
    chest = rest[SKELETON.index("chest")] + np.array([0.0, 0.0, 0.05])
    wrist = chest + np.array([0.1, 0.0, 0.0])
    depth = clearance.penetration(s, e, wrist, chest)  # (3, K)
    assert depth[2, BODY_SEGMENTS.index("chest")] > 0.1
    # Batched: the same numbers for a stack of poses.
    stacked = clearance.penetration(*(np.stack([p, p]) for p in (s, e, wrist, chest)))
    np.testing.assert_allclose(stacked[1], depth)


def test_posed_capsules_agree_with_joint_positions() -> None:
    rng = np.random.default_rng(3)
    clearance = ArmBodyClearance.from_skeleton(SKELETON, "left")
    model = ArmModel.from_skeleton(SKELETON, "left")
    q = rng.uniform(model.limits[:, 0], model.limits[:, 1], size=(20, 7))
    rot = model.segment_rotations(q)
    local = np.tile([1.0, 0.0, 0.0, 0.0], (20, SKELETON.n_joints, 1))
    i_sh, i_el = SKELETON.indices(["l_shoulder", "l_elbow"])
    local[:, i_sh] = rotmat_to_quat(rot[:, 0])
    local[:, i_el] = rotmat_to_quat(np.swapaxes(rot[:, 0], -1, -2) @ rot[:, 1])
    local[:, i_el + 1] = rotmat_to_quat(np.swapaxes(rot[:, 1], -1, -2) @ rot[:, 2])
    starts, ends = clearance.body.capsules(np.tile(SKELETON.rest_positions()[0], (20, 1)), local)
    pose = model.forward(q)
    shoulder = SKELETON.rest_positions()[i_sh]
    direct = clearance.penetration(
        shoulder + pose.shoulder, shoulder + pose.elbow, shoulder + pose.wrist, shoulder + pose.hand
    )
    np.testing.assert_allclose(clearance.penetration_of_capsules(starts, ends), direct, atol=1e-9)
    with pytest.raises(InputError, match="capsule ends"):
        clearance.penetration_of_capsules(starts[:, :3], ends[:, :3])
