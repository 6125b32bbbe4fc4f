"""The physical controller: keyframe PD targets (initial controller) plus a feedback unit.

Initial controller (patent CN108805965B, step 1): ``K`` keyframes of one cycle of a clip
give per-hinge target angles, interpolated linearly and cyclically in the
phase; PD servos (see `vhuman.control.model`) turn ``target − current`` into
torques; `vhuman.control.refine` refines the keyframe targets by a space-time
optimisation (root held) so the simulated hinges follow the clip despite the
servos' lag and sag. Pure tracking of the DeepMimic walk does not keep
balance (the character falls within 1–2 s whatever the feedback matrix), so a
walking controller follows SIMBICON (Yin, Loken, van de Panne 2007):

- a finite-state machine, two states per step: state 0 (early swing) lasts
  ``state_time``; state 1 (late swing) ends when the swing foot touches the
  ground; then the stance side swaps;
- per state, targets for the swing hip (a *world-frame* thigh pitch), swing
  knee and ankle, stance knee and ankle (``gait``, shape (2, 5)); the other
  hinges (trunk, neck, arms) follow the clip's keyframes at the phase of the
  machine;
- the pelvis is held upright and on its heading in the *world* frame by the
  stance hip: ``τ_stance = −τ_torso − τ_swing`` (torque on each of its three
  hinges), with ``τ_torso`` a PD on the pelvis pitch, roll and yaw (its gains
  scaled by ``torso_gain``);
- the feedback unit: ``F (4, 6)`` times the state
  ``s = (d_x, v_x, d_y, v_y, pitch, roll)`` — centre of mass relative to the
  stance ankle and the root's (pelvis's) velocity, in the heading frame [m,
  m/s], pelvis attitude [rad] — minus its ideal value, added to the swing
  hip's world pitch and roll (foot placement, SIMBICON's
  ``θd = θd0 + c_d·d + c_v·v`` in both planes) and to the stance ankle's
  pitch and roll targets. The ideal state's ``v_x`` is the forward velocity
  the placement regulates towards (Coros, Beaudoin, van de Panne 2010): with
  0, placement brakes at every step. The evolution
  (`vhuman.control.optimize`) finds ``F``, the stance width, the ideal
  ``v_x`` and ``torso_gain``;
- two options: ``com_velocity`` feeds back the centre of mass's velocity
  (SIMBICON's) instead of the pelvis's, and ``xcom_margin`` bounds the swing
  hip's roll so the swing foot lands at least that far beyond the
  extrapolated centre of mass ``y + v_y √(h / g)`` towards the swing side
  (Hof 2008), however the feedback places it;
- two more for side pushes: ``level_swing_foot`` turns the swing ankle's roll so the
  sole is level with the ground (its world roll held at zero, the swing foot controlled
  in the world frame as in Coros, Beaudoin, van de Panne 2010) instead of square to the
  shank, so a foot swung wide does not land on its edge; ``quick_step_time`` shortens
  early swing to that many seconds while the extrapolated centre of mass lies beyond the
  stance foot on the side away from the swing leg — where only a step across the stance
  leg could catch it, the swing leg lands at once so the other leg can step out sooner
  (step timing shortened after a push: Hof 2008, Pratt et al. 2006).

A controller without ``gait`` (e.g. :func:`standing_controller`) only tracks
its keyframes in time.
"""

from __future__ import annotations

import enum
import json
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any

import mujoco
import numpy as np
from numpy.typing import NDArray

from vhuman.control.model import Humanoid, build_humanoid, skeleton_signature
from vhuman.data import shipped_path
from vhuman.errors import FileFormatError, InputError
from vhuman.io.filesystem import PathLike, atomic_write, decode_text, read_bytes
from vhuman.skeleton.motion import Motion
from vhuman.skeleton.skeleton import Skeleton

__all__ = [
    "FEEDBACK_SHAPE",
    "GAIT_NAMES",
    "SHIPPED_SPEEDS",
    "SIMBICON_FEEDBACK",
    "SIMBICON_GAIT",
    "STATE_NAMES",
    "BodySkeleton",
    "Controller",
    "clip_motion",
    "humanoid_for",
    "initial_controller",
    "load_controller",
    "speed_controller_path",
    "standing_controller",
]

STATE_NAMES = ("d_x", "v_x", "d_y", "v_y", "pitch", "roll")
"""Feedback state variables (columns of the feedback matrix)."""
OUTPUT_NAMES = ("swing_hip_pitch", "swing_hip_roll", "stance_ankle_pitch", "stance_ankle_roll")
"""Feedback outputs (rows of the feedback matrix)."""
FEEDBACK_SHAPE = (len(OUTPUT_NAMES), len(STATE_NAMES))
GAIT_NAMES = ("swing_hip_world", "swing_knee", "swing_ankle", "stance_knee", "stance_ankle")
"""Per-state SIMBICON targets [rad] (columns of ``Controller.gait``)."""
SIMBICON_GAIT = ((-0.4, -1.1, -0.4, -0.05, 0.0), (-0.1, -0.05, -0.1, -0.1, 0.0))
"""SIMBICON's walk (Yin et al. 2007, table 1) in this model's signs (hip and ankle flexion,
knee extension are negative): early swing lifts the foot, late swing reaches forward."""
SIMBICON_FEEDBACK = np.zeros(FEEDBACK_SHAPE)
SIMBICON_FEEDBACK[0, 1] = -0.2  # swing hip pitch from v_x: SIMBICON's c_v = 0.2 (sagittal)
SIMBICON_FEEDBACK[1, 2] = 0.8  # swing hip roll from d_y (coronal c_d)
SIMBICON_FEEDBACK[1, 3] = 0.2  # swing hip roll from v_y (coronal c_v)
SIMBICON_FEEDBACK.flags.writeable = False
"""The hand-set feedback matrix the evolution starts from (its search box is centred here)."""
START_SPEED = 0.5
"""Forward speed [m/s] of the standing start pose of a walking controller."""
_FORMAT = "vhuman.controller/1"


class BodySkeleton(enum.StrEnum):
    """The skeletons a physics controller drives (saved in controller files)."""

    DEEPMIMIC = "deepmimic"
    """DeepMimic's humanoid (Peng et al. 2018)."""
    STANDARD = "standard"
    """vhuman's standard humanoid (:func:`vhuman.skeleton.standard_humanoid`)."""


@cache
def _skeleton(name: BodySkeleton | str) -> Skeleton:
    if name == BodySkeleton.DEEPMIMIC:
        from vhuman.io.deepmimic import deepmimic_humanoid

        return deepmimic_humanoid()
    if name == BodySkeleton.STANDARD:
        from vhuman.skeleton.humanoid import standard_humanoid

        return standard_humanoid()
    allowed = ", ".join(BodySkeleton)
    raise InputError(f"unknown skeleton {name!r}; allowed: {allowed}")


@cache
def humanoid_for(skeleton_name: BodySkeleton | str) -> Humanoid:
    """The (cached) MuJoCo humanoid of a named skeleton: ``"deepmimic"`` or ``"standard"``."""
    scale = 3.0 if skeleton_name == BodySkeleton.STANDARD else 1.0
    return build_humanoid(_skeleton(skeleton_name), scale)


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
        Initial state of the simulation.
    gait : ndarray, shape (2, 5), optional
        SIMBICON targets per state (columns ``GAIT_NAMES``); None: the
        keyframes are tracked in time (no state machine, no balance).
    state_time : float
        Duration of state 0 (early swing) [s].
    torso_pitch : float
        World pitch [rad] the pelvis is held at (positive leans forward).
    stance_width : float
        Swing-hip roll offset [rad] away from the body's midline (abduction):
        a wider stance, more room for lateral balance.
    torso_gain : float
        Factor on the PD gains that hold the pelvis's world attitude
        (`vhuman.control.simulation.TORSO_KP` and ``TORSO_KD``).
    com_velocity : bool
        Whether the feedback's ``v_x``, ``v_y`` are the centre of mass's velocity
        (SIMBICON's) rather than the pelvis's.
    xcom_margin : float or None
        Hof's (2008) foot placement as a bound: the swing hip's roll target aims
        the foot at least this far [m] beyond the extrapolated centre of mass
        ``y + v_y √(h / g)`` (lateral position and velocity of the centre of
        mass, h its height over the stance ankle) towards the swing side,
        whatever the feedback asks. None: no bound.
    level_swing_foot : bool
        Whether the swing ankle's roll target holds the swing foot's sole level
        (world roll zero) rather than square to the shank.
    quick_step_time : float or None
        Duration [s] of early swing, instead of ``state_time``, while the
        extrapolated centre of mass lies beyond the stance ankle on the side away
        from the swing leg. None: early swing always lasts ``state_time``.
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
    gait: NDArray[np.float64] | None = None
    state_time: float = 0.3
    torso_pitch: float = 0.0
    stance_width: float = 0.0
    torso_gain: float = 1.0
    com_velocity: bool = False
    xcom_margin: float | None = None
    level_swing_foot: bool = False
    quick_step_time: float | None = None
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
        if self.gait is not None:
            gait = np.asarray(self.gait, dtype=np.float64)
            if gait.shape != (2, len(GAIT_NAMES)) or not np.all(np.isfinite(gait)):
                raise InputError(f"gait targets must be finite with shape (2, {len(GAIT_NAMES)})")
            object.__setattr__(self, "gait", gait)
        if not (np.isfinite(self.state_time) and self.state_time > 0.0):
            raise InputError(f"state time must be > 0 s, got {self.state_time}")
        if not (np.isfinite(self.stance_width) and abs(self.stance_width) < 0.5):
            raise InputError(f"stance width must be within ±0.5 rad, got {self.stance_width}")
        if not (np.isfinite(self.torso_gain) and 0.0 < self.torso_gain <= 10.0):
            raise InputError(f"torso gain must be in (0, 10], got {self.torso_gain}")
        if self.xcom_margin is not None and not (
            np.isfinite(self.xcom_margin) and abs(self.xcom_margin) < 0.5
        ):
            raise InputError(f"xcom margin must be within ±0.5 m, got {self.xcom_margin}")
        if self.quick_step_time is not None and not (
            np.isfinite(self.quick_step_time) and 0.0 < self.quick_step_time <= self.state_time
        ):
            raise InputError(
                f"quick step time must be in (0, state time = {self.state_time:g}] s, "
                f"got {self.quick_step_time}"
            )

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
            "targets_rad": self.targets.tolist(),
            "ideal_state": self.ideal.tolist(),
            "right_stance": [bool(x) for x in self.right_stance],
            "feedback": self.feedback.tolist(),
            "start_qpos": self.start_qpos.tolist(),
            "start_qvel": self.start_qvel.tolist(),
            "gait_rad": None if self.gait is None else self.gait.tolist(),
            "state_time_s": self.state_time,
            "torso_pitch_rad": self.torso_pitch,
            "stance_width_rad": self.stance_width,
            "torso_gain": self.torso_gain,
            "com_velocity": self.com_velocity,
            "xcom_margin_m": self.xcom_margin,
            "level_swing_foot": self.level_swing_foot,
            "quick_step_time_s": self.quick_step_time,
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
                gait=None
                if data.get("gait_rad") is None
                else np.array(data["gait_rad"], dtype=np.float64),
                state_time=float(data.get("state_time_s", 0.3)),
                torso_pitch=float(data.get("torso_pitch_rad", 0.0)),
                stance_width=float(data.get("stance_width_rad", 0.0)),
                torso_gain=float(data.get("torso_gain", 1.0)),
                com_velocity=_json_bool(data.get("com_velocity", False), "com_velocity"),
                xcom_margin=None
                if data.get("xcom_margin_m") is None
                else float(data["xcom_margin_m"]),
                level_swing_foot=_json_bool(
                    data.get("level_swing_foot", False), "level_swing_foot"
                ),
                quick_step_time=None
                if data.get("quick_step_time_s") is None
                else float(data["quick_step_time_s"]),
                meta=dict(data.get("meta", {})),
            )
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            if isinstance(exc, InputError):
                raise FileFormatError(f"{source}: {exc}") from None
            raise FileFormatError(f"{source}: malformed controller ({exc!r})") from None
        try:
            h = ctrl.humanoid
        except InputError as exc:
            raise InputError(f"{source}: {exc}") from None
        if ctrl.targets.shape[1] != h.n_hinges or ctrl.start_qpos.shape != (h.model.nq,):
            raise FileFormatError(f"{source}: target or state sizes do not fit the humanoid")
        return ctrl

    def save(self, path: PathLike) -> None:
        """Write the controller as JSON (atomically)."""
        atomic_write(path, json.dumps(self.to_dict(), indent=1) + "\n")


def _json_bool(value: Any, name: str) -> bool:
    """``value`` if it is a JSON boolean; a ``TypeError`` naming ``name`` otherwise."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be true or false, got {value!r}")
    return value


def load_controller(path: PathLike) -> Controller:
    """Read a controller JSON file written by :meth:`Controller.save`.

    Parameters
    ----------
    path : str or Path
        The file; a bare name that is not a file here names a shipped
        controller (``walk``, ``walk_push_recovery``, ``walk_push_xcom``,
        ``walk_push_step``, ``walk_1.0``, with or without ``.json``; see
        ``vhuman/data/controllers/README.md``).

    Raises
    ------
    InputError
        If the file cannot be read or the controller is for another skeleton.
    FileFormatError
        If it is not a controller file.
    """
    path = _shipped_if_named(Path(path))
    source = str(path)
    text = decode_text(read_bytes(path), source)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FileFormatError(f"{source}:{exc.lineno}: not valid JSON ({exc.msg})") from None
    return Controller.from_dict(data, source)


def _shipped_if_named(path: Path) -> Path:
    """``path``, or the shipped controller it names when it is a bare name and not a file."""
    if path.exists() or path.parent != Path("."):
        return path
    shipped = shipped_path(
        "controllers", path.name if path.suffix == ".json" else f"{path.name}.json"
    )
    return shipped if shipped.is_file() else path


def default_controller_path() -> Path:
    """Path of the shipped default walking controller (``vhuman/data/controllers/walk.json``)."""
    return shipped_path("controllers", "walk.json")


SHIPPED_SPEEDS = (1.0,)
"""Target walking speeds [m/s] of the shipped speed controllers (``walk_<speed>.json``; see
``vhuman/data/controllers/README.md`` for the speed each one walks)."""


def speed_controller_path(speed: float) -> Path:
    """Path of the shipped controller evolved for walking at ``speed`` [m/s].

    Raises
    ------
    InputError
        If ``speed`` is not one of :data:`SHIPPED_SPEEDS`.
    """
    match = next((v for v in SHIPPED_SPEEDS if abs(v - speed) < 1e-9), None)
    if match is None:
        raise InputError(
            f"no shipped controller for {speed:g} m/s; shipped speeds: "
            f"{', '.join(f'{v:.1f}' for v in SHIPPED_SPEEDS)}"
        )
    return default_controller_path().with_name(f"walk_{match:.1f}.json")


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


# -- construction ------------------------------------------------------------------
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
        elif h.model.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX:
            rows = data.geom_xmat[g].reshape(3, 3)[2]
            low = min(low, data.geom_xpos[g][2] - float(np.abs(rows) @ size))
    out = qpos.copy()
    out[2] -= low
    return out


def initial_controller(clip: str = "walk", keyframes: int = 20, period: float = 0.8) -> Controller:
    """The initial walking controller of a DeepMimic clip, with F = 0.

    The keyframe targets are ``keyframes`` evenly spaced frames of the clip's
    cycle (the DeepMimic walk is one gait cycle starting at the right heel
    strike; the left one is at half the cycle), played by the state machine
    at SIMBICON's cadence: one gait cycle of nominally ``period`` seconds.
    The legs follow :data:`SIMBICON_GAIT`; the start is the standing pose
    moving forward at :data:`START_SPEED`.

    Raises
    ------
    InputError
        For an unknown clip, ``keyframes`` < 4 or ``period`` ≤ 0.
    """
    if keyframes < 4:
        raise InputError(f"keyframes must be >= 4, got {keyframes}")
    if not (np.isfinite(period) and period > 0.0):
        raise InputError(f"period must be > 0 s, got {period}")
    motion = clip_motion(clip)
    h = humanoid_for("deepmimic")
    qpos = h.motion_to_qpos(motion)
    n = motion.n_frames
    hinges = np.unwrap(qpos[:, 7:], axis=0)
    times = np.arange(keyframes) / keyframes * (n - 1)  # in frames
    frame_idx = np.arange(n)
    targets = np.stack([np.interp(times, frame_idx, hinges[:, i]) for i in range(h.n_hinges)], 1)
    stand = standing_controller("deepmimic")
    start_qvel = np.zeros(h.model.nv)
    start_qvel[0] = START_SPEED
    return Controller(
        skeleton="deepmimic",
        signature=h.signature,
        clip=clip,
        period=period,
        targets=targets,
        ideal=np.zeros((keyframes, len(STATE_NAMES))),
        right_stance=np.arange(keyframes) < keyframes / 2,
        feedback=np.zeros(FEEDBACK_SHAPE),
        start_qpos=stand.start_qpos,
        start_qvel=start_qvel,
        gait=np.array(SIMBICON_GAIT),
        meta={"keyframes": keyframes, "clip_fps": motion.fps},
    )


def standing_controller(
    skeleton: BodySkeleton | str = BodySkeleton.STANDARD, lean: float | None = None
) -> Controller:
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
        skeleton=str(skeleton),
        signature=skeleton_signature(sk),
        clip="",
        period=1.0,
        targets=targets,
        ideal=np.zeros((4, 6)),
        right_stance=np.ones(4, dtype=bool),
        feedback=np.zeros(FEEDBACK_SHAPE),
        start_qpos=qpos,
        start_qvel=np.zeros(h.model.nv),
        meta={"lean_rad": lean},
    )
