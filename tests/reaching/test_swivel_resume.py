"""Swivel MLP training resumed from its checkpoint: the weights of an uninterrupted run."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from vhuman.errors import InputError
from vhuman.reaching.predictors import MLPPredictor

torch = pytest.importorskip("torch", reason="the MLP trains with torch")

_N = 160
_KILLED_EPOCHS = 100


@pytest.fixture(autouse=True)
def _one_thread() -> Iterator[None]:
    """One torch thread: these tiny networks only wait on more on a loaded machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def _data(shift: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)
    x = rng.normal(size=(_N, 8))
    return x, np.tanh(x[:, 0] - 0.5 * x[:, 3] + shift)


def _mlp(epochs: int = 40, seed: int = 1) -> MLPPredictor:
    return MLPPredictor(8, epochs=epochs, batch_size=32, seed=seed)


def _weights(p: MLPPredictor) -> dict[str, np.ndarray]:
    assert p.weights_ is not None
    return p.weights_


def _assert_same(a: MLPPredictor, b: MLPPredictor) -> None:
    wa, wb = _weights(a), _weights(b)
    assert wa.keys() == wb.keys()
    for k in wa:
        np.testing.assert_array_equal(wa[k], wb[k], err_msg=k)


def test_stopped_and_resumed_training_ends_with_the_uninterrupted_weights(tmp_path) -> None:
    x, phi = _data()
    whole = _mlp().fit(x, phi)
    ckpt = tmp_path / "m.ckpt"
    _mlp().fit(x, phi, checkpoint=ckpt, stop_after=13)
    resumed = _mlp().fit(x, phi, checkpoint=ckpt, resume=True)
    _assert_same(resumed, whole)
    # Without --resume the checkpoint is ignored: a fresh run, the same weights again.
    _assert_same(_mlp().fit(x, phi, checkpoint=ckpt), whole)


def test_a_checkpoint_of_another_setting_or_data_is_refused(tmp_path) -> None:
    x, phi = _data()
    ckpt = tmp_path / "m.ckpt"
    _mlp().fit(x, phi, checkpoint=ckpt, stop_after=2)
    with pytest.raises(InputError, match="seed = 1; this run has seed = 2"):
        _mlp(seed=2).fit(x, phi, checkpoint=ckpt, resume=True)
    with pytest.raises(InputError, match="epochs = 40; this run has epochs = 50"):
        _mlp(epochs=50).fit(x, phi, checkpoint=ckpt, resume=True)
    with pytest.raises(InputError, match="belongs to a run with data = "):
        _mlp().fit(*_data(0.1), checkpoint=ckpt, resume=True)


@pytest.mark.parametrize("damage", ["empty", "truncated", "changed"])
def test_a_damaged_checkpoint_is_one_line(tmp_path, damage: str) -> None:
    x, phi = _data()
    ckpt = tmp_path / "m.ckpt"
    _mlp().fit(x, phi, checkpoint=ckpt, stop_after=1)
    data = ckpt.read_bytes()
    if damage == "empty":
        ckpt.write_bytes(b"")
    elif damage == "truncated":
        ckpt.write_bytes(data[: len(data) // 2])
    else:
        from vhuman.prediction.files import read_model_file, serialized

        payload = read_model_file(ckpt)
        payload["epoch"] = 5
        ckpt.write_bytes(serialized(payload))
    with pytest.raises(InputError) as err:
        _mlp().fit(x, phi, checkpoint=ckpt, resume=True)
    assert str(ckpt) in str(err.value)
    assert "\n" not in str(err.value)


_TRAIN = """
import sys
import numpy as np
sys.path.insert(0, {tests!r})
from test_swivel_resume import _data, _mlp
_mlp(epochs={epochs}).fit(*_data(), checkpoint={ckpt!r})
"""


def test_training_killed_at_a_random_moment_resumes_to_the_uninterrupted_weights(
    tmp_path,
) -> None:
    """SIGKILL at a random moment after the first checkpoint (during a write as likely as
    not, each epoch writing one), then resume: the weights of an uninterrupted run."""
    x, phi = _data()
    ckpt = tmp_path / "m.ckpt"
    script = _TRAIN.format(tests=str(Path(__file__).parent), ckpt=str(ckpt), epochs=_KILLED_EPOCHS)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "OMP_NUM_THREADS": "1"}
    job = subprocess.Popen([sys.executable, "-c", script], env=env)
    deadline = time.monotonic() + 60
    while not ckpt.exists() and job.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(random.uniform(0.0, 0.3))
    assert job.poll() is None, "the training ended before it could be killed"
    job.send_signal(signal.SIGKILL)
    job.wait(timeout=30)
    resumed = _mlp(epochs=_KILLED_EPOCHS).fit(x, phi, checkpoint=ckpt, resume=True)
    _assert_same(resumed, _mlp(epochs=_KILLED_EPOCHS).fit(x, phi))
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


@pytest.mark.shared
def test_swivel_train_resumed_with_another_seed_is_one_line_exit_2(
    shared_data: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from vhuman.cli.app import app

    folder = tmp_path / "data" / "train" / "walking"
    folder.mkdir(parents=True)
    for name in ("walking_4.txt", "walking_5.txt"):
        (folder / name).symlink_to(shared_data / "train" / "walking" / name)
    out = tmp_path / "swivel.npz"
    args = [
        "swivel",
        "train",
        "--data",
        str(tmp_path / "data"),
        "--epochs",
        "3",
        "--hidden",
        "8",
        "-o",
        str(out),
        "--json",
    ]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    again = CliRunner().invoke(app, [*args, "--resume", "--seed", "2"])
    assert again.exit_code == 2
    assert again.output.strip().count("\n") == 0
    assert "seed = 0; this run has seed = 2" in again.output
    resumed = CliRunner().invoke(app, [*args, "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert resumed.stdout == first.stdout
