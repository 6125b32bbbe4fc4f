"""Rotations (quaternions w-x-y-z, matrices, rotation vectors, Euler angles), rigid transforms."""

from vhuman.geometry.euler import EULER_SEQUENCES, euler_to_quat, quat_to_euler
from vhuman.geometry.interpolation import quat_slerp, quat_squad, squad_control_points
from vhuman.geometry.quaternion import (
    quat_angle,
    quat_apply,
    quat_canonical,
    quat_conjugate,
    quat_identity,
    quat_inverse,
    quat_multiply,
    quat_normalize,
    quat_to_rotmat,
    rotmat_to_quat,
)
from vhuman.geometry.so3 import (
    quat_to_rotvec,
    rotmat_to_rotvec,
    rotvec_to_quat,
    rotvec_to_rotmat,
    skew,
    so3_exp,
    so3_log,
)
from vhuman.geometry.transform import RigidTransform
from vhuman.geometry.vectors import flexion_angle, vector_angle

__all__ = [
    "EULER_SEQUENCES",
    "RigidTransform",
    "euler_to_quat",
    "flexion_angle",
    "quat_angle",
    "quat_apply",
    "quat_canonical",
    "quat_conjugate",
    "quat_identity",
    "quat_inverse",
    "quat_multiply",
    "quat_normalize",
    "quat_slerp",
    "quat_squad",
    "quat_to_euler",
    "quat_to_rotmat",
    "quat_to_rotvec",
    "rotmat_to_quat",
    "rotmat_to_rotvec",
    "rotvec_to_quat",
    "rotvec_to_rotmat",
    "skew",
    "so3_exp",
    "so3_log",
    "squad_control_points",
    "vector_angle",
]
