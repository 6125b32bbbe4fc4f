"""CMU motion-capture files in the exponential-map text format of the motion-prediction literature.

One frame a line, 117 comma-separated numbers: values 0..2 the root position,
then for each of the 38 joints of :func:`cmu_skeleton` the exponential map
``r = θ k`` (radians) of its rotation. The literature's reference code uses
row vectors (see ``data/cmu_mocap/README.md`` of the shared data):
``p_0 = offset_0 + (v[2], v[1], v[0])``, ``G_0 = R(r_0)``,
``p_i = offset_i · G_j + p_j`` and ``G_i = R(r_i) · G_j`` for joint ``i`` with
parent ``j``, with ``R`` Rodrigues' formula, y up, the subject facing +z and
its left at +x, lengths in millimetres.

In vhuman's column-vector model this is the local rotation ``R(r_i)ᵀ`` of
each joint (root included), followed by the proper rotation ``x' = z,
y' = x, z' = y`` into our frame (z up, facing +x, left at +y) and
millimetres → metres. The l* joints stay on the left (+y).

Root translation: read differently from the README, on evidence. Under
``offset_0 + (v[2], v[1], v[0])`` millimetres the root of ``walking_1`` moves
6 cm in total while the feet stride 3.4 m, so the stance foot slides the
whole stride. Values 0..2 are the root position as (x, y, z) in the file's
y-up frame, in units of :data:`CMU_ROOT_UNIT_M`: the unit that keeps stance
feet still (fitted by minimising stance-foot slide: 68 mm on ``walking_1``,
72 mm on ``walking_13``, 65 mm on ``running_1``; the ASF convention
``length 0.45`` would give 56.4 mm, too small for these offsets). Joint
positions relative to the root follow the README exactly.

Frame rate: the files store none. They are read as :data:`CMU_FPS` = 120
frames per second, the CMU capture rate: at 120 fps a walking gait cycle in
these files lasts 0.96 s (``walking_1``, 115 frames) and a running cycle
0.70 s, typical human values; at 50 fps they would last 2.3 s and 1.7 s. The
motion-prediction protocol (every second frame, horizons labelled as at
25 fps) is applied by the prediction datasets, not here.
"""

from __future__ import annotations

import json
from functools import cache

import numpy as np
from numpy.typing import NDArray

from vhuman.data import shipped_path
from vhuman.errors import FileFormatError, InputError
from vhuman.geometry.so3 import quat_to_rotvec, rotvec_to_quat
from vhuman.io._axes import Y_UP_AXES
from vhuman.io.filesystem import PathLike, atomic_write, decode_text, on_skeleton, read_bytes
from vhuman.skeleton.motion import Motion
from vhuman.skeleton.skeleton import Skeleton

__all__ = [
    "CMU_COLUMNS",
    "CMU_FPS",
    "CMU_ROOT_UNIT_M",
    "cmu_skeleton",
    "cmu_walking_example",
    "read_cmu",
    "write_cmu",
]

CMU_FPS = 120.0
"""Frame rate [frames/s] of the raw CMU exp-map files (the capture rate; see the module notes)."""

CMU_ROOT_UNIT_M = 0.068
"""Length [m] of one unit of the root translation (values 0..2; see the module notes)."""

CMU_COLUMNS = 117
"""Values per frame: root position (3) + 38 joints × exponential map (3)."""

_MM = 1e-3  # metres per millimetre
_WALKING_EXAMPLE = "cmu_walking_1.txt.gz"


@cache
def _skeleton_file() -> tuple[tuple[str, ...], tuple[int, ...], NDArray[np.float64]]:
    text = shipped_path("cmu_skeleton.json").read_text("utf-8")
    spec = json.loads(text)
    offsets = np.array(spec["offsets_mm"], dtype=np.float64)
    offsets.setflags(write=False)
    return tuple(spec["names"]), tuple(spec["parents"]), offsets


def cmu_skeleton() -> Skeleton:
    """The 38-joint skeleton of the CMU exp-map files, in metres and vhuman's frame.

    Loaded from the packaged ``cmu_skeleton.json`` (offsets in millimetres, y up,
    facing +z) and rotated into our frame. Joint names say where each joint lies
    (``lshoulder``, ``lelbow``, ...; ``l*`` on the subject's left, +y); the
    ``*_base`` joints sit at their parent's position. Leaves are FIXED, the
    other joints BALL, without limits.
    """
    names, parents, offsets_mm = _skeleton_file()
    return Skeleton(names, np.array(parents), Y_UP_AXES.vectors_to_ours(offsets_mm) * _MM)


def _parse(text: str, fps: float, source: str) -> Motion:
    rows = [(i + 1, line.split(",")) for i, line in enumerate(text.split("\n")) if line.strip()]
    if not rows:
        raise FileFormatError(f"{source}: no frames; a CMU exp-map file has one line per frame")
    for line, fields in rows:
        if len(fields) != CMU_COLUMNS:
            raise FileFormatError(
                f"{source}:{line}: {len(fields)} values; a CMU exp-map frame has {CMU_COLUMNS} "
                "comma-separated numbers (root position 3 + 38 joints × exponential map 3)"
            )
    try:
        values = np.array([fields for _, fields in rows], dtype=np.float64)
    except ValueError:
        for line, fields in rows:
            for field in fields:
                try:
                    float(field)
                except ValueError:
                    raise FileFormatError(
                        f"{source}:{line}: {field.strip()[:40]!r} is not a number"
                    ) from None
        raise FileFormatError(f"{source}: the values are not all plain numbers") from None
    bad = np.flatnonzero(~np.isfinite(values).all(axis=1))
    if len(bad):
        raise FileFormatError(f"{source}:{rows[bad[0]][0]}: NaN or infinite value")
    _, _, offsets_mm = _skeleton_file()
    n_frames = len(values)
    root = offsets_mm[0] * _MM + values[:, :3] * CMU_ROOT_UNIT_M
    # Row-vector G_i = R(r_i) G_j is the column-vector local rotation R(r_i)ᵀ = R(−r_i).
    local = rotvec_to_quat(-values[:, 3:].reshape(n_frames, -1, 3))
    try:
        return Motion(
            cmu_skeleton(),
            fps,
            Y_UP_AXES.vectors_to_ours(root),
            Y_UP_AXES.quats_to_ours(local),
        )
    except InputError as exc:
        raise FileFormatError(f"{source}: {exc}") from None


def read_cmu(path: PathLike, *, fps: float = CMU_FPS) -> Motion:
    """Read a CMU exp-map file (one frame a line, 117 comma-separated numbers).

    Parameters
    ----------
    path : str or Path
        The file; a name ending in ``.gz`` is decompressed.
    fps : float
        Frame rate of the file [frames/s]; the files store none (see :data:`CMU_FPS`).

    Returns
    -------
    Motion
        On :func:`cmu_skeleton`; positions in metres, vhuman's frame.

    Raises
    ------
    FileFormatError
        For a line without 117 values, a non-number, NaN or infinity.
    InputError
        If the file cannot be read or ``fps`` is not > 0.
    """
    if not (np.isfinite(fps) and fps > 0.0):
        raise InputError(f"fps must be a finite number > 0, got {fps}")
    source = str(path)
    return _parse(decode_text(read_bytes(path), source), float(fps), source)


def cmu_walking_example(*, fps: float = CMU_FPS) -> Motion:
    """The packaged CMU trial ``walking_1``, the default clip of the demo: 343 frames.

    The file's frame 0 is left out: like frame 0 of every file of this
    format, it is not a pose (its rotations are zero but a few, and the
    wrists jump 0.8 m to frame 1). CMU Graphics Lab Motion Capture Database:
    free for research and for inclusion in products, not to be resold as data.
    """
    return read_cmu(shipped_path(_WALKING_EXAMPLE), fps=fps)[1:]


def write_cmu(motion: Motion, path: PathLike) -> None:
    """Write ``motion`` as a CMU exp-map file (atomically); the frame rate is not stored.

    Each value is written with the shortest text that reads back to the same
    float, so read → write → read gives the same motion (rotation vectors come
    back with angles in [0, π], the same rotations).

    Raises
    ------
    InputError
        If the motion's skeleton is not :func:`cmu_skeleton` (the same joints,
        matched by name, with the same parents and offsets), or the file
        cannot be written.
    """
    ref = cmu_skeleton()
    sk = motion.skeleton
    motion = on_skeleton(
        motion,
        ref,
        "write_cmu needs a motion on the CMU skeleton (vhuman.io.cmu_skeleton(): 38 joints "
        f"{ref.names[0]}, {ref.names[1]}, ..., with its offsets); this motion has "
        f"{sk.n_joints} joints starting {sk.names[0]!r}; save it as BVH or npz instead",
    )
    _, _, offsets_mm = _skeleton_file()
    root = (Y_UP_AXES.vectors_from_ours(motion.root_positions) - offsets_mm[0] * _MM) / (
        CMU_ROOT_UNIT_M
    )
    rotvec = -quat_to_rotvec(Y_UP_AXES.quats_from_ours(motion.local_rotations))
    values = np.concatenate([root, rotvec.reshape(motion.n_frames, -1)], axis=1).tolist()
    atomic_write(path, "".join(",".join(map(repr, row)) + "\n" for row in values))
