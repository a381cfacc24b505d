"""Exact simulation of the Markov jump process of docs/model.md (Gillespie direct method).

State ``(Q1, Q2, Z_{1,1..L}, Z_{2,1..L})``; an arrival (rate ``2 eta lam``) is routed to
server i with the logit probability of the current scaled queues, goes through ``L``
exponential phases of rate ``gamma = L/D`` and is then served at rate ``mu``. Every jump is
simulated (no tau-leaping). The paths are recorded on the grid ``0, dt, ..., n dt``
(``n = floor(T/dt)``) as the state at each grid time (right-continuous: events at a grid time
are included), scaled by ``1/eta``.

The kernel is a small C function compiled at first use (see :mod:`._kernel`); when no C
compiler is available a pure-Python twin making the very same random draws runs instead.
Replications run in parallel threads (the kernel releases the GIL); each has its own
xoshiro256** stream seeded from a NumPy ``Generator``, so results do not depend on the
number of threads.

>>> r = simulate(L=1, eta=50, T=1, dt=0.5, seed=3)
>>> r.t.tolist(), float(r.q2[0])
([0.0, 0.5, 1.0], 1.0)
>>> r["events"] == int(r.transition_counts.sum())
True
"""

from __future__ import annotations

import math
import numbers
import os
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from functools import partial

import numpy as np

from symdelay.analysis.stochastic import Simulation
from symdelay.core.budget import DEFAULT_SECONDS, Budget, check_budget
from symdelay.core.checks import (
    check_eta,
    check_horizon,
    check_rates,
    check_replications,
    time_grid,
)
from symdelay.core.errors import SymdelayInputError
from symdelay.models.erlang.stochastic import _kernel

__all__ = [
    "simulate",
    "specialised_simulate",
    "Simulation",
    "default_initial_state",
    "check_initial_state",
    "check_seed",
    "estimate_events",
    "estimate_seconds",
    "TIME_LIMIT",
]


def default_initial_state(L: int, eta: int) -> np.ndarray:
    """The paper's start: ``Q1 = 0``, ``Q2 = eta``, all delay phases empty."""
    s = np.zeros(2 + 2 * L, dtype=np.int64)
    s[1] = eta
    return s


def check_initial_state(initial, L: int) -> np.ndarray:
    """Validate a custom initial state: ``2(L+1)`` integer counts >= 0.

    Order: ``Q1, Q2, Z_{1,1}..Z_{1,L}, Z_{2,1}..Z_{2,L}``.
    """
    try:
        arr = np.asarray(initial, dtype=float)
    except (TypeError, ValueError):
        raise SymdelayInputError(
            f"initial must be a list of 2(L+1) = {2 * L + 2} job counts, got {initial!r}"
        ) from None
    if arr.ndim != 1 or arr.size != 2 * L + 2:
        raise SymdelayInputError(
            f"initial must have 2(L+1) = {2 * L + 2} entries (Q1, Q2, Z1_1..Z1_L, Z2_1..Z2_L) "
            f"for L={L}, got {arr.size}"
        )
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
        raise SymdelayInputError("initial must contain whole job counts (integers >= 0)")
    if np.any(arr < 0):
        raise SymdelayInputError(
            f"initial must contain job counts >= 0, got a negative count {arr.min():g}"
        )
    if np.any(arr > 2**52):
        raise SymdelayInputError("initial counts must be below 2^52")
    return arr.astype(np.int64)


#: Events per second and core for small L, roughly (a phase step scans the 2L delay
#: counts, so at large L an event costs :func:`event_cost` times more).
SPEED = {"c": 1e7, "python": 1e5}
#: Runs estimated to take longer than this (seconds of one core) are refused unless forced
#: (the shared budget of :mod:`symdelay.core.budget`).
TIME_LIMIT = DEFAULT_SECONDS
#: Kernel calls last about this long (seconds): between calls the run checks for Ctrl-C and
#: reports progress. The chunking never changes a result (the kernel resumes exactly).
CHUNK_SECONDS = 0.1


def event_cost(L: int) -> float:
    """Cost of one event relative to small L (the phase scan is O(L))."""
    return 1.0 + L / 80.0


def estimate_seconds(events: float, L: int, backend: str = "c") -> float:
    """Rough single-core running time of ``events`` events."""
    return events * event_cost(L) / SPEED[backend]


def check_seed(seed):
    """``(value for numpy.random.default_rng, value to record)``.

    An integer >= 0 (or its decimal text), a ``SeedSequence`` or a ``Generator``; ``None``
    draws fresh entropy from the operating system and records it, so the run can be repeated.
    """
    if isinstance(seed, np.random.Generator):
        return seed, None
    if isinstance(seed, np.random.SeedSequence):
        return seed, _seed_sequence_record(seed)
    if seed is None:
        ss = np.random.SeedSequence()
        return ss, int(ss.entropy)
    msg = f"seed must be an integer >= 0, got {seed!r}"
    if isinstance(seed, bool):
        raise SymdelayInputError(msg)
    if isinstance(seed, str):
        try:
            seed = int(seed.strip())
        except ValueError:
            raise SymdelayInputError(msg) from None
    if isinstance(seed, float) and seed.is_integer():
        seed = int(seed)
    if isinstance(seed, np.integer):
        seed = int(seed)
    if not isinstance(seed, numbers.Integral) or seed < 0:
        raise SymdelayInputError(msg)
    return int(seed), int(seed)


def _seed_sequence_record(ss: np.random.SeedSequence):
    if not ss.spawn_key:
        return int(ss.entropy)
    return {"entropy": int(ss.entropy), "spawn_key": [int(k) for k in ss.spawn_key]}


def estimate_events(L, eta, mu, lam, D, T, replications=1, initial=None) -> float:
    """An upper estimate of the expected number of events of :func:`simulate`.

    The totals (jobs in each delay phase, in service) do not depend on the routing, so
    neither does the expected number of events: each arrival (rate ``2 eta lam``) is one
    event, then makes at most ``min(L, gamma u)`` phase steps in the time ``u`` left
    (on average) and at most one service completion. Jobs present at the start add at most
    their remaining steps. Exact to leading order when ``T`` is much longer than ``D + 1/mu``.

    >>> f"{estimate_events(2, 10**6, 1, 1, 1, 100):.3g}"  # about (L + 2) * 2 eta lam T
    '7.99e+08'
    """
    L, eta, mu, lam, D, T = int(L), float(eta), float(mu), float(lam), float(D), float(T)
    gamma = L / D
    phase = gamma * T * T / 2 if gamma * T <= L else L * (T - D / 2)  # int_0^T min(L, gamma u)
    per_rep = 2 * eta * lam * (T + phase + T)
    if initial is not None:
        init = np.asarray(initial, dtype=float)
        per_rep += float(init[:2].sum()) * min(1.0, mu * T)
        z = init[2:].reshape(2, L).sum(axis=0)  # phase ell = 1..L
        steps = np.minimum(L - np.arange(L), gamma * T) + 1
        per_rep += float(z @ steps)
    else:
        per_rep += eta * min(1.0, mu * T)
    return per_rep * int(replications)


def simulate(
    L=2,
    eta=1000,
    mu=1,
    lam=1,
    theta=2,
    D=1,
    T=20,
    seed=1,
    dt=0.1,
    replications=1,
    initial=None,
    *,
    backend: str = "auto",
    threads: int | None = None,
    progress: Callable[[int], None] | None = None,
    monitor: Callable[[float, int], None] | None = None,
    force: bool = False,
    chunk_events: int | None = None,
    kappa=None,
    method: str = "auto",
) -> Simulation:
    """The founding model's simulation, :func:`symdelay.analysis.stochastic.simulate` of
    ``model(L, mu, lam, theta, D)`` (``kappa=``: the ``inflight`` model with those
    in-flight weights). ``initial`` is job counts ``Q1, Q2, Z1_1..Z1_L, Z2_1..Z2_L``
    (default ``Q2 = eta``, the rest 0; for ``kappa=`` the inflight model's start)."""
    from symdelay.analysis.stochastic import simulate as entry

    kw = dict(
        eta=eta, T=T, dt=dt, initial=initial, seed=seed, replications=replications,
        backend=backend, threads=threads, progress=progress, monitor=monitor, force=force,
        chunk_events=chunk_events, method=method,
    )  # fmt: skip
    return entry(_founding_or_inflight(L, mu, lam, theta, D, kappa), **kw)


def _founding_or_inflight(L, mu, lam, theta, D, kappa=None):
    """The founding model of the loose arguments (checked as the founding functions check
    them), or with ``kappa`` the ``inflight`` model (as ``kappa=`` has always meant)."""
    from symdelay.models import build_model

    if kappa is not None:
        if isinstance(D, (list, tuple)):
            if len(D) != 1:
                raise SymdelayInputError(f"kappa= takes one delay D, got {len(D)}")
            D = D[0]
        if str(L).strip().lower() in ("inf", "oo"):
            raise SymdelayInputError(
                "kappa= needs a finite L (for L = inf see "
                "symdelay.models.inflight.kappa_star_limit)"
            )
        weights = list(kappa) if isinstance(kappa, (list, tuple)) else kappa
        return build_model("inflight", L=int(L), kappa=weights, mu=mu, lam=lam, theta=theta, D=D)
    p = check_rates(L, mu, lam, theta, D)
    return build_model("erlang", **{k: p[k] for k in ("L", "mu", "lam", "theta", "D")})


def specialised_simulate(
    model, *, eta, T, dt, initial, seed, replications, backend="auto", threads=None,
    progress=None, monitor=None, force=False, chunk_events=None,
) -> Simulation | None:  # fmt: skip
    """The founding model's hand-written kernel (:mod:`._kernel`): exact paths on
    ``[0, T]``. Declines (``None``) where the model leaves a parameter symbolic.

    ``seed`` is an integer >= 0, a ``SeedSequence`` or a ``Generator`` (see
    :func:`check_seed`). ``initial`` is ``2(L+1)`` integer counts
    ``Q1, Q2, Z1_1..Z1_L, Z2_1..Z2_L`` (default: ``Q2 = eta``, the rest 0).
    ``backend``: ``"auto"`` (C if it compiles, else Python), ``"c"`` or ``"python"``.
    ``progress`` is called with 1 after each finished replication; ``monitor`` is called in
    the calling thread, while the kernel runs, with the simulated time summed over the
    replications and the number of events so far. A run whose :func:`estimate_events`
    would take more than ``TIME_LIMIT`` seconds (:func:`estimate_seconds`) is refused unless
    ``force``. The kernel runs in chunks of ``chunk_events`` events (default: about
    ``CHUNK_SECONDS`` of work; Ctrl-C stops it between chunks); the result does not depend
    on the chunk size or the number of ``threads``.
    """
    o = model.options
    if model.infinite or any(o[k] is None for k in ("mu", "lam", "theta", "D")):
        return None
    L, mu, lam, theta, D = (o[k] for k in ("L", "mu", "lam", "theta", "D"))
    p = check_rates(L, mu, lam, theta, D)
    L = p["L"]
    eta = check_eta(eta)
    T, dt = check_horizon(T, dt)
    R = check_replications(replications)
    rng_seed, seed_record = check_seed(seed)
    init = default_initial_state(L, eta) if initial is None else check_initial_state(initial, L)
    grid = time_grid(T, dt)
    d = 2 + 2 * L
    if R * grid.size * d > 250_000_000:
        raise SymdelayInputError(
            "the recorded paths would exceed 2 GB: use fewer replications or a larger dt"
        )
    if backend not in ("auto", "c", "python"):
        raise SymdelayInputError(f"backend must be 'auto', 'c' or 'python', got {backend!r}")
    args = tuple(
        float(v) for v in (eta, p["lam"], p["mu"], p["gamma"], p["theta"])
    )  # eta, lam, mu, gamma, theta
    _check_double_range(args, init, p, T)
    fn = None if backend == "python" else _kernel.load_c_kernel()
    if backend == "c" and fn is None:
        raise SymdelayInputError("the C simulation kernel is not available (no C compiler?)")
    used = "c" if fn is not None else "python"
    expected = estimate_events(L, eta, args[2], args[1], float(p["D"]), T, R, init)
    seconds = estimate_seconds(expected, L, used)
    check_budget(
        f"this run (about {expected:.2g} events; eta={eta}, T={T:g}, L={L}, {R} replication(s))",
        seconds,
        force=force,
        shrink="a smaller eta, T or number of replications (Ctrl-C stops a forced run)",
        budget=Budget(seconds=TIME_LIMIT),
    )
    if chunk_events is None:
        chunk_events = max(1, int(CHUNK_SECONDS * SPEED[used] / event_cost(L)))
    if isinstance(chunk_events, bool) or not isinstance(chunk_events, numbers.Integral):
        raise SymdelayInputError(f"chunk_events must be an integer >= 1, got {chunk_events!r}")
    if chunk_events < 1:
        raise SymdelayInputError(f"chunk_events must be an integer >= 1, got {chunk_events!r}")
    chunk = int(min(chunk_events, 2**62))
    rng = np.random.default_rng(rng_seed)
    states = rng.integers(0, 2**64 - 1, size=(R, 4), dtype=np.uint64, endpoint=True)
    states[np.all(states == 0, axis=1), 0] = 1  # xoshiro must not start at 0
    out = np.zeros((R, grid.size, d), dtype=np.int64)
    counts = np.zeros((R, 4), dtype=np.int64)
    events = np.zeros(R, dtype=np.int64)
    final = np.tile(init, (R, 1))
    clock = np.zeros(R, dtype=np.float64)  # time of the last event of each replication
    pos = np.zeros(R, dtype=np.int64)  # next grid index to record
    ng = grid.size
    kernel = _kernel.run_python if fn is None else partial(_kernel.run_c, fn)

    def advance(i: int) -> None:
        """One chunk of replication ``i`` (rows of the arrays are contiguous views)."""
        events[i] += kernel(
            L, *args, final[i], states[i], grid, out[i], counts[i],
            clock[i : i + 1], pos[i : i + 1], chunk,
        )  # fmt: skip

    def report() -> None:
        if monitor is not None:
            done = np.where(pos >= ng, T, np.minimum(clock, T))
            monitor(float(done.sum()), int(events.sum()))

    nthreads = threads or min(R, os.cpu_count() or 1)
    if fn is None or nthreads <= 1 or R == 1:
        for i in range(R):
            while pos[i] < ng:
                advance(i)
                report()
            if progress is not None:
                progress(1)
    else:
        _run_threads(R, nthreads, advance, pos, ng, report, progress)
    params = {k: p[k] for k in ("mu", "lam", "theta", "D", "gamma")}
    run = {"L": L, "eta": eta, **{k: str(v) for k, v in params.items()}}
    run.update({"T": T, "dt": dt, "seed": seed_record, "replications": R})
    run.update({"initial": init.tolist(), "backend": used})
    states = ("q1", "q2", *(f"z{i}_{l}" for i in (1, 2) for l in range(1, L + 1)))
    return Simulation(
        model_name=model.name,
        states=states,
        eta=eta,
        t=grid,
        paths=out / float(eta),
        events_per_replication=events,
        seed=seed_record,
        parameters=params,
        run=run,
        L=L,
        transition_counts=counts,
        initial=init,
        backend=used,
        final_counts=final,
        T=T,
        dt=dt,
    )


def _check_double_range(args, init, p, T) -> None:
    """The kernel works in doubles: every rate and a bound on the total rate must be finite."""
    eta, lam, mu, gamma, _ = args
    a = 2 * eta * lam
    top = a + (gamma + mu) * (float(np.sum(init)) + 2 * a * T + 10)
    if not (mu > 0 and gamma > 0 and lam > 0 and math.isfinite(top)):
        import mpmath

        from symdelay.core.params import exact_decimal

        def show(v):  # as the user wrote it (1e+308), never a 309-digit integer
            text = exact_decimal(v) or str(v)
            return text if len(text) <= 40 else mpmath.nstr(mpmath.mpf(v.p) / v.q, 6)

        raise SymdelayInputError(
            f"the rates mu={show(p['mu'])}, lam={show(p['lam'])}, gamma=L/D={show(p['gamma'])} "
            f"(with eta={eta:g}) "
            "are outside the range of double precision: choose values nearer 1"
        )


def _run_threads(R, nthreads, advance, pos, ng, report, progress) -> None:
    """Replications in worker threads; the calling thread reports progress and, on Ctrl-C
    (or any error), tells the workers to stop after their current chunk and waits for them."""
    stop = threading.Event()

    def work(i: int) -> None:
        while pos[i] < ng:
            if stop.is_set():
                return
            advance(i)
        if progress is not None:
            progress(1)

    pool = ThreadPoolExecutor(max_workers=nthreads)
    try:
        pending = {pool.submit(work, i) for i in range(R)}
        while pending:
            done, pending = wait(pending, timeout=0.2, return_when=FIRST_EXCEPTION)
            for f in done:
                f.result()
            report()
    except BaseException:
        stop.set()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
