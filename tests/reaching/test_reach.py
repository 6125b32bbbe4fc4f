"""Tests of reach generation: the arm angles on the skeleton, the figures, bad input."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.geometry import quat_to_rotmat
from vhuman.geometry.so3 import rotvec_to_rotmat
from vhuman.io import cmu_walking_example
from vhuman.reaching import (
    ArmModel,
    LeastSquaresPredictor,
    MeanPredictor,
    swivel_angle,
    synthetic_swivel_dataset,
)
from vhuman.reaching.audit import audit_reach
from vhuman.reaching.clearance import ArmBodyClearance
from vhuman.reaching.dataset import (
    CMU_HAND_TO_FOREARM,
    STANDARD_ARM_JOINTS,
    rest_hand_orientation,
    swivel_samples_from_motion,
    task_features,
)
from vhuman.reaching.reach import (
    READY_ARM_ANGLES,
    _natural_postures,
    default_predictor,
    generate_reach,
    hand_orientation_from_rpy,
    natural_orientation,
    plan_reaches,
)
from vhuman.reaching.workspace import workspace_targets
from vhuman.skeleton import standard_humanoid

SKELETON = standard_humanoid(stature=1.75)
SHOULDER = SKELETON.rest_positions()[SKELETON.index("r_shoulder")]
MEAN = MeanPredictor().fit(np.zeros((2, 8)), [0.0, 0.0])
REACHABLE = [(0.45, -0.25, 1.2), (0.5, -0.4, 0.9), (0.5, -0.3, 1.25), (0.2, -0.6, 1.3)]


@pytest.fixture(scope="module")
def lsq() -> LeastSquaresPredictor:
    """A least-squares predictor fitted on synthetic postures (no data files needed)."""
    data = synthetic_swivel_dataset(ArmModel(0.3, 0.25, 0.19), 3000, np.random.default_rng(1))
    return LeastSquaresPredictor().fit(data.features, data.swivel)


@pytest.mark.parametrize("target", REACHABLE)
def test_reach_hits_the_target_along_a_straight_bell_shaped_path(target, lsq) -> None:
    result = generate_reach(target, skeleton=SKELETON, predictor=lsq, fps=240.0)
    fig = result.to_dict()
    assert fig["final_position_error_mm"] < 1e-6
    assert fig["final_orientation_error_deg"] < 1e-6
    assert fig["max_path_deviation_mm"] < 1e-6
    assert fig["path_straightness"] > 1.0 - 1e-9
    assert fig["peak_to_mean_speed"] == pytest.approx(1.875, abs=2e-3)
    assert fig["joint_limit_violations"] == 0
    assert fig["self_collision_frames"] == 0
    assert not fig["joint_space_path"]
    assert fig["trunk_lean_deg"] == [0.0, 0.0, 0.0]
    # Smooth joints that start and stop at rest (one-sided differences at 240 fps).
    assert max(fig["joint_speed_at_ends_rad_s"]) < 0.05
    assert fig["max_joint_speed_rad_s"] < 10.0


def test_skeleton_pose_reproduces_the_arm_model(lsq) -> None:
    result = generate_reach(REACHABLE[0], skeleton=SKELETON, predictor=lsq)
    model = ArmModel.from_skeleton(SKELETON, "right")
    pose = model.forward(result.arm_angles)
    got = result.motion.global_positions[:, SKELETON.indices(["r_elbow", "r_wrist", "r_hand"])]
    want = np.stack([pose.elbow, pose.wrist, pose.hand], axis=1) + SHOULDER
    np.testing.assert_allclose(got, want, atol=1e-9)
    hand_rotation = result.motion.global_rotations[:, SKELETON.index("r_wrist")]
    np.testing.assert_allclose(
        quat_to_rotmat(hand_rotation), quat_to_rotmat(pose.hand_orientation), atol=1e-9
    )
    # The elbow stays a hinge: no rotation off its axis, and the rest of the body at rest.
    violation = SKELETON.limit_violation(result.motion.local_rotations)
    assert violation[:, SKELETON.index("r_elbow")].max() < 1e-9
    moving = set(SKELETON.indices(["r_shoulder", "r_elbow", "r_wrist"]))
    still = [j for j in range(SKELETON.n_joints) if j not in moving]
    np.testing.assert_allclose(result.motion.local_rotations[:, still, 0], 1.0)


@pytest.mark.parametrize("side", ["right", "left"])
def test_features_measured_on_the_motion_are_those_predicted_from(side, lsq) -> None:
    s = side[0]
    sign = 1.0 if side == "right" else -1.0
    result = generate_reach((0.45, sign * -0.25, 1.2), side=side, skeleton=SKELETON, predictor=lsq)
    shoulder = SKELETON.rest_positions()[SKELETON.index(f"{s}_shoulder")]
    model = ArmModel.from_skeleton(SKELETON, side)
    ready = model.forward(READY_ARM_ANGLES)
    plan = plan_reaches(
        model,
        (result.hand_path[0] - shoulder)[None],
        ready.hand_orientation[None],
        (result.target_position - shoulder)[None],
        result.target_orientation[None],
        duration=1.0,
        fps=60.0,
        predictor=lsq,
        body=ArmBodyClearance.from_skeleton(SKELETON, side),
        shoulder=shoulder,
        start_swivel=swivel_angle(ready.shoulder, ready.elbow, ready.wrist)[None],
    )
    assert plan.ok[0]
    assert not plan.joint_space[0]
    measured = swivel_samples_from_motion(result.motion, side, names=STANDARD_ARM_JOINTS)
    np.testing.assert_allclose(measured.swivel, sign * plan.swivel[0], atol=1e-9)
    want = task_features(
        plan.hand[0],
        quat_to_rotmat(plan.orientation[0]),
        model.upper_arm,
        model.forearm,
        model.side,
    )
    np.testing.assert_allclose(measured.features, want, atol=1e-9)


class _Recorder:
    """A constant swivel predictor (0.3 rad) keeping the features it is asked about.

    Not a ``SwivelPredictor`` subclass, which would take the place of a shipped kind.
    """

    def __init__(self) -> None:
        self.seen: list[np.ndarray] = []

    def predict(self, features: np.ndarray) -> np.ndarray:
        self.seen.append(np.array(features))
        return np.full(len(features), 0.3)


@pytest.mark.parametrize("side", ["right", "left"])
def test_predictors_see_the_wrist_with_a_cmu_proportioned_hand(side) -> None:
    model = ArmModel.from_skeleton(SKELETON, side)
    ready = model.forward(READY_ARM_ANGLES)
    target = model.forward(np.radians([-40.0, -20.0, -10.0, -60.0, 60.0, 0.0, 0.0]))
    recorder = _Recorder()
    plan = plan_reaches(
        model,
        ready.hand[None],
        ready.hand_orientation[None],
        target.hand[None],
        target.hand_orientation[None],
        duration=1.0,
        fps=10.0,
        predictor=recorder,
    )
    m = recorder.seen[0]
    r = rotvec_to_rotmat(m[:, 3:6])
    mirror = np.array([1.0, -1.0, 1.0]) if side == "left" else np.ones(3)
    wrist = (plan.hand[0] + model.hand * quat_to_rotmat(plan.orientation[0])[:, :, 2]) * mirror
    # The predictors' hand end: CMU's hand length over forearm length beyond this arm's wrist.
    np.testing.assert_allclose(
        m[:, :3] + CMU_HAND_TO_FOREARM * model.forearm * r[:, :, 2], wrist, atol=1e-9
    )
    np.testing.assert_allclose(m[:, 6:], np.tile([model.upper_arm, model.forearm], (11, 1)))


def test_left_reach_mirrors_the_right(lsq) -> None:
    right = generate_reach((0.5, -0.4, 0.9), side="right", skeleton=SKELETON, predictor=lsq)
    left = generate_reach((0.5, 0.4, 0.9), side="left", skeleton=SKELETON, predictor=lsq)
    i_r, i_l = SKELETON.index("r_hand"), SKELETON.index("l_hand")
    mirrored = left.motion.global_positions[:, i_l] * [1.0, -1.0, 1.0]
    np.testing.assert_allclose(mirrored, right.motion.global_positions[:, i_r], atol=1e-9)
    np.testing.assert_allclose(left.arm_angles, right.arm_angles, atol=1e-9)


def test_a_target_without_a_feasible_posture_is_refused_with_the_reason(lsq) -> None:
    # Behind the back at chest height: no upper-arm posture that puts the hand there is
    # within the shoulder's extension and internal rotation ranges.
    with pytest.raises(InputError) as caught:
        generate_reach((-0.35, -0.1, 1.2), skeleton=SKELETON, predictor=lsq)
    message = str(caught.value)
    assert "\n" not in message
    assert "within its joint limits" in message
    assert "allow_lean" in message


def test_a_trunk_lean_reaches_what_the_arm_alone_cannot(lsq) -> None:
    behind = (-0.3, -0.2, 1.0)
    with pytest.raises(InputError, match="within its joint limits"):
        generate_reach(behind, skeleton=SKELETON, predictor=lsq)
    result = generate_reach(behind, skeleton=SKELETON, predictor=lsq, allow_lean=True)
    fig = result.to_dict()
    assert any(fig["trunk_lean_deg"])
    assert fig["final_position_error_mm"] < 1e-6
    assert fig["joint_limit_violations"] == 0
    assert fig["self_collision_frames"] == 0
    audit = audit_reach(result.motion, "right")
    assert audit.clean
    # The trunk moved, within the skeleton's spine range.
    trunk = SKELETON.indices(["spine", "chest"])
    assert np.any(result.motion.local_rotations[-1, trunk, 0] < 1.0 - 1e-6)
    assert SKELETON.limit_violation(result.motion.local_rotations)[:, trunk].max() < 1e-9


def test_every_reach_of_the_workspace_is_clean_or_refused_with_a_reason() -> None:
    # Every fourth target of both arms' workspace grid, with the shipped predictor.
    outcomes: dict[str, list[bool]] = {}
    refusals: list[str] = []
    for side in ("right", "left"):
        grid = workspace_targets(SKELETON, side)
        for target, region in list(zip(grid.positions, grid.regions, strict=True))[::4]:
            try:
                result = generate_reach(target, side=side, skeleton=SKELETON)
            except InputError as error:
                refusals.append(str(error))
                outcomes.setdefault(region, []).append(False)
                continue
            audit = audit_reach(result.motion, side)
            assert audit.clean, (side, target, audit)
            assert audit.max_joint_speed_rad_s <= 8.0
            # Continuity is the joints': φ itself may turn fast where the shoulder→wrist axis
            # nears the vertical (φ's reference plane is undefined there) or the arm straight.
            assert audit.max_joint_step_deg <= np.degrees(8.0 / 60.0)
            assert result.to_dict()["final_position_error_mm"] < 1e-6
            outcomes.setdefault(region, []).append(True)
    assert all("cannot be reached" in m and "\n" not in m for m in refusals)
    reached = [ok for oks in outcomes.values() for ok in oks]
    assert np.mean(reached) >= 0.5
    for region in ("front", "across", "beside", "overhead", "low"):
        assert any(outcomes[region]), region


def test_a_short_reach_is_refused_when_its_joints_would_be_too_fast(lsq) -> None:
    with pytest.raises(InputError, match="rad/s"):
        generate_reach((0.05, -0.25, 2.05), skeleton=SKELETON, predictor=lsq, duration=0.15)


def test_rpy_zero_points_forward_palm_down() -> None:
    for side, thumb in (("right", [0.0, 1.0, 0.0]), ("left", [0.0, -1.0, 0.0])):
        r = quat_to_rotmat(hand_orientation_from_rpy(np.zeros(3), side))
        np.testing.assert_allclose(r @ [0.0, 0.0, -1.0], [1.0, 0.0, 0.0], atol=1e-12)  # hand
        np.testing.assert_allclose(r @ [1.0, 0.0, 0.0], [0.0, 0.0, -1.0], atol=1e-12)  # palm
        sign = -1.0 if side == "right" else 1.0
        np.testing.assert_allclose(r @ [0.0, sign, 0.0], thumb, atol=1e-12)
    yawed = quat_to_rotmat(hand_orientation_from_rpy([0.0, 0.0, np.pi / 2]))
    np.testing.assert_allclose(yawed @ [0.0, 0.0, -1.0], [0.0, 1.0, 0.0], atol=1e-12)


@pytest.mark.parametrize("side", ["right", "left"])
def test_natural_orientation_keeps_the_wrist_straight_at_any_swivel(side) -> None:
    model = ArmModel.from_skeleton(SKELETON, side)
    sign = 1.0 if side == "right" else -1.0
    phi = np.radians([-90.0, -30.0, 0.0, 45.0, 120.0])
    for target in REACHABLE:
        hand = (np.array(target) - SHOULDER) * [1.0, sign, 1.0]
        orientation, q = _natural_postures(model, hand, phi)
        pose = model.forward(q)
        np.testing.assert_allclose(pose.hand, np.broadcast_to(hand, pose.hand.shape), atol=1e-12)
        np.testing.assert_allclose(pose.hand_orientation, orientation)
        np.testing.assert_allclose(q[:, 4:], [[np.pi / 2, 0.0, 0.0]] * phi.size)
        got = swivel_angle(pose.shoulder, pose.elbow, pose.hand)
        np.testing.assert_allclose(np.angle(np.exp(1j * (got - phi))), 0.0, atol=1e-9)
        np.testing.assert_allclose(natural_orientation(model, hand, phi), orientation)


def test_cmu_rest_hand_frame_follows_the_hand_at_every_frame() -> None:
    motion = cmu_walking_example()[::20]
    skel = motion.skeleton
    p = motion.global_positions
    for side, s in (("right", "r"), ("left", "l")):
        rest = rest_hand_orientation(skel, side)
        hand_frames = quat_to_rotmat(motion.global_rotations[:, skel.index(f"{s}hand_base")]) @ rest
        direction = p[:, skel.index(f"{s}hand")] - p[:, skel.index(f"{s}wrist")]
        direction /= np.linalg.norm(direction, axis=-1, keepdims=True)
        np.testing.assert_allclose(hand_frames @ [0.0, 0.0, -1.0], direction, atol=1e-9)


def test_shipped_predictors_load_and_predict() -> None:
    features = synthetic_swivel_dataset(ArmModel(0.3, 0.25, 0.19), 50, np.random.default_rng(2))
    for kind in ("ensemble", "mlp-deep", "mlp-shape", "mlp", "lsq"):
        phi = default_predictor(kind).predict(features.features)
        assert phi.shape == (50,)
        assert np.all(np.abs(phi) <= np.pi)
    with pytest.raises(InputError, match="mlp-deep"):
        default_predictor("forest")


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"target": (1.5, -0.2, 1.2)}, "out of reach.*at most"),
        ({"target": (0.4, -0.2, np.nan)}, "NaN"),
        ({"target": (0.4, -0.2, 1.2), "duration": 0.0}, "duration"),
        ({"target": (0.4, -0.2, 1.2), "duration": -1.0}, "duration"),
        ({"target": (0.4, -0.2, 1.2), "fps": 0.0}, "fps"),
        ({"target": (0.4, -0.2, 1.2), "side": "middle"}, "right"),
        ({"target": (0.4, -0.2)}, "3 numbers"),
        ({"target": (0.4, -0.2, 1.2), "start": (2.0, 0.0, 1.0)}, "out of reach"),
    ],
)
def test_bad_input_raises_one_clear_error(kwargs, match) -> None:
    with pytest.raises(InputError, match=match):
        generate_reach(skeleton=SKELETON, predictor=MEAN, **kwargs)


def test_left_reaches_over_the_workspace_mirror_the_right() -> None:
    right, left = workspace_targets(SKELETON, "right"), workspace_targets(SKELETON, "left")
    kinds = set()
    for k in range(0, len(right), 9):
        outcomes: list[object] = []
        for side, grid in (("right", right), ("left", left)):
            try:
                outcomes.append(generate_reach(grid.positions[k], side=side, skeleton=SKELETON))
            except InputError as error:
                outcomes.append(str(error).split(": ", 1)[1].replace(side, "SIDE"))
        a, b = outcomes
        if isinstance(a, str):
            assert a == b
            kinds.add("refused")
            continue
        assert not isinstance(b, str)
        i_r, i_l = SKELETON.index("r_hand"), SKELETON.index("l_hand")
        mirrored = b.motion.global_positions[:, i_l] * [1.0, -1.0, 1.0]
        np.testing.assert_allclose(mirrored, a.motion.global_positions[:, i_r], atol=1e-9)
        np.testing.assert_allclose(b.arm_angles, a.arm_angles, atol=1e-9)
        assert a.to_dict()["joint_space_path"] == b.to_dict()["joint_space_path"]
        kinds.add("joint space" if a.to_dict()["joint_space_path"] else "hand path")
    assert kinds == {"refused", "joint space", "hand path"}
