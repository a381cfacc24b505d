"""Run every benchmarks/bench_*.py in turn (or the names given: ``run.py map roots``); each
writes benchmarks/results/<name>.txt, and this runner writes benchmarks/results/summary.txt:
the machine's load average, each benchmark's wall and CPU seconds (its own process tree
included) and the total against the 30-minute budget of ``make bench``."""

from __future__ import annotations

import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent
BUDGET_S = 30 * 60


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main(argv) -> int:
    only = set(argv)
    rows, failed = [], []
    load = " ".join(f"{v:.2f}" for v in os.getloadavg())
    t_all = time.perf_counter()
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem.removeprefix("bench_")
        if only and name not in only:
            continue
        print(f"== {path.name}", flush=True)
        t0, c0 = time.perf_counter(), _cpu()
        # a process per benchmark: one's imports, caches and threads do not time the next
        rc = subprocess.call([sys.executable, str(path)], cwd=HERE.parent)
        wall, cpu = time.perf_counter() - t0, _cpu() - c0
        rows.append((name, wall, cpu, rc))
        if rc:
            failed.append(name)
        print(f"== {path.name} done in {wall:.1f} s (exit {rc})", flush=True)
    total = time.perf_counter() - t_all
    lines = [
        "benchmark run summary",
        f"python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} cores, "
        f"load average at start {load}",
        "",
        f"{'benchmark':<22} {'wall s':>9} {'CPU s':>9}  exit",
        *(f"{n:<22} {w:>9.1f} {c:>9.1f}  {rc}" for n, w, c, rc in rows),
        "",
        f"total {total:.1f} s wall ({total / 60:.1f} min) against the {BUDGET_S // 60}-minute "
        f"budget: {'within' if total <= BUDGET_S else 'OVER'}"
        + ("" if not only else f" (only: {', '.join(sorted(only))})"),
    ]
    if failed:
        lines.append("failed: " + ", ".join(failed))
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "summary.txt").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
