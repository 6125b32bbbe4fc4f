"""Joins of a task motion's pieces: no foot on the floor slides where one piece follows another."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vhuman.geometry import quat_angle
from vhuman.posture import worker_skeleton
from vhuman.scene import load_scene
from vhuman.skeleton import Motion
from vhuman.skeleton.footskate import SLIDE_TOLERANCE, foot_points, foot_slide
from vhuman.task import load_task, run_task
from vhuman.task.feet import foot_placements
from vhuman.task.motion import standing_pose, walk_along
from vhuman.task.run import _Composer

ROOM = """\
name: room
description: An empty room 6 m by 6 m.
units: m
floor: 0.0
ceiling: 2.6
target: {name: mark, position: [2.5, 0.0, 1.0], rpy: [0, 0, 0], approach: [1, 0, 0]}
objects:
- {name: east wall, type: box, size: [0.1, 6.0, 2.6], position: [3.0, 0.0, 1.3]}
- {name: west wall, type: box, size: [0.1, 6.0, 2.6], position: [-3.0, 0.0, 1.3]}
"""
START = (-2.0, 0.0)
FPS = 30.0


def _task(folder: Path, walks: list[tuple[tuple[float, float], float | None]]) -> Path:
    (folder / "room.yaml").write_text(ROOM)
    steps = "".join(
        f"  - walk_to: {{position: [{x}, {y}]"
        + ("" if heading is None else f", heading: {heading}")
        + "}\n"
        for (x, y), heading in walks
    )
    f = folder / "walks.yaml"
    f.write_text(
        f"name: walks\nscene: room.yaml\nstart: {{position: [{START[0]}, {START[1]}], "
        f"heading: 0}}\nsteps:\n{steps}"
    )
    return f


def _continuous(m: Motion) -> None:
    step = np.degrees(quat_angle(m.local_rotations[:-1], m.local_rotations[1:]))
    assert step.max() < 20.0  # deg per frame at 30 fps: no joint jumps
    root = np.linalg.norm(np.diff(m.root_positions, axis=0), axis=-1)
    assert root.max() < 0.06  # m per frame: walking pace at most


def _gap(a: Motion, b: Motion) -> float:
    """Largest horizontal distance [m] of a foot point between ``a``'s last frame and ``b``'s
    first."""
    pa, pb = foot_points(a)[0][-1], foot_points(b)[0][0]
    return float(np.linalg.norm(pb[:, :2] - pa[:, :2], axis=-1).max())


def test_walks_of_any_length_and_heading_set_off_and_stop_without_sliding(
    tmp_path: Path,
) -> None:
    # Standing, then walking off: the walk's first frame puts the feet a length-dependent few
    # millimetres from where they stand. Then the stop, and standing at the end of the walk.
    spec = load_task(_task(tmp_path, [((0.0, 0.0), None)]))
    scene = load_scene(spec.scene)
    gaps = []
    for length, heading in [(0.1, 0.0), (0.2, 0.6), (0.7, -1.2), (1.5, 2.5), (2.0, 0.3)]:
        comp = _Composer(spec, scene, seed=0)
        comp.heading = heading
        comp.pose = standing_pose(comp.sk, START, heading, comp.fps)
        comp.roots, comp.locals = [comp.pose[0][None]], [comp.pose[1][None]]
        start = Motion(comp.sk, comp.fps, comp.roots[0], comp.locals[0])
        path = np.array(
            [START, np.add(START, length * np.array([np.cos(heading), np.sin(heading)]))]
        )
        walk = walk_along(comp.sk, path, comp.fps)
        gaps.append(_gap(start, walk))
        comp.append(walk, walking=True)
        still = standing_pose(comp.sk, path[-1], heading, comp.fps)
        comp.append(Motion(comp.sk, comp.fps, still[0][None], still[1][None]))
        m = comp.motion()
        assert foot_slide(m, scene.floor).max() <= SLIDE_TOLERANCE
        _continuous(m)
        assert np.allclose(m.root_positions[-1], still[0])
    # Some of the walks start with a foot between the slide tolerance and 5 mm away.
    assert any(SLIDE_TOLERANCE < g < 0.005 for g in gaps), gaps


@pytest.mark.parametrize(
    "walks",
    [
        [((-1.3, 0.0), 0.0), ((-1.0, 0.6), 90.0), ((0.5, 0.6), None), ((0.5, -1.4), -90.0)],
        [((-1.8, 0.0), None), ((-1.1, 0.0), 0.0), ((0.9, 0.5), 45.0), ((0.7, 0.5), None)],
    ],
)
def test_a_task_of_walks_passes_the_slide_check_on_every_frame(
    tmp_path: Path, walks: list[tuple[tuple[float, float], float | None]]
) -> None:
    r = run_task(load_task(_task(tmp_path, walks)))
    assert r.done
    assert not r.check.sliding.any(), np.flatnonzero(r.check.sliding)
    _continuous(r.motion)
    assert np.allclose(r.motion.root_positions[-1, :2], walks[-1][0], atol=0.05)


@pytest.mark.parametrize("length", [0.1, 0.3, 0.5, 0.7, 1.5, 3.0])
@pytest.mark.parametrize("heading", [0.0, 2.2])
def test_a_walk_sets_off_from_where_the_feet_stand(length: float, heading: float) -> None:
    sk = worker_skeleton("p50-male")
    start = standing_pose(sk, [0.5, -0.4], heading, FPS)
    path = np.array(
        [[0.5, -0.4], [0.5 + length * np.cos(heading), -0.4 + length * np.sin(heading)]]
    )
    own = walk_along(sk, path, FPS)
    walk = walk_along(sk, path, FPS, feet=foot_placements(sk, *start))
    still = Motion(sk, FPS, start[0][None], start[1][None])
    assert _gap(still, walk) < 1e-6  # [m]: the first frame's feet where they stand
    # Walking on from there: no foot on the floor slides, no joint jumps or leaves its range
    # more than in the walk on its own, and the walk ends where its own does.
    joined = Motion(
        sk,
        FPS,
        np.concatenate([still.root_positions, walk.root_positions]),
        np.concatenate([still.local_rotations, walk.local_rotations]),
    )
    assert foot_slide(joined, 0.0).max() <= SLIDE_TOLERANCE
    _continuous(joined)
    assert sk.limit_violation(walk.local_rotations).max() <= (
        sk.limit_violation(own.local_rotations).max() + 1e-3
    )
    assert np.allclose(walk.local_rotations[-1], own.local_rotations[-1])
