"""The solver on ship-valve, an unreachable target, and the whole-body GA baseline."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vhuman.posture import (
    PostureSettings,
    hand_frame_error,
    near,
    solve_posture,
    solve_posture_ga,
    worker_skeleton,
)
from vhuman.posture.check import check_posture
from vhuman.posture.suite import REASONS, hand_error, load_suite
from vhuman.scene import BodyModel, CollisionWorld, Target, load_scene
from vhuman.skeleton import Skeleton

KEYS = (
    "collisions",
    "min_clearance_mm",
    "reach_position_error_mm",
    "reach_orientation_error_deg",
    "reba_score",
    "reba_action_level",
    "rula_score",
    "library_posture",
    "solve_time_s",
)


@pytest.fixture(scope="module")
def ship_valve_result(p95: Skeleton):
    return solve_posture(load_scene("ship-valve"), p95, seed=0)


def test_ship_valve_collision_free_hand_on_valve(ship_valve_result, p95: Skeleton) -> None:
    r = ship_valve_result
    d = r.to_dict()
    assert set(KEYS) <= set(d)
    assert r.reached
    assert d["status"] == "reached"
    assert d["collisions"] == 0
    assert d["min_clearance_mm"] > 0.0
    # Independent check: FK of the returned motion and an exact coal query.
    t, rot = hand_frame_error(r)
    assert t <= 0.005
    assert np.degrees(rot) <= 3.0
    report = CollisionWorld(r.scene).check(
        BodyModel.from_skeleton(p95), r.motion.root_positions[0], r.motion.local_rotations[0]
    )
    assert report.n_contacts == 0
    assert d["library_posture"] != "standing"  # the ceiling is at 1.45 m
    assert 1 <= d["reba_score"] <= 15
    assert 1 <= d["rula_score"] <= 7


def test_placements_passed_over_give_the_next_ranked_one(ship_valve_result, p95: Skeleton) -> None:
    first = ship_valve_result.placement
    assert near([first], [first]).all()
    r = solve_posture(ship_valve_result.scene, p95, seed=0, exclude=[first])
    assert r.reached
    assert r.check.valid
    t, rot = hand_frame_error(r)
    assert t <= 0.005
    assert np.degrees(rot) <= 3.0
    # Another cluster: another posture, or the pelvis or the heading apart.
    assert not near([r.placement], [first]).any()
    # Neither that one nor the first is given when both are passed over.
    r2 = solve_posture(ship_valve_result.scene, p95, seed=0, exclude=[first, r.placement])
    if r2.reached:
        assert not near([r2.placement], [first, r.placement]).any()


def test_near_placements_are_those_of_one_cluster(ship_valve_result) -> None:
    c = ship_valve_result.placement
    moved = dataclasses.replace(c, root_position=c.root_position + np.array([0.2, 0.0, 0.0]))
    turned = dataclasses.replace(c, yaw=c.yaw + np.radians(40.0))
    other = dataclasses.replace(c, index=c.index + 1)
    close = dataclasses.replace(
        c, root_position=c.root_position + np.array([0.1, 0.0, 0.0]), yaw=c.yaw - 0.3
    )
    assert near([moved, turned, other, close], [c]).tolist() == [False, False, False, True]
    assert not near([c], []).any()
    assert near([], [c]).shape == (0,)


def test_unreachable_target_is_reported(p95: Skeleton) -> None:
    scene = load_scene("over-pipe")
    far = dataclasses.replace(
        scene, target=Target([-2.0, 0.0, 2.3], scene.target.rotation, scene.target.approach)
    )
    # A target far outside the room's objects, near the ceiling, behind the worker.
    settings = PostureSettings(population=8, generations=3, max_arm_attempts=1)
    r = solve_posture(far, p95, settings=settings, seed=0)
    d = r.to_dict()
    assert not r.reached
    assert d["status"] == "unreachable"
    assert d["reason"] in REASONS
    assert d["reach_position_error_mm"] > 5.0
    assert np.isfinite(d["reach_position_error_mm"])


def _case(name: str):
    return next(c for c in load_suite() if c.name == name)


def _independent(r, case) -> tuple[bool, float]:
    body = BodyModel.from_skeleton(r.motion.skeleton, samples_per_segment=1)
    root, rot = r.motion.root_positions[0], r.motion.local_rotations[0]
    chk = check_posture(CollisionWorld(r.scene), body, root, rot)
    t, _ = hand_error(body, root, rot, case.side, r.scene)
    return chk.valid, t


def test_a_target_in_a_closed_cage_is_enclosed_and_the_answer_is_valid() -> None:
    case = _case("closed-cage")
    r = solve_posture(case.scene(), worker_skeleton(case.worker), seed=0)
    assert (r.status, r.reason) == ("unreachable", "enclosed")
    valid, t = _independent(r, case)
    assert valid  # the posture shown has no part inside the cage
    assert 0.15 < t < 1.5  # its hand is outside the cage, as near as found
    assert np.isclose(r.to_dict()["reach_position_error_mm"], 1e3 * t, atol=0.5)


def test_a_target_deep_in_a_gap_is_reached_by_turning_the_body() -> None:
    case = _case("sideways-gap")
    r = solve_posture(case.scene(), worker_skeleton(case.worker), seed=0)
    assert r.reached
    assert r.check.valid
    valid, t = _independent(r, case)
    assert valid
    assert t <= 0.005
    # Facing the gauge (yaw 0) the shoulders do not fit into the 0.45 m gap.
    assert abs(np.degrees(r.placement.yaw + np.pi) % 360 - 180) > 45.0
    assert r.placement.root_position[0] > 0.0  # the pelvis is inside the gap


def test_a_left_hand_target_is_reached_with_the_left_hand() -> None:
    case = _case("left-wall-valve")
    r = solve_posture(
        case.scene(), worker_skeleton(case.worker), settings=PostureSettings(side="left"), seed=0
    )
    assert r.reached
    valid, t = _independent(r, case)
    assert valid
    assert t <= 0.005


def test_worker_names() -> None:
    assert worker_skeleton("p50-female").n_joints == 23
    with pytest.raises(ValueError, match="p95-male"):
        worker_skeleton("giant")


def test_baseline_runs_and_reports(p95: Skeleton) -> None:
    r = solve_posture_ga(
        load_scene("over-pipe"), p95, distances=(0.5,), population=8, generations=2, seed=1
    )
    d = r.to_dict()
    for k in ("collisions", "reach_position_error_mm", "reba_score", "rula_score"):
        assert k in d
    assert d["distance_m"] == 0.5
    assert len(d["per_distance"]) == 1
    again = solve_posture_ga(
        load_scene("over-pipe"), p95, distances=(0.5,), population=8, generations=2, seed=1
    )
    assert np.array_equal(r.motion.local_rotations, again.motion.local_rotations)
