"""DeepMimic clips: layout and axes against pybullet's own kinematics, frame times, handedness."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from vhuman.errors import FileFormatError, InputError
from vhuman.io import (
    deepmimic_clip_names,
    deepmimic_clip_path,
    deepmimic_humanoid,
    read_deepmimic,
    write_deepmimic,
)
from vhuman.skeleton import JointType, Motion, standard_humanoid

pybullet = pytest.importorskip("pybullet")
pybullet_data = pytest.importorskip("pybullet_data")

CLIPS = ["walk", "run", "cartwheel", "backflip", "punch", "spin"]
# Our frame from DeepMimic's: x' = x, y' = −z, z' = y.
M = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def clip_frames(name: str) -> np.ndarray:
    return np.array(json.loads(deepmimic_clip_path(name).read_text())["Frames"])


@pytest.fixture(scope="module")
def bullet() -> tuple[int, int]:
    """pybullet's DeepMimic humanoid, loaded as its DeepMimic environment does."""
    client = pybullet.connect(pybullet.DIRECT)
    pybullet.setAdditionalSearchPath(pybullet_data.getDataPath(), physicsClientId=client)
    body = pybullet.loadURDF(
        "humanoid/humanoid.urdf",
        globalScaling=0.25,
        useFixedBase=True,
        flags=pybullet.URDF_MAINTAIN_LINK_ORDER,
        physicsClientId=client,
    )
    yield client, body
    pybullet.disconnect(client)


def bullet_positions(client: int, body: int, frame: np.ndarray) -> np.ndarray:
    """World positions of the 15 links (DeepMimic axes) after setting a clip frame in pybullet."""

    def xyzw(q: np.ndarray) -> list[float]:
        q = q / np.linalg.norm(q)
        return [q[1], q[2], q[3], q[0]]

    pybullet.resetBasePositionAndOrientation(
        body, frame[1:4], xyzw(frame[4:8]), physicsClientId=client
    )
    column = 8
    for j in range(pybullet.getNumJoints(body, physicsClientId=client)):
        kind = pybullet.getJointInfo(body, j, physicsClientId=client)[2]
        if kind == pybullet.JOINT_SPHERICAL:
            pybullet.resetJointStateMultiDof(
                body, j, xyzw(frame[column : column + 4]), physicsClientId=client
            )
            column += 4
        elif kind == pybullet.JOINT_REVOLUTE:
            pybullet.resetJointState(body, j, frame[column], physicsClientId=client)
            column += 1
    assert column == 44
    states = [
        pybullet.getLinkState(body, j, computeForwardKinematics=True, physicsClientId=client)
        for j in range(15)
    ]
    return np.array([s[4] for s in states])


@pytest.mark.parametrize("name", CLIPS)
def test_positions_match_pybullet(bullet: tuple[int, int], name: str) -> None:
    client, body = bullet
    frames = clip_frames(name)
    motion = read_deepmimic(deepmimic_clip_path(name))
    for t in (0, len(frames) // 3, len(frames) - 1):
        expected = bullet_positions(client, body, frames[t]) @ M.T
        assert np.allclose(motion.global_positions[t], expected, atol=1e-6)


@pytest.mark.parametrize("name", CLIPS)
def test_frame_time_and_count(name: str) -> None:
    frames = clip_frames(name)
    motion = read_deepmimic(deepmimic_clip_path(name))
    # The clip's own frame duration, as DeepMimic reads it (Frames[0][0]).
    assert motion.fps == pytest.approx(1.0 / frames[0, 0], rel=1e-12)
    assert motion.n_frames == len(frames)


def test_irregular_durations_are_resampled() -> None:
    frames = clip_frames("roll")
    durations = frames[:-1, 0]
    assert np.ptp(durations) > 0.01  # one frame twice as long
    motion = read_deepmimic(deepmimic_clip_path("roll"))
    dt = float(np.median(durations))
    assert motion.fps == pytest.approx(1.0 / dt)
    assert motion.duration == pytest.approx(durations.sum(), abs=dt)
    # Frames before the long one fall on original samples.
    first_long = int(np.argmax(durations > 1.5 * dt))
    original = frames[: first_long + 1, 1:4] @ M.T
    assert np.allclose(motion.root_positions[: first_long + 1], original, atol=1e-9)


def test_humanoid_layout() -> None:
    sk = deepmimic_humanoid()
    assert sk.names == (
        "root",
        "chest",
        "neck",
        "right_hip",
        "right_knee",
        "right_ankle",
        "right_shoulder",
        "right_elbow",
        "right_wrist",
        "left_hip",
        "left_knee",
        "left_ankle",
        "left_shoulder",
        "left_elbow",
        "left_wrist",
    )
    for name in ("right_knee", "left_knee", "right_elbow", "left_elbow"):
        j = sk.index(name)
        assert sk.joint_types[j] is JointType.HINGE
        assert np.allclose(sk.axes[j], [0.0, -1.0, 0.0])  # urdf z
    assert sk.limits[sk.index("left_knee"), 0].tolist() == [-3.14, 0.0]
    assert sk.limits[sk.index("left_elbow"), 0].tolist() == [0.0, 3.14]
    assert sk.joint_types[sk.index("left_wrist")] is JointType.FIXED
    rest = sk.rest_positions()
    assert rest[sk.index("left_hip"), 1] > 0.0 > rest[sk.index("right_hip"), 1]
    assert sk.total_mass == pytest.approx(45.0)
    # Soles on the floor at rest: the foot box bottom is 0.2 urdf units below the ankle.
    assert rest[sk.index("left_ankle"), 2] == pytest.approx(0.2 * 0.25)


@pytest.mark.parametrize("name", ["walk", "run"])
def test_walks_go_along_x_with_left_on_the_left(name: str) -> None:
    motion = read_deepmimic(deepmimic_clip_path(name))
    sk = motion.skeleton
    travel = motion.root_positions[-1] - motion.root_positions[0]
    assert travel[0] > 1.0
    assert abs(travel[1]) < 0.1 * travel[0]
    p = motion.global_positions
    for side in ("shoulder", "hip", "elbow"):
        lr = p[:, sk.index(f"left_{side}")] - p[:, sk.index(f"right_{side}")]
        assert np.all(lr[:, 1] > 0.05), side
    assert np.all(p[:, sk.index("neck"), 2] > p[:, sk.index("root"), 2] + 0.3)


def test_round_trip(tmp_path: Path) -> None:
    motion = read_deepmimic(deepmimic_clip_path("cartwheel"))
    path = tmp_path / "c.txt"
    write_deepmimic(motion, path, loop="none")
    data = json.loads(path.read_text())
    assert data["Loop"] == "none"
    assert len(data["Frames"]) == motion.n_frames
    back = read_deepmimic(path)
    assert back.fps == pytest.approx(motion.fps, rel=1e-12)
    assert np.allclose(back.global_positions, motion.global_positions, atol=1e-9)
    original = clip_frames("cartwheel")
    written = np.array(data["Frames"])
    hinges = [20, 29, 34, 43]
    assert np.allclose(written[:, hinges], original[:, hinges], atol=1e-12)


def test_write_needs_the_humanoid(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="DeepMimic humanoid"):
        write_deepmimic(Motion.rest(standard_humanoid()), tmp_path / "x.txt")
    with pytest.raises(InputError, match="loop"):
        write_deepmimic(Motion.rest(deepmimic_humanoid()), tmp_path / "x.txt", loop="mirror")
    assert list(tmp_path.iterdir()) == []


def test_clip_names() -> None:
    assert deepmimic_clip_path("walk").name == "humanoid3d_walk.txt"
    assert set(CLIPS) <= set(deepmimic_clip_names())
    with pytest.raises(InputError, match=r"available: .*walk"):
        deepmimic_clip_path("moonwalk")


def test_missing_pybullet_is_explained(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pybullet_data", None)
    with pytest.raises(InputError, match=r"pip install vhuman\[data\]"):
        deepmimic_clip_path("walk")


def good_frame() -> list[float]:
    return clip_frames("walk")[0].tolist()


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("{not json", "not valid JSON"),
        ('{"Loop": "wrap"}', "'Frames' is a non-empty list"),
        ("[1, 2]", "'Frames' is a non-empty list"),
        (json.dumps({"Frames": [[0.1, 2.0]]}), "frame 0 is not a list of 44"),
        (json.dumps({"Frames": [[True] * 44]}), "frame 0 is not a list of 44"),
        (json.dumps({"Frames": [[*good_frame()[:4], float("nan"), *good_frame()[5:]]]}), "NaN"),
        (json.dumps({"Frames": [[0.0, *good_frame()[1:]]] * 3}), "durations must be > 0"),
        (
            json.dumps({"Frames": [[d, *good_frame()[1:]] for d in (0.01, 0.01, 1e9, 0)]}),
            "too uneven",
        ),
        (json.dumps({"Frames": [[*good_frame()[:4], 0, 0, 0, 0, *good_frame()[8:]]]}), "zero norm"),
        ('{"Frames": [[' + ", ".join(["1" + "0" * 400] * 44) + "]]}", "too large"),
        ("[" * 100_000, "unreadable JSON|not valid JSON"),
    ],
)
def test_bad_clips(tmp_path: Path, content: str, match: str) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(content)
    with pytest.raises(FileFormatError, match=match) as info:
        read_deepmimic(path)
    assert str(info.value).startswith(str(path))
