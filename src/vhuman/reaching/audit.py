"""Measure a written reach frame by frame, whatever made it: collisions, limits, speeds.

:func:`audit_reach` reads only the `Motion` (e.g. a BVH file loaded back): it
poses the body's capsules (:class:`vhuman.scene.BodyModel`) at every frame to
find where the arm overlaps the trunk, pelvis, head or thighs, and recovers the
seven arm angles of Xia et al.'s (2021) arm from the joint positions and the
hand orientation (the swivel angle from shoulder, elbow and wrist, then the
eight closed-form branches of :func:`vhuman.reaching.arm_branches`). A frame
is within the joint limits when one of its branches is; speeds come from the
branch sequence that stays nearest frame to frame, with angle differences
wrapped to (−π, π].
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import InputError
from vhuman.geometry import quat_to_rotmat, rotmat_to_quat
from vhuman.reaching.arm import ArmModel, Side
from vhuman.reaching.clearance import DEFAULT_TOLERANCE, ArmBodyClearance
from vhuman.reaching.swivel import arm_branches, limit_violation, swivel_angle
from vhuman.skeleton import Motion, Skeleton

__all__ = ["LIMIT_TOLERANCE", "ReachAudit", "audit_reach", "wrap_to_pi"]

LIMIT_TOLERANCE = float(np.radians(0.05))
"""Joint-limit tolerance [rad] of :func:`audit_reach`: what a BVH round trip may move an angle."""

_VIOLATION_COST = 1e3  # rad of branch distance one radian of limit violation is worth


def wrap_to_pi(angle: NDArray[np.float64]) -> NDArray[np.float64]:
    """Angles [rad] wrapped to (−π, π]."""
    return np.pi - np.mod(np.pi - np.asarray(angle, dtype=np.float64), 2.0 * np.pi)


@dataclass(frozen=True)
class ReachAudit:
    """Figures of one reach measured from its motion.

    Attributes
    ----------
    frames : int
    collision_frames : int
        Frames where an arm capsule overlaps a body capsule by more than the tolerance.
    max_penetration_m : float
        Largest overlap [m] (negative: the smallest clearance).
    worst_pair : str
        ``"arm joint–body joint"`` of the largest overlap.
    limit_violation_frames : int
        Frames that no branch of the arm angles puts within the limits.
    max_limit_violation_deg : float
        Largest total limit violation of a frame's best branch [deg].
    max_joint_speed_rad_s : float
        Largest arm-angle speed [rad/s] (wrapped differences × fps).
    max_joint_step_deg : float
        Largest arm-angle change between two frames [deg] (continuity).
    max_swivel_step_deg : float
        Largest swivel change between two frames [deg] (wrapped).
    swivel_start_deg, swivel_end_deg : float
        Swivel angle of the first and last frame [deg], in (−180°, 180°] (right-arm sign).
    reconstruction_error_m : float
        Largest gap between the recovered arm angles' joint positions and the
        motion's [m] (0 up to rounding when the skeleton's arm is the 7-DOF arm).
    """

    frames: int
    collision_frames: int
    max_penetration_m: float
    worst_pair: str
    limit_violation_frames: int
    max_limit_violation_deg: float
    max_joint_speed_rad_s: float
    max_joint_step_deg: float
    max_swivel_step_deg: float
    swivel_start_deg: float
    swivel_end_deg: float
    reconstruction_error_m: float

    @property
    def clean(self) -> bool:
        """No self-collision frame and no joint-limit violation."""
        return self.collision_frames == 0 and self.limit_violation_frames == 0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures, with ``clean``."""
        return {**asdict(self), "clean": self.clean}


def _continuous_branches(candidates: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per frame the branch (8, T, 7) → (T, 7): in limits if any, else nearest the last frame's."""
    violation = limit_violation(candidates)  # (8, T)
    n = candidates.shape[1]
    chosen = np.empty((n, 7))
    k = int(np.argmin(violation[:, 0]))
    chosen[0] = candidates[k, 0]
    for t in range(1, n):
        step = np.abs(wrap_to_pi(candidates[:, t] - chosen[t - 1])).sum(axis=-1)
        k = int(np.argmin(_VIOLATION_COST * violation[:, t] + step))
        chosen[t] = candidates[k, t]
    return chosen


def _within_reach(
    model: ArmModel, hand: NDArray[np.float64], hand_q: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Hand points whose wrist centre a file round trip left a hair beyond the arm's reach."""
    along = model.hand * quat_to_rotmat(hand_q)[..., :, 2]
    wrist = hand + along
    dist = np.linalg.norm(wrist, axis=-1, keepdims=True)
    lo, hi = model.reach
    return wrist * np.clip(dist, lo, hi) / np.maximum(dist, 1e-12) - along


def audit_reach(
    motion: Motion,
    side: Side | str = Side.RIGHT,
    *,
    tolerance: float = DEFAULT_TOLERANCE,
    limit_tolerance: float = LIMIT_TOLERANCE,
    body: Skeleton | None = None,
) -> ReachAudit:
    """Measure every frame of a reach from its motion alone.

    Parameters
    ----------
    motion : Motion
        On a skeleton with the joints and capsules of
        :func:`vhuman.skeleton.standard_humanoid`.
    side : Side or {"right", "left"}
        The reaching arm.
    tolerance : float
        Capsule overlap [m] that counts as a collision (default
        :data:`~vhuman.reaching.clearance.DEFAULT_TOLERANCE`).
    limit_tolerance : float
        Joint-limit tolerance [rad] (default :data:`LIMIT_TOLERANCE`).
    body : Skeleton, optional
        The skeleton whose capsules to use, with the motion's joints in the
        same order (e.g. the standard humanoid for a BVH file read back,
        which carries no capsules); default the motion's own.

    Returns
    -------
    ReachAudit

    Raises
    ------
    InputError
        For an unknown side, a skeleton without the standard arm joints or
        capsules, a ``body`` with other joints, or a negative tolerance.
    """
    arm = Side.parse(side)
    if not (tolerance >= 0.0 and limit_tolerance >= 0.0):
        raise InputError(
            f"tolerance and limit_tolerance must be ≥ 0, got {tolerance}, {limit_tolerance}"
        )
    skel = motion.skeleton
    shapes = skel if body is None else body
    if shapes.names != skel.names:
        raise InputError(
            "body must have the motion's joints in the same order; the motion has "
            f"{len(skel.names)} joints ({', '.join(skel.names[:4])}, …)"
        )
    clearance = ArmBodyClearance.from_skeleton(shapes, arm)
    starts, ends = clearance.body.capsules(motion.root_positions, motion.local_rotations)
    depth = clearance.penetration_of_capsules(starts, ends)  # (T, 3, K)
    worst = np.unravel_index(int(np.argmax(depth)), depth.shape)
    collision_frames = int(np.sum(depth.max(axis=(1, 2)) > tolerance))

    s = "r" if arm is Side.RIGHT else "l"
    i_cl, i_sh, i_el, i_wr, i_hand = skel.indices(
        [f"{s}_clavicle", f"{s}_shoulder", f"{s}_elbow", f"{s}_wrist", f"{s}_hand"]
    )
    pos, rot = motion.global_positions, motion.global_rotations
    frame = quat_to_rotmat(rot[:, i_cl])  # (T, 3, 3): the shoulder frame's axes in the world
    local = np.einsum("tji,tkj->tki", frame, pos[:, [i_sh, i_el, i_wr, i_hand]] - pos[:, [i_sh]])
    hand_q = rotmat_to_quat(np.swapaxes(frame, -1, -2) @ quat_to_rotmat(rot[:, i_wr]))
    model = ArmModel.from_skeleton(skel, arm)
    phi = swivel_angle(local[:, 0], local[:, 1], local[:, 2])
    phi_right = -phi if arm is Side.LEFT else phi
    straight = ~np.isfinite(phi)  # a straight arm: every φ puts the elbow in the same place
    phi = np.where(straight, 0.0, phi)
    candidates = arm_branches(model, _within_reach(model, local[:, 3], hand_q), hand_q, phi)
    q = _continuous_branches(candidates)
    q_lim = limit_violation(candidates).min(axis=0)  # (T,): the best branch of each frame
    fk = model.forward(q)
    recon = np.stack([fk.elbow, fk.wrist, fk.hand], 1) - local[:, 1:]
    step = np.abs(wrap_to_pi(np.diff(q, axis=0)))
    swivel_step = np.abs(wrap_to_pi(np.diff(phi_right[~straight])))
    return ReachAudit(
        frames=motion.n_frames,
        collision_frames=collision_frames,
        max_penetration_m=float(depth[worst]),
        worst_pair=f"{clearance.arm_names[worst[1]]}–{clearance.body_names[worst[2]]}",
        limit_violation_frames=int(np.sum(q_lim > limit_tolerance)),
        max_limit_violation_deg=float(np.degrees(q_lim.max())),
        max_joint_speed_rad_s=float(step.max() * motion.fps) if step.size else 0.0,
        max_joint_step_deg=float(np.degrees(step.max())) if step.size else 0.0,
        max_swivel_step_deg=float(np.degrees(swivel_step.max())) if swivel_step.size else 0.0,
        swivel_start_deg=float(np.degrees(wrap_to_pi(phi_right[0]))),
        swivel_end_deg=float(np.degrees(wrap_to_pi(phi_right[-1]))),
        reconstruction_error_m=float(np.linalg.norm(recon, axis=-1).max()),
    )
