"""The compiled right-hand side of an ODE system and its integration: the machinery under the
fluid entry (:mod:`symdelay.analysis.fluid`) and the delay fluid
(:mod:`symdelay.analysis.dfluid`), which both import it (neither imports the other's).

Overflow. A routing probability of the logit (softmax) form ``c_k exp(b_k) / sum_j c_j
exp(b_j)`` overflows in doubles for large ``theta q`` (``inf/inf``). The compiled drift reads
each such ratio as a symbol ``P_k`` evaluated with the largest exponent subtracted,
``w_j = c_j exp(d_j - max d)``, ``P_k = w_k / sum w``, where ``d_j = b_j - b_0`` is simplified
symbolically (so ``theta (q_1 - q_2)``, finite however large ``theta q`` is): no term
overflows, and ``P`` tends to 0 or 1 as it should. The Jacobian follows by the chain rule,
``dP_k/ds = P_k (dd_k/ds - sum_l P_l dd_l/ds)``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from symdelay.core.errors import SymdelayInputError

__all__ = [
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
    atol = DEFAULT_ATOL if atol is None else check_tolerance("atol", atol)
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


def check_tolerance(name: str, value) -> float:
    """A solver tolerance (or another positive number): finite and > 0, else one line
    naming it. The one rule of the fluid entry's ``rtol`` / ``atol`` and the command's
    ``--rtol`` / ``--atol``: an absolute tolerance 0 (pure relative error control) never
    meets its tolerance on a state that starts at 0, such as an empty delay phase, and the
    solver shrinks its steps without end.

    >>> check_tolerance("atol", 1e-9)
    1e-09
    >>> check_tolerance("atol", 0)
    Traceback (most recent call last):
    ...
    symdelay.core.errors.SymdelayInputError: atol must be a finite number > 0 (0 is pure relative error control, which never ends on a state that starts at 0), got 0
    """
    try:
        x = float(value)
    except (TypeError, ValueError, OverflowError):
        raise SymdelayInputError(f"{name} must be a number, got {value!r}") from None
    if isinstance(value, bool) or not (math.isfinite(x) and x > 0):
        why = (
            " (0 is pure relative error control, which never ends on a state that starts at 0)"
            if x == 0 and "atol" in name
            else ""
        )
        shown = repr(value) if isinstance(value, str) else value
        raise SymdelayInputError(f"{name} must be a finite number > 0{why}, got {shown}")
    return x
