"""Placement cost pieces on hand-made cases."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.posture import (
    PlacementWeights,
    PostureLibrary,
    comfort_value,
    effective_distance,
    rank_placements,
)
from vhuman.scene import BodyModel, CollisionWorld, load_scene, scene_from_dict


def test_effective_distance_is_a_normalised_gaussian() -> None:
    d = effective_distance([0.5, 0.6, 0.9, 5.0], 0.5, 0.2)
    assert d[0] == 0.0
    assert d[1] == pytest.approx(1.0 - np.exp(-0.125))
    assert np.all(np.diff(d) > 0)
    assert 0.999 < d[-1] <= 1.0


def test_comfort_value_normalises_table_a() -> None:
    assert comfort_value([1, 5, 9]).tolist() == [0.0, 0.5, 1.0]


def test_weights_are_validated() -> None:
    with pytest.raises(ValueError, match="alpha"):
        PlacementWeights(alpha=-1.0)


def _wall_scene() -> object:
    return scene_from_dict(
        {
            "name": "wall",
            "target": {"position": [0.6, 0.0, 1.0], "approach": [1, 0, 0]},
            "objects": [
                {
                    "name": "wall",
                    "type": "box",
                    "size": [0.2, 2.0, 2.0],
                    "position": [0.8, 0.0, 1.0],
                }
            ],
        }
    )


def test_ranking_prefers_free_comfortable_placements(
    library: PostureLibrary, body: BodyModel
) -> None:
    world = CollisionWorld(_wall_scene())
    # Necks at 0.45 m (clear of the wall) and at 0.8 m beyond it (inside the wall).
    pos = np.array([[0.15, 0.0], [0.8 + 0.0, 0.5]])
    ranked = rank_placements(world, body, library, pos, arm_length=0.78, yaw_offsets=(0.0,))
    assert len(ranked) == 2 * len(library)
    costs = [p.cost for p in ranked]
    assert costs == sorted(costs)
    w = PlacementWeights()
    for p in ranked:
        assert p.cost == pytest.approx(
            p.collision_ratio + w.alpha * p.d_effective + w.beta * p.v_comfort
        )
    standing = [p for p in ranked if p.posture == "standing"]
    clear = min(standing, key=lambda p: p.root_position[0])
    assert clear.collision_ratio == 0.0
    assert ranked[0].posture == "standing"  # free, upright and at a fair distance
    inside = [p for p in ranked if p.root_position[1] > 0.3 and p.posture == "standing"]
    assert inside[0].collision_ratio > 0.05


def test_ship_valve_ceiling_rules_out_standing(library: PostureLibrary, body: BodyModel) -> None:
    world = CollisionWorld(load_scene("ship-valve"))
    ranked = rank_placements(
        world, body, library, [[0.0, 0.0]], arm_length=0.78, yaw_offsets=(0.0,)
    )
    standing = next(p for p in ranked if p.posture == "standing")
    assert standing.collision_ratio > 0.01  # the head is in the ceiling
    assert ranked[0].posture != "standing"
