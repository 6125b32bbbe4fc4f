"""Scene files: validation with field paths, built-in scenes, save/load round trips."""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest
import yaml

from vhuman.errors import FileFormatError, InputError
from vhuman.scene import (
    Box,
    Mesh,
    builtin_scenes,
    load_scene,
    save_scene,
    scene_from_dict,
)

GOOD = {
    "name": "test",
    "units": "m",
    "floor": 0.0,
    "ceiling": 2.0,
    "target": {"position": [0.5, 0.0, 1.0], "rpy": [0, -90, 0], "approach": [1, 0, 0]},
    "objects": [
        {"name": "crate", "type": "box", "size": [0.4, 0.4, 0.4], "position": [1.0, 0, 0.2]},
        {
            "name": "tank",
            "type": "cylinder",
            "radius": 0.3,
            "length": 1.0,
            "position": [2.0, 0, 0.5],
            "quaternion": [1, 0, 0, 0],
        },
        {"name": "ball", "type": "sphere", "radius": 0.1, "position": [1.0, 1.0, 1.0]},
        {
            "name": "rail",
            "type": "capsule",
            "radius": 0.03,
            "length": 1.0,
            "position": [1.0, -0.5, 1.2],
            "rpy": [90, 0, 0],
        },
    ],
}


def _write(tmp_path, doc, name="scene.yaml"):
    path = tmp_path / name
    path.write_text(json.dumps(doc) if name.endswith(".json") else yaml.safe_dump(doc))
    return path


def _broken(change):
    doc = copy.deepcopy(GOOD)
    change(doc)
    return doc


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d["objects"].append(
                {"name": "b", "type": "box", "size": [1, -2, 3], "position": [5, 5, 1]}
            ),
            "objects[4].size: expected 3 positive numbers, got [1, -2, 3]",
        ),
        (
            lambda d: d["objects"][1].update(radius="wide"),
            "objects[1].radius: expected a positive number, got 'wide'",
        ),
        (
            lambda d: d["objects"][0].update(type="cube"),
            "objects[0].type: expected one of box, sphere, cylinder, capsule, mesh, got 'cube'",
        ),
        (
            lambda d: d["objects"][2].update(colour="red"),
            "objects[2].colour: unknown field; allowed:",
        ),
        (
            lambda d: d["objects"][3].update(quaternion=[1, 0, 0, 0]),
            "objects[3]: give the orientation as rpy or as quaternion, not both",
        ),
        (
            lambda d: d["objects"][0].update(position=[1.0, float("nan"), 0.2]),
            "objects[0].position: expected 3 finite numbers",
        ),
        (
            lambda d: d["objects"][2].update(name="crate"),
            "objects[2].name: 'crate' is already the name of objects[0]",
        ),
        (
            lambda d: d["target"].update(approach=[0, 0, 0]),
            "target.approach: expected a non-zero direction",
        ),
        (lambda d: d["target"].pop("approach"), "target: missing field 'approach'"),
        (lambda d: d.pop("target"), "target: missing"),
        (lambda d: d.update(units="inch"), "units: expected one of m, mm, got 'inch'"),
        (lambda d: d.update(ceiling=-1.0), "ceiling: expected a height above the floor"),
        (
            lambda d: d["objects"].append(
                {"name": "m", "type": "mesh", "path": "nowhere.stl", "position": [5, 5, 1]}
            ),
            "objects[4].path: no such file",
        ),
        (
            lambda d: d["target"].update(position=[1.0, 0.0, 0.1]),
            "target.position (1.000, 0.000, 0.100) m lies inside object 'crate'",
        ),
        (lambda d: d["target"].update(position=[0.5, 0.0, 2.5]), "lies inside the ceiling"),
    ],
)
@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_bad_files_name_the_bad_field(tmp_path, change, message, suffix):
    path = _write(tmp_path, _broken(change), "scene" + suffix)
    with pytest.raises(FileFormatError) as info:
        load_scene(path)
    text = str(info.value)
    head = re.match(rf"{re.escape(str(path))}:(\d+): ", text)
    assert head is not None, text
    assert 1 <= int(head.group(1)) <= len(path.read_text().splitlines())
    assert message in text


HAND_WRITTEN = """name: x
target:
  position: [0.5, 0, 1.0]
  approach: [1, 0, 0]
objects:
  - {name: a, type: box, size: [1, 1, 1], position: [3, 0, 0.5]}
  - name: b
    type: box
    size: [0.3, -1, 0.2]
    position: [2, 0, 0.5]
"""


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            HAND_WRITTEN,
            "s.yaml:9: objects[1].size: expected 3 positive numbers, got [0.3, -1, 0.2]",
        ),
        (
            HAND_WRITTEN.replace("-1", "1").replace("[0.5, 0, 1.0]", "[.nan, 0, 1.0]"),
            "s.yaml:3: target.position: expected 3 finite numbers",
        ),
        (
            HAND_WRITTEN.replace("-1", "1").replace("[2, 0, 0.5]", "[0.5, 0, 1.0]"),
            "s.yaml:3: scene 'x': target.position (0.500, 0.000, 1.000) m lies inside object 'b'",
        ),
        ("", "s.yaml: the file is empty"),
        ("name: [x\n  y: 2\n", "s.yaml:2: not valid YAML"),
    ],
)
def test_errors_give_file_line_and_field(tmp_path, text, expected):
    path = tmp_path / "s.yaml"
    path.write_text(text)
    with pytest.raises(FileFormatError) as info:
        load_scene(path)
    assert str(info.value).startswith(str(tmp_path / expected.split(":")[0]))
    assert str(info.value).endswith(expected[len("s.yaml") :]) or expected[6:] in str(info.value)
    assert "\n" not in str(info.value)


def test_unreadable_inputs(tmp_path):
    with pytest.raises(InputError, match=r"built-in scenes: .*ship-valve"):
        load_scene("no-such-scene")
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: [unclosed\n")
    with pytest.raises(FileFormatError, match="not valid YAML"):
        load_scene(bad)
    with pytest.raises(FileFormatError, match="expected a mapping"):
        scene_from_dict(["not", "a", "mapping"])  # type: ignore[arg-type]
    with pytest.raises(InputError, match="must end in"):
        save_scene(load_scene("over-pipe"), tmp_path / "scene.txt")


def test_millimetres_are_converted(tmp_path):
    doc = copy.deepcopy(GOOD)
    doc["units"] = "mm"
    doc["ceiling"] = 2000
    doc["target"]["position"] = [500, 0, 1000]
    doc["objects"] = [
        {"name": "crate", "type": "box", "size": [400, 400, 400], "position": [1000, 0, 200]}
    ]
    scene = load_scene(_write(tmp_path, doc))
    assert scene.ceiling == pytest.approx(2.0)
    assert scene.objects[0].shape == Box((0.4, 0.4, 0.4))
    np.testing.assert_allclose(scene.objects[0].position, [1.0, 0.0, 0.2])
    np.testing.assert_allclose(scene.target.position, [0.5, 0.0, 1.0])


def test_rpy_is_roll_pitch_yaw_about_fixed_axes(tmp_path):
    doc = copy.deepcopy(GOOD)
    doc["objects"] = [
        {
            "name": "bar",
            "type": "box",
            "size": [1.0, 0.1, 0.1],
            "position": [3, 3, 1],
            "rpy": [0, 0, 90],
        }
    ]
    scene = load_scene(_write(tmp_path, doc))
    # Yawed by 90 degrees, the bar's long side runs along y.
    assert scene.contains([3.0, 3.45, 1.0])
    assert not scene.contains([3.45, 3.0, 1.0])
    # The target's rpy (0, -90, 0) turns the hand's -z (fingers) to +x.
    from vhuman.geometry import quat_apply

    np.testing.assert_allclose(quat_apply(scene.target.rotation, [0, 0, -1]), [1, 0, 0], atol=1e-12)


def test_all_builtin_scenes_load():
    names = builtin_scenes()
    assert {"ship-valve", "low-deck", "over-pipe"} <= set(names)
    for name in names:
        scene = load_scene(name)
        assert scene.name == name
        assert scene.containing(scene.target.position) is None
        assert scene.ceiling is not None
    valve = load_scene("ship-valve")
    assert valve.ceiling < 1.775  # a standing 95th-percentile man does not fit
    assert isinstance(valve.object("valve handwheel").shape, Mesh)
    assert {"tank", "valve stem", "steam pipe", "drain pipe"} <= set(valve.object_names)


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
@pytest.mark.parametrize("name", ["ship-valve", "low-deck", "over-pipe"])
def test_save_load_round_trip(tmp_path, name, suffix):
    scene = load_scene(name)
    (tmp_path / "sub").mkdir()
    path = save_scene(scene, tmp_path / "sub" / f"copy{suffix}")
    again = load_scene(path)
    assert again.to_dict() == scene.to_dict()
    twice = load_scene(save_scene(again, tmp_path / f"twice{suffix}"))
    assert twice.to_dict() == scene.to_dict()
    for a, b in zip(scene.objects, again.objects, strict=True):
        np.testing.assert_array_equal(a.shape.triangulate()[0], b.shape.triangulate()[0])
    assert not list(tmp_path.glob(".*.tmp*"))  # the atomic write left nothing behind


def test_mesh_object_from_stl_relative_to_the_file(tmp_path):
    import trimesh

    (tmp_path / "parts").mkdir()
    trimesh.creation.icosphere(subdivisions=2, radius=100.0).export(tmp_path / "parts/ball.stl")
    doc = copy.deepcopy(GOOD)
    doc["objects"] = [
        {
            "name": "ball",
            "type": "mesh",
            "path": "parts/ball.stl",
            "scale": 0.001,
            "position": [2.0, 0.0, 1.0],
        }
    ]
    scene = load_scene(_write(tmp_path, doc))
    shape = scene.objects[0].shape
    assert isinstance(shape, Mesh)
    assert shape.volume == pytest.approx(4 / 3 * np.pi * 0.1**3, rel=0.05)
    assert scene.contains([2.0, 0.0, 1.05])
    assert not scene.contains([2.0, 0.0, 1.12])


def test_open_mesh_is_rejected(tmp_path):
    import trimesh

    m = trimesh.creation.box(extents=(1, 1, 1))
    trimesh.Trimesh(m.vertices, m.faces[:-2], process=False).export(tmp_path / "open.stl")
    doc = copy.deepcopy(GOOD)
    doc["objects"] = [
        {"name": "lid", "type": "mesh", "path": "open.stl", "position": [3.0, 0.0, 1.0]}
    ]
    with pytest.raises(FileFormatError, match=r"objects\[0\].path: .*not closed"):
        load_scene(_write(tmp_path, doc))
