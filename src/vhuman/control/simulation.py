"""Closed-loop simulation of a `Controller` on its MuJoCo humanoid, with metrics and pushes."""

from __future__ import annotations

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

__all__ = ["CONTROL_SUBSTEPS", "Push", "SimulationResult", "parse_push", "simulate"]

CONTROL_SUBSTEPS = 2
"""Simulation steps per control update (the controller runs at 1 / (2 × 2 ms) = 250 Hz)."""

_DIRECTIONS = {"lateral": (0.0, 1.0, 0.0), "frontal": (1.0, 0.0, 0.0)}
_FALL_HEIGHT = 0.6  # fall when the root drops below this fraction of its start height
_FALL_TILT = 0.8  # rad: fall when the pelvis pitch or roll exceeds this


@dataclass(frozen=True)
class Push:
    """A constant force on the torso (the chest body) for a while.

    Attributes
    ----------
    force : float
        Magnitude [N] (negative: the opposite way).
    duration : float
        How long it acts [s].
    at : float
        Start time [s].
    direction : str
        ``"lateral"`` (+y, towards the character's left at the start) or
        ``"frontal"`` (+x, from behind, along the walk).
    """

    force: float
    duration: float
    at: float
    direction: str = "lateral"

    def __post_init__(self) -> None:
        if self.direction not in _DIRECTIONS:
            raise InputError(
                f"push direction {self.direction!r} is not allowed; use one of "
                f"{', '.join(_DIRECTIONS)}"
            )
        if not (np.isfinite(self.force) and np.isfinite(self.at) and self.at >= 0.0):
            raise InputError(f"push force must be finite and its time >= 0 s, got {self}")
        if not (np.isfinite(self.duration) and self.duration > 0.0):
            raise InputError(f"push duration must be > 0 s, got {self.duration}")

    def vector(self) -> NDArray[np.float64]:
        """World force vector [N]."""
        return self.force * np.array(_DIRECTIONS[self.direction])


def parse_push(text: str) -> Push:
    """A push from ``"N:S:AT[:DIR]"`` (force N, duration s, start s, lateral|frontal).

    Raises
    ------
    InputError
        If the text is not in that form.
    """
    parts = text.split(":")
    try:
        if len(parts) not in (3, 4):
            raise ValueError
        force, duration, at = (float(p) for p in parts[:3])
    except ValueError:
        raise InputError(
            f"push {text!r} must be FORCE_N:DURATION_S:AT_S[:lateral|frontal], e.g. 200:0.2:5"
        ) from None
    return Push(force, duration, at, parts[3] if len(parts) == 4 else "lateral")


@dataclass(frozen=True)
class SimulationResult:
    """Figures of one simulated run.

    Attributes
    ----------
    cycles_completed : int
        Whole controller cycles simulated before a fall (or the end).
    fell : bool
    fall_time_s : float or None
    duration_s : float
        Simulated time [s].
    tracking_rmse_rad : float
        Root-mean-square difference of the hinge angles from the clip at the
        same phase [rad] (0 without a clip).
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
    pushes: tuple[Push, ...] = ()

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
            "pushes": [
                {
                    "force_n": p.force,
                    "duration_s": p.duration,
                    "at_s": p.at,
                    "direction": p.direction,
                }
                for p in self.pushes
            ],
        }


@cache
def _clip_hinges(clip: str, signature: str) -> tuple[NDArray[np.float64], float]:
    from vhuman.control.controller import humanoid_for

    motion = clip_motion(clip)
    qpos = humanoid_for("deepmimic").motion_to_qpos(motion)
    return np.unwrap(qpos[:, 7:], axis=0), motion.fps


def _reference(ctrl: Controller) -> tuple[NDArray[np.float64], float] | None:
    """The clip's unwrapped hinge angles ``(n, H)`` and fps, or None without a clip."""
    if not ctrl.clip:
        return None
    return _clip_hinges(ctrl.clip, ctrl.signature)


def simulate(
    ctrl: Controller,
    cycles: float = 20.0,
    *,
    pushes: tuple[Push, ...] | list[Push] = (),
    record_fps: float | None = 30.0,
    stop_on_fall: bool = True,
) -> tuple[SimulationResult, Motion | None]:
    """Simulate ``ctrl`` for ``cycles`` cycles (or until it falls).

    Parameters
    ----------
    ctrl : Controller
    cycles : float
        Simulated duration in controller cycles (> 0).
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
    r_side, l_side = sides(h)
    sk = h.skeleton
    chest = h.body_of_joint[sk.index("chest")]
    foot_bodies = {r_side[4], l_side[4]}
    for j, name in enumerate(sk.names):
        if "toe" in name:
            foot_bodies.add(h.body_of_joint[j])
    foot_geom = np.isin(model.geom_bodyid, list(foot_bodies))
    ref = _reference(ctrl)
    ref_phase_frames = None if ref is None else len(ref[0]) - 1

    k = len(ctrl.targets)
    targets = ctrl.targets
    ideal = ctrl.ideal
    fb = ctrl.feedback
    period = ctrl.period
    dt = TIMESTEP * CONTROL_SUBSTEPS
    n_ctrl = round(cycles * period / dt)
    start_height = float(ctrl.start_qpos[2])
    start_yaw = pelvis_attitude(ctrl.start_qpos[3:7])[0]
    heading = np.array([np.cos(start_yaw), np.sin(start_yaw)])
    push_list = tuple(pushes)
    record_every = None if record_fps is None else max(1, round(1.0 / (record_fps * dt)))
    frames: list[NDArray[np.float64]] = []
    err_sq, err_n = 0.0, 0
    sway_sq, sway_n = 0.0, 0
    energy = 0.0
    self_coll = 0.0
    fell, fall_time = False, None
    wall = time.perf_counter()
    steps_done = 0
    for step in range(n_ctrl):
        t = data.time
        phase = (t / period) % 1.0
        x = phase * k
        k0 = int(x) % k
        a = x - int(x)
        k1 = (k0 + 1) % k
        target = (1.0 - a) * targets[k0] + a * targets[k1]
        ideal_s = (1.0 - a) * ideal[k0] + a * ideal[k1]
        stance, swing = (r_side, l_side) if ctrl.right_stance[k0] else (l_side, r_side)
        yaw, pitch, roll = pelvis_attitude(data.xquat[1])
        c, s = np.cos(yaw), np.sin(yaw)
        rel = data.subtree_com[1][:2] - data.xpos[stance[4]][:2]
        v = data.qvel[0:2]
        state = np.array([c * rel[0] + s * rel[1], c * v[0] + s * v[1],
                          -s * rel[0] + c * rel[1], -s * v[0] + c * v[1], pitch, roll])  # fmt: skip
        err = state - ideal_s
        u = fb @ err
        if ctrl.world_frame:
            q = data.qpos
            target[stance[0]] = q[7 + stance[0]] + err[4]
            target[stance[1]] = q[7 + stance[1]] + err[5]
            target[stance[5]] = q[7 + stance[5]] + np.angle(np.exp(1j * (yaw - start_yaw)))
            target[swing[0]] -= err[4]
            target[swing[1]] -= err[5]
        target[swing[0]] += u[0]
        target[swing[1]] += u[1]
        target[stance[2]] += u[2]
        target[stance[3]] += u[3]
        data.ctrl[:] = target
        data.xfrc_applied[chest, :3] = 0.0
        for p in push_list:
            if p.at <= t < p.at + p.duration:
                data.xfrc_applied[chest, :3] += p.vector()
        mujoco.mj_step(model, data, nstep=CONTROL_SUBSTEPS)
        steps_done = step + 1
        energy += float(np.abs(data.actuator_force @ np.abs(data.qvel[6:]))) * dt
        if ref is not None:
            ref_h, _ = ref
            fpos = ((data.time / period) % 1.0) * ref_phase_frames
            i0 = int(fpos)
            b = fpos - i0
            want = (1.0 - b) * ref_h[i0] + b * ref_h[min(i0 + 1, ref_phase_frames)]
            d = np.angle(np.exp(1j * (data.qpos[7:] - want)))
            err_sq += float(d @ d)
            err_n += d.size
        sway_sq += err[4] ** 2 + err[5] ** 2
        sway_n += 2
        ncon = data.ncon
        if ncon:
            geoms = data.contact.geom[:ncon]
            on_ground = (geoms == 0).any(axis=1)
            if (~on_ground).any():
                self_coll += dt
            ground_other = geoms[on_ground].max(axis=1)
            body_down = (~foot_geom[ground_other]).any()
        else:
            body_down = False
        if record_every is not None and step % record_every == 0:
            frames.append(data.qpos.copy())
        if (
            body_down
            or data.qpos[2] < _FALL_HEIGHT * start_height
            or max(abs(pitch), abs(roll)) > _FALL_TILT
        ):
            if not fell:
                fell, fall_time = True, float(data.time)
            if stop_on_fall:
                break
    wall = time.perf_counter() - wall
    sim_time = steps_done * dt
    survived = fall_time if fell and fall_time is not None else sim_time
    travel = float((data.qpos[0:2] - ctrl.start_qpos[0:2]) @ heading)
    result = SimulationResult(
        cycles_completed=int(np.floor(survived / period + 1e-9)),
        fell=fell,
        fall_time_s=fall_time,
        duration_s=sim_time,
        tracking_rmse_rad=float(np.sqrt(err_sq / err_n)) if err_n else 0.0,
        energy_j=energy,
        torso_sway_rad=float(np.sqrt(sway_sq / max(sway_n, 1))),
        distance_m=travel,
        self_collision_s=self_coll,
        sim_speed_x_realtime=sim_time / max(wall, 1e-9),
        pushes=push_list,
    )
    motion = None
    if record_every is not None and frames:
        motion = h.qpos_to_motion(np.array(frames), 1.0 / (record_every * dt))
    return result, motion
