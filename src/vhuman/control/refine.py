"""Space-time refinement of the initial controller's keyframe targets (patent CN108805965B, step 1).

The initial controller's targets are the clip's keyframes; PD servos lag
behind moving targets (the walk's arms swing ~0.4 rad at ~1.3 Hz and the
servos, damped at ``kd = kp / 10``, trail them by ~40°) and sag under gravity,
so the simulated character does not follow the clip with the clip's own
angles as targets. The refinement adds per-hinge offsets to the keyframe
targets, found by Levenberg–Marquardt (a Gauss–Newton least-squares fit with
finite-difference Jacobians) so that the simulated hinges follow the clip as
far as they can:

- the offsets are a low-dimensional function of the cycle phase ``φ``: per
  refined hinge ``δ(φ) = a₀ + Σₘ aₘ cos 2πmφ + bₘ sin 2πmφ`` (``m = 1 …``
  ``harmonics``), evaluated at the keyframe phases ``k / K``;
- the objective is the RMS difference between the simulated hinge angles and
  the clip's at the same instant over ``cycles`` cycles played at the
  controller's period, the root *held*: the root body is made kinematic
  (MuJoCo mocap) and follows the clip's root orientation and position, and
  ground contact is off, so balance plays no part (the feedback unit of the
  evolution deals with it) and the simulation starts from the clip's state at
  phase 0;
- by default, only the hinges the keyframes drive are refined: for a walking
  controller (with ``gait``) the trunk, neck and arms (its legs follow the
  SIMBICON state machine); for a tracking controller every hinge (its legs
  are then refined unloaded, as the root carries the body).

The held-root error is nearly linear in the offsets (linear servos; the
coupling between segments is weak), so Gauss–Newton steps converge in two
iterations where CMA-ES crawls: on the walk's 14 upper-body hinges (126
coefficients) the error goes from 0.100 rad to 0.022 rad in 255 simulations
(2 s on one core); CMA-ES reaches 0.067 rad in 289 and 0.028 rad in 2989
(``python benchmarks/physics.py --skip-speed --skip-ablation --refine``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from functools import cache

import mujoco
import numpy as np
from numpy.typing import NDArray

from vhuman.control.controller import Controller, clip_motion, humanoid_for
from vhuman.control.simulation import CONTROL_SUBSTEPS
from vhuman.errors import InputError

__all__ = [
    "REFINE_BUDGET",
    "REFINE_CYCLES",
    "REFINE_HARMONICS",
    "OffsetProblem",
    "held_tracking_rmse",
    "keyframe_hinges",
    "offset_problem",
    "refine_keyframes",
]

REFINE_HARMONICS = 4
"""Harmonics of the per-hinge offset series (``1 + 2 · harmonics`` coefficients a hinge)."""
REFINE_CYCLES = 2.0
"""Cycles simulated per evaluation of the refinement."""
REFINE_BUDGET = 300
"""Default simulations of the refinement (two iterations at the default harmonics)."""
_FD_STEP = 0.01  # rad: forward-difference step of the Jacobian
_DAMPING = 1e-3  # initial Levenberg–Marquardt damping (relative to the Jacobian's diagonal)
_COEFF_BOUND = 1.0  # rad: each coefficient stays within ± this
_LEG_FRAGMENTS = ("hip", "knee", "ankle", "toe")


def keyframe_hinges(ctrl: Controller) -> tuple[int, ...]:
    """Indices of the hinges ``ctrl``'s keyframes drive: all but the legs' for a walking
    controller, all for a tracking one."""
    names = ctrl.humanoid.hinge_names
    if ctrl.gait is None:
        return tuple(range(len(names)))
    return tuple(i for i, n in enumerate(names) if not any(f in n for f in _LEG_FRAGMENTS))


@cache
def _held_model(skeleton: str) -> mujoco.MjModel:
    """The humanoid with its root body kinematic (mocap, no free joint) and contacts off; its
    ``qpos`` and ``qvel`` are the hinges, in actuator order."""
    h = humanoid_for(skeleton)
    spec = mujoco.MjSpec.from_string(h.xml)
    root = h.skeleton.names[0]
    spec.delete(spec.joint(root))
    spec.body(root).mocap = True
    spec.option.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONTACT
    return spec.compile()


@dataclass(frozen=True)
class _Reference:
    """The clip sampled at the control steps of a held-root run.

    ``hinges[k]`` is the clip's pose at the end of control step k (time
    ``(k + 1) · dt``), ``root_pos[k]`` / ``root_quat[k]`` the root at its start.
    """

    hinges: NDArray[np.float64]  # (n, H)
    root_pos: NDArray[np.float64]  # (n, 3)
    root_quat: NDArray[np.float64]  # (n, 4)
    start_qpos: NDArray[np.float64]  # (H,)
    start_qvel: NDArray[np.float64]  # (H,)
    phase: NDArray[np.float64]  # (n,) phase at the start of each control step


def _sample(frames: NDArray[np.float64], phase: NDArray[np.float64]) -> NDArray[np.float64]:
    """Linear interpolation of a cycle of ``n + 1`` frames ``(n + 1, D)`` at phases ``(m,)``."""
    n = len(frames) - 1
    pos = np.remainder(phase, 1.0) * n
    i0 = np.minimum(pos.astype(int), n - 1)
    frac = (pos - i0)[:, None]
    return (1.0 - frac) * frames[i0] + frac * frames[i0 + 1]


@cache
def _reference(clip: str, skeleton: str, period: float, cycles: float) -> _Reference:
    h = humanoid_for(skeleton)
    qpos = h.motion_to_qpos(clip_motion(clip))
    hinges = np.unwrap(qpos[:, 7:], axis=0)
    quats = qpos[:, 3:7].copy()
    for i in range(1, len(quats)):  # one hemisphere, so the interpolation takes the short way
        if quats[i] @ quats[i - 1] < 0.0:
            quats[i] = -quats[i]
    dt = h.model.opt.timestep * CONTROL_SUBSTEPS
    n = max(1, math.ceil(cycles * period / dt - 1e-6))
    start = np.arange(n) * dt / period
    root_quat = _sample(quats, start)  # the root jumps back each cycle: harmless, no contacts
    root_quat /= np.linalg.norm(root_quat, axis=1, keepdims=True)
    n_frames = len(hinges) - 1
    return _Reference(
        hinges=_sample(hinges, start + dt / period),
        root_pos=_sample(qpos[:, 0:3], start),
        root_quat=root_quat,
        start_qpos=hinges[0].copy(),
        start_qvel=(hinges[1] - hinges[0]) * n_frames / period,
        phase=start,
    )


def _fourier(phase: NDArray[np.float64], harmonics: int) -> NDArray[np.float64]:
    """Basis ``(len(phase), 1 + 2 · harmonics)``: 1, cos 2πmφ, sin 2πmφ."""
    cols = [np.ones_like(phase)]
    for m in range(1, harmonics + 1):
        cols += [np.cos(2 * np.pi * m * phase), np.sin(2 * np.pi * m * phase)]
    return np.stack(cols, axis=1)


def _playback(k: int, phase: NDArray[np.float64]) -> NDArray[np.float64]:
    """Weights ``(len(phase), K)`` of the controller's cyclic linear keyframe interpolation."""
    x = np.remainder(phase, 1.0) * k
    k0 = x.astype(int) % k
    frac = x - np.floor(x)
    w = np.zeros((len(phase), k))
    rows = np.arange(len(phase))
    w[rows, k0] += 1.0 - frac
    w[rows, (k0 + 1) % k] += frac
    return w


def _held_errors(
    model: mujoco.MjModel, ref: _Reference, controls: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Per control step and hinge, simulated minus clip angle [rad] ``(n, H)`` of a held-root
    run driven by the PD targets ``controls (n, H)``."""
    data = mujoco.MjData(model)
    data.qpos[:] = ref.start_qpos
    data.qvel[:] = ref.start_qvel
    mocap_pos, mocap_quat = data.mocap_pos[0], data.mocap_quat[0]
    ctrl_in, qpos = data.ctrl, data.qpos
    log = np.empty_like(controls)
    for i in range(len(controls)):
        ctrl_in[:] = controls[i]
        mocap_pos[:] = ref.root_pos[i]
        mocap_quat[:] = ref.root_quat[i]
        mujoco.mj_step(model, data, nstep=CONTROL_SUBSTEPS)
        log[i] = qpos
    diff = np.remainder(log - ref.hinges + np.pi, 2 * np.pi) - np.pi
    return np.where(np.isfinite(diff), diff, np.pi)


def _check_clip(ctrl: Controller) -> None:
    if not ctrl.clip:
        raise InputError("refining keyframes needs a controller made from a clip")


def held_tracking_rmse(
    ctrl: Controller, hinges: tuple[int, ...] | None = None, cycles: float = REFINE_CYCLES
) -> float:
    """RMS difference [rad] of ``hinges`` (default :func:`keyframe_hinges`) from ``ctrl``'s
    clip over ``cycles`` cycles of its keyframe targets played with the root held (see the
    module notes).

    Raises
    ------
    InputError
        If the controller has no clip or ``cycles`` is not > 0.
    """
    problem = offset_problem(ctrl, hinges, harmonics=0, cycles=cycles)
    return float(np.linalg.norm(problem.residuals(np.zeros(problem.n_coefficients))))


@dataclass(frozen=True)
class OffsetProblem:
    """The refinement's least-squares problem: offset coefficients → held-root errors.

    Attributes
    ----------
    hinges : tuple of int
        Refined hinges (indices in actuator order).
    basis : ndarray, shape (K, C)
        Fourier basis at the K keyframe phases (C = 1 + 2 · harmonics).
    """

    hinges: tuple[int, ...]
    basis: NDArray[np.float64]
    _base: NDArray[np.float64]  # (n, H) keyframe targets played at the control steps
    _play_basis: NDArray[np.float64]  # (n, C)
    _model: mujoco.MjModel
    _ref: _Reference

    @property
    def n_coefficients(self) -> int:
        """Unknowns: ``C · len(hinges)``."""
        return self.basis.shape[1] * len(self.hinges)

    def offsets(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Keyframe target offsets ``(K, len(hinges))`` [rad] of coefficients ``x``."""
        return self.basis @ x.reshape(self.basis.shape[1], len(self.hinges))

    def residuals(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Per-step, per-hinge errors [rad] of a held-root run, scaled so that their norm is
        the RMSE; one simulation."""
        controls = self._base.copy()
        controls[:, list(self.hinges)] += self._play_basis @ x.reshape(
            self.basis.shape[1], len(self.hinges)
        )
        err = _held_errors(self._model, self._ref, controls)[:, list(self.hinges)].ravel()
        return err / np.sqrt(err.size)


def offset_problem(
    ctrl: Controller,
    hinges: tuple[int, ...] | None = None,
    harmonics: int = REFINE_HARMONICS,
    cycles: float = REFINE_CYCLES,
) -> OffsetProblem:
    """The refinement problem of ``ctrl`` (arguments as :func:`refine_keyframes`).

    Raises
    ------
    InputError
        For a controller without a clip, or bad harmonics, cycles or hinge indices.
    """
    _check_clip(ctrl)
    if int(harmonics) != harmonics or harmonics < 0:
        raise InputError(f"harmonics must be a non-negative integer, got {harmonics}")
    if not (np.isfinite(cycles) and cycles > 0):
        raise InputError(f"cycles must be > 0, got {cycles}")
    names = ctrl.humanoid.hinge_names
    sel = tuple(keyframe_hinges(ctrl) if hinges is None else hinges)
    if not sel or any(not 0 <= i < len(names) for i in sel):
        raise InputError(
            f"hinges to refine must be indices in 0 … {len(names) - 1}, got {list(sel)}"
        )
    k = len(ctrl.targets)
    basis = _fourier(np.arange(k) / k, int(harmonics))  # (K, C)
    ref = _reference(ctrl.clip, ctrl.skeleton, ctrl.period, float(cycles))
    play = _playback(k, ref.phase)  # (n, K)
    return OffsetProblem(
        hinges=sel,
        basis=basis,
        _base=play @ ctrl.targets,
        _play_basis=play @ basis,
        _model=_held_model(ctrl.skeleton),
        _ref=ref,
    )


def refine_keyframes(
    ctrl: Controller,
    budget: int = REFINE_BUDGET,
    *,
    hinges: tuple[int, ...] | None = None,
    harmonics: int = REFINE_HARMONICS,
    cycles: float = REFINE_CYCLES,
) -> Controller:
    """``ctrl`` with keyframe targets refined so the held-root simulation follows its clip.

    Levenberg–Marquardt on the offset coefficients of ``hinges`` (default
    :func:`keyframe_hinges`), from zero offsets: each iteration takes a
    forward-difference Jacobian of the per-step, per-hinge angle errors (one
    simulation per coefficient) and tries damped Gauss–Newton steps until one
    lowers the error; it stops when the next iteration would exceed ``budget``
    simulations or a step gains under 0.1 %. Deterministic: the same input
    gives the same result. The result's ``meta["refined"]`` records the run:
    simulations, harmonics, cycles, refined hinge names and the held-root
    tracking RMSE [rad] of those hinges before and after.

    Parameters
    ----------
    ctrl : Controller
        A controller made from a clip (e.g. :func:`initial_controller`).
    budget : int
        Simulations at most; at least ``coefficients + 2`` (one iteration),
        with ``coefficients = (1 + 2 · harmonics) · len(hinges)``.
    hinges : tuple of int, optional
        Hinge indices to refine.
    harmonics : int
        Harmonics of each hinge's offset series (>= 0; 0: constant offsets).
    cycles : float
        Cycles simulated per evaluation (> 0).

    Raises
    ------
    InputError
        For a controller without a clip, or a bad budget, harmonics, cycles or hinge index.
    """
    problem = offset_problem(ctrl, hinges, harmonics, cycles)
    n_coef = problem.n_coefficients
    if int(budget) != budget or budget < n_coef + 2:
        raise InputError(
            f"refinement budget must be an integer >= {n_coef + 2} (one Jacobian of "
            f"{n_coef} coefficients and a step), got {budget}"
        )
    residuals = problem.residuals

    x = np.zeros(n_coef)
    r = residuals(x)
    before = cost = float(np.linalg.norm(r))
    used, damping = 1, _DAMPING
    while used + n_coef + 1 <= budget:
        jac = np.empty((r.size, n_coef))
        for j in range(n_coef):
            xp = x.copy()
            xp[j] += _FD_STEP
            jac[:, j] = (residuals(xp) - r) / _FD_STEP
        used += n_coef
        jtj, jtr = jac.T @ jac, jac.T @ r
        scale = np.diag(jtj) + 1e-12
        gain = 0.0
        while used < budget:
            step = np.linalg.solve(jtj + damping * np.diag(scale), -jtr)
            trial = np.clip(x + step, -_COEFF_BOUND, _COEFF_BOUND)
            r_trial = residuals(trial)
            used += 1
            c_trial = float(np.linalg.norm(r_trial))
            if c_trial < cost:
                gain = (cost - c_trial) / cost
                x, r, cost = trial, r_trial, c_trial
                damping = max(damping / 10.0, 1e-9)
                break
            damping *= 10.0
        if gain < 1e-3:
            break
    targets = ctrl.targets.copy()
    targets[:, list(problem.hinges)] += problem.offsets(x)
    names = ctrl.humanoid.hinge_names
    meta = dict(ctrl.meta)
    meta["refined"] = {
        "budget": int(budget),
        "simulations": used,
        "harmonics": int(harmonics),
        "cycles": float(cycles),
        "hinges": [names[i] for i in problem.hinges],
        "held_rmse_before_rad": before,
        "held_rmse_after_rad": cost,
    }
    return replace(ctrl, targets=targets, meta=meta)
