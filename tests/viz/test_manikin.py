"""The manikin: capsules from segments or bones, and their low-poly mesh in any pose."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from vhuman.geometry import quat_apply, rotvec_to_quat
from vhuman.io import cmu_walking_example
from vhuman.scene import BodyModel
from vhuman.skeleton import Skeleton, forward_kinematics, standard_humanoid
from vhuman.viz.manikin import Manikin


def _point_to_segment(p: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distances ``(..., V)`` from points ``(..., V, 3)`` to segments a–b ``(..., 1, 3)``."""
    ab = b - a
    t = np.clip(np.sum((p - a) * ab, -1) / np.maximum(np.sum(ab * ab, -1), 1e-18), 0.0, 1.0)
    return np.linalg.norm(p - (a + t[..., None] * ab), axis=-1)


@pytest.fixture(scope="module")
def cmu() -> Skeleton:
    return cmu_walking_example().skeleton


def test_segment_skeleton_uses_the_collision_body() -> None:
    sk = standard_humanoid(sex="male", percentile=95)
    manikin = Manikin.from_skeleton(sk)
    body = BodyModel.from_skeleton(sk)
    assert manikin.mapping == "segments"
    np.testing.assert_array_equal(manikin.joints, body.joints)
    np.testing.assert_array_equal(manikin.starts, body.starts)
    np.testing.assert_array_equal(manikin.ends, body.ends)
    np.testing.assert_array_equal(manikin.radii, body.radii)


@pytest.mark.parametrize("which", ["humanoid", "cmu"])
def test_mesh_is_closed_outward_and_on_the_capsules(which: str, cmu: Skeleton) -> None:
    sk = standard_humanoid() if which == "humanoid" else cmu
    manikin = Manikin.from_skeleton(sk)
    local, faces = manikin.local_mesh()
    s, v, _ = local.shape
    assert v == 34
    assert faces.shape == (64 * s, 3)
    # Every vertex lies on its capsule's surface: at the radius from the axis segment.
    dist = _point_to_segment(local, manikin.starts[:, None], manikin.ends[:, None])
    np.testing.assert_allclose(
        dist, np.broadcast_to(manikin.radii[:, None], dist.shape), atol=1e-12
    )
    for k in range(s):
        mesh = trimesh.Trimesh(local[k], faces[: len(faces) // s], process=False)
        assert mesh.is_watertight
        assert mesh.is_winding_consistent
        r, length = manikin.radii[k], np.linalg.norm(manikin.ends[k] - manikin.starts[k])
        capsule = np.pi * r**2 * (length + 4.0 / 3.0 * r)
        # Inscribed polyhedron: positive (outward faces), a little under the capsule.
        assert 0.7 * capsule < mesh.volume < capsule


def test_vertices_follow_each_joint_rigidly(cmu: Skeleton) -> None:
    manikin = Manikin.from_skeleton(cmu)
    rng = np.random.default_rng(3)
    rot = rotvec_to_quat(rng.normal(scale=0.6, size=(4, cmu.n_joints, 3)))
    root = rng.normal(size=(4, 3))
    pos, grot = forward_kinematics(cmu.parents, cmu.offsets, root, rot)
    world = manikin.vertices(pos, grot).reshape(4, manikin.n_capsules, -1, 3)
    local, _ = manikin.local_mesh()
    expected = quat_apply(grot[:, manikin.joints, None], local) + pos[:, manikin.joints, None]
    np.testing.assert_allclose(world, expected, atol=1e-12)
    # Capsule shapes are kept: the same distances from the world axis as at rest.
    a = quat_apply(grot[:, manikin.joints], manikin.starts) + pos[:, manikin.joints]
    b = quat_apply(grot[:, manikin.joints], manikin.ends) + pos[:, manikin.joints]
    dist = _point_to_segment(world, a[:, :, None], b[:, :, None])
    np.testing.assert_allclose(
        dist, np.broadcast_to(manikin.radii[:, None], dist.shape[1:])[None].repeat(4, 0), atol=1e-9
    )


def test_cmu_bones_sized_like_the_standard_humanoid(cmu: Skeleton) -> None:
    manikin = Manikin.from_skeleton(cmu)
    assert manikin.mapping == "named bones"
    long_bones = np.linalg.norm(cmu.offsets[1:], axis=-1) > 0.01
    assert manikin.n_capsules == int(long_bones.sum())  # one capsule per bone, no leaf extras
    radius = {cmu.names[j]: r for j, r in zip(manikin.joints, manikin.radii, strict=True)}
    assert radius["lhip"] > radius["lknee"] > radius["lankle"] > radius["ltoe"]
    assert radius["lshoulder"] > radius["lelbow"] > radius["lhand"]
    assert radius["spine_mid"] > radius["lhip"]
    # Sized to the skeleton: the thigh is as thick as a standard humanoid's of its height
    # (head top to toes, 1.76 m), not a fixed number.
    stature = np.ptp(cmu.rest_positions()[:, 2])
    ref = standard_humanoid(stature=stature)
    assert radius["lhip"] == pytest.approx(ref.segments[ref.index("l_hip")].radius, rel=1e-9)


def test_unknown_names_get_capsules_along_the_bones() -> None:
    offsets = [[0, 0, 1], [0, 0, 0.5], [0, 0, 0], [0, 0.1, 0]]
    sk = Skeleton(("a", "b", "c", "d"), [-1, 0, 1, 2], offsets)
    manikin = Manikin.from_skeleton(sk)
    assert manikin.mapping == "bones"
    # The zero-length bone b–c has no capsule; c carries the bone to d.
    np.testing.assert_array_equal(manikin.joints, [0, 2])
    np.testing.assert_allclose(manikin.ends, [[0, 0, 0.5], [0, 0.1, 0]])
    np.testing.assert_allclose(manikin.starts, 0.0)
    # A fifth of the bone length, at most 5 % of the height (0.5 m here).
    np.testing.assert_allclose(manikin.radii, [0.05 * 0.5, 0.2 * 0.1])
    lone = Manikin.from_skeleton(Skeleton(("only",), [-1], [[0, 0, 1]]))
    assert lone.n_capsules == 1
    assert lone.radii[0] > 0


def test_leaf_wrist_ankle_and_neck_carry_hand_foot_and_head() -> None:
    # Like the DeepMimic humanoid read from BVH: the chain ends at the neck, wrist, ankle.
    names = (
        "root",
        "chest",
        "neck",
        "left_shoulder",
        "left_elbow",
        "left_wrist",
        "left_hip",
        "left_knee",
        "left_ankle",
    )
    parents = [-1, 0, 1, 1, 3, 4, 0, 6, 7]
    offsets = [
        [0, 0, 0.9],
        [0, 0, 0.24],
        [0, 0, 0.22],
        [0, 0.18, 0.24],
        [0, 0, -0.28],
        [0, 0, -0.26],
        [0, 0.08, 0],
        [0, 0, -0.42],
        [0, 0, -0.41],
    ]
    sk = Skeleton(names, parents, offsets)
    manikin = Manikin.from_skeleton(sk)
    assert manikin.mapping == "named bones"
    leaf = {sk.names[j]: k for k, j in enumerate(manikin.joints) if j in (2, 5, 8)}
    assert set(leaf) == {"neck", "left_wrist", "left_ankle"}
    head = leaf["neck"]
    assert manikin.starts[head][2] > 0.05
    assert manikin.radii[head] > 0.07
    foot = leaf["left_ankle"]
    assert manikin.ends[foot][0] - manikin.starts[foot][0] > 0.1  # pointing forward
    hand = leaf["left_wrist"]
    assert manikin.ends[hand][2] < -0.1  # along the hanging forearm
    # The chest's bones into the shoulders are shoulder girdles, thinner than the chest.
    chest = [k for k, j in enumerate(manikin.joints) if j == 1]
    assert len(chest) == 2
    assert sorted(manikin.radii[chest])[0] < 0.5 * max(manikin.radii[chest])
