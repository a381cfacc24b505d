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
``warmup`` time units (Student t, 95%).

>>> r = simulate(N=200, d=2, lam="0.5", T=200, seed=1)
>>> 1.0 < r.mean_sojourn < 1.3
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from symdelay.core.display import JsonRecord
from symdelay.core.errors import SymdelayInputError
from symdelay.models.phase_type import PhaseType
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
from symdelay.models.sqd.fixed_point import as_lam, exact_text
from symdelay.models.sqd.meanfield import as_d
from symdelay.models.sqd.service import GeneralService, exponential, ph_sampler

__all__ = ["SimulationResult", "simulate", "service_draw", "as_N", "t975", "kernel_for"]

#: Service times drawn per numpy block.
BLOCK = 1 << 16
#: Initial node pool: POOL_PER_SERVER * N + POOL_EXTRA departure times (doubled on demand).
POOL_PER_SERVER, POOL_EXTRA = 4, 64


def t975(dof: int) -> float:
    """Student-t 97.5% quantile."""
    from scipy.stats import t

    return float(t.ppf(0.975, dof))


def as_N(N, d: int) -> int:
    try:
        v = int(str(N))
    except ValueError:
        raise SymdelayInputError(f"N must be an integer, got '{N}'") from None
    if v < d:
        raise SymdelayInputError(f"N = {v} < d = {d}: need at least d servers to sample from")
    return v


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
class SimulationResult(JsonRecord):
    """Mean sojourn time with a 95% CI (batch means), time-average tails ``s_k`` with CIs."""

    N: int
    d: int
    lam: object
    T: float
    warmup: float
    mean_sojourn: float
    ci95: tuple
    tail: list
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

    def to_json(self) -> dict:
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


def _ci(values: list) -> tuple[float, float, float]:
    a = np.asarray(values, dtype=float)
    m = float(a.mean())
    if a.size < 2:
        return m, float("nan"), float("nan")
    h = t975(a.size - 1) * float(a.std(ddof=1)) / math.sqrt(a.size)
    return m, m - h, m + h


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
) -> SimulationResult:
    """One long run; ``warmup`` defaults to T/10; ``delay`` = ``(L, D)``: Erlang action
    delay (the job reaches the chosen server after it, see :mod:`.delayed`, Python loop);
    ``backend``: ``auto`` (the C kernel when it compiles), ``c`` or ``python`` (the twin)."""
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
    if not T > 0 or not 0 <= warmup < T:
        raise SymdelayInputError(f"need T > 0 and 0 <= warmup < T, got T={T}, warmup={warmup}")
    batches = int(batches)
    if batches < 2:
        raise SymdelayInputError("need at least 2 batches for a confidence interval")
    levels = int(levels) if levels is not None else 40
    rng = np.random.default_rng(seed)
    draw = service_draw(service, rng)
    lamf = float(lamv)
    t0 = time.perf_counter()
    if delay is None:
        soj, occ, events, snaps, used = _run(
            N, d, lamf, draw, rng, T, warmup, batches, levels, backend
        )
    else:
        from symdelay.models.sqd.delayed import run_delayed

        soj, occ, events = run_delayed(N, d, lamf, draw, rng, T, warmup, batches, levels, delay)
        snaps, used = [], "python"
    seconds = time.perf_counter() - t0
    m, lo, hi = _ci(soj)
    tails, cis = [], []
    for k in range(levels):
        tm, tl, th = _ci([b[k] for b in occ])
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


def _finish(soj_sum, soj_n, occ_batches, levels, N, width, events):
    soj = [s / n for s, n in zip(soj_sum, soj_n) if n]
    tails = []
    for occ in occ_batches:
        frac = [v / (N * width) for v in occ]
        # s_k = fraction of time-servers with length >= k, k = 1..levels
        acc, tail = 0.0, [0.0] * levels
        for k in range(levels, 0, -1):
            acc += frac[k]
            tail[k - 1] = acc
        tails.append(tail)
    return soj, tails, events
