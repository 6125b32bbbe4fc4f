"""Gait analysis from joint positions: gait events, joint-angle curves per cycle, pelvis and feet.

Works on any skeleton whose joints are named in a :class:`GaitJoints` (the
standard humanoid and the CMU skeleton are given), so generated and recorded
walks are measured the same way, from the outside:

- gait events by Zeni, Richards & Higginson (2008): heel strike where the ankle
  is furthest ahead of the pelvis, toe-off where the ball of the foot is
  furthest behind it;
- knee flexion, hip flexion (thigh against the trunk in the sagittal plane),
  ankle dorsiflexion (shank against the foot, zero in the rest pose) and elbow
  flexion, from positions;
- each gait cycle (heel strike to heel strike of the same foot) resampled to
  101 points, 0 … 100 % (Winter 2009's normalised gait cycle).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.signal import find_peaks

from vhuman.errors import InputError
from vhuman.geometry.vectors import flexion_angle
from vhuman.skeleton.motion import Motion

__all__ = [
    "CMU_JOINTS",
    "CYCLE_POINTS",
    "VHUMAN_JOINTS",
    "GaitAnalysis",
    "GaitJoints",
    "analyse_gait",
    "curve_agreement",
    "knee_maxima",
    "leg_length",
    "monotonic_until",
]

CYCLE_POINTS = 101
"""Samples of a normalised gait cycle (0, 1, …, 100 %)."""


@dataclass(frozen=True)
class GaitJoints:
    """Names of the joints that gait analysis reads, left side first in each pair."""

    pelvis: str
    thorax: str
    hip: tuple[str, str]
    knee: tuple[str, str]
    ankle: tuple[str, str]
    ball: tuple[str, str]
    shoulder: tuple[str, str]
    elbow: tuple[str, str]
    wrist: tuple[str, str]


VHUMAN_JOINTS = GaitJoints(
    "pelvis",
    "chest",
    ("l_hip", "r_hip"),
    ("l_knee", "r_knee"),
    ("l_ankle", "r_ankle"),
    ("l_toe", "r_toe"),
    ("l_shoulder", "r_shoulder"),
    ("l_elbow", "r_elbow"),
    ("l_wrist", "r_wrist"),
)
"""The standard humanoid's joints."""
CMU_JOINTS = GaitJoints(
    "hips",
    "thorax",
    ("lhip", "rhip"),
    ("lknee", "rknee"),
    ("lankle", "rankle"),
    ("ltoe", "rtoe"),
    ("lshoulder", "rshoulder"),
    ("lelbow", "relbow"),
    ("lwrist", "rwrist"),
)
"""The CMU exp-map skeleton's joints (:func:`vhuman.io.cmu_skeleton`)."""


@dataclass(frozen=True, eq=False)
class GaitAnalysis:
    """A walk measured from its joint positions.

    Attributes
    ----------
    curves : dict of str to ndarray, shape (C, 101)
        ``"knee"``, ``"hip"``, ``"ankle"`` [deg] over every complete cycle of
        both legs (flexion and dorsiflexion positive), 0 … 100 % of the cycle.
    stance_fraction : float
        Mean share of the cycle from heel strike to toe-off.
    speed_m_s, cadence_steps_min, step_length_m : float
        Mean speed (pelvis displacement over time), steps per minute (from the
        heel strikes) and their ratio.
    pelvis_excursion_m : float
        Peak-to-peak vertical motion of the pelvis within a cycle (mean over cycles).
    pelvis_curvature_ratio : float
        Curvature of the pelvis's vertical path at its minima over that at its
        maxima (1: as round at the bottom as at the top; a V-shaped path ≫ 1).
    obliquity_deg : float
        Peak-to-peak tilt of the hip line in the frontal plane within a cycle.
    sway_m : float
        Peak-to-peak lateral motion of the pelvis about its path within a cycle.
    ball_clearance_m : float
        Height of the ball of the foot in mid-swing over its height in stance.
    elbow_range_deg : float
        Peak-to-peak elbow flexion within a cycle.
    angle_step_deg : dict of str to float
        Largest change of ``"hip"``, ``"knee"``, ``"ankle"`` angle between frames at
        60 fps (both legs).
    leg_acceleration_p99_deg : float
        99th percentile of the second difference of the leg angles at 60 fps [deg/frame²].
    cycles : int
        Complete cycles found (both legs).
    """

    curves: dict[str, NDArray[np.float64]]
    stance_fraction: float
    speed_m_s: float
    cadence_steps_min: float
    step_length_m: float
    pelvis_excursion_m: float
    pelvis_curvature_ratio: float
    obliquity_deg: float
    sway_m: float
    ball_clearance_m: float
    elbow_range_deg: float
    angle_step_deg: dict[str, float]
    leg_acceleration_p99_deg: float
    cycles: int


def leg_length(motion: Motion, joints: GaitJoints) -> float:
    """Hip-knee plus knee-ankle length of the left leg in the rest pose [m]."""
    rest = motion.skeleton.rest_positions()
    sk = motion.skeleton
    hip, knee, ankle = (rest[sk.index(n[0])] for n in (joints.hip, joints.knee, joints.ankle))
    return float(np.linalg.norm(knee - hip) + np.linalg.norm(ankle - knee))


def _frames(motion: Motion, joints: GaitJoints) -> tuple[NDArray, NDArray, NDArray]:
    """Forward ``(T, 3)``, left ``(T, 3)`` and up ``(T, 3)`` unit vectors of the trunk.

    Left from the right hip to the left; up from the pelvis to the thorax, made
    normal to left; forward completes the right-handed frame.
    """
    sk, p = motion.skeleton, motion.global_positions
    left = p[:, sk.index(joints.hip[0])] - p[:, sk.index(joints.hip[1])]
    left /= np.linalg.norm(left, axis=-1, keepdims=True)
    up = p[:, sk.index(joints.thorax)] - p[:, sk.index(joints.pelvis)]
    up -= np.sum(up * left, -1, keepdims=True) * left
    up /= np.linalg.norm(up, axis=-1, keepdims=True)
    return np.cross(left, up), left, up


def _heading(motion: Motion, joints: GaitJoints) -> NDArray[np.float64]:
    """Horizontal walking direction ``(T, 3)``: the pelvis velocity over about one second."""
    root = motion.global_positions[:, motion.skeleton.index(joints.pelvis)]
    half = max(1, round(0.5 * motion.fps))
    idx = np.arange(motion.n_frames)
    v = root[np.minimum(idx + half, len(idx) - 1)] - root[np.maximum(idx - half, 0)]
    v[:, 2] = 0.0
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-12)


def _angles(motion: Motion, joints: GaitJoints) -> dict[str, NDArray[np.float64]]:
    """``"hip"``, ``"knee"``, ``"ankle"``, ``"elbow"`` angles ``(2, T)`` [deg], left then right."""
    sk, p = motion.skeleton, motion.global_positions
    rest = sk.rest_positions()
    forward, _left, up = _frames(motion, joints)
    out: dict[str, list] = {"hip": [], "knee": [], "ankle": [], "elbow": []}
    for s in (0, 1):
        hip, knee, ankle, ball, shoulder, elbow, wrist = (
            p[:, sk.index(names[s])]
            for names in (
                joints.hip,
                joints.knee,
                joints.ankle,
                joints.ball,
                joints.shoulder,
                joints.elbow,
                joints.wrist,
            )
        )
        thigh = knee - hip
        out["hip"].append(
            np.degrees(np.arctan2(np.sum(thigh * forward, -1), np.sum(thigh * -up, -1)))
        )
        out["knee"].append(np.degrees(flexion_angle(hip, knee, ankle)))
        r_knee, r_ankle, r_ball = (
            rest[sk.index(n[s])] for n in (joints.knee, joints.ankle, joints.ball)
        )
        neutral = flexion_angle(r_knee, r_ankle, r_ball)
        out["ankle"].append(np.degrees(flexion_angle(knee, ankle, ball) - neutral))
        out["elbow"].append(np.degrees(flexion_angle(shoulder, elbow, wrist)))
    return {k: np.stack(v) for k, v in out.items()}


def gait_events(motion: Motion, joints: GaitJoints) -> tuple[list[NDArray], list[NDArray]]:
    """Heel strikes and toe-offs of each leg (left, right), as frame indices.

    Zeni, Richards & Higginson (2008): heel strike at each maximum of the
    ankle's distance ahead of the pelvis along the walking direction, toe-off
    at each minimum of the ball of the foot's; maxima closer than 60 % of the
    median stride to a larger one are dropped.
    """
    sk, p = motion.skeleton, motion.global_positions
    heading = _heading(motion, joints)
    root = p[:, sk.index(joints.pelvis)]
    strikes, offs = [], []
    for s in (0, 1):
        ahead = np.sum((p[:, sk.index(joints.ankle[s])] - root) * heading, -1)
        behind = -np.sum((p[:, sk.index(joints.ball[s])] - root) * heading, -1)
        spacing = max(2, round(0.6 * motion.fps * 0.8))  # no stride is shorter than 0.8 s
        prominence = 0.2 * np.ptp(ahead)
        strikes.append(find_peaks(ahead, distance=spacing, prominence=prominence)[0])
        offs.append(find_peaks(behind, distance=spacing, prominence=prominence)[0])
    return strikes, offs


def _normalised(signal: NDArray, strikes: NDArray) -> NDArray[np.float64]:
    """``signal (T,)`` over each cycle between successive ``strikes``, shape (C, 101)."""
    s = np.linspace(0.0, 1.0, CYCLE_POINTS)
    frames = np.arange(len(signal))
    return np.array(
        [np.interp(a + s * (b - a), frames, signal) for a, b in itertools.pairwise(strikes)]
    )


def _curvature_ratio(z: NDArray, fps: float, cycle_s: float) -> float:
    """Mean |curvature| of ``z (T,)`` at its minima over that at its maxima.

    Each extremum's curvature is the second-order coefficient of a parabola
    fitted to ±6 % of the cycle around it (least squares).
    """
    half = max(2, round(0.06 * cycle_s * fps))
    spacing = max(2, round(0.3 * cycle_s * fps))
    tops = find_peaks(z, distance=spacing)[0]
    bottoms = find_peaks(-z, distance=spacing)[0]

    def curvature(idx: NDArray) -> float:
        values = []
        for i in idx:
            if half <= i < len(z) - half:
                x = np.arange(-half, half + 1) / fps
                values.append(abs(np.polyfit(x, z[i - half : i + half + 1], 2)[0]))
        return float(np.mean(values)) if values else np.nan

    return curvature(bottoms) / curvature(tops)


def _per_cycle_ptp(signal: NDArray, strikes: NDArray) -> float:
    """Mean peak-to-peak of ``signal (T,)`` within the cycles between ``strikes``."""
    return float(np.mean([np.ptp(signal[a : b + 1]) for a, b in _pairs(strikes)]))


def _pairs(x: NDArray) -> list[tuple[int, int]]:
    """Successive pairs of ``x``."""
    return [(int(a), int(b)) for a, b in itertools.pairwise(x)]


def analyse_gait(motion: Motion, joints: GaitJoints = VHUMAN_JOINTS) -> GaitAnalysis:
    """Measure a straight or gently curved walk from its joint positions.

    Parameters
    ----------
    motion : Motion
        At least one complete gait cycle of each leg; any frame rate.
    joints : GaitJoints
        The names of the joints used (:data:`VHUMAN_JOINTS`, :data:`CMU_JOINTS`).

    Returns
    -------
    GaitAnalysis

    Raises
    ------
    InputError
        If fewer than two complete cycles are found.
    """
    sk, p, fps = motion.skeleton, motion.global_positions, motion.fps
    strikes, offs = gait_events(motion, joints)
    if min(len(s) for s in strikes) < 2:
        raise InputError(
            "gait analysis needs a walk of at least one complete gait cycle of each leg "
            "(two heel strikes of each foot)"
        )
    angles = _angles(motion, joints)
    curves = {
        k: np.concatenate([_normalised(angles[k][s], strikes[s]) for s in (0, 1)])
        for k in ("hip", "knee", "ankle")
    }
    stance = []
    for s in (0, 1):
        for a, b in _pairs(strikes[s]):
            inside = offs[s][(offs[s] > a) & (offs[s] < b)]
            if len(inside):
                stance.append((inside[0] - a) / (b - a))
    root = p[:, sk.index(joints.pelvis)]
    all_strikes = np.sort(np.concatenate(strikes))
    cadence = 60.0 * fps * (len(all_strikes) - 1) / (all_strikes[-1] - all_strikes[0])
    a0, b0 = all_strikes[0], all_strikes[-1]
    speed = float(np.linalg.norm(root[b0, :2] - root[a0, :2])) * fps / (b0 - a0)
    cycle_s = float(np.median(np.diff(strikes[0]))) / fps
    # Lateral sway about the path: the pelvis less its mean over the surrounding cycle.
    n_cycle = max(1, round(cycle_s * fps))
    kernel = np.ones(n_cycle) / n_cycle
    mean_path = np.stack([np.convolve(root[:, k], kernel, mode="same") for k in (0, 1)], -1)
    heading = _heading(motion, joints)
    lateral_dir = np.stack([-heading[:, 1], heading[:, 0]], -1)
    lateral = np.sum((root[:, :2] - mean_path) * lateral_dir, -1)
    inner = [s[(s >= n_cycle // 2) & (s < len(root) - n_cycle // 2)] for s in strikes]
    hip_line = p[:, sk.index(joints.hip[0])] - p[:, sk.index(joints.hip[1])]
    obliquity = np.degrees(np.arcsin(hip_line[:, 2] / np.linalg.norm(hip_line, axis=-1)))
    clearance = []
    for s in (0, 1):
        ball_z = p[:, sk.index(joints.ball[s]), 2]
        for a, b in _pairs(strikes[s]):
            inside = offs[s][(offs[s] > a) & (offs[s] < b)]
            if len(inside):
                mid = 0.5 * (inside[0] + b)
                on_floor = np.median(ball_z[a : inside[0]])
                clearance.append(np.interp(mid, np.arange(len(ball_z)), ball_z) - on_floor)
    at60 = motion.resample(60.0) if abs(fps - 60.0) > 1e-9 else motion
    angles60 = _angles(at60, joints)
    steps = {
        k: float(np.abs(np.diff(angles60[k], axis=-1)).max()) for k in ("hip", "knee", "ankle")
    }
    accel = np.abs(np.diff(np.stack([angles60[k] for k in ("hip", "knee", "ankle")]), 2, -1))
    return GaitAnalysis(
        curves=curves,
        stance_fraction=float(np.mean(stance)) if stance else np.nan,
        speed_m_s=speed,
        cadence_steps_min=float(cadence),
        step_length_m=speed * 60.0 / float(cadence),
        pelvis_excursion_m=np.mean([_per_cycle_ptp(root[:, 2], s) for s in strikes]),
        pelvis_curvature_ratio=_curvature_ratio(root[:, 2], fps, cycle_s),
        obliquity_deg=np.mean([_per_cycle_ptp(obliquity, s) for s in strikes]),
        sway_m=np.mean([_per_cycle_ptp(lateral, s) for s in inner if len(s) > 1]),
        ball_clearance_m=float(np.mean(clearance)) if clearance else np.nan,
        elbow_range_deg=np.mean([_per_cycle_ptp(angles["elbow"][s], strikes[s]) for s in (0, 1)]),
        angle_step_deg=steps,
        leg_acceleration_p99_deg=float(np.percentile(accel, 99)),
        cycles=sum(len(s) - 1 for s in strikes),
    )


def knee_maxima(knee: NDArray, dip_deg: float = 2.0) -> NDArray[np.int64]:
    """Number of knee maxima ``(C,)`` from mid-stance to the swing peak in each cycle.

    ``knee (C, 101)`` is flexion over normalised cycles [deg]. The stretch runs
    from the least flexion between 20 and 50 % (mid-stance) to the greatest
    flexion after it; a maximum counts when the knee falls by more than
    ``dip_deg`` after it (the swing peak itself always counts), so one hump is 1.
    """
    knee = np.atleast_2d(np.asarray(knee, dtype=np.float64))
    counts = []
    for curve in knee:
        start = 20 + int(np.argmin(curve[20:51]))
        stop = start + int(np.argmax(curve[start:]))
        seg = np.append(curve[start : stop + 1], -np.inf)
        counts.append(len(find_peaks(seg, prominence=dip_deg)[0]))
    return np.array(counts, dtype=np.int64)


def monotonic_until(curve: NDArray, start: int, tolerance_deg: float = 0.5) -> int:
    """Where a falling stretch of ``curve (101,)`` from ``start`` ends (its minimum) [%].

    Returns the index of the curve's minimum after ``start`` when the curve
    never rises by more than ``tolerance_deg`` on the way there, else −1.
    """
    end = start + int(np.argmin(curve[start:]))
    seg = curve[start : end + 1]
    rise = seg - np.minimum.accumulate(seg)
    return end if rise.max() <= tolerance_deg else -1


def curve_agreement(curve: NDArray, reference: NDArray) -> tuple[float, float]:
    """Pearson correlation and RMS difference [same units] with offsets removed.

    ``curve`` and ``reference`` are ``(101,)`` mean curves over the normalised cycle.
    """
    a = np.asarray(curve, dtype=np.float64) - np.mean(curve)
    b = np.asarray(reference, dtype=np.float64) - np.mean(reference)
    return float(np.corrcoef(a, b)[0, 1]), float(np.sqrt(np.mean((a - b) ** 2)))
