"""`Skeleton`: the immutable model of a body (topology, rest offsets, joints, limits, segments)."""

from __future__ import annotations

import enum
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError, UnknownJointError
from vhuman.geometry.euler import check_euler_sequence, euler_to_quat, quat_to_euler
from vhuman.geometry.quaternion import quat_canonical
from vhuman.skeleton.kinematics import forward_kinematics

__all__ = ["JointType", "Segment", "Skeleton", "mirror_indices"]


class JointType(enum.Enum):
    """Degrees of freedom of a joint relative to its parent."""

    FREE = "free"
    """Root: 3 translations + 3 rotations."""
    BALL = "ball"
    """3 rotations, limited as Euler angles in the joint's ``limit_sequences`` entry."""
    HINGE = "hinge"
    """1 rotation about ``axis``."""
    FIXED = "fixed"
    """No motion (an end site, or a marker rigidly attached to its parent)."""


@dataclass(frozen=True)
class Segment:
    """A rigid body segment attached to a joint, in that joint's local frame.

    Shaped as a capsule from ``start`` to ``end`` with ``radius``.

    Attributes
    ----------
    start, end : ndarray, shape (3,)
        Capsule axis end points [m], joint-local.
    radius : float
        Capsule radius [m].
    mass : float
        Segment mass [kg].
    com : ndarray, shape (3,)
        Centre of mass [m], joint-local.
    """

    start: NDArray[np.float64]
    end: NDArray[np.float64]
    radius: float
    mass: float
    com: NDArray[np.float64]

    def __post_init__(self) -> None:
        for name in ("start", "end", "com"):
            v = np.asarray(getattr(self, name), dtype=np.float64)
            if v.shape != (3,) or not np.all(np.isfinite(v)):
                raise InputError(f"segment {name} must be 3 finite numbers, got {v!r}")
            v.setflags(write=False)
            object.__setattr__(self, name, v)
        if not (np.isfinite(self.radius) and self.radius > 0.0):
            raise InputError(f"segment radius must be > 0 m, got {self.radius}")
        if not (np.isfinite(self.mass) and self.mass >= 0.0):
            raise InputError(f"segment mass must be >= 0 kg, got {self.mass}")

    @property
    def length(self) -> float:
        """Capsule axis length [m]."""
        return float(np.linalg.norm(self.end - self.start))


_MIRROR_PATTERNS: tuple[tuple[str, str], ...] = (
    (r"^l_", "r_"),
    (r"^r_", "l_"),
    (r"^L_", "R_"),
    (r"^R_", "L_"),
    (r"left", "right"),
    (r"right", "left"),
    (r"Left", "Right"),
    (r"Right", "Left"),
    (r"^l(?=[a-z])", "r"),
    (r"^r(?=[a-z])", "l"),
)


def mirror_indices(names: Sequence[str]) -> NDArray[np.intp]:
    """Index of each joint's left/right counterpart (itself for joints on the midline).

    Recognised pairs: ``l_``/``r_``, ``L_``/``R_``, ``left``/``right`` (any case of the
    first letter) and a leading ``l``/``r`` before a lower-case letter (CMU style,
    ``lhip``/``rhip``).
    """
    lookup = {n: i for i, n in enumerate(names)}
    out = np.arange(len(names), dtype=np.intp)
    for i, name in enumerate(names):
        for pattern, repl in _MIRROR_PATTERNS:
            other = re.sub(pattern, repl, name, count=1)
            if other != name and other in lookup:
                out[i] = lookup[other]
                break
    return out


def _readonly(a: NDArray) -> NDArray:
    a.setflags(write=False)
    return a


@dataclass(frozen=True, eq=False)
class Skeleton:
    """Immutable body model: joint tree, rest offsets, degrees of freedom, limits, segments.

    World frame: z up, the body faces +x at rest, +y is its left; metres, radians.
    Local rotations are relative to the rest pose, which is the pose with all
    local rotations equal to the identity.

    Parameters
    ----------
    names : sequence of str, length J
        Unique joint names.
    parents : array_like of int, shape (J,)
        Parent index of each joint; −1 for the root, which is joint 0; parents
        come before their children.
    offsets : array_like, shape (J, 3)
        Rest offset of each joint from its parent, in the parent's frame [m].
        ``offsets[0]`` is the root's rest position in the world.
    joint_types : sequence of JointType, optional
        Defaults to FREE for the root, BALL for joints with children and FIXED
        for leaves (end sites).
    axes : array_like, shape (J, 3), optional
        Unit hinge axis of each HINGE joint (ignored for the others).
    limits : array_like, shape (J, 3, 2), optional
        Lower and upper bounds [rad]: for BALL joints on the three Euler angles of
        its ``limit_sequences`` entry; for HINGE joints in row 0 on the angle about ``axis``.
        Unlimited (±inf) by default.
    limit_sequences : sequence of str, optional
        Per joint, the Euler sequence in which BALL limits are expressed (default
        intrinsic ``"YXZ"`` for all: flexion/extension about y, then ab/adduction
        about x, then axial rotation about z, for limbs along −z at rest). The
        middle angle of a Tait-Bryan sequence spans only [−π/2, π/2], so choose
        the sequence whose middle axis has the smallest range.
    segments : sequence of Segment or None, optional
        Body segment carried by each joint (shape and mass), or None.

    Raises
    ------
    InputError
        For inconsistent lengths, a bad parent order, duplicate names, a
        non-finite offset, a leaf joint at zero distance from its parent
        (zero-length bone), bad axes or limits.
    """

    names: tuple[str, ...]
    parents: NDArray[np.intp]
    offsets: NDArray[np.float64]
    joint_types: tuple[JointType, ...] = ()
    axes: NDArray[np.float64] | None = None
    limits: NDArray[np.float64] | None = None
    limit_sequences: tuple[str, ...] = ()
    segments: tuple[Segment | None, ...] | None = None

    def __post_init__(self) -> None:
        names = tuple(str(n) for n in self.names)
        n = len(names)
        if n == 0:
            raise InputError("a skeleton needs at least one joint")
        if len(set(names)) != n:
            dup = sorted({x for x in names if names.count(x) > 1})
            raise InputError(f"joint names must be unique; repeated: {dup}")
        if any(not x for x in names):
            raise InputError("joint names must be non-empty")
        parents = np.array(self.parents, dtype=np.intp)
        if parents.shape != (n,):
            raise InputError(f"parents must have shape ({n},), got {parents.shape}")
        if parents[0] != -1:
            raise InputError(f"joint 0 ({names[0]!r}) must be the root (parent -1)")
        bad = [j for j in range(1, n) if not 0 <= parents[j] < j]
        if bad:
            raise InputError(
                f"joint {names[bad[0]]!r} has parent index {parents[bad[0]]}; every non-root "
                "joint needs a parent listed before it"
            )
        offsets = np.array(self.offsets, dtype=np.float64)
        if offsets.shape != (n, 3):
            raise InputError(f"offsets must have shape ({n}, 3), got {offsets.shape}")
        if not np.all(np.isfinite(offsets)):
            raise InputError("offsets contain NaN or infinite values")
        has_child = np.zeros(n, dtype=bool)
        has_child[parents[1:]] = True
        lengths = np.linalg.norm(offsets, axis=1)
        zero_leaf = [j for j in range(1, n) if not has_child[j] and lengths[j] < 1e-9]
        if zero_leaf:
            j = zero_leaf[0]
            raise InputError(
                f"joint {names[j]!r} is a leaf at zero distance from its parent "
                f"{names[parents[j]]!r} (zero-length bone); leaf offsets must be non-zero"
            )
        types = tuple(self.joint_types) or tuple(
            JointType.FREE if j == 0 else (JointType.BALL if has_child[j] else JointType.FIXED)
            for j in range(n)
        )
        if len(types) != n or not all(isinstance(t, JointType) for t in types):
            raise InputError(f"joint_types must be {n} JointType values")
        axes = np.zeros((n, 3)) if self.axes is None else np.array(self.axes, dtype=np.float64)
        if axes.shape != (n, 3) or not np.all(np.isfinite(axes)):
            raise InputError(f"axes must be finite with shape ({n}, 3), got {axes.shape}")
        for j, t in enumerate(types):
            if t is JointType.HINGE:
                norm = np.linalg.norm(axes[j])
                if norm < 1e-9:
                    raise InputError(f"hinge joint {names[j]!r} needs a non-zero axis")
                axes[j] /= norm
        if self.limits is None:
            limits = np.empty((n, 3, 2))
            limits[..., 0], limits[..., 1] = -np.inf, np.inf
        else:
            limits = np.array(self.limits, dtype=np.float64)
        if limits.shape != (n, 3, 2) or np.any(np.isnan(limits)):
            raise InputError(f"limits must have shape ({n}, 3, 2) without NaN, got {limits.shape}")
        if np.any(limits[..., 0] > limits[..., 1]):
            j = int(np.argwhere(limits[..., 0] > limits[..., 1])[0, 0])
            raise InputError(f"joint {names[j]!r} has a lower limit above its upper limit")
        seqs = tuple(self.limit_sequences) or ("YXZ",) * n
        if len(seqs) != n:
            raise InputError(f"limit_sequences must have {n} entries, got {len(seqs)}")
        for seq in set(seqs):
            check_euler_sequence(seq)
        if self.segments is not None and len(self.segments) != n:
            raise InputError(f"segments must have {n} entries (None where no segment)")
        object.__setattr__(self, "names", names)
        object.__setattr__(self, "parents", _readonly(parents))
        object.__setattr__(self, "offsets", _readonly(offsets))
        object.__setattr__(self, "joint_types", types)
        object.__setattr__(self, "axes", _readonly(axes))
        object.__setattr__(self, "limits", _readonly(limits))
        object.__setattr__(self, "limit_sequences", seqs)
        if self.segments is not None:
            object.__setattr__(self, "segments", tuple(self.segments))

    # -- topology -----------------------------------------------------------------
    @property
    def n_joints(self) -> int:
        """Number of joints J."""
        return len(self.names)

    def __len__(self) -> int:
        return self.n_joints

    def index(self, name: str) -> int:
        """Index of the joint called ``name``.

        Raises
        ------
        UnknownJointError
            If there is no such joint; the message lists the joint names.
        """
        try:
            return self._name_to_index[name]
        except KeyError:
            raise UnknownJointError(
                f"unknown joint {name!r}; this skeleton has: {', '.join(self.names)}"
            ) from None

    def indices(self, names: Sequence[str]) -> NDArray[np.intp]:
        """Indices of several joints (see :meth:`index`)."""
        return np.array([self.index(n) for n in names], dtype=np.intp)

    @cached_property
    def _name_to_index(self) -> dict[str, int]:
        return {n: i for i, n in enumerate(self.names)}

    def children(self, joint: int | str) -> tuple[int, ...]:
        """Indices of the direct children of ``joint``."""
        j = self.index(joint) if isinstance(joint, str) else int(joint)
        return tuple(int(c) for c in np.flatnonzero(self.parents == j))

    def chain(self, end: int | str, start: int | str | None = None) -> tuple[int, ...]:
        """Joint indices from ``start`` (default: the root) down to ``end``, inclusive.

        Raises
        ------
        InputError
            If ``start`` is not an ancestor of ``end``.
        """
        e = self.index(end) if isinstance(end, str) else int(end)
        s = 0 if start is None else (self.index(start) if isinstance(start, str) else int(start))
        path = [e]
        while path[-1] != s:
            p = int(self.parents[path[-1]])
            if p < 0:
                raise InputError(f"{self.names[s]!r} is not an ancestor of {self.names[e]!r}")
            path.append(p)
        return tuple(reversed(path))

    @cached_property
    def mirror(self) -> NDArray[np.intp]:
        """Index of each joint's left/right counterpart (see :func:`mirror_indices`)."""
        return _readonly(mirror_indices(self.names))

    @property
    def bone_lengths(self) -> NDArray[np.float64]:
        """Distance of each joint from its parent ``(J,)`` [m] (0 for the root)."""
        lengths = np.linalg.norm(self.offsets, axis=1)
        lengths[0] = 0.0
        return lengths

    def rest_positions(self) -> NDArray[np.float64]:
        """World positions ``(J, 3)`` of the joints in the rest pose [m]."""
        q = np.zeros((self.n_joints, 4))
        q[:, 0] = 1.0
        return forward_kinematics(self.parents, self.offsets, self.offsets[0], q)[0]

    @property
    def total_mass(self) -> float:
        """Sum of segment masses [kg] (0 without segments)."""
        if self.segments is None:
            return 0.0
        return float(sum(s.mass for s in self.segments if s is not None))

    # -- limits -----------------------------------------------------------------
    def joint_angles(self, local_rotations: ArrayLike) -> NDArray[np.float64]:
        """Angles ``(..., J, 3)`` [rad] in which the limits are expressed.

        BALL (and FREE) joints: Euler angles in their ``limit_sequences``. HINGE joints:
        in column 0 the signed angle about the axis of the twist part of the
        rotation (its swing off the axis is ignored here; see
        :meth:`limit_violation`). FIXED joints: zeros.
        """
        q = quat_canonical(local_rotations)
        angles = np.zeros((*q.shape[:-1], 3))
        for seq, mask in self._sequence_masks.items():
            angles[..., mask, :] = quat_to_euler(q[..., mask, :], seq)
        hinge = self._type_mask(JointType.HINGE)
        if hinge.any():
            axis = self.axes[hinge]
            qh = q[..., hinge, :]
            twist = 2.0 * np.arctan2(np.sum(qh[..., 1:] * axis, axis=-1), qh[..., 0])
            angles[..., hinge, :] = 0.0
            angles[..., hinge, 0] = twist  # in [−π, π]: w ≥ 0 after canonicalising
        angles[..., self._type_mask(JointType.FIXED), :] = 0.0
        return angles

    def limit_violation(self, local_rotations: ArrayLike) -> NDArray[np.float64]:
        """How far each joint lies outside its limits ``(..., J)`` [rad]; 0 inside.

        For HINGE and FIXED joints any rotation off their allowed axis counts too.
        """
        q = quat_canonical(local_rotations)
        ang = self.joint_angles(q)
        lo, hi = self.limits[..., 0], self.limits[..., 1]
        excess = np.maximum(lo - ang, 0.0) + np.maximum(ang - hi, 0.0)
        excess = np.where(np.isnan(excess), 0.0, excess)
        out = excess.max(axis=-1)
        locked = self._type_mask(JointType.HINGE) | self._type_mask(JointType.FIXED)
        if locked.any():
            allowed = self.project_to_dofs(q)
            dot = np.abs(np.sum(allowed[..., locked, :] * q[..., locked, :], axis=-1))
            off_axis = 2.0 * np.arccos(np.clip(dot, -1.0, 1.0))
            out[..., locked] = np.maximum(out[..., locked], off_axis)
        return out

    def project_to_dofs(self, local_rotations: ArrayLike) -> NDArray[np.float64]:
        """Drop motion a joint cannot make: hinges keep their twist, fixed joints identity."""
        q = quat_canonical(local_rotations).copy()
        hinge = self._type_mask(JointType.HINGE)
        if hinge.any():
            axis = self.axes[hinge]
            qh = q[..., hinge, :]
            proj = np.sum(qh[..., 1:] * axis, axis=-1, keepdims=True)
            twist = np.concatenate([qh[..., :1], proj * axis], axis=-1)
            norm = np.linalg.norm(twist, axis=-1, keepdims=True)
            # A 180° swing has no defined twist; take the identity there.
            twist = np.where(norm > 1e-12, twist / np.maximum(norm, 1e-12), [1.0, 0, 0, 0])
            q[..., hinge, :] = twist
        fixed = self._type_mask(JointType.FIXED)
        q[..., fixed, :] = [1.0, 0.0, 0.0, 0.0]
        return q

    def clamp(
        self, local_rotations: ArrayLike, joints: Sequence[int] | None = None
    ) -> NDArray[np.float64]:
        """Nearest rotations ``(..., J, 4)`` (per angle) that respect the DOFs and limits.

        Parameters
        ----------
        local_rotations : array_like, shape (..., J, 4)
        joints : sequence of int, optional
            Clamp only these joints; the others are returned as given (canonicalised).
        """
        chosen = np.ones(self.n_joints, dtype=bool)
        if joints is not None:
            chosen = np.zeros(self.n_joints, dtype=bool)
            chosen[list(joints)] = True
        original = quat_canonical(local_rotations)
        q = self.project_to_dofs(original)
        q[..., ~chosen, :] = original[..., ~chosen, :]
        lo, hi = self.limits[..., 0], self.limits[..., 1]
        ball = (self._type_mask(JointType.BALL) | self._type_mask(JointType.FREE)) & chosen
        for seq, mask in self._sequence_masks.items():
            sel = mask & ball
            if sel.any():
                ang = np.clip(quat_to_euler(q[..., sel, :], seq), lo[sel], hi[sel])
                q[..., sel, :] = euler_to_quat(ang, seq)
        hinge = self._type_mask(JointType.HINGE) & chosen
        if hinge.any():
            ang = self.joint_angles(q)[..., hinge, 0]
            ang = np.clip(ang, lo[hinge, 0], hi[hinge, 0])
            half = 0.5 * ang[..., None]
            q[..., hinge, :] = np.concatenate([np.cos(half), np.sin(half) * self.axes[hinge]], -1)
        return q

    @cached_property
    def _masks(self) -> dict[JointType, NDArray[np.bool_]]:
        return {k: _readonly(np.array([t is k for t in self.joint_types])) for k in JointType}

    @cached_property
    def _sequence_masks(self) -> dict[str, NDArray[np.bool_]]:
        seqs = np.array(self.limit_sequences)
        return {seq: _readonly(seqs == seq) for seq in sorted(set(self.limit_sequences))}

    def random_rotations(
        self,
        n: int,
        rng: np.random.Generator | int | None = None,
        joints: Sequence[int] | None = None,
    ) -> NDArray[np.float64]:
        """``n`` poses ``(n, J, 4)`` with ``joints`` drawn uniformly within their limits.

        BALL joints draw each Euler angle of their limit sequence uniformly in
        its range, HINGE joints their angle; every other joint stays at rest.
        Default ``joints``: all BALL and HINGE joints. Useful for reachable IK
        targets (FK of a random in-limit pose is reachable by construction).

        Raises
        ------
        InputError
            If a chosen joint has an infinite limit.
        """
        rng = np.random.default_rng(rng)
        q = np.tile([1.0, 0.0, 0.0, 0.0], (n, self.n_joints, 1))
        movable = (JointType.BALL, JointType.HINGE)
        chosen = (
            [j for j, t in enumerate(self.joint_types) if t in movable]
            if joints is None
            else list(joints)
        )
        for j in chosen:
            lo, hi = self.limits[j, :, 0], self.limits[j, :, 1]
            kind = self.joint_types[j]
            if kind in movable and not np.all(
                np.isfinite(self.limits[j, : 3 if kind is JointType.BALL else 1])
            ):
                raise InputError(f"joint {self.names[j]!r} has no finite limits to draw from")
            if kind is JointType.BALL:
                q[:, j] = euler_to_quat(rng.uniform(lo, hi, (n, 3)), self.limit_sequences[j])
            elif kind is JointType.HINGE:
                half = 0.5 * rng.uniform(lo[0], hi[0], (n, 1))
                q[:, j] = np.concatenate([np.cos(half), np.sin(half) * self.axes[j]], axis=-1)
        return q

    def _type_mask(self, kind: JointType) -> NDArray[np.bool_]:
        return self._masks[kind]

    # -- derived skeletons ----------------------------------------------------------
    def scaled(self, factor: float) -> Skeleton:
        """The same skeleton with all lengths (offsets, segments) multiplied by ``factor``.

        Raises
        ------
        InputError
            If ``factor`` is not a finite number > 0.
        """
        if not (np.isfinite(factor) and factor > 0.0):
            raise InputError(f"scale factor must be a finite number > 0, got {factor}")
        segments = None
        if self.segments is not None:
            segments = tuple(
                None
                if s is None
                else Segment(
                    s.start * factor, s.end * factor, s.radius * factor, s.mass, s.com * factor
                )
                for s in self.segments
            )
        return Skeleton(
            self.names,
            self.parents,
            self.offsets * factor,
            self.joint_types,
            self.axes,
            self.limits,
            self.limit_sequences,
            segments,
        )

    def same_topology(self, other: Skeleton) -> bool:
        """Whether ``other`` has the same joint names and parents."""
        return self.names == other.names and np.array_equal(self.parents, other.parents)
