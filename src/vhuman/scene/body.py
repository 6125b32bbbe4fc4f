"""`BodyModel`: a skeleton's segments as capsules, placed in the world by forward kinematics.

Each segment of the skeleton (see `Skeleton.segments`) is a capsule fixed in
the frame of the joint that carries it. A pose (root position and local joint
rotations, batched over any leading shape) gives the capsules' world end points
and a fixed, seeded set of sample points inside each capsule, used to estimate
how much of the body volume lies inside the scene.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry import RigidTransform, quat_apply, quat_to_rotmat
from vhuman.scene.shapes import capsule_mesh
from vhuman.skeleton import Skeleton, forward_kinematics

__all__ = ["BodyModel"]


def _uniform_in_capsule(
    start: NDArray[np.float64],
    end: NDArray[np.float64],
    radius: float,
    n: int,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """``n`` points ``(n, 3)`` uniform in the capsule (rejection from its bounding box)."""
    axis = end - start
    length = float(np.linalg.norm(axis))
    u = axis / length if length > 1e-12 else np.array([0.0, 0.0, 1.0])
    helper = np.array([1.0, 0.0, 0.0]) if abs(u[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    e1 = np.cross(u, helper)
    e1 /= np.linalg.norm(e1)
    e2 = np.cross(u, e1)
    found: list[NDArray[np.float64]] = []
    count = 0
    while count < n:
        p = rng.uniform([-radius, -radius, -radius], [radius, radius, length + radius], (2 * n, 3))
        t = np.clip(p[:, 2], 0.0, length)
        keep = p[(p[:, 0] ** 2 + p[:, 1] ** 2 + (p[:, 2] - t) ** 2) <= radius**2]
        found.append(keep)
        count += len(keep)
    local = np.concatenate(found)[:n]
    return start + local[:, :1] * e1 + local[:, 1:2] * e2 + local[:, 2:] * u


@dataclass(frozen=True, eq=False)
class BodyModel:
    """The body as capsules, one per skeleton segment, with sample points inside each.

    Build it with :meth:`from_skeleton`.

    Attributes
    ----------
    skeleton : Skeleton
        The body.
    joints : ndarray of int, shape (S,)
        Joint carrying each capsule.
    starts, ends : ndarray, shape (S, 3)
        Capsule axis end points in the carrying joint's frame [m].
    radii : ndarray, shape (S,)
        Capsule radii [m].
    samples : ndarray, shape (S, N, 3)
        Points uniform inside each capsule, in the joint's frame [m].
    """

    skeleton: Skeleton
    joints: NDArray[np.intp]
    starts: NDArray[np.float64]
    ends: NDArray[np.float64]
    radii: NDArray[np.float64]
    samples: NDArray[np.float64]

    @classmethod
    def from_skeleton(
        cls,
        skeleton: Skeleton,
        *,
        samples_per_segment: int = 32,
        rng: np.random.Generator | int | None = 0,
    ) -> BodyModel:
        """Capsules of every segment of ``skeleton`` and ``samples_per_segment`` points in each.

        Parameters
        ----------
        skeleton : Skeleton
            Must have segments (e.g. `standard_humanoid`).
        samples_per_segment : int, optional
            N ≥ 1; more points give a smoother collision ratio at a higher cost.
        rng : numpy.random.Generator, int or None, optional
            Seed of the sample set (default 0, so the same body gives the same points).

        Raises
        ------
        InputError
            If the skeleton has no segments or ``samples_per_segment`` < 1.
        """
        if skeleton.segments is None or all(s is None for s in skeleton.segments):
            raise InputError("the skeleton has no segments (capsules); use standard_humanoid()")
        n = int(samples_per_segment)
        if n < 1:
            raise InputError(f"samples_per_segment must be >= 1, got {samples_per_segment}")
        gen = np.random.default_rng(rng)
        joints = [j for j, s in enumerate(skeleton.segments) if s is not None]
        segs = [skeleton.segments[j] for j in joints]
        starts = np.array([s.start for s in segs])  # type: ignore[union-attr]
        ends = np.array([s.end for s in segs])  # type: ignore[union-attr]
        radii = np.array([s.radius for s in segs])  # type: ignore[union-attr]
        samples = np.stack(
            [
                _uniform_in_capsule(a, b, r, n, gen)
                for a, b, r in zip(starts, ends, radii, strict=True)
            ]
        )
        arrays = (starts, ends, radii, samples)
        for a in arrays:
            a.setflags(write=False)
        idx = np.array(joints, dtype=np.intp)
        idx.setflags(write=False)
        return cls(skeleton, idx, *arrays)

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Segment names: the name of the joint carrying each capsule ``(S,)``."""
        return tuple(self.skeleton.names[j] for j in self.joints)

    @property
    def n_segments(self) -> int:
        """Number of capsules S."""
        return len(self.joints)

    @cached_property
    def volumes(self) -> NDArray[np.float64]:
        """Capsule volumes ``(S,)`` [m³]."""
        length = np.linalg.norm(self.ends - self.starts, axis=-1)
        return np.pi * self.radii**2 * (length + 4.0 / 3.0 * self.radii)

    @property
    def sample_weights(self) -> NDArray[np.float64]:
        """Volume each sample point stands for ``(S, N)``, summing to the body volume [m³]."""
        n = self.samples.shape[1]
        return np.repeat(self.volumes[:, None] / n, n, axis=1)

    def segment_indices(self, names: ArrayLike | None) -> NDArray[np.intp]:
        """Capsule indices of the segments named (joint names); all for None.

        Raises
        ------
        InputError
            For a name that carries no capsule; the message lists the segment names.
        """
        if names is None:
            return np.arange(self.n_segments)
        lookup = {n: i for i, n in enumerate(self.names)}
        wanted = [names] if isinstance(names, str) else list(names)  # type: ignore[arg-type]
        bad = [n for n in wanted if n not in lookup]
        if bad:
            raise InputError(f"no body segment {bad[0]!r}; segments: {', '.join(self.names)}")
        return np.array([lookup[n] for n in wanted], dtype=np.intp)

    def joint_frames(
        self, root_positions: ArrayLike, local_rotations: ArrayLike
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """World positions ``(..., J, 3)`` and rotations ``(..., J, 4)`` of a batch of poses.

        Parameters
        ----------
        root_positions : array_like, shape (..., 3)
            Root joint positions [m].
        local_rotations : array_like, shape (..., J, 4)
            Local joint rotations (w, x, y, z).

        Raises
        ------
        InputError
            For the wrong shapes or NaN/infinite values.
        """
        j = self.skeleton.n_joints
        root = np.asarray(root_positions, dtype=np.float64)
        rot = np.asarray(local_rotations, dtype=np.float64)
        if rot.ndim < 2 or rot.shape[-2:] != (j, 4):
            raise InputError(f"local_rotations must have shape (..., {j}, 4), got {rot.shape}")
        if root.shape != (*rot.shape[:-2], 3):
            raise InputError(
                f"root_positions must have shape {(*rot.shape[:-2], 3)} to match "
                f"local_rotations, got {root.shape}"
            )
        if not (np.all(np.isfinite(root)) and np.all(np.isfinite(rot))):
            raise InputError("the pose contains NaN or infinite values")
        norms = np.linalg.norm(rot, axis=-1, keepdims=True)
        if np.any(norms < 1e-9):
            raise InputError("local_rotations contain a zero quaternion")
        return forward_kinematics(self.skeleton.parents, self.skeleton.offsets, root, rot / norms)

    def capsules(
        self, root_positions: ArrayLike, local_rotations: ArrayLike
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """World capsule end points ``a, b`` each ``(..., S, 3)`` [m] of a batch of poses."""
        pos, rot = self.joint_frames(root_positions, local_rotations)
        q = rot[..., self.joints, :]
        p = pos[..., self.joints, :]
        return p + quat_apply(q, self.starts), p + quat_apply(q, self.ends)

    def sample_points(
        self,
        root_positions: ArrayLike,
        local_rotations: ArrayLike,
        placement: RigidTransform | None = None,
    ) -> NDArray[np.float64]:
        """World sample points ``(..., S, N, 3)`` [m] of a batch of poses.

        Parameters
        ----------
        root_positions, local_rotations : array_like
            As in :meth:`joint_frames`, batch shape ``P``.
        placement : RigidTransform, optional
            Rigid transforms ``(*B)`` applied after the pose (e.g. a library posture
            moved and turned to many places); the result then has shape
            ``(*B, *P, S, N, 3)``.
        """
        pos, rot = self.joint_frames(root_positions, local_rotations)
        m = quat_to_rotmat(rot[..., self.joints, :])  # (..., S, 3, 3)
        pts = np.einsum("...sij,snj->...sni", m, self.samples) + pos[..., self.joints, None, :]
        if placement is None:
            return pts
        r = quat_to_rotmat(placement.rotation)  # (*B, 3, 3)
        t = placement.translation
        lead = placement.shape
        flat = pts.reshape(-1, 3)
        # (B, K, 3) = (K, 3) @ (B, 3, 3)ᵀ: one batched matrix product.
        out = np.matmul(flat, np.swapaxes(r.reshape(-1, 3, 3), -1, -2)) + t.reshape(-1, 1, 3)
        return out.reshape(*lead, *pts.shape)

    def meshes(
        self, root_positions: ArrayLike, local_rotations: ArrayLike, *, sections: int = 12
    ) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
        """One triangle mesh (vertices, faces) of all capsules of a single pose, for drawing."""
        a, b = self.capsules(root_positions, local_rotations)
        if a.ndim != 2:
            raise InputError(f"meshes takes one pose; got a batch of shape {a.shape[:-2]}")
        verts, faces, offset = [], [], 0
        for ai, bi, r in zip(a, b, self.radii, strict=True):
            v, f = capsule_mesh(ai, bi, float(r), sections=sections)
            verts.append(v)
            faces.append(f + offset)
            offset += len(v)
        return np.concatenate(verts), np.concatenate(faces)
