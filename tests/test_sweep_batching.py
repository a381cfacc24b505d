"""Batches sized from task times: the size chosen for given times, the same table bit for bit
serially and on Dask whatever the batches, a bounded number of Dask tasks in flight, and a
resume on Dask computing only the missing tasks."""

from __future__ import annotations

import math

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from distributed import Client, LocalCluster

from symdelay import sweep
from symdelay.sweep import runner
from symdelay.sweep.runner import MAX_BATCH, TARGET_BATCH_SECONDS, batch_size
from symdelay.sweep.store import BOOKKEEPING, META_KEY


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as c,
        Client(c, set_as_default=False) as cl,
    ):
        yield cl


# ------------------------------------------------------------------ the size from timings
@pytest.mark.parametrize("ms", [0.05, 0.5, 3.0, 30.0, 250.0])
def test_batch_runs_about_the_target_at_the_median_task_time(ms):
    times = [ms / 1000] * 10
    b = batch_size(times, remaining=10**7, threads=2)
    # the smallest batch that lasts the target (from below by less than one task)
    assert b * ms / 1000 >= TARGET_BATCH_SECONDS * (1 - 1e-9) or b == MAX_BATCH
    assert (b - 1) * ms / 1000 < TARGET_BATCH_SECONDS * (1 + 1e-9)
    assert 1 <= b <= MAX_BATCH


def test_a_workers_slow_first_task_does_not_shrink_the_batches():
    warm = [0.02] * 6
    assert batch_size([3.0, 2.5, *warm], 10**6, 2) == batch_size(warm, 10**6, 2)
    assert batch_size([None, float("nan"), -1.0, *warm], 10**6, 2) == batch_size(warm, 10**6, 2)


def test_batches_shrink_to_a_share_of_what_remains():
    times = [0.001] * 8  # 200 tasks would last the target
    for remaining, threads, expected in [
        (1000, 2, 200),  # the target
        (300, 2, 75),  # a quarter of what remains (2 threads)
        (40, 2, 10),
        (7, 2, 2),
        (50, 4, 7),  # an eighth
        (1, 8, 1),  # never more than remains
    ]:
        assert batch_size(times, remaining, threads) == expected
        assert expected == max(1, min(200, math.ceil(remaining / (2 * threads)), remaining))
    # before any time is known only the share of what remains bounds the batch
    assert batch_size([], 1000, 2) == 250 and batch_size([], 10**9, 1) == MAX_BATCH


def test_many_threads_make_longer_batches_for_the_scheduler():
    times = [0.001] * 8
    few, many = batch_size(times, 10**8, 2), batch_size(times, 10**8, 4000)
    assert few == 200 and many == 4000  # 4000 threads / 1000 Dask tasks per s = 4 s each
    # Dask tasks per second asked of the scheduler stay at about its rate
    assert 4000 / (many * 0.001) == pytest.approx(runner.SCHEDULER_RATE)
    # and the tail rule does not undo it: too few tasks for so many threads
    assert batch_size(times, 10**6, 4000) == 4000 > math.ceil(10**6 / 8000)


# ------------------------------------------------------------------ on Dask
def spec_of(n):
    return {
        "analysis": "simulate",
        "seed": 5,
        "parameters": {"L": 2, "mu": 1, "lam": 1, "D": 1, "T": 2, "eta": 40},
        "grid": {"theta": {"start": 1, "stop": n, "num": n}},
    }


def table(df):
    return df.drop(columns=list(BOOKKEEPING)).reset_index(drop=True)


def test_sized_batches_give_the_serial_table_bit_for_bit_with_few_tasks_in_flight(tmp_path, client):
    spec = spec_of(150)
    assert runner.in_flight_limit(2) < 150
    serial = sweep.run(spec, serial=True)
    in_scheduler = []

    def to_run(dask_scheduler):  # Dask tasks submitted and not yet finished
        todo = ("released", "waiting", "queued", "no-worker", "processing")
        return sum(ts.state in todo for ts in dask_scheduler.tasks.values())

    def count(_progress):
        in_scheduler.append(client.run_on_scheduler(to_run))

    df = sweep.run(spec, out=tmp_path / "d.parquet", client=client)
    assert df["task"].tolist() == list(range(150)) and (df["status"] == "ok").all()
    assert table(df).equals(table(serial))
    lo, hi = df.attrs["timing"]["batch_sizes"]
    assert lo < hi  # the pilot and the tail are smaller than the sized batches
    assert df.attrs["timing"]["dask_tasks"] < 150
    assert set(df["worker"]) != set(serial["worker"])
    # one task per Dask task: 150 of them, never all in the scheduler at once
    one = sweep.run(spec, client=client, batch=1, progress=count)
    assert one.attrs["timing"]["dask_tasks"] == 150
    assert table(one).equals(table(serial))
    assert max(in_scheduler) <= runner.in_flight_limit(2)


def test_resume_on_dask_computes_only_the_missing_tasks(tmp_path, client):
    spec = spec_of(60)
    full = sweep.run(spec, out=tmp_path / "full.parquet", serial=True)
    # a partial file: the same spec's rows with every third task missing
    t = pq.read_table(tmp_path / "full.parquet")
    keep = [k for k in range(60) if k % 3]
    partial = t.filter(pc.is_in(t["task"], value_set=pa.array(keep)))
    assert META_KEY in (partial.schema.metadata or {})
    pq.write_table(partial, tmp_path / "part.parquet")
    df = sweep.run(spec, out=tmp_path / "part.parquet", client=client, resume=True)
    again = sorted(df.loc[df["run"] == 2, "task"])
    assert again == [k for k in range(60) if k % 3 == 0]
    assert table(df).equals(table(full))
    assert sweep.status(tmp_path / "part.parquet")["done"] == 60
