"""Parametric walking: footprints, foot rockers, pelvis height from the stance knees, legs by IK.

The method follows Chen et al.: a gait cycle of two steps with single
and double support, eight keyframes a cycle for the upper body interpolated by
quaternion SQUAD, the pelvis and the feet on paths set by step length and speed,
and the legs solved by the law of cosines in the hip-knee-ankle triangle. What
keeps contacts clean and the knees human:

- a planted foot rolls over its heel after heel strike, lies flat, then rises
  about the ball of the foot (heel, ankle and forefoot rockers); the pivot of
  each phase never moves; before toe-off the heel rises at least as far as
  keeps the trailing knee bent by 20° (long steps), in terminal stance at least
  as far as keeps the ankle within its dorsiflexion range, the leg it lengthens
  holding the pelvis up (:func:`_dorsiflexion_floor`), and no faster than
  :data:`_HEEL_RISE_RATE`; the swing carries the foot's motion at toe-off on;
- the pelvis height is the one at which the leading stance knee follows
  :data:`STANCE_KNEE` through loading response and mid-stance; a cubic Hermite
  curve in time takes it down to the other heel strike, arriving there at rest
  (its lowest, rounded on the way in), kept within the trailing leg's reach and
  high enough for the trailing knee to extend;
- from mid-stance on, the knee follows :func:`knee_profile`: it extends through
  terminal stance, then rises once to the swing peak; in late stance the heel
  rises about the ball of the foot as far as that flexion needs, in swing the
  ankle's height follows from it;
- from mid-swing the foot turns with the shank, the ankle about neutral, and
  the sole keeps clear of the floor (:data:`_SOLE_CLEARANCE`);
- the landing heel comes down onto its footprint as it stops: it keeps off the
  floor while it still moves forward (:func:`_landing_clearance`), so no
  foot point skims the floor before heel strike;
- step length and stance share follow from speed when not given
  (:func:`~vhuman.animation.gait.default_step_length`), the pelvis sways less
  and its hips tilt (obliquity) as people's do, and it turns about the vertical
  more above 1.3 m/s (:data:`_PELVIC_ROTATION_PER_SPEED`).
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.interpolate import PchipInterpolator

from vhuman.animation.easing import Easing, ease
from vhuman.animation.gait import GaitParameters
from vhuman.animation.keyframes import Interpolation, KeyframeTrack
from vhuman.errors import InputError
from vhuman.geometry.euler import euler_to_quat, quat_to_euler
from vhuman.geometry.interpolation import quat_slerp
from vhuman.geometry.quaternion import (
    quat_angle,
    quat_apply,
    quat_conjugate,
    quat_identity,
    quat_multiply,
    rotmat_to_quat,
)
from vhuman.ik import CCD, Chain, IKResult
from vhuman.skeleton.humanoid import standard_humanoid
from vhuman.skeleton.motion import Motion, frame_count
from vhuman.skeleton.skeleton import Skeleton

__all__ = [
    "FOOT_FLAT",
    "HEEL_OFF",
    "PELVIS_LEAD",
    "STANCE_KNEE",
    "WalkResult",
    "generate_walk",
    "knee_profile",
    "paced_path",
    "stance_knee",
]

FOOT_FLAT = 0.09
"""Share of the cycle after heel strike at which the forefoot touches down (end of the heel
rocker, within loading response, the first 10-12 % of the cycle, Perry & Burnfield 2010);
later where the cycle is short (:func:`_foot_flat`). The ankle rolls about the heel and
the pelvis comes down with it, so a heel rocker that ends earlier takes up more of the
pelvis's rise over the leading leg after heel strike: with the forefoot down at 10 % of
the cycle, the pelvis's lowest point is 1.56 / 2.03 times as sharp as its highest at
1.0 / 1.3 m/s (here 1.38 / 1.95), and the ankle plantarflexes −3.3 / −4.6° in loading
response (here −4.9 / −6.6°)."""
_FOOT_FALL = 0.095
"""Least time [s] the forefoot takes to come down from heel strike to foot flat
(:func:`_foot_flat`): 95 ms puts it at 10 % of a cycle of 0.95 s (1.6 m/s) and leaves
9 % at 1.3 m/s and slower. With the forefoot down at 9 % at 1.6 m/s, the leg angles'
second difference reaches 5.5°/frame² at its 99th percentile (5.1 at 10 %; the limit
there is 5.7) and the ankle plantarflexes 6.4° in loading response (4.5°)."""
PELVIS_LEAD = 0.015
"""How far [leg lengths] the pelvis lies ahead of the midpoint between the footprints at
each heel strike (on a straight path), times :func:`_long_step_fade`. Each footprint lies
on the path where the pelvis passes a quarter cycle after that foot's heel strike, less
this distance. At the heel strikes of the gait events (Zeni et al. 2008: the ankle
furthest ahead of the pelvis) the leading ankle then lies 0.36 leg lengths ahead of the
pelvis and the trailing one 0.33 behind at 1.0 m/s, 0.47 and 0.40 at 1.6 m/s (there with
the fade at 0.9); six recorded CMU walks at 1.0-1.6 m/s, measured the same way: 0.33-0.46
ahead, 0.28-0.39 behind. With the footprints centred under the pelvis (a lead of 0) the
pelvis rises and falls further and comes down to its lowest more sharply (excursion
2.7 / 4.3 / 5.6 cm at 1.0 / 1.3 / 1.6 m/s against 2.3 / 3.8 / 5.1 cm; curvature at the
minima over that at the maxima 1.8 / 2.5 / 4.0 against 1.4 / 1.9 / 3.2), and the trailing
heel rises less before toe-off: the push-off is 1.5-2.4° shallower."""
_LONG_STEP, _FADE = 0.5, 0.05
"""Step [statures] from which :data:`PELVIS_LEAD` is gone and the hips are highest at
:data:`_HIGH_HIP_LONG_STEP` of the cycle instead of :data:`_HIGH_HIP`, and the width over
which both fade out below it (:func:`_long_step_fade`). On such steps the trailing leg
needs all its reach to keep its knee bent before toe-off: with neither faded, a step of
0.84 m (half the stature) at 1.64 m/s flexes the trailing knee only to 14-16° by toe-off
(25-26° with both faded; 18-20° with only the hips' peak faded, 22-23° with only the lead
faded; the right knee at each toe-off of a walk of 3 cycles), and a step of 1 m at
1.6 m/s turns a joint 15.2° in a frame (12.1° with both faded; the largest change of a
joint's local rotation between frames at 60 fps). The default steps reach 0.45 statures
at 1.6 m/s, where the fade is 0.9."""
HEEL_OFF = 0.31
"""Share of the cycle after heel strike at which the heel starts to rise (31 %, the start
of terminal stance; Perry & Burnfield 2010)."""
STANCE_KNEE = ((0.0, 7.0), (0.13, 16.5), (HEEL_OFF, 16.0))
"""Knee flexion [deg] of a planted leg at shares of the cycle after its heel strike: nearly
straight at heel strike (7°), flexing to 17° in loading response (Perry & Burnfield 2010,
ch. 5: 15-20°) and still flexed by 16° at the end of mid-stance; it straightens in
terminal stance (:func:`knee_profile`), as in the recorded CMU walks, whose knee stays
within about 4° of its loading peak through mid-stance and is straightest at about 50 %.
At 1.3 m/s and slower. The pelvis height is set so the stance knees follow it."""
_LOADING_KNEE_PER_SPEED = 11.5
"""Growth of the loading-response knee flexion with speed above 1.3 m/s [deg per m/s]:
peak stance knee flexion rises with walking speed (Lelas et al. 2003; the recorded CMU
walks flex 7° more at 1.6 m/s than at 1.3 m/s), here to about 20° at 1.6 m/s, the top of
Perry & Burnfield's range."""
_MID_STANCE_KNEE_PER_SPEED = 8.0
"""Growth of the mid-stance knee flexion with speed above 1.3 m/s [deg per m/s]: the knee
stays within a few degrees of its loading peak through mid-stance, as in the recorded CMU
walks, which keeps the pelvis's rise at 1.6 m/s near people's 5 cm."""

_LEVEL = 0.8  # share of the swing over which the foot levels out (and turns toes up)
# Knee keys after mid-stance, (share of the cycle relative to toe-off, flexion [deg]):
# the knee extends through terminal stance to its straightest, 6°, 16 % before toe-off,
# then flexes through pre-swing, 20° halfway and 39° at toe-off (Perry & Burnfield 2010,
# ch. 5: about 5° at the end of terminal stance, 40° by the end of pre-swing; the recorded
# CMU walks bend least at about 50 %); the swing peak follows 12 % after toe-off. The heel
# rises about the ball of the foot as far as this flexion needs (:func:`_heel_rise`), so
# the pre-swing knee sets the ankle's push-off plantarflexion (the knee-ankle
# interaction of Saunders, Inman & Eberhart 1953); the flexion spread over 16 % of the
# cycle keeps the ankle within 10° a frame at 60 fps from 1.0 to 1.6 m/s.
_LATE_KNEE = ((-0.16, 6.0), (-0.08, 20.0), (0.0, 39.0))
_SWING_PEAK_AFTER_TOE_OFF = 0.12
_NEUTRAL_FROM, _NEUTRAL_BY = 0.15, 0.5  # shares of the swing: the ankle turns to neutral
_SOLE_CLEARANCE = 0.019
"""Least height [m] of the swinging foot's sole over the floor at mid-swing, less towards
toe-off and heel strike (:func:`_sole_lift`): with the ankle at neutral the foot points
its toes down as far as the shank leans back, and the swing rises to keep this clearance
(the minimum toe clearance of mid-swing, Winter 1992); the ball of the foot then clears
its standing height by 2-3 cm."""
_LIFT_PEAK, _LIFT_DOWN_BY = 0.45, 0.8
"""Shares of the swing at which the swing's lift for the toes (:func:`_sole_lift`) is
highest and by which it has come back down. It is highest about mid-swing, where the toes
pass nearest the floor (Winter 1992), and gone in terminal swing, where the knee extends
and the foot reaches forward for heel strike with its toes up: a lift still there would
flex the hip further in terminal swing to carry the raised foot."""
_NEUTRAL_PASSES = 2  # the shank, found again with the foot turned
_LANDING_TURN = 0.2  # last share of the swing: the ankle turns to its heel-strike flexion
_LEAST_TRAILING_KNEE = np.radians(10.0)  # the trailing knee's least flexion before toe-off
_DORSIFLEXION_MARGIN = np.radians(1.0)  # [rad] kept inside the ankle's dorsiflexion limit
_DORSIFLEXION_STEPS = 2  # secant steps onto the least heel rise that keeps the ankle in range
_HEEL_RISE_RATE = np.radians(570.0)
"""Fastest rise [rad/s] of the heel about the ball of the foot before toe-off: 9.5° a frame
at 60 fps, within the recorded walks' 10° a frame for the toes, which bend with it (at
1.6 m/s the heel would otherwise rise 11.3° in a frame just before toe-off)."""
_HEEL_RISE_SPREAD = 0.06  # share of the cycle over which a faster heel rise is spread
_HIGH_HIP = 0.4
"""Share of a leg's cycle at which its hip is highest relative to the other (pelvic
obliquity); on long steps it moves to :data:`_HIGH_HIP_LONG_STEP` as
:func:`_long_step_fade` falls to 0. The recorded CMU walks: lowest at heel strike, highest
at about 44 %. At 40 % the trailing hip stands higher in pre-swing than with the peak at a
third of the cycle (by 6 mm at 1.0 m/s), so the trailing heel rises further about the ball
of the foot for the same knee flexion: with the peak at a third of the cycle the push-off
is 1.9-2.1° shallower at 1.0-1.6 m/s and, at 1.0 and 1.6 m/s, 1 % of the cycle later."""
_HIGH_HIP_LONG_STEP = 1.0 / 3.0
"""Share of a leg's cycle at which its hip is highest on steps of :data:`_LONG_STEP` and
longer: the trailing hip stands lower in pre-swing than with :data:`_HIGH_HIP`, which
leaves the trailing leg the reach to keep its knee bent before toe-off."""
_PELVIC_ROTATION_PER_SPEED = 8.0
"""Growth of the pelvis's rotation about the vertical with speed above 1.3 m/s [deg per
m/s], on top of 4° (times the step over 0.7 m). The recorded CMU walks, measured as the
hip line's turn against the walking direction, turn 11.0 ± 2.6° peak to peak at 1.3 m/s
and 14.3 ± 1.9° at 1.6 m/s; without this the generated walk turns 8.6° and 8.3°, with it
8.6° and 13.5°. The leading hip comes further forward at heel strike and the trailing
hip further back at toe-off (a determinant of gait, Saunders, Inman & Eberhart 1953), so
the hips flex and extend less for the same step."""
TURN_PER_STEP = np.radians(45.0)
"""Most the heading of a walk along a path (:func:`paced_path`) turns in one step [rad].
People turn sharply over several steps, the pelvis leading the planted feet by no more
than the hips' rotation allows (step and spin turns, Hase & Stein 1999; a 90° turn in
2-3 steps, Taylor et al. 2005). In one stance (60 % of the cycle) the heading then turns
at most 54°, and in the curved walks of ``benchmarks/walk_paths.py`` a hip rotates at
most 37° about its planted foot (its range ±45°); with the heading turning as fast as the
path does, up to 109°, late in the stance of the foot on the inside of the turn."""
_KEYS_PER_CYCLE = 8
_FLATTEST_LANDING = 0.4  # share of heel_strike that the shortest steps land with
_HEEL_GLIDE = 12.0
"""Least height of the landing heel above the floor per metre of horizontal travel it has
left before heel strike: within 5 mm of the floor it has less than 0.7 mm to go."""
_HEEL_HOVER = 0.008  # [m]: the landing heel's least height saturates at 8 mm
_HEEL_SOFT = 0.001  # [m]: width of the smooth maximum that lifts the landing heel
_CCD_TOLERANCE = 5e-4  # [m]: contacts within 0.5 mm when the legs are solved by CCD
_CCD_SWEEPS = 500  # CCD crawls on a nearly straight leg (heel strike): up to 500 sweeps
_UPPER_BODY = (
    "spine",
    "chest",
    "neck",
    "head",
    "l_clavicle",
    "r_clavicle",
    "l_shoulder",
    "r_shoulder",
    "l_elbow",
    "r_elbow",
    "l_wrist",
    "r_wrist",
)


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
    ik : IKResult or None
        With ``leg_ik="ccd"``: the CCD solves of both legs, shape (2, frames)
        (right, left); None for the analytic legs.
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
    ik: IKResult | None = None

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
            **self._ik_figures(),
        }

    def _ik_figures(self) -> dict:
        """The legs' IK: solver, solves, converged solves, joint updates."""
        ik = self.ik
        if ik is None:
            solves = 2 * self.motion.n_frames
            return {
                "ik_solver": "analytic",
                "ik_solves": solves,
                "ik_converged": solves,
                "ik_joint_updates": None,
            }
        return {
            "ik_solver": "CCD",
            "ik_solves": int(ik.converged.size),
            "ik_converged": int(ik.converged.sum()),
            "ik_joint_updates": int(ik.joint_updates.sum()),
            "ik_max_error_mm": 1e3 * float(ik.position_error.max()),
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
    heel: NDArray[np.float64]  # centre of the heel's sphere in the ankle frame (3,)
    heel_radius: float  # radius of the heel's sphere [m]
    ankle_height: float  # ankle above the floor when the foot is flat [m]
    toe_extension: float  # the toe joint's largest extension: the steepest heel rise [rad]
    stature: float  # top of the head over the soles in the rest pose [m]
    sole: tuple[tuple[NDArray[np.float64], float, bool], ...]
    """The foot's capsules: axis ends ``(2, 3)`` in the ankle frame (the toe's in the toe
    frame), radius [m], and whether the toe joint carries it."""
    toe_axis: NDArray[np.float64]  # the toe joint's hinge axis (3,)
    dorsiflexion: float  # the ankle's least first Euler angle: its dorsiflexion limit (< 0) [rad]
    ankle_sequence: str  # the Euler sequence the ankle's limits are given in

    @classmethod
    def of(cls, sk: Skeleton) -> _Body:
        idx = {n: sk.index(n) for n in ("l_hip", "l_knee", "l_ankle", "l_toe", "r_hip")}
        ankle_limits = sk.limits[idx["l_ankle"]] if sk.limits is not None else None
        for part in ("l_knee", "l_ankle"):
            off = sk.offsets[idx[part]]
            if abs(off[0]) > 1e-9 or abs(off[1]) > 1e-9 or off[2] >= 0.0:
                raise InputError(
                    "the walking generator needs a skeleton whose legs hang along −z at rest "
                    "(the standard humanoid layout)"
                )
        if sk.segments is None or sk.segments[idx["l_ankle"]] is None:
            raise InputError("the walking generator needs foot segments to find the sole")
        foot = sk.segments[idx["l_ankle"]]
        toe = sk.offsets[idx["l_toe"]]
        sole = tuple(
            (np.stack([seg.start, seg.end]), float(seg.radius), j == idx["l_toe"])
            for j in (idx["l_ankle"], idx["l_toe"])
            if (seg := sk.segments[j]) is not None
        )
        axes = sk.axes if sk.axes is not None else np.zeros((sk.n_joints, 3))
        lowest = []
        for j, origin in ((idx["l_ankle"], np.zeros(3)), (idx["l_toe"], toe)):
            seg = sk.segments[j]
            if seg is not None:
                lowest.append(min(seg.start[2], seg.end[2]) + origin[2] - seg.radius)
        heel = foot.start if foot.start[0] < foot.end[0] else foot.end
        limits = sk.limits[idx["l_toe"]] if sk.limits is not None else np.full((3, 2), np.inf)
        rest = sk.rest_positions()
        ends = [
            rest[j, 2] + np.array([seg.start[2], seg.end[2]]) + [[-seg.radius], [seg.radius]]
            for j, seg in enumerate(sk.segments)
            if seg is not None
        ]
        stature = float(max(e[1].max() for e in ends) - min(e[0].min() for e in ends))
        return cls(
            skeleton=sk,
            thigh=float(np.linalg.norm(sk.offsets[idx["l_knee"]])),
            shank=float(np.linalg.norm(sk.offsets[idx["l_ankle"]])),
            hip_offset=sk.offsets[idx["l_hip"]].copy(),
            toe_offset=toe.copy(),
            heel=heel.copy(),
            heel_radius=float(foot.radius),
            ankle_height=-float(min(lowest)),
            toe_extension=float(min(limits[0, 1], np.pi / 2.0)),
            stature=stature,
            sole=sole,
            toe_axis=np.array(axes[idx["l_toe"]], dtype=np.float64),
            dorsiflexion=-np.inf if ankle_limits is None else float(ankle_limits[0, 0]),
            ankle_sequence=sk.limit_sequences[idx["l_ankle"]],
        )

    def sole_height(self, rotation: NDArray, toes: NDArray) -> NDArray[np.float64]:
        """Lowest point ``(N,)`` [m] of the foot's capsules relative to the ankle.

        ``rotation (N, 4)`` turns the foot in the world, ``toes (N,)`` [rad] bends
        the toe joint about its hinge.
        """
        toe_q = _qaxis(self.toe_axis, toes)[:, None, :]
        lowest = np.full(len(rotation), np.inf)
        for ends, radius, on_toe in self.sole:
            local = self.toe_offset + quat_apply(toe_q, ends) if on_toe else ends
            z = quat_apply(rotation[:, None, :], local)[..., 2]
            lowest = np.minimum(lowest, z.min(axis=-1) - radius)
        return lowest

    def leg_length(self, knee: NDArray) -> NDArray[np.float64]:
        """Hip-ankle distance ``(N,)`` [m] at knee flexion ``knee (N,)`` [rad]."""
        l1, l2 = self.thigh, self.shank
        return np.sqrt(l1 * l1 + l2 * l2 + 2.0 * l1 * l2 * np.cos(knee))

    def knee_angle(self, length: NDArray) -> NDArray[np.float64]:
        """Knee flexion ``(N,)`` [rad] at hip-ankle distance ``length (N,)`` [m] (clipped)."""
        l1, l2 = self.thigh, self.shank
        cos_k = np.clip((length * length - l1 * l1 - l2 * l2) / (2.0 * l1 * l2), -1.0, 1.0)
        return np.arccos(cos_k)


@dataclass(frozen=True)
class _Foot:
    """One foot over the walk: planted, or swinging (horizontal path only)."""

    ankle: NDArray[np.float64]  # (N, 3) [m]
    rotation: NDArray[np.float64]  # (N, 4) world rotation of the foot
    toes: NDArray[np.float64]  # (N,) toe-joint flexion that keeps the toes flat [rad]
    pitch: NDArray[np.float64]  # (N,) heel rise (+) or toes up (−) [rad]
    stance: NDArray[np.bool_]  # (N,)
    tau: NDArray[np.float64]  # (N,) share of the cycle since this foot's heel strike
    ball: NDArray[np.float64]  # (N, 3) ball of the foot on the current footprint [m]
    yaw: NDArray[np.float64]  # (N,) heading of the current footprint [rad]
    landing: NDArray[np.float64]  # (N,) toes-up pitch at the current footprint's heel strike


def _path(t: NDArray, p: GaitParameters) -> tuple[NDArray, NDArray]:
    """Pelvis path on the floor ``(N, 2)`` [m] and heading ``(N,)`` [rad] at times ``t``.

    A straight line along +x, or a circle at ``p.turn_rate``; ``p.path`` when given.
    """
    if p.path is not None:
        return p.path(t)
    w = p.turn_rate
    heading = w * t
    if abs(w) < 1e-9:
        xy = np.stack([p.speed * t, np.zeros_like(t)], axis=-1)
    else:
        r = p.speed / w
        xy = np.stack([r * np.sin(heading), r * (1.0 - np.cos(heading))], axis=-1)
    return xy, heading


def paced_path(
    distance: ArrayLike, heading: ArrayLike, step_length: float, cycle_duration: float
) -> tuple[int, Callable[[NDArray[np.float64]], NDArray[np.float64]]]:
    """Whole gait cycles and the distance travelled ``s(t)`` [m] of a walk along a path.

    The walk starts and ends at rest: the distance follows a minimum-jerk
    profile (Flash & Hogan 1985) in a pace ``u`` that runs as the distance on
    straight stretches and slows the walk where the heading turns, so the
    heading turns by at most :data:`TURN_PER_STEP` a step: ``du/ds = max(1,
    |dθ/ds| v / ω)`` with ``v = 2 step_length / cycle_duration`` (the speed of
    the cadence) and ``ω = 2 TURN_PER_STEP / cycle_duration``. The walk lasts
    enough whole cycles that the profile's peak pace (1.875 times its mean)
    stays at or under ``v``: the longest step stays under ``step_length`` and
    the heading turns no faster than ``ω``.

    Parameters
    ----------
    distance : array_like, shape (M,)
        Increasing distances along the path [m], from 0 to its length.
    heading : array_like, shape (M,)
        The walk's heading at those distances, unwrapped [rad].
    step_length, cycle_duration : float
        The gait's step [m] and cycle [s].

    Returns
    -------
    cycles : int
    distance_at : callable
        Times ``(N,)`` [s] to distances ``(N,)`` [m]; held at the ends outside
        ``0 … cycles × cycle_duration``.
    """
    s = np.asarray(distance, dtype=np.float64)
    theta = np.asarray(heading, dtype=np.float64)
    speed = 2.0 * step_length / cycle_duration
    rate = 2.0 * TURN_PER_STEP / cycle_duration
    turning = np.abs(np.gradient(theta, s)) if len(s) > 1 else np.zeros_like(s)
    weight = np.maximum(1.0, turning * speed / rate)
    pace = np.concatenate([[0.0], np.cumsum(0.5 * (weight[1:] + weight[:-1]) * np.diff(s))])
    total = float(pace[-1])
    cycles = max(1, int(np.ceil(1.875 * total / (2.0 * step_length))))
    duration = cycles * cycle_duration

    def distance_at(t: NDArray[np.float64]) -> NDArray[np.float64]:
        u = total * ease(Easing.MINIMUM_JERK, np.clip(np.asarray(t) / duration, 0.0, 1.0))
        return np.interp(u, pace, s)

    return cycles, distance_at


def stance_knee(tau: ArrayLike, speed: float = 1.3) -> NDArray[np.float64]:
    """Knee flexion [rad] of a planted leg at shares ``tau`` of the cycle after heel strike.

    :data:`STANCE_KNEE` joined by cubic segments, held at the last key after it. The
    knee flexes in loading response along a cubic ease-out (:attr:`Easing.EASE_OUT_CUBIC`): at its
    fastest at heel strike (three times the segment's mean rate, 3° a frame at 60 fps
    and 1.0 m/s) and at rest at the loading peak; the later keys are joined by
    smoothstep, passed at rest. The pelvis height follows this knee
    (:func:`_pelvis_height`): the leg, nearly straight at heel strike, shortens at
    once as the pelvis passes over its heel, so the pelvis rises less steeply from its
    lowest (at 1.0 / 1.3 / 1.6 m/s its curvature at the minima over that at the
    maxima is 1.4 / 1.9 / 3.2, against 1.7 / 2.1 / 3.5 with the knee leaving heel
    strike at rest). Above 1.3 m/s the loading peak grows by
    :data:`_LOADING_KNEE_PER_SPEED` and the mid-stance flexion by
    :data:`_MID_STANCE_KNEE_PER_SPEED` with ``speed`` [m/s].
    """
    keys = np.array(STANCE_KNEE)
    keys[1, 1] += _LOADING_KNEE_PER_SPEED * max(0.0, speed - 1.3)
    keys[2, 1] += _MID_STANCE_KNEE_PER_SPEED * max(0.0, speed - 1.3)
    tau = np.clip(np.asarray(tau, dtype=np.float64), 0.0, keys[-1, 0])
    i = np.clip(np.searchsorted(keys[:, 0], tau, side="right") - 1, 0, len(keys) - 2)
    s = (tau - keys[i, 0]) / (keys[i + 1, 0] - keys[i, 0])
    timing = np.where(i == 0, ease(Easing.EASE_OUT_CUBIC, s), ease(Easing.EASE_IN_OUT, s))
    flexion = keys[i, 1] + (keys[i + 1, 1] - keys[i, 1]) * timing
    return np.radians(flexion)


def knee_profile(tau: ArrayLike, p: GaitParameters) -> NDArray[np.float64]:
    """Knee flexion [rad] over the whole cycle at shares ``tau`` after heel strike.

    :func:`stance_knee` up to ``HEEL_OFF``; then a monotone piecewise cubic
    (Fritsch & Carlson 1980, PCHIP) through :data:`_LATE_KNEE` (relative to
    toe-off), the swing peak ``p.swing_knee`` 12 % of the cycle after toe-off and
    back to the heel-strike flexion, flat at both ends: the knee extends through
    terminal stance, then rises once to the swing peak (a single maximum from
    mid-stance to the swing peak), C¹ throughout (Perry & Burnfield 2010, ch. 5).
    """
    sf = p.stance_fraction
    k0, k_last = STANCE_KNEE[0][1], STANCE_KNEE[-1][1]
    keys = [(HEEL_OFF - 0.05, k_last), (HEEL_OFF, k_last)]
    keys += [(sf + dt, k) for dt, k in _LATE_KNEE]
    keys += [(sf + _SWING_PEAK_AFTER_TOE_OFF, np.degrees(p.swing_knee)), (1.0, k0), (1.05, k0)]
    x, y = np.array(keys).T
    late = PchipInterpolator(x, np.radians(y))
    tau = np.asarray(tau, dtype=np.float64)
    return np.where(tau <= HEEL_OFF, stance_knee(tau, p.speed), late(np.clip(tau, HEEL_OFF, 1.0)))


def _hermite(s: NDArray, p0: ArrayLike, m0: ArrayLike, p1: ArrayLike, m1: ArrayLike) -> NDArray:
    """Cubic Hermite curve at ``s`` in [0, 1] from ``p0`` (slope ``m0``) to ``p1`` (slope ``m1``).

    Slopes are derivatives with respect to ``s``; arrays broadcast.
    """
    s2, s3 = s * s, s * s * s
    return (
        (2.0 * s3 - 3.0 * s2 + 1.0) * p0
        + (s3 - 2.0 * s2 + s) * m0
        + (3.0 * s2 - 2.0 * s3) * p1
        + (s3 - s2) * m1
    )


def _foot_flat(p: GaitParameters) -> float:
    """Share of the cycle after heel strike at which the forefoot touches down.

    :data:`FOOT_FLAT`, or later where the cycle is so short that the forefoot would
    come down in less than :data:`_FOOT_FALL`.
    """
    return max(FOOT_FLAT, _FOOT_FALL / p.cycle_duration)


def _stance_pose(
    tau: NDArray,
    ankle_flat: NDArray,
    yaw: NDArray,
    landing: NDArray,
    body: _Body,
    foot_flat: float,
) -> tuple[NDArray, NDArray, NDArray]:
    """Ankle ``(N, 3)``, foot rotation ``(N, 4)`` and pitch ``(N,)`` of a planted foot.

    ``tau`` is the share of the cycle since heel strike; ``ankle_flat`` the
    ankle when the foot lies flat on its footprint. Heel rocker: the foot lands
    toes up by ``landing (N,)`` [rad] and rolls about the heel until ``foot_flat``
    (share of the cycle, :func:`_foot_flat`; minimum-jerk timing, at rest at both
    ends); flat after it. The forefoot rocker, the heel rising about the ball of
    the foot from ``HEEL_OFF``, is set by :func:`_heel_rise`.
    """
    loading = -landing * (1.0 - ease(Easing.MINIMUM_JERK, tau / foot_flat))
    pitch = np.where(tau < foot_flat, loading, 0.0)
    pivot = np.where((pitch < 0.0)[:, None], body.heel, body.toe_offset)
    q_yaw = _qz(yaw)
    q = quat_multiply(q_yaw, _qaxis(np.array([0.0, 1.0, 0.0]), pitch))
    return ankle_flat + quat_apply(q_yaw, pivot) - quat_apply(q, pivot), q, pitch


def _long_step_fade(p: GaitParameters, body: _Body) -> float:
    """1 for steps up to ``_LONG_STEP − _FADE`` statures, falling linearly to 0 at
    ``_LONG_STEP``."""
    return float(np.clip((_LONG_STEP - p.step_length / body.stature) / _FADE, 0.0, 1.0))


def _footprint_time(p: GaitParameters, body: _Body) -> float:
    """Time [s] after a heel strike at which the pelvis passes that foot's footprint.

    A quarter cycle, less the time the pelvis takes at ``p.speed`` to cover
    :data:`PELVIS_LEAD` leg lengths (times :func:`_long_step_fade`).
    """
    lead = _long_step_fade(p, body) * PELVIS_LEAD * (body.thigh + body.shank)
    return 0.25 * p.cycle_duration - lead / p.speed


def _foot(t: NDArray, side: int, p: GaitParameters, body: _Body, width: float) -> _Foot:
    """The planted foot of one side at times ``t (N,)`` [s], as far as it is prescribed.

    ``side`` is +1 for the left foot, −1 for the right. The right foot strikes at
    0, D, 2D…, the left at D/2, 3D/2…; footprint ``i`` lies on the path where the
    pelvis passes :func:`_footprint_time` later. The pose follows
    :func:`_stance_pose` over the whole cycle; from ``HEEL_OFF`` on,
    :func:`_heel_rise` and :func:`_swing` replace it. The foot lands toes up by
    ``p.heel_strike`` on a step of ``p.step_length`` and in proportion on a
    shorter one, down to :data:`_FLATTEST_LANDING` of it (on a path that slows
    to a stop, the shank stands upright at heel strike and a foot landing as
    steeply would bend the ankle past its range; a foot landing flatter still
    would skim the floor with its toes before the heel lands).
    """
    d = p.cycle_duration
    first = 0.0 if side < 0 else 0.5
    strike = (np.floor(t / d - first) + first) * d
    ahead = _footprint_time(p, body)
    tau = (t - strike) / d

    def footprint(strike_time: NDArray) -> tuple[NDArray, NDArray]:
        xy, heading = _path(strike_time + ahead, p)
        lateral = np.stack([-np.sin(heading), np.cos(heading)], axis=-1)
        ankle = np.concatenate(
            [xy + side * 0.5 * width * lateral, np.full((len(xy), 1), body.ankle_height)], axis=-1
        )
        return ankle, heading

    flat_now, yaw_now = footprint(strike)
    flat_before, _ = footprint(strike - 0.5 * d)  # the previous print's place on the path
    step = np.linalg.norm(flat_now[:, :2] - flat_before[:, :2], axis=-1)
    landing = p.heel_strike * np.clip(step / p.step_length, _FLATTEST_LANDING, 1.0)
    ankle, q_foot, pitch = _stance_pose(tau, flat_now, yaw_now, landing, body, _foot_flat(p))
    return _Foot(
        ankle=ankle,
        rotation=q_foot,
        toes=np.maximum(pitch, 0.0),
        pitch=pitch,
        stance=tau < p.stance_fraction,
        tau=tau,
        ball=flat_now + quat_apply(_qz(yaw_now), body.toe_offset),
        yaw=yaw_now,
        landing=landing,
    )


def _heel_rise(foot: _Foot, hip: NDArray, knee: NDArray, body: _Body, p: GaitParameters) -> _Foot:
    """Forefoot rocker: the heel rises as far as gives the knee its flexion ``knee (N,)`` [rad].

    From ``HEEL_OFF`` to toe-off the foot pivots about the ball of the foot; its
    pitch is the least one that puts the ankle, on its circle about the ball,
    at the hip-ankle distance of the knee flexion ``knee`` from ``hip (N, 3)``:
    the heel rises with the knee's flexion in terminal stance and pre-swing
    (Perry & Burnfield 2010, ch. 4). Within 0 … ``heel_rise`` and the toe
    joint's extension, and rising no faster than :data:`_HEEL_RISE_RATE`
    (:func:`_rate_limited_rise`, times :func:`_long_step_fade`: on the longest
    steps the heel must reach its highest at toe-off); where those bounds bind,
    the knee follows the foot.

    Raises
    ------
    InputError
        If the leg cannot reach the ankle even with the heel up as far as it goes:
        the step is too long.
    """
    late = foot.stance & (foot.tau >= HEEL_OFF)
    if not late.any():
        return foot
    i = np.flatnonzero(late)
    q_yaw = _qz(foot.yaw[i])
    c = quat_apply(quat_conjugate(q_yaw), hip[i] - foot.ball[i])  # hip from the ball
    o = -body.toe_offset  # ankle from the ball, foot frame
    length = body.leg_length(knee[i])
    # |c − R_y(θ) o|² = |c|² + |o|² − 2 r cos(θ − φ): nearest at θ = φ, so the least pitch
    # at distance ``length`` is φ − arccos(ratio).
    a = c[:, 0] * o[0] + c[:, 2] * o[2]
    b = c[:, 0] * o[2] - c[:, 2] * o[0]
    ratio = (0.5 * (np.sum(c * c, axis=-1) + o @ o - length**2) - c[:, 1] * o[1]) / np.hypot(a, b)
    needed = np.arctan2(b, a) - np.arccos(np.clip(ratio, -1.0, 1.0))
    needed = np.where(ratio < -1.0, 0.0, needed)  # nearer than the flat foot: stays flat
    pitch_i = np.clip(needed, 0.0, min(body.toe_extension, p.heel_rise))
    pitch_i += _long_step_fade(p, body) * (_rate_limited_rise(pitch_i, i, p) - pitch_i)
    q = quat_multiply(q_yaw, _qaxis(np.array([0.0, 1.0, 0.0]), pitch_i))
    ankle, rotation, pitch = foot.ankle.copy(), foot.rotation.copy(), foot.pitch.copy()
    ankle[i] = foot.ball[i] + quat_apply(q, o)
    if np.any(np.linalg.norm(hip[i] - ankle[i], axis=-1) > body.leg_length(np.zeros(1))):
        raise InputError(
            f"step length {p.step_length:.3g} m is too long for a leg of "
            f"{body.thigh + body.shank:.3f} m at double support {p.double_support:.3g}: before "
            f"toe-off the trailing foot would lie beyond the leg's reach even with the heel "
            f"up by {np.degrees(min(body.toe_extension, p.heel_rise)):.0f}°; shorten the step"
        )
    rotation[i], pitch[i] = q, pitch_i
    return replace(foot, ankle=ankle, rotation=rotation, toes=np.maximum(pitch, 0.0), pitch=pitch)


def _rate_limited_rise(pitch: NDArray, frames: NDArray, p: GaitParameters) -> NDArray[np.float64]:
    """Heel pitches ``(M,)`` [rad], raised earlier where they would rise faster than
    :data:`_HEEL_RISE_RATE`.

    ``frames (M,)`` are the frame indices of ``pitch``; each run of consecutive
    frames is one stance. Backwards from toe-off each pitch is kept at least the
    next one less the rate (``max over j ≥ k of pitch[j] − rate (j − k) / fps``);
    that raise is spread by a moving average over :data:`_HEEL_RISE_SPREAD` of
    the cycle (so the heel starts rising earlier without a kink), kept under the
    stance's highest pitch, and the rate limit applied once more. Where the heel
    would rise fastest just before toe-off (fast steps), it rises over a longer
    pre-swing instead, and the knee follows the foot.
    """
    out = pitch.copy()
    step = _HEEL_RISE_RATE / p.fps
    width = max(1, round(_HEEL_RISE_SPREAD * p.cycle_duration * p.fps)) | 1
    kernel = np.ones(width) / width
    breaks = np.flatnonzero(np.diff(frames) != 1) + 1
    for run in np.split(np.arange(len(frames)), breaks):
        ramp = step * np.arange(len(run))
        top = out[run].max()
        lifted = np.maximum.accumulate((out[run] - ramp)[::-1])[::-1] + ramp - out[run]
        pad = np.zeros(width // 2)
        spread = np.convolve(np.concatenate([pad, lifted, pad]), kernel, mode="valid")
        eased = np.minimum(out[run] + spread, top)
        out[run] = np.maximum.accumulate((eased - ramp)[::-1])[::-1] + ramp
    return out


def _heel_up(foot: _Foot, body: _Body, p: GaitParameters) -> NDArray[np.float64]:
    """Ankle ``(N, 3)`` [m] with the heel risen about the ball of the foot as far as it may.

    The pitch is the least of ``p.heel_rise`` and the toe joint's extension.
    """
    pitch = np.full(len(foot.yaw), min(body.toe_extension, p.heel_rise))
    q = quat_multiply(_qz(foot.yaw), _qaxis(np.array([0.0, 1.0, 0.0]), pitch))
    return foot.ball + quat_apply(q, -body.toe_offset)


def _dorsiflexion_floor(
    hip: NDArray, foot: _Foot, knee: NDArray, body: _Body, p: GaitParameters
) -> NDArray[np.float64]:
    """Least pelvis height ``(N,)`` [m] at which a trailing ankle stays within its range.

    From ``HEEL_OFF`` to toe-off the hip moves ahead of the planted foot; with the
    heel down and the knee as straight as ``knee (N,)`` [rad] the shank would lean
    over the foot past the ankle's dorsiflexion limit (``body.dorsiflexion``, kept
    :data:`_DORSIFLEXION_MARGIN` inside) on long fast steps. The heel rises about
    the ball of the foot instead and the leg, lengthened by it, holds the pelvis
    up (the heel rise of terminal stance, a determinant of gait, Saunders, Inman &
    Eberhart 1953; Perry & Burnfield 2010, ch. 4). The least heel pitch, up to
    the least of ``p.heel_rise`` and the toe joint's extension, at which the
    ankle's angle (:func:`_heel_raised`: the pelvis at the height where the knee
    has its flexion) is within the limit, by :data:`_DORSIFLEXION_STEPS` secant
    steps from the flat foot; the height there. The flat foot's height where its
    ankle stays in range; −inf outside late stance and where ``knee`` is NaN.
    """
    out = np.full(len(foot.tau), -np.inf)
    late = foot.stance & (foot.tau >= HEEL_OFF) & np.isfinite(knee)
    if not late.any() or not np.isfinite(body.dorsiflexion):
        return out
    cap = min(body.toe_extension, p.heel_rise)
    least = body.dorsiflexion + _DORSIFLEXION_MARGIN
    i = np.flatnonzero(late)
    height, bend = _heel_raised(hip[i], foot, i, knee[i], np.zeros(len(i)), body, p)
    out[i] = height
    short = bend < least  # the flat foot dorsiflexes past the limit here
    i, bend = i[short], bend[short]
    if not len(i):
        return out
    # The ankle's first angle grows about as fast as the heel rises: secant steps from
    # the flat foot onto the least pitch within the limit.
    pitch0, pitch = np.zeros(len(i)), np.clip(least - bend, 0.0, cap)
    bend0 = bend
    for _ in range(_DORSIFLEXION_STEPS):
        height, bend = _heel_raised(hip[i], foot, i, knee[i], pitch, body, p)
        slope = np.where(np.abs(pitch - pitch0) > 1e-9, (bend - bend0) / (pitch - pitch0), 1.0)
        pitch0, bend0 = pitch, bend
        pitch = np.clip(pitch + (least - bend) / np.where(slope > 0.1, slope, 1.0), 0.0, cap)
    out[i] = _heel_raised(hip[i], foot, i, knee[i], pitch, body, p)[0]
    return out


def _heel_raised(
    hip: NDArray,
    foot: _Foot,
    i: NDArray,
    knee: NDArray,
    pitch: NDArray,
    body: _Body,
    p: GaitParameters,
) -> tuple[NDArray, NDArray]:
    """Pelvis height ``(M,)`` [m] and the ankle's first Euler angle ``(M,)`` [rad] at
    frames ``i (M,)`` of a planted ``foot`` with its heel raised by ``pitch (M,)`` [rad].

    The height is the one at which the leg from ``hip (M, 3)`` (the hip with the
    pelvis at height 0) has the knee flexion ``knee (M,)`` [rad]; the ankle's angle
    is that of the leg of :func:`_leg` there.
    """
    q_yaw = _qz(foot.yaw[i])
    hinge = np.array([0.0, 1.0, 0.0])  # the knee's axis in the thigh frame (:func:`_leg`)
    q_foot = quat_multiply(q_yaw, _qaxis(hinge, pitch))
    ankle = foot.ball[i] + quat_apply(q_foot, -body.toe_offset)
    height = _height_for(hip, ankle, body.leg_length(knee), body, p, check=False)
    raised = hip + height[:, None] * np.array([0.0, 0.0, 1.0])
    g_thigh, flexion = _leg(raised, ankle, quat_apply(q_yaw, [1.0, 0.0, 0.0]), body)
    shank = quat_multiply(g_thigh, _qaxis(hinge, flexion))
    local = quat_multiply(quat_conjugate(shank), q_foot)
    return height, quat_to_euler(local, body.ankle_sequence)[:, 0]


def _swing(foot: _Foot, t: NDArray, p: GaitParameters, body: _Body) -> _Foot:
    """The swinging foot: horizontal ankle path and rotation from toe-off to heel strike.

    Each swing carries on the planted foot's motion at toe-off (its last
    frames' position, velocity and pitch rate, taken on to the exact toe-off
    time): the ankle follows a cubic Hermite curve to its heel-strike pose, at
    rest there; the foot keeps its pitch rate (its heel rising as far as the
    toes bend, the push-off: the ankle plantarflexes most just after toe-off,
    about 20°, Perry & Burnfield 2010, ch. 4), levels out by ``_LEVEL`` of the
    swing, then turns its toes up for the heel strike. Only the ankle's
    horizontal path is set here; its height follows from the swing knee
    (:func:`_swing_ankles`).
    """
    ankle, rotation, pitch = foot.ankle.copy(), foot.rotation.copy(), foot.pitch.copy()
    toes = foot.toes.copy()
    d = p.cycle_duration
    edges = np.diff(np.concatenate([[0], (~foot.stance).astype(np.int8), [0]]))
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
        if a < 2 or b >= len(t):
            continue  # cut by the padded time line's ends, which are cropped
        t_off = t[a - 1] + (p.stance_fraction - foot.tau[a - 1]) * d
        t_on = t[b] - foot.tau[b] * d
        h = t_on - t_off
        s = (t[a:b] - t_off) / h
        dt = t[a - 1] - t[a - 2]
        velocity = (ankle[a - 1] - ankle[a - 2]) / dt
        rate = (pitch[a - 1] - pitch[a - 2]) / dt
        start = ankle[a - 1] + velocity * (t_off - t[a - 1])
        pitch_off = pitch[a - 1] + rate * (t_off - t[a - 1])
        flat = foot.ball[b] - quat_apply(_qz(foot.yaw[b]), body.toe_offset)
        end, _, pitch_on = _stance_pose(
            np.zeros(1),
            flat[None],
            foot.yaw[b : b + 1],
            foot.landing[b : b + 1],
            body,
            _foot_flat(p),
        )
        path = _hermite(s[:, None], start, h * velocity, end, 0.0)
        level = np.clip(s / _LEVEL, 0.0, 1.0)
        toes_up = ease(Easing.MINIMUM_JERK, (s - 1.0 + _LEVEL) / _LEVEL)
        # s (1 − s / _LEVEL)³ peaks at 27 _LEVEL / 256: the foot pitches at most as far as
        # the toes bend.
        room = max(body.toe_extension - pitch_off, 0.0) * 256.0 / (27.0 * _LEVEL)
        heel_up = (
            pitch_off * (1.0 - ease(Easing.MINIMUM_JERK, level))
            + min(h * rate, room) * s * (1.0 - level) ** 3
        )
        yaw = foot.yaw[a - 1] + (foot.yaw[b] - foot.yaw[a - 1]) * ease(Easing.MINIMUM_JERK, s)
        ankle[a:b] = path
        toes[a:b] = np.minimum(heel_up, body.toe_extension)  # bent with the heel, in range
        pitch[a:b] = heel_up + pitch_on * toes_up
        rotation[a:b] = quat_multiply(_qz(yaw), _qaxis(np.array([0.0, 1.0, 0.0]), pitch[a:b]))
    return replace(foot, ankle=ankle, rotation=rotation, toes=toes, pitch=pitch)


def _swing_ankle_neutral(
    foot: _Foot, hip: NDArray, knee: NDArray, t: NDArray, body: _Body, p: GaitParameters
) -> _Foot:
    """The swinging foot turned with the shank, so the ankle stays neutral from mid-swing.

    The ankle leaves its push-off plantarflexion by mid-swing and holds about
    neutral to heel strike (Perry & Burnfield 2010, ch. 4: the dorsiflexors lift
    the foot to neutral in mid-swing and hold it there through terminal swing):
    the foot's rotation turns (slerp, minimum-jerk) from that of :func:`_swing`
    to the shank's (the leg of :func:`_leg` to the ankles of
    :func:`_swing_ankles`, whose heights follow ``knee (N,)`` [rad] from
    ``hip (N, 3)``) between ``_NEUTRAL_FROM`` and ``_NEUTRAL_BY`` of the swing,
    and over the last ``_LANDING_TURN`` of the swing the ankle turns from
    neutral to its rotation at heel strike. A swing shorter than a stride of
    ``p.step_length`` turns in proportion (a foot stepping in place keeps the
    pitch of :func:`_swing`). The shank is found again with the foot turned
    (``_NEUTRAL_PASSES`` times): the sole's clearance moves the ankle.
    """
    swing = ~foot.stance
    edges = np.diff(np.concatenate([[0], swing.astype(np.int8), [0]]))
    runs = [
        (a, b)
        for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True)
        if a >= 1 and b < len(t)
    ]
    forward = quat_apply(foot.rotation, [1.0, 0.0, 0.0])
    forward[:, 2] = 0.0
    hinge = np.array([0.0, 1.0, 0.0])  # the knee's axis in the thigh frame (:func:`_leg`)
    turned = foot
    for _ in range(_NEUTRAL_PASSES):
        g_thigh, flexion = _leg(hip, _swing_ankles(hip, turned, knee, body), forward, body)
        shank = quat_multiply(g_thigh, _qaxis(hinge, flexion))
        rotation = foot.rotation.copy()
        for a, b in runs:
            s = (t[a:b] - t[a - 1]) / (t[b] - t[a - 1])
            stride = np.linalg.norm(foot.ball[b, :2] - foot.ball[a - 1, :2]) / (2.0 * p.step_length)
            landing = quat_multiply(quat_conjugate(shank[b]), foot.rotation[b])
            turn = ease(Easing.MINIMUM_JERK, (s - 1.0 + _LANDING_TURN) / _LANDING_TURN)
            neutral = quat_multiply(shank[a:b], quat_slerp(quat_identity(), landing, turn))
            w = ease(Easing.MINIMUM_JERK, (s - _NEUTRAL_FROM) / (_NEUTRAL_BY - _NEUTRAL_FROM))
            rotation[a:b] = quat_slerp(foot.rotation[a:b], neutral, min(stride, 1.0) * w)
        pitch = np.where(swing, np.arcsin(-quat_apply(rotation, [1.0, 0.0, 0.0])[:, 2]), foot.pitch)
        turned = replace(foot, rotation=rotation, pitch=pitch)
    return turned


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
    return g_thigh, body.knee_angle(np.linalg.norm(v, axis=-1))


def _bridge(values: NDArray, t: NDArray, gaps: NDArray) -> NDArray[np.float64]:
    """``values (N,)`` with each run of ``gaps (N,)`` refilled by a cubic Hermite curve.

    The curve leaves the frame before the gap with its value and one-sided rate
    (C¹ there, to the frame spacing) and arrives at the frame after the gap at
    its value, at rest: between mid-stance and the other heel strike the pelvis
    comes down to its lowest at heel strike without overshooting it, so the
    lowest point is rounded on the way in and the excursion is that of the
    heel strike. (Joining the leading leg's vault rate there instead dips the
    pelvis below its heel-strike height and back: at 1.0 / 1.3 / 1.6 m/s its
    lowest point is 2.6 / 2.9 / 3.8 times as sharp as its highest, against
    1.4 / 1.9 / 3.2 arriving at rest, and it rises and falls 2.8 / 4.2 / 5.2 cm,
    against 2.3 / 3.8 / 5.1.) Gaps cut by either end of ``t`` are left as they are.
    """
    out = values.copy()
    edges = np.diff(np.concatenate([[0], gaps.astype(np.int8), [0]]))
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
        if a < 2 or b > len(t) - 2:
            continue
        v0 = (values[a - 1] - values[a - 2]) / (t[a - 1] - t[a - 2])
        h = t[b] - t[a - 1]
        out[a:b] = _hermite((t[a:b] - t[a - 1]) / h, values[a - 1], h * v0, values[b], 0.0)
    return out


def _pelvis_height(
    t: NDArray, hips: dict[int, NDArray], feet: dict[int, _Foot], body: _Body, p: GaitParameters
) -> NDArray[np.float64]:
    """Pelvis height ``(N,)`` [m] that gives the stance knees their flexion.

    From its heel strike until ``HEEL_OFF`` (loading response and mid-stance) a
    leg sets the pelvis height: the one at which its knee has the flexion of
    :data:`STANCE_KNEE` at its phase, so its knee follows that profile exactly.
    From there to the other heel strike a cubic Hermite curve in time
    (:func:`_bridge`) leaves at the height and rate of mid-stance and arrives
    at the heel-strike height at rest, but never sinks below
    the height at which the trailing knee, its foot still flat, has the flexion
    of :func:`knee_profile`: the trailing knee extends through terminal stance
    while its heel rises as the knee's flexion asks (:func:`_late_stance_knee`,
    :func:`_heel_rise`). Where the flat foot would leave the trailing ankle
    dorsiflexed past its range (long fast steps), the floor is that of the leg
    lengthened by the heel rise that keeps it in range (:func:`_dorsiflexion_floor`),
    times :func:`_long_step_fade`: on steps of ``_LONG_STEP`` statures and longer
    the pelvis must come down to the leading leg's heel strike, and the ankle is
    left to dorsiflex further rather than the pelvis dropping at once.
    """
    pelvis = np.full(len(t), np.nan)
    for side, foot in feet.items():
        early = foot.tau <= HEEL_OFF
        knee = np.where(early, stance_knee(foot.tau, p.speed), np.nan)
        height = _height_for(hips[side], foot.ankle, body.leg_length(knee), body, p)
        pelvis = np.where(early, height, pelvis)
    pelvis = _bridge(pelvis, t, np.isnan(pelvis))
    known = np.flatnonzero(~np.isnan(pelvis))  # the padding's ends: held, then cut off
    pelvis = np.interp(np.arange(len(t)), known, pelvis[known])
    for side, foot in feet.items():
        late = (foot.tau > HEEL_OFF) & (foot.tau < 0.5)
        knee = np.where(late, knee_profile(foot.tau, p), np.nan)
        floor = _height_for(hips[side], foot.ankle, body.leg_length(knee), body, p, check=False)
        raise_ = np.maximum(_dorsiflexion_floor(hips[side], foot, knee, body, p) - floor, 0.0)
        floor = floor + _long_step_fade(p, body) * raise_
        pelvis = np.where(late, np.fmax(pelvis, floor), pelvis)
    return pelvis


def _trailing_reach(
    height: NDArray,
    hips: dict[int, NDArray],
    feet: dict[int, _Foot],
    body: _Body,
    p: GaitParameters,
) -> NDArray[np.float64]:
    """``height (N,)`` [m], brought down where a trailing foot would lie beyond its leg's reach.

    From ``HEEL_OFF`` to toe-off the highest pelvis a leg reaches has the knee
    bent by :data:`_LEAST_TRAILING_KNEE` and the heel raised as far as it may;
    the pelvis stays under it by a smooth minimum (over :data:`_REACH_BLEND`;
    elsewhere the height is left exactly as it is), so long steps stay C¹ and
    the trailing foot stays planted. Where the limit ends (at toe-off) the
    pelvis comes back up over :data:`_REACH_EASE`, not at once: the lowering is
    spread by a min-plus dilation with a cos² kernel (:func:`_eased_lowering`),
    which never lowers it less than the limit asks.
    """
    cap = min(body.toe_extension, p.heel_rise)
    out = height.copy()
    length = body.leg_length(np.full(len(height), _LEAST_TRAILING_KNEE))
    for side, foot in feet.items():
        late = foot.stance & (foot.tau >= HEEL_OFF)
        q_yaw = _qz(foot.yaw)
        reach = np.full(len(height), -np.inf)
        for pitch in np.linspace(0.0, cap, 8):
            q = quat_multiply(q_yaw, _qaxis(np.array([0.0, 1.0, 0.0]), np.full(len(height), pitch)))
            ankle = foot.ball + quat_apply(q, -body.toe_offset)
            reach = np.maximum(reach, _height_for(hips[side], ankle, length, body, p, check=False))
        limit = np.where(late, reach, np.inf)
        # Quadratic smooth minimum (Quilez 2013): C¹, and exactly the lesser where the two
        # differ by _REACH_BLEND or more.
        blend = np.maximum(_REACH_BLEND - np.abs(out - limit), 0.0) / _REACH_BLEND
        out = np.where(late, np.minimum(out, limit) - 0.25 * _REACH_BLEND * blend**2, out)
    return height + _eased_lowering(out - height, max(1, round(_REACH_EASE * p.fps)))


_REACH_BLEND = 0.01  # [m]: the pelvis height and a leg's reach blend within this of each other
_REACH_EASE = 0.2
"""Time [s] over which the pelvis leaves and regains the height of a trailing leg's reach."""


def _eased_lowering(lowering: NDArray, frames: int) -> NDArray[np.float64]:
    """``lowering (N,)`` (≤ 0) [m] spread over ``frames`` on both sides, never shallower.

    ``out[i] = min over |k| ≤ frames of lowering[i + k] · cos²(π k / (2 frames + 2))``:
    1 at k = 0, so ``out ≤ lowering``; continuous, and a step of depth h becomes a ramp
    whose largest slope is about ``h · π / (4 frames)`` a frame.
    """
    out = lowering.copy()
    for k in range(1, frames + 1):
        w = np.cos(0.5 * np.pi * k / (frames + 1)) ** 2
        out[k:] = np.minimum(out[k:], w * lowering[:-k])
        out[:-k] = np.minimum(out[:-k], w * lowering[k:])
    return out


def _height_for(
    hip: NDArray,
    ankle: NDArray,
    length: NDArray,
    body: _Body,
    p: GaitParameters,
    *,
    check: bool = True,
) -> NDArray[np.float64]:
    """Pelvis height ``(N,)`` [m] at which the hip-ankle distance is ``length (N,)``.

    ``hip (N, 3)`` is the hip with the pelvis at height 0; frames where ``length`` is
    NaN are NaN. With ``check``, an ankle beyond the leg's reach is an error;
    without, its height is that of the hip.
    """
    horizontal = np.linalg.norm(hip[:, :2] - ankle[:, :2], axis=-1)
    if check and np.any(horizontal[np.isfinite(length)] >= body.thigh + body.shank):
        raise InputError(
            f"step length {p.step_length} m is impossible for a leg of "
            f"{body.thigh + body.shank:.3f} m: the foot lies beyond the leg's reach; "
            "shorten the step"
        )
    return ankle[:, 2] - hip[:, 2] + np.sqrt(np.maximum(length**2 - horizontal**2, 0.0))


def _late_stance_knee(
    profile: NDArray, flat: NDArray, most: NDArray, foot: _Foot, p: GaitParameters
) -> NDArray[np.float64]:
    """The knee ``(N,)`` [rad] that the heel rise aims at from ``HEEL_OFF`` to toe-off.

    ``profile (N,)`` is :func:`knee_profile`, ``flat (N,)`` the knee's flexion
    with the foot flat (the least it can have: the heel rise only brings the
    ankle nearer the hip), ``most (N,)`` with the heel up as far as it may (the
    most it can have). The profile, kept under the least of ``most`` over each
    stance (the hip moves away from the planted ball of the foot, so that least
    comes at toe-off and a knee under it never has to extend again; long and fast
    steps: its flexion from the straightest knee on is scaled to end there, so the
    knee keeps flexing until toe-off rather than holding still while the heel
    alone follows the receding hip, then a smooth minimum over 2°), and ``flat``,
    their larger one, made
    non-decreasing (running maximum) from the profile's straightest knee on and
    smoothed over 6 % of the cycle, then at least ``flat`` and non-decreasing
    from there again: the knee extends through terminal stance, then flexes
    steadily to toe-off, with no dip before the swing.
    """
    late = foot.stance & (foot.tau >= HEEL_OFF)
    out = profile.copy()
    width = max(1, round(0.06 * p.cycle_duration * p.fps)) | 1
    kernel = np.ones(width) / width
    soft = np.radians(2.0)
    edges = np.diff(np.concatenate([[0], late.astype(np.int8), [0]]))
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
        aim, cap = profile[a:b].copy(), most[a:b].min()
        m = int(np.argmin(aim))  # from the straightest knee on, no dip
        if aim[-1] > cap > aim[m]:  # the flexion from the straightest on, scaled to reach
            aim[m:] = aim[m] + (aim[m:] - aim[m]) * (cap - aim[m]) / (aim[-1] - aim[m])
        reachable = -soft * np.logaddexp(-aim / soft, -cap / soft)
        run = np.maximum(reachable, flat[a:b])
        run[m:] = np.maximum.accumulate(run[m:])
        padded = np.concatenate([np.full(width // 2, run[0]), run, np.full(width // 2, run[-1])])
        smooth = np.convolve(padded, kernel, mode="valid")
        smooth = np.maximum(smooth, flat[a:b])
        smooth[m:] = np.maximum.accumulate(smooth[m:])
        out[a:b] = smooth
    return out


def _swing_knee(knee: NDArray, profile: NDArray, t: NDArray, swing: NDArray) -> NDArray[np.float64]:
    """Knee flexion ``(N,)`` [rad]: ``profile (N,)`` in swing, ``knee (N,)`` in stance.

    Where the stance knee at toe-off differs from the profile (the heel could not
    rise far enough), the difference fades out over the first 40 % of the swing
    (minimum-jerk), so the knee stays continuous; the swinging foot's height
    follows from it.
    """
    out = np.where(swing, profile, knee)
    edges = np.diff(np.concatenate([[0], swing.astype(np.int8), [0]]))
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
        if a < 1 or b >= len(t):
            continue
        s = (t[a:b] - t[a - 1]) / (t[b] - t[a - 1])
        offset = knee[a - 1] - profile[a - 1]
        out[a:b] += offset * (1.0 - ease(Easing.MINIMUM_JERK, np.clip(s / 0.4, 0.0, 1.0)))
    return out


def _landing_clearance(foot: _Foot, body: _Body) -> NDArray[np.float64]:
    """Least height ``(N,)`` [m] of the heel sphere's lowest point above the floor in swing.

    The landing heel comes down onto its footprint as it stops: its least
    height grows with the horizontal travel it has left before heel strike
    (``_HEEL_GLIDE`` per metre), saturating at ``_HEEL_HOVER``
    (``H (1 − exp(−x / H))``). So the heel is within 5 mm of the floor only
    where it has less than 0.7 mm to travel: it does not skim the floor (the
    foot-skate of Kovar, Schreiner & Gleicher 2002). Zero in stance and in
    swings cut by the end of the time line.
    """
    heel = foot.ankle[:, :2] + quat_apply(foot.rotation, body.heel)[:, :2]
    left = np.zeros(len(heel))
    covered = np.zeros(len(heel), dtype=bool)
    edges = np.diff(np.concatenate([[0], (~foot.stance).astype(np.int8), [0]]))
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
        if b < len(heel):
            left[a:b] = np.linalg.norm(heel[a:b] - heel[b], axis=-1)
            covered[a:b] = True
    approach = _HEEL_GLIDE * left
    return np.where(covered, -_HEEL_HOVER * np.expm1(-approach / _HEEL_HOVER), 0.0)


def _sole_lift(z: NDArray, sole: NDArray, swing: NDArray) -> NDArray[np.float64]:
    """Swinging ankle heights ``z (N,)`` [m], each swing raised so its sole clears the floor.

    ``sole (N,)`` is the sole's lowest point relative to the ankle. Over a swing's
    share ``s`` of frames, a bump that ends early: ``sin²`` up to 1 at
    :data:`_LIFT_PEAK` of the swing, then ``cos²`` down to 0 by
    :data:`_LIFT_DOWN_BY`. The sole must clear the floor by ``_SOLE_CLEARANCE``
    times that bump, and also by ``_SOLE_CLEARANCE · sin²(π s)`` or
    :data:`_HEEL_HOVER`, the lesser (short steps, whose foot hangs low in
    terminal swing, would otherwise skim the floor). Where it does not, the swing
    rises by the least multiple of the early bump that gives it the first, at
    most ``_SOLE_CLEARANCE``, then by the least multiple of ``sin²(π s)`` that
    makes up the rest: a swing that must rise further (slow, short steps) spreads
    the rest over the whole swing, so its knee does not extend much faster in
    terminal swing. Each lift is at rest at toe-off and heel strike, so the
    knee's flexion stays smooth.
    """
    out = z.copy()
    edges = np.diff(np.concatenate([[0], swing.astype(np.int8), [0]]))
    for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
        s = (np.arange(a, b) - a + 1.0) / (b - a + 1.0)
        whole = np.sin(np.pi * s) ** 2
        up = 0.5 * s / _LIFT_PEAK
        down = 0.5 + 0.5 * np.minimum((s - _LIFT_PEAK) / (_LIFT_DOWN_BY - _LIFT_PEAK), 1.0)
        early = np.sin(np.pi * np.where(s <= _LIFT_PEAK, up, down)) ** 2
        clear = z[a:b] + sole[a:b]
        least = np.maximum(
            _SOLE_CLEARANCE * early, np.minimum(_SOLE_CLEARANCE * whole, _HEEL_HOVER)
        )
        lifted = np.zeros(b - a)
        inner = early > 0.1
        if inner.any():
            lift = float(np.max((_SOLE_CLEARANCE * early - clear)[inner] / early[inner]))
            lifted += float(np.clip(lift, 0.0, _SOLE_CLEARANCE)) * early
        inner = whole > 0.1
        if inner.any():
            lift = float(np.max((least - clear - lifted)[inner] / whole[inner]))
            lifted += max(lift, 0.0) * whole
        out[a:b] += lifted
    return out


def _swing_ankles(hip: NDArray, foot: _Foot, knee: NDArray, body: _Body) -> NDArray[np.float64]:
    """Ankle positions ``(N, 3)``: planted ones as they are, swinging ones at the knee's reach.

    A swinging ankle keeps its horizontal path; its height is the one at which
    the hip-ankle distance is the leg length for the knee flexion ``knee (N,)``,
    raised where that would put the foot (turned as ``foot.rotation``, toes bent
    by ``foot.toes``) below the floor, and raised (by a smooth maximum over
    ``_HEEL_SOFT``) where the heel would come nearer the floor than
    :func:`_landing_clearance`; each swing then rises as :func:`_sole_lift` asks. The
    knee extends to its heel-strike flexion in terminal swing; where the pelvis is
    still rising to its height at heel strike then (slow and slowing steps, short
    enough that the leading leg stands nearly upright), the knee's reach alone would
    take the heel onto the floor before it lands, sliding along it.
    """
    length = body.leg_length(knee)
    horizontal = np.linalg.norm(foot.ankle[:, :2] - hip[:, :2], axis=-1)
    z = hip[:, 2] - np.sqrt(np.maximum(length**2 - horizontal**2, 0.0))
    swinging = ~foot.stance
    sole = np.zeros(len(z))
    sole[swinging] = body.sole_height(foot.rotation[swinging], foot.toes[swinging])
    z = np.maximum(z, -sole)
    heel = quat_apply(foot.rotation, body.heel)[:, 2] - body.heel_radius
    least = _landing_clearance(foot, body) - heel
    z = _HEEL_SOFT * np.logaddexp(z / _HEEL_SOFT, least / _HEEL_SOFT)
    z = _sole_lift(z, sole, swinging)
    swing = np.concatenate([foot.ankle[:, :2], z[:, None]], axis=-1)
    return np.where(swinging[:, None], swing, foot.ankle)


def _upper_body_track(
    t_end: float, p: GaitParameters, sk: Skeleton, yaw_amp: float, roll_amp: float, high: float
) -> KeyframeTrack:
    """Eight keys a cycle for trunk counter-rotation and arm swing (Chen et al.'s keyframes).

    The spine also undoes the pelvis's obliquity (``roll_amp`` [rad], each hip
    highest at ``high`` of its cycle, see :func:`_obliquity`), so the trunk stays
    upright. The elbow flexes with the arm's forward swing, over a range of 1.3
    times the shoulder's amplitude (about 20° at 1.3 m/s; Murray et al. 1967).
    """
    d = p.cycle_duration
    n_keys = p.cycles * _KEYS_PER_CYCLE + 1
    times = np.linspace(0.0, t_end, n_keys)
    phase = 2.0 * np.pi * times / d
    q = np.tile(quat_identity((sk.n_joints,)), (n_keys, 1, 1))
    # Trunk counter-rotates against the pelvis so the chest faces the heading.
    for name in ("spine", "chest"):
        q[:, sk.index(name)] = _qz(-0.5 * yaw_amp * np.cos(phase))
    spine = sk.index("spine")
    roll = _obliquity(times / d, roll_amp, high)
    q[:, spine] = quat_multiply(q[:, spine], _qaxis(np.array([1.0, 0.0, 0.0]), -roll))
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
        elbow_flex = np.radians(15.0) + 0.65 * (flexion + arm)
        q[:, elbow] = _qaxis(sk.axes[elbow], elbow_flex)
    return KeyframeTrack(times, q, np.zeros((n_keys, 3)))


def _obliquity(phase: NDArray, amplitude: float, high: float) -> NDArray[np.float64]:
    """Pelvic roll [rad] about the forward axis at ``phase`` (share of the cycle, right heel
    strike at 0), positive raising the left hip.

    The swing side's hip drops (Perry & Burnfield 2010, ch. 8; Saunders, Inman &
    Eberhart 1953): a leg's hip, below the other's from late swing to loading
    response, rises through single support, highest at ``high`` of its cycle (a
    sinusoid; lowest half a cycle later).
    """
    return -amplitude * np.cos(2.0 * np.pi * (np.asarray(phase, dtype=np.float64) - high))


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
    sk = standard_humanoid() if skeleton is None else skeleton
    body = _Body.of(sk)
    p = (GaitParameters() if parameters is None else parameters).for_stature(body.stature)
    n = frame_count(p.duration, p.fps)
    d = p.cycle_duration
    # Half a cycle more on each side, so every swing of the walk has stance frames around it.
    pad = int(np.ceil(0.5 * d * p.fps)) + 2
    t = np.arange(-pad, n + pad) / p.fps
    scale = p.step_length / 0.7
    # Side-to-side sway of the pelvis, peak to peak: 6 cm at 1.0 m/s falling to 3.5 cm at
    # 1.6 m/s for a 1.68 m body (faster walks have narrower, quicker steps; Orendurff et
    # al. 2004), scaled with stature.
    sway = 0.5 * np.clip(0.06 - 0.025 * (p.speed - 1.0) / 0.6, 0.025, 0.07) * body.stature / 1.68
    yaw_amp = np.radians(4.0 + _PELVIC_ROTATION_PER_SPEED * max(0.0, p.speed - 1.3)) * scale
    roll_amp = np.radians(5.5)  # obliquity 11° peak to peak (the CMU walks: 11-12.6°)
    high_hip = _HIGH_HIP_LONG_STEP + _long_step_fade(p, body) * (_HIGH_HIP - _HIGH_HIP_LONG_STEP)
    width = p.step_width if p.step_width is not None else 0.3 * 2 * body.hip_offset[1] + 0.05

    xy, heading = _path(t, p)
    lateral = np.stack([-np.sin(heading), np.cos(heading), np.zeros(len(t))], axis=-1)
    pelvis = np.concatenate([xy, np.zeros((len(t), 1))], axis=-1)
    pelvis += (-sway * np.sin(2.0 * np.pi * t / d))[:, None] * lateral
    q_pelvis = quat_multiply(
        _qz(heading + yaw_amp * np.cos(2.0 * np.pi * t / d)),
        _qaxis(np.array([1.0, 0.0, 0.0]), _obliquity(t / d, roll_amp, high_hip)),
    )

    feet = {side: _foot(t, side, p, body, width) for side in (-1, 1)}
    mirror = np.array([1.0, -1.0, 1.0])

    def hips_at(pelvis_pos: NDArray) -> dict[int, NDArray]:
        return {
            side: pelvis_pos + quat_apply(q_pelvis, body.hip_offset * (mirror if side < 0 else 1))
            for side in (-1, 1)
        }

    level = hips_at(pelvis)
    pelvis[:, 2] = _trailing_reach(_pelvis_height(t, level, feet, body, p), level, feet, body, p)
    leg = body.thigh + body.shank
    if pelvis[:, 2].min() < body.ankle_height + 0.75 * leg:
        raise InputError(
            f"step length {p.step_length} m is too long for a leg of {leg:.3f} m: the pelvis "
            f"would sink more than 25 % of the leg length; shorten the step"
        )
    hips = hips_at(pelvis)

    keep = slice(pad, pad + n)
    local = np.tile(quat_identity((sk.n_joints,)), (n, 1, 1))
    local[:, sk.index("pelvis")] = q_pelvis[keep]
    solves: list[IKResult] = []
    for side, prefix in ((-1, "r"), (1, "l")):
        flat = body.knee_angle(np.linalg.norm(feet[side].ankle - hips[side], axis=-1))
        most = body.knee_angle(np.linalg.norm(_heel_up(feet[side], body, p) - hips[side], axis=-1))
        aim = knee_profile(feet[side].tau, p)
        profile = _late_stance_knee(aim, flat, most, feet[side], p)
        # The same without the leg's reach: where a long step keeps the heel from rising as
        # far as the knee asks, the swing starts from the knee it has and fades to the aim.
        unbounded = _late_stance_knee(aim, flat, np.full_like(most, np.inf), feet[side], p)
        foot = _heel_rise(feet[side], hips[side], profile, body, p)
        knee = body.knee_angle(np.linalg.norm(foot.ankle - hips[side], axis=-1))
        knee = _swing_knee(knee, unbounded, t, ~foot.stance)
        foot = _swing(foot, t, p, body)
        forward = quat_apply(foot.rotation, [1.0, 0.0, 0.0])
        forward[:, 2] = 0.0
        foot = _swing_ankle_neutral(foot, hips[side], knee, t, body, p)
        ankle = _swing_ankles(hips[side], foot, knee, body)[keep]
        g_thigh, knee = _leg(hips[side][keep], ankle, forward[keep], body)
        knee_j = sk.index(f"{prefix}_knee")
        local[:, sk.index(f"{prefix}_hip")] = quat_multiply(quat_conjugate(q_pelvis[keep]), g_thigh)
        local[:, knee_j] = _qaxis(sk.axes[knee_j], knee)
        if p.leg_ik == "ccd":
            solves.append(_ccd_leg(local, pelvis[keep], ankle, sk, prefix))
        _set_foot(local, sk, prefix, foot.rotation[keep], foot.stance[keep], foot.toes[keep])
    upper = _upper_body_track(t[keep][-1] if n > 1 else d, p, sk, yaw_amp, roll_amp, high_hip)
    _, upper_rot = upper.sample(t[keep], Interpolation.SQUAD)  # C¹: no kinks at the keys
    ub = sk.indices(_UPPER_BODY)
    local[:, ub] = upper_rot[:, ub]
    motion = Motion(sk, p.fps, pelvis[keep], local)
    elapsed = time.perf_counter() - started
    planted = {side: (foot.stance[keep], foot.tau[keep]) for side, foot in feet.items()}
    return _measure(motion, p, body, planted, solves, n / elapsed)


def _set_foot(
    local: NDArray, sk: Skeleton, prefix: str, q_foot: NDArray, stance: NDArray, toes: NDArray
) -> None:
    """Set the ankle and toe rotations of one leg in ``local (N, J, 4)`` (in place).

    The ankle turns the shank (from the pelvis, hip and knee in ``local``) into the
    foot's world rotation ``q_foot (N, 4)``; in swing only as far as the ankle's
    range of motion allows (the shank swings back further than a flat foot can
    follow). The toe joint bends by ``toes (N,)`` [rad] to keep the toes flat.
    """
    g_shank = local[:, sk.index("pelvis")]
    for joint in ("hip", "knee"):
        g_shank = quat_multiply(g_shank, local[:, sk.index(f"{prefix}_{joint}")])
    ankle_j = sk.index(f"{prefix}_ankle")
    q_ankle = quat_multiply(quat_conjugate(g_shank), q_foot)
    local[:, ankle_j] = q_ankle
    clamped = sk.clamp(local, [ankle_j])[:, ankle_j]
    local[:, ankle_j] = np.where(stance[:, None], q_ankle, clamped)
    toe_j = sk.index(f"{prefix}_toe")
    local[:, toe_j] = _qaxis(sk.axes[toe_j], toes)


def _ccd_leg(local: NDArray, root: NDArray, ankle: NDArray, sk: Skeleton, prefix: str) -> IKResult:
    """Re-solve one leg's hip and knee in ``local (N, J, 4)`` by CCD, frame after frame.

    Chen et al.'s walking IK: the leg chain hip → knee → ankle ends at the pelvis,
    its sub-root, so CCD never backtracks into the trunk. Each frame starts from
    the previous frame's solution (the first from the analytic pose) and drives
    the ankle to ``ankle (N, 3)``; ``root (N, 3)`` is the pelvis position. CCD
    leaves the leg's swivel about the hip-ankle line free, and over frames it
    drifts (the thigh twisting by tens of degrees, the foot then jumping back at
    heel strike); after each solve the leg turns about that line to put the knee
    where the analytic pose has it, in ``local`` on entry (:func:`_swivel_to`).
    Returns the solves stacked over frames.
    """
    chain = Chain(sk, f"{prefix}_ankle", start=f"{prefix}_hip")
    solver = CCD(tolerance=_CCD_TOLERANCE, max_iterations=_CCD_SWEEPS)
    hip, knee, ankle_j = sk.indices([f"{prefix}_hip", f"{prefix}_knee", f"{prefix}_ankle"])
    leg = [hip, knee]
    start = local[0].copy()
    results = []
    for i in range(len(local)):
        pose = local[i].copy()
        pose[leg] = start[leg]
        result = solver.solve(chain, ankle[i], pose, root[i])
        start = np.array(result.local_rotations)
        start[hip] = _swivel_to(start, local[i], sk, [hip, knee, ankle_j])
        local[i, leg] = start[leg]
        results.append(replace(result, local_rotations=start))
    return _stack(results)


def _swivel_to(
    pose: NDArray, reference: NDArray, sk: Skeleton, leg: list[int]
) -> NDArray[np.float64]:
    """Hip rotation ``(4,)`` of ``pose (J, 4)`` turned about the hip-ankle line onto the
    knee of ``reference (J, 4)``.

    ``leg`` is the hip, knee and ankle joint; the hip's parent is the root (the
    pelvis). The ankle stays where it is (the turn's axis passes through it); the
    knee moves into the half-plane through that line and the reference's knee.
    """
    hip, knee, ankle = leg
    g_pelvis = pose[sk.parents[hip]]
    thigh = quat_multiply(g_pelvis, pose[hip])
    to_knee = quat_apply(thigh, sk.offsets[knee])
    to_ankle = to_knee + quat_apply(quat_multiply(thigh, pose[knee]), sk.offsets[ankle])
    ref_knee = quat_apply(quat_multiply(g_pelvis, reference[hip]), sk.offsets[knee])
    axis = to_ankle / np.linalg.norm(to_ankle)
    a = to_knee - np.dot(to_knee, axis) * axis
    b = ref_knee - np.dot(ref_knee, axis) * axis
    angle = np.arctan2(np.dot(axis, np.cross(a, b)), np.dot(a, b))
    return quat_multiply(quat_conjugate(g_pelvis), quat_multiply(_qaxis(axis, angle), thigh))


def _stack(results: list[IKResult]) -> IKResult:
    """Position-only IK results stacked along a new first axis."""
    return IKResult(
        local_rotations=np.stack([r.local_rotations for r in results]),
        root_position=np.stack([r.root_position for r in results]),
        position_error=np.stack([np.asarray(r.position_error, float) for r in results]),
        orientation_error=None,
        iterations=np.stack([np.asarray(r.iterations, np.int64) for r in results]),
        joint_updates=np.stack([np.asarray(r.joint_updates, np.int64) for r in results]),
        converged=np.stack([np.asarray(r.converged, bool) for r in results]),
    )


def _measure(
    motion: Motion,
    p: GaitParameters,
    body: _Body,
    planted: dict[int, tuple[NDArray, NDArray]],
    solves: list[IKResult],
    gen_fps: float,
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
    # Step length and foot skate from the planted feet: the heel's centre from heel strike
    # to heel-off, the ball of the foot from foot-flat to toe-off.
    prints, skate = [], 0.0
    for side, prefix in ((-1, "r"), (1, "l")):
        stance, tau = planted[side]
        ankle_j = sk.index(f"{prefix}_ankle")
        heel = pos[:, ankle_j] + quat_apply(rot[:, ankle_j], body.heel)
        toe = pos[:, sk.index(f"{prefix}_toe"), :2]
        starts = np.flatnonzero(stance & ~np.roll(stance, 1))
        for s0 in starts:
            run = s0 + np.flatnonzero(~stance[s0:])[0] if np.any(~stance[s0:]) else len(t)
            if s0 == 0 or run == len(t):
                continue  # a stance cut by the start or end of the motion
            on_heel = s0 + np.flatnonzero(tau[s0:run] <= HEEL_OFF)
            on_ball = s0 + np.flatnonzero(tau[s0:run] >= _foot_flat(p))
            slide_heel = np.linalg.norm(heel[on_heel, :2] - heel[s0, :2], axis=-1).max()
            slide_ball = np.linalg.norm(toe[on_ball] - toe[on_ball[0]], axis=-1).max()
            skate = max(skate, float(slide_heel), float(slide_ball))
            prints.append((t[s0], heel[s0, :2]))
    prints.sort(key=lambda x: x[0])
    steps = []
    for (ta, a), (tb, b) in itertools.pairwise(prints):
        heading = _path(np.array([0.5 * (ta + tb) + _footprint_time(p, body)]), p)[1][0]
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
        ik=_stack(solves) if solves else None,
    )
