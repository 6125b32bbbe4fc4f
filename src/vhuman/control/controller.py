"""The physical controller: keyframe PD targets (initial controller) plus a feedback unit.

Initial controller (seed 003, step 1): ``K`` keyframes of one cycle of a clip
give per-hinge target angles, interpolated linearly and cyclically in the
phase ``φ = (t mod T) / T``; PD servos (see `vhuman.control.model`) turn
``target − current`` into torques. :func:`refine_targets` is the space-time
refinement: offsets on the keyframe targets are updated from the simulated
tracking error (iterative learning control) so the simulated character follows
the clip as far as it can.

Feedback unit: a feedback matrix ``F (4, 6)`` times the difference between the
current and the ideal state variables

    s = (d_x, v_x, d_y, v_y, pitch, roll)

— centre-of-mass position and velocity relative to the stance ankle in the
heading frame (x forward, y left) [m, m/s] and the pelvis attitude [rad] —
added to the target pose on four outputs: swing-hip pitch and roll (foot
placement) and stance-ankle pitch and roll. The ideal values come from the clip
itself, per keyframe. Pure tracking does not keep balance, so the structure
borrows from SIMBICON (Yin et al. 2007): the stance side is that of the clip's
half-cycle; the stance hip holds the pelvis at the clip's *world* attitude
(its target is ``q_hip + (pelvis − pelvis_ideal)``), and the swing hip's
target is a *world* thigh angle (``q_clip − (pelvis − pelvis_ideal)``), so the
foot-placement feedback ``θd = θd0 + c_d·d + c_v·v`` of SIMBICON is row 0 and
1 of ``F``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import mujoco
import numpy as np
from numpy.typing import NDArray

from vhuman.control.model import Humanoid, build_humanoid, skeleton_signature
from vhuman.errors import FileFormatError, InputError
from vhuman.io._common import PathLike, atomic_write, decode_text, read_bytes
from vhuman.skeleton.motion import Motion
from vhuman.skeleton.skeleton import Skeleton

__all__ = [
    "FEEDBACK_SHAPE",
    "STATE_NAMES",
    "Controller",
    "clip_motion",
    "humanoid_for",
    "initial_controller",
    "load_controller",
    "standing_controller",
]

STATE_NAMES = ("d_x", "v_x", "d_y", "v_y", "pitch", "roll")
"""Feedback state variables (columns of the feedback matrix)."""
OUTPUT_NAMES = ("swing_hip_pitch", "swing_hip_roll", "stance_ankle_pitch", "stance_ankle_roll")
"""Feedback outputs (rows of the feedback matrix)."""
FEEDBACK_SHAPE = (len(OUTPUT_NAMES), len(STATE_NAMES))
_FORMAT = "vhuman.controller/1"
_SKELETONS = ("deepmimic", "standard")


@cache
def _skeleton(name: str) -> Skeleton:
    if name == "deepmimic":
        from vhuman.io.deepmimic import deepmimic_humanoid

        return deepmimic_humanoid()
    if name == "standard":
        from vhuman.skeleton.humanoid import standard_humanoid

        return standard_humanoid()
    raise InputError(f"unknown skeleton {name!r}; allowed: {', '.join(_SKELETONS)}")


@cache
def humanoid_for(skeleton_name: str) -> Humanoid:
    """The (cached) MuJoCo humanoid of a named skeleton: ``"deepmimic"`` or ``"standard"``."""
    return build_humanoid(_skeleton(skeleton_name))


def clip_motion(clip: str) -> Motion:
    """A DeepMimic clip by name (``"walk"``) as a `Motion` on the DeepMimic humanoid.

    Raises
    ------
    InputError
        For an unknown clip name (the message lists the available ones).
    """
    from vhuman.io.deepmimic import deepmimic_clip_path, read_deepmimic

    return read_deepmimic(deepmimic_clip_path(clip))


def _side_hinges(h: Humanoid, side: str) -> tuple[int, int, int, int, int, int]:
    """Hinge indices of ``side``'s hip pitch, hip roll, ankle pitch, ankle roll, the ankle
    body id and the hip yaw hinge."""
    sk = h.skeleton
    hip = next(n for n in sk.names if "hip" in n and n.startswith(side))
    ankle = next(n for n in sk.names if "ankle" in n and n.startswith(side))
    return (
        h.hinge(f"{hip}_y"),
        h.hinge(f"{hip}_x"),
        h.hinge(f"{ankle}_y"),
        h.hinge(f"{ankle}_x"),
        h.body_of_joint[sk.index(ankle)],
        h.hinge(f"{hip}_z"),
    )


def sides(h: Humanoid) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """:func:`_side_hinges` of the right and the left side."""
    sk = h.skeleton
    right = "right" if any(n.startswith("right") for n in sk.names) else "r_"
    left = "left" if right == "right" else "l_"
    return _side_hinges(h, right), _side_hinges(h, left)


@dataclass(frozen=True, eq=False)
class Controller:
    """A periodic PD + feedback controller for one skeleton (see the module notes).

    Attributes
    ----------
    skeleton : str
        ``"deepmimic"`` or ``"standard"``.
    signature : str
        :func:`vhuman.control.model.skeleton_signature` of that skeleton; a
        controller only drives the skeleton it was made for.
    clip : str
        Name of the clip the targets come from (``""`` for standing).
    period : float
        Cycle duration T [s].
    targets : ndarray, shape (K, H)
        Target hinge angles [rad] at phases ``k / K``.
    ideal : ndarray, shape (K, 6)
        Ideal state variables at phases ``k / K`` (see ``STATE_NAMES``).
    right_stance : ndarray of bool, shape (K,)
        Whether the right foot is the stance foot at each keyframe.
    feedback : ndarray, shape (4, 6)
        The feedback matrix F (rows ``OUTPUT_NAMES``, columns ``STATE_NAMES``).
    start_qpos, start_qvel : ndarray
        Initial state of the simulation (the clip's first frame and velocity).
    world_frame : bool
        Use the SIMBICON-style world-frame stance/swing hip targets.
    """

    skeleton: str
    signature: str
    clip: str
    period: float
    targets: NDArray[np.float64]
    ideal: NDArray[np.float64]
    right_stance: NDArray[np.bool_]
    feedback: NDArray[np.float64]
    start_qpos: NDArray[np.float64]
    start_qvel: NDArray[np.float64]
    world_frame: bool = True
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        k = np.asarray(self.targets).shape[0]
        fb = np.asarray(self.feedback, dtype=np.float64)
        if fb.shape != FEEDBACK_SHAPE or not np.all(np.isfinite(fb)):
            raise InputError(f"feedback matrix must be finite with shape {FEEDBACK_SHAPE}")
        if not (np.isfinite(self.period) and self.period > 0.0):
            raise InputError(f"controller period must be > 0 s, got {self.period}")
        if np.asarray(self.ideal).shape != (k, len(STATE_NAMES)) or len(self.right_stance) != k:
            raise InputError("controller ideal states and stance flags need one row per keyframe")
        object.__setattr__(self, "feedback", fb)

    @property
    def humanoid(self) -> Humanoid:
        """The humanoid this controller drives (checked against ``signature``).

        Raises
        ------
        InputError
            If the named skeleton's signature differs from the controller's.
        """
        h = humanoid_for(self.skeleton)
        if h.signature != self.signature:
            raise InputError(
                f"this controller was made for another skeleton (signature {self.signature}); "
                f"the {self.skeleton!r} humanoid here has signature {h.signature}"
            )
        return h

    def with_feedback(self, feedback: NDArray[np.float64]) -> Controller:
        """A copy with another feedback matrix ``(4, 6)``."""
        return replace(
            self, feedback=np.asarray(feedback, dtype=np.float64).reshape(FEEDBACK_SHAPE)
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (see :func:`load_controller`)."""
        return {
            "format": _FORMAT,
            "skeleton": self.skeleton,
            "signature": self.signature,
            "clip": self.clip,
            "period_s": self.period,
            "targets_rad": np.round(self.targets, 6).tolist(),
            "ideal_state": np.round(self.ideal, 6).tolist(),
            "right_stance": [bool(x) for x in self.right_stance],
            "feedback": np.round(self.feedback, 6).tolist(),
            "start_qpos": np.round(self.start_qpos, 6).tolist(),
            "start_qvel": np.round(self.start_qvel, 6).tolist(),
            "world_frame": self.world_frame,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], source: str = "controller") -> Controller:
        """The controller of :meth:`to_dict`'s dict.

        Raises
        ------
        FileFormatError
            If fields are missing or malformed.
        InputError
            If it was made for another skeleton than the one it names.
        """
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            raise FileFormatError(f"{source}: not a vhuman controller (format {_FORMAT!r})")
        try:
            ctrl = cls(
                skeleton=str(data["skeleton"]),
                signature=str(data["signature"]),
                clip=str(data["clip"]),
                period=float(data["period_s"]),
                targets=np.array(data["targets_rad"], dtype=np.float64),
                ideal=np.array(data["ideal_state"], dtype=np.float64),
                right_stance=np.array(data["right_stance"], dtype=bool),
                feedback=np.array(data["feedback"], dtype=np.float64),
                start_qpos=np.array(data["start_qpos"], dtype=np.float64),
                start_qvel=np.array(data["start_qvel"], dtype=np.float64),
                world_frame=bool(data.get("world_frame", True)),
                meta=dict(data.get("meta", {})),
            )
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, InputError):
                raise FileFormatError(f"{source}: {exc}") from None
            raise FileFormatError(f"{source}: malformed controller ({exc!r})") from None
        h = ctrl.humanoid
        if ctrl.targets.shape[1] != h.n_hinges or ctrl.start_qpos.shape != (h.model.nq,):
            raise FileFormatError(f"{source}: target or state sizes do not fit the humanoid")
        return ctrl

    def save(self, path: PathLike) -> None:
        """Write the controller as JSON (atomically)."""
        atomic_write(path, json.dumps(self.to_dict(), indent=1) + "\n")


def load_controller(path: PathLike) -> Controller:
    """Read a controller JSON file written by :meth:`Controller.save`.

    Raises
    ------
    InputError
        If the file cannot be read or the controller is for another skeleton.
    FileFormatError
        If it is not a controller file.
    """
    source = str(path)
    text = decode_text(read_bytes(path), source)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"{source}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    return Controller.from_dict(data, source)


def default_controller_path() -> Path:
    """Path of the shipped default walking controller (``vhuman/data/controllers/walk.json``)."""
    return Path(__file__).resolve().parents[1] / "data" / "controllers" / "walk.json"


# -- ideal state variables ---------------------------------------------------------
def _heading(quat: NDArray[np.float64]) -> float:
    """Yaw [rad] of a body's x axis projected on the ground."""
    m = np.empty(9)
    mujoco.mju_quat2Mat(m, quat)
    return float(np.arctan2(m[3], m[0]))


def pelvis_attitude(quat: NDArray[np.float64]) -> tuple[float, float, float]:
    """(yaw, pitch, roll) [rad] of a pelvis orientation (w, x, y, z): intrinsic ZYX."""
    w, x, y, z = quat
    yaw = np.arctan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))
    pitch = np.arcsin(np.clip(2 * (w * y - z * x), -1.0, 1.0))
    roll = np.arctan2(2 * (w * x + y * z), 1 - 2 * (x * x + y * y))
    return float(yaw), float(pitch), float(roll)


def state_variables(
    data: mujoco.MjData, stance_body: int, root_body: int = 1
) -> NDArray[np.float64]:
    """The feedback state ``s (6,)`` (see ``STATE_NAMES``) of the current simulation state."""
    yaw, pitch, roll = pelvis_attitude(data.xquat[root_body])
    c, s = np.cos(yaw), np.sin(yaw)
    com = data.subtree_com[root_body]
    rel = com[:2] - data.xpos[stance_body][:2]
    v = data.qvel[0:2]  # the root's linear velocity (world) [m/s], standing in for the COM's
    dx, dy = c * rel[0] + s * rel[1], -s * rel[0] + c * rel[1]
    vx, vy = c * v[0] + s * v[1], -s * v[0] + c * v[1]
    return np.array([dx, vx, dy, vy, pitch, roll])


def _clip_states(
    h: Humanoid, qpos: NDArray[np.float64], fps: float, right_stance: NDArray[np.bool_]
) -> NDArray[np.float64]:
    """State variables of each clip frame (velocity by central differences)."""
    model, data = h.model, mujoco.MjData(h.model)
    (r_side, l_side) = sides(h)
    out = np.zeros((len(qpos), len(STATE_NAMES)))
    n = len(qpos)
    for i in range(n):
        data.qpos[:] = qpos[i]
        mujoco.mj_differentiatePos(model, data.qvel, 2.0 / fps, qpos[(i - 1) % n],
                                   qpos[(i + 1) % n])  # fmt: skip
        if i in (0, n - 1):
            mujoco.mj_differentiatePos(model, data.qvel, 1.0 / fps, qpos[max(i - 1, 0)],
                                       qpos[min(i + 1, n - 1)] if i == 0 else qpos[i])  # fmt: skip
        mujoco.mj_forward(model, data)
        stance = r_side[4] if right_stance[i] else l_side[4]
        out[i] = state_variables(data, stance)
    return out


# -- construction ------------------------------------------------------------------
def _start_qvel(h: Humanoid, qpos: NDArray[np.float64], fps: float) -> NDArray[np.float64]:
    qvel = np.zeros(h.model.nv)
    mujoco.mj_differentiatePos(h.model, qvel, 1.0 / fps, qpos[0], qpos[1])
    return qvel


def _ground(h: Humanoid, qpos: NDArray[np.float64]) -> NDArray[np.float64]:
    """``qpos`` with the root raised or lowered so the lowest geom touches z = 0."""
    data = mujoco.MjData(h.model)
    data.qpos[:] = qpos
    mujoco.mj_kinematics(h.model, data)
    low = np.inf
    for g in range(1, h.model.ngeom):
        size = h.model.geom_size[g]
        if h.model.geom_type[g] == mujoco.mjtGeom.mjGEOM_CAPSULE:
            axis = data.geom_xmat[g].reshape(3, 3)[:, 2]
            low = min(low, data.geom_xpos[g][2] - abs(axis[2]) * size[1] - size[0])
        elif h.model.geom_type[g] == mujoco.mjtGeom.mjGEOM_SPHERE:
            low = min(low, data.geom_xpos[g][2] - size[0])
    out = qpos.copy()
    out[2] -= low
    return out


def initial_controller(clip: str = "walk", keyframes: int = 10) -> Controller:
    """The initial controller of a DeepMimic clip: keyframe targets of one cycle, F = 0.

    One cycle is the whole clip (the DeepMimic walk is one gait cycle). The
    stance foot of each keyframe is the lower ankle in the clip.

    Raises
    ------
    InputError
        For an unknown clip or ``keyframes`` < 4.
    """
    if keyframes < 4:
        raise InputError(f"keyframes must be >= 4, got {keyframes}")
    motion = clip_motion(clip)
    h = humanoid_for("deepmimic")
    qpos = h.motion_to_qpos(motion)
    fps = motion.fps
    n = motion.n_frames
    period = (n - 1) / fps
    hinges = np.unwrap(qpos[:, 7:], axis=0)
    r_ankle = motion.skeleton.index("right_ankle")
    l_ankle = motion.skeleton.index("left_ankle")
    heights = motion.global_positions[:, [r_ankle, l_ankle], 2]
    right_stance_frames = heights[:, 0] <= heights[:, 1]
    states = _clip_states(h, qpos, fps, right_stance_frames)
    phases = np.arange(keyframes) / keyframes
    times = phases * period * fps  # in frames
    frame_idx = np.arange(n)
    targets = np.stack([np.interp(times, frame_idx, hinges[:, i]) for i in range(h.n_hinges)], 1)
    ideal = np.stack([np.interp(times, frame_idx, states[:, i]) for i in range(6)], 1)
    # Stance per keyframe: the clip's stance at the keyframe's frame.
    right_stance = right_stance_frames[np.round(times).astype(int) % n]
    start = _ground(h, qpos[0])
    return Controller(
        skeleton="deepmimic",
        signature=h.signature,
        clip=clip,
        period=period,
        targets=targets,
        ideal=ideal,
        right_stance=right_stance,
        feedback=np.zeros(FEEDBACK_SHAPE),
        start_qpos=start,
        start_qvel=_start_qvel(h, qpos, fps),
        meta={"keyframes": keyframes, "clip_fps": fps},
    )


def standing_controller(skeleton: str = "standard", lean: float | None = None) -> Controller:
    """A controller that holds a standing pose (the rest pose leaning at the ankles).

    The body leans forward at the ankles by ``lean`` [rad] (default: so the
    centre of mass lies above the middle of the feet) and the feet rest flat on
    the ground.
    """
    h = humanoid_for(skeleton)
    sk = h.skeleton
    qpos = h.pose_to_qpos(sk.offsets[0], np.tile([1.0, 0.0, 0.0, 0.0], (sk.n_joints, 1)))
    (r_side, l_side) = sides(h)
    if lean is None:
        data = mujoco.MjData(h.model)
        data.qpos[:] = qpos
        mujoco.mj_forward(h.model, data)
        foot = h.model.geom_bodyid == r_side[4]
        centre = data.geom_xpos[foot][:, 0].mean()
        com = data.subtree_com[1]
        lean = float(np.arctan2(centre - com[0], com[2]))
    qpos[3:7] = [np.cos(lean / 2), 0.0, np.sin(lean / 2), 0.0]
    for side in (r_side, l_side):
        qpos[7 + side[2]] = -lean
    qpos = _ground(h, qpos)
    targets = np.tile(qpos[7:], (4, 1))
    return Controller(
        skeleton=skeleton,
        signature=skeleton_signature(sk),
        clip="",
        period=1.0,
        targets=targets,
        ideal=np.zeros((4, 6)),
        right_stance=np.ones(4, dtype=bool),
        feedback=np.zeros(FEEDBACK_SHAPE),
        start_qpos=qpos,
        start_qvel=np.zeros(h.model.nv),
        world_frame=False,
        meta={"lean_rad": lean},
    )
