"""Two-stage CCD (Chen et al.): for a far target the body moves first, the upper body reaches after.

Chen et al. make the pelvis a *sub-root*: while the target is far, CCD runs
only on the lower-body chain, which ends at the pelvis, so the legs carry the
body towards the target; only near the target do the iterations backtrack to the
main root and use the arm branch. Per iteration, far targets cost the few joints
below the sub-root instead of the whole chain.

vhuman's skeletons are rooted at the pelvis, so Chen et al.'s lower-body chain
(planted foot → pelvis) is represented by the root's motions (:class:`RootDofs`:
the body steps and turns, one step per update) and the main root is the pelvis
itself. On a chain that starts at the root with root motions (for whole-body
reaches, ``Chain(skeleton, "l_hand", root=RootDofs.horizontal())``):

1. *far*: while the target is farther than ``switch_distance`` from the anchor
   joint (the shoulder for an arm), CCD on the chain's joints up to ``sub_root``
   only, driving the anchor to the point at ``switch_distance`` from the target:
   one joint update per iteration while the body walks, the arm is carried;
2. *near*: CCD on the whole chain, backtracking from the hand to the root.

Both stages use the updates of :class:`~vhuman.ik.CCD`, and joint updates are
counted the same way (the root's step and turn count as one update), so the
two solvers compare directly.

References
----------
M. Chen, J. Chen, C. Xu, "Virtual human motion control based on two-stage IK and
keyframes" (Chen et al.), section 2.2, steps 1-7.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from vhuman.errors import InputError
from vhuman.ik._loop import SolverOptions, iterate
from vhuman.ik._state import ChainState, initial_state, prepare
from vhuman.ik._sweep import FK, Goal, ccd_sweep, sweep_order
from vhuman.ik.chain import Chain
from vhuman.ik.result import IKResult
from vhuman.ik.target import Target
from vhuman.skeleton import JointType

__all__ = ["TwoStageCCD"]

_FAR, _NEAR = 1.0, 2.0
_SWITCH_RATIO = 0.8
"""Default switching distance as a fraction of the anchor-to-effector length (measured)."""


@dataclass(frozen=True, kw_only=True)
class TwoStageCCD(SolverOptions):
    """Two-stage CCD with the pelvis as sub-root (Chen et al.).

    Parameters
    ----------
    switch_distance : float, optional
        Distance [m] from the anchor to the target below which the near stage
        runs. Default: 0.8 × the chain's length from the anchor to the end
        effector (0.59 m for the 50th-percentile male arm of 0.74 m). Measured on
        random whole-body reaches of the standard humanoid after steps of 0.3-1.5,
        0.5-2 and 1-3 m (``benchmarks/ik.py --sweep-switch``, switching distances
        0.3-1.0 m), mean joint updates were lowest at 0.59-0.6 m in every case,
        all at full success; shorter distances walk further, longer ones leave
        more for the whole-chain sweeps.
    sub_root : str, optional
        Last joint of the far stage (default: the chain's first joint, the root).
    anchor : str, optional
        Joint whose distance to the target selects the stage (default: the parent
        of the first HINGE joint after ``sub_root``: the shoulder of an arm).
    max_iterations, tolerance, orientation_tolerance, max_step, restarts, seed
        As for :class:`~vhuman.ik.CCD`.

    Raises
    ------
    InputError
        For option values out of range.
    """

    switch_distance: float | None = None
    sub_root: str | None = None
    anchor: str | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        d = self.switch_distance
        if d is not None and not (np.isfinite(d) and d > 0.0):
            raise InputError(
                f"switch_distance must be a distance > 0 m, got {self.switch_distance}"
            )

    def stages(self, chain: Chain) -> tuple[int, int]:
        """Chain positions of the sub-root and of the anchor.

        Raises
        ------
        InputError
            If the joints are not on the chain, the sub-root is the end effector,
            the far stage has nothing to move, or the anchor is not after the sub-root.
        """
        sub = 0 if self.sub_root is None else chain.position(self.sub_root)
        end = len(chain.specs) - 1
        if sub >= end - 1:
            raise InputError(
                f"sub_root {chain.names[sub]!r} leaves no joint for the near stage; choose a "
                f"joint before {chain.names[end - 1]!r} on the chain {', '.join(chain.names)}"
            )
        if not sweep_order(chain, 0, sub, orientation=False):
            raise InputError(
                f"the far stage (chain joints up to {chain.names[sub]!r}) cannot move; give the "
                "chain root motions, e.g. Chain(..., root=RootDofs.horizontal())"
            )
        if self.anchor is not None:
            anchor = chain.position(self.anchor)
        else:
            hinges = [i for i in range(sub + 2, end + 1) if chain.specs[i].kind is JointType.HINGE]
            anchor = hinges[0] - 1 if hinges else sub + 1
        if anchor <= sub:
            raise InputError(f"anchor {chain.names[anchor]!r} must come after the sub-root")
        return sub, anchor

    def solve(
        self,
        chain: Chain,
        target: Target | ArrayLike,
        local_rotations: ArrayLike | None = None,
        root_position: ArrayLike | None = None,
        *,
        batched: bool | None = None,
    ) -> IKResult:
        """Solve for one target or a batch (arguments and result as :meth:`CCD.solve`)."""
        sub, anchor = self.stages(chain)
        problem = prepare(chain, target, local_rotations, root_position, batched=batched)
        xp = problem.xp
        st = initial_state(problem)
        orient = problem.target_orientation is not None
        end = len(chain.specs) - 1
        far_order = sweep_order(chain, 0, sub, orientation=False)
        near_order = sweep_order(chain, 0, end, orientation=orient)
        w2 = problem.orientation_weight**2
        reach = self.switch_distance
        if reach is None:
            reach = _SWITCH_RATIO * sum(
                float(np.linalg.norm(chain.skeleton.offsets[j])) for j in chain.joints[anchor + 1 :]
            )
        tol = self.tolerance

        def step(st: ChainState, fk: FK) -> None:
            a, t = fk[0][anchor], st.t
            d = (a[0] - t[0], a[1] - t[1], a[2] - t[2])
            dist = xp.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
            st.stage = xp.where(st.stage == 0.0, xp.where(dist > reach, _FAR, _NEAR), st.stage)
            # Both masks first: a target leaving the far stage waits for fresh FK.
            far = xp.where(st.stage == _FAR, st.alive, 0.0)
            near = xp.where(st.stage == _NEAR, st.alive, 0.0)
            if xp.any(far > 0.0):
                # The anchor's goal: on the line to the target, just inside the switching sphere.
                k = (reach - tol) / xp.maximum(dist, 1e-12)
                point = (t[0] + k * d[0], t[1] + k * d[1], t[2] + k * d[2])
                goal = Goal(anchor, point, tol, math.inf, use_orientation=False)
                e = ccd_sweep(
                    chain, st, fk, goal, far_order, w2=w2, max_step=self.max_step, xp=xp, active=far
                )
                n = (e[0] - t[0], e[1] - t[1], e[2] - t[2])
                new = xp.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2])
                # Near enough, or the body cannot bring the anchor closer (e.g. a low target).
                switch = (far > 0.0) & ((new <= reach + tol) | (new > dist - tol))
                st.stage = xp.where(switch, _NEAR, st.stage)
            if xp.any(near > 0.0):
                goal = Goal(end, st.t, tol, self.orientation_tolerance, orient)
                ccd_sweep(
                    chain,
                    st,
                    fk,
                    goal,
                    near_order,
                    w2=w2,
                    max_step=self.max_step,
                    xp=xp,
                    active=near,
                )

        return iterate(
            problem,
            st,
            step,
            max_iterations=self.max_iterations,
            tolerance=self.tolerance,
            orientation_tolerance=self.orientation_tolerance,
            restarts=self.restarts,
            seed=self.seed,
        )
