"""``symdelay report`` end to end: wall time of the whole report (sections, figures, pdflatex
and BibTeX) against the goal of 3 minutes on two cores, and each section's own time on one
core (which sections to shrink, and the order the two workers take them in:
``symdelay.outputs.report.EXPECTED_SECONDS``).

Writes benchmarks/results/report.txt. The machine's load average is recorded beside the
times: on a shared machine the wall time is an upper bound of the unloaded one.

    python benchmarks/bench_report.py            # the whole report, then each section
    python benchmarks/bench_report.py --whole    # only the whole report
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent
GOAL_S = 180.0

SECTION_TIMER = """
import sys, time
from pathlib import Path
from symdelay.core.budget import forced
from symdelay.outputs.report import ReportContext, section_modules
ctx = ReportContext(Path(sys.argv[1]))
for mod in section_modules():
    t0 = time.perf_counter()
    with forced():
        mod.build(ctx)
    print(mod.__name__.rsplit(".", 1)[-1], f"{time.perf_counter() - t0:.1f}", flush=True)
"""


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _cpu_children() -> float:
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def whole() -> tuple[float, float, int]:
    """Wall and CPU seconds (the process tree) of ``symdelay report``, and its exit status."""
    with tempfile.TemporaryDirectory() as out:
        t0, c0 = time.perf_counter(), _cpu_children()
        rc = subprocess.call(
            [sys.executable, "-m", "symdelay", "report", "--out", out],
            cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL,
        )  # fmt: skip
        return time.perf_counter() - t0, _cpu_children() - c0, rc


def sections() -> list[tuple[str, float]]:
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run(
            [sys.executable, "-c", SECTION_TIMER, out],
            cwd=ROOT, env=_env(), capture_output=True, text=True, check=True,
        )  # fmt: skip
    return [(n, float(t)) for n, t in (ln.split() for ln in proc.stdout.splitlines())]


def main(argv) -> int:
    load0 = os.getloadavg()
    wall, cpu, rc = whole()
    load1 = os.getloadavg()
    lines = [
        "symdelay report, end to end (sections in two worker processes, pdflatex + BibTeX)",
        f"cores available: {len(os.sched_getaffinity(0))}; load average before "
        f"{load0[0]:.2f}, after {load1[0]:.2f} (1 min)",
        f"wall time: {wall:.1f} s (goal {GOAL_S:.0f} s: "
        f"{'met' if wall <= GOAL_S else 'NOT met'}); exit status {rc}",
        f"CPU time of the process tree: {cpu:.1f} s, i.e. {cpu / 2:.1f} s on two free cores "
        "(the wall time on an unloaded machine is about this, unless one section dominates)",
    ]
    if "--whole" not in argv:
        rows = sections()
        lines += ["", "each section alone, one core (s):"]
        lines += [f"  {n:<12} {t:7.1f}" for n, t in sorted(rows, key=lambda r: -r[1])]
        total = sum(t for _, t in rows)
        lines += [
            f"  {'sum':<12} {total:7.1f}",
            f"two workers cannot beat max(sum/2, longest) = "
            f"{max(total / 2, max(t for _, t in rows)):.1f} s plus pdflatex",
        ]
    text = "\n".join(lines) + "\n"
    (HERE / "results" / "report.txt").write_text(text)
    print(text, end="")
    return rc


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
