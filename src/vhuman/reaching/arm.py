"""The 7-DOF human arm of Xia et al. (2021): D-H chain, joint limits, forward kinematics.

Frames
------
Every position and orientation here is in the **shoulder frame**: origin at the
shoulder (gleno-humeral) centre, axes parallel to the body's: x forward, y to
the body's left, z up (the world convention of DESIGN.md with the trunk
upright). The D-H base frame 0 of Xia et al. (2021) is the shoulder frame turned by
+90° about y: ``x0`` points down, ``y0`` left and ``z0`` forward.

Reading of Xia et al.'s D-H table (Table 1)
-------------------------------------------
Standard (distal) D-H, ``A_i = Rz(θ_i) Tz(d_i) Tx(a_i) Rx(α_i)`` with
``θ_i = q_i + offset_i``:

===== ======== ===== ====== ====== ===================== ====================
joint offset   a     d      α      printed limits        limits on ``q_i``
===== ======== ===== ====== ====== ===================== ====================
1     0°       0     0      −90°   [−160°, 45°]          [−160°, 45°]
2     −90°     0     0      90°    [−120°, 0°]           [−120°, 60°] (AAOS)
3     0°       0     −d_se  −90°   [−120°, 0°]           [−90°, 70°] (AAOS)
4     0°       0     0      90°    [−140°, 0°]           [−140°, 0°]
5     0°       0     −d_ew  −90°   [0°, 180°]            [0°, 180°]
6     90°      0     0      90°    [15°, 165°]           [−75°, 75°]
7     0°       a     0      0°     [−40°, 30°]           [−40°, 30°]
===== ======== ===== ====== ====== ===================== ====================

With this table ``q = 0`` is the anatomical position: the arm hangs straight
down with the hand in line with the forearm and the palm forward. From there
``q1 < 0`` abducts the right arm (about the forward axis), ``q2 < 0`` flexes the
shoulder (about the left axis), ``q3 < 0`` rotates the humerus externally,
``q4 < 0`` flexes the elbow (the forearm swings forward), ``q5 > 0`` pronates
the forearm, ``q6`` flexes/extends the wrist and ``q7`` deviates it. The limits
are read as limits on the joint variable ``q_i`` (the D-H angle minus its
offset) for every joint but 6: the printed range [15°, 165°] of joint 6 is 150°
wide and centred on 90°, so a limit on ``q6`` would forbid a straight wrist;
it is read as the range of the full D-H angle ``θ6 = q6 + 90°``, i.e.
``q6 ∈ [−75°, 75°]`` (75° of flexion and of extension).

The printed ranges of joints 2 and 3 allow no extension of the shoulder
(``q2 > 0``) and no internal rotation of the humerus (``q3 > 0``), which
people use: an arm swinging behind the trunk in walking, a hand in front of
the belly or behind the back. In the CMU training trials (every 16th frame,
6,713 swivel samples of ``cmu_swivel_dataset``, the arm solved at the measured
φ), 59 % of the samples extend the shoulder and 45 % rotate the humerus
inwards; 13 % have an in-limit posture within the printed ranges, 62 % within
the ranges used here (most of the rest deviate the wrist past joint 7's
range). These two joints therefore
take the average ranges of motion of the American Academy of Orthopaedic
Surgeons that the skeleton uses (:data:`vhuman.skeleton.anthropometry.AAOS_ROM_DEG`:
extension 60°, internal rotation 70°, external rotation 90°). Joint 3's range
stays under 180° wide, so one swivel angle still has one in-limit solution.

Left arm
--------
The left arm is the mirror image of the right arm through the sagittal plane
(``y → −y``): ``FK_left(q) = M · FK_right(q)`` for positions and
``M R M`` for orientations, ``M = diag(1, −1, 1)``. The same ``q`` therefore means
the same anatomical posture on both sides (``q1 < 0`` abducts either arm), and
the joint limits are the same numbers; each left joint axis is the mirror image
of the right one with its sense reversed.

References
----------
Xia, Z., et al. (2021). Human-like reaching motion of a virtual human arm
(minimum jerk and multilayer perceptron), Table 1 and Fig. 1.
Shimizu, M., Kakuya, H., Yoon, W.-K., Kitagaki, K., & Kosuge, K. (2008).
Analytical inverse kinematic computation for 7-DOF redundant manipulators with
joint limits and its application to redundancy resolution. IEEE Trans.
Robotics 24(5), 1131–1142.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry import rotmat_to_quat
from vhuman.skeleton import Side, Skeleton
from vhuman.skeleton.anthropometry import AAOS_ROM_DEG

__all__ = [
    "DH_ALPHA",
    "DH_OFFSETS",
    "JOINT_LIMITS",
    "LIMIT_TOL",
    "R_SHOULDER_DH",
    "ArmModel",
    "ArmPose",
    "Side",
]

DH_OFFSETS = np.radians([0.0, -90.0, 0.0, 0.0, 0.0, 90.0, 0.0])
"""D-H angle offsets: ``θ_i = q_i + DH_OFFSETS[i]`` [rad], shape (7,)."""

DH_ALPHA = np.radians([-90.0, 90.0, -90.0, 90.0, -90.0, 90.0, 0.0])
"""D-H link twists ``α_i`` [rad], shape (7,)."""

_SHOULDER_ROM = AAOS_ROM_DEG["shoulder"]

JOINT_LIMITS = np.radians(
    [
        [-160.0, 45.0],
        [-120.0, _SHOULDER_ROM["extension"]],
        [-_SHOULDER_ROM["external_rotation"], _SHOULDER_ROM["internal_rotation"]],
        [-140.0, 0.0],
        [0.0, 180.0],
        [-75.0, 75.0],
        [-40.0, 30.0],
    ]
)
"""Limits on the joint variables ``q`` [rad], shape (7, 2), ``[:, 0]`` lower, ``[:, 1]`` upper:
Xia et al.'s, joints 2 and 3 the AAOS shoulder ranges (see the module)."""

LIMIT_TOL = 1e-9
"""Tolerance [rad] within which a joint angle counts as within :data:`JOINT_LIMITS`."""

R_SHOULDER_DH = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])
"""Rotation from the D-H base frame 0 to the shoulder frame (x0 down, z0 forward)."""

_MIRROR = np.array([1.0, -1.0, 1.0])


@dataclass(frozen=True)
class ArmPose:
    """Positions and hand orientation of an arm, in the shoulder frame.

    Attributes
    ----------
    shoulder, elbow, wrist, hand : ndarray, shape (..., 3)
        Joint centres and the hand's end point [m]; the shoulder is the origin.
    hand_orientation : ndarray, shape (..., 4)
        ``q_shoulder_hand`` (w, x, y, z): the identity in the anatomical
        position, the hand pointing along its −z axis.
    """

    shoulder: NDArray[np.float64]
    elbow: NDArray[np.float64]
    wrist: NDArray[np.float64]
    hand: NDArray[np.float64]
    hand_orientation: NDArray[np.float64]


def _check_length(value: float, name: str) -> float:
    value = float(value)
    if not (np.isfinite(value) and value > 0.0):
        raise InputError(f"{name} must be a finite length > 0 m, got {value}")
    return value


def _dh_matrices(
    q: NDArray[np.float64], d: NDArray[np.float64], a: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Homogeneous D-H transforms ``A_i`` of the seven joints, shape (..., 7, 4, 4)."""
    theta = q + DH_OFFSETS
    ct, st = np.cos(theta), np.sin(theta)
    ca, sa = np.cos(DH_ALPHA), np.sin(DH_ALPHA)
    m = np.zeros((*q.shape, 4, 4))
    m[..., 0, :] = np.stack([ct, -st * ca, st * sa, a * ct], axis=-1)
    m[..., 1, :] = np.stack([st, ct * ca, -ct * sa, a * st], axis=-1)
    m[..., 2, 1], m[..., 2, 2], m[..., 2, 3] = sa, ca, d
    m[..., 3, 3] = 1.0
    return m


@dataclass(frozen=True)
class ArmModel:
    """Xia et al.'s 7-DOF arm with given segment lengths, for one side.

    Parameters
    ----------
    upper_arm : float
        Shoulder-to-elbow length ``d_se`` [m], > 0.
    forearm : float
        Elbow-to-wrist length ``d_ew`` [m], > 0.
    hand : float
        Wrist-to-hand-end length ``a`` [m], > 0.
    side : Side or {"right", "left"}
        Which arm; the left is the mirror image of the right (see the module).

    Raises
    ------
    InputError
        For a length that is not finite and > 0 (the message names it), or an
        unknown side.

    Examples
    --------
    >>> arm = ArmModel(0.33, 0.22, 0.08)
    >>> round(float(arm.forward(np.zeros(7)).hand[2]), 3)  # anatomical position: arm hanging
    -0.63
    """

    upper_arm: float
    forearm: float
    hand: float
    side: Side = Side.RIGHT

    def __post_init__(self) -> None:
        for name in ("upper_arm", "forearm", "hand"):
            object.__setattr__(self, name, _check_length(getattr(self, name), name))
        object.__setattr__(self, "side", Side.parse(self.side))

    @classmethod
    def from_skeleton(cls, skeleton: Skeleton, side: Side | str = Side.RIGHT) -> ArmModel:
        """The arm of ``skeleton`` with its segment lengths.

        The lengths are the rest offsets of ``<s>_elbow``, ``<s>_wrist`` and
        ``<s>_hand`` (``s`` = ``r`` or ``l``), as in
        :func:`vhuman.skeleton.standard_humanoid`.

        Raises
        ------
        InputError
            For an unknown side; UnknownJointError when a joint is missing.
        """
        model_side = Side.parse(side)
        prefix = "r_" if model_side is Side.RIGHT else "l_"
        lengths = np.linalg.norm(
            skeleton.offsets[
                skeleton.indices([f"{prefix}{j}" for j in ("elbow", "wrist", "hand")])
            ],
            axis=-1,
        )
        return cls(*(float(x) for x in lengths), model_side)

    @property
    def reach(self) -> tuple[float, float]:
        """Smallest and largest shoulder-to-wrist distance ``(|d_se − d_ew|, d_se + d_ew)`` [m]."""
        return abs(self.upper_arm - self.forearm), self.upper_arm + self.forearm

    @property
    def limits(self) -> NDArray[np.float64]:
        """Joint limits on ``q`` [rad], shape (7, 2) (the same for both sides)."""
        return JOINT_LIMITS

    def within_limits(self, q: ArrayLike, *, tol: float = LIMIT_TOL) -> NDArray[np.bool_]:
        """Whether every joint of ``q`` (..., 7) [rad] is within its limits (± ``tol``)."""
        q = np.asarray(q, dtype=np.float64)
        return np.all((q >= JOINT_LIMITS[:, 0] - tol) & (q <= JOINT_LIMITS[:, 1] + tol), axis=-1)

    def dh_parameters(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """D-H ``d`` and ``a`` of the seven joints [m], each shape (7,)."""
        d = np.array([0.0, 0.0, -self.upper_arm, 0.0, -self.forearm, 0.0, 0.0])
        a = np.array([0.0, 0.0, 0.0, 0.0, 0.0, 0.0, self.hand])
        return d, a

    @property
    def _mirror(self) -> NDArray[np.float64]:
        return _MIRROR if self.side is Side.LEFT else np.ones(3)

    def _frames(self, q: ArrayLike) -> list[NDArray[np.float64]]:
        """D-H frames ``A_1 ⋯ A_i`` (i = 1 … 7) of checked ``q``, each (..., 4, 4)."""
        q = np.asarray(q, dtype=np.float64)
        if q.ndim == 0 or q.shape[-1] != 7:
            raise InputError(f"q must have shape (..., 7) [rad], got {q.shape}")
        if not np.all(np.isfinite(q)):
            raise InputError("q contains NaN or infinite values")
        d, a = self.dh_parameters()
        m = _dh_matrices(q, d, a)
        frames = [m[..., 0, :, :]]
        for i in range(1, 7):
            frames.append(frames[-1] @ m[..., i, :, :])
        return frames

    def segment_rotations(self, q: ArrayLike) -> NDArray[np.float64]:
        """Rotations of upper arm, forearm and hand from the anatomical position.

        Each is ``R(q) R(0)ᵀ`` in the shoulder frame: the rotation that takes
        the segment from where it is at ``q = 0`` to where it is at ``q``. The
        forearm's excludes the pronation ``q5`` (a twist about its own axis
        that moves no joint centre), so a skeleton with a hinge elbow takes
        pronation in its wrist joint.

        Parameters
        ----------
        q : array_like, shape (..., 7)
            Joint angles [rad].

        Returns
        -------
        ndarray, shape (..., 3, 3, 3)
            ``[upper arm, forearm, hand]`` rotation matrices.

        Raises
        ------
        InputError
            If ``q`` is not (..., 7) or not finite.
        """
        at_q = self._frames(q)
        at_rest = self._frames(np.zeros(7))
        mirror = self._mirror
        out = []
        for k in (2, 3, 6):  # after joints 1-3, 1-4 and 1-7
            r = at_q[k][..., :3, :3] @ at_rest[k][:3, :3].T
            r = R_SHOULDER_DH @ r @ R_SHOULDER_DH.T
            out.append(mirror[:, None] * r * mirror)
        return np.stack(out, axis=-3)

    def forward(self, q: ArrayLike) -> ArmPose:
        """Forward kinematics of joint angles ``q`` (..., 7) [rad], in the shoulder frame.

        Joint limits are not checked (see :meth:`within_limits`).

        Raises
        ------
        InputError
            If ``q`` is not (..., 7) or not finite.
        """
        q = np.asarray(q, dtype=np.float64)
        frames = self._frames(q)
        mirror = self._mirror

        def point(frame: NDArray[np.float64]) -> NDArray[np.float64]:
            return mirror * (frame[..., :3, 3] @ R_SHOULDER_DH.T)

        r_hand = R_SHOULDER_DH @ frames[6][..., :3, :3] @ R_SHOULDER_DH.T
        r_hand = mirror[:, None] * r_hand * mirror
        return ArmPose(
            shoulder=np.zeros((*q.shape[:-1], 3)),
            elbow=point(frames[2]),
            wrist=point(frames[4]),
            hand=point(frames[6]),
            hand_orientation=rotmat_to_quat(r_hand),
        )
