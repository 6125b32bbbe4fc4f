"""Multi-objective evolution with SVM screening, region density and a moving window.

The method of patent CN108805965B.

The steps of the patent's claim 1 (numbers as there):

2.1  The first population is sampled at random in the solution space (a box);
     with ``x0``, its first member is the initial controller ``x0`` (the
     patent's first population comes from a controller that already walks
     a little).
2.2  Parents mutate into offspring (Gaussian steps of ``sigma`` × box size).
     An RBF-kernel SVM trained on all earlier individuals predicts the
     forbidden region (constraint violated: fewer cycles than the window
     requires, a fall, self-collision); an offspring predicted inside it is
     discarded before simulation and its parent mutates again with a step that
     shrinks temporarily by a Weibull decay with the number of resamples,
     ``sigma_k = sigma · exp(−(k / weibull_scale) ** weibull_shape)``.
2.3  The new offspring are simulated (through an executor) and scored on
     several objectives (all minimised).
2.4  Offspring and parents form the set B, split into the positive
     (feasible) and negative set; the SVM is refitted; the positive set is
     ranked by non-dominated sorting and the last front that overflows the
     population is ranked by region density (mean distance to the other
     members of that front in objective space; larger is better).
2.5  Multi-stage optimisation with pruning: every individual is simulated a
     step past the current window; when the share of candidate parents that
     survive past the window ("excellent" ones) exceeds ``advance_ratio``, the
     window moves forward and candidates that fail the new window are pruned.
2.6  Stop when the window reaches the target duration (or the generation
     budget is spent, which the result reports); with
     ``EvolutionConfig.stop_at_target`` False the whole budget is spent, the
     later generations selecting among walkers by their objectives alone.
2.7  The final parent with the smallest sum of objectives (each scaled by its
     range over the final parents) is the result.

While no individual is feasible (early on), parents are the individuals that
survived longest (a fallback the patent does not need to state: its first
population comes from a controller that already walks a little).

Every generation is checkpointed (atomically, JSON); :func:`evolve` with the
same checkpoint path resumes and ends where an uninterrupted run ends. The
checkpoint holds every generation's log entry, so the log (JSON lines, appended
after each checkpoint) is rewritten from it on resume: a kill between the two
writes, or during the append, loses no line and leaves none half-written.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.executor import MapExecutor
from vhuman.io.filesystem import PathLike, atomic_write

__all__ = [
    "Evaluation",
    "EvolutionConfig",
    "EvolutionResult",
    "ForbiddenRegionScreen",
    "advance_window",
    "evolve",
    "region_density",
    "resumable_state",
    "select_parents",
    "weibull_step",
]


@dataclass(frozen=True)
class Evaluation:
    """What one simulation of an individual gives.

    Attributes
    ----------
    objectives : tuple of float
        Values to minimise.
    survived : float
        How long the individual lasted (e.g. cycles before a fall), in the
        window's unit.
    violation : bool
        A constraint other than the duration is violated (e.g. self-collision).
    """

    objectives: tuple[float, ...]
    survived: float
    violation: bool = False

    def feasible(self, window: float) -> bool:
        """Whether the individual satisfies the constraints for ``window``."""
        return (not self.violation) and self.survived >= window - 1e-9

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "objectives": list(self.objectives),
            "survived": self.survived,
            "violation": self.violation,
        }


@dataclass(frozen=True)
class EvolutionConfig:
    """Settings of :func:`evolve`.

    Attributes
    ----------
    lower, upper : ndarray, shape (D,)
        Bounds of the solution space.
    population : int
        Parents and offspring per generation (> 0).
    generations : int
        Budget of generations after the first population (> 0).
    window_start, window_step, target : float
        First window, how far it moves, and the target duration (window
        units, e.g. cycles).
    advance_ratio : float
        Share of excellent candidate parents needed to move the window.
    sigma : float
        Mutation step as a fraction of the box size.
    weibull_scale, weibull_shape : float
        Weibull decay of the step with the resample count k.
    max_resamples : int
        Resamples per offspring before it is simulated anyway.
    screen : bool
        Use the SVM pre-screen (False: the ablation without it).
    svm_c, svm_gamma : float or str
        ``SVC`` parameters.
    x0 : ndarray, shape (D,), optional
        An individual put in the first population (the initial controller).
    stop_at_target : bool
        Stop when the window reaches the target (step 2.6); False: spend the whole
        generation budget, the later generations improving the objectives of
        individuals that all walk the target.
    """

    lower: NDArray[np.float64]
    upper: NDArray[np.float64]
    population: int = 12
    generations: int = 10
    window_start: float = 1.0
    window_step: float = 1.0
    target: float = 4.0
    advance_ratio: float = 0.5
    sigma: float = 0.15
    weibull_scale: float = 3.0
    weibull_shape: float = 1.5
    max_resamples: int = 10
    screen: bool = True
    svm_c: float = 10.0
    svm_gamma: float | str = "scale"
    x0: NDArray[np.float64] | None = None
    stop_at_target: bool = True

    def __post_init__(self) -> None:
        lo = np.asarray(self.lower, dtype=np.float64).ravel()
        hi = np.asarray(self.upper, dtype=np.float64).ravel()
        if lo.shape != hi.shape or lo.size == 0 or np.any(~(hi > lo)):
            raise InputError("bounds need lower < upper in every dimension")
        object.__setattr__(self, "lower", lo)
        object.__setattr__(self, "upper", hi)
        if self.x0 is not None:
            x0 = np.asarray(self.x0, dtype=np.float64).ravel()
            if x0.shape != lo.shape or np.any(x0 < lo) or np.any(x0 > hi):
                raise InputError("x0 must lie inside the bounds")
            object.__setattr__(self, "x0", x0)
        for name in ("population", "generations", "max_resamples"):
            value = getattr(self, name)
            if int(value) != value or value <= (0 if name != "max_resamples" else -1):
                raise InputError(f"{name} must be a positive integer, got {value}")
        for name in (
            "window_start",
            "window_step",
            "target",
            "sigma",
            "weibull_scale",
            "weibull_shape",
        ):
            value = getattr(self, name)
            if not (np.isfinite(value) and value > 0):
                raise InputError(f"{name} must be > 0, got {value}")
        if not 0.0 < self.advance_ratio <= 1.0:
            raise InputError(f"advance_ratio must be in (0, 1], got {self.advance_ratio}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        out = {k: getattr(self, k) for k in self.__dataclass_fields__}
        out["lower"], out["upper"] = self.lower.tolist(), self.upper.tolist()
        out["x0"] = None if self.x0 is None else self.x0.tolist()
        return out


def weibull_step(sigma: float, k: int | ArrayLike, scale: float, shape: float) -> NDArray:
    """Step size after ``k`` resamples: ``sigma · exp(−(k / scale) ** shape)``."""
    k = np.asarray(k, dtype=np.float64)
    return sigma * np.exp(-((k / scale) ** shape))


def region_density(objectives: ArrayLike) -> NDArray[np.float64]:
    """Per individual, the mean distance to the others ``(N,)`` (larger is better).

    Objectives are scaled to [0, 1] by their range in the group first. A group
    of one gets ``inf``.
    """
    f = np.asarray(objectives, dtype=np.float64)
    n = len(f)
    if n <= 1:
        return np.full(n, np.inf)
    span = np.ptp(f, axis=0)
    g = (f - f.min(axis=0)) / np.where(span > 0, span, 1.0)
    d = np.linalg.norm(g[:, None, :] - g[None, :, :], axis=-1)
    return d.sum(axis=1) / (n - 1)


def select_parents(objectives: ArrayLike, n: int) -> NDArray[np.intp]:
    """Indices of ``n`` individuals by non-dominated sorting, the overflowing front by
    region density (claim 2); all of them when there are at most ``n``."""
    from pymoo.util.nds.non_dominated_sorting import NonDominatedSorting

    f = np.asarray(objectives, dtype=np.float64)
    if len(f) <= n:
        return np.arange(len(f))
    fronts = NonDominatedSorting().do(f, n_stop_if_ranked=n)
    chosen: list[int] = []
    for front in fronts:
        front = np.asarray(front)
        if len(chosen) + len(front) <= n:
            chosen.extend(int(i) for i in front)
            if len(chosen) == n:
                break
            continue
        density = region_density(f[front])
        order = np.argsort(-density, kind="stable")
        chosen.extend(int(i) for i in front[order[: n - len(chosen)]])
        break
    return np.array(chosen, dtype=np.intp)


def advance_window(
    survived: ArrayLike, window: float, step: float, target: float, ratio: float
) -> tuple[float, NDArray[np.bool_]]:
    """Step 2.5: the new window and which candidate parents to keep.

    An individual is excellent when it survived past the window (to
    ``min(window + step, target)``). When the share of excellent ones exceeds
    ``ratio``, the window moves there and the others are pruned.
    """
    s = np.asarray(survived, dtype=np.float64)
    nxt = min(window + step, target)
    excellent = s >= nxt - 1e-9
    if len(s) and nxt > window and excellent.mean() > ratio - 1e-12:
        return nxt, excellent
    return window, np.ones(len(s), dtype=bool)


class ForbiddenRegionScreen:
    """RBF-kernel SVM predicting the forbidden region from earlier individuals (step 2.2).

    Class 1 is feasible, 0 forbidden; ``forbidden(x)`` is
    ``decision_function(x) < threshold``. Until both classes are seen it
    forbids nothing. Inputs are scaled to the box.
    """

    def __init__(
        self,
        lower: ArrayLike,
        upper: ArrayLike,
        c: float = 10.0,
        gamma: float | str = "scale",
        threshold: float = 0.0,
    ) -> None:
        self.lower = np.asarray(lower, dtype=np.float64)
        self.span = np.asarray(upper, dtype=np.float64) - self.lower
        self.c, self.gamma, self.threshold = c, gamma, threshold
        self.model: Any = None

    def _scale(self, x: ArrayLike) -> NDArray[np.float64]:
        return (np.atleast_2d(np.asarray(x, dtype=np.float64)) - self.lower) / self.span

    def fit(self, x: ArrayLike, feasible: ArrayLike) -> ForbiddenRegionScreen:
        """Refit on individuals ``x (N, D)`` labelled ``feasible (N,)``."""
        from sklearn.svm import SVC

        y = np.asarray(feasible, dtype=int)
        if len(np.unique(y)) < 2:
            self.model = None
            return self
        self.model = SVC(kernel="rbf", C=self.c, gamma=self.gamma).fit(self._scale(x), y)
        return self

    def forbidden(self, x: ArrayLike) -> NDArray[np.bool_]:
        """Whether each of ``x (N, D)`` is predicted to violate the constraints."""
        xs = self._scale(x)
        if self.model is None:
            return np.zeros(len(xs), dtype=bool)
        return self.model.decision_function(xs) < self.threshold


@dataclass
class _State:
    generation: int
    window: float
    rng: dict[str, Any]
    archive_x: list[list[float]]
    archive_eval: list[dict[str, Any]]
    archive_window: list[float]
    parents: list[int]  # indices into the archive
    simulations: int = 0
    screened: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)
    done: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _eval_from(d: dict[str, Any]) -> Evaluation:
    return Evaluation(tuple(d["objectives"]), float(d["survived"]), bool(d["violation"]))


@dataclass(frozen=True)
class EvolutionResult:
    """Outcome of :func:`evolve`.

    Attributes
    ----------
    best : ndarray, shape (D,)
    best_evaluation : Evaluation
    parents : ndarray, shape (P, D)
        The final parents.
    parent_objectives : ndarray, shape (P, M)
    window : float
        The window reached.
    reached_target : bool
    generations : int
    simulations : int
        Individuals simulated.
    screened : int
        Offspring discarded by the SVM before simulation.
    history : list of dict
        One entry per generation (window, simulations, best objectives, ...).
    """

    best: NDArray[np.float64]
    best_evaluation: Evaluation
    parents: NDArray[np.float64]
    parent_objectives: NDArray[np.float64]
    window: float
    reached_target: bool
    generations: int
    simulations: int
    screened: int
    history: list[dict[str, Any]]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "best": self.best.tolist(),
            "best_evaluation": self.best_evaluation.to_dict(),
            "parent_objectives": self.parent_objectives.tolist(),
            "window": self.window,
            "reached_target": self.reached_target,
            "generations": self.generations,
            "simulations": self.simulations,
            "screened": self.screened,
            "history": self.history,
        }


def _run_batch(
    evaluate: Callable[[NDArray[np.float64], float], Evaluation],
    xs: NDArray[np.float64],
    horizon: float,
    executor: MapExecutor | None,
) -> list[Evaluation]:
    if executor is None:
        return [evaluate(x, horizon) for x in xs]
    return list(executor.map(evaluate, list(xs), [horizon] * len(xs)))


def _digest(body: dict[str, Any]) -> str:
    """SHA-256 of a checkpoint's content, so that a changed file is noticed."""
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def _read_checkpoint(path: Path) -> tuple[dict[str, Any], _State]:
    """The identity and state stored in checkpoint ``path``, checked against its checksum.

    Raises
    ------
    InputError
        For an unreadable, empty, truncated, foreign or changed file: one line
        naming the file and what is wrong.
    """
    try:
        raw = json.loads(path.read_text())
    except OSError as exc:
        raise InputError(f"cannot read checkpoint {path}: {exc.strerror or exc}") from None
    except ValueError as exc:
        what = "empty" if not path.stat().st_size else f"not JSON ({exc})"
        raise InputError(f"checkpoint {path} is {what}; delete it to start over") from None
    if not isinstance(raw, dict) or not {"identity", "state", "sha256"} <= set(raw):
        raise InputError(f"{path} is not a checkpoint of this evolution")
    body = {"identity": raw["identity"], "state": raw["state"]}
    if raw["sha256"] != _digest(body):
        raise InputError(
            f"checkpoint {path} was changed after it was written (checksum mismatch); "
            "delete it to start over"
        )
    try:
        return raw["identity"], _State(**raw["state"])
    except TypeError as exc:
        raise InputError(f"checkpoint {path}: unusable state ({exc})") from None


def _identity(cfg: EvolutionConfig, extra: Mapping[str, Any] | None) -> dict[str, Any]:
    """What a checkpoint must match to be resumed: the settings that change the result."""
    settings = {f"config.{k}": v for k, v in cfg.to_dict().items() if k != "generations"}
    settings.update(extra or {})
    return json.loads(json.dumps(settings))


def resumable_state(
    checkpoint: PathLike | None, config: EvolutionConfig, identity: Mapping[str, Any] | None
) -> _State | None:
    """The state to resume :func:`evolve` from: None without a checkpoint file.

    For a caller to check a checkpoint before work that precedes the evolution.

    Raises
    ------
    InputError
        If the checkpoint cannot be read, or belongs to a run with other
        settings (the message names the first that differs, stored and given).
    """
    if checkpoint is None or not Path(checkpoint).is_file():
        return None
    ckpt = Path(checkpoint)
    given = _identity(config, identity)
    stored, state = _read_checkpoint(ckpt)
    for key in sorted(set(stored) | set(given)):
        if stored.get(key) != given.get(key):
            raise InputError(
                f"checkpoint {ckpt} belongs to a run with {key} = {stored.get(key)!r}; this "
                f"run has {key} = {given.get(key)!r} (use the same value, or another "
                "checkpoint file)"
            )
    return state


def evolve(
    evaluate: Callable[[NDArray[np.float64], float], Evaluation],
    config: EvolutionConfig,
    *,
    rng: np.random.Generator | int | None = None,
    executor: MapExecutor | None = None,
    checkpoint: PathLike | None = None,
    on_generation: Callable[[dict[str, Any]], None] | None = None,
    stop_after: int | None = None,
    identity: Mapping[str, Any] | None = None,
    log: PathLike | None = None,
) -> EvolutionResult:
    """Run the evolution of the module notes.

    Parameters
    ----------
    evaluate : callable ``(x (D,), horizon) -> Evaluation``
        Simulates individual ``x`` up to ``horizon`` (window units); must be
        picklable for process or Dask executors and deterministic.
    config : EvolutionConfig
    rng : Generator, int or None
        Seed; ignored when resuming from a checkpoint.
    executor : MapExecutor, optional
        Where to simulate a population (None: in this process).
    checkpoint : str or Path, optional
        JSON file written after every generation; if it exists, the run
        resumes from it. It records ``config`` (all but ``generations``, a
        budget that may grow on resume) and ``identity``; a resume with any of
        them different is refused.
    on_generation : callable, optional
        Called with each generation's log entry.
    stop_after : int, optional
        Stop (as if interrupted) after this many generations of this call.
    identity : mapping, optional
        The caller's settings that change the result but are not in
        ``config`` (what ``evaluate`` simulates, the seed), JSON values.
    log : str or Path, optional
        Per-generation log, one JSON line per generation, appended after each
        checkpoint. It is (re)written first, atomically: empty for a fresh
        run, the checkpoint's entries for a resumed one.

    Raises
    ------
    InputError
        If the checkpoint cannot be read, or belongs to a run with other
        settings (the message names the first that differs, stored and given).
    """
    ckpt = Path(checkpoint) if checkpoint is not None else None
    cfg = config
    given = _identity(cfg, identity)
    state = resumable_state(ckpt, cfg, identity)
    gen = np.random.default_rng(rng)
    screen = ForbiddenRegionScreen(cfg.lower, cfg.upper, cfg.svm_c, cfg.svm_gamma)
    span = cfg.upper - cfg.lower
    n = cfg.population

    def save() -> None:
        if ckpt is not None:
            body = {"identity": given, "state": state.to_dict()}
            atomic_write(ckpt, json.dumps({**body, "sha256": _digest(body)}))

    if log is not None:
        history = [] if state is None else state.history
        atomic_write(log, "".join(json.dumps(entry) + "\n" for entry in history))

    def horizon(window: float) -> float:
        return min(window + cfg.window_step, cfg.target)

    def pick(idx: list[int], window: float) -> list[int]:
        evs = [_eval_from(state.archive_eval[i]) for i in idx]
        pos = [i for i, e in zip(idx, evs, strict=True) if e.feasible(window)]
        if pos:
            f = np.array([state.archive_eval[i]["objectives"] for i in pos])
            return [pos[i] for i in select_parents(f, n)]
        order = sorted(idx, key=lambda i: -state.archive_eval[i]["survived"])
        return order[:n]

    if state is None:
        # 2.1: random first population.
        x0 = cfg.lower + gen.random((n, len(span))) * span
        if cfg.x0 is not None:
            x0[0] = cfg.x0
        evs = _run_batch(evaluate, x0, horizon(cfg.window_start), executor)
        state = _State(0, cfg.window_start, gen.bit_generator.state, [], [], [], [])
        for x, e in zip(x0, evs, strict=True):
            state.archive_x.append(x.tolist())
            state.archive_eval.append(e.to_dict())
            state.archive_window.append(cfg.window_start)
        state.simulations = n
        state.parents = pick(list(range(n)), state.window)
        state.rng = gen.bit_generator.state
        save()
    else:
        try:
            gen.bit_generator.state = state.rng
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"checkpoint {ckpt}: unusable random state ({exc})") from None

    steps = 0
    while not (state.done and cfg.stop_at_target) and state.generation < cfg.generations:
        if stop_after is not None and steps >= stop_after:
            break
        window = state.window
        ax = np.array(state.archive_x)
        if cfg.screen:
            labels = [_eval_from(e).feasible(window) for e in state.archive_eval]
            screen.fit(ax, labels)
        parents = ax[state.parents]
        # 2.2: mutation with SVM pre-screening and Weibull-decayed resampling.
        children = []
        screened = 0
        for _ in range(n):
            p = parents[gen.integers(len(parents))]
            k = 0
            while True:
                step = weibull_step(cfg.sigma, k, cfg.weibull_scale, cfg.weibull_shape)
                child = np.clip(p + gen.normal(size=len(span)) * step * span, cfg.lower, cfg.upper)
                if not cfg.screen or k >= cfg.max_resamples or not screen.forbidden(child)[0]:
                    break
                screened += 1
                k += 1
            children.append(child)
        children = np.array(children)
        # 2.3: simulate.
        evs = _run_batch(evaluate, children, horizon(window), executor)
        start = len(state.archive_x)
        for x, e in zip(children, evs, strict=True):
            state.archive_x.append(x.tolist())
            state.archive_eval.append(e.to_dict())
            state.archive_window.append(window)
        state.simulations += len(children)
        state.screened += screened
        # 2.4: B = offspring + parents; select from its positive set.
        b = list(state.parents) + list(range(start, len(state.archive_x)))
        candidates = pick(b, window)
        # 2.5: moving window with pruning.
        survived = [state.archive_eval[i]["survived"] for i in candidates]
        new_window, keep = advance_window(
            survived, window, cfg.window_step, cfg.target, cfg.advance_ratio
        )
        state.parents = [i for i, k in zip(candidates, keep, strict=True) if k]
        state.window = new_window
        state.generation += 1
        best_obj = np.min([state.archive_eval[i]["objectives"] for i in state.parents], axis=0)
        entry = {
            "generation": state.generation,
            "window": state.window,
            "simulations": state.simulations,
            "screened": state.screened,
            "feasible_offspring": int(sum(e.feasible(window) for e in evs)),
            "best_objectives": best_obj.tolist(),
            "max_survived": float(max(e.survived for e in evs)),
        }
        state.history.append(entry)
        # 2.6: stop when the window reaches the target (unless told to go on).
        state.done = state.window >= cfg.target - 1e-9 and all(
            _eval_from(state.archive_eval[i]).feasible(cfg.target) for i in state.parents
        )
        state.rng = gen.bit_generator.state
        save()
        if log is not None:
            with Path(log).open("a") as f:
                f.write(json.dumps(entry) + "\n")
        steps += 1
        if on_generation is not None:
            on_generation(entry)
    # 2.7: the best final parent.
    px = np.array(state.archive_x)[state.parents]
    pf = np.array([state.archive_eval[i]["objectives"] for i in state.parents])
    span_f = np.ptp(pf, axis=0)
    score = ((pf - pf.min(axis=0)) / np.where(span_f > 0, span_f, 1.0)).sum(axis=1)
    feasible_final = [
        _eval_from(state.archive_eval[i]).feasible(state.window) for i in state.parents
    ]
    score = score + np.where(feasible_final, 0.0, 1e6)
    b = int(np.argmin(score))
    return EvolutionResult(
        best=px[b],
        best_evaluation=_eval_from(state.archive_eval[state.parents[b]]),
        parents=px,
        parent_objectives=pf,
        window=state.window,
        reached_target=bool(state.done),
        generations=state.generation,
        simulations=state.simulations,
        screened=state.screened,
        history=state.history,
    )
