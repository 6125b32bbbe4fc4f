"""`MotionErgonomics`: REBA and RULA of every frame of a recording, with time per action level.

One call measures the body angles of all frames at once (batched forward
kinematics), scores both methods on the whole batch, and summarises: seconds
spent in each action level and the worst frame of each method with its pose.
"""

from __future__ import annotations

import io
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vhuman.ergonomics.angles import SIDES, BodyAngles, body_angles
from vhuman.ergonomics.body_map import BodyMap, default_body_map
from vhuman.ergonomics.factors import WorkFactors
from vhuman.ergonomics.reba import REBA_ACTION, REBAResult, assess_reba
from vhuman.ergonomics.rula import RULA_ACTION, RULAResult, assess_rula
from vhuman.ergonomics.thresholds import PostureThresholds
from vhuman.errors import InputError
from vhuman.skeleton.motion import Motion

__all__ = ["REBA_LEVELS", "RULA_LEVELS", "MotionErgonomics", "assess_motion"]

REBA_LEVELS: tuple[str, ...] = tuple(
    f"{i} {risk} (REBA {span})"
    for i, ((risk, _), span) in enumerate(
        zip(REBA_ACTION, ("1", "2-3", "4-7", "8-10", "11-15"), strict=True)
    )
)
"""Labels of REBA action levels 0-4."""
RULA_LEVELS: tuple[str, ...] = tuple(
    f"{i + 1} (RULA {span})" for i, span in enumerate(("1-2", "3-4", "5-6", "7"))
)
"""Labels of RULA action levels 1-4."""


@dataclass(frozen=True, eq=False)
class MotionErgonomics:
    """REBA and RULA of each frame of a motion (T frames).

    Attributes
    ----------
    fps : float
        Frame rate [1/s]; each frame counts ``1 / fps`` seconds.
    angles : BodyAngles
        Measured angles, batch shape ``(T,)``.
    reba : REBAResult
    rula : RULAResult
    factors : WorkFactors
    thresholds : PostureThresholds
    """

    fps: float
    angles: BodyAngles
    reba: REBAResult
    rula: RULAResult
    factors: WorkFactors
    thresholds: PostureThresholds

    @property
    def n_frames(self) -> int:
        """Number of frames T."""
        return int(self.reba.score.shape[0])

    @property
    def times(self) -> NDArray[np.float64]:
        """Time of each frame [s], shape (T,)."""
        return np.arange(self.n_frames) / self.fps

    def time_by_action_level(self) -> dict[str, dict[str, float]]:
        """Seconds spent in each action level, per method (every level listed, zeros too)."""
        dt = 1.0 / self.fps
        reba = np.bincount(self.reba.action_level, minlength=5) * dt
        rula = np.bincount(self.rula.action_level - 1, minlength=4) * dt
        return {
            "reba": {label: float(s) for label, s in zip(REBA_LEVELS, reba, strict=True)},
            "rula": {label: float(s) for label, s in zip(RULA_LEVELS, rula, strict=True)},
        }

    def _pose(self, frame: int) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self.angles):
            v = getattr(self.angles, f.name)[frame]
            if f.name in BodyAngles.LENGTHS:
                out[f"{f.name}_m"] = np.round(v, 4).tolist()
            else:
                out[f"{f.name}_deg"] = np.round(np.degrees(v), 2).tolist()
        return out

    def worst(self) -> dict[str, dict[str, Any]]:
        """The first frame with the highest score of each method: frame, time, score, side,
        action level, the worksheet's scores of that frame and its pose (angles in degrees)."""
        out: dict[str, dict[str, Any]] = {}
        for name, result in (("reba", self.reba), ("rula", self.rula)):
            k = int(np.argmax(result.score))
            out[name] = {
                "frame": k,
                "time_s": k / self.fps,
                "score": int(result.score[k]),
                "side": SIDES[int(result.side[k])],
                "action_level": int(result.action_level[k]),
                "scores": _frame_scores(result, k),
                "pose": self._pose(k),
            }
        return out

    def to_dict(self, *, per_frame: bool = True) -> dict[str, Any]:
        """JSON-ready summary; ``per_frame`` adds every frame's scores (columns of lists)."""
        out: dict[str, Any] = {
            "frames": self.n_frames,
            "fps": self.fps,
            "duration_s": self.n_frames / self.fps,
            "factors": self.factors.to_dict(),
            "sides": list(SIDES),
            "time_by_action_level_s": self.time_by_action_level(),
            "worst": self.worst(),
        }
        for name, result, action in (
            ("reba", self.reba, REBA_ACTION),
            ("rula", self.rula, RULA_ACTION),
        ):
            out[name] = {
                "method": result.to_dict()["method"] if per_frame else _method(name),
                "max_score": int(result.score.max()),
                "mean_score": float(result.score.mean()),
                "actions": [str(a) for a in action],
            }
            if per_frame:
                d = result.to_dict()
                d.pop("method")
                d.pop("sides")
                out[name]["per_frame"] = d
        return out

    def to_csv(self) -> str:
        """One row per frame: time, every intermediate score of both methods (``_left``/``_right``
        for per-side scores), every adjustment (0/1) and the measured angles (degrees, metres)."""
        cols: dict[str, NDArray[Any]] = {
            "frame": np.arange(self.n_frames),
            "time_s": self.times,
        }
        for name, result in (("reba", self.reba), ("rula", self.rula)):
            for f in fields(result):
                v = getattr(result, f.name)
                if isinstance(v, dict):
                    for k, a in v.items():
                        _add(cols, f"{name}_{k}", np.asarray(a).astype(np.int64), self.n_frames)
                else:
                    _add(cols, f"{name}_{f.name}", np.asarray(v), self.n_frames)
        for f in fields(self.angles):
            v = getattr(self.angles, f.name)
            if f.name in BodyAngles.LENGTHS:
                _add(cols, f"{f.name}_m", v, self.n_frames)
            else:
                _add(cols, f"{f.name}_deg", np.degrees(v), self.n_frames)
        header = ",".join(cols)
        table = np.column_stack([c.astype(np.float64) for c in cols.values()])
        ints = [np.issubdtype(c.dtype, np.integer) or c.dtype == bool for c in cols.values()]
        fmt = ["%d" if i else "%.6g" for i in ints]
        buf = io.StringIO()
        np.savetxt(buf, table, fmt=fmt, delimiter=",", header=header, comments="")
        return buf.getvalue()


def _method(name: str) -> str:
    return (
        "REBA (Hignett & McAtamney 2000)" if name == "reba" else "RULA (McAtamney & Corlett 1993)"
    )


def _add(cols: dict[str, NDArray[Any]], name: str, v: NDArray[Any], n: int) -> None:
    if v.ndim == 0:
        cols[name] = np.full(n, v)
    elif v.ndim == 1:
        cols[name] = v
    else:
        for i, side in enumerate(SIDES):
            cols[f"{name}_{side}"] = v[:, i]


def _frame_scores(result: REBAResult | RULAResult, k: int) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for f in fields(result):
        v = getattr(result, f.name)
        if isinstance(v, dict):
            out[f.name] = {key: np.asarray(a)[k].tolist() for key, a in v.items()}
        elif isinstance(v, np.ndarray):
            out[f.name] = v[k].tolist()
        else:
            out[f.name] = v
    return out


def assess_motion(
    motion: Motion,
    factors: WorkFactors | None = None,
    *,
    thresholds: PostureThresholds | None = None,
    body_map: BodyMap | None = None,
) -> MotionErgonomics:
    """REBA and RULA of every frame of ``motion``, both sides, vectorised over the frames.

    Parameters
    ----------
    motion : Motion
        T frames of a skeleton that ``body_map`` describes.
    factors : WorkFactors, optional
        Load, coupling, activity, supports; default: none.
    thresholds : PostureThresholds, optional
        When an angle counts as twisted, abducted, ...
    body_map : BodyMap, optional
        Default: the built-in map that fits the skeleton.

    Raises
    ------
    UnknownJointError
        If the skeleton lacks joints that REBA and RULA need (the message lists them).
    InputError
        For a ``motion`` that is not a Motion or invalid factors.
    """
    if not isinstance(motion, Motion):
        raise InputError(f"motion must be a Motion, got {type(motion).__name__}")
    f = WorkFactors() if factors is None else factors
    if not isinstance(f, WorkFactors):
        raise InputError(f"factors must be WorkFactors, got {type(f).__name__}")
    th = PostureThresholds() if thresholds is None else thresholds
    body_map = default_body_map(motion.skeleton) if body_map is None else body_map
    angles = body_angles(motion, body_map=body_map)
    return MotionErgonomics(
        fps=float(motion.fps),
        angles=angles,
        reba=assess_reba(angles, f.reba(), thresholds=th),
        rula=assess_rula(angles, f.rula(), thresholds=th),
        factors=f,
        thresholds=th,
    )
