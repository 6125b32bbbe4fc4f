"""Every frame of a task motion checked: body–scene contacts, joint limits, joint speeds,
static balance, feet sliding on the floor (:func:`vhuman.skeleton.footskate.foot_slide`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.geometry import quat_angle
from vhuman.posture.check import static_balance
from vhuman.reaching import MAX_JOINT_SPEED
from vhuman.scene import BodyModel, CollisionWorld
from vhuman.skeleton import Motion, Skeleton
from vhuman.skeleton.footskate import SLIDE_TOLERANCE, foot_slide

__all__ = [
    "JOINT_SPEED_LIMIT",
    "LEG_JOINT_SPEED_LIMIT",
    "MotionCheck",
    "check_motion",
    "failed_checks",
    "joint_speed",
    "joint_speed_limits",
    "joint_speed_ratio",
]

JOINT_SPEED_LIMIT = MAX_JOINT_SPEED
"""Speed [rad/s] above which a joint turns too fast: the reach planner's bound on every arm
angle (:data:`vhuman.reaching.MAX_JOINT_SPEED`), applied to every joint but the knees and
ankles."""
LEG_JOINT_SPEED_LIMIT = float(np.radians(600.0))
"""Speed [rad/s] above which a knee or an ankle turns too fast: 10° a frame at 60 frames/s,
the most that the knees and ankles of the recorded CMU walks turn (the walking generator's
smoothness bound); a walking knee turns faster than the arm bound."""


@dataclass(frozen=True)
class MotionCheck:
    """The checks of each frame of a motion.

    Attributes
    ----------
    contacts : ndarray of int, shape (N,)
        Penetrating segment–solid pairs per frame (floor and ceiling included).
    min_clearance : ndarray, shape (N,)
        Smallest signed distance body–solids per frame [m].
    first_contact : dict or None
        ``{"time_s", "frame", "body_part", "solid", "depth_m"}`` of the first
        frame with a contact (its deepest pair), or None.
    limit_violation : ndarray, shape (N,)
        Largest excess of a joint angle over its range per frame [rad].
    balance_margin : ndarray, shape (N,)
        Distance of the centre of mass's floor projection inside (+) or outside
        (−) the support polygon per frame [m]; NaN where not checked.
    static : ndarray of bool, shape (N,)
        Frames where static balance is required (all but walking).
    foot_slide : ndarray, shape (N,)
        Largest horizontal travel [m] from this frame to the next of a foot
        point resting on the floor in both (0 where none rests; 0 at the last
        frame).
    joint_speed : ndarray, shape (N,)
        Largest joint angular speed from this frame to the next [rad/s]
        (:func:`joint_speed`; 0 at the last frame).
    joint_speed_ratio : ndarray, shape (N,)
        Largest joint speed over that joint's limit (:func:`joint_speed_ratio`; a
        frame over 1 has a joint too fast).
    """

    contacts: NDArray[np.int64]
    min_clearance: NDArray[np.float64]
    first_contact: dict[str, Any] | None
    limit_violation: NDArray[np.float64]
    balance_margin: NDArray[np.float64]
    static: NDArray[np.bool_]
    foot_slide: NDArray[np.float64]
    joint_speed: NDArray[np.float64]
    joint_speed_ratio: NDArray[np.float64]

    @property
    def frames_checked(self) -> int:
        """Number of frames checked."""
        return len(self.contacts)

    @property
    def unbalanced_frames(self) -> int:
        """Static frames whose centre of mass lies outside the support."""
        return int(np.sum(self.static & (self.balance_margin < 0.0)))

    @property
    def sliding(self) -> NDArray[np.bool_]:
        """Frames ``(N,)`` where a foot on the floor slides more than :data:`SLIDE_TOLERANCE`."""
        return self.foot_slide > SLIDE_TOLERANCE

    def passed(self, limit_tolerance: float = 1e-3) -> bool:
        """Whether every frame passes every check: no contact, no joint beyond its range (by
        more than ``limit_tolerance`` [rad]) or faster than its limit, no unbalanced frame,
        no foot sliding."""
        return not (
            np.any(self.contacts > 0)
            or np.any(self.limit_violation > limit_tolerance)
            or np.any(self.joint_speed_ratio > 1.0)
            or self.unbalanced_frames
            or np.any(self.sliding)
        )

    def to_dict(self, limit_tolerance: float = 1e-3) -> dict[str, Any]:
        """JSON-ready summary (``passed``: :meth:`passed`)."""
        clear = self.min_clearance[np.isfinite(self.min_clearance)]
        margin = self.balance_margin[self.static & np.isfinite(self.balance_margin)]
        return {
            "passed": self.passed(limit_tolerance),
            "frames_checked": self.frames_checked,
            "frames_in_contact": int(np.sum(self.contacts > 0)),
            "first_contact": self.first_contact,
            "min_clearance_m": float(clear.min()) if len(clear) else None,
            "joint_limit_violation_max_deg": float(np.degrees(self.limit_violation.max())),
            "frames_beyond_joint_limits": int(np.sum(self.limit_violation > limit_tolerance)),
            "static_frames": int(self.static.sum()),
            "static_frames_unbalanced": self.unbalanced_frames,
            "balance_margin_min_m": float(margin.min()) if len(margin) else None,
            "foot_slide_max_mm_per_frame": _max_mm(self.foot_slide[self.static]),
            "static_frames_feet_sliding": int(np.sum(self.static & self.sliding)),
            "walking_foot_slide_max_mm_per_frame": _max_mm(self.foot_slide[~self.static]),
            "walking_frames_feet_sliding": int(np.sum(~self.static & self.sliding)),
            "joint_speed_max_deg_s": float(np.degrees(self.joint_speed.max(initial=0.0))),
            "joint_speed_limit_deg_s": float(np.degrees(JOINT_SPEED_LIMIT)),
            "leg_joint_speed_limit_deg_s": float(np.degrees(LEG_JOINT_SPEED_LIMIT)),
            "frames_over_joint_speed": int(np.sum(self.joint_speed_ratio > 1.0)),
        }


def failed_checks(check: dict[str, Any]) -> str:
    """The checks beside contact that some frames fail, with their frame counts, in words.

    ``"every other check passed"`` where none fails.
    """
    failed = [
        f"{n} {what}"
        for n, what in (
            (check["frames_beyond_joint_limits"], "frames beyond joint ranges"),
            (check["frames_over_joint_speed"], "frames with a joint too fast"),
            (check["static_frames_unbalanced"], "frames unbalanced"),
            (
                check["static_frames_feet_sliding"] + check["walking_frames_feet_sliding"],
                "frames with feet sliding",
            ),
        )
        if n
    ]
    return ", ".join(failed) if failed else "every other check passed"


def _max_mm(slide: NDArray[np.float64]) -> float:
    return float(1e3 * slide.max()) if len(slide) else 0.0


def _speeds(motion: Motion) -> NDArray[np.float64]:
    """Angular speed ``(N, J)`` [rad/s] of each joint from each frame to the next (0 last)."""
    out = np.zeros((motion.n_frames, motion.skeleton.n_joints))
    if motion.n_frames > 1:
        q = motion.local_rotations
        out[:-1] = quat_angle(q[:-1], q[1:]) * motion.fps
    return out


def joint_speed(motion: Motion) -> NDArray[np.float64]:
    """Largest angular speed ``(N,)`` [rad/s] of any joint from each frame to the next.

    The angle of each joint's relative rotation between consecutive frames
    (its local rotation, so a joint's own turn, not its parent's) times the
    frame rate; 0 at the last frame.
    """
    return _speeds(motion).max(axis=-1)


def joint_speed_limits(skeleton: Skeleton) -> NDArray[np.float64]:
    """Speed limit ``(J,)`` [rad/s] of each joint: :data:`LEG_JOINT_SPEED_LIMIT` for knees
    and ankles (names ending in ``knee`` or ``ankle``), else :data:`JOINT_SPEED_LIMIT`."""
    leg = np.array([name.endswith(("knee", "ankle")) for name in skeleton.names])
    return np.where(leg, LEG_JOINT_SPEED_LIMIT, JOINT_SPEED_LIMIT)


def joint_speed_ratio(motion: Motion) -> NDArray[np.float64]:
    """Largest ``(N,)`` of each joint's speed (:func:`joint_speed`) over its own limit."""
    return (_speeds(motion) / joint_speed_limits(motion.skeleton)).max(axis=-1)


def check_motion(
    world: CollisionWorld, body: BodyModel, motion: Motion, static: NDArray[np.bool_]
) -> MotionCheck:
    """Check every frame of ``motion`` in ``world``.

    Parameters
    ----------
    world : CollisionWorld
    body : BodyModel
        The capsules of ``motion``'s skeleton.
    motion : Motion
        N frames.
    static : ndarray of bool, shape (N,)
        Frames whose static balance is checked: the centre of mass over the
        support polygon of the body points resting on the floor or on solids
        (:func:`vhuman.posture.check.static_balance`). Which points support is
        found from the pose alone, the same for every body part: the lowest
        line of each capsule where it lies within 4 cm of a surface below it,
        so a knee, a hand or the buttocks count while down there, and a foot
        stops counting once lifted higher.

    Returns
    -------
    MotionCheck
    """
    n = motion.n_frames
    roots, local = motion.root_positions, motion.local_rotations
    contacts = np.zeros(n, dtype=np.int64)
    clearance = np.full(n, np.inf)
    margin = np.full(n, np.nan)
    first: dict[str, Any] | None = None
    for k in range(n):
        report = world.check(body, roots[k], local[k])
        contacts[k] = report.n_contacts
        clearance[k] = report.min_clearance
        if first is None and report.in_collision:
            c = report.contacts[0]
            first = {
                "time_s": float(k / motion.fps),
                "frame": k,
                "body_part": c.segment,
                "solid": c.solid,
                "depth_m": float(c.depth),
            }
        if static[k]:
            margin[k] = static_balance(world, body, roots[k], local[k]).margin
    limits = motion.skeleton.limit_violation(local).max(axis=-1)
    slide = foot_slide(motion, world.scene.floor)
    speeds = _speeds(motion)
    return MotionCheck(
        contacts,
        clearance,
        first,
        limits,
        margin,
        np.asarray(static, bool),
        slide,
        speeds.max(axis=-1),
        (speeds / joint_speed_limits(motion.skeleton)).max(axis=-1),
    )
