"""Running a sweep: serially, on an embedded ``LocalCluster``, or on a running scheduler.

Every task is a pure function of the spec and its index (its seed comes from
``SeedSequence`` spawning), so the three ways give the same table bit for bit, whatever
the schedule. A task that raises is a row with ``status = "failed"`` and its error; the
sweep goes on. When a worker dies, Dask runs its tasks again elsewhere; rows are kept by
task index, so nothing is lost or counted twice. Rows are flushed to the results file about
once a second (see :mod:`symdelay.sweep.store`), so ``resume=True`` after a crash or Ctrl-C
computes only the tasks that have no row.
"""

from __future__ import annotations

import contextlib
import logging
import math
import os
import re
import socket
import statistics
import time
import uuid

from symdelay import __version__
from symdelay.core.errors import SymdelayInputError
from symdelay.sweep.progress import Progress
from symdelay.sweep.spec import Spec, as_spec
from symdelay.sweep.store import Store

__all__ = [
    "run",
    "execute",
    "connect",
    "auto_batch",
    "batch_size",
    "in_flight_limit",
    "SCHEDULER_TIMEOUT",
]

#: Seconds to wait for a scheduler given by address before saying it cannot be reached.
SCHEDULER_TIMEOUT = 3.0


def _error_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def execute(target, tasks: list[tuple]) -> list[dict]:
    """Run ``tasks`` — ``(task, replication, kwargs, seed)`` tuples — through the analysis
    ``target``; one row each. Exceptions become failed rows (they never escape)."""
    from symdelay.sweep.analyses import resolve
    from symdelay.sweep.store import cell

    worker = f"{socket.gethostname()}:{os.getpid()}"
    rows = []
    fn = None
    for task, replication, kwargs, seed in tasks:
        row = {"task": task, "replication": replication, **kwargs, "seed": seed}
        t0 = time.perf_counter()
        try:
            fn = fn or resolve(target)
            out = fn(**kwargs) if seed is None else fn(**kwargs, seed=seed)
            if not isinstance(out, dict):
                raise TypeError(f"the analysis returned {type(out).__name__}, not a dict")
            bad = [k for k in out if k in row or k in _RESERVED]
            if bad:
                raise ValueError(f"the analysis returned reserved column name(s) {bad}")
            row.update(status="ok", error=None)
            row.update({k: cell(v) for k, v in out.items()})
        except Exception as exc:  # a failing task is a result, recorded with its error
            row.update(status="failed", error=_error_line(exc))
        row["seconds"] = time.perf_counter() - t0
        row["worker"] = worker
        row["symdelay_version"] = __version__
        rows.append(row)
    return rows


_RESERVED = {"status", "error", "seconds", "worker", "run", "symdelay_version", "spec_hash"}


def _column_types(spec: Spec) -> dict:
    """A type per parameter column, from every value it takes: int, float or text."""
    from symdelay.sweep.grid import value_as_float

    values = {k: [v] for k, v in spec.parameters.items()}
    for a in spec.axes:
        for i, n in enumerate(a.names):
            values[n] = [v[i] for v in a.values]
    out = {}
    for n, vs in values.items():
        if all(isinstance(v, int) and not isinstance(v, bool) for v in vs):
            out[n] = int
        elif all(value_as_float(v) is not None for v in vs):
            out[n] = value_as_float
        else:
            out[n] = str
    return out


def _meta(spec: Spec) -> dict:
    return {
        "spec": spec.to_json(),
        "spec_hash": spec.hash,
        "total": len(spec),
        "axes": [{"names": list(a.names), "scale": a.scale} for a in spec.axes],
        "outputs": [],
        "columns": [
            "task",
            "replication",
            *spec.parameters,
            *spec.grid_names,
            "seed",
            "status",
            "error",
        ],
    }


_SCHEMES = ("tcp", "tls")
_ADDRESS = re.compile(
    r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://)?"
    r"(?P<host>\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?)"
    r":(?P<port>[0-9]{1,5})"
)


def parse_address(address) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of a scheduler address ``tcp://HOST:PORT`` (or
    ``tls://``, or ``HOST:PORT`` for tcp); one line saying how to write it otherwise.

    >>> parse_address("tcp://127.0.0.1:8786"), parse_address("sched.example:8786")
    (('tcp', '127.0.0.1', 8786), ('tcp', 'sched.example', 8786))
    """
    text = str(address).strip() if isinstance(address, str) else ""
    m = _ADDRESS.fullmatch(text)
    how = "write it as tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786"
    if m is None:
        raise SymdelayInputError(f"--scheduler {address!r} is not a scheduler address: {how}")
    scheme = (m["scheme"] or "tcp").lower()
    if scheme not in _SCHEMES:
        raise SymdelayInputError(
            f"--scheduler {address!r}: scheme '{scheme}' is not one of {', '.join(_SCHEMES)}; "
            + how
        )
    port = int(m["port"])
    if not 1 <= port <= 65535:
        raise SymdelayInputError(f"--scheduler {address!r}: port {port} is not in 1..65535")
    return scheme, m["host"].strip("[]"), port


def _no_scheduler(scheme: str, host: str, port: int, timeout: float) -> str | None:
    """Why no Dask scheduler answers at ``host:port`` within ``timeout`` seconds, or None.

    A scheduler sends its side of Dask's handshake as soon as a connection opens: an
    8-byte length, then a small message naming its compression and Python. Anything else
    (a port that refuses, a proxy that accepts every connection and waits, an HTTP server, a
    length of exabytes) is not a scheduler, said before a ``Client`` is made (a Client
    reading an HTTP reply as a frame length asks for exabytes; one that failed hangs again
    when it is collected). Over TLS only the connection is checked here."""
    import struct

    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except TimeoutError:
        return "no connection"
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    if scheme != "tcp":
        sock.close()
        return None

    def receive(n: int) -> bytes:
        data = b""
        while len(data) < n:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            sock.settimeout(left)
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError
            data += chunk
        return data

    with sock:
        try:
            (size,) = struct.unpack("Q", receive(8))  # distributed.comm.tcp's frame length
            if not 0 < size <= 1 << 16:
                return "a server answers there, not a Dask scheduler"
            body = receive(size)
        except TimeoutError:
            return "a connection opened, but no Dask scheduler spoke"
        except OSError:
            return "the connection was closed before a Dask scheduler spoke"
    if b"compression" not in body or b"python" not in body:
        return "a server answers there, not a Dask scheduler"
    return None


def connect(address: str, timeout: float = SCHEDULER_TIMEOUT):
    """A ``distributed.Client`` on the scheduler at ``address``; one line (not a hang, not
    a traceback) when the address is malformed or no Dask scheduler answers within
    ``timeout`` seconds (:func:`_no_scheduler` asks before a Client is made)."""
    scheme, host, port = parse_address(address)
    text = f"{scheme}://{address.strip().split('://')[-1]}"

    def unreachable(reason: str) -> SymdelayInputError:
        return SymdelayInputError(
            f"--scheduler {text}: cannot reach the Dask scheduler within {timeout:g} s ({reason}); "
            "start one with 'dask scheduler' and give its address, or run without --scheduler"
        )

    why = _no_scheduler(scheme, host, port, timeout)
    if why is not None:
        raise unreachable(why)
    from distributed import Client

    with _quiet_distributed():
        try:
            return Client(text, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError, MemoryError) as exc:
            raise unreachable(type(exc).__name__) from None


@contextlib.contextmanager
def _quiet_distributed():
    """``distributed``'s own log lines (warnings about cancelled tasks, closing workers) kept
    to errors while the sweep's own client and cluster run and close: the sweep reports
    what happened in one line."""
    logger = logging.getLogger("distributed")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def _local_client(workers: int | None, dashboard: bool):
    """Our own ``LocalCluster``: one single-threaded worker process per core (the analyses
    hold the GIL), no dashboard unless asked (its web server costs start-up time), logs kept
    to errors; every server it starts listens on 127.0.0.1 only."""
    from distributed import Client, LocalCluster

    n = workers or os.cpu_count() or 1
    cluster = LocalCluster(
        n_workers=n,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",  # scheduler and workers on the loopback interface only
        # the dashboard too, on a free port (":0" listened on every interface)
        dashboard_address="127.0.0.1:0",
        scheduler_kwargs={"dashboard": bool(dashboard)},
        silence_logs=logging.ERROR,
        preload=["symdelay.sweep._worker"],  # workers leave Ctrl-C to this process
    )
    return Client(cluster, set_as_default=False), cluster


#: Seconds a Dask task (a batch of tasks) should run: Dask's own cost per task (scheduling,
#: transfer and bookkeeping, about a millisecond here; see the benchmark) is then ~0.5 %.
TARGET_BATCH_SECONDS = 0.2

#: Dask tasks per second a run asks of the scheduler at most: one scheduler handles a few
#: thousand per second, so on many workers batches grow to keep under this.
SCHEDULER_RATE = 1000.0

#: Tasks in one Dask task at most (its rows travel back in one message).
MAX_BATCH = 10_000

#: Tasks of the first Dask task on each worker thread: the first warms the worker (imports,
#: per-process caches), the others time a task for the sizes of the batches that follow.
PILOT_TASKS = 4


def batch_size(
    seconds,
    remaining: int,
    threads: int,
    *,
    target: float = TARGET_BATCH_SECONDS,
    rate: float = SCHEDULER_RATE,
) -> int:
    """Tasks in the next Dask task, from the seconds the tasks timed so far took.

    A batch should run about ``target`` seconds at the median task time (the median, so a
    worker's first task, which fills its caches, does not count) and be at most a
    ``1 / (2 * threads)`` share of the ``remaining`` tasks, so batches shrink towards the
    end and no worker waits long for the last one (guided self-scheduling) — but never
    shorter than ``threads / rate`` seconds, so that all threads together ask the scheduler
    for at most ``rate`` Dask tasks a second. Between 1 and :data:`MAX_BATCH`, and at most
    ``remaining``.

    >>> batch_size([0.030] * 8, remaining=236, threads=2)  # 30 ms tasks: 0.2 s batches
    7
    >>> batch_size([0.0005] * 8, remaining=10_000, threads=2)  # 0.5 ms tasks
    400
    >>> batch_size([0.0005] * 8, remaining=40, threads=2)  # the tail: a quarter each
    10
    >>> batch_size([5.0, 0.001, 0.001], remaining=10**7, threads=1000)  # 1 s batches
    1000
    >>> batch_size([0.001] * 8, remaining=10**6, threads=4000)  # the scheduler's limit
    4000
    """
    times = sorted(float(s) for s in seconds if s is not None and math.isfinite(s) and s >= 0)
    threads = max(1, int(threads))
    remaining = max(1, int(remaining))
    tail = math.ceil(remaining / (2 * threads))
    if not times:
        return min(tail, MAX_BATCH)
    per = statistics.median(times)

    def lasting(seconds: float) -> int:  # tasks of ``per`` seconds filling ``seconds``
        # (1 - 1e-12): a quotient such as 4 / 0.001 rounded up by one ulp is still 4000
        return MAX_BATCH if per <= seconds / MAX_BATCH else math.ceil(seconds / per * (1 - 1e-12))

    floor = lasting(threads / rate)
    return max(
        1, min(max(min(lasting(max(target, threads / rate)), tail), floor), MAX_BATCH, remaining)
    )


def in_flight_limit(threads: int) -> int:
    """Dask tasks a run keeps submitted at once: four per worker thread (one running, the
    next ones queued, so no worker waits for the client's round trip), at least 16.

    >>> in_flight_limit(2), in_flight_limit(1000)
    (16, 4000)
    """
    return max(16, 4 * max(1, int(threads)))


def auto_batch(tasks: int, threads: int) -> int:
    """Tasks per Dask task before any has been timed: enough batches for every worker
    thread to get :data:`PILOT_TASKS`, fewer when there are fewer tasks.

    >>> auto_batch(16, 2), auto_batch(10_000, 2), auto_batch(3, 2)
    (4, 4, 1)
    """
    return max(1, min(PILOT_TASKS, tasks // max(1, threads)))


def _items(spec: Spec, tasks) -> list[tuple]:
    return [(k, spec.replication(k), spec.task(k), spec.seed_of(k)) for k in tasks]


def _failed_rows(items, exc) -> list[dict]:
    """The rows of a Dask task that could not be run (e.g. it killed its workers)."""
    err = _error_line(exc)
    return [
        {
            "task": k,
            "replication": rep,
            **kw,
            "seed": seed,
            "status": "failed",
            "error": err,
            "seconds": None,
            "worker": None,
            "symdelay_version": __version__,
        }
        for k, rep, kw, seed in items
    ]


def run(
    spec,
    out=None,
    client=None,
    *,
    workers: int | None = None,
    scheduler: str | None = None,
    serial: bool = False,
    resume: bool = False,
    batch: int | None = None,
    progress=None,
    show_progress: bool | None = None,
    flush_seconds: float = 1.0,
    allow_python=None,
    force: bool = False,
    dashboard: bool = False,
    allow_paths=None,
):
    """Run a sweep and return its table (a pandas DataFrame, one row per task, by task).

    Parameters
    ----------
    spec : symdelay.sweep.spec.Spec, dict or path
        The sweep (see :mod:`symdelay.sweep.spec`).
    out : path, optional
        The Parquet file the rows go to as they finish. Without it the rows are kept in
        memory only (and ``resume`` is not possible).
    client : distributed.Client, optional
        Run on this client's cluster. Without ``client``, ``scheduler`` or ``serial`` an
        embedded ``LocalCluster`` with ``workers`` processes (default: one per core) is
        started and closed.
    workers, scheduler, serial
        ``LocalCluster`` size; address of a running scheduler (``tcp://HOST:PORT``);
        ``serial=True`` runs every task in this process without Dask.
    resume : bool
        ``out`` exists: compute only the tasks that have no row (the spec must have the
        hash recorded in ``out``). Without ``resume`` an existing ``out`` is an error.
    batch : int, optional
        Tasks per Dask task. By default the first Dask task on each worker thread holds
        :data:`PILOT_TASKS` tasks and the later ones are sized from the task times so far
        (:func:`batch_size`: about :data:`TARGET_BATCH_SECONDS` each, smaller towards the
        end). Serial runs ignore it.
    progress : callable, optional
        Called with the :class:`~symdelay.sweep.progress.Progress` after each batch.
    show_progress : bool, optional
        Draw the bar (default: when standard error is a terminal).
    allow_python : str or list of str, optional
        ``"module:function"`` names the spec may name as its analysis besides the
        registered ones (the command line's ``--allow-python``). A spec is data: without
        this, a spec naming anything but a registered analysis is refused and nothing it
        names is imported.
    force : bool
        Run a grid over :data:`~symdelay.sweep.grid.MAX_TASKS` tasks (``--force``).
    allow_paths : str or list of str, optional
        Folders the spec's paths (``model_file``) may lead to besides the spec's own folder
        (``--allow-path``); a path leading anywhere else is refused.
    dashboard : bool
        Serve the Dask dashboard of the embedded ``LocalCluster`` (off by default: it
        costs start-up time).

    Returns
    -------
    pandas.DataFrame
        ``df.attrs["sweep"]`` holds the spec, its hash, the number of tasks and the axes;
        ``df.attrs["timing"]`` the seconds of this run: ``start_seconds`` (connecting, or
        starting the embedded cluster), ``run_seconds`` (the tasks, from the first
        submitted to the last gathered, the workers' warm-up included), and for Dask the
        number of Dask tasks and the smallest and largest batch.
    """
    spec = as_spec(spec, allow_python=allow_python, force=force, allow_paths=allow_paths)
    if sum(x is not None and x is not False for x in (client, scheduler, serial or None)) > 1:
        raise SymdelayInputError("give at most one of client, scheduler and serial")
    if workers is not None and (client is not None or scheduler or serial):
        raise SymdelayInputError("workers is for the embedded LocalCluster only")
    if workers is not None and (
        isinstance(workers, bool) or not isinstance(workers, int) or workers < 1
    ):
        raise SymdelayInputError(f"--workers must be an integer >= 1, got {workers!r}")
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int) or batch < 1):
        raise SymdelayInputError(f"batch must be an integer >= 1, got {batch!r}")
    meta = _meta(spec)
    spec_hash = meta["spec_hash"]
    outputs = meta["outputs"]  # output columns in the order the analysis returns them
    known = {*meta["columns"], *_RESERVED}
    types = _column_types(spec)
    store = Store(out) if out is not None else None
    done: set[int] = set()
    failed_before = 0
    run_number = 1
    if store is not None:
        store.check_writable()
        if store.exists():
            if not resume:
                raise SymdelayInputError(
                    f"{store.path} exists: add --resume to complete it, or choose another --out"
                )
            old = store.meta()
            outputs.extend(old.get("outputs", []))
            if old.get("spec_hash") != spec.hash:
                raise SymdelayInputError(
                    f"{store.path} holds the results of another spec (hash "
                    f"{old.get('spec_hash')}, this spec {spec.hash}): resume with the same "
                    "spec, or choose another --out"
                )
            table = store.read()
            done = set(table.column("task").to_pylist())
            failed_before = sum(1 for s in table.column("status").to_pylist() if s == "failed")
            runs = [r for r in table.column("run").to_pylist() if r is not None]
            run_number = max(runs, default=0) + 1
    todo = [k for k in range(len(spec)) if k not in done]
    bar = Progress(len(spec), len(done), failed_before, enabled=show_progress, callback=progress)
    memory: list[dict] = []
    pending: list[dict] = []
    last_flush = time.perf_counter()

    def take(rows: list[dict]) -> None:
        nonlocal last_flush
        fresh = [r for r in rows if r["task"] not in done]
        for r in fresh:
            for n, cast in types.items():
                r[n] = cast(r[n])
            done.add(r["task"])
            if r["status"] == "ok":
                outputs.extend(k for k in r if k not in known and k not in outputs)
            r["run"] = run_number
            r["spec_hash"] = spec_hash
        pending.extend(fresh)
        nf = sum(1 for r in fresh if r["status"] == "failed")
        bar.update(len(fresh) - nf, nf)
        if time.perf_counter() - last_flush >= flush_seconds:
            flush()
            last_flush = time.perf_counter()

    def flush() -> None:
        if not pending:
            return
        if store is not None:
            store.append(pending, meta)
        else:
            memory.extend(pending)
        pending.clear()

    target = spec.info.target
    timing: dict = {"start_seconds": 0.0, "run_seconds": 0.0}
    try:
        if todo and serial:
            t0 = time.perf_counter()
            try:
                for k in todo:
                    take(execute(target, _items(spec, [k])))
            finally:
                timing["run_seconds"] = time.perf_counter() - t0
        elif todo:
            _run_dask(
                spec, todo, target, take, bar, client, workers, scheduler, batch, timing, dashboard
            )
    finally:
        flush()
        bar.close()
        if store is not None and store.exists():
            store.consolidate(meta)
    if store is not None:
        from symdelay.sweep.store import read_results

        df = read_results(store.path)
        df.attrs["timing"] = timing
        return df
    import pandas as pd

    from symdelay.sweep.store import _table, ordered

    df = (
        ordered(_table(sorted(memory, key=lambda r: r["task"]), meta), meta).to_pandas()
        if memory
        else (pd.DataFrame(columns=meta["columns"]))
    )
    df.attrs["sweep"] = {k: meta[k] for k in ("spec", "spec_hash", "total", "axes")}
    df.attrs["timing"] = timing
    return df


def _run_dask(
    spec, todo, target, take, bar, client, workers, scheduler, batch, timing, dashboard
) -> None:
    """Batches submitted a window at a time and gathered in bulk as they finish.

    The first Dask task on each worker thread is a pilot of :data:`PILOT_TASKS` tasks (the
    first of them warms the worker); later batches are sized by :func:`batch_size` from the
    task times so far, unless ``batch`` fixes their size. At most ``in_flight_limit(threads)`` Dask
    tasks are in flight (:func:`in_flight_limit`), so the client and the scheduler hold a few futures whatever the
    size of the sweep, and batches are cut only when submitted (the last ones small)."""
    from collections import deque

    from distributed import as_completed

    # our own client (and cluster): their log lines are ours to keep
    with _quiet_distributed() if client is None else contextlib.nullcontext():
        own_client = own_cluster = None
        t0 = time.perf_counter()
        if client is None:
            if scheduler:
                client = own_client = connect(scheduler)
            else:
                client, own_cluster = _local_client(workers, dashboard=dashboard)
                own_client = client
        timing["start_seconds"] = time.perf_counter() - t0
        t0 = time.perf_counter()
        try:
            link = getattr(client, "dashboard_link", None)
            if link and ((own_cluster is not None and dashboard) or scheduler):
                bar.note(f"Dask dashboard: {link}")
            token = uuid.uuid4().hex[:8]
            queue = deque(todo)
            recent: deque = deque(maxlen=256)  # seconds of the latest tasks
            nthreads = client.nthreads()
            threads = max(1, sum(nthreads.values()))
            threads_at = time.perf_counter()
            in_flight: dict = {}  # future -> its items
            sizes: list[int] = []

            def submit(items, worker=None) -> None:
                fut = client.submit(
                    execute,
                    target,
                    items,
                    key=f"symdelay-sweep-{spec.hash}-{token}-{items[0][0]}",
                    pure=False,
                    workers=None if worker is None else [worker],
                    allow_other_workers=worker is not None,
                )
                in_flight[fut] = items
                sizes.append(len(items))
                done.add(fut)

            def cut(n: int) -> list[tuple]:
                return _items(spec, [queue.popleft() for _ in range(min(n, len(queue)))])

            # results fetched by the client's event loop as each Dask task finishes (no round
            # trip of this thread per batch); whatever has arrived is taken in one go
            done = as_completed([], loop=client.loop, with_results=True, raise_errors=False)
            first = batch or auto_batch(len(queue), threads)
            for addr, n in sorted(nthreads.items()) or [(None, 1)]:
                for _ in range(n):
                    if queue:
                        submit(cut(first), addr)
            window = in_flight_limit(threads)
            try:
                while in_flight:
                    for fut, result in done.next_batch(block=True):
                        items = in_flight.pop(fut)
                        if fut.status == "finished":
                            rows = result
                            recent.extend(r["seconds"] for r in rows if r["seconds"] is not None)
                        else:  # could not be run (e.g. it killed its workers repeatedly)
                            rows = _failed_rows(items, result)
                        fut.release()
                        take(rows)
                    if time.perf_counter() - threads_at > 5.0:  # workers come and go
                        threads = max(1, sum(client.nthreads().values()))
                        threads_at = time.perf_counter()
                        window = in_flight_limit(threads)
                    while queue and len(in_flight) < window:
                        submit(cut(batch or batch_size(recent, len(queue), threads)))
            except BaseException:
                client.cancel(list(in_flight))
                raise
            timing["dask_tasks"] = len(sizes)
            timing["batch_sizes"] = (min(sizes, default=0), max(sizes, default=0))
        finally:
            timing["run_seconds"] = time.perf_counter() - t0
            if own_client is not None:
                own_client.close()
            if own_cluster is not None:
                own_cluster.close()
