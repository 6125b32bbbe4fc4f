"""Fixtures of the posture tests: the 95th-percentile male and his library."""

from __future__ import annotations

import pytest

from vhuman.posture import PostureLibrary, load_library
from vhuman.scene import BodyModel
from vhuman.skeleton import Skeleton, standard_humanoid


@pytest.fixture(scope="session")
def p95() -> Skeleton:
    """GB/T 10000 95th-percentile Chinese male (1.775 m)."""
    return standard_humanoid(sex="male", percentile=95)


@pytest.fixture(scope="session")
def body(p95: Skeleton) -> BodyModel:
    """Capsules of the P95 male, 8 sample points each."""
    return BodyModel.from_skeleton(p95, samples_per_segment=8)


@pytest.fixture(scope="session")
def library(p95: Skeleton, body: BodyModel) -> PostureLibrary:
    """The built-in library on the P95 male."""
    return load_library(p95, body=body)
