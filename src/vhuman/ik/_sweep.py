"""One CCD pass over a chain: the joint updates shared by all the iterative solvers.

A joint update turns one joint (and, for the root, steps it) so that the end
effector (or another chain joint acting as effector) moves as close as possible
to a goal point, optionally also turning the effector's frame towards a target
frame; the rotation is capped at ``max_step`` and clamped into the joint's limits.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vhuman.ik._ops import (
    Backend,
    Col,
    Mat,
    Quat,
    Vec,
    cross,
    dot,
    mat_rotate,
    mat_rotate_t,
    qaxis,
    qconj,
    qmul,
    qrotate,
)
from vhuman.ik._state import ChainState, project_joint
from vhuman.ik.chain import Chain
from vhuman.skeleton import JointType

__all__ = ["FK", "Goal", "ccd_sweep", "sweep_order", "translate_root", "update_joint"]

FK = tuple[list[Vec], list[Quat], list[Mat]]
"""Chain joint positions, world rotations and parent rotation matrices (see ``chain_fk``)."""


@dataclass
class Goal:
    """What a sweep drives: the chain position of the effector, its goal point and tolerance."""

    effector: int
    point: Vec
    tolerance: float
    orientation_tolerance: float
    use_orientation: bool


def _steer(u: Vec, v: Vec, axis: Vec, err: Quat | None, w2: float) -> tuple[Col, Col]:
    """``(s, c)``: turning by Δ about the world ``axis`` gains ``c cos Δ + s sin Δ``.

    The gain is ``v · R u`` (effector at ``u`` from the joint, goal at ``v``) plus
    ``w2 · tr(Eᵀ R)`` for the frame error rotation ``err = (w, e)``, whose
    coefficients are ``2(w² − (a·e)²)`` and ``4 w (a·e)``: alone its optimum
    is the twist of the error about the axis. The best free angle is ``atan2(s, c)``.
    """
    au, av = dot(axis, u), dot(axis, v)
    s = dot(axis, cross(u, v))
    c = dot(u, v) - au * av
    if err is not None:
        ae = dot(axis, err[1:])
        s = s + w2 * 4.0 * err[0] * ae
        c = c + w2 * 2.0 * (err[0] * err[0] - ae * ae)
    return s, c


def _best_angle(
    theta: Col, s: Col, c: Col, lo: float, hi: float, max_step: float, active: Col, xp: Backend
) -> Col:
    """New angle in [lo, hi] maximising ``c cos(Δ) + s sin(Δ)`` of the change Δ from ``theta``.

    The free optimum is ``atan2(s, c)``; inside an interval the best point is that
    optimum clipped, reached either way round the circle (ranges wider than π can
    make the way round through the far bound the better one).
    """
    step = xp.atan2(s, c)
    near = xp.clip(theta + xp.clip(step, -max_step, max_step) * active, lo, hi)
    if max_step < math.pi or hi - lo <= math.pi:
        return near
    far = xp.clip(theta + (step - 2.0 * math.pi * xp.sign(step)) * active, lo, hi)
    dn, df = near - theta, far - theta
    better = c * xp.cos(df) + s * xp.sin(df) > c * xp.cos(dn) + s * xp.sin(dn)
    return xp.where(better, far, near)


def _ball_delta(u: Vec, v: Vec, max_step: float, active: Col, xp: Backend) -> Quat:
    """World rotation taking direction ``u`` onto ``v`` (angle capped at ``max_step``)."""
    c = cross(u, v)
    s = xp.sqrt(dot(c, c))
    angle = xp.clip(xp.atan2(s, dot(u, v)), 0.0, max_step) * active
    h = 0.5 * angle
    k = xp.sin(h) / xp.maximum(s, 1e-300)
    return (xp.cos(h), c[0] * k, c[1] * k, c[2] * k)


def _ball_delta_frame(
    u: Vec, v: Vec, err: Quat, m: Mat, w2: float, max_step: float, active: Col, xp: Backend
) -> Quat:
    """World rotation for a BALL joint with an orientation goal: one best step per parent axis."""
    total: Quat = (1.0, 0.0, 0.0, 0.0)
    for k in range(3):
        axis = (m[k], m[3 + k], m[6 + k])
        s, c = _steer(u, v, axis, err, w2)
        angle = xp.clip(xp.atan2(s, c), -max_step, max_step) * active
        r = qaxis(axis, angle, xp)
        u = qrotate(r, u)
        err = qmul(err, qconj(r))
        total = qmul(r, total)
    return total


def update_joint(
    chain: Chain,
    i: int,
    st: ChainState,
    p: Vec,
    m: Mat,
    e: Vec,
    ge: Quat | None,
    goal: Goal,
    w2: float,
    max_step: float,
    active: Col,
    xp: Backend,
    *,
    translate: bool = True,
) -> tuple[Vec, Quat | None]:
    """Update chain joint ``i`` (at ``p``, parent rotation matrix ``m``) in place.

    The root also translates (with ``translate``) after turning. Returns the
    moved effector position and (if tracked) world rotation.
    """
    spec = chain.specs[i]
    u = (e[0] - p[0], e[1] - p[1], e[2] - p[2])
    t = goal.point
    v = (t[0] - p[0], t[1] - p[1], t[2] - p[2])
    err = None
    if goal.use_orientation and st.tq is not None and ge is not None:
        err = qmul(st.tq, qconj(ge))
    r_world: Quat = (1.0, 0.0, 0.0, 0.0)
    if spec.kind is JointType.HINGE:
        axis = mat_rotate(m, spec.axis)
        theta = st.theta[i]
        s, c = _steer(u, v, axis, err, w2)
        new = _best_angle(theta, s, c, spec.lower[0], spec.upper[0], max_step, active, xp)
        st.theta[i] = new
        qn = qaxis(spec.axis, new, xp)
        st.q[i] = qmul(qn, st.q0) if spec.is_root else qn
        r_world = qaxis(axis, new - theta, xp)
    elif spec.kind is JointType.BALL:
        q = st.q[i]
        if err is None:
            d = _ball_delta(u, v, max_step, active, xp)
        else:
            d = _ball_delta_frame(u, v, err, m, w2, max_step, active, xp)
        qn = project_joint(spec, qmul((d[0], *mat_rotate_t(m, d[1:])), q), xp)
        st.q[i] = qn
        r = qmul(qn, qconj(q))
        r_world = (r[0], *mat_rotate(m, r[1:]))
    du = qrotate(r_world, u)
    e = (p[0] + du[0], p[1] + du[1], p[2] + du[2])
    if ge is not None:
        ge = qmul(r_world, ge)
    if translate and spec.is_root and chain.translations:
        e = translate_root(chain, st, e, t, active, xp)
    return e, ge


def translate_root(chain: Chain, st: ChainState, e: Vec, t: Vec, active: Col, xp: Backend) -> Vec:
    """Move the root along its translation axes by the effector's remaining error.

    The displacement is shortened to the root's ``max_step`` and each coordinate
    kept within its limits.
    """
    r = (t[0] - e[0], t[1] - e[1], t[2] - e[2])
    moves = [dot(axis, r) * active for axis, _, _ in chain.translations]
    limit = chain.root.max_step if chain.root is not None else math.inf
    if limit < math.inf:
        norm = xp.sqrt(sum(m * m for m in moves))
        scale = limit / xp.maximum(norm, limit)
        moves = [m * scale for m in moves]
    for k, (axis, lo, hi) in enumerate(chain.translations):
        new = xp.clip(st.s[k] + moves[k], lo, hi)
        d = new - st.s[k]
        st.s[k] = new
        st.root = (st.root[0] + d * axis[0], st.root[1] + d * axis[1], st.root[2] + d * axis[2])
        e = (e[0] + d * axis[0], e[1] + d * axis[1], e[2] + d * axis[2])
    return e


def sweep_order(chain: Chain, first: int, last: int, *, orientation: bool) -> tuple[int, ...]:
    """Chain positions a CCD sweep visits, from ``last`` back to ``first``, skipping fixed joints.

    The end joint turns only the effector's frame, so it is visited only for an
    orientation goal; the root is visited when it can rotate or translate.
    """
    end = len(chain.specs) - 1
    order = []
    for i in range(last, first - 1, -1):
        spec = chain.specs[i]
        if i == end and not orientation:
            continue
        if spec.moving or (spec.is_root and chain.translations):
            order.append(i)
    return tuple(order)


def ccd_sweep(
    chain: Chain,
    st: ChainState,
    fk: FK,
    goal: Goal,
    order: tuple[int, ...],
    *,
    w2: float,
    max_step: float,
    xp: Backend,
    active: Col | None = None,
) -> Vec:
    """One CCD pass over the chain positions ``order``, updating ``st`` in place.

    ``fk`` is :func:`chain_fk` of ``st`` at the start of the pass: a joint's own
    position and parent frame do not change while the joints below it turn, so
    each update costs O(1). A target stops being updated as soon as it is within
    the goal's tolerances (its updates are not counted after that). ``active``
    (1.0 or 0.0 per target, default ``st.alive``) selects the targets to update.
    Returns the effector's final position.
    """
    positions, rotations, mats = fk
    e = positions[goal.effector]
    ge = rotations[goal.effector] if goal.use_orientation else None
    if active is None:
        active = st.alive
    tol, otol = goal.tolerance, goal.orientation_tolerance
    t = goal.point
    for i in order:
        e, ge = update_joint(
            chain, i, st, positions[i], mats[i], e, ge, goal, w2, max_step, active, xp
        )
        st.updates = st.updates + active
        dx, dy, dz = t[0] - e[0], t[1] - e[1], t[2] - e[2]
        done = dx * dx + dy * dy + dz * dz <= tol * tol
        if ge is not None and st.tq is not None:
            err = qmul(st.tq, qconj(ge))
            done = done & (2.0 * xp.atan2(xp.sqrt(dot(err[1:], err[1:])), xp.abs(err[0])) <= otol)
        if not xp.batched:
            if done:
                return e
        else:
            active = np.where(done, 0.0, active)
    return e
