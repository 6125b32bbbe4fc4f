"""Tests of the swivel predictors: fit quality against the mean, save/load, evaluation."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vhuman.errors import FileFormatError, InputError
from vhuman.geometry import rotvec_to_quat
from vhuman.reaching import ArmModel, solve_arm
from vhuman.reaching.dataset import (
    CMU_HAND_TO_FOREARM,
    SwivelDataset,
    palm_angle,
    split_by_trial,
    swivel_frame_features,
    synthetic_swivel_dataset,
    wrist_features,
)
from vhuman.reaching.predictors import (
    ComfortPredictor,
    EnsemblePredictor,
    GradientBoostingPredictor,
    LeastSquaresPredictor,
    MeanPredictor,
    MLPPredictor,
    evaluate,
    load_predictor,
    wrap_angle,
)


@pytest.fixture(scope="module")
def split() -> tuple[SwivelDataset, SwivelDataset]:
    data = synthetic_swivel_dataset(ArmModel(0.33, 0.22, 0.08), 1500, np.random.default_rng(0))
    return split_by_trial(data, test_fraction=0.3, seed=0)


def _small_mlp() -> MLPPredictor:
    return MLPPredictor(epochs=15, batch_size=64, learning_rate=1e-2, seed=0)


def test_mean_predictor_is_the_circular_mean() -> None:
    phi = np.radians([170.0, -170.0, 180.0])
    p = MeanPredictor().fit(np.zeros((3, 8)), phi)
    np.testing.assert_allclose(abs(p.predict(np.zeros((2, 8)))), np.pi, atol=1e-12)


def _small_ensemble() -> EnsemblePredictor:
    return EnsemblePredictor([GradientBoostingPredictor(50), _small_mlp()])


@pytest.mark.parametrize(
    ("make", "ratio"),
    [
        # Linear in the features (Xia et al.'s baseline): the weakest over the arm's whole range.
        (LeastSquaresPredictor, 0.95),
        (_small_mlp, 0.8),
        (lambda: GradientBoostingPredictor(50), 0.8),
        (_small_ensemble, 0.8),
    ],
)
def test_predictors_beat_the_mean(make, ratio, split) -> None:
    train, test = split
    mean = evaluate(MeanPredictor().fit(train.features, train.swivel), test)
    model = evaluate(make().fit(train.features, train.swivel), test)
    assert model["mae_deg"] < ratio * mean["mae_deg"]
    assert model["rmse_deg"] >= model["mae_deg"]
    np.testing.assert_allclose(model["mse_deg2"], model["rmse_deg"] ** 2)
    assert set(model["per_activity"]) == {"synthetic"}


def test_mlp_beats_least_squares(split) -> None:
    train, test = split
    lsq = evaluate(LeastSquaresPredictor().fit(train.features, train.swivel), test)
    mlp = evaluate(_small_mlp().fit(train.features, train.swivel), test)
    assert mlp["mae_deg"] < lsq["mae_deg"]


def test_mlp_is_seeded(split) -> None:
    train, test = split
    a = MLPPredictor(epochs=3, seed=5).fit(train.features, train.swivel)
    b = MLPPredictor(epochs=3, seed=5).fit(train.features, train.swivel)
    np.testing.assert_array_equal(a.predict(test.features), b.predict(test.features))


@pytest.mark.parametrize(
    "make",
    [
        MeanPredictor,
        LeastSquaresPredictor,
        lambda: MLPPredictor(epochs=2),
        lambda: MLPPredictor((16, 8), epochs=2, rotation="matrix"),
        lambda: MLPPredictor((16, 8), epochs=2, rotation="shape", activation="relu"),
        lambda: MLPPredictor((16, 8), epochs=2, rotation="wrist", activation="relu"),
        lambda: GradientBoostingPredictor(20),
        lambda: GradientBoostingPredictor(20, inputs="swivel"),
        lambda: GradientBoostingPredictor(20, inputs="swivel", palm=True),
        lambda: ComfortPredictor(12, steps=5),
        lambda: GradientBoostingPredictor(10, inputs="swivel", comfort="inputs"),
        lambda: GradientBoostingPredictor(10, comfort="prior"),
        lambda: MLPPredictor((16, 8), epochs=2, rotation="swivel", activation="relu"),
        lambda: EnsemblePredictor([GradientBoostingPredictor(10), MLPPredictor(8, epochs=2)]),
        lambda: EnsemblePredictor(  # members on different inputs, as the shipped ensemble
            [
                GradientBoostingPredictor(10),
                MLPPredictor((16, 8), epochs=2, rotation="wrist", activation="relu"),
                MLPPredictor((16, 8), epochs=2, rotation="shape", activation="relu"),
            ]
        ),
    ],
)
def test_save_load_round_trip(make, split, tmp_path: Path) -> None:
    train, test = split
    p = make().fit(train.features, train.swivel)
    path = tmp_path / "model.npz"
    p.save(path)
    q = load_predictor(path)
    assert type(q) is type(p)
    np.testing.assert_array_equal(q.predict(test.features), p.predict(test.features))
    assert type(type(p).load(path)) is type(p)
    assert list(tmp_path.iterdir()) == [path]  # no temporary file left behind


@pytest.mark.parametrize(
    ("inputs", "make_inputs"), [("wrist", wrist_features), ("swivel", swivel_frame_features)]
)
def test_gradient_boosting_trees_predict_as_scikit_learn(inputs, make_inputs, split) -> None:
    ensemble = pytest.importorskip("sklearn.ensemble")
    train, test = split
    p = GradientBoostingPredictor(40, learning_rate=0.2, inputs=inputs)
    units = p.fit(train.features, train.swivel)._predict_unit(test.features)
    for k, target in enumerate((np.sin(train.swivel), np.cos(train.swivel))):
        reference = ensemble.HistGradientBoostingRegressor(
            max_iter=40, learning_rate=0.2, l2_regularization=1.0, random_state=0
        ).fit(make_inputs(train.features), target)
        np.testing.assert_allclose(
            units[:, k], reference.predict(make_inputs(test.features)), atol=1e-12
        )


def test_palm_prior_carries_a_swivel_at_a_fixed_angle_from_the_palm(split) -> None:
    train, test = split
    offset = 0.4  # [rad]
    swivel = wrap_angle(palm_angle(train.features) + offset)
    expected = wrap_angle(palm_angle(test.features) + offset)
    with_prior = GradientBoostingPredictor(5, palm=True).fit(train.features, swivel)
    np.testing.assert_allclose(
        wrap_angle(with_prior.predict(test.features) - expected), 0.0, atol=1e-9
    )
    without = GradientBoostingPredictor(5).fit(train.features, swivel)
    assert np.abs(wrap_angle(without.predict(test.features) - expected)).mean() > 0.05


def test_ensemble_takes_the_circular_mean_of_its_members() -> None:
    x = np.zeros((4, 8))
    a = MeanPredictor().fit(x[:1], np.radians([170.0]))
    b = MeanPredictor().fit(x[:1], np.radians([-150.0]))
    phi = EnsemblePredictor([a, b]).predict(x)
    np.testing.assert_allclose(np.degrees(phi), -170.0, atol=1e-9)  # not the linear mean 10°
    with pytest.raises(InputError, match="at least one"):
        EnsemblePredictor([])
    with pytest.raises(InputError, match="ensembles"):
        EnsemblePredictor([EnsemblePredictor([a])])
    with pytest.raises(InputError, match="max_iter"):
        GradientBoostingPredictor(0)
    with pytest.raises(InputError, match="inputs must be one of"):
        GradientBoostingPredictor(10, inputs="elbow")


def test_load_rejects_other_kind_and_foreign_files(split, tmp_path: Path) -> None:
    train, _ = split
    path = tmp_path / "mean.npz"
    MeanPredictor().fit(train.features, train.swivel).save(path)
    with pytest.raises(FileFormatError, match="not a 'mlp'"):
        MLPPredictor.load(path)
    other = tmp_path / "other.npz"
    np.savez(other, x=np.zeros(3))
    with pytest.raises(FileFormatError, match="__header__"):
        load_predictor(other)


def test_unfitted_and_bad_inputs() -> None:
    with pytest.raises(InputError, match="not fitted"):
        LeastSquaresPredictor().predict(np.zeros((1, 8)))
    with pytest.raises(InputError, match="features"):
        MeanPredictor().fit(np.zeros((3, 7)), np.zeros(3))
    with pytest.raises(InputError, match="hidden"):
        MLPPredictor(hidden=0)
    with pytest.raises(InputError, match="hidden"):
        MLPPredictor(hidden=())
    with pytest.raises(InputError, match="rotation"):
        MLPPredictor(rotation="euler")
    with pytest.raises(InputError, match="activation"):
        MLPPredictor(activation="sigmoid")


def test_matrix_input_is_continuous_where_the_rotation_vector_jumps() -> None:
    from vhuman.reaching.predictors import _lift_rotation

    # Two rotations by about ±π about the same axis: far apart as rotation vectors,
    # the same rotation as matrices.
    x = np.zeros((2, 8))
    x[0, 3:6] = [0.0, 0.0, np.pi - 1e-9]
    x[1, 3:6] = [0.0, 0.0, -(np.pi - 1e-9)]
    lifted = _lift_rotation(x)
    assert lifted.shape == (2, 14)
    np.testing.assert_allclose(lifted[0], lifted[1], atol=1e-8)


def test_evaluate_wraps_angle_differences() -> None:
    data = SwivelDataset(
        np.zeros((2, 8)), np.radians([179.0, -179.0]), ["g/a_1"] * 2, ["a"] * 2, ["right"] * 2
    )
    p = MeanPredictor().fit(np.zeros((1, 8)), np.radians([180.0]))
    result = evaluate(p, data)
    np.testing.assert_allclose(result["mae_deg"], 1.0, atol=1e-9)
    np.testing.assert_allclose(wrap_angle(np.radians(350.0)), np.radians(-10.0))


def test_comfort_predictor_finds_the_swivel_of_least_discomfort() -> None:
    # Labels: the swivel angle (every 1°) whose posture is nearest, in Σ w (1 − cos(q − r)),
    # to a comfortable posture r. The hand is the CMU proportion of the forearm, as the
    # predictor places the wrist.
    arm = ArmModel(0.33, 0.22, CMU_HAND_TO_FOREARM * 0.22)
    data = synthetic_swivel_dataset(arm, 900, np.random.default_rng(1))
    rest = np.radians([-30.0, -40.0, -30.0, -80.0, 90.0, 0.0, -5.0])
    weight = np.array([1.0, 1.0, 0.5, 0.5, 1.0, 2.0, 2.0])
    grid = np.radians(np.arange(-180.0, 180.0))
    hand = data.features[:, :3]
    q = solve_arm(arm, hand[:, None], rotvec_to_quat(data.features[:, None, 3:6]), grid).q
    swivel = grid[np.argmin((1.0 - np.cos(q - rest)) @ weight, axis=1)]
    train, test = np.arange(600), np.arange(600, 900)
    comfort = ComfortPredictor(seed=0).fit(data.features[train], swivel[train])
    error = np.abs(wrap_angle(comfort.predict(data.features[test]) - swivel[test]))
    mean = MeanPredictor().fit(data.features[train], swivel[train])
    mean_error = np.abs(wrap_angle(mean.predict(data.features[test]) - swivel[test]))
    assert np.degrees(np.median(error)) < 5.0
    assert error.mean() < 0.3 * mean_error.mean()


def test_comfort_options_are_checked() -> None:
    with pytest.raises(InputError, match="samples must be an integer ≥ 8"):
        ComfortPredictor(4)
    with pytest.raises(InputError, match="learning_rate"):
        ComfortPredictor(learning_rate=0.0)
    with pytest.raises(InputError, match="comfort must be one of"):
        GradientBoostingPredictor(10, comfort="elbow")
    with pytest.raises(InputError, match="two priors"):
        GradientBoostingPredictor(10, palm=True, comfort="prior")


def test_gradient_boosting_keeps_outputs_that_stop_at_different_trees() -> None:
    # Above 10,000 samples scikit-learn stops early: sin φ = 0 everywhere stops within a few
    # trees, cos φ = ±1 by the hand's height keeps improving.
    ensemble = pytest.importorskip("sklearn.ensemble")
    data = synthetic_swivel_dataset(ArmModel(0.33, 0.22, 0.08), 10_500, np.random.default_rng(2))
    swivel = np.where(data.features[:, 2] > -0.3, 0.0, np.pi)
    p = GradientBoostingPredictor(60, inputs="rotvec").fit(data.features, swivel)
    units = p._predict_unit(data.features[:500])
    for k, target in enumerate((np.sin(swivel), np.cos(swivel))):
        reference = ensemble.HistGradientBoostingRegressor(
            max_iter=60, l2_regularization=1.0, random_state=0
        ).fit(data.features, target)
        np.testing.assert_allclose(units[:, k], reference.predict(data.features[:500]), atol=1e-12)
    assert len(set(np.sum(p.trees_["roots"] >= 0, axis=1))) == 2
