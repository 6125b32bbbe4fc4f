"""`Manikin`: a skeleton's body as capsules fixed in its joint frames, meshed for drawing.

For a skeleton with segments (the standard humanoid, the DeepMimic humanoid)
the capsules are those of `vhuman.scene.BodyModel`, the body the collision
checks use. Other skeletons (CMU, BVH files) get a capsule along every bone,
carried by the bone's parent joint. Its radius is that of the standard
humanoid segment, at the skeleton's stature, that the parent joint's name
says it carries (``lknee`` or ``LeftLeg``: the shank); a bone whose name no
rule knows gets a radius of a fifth of its length, bounded by stature. A leaf
joint named like a segment (a wrist, an ankle, a neck with nothing above it)
carries the standard humanoid's hand, foot or head, turned so that the
humanoid's bone into that joint lies along the leaf's bone.

Every capsule is meshed once in its joint's frame with the same low-poly
topology; a pose only moves the vertices (a rigid transform per joint), so an
animation stores vertices per frame and the triangles once.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.spatial.transform import Rotation

from vhuman.geometry import quat_to_rotmat
from vhuman.scene.body import BodyModel
from vhuman.skeleton import Motion, Skeleton, standard_humanoid

__all__ = ["Manikin"]

# (pattern on the lower-case joint name, standard humanoid joint whose segment radius to
# use, factor on that radius). First match wins, so "forearm" precedes "arm", "upleg"
# precedes "leg", and "hips" (a pelvis) precedes "hip" (a hip joint carrying the thigh).
_ROLES: tuple[tuple[str, str, float], ...] = (
    (r"thumb|finger|index|middle|ring|pinky", "l_wrist", 0.5),
    (r"forearm|elbow", "l_elbow", 1.0),
    (r"hips|pelvis|root", "pelvis", 1.0),
    (r"upleg|upperleg|thigh|hip", "l_hip", 1.0),
    (r"toe", "l_toe", 1.0),
    (r"knee|shin|calf|leg", "l_knee", 1.0),
    (r"ankle|foot", "l_ankle", 1.0),
    (r"wrist|hand", "l_wrist", 1.0),
    (r"clavicle|collar", "l_clavicle", 1.0),
    (r"shoulder|arm", "l_shoulder", 1.0),
    (r"head", "head", 1.0),
    (r"neck", "neck", 1.0),
    (r"chest|thorax|spine[123]|upperback|torso", "chest", 1.0),
    (r"spine|back|abdomen|waist|lumbar", "spine", 1.0),
)
_END_SITE = r"tip|end|site|top"  # leaf markers that carry no body part of their own
# A leaf joint named like a segment carries that standard humanoid segment, turned so
# that the humanoid's bone into it matches the leaf's bone; a neck with nothing above
# it carries the head.
_LEAF_SEGMENT = {"neck": "head"}
_TRUNK = ("pelvis", "spine", "chest", "neck")
_CHIN_HEIGHT = 0.870  # fraction of stature (Drillis & Contini 1966)
_UNKNOWN_RADIUS_PER_LENGTH = 0.2
_UNKNOWN_RADIUS_BOUNDS = (0.005, 0.05)  # fractions of stature
_MIN_BONE = 0.005  # fraction of stature: shorter bones (zero-offset helper joints) get none


@dataclass(frozen=True, eq=False)
class Manikin:
    """Capsules fixed in joint frames, and one low-poly triangle mesh of them all.

    Build it with :meth:`from_skeleton`.

    Attributes
    ----------
    skeleton : Skeleton
        The body.
    joints : ndarray of int, shape (S,)
        Joint carrying each capsule (a joint may carry several).
    starts, ends : ndarray, shape (S, 3)
        Capsule axis end points in the carrying joint's frame [m].
    radii : ndarray, shape (S,)
        Capsule radii [m].
    mapping : str
        Where the capsules come from: ``"segments"`` (the skeleton's own, as
        `BodyModel` uses them), ``"named bones"`` (every bone's parent has a known
        name) or ``"bones"`` (some bones sized by their length alone).
    """

    skeleton: Skeleton
    joints: NDArray[np.intp]
    starts: NDArray[np.float64]
    ends: NDArray[np.float64]
    radii: NDArray[np.float64]
    mapping: str

    @classmethod
    def from_skeleton(cls, skeleton: Skeleton) -> Manikin:
        """The capsules of ``skeleton``: its segments if it has any, else one per bone.

        Parameters
        ----------
        skeleton : Skeleton
            Any skeleton the readers return.

        Returns
        -------
        Manikin
            At least one capsule (a skeleton of one joint gets a small sphere).
        """
        if skeleton.segments is not None and any(s is not None for s in skeleton.segments):
            body = BodyModel.from_skeleton(skeleton, samples_per_segment=1)
            return cls(skeleton, body.joints, body.starts, body.ends, body.radii, "segments")
        names = [n.lower() for n in skeleton.names]
        roles = [_role(n) for n in names]
        stature = _stature(skeleton, roles)
        reference = standard_humanoid(stature=stature)
        segments = reference.segments or ()
        has_child = np.zeros(skeleton.n_joints, dtype=bool)
        has_child[skeleton.parents[skeleton.parents >= 0]] = True
        joints, starts, ends, radii = [], [], [], []
        known = True
        for child, parent in enumerate(skeleton.parents):
            offset = skeleton.offsets[child]
            length = float(np.linalg.norm(offset))
            if parent >= 0 and length >= _MIN_BONE * stature:
                role = roles[parent]
                if role is None:
                    known = False
                    lo, hi = _UNKNOWN_RADIUS_BOUNDS
                    radius = float(
                        np.clip(_UNKNOWN_RADIUS_PER_LENGTH * length, lo * stature, hi * stature)
                    )
                else:
                    if (
                        roles[child] is not None
                        and roles[child][0] == "l_shoulder"
                        and (role[0] in _TRUNK)
                    ):
                        role = ("l_clavicle", 1.0)  # trunk to shoulder: the shoulder girdle
                    seg = segments[reference.index(role[0])]
                    radius = role[1] * seg.radius  # type: ignore[union-attr]
                joints.append(parent)
                starts.append(np.zeros(3))
                ends.append(offset)
                radii.append(radius)
            leaf_role = roles[child]
            if (
                has_child[child]
                or parent < 0
                or length < _MIN_BONE * stature
                or leaf_role is None
                or leaf_role == roles[parent]
                or re.search(_END_SITE, names[child])
            ):
                continue
            ref_joint = reference.index(_LEAF_SEGMENT.get(leaf_role[0], leaf_role[0]))
            seg = segments[ref_joint]
            turn = _turn(reference.offsets[ref_joint], offset)
            joints.append(child)
            starts.append(turn @ seg.start)  # type: ignore[union-attr]
            ends.append(turn @ seg.end)  # type: ignore[union-attr]
            radii.append(seg.radius)  # type: ignore[union-attr]
        if not joints:  # a single joint, or only zero-length bones
            joints, starts, ends, radii = [0], [np.zeros(3)], [np.zeros(3)], [0.05 * stature]
        return cls(
            skeleton,
            np.array(joints, dtype=np.intp),
            np.array(starts, dtype=np.float64),
            np.array(ends, dtype=np.float64),
            np.array(radii, dtype=np.float64),
            "named bones" if known else "bones",
        )

    @property
    def n_capsules(self) -> int:
        """Number of capsules S."""
        return len(self.joints)

    def local_mesh(self, *, sections: int = 8) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
        """Every capsule meshed in its joint's frame: vertices ``(S, V, 3)`` [m], faces ``(F, 3)``.

        Each capsule has ``V = 4 · sections + 2`` vertices: a pole and a ring at
        45° on each half sphere and the two rings of the cylinder. The faces
        index the flattened ``(S · V, 3)`` vertices.
        """
        n = int(sections)
        axis = self.ends - self.starts  # (S, 3)
        length = np.linalg.norm(axis, axis=-1, keepdims=True)
        u = np.where(length > 1e-9, axis / np.maximum(length, 1e-12), [0.0, 0.0, 1.0])
        helper = np.where(np.abs(u[:, :1]) < 0.9, [[1.0, 0.0, 0.0]], [[0.0, 1.0, 0.0]])
        e1 = np.cross(u, helper)
        e1 /= np.linalg.norm(e1, axis=-1, keepdims=True)
        e2 = np.cross(u, e1)
        ang = 2.0 * np.pi * np.arange(n) / n
        circle = np.cos(ang)[None, :, None] * e1[:, None] + np.sin(ang)[None, :, None] * e2[:, None]
        r = self.radii[:, None, None]
        c45 = np.sqrt(0.5)
        a, b, uu = self.starts[:, None], self.ends[:, None], u[:, None]
        verts = np.concatenate(
            [
                a - r * uu,
                a + r * c45 * (circle - uu),
                a + r * circle,
                b + r * circle,
                b + r * c45 * (circle + uu),
                b + r * uu,
            ],
            axis=1,
        )  # (S, 4n + 2, 3)
        faces = _capsule_faces(n)
        per = 4 * n + 2
        all_faces = (faces[None] + per * np.arange(self.n_capsules)[:, None, None]).reshape(-1, 3)
        return verts, all_faces

    def vertices(
        self,
        positions: NDArray[np.float64],
        rotations: NDArray[np.float64],
        *,
        sections: int = 8,
    ) -> NDArray[np.float64]:
        """World vertices ``(..., S · V, 3)`` [m] of the mesh in a batch of poses.

        Parameters
        ----------
        positions : ndarray, shape (..., J, 3)
            World joint positions [m] (`Motion.global_positions`).
        rotations : ndarray, shape (..., J, 4)
            World joint rotations (w, x, y, z) (`Motion.global_rotations`).
        sections : int, optional
            As in :meth:`local_mesh`; the faces of that mesh index these vertices.
        """
        local, _ = self.local_mesh(sections=sections)
        m = quat_to_rotmat(rotations[..., self.joints, :])  # (..., S, 3, 3)
        world = np.einsum("...sij,svj->...svi", m, local) + positions[..., self.joints, None, :]
        return world.reshape(*world.shape[:-3], -1, 3)

    def motion_vertices(
        self, motion: Motion, frames: NDArray[np.intp], *, sections: int = 8
    ) -> NDArray[np.float64]:
        """World vertices ``(N, S · V, 3)`` [m] at the frames ``(N,)`` of ``motion``."""
        return self.vertices(
            motion.global_positions[frames], motion.global_rotations[frames], sections=sections
        )


def _capsule_faces(n: int) -> NDArray[np.intp]:
    """Triangles of one capsule with 6 vertex groups: pole, 4 rings of ``n``, pole."""
    k = np.arange(n)
    k1 = (k + 1) % n
    first = 1 + n * np.arange(4)  # first vertex of each ring
    top = 4 * n + 1
    tris = [np.stack([np.zeros(n, int), first[0] + k1, first[0] + k], -1)]
    for lo, hi in itertools.pairwise(first):
        tris.append(np.stack([lo + k, lo + k1, hi + k1], -1))
        tris.append(np.stack([lo + k, hi + k1, hi + k], -1))
    tris.append(np.stack([first[3] + k, first[3] + k1, np.full(n, top)], -1))
    return np.concatenate(tris).astype(np.intp)


def _stature(skeleton: Skeleton, roles: list[tuple[str, float] | None]) -> float:
    """Standing height [m] estimated from the rest pose, 0.3 m to 3 m.

    The height of the rest pose, or its largest extent if that is more than
    twice as large (a skeleton lying down); when a joint is named like a neck
    and none like a head (the skeleton ends at the neck), that height is taken as chin height, 0.870
    of stature (Drillis & Contini 1966).
    """
    rest = skeleton.rest_positions()
    extent = rest.max(axis=0) - rest.min(axis=0)
    height = float(extent[2])
    if 2.0 * height < extent.max():
        height = float(extent.max())
    else:
        carried = {r[0] for r in roles if r is not None}
        if "neck" in carried and "head" not in carried:
            height /= _CHIN_HEIGHT
    return float(np.clip(height, 0.3, 3.0))


def _role(name: str) -> tuple[str, float] | None:
    """Standard humanoid joint whose segment the joint ``name`` (lower case) carries, and
    the factor on its radius; None for a name no rule knows."""
    for pattern, joint, factor in _ROLES:
        if re.search(pattern, name):
            return joint, factor
    return None


def _turn(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """The smallest rotation matrix ``(3, 3)`` taking the direction of ``a`` to that of ``b``."""
    rot, _ = Rotation.align_vectors(b[None], a[None])
    return rot.as_matrix()
