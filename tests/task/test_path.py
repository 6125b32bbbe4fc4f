"""Walking paths: on free floor only, round the obstacles, blocked goals refused."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vhuman.scene import Box, Scene, SceneObject, Target
from vhuman.task import PathBlockedError, floor_grid, plan_path

UNIT = [1.0, 0.0, 0.0, 0.0]


def _room(blocker_y: float = 0.0) -> Scene:
    walls = [
        SceneObject("west", Box([0.1, 4.2, 2.0]), [-2.05, 0.0, 1.0], UNIT),
        SceneObject("east", Box([0.1, 4.2, 2.0]), [2.05, 0.0, 1.0], UNIT),
        SceneObject("north", Box([4.2, 0.1, 2.0]), [0.0, 2.05, 1.0], UNIT),
        SceneObject("south", Box([4.2, 0.1, 2.0]), [0.0, -2.05, 1.0], UNIT),
        SceneObject("crate", Box([0.6, 2.4, 1.0]), [0.0, blocker_y, 0.5], UNIT),
    ]
    return Scene("room", walls, Target([1.5, 0.0, 1.0], [1, 0, 0, 0], [1, 0, 0]), floor=0.0)


def _clearance(scene: Scene, pts: np.ndarray) -> float:
    """Least horizontal distance from dense samples of a polyline to the crate's box."""
    lo, hi = scene.object("crate").bounds()
    s = np.linspace(0, 1, 20)[:, None]
    dense = np.concatenate([a + s * (b - a) for a, b in itertools.pairwise(pts)])
    d = np.maximum(np.maximum(lo[:2] - dense, dense - hi[:2]), 0.0)
    return float(np.linalg.norm(d, axis=-1).min())


def test_path_goes_round_the_obstacle_with_the_body_radius() -> None:
    scene = _room(blocker_y=-0.6)  # the crate leaves a gap on the +y side only
    grid = floor_grid(scene, 0.35)
    path = plan_path(grid, [-1.5, -1.0], [1.5, -1.0], goal_heading=0.0)
    assert np.allclose(path[0], [-1.5, -1.0])
    assert np.allclose(path[-1], [1.5, -1.0])
    assert path[:, 1].max() > 0.6 + 0.3  # round the crate's +y end
    assert _clearance(scene, path) >= 0.35 - grid.spacing
    assert all(grid.segment_free(a, b) for a, b in itertools.pairwise(path))
    # Smoothed: no turn sharper than 60 degrees between consecutive segments.
    d = np.diff(path, axis=0)
    turn = np.abs(np.diff(np.unwrap(np.arctan2(d[:, 1], d[:, 0]))))
    assert np.degrees(turn.max()) < 60.0


def test_free_line_is_straight() -> None:
    grid = floor_grid(_room(), 0.3)
    path = plan_path(grid, [-1.5, 1.5], [-1.5, -1.5])
    assert len(path) == 2


def test_blocked_goal_and_cut_off_goal() -> None:
    grid = floor_grid(_room(), 0.3)
    with pytest.raises(PathBlockedError, match=r"goal .* within 0\.30 m of a solid"):
        plan_path(grid, [-1.5, 0.0], [0.0, 0.0])
    wall = _room()
    wall = Scene(
        "cut",
        [*wall.objects[:4], SceneObject("wall", Box([0.2, 4.2, 2.0]), [0.0, 0.0, 1.0], UNIT)],
        wall.target,
        floor=0.0,
    )
    with pytest.raises(PathBlockedError, match="no free floor path"):
        plan_path(floor_grid(wall, 0.3), [-1.5, 0.0], [1.5, 0.0])
