"""Inverse kinematics on a `Skeleton`: CCD, two-stage CCD, FABRIK, DLS and two-bone IK."""

from vhuman.ik.ccd import CCD
from vhuman.ik.chain import Chain, JointSpec, RootDofs
from vhuman.ik.dls import DLS, jacobian
from vhuman.ik.fabrik import FABRIK
from vhuman.ik.result import IKResult
from vhuman.ik.target import Target, random_reachable_targets
from vhuman.ik.two_bone import two_bone_ik
from vhuman.ik.two_stage import TwoStageCCD

__all__ = [
    "CCD",
    "DLS",
    "FABRIK",
    "Chain",
    "IKResult",
    "JointSpec",
    "RootDofs",
    "Target",
    "TwoStageCCD",
    "jacobian",
    "random_reachable_targets",
    "two_bone_ik",
]
