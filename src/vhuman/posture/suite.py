"""A suite of maintenance scenes with stored witness postures that prove which are feasible.

The suite lives in ``vhuman/data/scenes/suite/``: scene files in the format of
:mod:`vhuman.scene.files`, a manifest ``suite.yaml`` that gives for each scene
the worker (see :data:`vhuman.posture.WORKERS`), the working hand and what is
expected (``reached``, or ``unreachable`` with its reason), and for every
feasible scene a witness ``witnesses/<name>.json``: one whole-body pose whose
hand reaches the target within 5 mm and 3° and that passes the full-body
check (:func:`vhuman.posture.check.check_posture`).

Witnesses are found by :func:`find_witness`, a brute-force search independent
of the solver: every library posture at every heading (10° steps) on a 5 cm
grid of pelvis positions around the target, the working arm by the closed-form
IK over 72 swivel angles (:func:`vhuman.reaching.solve_arm`), every survivor of
the cheap filters checked in full. Regenerate them with
``python benchmarks/witnesses.py``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from numpy.typing import NDArray

from vhuman.data import shipped_path
from vhuman.errors import FileFormatError, InputError
from vhuman.geometry import euler_to_quat, quat_multiply
from vhuman.io import atomic_write
from vhuman.posture.arm import ArmSetting, access_errors
from vhuman.posture.check import PostureCheck, check_posture
from vhuman.posture.library import PostureLibrary
from vhuman.reaching import Side
from vhuman.scene import BodyModel, CollisionWorld, Scene, arm_length, load_scene
from vhuman.skeleton import forward_kinematics

__all__ = [
    "REASONS",
    "SuiteCase",
    "Witness",
    "find_witness",
    "hand_error",
    "load_suite",
    "recheck",
    "suite_folder",
]

REASONS: tuple[str, ...] = ("enclosed", "out of reach", "only with contact")
"""Why a target cannot be reached."""

_EXPECT = ("reached", "unreachable")


def suite_folder() -> Path:
    """The built-in suite folder ``vhuman/data/scenes/suite``."""
    return shipped_path("scenes", "suite")


@dataclass(frozen=True)
class Witness:
    """A whole-body pose that proves a scene feasible.

    Attributes
    ----------
    scene, worker, side, posture : str
        What it solves, and the library posture it started from.
    root_position : ndarray, shape (3,)
        World pelvis position [m].
    local_rotations : ndarray, shape (J, 4)
        Local joint rotations (w, x, y, z).
    """

    scene: str
    worker: str
    side: str
    posture: str
    root_position: NDArray[np.float64]
    local_rotations: NDArray[np.float64]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready (metres, quaternions rounded to 1e-9)."""
        return {
            "scene": self.scene,
            "worker": self.worker,
            "side": self.side,
            "posture": self.posture,
            "root_position_m": np.round(self.root_position, 9).tolist(),
            "local_rotations_wxyz": np.round(self.local_rotations, 9).tolist(),
        }

    @classmethod
    def from_dict(cls, doc: dict[str, Any], source: str = "witness") -> Witness:
        """Read :meth:`to_dict`'s structure.

        Raises
        ------
        FileFormatError
            For a missing field or arrays of the wrong shape.
        """
        try:
            root = np.array(doc["root_position_m"], dtype=np.float64)
            rot = np.array(doc["local_rotations_wxyz"], dtype=np.float64)
            out = cls(
                str(doc["scene"]),
                str(doc["worker"]),
                str(doc["side"]),
                str(doc["posture"]),
                root,
                rot,
            )
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise FileFormatError(f"{source}: bad witness ({exc})") from None
        if root.shape != (3,) or rot.ndim != 2 or rot.shape[1] != 4:
            raise FileFormatError(f"{source}: root_position_m (3,) and rotations (J, 4) expected")
        return out


@dataclass(frozen=True)
class SuiteCase:
    """One scene of the suite.

    Attributes
    ----------
    name : str
        The scene file's stem.
    path : Path
        The scene file.
    worker : str
        Worker name (see :data:`vhuman.posture.WORKERS`).
    side : Side
        The working arm.
    expect : str
        ``"reached"`` or ``"unreachable"``.
    reason : str
        For ``unreachable``: one of :data:`REASONS`; "" otherwise.
    """

    name: str
    path: Path
    worker: str
    side: Side
    expect: str
    reason: str

    @property
    def feasible(self) -> bool:
        """Whether the scene is expected to be reached."""
        return self.expect == "reached"

    @property
    def witness_path(self) -> Path:
        """``witnesses/<name>.json`` next to the scene file."""
        return self.path.parent / "witnesses" / f"{self.name}.json"

    def scene(self) -> Scene:
        """The scene, read from its file."""
        return load_scene(self.path)

    def witness(self) -> Witness | None:
        """The stored witness (None when there is no file)."""
        if not self.witness_path.exists():
            return None
        try:
            doc = json.loads(self.witness_path.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            reason = (str(exc).splitlines() or [type(exc).__name__])[0]
            raise FileFormatError(f"{self.witness_path}: not a JSON witness ({reason})") from None
        return Witness.from_dict(doc, str(self.witness_path))

    def save_witness(self, witness: Witness) -> Path:
        """Write the witness file atomically."""
        self.witness_path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(self.witness_path, json.dumps(witness.to_dict(), indent=1) + "\n")
        return self.witness_path


def load_suite(folder: str | os.PathLike[str] | None = None) -> tuple[SuiteCase, ...]:
    """Read a suite manifest ``suite.yaml`` (default: the built-in suite).

    Raises
    ------
    FileFormatError
        For a malformed manifest; the message names the entry and field.
    """
    from vhuman.posture.solver import WORKERS

    base = suite_folder() if folder is None else Path(folder)
    file = base / "suite.yaml"
    try:
        doc = yaml.safe_load(file.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"cannot read suite manifest {str(file)!r}: {exc.strerror}") from None
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        reason = getattr(exc, "problem", None) or (str(exc).splitlines() or [""])[0]
        raise FileFormatError(f"{file}{line}: not a valid YAML suite manifest ({reason})") from None
    entries = doc.get("scenes") if isinstance(doc, dict) else None
    if not isinstance(entries, list) or not entries:
        raise FileFormatError(f"{file}: scenes: expected a non-empty list")
    cases = []
    for i, e in enumerate(entries):
        where = f"{file}: scenes[{i}]"
        if not isinstance(e, dict) or not isinstance(e.get("scene"), str):
            raise FileFormatError(f"{where}.scene: expected a scene file name")
        worker = e.get("worker", "p95-male")
        side = e.get("side", Side.RIGHT.value)
        expect = e.get("expect", "reached")
        reason = e.get("reason", "")
        if worker not in WORKERS:
            raise FileFormatError(f"{where}.worker: {worker!r}; workers: {', '.join(WORKERS)}")
        if side not in list(Side):
            raise FileFormatError(f"{where}.side: expected right or left, got {side!r}")
        if expect not in _EXPECT or (expect == "unreachable") != (reason in REASONS):
            raise FileFormatError(
                f"{where}.expect: expected 'reached', or 'unreachable' with a reason in "
                f"{list(REASONS)}; got {expect!r}, {reason!r}"
            )
        path = base / e["scene"]
        cases.append(SuiteCase(path.stem, path, worker, Side(side), expect, reason))
    return tuple(cases)


def hand_error(
    body: BodyModel,
    root_position: NDArray,
    local_rotations: NDArray,
    side: Side | str,
    scene: Scene,
) -> tuple[float, float]:
    """Position [m] and orientation [rad] error of the working hand against the target (FK)."""
    sk = body.skeleton
    s = "r" if Side.parse(side) is Side.RIGHT else "l"
    hand, wrist = sk.indices([f"{s}_hand", f"{s}_wrist"])
    pos, rot = forward_kinematics(sk.parents, sk.offsets, root_position, local_rotations)
    t, r = access_errors(pos[hand], rot[wrist], scene.target)
    return float(t), float(r)


def _placements(
    library: PostureLibrary,
    scene: Scene,
    side: Side,
    reach: float,
    yaw_step: float,
    grid: float,
) -> list[tuple[int, NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]]:
    """Per posture: headings ``(n,)``, world roots ``(n, 3)`` and shoulder–target distances
    ``(n,)`` [m] of the placements whose working shoulder is within ``reach`` of the target."""
    sk = library.skeleton
    sh = sk.index(f"{'r' if side is Side.RIGHT else 'l'}_shoulder")
    t = scene.target.position
    yaws = np.radians(np.arange(0.0, 360.0, yaw_step))
    span = np.arange(-1.6, 1.6 + 1e-9, grid)
    gx, gy = np.meshgrid(t[0] + span, t[1] + span, indexing="ij")
    xy = np.column_stack([gx.ravel(), gy.ravel()])
    out = []
    for m, p in enumerate(library):
        pos, _ = forward_kinematics(sk.parents, sk.offsets, p.root_position, p.local_rotations)
        s_local = pos[sh] - p.root_position
        dz = p.root_position[2] + s_local[2] + scene.floor - t[2]
        c, s = np.cos(yaws)[:, None], np.sin(yaws)[:, None]
        sx = xy[None, :, 0] + c * s_local[0] - s * s_local[1]
        sy = xy[None, :, 1] + s * s_local[0] + c * s_local[1]
        d = np.sqrt((sx - t[0]) ** 2 + (sy - t[1]) ** 2 + dz**2)  # (Y, G)
        yi, gi = np.nonzero(d < reach)
        roots = np.column_stack([xy[gi], np.full(len(gi), p.root_position[2] + scene.floor)])
        out.append((m, yaws[yi], roots, d[yi, gi]))
    return out


def find_witness(
    scene: Scene,
    library: PostureLibrary,
    body: BodyModel,
    *,
    side: Side | str = Side.RIGHT,
    world: CollisionWorld | None = None,
    yaw_step_deg: float = 10.0,
    grid: float = 0.05,
    max_checks: int = 200_000,
) -> tuple[Witness | None, int]:
    """Brute-force search for a valid whole-body pose that reaches the target.

    Every library posture at every heading on a grid of pelvis positions whose
    working shoulder is within arm reach; the trunk (all but the working arm)
    filtered by the occupancy grid, then exactly; the arm by closed-form IK at
    72 swivel angles (within the arm's limits), least uncomfortable first;
    the first pose that passes :func:`check_posture` is returned.

    Returns
    -------
    witness : Witness or None
        None when nothing in the search reaches.
    checks : int
        Full-body checks run.
    """
    from vhuman.ergonomics import arm_discomfort
    from vhuman.posture.arm import anatomical_angles

    w = CollisionWorld(scene) if world is None else world
    sd = Side.parse(side)
    setting0 = ArmSetting(body, np.zeros(3), library.postures[0].local_rotations, sd, scene.target)
    arm = setting0.segments
    trunk = [n for n in body.names if n not in arm]
    reach = arm_length(body.skeleton, sd)
    checks = 0
    queues = []
    for m, yaws, roots, dist in _placements(library, scene, sd, reach, yaw_step_deg, grid):
        p = library.postures[m]
        rots = np.repeat(p.local_rotations[None], len(yaws), axis=0)
        qz = euler_to_quat(np.column_stack([0 * yaws, 0 * yaws, yaws]), "xyz")
        # The posture frame's pelvis is at x = y = 0: the heading turns about it.
        rots[:, 0] = quat_multiply(qz, p.local_rotations[0])
        ratio = w.collision_ratio(body, roots, rots, segments=trunk)
        keep = np.flatnonzero(ratio <= 0.0)
        # Shoulders near 70 % of the reach first: neither a straight nor a folded arm.
        keep = keep[np.argsort(np.abs(dist[keep] - 0.7 * reach), kind="stable")]
        queues.append((p, roots[keep], rots[keep]))
    start = 0
    while any(start < len(q[1]) for q in queues):
        for p, roots, rots in queues:
            for k in range(start, min(start + 64, len(roots))):
                if w.check(body, roots[k], rots[k], segments=trunk).in_collision:
                    continue
                s = ArmSetting(body, roots[k], rots[k], sd, scene.target)
                q, ok = s.ik_seeds()
                if not ok.any():
                    continue
                q = q[ok]
                q = q[np.argsort(arm_discomfort(anatomical_angles(q)), kind="stable")]
                poses = s.poses(q)
                limit_ok = body.skeleton.limit_violation(poses).max(axis=-1) <= 1e-3
                arm_ratio = w.collision_ratio(
                    body, np.broadcast_to(roots[k], (len(q), 3)), poses, segments=arm
                )
                for i in np.flatnonzero((arm_ratio <= 0.0) & limit_ok)[:4]:
                    checks += 1
                    if check_posture(w, body, roots[k], poses[i]).valid:
                        return Witness(scene.name, "", sd.value, p.name, roots[k], poses[i]), checks
                    if checks >= max_checks:
                        return None, checks
        start += 64
    return None, checks


def recheck(
    case: SuiteCase, witness: Witness, body: BodyModel
) -> tuple[PostureCheck, float, float]:
    """The full-body check and the hand's position [m] / orientation [rad] error of a witness."""
    scene = case.scene()
    world = CollisionWorld(scene)
    chk = check_posture(world, body, witness.root_position, witness.local_rotations)
    t, r = hand_error(body, witness.root_position, witness.local_rotations, case.side, scene)
    return chk, t, r
