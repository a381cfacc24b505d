"""Exact simulation of the finite LB(xi, c, d) system, with batch-means confidence intervals.

One long path of the continuous-time Markov chain (Gillespie, no approximation) from
``X_j = N_j`` (every server busy, no queue: the centre of the Halfin–Whitt regime), a
warm-up of ``warmup`` time units, then ``batches`` batches of equal length; 95 % intervals are
Student-t intervals over the batch values. The same kernel runs the comparison policies:
random routing, power-of-d on the number at each station, JSQ (power-of-J).

An interval of a quantity with a range (a utilisation, a probability, a share: [0, 1]; a
mean wait, queue or idleness: [0, oo)) is cut to that range: the quantity lies in it, so the
cut interval covers it whenever the Student-t one does.

Cost. The expected number of events (``2 lam T``: each arrival and its departure) is
estimated before the run, at :data:`SPEED` events per second (slower with many stations), and
a run over the budget of :mod:`symdelay.models.sqd._budget` is refused unless ``force``.

>>> from symdelay.models.lb.policy import LBPolicy
>>> p = LBPolicy.from_text("N=20,mu=1;N=20,mu=1", xi="2")
>>> r = simulate(p, lam=36, T=200, seed=1)
>>> 0.1 < r.p_wait.value < 0.6 and r.events > 10000
True
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result
from symdelay.models.lb._kernel import NSTAT, load_c_kernel, run_python
from symdelay.models.lb.policy import LBPolicy, as_rational
from symdelay.models.sqd._budget import check_budget, check_memory, count

__all__ = ["simulate", "LBSimulation", "POLICIES", "BatchEstimate", "estimate_seconds"]

#: Routing policies the simulator runs: name -> kernel code.
POLICIES = {"lb": 0, "shortest": 1, "random": 2}

_CHUNK = 5_000_000
#: Events per second of one core with few stations (C kernel, Python twin); an event costs
#: about ``1 + J / 100`` times more with J stations (measured: 2e6/s at J = 2, 6e5/s at 200).
SPEED = {"c": 2e6, "python": 5e4}
#: A batch must expect at least this many arrivals.
MIN_ARRIVALS_PER_BATCH = 10


def estimate_seconds(J: int, lam: float, T: float, backend: str = "c") -> float:
    """Rough single-core time of a run: ``2 lam T`` events at :data:`SPEED`."""
    return 2.0 * float(lam) * float(T) * (1 + J / 100) / SPEED[backend]


@dataclass(frozen=True)
class BatchEstimate(Result):
    """A point estimate with its 95 % batch-means interval."""

    value: float
    lo: float
    hi: float

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    def covers(self, x, slack: float = 0.0) -> bool:
        return self.lo - slack <= float(x) <= self.hi + slack


def _estimate(
    per_batch: np.ndarray, point: float | None = None, lo: float = 0.0, hi: float = np.inf
) -> BatchEstimate:
    """Point value and Student-t 95 % interval over the batches, cut to ``[lo, hi]`` (the
    range of the quantity: every quantity estimated here is >= 0)."""
    from scipy.stats import t as student

    v = np.asarray(per_batch, dtype=float)
    m = float(np.mean(v)) if point is None else float(point)
    m = min(max(m, lo), hi)  # a busy fraction of 1 + 1e-16 is rounding
    if len(v) < 2:
        return BatchEstimate(m, float("nan"), float("nan"))
    h = float(student.ppf(0.975, len(v) - 1) * np.std(v, ddof=1) / np.sqrt(len(v)))
    return BatchEstimate(m, max(m - h, lo), min(m + h, hi))


def _ratio(num: np.ndarray, den: np.ndarray, hi: float = np.inf) -> BatchEstimate:
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)
    tot = float(num.sum() / den.sum()) if den.sum() > 0 else 0.0
    return _estimate(per, tot, hi=hi)


@dataclass
class LBSimulation(Result):
    """Estimates of one run (every interval is a 95 % batch-means interval)."""

    policy: LBPolicy
    routing: str
    lam: sp.Rational
    T: float
    warmup: float
    seed: int
    events: int
    backend: str
    p_wait: BatchEstimate
    mean_wait: BatchEstimate
    mean_queue: BatchEstimate
    mean_idle: BatchEstimate
    stations: list
    batches: int
    notes: list = field(default_factory=list)

    @property
    def n(self) -> int:
        return self.policy.n

    def scaled(self) -> dict:
        """The sqrt(n)-scaled estimates the diffusion predicts (same keys as LBDiffusion)."""
        rn = float(np.sqrt(self.n))
        return {
            "p_wait": self.p_wait,
            "mean_queue_scaled": _scale(self.mean_queue, 1 / rn),
            "mean_idle_scaled": _scale(self.mean_idle, 1 / rn),
            "mean_delay_scaled": _scale(self.mean_wait, rn),
            "stations": [
                {
                    "idle_ratio_scaled": _scale(s["idle_ratio"], rn),
                    "mean_delay_scaled": _scale(s["mean_wait"], rn),
                }
                for s in self.stations
            ],
        }

    def record(self) -> dict:
        def e(x: BatchEstimate):
            return repr(x.value)

        def ci(x: BatchEstimate):
            return [repr(x.lo), repr(x.hi)]

        return {
            "p_wait": e(self.p_wait),
            "p_wait_ci95": ci(self.p_wait),
            "mean_wait": e(self.mean_wait),
            "mean_wait_ci95": ci(self.mean_wait),
            "mean_queue": e(self.mean_queue),
            "mean_queue_ci95": ci(self.mean_queue),
            "mean_idle": e(self.mean_idle),
            "mean_idle_ci95": ci(self.mean_idle),
            "stations": [
                {k: (e(v) if isinstance(v, BatchEstimate) else v) for k, v in s.items()}
                | {
                    f"{k}_ci95": ci(v)
                    for k, v in s.items()
                    if isinstance(v, BatchEstimate) and k in ("utilisation", "mean_wait")
                }
                for s in self.stations
            ],
            "events": self.events,
            "lam": str(self.lam),
            "n": self.n,
            "T": self.T,
            "warmup": self.warmup,
            "batches": self.batches,
            "seed": self.seed,
            "routing": self.routing,
            "backend": self.backend,
            "policy": self.policy.to_json(),
            "notes": list(self.notes),
        }


def _scale(x: BatchEstimate, k: float) -> BatchEstimate:
    return BatchEstimate(x.value * k, x.lo * k, x.hi * k)


def _seed_state(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    s = rng.integers(0, 2**64 - 1, size=4, dtype=np.uint64, endpoint=True)
    if not s.any():
        s[0] = 1
    return s


def simulate(
    policy: LBPolicy,
    lam,
    T=1000.0,
    *,
    seed: int = 1,
    warmup=None,
    batches: int = 20,
    routing: str = "lb",
    route=None,
    initial=None,
    backend: str = "auto",
    max_events: int | None = 2_000_000_000,
    force: bool = False,
) -> LBSimulation:
    """One path of the finite system at arrival rate ``lam`` on ``[0, T]``.

    ``routing``: ``"lb"`` (the policy's xi, c, d), ``"shortest"`` (the policy's xi stations
    sampled, the one with the fewest customers joined), ``"random"`` (station j with
    probability ``route[j]``, default the capacity shares ``N_j mu_j / sum N_i mu_i``).
    ``warmup`` defaults to ``T/10``; the ``batches`` batches split ``[warmup, T]``.
    ``backend``: ``"auto"`` (C when it compiles), ``"c"`` or ``"python"`` (the twin).
    A run estimated over the time budget is refused unless ``force``.
    """
    lr = as_rational("lam", lam)
    if not lr < policy.capacity:
        raise SymdelayInputError(
            f"lam = {lam} is at or beyond capacity sum N_j mu_j = {policy.capacity}: "
            "the system has no stationary regime; lower lam"
        )
    try:
        T = float(T)
    except (TypeError, ValueError):
        raise SymdelayInputError(f"T must be a number, got {T!r}") from None
    if not (np.isfinite(T) and T > 0):
        raise SymdelayInputError(f"T must be a positive finite time, got {T}")
    warm = T / 10 if warmup is None else float(warmup)
    if not (np.isfinite(warm) and 0 <= warm < T):
        raise SymdelayInputError(f"warmup must be in [0, T), got {warmup}")
    if isinstance(batches, bool) or not isinstance(batches, (int, np.integer)) or batches < 2:
        raise SymdelayInputError(f"batches must be a whole number >= 2, got {batches!r}")
    if routing not in POLICIES:
        raise SymdelayInputError(f"routing must be one of {', '.join(POLICIES)}, got {routing!r}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SymdelayInputError(f"seed must be a whole number >= 0, got {seed!r}")
    J = policy.J
    N = np.array([s.N for s in policy.stations], dtype=np.int64)
    mu = np.array([float(s.mu) for s in policy.stations])
    xs = sorted(policy.xi)
    xi_val = np.array(xs, dtype=np.int64)
    xi_cum = np.cumsum([float(policy.xi[k]) for k in xs])
    xi_cum[-1] = 1.0
    if route is None:
        route = policy.capacity_shares
    if len(route) != J or any(not float(r) >= 0 for r in route):
        raise SymdelayInputError(f"route needs {J} probabilities >= 0")
    route_cum = np.cumsum([float(r) for r in route]) / float(sum(float(r) for r in route))
    c = np.array([float(v) for v in policy.c])
    d = np.array([float(v) for v in policy.d])
    X = N.copy() if initial is None else np.array(initial, dtype=np.int64)
    if X.shape != (J,) or np.any(X < 0):
        raise SymdelayInputError(f"initial needs {J} whole numbers >= 0")
    perm = np.arange(J, dtype=np.int64)
    rng = _seed_state(int(seed))
    clock = np.zeros(1)
    blen = (T - warm) / batches
    acc = np.zeros((batches, J, NSTAT))
    counts = np.zeros(3, dtype=np.int64)
    fn = None if backend == "python" else load_c_kernel()
    if backend == "c" and fn is None:
        raise SymdelayInputError("the C backend is not available (no working C compiler?)")
    if backend not in ("auto", "c", "python"):
        raise SymdelayInputError(f"backend must be auto, c or python, got {backend!r}")
    per_batch = float(lr) * (T - warm) / batches
    if per_batch < MIN_ARRIVALS_PER_BATCH:
        most = int(float(lr) * (T - warm) // MIN_ARRIVALS_PER_BATCH)
        raise SymdelayInputError(
            f"{batches} batches would hold about {per_batch:.3g} arrivals each; a batch needs "
            f"at least {MIN_ARRIVALS_PER_BATCH}: use at most {most} batches (--batches) or a "
            "longer --T"
        )
    check_memory(
        f"{batches} batches of {J} stations",
        8.0 * batches * J * NSTAT,
        force=force,
        shrink="--batches",
    )
    check_budget(
        f"this run ({count(2 * float(lr) * T)} events: lam = {float(lr):.6g}, T = {T:g})",
        estimate_seconds(J, float(lr), T, "c" if fn is not None else "python"),
        force=force,
        shrink="--T (or the arrival rate)",
    )
    args = (
        J, N, mu, float(lr), POLICIES[routing], len(xs), xi_val, xi_cum, c, d, route_cum,
        X, perm, rng, clock, warm, batches, blen, acc,
    )  # fmt: skip
    done = False
    while not done:
        left = None if max_events is None else max_events - int(counts[0])
        if left is not None and left <= 0:
            raise SymdelayInputError(
                f"more than {max_events} events: shorten T or raise max_events"
            )
        chunk = _CHUNK if left is None else min(_CHUNK, left)
        runner = fn if fn is not None else run_python
        status = runner(*args, counts, chunk)
        done = status == 0
    return _summarise(
        policy, routing, lr, T, warm, int(seed), int(counts[0]), fn, acc, blen, batches
    )


def _summarise(policy, routing, lam, T, warm, seed, events, fn, acc, blen, batches):
    N = np.array([s.N for s in policy.stations], dtype=float)
    busy, queue, arr, waits, wsum = (acc[:, :, k] for k in range(NSTAT))
    stations = []
    tot_arr = arr.sum(axis=1)
    for j, s in enumerate(policy.stations):
        util = _estimate(busy[:, j] / (blen * N[j]), hi=1.0)
        stations.append(
            {
                "N": s.N,
                "mu": str(s.mu),
                "utilisation": util,
                "idle_ratio": BatchEstimate(1 - util.value, 1 - util.hi, 1 - util.lo),
                "mean_queue": _estimate(queue[:, j] / blen),
                "p_wait": _ratio(waits[:, j], arr[:, j], hi=1.0),
                "mean_wait": _ratio(wsum[:, j], arr[:, j]),
                "arrival_share": _ratio(arr[:, j], tot_arr, hi=1.0),
            }
        )
    idle = (N[None, :] * blen - busy).sum(axis=1) / blen
    return LBSimulation(
        policy=policy,
        routing=routing,
        lam=lam,
        T=T,
        warmup=warm,
        seed=seed,
        events=events,
        backend="c" if fn is not None else "python",
        p_wait=_ratio(waits.sum(axis=1), tot_arr, hi=1.0),
        mean_wait=_ratio(wsum.sum(axis=1), tot_arr),
        mean_queue=_estimate(queue.sum(axis=1) / blen),
        mean_idle=_estimate(idle),
        stations=stations,
        batches=batches,
    )
