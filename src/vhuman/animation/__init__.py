"""Keyframe animation: tracks, interpolation and easing, keyframe extraction, walking."""

from vhuman.animation.easing import Easing, ease
from vhuman.animation.extraction import KeyframeExtraction, extract_keyframes
from vhuman.animation.keyframes import SEED_EULER_SEQUENCE, Interpolation, KeyframeTrack

__all__ = [
    "SEED_EULER_SEQUENCE",
    "Easing",
    "Interpolation",
    "KeyframeExtraction",
    "KeyframeTrack",
    "ease",
    "extract_keyframes",
]
