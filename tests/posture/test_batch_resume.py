"""A posture batch killed at random moments resumes by skipping finished cases; the
manifest appears only when every case is complete."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

from vhuman.posture.batch import CASE_RECORD, MANIFEST, PostureTask, case_folder

WORKERS = ("p95-male", "p50-female", "p5-female")
SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path

    from vhuman.cli.posture import write_posture_outputs
    from vhuman.posture import PostureSettings, PostureTask, solve_into

    TINY = PostureSettings(population=6, generations=2, max_arm_attempts=1, max_checks=20,
                           octree_depth=2)
    if __name__ == "__main__":
        tasks = [PostureTask("ship-valve", w, 0) for w in sys.argv[3:]]
        solve_into(tasks, Path(sys.argv[1]), write_posture_outputs, workers=int(sys.argv[2]),
                   settings=TINY)
    """
)


def _batch(script: Path, folder: Path, workers: int = 1) -> list[str]:
    return [sys.executable, str(script), str(folder), str(workers), *WORKERS]


def _figures(doc: dict[str, Any]) -> dict[str, Any]:
    """A case's figures without its run time and file paths."""
    return {k: v for k, v in doc.items() if k not in ("solve_time_s", "files")}


def _hidden(folder: Path) -> list[str]:
    return [p.name for p in folder.rglob(".*")]


def test_a_killed_batch_resumes_by_skipping_finished_cases(tmp_path: Path) -> None:
    script = tmp_path / "batch.py"
    script.write_text(SCRIPT)
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    reference = subprocess.Popen(_batch(script, whole), stderr=subprocess.PIPE)
    first = case_folder(cut, PostureTask("ship-valve", WORKERS[0])) / CASE_RECORD
    job = subprocess.Popen(_batch(script, cut), stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while not first.exists() and job.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(random.Random(27).uniform(0.0, 1.5))  # within a case's solving or writing
    job.kill()
    job.wait(timeout=30)
    if job.returncode != 0:  # killed before the end: marked incomplete
        assert not (cut / MANIFEST).exists()
    assert first.is_file()
    record = first.read_bytes()
    subprocess.run(_batch(script, cut), check=True, capture_output=True)
    assert reference.wait(timeout=120) == 0, reference.stderr.read() if reference.stderr else ""
    assert first.read_bytes() == record  # the finished case was not solved again
    cases = json.loads((cut / MANIFEST).read_text())["cases"]
    expected = json.loads((whole / MANIFEST).read_text())["cases"]
    assert [_figures(c) for c in cases] == [_figures(c) for c in expected]
    for w in WORKERS:
        task = PostureTask("ship-valve", w)
        got = json.loads((case_folder(cut, task) / "posture.json").read_text())
        want = json.loads((case_folder(whole, task) / "posture.json").read_text())
        assert _figures(got) == _figures(want)
    assert not _hidden(cut)
