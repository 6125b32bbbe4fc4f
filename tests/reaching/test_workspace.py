"""Tests of the workspace target grid."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.reaching import ArmModel
from vhuman.reaching.clearance import ArmBodyClearance, segment_distance
from vhuman.reaching.workspace import REGIONS, workspace_targets
from vhuman.skeleton import standard_humanoid

SKELETON = standard_humanoid()


def test_both_arms_hold_over_300_targets_in_every_region_outside_the_body() -> None:
    right = workspace_targets(SKELETON, "right")
    left = workspace_targets(SKELETON, "left")
    assert len(right) + len(left) >= 300
    assert set(right.regions) == set(REGIONS)
    model = ArmModel.from_skeleton(SKELETON, "right")
    shoulder = SKELETON.rest_positions()[SKELETON.index("r_shoulder")]
    dist = np.linalg.norm(right.positions - shoulder, axis=-1)
    assert np.all(dist <= model.upper_arm + model.forearm + model.hand)
    body = ArmBodyClearance.from_skeleton(SKELETON, "right")
    p = right.positions[:, None]
    gap = segment_distance(p, p, body.body_starts, body.body_ends) - body.body_radii
    assert np.all(gap > body.arm_radii[2])


def test_left_grid_is_the_mirror_image_of_the_right() -> None:
    right = workspace_targets(SKELETON, "right")
    left = workspace_targets(SKELETON, "left")
    np.testing.assert_allclose(left.positions, right.positions * [1.0, -1.0, 1.0], atol=1e-12)
    assert left.regions == right.regions


def test_regions_follow_the_direction_from_the_shoulder() -> None:
    grid = workspace_targets(SKELETON, "right")
    shoulder = SKELETON.rest_positions()[SKELETON.index("r_shoulder")]
    d = grid.positions - shoulder
    regions = np.array(grid.regions)
    assert np.all(d[regions == "overhead", 2] > 0.0)
    assert np.all(d[regions == "low", 2] < 0.0)
    assert np.all(d[regions == "behind", 0] < 0.0)
    assert np.all(d[regions == "across", 1] > 0.0)  # towards the body's left


def test_bad_grids_are_refused() -> None:
    with pytest.raises(InputError, match="fractions"):
        workspace_targets(SKELETON, fractions=[0.0, 0.5])
    with pytest.raises(InputError, match="elevations_deg"):
        workspace_targets(SKELETON, elevations_deg=[100.0])
    with pytest.raises(InputError, match="at most"):
        workspace_targets(SKELETON, azimuths_deg=np.zeros(1000), elevations_deg=np.zeros(1000))
