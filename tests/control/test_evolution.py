"""Patent CN108805965B's evolution on toy problems: SVM screen, Weibull, density, window, resume."""

from __future__ import annotations

import json

import numpy as np
import pytest

from vhuman.control.evolution import (
    Evaluation,
    EvolutionConfig,
    ForbiddenRegionScreen,
    advance_window,
    evolve,
    region_density,
    select_parents,
    weibull_step,
)
from vhuman.errors import InputError


def toy(x: np.ndarray, horizon: float) -> Evaluation:
    """Feasible inside the disc |x| < 0.6, where 'survival' grows towards the centre."""
    r = float(np.linalg.norm(x))
    survived = min(horizon, 4.0 * (1.0 - r)) if r < 0.6 else 0.5 * (1.0 - min(r, 1.0))
    return Evaluation(
        (float((x[0] - 0.3) ** 2 + x[1] ** 2), float((x[0] + 0.3) ** 2 + x[1] ** 2)), survived
    )


def test_svm_screen_rejects_the_forbidden_region() -> None:
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (200, 2))
    feasible = np.linalg.norm(x, axis=1) < 0.6
    screen = ForbiddenRegionScreen([-1, -1], [1, 1]).fit(x, feasible)
    test = rng.uniform(-1, 1, (500, 2))
    truth = np.linalg.norm(test, axis=1) >= 0.6
    pred = screen.forbidden(test)
    assert (pred == truth).mean() > 0.95
    assert pred[np.linalg.norm(test, axis=1) > 0.8].all()
    assert not pred[np.linalg.norm(test, axis=1) < 0.3].any()
    # One class only: nothing is forbidden yet.
    assert not ForbiddenRegionScreen([-1, -1], [1, 1]).fit(x, np.ones(200)).forbidden(test).any()


def test_weibull_step_shrinks_with_resamples() -> None:
    s = weibull_step(0.2, np.arange(6), scale=2.0, shape=1.5)
    assert s[0] == pytest.approx(0.2)
    assert np.all(np.diff(s) < 0)
    assert s[2] == pytest.approx(0.2 * np.exp(-1.0))


def test_region_density_on_hand_made_front() -> None:
    # Four points on a front; the two ends lie farthest from the others.
    f = np.array([[0.0, 1.0], [0.45, 0.55], [0.55, 0.45], [1.0, 0.0]])
    d = region_density(f)
    assert d[0] == pytest.approx(d[3])
    assert d[0] > d[1]
    assert d[1] == pytest.approx(d[2])
    expected0 = (np.hypot(0.45, 0.45) + np.hypot(0.55, 0.55) + np.hypot(1, 1)) / 3
    assert d[0] == pytest.approx(expected0)


def test_select_parents_fills_fronts_then_density() -> None:
    # Front 1: three points; front 2: four points (dominated by front 1).
    f = np.array(
        [[0.0, 1.0], [0.5, 0.5], [1.0, 0.0], [0.2, 1.2], [0.6, 0.7], [0.65, 0.65], [1.2, 0.2]]
    )
    chosen = select_parents(f, 5)
    assert set(chosen[:3]) == {0, 1, 2}
    assert set(chosen[3:]) == {3, 6}  # the two extreme ones of the second front
    assert set(select_parents(f, 3)) == {0, 1, 2}


def test_window_moves_and_prunes_when_enough_excellent() -> None:
    w, keep = advance_window([3.0, 2.0, 1.2, 2.5], window=1.0, step=1.0, target=4.0, ratio=0.5)
    assert w == 2.0
    assert keep.tolist() == [True, True, False, True]
    w, keep = advance_window([3.0, 1.2, 1.2, 1.5], window=1.0, step=1.0, target=4.0, ratio=0.5)
    assert w == 1.0
    assert keep.all()
    w, _ = advance_window([9.0, 9.0], window=3.5, step=1.0, target=4.0, ratio=0.5)
    assert w == 4.0  # never past the target


def _config(**kw) -> EvolutionConfig:
    base = dict(
        lower=[-1.0, -1.0],
        upper=[1.0, 1.0],
        population=8,
        generations=12,
        window_start=1.0,
        window_step=1.0,
        target=3.0,
    )
    base.update(kw)
    return EvolutionConfig(**base)


def test_evolution_reaches_target_and_screen_saves_simulations() -> None:
    full = evolve(toy, _config(), rng=3)
    assert full.reached_target
    assert full.window == 3.0
    assert full.best_evaluation.feasible(3.0)
    assert full.screened > 0
    windows = [h["window"] for h in full.history]
    assert windows == sorted(windows)


def test_checkpoint_resume_gives_the_same_result(tmp_path) -> None:
    whole = evolve(toy, _config(), rng=5)
    ckpt = tmp_path / "run.json"
    part = evolve(toy, _config(), rng=5, checkpoint=ckpt, stop_after=3)
    assert part.generations == 3
    assert json.loads(ckpt.read_text())["state"]["generation"] == 3
    resumed = evolve(toy, _config(), rng=123, checkpoint=ckpt)  # seed ignored on resume
    assert resumed.generations == whole.generations
    assert resumed.simulations == whole.simulations
    assert np.array_equal(resumed.best, whole.best)
    assert resumed.history == whole.history
    with pytest.raises(
        InputError, match=r"config.population = 8; this run has config.population = 9"
    ):
        evolve(toy, _config(population=9), checkpoint=ckpt)


def test_a_checkpoint_knows_the_run_it_belongs_to(tmp_path) -> None:
    ckpt = tmp_path / "run.json"
    evolve(toy, _config(), rng=5, checkpoint=ckpt, stop_after=2, identity={"push_force_n": 30.0})
    with pytest.raises(InputError, match=r"push_force_n = 30.0; this run has push_force_n = 0.0"):
        evolve(toy, _config(), checkpoint=ckpt, identity={"push_force_n": 0.0})
    with pytest.raises(InputError, match=r"push_force_n = 30.0; this run has push_force_n = None"):
        evolve(toy, _config(), checkpoint=ckpt)
    # The generation budget may grow on resume: the run goes on.
    more = evolve(toy, _config(generations=8), checkpoint=ckpt, identity={"push_force_n": 30.0})
    assert more.generations > 2


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("", "is empty"),
        ('{"identity": {', "is not JSON"),
        ('{"state": {}}', "is not a checkpoint"),
        ("[1, 2]", "is not a checkpoint"),
    ],
)
def test_a_broken_checkpoint_is_one_clear_error(tmp_path, content: str, says: str) -> None:
    ckpt = tmp_path / "run.json"
    ckpt.write_text(content)
    with pytest.raises(InputError, match=says) as info:
        evolve(toy, _config(), checkpoint=ckpt)
    assert "run.json" in str(info.value)
    assert "\n" not in str(info.value)


def test_a_changed_checkpoint_is_noticed(tmp_path) -> None:
    ckpt = tmp_path / "run.json"
    evolve(toy, _config(), rng=5, checkpoint=ckpt, stop_after=2)
    raw = json.loads(ckpt.read_text())
    raw["state"]["simulations"] += 1
    ckpt.write_text(json.dumps(raw))
    with pytest.raises(InputError, match="changed after it was written"):
        evolve(toy, _config(), checkpoint=ckpt)


@pytest.mark.parametrize(
    "kw", [{"population": 0}, {"generations": -1}, {"target": 0.0}, {"lower": [1.0, 1.0]}]
)
def test_bad_budget_is_an_input_error(kw) -> None:
    with pytest.raises(InputError):
        _config(**kw)
