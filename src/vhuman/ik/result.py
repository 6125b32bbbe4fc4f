"""`IKResult`: the typed outcome of an IK solve (pose, residuals, effort, convergence)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.skeleton import Motion, Skeleton

__all__ = ["IKResult"]


@dataclass(frozen=True)
class IKResult:
    """What an IK solver returns, batched over the targets' leading shape ``(...)``.

    An unreachable target is not an error: the solver returns its closest pose
    with ``converged`` False and the residual.

    Attributes
    ----------
    local_rotations : ndarray, shape (..., J, 4)
        The solved pose: local rotations of every skeleton joint (w, x, y, z);
        joints off the chain keep their input rotation.
    root_position : ndarray, shape (..., 3)
        World position of the root [m] (moved only by chains with root translations).
    position_error : ndarray, shape (...)
        Distance from the end effector to the target position [m].
    orientation_error : ndarray, shape (...), or None
        Angle between the end effector's and the target's orientation [rad];
        None for position-only targets.
    iterations : ndarray of int, shape (...)
        Solver iterations (CCD sweeps, FABRIK passes, Jacobian steps).
    joint_updates : ndarray of int, shape (...)
        Single-joint rotation updates performed (a root translation step counts
        with the root's update), the common measure of effort.
    converged : ndarray of bool, shape (...)
        Within the solver's tolerances.
    """

    local_rotations: NDArray[np.float64]
    root_position: NDArray[np.float64]
    position_error: NDArray[np.float64]
    orientation_error: NDArray[np.float64] | None
    iterations: NDArray[np.int64]
    joint_updates: NDArray[np.int64]
    converged: NDArray[np.bool_]

    def __post_init__(self) -> None:
        for name in (
            "local_rotations",
            "root_position",
            "position_error",
            "orientation_error",
            "iterations",
            "joint_updates",
            "converged",
        ):
            value = getattr(self, name)
            if value is not None:
                value.setflags(write=False)

    @property
    def batch_shape(self) -> tuple[int, ...]:
        """Leading shape of the batch of solves."""
        return self.position_error.shape

    @property
    def success_rate(self) -> float:
        """Share of converged solves, in [0, 1]."""
        return float(np.mean(self.converged))

    def to_motion(self, skeleton: Skeleton, fps: float = 30.0) -> Motion:
        """The solved poses as a `Motion`, one frame per solve (batch flattened)."""
        j = skeleton.n_joints
        return Motion(
            skeleton, fps, self.root_position.reshape(-1, 3), self.local_rotations.reshape(-1, j, 4)
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary (nested lists; SI units as in the attributes)."""
        return {
            "local_rotations": self.local_rotations.tolist(),
            "root_position": self.root_position.tolist(),
            "position_error_m": self.position_error.tolist(),
            "orientation_error_rad": (
                None if self.orientation_error is None else self.orientation_error.tolist()
            ),
            "iterations": self.iterations.tolist(),
            "joint_updates": self.joint_updates.tolist(),
            "converged": self.converged.tolist(),
            "success_rate": self.success_rate,
        }
