"""Benchmark: the critical theta from the command line, founding against generic, as a user
runs it (one whole process per command, start-up included).

``symdelay critical --L 40 --mu 1 --lam 1 --D ...`` takes the founding model's Hopf phase
(Newton in mpmath); ``symdelay critical --model phase_type --delay erlang --L 40 ...`` the
generic path, which prepares the model once (the factors of det(rI - J) symbolic in the
phase rate gamma, by mode, factored over Q[r, gamma]) and solves each delay from the roots
of those factors with a proof (Arb). Each command runs with 4 and with 404 delays, both
commands alternately, REPS times; the CPU time of each process (user + system, its
children included) is the median over the repetitions, and the *slope* (CPU(404) -
CPU(4)) / 400 is the cost of one more delay. The JSON sizes are the printed records (the
generic record prints its factor once, not per point). The two commands must give the same
theta_c and omega digits at every delay (checked here, and by tests/test_critical_cli.py).

Run:  .venv/bin/python benchmarks/bench_critical_cli.py  (writes benchmarks/results/critical_cli.txt)
"""

from __future__ import annotations

import json
import os
import platform
import resource
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent
OUT = HERE / "results" / "critical_cli.txt"
REPS = 5
L = 40
FEW, MANY = 4, 404
FOUNDING = ["--L", str(L)]
GENERIC = ["--model", "phase_type", "--delay", "erlang", "--L", str(L)]


def delays(n: int) -> str:
    """``n`` log-spaced delays in [0.05, 50], as the short decimals a user types."""
    return ",".join(f"{0.05 * 1000 ** (i / (n - 1)):.6g}" for i in range(n))


def run(model_args, n) -> tuple[float, str]:
    """CPU seconds of one whole ``symdelay critical ... --json`` process, and its output."""
    argv = [sys.executable, "-m", "symdelay", "critical", *model_args]
    argv += ["--mu", "1", "--lam", "1", "--D", delays(n), "--json"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=HERE.parent).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, out


def main() -> int:
    times = {(name, n): [] for name in ("founding", "generic") for n in (FEW, MANY)}
    sizes, records = {}, {}
    for _ in range(REPS):
        for n in (FEW, MANY):
            for name, args in (("founding", FOUNDING), ("generic", GENERIC)):
                cpu, out = run(args, n)
                times[(name, n)].append(cpu)
                sizes[(name, n)] = len(out.encode())
                records[(name, n)] = json.loads(out)
    for n in (FEW, MANY):
        a, b = records[("founding", n)]["points"], records[("generic", n)]["points"]
        same = [(p["D"], p["theta_c"], p["omega"]) for p in a] == [
            (q["D"], q["theta_c"], q["omega"]) for q in b
        ]
        if not same:
            print(f"theta_c/omega differ between the two commands at {n} delays", file=sys.stderr)
            return 1
    med = {k: statistics.median(v) for k, v in times.items()}
    slope = {
        name: (med[(name, MANY)] - med[(name, FEW)]) / (MANY - FEW)
        for name in ("founding", "generic")
    }
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    lines = [
        f"bench_critical_cli: symdelay critical at L = {L}, mu = lam = 1, as whole processes "
        f"(CPU user + system, median of {REPS} alternating runs)",
        f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"load average at the end {load}",
        "",
        f"{'command':<50} {'CPU 4 D s':>10} {'CPU 404 D s':>12} {'ms per D':>9} {'JSON 404 D':>11}",
    ]
    for name, args in (("founding", FOUNDING), ("generic", GENERIC)):
        cmd = "critical " + " ".join(args)
        lines.append(
            f"{cmd:<50} {med[(name, FEW)]:>10.2f} {med[(name, MANY)]:>12.2f} "
            f"{1e3 * slope[name]:>9.2f} {sizes[(name, MANY)] / 1e3:>8.1f} kB"
        )
    ratio = slope["generic"] / slope["founding"]
    lines += [
        "",
        f"per D point, generic / founding: {ratio:.2f} (goal: within 2)",
        "theta_c and omega: the same digits from both commands at every delay",
        "runs (s): "
        + "; ".join(
            f"{k[0]} {k[1]}: " + ", ".join(f"{t:.2f}" for t in v) for k, v in times.items()
        ),
    ]
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
