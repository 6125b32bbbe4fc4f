"""Pose sequences and prediction windows from CMU files, DeepMimic clips or a BVH folder.

Representation
--------------
Every trial is stored as one array per quantity, frames of all trials one
after another (:class:`PoseSequences`):

- ``local_rotations`` (F, J, 4): the file's local joint rotations, vhuman's
  frame, the root's own rotation included;
- ``root_positions`` (F, 3) [m];
- ``positions`` (F, J, 3) [m]: joint positions by our FK with the **global
  translation and rotation removed** (root at the origin, root rotation the
  identity), as the motion-prediction protocol does before anything else.

Models see the body pose only (the protocol's choice); the root's own
trajectory is kept for the foot-skating metric and for ``predict run``, which
extrapolates it at constant velocity.

Protocol (``data/cmu_mocap/README.md``)
---------------------------------------
CMU trials keep every second frame (:data:`CMU_DOWNSAMPLE`); a window holds
:data:`N_OBSERVED` = 10 observed and :data:`N_FUTURE` = 25 future poses, as in
LTD and PGBIG; horizons are frames :data:`HORIZON_FRAMES` = 2, 4, 8, 10, 14, 25
after the last observed one, labelled :data:`HORIZONS_MS` = 80 … 1000 ms "as at
25 fps" as the protocol does. Read at the 120 fps that :mod:`vhuman.io.cmu`
measured, the kept frames are 1/60 s apart, so the labelled horizons are
really 33, 67, 133, 167, 233 and 417 ms; labels are kept so figures can be set
beside published tables. DeepMimic clips and BVH files are resampled to
:data:`PROTOCOL_FPS` = 25 fps, where the labels are the true times.

Joint sets (derived from the skeleton and the training data, stored with a model)
-------------------------------------------------------------------------------
- *position joints*: all joints but those whose root-relative position never
  changes (the root; joints fixed to it) and those that duplicate their parent
  (zero offset). On the CMU skeleton these are the 25 joints the literature
  counts (LTD/PGBIG leave out joints 0, 1, 2, 7, 8, 13, 16, 20, 24, 27, 29, 33,
  36); MPJPE averages over them.
- *angle joints*: the joints other than the root that have children and whose
  rotation is not the identity somewhere in the data (26 on CMU); models
  predict their rotations, the mean Euler-angle error averages over them.

Validation split (by trial, deterministic)
------------------------------------------
In each action (CMU: the folder; BVH: the sub-folder; DeepMimic: the clip)
with two or more trials, the highest-numbered trial is held out whole; of the
actions with a single trial every fifth (sorted by name) is held out.

Cache
-----
Preprocessed arrays are cached as ``.npz`` (no pickle) in the user cache
folder (``$VHUMAN_CACHE_DIR``, else ``$XDG_CACHE_HOME/vhuman``, else
``~/.cache/vhuman``) under ``prediction/``, keyed by the SHA-256 of the
files' content and the preprocessing parameters. Each file holds the SHA-256
of its arrays; a file that does not match (damaged, cut short) is rebuilt.
"""

from __future__ import annotations

import enum
import hashlib
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from vhuman.errors import FileFormatError, InputError
from vhuman.geometry import quat_angle
from vhuman.io import DeepMimicLoop, atomic_path, read_bvh, read_cmu
from vhuman.io.filesystem import PathLike
from vhuman.skeleton import Motion, Skeleton, forward_kinematics

__all__ = [
    "CMU_DOWNSAMPLE",
    "HORIZONS_MS",
    "HORIZON_FRAMES",
    "N_FUTURE",
    "N_OBSERVED",
    "PROTOCOL_FPS",
    "JointSets",
    "PoseSequences",
    "Split",
    "Windows",
    "cache_dir",
    "joint_sets",
    "load_bvh_sequences",
    "load_cmu_sequences",
    "load_deepmimic_sequences",
    "load_sequences",
    "mirror_joints",
    "motion_pose_arrays",
    "validation_trials",
]


class Split(enum.StrEnum):
    """Which trials of a dataset: those trained on, those held out, or every one."""

    TRAIN = "train"
    VALIDATION = "validation"
    ALL = "all"


CMU_DOWNSAMPLE = 2
"""The protocol keeps every second frame of the CMU files."""
PROTOCOL_FPS = 25.0
"""Frame rate [frames/s] by which the protocol labels horizons (and BVH/DeepMimic resampling)."""
HORIZON_FRAMES = (2, 4, 8, 10, 14, 25)
"""Frames after the last observed one at which errors are reported."""
HORIZONS_MS = (80, 160, 320, 400, 560, 1000)
"""Labels of :data:`HORIZON_FRAMES` [ms], as at :data:`PROTOCOL_FPS`."""
N_OBSERVED = 10
"""Observed poses per window (LTD/PGBIG's CMU setting)."""
N_FUTURE = 25
"""Predicted poses per window (1000 ms at 25 fps)."""

_CACHE_VERSION = 1
_DIGEST = "sha256"  # the cache file's entry holding the digest of its other arrays
_TRIAL_NUMBER = re.compile(r"(\d+)$")
_STATIC_M = 1e-6  # m: positions that move less are "never move"
_STATIC_RAD = 1e-6


def cache_dir() -> Path:
    """The user cache folder of vhuman (see the module notes); not created here."""
    if env := os.environ.get("VHUMAN_CACHE_DIR"):
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vhuman"


@dataclass(frozen=True)
class JointSets:
    """Which joints a model predicts and which the metrics count (see the module notes).

    Attributes
    ----------
    position : tuple of int
        Position joints (MPJPE, the position-based encoder), ascending.
    angle : tuple of int
        Angle joints (predicted rotations, Euler error), ascending.
    """

    position: tuple[int, ...]
    angle: tuple[int, ...]

    def to_dict(self) -> dict[str, list[int]]:
        """JSON-ready form."""
        return {"position": list(self.position), "angle": list(self.angle)}


def joint_sets(skeleton: Skeleton, positions: NDArray, local_rotations: NDArray) -> JointSets:
    """Position and angle joints of ``skeleton`` from data (see the module notes).

    Parameters
    ----------
    skeleton : Skeleton
    positions : ndarray, shape (F, J, 3)
        Root-relative positions [m] (global translation and rotation removed).
    local_rotations : ndarray, shape (F, J, 4)
    """
    parents = skeleton.parents
    moving = np.ptp(positions, axis=0).max(axis=-1) > _STATIC_M
    duplicate = np.linalg.norm(skeleton.offsets, axis=-1) < _STATIC_M
    duplicate[0] = False
    position = tuple(int(j) for j in np.flatnonzero(moving & ~duplicate))
    has_children = np.zeros(skeleton.n_joints, dtype=bool)
    has_children[parents[parents >= 0]] = True
    turning = quat_angle(local_rotations).max(axis=0) > _STATIC_RAD
    angle = tuple(int(j) for j in np.flatnonzero(has_children & turning) if j > 0)
    if not position or not angle:
        raise InputError(
            "the motions never move a joint relative to the root; prediction needs moving joints"
        )
    return JointSets(position, angle)


def mirror_joints(skeleton: Skeleton) -> tuple[int, ...]:
    """The joint each joint becomes in the left/right mirror image of a pose.

    The skeleton's own pairing (:attr:`~vhuman.skeleton.Skeleton.mirror`),
    checked for training: some joints must pair and the pairs must hang from
    mirrored parents.

    Returns
    -------
    tuple of int, length J
        ``swap[j]``: the mirror joint of ``j`` (``swap[swap[j]] == j``).

    Raises
    ------
    InputError
        If no joints pair or the pairs do not have mirrored parents.
    """
    swap = tuple(int(j) for j in skeleton.mirror)
    parents = [int(p) for p in skeleton.parents]
    if swap == tuple(range(skeleton.n_joints)) or any(
        (parents[swap[j]] if parents[j] < 0 else swap[parents[j]]) != parents[swap[j]]
        for j in range(len(swap))
    ):
        raise InputError(
            "cannot mirror this skeleton: it needs left/right joints named l…/r… or "
            "left…/right… with mirrored parents"
        )
    return swap


def motion_pose_arrays(motion: Motion) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(local_rotations (T, J, 4), positions (T, J, 3))``: positions with the root removed."""
    q = np.array(motion.local_rotations)
    q_body = q.copy()
    q_body[:, 0] = (1.0, 0.0, 0.0, 0.0)
    sk = motion.skeleton
    pos, _ = forward_kinematics(sk.parents, sk.offsets, np.zeros(3), q_body)
    return q, pos


@dataclass(frozen=True)
class Windows:
    """Windows of ``n_observed + n_future`` consecutive poses within single trials.

    Attributes
    ----------
    starts : ndarray of int, shape (W,)
        Index of each window's first frame in the :class:`PoseSequences` arrays.
    trial : ndarray of int, shape (W,)
        Trial of each window.
    n_observed, n_future : int
    """

    starts: NDArray[np.intp]
    trial: NDArray[np.intp]
    n_observed: int
    n_future: int

    def __len__(self) -> int:
        """Number of windows W."""
        return len(self.starts)

    @property
    def length(self) -> int:
        """Frames per window ``n_observed + n_future``."""
        return self.n_observed + self.n_future

    def frame_index(self) -> NDArray[np.intp]:
        """Frame indices ``(W, n_observed + n_future)`` into the sequence arrays."""
        return self.starts[:, None] + np.arange(self.length)


@dataclass(frozen=True, eq=False)
class PoseSequences:
    """Trials of one skeleton, preprocessed for prediction (see the module notes).

    Attributes
    ----------
    skeleton : Skeleton
    sample_fps : float
        True frame rate of the stored frames [frames/s] (60 for CMU at 120 fps).
    local_rotations : ndarray, shape (F, J, 4)
    root_positions : ndarray, shape (F, 3)
    positions : ndarray, shape (F, J, 3)
        Root-relative positions [m].
    trial_starts : ndarray of int, shape (K + 1,)
        Trial ``k`` spans frames ``trial_starts[k]:trial_starts[k + 1]``.
    trials : tuple of str, length K
        ``"<action>/<name>"`` of each trial.
    actions : tuple of str, length K
    validation : ndarray of bool, shape (K,)
        Trials held out for validation.
    source : str
        What was loaded (``"cmu"``, ``"deepmimic"``, ``"bvh"``) and from where.
    """

    skeleton: Skeleton
    sample_fps: float
    local_rotations: NDArray[np.float64]
    root_positions: NDArray[np.float64]
    positions: NDArray[np.float64]
    trial_starts: NDArray[np.intp]
    trials: tuple[str, ...]
    actions: tuple[str, ...]
    validation: NDArray[np.bool_]
    source: str

    @property
    def n_trials(self) -> int:
        """Number of trials K."""
        return len(self.trials)

    def joint_sets(self) -> JointSets:
        """Position and angle joints measured on the training trials (all if none are)."""
        train = self.frame_mask(split="train")
        if not train.any():
            train = np.ones(len(self.positions), dtype=bool)
        return joint_sets(self.skeleton, self.positions[train], self.local_rotations[train])

    def frame_mask(self, *, split: Split | str = Split.ALL) -> NDArray[np.bool_]:
        """Frames ``(F,)`` of the trials of ``split`` (train, validation or all)."""
        keep = _split_trials(self.validation, split)
        lengths = np.diff(self.trial_starts)
        return np.repeat(keep, lengths)

    def windows(
        self,
        *,
        split: Split | str = Split.ALL,
        n_observed: int = N_OBSERVED,
        n_future: int = N_FUTURE,
        stride: int = 1,
    ) -> Windows:
        """All windows of ``n_observed + n_future`` frames in the trials of ``split``.

        Windows start every ``stride`` frames from each trial's first frame;
        trials shorter than a window give none.

        Raises
        ------
        InputError
            For an unknown split or lengths/stride < 1.
        """
        for name, value in (("n_observed", n_observed), ("n_future", n_future), ("stride", stride)):
            if int(value) < 1:
                raise InputError(f"{name} must be an integer ≥ 1, got {value}")
        keep = _split_trials(self.validation, split)
        length = n_observed + n_future
        starts, trial = [], []
        for k in np.flatnonzero(keep):
            a, b = int(self.trial_starts[k]), int(self.trial_starts[k + 1])
            s = np.arange(a, b - length + 1, stride)
            starts.append(s)
            trial.append(np.full(len(s), k))
        return Windows(
            np.concatenate([np.zeros(0, np.intp), *starts]).astype(np.intp),
            np.concatenate([np.zeros(0, np.intp), *trial]).astype(np.intp),
            int(n_observed),
            int(n_future),
        )

    def to_arrays(self) -> dict[str, NDArray]:
        """Arrays for the cache file (see :func:`_sequences_from_arrays`)."""
        meta = {
            "names": list(self.skeleton.names),
            "trials": list(self.trials),
            "actions": list(self.actions),
            "sample_fps": self.sample_fps,
            "source": self.source,
        }
        return {
            "meta": np.array(json.dumps(meta)),
            "parents": np.asarray(self.skeleton.parents),
            "offsets": np.asarray(self.skeleton.offsets),
            "local_rotations": self.local_rotations.astype(np.float32),
            "root_positions": self.root_positions.astype(np.float32),
            "positions": self.positions.astype(np.float32),
            "trial_starts": self.trial_starts,
            "validation": self.validation,
        }


def _split_trials(validation: NDArray[np.bool_], split: Split | str) -> NDArray[np.bool_]:
    if split not in list(Split):
        raise InputError(f"split must be one of {', '.join(Split)}; got {split!r}")
    if split == Split.TRAIN:
        return ~validation
    if split == Split.VALIDATION:
        return validation.copy()
    return np.ones_like(validation)


def _sequences_from_arrays(arrays: dict[str, NDArray], skeleton: Skeleton | None) -> PoseSequences:
    meta = json.loads(str(arrays["meta"]))
    sk = skeleton or Skeleton(tuple(meta["names"]), arrays["parents"], arrays["offsets"])
    return PoseSequences(
        sk,
        float(meta["sample_fps"]),
        arrays["local_rotations"].astype(np.float64),
        arrays["root_positions"].astype(np.float64),
        arrays["positions"].astype(np.float64),
        arrays["trial_starts"].astype(np.intp),
        tuple(meta["trials"]),
        tuple(meta["actions"]),
        arrays["validation"].astype(bool),
        str(meta["source"]),
    )


def _trial_key(name: str) -> tuple[str, int]:
    m = _TRIAL_NUMBER.search(name)
    return (name[: m.start()] if m else name, int(m.group(1)) if m else -1)


def validation_trials(trials: Sequence[str], actions: Sequence[str]) -> NDArray[np.bool_]:
    """Held-out trials ``(K,)`` by the rule of the module notes (deterministic)."""
    held = np.zeros(len(trials), dtype=bool)
    by_action: dict[str, list[int]] = {}
    for k, a in enumerate(actions):
        by_action.setdefault(a, []).append(k)
    singles = []
    for a in sorted(by_action):
        ks = by_action[a]
        if len(ks) >= 2:
            held[max(ks, key=lambda k: _trial_key(trials[k].rsplit("/", 1)[-1]))] = True
        else:
            singles.append(ks[0])
    for i, k in enumerate(sorted(singles, key=lambda k: trials[k])):
        held[k] = i % 5 == 4
    return held


def _assemble(
    motions: Sequence[Motion], trials: Sequence[str], actions: Sequence[str], source: str
) -> PoseSequences:
    skeleton, fps = motions[0].skeleton, motions[0].fps
    qs, roots, poss = [], [], []
    for m in motions:
        q, p = motion_pose_arrays(m)
        qs.append(q)
        poss.append(p)
        roots.append(np.asarray(m.root_positions))
    starts = np.concatenate([[0], np.cumsum([len(q) for q in qs])]).astype(np.intp)
    return PoseSequences(
        skeleton,
        float(fps),
        np.concatenate(qs),
        np.concatenate(roots),
        np.concatenate(poss),
        starts,
        tuple(trials),
        tuple(actions),
        validation_trials(trials, actions),
        source,
    )


def _digest(arrays: dict[str, NDArray]) -> str:
    """SHA-256 (hex) of ``arrays``: names, dtypes, shapes and bytes, in name order."""
    h = hashlib.sha256()
    for key in sorted(arrays):
        a = np.ascontiguousarray(arrays[key])
        h.update(f"{key}:{a.dtype.str}:{a.shape}".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def _cached(
    kind: str, files: Sequence[Path], params: dict, build, skeleton: Skeleton | None = None
) -> PoseSequences:
    h = hashlib.sha256(json.dumps({"v": _CACHE_VERSION, "kind": kind, **params}).encode())
    for f in files:
        h.update(f.name.encode())
        try:
            h.update(hashlib.sha256(f.read_bytes()).digest())
        except OSError as exc:
            raise InputError(f"cannot read {f}: {exc.strerror or exc}") from None
    path = cache_dir() / "prediction" / f"{kind}-{h.hexdigest()[:32]}.npz"
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                stored = {k: data[k] for k in data.files}
            if str(stored.pop(_DIGEST)) == _digest(stored):
                return _sequences_from_arrays(stored, skeleton)
        except Exception:  # any damage to the cache file: it is rebuilt below
            pass
    arrays = build().to_arrays()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp, open(tmp, "wb") as fh:
            np.savez(fh, **arrays, **{_DIGEST: np.array(_digest(arrays))})
    except (OSError, InputError):
        pass  # an unwritable cache only costs time
    # The values as stored (float32), so a first run sees what later runs read back.
    return _sequences_from_arrays(arrays, skeleton)


def _cmu_files(root: Path) -> list[Path]:
    base = root / "train" if (root / "train").is_dir() else root
    files = sorted(base.glob("*/*.txt")) or sorted(base.glob("*.txt"))
    return sorted(files, key=lambda f: (f.parent.name, *_trial_key(f.stem)))


def load_cmu_sequences(
    root: PathLike, *, downsample: int = CMU_DOWNSAMPLE, cache: bool = True
) -> PoseSequences:
    """The CMU exp-map trials under ``root`` (``[train/]<action>/<action>_<k>.txt``).

    Every ``downsample``-th frame is kept (the protocol: 2). Actions are the
    folder names (``walking_extra`` stays its own action).

    Raises
    ------
    InputError
        If ``root`` holds no ``.txt`` files or ``downsample`` < 1.
    FileFormatError
        For a file that is not a CMU exp-map file.
    """
    root = Path(root)
    if int(downsample) < 1:
        raise InputError(f"downsample must be an integer ≥ 1, got {downsample}")
    files = _cmu_files(root)
    if not files:
        raise InputError(
            f"{root}: no CMU files; expected train/<action>/<action>_<k>.txt or <action>/*.txt"
        )

    def build() -> PoseSequences:
        motions = []
        for f in files:
            m = read_cmu(f)
            motions.append(m[::downsample] if downsample > 1 else m)
        trials = [f"{f.parent.name}/{f.stem}" for f in files]
        return _assemble(motions, trials, [f.parent.name for f in files], f"cmu:{root}")

    if not cache:
        return build()
    from vhuman.io import cmu_skeleton

    return _cached("cmu", files, {"downsample": int(downsample)}, build, cmu_skeleton())


def _retarget(motion: Motion, skeleton: Skeleton, source: str) -> Motion:
    if not motion.skeleton.same_topology(skeleton):
        raise InputError(
            f"{source}: skeleton with {motion.skeleton.n_joints} joints "
            f"({', '.join(motion.skeleton.names[:4])}, ...) differs from the first file's "
            f"({skeleton.n_joints} joints: {', '.join(skeleton.names[:4])}, ...); "
            "a dataset needs one skeleton topology"
        )
    return Motion(skeleton, motion.fps, motion.root_positions, motion.local_rotations)


def load_bvh_sequences(
    folder: PathLike, *, fps: float = PROTOCOL_FPS, cache: bool = True
) -> PoseSequences:
    """Every ``.bvh`` file under ``folder`` (recursively), resampled to ``fps``.

    Actions are the sub-folder of each file (``"bvh"`` at the top). Files of
    the same topology but other bone lengths are retargeted onto the first
    file's skeleton by copying local rotations.

    Raises
    ------
    InputError
        If there are no BVH files or their skeletons differ in topology.
    """
    folder = Path(folder)
    files = sorted(folder.rglob("*.bvh"))
    if not files:
        raise InputError(f"{folder}: no .bvh files (looked recursively)")

    def build() -> PoseSequences:
        motions: list[Motion] = []
        for f in files:
            m = read_bvh(f).resample(fps)
            motions.append(m if not motions else _retarget(m, motions[0].skeleton, str(f)))
        actions = [
            f.parent.relative_to(folder).as_posix() if f.parent != folder else "bvh" for f in files
        ]
        trials = [f"{a}/{f.stem}" for a, f in zip(actions, files, strict=True)]
        return _assemble(motions, trials, actions, f"bvh:{folder}")

    return _cached("bvh", files, {"fps": float(fps)}, build) if cache else build()


def load_deepmimic_sequences(*, fps: float = PROTOCOL_FPS, repeats: int = 3) -> PoseSequences:
    """The DeepMimic clips of pybullet's data, resampled to ``fps``.

    Each clip is one action with one trial; clips whose ``Loop`` is ``"wrap"``
    are played ``repeats`` times (they are cycles, and most are shorter than a
    window otherwise). Needs pybullet (``pip install vhuman[data]``).
    """
    from vhuman.io import deepmimic_clip_names, deepmimic_clip_path, read_deepmimic

    names = deepmimic_clip_names()
    files = [deepmimic_clip_path(n) for n in names]

    def build() -> PoseSequences:
        motions = []
        for f in files:
            m = read_deepmimic(f).resample(fps)
            try:
                loop = json.loads(f.read_text("utf-8")).get("Loop", "none")
            except (OSError, ValueError) as exc:
                raise FileFormatError(f"{f}: cannot read the Loop mode ({exc})") from None
            if loop == DeepMimicLoop.WRAP and repeats > 1:
                m = m.concatenate(*([m] * (repeats - 1)))
            motions.append(m)
        return _assemble(motions, [f"{n}/{n}" for n in names], list(names), "deepmimic")

    return _cached("deepmimic", files, {"fps": float(fps), "repeats": int(repeats)}, build)


def load_sequences(data: PathLike, *, cache: bool = True) -> PoseSequences:
    """Load ``data``: ``"deepmimic"``, a CMU folder (``.txt`` files) or a folder of BVH files.

    Raises
    ------
    InputError
        If ``data`` is not ``"deepmimic"`` and not a folder with CMU or BVH files.
    """
    if str(data) == "deepmimic":
        return load_deepmimic_sequences()
    root = Path(data)
    if not root.is_dir():
        raise InputError(
            f"--data must be a folder of CMU .txt or .bvh files, or 'deepmimic'; got {data}"
        )
    if _cmu_files(root):
        return load_cmu_sequences(root, cache=cache)
    if not any(root.rglob("*.bvh")):
        raise InputError(
            f"{root}: no motion files; --data needs CMU exp-map files ([train/]<action>/*.txt "
            "or *.txt) or .bvh files"
        )
    return load_bvh_sequences(root, cache=cache)
