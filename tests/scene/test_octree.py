"""Octree free space: cells against brute-force point checks, volumes, the search block."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.scene import CollisionWorld, arm_length, free_space, load_scene
from vhuman.skeleton import standard_humanoid


@pytest.fixture(scope="module")
def valve_world() -> CollisionWorld:
    return CollisionWorld(load_scene("ship-valve"), resolution=0.05)


def test_arm_length_of_the_p95_man():
    sk = standard_humanoid(stature=1.775)
    # Drillis & Contini: upper arm 0.186 H, forearm 0.146 H, hand 0.108 H.
    assert arm_length(sk) == pytest.approx(0.440 * 1.775)
    assert arm_length(sk, "left") == pytest.approx(arm_length(sk))


@pytest.mark.parametrize("scene_name", ["ship-valve", "over-pipe"])
def test_cells_agree_with_brute_force_point_checks(scene_name):
    world = CollisionWorld(load_scene(scene_name), resolution=0.05)
    side = arm_length(standard_humanoid(stature=1.775))
    space = free_space(world, side, max_depth=4)
    assert np.allclose(
        space.centres.mean(axis=0) * 0 + space.origin + side / 2, world.scene.target.position
    )
    rng = np.random.default_rng(0)
    pts = space.origin + rng.uniform(0.0, side, (4000, 3))
    state = space.state_at(pts)
    inside = world.contains(pts)
    assert set(np.unique(state)) <= {0, 1, 2}
    assert not inside[state == 0].any()  # free cells hold no solid point
    assert inside[state == 1].all()  # occupied cells hold only solid points
    assert (state == 0).sum() > 100
    # Volumes: the leaves tile the block.
    total = space.volume("free") + space.volume("occupied") + space.volume("mixed")
    assert total == pytest.approx(side**3)
    assert space.free_volume == pytest.approx(side**3 * np.mean(state == 0), rel=0.1)


def test_occupied_cells_show_up_and_the_target_cell_is_not_occupied(valve_world):
    space = free_space(valve_world, 0.78, max_depth=5)
    assert space.volume("occupied") > 0.0
    assert space.state_at(valve_world.scene.target.position) in (0, 2)
    cand = space.candidates
    assert len(cand) == int(np.sum(space.state == 0))
    d = np.linalg.norm(cand - valve_world.scene.target.position, axis=1)
    assert np.all(np.diff(d) >= 0)
    assert not valve_world.contains(cand).any()
    samples = space.sample(500, rng=1)
    assert not valve_world.contains(samples).any()
    np.testing.assert_array_equal(samples, space.sample(500, rng=1))
    assert space.to_dict()["cells"]["free"] == len(cand)


def test_deeper_octrees_find_more_free_volume(valve_world):
    volumes = [free_space(valve_world, 0.78, max_depth=d).free_volume for d in (2, 3, 4)]
    assert volumes[0] <= volumes[1] <= volumes[2]
    assert volumes[2] > volumes[0]


def test_bad_octree_arguments(valve_world):
    with pytest.raises(InputError, match="side"):
        free_space(valve_world, -1.0)
    with pytest.raises(InputError, match="max_depth"):
        free_space(valve_world, 0.5, max_depth=11)
    with pytest.raises(InputError, match="centre"):
        free_space(valve_world, 0.5, centre=[0.0, np.nan, 0.0])
