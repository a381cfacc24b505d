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

>>> r = simulate(N=200, d=2, lam="0.5", T=200, seed=1)
>>> 1.0 < r.mean_sojourn < 1.3
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.result import Result
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
from symdelay.models.sqd.batches import BLOCK, _finish
from symdelay.models.sqd.fixed_point import as_lam, exact_text
from symdelay.models.sqd.meanfield import as_d
from symdelay.models.sqd.service import GeneralService, exponential, ph_sampler

__all__ = [
    "SimulationResult",
    "simulate",
    "service_draw",
    "as_N",
    "as_seed",
    "t975",
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


def t975(dof: int) -> float:
    """Student-t 97.5% quantile."""
    from scipy.stats import t

    return float(t.ppf(0.975, dof))


def as_N(N, d: int) -> int:
    try:
        v = int(str(N).strip())
    except ValueError:
        raise SymdelayInputError(f"N must be an integer, got '{N}'") from None
    if v < d:
        raise SymdelayInputError(f"N = {v} < d = {d}: need at least d servers to sample from")
    return v


def as_seed(seed):
    """A seed for ``numpy.random.default_rng``: a whole number >= 0 (or its text), or a
    numpy ``Generator`` / ``SeedSequence`` (passed through)."""
    if isinstance(seed, (np.random.Generator, np.random.SeedSequence)):
        return seed
    msg = f"--seed must be a whole number >= 0, got {seed!r}"
    if isinstance(seed, bool):
        raise SymdelayInputError(msg)
    if isinstance(seed, np.integer):
        seed = int(seed)
    if isinstance(seed, str):
        try:
            seed = int(seed.strip())
        except ValueError:
            raise SymdelayInputError(msg) from None
    if not isinstance(seed, int) or seed < 0:
        raise SymdelayInputError(msg)
    return seed


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


@dataclass
class SimulationResult(Result):
    """Mean sojourn time with a 95% CI (batch means), time-average tails ``s_k`` with CIs."""

    N: int
    d: int
    lam: object
    T: float
    warmup: float
    mean_sojourn: float
    ci95: tuple
    tail: list  # the time-average fractions s_k; their intervals tail_ci95 lie in [0, 1]
    tail_ci95: list
    events: int
    seconds: float
    batches: int
    service: str
    sojourn_batches: list = field(default_factory=list, repr=False)
    snapshots: list = field(default_factory=list, repr=False)  # s_k(t) at batch boundaries
    backend: str = "c"

    @property
    def events_per_second(self) -> float:
        return self.events / self.seconds if self.seconds > 0 else float("nan")

    def record(self) -> dict:
        return {
            "N": self.N,
            "d": self.d,
            "lam": exact_text(self.lam),
            "service": self.service,
            "T": self.T,
            "warmup": self.warmup,
            "mean_sojourn": repr(self.mean_sojourn),
            "ci95": [repr(self.ci95[0]), repr(self.ci95[1])],
            "ci_method": f"batch means, {self.batches} batches after warm-up",
            "tail": [repr(v) for v in self.tail],
            "tail_ci95": [[repr(a), repr(b)] for a, b in self.tail_ci95],
            "events": self.events,
            "events_per_second": round(self.events_per_second),
            "backend": self.backend,
        }

    def plot(self, ax=None, fixed=None):
        from symdelay.core.display import draw

        return draw(self, ax=ax, fixed=fixed)


def _ci(values: list, lo: float = -math.inf, hi: float = math.inf) -> tuple[float, float, float]:
    """Batch mean and Student-t 95% interval, cut to ``[lo, hi]`` (the range of the value)."""
    a = np.asarray(values, dtype=float)
    m = min(max(float(a.mean()), lo), hi)  # a fraction of 1 + 1e-16 is rounding
    if a.size < 2:
        return m, float("nan"), float("nan")
    h = t975(a.size - 1) * float(a.std(ddof=1)) / math.sqrt(a.size)
    return m, max(m - h, lo), min(m + h, hi)


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
) -> SimulationResult:
    """One long run; ``warmup`` defaults to T/10; ``delay`` = ``(L, D)``: Erlang action
    delay (the job reaches the chosen server after it, see :mod:`.delayed`, Python loop);
    ``backend``: ``auto`` (the C kernel when it compiles), ``c`` or ``python`` (the twin).
    A run estimated over the time or memory budget is refused unless ``force``."""
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
    seed = as_seed(seed)
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
        kernel_for(backend)  # refuses an unknown or missing backend before estimating
        used = "c" if backend != "python" and load_c_kernel() is not None else "python"
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
    t0 = time.perf_counter()
    try:
        if delay is None:
            soj, occ, events, snaps, used = _run(
                N, d, lamf, draw, rng, T, warmup, batches, levels, backend
            )
        else:
            from symdelay.models.sqd.delayed import run_delayed

            soj, occ, events = run_delayed(N, d, lamf, draw, rng, T, warmup, batches, levels, delay)
            snaps, used = [], "python"
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
    m, lo, hi = _ci(soj, 0.0)
    tails, cis = [], []
    for k in range(levels):
        tm, tl, th = _ci([b[k] for b in occ], 0.0, 1.0)
        tails.append(tm)
        cis.append((tl, th))
    label = service.label() if isinstance(service, GeneralService) else service.kind
    while len(tails) > 1 and tails[-1] == 0:
        tails.pop()
        cis.pop()
    return SimulationResult(
        N, d, lamv, T, warmup, m, (lo, hi), tails, cis, events, seconds, batches, label, soj,
        snaps, used,
    )  # fmt: skip


def _seed_state(rng: np.random.Generator) -> np.ndarray:
    """The xoshiro256** state of a run, drawn from its numpy generator (never all zero)."""
    s = rng.integers(0, 2**64 - 1, size=4, dtype=np.uint64, endpoint=True)
    if not s.any():
        s[0] = 1
    return s


def kernel_for(backend: str):
    """``(kernel, name)`` for ``backend`` ``auto`` (C when it compiles), ``c`` or ``python``."""
    if backend not in ("auto", "c", "python"):
        raise SymdelayInputError(f"backend must be auto, c or python, got '{backend}'")
    fn = None if backend == "python" else load_c_kernel()
    if fn is None and backend == "c":
        raise SymdelayInputError("the C kernel is not available (no C compiler, or SYMDELAY_NO_C)")
    return (fn, "c") if fn is not None else (run_python, "python")


def _run(N, d, lam, draw, rng, T, warmup, batches, levels, backend="auto"):
    """Drive the kernel of :mod:`._kernel`: refill the service block, grow the node pool.

    Returns (batch mean sojourns, batch tails, events, snapshots, backend name)."""
    kernel, name = kernel_for(backend)
    state = _seed_state(rng)
    width = (T - warmup) / batches
    bounds = np.array([warmup + b * width for b in range(batches + 1)])
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
