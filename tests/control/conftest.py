"""Fixtures for the physics tests: skip when MuJoCo or pybullet's DeepMimic data is missing."""

from __future__ import annotations

import pytest

pytest.importorskip("mujoco", reason="the physics engine needs mujoco: pip install vhuman[physics]")


@pytest.fixture(scope="session")
def walk_controller():
    """The initial controller of the DeepMimic walk (needs pybullet's data)."""
    pytest.importorskip("pybullet_data", reason="DeepMimic clips ship with pybullet")
    from vhuman.control.controller import initial_controller

    return initial_controller("walk")
