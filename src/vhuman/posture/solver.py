"""The maintenance-posture solver of seed 001: library placement, then the arm by NSGA-II.

1. Free space: an octree over the cube of side L_arm around the target
   (:func:`vhuman.scene.free_space`); its free cells and a polar grid on the
   approach side give candidate neck positions.
2. Placement (greedy): every library posture at every candidate position and
   yaw, ranked by collision ratio + α·D_effective + β·V_comfort on the
   occupancy grid (:func:`~vhuman.posture.placement.rank_placements`).
3. Verification and arm: walking down the ranking, each placement is checked
   exactly with coal (all segments but the working arm); the first
   collision-free ones (at most ``max_arm_attempts``, mutually distinct) get
   their arm posed by NSGA-II (:func:`~vhuman.posture.arm.solve_arm_nsga2`).
   The first whose hand reaches the target within the tolerances with no
   contact anywhere is the answer; when none does (the whole-body refinement
   of the seed: the next placements and postures are tried), the attempt with
   the fewest contacts and then the smallest reach error is returned, flagged
   ``reached = False``, with its residual.
4. Scores: full REBA and RULA of the final pose (:mod:`vhuman.ergonomics`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.ergonomics import (
    REBAConditions,
    REBAResult,
    RULAConditions,
    RULAResult,
    assess_reba,
    assess_rula,
)
from vhuman.errors import InputError
from vhuman.posture.arm import ArmSetting, ArmSolveResult, solve_arm_nsga2
from vhuman.posture.library import PostureLibrary, load_library
from vhuman.posture.placement import (
    Placement,
    PlacementWeights,
    candidate_positions,
    rank_placements,
)
from vhuman.reaching import Side
from vhuman.scene import (
    BodyModel,
    CollisionReport,
    CollisionWorld,
    FreeSpace,
    Scene,
    arm_length,
    free_space,
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
    return standard_humanoid(sex=sex, percentile=int(pct))  # type: ignore[arg-type]


@dataclass(frozen=True)
class PostureSettings:
    """Parameters of :func:`solve_posture`.

    Parameters
    ----------
    side : {"right", "left"}
        The working arm.
    weights : PlacementWeights
        α, β, L_S and σ of the placement cost.
    population, generations : int
        Arm NSGA-II population size and generations.
    max_arm_attempts : int
        Collision-free placements whose arm is optimised before giving up.
    max_checks : int
        Exact collision checks of ranked placements before giving up.
    octree_depth : int
        Depth of the free-space octree (cells of L_arm / 2**depth).
    samples_per_segment : int
        Sample points per capsule for the placement's collision ratio.
    yaw_offsets_deg : tuple of float
        Turns added to the heading that faces the target.
    position_tolerance : float
        Reach tolerance on DiffT [m].
    orientation_tolerance_deg : float
        Reach tolerance on DiffR [deg].
    """

    side: str = "right"
    weights: PlacementWeights = field(default_factory=PlacementWeights)
    population: int = 40
    generations: int = 40
    max_arm_attempts: int = 6
    max_checks: int = 300
    octree_depth: int = 4
    samples_per_segment: int = 8
    yaw_offsets_deg: tuple[float, ...] = (-20.0, 0.0, 20.0)
    position_tolerance: float = 0.005
    orientation_tolerance_deg: float = 3.0

    def __post_init__(self) -> None:
        Side.parse(self.side)
        for name in ("population", "generations", "max_arm_attempts", "max_checks"):
            if int(getattr(self, name)) < 1:
                raise InputError(f"PostureSettings.{name} must be >= 1, got {getattr(self, name)}")
        if not (
            np.isfinite(self.position_tolerance)
            and self.position_tolerance > 0
            and np.isfinite(self.orientation_tolerance_deg)
            and self.orientation_tolerance_deg > 0
        ):
            raise InputError("PostureSettings tolerances must be finite numbers > 0")


@dataclass(frozen=True, eq=False)
class PostureResult:
    """A solved maintenance posture and its figures.

    Attributes
    ----------
    motion : Motion
        The whole-body pose (one frame), world frame.
    scene : Scene
    library_posture : str
    placement : Placement
    arm : ArmSolveResult
    collision : CollisionReport
        Exact contacts and clearance of the final pose.
    reba : REBAResult
    rula : RULAResult
    reached : bool
        Hand within the tolerances of the target frame.
    solve_time_s : float
    space : FreeSpace
        The octree free space around the target.
    attempts : list of dict
        Each placement whose arm was optimised, in order.
    settings : PostureSettings
    seed : int
    worker : str
    """

    motion: Motion
    scene: Scene
    library_posture: str
    placement: Placement
    arm: ArmSolveResult
    collision: CollisionReport
    reba: REBAResult
    rula: RULAResult
    reached: bool
    solve_time_s: float
    space: FreeSpace
    attempts: list[dict[str, Any]]
    settings: PostureSettings
    seed: int
    worker: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures (the ``vhuman posture --json`` output)."""
        clearance = self.collision.min_clearance
        return {
            "scene": self.scene.name,
            "worker": self.worker,
            "seed": self.seed,
            "status": "reached" if self.reached else "unreachable",
            "reached": self.reached,
            "collisions": self.collision.n_contacts,
            "contacts": [c.to_dict() for c in self.collision.contacts],
            "min_clearance_mm": 1e3 * clearance if np.isfinite(clearance) else None,
            "closest": [self.collision.closest_segment, self.collision.closest_solid],
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
                "position_tolerance_mm": 1e3 * self.settings.position_tolerance,
                "orientation_tolerance_deg": self.settings.orientation_tolerance_deg,
            },
        }


def _similar(a: Placement, b: Placement) -> bool:
    """Same posture within 6 cm and 12° of each other: an arm attempt would repeat itself."""
    gap = np.linalg.norm(a.root_position[:2] - b.root_position[:2])
    turn = abs(np.angle(np.exp(1j * (a.yaw - b.yaw))))
    return a.index == b.index and gap < 0.06 and turn < np.radians(12.0)


def solve_posture(
    scene: Scene,
    skeleton: Skeleton | None = None,
    *,
    library: PostureLibrary | None = None,
    settings: PostureSettings | None = None,
    seed: int = 0,
    world: CollisionWorld | None = None,
    worker: str = "",
) -> PostureResult:
    """Find a collision-free, comfortable whole-body posture whose hand reaches the target.

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

    Returns
    -------
    PostureResult
        ``reached`` False (not an error) when the hand cannot reach the target
        without contacts; the result then holds the best attempt and its residual.

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
    world = CollisionWorld(scene) if world is None else world
    length = arm_length(sk, side.value)
    space = free_space(world, length, max_depth=cfg.octree_depth)
    setting_tmp = ArmSetting(body, np.zeros(3), lib.postures[0].local_rotations, side, scene.target)
    arm_segments = setting_tmp.segments
    others = [n for n in body.names if n not in arm_segments]
    positions = candidate_positions(scene.target.position, scene.target.approach, space)
    ranked = rank_placements(
        world,
        body,
        lib,
        positions,
        arm_length=length,
        weights=cfg.weights,
        yaw_offsets=np.radians(cfg.yaw_offsets_deg),
        exclude=arm_segments,
    )
    tol_r = np.radians(cfg.orientation_tolerance_deg)
    tried: list[Placement] = []
    attempts: list[dict[str, Any]] = []
    best: tuple[tuple[float, ...], Placement, ArmSolveResult, CollisionReport] | None = None
    chosen = None
    checks = 0
    for placement in ranked:
        if checks >= cfg.max_checks or len(tried) >= cfg.max_arm_attempts:
            break
        if any(_similar(placement, t) for t in tried):
            continue
        checks += 1
        trunk = world.check(body, placement.root_position, placement.local_rotations,
                            segments=others)  # fmt: skip
        if trunk.in_collision:
            continue
        tried.append(placement)
        found = _pose_arm(body, world, placement, side, scene, cfg, seed, tol_r)
        arm, report = found
        attempts.append(
            {
                "placement": placement.to_dict(),
                **arm.to_dict(),
                "collisions": report.n_contacts,
            }
        )
        key = (float(report.n_contacts), 0.0 if arm.reached else 1.0, arm.diff_r + 10 * arm.diff_t)
        if best is None or key < best[0]:
            best = (key, placement, arm, report)
        if arm.reached and not report.in_collision:
            chosen = (placement, arm, report)
            break
    if chosen is None:
        if best is None:  # no collision-free torso: pose the arm on the cheapest placement
            placement = ranked[0]
            arm, report = _pose_arm(body, world, placement, side, scene, cfg, seed, tol_r)
            attempts.append({"placement": placement.to_dict(), **arm.to_dict(),
                             "collisions": report.n_contacts})  # fmt: skip
            best = ((0.0,), placement, arm, report)
        chosen = best[1:]
    placement, arm, report = chosen
    setting = ArmSetting(body, placement.root_position, placement.local_rotations, side,
                         scene.target)  # fmt: skip
    rotations = setting.poses(arm.q)
    motion = Motion(sk, 30.0, placement.root_position[None], rotations[None])
    posture = lib.postures[placement.index]
    reba = assess_reba(motion, REBAConditions(sitting=posture.sitting))
    rula = assess_rula(motion, RULAConditions(seated_supported=posture.sitting))
    reached = bool(arm.reached and not report.in_collision)
    return PostureResult(
        motion=motion,
        scene=scene,
        library_posture=placement.posture,
        placement=placement,
        arm=arm,
        collision=report,
        reba=reba,
        rula=rula,
        reached=reached,
        solve_time_s=time.perf_counter() - t0,
        space=space,
        attempts=attempts,
        settings=cfg,
        seed=int(seed),
        worker=worker,
    )


def _pose_arm(
    body: BodyModel,
    world: CollisionWorld,
    placement: Placement,
    side: Side,
    scene: Scene,
    cfg: PostureSettings,
    seed: int,
    tol_r: float,
) -> tuple[ArmSolveResult, CollisionReport]:
    setting = ArmSetting(body, placement.root_position, placement.local_rotations, side,
                         scene.target)  # fmt: skip
    arm = solve_arm_nsga2(
        setting,
        world,
        population=cfg.population,
        generations=cfg.generations,
        seed=seed,
        position_tolerance=cfg.position_tolerance,
        orientation_tolerance=tol_r,
    )
    report = world.check(body, placement.root_position, setting.poses(arm.q))
    return arm, report


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
