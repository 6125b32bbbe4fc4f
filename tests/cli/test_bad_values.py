"""Every command refuses a bad value of each kind in one line naming the option, exit 2.

Kinds: a value of the wrong type (Typer's parse error), one out of the
option's range, an unknown choice, a missing file. The line must name the
option as typed at the command line (``--step-length``), never the Python
parameter (``step_length``), and nothing may reach stdout.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.main import get_command

from vhuman.cli import app, main
from vhuman.cli.options import renamed, rewrite_spellings

CASES: list[tuple[tuple[str, ...], str]] = [
    (("info", "missing.bvh"), "missing.bvh"),
    (("info", "missing.bvh", "--json", "--unit", "x"), "missing.bvh"),
    (("convert", "missing.bvh", "out.npz", "--fps", "fast"), "--fps"),
    (("view", "missing.bvh", "--max-frames", "1"), "--max-frames"),
    (("view", "missing.bvh", "--fps", "0"), "--fps"),
    (("walk", "--step-length", "abc"), "--step-length"),
    (("walk", "--step-length", "-1"), "--step-length"),
    (("walk", "--speed", "0"), "--speed"),
    (("walk", "--cycles", "0"), "--cycles"),
    (("walk", "--turn", "nan"), "--turn"),
    (("walk", "--stature", "9"), "--stature"),
    (("walk", "--fps", "0"), "--fps"),
    (("walk", "--leg-ik", "magic"), "--leg-ik"),
    (("walk", "--cycles", "100000000"), "at most 1,000,000 frames"),
    (("reach", "--target", "0.5", "0", "x"), "--target"),
    (("reach", "--target", "0.5", "0", "1", "--arm", "up"), "--arm"),
    (("reach", "--target", "0.5", "0", "1", "--duration", "-1"), "--duration"),
    (("reach", "--target", "0.5", "0", "1", "--fps", "0"), "--fps"),
    (("reach", "--target", "0.5", "0", "1", "--fps", "1e9"), "at most 1,000,000 frames"),
    (("reach", "--target", "0.5", "0", "1", "--max-joint-speed", "0"), "--max-joint-speed"),
    (("reach", "--target", "0.5", "0", "1", "--checkpoint", "missing.npz"), "missing.npz"),
    (("posture", "--scene", "nowhere"), "nowhere"),
    (("posture", "--scene", "ship-valve", "--body", "p7-cat"), "--body"),
    (("posture", "--scene", "ship-valve", "--target", "nan", "0", "1"), "--target"),
    (("posture", "--scene", "ship-valve", "--jobs", "0"), "--jobs"),
    (("posture", "--scene", "ship-valve", "--seed", "-1"), "--seed"),
    (("task", "missing.yaml"), "missing.yaml"),
    (("task", "ship-valve", "--seed", "x"), "--seed"),
    (("task", "ship-valve", "--seed", "-1"), "--seed"),
    (("ergo", "missing.bvh", "--load", "-1"), "--load"),
    (("ergo", "missing.bvh", "--load", "heavy"), "--load"),
    (("ergo", "missing.bvh"), "missing.bvh"),
    (("ergo", "missing.bvh", "--coupling", "meh"), "--coupling"),
    (("ergo", "missing.bvh", "--load-pattern", "often"), "--load-pattern"),
    (("swivel", "train", "--data", "missing-folder", "--model", "forest"), "--model"),
    (("swivel", "train", "--data", "missing-folder", "--epochs", "0"), "--epochs"),
    (("swivel", "train", "--data", "missing-folder", "--seed", "-1"), "--seed"),
    (("swivel", "train", "--data", "missing-folder"), "--data"),
    (("swivel", "evaluate", "--data", "missing-folder"), "--data"),
    (("swivel", "evaluate", "--data", "missing-folder", "--checkpoint", "none.npz"), "none.npz"),
    (("physics", "simulate", "--cycles", "many"), "--cycles"),
    (("physics", "simulate", "--cycles", "-1"), "--cycles"),
    (("physics", "simulate", "--push", "hard"), "--push"),
    (("physics", "simulate", "--controller", "missing.json"), "missing.json"),
    (("physics", "optimize", "--target-cycles", "-1"), "--target-cycles"),
    (("physics", "optimize", "--jobs", "0"), "--jobs"),
    (("physics", "optimize", "--population", "1"), "--population"),
    (("predict", "train", "--data", "missing-folder"), "--data"),
    (("predict", "train", "--data", "missing-folder", "--batch-size", "0"), "--batch-size"),
    (("predict", "train", "--data", "missing-folder", "--seed", "-2"), "--seed"),
    (("predict", "evaluate", "--data", "missing-folder"), "--data"),
    (("predict", "run", "--input", "missing.bvh"), "missing.bvh"),
    (("predict", "run", "--input", "missing.bvh", "--frames", "few"), "--frames"),
    (("posture", "--scene", "ship-valve", "--seed", "many"), "--seed"),
    (("demo", "--json", "--output", "README.md"), "README.md"),
]


def _run(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture, argv: tuple[str, ...]
) -> tuple[int, str, str]:
    monkeypatch.setattr("sys.argv", ["vhuman", *argv])
    with pytest.raises(SystemExit) as exit_info:
        main()
    captured = capsys.readouterr()
    return exit_info.value.code, captured.out, captured.err


@pytest.mark.parametrize(("argv", "named"), CASES, ids=[" ".join(a) for a, _ in CASES])
def test_bad_value_is_one_line_naming_the_option(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture,
    tmp_path: Path,
    argv: tuple[str, ...],
    named: str,
) -> None:
    if "README.md" in argv:
        (tmp_path / "README.md").write_text("a file, not a folder\n")
    monkeypatch.chdir(tmp_path)
    code, out, err = _run(monkeypatch, capsys, argv)
    assert code == 2, err
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ")
    assert named in lines[0]
    python_names = {
        p.name for p in _command(argv).params if p.name and "_" in p.name and p.name != "as_json"
    }
    for name in python_names:
        assert f"{name} " not in lines[0], f"parameter name {name!r} in {lines[0]!r}"


def _command(argv: tuple[str, ...]):
    command = get_command(app)
    for word in argv:
        sub = getattr(command, "commands", {}).get(word)
        if sub is None:
            break
        command = sub
    return command


def _leaf_commands():
    root = get_command(app)
    stack = [((), root)]
    while stack:
        path, command = stack.pop()
        subs = getattr(command, "commands", None)
        if subs:
            stack.extend(((*path, name), sub) for name, sub in subs.items())
        else:
            yield path, command


def test_every_command_has_a_bad_value_case() -> None:
    covered = {" ".join(_command_words(argv)) for argv, _ in CASES}
    every = {" ".join(path) for path, _ in _leaf_commands()}
    assert every <= covered, every - covered


def _command_words(argv: tuple[str, ...]) -> list[str]:
    command, words = get_command(app), []
    for word in argv:
        sub = getattr(command, "commands", {}).get(word)
        if sub is None:
            break
        command, words = sub, [*words, word]
    return words


def test_former_spellings_point_at_options_of_their_command() -> None:
    for path, command in _leaf_commands():
        former = getattr(command, "former_spellings", {})
        spelled = {o for p in command.params for o in p.opts}
        for old, new in former.items():
            assert new in spelled, f"{' '.join(path)}: {old} → {new}, which it lacks"
            assert old not in spelled, f"{' '.join(path)}: {old} is still an option"


def test_former_spelling_is_accepted_with_a_note_and_hidden_from_help(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    code, out, err = _run(
        monkeypatch, capsys, ("posture", "--scene", "ship-valve", "--worker", "p7-cat")
    )
    assert code == 2
    assert out == ""
    note, error = err.strip().splitlines()
    assert note.startswith("note: --worker is now --body")
    assert error.startswith("error: --body 'p7-cat' is unknown")
    code, out, _ = _run(monkeypatch, capsys, ("posture", "--help"))
    assert code == 0
    assert "--body" in out
    assert "--worker " not in out


def test_rewrite_spellings_keeps_values_and_everything_after_a_double_dash() -> None:
    args, used = rewrite_spellings(
        ["--workers", "3", "--workers=4", "--seed", "1", "--", "--workers"], {"--workers": "--jobs"}
    )
    assert args == ["--jobs", "3", "--jobs=4", "--seed", "1", "--", "--workers"]
    assert used == [("--workers", "--jobs")]
    assert rewrite_spellings(["--workersx"], {"--workers": "--jobs"}) == (["--workersx"], [])


def test_renamed_command_class_records_its_spellings() -> None:
    cls = renamed({"--old": "--new"})
    assert dict(cls.former_spellings) == {"--old": "--new"}
