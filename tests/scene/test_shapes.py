"""Point-in-object queries of every shape, placed and turned, against closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.geometry import euler_to_quat, quat_apply
from vhuman.scene import Box, Capsule, Cylinder, Mesh, SceneObject, Sphere, load_scene

RNG = np.random.default_rng(5)


def _placed(shape, rpy=(20.0, -35.0, 50.0), position=(0.3, -0.2, 1.1)):
    return SceneObject("thing", shape, position, euler_to_quat(rpy, "xyz", degrees=True))


def _local_to_world(obj, local):
    return quat_apply(obj.rotation, local) + obj.position


@pytest.mark.parametrize(
    ("shape", "inside"),
    [
        (Box((0.4, 0.2, 0.6)), lambda p: np.all(np.abs(p) <= [0.2, 0.1, 0.3], axis=-1)),
        (Sphere(0.25), lambda p: np.linalg.norm(p, axis=-1) <= 0.25),
        (
            Cylinder(0.15, 0.5),
            lambda p: (np.hypot(p[..., 0], p[..., 1]) <= 0.15) & (np.abs(p[..., 2]) <= 0.25),
        ),
        (
            Capsule(0.1, 0.4),
            lambda p: np.linalg.norm(p - np.clip(p * [0, 0, 1], -0.2, 0.2), axis=-1) <= 0.1,
        ),
    ],
)
def test_point_in_primitive_matches_closed_form(shape, inside):
    obj = _placed(shape)
    local = RNG.uniform(-0.4, 0.4, (4000, 3))
    expected = inside(local)
    assert 0.02 < expected.mean() < 0.95
    np.testing.assert_array_equal(obj.contains(_local_to_world(obj, local)), expected)
    # The world bounding box holds every inside point.
    lo, hi = obj.bounds()
    pts = _local_to_world(obj, local[expected])
    assert np.all(pts >= lo - 1e-12)
    assert np.all(pts <= hi + 1e-12)


def test_bounds_are_tight_for_a_tilted_cylinder():
    obj = _placed(Cylinder(0.15, 0.5))
    lo, hi = obj.bounds()
    v, _ = Cylinder(0.15, 0.5).triangulate()  # its rim polygon nearly reaches the extremes
    world = _local_to_world(obj, v)
    assert np.all(world.min(axis=0) >= lo - 1e-12)
    np.testing.assert_allclose(world.min(axis=0), lo, atol=0.15 * (1 - np.cos(np.pi / 24)) + 1e-9)
    np.testing.assert_allclose(world.max(axis=0), hi, atol=0.15 * (1 - np.cos(np.pi / 24)) + 1e-9)


def test_point_in_the_handwheel_mesh_follows_the_torus():
    scene = load_scene("ship-valve")
    wheel = scene.object("valve handwheel")
    assert isinstance(wheel.shape, Mesh)
    local = RNG.uniform([-0.14, -0.14, -0.03], [0.14, 0.14, 0.03], (6000, 3))
    ring = np.hypot(local[:, 0], local[:, 1])
    tube = np.hypot(ring - 0.11, local[:, 2])
    clear = np.abs(tube - 0.015) > 0.002  # away from the faceted surface
    got = wheel.contains(_local_to_world(wheel, local[clear]))
    np.testing.assert_array_equal(got, tube[clear] < 0.015)
    assert got.sum() > 50
    assert not wheel.contains(wheel.position)  # the hole of the wheel is not in the mesh
    # An 8-sided tube section holds 2·8·sin(π/8)·cos(π/8)/π ≈ 0.90 of the round one.
    tube_share = 8 * np.sin(np.pi / 8) * np.cos(np.pi / 8) / np.pi
    torus = 2 * np.pi**2 * 0.11 * 0.015**2
    assert wheel.shape.volume == pytest.approx(torus * tube_share, rel=0.02)


def test_scene_containing_names_the_solid():
    scene = load_scene("ship-valve")
    assert scene.containing([1.3, 0.0, 0.6]) == "tank"
    assert scene.containing([0.0, 0.0, -0.01]) == "floor"
    assert scene.containing([0.0, 0.0, 1.5]) == "ceiling"
    assert scene.containing([0.35, 0.5, 1.05]) == "steam pipe"
    assert scene.containing([-0.3, -0.3, 0.7]) is None


@pytest.mark.parametrize(
    "make",
    [
        lambda: Box((1.0, -1.0, 1.0)),
        lambda: Sphere(float("nan")),
        lambda: Cylinder(0.1, 0.0),
        lambda: Capsule(0.1, -0.2),
        lambda: SceneObject("x", Sphere(0.1), [0.0, np.nan, 0.0], [1, 0, 0, 0]),
        lambda: SceneObject("x", Sphere(0.1), [0.0, 0.0, 0.0], [0, 0, 0, 0]),
        lambda: Mesh(np.full((4, 3), np.nan), [[0, 1, 2], [0, 2, 3], [0, 3, 1], [1, 3, 2]]),
    ],
)
def test_bad_shapes_are_input_errors(make):
    with pytest.raises(InputError):
        make()
