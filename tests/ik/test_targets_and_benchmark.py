"""Random reachable targets, and the IK benchmark script run on a few of them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from vhuman.ik import CCD, Chain, random_reachable_targets
from vhuman.skeleton import Skeleton

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_targets_lie_within_the_chain_length_of_its_start(
    chains: dict[str, Chain], humanoid: Skeleton
) -> None:
    arm = chains["arm"]
    targets = random_reachable_targets(arm, 64, np.random.default_rng(3))
    assert targets.shape == (64, 3)
    shoulder = humanoid.rest_positions()[arm.joints[0]]
    assert np.all(np.linalg.norm(targets - shoulder, axis=-1) <= arm.length + 1e-9)
    # Random poses differ, and the same generator state gives the same targets.
    assert len(np.unique(np.round(targets, 9), axis=0)) == 64
    again = random_reachable_targets(arm, 64, np.random.default_rng(3))
    np.testing.assert_array_equal(targets, again)


def test_targets_are_reached_by_ccd(chains: dict[str, Chain]) -> None:
    arm = chains["arm"]
    targets = random_reachable_targets(arm, 32, np.random.default_rng(5))
    result = CCD().solve(arm, targets)
    assert result.success_rate >= 0.9


def test_benchmark_script_rows_and_json_line(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT / "src")}
    proc = subprocess.run(
        [sys.executable, str(REPO_ROOT / "benchmarks" / "ik.py"), "--targets", "3", "--batch", "4"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["benchmark"] == "ik"
    solvers = {(r["solver"], r["problem"]) for r in out["rows"]}
    assert {("CCD", "arm7"), ("two-stage CCD", "body"), ("FABRIK", "body"), ("DLS", "arm7")} <= (
        solvers
    )
    for row in out["rows"]:
        assert 0.0 <= row["success"] <= 1.0
        assert row["median_ms"] > 0.0
