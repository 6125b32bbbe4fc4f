"""Damped least squares (Levenberg-Marquardt) IK on the chain's Jacobian, with joint limits.

Each iteration solves ``Δq = Jᵀ (J Jᵀ + λ² I)⁻¹ e`` for the chain's degrees of
freedom, with ``e`` the effector's position error (and orientation error scaled
by ``Target.orientation_weight``) shortened to ``max_error`` (Buss & Kim's error
clamping), applies each joint's step (rotations capped at ``max_step``) and
clamps the joint into its limits. Vectorised over the batch with numpy: a single
target is a batch of one.

References
----------
C. W. Wampler, "Manipulator inverse kinematic solutions based on vector
formulations and damped least-squares methods", IEEE Trans. SMC 16(1), 1986.
Y. Nakamura, H. Hanafusa, "Inverse kinematic solutions with singularity
robustness for robot manipulator control", J. Dyn. Syst. Meas. Control 108, 1986.
S. R. Buss, "Introduction to inverse kinematics with Jacobian transpose,
pseudoinverse and damped least squares methods", UCSD, 2004; S. R. Buss, J.-S.
Kim, "Selectively damped least squares for inverse kinematics", J. Graphics
Tools 10(3), 2005 (error clamping).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.ik._loop import SolverOptions, iterate
from vhuman.ik._ops import Backend, Col, Vec, cross, mat_rotate, qaxis, qconj, qmul
from vhuman.ik._state import ChainState, chain_fk, initial_state, prepare, project_joint
from vhuman.ik._sweep import FK, sweep_order
from vhuman.ik.chain import Chain
from vhuman.ik.result import IKResult
from vhuman.ik.target import Target
from vhuman.skeleton import JointType

__all__ = ["DLS", "jacobian"]


def _columns(chain: Chain, fk: FK) -> list[tuple[int, Vec, Vec | None]]:
    """Each DOF as (chain position, world axis, pivot): rotation about the axis through the
    pivot, or (pivot None) translation along the axis. Order: root translations, then
    each joint from start to end (BALL: parent-frame x, y, z; HINGE: its axis)."""
    positions, _, mats = fk
    cols: list[tuple[int, Vec, Vec | None]] = [(0, axis, None) for axis, _, _ in chain.translations]
    for i, spec in enumerate(chain.specs):
        m, p = mats[i], positions[i]
        if spec.kind is JointType.BALL:
            cols += [(i, (m[k], m[3 + k], m[6 + k]), p) for k in range(3)]
        elif spec.kind is JointType.HINGE:
            cols.append((i, mat_rotate(m, spec.axis), p))
    return cols


def _jacobian_array(chain: Chain, fk: FK, weight: float, n: int) -> NDArray[np.float64]:
    """Jacobian ``(B, 6, n_dofs)``: effector velocity (rows 0-2, m) and angular velocity
    times ``weight`` (rows 3-5) per unit DOF rate."""
    e = fk[0][-1]
    comps: list[Col] = []
    for _, axis, pivot in _columns(chain, fk):
        if pivot is None:
            comps += [*axis, 0.0, 0.0, 0.0]
        else:
            r = (e[0] - pivot[0], e[1] - pivot[1], e[2] - pivot[2])
            comps += [*cross(axis, r), weight * axis[0], weight * axis[1], weight * axis[2]]
    return _rows(comps, n).reshape(n, -1, 6).transpose(0, 2, 1)


def jacobian(
    chain: Chain,
    local_rotations: ArrayLike | None = None,
    root_position: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """Analytic Jacobian of the end effector with respect to the chain's DOFs.

    Parameters
    ----------
    chain : Chain
    local_rotations : array_like, shape (..., J, 4), optional
        Pose (default: rest); the chain joints are first clamped into their limits.
    root_position : array_like, shape (..., 3), optional
        Root position [m].

    Returns
    -------
    ndarray, shape (..., 6, chain.n_dofs)
        Rows 0-2: effector velocity [m] per unit DOF rate; rows 3-5: its angular
        velocity [rad]. Columns: the root's translations (along their world
        axes), then each joint from the chain's start: BALL joints as three
        rotations about their parent frame's x, y and z axes, HINGE joints about
        their axis (a root HINGE about its world axis). A rotation DOF turns the
        joint's local rotation as ``L ← R(axis, δ) ⊗ L`` in the parent frame.
    """
    problem = prepare(chain, np.zeros(3), local_rotations, root_position, batched=True)
    st = initial_state(problem)
    jac = _jacobian_array(chain, chain_fk(chain, st), 1.0, problem.size)
    return jac.reshape(*problem.batch_shape, 6, jac.shape[-1])


@dataclass(frozen=True, kw_only=True)
class DLS(SolverOptions):
    """Damped least squares IK with error clamping and joint limits.

    Parameters
    ----------
    damping : float
        λ [m]: larger is more robust near singularities, smaller converges faster.
    max_error : float
        Longest error vector [m] one step aims to remove (Buss & Kim clamping).
    max_step : float
        Largest rotation [rad] of one joint in one step.
    max_iterations : int
        Jacobian steps.
    tolerance : float
        Position tolerance [m].
    orientation_tolerance : float
        Orientation tolerance [rad] (for targets with an orientation).
    restarts, seed
        Random restarts on a stall, as for :class:`~vhuman.ik.CCD`.

    Raises
    ------
    InputError
        For option values out of range.
    """

    damping: float = 0.05
    max_error: float = 0.2
    max_step: float = 0.5

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("damping", "max_error"):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0.0):
                raise InputError(f"{name} must be a finite length > 0 m, got {value}")

    def solve(
        self,
        chain: Chain,
        target: Target | ArrayLike,
        local_rotations: ArrayLike | None = None,
        root_position: ArrayLike | None = None,
        *,
        batched: bool | None = None,
    ) -> IKResult:
        """Solve for one target or a batch (arguments and result as :meth:`CCD.solve`)."""
        problem = prepare(chain, target, local_rotations, root_position, batched=batched)
        xp = problem.xp
        st = initial_state(problem)
        orient = problem.target_orientation is not None
        weight = problem.orientation_weight
        rows = slice(0, 6) if orient else slice(0, 3)
        lam2 = self.damping**2
        # One update per joint that moves the effector (or its frame), as counted by CCD.
        n_moving = len(sweep_order(chain, 0, len(chain.specs) - 1, orientation=orient))

        def step(st: ChainState, fk: FK) -> None:
            n = st.size
            jac = _jacobian_array(chain, fk, weight, n)[:, rows]
            e, ge = fk[0][-1], fk[1][-1]
            err = _rows([st.t[k] - e[k] for k in range(3)], n)
            err *= np.minimum(
                1.0, self.max_error / np.maximum(np.linalg.norm(err, axis=-1), 1e-12)
            )[:, None]
            if orient:
                eq = _rows(list(qmul(st.tq, qconj(ge))), n)
                eq *= np.where(eq[:, :1] < 0.0, -1.0, 1.0)
                s = np.linalg.norm(eq[:, 1:], axis=-1)
                angle = 2.0 * np.arctan2(s, eq[:, 0])
                rotvec = eq[:, 1:] * (weight * angle / np.maximum(s, 1e-12))[:, None]
                rotvec *= np.minimum(
                    1.0, self.max_error / np.maximum(np.linalg.norm(rotvec, axis=-1), 1e-12)
                )[:, None]
                err = np.concatenate([err, rotvec], axis=-1)
            gram = jac @ jac.transpose(0, 2, 1) + lam2 * np.eye(jac.shape[1])
            delta = (jac.transpose(0, 2, 1) @ np.linalg.solve(gram, err[..., None]))[..., 0]
            cols = [problem.column(delta[:, c]) * st.alive for c in range(delta.shape[1])]
            _apply(chain, st, cols, self.max_step, xp)
            st.updates = st.updates + n_moving * st.alive

        return iterate(
            problem,
            st,
            step,
            max_iterations=self.max_iterations,
            tolerance=self.tolerance,
            orientation_tolerance=self.orientation_tolerance,
            restarts=self.restarts,
            seed=self.seed,
        )


def _rows(components: list[Col], n: int) -> NDArray[np.float64]:
    """Components (floats or (B,) arrays) as an array ``(n, k)``."""
    out = np.empty((n, len(components)))
    for k, c in enumerate(components):
        out[:, k] = c
    return out


def _apply(chain: Chain, st: ChainState, delta: list[Col], max_step: float, xp: Backend) -> None:
    """Apply one DLS step (one entry per DOF) to the state, clamping into the limits."""
    c = len(chain.translations)
    if c:
        moves = delta[:c]
        if chain.root is not None and chain.root.max_step < math.inf:
            norm = xp.sqrt(sum(m * m for m in moves))
            scale = chain.root.max_step / xp.maximum(norm, chain.root.max_step)
            moves = [m * scale for m in moves]
        for k, (axis, lo, hi) in enumerate(chain.translations):
            new = xp.clip(st.s[k] + moves[k], lo, hi)
            d = new - st.s[k]
            st.s[k] = new
            st.root = (st.root[0] + d * axis[0], st.root[1] + d * axis[1], st.root[2] + d * axis[2])
    for i, spec in enumerate(chain.specs):
        if spec.kind is JointType.HINGE:
            step = xp.clip(delta[c], -max_step, max_step)
            new = xp.clip(st.theta[i] + step, spec.lower[0], spec.upper[0])
            st.theta[i] = new
            qn = qaxis(spec.axis, new, xp)
            st.q[i] = qmul(qn, st.q0) if spec.is_root else qn
            c += 1
        elif spec.kind is JointType.BALL:
            # Rates about the parent frame's axes: a rotation vector in the parent frame.
            rx, ry, rz = delta[c], delta[c + 1], delta[c + 2]
            angle = xp.sqrt(rx * rx + ry * ry + rz * rz)
            shorter = xp.clip(max_step / xp.maximum(angle, 1e-12), 0.0, 1.0)
            k = xp.sin(0.5 * angle * shorter) * shorter / xp.maximum(angle * shorter, 1e-12)
            d = (xp.cos(0.5 * angle * shorter), rx * k, ry * k, rz * k)
            st.q[i] = project_joint(spec, qmul(d, st.q[i]), xp)
            c += 3
