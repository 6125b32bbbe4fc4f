"""Motion files: BVH, CMU exp-map text, DeepMimic clips and vhuman npz archives."""

from vhuman.io.bvh import (
    BVH_ROTATION_ORDERS,
    BVH_UNITS,
    format_bvh,
    guess_bvh_unit,
    parse_bvh,
    read_bvh,
    unit_for_size,
    write_bvh,
)
from vhuman.io.cmu import (
    CMU_COLUMNS,
    CMU_FPS,
    CMU_ROOT_UNIT_M,
    cmu_skeleton,
    cmu_walking_example,
    read_cmu,
    write_cmu,
)
from vhuman.io.deepmimic import (
    DEEPMIMIC_FRAME_SIZE,
    deepmimic_clip_names,
    deepmimic_clip_path,
    deepmimic_humanoid,
    read_deepmimic,
    write_deepmimic,
)
from vhuman.io.files import (
    MOTION_FORMATS,
    atomic_path,
    atomic_write,
    check_writable,
    detect_format,
    load_motion,
    save_motion,
)
from vhuman.io.npz import NPZ_FORMAT, load_npz, save_npz

__all__ = [
    "BVH_ROTATION_ORDERS",
    "BVH_UNITS",
    "CMU_COLUMNS",
    "CMU_FPS",
    "CMU_ROOT_UNIT_M",
    "DEEPMIMIC_FRAME_SIZE",
    "MOTION_FORMATS",
    "NPZ_FORMAT",
    "atomic_path",
    "atomic_write",
    "check_writable",
    "cmu_skeleton",
    "cmu_walking_example",
    "deepmimic_clip_names",
    "deepmimic_clip_path",
    "deepmimic_humanoid",
    "detect_format",
    "format_bvh",
    "guess_bvh_unit",
    "load_motion",
    "load_npz",
    "parse_bvh",
    "read_bvh",
    "read_cmu",
    "read_deepmimic",
    "save_motion",
    "save_npz",
    "unit_for_size",
    "write_bvh",
    "write_cmu",
    "write_deepmimic",
]
