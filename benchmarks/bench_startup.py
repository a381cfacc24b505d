"""Start-up of the command line: CPU seconds of whole processes, side by side with
``python -c "import sympy"`` in the same run (medians of interleaved runs).

Goals (issue 18): ``symdelay --help`` and every ``symdelay COMMAND --help`` <= 0.15 s of CPU;
a closed-form ``critical`` <= 0.8 s; (issue 22) ``critical --L inf`` and ``roots --L inf``
< 0.3 s. Results: ``benchmarks/results/startup.txt``.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).parent / "results" / "startup.txt"
ROUNDS = 5


def cpu_seconds(argv) -> float:
    """User + system CPU of one child process running ``argv``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def commands() -> list[str]:
    from symdelay.cli import COMMAND_MODULES

    return [m.replace("_", "-") for m in COMMAND_MODULES if m != "inflight"] + [
        "unstable-theta",
        "kappa-star",
        "optimize-weights",
    ]


def main() -> int:
    py = sys.executable
    cases = {"python -c 'import sympy' (peer)": [py, "-c", "import sympy"]}
    cases["symdelay --help"] = [py, "-m", "symdelay", "--help"]
    for c in commands():
        cases[f"symdelay {c} --help"] = [py, "-m", "symdelay", c, "--help"]
    cases["symdelay critical --L 3 --mu 1 --lam 1 --D 1"] = [
        py, "-m", "symdelay", "critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "1",
    ]  # fmt: skip
    cases["symdelay critical --L inf --mu 1 --lam 2 --D 1"] = [
        py, "-m", "symdelay", "critical", "--L", "inf", "--mu", "1", "--lam", "2", "--D", "1",
    ]  # fmt: skip
    cases["symdelay roots --L inf --mu 1 --lam 2 --theta 1 --D 1"] = [
        py, "-m", "symdelay", "roots", "--L", "inf", "--mu", "1", "--lam", "2", "--theta", "1",
        "--D", "1",
    ]  # fmt: skip
    times = {k: [] for k in cases}
    for _ in range(ROUNDS):  # interleaved: every case once per round
        for k, argv in cases.items():
            times[k].append(cpu_seconds(argv))
    med = {k: statistics.median(v) for k, v in times.items()}
    peer = med["python -c 'import sympy' (peer)"]
    helps = [v for k, v in med.items() if k.endswith("--help")]
    lines = [
        f"start-up, CPU seconds (user + system), median of {ROUNDS} interleaved runs",
        f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}",
        f"python {sys.version.split()[0]}",
        "",
        f"{'command':<56} {'CPU s':>7} {'/ import sympy':>15}",
    ]
    for k, v in med.items():
        lines.append(f"{k:<56} {v:7.3f} {v / peer:15.2f}")
    lines += [
        "",
        f"slowest --help: {max(helps):.3f} s (goal <= 0.15 s: {'met' if max(helps) <= 0.15 else 'NOT met'})",
        "closed-form critical: "
        f"{med['symdelay critical --L 3 --mu 1 --lam 1 --D 1']:.3f} s (goal <= 0.8 s: "
        f"{'met' if med['symdelay critical --L 3 --mu 1 --lam 1 --D 1'] <= 0.8 else 'NOT met'})",
        "delay-differential critical (issue 22): "
        f"{med['symdelay critical --L inf --mu 1 --lam 2 --D 1']:.3f} s (goal < 0.3 s: "
        f"{'met' if med['symdelay critical --L inf --mu 1 --lam 2 --D 1'] < 0.3 else 'NOT met'})",
        "delay-differential roots (issue 22): "
        f"{med['symdelay roots --L inf --mu 1 --lam 2 --theta 1 --D 1']:.3f} s (goal < 0.3 s: "
        f"{'met' if med['symdelay roots --L inf --mu 1 --lam 2 --theta 1 --D 1'] < 0.3 else 'NOT met'})",
    ]
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
