"""Keyframe animation: tracks, interpolation and easing, keyframe extraction, walking."""

from vhuman.animation.easing import Easing, ease
from vhuman.animation.extraction import KeyframeExtraction, extract_keyframes
from vhuman.animation.gait import GaitParameters, LegIK
from vhuman.animation.keyframes import SEED_EULER_SEQUENCE, Interpolation, KeyframeTrack
from vhuman.animation.walking import WalkResult, generate_walk, paced_path

__all__ = [
    "SEED_EULER_SEQUENCE",
    "Easing",
    "GaitParameters",
    "Interpolation",
    "KeyframeExtraction",
    "KeyframeTrack",
    "LegIK",
    "WalkResult",
    "ease",
    "extract_keyframes",
    "generate_walk",
    "paced_path",
]
