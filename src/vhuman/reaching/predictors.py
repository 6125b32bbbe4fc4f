"""Swivel-angle predictors ``φ = f(m)``: least squares, MLPs, gradient boosting, ensembles.

Every predictor fits and predicts the **unit vector (sin φ, cos φ)** and
returns ``φ = atan2(sin, cos)``: φ wraps at ±π, and a regression on φ itself
would average −179° and 179° to 0°. Errors are angular differences wrapped
to [−π, π].

Saved models are one ``.npz`` file (no pickle): the weights as arrays plus a
JSON header (``kind`` and hyper-parameters) stored as a string array, written
atomically; :func:`load_predictor` reads any kind.

References
----------
Xia, Z., et al. (2021). Human-like reaching motion of a virtual human arm
(minimum jerk and multilayer perceptron), arm configuration learning: an MLP
8 → 40 → 1 trained with Adam on the MSE, compared with least squares.
Kingma, D. P., & Ba, J. (2015). Adam: a method for stochastic optimization. ICLR.
Friedman, J. H. (2001). Greedy function approximation: a gradient boosting
machine. Annals of Statistics 29(5), 1189–1232.
Ke, G., et al. (2017). LightGBM: a highly efficient gradient boosting decision
tree. NeurIPS (the histogram-based trees of scikit-learn's
``HistGradientBoostingRegressor``).
"""

from __future__ import annotations

import abc
import enum
import hashlib
import io
import itertools
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import FileFormatError, InputError
from vhuman.geometry import rotmat_to_quat
from vhuman.geometry.so3 import rotvec_to_rotmat
from vhuman.io import atomic_path
from vhuman.io.filesystem import PathLike, read_bytes
from vhuman.reaching.arm import JOINT_LIMITS, ArmModel
from vhuman.reaching.dataset import (
    CMU_HAND_TO_FOREARM,
    FEATURE_NAMES,
    SwivelDataset,
    palm_angle,
    shape_features,
    swivel_frame_features,
    wrist_features,
)
from vhuman.reaching.swivel import solve_arm

__all__ = [
    "Activation",
    "ComfortPredictor",
    "ComfortUse",
    "EnsemblePredictor",
    "GradientBoostingPredictor",
    "LeastSquaresPredictor",
    "MLPPredictor",
    "MeanPredictor",
    "RotationInput",
    "SwivelPredictor",
    "evaluate",
    "load_predictor",
    "swivel_postures",
    "wrap_angle",
]

_HEADER = "__header__"


def wrap_angle(x: ArrayLike) -> NDArray[np.float64]:
    """Angles [rad] wrapped to [−π, π), any shape."""
    return (np.asarray(x, dtype=np.float64) + np.pi) % (2.0 * np.pi) - np.pi


def _check_features(features: ArrayLike) -> NDArray[np.float64]:
    x = np.asarray(features, dtype=np.float64)
    if x.ndim != 2 or x.shape[1] != len(FEATURE_NAMES):
        raise InputError(f"features must have shape (N, {len(FEATURE_NAMES)}), got {x.shape}")
    if not np.all(np.isfinite(x)):
        raise InputError("features contain NaN or infinite values")
    return x


def _check_training(
    features: ArrayLike, swivel: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    x = _check_features(features)
    phi = np.asarray(swivel, dtype=np.float64)
    if phi.shape != (x.shape[0],) or x.shape[0] == 0:
        raise InputError(f"swivel must have shape ({x.shape[0]},) with N ≥ 1, got {phi.shape}")
    if not np.all(np.isfinite(phi)):
        raise InputError("swivel contains NaN or infinite values")
    return x, phi


def _data_digest(x: NDArray[np.float64], phi: NDArray[np.float64]) -> str:
    """SHA-256 (hex) of training features ``x (N, D)`` and angles ``phi (N,)``."""
    h = hashlib.sha256()
    for a in (x, phi):
        a = np.ascontiguousarray(a, dtype=np.float64)
        h.update(f"{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _unit_targets(phi: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.stack([np.sin(phi), np.cos(phi)], axis=-1)


def _angle(y: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.arctan2(y[..., 0], y[..., 1])


class SwivelPredictor(abc.ABC):
    """A model of the swivel angle φ [rad] from the eight features ``m`` (see the module)."""

    kind: ClassVar[str]
    _registry: ClassVar[dict[str, type[SwivelPredictor]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        SwivelPredictor._registry[cls.kind] = cls

    @abc.abstractmethod
    def fit(self, features: ArrayLike, swivel: ArrayLike) -> SwivelPredictor:
        """Fit to ``features`` (N, 8) and angles ``swivel`` (N,) [rad]; returns ``self``.

        Raises
        ------
        InputError
            For mis-shaped or non-finite inputs.
        """

    @abc.abstractmethod
    def _predict_unit(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Predicted (sin φ, cos φ), not necessarily unit, shape (N, 2)."""

    @abc.abstractmethod
    def _state(self) -> tuple[dict[str, Any], dict[str, NDArray[np.float64]]]:
        """JSON header fields and weight arrays of a fitted predictor."""

    @classmethod
    @abc.abstractmethod
    def _from_state(
        cls, header: dict[str, Any], arrays: dict[str, NDArray[np.float64]]
    ) -> SwivelPredictor:
        """The predictor saved as ``header`` and ``arrays``."""

    @property
    @abc.abstractmethod
    def fitted(self) -> bool:
        """Whether :meth:`fit` (or :meth:`load`) has set the weights."""

    def _require_fitted(self) -> None:
        if not self.fitted:
            raise InputError(f"{type(self).__name__} is not fitted; call fit() first")

    def predict(self, features: ArrayLike) -> NDArray[np.float64]:
        """Swivel angles φ [rad] in (−π, π], shape (N,), of ``features`` (N, 8).

        Raises
        ------
        InputError
            If not fitted, or for mis-shaped or non-finite features.
        """
        self._require_fitted()
        return _angle(self._predict_unit(_check_features(features)))

    def save(self, path: PathLike) -> None:
        """Write the fitted predictor to ``path`` (``.npz``: weights + JSON header), atomically.

        Raises
        ------
        InputError
            If not fitted or the file cannot be written.
        """
        self._require_fitted()
        header, arrays = self._state()
        text = json.dumps({"kind": self.kind, **header})
        with atomic_path(path) as tmp, open(tmp, "wb") as fh:
            np.savez(fh, **{_HEADER: np.array(text)}, **arrays)

    @classmethod
    def load(cls, path: PathLike) -> SwivelPredictor:
        """Read a predictor written by :meth:`save` (any kind; see :func:`load_predictor`).

        Raises
        ------
        InputError
            If the file cannot be read; FileFormatError if it is not a saved
            predictor or is of another kind than ``cls``.
        """
        p = Path(path)
        raw = read_bytes(p)
        try:
            with np.load(io.BytesIO(raw), allow_pickle=False) as data:
                arrays = {k: np.asarray(data[k]) for k in data.files}
        except Exception as exc:  # any failure to decode untrusted bytes is a format error
            reason = (str(exc).splitlines() or [type(exc).__name__])[0]
            raise FileFormatError(f"{p}: not a saved swivel predictor ({reason})") from None
        if _HEADER not in arrays:
            raise FileFormatError(f"{p}: no {_HEADER} entry; not a saved swivel predictor")
        try:
            header = json.loads(str(arrays.pop(_HEADER)))
            kind = header.pop("kind", None)
        except (ValueError, TypeError, AttributeError):
            raise FileFormatError(f"{p}: {_HEADER} is not a JSON object") from None
        allowed = sorted(SwivelPredictor._registry)
        if not isinstance(kind, str) or kind not in SwivelPredictor._registry:
            raise FileFormatError(f"{p}: predictor kind must be one of {allowed}, got {kind!r}")
        target = SwivelPredictor._registry[kind]
        if not issubclass(target, cls):
            raise FileFormatError(f"{p}: holds a {kind!r} predictor, not a {cls.kind!r} one")
        try:
            predictor = target._from_state(header, arrays)
            # A hand 0.43 m from the shoulder: damaged weights fail here, not in use.
            with np.errstate(all="ignore"):
                probe = predictor.predict(np.full((1, len(FEATURE_NAMES)), 0.25))
        except (ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            reason = (str(exc).splitlines() or [type(exc).__name__])[0]
            raise FileFormatError(f"{p}: damaged {kind!r} predictor ({reason})") from None
        if not np.all(np.isfinite(probe)):
            raise FileFormatError(f"{p}: damaged {kind!r} predictor (non-finite weights)")
        return predictor


def load_predictor(path: PathLike) -> SwivelPredictor:
    """Read any predictor written by :meth:`SwivelPredictor.save`."""
    return SwivelPredictor.load(path)


class MeanPredictor(SwivelPredictor):
    """The baseline: always the circular mean of the training angles."""

    kind = "mean"

    def __init__(self) -> None:
        self.mean_: float | None = None

    @property
    def fitted(self) -> bool:
        return self.mean_ is not None

    def fit(self, features: ArrayLike, swivel: ArrayLike) -> MeanPredictor:
        _, phi = _check_training(features, swivel)
        self.mean_ = float(_angle(_unit_targets(phi).mean(axis=0)))
        return self

    def _predict_unit(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        assert self.mean_ is not None
        return np.tile([np.sin(self.mean_), np.cos(self.mean_)], (x.shape[0], 1))

    def _state(self) -> tuple[dict[str, Any], dict[str, NDArray[np.float64]]]:
        return {}, {"mean": np.array(self.mean_)}

    @classmethod
    def _from_state(
        cls, header: dict[str, Any], arrays: dict[str, NDArray[np.float64]]
    ) -> MeanPredictor:
        out = cls()
        out.mean_ = float(arrays["mean"])
        return out


class LeastSquaresPredictor(SwivelPredictor):
    """Xia et al.'s baseline, linear least squares ``[m, 1] W ≈ (sin φ, cos φ)``.

    Unlike the seed, which regresses φ itself, the fit is on (sin φ, cos φ)
    and φ = atan2 of the prediction (see the module).
    """

    kind = "least_squares"

    def __init__(self) -> None:
        self.weights_: NDArray[np.float64] | None = None  # (9, 2)

    @property
    def fitted(self) -> bool:
        return self.weights_ is not None

    @staticmethod
    def _design(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.concatenate([x, np.ones((x.shape[0], 1))], axis=1)

    def fit(self, features: ArrayLike, swivel: ArrayLike) -> LeastSquaresPredictor:
        x, phi = _check_training(features, swivel)
        self.weights_, *_ = np.linalg.lstsq(self._design(x), _unit_targets(phi), rcond=None)
        return self

    def _predict_unit(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        assert self.weights_ is not None
        return self._design(x) @ self.weights_

    def _state(self) -> tuple[dict[str, Any], dict[str, NDArray[np.float64]]]:
        assert self.weights_ is not None
        return {}, {"weights": self.weights_}

    @classmethod
    def _from_state(
        cls, header: dict[str, Any], arrays: dict[str, NDArray[np.float64]]
    ) -> LeastSquaresPredictor:
        out = cls()
        out.weights_ = np.asarray(arrays["weights"], dtype=np.float64)
        return out


class Activation(enum.StrEnum):
    """The hidden-layer nonlinearity of :class:`MLPPredictor`."""

    TANH = "tanh"
    RELU = "relu"


class RotationInput(enum.StrEnum):
    """How the hand orientation enters :class:`MLPPredictor` (see its ``rotation``)."""

    ROTVEC = "rotvec"
    """Xia et al.'s rotation vector ``α, β, γ``."""
    MATRIX = "matrix"
    """The nine entries of its rotation matrix."""
    SHAPE = "shape"
    """The matrix with cues of the arm's shape (:func:`vhuman.reaching.shape_features`)."""
    WRIST = "wrist"
    """The scale-free wrist features (:func:`vhuman.reaching.wrist_features`)."""
    SWIVEL = "swivel"
    """The wrist features with the hand's axes about the shoulder→wrist axis
    (:func:`vhuman.reaching.swivel_frame_features`)."""


class ComfortUse(enum.StrEnum):
    """How :class:`GradientBoostingPredictor` uses a :class:`ComfortPredictor` (its ``comfort``)."""

    NONE = "none"
    """Not at all."""
    INPUTS = "inputs"
    """Its (sin φ, cos φ) as two more inputs of the trees."""
    PRIOR = "prior"
    """As a prior: the trees fit φ minus its angle."""


_ACTIVATIONS = {Activation.TANH: np.tanh, Activation.RELU: lambda h: np.maximum(h, 0.0)}


def _lift_rotation(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Features (N, 8) with the rotation vector replaced by its matrix entries, (N, 14).

    The rotation vector jumps where the hand's rotation angle crosses π; its
    matrix is continuous everywhere.
    """
    matrix = rotvec_to_rotmat(x[:, 3:6]).reshape(-1, 9)
    return np.concatenate([x[:, :3], matrix, x[:, 6:]], axis=1)


_INPUTS = {
    RotationInput.ROTVEC: lambda x: x,
    RotationInput.MATRIX: _lift_rotation,
    RotationInput.SHAPE: shape_features,
    RotationInput.WRIST: wrist_features,
    RotationInput.SWIVEL: swivel_frame_features,
}
"""Model inputs (N, F) from the features ``m`` (N, 8), by name."""


class MLPPredictor(SwivelPredictor):
    """Xia et al.'s multilayer perceptron, 8 → ``hidden`` → 2 (sin φ, cos φ), or a deeper one.

    Tanh (or ReLU) hidden layers, trained with Adam (PyTorch, float64, CPU) on the mean
    squared error of (sin φ, cos φ) over shuffled mini-batches, on inputs
    standardised by the training mean and standard deviation. Prediction runs
    in numpy from the stored weights, so a saved model loads without PyTorch.

    Parameters
    ----------
    hidden : int or sequence of int
        Units of each hidden layer (the seed: one layer of 40).
    epochs : int
        Passes over the training set.
    batch_size : int
        Samples per Adam step.
    learning_rate : float
        Adam step size; decays by cosine annealing to 1 % of it over training.
    seed : int
        Seeds the weight initialisation and the batch order.
    rotation : RotationInput or {"rotvec", "matrix", "shape", "wrist", "swivel"}
        How the hand orientation enters the network: Xia et al.'s rotation
        vector ``α, β, γ``, the nine entries of its rotation matrix
        (continuous where the rotation vector jumps; same features ``m``),
        the matrix with cues of the arm's shape
        (:func:`vhuman.reaching.shape_features`, CMU hand proportions),
        the scale-free wrist features (:func:`vhuman.reaching.wrist_features`),
        or those with the hand's axes measured about the shoulder→wrist axis
        (:func:`vhuman.reaching.swivel_frame_features`).
    activation : Activation or {"tanh", "relu"}
        Hidden-layer nonlinearity.

    Raises
    ------
    InputError
        For a non-positive hyper-parameter or an unknown ``rotation``.

    Notes
    -----
    Needs the ``learn`` extra (``torch``) to fit.
    """

    kind = "mlp"

    def __init__(
        self,
        hidden: int | tuple[int, ...] | list[int] = 40,
        *,
        epochs: int = 300,
        batch_size: int = 256,
        learning_rate: float = 3e-3,
        seed: int = 0,
        rotation: RotationInput | str = RotationInput.ROTVEC,
        activation: Activation | str = Activation.TANH,
    ) -> None:
        layers = (hidden,) if np.isscalar(hidden) else tuple(hidden)  # type: ignore[arg-type]
        if not layers:
            raise InputError("hidden must give at least one layer size, got none")
        sizes = [*(("hidden", h) for h in layers), ("epochs", epochs), ("batch_size", batch_size)]
        for name, value in sizes:
            if int(value) != value or value < 1:
                raise InputError(f"{name} must be an integer ≥ 1, got {value}")
        if not (np.isfinite(learning_rate) and learning_rate > 0.0):
            raise InputError(f"learning_rate must be finite and > 0, got {learning_rate}")
        if rotation not in _INPUTS:
            allowed = [r.value for r in RotationInput]
            raise InputError(f"rotation must be one of {allowed}, got {rotation!r}")
        if activation not in _ACTIVATIONS:
            raise InputError(f"activation must be 'tanh' or 'relu', got {activation!r}")
        self.hidden = tuple(int(h) for h in layers)
        self.epochs = int(epochs)
        self.batch_size = int(batch_size)
        self.learning_rate = float(learning_rate)
        self.seed = int(seed)
        self.rotation = RotationInput(rotation)
        self.activation = Activation(activation)
        self.weights_: dict[str, NDArray[np.float64]] | None = None

    @property
    def fitted(self) -> bool:
        return self.weights_ is not None

    def _inputs(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        return _INPUTS[self.rotation](x)

    def fit(
        self,
        features: ArrayLike,
        swivel: ArrayLike,
        *,
        checkpoint: PathLike | None = None,
        resume: bool = False,
        stop_after: int | None = None,
    ) -> MLPPredictor:
        """Train on ``features (N, 8)`` and swivel angles ``(N,)`` [rad].

        Parameters
        ----------
        features : array_like, shape (N, 8)
        swivel : array_like, shape (N,)
        checkpoint : str or Path, optional
            Written after every epoch (atomically, with a SHA-256 digest, see
            :mod:`vhuman.prediction.checkpoint`): the network, Adam and the
            learning-rate schedule, the batch-order generator, the epoch reached
            and the run's identity (the hyper-parameters and a digest of the
            training data).
        resume : bool
            Continue from ``checkpoint`` if it exists; the weights are then
            those of an uninterrupted run.
        stop_after : int, optional
            Stop after this many epochs in total (the checkpoint stays).

        Raises
        ------
        InputError
            For bad training data, or a checkpoint that is damaged or of a
            run with another setting (naming it, stored and given value).
        """
        import torch

        from vhuman.prediction.checkpoint import read_checkpoint, write_checkpoint
        from vhuman.prediction.files import MODEL_FORMAT

        x, phi = _check_training(features, swivel)
        identity = {**self._header(), "data": _data_digest(x, phi)}
        x = self._inputs(x)
        mean = x.mean(axis=0)
        std = x.std(axis=0)
        std = np.where(std > 1e-12, std, 1.0)  # constant columns (fixed lengths) stay put
        gen = torch.Generator().manual_seed(self.seed)
        xt = torch.as_tensor((x - mean) / std)
        yt = torch.as_tensor(_unit_targets(phi))
        sizes = [x.shape[1], *self.hidden]
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(self.seed)
            modules: list[torch.nn.Module] = []
            for a, b in itertools.pairwise(sizes):
                act = torch.nn.Tanh() if self.activation is Activation.TANH else torch.nn.ReLU()
                modules += [torch.nn.Linear(a, b), act]
            modules.append(torch.nn.Linear(sizes[-1], 2))
            net = torch.nn.Sequential(*modules).double()
        steps_per_epoch = -(-x.shape[0] // self.batch_size)
        opt = torch.optim.Adam(net.parameters(), lr=self.learning_rate)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(
            opt, T_max=self.epochs * steps_per_epoch, eta_min=0.01 * self.learning_rate
        )
        start, history = 0, []
        if resume and checkpoint is not None and Path(checkpoint).is_file():
            data = read_checkpoint(checkpoint, identity)
            net.load_state_dict(data["state"])
            opt.load_state_dict(data["optimizer"]["adam"])
            sched.load_state_dict(data["optimizer"]["schedule"])
            gen.set_state(data["optimizer"]["generator"])
            start, history = int(data["epoch"]), list(json.loads(data["history"]))
        last = self.epochs if stop_after is None else min(self.epochs, stop_after)
        for epoch in range(start, last):
            order = torch.randperm(x.shape[0], generator=gen)
            total = torch.zeros((), dtype=torch.float64)
            for batch in order.split(self.batch_size):
                opt.zero_grad()
                loss = torch.nn.functional.mse_loss(net(xt[batch]), yt[batch])
                loss.backward()
                opt.step()
                sched.step()
                total += loss.detach() * len(batch)
            history.append(total.item() / x.shape[0])
            if checkpoint is not None:
                write_checkpoint(
                    checkpoint,
                    {
                        "format": MODEL_FORMAT,
                        "identity": json.dumps(identity),
                        "state": net.state_dict(),
                        "optimizer": {
                            "adam": opt.state_dict(),
                            "schedule": sched.state_dict(),
                            "generator": gen.get_state(),
                        },
                        "epoch": epoch + 1,
                        "history": json.dumps(history),
                    },
                )
        linear = [m for m in net if isinstance(m, torch.nn.Linear)]
        self.weights_ = {"mean": mean, "std": std}
        for k, layer in enumerate(linear):
            self.weights_[f"w{k + 1}"] = layer.weight.detach().numpy().copy()
            self.weights_[f"b{k + 1}"] = layer.bias.detach().numpy().copy()
        return self

    def _predict_unit(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        w = self.weights_
        assert w is not None  # _require_fitted ran first
        h = (self._inputs(x) - w["mean"]) / w["std"]
        n = len(self.hidden) + 1
        for k in range(1, n):
            h = _ACTIVATIONS[self.activation](h @ w[f"w{k}"].T + w[f"b{k}"])
        return h @ w[f"w{n}"].T + w[f"b{n}"]

    def _header(self) -> dict[str, Any]:
        """The hyper-parameters (JSON values)."""
        return {
            "hidden": list(self.hidden),
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "learning_rate": self.learning_rate,
            "seed": self.seed,
            "rotation": self.rotation,
            "activation": self.activation,
        }

    def _state(self) -> tuple[dict[str, Any], dict[str, NDArray[np.float64]]]:
        assert self.weights_ is not None  # _require_fitted ran first
        return self._header(), dict(self.weights_)

    @classmethod
    def _from_state(
        cls, header: dict[str, Any], arrays: dict[str, NDArray[np.float64]]
    ) -> MLPPredictor:
        out = cls(**header)
        n = len(out.hidden) + 1
        names = ["mean", "std", *(f"{p}{k}" for k in range(1, n + 1) for p in ("w", "b"))]
        missing = [k for k in names if k not in arrays]
        if missing:
            raise FileFormatError(f"saved MLP predictor lacks the arrays {missing}")
        out.weights_ = {k: np.asarray(arrays[k], dtype=np.float64) for k in names}
        return out


def swivel_postures(
    features: ArrayLike, swivels: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The arm's joint angles at each of ``swivels`` for each hand pose of ``features``.

    The wrist centre lies :data:`~vhuman.reaching.CMU_HAND_TO_FOREARM` ``· d2``
    behind the hand end along the hand's axis (:func:`vhuman.reaching.wrist_features`);
    a wrist out of the arm's reach is moved along the shoulder→wrist line to
    its edge. Each distinct pair of segment lengths ``d1, d2`` gets its own
    arm (:class:`~vhuman.reaching.ArmModel`, right side, the hand
    ``CMU_HAND_TO_FOREARM · d2`` long) and :func:`~vhuman.reaching.solve_arm`.

    Parameters
    ----------
    features : array_like, shape (N, 8)
        ``m = [x, y, z, α, β, γ, d1, d2]`` (:data:`~vhuman.reaching.FEATURE_NAMES`).
    swivels : array_like, shape (G,)
        Swivel angles [rad].

    Returns
    -------
    q : ndarray, shape (N, G, 7)
        Joint angles [rad].
    wrist : ndarray, shape (N, 3)
        The wrist centres [m] in the shoulder frame, moved into reach.

    Raises
    ------
    InputError
        If ``features`` is not (N, 8) or not finite.
    """
    x = _check_features(features)
    grid = np.asarray(swivels, dtype=np.float64).ravel()
    rot = rotvec_to_rotmat(x[:, 3:6])
    quat = rotmat_to_quat(rot)
    q = np.empty((x.shape[0], grid.size, 7))
    wrists = np.empty((x.shape[0], 3))
    lengths, which = np.unique(x[:, 6:8], axis=0, return_inverse=True)
    for k, (d1, d2) in enumerate(lengths):
        rows = np.flatnonzero(which.ravel() == k)
        arm = ArmModel(d1, d2, CMU_HAND_TO_FOREARM * d2)
        lo, hi = arm.reach
        wrist = x[rows, :3] + arm.hand * rot[rows, :, 2]
        dist = np.linalg.norm(wrist, axis=1, keepdims=True)
        margin = 1e-9 * hi
        wrist = wrist / np.maximum(dist, 1e-12) * np.clip(dist, lo + margin, hi - margin)
        hand = wrist - arm.hand * rot[rows, :, 2]
        q[rows] = solve_arm(arm, hand[:, None], quat[rows, None], grid).q
        wrists[rows] = wrist
    return q, wrists


class ComfortPredictor(SwivelPredictor):
    """The swivel angle of least joint discomfort: a comfortable posture, fit, not learnt per task.

    For each sample the closed-form inverse kinematics
    (:func:`vhuman.reaching.solve_arm`) gives the arm's seven joint angles
    ``q(φ)`` at ``samples`` swivel angles evenly spaced over the circle, and
    each posture is charged

    ``C(φ) = Σ_j w_j (1 − cos(q_j(φ) − r_j)) + Σ_j v_j e_j(φ)²``

    with ``r_j`` the comfortable angle of joint ``j``, ``w_j`` its weight and
    ``e_j`` its distance outside Xia et al.'s limits
    (:data:`vhuman.reaching.JOINT_LIMITS`, weight ``v_j``): a cost of the
    deviations of every joint from a comfortable position (Cruse et al. 1990).
    The prediction is the soft minimum, the mean of the sampled
    ``(sin φ, cos φ)`` weighted by ``softmax(−C / τ)``. Its 22 parameters
    (``r``, ``w``, ``v``, ``τ``) are fit with Adam (PyTorch, float64, CPU) on
    mini-batches, minimising ``√(1 − cos ε)`` of the angle errors ``ε`` (about
    ``|ε| / √2``); the hand's task enters only through the inverse kinematics,
    so the model holds no habit of the motions it was fit on beyond one
    posture and its weights.

    Parameters
    ----------
    samples : int
        Swivel angles sampled per prediction, ≥ 8 (default 90: every 4°).
    steps : int
        Adam steps, ≥ 1.
    batch_size : int
        Samples per Adam step, ≥ 1.
    learning_rate : float
        Adam step size, finite and > 0.
    seed : int
        Seeds the mini-batches.

    Raises
    ------
    InputError
        For a hyper-parameter out of range.

    Notes
    -----
    Needs the ``learn`` extra (``torch``) to fit; prediction runs in numpy.

    References
    ----------
    Cruse, H., Wischmeyer, E., Brüwer, M., Brockfeld, P., & Dress, A. (1990).
    On the cost functions for the control of the human arm movement.
    Biological Cybernetics 62(6), 519–528.
    """

    kind = "comfort"

    def __init__(
        self,
        samples: int = 90,
        *,
        steps: int = 300,
        batch_size: int = 2048,
        learning_rate: float = 0.05,
        seed: int = 0,
    ) -> None:
        bounds = (("samples", samples, 8), ("steps", steps, 1), ("batch_size", batch_size, 1))
        for name, value, least in bounds:
            if int(value) != value or value < least:
                raise InputError(f"{name} must be an integer ≥ {least}, got {value}")
        if not (np.isfinite(learning_rate) and learning_rate > 0.0):
            raise InputError(f"learning_rate must be finite and > 0, got {learning_rate}")
        self.samples = int(samples)
        self.steps = int(steps)
        self.batch_size = int(batch_size)
        self.learning_rate = float(learning_rate)
        self.seed = int(seed)
        self.params_: dict[str, NDArray[np.float64]] | None = None

    @property
    def fitted(self) -> bool:
        return self.params_ is not None

    @property
    def _grid(self) -> NDArray[np.float64]:
        return -np.pi + 2.0 * np.pi * np.arange(self.samples) / self.samples

    def _terms(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
        """``sin q``, ``cos q`` and the squared limit excess, each (N, samples, 7)."""
        q, _ = swivel_postures(x, self._grid)
        return np.sin(q), np.cos(q), (q - np.clip(q, JOINT_LIMITS[:, 0], JOINT_LIMITS[:, 1])) ** 2

    def fit(self, features: ArrayLike, swivel: ArrayLike) -> ComfortPredictor:
        import torch

        x, phi = _check_training(features, swivel)
        terms = [torch.as_tensor(t) for t in self._terms(x)]
        grid = torch.as_tensor(_unit_targets(self._grid))
        target = torch.as_tensor(_unit_targets(phi))
        params = {
            "comfort": torch.tensor(JOINT_LIMITS.mean(axis=1)),
            "log_weight": torch.zeros(7, dtype=torch.float64),
            "log_limit_weight": torch.full((7,), -3.0, dtype=torch.float64),
            "log_temperature": torch.tensor([-1.0], dtype=torch.float64),
        }
        for p in params.values():
            p.requires_grad_(True)
        opt = torch.optim.Adam(params.values(), lr=self.learning_rate)
        gen = torch.Generator().manual_seed(self.seed)
        for _ in range(self.steps):
            batch = torch.randperm(x.shape[0], generator=gen)[: self.batch_size]
            opt.zero_grad()
            cost = _comfort_cost(torch, params, [t[batch] for t in terms])
            u = torch.softmax(-cost / torch.exp(params["log_temperature"]), dim=1) @ grid
            u = u / torch.clamp(torch.linalg.norm(u, dim=1, keepdim=True), min=1e-12)
            gap = torch.clamp(1.0 - torch.sum(u * target[batch], dim=1), min=0.0)
            torch.sqrt(gap + 1e-6).mean().backward()
            opt.step()
        self.params_ = {k: v.detach().numpy().copy() for k, v in params.items()}
        return self

    def _predict_unit(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        assert self.params_ is not None  # _require_fitted ran first
        from scipy.special import softmax

        cost = _comfort_cost(np, self.params_, self._terms(x))
        weights = softmax(-cost / np.exp(self.params_["log_temperature"]), axis=1)
        return weights @ _unit_targets(self._grid)

    def _state(self) -> tuple[dict[str, Any], dict[str, NDArray[np.float64]]]:
        assert self.params_ is not None  # _require_fitted ran first
        header = {
            "samples": self.samples,
            "steps": self.steps,
            "batch_size": self.batch_size,
            "learning_rate": self.learning_rate,
            "seed": self.seed,
        }
        return header, dict(self.params_)

    @classmethod
    def _from_state(
        cls, header: dict[str, Any], arrays: dict[str, NDArray[np.float64]]
    ) -> ComfortPredictor:
        out = cls(**header)
        names = ["comfort", "log_weight", "log_limit_weight", "log_temperature"]
        missing = [k for k in names if k not in arrays]
        if missing:
            raise FileFormatError(f"saved comfort predictor lacks the arrays {missing}")
        out.params_ = {k: np.asarray(arrays[k], dtype=np.float64) for k in names}
        return out


def _comfort_cost(lib: Any, params: Mapping[str, Any], terms: Sequence[Any]) -> Any:
    """:class:`ComfortPredictor`'s cost ``C`` (N, G) of each sampled posture.

    ``lib`` is numpy or torch, ``params`` and ``terms`` its arrays: ``sin q``,
    ``cos q`` and the squared limit excess (N, G, 7).
    """
    sin_q, cos_q, excess = terms
    r = params["comfort"]
    discomfort = 1.0 - (cos_q * lib.cos(r) + sin_q * lib.sin(r))
    limits = excess * lib.exp(params["log_limit_weight"])
    return (discomfort * lib.exp(params["log_weight"])).sum(-1) + limits.sum(-1)


_NODE_FIELDS = {
    "feature_idx": np.int32,
    "num_threshold": np.float64,
    "left": np.int32,
    "right": np.int32,
    "value": np.float64,
    "is_leaf": np.uint8,
}
"""Stored fields of a tree node (scikit-learn's ``TreePredictor.nodes``) and their dtypes."""


class GradientBoostingPredictor(SwivelPredictor):
    """Gradient-boosted regression trees, one ensemble per output.

    Friedman's (2001) gradient boosting with scikit-learn's histogram-based
    trees (``HistGradientBoostingRegressor``, squared error, L2
    regularisation 1) fit (sin φ, cos φ) from the features ``m`` or features
    derived from them (``inputs``; by default :func:`vhuman.reaching.wrist_features`).
    The trees are stored as arrays (split feature, threshold, children, leaf
    value) and evaluated in numpy, so a saved model loads without scikit-learn.

    Parameters
    ----------
    max_iter : int
        Boosting iterations (trees per output), ≥ 1.
    learning_rate : float
        Shrinkage of each tree, in (0, 1].
    seed : int
        ``random_state`` of the fit.
    inputs : RotationInput or {"rotvec", "matrix", "shape", "wrist", "swivel"}
        The trees' inputs, as :class:`MLPPredictor`'s ``rotation`` (default
        :func:`vhuman.reaching.wrist_features`).
    palm : bool
        Fit φ relative to :func:`vhuman.reaching.palm_angle` (the targets
        turned back by it, the predictions forward): the palm's angle about
        the shoulder→wrist axis as a prior, the trees learning the rest.
    comfort : ComfortUse or {"none", "inputs", "prior"}
        Fit a :class:`ComfortPredictor` (default settings, this ``seed``) on
        the same samples first and give the trees its (sin φ, cos φ) as two
        more inputs (``"inputs"``), or fit φ relative to its angle as ``palm``
        does to the palm's (``"prior"``).

    Raises
    ------
    InputError
        For a hyper-parameter out of range, other ``inputs`` or ``comfort``,
        or ``palm`` with ``comfort="prior"``.

    Notes
    -----
    Needs scikit-learn (the ``learn`` or ``physics`` extra) to fit.
    """

    kind = "gbm"

    def __init__(
        self,
        max_iter: int = 300,
        *,
        learning_rate: float = 0.1,
        seed: int = 0,
        inputs: RotationInput | str = RotationInput.WRIST,
        palm: bool = False,
        comfort: ComfortUse | str = ComfortUse.NONE,
    ) -> None:
        if comfort not in ComfortUse._value2member_map_:
            allowed = [c.value for c in ComfortUse]
            raise InputError(f"comfort must be one of {allowed}, got {comfort!r}")
        if palm and comfort == ComfortUse.PRIOR:
            raise InputError("palm=True and comfort='prior' are two priors; give one")
        if inputs not in _INPUTS:
            allowed = [r.value for r in RotationInput]
            raise InputError(f"inputs must be one of {allowed}, got {inputs!r}")
        if int(max_iter) != max_iter or max_iter < 1:
            raise InputError(f"max_iter must be an integer ≥ 1, got {max_iter}")
        if not 0.0 < learning_rate <= 1.0:
            raise InputError(f"learning_rate must be in (0, 1], got {learning_rate}")
        self.max_iter = int(max_iter)
        self.learning_rate = float(learning_rate)
        self.seed = int(seed)
        self.inputs = RotationInput(inputs)
        self.palm = bool(palm)
        self.comfort = ComfortUse(comfort)
        self.trees_: dict[str, NDArray[Any]] | None = None
        self.comfort_model_: ComfortPredictor | None = None

    @property
    def fitted(self) -> bool:
        return self.trees_ is not None

    def fit(self, features: ArrayLike, swivel: ArrayLike) -> GradientBoostingPredictor:
        from sklearn.ensemble import HistGradientBoostingRegressor

        x, phi = _check_training(features, swivel)
        if self.comfort is not ComfortUse.NONE:
            self.comfort_model_ = ComfortPredictor(seed=self.seed).fit(x, phi)
        inputs, prior = self._inputs_and_prior(x)
        targets = _unit_targets(phi - prior)
        nodes, baseline = [], []
        for k in range(2):
            est = HistGradientBoostingRegressor(
                max_iter=self.max_iter,
                learning_rate=self.learning_rate,
                l2_regularization=1.0,
                random_state=self.seed,
            ).fit(inputs, targets[:, k])
            baseline.append(float(np.ravel(est._baseline_prediction)[0]))
            nodes.append([tree.nodes for (tree,) in est._predictors])
        self.trees_ = _pack_trees(nodes, np.array(baseline))
        return self

    def _inputs_and_prior(
        self, x: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The trees' inputs (N, F) and the prior angle (N,) [rad] (0 without one)."""
        inputs = _INPUTS[self.inputs](x)
        if self.comfort is ComfortUse.NONE:
            return inputs, palm_angle(x) if self.palm else np.zeros(x.shape[0])
        assert self.comfort_model_ is not None  # fit or _from_state set it
        unit = self.comfort_model_._predict_unit(x)
        if self.comfort is ComfortUse.PRIOR:
            return inputs, _angle(unit)
        unit = unit / np.maximum(np.linalg.norm(unit, axis=1, keepdims=True), 1e-12)
        return np.concatenate([inputs, unit], axis=1), np.zeros(x.shape[0])

    def _predict_unit(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        t = self.trees_
        assert t is not None  # _require_fitted ran first
        inputs, turn = self._inputs_and_prior(x)
        out = np.tile(t["baseline"], (x.shape[0], 1))
        feature, threshold = t["feature_idx"].astype(np.intp), t["num_threshold"]
        left, right = t["left"].astype(np.intp), t["right"].astype(np.intp)
        leaf, value = t["is_leaf"].astype(bool), t["value"]
        rows = np.arange(x.shape[0])[:, None]
        for k in range(2):
            roots = t["roots"][k][t["roots"][k] >= 0].astype(np.intp)
            node = np.broadcast_to(roots, (x.shape[0], roots.size)).copy()
            active = ~leaf[node]
            while active.any():
                go_left = (
                    inputs[np.broadcast_to(rows, node.shape), feature[node]] <= threshold[node]
                )
                node = np.where(active, np.where(go_left, left[node], right[node]), node)
                active = ~leaf[node]
            out[:, k] += value[node].sum(axis=1)
        s, c = np.sin(turn), np.cos(turn)
        return np.stack([out[:, 0] * c + out[:, 1] * s, out[:, 1] * c - out[:, 0] * s], axis=1)

    def _state(self) -> tuple[dict[str, Any], dict[str, NDArray[np.float64]]]:
        assert self.trees_ is not None  # _require_fitted ran first
        header = {
            "max_iter": self.max_iter,
            "learning_rate": self.learning_rate,
            "seed": self.seed,
            "inputs": self.inputs.value,
            "palm": self.palm,
            "comfort": self.comfort.value,
        }
        arrays = dict(self.trees_)
        if self.comfort_model_ is not None:
            comfort_header, comfort_arrays = self.comfort_model_._state()
            header["comfort_model"] = comfort_header
            arrays.update({f"comfort_{k}": v for k, v in comfort_arrays.items()})
        return header, arrays

    @classmethod
    def _from_state(
        cls, header: dict[str, Any], arrays: dict[str, NDArray[np.float64]]
    ) -> GradientBoostingPredictor:
        header = dict(header)
        comfort_header = header.pop("comfort_model", None)
        out = cls(**header)
        if out.comfort is not ComfortUse.NONE:
            if not isinstance(comfort_header, dict):
                raise FileFormatError("saved gradient-boosting predictor lacks its comfort model")
            own = {k[8:]: v for k, v in arrays.items() if k.startswith("comfort_")}
            out.comfort_model_ = ComfortPredictor._from_state(comfort_header, own)
        names = ["baseline", "roots", *_NODE_FIELDS]
        missing = [k for k in names if k not in arrays]
        if missing:
            raise FileFormatError(f"saved gradient-boosting predictor lacks the arrays {missing}")
        out.trees_ = {k: np.asarray(arrays[k]) for k in names}
        return out


def _pack_trees(
    nodes: list[list[NDArray[Any]]], baseline: NDArray[np.float64]
) -> dict[str, NDArray[Any]]:
    """Trees of both outputs as flat node arrays with global child indices and root indices.

    ``roots`` is (2, T), T the larger count of trees: an output whose fit
    stopped early (scikit-learn's early stopping, on above 10,000 samples)
    has its row padded with −1.
    """
    flat: dict[str, list[NDArray[Any]]] = {k: [] for k in _NODE_FIELDS}
    roots, start = [], 0
    for per_output in nodes:
        row = []
        for tree in per_output:
            row.append(start)
            for k, dtype in _NODE_FIELDS.items():
                column = np.asarray(tree[k], dtype=dtype)
                flat[k].append(column + start if k in ("left", "right") else column)
            start += tree.shape[0]
        roots.append(row)
    out = {k: np.concatenate(v) for k, v in flat.items()}
    out["roots"] = np.full((2, max(map(len, roots))), -1, dtype=np.int32)
    for k, row in enumerate(roots):
        out["roots"][k, : len(row)] = row
    out["baseline"] = baseline
    return out


class EnsemblePredictor(SwivelPredictor):
    """The mean of its members' unit vectors (sin φ, cos φ), φ = atan2 of the mean.

    Parameters
    ----------
    members : sequence of SwivelPredictor
        At least one; each is fit on the same samples by :meth:`fit`.

    Raises
    ------
    InputError
        For no members or a member that is itself an ensemble.
    """

    kind = "ensemble"

    def __init__(self, members: list[SwivelPredictor] | tuple[SwivelPredictor, ...]) -> None:
        if not members:
            raise InputError("members must hold at least one SwivelPredictor, got none")
        if any(isinstance(m, EnsemblePredictor) for m in members):
            raise InputError("members must not be ensembles themselves")
        self.members = tuple(members)

    @property
    def fitted(self) -> bool:
        return all(m.fitted for m in self.members)

    def fit(self, features: ArrayLike, swivel: ArrayLike) -> EnsemblePredictor:
        for m in self.members:
            m.fit(features, swivel)
        return self

    def _predict_unit(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        units = np.stack([m._predict_unit(x) for m in self.members])  # (M, N, 2)
        norms = np.linalg.norm(units, axis=-1, keepdims=True)
        return np.mean(units / np.maximum(norms, 1e-12), axis=0)

    def _state(self) -> tuple[dict[str, Any], dict[str, NDArray[np.float64]]]:
        headers, arrays = [], {}
        for i, m in enumerate(self.members):
            header, weights = m._state()
            headers.append({"kind": m.kind, **header})
            arrays.update({f"m{i}_{k}": v for k, v in weights.items()})
        return {"members": headers}, arrays

    @classmethod
    def _from_state(
        cls, header: dict[str, Any], arrays: dict[str, NDArray[np.float64]]
    ) -> EnsemblePredictor:
        members = []
        for i, h in enumerate(header["members"]):
            sub = dict(h)
            kind = sub.pop("kind", None)
            if kind not in SwivelPredictor._registry or kind == cls.kind:
                raise FileFormatError(
                    f"ensemble member kind must be a predictor kind, got {kind!r}"
                )
            prefix = f"m{i}_"
            own = {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
            members.append(SwivelPredictor._registry[kind]._from_state(sub, own))
        return cls(members)


def evaluate(predictor: SwivelPredictor, dataset: SwivelDataset) -> dict[str, Any]:
    """Errors of ``predictor`` on ``dataset``, angular differences wrapped to [−π, π].

    Returns
    -------
    dict
        ``n``; ``mae_deg``, ``rmse_deg`` [°], ``mse_deg2`` [°²]; ``mae_rad``,
        ``rmse_rad`` [rad], ``mse_rad2`` [rad²]; and ``per_activity``: for each
        activity ``{"n", "mae_deg", "rmse_deg"}``.

    Raises
    ------
    InputError
        If the predictor is not fitted or the dataset is empty.
    """
    if len(dataset) == 0:
        raise InputError("dataset must hold at least one sample to evaluate, got 0")
    err = wrap_angle(predictor.predict(dataset.features) - dataset.swivel)

    def summary(e: NDArray[np.float64]) -> dict[str, float]:
        mse = float(np.mean(e**2))
        return {
            "n": int(e.size),
            "mae_deg": float(np.degrees(np.mean(np.abs(e)))),
            "rmse_deg": float(np.degrees(np.sqrt(mse))),
            "mse_deg2": float(np.degrees(1.0) ** 2 * mse),
            "mae_rad": float(np.mean(np.abs(e))),
            "rmse_rad": float(np.sqrt(mse)),
            "mse_rad2": mse,
        }

    out: dict[str, Any] = summary(err)
    out["per_activity"] = {
        str(a): {
            k: v
            for k, v in summary(err[dataset.activity == a]).items()
            if k in {"n", "mae_deg", "rmse_deg"}
        }
        for a in np.unique(dataset.activity)
    }
    return out
