"""``symdelay report`` end to end: wall time and CPU time of the whole process tree (the
report, its two worker processes, pdflatex and BibTeX) against the goal of 3 minutes on two
cores, the load average during the run, and each section's CPU and wall time in the worker
that built it (the same run: which sections to shrink, and the order the two workers take
them in, ``symdelay.outputs.report.EXPECTED_SECONDS``).

Writes benchmarks/results/report.txt. On a shared machine the wall time is an upper bound
of the unloaded one; the CPU time of the process tree, divided by the two cores, is what
the report takes on two free cores (unless one job dominates: see the per-section times).

    python benchmarks/bench_report.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).parent
ROOT = HERE.parent
GOAL_S = 180.0
CORES = 2

#: The report as `symdelay report --out DIR` writes it, with the sections' times printed
#: (write_report's ``timings``) as JSON on the last line.
DRIVER = """
import json, sys
from symdelay.outputs.report import write_report
times = {}
res = write_report(sys.argv[1], progress=False, timings=times)
print(json.dumps({"pdf": bool(res.pdf), "message": res.message, "times": times}))
"""


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _cpu_children() -> float:
    """CPU seconds (user + system) of every waited-for descendant of this process."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class _Load:
    """The 1-minute load average sampled every 5 s while the report runs."""

    def __init__(self):
        self.samples = [os.getloadavg()[0]]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.wait(5.0):
            self.samples.append(os.getloadavg()[0])

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])


def whole() -> dict:
    """Wall and CPU seconds of the process tree of the report, its exit status, the load
    average during the run and the per-section times."""
    with tempfile.TemporaryDirectory() as out, _Load() as load:
        t0, c0 = time.perf_counter(), _cpu_children()
        proc = subprocess.run(
            [sys.executable, "-c", DRIVER, out],
            cwd=ROOT, env=_env(), capture_output=True, text=True,
        )  # fmt: skip
        wall, cpu = time.perf_counter() - t0, _cpu_children() - c0
    info = {}
    if proc.returncode == 0 and proc.stdout.strip():
        info = json.loads(proc.stdout.strip().splitlines()[-1])
    elif proc.stderr:
        print(proc.stderr[-2000:], file=sys.stderr)
    return {"wall": wall, "cpu": cpu, "rc": proc.returncode, "load": load.samples, **info}


def report_text(r: dict) -> str:
    sys.path.insert(0, str(ROOT))
    from symdelay.outputs.report import EXPECTED_SECONDS, TOGETHER

    load = r["load"]
    times = r.get("times", {})
    section_cpu = sum(c for c, _ in times.values())
    lines = [
        "symdelay report, end to end (sections in two worker processes, pdflatex + BibTeX)",
        f"cores available: {len(os.sched_getaffinity(0))}; 1-minute load average during the "
        f"run: min {min(load):.1f}, mean {sum(load) / len(load):.1f}, max {max(load):.1f} "
        f"({len(load)} samples, 5 s apart)",
        f"wall time: {r['wall']:.1f} s (goal {GOAL_S:.0f} s on two free cores: "
        f"{'met' if r['wall'] <= GOAL_S else 'NOT met on this machine at this load'}); "
        f"exit status {r['rc']}, PDF {'written' if r.get('pdf') else 'NOT written'}",
        f"CPU time of the process tree: {r['cpu']:.1f} s, i.e. {r['cpu'] / CORES:.1f} s on "
        f"two free cores (goal {2 * GOAL_S:.0f} s of CPU: "
        f"{'met' if r['cpu'] <= 2 * GOAL_S else 'NOT met'}); of it, the sections "
        f"{section_cpu:.1f} s, the rest (imports of two workers, the parent, pdflatex, "
        f"BibTeX) {r['cpu'] - section_cpu:.1f} s",
    ]
    if times:
        lines += ["", "each section in its worker (s; CPU, then wall at the load above):"]
        for name, (cpu, wall) in sorted(times.items(), key=lambda kv: -kv[1][0]):
            lines.append(f"  {name:<12} {cpu:7.1f} {wall:8.1f}")
        jobs = [sum(times.get(n, (0, 0))[0] for n in group) for group in TOGETHER]
        alone = [c for n, (c, _) in times.items() if not any(n in g for g in TOGETHER)]
        longest = max(jobs + alone)
        lines += [
            f"  {'sum':<12} {section_cpu:7.1f}",
            f"two workers cannot beat max(sum/2, longest job) = "
            f"{max(section_cpu / 2, longest):.1f} s of sections on two free cores",
            "EXPECTED_SECONDS in symdelay/outputs/report.py (longest job first) should follow "
            "these CPU times; now: "
            + ", ".join(
                f"{k} {v}" for k, v in sorted(EXPECTED_SECONDS.items(), key=lambda kv: -kv[1])
            ),
        ]
    return "\n".join(lines) + "\n"


def main(argv) -> int:
    r = whole()
    text = report_text(r)
    (HERE / "results" / "report.txt").write_text(text)
    print(text, end="")
    return r["rc"]


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
