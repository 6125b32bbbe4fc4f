"""The maintenance-posture solver (Luo et al.), searched over every posture, heading and approach.

1. Free space connected to the entry: voxels around the target flood-filled
   from the worker's entry (:func:`vhuman.scene.reachable_space`); a target cut
   off from it is *enclosed*. The octree of Luo et al. over the cube of side
   L_arm around the target (:func:`vhuman.scene.free_space`) is kept for the view.
2. Placement: every library posture with its working shoulder on shells around
   the target, turned to every heading over 360°, only where pelvis and chest
   lie in the connected free space, ranked by Luo et al.'s cost (collision ratio
   + α·D_effective + β·V_comfort) plus the approach misalignment
   (:func:`~vhuman.posture.search.placement_candidates`); those near a placement
   the caller passes over (``exclude``, :func:`~vhuman.posture.search.near`) left out.
3. Arm attempts on diverse candidates (distinct posture / position / heading
   clusters, :func:`~vhuman.posture.search.diverse`), at most
   ``max_arm_attempts``: the trunk checked exactly with coal, the arm by the
   closed-form IK over 72 swivel angles (hand exactly on the target), least
   uncomfortable first, each pose put through the full-body check
   (:func:`~vhuman.posture.check.check_posture`: every capsule against every
   solid, floor and ceiling, joint limits, static balance). The first valid
   one stops the search; NSGA-II (:func:`~vhuman.posture.arm.solve_arm_nsga2`)
   then trades the arm's comfort against reach on that placement, and its
   choice replaces the IK arm only if it also reaches and passes the check.
4. When nothing reaches: status ``unreachable`` with the reason (``enclosed``,
   ``out of reach`` when no collision-free placement has an arm solution
   within the joint limits, ``only with contact`` otherwise), and as output the
   valid posture whose hand comes nearest the target: on the placements nearest
   the target, arms by closed-form IK onto stand-in points on the line from the
   shoulder to the target and by uniform samples of the arm's joint ranges,
   each checked in full (NSGA-II with collision as a constraint when none passes).
5. Scores: full REBA and RULA of the final pose (:mod:`vhuman.ergonomics`).

A posture that fails its full-body check is never reported as reached.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.ergonomics import (
    REBAConditions,
    REBAResult,
    RULAConditions,
    RULAResult,
    arm_discomfort,
    assess_reba,
    assess_rula,
)
from vhuman.errors import InputError
from vhuman.geometry import euler_to_quat, quat_multiply, rotvec_to_quat
from vhuman.posture.arm import (
    ACCESS_WEIGHT,
    ArmSetting,
    ArmSolveResult,
    access_errors,
    anatomical_angles,
    solve_arm_nsga2,
)
from vhuman.posture.check import PostureCheck, check_posture
from vhuman.posture.library import PostureLibrary, load_library
from vhuman.posture.placement import PlacementWeights
from vhuman.posture.search import Candidate, arm_solutions, diverse, near, placement_candidates
from vhuman.reaching import Side
from vhuman.scene import (
    BodyModel,
    CollisionReport,
    CollisionWorld,
    FreeSpace,
    ReachableSpace,
    Scene,
    Target,
    arm_length,
    free_space,
    reachable_space,
)
from vhuman.skeleton import Motion, Skeleton, standard_humanoid

__all__ = [
    "WORKERS",
    "PostureResult",
    "PostureSettings",
    "hand_frame_error",
    "solve_posture",
    "worker_skeleton",
]

GRID_WINDOW = 4.0
"""Half side [m] of the square around the target that the solver's occupancy grid covers."""

WORKERS: tuple[str, ...] = tuple(
    f"p{p}-{s}" for s in ("male", "female") for p in (1, 5, 10, 50, 90, 95, 99)
)
"""Worker names: GB/T 10000 percentile and sex of the standard humanoid."""


def worker_skeleton(worker: str) -> Skeleton:
    """The standard humanoid of a worker name such as ``"p95-male"`` (GB/T 10000).

    Raises
    ------
    InputError
        For another name; the message lists :data:`WORKERS`.
    """
    if worker not in WORKERS:
        raise InputError(f"unknown worker {worker!r}; workers: {', '.join(WORKERS)}")
    pct, sex = worker[1:].split("-")
    return standard_humanoid(sex=sex, percentile=int(pct))


@dataclass(frozen=True)
class PostureSettings:
    """Parameters of :func:`solve_posture`.

    Parameters
    ----------
    side : Side or {"right", "left"}
        The working arm (stored as a `Side`).
    weights : PlacementWeights
        α, β, L_S and σ of the placement cost.
    population, generations : int
        Arm NSGA-II population size and generations.
    max_arm_attempts : int
        Evaluation budget: diverse placements whose arm is tried.
    max_checks : int
        Exact trunk collision checks before giving up.
    octree_depth : int
        Depth of the free-space octree (cells of L_arm / 2**depth).
    samples_per_segment : int
        Sample points per capsule for the placement's collision ratio.
    heading_step_deg : float
        Step of the headings tried over the full turn [deg].
    forecast : int
        Most placements whose arm is forecast by batched IK, cheapest first
        (those with a usable arm are tried first).
    voxel : float
        Voxel side of the connected free space [m].
    position_tolerance : float
        Reach tolerance on DiffT [m].
    orientation_tolerance_deg : float
        Reach tolerance on DiffR [deg].
    """

    side: Side = Side.RIGHT
    weights: PlacementWeights = field(default_factory=PlacementWeights)
    population: int = 40
    generations: int = 40
    max_arm_attempts: int = 80
    max_checks: int = 400
    octree_depth: int = 4
    samples_per_segment: int = 8
    heading_step_deg: float = 15.0
    forecast: int = 8000
    voxel: float = 0.05
    position_tolerance: float = 0.005
    orientation_tolerance_deg: float = 3.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "side", Side.parse(self.side))
        for name in ("population", "generations", "max_arm_attempts", "max_checks"):
            if int(getattr(self, name)) < 1:
                raise InputError(f"PostureSettings.{name} must be >= 1, got {getattr(self, name)}")
        for name in ("position_tolerance", "orientation_tolerance_deg", "voxel"):
            v = getattr(self, name)
            if not (np.isfinite(v) and v > 0):
                raise InputError(f"PostureSettings.{name} must be a finite number > 0, got {v!r}")
        if not (np.isfinite(self.heading_step_deg) and 0 < self.heading_step_deg <= 180):
            step = self.heading_step_deg
            raise InputError(f"PostureSettings.heading_step_deg must be in (0, 180], got {step!r}")


@dataclass(frozen=True, eq=False)
class PostureResult:
    """A solved maintenance posture and its figures.

    Attributes
    ----------
    motion : Motion
        The whole-body pose (one frame), world frame.
    scene : Scene
    library_posture : str
    placement : Candidate
    arm : ArmSolveResult
    check : PostureCheck
        The full-body check of the final pose (contacts, joint limits, balance).
    reba : REBAResult
    rula : RULAResult
    reached : bool
        Hand within the tolerances of the target frame and the check passed.
    reason : str
        When not reached: ``"enclosed"``, ``"out of reach"`` or ``"only with contact"``.
    solve_time_s : float
    space : FreeSpace
        The octree free space around the target.
    attempts : list of dict
        Each placement whose arm was tried, in order.
    settings : PostureSettings
    seed : int
    worker : str
    """

    motion: Motion
    scene: Scene
    library_posture: str
    placement: Candidate
    arm: ArmSolveResult
    check: PostureCheck
    reba: REBAResult
    rula: RULAResult
    reached: bool
    reason: str
    solve_time_s: float
    space: FreeSpace
    attempts: list[dict[str, Any]]
    settings: PostureSettings
    seed: int
    worker: str = ""

    @property
    def collision(self) -> CollisionReport:
        """Exact contacts and clearance of the final pose."""
        return self.check.collision

    @property
    def status(self) -> str:
        """``"reached"`` or ``"unreachable"``."""
        return "reached" if self.reached else "unreachable"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures (the ``vhuman posture --json`` output)."""
        clearance = self.collision.min_clearance
        margin = self.check.balance.margin
        return {
            "scene": self.scene.name,
            "worker": self.worker,
            "seed": self.seed,
            "status": self.status,
            "reached": self.reached,
            "reason": self.reason or None,
            "valid": self.check.valid,
            "collisions": self.collision.n_contacts,
            "contacts": [c.to_dict() for c in self.collision.contacts],
            "min_clearance_mm": 1e3 * clearance if np.isfinite(clearance) else None,
            "closest": [self.collision.closest_segment, self.collision.closest_solid],
            "balance_margin_mm": 1e3 * margin if np.isfinite(margin) else None,
            "joint_limit_violation_deg": float(np.degrees(self.check.limit_violation)),
            "check": self.check.to_dict(),
            "reach_position_error_mm": 1e3 * self.arm.diff_t,
            "reach_orientation_error_deg": float(np.degrees(self.arm.diff_r)),
            "reba_score": int(self.reba.score[0]),
            "reba_action_level": int(self.reba.action_level[0]),
            "reba_risk": self.reba.risk[0],
            "reba_table_a": int(self.reba.table_a[0]),
            "rula_score": int(self.rula.score[0]),
            "rula_action_level": int(self.rula.action_level[0]),
            "library_posture": self.library_posture,
            "joint_comfort": self.arm.comfort,
            "solve_time_s": self.solve_time_s,
            "placement": self.placement.to_dict(),
            "arm": self.arm.to_dict(),
            "free_volume_m3": self.space.free_volume,
            "attempts": self.attempts,
            "settings": {
                "side": self.settings.side,
                **self.settings.weights.to_dict(),
                "population": self.settings.population,
                "generations": self.settings.generations,
                "max_arm_attempts": self.settings.max_arm_attempts,
                "heading_step_deg": self.settings.heading_step_deg,
                "position_tolerance_mm": 1e3 * self.settings.position_tolerance,
                "orientation_tolerance_deg": self.settings.orientation_tolerance_deg,
            },
        }


@dataclass
class _Best:
    """The valid posture nearest the target so far (the unreachable answer)."""

    key: tuple[float, ...] = (np.inf,)
    found: tuple[Candidate, ArmSolveResult, PostureCheck] | None = None

    def offer(self, cand: Candidate, arm: ArmSolveResult, chk: PostureCheck) -> None:
        key = (0.0 if chk.valid else 1.0, float(chk.collision.n_contacts), arm.diff_t, arm.diff_r)
        if key < self.key:
            self.key, self.found = key, (cand, arm, chk)


def _ik_arm(setting: ArmSetting, q: NDArray[np.float64], n_tried: int) -> ArmSolveResult:
    """An ArmSolveResult of a closed-form IK arm (on the target)."""
    comfort = float(arm_discomfort(anatomical_angles(q[None]))[0])
    p, rot = setting.hand_frames(q)
    t, r = access_errors(p, rot, setting.target)
    f = np.array([[comfort, float(r) + ACCESS_WEIGHT * float(t)]])
    return ArmSolveResult(
        q=q,
        comfort=comfort,
        diff_t=float(t),
        diff_r=float(r),
        collision_ratio=0.0,
        reached=True,
        pareto_f=f,
        pareto_q=q[None],
        history=np.zeros((0, 2)),
        evaluations=int(n_tried),
    )


def solve_posture(
    scene: Scene,
    skeleton: Skeleton | None = None,
    *,
    library: PostureLibrary | None = None,
    settings: PostureSettings | None = None,
    seed: int = 0,
    world: CollisionWorld | None = None,
    worker: str = "",
    exclude: Sequence[Candidate] = (),
) -> PostureResult:
    """Find a valid, comfortable whole-body posture whose hand reaches the target.

    Parameters
    ----------
    scene : Scene
        The maintenance scene (its target is the working hand's frame).
    skeleton : Skeleton, optional
        Default: the 95th-percentile Chinese male of GB/T 10000 (1.775 m).
    library : PostureLibrary, optional
        Default: the built-in library posed on ``skeleton``.
    settings : PostureSettings, optional
    seed : int
        Seed of the arm NSGA-II (the same seed gives the same posture).
    world : CollisionWorld, optional
        ``scene`` already registered (saves its set-up).
    worker : str, optional
        Label stored in the result.
    exclude : sequence of Candidate
        Placements passed over, each with the placements of its posture near it (within
        :data:`~vhuman.posture.search.CLUSTER_DISTANCE` and
        :data:`~vhuman.posture.search.CLUSTER_ANGLE`, :func:`~vhuman.posture.search.near`):
        the search goes on to the next-ranked ones (a caller's own test, such as getting
        down to the posture, having refused them).

    Returns
    -------
    PostureResult
        ``reached`` False (not an error) when no valid posture reaches the
        target; the result then holds the reason and the valid posture whose
        hand comes nearest, with its distance.

    Raises
    ------
    InputError
        For a scene that is not a Scene or settings out of range.
    """
    t0 = time.perf_counter()
    if not isinstance(scene, Scene):
        raise InputError(f"scene must be a Scene, got {type(scene).__name__}")
    cfg = PostureSettings() if settings is None else settings
    sk = standard_humanoid(sex="male", percentile=95) if skeleton is None else skeleton
    side = Side.parse(cfg.side)
    body = BodyModel.from_skeleton(sk, samples_per_segment=cfg.samples_per_segment)
    lib = load_library(sk, body=body) if library is None else library
    world = CollisionWorld(scene, window=GRID_WINDOW) if world is None else world
    length = arm_length(sk, side.value)
    space = free_space(world, length, max_depth=cfg.octree_depth)
    reach_space = reachable_space(world, spacing=cfg.voxel)
    probe = ArmSetting(body, np.zeros(3), lib.postures[0].local_rotations, side, scene.target)
    arm_segments = probe.segments
    others = [n for n in body.names if n not in arm_segments]
    reach = length  # shoulder to the hand end, arm straight
    tol_r = np.radians(cfg.orientation_tolerance_deg)
    enclosed = reach_space.enclosed(scene.target.position)
    ranked = (
        []
        if enclosed
        else placement_candidates(
            world,
            body,
            lib,
            reach_space,
            side,
            reach=reach,
            arm_length=length,
            heading_step=np.radians(cfg.heading_step_deg),
            weights=cfg.weights,
            exclude=arm_segments,
        )
    )
    if ranked and len(exclude):
        passed_over = near(ranked, exclude)
        ranked = [c for c, out in zip(ranked, passed_over, strict=True) if not out]
    if ranked:
        # Placements where a usable arm exists (batched IK forecast, in chunks of 500
        # cheapest first, until 20 are found or ``forecast`` are seen) go first.
        usable = np.zeros(len(ranked), dtype=bool)
        for start in range(0, min(cfg.forecast, len(ranked)), 500):
            chunk = ranked[start : start + 500]
            usable[start : start + len(chunk)] = arm_solutions(world, body, chunk, side) > 0
            if usable.sum() >= 20:
                break
        ranked = [c for c, u in zip(ranked, usable, strict=True) if u] + [
            c for c, u in zip(ranked, usable, strict=True) if not u
        ]
    attempts: list[dict[str, Any]] = []
    best = _Best()
    chosen: tuple[Candidate, ArmSolveResult, PostureCheck] | None = None
    trunk_free: list[Candidate] = []
    n_arm = 0
    checks = 0
    for cand in diverse(ranked, limit=cfg.max_checks):
        if len(attempts) >= cfg.max_arm_attempts or checks >= cfg.max_checks:
            break
        checks += 1
        if world.check(
            body, cand.root_position, cand.local_rotations, segments=others
        ).in_collision:
            continue
        trunk_free.append(cand)
        setting = ArmSetting(body, cand.root_position, cand.local_rotations, side, scene.target)
        q, ok = setting.ik_seeds()
        entry: dict[str, Any] = {"placement": cand.to_dict(), "ik_solutions": int(ok.sum())}
        attempts.append(entry)
        if not ok.any():
            continue
        q = q[ok]
        q = q[np.argsort(arm_discomfort(anatomical_angles(q)), kind="stable")]
        poses = setting.poses(q)
        in_limits = sk.limit_violation(poses).max(axis=-1) <= 1e-3
        roots = np.broadcast_to(cand.root_position, (len(q), 3))
        free = world.collision_ratio(body, roots, poses, segments=arm_segments) <= 0.0
        n_arm += int(in_limits.sum())
        entry["within_limits"] = int(in_limits.sum())
        entry["free_on_grid"] = int((in_limits & free).sum())
        for i in np.flatnonzero(in_limits & free)[:4]:
            chk = check_posture(world, body, cand.root_position, poses[i])
            arm = _ik_arm(setting, q[i], len(q))
            best.offer(cand, arm, chk)
            if chk.valid:
                chosen = (cand, arm, chk)
                break
        entry["valid"] = chosen is not None
        if chosen is not None:
            break
    reason = ""
    if chosen is not None:
        chosen = _refine(body, world, chosen, side, scene, cfg, seed, tol_r)
    else:
        reason = "enclosed" if enclosed else ("only with contact" if n_arm else "out of reach")
        chosen = _nearest_valid(
            body, world, lib, reach_space, side, scene, cfg, seed, tol_r, trunk_free, best, others
        )
    cand, arm, chk = chosen
    setting = ArmSetting(body, cand.root_position, cand.local_rotations, side, scene.target)
    rotations = setting.poses(arm.q)
    motion = Motion(sk, 30.0, cand.root_position[None], rotations[None])
    posture = lib.postures[cand.index]
    reba = assess_reba(motion, REBAConditions(sitting=posture.sitting))
    rula = assess_rula(motion, RULAConditions(seated_supported=posture.sitting))
    reached = bool(not reason and arm.reached and chk.valid)
    return PostureResult(
        motion=motion,
        scene=scene,
        library_posture=cand.posture,
        placement=cand,
        arm=arm,
        check=chk,
        reba=reba,
        rula=rula,
        reached=reached,
        reason=reason,
        solve_time_s=time.perf_counter() - t0,
        space=space,
        attempts=attempts,
        settings=cfg,
        seed=int(seed),
        worker=worker,
    )


def _nsga2_arm(
    body: BodyModel,
    world: CollisionWorld,
    cand: Candidate,
    side: Side,
    scene: Scene,
    cfg: PostureSettings,
    seed: int,
    tol_r: float,
) -> tuple[ArmSolveResult, PostureCheck]:
    setting = ArmSetting(body, cand.root_position, cand.local_rotations, side, scene.target)
    arm = solve_arm_nsga2(
        setting,
        world,
        population=cfg.population,
        generations=cfg.generations,
        seed=seed,
        position_tolerance=cfg.position_tolerance,
        orientation_tolerance=tol_r,
    )
    return arm, check_posture(world, body, cand.root_position, setting.poses(arm.q))


def _refine(
    body: BodyModel,
    world: CollisionWorld,
    chosen: tuple[Candidate, ArmSolveResult, PostureCheck],
    side: Side,
    scene: Scene,
    cfg: PostureSettings,
    seed: int,
    tol_r: float,
) -> tuple[Candidate, ArmSolveResult, PostureCheck]:
    """NSGA-II's arm on the reaching placement, if it reaches, passes the check and is more
    comfortable than the IK arm."""
    cand, ik_arm, _ = chosen
    arm, chk = _nsga2_arm(body, world, cand, side, scene, cfg, seed, tol_r)
    if arm.reached and chk.valid and arm.comfort <= ik_arm.comfort:
        return cand, arm, chk
    return chosen


def _nearest_valid(
    body: BodyModel,
    world: CollisionWorld,
    lib: PostureLibrary,
    space: ReachableSpace,
    side: Side,
    scene: Scene,
    cfg: PostureSettings,
    seed: int,
    tol_r: float,
    trunk_free: list[Candidate],
    best: _Best,
    others: list[str],
) -> tuple[Candidate, ArmSolveResult, PostureCheck]:
    """The valid posture whose hand comes nearest the target (the unreachable answer)."""
    pool = list(trunk_free)
    if len(pool) < 3:
        # Out of reach or enclosed: placements farther away, in the connected free space.
        probe = ArmSetting(body, np.zeros(3), lib.postures[0].local_rotations, side, scene.target)
        length = arm_length(lib.skeleton, side.value)
        far = placement_candidates(
            world,
            body,
            lib,
            space,
            side,
            reach=length,
            arm_length=length,
            distances=tuple(np.linspace(1.0, 4.0, 13)),
            heading_step=np.radians(30.0),
            weights=cfg.weights,
            exclude=probe.segments,
        )
        # Nearest the target first, grid-free before the rest.
        far.sort(key=lambda c: (c.collision_ratio > 0.0, c.shoulder_distance))
        for cand in diverse(far, limit=60):
            if not world.check(
                body, cand.root_position, cand.local_rotations, segments=others
            ).in_collision:
                pool.append(cand)
            if len(pool) >= 6:
                break
    pool.sort(key=lambda c: c.shoulder_distance)
    rng = np.random.default_rng(seed)
    for cand in pool[:6]:
        _toward_target(body, world, cand, side, scene, cfg, tol_r, best)
        _sampled_arm(body, world, cand, side, scene, cfg, tol_r, best, rng)
    if best.found is None or not best.found[2].valid:
        for cand in pool[:2]:
            arm, chk = _nsga2_arm(body, world, cand, side, scene, cfg, seed, tol_r)
            best.offer(cand, arm, chk)
    if best.found is None:
        cand = pool[0] if pool else _fallback_candidate(lib, scene)
        arm, chk = _nsga2_arm(body, world, cand, side, scene, cfg, seed, tol_r)
        best.offer(cand, arm, chk)
    assert best.found is not None
    return best.found


def _sampled_arm(
    body: BodyModel,
    world: CollisionWorld,
    cand: Candidate,
    side: Side,
    scene: Scene,
    cfg: PostureSettings,
    tol_r: float,
    best: _Best,
    rng: np.random.Generator,
    n: int = 2000,
) -> None:
    """Offer the valid arm, among ``n`` uniform samples of the arm's joint ranges, whose hand
    comes nearest the target (within the skeleton's limits, free on the grid, then checked)."""
    setting = ArmSetting(body, cand.root_position, cand.local_rotations, side, scene.target)
    lo, hi = setting.model.limits[:, 0], setting.model.limits[:, 1]
    q = lo + rng.uniform(size=(n, 7)) * (hi - lo)
    poses = setting.poses(q)
    keep = body.skeleton.limit_violation(poses).max(axis=-1) <= 1e-3
    roots = np.broadcast_to(cand.root_position, (n, 3))
    keep &= world.collision_ratio(body, roots, poses, segments=setting.segments) <= 0.0
    p, _ = setting.hand_frames(q)
    dist = np.linalg.norm(p - scene.target.position, axis=-1)
    for i in np.flatnonzero(keep)[np.argsort(dist[keep])][:5]:
        chk = check_posture(world, body, cand.root_position, poses[i])
        if chk.valid:
            best.offer(cand, _arm_result(setting, q[i], tol_r, cfg), chk)
            return


def _toward_target(
    body: BodyModel,
    world: CollisionWorld,
    cand: Candidate,
    side: Side,
    scene: Scene,
    cfg: PostureSettings,
    tol_r: float,
    best: _Best,
) -> None:
    """Offer the valid arms whose hand lies on the line from the shoulder to the target.

    Stand-in targets at 95 %, 85 %, … 35 % of the arm's reach along that line
    (or of the way, when nearer), with the target's orientation or with the
    fingers along the line: closed-form
    IK over 72 swivel angles, within the joint limits, free on the grid, then
    the full-body check; the first valid one per stand-in is offered.
    """
    setting = ArmSetting(body, cand.root_position, cand.local_rotations, side, scene.target)
    t = scene.target
    v = t.position - setting.shoulder
    dist = float(np.linalg.norm(v))
    reach = arm_length(body.skeleton, side.value)
    sk = body.skeleton
    u = v / dist
    # The hand's rest frame has the fingers along -z; a straight arm points them along u.
    axis = np.cross([0.0, 0.0, -1.0], u)
    angle = np.arctan2(np.linalg.norm(axis), -u[2])
    pointing = rotvec_to_quat(axis / max(np.linalg.norm(axis), 1e-12) * angle)
    for frac, rotation in itertools.product(
        (0.95, 0.85, 0.75, 0.65, 0.5, 0.35), (t.rotation, pointing)
    ):
        step = min(frac * reach, frac * dist)
        proxy = Target(setting.shoulder + u * step, rotation, t.approach, t.name)
        s = ArmSetting(body, cand.root_position, cand.local_rotations, side, proxy)
        q, ok = s.ik_seeds()
        if not ok.any():
            continue
        q = q[ok]
        poses = s.poses(q)
        keep = sk.limit_violation(poses).max(axis=-1) <= 1e-3
        roots = np.broadcast_to(cand.root_position, (len(q), 3))
        keep &= world.collision_ratio(body, roots, poses, segments=s.segments) <= 0.0
        for i in np.flatnonzero(keep)[:3]:
            chk = check_posture(world, body, cand.root_position, poses[i])
            if chk.valid:
                best.offer(cand, _arm_result(setting, q[i], tol_r, cfg), chk)
                return


def _arm_result(
    setting: ArmSetting, q: NDArray[np.float64], tol_r: float, cfg: PostureSettings
) -> ArmSolveResult:
    """The ArmSolveResult of one arm pose, reached when within the access tolerances."""
    res = _ik_arm(setting, q, 1)
    ok = bool(res.diff_t <= cfg.position_tolerance and res.diff_r <= tol_r)
    return replace(res, reached=ok)


def _fallback_candidate(lib: PostureLibrary, scene: Scene) -> Candidate:
    """The first library posture 1.5 m behind the target (against the approach)."""
    p = lib.postures[0]
    a = scene.target.approach[:2]
    back = -a / np.linalg.norm(a) if np.linalg.norm(a) > 1e-9 else np.array([-1.0, 0.0])
    xy = scene.target.position[:2] + 1.5 * back
    yaw = float(np.arctan2(-back[1], -back[0]))
    rot = p.local_rotations.copy()
    rot[0] = quat_multiply(euler_to_quat([0.0, 0.0, yaw], "xyz"), rot[0])
    root = np.array([xy[0], xy[1], p.root_position[2] + scene.floor])
    return Candidate(
        0, p.name, yaw, root, rot, float(np.linalg.norm(scene.target.position - root)), 1.0, np.inf
    )


def hand_frame_error(result: PostureResult) -> NDArray[np.float64]:
    """Position [m] and orientation [rad] error of the final hand frame, measured by FK."""
    from vhuman.posture.arm import access_errors

    side = Side.parse(result.settings.side)
    s = "r" if side is Side.RIGHT else "l"
    sk = result.motion.skeleton
    hand, wrist = sk.indices([f"{s}_hand", f"{s}_wrist"])
    p = result.motion.global_positions[0, hand]
    q = result.motion.global_rotations[0, wrist]
    t, r = access_errors(p, q, result.scene.target)
    return np.array([float(t), float(r)])
