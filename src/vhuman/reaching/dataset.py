"""Swivel-angle learning data: features ``m`` of the hand task and the arm's swivel angle φ.

Features
--------
Following Xia et al. (2021), the swivel angle is learnt as ``φ = f(m)`` with
``m = [x, y, z, α, β, γ, d1, d2]`` (:data:`FEATURE_NAMES`):

- ``x, y, z`` [m]: the hand position relative to the shoulder, in the **trunk
  frame at the shoulder**, the shoulder frame of :mod:`vhuman.reaching.arm`
  (x forward, y left, z up). Where the joint mapping names a ``thorax`` joint
  (the CMU skeleton) the frame turns with it: the rest-pose body frame (z up,
  y along the horizontal of ``lshoulder − rshoulder``, x = y × z) carried by
  the thorax joint's global rotation, so a trunk that bends or turns does not
  make the same arm posture look like another hand task. Without one the
  frame is upright: z the world's z, y the horizontal unit vector of
  ``lshoulder − rshoulder``, x forward (``left × up``);
- ``α, β, γ`` [rad]: the hand orientation relative to that frame, as a
  **rotation vector** (axis × angle, angle in [0, π]; it jumps where the angle
  crosses π), in the convention of ``ArmPose.hand_orientation``: the identity
  is the **anatomical position** (arm hanging, palm forward, thumb pointing
  away from the body). For motion capture it is the global rotation of the
  wrist joint (the joint whose rotation places the hand) in the body frame,
  times the hand's orientation in the skeleton's rest pose
  (:func:`rest_hand_orientation`; for the CMU T-pose, palms down, it follows
  from the rest positions of wrist, hand and thumb tip), so measured and
  synthetic samples share one convention;
- ``d1, d2`` [m]: upper-arm and forearm lengths, measured at each frame from
  the joint positions.

The target is :func:`~vhuman.reaching.swivel_angle` of (shoulder, elbow, wrist)
in the same frame (reference plane through the frame's z axis, φ = 0 with the
elbow lowest), the definition the inverse kinematics uses in the shoulder frame.

The hand end is the CMU skeleton's (``hand``, :data:`CMU_HAND_TO_FOREARM` of
the forearm beyond the wrist centre). An arm with another hand length feeds
the point at that distance from its wrist centre along the hand's axis
(:func:`cmu_hand_end`), so that a model sees the hand tasks it was fit on.

The DeepMimic humanoid has no hand (:func:`deepmimic_swivel_dataset`): its
samples describe the wrist and the forearm instead and form a separate kind.

Both arms share one model: a left arm is mirrored into right-arm coordinates
by the sagittal reflection ``M = diag(1, −1, 1)`` (positions ``y → −y``,
rotations ``R → M R M``, hence rotation vectors ``(α, β, γ) → (−α, β, −γ)``,
and φ → −φ); the ``side`` column keeps where each sample came from.

References
----------
Xia, Z., et al. (2021). Human-like reaching motion of a virtual human arm
(minimum jerk and multilayer perceptron), arm configuration learning.
CMU Graphics Lab Motion Capture Database, http://mocap.cs.cmu.edu (the
exponential-map subset described in ``data/cmu_mocap/README.md``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry import quat_to_rotmat, rotmat_to_quat
from vhuman.geometry.so3 import quat_to_rotvec, rotvec_to_rotmat
from vhuman.io import read_cmu
from vhuman.io.filesystem import PathLike
from vhuman.reaching.arm import JOINT_LIMITS, ArmModel, Side
from vhuman.reaching.swivel import swivel_angle
from vhuman.skeleton import Motion, Skeleton

__all__ = [
    "ARM_ROLES",
    "CMU_ARM_JOINTS",
    "CMU_HAND_TO_FOREARM",
    "DEEPMIMIC_ARM_JOINTS",
    "FEATURE_NAMES",
    "MIN_ELBOW_FLEXION",
    "STANDARD_ARM_JOINTS",
    "SwivelDataset",
    "SwivelSamples",
    "cmu_folder_swivel_dataset",
    "cmu_hand_end",
    "cmu_swivel_dataset",
    "deepmimic_swivel_dataset",
    "rest_hand_orientation",
    "shape_features",
    "split_by_trial",
    "swivel_samples_from_motion",
    "synthetic_swivel_dataset",
    "task_features",
    "validation_split_highest_numbered",
    "wrist_features",
]

FEATURE_NAMES = ("x", "y", "z", "alpha", "beta", "gamma", "d1", "d2")
"""Names of the eight feature columns (see the module): [m] ×3, [rad] ×3, [m] ×2."""

ARM_ROLES = ("lshoulder", "lelbow", "lwrist", "lhand", "rshoulder", "relbow", "rwrist", "rhand")
"""Joint roles every arm-joint mapping names; ``lthumb``/``rthumb`` are optional (see
:func:`rest_hand_orientation`), and so is ``thorax`` (the trunk frame, see the module)."""

CMU_ARM_JOINTS: Mapping[str, str] = MappingProxyType(
    {
        **{role: role for role in ARM_ROLES},
        # The hand's rotation lives in the hand base joint, at the wrist centre.
        "lwrist": "lhand_base",
        "rwrist": "rhand_base",
        "lthumb": "lthumb_tip",
        "rthumb": "rthumb_tip",
        "thorax": "thorax",
    }
)
"""Arm joint roles → joint names of the CMU skeleton (:func:`vhuman.io.cmu_skeleton`); its
``thorax`` carries the trunk frame (see the module)."""

STANDARD_ARM_JOINTS: Mapping[str, str] = MappingProxyType(
    {role: f"{role[0]}_{role[1:]}" for role in ARM_ROLES}
)
"""Arm joint roles → joint names of :func:`vhuman.skeleton.standard_humanoid` (its rest
pose is the anatomical position, so it needs no thumb)."""

MIN_ELBOW_FLEXION = float(np.radians(10.0))
"""Elbow flexion [rad] below which the arm counts as straight and φ as undefined (10°)."""

_MIRROR = np.array([1.0, -1.0, 1.0])
_UP = np.array([0.0, 0.0, 1.0])
_TRIAL_NUMBER = re.compile(r"(\d+)$")
_TRIAL_SUFFIX = re.compile(r"_?\d+$")  # "<action>_<k>" → "<action>"


def _frozen(a: ArrayLike, dtype: type) -> NDArray:
    arr = np.array(a, dtype=dtype)
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class SwivelDataset:
    """Samples of hand-task features and swivel angles.

    Attributes
    ----------
    features : ndarray, shape (N, 8)
        ``m = [x, y, z, α, β, γ, d1, d2]`` in right-arm coordinates (see the
        module; [m] and [rad]).
    swivel : ndarray, shape (N,)
        Swivel angle φ [rad] in (−π, π], right-arm sign convention.
    groups : ndarray of str, shape (N,)
        Source trial of each sample (``"<action>/<file stem>"`` for CMU); splits
        keep a group on one side.
    activity : ndarray of str, shape (N,)
        Activity (CMU action) of each sample.
    side : ndarray of str, shape (N,)
        ``"right"`` or ``"left"``: the arm the sample was measured on.
    synthetic : bool
        Whether the samples come from the arm model rather than measurements.
    dropped : int
        Frames the builder left out because the arm was almost straight
        (elbow flexion < :data:`MIN_ELBOW_FLEXION`); 0 for subsets.

    Raises
    ------
    InputError
        If the arrays do not have the shapes above or the features are not finite.
    """

    features: NDArray[np.float64]
    swivel: NDArray[np.float64]
    groups: NDArray[np.str_]
    activity: NDArray[np.str_]
    side: NDArray[np.str_]
    synthetic: bool = False
    dropped: int = 0

    def __post_init__(self) -> None:
        features = _frozen(self.features, np.float64)
        if features.ndim != 2 or features.shape[1] != len(FEATURE_NAMES):
            raise InputError(f"features must have shape (N, 8), got {features.shape}")
        if not np.all(np.isfinite(features)):
            raise InputError("features contain NaN or infinite values")
        n = features.shape[0]
        object.__setattr__(self, "features", features)
        for name, dtype in (
            ("swivel", np.float64),
            ("groups", np.str_),
            ("activity", np.str_),
            ("side", np.str_),
        ):
            arr = _frozen(getattr(self, name), dtype)
            if arr.shape != (n,):
                raise InputError(
                    f"{name} must have shape ({n},) to match features, got {arr.shape}"
                )
            object.__setattr__(self, name, arr)
        if not np.all(np.isfinite(self.swivel)):
            raise InputError("swivel contains NaN or infinite values")
        object.__setattr__(self, "synthetic", bool(self.synthetic))
        object.__setattr__(self, "dropped", int(self.dropped))

    def __len__(self) -> int:
        """Number of samples N."""
        return int(self.features.shape[0])

    def subset(self, index: ArrayLike) -> SwivelDataset:
        """The samples selected by a boolean mask (N,) or integer indices (``dropped`` = 0)."""
        i = np.asarray(index)
        return SwivelDataset(
            self.features[i],
            self.swivel[i],
            self.groups[i],
            self.activity[i],
            self.side[i],
            self.synthetic,
        )

    @classmethod
    def concatenate(cls, datasets: Sequence[SwivelDataset]) -> SwivelDataset:
        """All samples of ``datasets`` in order; synthetic if any part is, ``dropped`` summed.

        Raises
        ------
        InputError
            If ``datasets`` is empty.
        """
        if not datasets:
            raise InputError("datasets must hold at least one SwivelDataset, got none")
        return cls(
            np.concatenate([d.features for d in datasets]),
            np.concatenate([d.swivel for d in datasets]),
            np.concatenate([d.groups for d in datasets]),
            np.concatenate([d.activity for d in datasets]),
            np.concatenate([d.side for d in datasets]),
            any(d.synthetic for d in datasets),
            sum(d.dropped for d in datasets),
        )


class SwivelSamples(NamedTuple):
    """Per-frame output of :func:`swivel_samples_from_motion`.

    Attributes
    ----------
    features : ndarray, shape (T, 8)
        ``m`` in right-arm coordinates (see the module).
    swivel : ndarray, shape (T,)
        φ [rad], right-arm sign; NaN where undefined (straight arm).
    elbow_flexion : ndarray, shape (T,)
        Angle between upper arm and forearm [rad], 0 for a straight arm.
    """

    features: NDArray[np.float64]
    swivel: NDArray[np.float64]
    elbow_flexion: NDArray[np.float64]


def task_features(
    hand: ArrayLike,
    hand_rotation: ArrayLike,
    upper_arm: ArrayLike,
    forearm: ArrayLike,
    side: Side | str,
) -> NDArray[np.float64]:
    """The feature rows ``m`` of hand tasks, in right-arm coordinates.

    Parameters
    ----------
    hand : array_like, shape (N, 3)
        Hand end points relative to the shoulder, body frame [m].
    hand_rotation : array_like, shape (N, 3, 3)
        Hand frames in the body frame (anatomical position = identity).
    upper_arm, forearm : array_like, shape (N,) or scalar
        Segment lengths ``d1``, ``d2`` [m].
    side : Side or {"right", "left"}
        A left arm is mirrored into right-arm coordinates.

    Returns
    -------
    ndarray, shape (N, 8)
        ``[x, y, z, α, β, γ, d1, d2]`` (see the module).
    """
    hand = np.asarray(hand, dtype=np.float64)
    r_hand = np.asarray(hand_rotation, dtype=np.float64)
    if Side.parse(side) is Side.LEFT:
        hand, r_hand = _MIRROR * hand, _MIRROR[:, None] * r_hand * _MIRROR
    rotvec = quat_to_rotvec(rotmat_to_quat(r_hand))
    lengths = np.broadcast_to(
        np.stack(np.broadcast_arrays(upper_arm, forearm), axis=-1), (hand.shape[0], 2)
    )
    return np.concatenate([hand, rotvec, lengths], axis=-1)


CMU_HAND_TO_FOREARM = 51.1287 / 235.5017
"""Hand length (hand base → hand end) over forearm length of the CMU skeleton (its
``skeleton.json`` offsets of ``rhand`` and ``rwrist``)."""


def shape_features(
    features: ArrayLike, hand_to_forearm: float = CMU_HAND_TO_FOREARM
) -> NDArray[np.float64]:
    """The features ``m`` with the hand's rotation matrix and cues of the arm's shape.

    Columns: ``x, y, z`` [m]; the nine entries of the hand's rotation matrix
    (row-major); ``d1, d2`` [m]; the hand position over the arm length
    ``d1 + d2`` (3); its azimuth and elevation about the shoulder [rad] and
    its distance over the arm length; a straight-wrist forearm cue, the sine
    and cosine of the swivel angle of an elbow ``d2`` along the hand's axis
    behind a wrist ``hand_to_forearm · d2`` behind the hand end; the heights of
    that elbow and wrist over the arm length.

    Parameters
    ----------
    features : array_like, shape (N, 8)
        ``m = [x, y, z, α, β, γ, d1, d2]`` (see the module).
    hand_to_forearm : float
        Hand length over forearm length of the skeleton the features come
        from (default the CMU skeleton's).

    Returns
    -------
    ndarray, shape (N, 24)

    Raises
    ------
    InputError
        For features that are not (N, 8) or not finite.
    """
    x = _checked_features(features)
    hand, rot, d1, d2 = x[:, :3], rotvec_to_rotmat(x[:, 3:6]), x[:, 6], x[:, 7]
    length = (d1 + d2)[:, None]
    dist = np.linalg.norm(hand, axis=1)
    axis = rot[:, :, 2]  # from the hand end towards the wrist
    wrist = hand + (hand_to_forearm * d2)[:, None] * axis
    elbow = wrist + d2[:, None] * axis
    cue = np.nan_to_num(swivel_angle(np.zeros(3), elbow, wrist))
    return np.concatenate(
        [
            hand,
            rot.reshape(-1, 9),
            x[:, 6:],
            hand / length,
            np.arctan2(hand[:, 1], hand[:, 0])[:, None],
            np.arcsin(np.clip(hand[:, 2] / np.maximum(dist, 1e-9), -1.0, 1.0))[:, None],
            dist[:, None] / length,
            np.stack([np.sin(cue), np.cos(cue)], axis=1),
            np.stack([elbow[:, 2], wrist[:, 2]], axis=1) / length,
        ],
        axis=1,
    )


def cmu_hand_end(
    hand: ArrayLike,
    hand_rotation: ArrayLike,
    hand_length: float,
    forearm: float,
    hand_to_forearm: float = CMU_HAND_TO_FOREARM,
) -> NDArray[np.float64]:
    """The hand end an arm would have with the CMU skeleton's hand-to-forearm proportion.

    The wrist centre lies ``hand_length`` behind the hand end along the hand's
    axis (the hand points along its frame's −z); the returned point lies
    ``hand_to_forearm · forearm`` beyond that wrist centre. Features ``m`` of
    such points describe the same arm posture as those of the CMU data the
    predictors are fit on, whatever the arm's own hand length.

    Parameters
    ----------
    hand : array_like, shape (N, 3)
        Hand end points [m].
    hand_rotation : array_like, shape (N, 3, 3)
        Hand frames (anatomical position = identity).
    hand_length, forearm : float
        The arm's wrist-to-hand-end and elbow-to-wrist lengths [m].
    hand_to_forearm : float
        Hand length over forearm length to match (default the CMU skeleton's).

    Returns
    -------
    ndarray, shape (N, 3)
    """
    shift = float(hand_length) - float(hand_to_forearm) * float(forearm)
    return np.asarray(hand, dtype=np.float64) + shift * np.asarray(hand_rotation)[..., :, 2]


def wrist_features(
    features: ArrayLike, hand_to_forearm: float = CMU_HAND_TO_FOREARM
) -> NDArray[np.float64]:
    """Scale-free features of the wrist centre and the hand's orientation, from ``m``.

    The swivel angle is a property of the arm's shape, so these inputs leave
    out the hand's length and the arm's size: the wrist centre
    ``hand_to_forearm · d2`` behind the hand end along the hand's axis, over
    the arm length ``d1 + d2`` (3); the nine entries of the hand's rotation
    matrix (row-major); the wrist's distance from the shoulder over the arm
    length, its azimuth and its elevation [rad]; and the straight-wrist
    forearm cue of :func:`shape_features` (sine and cosine of the swivel angle
    of an elbow ``d2`` behind the wrist along the hand's axis).

    Parameters
    ----------
    features : array_like, shape (N, 8)
        ``m = [x, y, z, α, β, γ, d1, d2]`` (see the module).
    hand_to_forearm : float
        Hand length over forearm length of the skeleton the features come
        from (default the CMU skeleton's).

    Returns
    -------
    ndarray, shape (N, 17)

    Raises
    ------
    InputError
        For features that are not (N, 8) or not finite.
    """
    x = _checked_features(features)
    rot, wrist, _ = _wrist_frame(x, hand_to_forearm)
    return _wrist_columns(x, rot, wrist)


def _checked_features(features: ArrayLike) -> NDArray[np.float64]:
    """``features`` as a float array, shape (N, 8), or :class:`InputError`."""
    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(FEATURE_NAMES) or not np.all(np.isfinite(x)):
        raise InputError(f"features must be finite with shape (N, 8), got shape {x.shape}")
    return x


def _wrist_frame(
    x: NDArray[np.float64], hand_to_forearm: float
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """The hand's rotation, the wrist centre and the shoulder→wrist direction, from ``m``.

    Parameters
    ----------
    x : ndarray, shape (N, 8)
        Checked features ``m = [x, y, z, α, β, γ, d1, d2]``.
    hand_to_forearm : float
        Hand length over forearm length of the skeleton the features come from.

    Returns
    -------
    rotation : ndarray, shape (N, 3, 3)
        The hand's rotation matrices (its third column points from the hand
        end towards the wrist).
    wrist : ndarray, shape (N, 3)
        The wrist centre ``hand_to_forearm · d2`` behind the hand end along
        that column, in the shoulder frame [m].
    direction : ndarray, shape (N, 3)
        The unit shoulder→wrist direction (zero for a wrist at the shoulder).
    """
    rot = rotvec_to_rotmat(x[:, 3:6])
    wrist = x[:, :3] + (hand_to_forearm * x[:, 7])[:, None] * rot[:, :, 2]
    direction = wrist / np.maximum(np.linalg.norm(wrist, axis=1, keepdims=True), 1e-12)
    return rot, wrist, direction


def _wrist_columns(
    x: NDArray[np.float64], rot: NDArray[np.float64], wrist: NDArray[np.float64]
) -> NDArray[np.float64]:
    """The 17 columns of :func:`wrist_features` from ``m`` (N, 8) and :func:`_wrist_frame`."""
    d1, d2 = x[:, 6], x[:, 7]
    axis = rot[:, :, 2]  # from the hand end towards the wrist
    scaled = wrist / (d1 + d2)[:, None]
    dist = np.linalg.norm(scaled, axis=1)
    cue = np.nan_to_num(swivel_angle(np.zeros(3), wrist + d2[:, None] * axis, wrist))
    return np.concatenate(
        [
            scaled,
            rot.reshape(-1, 9),
            dist[:, None],
            np.arctan2(scaled[:, 1], scaled[:, 0])[:, None],
            np.arcsin(np.clip(scaled[:, 2] / np.maximum(dist, 1e-9), -1.0, 1.0))[:, None],
            np.stack([np.sin(cue), np.cos(cue)], axis=1),
        ],
        axis=1,
    )


def swivel_frame_features(
    features: ArrayLike, hand_to_forearm: float = CMU_HAND_TO_FOREARM
) -> NDArray[np.float64]:
    """The wrist features with the hand's axes measured about the shoulder→wrist axis.

    The swivel angle φ turns the elbow about the shoulder→wrist axis from a
    reference plane through the frame's z axis (:func:`~vhuman.reaching.swivel_angle`).
    Each axis of the hand's frame (its rotation matrix's columns) is measured
    the same way: its angle about the shoulder→wrist axis from that reference
    plane (sine and cosine) and the cosine of its angle with the
    shoulder→wrist direction. The hand's orientation then enters in the
    coordinates φ is measured in, so a rotation of the hand with the arm about
    the shoulder→wrist axis shifts these angles as it shifts φ.

    Parameters
    ----------
    features : array_like, shape (N, 8)
        ``m = [x, y, z, α, β, γ, d1, d2]`` (see the module).
    hand_to_forearm : float
        Hand length over forearm length of the skeleton the features come
        from (default the CMU skeleton's).

    Returns
    -------
    ndarray, shape (N, 26)
        :func:`wrist_features` (17 columns), then for the hand's x, y and z
        axes in turn: sine and cosine of the angle about the shoulder→wrist
        axis [−] and the cosine with the shoulder→wrist direction [−] (the z
        axis's angle is the forearm cue's, so columns 23 and 24 repeat
        columns 15 and 16 up to rounding; they are kept because the shipped
        predictors on these features are fit on all 26 columns); an axis along
        the shoulder→wrist line has angle 0.

    Raises
    ------
    InputError
        For features that are not (N, 8) or not finite.
    """
    x = _checked_features(features)
    rot, wrist, along = _wrist_frame(x, hand_to_forearm)
    columns = [_wrist_columns(x, rot, wrist)]
    for k in range(3):
        axis = rot[:, :, k]
        angle = _angle_about_wrist_axis(axis, wrist)
        columns.append(np.stack([np.sin(angle), np.cos(angle), np.sum(axis * along, 1)], 1))
    return np.concatenate(columns, axis=1)


def _angle_about_wrist_axis(
    axis: NDArray[np.float64], wrist: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Angles (N,) [rad] of directions ``axis`` (N, 3) about the shoulder→``wrist`` axis, as φ.

    0 where a direction lies along the shoulder→wrist line.
    """
    return np.nan_to_num(swivel_angle(np.zeros(3), wrist + axis, wrist))


def palm_angle(
    features: ArrayLike, hand_to_forearm: float = CMU_HAND_TO_FOREARM
) -> NDArray[np.float64]:
    """The angle of the hand's x axis about the shoulder→wrist axis, measured like φ [rad].

    The hand's x axis is the palm's normal in the anatomical position (palm
    forward). Its angle about the shoulder→wrist axis from φ's reference
    plane (:func:`swivel_frame_features`, columns 17 and 18) turns with the
    arm as φ does, so ``φ`` minus it is what is left to learn where the
    forearm's twist and the wrist keep the elbow at a steady angle from the
    palm.

    Parameters
    ----------
    features : array_like, shape (N, 8)
        ``m = [x, y, z, α, β, γ, d1, d2]`` (see the module).
    hand_to_forearm : float
        Hand length over forearm length of the skeleton the features come from.

    Returns
    -------
    ndarray, shape (N,)
        In (−π, π]; 0 where the axis lies along the shoulder→wrist line.

    Raises
    ------
    InputError
        For features that are not (N, 8) or not finite.
    """
    x = _checked_features(features)
    rot, wrist, _ = _wrist_frame(x, hand_to_forearm)
    return _angle_about_wrist_axis(rot[:, :, 0], wrist)


def _features(
    shoulder: NDArray[np.float64],
    elbow: NDArray[np.float64],
    wrist: NDArray[np.float64],
    hand: NDArray[np.float64],
    r_hand: NDArray[np.float64],
    side: Side,
) -> SwivelSamples:
    """Features from shoulder-frame positions (T, 3) and hand rotations (T, 3, 3)."""
    upper, fore = elbow - shoulder, wrist - elbow
    d1 = np.linalg.norm(upper, axis=-1)
    d2 = np.linalg.norm(fore, axis=-1)
    cos_flex = np.sum(upper * fore, axis=-1) / np.maximum(d1 * d2, 1e-12)
    features = task_features(hand - shoulder, r_hand, d1, d2, side)
    phi = swivel_angle(shoulder, elbow, wrist)
    if side is Side.LEFT:
        phi = -phi
    return SwivelSamples(features, phi, np.arccos(np.clip(cos_flex, -1.0, 1.0)))


def _body_frames(p_lshoulder: NDArray[np.float64], p_rshoulder: NDArray[np.float64]) -> NDArray:
    """``R_world_body`` (..., 3, 3) at the shoulders: x forward, y left (horizontal), z up."""
    left = (p_lshoulder - p_rshoulder) * [1.0, 1.0, 0.0]
    left = left / np.maximum(np.linalg.norm(left, axis=-1, keepdims=True), 1e-12)
    forward = np.cross(left, _UP)
    return np.stack([forward, left, np.broadcast_to(_UP, left.shape)], axis=-1)


def _trunk_frames(motion: Motion, names: Mapping[str, str]) -> NDArray[np.float64]:
    """``R_world_trunk`` (T, 3, 3) at every frame: the thorax's, or upright (see the module)."""
    skeleton = motion.skeleton
    i_l, i_r = skeleton.indices([names["lshoulder"], names["rshoulder"]])
    if "thorax" not in names:
        p = motion.global_positions
        return _body_frames(p[:, i_l], p[:, i_r])
    rest = skeleton.rest_positions()
    r_rest = _body_frames(rest[i_l], rest[i_r])
    (i_t,) = skeleton.indices([names["thorax"]])
    return quat_to_rotmat(motion.global_rotations[:, i_t]) @ r_rest


def _check_roles(names: Mapping[str, str]) -> None:
    missing = sorted(set(ARM_ROLES) - set(names))
    if missing:
        raise InputError(f"names must map every role of {list(ARM_ROLES)}; missing {missing}")


def rest_hand_orientation(
    skeleton: Skeleton, side: Side | str, *, names: Mapping[str, str] = CMU_ARM_JOINTS
) -> NDArray[np.float64]:
    """The hand frame of one arm in the skeleton's rest pose, in world coordinates.

    The hand frame is the frame whose axes are the body's (x forward, y left,
    z up) in the anatomical position: the hand points along its −z axis and
    the thumb along −y (right hand) or +y (left hand). When ``names`` maps the
    role ``rthumb``/``lthumb`` (the thumb tip), the frame follows from the rest
    positions of wrist, hand and thumb; otherwise the rest pose is taken to be
    the anatomical position and the frame is the body frame at the shoulders.

    Parameters
    ----------
    skeleton : Skeleton
    side : Side or {"right", "left"}
    names : mapping
        Joint names for the roles of :data:`ARM_ROLES` (and optionally the thumbs).

    Returns
    -------
    ndarray, shape (3, 3)
        ``R_world_hand`` at rest. A motion's wrist global rotation times this
        matrix is the hand frame at each frame.

    Raises
    ------
    InputError
        For an unknown side, a missing role, or a thumb on the hand's axis;
        UnknownJointError for a joint the skeleton lacks.
    """
    arm = Side.parse(side)
    _check_roles(names)
    s = "l" if arm is Side.LEFT else "r"
    rest = skeleton.rest_positions()
    p = rest[skeleton.indices([names[r] for r in ("lshoulder", "rshoulder", f"{s}wrist")])]
    r_world_body = _body_frames(p[0], p[1])
    thumb_role = f"{s}thumb"
    if thumb_role not in names:
        return r_world_body
    hand, thumb = rest[skeleton.indices([names[f"{s}hand"], names[thumb_role]])] - p[2]
    z = -hand / max(float(np.linalg.norm(hand)), 1e-12)
    t = thumb - np.dot(thumb, z) * z
    if np.linalg.norm(t) < 1e-6 * max(float(np.linalg.norm(thumb)), 1e-12):
        raise InputError(f"the rest thumb tip {names[thumb_role]!r} lies on the hand's axis")
    y = (-t if arm is Side.RIGHT else t) / np.linalg.norm(t)
    return np.stack([np.cross(y, z), y, z], axis=-1)


def swivel_samples_from_motion(
    motion: Motion, side: Side | str, *, names: Mapping[str, str] = CMU_ARM_JOINTS
) -> SwivelSamples:
    """Swivel features and angles of one arm at every frame of a motion.

    Parameters
    ----------
    motion : Motion
        A motion in vhuman's world frame (z up); the trunk frame at the
        shoulder is the thorax's where ``names`` maps ``thorax``, else the
        upright frame of both shoulders at each frame (see the module).
    side : Side or {"right", "left"}
        The arm; a left arm is mirrored into right-arm coordinates.
    names : mapping
        Joint names of the skeleton for the roles of :data:`ARM_ROLES` (and
        optionally ``lthumb``, ``rthumb``: see :func:`rest_hand_orientation`;
        ``thorax``: the trunk frame); the wrist joint's global rotation turns
        the rest hand frame. Default:
        the CMU skeleton; :data:`STANDARD_ARM_JOINTS` for the standard humanoid.

    Returns
    -------
    SwivelSamples
        ``features`` (T, 8), ``swivel`` (T,) [rad] and ``elbow_flexion`` (T,) [rad].

    Raises
    ------
    InputError
        For an unknown side or a missing role in ``names``; UnknownJointError
        for a joint name the skeleton lacks.

    References
    ----------
    Xia et al. (2021), arm configuration learning, ``m = [x, y, z, α, β, γ, d1, d2]``.
    """
    arm = Side.parse(side)
    r_rest = rest_hand_orientation(motion.skeleton, arm, names=names)
    s = "l" if arm is Side.LEFT else "r"
    roles = (f"{s}shoulder", f"{s}elbow", f"{s}wrist", f"{s}hand")
    idx = motion.skeleton.indices([names[r] for r in roles])
    p = motion.global_positions[:, idx]  # (T, 4, 3)
    r_world_body = _trunk_frames(motion, names)  # (T, 3, 3)
    rel = np.einsum("tji,tkj->tki", r_world_body, p - p[:, :1])  # trunk frame, (T, 4, 3)
    r_world_hand = quat_to_rotmat(motion.global_rotations[:, idx[2]]) @ r_rest
    r_body_hand = np.swapaxes(r_world_body, -1, -2) @ r_world_hand
    return _features(rel[:, 0], rel[:, 1], rel[:, 2], rel[:, 3], r_body_hand, arm)


def _trial_files(root: Path, actions: Sequence[str] | None) -> list[tuple[str, Path]]:
    train = root / "train"
    if not train.is_dir():
        raise InputError(f"root must contain a train/ folder of CMU actions, got {root}")
    available = sorted(p.name for p in train.iterdir() if p.is_dir())
    chosen = available if actions is None else list(actions)
    unknown = sorted(set(chosen) - set(available))
    if unknown:
        raise InputError(f"actions must be among {available}, got unknown {unknown}")
    return [(a, f) for a in chosen for f in sorted((train / a).glob("*.txt"))]


def _trial_samples(
    motion: Motion, names: Mapping[str, str], group: str, activity: str
) -> SwivelDataset:
    """Both arms' samples of one trial, arms bent less than :data:`MIN_ELBOW_FLEXION` dropped."""
    parts = []
    for arm in Side:
        f, phi, flex = swivel_samples_from_motion(motion, arm, names=names)
        keep = (flex >= MIN_ELBOW_FLEXION) & np.isfinite(phi)
        n = int(keep.sum())
        parts.append(
            SwivelDataset(
                f[keep],
                phi[keep],
                np.full(n, group),
                np.full(n, activity),
                np.full(n, arm.value),
                dropped=int(keep.size - n),
            )
        )
    return SwivelDataset.concatenate(parts)


def cmu_swivel_dataset(
    root: PathLike, *, actions: Sequence[str] | None = None, step: int = 4
) -> SwivelDataset:
    """Swivel samples of both arms from the CMU exp-map files.

    Every ``root/train/<action>/*.txt`` file is read with
    :func:`vhuman.io.read_cmu`; frame 0 (a reset pose) is skipped, then every
    ``step``-th frame is kept. Frames whose elbow flexion is below
    :data:`MIN_ELBOW_FLEXION` are dropped (φ is undefined for a straight arm);
    their count is ``dropped`` of the result.

    Parameters
    ----------
    root : path
        The CMU data folder (holding ``train/``).
    actions : sequence of str, optional
        Action folders to read; default all.
    step : int
        Keep every ``step``-th frame (≥ 1).

    Returns
    -------
    SwivelDataset
        ``groups`` ``"<action>/<file stem>"``, ``activity`` the action.

    Raises
    ------
    InputError
        For a missing ``train/`` folder, an unknown action (the message lists
        the available ones), ``step`` < 1, or no file found.
    """
    if int(step) != step or step < 1:
        raise InputError(f"step must be an integer ≥ 1, got {step}")
    files = _trial_files(Path(root), actions)
    if not files:
        raise InputError(f"no .txt trial files under {Path(root) / 'train'}")
    return SwivelDataset.concatenate(
        [
            _trial_samples(
                read_cmu(path)[1 :: int(step)], CMU_ARM_JOINTS, f"{action}/{path.stem}", action
            )
            for action, path in files
        ]
    )


def cmu_folder_swivel_dataset(folder: PathLike, *, step: int = 4) -> SwivelDataset:
    """Swivel samples of every CMU trial file in a folder, whatever its layout.

    The folder may be the CMU data folder (``train/<action>/*.txt``), hold one
    subfolder per action (``<action>/*.txt``), or hold the trial files
    themselves (``<action>_<k>.txt``, the action read from the name). Samples
    are taken as in :func:`cmu_swivel_dataset`.

    Parameters
    ----------
    folder : path
    step : int
        Keep every ``step``-th frame (≥ 1).

    Returns
    -------
    SwivelDataset
        ``groups`` ``"<action>/<file stem>"``, ``activity`` the action.

    Raises
    ------
    InputError
        For a folder that does not exist or holds no ``.txt`` file in any of
        the three layouts, or ``step`` < 1.
    """
    root = Path(folder)
    if int(step) != step or step < 1:
        raise InputError(f"step must be an integer ≥ 1, got {step}")
    if not root.is_dir():
        raise InputError(f"data must be a folder of CMU trial files, got {root}")
    if (root / "train").is_dir():
        files = _trial_files(root, None)
    else:
        files = [(f.parent.name, f) for f in sorted(root.glob("*/*.txt"))]
        files += [(_TRIAL_SUFFIX.sub("", f.stem) or f.stem, f) for f in sorted(root.glob("*.txt"))]
    if not files:
        raise InputError(
            f"no .txt trial files in {root} (allowed: train/<action>/*.txt, <action>/*.txt "
            "or the files themselves)"
        )
    return SwivelDataset.concatenate(
        [
            _trial_samples(
                read_cmu(path)[1 :: int(step)], CMU_ARM_JOINTS, f"{action}/{path.stem}", action
            )
            for action, path in files
        ]
    )


DEEPMIMIC_ARM_JOINTS: Mapping[str, str] = MappingProxyType(
    {
        **{f"{s}shoulder": f"{side}_shoulder" for s, side in (("l", "left"), ("r", "right"))},
        **{f"{s}elbow": f"{side}_elbow" for s, side in (("l", "left"), ("r", "right"))},
        # No hand: the wrist is the arm's end, its orientation the forearm's.
        **{f"{s}wrist": f"{side}_wrist" for s, side in (("l", "left"), ("r", "right"))},
        **{f"{s}hand": f"{side}_wrist" for s, side in (("l", "left"), ("r", "right"))},
    }
)
"""Arm joint roles → joint names of the DeepMimic humanoid (:func:`vhuman.io.deepmimic_humanoid`),
which has no hand: features ``x, y, z`` are the wrist's position and ``α, β, γ`` the forearm's
orientation (its rest pose, arms hanging, taken as the anatomical position)."""


def deepmimic_swivel_dataset(clips: Sequence[str] | None = None, *, step: int = 1) -> SwivelDataset:
    """Swivel samples of both arms from the DeepMimic clips shipped with pybullet.

    The hand has no joint of its own in the DeepMimic humanoid, so these
    samples describe the wrist (see :data:`DEEPMIMIC_ARM_JOINTS`): do not mix
    them with CMU samples in one model. Frames with elbow flexion below
    :data:`MIN_ELBOW_FLEXION` are dropped.

    Parameters
    ----------
    clips : sequence of str, optional
        Clip names (:func:`vhuman.io.deepmimic_clip_names`); default all.
    step : int
        Keep every ``step``-th frame (≥ 1).

    Returns
    -------
    SwivelDataset
        ``groups`` ``"deepmimic/<clip>"``, ``activity`` the clip name.

    Raises
    ------
    InputError
        Without pybullet's data, for an unknown clip (the message lists the
        clips), or ``step`` < 1.
    """
    from vhuman.io import deepmimic_clip_names, deepmimic_clip_path, read_deepmimic

    if int(step) != step or step < 1:
        raise InputError(f"step must be an integer ≥ 1, got {step}")
    return SwivelDataset.concatenate(
        [
            _trial_samples(
                read_deepmimic(deepmimic_clip_path(clip))[:: int(step)],
                DEEPMIMIC_ARM_JOINTS,
                f"deepmimic/{clip}",
                clip,
            )
            for clip in (deepmimic_clip_names() if clips is None else clips)
        ]
    )


def split_by_trial(
    dataset: SwivelDataset, *, test_fraction: float = 0.2, seed: int = 0
) -> tuple[SwivelDataset, SwivelDataset]:
    """Random train/test split by group: no trial has samples on both sides.

    ``round(test_fraction · G)`` of the G groups (at least one, at most G − 1),
    drawn with ``numpy.random.default_rng(seed)``, form the test set (the
    group-wise split of scikit-learn's ``GroupShuffleSplit``, without the
    dependency).

    Returns
    -------
    (SwivelDataset, SwivelDataset)
        Train and test.

    Raises
    ------
    InputError
        If ``test_fraction`` is not in (0, 1) or there are fewer than 2 groups.
    """
    if not 0.0 < test_fraction < 1.0:
        raise InputError(f"test_fraction must be in (0, 1), got {test_fraction}")
    groups = np.unique(dataset.groups)
    if groups.size < 2:
        raise InputError(f"splitting by trial needs at least 2 groups, got {groups.size}")
    n_test = min(max(round(test_fraction * groups.size), 1), groups.size - 1)
    test_groups = np.random.default_rng(seed).permutation(groups)[:n_test]
    test = np.isin(dataset.groups, test_groups)
    return dataset.subset(~test), dataset.subset(test)


def validation_split_highest_numbered(
    dataset: SwivelDataset,
) -> tuple[SwivelDataset, SwivelDataset]:
    """Train/test split with the highest-numbered trial of each activity as the test set.

    The split the CMU data README suggests: a group ``"<action>/<name>_<k>"``
    is a test trial when ``k`` is the largest number among the groups of its
    activity.

    Returns
    -------
    (SwivelDataset, SwivelDataset)
        Train and test.

    Raises
    ------
    InputError
        If a group name does not end in a number.
    """
    groups = np.unique(dataset.groups)
    numbers = {}
    for g in groups:
        match = _TRIAL_NUMBER.search(str(g))
        if match is None:
            raise InputError(f"group names must end in a trial number, got {g!r}")
        numbers[str(g)] = int(match.group(1))
    test_groups = []
    for act in np.unique(dataset.activity):
        in_act = np.unique(dataset.groups[dataset.activity == act])
        test_groups.append(max(in_act, key=lambda g: numbers[str(g)]))
    test = np.isin(dataset.groups, test_groups)
    return dataset.subset(~test), dataset.subset(test)


def synthetic_swivel_dataset(model: ArmModel, n: int, rng: np.random.Generator) -> SwivelDataset:
    """Swivel samples of random arm postures within the joint limits.

    Joint angles are drawn uniformly within :data:`~vhuman.reaching.JOINT_LIMITS`,
    postures with elbow flexion below :data:`MIN_ELBOW_FLEXION` are redrawn,
    and the features follow from :meth:`ArmModel.forward` (hand orientation
    ``ArmPose.hand_orientation``; a left model is mirrored into right-arm
    coordinates). Each sample is its own group (``"synthetic/<i>"``).

    Parameters
    ----------
    model : ArmModel
    n : int
        Number of samples (≥ 1).
    rng : numpy.random.Generator

    Returns
    -------
    SwivelDataset
        ``synthetic=True``, activity ``"synthetic"``, side ``model.side``.

    Raises
    ------
    InputError
        If ``n`` < 1.
    """
    if int(n) != n or n < 1:
        raise InputError(f"n must be an integer ≥ 1, got {n}")
    features, swivel = np.empty((0, 8)), np.empty(0)
    while swivel.size < n:
        q = rng.uniform(JOINT_LIMITS[:, 0], JOINT_LIMITS[:, 1], size=(2 * int(n), 7))
        pose = model.forward(q)
        f, phi, flex = _features(
            pose.shoulder,
            pose.elbow,
            pose.wrist,
            pose.hand,
            quat_to_rotmat(pose.hand_orientation),
            model.side,
        )
        keep = (flex >= MIN_ELBOW_FLEXION) & np.isfinite(phi)
        features = np.concatenate([features, f[keep]])
        swivel = np.concatenate([swivel, phi[keep]])
    n = int(n)
    return SwivelDataset(
        features[:n],
        swivel[:n],
        np.array([f"synthetic/{i}" for i in range(n)]),
        np.full(n, "synthetic"),
        np.full(n, model.side.value),
        synthetic=True,
    )
