"""Scoring predictors on held-out windows, and predicting the future of one motion.

:func:`evaluate` runs every predictor on the same validation windows and
reports, per model, MPJPE and the Euler-angle error at the protocol's horizons
(averaged and per action), foot skating, bone-length drift and the inference
time per sequence; see :mod:`vhuman.prediction.metrics` for the definitions
and :mod:`vhuman.prediction.data` for the joint sets.

:func:`predict_motion` continues a :class:`~vhuman.skeleton.Motion`: the body
pose from the model, the root (translation and rotation, which the protocol
removes) extrapolated at the pace of the last half second observed
(:mod:`vhuman.prediction.root`).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray

from vhuman.errors import InputError
from vhuman.geometry import (
    quat_apply,
)
from vhuman.prediction.data import (
    CMU_DOWNSAMPLE,
    HORIZON_FRAMES,
    HORIZONS_MS,
    PoseSequences,
    Windows,
    motion_pose_arrays,
)
from vhuman.prediction.files import ModelInfo
from vhuman.prediction.metrics import bone_length_drift, euler_error, foot_skating, mpjpe
from vhuman.prediction.models import MotionPredictor
from vhuman.prediction.root import extrapolate_root
from vhuman.prediction.sampling import batch_tensors
from vhuman.skeleton import Motion

__all__ = [
    "EvaluationResult",
    "ModelScores",
    "evaluate",
    "predict_motion",
    "predict_windows",
    "validation_windows",
]

VALIDATION_STRIDE = 5
"""Validation windows start every 5 kept frames (deterministic, all trials held out)."""


@dataclass(frozen=True)
class ModelScores:
    """One model's scores on the evaluation windows.

    Attributes
    ----------
    mpjpe_mm : tuple of float
        MPJPE [mm] at each horizon.
    euler_error_rad : tuple of float or None
        Euler-angle error [rad] at each horizon; None for position-only models.
    per_action : dict
        ``action → {"mpjpe_mm": [...], "euler_error_rad": [...] | None, "windows": n}``.
    foot_skate_mm_s : float
        Foot skating of the predicted frames [mm/s].
    bone_drift_mm : float
        Bone-length drift of the predicted frames [mm].
    inference_ms : float
        Wall time per sequence, batch of one, this process's threads [ms].
    """

    mpjpe_mm: tuple[float, ...]
    euler_error_rad: tuple[float, ...] | None
    per_action: dict[str, dict[str, Any]]
    foot_skate_mm_s: float
    bone_drift_mm: float
    inference_ms: float

    @property
    def mean_mpjpe_mm(self) -> float:
        """MPJPE averaged over the horizons [mm]."""
        return float(np.mean(self.mpjpe_mm))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "mpjpe_mm": list(self.mpjpe_mm),
            "mpjpe_mean_mm": self.mean_mpjpe_mm,
            "euler_error_rad": None if self.euler_error_rad is None else list(self.euler_error_rad),
            "per_action": self.per_action,
            "foot_skate_mm_s": self.foot_skate_mm_s,
            "bone_drift_mm": self.bone_drift_mm,
            "inference_ms": self.inference_ms,
        }


@dataclass(frozen=True)
class EvaluationResult:
    """Scores of several models on the same windows.

    Attributes
    ----------
    models : dict
        Model name → :class:`ModelScores`.
    windows : int
    horizons_ms : tuple of int
        Horizon labels (as at 25 fps, the protocol's).
    horizon_frames : tuple of int
    sample_fps : float
        True frame rate of the evaluated frames.
    horizons_true_ms : tuple of float
        The true time of each horizon, ``1000 · frames / sample_fps`` [ms]
        (33 … 417 ms on the CMU files: 120 fps, every second frame kept).
    joints : dict
        Names of the position joints (MPJPE) and angle joints (Euler error).
    protocol : str
    foot_skate_truth_mm_s : float
        Foot skating of the true future frames, for reference.
    """

    models: dict[str, ModelScores]
    windows: int
    horizons_ms: tuple[int, ...] = HORIZONS_MS
    horizon_frames: tuple[int, ...] = HORIZON_FRAMES
    sample_fps: float = 0.0
    joints: dict[str, list[str]] = field(default_factory=dict)
    protocol: str = ""
    foot_skate_truth_mm_s: float = float("nan")

    @property
    def horizons_true_ms(self) -> tuple[float, ...]:
        """True time of each horizon [ms] at :attr:`sample_fps`."""
        if self.sample_fps <= 0.0:
            return tuple(float("nan") for _ in self.horizon_frames)
        return tuple(1000.0 * h / self.sample_fps for h in self.horizon_frames)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the ``vhuman predict evaluate --json`` object)."""
        return {
            "horizons_ms": list(self.horizons_ms),
            "horizon_frames": list(self.horizon_frames),
            "horizons_true_ms": [round(t, 1) for t in self.horizons_true_ms],
            "windows": self.windows,
            "sample_fps": self.sample_fps,
            "protocol": self.protocol,
            "joints": self.joints,
            "foot_skate_truth_mm_s": self.foot_skate_truth_mm_s,
            "models": {k: v.to_dict() for k, v in self.models.items()},
        }


def validation_windows(sequences: PoseSequences, model: MotionPredictor) -> Windows:
    """The validation windows for ``model``'s lengths, every :data:`VALIDATION_STRIDE` frames."""
    return sequences.windows(
        split="validation",
        n_observed=model.n_observed,
        n_future=model.n_future,
        stride=VALIDATION_STRIDE,
    )


@torch.no_grad()
def predict_windows(
    model: MotionPredictor, sequences: PoseSequences, windows: Windows, batch: int = 256
) -> tuple[NDArray | None, NDArray]:
    """The model's predictions for ``windows``, ``batch`` windows at a time.

    Returns
    -------
    rotations : ndarray, shape (W, n_future, J, 4), or None
        Local rotations; None for a model that predicts positions only.
    positions : ndarray, shape (W, n_future, J, 3)
        Root-relative positions [m].
    """
    model.eval()
    qs, ps = [], []
    n = model.n_observed
    for a in range(0, len(windows), batch):
        q, p = batch_tensors(sequences, windows, slice(a, a + batch))
        pred = model(q[:, :n], p[:, :n])
        ps.append(pred.positions.numpy().astype(np.float64))
        if pred.rotations is not None:
            qs.append(pred.rotations.numpy().astype(np.float64))
    return (np.concatenate(qs) if qs else None), np.concatenate(ps)


@torch.no_grad()
def _inference_ms(model: MotionPredictor, q: torch.Tensor, p: torch.Tensor, runs: int) -> float:
    model(q, p)  # warm-up
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        model(q, p)
        times.append(time.perf_counter() - t0)
    return 1000.0 * float(np.median(times))


def _feet(sequences: PoseSequences, position_joints: Sequence[int]) -> NDArray[np.intp]:
    rest = sequences.skeleton.rest_positions()[:, 2]
    cand = np.asarray(position_joints)
    return cand[rest[cand] <= rest[cand].min() + 0.03]


def evaluate(
    models: Mapping[str, MotionPredictor],
    sequences: PoseSequences,
    *,
    batch: int = 256,
    timing_runs: int = 20,
    progress: Callable[[str], None] | None = None,
) -> EvaluationResult:
    """Score ``models`` on the validation windows of ``sequences`` (see the module notes).

    All models must share window lengths and joint sets (the first one's are used).

    Raises
    ------
    InputError
        If there are no models, they disagree, or there are no validation windows.
    """
    if not models:
        raise InputError("evaluate needs at least one model")
    first = next(iter(models.values()))
    for name, m in models.items():
        if (m.n_observed, m.n_future, m.position_joints, m.angle_joints) != (
            first.n_observed,
            first.n_future,
            first.position_joints,
            first.angle_joints,
        ) or m.n_joints != sequences.skeleton.n_joints:
            raise InputError(
                f"model {name!r} does not match the others or the data's skeleton "
                "(window lengths, joint sets, joint count)"
            )
    windows = validation_windows(sequences, first)
    if len(windows) == 0:
        raise InputError(f"no validation windows in {sequences.source}")
    horizons = [h for h in HORIZON_FRAMES if h <= first.n_future]
    h_idx = np.asarray(horizons) - 1
    frames = windows.frame_index()
    fut = frames[:, first.n_observed :]
    q_true = sequences.local_rotations[fut].copy()
    q_true[..., 0, :] = (1.0, 0.0, 0.0, 0.0)
    p_true = sequences.positions[fut]
    root_p = sequences.root_positions[fut]
    root_q = sequences.local_rotations[fut][..., 0, :]
    feet = _feet(sequences, first.position_joints)
    world_feet = (
        quat_apply(
            sequences.local_rotations[frames][..., None, 0, :],
            sequences.positions[frames][..., feet, :],
        )
        + sequences.root_positions[frames][:, :, None]
    )
    floor = world_feet[..., 2].min(axis=(1, 2))  # (W,) lowest true foot of each window
    actions = np.asarray(sequences.actions)[windows.trial]
    pj, aj = first.position_joints, first.angle_joints
    q1, p1 = batch_tensors(sequences, windows, slice(0, 1))
    scores = {}
    sk = sequences.skeleton
    for name, model in models.items():
        if progress is not None:
            progress(name)
        q_pred, p_pred = predict_windows(model, sequences, windows, batch)
        per_action = {}
        for a in sorted(set(actions)):
            sel = actions == a
            per_action[a] = {
                "mpjpe_mm": mpjpe(p_pred[sel], p_true[sel], pj)[h_idx].tolist(),
                "euler_error_rad": None
                if q_pred is None
                else euler_error(q_pred[sel], q_true[sel], aj)[h_idx].tolist(),
                "windows": int(sel.sum()),
            }
        scores[name] = ModelScores(
            tuple(mpjpe(p_pred, p_true, pj)[h_idx].tolist()),
            None if q_pred is None else tuple(euler_error(q_pred, q_true, aj)[h_idx].tolist()),
            per_action,
            foot_skating(p_pred, root_p, root_q, feet, sequences.sample_fps, floor=floor),
            bone_length_drift(p_pred, sk.parents, sk.offsets),
            _inference_ms(model, q1[:, : model.n_observed], p1[:, : model.n_observed], timing_runs),
        )
    downsample = (
        f"every {CMU_DOWNSAMPLE}nd frame of the CMU files"
        if sequences.source.startswith("cmu")
        else "resampled to 25 fps"
    )
    true_ms = ", ".join(f"{1000.0 * h / sequences.sample_fps:.0f}" for h in horizons)
    return EvaluationResult(
        scores,
        len(windows),
        tuple(HORIZONS_MS[HORIZON_FRAMES.index(h)] for h in horizons),
        tuple(horizons),
        sequences.sample_fps,
        {"position": [sk.names[j] for j in pj], "angle": [sk.names[j] for j in aj]},
        f"{first.n_observed} observed → {first.n_future} predicted poses, {downsample}; "
        f"horizons are frames {', '.join(map(str, horizons))} after the last observed one, "
        f"labelled as at 25 fps (protocol); at the data's true {sequences.sample_fps:g} fps "
        f"they are {true_ms} ms; global translation and rotation removed; "
        f"validation trials held out whole, windows every {VALIDATION_STRIDE} frames",
        foot_skating(p_true, root_p, root_q, feet, sequences.sample_fps, floor=floor),
    )


def predict_motion(
    model: MotionPredictor, info: ModelInfo, motion: Motion, n_frames: int | None = None
) -> Motion:
    """The ``n_frames`` poses that follow ``motion``, at the model's frame rate.

    ``motion`` is resampled to ``info.sample_fps`` and its last
    ``model.n_observed`` frames are observed. Predictions longer than the
    model's horizon are made by feeding predictions back in. The model
    predicts the body's pose; the root's path is extrapolated by
    :func:`~vhuman.prediction.root.extrapolate_root` (the horizontal velocity
    and turning rate of the last half second, height and tilt held).

    Raises
    ------
    InputError
        If the motion's skeleton is not the model's (joint names and parents),
        is too short, or ``n_frames`` < 1.
    """
    sk = motion.skeleton
    names = tuple(info.joint_names)
    if sk.names != names or list(sk.parents) != list(model.fk.parents):
        raise InputError(
            f"the input has a skeleton of {sk.n_joints} joints ({', '.join(sk.names[:3])}, ...); "
            f"this model predicts motions of its own {len(names)}-joint skeleton "
            f"({', '.join(names[:3])}, ...), trained on {info.data or 'its data'}"
        )
    n_frames = model.n_future if n_frames is None else int(n_frames)
    if n_frames < 1:
        raise InputError(f"frames must be an integer ≥ 1, got {n_frames}")
    m = motion.resample(info.sample_fps) if abs(motion.fps - info.sample_fps) > 1e-9 else motion
    n_obs = model.n_observed
    if m.n_frames < n_obs:
        raise InputError(
            f"the input has {m.n_frames} frames at {info.sample_fps:g} fps "
            f"({motion.n_frames} at {motion.fps:g} fps); the model observes {n_obs}"
        )
    q_all, p_all = motion_pose_arrays(m[m.n_frames - n_obs :])
    q_all[:, 0] = (1.0, 0.0, 0.0, 0.0)
    q_hist = torch.from_numpy(q_all.astype(np.float32))[None]
    p_hist = torch.from_numpy(p_all.astype(np.float32))[None]
    out: list[NDArray] = []
    done = 0
    with torch.no_grad():
        model.eval()
        while done < n_frames:
            pred = model(q_hist[:, -n_obs:], p_hist[:, -n_obs:])
            if pred.rotations is None:
                raise InputError(f"a {str(model.kind)!r} model predicts positions only; no motion")
            out.append(pred.rotations[0].numpy().astype(np.float64))
            q_hist = torch.cat([q_hist, pred.rotations], dim=1)
            p_hist = torch.cat([p_hist, pred.positions], dim=1)
            done += model.n_future
    q_future = np.concatenate(out)[:n_frames]
    # The models predict root-relative poses; the root goes on at the observed pace.
    root, q_future[:, 0] = extrapolate_root(
        m.root_positions, m.local_rotations[:, 0], info.sample_fps, n_frames
    )
    return Motion(sk, info.sample_fps, root, q_future)
