"""Swivel-angle prediction on CMU trials: features and models chosen by grouped cross-validation.

Samples: `vhuman.reaching.cmu_swivel_dataset` (both arms, every 4th frame, arms
bent ≥ 10°, hand and elbow in the thorax frame at the shoulder). The
highest-numbered trial of each action is held out (the split of `vhuman swivel
evaluate`) and used for nothing but the held-out column; every choice is made
on the other trials by

- **grouped cross-validation**: scikit-learn's ``GroupKFold`` (5 folds) with
  the trial as the group, so no trial has frames on both sides;
- **leave-one-action-out**: each action's training trials predicted by a model
  fit on the other actions' (``walking_extra`` counts as ``walking``).

Candidates are feature sets × models, every model fit on (sin φ, cos φ) with
φ = atan2 of the prediction and errors wrapped to (−180°, 180°]:

features
    ``xia``: Xia et al.'s (2021) ``m = [x, y, z, α, β, γ, d1, d2]``;
    ``matrix``: the rotation vector replaced by the hand's rotation matrix;
    ``shape``: ``matrix`` plus the hand position divided by the arm length
    ``d1 + d2``, its azimuth, elevation and scaled distance from the shoulder,
    and a forearm cue: the elbow placed ``d2`` along the hand's axis behind a
    wrist ``0.217 d2`` behind the hand end (the CMU hand's length over its
    forearm's), its swivel angle (sin, cos) and the heights of that elbow and
    wrist over the arm length (straight-wrist elbow-height cues);
    ``wrist``: `vhuman.reaching.wrist_features`, scale-free: the wrist centre
    over the arm length, its distance, azimuth and elevation, the hand's
    rotation matrix and the forearm cue, without the hand end or the lengths;
    ``swivel``: `vhuman.reaching.swivel_frame_features`, ``wrist`` plus each
    of the hand's axes measured about the shoulder→wrist axis like φ (sine,
    cosine) and its cosine with the shoulder→wrist direction.
models
    ``lsq`` (linear least squares), ``knn`` (10 nearest neighbours, distance
    weighted, standardised inputs), ``gbm`` (``HistGradientBoostingRegressor``,
    one per output; Friedman 2001), ``gbm-palm`` (the same fit to φ minus
    `vhuman.reaching.palm_angle`, the palm's angle about the shoulder→wrist
    axis, which each prediction gets back), ``comfort``
    (`vhuman.reaching.ComfortPredictor`: the swivel angle of least joint
    discomfort, 22 parameters, the same whatever the feature set),
    ``gbm-comfort`` and ``gbm-comfort-prior`` (``gbm`` as a
    `vhuman.reaching.GradientBoostingPredictor` given the comfort model's
    (sin φ, cos φ) as two more inputs, or fit to φ minus its angle; the
    comfort model fit on each fold's training samples first), ``mlp`` and ``mlp-wide``
    (``MLPRegressor`` 64 × 64 and 128 × 128, ReLU, L2 1e-3, early stopping),
    and ``gbm+mlp``: the mean of the ``gbm`` and ``mlp`` unit vectors.
ensembles across feature sets (``mixed``)
    with three or more base models fitted, the mean unit vector of every
    subset of two or more of them is scored by grouped CV from the units
    already predicted (no further fit); the subset with the lowest MAE
    (`best_subset`; its CV figure is the least of many, so slightly
    optimistic) and the mean of all of them are candidates.

Each MAE is given over the samples and as the mean of the 7 actions' MAEs
(``per action``: every action counts alike, however many samples it has).
The candidate with the lowest grouped-CV MAE is refit on all training trials
and scored on the held-out trials, per action (with its grouped-CV and
leave-one-action-out MAE per action), beside the shipped predictors
(`vhuman.reaching.default_predictor`, trained on the same training trials).

Run: ``.venv/bin/python benchmarks/swivel.py [--data CMU_FOLDER]
[--features xia,matrix,shape,wrist,swivel] [--models lsq,knn,gbm,gbm-palm,comfort,gbm-comfort,
gbm-comfort-prior,mlp,mlp-wide,gbm+mlp]`` (every feature set with every model) or
``--pairs FEATURES:MODEL,...`` (only those pairs);
one core; on a 2-core machine at load 2–4 about 9 minutes for ``--pairs swivel:gbm,
swivel:gbm-palm,swivel:mlp-wide,wrist:gbm,wrist:mlp-wide,shape:mlp-wide``, most of it the
MLPs' 13 fits each (5 grouped-CV folds, 7 actions left out, all trials); prints the tables,
then one JSON line. ``--save FILE``
instead fits the members of `SHIPPED_ENSEMBLE` on all training trials and writes their
ensemble as a vhuman predictor (the shipped ``swivel_ensemble.npz``); ``--save-shape FILE``
fits ``shape`` + ``mlp`` (the shipped ``swivel_mlp_shape.npz``).

References
----------
Xia, Z., et al. (2021). Human-like reaching motion of a virtual human arm
(minimum jerk and multilayer perceptron), arm configuration learning.
Friedman, J. H. (2001). Greedy function approximation: a gradient boosting
machine. Annals of Statistics 29(5), 1189–1232.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core: before numpy loads its BLAS
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import json
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray
from rich.console import Console
from rich.table import Table

from headline import run_script
from vhuman.io import check_writable
from vhuman.reaching import (
    ComfortPredictor,
    EnsemblePredictor,
    GradientBoostingPredictor,
    MLPPredictor,
    SwivelDataset,
    SwivelPredictor,
    cmu_swivel_dataset,
    evaluate,
    load_predictor,
    palm_angle,
    shape_features,
    swivel_frame_features,
    validation_split_highest_numbered,
    wrist_features,
)
from vhuman.reaching.reach import DEFAULT_MODELS, default_predictor

CMU = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "cmu_mocap"

FEATURE_SETS = ("xia", "matrix", "shape", "wrist", "swivel")
BASE_MODELS = (
    "lsq",
    "knn",
    "gbm",
    "gbm-palm",
    "comfort",
    "gbm-comfort",
    "gbm-comfort-prior",
    "mlp",
    "mlp-wide",
)
COMFORT_MODELS = ("comfort", "gbm-comfort", "gbm-comfort-prior")
"""Base models fit as vhuman predictors on the features ``m``: a `ComfortPredictor` alone, or
inside a `GradientBoostingPredictor` (``comfort="inputs"`` or ``"prior"``)."""
MODELS = (*BASE_MODELS, "gbm+mlp")
FOLDS = 5


def features(x: NDArray[np.float64], kind: str) -> NDArray[np.float64]:
    """Model inputs (N, F) of feature set ``kind`` from Xia et al.'s features (N, 8)."""
    if kind == "shape":
        return shape_features(x)
    if kind == "wrist":
        return wrist_features(x)
    if kind == "swivel":
        return swivel_frame_features(x)
    # The first 14 shape columns: hand position, rotation matrix, d1, d2.
    return shape_features(x)[:, :14] if kind == "matrix" else x


def _unit(phi: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.stack([np.sin(phi), np.cos(phi)], axis=1)


def _mlp(hidden: tuple[int, ...]) -> Any:
    from sklearn.neural_network import MLPRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    net = MLPRegressor(
        hidden_layer_sizes=hidden, alpha=1e-3, max_iter=200, early_stopping=True, random_state=0
    )
    return make_pipeline(StandardScaler(), net)


def _estimator(name: str) -> Any:
    from sklearn.ensemble import HistGradientBoostingRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.multioutput import MultiOutputRegressor
    from sklearn.neighbors import KNeighborsRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    return {
        "lsq": lambda: LinearRegression(),
        "knn": lambda: make_pipeline(StandardScaler(), KNeighborsRegressor(10, weights="distance")),
        "gbm": lambda: MultiOutputRegressor(
            HistGradientBoostingRegressor(max_iter=300, l2_regularization=1.0, random_state=0)
        ),
        "gbm-palm": lambda: _estimator("gbm"),
        "mlp": lambda: _mlp((64, 64)),
        "mlp-wide": lambda: _mlp((128, 128)),
    }[name]()


def _ignore_convergence() -> None:
    """Ignore sklearn's ``ConvergenceWarning``, in a ``warnings.catch_warnings`` block.

    An MLP stops at ``max_iter`` epochs when early stopping has not ended it
    sooner, and sklearn then warns that its tolerance was not met; the
    cross-validated and held-out errors, not that tolerance, judge the fit.
    """
    from sklearn.exceptions import ConvergenceWarning

    warnings.simplefilter("ignore", ConvergenceWarning)


def fit_units(model: str, x_fit: NDArray, phi_fit: NDArray, x_new: NDArray) -> NDArray[np.float64]:
    """Unit vectors (sin φ, cos φ) (N, 2) of ``x_new`` from a base ``model`` fit on ``x_fit``."""
    est = _estimator(model)
    with warnings.catch_warnings():
        _ignore_convergence()
        est.fit(x_fit, _unit(phi_fit))
        u = est.predict(x_new)
    return u / np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-12)


def _abs_error_deg(pred: NDArray, true: NDArray) -> NDArray[np.float64]:
    return np.degrees(np.abs((pred - true + np.pi) % (2.0 * np.pi) - np.pi))


def _angle(u: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.arctan2(u[:, 0], u[:, 1])


def _action(activity: NDArray[np.str_]) -> NDArray[np.str_]:
    return np.char.replace(activity, "walking_extra", "walking")


def out_of_sample_units(
    predict: Callable[[NDArray, NDArray, NDArray], NDArray],
    x: NDArray,
    phi: NDArray,
    groups: NDArray,
    *,
    each_group: bool = False,
) -> NDArray[np.float64]:
    """Unit vectors (N, 2) of every sample predicted by a model fit without its group's samples.

    ``GroupKFold`` with :data:`FOLDS` folds, or with ``each_group`` (or no more
    groups than folds) one fold per group (``LeaveOneGroupOut``).
    """
    from sklearn.model_selection import GroupKFold, LeaveOneGroupOut

    few = each_group or np.unique(groups).size <= FOLDS
    splitter = LeaveOneGroupOut() if few else GroupKFold(FOLDS)
    units = np.empty((phi.size, 2))
    for fit, held in splitter.split(x, phi, groups):
        units[held] = predict(x[fit], phi[fit], x[held])
    return units


def _per_action(err: NDArray, action: NDArray) -> dict[str, float]:
    return {str(a): float(err[action == a].mean()) for a in np.unique(action)}


def _turn(u: NDArray[np.float64], angle: NDArray[np.float64]) -> NDArray[np.float64]:
    """Unit vectors (sin φ, cos φ) (N, 2) of ``φ + angle``."""
    s, c = np.sin(angle), np.cos(angle)
    return np.stack([u[:, 0] * c + u[:, 1] * s, u[:, 1] * c - u[:, 0] * s], axis=1)


def _comfort_model(kind: str, model: str) -> SwivelPredictor:
    """An unfitted predictor of :data:`COMFORT_MODELS`, its trees on feature set ``kind``."""
    if model == "comfort":
        return ComfortPredictor()
    use = "prior" if model.endswith("-prior") else "inputs"
    return GradientBoostingPredictor(300, inputs={"xia": "rotvec"}.get(kind, kind), comfort=use)


def _base_units(
    kind: str,
    model: str,
    x: NDArray,
    x_test: NDArray,
    train: SwivelDataset,
    test: SwivelDataset,
    action: NDArray,
) -> dict[str, NDArray[np.float64]]:
    """A base model's grouped-CV, leave-one-action-out and held-out unit vectors.

    A ``-palm`` model fits φ minus `vhuman.reaching.palm_angle`, each sample's
    prediction turned forward by its own palm angle. A model of
    :data:`COMFORT_MODELS` is fit on the features ``m`` (``x`` and ``x_test``
    then only say which feature set the trees take, ``kind``).
    """

    if model in COMFORT_MODELS:
        x, x_test = train.features, test.features

    def predict(a: NDArray, b: NDArray, c: NDArray) -> NDArray:
        if model in COMFORT_MODELS:
            u = _comfort_model(kind, model).fit(a, b)._predict_unit(c)
            return u / np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-12)
        return fit_units(model, a, b, c)

    palm = model.endswith("-palm")
    prior = palm_angle(train.features) if palm else np.zeros(len(train))
    prior_test = palm_angle(test.features) if palm else np.zeros(len(test))
    target = train.swivel - prior
    return {
        "cv": _turn(out_of_sample_units(predict, x, target, train.groups), prior),
        "loao": _turn(out_of_sample_units(predict, x, target, action, each_group=True), prior),
        "held": _turn(predict(x, target, x_test), prior_test),
    }


def _row(
    kind: str,
    model: str,
    u: dict[str, NDArray[np.float64]],
    train: SwivelDataset,
    test: SwivelDataset,
    seconds: float,
) -> dict[str, Any]:
    """One candidate's MAEs [°] from its grouped-CV, leave-one-action-out and held-out units."""
    action, test_action = _action(train.activity), _action(test.activity)
    cv = _abs_error_deg(_angle(u["cv"]), train.swivel)
    loao = _abs_error_deg(_angle(u["loao"]), train.swivel)
    held = _abs_error_deg(_angle(u["held"]), test.swivel)
    cv_per, loao_per = _per_action(cv, action), _per_action(loao, action)
    return {
        "features": kind,
        "model": model,
        "cv_mae_deg": float(cv.mean()),
        "cv_action_mean_deg": float(np.mean(list(cv_per.values()))),
        "cv_per_action_deg": cv_per,
        "loao_mae_deg": float(loao.mean()),
        "loao_action_mean_deg": float(np.mean(list(loao_per.values()))),
        "loao_per_action_deg": loao_per,
        "heldout_mae_deg": float(held.mean()),
        "heldout_per_action_deg": _per_action(held, test_action),
        "seconds": seconds,
    }


def _mean_units(members: list[dict[str, NDArray]]) -> dict[str, NDArray[np.float64]]:
    return {k: np.mean([m[k] for m in members], axis=0) for k in ("cv", "loao", "held")}


def best_subset(
    units: dict[tuple[str, str], dict[str, NDArray]], phi: NDArray[np.float64]
) -> tuple[tuple[str, str], ...]:
    """The members (feature set, base model) whose mean unit vector has the lowest grouped-CV MAE.

    Every subset of two or more of the fitted members is scored by the mean of
    their grouped-CV unit vectors (no model is fit again); ties go to the
    smaller, then the earlier, subset.

    Parameters
    ----------
    units : dict
        Per member, its grouped-CV predictions as unit vectors under the key
        ``"cv"``, shape (N, 2) (sin φ, cos φ).
    phi : ndarray, shape (N,)
        The measured swivel angles [rad].

    Returns
    -------
    tuple of (str, str)
        The best subset's members, in ``units``' order.
    """
    from itertools import combinations

    keys = list(units)
    scores = {
        combo: float(
            _abs_error_deg(_angle(np.mean([units[k]["cv"] for k in combo], axis=0)), phi).mean()
        )
        for size in range(2, len(keys) + 1)
        for combo in combinations(keys, size)
    }
    return min(scores, key=lambda c: (round(scores[c], 9), len(c)))


def run(data: Path, candidates: list[tuple[str, str]]) -> dict[str, Any]:
    """Every candidate's grouped-CV and leave-one-action-out MAE, the chosen one held out.

    ``candidates``: (feature set, model) pairs, in the order they are fit.
    """
    train, test = validation_split_highest_numbered(cmu_swivel_dataset(data))
    action = _action(train.activity)
    rows = []
    units: dict[tuple[str, str], dict[str, NDArray]] = {}
    seconds: dict[tuple[str, str], float] = {}
    for kind in dict.fromkeys(k for k, _ in candidates):
        x, x_test = features(train.features, kind), features(test.features, kind)
        for model in (m for k, m in candidates if k == kind):
            parts = [(kind, base) for base in model.split("+")]
            for part in parts:
                if part not in units:
                    t1 = time.perf_counter()
                    units[part] = _base_units(*part, x, x_test, train, test, action)
                    seconds[part] = time.perf_counter() - t1
            u = _mean_units([units[p] for p in parts])
            spent = sum(seconds[p] for p in parts)
            rows.append(_row(kind, model, u, train, test, spent))
            print(f"{kind:7s} {model:8s} CV {rows[-1]['cv_mae_deg']:6.2f}°", file=sys.stderr)
    if len(units) > 2:
        for members in (best_subset(units, train.swivel), tuple(units)):
            name = "+".join(f"{k}:{b}" for k, b in members)
            u = _mean_units([units[m] for m in members])
            spent = sum(seconds[m] for m in members)
            rows.append(_row("mixed", name, u, train, test, spent))
    best = min(rows, key=lambda r: r["cv_mae_deg"])
    shipped = {name: _shipped(name, test) for name in DEFAULT_MODELS}
    return {
        "train_samples": len(train),
        "train_trials": int(np.unique(train.groups).size),
        "heldout_samples": len(test),
        "heldout_trials": int(np.unique(test.groups).size),
        "candidates": rows,
        "chosen_by_cv": {"features": best["features"], "model": best["model"]},
        "shipped_heldout": shipped,
    }


def _as_mlp_predictor(est: Any, rotation: str) -> MLPPredictor:
    """A fitted scikit-learn scaler + ReLU network as an `MLPPredictor` (numpy prediction)."""
    scaler, net = est[0], est[-1]
    predictor = MLPPredictor(net.hidden_layer_sizes, rotation=rotation, activation="relu")
    predictor.weights_ = {"mean": scaler.mean_, "std": scaler.scale_}
    for k, (w, b) in enumerate(zip(net.coefs_, net.intercepts_, strict=True)):
        predictor.weights_[f"w{k + 1}"], predictor.weights_[f"b{k + 1}"] = w.T.copy(), b.copy()
    return predictor


SHIPPED_ENSEMBLE = (
    ("swivel", "gbm"),
    ("swivel", "mlp-wide"),
    ("wrist", "gbm"),
    ("wrist", "mlp-wide"),
    ("shape", "mlp-wide"),
)
"""Members (feature set, base model) of the shipped ``swivel_ensemble.npz``."""


def _member(kind: str, model: str, train: SwivelDataset) -> SwivelPredictor:
    """A base model fit on the training samples as a numpy vhuman predictor."""
    if model in COMFORT_MODELS:
        return _comfort_model(kind, model).fit(train.features, train.swivel)
    if model in ("gbm", "gbm-palm"):
        inputs = {"xia": "rotvec"}.get(kind, kind)
        gbm = GradientBoostingPredictor(300, inputs=inputs, palm=model == "gbm-palm")
        return gbm.fit(train.features, train.swivel)
    est = _estimator(model)
    with warnings.catch_warnings():
        _ignore_convergence()
        est.fit(features(train.features, kind), _unit(train.swivel))
    return _as_mlp_predictor(est, {"xia": "rotvec"}.get(kind, kind))


def save_predictor(data: Path, path: Path, kind: str) -> dict[str, Any]:
    """Fit a shipped predictor on all training trials, write it, score it on the held-out ones.

    ``kind`` ``"ensemble"``: an `EnsemblePredictor` of the :data:`SHIPPED_ENSEMBLE`
    members, the gradient boosting as a `GradientBoostingPredictor` and each
    scikit-learn network as an ``MLPPredictor(..., activation="relu")`` with the
    member's features as its ``rotation``; ``"shape"``: ``shape`` + ``mlp`` as
    ``MLPPredictor((64, 64), rotation="shape")``. Both predict in numpy like the
    other shipped predictors.
    """
    train, test = validation_split_highest_numbered(cmu_swivel_dataset(data))
    members = SHIPPED_ENSEMBLE if kind == "ensemble" else (("shape", "mlp"),)
    fitted = [_member(k, m, train) for k, m in members]
    predictor = EnsemblePredictor(fitted) if kind == "ensemble" else fitted[0]
    predictor.save(path)
    return {"output": str(path), **evaluate(load_predictor(path), test)}


def _shipped(name: str, test: SwivelDataset) -> dict[str, Any]:
    scores = evaluate(default_predictor(name), test)
    per = {}
    for a in np.unique(_action(test.activity)):
        parts = [v for k, v in scores["per_activity"].items() if _action(np.array(k)) == a]
        per[str(a)] = sum(p["n"] * p["mae_deg"] for p in parts) / sum(p["n"] for p in parts)
    return {"heldout_mae_deg": scores["mae_deg"], "heldout_per_action_deg": per}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path(os.environ.get("VHUMAN_CMU_DATA", CMU)))
    parser.add_argument(
        "--features",
        default=",".join(FEATURE_SETS),
        help=f"comma-separated, of {', '.join(FEATURE_SETS)}",
    )
    parser.add_argument(
        "--models", default=",".join(MODELS), help=f"comma-separated, of {', '.join(MODELS)}"
    )
    parser.add_argument(
        "--pairs",
        default=None,
        help="comma-separated FEATURES:MODEL pairs, fit instead of --features × --models",
    )
    parser.add_argument(
        "--save", type=Path, default=None, help="only fit SHIPPED_ENSEMBLE, write it"
    )
    parser.add_argument(
        "--save-shape", type=Path, default=None, help="only fit shape + mlp, write it"
    )
    args = parser.parse_args()
    if not (args.data / "train").is_dir():
        parser.error(f"--data must be the CMU data folder holding train/, got {args.data}")
    for path, what in ((args.save, "--save"), (args.save_shape, "--save-shape")):
        if path is not None:
            check_writable(path, what)
    for path, kind in ((args.save, "ensemble"), (args.save_shape, "shape")):
        if path is not None:
            saved = save_predictor(args.data, path, kind)
            print(f"wrote {path}: held-out MAE {saved['mae_deg']:.2f}°", file=sys.stderr)
            print(json.dumps({"benchmark": "swivel", "saved": saved}))
    if args.save is not None or args.save_shape is not None:
        return
    if args.pairs is None:
        pairs = [(k, m) for k in args.features.split(",") for m in args.models.split(",")]
    else:
        pairs = [tuple(p.split(":")) for p in args.pairs.split(",")]
        odd = [":".join(p) for p in pairs if len(p) != 2]
        if odd:
            parser.error(f"--pairs takes FEATURES:MODEL pairs, got {odd}")
    bad = sorted({k for k, _ in pairs} - set(FEATURE_SETS)) + sorted(
        {m for _, m in pairs} - set(MODELS)
    )
    if bad:
        parser.error(f"unknown {bad}; features are {FEATURE_SETS}, models {MODELS}")
    result = run(args.data, pairs)
    console = Console(width=130, highlight=False)
    table = Table(
        title=f"swivel MAE °: {result['train_trials']} training trials "
        f"({result['train_samples']} samples), {result['heldout_trials']} held-out trials "
        f"({result['heldout_samples']} samples)"
    )
    columns = ("grouped CV", "per action", "leave-one-action-out", "per action", "held-out", "s")
    for col in ("features", "model", *columns):
        table.add_column(col, justify="left" if col in ("features", "model") else "right")
    chosen = result["chosen_by_cv"]
    key = (chosen["features"], chosen["model"])
    for r in result["candidates"]:
        mark = " *" if (r["features"], r["model"]) == key else ""
        table.add_row(
            r["features"],
            r["model"] + mark,
            f"{r['cv_mae_deg']:.2f}",
            f"{r['cv_action_mean_deg']:.2f}",
            f"{r['loao_mae_deg']:.2f}",
            f"{r['loao_action_mean_deg']:.2f}",
            f"{r['heldout_mae_deg']:.2f}",
            f"{r['seconds']:.0f}",
        )
    for name, s in result["shipped_heldout"].items():
        table.add_row("shipped", name, "-", "-", "-", "-", f"{s['heldout_mae_deg']:.2f}", "-")
    console.print(table)
    console.print(
        "* chosen by grouped CV; per action: the mean of the actions' MAEs; "
        "held-out trials used for no choice"
    )
    best = next(r for r in result["candidates"] if (r["features"], r["model"]) == key)
    per = Table(title=f"MAE ° per action: {chosen['features']} + {chosen['model']} beside shipped")
    per.add_column("action")
    per.add_column("grouped CV", justify="right")
    per.add_column("leave-one-action-out", justify="right")
    per.add_column("held-out", justify="right")
    for name in result["shipped_heldout"]:
        per.add_column(f"{name} held-out", justify="right")
    for a in best["heldout_per_action_deg"]:
        shipped = (
            f"{s['heldout_per_action_deg'][a]:.2f}" for s in result["shipped_heldout"].values()
        )
        per.add_row(
            a,
            f"{best['cv_per_action_deg'][a]:.2f}",
            f"{best['loao_per_action_deg'][a]:.2f}",
            f"{best['heldout_per_action_deg'][a]:.2f}",
            *shipped,
        )
    console.print(per)
    print(json.dumps({"benchmark": "swivel", **result}))


if __name__ == "__main__":
    run_script(main)
