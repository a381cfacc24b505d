"""Exact discrete-event simulation of the N-server SQ(d) system with any service law.

Arrivals are Poisson(lam N); each samples d servers uniformly with replacement and joins the
first sampled server of least length (sample positions are exchangeable, so this is a
uniform tie-break among the tied samples); each server is FCFS. The service time is drawn
from the true distribution (a :class:`~symdelay.sqd.service.GeneralService` or a
:class:`~symdelay.models.phase_type.PhaseType`).

Event loop. Under FCFS a job's departure time is known when it arrives
(``max(free_at, t) + service``), so no departure needs to be scheduled in a global heap:
every server keeps its jobs' departure times in a FIFO, and a server's length is brought up
to date lazily, only when it is sampled (its departures before ``t`` are popped). Random
numbers come from numpy in blocks. The time-average tail ``s_k`` is accumulated exactly per
server (time spent at each length), flushed at batch ends. Every arrival and every
departure (before T) is one event, as in the SimPy peer.

Confidence intervals: batch means over ``batches`` equal batches after a warm-up of
``warmup`` time units (Student t, 95%).

>>> r = simulate(N=200, d=2, lam="0.5", T=200, seed=1)
>>> 1.0 < r.mean_sojourn < 1.3
True
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from ..display import JsonRecord
from ..errors import SymdelayInputError
from ..models.phase_type import PhaseType
from .fixed_point import as_lam, exact_text
from .meanfield import as_d
from .service import GeneralService, exponential, ph_sampler

__all__ = ["SimulationResult", "simulate", "service_draw", "as_N", "t975"]

#: Random numbers drawn per numpy block.
BLOCK = 1 << 16


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
        }

    def plot(self, ax=None, fixed=None):
        from ..outputs.plots_sqd import plot_simulation

        return plot_simulation(self, ax=ax, fixed=fixed)


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
) -> SimulationResult:
    """One long run; ``warmup`` defaults to T/10; ``delay`` = ``(L, D)``: Erlang action
    delay (the job reaches the chosen server after it, see :mod:`.delayed`)."""
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
        out = _run(N, d, lamf, draw, rng, T, warmup, batches, levels)
    else:
        from .delayed import run_delayed

        out = run_delayed(N, d, lamf, draw, rng, T, warmup, batches, levels, delay)
    seconds = time.perf_counter() - t0
    soj, occ, events = out
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
        N, d, lamv, T, warmup, m, (lo, hi), tails, cis, events, seconds, batches, label, soj
    )


def _run(N, d, lam, draw, rng, T, warmup, batches, levels):
    """The event loop. Returns (batch mean sojourns, batch tails, events)."""
    rate = lam * N
    queues = [deque() for _ in range(N)]  # departure times, FIFO
    free_at = [0.0] * N
    last = [warmup] * N  # time of the last length change seen by the accounting
    occ = [0.0] * (levels + 1)  # time * servers at each length (capped), current batch
    width = (T - warmup) / batches
    bounds = [warmup + (b + 1) * width for b in range(batches)]
    soj_sum = [0.0] * batches
    soj_n = [0] * batches
    occ_batches = []
    events = 0
    t = 0.0
    b = -1  # batch index (-1: warm-up)
    next_bound = warmup
    cap = levels
    while True:
        gaps = rng.exponential(1.0 / rate, BLOCK).tolist()
        picks = rng.integers(0, N, (BLOCK, d)).tolist()
        serv = draw(BLOCK).tolist()
        for n in range(BLOCK):
            t += gaps[n]
            while t >= next_bound:
                # flush every server up to the boundary, close the batch
                tb = next_bound
                for i in range(N):
                    q = queues[i]
                    while q and q[0] <= tb:
                        dep = q.popleft()
                        events += 1
                        if b >= 0:
                            L = len(q) + 1
                            occ[L if cap > L else cap] += dep - last[i]
                        last[i] = dep
                    if b >= 0:
                        L = len(q)
                        occ[L if cap > L else cap] += tb - last[i]
                    last[i] = tb
                if b >= 0:
                    occ_batches.append(occ)
                    occ = [0.0] * (levels + 1)
                b += 1
                if b >= batches:
                    return _finish(soj_sum, soj_n, occ_batches, levels, N, width, events)
                next_bound = bounds[b]
            best, bl = -1, 1 << 62
            for i in picks[n]:
                q = queues[i]
                while q and q[0] <= t:
                    dep = q.popleft()
                    events += 1
                    if b >= 0:
                        L = len(q) + 1
                        occ[L if cap > L else cap] += dep - last[i]
                        last[i] = dep
                if len(q) < bl:
                    bl, best = len(q), i
            q = queues[best]
            if b >= 0:
                L = len(q)
                occ[L if cap > L else cap] += t - last[best]
                last[best] = t
            f = free_at[best]
            dep = (f if f > t else t) + serv[n]
            free_at[best] = dep
            q.append(dep)
            events += 1
            if b >= 0:
                soj_sum[b] += dep - t
                soj_n[b] += 1


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
