"""FABRIK: forward and backward reaching on joint positions, then projected into the joint limits.

1. FABRIK iterations on the chain's joint positions (Aristidou & Lasenby 2011):
   the backward pass puts the end effector on the target and pulls each joint
   towards its child's new position at bone length; the forward pass re-anchors
   the base and pushes each joint out from its parent. A root with translations
   lets the base follow the backward pass (at most one step per iteration), so
   the body can follow a far target.
2. Projection: the points become joint rotations in one pass from the base.
   Each joint turns so that its bone points at the next FABRIK point; a BALL
   joint followed by a HINGE also turns about its bone so that the hinge's axis
   is normal to the plane of the next two bones, on the side where the hinge
   bends within its limits. Each rotation is clamped into the joint's limits.
3. Refinement: CCD sweeps (:class:`~vhuman.ik.CCD`) from the projected pose
   until the tolerance is met; they also handle an orientation target.

Iterations count FABRIK iterations and CCD sweeps; joint updates count every
moving joint once per FABRIK iteration (each is repositioned once in the
forward pass), once in the projection, and then as in CCD.

References
----------
A. Aristidou, J. Lasenby, "FABRIK: A fast, iterative solver for the Inverse
Kinematics problem", Graphical Models 73(5), 243-260, 2011.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from numpy.typing import ArrayLike

from vhuman.ik._loop import SolverOptions, check_solver_options, iterate
from vhuman.ik._ops import (
    Backend,
    Col,
    Quat,
    Vec,
    cross,
    dot,
    mat_from_quat,
    mat_rotate,
    mat_rotate_t,
    qaxis,
    qmul,
    qrotate,
)
from vhuman.ik._state import ChainState, chain_fk, initial_state, prepare, project_joint
from vhuman.ik._sweep import FK, Goal, ccd_sweep, sweep_order, translate_root, update_joint
from vhuman.ik.chain import Chain
from vhuman.ik.result import IKResult
from vhuman.ik.target import Target
from vhuman.skeleton import JointType

__all__ = ["FABRIK"]


def _backward(chain: Chain, points: list[Vec], t: Vec, xp: Backend) -> list[Vec]:
    """Backward reaching: the effector on ``t``, each joint pulled to its bone length."""
    out = list(points)
    out[-1] = t
    for i in range(len(points) - 2, -1, -1):
        out[i] = _towards(out[i + 1], points[i], chain.bone_lengths[i + 1], xp)
    return out


def _forward(chain: Chain, points: list[Vec], base: Vec, xp: Backend) -> list[Vec]:
    """Forward reaching: the base on ``base``, each joint pushed to its bone length."""
    out = list(points)
    out[0] = base
    for i in range(1, len(points)):
        out[i] = _towards(out[i - 1], points[i], chain.bone_lengths[i], xp)
    return out


def _towards(anchor: Vec, point: Vec, length: float, xp: Backend) -> Vec:
    """The point at ``length`` from ``anchor`` on the ray towards ``point``."""
    d = (point[0] - anchor[0], point[1] - anchor[1], point[2] - anchor[2])
    k = length / xp.maximum(xp.sqrt(dot(d, d)), 1e-12)
    return (anchor[0] + k * d[0], anchor[1] + k * d[1], anchor[2] + k * d[2])


def _unit(v: Vec, xp: Backend) -> Vec:
    k = 1.0 / xp.maximum(xp.sqrt(dot(v, v)), 1e-12)
    return (v[0] * k, v[1] * k, v[2] * k)


def _two_vector_rotation(a: Vec, b: Vec, a2: Vec, b2: Vec, xp: Backend) -> Quat:
    """Rotation taking unit ``a`` onto unit ``b``, then turning about ``b`` to bring ``a2``'s
    component normal to ``a`` onto ``b2``'s component normal to ``b`` (TRIAD)."""
    c = cross(a, b)
    s = xp.sqrt(dot(c, c))
    angle = xp.atan2(s, dot(a, b))
    k = xp.sin(0.5 * angle) / xp.maximum(s, 1e-300)
    swing = (xp.cos(0.5 * angle), c[0] * k, c[1] * k, c[2] * k)
    a2r = qrotate(swing, a2)
    u = _unit(_reject(a2r, b), xp)
    v = _unit(_reject(b2, b), xp)
    twist = qaxis(b, xp.atan2(dot(b, cross(u, v)), dot(u, v)), xp)
    return qmul(twist, swing)


def _reject(v: Vec, n: Vec) -> Vec:
    """Component of ``v`` normal to the unit ``n``."""
    k = dot(v, n)
    return (v[0] - k * n[0], v[1] - k * n[1], v[2] - k * n[2])


def _project(chain: Chain, st: ChainState, points: list[Vec], active: Col, xp: Backend) -> None:
    """Turn the chain joints, from the base, so that the pose follows the FABRIK points."""
    p = st.root if chain.specs[0].is_root else st.p0
    if chain.specs[0].is_root and chain.translations:
        p = translate_root(chain, st, p, points[0], active, xp)
    g_parent, m = st.g0, st.m0
    n = len(chain.specs)
    for i in range(n - 1):
        spec, child = chain.specs[i], chain.specs[i + 1]
        if spec.moving and chain.bone_lengths[i + 1] > 0.0:
            g = qmul(g_parent, st.q[i])
            mg = mat_from_quat(g)
            bone = _unit(mat_rotate(mg, child.offset), xp)
            goal_bone = _unit(_minus(points[i + 1], p), xp)
            if spec.kind is JointType.BALL and child.kind is JointType.HINGE and i + 2 < n:
                # Hinge axis normal to the next two bones, on the side it bends towards.
                axis = mat_rotate(mg, child.axis)
                bend = _minus(points[i + 2], points[i + 1])
                goal_axis = cross(goal_bone, bend)
                if child.upper[0] <= 0.0:
                    goal_axis = (-goal_axis[0], -goal_axis[1], -goal_axis[2])
                d = _two_vector_rotation(bone, goal_bone, axis, goal_axis, xp)
            else:
                e = (p[0] + bone[0], p[1] + bone[1], p[2] + bone[2])
                goal = Goal(
                    i + 1,
                    (p[0] + goal_bone[0], p[1] + goal_bone[1], p[2] + goal_bone[2]),
                    0.0,
                    math.inf,
                    use_orientation=False,
                )
                update_joint(
                    chain, i, st, p, m, e, None, goal, 0.0, math.inf, active, xp, translate=False
                )
                d = None
            if d is not None:
                d = tuple(
                    xp.where(active > 0.0, a, b)
                    for a, b in zip(d, (1.0, 0.0, 0.0, 0.0), strict=True)
                )
                q = st.q[i]
                st.q[i] = project_joint(spec, qmul((d[0], *mat_rotate_t(m, d[1:])), q), xp)
            st.updates = st.updates + active
        g_parent = qmul(g_parent, st.q[i])
        m = mat_from_quat(g_parent)
        off = mat_rotate(m, child.offset)
        p = (p[0] + off[0], p[1] + off[1], p[2] + off[2])


def _minus(a: Vec, b: Vec) -> Vec:
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@dataclass(frozen=True, kw_only=True)
class FABRIK(SolverOptions):
    """FABRIK on joint positions, projected into the joint limits and refined by CCD.

    Parameters
    ----------
    max_iterations : int
        CCD refinement sweeps after the FABRIK iterations.
    fabrik_iterations : int
        At most this many FABRIK iterations before the projection (fewer once the
        points reach the target within a tenth of the tolerance).
    tolerance : float
        Position tolerance [m].
    orientation_tolerance : float
        Orientation tolerance [rad] (for targets with an orientation).
    max_step : float
        Largest rotation [rad] of one CCD joint update (``inf``: none).
    restarts, seed
        Random restarts of the CCD phase, as for :class:`~vhuman.ik.CCD`.
    """

    fabrik_iterations: int = 20

    def __post_init__(self) -> None:
        super().__post_init__()
        check_solver_options(self.fabrik_iterations, self.tolerance, self.orientation_tolerance)

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
        end = len(chain.specs) - 1
        n_moving = sum(1 for sp in chain.specs[:-1] if sp.moving)
        points = chain_fk(chain, st)[0]
        base = points[0]
        active = st.alive
        for _ in range(min(self.fabrik_iterations, self.max_iterations)):
            err = _minus(st.t, points[-1])
            active = xp.where(dot(err, err) > (0.1 * self.tolerance) ** 2, active, 0.0)
            if not xp.any(active > 0.0):
                break
            reached = _backward(chain, points, st.t, xp)
            if chain.specs[0].is_root and chain.translations and chain.root is not None:
                # The base follows the backward pass along the root's translation axes only.
                wish = _minus(reached[0], base)
                step = [0.0, 0.0, 0.0]
                for axis, _, _ in chain.translations:
                    along = dot(axis, wish)
                    step = [step[c] + along * axis[c] for c in range(3)]
                norm = xp.sqrt(step[0] * step[0] + step[1] * step[1] + step[2] * step[2])
                k = xp.clip(chain.root.max_step / xp.maximum(norm, 1e-12), 0.0, 1.0) * active
                base = (base[0] + k * step[0], base[1] + k * step[1], base[2] + k * step[2])
            moved = _forward(chain, reached, base, xp)
            points = [
                tuple(xp.where(active > 0.0, a, b) for a, b in zip(pm, po, strict=True))
                for pm, po in zip(moved, points, strict=True)
            ]
            st.iters = st.iters + active
            st.updates = st.updates + n_moving * active
        _project(chain, st, points, st.alive, xp)
        order = sweep_order(chain, 0, end, orientation=orient)
        w2 = problem.orientation_weight**2

        def step(st: ChainState, fk: FK) -> None:
            goal = Goal(end, st.t, self.tolerance, self.orientation_tolerance, orient)
            ccd_sweep(chain, st, fk, goal, order, w2=w2, max_step=self.max_step, xp=xp)

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
