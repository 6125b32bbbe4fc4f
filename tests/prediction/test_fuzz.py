"""Damaged model and checkpoint files are refused in one line naming the file, never unpickled."""

from __future__ import annotations

import json
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import (
    FUZZ,
    CodeOnLoad,
    damaged_arrays,
    damaged_bytes,
    damaged_document,
    npz_arrays,
    read_or_refuse,
    refused_at_the_command_line,
)
from vhuman.errors import InputError
from vhuman.io import cmu_walking_example, save_motion
from vhuman.prediction import load_model
from vhuman.prediction.checkpoint import load_checkpoint
from vhuman.prediction.data import load_bvh_sequences
from vhuman.prediction.files import read_model_file, serialized
from vhuman.prediction.shipped import default_model_path

SHIPPED = default_model_path("lie-transformer")
VALID = SHIPPED.read_bytes()
PAYLOAD = read_model_file(SHIPPED)
CONFIG = json.loads(PAYLOAD["config"])


def _file(folder: Path, data: bytes) -> Path:
    path = folder / "model.pt"
    path.write_bytes(data)
    return path


def test_the_valid_file_reads(tmp_path: Path) -> None:
    model, info = load_model(_file(tmp_path, VALID))
    assert model.kind == "lie-transformer"
    assert len(info.joint_names) == len(CONFIG["parents"])


@FUZZ
@given(data=damaged_bytes(VALID))
def test_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    read_or_refuse(load_model, _file(tmp_path, data))


@FUZZ
@given(config=damaged_document(CONFIG))
def test_damaged_configuration(tmp_path: Path, config: Any) -> None:
    data = serialized({**PAYLOAD, "config": json.dumps(config)})
    read_or_refuse(load_model, _file(tmp_path, data))


@pytest.mark.parametrize("size", ["dim", "heads", "ff"])
def test_a_zero_size_is_refused_before_the_model_is_built(tmp_path: Path, size: str) -> None:
    config = {**CONFIG, "options": {**CONFIG["options"], size: 0}}
    path = _file(tmp_path, serialized({**PAYLOAD, "config": json.dumps(config)}))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch warns about zero-element tensors it builds
        with pytest.raises(InputError, match=f"{size} must be a whole number ≥ 1, got 0"):
            load_model(path)


@st.composite
def damaged_state(draw: st.DrawFn, state: dict[str, torch.Tensor]) -> dict[str, Any]:
    """``state`` with one or two tensors deleted, cut, flattened, NaN, integer or not tensors."""
    out = dict(state)
    for _ in range(draw(st.integers(1, 2))):
        key = draw(st.sampled_from(sorted(out)))
        value = out[key]
        if not isinstance(value, torch.Tensor):
            continue
        kind = draw(st.sampled_from(["delete", "cut", "flat", "nan", "int", "number", "text"]))
        if kind == "delete":
            del out[key]
        elif kind == "cut":
            out[key] = value.reshape(-1)[: max(value.numel() - 1, 0)]
        elif kind == "flat":
            out[key] = value.reshape(-1)
        elif kind == "nan" and value.is_floating_point():
            out[key] = torch.full_like(value, float("nan"))
        elif kind == "int":
            out[key] = torch.zeros_like(value, dtype=torch.int64)
        elif kind == "number":
            out[key] = 3.0
        else:
            out[key] = "weights"
    return out


@FUZZ
@given(state=damaged_state(PAYLOAD["state"]))
def test_damaged_weights(tmp_path: Path, state: dict[str, Any]) -> None:
    read_or_refuse(load_model, _file(tmp_path, serialized({**PAYLOAD, "state": state})))


def test_a_pickled_object_is_refused_unread(tmp_path: Path) -> None:
    marker = tmp_path / "unpickled"
    data = serialized({**PAYLOAD, "extra": CodeOnLoad(marker)})
    for read in (load_model, load_checkpoint):
        assert isinstance(read_or_refuse(read, _file(tmp_path, data)), InputError)
    assert not marker.exists()


@FUZZ
@given(data=damaged_bytes(VALID))
def test_checkpoints_damaged_bytes(tmp_path: Path, data: bytes) -> None:
    read_or_refuse(load_checkpoint, _file(tmp_path, data))


@pytest.fixture(scope="module")
def observed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("predict") / "observed.npz"
    save_motion(cmu_walking_example()[:40], path)
    return path


BAD = {
    "truncated": VALID[:5000],
    "nan weights": serialized(
        {**PAYLOAD, "state": {k: v * float("nan") for k, v in PAYLOAD["state"].items()}}
    ),
    "huge size": serialized({**PAYLOAD, "config": json.dumps({**CONFIG, "n_future": 10**9})}),
    "unknown kind": serialized({**PAYLOAD, "config": json.dumps({**CONFIG, "kind": "oracle"})}),
}


@pytest.mark.parametrize("damage", BAD)
def test_the_command_line_refuses(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
    observed: Path,
    damage: str,
) -> None:
    path = _file(tmp_path, BAD[damage])
    argv = ["predict", "run", "--input", str(observed), "--checkpoint", str(path)]
    refused_at_the_command_line([*argv, "-o", str(tmp_path / "f.npz")], path, monkeypatch, capsys)


@pytest.fixture(scope="module")
def bvh_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bvh")
    (folder / "walk").mkdir()
    save_motion(cmu_walking_example()[:60], folder / "walk" / "walk_1.bvh")
    return folder


@pytest.fixture(scope="module")
def valid_cache(
    bvh_folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, bytes, dict[str, np.ndarray]]:
    """Name and bytes of the data cache file of ``bvh_folder``, and its arrays read uncached."""
    folder = tmp_path_factory.mktemp("cache")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("VHUMAN_CACHE_DIR", str(folder))
        load_bvh_sequences(bvh_folder)
    (cache,) = folder.rglob("*.npz")
    expected = load_bvh_sequences(bvh_folder, cache=False).to_arrays()
    return str(cache.relative_to(folder)), cache.read_bytes(), expected


@FUZZ
@given(edit=st.data())
def test_a_damaged_data_cache_is_rebuilt(
    tmp_path: Path,
    bvh_folder: Path,
    valid_cache: tuple[str, bytes, dict[str, np.ndarray]],
    edit: st.DataObject,
) -> None:
    """The preprocessed-data cache (an npz) damaged: the data are read again, unchanged."""
    name, data, expected = valid_cache
    cache = tmp_path / "cache" / name
    cache.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "c.npz").write_bytes(data)
        arrays = npz_arrays(Path(folder) / "c.npz")
    cache.write_bytes(edit.draw(damaged_bytes(data) | damaged_arrays(arrays)))
    got = load_bvh_sequences(bvh_folder).to_arrays()
    assert set(got) == set(expected)
    for key, value in expected.items():
        np.testing.assert_array_equal(got[key], value)
