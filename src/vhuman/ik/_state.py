"""The state of a batch of IK solves on one chain, and the work every solver shares.

`prepare` validates and broadcasts the inputs, projects the starting pose into
the chain's DOFs and limits, and picks the backend (floats for one target,
arrays for a batch). `ChainState` holds the per-target variables as components
(see :mod:`vhuman.ik._ops`); `chain_fk` walks the chain; `project_joint` clamps
one joint; `Outputs` gathers finished solves into an `IKResult`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry.quaternion import as_quat_array, quat_normalize
from vhuman.ik._ops import (
    BATCH,
    SCALAR,
    Backend,
    Col,
    Mat,
    Quat,
    Vec,
    euler_from_quat,
    mat_from_quat,
    mat_rotate,
    qaxis,
    qconj,
    qmul,
    quat_from_euler,
)
from vhuman.ik.chain import Chain, JointSpec
from vhuman.ik.result import IKResult
from vhuman.ik.target import Target
from vhuman.skeleton import JointType

__all__ = [
    "ChainState",
    "Outputs",
    "Problem",
    "chain_fk",
    "errors",
    "hinge_angle",
    "initial_state",
    "keep_best",
    "prepare",
    "project_joint",
    "recall_best",
    "take",
]

T = TypeVar("T")
_IDENTITY_MAT: Mat = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


def take(value: T, keep: NDArray[np.intp]) -> T:
    """``value`` (an array, or lists and tuples of them) at batch positions ``keep``."""
    if isinstance(value, np.ndarray):
        return value[keep]  # type: ignore[return-value]
    if isinstance(value, (list, tuple)):
        return type(value)(take(v, keep) for v in value)  # type: ignore[return-value]
    return value


@dataclass
class ChainState:
    """Per-target variables of a chain during a solve; each entry a float or a (B,) array.

    Attributes
    ----------
    q : list of Quat
        Local rotation of each chain joint (the full rotation, also for hinges).
    theta : list of Col or None
        Hinge angle [rad] of each HINGE joint (the root's relative to its start).
    q0 : Quat
        The root's starting rotation (a root hinge turns it about the axis).
    root : Vec
        Root position [m] (used when the chain starts at the root).
    s : list of Col
        Root displacement along each translation axis [m].
    p0 : Vec
        World position of the chain's first joint when it is not the root [m].
    g0 : Quat
        World rotation of the first joint's parent (identity for the root).
    m0 : Mat
        ``g0`` as a matrix.
    t : Vec
        Target position [m].
    tq : Quat or None
        Target orientation.
    iters, updates : Col
        Iterations and joint updates so far.
    best, since_best : Col
        Smallest error so far and iterations since it last fell (to stop stalled solves).
    restarts : Col
        Restarts from a random pose so far.
    alive : Col
        1.0 while the target is being solved, 0.0 once finished (its state then stays
        frozen until the batch drops it).
    stage : Col
        Phase of a multi-stage solver (see :class:`vhuman.ik.TwoStageCCD`).
    kept_q, kept_root, kept_score : list of Quat, Vec, Col
        The best pose met before a restart and its error (returned if the
        restarts do no better).
    index : ndarray of int
        Original position of each target in the batch.
    """

    q: list[Quat]
    theta: list[Col | None]
    q0: Quat
    root: Vec
    s: list[Col]
    p0: Vec
    g0: Quat
    m0: Mat
    t: Vec
    tq: Quat | None
    iters: Col
    updates: Col
    best: Col
    since_best: Col
    restarts: Col
    alive: Col
    stage: Col
    kept_q: list[Quat]
    kept_root: Vec
    kept_score: Col
    index: NDArray[np.intp]

    def take(self, keep: NDArray[np.intp]) -> ChainState:
        """The targets at positions ``keep`` (batched state only)."""
        return ChainState(**{f.name: take(getattr(self, f.name), keep) for f in fields(self)})

    @property
    def size(self) -> int:
        """Number of targets held."""
        return len(self.index)


@dataclass(frozen=True)
class Problem:
    """Validated, flattened inputs of one solve call."""

    chain: Chain
    batch_shape: tuple[int, ...]
    local_rotations: NDArray[np.float64]  # (B, J, 4) starting pose
    root_position: NDArray[np.float64]  # (B, 3)
    target_position: NDArray[np.float64]  # (B, 3)
    target_orientation: NDArray[np.float64] | None  # (B, 4)
    orientation_weight: float
    xp: Backend

    @property
    def size(self) -> int:
        """Number of targets B."""
        return len(self.root_position)

    def column(self, values: NDArray[np.float64]) -> Col:
        """One component as the backend wants it: a float for one target, else the (B,) array."""
        return float(values[0]) if not self.xp.batched else np.ascontiguousarray(values)


def _pose_arrays(
    chain: Chain, local_rotations: ArrayLike | None, root_position: ArrayLike | None
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    sk = chain.skeleton
    j = sk.n_joints
    if local_rotations is None:
        q = np.zeros((j, 4))
        q[:, 0] = 1.0
    else:
        q = as_quat_array(local_rotations, "local_rotations")
        if q.ndim < 2 or q.shape[-2] != j:
            raise InputError(f"local_rotations must have shape (..., {j}, 4), got {q.shape}")
        q = quat_normalize(q)
    root = sk.offsets[0] if root_position is None else np.asarray(root_position, dtype=np.float64)
    if root.ndim == 0 or root.shape[-1] != 3:
        raise InputError(f"root_position must have shape (..., 3) [m], got {root.shape}")
    if not np.all(np.isfinite(root)):
        raise InputError("root_position contains NaN or infinite values")
    return q, root


def prepare(
    chain: Chain,
    target: Target | ArrayLike,
    local_rotations: ArrayLike | None,
    root_position: ArrayLike | None,
    *,
    batched: bool | None = None,
) -> Problem:
    """Validate and broadcast the inputs of a solve.

    Parameters
    ----------
    chain : Chain
    target : Target or array_like, shape (..., 3)
    local_rotations : array_like, shape (..., J, 4), optional
        Starting pose (default: rest). Chain joints are first projected into their DOFs
        and limits.
    root_position : array_like, shape (..., 3), optional
        Starting root position [m] (default: the skeleton's rest root position).
    batched : bool, optional
        Force the array backend (True) or floats (False, one target only);
        default: floats for a single target, arrays otherwise.

    Raises
    ------
    InputError
        For a NaN target, a wrong shape, or a chain that is not a `Chain`.
    """
    if not isinstance(chain, Chain):
        raise InputError(f"chain must be a vhuman.ik.Chain, got {type(chain).__name__}")
    tgt = Target.of(target)
    q, root = _pose_arrays(chain, local_rotations, root_position)
    shapes = [q.shape[:-2], root.shape[:-1], tgt.batch_shape]
    try:
        shape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise InputError(
            f"batch shapes of local_rotations {shapes[0]}, root_position {shapes[1]} and "
            f"target {shapes[2]} do not broadcast"
        ) from None
    n = math.prod(shape)
    j = chain.skeleton.n_joints
    q = np.broadcast_to(q, (*shape, j, 4)).reshape(n, j, 4).copy()
    root = np.broadcast_to(root, (*shape, 3)).reshape(n, 3).copy()
    tp = np.broadcast_to(tgt.position, (*shape, 3)).reshape(n, 3)
    tq = None
    if tgt.orientation is not None:
        tq = np.broadcast_to(tgt.orientation, (*shape, 4)).reshape(n, 4)
    use_batch = n != 1 if batched is None else batched
    if not use_batch and n != 1:
        raise InputError(f"the float backend solves one target at a time, got {n}")
    return Problem(
        chain, shape, q, root, tp, tq, tgt.orientation_weight, BATCH if use_batch else SCALAR
    )


def project_joint(spec: JointSpec, q: Quat, xp: Backend) -> Quat:
    """Nearest rotation (per Euler angle) inside a BALL joint's limits; others unchanged."""
    if spec.euler is None:
        return q
    a0, a1, a2 = euler_from_quat(q, spec.euler, xp)
    lo, hi = spec.lower, spec.upper
    c0, c1, c2 = xp.clip(a0, lo[0], hi[0]), xp.clip(a1, lo[1], hi[1]), xp.clip(a2, lo[2], hi[2])
    outside = (a0 != c0) | (a1 != c1) | (a2 != c2)
    if not xp.any(outside):
        return q
    w, x, y, z = quat_from_euler((c0, c1, c2), spec.euler, xp)
    if not xp.batched:
        return (w, x, y, z)
    return (
        np.where(outside, w, q[0]),
        np.where(outside, x, q[1]),
        np.where(outside, y, q[2]),
        np.where(outside, z, q[3]),
    )


def hinge_angle(spec: JointSpec, q: Quat, xp: Backend) -> Col:
    """Signed angle [rad] of the twist of ``q`` about the hinge axis, in [−π, π]."""
    ax, ay, az = spec.axis
    return xp.wrap(2.0 * xp.atan2(q[1] * ax + q[2] * ay + q[3] * az, q[0]))


def _base_frame(problem: Problem, root: Vec) -> tuple[Vec, Quat]:
    """World position of the chain's first joint and world rotation of its parent.

    Forward kinematics along the ancestors only, on the problem's backend.
    """
    sk = problem.chain.skeleton
    first = problem.chain.joints[0]
    path = sk.chain(first)
    qs = problem.local_rotations
    col = problem.column
    p: Vec = root
    g: Quat = tuple(col(qs[:, 0, k]) for k in range(4))  # type: ignore[assignment]
    for j in path[1:]:
        d = mat_rotate(mat_from_quat(g), tuple(float(v) for v in sk.offsets[j]))  # type: ignore[arg-type]
        p = (p[0] + d[0], p[1] + d[1], p[2] + d[2])
        if j != first:
            g = qmul(g, tuple(col(qs[:, j, k]) for k in range(4)))  # type: ignore[arg-type]
    return p, g


def initial_state(problem: Problem) -> ChainState:
    """Starting state: the input pose with the chain joints projected into DOFs and limits."""
    chain, xp = problem.chain, problem.xp
    col = problem.column
    qs = problem.local_rotations
    n = problem.size
    root = tuple(col(problem.root_position[:, k]) for k in range(3))
    g0: Quat = (1.0, 0.0, 0.0, 0.0)
    m0 = _IDENTITY_MAT
    p0 = root
    if not chain.includes_root:
        p0, g0 = _base_frame(problem, root)
        m0 = mat_from_quat(g0)
    q: list[Quat] = []
    theta: list[Col | None] = []
    for spec, j in zip(chain.specs, chain.joints, strict=True):
        qj: Quat = tuple(col(qs[:, j, k]) for k in range(4))  # type: ignore[assignment]
        th = None
        if spec.is_root:
            if spec.kind is JointType.HINGE:
                th = 0.0 * qj[0]
        elif spec.kind is JointType.FIXED:
            qj = (1.0 + 0.0 * qj[0], 0.0 * qj[0], 0.0 * qj[0], 0.0 * qj[0])
        elif spec.kind is JointType.HINGE:
            th = xp.clip(hinge_angle(spec, qj, xp), spec.lower[0], spec.upper[0])
            qj = qaxis(spec.axis, th, xp)
        else:
            qj = project_joint(spec, qj, xp)
        q.append(qj)
        theta.append(th)
    n_trans = 0 if chain.root is None else len(chain.root.translation_axes)
    zero = col(np.zeros(n))
    tq = None
    if problem.target_orientation is not None:
        tq = tuple(col(problem.target_orientation[:, k]) for k in range(4))
    return ChainState(
        q=q,
        theta=theta,
        q0=q[0],
        root=root,  # type: ignore[arg-type]
        s=[zero] * n_trans,
        p0=p0,  # type: ignore[arg-type]
        g0=g0,
        m0=m0,
        t=tuple(col(problem.target_position[:, k]) for k in range(3)),  # type: ignore[arg-type]
        tq=tq,  # type: ignore[arg-type]
        iters=zero,
        updates=zero,
        best=zero + np.inf,
        since_best=zero,
        restarts=zero,
        alive=zero + 1.0,
        stage=zero,
        kept_q=list(q),
        kept_root=root,  # type: ignore[arg-type]
        kept_score=zero + np.inf,
        index=np.arange(n),
    )


def keep_best(st: ChainState, mask: Col, score: Col, xp: Backend) -> None:
    """Remember the current pose of the targets in ``mask`` if it beats the one kept."""
    better = mask & (score < st.kept_score)
    if not xp.any(better):
        return
    st.kept_score = xp.where(better, score, st.kept_score)
    st.kept_root = tuple(xp.where(better, a, b) for a, b in zip(st.root, st.kept_root, strict=True))  # type: ignore[assignment]
    st.kept_q = [
        tuple(xp.where(better, a, b) for a, b in zip(q, k, strict=True))  # type: ignore[misc]
        for q, k in zip(st.q, st.kept_q, strict=True)
    ]


def recall_best(st: ChainState, score: Col, xp: Backend) -> None:
    """Put back the kept pose where it beats the current one (before the outputs are stored)."""
    worse = score > st.kept_score
    if not xp.any(worse):
        return
    st.root = tuple(xp.where(worse, a, b) for a, b in zip(st.kept_root, st.root, strict=True))  # type: ignore[assignment]
    st.q = [
        tuple(xp.where(worse, a, b) for a, b in zip(k, q, strict=True))  # type: ignore[misc]
        for k, q in zip(st.kept_q, st.q, strict=True)
    ]


def chain_fk(chain: Chain, st: ChainState) -> tuple[list[Vec], list[Quat], list[Mat]]:
    """World positions and rotations of the chain joints, and each joint's parent rotation matrix.

    Returns
    -------
    positions : list of Vec
        World position of each chain joint [m].
    rotations : list of Quat
        World rotation of each chain joint.
    parent_mats : list of Mat
        World rotation matrix of each joint's parent (the frame its hinge axis and
        Euler angles are expressed in).
    """
    positions: list[Vec] = []
    rotations: list[Quat] = []
    mats: list[Mat] = []
    for i, spec in enumerate(chain.specs):
        if i == 0:
            m, p = st.m0, (st.root if spec.is_root else st.p0)
            g = st.q[0] if spec.is_root else qmul(st.g0, st.q[0])
        else:
            m = mat_from_quat(rotations[-1])
            d = mat_rotate(m, spec.offset)
            pp = positions[-1]
            p = (pp[0] + d[0], pp[1] + d[1], pp[2] + d[2])
            g = qmul(rotations[-1], st.q[i])
        positions.append(p)
        rotations.append(g)
        mats.append(m)
    return positions, rotations, mats


def errors(st: ChainState, e: Vec, ge: Quat | None, xp: Backend) -> tuple[Col, Col | None]:
    """Position error [m] and orientation error [rad] (None without orientation target)."""
    dx, dy, dz = st.t[0] - e[0], st.t[1] - e[1], st.t[2] - e[2]
    pos = xp.sqrt(dx * dx + dy * dy + dz * dz)
    if st.tq is None or ge is None:
        return pos, None
    err = qmul(st.tq, qconj(ge))
    vec = xp.sqrt(err[1] * err[1] + err[2] * err[2] + err[3] * err[3])
    return pos, 2.0 * xp.atan2(vec, xp.abs(err[0]))


class Outputs:
    """Collects finished solves (possibly in several groups) into one `IKResult`."""

    def __init__(self, problem: Problem) -> None:
        n = problem.size
        self.problem = problem
        self.local_rotations = problem.local_rotations.copy()
        self.root_position = problem.root_position.copy()
        self.position_error = np.zeros(n)
        self.orientation_error = None if problem.target_orientation is None else np.zeros(n)
        self.iterations = np.zeros(n, dtype=np.int64)
        self.joint_updates = np.zeros(n, dtype=np.int64)
        self.converged = np.zeros(n, dtype=bool)

    def store(
        self, st: ChainState, converged: Callable[[Col, Col | None], Col] | Col
    ) -> tuple[Col, Col | None]:
        """Write every target in ``st`` to the outputs; return its errors.

        ``converged`` is a boolean per target, or a function of the errors giving it.
        """
        chain, xp = self.problem.chain, self.problem.xp
        positions, rotations, _ = chain_fk(chain, st)
        pos_err, ori_err = errors(st, positions[-1], rotations[-1], xp)
        conv = converged(pos_err, ori_err) if callable(converged) else converged
        idx = st.index
        for k, j in enumerate(chain.joints):
            self.local_rotations[idx, j] = np.stack(np.broadcast_arrays(*st.q[k]), axis=-1)
        if chain.includes_root:
            self.root_position[idx] = np.stack(np.broadcast_arrays(*st.root), axis=-1)
        self.position_error[idx] = pos_err
        if self.orientation_error is not None:
            self.orientation_error[idx] = ori_err
        self.iterations[idx] = st.iters
        self.joint_updates[idx] = st.updates
        self.converged[idx] = conv
        return pos_err, ori_err

    def result(self) -> IKResult:
        """The `IKResult`, reshaped to the problem's batch shape."""
        shape = self.problem.batch_shape
        j = self.problem.chain.skeleton.n_joints
        rot = self.local_rotations
        chain = list(self.problem.chain.joints)
        moved = rot[:, chain] / np.linalg.norm(rot[:, chain], axis=-1, keepdims=True)
        rot[:, chain] = np.where(moved[..., :1] < 0.0, -moved, moved)
        return IKResult(
            local_rotations=rot.reshape(*shape, j, 4),
            root_position=self.root_position.reshape(*shape, 3),
            position_error=self.position_error.reshape(shape),
            orientation_error=(
                None if self.orientation_error is None else self.orientation_error.reshape(shape)
            ),
            iterations=self.iterations.reshape(shape),
            joint_updates=self.joint_updates.reshape(shape),
            converged=self.converged.reshape(shape),
        )
