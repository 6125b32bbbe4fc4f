"""The benchmark scripts end on Ctrl-C and on an unwritable output with one line, no traceback."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from interrupt import sigint_as_in_a_terminal

REPO_ROOT = Path(__file__).resolve().parents[1]
POSTURE = REPO_ROOT / "benchmarks" / "posture.py"


def _start(args: list[str], cwd: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    return subprocess.Popen(
        [sys.executable, str(POSTURE), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=sigint_as_in_a_terminal,
        text=True,
        env=env,
        cwd=cwd,
    )


def test_sigint_prints_one_line_and_exits_130(tmp_path: Path) -> None:
    proc = _start(["--only", "low-valve-duct", "--no-baseline"], tmp_path)
    assert proc.stdout is not None
    proc.stdout.readline()  # its table header: the imports are done, the work begins
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err == "interrupted\n"


def test_unwritable_output_is_refused_before_the_work(tmp_path: Path) -> None:
    out = tmp_path / "missing" / "posture.json"
    proc = _start(["--only", "low-valve-duct", "--json", str(out)], tmp_path)
    stdout, err = proc.communicate(timeout=60)
    assert proc.returncode == 2
    assert err.count("\n") == 1
    assert "--json" in err
    assert "does not exist" in err
    assert len(stdout.splitlines()) == 1  # only the table header: no scene was solved


def test_swivel_pairs_name_the_unknown_feature_set_or_model(tmp_path: Path) -> None:
    (tmp_path / "train").mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    script = str(REPO_ROOT / "benchmarks" / "swivel.py")
    for pairs, named in (("swivel:gbm,wrist:forest", "forest"), ("swivel", "FEATURES:MODEL")):
        proc = subprocess.run(
            [sys.executable, script, "--data", str(tmp_path), "--pairs", pairs],
            capture_output=True,
            text=True,
            env=env,
            timeout=120,
        )
        assert proc.returncode == 2
        assert named in proc.stderr
        assert proc.stdout == ""
