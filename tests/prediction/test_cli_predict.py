"""`vhuman predict` sub-commands, called through typer's CliRunner on ``predict_app``."""

from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from vhuman.cli.predict import predict_app
from vhuman.io import cmu_walking_example, load_motion, save_motion, write_cmu
from vhuman.prediction import ModelInfo, build_model, load_model, save_model
from vhuman.skeleton import Motion, standard_humanoid

runner = CliRunner()


@pytest.fixture
def model_file(toy, tmp_path):
    model = build_model("lie-transformer", toy, options={"dim": 16, "heads": 2, "ff": 32})
    path = tmp_path / "m.pt"
    save_model(model, ModelInfo(toy.skeleton.names, 60.0), path)
    return path


def test_run_writes_future_bvh(model_file, tmp_path):
    walk = cmu_walking_example()
    src = tmp_path / "walk.txt"
    write_cmu(walk[:100], src)
    out = tmp_path / "future.bvh"
    res = runner.invoke(
        predict_app,
        [
            "run",
            "--checkpoint",
            str(model_file),
            "--input",
            str(src),
            "--frames",
            "12",
            "-o",
            str(out),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["frames"] == 12
    future = load_motion(out)
    assert future.n_frames == 12
    assert future.fps == pytest.approx(60.0, rel=1e-4)


@pytest.mark.parametrize("case", ["skeleton", "short", "nan"])
def test_run_bad_input_exit_2(model_file, tmp_path, case):
    path = tmp_path / ("in.bvh" if case == "skeleton" else "in.txt")
    if case == "skeleton":
        save_motion(Motion.rest(standard_humanoid(), 40, 60.0), path)
    elif case == "short":
        write_cmu(cmu_walking_example()[:8], path)
    else:
        write_cmu(cmu_walking_example()[:40], path)
        lines = path.read_text().splitlines()
        lines[5] = "nan," + lines[5].split(",", 1)[1]
        path.write_text("\n".join(lines) + "\n")
    res = runner.invoke(predict_app, ["run", "--checkpoint", str(model_file), "--input", str(path)])
    assert res.exit_code == 2
    assert "error:" in res.stderr
    assert "Traceback" not in res.stderr
    expected = {"skeleton": "skeleton", "short": "observes 10", "nan": "NaN"}[case]
    assert expected in res.stderr


def test_train_on_a_device_that_is_not_there_exit_2(tmp_path):
    import torch

    bad = ["tpu"] + ([] if torch.cuda.is_available() else ["cuda"])
    for device in bad:
        res = runner.invoke(
            predict_app,
            ["train", "--data", "deepmimic", "--device", device, "-o", str(tmp_path / "m.pt")],
        )
        assert res.exit_code == 2
        assert len(res.stderr.strip().splitlines()) == 1
        assert "Traceback" not in res.stderr
        assert f"device {device}" in res.stderr or repr(device) in res.stderr
    assert not (tmp_path / "m.pt").exists()


def test_train_and_evaluate_bad_data(tmp_path):
    res = runner.invoke(predict_app, ["train", "--data", str(tmp_path / "nope"), "-o", "m.pt"])
    assert res.exit_code == 2
    assert "--data" in res.stderr
    res = runner.invoke(predict_app, ["train", "--data", str(tmp_path), "-o", "m.pt"])
    assert res.exit_code == 2
    assert "no motion files; --data needs CMU exp-map files" in res.stderr
    res = runner.invoke(
        predict_app, ["train", "--data", "deepmimic", "--model", "lstm", "-o", str(tmp_path / "m")]
    )
    assert res.exit_code == 2
    assert "--model must be one of lie-transformer, ltd, simlpe; got 'lstm'" in res.stderr


def _bvh_folder(tmp_path, frames):
    """Three overlapping pieces of the packaged CMU walk as a BVH training folder."""
    walk = cmu_walking_example()
    folder = tmp_path / "bvh" / "walk"
    folder.mkdir(parents=True)
    for k, a in enumerate((0, 20, 40)):
        save_motion(walk[a : a + frames], folder / f"walk_{k + 1}.bvh")


def test_train_on_bvh_folder_then_evaluate(tmp_path):
    _bvh_folder(tmp_path, 300)
    files = {}
    for kind in ("seed", "simlpe", "ltd"):  # "seed": the former spelling of lie-transformer
        files[kind] = tmp_path / f"{kind}.pt"
        res = runner.invoke(
            predict_app,
            [
                "train",
                "--data",
                str(tmp_path / "bvh"),
                "--epochs",
                "1",
                "--max-windows",
                "16",
                "--model",
                kind,
                "-o",
                str(files[kind]),
                "--json",
            ],
        )
        assert res.exit_code == 0, res.output
        assert files[kind].is_file()
        assert (tmp_path / f"{kind}.pt.ckpt").is_file()
    data = ["evaluate", "--data", str(tmp_path / "bvh")]
    res = runner.invoke(
        predict_app,
        [
            *data,
            "--checkpoint",
            str(files["seed"]),
            "--simlpe-checkpoint",
            str(files["simlpe"]),
            "--ltd-checkpoint",
            str(files["ltd"]),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    kinds = {"lie-transformer", "zero_velocity", "constant_velocity", "simlpe", "ltd"}
    assert set(d["models"]) == kinds
    assert d["horizons_ms"] == [80, 160, 320, 400, 560, 1000]
    assert d["windows"] > 0
    assert np.all(np.isfinite(d["models"]["zero_velocity"]["mpjpe_mm"]))
    # A model file of another kind than the option asks for is refused.
    res = runner.invoke(predict_app, [*data, "--ltd-checkpoint", str(files["simlpe"])])
    assert res.exit_code == 2
    assert "--ltd-checkpoint needs a model of kind 'ltd'" in res.stderr


def test_train_regularisation_options(tmp_path):
    _bvh_folder(tmp_path, 200)
    out = tmp_path / "m.pt"
    args = [
        "train",
        "--data",
        str(tmp_path / "bvh"),
        "--epochs",
        "1",
        "--max-windows",
        "16",
        "--mirror",
        "--reverse",
        "--ema",
        "0.9",
        "--weight-decay",
        "0.01",
        "--speed",
        "0.2",
        "--warmup",
        "4",
        "--json",
    ]
    res = runner.invoke(predict_app, [*args, "--dropout", "0.1", "-o", str(out)])
    assert res.exit_code == 0, res.output
    model, info = load_model(out)
    assert model.options()["dropout"] == 0.1
    train = info.train
    assert (train["mirror"], train["reverse"], train["ema"], train["weight_decay"]) == (
        True,
        True,
        0.9,
        0.01,
    )
    assert (train["speed"], train["warmup"]) == (0.2, 4)
    res = runner.invoke(predict_app, [*args, "--ema", "1", "-o", str(out)])
    assert res.exit_code == 2
    assert "ema" in res.stderr
    res = runner.invoke(predict_app, [*args, "--speed", "-0.1", "-o", str(out)])
    assert res.exit_code == 2
    assert "speed" in res.stderr
    res = runner.invoke(predict_app, [*args, "--warmup", "-1", "-o", str(out)])
    assert res.exit_code == 2
    assert "warmup" in res.stderr
    res = runner.invoke(predict_app, [*args, "--model", "simlpe", "--dropout", "0.1", "-o", "x"])
    assert res.exit_code == 2
    assert "dropout" in res.stderr
