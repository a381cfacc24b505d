"""Benchmark: a sweep on a LocalCluster of 1 and 2 workers against --serial, cluster
start-up, the per-task overhead, the results store, and the largest sweep run here.

1. Speed-up: the same stability map (certified roots, L = 150, 15 digits; 240 tasks of
   ~30 ms) serially and on LocalClusters of 1 and 2 single-threaded worker processes, batches
   sized from the first tasks' times. Warm: the cluster started and its workers warmed by an
   earlier run, the serial process warmed by one task; runs interleaved (serial, 2 workers,
   1 worker, serial, ...), medians. Also the machinery's share: how busy the workers were
   (task seconds / worker-seconds of the run) and the CPU seconds the workers spent against
   the serial run's. Cold: a fresh interpreter running the sweep serially against a fresh
   embedded cluster (start-up, then the run with each worker's first task filling its
   caches).
2. Per-task overhead: 400 tasks of an analysis that returns at once, serially and on the
   cluster (batch 1, 20 and automatic): wall time per task is then the sweep machinery
   alone (spec, seeds, rows, Parquet flushes; for Dask also scheduling and transfer); then
   10^4 and 10^5 such tasks on the cluster, with the CPU time of the client process (which
   holds the LocalCluster's scheduler too) per task.
3. The store: rows per second the client writes to Parquet part files (one flush), merging
   parts into one file, and reading parts back with pyarrow.dataset; sizes vary, so growth
   exponents are fitted.
4. The largest sweep: a 100 x 100 (theta, D) map of the exact Routh verdict (10,000 tasks)
   on the 2-worker cluster, automatic batches, written to Parquet.

The machine has 2 cores, possibly shared with other work (the load average is written
down), so the ideal speed-up is 2 and the client's own work competes with the workers.

Run:  .venv/bin/python benchmarks/bench_sweep.py   (writes benchmarks/results/sweep.txt)
"""

from __future__ import annotations

import logging
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import distributed
import numpy as np
import pyarrow as pa
import pyarrow.dataset as pds

from symdelay import __version__, sweep
from symdelay.sweep.runner import _items, _local_client, _meta, execute
from symdelay.sweep.spec import as_spec
from symdelay.sweep.store import Store

OUT = Path(__file__).parent / "results" / "sweep.txt"
REPEATS = 3
REPEATS_MAP = 5  # the speed-up: more runs, so a burst of other work moves the median less

MAP = {
    "analysis": "roots",
    "parameters": {"L": 150, "mu": 1, "lam": 1, "dps": 15},
    "grid": {
        "theta": {"start": 0.5, "stop": 12, "num": 20},
        "D": {"start": 0.1, "stop": 10, "num": 12, "log": True},
    },
}
ONE = {**MAP, "grid": {"theta": [1], "D": [1]}}
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

COLD_SERIAL = """
import sys, time
t0 = time.perf_counter()
from symdelay import sweep
spec = {spec!r}
sweep.run(spec, serial=True)
print(time.perf_counter() - t0)
"""


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def slope(xs, ys) -> float:
    """The fitted exponent of y ~ x^p (least squares in log-log)."""
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def worker_cpu(client) -> float:
    return sum(client.run(time.process_time).values())


def speedup_section(tmp: Path, lines: list) -> None:
    sweep.run(ONE, serial=True)  # this process warm, as a worker is after its first task
    c2, k2 = _local_client(2, dashboard=False)
    c1, k1 = _local_client(1, dashboard=False)
    try:
        for c in (c1, c2):  # warm every worker (imports, caches) with an untimed run
            sweep.run(MAP, client=c)
        walls = {"serial": [], "2": [], "1": []}
        busy = {"2": [], "1": []}
        cpu = {"serial": [], "2": [], "1": []}
        ref = None
        same = True
        cols = ["spectral_abscissa", "unstable_count", "max_radius"]
        load = os.getloadavg()[0]
        for i in range(REPEATS_MAP):
            c0 = time.process_time()
            s = sweep.run(MAP, out=tmp / f"s{i}.parquet", serial=True)
            cpu["serial"].append(time.process_time() - c0)
            walls["serial"].append(s.attrs["timing"]["run_seconds"])
            ref = s if ref is None else ref
            for name, c in (("2", c2), ("1", c1)):
                w0 = worker_cpu(c)
                d = sweep.run(MAP, out=tmp / f"d{name}-{i}.parquet", client=c)
                cpu[name].append(worker_cpu(c) - w0)
                t = d.attrs["timing"]["run_seconds"]
                walls[name].append(t)
                busy[name].append(d["seconds"].sum() / (int(name) * t))
                same = same and ref[cols].equals(d[cols])
        med = {k: statistics.median(v) for k, v in walls.items()}
        load = (load, os.getloadavg()[0])
        n = len(ref)
        task_s = ref["seconds"].median()
        timing = d.attrs["timing"]
    finally:
        for c, k in ((c1, k1), (c2, k2)):
            c.close()
            k.close()
    # cold: a fresh interpreter serially, a fresh embedded cluster
    cold_serial = statistics.median(
        float(
            subprocess.run(
                [sys.executable, "-c", COLD_SERIAL.format(spec=MAP)],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "PYTHONPATH": str(Path(__file__).parent.parent)},
            ).stdout.split()[-1]
        )
        for _ in range(2)
    )
    cold = sweep.run(MAP, out=tmp / "cold.parquet", workers=2)
    start, run = cold.attrs["timing"]["start_seconds"], cold.attrs["timing"]["run_seconds"]
    (c, k), start_dash = timed(lambda: _local_client(2, dashboard=True))
    c.close()
    k.close()
    sp2, sp1 = med["serial"] / med["2"], med["serial"] / med["1"]
    lines += [
        f"1. stability map, {n} tasks (certified roots, L = 150, dps 15; median task "
        f"{1000 * task_s:.1f} ms); medians of {REPEATS_MAP} interleaved runs (load average "
        f"{load[0]:.2f} before them, {load[1]:.2f} after, their own processes included)",
        "   warm (cluster started, workers warmed by an earlier run; serial process warmed):",
        f"   serial                          {med['serial']:7.2f} s   "
        f"CPU {statistics.median(cpu['serial']):6.2f} s",
        f"   LocalCluster 1 worker           {med['1']:7.2f} s   speed-up {sp1:4.2f}x   "
        f"workers busy {100 * statistics.median(busy['1']):5.1f} %   "
        f"worker CPU {statistics.median(cpu['1']):6.2f} s",
        f"   LocalCluster 2 workers          {med['2']:7.2f} s   speed-up {sp2:4.2f}x   "
        f"workers busy {100 * statistics.median(busy['2']):5.1f} %   "
        f"worker CPU {statistics.median(cpu['2']):6.2f} s",
        f"   scaling 1 -> 2 workers          {med['1'] / med['2']:4.2f}x; last 2-worker run: "
        f"{timing['dask_tasks']} Dask tasks, batches of {timing['batch_sizes'][0]} to "
        f"{timing['batch_sizes'][1]} tasks",
        f"   all {n} tasks, every run: same results serial vs cluster: {same}",
        "   cold (fresh interpreter / fresh embedded cluster, first tasks fill the caches):",
        f"   serial, fresh interpreter (imports included) {cold_serial:7.2f} s",
        f"   LocalCluster 2 workers: start-up {start:5.2f} s + run {run:5.2f} s = "
        f"{start + run:5.2f} s   speed-up with start-up {cold_serial / (start + run):4.2f}x, "
        f"without {cold_serial / run:4.2f}x",
        f"   start-up with the dashboard served: {start_dash:5.2f} s",
        "",
    ]


def overhead_section(tmp: Path, lines: list, client) -> dict:
    sweep.register_analysis("nothing", nothing)
    s0 = sweep.run(NOOP, out=tmp / "n0.parquet", serial=True)
    m = len(s0)
    out = {"serial": s0.attrs["timing"]["run_seconds"] / m}
    for name, b in (("batch 1", 1), ("batch 20", 20), ("auto", None)):
        ts = []
        for i in range(REPEATS):
            d = sweep.run(NOOP, out=tmp / f"n{b}-{i}.parquet", client=client, batch=b)
            ts.append(d.attrs["timing"]["run_seconds"])
        out[name] = statistics.median(ts) / m
        if b is None:
            auto = d.attrs["timing"]
    lines += [
        f"2. per-task overhead, {m} tasks that return at once (wall time / task; Dask: "
        f"median of {REPEATS})",
        f"   serial                          {1e3 * out['serial']:7.2f} ms",
        f"   LocalCluster, batch 1           {1e3 * out['batch 1']:7.2f} ms   "
        f"({1 / out['batch 1']:.0f} Dask tasks/s through the scheduler)",
        f"   LocalCluster, batch 20          {1e3 * out['batch 20']:7.2f} ms",
        f"   LocalCluster, auto              {1e3 * out['auto']:7.2f} ms   "
        f"({auto['dask_tasks']} Dask tasks, batches {auto['batch_sizes'][0]}.."
        f"{auto['batch_sizes'][1]})",
    ]
    scale = []
    for m in (10_000, 100_000):
        big = {"analysis": "nothing", "grid": {"x": {"start": 0, "stop": m - 1, "num": m}}}
        c0 = time.process_time()
        d = sweep.run(big, out=tmp / f"noop{m}.parquet", client=client)
        cpu = time.process_time() - c0
        assert len(d) == m and (d["status"] == "ok").all()
        scale.append((m, d.attrs["timing"]["run_seconds"], cpu, d.attrs["timing"]))
    lines += [
        *(
            f"   {m:6d} such tasks, auto: {1e3 * t / m:5.3f} ms/task wall, client and scheduler "
            f"CPU {1e3 * cpu / m:5.3f} ms/task ({tm['dask_tasks']} Dask tasks, batches "
            f"{tm['batch_sizes'][0]}..{tm['batch_sizes'][1]}; Parquet out)"
            for m, t, cpu, tm in scale
        ),
        f"   growth exponent of the run in tasks: {slope([x[0] for x in scale], [x[1] for x in scale]):.2f}",
        "",
    ]
    return out


def store_section(tmp: Path, lines: list) -> None:
    spec = as_spec(MAP)
    meta = _meta(spec)
    row = execute(spec.info.target, _items(spec, [0]))[0]
    del row["task"]

    def rows(n, base=0):
        return [{"task": base + i, **row, "run": 1, "spec_hash": spec.hash} for i in range(n)]

    sizes = [100, 1000, 10_000]
    per_flush = []
    for n in sizes:
        rs = rows(n)
        ts = []
        for i in range(REPEATS):
            st = Store(tmp / f"w{n}-{i}.parquet")
            t0 = time.perf_counter()
            st.append(rs, meta)
            ts.append(time.perf_counter() - t0)
        per_flush.append(statistics.median(ts))
    merged = []
    parts_n = [10_000, 100_000]
    for n in parts_n:
        st = Store(tmp / f"m{n}.parquet")
        for b in range(0, n, 1000):  # flushes of 1000 rows
            st.append(rows(1000, b), meta)
        t0 = time.perf_counter()
        table = pds.dataset(st.parts, format="parquet").to_table()
        t_read = time.perf_counter() - t0
        assert table.num_rows == n
        t0 = time.perf_counter()
        st.consolidate(meta)
        merged.append((n, time.perf_counter() - t0, t_read, st.path.stat().st_size))
    lines += [
        f"3. results store: rows of the map above ({len(row) + 1} columns) written by the client",
        *(
            f"   one flush of {n:6d} rows        {1e3 * t:7.2f} ms   {n / t:9.0f} rows/s"
            for n, t in zip(sizes, per_flush)
        ),
        f"   growth exponent of a flush in rows: {slope(sizes, per_flush):.2f}",
        *(
            f"   {n:6d} rows in {n // 1000} parts: read back (pyarrow.dataset) {1e3 * r:7.1f} ms, "
            f"merged into one file {t:6.2f} s, {size / 2**20:.1f} MiB "
            f"({size / n:.0f} bytes/row)"
            for n, t, r, size in merged
        ),
        f"   growth exponent of the merge in rows: "
        f"{slope([m[0] for m in merged], [m[1] for m in merged]):.2f}",
        "",
    ]


def main() -> None:
    logging.getLogger("distributed").setLevel(logging.ERROR)
    load0 = os.getloadavg()
    tmp = Path(tempfile.mkdtemp())
    lines = [
        f"symdelay {__version__} sweep benchmark; {platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, "
        f"dask distributed {distributed.__version__}, pyarrow {pa.__version__}",
        "",
    ]
    speedup_section(tmp, lines)
    client, cluster = _local_client(2, dashboard=False)
    try:
        overhead_section(tmp, lines, client)
        store_section(tmp, lines)
        big = sweep.run(LARGE, out=tmp / "big.parquet", client=client)
        t_big, tm = big.attrs["timing"]["run_seconds"], big.attrs["timing"]
        size = (tmp / "big.parquet").stat().st_size
        lines += [
            f"4. largest sweep run here: {len(big)} tasks (exact Routh verdict over a 100 x 100 "
            f"(theta, D) grid), LocalCluster 2 workers, automatic batches "
            f"({tm['dask_tasks']} Dask tasks, {tm['batch_sizes'][0]}..{tm['batch_sizes'][1]} "
            "tasks each)",
            f"   {t_big:.1f} s wall, {len(big) / t_big:.0f} tasks/s, "
            f"{(big['status'] == 'ok').sum()} ok, median task "
            f"{1e3 * big['seconds'].median():.2f} ms, Parquet file {size / 1024:.0f} KiB",
        ]
    finally:
        client.close()
        cluster.close()
    load1 = os.getloadavg()
    lines += [
        "",
        f"load average (1, 5 min) before the benchmark {load0[0]:.2f}, {load0[1]:.2f}; at its "
        f"end {load1[0]:.2f}, {load1[1]:.2f} (its own 2 workers included) on "
        f"{os.cpu_count()} cores"
        + ("" if load0[0] < 0.5 else ": the machine was shared, so times are upper bounds"),
    ]
    text = "\n".join(lines) + "\n"
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
