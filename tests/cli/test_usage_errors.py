"""Usage errors at the console script: one line naming command and option, exit status 2."""

from __future__ import annotations

import pytest

from vhuman.cli import main


def _run(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, *argv: str):
    monkeypatch.setattr("sys.argv", ["vhuman", *argv])
    with pytest.raises(SystemExit) as exit_info:
        main()
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


@pytest.mark.parametrize(
    ("argv", "names"),
    [
        (("walk", "--step-length", "abc"), ("vhuman walk", "--step-length")),
        (("walk", "--cycles", "1e9"), ("vhuman walk", "--cycles")),
        (("walk", "--no-such-option"), ("vhuman walk", "--no-such-option")),
        (("reach",), ("vhuman reach", "--target")),
        (("no-such-command",), ("vhuman", "no-such-command")),
        (("physics", "simulate", "--cycles", "many"), ("vhuman physics simulate", "--cycles")),
        (("posture", "--scene", "ship-valve", "-j", "0"), ("vhuman posture", "--jobs")),
    ],
)
def test_usage_error_is_one_line_and_exit_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, argv: tuple, names: tuple
) -> None:
    code, out, err = _run(monkeypatch, capsys, *argv)
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    for name in names:
        assert name in lines[0]


def test_success_exits_0(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    code, out, _ = _run(monkeypatch, capsys, "--version")
    assert code == 0
    assert out.startswith("vhuman ")


def test_group_without_command_shows_help_and_exits_2(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    code, out, err = _run(monkeypatch, capsys, "physics")
    assert code == 2
    assert "simulate" in out + err
