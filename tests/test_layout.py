"""The package's layout: layers import one way, and no package reaches into another's privates.

Read from the source with :mod:`ast`, so every import counts, those under
``TYPE_CHECKING`` and those inside functions included.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "vhuman"

LAYERS: tuple[frozenset[str], ...] = (
    frozenset({"errors", "data"}),
    frozenset({"executor", "geometry"}),
    frozenset({"skeleton"}),
    frozenset({"io", "ik", "ergonomics"}),
    frozenset({"animation", "scene", "control", "prediction"}),
    frozenset({"reaching"}),
    frozenset({"posture"}),
    frozenset({"viz"}),
    frozenset({"task"}),
    frozenset({"cli"}),
    frozenset({"__main__"}),
)
"""Top-level modules and subpackages of ``vhuman``, lowest first: each imports only lower ones."""


def _unit(path: Path) -> str:
    """The top-level module or subpackage of ``vhuman`` a source file belongs to."""
    return path.relative_to(SRC).parts[0].removesuffix(".py")


def _imports(path: Path) -> Iterator[tuple[int, str, str]]:
    """(line, module, imported name or "") of every ``vhuman`` import in ``path``."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            if node.module == "vhuman" or node.module.startswith("vhuman."):
                for alias in node.names:
                    yield node.lineno, node.module, alias.name
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("vhuman."):
                    yield node.lineno, alias.name, ""


def _sources() -> list[Path]:
    return sorted(SRC.rglob("*.py"))


def _layer(unit: str) -> int:
    for i, layer in enumerate(LAYERS):
        if unit in layer:
            return i
    raise AssertionError(f"vhuman.{unit} is in no layer of LAYERS; place it there")


def test_every_module_is_in_a_layer() -> None:
    units = {_unit(p) for p in _sources()} - {"__init__"}
    for unit in units:
        _layer(unit)


def test_no_relative_imports() -> None:
    for path in _sources():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        relative = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
        assert not relative, f"{path.relative_to(SRC)}: relative import at lines {relative}"


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(SRC)))
def test_layers_import_one_way(path: Path) -> None:
    unit = _unit(path)
    if unit == "__init__":
        return
    for line, module, _ in _imports(path):
        parts = module.split(".")
        if len(parts) == 1:  # `from vhuman import __version__`
            continue
        other = parts[1]
        if other == unit:
            continue
        assert _layer(other) < _layer(unit), (
            f"{path.relative_to(SRC)}:{line}: vhuman.{unit} (layer {_layer(unit)}) imports "
            f"{module} (layer {_layer(other)}); a package imports only lower layers"
        )


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(SRC)))
def test_no_private_module_or_name_of_another_package(path: Path) -> None:
    unit = _unit(path)
    for line, module, name in _imports(path):
        parts = module.split(".")
        if len(parts) > 1 and parts[1] == unit:
            continue
        private = [p for p in parts[1:] if p.startswith("_") and p != "__init__"]
        if name.startswith("_") and not (name.startswith("__") and name.endswith("__")):
            private.append(name)
        assert not private, (
            f"{path.relative_to(SRC)}:{line}: imports {private} from {module}, private to "
            "another package; make it public or move it"
        )
