"""Property tests: round trips between every rotation representation, group laws."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.transform import Rotation

from vhuman.errors import InputError
from vhuman.geometry import (
    EULER_SEQUENCES,
    euler_to_quat,
    quat_angle,
    quat_apply,
    quat_canonical,
    quat_conjugate,
    quat_identity,
    quat_multiply,
    quat_to_euler,
    quat_to_rotmat,
    quat_to_rotvec,
    rotmat_to_quat,
    rotvec_to_quat,
    skew,
    so3_exp,
    so3_log,
)


def random_quats(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    q = rng.normal(size=(*shape, 4))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def same_rotation(q1: np.ndarray, q2: np.ndarray, atol: float = 1e-9) -> bool:
    return bool(np.all(np.abs(np.abs(np.sum(q1 * q2, axis=-1)) - 1.0) < atol))


quat_strategy = arrays(
    np.float64, 4, elements=st.floats(-1, 1, allow_nan=False, allow_subnormal=False)
).filter(lambda q: np.linalg.norm(q) > 1e-3)


@given(quat_strategy)
def test_rotmat_round_trip(q: np.ndarray) -> None:
    q = q / np.linalg.norm(q)
    m = quat_to_rotmat(q)
    assert np.allclose(m @ m.T, np.eye(3), atol=1e-12)
    assert np.isclose(np.linalg.det(m), 1.0)
    assert same_rotation(rotmat_to_quat(m), q)


@given(quat_strategy)
def test_rotvec_round_trip(q: np.ndarray) -> None:
    q = q / np.linalg.norm(q)
    r = quat_to_rotvec(q)
    assert np.linalg.norm(r) <= np.pi + 1e-12
    assert same_rotation(rotvec_to_quat(r), q)


@pytest.mark.parametrize("seq", EULER_SEQUENCES)
def test_euler_round_trip_all_sequences(seq: str) -> None:
    rng = np.random.default_rng(1)
    q = random_quats(rng, (500,))
    e = quat_to_euler(q, seq)
    assert same_rotation(euler_to_quat(e, seq), q)
    # Degrees flag agrees with radians.
    assert np.allclose(quat_to_euler(q, seq, degrees=True), np.degrees(e))


@pytest.mark.parametrize("seq", ["XYZ", "YXZ", "zyx", "ZXZ", "yxy"])
def test_euler_gimbal_lock_round_trip(seq: str) -> None:
    """At gimbal lock the angles are not unique, but the rotation is reproduced."""
    middle = 0.0 if seq[0].lower() == seq[2].lower() else np.pi / 2
    angles = np.array([[0.3, middle, -0.7], [-1.1, -middle, 0.2] if middle else [1.0, 0.0, 0.5]])
    q = euler_to_quat(angles, seq)
    assert same_rotation(euler_to_quat(quat_to_euler(q, seq), seq), q, atol=1e-9)


@pytest.mark.parametrize("seq", ["XYZ", "ZXY", "xyz", "zyz"])
def test_euler_matches_scipy_and_intrinsic_extrinsic_duality(seq: str) -> None:
    rng = np.random.default_rng(2)
    a = rng.uniform(-1, 1, size=(50, 3))
    ref = Rotation.from_euler(seq, a).as_quat(scalar_first=True)
    assert same_rotation(euler_to_quat(a, seq), ref)
    # Intrinsic ABC equals extrinsic cba with reversed angles.
    dual = seq[::-1].swapcase()
    assert same_rotation(euler_to_quat(a[:, ::-1], dual), euler_to_quat(a, seq))


def test_euler_rejects_bad_sequence() -> None:
    with pytest.raises(InputError, match="Euler sequence"):
        euler_to_quat([0.0, 0.0, 0.0], "XXY")
    with pytest.raises(InputError, match="Euler sequence"):
        euler_to_quat([0.0, 0.0, 0.0], "XyZ")


def test_group_laws() -> None:
    rng = np.random.default_rng(3)
    a, b, c = (random_quats(rng, (100,)) for _ in range(3))
    # Associativity.
    lhs = quat_multiply(quat_multiply(a, b), c)
    rhs = quat_multiply(a, quat_multiply(b, c))
    assert np.allclose(lhs, rhs)
    # Identity and inverse.
    e = quat_identity((100,))
    assert np.allclose(quat_multiply(a, e), a)
    assert same_rotation(quat_multiply(a, quat_conjugate(a)), e)
    # Composition matches matrix products, and applying matches matrices.
    assert np.allclose(quat_to_rotmat(quat_multiply(a, b)), quat_to_rotmat(a) @ quat_to_rotmat(b))
    v = rng.normal(size=(100, 3))
    assert np.allclose(quat_apply(a, v), np.einsum("nij,nj->ni", quat_to_rotmat(a), v))


def test_batching_over_leading_shapes() -> None:
    rng = np.random.default_rng(4)
    q = random_quats(rng, (3, 5, 2))
    for fn in (quat_to_rotvec, quat_to_rotmat):
        flat = fn(q.reshape(-1, 4))
        assert np.allclose(fn(q).reshape(flat.shape), flat)
    e = quat_to_euler(q, "ZYX")
    assert e.shape == (3, 5, 2, 3)
    assert rotmat_to_quat(quat_to_rotmat(q)).shape == (3, 5, 2, 4)
    # Broadcasting one quaternion against a batch of vectors.
    v = rng.normal(size=(7, 3))
    assert quat_apply(q[0, 0, 0], v).shape == (7, 3)


def test_canonical_has_nonnegative_w() -> None:
    q = random_quats(np.random.default_rng(5), (200,))
    c = quat_canonical(q)
    assert np.all(c[:, 0] >= 0)
    assert same_rotation(c, q)


def test_nan_and_wrong_shapes_rejected() -> None:
    with pytest.raises(InputError, match="NaN"):
        quat_canonical([np.nan, 0, 0, 1])
    with pytest.raises(InputError, match=r"\(\.\.\., 4\)"):
        quat_canonical([1.0, 0.0, 0.0])
    with pytest.raises(InputError, match="zero norm"):
        quat_canonical([0.0, 0.0, 0.0, 0.0])
    with pytest.raises(InputError, match="3, 3"):
        rotmat_to_quat(np.eye(4))


class TestSO3ExpLog:
    def test_exp_matches_scipy(self) -> None:
        r = np.random.default_rng(6).normal(size=(200, 3))
        assert np.allclose(so3_exp(r), Rotation.from_rotvec(r).as_matrix())

    @pytest.mark.parametrize("theta", [0.0, 1e-12, 1e-8, 1e-6, 1e-4, 1.0, np.pi - 1e-6, np.pi])
    def test_log_exp_near_zero_and_pi(self, theta: float) -> None:
        axes = np.random.default_rng(7).normal(size=(50, 3))
        axes /= np.linalg.norm(axes, axis=1, keepdims=True)
        r = theta * axes
        r_back = so3_log(so3_exp(r))
        # Same rotation; near π the axis sign may flip (r and −r are the same rotation).
        assert np.allclose(so3_exp(r_back), so3_exp(r), atol=1e-12)
        assert np.allclose(np.linalg.norm(r_back, axis=1), theta, atol=1e-9)
        if theta < np.pi - 1e-3:
            assert np.allclose(r_back, r, atol=1e-12 + 1e-9 * theta)

    def test_small_angle_series_is_accurate(self) -> None:
        r = np.array([[1e-7, -2e-7, 3e-8]])
        ref = Rotation.from_rotvec(r).as_quat(scalar_first=True)
        assert np.allclose(rotvec_to_quat(r), ref, atol=1e-15)
        assert np.allclose(quat_to_rotvec(ref), r, rtol=1e-9, atol=1e-20)

    def test_exp_derivative_at_identity_is_skew(self) -> None:
        """Finite-difference Jacobian: d/dt exp(t ω) at t=0 is [ω]×."""
        omega = np.array([0.3, -0.2, 0.9])
        h = 1e-6
        fd = (so3_exp(h * omega) - so3_exp(-h * omega)) / (2 * h)
        assert np.allclose(fd, skew(omega), atol=1e-8)

    def test_angle(self) -> None:
        rng = np.random.default_rng(8)
        r = rng.normal(size=(100, 3))
        r *= (rng.uniform(0, np.pi, 100) / np.linalg.norm(r, axis=1))[:, None]
        q = rotvec_to_quat(r)
        assert np.allclose(quat_angle(q), np.linalg.norm(r, axis=1))
        assert np.allclose(quat_angle(q, q), 0.0, atol=1e-7)
