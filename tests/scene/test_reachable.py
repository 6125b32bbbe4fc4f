"""Free space connected to the entry: voxels, clearance, enclosure."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.scene import (
    Box,
    CollisionWorld,
    GridLookup,
    Scene,
    SceneObject,
    Target,
    reachable_space,
)


def _plates(centre, half, thick=0.01):
    """Six plates closing a cube of half side ``half`` around ``centre``."""
    c = np.asarray(centre, float)
    out = []
    for ax in range(3):
        for sgn in (-1, 1):
            size = np.full(3, 2 * (half + thick))
            size[ax] = thick
            pos = c.copy()
            pos[ax] += sgn * (half + thick / 2)
            out.append(SceneObject(f"plate{ax}{sgn}", Box(tuple(size)), pos, [1, 0, 0, 0]))
    return out


def test_a_closed_cage_encloses_its_target_and_an_open_one_does_not() -> None:
    plates = _plates([0.5, 0.0, 1.0], 0.15)
    t = Target([0.5, 0.0, 1.0], [1, 0, 0, 0], [1, 0, 0])
    closed = reachable_space(CollisionWorld(Scene("cage", tuple(plates), t)))
    assert closed.enclosed(t.position)
    opened = reachable_space(CollisionWorld(Scene("open", tuple(plates[:-1]), t)))
    assert not opened.enclosed(t.position)


def test_voxels_agree_with_point_containment() -> None:
    box = SceneObject("b", Box((0.4, 0.3, 0.5)), [0.2, 0.1, 0.5], [0.9, 0.1, 0.2, 0.3])
    scene = Scene("one", (box,), Target([1.0, 0.0, 1.0], [1, 0, 0, 0], [1, 0, 0]))
    space = reachable_space(CollisionWorld(scene), half_width=1.0, spacing=0.05)
    idx = np.argwhere(np.ones(space.occupied.shape, bool))
    centres = space.origin + (idx + 0.5) * space.spacing
    inside = scene.contains(centres).reshape(space.occupied.shape)
    # Every voxel whose centre is inside is occupied; occupied ones lie within a
    # voxel diagonal of the solid.
    assert np.all(space.occupied[inside])
    assert np.all(space.clearance[inside] == 0.0)
    occ = np.argwhere(space.occupied & ~inside)
    near = space.origin + (occ + 0.5) * space.spacing
    dist = np.linalg.norm(box.to_local(near), axis=-1)  # a crude bound from the centre
    assert np.all(dist < 0.5 + np.sqrt(3) * space.spacing)


def test_a_wall_cuts_the_space_and_points_behind_it_are_not_connected() -> None:
    wall = SceneObject("wall", Box((0.1, 10.0, 3.0)), [0.8, 0.0, 1.5], [1, 0, 0, 0])
    t = Target([0.5, 0.0, 1.0], [1, 0, 0, 0], [1, 0, 0])
    space = reachable_space(CollisionWorld(Scene("wall", (wall,), t)))
    assert space.connected(np.array([[0.0, 0.0, 0.9]]))[0]
    assert not space.connected(np.array([[1.5, 0.0, 0.9]]))[0]


def test_bad_sizes_are_refused() -> None:
    world = CollisionWorld(Scene("e", (), Target([0, 0, 1.0], [1, 0, 0, 0], [1, 0, 0])))
    with pytest.raises(InputError, match="spacing"):
        reachable_space(world, spacing=0.0)
    with pytest.raises(InputError, match="voxels"):
        reachable_space(world, spacing=0.001, half_width=50.0)


def test_a_grid_window_leaves_far_objects_to_the_exact_queries(capsule_body) -> None:
    near = SceneObject("near", Box((0.2, 0.2, 0.2)), [0.5, 0.0, 1.0], [1, 0, 0, 0])
    far = SceneObject("far", Box((0.2, 0.2, 0.2)), [20.0, 0.0, 1.0], [1, 0, 0, 0])
    scene = Scene("two", (near, far), Target([0.0, 0.0, 1.0], [1, 0, 0, 0], [1, 0, 0]))
    world = CollisionWorld(scene, window=2.0)
    assert world.grid.lookup(np.array([0.5, 0.0, 1.0]), "nearest") == 1.0
    assert world.grid.lookup(np.array([20.0, 0.0, 1.0]), "nearest") == 0.0
    assert world.grid.values.size < CollisionWorld(scene).grid.values.size
    assert list(world.objects_near([19.0, -1.0, 0.0], [21.0, 1.0, 2.0])) == [1]
    ball = capsule_body([0, 0, 0], [0, 0, 0], 0.05)
    report = world.check(ball, [20.0, 0.0, 1.0], np.array([[1.0, 0, 0, 0], [1.0, 0, 0, 0]]))
    assert [c.solid for c in report.contacts] == ["far"]


def test_grid_lookup_by_enum_or_name() -> None:
    block = SceneObject("block", Box((0.2, 0.2, 0.2)), [0.5, 0.0, 1.0], [1, 0, 0, 0])
    scene = Scene("one", (block,), Target([0.0, 0.0, 1.0], [1, 0, 0, 0], [1, 0, 0]))
    world = CollisionWorld(scene)
    points = np.array([[0.5, 0.0, 1.0], [0.61, 0.0, 1.0], [3.0, 0.0, 1.0]])
    for lookup in GridLookup:
        np.testing.assert_array_equal(
            world.grid.lookup(points, lookup), world.grid.lookup(points, lookup.value)
        )
    with pytest.raises(InputError, match="method must be 'trilinear' or 'nearest'"):
        world.grid.lookup(points, "cubic")
