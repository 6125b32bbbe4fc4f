"""Keyframe extraction: pick K frames of a motion that best reproduce it when interpolated."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from vhuman.animation.keyframes import Interpolation, KeyframeTrack
from vhuman.errors import InputError
from vhuman.skeleton.motion import Motion

__all__ = ["KeyframeExtraction", "extract_keyframes"]


@dataclass(frozen=True, eq=False)
class KeyframeExtraction:
    """Chosen keyframes and how well they reproduce the motion.

    Attributes
    ----------
    indices : ndarray of int, shape (K,)
        Frame indices of the keys, increasing, first and last frame included.
    track : KeyframeTrack
        The keys as a track (times in seconds from the first frame).
    max_error_m, mean_error_m : float
        Largest and mean joint-position distance [m] between the motion and
        the track sampled at the motion's frames.
    """

    indices: NDArray[np.intp]
    track: KeyframeTrack
    max_error_m: float
    mean_error_m: float

    def to_dict(self) -> dict:
        """JSON-ready figures."""
        return {
            "keys": len(self.indices),
            "indices": self.indices.tolist(),
            "max_error_m": self.max_error_m,
            "mean_error_m": self.mean_error_m,
        }


def _track(motion: Motion, keys: list[int]) -> KeyframeTrack:
    idx = np.array(sorted(keys))
    return KeyframeTrack(motion.times[idx], motion.local_rotations[idx], motion.root_positions[idx])


def _errors(motion: Motion, track: KeyframeTrack, interpolation: Interpolation) -> NDArray:
    root, rot = track.sample(motion.times, interpolation)
    rebuilt = Motion(motion.skeleton, motion.fps, root, rot)
    return np.linalg.norm(rebuilt.global_positions - motion.global_positions, axis=-1)  # (T, J)


def extract_keyframes(
    motion: Motion, n_keys: int, interpolation: Interpolation = Interpolation.SLERP
) -> KeyframeExtraction:
    """Greedy keyframe selection by largest reconstruction error.

    Starts from the first and last frames and repeatedly adds the frame whose
    joints are farthest from the interpolated track, until ``n_keys`` keys.

    Parameters
    ----------
    motion : Motion
        The clip, at least 2 frames.
    n_keys : int
        Number of keys, 2 ≤ n_keys ≤ number of frames.
    interpolation : Interpolation
        How the track is interpolated when measuring the error.

    Returns
    -------
    KeyframeExtraction
    """
    if motion.n_frames < 2:
        raise InputError("keyframe extraction needs a motion of at least 2 frames")
    if not 2 <= n_keys <= motion.n_frames:
        raise InputError(f"n_keys must be between 2 and {motion.n_frames} frames, got {n_keys}")
    keys = [0, motion.n_frames - 1]
    err = _errors(motion, _track(motion, keys), interpolation)
    while len(keys) < n_keys:
        per_frame = err.max(axis=1)
        per_frame[keys] = -1.0
        keys.append(int(np.argmax(per_frame)))
        err = _errors(motion, _track(motion, keys), interpolation)
    return KeyframeExtraction(
        np.array(sorted(keys), dtype=np.intp),
        _track(motion, keys),
        float(err.max()),
        float(err.mean()),
    )
