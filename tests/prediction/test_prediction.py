"""Tests of vhuman.prediction: kinematics, data, models, metrics, training, errors."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from vhuman.errors import FileFormatError, InputError
from vhuman.geometry import quat_to_rotvec, rotvec_to_quat
from vhuman.io import cmu_skeleton
from vhuman.prediction import (
    HORIZON_FRAMES,
    TorchFK,
    TrainConfig,
    bone_length_drift,
    build_model,
    euler_error,
    evaluate,
    foot_skating,
    load_cmu_sequences,
    load_model,
    mpjpe,
    predict_motion,
    train,
)
from vhuman.prediction.data import mirror_joints
from vhuman.prediction.kinematics import (
    norm3_t,
    quat_angle_t,
    quat_conjugate_t,
    quat_multiply_conjugate_t,
    quat_multiply_t,
    quat_to_rotvec_t,
    rotvec_to_quat_t,
)
from vhuman.prediction.sampling import WindowSampler, batch_tensors, epoch_order, mirror_rotations
from vhuman.prediction.schedule import lr_at
from vhuman.skeleton import Motion, Skeleton, forward_kinematics, standard_humanoid

torch.set_num_threads(1)
SMALL = {"dim": 16, "heads": 2, "ff": 32, "encoder_layers": 1, "decoder_layers": 1}
SMALL_LTD = {"hidden": 32, "n_blocks": 2}


def test_exp_log_round_trip_matches_geometry():
    rng = np.random.default_rng(0)
    axis = rng.normal(size=(200, 3))
    r = axis / np.linalg.norm(axis, axis=1, keepdims=True) * rng.uniform(0, 3.1, (200, 1))
    r[:3] = [[0, 0, 0], [1e-8, 0, 0], [0, 3.1, 0]]
    q_t = rotvec_to_quat_t(torch.tensor(r, dtype=torch.float64)).numpy()
    np.testing.assert_allclose(q_t, rotvec_to_quat(r), atol=1e-12)
    back = quat_to_rotvec_t(torch.tensor(q_t)).numpy()
    np.testing.assert_allclose(back, quat_to_rotvec(q_t), atol=1e-9)
    np.testing.assert_allclose(back, r, atol=1e-9)
    x = torch.zeros(4, 3, dtype=torch.float64, requires_grad=True)
    rotvec_to_quat_t(x).sum().backward()
    assert torch.isfinite(x.grad).all()


@pytest.mark.parametrize(
    "w", [0.0, 1e-9, 0.5, 1.0], ids=["half-turn", "near-half-turn", "mid", "identity"]
)
def test_log_gradient_is_finite_at_every_angle(w: float) -> None:
    v = np.array([0.6, 0.0, 0.8]) * np.sqrt(1.0 - w * w)
    q = torch.tensor([[w, *v]], dtype=torch.float64, requires_grad=True)
    r = quat_to_rotvec_t(q)
    r.sum().backward()
    assert torch.isfinite(q.grad).all()
    np.testing.assert_allclose(r.detach().numpy(), quat_to_rotvec(q.detach().numpy()), atol=1e-9)


def test_quat_angle_is_the_rotation_vectors_norm_with_a_zero_gradient_at_identity():
    g = torch.Generator().manual_seed(3)
    q = torch.nn.functional.normalize(torch.randn(500, 4, generator=g, dtype=torch.float64), dim=-1)
    q[:3] = torch.tensor([[1.0, 0, 0, 0], [-1.0, 0, 0, 0], [0.0, 0.6, 0, 0.8]], dtype=torch.float64)
    angle = quat_angle_t(q)
    torch.testing.assert_close(angle, norm3_t(quat_to_rotvec_t(q)), atol=1e-12, rtol=0)
    assert bool(((angle >= 0.0) & (angle <= np.pi)).all())
    x = torch.tensor([[1.0, 0.0, 0.0, 0.0]], dtype=torch.float64, requires_grad=True)
    quat_angle_t(x).sum().backward()
    torch.testing.assert_close(x.grad, torch.zeros_like(x), atol=0, rtol=0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_product_with_the_conjugate_is_the_product_of_the_conjugate_to_the_bit(dtype) -> None:
    g = torch.Generator().manual_seed(5)
    a = torch.randn(2000, 4, generator=g, dtype=dtype)
    b = torch.randn(2000, 4, generator=g, dtype=dtype)
    b[:2] = torch.tensor([[1.0, 0, 0, 0], [0.0, -0.6, 0, 0.8]], dtype=dtype)
    expected = quat_multiply_t(a, quat_conjugate_t(b))
    assert torch.equal(quat_multiply_conjugate_t(a, b), expected)
    unit = torch.nn.functional.normalize(a, dim=-1)
    torch.testing.assert_close(
        quat_angle_t(quat_multiply_conjugate_t(unit, unit)), torch.zeros(2000, dtype=dtype)
    )


def test_torch_fk_equals_numpy_fk():
    sk = standard_humanoid()
    rng = np.random.default_rng(1)
    q = rotvec_to_quat(rng.normal(size=(5, 7, sk.n_joints, 3)) * 0.7)
    root = rng.normal(size=(5, 7, 3))
    p_np, _ = forward_kinematics(sk.parents, sk.offsets, root, q)
    fk = TorchFK(sk.parents, sk.offsets).double()
    p_t = fk(torch.tensor(q), torch.tensor(root)).numpy()
    np.testing.assert_allclose(p_t, p_np, atol=1e-6)


def test_norm3_equals_vector_norm_with_a_zero_gradient_at_zero():
    v = torch.randn(4, 6, 3, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    v[1, 2] = 0.0
    v.requires_grad_()
    got, want = norm3_t(v), torch.linalg.vector_norm(v, dim=-1)
    torch.testing.assert_close(got, want, rtol=1e-14, atol=0.0)
    (g_got,) = torch.autograd.grad(got.sum(), v)
    (g_want,) = torch.autograd.grad(want.sum(), v)
    torch.testing.assert_close(g_got, g_want, rtol=1e-14, atol=0.0)
    assert torch.equal(g_got[1, 2], torch.zeros(3, dtype=torch.float64))


def test_torch_fk_gradients_equal_finite_differences():
    sk = cmu_skeleton()  # 38 joints over 11 tree levels, branching at the spine
    fk = TorchFK(sk.parents, sk.offsets).double()
    g = torch.Generator().manual_seed(4)
    r = 0.7 * torch.randn(3, 2, sk.n_joints, 3, generator=g, dtype=torch.float64)
    q = rotvec_to_quat_t(r).requires_grad_()
    root = torch.randn(3, 2, 3, generator=g, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(fk, (q, root), fast_mode=True)
    assert torch.autograd.gradcheck(fk, (q,), fast_mode=True)


def test_torch_fk_output_is_batch_first_and_contiguous():
    sk = standard_humanoid()
    fk = TorchFK(sk.parents, sk.offsets)
    q = torch.nn.functional.normalize(torch.randn(5, 3, sk.n_joints, 4), dim=-1)
    pos, mats = fk.frames(q)
    assert pos.shape == (5, 3, sk.n_joints, 3)
    assert pos.is_contiguous()
    assert mats.shape == (5, 3, sk.n_joints, 3, 3)
    assert mats.is_contiguous()
    torch.testing.assert_close(fk(q), pos, rtol=0.0, atol=0.0)


def test_torch_fk_jacobian_equals_finite_differences():
    sk = cmu_skeleton()
    fk = TorchFK(sk.parents, sk.offsets).double()
    g = torch.Generator().manual_seed(0)
    q = rotvec_to_quat_t(0.5 * torch.randn(2, sk.n_joints, 3, generator=g, dtype=torch.float64))
    q[..., 0, :] = q.new_tensor([1.0, 0.0, 0.0, 0.0])
    pj, aj = [3, 7, 10, 20, 27], [1, 2, 12, 18, 19, 25]
    jac = fk.jacobian(q, pj, aj)
    assert jac.shape == (2, 15, 18)
    eps = 1e-6
    for k, a in enumerate(aj):
        for c in range(3):
            turned = q.clone()
            turned[:, a] = quat_multiply_t(
                rotvec_to_quat_t(eps * torch.eye(3)[c].double()), q[:, a]
            )
            moved = ((fk(turned) - fk(q))[:, pj] / eps).reshape(2, -1)
            torch.testing.assert_close(jac[:, :, 3 * k + c], moved, atol=1e-5, rtol=0)
    pos, mats = fk.frames(q)
    torch.testing.assert_close(pos, fk(q))
    torch.testing.assert_close(mats @ mats.transpose(-1, -2), torch.eye(3).double().expand_as(mats))


def test_lie_transformer_jacobian_features_recover_a_single_joint_turn(toy):
    model = build_model("lie-transformer", toy, options={**SMALL, "jacobian_features": True})
    q, _ = batch_tensors(toy, toy.windows(split="train"), slice(0, 3))
    q_last = q[:, 9]
    knee = toy.skeleton.index("lknee")
    r = torch.tensor([0.02, 0.0, 0.0])  # a small flexion of the left knee only
    turned = q_last.clone()
    turned[:, knee] = quat_multiply_t(rotvec_to_quat_t(r), q_last[:, knee])
    pj = model.position_joints
    dp = (model.fk(turned) - model.fk(q_last))[:, None, pj]
    rotvecs = model._position_rotvecs(q_last, dp)[:, 0]  # (B, A, 3)
    a = model.angle_joints.index(knee)
    # the knee's rotation dominates, recovered to within the damping's shrinkage
    torch.testing.assert_close(rotvecs[:, a], r.expand(3, 3), atol=4e-3, rtol=0)
    others = torch.cat([rotvecs[:, :a], rotvecs[:, a + 1 :]], dim=1)
    assert others.norm(dim=-1).max() < 0.2 * r.norm()


def test_windows_shapes_and_split(toy):
    js = toy.joint_sets()
    sk = toy.skeleton
    assert sk.index("lhip") in js.angle
    assert sk.index("lknee") in js.position
    assert 0 not in js.position
    assert 0 not in js.angle
    assert toy.validation.tolist() == [False, False, True]
    w = toy.windows(split="train")
    assert len(w) == 2 * (60 - 35 + 1)
    assert w.frame_index().shape == (len(w), 35)
    assert set(w.trial.tolist()) == {0, 1}  # never across or into the held-out trial
    assert (w.frame_index() < 120).all()
    q, p = batch_tensors(toy, w, slice(0, 4))
    assert q.shape == (4, 35, sk.n_joints, 4)
    assert p.shape == (4, 35, sk.n_joints, 3)
    torch.testing.assert_close(q[..., 0, :], q.new_tensor([1.0, 0, 0, 0]).expand(4, 35, 4))
    with pytest.raises(InputError, match="split"):
        toy.windows(split="test")


@pytest.mark.parametrize(
    "kind", ["lie-transformer", "simlpe", "ltd", "zero_velocity", "constant_velocity"]
)
def test_model_output_shapes(toy, kind):
    options = {"lie-transformer": SMALL, "ltd": SMALL_LTD}.get(kind)
    model = build_model(kind, toy, options=options)
    q, p = batch_tensors(toy, toy.windows(), slice(0, 3))
    out = model(q[:, :10], p[:, :10])
    assert out.positions.shape == (3, 25, toy.skeleton.n_joints, 3)
    if kind in ("simlpe", "ltd"):
        assert out.rotations is None
    else:
        assert out.rotations.shape == (3, 25, toy.skeleton.n_joints, 4)
        # Joints that the model does not predict keep the last observed rotation.
        other = [j for j in range(toy.skeleton.n_joints) if j not in model.angle_joints]
        torch.testing.assert_close(
            out.rotations[:, :, other], q[:, 9:10, other].expand(-1, 25, -1, -1)
        )


def test_simlpe_equals_the_papers_batch_major_form(toy):
    torch.manual_seed(2)
    model = build_model("simlpe", toy, options={"n_blocks": 3})
    with torch.no_grad():
        for prm in model.parameters():
            prm.add_(0.1 * torch.randn_like(prm))
    q, p = batch_tensors(toy, toy.windows(), slice(0, 4))
    out = model(q[:, :10], p[:, :10]).positions
    pj = model.position_joints
    x = p[:, :10, pj].reshape(4, 10, -1)
    x = torch.cat([x, x[:, -1:].expand(-1, 25, -1)], dim=1)  # (B, L, D)
    h = model.fc_in(model.dct @ x)
    for fc, norm in zip(model.temporal, model.norms, strict=True):
        h = h + norm(fc(h.transpose(1, 2)).transpose(1, 2))
    y = model.dct.T @ model.fc_out(h) + x[:, -1:]
    torch.testing.assert_close(out[:, :, pj], y[:, 10:].reshape(4, 25, len(pj), 3))


def test_ltd_with_a_silent_last_layer_holds_the_last_pose(toy):
    # The residual in DCT space returns the padded input exactly: zero velocity.
    model = build_model("ltd", toy, options=SMALL_LTD).eval()
    with torch.no_grad():
        model.last.weight.zero_()
        model.last.bias.zero_()
    q, p = batch_tensors(toy, toy.windows(), slice(0, 3))
    out = model(q[:, :10], p[:, :10]).positions
    torch.testing.assert_close(out, p[:, 9:10].expand(-1, 25, -1, -1), atol=1e-5, rtol=0)


def test_ltd_adjacency_mixes_nodes_and_dropout_only_in_training(toy):
    torch.manual_seed(0)
    model = build_model("ltd", toy, options=SMALL_LTD)
    q, p = batch_tensors(toy, toy.windows(stride=20), slice(None))
    pj = model.position_joints
    model.eval()
    base = model(q[:, :10], p[:, :10]).positions
    moved = p.clone()
    moved[:, :10, pj[0], 0] += 0.05  # one coordinate of one joint
    out = model(q[:, :10], moved[:, :10]).positions
    # The learned (dense) adjacency spreads the change to every other joint.
    assert (out - base)[:, :, pj[1:]].abs().amax(dim=(0, 1, 3)).min() > 0
    model.train()
    a, b = model(q[:, :10], p[:, :10]).positions, model(q[:, :10], p[:, :10]).positions
    assert not torch.equal(a, b)
    with pytest.raises(InputError, match="dropout"):
        build_model("ltd", toy, options={**SMALL_LTD, "dropout": 1.0})


def test_lie_transformer_dct_head_gives_low_pass_offsets(toy):
    torch.manual_seed(1)
    model = build_model("lie-transformer", toy, options={**SMALL, "n_dct": 6})
    for prm in (model.head.weight, model.head.bias, model.skip.weight):
        torch.nn.init.normal_(prm, std=0.05)
    q, p = batch_tensors(toy, toy.windows(), slice(0, 2))
    out = model(q[:, :10], p[:, :10])
    aj = model.angle_joints
    from vhuman.prediction.kinematics import quat_conjugate_t, quat_multiply_t
    from vhuman.prediction.models import dct_matrix

    r = quat_to_rotvec_t(quat_multiply_t(out.rotations[:, :, aj], quat_conjugate_t(q[:, 9:10, aj])))
    assert r.abs().max() > 1e-3  # the head is not zero any more
    # The offsets lie in the span of the first 6 DCT-II basis functions over the 25 frames.
    coef = torch.einsum("km,bmac->bkac", dct_matrix(25), r)
    assert coef[:, 6:].abs().max() < 1e-4 * coef[:, :6].abs().max()
    # The per-token head (n_dct = 0) is still available.
    legacy = build_model("lie-transformer", toy, options={**SMALL, "n_dct": 0})
    assert legacy(q[:, :10], p[:, :10]).positions.shape == (2, 25, toy.skeleton.n_joints, 3)
    with pytest.raises(InputError, match="n_dct"):
        build_model("lie-transformer", toy, options={**SMALL, "n_dct": 26})


@pytest.mark.parametrize(
    ("kind", "options"),
    [
        ("lie-transformer", {**SMALL, "jacobian_features": False}),
        ("lie-transformer", {**SMALL, "jacobian_features": True}),
        ("ltd", {**SMALL_LTD, "dropout": 0.0}),
    ],
)
def test_model_overfits_tiny_batch(toy, kind, options):
    torch.manual_seed(0)
    model = build_model(kind, toy, options=options)
    q, p = batch_tensors(toy, toy.windows(split="train", stride=8), slice(0, 4))
    zero = build_model("zero_velocity", toy)
    base = zero.loss(zero(q[:, :10], p[:, :10]), q[:, 10:], p[:, 10:]).item()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for _ in range(150):
        loss = model.loss(model(q[:, :10], p[:, :10]), q[:, 10:], p[:, 10:])
        opt.zero_grad()
        loss.backward()
        opt.step()
    pred = model(q[:, :10], p[:, :10])
    err = (pred.positions - p[:, 10:])[..., model.position_joints, :].norm(dim=-1).mean().item()
    assert err < 0.4 * base


def test_metrics_hand_made():
    true = np.zeros((2, 3, 4, 3))
    pred = true.copy()
    pred[..., 0, 0] = 0.004  # one of four joints 4 mm off
    np.testing.assert_allclose(mpjpe(pred, true), [1.0, 1.0, 1.0])
    np.testing.assert_allclose(mpjpe(pred, true, [0]), [4.0, 4.0, 4.0])
    q = np.zeros((1, 2, 2, 4))
    q[..., 0] = 1.0
    qp = q.copy()
    qp[0, 1, 0] = rotvec_to_quat([0.0, 0.0, 0.3])  # yaw 0.3 rad on joint 0, frame 1
    np.testing.assert_allclose(euler_error(qp, q), [0.0, 0.3], atol=1e-12)
    # A foot sliding 1 cm per frame at 10 fps on the floor: 100 mm/s; lifted: no contact.
    pos = np.zeros((1, 5, 1, 3))
    pos[0, :, 0, 0] = 0.01 * np.arange(5)
    ident = np.tile([1.0, 0, 0, 0], (1, 5, 1))
    skate = foot_skating(pos, np.zeros((1, 5, 3)), ident, [0], 10.0, floor=np.zeros(1))
    assert skate == pytest.approx(100.0)
    lifted = foot_skating(pos, np.ones((1, 5, 3)), ident, [0], 10.0, floor=np.zeros(1))
    assert np.isnan(lifted)
    parents, offsets = [-1, 0], [[0, 0, 0], [0.1, 0, 0]]
    ok = np.array([[[0, 0, 0], [0.1, 0, 0]], [[0, 0, 0], [0, 0.1, 0]]])
    assert bone_length_drift(ok, parents, offsets) == pytest.approx(0.0)
    assert bone_length_drift(ok * 1.02, parents, offsets) == pytest.approx(2.0)


def test_evaluate_baselines(toy):
    models = {k: build_model(k, toy) for k in ("zero_velocity", "constant_velocity")}
    result = evaluate(models, toy, timing_runs=2)
    d = result.to_dict()
    assert d["horizons_ms"] == [80, 160, 320, 400, 560, 1000]
    # The toy data is at 25 fps, where the protocol's labels are the true times.
    assert d["horizons_true_ms"] == [80.0, 160.0, 320.0, 400.0, 560.0, 1000.0]
    assert "true 25 fps" in d["protocol"]
    assert d["windows"] == len(toy.windows(split="validation", stride=5))
    zv = d["models"]["zero_velocity"]
    assert len(zv["mpjpe_mm"]) == len(HORIZON_FRAMES)
    assert zv["mpjpe_mm"][0] > 0
    assert zv["mpjpe_mm"][-1] > zv["mpjpe_mm"][0]
    # Smooth sine motion: constant velocity is better than zero velocity at 80 ms.
    assert d["models"]["constant_velocity"]["mpjpe_mm"][0] < zv["mpjpe_mm"][0]
    assert zv["bone_drift_mm"] < 1e-3


def _config(**kw):
    return TrainConfig(
        kind="lie-transformer", epochs=2, batch_size=8, seed=3, stride=4, options=SMALL, **kw
    )


def _resume_equals_uninterrupted(toy, tmp_path, config):
    """Train ``config`` whole and in two parts; assert equal; return the model and the file."""
    full, _, h_full = train(toy, config, output=tmp_path / "full.pt")
    part = tmp_path / "part.pt"
    train(toy, config, output=part, stop_after=1)
    resumed, _, h_res = train(toy, config, output=part, resume=True)
    assert h_res == h_full
    for (k, a), (_, b) in zip(full.state_dict().items(), resumed.state_dict().items(), strict=True):
        torch.testing.assert_close(a, b, rtol=0, atol=0, msg=k)
    return full, part


def test_checkpoint_resume_equals_uninterrupted(toy, tmp_path):
    full, part = _resume_equals_uninterrupted(toy, tmp_path, _config())
    loaded, info = load_model(part)
    assert info.train["epochs_done"] == 2
    torch.testing.assert_close(loaded.head.weight, full.head.weight)
    with pytest.raises(InputError, match=r"lr = None; this run has lr = 0\.5"):
        train(toy, _config(lr=0.5), output=part, resume=True)


def test_model_file_loads_without_code(tmp_path):
    bad = tmp_path / "evil.pt"
    torch.save({"format": "vhuman.prediction/1", "x": Motion}, bad)
    with pytest.raises(FileFormatError, match="without code execution"):
        load_model(bad)
    (tmp_path / "junk.pt").write_bytes(b"not a model")
    with pytest.raises(FileFormatError):
        load_model(tmp_path / "junk.pt")
    with pytest.raises(InputError, match="cannot read"):
        load_model(tmp_path / "missing.pt")


def test_predict_motion_and_bad_input(toy, tmp_path):
    model = build_model("lie-transformer", toy, options=SMALL)
    from vhuman.prediction import ModelInfo

    info = ModelInfo(toy.skeleton.names, 25.0)
    sk = cmu_skeleton()
    q = np.array(toy.local_rotations[:40])
    motion = Motion(sk, 25.0, toy.root_positions[:40], q)
    future = predict_motion(model, info, motion, 30)
    assert future.n_frames == 30
    assert future.fps == 25.0
    # Untrained head is zero: the body holds the last pose, the root keeps moving at 0.5 m/s.
    np.testing.assert_allclose(
        future.local_rotations[:, 1:], np.broadcast_to(q[-1, 1:], (30, 37, 4)), atol=1e-6
    )
    np.testing.assert_allclose(future.root_positions[0, 0] - motion.root_positions[-1, 0], 0.02)
    with pytest.raises(InputError, match="observes 10"):
        predict_motion(model, info, motion[:5], 10)
    other = Motion.rest(standard_humanoid(), 20, 25.0)
    with pytest.raises(InputError, match="skeleton"):
        predict_motion(model, info, other, 10)
    with pytest.raises(InputError, match="frames"):
        predict_motion(model, info, motion, 0)


@pytest.mark.shared
def test_loader_on_real_cmu_files(shared_data, tmp_path):
    seqs = load_cmu_sequences(shared_data)
    assert seqs.n_trials == 72
    assert seqs.sample_fps == pytest.approx(60.0)
    held = [t for t, v in zip(seqs.trials, seqs.validation, strict=True) if v]
    assert "walking/walking_5" in held
    assert "basketball/basketball_5" in held
    assert len(held) == len({h.rsplit("/", 1)[0] for h in held})  # one trial per action
    js = seqs.joint_sets()
    left_out = {0, 1, 2, 7, 8, 13, 16, 20, 24, 27, 29, 33, 36}  # the literature's 13
    assert set(js.position) == set(range(38)) - left_out
    assert len(js.angle) == 26
    # Every second frame of the file, positions by our FK with the root removed.
    from vhuman.io import read_cmu

    m = read_cmu(shared_data / "train" / "walking" / "walking_1.txt")
    k = seqs.trials.index("walking/walking_1")
    a = seqs.trial_starts[k]
    np.testing.assert_allclose(seqs.local_rotations[a + 3], m.local_rotations[6], atol=1e-6)
    heights = seqs.positions[a : seqs.trial_starts[k + 1], :, 2]
    assert 1.4 < np.ptp(heights, axis=1).mean() < 2.0  # about a body height, root-relative
    again = load_cmu_sequences(shared_data)  # from the cache
    np.testing.assert_allclose(again.positions, seqs.positions, atol=1e-6)
    assert any((tmp_path / "cache" / "prediction").iterdir())


def test_train_config_observed_length(toy, tmp_path):
    with pytest.raises(InputError, match="n_observed"):
        TrainConfig(n_observed=0)
    config = TrainConfig(
        kind="lie-transformer", epochs=1, batch_size=8, stride=8, n_observed=5, options=SMALL
    )
    model, _, history = train(toy, config, output=tmp_path / "m5.pt")
    assert model.n_observed == 5
    assert len(history) == 1
    assert load_model(tmp_path / "m5.pt")[0].n_observed == 5


def test_train_steps_budget(toy, tmp_path):
    config = TrainConfig(
        kind="lie-transformer", epochs=1, steps=5, batch_size=8, stride=4, warmup=10, options=SMALL
    )
    n_batches = -(-len(toy.windows(split="train", stride=4)) // 8)
    assert 5 % n_batches  # the last pass is cut short
    calls, every = [], []
    _, info, history = train(
        toy, config, output=tmp_path / "s.pt", progress=lambda *a: every.append(a), progress_every=1
    )
    assert [c[0] for c in every] == [1, 2, 3, 4, 5]
    assert {c[1] for c in every} == {5}
    # by default the loss is read back every 50 steps and at the end of each pass only
    train(toy, config, output=tmp_path / "s3.pt", progress=lambda *a: calls.append(a))
    assert [c[0] for c in calls] == sorted({*range(n_batches, 5, n_batches), 5})
    assert [c[2] for c in calls] == [every[s - 1][2] for s, _, _ in calls]
    assert len(history) == -(-5 // n_batches)
    assert info.train["steps"] == 5
    last_lr = torch.load(tmp_path / "s.pt.ckpt", weights_only=True)["optimizer"]["param_groups"]
    assert last_lr[0]["lr"] == pytest.approx(lr_at(4, 5, config.learning_rate, 10))  # ramping
    with pytest.raises(InputError, match="steps"):
        TrainConfig(steps=0)


def test_mirror_joints_pairs_by_name():
    sk = cmu_skeleton()
    swap = mirror_joints(sk)
    assert [swap[s] for s in swap] == list(range(sk.n_joints))
    assert swap[sk.index("lhip")] == sk.index("rhip")
    assert swap[sk.index("rthumb_tip")] == sk.index("lthumb_tip")
    assert swap[sk.index("head")] == sk.index("head")
    hum = standard_humanoid()
    assert mirror_joints(hum)[hum.index("l_knee")] == hum.index("r_knee")
    lone = Skeleton(("hips", "spine", "head"), [-1, 0, 1], [[0, 0, 1], [0, 0, 0.3], [0, 0, 0.3]])
    with pytest.raises(InputError, match="cannot mirror"):
        mirror_joints(lone)


def test_mirror_batch_reflects_poses_in_the_sagittal_plane():
    sk = cmu_skeleton()
    swap = list(mirror_joints(sk))
    # A left/right-symmetric version of the CMU skeleton: there the mirror image of the
    # positions is y → −y with left and right swapped.
    off = np.array(sk.offsets)
    for j, s in enumerate(swap):
        if s == j:
            off[j, 1] = 0.0
        elif sk.names[j].startswith("l"):
            off[s] = off[j] * [1.0, -1.0, 1.0]
    fk = TorchFK(sk.parents, off)
    g = torch.Generator().manual_seed(3)
    q = rotvec_to_quat_t(0.6 * torch.randn(5, 7, sk.n_joints, 3, generator=g))
    q[..., 0, :] = q.new_tensor([1.0, 0.0, 0.0, 0.0])
    qm = mirror_rotations(q, tuple(swap))
    torch.testing.assert_close(fk(qm), fk(q)[..., swap, :] * q.new_tensor([1.0, -1.0, 1.0]))
    q2 = mirror_rotations(qm, torch.tensor(swap))
    torch.testing.assert_close(q2, q, rtol=0, atol=0)


def test_mirror_and_reverse_flags_are_seeded_and_leave_the_order(toy):
    plain = TrainConfig(kind="lie-transformer", seed=4)
    both = TrainConfig(kind="lie-transformer", seed=4, mirror=True, reverse=True)
    order, flip, back, _ = epoch_order(500, plain, 2)
    order_b, flip_b, back_b, _ = epoch_order(500, both, 2)
    np.testing.assert_array_equal(order, order_b)
    assert not flip.any()
    assert not back.any()
    assert 200 < flip_b.sum() < 300
    assert 200 < back_b.sum() < 300
    assert (flip_b != back_b).any()  # independent draws
    np.testing.assert_array_equal(flip_b, epoch_order(500, both, 2)[1])
    np.testing.assert_array_equal(back_b, epoch_order(500, both, 2)[2])
    assert (flip_b != epoch_order(500, both, 3)[1]).any()
    mirror_only = TrainConfig(kind="lie-transformer", seed=4, mirror=True)
    np.testing.assert_array_equal(flip_b, epoch_order(500, mirror_only, 2)[1])


def test_speed_factors_are_seeded_log_uniform_and_leave_the_order():
    plain = TrainConfig(kind="lie-transformer", seed=4, mirror=True)
    fast = TrainConfig(kind="lie-transformer", seed=4, mirror=True, speed=0.25)
    order, flip, _, factor = epoch_order(2000, plain, 2)
    order_s, flip_s, _, factor_s = epoch_order(2000, fast, 2)
    np.testing.assert_array_equal(order, order_s)
    np.testing.assert_array_equal(flip, flip_s)
    np.testing.assert_array_equal(factor, 1.0)
    assert 1 / 1.25 <= factor_s.min() < 0.81
    assert 1.24 < factor_s.max() <= 1.25
    assert abs(np.mean(np.log(factor_s))) < 0.01  # as often slower as faster
    np.testing.assert_array_equal(factor_s, epoch_order(2000, fast, 2)[3])
    assert (factor_s != epoch_order(2000, fast, 3)[3]).any()
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(InputError, match="speed"):
            TrainConfig(speed=bad)


def test_resampled_windows_take_poses_every_factor_frames(toy):
    w = toy.windows(split="train")
    fk = TorchFK(toy.skeleton.parents, toy.skeleton.offsets)
    sampler = WindowSampler(toy, w, fk)

    def at(index, factor):
        index = torch.tensor(index)
        return sampler.rotations_at(index, torch.full(index.shape, factor, dtype=torch.float64))

    index = np.array([0, 5, len(w) - 1])
    q1 = at(index, 1.0)
    q0, _ = batch_tensors(toy, w, index)
    torch.testing.assert_close(q1, q0)
    # half speed: every second pose is a recorded frame, the others lie between two
    q_half = at(index, 0.5)
    torch.testing.assert_close(q_half[:, ::2], q0[:, :18])
    between = (q_half[:, 1::2] * q0[:, :17]).sum(-1).abs()
    assert (between >= (q0[:, 1:18] * q0[:, :17]).sum(-1).abs() - 1e-6).all()
    # faster: poses every 1.5 frames, reaching past the window but never past the trial
    index = np.array([0, 20, len(w) - 1])
    q_fast = at(index, 1.5)
    recorded = torch.from_numpy(toy.local_rotations[:60].astype(np.float32))
    recorded[..., 0, :] = recorded.new_tensor([1.0, 0.0, 0.0, 0.0])
    torch.testing.assert_close(q_fast[0, ::2], recorded[0:52:3])
    torch.testing.assert_close(q_fast[1, -1], recorded[59])  # slowed to end on the last frame
    torch.testing.assert_close(q_fast[2], batch_tensors(toy, w, index[2:])[0][0])


def test_sampler_batch_mirrors_reverses_and_recomputes_positions(toy):
    w = toy.windows(split="train")
    fk = TorchFK(toy.skeleton.parents, toy.skeleton.offsets)
    swap = mirror_joints(toy.skeleton)
    sampler = WindowSampler(toy, w, fk, swap)
    index = torch.tensor([0, 3, 7, 11])
    factors = torch.tensor([1.0, 1.1, 0.9, 1.0], dtype=torch.float64)
    flip = torch.tensor([False, True, False, True])
    back = torch.tensor([False, False, True, True])
    q, p = sampler.batch(index, factors, flip, back)
    plain = sampler.rotations_at(index, factors)
    torch.testing.assert_close(q[0], plain[0], rtol=0, atol=0)
    torch.testing.assert_close(q[1], mirror_rotations(plain[1], swap), rtol=0, atol=0)
    torch.testing.assert_close(q[2], plain[2].flip(0), rtol=0, atol=0)
    torch.testing.assert_close(q[3], mirror_rotations(plain[3], swap).flip(0), rtol=0, atol=0)
    torch.testing.assert_close(p, fk(q), rtol=0, atol=0)
    # recorded windows at speed 1 give the stored positions (float64 FK) within float32 rounding
    _, p0 = batch_tensors(toy, w, index.numpy())
    none = torch.zeros(4, dtype=torch.bool)
    _, p1 = sampler.batch(index, torch.ones(4, dtype=torch.float64), none, none)
    torch.testing.assert_close(p1, p0, atol=1e-6, rtol=0)


def _regularised(**kw):
    return _config(mirror=True, reverse=True, speed=0.2, ema=0.9, weight_decay=0.05, warmup=3, **kw)


def test_lr_schedule_ramps_up_then_follows_the_cosine():
    total, lr, warmup = 100, 2e-3, 10
    plain = np.array([lr_at(s, total, lr) for s in range(total + 1)])
    ramped = np.array([lr_at(s, total, lr, warmup) for s in range(total + 1)])
    assert plain[0] == pytest.approx(lr)
    assert plain[-1] == pytest.approx(lr / 100)
    assert np.all(np.diff(plain) < 0)
    np.testing.assert_allclose(ramped[:warmup], plain[:warmup] * np.arange(1, warmup + 1) / warmup)
    assert np.all(np.diff(ramped[:warmup]) > 0)
    np.testing.assert_array_equal(ramped[warmup - 1 :], plain[warmup - 1 :])
    with pytest.raises(InputError, match="warmup"):
        TrainConfig(warmup=-1)


def test_regularised_training_resumes_exactly_and_saves_the_average(toy, tmp_path):
    full, part = _resume_equals_uninterrupted(toy, tmp_path, _regularised())
    ckpt = torch.load(tmp_path / "part.pt.ckpt", weights_only=True)
    saved, info = load_model(part)
    torch.testing.assert_close(saved.head.weight, ckpt["ema"]["head.weight"], rtol=0, atol=0)
    assert not torch.equal(ckpt["ema"]["head.weight"], ckpt["state"]["head.weight"])
    assert info.train["mirror"]
    assert info.train["reverse"]
    assert info.train["ema"] == 0.9
    assert ckpt["optimizer"]["param_groups"][0]["weight_decay"] == 0.05
    assert ckpt["optimizer"]["param_groups"][1]["weight_decay"] == 0.0
    assert info.train["warmup"] == 3
    plain, _, _ = train(toy, _config(), output=tmp_path / "plain.pt")
    assert not torch.equal(plain.head.weight, full.head.weight)


def test_regularisation_options_checked(toy):
    for bad in ({"ema": 1.0}, {"ema": -0.1}, {"weight_decay": -1.0}):
        with pytest.raises(InputError):
            TrainConfig(**bad)
    with pytest.raises(InputError, match="dropout"):
        build_model("lie-transformer", toy, options={**SMALL, "dropout": 1.0})


def test_lie_transformer_dropout_only_in_training(toy):
    torch.manual_seed(0)
    model = build_model("lie-transformer", toy, options={**SMALL, "dropout": 0.5})
    assert model.options()["dropout"] == 0.5
    for p in model.head.parameters():
        torch.nn.init.normal_(p, std=0.1)
    q, p = batch_tensors(toy, toy.windows(stride=20), slice(None))
    n = model.n_observed
    model.train()
    a, b = model(q[:, :n], p[:, :n]).positions, model(q[:, :n], p[:, :n]).positions
    assert not torch.equal(a, b)
    model.eval()
    a, b = model(q[:, :n], p[:, :n]).positions, model(q[:, :n], p[:, :n]).positions
    torch.testing.assert_close(a, b, rtol=0, atol=0)


def _values_and_gradients(f, inputs, g):
    """``f(*inputs)`` and the gradients of ``(f(*inputs) * weights).sum()`` for random weights."""
    inputs = [x.detach().requires_grad_() for x in inputs]
    y = f(*inputs)
    weights = torch.randn(y.shape, generator=g, dtype=y.dtype)
    return [y.detach(), *torch.autograd.grad(y, inputs, weights)]


def test_spatial_attention_and_its_gradients_equal_torch_sdpa():
    from torch.nn.functional import scaled_dot_product_attention

    from vhuman.prediction.attention import spatial_attention

    def heads(x):  # (G, n, width) → (G, heads, n, d)
        return x.view(x.shape[0], x.shape[1], 4, 8).transpose(1, 2)

    def reference(q, k, v):
        y = scaled_dot_product_attention(heads(q), heads(k), heads(v))
        return y.transpose(1, 2).reshape(q.shape)

    g = torch.Generator().manual_seed(5)
    for n, m in ((25, 26), (26, 25)):
        q, k, v = (torch.randn(6, x, 32, generator=g, dtype=torch.float64) for x in (n, m, m))
        seed_state = g.get_state()
        got = _values_and_gradients(
            lambda q, k, v: spatial_attention(q, torch.cat([k, v], -1), 4), (q, k, v), g
        )
        g.set_state(seed_state)
        expected = _values_and_gradients(reference, (q, k, v), g)
        for a, b in zip(got, expected, strict=True):
            torch.testing.assert_close(a, b, atol=1e-12, rtol=0)


def test_temporal_attention_and_its_gradients_equal_torch_sdpa():
    from torch.nn.functional import scaled_dot_product_attention

    from vhuman.prediction.attention import temporal_attention

    def reference(q, k, v, rel):  # (heads, d, L, S) → (S, heads, L, d) and back
        bias = torch.einsum("hdis,hdij->shij", q, rel)
        q, k, v = (x.permute(3, 0, 2, 1) for x in (q, k, v))
        return scaled_dot_product_attention(q, k, v, attn_mask=bias).permute(1, 3, 2, 0)

    g = torch.Generator().manual_seed(6)
    q, k, v = (torch.randn(4, 8, 7, 30, generator=g, dtype=torch.float64) for _ in range(3))
    rel = torch.randn(4, 8, 7, 7, generator=g, dtype=torch.float64)
    seed_state = g.get_state()
    got = _values_and_gradients(temporal_attention, (q, k, v, rel), g)
    g.set_state(seed_state)
    expected = _values_and_gradients(reference, (q, k, v, rel), g)
    for a, b in zip(got, expected, strict=True):
        torch.testing.assert_close(a, b, atol=1e-12, rtol=0)


def test_temporal_attention_relative_keys_equal_the_bias_of_the_definition():
    from torch.nn.functional import scaled_dot_product_attention

    from vhuman.prediction.models import _TemporalAttention

    torch.manual_seed(0)
    att = _TemporalAttention(32, 4, 7, 4).double()
    x = torch.randn(2, 7, 5, 32, dtype=torch.float64)  # (windows, time, joints, width)
    seqs = x.transpose(1, 2).reshape(10, 7, 32)  # each joint of each window alone
    q, k, v = att.qkv(seqs).view(10, 7, 3, 4, 8).permute(2, 0, 3, 1, 4)
    # q_i·k_j/√d + q_i·W φ(i − j), term by term
    bias = torch.einsum("bhid,hdk,ijk->bhij", q, att.rpe, att.phi)
    y = scaled_dot_product_attention(q, k, v, attn_mask=bias).transpose(1, 2)
    y = att.out(y.reshape(10, 7, 32))
    expected = y.reshape(2, 5, 7, 32).transpose(1, 2)
    got = att(x.transpose(0, 1)).transpose(0, 1)  # the module takes the tokens time first
    torch.testing.assert_close(got, expected, atol=1e-12, rtol=0)
    big = att.float()(torch.full((7, 1, 1, 32), 1e3))  # exp overflows without the max taken off
    assert torch.isfinite(big).all()


def test_jacobian_features_by_cholesky_equal_the_damped_least_squares(toy):
    model = build_model("lie-transformer", toy, options=SMALL).double()
    g = torch.Generator().manual_seed(2)
    q = rotvec_to_quat_t(0.5 * torch.randn(4, toy.skeleton.n_joints, 3, generator=g).double())
    q[:, 0] = q.new_tensor([1.0, 0.0, 0.0, 0.0])
    dp = 0.05 * torch.randn(4, 35, len(model.position_joints), 3, generator=g).double()
    jac = model.fk.jacobian(q, model.position_joints, model.angle_joints)
    eye = torch.eye(jac.shape[-1], dtype=torch.float64)
    normal = jac.transpose(-1, -2) @ jac + model.JACOBIAN_DAMPING * eye
    expected = torch.linalg.solve(normal, jac.transpose(-1, -2) @ dp.flatten(2).transpose(1, 2))
    got = model._position_rotvecs(q, dp)
    torch.testing.assert_close(got, expected.transpose(1, 2).reshape_as(got), atol=1e-9, rtol=1e-9)


def test_training_is_reproducible_bit_for_bit(toy, tmp_path):
    config = _regularised(steps=6)
    a, _, history_a = train(toy, config, output=tmp_path / "a.pt")
    b, _, history_b = train(toy, config, output=tmp_path / "b.pt")
    assert history_a == history_b
    for (name, x), y in zip(a.state_dict().items(), b.state_dict().values(), strict=True):
        torch.testing.assert_close(x, y, rtol=0, atol=0, msg=name)
