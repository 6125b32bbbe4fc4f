"""Closed-loop simulation of a `Controller` on its MuJoCo humanoid, with metrics and pushes."""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import mujoco
import numpy as np
from numpy.typing import NDArray

from vhuman.control.controller import Controller, clip_motion, pelvis_attitude, sides
from vhuman.control.model import TIMESTEP
from vhuman.errors import InputError
from vhuman.skeleton.motion import Motion

__all__ = [
    "CONTROL_SUBSTEPS",
    "FALL_HEIGHT_RATIO",
    "FALL_TILT_RAD",
    "Observer",
    "Push",
    "PushDirection",
    "SimulationResult",
    "crosses_stance",
    "parse_push",
    "simulate",
    "swing_roll",
]

GRAVITY = 9.81
"""Gravitational acceleration [m/s²] of the extrapolated centre of mass (Hof 2008)."""
CONTROL_SUBSTEPS = 2
"""Simulation steps per control update (the controller runs at 1 / (2 × 4 ms) = 125 Hz)."""
TORSO_KP = (300.0, 300.0, 100.0)
"""PD gains [N m/rad] holding the pelvis's world pitch, roll and yaw (through the stance hip),
times the controller's ``torso_gain``."""
TORSO_KD = (30.0, 30.0, 10.0)
"""Damping [N m s/rad] of the pelvis's world attitude, times the controller's ``torso_gain``."""


class PushDirection(enum.StrEnum):
    """Where a push sends the body, relative to its heading."""

    FORWARD = "forward"
    BACKWARD = "backward"
    LEFT = "left"
    RIGHT = "right"

    @property
    def angle(self) -> float:
        """Angle [rad] of the push from the body's heading (counter-clockwise, z up)."""
        return _PUSH_ANGLES[self]


_PUSH_ANGLES = {
    PushDirection.FORWARD: 0.0,
    PushDirection.BACKWARD: math.pi,
    PushDirection.LEFT: 0.5 * math.pi,
    PushDirection.RIGHT: -0.5 * math.pi,
}
FALL_HEIGHT_RATIO = 0.6
"""Fall criterion: the root (pelvis) below this fraction of its start height. A run also
falls when the pelvis tilts past :data:`FALL_TILT_RAD` or a body part other than the feet
(and toes) touches the ground."""
FALL_TILT_RAD = 0.8
"""Fall criterion: the pelvis pitch or roll beyond this [rad] (see :data:`FALL_HEIGHT_RATIO`)."""

_UNSTABLE = np.array(
    [
        mujoco.mjtWarning.mjWARN_BADQPOS,
        mujoco.mjtWarning.mjWARN_BADQVEL,
        mujoco.mjtWarning.mjWARN_BADQACC,
    ],
    dtype=np.intp,
)
"""MuJoCo's warnings for a state it found non-finite or huge (it then resets the state)."""

Observer = Callable[[mujoco.MjData, bool, int, int], None]
"""Called after every control step with the simulation state, whether the right foot is the
stance foot, the state of the gait machine (0: early, 1: late swing) and the steps so far."""


@dataclass(frozen=True)
class Push:
    """A constant force on the torso (the chest body) for a while.

    Attributes
    ----------
    force : float
        Magnitude [N] (>= 0).
    duration : float
        How long it acts [s].
    at : float
        Start time [s].
    direction : PushDirection or str
        One of :class:`PushDirection`, relative to the body's heading (the
        pelvis's yaw) when the push starts: ``"forward"`` pushes from behind,
        ``"left"`` towards the character's left.
    """

    force: float
    duration: float
    at: float
    direction: PushDirection = PushDirection.LEFT

    def __post_init__(self) -> None:
        if self.direction not in list(PushDirection):
            raise InputError(
                f"push direction {self.direction!r} is not allowed; use one of "
                f"{', '.join(PushDirection)}"
            )
        object.__setattr__(self, "direction", PushDirection(self.direction))
        if not (np.isfinite(self.force) and self.force >= 0.0):
            raise InputError(f"push force must be finite and >= 0 N, got {self.force}")
        if not (np.isfinite(self.at) and self.at >= 0.0):
            raise InputError(f"push start time must be finite and >= 0 s, got {self.at}")
        if not (np.isfinite(self.duration) and self.duration > 0.0):
            raise InputError(f"push duration must be > 0 s, got {self.duration}")

    def vector(self, heading: float) -> NDArray[np.float64]:
        """World force vector [N] ``(3,)`` for a body heading ``heading`` [rad] (yaw)."""
        angle = heading + self.direction.angle
        return self.force * np.array([math.cos(angle), math.sin(angle), 0.0])


def parse_push(text: str) -> Push:
    """A push from ``"FORCE_N:DURATION_S:AT_S:DIRECTION"`` (see :class:`Push`).

    Raises
    ------
    InputError
        If the text is not in that form or a value is out of range.
    """
    parts = text.split(":")
    try:
        if len(parts) != 4:
            raise ValueError
        force, duration, at = (float(p) for p in parts[:3])
    except ValueError:
        raise InputError(
            f"push {text!r} must be FORCE_N:DURATION_S:AT_S:DIRECTION with DIRECTION one of "
            f"{', '.join(PushDirection)}, e.g. 200:0.2:5:left"
        ) from None
    return Push(force, duration, at, parts[3])


@dataclass(frozen=True)
class SimulationResult:
    """Figures of one simulated run.

    Attributes
    ----------
    cycles_completed : int
        Gait cycles (two steps) of a walking controller, whole controller
        periods of a tracking one, before a fall (or the end).
    fell : bool
    fall_time_s : float or None
    duration_s : float
        Simulated time [s].
    tracking_rmse_rad : float
        Root-mean-square difference of all hinge angles from the clip at the
        same phase of the gait cycle [rad] (0 without a clip).
    energy_j : float
        ∫ Σ |τ q̇| dt over the actuated hinges [J].
    torso_sway_rad : float
        RMS of the pelvis pitch and roll deviation from the clip's [rad].
    distance_m : float
        Forward travel of the root along the start heading [m].
    self_collision_s : float
        Time with contacts between the body's own segments [s].
    sim_speed_x_realtime : float
        Simulated time over wall time.
    sim_speed_x_realtime_cpu : float
        Simulated time over this process's CPU time (the single-core speed on a
        machine shared with other work).
    steps : int
        Foot strikes of a walking controller (two per gait cycle).
    pushes : tuple of Push
    tracking_rmse_per_hinge_rad : tuple of float
        ``tracking_rmse_rad`` per hinge (actuator order; empty without a clip).
    hinge_names : tuple of str
        Names of those hinges (``<joint>_<axis>``, actuator order).
    """

    cycles_completed: int
    fell: bool
    fall_time_s: float | None
    duration_s: float
    tracking_rmse_rad: float
    energy_j: float
    torso_sway_rad: float
    distance_m: float
    self_collision_s: float
    sim_speed_x_realtime: float
    sim_speed_x_realtime_cpu: float = 0.0
    steps: int = 0
    pushes: tuple[Push, ...] = ()
    tracking_rmse_per_hinge_rad: tuple[float, ...] = ()
    hinge_names: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict of the figures."""
        return {
            "cycles_completed": self.cycles_completed,
            "fell": self.fell,
            "fall_time_s": self.fall_time_s,
            "duration_s": self.duration_s,
            "tracking_rmse_rad": self.tracking_rmse_rad,
            "energy_j": self.energy_j,
            "torso_sway_rad": self.torso_sway_rad,
            "distance_m": self.distance_m,
            "self_collision_s": self.self_collision_s,
            "sim_speed_x_realtime": self.sim_speed_x_realtime,
            "sim_speed_x_realtime_cpu": self.sim_speed_x_realtime_cpu,
            "steps": self.steps,
            "pushes": [
                {
                    "force_n": p.force,
                    "duration_s": p.duration,
                    "at_s": p.at,
                    "direction": p.direction,
                }
                for p in self.pushes
            ],
            "tracking_rmse_per_hinge_rad": list(self.tracking_rmse_per_hinge_rad),
            "tracking_rmse_per_joint_rad": dict(
                zip(self.hinge_names, self.tracking_rmse_per_hinge_rad, strict=False)
            ),
        }


@cache
def _clip_hinges(clip: str, signature: str) -> tuple[NDArray[np.float64], int]:
    from vhuman.control.controller import humanoid_for

    motion = clip_motion(clip)
    qpos = humanoid_for("deepmimic").motion_to_qpos(motion)
    return np.unwrap(qpos[:, 7:], axis=0), motion.n_frames - 1


def _reference(ctrl: Controller) -> tuple[NDArray[np.float64], int] | None:
    """The clip's unwrapped hinge angles ``(n + 1, H)`` over one cycle and the frame count n,
    or None without a clip."""
    if not ctrl.clip:
        return None
    return _clip_hinges(ctrl.clip, ctrl.signature)


@dataclass(frozen=True)
class _Layout:
    """Hinge and body indices the control law needs (Python ints, for speed)."""

    hip: tuple[tuple[int, int, int], tuple[int, int, int]]  # (pitch, roll, yaw) right, left
    knee: tuple[int, int]
    ankle: tuple[tuple[int, int, int], tuple[int, int, int]]  # (pitch, roll, yaw)
    foot_body: tuple[int, int]
    foot_geom: tuple[int, int]
    hip_body: tuple[int, int]  # thigh bodies (their origins are the hip joints)
    leg_length: float  # hip to ankle with the knee straight [m]
    chest: int
    ground_ok_set: frozenset[int]  # geoms that may touch the ground without a fall


@cache
def _layout(skeleton: str) -> _Layout:
    from vhuman.control.controller import humanoid_for

    h = humanoid_for(skeleton)
    sk = h.skeleton
    r_side, l_side = sides(h)
    names = [n for n in sk.names if "knee" in n]
    right_knee = next(n for n in names if n.startswith(("right", "r_")))
    left_knee = next(n for n in names if n.startswith(("left", "l_")))
    feet = (r_side[4], l_side[4])
    ok_bodies = set(feet)
    for j, name in enumerate(sk.names):
        if "toe" in name:
            ok_bodies.add(h.body_of_joint[j])
    model = h.model
    hip_names = [n for n in sk.names if "hip" in n]
    hip_body = tuple(
        h.body_of_joint[sk.index(next(n for n in hip_names if n.startswith(prefix)))]
        for prefix in (("right", "r_"), ("left", "l_"))
    )
    knee_body = h.body_of_joint[sk.index(right_knee)]
    leg_length = float(
        np.linalg.norm(model.body_pos[knee_body]) + np.linalg.norm(model.body_pos[feet[0]])
    )
    foot_geom = tuple(int(np.flatnonzero(model.geom_bodyid == b)[0]) for b in feet)
    return _Layout(
        hip=((r_side[0], r_side[1], r_side[5]), (l_side[0], l_side[1], l_side[5])),
        knee=(h.hinge(right_knee), h.hinge(left_knee)),
        ankle=tuple(
            (side[2], side[3], h.hinge(sk.names[_joint_of(h, side[4])] + "_z"))
            for side in (r_side, l_side)
        ),
        foot_body=(int(feet[0]), int(feet[1])),
        foot_geom=foot_geom,  # type: ignore[arg-type]
        hip_body=(int(hip_body[0]), int(hip_body[1])),
        leg_length=leg_length,
        chest=h.body_of_joint[sk.index("chest")],
        ground_ok_set=frozenset(
            int(g) for g in np.flatnonzero(np.isin(model.geom_bodyid, list(ok_bodies)))
        ),
    )


def _joint_of(h: Any, body: int) -> int:
    return next(j for j, b in enumerate(h.body_of_joint) if b == body)


@dataclass(frozen=True)
class _Plan:
    """What the control loop needs from the controller, computed once (plain Python numbers
    where the law works on scalars, keyframe deltas for the interpolation)."""

    targets: NDArray[np.float64]  # (K, H) keyframe targets [rad]
    delta: NDArray[np.float64]  # (K, H) change to the next keyframe [rad]
    kp: list[float]  # per hinge [N m/rad]
    kd: list[float]  # per hinge [N m s/rad]
    feedback: list[list[float]]  # (4, 6)
    ideal: list[list[float]]  # (K, 6)
    gait: list[list[float]]  # (2, 5) [rad]
    walking: bool
    period: float  # [s]
    state_time: float  # [s]
    torso_pitch: float  # [rad]
    torso_kp: tuple[float, float, float]  # [N m/rad]
    torso_kd: tuple[float, float, float]  # [N m s/rad]
    width: tuple[float, float]  # swing hip roll offset, right / left [rad]
    com_velocity: bool  # feedback on the centre of mass's velocity (else the pelvis's)
    xcom_margin: float | None  # smallest swing-foot distance beyond the extrapolated COM [m]
    level_swing_foot: bool  # swing ankle roll holds the sole level
    quick_step_time: float | None  # early swing [s] while the XCoM is past the stance foot
    step_nominal: float  # [s]
    n_max: int  # control steps at most
    want_steps: int  # foot strikes that end a walking run
    fall_height: float  # [m]
    yaw0: float  # start heading [rad]


def _plan(ctrl: Controller, cycles: float) -> _Plan:
    """The :class:`_Plan` of a run of ``cycles`` cycles."""
    model = ctrl.humanoid.model
    walking = ctrl.gait is not None
    dt = TIMESTEP * CONTROL_SUBSTEPS
    targets = np.ascontiguousarray(ctrl.targets, dtype=np.float64)
    max_time = cycles * ctrl.period * (3.0 if walking else 1.0)
    return _Plan(
        targets=targets,
        delta=np.roll(targets, -1, axis=0) - targets,
        kp=model.actuator_gainprm[:, 0].tolist(),
        kd=(-model.actuator_biasprm[:, 2]).tolist(),
        feedback=ctrl.feedback.tolist(),
        ideal=ctrl.ideal.tolist(),
        gait=ctrl.gait.tolist() if ctrl.gait is not None else [[0.0] * 5] * 2,
        walking=walking,
        period=ctrl.period,
        state_time=ctrl.state_time,
        torso_pitch=ctrl.torso_pitch,
        torso_kp=tuple(ctrl.torso_gain * k for k in TORSO_KP),  # type: ignore[arg-type]
        torso_kd=tuple(ctrl.torso_gain * k for k in TORSO_KD),  # type: ignore[arg-type]
        width=(-ctrl.stance_width, ctrl.stance_width),
        com_velocity=ctrl.com_velocity,
        xcom_margin=ctrl.xcom_margin,
        level_swing_foot=ctrl.level_swing_foot,
        quick_step_time=ctrl.quick_step_time,
        step_nominal=0.5 * ctrl.period,
        n_max=max(1, math.ceil(max_time / dt - 1e-6)),
        want_steps=int(np.ceil(2 * cycles - 1e-9)),
        fall_height=FALL_HEIGHT_RATIO * float(ctrl.start_qpos[2]),
        yaw0=pelvis_attitude(ctrl.start_qpos[3:7])[0],
    )


@dataclass
class _Gait:
    """The state machine of a walking controller: stance side, state, time in the step."""

    right: bool = True
    state: int = 0
    t_step: float = 0.0
    steps: int = 0

    def advance(self, dt: float, state_time: float, touch: bool) -> None:
        """Move on by ``dt`` [s]: early swing ends after ``state_time``, late swing at the
        swing foot's touch (a step: the stance side swaps)."""
        self.t_step += dt
        if self.state == 0 and self.t_step >= state_time:
            self.state = 1
        elif self.state == 1 and touch:
            self.right, self.state, self.t_step = not self.right, 0, 0.0
            self.steps += 1


@dataclass
class _Log:
    """Per control step, the state after it and the phase it was made for (metrics and the
    recorded motion are computed from these at the end, vectorised)."""

    q: NDArray[np.float64]  # (N, nq)
    v: NDArray[np.float64]  # (N, H) hinge velocities
    f: NDArray[np.float64]  # (N, H) actuator forces
    phase: NDArray[np.float64]  # (N,)
    n: int = 0
    sway_sq: float = 0.0
    sway_n: int = 0
    self_collision_s: float = 0.0

    @classmethod
    def empty(cls, n_max: int, nq: int, n_hinges: int) -> _Log:
        """A log with room for ``n_max`` control steps."""
        return cls(
            np.empty((n_max, nq)),
            np.empty((n_max, n_hinges)),
            np.empty((n_max, n_hinges)),
            np.empty(n_max),
        )

    def add(self, data: mujoco.MjData, phase: float) -> None:
        """Record the state after a control step."""
        i = self.n
        self.q[i] = data.qpos
        self.v[i] = data.qvel[6:]
        self.f[i] = data.actuator_force
        self.phase[i] = phase
        self.n = i + 1


def _attitude(q: list[float]) -> tuple[float, float, float]:
    """(pitch, roll, yaw) [rad] of the root of ``qpos`` (unit quaternion at 3:7)."""
    w, qx, qy, qz = q[3:7]
    pitch = math.asin(max(-1.0, min(1.0, 2 * (w * qy - qz * qx))))
    roll = math.atan2(2 * (w * qx + qy * qz), 1 - 2 * (qx * qx + qy * qy))
    yaw = math.atan2(2 * (w * qz + qx * qy), 1 - 2 * (qy * qy + qz * qz))
    return pitch, roll, yaw


def _balance(
    target: NDArray[np.float64],
    data: mujoco.MjData,
    lay: _Layout,
    plan: _Plan,
    gait: _Gait,
    k0: int,
    attitude: tuple[float, float, float],
) -> float:
    """Write the SIMBICON leg targets and the feedback into ``target`` (see the controller
    module's notes): swing leg from the state machine plus foot placement, stance ankle
    feedback, and the stance hip's targets that hold the pelvis's world attitude.

    Returns the duration [s] of early swing for this control step: ``quick_step_time``
    while the extrapolated centre of mass is past the stance foot (see :func:`crosses_stance`),
    ``state_time`` otherwise."""
    q, v = data.qpos.tolist(), data.qvel.tolist()
    pitch, roll, yaw = attitude
    st, sw = (0, 1) if gait.right else (1, 0)
    c, s = math.cos(yaw), math.sin(yaw)
    cx, cy, cz = data.subtree_com[1].tolist()
    ax, ay, az = data.xpos[lay.foot_body[st]].tolist()
    need_xcom = plan.xcom_margin is not None or plan.quick_step_time is not None
    if plan.com_velocity or need_xcom:
        mujoco.mj_subtreeVel(data.model, data)
        com_vx, com_vy, _ = data.subtree_linvel[1].tolist()
    vx, vy = (com_vx, com_vy) if plan.com_velocity else (v[0], v[1])
    rx, ry = cx - ax, cy - ay
    ideal_k = plan.ideal[k0]
    e0, e1 = c * rx + s * ry - ideal_k[0], c * vx + s * vy - ideal_k[1]
    e2, e3 = -s * rx + c * ry - ideal_k[2], -s * vx + c * vy - ideal_k[3]
    e4, e5 = pitch - ideal_k[4], roll - ideal_k[5]
    u = [
        f[0] * e0 + f[1] * e1 + f[2] * e2 + f[3] * e3 + f[4] * e4 + f[5] * e5 for f in plan.feedback
    ]
    g = plan.gait[gait.state]
    r00, r01, r02, r10, r11, r12, r20, r21, r22 = data.xmat[1].tolist()
    lx, ly, lz = v[3], v[4], v[5]
    wx = r00 * lx + r01 * ly + r02 * lz
    wy = r10 * lx + r11 * ly + r12 * lz
    wz = r20 * lx + r21 * ly + r22 * lz
    dyaw = math.remainder(plan.yaw0 - yaw, 2.0 * math.pi)
    tkp, tkd = plan.torso_kp, plan.torso_kd
    tau_torso = (
        tkp[0] * (plan.torso_pitch - pitch) - tkd[0] * (-s * wx + c * wy),
        tkp[1] * (0.0 - roll) - tkd[1] * (c * wx + s * wy),
        tkp[2] * dyaw - tkd[2] * wz,
    )
    hip_sw, hip_st = lay.hip[sw], lay.hip[st]
    ank_sw, ank_st = lay.ankle[sw], lay.ankle[st]
    target[hip_sw[0]] = g[0] - pitch + u[0]
    roll_sw = u[1] + plan.width[sw]
    state_time = plan.state_time
    if need_xcom:
        omega = math.sqrt(GRAVITY / max(cz - az, 1e-3))
        xcom = -s * rx + c * ry + (-s * com_vx + c * com_vy) / omega
        if plan.quick_step_time is not None and crosses_stance(xcom, left_swings=sw == 1):
            state_time = plan.quick_step_time
    if plan.xcom_margin is not None:
        hx, hy, _ = data.xpos[lay.hip_body[sw]].tolist()
        roll_sw = swing_roll(
            roll_sw,
            hip_lateral=-s * (hx - ax) + c * (hy - ay),
            xcom=xcom,
            margin=plan.xcom_margin,
            leg_length=lay.leg_length,
            left_swings=sw == 1,
        )
    target[hip_sw[1]] = -roll + roll_sw
    target[hip_sw[2]] = dyaw
    target[lay.knee[sw]] = g[1]
    target[ank_sw[0]] = g[2]
    if plan.level_swing_foot:
        # The ankle's roll hinge turns the foot about its own long (x) axis: taking the
        # sole's world roll atan2(R_zy, R_zz) off the angle levels it.
        foot = data.xmat[lay.foot_body[sw]]
        target[ank_sw[1]] = q[7 + ank_sw[1]] - math.atan2(float(foot[7]), float(foot[8]))
    else:
        target[ank_sw[1]] = 0.0
    target[ank_sw[2]] = 0.0
    target[lay.knee[st]] = g[3]
    target[ank_st[0]] = g[4] + u[2]
    target[ank_st[1]] = u[3]
    target[ank_st[2]] = 0.0
    kp, kd = plan.kp, plan.kd
    for i in range(3):
        b, j = hip_sw[i], hip_st[i]
        tau_swing = kp[b] * (target[b] - q[7 + b]) - kd[b] * v[6 + b]
        target[j] = q[7 + j] + (-tau_torso[i] - tau_swing + kd[j] * v[6 + j]) / kp[j]
    return state_time


def crosses_stance(xcom: float, *, left_swings: bool) -> bool:
    """Whether the extrapolated centre of mass lies past the stance ankle, away from the swing
    leg: only a step across the stance leg would land the swing foot beyond it (Hof 2008).

    ``xcom`` [m] is lateral, in the heading frame relative to the stance ankle, positive to
    the left; the stance leg is the right one when ``left_swings``.
    """
    return (xcom < 0.0) if left_swings else (xcom > 0.0)


def swing_roll(
    want: float,
    *,
    hip_lateral: float,
    xcom: float,
    margin: float,
    leg_length: float,
    left_swings: bool,
) -> float:
    """The swing leg's world roll target [rad] with Hof's (2008) foot placement as a bound.

    Lateral places are in the heading frame relative to the stance ankle [m], positive to
    the left; a positive roll moves the foot to the left. The result is ``want``, or, where
    ``want`` would place the foot of a straight leg of ``leg_length`` [m] from the swing hip
    (at ``hip_lateral``) less than ``margin`` [m] beyond the extrapolated centre of mass
    ``xcom`` towards the swing side (the left when ``left_swings``), the roll that places it
    there (clipped to a horizontal leg).
    """
    side = 1.0 if left_swings else -1.0
    reach = (xcom + side * margin - hip_lateral) / leg_length
    bound = math.asin(max(-1.0, min(1.0, reach)))
    return side * max(side * want, side * bound)


class _Pushes:
    """The chest force of the pushes over time; each push's direction is fixed by the body's
    heading when it starts."""

    def __init__(self, pushes: tuple[Push, ...], chest_force: NDArray[np.float64]) -> None:
        self.pushes = pushes
        self.vectors: list[list[float] | None] = [None] * len(pushes)
        self.chest_force = chest_force  # view into mjData.xfrc_applied
        self.now = [0.0, 0.0, 0.0]

    def apply(self, t: float, yaw: float) -> None:
        """Set the chest force for time ``t`` [s] with the body heading ``yaw`` [rad]."""
        force = [0.0, 0.0, 0.0]
        for i, p in enumerate(self.pushes):
            if p.at <= t < p.at + p.duration:
                vec = self.vectors[i]
                if vec is None:
                    vec = self.vectors[i] = p.vector(yaw).tolist()
                force = [f + x for f, x in zip(force, vec, strict=True)]
        if force != self.now:
            self.chest_force[:] = force
            self.now = force


def _contacts(data: mujoco.MjData, lay: _Layout, swing_foot: int) -> tuple[bool, bool, bool]:
    """Whether the swing foot geom ``swing_foot`` (-1: none) touches the ground, another body
    part than the feet does, and the body touches itself."""
    touch = body_down = self_hit = False
    ncon = data.ncon
    if ncon:
        ground_ok = lay.ground_ok_set
        for g1, g2 in data.contact.geom[:ncon].tolist():
            other = g2 if g1 == 0 else g1 if g2 == 0 else -1
            if other < 0:
                self_hit = True
            elif other == swing_foot:
                touch = True
            elif other not in ground_ok:
                body_down = True
    return touch, body_down, self_hit


def _tracking(ctrl: Controller, log: _Log) -> tuple[float, tuple[float, ...]]:
    """Tracking RMSE [rad] of all hinges against the clip at the logged phases and per hinge
    (0 and empty without a clip or a step)."""
    ref = _reference(ctrl)
    n = log.n
    if ref is None or not n:
        return 0.0, ()
    ref_h, n_ref = ref
    fpos = log.phase[:n] * n_ref
    i0 = fpos.astype(int) % n_ref
    frac = (fpos - np.floor(fpos))[:, None]
    want = (1.0 - frac) * ref_h[i0] + frac * ref_h[i0 + 1]
    dq = np.remainder(log.q[:n, 7:] - want + np.pi, 2.0 * math.pi) - np.pi
    per_hinge = tuple(np.sqrt(np.mean(dq * dq, axis=0)).tolist())
    return float(np.sqrt(np.sum(dq * dq) / dq.size)), per_hinge


def _run(
    ctrl: Controller,
    data: mujoco.MjData,
    plan: _Plan,
    pushes: _Pushes,
    stop_on_fall: bool,
    observe: Observer | None = None,
) -> tuple[_Log, _Gait, float | None]:
    """The control loop: targets, balance, pushes, simulation steps, state machine, falls
    (``observe``, if given, sees the state after every control step).

    Returns the log, the state machine at the end and the fall time [s] (None: no fall).
    A step that MuJoCo finds unstable (it then resets the state) ends the run as a fall
    at that step.
    """
    model = data.model
    lay = _layout(ctrl.skeleton)
    log = _Log.empty(plan.n_max, model.nq, ctrl.humanoid.n_hinges)
    gait = _Gait()
    dt = TIMESTEP * CONTROL_SUBSTEPS
    k = len(plan.targets)
    targets, delta, ctrl_in = plan.targets, plan.delta, data.ctrl
    fall_time = None
    unstable = _UNSTABLE
    state_time = plan.state_time
    while log.n < plan.n_max and (not plan.walking or gait.steps < plan.want_steps):
        t = log.n * dt
        if plan.walking:
            phase = (0.0 if gait.right else 0.5) + 0.5 * min(gait.t_step / plan.step_nominal, 1.0)
        else:
            phase = (t / plan.period) % 1.0
        x = phase * k
        k0 = int(x) % k
        target = np.multiply(delta[k0], x - int(x), out=ctrl_in)
        target += targets[k0]
        attitude = _attitude(data.qpos.tolist())
        pitch, roll, yaw = attitude
        if plan.walking:
            state_time = _balance(target, data, lay, plan, gait, k0, attitude)
            log.sway_sq += (pitch - plan.torso_pitch) ** 2 + roll * roll
        else:
            log.sway_sq += pitch * pitch + roll * roll
        log.sway_n += 2
        if pushes.pushes:
            pushes.apply(t, yaw)
        mujoco.mj_step(model, data, nstep=CONTROL_SUBSTEPS)
        if data.warning.number[unstable].any():
            # MuJoCo reset the state after a non-finite or huge state: nothing after
            # this step belongs to the run, whatever ``stop_on_fall`` says.
            return log, gait, fall_time if fall_time is not None else t
        log.add(data, phase)
        swing_foot = (
            lay.foot_geom[1 if gait.right else 0] if plan.walking and gait.state == 1 else -1
        )
        touch, body_down, self_hit = _contacts(data, lay, swing_foot)
        if self_hit:
            log.self_collision_s += dt
        if plan.walking:
            gait.advance(dt, state_time, touch)
        if observe is not None:
            observe(data, gait.right, gait.state, gait.steps)
        z = data.qpos[2]
        if (
            body_down
            or z < plan.fall_height
            or max(abs(pitch), abs(roll)) > FALL_TILT_RAD
            or z != z
        ):
            if fall_time is None:
                fall_time = float(data.time)
            if stop_on_fall:
                break
    return log, gait, fall_time


def simulate(
    ctrl: Controller,
    cycles: float = 20.0,
    *,
    pushes: tuple[Push, ...] | list[Push] = (),
    record_fps: float | None = 30.0,
    stop_on_fall: bool = True,
    observe: Observer | None = None,
) -> tuple[SimulationResult, Motion | None]:
    """Simulate ``ctrl`` for ``cycles`` gait cycles (or until it falls).

    A walking controller (with ``gait``) runs until it has made ``2 · cycles``
    steps (foot strikes), falls, or has used three times the nominal time
    ``cycles · period``; a tracking controller runs ``cycles · period``
    seconds. The controller acts every :data:`CONTROL_SUBSTEPS` simulation
    steps.

    Parameters
    ----------
    ctrl : Controller
    cycles : float
        Gait cycles to simulate (> 0).
    pushes : sequence of Push
    record_fps : float or None
        Frame rate [Hz] of the returned motion; None records nothing (faster).
    stop_on_fall : bool
        End the run at the first fall.
    observe : Observer, optional
        Called after every control step (see :data:`Observer`); for diagnosis.

    Returns
    -------
    SimulationResult
    Motion or None
        The simulated run on the controller's skeleton.

    Raises
    ------
    InputError
        If ``cycles`` is not > 0 or the controller is for another skeleton.
    """
    if not (np.isfinite(cycles) and cycles > 0):
        raise InputError(f"cycles must be > 0, got {cycles}")
    h = ctrl.humanoid
    data = mujoco.MjData(h.model)
    data.qpos[:] = ctrl.start_qpos
    data.qvel[:] = ctrl.start_qvel
    mujoco.mj_forward(h.model, data)
    plan = _plan(ctrl, cycles)
    push_list = tuple(pushes)
    chest = _Pushes(push_list, data.xfrc_applied[_layout(ctrl.skeleton).chest, :3])
    wall, cpu = time.perf_counter(), time.process_time()
    # MuJoCo writes its warnings (an unstable step: NaN, which counts as a fall) to
    # MUJOCO_LOG.TXT in the working folder unless a handler takes them.
    mujoco_warnings: list[str] = []
    previous_handler = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(mujoco_warnings.append)
    try:
        log, gait, fall_time = _run(ctrl, data, plan, chest, stop_on_fall, observe)
    finally:
        mujoco.set_mju_user_warning(previous_handler)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    n, dt = log.n, TIMESTEP * CONTROL_SUBSTEPS
    # After an unstable step MuJoCo has reset ``data``: the run ends at the last logged state.
    diverged = bool(data.warning.number[_UNSTABLE].any())
    sim_time = n * dt if diverged else float(data.time)
    rmse, per_hinge = _tracking(ctrl, log)
    if plan.walking:
        completed = gait.steps // 2
    else:
        survived = fall_time if fall_time is not None else sim_time
        completed = int(np.floor(survived / plan.period + 1e-9))
    qpos = (log.q[n - 1] if n else ctrl.start_qpos) if diverged else data.qpos
    heading = np.array([np.cos(plan.yaw0), np.sin(plan.yaw0)])
    travel = float((qpos[0:2] - ctrl.start_qpos[0:2]) @ heading) if math.isfinite(qpos[0]) else 0.0
    result = SimulationResult(
        cycles_completed=int(completed),
        fell=fall_time is not None,
        fall_time_s=fall_time,
        duration_s=sim_time,
        tracking_rmse_rad=rmse,
        energy_j=float(np.abs(log.f[:n] * log.v[:n]).sum()) * dt,
        torso_sway_rad=float(np.sqrt(log.sway_sq / max(log.sway_n, 1))),
        distance_m=travel,
        self_collision_s=log.self_collision_s,
        sim_speed_x_realtime=sim_time / max(wall, 1e-9),
        sim_speed_x_realtime_cpu=sim_time / max(cpu, 1e-9),
        steps=gait.steps,
        pushes=push_list,
        tracking_rmse_per_hinge_rad=per_hinge,
        hinge_names=h.hinge_names if per_hinge else (),
    )
    motion = None
    if record_fps is not None and n:
        every = max(1, round(1.0 / (record_fps * dt)))
        motion = h.qpos_to_motion(log.q[:n:every], 1.0 / (every * dt))
    return result, motion
