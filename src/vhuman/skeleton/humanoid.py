"""The standard humanoid: 23 joints scaled from published anthropometry.

Rest pose: the anatomical position (standing, arms hanging at the sides, palms
facing the thighs, feet flat), z up, facing +x, +y to the body's left, soles on
z = 0. Local frames are parallel to the world frame at rest, so for a limb
hanging along −z the local axes mean: y flexion/extension, x ab/adduction
(positive moves a left limb outwards), z axial rotation.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

import numpy as np

from vhuman.errors import InputError
from vhuman.skeleton.anthropometry import (
    AAOS_ROM_DEG,
    DE_LEVA,
    DRILLIS_CONTINI,
    GBT10000_MASS_KG,
    GBT10000_PERCENTILES,
    GBT10000_STATURE_MM,
    SEGMENT_RADII,
)
from vhuman.skeleton.skeleton import JointType, Segment, Skeleton

__all__ = ["HUMANOID_JOINTS", "Sex", "Side", "standard_humanoid"]


class Sex(enum.StrEnum):
    """Which GB/T 10000 row and de Leva (1996) mass fractions scale the body."""

    MALE = "male"
    FEMALE = "female"

    @classmethod
    def parse(cls, sex: Sex | str) -> Sex:
        """``sex`` as a `Sex`; `InputError` lists the allowed values otherwise."""
        try:
            return cls(sex)
        except ValueError:
            raise InputError(f"sex must be one of {[s.value for s in cls]}, got {sex!r}") from None


class Side(enum.StrEnum):
    """Which side of the body (which arm, which leg)."""

    RIGHT = "right"
    LEFT = "left"

    @classmethod
    def parse(cls, side: Side | str) -> Side:
        """``side`` as a `Side` ("right" or "left").

        Raises
        ------
        InputError
            For any other value; the message lists the allowed ones.
        """
        try:
            return cls(side)
        except ValueError:
            allowed = [s.value for s in cls]
            raise InputError(f"side must be one of {allowed}, got {side!r}") from None


HUMANOID_JOINTS: tuple[str, ...] = (
    "pelvis",
    "spine",
    "chest",
    "neck",
    "head",
    "l_clavicle",
    "l_shoulder",
    "l_elbow",
    "l_wrist",
    "l_hand",
    "r_clavicle",
    "r_shoulder",
    "r_elbow",
    "r_wrist",
    "r_hand",
    "l_hip",
    "l_knee",
    "l_ankle",
    "l_toe",
    "r_hip",
    "r_knee",
    "r_ankle",
    "r_toe",
)
"""Joint names of :func:`standard_humanoid`, in index order."""

_DC = DRILLIS_CONTINI
_ROM = AAOS_ROM_DEG
# Trunk heights between hip (0.530 H) and shoulder (0.818 H) level. Estimates:
# lumbosacral joint 0.06 H above the hip joints, thoracolumbar 0.12 H above that,
# cervicothoracic at shoulder height; the sternoclavicular joint 0.02 H below it.
_SPINE_UP = 0.06
_CHEST_UP = 0.12
_NECK_UP = _DC["shoulder_height"] - _DC["hip_height"] - _SPINE_UP - _CHEST_UP
_HEAD_UP = _DC["chin_height"] - _DC["shoulder_height"]
_SC_DOWN = 0.02
_SC_OUT = 0.012
# Hip joint centres half a hip width apart: 0.0955 H, close to the 0.36 × inter-ASIS
# lateral offset of Bell et al. (J. Biomech. 23, 1990) for typical pelves.
_HIP_OUT = _DC["hip_width"] / 4.0
# Ball of the foot (1st MTP) 73 % of foot length from the heel, ankle 20 % (estimates).
_TOE_FWD = (0.73 - 0.20) * _DC["foot_length"]
# The MTP joint is the centre of the foot capsule's front sphere, one foot radius above
# the floor, so the heel can rise about it without the sole dipping into the floor.
_TOE_UP = SEGMENT_RADII["foot"]


@dataclass(frozen=True)
class _JointDef:
    name: str
    parent: str | None
    offset: tuple[float, float, float]  # fraction of stature, left side / midline
    kind: JointType
    seq: str = "YXZ"
    # Left-side ranges in degrees for the three angles of seq (BALL), or row 0 (HINGE).
    ranges: tuple[tuple[float, float], ...] = ()
    axis: tuple[float, float, float] = (0.0, 0.0, 0.0)
    segment: str | None = None  # key into _SEGMENTS


def _half(r: float) -> float:
    return r / 2.0


_SPINE = _ROM["thoracolumbar_spine"]
_NECK = _ROM["cervical_spine"]
_SH = _ROM["shoulder"]
_WR = _ROM["wrist"]
_FA = _ROM["forearm"]
_HIP = _ROM["hip"]
_ANK = _ROM["ankle"]

# Spine and neck ranges are split evenly over their two joints (an estimate).
_JOINTS: tuple[_JointDef, ...] = (
    _JointDef("pelvis", None, (0.0, 0.0, _DC["hip_height"]), JointType.FREE, segment="pelvis"),
    _JointDef(
        "spine",
        "pelvis",
        (0.0, 0.0, _SPINE_UP),
        JointType.BALL,
        ranges=(
            (-_half(_SPINE["extension"]), _half(_SPINE["flexion"])),
            (-_half(_SPINE["lateral_bending"]), _half(_SPINE["lateral_bending"])),
            (-_half(_SPINE["rotation"]), _half(_SPINE["rotation"])),
        ),
        segment="spine",
    ),
    _JointDef(
        "chest",
        "spine",
        (0.0, 0.0, _CHEST_UP),
        JointType.BALL,
        ranges=(
            (-_half(_SPINE["extension"]), _half(_SPINE["flexion"])),
            (-_half(_SPINE["lateral_bending"]), _half(_SPINE["lateral_bending"])),
            (-_half(_SPINE["rotation"]), _half(_SPINE["rotation"])),
        ),
        segment="chest",
    ),
    _JointDef(
        "neck",
        "chest",
        (0.0, 0.0, _NECK_UP),
        JointType.BALL,
        ranges=(
            (-_half(_NECK["extension"]), _half(_NECK["flexion"])),
            (-_half(_NECK["lateral_bending"]), _half(_NECK["lateral_bending"])),
            (-_half(_NECK["rotation"]), _half(_NECK["rotation"])),
        ),
        segment="neck",
    ),
    _JointDef(
        "head",
        "neck",
        (0.0, 0.0, _HEAD_UP),
        JointType.BALL,
        ranges=(
            (-_half(_NECK["extension"]), _half(_NECK["flexion"])),
            (-_half(_NECK["lateral_bending"]), _half(_NECK["lateral_bending"])),
            (-_half(_NECK["rotation"]), _half(_NECK["rotation"])),
        ),
        segment="head",
    ),
    # Sternoclavicular ranges are estimates (no AAOS entry): elevation 40°,
    # depression 10°, protraction/retraction 15°, axial 15°.
    _JointDef(
        "l_clavicle",
        "chest",
        (0.0, _SC_OUT, _NECK_UP - _SC_DOWN),
        JointType.BALL,
        ranges=((-15.0, 15.0), (-10.0, 40.0), (-15.0, 15.0)),
        segment="clavicle",
    ),
    # Shoulder: axial rotation is the middle angle of "YZX" (its range fits ±90°).
    _JointDef(
        "l_shoulder",
        "l_clavicle",
        (0.0, _DC["shoulder_width"] / 2.0 - _SC_OUT, _SC_DOWN),
        JointType.BALL,
        "YZX",
        ranges=(
            (-_SH["flexion"], _SH["extension"]),
            (-_SH["internal_rotation"], _SH["external_rotation"]),
            (-_SH["adduction"], _SH["abduction"]),
        ),
        segment="upper_arm",
    ),
    # Elbow flexion is positive about −y: the forearm swings forward and up.
    _JointDef(
        "l_elbow",
        "l_shoulder",
        (0.0, 0.0, -_DC["upper_arm"]),
        JointType.HINGE,
        ranges=((-_ROM["elbow"]["extension"], _ROM["elbow"]["flexion"]),),
        axis=(0.0, -1.0, 0.0),
        segment="forearm",
    ),
    # Wrist carries pronation/supination (z, first), flexion (x) and deviation (y).
    # Palm faces −y on the left at rest: flexion is −x, radial deviation −y.
    _JointDef(
        "l_wrist",
        "l_elbow",
        (0.0, 0.0, -_DC["forearm"]),
        JointType.BALL,
        "ZXY",
        ranges=(
            (-_FA["pronation"], _FA["supination"]),
            (-_WR["flexion"], _WR["extension"]),
            (-_WR["radial_deviation"], _WR["ulnar_deviation"]),
        ),
        segment="hand",
    ),
    _JointDef("l_hand", "l_wrist", (0.0, 0.0, -_DC["hand"]), JointType.FIXED),
    _JointDef(
        "l_hip",
        "pelvis",
        (0.0, _HIP_OUT, 0.0),
        JointType.BALL,
        ranges=(
            (-_HIP["flexion"], _HIP["extension"]),
            (-_HIP["adduction"], _HIP["abduction"]),
            (-_HIP["internal_rotation"], _HIP["external_rotation"]),
        ),
        segment="thigh",
    ),
    _JointDef(
        "l_knee",
        "l_hip",
        (0.0, 0.0, -_DC["thigh"]),
        JointType.HINGE,
        ranges=((-_ROM["knee"]["extension"], _ROM["knee"]["flexion"]),),
        axis=(0.0, 1.0, 0.0),
        segment="shank",
    ),
    # Ankle axial (z) range: not in the AAOS table; ±10° so the joint is not locked.
    _JointDef(
        "l_ankle",
        "l_knee",
        (0.0, 0.0, -_DC["shank"]),
        JointType.BALL,
        ranges=(
            (-_ANK["dorsiflexion"], _ANK["plantarflexion"]),
            (-_ANK["inversion"], _ANK["eversion"]),
            (-10.0, 10.0),
        ),
        segment="foot",
    ),
    # Toe extension (toes up) is positive about −y.
    _JointDef(
        "l_toe",
        "l_ankle",
        (_TOE_FWD, 0.0, _TOE_UP - _DC["ankle_height"]),
        JointType.HINGE,
        ranges=((-_ROM["toe"]["flexion"], _ROM["toe"]["extension"]),),
        axis=(0.0, -1.0, 0.0),
        segment="toe",
    ),
)


def _segment_geometry(name: str, h: float) -> tuple[np.ndarray, np.ndarray, float]:
    """Capsule end points (joint-local, metres) and radius of segment ``name``."""
    r = SEGMENT_RADII
    z = np.array([0.0, 0.0, 1.0])
    if name == "pelvis":
        return np.array([0, -_HIP_OUT, 0]) * h, np.array([0, _HIP_OUT, 0]) * h, r["pelvis"] * h
    if name == "spine":
        return 0 * z, _CHEST_UP * h * z, r["abdomen"] * h
    if name == "chest":
        return 0 * z, _NECK_UP * h * z, r["thorax"] * h
    if name == "neck":
        return 0 * z, _HEAD_UP * h * z, r["neck"] * h
    if name == "head":
        top = (1.0 - _DC["chin_height"]) * h
        rad = r["head"] * h
        return rad * z, (top - rad) * z, rad
    if name == "clavicle":
        return (
            np.zeros(3),
            np.array([0, _DC["shoulder_width"] / 2 - _SC_OUT, _SC_DOWN]) * h,
            (r["clavicle"] * h),
        )
    if name == "foot":
        heel = np.array([-0.20 * _DC["foot_length"], 0, -_DC["ankle_height"]]) * h
        rad = r["foot"] * h
        ball = np.array([_TOE_FWD * h, 0.0, heel[2] + rad])
        return np.array([heel[0] + rad, 0.0, heel[2] + rad]), ball, rad
    if name == "toe":
        rad = r["toe"] * h
        length = 0.27 * _DC["foot_length"] * h
        floor = -_TOE_UP * h
        return np.array([0, 0, floor + rad]), np.array([length - rad, 0, floor + rad]), rad
    length = {
        "upper_arm": "upper_arm",
        "forearm": "forearm",
        "hand": "hand",
        "thigh": "thigh",
        "shank": "shank",
    }[name]
    rad = r[length] * h
    return np.zeros(3), -_DC[length] * h * z, rad


_MASS_KEY = {
    "pelvis": "lower_trunk",
    "spine": "middle_trunk",
    "chest": "upper_trunk",
    "head": "head",
    "upper_arm": "upper_arm",
    "forearm": "forearm",
    "hand": "hand",
    "thigh": "thigh",
    "shank": "shank",
    "foot": "foot",
}
"""Segments carrying a de Leva mass; neck, clavicles and toes are massless because
de Leva counts them in the head, upper trunk and foot."""


def _segment(name: str, h: float, mass: float, sex: Sex, right: bool) -> Segment:
    start, end, radius = _segment_geometry(name, h)
    if right:
        start, end = start * [1.0, -1.0, 1.0], end * [1.0, -1.0, 1.0]
    key = _MASS_KEY.get(name)
    if key is None:
        return Segment(start, end, radius, 0.0, (start + end) / 2.0)
    pct_m, pct_f, com_m, com_f = DE_LEVA[key]
    pct, com = (pct_m, com_m) if sex is Sex.MALE else (pct_f, com_f)
    frac = com / 100.0
    # de Leva measures head and trunk parts from their upper end; ours run upward.
    if name in ("head", "spine", "chest"):
        frac = 1.0 - frac
    if name == "pelvis":
        # Lower trunk: from the navel (top) down to the hip-joint line (joint level).
        com_point = np.array([0.0, 0.0, (1.0 - frac) * _SPINE_UP * h])
    else:
        com_point = start + frac * (end - start)
    return Segment(start, end, radius, pct / 100.0 * mass, com_point)


def _lookup(table: dict[str, tuple[int, ...]], sex: Sex, percentile: int) -> float:
    return float(table[sex][GBT10000_PERCENTILES.index(percentile)])


def standard_humanoid(
    stature: float | None = None,
    sex: Sex | str = Sex.MALE,
    percentile: int = 50,
    *,
    mass: float | None = None,
) -> Skeleton:
    """The 23-joint standard humanoid, scaled to a stature.

    Segment lengths are fractions of stature from Drillis & Contini, segment
    masses and centres of mass from de Leva (1996), joint ranges of motion from
    the AAOS tables, stature and mass by percentile from GB/T 10000-1988 (see
    :mod:`vhuman.skeleton.anthropometry` for every value and its source).

    Parameters
    ----------
    stature : float, optional
        Standing height [m]; default: the GB/T 10000 value for ``sex`` and ``percentile``.
    sex : Sex or {"male", "female"}
        Selects the GB/T 10000 row and the de Leva mass fractions.
    percentile : {1, 5, 10, 50, 90, 95, 99}
        GB/T 10000 percentile for the default stature and mass.
    mass : float, optional
        Body mass [kg]; default: the GB/T 10000 value for ``sex`` and ``percentile``.

    Returns
    -------
    Skeleton
        Joints :data:`HUMANOID_JOINTS`, with limits and capsule segments.

    Raises
    ------
    InputError
        For an unknown sex or percentile, or a stature or mass that is not > 0.

    Examples
    --------
    >>> sk = standard_humanoid(sex="male", percentile=95)
    >>> round(float(sk.rest_positions()[:, 2].max() + 0.130 * 1.775), 3)  # head top
    1.775
    """
    sex = Sex.parse(sex)
    if percentile not in GBT10000_PERCENTILES:
        raise InputError(
            f"percentile must be one of {list(GBT10000_PERCENTILES)} (GB/T 10000), got {percentile}"
        )
    h = _lookup(GBT10000_STATURE_MM, sex, percentile) / 1000.0 if stature is None else stature
    m = _lookup(GBT10000_MASS_KG, sex, percentile) if mass is None else mass
    if not (np.isfinite(h) and 0.3 <= h <= 3.0):
        raise InputError(f"stature must be between 0.3 and 3.0 m, got {h}")
    if not (np.isfinite(m) and m > 0.0):
        raise InputError(f"mass must be a finite number of kg > 0, got {m}")
    defs = _with_right_side(_JOINTS)
    index = {d.name: i for i, d in enumerate(defs)}
    limits = np.zeros((len(defs), 3, 2))
    for i, d in enumerate(defs):
        if d.kind is JointType.FREE:
            limits[i, :, 0], limits[i, :, 1] = -np.inf, np.inf
        for k, (lo, hi) in enumerate(d.ranges):
            limits[i, k] = np.radians([lo, hi])
    skeleton = Skeleton(
        names=tuple(d.name for d in defs),
        parents=np.array([-1 if d.parent is None else index[d.parent] for d in defs]),
        offsets=np.array([d.offset for d in defs]) * h,
        joint_types=tuple(d.kind for d in defs),
        axes=np.array([d.axis for d in defs]),
        limits=limits,
        limit_sequences=tuple(d.seq for d in defs),
        segments=tuple(
            None if d.segment is None else _segment(d.segment, h, m, sex, d.name.startswith("r_"))
            for d in defs
        ),
    )
    return skeleton


def _with_right_side(defs: tuple[_JointDef, ...]) -> tuple[_JointDef, ...]:
    """Add the right limbs, mirrored through the x-z plane, in :data:`HUMANOID_JOINTS` order."""
    by_name = {d.name: d for d in defs}
    out = []
    for name in HUMANOID_JOINTS:
        if name in by_name:
            out.append(by_name[name])
            continue
        d = by_name["l_" + name[2:]]
        parent = (
            d.parent if d.parent is None or not d.parent.startswith("l_") else "r_" + d.parent[2:]
        )
        out.append(
            _JointDef(
                name,
                parent,
                _mirror_vector(d.offset),
                d.kind,
                d.seq,
                _mirror_ranges(d),
                d.axis,
                d.segment,
            )
        )
    return tuple(out)


def _mirror_vector(v: tuple[float, float, float]) -> tuple[float, float, float]:
    return (v[0], -v[1], v[2])


def _mirror_ranges(d: _JointDef) -> tuple[tuple[float, float], ...]:
    """Reflection through x-z negates rotations about x and z, keeps those about y."""
    if d.kind is not JointType.BALL:
        # Hinge axes here lie along ±y, which the reflection keeps.
        return d.ranges
    return tuple(
        (lo, hi) if axis == "Y" else (-hi, -lo)
        for axis, (lo, hi) in zip(d.seq, d.ranges, strict=True)
    )
