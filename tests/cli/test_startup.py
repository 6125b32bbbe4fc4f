"""Start-up stays light: the command line and the package load no heavy library until used."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("torch", "mujoco", "plotly", "pymoo", "matplotlib", "coal", "trimesh", "sklearn", "dask")


def _imported_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    return {name.split(".")[0] for name in json.loads(out.splitlines()[-1])}


@pytest.mark.parametrize("code", ["import vhuman", "import vhuman.cli", "import vhuman.io"])
def test_heavy_libraries_are_not_imported(code: str) -> None:
    assert not _imported_after(code) & set(HEAVY)


def test_the_command_line_needs_neither_numpy_nor_scipy_to_start() -> None:
    loaded = _imported_after("import vhuman.cli")
    assert "numpy" not in loaded
    assert "scipy" not in loaded


def test_help_runs_without_numpy() -> None:
    code = (
        "import sys\nfrom vhuman.cli import main\nsys.argv = ['vhuman', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass"
    )
    assert "numpy" not in _imported_after(code)
