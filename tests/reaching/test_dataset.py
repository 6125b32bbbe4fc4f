"""Tests of the swivel-learning datasets: features, mirroring, splits and the CMU loader."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.geometry import quat_multiply, quat_to_rotmat
from vhuman.geometry.so3 import rotvec_to_quat, rotvec_to_rotmat
from vhuman.io import cmu_walking_example
from vhuman.reaching import JOINT_LIMITS, ArmModel, swivel_angle
from vhuman.reaching.dataset import (
    CMU_ARM_JOINTS,
    CMU_HAND_TO_FOREARM,
    MIN_ELBOW_FLEXION,
    SwivelDataset,
    cmu_folder_swivel_dataset,
    cmu_hand_end,
    cmu_swivel_dataset,
    shape_features,
    split_by_trial,
    swivel_frame_features,
    swivel_samples_from_motion,
    synthetic_swivel_dataset,
    task_features,
    validation_split_highest_numbered,
    wrist_features,
)
from vhuman.skeleton import Motion, standard_humanoid


def test_synthetic_features_reproduce_forward_kinematics_and_swivel() -> None:
    model = ArmModel(0.33, 0.22, 0.08)
    data = synthetic_swivel_dataset(model, 200, np.random.default_rng(0))
    assert len(data) == 200
    assert data.synthetic
    # Rebuild the postures from the same draws to compare against the arm model.
    rng = np.random.default_rng(0)
    q = rng.uniform(JOINT_LIMITS[:, 0], JOINT_LIMITS[:, 1], size=(400, 7))
    pose = model.forward(q)
    upper, fore = pose.elbow, pose.wrist - pose.elbow
    cos_flex = np.sum(upper * fore, -1) / (model.upper_arm * model.forearm)
    keep = np.arccos(np.clip(cos_flex, -1, 1)) >= MIN_ELBOW_FLEXION
    np.testing.assert_allclose(data.features[:, :3], pose.hand[keep][:200], atol=1e-12)
    np.testing.assert_allclose(
        rotvec_to_rotmat(data.features[:, 3:6]),
        quat_to_rotmat(pose.hand_orientation[keep][:200]),
        atol=1e-9,
    )
    np.testing.assert_allclose(data.features[:, 6], model.upper_arm)
    np.testing.assert_allclose(data.features[:, 7], model.forearm)
    expected = swivel_angle(pose.shoulder, pose.elbow, pose.wrist)[keep][:200]
    np.testing.assert_allclose(data.swivel, expected, atol=1e-12)


def test_left_model_is_mirrored_into_right_coordinates() -> None:
    right = synthetic_swivel_dataset(ArmModel(0.3, 0.25, 0.08), 50, np.random.default_rng(1))
    left = synthetic_swivel_dataset(
        ArmModel(0.3, 0.25, 0.08, side="left"), 50, np.random.default_rng(1)
    )
    np.testing.assert_allclose(left.features, right.features, atol=1e-9)
    np.testing.assert_allclose(left.swivel, right.swivel, atol=1e-9)
    assert set(left.side) == {"left"}


HUMANOID_ARM_JOINTS = {
    f"{s}{j}": f"{s}_{j}" for s in "lr" for j in ("shoulder", "elbow", "wrist", "hand")
}


def test_left_arm_features_equal_right_arm_of_mirrored_motion() -> None:
    skeleton = standard_humanoid()  # exactly left-right symmetric
    rng = np.random.default_rng(4)
    rot = rotvec_to_quat(rng.normal(scale=0.6, size=(20, skeleton.n_joints, 3)))
    motion = Motion(skeleton, 30.0, rng.normal(size=(20, 3)), rot)
    left = swivel_samples_from_motion(motion, "left", names=HUMANOID_ARM_JOINTS)
    mirrored = swivel_samples_from_motion(motion.mirrored(), "right", names=HUMANOID_ARM_JOINTS)
    np.testing.assert_allclose(left.features, mirrored.features, atol=1e-9)
    np.testing.assert_allclose(left.swivel, mirrored.swivel, atol=1e-9)
    np.testing.assert_allclose(left.elbow_flexion, mirrored.elbow_flexion, atol=1e-9)


def test_samples_are_in_the_thorax_frame() -> None:
    motion = cmu_walking_example()[1:100:10]
    out = swivel_samples_from_motion(motion, "right")
    p = motion.joint_trajectory(["rshoulder", "relbow", "rwrist", "rhand"])
    # The CMU rest pose stands upright: the thorax's z axis is its global rotation's third column.
    up = quat_to_rotmat(motion.global_rotations[:, motion.skeleton.index("thorax")])[:, :, 2]
    np.testing.assert_allclose(out.features[:, 2], np.sum((p[:, 3] - p[:, 0]) * up, axis=1))
    np.testing.assert_allclose(
        np.linalg.norm(out.features[:, :3], axis=1), np.linalg.norm(p[:, 3] - p[:, 0], axis=1)
    )
    np.testing.assert_allclose(out.features[:, 6], np.linalg.norm(p[:, 1] - p[:, 0], axis=1))
    expected = swivel_angle(p[:, 0], p[:, 1], p[:, 2], reference_up=up)
    np.testing.assert_allclose(out.swivel, expected, atol=1e-9)
    assert np.all(out.features[:, 1] < 0.1)  # the right hand stays on the right


def test_a_tilted_body_gives_the_same_samples_in_the_thorax_frame() -> None:
    motion = cmu_walking_example()[1:60:10]
    tilt = rotvec_to_quat(np.array([0.3, -0.4, 0.5]))  # the whole body pitched, rolled, turned
    rotations = motion.local_rotations.copy()
    rotations[:, 0] = quat_multiply(tilt, rotations[:, 0])
    tilted = Motion(motion.skeleton, motion.fps, motion.root_positions, rotations)
    upright_names = {k: v for k, v in CMU_ARM_JOINTS.items() if k != "thorax"}
    for arm in ("right", "left"):
        a, b = (swivel_samples_from_motion(m, arm) for m in (motion, tilted))
        np.testing.assert_allclose(a.features, b.features, atol=1e-9)
        np.testing.assert_allclose(a.swivel, b.swivel, atol=1e-9)
        # Without the thorax the frame stays upright, so a tilted trunk changes the samples.
        c, d = (swivel_samples_from_motion(m, arm, names=upright_names) for m in (motion, tilted))
        assert np.max(np.abs(c.features[:, :3] - d.features[:, :3])) > 0.05


def test_wrist_features_do_not_depend_on_the_hand_length() -> None:
    rng = np.random.default_rng(5)
    q = rng.uniform(JOINT_LIMITS[:, 0], JOINT_LIMITS[:, 1], size=(40, 7))
    rows = []
    for hand in (0.05, 0.19):
        model = ArmModel(0.3, 0.25, hand)
        pose = model.forward(q)
        r = quat_to_rotmat(pose.hand_orientation)
        cmu = cmu_hand_end(pose.hand, r, model.hand, model.forearm)
        np.testing.assert_allclose(
            np.linalg.norm(cmu - pose.wrist, axis=1), CMU_HAND_TO_FOREARM * model.forearm
        )
        x = wrist_features(task_features(cmu, r, model.upper_arm, model.forearm, "right"))
        np.testing.assert_allclose(x[:, :3] * 0.55, pose.wrist, atol=1e-12)
        rows.append(x)
    np.testing.assert_allclose(rows[0], rows[1], atol=1e-9)
    assert rows[0].shape == (40, 17)
    with pytest.raises(InputError, match="shape"):
        wrist_features(np.zeros((2, 7)))


def test_swivel_frame_features_turn_with_the_arm_about_the_shoulder_wrist_axis() -> None:
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(7)
    model = ArmModel(0.3, 0.25, 0.08)
    pose = model.forward(rng.uniform(JOINT_LIMITS[:, 0], JOINT_LIMITS[:, 1], size=(30, 7)))
    r = quat_to_rotmat(pose.hand_orientation)
    hand = cmu_hand_end(pose.hand, r, model.hand, model.forearm)
    m = task_features(hand, r, model.upper_arm, model.forearm, "right")
    x = swivel_frame_features(m)
    assert x.shape == (30, 26)
    np.testing.assert_allclose(x[:, :17], wrist_features(m))
    np.testing.assert_allclose(x[:, 23:25], x[:, 15:17], atol=1e-12)  # z axis: the forearm cue
    # The whole arm turned by 0.7 rad about the shoulder→wrist axis: the wrist
    # stays, every hand axis's angle about that axis grows by 0.7 rad as φ
    # does, and its cosine with the axis stays.
    axis = pose.wrist / np.linalg.norm(pose.wrist, axis=1, keepdims=True)
    turn = Rotation.from_rotvec(0.7 * axis).as_matrix()
    turned = swivel_frame_features(
        task_features(
            np.einsum("nij,nj->ni", turn, hand), turn @ r, model.upper_arm, model.forearm, "right"
        )
    )
    np.testing.assert_allclose(turned[:, :3], x[:, :3], atol=1e-12)
    elbow_turned = pose.wrist + np.einsum("nij,nj->ni", turn, pose.elbow - pose.wrist)
    shift = swivel_angle(np.zeros(3), elbow_turned, pose.wrist) - swivel_angle(
        np.zeros(3), pose.elbow, pose.wrist
    )
    np.testing.assert_allclose(np.angle(np.exp(1j * (shift - 0.7))), 0.0, atol=1e-9)
    for k in (17, 20, 23):
        before = np.arctan2(x[:, k], x[:, k + 1])
        after = np.arctan2(turned[:, k], turned[:, k + 1])
        np.testing.assert_allclose(np.angle(np.exp(1j * (after - before - 0.7))), 0.0, atol=1e-9)
        np.testing.assert_allclose(turned[:, k + 2], x[:, k + 2], atol=1e-12)
    with pytest.raises(InputError, match="shape"):
        swivel_frame_features(np.zeros((2, 7)))


def test_unknown_side_and_missing_role() -> None:
    motion = cmu_walking_example()[1:3]
    with pytest.raises(InputError, match="side"):
        swivel_samples_from_motion(motion, "middle")
    with pytest.raises(InputError, match="missing"):
        swivel_samples_from_motion(motion, "right", names={"lshoulder": "lshoulder"})


def _grouped(n_groups: int, per_group: int) -> SwivelDataset:
    n = n_groups * per_group
    groups = np.repeat([f"act{g % 3}/act{g % 3}_{g}" for g in range(n_groups)], per_group)
    return SwivelDataset(
        np.zeros((n, 8)),
        np.zeros(n),
        groups,
        np.array([g.split("/")[0] for g in groups]),
        np.full(n, "right"),
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_split_by_trial_keeps_groups_apart(seed: int) -> None:
    data = _grouped(10, 7)
    train, test = split_by_trial(data, test_fraction=0.3, seed=seed)
    assert len(train) + len(test) == len(data)
    assert not set(train.groups) & set(test.groups)
    assert len(set(test.groups)) == 3


def test_highest_numbered_split() -> None:
    train, test = validation_split_highest_numbered(_grouped(10, 2))
    assert sorted(set(test.groups)) == ["act0/act0_9", "act1/act1_7", "act2/act2_8"]
    assert not set(train.groups) & set(test.groups)


def test_dataset_validates_shapes() -> None:
    with pytest.raises(InputError, match="features"):
        SwivelDataset(np.zeros((3, 7)), np.zeros(3), ["a"] * 3, ["a"] * 3, ["right"] * 3)
    with pytest.raises(InputError, match="swivel"):
        SwivelDataset(np.zeros((3, 8)), np.zeros(2), ["a"] * 3, ["a"] * 3, ["right"] * 3)


@pytest.mark.shared
def test_cmu_loader_on_real_files(shared_data: Path) -> None:
    data = cmu_swivel_dataset(shared_data, actions=["directing_traffic"], step=20)
    assert len(data) > 0
    assert not data.synthetic
    assert set(data.groups) == {
        "directing_traffic/directing_traffic_1",
        "directing_traffic/directing_traffic_4",
    }
    assert set(data.side) == {"left", "right"}
    assert np.all(np.abs(data.swivel) <= np.pi)
    # Segment lengths are those of the CMU skeleton, a few decimetres.
    assert np.all((data.features[:, 6:] > 0.15) & (data.features[:, 6:] < 0.45))
    with pytest.raises(InputError, match="actions must be among"):
        cmu_swivel_dataset(shared_data, actions=["flying"])


def test_left_arm_of_a_real_clip_matches_the_right_arm_of_its_mirror() -> None:
    """On real capture the CMU skeleton is ~1 cm asymmetric, so agreement is close, not exact."""
    from vhuman.io import cmu_walking_example

    motion = cmu_walking_example()[1:]
    left = swivel_samples_from_motion(motion, "left")
    right = swivel_samples_from_motion(motion.mirrored(), "right")
    dphi = np.angle(np.exp(1j * (left.swivel - right.swivel)))
    assert np.degrees(np.nanmedian(np.abs(dphi))) < 1.0
    assert np.nanmax(np.abs(left.features - right.features)) < 0.1


def test_deepmimic_dataset_covers_every_clip_and_arm() -> None:
    pytest.importorskip("pybullet_data", reason="DeepMimic clips come with pybullet")
    from vhuman.io import deepmimic_clip_names
    from vhuman.reaching import deepmimic_swivel_dataset

    data = deepmimic_swivel_dataset(step=2)
    assert set(data.activity) == set(deepmimic_clip_names())
    assert set(data.side) == {"left", "right"}
    assert np.all(np.abs(data.swivel) <= np.pi)
    # Without a hand the feature position is the wrist: within the arm's reach.
    reach = np.linalg.norm(data.features[:, :3], axis=1)
    np.testing.assert_array_less(reach, data.features[:, 6] + data.features[:, 7] + 1e-9)
    with pytest.raises(InputError, match="walk"):
        deepmimic_swivel_dataset(["moonwalk"])


@pytest.mark.shared
def test_any_folder_layout_gives_the_same_samples(shared_data, tmp_path) -> None:
    files = sorted((shared_data / "train" / "jumping").glob("*.txt"))[:2]
    nested, flat = tmp_path / "nested" / "jumping", tmp_path / "flat"
    nested.mkdir(parents=True)
    flat.mkdir()
    for f in files:
        (nested / f.name).symlink_to(f)
        (flat / f.name).symlink_to(f)
    a = cmu_folder_swivel_dataset(tmp_path / "nested", step=8)
    b = cmu_folder_swivel_dataset(flat, step=8)
    np.testing.assert_array_equal(a.features, b.features)
    np.testing.assert_array_equal(a.groups, b.groups)
    assert set(b.activity) == {"jumping"}
    assert sorted(set(b.groups)) == [f"jumping/{f.stem}" for f in files]


def test_a_folder_without_trials_is_refused(tmp_path) -> None:
    with pytest.raises(InputError, match=r"no \.txt trial files"):
        cmu_folder_swivel_dataset(tmp_path)
    with pytest.raises(InputError, match="must be a folder"):
        cmu_folder_swivel_dataset(tmp_path / "missing")


@pytest.mark.parametrize("side", ["right", "left"])
def test_shape_cue_is_the_swivel_of_an_arm_with_a_straight_wrist(side: str) -> None:
    # A hand of the given proportion, in line with the forearm: the cue is the true φ.
    ratio = 0.4
    model = ArmModel(0.3, 0.25, ratio * 0.25, side=side)
    q = np.random.default_rng(3).uniform(JOINT_LIMITS[:, 0], JOINT_LIMITS[:, 1], size=(300, 7))
    q[:, 3] = np.minimum(q[:, 3], -MIN_ELBOW_FLEXION)
    q[:, 5:] = 0.0
    pose = model.forward(q)
    m = task_features(
        pose.hand, quat_to_rotmat(pose.hand_orientation), model.upper_arm, model.forearm, side
    )
    x = shape_features(m, hand_to_forearm=ratio)
    assert x.shape == (300, 24)
    phi = swivel_angle(pose.shoulder, pose.elbow, pose.wrist)
    right_phi = phi if side == "right" else -phi
    np.testing.assert_allclose(np.arctan2(x[:, 20], x[:, 21]), right_phi, atol=1e-9)
    np.testing.assert_allclose(x[:, :3], m[:, :3])
    np.testing.assert_allclose(x[:, 3:12], rotvec_to_rotmat(m[:, 3:6]).reshape(-1, 9), atol=1e-12)
    np.testing.assert_allclose(x[:, 22] * 0.55, pose.elbow[:, 2], atol=1e-12)
    with pytest.raises(InputError, match="features"):
        shape_features(np.zeros((2, 7)))
