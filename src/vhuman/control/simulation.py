"""Closed-loop simulation of a `Controller` on its MuJoCo humanoid, with metrics and pushes."""

from __future__ import annotations

import math
import time
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
    "PUSH_DIRECTIONS",
    "Push",
    "SimulationResult",
    "parse_push",
    "simulate",
]

CONTROL_SUBSTEPS = 2
"""Simulation steps per control update (the controller runs at 1 / (2 × 4 ms) = 125 Hz)."""
TORSO_KP = (300.0, 300.0, 100.0)
"""PD gains [N m/rad] holding the pelvis's world pitch, roll and yaw (through the stance hip)."""
TORSO_KD = (30.0, 30.0, 10.0)
"""Damping [N m s/rad] of the pelvis's world attitude."""

PUSH_DIRECTIONS = {"forward": 0.0, "backward": math.pi, "left": 0.5 * math.pi,
                   "right": -0.5 * math.pi}  # fmt: skip
"""Push directions and their angle [rad] from the body's heading (counter-clockwise, z up)."""
_FALL_HEIGHT = 0.6  # fall when the root drops below this fraction of its start height
_FALL_TILT = 0.8  # rad: fall when the pelvis pitch or roll exceeds this


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
    direction : str
        One of :data:`PUSH_DIRECTIONS`, relative to the body's heading (the
        pelvis's yaw) when the push starts: ``"forward"`` pushes from behind,
        ``"left"`` towards the character's left.
    """

    force: float
    duration: float
    at: float
    direction: str = "left"

    def __post_init__(self) -> None:
        if self.direction not in PUSH_DIRECTIONS:
            raise InputError(
                f"push direction {self.direction!r} is not allowed; use one of "
                f"{', '.join(PUSH_DIRECTIONS)}"
            )
        if not (np.isfinite(self.force) and self.force >= 0.0):
            raise InputError(f"push force must be finite and >= 0 N, got {self.force}")
        if not (np.isfinite(self.at) and self.at >= 0.0):
            raise InputError(f"push start time must be finite and >= 0 s, got {self.at}")
        if not (np.isfinite(self.duration) and self.duration > 0.0):
            raise InputError(f"push duration must be > 0 s, got {self.duration}")

    def vector(self, heading: float) -> NDArray[np.float64]:
        """World force vector [N] ``(3,)`` for a body heading ``heading`` [rad] (yaw)."""
        angle = heading + PUSH_DIRECTIONS[self.direction]
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
            f"{', '.join(PUSH_DIRECTIONS)}, e.g. 200:0.2:5:left"
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
        chest=h.body_of_joint[sk.index("chest")],
        ground_ok_set=frozenset(
            int(g) for g in np.flatnonzero(np.isin(model.geom_bodyid, list(ok_bodies)))
        ),
    )


def _joint_of(h: Any, body: int) -> int:
    return next(j for j, b in enumerate(h.body_of_joint) if b == body)


def simulate(
    ctrl: Controller,
    cycles: float = 20.0,
    *,
    pushes: tuple[Push, ...] | list[Push] = (),
    record_fps: float | None = 30.0,
    stop_on_fall: bool = True,
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
    model = h.model
    data = mujoco.MjData(model)
    data.qpos[:] = ctrl.start_qpos
    data.qvel[:] = ctrl.start_qvel
    mujoco.mj_forward(model, data)
    lay = _layout(ctrl.skeleton)
    ref = _reference(ctrl)
    kp = model.actuator_gainprm[:, 0].tolist()
    kd = (-model.actuator_biasprm[:, 2]).tolist()

    # Everything the loop needs, computed once: plain Python numbers where the law works on
    # scalars, keyframe deltas for the interpolation, views into mjData (their memory is fixed).
    targets = np.ascontiguousarray(ctrl.targets, dtype=np.float64)
    k = len(targets)
    delta = np.roll(targets, -1, axis=0) - targets
    fb = ctrl.feedback.tolist()
    ideal = ctrl.ideal.tolist()
    period = ctrl.period
    walking = ctrl.gait is not None
    gait = ctrl.gait.tolist() if walking else [[0.0] * 5] * 2
    state_time = ctrl.state_time
    torso_pitch = ctrl.torso_pitch
    width = (-ctrl.stance_width, ctrl.stance_width)  # swing hip roll offset, right / left
    dt = TIMESTEP * CONTROL_SUBSTEPS
    step_nominal = 0.5 * period
    max_time = cycles * period * (3.0 if walking else 1.0)
    n_max = max(1, math.ceil(max_time / dt - 1e-6))  # control steps at most
    want_steps = int(np.ceil(2 * cycles - 1e-9))
    start_height = float(ctrl.start_qpos[2])
    yaw0 = pelvis_attitude(ctrl.start_qpos[3:7])[0]
    heading = np.array([np.cos(yaw0), np.sin(yaw0)])
    push_list = tuple(pushes)
    push_spans = [(p.at, p.at + p.duration) for p in push_list]
    push_vectors: list[list[float] | None] = [None] * len(push_list)  # fixed when one starts
    record_every = None if record_fps is None else max(1, round(1.0 / (record_fps * dt)))
    tkp, tkd = TORSO_KP, TORSO_KD
    hips, knees, ankles = lay.hip, lay.knee, lay.ankle
    foot_geoms = lay.foot_geom
    ground_ok = lay.ground_ok_set
    fall_height = _FALL_HEIGHT * start_height
    qpos, qvel = data.qpos, data.qvel
    hinge_v = qvel[6:]
    act_force, ctrl_in = data.actuator_force, data.ctrl
    xmat_root, com_root = data.xmat[1], data.subtree_com[1]
    foot_pos = (data.xpos[lay.foot_body[0]], data.xpos[lay.foot_body[1]])
    chest_force = data.xfrc_applied[lay.chest, :3]
    # Per control step, the state after it and the phase it was made for (metrics and the
    # recorded motion are computed from these at the end, vectorised).
    log_q = np.empty((n_max, model.nq))
    log_v = np.empty((n_max, h.n_hinges))
    log_f = np.empty((n_max, h.n_hinges))
    log_phase = np.empty(n_max)
    two_pi = 2.0 * math.pi

    sway_sq, sway_n = 0.0, 0
    self_coll = 0.0
    fell, fall_time = False, None
    right, fsm_state, t_step, steps = True, 0, 0.0, 0
    force_now = [0.0, 0.0, 0.0]
    wall = time.perf_counter()
    cpu = time.process_time()
    n_ctrl = 0
    # MuJoCo writes its warnings (an unstable step: NaN, which counts as a fall) to
    # MUJOCO_LOG.TXT in the working folder unless a handler takes them.
    mujoco_warnings: list[str] = []
    previous_handler = mujoco.get_mju_user_warning()
    mujoco.set_mju_user_warning(mujoco_warnings.append)
    try:
        while n_ctrl < n_max and (not walking or steps < want_steps):
            t = n_ctrl * dt
            if walking:
                phase = (0.0 if right else 0.5) + 0.5 * min(t_step / step_nominal, 1.0)
            else:
                phase = (t / period) % 1.0
            x = phase * k
            k0 = int(x) % k
            target = np.multiply(delta[k0], x - int(x), out=ctrl_in)
            target += targets[k0]
            q = qpos.tolist()
            w, qx, qy, qz = q[3:7]
            pitch = math.asin(max(-1.0, min(1.0, 2 * (w * qy - qz * qx))))  # unit quaternion
            roll = math.atan2(2 * (w * qx + qy * qz), 1 - 2 * (qx * qx + qy * qy))
            if walking:
                v = qvel.tolist()
                yaw = math.atan2(2 * (w * qz + qx * qy), 1 - 2 * (qy * qy + qz * qz))
                st, sw = (0, 1) if right else (1, 0)
                c, s = math.cos(yaw), math.sin(yaw)
                cx, cy, _ = com_root.tolist()
                ax, ay, _ = foot_pos[st].tolist()
                rx, ry, vx, vy = cx - ax, cy - ay, v[0], v[1]
                ideal_k = ideal[k0]
                e0, e1 = c * rx + s * ry - ideal_k[0], c * vx + s * vy - ideal_k[1]
                e2, e3 = -s * rx + c * ry - ideal_k[2], -s * vx + c * vy - ideal_k[3]
                e4, e5 = pitch - ideal_k[4], roll - ideal_k[5]
                u = [f[0] * e0 + f[1] * e1 + f[2] * e2 + f[3] * e3 + f[4] * e4 + f[5] * e5
                     for f in fb]  # fmt: skip
                g = gait[fsm_state]
                r00, r01, r02, r10, r11, r12, r20, r21, r22 = xmat_root.tolist()
                lx, ly, lz = v[3], v[4], v[5]
                wx = r00 * lx + r01 * ly + r02 * lz
                wy = r10 * lx + r11 * ly + r12 * lz
                wz = r20 * lx + r21 * ly + r22 * lz
                dyaw = math.remainder(yaw0 - yaw, two_pi)
                tau_torso = (
                    tkp[0] * (torso_pitch - pitch) - tkd[0] * (-s * wx + c * wy),
                    tkp[1] * (0.0 - roll) - tkd[1] * (c * wx + s * wy),
                    tkp[2] * dyaw - tkd[2] * wz,
                )
                hip_sw, hip_st = hips[sw], hips[st]
                ank_sw, ank_st = ankles[sw], ankles[st]
                target[hip_sw[0]] = g[0] - pitch + u[0]
                target[hip_sw[1]] = -roll + u[1] + width[sw]
                target[hip_sw[2]] = dyaw
                target[knees[sw]] = g[1]
                target[ank_sw[0]] = g[2]
                target[ank_sw[1]] = 0.0
                target[ank_sw[2]] = 0.0
                target[knees[st]] = g[3]
                target[ank_st[0]] = g[4] + u[2]
                target[ank_st[1]] = u[3]
                target[ank_st[2]] = 0.0
                for i in range(3):
                    b, j = hip_sw[i], hip_st[i]
                    tau_swing = kp[b] * (target[b] - q[7 + b]) - kd[b] * v[6 + b]
                    target[j] = q[7 + j] + (-tau_torso[i] - tau_swing + kd[j] * v[6 + j]) / kp[j]
                sway_sq += (pitch - torso_pitch) ** 2 + roll * roll
            else:
                sway_sq += pitch * pitch + roll * roll
            sway_n += 2
            if push_spans:
                force = [0.0, 0.0, 0.0]
                for i, (start, end) in enumerate(push_spans):
                    if start <= t < end:
                        vec = push_vectors[i]
                        if vec is None:
                            yaw_now = math.atan2(
                                2 * (w * qz + qx * qy), 1 - 2 * (qy * qy + qz * qz)
                            )
                            vec = push_vectors[i] = push_list[i].vector(yaw_now).tolist()
                        force = [f + p for f, p in zip(force, vec, strict=True)]
                if force != force_now:
                    chest_force[:] = force
                    force_now = force
            mujoco.mj_step(model, data, nstep=CONTROL_SUBSTEPS)
            log_q[n_ctrl] = qpos
            log_v[n_ctrl] = hinge_v
            log_f[n_ctrl] = act_force
            log_phase[n_ctrl] = phase
            n_ctrl += 1
            t_step += dt
            body_down = False
            touch = False
            ncon = data.ncon
            if ncon:
                swing_foot = foot_geoms[1 if right else 0] if walking and fsm_state == 1 else -1
                self_hit = False
                for g1, g2 in data.contact.geom[:ncon].tolist():
                    other = g2 if g1 == 0 else g1 if g2 == 0 else -1
                    if other < 0:
                        self_hit = True
                    elif other == swing_foot:
                        touch = True
                    elif other not in ground_ok:
                        body_down = True
                if self_hit:
                    self_coll += dt
            if walking:
                if fsm_state == 0 and t_step >= state_time:
                    fsm_state = 1
                elif fsm_state == 1 and touch:
                    right, fsm_state, t_step = not right, 0, 0.0
                    steps += 1
            z = qpos[2]
            if body_down or z < fall_height or max(abs(pitch), abs(roll)) > _FALL_TILT or z != z:
                if not fell:
                    fell, fall_time = True, float(data.time)
                if stop_on_fall:
                    break
    finally:
        mujoco.set_mju_user_warning(previous_handler)
    cpu = time.process_time() - cpu
    wall = time.perf_counter() - wall
    sim_time = float(data.time)
    energy = float(np.abs(log_f[:n_ctrl] * log_v[:n_ctrl]).sum()) * dt
    err_sq, err_n = 0.0, 0
    per_hinge: tuple[float, ...] = ()
    if ref is not None and n_ctrl:
        ref_h, n_ref = ref
        fpos = log_phase[:n_ctrl] * n_ref
        i0 = fpos.astype(int) % n_ref
        frac = (fpos - np.floor(fpos))[:, None]
        want = (1.0 - frac) * ref_h[i0] + frac * ref_h[i0 + 1]
        dq = np.remainder(log_q[:n_ctrl, 7:] - want + np.pi, two_pi) - np.pi
        err_sq, err_n = float(np.sum(dq * dq)), dq.size
        per_hinge = tuple(np.sqrt(np.mean(dq * dq, axis=0)).tolist())
    if walking:
        completed = steps // 2
    else:
        survived = fall_time if fell and fall_time is not None else sim_time
        completed = int(np.floor(survived / period + 1e-9))
    travel = float((qpos[0:2] - ctrl.start_qpos[0:2]) @ heading) if math.isfinite(qpos[0]) else 0.0
    result = SimulationResult(
        cycles_completed=int(completed),
        fell=fell,
        fall_time_s=fall_time,
        duration_s=sim_time,
        tracking_rmse_rad=float(np.sqrt(err_sq / err_n)) if err_n else 0.0,
        energy_j=energy,
        torso_sway_rad=float(np.sqrt(sway_sq / max(sway_n, 1))),
        distance_m=travel,
        self_collision_s=self_coll,
        sim_speed_x_realtime=sim_time / max(wall, 1e-9),
        sim_speed_x_realtime_cpu=sim_time / max(cpu, 1e-9),
        steps=steps,
        pushes=push_list,
        tracking_rmse_per_hinge_rad=per_hinge,
        hinge_names=h.hinge_names if per_hinge else (),
    )
    motion = None
    if record_every is not None and n_ctrl:
        motion = h.qpos_to_motion(log_q[:n_ctrl:record_every], 1.0 / (record_every * dt))
    return result, motion
