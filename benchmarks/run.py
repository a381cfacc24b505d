"""Run every benchmarks/bench_*.py in turn; each writes benchmarks/results/<name>.txt."""

from __future__ import annotations

import runpy
import sys
import time
from pathlib import Path

HERE = Path(__file__).parent


def main(argv) -> int:
    only = set(argv)
    for path in sorted(HERE.glob("bench_*.py")):
        name = path.stem.removeprefix("bench_")
        if only and name not in only:
            continue
        print(f"== {path.name}", flush=True)
        t0 = time.perf_counter()
        runpy.run_path(str(path), run_name="__main__")
        print(f"== {path.name} done in {time.perf_counter() - t0:.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
