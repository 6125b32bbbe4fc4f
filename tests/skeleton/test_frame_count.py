"""Frames of a sampled motion: both ends included, absurd counts refused up front."""

from __future__ import annotations

import math

import pytest

from vhuman.errors import InputError
from vhuman.skeleton.motion import MAX_FRAMES, frame_count


@pytest.mark.parametrize(
    ("duration", "fps", "frames"),
    [(1.0, 60.0, 61), (0.0, 30.0, 1), (0.5, 30.0, 16), (1.0 / 3.0, 3.0, 2)],
)
def test_both_ends_are_frames(duration: float, fps: float, frames: int) -> None:
    assert frame_count(duration, fps) == frames


def test_the_limit_itself_is_allowed_one_more_is_not() -> None:
    assert frame_count(MAX_FRAMES - 1, 1.0) == MAX_FRAMES
    with pytest.raises(InputError, match="at most 1,000,000 frames"):
        frame_count(MAX_FRAMES, 1.0)


@pytest.mark.parametrize("fps", [1e9, 1e300, math.inf, math.nan])
def test_absurd_rates_are_refused(fps: float) -> None:
    with pytest.raises(InputError, match="at most"):
        frame_count(1.0, fps)
