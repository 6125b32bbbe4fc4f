"""BVH: conventions against hand-computed matrices, round trips, other readers, bad input."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from vhuman.errors import FileFormatError, InputError
from vhuman.geometry import rotvec_to_quat
from vhuman.io import (
    BVH_ROTATION_ORDERS,
    format_bvh,
    parse_bvh,
    read_bvh,
    read_cmu,
    write_bvh,
)
from vhuman.skeleton import JointType, Motion, Skeleton, standard_humanoid

# Our frame from BVH's: x' = z, y' = x, z' = y.
C = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])

FIXTURES = Path(__file__).parent / "fixtures"
VALID = (FIXTURES / "small.bvh").read_text()
"""Three joints, two End Sites, three frames, centimetres; rotation orders ZXY and XYZ."""


def rot(axis: str, deg: float) -> np.ndarray:
    """Rotation matrix about x, y or z (right hand, column vectors)."""
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    i, j = {"X": (1, 2), "Y": (2, 0), "Z": (0, 1)}[axis]
    m = np.eye(3)
    m[i, i], m[i, j], m[j, i], m[j, j] = c, -s, s, c
    return m


def random_motion(n_frames: int = 20, seed: int = 0) -> Motion:
    sk = standard_humanoid()
    rng = np.random.default_rng(seed)
    root = rng.normal(size=(n_frames, 3)) + np.array([0.0, 0.0, 1.0])
    return Motion(sk, 30.0, root, rotvec_to_quat(rng.normal(size=(n_frames, sk.n_joints, 3))))


def by_name(motion: Motion, names: list[str]) -> np.ndarray:
    return motion.global_positions[:, motion.skeleton.indices(names)]


# -- conventions ----------------------------------------------------------------------


def test_hand_computed_positions_any_channel_order() -> None:
    """Rotation channels compose as R = R_first · R_second · R_third, in degrees, y-up → z-up."""
    m = parse_bvh(VALID, scale=0.01)
    assert m.skeleton.names == ("hips", "chest", "chest_end", "leg", "leg_end")
    assert m.skeleton.joint_types[2] is JointType.FIXED
    assert m.fps == 30.0
    for t, row in enumerate(np.array([line.split() for line in VALID.splitlines()[-3:]], float)):
        r_root = rot("Z", row[3]) @ rot("X", row[4]) @ rot("Y", row[5])
        r_chest = rot("Z", row[6]) @ rot("X", row[7]) @ rot("Y", row[8])
        r_leg = rot("X", row[9]) @ rot("Y", row[10]) @ rot("Z", row[11])
        hips = row[:3]  # position channels replace the root OFFSET
        chest = hips + r_root @ [0, 20, 0]
        chest_end = chest + r_root @ r_chest @ [0, 30, 0]
        leg = hips + r_root @ [10, -5, 0]
        leg_end = leg + r_root @ r_leg @ [0, -40, 0]
        expected = np.array([hips, chest, chest_end, leg, leg_end]) @ C.T * 0.01
        assert np.allclose(m.global_positions[t], expected, atol=1e-12)
    # Rest root position is the root OFFSET, rotated into our frame (z up).
    assert np.allclose(m.skeleton.offsets[0], [0.0, 0.0, 0.9])


def test_root_channels_in_any_order_and_partial_rotations() -> None:
    text = """HIERARCHY
ROOT r
{
  OFFSET 1 2 3
  CHANNELS 5 Yrotation Zposition Xrotation Xposition Yposition
  JOINT a
  {
    OFFSET 0 1 0
    CHANNELS 1 Zrotation
    End Site
    {
      OFFSET 1 0 0
    }
  }
}
MOTION
Frames: 1
Frame Time: 0.01
30 7 40 5 6
25
"""
    # One frame split over two lines: rejected; the single-line version below is read.
    with pytest.raises(FileFormatError, match=":19: frame has 5 values"):
        parse_bvh(text, up="z")
    m = parse_bvh(text.replace("30 7 40 5 6\n25", "30 7 40 5 6 25"), up="z")
    r_root = rot("Y", 30) @ rot("X", 40)
    root = np.array([5.0, 6.0, 7.0])
    a = root + r_root @ [0, 1, 0]
    a_end = a + r_root @ rot("Z", 25) @ [1, 0, 0]
    assert np.allclose(m.global_positions[0], [root, a, a_end], atol=1e-12)
    assert m.fps == 100.0


def test_constant_position_channels_on_joints_become_offsets() -> None:
    text = VALID.replace(
        "CHANNELS 3 Zrotation Xrotation Yrotation",
        "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation",
    )
    lines = text.splitlines()
    for k in (-3, -2, -1):
        values = lines[k].split()
        lines[k] = " ".join([*values[:6], "0", "25", "0", *values[6:]])
    m = parse_bvh("\n".join(lines), scale=0.01)
    assert np.allclose(m.skeleton.offsets[1], C @ [0, 0.25, 0])
    lines[-1] = lines[-1].replace(" 0 25 0 ", " 0 26 0 ", 1)
    with pytest.raises(FileFormatError, match="only the root may translate"):
        parse_bvh("\n".join(lines))


def test_end_site_names_are_unique_and_zero_end_sites_dropped() -> None:
    text = VALID.replace("JOINT leg", "JOINT chest_end").replace("OFFSET 0 30 0", "OFFSET 0 0 0")
    m = parse_bvh(text)
    assert m.skeleton.names == ("hips", "chest", "chest_end", "chest_end_end")
    text = VALID.replace("JOINT leg", "JOINT hips_end")
    assert "hips_end" in parse_bvh(text).skeleton.names
    both = VALID.replace(
        "OFFSET 0 30 0\n    }",
        "OFFSET 0 30 0\n    }\n    End Site\n    {\n      OFFSET 1 1 1\n    }",
    )
    assert parse_bvh(both).skeleton.names[1:4] == ("chest", "chest_end", "chest_end_2")


@pytest.mark.parametrize(
    ("token", "fps"),
    [("0.033333", 30.0), ("0.0083333", 120.0), ("0.04", 25.0), ("0.0334", 1 / 0.0334)],
)
def test_frame_rate(token: str, fps: float) -> None:
    assert parse_bvh(VALID.replace("0.033333", token)).fps == pytest.approx(fps, rel=1e-12)


# -- round trips ----------------------------------------------------------------------


@pytest.mark.parametrize("up", ["y", "z"])
@pytest.mark.parametrize("order", BVH_ROTATION_ORDERS)
def test_round_trip_keeps_positions(up: str, order: str) -> None:
    m = random_motion()
    text = format_bvh(m, up=up, rotation_order=order, precision=9, scale=0.01)
    assert f"CHANNELS 3 {' '.join(a + 'rotation' for a in order)}" in text
    back = parse_bvh(text, up=up, scale=0.01)
    assert back.skeleton.names == m.skeleton.names
    assert np.array_equal(back.skeleton.parents, m.skeleton.parents)
    assert np.allclose(back.skeleton.offsets, m.skeleton.offsets, atol=1e-10)
    assert back.fps == m.fps
    assert np.allclose(back.global_positions, m.global_positions, atol=1e-9)


def test_joints_out_of_depth_first_order_round_trip(tmp_path: Path) -> None:
    """A file lists joints depth first; a skeleton indexed otherwise keeps every position."""
    sk = Skeleton(
        names=("root", "left", "right", "left_tip"),
        parents=np.array([-1, 0, 0, 1]),
        offsets=np.array([[0.0, 0.0, 1.0], [0.0, 0.2, 0.0], [0.0, -0.2, 0.0], [0.3, 0.0, 0.0]]),
    )
    rng = np.random.default_rng(5)
    m = Motion(sk, 30.0, rng.normal(size=(6, 3)), rotvec_to_quat(rng.normal(size=(6, 4, 3))))
    write_bvh(m, tmp_path / "m.bvh", precision=9)
    back = read_bvh(tmp_path / "m.bvh")
    assert back.skeleton.names[:3] == ("root", "left", "left_tip")
    names = list(sk.names)
    assert np.allclose(by_name(back, names), by_name(m, names), atol=1e-8)


def test_up_option_is_a_proper_rotation() -> None:
    m = random_motion(3)
    y_up = format_bvh(m, up="y")
    # The standing humanoid's height is along the file's y axis.
    root_offset = [float(x) for x in re.search(r"OFFSET (.*)", y_up).group(1).split()]
    assert root_offset[1] == pytest.approx(m.skeleton.offsets[0, 2], abs=1e-6)
    as_z = parse_bvh(y_up, up="z")  # the y-up file taken literally
    assert np.allclose(as_z.global_positions, m.global_positions @ C, atol=1e-5)
    assert np.linalg.det(C) == pytest.approx(1.0)


def test_written_end_sites_and_leaves_read_back(tmp_path: Path) -> None:
    m = parse_bvh(VALID)
    path = tmp_path / "a.bvh"
    write_bvh(m, path)
    text = path.read_text()
    assert text.count("End Site") == 2
    assert "chest_end" not in text
    back = read_bvh(path)
    assert back.skeleton.names == m.skeleton.names
    assert np.allclose(back.global_positions, m.global_positions, atol=1e-5)


def test_write_is_atomic(tmp_path: Path) -> None:
    path = tmp_path / "m.bvh"
    path.write_text("old")
    bad = parse_bvh(VALID.replace("JOINT leg", "JOINT le{g"))
    with pytest.raises(InputError, match="braces"):
        write_bvh(bad, path)
    assert path.read_text() == "old"
    write_bvh(random_motion(2), path)
    assert path.read_text().startswith("HIERARCHY")
    assert [p.name for p in tmp_path.iterdir()] == ["m.bvh"]
    with pytest.raises(InputError, match="cannot write"):
        write_bvh(random_motion(2), tmp_path / "missing" / "m.bvh")


def test_10000_frames_round_trip() -> None:
    # Speed is measured by benchmarks/bvh.py; here the long file only has to come back whole.
    motion = random_motion(10_000)
    m = parse_bvh(format_bvh(motion, scale=0.01), scale=0.01)
    assert m.n_frames == 10_000
    np.testing.assert_allclose(m.global_positions, motion.global_positions, atol=1e-5)


# -- other readers ------------------------------------------------------------------


def positions_by_bvhio(path: Path, n_frames: int) -> tuple[list[str], np.ndarray]:
    bvhio = pytest.importorskip("bvhio")
    root = bvhio.readAsHierarchy(str(path))
    layout = root.layout()
    out = []
    for frame in range(n_frames):
        root.loadPose(frame)
        out.append([list(joint.PositionWorld) for joint, _, _ in layout])
    return [joint.Name for joint, _, _ in layout], np.array(out)


def positions_by_pybvh(path: Path) -> tuple[list[str], np.ndarray]:
    pybvh = pytest.importorskip("pybvh")
    bvh = pybvh.read_bvh_file(path, world_up="+y")
    return list(bvh.joint_names), bvh.joint_positions()


def check_other_readers(motion: Motion, path: Path, atol_bvhio: float) -> None:
    """bvhio and pybvh read the file (cm, y up) as the same joint positions as vhuman."""
    ours = read_bvh(path, scale=0.01)
    assert np.allclose(ours.global_positions, motion.global_positions, atol=1e-6)
    names, pos = positions_by_pybvh(path)
    assert np.allclose(pos @ C.T * 0.01, by_name(ours, names), atol=1e-6)
    names, pos = positions_by_bvhio(path, motion.n_frames)
    # bvhio computes in single precision (glm.vec3).
    assert np.allclose(pos @ C.T * 0.01, by_name(ours, names), atol=atol_bvhio)


def test_other_readers_agree_on_standard_humanoid(tmp_path: Path) -> None:
    m = random_motion(10)
    write_bvh(m, tmp_path / "h.bvh", scale=0.01)
    check_other_readers(m, tmp_path / "h.bvh", atol_bvhio=1e-6)


@pytest.mark.shared
def test_other_readers_agree_on_real_cmu_clip(shared_data: Path, tmp_path: Path) -> None:
    m = read_cmu(shared_data / "train" / "jumping" / "jumping_1.txt")[::25]
    write_bvh(m, tmp_path / "cmu.bvh", scale=0.01)
    check_other_readers(m, tmp_path / "cmu.bvh", atol_bvhio=2e-6)


# -- bad input ----------------------------------------------------------------------

FRAME_LINE = "1 90 2 10 20 30 5 6 7 -8 9 10"
BAD_CASES = {
    "truncated": (VALID[: VALID.index("  JOINT leg")], "file ends"),
    "truncated in frames": (VALID[:-20], "values but the hierarchy declares 12"),
    "missing MOTION": (VALID.split("MOTION")[0], "no MOTION"),
    "values per frame": (VALID.replace(FRAME_LINE, FRAME_LINE[:-3]), "11 values"),
    "frames count": (VALID.replace("Frames: 3", "Frames: 4"), "'Frames: 4' but 3"),
    "frames not a number": (VALID.replace("Frames: 3", "Frames: three"), "whole number"),
    "nan": (VALID.replace(" 20 30 ", " nan 30 ", 1), "NaN or infinite"),
    "inf": (VALID.replace(" 20 30 ", " -inf 30 ", 1), "NaN or infinite"),
    "non-numeric": (VALID.replace(" 20 30 ", " 2O 30 ", 1), "'2O' is not a number"),
    "non-numeric offset": (VALID.replace("OFFSET 0 90 0", "OFFSET 0 x 0"), "must be a number"),
    "infinite offset": (VALID.replace("OFFSET 0 90 0", "OFFSET 0 inf 0"), "must be finite"),
    "offset cut short": (
        VALID.replace("OFFSET 0 90 0", "OFFSET 0 90"),
        "OFFSET Z of joint 'hips' must be a number, got 'CHANNELS'",
    ),
    "fewer channel names": (
        VALID.replace("Xrotation Yrotation Zrotation", "Xrotation Yrotation"),
        "unknown channel 'End' in joint 'leg' (or fewer names",
    ),
    "unknown channel": (
        VALID.replace("Xrotation Yrotation Zrotation", "Xrotation Yrotation W"),
        "unknown channel 'W'",
    ),
    "repeated channel": (
        VALID.replace("Xrotation Yrotation Zrotation", "Xrotation Yrotation Xrotation"),
        "repeated",
    ),
    "channel count": (VALID.replace("CHANNELS 3 X", "CHANNELS 7 X"), "count from 0 to 6"),
    "zero frame time": (VALID.replace("0.033333", "0"), "Frame Time"),
    "negative frame time": (VALID.replace("0.033333", "-0.1"), "Frame Time"),
    "missing brace": (
        VALID.replace("    }\n  }\n  JOINT leg", "    }\n  JOINT leg"),
        "braces are unbalanced",
    ),
    "extra brace": (VALID.replace("}\nMOTION", "}\n}\nMOTION"), "unexpected '}'"),
    "duplicate name": (VALID.replace("JOINT leg", "JOINT chest"), "repeated"),
    "no offset": (VALID.replace("    OFFSET 10 -5 0\n", ""), "has no OFFSET"),
    "second root": (
        VALID.replace("}\nMOTION", "}\nROOT x\n{\nOFFSET 0 0 0\n}\nMOTION"),
        "second ROOT",
    ),
    "not hierarchy": ("HELLO\n" + VALID, "expected 'HIERARCHY'"),
    "empty": ("", "file ends"),
    "motion line": (VALID.replace("MOTION", "MOTION 3"), "only 'MOTION'"),
}


@pytest.mark.parametrize("case", sorted(BAD_CASES))
def test_bad_input_is_a_one_line_file_format_error(case: str) -> None:
    text, match = BAD_CASES[case]
    with pytest.raises(FileFormatError) as info:
        parse_bvh(text, source="bad.bvh")
    message = str(info.value)
    assert match in message
    assert message.startswith("bad.bvh")
    assert "\n" not in message


def test_bad_bytes_and_files(tmp_path: Path) -> None:
    with pytest.raises(FileFormatError, match="not UTF-8"):
        parse_bvh(b"HIERARCHY\n\xff\xfe", source="x.bvh")
    path = tmp_path / "x.bvh.gz"
    path.write_bytes(b"not gzip")
    with pytest.raises(FileFormatError, match="gzip"):
        read_bvh(path)
    with pytest.raises(InputError, match="cannot read"):
        read_bvh(tmp_path / "missing.bvh")
    with pytest.raises(InputError, match="up must be"):
        parse_bvh(VALID, up="x")
    with pytest.raises(InputError, match="scale"):
        parse_bvh(VALID, scale=0.0)
    with pytest.raises(InputError, match="rotation_order"):
        format_bvh(parse_bvh(VALID), rotation_order="ZXZ")
