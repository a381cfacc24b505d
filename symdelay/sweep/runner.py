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
import os
import re
import socket
import time
import traceback
import uuid

from symdelay.core.errors import SymdelayInputError
from symdelay.sweep.progress import Progress
from symdelay.sweep.spec import Spec, as_spec
from symdelay.sweep.store import Store

__all__ = ["run", "execute", "connect", "auto_batch", "SCHEDULER_TIMEOUT"]

#: Seconds to wait for a scheduler given by address before saying it cannot be reached.
SCHEDULER_TIMEOUT = 3.0


def _error_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def execute(target, tasks: list[tuple]) -> list[dict]:
    """Run ``tasks`` — ``(task, replication, kwargs, seed)`` tuples — through the analysis
    ``target``; one row each. Exceptions become failed rows (they never escape)."""
    import json

    from symdelay import __version__
    from symdelay.sweep.analyses import resolve

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
            for k, v in out.items():
                if not (v is None or isinstance(v, bool | int | float | str)):
                    out[k] = json.dumps(v, default=str)
            row.update(status="ok", error=None)
            row.update(out)
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


def connect(address: str, timeout: float = SCHEDULER_TIMEOUT):
    """A ``distributed.Client`` on the scheduler at ``address``; a clear error (not a hang,
    not a traceback) when the address is malformed or nothing answers within ``timeout``
    seconds. The address is checked and its port probed before a Client is made, since a
    Client that failed to connect hangs again when it is garbage-collected."""
    scheme, host, port = parse_address(address)
    text = f"{scheme}://{address.strip().split('://')[-1]}"

    def unreachable(reason: str) -> SymdelayInputError:
        return SymdelayInputError(
            f"cannot reach the Dask scheduler at {text} within {timeout:g} s ({reason}); "
            "start one with 'dask scheduler' or check the address"
        )

    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as exc:
        raise unreachable(exc.strerror or type(exc).__name__) from None
    from distributed import Client

    with _quiet_distributed():
        try:
            return Client(text, timeout=timeout, set_as_default=False)
        except (OSError, TimeoutError, ValueError) as exc:
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
    from distributed import Client, LocalCluster

    n = workers or os.cpu_count() or 1
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise SymdelayInputError(f"--workers must be an integer >= 1, got {workers!r}")
    cluster = LocalCluster(
        n_workers=n,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0" if dashboard else None,
        preload=["symdelay.sweep._worker"],  # workers leave Ctrl-C to this process
    )
    return Client(cluster, set_as_default=False), cluster


def auto_batch(tasks: int, threads: int) -> int:
    """Tasks per Dask task when none is given: about 20 batches per worker thread, at most
    100 tasks each (Dask's own cost is about a millisecond per task; see the benchmark).

    >>> auto_batch(16, 2), auto_batch(10_000, 2), auto_batch(10**6, 8)
    (1, 100, 100)
    """
    return max(1, min(100, tasks // (20 * max(1, threads))))


def _batches(spec: Spec, todo: list[int], batch: int) -> list[list[tuple]]:
    items = [(k, spec.replication(k), spec.task(k), spec.seed_of(k)) for k in todo]
    return [items[i : i + batch] for i in range(0, len(items), batch)]


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
        Tasks per Dask task; by default :func:`auto_batch` (about 20 batches per worker
        thread). Serial runs ignore it.
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

    Returns
    -------
    pandas.DataFrame
        ``df.attrs["sweep"]`` holds the spec, its hash, the number of tasks and the axes.
    """
    spec = as_spec(spec, allow_python=allow_python, force=force)
    if sum(x is not None and x is not False for x in (client, scheduler, serial or None)) > 1:
        raise SymdelayInputError("give at most one of client, scheduler and serial")
    if workers is not None and (client is not None or scheduler or serial):
        raise SymdelayInputError("workers is for the embedded LocalCluster only")
    if batch is not None and (isinstance(batch, bool) or not isinstance(batch, int) or batch < 1):
        raise SymdelayInputError(f"batch must be an integer >= 1, got {batch!r}")
    meta = _meta(spec)
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
            r["spec_hash"] = spec.hash
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
    try:
        if todo:
            if serial:
                for b in _batches(spec, todo, 1):
                    take(execute(target, b))
            else:
                _run_dask(spec, todo, target, take, bar, client, workers, scheduler, batch)
    finally:
        flush()
        bar.close()
        if store is not None and store.exists():
            store.consolidate(meta)
    if store is not None:
        from symdelay.sweep.store import read_results

        return read_results(store.path)
    import pandas as pd

    from symdelay.sweep.store import _table, ordered

    df = (
        ordered(_table(sorted(memory, key=lambda r: r["task"]), meta), meta).to_pandas()
        if memory
        else (pd.DataFrame(columns=meta["columns"]))
    )
    df.attrs["sweep"] = {k: meta[k] for k in ("spec", "spec_hash", "total", "axes")}
    return df


def _run_dask(spec, todo, target, take, bar, client, workers, scheduler, batch) -> None:
    with contextlib.ExitStack() as stack:
        if client is None:  # our own client (and cluster): their log lines are ours to keep
            stack.enter_context(_quiet_distributed())
        _run_dask_quiet(spec, todo, target, take, bar, client, workers, scheduler, batch)


def _run_dask_quiet(spec, todo, target, take, bar, client, workers, scheduler, batch) -> None:
    own_client = own_cluster = None
    if client is None:
        if scheduler:
            client = own_client = connect(scheduler)
        else:
            client, own_cluster = _local_client(workers, dashboard=True)
            own_client = client
    from distributed import as_completed

    try:
        link = getattr(client, "dashboard_link", None)
        if link and (own_cluster is not None or scheduler):
            bar.note(f"Dask dashboard: {link}")
        token = uuid.uuid4().hex[:8]
        if batch is None:
            batch = auto_batch(len(todo), sum(client.nthreads().values()))
        batches = _batches(spec, todo, batch)
        futures = [
            client.submit(
                execute,
                target,
                b,
                key=f"symdelay-sweep-{spec.hash}-{token}-{b[0][0]}",
                pure=False,
            )
            for b in batches
        ]
        by_key = {f.key: b for f, b in zip(futures, batches)}
        try:
            done = as_completed(futures, loop=client.loop, with_results=True, raise_errors=False)
            for fut, result in done:
                if fut.status == "finished":
                    rows = result
                else:  # the task could not be run (e.g. it killed its workers repeatedly)
                    err = _error_line(result)
                    rows = [
                        {
                            "task": k,
                            "replication": rep,
                            **kw,
                            "seed": seed,
                            "status": "failed",
                            "error": err,
                            "seconds": None,
                            "worker": None,
                            "symdelay_version": _version(),
                        }
                        for k, rep, kw, seed in by_key[fut.key]
                    ]
                fut.release()
                take(rows)
        except BaseException:
            client.cancel(futures)
            raise
    finally:
        if own_client is not None:
            own_client.close()
        if own_cluster is not None:
            own_cluster.close()


def _version() -> str:
    from symdelay import __version__

    return __version__


def _format_tb(exc) -> str:  # pragma: no cover - debugging aid
    return "".join(traceback.format_exception(exc))
