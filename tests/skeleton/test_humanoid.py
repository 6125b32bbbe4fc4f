"""The standard humanoid against its published sources."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.skeleton import JointType, Motion, standard_humanoid
from vhuman.skeleton.humanoid import HUMANOID_JOINTS


def body_points(sk) -> np.ndarray:
    """Rest-pose world coordinates of all segment capsule surfaces' extreme points."""
    pos = sk.rest_positions()
    pts = []
    for j, seg in enumerate(sk.segments):
        if seg is None:
            continue
        for end in (seg.start, seg.end):
            for d in np.eye(3):
                pts.extend([pos[j] + end + seg.radius * d, pos[j] + end - seg.radius * d])
    return np.array(pts)


@pytest.mark.parametrize(
    ("sex", "percentile", "stature", "mass"),
    [("male", 50, 1.678, 59.0), ("male", 95, 1.775, 75.0), ("female", 50, 1.570, 52.0)],
)
def test_stature_and_mass_from_gbt10000(sex, percentile, stature, mass) -> None:
    sk = standard_humanoid(sex=sex, percentile=percentile)
    pts = body_points(sk)
    assert pts[:, 2].max() == pytest.approx(stature, abs=1e-9)  # top of the head
    assert pts[:, 2].min() == pytest.approx(0.0, abs=2e-3)  # soles on the floor
    assert sk.total_mass == pytest.approx(mass, rel=1e-3)  # de Leva fractions sum to 100 %


def test_layout_and_symmetry() -> None:
    sk = standard_humanoid(stature=1.8)
    assert sk.names == HUMANOID_JOINTS
    assert 22 <= sk.n_joints <= 25
    p = sk.rest_positions()
    assert np.allclose(p[sk.mirror] * [1, -1, 1], p)
    # Left joints are on the body's left (+y) in the z-up, facing +x frame.
    assert p[sk.index("l_shoulder"), 1] > 0
    assert p[sk.index("r_hip"), 1] < 0
    # Limits of the right side mirror the left (x and z rotations change sign).
    lo = sk.limits
    li, ri = sk.index("l_shoulder"), sk.index("r_shoulder")
    assert np.allclose(lo[li, 0], lo[ri, 0])
    assert np.allclose(lo[li, 2], -lo[ri, 2, ::-1])
    assert sk.joint_types[sk.index("l_knee")] is JointType.HINGE


def test_segment_lengths_are_drillis_contini_ratios() -> None:
    h = 1.75
    sk = standard_humanoid(stature=h)
    lengths = dict(zip(sk.names, sk.bone_lengths, strict=True))
    assert lengths["l_elbow"] == pytest.approx(0.186 * h)  # upper arm
    assert lengths["l_wrist"] == pytest.approx(0.146 * h)  # forearm
    assert lengths["l_hand"] == pytest.approx(0.108 * h)  # hand
    assert lengths["l_knee"] == pytest.approx(0.245 * h)  # thigh
    assert lengths["l_ankle"] == pytest.approx(0.246 * h)  # shank
    assert sk.rest_positions()[sk.index("l_shoulder"), 2] == pytest.approx(0.818 * h)


def test_rest_pose_within_limits_and_ranges_contain_it() -> None:
    sk = standard_humanoid()
    rest = Motion.rest(sk)
    assert np.all(sk.limit_violation(rest.local_rotations) == 0.0)
    lim = sk.limits[1:]  # root is free
    assert np.all(lim[..., 0] <= 0.0)
    assert np.all(lim[..., 1] >= 0.0)
    knee = sk.limits[sk.index("l_knee"), 0]
    assert np.degrees(knee).tolist() == pytest.approx([0.0, 135.0])  # AAOS knee flexion


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"stature": 0.0}, "stature"),
        ({"stature": float("nan")}, "stature"),
        ({"percentile": 42}, "percentile must be one of"),
        ({"sex": "other"}, "sex must be one of"),
        ({"mass": -1.0}, "mass"),
    ],
)
def test_bad_parameters(kwargs, message) -> None:
    with pytest.raises(InputError, match=message):
        standard_humanoid(**kwargs)
