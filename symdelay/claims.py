"""Checking a claimed inequality against stability and against oscillation.

``verify(L, claim)`` compares the set where the claim holds with

* the stability set (asymptotic stability of the difference mode), and
* the oscillation set (the rightmost roots are non-real),

over ``mu, lam, gamma (or D = L/gamma) > 0`` and ``theta >= 0`` (``theta_real=True``: any
real theta; theta < 0 routes jobs towards the longer queue, and a real root crosses 0 at
``lam*theta = -mu``).

How it decides, strongest first:

1. *Exact.* When the claim depends on lam, theta only through ``k = lam*theta`` and is one
   bound ``k < f`` or ``k > f`` with ``f`` homogeneous of degree 1 in (mu, gamma), and the
   target set is ``k < k_c`` (stability, closed form) or, for ``L = 1``, the oscillation
   condition, the comparison reduces (homogeneity: divide by mu) to the sign of
   ``f - k_c`` as a function of ``g = gamma/mu > 0``, decided by
   ``solve_univariate_inequality``. For ``L = 1`` stability holds for every
   ``k > -mu``, so the relation follows from whether the claim always holds.
2. *Sampling.* Otherwise every relation is tested on a grid of exact rational points
   chosen around both boundaries (all ratios g, points just inside and outside
   ``k_c``); the explanation then says the relation was established by sampling only.

Every counterexample is checked exactly: the claim by exact rational arithmetic, stability
by the Routh count of the exact rational polynomial, oscillation by exact root isolation.

>>> res = verify(1, "4*gamma*lam*theta > (mu-gamma)**2")
>>> res.relation_to_stability, res.relation_to_oscillation
('sufficient', 'equivalent')
>>> verify(2, "lam*theta < 2*(mu+gamma)**2/gamma").relation_to_stability
'equivalent'
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import mpmath
import sympy as sp

from .errors import SymdelayInputError
from .params import as_L
from .parsing import parse_relational
from .stability import (
    critical_lam_theta_value,
    is_oscillatory_at,
    is_stable_at,
    stability_conditions,
)
from .symbols import D, gamma, lam, mu, theta

__all__ = ["ClaimResult", "verify", "CLAIM_SYMBOLS"]

CLAIM_SYMBOLS = ("mu", "gamma", "lam", "theta", "D")
_k = sp.Symbol("k")
_g = sp.Symbol("g", positive=True)
_RELATIONS = ("equivalent", "necessary", "sufficient", "neither")


@dataclass(frozen=True)
class ClaimResult:
    """The verdict on one claim.

    ``relation_to_stability``: ``equivalent`` (claim <=> stable), ``necessary``
    (stable => claim only), ``sufficient`` (claim => stable only) or ``neither``; the same
    for oscillation. ``counterexample``: exact rationals (mu, lam, theta, gamma) where the
    claim and stability differ (None when equivalent); ``oscillation_counterexample``
    likewise. ``proven``: per target, True when decided exactly, False when by sampling.
    """

    L: int
    claim: str
    condition: sp.Basic
    theta_real: bool
    relation_to_stability: str
    relation_to_oscillation: str
    counterexample: dict | None
    oscillation_counterexample: dict | None
    explanation: str
    proven: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {
            "L": self.L,
            "claim": self.claim,
            "theta_real": self.theta_real,
            "relation_to_stability": self.relation_to_stability,
            "relation_to_oscillation": self.relation_to_oscillation,
            "counterexample": self.counterexample,
            "oscillation_counterexample": self.oscillation_counterexample,
            "proven": self.proven,
            "explanation": self.explanation,
        }


# ------------------------------------------------------------------ input
def _parse_claim(L: int, text: str):
    cond = parse_relational(text, variables=())
    allowed = {mu, gamma, lam, theta, D}
    unknown = sorted(str(s) for s in cond.free_symbols - allowed)
    if unknown:
        raise SymdelayInputError(
            f"unknown symbol '{unknown[0]}' in the claim: use only {', '.join(CLAIM_SYMBOLS)}"
        )
    return cond.subs(D, sp.Integer(L) / gamma)


# ------------------------------------------------------------- evaluation
def _point(m, g, lm, th) -> dict:
    return {"mu": str(m), "lam": str(lm), "theta": str(th), "gamma": str(g)}


def _claim_at(cond, m, g, lm, th):
    val = cond.subs({mu: m, gamma: g, lam: lm, theta: th})
    if val in (sp.true, sp.false):
        return bool(val)
    raise SymdelayInputError(
        f"the claim cannot be decided at mu={m}, gamma={g}, lam={lm}, theta={th}: "
        "write it with arithmetic and comparisons only"
    )


def _rational_near(x, digits=12):
    """A short decimal rational next to the mpmath number ``x``."""
    return sp.Rational(mpmath.nstr(x, digits))


def _samples(L: int, theta_real: bool):
    """Exact rational points (mu, gamma, lam, theta) around both boundaries."""
    mus = [sp.Integer(1), sp.Rational(5, 2)]
    ratios = [
        sp.Rational(p, q) for p, q in ((1, 20), (1, 4), (1, 2), (1, 1), (2, 1), (5, 1), (20, 1))
    ]
    lams = [sp.Integer(1), sp.Rational(1, 3)]
    crit = stability_conditions(L).critical_lam_theta
    for m, g_ratio, lm in itertools.product(mus, ratios, lams):
        g = m * g_ratio
        ks = [sp.Integer(0), m / 100, m / 2, m, 3 * m, 10 * m, 100 * m]
        if L >= 2:
            kc = _rational_near(critical_lam_theta_value(L, m, g, dps=20))
            ks += [
                kc * f for f in (sp.Rational(1, 2), sp.Rational(99, 100), sp.Rational(101, 100), 2)
            ]
            if crit is not None:  # the boundary itself, when it is rational here
                exact = sp.radsimp(crit.subs({mu: m, gamma: g}))
                if exact.is_Rational:
                    ks.append(exact)
        # around the L = 1 oscillation boundary (gamma - mu)^2 / (4 gamma)
        kb = (m - g) ** 2 / (4 * g)
        ks += [kb, kb * sp.Rational(99, 100), kb * sp.Rational(101, 100)]
        if theta_real:
            ks += [-m / 2, -m * sp.Rational(99, 100), -m * sp.Rational(101, 100), -3 * m]
        for k in dict.fromkeys(ks):
            yield m, g, lm, k / lm
    for m, g, k in _hopf_points(L):
        yield m, g, sp.Integer(1), k


def _hopf_points(L: int):
    """Exact rational points on the stability boundary (any L >= 2).

    ``P(i w) = 0`` is linear in mu: ``mu = -w Re((iw+gamma)^L) / Im((iw+gamma)^L)``; with
    rational ``gamma, w`` this gives rational ``mu`` and ``k = -Re P_0(iw) / gamma^L``. A
    point is kept when the Routh count confirms it is on the boundary (no root in Re > 0,
    a pair on the imaginary axis), so non-strict claims are tested on the boundary itself.
    """
    if L < 2:
        return
    w = sp.Symbol("w", positive=True)
    for g in (sp.Rational(1, 4), sp.Integer(1), sp.Integer(4)):
        z = sp.expand((sp.I * w + g) ** L)
        re_z, im_z = z.as_real_imag()
        for wq in (g / 4, g / 2, g, 2 * g):
            im_v = im_z.subs(w, wq)
            if im_v == 0:
                continue
            m = sp.Rational(-wq * re_z.subs(w, wq) / im_v)
            if not m > 0:
                continue
            k = sp.Rational(-sp.expand((sp.I * wq + m) * z.subs(w, wq)).as_real_imag()[0] / g**L)
            if not k > 0:
                continue
            res = _routh_at(L, m, g, k)
            if res.rhp_count == 0 and res.imaginary_axis_count == 2:
                yield m, g, k


def _routh_at(L, m, g, k):
    from .charpoly import characteristic_polynomial
    from .routh import routh_hurwitz
    from .symbols import r

    return routh_hurwitz(
        sp.expand(characteristic_polynomial(L).subs({mu: m, gamma: g, lam: k, theta: 1})), r
    )


# ------------------------------------------------------------- exact route
def _single_k_bound(cond):
    """``('<' or '>', f)`` when cond is ``k < f`` / ``k > f`` with f free of lam, theta."""
    if not isinstance(cond, (sp.StrictLessThan, sp.StrictGreaterThan)):
        return None
    e = sp.expand((cond.lhs - cond.rhs).subs(lam, _k / theta))
    if theta in e.free_symbols:
        return None
    e = sp.together(e)
    num, den = sp.fraction(e)
    P = sp.Poly(num, _k)
    if P.degree() != 1:
        return None
    a, b = P.all_coeffs()
    f = sp.factor(-b / a)
    # sign of a * den decides the direction; it must be sign-definite on the domain
    pos = {mu: sp.Symbol("mu", positive=True), gamma: sp.Symbol("gamma", positive=True)}
    s = sp.factor(a * den).subs(pos)
    greater = isinstance(cond, sp.StrictGreaterThan)
    if s.is_positive:
        return (">" if greater else "<", f)
    if s.is_negative:
        return ("<" if greater else ">", f)
    return None


def _sign_everywhere(expr):
    """Sign of a homogeneous degree-1 expression in mu, gamma over mu, gamma > 0, via g."""
    e = sp.simplify(expr.subs({gamma: _g * mu}) / mu)
    if mu in e.free_symbols:
        return None
    e = sp.simplify(e)
    if e == 0:
        return "zero"
    g = sp.Symbol("g", real=True)
    e = e.subs(_g, g)
    pos = sp.solve_univariate_inequality(e > 0, g, relational=False) & sp.Interval.open(0, sp.oo)
    neg = sp.solve_univariate_inequality(e < 0, g, relational=False) & sp.Interval.open(0, sp.oo)
    if neg.is_empty and pos == sp.Interval.open(0, sp.oo):
        return "positive"
    if pos.is_empty and neg == sp.Interval.open(0, sp.oo):
        return "negative"
    if pos.is_empty and neg.is_empty:
        return "zero"
    if not pos.is_empty and not neg.is_empty:
        return "mixed"
    return "semidefinite-positive" if not pos.is_empty else "semidefinite-negative"


def _exact_relation(direction, f, kc):
    """Relation of {k ⋈ f} to {k < kc} on k >= 0 (kc > 0), from the sign of f - kc."""
    if direction != "<":
        return None
    sign = _sign_everywhere(f - kc)
    return {
        "zero": "equivalent",
        "positive": "necessary",
        "semidefinite-positive": "necessary",
        "negative": "sufficient",
        "semidefinite-negative": "sufficient",
        "mixed": "neither",
    }.get(sign)


# ------------------------------------------------------------------ verify
def _relation(c_implies_t: bool, t_implies_c: bool) -> str:
    if c_implies_t and t_implies_c:
        return "equivalent"
    if t_implies_c:
        return "necessary"
    if c_implies_t:
        return "sufficient"
    return "neither"


def verify(L, claim: str, theta_real: bool = False) -> ClaimResult:
    """Is ``claim`` equivalent / necessary / sufficient for stability and for oscillation?"""
    n = as_L(L, allow_symbol=False)
    cond = _parse_claim(n, claim)
    st = stability_conditions(n)
    notes = []
    if theta_real:
        notes.append(
            "theta ranges over all reals: theta < 0 routes jobs towards the longer queue, and "
            "a real root crosses 0 at lam*theta = -mu, so stability needs -mu < lam*theta"
        )

    stab_bad = {"claim_only": None, "target_only": None}
    osc_bad = {"claim_only": None, "target_only": None}
    for m, g, lm, th in _samples(n, theta_real):
        c = _claim_at(cond, m, g, lm, th)
        k = lm * th
        s = is_stable_at(n, m, g, k)
        o = is_oscillatory_at(n, m, g, k)
        for bad, t in ((stab_bad, s), (osc_bad, o)):
            if t is None:
                continue
            if c and not t and bad["claim_only"] is None:
                bad["claim_only"] = _point(m, g, lm, th)
            if t and not c and bad["target_only"] is None:
                bad["target_only"] = _point(m, g, lm, th)

    proven = {"stability": False, "oscillation": False}
    rel_s = _relation(stab_bad["claim_only"] is None, stab_bad["target_only"] is None)
    rel_o = _relation(osc_bad["claim_only"] is None, osc_bad["target_only"] is None)

    # exact routes
    bound = None if theta_real else _single_k_bound(cond)
    if n == 1 and not theta_real:
        if stab_bad["target_only"] is not None:
            proven["stability"] = True
            notes.append(
                "for L = 1 every coefficient of r^2 + (mu+gamma) r + gamma (mu + lam theta) "
                "is positive on the domain, so every point is stable: the claim is sufficient, "
                "and equivalent only if it always holds"
            )
        osc = st.oscillation_condition
        same_kind = isinstance(cond, sp.Rel) and type(cond) is type(osc)
        if same_kind and sp.expand((cond.lhs - cond.rhs) - (osc.lhs - osc.rhs)) == 0:
            rel_o, proven["oscillation"] = "equivalent", True
            notes.append(
                "the claim is, term by term, the oscillation condition derived from the "
                "discriminant (complex roots), not a stability condition"
            )
    elif bound is not None and st.critical_lam_theta is not None:
        exact = _exact_relation(bound[0], bound[1], st.critical_lam_theta)
        if exact is not None:
            rel_s = exact
            proven["stability"] = True
            notes.append(
                f"the claim is lam*theta < f(mu, gamma); with g = gamma/mu the sign of "
                f"f - k_c, k_c = {st.critical_lam_theta}, was decided exactly on g > 0"
            )
    if not proven["stability"]:
        notes.append(
            "relation to stability established by exhaustive sampling on exact rational points "
            "(Routh counts), not proven"
        )
    if not proven["oscillation"]:
        notes.append(
            "relation to oscillation (rightmost roots non-real) established by sampling on "
            "exact rational points, not proven"
        )
    ce = stab_bad["claim_only"] or stab_bad["target_only"]
    if ce is not None:
        which = "claim holds but unstable" if stab_bad["claim_only"] else "stable but claim fails"
        notes.insert(0, f"counterexample: {which}")
    oce = osc_bad["claim_only"] or osc_bad["target_only"]
    return ClaimResult(
        L=n,
        claim=claim,
        condition=cond,
        theta_real=theta_real,
        relation_to_stability=rel_s,
        relation_to_oscillation=rel_o,
        counterexample=ce,
        oscillation_counterexample=oce,
        explanation="; ".join(notes) + ".",
        proven=proven,
    )
