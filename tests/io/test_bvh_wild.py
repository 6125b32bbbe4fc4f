"""BVH files from other projects (fixtures/wild, sources in its README) against pybvh and bvhio."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from vhuman.errors import FileFormatError, InputError
from vhuman.io import (
    BVH_UNITS,
    _decimal,
    format_bvh,
    guess_bvh_unit,
    parse_bvh,
    read_bvh,
    unit_for_size,
    write_bvh,
)
from vhuman.io._decimal import decode_lines, format_fixed

pybvh = pytest.importorskip("pybvh")
bvhio = pytest.importorskip("bvhio")

WILD = Path(__file__).parent / "fixtures" / "wild"
READABLE = sorted(p.name for p in WILD.glob("*.bvh") if p.name != "pybvh_stretch.bvh")
# Our frame from BVH's: x' = z, y' = x, z' = y.
C = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])


def bvhio_positions(path: Path) -> tuple[list[str], np.ndarray]:
    """Joint names and world positions ``(T, J, 3)`` (file axes and units) by bvhio."""
    root = bvhio.readAsHierarchy(str(path))
    layout = root.layout()
    frames = []
    for frame in range(len(layout[0][0].Keyframes)):
        root.loadPose(frame)
        frames.append([list(joint.PositionWorld) for joint, _, _ in layout])
    return [joint.Name for joint, _, _ in layout], np.array(frames)


def pybvh_positions(path: Path) -> tuple[list[str], np.ndarray] | None:
    """The same by pybvh, or None for files it refuses (position channels below the root)."""
    try:
        bvh = pybvh.read_bvh_file(path, world_up="+y")
    except ValueError:
        return None
    return list(bvh.joint_names), bvh.joint_positions()


def ours_in_file_axes(motion: object, names: list[str]) -> np.ndarray:
    """Our world positions of ``names`` turned back to the file's axes."""
    return motion.global_positions[:, motion.skeleton.indices(names)] @ C  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", READABLE)
def test_positions_agree_with_bvhio_and_pybvh(name: str) -> None:
    path = WILD / name
    motion = read_bvh(path)  # file units taken as metres: positions compare 1:1
    names, theirs = bvhio_positions(path)
    assert theirs.shape[0] == motion.n_frames
    # bvhio computes in single precision (glm).
    scale = max(1.0, float(np.abs(theirs).max()))
    assert np.allclose(ours_in_file_axes(motion, names), theirs, atol=2e-6 * scale)
    other = pybvh_positions(path)
    if other is not None:
        names, theirs = other
        assert np.allclose(ours_in_file_axes(motion, names), theirs, atol=1e-9 * scale)


@pytest.mark.parametrize("name", READABLE)
def test_round_trip_keeps_positions(name: str, tmp_path: Path) -> None:
    motion = read_bvh(WILD / name)
    write_bvh(motion, tmp_path / "back.bvh", precision=8)
    back = read_bvh(tmp_path / "back.bvh")
    assert back.skeleton.names == motion.skeleton.names
    assert np.allclose(back.global_positions, motion.global_positions, atol=1e-6)


def test_zero_offset_joints_load() -> None:
    """CMU (cgspeed) skeleton: hip, back, neck, shoulder, finger and thumb joints at offset 0."""
    motion = read_bvh(WILD / "cgspeed_cmu_zero_offsets.bvh")
    sk = motion.skeleton
    zero = [n for n, o in zip(sk.names, sk.offsets, strict=True) if not np.any(o)]
    assert {"LHipJoint", "LowerBack", "Neck", "LThumb", "RThumb"} <= set(zero)
    assert sk.names[sk.parents[sk.index("LThumb_end")]] == "LThumb"


def test_zero_end_sites_below_zero_joints_are_dropped_with_a_warning(tmp_path: Path) -> None:
    """Thumbs ending at their parent: the joints go (they move no point), the rest agrees."""
    text = (WILD / "cgspeed_cmu_zero_offsets.bvh").read_text()
    text = text.replace("OFFSET 0.59549 -0.00000 0.59549", "OFFSET 0.00000 0.00000 0.00000")
    text = text.replace("OFFSET -0.66793 -0.00000 0.66793", "OFFSET 0 0 0")
    path = tmp_path / "thumbs.bvh"
    path.write_text(text)
    with pytest.warns(UserWarning, match="'LThumb', 'RThumb' end at their parent"):
        motion = read_bvh(path)
    assert "LThumb" not in motion.skeleton.names
    names, theirs = bvhio_positions(path)
    keep = [i for i, n in enumerate(names) if n not in ("LThumb", "RThumb")]
    kept_names = [names[i] for i in keep]
    assert np.allclose(ours_in_file_axes(motion, kept_names), theirs[:, keep], atol=1e-5)
    write_bvh(motion, tmp_path / "back.bvh")
    back = read_bvh(tmp_path / "back.bvh")
    assert np.allclose(back.global_positions, motion.global_positions, atol=1e-5)


def test_six_channels_on_every_joint_become_offsets(tmp_path: Path) -> None:
    """Constant position channels (3ds Max / Truebones style) are the joints' offsets."""
    path = WILD / "pybvh_six_channels_every_joint.bvh"
    motion = read_bvh(path)
    assert np.allclose(motion.skeleton.offsets[motion.skeleton.index("LeftArm")], C @ [14, 0, 0])
    write_bvh(motion, tmp_path / "back.bvh")
    text = (tmp_path / "back.bvh").read_text()
    assert text.count("CHANNELS 6") == 1  # only the root keeps its translations
    back = read_bvh(tmp_path / "back.bvh")
    assert np.allclose(back.global_positions, motion.global_positions, atol=1e-6)


def test_varying_translations_below_the_root_are_refused_in_one_line() -> None:
    with pytest.raises(FileFormatError) as info:
        read_bvh(WILD / "pybvh_stretch.bvh")
    message = str(info.value)
    assert "\n" not in message
    assert "joint 'LeftShoulder' has position channels that change over time" in message
    assert message.startswith(str(WILD / "pybvh_stretch.bvh") + ":32:")


def test_a_bad_frame_is_reported_even_when_a_trailing_line_is_bad_too() -> None:
    text = (WILD / "pybvh_rotation_first_root.bvh").read_text()
    text = text.replace("6.000000 -2.000000", "6.000000 nan", 1) + "not a frame\n"
    with pytest.raises(FileFormatError, match=r"x\.bvh:34: frame contains NaN"):
        parse_bvh(text, source="x.bvh")


def test_trailing_lines_are_ignored_with_a_warning() -> None:
    text = (WILD / "pybvh_rotation_first_root.bvh").read_text()
    extra = text + "1 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n\nend of take\n"
    with pytest.warns(UserWarning, match="2 non-blank lines after the 4 declared frames"):
        motion = parse_bvh(extra, source="x.bvh")
    assert np.array_equal(motion.global_positions, parse_bvh(text).global_positions)


# -- units ------------------------------------------------------------------------


@pytest.mark.parametrize("unit", sorted(BVH_UNITS))
def test_unit_for_size_recovers_the_unit_of_a_human_body(unit: str) -> None:
    for height_m in (1.5, 1.7, 1.9):
        assert unit_for_size(height_m / BVH_UNITS[unit]) == unit
    assert unit_for_size(0.0) == "m"


def test_auto_unit_reads_a_centimetre_file_as_centimetres() -> None:
    path = WILD / "pybvh_mixed_channel_orders.bvh"
    assert guess_bvh_unit(path) == "cm"
    auto, cm = read_bvh(path, unit="auto"), read_bvh(path, unit="cm")
    assert np.array_equal(auto.global_positions, cm.global_positions)
    lo, hi = cm.extent()
    assert 1.0 < hi[2] - lo[2] < 2.2  # a human height in metres
    assert np.allclose(read_bvh(path, unit="mm").global_positions, cm.global_positions / 10)
    inch = read_bvh(path, unit="in").global_positions
    assert np.allclose(inch, cm.global_positions * 2.54)


def test_bad_unit_options() -> None:
    path = WILD / "bvhio_example.bvh"
    with pytest.raises(InputError, match="unit must be one of m, cm, mm, in or auto"):
        read_bvh(path, unit="ft")
    with pytest.raises(InputError, match="not both"):
        read_bvh(path, unit="cm", scale=0.01)
    with pytest.raises(InputError, match="'auto' is for reading"):
        format_bvh(read_bvh(path), unit="auto")


# -- the number codec ---------------------------------------------------------------


def random_tokens(rng: np.random.Generator, n: int) -> list[str]:
    """Numbers as files write them: fixed decimals, repr, exponents, signs, bare points."""
    out = []
    for _ in range(n):
        x = float(rng.normal() * 10.0 ** rng.integers(-4, 9))
        kind = rng.integers(0, 7)
        out.append(
            [
                f"{x:.{rng.integers(0, 18)}f}",
                repr(x),
                f"{x:e}",
                str(int(x)),
                f"{x:+.3f}",
                f".{rng.integers(0, 999)}",
                f"{x:.6f}",
            ][kind]
        )
    return out


@pytest.mark.parametrize("seed", range(3))
def test_decoded_numbers_equal_python_float_bit_for_bit(seed: int) -> None:
    tokens = random_tokens(np.random.default_rng(seed), 20_000)
    text = "\n".join(" \t".join(tokens[i : i + 7]) for i in range(0, len(tokens), 7))
    decoded = decode_lines(text.encode())
    expected = np.array([float(t) for t in tokens])
    assert decoded.bad_line == -1
    assert np.array_equal(decoded.values.view(np.uint64), expected.view(np.uint64))
    assert decoded.counts.tolist() == [len(tokens[i : i + 7]) for i in range(0, len(tokens), 7)]


@pytest.mark.parametrize("decimals", [0, 1, 4, 6, 8, 9, 15, 17])
def test_numbers_with_fixed_decimals_equal_python_float_bit_for_bit(decimals: int) -> None:
    rng = np.random.default_rng(decimals)
    tokens = [
        f"{x:.{decimals}f}" for x in rng.normal(size=5000) * 10.0 ** rng.integers(-3, 9, 5000)
    ]
    for text in (" ".join(tokens), " ".join(["+" + tokens[0].lstrip("-"), *tokens[1:], "7"])):
        decoded = decode_lines(text.encode())
        expected = np.array([float(t) for t in text.split()])
        assert decoded.bad_line == -1
        assert np.array_equal(decoded.values.view(np.uint64), expected.view(np.uint64))


@pytest.mark.parametrize("bad", ["-", "x", "1.2.3", "1-2", "!5", "+-5"])
def test_a_bad_last_token_is_reported_at_every_text_length(bad: str) -> None:
    # Long fractions read a second word past the point; the last token may end the text.
    for pad in range(8):
        text = " " * pad + "0.29938228177132753 -0.123456 " + bad
        decoded = decode_lines(text.encode())
        assert (decoded.bad_line, decoded.bad_token) == (0, bad)


@pytest.mark.parametrize(
    ("text", "line", "token"),
    [
        (b"1 2\n3 x 4", 1, "x"),
        (b"1.2.3", 0, "1.2.3"),
        (b"--5", 0, "--5"),
        (b"5-", 0, "5-"),
        (b"-", 0, "-"),
        (b".", 0, "."),
        (b"1_0", 0, "1_0"),
        (b"1e", 0, "1e"),
    ],
)
def test_text_that_is_no_number_is_reported_with_its_line(
    text: bytes, line: int, token: str
) -> None:
    decoded = decode_lines(text)
    assert (decoded.bad_line, decoded.bad_token) == (line, token)


@pytest.mark.parametrize("precision", [0, 1, 3, 6, 8, 9])
def test_formatted_rows_equal_printf(precision: int) -> None:
    rng = np.random.default_rng(precision)
    values = rng.normal(size=(300, 11)) * 10.0 ** rng.integers(-5, 8, size=(300, 11))
    values[0, :6] = [-0.0, 0.0, -1e-12, 0.125, 2.5, -9_999_999.4]
    for row in values:  # row by row, so one row's slow path does not hide another's
        expected = " ".join(f"{v:.{precision}f}" for v in row) + "\n"
        assert format_fixed(row[None], precision).decode() == expected


@pytest.mark.parametrize("precision", range(7))
def test_numbers_in_range_are_formatted_as_arrays_and_equal_printf(
    precision: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below 10⁷ and away from rounding ties, no number goes through Python's formatting."""
    rng = np.random.default_rng(precision)
    values = rng.uniform(-1.0, 1.0, size=(500, 13)) * 10.0 ** rng.integers(-9, 7, size=(500, 13))
    values[0, :4] = [-0.0, 0.0, -1e-12, 9_999_999.0]
    expected = "".join(" ".join(f"{v:.{precision}f}" for v in row) + "\n" for row in values)

    def python_formatting(*_: object) -> bytes:
        raise AssertionError("formatted by Python")

    monkeypatch.setattr(_decimal, "_format_rows", python_formatting)
    assert format_fixed(values, precision).decode() == expected


def test_written_files_read_back_by_the_peers(tmp_path: Path) -> None:
    motion = read_bvh(WILD / "cgspeed_cmu_zero_offsets.bvh", unit="in")
    write_bvh(motion, tmp_path / "w.bvh", unit="cm")
    text = (tmp_path / "w.bvh").read_text()
    assert re.search(r"Frames: 3\nFrame Time: ", text)
    names, theirs = bvhio_positions(tmp_path / "w.bvh")
    assert np.allclose(ours_in_file_axes(motion, names) * 100, theirs, atol=1e-4)


# -- chunks and threads ---------------------------------------------------------------


@pytest.fixture
def small_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Frames decoded in many chunks of a few lines, by two threads."""
    from vhuman.io import bvh

    monkeypatch.setattr(bvh, "_CHUNK_BYTES", 300)
    monkeypatch.setattr(bvh, "_MIN_CHUNK_BYTES", 300)
    monkeypatch.setattr(bvh, "_THREADED_BYTES", 0)
    monkeypatch.setattr(bvh, "_WORKERS", 2)


def long_text(n_frames: int = 200) -> str:
    """The cgspeed fixture with its 3 frames repeated, a blank line here and there."""
    text = (WILD / "cgspeed_cmu_zero_offsets.bvh").read_text()
    head, frames = text.split("Frame Time: 0.008333\n")
    rows = frames.splitlines()
    body = "\n".join(rows[i % 3] + ("\n" if i % 17 == 0 else "") for i in range(n_frames))
    return head.replace("Frames: 3", f"Frames: {n_frames}") + "Frame Time: 0.008333\n" + body


@pytest.mark.usefixtures("small_chunks")
def test_chunked_threaded_decoding_gives_the_same_motion() -> None:
    text = long_text()
    threaded = parse_bvh(text)
    from vhuman.io import bvh

    bvh._THREADED_BYTES = 1 << 60  # one thread, one chunk
    bvh._CHUNK_BYTES = bvh._MIN_CHUNK_BYTES = 1 << 20
    whole = parse_bvh(text)
    assert np.array_equal(threaded.local_rotations, whole.local_rotations)
    assert np.array_equal(threaded.root_positions, whole.root_positions)
    assert threaded.n_frames == 200


@pytest.mark.usefixtures("small_chunks")
@pytest.mark.parametrize(
    ("frame", "token", "match"),
    [
        (150, "x", "frame value 'x' is not a number"),
        (120, "nan", "frame contains NaN"),
        (180, None, "frame has 95 values"),
    ],
)
def test_errors_in_late_chunks_name_their_line(frame: int, token: str | None, match: str) -> None:
    lines = long_text().split("\n")
    first = next(i for i, line in enumerate(lines) if line.startswith("Frame Time")) + 1
    target = [i for i in range(first, len(lines)) if lines[i].strip()][frame]
    values = lines[target].split()
    if token is None:
        values.pop()
    else:
        values[1] = token
    lines[target] = " ".join(values)
    with pytest.raises(FileFormatError, match=match) as info:
        parse_bvh("\n".join(lines), source="late.bvh")
    assert str(info.value).startswith(f"late.bvh:{target + 1}:")
