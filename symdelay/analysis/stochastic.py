"""The stochastic system of any model: exact simulation and the linear-noise (LNA) stationary
variance, each behind one entry that takes the model first.

- :func:`simulate` -> :class:`~symdelay.analysis.timeseries.TimeSeries`: exact (Gillespie)
  sample paths. A family with a kernel of its own runs it (SQ(d), LB: their
  specialisations); every other model, the founding model included, runs the simulator
  generated from its transition table (:func:`symdelay.analysis.simulate.generated_kernel`,
  cached on the model).
- :func:`variance` -> :class:`StationaryVariance`: ``lim Var(w . X)/eta`` from the
  Lyapunov equation at the equilibrium (the founding model's difference-mode solve first;
  otherwise :func:`symdelay.analysis.lna.linear_noise` on the table); the family's closed
  form is attached on both paths.

Both paths of an entry return the same record; ``method="generic"`` forces the table's path
(tests compare the two), ``method="specialised"`` the fast path only. Work that grows with
the inputs is estimated first and refused over the shared budget unless ``force``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from symdelay.analysis.entry import declined, entry_doc, specialisation, specialised
from symdelay.analysis.timeseries import TimeSeries
from symdelay.core.checks import check_counts, check_replications
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result
from symdelay.model.core import has_lags

__all__ = [
    "simulate",
    "StationaryVariance",
    "variance",
    "SimulatedVariance",
    "simulated_variance",
    "difference_weights",
    "variance_parameters",
    "with_closed_form",
    "check_simulation_cost",
    "check_seed",
    "check_table_cost",
    "check_counts",
    "expected_events",
    "replication_seeds",
    "run_parameters",
    "state_count",
    "need_table",
    "EVENTS_PER_SECOND",
    "COMPILE_SECONDS_PER_OP",
]


# ---------------------------------------------------------------------------------------
# simulation


#: Events per second the generated kernel sustains (benchmarks/results/generated_simulator.txt,
#: rounded down); the budget is the shared one (:mod:`symdelay.core.budget`).
EVENTS_PER_SECOND = 1.5e7
#: Generating and compiling the kernel: seconds per operation in the transition rates
#: (SymPy's count_ops; gcc's time grows with the printed rate code). Measured on this
#: 2-core machine, cold cache: nserver N = 30, L = 2 (3,810 operations) 3.2 s; N = 16,
#: L = 32 (1,616, 528 states) 0.67 s; N = 60, L = 1 (14,700) 8.7 s; N = 100 (40,500) 24 s:
#: 0.4-0.8 ms each, so 1 ms is an upper estimate.
COMPILE_SECONDS_PER_OP = 1e-3
#: Default system scale of a transition table's simulation (a family may have its own:
#: the LB model's servers).
DEFAULT_ETA = 1000


def need_table(model, what: str) -> None:
    """The generic paths need a transition table; an object without one is refused in one
    line (a model with lags is a table: its drift refuses the ODE paths itself)."""
    from symdelay.model.core import Model

    if not isinstance(model, Model):
        raise SymdelayInputError(
            f"{getattr(model, 'name', model)} is not a transition table: the {what} needs one "
            "(a symdelay.model.Model)"
        )


#: Building a transition table (SymPy: the rates parsed and checked, the symmetry checked)
#: costs about this many seconds times the square of its number of states (the founding
#: model: 66 states 0.05 s, 602 states 3.7 s, on this 2-core machine).
TABLE_SECONDS_PER_STATE2 = 1e-5


def state_count(model) -> int:
    """The number of states, without building a table a family builds on demand (the
    founding model knows it from L)."""
    count = getattr(type(model), "state_count", None)
    return int(count(model)) if count is not None else len(model.states)


def check_table_cost(model, force=False) -> None:
    """Refuse, before it is built, a transition table too large to build within the shared
    budget (a family's model object builds its table on first use)."""
    from symdelay.core.budget import check_budget

    if "states" in model.__dict__ or getattr(type(model), "state_count", None) is None:
        return  # built already, or a table given as such
    n = state_count(model)
    check_budget(
        f"building the transition table of {model.name} ({n} states)",
        TABLE_SECONDS_PER_STATE2 * n * n,
        force=force,
        shrink="a model with fewer states (a smaller --L or --N)",
    )


def _rate_data(model) -> tuple[float, int]:
    """The events per unit time and per unit eta at the equilibrium and the operations in
    the rates (SymPy's count_ops), once per model. An action-delayed transition is two
    events of the kernel, its decision and its landing (at the same rate at equilibrium):
    its rate counts twice."""

    def compute():
        from symdelay.model.lags import steady

        point = {**model.equilibrium.point, **model.values}
        total = float(
            sum((2 if t.lag else 1) * steady(t.rate).xreplace(point) for t in model.transitions)
        )
        ops = sum(int(sp.count_ops(t.rate)) + 1 for t in model.transitions)
        return total, ops

    return model.cached("simulation cost", compute)


def expected_events(model, eta: int, T: float, replications: int = 1) -> float:
    """The events a simulation is expected to take: ``eta T replications`` times the total
    rate at the equilibrium (per unit eta; an action delay's landings counted). Exact to
    leading order once the start has relaxed (a time of the order of the slowest
    relaxation), which is how long runs go."""
    total, _ = _rate_data(model)
    try:
        return eta * T * float(replications) * total
    except OverflowError:
        return float("inf")


def check_simulation_cost(model, eta: int, T: float, replications: int, force=False) -> None:
    """Refuse, before compiling, a generated simulation expected to take longer than the
    shared budget (compiling grows with the size of the rate expressions, running like the
    events: :func:`expected_events`)."""
    from symdelay.core.budget import check_budget

    total, ops = _rate_data(model)
    events = expected_events(model, eta, T, replications)
    if "kernel" not in model.__dict__.get("_analyses", {}):
        check_budget(
            f"generating and compiling the simulator of {model.name} ({len(model.states)} "
            f"states, {ops} operations in its rates)",
            COMPILE_SECONDS_PER_OP * ops,
            force=force,
            shrink="a model with fewer states (a smaller --N or --L)",
        )
    levels = _recursion_factor(model, T)
    deep = (
        f"; the draws reading dot() through a lag recurse down to the history, up to "
        f"T / tau levels: about {levels:.3g} events' work per event"
        if levels > 1.0
        else ""
    )
    check_budget(
        f"this run (about {events:.1g} events; total rate at the equilibrium {total:.3g} per "
        f"unit eta{deep})",
        events * levels / EVENTS_PER_SECOND,
        force=force,
        shrink="a smaller --eta, --T or --replications",
    )


#: The cost of one level of the drift recursion (dot() read through a lag) per routing
#: draw, in events of the same table without lags (benchmarks/bench_lag_simulate.py, 4.:
#: the announcement at T/D = 5, 20, 50 took 2.9, 7.4 and 15.5 x the events' time, about
#: 1.2 events per level at the mean depth T/(2 D) of the half of the events that route).
LEVEL_EVENTS = 1.3


def _recursion_factor(model, T: float) -> float:
    """The work per event of a simulation of ``model`` over ``[0, T]`` in events of the
    same table without lags: 1, or, when its rates read ``dot()`` through a constant lag
    ``tau``, ``1 + LEVEL_EVENTS f T / (2 tau)`` (``f`` the share of the events at the
    equilibrium whose rates read it: each such draw runs the recursion, on average ``T / (2
    tau)`` levels deep)."""
    from symdelay.model.lags import delayed_function, steady

    delayed, dot = delayed_function()
    reads = [t for t in model.transitions
             if any(o.args[0].has(dot) for o in t.rate.atoms(delayed))]  # fmt: skip
    if not reads:
        return 1.0
    lag = model.lags.get(str(next(iter(reads[0].rate.atoms(delayed))).args[1]))
    try:
        tau = float(lag.args["value"].xreplace(dict(model.values)))
        point = {**model.equilibrium.point, **model.values}
        share = float(sum(steady(t.rate).xreplace(point) for t in reads)) / _rate_data(model)[0]
    except (AttributeError, KeyError, TypeError, ZeroDivisionError):
        return 1.0  # not a constant lag at numbers: refused by the kernel's plan
    if not (tau > 0 and share >= 0):
        return 1.0
    return 1.0 + LEVEL_EVENTS * share * T / (2.0 * tau)


def check_seed(seed, name: str = "seed"):
    """``(seed for numpy.random.default_rng, value to record)``.

    An integer >= 0 (or its decimal text), a ``SeedSequence`` or a ``Generator`` (not
    recorded: it cannot be repeated); ``None`` draws fresh entropy from the operating system
    and records it, so the run can be repeated.
    """
    if isinstance(seed, np.random.Generator):
        return seed, None
    if isinstance(seed, np.random.SeedSequence):
        if not seed.spawn_key:
            return seed, int(seed.entropy)
        return seed, {"entropy": int(seed.entropy), "spawn_key": [int(k) for k in seed.spawn_key]}
    if seed is None:
        ss = np.random.SeedSequence()
        return ss, int(ss.entropy)
    seed = check_replications(seed, name, least=0)
    return seed, seed


def replication_seeds(seed, R: int) -> list:
    """One seed sequence per replication from a checked seed (:func:`check_seed`: an integer,
    a SeedSequence, copied so the caller's is not advanced, or a Generator, consumed): the
    seeds of the families' kernels that run one replication at a time (SQ(d), LB)."""
    if isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key)
    elif isinstance(seed, np.random.Generator):
        seed = np.random.SeedSequence(int(seed.integers(0, 2**63)))
    else:
        seed = np.random.SeedSequence(seed)
    return seed.spawn(R)


def run_parameters(model) -> dict:
    """The model's parameters as a record shows them: a family's checked options (the
    founding model's ``L, mu, lam, theta, D``) or the table's parameter values, as text."""
    from symdelay.analysis.entry import family_options

    found = family_options(model)
    values = found if found is not None else {str(k): v for k, v in model.values.items()}
    extra = getattr(type(model), "record_options", None)
    if extra is not None:  # what a family names besides its values (SQ(d): d, K, service)
        values = {**extra(model), **values}
    return {k: (v if isinstance(v, (int, dict)) and not isinstance(v, bool) else str(v))
            for k, v in values.items() if v is not None}  # fmt: skip


@entry_doc
def simulate(
    model,
    eta=None,
    T=20,
    dt=0.1,
    initial=None,
    seed=1,
    replications=1,
    method: str = "auto",
    *,
    backend: str = "auto",
    threads: int | None = None,
    progress: Callable[[int], None] | None = None,
    monitor: Callable[[float, int], None] | None = None,
    force: bool = False,
    chunk_events: int | None = None,
    history=None,
) -> TimeSeries:
    """Exact (Gillespie) sample paths of ``model``'s jump process at scale ``eta``, recorded
    on the grid ``0, dt, ..., floor(T/dt) dt`` (the state at each time, events at that time
    included), scaled by ``1/eta``. A model with lags reads its lagged values from the
    piecewise-constant past of the path and schedules its action-delayed jumps
    (:mod:`symdelay.analysis.kernel`, "Lags": exact, no time step). A rate reading
    ``dot(x)`` through a constant lag (the announcement, ``delayed(q + p*dot(q), tau)``)
    reads the *drift* of ``x`` there: in the stochastic system ``dot(x)`` at ``s`` is the
    conditional expected rate of change of ``x`` at ``s``, the sum over the transitions of
    their change of ``x`` times their rate at ``s`` over ``eta``, each rate with the lagged
    values it reads at ``s`` (before 0 the history's derivative: 0 held, a table's slope);
    its law of large numbers limit is the neutral fluid path. It is computed exactly at each
    routing draw by a recursion through ``t - tau, t - 2 tau, ...`` (a draw costs ``O(t /
    tau)``; the path it reads is kept for the whole run: memory ~ events x T, estimated
    first).

    Parameters
    ----------
    model : Model
        The model (its transition table), every parameter a number.
    eta : int, optional
        The system scale, an integer ``1 <= eta <= 10^15`` (jobs ~ eta: rates are ``eta``
        times the table's, the paths ``1/eta`` times the job counts). Default 1000; the LB
        model's default is its stations' own number of servers (another value rescales
        them).
    T : number, default 20
        The horizon, in the model's time units (``1/mu`` for the founding model at
        ``mu = 1``); ``T > 0``.
    dt : number, default 0.1
        The step of the recording grid (``0 < dt <= T``); the simulation itself is exact
        between grid points.
    initial : sequence of int, optional
        The job counts at time 0, one per state in the model's order; default ``eta`` times
        the model's start (:meth:`~symdelay.model.Model.default_start`), rounded.
    seed : int, SeedSequence, Generator or None, default 1
        The random stream: an integer >= 0 or a ``SeedSequence`` (recorded: the same seed
        gives the same paths), a ``Generator`` (consumed, not recorded) or ``None`` (fresh
        entropy, recorded so that the run can be repeated).
    replications : int, default 1
        Independent paths. The results do not depend on the number of threads.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s
        Here ``"auto"`` is the family's own kernel where it has one (SQ(d), LB), else the C
        kernel generated from the transition table.
    backend : {"auto", "c", "python"}, default "auto"
        The generated C kernel (``"auto"``: when a compiler is there) or its Python twin,
        which draws the same numbers (slower, same paths).
    threads : int, optional
        Worker threads for the replications (default: one per core).
    progress : callable, optional
        ``progress(1)`` after each finished replication (a progress bar's update).
    monitor : callable, optional
        ``monitor(time, events)`` in the calling thread while the kernel runs: the simulated
        time summed over the replications and the events so far.
    force : bool, default False
        Run even when the estimated number of events is over the shared budget
        (:mod:`symdelay.core.budget`).
    chunk_events : int, optional
        Events per call into the kernel (Ctrl-C is checked between calls; the result does not
        depend on it).
    history : None, "empty", str or dict, optional
        A model with lags only: the states before 0, the fluid path's contract
        (:func:`symdelay.analysis.fluid.fluid`). ``None``: the initial counts held constant
        on ``(-oo, 0]`` (an action delay's jobs in transit at 0 are then the decisions of
        ``[-d, 0)`` at the initial state's rates, drawn exactly); ``"empty"``: nothing decided
        before 0 (action delays only); a CSV file or a table ``{"t": [...], state: [...]}`` of
        scaled states back to the longest lag, interpolated linearly and rounded to counts
        (``round(eta * value)``), its last row the default start.

    Returns
    -------
    TimeSeries
        ``kind="simulation"``: the scaled paths (``values`` of shape ``(replications,
        len(t), states)``), ``events`` per replication, ``info`` with the backend, the
        transition names and counts and the final counts (a model with lags: ``lags``, how
        each lag was read, ``history`` and ``memory``, with ``memory["recursion"]`` for
        ``dot()`` through a lag).

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> m = build_model("nserver", N=2, L=1, mu=1, lam=1, theta=2, D=1)
    >>> s = simulate(m, eta=50, T=1, dt=0.5, seed=3)
    >>> s.t.tolist(), s.values.shape
    ([0.0, 0.5, 1.0], (1, 3, 4))
    """
    kw = dict(
        eta=eta, T=T, dt=dt, initial=initial, seed=seed, replications=replications,
        backend=backend, threads=threads, progress=progress, monitor=monitor, force=force,
        chunk_events=chunk_events,
    )  # fmt: skip
    result = specialised(model, "simulate", method, **kw)
    if result is not None:
        return result
    need_table(model, "simulation")
    if history is not None and not has_lags(model):
        raise SymdelayInputError(
            f"--history is for a model with lags: {getattr(model, 'name', model)} has none "
            "(its start is --initial)"
        )
    return _generic_simulate(model, history=history, **kw)


def _initial_counts(model, initial, eta: int) -> np.ndarray:
    from symdelay.analysis.roots import default_initial

    if initial is None:
        start = np.rint(np.asarray(default_initial(model), dtype=float) * eta)
        if not np.all(np.isfinite(start) & (start < 2.0**62)):
            raise SymdelayInputError(
                f"the default start of {model.name} (its equilibrium times eta = {eta}) has "
                "counts beyond 2^62 jobs: give rates nearer each other, a smaller --eta, or "
                "--initial"
            )
        return start.astype(np.int64)
    return check_counts(initial, [s.name for s in model.states])


def _generic_simulate(
    model, *, eta, T, dt, initial, seed, replications, backend, threads, progress, monitor,
    force, chunk_events, history=None,
) -> TimeSeries:  # fmt: skip
    from symdelay.analysis.roots import require_values
    from symdelay.analysis.simulate import generated_kernel
    from symdelay.core.checks import check_eta, check_horizon, check_replications, time_grid

    Tf, dtf = check_horizon(T, dt)
    check_table_cost(model, force)
    require_values(model, "simulation")
    rng_seed, seed_record = check_seed(seed)
    R = check_replications(replications)
    eta = check_eta(DEFAULT_ETA if eta is None else eta)
    lags = has_lags(model)
    if lags:  # what cannot be simulated exactly is refused before any other work
        _check_lags(model)
        if model.linearisation.neutral:  # dot() through a lag: as the fluid path refuses
            from symdelay.analysis.lagroots import CharacteristicMatrix, root_bound

            root_bound(CharacteristicMatrix(model.linearisation, model.lags))
    past = _lag_history(model, history, eta) if lags else None
    if past is not None and isinstance(past, tuple) and initial is None:
        initial = np.floor(past[1][-1] * eta + 0.5)  # the table's last row, in counts
    counts = _initial_counts(model, initial, eta)
    check_simulation_cost(model, eta, Tf, R, force=force)
    kernel = generated_kernel(model)
    grid = time_grid(Tf, dtf)
    opts = {"threads": threads, "chunk_events": chunk_events, "progress": progress}
    if lags:
        opts |= _lag_run(model, kernel, eta, counts, past, force, Tf, R)
    run = kernel.run_replications(
        eta, counts, grid, rng_seed, R, backend=backend, monitor=monitor, **opts
    )
    params = run_parameters(model)
    params.update(eta=eta, T=Tf, dt=dtf, seed=seed_record, replications=R)
    params["initial"] = counts.tolist()
    info = {
        "backend": run.backend,
        "transitions": list(kernel.names),
        "transition_counts": run.transition_counts,
        "final": run.final,
    }
    if lags:
        info["lags"] = _lag_info(model, kernel)
        params["history"] = _history_text(history, past)
        info["history"] = params["history"]
        info["memory"] = _memory_info(kernel, opts["lag_run"], run.lag_memory)
    names = tuple(s.name for s in model.states)
    values = run.paths / float(eta)
    if run.in_transit is not None:  # the fluid path's columns: decided, not yet landed
        names += tuple(f"in_transit[{kernel.names[j]}]" for j in opts["lag_run"].actions)
        values = np.concatenate([values, run.in_transit / float(eta)], axis=2)
    return TimeSeries(
        names,
        grid,
        values,
        params,
        kind="simulation",
        model_name=model.name,
        events=run.events_per_replication,
        info=info,
    )


def _check_lags(model) -> None:
    """Refuse, in one line and before the equilibrium or the kernel is computed, the lags a
    simulation cannot read exactly (:class:`~symdelay.analysis.kernel.lagplan.LagPlan`)."""
    from symdelay.analysis.kernel.lagplan import LagPlan

    def check():
        index = {t.name: j for j, t in enumerate(model.transitions)}
        acts = {index[t.name]: t.lag for t in model.transitions if t.lag}
        rates = [(t.name, t.rate) for t in model.transitions]
        plan = LagPlan(model.states, rates, dict(model.lags), acts, model.name)
        plan.numbers(dict(model.values))
        return True

    model.cached("simulation lags checked", check)


def _lag_history(model, history, eta):
    """The history of a model with lags as the kernel takes it (``None``, ``"empty"`` or
    ``(t, scaled values)``), checked as the fluid path checks it."""
    from symdelay.analysis.history import EMPTY, read_history

    names = [s.name for s in model.states]
    if history is None:
        return None
    info = any(t.rate.has(sp.Function("delayed")) for t in model.transitions)
    if isinstance(history, str) and history.strip() == EMPTY:
        if info:
            raise SymdelayInputError(
                f"--history empty (nothing routed before 0) is for action delays: "
                f"{model.name} reads information through a lag, whose past must be given "
                "(leave --history out for the initial state held constant, or give a table)"
            )
        if not any(t.lag for t in model.transitions):
            raise SymdelayInputError(
                f"--history empty: {model.name} has no action-delayed transition (lag = NAME)"
            )
        return EMPTY
    t, v = read_history(history, names)
    if np.any(v < 0):
        raise SymdelayInputError("--history: the states must be >= 0 (scaled queue lengths)")
    back = _longest_lag(model)
    if t[0] > -back + 1e-12 * max(1.0, back):
        raise SymdelayInputError(
            f"--history covers [{t[0]:g}, 0], shorter than the longest lag of {model.name} "
            f"({back:g}): give rows back to t = {-back:g}"
        )
    if np.any(v * eta >= 2.0**52):
        raise SymdelayInputError("--history: eta times a state must be below 2^52 jobs")
    return t, v


def _longest_lag(model) -> float:
    """The longest look-back or action delay of ``model`` at its values (the kernel's
    reading: constant lags, uniform windows and mixtures of them)."""
    from symdelay.analysis.simulate import generated_kernel

    return generated_kernel(model).plan.back(dict(model.values))


def _lag_run(model, kernel, eta, counts, past, force, T, R=1) -> dict:
    """The run-time lag state's arguments, its memory estimated first (the rings hold the
    events of the longest look-back, the FIFOs and heap the decisions of the longest delay,
    or of the horizon when shorter: events per unit time at the equilibrium times it), and
    the time to draw the jobs in transit at 0."""
    from symdelay.analysis.kernel.lagrun import TRANSIT_SECONDS, LagRun
    from symdelay.core.budget import check_budget, check_memory

    total, _ = _rate_data(model)
    rate = eta * total
    lag = LagRun(kernel, eta, counts, past, rate, horizon=T)
    whole = (
        ", and the path the drift recursion of dot() reads, kept whole: the events over T"
        if lag.dot
        else ""
    )
    check_memory(
        f"the history of the lagged values and the scheduled entries of {model.name} (per "
        "replication: the changes over the longest look-back and the decisions over the "
        f"longest action delay, or over the run when shorter{whole}; events per unit time "
        f"about {rate:.3g})",
        lag.memory(),
        force=force,
        shrink="a smaller --eta or a shorter lag",
    )
    jobs = lag.transit_draws()
    check_budget(
        f"drawing the jobs in transit at 0 of {model.name} (about {jobs:.3g} per replication, "
        f"{R} replication(s))",
        jobs * R * TRANSIT_SECONDS,
        force=force,
        shrink="a smaller --eta, a shorter delay or --history empty",
    )
    return {"lag_run": lag, "force": force}


def _memory_info(kernel, lag, usage) -> dict:
    """The memory of the history and of the scheduled entries (the record's
    ``info["memory"]``): per channel (a lagged expression) its longest look-back, the ring's
    capacity (at the start and the largest it grew to) and the most entries in use over the
    replications; per constant action delay its FIFO's; the heap of the distributed ones;
    the bytes allocated, those estimated before the run and the budget they were checked
    against."""
    from symdelay.analysis.kernel.lagrun import ENTRY_BYTES, FIFO_BYTES, HEAP_BYTES
    from symdelay.core.budget import DEFAULT_BUDGET

    plan = kernel.plan
    most = usage[0]
    for u in usage[1:]:
        most = {
            k: ([max(a, b) for a, b in zip(v, u[k])] if isinstance(v, list) else max(v, u[k]))
            for k, v in most.items()
        }
    channels = []
    for c, E in enumerate(plan.channels):
        backs = [lag.lookback[p] for p in range(lag.NP) if lag.pch[p] == c]
        channels.append(
            {
                "expression": str(E),
                "lookback": float(max(backs, default=0.0)),
                "capacity": most["ring_capacity"],
                "capacity_first": int(lag.cap),
                "peak_in_use": most["ring_peak"][c],
            }
        )
    fifos = [
        {
            "transition": str(kernel.names[j]),
            "delay": float(d),
            "capacity": most["fifo_capacity"],
            "peak_in_use": most["fifo_peak"][f],
        }
        for f, (j, d) in enumerate(
            zip([j for j, x in zip(lag.actions, lag.fifo_of) if x], lag.delays)
        )
    ]
    out: dict = {"channels": channels, "fifos": fifos}
    if lag.NF < lag.NA:
        out["heap"] = {"capacity": most["heap_capacity"], "peak_in_use": most["heap_peak"]}
    used = (
        len(channels) * most["ring_capacity"] * ENTRY_BYTES
        + len(fifos) * most["fifo_capacity"] * FIFO_BYTES
        + most["heap_capacity"] * HEAP_BYTES
    )
    if lag.dot:  # the drift recursion of dot(): its path is kept whole (sized by T)
        W = lag.dot["W"]
        out["recursion"] = {
            "lookback": float(lag.tau),
            "states": [str(kernel.states[i]) for i in lag.dot["cols"]],
            "numbers_per_entry": W,
            "capacity": most["path_capacity"],
            "capacity_first": int(lag.pcap),
            "peak_in_use": most["path_entries"],
            "levels": most["levels"],
        }
        used += most["path_capacity"] * W * 8 + most["levels"] * 8
    out.update(
        bytes_allocated=int(used),
        bytes_estimated=float(lag.memory()),
        budget_bytes=float(DEFAULT_BUDGET.bytes),
        peak_in_use=(
            "the most entries held at once (a ring: its head minus its oldest pointer, plus "
            "one), kept by the kernel at every entry, the most over the replications"
        ),
    )
    return out


def _lag_info(model, kernel) -> dict:
    """How each lag was read (the record's ``info["lags"]``)."""
    plan = kernel.plan
    out: dict = {}
    for name, lag in model.lags.items():
        if not any(t.lag == name for t in model.transitions):
            continue
        if lag.kind == "constant":
            out[name] = (
                f"constant action delay: each decision's jump scheduled {lag.args['value']} "
                "later (a FIFO beside the rate tree)"
            )
        else:
            out[name] = (
                f"{lag.kind} action delay: each decision's delay drawn from its law, its "
                "jump kept in a heap until it lands"
            )

    def reading(lag) -> str:
        if lag.kind == "constant":
            return f"the path's value at t - {lag.args['value']} from its history"
        if lag.kind == "uniform":
            return (
                f"the average over [t - {lag.args['high']}, t - {lag.args['low']}] from the "
                "exact running integral of the path"
            )
        if lag.kind == "phase_type":
            return (
                f"the output of its chain of {len(lag.args['alpha'])} phase(s) fed by the "
                "path, advanced between events by uniformization"
            )
        if lag.kind in ("exponential", "gamma"):
            k = 1 if lag.kind == "exponential" else lag.args["shape"]
            return (
                f"the output of its chain of {k} phase(s) fed by the path, in closed form "
                "between events"
            )
        members = ", ".join(
            f"{w} x {reading(m)}" for w, m in zip(lag.args["weights"], lag.args["lags"])
        )
        return f"the weighted sum {members}"

    for name in sorted({str(o.args[1]) for o in plan.replace}):
        lag = model.lags[name]
        if plan.dot is not None:
            out[name] = (
                f"constant information lag read with dot(): the lagged expressions at t - "
                f"{lag.args['value']}, where dot(x) at s is the drift of x at s (the sum over "
                "the transitions of their change of x times their rate at s, over eta, each "
                "rate with the lagged values it reads at s), by a recursion through t - "
                f"{lag.args['value']}, t - 2 {lag.args['value']}, ... down to the history "
                "(before 0 its states and derivative: 0 for a held history, the table's slope), "
                "the path kept whole; read when the class of constant total that reads it is "
                "drawn"
            )
            continue
        out[name] = (
            f"{lag.kind} information lag: {reading(lag)}, read when the class of constant "
            "total that reads it is drawn"
        )
    return out


def _history_text(history, past):
    if past is None:
        return "initial state held constant"
    if isinstance(past, str):
        return past
    t, _ = past
    src = history if isinstance(history, str) else "table"
    return {"table": str(src), "t": [float(t[0]), float(t[-1])], "rows": len(t),
            "counts": "round(eta * value), the table interpolated linearly"}  # fmt: skip


# ---------------------------------------------------------------------------------------
# the linear-noise variance


@dataclass(frozen=True, eq=False)
class StationaryVariance(Result):
    """The LNA stationary variance of an imbalance, ``lim Var(w . X)/eta = value``.

    One record whatever path made it: ``value`` is exact (a SymPy Rational) when ``exact``,
    else a number refined to ``dps`` digits; ``weights`` are ``w``, one per state of the
    model (``states``); ``parameters`` the model's own options (or its parameter values);
    ``closed_form`` the family's closed form of the value where it has one (the founding
    model, L <= 2: in ``mu, lam, theta, D``), attached on every path. ``sigma`` is the
    stationary covariance in ``coordinates`` (the states, or the imbalances ``a-b`` of a
    symmetric model) and ``A``, ``B`` its Lyapunov data there; ``method`` says which path
    solved it. JSON: ``{"parameters", "dps", "exact", "var_x_over_eta", "exact_value",
    "weights", "imbalance", "closed_form", "method"}``.
    """

    parameters: dict
    value: object
    exact: bool
    weights: tuple
    states: tuple
    dps: int = 30
    closed_form: object = None
    sigma: object = None
    A: object = None
    B: object = None
    coordinates: tuple = ()
    method: str = ""
    model_name: str | None = None
    error_bound: object = None

    @property
    def var_x_over_eta(self):
        return self.value

    def __float__(self) -> float:
        return float(self.value)

    def decimal(self) -> str:
        """The value as a decimal string with ``dps`` significant digits."""
        import mpmath

        from symdelay.core.precision import workdps

        with workdps(self.dps):
            v = self.value
            if getattr(v, "is_Rational", False):
                num = mpmath.mpf(int(v.p)) / int(v.q)
            elif hasattr(v, "evalf"):
                num = mpmath.mpf(str(v.evalf(self.dps + 10)))
            else:
                num = mpmath.mpf(v)
            return mpmath.nstr(num, self.dps, strip_zeros=False)

    def record(self) -> dict:
        return {
            "parameters": dict(self.parameters),
            "dps": self.dps,
            "exact": self.exact,
            "var_x_over_eta": self.decimal(),
            "exact_value": str(self.value) if self.exact else None,
            "weights": [str(w) for w in self.weights],
            "imbalance": self.imbalance(),
            "closed_form": None if self.closed_form is None else str(self.closed_form),
            "method": self.method,
            "error_bound": None if self.error_bound is None else repr(float(self.error_bound)),
        }

    def imbalance(self) -> str:
        """The weighted sum of the states, e.g. ``q1 - q2``."""
        terms = []
        for x, s in zip(self.weights, self.states):
            if x == 0:
                continue
            coef = "" if abs(x) == 1 else f"{abs(x)}*"
            terms.append(("- " if x < 0 else "+ ") + coef + s)
        return " ".join(terms).removeprefix("+ ").lstrip("+")

    def summary(self) -> str:
        """One line (the command's text output)."""
        exact = f" (= {self.value})" if self.exact else ""
        if self.error_bound is not None:
            exact = f" (+- {float(self.error_bound):.2g}, certified)"
        cf = "" if self.closed_form is None else f"  closed form: {self.closed_form}"
        return f"Var({self.imbalance()})/eta -> {self.decimal()}{exact}{cf}"

    def latex(self) -> str:
        from symdelay.core.latex import tex

        value = tex(self.value) if self.exact else self.decimal()
        parts = ([] if self.closed_form is None else [tex(self.closed_form)]) + [value]
        return rf"\frac{{\operatorname{{Var}}({self.imbalance()})}}{{\eta}} \to " + " = ".join(
            parts
        )


@dataclass(frozen=True, eq=False)
class SimulatedVariance(Result):
    """Time-average estimate of ``Var(w . X)/eta`` with a batch-means interval."""

    estimate: float
    interval: tuple
    batches: int
    samples: int
    events: int
    model_name: str | None = None

    @property
    def halfwidth(self) -> float:
        return (self.interval[1] - self.interval[0]) / 2


def simulated_variance(
    model, eta=1000, *, T=2000, burn_in=50, dt=0.25, batches=20, seed=7, level=0.95,
    weights=None, progress: Callable[[int], None] | None = None, force=False,
) -> SimulatedVariance:  # fmt: skip
    """``Var(w . X)/eta`` from one long exact path of ``model`` (:func:`simulate`) started
    at its rounded equilibrium, the simulated counterpart of :func:`variance` (``w``
    default :func:`difference_weights`). Samples on the grid after ``burn_in`` are cut
    into ``batches`` consecutive batches; each gives ``mean((X - mean X)^2)/eta``; the
    interval is Student-t on the batch estimates at ``level``."""
    from scipy import stats

    if not 0 <= burn_in < T:
        raise SymdelayInputError(f"burn_in must satisfy 0 <= burn_in < T, got {burn_in}")
    if isinstance(batches, bool) or not isinstance(batches, int) or batches < 2:
        raise SymdelayInputError(f"batches must be an integer >= 2, got {batches}")
    w = difference_weights(model) if weights is None else weights
    if w is None:
        raise SymdelayInputError(
            f"{getattr(model, 'name', 'the model')} declares no symmetry, so no imbalance to "
            "follow: give weights (one per state) for the combination w . X"
        )
    w = np.asarray(w, dtype=float)
    if w.shape != (len(model.states),):
        raise SymdelayInputError(
            f"weights must be one number per state ({len(model.states)}), got {len(w)}"
        )
    point = model.equilibrium.point
    init = [round(float(point[s]) * eta) for s in model.states]
    sim = simulate(model, eta, T, dt=dt, initial=init, seed=seed, force=force)
    if progress is not None:
        progress(1)
    X = (sim.values[0, :, : len(model.states)] @ w) * eta  # 1/eta units; not in_transit
    X = X[np.asarray(sim.t) >= burn_in]
    n = X.size // batches
    if n < 2:
        raise SymdelayInputError("too few samples per batch: increase T or decrease dt")
    X = X[: n * batches].reshape(batches, n)
    est_b = ((X - X.mean()) ** 2).mean(axis=1) / eta
    est = float(est_b.mean())
    half = float(stats.t.ppf((1 + level) / 2, batches - 1) * est_b.std(ddof=1) / np.sqrt(batches))
    return SimulatedVariance(
        est,
        (est - half, est + half),
        batches,
        n * batches,
        int(np.sum(sim.events)),
        model_name=model.name,
    )


def difference_weights(model) -> list | None:
    """``e_a - e_P(a)`` for the first state ``a`` the symmetry moves (``q1 - q2``): the
    imbalance between a state and its image; None without a symmetry."""
    if model.permutation is None:
        return None
    a = next(i for i, j in enumerate(model.permutation) if i != j)
    w = [0] * len(model.states)
    w[a], w[model.permutation[a]] = 1, -1
    return w


def variance_parameters(model) -> dict:
    """The ``"parameters"`` of a variance (and spectrum) record: the model's name, its own
    options (a family's model object) or parameter values, as text; the same on every
    path."""
    from symdelay.analysis.entry import family_options

    options = family_options(model)
    own = options if options is not None else {str(k): v for k, v in model.values.items()}
    out = {"model": model.name}
    for k, v in own.items():
        if v is None:
            continue
        if isinstance(v, (list, tuple)):
            v = ",".join(str(x) for x in v)
        out[str(k)] = v if isinstance(v, int) and not isinstance(v, bool) else str(v)
    return out


@entry_doc
def variance(
    model,
    dps: int | None = None,
    method: str = "auto",
    *,
    weights=None,
    closed_form: bool = True,
    force: bool = False,
) -> StationaryVariance:
    """The linear-noise (LNA) stationary variance ``lim Var(w . X)/eta`` of the imbalance
    ``w . X`` at the equilibrium of ``model``; exact when the data are.

    Parameters
    ----------
    model : Model
        The model, every parameter a number, its equilibrium stable (refused otherwise: no
        stationary variance, the message names the verdict).
    dps : int, optional
        Significant digits (5..10000) of the value in the record. Default 30 for a table
        (the value itself is exact where the model's numbers are); for a model with lags
        :data:`DELAY_DPS`, the digits the certified integral of its spectrum proves (its cost
        grows like ``10^(dps/2)`` with an oscillating kernel, estimated first); a neutral
        model (``dot`` read through a lag) :data:`DELAY_DPS_NEUTRAL`.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s
        Here ``"auto"`` is the founding model's difference-mode Lyapunov solve, else the
        Lyapunov equation of the full table
        (:func:`symdelay.analysis.lna.stationary_covariance`); a model with lags: the
        certified integral of its delay spectrum (:mod:`symdelay.analysis.dnoise`).
    weights : sequence of numbers, optional
        ``w``, one number per state in the model's order. Default: the first imbalance of the
        symmetry (:func:`difference_weights`, ``q1 - q2``).
    closed_form : bool, default True
        Attach the family's closed form (the founding model at ``L <= 2``) where it has one.
    force : bool, default False
        Run even when the estimated cost of the Lyapunov solve is over the shared budget.

    Returns
    -------
    StationaryVariance
        ``value`` (exact, a SymPy number, or a float where the data are), its decimal
        ``var_x_over_eta`` at ``dps`` digits, the weights and the family's closed form;
        ``error_bound`` the certified bound of a delay model's integral (None otherwise).

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> v = variance(build_model("nserver", N=3, L=1, mu=1, lam=1, theta=2, D=1))
    >>> v.value, v.to_json()["var_x_over_eta"]
    (4/3, '1.33333333333333333333333333333')
    """
    from symdelay.core.params import as_dps
    from symdelay.model.core import has_lags

    lags = has_lags(model)  # read without building a family's table
    if dps is None:
        dps = 30 if not lags else DELAY_DPS_NEUTRAL if model.linearisation.neutral else DELAY_DPS
    dps = as_dps(dps)
    fast = specialisation(model, "variance", method)
    if fast is not None and weights is None:
        result = fast(model, dps=dps, force=force)
        if result is not None:
            return with_closed_form(model, "variance", result, closed_form)
        declined(model, "variance", method)
    elif fast is not None:
        declined(model, "variance", method)  # the fast path knows only q1 - q2
    need_table(model, "linear-noise variance")
    if lags:
        return _delay_variance(model, dps, weights, force)
    result = _generic_variance(model, dps, weights, force)
    return with_closed_form(model, "variance", result, closed_form and weights is None)


def with_closed_form(model, quantity: str, result, attach: bool = True):
    """``result`` with the family's closed form of ``quantity`` in its ``closed_form`` field
    (``attach``: asked for, and of the default imbalance), the same on every path."""
    import dataclasses

    from symdelay.analysis.entry import closed_forms

    cf = closed_forms(model, quantity) if attach else None
    return dataclasses.replace(result, closed_form=cf) if cf is not None else result


#: The default digits of a delay model's variance (a certified integral; about a second for a
#: constant lag of the order of the time scale).
DELAY_DPS = 8
#: The default digits of a neutral model's variance: its integrand keeps a chain of poles at
#: a fixed distance from the axis (:data:`symdelay.analysis.dnoise.SECONDS_PER_NEUTRAL_OSCILLATION`),
#: about ten times the work per digit pair of a retarded one (the announcement at
#: ``lam theta p = 0.2``: 3 s for 6 digits, 37 s for 8).
DELAY_DPS_NEUTRAL = 6


def _variance_weights(model, weights) -> list:
    w = difference_weights(model) if weights is None else list(weights)
    if w is None:
        raise SymdelayInputError(
            "this model declares no symmetry, so there is no imbalance to default to: give "
            "weights (one per state)"
        )
    if len(w) != len(model.states):
        raise SymdelayInputError(f"weights must have {len(model.states)} entries, got {len(w)}")
    return w


#: How a neutral model's records say ``dot`` is read (:mod:`symdelay.analysis.dnoise`).
DOT_READING = (
    "dot(x) read as the drift of x (its conditional expected rate of change, not the "
    "derivative of the noisy path): G = Delta^-1 N, N = I - sum_d M_d K_d over the "
    "derivative terms"
)


def _delay_variance(model, dps, weights, force, shrink=None) -> StationaryVariance:
    """A model with lags: the certified integral of its linear-noise spectrum
    (:func:`symdelay.analysis.dnoise.delay_variance`; ``shrink``: what a refusal over the
    budget suggests, fewer digits by default), at a stable equilibrium."""
    import dataclasses

    from symdelay.analysis.dnoise import delay_noise, delay_variance
    from symdelay.analysis.roots import require_values
    from symdelay.analysis.stability import require_stable

    require_values(model, "the linear-noise variance")
    w = _variance_weights(model, weights)
    require_stable(model, "stationary variance (linear-noise approximation)")
    res = model.cached(  # the spectrum asks for it again
        f"delay variance {w} {dps}",
        lambda: delay_variance(
            model, w, dps=dps, force=force, **({"shrink": shrink} if shrink else {})
        ),
    )
    names = tuple(s.name for s in model.states)
    value = sp.Float(res.text(dps + 5), dps + 5)
    record = StationaryVariance(
        parameters=variance_parameters(model),
        value=value,
        exact=False,
        weights=tuple(w),
        states=names,
        dps=dps,
        B=delay_noise(model).B,
        coordinates=names,
        method=(
            "certified integral of the delay model's linear-noise spectrum (Arb quadrature "
            f"on [0, {res.W:.3g}], tail bounded; error <= {float(res.error_bound):.2g})"
            + (f"; {DOT_READING}" if delay_noise(model).neutral else "")
        ),
        model_name=model.name,
        error_bound=res.error_bound,
    )
    # the covariance is integrated for the imbalance only (one certified integral): sigma is
    # its 1 x 1 block, in that coordinate
    return dataclasses.replace(
        record, sigma=sp.Matrix([[value]]), coordinates=(record.imbalance(),)
    )


def _generic_variance(model, dps, weights, force) -> StationaryVariance:
    from symdelay.analysis.lna import stationary_covariance
    from symdelay.analysis.roots import check_analysis_cost, require_values
    from symdelay.analysis.stability import require_stable

    require_values(model, "the linear-noise variance")
    check_analysis_cost(model, force=force)
    require_stable(model, "stationary variance (linear-noise approximation)")
    w = _variance_weights(model, weights)
    names = tuple(s.name for s in model.states)
    A, B = sp.Matrix(model.jacobian), sp.Matrix(model.diffusion)
    sigma = stationary_covariance(A, B, dps=dps)
    wv = sp.Matrix(w)
    value = (wv.T * sigma * wv)[0, 0]
    exact = all(e.is_Rational for e in sigma)
    return StationaryVariance(
        parameters=variance_parameters(model),
        value=value,
        exact=exact,
        weights=tuple(w),
        states=names,
        dps=dps,
        sigma=sigma,
        A=A,
        B=B,
        coordinates=names,
        method="Lyapunov equation of the model's Jacobian and diffusion"
        + (" (exact rational arithmetic)" if exact else f" ({dps} digits)"),
        model_name=model.name,
    )
