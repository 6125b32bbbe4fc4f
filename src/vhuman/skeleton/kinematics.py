"""Batched forward kinematics and its inverse, as plain array functions.

Joints are visited in index order (parents first) and each step is vectorised
over all frames; arrays are laid out joint- and component-first, so every
operation works on one contiguous row of frames.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.geometry.quaternion import quat_conjugate, quat_multiply

__all__ = ["forward_kinematics", "global_to_local"]


def forward_kinematics(
    parents: ArrayLike,
    offsets: ArrayLike,
    root_positions: ArrayLike,
    local_rotations: ArrayLike,
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
    n = int(np.prod(lead, dtype=np.int64))
    q_local = np.ascontiguousarray(local.reshape(n, n_joints, 4).transpose(1, 2, 0))  # (J, 4, N)
    q_glob = np.empty_like(q_local)
    p_glob = np.empty((n_joints, 3, n))
    q_glob[0] = q_local[0]
    p_glob[0] = np.broadcast_to(root, (*lead, 3)).reshape(n, 3).T
    for j in range(1, n_joints):
        par = parents[j]
        pw, px, py, pz = q_glob[par]  # each (N,)
        lw, lx, ly, lz = q_local[j]
        g = q_glob[j]
        g[0] = pw * lw - px * lx - py * ly - pz * lz
        g[1] = pw * lx + px * lw + py * lz - pz * ly
        g[2] = pw * ly - px * lz + py * lw + pz * lx
        g[3] = pw * lz + px * ly - py * lx + pz * lw
        ox, oy, oz = offsets[j]
        # Offset rotated by the parent: v + w t + u × t with t = 2 u × v.
        tx = 2.0 * (py * oz - pz * oy)
        ty = 2.0 * (pz * ox - px * oz)
        tz = 2.0 * (px * oy - py * ox)
        pp, pj = p_glob[par], p_glob[j]
        pj[0] = pp[0] + ox + pw * tx + (py * tz - pz * ty)
        pj[1] = pp[1] + oy + pw * ty + (pz * tx - px * tz)
        pj[2] = pp[2] + oz + pw * tz + (px * ty - py * tx)
    positions = p_glob.transpose(2, 0, 1).reshape(*lead, n_joints, 3)
    rotations = q_glob.transpose(2, 0, 1).reshape(*lead, n_joints, 4)
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
