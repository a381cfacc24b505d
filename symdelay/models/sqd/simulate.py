"""Exact discrete-event simulation of the N-server SQ(d) system with any service law.

Arrivals are Poisson(lam N); each samples d servers uniformly with replacement and joins the
first sampled server of least length (sample positions are exchangeable, so this is a
uniform tie-break among the tied samples); each server is FCFS. The service time is drawn
from the true distribution (a :class:`~symdelay.models.sqd.service.GeneralService` or a
:class:`~symdelay.models.phase_type.PhaseType`).

Event loop. Under FCFS a job's departure time is known when it arrives
(``max(free_at, t) + service``), so no departure needs to be scheduled in a global heap:
every server keeps its jobs' departure times in a FIFO, and a server's length is brought up
to date lazily, only when it is sampled (its departures before ``t`` are popped). The loop
is a compiled C kernel with a pure-Python twin making the same draws (:mod:`._kernel`):
arrival gaps and samples from xoshiro256**, service times from numpy in blocks of
:data:`BLOCK`, one per arrival in order. The time-average tail ``s_k`` is accumulated
exactly per server (time spent at each length); at every batch boundary all servers are
brought up to date and the instantaneous tail is recorded (``snapshots``). Every arrival
and every departure (before T) is one event, as in the SimPy peer.

Confidence intervals: batch means over ``batches`` equal batches after a warm-up of
``warmup`` time units (Student t, 95%); an interval for a fraction ``s_k`` is cut to [0, 1]
(the fraction lies there, so the cut interval covers it whenever the full one does).

Cost. The expected number of events (arrivals and departures, ``2 lam N T``; landings too
with a delay) and the memory of the arrays (per server and per batch) are estimated from the
sizes before anything is allocated; a run over the budget of :mod:`symdelay.models.sqd._budget` is
refused unless ``force``. Each batch must expect at least :data:`MIN_ARRIVALS_PER_BATCH`
arrivals (more batches than the run can fill give no interval worth the name).

The record is a :class:`~symdelay.analysis.timeseries.TimeSeries` of the instantaneous tail
fractions ``s_1, s_2, ...`` at the batch boundaries (JSON key ``s``), with the estimates
(mean sojourn and tails with their intervals) in its ``info``. Behind the ``simulate`` entry
(:func:`specialised_simulate`) the same kernel runs the sqd model from the empty system and
records the model's states ``x_k = s_k - s_{k+1}`` on the entry's time grid.

>>> r = simulate(N=200, d=2, lam="0.5", T=200, seed=1)
>>> 1.0 < r.info["mean_sojourn"] < 1.3
True
"""

from __future__ import annotations

import math

import numpy as np

from symdelay.analysis.stochastic import check_seed
from symdelay.analysis.timeseries import TimeSeries
from symdelay.core.cbuild import choose_backend
from symdelay.core.errors import SymdelayInputError
from symdelay.core.rng import seed_states
from symdelay.models.phase_type import PhaseType
from symdelay.models.sqd._budget import check_budget, check_memory, count
from symdelay.models.sqd._kernel import (
    DONE,
    IP_EVENTS,
    IP_FREE,
    IP_NFREE,
    IP_SPOS,
    NEED_SERVICE,
    NODE_DTYPE,
    SERVER_DTYPE,
    load_c_kernel,
    run_python,
)
from symdelay.models.sqd.batches import BLOCK, _finish, batch_interval
from symdelay.models.sqd.fixed_point import as_lam, exact_text
from symdelay.models.sqd.meanfield import as_d
from symdelay.models.sqd.service import GeneralService, exponential, ph_sampler

__all__ = [
    "simulate",
    "specialised_simulate",
    "service_draw",
    "as_N",
    "kernel_for",
    "estimate_events",
    "estimate_seconds",
    "estimate_bytes",
]

#: Service times drawn per numpy block.
#: Initial node pool: POOL_PER_SERVER * N + POOL_EXTRA departure times (doubled on demand).
POOL_PER_SERVER, POOL_EXTRA = 4, 64
#: Events per second of one core, roughly: the C kernel, its Python twin, the delayed loop.
SPEED = {"c": 1e7, "python": 2e5, "delayed": 5e5}
#: Seconds per batch and level of the summary (a Python loop).
BATCH_SECONDS = 1e-6
#: A batch must expect at least this many arrivals.
MIN_ARRIVALS_PER_BATCH = 10
#: Bytes per server of the delayed (pure-Python) loop: a deque, floats, list slots.
DELAYED_BYTES_PER_SERVER = 1024


def as_N(N, d: int) -> int:
    try:
        v = int(str(N).strip())
    except ValueError:
        raise SymdelayInputError(f"N must be an integer, got '{N}'") from None
    if v < d:
        raise SymdelayInputError(f"N = {v} < d = {d}: need at least d servers to sample from")
    return v


def as_batches(batches) -> int:
    msg = f"--batches must be a whole number >= 2, got {batches!r}"
    if isinstance(batches, bool):
        raise SymdelayInputError(msg)
    try:
        v = int(str(batches).strip())
    except ValueError:
        raise SymdelayInputError(msg) from None
    if v < 2:
        raise SymdelayInputError("need at least 2 batches for a confidence interval (--batches)")
    return v


def estimate_events(N: int, lam: float, T: float, delay=None) -> float:
    """Expected events of a run: ``lam N T`` arrivals, as many departures (at most), and
    with an action delay as many landings."""
    per_job = 2.0 if delay is None else 3.0
    return per_job * float(lam) * N * T


def estimate_seconds(N: int, lam: float, T: float, backend: str = "c", delay=None) -> float:
    """Rough single-core running time (``SPEED``)."""
    speed = SPEED["delayed"] if delay is not None else SPEED[backend]
    return estimate_events(N, lam, T, delay) / speed


def estimate_bytes(N: int, batches: int, levels: int, delay=None) -> float:
    """Bytes of the arrays allocated at the start (node pool, servers, batch records)."""
    per_batch = 8 * (levels + 1) + 8 * levels + 16
    if delay is not None:
        return float(N) * DELAYED_BYTES_PER_SERVER + batches * (8 * (levels + 1) + 16)
    pool = (POOL_PER_SERVER * float(N) + POOL_EXTRA) * NODE_DTYPE.itemsize
    return pool + float(N) * SERVER_DTYPE.itemsize + (batches + 1) * per_batch


def service_draw(service, rng: np.random.Generator):
    """``draw(n)`` for a phase-type or general service."""
    if isinstance(service, PhaseType):
        if service.phases == 1:  # exponential: numpy's sampler directly
            mean = 1.0 / float(-service.S[0, 0])
            return lambda size: rng.exponential(mean, size)
        return ph_sampler(service, rng)
    if isinstance(service, GeneralService):
        return service.sampler(rng)
    raise SymdelayInputError("service must be a PhaseType or a GeneralService")


def _mean(service) -> float:
    return float(service.mean)


def simulate(
    N=1000,
    d=2,
    lam="0.9",
    service=None,
    *,
    T=2000.0,
    seed=1,
    warmup=None,
    batches=20,
    levels=None,
    delay=None,
    backend="auto",
    force=False,
) -> TimeSeries:
    """One long run; ``warmup`` defaults to T/10; ``delay`` = ``(L, D)``: Erlang action
    delay (the job reaches the chosen server after it, see :mod:`.delayed`, Python loop);
    ``backend``: ``auto`` (the C kernel when it compiles), ``c`` or ``python`` (the twin).
    A run estimated over the time or memory budget is refused unless ``force``.

    Returns a :class:`~symdelay.analysis.timeseries.TimeSeries`: the instantaneous tails
    ``s_k`` (fraction of servers with at least k jobs) at the ``batches + 1`` batch
    boundaries ``warmup, ..., T``, up to the last level reached; ``info``: the mean sojourn
    ``mean_sojourn`` with its 95% interval ``ci95`` (batch means), the time-average tails
    ``tail`` with ``tail_ci95`` (cut to [0, 1]), the batch means ``sojourn_batches``, the
    ``backend``, ``seconds`` and ``events_per_second``."""
    import time

    d = as_d(d)
    N = as_N(N, d)
    service = service if service is not None else exponential()
    lamv = as_lam(lam, _mean(service) if not isinstance(service, PhaseType) else service.mean)
    try:
        T = float(T)
        warmup = T / 10 if warmup is None else float(warmup)
    except (TypeError, ValueError):
        raise SymdelayInputError("--T and the warm-up must be numbers") from None
    if not (math.isfinite(T) and T > 0) or not 0 <= warmup < T:
        raise SymdelayInputError(
            f"need a finite T > 0 and 0 <= warmup < T, got T={T}, warmup={warmup}"
        )
    batches = as_batches(batches)
    seed, seed_record = check_seed(seed, "--seed")
    levels = int(levels) if levels is not None else 40
    lamf = float(lamv)
    arrivals = lamf * N * (T - warmup) / batches
    if arrivals < MIN_ARRIVALS_PER_BATCH:
        most = max(int(lamf * N * (T - warmup) // MIN_ARRIVALS_PER_BATCH), 0)
        raise SymdelayInputError(
            f"{batches} batches would hold about {arrivals:.3g} arrivals each; a batch needs "
            f"at least {MIN_ARRIVALS_PER_BATCH}: use at most {most} batches (--batches) or a "
            "longer --T or larger --N"
        )
    if delay is None:
        used = kernel_for(backend)[1]  # refuses an unknown or missing backend before estimating
    else:
        from symdelay.models.sqd.delayed import as_delay

        used = "delayed"
        if as_delay(*delay)[1] >= T - warmup:
            raise SymdelayInputError(
                f"the delay's mean D = {delay[1]} is not below the time measured (T - warmup "
                f"= {T - warmup:g}): no job would land in it; give a shorter --delay-D or a "
                "longer --T"
            )
    check_memory(
        f"a run with N = {N} and {batches} batches",
        estimate_bytes(N, batches, levels, delay),
        force=force,
        shrink="--N or --batches",
    )
    check_budget(
        f"this run ({count(estimate_events(N, lamf, T, delay))} events: N = {N}, T = {T:g})",
        estimate_seconds(N, lamf, T, "python" if used == "python" else "c", delay)
        + BATCH_SECONDS * batches * levels,
        force=force,
        shrink="--T or --N",
    )
    rng = np.random.default_rng(seed)
    draw = service_draw(service, rng)
    width = (T - warmup) / batches
    bounds = np.array([warmup + b * width for b in range(batches + 1)])
    t0 = time.perf_counter()
    try:
        if delay is None:
            soj, occ, events, snaps, used = _run(N, d, lamf, draw, rng, bounds, levels, backend)
        else:
            from symdelay.models.sqd.delayed import run_delayed

            soj, occ, events, snaps = run_delayed(
                N, d, lamf, draw, rng, T, warmup, batches, levels, delay
            )
            used = "python"
    except MemoryError:
        raise SymdelayInputError(
            f"out of memory for N = {N}, {batches} batches: lower --N, --batches or --lam"
        ) from None
    seconds = time.perf_counter() - t0
    if len(soj) < 2:  # the delayed loop: batches whose jobs did not land before T
        raise SymdelayInputError(
            f"only {len(soj)} of {batches} batches saw a job land: the delay is too long for "
            "the run; give a shorter --delay-D, a longer --T or fewer --batches"
        )
    m, lo, hi = batch_interval(soj, lo=0.0)
    tails, cis = [], []
    for k in range(levels):
        tm, tl, th = batch_interval([b[k] for b in occ], lo=0.0, hi=1.0)
        tails.append(tm)
        cis.append((tl, th))
    label = service.label() if isinstance(service, GeneralService) else service.kind
    snaps = np.asarray(snaps, dtype=float).reshape(batches + 1, levels)
    # the levels any run reached: the last nonzero time-average or snapshot tail
    reached = [k for k in range(levels) if tails[k] > 0 or snaps[:, k].any()]
    K = max(reached[-1] + 1 if reached else 1, 1)
    params = {"N": N, "d": d, "lam": exact_text(lamv), "service": label, "T": T}
    params.update(warmup=warmup, batches=batches, levels=levels, seed=seed_record)
    params["delay"] = None if delay is None else [str(v) for v in delay]
    info = {
        "mean_sojourn": m,
        "ci95": [lo, hi],
        "ci_method": f"batch means, {batches} batches after warm-up",
        "tail": tails[:K],
        "tail_ci95": [list(c) for c in cis[:K]],
        "sojourn_batches": soj,
        "backend": used,
        "seconds": seconds,
        "events_per_second": round(events / seconds) if seconds > 0 else None,
    }
    return TimeSeries(
        tuple(f"s_{k}" for k in range(1, K + 1)), bounds, snaps[:, :K], params,
        kind="simulation", model_name=f"SQ({d}), N = {N}, {label} service",
        events=[events], info=info, estimates=("mean_sojourn", "ci95", "tail", "tail_ci95"),
    )  # fmt: skip


def specialised_simulate(
    model, *, eta, T, dt, initial, seed, replications, backend="auto", threads=None,
    progress=None, monitor=None, force=False, chunk_events=None,
) -> TimeSeries | None:  # fmt: skip
    """The simulate entry's specialisation for the sqd model: the SQ(d) kernel (N = eta
    servers, default 1000, exponential service) from the empty system, the tails recorded on
    the grid ``0, dt, ..., T`` and returned as the model's states ``x_k = s_k - s_{k+1}``
    (``x_K`` the servers with exactly K jobs; longer queues, which the truncated model
    loses, are counted in ``info["beyond_K"]``). Declines (``None``: the generated kernel
    runs the table) with phase-type service of several phases (the kernel does not track
    phases) or a start other than the empty system."""
    from symdelay.analysis.stochastic import replication_seeds, run_parameters
    from symdelay.core.checks import check_horizon, check_replications, time_grid
    from symdelay.core.symbols import lam as LAM

    if model.free_parameters or model.service.phases != 1:
        return None
    if initial is not None:
        try:
            empty = not np.any(np.asarray(initial, dtype=float))
        except (TypeError, ValueError):
            empty = False
        if not empty:
            return None
    if threads not in (None, 1) or chunk_events is not None:
        raise SymdelayInputError(
            "the SQ(d) kernel runs one replication at a time in blocks of its own: threads "
            "and chunk_events do not apply (leave them out)"
        )
    T, dt = check_horizon(T, dt)
    R = check_replications(replications)
    rng_seed, seed_record = check_seed(seed)
    N = as_N(1000 if eta is None else eta, model.d)
    grid = time_grid(T, dt)
    K, d, lamf = model.K, model.d, float(model.values[LAM])
    used = kernel_for(backend)[1]
    levels = K + 1
    check_memory(
        f"a run with N = {N} and {grid.size} grid times",
        R * estimate_bytes(N, grid.size, levels),
        force=force,
        shrink="--eta or --dt",
    )
    check_budget(
        f"this run ({count(R * estimate_events(N, lamf, T))} events: N = {N}, T = {T:g}, "
        f"{R} replication(s))",
        R * estimate_seconds(N, lamf, T, used),
        force=force,
        shrink="--eta, --T or --replications",
    )
    out = np.zeros((R, grid.size, K))
    beyond = np.zeros((R, grid.size))
    events = np.zeros(R, dtype=np.int64)
    for r, child in enumerate(replication_seeds(rng_seed, R)):
        rng = np.random.default_rng(child)
        draw = service_draw(model.service, rng)
        _, _, events[r], snaps, used = _run(N, d, lamf, draw, rng, grid, levels, backend)
        s = np.asarray(snaps).reshape(grid.size, levels)
        out[r] = s[:, :K] - s[:, 1:]
        beyond[r] = s[:, K]
        if progress is not None:
            progress(1)
        if monitor is not None:
            monitor(float(T) * (r + 1), int(events[: r + 1].sum()))
    params = run_parameters(model)
    params.update(eta=N, T=T, dt=dt, seed=seed_record, replications=R)
    params["initial"] = [0] * K
    info = {"backend": used, "beyond_K": beyond}
    return TimeSeries(
        tuple(s.name for s in model.states), grid, out, params, kind="simulation",
        model_name=model.name, events=events, info=info,
    )  # fmt: skip


def kernel_for(backend: str):
    """``(kernel, name)`` for ``backend`` ``auto`` (C when it compiles), ``c`` or ``python``."""
    fn = choose_backend(backend, load_c_kernel)
    return (fn, "c") if fn is not None else (run_python, "python")


def _run(N, d, lam, draw, rng, bounds, levels, backend="auto"):
    """Drive the kernel of :mod:`._kernel` over the batches between the times ``bounds``
    (equally spaced): refill the service block, grow the node pool.

    Returns (batch mean sojourns, batch tails, events, snapshots at the bounds, backend)."""
    kernel, name = kernel_for(backend)
    state = seed_states(rng)
    bounds = np.ascontiguousarray(bounds, dtype=float)
    batches = bounds.size - 1
    width = (bounds[-1] - bounds[0]) / batches
    warmup = float(bounds[0])
    P = POOL_PER_SERVER * N + POOL_EXTRA
    pool = np.zeros(P, dtype=NODE_DTYPE)
    pool["nxt"] = np.arange(1, P + 1)
    pool["nxt"][-1] = -1
    srv = np.zeros(N, dtype=SERVER_DTYPE)
    srv["last"] = float(warmup)
    W = levels + 1
    occ = np.zeros(batches * W)
    snap = np.zeros((batches + 1) * levels, dtype=np.int64)
    soj_sum = np.zeros(batches)
    soj_n = np.zeros(batches, dtype=np.int64)
    clock = np.zeros(1)
    ip = np.zeros(8 + d, dtype=np.int64)
    ip[IP_NFREE] = P
    serv = np.zeros(0)
    rate = float(lam) * N
    while True:
        status = kernel(
            N, d, rate, state, serv, ip, pool, srv, bounds, batches, levels, occ, snap, soj_sum,
            soj_n, clock,
        )  # fmt: skip
        if status == DONE:
            break
        if status == NEED_SERVICE:
            serv = np.ascontiguousarray(draw(BLOCK), dtype=np.float64)
            ip[IP_SPOS] = 0
        else:  # NEED_NODES: double the pool; the new nodes head the free list
            P = pool.size
            if 2 * P >= 2**31:
                raise SymdelayInputError("more than 2^30 jobs in the system: lower N or lam")
            new = np.zeros(P, dtype=NODE_DTYPE)
            new["nxt"] = np.arange(P + 1, 2 * P + 1)
            new["nxt"][-1] = ip[IP_FREE]
            pool = np.concatenate([pool, new])
            ip[IP_FREE] = P
            ip[IP_NFREE] += P
    soj, tails, events = _finish(
        soj_sum.tolist(), soj_n.tolist(), occ.reshape(batches, W).tolist(), levels, N, width,
        int(ip[IP_EVENTS]),
    )  # fmt: skip
    snaps = (snap.reshape(batches + 1, levels) / N).tolist()
    return soj, tails, events, snaps, name
