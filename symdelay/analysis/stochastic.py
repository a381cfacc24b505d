"""The stochastic system of any model: exact simulation and the linear-noise (LNA) stationary
variance, each behind one entry that takes the model first.

- :func:`simulate` -> :class:`Simulation`: exact (Gillespie) sample paths. The model's
  specialisation runs first (the founding model's hand-written kernel); otherwise the
  simulator generated from the transition table
  (:func:`symdelay.analysis.simulate.generated_kernel`, cached on the model) runs.
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
from dataclasses import dataclass, field

import numpy as np

from symdelay.analysis.entry import declined, specialisation
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result

__all__ = [
    "Simulation",
    "simulate",
    "StationaryVariance",
    "variance",
    "SimulatedVariance",
    "simulated_variance",
    "difference_weights",
    "variance_parameters",
    "check_simulation_cost",
    "need_table",
    "EVENTS_PER_SECOND",
    "COMPILE_SECONDS_PER_OP",
]


# ---------------------------------------------------------------------------------------
# simulation


@dataclass(frozen=True, eq=False)
class Simulation(Result):
    """Scaled sample paths ``paths[k, j, i]``: replication ``k``, time ``t[j]``, state ``i``
    (counts / eta), and what it took to make them.

    ``run`` is everything needed to repeat the run (the model's parameters, ``eta``, the
    grid, the seed, the number of replications): the JSON's ``"parameters"``. ``L`` is set
    by the founding model's kernel (states ``q1, q2, z1_1..z1_L, z2_1..z2_L``): its JSON then
    has the founding keys ``{"parameters", "events", "t", "q1", "q2", "z1", "z2"}`` (or
    ``"replications"``, one path object each, when R > 1), and ``transition_counts``
    (``R x 4``: arrival, phase, enter_service, service), ``initial`` (counts) and
    ``backend`` are known. Otherwise the JSON is ``{"model", "parameters", "eta", "seed",
    "events", "t", "paths": [{state: path}, ...]}``.
    """

    states: tuple  # state names
    eta: int
    t: np.ndarray
    paths: np.ndarray
    events_per_replication: np.ndarray
    seed: object
    parameters: dict  # the model's parameter values (name -> exact number)
    model_name: str | None = None
    run: dict = field(default_factory=dict)
    L: int | None = None
    transition_counts: np.ndarray | None = None
    initial: np.ndarray | None = None
    backend: str | None = None
    final_counts: np.ndarray | None = field(default=None, repr=False)
    T: float | None = None
    dt: float | None = None

    # -- shape ---------------------------------------------------------------------------
    @property
    def grid(self) -> np.ndarray:
        return self.t

    @property
    def replications(self) -> int:
        return self.paths.shape[0]

    @property
    def events(self) -> int:
        return int(np.sum(self.events_per_replication))

    @property
    def founding(self) -> bool:
        """True for the founding model's record (its JSON keys, its views)."""
        return self.L is not None

    def _index(self, name: str) -> int:
        if name not in self.states:
            raise KeyError(f"no state {name!r}: the states are {', '.join(self.states)}")
        return self.states.index(name)

    def state(self, name: str) -> np.ndarray:
        """The path of state ``name``: ``(R, len(t))``."""
        return self.paths[:, :, self._index(name)]

    def __getitem__(self, key):
        if self.founding:
            if key in ("events", "t", "q1", "q2", "z1", "z2"):
                return getattr(self, key)
            raise KeyError(key)
        return self.state(key)

    def _view(self, arr):
        return arr[0] if self.replications == 1 else arr

    @property
    def q1(self) -> np.ndarray:
        return self._view(self.state("q1"))

    @property
    def q2(self) -> np.ndarray:
        return self._view(self.state("q2"))

    @property
    def z1(self) -> np.ndarray:
        """``z1[l-1]`` is the path of ``z_{1,l}`` (``z1[r, l-1]`` when R > 1)."""
        return self._view(np.moveaxis(self.paths[:, :, 2 : 2 + self._L()], 2, 1))

    @property
    def z2(self) -> np.ndarray:
        return self._view(np.moveaxis(self.paths[:, :, 2 + self._L() :], 2, 1))

    def _L(self) -> int:
        if self.L is None:
            raise AttributeError("z1 and z2 are the founding model's views: use state(name)")
        return self.L

    @property
    def x(self) -> np.ndarray:
        """The scaled imbalance ``q1 - q2``."""
        return self.q1 - self.q2

    def replication(self, i: int) -> Simulation:
        """Replication ``i`` alone (a result with R = 1)."""
        import dataclasses

        sl = slice(i, i + 1)

        def cut(a):
            return None if a is None else a[sl]

        return dataclasses.replace(
            self,
            paths=self.paths[sl],
            events_per_replication=self.events_per_replication[sl],
            transition_counts=cut(self.transition_counts),
            final_counts=cut(self.final_counts),
        )

    # -- records -----------------------------------------------------------------------
    def run_parameters(self) -> dict:
        """Everything needed to repeat the run (the JSON's ``"parameters"``)."""
        return dict(self.run)

    def _path_json(self, i: int) -> dict:
        p = self.paths[i]
        L = self.L
        return {
            "events": int(self.events_per_replication[i]),
            "t": self.t.tolist(),
            "q1": p[:, 0].tolist(),
            "q2": p[:, 1].tolist(),
            "z1": p[:, 2 : 2 + L].T.tolist(),
            "z2": p[:, 2 + L :].T.tolist(),
        }

    def record(self) -> dict:
        head = {"parameters": self.run_parameters()}
        if self.founding:
            if self.replications == 1:
                return {**head, **self._path_json(0)}
            return {
                **head,
                "events": self.events,
                "replications": [self._path_json(i) for i in range(self.replications)],
            }
        return {
            "model": self.model_name,
            **head,
            "eta": self.eta,
            "seed": self.seed,
            "events": self.events,
            "t": self.t.tolist(),
            "paths": [{s: p[:, i].tolist() for i, s in enumerate(self.states)} for p in self.paths],
        }

    def csv_table(self) -> tuple[list[str], np.ndarray, list[str]]:
        """Header, rows ``replication, t, <states>`` and the number formats (for CSV)."""
        R, n, d = self.paths.shape
        rep = np.repeat(np.arange(R), n)[:, None]
        tt = np.tile(self.t, R)[:, None]
        rows = np.hstack([rep, tt, self.paths.reshape(R * n, d)])
        header = ["replication", "t", *self.states]
        fmt = ["%d"] + ["%.10g"] * (d + 1) if self.founding else ["%.17g"] * (d + 2)
        return header, rows, fmt

    def table(self):
        """The state at the end of the run, per replication (the notebook's table)."""
        rows = [[k, *(f"{v:.6g}" for v in p[-1])] for k, p in enumerate(self.paths)]
        return ["replication", *self.states], rows, f"{self.model_name}, t = {self.t[-1]:g}"

    def summary(self) -> str:
        """One line: the run and the state at its end (the command's text output)."""
        if not self.founding:
            end = ", ".join(
                f"{s}={self.paths[:, -1, i].mean():.6g}" for i, s in enumerate(self.states)
            )
            return (
                f"simulated {self.replications} path(s) of {self.model_name} (seed "
                f"{self.seed}), {self.events} events; at t={self.t[-1]:g} (mean over "
                f"replications): {end} (use --json or --csv)"
            )
        counts = self.transition_counts.sum(axis=0).tolist()
        head = (
            f"simulated {self.replications} path(s) (seed {self.seed}), {self.events} events "
            f"(arrival/phase/enter_service/service: {counts}); "
        )
        q1, q2 = self.paths[:, -1, 0], self.paths[:, -1, 1]
        at = f"at t={self.t[-1]:g}"
        if self.replications == 1:
            return head + f"{at}: q1={q1[0]:g} q2={q2[0]:g} (use --json or --csv)"
        return head + (
            f"{at}, mean and standard deviation over the {self.replications} replications: "
            f"q1={q1.mean():.6g} (sd {q1.std(ddof=1):.3g}), q2={q2.mean():.6g} "
            f"(sd {q2.std(ddof=1):.3g}) (use --json or --csv for each path)"
        )


#: Events per second the generated kernel sustains (benchmarks/results/generated_simulator.txt,
#: rounded down); the budget is the shared one (:mod:`symdelay.core.budget`).
EVENTS_PER_SECOND = 1.5e7
#: Generating and compiling the kernel: seconds per operation in the transition rates
#: (SymPy's count_ops; gcc's time grows with the printed rate code). Measured on this
#: 2-core machine, cold cache: nserver N = 30, L = 2 (3,810 operations) 3.2 s; N = 16,
#: L = 32 (1,616, 528 states) 0.67 s; N = 60, L = 1 (14,700) 8.7 s; N = 100 (40,500) 24 s:
#: 0.4-0.8 ms each, so 1 ms is an upper estimate.
COMPILE_SECONDS_PER_OP = 1e-3


def need_table(model, what: str) -> None:
    """The generic paths need a transition table; a model without one (the
    delay-differential ``dde`` model) is refused in one line."""
    from symdelay.model.core import Model

    if not isinstance(model, Model):
        raise SymdelayInputError(
            f"{getattr(model, 'name', model)} is a delay-differential model, not a transition "
            f"table: the {what} needs one (use --L inf with the founding model's commands, or "
            "'symdelay analyze --model dde')"
        )


def check_simulation_cost(model, eta: int, T: float, replications: int, force=False) -> None:
    """Refuse, before compiling, a generated simulation expected to take longer than the
    shared budget (compiling grows with the size of the rate expressions, running like the
    events)."""
    from symdelay.core.budget import check_budget

    point = {**model.equilibrium.point, **model.values}
    total = float(sum(t.rate.xreplace(point) for t in model.transitions))
    try:
        events = eta * T * float(replications) * total
    except OverflowError:
        events = float("inf")
    n = len(model.states)
    ops = sum(int(sp.count_ops(t.rate)) + 1 for t in model.transitions)
    check_budget(
        f"generating and compiling the simulator of {model.name} ({n} states, {ops} "
        "operations in its rates)",
        COMPILE_SECONDS_PER_OP * ops,
        force=force,
        shrink="a model with fewer states (a smaller --N or --L)",
    )
    check_budget(
        f"this run (about {events:.1g} events; total rate at the equilibrium {total:.3g} per "
        "unit eta)",
        events / EVENTS_PER_SECOND,
        force=force,
        shrink="a smaller --eta, --T or --replications",
    )


def _text(v):
    return v if isinstance(v, (str, int)) and not isinstance(v, bool) else str(v)


def simulate(
    model,
    eta=1000,
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
) -> Simulation:
    """Exact (Gillespie) sample paths of ``model``'s jump process at scale ``eta`` on the
    grid ``0, dt, ..., floor(T/dt) dt``.

    ``initial``: the job counts at time 0, one per state in the model's order of states
    (default: the model's own start; for a generic table ``eta`` times the equilibrium with
    its first state raised by half, rounded). ``seed``: an integer >= 0 (recorded).
    ``backend``: ``"auto"`` (C if it compiles), ``"c"`` or ``"python"`` (same draws).
    A run over the shared budget is refused unless ``force``.

    >>> from symdelay.models import build_model
    >>> m = build_model("nserver", N=2, L=1, mu=1, lam=1, theta=2, D=1)
    >>> s = simulate(m, eta=50, T=1, dt=0.5, seed=3)
    >>> s.t.tolist(), s.paths.shape
    ([0.0, 0.5, 1.0], (1, 3, 4))
    """
    kw = dict(
        eta=eta, T=T, dt=dt, initial=initial, seed=seed, replications=replications,
        backend=backend, threads=threads, progress=progress, monitor=monitor, force=force,
        chunk_events=chunk_events,
    )  # fmt: skip
    fast = specialisation(model, "simulate", method)
    if fast is not None:
        result = fast(model, **kw)
        if result is not None:
            return result
        declined(model, "simulate", method)
    need_table(model, "simulation")
    return _generic_simulate(model, **kw)


def _generic_simulate(
    model, *, eta, T, dt, initial, seed, replications, backend, threads, progress, monitor,
    force, chunk_events,
) -> Simulation:  # fmt: skip
    from symdelay.analysis.roots import default_initial, require_values
    from symdelay.analysis.simulate import generated_kernel
    from symdelay.core.checks import check_eta, check_horizon, time_grid

    require_values(model, "simulation")
    Tf, dtf = check_horizon(T, dt)
    if isinstance(seed, str) and seed.strip().isdigit():
        seed = int(seed.strip())
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise SymdelayInputError(f"seed must be an integer >= 0, got {seed!r}")
    seed = int(seed)
    if isinstance(replications, str):
        try:
            replications = int(replications.strip())
        except ValueError:
            raise SymdelayInputError(
                f"replications must be an integer >= 1, got {replications!r}"
            ) from None
    if isinstance(replications, bool) or not isinstance(replications, (int, np.integer)):
        raise SymdelayInputError(f"replications must be an integer >= 1, got {replications!r}")
    if replications < 1:
        raise SymdelayInputError(f"replications must be >= 1, got {replications}")
    eta = check_eta(eta)
    n = len(model.states)
    names = [s.name for s in model.states]
    if initial is None:
        counts = np.rint(default_initial(model) * eta).astype(np.int64)
    else:
        try:
            arr = np.asarray(initial, dtype=float)
        except (TypeError, ValueError):
            raise SymdelayInputError(
                f"the initial state needs {n} job counts: {', '.join(names)}"
            ) from None
        if arr.shape != (n,):
            raise SymdelayInputError(f"the initial state needs {n} job counts: {', '.join(names)}")
        if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr != np.round(arr)):
            raise SymdelayInputError("the initial state needs whole job counts >= 0")
        counts = arr.astype(np.int64)
    check_simulation_cost(model, eta, Tf, int(replications), force=force)
    kernel = generated_kernel(model)
    grid = time_grid(Tf, dtf)
    opts = {"threads": threads, "chunk_events": chunk_events, "progress": progress}
    run = kernel.run_replications(
        eta, counts, grid, seed, int(replications), backend=backend, **opts
    )
    params = {"model": model.name, **{str(k): str(v) for k, v in model.values.items()}}
    params.update(eta=eta, seed=seed, T=_text(T), dt=_text(dt), replications=int(replications))
    return Simulation(
        model_name=model.name,
        states=tuple(names),
        eta=eta,
        t=grid,
        paths=run.scaled,
        events_per_replication=run.events_per_replication,
        seed=seed,
        parameters={str(k): v for k, v in model.values.items()},
        run=params,
        initial=counts,
        backend=run.backend,
        T=Tf,
        dt=dtf,
    )


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
    w = np.asarray(difference_weights(model) if weights is None else weights, dtype=float)
    point = model.equilibrium.point
    init = [round(float(point[s]) * eta) for s in model.states]
    sim = simulate(model, eta, T, dt=dt, initial=init, seed=seed, force=force)
    if progress is not None:
        progress(1)
    X = (sim.paths[0] @ w) * eta
    X = X[np.asarray(sim.t) >= burn_in]
    n = X.size // batches
    if n < 2:
        raise SymdelayInputError("too few samples per batch: increase T or decrease dt")
    X = X[: n * batches].reshape(batches, n)
    est_b = ((X - X.mean()) ** 2).mean(axis=1) / eta
    est = float(est_b.mean())
    half = float(stats.t.ppf((1 + level) / 2, batches - 1) * est_b.std(ddof=1) / np.sqrt(batches))
    return SimulatedVariance(
        est, (est - half, est + half), batches, n * batches, sim.events, model_name=model.name
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


def variance(
    model,
    dps: int = 30,
    method: str = "auto",
    *,
    weights=None,
    closed_form: bool = True,
    force: bool = False,
) -> StationaryVariance:
    """The LNA stationary variance ``lim Var(w . X)/eta`` of the imbalance ``w``
    (default :func:`difference_weights`, ``q1 - q2``) at the equilibrium of ``model``;
    exact when the data are.

    Parameters
    ----------
    model : Model
        A model with numbers for every parameter and a stable equilibrium.
    dps : int
        Significant digits of the value (5..10000).
    method : {"auto", "generic", "specialised"}
        ``"auto"``: the family's fast path first (the founding model's difference-mode
        Lyapunov solve), else the Lyapunov equation of the full table
        (:func:`symdelay.analysis.lna.linear_noise`); the others force one path.
    weights : sequence, optional
        ``w``, one number per state (default: the first imbalance of the symmetry).
    closed_form : bool
        Attach the family's closed form (where it has one).
    force : bool
        Run even when the estimated cost is over the shared budget.

    Refused where the equilibrium is not stable (no stationary variance).

    >>> from symdelay.models import build_model
    >>> v = variance(build_model("nserver", N=3, L=1, mu=1, lam=1, theta=2, D=1))
    >>> v.value, v.to_json()["var_x_over_eta"]
    (4/3, '1.33333333333333333333333333333')
    """
    from symdelay.core.params import as_dps

    dps = as_dps(dps)
    fast = specialisation(model, "variance", method)
    if fast is not None and weights is None:
        result = fast(model, dps=dps, force=force)
        if result is not None:
            return _with_closed_form(model, result, closed_form)
        declined(model, "variance", method)
    elif fast is not None:
        declined(model, "variance", method)  # the fast path knows only q1 - q2
    need_table(model, "linear-noise variance")
    result = _generic_variance(model, dps, weights, force)
    return _with_closed_form(model, result, closed_form and weights is None)


def _with_closed_form(model, result: StationaryVariance, attach: bool) -> StationaryVariance:
    import dataclasses

    from symdelay.analysis.entry import closed_form

    cf = closed_form(model, "variance") if attach else None
    return dataclasses.replace(result, closed_form=cf) if cf is not None else result


def _generic_variance(model, dps, weights, force) -> StationaryVariance:
    from symdelay.analysis.lna import stationary_covariance
    from symdelay.analysis.roots import check_analysis_cost, require_values
    from symdelay.analysis.stability import is_stable

    require_values(model, "the linear-noise variance")
    check_analysis_cost(model, force=force)
    if is_stable(model) is not True:
        raise SymdelayInputError(
            "the equilibrium is not stable: the linear-noise approximation has no stationary "
            "covariance there"
        )
    w = difference_weights(model) if weights is None else list(weights)
    if w is None:
        raise SymdelayInputError(
            "this model declares no symmetry, so there is no imbalance to default to: give "
            "weights (one per state)"
        )
    names = tuple(s.name for s in model.states)
    if len(w) != len(names):
        raise SymdelayInputError(f"weights must have {len(names)} entries, got {len(w)}")
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
