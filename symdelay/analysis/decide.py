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
coefficients only, from SymPy's rationals), with a timeout per check:

* ``unsat``: *proven*; the SMT-LIB2 text of every formula decided is kept (``formula_smt2``)
  so that a user can re-run it (``z3 file.smt2``);
* ``sat``: *refuted*; Z3's model is made exact (rationals as they are; an algebraic number
  is rounded to nearby rationals, each re-checked, else kept as its defining polynomial and
  isolating interval) and re-checked by an independent path: the point substituted into the
  model's factors, right half-plane roots counted exactly
  (:func:`symdelay.analysis.polyroots.exact_counts`), and the original SymPy claim evaluated
  exactly (:meth:`~symdelay.analysis.claim_formula.ClaimFormula.holds_at`);
* ``unknown`` (the timeout): *undecided within the budget*, with what was tried; never a
  relation.

*claim => stable* splits into one check per condition of each factor; *stable => claim* is
one check. Two shortcuts come before nlsat, each exact: a coefficient-sign certificate
(lower bounds shifted out, every coefficient nonnegative: a conjunct that cannot hold, so
unsat; the check's ``by`` says ``sign certificate``) and a short search of simple rational
points, each checked in exact arithmetic (a point where every conjunct holds: sat).

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
import time
from dataclasses import dataclass
from fractions import Fraction

from symdelay.analysis.claim_formula import FALSE, TRUE, conj, neg, parse_claim, rel, walk_rels
from symdelay.analysis.claim_result import PROVEN, REFUTED, UNDECIDED, Outcome, assemble
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.result import Result
from symdelay.core.symbols import r

__all__ = [
    "decide_directions",
    "targets_of",
    "stable_test",
    "present",
    "MinimalConditions",
    "StabilityFormula",
    "decide",
    "minimal_conditions",
    "stability_formula",
    "DEFAULT_TIMEOUT_MS",
]

DEFAULT_TIMEOUT_MS = 10_000
METHOD = "decision procedure"
_DIRS = ("claim_implies_target", "target_implies_claim")


# ------------------------------------------------------------------ stability as a formula
@dataclass(frozen=True)
class StabilityFormula:
    """Per factor: ``(Factor, conditions)``, each condition ``P > 0`` or ``P != 0`` (SymPy)."""

    per_factor: tuple
    parameters: tuple  # the free parameters
    domains: dict

    @property
    def conditions(self) -> tuple:
        out = []
        for _, conds in self.per_factor:
            for c in conds:
                if c not in out:
                    out.append(c)
        return tuple(out)


def _domain_symbols(model) -> dict:
    out = {}
    for p in model.free_parameters:
        dom = model.domains[p]
        if dom == "positive":
            out[p] = sp.Symbol(p.name, positive=True)
        elif dom in ("nonnegative", "probability"):
            out[p] = sp.Symbol(p.name, nonnegative=True)
        else:
            out[p] = sp.Symbol(p.name, real=True)
    return out


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
            coeff = -coeff
            if m % 2 == 0:
                coeff = -coeff
            continue
        (odd if m % 2 else even).append(f)
    out = []
    for f in even:
        out.append(sp.Ne(f.xreplace(back), 0))
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
        conds = []
        mult = sp.together(res.multiplier)
        num, den = sp.fraction(mult)
        for piece in (num, den):
            if not sp.expand(piece).is_number:
                for c in _simplified(piece**2, assume, back):
                    if c not in conds:
                        conds.append(c)
        for c in res.lienard_chipart:
            for s in _simplified(c.lhs - c.rhs, assume, back):
                if s not in conds:
                    conds.append(s)
        per.append((f, tuple(conds)))
    return StabilityFormula(tuple(per), params, dict(model.domains))


def _cond_node(c):
    if isinstance(c, sp.Ne):
        return rel(c.lhs - c.rhs, "!=")
    return rel(c.lhs - c.rhs, ">")


def _factor_node(conds):
    return conj(*[_cond_node(c) for c in conds])


def _domain_node(model):
    parts = []
    for p in model.free_parameters:
        dom = model.domains[p]
        if dom == "positive":
            parts.append(rel(p, ">"))
        elif dom == "nonnegative":
            parts.append(rel(p, ">="))
        elif dom == "probability":
            parts += [rel(p, ">="), rel(1 - p, ">=")]
    return conj(*parts)


# ------------------------------------------------------------------ scaling
def _weighted_degree(P, weights: dict):
    """The weighted degree of ``P`` if it is weighted-homogeneous, else None."""
    gens = sorted(P.free_symbols, key=str)
    if not gens:
        return 0
    poly = sp.Poly(P, *gens)
    degs = {sum(e * weights.get(g, 0) for e, g in zip(mon, gens)) for mon in poly.monoms()}
    return degs.pop() if len(degs) == 1 else None


def _scale_variable(model, sf: StabilityFormula, claims, exclude=()) -> tuple:
    """``(parameter fixed to 1, note)`` when every factor and every claim formula is
    invariant under scaling ``r`` and the positive parameters; else ``(None, note)``.
    ``exclude``: rates that may not be the one fixed (replaced by a product)."""
    rates = [p for p in sf.parameters if model.domains[p] == "positive"]
    if not rates:
        return None, "no positive rate parameter: no scaling"
    weights = {p: sp.Integer(1) for p in rates}
    weights[r] = sp.Integer(1)
    for f, _ in sf.per_factor:
        num = sp.fraction(sp.together(sp.expand(f.factor)))[0]
        if _weighted_degree(sp.expand(num), weights) is None:
            return None, f"the {f.mode} factor is not homogeneous in r and the rates: no scaling"
    for cf in claims:
        w = dict(weights)
        for a in cf.aux:
            if a.base[0] == "abs":
                _, n, d = a.base
                q = 1
            else:
                n, d, q = a.base
            dn, dd = _weighted_degree(n, w), _weighted_degree(d, w)
            if dn is None or dd is None:
                return None, f"'{cf.text}' is not invariant under scaling the rates"
            w[a.symbol] = sp.Rational(dn - dd) / q
        for node in [cf.node, *cf.definitions]:
            for _, P, _op in walk_rels(node):
                if _weighted_degree(P, w) is None:
                    return None, f"'{cf.text}' is not invariant under scaling the rates"
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
    out = []
    for n in nodes:
        for _, P, _op in walk_rels(n):
            if P not in out:
                out.append(P)
    return out


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
            ok = True
            for P in polys:
                if P in (a, b) or not (P.has(a) or P.has(b)):
                    continue
                if sp.expand(P.xreplace({b: k / a})).has(a):
                    ok = False
                    break
            if ok:
                out.append((a, b, k))
                used |= {a, b}
                break
    return tuple(out)


def _reduce(node, products):
    """``node`` with every product pair replaced by its variable (see :func:`_products`)."""
    if not products:
        return node
    kind = node[0]
    if kind in ("and", "or"):
        return (kind, tuple(_reduce(c, products) for c in node[1]))
    if kind == "not":
        return ("not", _reduce(node[1], products))
    if kind != "rel":
        return node
    _, P, op = node
    for a, b, k in products:
        if a == P:  # a > 0 (its domain): true
            return TRUE if op in (">", ">=", "!=") else FALSE
        if b == P:  # sign(b) = sign(k) as a > 0
            return ("rel", k, op)
        if P.has(a) or P.has(b):
            P = sp.expand(P.xreplace({b: k / a}))
    return ("rel", P, op)


def _frame_symbols(symbols, products) -> list:
    gone = {s for a, b, _ in products for s in (a, b)}
    return [s for s in symbols if s not in gone] + [k for _, _, k in products]


# ------------------------------------------------------------------ sign certificates
def _conjuncts(nodes) -> list:
    out = []
    for n in nodes:
        if n[0] == "and":
            out += _conjuncts(n[1])
        else:
            out.append(n)
    return out


#: polynomials with more terms are left to nlsat (the (1 + t)^deg expansions grow fast)
_CERTIFY_MAX_TERMS = 120


#: after a rational bound is substituted (the products of its pieces grow further)
_CERTIFY_MAX_SUBSTITUTED = 600


def _rational_bounds(conj_, one, lower, positive) -> list:
    """Upper bounds by rational functions: conjuncts ``b - A v > 0`` (``>= 0``) linear in a
    variable ``v`` that has a constant lower bound, with ``A > 0`` on the set by the sign
    certificate ``positive``: ``(v, A, b, strict)`` for ``v < b/A`` (``<=`` when not
    strict). A claim ``lam*theta < 8 (gamma + mu)^3/(3 gamma + mu)^2`` is such a bound."""
    out = []
    for n in conj_:
        if n[0] != "rel" or n[2] not in (">", ">="):
            continue
        P = sp.expand(n[1].xreplace(one))
        for v in sorted(P.free_symbols & set(lower), key=str):
            if len(P.free_symbols) < 2:
                break
            Pv = sp.Poly(P, v)
            if Pv.degree() != 1:
                continue
            A, b = -Pv.nth(1), Pv.nth(0)
            if not positive(A):
                continue
            g = sp.gcd(A, b)  # the same bound in lowest terms: A/g > 0 when g > 0
            if not g.is_number and positive(g):
                A, b = sp.quo(A, g), sp.quo(b, g)
            out.append((v, sp.expand(A), sp.expand(b), n[2] == ">"))
            if len(out) >= 4:
                return out
    return out


def _impossible_by_signs(nodes, symbols, fixed, domains) -> bool:
    """True if the last node cannot hold, by a sign certificate, under the bounds the
    conjunction sets (then it is unsat, proven without nlsat).

    Every variable gets its bounds from the domains and from the conjuncts ``a v + b > 0``
    / ``>= 0``. A variable bounded below by ``c`` becomes ``c + t`` (``t >= 0``, ``> 0``
    for a strict bound); one also bounded above by ``d`` becomes ``(c + d t)/(1 + t)``
    (``t >= 0`` covers ``[c, d)``; a bound ``v <= d`` adds the polynomial at ``v = d``), the
    polynomial multiplied by ``(1 + t)^deg``. A polynomial whose coefficients are then all
    ``>= 0`` with a positive monomial in strictly positive variables alone (or a positive
    constant) is ``> 0`` on the whole set, so a conjunct ``-S >= 0`` (or ``not S > 0``,
    ``S == 0``) with such an ``S`` is impossible. (``kappa >= 1`` implies the in-flight
    model's Hurwitz conditions this way, where nlsat needs over 30 s at L = 4.)"""
    conj_ = _conjuncts(nodes)
    one = {fixed: sp.Integer(1)} if fixed is not None else {}
    lower, upper = {}, {}
    for v in symbols:
        dom = domains.get(v)
        if v == fixed:
            continue
        if dom == "positive":
            lower[v] = (sp.Integer(0), True)
        elif dom in ("nonnegative", "probability"):
            lower[v] = (sp.Integer(0), False)
        if dom == "probability":
            upper[v] = (sp.Integer(1), False)
    for n in conj_:
        if n[0] != "rel" or n[2] not in (">", ">="):
            continue
        P = sp.expand(n[1].xreplace(one))
        if len(P.free_symbols) != 1:
            continue
        (v,) = P.free_symbols
        poly = sp.Poly(P, v)
        if poly.degree() != 1:
            continue
        c, strict = -poly.TC() / poly.LC(), n[2] == ">"
        side, better = (lower, c.__gt__) if poly.LC() > 0 else (upper, c.__lt__)
        old = side.get(v)
        if old is None or better(old[0]) or (c == old[0] and strict):
            side[v] = (c, strict)
    ts = {v: sp.Dummy(v.name) for v in lower}
    strict_t = {ts[v] for v, (_, st) in lower.items() if st}
    boxed = {v: upper[v] for v in lower if v in upper and upper[v][0] > lower[v][0]}

    def certified(S, at_end=(), strict=True) -> bool:
        """``S > 0`` (``strict``, else ``S >= 0``) on the set by coefficient signs;
        ``at_end``: boxed variables set to their upper end. Sparse polynomial arithmetic in
        the new variables ``t``."""
        S = sp.expand(S.xreplace(one).xreplace({v: boxed[v][0] for v in at_end}))
        if S.is_number:
            return S > 0 if strict else S >= 0
        vs = sorted(S.free_symbols, key=str)
        if not set(vs) <= set(lower):
            return False  # a variable without a lower bound
        gens = [ts[v] for v in vs]
        P = sp.Poly(S, *vs)
        deg = dict(zip(vs, P.degree_list(), strict=True))
        cache = {}

        def piece(v, e):
            if (v, e) not in cache:
                t, c = sp.Poly(ts[v], *gens), lower[v][0]
                if v in boxed:
                    d = boxed[v][0]
                    q = (c + d * t) ** e * (1 + t) ** (deg[v] - e)  # times (1 + t)^deg > 0
                else:
                    q = (c + t) ** e
                cache[v, e] = q
            return cache[v, e]

        total = sp.Poly(0, *gens)
        for mon, coeff in P.terms():
            term = sp.Poly(coeff, *gens)
            for v, e in zip(vs, mon, strict=True):
                term = term * piece(v, e)
            total = total + term
        if any(c < 0 for c in total.coeffs()):
            return False
        return not strict or any(
            c > 0 and all(e == 0 or g in strict_t for g, e in zip(gens, mon, strict=True))
            for mon, c in total.terms()
        )

    probe = {v: (c + boxed[v][0]) / 2 if v in boxed else c + 1 for v, (c, _) in lower.items()}

    def plainly_positive(S, strict=True, max_terms=_CERTIFY_MAX_TERMS) -> bool:
        if len(sp.Add.make_args(sp.expand(S))) > max_terms:
            return False
        # one exact value inside the set first: a polynomial not positive there cannot be
        # certified, and most are not
        at = S.xreplace(one).xreplace(probe)
        if not at.is_number or not (at > 0 if strict else at >= 0):
            return False
        if not certified(S, (), strict):
            return False
        # a closed upper end v = d is in the set: the polynomial there too
        return all(open_ or certified(S, (v,), strict) for v, (_, open_) in boxed.items())

    bounds = _rational_bounds(conj_, one, lower, plainly_positive)
    # the other conjuncts H > 0 / H >= 0 in two or more variables (see follows)
    hyps_ = [
        (sp.expand(n[1].xreplace(one)), n[2])
        for n in _conjuncts(nodes[:-1])
        if n[0] == "rel" and n[2] in (">", ">=") and len(n[1].xreplace(one).free_symbols) > 1
    ]
    for k, (v, _A, _b, _strict) in enumerate(bounds):
        t = sp.Dummy(f"t{k}")
        lower[t], ts[t], probe[t] = (sp.Integer(0), lower[v][1]), t, sp.Integer(1)
        if lower[v][1]:
            strict_t.add(t)
        bounds[k] = (*bounds[k], t)

    def positive(S, strict=True) -> bool:
        """``S > 0`` (``S >= 0``) on the set: by signs, else after a rational bound."""
        if plainly_positive(S, strict):
            return True
        S = sp.expand(S.xreplace(one))
        for v, A, b, open_, t in bounds:
            if not S.has(v):
                continue
            # c <= v < b/A (A > 0 on the set) is v = (c A + b t)/(A (1 + t)), t >= 0:
            # every point of the set has such a t, so S (A (1 + t))^deg > 0 for all t >= 0
            # proves S > 0 there; a closed end v = b/A is checked as well
            c = lower[v][0]
            Sv = sp.Poly(S, v)
            d = Sv.degree()
            inner = sp.expand(
                sum(q * (c * A + b * t) ** j * (A * (1 + t)) ** (d - j) for (j,), q in Sv.terms())
            )
            if not plainly_positive(inner, strict, _CERTIFY_MAX_SUBSTITUTED):
                continue
            end = sp.expand(sum(q * b**j * A ** (d - j) for (j,), q in Sv.terms()))
            if open_ or plainly_positive(end, strict, _CERTIFY_MAX_SUBSTITUTED):
                return True
        return False

    def follows(R) -> bool:
        """``R > 0`` on the set: by signs, or ``R - c H >= 0`` there for a conjunct
        ``H > 0`` (``R - c H > 0`` for ``H >= 0``), ``c > 0`` a ratio of coefficients of a
        monomial the two share (a stability condition a claim weakens by a positive
        term)."""
        if positive(R):
            return True
        R = sp.expand(R.xreplace(one))
        if R.is_number:
            return False
        for H, op in hyps_:
            if H.free_symbols - R.free_symbols:
                continue
            gens = sorted(R.free_symbols, key=str)
            Rp, Hp = sp.Poly(R, *gens), sp.Poly(H, *gens)
            ratios = []
            for mon, c in Hp.terms():
                q = Rp.coeff_monomial(mon)
                if q != 0 and q / c > 0 and q / c not in ratios:
                    ratios.append(q / c)
            for c in sorted(ratios, key=lambda x: (abs(x.p) + x.q, x))[:3]:
                if positive(sp.expand(R - c * H), strict=op == ">="):
                    return True
        return False

    for n in _conjuncts(nodes[-1:]):
        if n[0] == "rel":
            _, Q, op = n
            if op in (">", ">=") and follows(-Q):
                return True
            if op == "==" and (positive(Q) or positive(-Q)):
                return True
        elif n[0] == "not" and n[1][0] == "rel":
            _, P, op = n[1]
            if op in (">", ">=") and follows(P):
                return True
            if op == "!=" and (positive(P) or positive(-P)):
                return True
    return False


# ------------------------------------------------------------------ positive factors
#: relations with more terms are left as they are (factoring them costs more than it saves)
_FACTOR_MAX_TERMS = 400


def _strip_positive(node, symbols, fixed, domains):
    """``node`` with every factor of a relation that is positive on the parameter domains
    (by the sign certificate) divided out: ``P f > 0`` with ``f > 0`` is ``P > 0``, and the
    same for ``>=``, ``==`` and ``!=``. A claim written as a condition times or over a
    positive expression then meets the condition itself."""
    kind = node[0]
    if kind in ("and", "or"):
        return (kind, tuple(_strip_positive(c, symbols, fixed, domains) for c in node[1]))
    if kind == "not":
        return ("not", _strip_positive(node[1], symbols, fixed, domains))
    if kind != "rel":
        return node
    _, P, op = node
    key = (tuple(symbols), fixed, tuple(sorted((str(k), v) for k, v in domains.items())))
    Q = _positive_factors_out(P, key)
    return node if Q is P else rel(Q, op)


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
    gens = sorted(P.free_symbols, key=str)
    return gens, sp.lambdify(gens, P, "numpy")


def _float_holds(node, values, n):
    import numpy as np

    if isinstance(node, list):
        out = np.ones(n, dtype=bool)
        for nd in node:
            out &= _float_holds(nd, values, n)
        return out
    kind = node[0]
    if kind == "true":
        return np.ones(n, dtype=bool)
    if kind == "false":
        return np.zeros(n, dtype=bool)
    if kind == "and":
        return _float_holds(list(node[1]), values, n)
    if kind == "or":
        out = np.zeros(n, dtype=bool)
        for c in node[1]:
            out |= _float_holds(c, values, n)
        return out
    if kind == "not":
        return ~_float_holds(node[1], values, n)
    _, P, op = node
    v = values[P]
    # a margin so that float rounding does not decide: the exact check comes after
    tol = 1e-9 * (1 + np.abs(v))
    return {">": v > tol, ">=": v > -tol, "==": np.abs(v) <= tol, "!=": np.abs(v) > tol}[op]


def _exact_holds(node, point) -> bool:
    kind = node[0]
    if kind == "true":
        return True
    if kind == "false":
        return False
    if kind == "and":
        return all(_exact_holds(c, point) for c in node[1])
    if kind == "or":
        return any(_exact_holds(c, point) for c in node[1])
    if kind == "not":
        return not _exact_holds(node[1], point)
    _, P, op = node
    v = P.xreplace(point)
    if not v.is_Rational:
        return False
    return {">": v > 0, ">=": v >= 0, "==": v == 0, "!=": v != 0}[op]


# ------------------------------------------------------------------ z3
def _z3_poly(P, zvars, z3):
    P = sp.expand(P)
    gens = sorted(P.free_symbols, key=str)
    if not gens:
        q = sp.Rational(P)
        return z3.RealVal(f"{q.p}/{q.q}")
    poly = sp.Poly(P, *gens, domain="QQ")
    terms = []
    for mon, c in poly.terms():
        c = sp.Rational(c)
        factors = []
        for g, e in zip(gens, mon):
            factors += [zvars[g]] * e
        coef = z3.RealVal(f"{c.p}/{c.q}")
        if not factors:
            terms.append(coef)
        else:
            prod = factors[0]
            for x in factors[1:]:
                prod = prod * x
            terms.append(prod if c == 1 else coef * prod)
    return terms[0] if len(terms) == 1 else z3.Sum(*terms)


def _z3_node(node, zvars, z3):
    kind = node[0]
    if kind == "true":
        return z3.BoolVal(True)
    if kind == "false":
        return z3.BoolVal(False)
    if kind == "and":
        return z3.And(*[_z3_node(c, zvars, z3) for c in node[1]])
    if kind == "or":
        return z3.Or(*[_z3_node(c, zvars, z3) for c in node[1]])
    if kind == "not":
        return z3.Not(_z3_node(node[1], zvars, z3))
    _, P, op = node
    e = _z3_poly(P, zvars, z3)
    return {">": e > 0, ">=": e >= 0, "==": e == 0, "!=": e != 0}[op]


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
    zvars = {s: z3.Real(s.name) for s in symbols}
    if fixed is not None:
        zvars[fixed] = z3.RealVal(1)
    solver = z3.SolverFor("QF_NRA")
    solver.set("timeout", int(timeout_ms))
    for n in nodes:
        solver.add(_z3_node(n, zvars, z3))
    smt2 = solver.to_smt2()
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
    answer = solver.check()
    elapsed = time.perf_counter() - t0
    if answer == z3.unsat:
        return "unsat", None, smt2, elapsed
    if answer == z3.sat:
        m = solver.model()
        values = {}
        for s, v in zvars.items():
            if s == fixed:
                values[s] = sp.Integer(1)
                continue
            val = m.eval(v, model_completion=True)
            values[s] = _exact_value(val, z3)
        for a, b, k in products:
            values[a], values[b] = sp.Integer(1), values.pop(k)
        return "sat", values, smt2, elapsed
    reason = solver.reason_unknown()
    if "interrupted" in reason:  # ('canceled' can be a timeout in some z3 versions)
        # z3 turns Ctrl-C into 'unknown': a stop asked for, not a budget spent
        raise KeyboardInterrupt
    return "unknown", reason, smt2, elapsed


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


@dataclass(frozen=True)
class _Algebraic:
    """A real algebraic number from Z3: its ``root-obj`` text and a rational approximation."""

    text: str
    approx: Fraction
    decimal: str
    root: sp.Expr  # the same number as SymPy's CRootOf


# ------------------------------------------------------------------ exact re-check
def _stable_at(model, sf: StabilityFormula, point: dict) -> bool:
    """Independent path: every factor at the rational point, its RHP and axis roots counted
    exactly (Cauchy index, :func:`~symdelay.analysis.polyroots.exact_counts`)."""
    from symdelay.analysis.polyroots import exact_counts
    from symdelay.analysis.routh import routh_hurwitz

    for f, _ in sf.per_factor:
        poly = sp.Poly(sp.together(f.factor.xreplace(point)), r)
        coeffs = poly.all_coeffs()
        if any(not c.is_Rational for c in coeffs):
            # an algebraic point: exact Routh-Hurwitz over the algebraic numbers
            res = routh_hurwitz(poly.as_expr(), r)
            if res.is_stable is None:
                raise VerificationError(f"stability undecided at an algebraic point: {point}")
            if not res.is_stable:
                return False
            continue
        if coeffs[0] == 0:
            return False
        counts = exact_counts(coeffs)
        if counts.rhp or counts.axis:
            return False
    return True


def _in_domain(model, point) -> bool:
    for p in model.free_parameters:
        v, dom = point[p], model.domains[p]
        if dom == "positive" and not v > 0:
            return False
        if dom == "nonnegative" and not v >= 0:
            return False
        if dom == "probability" and not (0 <= v <= 1):
            return False
    return True


def _is_counterexample(model, sf, claim, assumptions, direction, point, target=None) -> bool:
    """``point`` refutes ``direction``: re-checked by exact root counts (stability) or by
    the family's own exact test of ``target`` (:class:`Target`)."""
    if not _in_domain(model, point) or not all(a.holds_at(point) for a in assumptions):
        return False
    holds = claim.holds_at(point)
    if direction == "claim_implies_target" and not holds:
        return False
    if direction != "claim_implies_target" and holds:
        return False
    inside = _stable_at(model, sf, point) if target is None else target.holds_at(point)
    if inside is None:  # the family's test cannot tell (a tie on its boundary)
        return False
    return not inside if direction == "claim_implies_target" else inside


def _rationalise(model, sf, claim, assumptions, direction, values, target=None):
    """A short rational counterexample near Z3's point (each candidate re-checked): Z3's
    point rounded to 1..40 digits, else the one search's exact lines through it (a sliver
    along the boundary), else Z3's algebraic point itself."""
    params = list(model.free_parameters)
    approx = {}
    exact = True
    for p in params:
        v = values.get(p, sp.Integer(1))
        if isinstance(v, _Algebraic):
            exact = False
            approx[p] = v.approx
        else:
            approx[p] = Fraction(int(v.p), int(v.q))
    for digits in (1, 2, 3, 4, 6, 9, 12, 18, 25, 40):
        cand = {}
        for p in params:
            f = approx[p].limit_denominator(10**digits)
            cand[p] = sp.Rational(f.numerator, f.denominator)
        if _is_counterexample(model, sf, claim, assumptions, direction, cand, target):
            return cand, "rational"
    cand = _on_lines(model, sf, claim, assumptions, direction, approx, target)
    if cand is not None:
        return cand, "rational"
    if exact:
        cand = {p: values.get(p, sp.Integer(1)) for p in params}
        if _is_counterexample(model, sf, claim, assumptions, direction, cand, target):
            return cand, "rational"
        if target is not None:  # e.g. a tie on the target's boundary: left undecided
            return None, None
        raise VerificationError(
            f"z3's counterexample {cand} fails the independent exact re-check: a bug"
        )
    cand = {p: values[p].root if isinstance(values[p], _Algebraic) else values[p] for p in params}
    if target is not None:  # the family's test takes rational points: left undecided
        return None, None
    if _is_counterexample(model, sf, claim, assumptions, direction, cand):
        return {p: values[p] for p in params}, "algebraic"
    raise VerificationError(
        f"z3's algebraic counterexample {cand} fails the independent exact re-check: a bug"
    )


def stable_test(sf: StabilityFormula):
    """Stability at exact points (name -> Fraction), fast: every factor's coefficients in
    exact rationals, its roots in the closed right half-plane counted exactly. True
    (asymptotically stable), False (a root in ``Re r > 0``), ``"marginal"`` (roots on the
    axis, none to the right), None (a coefficient undefined or the leading one zero: a
    degenerate point)."""
    from symdelay.analysis.counterexample import MARGINAL
    from symdelay.analysis.polyroots import exact_counts

    params = list(sf.parameters)
    factors = []
    for f, _ in sf.per_factor:
        coeffs = []
        for c in sp.Poly(f.factor, r).all_coeffs():
            num, den = sp.fraction(sp.together(c))
            coeffs.append(tuple(_terms(x, params) for x in (num, den)))
        factors.append(coeffs)

    def at(point: dict):
        values = [point[p.name] for p in params]
        marginal = False
        for coeffs in factors:
            cs = []
            for num, den in coeffs:
                dv = _eval_terms(den, values)
                if dv == 0:
                    return None
                cs.append(_eval_terms(num, values) / dv)
            if cs[0] == 0:
                return None
            if len(cs) > 1:
                counts = exact_counts(cs)
                if counts.rhp:
                    return False
                marginal = marginal or counts.axis > 0
        return MARGINAL if marginal else True

    return at


def _terms(expr, params):
    if not params or sp.expand(expr).is_number:
        q = sp.Rational(sp.expand(expr))
        return [((0,) * len(params), Fraction(int(q.p), int(q.q)))]
    P = sp.Poly(sp.expand(expr), *params, domain="QQ")
    return [(m, Fraction(int(c.p), int(c.q))) for m, c in P.terms()]


def _eval_terms(terms, values):
    total = Fraction(0)
    for mon, c in terms:
        t = c
        for x, e in zip(values, mon):
            if e:
                t *= x**e
        total += t
    return total


def _on_lines(model, sf, claim, assumptions, direction, approx, target):
    """The one search's exact lines through Z3's point rounded to 12 digits."""
    from symdelay.analysis.counterexample import ClaimEvaluator, Goal, Problem, search

    params = list(model.free_parameters)
    names = [p.name for p in params]
    base = {p.name: approx[p].limit_denominator(10**12) for p in params}
    domains = {p.name: model.domains.get(p, "real") for p in params}
    name = "stability" if target is None else target.name

    stable = model.cached("decide:stable_test", lambda: stable_test(sf))

    def test(point):
        if target is None:
            return stable(point)
        return target.holds_at({p: sp.Rational(point[p.name]) for p in params})

    problem = Problem(
        domains=domains,
        claim=ClaimEvaluator(claim, names),
        targets={name: test},
        assume=[ClaimEvaluator(a, names) for a in assumptions],
        hints=[base],
    )
    goal = Goal(name, direction)
    found, _ = search(problem, [goal], points=0)
    for point in found[goal]:
        cand = {p: sp.Rational(point[p.name].numerator, point[p.name].denominator) for p in params}
        if _is_counterexample(model, sf, claim, assumptions, direction, cand, target):
            return cand
    return None


def present(model, point: dict) -> dict:
    """A point (symbol -> exact value) as the record gives it: every free parameter, then
    every name a claim may use that depends on them (the founding model's ``D = L/gamma``),
    as text (an algebraic number as SymPy text: parsable)."""
    out = {}
    for p, v in point.items():
        out[str(p)] = str(v.root) if isinstance(v, _Algebraic) else str(v)
    exact = {p: (v.root if isinstance(v, _Algebraic) else v) for p, v in point.items()}
    for k, v in _aliases(model, None).items():
        if isinstance(v, sp.Basic) and v.free_symbols and k not in out:
            out[k] = str(v.xreplace(exact))
    return out


# ------------------------------------------------------------------ the record
def _claim_formula(model, text, what, aliases):
    fixed = {p.name: v for p, v in model.values.items()}
    return parse_claim(text, tuple(model.free_parameters), {**aliases, **fixed}, what=what)


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
    stable_nodes: list
    products: tuple = ()
    target: object = None


@dataclass(frozen=True)
class Target:
    """A target set other than stability that a model family defines (the founding
    model's oscillation): ``name`` for the check log, ``node`` the set as a formula of the
    claim language in the model's parameters (exact: polynomial relations), and
    ``holds_at(point)`` the family's own exact test at a rational point (True, False, or
    None when it cannot tell), the independent re-check of every counterexample."""

    name: str
    node: tuple
    holds_at: object
    recheck: str = "the model family's exact test"


def targets_of(model) -> dict:
    """The target sets a claim is compared with: ``{"stability": None}`` and the family's
    own (:class:`Target`; the founding model's oscillation), from the family's
    ``claim_targets`` specialisation (cached on the model)."""
    special = getattr(model, "special", None)
    fn = special("claim_targets") if special is not None else None
    own = model.cached("claims:targets", lambda: fn(model)) if fn is not None else {}
    return {"stability": None, **own}


def _context(model, claim, assume, aliases, timeout_ms, target=None) -> _Context:
    sf = stability_formula(model)
    names = _aliases(model, aliases)
    cf = _claim_formula(model, claim, "claim", names)
    assumptions = [_claim_formula(model, a, "assumption", names) for a in assume]
    symbols = [*sf.parameters, *cf.aux_symbols]
    for a in assumptions:
        symbols += a.aux_symbols
    hyps = [_domain_node(model), *cf.definitions]
    for a in assumptions:
        hyps += [a.node, *a.definitions]
    stable_nodes = [(f, _factor_node(conds)) for f, conds in sf.per_factor]
    extra = [] if target is None else [target.node]
    products = _products(model, [*hyps, cf.node, *[n for _, n in stable_nodes], *extra], symbols)
    exclude = {s for a, b, _ in products for s in (a, b)}
    as_claims = [cf, *assumptions]
    if target is not None:  # the target set must be scale invariant too
        as_claims.append(_TargetAsClaim(target.node, target.name))
    fixed, scaling = _scale_variable(model, sf, as_claims, exclude)
    if products:
        scaling += "; " + ", ".join(f"{a}*{b} one variable" for a, b, _ in products)
    if _solve(hyps, symbols, fixed, timeout_ms, products, model.domains)[0] == "unsat":
        raise SymdelayInputError(
            "the assumptions contradict the parameter domains: nothing to decide"
        )
    return _Context(
        model, sf, cf, assumptions, fixed, scaling, symbols, hyps, stable_nodes, products, target
    )


@dataclass(frozen=True)
class _TargetAsClaim:
    """A target set seen by :func:`_scale_variable` like a claim formula."""

    node: tuple
    text: str
    aux: tuple = ()
    definitions: tuple = ()


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


def _decide_direction(ctx: _Context, direction: str, timeout_ms: int) -> dict:
    """One direction: ``status``, ``formula_smt2``, ``counterexample`` (exact, re-checked),
    ``counterexample_kind``, ``checks``, ``seconds`` and, when undecided, ``tried``."""
    t0 = time.perf_counter()
    hyps, cf, tgt = ctx.hyps, ctx.cf, ctx.target
    if tgt is not None:
        parts = _disjuncts(cf.node) if direction == "claim_implies_target" else [cf.node]
        checks = (
            [
                (
                    f"claim{f' (disjunct {j + 1})' if len(parts) > 1 else ''} and not {tgt.name}",
                    [*hyps, part, neg(tgt.node)],
                )
                for j, part in enumerate(parts)
            ]
            if direction == "claim_implies_target"
            else [(f"{tgt.name} and not claim", [*hyps, tgt.node, neg(cf.node)])]
        )
    elif direction == "claim_implies_target":
        # one check per condition of each factor: not (c_1 and ... and c_m) is the
        # disjunction of the not c_i, and nlsat decides the pieces far faster
        # a disjunctive claim the same way: (A or B) and not c is unsat iff both
        # A and not c and B and not c are
        parts = _disjuncts(cf.node)
        checks = [
            (
                f"claim{f' (disjunct {j + 1})' if len(parts) > 1 else ''} and not condition "
                f"{i + 1} ({f.mode} factor)",
                [*hyps, part, neg(c)],
            )
            for j, part in enumerate(parts)
            for (f, node), (_, conds) in zip(ctx.stable_nodes, ctx.sf.per_factor, strict=True)
            if node != TRUE
            for i, c in enumerate(map(_cond_node, conds))
        ]
    else:
        checks = [
            ("stable and not claim", [*hyps, *[n for _, n in ctx.stable_nodes], neg(cf.node)])
        ]
    formulas, log, status, point, kind = [], [], PROVEN, None, None
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
            certify="first" if direction == "claim_implies_target" else "after",
        )
        formulas.append(smt2)
        log.append({"check": what, "answer": answer, "seconds": round(sec, 4)})
        if answer == "unsat":
            log[-1]["by"] = values or "z3 nlsat"
        if answer == "sat":
            point, kind = _rationalise(
                ctx.model, ctx.sf, cf, ctx.assumptions, direction, values, tgt
            )
            if point is None:
                log[-1]["reason"] = "no rational point near z3's model passed the exact re-check"
                status = UNDECIDED
                break
            status = REFUTED
            break
        if answer == "unknown":
            log[-1]["reason"] = str(values)
            status = UNDECIDED
    how = "exact root count of the factors" if tgt is None else tgt.recheck
    if status == PROVEN:
        by = sorted({c.get("by", "z3 nlsat") for c in log if "unsat" in c["answer"]})
        note = (
            f"decision procedure (z3 nlsat, exact): {' and '.join(by) or 'z3 nlsat'}: unsat, "
            f"{len(formulas)} formula(s)"
        )
    elif status == REFUTED:
        note = f"decision procedure (z3 nlsat, exact); re-checked: {how}, the claim exactly"
    else:
        note = "decision procedure (z3 nlsat, exact)"
    return Outcome(
        status=status,
        method=METHOD,
        counterexample=present(ctx.model, point) if point is not None else None,
        formulas=formulas,
        kind=kind,
        checks=log,
        seconds=round(time.perf_counter() - t0, 4),
        tried=(
            f"z3 nlsat (QF_NRA), {timeout_ms} ms per check, {ctx.scaling}; {len(checks)} check(s)"
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
    directions=_DIRS,
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
    recs, scaling, cf = decide_directions(
        model, claim, assume=assume, timeout_ms=timeout_ms, aliases=aliases
    )
    return assemble(
        model,
        claim,
        cf.condition,
        {"stability": recs},
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
    """The Liénard–Chipart conditions of every factor with the redundant ones dropped
    (implied by the others over the domains and ``assume``, texts in the claim language).

    Greedy, largest condition first: ``c`` is dropped when ``domains & (the others still
    kept) & not c`` is unsat. Every kept condition is then not implied by the final others
    (they are a subset of the set it was checked against), so the list is irredundant.
    """
    from symdelay.core.latex import tex

    if isinstance(assume, str):
        assume = (assume,)
    sf = stability_formula(model)
    names = _aliases(model, aliases)
    assumptions = [_claim_formula(model, a, "assumption", names) for a in assume]
    symbols = [*sf.parameters, *[s for a in assumptions for s in a.aux_symbols]]
    hyps = [_domain_node(model), *[n for a in assumptions for n in (a.node, *a.definitions)]]
    conds = list(sf.conditions)
    products = _products(model, [*hyps, *map(_cond_node, conds)], symbols)
    fixed, _ = _scale_variable(model, sf, assumptions, {s for p in products for s in p[:2]})
    order = sorted(range(len(conds)), key=lambda i: -len(str(conds[i])))
    keep = [True] * len(conds)
    dropped, undecided = [], []
    for i in order:
        others = [_cond_node(conds[j]) for j in range(len(conds)) if keep[j] and j != i]
        answer, _, smt2, _ = _solve(
            [*hyps, *others, neg(_cond_node(conds[i]))],
            symbols,
            fixed,
            timeout_ms,
            products,
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
