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

The record is a :class:`~symdelay.analysis.timeseries.TimeSeries`: the scaled numbers
``x_j = X_j / n`` of the lb model (``n = sum_j N_j``) at the batch boundaries, with the
estimates (:class:`BatchEstimate`: ``p_wait``, ``mean_wait``, ``mean_queue``, ``mean_idle``,
per station ``stations``) in its ``info``. Behind the ``simulate`` entry
(:func:`specialised_simulate`) the same kernel runs the lb model on the entry's time grid.

>>> from symdelay.models.lb.policy import LBPolicy
>>> p = LBPolicy.from_text("N=20,mu=1;N=20,mu=1", xi="2")
>>> r = simulate(p, lam=36, T=200, seed=1)
>>> 0.1 < r.info["p_wait"].value < 0.6 and int(r.events.sum()) > 10000
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from symdelay.analysis.timeseries import TimeSeries
from symdelay.core.cbuild import choose_backend
from symdelay.core.checks import check_counts
from symdelay.core.errors import SymdelayInputError
from symdelay.core.result import Result
from symdelay.core.rng import seed_states
from symdelay.models.lb._kernel import NSTAT, load_c_kernel, run_python
from symdelay.models.lb.policy import LBPolicy, as_rational
from symdelay.models.sqd._budget import check_budget, count
from symdelay.models.sqd.batches import batch_interval

__all__ = [
    "simulate",
    "specialised_simulate",
    "scaled",
    "POLICIES",
    "BatchEstimate",
    "estimate_seconds",
]

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
    return BatchEstimate(*batch_interval(per_batch, point, lo, hi))


def _ratio(num: np.ndarray, den: np.ndarray, hi: float = np.inf) -> BatchEstimate:
    with np.errstate(invalid="ignore", divide="ignore"):
        per = np.where(den > 0, num / np.where(den > 0, den, 1), 0.0)
    tot = float(num.sum() / den.sum()) if den.sum() > 0 else 0.0
    return _estimate(per, tot, hi=hi)


def scaled(sim: TimeSeries) -> dict:
    """The sqrt(n)-scaled estimates of a simulation the diffusion predicts (the keys of
    :class:`~symdelay.models.lb.diffusion.LBDiffusion`)."""
    i = sim.info
    rn = float(np.sqrt(sim.parameters["n"]))
    return {
        "p_wait": i["p_wait"],
        "mean_queue_scaled": _scale(i["mean_queue"], 1 / rn),
        "mean_idle_scaled": _scale(i["mean_idle"], 1 / rn),
        "mean_delay_scaled": _scale(i["mean_wait"], rn),
        "stations": [
            {
                "idle_ratio_scaled": _scale(s["idle_ratio"], rn),
                "mean_delay_scaled": _scale(s["mean_wait"], rn),
            }
            for s in i["stations"]
        ],
    }


def _scale(x: BatchEstimate, k: float) -> BatchEstimate:
    return BatchEstimate(x.value * k, x.lo * k, x.hi * k)


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
) -> TimeSeries:
    """One path of the finite system at total arrival rate ``lam`` on ``[0, T]``: a
    :class:`~symdelay.analysis.timeseries.TimeSeries` of the scaled numbers ``x_j`` at the
    batch boundaries, the batch estimates in ``info``.

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
    if route is not None and (len(route) != J or any(not float(r) >= 0 for r in route)):
        raise SymdelayInputError(f"route needs {J} probabilities >= 0")
    X = np.array([s.N for s in policy.stations], dtype=np.int64)
    X = X if initial is None else check_counts(initial, [f"x{j + 1}" for j in range(J)])
    from symdelay.core.budget import check_memory

    check_memory(
        f"the batch statistics of {batches} batches", 8.0 * batches * J * NSTAT, force=force,
        shrink="fewer --batches",
    )  # fmt: skip
    blen = (T - warm) / batches
    acc = np.zeros((batches, J, NSTAT))
    fn = _kernel(backend)
    per_batch = float(lr) * (T - warm) / batches
    if per_batch < MIN_ARRIVALS_PER_BATCH:
        most = int(float(lr) * (T - warm) // MIN_ARRIVALS_PER_BATCH)
        raise SymdelayInputError(
            f"{batches} batches would hold about {per_batch:.3g} arrivals each; a batch needs "
            f"at least {MIN_ARRIVALS_PER_BATCH}: use at most {most} batches (--batches) or a "
            "longer --T"
        )
    check_budget(
        f"this run ({count(2 * float(lr) * T)} events: lam = {float(lr):.6g}, T = {T:g})",
        estimate_seconds(J, float(lr), T, "c" if fn is not None else "python"),
        force=force,
        shrink="--T (or the arrival rate)",
    )
    snap, counts = _run_kernel(
        fn, policy, float(lr), routing, route, X, int(seed), warm, batches, blen, acc, max_events
    )
    est = _summarise(policy, acc, blen)
    n = policy.n
    params = {"policy": policy.record(), "n": n, "lam": str(lr), "T": T, "warmup": warm}
    params.update(batches=batches, seed=int(seed), routing=routing)
    if initial is not None:
        params["initial"] = [int(v) for v in np.asarray(initial).tolist()]
    info = {**est, "backend": "c" if fn is not None else "python", "notes": []}
    bounds = np.array([warm + b * blen for b in range(batches + 1)])
    return TimeSeries(
        tuple(f"x{j + 1}" for j in range(J)), bounds, snap / float(n), params,
        kind="simulation", model_name=f"LB(xi, c, d), {J} stations", events=[int(counts[0])],
        info=info, estimates=tuple(est),
    )  # fmt: skip


def _kernel(backend: str):
    """The compiled kernel, or None for the Python twin (``backend``: auto, c, python)."""
    return choose_backend(backend, load_c_kernel)


def _run_kernel(fn, policy, lam, routing, route, X, seed, warm, batches, blen, acc, max_events):
    """Drive the kernel in chunks to the end from the counts ``X`` (``route``: the random
    routing's probabilities, default the capacity shares); ``(the counts at the batch
    boundaries, the event counters)``."""
    J = policy.J
    N = np.array([s.N for s in policy.stations], dtype=np.int64)
    mu = np.array([float(s.mu) for s in policy.stations])
    xs = sorted(policy.xi)
    xi_val = np.array(xs, dtype=np.int64)
    xi_cum = np.cumsum([float(policy.xi[k]) for k in xs])
    xi_cum[-1] = 1.0
    route = [float(r) for r in (policy.capacity_shares if route is None else route)]
    route_cum = np.cumsum(route) / sum(route)
    c = np.array([float(v) for v in policy.c])
    d = np.array([float(v) for v in policy.d])
    perm = np.arange(J, dtype=np.int64)
    rng = seed_states(np.random.default_rng(seed))
    clock = np.zeros(1)
    counts = np.zeros(3, dtype=np.int64)
    snap = np.zeros((batches + 1, J), dtype=np.int64)
    pos = np.zeros(1, dtype=np.int64)
    args = (
        J, N, mu, lam, POLICIES[routing], len(xs), xi_val, xi_cum, c, d, route_cum,
        X, perm, rng, clock, warm, batches, blen, acc, snap.reshape(-1), pos,
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
    return snap, counts


def _summarise(policy, acc, blen) -> dict:
    """The batch estimates of a run (every interval a 95 % batch-means interval)."""
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
    return {
        "p_wait": _ratio(waits.sum(axis=1), tot_arr, hi=1.0),
        "mean_wait": _ratio(wsum.sum(axis=1), tot_arr),
        "mean_queue": _estimate(queue.sum(axis=1) / blen),
        "mean_idle": _estimate(idle),
        "stations": stations,
    }


def specialised_simulate(
    model, *, eta, T, dt, initial, seed, replications, backend="auto", threads=None,
    progress=None, monitor=None, force=False, chunk_events=None,
) -> TimeSeries | None:  # fmt: skip
    """The simulate entry's specialisation for the lb model: the LB kernel (routing by the
    model's policy) on the grid ``0, dt, ..., T``, the scaled numbers ``x_j = X_j / n``.
    ``eta`` is the total number of servers ``n`` (default: the stations' own; another value
    scales every station to ``N_j = w_j eta``, which must be whole); ``initial``: whole
    counts ``X_j`` (default ``n`` times the model's start, rounded). Declines (``None``)
    while ``lam`` is symbolic."""
    from symdelay.analysis.stochastic import check_seed, replication_seeds, run_parameters
    from symdelay.core.checks import check_eta, check_horizon, check_replications, time_grid
    from symdelay.core.lazy import sympy as sp
    from symdelay.core.symbols import lam as LAM
    from symdelay.models.lb.policy import LBPolicy, Station

    if model.free_parameters:
        return None
    if threads not in (None, 1) or chunk_events is not None:
        raise SymdelayInputError(
            "the LB kernel runs one replication at a time in chunks of its own: threads and "
            "chunk_events do not apply (leave them out)"
        )
    policy = model.policy
    if eta is not None:
        n = check_eta(eta)
        sizes = [sp.Rational(s.N * n, policy.n) for s in policy.stations]
        if any(not v.is_integer for v in sizes):
            raise SymdelayInputError(
                f"eta = {n} servers cannot keep the stations' shares "
                f"{', '.join(str(w) for w in policy.shares)} in whole servers: choose a "
                f"multiple of {policy.n // np.gcd.reduce([s.N for s in policy.stations])}"
            )
        stations = tuple(Station(int(v), s.mu) for v, s in zip(sizes, policy.stations))
        policy = LBPolicy(stations, policy.xi, policy.c, policy.d)
    n, J = policy.n, policy.J
    T, dt = check_horizon(T, dt)
    R = check_replications(replications)
    rng_seed, seed_record = check_seed(seed)
    grid = time_grid(T, dt)
    lam_total = float(model.values[LAM] * n)
    if initial is None:
        X0 = np.rint(np.asarray(model.default_start(), dtype=float) * n).astype(np.int64)
    else:
        X0 = check_counts(initial, [s.name for s in model.states])
    fn = _kernel(backend)
    served = float(sum(s.N * s.mu for s in policy.stations))
    check_budget(
        f"this run (about {count(R * (lam_total + served) * T)} events: n = {n}, T = {T:g}, "
        f"{R} replication(s))",
        R * estimate_seconds(J, (lam_total + served) / 2, T, "c" if fn is not None else "python"),
        force=force,
        shrink="--T or --replications",
    )
    batches = max(grid.size - 1, 1)
    blen = float(grid[-1]) / batches
    out = np.zeros((R, grid.size, J))
    events = np.zeros(R, dtype=np.int64)
    for r, child in enumerate(replication_seeds(rng_seed, R)):
        acc = np.zeros((batches, J, NSTAT))
        snap, counts = _run_kernel(
            fn, policy, lam_total, "lb", None, X0.copy(), child, 0.0, batches, blen, acc, None
        )
        out[r] = snap[: grid.size] / float(n)
        events[r] = counts[0]
        if progress is not None:
            progress(1)
        if monitor is not None:
            monitor(float(T) * (r + 1), int(events[: r + 1].sum()))
    params = run_parameters(model)
    params.update(eta=n, T=T, dt=dt, seed=seed_record, replications=R)
    params["initial"] = X0.tolist()
    return TimeSeries(
        tuple(s.name for s in model.states), grid, out, params, kind="simulation",
        model_name=model.name, events=events,
        info={"backend": "c" if fn is not None else "python", "routing": "lb"},
    )  # fmt: skip
