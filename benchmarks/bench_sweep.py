"""Benchmark: a sweep on a 2-worker LocalCluster against --serial, the per-task overhead, and
the largest sweep run here.

1. Speed-up: the same stability map (certified roots, L = 3, 15 digits; 240 tasks of ~20 ms)
   serially and on an embedded LocalCluster of 2 worker processes (1 thread each), batches of
   1 and automatic (about 20 batches per worker). Cluster start-up is timed separately and included in "wall".
2. Per-task overhead: 400 tasks of an analysis that returns at once, serially and on the
   cluster (batch 1 and 20): wall time per task is then the sweep machinery alone (spec,
   seeds, rows, Parquet flushes; for Dask also scheduling and transfer).
3. The largest sweep: a 100 x 100 (theta, D) map of the exact Routh verdict (10,000 tasks)
   on the 2-worker cluster, batch 50, written to Parquet.

The machine has 2 cores shared with other work, so the ideal speed-up is 2.

Run:  .venv/bin/python benchmarks/bench_sweep.py   (writes benchmarks/results/sweep.txt)
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
from pathlib import Path

from distributed import Client, LocalCluster

from symdelay import __version__, sweep
from symdelay.sweep.runner import auto_batch

OUT = Path(__file__).parent / "results" / "sweep.txt"

MAP = {
    "analysis": "roots",
    "parameters": {"L": 3, "mu": 1, "lam": 1, "dps": 15},
    "grid": {
        "theta": {"start": 0.5, "stop": 12, "num": 20},
        "D": {"start": 0.1, "stop": 10, "num": 12, "log": True},
    },
}
LARGE = {
    "analysis": "stability",
    "parameters": {"L": 3, "mu": 1, "lam": 1},
    "grid": {
        "theta": {"start": "1/10", "stop": 12, "num": 100},
        "D": {"start": 0.05, "stop": 20, "num": 100, "log": True},
    },
}


def nothing(x):
    """An analysis that returns at once (the sweep machinery alone)."""
    return {"y": x}


NOOP = {"analysis": "nothing", "grid": {"x": {"start": 0, "stop": 399, "num": 400}}}


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main() -> None:
    sweep.register_analysis("nothing", nothing)
    load0 = os.getloadavg()[0]
    tmp = Path(tempfile.mkdtemp())
    lines = [
        f"symdelay {__version__} sweep benchmark; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}",
        "",
    ]

    # warm-up in this process (imports, SymPy caches), as a worker is after its first task
    sweep.run({**MAP, "grid": {"theta": [1], "D": [1]}}, serial=True)
    serial, t_serial = timed(lambda: sweep.run(MAP, out=tmp / "s.parquet", serial=True))
    n = len(serial)
    (cluster, client), t_start = timed(
        lambda: (
            c := LocalCluster(
                n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
            ),
            Client(c, set_as_default=False),
        )
    )
    try:
        client.run(lambda: sweep.run({**MAP, "grid": {"theta": [1], "D": [1]}}, serial=True))
        d1, t_d1 = timed(lambda: sweep.run(MAP, out=tmp / "d1.parquet", client=client))
        d10, t_d10 = timed(lambda: sweep.run(MAP, out=tmp / "d10.parquet", client=client))
        auto = auto_batch(len(serial), 2)
        cols = ["spectral_abscissa", "unstable_count"]
        same = serial[cols].equals(d1[cols]) and serial[cols].equals(d10[cols])
        task_s = serial["seconds"].mean()
        lines += [
            f"1. stability map, {n} tasks (certified roots, L = 3, dps 15; "
            f"mean task {1000 * task_s:.1f} ms)",
            f"   serial                         {t_serial:7.2f} s",
            f"   LocalCluster 2 workers, batch 1 {t_d1:7.2f} s   speed-up {t_serial / t_d1:4.2f}x",
            f"   LocalCluster 2 workers, batch {auto} (auto) {t_d10:7.2f} s   "
            f"speed-up {t_serial / t_d10:4.2f}x",
            f"   cluster start-up (2 processes)  {t_start:7.2f} s  "
            f"(with it, auto batch: {t_serial / (t_d10 + t_start):4.2f}x)",
            f"   same results serial vs cluster: {same}",
            "",
        ]

        s0, t_s0 = timed(lambda: sweep.run(NOOP, out=tmp / "n0.parquet", serial=True))
        _c1, t_c1 = timed(lambda: sweep.run(NOOP, out=tmp / "n1.parquet", client=client))
        _c20, t_c20 = timed(
            lambda: sweep.run(NOOP, out=tmp / "n20.parquet", client=client, batch=20)
        )
        m = len(s0)
        lines += [
            f"2. per-task overhead, {m} tasks that return at once (wall time / task)",
            f"   serial                          {1e3 * t_s0 / m:7.2f} ms",
            f"   LocalCluster, batch 1           {1e3 * t_c1 / m:7.2f} ms",
            f"   LocalCluster, batch 20          {1e3 * t_c20 / m:7.2f} ms",
            "",
        ]

        big, t_big = timed(lambda: sweep.run(LARGE, out=tmp / "big.parquet", client=client))
        size = (tmp / "big.parquet").stat().st_size
        lines += [
            f"3. largest sweep run here: {len(big)} tasks (exact Routh verdict over a 100 x 100 "
            f"(theta, D) grid), LocalCluster 2 workers, batch {auto_batch(10_000, 2)} (auto)",
            f"   {t_big:.1f} s wall, {len(big) / t_big:.0f} tasks/s, "
            f"{(big['status'] == 'ok').sum()} ok, Parquet file {size / 1024:.0f} KiB",
        ]
    finally:
        client.close()
        cluster.close()
    lines += [
        "",
        f"load average (1 min) at start {load0:.1f}, at end {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores: the machine is shared, so times are upper bounds",
    ]
    text = "\n".join(lines) + "\n"
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
