"""BVH (Biovision Hierarchy) motion files: read any channel layout, write a standard one.

Conventions
-----------
- Axes: a BVH file is y up with the character facing +z and its left at +x.
  With ``up="y"`` (default) it is turned into vhuman's frame (z up, facing +x,
  left at +y) by the proper rotation ``x' = z, y' = x, z' = y`` applied to
  offsets, root positions and rotations (``R' = C R Cᵀ``); never by a mirror.
  ``up="z"`` means the file is already in vhuman's frame.
- Units: lengths in the file are multiplied by ``scale`` on reading and divided
  by it on writing (``scale=0.01`` for files in centimetres).
- Rotations: the rotation channels of a joint, in file order, are intrinsic
  Euler angles in degrees: ``Zrotation Xrotation Yrotation`` means
  ``R = Rz · Rx · Ry`` (scipy ``"ZXY"``). Any order, and fewer than three
  rotation channels, are read.
- Positions: a position channel *replaces* the OFFSET coordinate on its axis
  (the reading of Blender, bvhio and pybvh). For the root this gives the world
  root position ``Motion.root_positions``, while the root OFFSET is the rest
  root position ``Skeleton.offsets[0]``; the writer stores both that way, so
  readers that add the channels to the OFFSET and readers that replace it
  disagree only on files whose root OFFSET is not zero. On other joints,
  position channels are accepted only when they hold the same value in every
  frame (many exporters write the offset there); that value becomes the
  joint's offset. Varying ones are rejected: a Skeleton has fixed bone lengths.
- End Sites become leaf joints of type FIXED named ``f"{parent}_end"`` (then
  ``_end_2``, ... if taken), and are written back as End Sites. An End Site at
  zero offset carries no information and is dropped (a Skeleton forbids
  zero-length leaf bones); the writer adds one under every other leaf joint.
- Frame rate: ``fps = 1 / Frame Time``, rounded to the integer rate when the
  frame time as written is that rate's period rounded to its digits
  (``0.033333`` → 30 fps, ``0.0083333`` → 120 fps).
- Joint types, hinge axes, limits and segments have no place in BVH: joints
  read back as BALL (FIXED without rotation channels), without limits.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import FileFormatError, InputError
from vhuman.geometry.euler import euler_to_quat, quat_to_euler
from vhuman.io._axes import IDENTITY_AXES, Y_UP_AXES, AxisMap
from vhuman.io._common import PathLike, atomic_write, decode_text, read_bytes
from vhuman.skeleton.motion import Motion
from vhuman.skeleton.skeleton import JointType, Skeleton

__all__ = ["BVH_ROTATION_ORDERS", "format_bvh", "parse_bvh", "read_bvh", "write_bvh"]

BVH_ROTATION_ORDERS: tuple[str, ...] = ("XYZ", "XZY", "YXZ", "YZX", "ZXY", "ZYX")
"""Rotation channel orders the writer accepts (intrinsic, as in the file)."""

_CHANNELS: dict[str, tuple[str, int]] = {
    "xposition": ("position", 0),
    "yposition": ("position", 1),
    "zposition": ("position", 2),
    "xrotation": ("rotation", 0),
    "yrotation": ("rotation", 1),
    "zrotation": ("rotation", 2),
}
_ALLOWED_CHANNELS = "Xposition, Yposition, Zposition, Xrotation, Yrotation, Zrotation"
_JOINT_BODY = "OFFSET, CHANNELS, JOINT, End Site or '}'"
_AXES = "XYZ"
_MAX_CHANNELS = len(_CHANNELS)
_MAX_MESSAGE = 300


def _axes_for(up: str) -> AxisMap:
    if up == "y":
        return Y_UP_AXES
    if up == "z":
        return IDENTITY_AXES
    raise InputError(f"up must be 'y' (BVH convention) or 'z' (already vhuman's frame), got {up!r}")


def _check_scale(scale: float) -> float:
    try:
        s = float(scale)
    except (TypeError, ValueError):
        s = float("nan")
    if not (np.isfinite(s) and s > 0.0):
        raise InputError(f"scale must be a finite number > 0 (metres per file unit), got {scale}")
    return s


# -- reading ---------------------------------------------------------------------


@dataclass
class _Node:
    """One ROOT, JOINT or End Site of the hierarchy, in file units and axes."""

    name: str
    parent: int
    line: int
    end_site: bool = False
    offset: NDArray[np.float64] | None = None
    channels: list[tuple[str, int]] | None = None
    columns: list[int] = field(default_factory=list)


class _Tokens:
    """The hierarchy's whitespace-separated tokens with their line numbers."""

    def __init__(self, tokens: list[tuple[str, int]], source: str, last_line: int) -> None:
        self._tokens = tokens
        self._pos = 0
        self._source = source
        self._last_line = last_line

    def error(self, line: int | None, what: str) -> FileFormatError:
        where = f"{self._source}:{line}" if line else self._source
        if len(what) > _MAX_MESSAGE:  # a token can be a whole corrupted file
            what = what[: _MAX_MESSAGE - 3] + "..."
        return FileFormatError(f"{where}: {what}")

    def at_end(self) -> bool:
        return self._pos >= len(self._tokens)

    def next(self, expected: str) -> tuple[str, int]:
        if self.at_end():
            raise self.error(self._last_line, f"file ends where {expected} was expected")
        tok = self._tokens[self._pos]
        self._pos += 1
        return tok

    def expect(self, word: str, context: str) -> int:
        tok, line = self.next(f"{word!r} {context}")
        if tok != word:
            raise self.error(line, f"expected {word!r} {context}, got {tok!r}")
        return line

    def number(self, what: str) -> float:
        tok, line = self.next(what)
        try:
            value = float(tok)
        except ValueError:
            raise self.error(line, f"{what} must be a number, got {tok!r}") from None
        if not np.isfinite(value):
            raise self.error(line, f"{what} must be finite, got {tok!r}")
        return value

    def offset(self, owner: str) -> NDArray[np.float64]:
        return np.array([self.number(f"OFFSET {a} of {owner}") for a in _AXES])

    def channels(self, owner: str) -> list[tuple[str, int]]:
        tok, line = self.next(f"the channel count of {owner}")
        if not (tok.isdecimal() and len(tok) <= 2 and int(tok) <= _MAX_CHANNELS):
            raise self.error(
                line, f"CHANNELS of {owner} must start with a count from 0 to 6, got {tok!r}"
            )
        out: list[tuple[str, int]] = []
        for _ in range(int(tok)):
            name, line = self.next(f"a channel name of {owner}")
            key = name.lower()
            if key not in _CHANNELS:
                raise self.error(
                    line,
                    f"unknown channel {name!r} in {owner} (or fewer names than the CHANNELS "
                    f"count); allowed: {_ALLOWED_CHANNELS}",
                )
            if _CHANNELS[key] in out:
                raise self.error(line, f"channel {name!r} repeated in {owner}")
            out.append(_CHANNELS[key])
        return out


def _parse_hierarchy(tok: _Tokens) -> list[_Node]:
    """Joints and End Sites in file order (depth first), parents before children."""
    tok.expect("HIERARCHY", "at the start of a BVH file")
    tok.expect("ROOT", "after HIERARCHY")
    nodes: list[_Node] = []
    stack: list[int] = []

    def open_joint(parent: int) -> None:
        name, line = tok.next("a joint name")
        if name in ("{", "}"):
            raise tok.error(line, f"a joint name is missing before {name!r}")
        tok.expect("{", f"after joint name {name!r}")
        nodes.append(_Node(name, parent, line))
        stack.append(len(nodes) - 1)

    open_joint(-1)
    while stack:
        current = nodes[stack[-1]]
        owner = f"joint {current.name!r}"
        word, line = tok.next(
            f"'}}' closing {owner} (opened at line {current.line}); braces are unbalanced"
        )
        if word == "OFFSET":
            if current.offset is not None:
                raise tok.error(line, f"{owner} has a second OFFSET")
            current.offset = tok.offset(owner)
        elif word == "CHANNELS":
            if current.channels is not None:
                raise tok.error(line, f"{owner} has a second CHANNELS")
            current.channels = tok.channels(owner)
        elif word == "JOINT":
            open_joint(stack[-1])
        elif word == "End":
            tok.expect("Site", "after 'End'")
            tok.expect("{", "after 'End Site'")
            tok.expect("OFFSET", "in End Site")
            site = _Node(
                "", stack[-1], line, end_site=True, offset=tok.offset(f"End Site of {owner}")
            )
            tok.expect("}", "closing End Site")
            nodes.append(site)
        elif word == "}":
            if current.offset is None:
                raise tok.error(line, f"{owner} (line {current.line}) has no OFFSET")
            stack.pop()
        else:
            raise tok.error(line, f"unexpected {word!r} in {owner}; allowed: {_JOINT_BODY}")
    if not tok.at_end():
        word, line = tok.next("MOTION")
        if word == "ROOT":
            raise tok.error(line, "a second ROOT; a BVH file here holds one skeleton")
        raise tok.error(line, f"unexpected {word!r} after the hierarchy; expected MOTION")
    return nodes


def _name_end_sites(nodes: list[_Node], tok: _Tokens) -> list[_Node]:
    """Drop zero-offset End Sites, name the others, check joint names are unique."""
    seen: dict[str, int] = {}
    for node in nodes:
        if node.end_site:
            continue
        if node.name in seen:
            raise tok.error(
                node.line,
                f"joint name {node.name!r} repeated (first at line {seen[node.name]}); "
                "joint names must be unique",
            )
        seen[node.name] = node.line
    kept: list[_Node] = []
    new_index: dict[int, int] = {-1: -1}
    for i, node in enumerate(nodes):
        if node.end_site:
            if node.offset is None or not np.any(node.offset):
                continue
            base = f"{nodes[node.parent].name}_end"
            name, k = base, 1
            while name in seen:
                k += 1
                name = f"{base}_{k}"
            seen[name] = node.line
            node.name = name
        node.parent = new_index[node.parent]
        new_index[i] = len(kept)
        kept.append(node)
    return kept


_FRAMES = re.compile(r"Frames\s*:\s*(\S+)")
_FRAME_TIME = re.compile(r"Frame\s+Time\s*:\s*(\S+)")
_DECIMAL = re.compile(r"[+]?\d*\.(\d+)")


def _frame_rate(token: str, frame_time: float) -> float:
    """``1 / frame_time``, snapped to the integer rate whose period the token rounds."""
    fps = 1.0 / frame_time
    rate = round(fps)
    digits = _DECIMAL.fullmatch(token)
    if rate >= 1 and digits and round(1.0 / rate, len(digits.group(1))) == frame_time:
        return float(rate)
    return fps


def _header_value(
    lines: list[str], start: int, pattern: re.Pattern[str], what: str, source: str
) -> tuple[str, int]:
    """The value of the first non-blank line at or after ``start`` (0-based), and its index."""
    i = start
    while i < len(lines) and not lines[i].strip():
        i += 1
    if i == len(lines):
        raise FileFormatError(f"{source}:{len(lines)}: file ends before the {what!r} line")
    match = pattern.fullmatch(lines[i].strip())
    if not match:
        raise FileFormatError(
            f"{source}:{i + 1}: expected '{what}: <number>' after MOTION, "
            f"got {lines[i].strip()[:40]!r}"
        )
    return match.group(1), i


def _token_counts(block: str) -> NDArray[np.intp]:
    """Number of tokens on each line of ``block`` (bytes <= 32 separate tokens)."""
    b = np.frombuffer(block.encode("utf-8", "surrogatepass"), dtype=np.uint8)
    space = b <= 32
    starts = ~space
    starts[1:] &= space[:-1]
    token_pos = np.flatnonzero(starts)
    line_starts = np.concatenate([[0], np.flatnonzero(b == 10) + 1, [len(b) + 1]])
    first = np.searchsorted(token_pos, line_starts[:-1])
    last = np.searchsorted(token_pos, line_starts[1:])
    return last - first


def _parse_frames(
    lines: list[str], start: int, n_frames: int, n_channels: int, header_line: int, source: str
) -> NDArray[np.float64]:
    """Frame values ``(n_frames, n_channels)`` from ``lines[start:]`` (one frame a line)."""
    block = "\n".join(lines[start:])
    counts = _token_counts(block)
    frame_lines = np.flatnonzero(counts > 0)
    if len(frame_lines) != n_frames:
        raise FileFormatError(
            f"{source}:{header_line}: 'Frames: {n_frames}' but {len(frame_lines)} frame lines "
            "follow; the count must match the number of frame lines"
        )
    wrong = frame_lines[counts[frame_lines] != n_channels]
    if len(wrong):
        i = int(wrong[0])
        raise FileFormatError(
            f"{source}:{start + i + 1}: frame has {counts[i]} values but the hierarchy declares "
            f"{n_channels} channels; each frame line needs one value per channel"
        )
    try:
        values = np.fromstring(block, dtype=np.float64, sep=" ")
    except ValueError:
        values = None
    if values is None or values.size != n_frames * n_channels:
        for i in frame_lines:
            for token in lines[start + i].split():
                try:
                    float(token)
                except ValueError:
                    raise FileFormatError(
                        f"{source}:{start + i + 1}: frame value {token[:40]!r} is not a number"
                    ) from None
        raise FileFormatError(f"{source}: the frame values are not all plain numbers")
    values = values.reshape(n_frames, n_channels)
    bad = np.flatnonzero(~np.isfinite(values).all(axis=1))
    if len(bad):
        line = start + int(frame_lines[bad[0]]) + 1
        raise FileFormatError(f"{source}:{line}: frame contains NaN or infinite values")
    return values


def _rotations(nodes: list[_Node], values: NDArray[np.float64]) -> NDArray[np.float64]:
    """Local rotations ``(T, J, 4)`` in the file's axes from the rotation channels."""
    n_frames = values.shape[0]
    quats = np.zeros((n_frames, len(nodes), 4))
    quats[..., 0] = 1.0
    groups: dict[str, list[tuple[int, list[int]]]] = defaultdict(list)
    for j, node in enumerate(nodes):
        rot = [
            (axis, col)
            for (kind, axis), col in zip(node.channels or [], node.columns, strict=True)
            if kind == "rotation"
        ]
        if rot:
            order = "".join(_AXES[a] for a, _ in rot)
            groups[order].append((j, [c for _, c in rot]))
    for order, members in groups.items():
        joints = [j for j, _ in members]
        angles = values[:, np.array([cols for _, cols in members], dtype=np.intp)]  # (T, n, k)
        # Fewer than 3 rotation channels: pad with zero angles about the unused axes.
        full = order + "".join(a for a in _AXES if a not in order)
        pad = np.zeros((n_frames, len(joints), 3 - len(order)))
        quats[:, joints] = euler_to_quat(np.concatenate([angles, pad], axis=-1), full, degrees=True)
    return quats


def parse_bvh(
    data: str | bytes,
    *,
    up: str = "y",
    scale: float = 1.0,
    source: str = "<string>",
) -> Motion:
    """A `Motion` from the text of a BVH file.

    Parameters
    ----------
    data : str or bytes
        The file's content (bytes are decoded as UTF-8).
    up : {"y", "z"}
        ``"y"``: the file follows the BVH convention (y up, facing +z) and is
        rotated into vhuman's frame; ``"z"``: it is already in vhuman's frame.
    scale : float
        Metres per file length unit (0.01 for centimetres).
    source : str
        Name used in error messages (the file name).

    Returns
    -------
    Motion
        Joints in file order (depth first), End Sites as FIXED leaves named
        ``f"{parent}_end"``; root positions and offsets in metres.

    Raises
    ------
    FileFormatError
        For any malformed input; the one-line message names ``source``, the
        line when known, what is wrong and what is allowed.
    InputError
        For a bad ``up`` or ``scale``.

    Examples
    --------
    >>> text = '''HIERARCHY
    ... ROOT hips
    ... {
    ...   OFFSET 0 90 0
    ...   CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation
    ...   End Site
    ...   {
    ...     OFFSET 0 10 0
    ...   }
    ... }
    ... MOTION
    ... Frames: 1
    ... Frame Time: 0.033333
    ... 0 90 0 0 0 0
    ... '''
    >>> m = parse_bvh(text, scale=0.01)
    >>> m.skeleton.names, m.fps, m.global_positions[0, 1].round(3).tolist()
    (('hips', 'hips_end'), 30.0, [0.0, 0.0, 1.0])
    """
    axes = _axes_for(up)
    scale = _check_scale(scale)
    text = decode_text(data, source) if isinstance(data, bytes) else data
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    lines = text.split("\n")
    tokens: list[tuple[str, int]] = []
    motion_at = None
    for i, line in enumerate(lines):
        parts = line.split()
        if parts and parts[0] == "MOTION":
            motion_at = i
            break
        tokens.extend((p, i + 1) for p in parts)
    tok = _Tokens(tokens, source, len(lines) if motion_at is None else motion_at + 1)
    nodes = _name_end_sites(_parse_hierarchy(tok), tok)
    if motion_at is None:
        raise FileFormatError(f"{source}: no MOTION section after the hierarchy")
    if lines[motion_at].split() != ["MOTION"]:
        raise FileFormatError(f"{source}:{motion_at + 1}: the MOTION line must hold only 'MOTION'")

    column = 0
    for node in nodes:
        node.columns = list(range(column, column + len(node.channels or [])))
        column += len(node.columns)
    frames_token, i = _header_value(lines, motion_at + 1, _FRAMES, "Frames", source)
    if not (frames_token.isdecimal() and len(frames_token) <= 12):
        raise FileFormatError(
            f"{source}:{i + 1}: Frames must be a whole number from 0 to 10^12, "
            f"got {frames_token[:40]!r}"
        )
    n_frames, frames_line = int(frames_token), i + 1
    time_token, i = _header_value(lines, i + 1, _FRAME_TIME, "Frame Time", source)
    try:
        frame_time = float(time_token)
    except ValueError:
        frame_time = float("nan")
    if not (np.isfinite(frame_time) and frame_time > 0.0 and np.isfinite(1.0 / frame_time)):
        raise FileFormatError(
            f"{source}:{i + 1}: Frame Time must be a finite number of seconds > 0, "
            f"got {time_token[:40]!r}"
        )
    values = _parse_frames(lines, i + 1, n_frames, column, frames_line, source)
    return _to_motion(nodes, values, _frame_rate(time_token, frame_time), axes, scale, source)


def _to_motion(
    nodes: list[_Node],
    values: NDArray[np.float64],
    fps: float,
    axes: AxisMap,
    scale: float,
    source: str,
) -> Motion:
    """Assemble the Motion from the parsed hierarchy and frame values (file units)."""
    offsets = np.array([node.offset for node in nodes])
    root = np.tile(offsets[0], (values.shape[0], 1))
    for j, node in enumerate(nodes):
        pos = [
            (axis, col)
            for (kind, axis), col in zip(node.channels or [], node.columns, strict=True)
            if kind == "position"
        ]
        if not pos:
            continue
        axis_idx = [a for a, _ in pos]
        cols = values[:, [c for _, c in pos]]
        if j == 0:
            root[:, axis_idx] = cols
        elif len(cols):
            if np.ptp(cols, axis=0).max() > 1e-9 * max(1.0, float(np.abs(cols).max())):
                raise FileFormatError(
                    f"{source}:{node.line}: joint {node.name!r} has position channels that change "
                    "over time; only the root may translate (constant position channels on other "
                    "joints are read as their offset)"
                )
            offsets[j, axis_idx] = cols[0]
    types = tuple(
        JointType.FREE if j == 0
        else JointType.BALL if any(k == "rotation" for k, _ in node.channels or [])
        else JointType.FIXED
        for j, node in enumerate(nodes)
    )  # fmt: skip
    try:
        skeleton = Skeleton(
            names=tuple(node.name for node in nodes),
            parents=np.array([node.parent for node in nodes]),
            offsets=axes.vectors_to_ours(offsets) * scale,
            joint_types=types,
        )
        return Motion(
            skeleton,
            fps,
            axes.vectors_to_ours(root) * scale,
            axes.quats_to_ours(_rotations(nodes, values)),
        )
    except InputError as exc:
        raise FileFormatError(f"{source}: {exc}") from None


def read_bvh(path: PathLike, *, up: str = "y", scale: float = 1.0) -> Motion:
    """Read a BVH file (see the module notes for axes, units and End Sites).

    Parameters
    ----------
    path : str or Path
        The file; a name ending in ``.gz`` is decompressed.
    up : {"y", "z"}
        ``"y"``: BVH convention (y up, facing +z); ``"z"``: already vhuman's frame.
    scale : float
        Metres per file length unit (0.01 for centimetres).

    Returns
    -------
    Motion

    Raises
    ------
    FileFormatError
        For any malformed content (never another exception type for any bytes).
    InputError
        If the file cannot be read, or for a bad ``up`` or ``scale``.
    """
    source = str(path)
    return parse_bvh(read_bytes(path), up=up, scale=scale, source=source)


# -- writing ---------------------------------------------------------------------


def _end_site_mask(skeleton: Skeleton) -> NDArray[np.bool_]:
    """Joints written as End Sites: FIXED leaves named ``f"{parent}_end"`` (or ``_end_<k>``)."""
    has_child = np.zeros(skeleton.n_joints, dtype=bool)
    has_child[skeleton.parents[1:]] = True
    mask = np.zeros(skeleton.n_joints, dtype=bool)
    for j in range(1, skeleton.n_joints):
        parent = skeleton.names[skeleton.parents[j]]
        mask[j] = (
            not has_child[j]
            and skeleton.joint_types[j] is JointType.FIXED
            and re.fullmatch(re.escape(parent) + r"_end(_\d+)?", skeleton.names[j]) is not None
        )
    return mask


def format_bvh(
    motion: Motion,
    *,
    up: str = "y",
    rotation_order: str = "ZXY",
    precision: int = 6,
    scale: float = 1.0,
) -> str:
    """The text of a BVH file holding ``motion``.

    Joints are written depth first, children in index order (every skeleton
    built here is already in that order, so it reads back with the same
    indices). The root gets 6 channels (``Xposition Yposition Zposition``,
    then rotations), other joints 3 rotation channels, all in
    ``rotation_order``. The root OFFSET is the rest root position
    ``skeleton.offsets[0]`` and the root position channels the world position.

    Parameters
    ----------
    motion : Motion
    up : {"y", "z"}
        ``"y"``: write the BVH convention (y up, facing +z); ``"z"``: vhuman's frame.
    rotation_order : str
        One of :data:`BVH_ROTATION_ORDERS`, e.g. ``"ZXY"`` for channels
        ``Zrotation Xrotation Yrotation`` (``R = Rz · Rx · Ry``).
    precision : int
        Digits after the decimal point of offsets, positions and angles (degrees).
    scale : float
        Metres per file length unit; lengths are divided by it (0.01 writes centimetres).

    Raises
    ------
    InputError
        For a bad option, or a joint name BVH cannot hold (with whitespace or braces).
    """
    axes = _axes_for(up)
    scale = _check_scale(scale)
    if rotation_order not in BVH_ROTATION_ORDERS:
        raise InputError(
            f"rotation_order must be one of {', '.join(BVH_ROTATION_ORDERS)}, "
            f"got {rotation_order!r}"
        )
    if not (isinstance(precision, int) and 0 <= precision <= 17):
        raise InputError(f"precision must be an integer from 0 to 17, got {precision!r}")
    sk = motion.skeleton
    for name in sk.names:
        if re.search(r"[\s{}]", name):
            raise InputError(f"joint name {name!r} has whitespace or braces, which BVH cannot hold")
    end_site = _end_site_mask(sk)
    children: list[list[int]] = [[] for _ in range(sk.n_joints)]
    for j in range(1, sk.n_joints):
        children[sk.parents[j]].append(j)
    offsets = axes.vectors_from_ours(sk.offsets) / scale
    num = f"{{:.{precision}f}}"
    rot_channels = " ".join(f"{a}rotation" for a in rotation_order)

    def vec(v: NDArray[np.float64]) -> str:
        return " ".join(num.format(x) for x in v)

    out = ["HIERARCHY"]
    written: list[int] = []  # joints with channels, in file order
    stack: list[tuple[int, int, bool]] = [(0, 0, False)]  # (joint, depth, closing)
    while stack:
        j, depth, closing = stack.pop()
        pad = "  " * depth
        if closing:
            out.append(f"{pad}}}")
            continue
        if end_site[j]:
            out += [f"{pad}End Site", f"{pad}{{", f"{pad}  OFFSET {vec(offsets[j])}", f"{pad}}}"]
            continue
        written.append(j)
        channels = (
            f"6 Xposition Yposition Zposition {rot_channels}" if j == 0 else f"3 {rot_channels}"
        )
        out += [
            f"{pad}{'ROOT' if j == 0 else 'JOINT'} {sk.names[j]}",
            f"{pad}{{",
            f"{pad}  OFFSET {vec(offsets[j])}",
            f"{pad}  CHANNELS {channels}",
        ]
        if not children[j]:
            out += [f"{pad}  End Site", f"{pad}  {{", f"{pad}    OFFSET {vec(np.zeros(3))}",
                    f"{pad}  }}"]  # fmt: skip
        stack.append((j, depth, True))
        stack.extend((c, depth + 1, False) for c in reversed(children[j]))

    q_file = axes.quats_from_ours(motion.local_rotations[:, written])
    euler = quat_to_euler(q_file, rotation_order, degrees=True)  # (T, K, 3)
    root = axes.vectors_from_ours(motion.root_positions) / scale
    values = np.concatenate([root, euler.reshape(motion.n_frames, 3 * len(written))], axis=1)
    row = " ".join([f"%.{precision}f"] * values.shape[1])
    out += ["MOTION", f"Frames: {motion.n_frames}", f"Frame Time: {1.0 / motion.fps!r}"]
    out += [row % tuple(r) for r in values.tolist()]
    return "\n".join(out) + "\n"


def write_bvh(
    motion: Motion,
    path: PathLike,
    *,
    up: str = "y",
    rotation_order: str = "ZXY",
    precision: int = 6,
    scale: float = 1.0,
) -> None:
    """Write ``motion`` as a BVH file, atomically (see :func:`format_bvh` for the options).

    Raises
    ------
    InputError
        For a bad option or joint name, or if the file cannot be written.
    """
    text = format_bvh(motion, up=up, rotation_order=rotation_order, precision=precision,
                      scale=scale)  # fmt: skip
    atomic_write(path, text)
