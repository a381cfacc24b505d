"""Claims about a model's stability decided exactly: a real-arithmetic decision procedure.

``decide(model, claim)`` compares the set where ``claim`` holds with the set where the
model's equilibrium is asymptotically stable, over the parameters' declared domains
(``positive``: ``p > 0``; ``nonnegative``: ``p >= 0``; ``probability``: ``0 <= p <= 1``;
``real``) and the ``assume`` constraints. Parameters the claim does not name are
quantified over their whole domain.

**Stability as a formula.** The characteristic polynomial ``det(rI - J)`` comes factored by
the model's symmetry (``model.factors``); every root lies in ``Re r < 0`` iff every factor's
roots do. For a factor ``a_0 r^n + a_1 r^{n-1} + ... + a_n`` (coefficients polynomials in
the parameters after clearing denominators, :func:`symdelay.analysis.routh.routh_hurwitz`)
with ``a_0 > 0``, the Liénard–Chipart criterion (F. R. Gantmacher, *The Theory of
Matrices*, vol. II, ch. XV §13, Theorem 11; equivalent to Routh–Hurwitz) says: all roots in
``Re r < 0`` iff ``a_n, a_{n-2}, a_{n-4}, ... > 0`` and ``Delta_{n-1}, Delta_{n-3}, ... > 0``
(``Delta_k`` the Hurwitz determinants). Where the sign of ``a_0`` is not constant the
conditions carry it (``a_i a_0 > 0``, ``Delta_k a_0 > 0`` for odd ``k``: the criterion for
the monic polynomial), and the cleared denominator must not vanish. Factors of the
conditions that are positive on the domain are removed (an even power becomes ``!= 0``).
A model whose equilibrium is not in closed form, or whose factors are not rational in the
parameters, is refused.

**Decision.** A direction (*claim => stable*, *stable => claim*) holds iff
``domains & assume & premise & not conclusion`` has no real solution. That sentence of
nonlinear real arithmetic is decided by Z3's ``nlsat`` procedure (complete for it; rational
coefficients only, from SymPy's rationals), with a budget per check in z3's resource units
(``timeout_ms`` times :data:`RLIMIT_PER_MS`: the same answer whatever the machine's load;
the wall clock stops a check at ten times ``timeout_ms`` in any case):

* ``unsat``: *proven*; the SMT-LIB2 text of every formula decided is kept (``formula_smt2``)
  so that a user can re-run it (``z3 file.smt2``);
* ``sat``: *refuted*; Z3's model is made exact (rationals as they are; an algebraic number
  is rounded to nearby rationals, each re-checked, else kept as its defining polynomial and
  isolating interval) and re-checked by an independent path (:func:`second_path`): the
  point substituted into the model's factors, right half-plane and axis roots counted by
  Routh's exact scheme (the model's verdict there, :func:`verdict_at`), and the original
  SymPy claim evaluated (:meth:`~symdelay.analysis.claim_formula.ClaimFormula.holds_at`);
* ``unknown`` (the budget spent): *undecided within the budget*, with what was tried;
  never a relation.

*claim => stable* splits into one check per condition of each factor; *stable => claim* is
one check. Shortcuts come before nlsat, each exact: a coefficient-sign certificate
(lower bounds shifted out, every coefficient nonnegative: a conjunct that cannot hold, so
unsat; the check's ``by`` says ``sign certificate``), a short search of simple rational
points, each checked in exact arithmetic (a point where every conjunct holds: sat), and a
monotone reduction (the last conjunct ``S <= 0`` with ``dS/dv >= 0`` certified on the box
the bounds set: nlsat on ``S`` at ``v``'s lower bound, one variable fewer; ``by``:
``monotone in v``).

**Scale invariance.** If every factor is homogeneous when ``r`` and every ``positive``
parameter are multiplied by ``c > 0`` (rates and eigenvalues share the unit of inverse
time), and every relation of the claim, of ``assume`` and of the auxiliary definitions is
homogeneous under the same scaling (checked exactly, with the auxiliary variables' weights),
then each formula is satisfiable iff it is with one rate fixed to 1: that rate is removed.

**Products.** If two parameters ``a > 0`` and ``b`` (positive, nonnegative or real, no upper
bound) enter every relation only through their product (``lam*theta`` in the logit models),
the pair is replaced by one variable ``k = a*b`` with ``b``'s sign domain: ``(a, b) -> a*b``
maps the domain onto it, so a formula is satisfiable iff its reduced form is, and a solution
``k`` gives back ``a = 1, b = k``. Checked exactly, relation by relation; one variable fewer.

The relation (``equivalent``, ``necessary``, ``sufficient``, ``neither``) is given only when
both directions are proven or refuted.
"""

from __future__ import annotations

import functools
import operator
import time
from dataclasses import dataclass
from fractions import Fraction

from symdelay.analysis.claim_formula import (
    FALSE,
    TRUE,
    conj,
    fold,
    neg,
    parse_claim,
    rel,
    walk_rels,
)
from symdelay.analysis.claim_result import (
    DEFAULT_TIMEOUT_MS,
    DIRECTIONS,
    PROVEN,
    REFUTED,
    UNDECIDED,
    Outcome,
    assemble,
)
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result
from symdelay.core.symbols import r
from symdelay.model.signs import Nlsat, SignBox, conjuncts, domain_nodes
from symdelay.model.signs import impossible_by_signs as _impossible_by_signs

__all__ = [
    "decide_directions",
    "decide_targets",
    "targets_of",
    "stable_test",
    "present",
    "search_confirmed",
    "MinimalConditions",
    "StabilityFormula",
    "decide",
    "minimal_conditions",
    "stability_formula",
    "DEFAULT_TIMEOUT_MS",
]

#: z3's resource units per millisecond of a check's budget: deterministic, unlike the wall
#: clock (nlsat counts 40k to 230k units per second of CPU on the checks of the tests)
RLIMIT_PER_MS = 100
METHOD = "decision procedure"
_OPS = {">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}
#: ``and``, ``or``, ``not`` that rebuild a formula node (see ``claim_formula.fold``)
_REBUILD = (lambda xs: ("and", tuple(xs)), lambda xs: ("or", tuple(xs)), lambda x: ("not", x))


# ------------------------------------------------------------------ stability as a formula
@dataclass(frozen=True)
class StabilityFormula:
    """Per factor: ``(Factor, conditions)``, each condition ``P > 0`` or ``P != 0`` (SymPy)."""

    per_factor: tuple
    parameters: tuple  # the free parameters
    domains: dict

    @property
    def conditions(self) -> tuple:
        return tuple(dict.fromkeys(c for _, conds in self.per_factor for c in conds))


def _domain_symbols(model) -> dict:
    kinds = {"positive": "positive", "nonnegative": "nonnegative", "probability": "nonnegative"}
    return {
        p: sp.Symbol(p.name, **{kinds.get(model.domains[p], "real"): True})
        for p in model.free_parameters
    }


def _simplified(lhs, assume: dict, back: dict) -> list:
    """``lhs > 0`` as a list of conditions without the factors positive on the domain."""
    lhs = sp.expand(lhs)
    if lhs.is_number:
        return [] if lhs > 0 else [sp.StrictGreaterThan(lhs, 0, evaluate=False)]
    coeff, factors = sp.factor_list(lhs.xreplace(assume))
    odd, even = [], []
    for f, m in factors:
        if f.is_positive:
            continue
        if f.is_negative:
            coeff = -coeff if m % 2 else coeff
            continue
        (odd if m % 2 else even).append(f)
    out = [sp.Ne(f.xreplace(back), 0) for f in even]
    if odd or coeff <= 0:
        body = sp.expand(sp.Mul(*odd).xreplace(back))
        if coeff < 0:
            body = sp.expand(-body)
        out.insert(0, sp.StrictGreaterThan(body, 0, evaluate=False))
    return out


def stability_formula(model) -> StabilityFormula:
    """The exact Liénard–Chipart conditions of every factor of ``model`` (cached)."""
    return model.cached("decide:stability", lambda: _stability_formula(model))


def _stability_formula(model) -> StabilityFormula:
    from symdelay.analysis.routh import routh_hurwitz

    name = getattr(model, "name", "the model")
    eq = model.equilibrium
    if not eq.exact:
        raise SymdelayInputError(
            f"{name}: the equilibrium is not in closed form in the parameters (found "
            "numerically): the decision procedure needs factors rational in the parameters; "
            "give numbers for the parameters it depends on"
        )
    params = tuple(model.free_parameters)
    assume = _domain_symbols(model)
    back = {v: k for k, v in assume.items()}
    per = []
    for f in model.factors:
        expr = sp.together(sp.expand(f.factor))
        try:
            poly = sp.Poly(f.factor, r)
        except sp.PolynomialError:
            poly = None
        ok = poly is not None and all(c.is_rational_function(*params) for c in poly.all_coeffs())
        if not ok or expr.has(sp.exp, sp.log, sp.sin, sp.cos, sp.tanh, sp.pi, sp.E):
            raise SymdelayInputError(
                f"{name}: the factor {str(f.factor)[:80]} ({f.mode} mode) is not a polynomial "
                "in r with coefficients rational in the parameters: the decision procedure "
                "cannot decide it"
            )
        if any(c.has(sp.Pow) and not c.is_polynomial(*params) for c in poly.all_coeffs()):
            for c in poly.all_coeffs():
                for sub in sp.preorder_traversal(c):
                    if isinstance(sub, sp.Pow) and not sub.exp.is_Integer:
                        raise SymdelayInputError(
                            f"{name}: the equilibrium depends on the parameters through "
                            f"{sub}, not rationally: the decision procedure cannot decide it"
                        )
        res = routh_hurwitz(f.factor.xreplace(assume), r)
        pieces = [
            x**2 for x in sp.fraction(sp.together(res.multiplier)) if not sp.expand(x).is_number
        ]
        pieces += [c.lhs - c.rhs for c in res.lienard_chipart]
        conds = dict.fromkeys(c for x in pieces for c in _simplified(x, assume, back))
        per.append((f, tuple(conds)))
    return StabilityFormula(tuple(per), params, dict(model.domains))


def _cond_node(c):
    if isinstance(c, sp.Ne):
        return rel(c.lhs - c.rhs, "!=")
    return rel(c.lhs - c.rhs, ">")


def _factor_node(conds):
    return conj(*[_cond_node(c) for c in conds])


def _domain_node(model):
    return conj(*domain_nodes({p: model.domains[p] for p in model.free_parameters}))


# ------------------------------------------------------------------ scaling
def _weighted_degree(P, weights: dict):
    """The weighted degree of ``P`` if it is weighted-homogeneous, else None."""
    gens = sorted(P.free_symbols, key=str)
    if not gens:
        return 0
    poly = sp.Poly(P, *gens)
    degs = {sum(e * weights.get(g, 0) for e, g in zip(mon, gens)) for mon in poly.monoms()}
    return degs.pop() if len(degs) == 1 else None


def _scale_variable(model, sf: StabilityFormula, claims, exclude=(), targets=()) -> tuple:
    """``(parameter fixed to 1, note)`` when every factor, every claim formula and every
    target node is invariant under scaling ``r`` and the positive parameters; else
    ``(None, note)``. ``exclude``: rates that may not be the one fixed (replaced by a
    product)."""
    rates = [p for p in sf.parameters if model.domains[p] == "positive"]
    if not rates:
        return None, "no positive rate parameter: no scaling"
    weights = {p: sp.Integer(1) for p in rates}
    weights[r] = sp.Integer(1)
    for f, _ in sf.per_factor:
        num = sp.fraction(sp.together(sp.expand(f.factor)))[0]
        if _weighted_degree(sp.expand(num), weights) is None:
            return None, f"the {f.mode} factor is not homogeneous in r and the rates: no scaling"
    checks = [(f"'{cf.text}'", cf.aux, [cf.node, *cf.definitions]) for cf in claims]
    for text, aux, nodes in [*checks, ("the target set", (), list(targets))]:
        w = dict(weights)
        for a in aux:
            n, d, q = (*a.base[1:], 1) if a.base[0] == "abs" else a.base
            dn, dd = _weighted_degree(n, w), _weighted_degree(d, w)
            if dn is None or dd is None:
                return None, f"{text} is not invariant under scaling the rates"
            w[a.symbol] = sp.Rational(dn - dd) / q
        if any(_weighted_degree(P, w) is None for n in nodes for _, P, _op in walk_rels(n)):
            return None, f"{text} is not invariant under scaling the rates"
    degree = {p: 0 for p in rates}
    for c in sf.conditions:
        for p in rates:
            degree[p] += sp.degree(c.lhs, p) if c.lhs.has(p) else 0
    candidates = [p for p in rates if p not in exclude]
    if not candidates:
        return None, "the only rates enter through products: no scaling"
    # the rate of lowest total degree in the conditions: nlsat's projections stay small
    # (in-flight L = 3: 4.7 s with mu fixed, over 30 s with gamma, the highest)
    fixed = min(candidates, key=lambda p: (degree[p], str(p)))
    return fixed, (
        f"every factor and the claim are invariant under scaling r and the rates "
        f"({', '.join(map(str, rates))}) by c > 0: {fixed} fixed to 1"
    )


# ------------------------------------------------------------------ products
def _all_polys(nodes) -> list:
    return list(dict.fromkeys(P for n in nodes for _, P, _op in walk_rels(n)))


def _products(model, nodes, symbols) -> tuple:
    """Pairs ``(a, b, k)``: ``a > 0`` and ``b`` (no upper bound) enter every relation of
    ``nodes`` only through ``a*b`` (besides their own domain relations); ``k`` the new
    variable. Disjoint pairs, greedy in parameter order."""
    polys = _all_polys(nodes)
    params = [p for p in model.free_parameters if p in symbols]
    used, out = set(), []
    for a in params:
        if a in used or model.domains[a] != "positive":
            continue
        for b in params:
            if b == a or b in used or model.domains[b] not in ("positive", "nonnegative", "real"):
                continue
            k = sp.Symbol(f"{a.name}*{b.name}", real=True)
            if not any(P.has(a) and P.has(b) for P in polys):
                continue
            if all(
                P in (a, b) or not P.has(a, b) or not sp.expand(P.xreplace({b: k / a})).has(a)
                for P in polys
            ):
                out.append((a, b, k))
                used |= {a, b}
                break
    return tuple(out)


def _reduce(node, products):
    """``node`` with every product pair replaced by its variable (see :func:`_products`)."""

    def leaf(n):
        if n[0] != "rel":
            return n
        _, P, op = n
        for a, b, k in products:
            if a == P:  # a > 0 (its domain): true
                return TRUE if op in (">", ">=", "!=") else FALSE
            if b == P:  # sign(b) = sign(k) as a > 0
                return ("rel", k, op)
            if P.has(a) or P.has(b):
                P = sp.expand(P.xreplace({b: k / a}))
        return ("rel", P, op)

    return fold(node, leaf, *_REBUILD) if products else node


def _frame_symbols(symbols, products) -> list:
    gone = {s for a, b, _ in products for s in (a, b)}
    return [s for s in symbols if s not in gone] + [k for _, _, k in products]


def _monotone(nodes, symbols, fixed, domains):
    """``(v, c, reduced)``: a formula in one variable fewer that is satisfiable if the
    conjunction of ``nodes`` is, or None. The last node says ``S <= 0`` (``not S > 0``;
    ``S < 0`` for ``not S >= 0``), a variable ``v`` of ``S`` is bounded below by ``c`` and
    ``dS/dv >= 0`` on the box the single-variable bounds set (:class:`~symdelay.model.signs.SignBox`): a solution
    moved along ``v`` down to ``c`` stays in the box and keeps ``S <= 0``, so the conjuncts
    free of ``v`` and ``S(v = c) <= 0`` hold there. (``kappa >= 1/5`` implies the
    in-flight model's third Hurwitz condition at L = 3, tangent to it as ``mu -> 0``:
    nlsat needs minutes, and seconds at ``kappa = 1/5``.)"""
    last = nodes[-1]
    if last[0] != "not" or last[1][0] != "rel" or last[1][2] not in (">", ">="):
        return None
    box = SignBox(nodes[:-1], symbols, fixed, domains)
    S = sp.expand(last[1][1].xreplace(box.one))
    for v in sorted(S.free_symbols & set(box.lower), key=str):
        dS = sp.diff(S, v)
        if not dS.is_number and box.positive(dS, strict=False):
            c = box.lower[v][0]
            rest = [n for n in conjuncts(nodes[:-1]) if not any(P.has(v) for P in _all_polys([n]))]
            return v, c, [*rest, ("not", rel(S.xreplace({v: c}), last[1][2]))]
    return None


# ------------------------------------------------------------------ positive factors
#: relations with more terms are left as they are (factoring them costs more than it saves)
_FACTOR_MAX_TERMS = 400


def _strip_positive(node, symbols, fixed, domains):
    """``node`` with every factor of a relation that is positive on the parameter domains
    (by the sign certificate) divided out: ``P f > 0`` with ``f > 0`` is ``P > 0``, and the
    same for ``>=``, ``==`` and ``!=``. A claim written as a condition times or over a
    positive expression then meets the condition itself."""
    key = (tuple(symbols), fixed, tuple(sorted((str(k), v) for k, v in domains.items())))

    def leaf(n):
        if n[0] != "rel":
            return n
        Q = _positive_factors_out(n[1], key)
        return n if Q is n[1] else rel(Q, n[2])

    return fold(node, leaf, *_REBUILD)


@functools.lru_cache(maxsize=4096)
def _positive_factors_out(P, key):
    symbols, fixed, _ = key
    domains = {s: dict(key[2]).get(str(s)) for s in symbols}
    if len(P.free_symbols) < 2 or len(sp.Add.make_args(P)) > _FACTOR_MAX_TERMS:
        return P
    c, factors = sp.factor_list(P)
    if len(factors) == 1 and factors[0][1] == 1:
        return P
    kept = [
        (f, e)
        for f, e in factors
        if not _impossible_by_signs([neg(rel(f, ">"))], list(symbols), fixed, domains)
    ]
    if len(kept) == len(factors):
        return P
    return sp.expand(sp.sign(c) * sp.Mul(*[f**e for f, e in kept]))


# ------------------------------------------------------------------ sampled witnesses
def _witness(nodes, symbols, fixed, domains):
    """A rational point where every node holds (checked exactly), or None: the one search's
    witness (:func:`symdelay.analysis.counterexample.witness`: simple rationals by each
    variable's domain, screened in floating point, the simplest candidates confirmed in
    exact arithmetic); a hit proves satisfiability, so nlsat is asked only when none is
    found."""
    import numpy as np

    from symdelay.analysis.counterexample import witness

    free = [s for s in symbols if s != fixed]
    if not free or len(free) > 12:
        return None
    polys = _all_polys(nodes)
    if any(P.free_symbols - set(symbols) for P in polys):
        return None
    by_name = {s.name: s for s in free}

    def screen(cols):
        n = len(next(iter(cols.values())))
        named = {by_name[k]: v for k, v in cols.items()}
        if fixed is not None:
            named[fixed] = np.ones(n)
        values = {}
        for P in polys:
            gens, f = _numeric(P)
            values[P] = np.broadcast_to(np.asarray(f(*[named[g] for g in gens]), float), (n,))
        return _float_holds(nodes, values, n)

    def exact(point):
        pt = {by_name[k]: sp.Rational(v.numerator, v.denominator) for k, v in point.items()}
        if fixed is not None:
            pt[fixed] = sp.Integer(1)
        return pt

    point = witness(
        {s.name: domains.get(s, "real") for s in free},
        screen,
        lambda p: all(_exact_holds(nd, exact(p)) for nd in nodes),
    )
    return None if point is None else exact(point)


@functools.lru_cache(maxsize=1024)
def _numeric(P):
    """``(generators, numpy function)`` of a polynomial: every check of a claim screens the
    same stability conditions, so each is compiled once."""
    import numpy as np

    gens = sorted(P.free_symbols, key=str)
    return gens, sp.lambdify(gens, P, np)  # the module: no "from numpy import *"


def _float_holds(nodes, values, n):
    """The conjunction of ``nodes`` in floating point (``values``: each polynomial's
    column), with a margin so that rounding does not decide: the exact check comes after."""
    import numpy as np

    def leaf(nd):
        if nd[0] in ("true", "false"):
            return np.full(n, nd[0] == "true")
        v = values[nd[1]]
        tol = 1e-9 * (1 + np.abs(v))
        return {">": v > tol, ">=": v > -tol, "==": np.abs(v) <= tol, "!=": np.abs(v) > tol}[nd[2]]

    return fold(
        ("and", [TRUE, *nodes]),
        leaf,
        lambda xs: np.logical_and.reduce(xs),
        lambda xs: np.logical_or.reduce(xs),
        np.logical_not,
    )


def _exact_holds(node, point) -> bool:
    def leaf(nd):
        if nd[0] in ("true", "false"):
            return nd[0] == "true"
        v = nd[1].xreplace(point)
        return v.is_Rational and bool(_OPS[nd[2]](v, 0))

    return fold(node, leaf, all, any, operator.not_)


def _solve(nodes, symbols, fixed, timeout_ms, products=(), domains=None, certify=False):
    """Decide the conjunction of ``nodes``: ``(status, model dict or None, smt2, seconds)``;
    ``products`` (:func:`_products`) are replaced by their variables first and a solution
    is given back in the original parameters. ``certify``: try the sign certificate on
    the last node (:func:`_impossible_by_signs`), ``"first"`` (or True) before anything
    else, ``"after"`` once the witness search has found nothing (for formulas that are
    mostly satisfiable). A sat answer comes first from a short search of rational points
    (:func:`_witness`; ``domains``: where to draw each variable), else from nlsat."""
    import z3

    t0 = time.perf_counter()
    domains = dict(domains or {})
    for _, b, k in products:
        domains[k] = domains.get(b, "real")
    if products:
        nodes = [_reduce(n, products) for n in nodes]
        symbols = _frame_symbols(symbols, products)
    nodes = [_strip_positive(n, symbols, fixed, domains) for n in nodes]
    problem = Nlsat(nodes, symbols, timeout_ms, fixed, rlimit=int(timeout_ms) * RLIMIT_PER_MS)
    smt2 = problem.smt2
    first = certify in (True, "first")
    if first and _impossible_by_signs(nodes, symbols, fixed, domains):
        return "unsat", "sign certificate", smt2, time.perf_counter() - t0
    hit = _witness(nodes, symbols, fixed, domains)
    if hit is not None:
        for a, b, k in products:
            hit[a], hit[b] = sp.Integer(1), hit.pop(k)
        return "sat", hit, smt2, time.perf_counter() - t0
    if certify == "after" and _impossible_by_signs(nodes, symbols, fixed, domains):
        return "unsat", "sign certificate", smt2, time.perf_counter() - t0
    reduced = _monotone(nodes, symbols, fixed, domains) if certify else None
    if reduced is not None:  # nlsat on the cheaper formula first (its own budget)
        v, c, nodes_c = reduced
        rest = [x for x in symbols if x != v]
        if _solve(nodes_c, rest, fixed, timeout_ms, (), domains)[0] == "unsat":
            by = f"monotone in {v} from {c}, then z3 nlsat"
            return "unsat", by, smt2, time.perf_counter() - t0
    answer, got = problem.check()
    elapsed = time.perf_counter() - t0
    if answer == "sat":
        values = {s: _exact_value(v, z3) for s, v in got.items()}
        if fixed is not None:
            values[fixed] = sp.Integer(1)
        for a, b, k in products:
            values[a], values[b] = sp.Integer(1), values.pop(k)
        return "sat", values, smt2, elapsed
    return answer, got, smt2, elapsed


def _exact_value(val, z3):
    if z3.is_rational_value(val):
        f = val.as_fraction()
        return sp.Rational(f.numerator, f.denominator)
    if z3.is_algebraic_value(val):
        x = sp.Symbol("x")
        coeffs = [sp.Integer(int(str(c))) for c in val.poly()]  # lowest degree first
        poly = sp.Poly(sum(c * x**k for k, c in enumerate(coeffs)), x)
        # z3 numbers the real roots from 1 in increasing order; SymPy's CRootOf from 0, real
        # roots first in increasing order
        root = sp.CRootOf(poly, int(val.index()) - 1)
        approx = val.approx(60).as_fraction()
        if abs(sp.N(root, 40) - sp.Rational(approx.numerator, approx.denominator)) > 1e-30:
            raise VerificationError(f"z3's algebraic number {val.sexpr()} misread as {root}")
        return _Algebraic(val.sexpr(), approx, val.as_decimal(30), root)
    raise VerificationError(f"z3 returned a value that is not a real number: {val}")


def _exact(v):
    """A value of z3's model as a SymPy number."""
    return v.root if isinstance(v, _Algebraic) else v


@dataclass(frozen=True)
class _Algebraic:
    """A real algebraic number from Z3: its ``root-obj`` text and a rational approximation."""

    text: str
    approx: Fraction
    decimal: str
    root: sp.Expr  # the same number as SymPy's CRootOf


# ------------------------------------------------------------------ exact re-check
def verdict_at(sf: StabilityFormula, point: dict) -> str | None:
    """The model's verdict at an exact point (a name or symbol -> a rational or algebraic
    number), by the second path: every factor substituted by SymPy, its roots in the
    closed right half-plane counted by Routh's exact scheme. ``"stable"``, ``"marginal"``
    (roots on the axis, none to the right), ``"unstable"``; None at a degenerate point (a
    factor's leading coefficient vanishes)."""
    from symdelay.analysis.routh import routh_hurwitz

    values = {str(k): sp.sympify(v) for k, v in point.items()}
    axis = False
    for f, _ in sf.per_factor:
        poly = sp.Poly(
            sp.together(f.factor.xreplace({p: values[p.name] for p in sf.parameters})), r
        )
        if poly.degree() < sp.degree(f.factor, r):
            return None
        if poly.degree() < 1:
            continue
        res = routh_hurwitz(poly.as_expr(), r)
        if res.rhp_count is None:
            raise VerificationError(f"Routh's scheme cannot count the roots at {point}")
        if res.rhp_count:
            return "unstable"
        axis = axis or res.imaginary_axis_count > 0
    return "marginal" if axis else "stable"


def second_path(sf, claim, assumptions, target, point):
    """``(claim, target, verdict)`` at an exact point (symbol -> value) by the second path,
    or None where it cannot tell or the point is outside the domains or the assumptions:
    the claim by SymPy (:meth:`~symdelay.analysis.claim_formula.ClaimFormula.holds_at`),
    the verdict by Routh's scheme (:func:`verdict_at`; stable is the target stability),
    a family's ``target`` (:class:`Target`) by its own exact test."""
    from symdelay.analysis.counterexample import _in_domains

    named = {str(k): v for k, v in point.items()}
    if not _in_domains(named, {p.name: sf.domains[p] for p in sf.parameters}):
        return None
    if any(a.holds_at(point) is not True for a in assumptions):
        return None
    holds, verdict = claim.holds_at(point), verdict_at(sf, point)
    inside = verdict == "stable" if target is None else target.holds_at(point)
    if None in (holds, verdict, inside):
        return None
    return holds, inside, verdict


def _rationalise(model, sf, claim, assumptions, direction, values, target=None):
    """A short rational counterexample near Z3's point (each candidate re-checked by the
    second path): Z3's point rounded to 1..40 digits, else the one search's exact lines
    through it (a sliver along the boundary), else Z3's algebraic point itself.
    ``(point, kind, verdict)``, or Nones."""
    from symdelay.analysis.counterexample import Goal

    goal = Goal("stability" if target is None else target.name, direction)
    params = list(model.free_parameters)
    approx = {}
    for p in params:
        v = values.get(p, sp.Integer(1))
        approx[p] = v.approx if isinstance(v, _Algebraic) else Fraction(int(v.p), int(v.q))

    def check(cand):
        res = second_path(sf, claim, assumptions, target, cand)
        return res[2] if res is not None and res[:2] == goal.want else None

    for digits in (1, 2, 3, 4, 6, 9, 12, 18, 25, 40):
        cand = {p: sp.Rational(approx[p].limit_denominator(10**digits)) for p in params}
        verdict = check(cand)
        if verdict:
            return cand, "rational", verdict
    # the one search's exact lines through Z3's point rounded to 12 digits
    hint = {p.name: approx[p].limit_denominator(10**12) for p in params}
    found, _ = search_confirmed(
        model, sf, claim, assumptions, {goal.target: target}, [goal], hints=[hint], points=0
    )
    cand, verdict = found[goal]
    if cand is not None:
        return cand, "rational", verdict
    algebraic = any(isinstance(v, _Algebraic) for v in values.values())
    if algebraic and target is not None:  # the family's test takes rational points
        return None, None, None
    cand = {p: _exact(values.get(p, sp.Integer(1))) for p in params}
    verdict = check(cand)
    if verdict:
        kind = "algebraic" if algebraic else "rational"
        return ({p: values[p] for p in params} if algebraic else cand), kind, verdict
    if target is not None:  # a tie on the target's boundary: left undecided
        return None, None, None
    raise VerificationError(
        f"z3's counterexample {cand} fails the independent exact re-check: a bug"
    )


def stable_test(sf: StabilityFormula):
    """Stability at exact points (name -> Fraction), fast: every factor's coefficients in
    exact rationals, its roots in the closed right half-plane counted exactly. True
    (asymptotically stable), False (a root in ``Re r > 0``), ``"marginal"`` (roots on the
    axis, none to the right), None (a coefficient undefined or the leading one zero: a
    degenerate point)."""
    from symdelay.analysis.counterexample import MARGINAL, exact_function
    from symdelay.analysis.polyroots import exact_counts

    factors = [
        [exact_function(sp.together(c)) for c in sp.Poly(f.factor, r).all_coeffs()]
        for f, _ in sf.per_factor
    ]

    def at(point: dict):
        marginal = False
        for coeffs in factors:
            try:
                cs = [c(point) for c in coeffs]
            except ArithmeticError:  # a zero denominator
                return None
            if cs[0] == 0:
                return None
            if len(cs) > 1:
                counts = exact_counts(cs)
                if counts.rhp:
                    return False
                marginal = marginal or counts.axis > 0
        return MARGINAL if marginal else True

    return at


def search_confirmed(
    model, sf, claim, assumptions, targets, goals, *, domains=None, hints=(), **kw
):
    """The one search (:func:`symdelay.analysis.counterexample.search`, keywords ``kw``) of
    ``claim`` on ``model`` against ``targets`` (name -> None for stability, or a
    :class:`Target`), the points it keeps re-checked by :func:`second_path`: ``({goal:
    (point or None, verdict)}, record)``. ``domains``: where to draw each parameter (name
    -> domain; the model's by default); ``hints``: exact points for the line phase."""
    from symdelay.analysis.counterexample import ClaimEvaluator, Problem, first_confirmed, search

    params = list(model.free_parameters)
    names = [p.name for p in params]
    stable = model.cached("decide:stable_test", lambda: stable_test(sf))
    problem = Problem(
        domains=domains or {p.name: model.domains.get(p, "real") for p in params},
        claim=ClaimEvaluator(claim, names),
        targets={t: stable if tg is None else tg.search_test(params) for t, tg in targets.items()},
        assume=[ClaimEvaluator(a, names) for a in assumptions],
        hints=list(hints),
    )
    found, record = search(problem, goals, **kw)
    out = {}
    for g in goals:
        point, verdict = first_confirmed(
            g,
            found[g],
            lambda pt, t=targets[g.target]: second_path(
                sf, claim, assumptions, t, _symbolic(params, pt)
            ),
        )
        out[g] = (None if point is None else _symbolic(params, point), verdict)
    return out, record


def _symbolic(params, point: dict) -> dict:
    """A search point (name -> Fraction) keyed by the parameters, in SymPy rationals."""
    return {p: sp.Rational(point[p.name].numerator, point[p.name].denominator) for p in params}


def present(model, point: dict) -> dict:
    """A point (symbol -> exact value) as the record gives it: every free parameter, then
    every name a claim may use that depends on them (the founding model's ``D = L/gamma``),
    as text (an algebraic number as SymPy text: parsable)."""
    exact = {p: _exact(v) for p, v in point.items()}
    out = {str(p): str(v) for p, v in exact.items()}
    for k, v in _aliases(model, None).items():
        if isinstance(v, sp.Basic) and v.free_symbols and k not in out:
            out[k] = str(v.xreplace(exact))
    return out


# ------------------------------------------------------------------ the record
def _claim_formula(model, text, what, aliases, transcendental=False):
    fixed = {p.name: v for p, v in model.values.items()}
    params = tuple(model.free_parameters)
    return parse_claim(text, params, {**aliases, **fixed}, what, transcendental)


def _aliases(model, aliases):
    """Names a claim may use besides the free parameters: the caller's, and for a family
    model with options (the founding model) the given options and ``D = L/gamma``."""
    own = getattr(model, "__dict__", {})
    out = dict(own.get("claim_aliases", {}) or {})
    declared = {p.name for p in model.parameters}
    from symdelay.analysis.entry import family_options

    options = family_options(model) or {}
    for k, v in options.items():
        # numbers only: an option such as the in-flight weight pattern is not a value
        number = isinstance(v, (int, Fraction)) or (isinstance(v, sp.Basic) and v.is_number)
        if k != "L" and number and not isinstance(v, bool) and k not in declared:
            out.setdefault(k, v)
    L = options.get("L")
    gamma = next((p for p in model.free_parameters if p.name == "gamma"), None)
    if isinstance(L, int) and gamma is not None and "D" not in declared:
        out.setdefault("D", sp.Integer(L) / gamma)  # the founding model's mean delay
    out.update(aliases or {})
    return out


@dataclass
class _Context:
    """What every check of one claim shares."""

    model: object
    sf: StabilityFormula
    cf: object
    assumptions: list
    fixed: object
    scaling: str
    symbols: list
    hyps: list
    products: tuple = ()
    target: object = None


@dataclass(frozen=True)
class Target:
    """A target set other than stability that a model family defines (the founding
    model's oscillation): ``name`` for the check log, ``node`` the set as a formula of the
    claim language in the model's parameters (exact: polynomial relations), and
    ``holds_at(point)`` the family's own exact test at a rational point (True, False, or
    None when it cannot tell), the independent re-check of every counterexample;
    ``test(point)`` (name -> Fraction) a fast exact test for the search (None: it uses
    ``holds_at``)."""

    name: str
    node: tuple
    holds_at: object
    recheck: str = "the model family's exact test"
    test: object = None

    def search_test(self, params):
        """The test the search decides points with (name -> Fraction)."""
        return self.test or (lambda point: self.holds_at(_symbolic(params, point)))


def targets_of(model) -> dict:
    """The target sets a claim is compared with: ``{"stability": None}`` and the family's
    own (:class:`Target`; the founding model's oscillation), from the family's
    ``claim_targets`` specialisation (cached on the model)."""
    special = getattr(model, "special", None)
    fn = special("claim_targets") if special is not None else None
    own = model.cached("claims:targets", lambda: fn(model)) if fn is not None else {}
    return {"stability": None, **own}


def _context(model, claim, assume, aliases, timeout_ms, target=None, check=True) -> _Context:
    """The frame of every check: ``claim`` None for the stability conditions alone;
    ``check``: refuse assumptions that contradict the domains."""
    sf = stability_formula(model)
    names = _aliases(model, aliases)
    claims = [] if claim is None else [_claim_formula(model, claim, "claim", names)]
    assumptions = [_claim_formula(model, a, "assumption", names) for a in assume]
    symbols = [*sf.parameters, *[s for f in (*claims, *assumptions) for s in f.aux_symbols]]
    hyps = [_domain_node(model), *[n for f in claims for n in f.definitions]]
    for a in assumptions:
        hyps += [a.node, *a.definitions]
    extra = [] if target is None else [target.node]  # the target set must scale too
    stable = [_factor_node(conds) for _, conds in sf.per_factor]
    products = _products(model, [*hyps, *[f.node for f in claims], *stable, *extra], symbols)
    exclude = {s for a, b, _ in products for s in (a, b)}
    fixed, scaling = _scale_variable(model, sf, [*claims, *assumptions], exclude, extra)
    if products:
        scaling += "; " + ", ".join(f"{a}*{b} one variable" for a, b, _ in products)
    cf = claims[0] if claims else None
    if check and _solve(hyps, symbols, fixed, timeout_ms, products, model.domains)[0] == "unsat":
        raise SymdelayInputError(
            "the assumptions contradict the parameter domains: nothing to decide"
        )
    return _Context(model, sf, cf, assumptions, fixed, scaling, symbols, hyps, products, target)


#: a claim with more disjuncts is decided as one formula per condition
_MAX_DISJUNCTS = 8


def _disjuncts(node) -> list:
    """The disjuncts of ``node`` (``or``, and ``not`` of ``and`` by De Morgan), flattened;
    ``[node]`` when it has none or more than :data:`_MAX_DISJUNCTS`."""

    def flat(n):
        if n[0] == "or":
            return [d for c in n[1] for d in flat(c)]
        if n[0] == "not" and n[1][0] == "and":
            return [d for c in n[1][1] for d in flat(neg(c))]
        return [n]

    out = flat(node)
    return out if 1 < len(out) <= _MAX_DISJUNCTS else [node]


def _decide_direction(ctx: _Context, direction: str, timeout_ms: int) -> Outcome:
    """One direction as an :class:`~symdelay.analysis.claim_result.Outcome`: its checks,
    their SMT-LIB2 texts, and a counterexample (exact, re-checked) when one is sat.

    claim => target is one check per disjunct of the claim and per condition of each
    factor (stability) or per target: not (c_1 and ... and c_m) is the disjunction of
    the not c_i, and nlsat decides the pieces far faster; (A or B) and not c is unsat iff
    both A and not c and B and not c are. target => claim is one check."""
    t0 = time.perf_counter()
    hyps, cf, tgt = ctx.hyps, ctx.cf, ctx.target
    if tgt is None:
        name, whole = "stable", [_factor_node(conds) for _, conds in ctx.sf.per_factor]
        pieces = [
            (f"condition {i + 1} ({f.mode} factor)", _cond_node(c))
            for f, conds in ctx.sf.per_factor
            for i, c in enumerate(conds)
        ]
    else:
        name, whole, pieces = tgt.name, [tgt.node], [(tgt.name, tgt.node)]
    if direction == DIRECTIONS[0]:
        parts = _disjuncts(cf.node)
        checks = [
            (
                f"claim{f' (disjunct {j + 1})' if len(parts) > 1 else ''} and not {label}",
                [*hyps, part, neg(c)],
            )
            for j, part in enumerate(parts)
            for label, c in pieces
        ]
    else:
        checks = [(f"{name} and not claim", [*hyps, *whole, neg(cf.node)])]
    formulas, log, status, point, kind, verdict = [], [], PROVEN, None, None, None
    for what, nodes in checks:
        if any(n == FALSE for n in nodes):
            log.append(
                {
                    "check": what,
                    "answer": "unsat (trivially)",
                    "by": "false as written",
                    "seconds": 0.0,
                }
            )
            continue
        answer, values, smt2, sec = _solve(
            nodes,
            ctx.symbols,
            ctx.fixed,
            timeout_ms,
            ctx.products,
            ctx.model.domains,
            certify="first" if direction == DIRECTIONS[0] else "after",
        )
        formulas.append(smt2)
        log.append({"check": what, "answer": answer, "seconds": round(sec, 4)})
        if answer == "unsat":
            log[-1]["by"] = values or "z3 nlsat"
        elif answer == "unknown":
            log[-1]["reason"] = str(values)
            status = UNDECIDED
        else:  # sat
            point, kind, verdict = _rationalise(
                ctx.model, ctx.sf, cf, ctx.assumptions, direction, values, tgt
            )
            if point is None:
                log[-1]["reason"] = "no rational point near z3's model passed the exact re-check"
            status = UNDECIDED if point is None else REFUTED
            break
    how = "Routh's exact scheme on the factors" if tgt is None else tgt.recheck
    note = "decision procedure (z3 nlsat, exact)"
    if status == PROVEN:
        by = sorted({c.get("by", "z3 nlsat") for c in log if "unsat" in c["answer"]})
        note += f": {' and '.join(by) or 'z3 nlsat'}: unsat, {len(formulas)} formula(s)"
    elif status == REFUTED:
        note += f"; re-checked: {how}, the claim by SymPy"
    return Outcome(
        status=status,
        method=METHOD,
        counterexample=present(ctx.model, point) if point is not None else None,
        verdict=verdict,
        formulas=formulas,
        kind=kind,
        checks=log,
        seconds=round(time.perf_counter() - t0, 4),
        tried=(
            f"z3 nlsat (QF_NRA), {timeout_ms} ms per check ({timeout_ms * RLIMIT_PER_MS} "
            f"resource units), {ctx.scaling}; {len(checks)} check(s)"
            if status == UNDECIDED
            else None
        ),
        note=note,
    )


def _check_arguments(assume, timeout_ms):
    if isinstance(assume, str):
        assume = (assume,)
    if isinstance(timeout_ms, bool) or not isinstance(timeout_ms, int) or timeout_ms <= 0:
        raise SymdelayInputError(f"timeout_ms must be a positive integer, got {timeout_ms!r}")
    return tuple(assume)


def decide_directions(
    model,
    claim: str,
    directions=DIRECTIONS,
    *,
    assume=(),
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    aliases: dict | None = None,
    target: Target | None = None,
) -> tuple[dict, str, object]:
    """Decide only ``directions`` (some of ``claim_implies_target``,
    ``target_implies_claim``) against stability, or against ``target`` (a
    :class:`Target` the family defines): ``({direction: Outcome}, scaling note, the
    parsed claim)``."""
    assume = _check_arguments(assume, timeout_ms)
    ctx = _context(model, claim, assume, aliases, timeout_ms, target)
    recs = {d: _decide_direction(ctx, d, timeout_ms) for d in directions}
    return recs, ctx.scaling, ctx.cf


def decide(
    model,
    claim: str,
    *,
    assume=(),
    target: str = "stable",
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
    aliases: dict | None = None,
    theta_real: bool = False,
):
    """Decide ``claim => stable`` and ``stable => claim`` over the model's domains and
    ``assume`` (texts in the claim language): a
    :class:`~symdelay.analysis.claim_result.ClaimResult` (``methods`` all ``"decision
    procedure"``; stability only). ``aliases``: extra names for the claim (``{"D":
    L/gamma}``; the founding model's ``D`` is known). ``timeout_ms`` per check.
    ``theta_real`` is only recorded (the domains are the model's)."""
    if target not in ("stable", "stability"):
        raise SymdelayInputError(
            f"target {target!r}: the decision procedure decides 'stable' here (a family's "
            "own targets go through symdelay.analysis.claims.verify)"
        )
    return decide_targets(
        model, claim, {"stability": None}, assume, timeout_ms, theta_real, aliases=aliases
    )


def decide_targets(model, claim, targets, assume, timeout_ms, theta_real, *, aliases=None, L=None):
    """Both directions of ``claim`` against every target of ``targets`` (name -> None for
    stability, or a :class:`Target`): the record (``L``: the model's, as recorded)."""
    outcomes = {}
    for name, target in targets.items():
        outcomes[name], scaling, cf = decide_directions(
            model, claim, assume=assume, timeout_ms=timeout_ms, aliases=aliases, target=target
        )
    return assemble(
        model,
        claim,
        cf.condition,
        outcomes,
        L=L,
        theta_real=theta_real,
        assume=_check_arguments(assume, timeout_ms),
        scaling=scaling,
        timeout_ms=timeout_ms,
    )


# ------------------------------------------------------------------ minimal conditions
@dataclass(frozen=True)
class MinimalConditions(Result):
    """The stability conditions with every condition implied by the others (over the
    domains) dropped, each drop proven by the decision procedure (``dropped``: condition,
    SMT-LIB2 of the unsat formula). ``kept_undecided``: conditions kept because the check
    timed out (the list is then not proven minimal)."""

    conditions: tuple
    conditions_latex: tuple
    dropped: tuple
    kept_undecided: tuple
    all_conditions: tuple
    model_name: str | None = None
    assume: tuple = ()
    dropped_latex: tuple = ()

    def record(self) -> dict:
        lat = self.dropped_latex or ("",) * len(self.dropped)
        return {
            "conditions": [str(c) for c in self.conditions],
            "conditions_latex": list(self.conditions_latex),
            "assume": list(self.assume),
            "dropped": [
                {"condition": str(c), "latex": t, "formula_smt2": s}
                for (c, s), t in zip(self.dropped, lat, strict=True)
            ],
            "kept_undecided": [str(c) for c in self.kept_undecided],
            "minimal": not self.kept_undecided,
            "method": METHOD,
        }

    def latex(self) -> str:
        return r" \;\wedge\; ".join(self.conditions_latex) or r"\text{true}"

    def table(self):
        return ["condition"], [[str(c)] for c in self.conditions], "minimal stability conditions"


def minimal_conditions(
    model, *, assume=(), timeout_ms: int = DEFAULT_TIMEOUT_MS, aliases: dict | None = None
) -> MinimalConditions:
    """The Liénard–Chipart stability conditions of every factor with the redundant ones
    dropped: each dropped condition is proven implied by the others over the parameters'
    domains and ``assume`` (the decision procedure, z3 nlsat).

    Greedy, largest condition first: ``c`` is dropped when ``domains & (the others still
    kept) & not c`` is unsat. Every kept condition is then not implied by the final others
    (they are a subset of the set it was checked against), so the list is irredundant.

    Parameters
    ----------
    model : Model
        The model, its parameters left symbolic (the conditions are relations on them).
    assume : str or sequence of str, default ()
        Relations the parameters satisfy besides their domains, in the claim language of
        :func:`verify` (e.g. ``"theta >= 0"``).
    timeout_ms : int, default 10000
        The decision procedure's budget per check, in milliseconds; a condition whose check
        runs out is kept and listed in ``kept_undecided`` (the list is then not proven
        minimal).
    aliases : dict, optional
        ``{name: expression}``: further names ``assume`` may use (the founding model already
        reads its options and ``D = L/gamma``).

    Returns
    -------
    MinimalConditions
        ``conditions`` (kept, with their LaTeX), ``dropped`` (each with the SMT-LIB2 text of
        the unsat formula that proves it redundant), ``kept_undecided`` and
        ``all_conditions``.
    """
    from symdelay.core.latex import tex

    assume = (assume,) if isinstance(assume, str) else tuple(assume)
    ctx = _context(model, None, assume, aliases, timeout_ms, check=False)
    conds = list(ctx.sf.conditions)
    order = sorted(range(len(conds)), key=lambda i: -len(str(conds[i])))
    keep = [True] * len(conds)
    dropped, undecided = [], []
    for i in order:
        others = [_cond_node(conds[j]) for j in range(len(conds)) if keep[j] and j != i]
        answer, _, smt2, _ = _solve(
            [*ctx.hyps, *others, neg(_cond_node(conds[i]))],
            ctx.symbols,
            ctx.fixed,
            timeout_ms,
            ctx.products,
            model.domains,
        )
        if answer == "unsat":
            keep[i] = False
            dropped.append((conds[i], smt2))
        elif answer == "unknown":
            undecided.append(conds[i])
    kept = tuple(c for c, k in zip(conds, keep) if k)
    names = dict(getattr(model, "latex_names", {}) or {})
    return MinimalConditions(
        model_name=getattr(model, "name", None),
        conditions=kept,
        conditions_latex=tuple(tex(c, names) for c in kept),
        dropped=tuple(dropped),
        kept_undecided=tuple(undecided),
        all_conditions=tuple(conds),
        assume=tuple(assume),
        dropped_latex=tuple(tex(c, names) for c, _ in dropped),
    )
