"""The fluid limit integrated numerically: SciPy ``solve_ivp`` on the model layer's ODEs.

The right-hand side is :meth:`ActionDelayModel.fluid_rhs` (or the exact difference system)
turned into NumPy code by :func:`sympy.lambdify` together with its Jacobian, once per
``(L, mu, lam, theta, D)`` (cached). Default solver: ``DOP853`` (explicit Runge--Kutta of
order 8) with ``rtol = 1e-10``, ``atol = 1e-12``, or LSODA when the problem is stiff
(``max(gamma, mu) T > 10^4``); any ``solve_ivp`` method can be chosen (implicit ones get
the exact Jacobian). The logit probabilities are evaluated without overflow for any theta.

>>> f = fluid(L=1, mu=1, lam=1, theta=2, D=1, T=2, dt=1)
>>> [round(float(v), 6) for v in f.q1 + f.q2]  # the sum mode relaxes to 2 lam/mu = 2
[1.0, 0.896362, 1.323324]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import expit

from symdelay.analysis.fluid import FluidSolution
from symdelay.core import symbols as sym
from symdelay.core.checks import check_horizon, check_rates, time_grid
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.models import ActionDelayModel
from symdelay.models.erlang.stochastic._models import symbolic_model

__all__ = [
    "fluid",
    "specialised_fluid",
    "fluid_difference",
    "FluidSolution",
    "DifferenceResult",
    "DEFAULT_SOLVER",
]

#: The default integrator and tolerances. ``"auto"`` is DOP853, or LSODA when the problem
#: is stiff (``max(gamma, mu) T > 10^4``, where an explicit method would crawl).
DEFAULT_SOLVER = {"method": "auto", "rtol": 1e-10, "atol": 1e-12}


@lru_cache(maxsize=64)
def _model(L, mu, lam, theta, D) -> ActionDelayModel:
    return ActionDelayModel(L=L, mu=mu, lam=lam, theta=theta, D=D)


def _symbolic_difference_system(L):
    return symbolic_model(L).difference_system()


@lru_cache(maxsize=64)
def _compiled(L, mu, lam, theta, D, mode: str):
    """``(f(t, y), jac(t, y))`` lambdified from the model's symbolic right-hand side.

    In the full system the logit probabilities are evaluated in the overflow-free form
    ``p_1 = expit(theta (q2 - q1))``, ``p_2 = expit(theta (q1 - q2))``: the model's
    expressions are checked to be these functions before they are replaced, and the
    Jacobian follows by the chain rule.
    """
    if mode == "full":
        m = _model(L, mu, lam, theta, D)
        state, rhs = m.state, m.fluid_rhs()
        rhs, P = _logistic_form(m, state, rhs, theta)
    else:
        # Derived once per L with symbolic parameters (the model layer's tanh check needs
        # theta symbolic), then the numbers are substituted.
        ds = _symbolic_difference_system(L)
        values = {sym.mu: mu, sym.lam: lam, sym.theta: theta, sym.gamma: sp.Integer(L) / D}
        state, rhs = ds.state, tuple(e.subs(values) for e in ds.rhs)
        P = ()
    f_l = sp.lambdify((*state, *P), list(rhs), modules="numpy")
    th = float(theta)
    n = len(state)

    def probs(y):
        if not P:
            return ()
        with np.errstate(over="ignore"):  # theta (q2 - q1) = +-inf gives p1 = 1 or 0
            return (float(expit(th * (y[1] - y[0]))), float(expit(th * (y[0] - y[1]))))

    def f(t, y):
        return np.array(f_l(*y, *probs(y)), dtype=float)

    built = {}

    def jac(t, y):
        # built at first use: only the implicit methods call it (large L makes it slow)
        if not built:
            built.update(zip(("rows", "cols", "fn"), _sparse_jacobian(state, rhs, P, theta)))
        J = np.zeros((n, n))
        J[built["rows"], built["cols"]] = built["fn"](*y, *probs(y))
        return J

    return f, jac, tuple(str(s) for s in state)


def _sparse_jacobian(state, rhs, P, theta):
    """``(rows, cols, fn)``: the nonzero entries of the Jacobian of ``rhs`` with respect to
    ``state`` and ``fn(*state, *P)`` their values. With logit symbols ``P`` the chain rule
    uses ``d p1/d q1 = -theta p1 p2 = -d p1/d q2`` (and the signs swapped for ``p2``)."""
    index = {s: k for k, s in enumerate(state)}
    entries = {}
    for i, e in enumerate(rhs):
        e = sp.sympify(e)
        for s in e.free_symbols & set(index):
            entries[(i, index[s])] = entries.get((i, index[s]), 0) + sp.diff(e, s)
        for k, p in enumerate(P):
            if e.has(p):
                g = sp.diff(e, p) * theta * P[0] * P[1]
                sign = -1 if k == 0 else 1  # d p1/d q1 < 0, d p2/d q1 > 0
                entries[(i, 0)] = entries.get((i, 0), 0) + sign * g
                entries[(i, 1)] = entries.get((i, 1), 0) - sign * g
    keys = sorted(entries)
    fn = sp.lambdify((*state, *P), [entries[k] for k in keys], modules="numpy")
    rows = np.array([k[0] for k in keys], dtype=int)
    cols = np.array([k[1] for k in keys], dtype=int)
    return rows, cols, lambda *a: np.array(fn(*a), dtype=float)


def _logistic_form(m, state, rhs, theta):
    """Write the model's right-hand side in symbols ``p1, p2`` for the logit probabilities
    (see :func:`_compiled`).

    The probabilities are checked to be the logistic functions of ``theta (q2 - q1)``, then
    ``exp(-theta q_i)`` is replaced by ``p_i``: every expression is a ratio of degree 0 in
    the two exponentials (checked), so this is exact, and so is the chain rule with
    ``d exp(-theta q_i)/d q_i = -theta exp(-theta q_i)`` through the symbols ``p_i``.
    """
    probs = m.routing_probabilities()
    if all(p.is_number for p in probs):  # theta = 0: constants, nothing to replace
        return rhs, ()
    q1, q2 = state[0], state[1]
    for p, sign in zip(probs, (1, -1)):
        if sp.simplify(p - 1 / (1 + sp.exp(sign * theta * (q1 - q2)))) != 0:
            raise VerificationError(f"the routing probability {p} is not the logistic function")
    P = sp.symbols("p1 p2")
    swap = {}
    for e in set().union(*(sp.sympify(r).atoms(sp.exp) for r in rhs)):
        for q, s in zip((q1, q2), P):
            if sp.expand(e.args[0] + theta * q) == 0:
                swap[e] = s
    out = tuple(sp.sympify(r).xreplace(swap) for r in rhs)
    c = sp.Symbol("c", positive=True)
    scaled = {P[0]: c * P[0], P[1]: c * P[1]}
    if any(r.has(sp.exp) for r in out) or any(
        sp.simplify(r.xreplace(scaled) - r) != 0 for r in out if r.has(*P)
    ):
        raise VerificationError("the logit probabilities were not found in the fluid ODEs")
    return out, P


def _auto_method(method, p, T):
    """``"auto"``: DOP853, or LSODA (stiff-capable) when ``max(gamma, mu) T > 10^4``."""
    if method != "auto":
        return method
    rate = max(float(p["gamma"]), float(p["mu"]))
    return "LSODA" if rate * T > 1e4 else "DOP853"


def _check_double(p) -> None:
    """The ODEs are integrated in doubles: every rate must be a finite double (> 0)."""
    if not math.isfinite(float(p["theta"])):
        raise SymdelayInputError(
            f"theta={float(p['theta']):.3g} is beyond double precision: any theta above about "
            "1e15 already routes like join-the-shortest-queue; choose theta <= 1e300"
        )
    for k in ("mu", "lam", "gamma"):
        v = float(p[k])
        if not 1e-300 <= v <= 1e300:
            raise SymdelayInputError(
                f"{k}={v:.3g} is outside the range this integrator handles in double "
                "precision: choose a value between 1e-300 and 1e300"
            )


def _solve(f, jac, y0, grid, method, rtol, atol):
    from scipy.integrate import solve_ivp  # imported on use: it is slow to import

    kw = {"jac": jac} if method in ("Radau", "BDF", "LSODA") else {}
    with np.errstate(over="ignore", invalid="ignore"):
        sol = solve_ivp(
            f, (0.0, float(grid[-1])), y0, method=method, t_eval=grid, rtol=rtol, atol=atol, **kw
        )
    if not sol.success or not np.all(np.isfinite(sol.y)):
        raise SymdelayInputError(
            f"the fluid ODEs could not be integrated for these parameters ({method}: "
            f"{sol.message}): choose rates, theta and an initial state nearer 1"
        )
    return sol.y


def _check_initial(initial, n, what):
    try:
        y0 = np.asarray(initial, dtype=float)
    except (TypeError, ValueError):
        raise SymdelayInputError(f"initial must be {n} numbers ({what}), got {initial!r}") from None
    if y0.ndim != 1 or y0.size != n:
        raise SymdelayInputError(f"initial must have {n} entries ({what}), got {y0.size}")
    if not np.all(np.isfinite(y0)):
        raise SymdelayInputError("initial must contain finite numbers")
    return y0


def fluid(
    L=2,
    mu=1,
    lam=1,
    theta=2,
    D=1,
    T=20,
    dt=0.1,
    initial=None,
    *,
    method: str = DEFAULT_SOLVER["method"],
    rtol: float = DEFAULT_SOLVER["rtol"],
    atol: float = DEFAULT_SOLVER["atol"],
    force: bool = False,
    kappa=None,
) -> FluidSolution:
    """The founding model's fluid path, :func:`symdelay.analysis.fluid.fluid` of
    ``model(L, mu, lam, theta, D)`` (``kappa=``: the ``inflight`` model). ``method`` is the
    ``solve_ivp`` method (``"auto"``: DOP853, or LSODA when stiff)."""
    from symdelay.analysis.fluid import fluid as entry
    from symdelay.models.erlang.stochastic.simulate import _founding_or_inflight

    model = _founding_or_inflight(L, mu, lam, theta, D, kappa)
    kw = dict(solver=method, rtol=rtol, atol=atol, force=force)
    return entry(model, T=T, dt=dt, initial=initial, **kw)


def specialised_fluid(
    model, *, T, dt, initial=None, solver="auto", rtol=1e-10, atol=1e-12, force=False
) -> FluidSolution | None:
    """Integrate the founding model's 2(L+1) fluid ODEs on the grid
    ``0, dt, ..., floor(T/dt) dt``; declines (``None``) where a parameter is symbolic.

    ``initial`` is the scaled state ``q1, q2, z1_1..z1_L, z2_1..z2_L`` (default
    ``q1 = 0, q2 = 1``, the rest 0, like the paper and :func:`simulate`). The stiff system
    costs about L^2 T (measured: L = 300, T = 20 in about 6 s) and the grid holds
    (T/dt + 1) 2(L+1) doubles: refused over the shared budget unless ``force``.
    """
    from symdelay.core.budget import check_budget, check_memory, power_cost

    o = model.options
    if model.infinite or any(o[k] is None for k in ("mu", "lam", "theta", "D")):
        return None
    p = check_rates(o["L"], o["mu"], o["lam"], o["theta"], o["D"])
    L = p["L"]
    T, dt = check_horizon(T, dt)
    what = f"the fluid solution for L = {L}, T = {T:g}"
    shrink = "a smaller --L or --T (or a larger --dt for the memory)"
    check_memory(what, 8.0 * (T / dt + 1) * 2 * (L + 1) * 3, force=force, shrink=shrink)
    check_budget(what, power_cost(L, 7e-5, 2) * max(T, 1.0) / 20, force=force, shrink=shrink)
    grid = time_grid(T, dt)
    n = 2 * L + 2
    if initial is None:
        y0 = np.zeros(n)
        y0[1] = 1.0
    else:
        y0 = _check_initial(initial, n, "q1, q2, z1_1..z1_L, z2_1..z2_L")
        if np.any(y0 < 0):
            raise SymdelayInputError("initial must contain scaled job counts >= 0")
    _check_double(p)
    method = _auto_method(solver, p, T)
    f, jac, _ = _compiled(L, p["mu"], p["lam"], p["theta"], p["D"], "full")
    y = _solve(f, jac, y0, grid, method, rtol, atol)
    params = {k: p[k] for k in ("mu", "lam", "theta", "D", "gamma")}
    solver = {"method": method, "rtol": rtol, "atol": atol}
    run = {"L": L, **{k: str(v) for k, v in params.items()}}
    run.update({"T": float(grid[-1]), "dt": float(grid[1] - grid[0]) if grid.size > 1 else T})
    run.update({"initial": y0.tolist(), "solver": dict(solver)})
    states = ("q1", "q2", *(f"z{i}_{l}" for i in (1, 2) for l in range(1, L + 1)))
    return FluidSolution(
        model_name=model.name,
        states=states,
        t=grid,
        y=y.T,
        parameters=params,
        run=run,
        L=L,
        solver=solver,
        initial=y0,
    )


@dataclass
class DifferenceResult:
    """The exact (tanh) difference dynamics ``x, w_1..w_L`` on a grid."""

    L: int
    parameters: dict
    t: np.ndarray
    x: np.ndarray
    w: np.ndarray  # (L, len(t))
    solver: dict

    def to_json(self) -> dict:
        return {"t": self.t.tolist(), "x": self.x.tolist(), "w": self.w.tolist()}


def fluid_difference(
    L=2,
    mu=1,
    lam=1,
    theta=2,
    D=1,
    T=20,
    dt=0.1,
    initial=(0.5,),
    *,
    method: str = DEFAULT_SOLVER["method"],
    rtol: float = DEFAULT_SOLVER["rtol"],
    atol: float = DEFAULT_SOLVER["atol"],
) -> DifferenceResult:
    """Integrate the closed difference mode from ``(x(0), w_1(0), ..)`` (missing w's are 0).

    The default start ``(0.5, 0, ..., 0)`` is the paper's phase-plot start.
    """
    p = check_rates(L, mu, lam, theta, D)
    L = p["L"]
    T, dt = check_horizon(T, dt)
    grid = time_grid(T, dt)
    init = _check_initial(initial, len(initial) if initial else 0, "x, w_1, ...")
    if not 1 <= init.size <= L + 1:
        raise SymdelayInputError(f"initial must have 1 to L+1 = {L + 1} entries (x, w_1..w_L)")
    y0 = np.zeros(L + 1)
    y0[: init.size] = init
    _check_double(p)
    method = _auto_method(method, p, T)
    f, jac, _ = _compiled(L, p["mu"], p["lam"], p["theta"], p["D"], "difference")
    y = _solve(f, jac, y0, grid, method, rtol, atol)
    params = {k: p[k] for k in ("mu", "lam", "theta", "D", "gamma")}
    return DifferenceResult(
        L, params, grid, y[0], y[1:], {"method": method, "rtol": rtol, "atol": atol}
    )
