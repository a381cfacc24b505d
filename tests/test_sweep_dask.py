"""Sweeps on Dask: serial, an embedded LocalCluster and a running scheduler give the same
table bit for bit; a worker killed mid-run loses and duplicates nothing; an unreachable
scheduler is an error within seconds. Two workers, tiny grids."""

from __future__ import annotations

import os
import signal
import socket
import time

import numpy as np
import pandas as pd
import pytest
from distributed import Client, LocalCluster

from symdelay import sweep
from symdelay.sweep.store import BOOKKEEPING


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as c:
        yield c


@pytest.fixture(scope="module")
def client(cluster):
    with Client(cluster, set_as_default=False) as c:
        yield c


def spec_file(tmp_path):
    """A seeded sweep (simulate, 2 replications) with one failing task (roots' theta = 0 is
    not the analysis here; simulate refuses eta = 0)."""
    f = tmp_path / "reps.toml"
    f.write_text(
        'analysis = "simulate"\nseed = 11\nreplications = 2\n'
        "[parameters]\nL = 2\nmu = 1\nlam = 1\nD = 1\nT = 3\n"
        "[grid]\neta = [0, 60, 120]\ntheta = [2, 8]\n"
    )
    return f


def results(df):
    return df.drop(columns=list(BOOKKEEPING)).reset_index(drop=True)


def assert_bitwise_equal(a, b):
    a, b = results(a), results(b)
    pd.testing.assert_frame_equal(a, b, check_exact=True)
    for col in a.columns:
        if pd.api.types.is_float_dtype(a[col].dtype):
            assert a[col].to_numpy().tobytes() == b[col].to_numpy().tobytes(), col


def test_serial_localcluster_and_scheduler_agree_bit_for_bit(tmp_path, client, cluster, run_cli):
    f = spec_file(tmp_path)
    serial = sweep.run(f, out=tmp_path / "serial.parquet", serial=True)
    assert (serial["status"] == "failed").sum() == 4  # eta = 0: recorded, sweep went on
    assert (serial["status"] == "ok").sum() == 8 and serial["seed"].nunique() == 12
    on_client = sweep.run(f, out=tmp_path / "client.parquet", client=client)
    assert_bitwise_equal(serial, on_client)
    # the CLI on a running scheduler, given by address
    out = tmp_path / "sched.parquet"
    status, _, stderr = run_cli(
        "sweep",
        "run",
        str(f),
        "--out",
        str(out),
        "--scheduler",
        cluster.scheduler_address,
        "--no-progress",
    )
    # the four failed tasks: exit 1, one line saying where they are
    assert status == 1 and f"4 tasks failed: each is a row of {out}" in stderr, stderr
    assert "Dask dashboard" not in stderr or "http" in stderr
    assert_bitwise_equal(serial, sweep.read_results(out))
    # the embedded LocalCluster of the CLI (its own 2 worker processes)
    out = tmp_path / "local.parquet"
    status, _, stderr = run_cli(
        "sweep", "run", str(f), "--out", str(out), "--workers", "2", "--batch", "3"
    )
    assert status == 1 and "4 tasks failed" in stderr, stderr
    local = sweep.read_results(out)
    assert_bitwise_equal(serial, local)
    workers = set(local["worker"]) | set(on_client["worker"])
    assert not any(w.endswith(f":{os.getpid()}") for w in workers)  # really elsewhere


def test_killed_worker_loses_and_duplicates_nothing(tmp_path, client):
    n = 16
    spec = {
        "analysis": "_sweep_tasks:slow_square",
        "parameters": {"pause": 0.3},
        "grid": {"x": {"start": 0, "stop": n - 1, "num": n}},
    }
    pids = client.run(os.getpid)
    killed = []

    def kill_one(progress):
        if progress.computed >= 2 and not killed:
            pid = sorted(pids.values())[0]
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)

    df = sweep.run(
        spec,
        out=tmp_path / "k.parquet",
        client=client,
        progress=kill_one,
        flush_seconds=0.0,
        allow_python="_sweep_tasks:slow_square",
    )
    assert killed
    with pytest.raises(ProcessLookupError):
        os.kill(killed[0], 0)
    assert df["task"].tolist() == list(range(n)) and (df["status"] == "ok").all()
    assert df["y"].tolist() == [float(x) ** 2 for x in range(n)]
    assert sweep.status(tmp_path / "k.parquet")["done"] == n
    # the restarted worker is back for the next test
    client.wait_for_workers(2, timeout=60)


def test_unreachable_scheduler_is_an_error_within_seconds(tmp_path, run_cli):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    f = spec_file(tmp_path)
    t0 = time.monotonic()
    status, _, stderr = run_cli(
        "sweep",
        "run",
        str(f),
        "--out",
        str(tmp_path / "u.parquet"),
        "--scheduler",
        f"tcp://127.0.0.1:{port}",
    )
    took = time.monotonic() - t0
    assert status == 2 and took < 15, took
    assert "cannot reach the Dask scheduler" in stderr and stderr.count("\n") == 1
    assert not (tmp_path / "u.parquet").exists()
    status, _, stderr = run_cli(
        "sweep", "run", str(f), "--out", str(tmp_path / "u.parquet"), "--workers", "0"
    )
    assert status == 2 and "--workers must be an integer >= 1" in stderr


def test_seeds_do_not_depend_on_the_schedule(tmp_path, client):
    # the same tasks in batches of different sizes, in a different order of completion
    f = spec_file(tmp_path)
    a = sweep.run(f, client=client, batch=1)
    b = sweep.run(f, client=client, batch=5)
    assert_bitwise_equal(a, b)
    assert np.array_equal(a["seed"].to_numpy(), b["seed"].to_numpy())
