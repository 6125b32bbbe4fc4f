"""Damaged controller and checkpoint files are refused cleanly, never with a traceback."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from vhuman.control.controller import default_controller_path, load_controller
from vhuman.control.evolution import Evaluation, EvolutionConfig, evolve
from vhuman.errors import InputError

FUZZ = settings(max_examples=60, suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def damaged(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` with one to three random byte flips, cuts or insertions."""
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 3))):
        at = draw(st.integers(0, max(len(out) - 1, 0)))
        kind = draw(st.sampled_from(["flip", "cut", "insert"]))
        if kind == "flip" and out:
            out[at] = draw(st.integers(32, 126))
        elif kind == "cut":
            del out[at : at + draw(st.integers(1, 32))]
        else:
            out[at:at] = draw(st.binary(min_size=1, max_size=8))
    return bytes(out)


CONTROLLER = default_controller_path().read_bytes()


@FUZZ
@given(data=damaged(CONTROLLER))
def test_controller_files(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / "c.json"
    path.write_bytes(data)
    try:
        load_controller(path)
    except InputError as exc:
        assert str(exc).strip()  # noqa: PT017


def _toy(x: np.ndarray, horizon: float) -> Evaluation:
    return Evaluation(objectives=tuple(float(v) for v in x), survived=horizon, violation=False)


@pytest.fixture(scope="module")
def checkpoint(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    path = tmp_path_factory.mktemp("ckpt") / "run.json"
    evolve(_toy, _config(), rng=0, checkpoint=path, stop_after=1)
    return path.read_bytes()


def _config() -> EvolutionConfig:
    return EvolutionConfig(lower=np.zeros(2), upper=np.ones(2), population=4, generations=2,
                           target=1.0, window_start=1.0)  # fmt: skip


@FUZZ
@given(edit=st.data())
def test_checkpoint_files(tmp_path: Path, checkpoint: bytes, edit: st.DataObject) -> None:
    path = tmp_path / "run.json"
    path.write_bytes(edit.draw(damaged(checkpoint)))
    try:
        evolve(_toy, _config(), checkpoint=path)
    except InputError as exc:
        assert str(exc).strip()  # noqa: PT017
