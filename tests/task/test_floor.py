"""Getting down to every library posture and back up in an open scene: the feet planted or
stepped (no foot point on the floor sliding), no joint jump, joint ranges kept, no contact,
no joint faster than the limit, and statically balanced where the library posture lets the
feet and knees carry the body all the way down, or (sitting and lying on the floor) the
hands put down on the floor carry it with the feet; the hands rest without sliding and the
arms keep out of the trunk and thighs."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from scipy.spatial import ConvexHull

from vhuman.geometry import quat_angle, quat_multiply
from vhuman.posture import PostureLibrary, load_library, worker_skeleton
from vhuman.posture.check import centre_of_mass, lowest_line_points, polygon_margin
from vhuman.reaching.clearance import DEFAULT_TOLERANCE, ArmBodyClearance
from vhuman.scene import BodyModel, CollisionWorld, Scene, Target
from vhuman.skeleton import Motion
from vhuman.skeleton.footskate import CONTACT_HEIGHT, SLIDE_TOLERANCE
from vhuman.skeleton.kinematics import forward_kinematics
from vhuman.task.check import JOINT_SPEED_LIMIT, MotionCheck, check_motion
from vhuman.task.feet import foot_placements
from vhuman.task.floor import (
    SUPPORT_HEIGHT,
    FloorTransitionError,
    facing,
    floor_transition,
    unbalanced_frames,
    via_pose,
    via_poses,
)
from vhuman.task.motion import MOST_JOINT_STEP, standing_pose
from vhuman.task.run import KNEE_ON_FLOOR

FPS = 30.0
DURATION = 2.0  # [s], as the shipped tasks' posture and stand_up steps
WORKER = "p50-male"
POSTURES = load_library(worker_skeleton(WORKER)).names
# Postures got down to and up from with the centre of mass over the feet (and knees) in every
# frame.
BALANCED = (
    "standing",
    "stooping",
    "half-squat",
    "squatting",
    "kneeling-one-knee",
    "kneeling-both-knees",
    "kneeling-bent",
)
# Sitting and lying on the floor: within the knees' flexion range the pelvis stays far enough
# behind the heels that the centre of mass leaves the feet, the trunk bent forward as far as it
# goes, before the buttocks reach the floor; the hands go down beside the hips before it does.
# For these workers the hands land in time in every frame.
SEATED = ("sitting-floor", "lying-back", "lying-side")
HANDS_IN_TIME = (WORKER, "p95-male", "p5-male", "p50-female")
SQUAT_LOW = 0.6  # pelvis height below which sitting down may leave the feet (of standing's)
STEPPING_HIGH = 0.8  # pelvis height above which sitting down still steps (of standing's)


@functools.cache
def _worker(worker: str) -> tuple[BodyModel, PostureLibrary]:
    body = BodyModel.from_skeleton(worker_skeleton(worker), samples_per_segment=2)
    return body, load_library(body.skeleton, body=body)


@pytest.fixture(scope="module")
def body() -> BodyModel:
    return _worker(WORKER)[0]


@pytest.fixture(scope="module")
def library() -> PostureLibrary:
    return _worker(WORKER)[1]


@pytest.fixture(scope="module")
def world() -> CollisionWorld:
    target = Target([2.0, 0.0, 1.0], [1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0])
    return CollisionWorld(Scene("open floor", (), target), resolution=0.1)


def _poses(library: PostureLibrary, name: str, xy: np.ndarray, yaw: float) -> tuple:
    """The standing pose and library posture ``name`` placed at ``xy`` [m] turned by ``yaw``
    [rad], the worker standing there facing where the posture's pelvis faces."""
    sk = library.skeleton
    p = library[name]
    c, s = np.cos(yaw), np.sin(yaw)
    root = np.concatenate(
        [xy + np.array([[c, -s], [s, c]]) @ p.root_position[:2], [p.root_position[2]]]
    )
    local = p.local_rotations.copy()
    local[0] = quat_multiply([np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)], local[0])
    low = (root, local)
    stand = standing_pose(sk, xy, facing(local[0]), FPS)
    return stand, low


def _checked(world: CollisionWorld, body: BodyModel, motion: Motion) -> MotionCheck:
    return check_motion(world, body, motion, np.ones(motion.n_frames, dtype=bool))


@pytest.mark.parametrize(
    ("worker", "name"),
    [(WORKER, name) for name in POSTURES]
    + [
        (worker, name)
        for worker in ("p5-female", "p95-male")
        for name in ("kneeling-both-knees", "sitting-floor", "lying-back")
    ]
    + [(worker, "sitting-floor") for worker in ("p5-male", "p50-female")],
)
def test_down_and_up_without_sliding_jumps_or_contacts(
    world: CollisionWorld, worker: str, name: str
) -> None:
    body, library = _worker(worker)
    stand, low = _poses(library, name, np.array([0.4, -0.3]), 0.6)
    via = via_poses(library, body, low, 0.0)
    for start, end in ((stand, low), (low, stand)):
        motion = floor_transition(body, start, end, DURATION, FPS, 0.0, via=via)
        assert np.allclose(motion.root_positions[[0, -1]], [start[0], end[0]])
        assert np.allclose(motion.local_rotations[[0, -1]], [start[1], end[1]])
        check = _checked(world, body, motion)
        assert check.foot_slide.max() <= SLIDE_TOLERANCE
        step = quat_angle(motion.local_rotations[:-1], motion.local_rotations[1:])
        assert step.max() <= MOST_JOINT_STEP
        ends = max(check.limit_violation[0], check.limit_violation[-1])
        assert check.limit_violation.max() <= ends + 1e-3  # [rad]
        assert np.all(check.contacts == 0)
        assert motion.duration <= 3.0 * DURATION + 1e-9  # [s]: twice, and half as long again
        assert check.joint_speed.max() <= JOINT_SPEED_LIMIT
        if name in BALANCED or (name in SEATED and worker in HANDS_IN_TIME):
            assert np.all(check.balance_margin >= 0.0)


@pytest.mark.parametrize("name", ["kneeling-both-knees", "sitting-floor"])
def test_unbalanced_frames_are_those_the_check_finds(
    world: CollisionWorld, body: BodyModel, library: PostureLibrary, name: str
) -> None:
    stand, low = _poses(library, name, np.array([0.4, -0.3]), 0.6)
    motion = floor_transition(body, stand, low, DURATION, FPS, 0.0)
    check = _checked(world, body, motion)
    counted = unbalanced_frames(body, motion.root_positions, motion.local_rotations, 0.0)
    assert counted == check.unbalanced_frames


def test_getting_up_is_getting_down_backwards(body: BodyModel, library: PostureLibrary) -> None:
    stand, low = _poses(library, "kneeling-one-knee", np.zeros(2), 0.0)
    down = floor_transition(body, stand, low, DURATION, FPS, 0.0)
    up = floor_transition(body, low, stand, DURATION, FPS, 0.0)
    assert np.allclose(up.root_positions, down.root_positions[::-1])
    assert np.allclose(up.local_rotations, down.local_rotations[::-1])


def test_kneeling_steps_one_foot_back_before_going_down(
    body: BodyModel, library: PostureLibrary
) -> None:
    sk = body.skeleton
    stand, low = _poses(library, "kneeling-one-knee", np.zeros(2), 0.0)
    motion = floor_transition(body, stand, low, DURATION, FPS, 0.0)
    right = foot_placements(sk, motion.root_positions, motion.local_rotations)[1]
    # The right (kneeling) leg's foot goes back while the pelvis is still high: a lunge.
    back = int(np.argmax(right.ankle[:, 0] < right.ankle[-1, 0] + 0.05))
    high = motion.root_positions[:, 2] > 0.5 * (stand[0][2] + low[0][2])
    assert high[back]


def test_lying_down_passes_through_sitting_facing_away_from_the_head(
    body: BodyModel, library: PostureLibrary
) -> None:
    _, low = _poses(library, "lying-back", np.zeros(2), 0.0)
    via = via_pose(library, body, low, 0.0)
    assert via is not None
    sitting = library["sitting-floor"]
    assert np.allclose(via[1][1:], sitting.local_rotations[1:])
    # Lying on the back with the head towards +x: the pelvis faces −x, and so does the seat.
    assert abs(np.cos(facing(low[1][0])) + 1.0) < 1e-6
    assert abs(np.cos(facing(via[1][0])) + 1.0) < 1e-6
    assert np.allclose(via[0][:2], low[0][:2])


def test_lying_on_the_side_rolls_over_from_lying_on_the_back(
    body: BodyModel, library: PostureLibrary
) -> None:
    sk = body.skeleton
    _, low = _poses(library, "lying-side", np.array([0.4, -0.3]), 0.6)
    chain = via_poses(library, body, low, 0.0)
    assert len(chain) == 2
    for pose, name in zip(chain, ("sitting-floor", "lying-back"), strict=True):
        assert np.allclose(pose[1][1:], library[name].local_rotations[1:]), name
    # On the back, the head where it will be on the side.
    heads = [
        forward_kinematics(sk.parents, sk.offsets, *p)[0][sk.index("head")] - p[0]
        for p in (chain[1], low)
    ]
    assert np.dot(heads[0][:2], heads[1][:2]) > 0.9 * np.prod(
        [np.linalg.norm(h[:2]) for h in heads]
    )
    # The postures themselves have none before them.
    assert via_poses(library, body, chain[0], 0.0) == ()


def test_kneeling_bent_forward_passes_through_kneeling_upright(
    body: BodyModel, library: PostureLibrary
) -> None:
    sk = body.skeleton
    _, low = _poses(library, "kneeling-bent", np.array([0.4, -0.3]), 0.6)
    via = via_pose(library, body, low, 0.0)
    assert via is not None
    assert np.allclose(via[1][1:], library["kneeling-both-knees"].local_rotations[1:])
    assert abs(facing(via[1][0]) - facing(low[1][0])) < 1e-6
    # The toes rest where they will stay while the body bends forward over the knees.
    toes = [
        forward_kinematics(sk.parents, sk.offsets, *p)[0][sk.indices(["l_toe", "r_toe"])]
        for p in (via, low)
    ]
    assert np.linalg.norm(toes[0][:, :2] - toes[1][:, :2], axis=-1).max() < 0.05
    # Kneeling upright itself is got down to directly.
    _, upright = _poses(library, "kneeling-both-knees", np.array([0.4, -0.3]), 0.6)
    assert via_pose(library, body, upright, 0.0) is None


@pytest.mark.parametrize("floor", [-0.25, 0.37, 1.1, 2.3])
@pytest.mark.parametrize("name", ["kneeling-bent", "kneeling-both-knees", "lying-side"])
def test_postures_passed_through_do_not_depend_on_the_floor_height(
    body: BodyModel, library: PostureLibrary, name: str, floor: float
) -> None:
    _, low = _poses(library, name, np.array([0.4, -0.3]), 0.6)
    on_floor = (low[0] + np.array([0.0, 0.0, floor]), low[1])
    want = via_poses(library, body, low, 0.0)
    got = via_poses(library, body, on_floor, floor)
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert np.allclose(g[0], w[0] + np.array([0.0, 0.0, floor]))
        assert np.allclose(g[1], w[1])


def test_both_knees_go_down_one_after_the_other(body: BodyModel, library: PostureLibrary) -> None:
    stand, low = _poses(library, "kneeling-both-knees", np.zeros(2), 0.0)
    motion = floor_transition(body, stand, low, DURATION, FPS, 0.0)
    names = np.asarray(body.skeleton.names)[body.joints]
    thighs, shanks = (
        [int(np.flatnonzero(names == f"{side}_{joint}")[0]) for side in "lr"]
        for joint in ("hip", "knee")
    )
    a, b = body.capsules(motion.root_positions, motion.local_rotations)
    # The lowest point at each knee: the thigh's lower end or the shank's upper end.
    knee = np.minimum(
        b[:, thighs, 2] - body.radii[thighs], a[:, shanks, 2] - body.radii[shanks]
    )  # (N, 2) [m]
    down = knee <= KNEE_ON_FLOOR
    assert down[-1].all()
    first = int(np.argmax(down.any(axis=1)))
    assert down[first].sum() == 1
    assert np.sum(down.sum(axis=1) == 1) >= 5  # frames on one knee (the half-kneel)


def test_a_plan_touching_the_scene_is_passed_over(body: BodyModel, library: PostureLibrary) -> None:
    stand, low = _poses(library, "kneeling-one-knee", np.zeros(2), 0.0)
    offered: list[int] = []

    def first_refused(roots: np.ndarray, local: np.ndarray) -> bool:
        offered.append(len(roots))
        return len(offered) > 1

    motion = floor_transition(body, stand, low, DURATION, FPS, 0.0, clear=first_refused)
    assert len(offered) >= 2  # the first plan refused, others offered
    assert motion.n_frames in offered[1:]  # one of those accepted is taken


def test_no_clear_way_down_or_up_is_an_error(body: BodyModel, library: PostureLibrary) -> None:
    stand, low = _poses(library, "kneeling-one-knee", np.zeros(2), 0.0)
    seen: list[int] = []

    def blocked(roots: np.ndarray, local: np.ndarray) -> bool:
        seen.append(len(roots))
        return False

    # Not the plain transition, which nothing has checked clear of the scene.
    with pytest.raises(FloorTransitionError, match=r"no planned way down .*\d+ touching the scene"):
        floor_transition(body, stand, low, DURATION, FPS, 0.0, clear=blocked)
    assert seen  # plans passing their own checks were offered and refused
    with pytest.raises(FloorTransitionError, match="no planned way up"):
        floor_transition(body, low, stand, DURATION, FPS, 0.0, clear=blocked)


def test_a_small_change_of_height_is_checked_clear_too(
    body: BodyModel, library: PostureLibrary
) -> None:
    stand = standing_pose(library.skeleton, np.zeros(2), 0.0, FPS)
    ahead = standing_pose(library.skeleton, np.array([0.3, 0.1]), 0.5, FPS)
    offered: list[np.ndarray] = []

    def first_refused(roots: np.ndarray, local: np.ndarray) -> bool:
        offered.append(local)
        return len(offered) > 1

    motion = floor_transition(body, stand, ahead, DURATION, FPS, 0.0, clear=first_refused)
    assert len(offered) == 2  # the transition there and the one back reversed
    assert np.array_equal(motion.local_rotations, offered[1])
    assert not np.array_equal(offered[0], offered[1])
    with pytest.raises(FloorTransitionError, match="touches the scene either way"):
        floor_transition(body, stand, ahead, DURATION, FPS, 0.0, clear=lambda r, q: False)


@pytest.mark.parametrize(
    ("worker", "name"),
    [
        (worker, name)
        for worker in (WORKER, "p5-female")
        for name in ("sitting-floor", "lying-back", "lying-side")
    ],
)
def test_sitting_down_leaves_the_feet_only_stepping_or_low_in_the_squat(
    worker: str, name: str
) -> None:
    body, library = _worker(worker)
    sk = body.skeleton
    stand, low = _poses(library, name, np.array([0.4, -0.3]), 0.6)
    via = via_poses(library, body, low, 0.0)
    for start, end in ((stand, low), (low, stand)):
        motion = floor_transition(body, start, end, DURATION, FPS, 0.0, via=via)
        roots, local = motion.root_positions, motion.local_rotations
        names = np.asarray(sk.names)[body.joints]
        a, b = body.capsules(roots, local)
        bottoms = np.minimum(a[..., 2], b[..., 2]) - body.radii  # (N, S) [m]
        lifted = np.zeros(motion.n_frames, dtype=bool)
        for side in "lr":
            foot = np.isin(names, [f"{side}_ankle", f"{side}_toe"])
            lifted |= bottoms[:, foot].min(axis=1) > SUPPORT_HEIGHT
        squatting = roots[:, 2] < SQUAT_LOW * stand[0][2]
        for k in range(motion.n_frames):
            if unbalanced_frames(body, roots[k : k + 1], local[k : k + 1], 0.0):
                assert lifted[k] or squatting[k], k


@pytest.mark.parametrize("worker", ["p5-female", WORKER, "p95-male"])
def test_stepping_ahead_to_sit_down_keeps_the_centre_of_mass_over_the_feet(worker: str) -> None:
    body, library = _worker(worker)
    stand, low = _poses(library, "sitting-floor", np.array([0.4, -0.3]), 0.6)
    motion = floor_transition(body, stand, low, DURATION, FPS, 0.0)
    roots, local = motion.root_positions, motion.local_rotations
    # While the feet step ahead and the knees only dip (the pelvis high), every frame is
    # balanced: the centre of mass may leave the support only low in the squat.
    high = np.flatnonzero(roots[:, 2] > STEPPING_HIGH * stand[0][2])
    assert len(high) > 10
    assert unbalanced_frames(body, roots[high], local[high], 0.0) == 0


def test_sitting_down_the_hands_rest_on_the_floor_and_carry_the_body(
    world: CollisionWorld, body: BodyModel, library: PostureLibrary
) -> None:
    stand, low = _poses(library, "sitting-floor", np.array([0.4, -0.3]), 0.6)
    motion = floor_transition(body, stand, low, DURATION, FPS, 0.0)
    roots, local = motion.root_positions, motion.local_rotations
    names = np.asarray(body.skeleton.names)[body.joints]
    pts, radius = lowest_line_points(body, roots, local)
    pts = pts.reshape(motion.n_frames, len(names), -1, 3)
    radius = radius.reshape(len(names), -1)
    hands = np.isin(names, ["l_wrist", "r_wrist"])
    down = (pts[..., 2][:, hands].min(axis=-1) <= SUPPORT_HEIGHT).all(axis=1)
    assert down.sum() >= 5  # frames with both hands on the floor
    assert not down[[0, -1]].any()  # and off it at both ends
    check = _checked(world, body, motion)
    com = centre_of_mass(body, roots, local)[:, :2]
    corners = np.array([[1.0, 1.0], [1.0, -1.0], [-1.0, 1.0], [-1.0, -1.0]])
    carried = 0
    for k in np.flatnonzero(down):
        others = pts[k, ~hands].reshape(-1, 3)
        on = others[:, 2] <= SUPPORT_HEIGHT
        patch = others[on, None, :2] + radius[~hands].reshape(-1)[on, None, None] * corners
        flat = patch.reshape(-1, 2)
        without = polygon_margin(com[k], flat[ConvexHull(flat).vertices])
        carried += bool(check.balance_margin[k] >= 0.0 > without)
    assert carried >= 1  # balanced there only with the hands


def test_the_buttocks_come_down_behind_the_planted_feet(
    body: BodyModel, library: PostureLibrary
) -> None:
    sk = body.skeleton
    stand, low = _poses(library, "sitting-floor", np.zeros(2), 0.0)
    motion = floor_transition(body, stand, low, DURATION, FPS, 0.0)
    roots = motion.root_positions
    seated = int(np.argmax(roots[:, 2] <= low[0][2] + 1e-6))  # the pelvis down on the floor
    pos = forward_kinematics(sk.parents, sk.offsets, roots, motion.local_rotations)[0]
    for ball in pos[:, sk.indices(["l_toe", "r_toe"])].transpose(1, 0, 2):
        # Planted from well before the buttocks land (the ball of the foot still), ahead of
        # the pelvis (facing +x) ...
        still = np.linalg.norm(np.diff(ball[seated // 2 : seated + 1], axis=0), axis=-1)
        assert still.max() < 1e-3
        assert ball[seated, 0] > roots[seated, 0]
        # ... and only after that placed where the posture has it.
        assert np.linalg.norm(ball[-1] - ball[seated]) > 0.05


def _hand_spheres(body: BodyModel, motion: Motion) -> tuple[np.ndarray, np.ndarray]:
    """End-sphere centres ``(N, 4, 3)`` [m] and radii ``(4,)`` [m] of the hands' capsules."""
    hands = body.segment_indices(("l_wrist", "r_wrist"))
    a, b = body.capsules(motion.root_positions, motion.local_rotations)
    return np.concatenate([a[:, hands], b[:, hands]], axis=1), np.tile(body.radii[hands], 2)


@pytest.mark.parametrize("worker", ["p5-female", WORKER, "p95-male"])
def test_sitting_down_the_hands_rest_without_sliding_and_the_arms_keep_out_of_the_body(
    worker: str,
) -> None:
    body, library = _worker(worker)
    stand, low = _poses(library, "sitting-floor", np.array([0.4, -0.3]), 0.6)
    for start, end in ((stand, low), (low, stand)):
        motion = floor_transition(body, start, end, DURATION, FPS, 0.0)
        centres, radii = _hand_spheres(body, motion)
        on = centres[..., 2] - radii <= CONTACT_HEIGHT  # (N, 4): resting on the floor
        assert on.any()  # the hands do go down
        travel = np.linalg.norm(np.diff(centres[..., :2], axis=0), axis=-1)
        assert travel[on[:-1] & on[1:]].max() <= SLIDE_TOLERANCE
        for side in ("left", "right"):
            arm = ArmBodyClearance.from_skeleton(body.skeleton, side)
            a, b = arm.body.capsules(motion.root_positions, motion.local_rotations)
            assert arm.penetration_of_capsules(a, b).max() <= DEFAULT_TOLERANCE, side
