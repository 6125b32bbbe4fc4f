"""Checkpoints of long jobs: exact round trip, identity, damaged files refused in one line."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import FileFormatError, InputError
from vhuman.io.checkpoint import load_checkpoint, read_checkpoint, write_checkpoint

IDENTITY = {"seed": 3, "task": "ab12"}


def _write(path) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(0)
    arrays = {
        "roots": rng.normal(size=(7, 3)),
        "walking": rng.random(7) > 0.5,
        "q": rng.normal(size=(2, 4)).astype(np.float32),
    }
    write_checkpoint(path, IDENTITY, {"heading": 0.1 + 0.2, "names": ["a", None]}, arrays)
    return arrays


def test_round_trip_is_bit_for_bit(tmp_path) -> None:
    path = tmp_path / "c.npz"
    arrays = _write(path)
    state, back = read_checkpoint(path, dict(IDENTITY))
    assert state == {"heading": 0.1 + 0.2, "names": ["a", None]}
    assert back.keys() == arrays.keys()
    for k, a in arrays.items():
        assert back[k].dtype == a.dtype
        np.testing.assert_array_equal(back[k], a)
    assert load_checkpoint(path)[0] == IDENTITY
    assert not [p.name for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_another_setting_is_named_with_both_values(tmp_path) -> None:
    path = tmp_path / "c.npz"
    _write(path)
    with pytest.raises(InputError, match="seed = 3; this run has seed = 4 \\(use the same"):
        read_checkpoint(path, {**IDENTITY, "seed": 4})
    with pytest.raises(InputError, match="extra = None; this run has extra = 1"):
        read_checkpoint(path, {**IDENTITY, "extra": 1})


def _changed_array(path) -> None:
    data = dict(np.load(path))
    data["roots"] = data["roots"] + 1e-12
    with open(path, "wb") as fh:
        np.savez(fh, **data)


def _foreign(path) -> None:
    with open(path, "wb") as fh:
        np.savez(fh, x=np.zeros(3))


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda p: p.write_bytes(b""), "is empty (0 bytes)"),
        (lambda p: p.write_bytes(p.read_bytes()[:200]), "truncated or not a checkpoint"),
        (lambda p: p.write_text("{}"), "truncated or not a checkpoint"),
        (_changed_array, "changed after it was written (checksum mismatch)"),
        (_foreign, "not a checkpoint of this job"),
    ],
)
def test_a_damaged_checkpoint_is_one_line_naming_the_file(tmp_path, damage, words) -> None:
    path = tmp_path / "c.npz"
    _write(path)
    damage(path)
    with pytest.raises(FileFormatError) as err:
        read_checkpoint(path, IDENTITY)
    message = str(err.value)
    assert str(path) in message
    assert words in message
    assert "\n" not in message


def test_a_missing_checkpoint_is_an_input_error(tmp_path) -> None:
    with pytest.raises(InputError, match="cannot read checkpoint"):
        load_checkpoint(tmp_path / "none.npz")


def test_state_must_be_json(tmp_path) -> None:
    with pytest.raises(TypeError):
        write_checkpoint(tmp_path / "c.npz", IDENTITY, {"x": object()})
    assert not list(tmp_path.iterdir())  # nothing written, no temporary file left
