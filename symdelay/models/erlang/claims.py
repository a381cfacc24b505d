"""Checking a claimed inequality against stability and against oscillation.

``verify(L, claim)`` compares the set where the claim holds with

* the stability set (asymptotic stability of the difference mode), and
* the oscillation set (the rightmost roots are non-real),

over ``mu, lam > 0``, ``gamma > 0`` (or ``D = L/gamma``; for ``L = inf`` only ``D``) and
``theta >= 0`` (``theta_real=True``: any real theta).

Both target sets depend on ``(mu, gamma, k = lam*theta)`` only and are invariant under
scaling the rates: stability is ``-mu < k < k_c(mu, gamma) = mu kappa(gamma/mu)``
(:mod:`symdelay.models.erlang.stability`), oscillation is ``k > k_o(mu, gamma)`` in closed form
(:func:`symdelay.models.erlang.stability.oscillation_threshold`; ``L = inf``: ``k_c = mu kappa(mu D)``,
``k_o = e^{-1-mu D}/D``). A claim need not be scale-invariant, so each of the two
directions, *claim => target* and *target => claim*, gets one of three statuses:

``refuted``
    an exact counterexample was found and checked by an independent path (exact Routh
    count, exact root isolation, or certified roots for ``L = inf``);
``proven``
    decided by exact reasoning: the claim is one bound ``lam*theta < f`` (or ``>``,
    ``<=``, ``>=``) with ``f`` homogeneous of degree 1 and rational in ``mu, gamma``; by
    homogeneity the question is the sign of ``f - k_c`` (or ``f - k_o``) as a function of
    ``g = gamma/mu > 0``, which changes only at the real roots of a resultant-like
    polynomial (``Delta_L(f(1, g), g)`` for stability), isolated exactly; the sign between
    them is decided by exact root counting at rational points. ``L = 1`` is stable for
    every ``theta >= 0`` (positive coefficients), so *claim => stable* is proven there;
``no counterexample found``
    a search over many decades of every parameter and along the boundaries' structure,
    with local optimisation of near-counterexamples, found nothing; the report gives the
    ranges and the number of points. This is never called *sufficient* or *necessary*.

For ``L = inf`` the stability inclusions of a bound ``lam*theta < f`` with ``f/mu``
rational in ``mu D`` are certified with interval arithmetic along the Hopf curve
``mu D = (pi - atan t)/t``, ``lam*theta = mu sqrt(1 + t^2)`` (adaptive bisection in t),
the two ends by exact sign conditions against elementary bounds of the curve.

The relation (``equivalent``, ``necessary``, ``sufficient``, ``neither``) is given only when
both directions are proven or refuted (``proven[target]`` is then True); otherwise it
spells out what is known, e.g. ``"not necessary; sufficiency: no counterexample found"``.

>>> res = verify(1, "4*gamma*lam*theta > (mu-gamma)**2")
>>> res.relation_to_stability, res.relation_to_oscillation
('sufficient', 'equivalent')
>>> verify(2, "lam*theta < 2*(mu+gamma)**2/gamma").relation_to_stability
'equivalent'
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache

import mpmath
import numpy as np

from symdelay.analysis.claims import ClaimResult
from symdelay.core.errors import (
    CertificationError,
    SymdelayInputError,
    TranscendentalClaimError,
    VerificationError,
)
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import INFINITE_L, as_L_or_inf
from symdelay.core.parsing import parse_relational
from symdelay.core.symbols import D, gamma, lam, mu, theta
from symdelay.models.erlang.stability import (
    _in_k,
    founding_closed_forms,
    is_oscillatory_at,
    oscillation_threshold,
)

__all__ = ["ClaimResult", "verify", "CLAIM_SYMBOLS", "MAX_L", "SEARCH_RANGES", "DECIDE_MAX_L"]

CLAIM_SYMBOLS = ("mu", "gamma", "lam", "theta", "D")
#: Largest finite L accepted (exact Routh counts on degree L + 1 at every checked point).
MAX_L = 64
#: Largest L for which the exact (resultant) route is attempted for stability.
_EXACT_MAX_L = 8
#: Decades searched (log10 ranges); "scale" is gamma/mu (finite L) or mu*D (L = inf).
SEARCH_RANGES = {
    "mu": (-3, 3),
    "scale": (-3, 3),
    "lam*theta/mu": (-4, 5),
    "lam": (-3, 3),
}
_RANDOM_POINTS = 24000
_TOP = 6  # candidates per direction confirmed exactly / optimised
#: Largest finite L for which the decision procedure decides the directions left open.
DECIDE_MAX_L = 12
_DEFAULT_TIMEOUT_MS = 10_000
_k = sp.Symbol("k")
_g = sp.Symbol("g")

PROVEN, REFUTED, OPEN = "proven", "refuted", "no counterexample found"
_TARGETS = ("stability", "oscillation")
_DIRS = ("claim_implies_target", "target_implies_claim")


# ------------------------------------------------------------------ the space
@dataclass(frozen=True)
class _Space:
    """Coordinates (mu, x, lam, theta): x = gamma for finite L, x = D for L = inf."""

    L: int | str  # int or "inf"
    x: sp.Symbol

    @property
    def infinite(self) -> bool:
        return self.L == "inf"


def _parse_claim(space: _Space, text: str):
    cond = parse_relational(text, variables=())
    allowed = {mu, gamma, lam, theta, D}
    unknown = sorted(str(s) for s in cond.free_symbols - allowed)
    if unknown:
        raise SymdelayInputError(
            f"unknown symbol '{unknown[0]}' in the claim: use only {', '.join(CLAIM_SYMBOLS)}"
        )
    if space.infinite:
        if gamma in cond.free_symbols:
            raise SymdelayInputError(
                "gamma = L/D is not defined for L = inf: write the claim in mu, lam, theta, D"
            )
        return cond
    return cond.subs(D, sp.Integer(space.L) / gamma)


# ------------------------------------------------------------- exact checks
def _point_dict(space: _Space, m, x, lm, th) -> dict:
    out = {"mu": str(m), "lam": str(lm), "theta": str(th)}
    if space.infinite:
        out["D"] = str(x)
    else:
        out["gamma"] = str(x)
        out["D"] = str(sp.Integer(space.L) / x)
    return out


def _claim_at(space: _Space, cond, m, x, lm, th) -> bool:
    try:
        val = cond.subs({mu: m, space.x: x, lam: lm, theta: th})
    except (TypeError, ValueError):  # e.g. a division by zero: zoo cannot be compared
        raise SymdelayInputError(
            f"the claim is undefined at mu={m}, {space.x}={x}, lam={lm}, theta={th}"
        ) from None
    if val in (sp.true, sp.false):
        return bool(val)
    raise SymdelayInputError(
        f"the claim cannot be decided at mu={m}, {space.x}={x}, lam={lm}, theta={th}: "
        "write it with arithmetic and comparisons only"
    )


#: L = inf: certified roots (argument principle on a box of size ~ |k|) are the second
#: path when |lam*theta|*D and |lam*theta|/mu stay below these; beyond, the box is too large.
_ROOTS_MAX_KD = 60
_ROOTS_MAX_K = 2000


def _iv(x: sp.Rational):
    return mpmath.iv.mpf([x.p, x.p]) / x.q


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

    try:
        return characteristic_roots("inf", m, lm, th, x, dps=30, rightmost=1, branches=(-1, 1))
    except CertificationError:
        return None


def _agree(a, b, what, m, x, k):
    if a is not None and b is not None and a != b:
        raise VerificationError(
            f"L = inf at mu={m}, D={x}, lam*theta={k}: certified roots and the closed form "
            f"disagree on {what}"
        )
    return a if b is None else b


def _stable_exact(space: _Space, m, x, k, lm, th):
    """True (strictly stable), False (strictly unstable: a root in Re r > 0) or None
    (marginal, or undecided): the one verdict at the point
    (:func:`symdelay.analysis.stability.stability`); L = inf checked against the certified
    roots as well."""
    from symdelay.analysis.stability import stability
    from symdelay.models.erlang.founding import FoundingModel

    D = x if space.infinite else sp.Integer(space.L) / x  # x is D (L = inf) or gamma
    at = stability(FoundingModel(L=space.L, mu=m, lam=lm, theta=th, D=D))
    form = {"stable": True, "unstable": False}.get(at.verdict)
    if space.infinite:
        res = _dde_roots(m, x, lm, th)
        by_roots = None if res is None else {"stable": True, "unstable": False}.get(res.verdict)
        return _agree(by_roots, form, "stability", m, x, k)
    return form


def _oscillatory_exact(space: _Space, m, x, k, lm, th):
    """Rightmost roots non-real? Exact / certified; None when undecided (a tie)."""
    if space.infinite:
        form = _dde_oscillatory_form(m, x, k)
        res = None if k <= 0 else _dde_roots(m, x, lm, th)
        by_roots = None
        if res is not None:
            top = res[0]
            if top.imag == 0:
                by_roots = False
            elif abs(top.imag) > top.radius:
                by_roots = True
        return _agree(by_roots, form, "oscillation", m, x, k)
    o = is_oscillatory_at(space.L, m, x, k)
    if o is not None:
        form = bool(k > oscillation_threshold(space.L).subs({mu: m, gamma: x}))
        if form != o:
            raise VerificationError(
                f"L = {space.L} at mu={m}, gamma={x}, lam*theta={k}: exact root isolation and "
                "the oscillation threshold disagree"
            )
    return o


def _target_exact(space, target, m, x, lm, th):
    k = lm * th
    if target == "stability":
        return _stable_exact(space, m, x, k, lm, th)
    return _oscillatory_exact(space, m, x, k, lm, th)


def _confirm(space, cond, target, direction, m, x, lm, th) -> bool:
    """Is (m, x, lm, th) an exact counterexample to ``direction``, strictly inside?"""
    if not (m > 0 and x > 0 and lm > 0):
        return False
    try:
        c = _claim_at(space, cond, m, x, lm, th)
    except SymdelayInputError:
        return False
    want_claim = direction == "claim_implies_target"
    if c is not want_claim:
        return False
    if _transcendental_note(cond) and not _interval_agrees(space, cond, c, m, x, lm, th):
        return False
    t = _target_exact(space, target, m, x, lm, th)
    return t is (not want_claim)


# ----------------------------------------------------------- float margins
@cache
def _claim_margin_fn(cond, x_sym):
    """numpy margin of the claim: > 0 where it holds, < 0 where it fails (scaled)."""
    args = (mu, x_sym, lam, theta)

    def build(c):
        if isinstance(c, sp.And):
            fs = [build(a) for a in c.args]
            return lambda *v: np.minimum.reduce([f(*v) for f in fs])
        if isinstance(c, sp.Or):
            fs = [build(a) for a in c.args]
            return lambda *v: np.maximum.reduce([f(*v) for f in fs])
        if isinstance(c, sp.Not):
            f = build(c.args[0])
            return lambda *v: -f(*v)
        if c in (sp.true, sp.false):
            val = 1.0 if c is sp.true else -1.0
            return lambda *v: np.full(np.shape(v[0]), val)
        lhs = sp.lambdify(args, c.lhs, modules="numpy")
        rhs = sp.lambdify(args, c.rhs, modules="numpy")
        op = c.rel_op

        def margin(*v):
            a = np.broadcast_to(np.asarray(lhs(*v), dtype=float), np.shape(v[0]))
            b = np.broadcast_to(np.asarray(rhs(*v), dtype=float), np.shape(v[0]))
            d = (a - b) / (np.abs(a) + np.abs(b) + 1e-300)
            if op in ("<", "<="):
                return -d
            if op == "!=":
                return np.abs(d)
            return d

        return margin

    return build(cond)


def _claim_margins(space, cond, m, x, lm, th):
    with np.errstate(all="ignore"):
        out = _claim_margin_fn(cond, space.x)(m, x, lm, th)
    out = np.asarray(out, dtype=float)
    return np.where(np.isfinite(out), out, np.nan)


def _kappa(space: _Space, s):
    """k_c/mu as a function of the scale s (gamma/mu, or mu*D for L = inf); floats."""
    from symdelay.analysis.critical import critical
    from symdelay.models.erlang.founding import FoundingModel

    s = np.asarray(s, dtype=float)
    if not space.infinite and space.L == 1:
        return np.full(s.shape, np.inf)
    with np.errstate(all="ignore"):
        L = INFINITE_L if space.infinite else space.L
        D = s if space.infinite else space.L / s
        ok = np.isfinite(D) & (D > 0)  # a scale beyond the double range has no float curve
        kc = np.full(s.shape, np.nan)
        if np.any(ok):
            model = FoundingModel(L=L, mu=1, lam=1)
            kc[ok] = critical(model, at=D[ok].ravel(), float64=True).arrays()[1]
    return kc


@cache
def _h_fn(L):
    """k_o/mu as a numpy function of the scale."""
    s = sp.Symbol("s", positive=True)
    if L == "inf":
        e = oscillation_threshold("inf").subs({mu: 1, D: s})
    else:
        e = oscillation_threshold(L).subs({mu: 1, gamma: s})
    return sp.lambdify(s, e, modules="numpy")


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


# ---------------------------------------------------------------- sampling
def _samples(space: _Space, theta_real: bool):
    """Float points (mu, s, q, lam): random log-uniform plus the boundaries' structure."""
    rng = np.random.default_rng(20261130)
    R = SEARCH_RANGES
    n = _RANDOM_POINTS

    def lu(lo_hi, size):
        return 10.0 ** rng.uniform(lo_hi[0], lo_hi[1], size)

    m, s, q, lm = lu(R["mu"], n), lu(R["scale"], n), lu(R["lam*theta/mu"], n), lu(R["lam"], n)
    if theta_real:
        neg = rng.random(n) < 0.25
        q = np.where(neg, -(10.0 ** rng.uniform(-3, 1, n)), q)
    # structure: a grid in mu, scale (with gamma = mu, i.e. D = D* = L/mu) and lam, and
    # lam*theta placed just inside / outside both boundaries and over decades
    mus = 10.0 ** np.arange(R["mu"][0], R["mu"][1] + 1)
    scales = np.union1d(10.0 ** np.arange(R["scale"][0], R["scale"][1] + 0.25, 0.5), [1.0])
    lams = 10.0 ** np.arange(R["lam"][0], R["lam"][1] + 1, 1.5)
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
    grid = np.array(grid, dtype=float)
    return (
        np.concatenate([m, grid[:, 0]]),
        np.concatenate([s, grid[:, 1]]),
        np.concatenate([q, grid[:, 2]]),
        np.concatenate([lm, grid[:, 3]]),
    )


def _coords(space, m, s, q, lm):
    """(mu, x, lam, theta) from (mu, scale, k/mu, lam)."""
    x = s * m if not space.infinite else s / m
    return m, x, lm, q * m / lm


def _scores(space, cond, m, s, q, lm):
    """Score per (target, direction): > 0 means a float counterexample."""
    mc = _claim_margins(space, cond, *_coords(space, m, s, q, lm))
    ms, mo = _target_margins(space, s, q)
    out = {}
    for target, mt in (("stability", ms), ("oscillation", mo)):
        out[(target, "claim_implies_target")] = np.minimum(mc, -mt)
        out[(target, "target_implies_claim")] = np.minimum(-mc, mt)
    return out


def _optimise(space, cond, key, start):
    """Nelder-Mead on (log mu, log scale, log|q|, log lam) maximising the score of key."""
    from scipy.optimize import minimize

    sign = 1.0 if start[2] > 0 else -1.0

    def f(v):
        v = np.clip(v, -9.0, 9.0)
        m, s, q, lm = (np.array([10.0**t]) for t in v)
        val = _scores(space, cond, m, s, sign * q, lm)[key][0]
        return 10.0 if not np.isfinite(val) else -min(val, 1.0)

    x0 = np.log10(np.abs(np.asarray(start, dtype=float)))
    res = minimize(
        f, x0, method="Nelder-Mead", options={"maxfev": 300, "xatol": 1e-4, "fatol": 1e-6}
    )
    v = np.clip(res.x, -9.0, 9.0)
    return -res.fun, (10.0 ** v[0], 10.0 ** v[1], sign * 10.0 ** v[2], 10.0 ** v[3])


def _simple_first(space, sc, m, s, q, lm):
    """Indices of float counterexamples, clear ones (score >= min(0.05, best/2)) first,
    each group ordered by how close to 1 the printed parameters are."""
    pos = np.flatnonzero(sc > 0)
    if pos.size == 0:
        return []
    best = sc[pos].max()
    clear = pos[sc[pos] >= min(0.05, best / 2)]
    mu_, x_, lam_, th_ = _coords(space, m[clear], s[clear], q[clear], lm[clear])
    d_ = x_ if space.infinite else space.L / x_
    with np.errstate(all="ignore"):
        size = sum(np.abs(np.log10(np.abs(v))) for v in (mu_, d_, lam_, th_))
    size = np.where(np.isfinite(size), size, np.inf)
    first = list(clear[np.argsort(size, kind="stable")][:_TOP])
    rest = [i for i in pos[np.argsort(-sc[pos])][:_TOP] if i not in first]
    return first + rest


def _round(v: float, digits: int) -> sp.Rational:
    return sp.Rational(f"{v:.{digits - 1}e}")


def _rationalise(space, cond, target, direction, point):
    """Simple exact rationals near a float point that still refute ``direction``."""
    m, s, q, lm = point
    mu_f, x_f, lm_f, th_f = (float(v) for v in _coords(space, m, s, q, lm))
    d_f = x_f if space.infinite else space.L / x_f
    if not all(np.isfinite([mu_f, d_f, lm_f, th_f])) or min(mu_f, d_f, lm_f) <= 0:
        return None
    for digits in (1, 2, 3, 4, 6, 9):
        mm, dd, ll = (_round(v, digits) for v in (mu_f, d_f, lm_f))
        tt = _round(th_f, digits) if th_f != 0 else sp.Integer(0)
        xx = dd if space.infinite else sp.Integer(space.L) / dd
        if _confirm(space, cond, target, direction, mm, xx, ll, tt):
            return (mm, xx, ll, tt)
    return None


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
    """Sorted disjoint rational isolating intervals of the real roots in (lo, hi)."""
    prod = sp.Poly(sp.Mul(*[p.as_expr() for p in polys]), _g)
    if prod.degree() <= 0:
        return []
    sqf = sp.Poly(sp.quo(prod, sp.gcd(prod, prod.diff(_g))), _g)
    eps = sp.Rational(1, 10**6)
    for _ in range(6):
        ivs = sorted(a for a, _m in sqf.intervals(eps=eps))
        keep = []
        ok = True
        for a, b in ivs:
            if a == b:
                if lo < a and (hi is sp.oo or a < hi):
                    keep.append((a, b))
                continue
            if b <= lo or (hi is not sp.oo and a >= hi):
                continue
            if a < lo < b or (hi is not sp.oo and a < hi < b):
                ok = False  # straddles an end: refine
                break
            keep.append((a, b))
        if ok and all(keep[i][1] < keep[i + 1][0] for i in range(len(keep) - 1)):
            return keep
        eps /= 10**6
    return None


def _test_points(roots, lo, hi):
    """One rational point in each open gap between the isolated roots, inside (lo, hi)."""
    ends = [lo] + [v for iv in roots for v in iv] + [hi]
    pts = []
    for i in range(0, len(ends), 2):
        a, b = ends[i], ends[i + 1]
        if b is sp.oo:
            pts.append(a + 1)
        else:
            pts.append((a + b) / 2)
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
    roots = _separated(polys, sp.Integer(0), sp.oo)
    if roots is None:
        return None, None
    for a, b in roots:  # a pole of phi inside: the claim is undefined there
        if den_p.count_roots(a, b) > 0:
            return None, None
    want = 1 if above else -1
    for gt in _test_points(roots, sp.Integer(0), sp.oo):
        if R is not None and R.subs(_g, gt) < 0:
            return None, None
        sg = _sign_of_kappa_minus(L, hopf_k, phi, gt)
        if sg is None:
            return None, None
        if sg == -want or (strict and sg == 0):
            return False, gt
    if strict and roots:
        return None, None  # a touching point would need an algebraic comparison
    return True, None


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
    roots = _separated([pn, pd], lo, hi)
    if roots is None:
        return None, None
    for a, b in roots:
        if pd.count_roots(a, b) > 0:
            return None, None
    want = 1 if positive else -1
    for gt in _test_points(roots, lo, hi):
        sg = sp.sign(R.subs(_g, gt))
        if sg == -want or (strict and sg == 0):
            return False, gt
    if strict and roots:
        return False, None  # R vanishes at a root of its numerator inside
    return True, None


def _h_pieces(L):
    """k_o(1, g) piecewise: [((lo, hi), rational function of g)]."""
    if L == 1:
        return [((sp.Integer(0), sp.oo), oscillation_threshold(1).subs({mu: 1, gamma: _g}))]
    e = oscillation_threshold(L).subs({mu: 1, gamma: _g})
    below = e.subs(sp.Max(0, _g - 1), 0)
    above = e.subs(sp.Max(0, _g - 1), _g - 1)
    return [((sp.Integer(0), sp.Integer(1)), below), ((sp.Integer(1), sp.oo), above)]


def _exact_directions(space, cond, target, theta_real):
    """{direction: (status, witness_g or None)} decided exactly; missing = not decided.

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
        out.setdefault("target_implies_claim", (PROVEN, None))
    elif always is False:  # no point does: the claim implies anything
        out.setdefault("claim_implies_target", (PROVEN, None))
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
        out["claim_implies_target"] = (PROVEN, None)
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
                    out["target_implies_claim"] = (PROVEN if ok else REFUTED, w)
            return out
        if L > _EXACT_MAX_L:
            if side == "upper" and phi.is_rational_function(_g):
                c = _kappa_min_lower(L)
                ok = c is not None and _rational_always(phi - c, 0, sp.oo, False, False)[0]
                if ok:
                    out["claim_implies_target"] = (PROVEN, None)
            return out
        hopf_k = _in_k(founding_closed_forms(L)["hopf_polynomial"])
        if side == "upper":
            # claim in target: f <= k_c (f < k_c if not strict); target in claim: k_c <= f
            ok, w = _kappa_always(L, hopf_k, phi, True, not strict)
            if ok is not None:
                out["claim_implies_target"] = (PROVEN if ok else REFUTED, w)
            ok, w = _kappa_always(L, hopf_k, phi, False, False)
            if ok is not None:
                out["target_implies_claim"] = (PROVEN if ok else REFUTED, w)
        else:  # k = 0 is stable: target in claim iff f < 0 (f <= 0 if not strict)
            ok, w = _rational_always(phi, sp.Integer(0), sp.oo, False, strict)
            if ok is not None:
                out["target_implies_claim"] = (PROVEN if ok else REFUTED, w)
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
            out["claim_implies_target"] = (PROVEN if ok else REFUTED, w)
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
            out[direction] = (PROVEN if verdict else REFUTED, witness)
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
        out["claim_implies_target"] = (PROVEN, None)
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
    if ends_in and _certify_dde(phi, sufficient=True):
        out["claim_implies_target"] = (PROVEN, None)
    ends_out = (
        _rational_always(phi - 1 - 5 / _g**2, x_lo, oo, True, False)[0]
        and _rational_always(phi - sp.Rational(15709, 10000) / _g - 1, zero, x_hi, True, False)[0]
    )
    if ends_out and _certify_dde(phi, sufficient=False):
        out["target_implies_claim"] = (PROVEN, None)
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
            out["claim_implies_target"] = (PROVEN, None)
        return out
    ends_in = (
        _rational_always(phi - sp.Rational(3679, 10000) / _g, zero, x0, True, False)[0]
        and _rational_always(phi - 1335000 / _g**11, x1, oo, True, False)[0]
    )
    if ends_in and _certify_osc(phi, above=True, lo=x0, hi=x1):
        out["claim_implies_target"] = (PROVEN, None)
    ends_out = (
        _rational_always(phi - sp.Rational(3675, 10000) / _g, zero, x0, False, False)[0]
        and _rational_always(phi, x1, oo, False, False)[0]
    )
    if ends_out and _certify_osc(phi, above=False, lo=x0, hi=x1):
        out["target_implies_claim"] = (PROVEN, None)
    return out


def _phi_range(phi, dphi, xl, xr):
    """Interval containing phi on [xl.a, xr.b] (end values when phi' has one sign)."""
    iv = mpmath.iv
    x = iv.mpf([xl.a, xr.b])
    slope = _iv_eval(dphi, x)
    if slope.a > 0 or slope.b < 0:
        e1, e2 = _iv_eval(phi, xl), _iv_eval(phi, xr)
        return iv.mpf([min(e1.a, e2.a), max(e1.b, e2.b)])
    return _iv_eval(phi, x)


def _certify_osc(phi, above: bool, lo, hi, budget: int = 8000) -> bool:
    """phi(x) > e^{-1-x}/x (above) or < (not above) for every x in [lo, hi]."""
    iv = mpmath.iv
    dphi = sp.cancel(sp.diff(phi, _g))
    with mpmath.workdps(30):
        la, lb = mpmath.log(mpmath.mpf(lo.p) / lo.q), mpmath.log(mpmath.mpf(hi.p) / hi.q)
        n0 = 256
        stack = [
            (mpmath.exp(la + (lb - la) * i / n0), mpmath.exp(la + (lb - la) * (i + 1) / n0), 0)
            for i in range(n0)
        ]
        stack[0] = (_iv_eval(lo, None).a, stack[0][1], 0)  # cover the ends exactly
        stack[-1] = (stack[-1][0], _iv_eval(hi, None).b, 0)
        evals = 0
        while stack:
            a, b, depth = stack.pop()
            evals += 1
            if evals > budget:
                return False
            xl, xr = iv.mpf([a, a]), iv.mpf([b, b])
            h = iv.mpf([(iv.exp(-1 - xr) / xr).a, (iv.exp(-1 - xl) / xl).b])  # decreasing
            try:
                ph = _phi_range(phi, dphi, xl, xr)
            except (ValueError, ZeroDivisionError):
                return False
            if (ph.a > h.b) if above else (ph.b < h.a):
                continue
            if depth >= 20:
                return False
            mid = mpmath.sqrt(a * b)
            stack += [(a, mid, depth + 1), (mid, b, depth + 1)]
    return True


_T_RANGE = (mpmath.mpf("1e-3"), mpmath.mpf("1e4"))


def _X_iv(t):
    iv = mpmath.iv
    tt = iv.mpf([t, t])
    return (iv.pi - iv.atan2(tt, 1)) / tt


def _x_bounds():
    """Rationals x_lo <= X(1e-3) and x_hi >= X(1e4) (the ends of the certified range)."""
    with mpmath.workdps(30):  # 0.1% margins dwarf the rounding of 30-digit arithmetic

        def X(t):
            return (mpmath.pi - mpmath.atan(t)) / t

        lo, hi = X(_T_RANGE[0]) * mpmath.mpf("0.999"), X(_T_RANGE[1]) * mpmath.mpf("1.001")
        return sp.Rational(int(mpmath.floor(lo))), sp.Rational(mpmath.nstr(hi, 10))


_X_BOUNDS = _x_bounds()


def _iv_eval(expr, x):
    """Interval value of a rational expression in _g (exact rationals, outward rounding)."""
    iv = mpmath.iv
    if expr.is_Rational:
        return iv.mpf([expr.p, expr.p]) / expr.q
    if expr == _g:
        return x
    if expr.is_Add:
        out = iv.mpf(0)
        for a in expr.args:
            out = out + _iv_eval(a, x)
        return out
    if expr.is_Mul:
        out = iv.mpf(1)
        for a in expr.args:
            out = out * _iv_eval(a, x)
        return out
    if expr.is_Pow and expr.exp.is_Integer:
        b = _iv_eval(expr.base, x)
        n = int(expr.exp)
        return b**n if n >= 0 else 1 / b ** (-n)
    raise ValueError(f"no interval evaluation for {expr}")


def _certify_dde(phi, sufficient: bool, budget: int = 8000) -> bool:
    """phi(X(t)) < sqrt(1+t^2) (sufficient) or > (necessary) on every t in _T_RANGE.

    On each t-interval, x lies between the values of the decreasing X at its ends and q
    between those of the increasing sqrt(1+t^2); phi's range is bounded by its end values
    when the interval value of phi' has one sign, else by naive interval evaluation."""
    iv = mpmath.iv
    dphi = sp.cancel(sp.diff(phi, _g))
    with mpmath.workdps(30):
        la, lb = mpmath.log(_T_RANGE[0]), mpmath.log(_T_RANGE[1])
        n0 = 512
        stack = [
            (mpmath.exp(la + (lb - la) * i / n0), mpmath.exp(la + (lb - la) * (i + 1) / n0), 0)
            for i in range(n0)
        ]
        evals = 0
        while stack:
            a, b, depth = stack.pop()
            evals += 1
            if evals > budget:
                return False
            xl, xr = _X_iv(b), _X_iv(a)
            x = iv.mpf([xl.a, xr.b])
            q = iv.mpf([iv.sqrt(1 + iv.mpf([a, a]) ** 2).a, iv.sqrt(1 + iv.mpf([b, b]) ** 2).b])
            try:
                slope = _iv_eval(dphi, x)
                if slope.a > 0 or slope.b < 0:  # monotone: the range is the end values
                    e1, e2 = _iv_eval(phi, xl), _iv_eval(phi, xr)
                    ph = iv.mpf([min(e1.a, e2.a), max(e1.b, e2.b)])
                else:
                    ph = _iv_eval(phi, x)
            except (ValueError, ZeroDivisionError):
                return False
            good = (q.a > ph.b) if sufficient else (ph.a > q.b)
            if good:
                continue
            if depth >= 20:
                return False
            mid = mpmath.sqrt(a * b)
            stack += [(a, mid, depth + 1), (mid, b, depth + 1)]
    return True


def _witness_points(space, target, gt, phi_bound):
    """Float candidates at the exact ratio gt: k/mu spread around both boundaries (none
    when gt is beyond the double range)."""
    try:
        s = float(gt)
    except OverflowError:
        return []
    if not (math.isfinite(s) and s > 0):
        return []
    kap = float(_kappa(space, np.array([s]))[0])
    h = float(np.asarray(_h_fn(space.L)(np.array([s])), dtype=float).reshape(-1)[0])
    ph = float(phi_bound.subs(_g, gt))
    qs = set()
    for base in (kap, h, ph, 1.0):
        if np.isfinite(base) and base > 0:
            qs.update(base * math.exp(f) for f in (-0.5, -0.05, -1e-3, 1e-3, 0.05, 0.5))
    vals = sorted(v for v in (kap, h, ph) if np.isfinite(v) and v > 0)
    qs.update((a + b) / 2 for a, b in itertools.pairwise(vals))
    return [(1.0, s, q, 1.0) for q in sorted(qs)]


# ------------------------------------------------------------------ verify
def _relation(sa: str, sb: str) -> tuple[str, bool]:
    from symdelay.analysis.claim_result import relation

    return relation(sa, sb, OPEN)


def _search_summary(space, n_points, n_opt, theta_real) -> dict:
    R = SEARCH_RANGES
    scale = "gamma/mu" if not space.infinite else "mu*D"
    ranges = {
        "mu": [f"1e{R['mu'][0]}", f"1e{R['mu'][1]}"],
        scale: [f"1e{R['scale'][0]}", f"1e{R['scale'][1]}"],
        "lam*theta/mu": [f"1e{R['lam*theta/mu'][0]}", f"1e{R['lam*theta/mu'][1]}"],
        "lam": [f"1e{R['lam'][0]}", f"1e{R['lam'][1]}"],
    }
    if theta_real:
        ranges["lam*theta/mu (negative)"] = ["-10", "-1e-3"]
    structure = [
        "log-uniform random points",
        "lam*theta at exp(+-0.02, 0.2, 1) times k_c and k_o",
        f"{scale} = 1 (D = D* = L/mu, the worst delay)" if not space.infinite else "mu*D = 1",
        "D -> 0 and D -> oo (the ends of the scale range)",
        "local optimisation (Nelder-Mead) of near-counterexamples",
    ]
    return {
        "points": int(n_points),
        "optimisations": int(n_opt),
        "ranges": ranges,
        "structure": structure,
    }


def verify(L, claim: str, theta_real: bool = False) -> ClaimResult:
    """Is ``claim`` equivalent / necessary / sufficient for stability and for oscillation?

    ``L``: an integer 1..MAX_L or ``"inf"``. See the module documentation for what is
    proven, refuted (with an exact counterexample) or only searched. The founding model's
    :func:`symdelay.analysis.claims.verify`.
    """
    from symdelay.analysis.claims import verify as entry
    from symdelay.models.erlang.family import model

    return entry(model(L=L), claim, theta_real=theta_real, method="specialised")


def specialised_verify(
    model,
    claim: str,
    *,
    assume=(),
    theta_real: bool = False,
    timeout_ms: int = _DEFAULT_TIMEOUT_MS,
) -> ClaimResult:
    """The claims engine on the founding model (a claim is decided over every value of
    ``mu, lam, theta, D``: the model must leave them free). With ``assume`` (finite L):
    the decision procedure decides stability under the assumptions; oscillation is
    decided over the whole domain only, so it is left out then."""
    given = [n for n in ("mu", "lam", "theta", "D") if model.options[n] is not None]
    if given:
        raise SymdelayInputError(
            "a claim is decided over all parameter values: build the model without "
            + ", ".join(given)
            + " and write values into the claim"
        )
    if assume:
        return _with_assumptions(model, claim, tuple(assume), theta_real, timeout_ms)
    return _decide(model, claim, theta_real, timeout_ms)


def _oscillation_target(L: int):
    """The oscillation set ``lam*theta > k_o(mu, gamma)`` (:func:`oscillation_threshold`)
    as a formula the decision procedure decides: for ``L >= 2`` ``k_o`` is a monomial in
    ``Max(0, gamma - mu)`` over a power of ``gamma``, so the set is ``(gamma > mu and
    k den > num) or (gamma <= mu and k > 0)``; each counterexample is re-checked by exact
    real-root isolation (:func:`_oscillatory_exact`)."""
    from symdelay.analysis.claim_formula import conj, disj, rel
    from symdelay.analysis.decide import Target

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
    space = _Space(L, gamma)

    def holds_at(point):
        m, g, lm, th = (sp.Rational(point[s]) for s in (mu, gamma, lam, theta))
        return _oscillatory_exact(space, m, g, lm * th, lm, th)

    return Target(
        "oscillating",
        node,
        holds_at,
        "exact real-root isolation of the characteristic polynomial and the closed-form k_o",
    )


def _founding_point(L, point: dict | None) -> dict | None:
    """The decision procedure's point (mu, lam, theta, gamma) in the founding engine's
    order, with ``D = L/gamma``."""
    if point is None:
        return None
    out = {"mu": point["mu"], "lam": point["lam"], "theta": point["theta"]}
    out["gamma"] = point["gamma"]
    out["D"] = str(sp.Integer(L) / sp.sympify(point["gamma"]))
    return out


def _theta_assume(theta_real: bool) -> tuple:
    return () if theta_real else ("theta >= 0",)


def _with_assumptions(model, claim, assume, theta_real, timeout_ms) -> ClaimResult:
    import dataclasses

    from symdelay.analysis.decide import decide, decide_directions

    if model.infinite or as_L_or_inf(model.L) is INFINITE_L:
        raise SymdelayInputError(
            "assumptions need the decision procedure, which decides finite L: at L = inf a "
            "claim is decided over the whole domain (write the assumption into the claim)"
        )
    if model.L > DECIDE_MAX_L:
        raise SymdelayInputError(
            f"assumptions need the decision procedure, which is run for L <= {DECIDE_MAX_L} "
            f"(its Hurwitz conditions grow fast with L), got L = {model.L}"
        )
    _parse_claim(_Space(model.L, gamma), claim)  # the founding engine's own checks first
    assume = (*assume, *[a for a in _theta_assume(theta_real) if a not in assume])
    try:
        res = decide(model, claim, assume=assume, timeout_ms=timeout_ms, theta_real=theta_real)
    except TranscendentalClaimError as exc:
        from symdelay.analysis.claim_search import search_claim
        from symdelay.analysis.claims import fallback_reason

        res = search_claim(
            model, claim, assume=assume, theta_real=theta_real, reason=fallback_reason(exc)
        )
    ces = {d: _founding_point(model.L, p) for d, p in res.counterexamples["stability"].items()}
    fields = dict(
        L=model.L,
        counterexamples={"stability": ces},
        counterexample=ces[_DIRS[0]] or ces[_DIRS[1]],
    )
    if res.fallback:
        fields["explanation"] = res.explanation + (
            " Oscillation: not searched under assumptions (a transcendental claim)."
        )
        return dataclasses.replace(res, **fields)
    # oscillation under the same assumptions, by the same decision procedure
    from symdelay.analysis.decide import PROVEN as D_PROVEN
    from symdelay.analysis.decide import REFUTED as D_REFUTED
    from symdelay.analysis.decide import UNDECIDED, explain_direction

    recs, _, _ = decide_directions(
        model,
        claim,
        _DIRS,
        assume=assume,
        timeout_ms=timeout_ms,
        target=_oscillation_target(model.L),
    )
    status = {d: rec["status"] for d, rec in recs.items()}
    oces = {d: _founding_point(model.L, rec["counterexample"]) for d, rec in recs.items()}
    from symdelay.analysis.claim_result import relation

    rel_o, proven_o = relation(status[_DIRS[0]], status[_DIRS[1]], UNDECIDED)
    details = {
        d: {k: rec[k] for k in ("counterexample_kind", "checks", "seconds")}
        for d, rec in recs.items()
    }
    for d, rec in recs.items():
        details[d]["timeout_ms"] = timeout_ms
        if rec["status"] not in (D_PROVEN, D_REFUTED):
            details[d]["tried"] = rec["tried"]
    fields.update(
        relation_to_oscillation=rel_o,
        oscillation_counterexample=oces[_DIRS[0]] or oces[_DIRS[1]],
        proven={**res.proven, "oscillation": proven_o},
        directions={**res.directions, "oscillation": status},
        counterexamples={"stability": ces, "oscillation": oces},
        methods={**res.methods, "oscillation": dict.fromkeys(_DIRS, "decision procedure")},
        formulas={
            **res.formulas,
            "oscillation": {d: list(rec["formula_smt2"]) for d, rec in recs.items()},
        },
        details={**res.details, "oscillation": details},
        explanation=res.explanation
        + " Oscillation (lam*theta > k_o, decision procedure): "
        + "; ".join(explain_direction(rec) for rec in recs.values())
        + ".",
    )
    return dataclasses.replace(res, **fields)


def _decide(model, claim: str, theta_real: bool, timeout_ms: int = _DEFAULT_TIMEOUT_MS):
    model_name, L = model.name, model.L
    Lv = as_L_or_inf(L)
    if Lv is INFINITE_L:
        space = _Space("inf", D)
    else:
        if Lv > MAX_L:
            raise SymdelayInputError(
                f"verify supports L <= {MAX_L} or inf (exact Routh counts at every checked "
                f"point), got L = {Lv}"
            )
        space = _Space(Lv, gamma)
    cond = _parse_claim(space, claim)
    fallback = _transcendental_note(cond)

    # 1. search (floats), all four questions at once
    m, s, q, lm = _samples(space, theta_real)
    scores = _scores(space, cond, m, s, q, lm)
    n_points, n_opt = len(m), 0

    status = {t: {} for t in _TARGETS}
    how = {t: {} for t in _TARGETS}
    found = {t: {d: None for d in _DIRS} for t in _TARGETS}
    for target in _TARGETS:
        try:
            exact = _exact_directions(space, cond, target, theta_real)
        except (sp.polys.polyerrors.BasePolynomialError, NotImplementedError):
            exact = {}  # outside what the exact route handles: search only
        for direction in _DIRS:
            key = (target, direction)
            sc = np.where(np.isnan(scores[key]), -np.inf, scores[key])
            order = np.argsort(-sc)[: 4 * _TOP]
            cands = [(m[i], s[i], q[i], lm[i]) for i in _simple_first(space, sc, m, s, q, lm)]
            point = None
            for c in cands:
                point = _rationalise(space, cond, target, direction, c)
                if point:
                    break
            if point is None and direction in exact and exact[direction][0] == REFUTED:
                gt = exact[direction][1]
                if gt is not None:
                    bound = _k_bound(cond, space)
                    for c in _witness_points(space, target, gt, _phi(bound[2])):
                        point = _rationalise(space, cond, target, direction, c)
                        if point:
                            break
            if point is None and not (direction in exact and exact[direction][0] == PROVEN):
                near = [(m[i], s[i], q[i], lm[i]) for i in order[:_TOP] if np.isfinite(sc[i])]
                for start in near[:3]:
                    n_opt += 1
                    val, best = _optimise(space, cond, key, start)
                    if val > 0:
                        point = _rationalise(space, cond, target, direction, best)
                        if point:
                            break
            if point is None and direction in exact and exact[direction][0] == REFUTED:
                point = _boundary_witness(space, cond, target, direction)
            exact_word = "interval certificate" if space.infinite else "exact class"
            if point is not None:
                found[target][direction] = _point_dict(space, *point)
                if direction in exact and exact[direction][0] == PROVEN:
                    raise VerificationError(
                        f"claim '{claim}': exact route proved {direction} for {target} but "
                        f"{found[target][direction]} refutes it"
                    )
                status[target][direction] = REFUTED
                refuted_exactly = direction in exact and exact[direction][0] == REFUTED
                how[target][direction] = exact_word if refuted_exactly else "search"
            elif direction in exact:
                status[target][direction] = exact[direction][0]
                how[target][direction] = exact_word
                if exact[direction][0] == REFUTED:
                    found[target][direction] = None
            else:
                status[target][direction] = OPEN
                how[target][direction] = "search"

    # 2. the decision procedure for every finite-L direction still open
    formulas, details, decided_notes = {}, {}, []
    scaling = None
    for target in _TARGETS:
        opened = [d for d in _DIRS if status[target][d] == OPEN]
        if opened and not space.infinite and not fallback:
            formulas[target], details[target] = {}, {}
            scaling = (
                _decide_open(
                    model,
                    space,
                    claim,
                    opened,
                    theta_real,
                    timeout_ms,
                    status,
                    how,
                    found,
                    formulas[target],
                    details[target],
                    decided_notes,
                    target,
                )
                or scaling
            )

    search = _search_summary(space, n_points, n_opt, theta_real)
    rel, proven, notes = {}, {}, []
    for target in _TARGETS:
        rel[target], proven[target] = _relation(*(status[target][d] for d in _DIRS))
    if fallback:
        notes.append(fallback)
    notes += _notes(space, status, found, search, theta_real)
    notes += [n for n in decided_notes if not (fallback and "cannot decide" in n)]
    ce = found["stability"]["claim_implies_target"] or found["stability"]["target_implies_claim"]
    oce = (
        found["oscillation"]["claim_implies_target"] or found["oscillation"]["target_implies_claim"]
    )
    return ClaimResult(
        L=space.L,
        claim=claim,
        condition=cond,
        theta_real=theta_real,
        relation_to_stability=rel["stability"],
        relation_to_oscillation=rel["oscillation"],
        counterexample=ce,
        oscillation_counterexample=oce,
        explanation="; ".join(notes) + ".",
        proven=proven,
        directions=status,
        counterexamples=found,
        search=search,
        model_name=model_name,
        methods=how,
        formulas={t: f for t, f in formulas.items() if f},
        details={t: d for t, d in details.items() if d},
        scaling=scaling,
        timeout_ms=timeout_ms,
        fallback=fallback,
    )


def _interval_agrees(space, cond, value, m, x, lm, th) -> bool:
    """A transcendental claim's truth at the point by interval arithmetic (Arb), a second
    path besides SymPy's evaluation: True when it agrees, False when it cannot decide (the
    point is not used); a contradiction is a bug."""
    from symdelay.analysis.claim_search import claim_truth

    point = {"mu": m, str(space.x): x, "lam": lm, "theta": th}
    got = claim_truth(cond, point)
    if got is None:
        return False
    if got != value:
        raise VerificationError(
            f"the claim at {point}: SymPy says {value}, interval arithmetic says {got}"
        )
    return True


@cache
def _transcendental_note(cond) -> str | None:
    """The fallback line for a claim with a transcendental function (the decision procedure
    cannot decide it, at any L: this engine's search, exact class and certificates decide
    what they can, the rest is labelled search), else None."""
    from symdelay.analysis.claim_formula import transcendental_in

    found = transcendental_in(cond)
    if found is None:
        return None
    return (
        f"the decision procedure cannot decide {found[0]} ({found[1]}), a transcendental "
        "function: checked by search"
    )


def _decide_open(
    model,
    space,
    claim,
    opened,
    theta_real,
    timeout_ms,
    status,
    how,
    found,
    formulas,
    details,
    notes,
    target_name="stability",
):
    """Decide the open directions of ``target_name`` (stability, or oscillation through
    :func:`_oscillation_target`) with the decision procedure (finite L up to
    :data:`DECIDE_MAX_L`); a direction it cannot decide stays as the search left it."""
    from symdelay.analysis.decide import PROVEN as D_PROVEN
    from symdelay.analysis.decide import REFUTED as D_REFUTED
    from symdelay.analysis.decide import decide_directions, explain_direction

    words = [
        f"{target_name} ({'claim => target' if d == _DIRS[0] else 'target => claim'})"
        for d in opened
    ]
    target = _oscillation_target(space.L) if target_name == "oscillation" else None
    if space.L > DECIDE_MAX_L:
        notes.append(
            f"the decision procedure is run for L <= {DECIDE_MAX_L} (its Hurwitz conditions "
            f"grow fast with L): {', '.join(words)} left to the search"
        )
        return None
    try:
        recs, scaling, _ = decide_directions(
            model,
            claim,
            opened,
            assume=_theta_assume(theta_real),
            timeout_ms=timeout_ms,
            target=target,
        )
    except SymdelayInputError as exc:
        notes.append(f"the decision procedure cannot decide this claim ({exc})")
        return None
    for d, rec in recs.items():
        formulas[d] = list(rec["formula_smt2"])
        details[d] = {k: rec[k] for k in ("counterexample_kind", "checks", "seconds")}
        details[d]["timeout_ms"] = timeout_ms
        if rec["status"] in (D_PROVEN, D_REFUTED):
            status[target_name][d] = PROVEN if rec["status"] == D_PROVEN else REFUTED
            how[target_name][d] = "decision procedure"
            found[target_name][d] = _founding_point(space.L, rec["counterexample"])
        else:
            details[d]["tried"] = rec["tried"]
        notes.append(
            f"decision procedure (z3 nlsat, exact), {target_name}: " + explain_direction(rec)
        )
    return scaling


def _boundary_witness(space, cond, target, direction):
    """A rational point on the Hopf boundary refuting a non-strict claim (finite L >= 2)."""
    if target != "stability" or space.infinite or direction != "claim_implies_target":
        return None
    for m, g, k in _hopf_points(space.L):
        try:
            if _claim_at(space, cond, m, g, sp.Integer(1), k) and (
                _stable_exact(space, m, g, k, 1, k) is None
            ):
                return (m, g, sp.Integer(1), k)
        except SymdelayInputError:
            continue
    return None


def _directions_with(status, state) -> list[str]:
    """``"<target> (claim => target)"`` for every direction whose status is ``state``."""
    return [
        f"{t} ({'claim => target' if d == _DIRS[0] else 'target => claim'})"
        for t in _TARGETS
        for d in _DIRS
        if status[t][d] == state
    ]


def _notes(space, status, found, search, theta_real) -> list[str]:
    notes = []
    if theta_real:
        notes.append(
            "theta ranges over all reals: theta < 0 routes jobs towards the longer queue, and "
            "a real root crosses 0 at lam*theta = -mu, so stability needs -mu < lam*theta"
        )
    words = {
        "stability": ("claim holds but unstable", "stable but claim fails"),
        "oscillation": ("claim holds but not oscillating", "oscillating but claim fails"),
    }
    for target in _TARGETS:
        for direction, word in zip(_DIRS, words[target]):
            st = status[target][direction]
            if st == REFUTED and found[target][direction] is None:
                notes.append(f"{target}: {word} somewhere (exact sign analysis)")
            elif st == REFUTED and _on_boundary(space, found[target][direction], target):
                notes.append(f"{target}: the only counterexamples ({word}) are on the boundary")
    if any(found[t][d] for t in _TARGETS for d in _DIRS):
        notes.append(
            "every counterexample is exact (small rationals) and was checked by a second "
            + (
                "path: the Hopf closed form in interval arithmetic and, for moderate "
                "lam*theta*D, certified roots"
                if space.infinite
                else "path: an exact Routh count / exact real-root isolation of the rational "
                "polynomial, and the closed-form oscillation threshold"
            )
        )
    if space.L == 1 and not theta_real:
        notes.append(
            "for L = 1 every coefficient of r^2 + (mu+gamma) r + gamma (mu + lam theta) is "
            "positive, so every point with theta >= 0 is stable"
        )
    opened = _directions_with(status, OPEN)
    if opened:
        r = search["ranges"]
        notes.append(
            "no counterexample found for "
            + ", ".join(opened)
            + f" among {search['points']} points ("
            + ", ".join(f"{k} in [{a}, {b}]" for k, (a, b) in r.items())
            + f"; near k_c and k_o, gamma = mu, both ends) and {search['optimisations']} "
            "local optimisations: not proven"
        )
    proved = _directions_with(status, PROVEN)
    if proved:
        notes.append(
            "proven exactly: "
            + ", ".join(proved)
            + (
                " (L = inf: the bound on lam*theta against the Hopf curve mu D = (pi - atan t)/t,"
                " lam*theta = mu sqrt(1+t^2), by interval arithmetic and exact end conditions)"
                if space.infinite
                else " (L = 1: positive coefficients; otherwise one bound on lam*theta, "
                "homogeneous in mu, gamma: its sign against k_c or k_o decided on "
                "g = gamma/mu > 0 by exact root isolation; for L > 8 against the minimum "
                "of k_c at the worst delay)"
            )
        )
    return notes


def _on_boundary(space, point, target) -> bool:
    if target != "stability" or point is None:
        return False
    m, lm, th = (sp.Rational(point[k]) for k in ("mu", "lam", "theta"))
    x = sp.Rational(point["D"] if space.infinite else point["gamma"])
    return _stable_exact(space, m, x, lm * th, lm, th) is None


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
