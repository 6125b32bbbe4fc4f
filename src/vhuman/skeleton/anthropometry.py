"""Published anthropometric tables used to build the standard humanoid.

Every number here is a value from the source named beside it (rounded as in
the source), or is marked as an estimate with the reason.

References
----------
.. [GB] GB/T 10000-1988, *Human dimensions of Chinese adults*, table 1 (stature,
   mass), men aged 18–60 and women aged 18–55.
.. [DC] R. Drillis, R. Contini, M. Bluestein, "Body segment parameters", Artificial
   Limbs 8 (1964) 44–66; segment lengths as fractions of stature H as tabulated
   in D. A. Winter, *Biomechanics and Motor Control of Human Movement*, 4th ed.,
   Wiley 2009, Fig. 4.1.
.. [dL] P. de Leva, "Adjustments to Zatsiorsky-Seluyanov's segment inertia
   parameters", J. Biomechanics 29 (1996) 1223–1230, Table 4 (mass fractions and
   centre-of-mass positions, % of segment length from the proximal end).
.. [AAOS] American Academy of Orthopaedic Surgeons, *Joint Motion: Method of
   Measuring and Recording*, 1965 (reprinted in Greene & Heckman, *The Clinical
   Measurement of Joint Motion*, AAOS 1994): average ranges of motion, degrees.
.. [ANSUR] C. C. Gordon et al., *2012 Anthropometric Survey of U.S. Army Personnel*
   (ANSUR II), NATICK/TR-15/007, 2014: male mean circumferences, used (divided by
   2π and by the survey's mean stature, 1756 mm) for segment radii.
"""

from __future__ import annotations

from typing import Final

__all__ = [
    "AAOS_ROM_DEG",
    "DE_LEVA",
    "DRILLIS_CONTINI",
    "GBT10000_MASS_KG",
    "GBT10000_PERCENTILES",
    "GBT10000_STATURE_MM",
    "SEGMENT_RADII",
]

GBT10000_PERCENTILES: Final = (1, 5, 10, 50, 90, 95, 99)
"""Percentiles tabulated by [GB]."""

GBT10000_STATURE_MM: Final = {
    "male": (1543, 1583, 1604, 1678, 1754, 1775, 1814),
    "female": (1449, 1484, 1503, 1570, 1640, 1659, 1697),
}
"""Stature [mm] at :data:`GBT10000_PERCENTILES` [GB]."""

GBT10000_MASS_KG: Final = {
    "male": (44, 48, 50, 59, 70, 75, 83),
    "female": (39, 42, 44, 52, 63, 66, 74),
}
"""Body mass [kg] at :data:`GBT10000_PERCENTILES` [GB]."""

DRILLIS_CONTINI: Final = {
    "shoulder_height": 0.818,
    "chin_height": 0.870,
    "hip_height": 0.530,  # greater trochanter
    "knee_height": 0.285,
    "ankle_height": 0.039,
    "shoulder_width": 0.259,
    "hip_width": 0.191,
    "upper_arm": 0.186,
    "forearm": 0.146,
    "hand": 0.108,
    "thigh": 0.245,
    "shank": 0.246,
    "foot_length": 0.152,
    "foot_width": 0.055,
}
"""Segment lengths and landmark heights as fractions of stature H [DC]."""

DE_LEVA: Final = {
    # segment: (mass % male, mass % female, CoM % male, CoM % female), CoM from the
    # proximal end: head from the vertex, trunk parts from their upper end.
    "head": (6.94, 6.68, 59.76, 58.94),
    "upper_trunk": (15.96, 15.45, 50.66, 50.50),
    "middle_trunk": (16.33, 14.65, 45.02, 45.12),
    "lower_trunk": (11.17, 12.47, 61.15, 49.20),
    "upper_arm": (2.71, 2.55, 57.72, 57.54),
    "forearm": (1.62, 1.38, 45.74, 45.59),
    "hand": (0.61, 0.56, 79.00, 74.74),
    "thigh": (14.16, 14.78, 40.95, 36.12),
    "shank": (4.33, 4.81, 44.59, 44.16),
    "foot": (1.37, 1.29, 44.15, 40.14),
}
"""Segment mass (% of body mass) and centre of mass (% of length) [dL]."""

AAOS_ROM_DEG: Final = {
    "shoulder": {
        "flexion": 180,
        "extension": 60,
        "abduction": 180,
        "adduction": 50,
        "internal_rotation": 70,
        "external_rotation": 90,
    },
    "elbow": {"flexion": 150, "extension": 0},
    "forearm": {"pronation": 80, "supination": 80},
    "wrist": {"flexion": 80, "extension": 70, "radial_deviation": 20, "ulnar_deviation": 30},
    "hip": {
        "flexion": 120,
        "extension": 30,
        "abduction": 45,
        "adduction": 30,
        "internal_rotation": 45,
        "external_rotation": 45,
    },
    "knee": {"flexion": 135, "extension": 0},
    "ankle": {"dorsiflexion": 20, "plantarflexion": 50, "inversion": 35, "eversion": 15},
    "toe": {"flexion": 45, "extension": 70},  # first metatarsophalangeal joint
    "cervical_spine": {"flexion": 45, "extension": 45, "lateral_bending": 45, "rotation": 60},
    "thoracolumbar_spine": {"flexion": 80, "extension": 25, "lateral_bending": 35, "rotation": 45},
}
"""Average active ranges of motion [deg] from the anatomical position [AAOS].

Shoulder adduction is the cross-body (horizontal) value, the anatomical one
being 0 from the side."""

SEGMENT_RADII: Final = {
    # fraction of stature: mean circumference / (2π · 1756 mm) [ANSUR], rounded.
    "thigh": 0.056,
    "shank": 0.035,
    "upper_arm": 0.030,
    "forearm": 0.027,
    "hand": 0.020,
    "neck": 0.036,
    "head": 0.052,
    "foot": 0.022,
    # Estimates: the trunk is not round; these radii make capsules whose width
    # matches the hip and chest breadths of [DC] and [ANSUR].
    "pelvis": 0.055,
    "abdomen": 0.070,
    "thorax": 0.075,
    "clavicle": 0.018,
    "toe": 0.012,
}
"""Capsule radii as fractions of stature (see the comments for sources)."""
