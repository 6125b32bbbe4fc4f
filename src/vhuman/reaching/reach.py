"""Reach generation: minimum-jerk hand path, predicted swivel angle, closed-form arm IK.

The pipeline of Xia et al. (2021) on the standard humanoid, batched over frames:

1. the hand moves from its start pose to the target pose along a minimum-jerk
   path (orientation by slerp with the same time law);
2. at every frame a swivel predictor gives φ from the hand pose relative to
   the shoulder and the arm's segment lengths; where φ has no solution within
   the joint limits, the nearest feasible φ replaces it;
3. the closed-form IK gives the seven arm angles, which become the local
   rotations of the skeleton's shoulder, elbow and wrist (forearm pronation
   goes to the wrist, the elbow being a hinge); every other joint keeps its
   rest pose.

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
(minimum jerk and multilayer perceptron) (seed 000).
Flash, T., & Hogan, N. (1985). The coordination of arm movements.
J. Neuroscience 5(7), 1688–1703.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.spatial.transform import Rotation

from vhuman.animation.easing import Easing, ease
from vhuman.errors import InputError
from vhuman.geometry import quat_angle, quat_slerp, quat_to_rotmat, rotmat_to_quat
from vhuman.geometry.quaternion import as_quat_array
from vhuman.reaching.arm import ArmModel, Side
from vhuman.reaching.dataset import task_features
from vhuman.reaching.minimum_jerk import _positive
from vhuman.reaching.predictors import SwivelPredictor, load_predictor
from vhuman.reaching.swivel import solve_arm
from vhuman.skeleton import Motion, Skeleton, standard_humanoid

__all__ = [
    "DEFAULT_MODELS",
    "READY_ARM_ANGLES",
    "ReachPlan",
    "ReachResult",
    "default_predictor",
    "generate_reach",
    "hand_orientation_from_rpy",
    "natural_orientation",
    "plan_reaches",
    "pointing_orientation",
]

DEFAULT_MODELS = {
    "mlp-deep": "swivel_mlp_deep.npz",
    "mlp": "swivel_mlp.npz",
    "lsq": "swivel_lsq.npz",
}
"""Shipped swivel predictors (files in ``vhuman/data/models``): the seed's MLP (8 → 40 → 2),
a deeper MLP (rotation-matrix input, 2 × 128 units) and least squares; reaches use
``mlp-deep``, the most accurate on held-out CMU trials."""

_MIRROR = np.array([1.0, -1.0, 1.0])
# Anatomical hand frame → hand pointing forward (+x), palm down (−z), thumb left
# (+y, medial for the right hand): a half turn about (1, 0, −1)/√2.
_FORWARD_PALM_DOWN = np.array([[0.0, 0.0, -1.0], [0.0, -1.0, 0.0], [-1.0, 0.0, 0.0]])


def default_predictor(kind: str = "mlp-deep") -> SwivelPredictor:
    """A shipped swivel predictor, trained on the CMU training trials.

    Parameters
    ----------
    kind : {"mlp-deep", "mlp", "lsq"}

    Raises
    ------
    InputError
        For an unknown kind (the message lists the shipped ones).
    """
    if kind not in DEFAULT_MODELS:
        raise InputError(f"kind must be one of {sorted(DEFAULT_MODELS)}, got {kind!r}")
    ref = resources.files("vhuman") / "data" / "models" / DEFAULT_MODELS[kind]
    with resources.as_file(ref) as path:
        return load_predictor(path)


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


def natural_orientation(model: ArmModel, hand: ArrayLike) -> NDArray[np.float64]:
    """A hand orientation in line with the forearm, thumb up, for a hand target.

    The arm is taken as two links, the upper arm and the forearm with the hand
    in line (``d_ew + a``), with the elbow at its lowest (φ = 0); the hand
    points along that forearm with the thumb up (:func:`pointing_orientation`).
    With this orientation a reach needs no wrist deviation at φ = 0.

    Parameters
    ----------
    model : ArmModel
    hand : array_like, shape (3,)
        Hand end target in the shoulder frame [m].

    Returns
    -------
    ndarray, shape (4,)
        Hand orientation (w, x, y, z), body frame.

    Raises
    ------
    InputError
        For a target out of the reach of the extended arm (the message gives
        the reachable distances), or NaN.
    """
    target = _check_point(hand, "hand")
    d1, d2 = model.upper_arm, model.forearm + model.hand
    dist = float(np.linalg.norm(target))
    if not abs(d1 - d2) <= dist <= d1 + d2:
        raise InputError(
            f"hand target {np.round(target, 4).tolist()} m is {dist:.3f} m from the "
            f"{model.side.value} shoulder; the hand reaches {abs(d1 - d2):.3f}–{d1 + d2:.3f} m"
        )
    axis = target / dist
    # Elbow on the circle of the triangle (d1, d2, dist), at its lowest point.
    along = (d1**2 - d2**2 + dist**2) / (2.0 * dist)
    radius = np.sqrt(max(d1**2 - along**2, 0.0))
    down = np.array([0.0, 0.0, -1.0]) - axis * -axis[2]
    if np.linalg.norm(down) < 1e-9:  # straight up or down: elbow backwards
        down = np.array([-1.0, 0.0, 0.0]) - axis * -axis[0]
    elbow = axis * along + radius * down / np.linalg.norm(down)
    return pointing_orientation(target - elbow, model.side)


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
        The seed's seven arm angles [rad].
    swivel_predicted : ndarray, shape (T,)
        φ from the predictor [rad] (right-arm sign).
    swivel : ndarray, shape (T,)
        φ used: the prediction, or the nearest feasible φ where it had none.
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


def _joint_speed_figures(q: NDArray[np.float64], fps: float) -> dict[str, Any]:
    speed = np.abs(np.diff(q, axis=0)) * fps  # (T-1, 7)
    ends = [float(speed[0].max()), float(speed[-1].max())] if speed.size else [0.0, 0.0]
    return {
        "max_joint_speed_rad_s": float(speed.max()) if speed.size else 0.0,
        "joint_speed_at_ends_rad_s": ends,
    }


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
"""Default start posture (the seed's seven angles) [rad]: upper arm almost hanging (10° of
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
        φ from the predictor [rad], in the arm's own sign.
    swivel : ndarray, shape (B, T)
        φ used [rad]: the prediction, or, in a reach with a frame whose
        prediction has no solution within the joint limits, the smooth
        feasible sequence nearest to it (see :func:`_feasible_swivel_paths`).
    q : ndarray, shape (B, T, 7)
        Arm angles [rad].
    feasible : ndarray of bool, shape (B, T)
        Whether ``q`` is within the joint limits.
    """

    path: NDArray[np.float64]
    hand: NDArray[np.float64]
    orientation: NDArray[np.float64]
    swivel_predicted: NDArray[np.float64]
    swivel: NDArray[np.float64]
    q: NDArray[np.float64]
    feasible: NDArray[np.bool_]


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
) -> ReachPlan:
    """Minimum-jerk hand paths, predicted swivel angles and closed-form IK, batched.

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
        For a non-positive duration or fps, NaN, mis-shaped inputs, or a hand
        pose out of reach.
    """
    _positive(duration, "duration")
    _positive(fps, "fps")
    p0, p1 = (_points(x, name) for x, name in ((start, "start"), (target, "target")))
    q0 = as_quat_array(start_orientation, "start_orientation")
    q1 = as_quat_array(target_orientation, "target_orientation")
    steps = max(1, round(duration * fps))
    s = ease(Easing.MINIMUM_JERK, np.linspace(0.0, 1.0, steps + 1))  # (T,)
    path = p0[:, None] + (p1 - p0)[:, None] * s[:, None]  # (B, T, 3)
    orientation = quat_slerp(q0[:, None], q1[:, None], s[None, :])  # (B, T, 4)
    hand = _within_reach(model, path, orientation)
    flat_hand, flat_q = hand.reshape(-1, 3), orientation.reshape(-1, 4)
    features = task_features(
        flat_hand, quat_to_rotmat(flat_q), model.upper_arm, model.forearm, model.side
    )
    phi_pred = predictor.predict(features)
    if model.side is Side.LEFT:
        phi_pred = -phi_pred  # features and predictions are in right-arm coordinates
    solution = solve_arm(model, flat_hand, flat_q, phi_pred)
    shape = hand.shape[:2]
    phi = phi_pred.reshape(shape).copy()
    q = solution.q.reshape(*shape, 7)
    feasible = solution.feasible.reshape(shape).copy()
    search = np.flatnonzero(~feasible.all(axis=1))
    if search.size:
        phi[search] = _feasible_swivel_paths(model, hand[search], orientation[search], phi[search])
        redo = solve_arm(model, hand[search], orientation[search], phi[search])
        q[search], feasible[search] = redo.q, redo.feasible
    return ReachPlan(
        path=path,
        hand=hand,
        orientation=orientation,
        swivel_predicted=phi_pred.reshape(shape),
        swivel=phi,
        q=q,
        feasible=feasible,
    )


SWIVEL_GRID = 36
"""φ samples per knot (every 10°) of the path search of :func:`_feasible_swivel_paths`."""
_VIOLATION_WEIGHT = 1000.0  # cost per radian outside a joint limit: nearly a constraint
_JUMP_WEIGHT = 3.0  # cost per radian of φ change between knots
_KNOT_SPACING = 5  # frames between the knots of the search; φ is linear in between


def _angle_gap(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """|a − b| on the circle, in [0, π]."""
    d = np.mod(a - b, 2.0 * np.pi)
    return np.minimum(d, 2.0 * np.pi - d)


def _feasible_swivel_paths(
    model: ArmModel,
    hand: NDArray[np.float64],
    orientation: NDArray[np.float64],
    predicted: NDArray[np.float64],
) -> NDArray[np.float64]:
    """The φ sequences (B, T) closest to the predictions that keep within the limits, without jumps.

    A shortest path (dynamic programming) per reach over, at every fifth
    frame (and the last), the predicted φ and :data:`SWIVEL_GRID` evenly
    spaced values: a node costs its distance to the prediction plus ``1000 ×``
    its joint-limit violation [rad], an edge ``3 ×`` the change of φ; φ is
    linear between these knots. Feasible predictions are kept where that does
    not force a jump elsewhere; where no φ is feasible, the least violation
    wins.
    """
    n_frames = predicted.shape[1]
    knots = np.unique(np.append(np.arange(0, n_frames, _KNOT_SPACING), n_frames - 1))
    hand, orientation, predicted = hand[:, knots], orientation[:, knots], predicted[:, knots]
    grid = -np.pi + 2.0 * np.pi * np.arange(SWIVEL_GRID) / SWIVEL_GRID
    b, t = predicted.shape
    cand = np.concatenate([predicted[..., None], np.broadcast_to(grid, (b, t, grid.size))], -1)
    sol = solve_arm(model, hand[:, :, None], orientation[:, :, None], cand)
    lo, hi = model.limits[:, 0], model.limits[:, 1]
    violation = np.sum(np.maximum(lo - sol.q, 0.0) + np.maximum(sol.q - hi, 0.0), axis=-1)
    node = _angle_gap(cand, predicted[..., None]) + _VIOLATION_WEIGHT * violation  # (B, T, C)
    total = node[:, 0]
    back = np.zeros(cand.shape, dtype=np.intp)
    rows = np.arange(b)[:, None]
    for k in range(1, t):
        step = total[:, :, None] + _JUMP_WEIGHT * _angle_gap(
            cand[:, k, None, :], cand[:, k - 1, :, None]
        )  # (B, from, to)
        back[:, k] = np.argmin(step, axis=1)
        total = np.take_along_axis(step, back[:, k, None, :], axis=1)[:, 0] + node[:, k]
    path = np.empty((b, t), dtype=np.intp)
    path[:, -1] = np.argmin(total, axis=1)
    for k in range(t - 1, 0, -1):
        path[:, k - 1] = back[rows[:, 0], k, path[:, k]]
    chosen = np.unwrap(np.take_along_axis(cand, path[..., None], axis=-1)[..., 0], axis=1)
    frames = np.arange(n_frames)
    return np.stack([np.interp(frames, knots, row) for row in chosen])


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
) -> ReachResult:
    """Generate a human-like reach of one arm to a hand target.

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
        A skeleton with the joints of :func:`vhuman.skeleton.standard_humanoid`
        in the anatomical rest pose; default the standard humanoid.
    predictor : SwivelPredictor, optional
        Default the shipped deep MLP (:func:`default_predictor`).

    Returns
    -------
    ReachResult

    Raises
    ------
    InputError
        For NaN, a non-positive duration or fps, an unknown side, or a target
        out of the arm's reach (the message gives the reachable distances).
    """
    t0 = time.perf_counter()
    arm = Side.parse(side)
    skel = standard_humanoid() if skeleton is None else skeleton
    model = ArmModel.from_skeleton(skel, arm)
    s = "r" if arm is Side.RIGHT else "l"
    names = [f"{s}_shoulder", f"{s}_elbow", f"{s}_wrist", f"{s}_hand"]
    i_sh, i_el, i_wr, i_hand = skel.indices(names)
    rest = skel.rest_positions()
    shoulder = rest[i_sh]
    _positive(duration, "duration")
    _positive(fps, "fps")
    target = _check_point(target, "target")
    longest = model.upper_arm + model.forearm + model.hand
    if np.linalg.norm(target - shoulder) > longest:
        raise InputError(
            f"target {np.round(target, 4).tolist()} m is out of reach of the {arm.value} arm: "
            f"it is {np.linalg.norm(target - shoulder):.3f} m from the shoulder at "
            f"{np.round(shoulder, 4).tolist()} m; the hand reaches at most {longest:.3f} m"
        )
    if target_orientation is None:
        q_target = natural_orientation(model, target - shoulder)
    else:
        q_target = as_quat_array(target_orientation, "target_orientation")
    ready = model.forward(READY_ARM_ANGLES)
    p_start = ready.hand + shoulder if start is None else _check_point(start, "start")
    q_start = (
        ready.hand_orientation
        if start_orientation is None
        else as_quat_array(start_orientation, "start_orientation")
    )
    _check_reachable(model, shoulder, target, q_target)
    _check_reachable(model, shoulder, p_start, q_start)
    plan = plan_reaches(
        model,
        (p_start - shoulder)[None],
        q_start[None],
        (target - shoulder)[None],
        q_target[None],
        duration=duration,
        fps=fps,
        predictor=default_predictor() if predictor is None else predictor,
    )
    q, feasible = plan.q[0], plan.feasible[0]
    path_world = plan.path[0] + shoulder

    segments = model.segment_rotations(q)  # (T, 3, 3, 3)
    upper, fore, palm = segments[:, 0], segments[:, 1], segments[:, 2]
    local = np.tile(np.array([1.0, 0, 0, 0]), (q.shape[0], skel.n_joints, 1))
    local[:, i_sh] = rotmat_to_quat(upper)
    local[:, i_el] = rotmat_to_quat(np.swapaxes(upper, -1, -2) @ fore)
    local[:, i_wr] = rotmat_to_quat(np.swapaxes(fore, -1, -2) @ palm)
    motion = Motion(skel, fps, np.tile(rest[0], (q.shape[0], 1)), local)
    elapsed = time.perf_counter() - t0

    reached = motion.global_positions[:, i_hand]
    reached_q = motion.global_rotations[:, i_wr]
    figures: dict[str, Any] = {
        "final_position_error_mm": 1e3 * float(np.linalg.norm(reached[-1] - target)),
        "final_orientation_error_deg": float(np.degrees(quat_angle(reached_q[-1], q_target))),
        "max_path_deviation_mm": 1e3 * float(np.max(np.linalg.norm(reached - path_world, axis=-1))),
        **_path_figures(reached, float(duration)),
        **_joint_speed_figures(q, float(fps)),
        "joint_limit_violations": int(
            np.sum((q < model.limits[:, 0] - 1e-9) | (q > model.limits[:, 1] + 1e-9))
        ),
        "infeasible_frames": int(np.sum(~feasible)),
        "swivel_adjusted_frames": int(np.sum(plan.swivel[0] != plan.swivel_predicted[0])),
        "swivel_start_deg": float(np.degrees(plan.swivel[0, 0])),
        "swivel_end_deg": float(np.degrees(plan.swivel[0, -1])),
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
