"""`Chain` and `RootDofs`: structure, degrees of freedom and validation."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.ik import Chain, RootDofs
from vhuman.skeleton import JointType, Skeleton, forward_kinematics


def test_arm_chain_has_seven_dofs(chains: dict[str, Chain]) -> None:
    arm = chains["arm"]
    assert arm.names == ("l_shoulder", "l_elbow", "l_wrist", "l_hand")
    assert arm.n_dofs == 7
    assert arm.root is None
    assert not arm.includes_root
    assert arm.length == pytest.approx(sum(arm.bone_lengths))


def test_whole_body_chain_counts_root_motions(chains: dict[str, Chain]) -> None:
    body = chains["body"]
    assert body.names[0] == "pelvis"
    assert body.includes_root
    # 2 steps + 1 turn + spine, chest, clavicle, shoulder (3 each) + elbow 1 + wrist 3.
    assert body.n_dofs == 2 + 1 + 4 * 3 + 1 + 3
    assert body.specs[0].kind is JointType.HINGE


def test_default_root_rotates_like_a_ball(humanoid: Skeleton) -> None:
    chain = Chain(humanoid, "head")
    assert chain.specs[0].kind is JointType.BALL
    assert chain.translations == ()


def test_effector_matches_forward_kinematics(chains: dict[str, Chain], humanoid: Skeleton) -> None:
    rng = np.random.default_rng(0)
    q = rng.normal(size=(5, humanoid.n_joints, 4))
    q /= np.linalg.norm(q, axis=-1, keepdims=True)
    root = rng.normal(size=(5, 3))
    p, r = chains["arm"].effector(q, root)
    pos, rot = forward_kinematics(humanoid.parents, humanoid.offsets, root, q)
    assert np.allclose(p, pos[:, humanoid.index("l_hand")])
    assert np.allclose(r, rot[:, humanoid.index("l_hand")])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"end": "l_hnd"}, r"chain end 'l_hnd' is not a joint.*l_hand"),
        ({"end": "l_hand", "start": "elbow"}, r"chain start 'elbow' is not a joint"),
        ({"end": "l_hand", "start": "l_hand"}, r"zero length.*ancestors of 'l_hand': l_wrist"),
        ({"end": "l_hand", "start": "r_shoulder"}, r"proper ancestor"),
        ({"end": "l_hand", "start": "l_shoulder", "root": RootDofs()}, r"starts at the root"),
    ],
)
def test_bad_chains_raise_one_input_error(humanoid: Skeleton, kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        Chain(humanoid, **kwargs)


def test_chain_of_fixed_joints_cannot_move() -> None:
    sk = Skeleton(
        ("root", "a", "b"),
        [-1, 0, 1],
        [[0, 0, 1], [0, 0, 0.5], [0, 0, 0.5]],
        joint_types=(JointType.FREE, JointType.FIXED, JointType.FIXED),
    )
    with pytest.raises(InputError, match="no joint that can move"):
        Chain(sk, "b", start="a")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"translation_axes": [[1, 0, 0], [1, 1, 0]]}, "orthonormal"),
        ({"translation_axes": [[1, 0, 0]], "translation_limits": [[0.1, 1.0]]}, "contain 0"),
        ({"rotation": JointType.FREE}, "BALL, HINGE or FIXED"),
        ({"rotation_axis": [0, 0, 0]}, "non-zero"),
        ({"max_step": 0.0}, "max_step"),
    ],
)
def test_bad_root_dofs(kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        RootDofs(**kwargs)


def test_chain_position_lists_the_chain(chains: dict[str, Chain]) -> None:
    assert chains["arm"].position("l_elbow") == 1
    with pytest.raises(InputError, match="l_shoulder, l_elbow"):
        chains["arm"].position("r_elbow")
