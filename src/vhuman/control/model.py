"""The physical humanoid: a MuJoCo model built in code (``mujoco.MjSpec``) from a `Skeleton`.

One rigid body per moving joint of the skeleton, carrying that joint's segment
as a capsule (a sphere when the segment has no length) with the segment's mass.
FIXED joints (wrists of the DeepMimic humanoid, toes are hinges) are merged
into their parent body. The root is a free joint; a BALL joint becomes three
hinges about the axes of its ``limit_sequences`` entry (intrinsic, so MuJoCo's
product of hinge rotations reproduces the Euler angles the skeleton's limits
are written in) with those limits; a HINGE joint keeps its axis and limits.

Each hinge has a PD servo (a MuJoCo ``general`` actuator with gain ``kp`` and
bias ``−kp·q − kd·q̇``, force limited per joint group): the engine computes
``τ = kp (q_target − q) − kd q̇`` at every step from ``ctrl = q_target`` and,
with the ``implicitfast`` integrator, treats the damping term implicitly
(stable PD). Contacts: a ground plane with friction; every segment collides
with the ground and with the other segments, except those of adjacent bodies
(MuJoCo's parent filter) and pairs that already touch at the rest pose
(excluded, e.g. the two thighs at the hips).

Feet: the segment of an ankle joint (a capsule along the foot) becomes a box
of the capsule's length (ends included) and height, and :data:`FOOT_WIDTH_RATIO`
times its diameter wide, with the segment's mass. A capsule touches the ground
along a line, which gives no support sideways; the box is the DeepMimic
humanoid's own foot (0.178 × 0.09 × 0.056 m).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import mujoco
import numpy as np
from numpy.typing import ArrayLike, NDArray

from vhuman.errors import InputError
from vhuman.geometry.euler import euler_to_quat, quat_to_euler
from vhuman.io.filesystem import PathLike, atomic_write
from vhuman.skeleton.motion import Motion
from vhuman.skeleton.skeleton import JointType, Skeleton

__all__ = [
    "FOOT_WIDTH_RATIO",
    "MIN_BODY_MASS",
    "TIMESTEP",
    "Humanoid",
    "build_humanoid",
    "skeleton_signature",
]

TIMESTEP = 0.004
"""Simulation time step [s] (dm_control's humanoid uses 5 ms; with the ``implicitfast``
integrator the PD damping is implicit, and 4 ms keeps the default contact time constant of
20 ms resolved while halving the cost of 2 ms; 8 ms makes the walker fall)."""

MIN_BODY_MASS = 0.05
"""Mass [kg] given to a moving body whose segments weigh nothing (MuJoCo needs > 0)."""

FOOT_WIDTH_RATIO = 1.6
"""Foot box width over the ankle segment's capsule diameter."""

_GROUND_FRICTION = (1.0, 0.005, 0.0001)
_ARMATURE = 0.01  # kg m², rotor inertia added to each hinge: steadies light distal joints

# (name fragment, kp [N m/rad], kd [N m s/rad], torque limit [N m]); first match wins.
# SIMBICON's gains (kp ≈ 300, kd = kp / 10) for the legs and trunk of a 45 kg body.
_GROUPS: tuple[tuple[str, float, float, float], ...] = (
    ("toe", 60.0, 6.0, 50.0),
    ("ankle", 180.0, 18.0, 200.0),
    ("knee", 300.0, 30.0, 300.0),
    ("hip", 300.0, 30.0, 300.0),
    ("spine", 300.0, 30.0, 300.0),
    ("chest", 300.0, 30.0, 300.0),
    ("neck", 100.0, 10.0, 50.0),
    ("head", 100.0, 10.0, 50.0),
    ("clavicle", 200.0, 20.0, 100.0),
    ("shoulder", 200.0, 20.0, 100.0),
    ("elbow", 150.0, 15.0, 60.0),
    ("wrist", 50.0, 5.0, 20.0),
)
_DEFAULT_GROUP = (200.0, 20.0, 100.0)


def _group(name: str) -> tuple[float, float, float]:
    for fragment, kp, kd, limit in _GROUPS:
        if fragment in name:
            return kp, kd, limit
    return _DEFAULT_GROUP


def skeleton_signature(skeleton: Skeleton) -> str:
    """A short fingerprint of the skeleton's joints, tree and offsets (hex, 16 characters).

    Two skeletons with the same signature have the same joint names, parents,
    joint types and offsets (rounded to 0.1 mm), so a controller made for one
    drives the other.
    """
    import hashlib

    text = "|".join(
        f"{n}:{p}:{t.value}:{','.join(f'{x:.4f}' for x in o)}"
        for n, p, t, o in zip(
            skeleton.names, skeleton.parents, skeleton.joint_types, skeleton.offsets, strict=True
        )
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _hinge_axes(seq: str) -> list[NDArray[np.float64]]:
    """Axes of the three hinges of a BALL joint, in MuJoCo's (intrinsic) order."""
    axes = [np.eye(3)["XYZ".index(c.upper())] for c in seq]
    return axes if seq.isupper() else axes[::-1]  # extrinsic xyz = intrinsic ZYX


@dataclass(frozen=True, eq=False)
class Humanoid:
    """A MuJoCo humanoid made from a skeleton, with the map between its state and a `Motion`.

    Attributes
    ----------
    skeleton : Skeleton
    model : mujoco.MjModel
        The compiled model (time step :data:`TIMESTEP`).
    xml : str
        The model as MJCF text.
    joint_qpos : tuple of tuple of int
        Per skeleton joint, the ``qpos`` addresses of its hinges (3 for BALL,
        1 for HINGE, none for FIXED; the root's free joint uses ``qpos[0:7]``).
    hinge_names : tuple of str
        ``"<joint>"`` for a HINGE joint, ``"<joint>_<axis>"`` for the three
        hinges of a BALL joint, in actuator order (actuator i drives hinge i,
        whose ``qpos`` address is ``7 + i`` and ``qvel`` address ``6 + i``).
    body_of_joint : tuple of int
        MuJoCo body id carrying each skeleton joint's segment (a FIXED joint's
        parent body).
    kp, kd, torque_limit : ndarray, shape (H,)
        PD gains [N m/rad], [N m s/rad] and torque limits [N m] per hinge.
    """

    skeleton: Skeleton
    model: mujoco.MjModel
    xml: str
    joint_qpos: tuple[tuple[int, ...], ...]
    hinge_names: tuple[str, ...]
    body_of_joint: tuple[int, ...]
    kp: NDArray[np.float64]
    kd: NDArray[np.float64]
    torque_limit: NDArray[np.float64]

    @property
    def n_hinges(self) -> int:
        """Number of hinges H (= actuators)."""
        return len(self.hinge_names)

    @cached_property
    def signature(self) -> str:
        """:func:`skeleton_signature` of the skeleton."""
        return skeleton_signature(self.skeleton)

    def hinge(self, name: str) -> int:
        """Index of the hinge called ``name`` (see ``hinge_names``).

        Raises
        ------
        InputError
            If there is no such hinge; the message lists them.
        """
        try:
            return self.hinge_names.index(name)
        except ValueError:
            raise InputError(
                f"unknown hinge {name!r}; this model has: {', '.join(self.hinge_names)}"
            ) from None

    def body_masses(self) -> NDArray[np.float64]:
        """Mass [kg] of the body carrying each skeleton joint ``(J,)`` (0 for merged FIXED ones)."""
        out = np.zeros(self.skeleton.n_joints)
        for j, b in enumerate(self.body_of_joint):
            if self.skeleton.joint_types[j] is not JointType.FIXED:
                out[j] = self.model.body_mass[b]
        return out

    def save_mjcf(self, path: PathLike) -> None:
        """Write the model as MJCF (atomically).

        Raises
        ------
        InputError
            If the file cannot be written.
        """
        atomic_write(path, self.xml)

    # -- state <-> motion ----------------------------------------------------------
    def pose_to_qpos(self, root_position: ArrayLike, local_rotations: ArrayLike) -> NDArray:
        """``qpos (..., 7 + H)`` of poses given as root positions ``(..., 3)`` [m] and local
        rotations ``(..., J, 4)`` (w, x, y, z).

        Rotations a joint cannot make (swing off a hinge axis) are dropped.
        """
        sk = self.skeleton
        q = np.asarray(local_rotations, dtype=np.float64)
        root = np.asarray(root_position, dtype=np.float64)
        out = np.zeros((*q.shape[:-2], 7 + self.n_hinges))
        out[..., 0:3] = root
        out[..., 3:7] = q[..., 0, :]
        angles = sk.joint_angles(q)
        for j in range(1, sk.n_joints):
            adr = self.joint_qpos[j]
            t = sk.joint_types[j]
            if t is JointType.HINGE:
                out[..., adr[0]] = angles[..., j, 0]
            elif t is JointType.BALL:
                seq = sk.limit_sequences[j]
                e = quat_to_euler(q[..., j, :], seq)
                out[..., list(adr)] = e if seq.isupper() else e[..., ::-1]
        return out

    def qpos_to_pose(self, qpos: ArrayLike) -> tuple[NDArray, NDArray]:
        """Root positions ``(..., 3)`` [m] and local rotations ``(..., J, 4)`` from ``qpos``."""
        sk = self.skeleton
        qp = np.asarray(qpos, dtype=np.float64)
        rot = np.zeros((*qp.shape[:-1], sk.n_joints, 4))
        rot[..., 0] = 1.0
        root_q = qp[..., 3:7]
        rot[..., 0, :] = root_q / np.linalg.norm(root_q, axis=-1, keepdims=True)
        for j in range(1, sk.n_joints):
            adr = self.joint_qpos[j]
            t = sk.joint_types[j]
            if t is JointType.HINGE:
                half = 0.5 * qp[..., adr[0], None]
                rot[..., j, :] = np.concatenate([np.cos(half), np.sin(half) * sk.axes[j]], -1)
            elif t is JointType.BALL:
                seq = sk.limit_sequences[j]
                e = qp[..., list(adr)]
                rot[..., j, :] = euler_to_quat(e if seq.isupper() else e[..., ::-1], seq)
        return qp[..., 0:3].copy(), rot

    def motion_to_qpos(self, motion: Motion) -> NDArray[np.float64]:
        """``qpos (T, 7 + H)`` of each frame of ``motion`` (on this model's skeleton).

        Raises
        ------
        InputError
            If the motion is on another skeleton.
        """
        if skeleton_signature(motion.skeleton) != self.signature:
            raise InputError(
                f"the motion's skeleton ({motion.skeleton.n_joints} joints, "
                f"{motion.skeleton.names[0]!r}...) is not this model's "
                f"({self.skeleton.n_joints} joints)"
            )
        return self.pose_to_qpos(motion.root_positions, motion.local_rotations)

    def qpos_to_motion(self, qpos: ArrayLike, fps: float) -> Motion:
        """A `Motion` of frames given as ``qpos (T, 7 + H)``, at ``fps`` [Hz]."""
        root, rot = self.qpos_to_pose(qpos)
        return Motion(self.skeleton, fps, root, rot)


def build_humanoid(skeleton: Skeleton, ankle_scale: float = 1.0) -> Humanoid:
    """Build the MuJoCo humanoid of ``skeleton`` (see the module notes).

    Parameters
    ----------
    skeleton : Skeleton
        With ``segments`` (capsules with masses), e.g. ``standard_humanoid()``
        or ``vhuman.io.deepmimic_humanoid()``; z up, facing +x.
    ankle_scale : float
        Factor on the ankle and toe PD gains and torque limits (the 59 kg
        standard humanoid, whose feet carry toe hinges, needs 3 to stand).

    Raises
    ------
    InputError
        If the skeleton has no segments or its root is not FREE.
    """
    if skeleton.segments is None:
        raise InputError("a physical humanoid needs a skeleton with segments (shapes and masses)")
    if skeleton.joint_types[0] is not JointType.FREE:
        raise InputError(f"the root joint {skeleton.names[0]!r} must be FREE")
    spec = mujoco.MjSpec()
    spec.modelname = "vhuman_humanoid"
    spec.compiler.degree = False
    spec.option.timestep = TIMESTEP
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    ground = spec.worldbody.add_geom(
        name="ground", type=mujoco.mjtGeom.mjGEOM_PLANE, size=[0, 0, 1], friction=_GROUND_FRICTION
    )
    ground.rgba = [0.8, 0.8, 0.8, 1.0]
    spec.worldbody.add_light(pos=[0, 0, 4], dir=[0, 0, -1])

    n = skeleton.n_joints
    bodies: list = [None] * n
    owner = list(range(n))  # joint whose body carries joint j's segment
    frame_in_owner = [np.zeros(3) for _ in range(n)]  # joint j's origin in its owner's frame
    joint_qpos: list[tuple[int, ...]] = [()] * n
    hinge_names: list[str] = []
    hinge_joint: list[int] = []
    # Depth first, as MuJoCo numbers bodies, so hinge i has qpos address 7 + i.
    order: list[int] = []
    stack = [0]
    while stack:
        j = stack.pop()
        order.append(j)
        stack.extend(reversed(skeleton.children(j)))
    for j in order:
        t = skeleton.joint_types[j]
        p = int(skeleton.parents[j])
        name = skeleton.names[j]
        if t is JointType.FIXED:
            owner[j] = owner[p]
            frame_in_owner[j] = frame_in_owner[p] + skeleton.offsets[j]
            continue
        parent_body = spec.worldbody if p < 0 else bodies[owner[p]]
        pos = skeleton.offsets[j] if p < 0 else frame_in_owner[p] + skeleton.offsets[j]
        body = parent_body.add_body(name=name, pos=list(pos))
        bodies[j] = body
        if t is JointType.FREE:
            body.add_freejoint(name=name)
            joint_qpos[j] = ()
            continue
        lo_hi = skeleton.limits[j]
        if t is JointType.HINGE:
            specs = [(name, skeleton.axes[j], lo_hi[0])]
        else:
            seq = skeleton.limit_sequences[j]
            order = range(3) if seq.isupper() else range(2, -1, -1)
            specs = [
                (f"{name}_{seq[k].lower()}", _hinge_axes(seq)[i], lo_hi[k])
                for i, k in enumerate(order)
            ]
        adrs = []
        for hname, axis, (lo, hi) in specs:
            limited = bool(np.isfinite(lo) and np.isfinite(hi))
            body.add_joint(
                name=hname,
                type=mujoco.mjtJoint.mjJNT_HINGE,
                axis=list(axis),
                range=[float(lo), float(hi)] if limited else [0.0, 0.0],
                limited=mujoco.mjtLimited.mjLIMITED_TRUE if limited else 0,
                armature=_ARMATURE,
            )
            adrs.append(7 + len(hinge_names))
            hinge_names.append(hname)
            hinge_joint.append(j)
        joint_qpos[j] = tuple(adrs)

    body_mass = np.zeros(n)
    for j in range(n):
        seg = skeleton.segments[j]
        if seg is not None:
            body_mass[owner[j]] += seg.mass
    for j in range(n):
        seg = skeleton.segments[j]
        b = owner[j]
        moving = bodies[b] is not None
        share_zero = body_mass[b] <= 0.0
        if seg is None:
            if share_zero and moving and j == b:
                bodies[b].add_geom(
                    name=f"{skeleton.names[j]}_mass",
                    type=mujoco.mjtGeom.mjGEOM_SPHERE,
                    size=[0.01, 0, 0],
                    mass=MIN_BODY_MASS,
                    contype=0,
                    conaffinity=0,
                )
            continue
        start = frame_in_owner[j] - frame_in_owner[b] + seg.start
        end = frame_in_owner[j] - frame_in_owner[b] + seg.end
        mass = seg.mass if not share_zero else MIN_BODY_MASS
        kwargs = {"name": f"{skeleton.names[j]}_geom", "mass": float(mass)}
        if "ankle" in skeleton.names[j] and seg.length > 1e-6:
            half = 0.5 * (end - start)
            length = float(np.linalg.norm(half))
            axis = half / length
            side = np.cross([0.0, 0.0, 1.0], axis)
            side = side / np.linalg.norm(side) if np.linalg.norm(side) > 1e-9 else np.eye(3)[1]
            quat = np.zeros(4)
            frame = np.stack([axis, side, np.cross(axis, side)], axis=1)
            mujoco.mju_mat2Quat(quat, frame.ravel())
            bodies[b].add_geom(
                type=mujoco.mjtGeom.mjGEOM_BOX,
                pos=list(start + half),
                quat=list(quat),
                size=[length + seg.radius, FOOT_WIDTH_RATIO * seg.radius, seg.radius],
                **kwargs,
            )
        elif seg.length < 1e-6:
            bodies[b].add_geom(
                type=mujoco.mjtGeom.mjGEOM_SPHERE,
                size=[seg.radius, 0, 0],
                pos=list(start),
                **kwargs,
            )
        else:
            bodies[b].add_geom(
                type=mujoco.mjtGeom.mjGEOM_CAPSULE,
                size=[seg.radius, 0, 0],
                fromto=[*start, *end],
                **kwargs,
            )
    kp, kd, limit = (np.array(v) for v in zip(*(_group(h) for h in hinge_names), strict=True))
    foot = np.array([("ankle" in h or "toe" in h) for h in hinge_names])
    for arr in (kp, kd, limit):
        arr[foot] *= ankle_scale
    for i, hname in enumerate(hinge_names):
        act = spec.add_actuator(name=hname, target=hname)
        act.trntype = mujoco.mjtTrn.mjTRN_JOINT
        act.gaintype = mujoco.mjtGain.mjGAIN_FIXED
        act.biastype = mujoco.mjtBias.mjBIAS_AFFINE
        act.gainprm[0] = kp[i]
        act.biasprm[0:3] = [0.0, -kp[i], -kd[i]]
        act.forcelimited = mujoco.mjtLimited.mjLIMITED_TRUE
        act.forcerange = [-limit[i], limit[i]]
    model = spec.compile()
    # Exclude contacts between segments that already touch at the rest pose.
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    pairs = set()
    for c in data.contact[: data.ncon]:
        b1, b2 = int(model.geom_bodyid[c.geom1]), int(model.geom_bodyid[c.geom2])
        if b1 != 0 and b2 != 0 and b1 != b2:
            pairs.add((min(b1, b2), max(b1, b2)))
    for b1, b2 in sorted(pairs):
        spec.add_exclude(bodyname1=model.body(b1).name, bodyname2=model.body(b2).name)
    if pairs:
        model = spec.compile()
    for i, hname in enumerate(hinge_names):
        if model.joint(hname).qposadr[0] != 7 + i:  # the depth-first order above guarantees it
            raise InputError(f"hinge {hname!r} is not at qpos address {7 + i}")
    body_of_joint = tuple(int(model.body(skeleton.names[owner[j]]).id) for j in range(n))
    return Humanoid(
        skeleton=skeleton,
        model=model,
        xml=spec.to_xml(),
        joint_qpos=tuple(joint_qpos),
        hinge_names=tuple(hinge_names),
        body_of_joint=body_of_joint,
        kp=kp,
        kd=kd,
        torque_limit=limit,
    )
