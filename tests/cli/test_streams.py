"""Results go to stdout, and a quiet successful run leaves stderr empty."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vhuman.cli import main

RUNS: list[tuple[str, ...]] = [
    ("walk", "--cycles", "1", "-o", "w.bvh"),
    ("info", "w.bvh"),
    ("convert", "w.bvh", "w.npz"),
    ("view", "w.bvh", "-o", "w.html", "--max-frames", "10"),
    ("reach", "--target", "0.5", "-0.2", "1.3", "-o", "r.bvh"),
    ("ergo", "w.bvh"),
    ("physics", "simulate", "--cycles", "1", "-o", "s.bvh"),
]


def _run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, argv: tuple[str, ...]
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.argv", ["vhuman", *argv])
    with pytest.raises(SystemExit) as exit_info:
        main()
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


@pytest.fixture
def walk_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> Path:
    monkeypatch.chdir(tmp_path)
    code, _, err = _run(monkeypatch, capsys, RUNS[0])
    assert code == 0, err
    return tmp_path / "w.bvh"


@pytest.mark.parametrize("argv", RUNS, ids=[" ".join(a[:2]) for a in RUNS])
def test_results_on_stdout_nothing_on_stderr(
    walk_file: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
    argv: tuple[str, ...],
) -> None:
    code, out, err = _run(monkeypatch, capsys, argv)
    assert code == 0, err
    assert out.strip()
    assert err == ""
    code, out, err = _run(monkeypatch, capsys, (*argv, "--json"))
    assert code == 0, err
    assert isinstance(json.loads(out), dict)
    assert err == ""
