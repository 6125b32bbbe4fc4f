"""BVH (Biovision Hierarchy) motion files: read any channel layout, write a standard one.

Conventions
-----------
- Axes: a BVH file is y up with the character facing +z and its left at +x.
  With ``up="y"`` (default) it is turned into vhuman's frame (z up, facing +x,
  left at +y) by the proper rotation ``x' = z, y' = x, z' = y`` applied to
  offsets, root positions and rotations (``R' = C R Cᵀ``); never by a mirror.
  ``up="z"`` means the file is already in vhuman's frame.
- Units: ``unit`` is the file's length unit, one of :data:`BVH_UNITS` (m, cm,
  mm, in; default m), or ``scale`` its size in metres. On reading,
  ``unit="auto"`` takes the unit that makes the rest pose's largest extent
  closest to a 1.7 m body (:func:`unit_for_size`; :func:`guess_bvh_unit` tells
  which it took). That suits human bodies in the four units; a creature far
  from human size, or a file in another unit (the CMU database's BVH
  conversion uses about 5.6 cm per unit), needs ``unit`` or ``scale``.
- Rotations: the rotation channels of a joint, in file order, are intrinsic
  Euler angles in degrees: ``Zrotation Xrotation Yrotation`` means
  ``R = Rz · Rx · Ry`` (scipy ``"ZXY"``). Any order, and fewer than three
  rotation channels, are read.
- Positions: a position channel *replaces* the OFFSET coordinate on its axis
  (the reading of Blender, bvhio and pybvh). For the root this gives the world
  root position ``Motion.root_positions``, while the root OFFSET is the rest
  root position ``Skeleton.offsets[0]``; the writer stores both that way, so
  readers that add the channels to the OFFSET and readers that replace it
  disagree only on files whose root OFFSET is not zero. On other joints
  (exporters such as 3ds Max Biped write 6 channels on every joint) position
  channels must hold one value over the frames, to within 1e-5 of the rest
  pose's size (exporter round-off); the first frame's value becomes the
  joint's offset, so writing back (3 rotation channels below the root) keeps
  every joint position. Channels that move (bone stretch) are refused: a
  Skeleton has fixed bone lengths.
- End Sites become leaf joints of type FIXED named ``f"{parent}_end"`` (then
  ``_end_2``, ... if taken), and are written back as End Sites; the writer adds
  one at zero offset under every other leaf joint. An End Site at zero offset
  carries no information and is dropped. A joint left without children and at
  zero offset (CMU thumbs in some conversions) ends at its parent: its rotation
  moves no point and a Skeleton has no zero-length leaf bones, so it is dropped
  too, with a warning. Zero offsets elsewhere are kept.
- Frames: exactly ``Frames`` non-blank lines of one number per channel; blank
  lines are skipped and lines after the declared frames are ignored with a
  warning (as bvhio reads them).
- Frame rate: ``fps = 1 / Frame Time``, rounded to the integer rate when the
  frame time as written is that rate's period rounded to its digits
  (``0.033333`` → 30 fps, ``0.0083333`` → 120 fps).
- Joint types, hinge axes, limits and segments have no place in BVH: joints
  read back as BALL (FIXED without rotation channels), without limits.

Speed
-----
The hierarchy is parsed token by token (it is small; an OFFSET or CHANNELS
record at once when it is well formed); the frames are decoded a chunk of
lines at a time (a sixth of the text, from 32 KB to 256 KB, so that a chunk's
temporaries stay near the decoded array's size; shared by a few threads on
files over 16 MB of frames), as whole arrays: numbers by SWAR arithmetic on
8-byte words (:mod:`vhuman.io._decimal`), Euler angles to quaternions in one
expression over all joints and frames (half-angle sines and cosines from one
tangent, the angles of each axis contiguous). Writing runs the same way
backwards, a chunk of frames at a time: Euler angles straight into the array
that is formatted, numbers turned to digits 8 at a time and packed by
whole-word stores, the text streamed to the file. Memory stays near the file's
bytes plus the quaternions. Files are written atomically and durably
(temporary file, fsync, rename; :func:`vhuman.io.filesystem.atomic_path`).
"""

from __future__ import annotations

import enum
import itertools
import math
import mmap
import os
import re
import warnings
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import FileFormatError, InputError
from vhuman.io._axes import IDENTITY_AXES, Y_UP_AXES, AxisMap
from vhuman.io._decimal import DecodedLines, decode_lines, format_fixed
from vhuman.io.filesystem import PathLike, atomic_path, atomic_write, decode_text, read_bytes
from vhuman.skeleton.motion import Motion
from vhuman.skeleton.skeleton import JointType, Skeleton

__all__ = [
    "BVH_ROTATION_ORDERS",
    "BVH_UNITS",
    "LengthUnit",
    "UpAxis",
    "format_bvh",
    "guess_bvh_unit",
    "parse_bvh",
    "read_bvh",
    "unit_for_size",
    "write_bvh",
]

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
_COUNTS = {str(n): n for n in range(_MAX_CHANNELS + 1)}
_ORDERS = {
    axes: "".join(_AXES[a] for a in axes) + "".join(a for i, a in enumerate(_AXES) if i not in axes)
    for axes in itertools.chain.from_iterable(
        itertools.permutations(range(3), n) for n in (1, 2, 3)
    )
}
"""Rotation order of the rotation channels' axes (file order); with fewer than 3 channels the
unused axes come last, at angle 0."""
_MAX_MESSAGE = 300


class UpAxis(enum.StrEnum):
    """Which axis of a BVH file points up."""

    Y = "y"
    """The BVH convention (y up, facing +z), turned into vhuman's frame."""
    Z = "z"
    """Already vhuman's frame (z up, facing +x)."""


class LengthUnit(enum.StrEnum):
    """The length unit of a BVH file."""

    M = "m"
    CM = "cm"
    MM = "mm"
    IN = "in"
    AUTO = "auto"
    """For reading: the unit that makes the rest pose's largest extent closest to 1.7 m."""


BVH_UNITS: dict[LengthUnit, float] = {
    LengthUnit.M: 1.0,
    LengthUnit.CM: 0.01,
    LengthUnit.MM: 0.001,
    LengthUnit.IN: 0.0254,
}
"""Length units a BVH file may be read in, as metres per unit."""
_TYPICAL_HEIGHT_M = 1.7
_CONSTANT_TOLERANCE = 1e-5
"""Spread allowed in a non-root position channel, times the rest pose's size (exporter noise)."""


def _axes_for(up: UpAxis | str) -> AxisMap:
    if up == UpAxis.Y:
        return Y_UP_AXES
    if up == UpAxis.Z:
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
    offset: tuple[float, float, float] | None = None
    channels: list[tuple[str, int]] | None = None
    columns: list[int] = field(default_factory=list)


class _Tokens:
    """The hierarchy's whitespace-separated tokens with their line numbers.

    What was expected is given as text or, on the hot path, as a function that
    builds the text: the message is made only when the file ends early.
    """

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

    def next(self, expected: str | Callable[[], str]) -> tuple[str, int]:
        try:
            tok = self._tokens[self._pos]
        except IndexError:
            what = expected if isinstance(expected, str) else expected()
            raise self.error(self._last_line, f"file ends where {what} was expected") from None
        self._pos += 1
        return tok

    def expect(self, word: str, context: str) -> int:
        tok, line = self.next(lambda: f"{word!r} {context}")
        if tok != word:
            raise self.error(line, f"expected {word!r} {context}, got {tok!r}")
        return line

    def number(self, what: Callable[[], str]) -> float:
        tok, line = self.next(what)
        try:
            value = float(tok)
        except ValueError:
            raise self.error(line, f"{what()} must be a number, got {tok!r}") from None
        if not math.isfinite(value):
            raise self.error(line, f"{what()} must be finite, got {tok!r}")
        return value

    def offset(self, owner: str) -> tuple[float, float, float]:
        try:  # three finite numbers, as nearly always; else token by token, for the message
            (x, _), (y, _), (z, _) = self._tokens[self._pos : self._pos + 3]
            xyz = float(x), float(y), float(z)
        except ValueError:
            pass
        else:
            if math.isfinite(sum(xyz)):
                self._pos += 3
                return xyz
        x, y, z = (self.number(lambda a=a: f"OFFSET {a} of {owner}") for a in _AXES)
        return x, y, z

    def channels(self, owner: str) -> list[tuple[str, int]]:
        count = self._tokens[self._pos][0] if self._pos < len(self._tokens) else ""
        if count in _COUNTS:  # known, distinct names; else name by name, for the message
            n = _COUNTS[count]
            fast: list[tuple[str, int]] = []
            for name, _ in self._tokens[self._pos + 1 : self._pos + 1 + n]:
                channel = _CHANNELS.get(name.lower())
                if channel is None or channel in fast:
                    break
                fast.append(channel)
            if len(fast) == n:
                self._pos += 1 + n
                return fast
        tok, line = self.next(lambda: f"the channel count of {owner}")
        if not (tok.isdecimal() and len(tok) <= 2 and int(tok) <= _MAX_CHANNELS):
            raise self.error(
                line, f"CHANNELS of {owner} must start with a count from 0 to 6, got {tok!r}"
            )
        out: list[tuple[str, int]] = []
        for _ in range(int(tok)):
            name, line = self.next(lambda: f"a channel name of {owner}")
            channel = _CHANNELS.get(name.lower())
            if channel is None:
                raise self.error(
                    line,
                    f"unknown channel {name!r} in {owner} (or fewer names than the CHANNELS "
                    f"count); allowed: {_ALLOWED_CHANNELS}",
                )
            if channel in out:
                raise self.error(line, f"channel {name!r} repeated in {owner}")
            out.append(channel)
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
            lambda c=current: (
                f"'}}' closing joint {c.name!r} (opened at line {c.line}); braces are unbalanced"
            )
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
            if node.offset is None or not any(node.offset):
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


def _prune_zero_leaves(nodes: list[_Node]) -> tuple[list[_Node], list[str]]:
    """Drop joints that end at their parent (zero OFFSET, no position channels, no children).

    A Skeleton has no zero-length leaf bones, and the rotation of such a joint
    moves no point; repeated, so a chain of them goes. Returns the kept nodes
    (parents re-indexed) and the dropped joint names.
    """
    n_children = np.zeros(len(nodes), dtype=int)
    for node in nodes[1:]:
        n_children[node.parent] += 1
    dropped = np.zeros(len(nodes), dtype=bool)
    for j in range(len(nodes) - 1, 0, -1):  # children come after their parents
        node = nodes[j]
        moves = any(kind == "position" for kind, _ in node.channels or [])
        if n_children[j] == 0 and not moves and not any(node.offset):
            dropped[j] = True
            n_children[node.parent] -= 1
    if not dropped.any():
        return nodes, []
    new_index = np.cumsum(~dropped) - 1
    kept = []
    for j, node in enumerate(nodes):
        if not dropped[j]:
            node.parent = -1 if node.parent < 0 else int(new_index[node.parent])
            kept.append(node)
    return kept, [node.name for j, node in enumerate(nodes) if dropped[j]]


_Bytes = bytes | mmap.mmap
"""A file's content: bytes, or the file mapped into memory."""
_MOTION_LINE = re.compile(rb"^[ \t\f\v]*MOTION(?=[ \t\f\v\r\n]|$)", re.MULTILINE)
_FRAMES = re.compile(r"Frames\s*:\s*(\S+)")
_FRAME_TIME = re.compile(r"Frame\s+Time\s*:\s*(\S+)")
_DECIMAL = re.compile(r"[+]?\d*\.(\d+)")
_CHUNK_BYTES = 1 << 18
"""Most frame text decoded at a time (whole lines): bounds the temporaries."""
_MIN_CHUNK_BYTES = 1 << 15
_THREADED_BYTES = 1 << 24
"""Frame text from which threads share the decoding (below, starting them costs more)."""
_MIN_CHUNKS = 6
"""Chunks that one thread cuts the frame text into (within the chunk size bounds): a chunk's
temporaries (about 6 bytes per byte of text) stay near the size of the decoded array, and
chunks as large as that take the fewest numpy calls."""
_WRITE_CHUNK_VALUES = 1 << 13
"""Numbers converted and formatted at a time when writing."""
_WORKERS = min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1)


def _frame_rate(token: str, frame_time: float) -> float:
    """``1 / frame_time``, snapped to the integer rate whose period the token rounds."""
    fps = 1.0 / frame_time
    rate = round(fps)
    digits = _DECIMAL.fullmatch(token)
    if rate >= 1 and digits and round(1.0 / rate, len(digits.group(1))) == frame_time:
        return float(rate)
    return fps


class _Lines:
    """Lines of the MOTION header, read one at a time from the raw bytes."""

    def __init__(self, data: _Bytes, pos: int, line: int, source: str) -> None:
        self.data, self.pos, self.line, self.source = data, pos, line, source

    def value(self, pattern: re.Pattern[str], what: str) -> tuple[str, int]:
        """The value on the next non-blank line and that line's number (1-based)."""
        while self.pos < len(self.data):
            end = self.data.find(b"\n", self.pos)
            end = len(self.data) if end < 0 else end
            text = decode_text(self.data[self.pos : end], self.source).strip()
            self.pos, self.line = end + 1, self.line + 1
            if not text:
                continue
            match = pattern.fullmatch(text)
            if not match:
                raise FileFormatError(
                    f"{self.source}:{self.line}: expected '{what}: <number>' after MOTION, "
                    f"got {text[:40]!r}"
                )
            return match.group(1), self.line
        raise FileFormatError(f"{self.source}:{self.line}: file ends before the {what!r} line")


@dataclass(frozen=True)
class _Layout:
    """Where each joint's channels sit in a frame line."""

    n_channels: int
    root_axes: list[int]
    root_columns: list[int]
    fixed: list[tuple[int, int, int]]  # (joint, axis, column) of non-root position channels
    rotations: dict[str, tuple[list[int], NDArray[np.intp]]]  # order -> (joints, columns (3, J))
    fixed_columns: list[int]  # columns of the non-root position channels
    needs_zero: bool  # a joint has fewer than 3 rotation channels (columns past the end)

    @classmethod
    def of(cls, nodes: list[_Node], n_channels: int) -> _Layout:
        root_axes: list[int] = []
        root_columns: list[int] = []
        fixed: list[tuple[int, int, int]] = []
        groups: dict[str, tuple[list[int], list[list[int]]]] = {}
        for j, node in enumerate(nodes):
            rot = []
            for (kind, axis), col in zip(node.channels or [], node.columns, strict=True):
                if kind == "rotation":
                    rot.append((axis, col))
                elif j == 0:
                    root_axes.append(axis)
                    root_columns.append(col)
                else:
                    fixed.append((j, axis, col))
            if rot:
                order = _ORDERS[tuple(a for a, _ in rot)]
                members = groups.setdefault(order, ([], []))
                members[0].append(j)
                members[1].append([c for _, c in rot] + [n_channels] * (3 - len(rot)))
        if len(groups) == 1:  # one order for all: joints without rotations get zero angles
            ((order, (joints, cols)),) = groups.items()
            every = [[n_channels] * 3 for _ in nodes]
            for j, c in zip(joints, cols, strict=True):
                every[j] = c
            groups = {order: (list(range(len(nodes))), every)}
        rotations = {
            o: (js, np.array(cs, dtype=np.intp).T.copy()) for o, (js, cs) in groups.items()
        }
        return cls(
            n_channels,
            root_axes,
            root_columns,
            fixed,
            rotations,
            [col for _, _, col in fixed],
            any(bool((cols == n_channels).any()) for _, cols in rotations.values()),
        )


def _euler_quats(
    angles: NDArray[np.float64], order: str, axes: AxisMap, out: NDArray[np.float64] | None = None
) -> NDArray[np.float64]:
    """Quaternions ``(k, J, 4)`` of intrinsic Euler angles ``(k, 3, J)`` [deg], in our axes.

    ``angles`` is overwritten. ``R = R_A(a) R_B(b) R_C(c)`` for ``order = "ABC"``
    (three distinct axes), expanded once: with ``s = +1`` when ABC is a cyclic
    order of XYZ, else -1, and half angles, ``w = ca cb cc - s sa sb sc``,
    ``q_A = sa cb cc + s ca sb sc``, ``q_B = ca sb cc - s sa cb sc``,
    ``q_C = ca cb sc + s sa sb cc``. The file's vector components are then moved
    to our axes (``C R Cᵀ``). Sines and cosines of the half angles come from the
    tangent of the quarter angles ``t``: ``k = 2 / (1 + t²)``, ``sin = t k``,
    ``cos = k - 1`` (numpy evaluates ``tan`` with SIMD and ``sin``, ``cos`` one
    value at a time). The angles of one axis lie together (``(k, 3, J)``), so
    every product runs over contiguous memory.
    """
    t = np.multiply(angles, np.pi / 720.0, out=angles)
    np.tan(t, out=t)
    c = t * t
    c += 1.0
    np.divide(2.0, c, out=c)
    s = np.multiply(t, c, out=t)
    c -= 1.0
    ca, cb, cc = c[:, 0], c[:, 1], c[:, 2]
    sa, sb, sc = s[:, 0], s[:, 1], s[:, 2]
    add, sub = (np.add, np.subtract) if order in ("XYZ", "YZX", "ZXY") else (np.subtract, np.add)
    cbcc, sbsc, sbcc, cbsc = cb * cc, sb * sc, sb * cc, cb * sc
    terms = {  # each component as (x1 y1) ± (x2 y2)
        order[0]: (sa, cbcc, ca, sbsc, add),
        order[1]: (ca, sbcc, sa, cbsc, sub),
        order[2]: (ca, cbsc, sa, sbcc, add),
    }
    if out is None:
        out = np.empty((len(angles), angles.shape[2], 4))
    sub(ca * cbcc, sa * sbsc, out=out[..., 0])
    for ours, (file_axis, flip) in enumerate(zip(axes.index, axes.sign, strict=True)):
        x1, y1, x2, y2, combine = terms[_AXES[file_axis]]
        component = out[..., 1 + ours]
        combine(x1 * y1, x2 * y2, out=component)
        if flip < 0.0:
            np.negative(component, out=component)
    return out


_Frames = tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]
"""Of k frames: root position channels (k, n), other joints' position channels (k, m), local
rotations (k, J, 4) in our axes."""


@dataclass(frozen=True)
class _Chunk:
    """Decoded numbers of a run of whole lines, converted when every non-blank line is a frame."""

    lines: DecodedLines
    filled: NDArray[np.intp]  # indices of the non-blank lines
    frames: _Frames | None = None  # those lines converted


def _convert(
    values: NDArray[np.float64],
    layout: _Layout,
    axes: AxisMap,
    n_joints: int,
    out: NDArray[np.float64] | None = None,
) -> _Frames:
    """Root position channels, other position channels and local rotations of frames ``(k, C)``.

    The rotations are written into ``out`` ``(k, J, 4)`` when given.
    """
    k = len(values)
    padded = np.concatenate([values, np.zeros((k, 1))], axis=1) if layout.needs_zero else values
    if len(layout.rotations) == 1:
        ((order, (_, cols)),) = layout.rotations.items()
        rotations = _euler_quats(padded[:, cols], order, axes, out=out)
    else:
        rotations = np.empty((k, n_joints, 4)) if out is None else out
        rotations[:] = (1.0, 0.0, 0.0, 0.0)
        for order, (joints, cols) in layout.rotations.items():
            rotations[:, joints] = _euler_quats(padded[:, cols], order, axes)
    return values[:, layout.root_columns], values[:, layout.fixed_columns], rotations


def _decode_chunk(text: memoryview, layout: _Layout, axes: AxisMap, n_joints: int) -> _Chunk:
    """Decode lines; convert them too when each non-blank one holds a full frame of numbers."""
    lines = decode_lines(text)
    filled = np.flatnonzero(lines.counts)
    if (
        lines.bad_line >= 0
        or lines.nonfinite_line >= 0
        or not (lines.counts[filled] == layout.n_channels).all()
    ):
        return _Chunk(lines, filled)
    values = lines.values.reshape(len(filled), layout.n_channels)
    return _Chunk(lines, filled, _convert(values, layout, axes, n_joints))


def _threaded(size: int) -> bool:
    """Whether threads share the decoding of ``size`` bytes of frame text."""
    return size >= _THREADED_BYTES and _WORKERS >= 2


def _chunk_bounds(data: _Bytes, start: int) -> list[tuple[int, int]]:
    """Byte ranges of whole lines, about the size that keeps every core busy and caches warm."""
    size = len(data) - start
    parts = 4 * _WORKERS if _threaded(size) else _MIN_CHUNKS
    step = int(np.clip(size // parts, _MIN_CHUNK_BYTES, _CHUNK_BYTES))
    bounds, pos = [], start
    while pos < len(data):
        cut = data.find(b"\n", pos + step)
        end = len(data) if cut < 0 else cut + 1
        bounds.append((pos, end))
        pos = end
    return bounds


def _chunks(
    data: _Bytes, start: int, layout: _Layout, axes: AxisMap, n_joints: int
) -> Iterator[_Chunk]:
    """Decoded chunks in file order; decoded by a few threads (numpy releases the GIL)."""
    view = memoryview(data)
    bounds = _chunk_bounds(data, start)
    if not _threaded(len(data) - start):
        for a, b in bounds:
            lines = decode_lines(view[a:b])  # converted by the caller, into its array
            yield _Chunk(lines, np.flatnonzero(lines.counts))
        return
    pool = ThreadPoolExecutor(_WORKERS)
    pending: deque[Future[_Chunk]] = deque()
    try:
        for a, b in bounds:
            pending.append(pool.submit(_decode_chunk, view[a:b], layout, axes, n_joints))
            if len(pending) > _WORKERS:
                yield pending.popleft().result()
        while pending:
            yield pending.popleft().result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _count_frame_lines(data: _Bytes, start: int) -> int:
    """Non-blank lines from ``start`` on (for the message of a frame count that does not match)."""
    return sum(1 for line in data[start:].split(b"\n") if line.strip())


def _read_frames(
    data: _Bytes,
    start: int,
    first_line: int,
    n_frames: int,
    frames_line: int,
    layout: _Layout,
    offsets: NDArray[np.float64],
    size: float,
    nodes: list[_Node],
    axes: AxisMap,
    source: str,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Root positions ``(T, 3)`` (file axes) and local rotations ``(T, J, 4)`` (our axes).

    Frames are the first ``n_frames`` non-blank lines from byte ``start`` (line
    ``first_line``); later non-blank lines are ignored with a warning (as bvhio
    reads such files). Constant position channels of non-root joints are
    written into ``offsets``.
    """
    n_channels = layout.n_channels

    def too_few(found: int) -> FileFormatError:
        return FileFormatError(
            f"{source}:{frames_line}: 'Frames: {n_frames}' but {found} frame lines follow; "
            "the count must match the number of frame lines"
        )

    if n_channels and n_frames > (len(data) - start) // (2 * n_channels) + 1:
        raise too_few(_count_frame_lines(data, start))  # more frames than the bytes can hold
    rotations = np.empty((n_frames, len(nodes), 4))
    root = np.empty((n_frames, 3))
    root[:] = offsets[0]
    n_fixed = len(layout.fixed)
    first, low, high = np.zeros(n_fixed), np.full(n_fixed, np.inf), np.full(n_fixed, -np.inf)
    done, trailing, line = 0, 0, first_line
    for chunk in _chunks(data, start, layout, axes, len(nodes)):
        lines, filled = chunk.lines, chunk.filled
        take = len(filled[: n_frames - done])
        if take:
            wrong = filled[:take][lines.counts[filled[:take]] != n_channels]
            last = int(filled[take - 1]) if len(wrong) == 0 else int(wrong[0])
            if 0 <= lines.bad_line <= last:
                raise FileFormatError(
                    f"{source}:{line + lines.bad_line}: frame value {lines.bad_token[:40]!r} "
                    "is not a number"
                )
            if 0 <= lines.nonfinite_line <= last:
                raise FileFormatError(
                    f"{source}:{line + lines.nonfinite_line}: frame contains NaN or infinite values"
                )
            if len(wrong):
                raise FileFormatError(
                    f"{source}:{line + last}: frame has {lines.counts[last]} values but the "
                    f"hierarchy declares {n_channels} channels; each frame line needs one value "
                    "per channel"
                )
            sl = slice(done, done + take)
            if chunk.frames is None:  # decoded only (one thread, or lines after the frames)
                values = lines.values[: take * n_channels].reshape(take, n_channels)
                root_channels, fixed_channels, _ = _convert(
                    values, layout, axes, len(nodes), out=rotations[sl]
                )
                del values
            else:
                root_channels, fixed_channels, local = chunk.frames
                rotations[sl] = local[:take]
                del local
            root[sl, layout.root_axes] = root_channels[:take]
            if n_fixed:
                if done == 0:
                    first = fixed_channels[0]
                low = np.minimum(low, fixed_channels[:take].min(axis=0))
                high = np.maximum(high, fixed_channels[:take].max(axis=0))
        done += take
        trailing += len(filled) - take
        line += len(lines.counts) - 1
        del chunk, lines, filled  # before the next chunk is decoded
    if done < n_frames:
        raise too_few(done)
    if trailing:
        warnings.warn(
            f"{source}: {trailing} non-blank lines after the {n_frames} declared frames are "
            "ignored",
            UserWarning,
            stacklevel=4,
        )
    # Files whose OFFSETs are all zero keep the skeleton in these channels: their size counts.
    tolerance = _CONSTANT_TOLERANCE * max(size, float(np.abs(first).max(initial=0.0)))
    for (j, axis, _), lo, hi, value in zip(layout.fixed, low, high, first, strict=True):
        if hi - lo > tolerance:
            raise FileFormatError(
                f"{source}:{nodes[j].line}: joint {nodes[j].name!r} has position channels that "
                f"change over time (by {hi - lo:.3g} file units); only the root may translate "
                "(constant position channels on other joints are read as their offset)"
            )
        offsets[j, axis] = value
    return root, rotations


def _rest_size(nodes: list[_Node]) -> float:
    """Largest extent of the rest pose over the three axes (file units; 0 for one joint)."""
    pos = [(0.0, 0.0, 0.0)]
    for node in nodes[1:]:
        (x, y, z), (dx, dy, dz) = pos[node.parent], node.offset
        pos.append((x + dx, y + dy, z + dz))
    return max(max(axis) - min(axis) for axis in zip(*pos, strict=True))


def unit_for_size(size: float) -> LengthUnit:
    """The :data:`BVH_UNITS` entry that makes a body of ``size`` file units closest to 1.7 m.

    Closest in ratio (log scale). ``size`` is the largest extent of the rest
    pose, taken as the body's height; 0 (a single joint) gives ``"m"``.
    """
    if not size > 0.0:
        return LengthUnit.M
    return min(BVH_UNITS, key=lambda u: abs(np.log(size * BVH_UNITS[u] / _TYPICAL_HEIGHT_M)))


def _scale_for(unit: LengthUnit | str | None, scale: float | None) -> float | None:
    """Metres per file unit from ``unit`` or ``scale`` (``None``: decide from the body's size)."""
    if unit is not None and scale is not None:
        raise InputError(f"give unit or scale, not both (got unit={unit!r}, scale={scale})")
    if scale is not None:
        return _check_scale(scale)
    if unit is None:
        return 1.0
    if unit == LengthUnit.AUTO:
        return None
    if unit not in BVH_UNITS:
        raise InputError(f"unit must be one of {', '.join(BVH_UNITS)} or auto, got {unit!r}")
    return BVH_UNITS[unit]


@dataclass
class _Decoded:
    """A BVH file decoded in file axes and units, before it becomes a Motion."""

    nodes: list[_Node]
    fps: float
    offsets: NDArray[np.float64]  # (J, 3), file units and axes
    root: NDArray[np.float64]  # (T, 3), file units and axes
    rotations: NDArray[np.float64]  # (T, J, 4), already in our axes
    scale: float
    axes: AxisMap
    source: str


def _split_header(data: _Bytes, source: str) -> tuple[list[str], int]:
    """The hierarchy's text lines and the byte offset of the MOTION line (``len(data)`` if none)."""
    at = data.find(b"MOTION")  # the line start is searched from the first candidate on
    match = _MOTION_LINE.search(data, max(0, data.rfind(b"\n", 0, at) + 1)) if at >= 0 else None
    cut = match.start() if match else len(data)
    lines = decode_text(data[:cut], source).split("\n")
    return (lines if match is None else lines[:-1]), cut


def _decode(
    data: _Bytes,
    up: UpAxis | str,
    unit: LengthUnit | str | None,
    scale: float | None,
    source: str,
) -> _Decoded:
    """Parse and check a whole BVH file; frames are decoded a chunk at a time."""
    axes = _axes_for(up)
    metres = _scale_for(unit, scale)
    if data.find(b"\r") >= 0:
        data = bytes(data).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    lines, motion_at = _split_header(data, source)
    tokens = [(p, i + 1) for i, line in enumerate(lines) for p in line.split()]
    has_motion = motion_at < len(data)
    tok = _Tokens(tokens, source, len(lines) + 1 if has_motion else len(lines))
    nodes = _name_end_sites(_parse_hierarchy(tok), tok)
    if not has_motion:
        raise FileFormatError(f"{source}: no MOTION section after the hierarchy")
    motion_line = len(lines) + 1
    line_end = data.find(b"\n", motion_at)
    line_end = len(data) if line_end < 0 else line_end
    if data[motion_at:line_end].split() != [b"MOTION"]:
        raise FileFormatError(f"{source}:{motion_line}: the MOTION line must hold only 'MOTION'")
    header = _Lines(data, line_end + 1, motion_line, source)
    frames_token, frames_line = header.value(_FRAMES, "Frames")
    if not (frames_token.isdecimal() and len(frames_token) <= 12):
        raise FileFormatError(
            f"{source}:{frames_line}: Frames must be a whole number from 0 to 10^12, "
            f"got {frames_token[:40]!r}"
        )
    n_frames = int(frames_token)
    time_token, time_line = header.value(_FRAME_TIME, "Frame Time")
    try:
        frame_time = float(time_token)
    except ValueError:
        frame_time = float("nan")
    if not (np.isfinite(frame_time) and frame_time > 0.0 and np.isfinite(1.0 / frame_time)):
        raise FileFormatError(
            f"{source}:{time_line}: Frame Time must be a finite number of seconds > 0, "
            f"got {time_token[:40]!r}"
        )

    column = 0
    for node in nodes:
        node.columns = list(range(column, column + len(node.channels or [])))
        column += len(node.columns)
    nodes, dropped = _prune_zero_leaves(nodes)
    if dropped:
        warnings.warn(
            f"{source}: joints {', '.join(map(repr, dropped))} end at their parent (zero OFFSET, "
            "no children) and are dropped; their rotations move no point",
            UserWarning,
            stacklevel=3,
        )
    layout = _Layout.of(nodes, column)
    offsets = np.array([node.offset for node in nodes])
    size = _rest_size(nodes)
    root, rotations = _read_frames(
        data,
        header.pos,
        header.line + 1,
        n_frames,
        frames_line,
        layout,
        offsets,
        size,
        nodes,
        axes,
        source,
    )
    fps = _frame_rate(time_token, frame_time)
    if metres is None:
        metres = BVH_UNITS[unit_for_size(size)]
    return _Decoded(nodes, fps, offsets, root, rotations, metres, axes, source)


def _to_motion(decoded: _Decoded) -> Motion:
    """The Motion of a decoded file: our axes, metres, joint types from the channels."""
    nodes, axes, scale = decoded.nodes, decoded.axes, decoded.scale
    types = tuple(
        JointType.FREE
        if j == 0
        else JointType.BALL
        if any(k == "rotation" for k, _ in node.channels or [])
        else JointType.FIXED
        for j, node in enumerate(nodes)
    )
    try:
        skeleton = Skeleton(
            names=tuple(node.name for node in nodes),
            parents=np.array([node.parent for node in nodes]),
            offsets=axes.vectors_to_ours(decoded.offsets) * scale,
            joint_types=types,
        )
        root = axes.vectors_to_ours(decoded.root) * scale
        decoded.rotations.setflags(write=False)  # handed to the Motion without a copy
        return Motion(skeleton, decoded.fps, root, decoded.rotations)
    except InputError as exc:
        raise FileFormatError(f"{decoded.source}: {exc}") from None


def parse_bvh(
    data: str | bytes,
    *,
    up: UpAxis | str = UpAxis.Y,
    unit: LengthUnit | str | None = None,
    scale: float | None = None,
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
    unit : {"m", "cm", "mm", "in", "auto"}, optional
        Length unit of the file (default metres). ``"auto"`` picks the unit
        that makes the rest pose closest to a 1.7 m body (see
        :func:`unit_for_size`; :func:`guess_bvh_unit` tells which).
    scale : float, optional
        Metres per file length unit, instead of ``unit`` (0.01 for centimetres).
    source : str
        Name used in error messages and warnings (the file name).

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
        For a bad ``up``, ``unit`` or ``scale``, or both ``unit`` and ``scale``.

    Warns
    -----
    UserWarning
        When lines follow the declared frames (they are ignored), or when
        zero-length leaf joints are dropped.

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
    >>> m = parse_bvh(text, unit="cm")
    >>> m.skeleton.names, m.fps, m.global_positions[0, 1].round(3).tolist()
    (('hips', 'hips_end'), 30.0, [0.0, 0.0, 1.0])
    """
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    return _to_motion(_decode(raw, up, unit, scale, source))


def read_bvh(
    path: PathLike,
    *,
    up: UpAxis | str = UpAxis.Y,
    unit: LengthUnit | str | None = None,
    scale: float | None = None,
) -> Motion:
    """Read a BVH file (see the module notes for axes, units and End Sites).

    Parameters
    ----------
    path : str or Path
        The file; a name ending in ``.gz`` is decompressed.
    up : {"y", "z"}
        ``"y"``: BVH convention (y up, facing +z); ``"z"``: already vhuman's frame.
    unit : {"m", "cm", "mm", "in", "auto"}, optional
        Length unit of the file (default metres; see :func:`parse_bvh`).
    scale : float, optional
        Metres per file length unit, instead of ``unit``.

    Returns
    -------
    Motion

    Raises
    ------
    FileFormatError
        For any malformed content (never another exception type for any bytes).
    InputError
        If the file cannot be read, or for a bad ``up``, ``unit`` or ``scale``.
    """
    # The file is mapped, not copied, and released when _decode returns.
    return _to_motion(_decode(_file_bytes(path), up, unit, scale, str(path)))


def _file_bytes(path: PathLike) -> _Bytes:
    """The file mapped into memory read-only (gzip files: decompressed bytes).

    Raises
    ------
    InputError
        If the file cannot be read.
    """
    p = Path(path)
    if p.suffix == ".gz" or not p.is_file():
        return read_bytes(p)  # raises the one-line error for missing files and folders
    try:
        with p.open("rb") as f:
            if os.fstat(f.fileno()).st_size == 0:
                return b""
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise InputError(f"cannot read {p}: {exc.strerror or exc}") from None


def guess_bvh_unit(path: PathLike) -> LengthUnit:
    """The unit ``unit="auto"`` picks for a BVH file (from its hierarchy only).

    Raises
    ------
    FileFormatError, InputError
        As :func:`read_bvh`, for a malformed hierarchy or an unreadable file.
    """
    data = read_bytes(path)
    lines, _ = _split_header(data.replace(b"\r\n", b"\n"), str(path))
    tok = _Tokens(
        [(p, i + 1) for i, line in enumerate(lines) for p in line.split()], str(path), len(lines)
    )
    return unit_for_size(_rest_size(_name_end_sites(_parse_hierarchy(tok), tok)))


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


@dataclass(frozen=True)
class _FramesToWrite:
    """What the frame lines of a file to write are made of."""

    root: NDArray[np.float64]  # (T, 3) root positions, file axes and units
    rotations: NDArray[np.float64]  # (T, J, 4) local rotations, our axes
    written: NDArray[np.intp]  # (K,) joints with rotation channels, in file order
    axes: AxisMap
    order: str
    precision: int


def _bvh_parts(
    motion: Motion,
    up: UpAxis | str,
    rotation_order: str,
    precision: int,
    unit: LengthUnit | str | None,
    scale: float | None,
) -> tuple[bytes, _FramesToWrite]:
    """Hierarchy and header text, and what the frame lines are made of."""
    axes = _axes_for(up)
    if unit == LengthUnit.AUTO:
        raise InputError("unit 'auto' is for reading; write with m, cm, mm or in")
    metres = _scale_for(unit, scale) or 1.0
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
    offsets = axes.vectors_from_ours(sk.offsets) / metres
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
            out += [
                f"{pad}  End Site",
                f"{pad}  {{",
                f"{pad}    OFFSET {vec(np.zeros(3))}",
                f"{pad}  }}",
            ]
        stack.append((j, depth, True))
        stack.extend((c, depth + 1, False) for c in reversed(children[j]))

    out += ["MOTION", f"Frames: {motion.n_frames}", f"Frame Time: {1.0 / motion.fps!r}", ""]
    header = "\n".join(out).encode("utf-8")
    root = axes.vectors_from_ours(motion.root_positions) / metres
    frames = _FramesToWrite(
        root, motion.local_rotations, np.array(written), axes, rotation_order, precision
    )
    return header, frames


def _frame_lines(frames: _FramesToWrite) -> Iterator[bytes]:
    """Frame lines (root position, then each joint's angles), a chunk of frames at a time.

    A chunk holds about :data:`_WRITE_CHUNK_VALUES` numbers, so its temporaries
    stay in cache; its angles are computed straight into the array that is formatted.
    """
    n_frames, n_written = len(frames.root), len(frames.written)
    in_order = np.array_equal(frames.written, np.arange(frames.rotations.shape[1]))
    step = max(1, _WRITE_CHUNK_VALUES // (3 + 3 * n_written))
    for t0 in range(0, n_frames, step):
        t1 = min(t0 + step, n_frames)
        rotations = frames.rotations[t0:t1]
        values = np.empty((t1 - t0, 1 + n_written, 3))
        values[:, 0] = frames.root[t0:t1]
        _quat_euler(
            rotations if in_order else rotations[:, frames.written],
            frames.order,
            frames.axes,
            out=values[:, 1:],
        )
        yield format_fixed(values.reshape(t1 - t0, -1), frames.precision)


def _quat_euler(
    q: NDArray[np.float64], order: str, axes: AxisMap, out: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Intrinsic Euler angles ``out (..., 3)`` [deg] in ``order`` of unit quaternions ``(..., 4)``.

    The quaternions are about our axes; the angles are about the file's
    (``Cᵀ R C``, which moves the vector part like a vector). For
    ``R = R_i(a) R_j(b) R_k(c)`` with ``s = +1`` when ijk is a cyclic order of
    xyz, else -1: ``b = atan2(s R_ik, √(R_ii² + R_ij²))``,
    ``a = atan2(-s R_jk, R_kk)``, ``c = atan2(-s R_ij, R_ii)``. At gimbal lock
    (``cos b < 1e-7``) ``c = 0`` and ``a = atan2(s R_kj, R_jj)``, which still
    reproduces the rotation (the convention of :func:`quat_to_euler`).
    """
    i, j, k = (_AXES.index(a) for a in order)
    s = 1.0 if order in ("XYZ", "YZX", "ZXY") else -1.0
    components = np.ascontiguousarray(np.moveaxis(q, -1, 0))  # (4, ...): w, x, y, z
    w = components[0]

    def file_part(axis: int) -> NDArray[np.float64]:
        """Component ``axis`` of the vector part, about the file's axes."""
        ours = axes.index.index(axis)
        part = components[1 + ours]
        return part if axes.sign[ours] == 1.0 else -part

    v = [file_part(a) for a in range(3)]
    twice = [2.0 * part for part in v]

    def element(a: int, b: int) -> NDArray[np.float64]:
        """Entry (a, b) of the rotation matrix (``2(v_a v_b ∓ w v_c)``, ``1 - 2(v_o² + v_p²)``)."""
        if a == b:
            o1, o2 = (x for x in range(3) if x != a)
            return 1.0 - (v[o1] * twice[o1] + v[o2] * twice[o2])
        c = 3 - a - b
        if (a, b) in ((0, 1), (1, 2), (2, 0)):
            return v[a] * twice[b] - w * twice[c]
        return v[a] * twice[b] + w * twice[c]

    def signed(x: NDArray[np.float64], sign: float) -> NDArray[np.float64]:
        """``sign · x`` (``x`` negated in place for -1)."""
        return x if sign > 0.0 else np.negative(x, out=x)

    r_ii, r_ij = element(i, i), element(i, j)
    cos_b = np.hypot(r_ii, r_ij)
    np.arctan2(signed(element(i, k), s), cos_b, out=out[..., 1])
    np.arctan2(signed(element(j, k), -s), element(k, k), out=out[..., 0])
    np.arctan2(signed(r_ij, -s), r_ii, out=out[..., 2])
    lock = cos_b < 1e-7
    if lock.any():
        out[..., 2][lock] = 0.0
        out[..., 0][lock] = np.arctan2(signed(element(k, j), s)[lock], element(j, j)[lock])
    return np.degrees(out, out=out)


def format_bvh(
    motion: Motion,
    *,
    up: UpAxis | str = UpAxis.Y,
    rotation_order: str = "ZXY",
    precision: int = 6,
    unit: LengthUnit | str | None = None,
    scale: float | None = None,
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
    unit : {"m", "cm", "mm", "in"}, optional
        Length unit of the file (default metres).
    scale : float, optional
        Metres per file length unit, instead of ``unit`` (0.01 writes centimetres).

    Raises
    ------
    InputError
        For a bad option, or a joint name BVH cannot hold (with whitespace or braces).
    """
    header, frames = _bvh_parts(motion, up, rotation_order, precision, unit, scale)
    return b"".join([header, *_frame_lines(frames)]).decode("utf-8")


def write_bvh(
    motion: Motion,
    path: PathLike,
    *,
    up: UpAxis | str = UpAxis.Y,
    rotation_order: str = "ZXY",
    precision: int = 6,
    unit: LengthUnit | str | None = None,
    scale: float | None = None,
) -> None:
    """Write ``motion`` as a BVH file, atomically (see :func:`format_bvh` for the options).

    Raises
    ------
    InputError
        For a bad option or joint name, or if the file cannot be written.
    """
    header, frames = _bvh_parts(motion, up, rotation_order, precision, unit, scale)
    if Path(path).suffix == ".gz":
        atomic_write(path, b"".join([header, *_frame_lines(frames)]))
        return
    with atomic_path(path) as tmp, tmp.open("wb") as f:  # written as it is formatted
        f.write(header)
        f.writelines(_frame_lines(frames))
