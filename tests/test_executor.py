"""Executors: results in order, and local workers never outlive their parent."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from vhuman.errors import InputError
from vhuman.executor import make_executor


def _square(x: int) -> int:
    return x * x


@pytest.mark.parametrize("workers", [1, 2])
def test_map_keeps_the_order(workers: int) -> None:
    with make_executor(workers) as executor:
        assert list(executor.map(_square, range(7))) == [x * x for x in range(7)]


def test_bad_worker_count_is_refused() -> None:
    with pytest.raises(InputError), make_executor(0):
        pass


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead but not yet reaped; /proc says which.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"))


def _kill_and_check(script: str, tmp_path: Path) -> None:
    """Run ``script`` (which writes its workers' ids to ``argv[1]``), SIGKILL it once they
    are up, and assert that no worker outlives it by 10 s."""
    pids = tmp_path / "pids"
    main = tmp_path / "main.py"
    main.write_text(textwrap.dedent(script))
    parent = subprocess.Popen([sys.executable, str(main), str(pids)])
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and parent.poll() is None:
            if pids.exists() and len(pids.read_text().split()) >= 2:
                break
            time.sleep(0.1)
        workers = [int(p) for p in pids.read_text().split()]
        assert len(set(workers)) == 2
        assert parent.pid not in workers
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=10)
        deadline = time.monotonic() + 10
        while any(_alive(p) for p in workers) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(p) for p in workers)
    finally:
        parent.kill()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_workers_die_when_their_parent_is_killed(tmp_path: Path) -> None:
    script = """
        import os, sys, time
        from vhuman.executor import make_executor

        def work(i):
            with open(sys.argv[1], "a") as f:
                f.write(f"{os.getpid()}\\n")
            time.sleep(120)

        if __name__ == "__main__":
            with make_executor(2) as ex:
                list(ex.map(work, range(2)))
        """
    _kill_and_check(script, tmp_path)


def test_local_dask_cluster_workers_die_with_their_parent(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="needs dask[distributed]")
    script = """
        import os, sys, time
        from distributed import Client, LocalCluster

        if __name__ == "__main__":
            with LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                              dashboard_address=None) as cluster, Client(cluster) as client:
                pids = client.run(os.getpid).values()
                with open(sys.argv[1], "w") as f:
                    f.write(" ".join(str(p) for p in pids))
                time.sleep(120)
        """
    _kill_and_check(script, tmp_path)
