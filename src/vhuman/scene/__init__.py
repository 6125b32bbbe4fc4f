"""Maintenance scenes: solid objects and a target, body–scene collision, octree free space."""

from vhuman.scene.body import BodyModel
from vhuman.scene.collision import (
    CollisionReport,
    CollisionWorld,
    Contact,
    GridLookup,
    OccupancyGrid,
)
from vhuman.scene.files import (
    SCENE_SUFFIXES,
    builtin_scenes,
    load_scene,
    save_scene,
    scene_from_dict,
)
from vhuman.scene.octree import CellState, FreeSpace, arm_length, free_space
from vhuman.scene.reachable import ReachableSpace, reachable_space
from vhuman.scene.scene import Scene, SceneObject, Target
from vhuman.scene.shapes import Box, Capsule, Cylinder, Mesh, Shape, Sphere, capsule_mesh

__all__ = [
    "SCENE_SUFFIXES",
    "BodyModel",
    "Box",
    "Capsule",
    "CellState",
    "CollisionReport",
    "CollisionWorld",
    "Contact",
    "Cylinder",
    "FreeSpace",
    "GridLookup",
    "Mesh",
    "OccupancyGrid",
    "ReachableSpace",
    "Scene",
    "SceneObject",
    "Shape",
    "Sphere",
    "Target",
    "arm_length",
    "builtin_scenes",
    "capsule_mesh",
    "free_space",
    "load_scene",
    "reachable_space",
    "save_scene",
    "scene_from_dict",
]
