"""Body–scene collision and distance with coal, against analytic cases and the P95 worker."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.geometry import RigidTransform, euler_to_quat, quat_apply, quat_multiply
from vhuman.scene import CollisionWorld, load_scene
from vhuman.skeleton import standard_humanoid

R = 0.2  # sphere radius [m]


@pytest.mark.parametrize(
    ("centre", "expected"),
    [
        ((1.0, 0.0, 0.0), 0.3),  # facing a face
        ((1.0, 1.0, 0.0), np.sqrt(0.5) - R),  # facing an edge
        ((0.9, 0.8, 0.7), np.sqrt(0.4**2 + 0.3**2 + 0.2**2) - R),  # facing a corner
        ((0.6, 0.0, 0.0), -0.1),  # through a face
        ((0.4, 0.1, 0.0), -(0.1 + R)),  # centre inside: out through the nearest face
        ((-0.3, 0.0, 0.45), -(0.05 + R)),  # centre inside, nearest face on top
    ],
)
def test_sphere_box_signed_distance_is_analytic(
    capsule_body, box_scene, rest_pose, centre, expected
):
    body = capsule_body((0, 0, 0), (0, 0, 0), R)
    world = CollisionWorld(box_scene())
    rep = world.check(body, np.array(centre), rest_pose(2))
    assert rep.min_clearance == pytest.approx(expected, abs=1e-6)
    assert rep.closest_solid == "box"
    if expected < 0:
        assert rep.n_contacts == 1
        assert rep.contacts[0].solid == "box"
        assert rep.contacts[0].depth == pytest.approx(-expected, abs=1e-6)
    else:
        assert rep.n_contacts == 0


def test_capsule_against_floor_and_ceiling_planes(capsule_body, box_scene, rest_pose):
    start, end, r = np.array([0.0, 0.0, 0.0]), np.array([0.3, 0.1, -0.4]), 0.05
    body = capsule_body(start, end, r)
    q = rest_pose(2)
    q[0] = euler_to_quat([0.3, -0.2, 0.5], "xyz")  # a tilted root
    root = np.array([0.2, 0.1, 0.3])
    ends = root + quat_apply(q[0], np.array([start, end]))
    lowest, highest = ends[:, 2].min() - r, ends[:, 2].max() + r
    scene = box_scene(position=(10.0, 0.0, 1.0), floor=lowest + 0.03, ceiling=highest + 0.25)
    rep = CollisionWorld(scene).check(body, root, q)
    assert [c.solid for c in rep.contacts] == ["floor"]
    assert rep.contacts[0].depth == pytest.approx(0.03, abs=1e-9)
    # The floor is left out of the clearance, which is then to the ceiling.
    assert rep.closest_solid == "ceiling"
    assert rep.min_clearance == pytest.approx(0.25, abs=1e-9)
    # Touching the floor within the tolerance is not a contact.
    resting = dataclasses.replace(scene, floor=lowest + 0.0005)
    assert CollisionWorld(resting).check(body, root, q).n_contacts == 0


def _cut_capsule_share(r: float, length: float, c: float) -> float:
    """Share of a horizontal capsule's volume above the plane c (|c| < r) above its axis."""
    h = r - c
    cylinder = length * (r**2 * np.arccos(c / r) - c * np.sqrt(r**2 - c**2))
    caps = np.pi * h**2 * (3 * r - h) / 3.0  # both half caps together: one spherical cap
    return (cylinder + caps) / (np.pi * r**2 * length + 4.0 / 3.0 * np.pi * r**3)


@pytest.mark.parametrize("c", [0.0, 0.03, -0.05])
@pytest.mark.parametrize("method", ["trilinear", "nearest"])
def test_collision_ratio_of_a_capsule_cut_by_a_box(capsule_body, box_scene, rest_pose, c, method):
    r, length = 0.1, 0.4
    body = capsule_body((-0.2, 0.0, 0.0), (0.2, 0.0, 0.0), r, samples=6000)
    # A box whose bottom face is the plane z = 1 + c, covering the capsule's top.
    scene = box_scene(size=(0.8, 0.4, 0.3), position=(0.0, 0.0, 1.0 + c + 0.15))
    world = CollisionWorld(scene, resolution=0.005)
    ratio = world.collision_ratio(body, np.array([0.0, 0.0, 1.0]), rest_pose(2), method=method)
    assert ratio == pytest.approx(_cut_capsule_share(r, length, c), abs=0.02)


def test_collision_ratio_is_zero_in_free_space_and_one_inside(capsule_body, box_scene, rest_pose):
    body = capsule_body((0.0, 0.0, 0.0), (0.0, 0.0, 0.2), 0.05)
    world = CollisionWorld(box_scene(), resolution=0.01)
    roots = np.array([[2.0, 0.0, 0.0], [0.0, 0.0, -0.1]])
    ratio = world.collision_ratio(body, roots, np.stack([rest_pose(2)] * 2))
    np.testing.assert_allclose(ratio, [0.0, 1.0], atol=1e-6)


def test_placements_equal_moved_poses(p95_body):
    world = CollisionWorld(load_scene("ship-valve"), resolution=0.03)
    sk = p95_body.skeleton
    q = sk.random_rotations(1, rng=3)[0]
    root = np.array([0.0, 0.0, 0.9])
    rng = np.random.default_rng(7)
    yaw = rng.uniform(-np.pi, np.pi, 5)
    turn = euler_to_quat(np.column_stack([np.zeros(5), np.zeros(5), yaw]), "xyz")
    shift = np.column_stack([rng.uniform(-0.6, 0.3, 5), rng.uniform(-0.5, 0.5, 5), np.zeros(5)])
    placed = world.collision_ratio(p95_body, root, q, placement=RigidTransform(turn, shift))
    moved_q = np.repeat(q[None], 5, axis=0)
    moved_q[:, 0] = quat_multiply(turn, q[0])
    moved = world.collision_ratio(p95_body, quat_apply(turn, root) + shift, moved_q)
    np.testing.assert_allclose(placed, moved, atol=1e-9)
    assert np.ptp(placed) > 0.0  # the placements differ, so the check is not vacuous


def test_standing_p95_worker_hits_the_ship_valve_ceiling(p95_body, rest_pose):
    scene = load_scene("ship-valve")
    world = CollisionWorld(scene)
    q = rest_pose(p95_body.skeleton.n_joints)
    spot = np.array([-0.3, -0.05, p95_body.skeleton.offsets[0, 2]])  # in front of the valve
    rep = world.check(p95_body, spot, q)
    assert rep.n_contacts > 0
    assert {c.solid for c in rep.contacts} == {"ceiling"}
    head = next(c for c in rep.contacts if c.segment == "head")
    assert head.depth == pytest.approx(1.775 - scene.ceiling, abs=2e-3)
    assert world.collision_ratio(p95_body, spot, q) > 0.05
    # The same man at a clear spot of the compartment without its ceiling: no contact.
    open_top = CollisionWorld(dataclasses.replace(scene, ceiling=None))
    clear = open_top.check(p95_body, np.array([-0.5, -0.35, spot[2]]), q)
    assert clear.n_contacts == 0
    assert clear.min_clearance > 0.1
    assert open_top.collision_ratio(p95_body, np.array([-0.5, -0.35, spot[2]]), q) == 0.0


def test_check_many_matches_check_and_arm_subset(p95_body):
    world = CollisionWorld(load_scene("ship-valve"), resolution=0.05)
    sk = p95_body.skeleton
    q = sk.random_rotations(4, rng=11)
    roots = np.array([[-0.3, 0.0, 0.6], [0.0, -0.2, 0.9], [0.3, 0.0, 0.5], [-0.6, 0.3, 0.94]])
    many = world.check_many(p95_body, roots, q)
    for rep, root, qi in zip(many, roots, q, strict=True):
        one = world.check(p95_body, root, qi)
        assert one.to_dict() == rep.to_dict()
    arm = ["r_shoulder", "r_elbow", "r_wrist"]
    sub = world.check(p95_body, roots[2], q[2], segments=arm)
    assert {c.segment for c in sub.contacts} <= set(arm)
    assert sub.min_clearance >= many[2].min_clearance - 1e-12
    with pytest.raises(InputError, match="no body segment 'r_foot'"):
        world.check(p95_body, roots[0], q[0], segments=["r_foot"])


def test_capsule_wholly_inside_a_mesh_is_a_contact(capsule_body, rest_pose, tmp_path):
    import trimesh

    from vhuman.scene import scene_from_dict

    trimesh.creation.box(extents=(1.0, 1.0, 1.0)).export(tmp_path / "cube.stl")
    doc = {
        "name": "mesh",
        "floor": -5.0,
        "target": {"position": [2.0, 0.0, 0.0], "approach": [1, 0, 0]},
        "objects": [{"name": "cube", "type": "mesh", "path": "cube.stl", "position": [0, 0, 0]}],
    }
    world = CollisionWorld(scene_from_dict(doc, folder=tmp_path))
    body = capsule_body((0.0, 0.0, 0.0), (0.0, 0.0, 0.1), 0.05)
    deep = world.check(body, np.zeros(3), rest_pose(2))  # 0.35 m from every face
    assert [c.solid for c in deep.contacts] == ["cube"]
    assert deep.contacts[0].depth > 0.1
    across = world.check(body, np.array([0.48, 0.1, 0.0]), rest_pose(2))  # through a face
    assert across.n_contacts == 1
    assert across.contacts[0].depth == pytest.approx(0.03, abs=1e-6)
    on_face = world.check(body, np.array([0.5, 0.0, 0.0]), rest_pose(2))  # axis in the face
    assert on_face.contacts[0].depth == pytest.approx(0.05, abs=1e-6)
    outside = world.check(body, np.array([0.7, 0.0, 0.0]), rest_pose(2))
    assert outside.n_contacts == 0
    assert outside.min_clearance == pytest.approx(0.15, abs=1e-6)


def test_nan_pose_is_an_input_error(p95_body, rest_pose):
    world = CollisionWorld(load_scene("over-pipe"), resolution=0.05)
    q = rest_pose(p95_body.skeleton.n_joints)
    bad_q = q.copy()
    bad_q[3, 1] = np.nan
    with pytest.raises(InputError, match="NaN"):
        world.check(p95_body, np.zeros(3), bad_q)
    with pytest.raises(InputError, match="NaN"):
        world.collision_ratio(p95_body, np.array([0.0, np.nan, 0.9]), q)
    with pytest.raises(InputError, match="NaN"):
        world.contains([[0.0, 0.0, np.nan]])
    with pytest.raises(InputError, match="local_rotations must have shape"):
        world.check(p95_body, np.zeros(3), q[:5])


def test_body_model_volumes_and_samples():
    sk = standard_humanoid(stature=1.775)
    from vhuman.scene import BodyModel

    body = BodyModel.from_skeleton(sk, samples_per_segment=16, rng=0)
    assert body.n_segments == sum(s is not None for s in sk.segments)
    assert body.sample_weights.sum() == pytest.approx(body.volumes.sum())
    # Sample points lie inside their capsules.
    a, b = body.starts[:, None, :], body.ends[:, None, :]
    ab = b - a
    t = np.clip(np.sum((body.samples - a) * ab, -1) / np.maximum(np.sum(ab * ab, -1), 1e-12), 0, 1)
    dist = np.linalg.norm(body.samples - (a + t[..., None] * ab), axis=-1)
    assert np.all(dist <= body.radii[:, None] + 1e-12)
    again = BodyModel.from_skeleton(sk, samples_per_segment=16, rng=0)
    np.testing.assert_array_equal(body.samples, again.samples)
