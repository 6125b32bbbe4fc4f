"""Shared test fixtures: the CMU data folder beside the repository, skipped when absent."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import settings

# Timing belongs to the benchmarks: no per-example deadline (a loaded CI machine
# would otherwise fail property tests for being slow, not wrong).
settings.register_profile("vhuman", deadline=None)
settings.load_profile("vhuman")

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_CMU = REPO_ROOT.parent / "shared" / "data" / "cmu_mocap"
"""``<repo>/../shared/data/cmu_mocap``: the CMU exp-map files (see its README.md)."""

_MISSING = (
    f"needs the shared CMU motion-capture data in {SHARED_CMU} "
    "(<repository>/../shared/data/cmu_mocap), which is not there"
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip tests marked ``shared`` when the shared data folder is missing."""
    if SHARED_CMU.is_dir():
        return
    skip = pytest.mark.skip(reason=_MISSING)
    for item in items:
        if "shared" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared CMU data folder (``train/<action>/<action>_<k>.txt``, ``skeleton.json``)."""
    if not SHARED_CMU.is_dir():
        pytest.skip(_MISSING)
    return SHARED_CMU
