"""Joint comfort functions f_rot(θ) for the arm objective of Luo et al. (and the trunk and legs).

Functional form (Luo et al.'s own formula is lost in our copy; this one keeps
its stated properties — smallest at the optimum, scaled by the comfortable
range σ)::

    f_rot(θ) = ((θ − θ*) / σ(θ))²,   σ(θ) = high − θ*  if θ ≥ θ*,  θ* − low  otherwise

so f_rot is 0 at the optimum θ*, 1 at either end of the comfortable range
[low, high], 4 at twice the range; continuous with a continuous first
derivative (0 at θ*). Data: :data:`~vhuman.ergonomics.comfort_data.JOINT_COMFORT`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.ergonomics.comfort_data import ARM_DOFS, JOINT_COMFORT, JointComfort
from vhuman.errors import InputError

__all__ = ["arm_discomfort", "joint_discomfort", "joint_discomforts"]


def _comfort(dof: str | JointComfort) -> JointComfort:
    if isinstance(dof, JointComfort):
        return dof
    try:
        return JOINT_COMFORT[dof]
    except (KeyError, TypeError):
        raise InputError(
            f"unknown degree of freedom {dof!r}; known: {', '.join(JOINT_COMFORT)}"
        ) from None


def _angles(theta: ArrayLike, name: str) -> NDArray[np.float64]:
    t = np.asarray(theta, dtype=np.float64)
    if not np.all(np.isfinite(t)):
        raise InputError(f"{name} contains NaN or infinite angles")
    return t


def joint_discomfort(theta: ArrayLike, dof: str | JointComfort) -> NDArray[np.float64]:
    """f_rot(θ) of one degree of freedom, elementwise.

    Parameters
    ----------
    theta : array_like
        Joint angles [rad], any shape.
    dof : str or JointComfort
        A key of :data:`JOINT_COMFORT` (e.g. ``"elbow_flexion"``) or custom data.

    Returns
    -------
    ndarray
        Same shape as ``theta``; 0 at the optimum, 1 at the comfortable range's ends.

    Raises
    ------
    InputError
        For an unknown ``dof`` or NaN/infinite angles.

    Examples
    --------
    >>> import numpy as np
    >>> joint_discomfort(np.radians([80.0, 100.0, 60.0, 120.0]), "elbow_flexion").round(6)
    array([0., 1., 1., 4.])
    """
    c = _comfort(dof)
    t = _angles(theta, "theta")
    sigma = np.where(t >= c.optimum, c.high - c.optimum, c.optimum - c.low)
    return ((t - c.optimum) / sigma) ** 2


def joint_discomforts(theta: ArrayLike, dofs: Sequence[str | JointComfort]) -> NDArray[np.float64]:
    """f_rot of several degrees of freedom: ``theta (..., K)``, ``K = len(dofs)`` → ``(..., K)``.

    Raises
    ------
    InputError
        If the last axis of ``theta`` does not match ``dofs``, or as :func:`joint_discomfort`.
    """
    t = _angles(theta, "theta")
    comforts = [_comfort(d) for d in dofs]
    if t.ndim == 0 or t.shape[-1] != len(comforts):
        raise InputError(
            f"theta must have a last axis of {len(comforts)} (one per dof), got shape {t.shape}"
        )
    opt = np.array([c.optimum for c in comforts])
    above = np.array([c.high - c.optimum for c in comforts])
    below = np.array([c.optimum - c.low for c in comforts])
    return ((t - opt) / np.where(t >= opt, above, below)) ** 2


def arm_discomfort(theta: ArrayLike) -> NDArray[np.float64]:
    """Σ f_rot over the 7 arm angles of Luo et al. (order :data:`ARM_DOFS`).

    Parameters
    ----------
    theta : array_like, shape (..., 7)
        Shoulder flexion, abduction, external rotation; elbow flexion, forearm
        pronation; wrist radial deviation, flexion [rad].

    Returns
    -------
    ndarray, shape (...)
        The joint-comfort objective (0 when every joint is at its optimum).
    """
    return joint_discomforts(theta, ARM_DOFS).sum(axis=-1)
