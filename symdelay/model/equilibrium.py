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

Piecewise-smooth rates (``Min``, ``Max``, ``Abs``, ``Heaviside``, ``Piecewise``; see
:mod:`symdelay.model.pieces`) are solved piece by piece: for each side of each switching
function of a state the drift is one smooth expression, solved as above; a solution counts
where it lies strictly on the side its piece assumes, decided exactly
(:func:`symdelay.model.signs.strict_sign_on`) for a closed form and in interval arithmetic
on the proved box otherwise. An equilibrium on a switch (a kink of ``Min``, the step of
``Heaviside``) has no linearisation and is refused in one line naming the transition.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import mpmath

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.precision import work_dps, workdps, workprec
from symdelay.model.arb_eval import arb_evaluator
from symdelay.model.records import Equilibrium, _cycles, _is_zero

__all__ = [
    "find_equilibrium",
    "certified_equilibrium",
    "at_point",
    "EQUILIBRIUM_DPS",
    "PiecewiseEquilibrium",
    "MAX_PIECES",
]

#: Working precision (digits) of the numeric equilibrium.
EQUILIBRIUM_DPS = 30


def _simplify_entry(e):
    if e.is_number:
        return sp.simplify(e)  # exact: nsimplify would round 1 + 3*exp(-40) to 1
    if e.has(sp.exp, sp.tanh):
        return sp.simplify(e)
    return sp.factor(sp.cancel(e)) if e.has(sp.Pow) else sp.expand(e)


@dataclass(frozen=True)
class PiecewiseEquilibrium(Equilibrium):
    """An equilibrium of a piecewise-smooth drift, off every switch: ``sides`` holds
    ``(switch, sign)`` pairs, the side of each switching function of a state it lies on
    (see :mod:`symdelay.model.pieces`), which select the smooth branch of any expression
    of the rates there (:func:`at_point`)."""

    sides: tuple = ()

    def to_json(self) -> dict:
        out = super().to_json()
        out["piece"] = [f"{s} {'>' if v > 0 else '<'} 0" for s, v in self.sides]
        return out


def at_point(M: sp.Matrix, eq: Equilibrium) -> sp.Matrix:
    """``M`` evaluated at the equilibrium (simplified; numeric at working precision).

    Entries with piecewise-smooth functions of the states (a Jacobian's ``Piecewise``, a
    diffusion's ``Min``) take the smooth branch of the side of each switch the equilibrium
    lies on (:class:`PiecewiseEquilibrium`): exact there, as the rate is smooth around it."""
    from symdelay.model.pieces import is_nonsmooth, select

    sides = dict(getattr(eq, "sides", ()))
    if any(is_nonsmooth(e) for e in M):
        M = M.applyfunc(lambda e: select(e, sides) if is_nonsmooth(e) else e)
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
    """The equilibrium in closed form, or None where there is none found (or attempted)."""
    if _nonsmooth(model):
        return _exact_pieces(model)
    found = _exact_candidates(model)
    if found is None:
        return None
    return _pick_exact(model, *found)


def _exact_candidates(model):
    """``(ok, undecided, how)``: the admissible closed-form solutions (full points) of the
    drift (on the symmetric subspace where there is a symmetry) that zero it, and those of
    them whose check is undecided; None where no closed form is attempted or found."""
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
        g = f.xreplace(sub)  # on the symmetric subspace a logit's exponentials often cancel
        g = sp.simplify(g) if g.has(sp.exp) else sp.expand(g)
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
        if not isinstance(model, _Piece):
            refusal = _selection_refusal(model)
            if refusal is not None:
                raise refusal
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
    how = "sympy.solve" if sols_by_solve else "exact linear elimination"
    return ok, undecided, how + (" (symmetric subspace)" if sub else "")


def _pick_exact(model, ok, undecided, how) -> Equilibrium | None:
    """The one equilibrium among the closed-form solutions ``ok`` (the only interior one
    if several), refused in one line where several remain or its check is undecided."""
    states = model.states
    back = {v: k for k, v in _with_domains(model).items()}
    interior = [p for p in ok if all(p[s].is_positive for s in states)]
    pick = interior if len(interior) == 1 else ok
    if len(pick) != 1:
        if len(ok) > 1 and not _drift_parameters(model) and not isinstance(model, _Piece):
            # at numbers, every real zero enumerated and its signs decided (the radicals'
            # signs SymPy left open do not matter there)
            eq = _certified(model)
            if eq is not None:
                return eq
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
    return Equilibrium(point, True, 0, how)


def _zeros_at(model, dps: int = EQUILIBRIUM_DPS):
    """Every real zero of the drift at numbers as ``[({state: arb}, [sign per state])]``
    (:func:`symdelay.model.realsolve.real_zeros`, on the symmetric subspace where the model
    declares a symmetry, as the closed form), or None where the method does not apply."""
    from symdelay.core.precision import bits
    from symdelay.model.realsolve import real_zeros

    if _drift_parameters(model):
        return None
    states = model.states
    sub = _symmetric_sub(model)
    unknowns = [s for s in states if s not in sub]
    drift = []
    for f in model.steady_drift:
        g = sp.expand(f.xreplace(sub)) if sub else f
        if g != 0 and g not in drift:
            drift.append(g)
    zeros = real_zeros(drift, unknowns, prec=2 * bits(dps, 20))
    if zeros is None:
        return None
    full = []
    for z in zeros:
        ball = dict(zip(unknowns, z.balls))
        sign = dict(zip(unknowns, z.signs))
        ball.update({s: ball[r] for s, r in sub.items()})
        sign.update({s: sign[r] for s, r in sub.items()})
        full.append(({s: ball[s] for s in states}, [sign[s] for s in states]))
    return full


def _by_rule(full) -> list:
    """The zeros the rule of the closed form leaves: the one with every state positive if
    there is exactly one, else those with every state >= 0 (one is the answer)."""
    interior = [z for z in full if all(v > 0 for v in z[1])]
    admissible = [z for z in full if all(v >= 0 for v in z[1])]
    return interior if len(interior) == 1 else admissible


def _rule_text(pick, full) -> str:
    if not pick:
        return f"no equilibrium with every state >= 0 among the {len(full)} real zeros"
    shown = "; ".join(
        ", ".join(
            f"{s} ~ {b.mid().str(8, radius=False)}" if g else f"{s} = 0"
            for (s, b), g in zip(z[0].items(), z[1])
        )
        for z in pick[:3]
    )
    n_pos = sum(all(g > 0 for g in z[1]) for z in full)
    return (
        f"{len(pick)} equilibria with every state >= 0, {n_pos or 'none'} with every state "
        f"positive ({shown[:300]})"
    )


def _certified(model, dps: int = EQUILIBRIUM_DPS) -> Equilibrium | None:
    """The equilibrium among *every* real zero of a rational drift at numbers
    (:func:`_zeros_at`: Groebner basis over Q, roots isolated by Arb, each state's sign
    decided), picked by the rule of the closed form (:func:`_by_rule`); refused in one line
    where the rule leaves several or none. None where the method does not apply (free
    parameters, a drift that is not rational in the states, zeros not finite)."""
    full = _zeros_at(model, dps)
    if full is None:
        return None
    pick = _by_rule(full)
    if len(pick) != 1:
        raise SymdelayInputError(
            f"{model.source}: {_rule_text(pick, full)} (every real zero of the drift "
            "enumerated): the analyses need one; give parameter values that single one out"
        )
    balls = pick[0][0]
    point = {s: sp.Float(b.mid().str(dps + 5, radius=False), dps) for s, b in balls.items()}
    radius = max(
        (mpmath.mpf(b.rad().str(5, radius=False)) for b in balls.values()), default=mpmath.mpf(0)
    )
    return Equilibrium(
        point, False, radius, "every real zero of the drift (Groebner basis over Q, Arb roots)"
    )


#: values given to the free parameters (all at once, positive ones only) where
#: :func:`_selection_refusal` enumerates the zeros before SymPy solves with them free
SAMPLES = ("1/16", "1/4", "1", "4", "16")


def _selection_refusal(model) -> SymdelayInputError | None:
    """The refusal of a closed form with the parameters free, found in a second instead of
    after SymPy's solve (seconds to minutes for radicals): where at one of :data:`SAMPLES`
    every real zero of the drift, enumerated, has no equilibrium with every state positive
    and none or several with every state >= 0 (the food chain's at b1 = 16: two, none
    positive), no closed-form solution is proven positive for every value of the parameters
    and several (or none) remain, which :func:`_pick_exact` refuses too. None where no
    sample shows it or the enumeration does not apply (the solve then runs as before)."""
    free = _drift_parameters(model)
    if not free or len(free) > 3 or any(model.domains.get(p) != "positive" for p in free):
        return None
    names = ", ".join(map(str, free))
    for v in SAMPLES:
        try:
            full = _zeros_at(model.with_values(**{str(p): v for p in free}))
        except SymdelayInputError:
            return None
        if full is None:
            return None
        pick = _by_rule(full)
        if not any(all(g > 0 for g in z[1]) for z in full) and len(pick) != 1:
            return SymdelayInputError(
                f"{model.source}: at {', '.join(f'{p} = {v}' for p in free)} the drift has "
                f"{_rule_text(pick, full)} (every real zero enumerated), so no closed form in "
                f"{names} is the equilibrium for every value: give numbers for {names}, or follow "
                "it numerically over a range of one of them (cycles, critical and "
                "normal-form take --range LO:HI; in the API lo, hi)"
            )
    return None


def certified_equilibrium(model) -> Equilibrium | None:
    """At numbers, the equilibrium as :func:`_certified` finds it (a few tenths of a second
    where SymPy's closed form can take seconds), None where that method does not apply or
    refuses (the caller then asks :attr:`Model.equilibrium`)."""
    if _nonsmooth(model) or _linear_drift(model):
        return None  # a linear drift is solved exactly as fast
    try:
        return _certified(model)
    except SymdelayInputError:
        return None


def _linear_drift(model) -> bool:
    """Is every component of the drift a polynomial of degree <= 1 in the states?"""
    for f in model.steady_drift:
        try:
            if sp.Poly(f, *model.states).total_degree() > 1:
                return False
        except sp.PolynomialError:
            return False
    return True


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


def _numeric(model, dps: int = EQUILIBRIUM_DPS, start=None) -> Equilibrium:
    """Newton's method at ``dps`` digits from ``start`` (default: the end of the fluid path
    from all ones), the zero proved unique in a small box by :func:`_krawczyk`."""
    free = _drift_parameters(model)
    if free:
        raise SymdelayInputError(
            f"{model.source}: no closed-form equilibrium: give numbers for "
            + ", ".join(str(p) for p in free)
            + " to find it numerically"
        )
    states = model.states
    n = len(states)
    if start is None:
        start = _fluid_end(model, model.steady_drift, model.steady_jacobian)
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


def _fluid_end(model, drift, jacobian=None):
    """The state the fluid path ``ds/dt = drift`` from all ones reaches at t = 200 (all
    ones where the integration fails)."""
    import numpy as np
    from scipy.integrate import solve_ivp

    states = model.states
    n = len(states)
    F = sp.lambdify([states], list(drift), "numpy")
    extra = {}
    if jacobian is not None:
        Jf = sp.lambdify([states], jacobian, "numpy")
        extra = {"method": "LSODA", "jac": lambda t, y: np.asarray(Jf(y), dtype=float)}
    with np.errstate(all="ignore"):
        sol = solve_ivp(
            lambda t, y: np.asarray(F(y), dtype=float).reshape(n),
            (0.0, 200.0),
            np.ones(n),
            rtol=1e-10,
            atol=1e-12,
            **extra,
        )
    end = sol.y[:, -1]
    return end if sol.success and np.all(np.isfinite(end)) else np.ones(n)


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
    with equal routing exponents where parameters are free), else proved numerically; for
    piecewise-smooth rates on the smooth pieces (module docstring)."""
    if _nonsmooth(model):
        eq = _exact_pieces(model)
        return eq if eq is not None else _numeric_pieces(model)
    eq = _exact(model)
    if eq is not None:
        return eq
    if model.free_parameters:
        eq = _balanced(model)
        if eq is not None:
            return eq
    return _numeric(model)


# ------------------------------------------------------------------ piecewise-smooth rates
#: most smooth pieces (sign patterns of the switching functions) solved one by one
MAX_PIECES = 64


def _nonsmooth(model) -> bool:
    """Does the drift hold a piecewise-smooth function of a state?"""
    from symdelay.model.pieces import is_nonsmooth

    return any(is_nonsmooth(f, model.states) for f in model.steady_drift)


class _Piece:
    """The model as seen on one smooth piece: its drift the branch the signs ``sides``
    (``{switch: +1 or -1}``) select; what the solvers above read of a model."""

    def __init__(self, model, sides: dict):
        from symdelay.model.pieces import select

        self.states = model.states
        self.permutation = model.permutation
        self.domains = model.domains
        self.values = model.values
        self.source = model.source
        self.free_parameters = model.free_parameters
        self.sides = sides
        drift = []
        for f in model.steady_drift:
            g = select(f, sides)
            drift.append(sp.expand(g) if not g.has(sp.exp) else g)
        self.drift = self.steady_drift = tuple(drift)

    @cached_property
    def steady_jacobian(self):
        return sp.ImmutableMatrix(sp.Matrix(self.drift).jacobian(self.states))

    @property
    def drift_jacobian(self):
        return self.steady_jacobian

    def where(self) -> str:
        return " and ".join(f"{s} {'>' if v > 0 else '<'} 0" for s, v in self.sides.items())


def _switch_setup(model):
    """The switching functions of the states in the drift and the sign patterns to solve
    (on the symmetric subspace, the patterns that give equal switches equal signs)."""
    import itertools

    from symdelay.model.pieces import switches

    sws: list = []
    for f in model.steady_drift:
        for s in switches(f, model.states):
            if s not in sws:
                sws.append(s)
    return sws, itertools.product((1, -1), repeat=len(sws))


def _symmetric_sub(model) -> dict:
    if model.permutation is None:
        return {}
    sub = {}
    for cyc in _cycles(model.permutation):
        for j in cyc[1:]:
            sub[model.states[j]] = model.states[cyc[0]]
    return sub


def _consistent(sws, pattern, sub) -> bool:
    """On the symmetric subspace, switches that coincide have one sign (that are opposite,
    opposite signs); a switch identically zero there is kept with both."""
    if not sub:
        return True
    on = [sp.expand(s.xreplace(sub)) for s in sws]
    for i in range(len(sws)):
        for j in range(i + 1, len(sws)):
            if on[i] == 0:
                continue
            if sp.expand(on[i] - on[j]) == 0 and pattern[i] != pattern[j]:
                return False
            if sp.expand(on[i] + on[j]) == 0 and pattern[i] == pattern[j]:
                return False
    return True


def _where_switch(model, s):
    """``(atom, transition name)``: the piecewise function of a rate that switches at
    ``s`` (first met), for messages."""
    from symdelay.model.pieces import nonsmooth_atoms, switches

    for t in model.transitions:
        rate = t.rate.xreplace(model.values)
        for atom in nonsmooth_atoms(rate):
            if s in switches(atom, model.states):
                return atom, t.name
    return s, "?"


def _point_text(point: dict, states, approx: bool = False) -> str:
    eq = " ~ " if approx else " = "
    shown = []
    for k in states:
        v = point[k]
        v = sp.Float(v, 12) if approx else v
        shown.append(f"{k}{eq}{v}")
    return ", ".join(shown)


def _on_kink(model, point: dict, s, approx: bool = False, radius=None):
    """The one-line refusal of an equilibrium on the switch ``s``."""
    from symdelay.model.pieces import kink_word

    atom, name = _where_switch(model, s)
    involved = [k for k in model.states if k in s.free_symbols] or list(model.states)
    where = f"the {kink_word(atom)} of {atom} in transition '{name}'"
    if approx:
        return SymdelayInputError(
            f"{model.source}: the equilibrium {_point_text(point, involved, True)} lies "
            f"within {mpmath.nstr(radius, 3)} of {where} and has no closed form to decide "
            "whether it is on it (where the linearisation is not defined); move a parameter "
            "off it"
        )
    return SymdelayInputError(
        f"{model.source}: the equilibrium {_point_text(point, involved)} lies on {where}: "
        "the linearisation is not defined there; move a parameter off it"
    )


def _describe_switches(model, sws) -> str:
    atoms = []
    for s in sws:
        atom, name = _where_switch(model, s)
        text = f"{atom} ('{name}')"
        if text not in atoms:
            atoms.append(text)
    return ", ".join(atoms[:4]) + (", ..." if len(atoms) > 4 else "")


def _exact_pieces(model) -> Equilibrium | None:
    """The closed-form equilibrium of a piecewise-smooth drift, piece by piece (module
    docstring); None where a piece has no closed form; refused in one line on a kink, where
    the side depends on the free parameters, or where no piece holds its equilibrium."""
    from symdelay.model.signs import strict_sign_on

    sws, patterns = _switch_setup(model)
    sub = _symmetric_sub(model)
    patterns = [p for p in patterns if _consistent(sws, p, sub)]
    if len(patterns) > MAX_PIECES:
        return None  # left to the numeric path (every parameter given) or refused there
    domains = {p: d for p, d in model.domains.items() if p not in model.values}
    valid, kinks, conditional = [], [], []
    complete = True  # every piece solved, its solutions points (no family)
    for pattern in patterns:
        piece = _Piece(model, dict(zip(sws, pattern)))
        found = _exact_candidates(piece)
        if found is None:
            return None
        ok, undecided, how = found
        if undecided:
            return None if not _drift_parameters(model) else _pick_exact(piece, *found)
        back = {v: k for k, v in _with_domains(model).items()}
        for p in ok:
            point = {k: v.xreplace(back) for k, v in p.items()}
            sides = [strict_sign_on(s.xreplace(point), domains) for s in sws]
            if any(v not in (None, 0) and v != want for v, want in zip(sides, pattern)):
                continue  # on the other side of a switch: not this piece's
            entry = (point, piece, how, sides)
            if any(v == 0 for v in sides):
                kinks.append(entry)
            elif all(v == want for v, want in zip(sides, pattern)):
                valid.append(entry)
            else:
                conditional.append(entry)
        if not ok and _has_family(piece):
            complete = False
    if kinks:
        point, _, _, sides = kinks[0]
        raise _on_kink(model, point, sws[sides.index(0)])
    points = []
    for point, *_ in valid + conditional:
        if point not in points:
            points.append(point)
    if conditional or len(points) > 1:
        free = ", ".join(map(str, _drift_parameters(model)))
        if conditional:
            point, piece, _, sides = conditional[0]
            s = next(s for s, v in zip(sws, sides) if v is None)
            sign = piece.sides[s]
            atom, name = _where_switch(model, s)
            raise SymdelayInputError(
                f"{model.source}: the equilibrium {_point_text(point, model.states)} holds "
                f"only where {sp.expand(s.xreplace(point))} {'>' if sign > 0 else '<'} 0 (its "
                f"side of {atom} in transition '{name}'), which depends on the parameters: "
                f"give numbers for {free}"
            )
        shown = "; ".join(_point_text(p, model.states) for p in points[:3])
        raise SymdelayInputError(
            f"{model.source}: {len(points)} equilibria on the smooth pieces of the rates "
            f"({shown[:300]}): the analyses need one; give parameter values that single one out"
        )
    if not valid:
        if not complete:
            return None
        raise SymdelayInputError(
            f"{model.source}: no equilibrium off the switches of "
            f"{_describe_switches(model, sws)}: the equilibrium of each smooth piece lies "
            "outside it or there is none, so the fluid limit has no equilibrium (an overloaded "
            "queue grows without bound) or rests on a kink or step, where the linearisation "
            "is not defined; change the parameters"
        )
    point, piece, how, _ = valid[0]
    return PiecewiseEquilibrium(
        point, True, 0, f"{how} on the piece {piece.where()}", tuple(piece.sides.items())
    )


def _has_family(piece) -> bool:
    """Does the piece's drift vanish on a set that is not a point (its equations, on the
    symmetric subspace, fewer than its unknowns once dependent ones are dropped)?"""
    sub = _symmetric_sub(piece)
    unknowns = sorted({sub.get(s, s) for s in piece.states}, key=str)
    eqs = [sp.expand(f.xreplace(sub)) for f in piece.drift]
    eqs = [g for g in eqs if g != 0]
    try:
        M, _ = sp.linear_eq_to_matrix(eqs, unknowns)
    except (ValueError, sp.PolynomialError):
        return True  # not linear: cannot tell cheaply, so not proven complete
    if M.rank() >= len(unknowns):
        return False
    try:
        return bool(sp.solve(eqs, unknowns, dict=True))
    except NotImplementedError:
        return True


def _numeric_pieces(model, dps: int = EQUILIBRIUM_DPS) -> Equilibrium:
    """Newton + Krawczyk on each smooth piece (every parameter given): the zero proved in
    a box that lies strictly on the piece's side of every switch, decided in interval
    arithmetic (``arb``) on the box."""
    import flint
    import numpy as np

    from symdelay.model.arb_eval import arb_evaluator

    free = _drift_parameters(model)
    if free:
        raise SymdelayInputError(
            f"{model.source}: no closed-form equilibrium: give numbers for "
            + ", ".join(str(p) for p in free)
            + " to find it numerically"
        )
    sws, patterns = _switch_setup(model)
    if 2 ** len(sws) > MAX_PIECES:
        raise SymdelayInputError(
            f"{model.source}: {len(sws)} switching functions of the states give "
            f"{2 ** len(sws)} smooth pieces, more than {MAX_PIECES} to solve one by one: "
            "use fewer Min/Max/Abs/Heaviside/Piecewise of the states"
        )
    states = model.states
    S = sp.lambdify([states], list(sws), "numpy")
    valid, near = [], []
    for pattern in patterns:
        piece = _Piece(model, dict(zip(sws, pattern)))
        if all(f.is_number for f in piece.drift) or any(f.has(sp.nan) for f in piece.drift):
            continue
        try:
            start = _fluid_end(piece, piece.drift)
            eq = _numeric(piece, dps, start=start)
        except (SymdelayInputError, VerificationError):
            continue  # no (isolated) zero of this piece found
        mid = [float(eq.point[s]) for s in states]
        if any(np.sign(v) == -w for v, w in zip(np.atleast_1d(S(mid)), pattern)):
            continue  # on another piece's side
        with workprec(dps):
            r = flint.arb(mpmath.nstr(eq.radius, 5)) * 2
            box = [
                flint.arb(mpmath.nstr(eq.point[s], work_dps(dps))) + flint.arb(0, r) for s in states
            ]
            balls = arb_evaluator(list(sws), states)(box)
        if all((b > 0) if w > 0 else (b < 0) for b, w in zip(balls, pattern)):
            valid.append((eq, piece))
        elif not any((b < 0) if w > 0 else (b > 0) for b, w in zip(balls, pattern)):
            k = next(
                i
                for i, (b, w) in enumerate(zip(balls, pattern))
                if not ((b > 0) if w > 0 else (b < 0))
            )
            near.append((eq, sws[k]))
    if near and not valid:
        eq, s = near[0]
        raise _on_kink(model, dict(eq.point), s, approx=True, radius=eq.radius)
    if not valid:
        raise SymdelayInputError(
            f"{model.source}: no equilibrium found off the switches of "
            f"{_describe_switches(model, sws)} (Newton on each smooth piece): the fluid limit "
            "may have none (an overloaded queue) or rest on a kink or step, where the "
            "linearisation is not defined; check the rates and parameter values"
        )
    if len(valid) > 1:
        shown = "; ".join(_point_text(dict(e.point), states, True) for e, _ in valid[:3])
        raise SymdelayInputError(
            f"{model.source}: {len(valid)} equilibria on the smooth pieces of the rates "
            f"({shown[:300]}): the analyses need one; give parameter values that single one out"
        )
    eq, piece = valid[0]
    return PiecewiseEquilibrium(
        eq.point, False, eq.radius, f"{eq.method} on the piece {piece.where()}",
        tuple(piece.sides.items()),
    )  # fmt: skip
