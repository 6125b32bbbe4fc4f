"""`Motion`: a skeleton's state over time (root positions and local joint rotations)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry.interpolation import quat_slerp
from vhuman.geometry.quaternion import quat_normalize
from vhuman.skeleton.kinematics import forward_kinematics, global_to_local
from vhuman.skeleton.skeleton import Skeleton

__all__ = ["MAX_FRAMES", "Motion", "frame_count", "resample_samples"]

MAX_FRAMES = 1_000_000
"""Most frames of a sampled motion: 4.6 h at 60 frames/s, 0.7 GB of rotations for 23 joints."""


def frame_count(duration: float, fps: float) -> int:
    """Frames at ``fps`` from 0 to ``duration`` [s] inclusive (a microsecond of slack).

    Raises
    ------
    InputError
        When that is more than `MAX_FRAMES` (the message names the limit).
    """
    frames = float(np.floor(duration * fps + 1e-6)) + 1.0
    if not frames <= MAX_FRAMES:
        raise InputError(
            f"{duration:g} s at {fps:g} frames/s is {frames:.3g} frames; at most "
            f"{MAX_FRAMES:,} frames (a shorter motion or a lower frame rate)"
        )
    return int(frames)


def resample_samples(
    times: NDArray[np.float64],
    root_positions: NDArray[np.float64],
    local_rotations: NDArray[np.float64],
    fps: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Samples at increasing ``times (T,)`` [s] → every ``1/fps`` s from ``times[0]``.

    Root positions ``(T, 3)`` are interpolated linearly, rotations ``(T, J, 4)``
    by slerp; returns ``(T', 3)`` and ``(T', J, 4)``. Times may be uneven.
    """
    new = times[0] + np.arange(frame_count(times[-1] - times[0], fps)) / fps
    i0 = np.clip(np.searchsorted(times, new, side="right") - 1, 0, len(times) - 2)
    h = np.clip((new - times[i0]) / (times[i0 + 1] - times[i0]), 0.0, 1.0)
    root = root_positions[i0] + h[:, None] * (root_positions[i0 + 1] - root_positions[i0])
    return root, quat_slerp(local_rotations[i0], local_rotations[i0 + 1], h[:, None])


@dataclass(frozen=True, eq=False)
class Motion:
    """A motion (or, with one frame, a pose) of a `Skeleton`.

    Parameters
    ----------
    skeleton : Skeleton
        The body the motion drives.
    fps : float
        Frames per second (> 0).
    root_positions : array_like, shape (T, 3)
        World position of the root joint at each frame [m].
    local_rotations : array_like, shape (T, J, 4)
        Rotation of each joint relative to its parent, (w, x, y, z); normalised
        on construction.

    Notes
    -----
    Arrays are stored read-only; derived motions are new objects.
    """

    skeleton: Skeleton
    fps: float
    root_positions: NDArray[np.float64]
    local_rotations: NDArray[np.float64]

    def __post_init__(self) -> None:
        if not isinstance(self.skeleton, Skeleton):
            raise InputError(f"skeleton must be a Skeleton, got {type(self.skeleton).__name__}")
        fps = float(self.fps)
        if not (np.isfinite(fps) and fps > 0.0):
            raise InputError(f"fps must be a finite number > 0, got {self.fps}")
        j = self.skeleton.n_joints
        rot = np.asarray(self.local_rotations, dtype=np.float64)
        if rot.ndim != 3 or rot.shape[1:] != (j, 4):
            raise InputError(f"local_rotations must have shape (T, {j}, 4), got {rot.shape}")
        if rot.shape[0] == 0:
            raise InputError("a motion needs at least one frame, got 0")
        # Norms of unit length also tell that every value is finite (NaN and inf are not near 1).
        norms = np.square(rot[..., 0])  # component by component: no temporary of rot's size
        for i in (1, 2, 3):
            norms += np.square(rot[..., i])
        np.sqrt(norms, out=norms)
        norms -= 1.0
        unit = bool(np.all(np.abs(norms, out=norms) < 1e-12))
        if not unit and not np.all(np.isfinite(rot)):
            raise InputError("local_rotations contain NaN or infinite values")
        root = np.asarray(self.root_positions, dtype=np.float64)
        if root.shape != (rot.shape[0], 3):
            raise InputError(
                f"root_positions must have shape ({rot.shape[0]}, 3) to match "
                f"local_rotations, got {root.shape}"
            )
        if not np.all(np.isfinite(root)):
            raise InputError("root_positions contain NaN or infinite values")
        # Renormalise only what is not unit already, so loading a saved motion is exact.
        if not unit:
            rot = quat_normalize(rot)
        elif rot.flags.writeable or rot.base is not None:
            rot = rot.copy()  # a read-only array owning its memory is shared, not copied
        root = root.copy()
        rot.setflags(write=False)
        root.setflags(write=False)
        object.__setattr__(self, "fps", fps)
        object.__setattr__(self, "local_rotations", rot)
        object.__setattr__(self, "root_positions", root)

    # -- construction ---------------------------------------------------------------
    @classmethod
    def rest(cls, skeleton: Skeleton, n_frames: int = 1, fps: float = 30.0) -> Motion:
        """The rest pose held for ``n_frames`` frames, root at ``skeleton.offsets[0]``."""
        rot = np.zeros((n_frames, skeleton.n_joints, 4))
        rot[..., 0] = 1.0
        return cls(skeleton, fps, np.tile(skeleton.offsets[0], (n_frames, 1)), rot)

    @classmethod
    def from_global(
        cls,
        skeleton: Skeleton,
        fps: float,
        root_positions: ArrayLike,
        global_rotations: ArrayLike,
    ) -> Motion:
        """Motion whose FK reproduces the given world rotations ``(T, J, 4)``."""
        g = quat_normalize(global_rotations)
        return cls(skeleton, fps, root_positions, global_to_local(skeleton.parents, g))

    # -- size -------------------------------------------------------------------
    @property
    def n_frames(self) -> int:
        """Number of frames T."""
        return int(self.local_rotations.shape[0])

    def __len__(self) -> int:
        return self.n_frames

    @property
    def duration(self) -> float:
        """Time from the first to the last frame [s]."""
        return max(self.n_frames - 1, 0) / self.fps

    @property
    def times(self) -> NDArray[np.float64]:
        """Frame times ``(T,)`` [s], starting at 0."""
        return np.arange(self.n_frames) / self.fps

    # -- kinematics ---------------------------------------------------------------
    @cached_property
    def _fk(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        sk = self.skeleton
        pos, rot = forward_kinematics(
            sk.parents, sk.offsets, self.root_positions, self.local_rotations
        )
        pos.setflags(write=False)
        rot.setflags(write=False)
        return pos, rot

    @property
    def global_positions(self) -> NDArray[np.float64]:
        """World joint positions ``(T, J, 3)`` [m] (batched FK, computed once)."""
        return self._fk[0]

    @property
    def global_rotations(self) -> NDArray[np.float64]:
        """World joint rotations ``(T, J, 4)`` (batched FK, computed once)."""
        return self._fk[1]

    def extent(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Smallest and largest world coordinates ``(3,)`` reached by any joint [m]."""
        p = self.global_positions.reshape(-1, 3)
        return p.min(axis=0), p.max(axis=0)

    # -- editing ------------------------------------------------------------------
    def __getitem__(self, frames: slice | int) -> Motion:
        """Frames ``frames`` as a new motion; a step divides the fps accordingly."""
        if isinstance(frames, (int, np.integer)):
            i = int(frames)
            if not -self.n_frames <= i < self.n_frames:
                raise InputError(f"frame {i} out of range for a motion of {self.n_frames} frames")
            frames = slice(i % self.n_frames, i % self.n_frames + 1)
        if not isinstance(frames, slice):
            raise InputError("a motion is indexed by an int or a slice of frames")
        step = 1 if frames.step is None else int(frames.step)
        if step <= 0:
            raise InputError(f"slice step must be a positive integer, got {step}")
        return Motion(
            self.skeleton,
            self.fps / step,
            self.root_positions[frames],
            self.local_rotations[frames],
        )

    def resample(self, fps: float) -> Motion:
        """The same motion sampled at ``fps``: root linearly, rotations by slerp.

        The first frame is kept; frames follow every ``1/fps`` s up to the duration.
        """
        if not (np.isfinite(fps) and fps > 0.0):
            raise InputError(f"fps must be a finite number > 0, got {fps}")
        if self.n_frames < 2:
            return Motion(self.skeleton, fps, self.root_positions, self.local_rotations)
        root, rot = resample_samples(self.times, self.root_positions, self.local_rotations, fps)
        return Motion(self.skeleton, fps, root, rot)

    def concatenate(self, *others: Motion) -> Motion:
        """This motion followed by ``others`` (same skeleton topology and fps)."""
        for o in others:
            if not self.skeleton.same_topology(o.skeleton):
                raise InputError("motions to concatenate must share the skeleton's joints")
            if not np.isclose(o.fps, self.fps):
                raise InputError(
                    f"motions to concatenate must share fps, got {self.fps} and {o.fps}"
                )
        parts = (self, *others)
        return Motion(
            self.skeleton,
            self.fps,
            np.concatenate([m.root_positions for m in parts]),
            np.concatenate([m.local_rotations for m in parts]),
        )

    def mirrored(self) -> Motion:
        """Left-right mirror image: reflection through the sagittal (x-z) plane.

        Left and right joints swap data (see :func:`~vhuman.skeleton.mirror_indices`),
        positions map ``y → −y`` and rotations ``(w, x, y, z) → (w, −x, y, −z)``.
        Exact (FK of the result is the reflected FK) when the skeleton is
        left-right symmetric; mirroring twice gives back the motion.
        """
        root = self.root_positions * [1.0, -1.0, 1.0]
        rot = self.local_rotations[:, self.skeleton.mirror] * [1.0, -1.0, 1.0, -1.0]
        return Motion(self.skeleton, self.fps, root, rot)

    def with_rotations(self, local_rotations: ArrayLike) -> Motion:
        """The same timing and root path with other local rotations ``(T, J, 4)``."""
        return Motion(self.skeleton, self.fps, self.root_positions, local_rotations)

    def joint_trajectory(self, joints: Sequence[str]) -> NDArray[np.float64]:
        """World positions ``(T, len(joints), 3)`` [m] of the named joints."""
        return self.global_positions[:, self.skeleton.indices(joints)]

    def position_difference(self, other: Motion) -> NDArray[np.float64]:
        """Distance between the same-named joints of two motions, frame by frame.

        Joints are matched by name, so a file that lists the joints in another
        order (a BVH writer's depth-first order, say) compares as the same body.

        Parameters
        ----------
        other : Motion
            A motion of the same frames whose skeleton has at least this one's
            joint names.

        Returns
        -------
        ndarray, shape (T, J)
            ``|p_self - p_other|`` [m] for each of this motion's joints.

        Raises
        ------
        InputError
            If the frame counts differ or ``other`` lacks one of the joints.
        """
        if other.n_frames != self.n_frames:
            raise InputError(
                f"cannot compare motions of {self.n_frames} and {other.n_frames} frames"
            )
        missing = [n for n in self.skeleton.names if n not in set(other.skeleton.names)]
        if missing:
            raise InputError(
                f"the other motion lacks joint(s) {', '.join(missing)}; it has: "
                f"{', '.join(other.skeleton.names)}"
            )
        theirs = other.global_positions[:, other.skeleton.indices(self.skeleton.names)]
        return np.linalg.norm(self.global_positions - theirs, axis=-1)
