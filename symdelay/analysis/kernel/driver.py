"""The driver: :class:`GeneratedKernel` checks a table at the door, has it generated (or
takes the generation from the cache), and runs the compiled kernel or its Python twin over
replications, in chunks of events (Ctrl-C is honoured between chunks), turning a failed run
into one line naming the transition and the state."""

from __future__ import annotations

import math
import os
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from symdelay.analysis.kernel.cache import (
    cache_key,
    cache_path,
    load_shared,
    read_generation,
    write_generation,
)
from symdelay.analysis.kernel.generate import CACHED, coefficients, generate
from symdelay.analysis.kernel.pytwin import python_function
from symdelay.analysis.kernel.table import _as_float_value, _check_table
from symdelay.core.cbuild import choose_backend
from symdelay.core.checks import check_eta, check_replications
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.rng import seed_states

__all__ = ["GeneratedKernel", "KernelRun"]

_DBL_MAX = sys.float_info.max


class KernelRun(NamedTuple):
    """A kernel's raw output (internal: :func:`symdelay.analysis.stochastic.simulate` turns it
    into a :class:`~symdelay.analysis.timeseries.TimeSeries`): ``paths`` (R, len(grid), n)
    int64 COUNTS, ``events_per_replication`` (R,), ``transition_counts`` (R, number of
    transitions; order of the table), ``final`` (R, n) the counts at the end (after the last
    grid time: the state when the next event falls beyond it)."""

    eta: int
    grid: np.ndarray
    paths: np.ndarray
    events_per_replication: np.ndarray
    transition_counts: np.ndarray
    final: np.ndarray
    backend: str
    #: a table with lags: per replication, the memory of its history and scheduled entries
    #: (:meth:`~symdelay.analysis.kernel.lagrun.LagRun.usage`); ``None`` without lags
    lag_memory: list | None = None
    #: a table with action delays: (R, len(grid), number of action-delayed transitions)
    #: int64, the jobs decided and not yet landed at each grid time (table order)
    in_transit: np.ndarray | None = None

    @property
    def events(self) -> int:
        return int(self.events_per_replication.sum())


class GeneratedKernel:
    """A Gillespie simulator generated from ``(states, transitions, parameters)``.

    ``states``: distinct SymPy symbols (the scaled state ``s``); ``transitions``: triples
    ``(name, jump, beta)`` with ``jump`` one integer per state and ``beta`` the scaled rate (a
    SymPy expression in the states and the parameters); ``parameters``: every other symbol
    of the rates mapped to a real number. Nothing is compiled until the C backend runs.
    """

    def __init__(
        self,
        states: Sequence[sp.Symbol],
        transitions: Sequence[tuple[str, Sequence[int], sp.Expr]],
        parameters: Mapping[sp.Symbol, object] | None = None,
        *,
        lags: Mapping | None = None,
        actions: Mapping[str, str] | None = None,
        label: str = "the table",
    ) -> None:
        states, names, jumps, rates = _check_table(states, transitions)
        self.plan = None
        self.label = label
        if lags:  # the lags, read as the package docstring says (refused where not exact)
            from symdelay.analysis.kernel.lagplan import LagPlan

            index = {nm: j for j, nm in enumerate(names)}
            acts = {index[t]: lag for t, lag in (actions or {}).items()}
            self.plan = LagPlan(states, list(zip(names, rates)), lags, acts, label)
        parameters = dict(parameters or {})
        for p in parameters:
            if not isinstance(p, sp.Symbol):
                raise SymdelayInputError(f"parameter keys must be SymPy symbols, got {p!r}")
            if p in states:
                raise SymdelayInputError(f"{p} is both a state and a parameter")
        known = set(states) | set(parameters)
        if self.plan is not None:
            known |= {sym for sym, _ in self.plan.symbols}
        for name, rate in zip(names, rates):
            if self.plan is not None:
                rate = rate.xreplace(self.plan.replace)
            unknown = rate.free_symbols - known
            if unknown:
                raise SymdelayInputError(
                    f"transition {name!r}: the rate {rate} uses "
                    f"{', '.join(sorted(map(str, unknown)))}, which is neither a state nor a "
                    "parameter; give its value in parameters"
                )
        self.states = states
        self.names = tuple(names)
        self.jumps = jumps
        self.rates = tuple(rates)
        self.parameters = {p: parameters[p] for p in parameters}
        self._param_values = {p: _as_float_value(str(p), v) for p, v in parameters.items()}
        self._lagc = None
        self.lag_dot = None  # the drift recursion's layout (generate._dot_lag_spec)
        if self.plan is not None:
            exact = {p: sp.Rational(v) if isinstance(v, (int, float, Fraction)) else v
                     for p, v in self.parameters.items()}  # fmt: skip
            self._lagc = np.array(self.plan.numbers(exact), dtype=np.float64)
        self._generate_cached()
        self._lock = threading.Lock()
        self._c_fn = None
        self._c_tried = False
        self._py_fn = None

    # -- code generation ------------------------------------------------------------------

    # -- code generation (generate.py), or its result from the cache (cache.py) -------------

    def _lag_text(self) -> str:
        return self.plan.structure() if self.plan is not None else ""

    def _cache_key(self) -> str:
        """The name of this table's cached generation (:func:`~.cache.cache_key`)."""
        return cache_key(self.states, self.jumps, self.rates, self.parameters, self._lag_text())

    def _generate_cached(self) -> None:
        """Generate the kernel, or take its generation from ``cache_dir()/gen-KEY.json``
        (written after a generation; the parameter values are not part of it: they are
        applied here)."""
        path = cache_path(self.states, self.jumps, self.rates, self.parameters, self._lag_text())
        data = read_generation(path)
        if data is not None:
            try:
                self._load_generation(data)
                self.generation_cached = True
                return
            except (KeyError, TypeError, ValueError, IndexError):  # a damaged entry
                pass  # generate again (and overwrite it)
        out = generate(
            self.states, self.names, self.jumps, self.rates, self._param_values, self.plan,
            self.label,
        )  # fmt: skip
        for name, value in out.items():
            setattr(self, name, value)
        self._set_coefficients()
        self.generation_cached = False
        if path is None:
            return
        data = {name: getattr(self, name) for name in CACHED}
        data |= {"used": self._used_names}
        data |= {"floats": self._par[len(self._used_names) :].tolist()}
        data |= {"ix": self._ix.tolist(), "order": self._order.tolist()}
        if self.plan is not None:
            data["lag_e_py"] = self.lag_e_py
            data["lag_dot"] = self.lag_dot
        write_generation(path, data)

    def _load_generation(self, data: dict) -> None:
        M = len(self.rates)
        values = {name: data[name] for name in CACHED}
        ix = np.array(data["ix"], dtype=np.int64)
        order = np.array(data["order"], dtype=np.int64)
        if ix.ndim != 1 or sorted(order.tolist()) != list(range(M)) or ix.size < 12:
            raise ValueError("damaged generation cache entry")
        by_name = {str(p): v for p, v in self._param_values.items()}
        par = [by_name[nm] for nm in data["used"]] + [float(f) for f in data["floats"]]
        for name, value in values.items():
            setattr(self, name, value)
        if self.plan is not None:
            self.lag_e_py = list(data["lag_e_py"])
            self.lag_dot = data["lag_dot"]
        self._ix, self._order = ix, order
        self._par = np.array(par, dtype=np.float64)
        self._set_coefficients()

    def _set_coefficients(self) -> None:
        """The coefficients of the linear rates (and 1 / c of every count class) from the
        run-time parameters (:func:`~symdelay.analysis.kernel.generate.coefficients`)."""
        self._coef = coefficients(
            self.coefficient_source, self._par, self._ix, self._H0, self._Mt, len(self.rates)
        )

    # -- backends -------------------------------------------------------------------------

    @property
    def workspace_size(self) -> int:
        """Doubles of the kernel's workspace (its last argument): the sum tree, 2 P2 used and
        read up to 4 P2 by the branch-free descent, then the weights' tree of a weighted class."""
        return 4 * self._P2 + (2 * self._W2 if self.classes.get("weighted") else 0)

    @property
    def integer_workspace_size(self) -> int:
        """Int64 entries of the kernel's integer workspace (its last argument): the counts of
        the state (copied in at every call and out at its end), then the count classes'
        trees."""
        return self._NI

    def python_function(self) -> Callable:
        """The pure-Python twin (same arguments and draws as the compiled kernel)."""
        if self._py_fn is None:
            self._py_fn = python_function(self.python_source)
        return self._py_fn

    def c_function(self):
        """The compiled kernel (compiled into the cache dir at first use), or ``None`` when no
        C compiler works or ``SYMDELAY_NO_C`` is set."""
        with self._lock:
            if self._c_tried:
                return self._c_fn
            self._c_tried = True
            self._c_fn = load_shared(self.c_source, lags=self.plan is not None)
            return self._c_fn

    # -- running --------------------------------------------------------------------------

    def _check_initial(self, initial) -> np.ndarray:
        n = len(self.states)
        try:
            arr = np.asarray(initial, dtype=float)
        except (TypeError, ValueError):
            raise SymdelayInputError(
                f"initial must be {n} whole counts (one per state), got {initial!r}"
            ) from None
        if arr.ndim != 1 or arr.size != n:
            raise SymdelayInputError(
                f"initial must have {n} entries ({', '.join(map(str, self.states))}), "
                f"got shape {arr.shape}"
            )
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)) or np.any(arr < 0):
            raise SymdelayInputError("initial must contain whole counts >= 0")
        if np.any(arr > 2**52):  # doubles hold integers exactly below 2^53
            raise SymdelayInputError("initial counts must be below 2^52")
        return arr.astype(np.int64)

    @staticmethod
    def _check_grid(grid) -> np.ndarray:
        try:
            g = np.array(grid, dtype=np.float64)
        except (TypeError, ValueError):
            raise SymdelayInputError(f"grid must be a list of times, got {grid!r}") from None
        if g.ndim != 1 or g.size == 0:
            raise SymdelayInputError("grid must be a non-empty 1-D list of times")
        if not np.all(np.isfinite(g)) or g[0] < 0 or np.any(np.diff(g) < 0):
            raise SymdelayInputError("grid times must be finite, >= 0 and non-decreasing")
        return np.ascontiguousarray(g)

    def _backend(self, backend: str):
        fn = choose_backend(backend, self.c_function)
        if fn is None:
            return "python", self.python_function()
        return "c", fn

    def run(self, eta, initial, grid, seed=1, backend: str = "auto"):
        """One path: ``(counts on the grid, len(grid) x n int64; number of events)``.

        The state at a grid time includes the events at that time (right-continuous).
        ``seed``: anything :func:`numpy.random.default_rng` accepts; the xoshiro256** state
        is drawn from it exactly as :func:`symdelay.simulate` does for its replication 0.
        """
        r = self.run_replications(eta, initial, grid, seed, 1, backend=backend)
        return r.paths[0], r.events

    def run_replications(
        self,
        eta,
        initial,
        grid,
        seed=1,
        replications: int = 1,
        *,
        backend: str = "auto",
        threads: int | None = None,
        chunk_events: int | None = None,
        progress: Callable[[int], None] | None = None,
        monitor: Callable[[float, int], None] | None = None,
        history=None,
        rate: float | None = None,
        force: bool = False,
        lag_run=None,
    ) -> KernelRun:
        """``replications`` independent paths (threads for the C backend; the results do not
        depend on the number of threads). ``chunk_events``: events per call into the kernel
        between checks for Ctrl-C (default 2^20 for C, 2^14 for Python). ``monitor(time,
        events)`` is called in the calling thread between chunks: the simulated time summed
        over the replications (each counted up to the last grid time) and the events so far;
        an exception it raises (Ctrl-C) stops the workers after their current chunk.

        A table with lags: ``history`` the past before 0 (``None``: the initial counts held
        constant; ``"empty"``; a table ``(t, scaled values)``: see
        :mod:`~symdelay.analysis.kernel.lagrun`), ``rate`` the events per unit time expected
        (the first size of the history's rings), ``force`` lets them grow over the memory
        budget; ``lag_run`` a :class:`~symdelay.analysis.kernel.lagrun.LagRun` made before
        (its memory checked by the caller)."""
        eta = check_eta(eta)
        init = self._check_initial(initial)
        g = self._check_grid(grid)
        R, n, M = check_replications(replications), len(self.states), len(self.rates)
        if R * g.size * n > 250_000_000:
            raise SymdelayInputError(
                "the recorded paths would exceed 2 GB: use fewer replications or grid points"
            )
        lag = None
        if self.plan is not None:
            from symdelay.analysis.kernel.lagrun import LagRun

            lag = lag_run or LagRun(self, eta, init, history, float(rate or 0.0))
            if lag.horizon < float(g[-1]):
                raise SymdelayInputError(
                    f"lag_run was made for the horizon {lag.horizon:g}, before the grid's end "
                    f"{float(g[-1]):g}: make it with horizon >= the last grid time"
                )
        elif history is not None:
            raise SymdelayInputError(f"history is for a table with lags: {self.label} has none")
        name, fn = self._backend(backend)
        if chunk_events is None:
            chunk_events = 2**20 if name == "c" else 2**14
        chunk = min(check_replications(chunk_events, "chunk_events"), 2**62)
        states = seed_states(np.random.default_rng(seed), R)
        out = np.zeros((R, g.size, n), dtype=np.int64)
        counts = np.zeros((R, M), dtype=np.int64)
        final = np.tile(init, (R, 1))
        done = np.zeros(R)  # simulated time of each replication so far
        memory: list = [None] * R
        NA = len(lag.actions) if lag is not None else 0
        transit = np.zeros((R, g.size, NA), dtype=np.int64) if NA else None
        events = np.zeros(R, dtype=np.int64)
        cancel = threading.Event()
        end = float(g[-1])

        def report() -> None:
            if monitor is not None:
                monitor(float(np.minimum(done, end).sum()), int(events.sum()))

        def one(i: int, serial: bool) -> None:
            X = np.ascontiguousarray(final[i])
            rs = np.ascontiguousarray(states[i])
            o = np.zeros((g.size, n + NA), dtype=np.int64)  # the counts, the in transit
            c = np.zeros(M, dtype=np.int64)

            def step(t: float, ev: int) -> None:
                done[i], events[i] = t, ev
                if serial:
                    report()

            memory[i], late = self._drive(
                fn, name, float(eta), X, rs, g, o, c, chunk, cancel, step, lag, force
            )  # fmt: skip
            out[i], counts[i], final[i] = o[:, :n], c, X
            if transit is not None:  # the past's jobs landing after the horizon: counted
                transit[i] = o[:, n:] + late
            done[i] = end
            if progress is not None:
                progress(1)

        nthreads = threads or min(R, os.cpu_count() or 1)
        if name == "python" or nthreads <= 1 or R == 1:
            for i in range(R):
                one(i, True)
        else:
            with ThreadPoolExecutor(max_workers=nthreads) as pool:
                futures = [pool.submit(one, i, False) for i in range(R)]
                try:
                    pending = set(futures)
                    while pending:
                        finished, pending = wait(pending, timeout=0.2, return_when=FIRST_EXCEPTION)
                        for f in finished:
                            f.result()
                        report()
                except BaseException:
                    cancel.set()  # workers stop at their next chunk boundary
                    for f in futures:
                        f.cancel()
                    raise
        mem = memory if lag is not None else None
        return KernelRun(eta, g, out, counts.sum(axis=1), counts, final, name, mem, transit)

    def _drive(
        self, fn, name, eta, X, rs, g, o, c, chunk, cancel, step=None, lag=None, force=False
    ):
        """Run one replication (``o``: a row per grid time, the counts then, with action
        delays, the jobs in transit per action, as the kernel records them); with lags,
        return the memory its history and scheduled entries used
        (:meth:`~symdelay.analysis.kernel.lagrun.LagRun.usage`) and the jobs of the past
        landing after the horizon per action (counted, not scheduled)."""
        clock = np.zeros(4, dtype=np.float64)  # t, next event time, pending, total rate
        status = np.zeros(3, dtype=np.int64)
        bad = np.zeros(1, dtype=np.float64)
        tree = np.zeros(self.workspace_size, dtype=np.float64)
        iw = np.zeros(self.integer_workspace_size, dtype=np.int64)
        cs = np.zeros(len(self.rates), dtype=np.int64)  # per slot
        par, coef, ix = self._par, self._coef, self._ix
        extra: tuple = ()
        if lag is not None:
            hist, hst, fifo, heap, chain = lag.start(rs)  # in transit: from this stream
            extra = (hist, hst, self._lagc, fifo, heap, chain)
        k, ng = 0, g.size
        while k < ng:
            if cancel.is_set():
                break
            r = int(
                fn(par, coef, ix, eta, X, rs, clock, g[k:], ng - k, o[k:], cs, chunk, status,
                   bad, tree, iw, *extra)
            )  # fmt: skip
            if r < 0:
                raise self._run_error(status, bad, X, eta)
            k += r
            if lag is not None and extra[1][2]:  # a ring, a FIFO or the heap full: make room
                hist, hst, fifo, heap, chain = lag.grow(*extra[:2], *extra[3:], force)
                extra = (hist, hst, self._lagc, fifo, heap, chain)
            if step is not None:
                step(float(g[-1]) if k >= ng else float(clock[0]), int(cs.sum()))
        c[self._order] = cs
        if lag is None:
            return None, None
        return lag.usage(extra[1]), lag.late(extra[1])

    def _state_text(self, X) -> str:
        return ", ".join(f"{s}={int(x)}" for s, x in zip(self.states, X))

    def _run_error(self, status, bad, X, eta) -> SymdelayInputError:
        code, j, last = (int(v) for v in status)
        if code == 1 and self._H0 <= j < self._Mt:
            j = -1  # a count class's leaf c * S: find the member whose rate is bad
        j = int(self._order[j]) if j >= 0 else j  # slot -> transition
        if code == 2:
            before = X  # the kernel undid the partial jump
            return SymdelayInputError(
                f"transition {self.names[j]!r} would make {self.states[last]} negative "
                f"(counts {self._state_text(before)}, eta={int(eta)}): its rate must vanish "
                "when that count is 0; fix the rate expression"
            )
        value = float(bad[0])
        if code == 3:  # a weight of the weighted class, or their sum
            first = [str(self.names[t]) for t in self._order[: self.classes["weighted"]]]
            what = f"the weight of {self.names[j]!r}" if int(status[1]) >= 0 else "their sum"
            return SymdelayInputError(
                f"the rates {first[0]!r} ... {first[-1]!r} (one denominator, the sum of their "
                f"numerators) cannot be evaluated in double precision at counts "
                f"({self._state_text(X)}) with eta={int(eta)}: {what} is {value!r}; rescale "
                "the rate expressions (e.g. weights relative to the smallest count) or the "
                "parameters"
            )
        if j < 0:  # the Python twin hit an exception: find the culprit rate
            j, value = self._first_bad_rate(eta, X)
        return SymdelayInputError(
            f"the rate of transition {self.names[j]!r} is {value!r} at counts "
            f"({self._state_text(X)}) with eta={int(eta)}: rates eta*beta(X/eta) must be "
            "finite and >= 0; fix the rate expression or the parameters"
        )

    def _first_bad_rate(self, eta, X):
        vals = self.rates_at(eta, X, strict=False)
        for j, v in enumerate(vals):
            if not (v >= 0.0 and v <= _DBL_MAX):
                return j, float(v)
        return 0, math.nan  # pragma: no cover

    def rates_at(self, eta, X, *, strict: bool = True) -> np.ndarray:
        """``eta * beta_nu(X/eta)`` for every transition, evaluated one by one with SymPy's
        lambdify (an evaluation path independent of the generated code). With ``strict``
        a failed evaluation raises; otherwise it gives ``nan``."""
        eta = float(eta)
        subs = {s: int(x) / eta for s, x in zip(self.states, X)}
        out = np.empty(len(self.rates))
        for j, r in enumerate(self.rates):
            e = r.xreplace({p: sp.Float(v, 17) for p, v in self._param_values.items()})
            f = sp.lambdify(list(subs), e, modules="math")
            try:
                out[j] = eta * float(f(*subs.values()))
            except (OverflowError, ZeroDivisionError, ValueError):
                if strict:
                    raise
                out[j] = math.nan
        return out
