"""The full-body check: contacts, joint limits and static balance on hand-made poses."""

from __future__ import annotations

import numpy as np

from vhuman.posture import PostureLibrary
from vhuman.posture.check import centre_of_mass, check_posture, polygon_margin, static_balance
from vhuman.scene import BodyModel, Box, CollisionWorld, Scene, SceneObject, Target


def _empty(objects=()) -> Scene:
    return Scene("empty", tuple(objects), Target([3.0, 0.0, 1.0], [1, 0, 0, 0], [1, 0, 0]))


def test_polygon_margin_is_signed_distance_to_the_edges() -> None:
    square = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], float)
    assert polygon_margin([0.5, 0.5], square) == 0.5
    assert np.isclose(polygon_margin([0.5, 0.1], square), 0.1)
    assert np.isclose(polygon_margin([1.5, 0.5], square), -0.5)
    assert np.isclose(polygon_margin([0.5, 0.0], np.array([[0, 0], [1, 0]], float)), 0.0)
    assert polygon_margin([0, 0], np.zeros((0, 2))) == -np.inf


def test_standing_is_valid_and_the_centre_of_mass_is_the_mass_weighted_mean(
    library: PostureLibrary, body: BodyModel
) -> None:
    p = library["standing"]
    chk = check_posture(CollisionWorld(_empty()), body, p.root_position, p.local_rotations)
    assert chk.valid, chk.failures()
    assert chk.balance.margin > 0.02
    # Moving the body moves its centre of mass by the same amount.
    com = centre_of_mass(body, p.root_position, p.local_rotations)
    moved = centre_of_mass(body, p.root_position + np.array([1.0, 2.0, 0.0]), p.local_rotations)
    assert np.allclose(moved - com, [1.0, 2.0, 0.0])
    assert 0.5 * p.root_position[2] < com[2] < 1.3 * p.root_position[2]


def test_a_lifted_body_has_no_support_and_fails(library: PostureLibrary, body: BodyModel) -> None:
    p = library["standing"]
    bal = static_balance(
        CollisionWorld(_empty()), body, p.root_position + np.array([0, 0, 0.2]), p.local_rotations
    )
    assert not bal.stable
    assert len(bal.support) == 0


def test_standing_on_a_box_is_supported_by_the_box(
    library: PostureLibrary, body: BodyModel
) -> None:
    p = library["standing"]
    step = SceneObject("step", Box((1.0, 1.0, 0.3)), [0.0, 0.0, 0.15], [1, 0, 0, 0])
    raised = p.root_position + np.array([0, 0, 0.3])
    bal = static_balance(CollisionWorld(_empty([step])), body, raised, p.local_rotations)
    assert bal.stable


def test_leaning_far_forward_is_unbalanced(library: PostureLibrary, body: BodyModel) -> None:
    p = library["standing"]
    rot = p.local_rotations.copy()
    # Tip the whole body 30 degrees forward about the pelvis: the feet leave the floor
    # behind the centre of mass.
    rot[0] = [np.cos(np.radians(15)), 0.0, np.sin(np.radians(15)), 0.0]
    bal = static_balance(CollisionWorld(_empty()), body, p.root_position, rot)
    assert not bal.stable


def test_contacts_and_joint_limits_are_reported(library: PostureLibrary, body: BodyModel) -> None:
    p = library["standing"]
    wall = SceneObject("wall", Box((0.2, 2.0, 2.0)), [0.0, 0.0, 1.0], [1, 0, 0, 0])
    chk = check_posture(CollisionWorld(_empty([wall])), body, p.root_position, p.local_rotations)
    assert chk.collision.in_collision
    assert not chk.valid
    assert "wall" in chk.failures()[0]
    rot = p.local_rotations.copy()
    knee = body.skeleton.index("r_knee")
    rot[knee] = [np.cos(np.radians(100)), 0.0, -np.sin(np.radians(100)), 0.0]  # hyperextended
    chk = check_posture(CollisionWorld(_empty()), body, p.root_position, rot)
    assert not chk.within_limits
    assert chk.limit_joint == "r_knee"
