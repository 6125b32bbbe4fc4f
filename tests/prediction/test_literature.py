"""The published CMU protocol on tiny CMU folders written from the packaged walking trial."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from vhuman.cli.predict import predict_app
from vhuman.errors import InputError
from vhuman.io import cmu_walking_example, read_cmu, write_cmu
from vhuman.prediction import ModelInfo, build_model, load_cmu_sequences, save_model
from vhuman.prediction.literature import (
    FILLED_FROM_JOINT,
    FILLED_FROM_TRUTH,
    LTD_SEED,
    WindowRule,
    evaluate_literature,
    fill_joints,
    literature_actions,
    literature_windows,
    window_errors,
)

runner = CliRunner()
# raw frames of each file: kept (every second) 50, 45 and 80 poses
_FILES = {
    "walking/walking_1": (0, 100),
    "walking/walking_2": (100, 190),
    "jumping/jumping_1": (180, 340),
}


def _write(folder, flat: bool = False):
    walk = cmu_walking_example()
    for name, (a, b) in _FILES.items():
        path = (folder / (name.split("/")[1] if flat else name)).with_suffix(".txt")
        path.parent.mkdir(parents=True, exist_ok=True)
        write_cmu(walk[a:b], path)
    return folder


@pytest.fixture
def cmu_folder(tmp_path):
    return _write(tmp_path / "cmu")


def test_every_window_of_every_file(cmu_folder):
    seqs = load_cmu_sequences(cmu_folder)
    kept = np.diff(seqs.trial_starts)
    assert kept.tolist() == [80, 50, 45]  # sorted by action: jumping, walking
    windows = literature_windows(seqs, WindowRule.ALL)
    assert len(windows) == sum(k - 35 + 1 for k in kept)
    assert (windows.n_observed, windows.n_future) == (10, 25)
    # consecutive starts within each trial, none crossing a trial boundary
    for k in range(seqs.n_trials):
        s = windows.starts[windows.trial == k]
        assert s.tolist() == list(range(seqs.trial_starts[k], seqs.trial_starts[k + 1] - 34))


def test_windows_take_every_second_frame_of_the_file(cmu_folder):
    seqs = load_cmu_sequences(cmu_folder)
    raw = read_cmu(cmu_folder / "walking" / "walking_2.txt")
    k = seqs.trials.index("walking/walking_2")
    windows = literature_windows(seqs, "all")
    first = windows.frame_index()[windows.trial == k][0]
    np.testing.assert_allclose(seqs.local_rotations[first], raw.local_rotations[0:70:2], atol=1e-6)


def test_ltd_windows_follow_the_reference_draw(cmu_folder):
    seqs = load_cmu_sequences(cmu_folder / "jumping")  # one file of 80 poses
    windows = literature_windows(seqs, "ltd8")
    rng = np.random.RandomState(LTD_SEED)
    assert windows.starts.tolist() == [rng.randint(0, 80 - 75) + 40 for _ in range(8)]
    with pytest.raises(InputError, match=r"walking/walking_1: 50 poses .* ltd8 windows need"):
        literature_windows(load_cmu_sequences(cmu_folder), "ltd8")


def test_a_file_too_short_for_one_window_is_named(tmp_path):
    folder = tmp_path / "short"
    (folder / "walking").mkdir(parents=True)
    write_cmu(cmu_walking_example()[:60], folder / "walking" / "walking_1.txt")
    with pytest.raises(InputError, match=r"walking/walking_1: 30 poses .* need at least 35"):
        literature_windows(load_cmu_sequences(folder), "all")


def test_flat_folder_actions_from_file_names(tmp_path):
    seqs = load_cmu_sequences(_write(tmp_path / "flat", flat=True))
    assert literature_actions(seqs) == ("jumping", "walking", "walking")


def test_filled_joints_and_the_38_joint_average():
    rng = np.random.default_rng(0)
    true = rng.normal(size=(2, 3, 38, 3))
    for j, src in FILLED_FROM_JOINT.items():
        true[..., j, :] = true[..., src, :]
    pred = true.copy()
    pred[..., FILLED_FROM_TRUTH, :] += 5.0  # replaced by the truth
    pred[..., list(FILLED_FROM_JOINT), :] += 7.0  # replaced by their source joints
    np.testing.assert_array_equal(fill_joints(pred, true), true)
    np.testing.assert_allclose(window_errors(pred, true), 0.0)
    moved = true.copy()
    moved[..., 15, 0] += 0.038  # thorax, and with it joints 16, 20, 29: 4 of 38 joints
    np.testing.assert_allclose(window_errors(moved, true), 4.0, rtol=1e-12)
    moved = true.copy()
    moved[..., 3, 2] += 0.038  # a knee alone
    np.testing.assert_allclose(window_errors(moved, true), 1.0, rtol=1e-12)


def test_mean_over_actions_of_the_mean_over_windows(cmu_folder):
    seqs = load_cmu_sequences(cmu_folder)
    zv = build_model("zero_velocity", seqs, None, n_observed=10, n_future=25)
    result = evaluate_literature({"zv": zv}, seqs, "all")
    assert result.windows == {"jumping": 46, "walking": 16 + 11}
    windows = literature_windows(seqs, "all")
    frames = windows.frame_index()
    true = seqs.positions[frames[:, 10:]]
    held = np.repeat(seqs.positions[frames[:, 9:10]], 25, axis=1)
    err = window_errors(held, true)[:, [1, 3, 7, 9, 13, 24]]
    walking = np.asarray(seqs.trials)[windows.trial] != "jumping/jumping_1"
    np.testing.assert_allclose(result.per_action["zv"]["walking"], err[walking].mean(0), rtol=1e-9)
    overall = (err[walking].mean(0) + err[~walking].mean(0)) / 2
    np.testing.assert_allclose(result.mpjpe_mm("zv"), overall, rtol=1e-9)
    assert not np.allclose(overall, err.mean(0))  # not the mean over all windows


def test_cli_literature_protocol(cmu_folder, toy, tmp_path):
    model = build_model("lie-transformer", toy, options={"dim": 16, "heads": 2, "ff": 32})
    path = tmp_path / "m.pt"
    save_model(model, ModelInfo(toy.skeleton.names, 60.0), path)
    args = ["evaluate", "--data", str(cmu_folder), "--model", str(path), "--protocol", "literature"]
    res = runner.invoke(predict_app, [*args, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["windows"] == 46 + 27
    assert set(out["models"]["lie-transformer"]["per_action"]) == {"jumping", "walking"}
    assert len(out["models"]["zero_velocity"]["per_action"]["walking"]["mpjpe_mm"]) == 6
    res = runner.invoke(predict_app, [*args, "--mirror-average", "--json"])
    assert res.exit_code == 0, res.output
    mirrored = json.loads(res.stdout)
    assert mirrored["mirror_average"]
    assert not out["mirror_average"]
    assert mirrored["models"]["zero_velocity"] == out["models"]["zero_velocity"]
    assert mirrored["models"]["lie-transformer"] != out["models"]["lie-transformer"]
    res = runner.invoke(predict_app, [*args, "--windows", "every"])
    assert res.exit_code == 2
    assert "--windows must be one of all, ltd8; got 'every'" in res.output


def test_cache_gives_the_same_values_on_a_miss_and_a_hit(cmu_folder):
    first = load_cmu_sequences(cmu_folder)  # built, then written to the cache
    again = load_cmu_sequences(cmu_folder)  # read back
    for name in ("local_rotations", "root_positions", "positions"):
        np.testing.assert_array_equal(getattr(first, name), getattr(again, name))
    built = load_cmu_sequences(cmu_folder, cache=False)
    assert not np.array_equal(built.positions, first.positions)  # stored as float32
    np.testing.assert_array_equal(first.positions, built.positions.astype(np.float32))
