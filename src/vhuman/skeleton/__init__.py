"""The body model: `Skeleton` (static), `Motion` (state over time), batched kinematics."""

from vhuman.skeleton.humanoid import Sex, Side, standard_humanoid
from vhuman.skeleton.kinematics import forward_kinematics, global_to_local
from vhuman.skeleton.motion import Motion
from vhuman.skeleton.skeleton import JointType, Segment, Skeleton, mirror_indices

__all__ = [
    "JointType",
    "Motion",
    "Segment",
    "Sex",
    "Side",
    "Skeleton",
    "forward_kinematics",
    "global_to_local",
    "mirror_indices",
    "standard_humanoid",
]
