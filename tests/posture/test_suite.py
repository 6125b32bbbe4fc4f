"""The posture suite: its manifest, and every stored witness re-checked from scratch."""

from __future__ import annotations

import numpy as np
import pytest

from vhuman.errors import FileFormatError
from vhuman.posture import worker_skeleton
from vhuman.posture.suite import REASONS, load_suite, recheck
from vhuman.scene import BodyModel, scene_from_dict

CASES = load_suite()
FEASIBLE = [c for c in CASES if c.feasible]


def test_the_suite_has_enough_feasible_and_infeasible_scenes() -> None:
    assert len(FEASIBLE) >= 15
    bad = [c for c in CASES if not c.feasible]
    assert {c.reason for c in bad} == set(REASONS)
    assert {c.worker for c in CASES} >= {"p95-male", "p5-female"}
    assert {c.side for c in CASES} == {"left", "right"}


@pytest.mark.parametrize("case", FEASIBLE, ids=[c.name for c in FEASIBLE])
def test_witness_reaches_the_target_and_passes_the_full_check(case) -> None:
    witness = case.witness()
    assert witness is not None, f"{case.name}: no witness stored"
    sk = worker_skeleton(case.worker)
    assert witness.local_rotations.shape == (sk.n_joints, 4)
    assert (witness.worker, witness.side) == (case.worker, case.side)
    chk, t, r = recheck(case, witness, BodyModel.from_skeleton(sk, samples_per_segment=1))
    assert chk.collision.n_contacts == 0, chk.failures()
    assert chk.within_limits, chk.failures()
    assert chk.balance.margin >= 0.0, chk.failures()
    assert t <= 0.005
    assert np.degrees(r) <= 3.0


def test_a_moved_witness_fails_its_check() -> None:
    # The check is not a rubber stamp: the same pose 0.6 m forward runs into the scene
    # or misses the target.
    case = next(c for c in FEASIBLE if c.name == "low-valve-duct")
    w = case.witness()
    assert w is not None
    moved = type(w)(
        w.scene,
        w.worker,
        w.side,
        w.posture,
        w.root_position + np.array([0.6, 0, 0]),
        w.local_rotations,
    )
    sk = worker_skeleton(case.worker)
    chk, t, _ = recheck(case, moved, BodyModel.from_skeleton(sk, samples_per_segment=1))
    assert chk.collision.in_collision
    assert t > 0.5


def test_a_target_inside_a_solid_is_refused_at_load() -> None:
    doc = {
        "name": "inside",
        "target": {"position": [0.5, 0.0, 1.0], "approach": [1, 0, 0]},
        "objects": [
            {"name": "block", "type": "box", "size": [0.4, 0.4, 0.4], "position": [0.5, 0.0, 1.0]}
        ],
    }
    with pytest.raises(FileFormatError, match="inside object 'block'"):
        scene_from_dict(doc, source="inside.yaml")
