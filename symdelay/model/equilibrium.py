"""Equilibria of a model's drift: solved exactly where SymPy can, else proved numerically.

With a declared symmetry the search starts in the fixed subspace (every orbit of the
permutation at one value), where logit-type routing becomes constant and the equations are
often linear. A solution is substituted back into the *full* drift, which must vanish on
the parameters' domains, decided exactly (:func:`symdelay.model.signs.zero_on`: rational
functions cancelled, radicals by the decision procedure, exponential identities by
``simplify``); a candidate that does not zero it is no equilibrium and is dropped, and one
whose check is undecided is said so in one line.
Where no closed form is found and every parameter has a value, Newton's method at working
precision gives a point and a Krawczyk interval test (python-flint ``arb``) proves that a
unique zero lies in a small box around it.
"""

from __future__ import annotations

import mpmath

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.precision import work_dps, workdps, workprec
from symdelay.model.arb_eval import arb_evaluator
from symdelay.model.records import Equilibrium, _cycles, _is_zero

__all__ = ["find_equilibrium", "at_point", "EQUILIBRIUM_DPS"]

#: Working precision (digits) of the numeric equilibrium.
EQUILIBRIUM_DPS = 30


def _simplify_entry(e):
    if e.is_number:
        return sp.simplify(e)  # exact: nsimplify would round 1 + 3*exp(-40) to 1
    if e.has(sp.exp, sp.tanh):
        return sp.simplify(e)
    return sp.factor(sp.cancel(e)) if e.has(sp.Pow) else sp.expand(e)


def at_point(M: sp.Matrix, eq: Equilibrium) -> sp.Matrix:
    """``M`` evaluated at the equilibrium (simplified; numeric at working precision)."""
    out = M.xreplace(eq.point)
    if eq.exact:
        return out.applyfunc(_simplify_entry)
    return out.applyfunc(lambda e: sp.Float(e.evalf(EQUILIBRIUM_DPS), EQUILIBRIUM_DPS))


def _admissible(sol: dict, states) -> bool | None:
    """False if some state is provably negative; True if all provably >= 0; else None."""
    verdict = True
    for s in states:
        v = sol[s]
        if v.is_extended_negative or (v.has(sp.I) and v.is_real is False):
            return False
        if v.is_extended_nonnegative is not True:
            verdict = None
    return verdict


def _with_domains(model) -> dict:
    """Parameters replaced by symbols carrying their domain (for sign decisions)."""
    out = {}
    for p, dom in model.domains.items():
        if p in model.values:
            continue
        if dom in ("positive", "probability"):
            out[p] = sp.Symbol(p.name, positive=True)
        elif dom == "nonnegative":
            out[p] = sp.Symbol(p.name, nonnegative=True)
        else:
            out[p] = sp.Symbol(p.name, real=True)
    return out


#: the most unknowns whose exact equilibrium is put through sp.simplify for printing
TIDY_MAX = 60


def _zeroes_drift(model, point: dict) -> bool | None:
    """Does ``point`` zero every component of the drift on the free parameters' domains?
    False as soon as one component is proven nonzero; None if one is undecided."""
    domains = {p: d for p, d in model.domains.items() if p not in model.values}
    verdict = True
    for f in model.steady_drift:
        zero = _is_zero(f.xreplace(point), None, domains)
        if zero is False:
            return False
        if zero is None:
            verdict = None
    return verdict


def _exact(model) -> Equilibrium | None:
    states = model.states
    sub: dict = {}
    unknowns = list(states)
    if model.permutation is not None:
        unknowns = []
        for cyc in _cycles(model.permutation):
            rep = states[cyc[0]]
            unknowns.append(rep)
            for j in cyc[1:]:
                sub[states[j]] = rep
    assume = _with_domains(model)
    back = {v: k for k, v in assume.items()}
    eqs = []
    for f in model.steady_drift:
        g = sp.simplify(f.xreplace(sub)) if f.has(sp.exp) else sp.expand(f.xreplace(sub))
        g = g.xreplace(assume)
        if g != 0 and g not in eqs:
            eqs.append(g)
    known = set(unknowns)
    if any(f.free_symbols & known for g in eqs for f in g.atoms(sp.exp, sp.tanh, sp.log)):
        # transcendental in the unknowns: no closed form attempted here
        return None
    sols = _linear_solution(eqs, unknowns)  # one point in lowest terms, or None
    # sp.simplify gives the printed form (derivations, LaTeX); past TIDY_MAX unknowns it would
    # cost more than the solve, and the elimination's lowest terms are printed as they are
    sols_by_solve = sols is None
    tidy = sols_by_solve or len(unknowns) <= TIDY_MAX
    if sols_by_solve:
        try:
            sols = sp.solve(eqs, unknowns, dict=True)
        except NotImplementedError:
            return None
    full = []
    for sol in sols:
        if any(u not in sol for u in unknowns):
            continue  # a family, not a point
        point = {u: sp.simplify(sol[u]) if tidy else sol[u] for u in unknowns}
        point.update({s: point[rep] for s, rep in sub.items()})
        full.append({s: point[s] for s in states})
    ok = []
    undecided = []
    for p in full:
        if _admissible(p, states) is False:
            continue
        zero = _zeroes_drift(model, {s: v.xreplace(back) for s, v in p.items()})
        if zero is False:  # not a solution (a root brought in by squaring, say)
            continue
        ok.append(p)
        if zero is None:
            undecided.append(p)
    interior = [p for p in ok if all(p[s].is_positive for s in states)]
    pick = interior if len(interior) == 1 else ok
    if len(pick) != 1:
        if len(ok) > 1:
            shown = "; ".join(", ".join(f"{k}={v}" for k, v in p.items()) for p in ok[:3])
            if all(_admissible(p, states) for p in ok):
                what = f"{len(ok)} equilibria"
            else:  # complex radicals (a cubic's roots) whose signs depend on the parameters
                what = f"{len(ok)} closed-form solutions, not all proven real and >= 0"
            raise SymdelayInputError(
                f"{model.source}: {what} ({shown[:300]}): the analyses need one; give "
                "parameter values that single one out"
            )
        return None
    if pick[0] in undecided:
        free = _drift_parameters(model)
        if not free:
            return None  # every parameter has a number: Newton + Krawczyk decide
        shown = ", ".join(f"{k}={v}" for k, v in pick[0].items())
        raise SymdelayInputError(
            f"{model.source}: cannot decide that the closed-form equilibrium {shown[:200]} "
            "zeroes the drift for every value of the parameters (an identity neither the "
            "decision procedure nor simplify settles): give numbers for "
            + ", ".join(map(str, free))
        )
    point = {s: v.xreplace(back) for s, v in pick[0].items()}
    how = "sympy.solve" if sols_by_solve else "exact linear elimination"
    return Equilibrium(point, True, 0, how + (" (symmetric subspace)" if sub else ""))


def _linear_solution(eqs, unknowns):
    """``[solution]`` of a square or overdetermined system *linear* in the unknowns with a
    unique solution, by sparse exact elimination over the rational functions of the
    parameters (SymPy's DomainMatrix: the solution comes in lowest terms); None where the
    system is not linear, its coefficients are no rational functions, or the solution is not
    unique (the caller then asks sp.solve). ``sp.solve`` on the same system recurses past
    Python's limit near 1000 unknowns and costs seconds at 200."""
    from sympy.polys.matrices import DomainMatrix

    try:  # raises where an equation is not linear in the unknowns
        M, rhs = sp.linear_eq_to_matrix(eqs, unknowns)
    except (ValueError, sp.PolynomialError):
        return None
    dm = DomainMatrix.from_Matrix(sp.SparseMatrix(M.row_join(rhs))).to_sparse()
    K = dm.domain
    if K.is_EX or K.is_EXRAW or not K.is_Exact:
        return None
    dm = dm.to_field()
    red, pivots = dm.rref()
    n = len(unknowns)
    if tuple(pivots) != tuple(range(n)):
        return None  # a family (rank < n) or no solution (a pivot in the last column)
    K = red.domain
    rows = red.to_sdm()
    sol = {}
    for i, u in enumerate(unknowns):
        sol[u] = K.to_sympy(rows.get(i, {}).get(n, K.zero))
    return [sol]


def _drift_parameters(model) -> list:
    """The free parameters the drift depends on."""
    return [p for p in model.free_parameters if any(f.has(p) for f in model.steady_drift)]


def _numeric(model, dps: int = EQUILIBRIUM_DPS) -> Equilibrium:
    import numpy as np
    from scipy.integrate import solve_ivp

    free = _drift_parameters(model)
    if free:
        raise SymdelayInputError(
            f"{model.source}: no closed-form equilibrium: give numbers for "
            + ", ".join(str(p) for p in free)
            + " to find it numerically"
        )
    states = model.states
    n = len(states)
    F = sp.lambdify([states], list(model.steady_drift), "numpy")
    Jf = sp.lambdify([states], model.steady_jacobian, "numpy")
    with np.errstate(all="ignore"):
        sol = solve_ivp(
            lambda t, y: np.asarray(F(y), dtype=float),
            (0.0, 200.0),
            np.ones(n),
            method="LSODA",
            jac=lambda t, y: np.asarray(Jf(y), dtype=float),
            rtol=1e-10,
            atol=1e-12,
        )
    start = sol.y[:, -1] if sol.success and np.all(np.isfinite(sol.y[:, -1])) else np.ones(n)
    Fm = sp.lambdify([states], list(model.steady_drift), "mpmath")
    Jm = sp.lambdify([states], model.steady_jacobian, "mpmath")
    with workdps(dps):
        try:
            x = mpmath.findroot(
                lambda *v: Fm(list(v)),
                [mpmath.mpf(float(v)) for v in start],
                J=lambda *v: Jm(list(v)),
                tol=mpmath.mpf(10) ** (-(dps + 5)),
                maxsteps=200,
            )
        except (ValueError, ZeroDivisionError, TypeError) as exc:
            raise SymdelayInputError(
                f"{model.source}: no equilibrium found (Newton from the fluid path failed: {exc}); "
                "check the rates and parameter values"
            ) from None
        # findroot gives a matrix for a list of starts (also of one), else a number
        x = [x[i] for i in range(n)] if isinstance(x, mpmath.matrix) else [x]
        radius = _krawczyk(model, x, dps)
    point = {s: sp.Float(v, dps) for s, v in zip(states, x)}
    return Equilibrium(point, False, radius, "Newton + Krawczyk (arb)")


def _krawczyk(model, x, dps: int):
    """Prove a unique zero of the drift within ``x +- rho``; returns ``rho`` (an mpf)."""
    import flint

    n = len(x)
    with workprec(dps):
        Fa = arb_evaluator(list(model.steady_drift), model.states)
        Ja = arb_evaluator(list(model.steady_jacobian), model.states)
        mid = [flint.arb(mpmath.nstr(v, work_dps(dps))) for v in x]
        J0 = mpmath.matrix([[float(Ja(mid)[i * n + j].mid()) for j in range(n)] for i in range(n)])
        try:
            C = J0**-1
        except ZeroDivisionError:
            raise SymdelayInputError(
                f"{model.source}: the Jacobian is singular at the equilibrium: it cannot be "
                "isolated; change the parameters"
            ) from None
        Cq = [[flint.arb(mpmath.nstr(C[i, j], 20)) for j in range(n)] for i in range(n)]
        Fx = Fa(mid)
        for exp10 in range(dps - 2, 2, -3):
            rho = flint.arb(10) ** (-exp10)
            box = [m + flint.arb(0, rho) for m in mid]
            JX = Ja(box)
            ok = True
            for i in range(n):
                k = mid[i] - sum((Cq[i][j] * Fx[j] for j in range(n)), flint.arb(0))
                for j in range(n):
                    cj = sum((Cq[i][m] * JX[m * n + j] for m in range(n)), flint.arb(0))
                    k += ((1 if i == j else 0) - cj) * flint.arb(0, rho)
                lo, hi = k.mid() - k.rad(), k.mid() + k.rad()
                if not (lo > mid[i] - rho and hi < mid[i] + rho):
                    ok = False
                    break
            if ok:
                return mpmath.mpf(10) ** (-exp10)
        raise VerificationError("the numeric equilibrium could not be proved (Krawczyk test)")


def _balanced(model) -> Equilibrium | None:
    """An equilibrium where every exponential of the states has one argument.

    Logit-type routing ``exp(a_i(x)) / sum_j exp(a_j(x))`` is transcendental in the states,
    but where all ``a_i`` are equal it is a constant: with the constraints ``a_i = a_1``
    the equations become algebraic (two unequal delays before equal servers: every queue
    at ``lam/mu``). A single admissible solution, substituted back into the full drift
    (which must vanish identically), is returned; None otherwise."""
    states = list(model.states)
    atoms = sorted(
        {e for f in model.steady_drift for e in f.atoms(sp.exp) if e.free_symbols & set(states)},
        key=str,
    )
    if not atoms or any(f.has(sp.tanh, sp.log) for f in model.steady_drift):
        return None
    args = [e.args[0] for e in atoms]
    E = sp.Dummy("E", positive=True)
    assume = _with_domains(model)
    back = {v: k for k, v in assume.items()}
    eqs = [
        sp.simplify(f.xreplace(dict.fromkeys(atoms, E))).xreplace(assume)
        for f in model.steady_drift
    ]
    eqs += [sp.expand(a - args[0]).xreplace(assume) for a in args[1:]]
    eqs = [g for g in eqs if g != 0]
    if any(g.has(E) or g.has(sp.exp) for g in eqs):
        return None
    try:
        sols = sp.solve(eqs, states, dict=True)
    except NotImplementedError:
        return None
    full = [
        {s: sp.simplify(sol[s]) for s in states}
        for sol in sols
        if all(s in sol and not sol[s].free_symbols & set(states) for s in states)
    ]
    ok = [p for p in full if _admissible(p, states) is not False]
    if len(ok) != 1:
        return None
    point = {s: v.xreplace(back) for s, v in ok[0].items()}
    if _zeroes_drift(model, point) is not True:
        return None
    return Equilibrium(point, True, 0, "sympy.solve (equal routing exponents)")


def find_equilibrium(model) -> Equilibrium:
    """The model's equilibrium: exact if SymPy solves it (on the symmetric subspace, or
    with equal routing exponents where parameters are free), else proved numerically."""
    eq = _exact(model)
    if eq is not None:
        return eq
    if model.free_parameters:
        eq = _balanced(model)
        if eq is not None:
            return eq
    return _numeric(model)
