"""Many posture tasks: local processes and a real local Dask cluster."""

from __future__ import annotations

import pytest

from vhuman.errors import InputError
from vhuman.posture import PostureResult, PostureSettings, PostureTask, solve_many

TINY = PostureSettings(
    population=6, generations=2, max_arm_attempts=1, max_checks=20, octree_depth=2
)


def test_bad_task_is_returned_not_raised() -> None:
    out = solve_many(
        [PostureTask("no-such-scene"), PostureTask("over-pipe", seed=1)], workers=1, settings=TINY
    )
    assert isinstance(out[0], InputError)
    assert "built-in scenes" in str(out[0])
    assert isinstance(out[1], PostureResult)
    assert out[1].seed == 1


def test_target_inside_an_object_is_bad_input() -> None:
    with pytest.raises(InputError, match="inside"):
        PostureTask("ship-valve", target=(1.3, 0.0, 0.6)).load()  # the tank's centre


def test_local_dask_cluster() -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None
    ) as cluster:
        tasks = [PostureTask("over-pipe", "p95-male", 0), PostureTask("over-pipe", "p50-female", 0)]
        out = solve_many(tasks, scheduler=cluster.scheduler_address, settings=TINY)
    local = solve_many(tasks[:1], workers=1, settings=TINY)
    assert [r.worker for r in out] == ["p95-male", "p50-female"]
    assert all(isinstance(r, PostureResult) for r in out)
    # The same task gives the same posture on the cluster and here.
    assert out[0].to_dict()["placement"] == local[0].to_dict()["placement"]
