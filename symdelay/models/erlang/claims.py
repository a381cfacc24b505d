"""The founding model's claims: its exact class and the interval certificate at L = inf.

The specialisation of :func:`symdelay.analysis.claims.verify` for the founding model. The claim
is read as for every model (:func:`symdelay.analysis.claim_formula.parse_claim`, in ``mu,
gamma, lam, theta`` and ``D = L/gamma``; at ``L = inf`` in ``mu, lam, theta, D``) and compared
with two target sets over ``mu, lam, gamma (or D) > 0`` and ``theta >= 0`` (``theta_real``:
any real theta):

* stability: the difference mode ``(r + mu)(r + gamma)^L + k gamma^L`` (``k = lam*theta``)
  has every root in ``Re r < 0`` (a point with roots on the axis is marginal: not stable);
* oscillation: its rightmost roots are non-real (:func:`claim_targets`).

Both depend on ``(mu, gamma, k)`` only and are invariant under scaling the rates: stability
is ``-mu < k < k_c(mu, gamma) = mu kappa(gamma/mu)``, oscillation ``k > k_o(mu, gamma)`` in
closed form (``L = inf``: ``k_c = mu kappa(mu D)``, ``k_o = e^{-1-mu D}/D``). What only this
family knows decides a direction *exactly*:

* the exact class: a claim that is one bound ``lam*theta < f`` (or ``>``, ``<=``, ``>=``)
  with ``f`` homogeneous of degree 1 and rational in ``mu, gamma`` (or with one square
  root): by homogeneity the question is the sign of ``f - k_c`` (or ``f - k_o``) as a
  function of ``g = gamma/mu > 0``, which changes only at the real roots of a polynomial,
  isolated exactly, the sign between them decided by exact root counts at rational points.
  ``L = 1`` is stable for every ``theta >= 0`` (positive coefficients);
* ``L = inf``: a bound ``lam*theta < f`` with ``f/mu`` rational in ``mu D``, certified with
  interval arithmetic along the Hopf curve ``mu D = (pi - atan t)/t``, ``lam*theta = mu
  sqrt(1 + t^2)``, the two ends by exact sign conditions.

Every other direction, and every refuted one's counterexample, comes from the one search
(:func:`symdelay.analysis.counterexample.search`) with this family's exact tests at a point
and its closed-form boundaries as the float screen; the exact class hands it the ratio
``gamma/mu`` where its sign analysis failed, so a sliver between the boundary and the claim
is found exactly. Finite-L directions still open then go to the decision procedure
(:func:`symdelay.analysis.decide.decide_directions`, L up to :data:`DECIDE_MAX_L`). The
record is the generic one (:func:`symdelay.analysis.claim_result.assemble`).

>>> res = verify(1, "4*gamma*lam*theta > (mu-gamma)**2")
>>> res.relation_to_stability, res.relation_to_oscillation
('sufficient', 'equivalent')
>>> verify(2, "lam*theta < 2*(mu+gamma)**2/gamma").relation_to_stability
'equivalent'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import mpmath

from symdelay.analysis.claim_result import (
    DEFAULT_TIMEOUT_MS,
    DIRECTIONS,
    OPEN,
    PROVEN,
    REFUTED,
    TARGETS,
    ClaimResult,
)
from symdelay.core.errors import CertificationError, SymdelayInputError, VerificationError
from symdelay.core.lazy import module as _lazy_module
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import INFINITE_L, as_L_or_inf
from symdelay.core.symbols import D, gamma, lam, mu, theta
from symdelay.models.erlang.charpoly import difference_coefficients
from symdelay.models.erlang.stability import (
    _hopf_factor,
    _in_k,
    is_oscillatory_at,
    oscillation_threshold,
)

np = _lazy_module("numpy")  # the search loads it; a proof needs no numpy

__all__ = ["ClaimResult", "verify", "claim_targets", "specialised_verify", "MAX_L", "DECIDE_MAX_L"]

#: Largest finite L accepted (exact root counts on degree L + 1 at every checked point).
MAX_L = 64
#: Largest L for which the exact (resultant) route is attempted for stability.
_EXACT_MAX_L = 8
#: random points screened by the closed-form boundaries (plus their structure)
_POINTS = 24000
#: Largest finite L for which the decision procedure decides the directions left open.
DECIDE_MAX_L = 12
_k = sp.Symbol("k")
_g = sp.Symbol("g")


# ------------------------------------------------------------------ the space
@dataclass(frozen=True)
class _Space:
    """Coordinates (mu, x, lam, theta): x = gamma for finite L, x = D for L = inf."""

    L: int | str  # int or "inf"
    x: sp.Symbol

    @property
    def infinite(self) -> bool:
        return self.L == "inf"

    @property
    def names(self) -> tuple:
        """The parameters in the order of the record (the transition table's)."""
        return ("lam", "theta", "mu", str(self.x))


def _parse_claim(space: _Space, text: str):
    """The claim read as for every model, in the founding model's names."""
    from symdelay.analysis.claim_formula import parse_claim

    if space.infinite:
        cf = parse_claim(text, (lam, theta, mu, D, gamma), transcendental=True)
        if gamma in cf.free_symbols:
            raise SymdelayInputError(
                "gamma = L/D is not defined for L = inf: write the claim in mu, lam, theta, D"
            )
        return cf
    return parse_claim(
        text, (lam, theta, mu, gamma), {"D": sp.Integer(space.L) / gamma}, transcendental=True
    )


# ------------------------------------------------------------- exact tests at a point
#: L = inf: certified roots (argument principle on a box of size ~ |k|) are the second
#: path when |lam*theta|*D and |lam*theta|/mu stay below these; beyond, the box is too large.
_ROOTS_MAX_KD = 60
_ROOTS_MAX_K = 2000


def _iv(x):
    x = Fraction(x)
    return mpmath.iv.mpf([x.numerator, x.numerator]) / x.denominator


def _dde_verdict(m, D, lm, th):
    """L = inf: the one verdict at the point (:func:`symdelay.analysis.stability.stability`,
    Hayes' region in certified intervals): True, False or MARGINAL."""
    from symdelay.analysis.counterexample import MARGINAL
    from symdelay.analysis.stability import stability
    from symdelay.models.erlang.founding import FoundingModel

    at = stability(FoundingModel(L=INFINITE_L, mu=m, lam=lm, theta=th, D=D))
    return {"stable": True, "unstable": False}.get(at.verdict, MARGINAL)


def _dde_oscillatory_form(m, x, k):
    """L = inf: the principal (rightmost) Lambert-W root is non-real iff k D e^{mu D} > 1/e."""
    if k <= 0:
        return False
    with mpmath.workdps(40):
        iv = mpmath.iv
        z = _iv(k) * _iv(x) * iv.exp(_iv(m) * _iv(x))
        e1 = iv.exp(iv.mpf(-1))
        if z.a > e1.b:
            return True
        if z.b < e1.a:
            return False
    return None


def _dde_roots(m, x, lm, th):
    """Certified rightmost root (and RHP count) when the parameters are moderate, else None."""
    k = lm * th
    if k == 0 or abs(k) * x > _ROOTS_MAX_KD or abs(k) / m > _ROOTS_MAX_K:
        return None
    from symdelay.models.erlang.roots import characteristic_roots

    q = [sp.Rational(v.numerator, v.denominator) for v in (m, lm, th, x)]
    try:
        return characteristic_roots("inf", *q, dps=30, rightmost=1, branches=(-1, 1))
    except CertificationError:
        return None


def _tests(space: _Space) -> dict:
    """The exact test of each target at a point (name -> Fraction): True, False, or None
    (cannot tell: a tie on a boundary of the interval tests)."""
    from symdelay.analysis.counterexample import MARGINAL
    from symdelay.analysis.polyroots import exact_counts

    xn = str(space.x)
    if space.infinite:
        return {
            "stability": lambda p: _dde_verdict(p["mu"], p[xn], p["lam"], p["theta"]),
            "oscillation": lambda p: _dde_oscillatory_form(p["mu"], p[xn], p["lam"] * p["theta"]),
        }
    L = space.L
    ko = _ko_fn(L)

    def stable(p):
        counts = exact_counts(difference_coefficients(L, p["mu"], p[xn], p["lam"] * p["theta"]))
        return MARGINAL if counts.axis and not counts.rhp else not (counts.rhp or counts.axis)

    return {
        "stability": stable,
        "oscillation": lambda p: p["lam"] * p["theta"] > ko(p["mu"], p[xn]),
    }


@cache
def _ko_fn(L: int):
    """k_o(mu, gamma) exactly at rationals (:func:`oscillation_threshold`)."""
    e = oscillation_threshold(L)
    if L == 1:
        return lambda m, g: (g - m) ** 2 / (4 * g)
    from symdelay.analysis.counterexample import exact_function

    f = exact_function(sp.together(e.subs(sp.Max(0, gamma - mu), gamma - mu)))
    return lambda m, g: f({"mu": m, "gamma": g}) if g > m else Fraction(0)


def _second_path(space: _Space, cf, target: str, point: dict):
    """``(claim, target, verdict)`` at a point (name -> Fraction) by the second path, or
    None where it cannot tell: the claim by SymPy
    (:meth:`~symdelay.analysis.claim_formula.ClaimFormula.holds_at`); the verdict by an
    exact Routh count (finite L) or certified roots (L = inf, moderate parameters; the
    interval closed form otherwise); oscillation by exact real-root isolation (finite L)
    or the certified rightmost root."""
    q = {k: sp.Rational(v.numerator, v.denominator) for k, v in point.items()}
    m, x, k = q["mu"], q[str(space.x)], q["lam"] * q["theta"]
    if space.infinite:
        res = _dde_roots(point["mu"], point["D"], point["lam"], point["theta"])
        if res is None:
            stable, osc = (f(point) for f in _tests(space).values())
        else:
            top = res[0]
            stable = not res.unstable_count
            osc = False if top.imag == 0 else (True if abs(top.imag) > top.radius else None)
        verdict = "marginal" if k == -m else {True: "stable", False: "unstable"}.get(stable)
    else:
        from symdelay.analysis.routh import routh_hurwitz
        from symdelay.core.symbols import r
        from symdelay.models.erlang.stability import _poly_at

        counts = routh_hurwitz(_poly_at(space.L, m, x, k).as_expr(), r)
        axis = "marginal" if counts.imaginary_axis_count else "stable"
        verdict = "unstable" if counts.rhp_count else axis
        osc = is_oscillatory_at(space.L, m, x, k) if target == "oscillation" else None
    inside = (verdict and verdict == "stable") if target == "stability" else osc
    holds = cf.holds_at(q)
    return None if None in (holds, inside, verdict) else (holds, inside, verdict)


def _kappa(space: _Space, s):
    """k_c/mu as a function of the scale s (gamma/mu, or mu*D for L = inf); floats."""
    from symdelay.analysis.critical import critical
    from symdelay.models.erlang.founding import FoundingModel

    s = np.asarray(s, dtype=float)
    if not space.infinite and space.L == 1:
        return np.full(s.shape, np.inf)
    out = np.full(s.shape, np.nan)
    ok = np.isfinite(s) & (s > 1e-300) & (s < 1e300)  # beyond: no float boundary (exact only)
    if ok.any():
        with np.errstate(all="ignore"):
            x = s[ok] if space.infinite else space.L / s[ok]
            model = FoundingModel(L=INFINITE_L if space.infinite else space.L, mu=1, lam=1)
            out[ok] = critical(model, at=x, float64=True).arrays()[1]
    return out


@cache
def _h_fn(L):
    """k_o/mu as a numpy function of the scale."""
    s = sp.Symbol("s", positive=True)
    if L == "inf":
        e = oscillation_threshold("inf").subs({mu: 1, D: s})
    else:
        e = oscillation_threshold(L).subs({mu: 1, gamma: s})
    return sp.lambdify(s, e, modules=np)  # the module: no "from numpy import *"


def _target_margins(space, s, q):
    """(stability margin, oscillation margin) at scale s and q = k/mu; > 0 inside."""
    with np.errstate(all="ignore"):
        kap = _kappa(space, s)
        h = np.broadcast_to(np.asarray(_h_fn(space.L)(s), dtype=float), np.shape(s))
        pos = q > 0
        qs = np.where(pos, q, 1.0)
        ms = np.where(pos, np.log(kap / qs), q + 1.0)
        mo = np.where(pos, np.where(h > 0, np.log(qs / np.where(h > 0, h, 1.0)), np.inf), -1.0)
    return ms, mo


# --------------------------------------------------------------- exact route
def _k_bound(cond, space):
    """``(side, strict, f)``: cond is ``k < f`` (side "upper") or ``k > f`` ("lower"),
    ``<=``/``>=`` when not strict, with ``f`` free of lam, theta; else None."""
    if not isinstance(cond, (sp.StrictLessThan, sp.StrictGreaterThan, sp.LessThan, sp.GreaterThan)):
        return None
    try:
        e = _in_k(cond.lhs - cond.rhs)
    except SymdelayInputError:
        return None
    e = sp.together(e)
    num, den = sp.fraction(e)
    if _k in den.free_symbols:
        return None
    try:
        P = sp.Poly(num, _k)
    except sp.PolynomialError:
        return None
    if P.degree() != 1:
        return None
    a, b = P.all_coeffs()
    f = sp.factor(-b / a)
    pos = {mu: sp.Symbol("mu", positive=True), space.x: sp.Symbol(str(space.x), positive=True)}
    sgn = sp.factor(a * den).subs(pos)
    greater = isinstance(cond, (sp.StrictGreaterThan, sp.GreaterThan))
    strict = isinstance(cond, (sp.StrictGreaterThan, sp.StrictLessThan))
    if sgn.is_positive:
        side = "lower" if greater else "upper"
    elif sgn.is_negative:
        side = "upper" if greater else "lower"
    else:
        return None
    return side, strict, f


def _exact_coefficients(expr) -> bool:
    """Only rationals, _g, and square roots: no pi, E, exp(...) or floats."""
    if expr.atoms(sp.NumberSymbol) or expr.atoms(sp.Function):
        return False
    return all(a.is_Rational for a in expr.atoms(sp.Number))


def _sqrt_base(phi):
    """The one polynomial R(g) with phi rational in g and sqrt(R); None if rational; False
    if phi has another kind of irrationality."""
    if phi.is_rational_function(_g):
        return None
    roots = {a for a in phi.atoms(sp.Pow) if a.exp == sp.S.Half}
    bases = {a.base for a in roots}
    if len(bases) != 1:
        return False
    (R,) = bases
    y = sp.Symbol("y")
    if not (R.is_polynomial(_g) and phi.subs(sp.sqrt(R), y).is_rational_function(_g, y)):
        return False
    return sp.expand(R)


def _phi(f):
    """f(1, g) when f is homogeneous of degree 1 in (mu, gamma) and rational in g and at
    most one square root sqrt(R(g)) (the closed forms of k_c for L = 4, 5 are)."""
    s = sp.Symbol("s", positive=True)
    if sp.simplify(f.subs({mu: s * mu, gamma: s * gamma}, simultaneous=True) - s * f) != 0:
        return None
    phi = f.subs({mu: 1, gamma: _g})
    if phi.free_symbols - {_g} or not _exact_coefficients(phi):
        return None
    if phi.is_rational_function(_g):
        return sp.cancel(phi)
    return phi if _sqrt_base(phi) is not False else None


def _separated(polys, lo, hi):
    """Sorted disjoint rational isolating intervals of the real roots in (lo, hi) (None:
    not separated)."""
    prod = sp.Poly(sp.Mul(*[p.as_expr() for p in polys]), _g)
    if prod.degree() <= 0:
        return []
    sqf = sp.Poly(sp.quo(prod, sp.gcd(prod, prod.diff(_g))), _g)
    eps = sp.Rational(1, 10**6)
    for _ in range(6):
        keep = []
        for a, b in sorted(a for a, _m in sqf.intervals(eps=eps)):
            iv = _off_ends(sqf, a, b, lo, hi)
            if iv is False:
                return None
            if iv is not None and lo < iv[0] and (hi is sp.oo or iv[1] < hi):
                keep.append(iv)
        if all(keep[i][1] < keep[i + 1][0] for i in range(len(keep) - 1)):
            return keep
        eps /= 10**6
    return None


def _off_ends(sqf, a, b, lo, hi, steps: int = 400):
    """The isolating interval ``[a, b]`` of a root of ``sqf`` refined until neither end of
    (lo, hi) lies in it (else the gap between that end and the root would have no test
    point: SymPy isolates a small positive root in ``(0, b]``); None when the root is that
    end, False when ``steps`` refinements do not separate them."""
    for end in (lo, hi):
        if end is sp.oo or a == b or not a <= end <= b:
            continue
        if sqf.eval(end) == 0:
            return None
        for _ in range(steps):
            a, b = sqf.refine_root(a, b, steps=1)
            if not a <= end <= b:
                break
        else:
            return False
    return a, b


def _test_points(roots, lo, hi):
    """The simplest rational in each open gap between the isolated roots, inside (lo, hi)."""
    from symdelay.analysis.counterexample import simplest_between

    ends = [lo] + [v for iv in roots for v in iv] + [hi]
    pts = []
    for i in range(0, len(ends), 2):
        a, b = Fraction(str(ends[i])), ends[i + 1]
        b = a + 2 if b is sp.oo else Fraction(str(b))
        if a < b:  # a root at an end of (lo, hi) leaves no gap before or after it
            pts.append(sp.Rational(simplest_between(a, b)))
    return pts


def _bracket(value):
    """Rationals a < value < b, 1e-40 apart relative, checked exactly by SymPy."""
    if value.is_Rational:
        return value, value
    with mpmath.workdps(60):
        mid = sp.Rational(str(sp.N(value, 55)))
    eps = (abs(mid) + 1) / sp.Integer(10) ** 40
    a, b = mid - eps, mid + eps
    if (value - a).is_positive and (b - value).is_positive:
        return a, b
    return None


def _sign_of_kappa_minus(L, hopf_k, phi, gt):
    """sign(k_c(1, gt) - phi(gt)) exactly: -1, 0, 1 (None: undecided)."""
    pt = sp.radsimp(phi.subs(_g, gt))
    br = _bracket(pt)
    if br is None:
        return None
    a, b = br
    if b <= 0:
        return 1
    hk = sp.Poly(hopf_k.subs({mu: 1, gamma: gt}), _k)
    if hk.count_roots(0, b) == 0:
        return 1
    if a == b:  # pt rational
        return 0 if hk.eval(pt) == 0 and hk.count_roots(0, pt) == 1 else -1
    if a > 0 and hk.count_roots(0, a) > 0:
        return -1  # k_c <= a < pt
    if hk.count_roots(0, b) == 1 and sp.expand(hk.as_expr().subs(_k, pt)) == 0:
        return 0
    return None


def _norm(expr, R, y):
    """Polynomial in g vanishing where expr(g, sqrt(R)) does: (A + B y)(A - B y) = A^2 - B^2 R."""
    P = sp.Poly(sp.expand(expr), y)
    rem = sp.Poly(sp.rem(P.as_expr(), y**2 - R, y), y)
    coeffs = rem.all_coeffs()
    A, B = (coeffs[-1], coeffs[-2]) if len(coeffs) == 2 else (coeffs[-1], 0)
    return sp.expand(A**2 - B**2 * R)


def _kappa_always(L, hopf_k, phi, above: bool, strict: bool):
    """Is k_c - phi >= 0 (above) or <= 0 (not above) on g > 0 (strict: > / <)?

    k_c(1, g) is the smallest positive root of Delta_L(k; 1, g) and continuous in g, so
    k_c - phi changes sign only where Delta_L(phi(g); g) = 0 (or at a pole of phi): the
    numerator of that (times its conjugate when phi has sqrt(R)) is a polynomial whose
    positive roots are isolated exactly; between them the sign is decided at a rational
    point by exact root counting. Returns (True | False | None, witness g or None)."""
    R = _sqrt_base(phi)
    y = sp.Symbol("y")
    phi_y = phi if R is None else phi.subs(sp.sqrt(R), y)
    den = sp.fraction(sp.together(phi_y))[1]
    N = sp.fraction(sp.together(hopf_k.subs({mu: 1, gamma: _g}).subs(_k, phi_y)))[0]
    if R is not None:
        N, den = _norm(N, R, y), _norm(den, R, y)
    den_p = sp.Poly(den, _g)
    polys = [den_p]
    identically = sp.expand(N) == 0
    if not identically:
        polys.append(sp.Poly(N, _g))
    if R is not None:
        polys.append(sp.Poly(R, _g))

    def sign_at(gt):
        if R is not None and R.subs(_g, gt) < 0:
            return None
        return _sign_of_kappa_minus(L, hopf_k, phi, gt)

    # strict with roots inside: a touching point would need an algebraic comparison
    return _sign_between(polys, den_p, sp.Integer(0), sp.oo, sign_at, above, strict, None)


def _kappa_min_lower(L):
    """A rational c < min over g of k_c(1, g) = lam theta*/mu (the worst delay, a global
    minimum along the Hopf branch: :func:`symdelay.models.erlang.hopf.worst_delay_closed_form`)."""
    from symdelay.models.erlang.hopf import worst_delay_closed_form

    th = worst_delay_closed_form(L)[2].subs({mu: 1, lam: 1})
    c = sp.Rational(str(sp.N(th, 40))) * (1 - sp.Rational(1, 10**25))
    return c if (th - c).is_positive else None


def _rational_always(R, lo, hi, positive: bool, strict: bool):
    """Is the rational function R(g) >= 0 (positive) / <= 0 on (lo, hi); strict: > / <."""
    num, den = sp.fraction(sp.together(R))
    pn, pd = sp.Poly(num, _g), sp.Poly(den, _g)
    if pn.is_zero:
        return (not strict), ((lo + 1) if hi is sp.oo else (lo + hi) / 2)
    # strict with roots inside: R vanishes at a root of its numerator there
    return _sign_between(
        [pn, pd], pd, lo, hi, lambda gt: sp.sign(R.subs(_g, gt)), positive, strict, False
    )


def _sign_between(polys, den, lo, hi, sign_at, positive: bool, strict: bool, touching):
    """Has ``sign_at`` (-1, 0, 1 or None: undecided) the sign wanted (``positive``: >= 0,
    else <= 0; ``strict``: > / <) on (lo, hi), decided at one rational point between each
    two real roots of ``polys`` (a root of ``den`` inside: undecided)? ``(True | False |
    None, witness g or None)``; ``touching`` when strict and roots lie inside."""
    roots = _separated(polys, lo, hi)
    if roots is None or any(den.count_roots(a, b) > 0 for a, b in roots):
        return None, None
    want = 1 if positive else -1
    for gt in _test_points(roots, lo, hi):
        sg = sign_at(gt)
        if sg is None:
            return None, None
        if sg == -want or (strict and sg == 0):
            return False, gt
    return (touching if strict and roots else True), None


def _h_pieces(L):
    """k_o(1, g) piecewise: [((lo, hi), rational function of g)]."""
    if L == 1:
        return [((sp.Integer(0), sp.oo), oscillation_threshold(1).subs({mu: 1, gamma: _g}))]
    e = oscillation_threshold(L).subs({mu: 1, gamma: _g})
    below = e.subs(sp.Max(0, _g - 1), 0)
    above = e.subs(sp.Max(0, _g - 1), _g - 1)
    return [((sp.Integer(0), sp.Integer(1)), below), ((sp.Integer(1), sp.oo), above)]


def _exact_directions(space, cond, target, theta_real):
    """{direction: (status, witness_g or None, why)} decided exactly (``why``: the
    reason when proven, a template with ``{L}``); missing = not decided.

    With ``theta_real`` (k < 0 allowed) only the comparisons that do not change are kept:
    stability = ``{-mu < k < k_c}`` contains ``{k < f}`` iff ``k_c <= f`` as before, and
    for lower bounds ``k > f`` the oscillation set ``{k > k_o}`` (never k <= 0) is
    compared as before."""
    if space.infinite:
        out = _exact_directions_dde(space, cond, target)
    else:
        out = _exact_directions_nonneg(space, cond, target)
    always = _always_on_domain(space, cond, theta_real)
    if always is True:  # every point satisfies the claim
        out.setdefault("target_implies_claim", (PROVEN, None, _R_ALWAYS))
    elif always is False:  # no point does: the claim implies anything
        out.setdefault("claim_implies_target", (PROVEN, None, _R_NEVER))
    if not theta_real:
        return out
    bound = _k_bound(cond, space)
    if bound is None or space.infinite:
        return {}
    keep = {
        ("stability", "upper", "target_implies_claim"),
        ("oscillation", "lower", "target_implies_claim"),
        ("oscillation", "lower", "claim_implies_target"),
    }
    return {d: v for d, v in out.items() if (target, bound[0], d) in keep}


def _always_on_domain(space, cond, theta_real):
    """True / False when SymPy decides the claim for every point of the domain, else None."""
    pos = {mu: sp.Symbol("mu", positive=True), lam: sp.Symbol("lam", positive=True)}
    pos[space.x] = sp.Symbol(str(space.x), positive=True)
    pos[theta] = (
        sp.Symbol("theta", real=True) if theta_real else sp.Symbol("theta", nonnegative=True)
    )
    try:
        val = cond.subs(pos)
    except (TypeError, ValueError):  # pragma: no cover - SymPy comparison quirks
        return None
    if val is sp.true:
        return True
    if val is sp.false:
        return False
    return None


def _exact_directions_nonneg(space, cond, target):
    """The exact route for theta >= 0 (finite L)."""
    out = {}
    L = space.L
    if target == "stability" and L == 1:
        out["claim_implies_target"] = (PROVEN, None, _R_L1)
    bound = _k_bound(cond, space)
    if bound is None:
        return out
    side, strict, f = bound
    phi = _phi(f)
    if phi is None:
        return out
    if (target != "stability" or L == 1) and not phi.is_rational_function(_g):
        return out
    if target == "stability":
        if L == 1:
            if side == "lower":  # stable everywhere; k = 0 must satisfy k > f
                ok, w = _rational_always(phi, sp.Integer(0), sp.oo, False, strict)
                if ok is not None:
                    out["target_implies_claim"] = (PROVEN if ok else REFUTED, w, _R_L1_LOWER)
            return out
        if L > _EXACT_MAX_L:
            if side == "upper" and phi.is_rational_function(_g):
                c = _kappa_min_lower(L)
                ok = c is not None and _rational_always(phi - c, 0, sp.oo, False, False)[0]
                if ok:
                    out["claim_implies_target"] = (PROVEN, None, _R_MIN)
            return out
        hopf_k = _hopf_factor(L)
        if side == "upper":
            # claim in target: f <= k_c (f < k_c if not strict); target in claim: k_c <= f
            ok, w = _kappa_always(L, hopf_k, phi, True, not strict)
            if ok is not None:
                out["claim_implies_target"] = (PROVEN if ok else REFUTED, w, _R_KC)
            ok, w = _kappa_always(L, hopf_k, phi, False, False)
            if ok is not None:
                out["target_implies_claim"] = (PROVEN if ok else REFUTED, w, _R_KC)
        else:  # k = 0 is stable: target in claim iff f < 0 (f <= 0 if not strict)
            ok, w = _rational_always(phi, sp.Integer(0), sp.oo, False, strict)
            if ok is not None:
                out["target_implies_claim"] = (PROVEN if ok else REFUTED, w, _R_ZERO)
        return out
    # oscillation: target = {k > k_o}, k_o >= 0, k = 0 not oscillating
    pieces = _h_pieces(L)
    checks = []
    if side == "lower":
        checks.append(("claim_implies_target", True, not strict))  # f >= k_o (f > k_o)
        checks.append(("target_implies_claim", False, False))  # f <= k_o
    else:  # claim in target iff the claim has no k >= 0: f <= 0 (f < 0)
        ok, w = _rational_always(phi, sp.Integer(0), sp.oo, False, not strict)
        if ok is not None:
            out["claim_implies_target"] = (PROVEN if ok else REFUTED, w, _R_OSC_UPPER)
    for direction, positive, st in checks:
        verdict, witness = True, None
        for (lo, hi), h in pieces:
            ok, w = _rational_always(phi - h, lo, hi, positive, st)
            if ok is None:
                verdict = None
                break
            if not ok:
                verdict, witness = False, w
                break
        if verdict is not None and L >= 2:  # the joint g = 1 itself
            v = sp.sign((phi - pieces[1][1]).subs(_g, 1))
            want = 1 if positive else -1
            if v == -want or (st and v == 0):
                verdict, witness = False, sp.Integer(1)
        if verdict is not None:
            out[direction] = (PROVEN if verdict else REFUTED, witness, _R_KO)
    return out


def _exact_directions_dde(space, cond, target):
    """L = inf, stability, claims ``k < f`` / ``k <= f`` with ``f/mu = phi(mu D)``.

    Scaled by mu (``q = k/mu``, ``x = mu D``) the boundary is, with ``t = sqrt(q^2 - 1)``,
    ``x = X(t) = (pi - atan t)/t`` (decreasing from oo to 0) and ``q = sqrt(1 + t^2)``;
    ``-mu < k <= mu`` is stable for every D. Both inclusions are certified with interval
    arithmetic on ``t`` in [1e-3, 1e4] (adaptive bisection), and on the two ends by exact
    sign conditions on the rational phi against elementary bounds of ``q(x)`` there (see
    the comments)."""
    out = {}
    bound = _k_bound(cond, space)
    if bound is None:
        return out
    side, strict, f = bound
    s = sp.Symbol("s", positive=True)
    if sp.simplify(f.subs({mu: s * mu, D: D / s}, simultaneous=True) - s * f) != 0:
        return out
    phi = sp.cancel(f.subs({mu: 1, D: _g}))
    if not phi.is_rational_function(_g) or phi.free_symbols - {_g} or not _exact_coefficients(phi):
        return out
    if target == "oscillation":
        return _dde_oscillation_directions(phi, side, strict)
    if side != "upper":
        return out
    ok, _w = _rational_always(phi - 1, sp.Integer(0), sp.oo, False, False)
    if ok:
        out["claim_implies_target"] = (PROVEN, None, _R_DDE_MU)
        return out
    x_lo, x_hi = _X_BOUNDS
    zero, oo = sp.Integer(0), sp.oo
    # far end (t <= 1e-3, x >= x_lo >= 3): pi/(x+1) <= t <= pi/x, so
    # 1 + 4/(x+1)^2 <= sqrt(1 + 9.8/(x+1)^2) <= q <= 1 + pi^2/(2 x^2) <= 1 + 5/x^2
    # near end (t >= 1e4, x <= x_hi): (pi/2)/x <= t <= (pi/2 + 1e-4)/x, t < q <= t + 1
    ends_in = (
        _rational_always(phi - 1 - 4 / (_g + 1) ** 2, x_lo, oo, False, False)[0]
        and _rational_always(_g * phi - sp.Rational(157, 100), zero, x_hi, False, False)[0]
    )
    if ends_in and _certify(phi, _hopf_cell, False, *_T_RANGE, 512):
        out["claim_implies_target"] = (PROVEN, None, _R_DDE)
    ends_out = (
        _rational_always(phi - 1 - 5 / _g**2, x_lo, oo, True, False)[0]
        and _rational_always(phi - sp.Rational(15709, 10000) / _g - 1, zero, x_hi, True, False)[0]
    )
    if ends_out and _certify(phi, _hopf_cell, True, *_T_RANGE, 512):
        out["target_implies_claim"] = (PROVEN, None, _R_DDE)
    return out


def _dde_oscillation_directions(phi, side, strict):
    """L = inf, oscillation ``q > h(x) = e^{-1-x}/x`` (q = k/mu, x = mu D) against
    ``q > phi`` (or ``q < phi``), phi rational: interval arithmetic on x in [1e-3, 50] and
    exact end conditions: ``0.3675/x < h < 0.3679/x`` for x <= 1e-3 and
    ``0 < h < 1335000/x^11`` for x >= 50 (``e^x > x^10/10!``)."""
    out = {}
    zero, oo = sp.Integer(0), sp.oo
    x0, x1 = sp.Rational(1, 1000), sp.Integer(50)
    if side == "upper":  # claim in target iff the claim has no k >= 0
        ok, _w = _rational_always(phi, zero, oo, False, not strict)
        if ok:
            out["claim_implies_target"] = (PROVEN, None, _R_DDE_OSC_UPPER)
        return out
    ends_in = (
        _rational_always(phi - sp.Rational(3679, 10000) / _g, zero, x0, True, False)[0]
        and _rational_always(phi - 1335000 / _g**11, x1, oo, True, False)[0]
    )
    if ends_in and _certify(phi, _osc_cell, True, x0, x1, 256):
        out["claim_implies_target"] = (PROVEN, None, _R_DDE_KO)
    ends_out = (
        _rational_always(phi - sp.Rational(3675, 10000) / _g, zero, x0, False, False)[0]
        and _rational_always(phi, x1, oo, False, False)[0]
    )
    if ends_out and _certify(phi, _osc_cell, False, x0, x1, 256):
        out["target_implies_claim"] = (PROVEN, None, _R_DDE_KO)
    return out


def _phi_range(phi, dphi, xl, xr):
    """Interval containing phi on [xl.a, xr.b] (end values when phi' has one sign);
    ``phi``, ``dphi``: interval functions (:func:`_iv_function`)."""
    iv = mpmath.iv
    x = iv.mpf([xl.a, xr.b])
    slope = dphi(x)
    if slope.a > 0 or slope.b < 0:
        e1, e2 = phi(xl), phi(xr)
        return iv.mpf([min(e1.a, e2.a), max(e1.b, e2.b)])
    return phi(x)


def _iv_function(expr):
    """``x -> interval`` containing the rational function ``expr`` of ``_g`` on the interval
    ``x``: SymPy's mpmath printer with ``mpf`` the interval type (a rational constant is
    the quotient of two exact intervals; every operation rounds outwards)."""
    f = sp.lambdify(_g, expr, modules=[{"mpf": mpmath.iv.mpf}, "mpmath"])
    return lambda x: mpmath.iv.mpf(f(x))


def _certify(phi, cell, above: bool, lo, hi, n0: int, budget: int = 8000) -> bool:
    """``phi(x) > f`` (``above``; else ``<``) at every point of a curve, by adaptive
    bisection of a log grid of ``n0`` cells over ``[lo, hi]`` (rationals) in interval
    arithmetic: ``cell(a, b)`` gives intervals containing the values of ``x`` at the two
    ends of the cell and an interval containing ``f`` on it."""
    dphi = _iv_function(sp.cancel(sp.diff(phi, _g)))
    phi = _iv_function(phi)
    with mpmath.workdps(30):
        ends = [_iv(lo).a, _iv(hi).b]  # cover the ends exactly
        la, lb = (mpmath.log(e) for e in ends)
        grid = [ends[0], *(mpmath.exp(la + (lb - la) * i / n0) for i in range(1, n0)), ends[1]]
        stack = [(grid[i], grid[i + 1], 0) for i in range(n0)]
        for _ in range(budget):
            if not stack:
                return True
            a, b, depth = stack.pop()
            try:
                xl, xr, f = cell(a, b)
                ph = _phi_range(phi, dphi, xl, xr)
            except (ValueError, ZeroDivisionError):
                return False
            if (ph.a > f.b) if above else (ph.b < f.a):
                continue
            if depth >= 20:
                return False
            mid = mpmath.sqrt(a * b)
            stack += [(a, mid, depth + 1), (mid, b, depth + 1)]
    return not stack


def _osc_cell(a, b):
    """x in [a, b]: the oscillation threshold e^{-1-x}/x (decreasing) there."""
    iv = mpmath.iv
    xl, xr = iv.mpf([a, a]), iv.mpf([b, b])
    return xl, xr, iv.mpf([(iv.exp(-1 - xr) / xr).a, (iv.exp(-1 - xl) / xl).b])


def _hopf_cell(a, b):
    """t in [a, b]: x = X(t) (decreasing) and lam*theta/mu = sqrt(1+t^2) on the Hopf curve."""
    iv = mpmath.iv
    q = iv.mpf([iv.sqrt(1 + iv.mpf([a, a]) ** 2).a, iv.sqrt(1 + iv.mpf([b, b]) ** 2).b])
    return _X_iv(b), _X_iv(a), q


_T_RANGE = (sp.Rational(1, 1000), sp.Integer(10**4))


def _X_iv(t):
    iv = mpmath.iv
    tt = iv.mpf([t, t])
    return (iv.pi - iv.atan2(tt, 1)) / tt


def _x_bounds():
    """Rationals x_lo <= X(1e-3) and x_hi >= X(1e4) (the ends of the certified range)."""
    with mpmath.workdps(30):  # 0.1% margins dwarf the rounding of 30-digit arithmetic

        def X(t):
            t = mpmath.mpf(t.p) / t.q
            return (mpmath.pi - mpmath.atan(t)) / t

        lo, hi = X(_T_RANGE[0]) * mpmath.mpf("0.999"), X(_T_RANGE[1]) * mpmath.mpf("1.001")
        return sp.Rational(int(mpmath.floor(lo))), sp.Rational(mpmath.nstr(hi, 10))


_X_BOUNDS = _x_bounds()


def _hopf_points(L: int):
    """Exact rational points on the stability boundary (any L >= 2).

    ``P(i w) = 0`` is linear in mu: ``mu = -w Re((iw+gamma)^L) / Im((iw+gamma)^L)``; with
    rational ``gamma, w`` this gives rational ``mu`` and ``k = -Re P_0(iw) / gamma^L``. A
    point is kept when the Routh count confirms it is on the boundary (no root in Re > 0,
    a pair on the imaginary axis).
    """
    if L < 2:
        return
    from symdelay.analysis.routh import routh_hurwitz
    from symdelay.core.symbols import r
    from symdelay.models.erlang.stability import _poly_at

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
            res = routh_hurwitz(_poly_at(L, m, g, k).as_expr(), r)
            if res.rhp_count == 0 and res.imaginary_axis_count == 2:
                yield m, g, k


# ------------------------------------------------------------------ the search's problem
def _structure(space: _Space, theta_real: bool) -> dict:
    """Float points on the boundaries' structure: a grid in mu, the scale (gamma/mu, or
    mu*D; with gamma = mu, i.e. D = D* = L/mu, the worst delay) and lam, and lam*theta just
    inside and outside both boundaries and over decades."""
    mus = 10.0 ** np.arange(-3, 4)
    scales = np.union1d(10.0 ** np.arange(-3, 3.25, 0.5), [1.0])
    lams = 10.0 ** np.arange(-3, 4, 1.5)
    kap = _kappa(space, scales)
    h = np.asarray(_h_fn(space.L)(scales), dtype=float) * np.ones_like(scales)
    grid = []
    for si, sc in enumerate(scales):
        qs = [1e-3, 1e-1, 1.0, 10.0, 1e3, 1e5]
        for f in (0.02, 0.2, 1.0):
            if np.isfinite(kap[si]):
                qs += [kap[si] * math.exp(-f), kap[si] * math.exp(f)]
            if h[si] > 0:
                qs += [h[si] * math.exp(-f), h[si] * math.exp(f)]
        if theta_real:
            qs += [-0.5, -0.99, -1.01, -2.0]
        grid += [(mm, sc, qq, ll) for mm in mus for qq in qs for ll in lams]
    m, sc, q, lm = np.array(grid, dtype=float).T
    x = sc / m if space.infinite else sc * m
    return {"mu": m, str(space.x): x, "lam": lm, "theta": q * m / lm}


def _problem(space: _Space, cf, theta_real: bool, hints):
    from symdelay.analysis.counterexample import ClaimEvaluator, Problem

    xn = str(space.x)

    def screen(cols):
        m = cols["mu"]
        s = cols[xn] * m if space.infinite else cols[xn] / m
        ms, mo = _target_margins(space, s, cols["lam"] * cols["theta"] / m)
        return {"stability": ms, "oscillation": mo}

    domains = {n: "positive" for n in space.names}
    domains["theta"] = "real" if theta_real else "nonnegative"
    return Problem(
        domains=domains,
        claim=ClaimEvaluator(cf, space.names),
        targets=_tests(space),
        screen=screen,
        extra=lambda: _structure(space, theta_real),
        hints=hints,
    )


def _hints(space: _Space, cf, exact: dict) -> list:
    """Points to run the exact lines through: where the exact class found the sign of
    ``f - k_c`` (or ``f - k_o``) wrong (mu = lam = 1, gamma or D at the ratio it gives,
    theta at the claim's bound), the worst delay (gamma = mu), and rational points on the
    Hopf boundary (finite L: where a non-strict bound fails)."""
    one = Fraction(1)
    out = []
    bound = _k_bound(cf.condition, space)
    for per in exact.values():
        for status, gt, _why in per.values():
            if status != REFUTED or gt is None:
                continue
            th = one
            if bound is not None:
                v = sp.N(bound[2].subs({mu: 1, space.x: gt}), 30)
                if v.is_real and v > 0:
                    th = Fraction(str(sp.Rational(str(v)))).limit_denominator(10**12)
            out.append({"lam": one, "theta": th, "mu": one, str(space.x): Fraction(str(gt))})
    if not space.infinite and space.L >= 2:
        out += [
            {
                "lam": one,
                "theta": Fraction(str(k)),
                "mu": Fraction(str(m)),
                "gamma": Fraction(str(g)),
            }
            for m, g, k in list(_hopf_points(space.L))[:2]
        ]
    return out


# ------------------------------------------------------------------ verify
def verify(L, claim: str, theta_real: bool = False) -> ClaimResult:
    """Is ``claim`` equivalent, necessary, sufficient or neither for the stability (and the
    oscillation) of the founding model with ``L`` phases: the convenience of
    :func:`symdelay.verify` on ``build_model("erlang", L=L)`` (its exact specialisation).

    Parameters
    ----------
    L : int, str or float
        The number of Erlang phases, an integer from 1 to :data:`MAX_L` (64), or ``"inf"`` /
        ``math.inf``.
    claim : str
        Relations in ``mu``, ``gamma`` (or ``D = L/gamma``), ``lam`` and ``theta`` joined by
        ``and`` / ``or`` / ``not`` (the language of :func:`symdelay.verify`).
    theta_real : bool, default False
        Let ``theta`` range over the reals; otherwise ``theta >= 0``.

    Returns
    -------
    ClaimResult
        Each direction proven, refuted (with an exact counterexample) or left open.

    Examples
    --------
    >>> verify(1, "lam*theta < 3*mu").relation_to_stability
    'sufficient'
    """
    from symdelay.analysis.claims import verify as entry
    from symdelay.models.erlang.family import model

    return entry(model(L=L), claim, theta_real=theta_real, method="specialised")


def claim_targets(model) -> dict:
    """The founding model's own target (finite L): oscillation, the set ``lam*theta >
    k_o(mu, gamma)`` (:func:`oscillation_threshold`) as a formula the decision procedure
    decides: for ``L >= 2`` ``k_o`` is a monomial in ``Max(0, gamma - mu)`` over a power of
    ``gamma``, so the set is ``(gamma > mu and k den > num) or (gamma <= mu and k > 0)``;
    each counterexample is re-checked by exact real-root isolation."""
    from symdelay.analysis.claim_formula import conj, disj, rel
    from symdelay.analysis.decide import Target

    L = model.L
    if not isinstance(L, int):
        return {}
    k = lam * theta
    ko = oscillation_threshold(L)
    num, den = sp.fraction(sp.together(ko.subs(sp.Max(0, gamma - mu), gamma - mu)))
    dpoly = sp.Poly(den, gamma)
    if den.free_symbols - {gamma} or not dpoly.is_monomial or not dpoly.LC() > 0:
        raise VerificationError(f"k_o = {ko}: its denominator is not a positive power of gamma")
    over = rel(k * den - num, ">")
    node = (
        over
        if L == 1
        else disj(conj(rel(gamma - mu, ">"), over), conj(rel(mu - gamma, ">="), rel(k, ">")))
    )

    def holds_at(point):
        m, g, lm, th = (sp.Rational(point[s]) for s in (mu, gamma, lam, theta))
        return is_oscillatory_at(L, m, g, lm * th)

    return {
        "oscillation": Target(
            "oscillating",
            node,
            holds_at,
            "exact real-root isolation of the characteristic polynomial",
            _tests(_Space(L, gamma))["oscillation"],  # the closed form, for the search
        )
    }


def specialised_verify(
    model,
    claim: str,
    *,
    assume=(),
    theta_real: bool = False,
    timeout_ms: int = DEFAULT_TIMEOUT_MS,
) -> ClaimResult:
    """The founding model's verify (a claim is decided over every value of ``mu, lam,
    theta, D``: the model must leave them free). With ``assume`` (finite L): the generic
    path (the decision procedure decides stability and oscillation under the
    assumptions)."""
    given = [n for n in ("mu", "lam", "theta", "D") if model.options[n] is not None]
    if given:
        raise SymdelayInputError(
            "a claim is decided over all parameter values: build the model without "
            + ", ".join(given)
            + " and write values into the claim"
        )
    Lv = as_L_or_inf(model.L)
    if Lv is not INFINITE_L and Lv > MAX_L:
        raise SymdelayInputError(
            f"verify supports L <= {MAX_L} or inf (exact root counts at every checked "
            f"point), got L = {Lv}"
        )
    space = _Space("inf", D) if Lv is INFINITE_L else _Space(Lv, gamma)
    cf = _parse_claim(space, claim)
    if assume:
        if space.infinite:
            raise SymdelayInputError(
                "assumptions need the decision procedure, which decides finite L: at L = inf "
                "a claim is decided over the whole domain (write the assumption into the claim)"
            )
        if Lv > DECIDE_MAX_L:
            raise SymdelayInputError(
                f"assumptions need the decision procedure, which is run for L <= "
                f"{DECIDE_MAX_L} (its Hurwitz conditions grow fast with L), got L = {Lv}"
            )
        from symdelay.analysis.claims import verify_generic

        return verify_generic(
            model, claim, assume=tuple(assume), theta_real=theta_real, timeout_ms=timeout_ms
        )
    return _decide(model, space, cf, claim, theta_real, timeout_ms)


def _decide(model, space: _Space, cf, claim: str, theta_real: bool, timeout_ms: int):
    from symdelay.analysis.claim_formula import fallback_reason
    from symdelay.analysis.claim_result import Outcome, assemble
    from symdelay.analysis.counterexample import GOALS, first_confirmed, search

    cond, fallback, exact = cf.condition, fallback_reason(cf), {}
    for target in TARGETS:
        try:
            exact[target] = _exact_directions(space, cond, target, theta_real)
        except (sp.polys.polyerrors.BasePolynomialError, NotImplementedError):
            exact[target] = {}  # outside what the exact route handles: search only
    word = "interval certificate" if space.infinite else "exact class"
    goals = [g for g in GOALS(TARGETS) if exact[g.target].get(g.direction, (None,))[0] != PROVEN]
    problem = _problem(space, cf, theta_real, _hints(space, cf, exact))
    found, record = search(problem, goals, points=_POINTS) if goals else ({}, None)
    outcomes, left, notes = {t: {} for t in TARGETS}, {t: [] for t in TARGETS}, []
    for g in GOALS(TARGETS):
        status, _, why = exact[g.target].get(g.direction, (None, None, None))
        if status == PROVEN:  # not searched
            what = why.format(L=space.L) if why else word
            outcomes[g.target][g.direction] = Outcome(PROVEN, word, note=what)
            continue
        point, verdict = first_confirmed(
            g, found[g], lambda pt, g=g: _second_path(space, cf, g.target, pt)
        )
        if point is not None:
            outcomes[g.target][g.direction] = Outcome(
                REFUTED,
                word if status == REFUTED else "search",
                counterexample=_present(space, point),
                verdict=verdict,
                note="exact point, re-checked by " + _SECOND_PATH[space.infinite],
            )
        else:
            left[g.target].append(g.direction)
            if status == REFUTED:
                notes.append(
                    f"{g.target} ({g.direction}): the exact sign analysis says it fails, but "
                    "no exact point was found"
                )
    scaling, decided = None, {t: {} for t in TARGETS}
    for target in () if space.infinite or fallback else [t for t in TARGETS if left[t]]:
        if space.L > DECIDE_MAX_L:
            notes.append(
                f"the decision procedure is run for L <= {DECIDE_MAX_L} (its Hurwitz "
                f"conditions grow fast with L): {target} left to the search"
            )
            continue
        from symdelay.analysis.decide import decide_directions, targets_of

        try:
            decided[target], scaling, _ = decide_directions(
                model,
                claim,
                left[target],
                assume=() if theta_real else ("theta >= 0",),
                timeout_ms=timeout_ms,
                target=targets_of(model)[target],
            )
        except SymdelayInputError as exc:
            notes.append(f"the decision procedure cannot decide this claim ({exc})")
    for t in TARGETS:
        for d in left[t]:
            outcomes[t][d] = decided[t].get(d) or Outcome(OPEN, "search")
    if theta_real:
        notes.append(
            "theta ranges over all reals: theta < 0 routes jobs towards the longer queue, and "
            "a real root crosses 0 at lam*theta = -mu, so stability needs -mu < lam*theta"
        )
    return assemble(
        model,
        claim,
        cond,
        {t: {d: outcomes[t][d] for d in DIRECTIONS} for t in TARGETS},
        L=space.L,
        theta_real=theta_real,
        search=record,
        scaling=scaling,
        timeout_ms=timeout_ms,
        fallback=fallback,
        notes=notes,
    )


_SECOND_PATH = {
    False: "an exact Routh count (stability) or exact real-root isolation (oscillation), "
    "and the claim by SymPy",
    True: "certified roots (moderate lam*theta*D) or the Hopf closed form in interval "
    "arithmetic, and the claim by SymPy",
}
#: why a direction the exact route proves holds, one sentence per branch (``{L}``: the L)
_R_ALWAYS = "the claim holds at every point of the domain"
_R_NEVER = "the claim holds at no point of the domain"
_R_L1 = (
    "L = 1: every coefficient of r^2 + (mu+gamma) r + gamma (mu + lam theta) is positive "
    "for theta >= 0, so every point is stable"
)
_R_L1_LOWER = (
    "L = 1 is stable at every point, so the claim must hold at lam*theta = 0: the sign of "
    "the bound on g = gamma/mu > 0 by exact root isolation"
)
_R_MIN = (
    "the bound on lam*theta stays below a rational lower bound of the minimum of k_c over "
    "gamma/mu (the worst delay) at L = {L}"
)
_R_KC = (
    "the bound on lam*theta against the Hopf threshold k_c(mu, gamma) at L = {L}: the sign "
    "of the difference on g = gamma/mu > 0 by exact root isolation"
)
_R_ZERO = (
    "lam*theta = 0 is stable, and the sign of the bound on g = gamma/mu > 0 is decided by "
    "exact root isolation"
)
_R_OSC_UPPER = (
    "lam*theta = 0 does not oscillate, and the sign of the bound on g = gamma/mu > 0 is "
    "decided by exact root isolation"
)
_R_KO = (
    "the bound on lam*theta against the oscillation threshold k_o(mu, gamma) at L = {L}: "
    "the sign of the difference on g = gamma/mu > 0 by exact root isolation"
)
_R_DDE_MU = "the bound is at most mu, and |lam*theta| <= mu is stable for every D (Hayes)"
_R_DDE = (
    "the bound on lam*theta against the Hopf curve mu D = (pi - atan t)/t, lam*theta "
    "= mu sqrt(1+t^2), by interval arithmetic and exact end conditions"
)
_R_DDE_OSC_UPPER = "the claim allows no lam*theta > 0, where there is no oscillation"
_R_DDE_KO = (
    "the bound on lam*theta against k_o = e^(-1-mu D)/D, by interval arithmetic on mu D in "
    "[1e-3, 50] and exact end conditions"
)


def _present(space: _Space, point: dict) -> dict:
    out = {k: str(point[k]) for k in space.names}
    if not space.infinite:
        out["D"] = str(Fraction(space.L) / point["gamma"])
    return out
