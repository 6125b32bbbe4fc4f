"""`vhuman demo` killed, then run again: the parts done are reused, the same summary.

The parts' own work is replaced by quick stand-ins (each adds a section, a glance row and
a file, and notes that it ran); what is tested is the keeping and reusing of parts.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from vhuman.cli.demo import SECTIONS, run_demo

_STAND_INS = """
import time
from pathlib import Path
from types import SimpleNamespace

import vhuman.animation
import vhuman.cli.demo as demo
import vhuman.io
from vhuman.errors import InputError


def _note(out, name):
    with open(out / "ran.txt", "a") as f:
        f.write(name + "\\n")


def _part(name):
    def section(report, out, step):
        time.sleep(0.2)
        s = report.add_section(name, f"the {name} part")
        report.add_summary(s, f"{name} figures", "a reference")
        (out / f"{name}.txt").write_text(name)
        s.add_file_link(out / f"{name}.txt", name)
        step()
        _note(out, name)
        return {"part": name, "value": 0.1 + len(name) / 3.0}
    return section


def _walk(report, motion, out, name, joints, step, extra):
    return _part(name)(report, out, step)


def _no_deepmimic(name):
    raise InputError("no pybullet data")


vhuman.animation.generate_walk = lambda p: SimpleNamespace(
    motion=None, to_dict=lambda: {"requested": 0}
)
vhuman.io.deepmimic_clip_path = _no_deepmimic
demo._cmu_beside_generated = lambda: (None, {})
demo._walk_section = _walk
for _name in ("reach", "posture", "task", "physics", "prediction"):
    setattr(demo, f"_{_name}_section", _part(_name))
"""


@pytest.fixture
def stand_ins() -> None:
    """The quick stand-ins, in this process (undone after the test)."""
    import vhuman.animation
    import vhuman.cli.demo as demo
    import vhuman.io

    saved = {
        (m, k): getattr(m, k)
        for m, k in [(vhuman.animation, "generate_walk"), (vhuman.io, "deepmimic_clip_path")]
        + [(demo, f"_{n}_section") for n in ("walk", "reach", "posture", "task", "prediction")]
        + [(demo, "_physics_section"), (demo, "_cmu_beside_generated")]
    }
    exec(_STAND_INS, {})
    yield
    for (m, k), v in saved.items():
        setattr(m, k, v)


def _summary(folder: Path) -> str:
    return (folder / "summary.json").read_text().replace(str(folder), "OUT")


def test_demo_killed_at_a_random_moment_reuses_the_parts_done(stand_ins, tmp_path) -> None:
    whole = tmp_path / "whole"
    run_demo(whole)
    assert (whole / "ran.txt").read_text().split() == [
        "generated_walk",
        "cmu_walk",
        "reach",
        "posture",
        "task",
        "prediction",
    ]
    out = tmp_path / "out"
    script = _STAND_INS + f"\ndemo.run_demo(Path({str(out)!r}))\n"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    job = subprocess.Popen([sys.executable, "-c", script], env=env)
    deadline = time.monotonic() + 60
    while not (out / SECTIONS).is_dir() and job.poll() is None and time.monotonic() < deadline:
        time.sleep(0.005)
    time.sleep(random.uniform(0.0, 1.2))
    job.send_signal(signal.SIGKILL)
    job.wait(timeout=30)
    done = sorted(p.stem for p in (out / SECTIONS).glob("*.npz"))
    ran_before = (out / "ran.txt").read_text().split() if (out / "ran.txt").exists() else []
    complete = (out / "summary.json").exists()
    run_demo(out)
    ran = (out / "ran.txt").read_text().split()[len(ran_before) :]
    if not complete:
        assert not set(done) & set(ran), "a part kept by the killed run was run again"
    assert _summary(out) == _summary(whole)
    page, whole_page = ((d / "report.html").read_text() for d in (out, whole))
    assert page.replace(str(out), "OUT") == whole_page.replace(str(whole), "OUT")
    assert not [p.name for p in out.iterdir() if p.name.startswith(".")]


def test_a_complete_demo_folder_is_run_again_from_the_start(stand_ins, tmp_path) -> None:
    run_demo(tmp_path)
    first = (tmp_path / "ran.txt").read_text()
    run_demo(tmp_path)
    assert (tmp_path / "ran.txt").read_text() == first * 2


def test_a_part_changed_after_it_was_kept_is_one_line(stand_ins, tmp_path) -> None:
    from vhuman.errors import InputError

    (tmp_path / SECTIONS).mkdir()
    (tmp_path / SECTIONS / "reach.npz").write_bytes(b"")
    with pytest.raises(InputError, match=r"reach\.npz is empty") as err:
        run_demo(tmp_path)
    assert "\n" not in str(err.value)
