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


NUMERIC = """
import contextlib, io, sys
from symdelay.cli import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = main(ARGV)
print(status, "sympy" in sys.modules)
print(out.getvalue())
"""


def _numeric_run(argv):
    code = NUMERIC.replace("ARGV", repr(argv))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    head, _, text = proc.stdout.partition("\n")
    return head, text


def test_the_numeric_critical_path_needs_no_sympy_and_agrees_with_the_closed_form():
    """`critical` at finite L solves the Hopf phase in mpmath from the model's exact
    Fractions; SymPy (0.4 s of start-up) loads only for the closed forms of --json. The
    numbers equal the closed form theta_c(D) = 8 (D + 3)^3 / (D (D + 9)^2) (L = 3, mu = lam =
    1), which the JSON run derives with SymPy."""
    import json
    from fractions import Fraction

    argv = ["critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "1,2.5,1e-3"]
    head, text = _numeric_run(argv)
    assert head == "0 False", (head, text)
    values = [line.split()[:2] for line in text.splitlines()[2:] if line.strip()]
    assert len(values) == 3
    for d, theta in values:
        D = Fraction(d)
        exact = 8 * (D + 3) ** 3 / (D * (D + 9) ** 2)
        assert abs(Fraction(theta) - exact) <= exact * Fraction(1, 10**14)
    head, text = _numeric_run([*argv, "--json"])
    assert head == "0 True"  # the closed forms are symbolic
    record = json.loads(text)
    assert record["closed_forms"]["theta_c_of_D"] == "8*(D + 3)**3/(D*(D + 9)**2)"
    assert [p["theta_c"] for p in record["points"]] == [t for _, t in values]


def test_modules_take_sympy_through_the_lazy_stand_in():
    """``import sympy as sp`` at module level would load SymPy on every path that imports
    the module; the package takes it as ``from symdelay.core.lazy import sympy as sp``."""
    import ast
    from pathlib import Path

    offenders = []
    for path in sorted((Path(__file__).parent.parent / "symdelay").rglob("*.py")):
        for node in ast.parse(path.read_text()).body:  # module level only
            if isinstance(node, ast.Import) and any(a.name == "sympy" for a in node.names):
                offenders.append(f"{path.name}:{node.lineno}")
    assert offenders == []


def test_the_delay_differential_limit_needs_neither_sympy_nor_numpy():
    """L = inf: the Hopf phase atan(omega/mu) + omega D = pi solved in mpmath, no SymPy (the
    model keeps math.inf in .phases) and, for a few delays, no NumPy either; the crossing
    satisfies the delay equation r + mu + lam theta exp(-r D) = 0 at r = i omega."""
    import mpmath

    code = NUMERIC.replace(
        "ARGV", repr(["critical", "--L", "inf", "--mu", "1", "--lam", "2", "--D", "0.5,1,3"])
    )
    code = code.replace('"sympy" in sys.modules', '"sympy" in sys.modules, "numpy" in sys.modules')
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    head, _, text = proc.stdout.partition("\n")
    assert head == "0 False False", (head, text)
    rows = [line.split() for line in text.splitlines()[2:] if line.strip()]
    assert len(rows) == 3
    with mpmath.workdps(30):
        for d, theta, omega in rows:
            r = 1j * mpmath.mpf(omega)
            residual = r + 1 + 2 * mpmath.mpf(theta) * mpmath.exp(-r * mpmath.mpf(d))
            assert abs(residual) < 1e-13
