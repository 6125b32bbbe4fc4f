"""Batched forward kinematics and its inverse, as plain array functions.

Joints are processed one tree level at a time (all joints at the same depth in
one vectorised step), with the arrays laid out component-first so each step
works on contiguous memory.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.geometry.quaternion import quat_conjugate, quat_multiply

__all__ = ["forward_kinematics", "global_to_local", "tree_levels"]


def tree_levels(parents: ArrayLike) -> tuple[NDArray[np.intp], ...]:
    """Joint indices grouped by depth below the root (depth 1 first; the root is depth 0).

    Parameters
    ----------
    parents : array_like of int, shape (J,)
        Parent index of each joint, −1 for the root; parents come before children.
    """
    parents = np.asarray(parents, dtype=np.intp)
    depth = np.zeros(len(parents), dtype=np.intp)
    for j in range(1, len(parents)):
        depth[j] = depth[parents[j]] + 1
    return tuple(np.flatnonzero(depth == d) for d in range(1, int(depth.max(initial=0)) + 1))


def forward_kinematics(
    parents: ArrayLike,
    offsets: ArrayLike,
    root_positions: ArrayLike,
    local_rotations: ArrayLike,
    levels: tuple[NDArray[np.intp], ...] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Global joint positions and rotations from local rotations.

    ``G_j = G_parent ⊗ L_j`` and ``p_j = p_parent + G_parent · offset_j``; the
    root takes ``p_0 = root_positions`` and ``G_0 = L_0``.

    Parameters
    ----------
    parents : array_like of int, shape (J,)
        Parent indices, −1 for the root (index 0); parents before children.
    offsets : array_like, shape (J, 3)
        Rest offset of each joint from its parent, in the parent's frame [m].
    root_positions : array_like, shape (..., 3)
        World position of the root [m].
    local_rotations : array_like, shape (..., J, 4)
        Rotation of each joint relative to its parent (w, x, y, z), unit.
    levels : tuple of index arrays, optional
        :func:`tree_levels` of ``parents``, if already computed.

    Returns
    -------
    positions : ndarray, shape (..., J, 3)
        World positions [m].
    rotations : ndarray, shape (..., J, 4)
        World rotations ``q_world_joint``.
    """
    parents = np.asarray(parents, dtype=np.intp)
    offsets = np.asarray(offsets, dtype=np.float64)
    local = np.asarray(local_rotations, dtype=np.float64)
    root = np.asarray(root_positions, dtype=np.float64)
    n_joints = len(parents)
    lead = local.shape[:-2]
    if levels is None:
        levels = tree_levels(parents)
    n = int(np.prod(lead, dtype=np.int64))
    # Component-first layout: (4, J, N) and (3, J, N).
    q_local = np.ascontiguousarray(local.reshape(n, n_joints, 4).transpose(2, 1, 0))
    q_glob = np.empty_like(q_local)
    p_glob = np.empty((3, n_joints, n))
    q_glob[:, 0] = q_local[:, 0]
    p_glob[:, 0] = np.broadcast_to(root, (*lead, 3)).reshape(n, 3).T
    for idx in levels:
        par = parents[idx]
        pw, px, py, pz = q_glob[:, par]  # each (k, N)
        lw, lx, ly, lz = q_local[:, idx]
        q_glob[0, idx] = pw * lw - px * lx - py * ly - pz * lz
        q_glob[1, idx] = pw * lx + px * lw + py * lz - pz * ly
        q_glob[2, idx] = pw * ly - px * lz + py * lw + pz * lx
        q_glob[3, idx] = pw * lz + px * ly - py * lx + pz * lw
        ox, oy, oz = (offsets[idx, c][:, None] for c in range(3))
        # v + w t + u × t with t = 2 u × v (rotation of the offset by the parent).
        tx = 2.0 * (py * oz - pz * oy)
        ty = 2.0 * (pz * ox - px * oz)
        tz = 2.0 * (px * oy - py * ox)
        p_glob[0, idx] = p_glob[0, par] + ox + pw * tx + (py * tz - pz * ty)
        p_glob[1, idx] = p_glob[1, par] + oy + pw * ty + (pz * tx - px * tz)
        p_glob[2, idx] = p_glob[2, par] + oz + pw * tz + (px * ty - py * tx)
    positions = p_glob.transpose(2, 1, 0).reshape(*lead, n_joints, 3)
    rotations = q_glob.transpose(2, 1, 0).reshape(*lead, n_joints, 4)
    return positions, rotations


def global_to_local(parents: ArrayLike, global_rotations: ArrayLike) -> NDArray[np.float64]:
    """Local rotations ``(..., J, 4)`` from world rotations: ``L_j = G_parent⁻¹ ⊗ G_j``.

    The inverse of the rotation part of :func:`forward_kinematics`.
    """
    parents = np.asarray(parents, dtype=np.intp)
    g = np.asarray(global_rotations, dtype=np.float64)
    local = g.copy()
    local[..., 1:, :] = quat_multiply(quat_conjugate(g[..., parents[1:], :]), g[..., 1:, :])
    return local
