"""Parametric walking: footprints, pelvis and swing-ankle paths, legs by analytic IK.

The method follows Chen et al. (seed 004): a gait cycle of two steps with single
and double support, eight keyframes a cycle for the upper body interpolated by
quaternion slerp, the pelvis and the swing ankle on paths set by step length
and speed, and the legs solved by the law of cosines in the hip-knee-ankle
triangle; the swinging leg is keyframed too (its IK poses at four frames of
each swing, joined by SQUAD). Additions needed for clean contacts: the stance
foot's ball (toe joint) never moves; the heel rises about it in terminal
stance; the pelvis is as high as the stance legs allow, which gives its
vertical oscillation; in swing the ankle is kept within its range of motion.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.ndimage import gaussian_filter1d, minimum_filter1d

from vhuman.animation.easing import Easing, ease
from vhuman.animation.gait import GaitParameters
from vhuman.animation.keyframes import Interpolation, KeyframeTrack
from vhuman.errors import InputError
from vhuman.geometry.euler import euler_to_quat
from vhuman.geometry.interpolation import quat_squad
from vhuman.geometry.quaternion import (
    quat_angle,
    quat_apply,
    quat_conjugate,
    quat_identity,
    quat_multiply,
    rotmat_to_quat,
)
from vhuman.skeleton.humanoid import standard_humanoid
from vhuman.skeleton.motion import Motion, frame_count
from vhuman.skeleton.skeleton import Skeleton

__all__ = ["HEEL_OFF", "WalkResult", "generate_walk"]

HEEL_OFF = 0.2
"""Share of the cycle after heel strike at which the heel starts to rise. Perry &
Burnfield (2010) put heel rise at about 31 %; starting at 20 % keeps the stance
ankle within the AAOS 20° of dorsiflexion with this model's flexed knee and
spreads the push-off, which slows the knee at toe-off."""

_KEYS_PER_CYCLE = 8
_REACH = 0.99  # legs straighten to at most 99 % of thigh + shank (knee ≥ ~16°)
_SOFT = 0.02  # swing legs approach full reach smoothly over the last 2 % of the leg
_SWING_KEYS = 4  # keyframes of the free leg per swing (toe-off, two in-betweens, heel strike)
_UPPER_BODY = (
    "spine", "chest", "neck", "head", "l_clavicle", "r_clavicle",
    "l_shoulder", "r_shoulder", "l_elbow", "r_elbow", "l_wrist", "r_wrist",
)  # fmt: skip


@dataclass(frozen=True, eq=False)
class WalkResult:
    """A generated walk and the figures measured on it.

    Attributes
    ----------
    motion : Motion
        The walk.
    parameters : GaitParameters
        What was asked.
    step_length_m : float or None
        Measured from the generated feet (footprint to footprint along the
        heading); None when the walk is too short for two complete stances.
    speed_m_s : float
        Measured from the pelvis (displacement over whole cycles).
    cadence_steps_min : float
        Steps per minute.
    foot_skate_mm : float
        Largest horizontal slide of a planted foot point (ball of the foot over
        the whole stance, ankle until heel rise) [mm].
    ground_penetration_mm : float
        Deepest point of the foot capsules below the floor z = 0 [mm].
    max_joint_step_deg : float
        Largest change of any joint's local rotation between two frames [deg].
    pelvis_excursion_m : float
        Peak-to-peak vertical motion of the pelvis [m].
    generation_fps : float
        Frames generated per second of wall time.
    """

    motion: Motion
    parameters: GaitParameters
    step_length_m: float | None
    speed_m_s: float
    cadence_steps_min: float
    foot_skate_mm: float
    ground_penetration_mm: float
    max_joint_step_deg: float
    pelvis_excursion_m: float
    generation_fps: float

    def to_dict(self) -> dict:
        """JSON-ready figures (the `vhuman walk --json` output)."""
        m = self.motion
        return {
            "frames": m.n_frames,
            "fps": m.fps,
            "duration_s": m.duration,
            "requested": self.parameters.to_dict(),
            "step_length_m": self.step_length_m,
            "speed_m_s": self.speed_m_s,
            "cadence_steps_min": self.cadence_steps_min,
            "foot_skate_mm": self.foot_skate_mm,
            "ground_penetration_mm": self.ground_penetration_mm,
            "max_joint_step_deg": self.max_joint_step_deg,
            "pelvis_excursion_m": self.pelvis_excursion_m,
            "generation_fps": self.generation_fps,
        }


def _qz(angle: NDArray) -> NDArray[np.float64]:
    """Rotations ``(..., 4)`` about +z by ``angle`` [rad]."""
    h = 0.5 * np.asarray(angle, dtype=np.float64)
    z = np.zeros_like(h)
    return np.stack([np.cos(h), z, z, np.sin(h)], axis=-1)


def _qaxis(axis: NDArray, angle: NDArray) -> NDArray[np.float64]:
    """Rotations ``(..., 4)`` about unit ``axis (3,)`` by ``angle (...)`` [rad]."""
    h = 0.5 * np.asarray(angle, dtype=np.float64)[..., None]
    return np.concatenate([np.cos(h), np.sin(h) * axis], axis=-1)


@dataclass(frozen=True)
class _Body:
    """The measurements of the standard humanoid that the gait needs."""

    skeleton: Skeleton
    thigh: float
    shank: float
    hip_offset: NDArray[np.float64]  # left hip in the pelvis frame (3,)
    toe_offset: NDArray[np.float64]  # ball of the foot in the ankle frame (3,)
    ankle_height: float  # ankle above the floor when the foot is flat [m]

    @classmethod
    def of(cls, sk: Skeleton) -> _Body:
        idx = {n: sk.index(n) for n in ("l_hip", "l_knee", "l_ankle", "l_toe", "r_hip")}
        for part in ("l_knee", "l_ankle"):
            off = sk.offsets[idx[part]]
            if abs(off[0]) > 1e-9 or abs(off[1]) > 1e-9 or off[2] >= 0.0:
                raise InputError(
                    "the walking generator needs a skeleton whose legs hang along −z at rest "
                    "(the standard humanoid layout)"
                )
        if sk.segments is None or sk.segments[idx["l_ankle"]] is None:
            raise InputError("the walking generator needs foot segments to find the sole")
        toe = sk.offsets[idx["l_toe"]]
        lowest = []
        for j, origin in ((idx["l_ankle"], np.zeros(3)), (idx["l_toe"], toe)):
            seg = sk.segments[j]
            if seg is not None:
                lowest.append(min(seg.start[2], seg.end[2]) + origin[2] - seg.radius)
        return cls(
            skeleton=sk,
            thigh=float(np.linalg.norm(sk.offsets[idx["l_knee"]])),
            shank=float(np.linalg.norm(sk.offsets[idx["l_ankle"]])),
            hip_offset=sk.offsets[idx["l_hip"]].copy(),
            toe_offset=toe.copy(),
            ankle_height=-float(min(lowest)),
        )

    @property
    def reach(self) -> float:
        """Longest hip-ankle distance used [m]."""
        return _REACH * (self.thigh + self.shank)

    @property
    def support_reach(self) -> float:
        """Longest hip-ankle distance of a stance leg [m]: the soft zone stays free."""
        return (_REACH - _SOFT) * (self.thigh + self.shank)


def _path(t: NDArray, p: GaitParameters) -> tuple[NDArray, NDArray]:
    """Pelvis path on the floor ``(N, 2)`` [m] and heading ``(N,)`` [rad] at times ``t``."""
    w = p.turn_rate
    heading = w * t
    if abs(w) < 1e-9:
        xy = np.stack([p.speed * t, np.zeros_like(t)], axis=-1)
    else:
        r = p.speed / w
        xy = np.stack([r * np.sin(heading), r * (1.0 - np.cos(heading))], axis=-1)
    return xy, heading


def _foot(
    t: NDArray, side: int, p: GaitParameters, body: _Body, width: float
) -> tuple[NDArray, NDArray, NDArray, NDArray]:
    """Ankle position ``(N, 3)``, foot rotation ``(N, 4)``, foot pitch ``(N,)`` and stance mask.

    ``side`` is +1 for the left foot, −1 for the right. The right foot strikes at
    0, D, 2D…, the left at D/2, 3D/2…; footprint ``i`` lies a quarter cycle ahead
    on the path.
    """
    d = p.cycle_duration
    first = 0.0 if side < 0 else 0.5
    k = np.floor(t / d - first)
    strike = (k + first) * d
    tau = (t - strike) / d

    def footprint(strike_time: NDArray) -> tuple[NDArray, NDArray]:
        xy, heading = _path(strike_time + d / 4.0, p)
        lateral = np.stack([-np.sin(heading), np.cos(heading)], axis=-1)
        ankle = np.concatenate(
            [xy + side * 0.5 * width * lateral, np.full((len(xy), 1), body.ankle_height)], axis=-1
        )
        return ankle, heading

    ankle_now, yaw_now = footprint(strike)
    ankle_next, yaw_next = footprint(strike + d)
    toe_now = ankle_now + quat_apply(_qz(yaw_now), body.toe_offset)
    ankle_from_toe = -body.toe_offset
    y_axis = np.array([0.0, 1.0, 0.0])
    sf = p.stance_fraction
    stance = tau < sf

    # Stance: the ball of the foot stays put; the heel rises about it late in stance.
    rise = (tau - HEEL_OFF) / (sf - HEEL_OFF)
    pitch = np.where(tau > HEEL_OFF, p.heel_rise * ease(Easing.MINIMUM_JERK, rise), 0.0)
    q_stance = quat_multiply(_qz(yaw_now), _qaxis(y_axis, pitch))
    ankle_stance = toe_now + quat_apply(q_stance, ankle_from_toe)

    # Swing: from the toe-off ankle to the next footprint, minimum-jerk timing, a lift.
    s = np.clip((tau - sf) / (1.0 - sf), 0.0, 1.0)
    q_off = quat_multiply(_qz(yaw_now), _qaxis(y_axis, np.full_like(t, p.heel_rise)))
    start = toe_now + quat_apply(q_off, ankle_from_toe)
    u = ease(Easing.MINIMUM_JERK, s)[:, None]
    ankle_swing = start + (ankle_next - start) * u
    ankle_swing[:, 2] += p.foot_clearance * 64.0 * (s * (1.0 - s)) ** 3
    pitch_swing = p.heel_rise * (1.0 - ease(Easing.MINIMUM_JERK, 2.0 * s))
    yaw_swing = yaw_now + (yaw_next - yaw_now) * u[:, 0]
    q_swing = quat_multiply(_qz(yaw_swing), _qaxis(y_axis, pitch_swing))

    ankle = np.where(stance[:, None], ankle_stance, ankle_swing)
    rotation = np.where(stance[:, None], q_stance, q_swing)
    return ankle, rotation, np.where(stance, pitch, pitch_swing), stance


def _leg(hip: NDArray, ankle: NDArray, forward: NDArray, body: _Body) -> tuple[NDArray, NDArray]:
    """World thigh rotation ``(N, 4)`` and knee flexion ``(N,)`` [rad], law of cosines.

    The knee bends forward, towards ``forward (N, 3)``; the thigh's local y axis
    (the knee's hinge) is normal to the hip-knee-ankle plane.
    """
    l1, l2 = body.thigh, body.shank
    v = ankle - hip
    d = np.clip(np.linalg.norm(v, axis=-1), abs(l1 - l2) + 1e-9, l1 + l2 - 1e-9)
    u = v / np.linalg.norm(v, axis=-1, keepdims=True)
    cos_a = np.clip((l1 * l1 + d * d - l2 * l2) / (2.0 * l1 * d), -1.0, 1.0)
    pole = forward - np.sum(forward * u, axis=-1, keepdims=True) * u
    pole /= np.linalg.norm(pole, axis=-1, keepdims=True)
    thigh_dir = cos_a[:, None] * u + np.sqrt(1.0 - cos_a * cos_a)[:, None] * pole
    e_z = -thigh_dir
    e_x = pole - np.sum(pole * e_z, axis=-1, keepdims=True) * e_z
    e_x /= np.linalg.norm(e_x, axis=-1, keepdims=True)
    e_y = np.cross(e_z, e_x)
    g_thigh = rotmat_to_quat(np.stack([e_x, e_y, e_z], axis=-1))
    cos_k = np.clip((l1 * l1 + l2 * l2 - d * d) / (2.0 * l1 * l2), -1.0, 1.0)
    return g_thigh, np.pi - np.arccos(cos_k)


def _pelvis_height(
    hips: list[NDArray],
    ankles: list[NDArray],
    stances: list[NDArray],
    body: _Body,
    window: int,
    p: GaitParameters,
) -> NDArray[np.float64]:
    """Pelvis height ``(N,)`` [m]: as high as the stance legs allow, smoothed from below.

    A stance leg allows the hip at most ``sqrt(reach² − h²)`` above its ankle
    (``h`` the horizontal hip-ankle distance); the pelvis takes the lowest
    allowance, capped at full reach over a flat foot, then a minimum filter and
    a Gaussian smooth it without exceeding it. This gives the pelvis its rise
    at mid-stance and its fall in double support. Swing legs do not hold the
    pelvis down: their ankles are lifted instead (see :func:`_lift_swing`).
    """
    reach = body.support_reach
    allowed = np.full(len(hips[0]), body.ankle_height + reach)
    for hip, ankle, stance in zip(hips, ankles, stances, strict=True):
        horizontal = np.linalg.norm(hip[:, :2] - ankle[:, :2], axis=-1)
        if np.any(horizontal[stance] >= reach):
            raise InputError(
                f"step length {p.step_length} m is impossible for a leg of "
                f"{body.thigh + body.shank:.3f} m: the foot lies beyond the leg's reach; "
                "shorten the step"
            )
        limit = ankle[:, 2] - hip[:, 2] + np.sqrt(np.maximum(reach**2 - horizontal**2, 0.0))
        allowed = np.where(stance, np.minimum(allowed, limit), allowed)
    smooth = gaussian_filter1d(minimum_filter1d(allowed, size=2 * window + 1), sigma=window / 3.0)
    return np.minimum(smooth, allowed)


def _lift_swing(hip: NDArray, ankle: NDArray, stance: NDArray, body: _Body) -> NDArray:
    """Swing ankle targets ``(N, 3)`` pulled smoothly within the leg's reach.

    Beyond the support reach ``r0`` the hip-ankle distance ``d`` is mapped to
    ``r0 + δ (1 − exp(−(d − r0)/δ))`` (C¹, never above ``r0 + δ`` = the full
    reach), so a swinging leg straightens without a sudden stop; the target
    moves along the hip-ankle line. Stance frames are untouched.
    """
    r0, delta = body.support_reach, body.reach - body.support_reach
    v = ankle - hip
    d = np.linalg.norm(v, axis=-1)
    soft = np.where(d > r0, r0 + delta * (1.0 - np.exp(-(d - r0) / delta)), d)
    scaled = hip + v * (soft / np.maximum(d, 1e-12))[:, None]
    return np.where(stance[:, None], ankle, scaled)


def _smooth_swing(
    local: NDArray, joints: NDArray, swing: NDArray, keys: int
) -> NDArray[np.float64]:
    """Swing-leg rotations ``(N, k, 4)`` re-timed through ``keys`` keyframes per swing.

    The seed's keyframe approach for the free leg: the IK poses at evenly
    spaced frames of each swing (its first and last frame included) are the
    keys, and SQUAD in between gives a C¹ joint path; stance frames keep their
    per-frame IK, so the planted foot stays exact.
    """
    out = local[:, joints].copy()
    edges = np.diff(np.concatenate([[0], swing.astype(np.int8), [0]]))
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1, strict=True):
        if b - a < keys:
            continue
        key_frames = np.unique(np.round(np.linspace(a, b, keys)).astype(np.intp))
        frames = np.arange(a, b + 1)
        out[frames] = quat_squad(local[key_frames][:, joints], key_frames.astype(float), frames)
    return out


def _upper_body_track(
    t_end: float, p: GaitParameters, sk: Skeleton, yaw_amp: float
) -> KeyframeTrack:
    """Eight keys a cycle for trunk counter-rotation and arm swing (the seed's keyframes)."""
    d = p.cycle_duration
    n_keys = p.cycles * _KEYS_PER_CYCLE + 1
    times = np.linspace(0.0, t_end, n_keys)
    phase = 2.0 * np.pi * times / d
    q = np.tile(quat_identity((sk.n_joints,)), (n_keys, 1, 1))
    # Trunk counter-rotates against the pelvis so the chest faces the heading.
    for name in ("spine", "chest"):
        q[:, sk.index(name)] = _qz(-0.5 * yaw_amp * np.cos(phase))
    arm = np.clip(np.radians(16.0) * p.speed / 1.3, np.radians(4.0), np.radians(35.0))
    for side, sign in (("r", -1.0), ("l", 1.0)):
        # Right arm back at right heel strike (phase 0), forward at left heel strike.
        flexion = sign * arm * np.cos(phase)
        abduction = np.full(n_keys, sign * np.radians(6.0))
        zeros = np.zeros(n_keys)
        q[:, sk.index(f"{side}_shoulder")] = euler_to_quat(
            np.stack([-flexion, zeros, abduction], axis=-1),
            sk.limit_sequences[sk.index(f"{side}_shoulder")],
        )
        elbow = sk.index(f"{side}_elbow")
        elbow_flex = np.radians(18.0) + 0.6 * np.maximum(flexion, 0.0)
        q[:, elbow] = _qaxis(sk.axes[elbow], elbow_flex)
    return KeyframeTrack(times, q, np.zeros((n_keys, 3)))


def generate_walk(
    parameters: GaitParameters | None = None, skeleton: Skeleton | None = None
) -> WalkResult:
    """Generate a walk of the standard humanoid.

    Parameters
    ----------
    parameters : GaitParameters, optional
        Step length, speed, cycles, turning, phases and frame rate.
    skeleton : Skeleton, optional
        A skeleton with the standard humanoid's joints (default
        ``standard_humanoid()``, GB/T 10000 male P50, 1.678 m).

    Returns
    -------
    WalkResult
        The motion and its measured figures.

    Raises
    ------
    InputError
        For parameters outside walking (see `GaitParameters`), a step too long
        for the leg, or a skeleton of another layout.
    """
    started = time.perf_counter()
    p = GaitParameters() if parameters is None else parameters
    sk = standard_humanoid() if skeleton is None else skeleton
    body = _Body.of(sk)
    n = frame_count(p.duration, p.fps)
    t = np.arange(n) / p.fps
    d = p.cycle_duration
    scale = p.step_length / 0.7
    sway = 0.02
    yaw_amp = np.radians(4.0) * scale
    width = p.step_width if p.step_width is not None else 0.3 * 2 * body.hip_offset[1] + 0.05

    xy, heading = _path(t, p)
    lateral = np.stack([-np.sin(heading), np.cos(heading), np.zeros(n)], axis=-1)
    pelvis = np.concatenate([xy, np.zeros((n, 1))], axis=-1)
    pelvis += (-sway * np.sin(2.0 * np.pi * t / d))[:, None] * lateral
    q_pelvis = _qz(heading + yaw_amp * np.cos(2.0 * np.pi * t / d))

    feet = {side: _foot(t, side, p, body, width) for side in (-1, 1)}
    mirror = np.array([1.0, -1.0, 1.0])

    def hips_at(pelvis_pos: NDArray) -> dict[int, NDArray]:
        return {
            side: pelvis_pos + quat_apply(q_pelvis, body.hip_offset * (mirror if side < 0 else 1))
            for side in (-1, 1)
        }

    hips = hips_at(pelvis)
    window = max(1, round(p.fps * d / 16))
    pelvis[:, 2] = _pelvis_height(
        [hips[-1], hips[1]], [feet[-1][0], feet[1][0]], [feet[-1][3], feet[1][3]], body, window, p
    )
    leg = body.thigh + body.shank
    if pelvis[:, 2].min() < body.ankle_height + 0.8 * leg:
        raise InputError(
            f"step length {p.step_length} m is too long for a leg of {leg:.3f} m: the pelvis "
            f"would sink more than 20 % of the leg length; shorten the step"
        )
    hips = hips_at(pelvis)

    local = np.tile(quat_identity((sk.n_joints,)), (n, 1, 1))
    local[:, sk.index("pelvis")] = q_pelvis
    upper = _upper_body_track(t[-1] if n > 1 else d, p, sk, yaw_amp)
    _, upper_rot = upper.sample(t, Interpolation.SQUAD)  # C¹: no kinks at the keys
    ub = sk.indices(_UPPER_BODY)
    local[:, ub] = upper_rot[:, ub]
    for side, prefix in ((-1, "r"), (1, "l")):
        ankle, q_foot, pitch, stance = feet[side]
        ankle = _lift_swing(hips[side], ankle, stance, body)
        forward = quat_apply(q_foot, [1.0, 0.0, 0.0])
        forward[:, 2] = 0.0
        g_thigh, knee = _leg(hips[side], ankle, forward, body)
        knee_j = sk.index(f"{prefix}_knee")
        q_knee = _qaxis(sk.axes[knee_j], knee)
        g_shank = quat_multiply(g_thigh, q_knee)
        local[:, sk.index(f"{prefix}_hip")] = quat_multiply(quat_conjugate(q_pelvis), g_thigh)
        local[:, knee_j] = q_knee
        ankle_j = sk.index(f"{prefix}_ankle")
        q_ankle = quat_multiply(quat_conjugate(g_shank), q_foot)
        # In swing the foot follows the ground-based profile only as far as the ankle's
        # range of motion allows (the shank swings back further than a flat foot can follow).
        local[:, ankle_j] = q_ankle
        clamped = sk.clamp(local, [ankle_j])[:, ankle_j]
        local[:, ankle_j] = np.where(stance[:, None], q_ankle, clamped)
        toe_j = sk.index(f"{prefix}_toe")
        local[:, toe_j] = _qaxis(sk.axes[toe_j], pitch)  # keeps the toes flat
        leg = sk.indices([f"{prefix}_{j}" for j in ("hip", "knee", "ankle", "toe")])
        local[:, leg] = _smooth_swing(local, leg, ~stance, _SWING_KEYS)
    motion = Motion(sk, p.fps, pelvis, local)
    elapsed = time.perf_counter() - started
    return _measure(motion, p, body, feet, n / elapsed)


def _measure(
    motion: Motion, p: GaitParameters, body: _Body, feet: dict, gen_fps: float
) -> WalkResult:
    """Measure the generated walk from its own forward kinematics."""
    sk = motion.skeleton
    pos = motion.global_positions
    rot = motion.global_rotations
    t = motion.times
    d = p.cycle_duration
    # Speed: pelvis displacement over each whole cycle (chord), at exact times.
    root = motion.root_positions
    cycles = max(1, round(np.floor(t[-1] / d + 1e-9)))

    def pelvis_at(time_s: float) -> NDArray:
        return np.array([np.interp(time_s, t, root[:, k]) for k in (0, 1)])

    chords = [np.linalg.norm(pelvis_at((c + 1) * d) - pelvis_at(c * d)) for c in range(cycles)]
    speed = float(np.sum(chords) / (cycles * d))
    # Step length and foot skate from the planted feet.
    prints, skate = [], 0.0
    for side, prefix in ((-1, "r"), (1, "l")):
        stance = feet[side][3]
        toe = pos[:, sk.index(f"{prefix}_toe"), :2]
        ankle = pos[:, sk.index(f"{prefix}_ankle"), :2]
        phase = (t / d - (0.0 if side < 0 else 0.5)) % 1.0
        starts = np.flatnonzero(stance & ~np.roll(stance, 1))
        for s0 in starts:
            run = s0 + np.flatnonzero(~stance[s0:])[0] if np.any(~stance[s0:]) else len(t)
            if s0 == 0 or run == len(t):
                continue  # a stance cut by the start or end of the motion
            skate = max(skate, float(np.linalg.norm(toe[s0:run] - toe[s0], axis=-1).max()))
            flat = s0 + np.flatnonzero(phase[s0:run] <= HEEL_OFF)
            skate = max(skate, float(np.linalg.norm(ankle[flat] - ankle[s0], axis=-1).max()))
            prints.append((t[s0], ankle[s0]))
    prints.sort(key=lambda x: x[0])
    steps = []
    for (ta, a), (tb, b) in itertools.pairwise(prints):
        heading = p.turn_rate * (0.5 * (ta + tb) + d / 4.0)
        steps.append(float(np.dot(b - a, [np.cos(heading), np.sin(heading)])))
    # Soles: the lowest point of the foot and toe capsules.
    lowest = np.inf
    for name in ("l_ankle", "r_ankle", "l_toe", "r_toe"):
        j = sk.index(name)
        seg = sk.segments[j] if sk.segments is not None else None
        if seg is None:
            continue
        ends = pos[:, j, None, :] + quat_apply(rot[:, j, None, :], np.stack([seg.start, seg.end]))
        lowest = min(lowest, float(ends[..., 2].min() - seg.radius))
    steps_deg = np.degrees(quat_angle(motion.local_rotations[:-1], motion.local_rotations[1:]))
    return WalkResult(
        motion=motion,
        parameters=p,
        step_length_m=float(np.mean(steps)) if steps else None,
        speed_m_s=speed,
        cadence_steps_min=p.cadence,
        foot_skate_mm=1e3 * skate,
        ground_penetration_mm=1e3 * max(0.0, -lowest),
        max_joint_step_deg=float(steps_deg.max()) if len(steps_deg) else 0.0,
        pelvis_excursion_m=float(np.ptp(motion.root_positions[:, 2])),
        generation_fps=gen_fps,
    )
