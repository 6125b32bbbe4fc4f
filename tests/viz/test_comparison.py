"""Walks side by side: heel strikes, gait phase, and a reference aligned by gait cycle."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.animation import GaitParameters, generate_walk
from vhuman.errors import InputError
from vhuman.geometry import quat_multiply
from vhuman.io import cmu_walking_example
from vhuman.skeleton import Motion
from vhuman.viz.comparison import gait_aligned, gait_phase, heel_strikes, repeated

VHUMAN = ("pelvis", "l_ankle")
CMU = ("hips", "lankle")


@pytest.fixture(scope="module")
def walk() -> Motion:
    """A generated walk: 4 cycles of 1.077 s at 1.3 m/s (0.7 m steps), 60 fps."""
    return generate_walk(GaitParameters(step_length=0.7, speed=1.3, cycles=4)).motion


def test_heel_strikes_come_once_per_gait_cycle(walk: Motion) -> None:
    cycle_frames = 2 * 0.7 / 1.3 * walk.fps  # a cycle is two steps
    for ankle in ("l_ankle", "r_ankle"):
        strikes = heel_strikes(walk, "pelvis", ankle)
        assert len(strikes) >= 3
        assert np.diff(strikes) == pytest.approx(cycle_frames, abs=2.0)
    left, right = heel_strikes(walk, *VHUMAN), heel_strikes(walk, "pelvis", "r_ankle")
    # The feet strike half a cycle apart.
    gap = np.abs(right[:, None] - left[None, :]).min()
    assert gap == pytest.approx(cycle_frames / 2, abs=2.0)


def test_gait_phase_counts_cycles_through_the_strikes() -> None:
    phase = gait_phase(50, np.array([10, 20, 40]))
    assert phase[[10, 20, 40]] == pytest.approx([0.0, 1.0, 2.0])
    assert phase[15] == pytest.approx(0.5)
    assert phase[30] == pytest.approx(1.5)
    assert phase[0] == pytest.approx(-1.0)  # at the first cycle's rate
    assert phase[49] == pytest.approx(2.45)  # at the last cycle's rate
    assert np.all(np.diff(phase) > 0)
    with pytest.raises(InputError, match="two heel strikes"):
        gait_phase(50, np.array([10]))


def test_a_walk_aligned_to_itself_is_itself_beside(walk: Motion) -> None:
    aligned = gait_aligned(walk, walk, reference_joints=VHUMAN, motion_joints=VHUMAN, beside=0.5)
    strikes = heel_strikes(walk, *VHUMAN)
    inside = slice(strikes[0], strikes[-1])  # at the last strike it starts the first cycle again
    np.testing.assert_allclose(
        aligned.local_rotations[inside], walk.local_rotations[inside], atol=1e-12
    )
    heading = walk.root_positions[-1, :2] - walk.root_positions[0, :2]
    left = np.array([-heading[1], heading[0]]) / np.linalg.norm(heading)
    np.testing.assert_allclose(
        aligned.root_positions[:, :2], walk.root_positions[:, :2] + 0.5 * left, atol=1e-12
    )
    assert aligned.n_frames == walk.n_frames
    assert aligned.fps == walk.fps


def test_a_cmu_walk_aligned_to_a_generated_one_strikes_at_its_frames(walk: Motion) -> None:
    clip = cmu_walking_example()
    aligned = gait_aligned(clip, walk, reference_joints=CMU, motion_joints=VHUMAN)
    assert aligned.skeleton is clip.skeleton
    assert (aligned.n_frames, aligned.fps) == (walk.n_frames, walk.fps)
    ours = heel_strikes(walk, *VHUMAN)
    theirs = heel_strikes(aligned, *CMU)
    assert len(theirs) >= len(ours) - 1
    # Every heel strike of the aligned CMU walk is at a heel strike of the generated one.
    assert np.abs(theirs[:, None] - ours[None, :]).min(axis=1).max() <= 2
    # It walks beside it, facing the same way: the left ankle ahead of the pelvis at a strike.
    p = aligned.global_positions
    sk = clip.skeleton
    ahead = p[theirs, sk.index("lankle"), 0] - p[theirs, sk.index("hips"), 0]
    assert np.all(ahead > 0.1)


def test_a_turned_reference_is_turned_back(walk: Motion) -> None:
    quarter = np.array([np.cos(np.pi / 4), 0.0, 0.0, np.sin(np.pi / 4)])  # 90° about z
    root = walk.root_positions @ np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    rotations = np.array(walk.local_rotations)
    rotations[:, 0] = quat_multiply(quarter, rotations[:, 0])
    turned = Motion(walk.skeleton, walk.fps, root, rotations)  # walks along +y
    aligned = gait_aligned(turned, walk, reference_joints=VHUMAN, motion_joints=VHUMAN)
    strikes = heel_strikes(walk, *VHUMAN)
    inside = slice(strikes[0], strikes[-1])
    rel = aligned.global_positions - aligned.global_positions[:, :1]
    rel_walk = walk.global_positions - walk.global_positions[:, :1]
    np.testing.assert_allclose(rel[inside], rel_walk[inside], atol=1e-9)


def test_repeated_clip_walks_on(walk: Motion) -> None:
    one = walk[:65]
    three = repeated(one, 3)
    assert three.n_frames == 3 * one.n_frames
    step = one.root_positions[1, 0] - one.root_positions[0, 0]
    seam = three.root_positions[one.n_frames, 0] - three.root_positions[one.n_frames - 1, 0]
    assert seam == pytest.approx(step, rel=0.2)
    np.testing.assert_array_equal(three.local_rotations[one.n_frames :][:65], one.local_rotations)
    with pytest.raises(InputError, match="times must be a positive integer"):
        repeated(one, 0)


def test_bad_inputs_are_refused(walk: Motion) -> None:
    still = Motion.rest(walk.skeleton, 30, 30.0)
    with pytest.raises(InputError, match=r"must travel at least 0\.2 m"):
        heel_strikes(still, *VHUMAN)
    with pytest.raises(InputError, match="beside must be a finite distance"):
        gait_aligned(walk, walk, reference_joints=VHUMAN, motion_joints=VHUMAN, beside=np.nan)
    with pytest.raises(InputError, match="two heel strikes"):
        gait_aligned(walk[:40], walk, reference_joints=VHUMAN, motion_joints=VHUMAN)
