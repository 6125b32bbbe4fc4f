"""Two walks side by side in one viewer: a reference walk time-aligned to another by gait cycle.

`heel_strikes` finds one foot's heel strikes by Zeni, Richards & Higginson
(2008): the frames where the ankle is furthest ahead of the pelvis along the
walking direction. `gait_phase` counts gait cycles continuously through a
motion (cycle ``k`` starts at the ``k``-th strike; linear in between and
extrapolated beyond the first and last strike). `gait_aligned` resamples a
reference walk so that, frame by frame, it is at the same gait phase as
another walk, cycling through the reference's complete cycles, and places it
beside that walk: the walks can then be drawn in one player (the reference as
`motion_figure`'s ghost) and compared at equal phase of the gait cycle.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import InputError
from vhuman.geometry import quat_multiply
from vhuman.skeleton import Motion

__all__ = ["gait_aligned", "gait_phase", "heel_strikes", "repeated"]

_MIN_STRIDE_S = 0.8  # no stride of a walk is shorter [s]
_MIN_TRAVEL = 0.2  # [m] of net pelvis travel below which there is no walking direction


def _heading(motion: Motion, pelvis: str) -> NDArray[np.float64]:
    """Unit horizontal direction ``(2,)`` of the pelvis's net travel over the motion."""
    root = motion.global_positions[:, motion.skeleton.index(pelvis), :2]
    d = root[-1] - root[0]
    n = float(np.linalg.norm(d))
    if n < _MIN_TRAVEL:
        raise InputError(
            f"a walk's pelvis must travel at least {_MIN_TRAVEL} m to give a walking "
            f"direction; got {n:.3f} m"
        )
    return d / n


def heel_strikes(motion: Motion, pelvis: str, ankle: str) -> NDArray[np.intp]:
    """Frames ``(K,)`` of one foot's heel strikes (Zeni, Richards & Higginson 2008).

    Parameters
    ----------
    motion : Motion
        A straight walk (its pelvis travels at least 0.2 m).
    pelvis, ankle : str
        Names of the pelvis joint and of the foot's ankle joint.

    Returns
    -------
    ndarray of int, shape (K,)
        Increasing frame indices: maxima of the ankle's distance ahead of the
        pelvis along the net walking direction, at least 0.48 s apart (60 % of
        the shortest stride) and standing out by a fifth of its range.

    Raises
    ------
    InputError
        If the pelvis travels too little; `UnknownJointError` for a joint the skeleton lacks.
    """
    from scipy.signal import find_peaks  # imported here: scipy.signal takes a second to import

    heading = _heading(motion, pelvis)
    p = motion.global_positions
    sk = motion.skeleton
    ahead = (p[:, sk.index(ankle), :2] - p[:, sk.index(pelvis), :2]) @ heading
    spacing = max(2, round(0.6 * _MIN_STRIDE_S * motion.fps))
    peaks, _ = find_peaks(ahead, distance=spacing, prominence=0.2 * float(np.ptp(ahead)))
    return peaks.astype(np.intp)


def gait_phase(n_frames: int, strikes: NDArray[np.intp]) -> NDArray[np.float64]:
    """Gait cycles counted at every frame ``(n_frames,)``: ``k`` at the ``k``-th strike.

    Linear between strikes; before the first and after the last strike it goes
    on at the rate of the first and last cycle (negative before the first).

    Raises
    ------
    InputError
        With fewer than two strikes (no complete cycle).
    """
    s = np.asarray(strikes, dtype=np.float64)
    if len(s) < 2:
        raise InputError(
            f"gait phase needs at least one complete gait cycle (two heel strikes of a "
            f"foot); found {len(s)}"
        )
    k = np.arange(n_frames, dtype=np.float64)
    phase = np.interp(k, s, np.arange(len(s), dtype=np.float64))
    before, after = k < s[0], k > s[-1]
    phase[before] = (k[before] - s[0]) / (s[1] - s[0])
    phase[after] = len(s) - 1 + (k[after] - s[-1]) / (s[-1] - s[-2])
    return phase


def gait_aligned(
    reference: Motion,
    motion: Motion,
    *,
    reference_joints: tuple[str, str],
    motion_joints: tuple[str, str],
    beside: float = 0.8,
) -> Motion:
    """``reference`` at the gait phase of ``motion`` at each of its frames, walking beside it.

    Both walks' phases are counted from the heel strikes of one foot
    (:func:`heel_strikes`, :func:`gait_phase`). Each frame of ``motion`` takes
    the reference frame nearest the same phase, cycling through the
    reference's complete cycles (from its first strike to its last). The
    reference is turned about the vertical so that its walking direction is
    that of ``motion``, and its root is put ``beside`` metres to the left of
    ``motion``'s root, at the reference's own root height: the two bodies walk
    side by side, level with each other, and every gait event of one happens
    at the same frame as in the other.

    Parameters
    ----------
    reference : Motion
        The walk to compare with (any skeleton), at least one complete cycle.
    motion : Motion
        The walk setting the timing and the place, at least one complete cycle.
    reference_joints, motion_joints : (str, str)
        Pelvis and left ankle of each skeleton.
    beside : float, optional
        Sideways distance [m] of the reference's root from ``motion``'s (left positive).

    Returns
    -------
    Motion
        On ``reference``'s skeleton, with ``motion``'s frame count and fps.

    Raises
    ------
    InputError
        If a walk has fewer than two heel strikes of the foot, travels too
        little, or ``beside`` is not finite.
    """
    if not np.isfinite(beside):
        raise InputError(f"beside must be a finite distance in m; got {beside!r}")
    ref_strikes = heel_strikes(reference, *reference_joints)
    gait_phase(reference.n_frames, ref_strikes)  # raises without a complete cycle
    ref_cycles = len(ref_strikes) - 1
    phase = gait_phase(motion.n_frames, heel_strikes(motion, *motion_joints))
    wrapped = np.mod(phase, ref_cycles)
    cycle = np.minimum(np.floor(wrapped).astype(np.intp), ref_cycles - 1)
    start, end = ref_strikes[cycle], ref_strikes[cycle + 1]
    frames = np.rint(start + (wrapped - cycle) * (end - start)).astype(np.intp)

    h_ref = _heading(reference, reference_joints[0])
    h_mot = _heading(motion, motion_joints[0])
    yaw = np.arctan2(h_mot[1], h_mot[0]) - np.arctan2(h_ref[1], h_ref[0])
    turn = np.array([np.cos(0.5 * yaw), 0.0, 0.0, np.sin(0.5 * yaw)])
    rotations = np.array(reference.local_rotations[frames])
    rotations[:, 0] = quat_multiply(turn, rotations[:, 0])
    left = np.array([-h_mot[1], h_mot[0]])
    root = np.column_stack(
        [motion.root_positions[:, :2] + beside * left, reference.root_positions[frames, 2]]
    )
    return Motion(reference.skeleton, motion.fps, root, rotations)


def repeated(motion: Motion, times: int) -> Motion:
    """A cyclic clip played ``times`` times in a row, each copy moved on by one cycle's travel.

    One cycle's travel is the root's horizontal displacement from the first
    frame to the last, plus one frame's share of it (the last frame of a
    cyclic clip comes one frame before the next copy's first).

    Raises
    ------
    InputError
        If ``times`` < 1 or the clip has fewer than 2 frames.
    """
    if int(times) != times or times < 1:
        raise InputError(f"times must be a positive integer; got {times!r}")
    n = motion.n_frames
    if n < 2:
        raise InputError(f"a clip to repeat needs at least 2 frames; got {n}")
    travel = (motion.root_positions[-1] - motion.root_positions[0]) * n / (n - 1)
    travel[2] = 0.0
    root = np.concatenate([motion.root_positions + k * travel for k in range(int(times))])
    rotations = np.concatenate([motion.local_rotations] * int(times))
    return Motion(motion.skeleton, motion.fps, root, rotations)
