"""Start-up stays light: building the command line, for every command's help with the
founding model, imports neither SymPy nor NumPy (the speed goal itself lives in
benchmarks/bench_startup.py; this keeps a heavy import from creeping back in)."""

from __future__ import annotations

import subprocess
import sys

CHECK = """
import sys
from symdelay.cli import COMMAND_MODULES, build_parser
for name in COMMAND_MODULES:
    build_parser([name.replace("_", "-"), "--help"])
heavy = sorted(m for m in ("sympy", "numpy", "scipy", "mpmath", "flint", "matplotlib") if m in sys.modules)
print(",".join(heavy))
"""


def test_building_every_command_imports_no_mathematics():
    out = subprocess.run([sys.executable, "-c", CHECK], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"imported at start-up: {out.stdout.strip()}"


def test_the_check_sees_a_heavy_import():
    code = CHECK.replace("import sys\n", "import sys\nimport numpy\n", 1)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "numpy"
