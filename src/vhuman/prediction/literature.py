"""The published CMU motion-prediction protocol (LTD, MSR-GCN, PGBIG), exactly.

The motion-prediction literature evaluates on CMU exp-map trials as its
reference code does (``data/cmu_mocap/README.md`` of the shared data):

- every second frame of each file is kept (60 fps), frame 0 included;
- global translation and rotation are removed (root at the origin);
- a window is 10 observed and 25 predicted poses; errors are reported at the
  frames :data:`~vhuman.prediction.data.HORIZON_FRAMES` after the last observed
  pose, labelled 80 … 1000 ms as at 25 fps (really 33 … 417 ms);
- the networks predict 25 joints; the other 13 are filled in
  (:data:`FILLED_FROM_TRUTH` from the ground truth, :data:`FILLED_FROM_JOINT`
  from the predicted joint they duplicate) and the per-joint L2 distance [mm]
  is averaged over **all 38 joints**: the six joints taken from the ground
  truth add zero error and the seven duplicates repeat their source joint's
  error, so this is not the 25-joint average the models are trained on;
- the error is averaged over the windows of each action, then over actions.

Windows (:class:`WindowRule`): MSR-GCN and PGBIG take every window of every
file (``all``); LTD takes 8 per file (``ltd8``): a fresh
``numpy.random.RandomState(1234567890)`` for each file, ``start =
randint(0, n − 75)`` on the 60 fps sequence of ``n`` frames, window
``seq[start + 40 : start + 75]``.

Actions are the sub-folder of each file, or, for files directly in the data
folder, the file name without its trailing ``_<k>`` number.

References
----------
Mao, W., Liu, M., Salzmann, M., Li, H. (2019). Learning trajectory
dependencies for human motion prediction. ICCV. (LTD)

Dang, L., Nie, Y., Long, C., Zhang, Q., Li, G. (2021). MSR-GCN: Multi-scale
residual graph convolution networks for human motion prediction. ICCV.

Ma, T., Nie, Y., Long, C., Zhang, Q., Li, G. (2022). Progressively generating
better initial guesses towards next stages for high-quality human motion
prediction. CVPR. (PGBIG)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import InputError
from vhuman.prediction.data import HORIZON_FRAMES, HORIZONS_MS, PoseSequences, Windows
from vhuman.prediction.evaluation import predict_windows
from vhuman.prediction.models import MotionPredictor

__all__ = [
    "FILLED_FROM_JOINT",
    "FILLED_FROM_TRUTH",
    "LITERATURE_N_FUTURE",
    "LITERATURE_N_OBSERVED",
    "LTD_SEED",
    "PUBLISHED_MPJPE_MM",
    "EvaluationProtocol",
    "LiteratureResult",
    "WindowRule",
    "evaluate_literature",
    "fill_joints",
    "literature_actions",
    "literature_windows",
    "parse_choice",
    "window_errors",
]

LITERATURE_N_OBSERVED = 10
"""Observed poses per window."""
LITERATURE_N_FUTURE = 25
"""Predicted poses per window."""
N_CMU_JOINTS = 38
FILLED_FROM_TRUTH = (0, 1, 2, 7, 8, 13)
"""Joints taken from the ground truth (they never move relative to the root)."""
FILLED_FROM_JOINT = {16: 15, 20: 15, 29: 15, 24: 23, 27: 23, 33: 32, 36: 32}
"""Joint → the predicted joint whose position it takes (zero-offset duplicates)."""
LTD_SEED = 1234567890
"""Random seed of LTD's window choice, made anew for each file."""
_LTD_WINDOWS = 8
_LTD_SOURCE_LEN = 50  # LTD's source sequence: the window is its last 10 poses + 25 more
PUBLISHED_MPJPE_MM = {
    "LTD (Mao et al. 2019)": (11.6, 20.7, 37.4, 44.9, 57.6, 81.1),
    "MSR-GCN (Dang et al. 2021)": (10.1, 18.2, 34.0, 41.8, 55.2, 78.4),
    "PGBIG (Ma et al. 2022)": (9.7, 18.1, 34.4, 41.9, 54.4, 76.8),
}
"""Published CMU averages [mm] at :data:`~vhuman.prediction.data.HORIZONS_MS` (38 joints)."""
_TRIAL_NUMBER = re.compile(r"_?\d+$")
_E = TypeVar("_E", bound=StrEnum)


class EvaluationProtocol(StrEnum):
    """How ``vhuman predict evaluate`` scores models."""

    VALIDATION = "validation"
    """The held-out trials, windows every 5 frames (:func:`~vhuman.prediction.evaluate`)."""
    LITERATURE = "literature"
    """Every file by the published protocol (:func:`evaluate_literature`)."""


class WindowRule(StrEnum):
    """Which windows of each file are scored."""

    ALL = "all"
    """Every window (MSR-GCN, PGBIG)."""
    LTD8 = "ltd8"
    """Eight seeded windows per file (LTD)."""


def literature_actions(sequences: PoseSequences) -> tuple[str, ...]:
    """The action of each trial: its folder, or its name without ``_<k>`` if all share one.

    Files in one folder whose names (without the trailing ``_<k>``) differ are
    a flat folder of several actions; otherwise the folder is the action.

    Returns
    -------
    tuple of str, length K
    """
    folders = set(sequences.actions)
    stems = [_TRIAL_NUMBER.sub("", t.rsplit("/", 1)[-1]) for t in sequences.trials]
    if len(folders) == 1 and len(set(stems)) > 1:
        names = [t.rsplit("/", 1)[-1] for t in sequences.trials]
        return tuple(s or n for s, n in zip(stems, names, strict=True))
    return tuple(sequences.actions)


def literature_windows(sequences: PoseSequences, rule: WindowRule | str) -> Windows:
    """The protocol's windows of every trial of ``sequences`` (see the module notes).

    Raises
    ------
    InputError
        For an unknown rule, or a trial too short for one window (35 poses;
        ``ltd8``: 76).
    """
    rule = _rule(rule)
    length = LITERATURE_N_OBSERVED + LITERATURE_N_FUTURE
    need = length if rule is WindowRule.ALL else _LTD_SOURCE_LEN + LITERATURE_N_FUTURE + 1
    starts, trial = [], []
    for k in range(sequences.n_trials):
        a, b = int(sequences.trial_starts[k]), int(sequences.trial_starts[k + 1])
        n = b - a
        if n < need:
            raise InputError(
                f"{sequences.trials[k]}: {n} poses after keeping every second frame; the "
                f"protocol's {rule.value} windows need at least {need}"
            )
        if rule is WindowRule.ALL:
            s = np.arange(n - length + 1)
        else:
            rng = np.random.RandomState(LTD_SEED)
            s = np.array(
                [
                    rng.randint(0, n - _LTD_SOURCE_LEN - LITERATURE_N_FUTURE)
                    for _ in range(_LTD_WINDOWS)
                ]
            )
            s = s + _LTD_SOURCE_LEN - LITERATURE_N_OBSERVED
        starts.append(a + s)
        trial.append(np.full(len(s), k))
    return Windows(
        np.concatenate([np.zeros(0, np.intp), *starts]).astype(np.intp),
        np.concatenate([np.zeros(0, np.intp), *trial]).astype(np.intp),
        LITERATURE_N_OBSERVED,
        LITERATURE_N_FUTURE,
    )


def fill_joints(pred: NDArray, true: NDArray) -> NDArray[np.float64]:
    """Predicted positions with the 13 joints the networks do not predict filled in.

    Parameters
    ----------
    pred, true : ndarray, shape (..., 38, 3)
        Predicted and true root-relative positions.

    Returns
    -------
    ndarray, shape (..., 38, 3)
        ``pred`` with :data:`FILLED_FROM_TRUTH` from ``true`` and each joint of
        :data:`FILLED_FROM_JOINT` at its source joint's predicted position.
    """
    out = np.array(pred, dtype=np.float64)
    out[..., FILLED_FROM_TRUTH, :] = np.asarray(true)[..., FILLED_FROM_TRUTH, :]
    dst = list(FILLED_FROM_JOINT)
    out[..., dst, :] = out[..., [FILLED_FROM_JOINT[j] for j in dst], :]
    return out


def window_errors(pred: NDArray, true: NDArray) -> NDArray[np.float64]:
    """Mean per-joint position error [mm] of each window and frame, over all 38 joints.

    Parameters
    ----------
    pred, true : ndarray, shape (W, T, 38, 3)
        Positions [m]; ``pred`` is filled in by :func:`fill_joints` first.

    Returns
    -------
    ndarray, shape (W, T)
    """
    filled = fill_joints(pred, true)
    return 1000.0 * np.linalg.norm(filled - np.asarray(true), axis=-1).mean(axis=-1)


@dataclass(frozen=True)
class LiteratureResult:
    """Scores of several models on the protocol's windows.

    Attributes
    ----------
    rule : WindowRule
    windows : dict
        Action → number of windows.
    per_action : dict
        Model → action → MPJPE [mm] at each horizon.
    sample_fps : float
        True frame rate of the kept frames [frames/s].
    """

    rule: WindowRule
    windows: dict[str, int]
    per_action: dict[str, dict[str, tuple[float, ...]]]
    sample_fps: float

    def mpjpe_mm(self, model: str) -> tuple[float, ...]:
        """The mean over actions of the per-action MPJPE [mm] at each horizon."""
        rows = np.array(list(self.per_action[model].values()))
        return tuple(float(v) for v in rows.mean(axis=0))

    @property
    def horizons_true_ms(self) -> tuple[float, ...]:
        """True time of each horizon [ms]."""
        return tuple(1000.0 * h / self.sample_fps for h in HORIZON_FRAMES)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (``vhuman predict evaluate --protocol literature --json``)."""
        return {
            "protocol": "literature",
            "windows_rule": self.rule.value,
            "windows": sum(self.windows.values()),
            "windows_per_action": self.windows,
            "horizons_ms": list(HORIZONS_MS),
            "horizon_frames": list(HORIZON_FRAMES),
            "horizons_true_ms": [round(t, 1) for t in self.horizons_true_ms],
            "joints": N_CMU_JOINTS,
            "models": {
                name: {
                    "mpjpe_mm": list(self.mpjpe_mm(name)),
                    "per_action": {a: {"mpjpe_mm": list(v)} for a, v in rows.items()},
                }
                for name, rows in self.per_action.items()
            },
            "published": {k: list(v) for k, v in PUBLISHED_MPJPE_MM.items()},
        }


def evaluate_literature(
    models: Mapping[str, MotionPredictor],
    sequences: PoseSequences,
    rule: WindowRule | str = WindowRule.ALL,
    *,
    batch: int = 256,
    progress: Callable[[str], None] | None = None,
) -> LiteratureResult:
    """Score ``models`` on every trial of ``sequences`` by the published protocol.

    Parameters
    ----------
    models : mapping of str to MotionPredictor
        Predictors of 10 → 25 poses on the 38-joint CMU skeleton.
    sequences : PoseSequences
        CMU trials, every second frame kept (:func:`~vhuman.prediction.data.load_cmu_sequences`).
    rule : WindowRule or str
        ``all`` or ``ltd8``.

    Raises
    ------
    InputError
        If the data are not CMU trials, a model's window lengths are not 10 → 25,
        or a trial is too short.
    """
    rule = _rule(rule)
    if not models:
        raise InputError("the literature protocol needs at least one model")
    if sequences.skeleton.n_joints != N_CMU_JOINTS or not sequences.source.startswith("cmu"):
        raise InputError(
            f"the literature protocol scores CMU exp-map files (38 joints); got {sequences.source} "
            f"with {sequences.skeleton.n_joints} joints"
        )
    for name, m in models.items():
        if (m.n_observed, m.n_future) != (LITERATURE_N_OBSERVED, LITERATURE_N_FUTURE):
            raise InputError(
                f"model {name!r} predicts {m.n_observed} → {m.n_future} poses; the literature "
                f"protocol needs {LITERATURE_N_OBSERVED} → {LITERATURE_N_FUTURE}"
            )
    windows = literature_windows(sequences, rule)
    trial_action = np.asarray(literature_actions(sequences))
    action = trial_action[windows.trial]
    names = sorted(set(action.tolist()))
    true = sequences.positions[windows.frame_index()[:, LITERATURE_N_OBSERVED:]]
    h_idx = np.asarray(HORIZON_FRAMES) - 1
    per_action: dict[str, dict[str, tuple[float, ...]]] = {}
    for name, model in models.items():
        if progress is not None:
            progress(name)
        _, pred = predict_windows(model, sequences, windows, batch)
        err = window_errors(pred, true)[:, h_idx]  # (W, 6)
        per_action[name] = {
            a: tuple(float(v) for v in err[action == a].mean(axis=0)) for a in names
        }
    counts = {a: int((action == a).sum()) for a in names}
    return LiteratureResult(rule, counts, per_action, sequences.sample_fps)


def parse_choice(enum: type[_E], value: str, name: str) -> _E:
    """``value`` as a member of ``enum``.

    Raises
    ------
    InputError
        Naming ``name`` and the allowed values, if ``value`` is none of them.
    """
    try:
        return enum(value)
    except ValueError:
        allowed = ", ".join(e.value for e in enum)
        raise InputError(f"{name} must be one of {allowed}; got {value!r}") from None


def _rule(rule: WindowRule | str) -> WindowRule:
    return parse_choice(WindowRule, rule, "--windows")
