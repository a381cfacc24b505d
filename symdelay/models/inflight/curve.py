"""Where counting jobs in flight stabilises: the Hopf curve in the (kappa, lam theta) plane.

The difference-mode polynomial is ``P(r) = A(r) + a (gamma^L + kappa W(r))`` with
``a = lam theta``, ``A = (r + mu)(r + gamma)^L`` and
``W = (r + mu) sum_l e_l gamma^(l-1) (r + gamma)^(L-l)`` for an observation pattern
``e`` (``e = 1``: every phase counted with weight ``kappa``). ``P(i w) = 0`` is two real
equations *linear* in ``a`` and ``c = a kappa``; with ``t = w^2``,
``A(i w) = R_A(t) + i w I_A(t)`` (likewise ``W``) and
``C(t) = R_A I_W - I_A R_W``, Cramer's rule gives the crossing curve

    kappa(t) = gamma^L I_A(t) / C(t),        a(t) = -C(t) / (gamma^L I_W(t)),

exact rational functions of ``t``. A root reaches the axis at ``(kappa, a)`` iff
``kappa = kappa(t), a = a(t) > 0`` for some ``t > 0`` (``P(0) > 0`` for ``kappa >= 0``,
so no real root crosses). Hence:

* the weights ``kappa >= 0`` for which some ``theta`` destabilises are the image of
  ``kappa(t)`` over ``{t > 0: a(t) > 0}`` (away from its critical values, where the curve
  is tangent to the ``a`` direction, every point is a transversal crossing); its extreme
  values are attained at roots of ``I_A' C - I_A C'`` or at the ends of the admissible
  intervals (roots of ``C`` and ``I_W``), all isolated by Arb from exact polynomials:
  :func:`kappa_star` is certified;
* for a fixed ``kappa`` the crossing values of ``theta`` are ``a(t)/lam`` at the positive
  roots of ``gamma^L I_A - kappa C``; between consecutive crossings the number of
  right-half-plane roots is counted *exactly* (Sturm / Cauchy index on the exact rational
  polynomial at a rational test point): :func:`unstable_theta` is exact, bounded windows
  included.

Both are specialisations of the in-flight model (:class:`~.model.InflightModel`) that the
generic entries ask for first: :func:`specialised_window` (``window(model, "theta", lo=0)``)
and :func:`specialised_extremum` (``kappa_star(model)``, ``extremum(model, "kappa",
kind="stable")`` with ``kappa`` free); :func:`unstable_theta` and :func:`kappa_star` are the
loose-argument conveniences that build the model and call those entries.

The ``L -> oo`` limit (the delayed-information model that also counts the jobs sent in the
last ``D`` time units) has the same structure with ``A = r + mu``, ``B_0 = exp(-rD)``,
``W = (r + mu)(1 - exp(-rD))/r``; with ``phi = w D``, ``s = sin(phi/2)``,
``c = cos(phi/2)`` one finds ``kappa(w) - 1/2 = -(w c + mu s)^2 / (2 s^2 (mu^2 + w^2))``,
so ``kappa(w) < 1/2`` with ``sup = 1/2`` approached where ``a(w) -> oo``:
``kappa*_oo = 1/2`` for every ``mu D`` (:func:`kappa_star_limit` checks the identity).

>>> ks = kappa_star(2, mu=1, D=1, dps=15)
>>> ks.to_json()["kappa_star"], ks.to_json()["closed_form"]
('0.0716424552066950', 'gamma**2/(sqrt(2)*sqrt(gamma)*sqrt(2*gamma + mu) + gamma + mu)**2')
>>> w = unstable_theta(2, kappa=sp.Rational(1, 20), mu=1, lam=1, D=1, dps=6).to_json()
>>> w["intervals"], [e["lo"]["omega"] for e in w["ends"]]
([['15.2590', '188.741']], [['3.43726']])
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from functools import cache

import flint
import mpmath

from symdelay.analysis.crossing import _between as _between_ends
from symdelay.analysis.crossing import _eval_ball, _exact_end, _rational, _split_parts, _tight
from symdelay.analysis.polyroots import _fmpq, _real_roots, exact_counts
from symdelay.analysis.window import Extremum, Window, WindowEnd, _assemble, _is_zero
from symdelay.core.errors import CertificationError, SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import as_dps, as_L, as_parameter
from symdelay.core.precision import GUARD, work_bits
from symdelay.models.erlang.hopf.curve import format_number
from symdelay.models.inflight.model import PATTERNS, InflightModel, observation_pattern

__all__ = [
    "HopfCurve",
    "hopf_curve",
    "kappa_star",
    "kappa_star_limit",
    "unstable_theta",
    "observation_pattern",
    "PATTERNS",
    "symbolic_crossing_curve",
    "specialised_window",
    "specialised_extremum",
]


def _roots_positive(p: flint.fmpq_poly, prec: int) -> list[flint.arb]:
    return sorted((b for b, _m in _real_roots(p, prec) if b > 0), key=lambda b: b.mid())


def _between(lo: flint.arb | None, hi: flint.arb | None) -> flint.fmpq:
    """A rational strictly between two disjoint balls (``None``: 0 resp. +infinity)."""
    return _between_ends(flint.fmpq(0) if lo is None else lo, hi)


@dataclass(frozen=True)
class HopfCurve:
    """The exact crossing curve of one (L, mu, D, pattern); see the module docstring."""

    L: int
    mu: sp.Rational
    D: sp.Rational
    pattern: tuple
    gamma_L: flint.fmpq
    A: flint.fmpq_poly
    W: flint.fmpq_poly
    IA: flint.fmpq_poly
    C: flint.fmpq_poly
    IW: flint.fmpq_poly

    def kappa_of(self, t):
        """``kappa(t)`` (exact for rationals, a ball for balls)."""
        if isinstance(t, flint.arb):
            return self.gamma_L * _eval_ball(self.IA, t) / _eval_ball(self.C, t)
        return self.gamma_L * self.IA(t) / self.C(t)

    def a_of(self, t):
        """``a(t) = lam theta`` at the crossing."""
        if isinstance(t, flint.arb):
            return -_eval_ball(self.C, t) / (self.gamma_L * _eval_ball(self.IW, t))
        return -self.C(t) / (self.gamma_L * self.IW(t))

    def polynomial(self, a, kappa) -> flint.fmpq_poly:
        """``P(r) = A + a (gamma^L + kappa W)`` for exact ``a``, ``kappa``."""
        return self.A + flint.fmpq_poly([self.gamma_L]) * a + self.W * (a * kappa)

    def unstable_count(self, a, kappa) -> int:
        """Exact number of right-half-plane roots (Cauchy index on exact rationals)."""
        P = self.polynomial(_fmpq(a), _fmpq(kappa))
        coeffs = [sp.Rational(int(c.p), int(c.q)) for c in reversed(P.coeffs())]
        return exact_counts(coeffs).rhp


@cache
def _curve(L: int, mu: sp.Rational, D: sp.Rational, pattern: tuple) -> HopfCurve:
    g = _fmpq(sp.Rational(L) / D)
    m = _fmpq(mu)
    rg = flint.fmpq_poly([g, 1])
    rm = flint.fmpq_poly([m, 1])
    A = rm * rg**L
    S = flint.fmpq_poly([0])
    for ell in range(1, L + 1):
        e = _fmpq(pattern[ell - 1])
        if e != 0:
            S += e * g ** (ell - 1) * rg ** (L - ell)
    W = rm * S
    RA, IA = _split_parts(A.coeffs())  # A(i w) = R_A(w^2) + i w I_A(w^2)
    RW, IW = _split_parts(W.coeffs())
    return HopfCurve(L, mu, D, pattern, g**L, A, W, IA, RA * IW - IA * RW, IW)


def hopf_curve(L, mu, D, pattern="all") -> HopfCurve:
    """The exact crossing curve (inputs checked and made rational)."""
    return _curve(*_checked(L, mu, D, pattern))


# ------------------------------------------------------------------------- kappa star
def _kappa_extremum(dps, kstar, unstable, where, method, checks, name) -> Extremum:
    """kappa* as the one :class:`~symdelay.analysis.window.Extremum` (``kind="stable"``
    over ``kappa``, of ``theta``): ``x_star`` is kappa* (None if no weight works),
    ``critical`` inf there, ``stable_set`` the weights stable for every theta (the
    complement of the ``unstable`` weights, closed intervals). ``where``: ``(omega, lam
    theta)`` at which the Hopf curve turns (``lam theta`` inf when only approached as
    ``theta -> oo``): the record's ``turning`` and a note (the generic path does not
    compute the turning point: the record's ``omega`` is empty on both paths)."""
    stable, pos = [], mpmath.mpf(0)  # the complement of the unstable weights in [0, oo)
    for lo, hi in unstable:
        if lo > pos:
            stable.append((pos, lo))
        pos = hi
    if not mpmath.isinf(pos):
        stable.append((pos, mpmath.inf))
    omega, lam_theta = where
    notes = list(checks)
    if omega is not None:
        notes.append(
            f"the Hopf curve turns at kappa* with omega = {format_number(omega, dps)}, "
            f"lam*theta = {format_number(lam_theta, dps)}"
        )
    turning = None if omega is None else {"omega": omega, "lam_theta": lam_theta}
    return Extremum(
        name,
        "kappa",
        "theta",
        "stable",
        {},  # the model's options: set by the entry
        dps,
        kstar,
        None,
        None,
        None if kstar is None else mpmath.inf,  # p_c(kappa*): stable for every theta
        (),
        kstar is not None,
        (),
        tuple(stable),
        method,
        tuple(notes),
        turning=turning,
    )


def _admissible_intervals(cv: HopfCurve, prec: int):
    """Open t-intervals with a(t) > 0: ends are balls (None = 0 or infinity)."""
    ends = _roots_positive(cv.C, prec) + _roots_positive(cv.IW, prec)
    ends.sort(key=lambda b: b.mid())
    for x, y in itertools.pairwise(ends):
        if x.overlaps(y):
            raise CertificationError("breakpoints of the crossing curve coincide: raise dps")
    bounds = [None, *ends, None]
    out = []
    for lo, hi in itertools.pairwise(bounds):
        tm = _between(lo, hi)
        if cv.IW(tm) != 0 and cv.C(tm) != 0 and cv.a_of(tm) > 0:
            out.append((lo, hi))
    return out


def _kappa_limit(cv: HopfCurve, end: flint.arb | None, at_zero: bool, prec: int):
    """Limit of kappa(t) at an interval end: a ball, or +-inf (as mpmath)."""
    if end is None and at_zero:
        c0 = cv.C(flint.fmpq(0))
        if c0 != 0:
            return flint.arb(cv.gamma_L * cv.IA(flint.fmpq(0)) / c0)
        ia0 = cv.IA(flint.fmpq(0))
        return None if ia0 == 0 else (math.inf if ia0 * c0 >= 0 else -math.inf)
    if end is None:  # t -> oo
        dn, dd = cv.IA.degree(), cv.C.degree()
        if dn < dd:
            return flint.arb(0)
        if dn == dd:
            return flint.arb(cv.gamma_L * cv.IA[dn] / cv.C[dd])
        sign = (cv.IA[dn] > 0) == (cv.C[dd] > 0)
        return math.inf if sign else -math.inf
    with flint.ctx.workprec(prec):
        cval = _eval_ball(cv.C, end)
        if cval.contains(0):
            return "pole"
        return cv.gamma_L * _eval_ball(cv.IA, end) / cval


def _image(cv: HopfCurve, prec: int):
    """Image of kappa(t) over the admissible set: list of (lo, hi, lo_t, hi_t) with
    mpmath values (+-inf allowed) and the t (ball or None) where each extreme is attained."""
    dIA, dC = cv.IA.derivative(), cv.C.derivative()
    crit = _roots_positive(dIA * cv.C - cv.IA * dC, prec)
    pieces = []
    with flint.ctx.workprec(prec):
        for lo, hi in _admissible_intervals(cv, prec):
            vals = []  # (value as arb or inf, t or None, attained)
            for end, at_zero in ((lo, True), (hi, False)):
                v = _kappa_limit(cv, end, at_zero, prec)
                if v == "pole":  # C = 0 at the end: kappa -> +-inf, sign from inside
                    tm = _between(lo, hi)
                    inside = cv.kappa_of(tm)
                    v = math.inf if inside > 0 else -math.inf
                if v is not None:
                    vals.append((v, end, False))
            for c in crit:
                inside_lo = lo is None or c.lower() > lo.upper()
                inside_hi = hi is None or c.upper() < hi.lower()
                if inside_lo and inside_hi:
                    vals.append((cv.kappa_of(c), c, True))
                elif (lo is not None and c.overlaps(lo)) or (hi is not None and c.overlaps(hi)):
                    raise CertificationError(
                        "a critical point of kappa(t) meets a breakpoint: raise dps"
                    )

            def key(v):
                # mpmath, not float: kappa can be 1e-400 (D = 1e200), which a float
                # flushes to 0, and then the extremes would be picked among ties
                x = v[0]
                return mpmath.mpf(x) if isinstance(x, float) else _mp(x)

            vmin, vmax = min(vals, key=key), max(vals, key=key)
            pieces.append((vmin, vmax))
    return pieces


def _mp(x):
    if isinstance(x, float):
        return mpmath.mpf(x)
    if isinstance(x, flint.arb):
        return mpmath.mpf(x.mid().str(mpmath.mp.dps + 5, radius=False))
    return x


def _union(intervals):
    out = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


@cache
def symbolic_crossing_curve(L: int) -> dict:
    """The crossing curve for one weight on every phase, symbolically (``gamma``, ``mu``,
    ``t = omega^2`` positive): ``{"t", "gamma", "mu", "kappa", "a", "critical"}``, the last
    being the positive roots of ``kappa'(t)`` that SymPy finds in closed form."""
    g, m, t = sp.symbols("gamma mu t", positive=True)
    r = sp.Symbol("r")
    A = sp.Poly((r + m) * (r + g) ** L, r)
    S = sum(g ** (ell - 1) * (r + g) ** (L - ell) for ell in range(1, L + 1))
    W = sp.Poly(sp.expand((r + m) * S), r)

    def parts(p):
        re = sum(c * (-1) ** (k // 2) * t ** (k // 2) for (k,), c in p.terms() if k % 2 == 0)
        im = sum(c * (-1) ** ((k - 1) // 2) * t ** ((k - 1) // 2) for (k,), c in p.terms() if k % 2)
        return sp.expand(re), sp.expand(im)

    RA, IA = parts(A)
    RW, IW = parts(W)
    C = sp.expand(RA * IW - IA * RW)
    kap = sp.factor(sp.cancel(g**L * IA / C))
    a = sp.factor(sp.cancel(-C / (g**L * IW)))
    crit = [s for s in sp.solve(sp.numer(sp.together(sp.diff(kap, t))), t) if s.is_positive]
    return {"t": t, "gamma": g, "mu": m, "kappa": kap, "a": a, "critical": crit}


@cache
def _closed_form_L2():
    """kappa*(L = 2) by SymPy: maximise kappa(t) over t (one critical point)."""
    cv = symbolic_crossing_curve(2)
    g, m = cv["gamma"], cv["mu"]
    if len(cv["critical"]) != 1:
        return None
    value = cv["kappa"].subs(cv["t"], cv["critical"][0])
    neat = (g / (g + m + sp.sqrt(2 * g * (2 * g + m)))) ** 2
    # the neat form is the SymPy value: the difference simplifies to 0, or (SymPy failing to
    # see it) vanishes at an exact rational point with a zero minimal polynomial
    if sp.simplify(sp.radsimp(value - neat)) != 0 and sp.minimal_polynomial(
        (value - neat).subs({g: 3, m: 2})
    ) != sp.Symbol("x"):
        raise VerificationError("the L = 2 closed form of kappa* does not simplify")
    mu_, gamma_ = sp.symbols("mu gamma")
    return neat.subs({g: gamma_, m: mu_})


def _kappa_star_exact(cv: HopfCurve, dps: int):
    """``(kappa*, unstable weights, (omega, lam theta))`` from the expanded exact polynomials
    (any pattern): Arb isolation of all their complex roots, precision doubled until the
    extremes are known to ``dps`` digits."""
    prec = work_bits(dps)
    for _attempt in range(6):
        try:
            pieces = _image(cv, prec)
        except CertificationError:
            prec *= 2
            continue
        # every extreme must be known to dps digits (relative), else raise the precision
        if _tight([v for lo_hi in pieces for v, _, _ in lo_hi if isinstance(v, flint.arb)], dps):
            break
        prec *= 2
    else:
        raise CertificationError(
            f"could not certify kappa* to {dps} digits at L = {cv.L} (precision up to {prec} bits)"
        )
    with mpmath.workdps(dps + GUARD):
        spans = []
        for (vlo, _tlo, _), (vhi, thi, att) in pieces:
            lo, hi = _mp(vlo), _mp(vhi)
            spans.append((lo, hi, thi, att))
        unstable = _union([(max(lo, 0), hi) for lo, hi, _, _ in spans if hi > 0])
        # the smallest kappa >= 0 outside every unstable interval
        if not unstable or unstable[0][0] > 0:
            kstar = mpmath.mpf(0)
            where = (None, None)
        elif math.isinf(unstable[0][1]):
            kstar = None
            where = (None, None)
        else:
            kstar = unstable[0][1]
            tstar = next((t, att) for lo, hi, t, att in spans if hi == kstar)
            t_ball, attained = tstar
            if t_ball is None:
                where = (None, mpmath.inf)
            else:  # at the working precision: flint's default (53 bits) gave 16 digits
                with flint.ctx.workprec(prec):
                    omega = _mp(t_ball.sqrt()) if isinstance(t_ball, flint.arb) else None
                    a = cv.a_of(t_ball)
                    where = (omega, _mp(a) if attained else mpmath.inf)
    return kstar, tuple(unstable), where


FAST_CHECKS = (
    "kappa(u), a(u) from the closed factors (1 + i omega/gamma)^L by binary powering "
    "(Arb power series in u = (omega/gamma)^2)",
    "maximiser: Newton on kappa' = 0 in Arb, sign change of kappa' across its ball",
    "no other weight reached: |kappa| <= |w|/(1 - |w|) past u_T, and an Arb cover of "
    "[0, u_T] by cells each inadmissible, below kappa*, or in the concave window of u*",
    "every weight in [kappa(0), kappa*] attained: [0, u*] admissible, kappa(0) < 0",
)


def _checked(L, mu, D, pattern):
    """``hopf_curve``'s checks, without building the exact polynomials."""
    L = as_L(L, allow_symbol=False)
    mu = as_parameter("mu", mu)
    D = as_parameter("D", D)
    for name, v in (("mu", mu), ("D", D)):
        if not v.is_Rational:
            raise SymdelayInputError(f"{name} must be a number")
    L = int(L)
    return L, sp.Rational(mu), sp.Rational(D), observation_pattern(pattern, L)


#: Up to this L the exact crossing curve is the faster certified path for the weight on every
#: phase (measured: L = 3: 0.5 ms against 2.3 ms for the closed factors, L = 10: 2.8 against
#: 3.4 ms, L = 12: 4.1 against 3.8 ms); above it the closed factors (O(log L) per point).
EXACT_MAX_L = 10


def _kappa_star_closed_factors(L, mu, D, dps):
    """The weight on every phase: :func:`.fastcurve.kappa_star_all` (None where its proof
    does not apply: the exact path then decides)."""
    from symdelay.models.inflight.fastcurve import ShapeError, kappa_star_all

    g = _fmpq(sp.Rational(L) / D)
    try:
        kb, ub, ab, prec = kappa_star_all(L, g, _fmpq(mu), dps, work_bits(dps))
    except ShapeError:
        return None
    with mpmath.workdps(dps + GUARD), flint.ctx.workprec(prec):
        kstar = _mp(kb)
        omega = _mp(ub.sqrt() * flint.arb(g))
        return kstar, ((mpmath.mpf(0), kstar),), (omega, _mp(ab))


def kappa_star(L, mu=1, D=1, pattern="all", dps: int = 30) -> Extremum:
    """The smallest in-flight weight ``kappa`` (times ``pattern``) that keeps the equilibrium
    stable for every ``theta >= 0``, certified (Arb balls from exact polynomials): the
    convenience of :func:`symdelay.extremum` with ``kind="stable"`` on the ``inflight`` model
    with a free ``kappa``.

    Depends on ``L`` and ``mu D`` only (time rescaling).

    Parameters
    ----------
    L : int, str or float
        The number of Erlang phases, an integer ``>= 1``, or ``"inf"`` / ``math.inf``
        (:func:`symdelay.models.inflight.curve.kappa_star_limit`).
    mu : number or str, default 1
        The service rate (``> 0``), made exact.
    D : number or str, default 1
        The mean delay (``> 0``).
    pattern : str or sequence of numbers, default "all"
        Which phases the dispatcher observes: ``"all"``, ``"first"``, ``"last"``,
        ``"first-half"``, ``"last-half"``, or one weight ``>= 0`` per phase (the weights are
        ``kappa`` times it).
    dps : int, default 30
        Significant digits (5..10000) of ``kappa*``.

    Returns
    -------
    Extremum
        ``kappa_star`` (None when no weight works), the crossing at the turning point, the
        ``stable_set`` and the family's ``closed_form``.

    Examples
    --------
    >>> kappa_star(2, dps=15).to_json()["kappa_star"]
    '0.0716424552066950'
    """
    from symdelay.analysis.window import kappa_star as entry

    model = InflightModel(L=L, mu=mu, D=D, kappa="kappa", pattern=pattern)
    return entry(model, dps=dps)


def specialised_extremum(
    model, over, *, param="theta", kind="min", lo=None, hi=None, param_lo=0, param_hi=None,
    dps=15, force=False,
):  # fmt: skip
    """The in-flight model's kappa* (the turning point of the Hopf curve in kappa: the
    smallest weight stable for every theta > 0) from the exact crossing curve, or the
    certified closed-factor cover for the weight on every phase; any L including inf.
    ``None`` (the generic extremum) for another extremum, a range, or a model whose kappa
    is not free or whose mu, D are not numbers."""
    o = model.options
    if (over, param, kind) != ("kappa", "theta", "stable") or hi is not None:
        return None
    if param_hi is not None or not _is_zero(param_lo) or not (lo is None or _is_zero(lo)):
        return None
    if not isinstance(o["kappa"], sp.Symbol) or o["theta"] is not None:
        return None
    if model.infinite:
        mu, D = (1 if o[k] is None else o[k] for k in ("mu", "D"))
        return kappa_star_limit(mu, D, dps=dps, name=model.name)
    if any(o[k] is None or not o[k].is_Rational for k in ("mu", "D")):
        return None
    return _kappa_star(model.L, o["mu"], o["D"], o["pattern"], dps, model.name)


def kappa_star_closed_forms(model) -> dict:
    """The in-flight family's closed form of kappa* (its ``CLOSED_FORMS`` entry, attached
    by both paths of :func:`symdelay.analysis.window.kappa_star`): ``kappa_star`` in
    ``gamma, mu`` for L = 2 with the weight on every phase, ``1/2`` for L = inf (every
    ``mu D``), None otherwise."""
    o = model.options
    if model.infinite:
        return {"kappa_star": sp.Rational(1, 2)}
    if model.L == 2 and all(e == 1 for e in o["pattern"]):
        return {"kappa_star": _closed_form_L2()}
    return {"kappa_star": None}


def _kappa_star(L, mu, D, pattern, dps, name) -> Extremum:
    """kappa* for checked ``L`` (an int), exact ``mu``, ``D`` and a pattern tuple."""
    dps = as_dps(dps)
    L, mu, D, pattern = _checked(L, mu, D, pattern)
    method = "exact crossing curve + Arb root isolation"
    checks = [
        "kappa(t), a(t) exact rational functions (Cramer's rule on Re/Im of P(i w) = 0)",
        "extremes at Arb-isolated roots of I_A' C - I_A C' and at the admissible ends",
    ]
    fast = None
    if L > EXACT_MAX_L and all(e == 1 for e in pattern):
        fast = _kappa_star_closed_factors(L, mu, D, dps)
    if fast is not None:
        kstar, unstable, where = fast
        method = "closed factors (1 + i omega/gamma)^L, certified cover of the crossing curve"
        checks = list(FAST_CHECKS)
    else:
        kstar, unstable, where = _kappa_star_exact(_curve(L, mu, D, pattern), dps)
    closed = _closed_form_L2() if L == 2 and all(e == 1 for e in pattern) else None
    if closed is not None:  # the family's closed form, checked against the certified value
        g = sp.Rational(L) / D
        # evaluated by mpmath from the exact rationals: SymPy's own evaluation of the
        # radicals factors their (huge) arguments at D = 1e100
        f = sp.lambdify((sp.Symbol("gamma"), sp.Symbol("mu")), closed, "mpmath")
        with mpmath.workdps(dps + GUARD):
            cf = f(mpmath.mpf(int(g.p)) / int(g.q), mpmath.mpf(int(mu.p)) / int(mu.q))
            if kstar is None or abs(cf - kstar) > abs(cf) * mpmath.mpf(10) ** (-dps):
                raise VerificationError("closed form and certified kappa* disagree")
        checks.append("closed form (SymPy) equals the certified value")
    return _kappa_extremum(dps, kstar, tuple(unstable), where, method, checks, name)


def kappa_star_limit(mu=1, D=1, dps: int = 30, *, name=None) -> Extremum:
    """``L -> oo`` (the delayed-information model counting jobs sent in the last ``D``):
    ``kappa* = 1/2`` for every ``mu D``. SymPy checks the identity
    ``kappa(w) - 1/2 = -(w c + mu s)^2/(2 s^2 (mu^2 + w^2))`` (so ``kappa(w) <= 1/2``), and
    the sup is approached along the curve where ``a(w) -> oo`` (``w c + mu s -> 0``).
    """
    dps = as_dps(dps)
    mu = as_parameter("mu", mu)
    D = as_parameter("D", D)
    w, m, Dd = sp.symbols("omega mu D", positive=True)
    phi = w * Dd
    A = sp.I * w + m
    B0 = sp.exp(-sp.I * phi)
    W = (sp.I * w + m) * (1 - sp.exp(-sp.I * phi)) / (sp.I * w)

    def im(z):
        return sp.im(sp.expand_complex(sp.expand(z)))

    kap = -im(sp.conjugate(A) * B0) / im(sp.conjugate(A) * W)
    s, c = sp.sin(phi / 2), sp.cos(phi / 2)
    claim = sp.Rational(1, 2) - (w * c + m * s) ** 2 / (2 * s**2 * (m**2 + w**2))
    diff = sp.simplify(sp.expand_trig(sp.trigsimp(sp.expand_trig(kap - claim))))
    if diff != 0:
        # second attempt: evaluate the difference at rational points exactly
        vals = [
            sp.N(kap.subs({w: sp.Rational(p, 3), m: 1, Dd: sp.Rational(q, 2)}), 30)
            - sp.N(claim.subs({w: sp.Rational(p, 3), m: 1, Dd: sp.Rational(q, 2)}), 30)
            for p, q in ((1, 1), (5, 3), (7, 2), (11, 5))
        ]
        if any(abs(v) > 1e-25 for v in vals):
            raise VerificationError("the L = oo in-flight identity failed")
    with mpmath.workdps(dps + GUARD):
        half = mpmath.mpf(1) / 2
    return _kappa_extremum(
        dps,
        half,
        ((mpmath.mpf(0), half),),
        (None, mpmath.inf),
        "identity kappa(w) - 1/2 = -(w c + mu s)^2/(2 s^2 (mu^2 + w^2)) (SymPy)",
        ("kappa(w) <= 1/2 with equality only where a(w) is infinite",),
        name or "two queues, routing on jobs in service and in flight, Erlang(inf) delay",
    )


# ---------------------------------------------------------------------- unstable theta
def unstable_theta(L, kappa, mu=1, lam=1, D=1, pattern="all", dps: int = 30) -> Window:
    """The exact set of ``theta >= 0`` at which the equilibrium of the ``inflight`` model is
    unstable, for weights ``kappa * pattern`` (``kappa = 0``: the founding model, a half-line
    ``theta > theta_c`` for ``L >= 2``): the convenience of :func:`symdelay.window` in
    ``theta`` from 0.

    Parameters
    ----------
    L : int
        The number of Erlang phases, an integer ``>= 1``.
    kappa : number or str
        The weight of the jobs in flight (``>= 0``), made exact.
    mu : number or str, default 1
        The service rate (``> 0``).
    lam : number or str, default 1
        The arrival rate per queue (``> 0``).
    D : number or str, default 1
        The mean delay (``> 0``).
    pattern : str or sequence of numbers, default "all"
        Which phases the dispatcher observes (see :func:`kappa_star`).
    dps : int, default 30
        Significant digits (5..10000) of the interval ends.

    Returns
    -------
    Window
        ``intervals`` in ``theta`` (a bounded window for small positive weights) with their
        crossing frequencies.

    Examples
    --------
    >>> unstable_theta(2, 0, dps=15).to_json()["intervals"]
    [['9.00000000000000', 'inf']]
    """
    from symdelay.analysis.window import window

    if isinstance(kappa, str) and kappa.strip() == "kappa":
        raise SymdelayInputError("kappa must be a number (the window is in theta)")
    model = InflightModel(L=L, mu=mu, lam=lam, D=D, kappa=kappa, pattern=pattern)
    return window(model, "theta", lo=0, dps=dps)


def specialised_window(model, vary="D", *, lo=None, hi=None, dps=15, force=False):
    """The in-flight model's window in theta from 0 (the exact crossing curve: the crossings
    are ``a(t)/lam`` at the positive roots of ``gamma^L I_A - kappa C``, the counts exact in
    every gap); ``None`` (the generic window) for another parameter, another range (it
    covers ``theta > 0``: ``lo = 0``, no ``hi``), ``L = inf``, or a model whose kappa, mu,
    lam or D is not a number. ``force``: no budget to lift here."""
    o = model.options
    if vary != "theta" or hi is not None or lo is None or not _is_zero(lo):
        return None
    if model.infinite or o["theta"] is not None or isinstance(o["kappa"], sp.Symbol):
        return None
    if any(o[k] is None or not o[k].is_Rational for k in ("mu", "lam", "D")):
        return None
    if isinstance(o["kappa"], tuple):  # one weight per phase: the pattern, kappa 1
        kap, pattern = sp.Integer(1), o["kappa"]
        if all(w == 0 for w in pattern):
            kap, pattern = sp.Integer(0), o["pattern"]
    else:
        kap, pattern = o["kappa"], o["pattern"]
    return _unstable_theta(model.L, kap, o["mu"], o["lam"], o["D"], pattern, dps, model.name)


def _unstable_theta(L, kap, mu, lam_v, D, pattern, dps, name) -> Window:
    """The window in theta from 0 for checked inputs (``kap`` rational >= 0)."""
    dps = as_dps(dps)
    cv = hopf_curve(L, mu, D, pattern)
    prec = work_bits(dps)
    kq = _fmpq(kap)
    F = cv.IA * cv.gamma_L - cv.C * kq  # kappa(t) = kappa
    for _attempt in range(4):
        with flint.ctx.workprec(prec):
            ts = _roots_positive(F, prec)
            crossings = []  # (theta ball, t ball)
            for tb in ts:
                iw = _eval_ball(cv.IW, tb)
                if iw.contains(0):
                    continue  # a(t) infinite: the crossing is at theta = oo
                a = cv.a_of(tb)
                if a > 0:
                    crossings.append((a / _fmpq(lam_v), tb))
                elif a.contains(0):
                    raise CertificationError("crossing at theta ~ 0: raise dps")
            crossings.sort(key=lambda c: c[0].mid())
            balls = [c[0] for c in crossings]
            ok = _tight(balls, dps)
            ok = ok and all(not x.overlaps(y) for x, y in itertools.pairwise(balls))
            if ok:
                omegas = [tb.sqrt() for _, tb in crossings]
        if ok:
            break
        prec *= 2
    else:
        raise CertificationError("crossing values could not be separated")
    bounds = [None, *balls, None]
    counts = []
    for lo, hi in itertools.pairwise(bounds):
        th = _between(lo, hi)
        counts.append(cv.unstable_count(th * _fmpq(lam_v), kq))
    with mpmath.workdps(dps + GUARD), flint.ctx.workprec(prec):
        # the unstable theta as the one Window, from 0: one pair of roots on the axis at each
        # crossing (its bound in the assembly of the intervals)
        ends = [
            (WindowEnd(_mp(b), *_bracket(b), (_mp(w),), "r = i omega"), 2)
            for b, w in zip(balls, omegas, strict=True)
        ]
    zero = WindowEnd(mpmath.mpf(0), None, None, (), "domain end")
    infinite = WindowEnd(mpmath.inf, None, None, (), "infinite")
    intervals, notes = _assemble(counts, ends, zero, infinite, dps)
    found = (tuple(intervals), tuple(e for e, _ in ends), tuple(counts))
    how = "exact crossing curve; exact right-half-plane counts between crossings"
    return Window(name, "theta", {}, dps, sp.Integer(0), sp.oo, *found, how, True, tuple(notes))


def _bracket(b):
    return _rational(_exact_end(b, "lower")), _rational(_exact_end(b, "upper"))
