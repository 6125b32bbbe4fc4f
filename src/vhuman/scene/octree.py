"""Octree free-space search around the maintenance target (Luo et al., section 2.1).

Luo et al. bound where the worker's body may go by a cubic search block around
the maintenance target whose side is the arm length L_arm (upper arm +
forearm + hand). The block is divided recursively into eight cubes; a cube
meeting no solid is free, one wholly inside a solid is occupied, and the
others (mixed) are divided again down to a given depth. The free cubes bound
the free space; their centres are the candidate placements.

References
----------
Luo M., Luo X., Zhu W., Zhang L., Fan X., "Modelling of virtual human
maintenance postures in narrow ship spaces" (船舶狹小空間虛擬人維修姿態(tài)建模技術),
section 2.1 and figures 9-10.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.scene.collision import CollisionWorld
from vhuman.skeleton import Side, Skeleton

__all__ = ["CellState", "FreeSpace", "arm_length", "free_space"]

_CHILDREN = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], np.int64)


class CellState(enum.StrEnum):
    """What a leaf of the octree holds; stored in `FreeSpace.state` by its `code`."""

    FREE = "free"
    OCCUPIED = "occupied"
    MIXED = "mixed"
    """Both (only at the deepest level)."""

    @property
    def code(self) -> int:
        """The state's number in `FreeSpace.state`: 0 free, 1 occupied, 2 mixed."""
        return list(CellState).index(self)

    @classmethod
    def parse(cls, state: CellState | str) -> CellState:
        """``state`` as a `CellState`; `InputError` names the allowed ones otherwise."""
        if state not in list(cls):
            raise InputError(f"unknown cell state {state!r}; use some of {', '.join(cls)}")
        return cls(state)


def arm_length(skeleton: Skeleton, side: Side | str = Side.RIGHT) -> float:
    """L_arm: upper arm + forearm + hand length [m] of a `standard_humanoid` skeleton.

    The distances shoulder→elbow, elbow→wrist and wrist→hand end site.

    Raises
    ------
    InputError
        For another ``side``; `UnknownJointError` if the skeleton lacks the arm joints.
    """
    p = "r" if Side.parse(side) is Side.RIGHT else "l"
    idx = skeleton.indices([f"{p}_elbow", f"{p}_wrist", f"{p}_hand"])
    return float(np.sum(skeleton.bone_lengths[idx]))


@dataclass(frozen=True, eq=False)
class FreeSpace:
    """The leaf cells of an octree over a cubic search block.

    Attributes
    ----------
    origin : ndarray, shape (3,)
        Lowest corner of the block [m].
    side : float
        Block side length [m].
    max_depth : int
        Deepest subdivision (cells of side ``side / 2**max_depth``).
    target : ndarray, shape (3,)
        Point the candidates are ordered by (the maintenance target) [m].
    index : ndarray of int, shape (n, 3)
        Integer position of each leaf in the grid of its depth.
    depth : ndarray of int, shape (n,)
        Depth of each leaf (0 = the whole block).
    state : ndarray of int8, shape (n,)
        0 free, 1 occupied, 2 mixed (only at ``max_depth``); see `CellState.code`.
    """

    origin: NDArray[np.float64]
    side: float
    max_depth: int
    target: NDArray[np.float64]
    index: NDArray[np.int64]
    depth: NDArray[np.int64]
    state: NDArray[np.int8]

    @property
    def sizes(self) -> NDArray[np.float64]:
        """Side length of each leaf ``(n,)`` [m]."""
        return self.side / 2.0**self.depth

    @property
    def centres(self) -> NDArray[np.float64]:
        """Centre of each leaf ``(n, 3)`` [m]."""
        return self.origin + (self.index + 0.5) * self.sizes[:, None]

    def volume(self, state: CellState | str = CellState.FREE) -> float:
        """Total volume of the leaves in ``state`` [m³]."""
        code = CellState.parse(state).code
        return float(np.sum(self.sizes[self.state == code] ** 3))

    @property
    def free_volume(self) -> float:
        """Volume of the free cells [m³]."""
        return self.volume(CellState.FREE)

    @property
    def candidates(self) -> NDArray[np.float64]:
        """Centres of the free cells ``(m, 3)`` [m], nearest to the target first."""
        c = self.centres[self.state == 0]
        return c[np.argsort(np.linalg.norm(c - self.target, axis=1), kind="stable")]

    def state_at(self, points: ArrayLike) -> NDArray[np.int8]:
        """State ``(...,)`` of the leaf holding each point (−1 outside the block)."""
        p = np.asarray(points, dtype=np.float64)
        flat = p.reshape(-1, 3)
        out = np.full(len(flat), -1, dtype=np.int8)
        rel = (flat - self.origin) / self.side
        inside = np.all((rel >= 0.0) & (rel <= 1.0), axis=1)
        for d in np.unique(self.depth):
            at = self.depth == d
            n = 2**d
            keys = _keys(self.index[at], n)
            order = np.argsort(keys)
            cell = np.clip(np.floor(rel[inside] * n).astype(np.int64), 0, n - 1)
            k = _keys(cell, n)
            pos = np.clip(np.searchsorted(keys[order], k), 0, len(keys) - 1)
            hit = keys[order][pos] == k
            idx = np.flatnonzero(inside)[hit]
            out[idx] = self.state[at][order][pos[hit]]
        return out.reshape(p.shape[:-1])

    def sample(self, n: int, rng: np.random.Generator | int | None = None) -> NDArray[np.float64]:
        """``n`` points ``(n, 3)`` uniform in the free volume [m].

        Raises
        ------
        InputError
            If there is no free cell.
        """
        gen = np.random.default_rng(rng)
        free = np.flatnonzero(self.state == 0)
        if not len(free):
            raise InputError("the search block has no free cell to sample from")
        vol = self.sizes[free] ** 3
        pick = free[gen.choice(len(free), size=int(n), p=vol / vol.sum())]
        u = gen.uniform(size=(int(n), 3))
        return self.origin + (self.index[pick] + u) * self.sizes[pick, None]

    def to_dict(self) -> dict[str, Any]:
        """Summary figures (metres, cubic metres) and the free cells."""
        return {
            "origin_m": self.origin.tolist(),
            "side_m": self.side,
            "max_depth": self.max_depth,
            "free_volume_m3": self.free_volume,
            "occupied_volume_m3": self.volume(CellState.OCCUPIED),
            "mixed_volume_m3": self.volume(CellState.MIXED),
            "cells": {s.value: int(np.sum(self.state == s.code)) for s in CellState},
            "free_cells": [
                {"centre_m": c.tolist(), "size_m": float(s)}
                for c, s in zip(
                    self.centres[self.state == 0], self.sizes[self.state == 0], strict=True
                )
            ],
        }


def _keys(index: NDArray[np.int64], n: int) -> NDArray[np.int64]:
    return (index[:, 0] * n + index[:, 1]) * n + index[:, 2]


def free_space(
    world: CollisionWorld,
    side: float,
    *,
    centre: ArrayLike | None = None,
    max_depth: int = 5,
) -> FreeSpace:
    """Octree of free, occupied and mixed cells over the cubic search block.

    Parameters
    ----------
    world : CollisionWorld
        The scene, registered for box queries.
    side : float
        Block side [m]; Luo et al. take L_arm (see `arm_length`).
    centre : array_like, shape (3,), optional
        Block centre [m]; by default the scene's target, as in Luo et al.
    max_depth : int, optional
        Deepest subdivision, 0–10 (cells of ``side / 2**max_depth``).

    Returns
    -------
    FreeSpace
        Leaf cells; free and occupied leaves may be at any depth, mixed ones at
        ``max_depth`` only. Their volumes add up to ``side**3``.

    Raises
    ------
    InputError
        For a side that is not a finite number > 0, a depth outside 0–10 or a
        centre that is not 3 finite numbers.

    Examples
    --------
    >>> from vhuman.scene import CollisionWorld, load_scene
    >>> space = free_space(CollisionWorld(load_scene("ship-valve")), 0.78, max_depth=3)
    >>> 0.0 < space.free_volume < 0.78**3
    True
    """
    s = float(side)
    if not (np.isfinite(s) and s > 0.0):
        raise InputError(f"side must be a finite number > 0 m, got {side!r}")
    depth = int(max_depth)
    if not 0 <= depth <= 10:
        raise InputError(f"max_depth must be between 0 and 10, got {max_depth!r}")
    target = world.scene.target.position
    c = target if centre is None else np.asarray(centre, dtype=np.float64)
    if c.shape != (3,) or not np.all(np.isfinite(c)):
        raise InputError(f"centre must be 3 finite numbers, got {centre!r}")
    origin = c - 0.5 * s
    idx = np.zeros((1, 3), dtype=np.int64)
    leaves: list[tuple[NDArray[np.int64], int, NDArray[np.int8]]] = []
    for d in range(depth + 1):
        size = s / 2.0**d
        state = world.classify_cells(origin + (idx + 0.5) * size, 0.5 * size)
        final = np.ones(len(idx), dtype=bool) if d == depth else state != 2
        leaves.append((idx[final], d, state[final]))
        idx = (2 * idx[~final][:, None, :] + _CHILDREN).reshape(-1, 3)
        if not len(idx):
            break
    return FreeSpace(
        origin=origin,
        side=s,
        max_depth=depth,
        target=np.array(target, dtype=np.float64),
        index=np.concatenate([leaf[0] for leaf in leaves]),
        depth=np.concatenate([np.full(len(leaf[0]), leaf[1], np.int64) for leaf in leaves]),
        state=np.concatenate([leaf[2] for leaf in leaves]).astype(np.int8),
    )
