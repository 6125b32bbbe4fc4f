"""The analytic Jacobian of DLS against finite differences."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.geometry import quat_multiply, rotvec_to_quat
from vhuman.geometry.quaternion import quat_angle, quat_conjugate
from vhuman.ik import Chain, jacobian
from vhuman.skeleton import JointType, Skeleton


def _perturbed(chain: Chain, q: np.ndarray, root: np.ndarray, dof: int, eps: float):
    """Pose with DOF ``dof`` moved by ``eps`` (the ordering documented by `jacobian`)."""
    q, root = q.copy(), root.copy()
    axes = [] if chain.root is None else list(chain.root.translation_axes)
    if dof < len(axes):
        return q, root + eps * axes[dof]
    dof -= len(axes)
    for spec in chain.specs:
        n = spec.n_rotations
        if dof < n:
            axis = np.array(spec.axis) if spec.kind is JointType.HINGE else np.eye(3)[dof]
            q[spec.index] = quat_multiply(rotvec_to_quat(eps * axis), q[spec.index])
            return q, root
        dof -= n
    raise AssertionError("DOF out of range")


@pytest.mark.parametrize("name", ["arm", "torso_arm", "body"])
def test_jacobian_matches_finite_differences(
    chains: dict[str, Chain], humanoid: Skeleton, name: str
) -> None:
    chain = chains[name]
    rng = np.random.default_rng(0)
    q = humanoid.clamp(rotvec_to_quat(0.4 * rng.normal(size=(humanoid.n_joints, 3))))
    root = humanoid.offsets[0] + [0.2, -0.1, 0.0]
    jac = jacobian(chain, q, root)
    assert jac.shape == (6, chain.n_dofs)
    p0, r0 = chain.effector(q, root)
    eps = 1e-6
    for dof in range(chain.n_dofs):
        qp, rp = _perturbed(chain, q, root, dof, eps)
        p1, r1 = chain.effector(qp, rp)
        assert np.allclose((p1 - p0) / eps, jac[:3, dof], atol=1e-5)
        dr = quat_multiply(r1, quat_conjugate(r0))
        omega = 2.0 * dr[1:] / eps * np.sign(dr[0])
        assert np.allclose(omega, jac[3:, dof], atol=1e-5)
        assert quat_angle(r0, r1) < 2 * eps
