"""What the DDE-BIFTOOL benchmarks share: finding the peer (GNU Octave and a DDE-BIFTOOL
checkout named by ``DDEBIFTOOL_PATH``) and timing a whole process, as a user runs it."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import time
from pathlib import Path


def run_timed(argv, env=None, repeat: int = 1):
    """Best wall time of ``repeat`` runs of ``argv``, that run's CPU time (the child's) and
    its output; a failed run raises with the end of its stderr."""
    best, cpu, out = float("inf"), None, None
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if proc.returncode != 0:
            raise RuntimeError(f"{argv[0]} failed: {proc.stderr.strip()[-400:]}")
        if wall < best:
            best = wall
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            out = proc.stdout
    return best, cpu, out


def ddebiftool(marker: str):
    """The DDE-BIFTOOL root (holding ``marker``, a file the benchmark needs) or None, and
    why not."""
    missing = []
    if shutil.which("octave") is None:
        missing.append("octave not found (Debian: apt-get install octave)")
    root = os.environ.get("DDEBIFTOOL_PATH")
    if not root:
        missing.append(
            "DDEBIFTOOL_PATH not set (a checkout of https://github.com/DDE-BifTool/DDE-Biftool)"
        )
    elif not (Path(root) / marker).exists():
        missing.append(f"DDEBIFTOOL_PATH={root} holds no {marker}")
    return (None, "; ".join(missing)) if missing else (Path(root), None)


def write_summary(lines: list, out: Path, t_start: float) -> None:
    """End a benchmark's text summary with its wall time and the machine's load, write it to
    ``out`` (its folder made) and print it."""
    lines = [
        *lines,
        f"wall time {time.perf_counter() - t_start:.1f} s; load average at end "
        + " ".join(f"{x:.2f}" for x in os.getloadavg())
        + f" ({os.cpu_count()} cores)",
    ]
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
