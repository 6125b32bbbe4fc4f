"""Luo et al.'s comparator: a whole-body multi-objective GA at fixed horizontal distances.

Luo et al. (section 4.2, after Wu et al.) compare their method with a whole-body
multi-objective genetic algorithm that needs the worker's position given: the
body is put at several fixed horizontal distances from the target, and at each
the whole posture is optimised on balance, joint comfort and reachability; the
best distance is kept. Re-implemented here with pymoo's NSGA-II:

- position: the pelvis on the line through the target against its approach
  direction, at horizontal distance d from the target, facing it, shifted
  sideways so that the working shoulder is in line with the target; the root
  height puts the lowest body point on the floor;
- genes (in [0, 1] over their ranges): pelvis pitch, spine and chest flexion,
  hip flexion, knee flexion and ankle dorsiflexion of each leg, and the 7 arm
  angles;
- objectives: joint comfort (Σ f_rot of the arm, trunk, hips and knees),
  f_access (as for the arm, :mod:`vhuman.posture.arm`), and balance = the
  horizontal distance [m] from the centre of mass to the centroid of the body
  points touching the floor;
- constraint: the whole-body collision ratio on the occupancy grid ≤ 0 (the
  Luo et al.'s baseline had no collision term; the constraint makes it a stronger
  peer);
- selection per distance as for the arm (the most comfortable within the reach
  tolerances, else the smallest f_access), then the closed-form IK at its
  swivel angle; across distances the reached posture with the lowest REBA.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.ergonomics import (
    JOINT_COMFORT,
    REBAResult,
    RULAResult,
    arm_discomfort,
    assess_reba,
    assess_rula,
    joint_discomfort,
)
from vhuman.errors import InputError
from vhuman.geometry import euler_to_quat, quat_apply, quat_multiply
from vhuman.posture.arm import (
    ACCESS_WEIGHT,
    ArmSetting,
    access_errors,
    anatomical_angles,
    arm_local_rotations,
)
from vhuman.reaching import ArmModel, Side, solve_arm, swivel_angle
from vhuman.scene import BodyModel, CollisionReport, CollisionWorld, Scene
from vhuman.skeleton import Motion, Skeleton, forward_kinematics, standard_humanoid

__all__ = ["BaselineResult", "solve_posture_ga"]

# Gene ranges [deg]: pelvis pitch, spine, chest, hip L/R, knee L/R, ankle L/R.
_BODY_RANGES = np.array(
    [
        [-10, 60],
        [-10, 40],
        [-10, 40],
        [-10, 120],
        [-10, 120],
        [0, 135],
        [0, 135],
        [-45, 20],
        [-45, 20],
    ],
    dtype=np.float64,
)


@dataclass(frozen=True, eq=False)
class BaselineResult:
    """The whole-body GA's posture and figures.

    Attributes
    ----------
    motion : Motion
    distance : float
        Horizontal pelvis–target distance of the chosen run [m].
    collision : CollisionReport
    reba, rula : REBAResult, RULAResult
    diff_t, diff_r : float
        Reach errors [m], [rad].
    reached : bool
    solve_time_s : float
    per_distance : list of dict
    """

    motion: Motion
    distance: float
    collision: CollisionReport
    reba: REBAResult
    rula: RULAResult
    diff_t: float
    diff_r: float
    reached: bool
    solve_time_s: float
    per_distance: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures with the keys of `PostureResult.to_dict`."""
        c = self.collision.min_clearance
        return {
            "method": "whole-body GA at fixed distances",
            "status": "reached" if self.reached else "unreachable",
            "reached": self.reached,
            "distance_m": self.distance,
            "collisions": self.collision.n_contacts,
            "min_clearance_mm": 1e3 * c if np.isfinite(c) else None,
            "reach_position_error_mm": 1e3 * self.diff_t,
            "reach_orientation_error_deg": float(np.degrees(self.diff_r)),
            "reba_score": int(self.reba.score[0]),
            "reba_action_level": int(self.reba.action_level[0]),
            "rula_score": int(self.rula.score[0]),
            "solve_time_s": self.solve_time_s,
            "per_distance": self.per_distance,
        }


class _WholeBody:
    """Pose builder and objective evaluator at one fixed placement."""

    def __init__(self, body: BodyModel, world: CollisionWorld, side: Side, distance: float) -> None:
        self.body, self.world, self.side = body, world, side
        sk = body.skeleton
        self.sk = sk
        self.model = ArmModel.from_skeleton(sk, side)
        s = "r" if side is Side.RIGHT else "l"
        self.arm_idx = sk.indices([f"{s}_shoulder", f"{s}_elbow", f"{s}_wrist"])
        self.hand_idx = sk.index(f"{s}_hand")
        self.wrist_idx = self.arm_idx[2]
        target = world.scene.target
        self.target = target
        a = target.approach[:2]
        heading = a / np.linalg.norm(a) if np.linalg.norm(a) > 1e-9 else np.array([1.0, 0.0])
        self.yaw = float(np.arctan2(heading[1], heading[0]))
        left = np.array([-heading[1], heading[0]])
        sh = sk.rest_positions()[self.arm_idx[0]]
        self.xy = target.position[:2] - distance * heading - sh[1] * left
        self.q_yaw = euler_to_quat([0.0, 0.0, self.yaw], "xyz")
        self.masses = np.array([0.0 if g is None else g.mass for g in sk.segments])
        self.coms = np.array([np.zeros(3) if g is None else g.com for g in sk.segments])
        self.lo = np.concatenate([np.radians(_BODY_RANGES[:, 0]), self.model.limits[:, 0]])
        self.hi = np.concatenate([np.radians(_BODY_RANGES[:, 1]), self.model.limits[:, 1]])

    def poses(self, x: NDArray[np.float64]) -> tuple[NDArray, NDArray, NDArray]:
        """Roots (N, 3), local rotations (N, J, 4) and arm angles (N, 7) of genes (N, 16)."""
        v = self.lo + x * (self.hi - self.lo)
        n = len(x)
        local = np.zeros((n, self.sk.n_joints, 4))
        local[..., 0] = 1.0
        # Every body gene is a rotation about the joint's y axis (see posture_rotations):
        # pelvis pitch, trunk flexion and knee flexion +, hip flexion and dorsiflexion −.
        names = (
            "pelvis",
            "spine",
            "chest",
            "l_hip",
            "r_hip",
            "l_knee",
            "r_knee",
            "l_ankle",
            "r_ankle",
        )
        signs = np.array([1.0, 1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -1.0, -1.0])
        half = 0.5 * v[:, :9] * signs
        idx = self.sk.indices(names)
        local[:, idx, 0] = np.cos(half)
        local[:, idx, 2] = np.sin(half)
        local[:, 0] = quat_multiply(self.q_yaw, local[:, 0])
        q_arm = v[:, 9:]
        local[:, self.arm_idx] = arm_local_rotations(self.model, q_arm)
        root = np.zeros((n, 3))
        root[:, :2] = self.xy
        a, b = self.body.capsules(root, local)
        low = np.min(np.minimum(a[..., 2], b[..., 2]) - self.body.radii, axis=-1)
        root[:, 2] = self.world.scene.floor - low
        return root, local, q_arm

    def evaluate(self, x: NDArray[np.float64]) -> dict[str, NDArray[np.float64]]:
        root, local, q_arm = self.poses(x)
        v = self.lo + x * (self.hi - self.lo)
        comfort = arm_discomfort(anatomical_angles(q_arm))
        trunk = v[:, 0] + v[:, 1] + v[:, 2]
        comfort = comfort + joint_discomfort(trunk, JOINT_COMFORT["trunk_flexion"])
        # Hip flexion relative to the trunk line; knees as they are.
        for k in (3, 4):
            comfort = comfort + joint_discomfort(v[:, k] - v[:, 0], JOINT_COMFORT["hip_flexion"])
        for k in (5, 6):
            comfort = comfort + joint_discomfort(v[:, k], JOINT_COMFORT["knee_flexion"])
        pos, rot = forward_kinematics(self.sk.parents, self.sk.offsets, root, local)
        diff_t, diff_r = access_errors(pos[:, self.hand_idx], rot[:, self.wrist_idx], self.target)
        com = pos + quat_apply(rot, self.coms)
        com = np.sum(com * self.masses[:, None], axis=1) / self.masses.sum()
        a, b = self.body.capsules(root, local)
        ends = np.concatenate([a, b], axis=1)
        radii = np.concatenate([self.body.radii, self.body.radii])
        touch = (ends[..., 2] - radii - self.world.scene.floor) < 0.03
        w = touch / np.maximum(touch.sum(axis=1, keepdims=True), 1)
        support = np.einsum("ns,nsk->nk", w, ends[..., :2])
        balance = np.linalg.norm(com[:, :2] - support, axis=-1)
        ratio = self.world.collision_ratio(self.body, root, local)
        return {
            "comfort": comfort,
            "access": diff_r + ACCESS_WEIGHT * diff_t,
            "balance": balance,
            "ratio": ratio,
            "diff_t": diff_t,
            "diff_r": diff_r,
        }


def solve_posture_ga(
    scene: Scene,
    skeleton: Skeleton | None = None,
    *,
    distances: Sequence[float] = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8),
    population: int = 40,
    generations: int = 40,
    seed: int = 0,
    side: Side | str = Side.RIGHT,
    position_tolerance: float = 0.005,
    orientation_tolerance_deg: float = 3.0,
    world: CollisionWorld | None = None,
) -> BaselineResult:
    """The whole-body multi-objective GA at fixed horizontal distances (Luo et al.'s baseline).

    Parameters
    ----------
    scene : Scene
    skeleton : Skeleton, optional
        Default the GB/T 10000 95th-percentile male.
    distances : sequence of float
        Horizontal pelvis–target distances [m] to optimise at.
    population, generations : int
        NSGA-II size and length per distance.
    seed : int
    side : Side or {"right", "left"}
    position_tolerance, orientation_tolerance_deg : float
        Reach tolerances [m], [deg].
    world : CollisionWorld, optional

    Returns
    -------
    BaselineResult

    Raises
    ------
    InputError
        For an empty or non-finite list of distances.
    """
    from pymoo.algorithms.moo.nsga2 import NSGA2
    from pymoo.core.problem import Problem
    from pymoo.operators.crossover.sbx import SBX
    from pymoo.operators.mutation.pm import PM
    from pymoo.optimize import minimize

    t0 = time.perf_counter()
    dist = np.asarray(distances, dtype=np.float64)
    if dist.ndim != 1 or not len(dist) or not np.all(np.isfinite(dist)):
        raise InputError(f"distances must be a non-empty list of finite numbers, got {distances}")
    sk = standard_humanoid(sex="male", percentile=95) if skeleton is None else skeleton
    arm_side = Side.parse(side)
    body = BodyModel.from_skeleton(sk, samples_per_segment=8)
    world = CollisionWorld(scene) if world is None else world
    tol_r = np.radians(orientation_tolerance_deg)
    runs: list[dict[str, Any]] = []
    best: tuple[tuple[float, ...], Any] = ((np.inf,), None)
    for d in dist:
        wb = _WholeBody(body, world, arm_side, float(d))

        class _Problem(Problem):  # type: ignore[misc]
            def __init__(self, wb: _WholeBody = wb) -> None:
                super().__init__(n_var=16, n_obj=3, n_ieq_constr=1, xl=0.0, xu=1.0)
                self.wb = wb

            def _evaluate(self, x: NDArray, out: dict[str, Any], *a: Any, **k: Any) -> None:
                e = self.wb.evaluate(x)
                out["F"] = np.column_stack([e["comfort"], e["access"], e["balance"]])
                out["G"] = e["ratio"][:, None]

        algorithm = NSGA2(
            pop_size=int(population),
            crossover=SBX(prob=0.9, eta=15),
            mutation=PM(eta=20),
            eliminate_duplicates=True,
        )
        res = minimize(_Problem(), algorithm, ("n_gen", int(generations)), seed=int(seed))
        x = res.pop.get("X")
        cv = res.pop.get("CV")[:, 0]
        e = wb.evaluate(x)
        pool = np.flatnonzero(cv <= 0.0) if np.any(cv <= 0.0) else np.arange(len(x))
        ok = pool[(e["diff_t"][pool] <= position_tolerance) & (e["diff_r"][pool] <= tol_r)]
        pick = int(
            ok[np.argmin(e["comfort"][ok])] if len(ok) else pool[np.argmin(e["access"][pool])]
        )
        root, local, q_arm = wb.poses(x[pick : pick + 1])
        root, local = _snap(wb, root[0], local[0], q_arm[0])
        motion = Motion(sk, 30.0, root[None], local[None])
        pos, rot = motion.global_positions[0], motion.global_rotations[0]
        dt, dr = access_errors(pos[wb.hand_idx], rot[wb.wrist_idx], scene.target)
        report = world.check(body, root, local)
        reba = assess_reba(motion)
        rula = assess_rula(motion)
        reached = bool(dt <= position_tolerance and dr <= tol_r)
        runs.append(
            {
                "distance_m": float(d),
                "reached": reached,
                "collisions": report.n_contacts,
                "reach_position_error_mm": 1e3 * float(dt),
                "reach_orientation_error_deg": float(np.degrees(dr)),
                "reba_score": int(reba.score[0]),
            }
        )
        key = (
            float(report.n_contacts > 0),
            float(not reached),
            float(reba.score[0]),
            float(dr + ACCESS_WEIGHT * dt),
        )
        if best[1] is None or key < best[0]:
            best = (key, (float(d), motion, report, reba, rula, float(dt), float(dr), reached))
    d, motion, report, reba, rula, dt, dr, reached = best[1]
    return BaselineResult(
        motion=motion,
        distance=d,
        collision=report,
        reba=reba,
        rula=rula,
        diff_t=dt,
        diff_r=dr,
        reached=reached,
        solve_time_s=time.perf_counter() - t0,
        per_distance=runs,
    )


def _snap(wb: _WholeBody, root: NDArray, local: NDArray, q: NDArray) -> tuple[NDArray, NDArray]:
    """The arm moved onto the target by closed-form IK at its swivel angle, if within limits."""
    setting = ArmSetting(wb.body, root, local, wb.side, wb.target)
    pose = wb.model.forward(q)
    phi = swivel_angle(pose.shoulder, pose.elbow, pose.wrist)
    if not np.isfinite(phi):
        return root, local
    p, quat = setting.target_in_shoulder()
    try:
        sol = solve_arm(wb.model, p, quat, phi)
    except InputError:
        return root, local
    if not bool(sol.feasible):
        return root, local
    snapped = setting.poses(sol.q)
    ratio = wb.world.collision_ratio(wb.body, root, snapped, segments=setting.segments)
    return (root, snapped) if float(ratio) <= 0.0 else (root, local)
