"""`Chain`: the joints of a skeleton from a start joint down to an end effector, with their DOFs."""

from __future__ import annotations

import math
from dataclasses import KW_ONLY, dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.ik._ops import EulerAxes
from vhuman.skeleton import JointType, Skeleton, forward_kinematics

__all__ = ["Chain", "JointSpec", "RootDofs"]

_GIMBAL_MARGIN = 1e-6
"""[rad] kept between a limit and the gimbal-lock value of a middle Euler angle, where the
split between first and third angle is not unique (so clamped angles stay unambiguous)."""


@dataclass(frozen=True)
class RootDofs:
    """The motions of the root joint (a FREE joint) that a chain may use.

    Translations and a hinge rotation are relative to the root's pose when the
    solve starts; the limits bound that displacement.

    Parameters
    ----------
    translation_axes : array_like, shape (k, 3)
        Orthonormal world axes along which the root may translate (k = 0 to 3).
    translation_limits : array_like, shape (k, 2), optional
        Bounds of the displacement along each axis [m]; unbounded by default.
    rotation : JointType
        ``BALL``: any rotation within the skeleton's root limits; ``HINGE``: only
        about ``rotation_axis`` (a world axis through the root); ``FIXED``: none.
    rotation_axis : array_like, shape (3,)
        World axis of a ``HINGE`` rotation (default: vertical, z).
    rotation_limits : tuple of float
        Bounds [rad] of a ``HINGE`` rotation, relative to the starting pose.
    max_step : float
        Largest root displacement of one solver update [m] (``inf``: none): the
        legs carry the body one step at a time.

    Raises
    ------
    InputError
        For non-orthonormal axes, bad limits or a FREE rotation type.
    """

    translation_axes: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 3)))
    translation_limits: NDArray[np.float64] | None = None
    rotation: JointType = JointType.BALL
    rotation_axis: NDArray[np.float64] = field(default_factory=lambda: np.array([0.0, 0, 1]))
    rotation_limits: tuple[float, float] = (-math.inf, math.inf)
    max_step: float = math.inf

    def __post_init__(self) -> None:
        axes = np.array(self.translation_axes, dtype=np.float64).reshape(-1, 3)
        if len(axes) > 3 or not np.all(np.isfinite(axes)):
            raise InputError(f"translation_axes must be up to 3 finite 3-vectors, got {axes}")
        if not np.allclose(axes @ axes.T, np.eye(len(axes)), atol=1e-9):
            raise InputError("translation_axes must be orthonormal (unit length, at right angles)")
        if self.translation_limits is None:
            limits = np.tile([-np.inf, np.inf], (len(axes), 1))
        else:
            limits = np.array(self.translation_limits, dtype=np.float64).reshape(-1, 2)
        if limits.shape != (len(axes), 2) or np.any(np.isnan(limits)):
            raise InputError(f"translation_limits must have shape ({len(axes)}, 2) without NaN")
        if np.any(limits[:, 0] > 0.0) or np.any(limits[:, 1] < 0.0):
            raise InputError("translation_limits must contain 0 (lower <= 0 <= upper) [m]")
        if self.rotation not in (JointType.BALL, JointType.HINGE, JointType.FIXED):
            raise InputError(f"root rotation must be BALL, HINGE or FIXED, got {self.rotation}")
        axis = np.array(self.rotation_axis, dtype=np.float64)
        norm = np.linalg.norm(axis) if axis.shape == (3,) else 0.0
        if not (np.isfinite(norm) and norm > 1e-9):
            raise InputError(f"rotation_axis must be a non-zero 3-vector, got {self.rotation_axis}")
        lo, hi = (float(v) for v in self.rotation_limits)
        if not lo <= 0.0 <= hi:
            raise InputError(f"rotation_limits must contain 0 (lower <= 0 <= upper), got {lo, hi}")
        for name, value in (
            ("translation_axes", axes),
            ("translation_limits", limits),
            ("rotation_axis", axis / norm),
        ):
            value.setflags(write=False)
            object.__setattr__(self, name, value)
        object.__setattr__(self, "rotation_limits", (lo, hi))
        if not float(self.max_step) > 0.0:
            raise InputError(f"max_step must be > 0 m (inf for none), got {self.max_step}")
        object.__setattr__(self, "max_step", float(self.max_step))

    @classmethod
    def horizontal(
        cls, step: float = 0.5, max_distance: float = math.inf, *, turn: bool = True
    ) -> RootDofs:
        """The body steps in the horizontal plane and (with ``turn``) turns about the vertical.

        This stands for "the legs carry the body": the root moves along world x
        and y, at most ``step`` [m] per update (about one walking step of an
        adult; 0.5 m by default) and ``max_distance`` [m] each way in all, and
        yaws freely. The legs are carried rigidly: re-plant the feet afterwards,
        e.g. with :func:`vhuman.ik.two_bone_ik`.
        """
        if not max_distance > 0.0:
            raise InputError(f"max_distance must be > 0 m, got {max_distance}")
        return cls(
            translation_axes=np.array([[1.0, 0, 0], [0, 1.0, 0]]),
            translation_limits=np.array([[-max_distance, max_distance]] * 2),
            rotation=JointType.HINGE if turn else JointType.FIXED,
            max_step=step,
        )


@dataclass(frozen=True)
class JointSpec:
    """The constants of one chain joint that the solvers need.

    Attributes
    ----------
    index : int
        Skeleton joint index.
    kind : JointType
        ``BALL`` (3 DOF), ``HINGE`` (1 DOF) or ``FIXED`` (none); for the root, the
        kind of its rotation (see :class:`RootDofs`).
    offset : tuple of float
        Rest offset from the parent, in the parent's frame [m].
    axis : tuple of float
        Unit hinge axis in the parent's frame (the world frame for the root).
    lower, upper : tuple of float
        Limits [rad]: the three Euler angles of ``euler`` for BALL joints, the
        hinge angle in entry 0 for HINGE joints.
    euler : EulerAxes or None
        Euler sequence of a BALL joint's limits.
    is_root : bool
        The skeleton's root: its hinge angle is relative to the starting pose and
        it may translate.
    """

    index: int
    kind: JointType
    offset: tuple[float, float, float]
    axis: tuple[float, float, float]
    lower: tuple[float, float, float]
    upper: tuple[float, float, float]
    euler: EulerAxes | None
    is_root: bool

    @property
    def moving(self) -> bool:
        """Whether the joint has a rotational degree of freedom."""
        return self.kind is not JointType.FIXED

    @property
    def n_rotations(self) -> int:
        """Rotational degrees of freedom: 3, 1 or 0."""
        return {JointType.BALL: 3, JointType.HINGE: 1}.get(self.kind, 0)


def _floats(values: ArrayLike) -> tuple[float, float, float]:
    a, b, c = (float(v) for v in np.asarray(values, dtype=np.float64))
    return (a, b, c)


def _joint_spec(sk: Skeleton, j: int, root: RootDofs | None) -> JointSpec:
    """Constants of joint ``j``; ``root`` gives the root's motions when it is on the chain."""
    kind = sk.joint_types[j]
    axis = _floats(sk.axes[j])
    lower, upper = _floats(sk.limits[j, :, 0]), _floats(sk.limits[j, :, 1])
    if root is not None and j == 0:
        kind = root.rotation
        if kind is JointType.HINGE:
            axis = _floats(root.rotation_axis)
            lower = (root.rotation_limits[0], 0.0, 0.0)
            upper = (root.rotation_limits[1], 0.0, 0.0)
    elif kind is JointType.FREE:
        kind = JointType.BALL
    euler = None
    if kind is JointType.BALL:
        euler = EulerAxes.from_sequence(sk.limit_sequences[j])
        lo_mid, hi_mid = euler.middle_range
        lower = (lower[0], max(lower[1], lo_mid + _GIMBAL_MARGIN), lower[2])
        upper = (upper[0], min(upper[1], hi_mid - _GIMBAL_MARGIN), upper[2])
    return JointSpec(j, kind, _floats(sk.offsets[j]), axis, lower, upper, euler, j == 0)


def _joint_name(skeleton: Skeleton, name: object, role: str) -> int:
    if not isinstance(name, str) or name not in skeleton.names:
        raise InputError(
            f"chain {role} {name!r} is not a joint of this skeleton; "
            f"choose one of: {', '.join(skeleton.names)}"
        )
    return skeleton.index(name)


@dataclass(frozen=True, eq=False)
class Chain:
    """The joints of a skeleton from ``start`` down to the end effector ``end``.

    The chain's degrees of freedom: 3 rotations for each BALL joint, 1 about the
    axis for each HINGE joint, none for FIXED joints, and for the root (when the
    chain starts there) what ``root`` allows. Limits come from the skeleton.
    The end effector is the origin of joint ``end``; its orientation is that
    joint's world rotation.

    Parameters
    ----------
    skeleton : Skeleton
        The body.
    end : str
        End effector joint, e.g. ``"l_hand"``.
    start : str, optional
        First joint of the chain, a proper ancestor of ``end``; default: the root.
    root : RootDofs, optional
        Motions of the root when the chain starts there; default ``RootDofs()``
        (rotation only, within the skeleton's root limits).

    Raises
    ------
    InputError
        For an unknown joint name, a ``start`` that is not a proper ancestor of
        ``end`` (a chain of zero length), a chain whose bones are all of zero
        length or whose joints cannot move, or ``root`` on a chain without the root.

    Examples
    --------
    >>> from vhuman.skeleton import standard_humanoid
    >>> arm = Chain(standard_humanoid(), "l_hand", start="l_shoulder")
    >>> arm.names, arm.n_dofs
    (('l_shoulder', 'l_elbow', 'l_wrist', 'l_hand'), 7)
    """

    skeleton: Skeleton
    end: str
    _: KW_ONLY
    start: str | None = None
    root: RootDofs | None = None

    def __post_init__(self) -> None:
        sk = self.skeleton
        if not isinstance(sk, Skeleton):
            raise InputError(f"skeleton must be a Skeleton, got {type(sk).__name__}")
        e = _joint_name(sk, self.end, "end")
        s = 0 if self.start is None else _joint_name(sk, self.start, "start")
        ancestors = []
        j = int(sk.parents[e])
        while j >= 0:
            ancestors.append(j)
            j = int(sk.parents[j])
        if s not in ancestors:
            raise InputError(
                f"chain start {sk.names[s]!r} must be a proper ancestor of end {self.end!r} "
                f"(a chain from a joint to itself has zero length); ancestors of {self.end!r}: "
                f"{', '.join(sk.names[a] for a in ancestors) or 'none'}"
            )
        joints = sk.chain(e, s)
        if sum(float(np.linalg.norm(sk.offsets[j])) for j in joints[1:]) < 1e-9:
            raise InputError(f"chain {sk.names[s]!r} → {self.end!r} has zero length")
        if s != 0 and self.root is not None:
            raise InputError(f"root motions need a chain that starts at the root {sk.names[0]!r}")
        if self.root is not None and not isinstance(self.root, RootDofs):
            raise InputError(f"root must be a RootDofs, got {type(self.root).__name__}")
        root = (RootDofs() if self.root is None else self.root) if s == 0 else None
        object.__setattr__(self, "root", root)
        object.__setattr__(self, "_joints", joints)
        specs = tuple(_joint_spec(sk, j, root) for j in joints)
        object.__setattr__(self, "_specs", specs)
        translates = root is not None and len(root.translation_axes) > 0
        if not translates and not any(sp.moving for sp in specs[:-1]):
            raise InputError(
                f"chain {sk.names[s]!r} → {self.end!r} has no joint that can move the end effector"
            )

    # -- structure -------------------------------------------------------------------
    @property
    def joints(self) -> tuple[int, ...]:
        """Skeleton indices of the chain's joints, from start to end."""
        return self._joints  # type: ignore[attr-defined]

    @property
    def specs(self) -> tuple[JointSpec, ...]:
        """Per-joint constants, from start to end."""
        return self._specs  # type: ignore[attr-defined]

    @property
    def names(self) -> tuple[str, ...]:
        """Joint names from start to end."""
        return tuple(self.skeleton.names[j] for j in self.joints)

    @property
    def includes_root(self) -> bool:
        """Whether the chain starts at the skeleton's root."""
        return self.joints[0] == 0

    @property
    def n_dofs(self) -> int:
        """Degrees of freedom: rotations of all joints plus root translations."""
        n = sum(sp.n_rotations for sp in self.specs)
        return n + (len(self.root.translation_axes) if self.root is not None else 0)

    @cached_property
    def translations(self) -> tuple[tuple[tuple[float, float, float], float, float], ...]:
        """The root's translation DOFs: (world axis, lower, upper [m]) each; empty if none."""
        if self.root is None:
            return ()
        return tuple(
            (_floats(axis), float(lo), float(hi))
            for axis, (lo, hi) in zip(
                self.root.translation_axes, self.root.translation_limits, strict=True
            )
        )

    @cached_property
    def bone_lengths(self) -> tuple[float, ...]:
        """Distance [m] of each chain joint from the previous one (0.0 for the first)."""
        return (0.0, *(float(np.linalg.norm(self.skeleton.offsets[j])) for j in self.joints[1:]))

    @property
    def length(self) -> float:
        """Sum of the bone lengths from the first joint to the end effector [m]."""
        return sum(self.bone_lengths)

    def position(self, name: str) -> int:
        """Position of joint ``name`` in the chain (0 = start).

        Raises
        ------
        InputError
            If the joint is not on the chain; the message lists the chain's joints.
        """
        if name not in self.names:
            raise InputError(
                f"joint {name!r} is not on the chain; chain joints: {', '.join(self.names)}"
            )
        return self.names.index(name)

    def effector(
        self, local_rotations: ArrayLike, root_position: ArrayLike
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """World position ``(..., 3)`` [m] and rotation ``(..., 4)`` of the end effector.

        Parameters
        ----------
        local_rotations : array_like, shape (..., J, 4)
            Local rotations of all skeleton joints (w, x, y, z).
        root_position : array_like, shape (..., 3)
            World position of the root [m].
        """
        sk = self.skeleton
        p, q = forward_kinematics(sk.parents, sk.offsets, root_position, local_rotations)
        return p[..., self.joints[-1], :], q[..., self.joints[-1], :]
