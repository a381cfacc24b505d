"""The fluid path of any model: ``ds/dt = F(s)`` (the eta -> infinity limit of the scaled
jump process) integrated on a time grid, behind one entry that takes the model first.

:func:`fluid` asks the model's family for its fast path first (the founding model's ODEs
in the overflow-free logistic form, DOP853 or LSODA); otherwise the drift of the transition
table is integrated with LSODA and its exact Jacobian. Both return :class:`FluidSolution`.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from symdelay.analysis.entry import declined, specialisation
from symdelay.core.errors import SymdelayInputError
from symdelay.core.result import Result

__all__ = ["FluidSolution", "fluid", "check_fluid_cost"]


@dataclass(frozen=True, eq=False)
class FluidSolution(Result):
    """The fluid solution on a grid: ``y[k, i]`` is state ``i`` (scaled) at ``t[k]``.

    ``run`` is what was solved (the JSON's ``"parameters"``). ``L`` is set by the founding
    model's path (states ``q1, q2, z1_1..z1_L, z2_1..z2_L``): its JSON has the keys
    ``{"parameters", "t", "q1", "q2", "z1", "z2"}`` (those of its simulation), and
    ``solver`` says which integrator ran. Otherwise the JSON is ``{"model", "parameters",
    "t", "states": {name: path}}``.
    """

    states: tuple  # state names
    t: np.ndarray
    y: np.ndarray  # (len(t), number of states)
    parameters: dict  # the model's parameter values
    model_name: str | None = None
    run: dict = field(default_factory=dict)
    L: int | None = None
    solver: dict | None = None
    initial: np.ndarray | None = None

    @property
    def founding(self) -> bool:
        return self.L is not None

    def _index(self, name: str) -> int:
        if name not in self.states:
            raise KeyError(f"no state {name!r}: the states are {', '.join(self.states)}")
        return self.states.index(name)

    def state(self, name: str) -> np.ndarray:
        return self.y[:, self._index(name)]

    def __getitem__(self, key):
        if self.founding and key in ("t", "z1", "z2"):
            return getattr(self, key)
        if key == "t":
            return self.t
        return self.state(key)

    @property
    def q1(self):
        return self.state("q1")

    @property
    def q2(self):
        return self.state("q2")

    def _L(self) -> int:
        if self.L is None:
            raise AttributeError("z1 and z2 are the founding model's views: use state(name)")
        return self.L

    @property
    def z1(self):
        return self.y[:, 2 : 2 + self._L()].T

    @property
    def z2(self):
        return self.y[:, 2 + self._L() :].T

    @property
    def x(self):
        """The imbalance ``q1 - q2``."""
        return self.q1 - self.q2

    @property
    def w(self):
        """``w[l-1] = z1_l - z2_l``."""
        return self.z1 - self.z2

    def run_parameters(self) -> dict:
        return dict(self.run)

    def record(self) -> dict:
        if self.founding:
            return {
                "parameters": self.run_parameters(),
                "t": self.t.tolist(),
                "q1": self.q1.tolist(),
                "q2": self.q2.tolist(),
                "z1": self.z1.tolist(),
                "z2": self.z2.tolist(),
            }
        return {
            "model": self.model_name,
            "parameters": self.run_parameters(),
            "t": self.t.tolist(),
            "states": {s: self.y[:, i].tolist() for i, s in enumerate(self.states)},
        }

    def csv_table(self) -> tuple[list[str], np.ndarray, list[str]]:
        """Header, rows ``t, <states>`` and the number formats (for CSV)."""
        rows = np.column_stack([self.t, self.y])
        return ["t", *self.states], rows, ["%.17g"] * rows.shape[1]

    def table(self):
        """The state at the end of the path (the notebook's table)."""
        return (
            list(self.states),
            [[f"{v:.6g}" for v in self.y[-1]]],
            f"{self.model_name}, fluid path at t = {self.t[-1]:g}",
        )

    def summary(self) -> str:
        """One line (the command's text output)."""
        if self.founding:
            s = self.solver
            return (
                f"fluid solution ({s['method']}, rtol={s['rtol']}, atol={s['atol']}) on "
                f"{self.t.size} grid points; at t={self.t[-1]:g}: q1={self.q1[-1]:.6g} "
                f"q2={self.q2[-1]:.6g} (use --json or --csv)"
            )
        end = ", ".join(f"{s}={self.y[-1, i]:.6g}" for i, s in enumerate(self.states))
        return (
            f"fluid solution of {self.model_name} at t={self.t[-1]:g}: {end} (use --json or --csv)"
        )


def check_fluid_cost(what: str, n: int, T: float, dt: float, force: bool = False) -> None:
    """Refuse before integrating: a stiff n-dimensional system costs about n^2 T (measured on
    the founding model: 2(L+1) = 602 states, T = 20 in about 6 s), and the grid holds
    (T/dt + 1) n doubles (three copies)."""
    from symdelay.core.budget import check_budget, check_memory, power_cost

    shrink = "a smaller --L or --T (or a larger --dt for the memory)"
    check_memory(what, 8.0 * (T / dt + 1) * n * 3, force=force, shrink=shrink)
    check_budget(
        what, power_cost(n / 2 - 1, 7e-5, 2) * max(T, 1.0) / 20, force=force, shrink=shrink
    )


def _text(v):
    return v if isinstance(v, (str, int)) and not isinstance(v, bool) else str(v)


def fluid(
    model,
    T=20,
    dt=0.1,
    initial=None,
    method: str = "auto",
    *,
    solver: str = "auto",
    rtol: float = 1e-10,
    atol: float = 1e-12,
    force: bool = False,
) -> FluidSolution:
    """Integrate the fluid ODEs of ``model`` on the grid ``0, dt, ..., floor(T/dt) dt``.

    ``initial``: the scaled state at time 0, one value per state (default: the model's own
    start; for a generic table the equilibrium with its first state raised by half, or set
    to 1 if it is 0). ``solver``: a ``solve_ivp`` method (``"auto"``: the path's default,
    LSODA with the exact Jacobian for a table). Refused over the shared budget unless
    ``force``.

    >>> from symdelay.models import build_model
    >>> f = fluid(build_model("nserver", N=2, L=1, mu=1, lam=1, theta=2, D=1), T=1, dt=0.5)
    >>> f.t.tolist(), f.states
    ([0.0, 0.5, 1.0], ('q1', 'q2', 'z1_1', 'z2_1'))
    """
    kw = dict(T=T, dt=dt, initial=initial, solver=solver, rtol=rtol, atol=atol, force=force)
    fast = specialisation(model, "fluid", method)
    if fast is not None:
        result = fast(model, **kw)
        if result is not None:
            return result
        declined(model, "fluid", method)
    from symdelay.analysis.stochastic import need_table

    need_table(model, "fluid path")
    return _generic_fluid(model, **kw)


def _generic_fluid(model, *, T, dt, initial, solver, rtol, atol, force) -> FluidSolution:
    import sympy as sp
    from scipy.integrate import solve_ivp

    from symdelay.analysis.roots import default_initial, require_values
    from symdelay.core.checks import check_horizon, time_grid

    require_values(model, "the fluid path")
    Tf, dtf = check_horizon(T, dt)
    n = len(model.states)
    names = [s.name for s in model.states]
    if initial is None:
        y0 = default_initial(model)
    else:
        try:
            y0 = np.asarray(initial, dtype=float)
        except (TypeError, ValueError):
            y0 = None
        if y0 is None or y0.shape != (n,) or not np.all(np.isfinite(y0)) or np.any(y0 < 0):
            raise SymdelayInputError(
                f"the initial state needs {n} finite values >= 0 (in the order "
                + ", ".join(names)
                + ")"
            )
    check_fluid_cost(f"the fluid path of {model.name} ({n} states, T = {Tf:g})", n, Tf, dtf, force)
    F = sp.lambdify([model.states], list(model.drift), "numpy")
    Jf = sp.lambdify([model.states], model.drift_jacobian, "numpy")
    grid = time_grid(Tf, dtf)
    method = "LSODA" if solver == "auto" else solver
    kw = {"jac": lambda t, y: np.asarray(Jf(y), dtype=float)}
    if method not in ("Radau", "BDF", "LSODA"):
        kw = {}
    with np.errstate(over="raise", invalid="raise"), warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")  # what the solver says about its steps, kept
        try:
            sol = solve_ivp(
                lambda t, y: np.asarray(F(y), dtype=float),
                (0.0, float(grid[-1])),
                y0,
                method=method,
                t_eval=grid,
                rtol=rtol,
                atol=atol,
                **kw,
            )
        except FloatingPointError:
            raise SymdelayInputError(
                "the fluid path overflowed: the parameters are too extreme for double "
                "precision; scale them down"
            ) from None
    if said:  # LSODA's repeated convergence failures: its tolerances were not met
        reason = " ".join(str(said[0].message).split())
        raise SymdelayInputError(
            f"the fluid ODE solver could not meet its tolerances ({reason}): the rates are "
            "too far apart for double precision; give rates nearer each other"
        )
    if not sol.success:
        raise SymdelayInputError(f"the fluid ODE solver failed ({sol.message}); shorten T")
    run = {"model": model.name, **{str(k): str(v) for k, v in model.values.items()}}
    run.update(T=_text(T), dt=_text(dt))
    if initial is not None:
        run["initial"] = y0.tolist()
    return FluidSolution(
        model_name=model.name,
        states=tuple(names),
        t=sol.t,
        y=sol.y.T,
        parameters={str(k): v for k, v in model.values.items()},
        run=run,
        solver={"method": method, "rtol": rtol, "atol": atol},
        initial=y0,
    )
