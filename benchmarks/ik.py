"""IK solvers side by side: CCD, two-stage CCD, FABRIK, DLS (vhuman) and ikpy.

The same seeded random reachable targets for every solver, on a 7-DOF arm and
on whole-body reaches of the standard humanoid; see `vhuman.ik.benchmark` for
the problems and the targets of the issue. This script is `vhuman ik bench`
on one core.

Run: ``.venv/bin/python benchmarks/ik.py [--targets N] [--batch B] [--seed S] [--json]
[--sweep-switch]``
"""

from __future__ import annotations

import os
import sys

# One core: set before numpy loads its BLAS.
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

from vhuman.cli import app

if __name__ == "__main__":
    app(["ik", "bench", *sys.argv[1:]], prog_name="benchmarks/ik.py")
