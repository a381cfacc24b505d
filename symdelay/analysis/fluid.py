"""The fluid path of any model: ``ds/dt = F(s)`` (the eta -> infinity limit of the scaled
jump process) integrated on a time grid, behind one entry that takes the model first.

:func:`fluid` asks the model's family for its own integrator first (the SQ(d) mean field's
block-tridiagonal BDF, the LB model's sliding Euler path); otherwise the drift of the
transition table is compiled once per model (:func:`compile_rhs`) and integrated by SciPy's
``solve_ivp``. Every path returns a :class:`~symdelay.analysis.timeseries.TimeSeries`.

Overflow. A routing probability of the logit (softmax) form ``c_k exp(b_k) / sum_j c_j
exp(b_j)`` overflows in doubles for large ``theta q`` (``inf/inf``). The compiled drift reads
each such ratio as a symbol ``P_k`` evaluated with the largest exponent subtracted,
``w_j = c_j exp(d_j - max d)``, ``P_k = w_k / sum w``, where ``d_j = b_j - b_0`` is simplified
symbolically (so ``theta (q_1 - q_2)``, finite however large ``theta q`` is): no term
overflows, and ``P`` tends to 0 or 1 as it should. The Jacobian follows by the chain rule,
``dP_k/ds = P_k (dd_k/ds - sum_l P_l dd_l/ds)``.

Solver. ``"auto"``: DOP853 (explicit Runge-Kutta of order 8), or LSODA with the exact sparse
Jacobian when the fastest rate at which one state relaxes on its own, ``max_i |dF_i/ds_i|``
at the start, times ``T`` exceeds 10^4 (an explicit method would crawl); any ``solve_ivp``
method can be named (the implicit ones get the Jacobian). Defaults ``rtol = 1e-10``,
``atol = 1e-12``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from symdelay.analysis.entry import entry_doc, specialised
from symdelay.analysis.timeseries import TimeSeries
from symdelay.core.errors import SymdelayInputError

__all__ = [
    "fluid",
    "check_fluid_cost",
    "compile_rhs",
    "check_tolerance",
    "CompiledRHS",
    "integrate",
    "DEFAULT_RTOL",
    "DEFAULT_ATOL",
    "STIFF",
]

DEFAULT_RTOL, DEFAULT_ATOL = 1e-10, 1e-12
#: ``"auto"`` switches to LSODA when (fastest single-state rate) * T exceeds this.
STIFF = 1e4
_IVP_METHODS = ("RK45", "RK23", "DOP853", "Radau", "BDF", "LSODA")
_IMPLICIT = ("Radau", "BDF", "LSODA")


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


# ---------------------------------------------------------------------------------------
# the compiled right-hand side


def _exp_term(term):
    """``(c, b)`` when ``term = c * exp(b)`` with a number ``c > 0``, else None."""
    from symdelay.core.lazy import sympy as sp

    c, rest = term.as_coeff_Mul()
    if isinstance(rest, sp.exp) and c.is_number and c > 0:
        return c, rest.args[0]
    return None


def _softmax_groups(exprs):
    """The denominators ``sum_j c_j exp(b_j)`` of the expressions, each with its terms."""
    from symdelay.core.lazy import sympy as sp

    groups = {}
    for e in exprs:
        for node in sp.preorder_traversal(e):
            if node.is_Pow and node.exp == -1 and node.base.is_Add and node.base not in groups:
                terms = [_exp_term(t) for t in node.base.args]
                if len(terms) > 1 and all(t is not None for t in terms):
                    groups[node.base] = terms
    return groups


def _softmax_form(exprs):
    """``(rewritten expressions, groups)``: every ``exp(b_k) / sum_j c_j exp(b_j)`` factor
    replaced by ``P_k / c_k`` with a symbol ``P_k`` (exact: the symbol stands for the ratio);
    ``groups``: ``[(symbols P, coefficients c, differences d_j = b_j - b_0)]``."""
    from symdelay.core.lazy import sympy as sp

    found = _softmax_groups(exprs)
    if not found:
        return list(exprs), []
    groups, table = [], {}
    for g, (den, terms) in enumerate(found.items()):
        # names no state or parameter can have (a model's names never start with "__"),
        # plain symbols: lambdify prints them as they are (a Dummy costs a rewrite of every
        # expression per argument)
        P = [sp.Symbol(f"__softmax{g}_{k}") for k in range(len(terms))]
        c = [t[0] for t in terms]
        d = [sp.expand(t[1] - terms[0][1]) for t in terms]
        groups.append((P, c, d))
        table[den] = {t[1]: (P[k], c[k]) for k, t in enumerate(terms)}

    def swap(e):
        if not e.is_Mul:
            return e
        args = list(e.args)
        for den, by_exponent in table.items():
            inv = den**-1
            if inv not in args:
                continue
            for i, a in enumerate(args):
                if isinstance(a, sp.exp) and a.args[0] in by_exponent:
                    P, c = by_exponent[a.args[0]]
                    args[i] = P / c
                    args.remove(inv)
                    break
        return sp.Mul(*args)

    out = [sp.sympify(e).replace(lambda x: x.is_Mul, swap) for e in exprs]
    return out, groups


@dataclass
class CompiledRHS:
    """``f(t, y)`` and ``jac(t, y)`` of an ODE system compiled from SymPy expressions (see
    :func:`compile_rhs`); ``diagonal(y)``: ``dF_i/ds_i`` with the routing held fixed (the
    rate at which each state relaxes on its own: the stiffness rule)."""

    n: int
    f: object
    jac: object
    diagonal: object


def compile_rhs(states, rhs) -> CompiledRHS:
    """Compile ``ds/dt = rhs(s)`` (SymPy expressions in ``states``, every other symbol
    already a number) into NumPy code, with the softmax ratios in the overflow-free form of
    the module docstring. The Jacobian is built at its first call (only the implicit methods
    ask for it)."""
    from symdelay.core.lazy import sympy as sp
    from symdelay.model.pieces import as_piecewise

    states = list(states)
    n = len(states)
    # Min, Max, Abs, Heaviside as Piecewise: NumPy code, and derivatives branch by branch
    exprs, groups = _softmax_form([as_piecewise(sp.sympify(e)) for e in rhs])
    P = [p for g in groups for p in g[0]]
    args = (*states, *P)
    f_l = sp.lambdify(args, exprs, modules="numpy")
    # every group's differences d_1.. (d_0 = 0) in one call, then the softmax per group
    d_all = sp.lambdify(states, [d for g in groups for d in g[2][1:]] or [0], modules="math")
    coef = [[float(c) for c in g[1]] for g in groups]
    sizes = [len(c) for c in coef]
    pairs = all(k == 2 for k in sizes)
    exp, inf = math.exp, math.inf

    def softmax(d, c) -> list:
        m = max(d)  # d[0] = 0: m in [0, inf]
        if m == inf:
            w = [ck if dk == inf else 0.0 for ck, dk in zip(c, d)]
        else:
            w = [ck * exp(dk - m) for ck, dk in zip(c, d)]
        s = sum(w)
        return [wk / s for wk in w]

    def probs(y) -> list:
        d = d_all(*y)
        if pairs:  # two choices (two servers): the exponent on the smaller side only
            out = []
            for (c0, c1), dk in zip(coef, d):
                if dk > 0:
                    e = exp(-dk)  # <= 1
                    s = c0 * e + c1
                    out += [c0 * e / s, c1 / s]
                else:
                    e = exp(dk)
                    s = c0 + c1 * e
                    out += [c0 / s, c1 * e / s]
            return out
        out, at = [], 0
        for c, k in zip(coef, sizes):
            out += softmax([0.0, *d[at : at + k - 1]], c)
            at += k - 1
        return out

    def f(t, y):
        return np.array(f_l(*y, *probs(y)), dtype=float)

    index = {s: k for k, s in enumerate(states)}
    diag = [sp.diff(e, s) for e, s in zip(exprs, states)]
    diag_l = sp.lambdify(args, diag, modules="numpy")

    def diagonal(y):
        return np.array(diag_l(*y, *probs(y)), dtype=float) * np.ones(n)

    built = {}

    def build():
        entries = {}
        chain = {}  # row -> [(P position, dF_row/dP)]
        for i, e in enumerate(exprs):
            for s in e.free_symbols:
                if s in index:
                    entries[(i, index[s])] = sp.diff(e, s)
                elif s in P:
                    chain.setdefault(i, []).append((P.index(s), sp.diff(e, s)))
        keys = sorted(entries)
        vals = sp.lambdify(args, [entries[k] for k in keys], modules="numpy")
        rows = np.array([k[0] for k in keys], dtype=int)
        cols = np.array([k[1] for k in keys], dtype=int)
        crow = sorted(chain)
        cval = sp.lambdify(args, [v for i in crow for _, v in chain[i]], modules="numpy")
        cpos = [(i, k) for i in crow for k, _ in chain[i]]
        # the gradient of each difference d_j of each group: dense rows (few groups, few terms)
        grads = [
            sp.lambdify(states, [[sp.diff(dj, s) for s in states] for dj in g[2]], "numpy")
            for g in groups
        ]
        built.update(rows=rows, cols=cols, vals=vals, cval=cval, cpos=cpos, grads=grads)

    def jac(t, y):
        if not built:
            build()
        p = probs(y)
        J = np.zeros((n, n))
        if built["rows"].size:
            np.add.at(J, (built["rows"], built["cols"]), np.asarray(built["vals"](*y, *p), float))
        if built["cpos"]:
            dP, start = [], 0
            for grad, (Pg, _, _) in zip(built["grads"], groups):
                G = np.asarray(grad(*y), dtype=float).reshape(len(Pg), n)
                pg = np.array(p[start : start + len(Pg)])
                dP += list(pg[:, None] * (G - pg @ G))  # dP_k/ds
                start += len(Pg)
            for (i, k), v in zip(built["cpos"], built["cval"](*y, *p)):
                J[i] += float(v) * dP[k]
        return J

    return CompiledRHS(n, f, jac, diagonal)


def integrate(rhs: CompiledRHS, y0, grid, solver="auto", rtol=None, atol=None) -> tuple:
    """Integrate on ``grid`` from ``y0``: ``(y with shape (len(grid), n), solver record)``.
    ``solver``: ``"auto"`` (the module docstring's rule) or a ``solve_ivp`` method."""
    from scipy.integrate import solve_ivp  # imported on use: it is slow to import

    rtol = DEFAULT_RTOL if rtol is None else check_tolerance("rtol", rtol)
    atol = DEFAULT_ATOL if atol is None else check_tolerance("atol", atol, zero=True)
    T = float(grid[-1])
    if solver == "auto":
        with np.errstate(all="ignore"):
            rate = float(np.max(np.abs(rhs.diagonal(np.asarray(y0, float))), initial=0.0))
        method = "LSODA" if not rate * T <= STIFF else "DOP853"
    elif solver in _IVP_METHODS:
        method = solver
    else:
        raise SymdelayInputError(
            f"unknown solver {solver!r}: use auto or one of " + ", ".join(_IVP_METHODS)
        )
    kw = {"jac": rhs.jac} if method in _IMPLICIT else {}
    if T == 0.0:
        y = np.asarray(y0, dtype=float)[None, :]
    else:
        with (
            np.errstate(over="ignore", invalid="ignore", divide="ignore"),
            warnings.catch_warnings(record=True) as said,
        ):
            warnings.simplefilter("always")  # what the solver says about its steps, kept
            sol = solve_ivp(
                rhs.f, (0.0, T), np.asarray(y0, float), method=method, t_eval=grid,
                rtol=rtol, atol=atol, **kw,
            )  # fmt: skip
        if said:  # e.g. LSODA's repeated convergence failures: its tolerances were not met
            reason = " ".join(str(said[0].message).split())
            raise SymdelayInputError(
                f"the fluid ODE solver could not meet its tolerances ({reason}): the rates "
                "are too far apart for double precision; give rates nearer each other"
            )
        if not sol.success or not np.all(np.isfinite(sol.y)):
            raise SymdelayInputError(
                f"the ODEs could not be integrated in double precision ({method}: "
                f"{sol.message}): choose rates, theta and an initial state nearer 1, or a "
                "shorter T"
            )
        y = sol.y.T
    return y, {"method": method, "rtol": rtol, "atol": atol}


def check_tolerance(name: str, value, zero: bool = False) -> float:
    """A solver tolerance (or another positive number): finite and > 0 (>= 0 with
    ``zero``), else one line naming it."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise SymdelayInputError(f"{name} must be a number, got {value!r}") from None
    if isinstance(value, bool) or not math.isfinite(x) or x < 0 or (x == 0 and not zero):
        raise SymdelayInputError(
            f"{name} must be a finite number {'>=' if zero else '>'} 0, got {value!r}"
        )
    return x


# ---------------------------------------------------------------------------------------
# the entry


@entry_doc
def fluid(
    model,
    T=20,
    dt=0.1,
    initial=None,
    method: str = "auto",
    *,
    solver: str = "auto",
    rtol: float | None = None,
    atol: float | None = None,
    force: bool = False,
    history=None,
) -> TimeSeries:
    """Integrate the fluid equations of ``model`` on the grid ``0, dt, ..., floor(T/dt) dt``:
    the drift of its transition table, or, for a model with lags, its delay equations by the
    method of steps (:mod:`symdelay.analysis.dfluid`).

    Parameters
    ----------
    model : Model
        The model (its transition table), every parameter a number.
    T : number, default 20
        The horizon, in the model's time units; ``T > 0``.
    dt : number, default 0.1
        The step of the output grid (``0 < dt <= T``); the integrator chooses its own steps.
    initial : sequence of float, optional
        The scaled state at time 0, one value per state in the model's order; default the
        model's start (:meth:`~symdelay.model.Model.default_start`: the founding model's
        ``q1 = 0, q2 = 1``; a table's equilibrium with its first state raised by half; the
        SQ(d) model's empty system). For a model with lags, and unless ``history`` says
        otherwise, the history is this state held constant before 0.
    method : {"auto", "generic", "specialised"}, default "auto"
        %(method)s
        Here ``"auto"`` is the family's own integrator where it has one (SQ(d), LB), else the
        table's drift compiled once per model.
    solver : str, default "auto"
        ``"auto"`` (DOP853, or LSODA with the exact Jacobian when stiff) or a
        :func:`scipy.integrate.solve_ivp` method name.
    rtol, atol : float, optional
        The solver's relative and absolute tolerances (default 1e-10 and 1e-12).
    force : bool, default False
        Run even when the estimated cost is over the shared budget.
    history : None, "empty", str or dict, optional
        A model with lags only: the states before 0. ``None``: ``initial`` held constant;
        ``"empty"``: nothing decided before 0 (action delays only); a CSV file or a table
        ``{"t": [...], state: [...]}`` with ``t`` increasing to 0 over at least the longest
        lag, interpolated linearly.

    Returns
    -------
    TimeSeries
        ``kind="fluid"``: the path of every state on the grid, ``info["solver"]`` the
        integrator and its tolerances (with lags: the scheme, pieces, breakpoints and error
        control; a column ``in_transit[<transition>]`` per action-delayed transition, and
        ``res.at(times)`` the dense solution).

    Examples
    --------
    >>> from symdelay.models import build_model
    >>> f = fluid(build_model("nserver", N=2, L=1, mu=1, lam=1, theta=2, D=1), T=1, dt=0.5)
    >>> f.t.tolist(), f.states
    ([0.0, 0.5, 1.0], ('q1', 'q2', 'z1_1', 'z2_1'))
    """
    kw = dict(T=T, dt=dt, initial=initial, solver=solver, rtol=rtol, atol=atol, force=force)
    lags = bool(getattr(model, "lags", None))
    if history is not None and not lags:
        raise SymdelayInputError(
            f"--history is for a model with lags: {getattr(model, 'name', model)} has none "
            "(its path starts from --initial alone)"
        )
    if lags:
        kw["history"] = history
    result = specialised(model, "fluid", method, **kw)
    if result is not None:
        return result
    from symdelay.analysis.stochastic import need_table

    need_table(model, "fluid path")
    if lags:
        from symdelay.analysis.dfluid import delay_fluid

        return delay_fluid(model, **kw)
    return _generic_fluid(model, **kw)


def compiled_drift(model) -> CompiledRHS:
    """The model's drift compiled once per model (:func:`compile_rhs`)."""

    def compute():
        from symdelay.core.lazy import sympy as sp

        values = {p: sp.Float(v, 17) if not v.is_Rational else v for p, v in model.values.items()}
        return compile_rhs(model.states, [sp.sympify(e).xreplace(values) for e in model.drift])

    return model.cached("fluid drift", compute)


#: right-hand side evaluations allowed a path whose drift jumps (Heaviside, Piecewise)
MAX_STEP_EVALUATIONS = 200_000


def _bounded(model, rhs: CompiledRHS) -> CompiledRHS:
    """``rhs`` itself, or, where the drift may jump across a switch of a state (a step of
    ``Heaviside``, ``sign`` or a ``Piecewise``), one that refuses in one line after
    :data:`MAX_STEP_EVALUATIONS` evaluations: a path that slides along a step makes the
    error control shrink the steps without end."""
    from symdelay.core.lazy import sympy as sp

    states = set(model.states)
    jumps = [
        a
        for f in model.drift
        for a in sp.sympify(f).atoms(sp.Heaviside, sp.sign, sp.Piecewise)
        if a.free_symbols & states
    ]
    if not jumps:
        return rhs
    count = [0]
    f0 = rhs.f

    def f(t, y):
        count[0] += 1
        if count[0] > MAX_STEP_EVALUATIONS:
            raise SymdelayInputError(
                f"the fluid path of {model.name} reached a step of {jumps[0]} near t = "
                f"{t:.6g} and slides along it (a discontinuous drift the integrator cannot "
                "follow to its tolerance); a shorter --T, or parameters whose path stays off "
                "the step"
            )
        return f0(t, y)

    return CompiledRHS(rhs.n, f, rhs.jac, rhs.diagonal)


def _generic_fluid(model, *, T, dt, initial, solver, rtol, atol, force) -> TimeSeries:
    from symdelay.analysis.roots import default_initial, require_values
    from symdelay.analysis.stochastic import check_table_cost, run_parameters, state_count
    from symdelay.core.checks import check_horizon, check_state, time_grid

    Tf, dtf = check_horizon(T, dt)
    n = state_count(model)
    check_fluid_cost(f"the fluid path of {model.name} ({n} states, T = {Tf:g})", n, Tf, dtf, force)
    check_table_cost(model, force)
    require_values(model, "the fluid path")
    names = [s.name for s in model.states]
    y0 = default_initial(model) if initial is None else check_state(initial, names)
    grid = time_grid(Tf, dtf)
    y, record = integrate(_bounded(model, compiled_drift(model)), y0, grid, solver, rtol, atol)
    params = run_parameters(model)
    params.update(T=Tf, dt=dtf, initial=y0.tolist())
    return TimeSeries(
        tuple(names), grid, y, params, kind="fluid", model_name=model.name,
        info={"solver": record},
    )  # fmt: skip
