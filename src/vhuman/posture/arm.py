"""The working arm of a placed body: Luo et al.'s 7 angles, reach accuracy, NSGA-II.

The arm is the 7-DOF arm of :class:`vhuman.reaching.ArmModel` (shoulder flexion,
abduction, rotation; elbow flexion; forearm pronation; wrist deviation and
flexion), attached to the body at its shoulder with the orientation of the
clavicle (the arm model's shoulder frame is the clavicle's frame, which is the
body frame at rest). The 7 angles become the skeleton's shoulder, elbow and
wrist rotations by :meth:`ArmModel.segment_rotations` (forearm pronation goes
to the wrist, the elbow being a hinge).

Objectives (Luo et al., section 3.1), both minimised:

- joint comfort ``Σ f_rot(θ_i)`` over the anatomical angles (:func:`anatomical_angles`)
  with :func:`vhuman.ergonomics.arm_discomfort`;
- reach accuracy ``f_access = DiffR + α·DiffT``: DiffT = hand-to-target distance
  [m]; DiffR = ``2·arccos|w|`` [rad], from the w of the quaternion of the
  relative rotation between the hand frame and the target frame; α =
  :data:`ACCESS_WEIGHT` rad/m (so 5 mm weigh as 2.9°).

Constraint: the arm's capsules must not enter the scene, ``g = collision ratio
of the arm ≤ 0`` on the occupancy grid (trilinear, so a capsule within one grid
spacing of a surface already counts a little: the constraint is conservative).

The genes are the 7 angles scaled to [0, 1] over the joint limits
(``θ = lo + u (hi − lo)``, Luo et al.'s eq. 14); NSGA-II (pymoo) with binary
tournament selection, SBX crossover and polynomial mutation; the initial
population holds closed-form IK solutions (:func:`vhuman.reaching.solve_arm`)
over a grid of swivel angles, the rest uniform.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.ergonomics import arm_discomfort
from vhuman.errors import InputError
from vhuman.geometry import quat_multiply, quat_to_rotmat, rotmat_to_quat
from vhuman.reaching import ArmModel, Side, solve_arm
from vhuman.scene import BodyModel, CollisionWorld, Target
from vhuman.skeleton import Skeleton, forward_kinematics

__all__ = [
    "ACCESS_WEIGHT",
    "ArmSetting",
    "ArmSolveResult",
    "access_errors",
    "anatomical_angles",
    "arm_local_rotations",
    "solve_arm_nsga2",
]

ACCESS_WEIGHT = 10.0
"""α of ``f_access = DiffR + α·DiffT`` [rad/m]: 5 mm of position error weigh as 2.9°."""

# θ_anatomical = _SIGN · q[_ORDER]: shoulder flexion is −q2, abduction −q1, external
# rotation −q3, elbow flexion −q4; pronation q5 (0 = the skeleton's rest, mid-prone),
# radial deviation −q6 and palmar flexion q7, as vhuman.ergonomics.body_angles measures them.
_ORDER = np.array([1, 0, 2, 3, 4, 5, 6])
_SIGN = np.array([-1.0, -1.0, -1.0, -1.0, 1.0, -1.0, 1.0])


def anatomical_angles(q: ArrayLike) -> NDArray[np.float64]:
    """The anatomical arm angles ``(..., 7)`` [rad] of D-H angles ``q (..., 7)``.

    In the order of :data:`vhuman.ergonomics.ARM_DOFS`: shoulder flexion,
    abduction, external rotation; elbow flexion; forearm pronation; wrist
    radial deviation, palmar flexion (signs checked against
    :func:`vhuman.ergonomics.body_angles` one joint at a time).
    """
    return np.asarray(q, dtype=np.float64)[..., _ORDER] * _SIGN


def arm_local_rotations(model: ArmModel, q: ArrayLike) -> NDArray[np.float64]:
    """Local rotations ``(..., 3, 4)`` of the shoulder, elbow and wrist joints for ``q (..., 7)``.

    The skeleton's joint frames are parallel to the clavicle's at rest, so the
    shoulder takes the upper arm's rotation, the elbow the forearm's relative to
    the upper arm, the wrist the hand's relative to the forearm.
    """
    seg = model.segment_rotations(q)  # (..., 3, 3, 3)
    upper, fore, palm = seg[..., 0, :, :], seg[..., 1, :, :], seg[..., 2, :, :]
    t = np.swapaxes
    return rotmat_to_quat(np.stack([upper, t(upper, -1, -2) @ fore, t(fore, -1, -2) @ palm], -3))


def access_errors(
    hand_position: ArrayLike,
    hand_rotation: ArrayLike,
    target: Target,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """DiffT [m] and DiffR [rad] of hand frames against the target frame.

    Parameters
    ----------
    hand_position : array_like, shape (..., 3)
        World hand end points [m].
    hand_rotation : array_like, shape (..., 4)
        World hand (wrist joint) orientations (w, x, y, z).
    target : Target

    Returns
    -------
    diff_t, diff_r : ndarray, shape (...)
        Distance and rotation angle ``2·arccos|w|`` of ``q_target⁻¹ q_hand``.
    """
    p = np.asarray(hand_position, dtype=np.float64)
    q = np.asarray(hand_rotation, dtype=np.float64)
    diff_t = np.linalg.norm(p - target.position, axis=-1)
    inv = target.rotation * np.array([1.0, -1.0, -1.0, -1.0])
    w = np.abs(quat_multiply(inv, q)[..., 0])
    return diff_t, 2.0 * np.arccos(np.clip(w, 0.0, 1.0))


@dataclass(frozen=True, eq=False)
class ArmSetting:
    """A placed body whose working arm is free: where the arm hangs and what it must reach.

    Parameters
    ----------
    body : BodyModel
    root_position : ndarray, shape (3,)
        World pelvis position [m].
    local_rotations : ndarray, shape (J, 4)
        The body's pose; the working arm's three joints are overwritten.
    side : Side
    target : Target
    """

    body: BodyModel
    root_position: NDArray[np.float64]
    local_rotations: NDArray[np.float64]
    side: Side
    target: Target

    @property
    def skeleton(self) -> Skeleton:
        """The body's skeleton."""
        return self.body.skeleton

    @cached_property
    def model(self) -> ArmModel:
        """The arm model of this side."""
        return ArmModel.from_skeleton(self.skeleton, self.side)

    @cached_property
    def joints(self) -> NDArray[np.intp]:
        """Skeleton indices of the shoulder, elbow, wrist and hand joints ``(4,)``."""
        s = "r" if self.side is Side.RIGHT else "l"
        return self.skeleton.indices([f"{s}_shoulder", f"{s}_elbow", f"{s}_wrist", f"{s}_hand"])

    @property
    def segments(self) -> tuple[str, ...]:
        """Body segments of the arm (names of the joints carrying them)."""
        return tuple(self.skeleton.names[j] for j in self.joints[:3])

    @cached_property
    def _shoulder_frame(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        pos, rot = forward_kinematics(
            self.skeleton.parents, self.skeleton.offsets, self.root_position, self.local_rotations
        )
        parent = self.skeleton.parents[self.joints[0]]
        return pos[self.joints[0]], quat_to_rotmat(rot[parent])

    @property
    def shoulder(self) -> NDArray[np.float64]:
        """World shoulder centre (3,) [m]."""
        return self._shoulder_frame[0]

    @property
    def shoulder_rotation(self) -> NDArray[np.float64]:
        """World rotation (3, 3) of the arm's base frame (the clavicle's)."""
        return self._shoulder_frame[1]

    def target_in_shoulder(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The target's position (3,) [m] and orientation (4,) in the shoulder frame."""
        r = self.shoulder_rotation
        p = r.T @ (self.target.position - self.shoulder)
        q = rotmat_to_quat(r.T @ quat_to_rotmat(self.target.rotation))
        return p, q

    def hand_frames(self, q: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """World hand end points ``(..., 3)`` and wrist orientations ``(..., 4)`` for ``q``."""
        pose = self.model.forward(q)
        r = self.shoulder_rotation
        p = self.shoulder + pose.hand @ r.T
        rot = rotmat_to_quat(r @ quat_to_rotmat(pose.hand_orientation))
        return p, rot

    def poses(self, q: ArrayLike) -> NDArray[np.float64]:
        """Whole-body local rotations ``(..., J, 4)`` with the arm at ``q (..., 7)``."""
        q = np.asarray(q, dtype=np.float64)
        local = np.broadcast_to(self.local_rotations, (*q.shape[:-1], *self.local_rotations.shape))
        local = local.copy()
        local[..., self.joints[:3], :] = arm_local_rotations(self.model, q)
        return local

    def ik_seeds(self, n_swivel: int = 72) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """Closed-form IK solutions ``(n, 7)`` over ``n_swivel`` swivel angles, with feasibility.

        Empty when the target is out of the arm's reach.
        """
        p, quat = self.target_in_shoulder()
        phi = np.linspace(-np.pi, np.pi, n_swivel, endpoint=False)
        try:
            sol = solve_arm(self.model, p, quat, phi)
        except InputError:
            return np.zeros((0, 7)), np.zeros(0, dtype=bool)
        return sol.q, sol.feasible


@dataclass(frozen=True)
class ArmSolveResult:
    """The Pareto set of the arm NSGA-II and the chosen member.

    Attributes
    ----------
    q : ndarray, shape (7,)
        Chosen D-H arm angles [rad].
    comfort : float
        Its Σ f_rot.
    diff_t : float
        Hand-to-target distance [m].
    diff_r : float
        Hand-to-target rotation [rad].
    collision_ratio : float
        Arm volume share inside the scene (grid).
    reached : bool
        Whether DiffT and DiffR are within the tolerances.
    pareto_f : ndarray, shape (K, 2)
        Comfort and f_access of the final non-dominated feasible set.
    pareto_q : ndarray, shape (K, 7)
    history : ndarray, shape (G, 2)
        Per generation the best comfort and best f_access among feasible members.
    evaluations : int
    """

    q: NDArray[np.float64]
    comfort: float
    diff_t: float
    diff_r: float
    collision_ratio: float
    reached: bool
    pareto_f: NDArray[np.float64]
    pareto_q: NDArray[np.float64]
    history: NDArray[np.float64]
    evaluations: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures (degrees, millimetres)."""
        return {
            "arm_angles_deg": np.degrees(self.q).tolist(),
            "joint_comfort": self.comfort,
            "reach_position_error_mm": 1e3 * self.diff_t,
            "reach_orientation_error_deg": float(np.degrees(self.diff_r)),
            "arm_collision_ratio": self.collision_ratio,
            "reached": self.reached,
            "pareto_size": len(self.pareto_f),
            "evaluations": self.evaluations,
        }


def _objectives(
    setting: ArmSetting, world: CollisionWorld, q: NDArray[np.float64]
) -> tuple[NDArray[np.float64], ...]:
    """Comfort, DiffT, DiffR and arm collision ratio of a batch of arm angles ``(N, 7)``."""
    comfort = arm_discomfort(anatomical_angles(q))
    p, rot = setting.hand_frames(q)
    diff_t, diff_r = access_errors(p, rot, setting.target)
    roots = np.broadcast_to(setting.root_position, (len(q), 3))
    ratio = world.collision_ratio(setting.body, roots, setting.poses(q), segments=setting.segments)
    return comfort, diff_t, diff_r, ratio


def solve_arm_nsga2(
    setting: ArmSetting,
    world: CollisionWorld,
    *,
    population: int = 40,
    generations: int = 40,
    seed: int = 0,
    position_tolerance: float = 0.005,
    orientation_tolerance: float = np.radians(3.0),
    ik_seeding: bool = True,
) -> ArmSolveResult:
    """Pose the working arm by NSGA-II on comfort and reach accuracy, collision as constraint.

    Selection rule: among the final feasible Pareto members within the
    tolerances, the most comfortable; when none is within them, the one with
    the smallest f_access. The chosen member is then snapped onto the target by
    the closed-form IK at its own swivel angle when that solution is within the
    joint limits, free of collision on the grid and no less comfortable than
    allowed by the tolerances (it replaces the member only if it is within them).

    Parameters
    ----------
    setting : ArmSetting
    world : CollisionWorld
    population, generations : int
        NSGA-II population size and number of generations (≥ 4, ≥ 1).
    seed : int
        Seed of pymoo's random generator (the same seed gives the same result).
    position_tolerance : float
        DiffT bound of the selection rule [m].
    orientation_tolerance : float
        DiffR bound of the selection rule [rad].
    ik_seeding : bool
        Put the closed-form IK solutions over 72 swivel angles in the initial population.

    Returns
    -------
    ArmSolveResult

    Raises
    ------
    InputError
        For a population < 4 or generations < 1.
    """
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.core.callback import Callback
    from pymoo.core.problem import Problem
    from pymoo.operators.crossover.sbx import SBX
    from pymoo.operators.mutation.pm import PM
    from pymoo.optimize import minimize

    if int(population) < 4 or int(generations) < 1:
        raise InputError(
            f"population must be >= 4 and generations >= 1, got {population}, {generations}"
        )
    lo, hi = setting.model.limits[:, 0], setting.model.limits[:, 1]

    class _ArmProblem(Problem):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__(n_var=7, n_obj=2, n_ieq_constr=1, xl=0.0, xu=1.0)

        def _evaluate(self, x: NDArray, out: dict[str, Any], *args: Any, **kwargs: Any) -> None:
            comfort, diff_t, diff_r, ratio = _objectives(setting, world, lo + x * (hi - lo))
            out["F"] = np.column_stack([comfort, diff_r + ACCESS_WEIGHT * diff_t])
            out["G"] = ratio[:, None]

    class _History(Callback):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.rows: list[list[float]] = []

        def notify(self, algorithm: Any) -> None:
            pop = algorithm.pop
            f, ok = pop.get("F"), pop.get("CV")[:, 0] <= 0.0
            fb = f[ok] if ok.any() else np.full((1, 2), np.nan)
            self.rows.append([float(fb[:, 0].min()), float(fb[:, 1].min())])

    n = int(population)
    rng = np.random.default_rng(seed)
    x0 = rng.uniform(size=(n, 7))
    if ik_seeding:
        q_ik, ok = setting.ik_seeds()
        if len(q_ik):
            # Feasible solutions first, then the least-violating (clipped to the limits).
            order = np.argsort(~ok, kind="stable")
            seeds = np.clip((q_ik[order] - lo) / (hi - lo), 0.0, 1.0)
            k = min(len(seeds), n // 2)
            pick = np.linspace(0, max(int(ok.sum()), k) - 1, k).round().astype(int)
            x0[:k] = seeds[np.clip(pick, 0, len(seeds) - 1)]
    algorithm = NSGA2(
        pop_size=n,
        sampling=x0,
        crossover=SBX(prob=0.9, eta=15),
        mutation=PM(eta=20),
        eliminate_duplicates=True,
    )
    history = _History()
    res = minimize(
        _ArmProblem(),
        algorithm,
        ("n_gen", int(generations)),
        seed=int(seed),
        callback=history,
        verbose=False,
    )
    pop = res.pop
    x, cv = pop.get("X"), pop.get("CV")[:, 0]
    q_all = lo + x * (hi - lo)
    comfort, diff_t, diff_r, _ratio = _objectives(setting, world, q_all)
    feasible = cv <= 0.0
    pool = np.flatnonzero(feasible) if feasible.any() else np.arange(len(x))
    within = pool[(diff_t[pool] <= position_tolerance) & (diff_r[pool] <= orientation_tolerance)]
    access = diff_r + ACCESS_WEIGHT * diff_t
    if len(within):
        best = int(within[np.argmin(comfort[within])])
    else:
        best = int(pool[np.argmin(access[pool])])
    q_best = q_all[best]
    reached = bool(diff_t[best] <= position_tolerance and diff_r[best] <= orientation_tolerance)
    snapped = _snap(setting, world, q_best)
    if snapped is not None:
        c, t, r, g = (float(v[0]) for v in _objectives(setting, world, snapped[None]))
        if g <= 0.0 and t <= position_tolerance and r <= orientation_tolerance:
            q_best, reached = snapped, True
    c, t, r, g = (float(v[0]) for v in _objectives(setting, world, q_best[None]))
    f = np.column_stack([comfort, access])
    front = _non_dominated(f[pool])
    return ArmSolveResult(
        q=q_best,
        comfort=c,
        diff_t=t,
        diff_r=r,
        collision_ratio=g,
        reached=reached,
        pareto_f=f[pool][front],
        pareto_q=q_all[pool][front],
        history=np.array(history.rows),
        evaluations=int(res.algorithm.evaluator.n_eval),
    )


def _snap(
    setting: ArmSetting, world: CollisionWorld, q: NDArray[np.float64]
) -> NDArray[np.float64] | None:
    """Closed-form IK onto the target at the swivel angle of ``q``; None if out of limits."""
    from vhuman.reaching import swivel_angle

    pose = setting.model.forward(q)
    phi = swivel_angle(pose.shoulder, pose.elbow, pose.wrist)
    if not np.isfinite(phi):
        return None
    p, quat = setting.target_in_shoulder()
    try:
        sol = solve_arm(setting.model, p, quat, phi)
    except InputError:
        return None
    return sol.q if bool(sol.feasible) else None


def _non_dominated(f: NDArray[np.float64]) -> NDArray[np.intp]:
    """Indices of the non-dominated rows of ``f (n, 2)`` (minimisation), by comfort."""
    order = np.lexsort((f[:, 1], f[:, 0]))
    keep, best = [], np.inf
    for i in order:
        if f[i, 1] < best:
            keep.append(i)
            best = f[i, 1]
    return np.array(keep, dtype=np.intp)
