"""Test-time mirror averaging: the averaged predictor is exactly left/right symmetric."""

from __future__ import annotations

import torch

from vhuman.prediction import build_model
from vhuman.prediction.data import mirror_joints
from vhuman.prediction.mirror import MirrorAveraged, mirror_positions
from vhuman.prediction.sampling import batch_tensors, mirror_rotations

SMALL = {"dim": 16, "heads": 2, "ff": 32}


def _random_weights(model: torch.nn.Module) -> None:
    torch.manual_seed(0)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0.0, 0.1)


def test_mirror_averaged_forecast_is_mirror_symmetric(toy):
    model = build_model("lie-transformer", toy, options=SMALL).double()
    _random_weights(model)
    averaged = MirrorAveraged(model, mirror_joints(toy.skeleton)).double().eval()
    index = averaged.swap
    q, _ = batch_tensors(toy, toy.windows(stride=7), slice(0, 4))
    q = q[:, : model.n_observed].double()
    q_m = mirror_rotations(q, index)
    with torch.no_grad():
        plain, alone = model.eval()(q, model.fk(q)), model(q_m, model.fk(q_m))
        pred, mirrored = averaged(q, model.fk(q)), averaged(q_m, model.fk(q_m))
    # the model alone is not symmetric, so the assertions below can fail
    dot = (mirror_rotations(alone.rotations, index) * plain.rotations).sum(-1).abs()
    assert dot.min() < 1.0 - 1e-6
    dot = (mirror_rotations(pred.rotations, index) * mirrored.rotations).sum(-1).abs()
    torch.testing.assert_close(dot, torch.ones_like(dot))
    torch.testing.assert_close(pred.positions, model.fk(pred.rotations))


def test_mirror_averaged_zero_velocity_is_zero_velocity(toy):
    model = build_model("zero_velocity", toy)
    averaged = MirrorAveraged(model, mirror_joints(toy.skeleton))
    q, p = batch_tensors(toy, toy.windows(stride=11), slice(0, 3))
    q, p = q[:, : model.n_observed], p[:, : model.n_observed]
    with torch.no_grad():
        want, got = model(q, p), averaged(q, p)
    torch.testing.assert_close(got.rotations, want.rotations)
    torch.testing.assert_close(got.positions, want.positions, atol=1e-6, rtol=0)


def test_mirror_positions_reflect_and_swap_sides():
    p = torch.arange(12.0).reshape(2, 2, 3)
    out = mirror_positions(p, torch.tensor([1, 0]))
    torch.testing.assert_close(out[:, 0], p[:, 1] * torch.tensor([1.0, -1.0, 1.0]))
    torch.testing.assert_close(mirror_positions(out, torch.tensor([1, 0])), p)


def test_mirror_averaged_positions_only_model_is_mirror_symmetric(toy):
    model = build_model("simlpe", toy).double()
    _random_weights(model)
    averaged = MirrorAveraged(model, mirror_joints(toy.skeleton)).double().eval()
    index = averaged.swap
    q, p = batch_tensors(toy, toy.windows(stride=7), slice(0, 4))
    q, p = q[:, : model.n_observed].double(), p[:, : model.n_observed].double()
    q_m, p_m = mirror_rotations(q, index), mirror_positions(p, index)
    with torch.no_grad():
        plain, alone = model.eval()(q, p), model(q_m, p_m)
        pred, mirrored = averaged(q, p), averaged(q_m, p_m)
    assert pred.rotations is None
    # the model alone is not symmetric, so the assertion below can fail
    assert not torch.allclose(mirror_positions(alone.positions, index), plain.positions)
    torch.testing.assert_close(mirror_positions(pred.positions, index), mirrored.positions)
