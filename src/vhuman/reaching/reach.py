"""Reach generation: minimum-jerk hand path, predicted swivel angle, closed-form arm IK.

The pipeline of Xia et al. (2021) on the standard humanoid, batched over frames:

1. the hand moves from its start pose to the target pose along a minimum-jerk
   path (orientation by slerp with the same time law);
2. at every frame a swivel predictor gives φ from the hand pose relative to
   the shoulder and the arm's segment lengths; where the predicted φ would
   leave the joint limits, put the arm into the body or turn a joint faster
   than the speed bound, the feasible φ nearest to it is taken, or the arm
   moves by minimum jerk in joint space (:mod:`vhuman.reaching.planning`);
   a reach with no feasible plan is refused with the reason, or reached with
   a trunk lean when that is allowed;
3. the closed-form IK gives the seven arm angles, which become the local
   rotations of the skeleton's shoulder, elbow and wrist (forearm pronation
   goes to the wrist, the elbow being a hinge); every other joint keeps its
   rest pose, the spine and chest aside when the trunk leans;
4. the figures are measured on the motion (:func:`vhuman.reaching.audit_reach`).

Hand orientations
-----------------
Orientations are hand frames in the body frame of the standing character
(x forward, y left, z up), whose identity is the anatomical position (arm
hanging, hand pointing down along its −z axis, palm forward): the convention
of :attr:`ArmPose.hand_orientation`. :func:`hand_orientation_from_rpy` offers
the friendlier roll-pitch-yaw about a hand that points **forward with the palm
down**.

References
----------
Xia, Z., et al. (2021). Human-like reaching motion of a virtual human arm
(minimum jerk and multilayer perceptron).
Flash, T., & Hogan, N. (1985). The coordination of arm movements.
J. Neuroscience 5(7), 1688–1703.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.spatial.transform import Rotation

from vhuman.animation.easing import Easing, ease
from vhuman.data import shipped_path
from vhuman.errors import InputError
from vhuman.geometry import quat_angle, quat_slerp, quat_to_rotmat, rotmat_to_quat
from vhuman.geometry.quaternion import as_quat_array
from vhuman.reaching.arm import ArmModel, Side
from vhuman.reaching.audit import audit_reach, wrap_to_pi
from vhuman.reaching.clearance import ArmBodyClearance
from vhuman.reaching.dataset import CMU_HAND_TO_FOREARM, cmu_hand_end, task_features
from vhuman.reaching.minimum_jerk import _positive
from vhuman.reaching.planning import (
    MAX_JOINT_SPEED,
    PLAN_MARGIN,
    ArmPath,
    BodyCapsules,
    joint_space_paths,
    predicted_paths,
    refusal,
    swivel_grid,
    swivel_paths,
)
from vhuman.reaching.predictors import SwivelPredictor, load_predictor
from vhuman.reaching.swivel import (
    UP,
    _reference_direction,
    arm_branches,
    limit_violation,
    swivel_angle,
)
from vhuman.skeleton import Motion, Skeleton, standard_humanoid
from vhuman.skeleton.motion import frame_count

__all__ = [
    "DEFAULT_MODELS",
    "REACH_MODEL",
    "READY_ARM_ANGLES",
    "TRUNK_LEANS_DEG",
    "ReachPlan",
    "ReachResult",
    "arm_motion",
    "default_predictor",
    "generate_reach",
    "hand_orientation_from_rpy",
    "natural_orientation",
    "plan_reaches",
    "pointing_orientation",
]

DEFAULT_MODELS = {
    "ensemble": "swivel_ensemble.npz",
    "mlp-deep": "swivel_mlp_deep.npz",
    "mlp-shape": "swivel_mlp_shape.npz",
    "mlp": "swivel_mlp.npz",
    "lsq": "swivel_lsq.npz",
}
"""Shipped swivel predictors (files in ``vhuman/data/models``), all fit on the CMU training
trials in the thorax frame: the mean of gradient boosting and a 2 × 128 ReLU MLP on each of
the swivel-frame features (:func:`vhuman.reaching.swivel_frame_features`) and the scale-free
wrist features (:func:`vhuman.reaching.wrist_features`) and a 2 × 128 ReLU MLP on the
arm-shape features (:func:`vhuman.reaching.shape_features`), chosen by trial-grouped
cross-validation in ``benchmarks/swivel.py``; a deeper MLP (rotation-matrix input, 2 × 128
units); an MLP on the rotation matrix and arm-shape cues (:func:`vhuman.reaching.shape_features`,
2 × 64 ReLU units); Xia et al.'s (2021) MLP (8 → 40 → 2) and least squares. Reaches use
:data:`REACH_MODEL`."""

REACH_MODEL = "mlp-deep"
"""The shipped predictor reaches use by default (a key of :data:`DEFAULT_MODELS`)."""

_MIRROR = np.array([1.0, -1.0, 1.0])
# Anatomical hand frame → hand pointing forward (+x), palm down (−z), thumb left
# (+y, medial for the right hand): a half turn about (1, 0, −1)/√2.
_FORWARD_PALM_DOWN = np.array([[0.0, 0.0, -1.0], [0.0, -1.0, 0.0], [-1.0, 0.0, 0.0]])


def default_predictor(kind: str = REACH_MODEL) -> SwivelPredictor:
    """A shipped swivel predictor, trained on the CMU training trials.

    Parameters
    ----------
    kind : {"ensemble", "mlp-deep", "mlp-shape", "mlp", "lsq"}

    Raises
    ------
    InputError
        For an unknown kind (the message lists the shipped ones).
    """
    if kind not in DEFAULT_MODELS:
        raise InputError(f"kind must be one of {sorted(DEFAULT_MODELS)}, got {kind!r}")
    return load_predictor(shipped_path("models", DEFAULT_MODELS[kind]))


def _arm_frame(matrix: NDArray[np.float64], side: Side) -> NDArray[np.float64]:
    """A right-hand frame mirrored to ``side`` (left: ``M R M``)."""
    return _MIRROR[:, None] * matrix * _MIRROR if side is Side.LEFT else matrix


def hand_orientation_from_rpy(rpy: ArrayLike, side: Side | str = Side.RIGHT) -> NDArray[np.float64]:
    """Hand orientation from roll, pitch and yaw about a forward, palm-down hand.

    ``R = Rz(yaw) · Ry(pitch) · Rx(roll) · R_forward`` with ``R_forward`` the
    hand pointing forward (+x) with the palm down; yaw turns it to the left,
    positive pitch tilts it down, roll turns it about its pointing axis
    (positive roll turns a right palm inwards). The left hand uses the mirror
    image of ``R_forward`` (its thumb points right).

    Parameters
    ----------
    rpy : array_like, shape (..., 3)
        Roll, pitch, yaw [rad].
    side : Side or {"right", "left"}

    Returns
    -------
    ndarray, shape (..., 4)
        Hand orientations (w, x, y, z) in the body frame (anatomical = identity).

    Raises
    ------
    InputError
        For a shape other than (..., 3), NaN, or an unknown side.
    """
    arm = Side.parse(side)
    rpy = np.asarray(rpy, dtype=np.float64)
    if rpy.ndim == 0 or rpy.shape[-1] != 3:
        raise InputError(f"rpy must have shape (..., 3) [rad], got {rpy.shape}")
    if not np.all(np.isfinite(rpy)):
        raise InputError("rpy contains NaN or infinite values")
    turn = Rotation.from_euler("ZYX", rpy.reshape(-1, 3)[:, ::-1]).as_matrix()
    matrix = turn @ _arm_frame(_FORWARD_PALM_DOWN, arm)
    return rotmat_to_quat(matrix.reshape(*rpy.shape[:-1], 3, 3))


def pointing_orientation(
    direction: ArrayLike, side: Side | str = Side.RIGHT
) -> NDArray[np.float64]:
    """The hand pointing along ``direction`` with the thumb up (a hand-shake grasp).

    Parameters
    ----------
    direction : array_like, shape (3,)
        Pointing direction in the body frame (any length > 0).
    side : Side or {"right", "left"}

    Returns
    -------
    ndarray, shape (4,)
        Hand orientation (w, x, y, z), see :func:`hand_orientation_from_rpy`.

    Raises
    ------
    InputError
        For a zero or non-finite direction.
    """
    arm = Side.parse(side)
    d = np.asarray(direction, dtype=np.float64)
    if d.shape != (3,) or not np.all(np.isfinite(d)) or np.linalg.norm(d) == 0.0:
        raise InputError(f"direction must be a finite non-zero 3-vector, got {d.tolist()}")
    yaw = np.arctan2(d[1], d[0])
    pitch = -np.arctan2(d[2], np.hypot(d[0], d[1]))
    roll = np.pi / 2 if arm is Side.RIGHT else -np.pi / 2
    return hand_orientation_from_rpy([roll, pitch, yaw], arm)


def natural_orientation(
    model: ArmModel, hand: ArrayLike, swivel: ArrayLike = 0.0
) -> NDArray[np.float64]:
    """Hand orientations in line with the forearm at mid pronation, for a hand target.

    The arm is taken as two links, the upper arm and the forearm with the hand
    in line (``d_ew + a``), with the elbow at swivel φ about the
    shoulder→hand axis (φ = 0: the elbow at its lowest); the wrist is
    straight (``q6 = q7 = 0``) and the forearm half pronated (``q5 = 90°``,
    the thumb up when the forearm points forward, as in
    :data:`READY_ARM_ANGLES`). The upper-arm angles are those of the
    closed-form branch nearest the joint limits.

    Parameters
    ----------
    model : ArmModel
    hand : array_like, shape (3,)
        Hand end target in the shoulder frame [m].
    swivel : array_like, shape (...)
        Elbow swivel φ about the shoulder→hand axis [rad], the arm's own sign.

    Returns
    -------
    ndarray, shape (..., 4)
        Hand orientations (w, x, y, z), body frame.

    Raises
    ------
    InputError
        For a target out of the reach of the extended arm (the message gives
        the reachable distances), or NaN.
    """
    return _natural_postures(model, hand, swivel)[0]


def _natural_postures(
    model: ArmModel, hand: ArrayLike, swivel: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Orientations (..., 4) and arm angles (..., 7) of :func:`natural_orientation`."""
    target = _check_point(hand, "hand")
    phi = np.asarray(swivel, dtype=np.float64)
    if not np.all(np.isfinite(phi)):
        raise InputError("swivel contains NaN or infinite values")
    d1, d2 = model.upper_arm, model.forearm + model.hand
    dist = float(np.linalg.norm(target))
    if not abs(d1 - d2) <= dist <= d1 + d2:
        raise InputError(
            f"hand target {np.round(target, 4).tolist()} m is {dist:.3f} m from the "
            f"{model.side.value} shoulder; the hand reaches {abs(d1 - d2):.3f}–{d1 + d2:.3f} m"
        )
    axis = target / dist
    # Elbow on the circle of the triangle (d1, d2, dist), at swivel φ about the hand axis.
    along = (d1**2 - d2**2 + dist**2) / (2.0 * dist)
    radius = np.sqrt(max(d1**2 - along**2, 0.0))
    ref = _reference_direction(axis, np.asarray(UP))
    turn = np.cos(phi)[..., None] * ref + np.sin(phi)[..., None] * np.cross(axis, ref)
    elbow = axis * along + radius * turn  # (..., 3)
    fore = target - elbow
    fore = fore / np.linalg.norm(fore, axis=-1, keepdims=True)
    # Any hand frame pointing along the forearm (its −z) puts the wrist on the forearm line.
    side_axis = np.cross(fore, np.where(np.abs(fore[..., :1]) < 0.9, [1.0, 0, 0], [0, 1.0, 0]))
    side_axis /= np.linalg.norm(side_axis, axis=-1, keepdims=True)
    frame = np.stack([side_axis, np.cross(-fore, side_axis), -fore], axis=-1)
    wrist = target - model.hand * fore
    phi_w = swivel_angle(np.zeros(3), elbow, wrist)
    branches = arm_branches(model, target, rotmat_to_quat(frame), np.nan_to_num(phi_w))
    branches[..., 4:] = [np.pi / 2.0, 0.0, 0.0]
    best = np.argmin(limit_violation(branches), axis=0)
    q = np.take_along_axis(branches, best[None, ..., None], axis=0)[0]
    return model.forward(q).hand_orientation, q


@dataclass(frozen=True)
class ReachResult:
    """A generated reach and the figures measured on it.

    Attributes
    ----------
    motion : Motion
        The whole body; only the reaching arm moves.
    side : Side
    target_position : ndarray, shape (3,)
        Hand end target in the world [m].
    target_orientation : ndarray, shape (4,)
        Hand orientation target (w, x, y, z), body frame.
    hand_path : ndarray, shape (T, 3)
        Planned minimum-jerk hand positions in the world [m].
    arm_angles : ndarray, shape (T, 7)
        Xia et al.'s (2021) seven arm angles [rad].
    swivel_predicted : ndarray, shape (T,)
        φ from the predictor [rad], anchored to the start posture (see
        :class:`ReachPlan`), the arm's own sign.
    swivel : ndarray, shape (T,)
        φ of the arm angles [rad], the arm's own sign.
    feasible : ndarray of bool, shape (T,)
        Whether the frame's arm angles are within the joint limits.
    figures : dict
        The measured figures of :meth:`to_dict`.
    """

    motion: Motion
    side: Side
    target_position: NDArray[np.float64]
    target_orientation: NDArray[np.float64]
    hand_path: NDArray[np.float64]
    arm_angles: NDArray[np.float64]
    swivel_predicted: NDArray[np.float64]
    swivel: NDArray[np.float64]
    feasible: NDArray[np.bool_]
    figures: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready figures (the `vhuman reach --json` output)."""
        return {
            "arm": self.side.value,
            "frames": self.motion.n_frames,
            "fps": self.motion.fps,
            "duration_s": self.motion.duration,
            "target_m": self.target_position.tolist(),
            **self.figures,
        }


def _check_point(x: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(x, dtype=np.float64)
    if arr.shape != (3,):
        raise InputError(f"{name} must be 3 numbers (x, y, z) [m], got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} contains NaN or infinite values: {arr.tolist()}")
    return arr


def _check_reachable(
    model: ArmModel, shoulder: NDArray[np.float64], hand: NDArray[np.float64], q_hand: NDArray
) -> None:
    """One clear error when the hand pose needs a wrist centre out of the arm's reach."""
    wrist = hand - shoulder + model.hand * quat_to_rotmat(q_hand)[:, 2]
    dist = float(np.linalg.norm(wrist))
    lo, hi = model.reach
    if dist > hi or dist < lo:
        raise InputError(
            f"target {np.round(hand, 4).tolist()} m is out of reach of the {model.side.value} "
            f"arm: with that hand orientation its wrist centre would be {dist:.3f} m from the "
            f"shoulder at {np.round(shoulder, 4).tolist()} m; reachable wrist distances are "
            f"{lo:.3f}–{hi:.3f} m (hand end up to {hi + model.hand:.3f} m from the shoulder)"
        )


def _end_speeds(q: NDArray[np.float64], fps: float) -> list[float]:
    """Largest arm-angle speed of the first and last frame step [rad/s] (wrapped)."""
    speed = np.abs(wrap_to_pi(np.diff(q, axis=0))) * fps  # (T-1, 7)
    return [float(speed[0].max()), float(speed[-1].max())] if speed.size else [0.0, 0.0]


def _path_figures(path: NDArray[np.float64], duration: float) -> dict[str, float]:
    steps = np.linalg.norm(np.diff(path, axis=0), axis=-1)
    length = float(steps.sum())
    chord = float(np.linalg.norm(path[-1] - path[0]))
    fps = steps.size / duration
    return {
        "path_length_m": length,
        "path_straightness": chord / length if length > 0.0 else 1.0,
        "peak_to_mean_speed": float(steps.max() * fps / (length / duration))
        if length > 0.0
        else 0.0,
    }


READY_ARM_ANGLES = np.radians([-10.0, -10.0, -10.0, -90.0, 90.0, 0.0, 0.0])
"""Default start posture (Xia et al.'s seven angles) [rad]: upper arm almost hanging (10° of
abduction, flexion and external rotation, off the limits of joints 2 and 3), elbow at 90°,
forearm forward, thumb up; its feasible swivel angles span −25° … 70°."""


@dataclass(frozen=True)
class ReachPlan:
    """Arm angles of a batch of reaches, frame by frame.

    Attributes
    ----------
    path : ndarray, shape (B, T, 3)
        Minimum-jerk hand end points, shoulder frame [m].
    hand : ndarray, shape (B, T, 3)
        Hand end points, shoulder frame [m]: the minimum-jerk path, moved where
        its wrist centre would leave the arm's reach (see :func:`plan_reaches`).
    orientation : ndarray, shape (B, T, 4)
        Planned hand orientations (w, x, y, z), body frame.
    swivel_predicted : ndarray, shape (B, T)
        φ from the predictor [rad], in the arm's own sign; with a start
        swivel, the prediction plus the start's offset from it, fading out
        with the minimum-jerk time law.
    swivel : ndarray, shape (B, T)
        φ of the arm angles [rad], continuous: the prediction where it is
        feasible, else the feasible sequence nearest to it
        (:func:`vhuman.reaching.planning.swivel_paths`), or that of a
        joint-space path.
    q : ndarray, shape (B, T, 7)
        Arm angles [rad].
    feasible : ndarray of bool, shape (B, T)
        Whether ``q`` is within the joint limits.
    ok : ndarray of bool, shape (B,)
        Whether the reach keeps within the limits, out of the body and under
        the joint-speed bound at every frame.
    joint_space : ndarray of bool, shape (B,)
        Reaches planned by minimum jerk in joint space (the hand leaves the
        straight path).
    reasons : tuple of str, length B
        Why a reach is not ``ok`` ("" where it is).
    """

    path: NDArray[np.float64]
    hand: NDArray[np.float64]
    orientation: NDArray[np.float64]
    swivel_predicted: NDArray[np.float64]
    swivel: NDArray[np.float64]
    q: NDArray[np.float64]
    feasible: NDArray[np.bool_]
    ok: NDArray[np.bool_]
    joint_space: NDArray[np.bool_]
    reasons: tuple[str, ...]


def plan_reaches(
    model: ArmModel,
    start: ArrayLike,
    start_orientation: ArrayLike,
    target: ArrayLike,
    target_orientation: ArrayLike,
    *,
    duration: float,
    fps: float,
    predictor: SwivelPredictor,
    body: ArmBodyClearance | None = None,
    shoulder: ArrayLike = (0.0, 0.0, 0.0),
    capsules: BodyCapsules | None = None,
    start_swivel: ArrayLike | None = None,
    max_joint_speed: float = MAX_JOINT_SPEED,
    hand_to_forearm: float | None = CMU_HAND_TO_FOREARM,
) -> ReachPlan:
    """Minimum-jerk hand paths, predicted swivel angles and closed-form IK, batched.

    Each reach first keeps its hand on the minimum-jerk path and takes the
    feasible φ nearest the prediction at every frame (within the joint
    limits, out of ``body``, joints no faster than ``max_joint_speed``); where
    no such φ sequence exists it moves by minimum jerk in joint space to a
    feasible posture at the target (see :mod:`vhuman.reaching.planning`);
    where that fails too it is not ``ok`` and ``reasons`` says why.

    Parameters
    ----------
    model : ArmModel
    start, target : array_like, shape (B, 3)
        Hand end points in the shoulder frame [m].
    start_orientation, target_orientation : array_like, shape (B, 4)
        Hand orientations (w, x, y, z), body frame (anatomical = identity).
    duration : float
        Movement time [s], > 0.
    fps : float
        Frame rate [1/s], > 0; ``round(duration · fps) + 1`` frames.
    predictor : SwivelPredictor
    body : ArmBodyClearance, optional
        The standing body the arm must keep out of; None ignores it.
    shoulder : array_like, shape (3,)
        Shoulder position in the world [m]: ``body``'s standing capsules, moved
        by ``−shoulder``, are those the arm keeps out of.
    capsules : BodyCapsules, optional
        Instead, the body capsules at every frame in the shoulder frame, shape
        (T, K, 3) (a body that moves, e.g. a leaning trunk).
    start_swivel : array_like, shape (B,), optional
        φ of the start postures [rad], the arm's own sign; default free.
    max_joint_speed : float
        Bound on every arm angle's speed [rad/s], > 0.
    hand_to_forearm : float or None
        Hand length over forearm length of the arms ``predictor`` was fit on:
        it is fed the hand end such a hand would have on this arm's wrist
        (:func:`vhuman.reaching.cmu_hand_end`; default the CMU skeleton's, that
        of the shipped predictors). None feeds this arm's own hand end (a
        predictor fit on this arm's postures).

    Returns
    -------
    ReachPlan

    Notes
    -----
    The straight hand path between two reachable poses can ask for a wrist
    centre slightly beyond the arm's length while the hand turns; there the
    wrist centre is pulled back onto the reach sphere and the hand follows
    (``ReachResult`` reports the largest such deviation).

    Raises
    ------
    InputError
        For a non-positive duration, fps or speed bound, NaN, mis-shaped
        inputs, or a hand pose out of reach.
    """
    _positive(duration, "duration")
    _positive(fps, "fps")
    _positive(max_joint_speed, "max_joint_speed")
    frame_count(duration, fps)  # refuses more than MAX_FRAMES before any work
    p0, p1 = (_points(x, name) for x, name in ((start, "start"), (target, "target")))
    q0 = as_quat_array(start_orientation, "start_orientation")
    q1 = as_quat_array(target_orientation, "target_orientation")
    origin = _check_point(shoulder, "shoulder")
    steps = max(1, round(duration * fps))
    s = ease(Easing.MINIMUM_JERK, np.linspace(0.0, 1.0, steps + 1))  # (T,)
    path = p0[:, None] + (p1 - p0)[:, None] * s[:, None]  # (B, T, 3)
    orientation = quat_slerp(q0[:, None], q1[:, None], s[None, :])  # (B, T, 4)
    hand = _within_reach(model, path, orientation)
    flat_hand, flat_q = hand.reshape(-1, 3), orientation.reshape(-1, 4)
    flat_r = quat_to_rotmat(flat_q)
    if hand_to_forearm is not None:  # the hand end of this wrist with the predictor's hand
        flat_hand = cmu_hand_end(flat_hand, flat_r, model.hand, model.forearm, hand_to_forearm)
    features = task_features(flat_hand, flat_r, model.upper_arm, model.forearm, model.side)
    phi_pred = predictor.predict(features).reshape(hand.shape[:2])
    if model.side is Side.LEFT:
        phi_pred = -phi_pred  # features and predictions are in right-arm coordinates
    n = hand.shape[0]
    first = None
    if start_swivel is not None:
        first = np.broadcast_to(np.asarray(start_swivel, dtype=np.float64), (n,))
        # Anchor the predictions to the start posture, the offset fading with the time law.
        offset = wrap_to_pi(first - phi_pred[:, 0])
        phi_pred = phi_pred + offset[:, None] * (1.0 - s)
    if body is not None and capsules is None:
        frames = (s.size, *body.body_starts.shape)
        capsules = BodyCapsules(
            np.broadcast_to(body.body_starts - origin, frames),
            np.broadcast_to(body.body_ends - origin, frames),
        )
    kw: dict[str, Any] = {"fps": float(fps), "body": body, "capsules": capsules}
    plans, joint_space, reasons = [], np.zeros(n, dtype=bool), []
    direct = predicted_paths(model, hand, orientation, phi_pred, max_speed=max_joint_speed, **kw)
    search = np.flatnonzero([not p.ok for p in direct])
    searched = swivel_paths(
        model,
        hand[search],
        orientation[search],
        phi_pred[search],
        start_swivel=None if first is None else first[search],
        max_speed=max_joint_speed,
        **kw,
    )
    for b, plan in zip(search, searched, strict=True):
        direct[b] = plan
    retry = np.flatnonzero([not p.ok for p in direct])
    others = joint_space_paths(
        model,
        np.array([direct[b].q[0] for b in retry]).reshape(-1, 7),
        hand[retry, -1],
        orientation[retry, -1],
        phi_pred[retry, -1],
        s,
        max_speed=max_joint_speed,
        **kw,
    )
    for b, other in zip(retry, others, strict=True):
        if other.ok or _worse(direct[b], other):
            direct[b], joint_space[b] = other, True
    for b in range(n):
        plan = direct[b]
        plans.append(plan)
        if plan.ok:
            reasons.append("")
            continue
        why = refusal(
            model,
            hand[b, -1],
            orientation[b, -1],
            body=body,
            capsules=capsules,
            best=plan,
            max_speed=max_joint_speed,
        )
        reasons.append(why)
    q = np.stack([p.q for p in plans])
    if np.any(joint_space):
        pose = model.forward(q[joint_space])
        hand[joint_space] = pose.hand
        orientation[joint_space] = pose.hand_orientation
    return ReachPlan(
        path=path,
        hand=hand,
        orientation=orientation,
        swivel_predicted=phi_pred,
        swivel=np.stack([p.swivel for p in plans]),
        q=q,
        feasible=model.within_limits(q),
        ok=np.array([p.ok for p in plans]),
        joint_space=joint_space,
        reasons=tuple(reasons),
    )


def _worse(plan: ArmPath, other: ArmPath) -> bool:
    """Whether ``plan`` breaks more than ``other``: limits, then overlap, then speed."""

    def badness(p: ArmPath) -> tuple[float, float, float]:
        return (float(limit_violation(p.q).max()), max(p.penetration, 0.0), p.speed)

    return badness(plan) > badness(other)


def _within_reach(
    model: ArmModel, hand: NDArray[np.float64], orientation: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Hand points moved so that their wrist centres are within the arm's reach.

    The straight hand path between two reachable poses can ask, half-way, for a
    wrist centre a little beyond the arm's length (the hand turns while it
    moves); there the wrist centre is pulled onto the reach sphere along its
    direction from the shoulder, and the hand follows.
    """
    along = model.hand * quat_to_rotmat(orientation)[..., :, 2]
    wrist = hand + along
    lo, hi = model.reach
    dist = np.linalg.norm(wrist, axis=-1, keepdims=True)
    clamped = wrist * np.clip(dist, lo, hi) / np.maximum(dist, 1e-12)
    return clamped - along


def _points(x: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(x, dtype=np.float64)
    if arr.ndim != 2 or arr.shape[1] != 3:
        raise InputError(f"{name} must have shape (B, 3) [m], got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} contains NaN or infinite values")
    return arr


TRUNK_LEANS_DEG = tuple(
    sorted(
        (
            (f, b, t)
            for f in (0.0, 20.0, 40.0)
            for b in (0.0, -15.0, 15.0)
            for t in (0.0, 20.0, -20.0)
        ),
        key=lambda x: abs(x[0]) + abs(x[1]) + abs(x[2]),
    )[1:]
)
"""Trunk leans tried by :func:`generate_reach` with ``allow_lean``, smallest first: forward
flexion, side bend towards the reaching arm, twist turning the reaching shoulder forward
[deg], within the standard humanoid's spine range (AAOS)."""


class _Attempt(NamedTuple):
    plan: ReachPlan
    lean: tuple[float, float, float]
    shoulder: NDArray[np.float64]  # (T, 3) shoulder in the world
    frame: NDArray[np.float64]  # (T, 3, 3) shoulder frame axes in the world
    trunk: NDArray[np.float64]  # (T, 4) local rotation of spine and of chest
    target_orientation: NDArray[np.float64]  # (4,) hand orientation at the target, body frame


def _lean_rotation(lean_deg: tuple[float, float, float], side: Side) -> NDArray[np.float64]:
    """Trunk rotation (w, x, y, z) of a (flexion, side bend, twist) lean [deg] for ``side``."""
    flexion, bend, twist = lean_deg
    sign = 1.0 if side is Side.RIGHT else -1.0
    # Right arm: bend to the right is a positive turn about x; twist forward, about +z.
    return rotmat_to_quat(
        Rotation.from_euler("ZYX", np.radians([sign * twist, flexion, sign * bend])).as_matrix()
    )


def _attempt(
    skel: Skeleton,
    model: ArmModel,
    body: ArmBodyClearance,
    lean_deg: tuple[float, float, float],
    start: tuple[NDArray[np.float64], NDArray[np.float64], float | None],
    target: tuple[NDArray[np.float64], NDArray[np.float64] | None],
    *,
    duration: float,
    fps: float,
    predictor: SwivelPredictor,
    max_joint_speed: float,
) -> _Attempt | None:
    """Plan the reach with the trunk leaning by ``lean_deg``; None where it is out of reach.

    The lean is split evenly between the spine and chest joints and follows the
    hand's minimum-jerk time law; the arm is planned in the moving shoulder frame.
    A target orientation of None is free (:func:`_free_orientations`).
    """
    s = "r" if model.side is Side.RIGHT else "l"
    i_spine, i_chest, i_sh = skel.indices(["spine", "chest", f"{s}_shoulder"])
    steps = max(1, round(duration * fps))
    law = ease(Easing.MINIMUM_JERK, np.linspace(0.0, 1.0, steps + 1))
    half = quat_slerp(np.array([1.0, 0, 0, 0]), _lean_rotation(lean_deg, model.side), 0.5)
    trunk = quat_slerp(np.array([1.0, 0, 0, 0]), half, law)  # (T, 4)
    local = np.tile(np.array([1.0, 0, 0, 0]), (law.size, skel.n_joints, 1))
    local[:, i_spine] = local[:, i_chest] = trunk
    if lean_deg != (0.0, 0.0, 0.0) and skel.limit_violation(local).max() > 1e-9:
        return None
    root = np.tile(skel.rest_positions()[0], (law.size, 1))
    pos, rot = body.body.joint_frames(root, local)
    shoulder, frame = pos[:, i_sh], quat_to_rotmat(rot[:, skel.parents[i_sh]])
    starts, ends = body.body.capsules(root, local)
    into = np.swapaxes(frame, -1, -2)[:, None]  # (T, 1, 3, 3): world → shoulder frame

    def local_points(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.einsum("tkij,tkj->tki", into, x[:, body.body_indices] - shoulder[:, None])

    capsules = BodyCapsules(local_points(starts), local_points(ends))
    goal = frame[-1].T @ (target[0] - shoulder[-1])
    extended = model.forearm + model.hand
    if not abs(model.upper_arm - extended) <= np.linalg.norm(goal) <= model.upper_arm + extended:
        return None
    if target[1] is None:
        orientations = _free_orientations(model, body, capsules, goal)
    else:
        orientations = rotmat_to_quat(frame[-1].T @ quat_to_rotmat(target[1]))[None]
    lo, hi = model.reach
    tried = None
    for goal_q in orientations:
        wrist = goal + model.hand * quat_to_rotmat(goal_q)[:, 2]
        if not lo <= np.linalg.norm(wrist) <= hi:
            continue
        plan = plan_reaches(
            model,
            start[0][None],
            start[1][None],
            goal[None],
            goal_q[None],
            duration=duration,
            fps=fps,
            predictor=predictor,
            body=body,
            capsules=capsules,
            start_swivel=None if start[2] is None else [start[2]],
            max_joint_speed=max_joint_speed,
        )
        body_q = rotmat_to_quat(frame[-1] @ quat_to_rotmat(goal_q))
        if tried is None or plan.ok[0]:
            tried = _Attempt(plan, lean_deg, shoulder, frame, trunk, body_q)
        if plan.ok[0]:
            break
    return tried


FREE_ORIENTATION_TRIES = 3
"""Elbow swivels tried for a target without a hand orientation (see :func:`_free_orientations`)."""


def _free_orientations(
    model: ArmModel, body: ArmBodyClearance, capsules: BodyCapsules, goal: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Hand orientations (N, 4) to try for a target whose orientation is free.

    :func:`natural_orientation` at the elbow swivels whose posture is within
    the joint limits and out of the body at the target, the lowest elbow
    (φ nearest 0) first, then the next ones at least 30° away, up to
    :data:`FREE_ORIENTATION_TRIES`; φ = 0 alone where none is feasible (the
    planner then says why).
    """
    grid = swivel_grid(model, 72)
    orientations, q = _natural_postures(model, goal, grid)
    pose = model.forward(q)
    depth = body.penetration(
        pose.shoulder,
        pose.elbow,
        pose.wrist,
        pose.hand,
        body_starts=capsules.starts[-1],
        body_ends=capsules.ends[-1],
    ).max(axis=(-2, -1))
    good = np.flatnonzero(model.within_limits(q) & (depth <= PLAN_MARGIN))
    good = good[np.argsort(np.abs(grid[good]), kind="stable")]
    chosen: list[int] = []
    for k in good:
        if all(abs(grid[k] - grid[c]) >= np.radians(30.0) for c in chosen):
            chosen.append(int(k))
        if len(chosen) == FREE_ORIENTATION_TRIES:
            break
    return orientations[chosen] if chosen else orientations[[int(np.argmin(np.abs(grid)))]]


def arm_motion(
    skeleton: Skeleton,
    side: Side | str,
    q: ArrayLike,
    fps: float,
    *,
    trunk: ArrayLike | None = None,
) -> Motion:
    """The whole body standing with one arm at the seven arm angles ``q``, frame by frame.

    The arm angles become the local rotations of the shoulder, elbow and wrist
    (forearm pronation goes to the wrist, the elbow being a hinge); every
    other joint keeps its rest pose, except the spine and chest when ``trunk``
    is given.

    Parameters
    ----------
    skeleton : Skeleton
        With the joints of :func:`vhuman.skeleton.standard_humanoid`.
    side : Side or {"right", "left"}
    q : array_like, shape (T, 7)
        Arm angles [rad].
    fps : float
        Frame rate [1/s], > 0.
    trunk : array_like, shape (T, 4), optional
        Local rotation (w, x, y, z) of the spine and of the chest joint each.

    Returns
    -------
    Motion

    Raises
    ------
    InputError
        For a ``q`` that is not (T, 7) or not finite, or a non-positive fps.
    """
    arm = Side.parse(side)
    _positive(fps, "fps")
    angles = np.asarray(q, dtype=np.float64)
    if angles.ndim != 2 or angles.shape[1] != 7:
        raise InputError(f"q must have shape (T, 7) [rad], got {angles.shape}")
    model = ArmModel.from_skeleton(skeleton, arm)
    s = "r" if arm is Side.RIGHT else "l"
    i_sh, i_el, i_wr = skeleton.indices([f"{s}_shoulder", f"{s}_elbow", f"{s}_wrist"])
    segments = model.segment_rotations(angles)  # (T, 3, 3, 3)
    upper, fore, palm = segments[:, 0], segments[:, 1], segments[:, 2]
    local = np.tile(np.array([1.0, 0, 0, 0]), (angles.shape[0], skeleton.n_joints, 1))
    if trunk is not None:
        local[:, skeleton.indices(["spine", "chest"])] = np.asarray(trunk)[:, None]
    local[:, i_sh] = rotmat_to_quat(upper)
    local[:, i_el] = rotmat_to_quat(np.swapaxes(upper, -1, -2) @ fore)
    local[:, i_wr] = rotmat_to_quat(np.swapaxes(fore, -1, -2) @ palm)
    root = np.tile(skeleton.rest_positions()[0], (angles.shape[0], 1))
    return Motion(skeleton, float(fps), root, local)


def generate_reach(
    target: ArrayLike,
    *,
    side: Side | str = Side.RIGHT,
    target_orientation: ArrayLike | None = None,
    start: ArrayLike | None = None,
    start_orientation: ArrayLike | None = None,
    duration: float = 1.0,
    fps: float = 60.0,
    skeleton: Skeleton | None = None,
    predictor: SwivelPredictor | None = None,
    allow_lean: bool = False,
    max_joint_speed: float = MAX_JOINT_SPEED,
) -> ReachResult:
    """Generate a human-like reach of one arm to a hand target.

    The arm keeps within Xia et al.'s joint limits, out of the trunk, pelvis,
    head and thighs (the capsules of :class:`vhuman.scene.BodyModel`), and
    no arm angle turns faster than ``max_joint_speed`` (see
    :func:`plan_reaches`). A target that cannot be reached so is refused with
    the reason, or, with ``allow_lean``, reached with the smallest trunk lean
    of :data:`TRUNK_LEANS_DEG` that makes it feasible.

    Parameters
    ----------
    target : array_like, shape (3,)
        Hand end target in the world [m] (the character stands at its rest
        pose, facing +x).
    side : Side or {"right", "left"}
    target_orientation : array_like, shape (4,), optional
        Hand orientation at the target (w, x, y, z), body frame, anatomical =
        identity (see the module). Default: in line with the forearm, thumb
        up (:func:`natural_orientation`).
    start : array_like, shape (3,), optional
        Start hand end point in the world [m]; default the hand of
        :data:`READY_ARM_ANGLES` (in front of the hip, elbow at 90°).
    start_orientation : array_like, shape (4,), optional
        Start hand orientation; default that of :data:`READY_ARM_ANGLES`.
    duration : float
        Movement time [s], > 0.
    fps : float
        Frame rate [1/s], > 0.
    skeleton : Skeleton, optional
        A skeleton with the joints and capsules of
        :func:`vhuman.skeleton.standard_humanoid` in the anatomical rest pose;
        default the standard humanoid.
    predictor : SwivelPredictor, optional
        Default the shipped deep MLP (:func:`default_predictor`).
    allow_lean : bool
        Lean the trunk where the arm alone cannot reach the target.
    max_joint_speed : float
        Bound on every arm angle's speed [rad/s], > 0.

    Returns
    -------
    ReachResult
        Its figures are measured on the motion (:func:`vhuman.reaching.audit_reach`).

    Raises
    ------
    InputError
        For NaN, a non-positive duration, fps or speed bound, an unknown side,
        a target out of the arm's reach (the message gives the reachable
        distances), or a target that the arm cannot reach within its limits,
        out of the body and under the speed bound (the message says why).
    """
    t0 = time.perf_counter()
    arm = Side.parse(side)
    skel = standard_humanoid() if skeleton is None else skeleton
    model = ArmModel.from_skeleton(skel, arm)
    s = "r" if arm is Side.RIGHT else "l"
    i_sh, i_wr, i_hand = skel.indices([f"{s}_shoulder", f"{s}_wrist", f"{s}_hand"])
    rest = skel.rest_positions()
    shoulder = rest[i_sh]
    _positive(duration, "duration")
    _positive(fps, "fps")
    _positive(max_joint_speed, "max_joint_speed")
    frame_count(duration, fps)  # refuses more than MAX_FRAMES before any work
    target = _check_point(target, "target")
    longest = model.upper_arm + model.forearm + model.hand
    if np.linalg.norm(target - shoulder) > longest:
        raise InputError(
            f"target {np.round(target, 4).tolist()} m is out of reach of the {arm.value} arm: "
            f"it is {np.linalg.norm(target - shoulder):.3f} m from the shoulder at "
            f"{np.round(shoulder, 4).tolist()} m; the hand reaches at most {longest:.3f} m"
        )
    if target_orientation is None:
        natural_orientation(model, target - shoulder)  # the reach check of a free orientation
        q_target = None
    else:
        q_target = as_quat_array(target_orientation, "target_orientation")
        _check_reachable(model, shoulder, target, q_target)
    ready = model.forward(READY_ARM_ANGLES)
    p_start = ready.hand + shoulder if start is None else _check_point(start, "start")
    q_start = (
        ready.hand_orientation
        if start_orientation is None
        else as_quat_array(start_orientation, "start_orientation")
    )
    _check_reachable(model, shoulder, p_start, q_start)
    ready_swivel = float(swivel_angle(ready.shoulder, ready.elbow, ready.wrist))
    from_ready = start is None and start_orientation is None
    body = ArmBodyClearance.from_skeleton(skel, arm)
    kwargs: dict[str, Any] = {
        "duration": float(duration),
        "fps": float(fps),
        "predictor": default_predictor() if predictor is None else predictor,
        "max_joint_speed": float(max_joint_speed),
    }
    begin = (p_start - shoulder, q_start, ready_swivel if from_ready else None)
    attempt = _attempt(skel, model, body, (0.0, 0.0, 0.0), begin, (target, q_target), **kwargs)
    assert attempt is not None  # reachability is checked above without a lean
    reason = attempt.plan.reasons[0]
    for lean in TRUNK_LEANS_DEG if allow_lean and not attempt.plan.ok[0] else ():
        leaned = _attempt(skel, model, body, lean, begin, (target, q_target), **kwargs)
        if leaned is not None and leaned.plan.ok[0]:
            attempt = leaned
            break
    if not attempt.plan.ok[0]:
        hint = (
            "no trunk lean tried helps either"
            if allow_lean
            else "allowing a trunk lean (allow_lean, --allow-lean) may help"
        )
        raise InputError(
            f"target {np.round(target, 4).tolist()} m cannot be reached by the {arm.value} arm "
            f"within its joint limits and out of the body: {reason}; {hint}"
        )
    plan, q_target = attempt.plan, attempt.target_orientation
    q, feasible = plan.q[0], plan.feasible[0]
    path_world = attempt.shoulder + np.einsum("tij,tj->ti", attempt.frame, plan.path[0])

    motion = arm_motion(skel, arm, q, fps, trunk=attempt.trunk)
    elapsed = time.perf_counter() - t0

    audit = audit_reach(motion, arm)
    reached = motion.global_positions[:, i_hand]
    reached_q = motion.global_rotations[:, i_wr]
    adjusted = np.abs(wrap_to_pi(plan.swivel[0] - plan.swivel_predicted[0])) > 1e-9
    figures: dict[str, Any] = {
        "final_position_error_mm": 1e3 * float(np.linalg.norm(reached[-1] - target)),
        "final_orientation_error_deg": float(np.degrees(quat_angle(reached_q[-1], q_target))),
        "max_path_deviation_mm": 1e3 * float(np.max(np.linalg.norm(reached - path_world, axis=-1))),
        **_path_figures(reached, float(duration)),
        "max_joint_speed_rad_s": audit.max_joint_speed_rad_s,
        "joint_speed_at_ends_rad_s": _end_speeds(q, float(fps)),
        "joint_limit_violations": audit.limit_violation_frames,
        "self_collision_frames": audit.collision_frames,
        "min_clearance_mm": -1e3 * audit.max_penetration_m,
        "closest_pair": audit.worst_pair,
        "swivel_start_deg": audit.swivel_start_deg,
        "swivel_end_deg": audit.swivel_end_deg,
        "swivel_adjusted_frames": int(np.sum(adjusted)),
        "joint_space_path": bool(plan.joint_space[0]),
        "trunk_lean_deg": list(attempt.lean),
        "generation_fps": q.shape[0] / elapsed,
    }
    return ReachResult(
        motion=motion,
        side=arm,
        target_position=target,
        target_orientation=q_target,
        hand_path=path_world,
        arm_angles=q,
        swivel_predicted=plan.swivel_predicted[0],
        swivel=plan.swivel[0],
        feasible=feasible,
        figures=figures,
    )
