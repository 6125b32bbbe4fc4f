"""Minimum-jerk hand trajectories (Flash & Hogan 1985), with optional via-points.

A point-to-point minimum-jerk path is the straight line
``x(t) = x0 + (xf − x0) s(τ)``, ``s(τ) = 10τ³ − 15τ⁴ + 6τ⁵``, ``τ = t / T``: zero
velocity and acceleration at both ends and a symmetric bell-shaped speed whose
peak is 15/8 = 1.875 times the mean. Orientation follows the same time law by
slerp, ``q(t) = slerp(q0, qf, s(τ))``.

Via-points are passed through at rest: the path is a chain of point-to-point
minimum-jerk segments, each of duration proportional to its length, with zero
velocity and acceleration at every via-point (not Flash & Hogan's single
smooth optimum through the via-points, which does not stop there).

References
----------
Flash, T., & Hogan, N. (1985). The coordination of arm movements: an
experimentally confirmed mathematical model. J. Neuroscience 5(7), 1688–1703,
Eq. (2).
Xia, Z., et al. (2021), hand trajectory planning.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.animation.easing import Easing, ease
from vhuman.errors import InputError
from vhuman.geometry import quat_slerp
from vhuman.geometry.quaternion import as_quat_array
from vhuman.skeleton.motion import frame_count

__all__ = ["MinimumJerkTrajectory", "minimum_jerk"]


@dataclass(frozen=True)
class MinimumJerkTrajectory:
    """A sampled minimum-jerk trajectory.

    Attributes
    ----------
    times : ndarray, shape (T,)
        Sample times from 0 to the duration [s].
    positions, velocities, accelerations : ndarray, shape (T, 3)
        [m], [m/s], [m/s²].
    orientations : ndarray, shape (T, 4), or None
        Hand orientations (w, x, y, z) when end orientations were given.
    """

    times: NDArray[np.float64]
    positions: NDArray[np.float64]
    velocities: NDArray[np.float64]
    accelerations: NDArray[np.float64]
    orientations: NDArray[np.float64] | None = None

    def to_dict(self) -> dict[str, Any]:
        """The arrays as nested lists, for JSON."""
        return {
            "times": self.times.tolist(),
            "positions": self.positions.tolist(),
            "velocities": self.velocities.tolist(),
            "accelerations": self.accelerations.tolist(),
            "orientations": None if self.orientations is None else self.orientations.tolist(),
        }


def _point(x: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(x, dtype=np.float64)
    if arr.shape != (3,):
        raise InputError(f"{name} must have shape (3,) [m], got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise InputError(f"{name} contains NaN or infinite values")
    return arr


def _positive(x: float, name: str) -> float:
    value = float(x)
    if not (np.isfinite(value) and value > 0.0):
        raise InputError(f"{name} must be finite and > 0, got {value}")
    return value


def minimum_jerk(
    p0: ArrayLike,
    pf: ArrayLike,
    duration: float,
    fps: float,
    *,
    via: ArrayLike | None = None,
    q0: ArrayLike | None = None,
    qf: ArrayLike | None = None,
) -> MinimumJerkTrajectory:
    """Sample a minimum-jerk trajectory from ``p0`` to ``pf``.

    Parameters
    ----------
    p0, pf : array_like, shape (3,)
        Start and end positions [m].
    duration : float
        Movement time T [s], > 0.
    fps : float
        Sampling rate [1/s], > 0. ``round(duration · fps)`` steps (at least one)
        of equal length span [0, duration], so both ends are sampled exactly.
    via : array_like, shape (K, 3), optional
        Via-points passed through at rest, in order (see the module).
    q0, qf : array_like, shape (4,), optional
        Start and end orientations (w, x, y, z), interpolated by slerp with
        the minimum-jerk time law over the whole movement; give both or neither.

    Returns
    -------
    MinimumJerkTrajectory

    Raises
    ------
    InputError
        For non-finite or mis-shaped points, ``duration`` or ``fps`` not > 0,
        or only one of ``q0`` and ``qf``.

    References
    ----------
    Flash & Hogan (1985), Eq. (2).

    Examples
    --------
    >>> traj = minimum_jerk([0, 0, 0], [0.3, 0, 0], duration=1.0, fps=100)
    >>> float(np.linalg.norm(traj.velocities, axis=1).max() / 0.3)  # peak / mean speed
    1.875
    """
    points = [_point(p0, "p0")]
    if via is not None:
        v = np.asarray(via, dtype=np.float64)
        if v.ndim != 2 or v.shape[1] != 3:
            raise InputError(f"via must have shape (K, 3) [m], got {v.shape}")
        points += [_point(p, f"via[{k}]") for k, p in enumerate(v)]
    points.append(_point(pf, "pf"))
    total = _positive(duration, "duration")
    rate = _positive(fps, "fps")
    frame_count(total, rate)  # refuses more than MAX_FRAMES before any work
    steps = max(1, round(total * rate))
    if (q0 is None) != (qf is None):
        raise InputError("give both q0 and qf (end orientations) or neither")

    knots = np.stack(points)  # (K + 2, 3)
    lengths = np.linalg.norm(np.diff(knots, axis=0), axis=-1)
    share = lengths / lengths.sum() if lengths.sum() > 0.0 else np.full(lengths.size, 1.0)
    keep = share > 0.0  # a repeated point is not a segment
    starts, deltas = knots[:-1][keep], np.diff(knots, axis=0)[keep]
    seg_durations = total * share[keep] / share[keep].sum()
    bounds = np.concatenate([[0.0], np.cumsum(seg_durations)])
    bounds[-1] = total

    times = np.linspace(0.0, total, steps + 1)
    seg = np.clip(np.searchsorted(bounds, times, side="right") - 1, 0, seg_durations.size - 1)
    span = seg_durations[seg][:, None]
    tau = np.clip((times - bounds[seg]) / span[:, 0], 0.0, 1.0)[:, None]
    delta = deltas[seg]
    positions = starts[seg] + delta * ease(Easing.MINIMUM_JERK, tau)
    velocities = delta / span * (30.0 * tau**2 - 60.0 * tau**3 + 30.0 * tau**4)
    accelerations = delta / span**2 * (60.0 * tau - 180.0 * tau**2 + 120.0 * tau**3)

    orientations = None
    if q0 is not None and qf is not None:
        u = ease(Easing.MINIMUM_JERK, times / total)
        orientations = quat_slerp(as_quat_array(q0, "q0"), as_quat_array(qf, "qf"), u)
    return MinimumJerkTrajectory(times, positions, velocities, accelerations, orientations)
