"""Hopf crossings of the difference mode: critical θ curves, instability windows, worst delay.

Everything here starts from the characteristic equation derived in :mod:`symdelay.charpoly`,

    P(r) = F(r) + lam*theta*gamma**L,   F(r) = (r + mu) (r + gamma)**L      (finite L)
    P(r) = (r + mu) + lam*theta*exp(-r D)                                    (L = oo)

and substitutes ``r = i*omega`` with SymPy. A root on the imaginary axis with ``omega > 0`` and
``theta > 0`` means ``F(i omega) = -lam theta gamma**L``: a *modulus* condition
``lam theta = |F(i omega)| / gamma**L`` and a *phase* condition ``arg F(i omega) = pi``
(mod ``2 pi``). The phase is a sum of arctangents, increasing and concave in ``omega``, with
supremum ``(L + 1) pi / 2``; for ``L = 1`` it never reaches ``pi`` (no crossing: stable for
every ``theta >= 0``). The first crossing (phase ``= pi``) has the smallest modulus, so it is
the critical value ``theta_c(D)``.

With ``omega = gamma tan(alpha)`` the crossing curve is explicit (derived in
:func:`hopf_parametrisation`)::

    gamma(alpha) = -mu tan(L alpha) / tan(alpha),
    lam theta(alpha) = -mu / (cos(alpha)**L cos(L alpha)),   pi/(2L) < alpha < min(pi/L, pi/2),

``D = L / gamma`` increasing in ``alpha``. The stationary point of ``theta`` along it solves
``sin((L + 1) alpha) = 0``, which gives the worst-case delay in closed form for every L >= 2.

>>> c = critical_theta(3, 1, 1, [3], dps=20)
>>> c.points[0].theta_c
mpf('4.0')
>>> critical_theta(1, 1, 1, 2).points[0].theta_c
mpf('+inf')
"""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import mpmath
import numpy as np
import sympy as sp
from sympy.polys.polytools import intervals as _isolate

from .charpoly import characteristic_polynomial, infinite_L_limit
from .errors import SymdelayInputError, VerificationError
from .params import INFINITE_L, as_dps, as_L, as_L_or_inf, as_parameter, as_positive_number
from .symbols import D, gamma, lam, mu, r, theta

_MU, _LAM = mu, lam  # the symbols, for functions whose arguments are named mu, lam

__all__ = [
    "INFINITE_L",
    "as_L_or_inf",
    "HopfConditions",
    "hopf_conditions",
    "real_imaginary_parts",
    "HopfParametrisation",
    "hopf_parametrisation",
    "critical_closed_form",
    "DelayLimits",
    "delay_limits",
    "general_delay_limits",
    "CriticalPoint",
    "CriticalCurve",
    "critical_theta",
    "critical_curve_float",
    "InstabilityWindow",
    "instability_window",
    "WorstDelay",
    "worst_delay",
    "WorstDelayTrend",
    "worst_delay_trend",
    "format_number",
]

#: Guard digits used on top of the requested precision.
GUARD = 10

omega = sp.Symbol("omega", positive=True)
alpha = sp.Symbol("alpha", positive=True)
_k = sp.Symbol("k", positive=True)  # k = lam*theta
_P = {s: sp.Symbol(s.name, positive=True) for s in (mu, gamma, D, lam, theta)}
_BACK = {v: k for k, v in _P.items()}
_Lpos = sp.Symbol("L", positive=True, integer=True)


def _plain(expr):
    """Map the positive dummies back to the canonical (assumption-free) symbols."""
    return sp.sympify(expr).xreplace(_BACK)


def _to_mpf(x) -> mpmath.mpf:
    """An exact SymPy number as an mpmath number at the current working precision."""
    x = sp.sympify(x)
    if x.is_Rational:
        return mpmath.mpf(x.p) / x.q
    return mpmath.mpf(str(sp.N(x, mpmath.mp.dps + 5)))


def _require_rational(name, x):
    if not sp.sympify(x).is_Rational:
        raise SymdelayInputError(
            f"{name} must be a rational number here (a decimal or a fraction), got {x}"
        )
    return x


def _Lkey(L):
    return "inf" if L is INFINITE_L else L


# ------------------------------------------------------------------ SymPy derivation
@dataclass(frozen=True)
class HopfConditions:
    """The Hopf-crossing conditions for one L, derived from ``P(i omega) = 0``.

    ``lam_theta`` is the modulus condition solved for ``lam*theta`` (a function of
    ``omega``), ``phase`` the continuous argument of ``F(i omega)``; the crossing is
    ``phase == pi``. ``phase_sup`` is the limit of the phase as ``omega -> oo``.
    Expressions use positive dummies of ``mu, gamma, D`` and ``omega``.
    """

    L: object
    polynomial: sp.Expr
    forcing: sp.Expr  # F(r)
    lam_theta: sp.Expr
    phase: sp.Expr
    phase_sup: sp.Expr

    @property
    def crosses(self) -> bool:
        """Whether the phase reaches pi, i.e. whether some theta > 0 destabilises."""
        return bool(self.phase_sup > sp.pi)


@cache
def hopf_conditions(L_value) -> HopfConditions:
    """Substitute ``r = i omega`` into the characteristic equation; modulus and phase.

    >>> h = hopf_conditions(2)
    >>> h.phase
    2*atan(omega/gamma) + atan(omega/mu)
    >>> h.lam_theta
    (gamma**2 + omega**2)*sqrt(mu**2 + omega**2)/gamma**2
    >>> hopf_conditions(1).crosses
    False
    """
    L = as_L_or_inf(L_value)
    if L is INFINITE_L:
        P = infinite_L_limit().result.xreplace(_P)
        # multiply by exp(r D): F(r) = (r + mu) exp(r D), theta-term lam*theta
        full = sp.expand(P * sp.exp(r * _P[D]))
    else:
        P = characteristic_polynomial(L).xreplace(_P)
        full = P
    theta_term = sp.expand(full - full.subs(_P[theta], 0))
    F = full - theta_term if L is not INFINITE_L else sp.factor(full.subs(_P[theta], 0))
    coeff = sp.cancel(theta_term / (_P[lam] * _P[theta]))  # gamma**L, or 1 for the DDE
    modulus = sp.Integer(1)
    phase = sp.Integer(0)
    for factor in sp.Mul.make_args(F):
        base, exp_ = factor.as_base_exp()
        if isinstance(factor, sp.exp):  # exp(r D): modulus 1, continuous phase omega D
            phase += sp.im(sp.expand(factor.args[0].subs(r, sp.I * omega)))
            continue
        z = sp.expand(base.subs(r, sp.I * omega))
        re_, im_ = z.as_real_imag()
        modulus *= sp.sqrt(re_**2 + im_**2) ** exp_
        phase += exp_ * sp.atan2(im_, re_)
    lam_theta = modulus / coeff
    sup = sp.Add(*(sp.limit(term, omega, sp.oo) for term in sp.Add.make_args(phase)))
    return HopfConditions(L, P, F, lam_theta, phase, sup)


@cache
def real_imaginary_parts(L_value) -> tuple[sp.Expr, sp.Expr]:
    """Real and imaginary parts of ``P(i omega)`` (``lam``, ``theta`` positive).

    >>> re_, im_ = real_imaginary_parts("inf")
    >>> im_
    -lam*theta*sin(D*omega) + omega
    """
    h = hopf_conditions(L_value)
    z = sp.expand(h.polynomial.subs(r, sp.I * omega))
    re_, im_ = z.as_real_imag()
    return sp.expand(re_), sp.expand(im_)


@dataclass(frozen=True)
class HopfParametrisation:
    """The crossing curve of a finite L >= 2 parametrised by ``alpha = arg(i omega + gamma)``.

    ``gamma_of_alpha``, ``lam_theta_of_alpha`` and ``omega_of_alpha`` are SymPy expressions
    in ``alpha`` and ``mu``; ``interval`` the range of alpha on the first crossing branch;
    ``stationarity`` the derivative of ``log(lam theta)`` in alpha and ``stationarity_factored``
    its form ``L sin((L+1) alpha) / (cos(alpha) cos(L alpha))``.
    """

    L: object
    gamma_of_alpha: sp.Expr
    lam_theta_of_alpha: sp.Expr
    omega_of_alpha: sp.Expr
    interval: tuple
    stationarity: sp.Expr
    stationarity_factored: sp.Expr


@cache
def hopf_parametrisation(L_value=None) -> HopfParametrisation:
    """Derive ``gamma(alpha)``, ``lam theta(alpha)`` from ``P(i gamma tan(alpha)) = 0``.

    With ``omega = gamma tan(alpha)``, ``i omega + gamma = gamma e^{i alpha} / cos(alpha)``,
    so ``P(i omega) / gamma**L = (mu + i gamma tan alpha) e^{i L alpha} sec(alpha)**L + lam theta``.
    The imaginary part gives gamma, the real part then gives lam*theta. ``L_value=None``
    keeps L symbolic.

    >>> p = hopf_parametrisation(3)
    >>> p.gamma_of_alpha, p.lam_theta_of_alpha
    (-mu*tan(3*alpha)/tan(alpha), -mu/(cos(alpha)**3*cos(3*alpha)))
    """
    if L_value is not None:
        n = as_L(L_value, allow_symbol=False)
        if n < 2:
            raise SymdelayInputError("the Hopf parametrisation needs L >= 2: L = 1 never crosses")
        return _concrete_parametrisation(n)
    Ls = _Lpos
    m, g = _P[mu], _P[gamma]
    rho = sp.Symbol("rho", positive=True)  # sec(alpha)**L > 0 on (0, pi/2)
    E = (m + sp.I * g * sp.tan(alpha)) * (sp.cos(Ls * alpha) + sp.I * sp.sin(Ls * alpha)) * rho
    re_, im_ = E.as_real_imag()
    sols = sp.solve(im_, g)
    if len(sols) != 1:
        raise VerificationError("imaginary part of P(i gamma tan alpha) is not linear in gamma")
    g_alpha = sols[0]
    k_alpha = sp.simplify((-re_.subs(g, g_alpha)).subs(rho, sp.cos(alpha) ** (-Ls)))
    S = sp.diff(sp.log(k_alpha), alpha)
    compact = Ls * (sp.tan(alpha) + sp.tan(Ls * alpha))
    factored = Ls * sp.sin((Ls + 1) * alpha) / (sp.cos(alpha) * sp.cos(Ls * alpha))
    # S = L (tan(alpha) + tan(L alpha)), and tan a + tan b = sin(a + b)/(cos a cos b)
    a_, b_ = sp.symbols("a b", positive=True)
    identity = sp.expand_trig(sp.sin(a_ + b_)) / (sp.cos(a_) * sp.cos(b_)) - sp.tan(a_) - sp.tan(b_)
    if sp.simplify(S - compact) != 0 or sp.simplify(identity) != 0:
        raise VerificationError("stationarity condition is not L sin((L+1)a)/(cos a cos La)")
    return HopfParametrisation(
        _plain(Ls),
        _plain(g_alpha),
        _plain(k_alpha),
        _plain(sp.simplify(g_alpha * sp.tan(alpha))),
        (sp.pi / (2 * Ls), sp.pi / Ls),
        _plain(compact),
        _plain(factored),
    )


@cache
def _concrete_parametrisation(n: int) -> HopfParametrisation:
    """The general-L parametrisation at ``L = n``, machine-checked against ``P(r)``."""
    gen = hopf_parametrisation(None)
    Lsym = gen.L

    def at_n(e):
        return e.subs(Lsym, n)

    g_alpha = at_n(gen.gamma_of_alpha)
    k_alpha = at_n(gen.lam_theta_of_alpha)
    w_alpha = at_n(gen.omega_of_alpha)
    # machine check: the characteristic polynomial vanishes on the curve, two points
    Pc = characteristic_polynomial(n)
    for frac in (sp.Rational(7, 5),):
        a0 = frac * sp.pi / (2 * n)  # inside the branch (pi/(2n), pi/n)
        at = {alpha: a0, mu: 1}
        val = Pc.subs({r: sp.I * w_alpha.subs(at), gamma: g_alpha.subs(at), mu: 1})
        val = val.subs({lam: 1, theta: k_alpha.subs(at)})
        scale = (k_alpha * g_alpha**n).subs(at)
        if abs(sp.N(val / scale, 30)) > 1e-25:
            raise VerificationError("Hopf parametrisation does not satisfy P(i omega) = 0")
    return HopfParametrisation(
        n,
        g_alpha,
        k_alpha,
        w_alpha,
        (sp.pi / (2 * n), sp.Min(sp.pi / n, sp.pi / 2)),
        at_n(gen.stationarity),
        at_n(gen.stationarity_factored),
    )


@cache
def critical_closed_form(L_value) -> tuple[sp.Expr, sp.Expr] | None:
    """``(lam*theta_c, omega**2)`` at the crossing in closed form in mu, gamma, or None.

    Eliminates omega from the real and imaginary parts of ``P(i omega) = 0``: the imaginary
    part (divided by omega) is a polynomial in ``omega**2``; when it is linear (L = 2, 3)
    its root is substituted into the real part.

    >>> critical_closed_form(2)
    (2*(gamma + mu)**2/gamma, gamma*(gamma + 2*mu))
    """
    L = as_L_or_inf(L_value)
    if L is INFINITE_L or L < 2:
        return None
    re_, im_ = real_imaginary_parts(L)
    w2 = sp.Symbol("w2", positive=True)
    q = sp.expand(sp.cancel(im_ / omega)).subs(omega, sp.sqrt(w2))
    poly = sp.Poly(q, w2)
    if poly.degree() != 1:
        return None
    (w2_sol,) = sp.solve(q, w2)
    k = sp.solve(re_.subs(omega, sp.sqrt(w2_sol)).subs(_P[lam] * _P[theta], _k), _k)
    if len(k) != 1:
        return None
    return _plain(sp.factor(k[0])), _plain(sp.factor(w2_sol))


@dataclass(frozen=True)
class DelayLimits:
    """Behaviour of ``lam*theta_c`` as ``D -> 0`` and ``D -> oo`` for one L.

    ``small_D_coefficient``: ``lam theta_c ~ small_D_coefficient / D`` as D -> 0.
    ``large_D_limit``: the limit of ``lam theta_c`` as D -> oo (``oo`` if it blows up);
    ``large_D_growth``: when it blows up, ``lam theta_c ~ large_D_growth * D``.
    All in terms of ``mu`` (plain symbols).
    """

    L: object
    small_D_coefficient: sp.Expr
    large_D_limit: sp.Expr
    large_D_growth: sp.Expr | None


@cache
def delay_limits(L_value) -> DelayLimits:
    """Derive the D -> 0 and D -> oo behaviour of the critical curve with SymPy limits.

    >>> dl = delay_limits(3)
    >>> dl.large_D_limit
    8*mu
    >>> delay_limits(2).large_D_growth
    mu**2
    >>> delay_limits("inf").large_D_limit, delay_limits("inf").small_D_coefficient
    (mu, pi/2)
    """
    L = as_L_or_inf(L_value)
    if L is INFINITE_L:
        h = hopf_conditions(L)
        # phase: omega D + atan(omega/mu) = pi  ->  D(omega)
        D_w = sp.solve(sp.Eq(h.phase, sp.pi), _P[D])[0]
        k_w = h.lam_theta
        small = sp.limit(k_w * D_w, omega, sp.oo)  # D -> 0 is omega -> oo
        large = sp.limit(k_w, omega, 0, "+")  # D -> oo is omega -> 0
        return DelayLimits("inf", _plain(small), _plain(large), None)
    if L < 2:
        return DelayLimits(L, sp.oo, sp.oo, None)
    gen = general_delay_limits()
    small = gen["small_D_coefficient"].subs(gen["L"], L)
    large = gen["large_D_limit"].subs(gen["L"], L)
    growth = None
    if large.has(sp.zoo, sp.oo, sp.nan):  # L = 2: the branch ends at alpha = pi/2
        p = hopf_parametrisation(L)
        g_a = p.gamma_of_alpha.xreplace(_P)
        k_a = p.lam_theta_of_alpha.xreplace(_P)
        hi = p.interval[1]
        large = sp.limit(k_a, alpha, hi, "-")
        if large is sp.oo:
            growth = _plain(sp.simplify(sp.limit(k_a * g_a, alpha, hi, "-") / L))
    return DelayLimits(L, small, _plain(large), growth)


@cache
def general_delay_limits() -> dict:
    """General-L ends of the branch: ``D -> 0`` is ``alpha -> pi/(2L)``, ``D -> oo`` is
    ``alpha -> pi/L``.

    ``lam theta_c / gamma`` simplifies to ``sin(alpha) sec(alpha)**(L+1) / sin(L alpha)``,
    continuous at ``pi/(2L)``, so ``D lam theta_c -> L sin(pi/(2L)) sec(pi/(2L))**(L+1)``;
    ``lam theta_c`` is continuous at ``pi/L`` for L >= 3 (``cos(pi/L) > 0``).

    >>> g = general_delay_limits()
    >>> g["small_D_coefficient"], g["large_D_limit"]
    (L*sin(pi/(2*L))*cos(pi/(2*L))**(-L - 1), mu/cos(pi/L)**L)
    """
    p = hopf_parametrisation(None)
    Ls = p.L
    ratio = sp.simplify(p.lam_theta_of_alpha / p.gamma_of_alpha)  # D lam theta / L
    small = sp.simplify(Ls * ratio.subs(alpha, sp.pi / (2 * Ls)))
    large = p.lam_theta_of_alpha.subs(alpha, sp.pi / Ls)
    return {"L": Ls, "ratio": ratio, "small_D_coefficient": small, "large_D_limit": large}


# ------------------------------------------------------------------ numerics
@cache
def _numeric(L):
    """Lambdified phase - pi, its omega-derivative and lam*theta(omega); args (w, mu, x).

    ``x`` is gamma for finite L and D for the DDE.
    """
    h = hopf_conditions(L)
    x = _P[D] if L is INFINITE_L else _P[gamma]
    f = h.phase - sp.pi
    fp = sp.diff(f, omega)
    args = (omega, _P[mu], x)
    k = h.lam_theta
    if L is not INFINITE_L:  # |i omega + gamma|^L / gamma^L as (1 + u^2)^(L/2): no overflow
        u = sp.Symbol("u", positive=True)
        k = sp.factor(k.subs(omega, x * u))
        k = sp.powsimp(sp.expand_power_base(k, force=True), force=True).subs(u, omega / x)
    out = {}
    for mod in ("numpy", "mpmath"):
        out[mod] = tuple(sp.lambdify(args, e, modules=mod) for e in (f, fp, k))
    return out


def _bracket(L, m, x, tan_):
    """Bracket [lo, hi] of the crossing frequency (vectorised or mpmath scalars).

    Each arctangent in the phase increases with omega: at ``omega = min(gamma, mu) *
    tan(pi/(L+1))`` the phase is <= pi, at ``max(...)`` >= pi; for L >= 3 also
    ``gamma tan(pi/(2L)) < omega_c < gamma tan(pi/L)``. DDE: ``pi/(2D) < omega_c < pi/D``.
    """
    pi = mpmath.pi if tan_ is mpmath.tan else np.pi
    if L is INFINITE_L:
        return pi / (2 * x), pi / x
    c = tan_(pi / (L + 1))
    if tan_ is mpmath.tan:
        lo, hi = min(x, m) * c, max(x, m) * c
        if L >= 3:
            lo, hi = max(lo, x * tan_(pi / (2 * L))), min(hi, x * tan_(pi / L))
        return lo, hi
    lo, hi = np.minimum(x, m) * c, np.maximum(x, m) * c
    if L >= 3:
        lo = np.maximum(lo, x * tan_(pi / (2 * L)))
        hi = np.minimum(hi, x * tan_(pi / L))
    return lo, hi


def _newton_numpy(f, fp, lo, hi, m, x, maxit=100):
    """Safeguarded Newton on a concave increasing phase, all points at once (float64)."""
    lo, hi = lo.astype(float).copy(), hi.astype(float).copy()
    w = lo.copy()
    for _ in range(maxit):
        fw = f(w, m, x)
        lo = np.where(fw < 0, w, lo)
        hi = np.where(fw > 0, w, hi)
        step = fw / fp(w, m, x)
        wn = w - step
        bad = ~((wn >= lo) & (wn <= hi)) | ~np.isfinite(wn)
        wn = np.where(bad, 0.5 * (lo + hi), wn)
        done = np.abs(wn - w) <= 2e-16 * np.abs(wn)
        w = wn
        if done.all():
            break
    return w


def _newton_mp(f, fp, lo, hi, w0, m, x, dps):
    """Safeguarded Newton in mpmath at the current working precision."""
    tol = mpmath.mpf(10) ** (-(dps + GUARD - 3))
    w = w0 if (w0 is not None and lo <= w0 <= hi) else (lo + hi) / 2
    for _ in range(10 * (dps + GUARD) + 100):
        fw = f(w, m, x)
        if fw == 0:
            return w
        if fw < 0:
            lo = w
        else:
            hi = w
        wn = w - fw / fp(w, m, x)
        if not lo <= wn <= hi:
            wn = (lo + hi) / 2
        if abs(wn - w) <= tol * abs(wn):
            return wn
        w = wn
    raise VerificationError("Newton iteration on the Hopf phase did not converge")


@dataclass(frozen=True)
class CriticalPoint:
    """One point of the critical curve: ``theta_c`` is mpmath inf (omega None) for no crossing."""

    D: mpmath.mpf
    theta_c: mpmath.mpf
    omega: mpmath.mpf | None


def format_number(x, dps: int, strip: bool = False) -> str:
    """Decimal string with ``dps`` significant digits; ``"inf"`` for infinity.

    >>> format_number(mpmath.mpf(2) / 3, 6)
    '0.666667'
    """
    if x is None:
        return None
    if mpmath.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x == 0:
        return "0"
    with mpmath.workdps(dps + GUARD):
        return mpmath.nstr(mpmath.mpf(x), dps, strip_zeros=strip)


@dataclass(frozen=True)
class CriticalCurve:
    """Critical ``theta_c(D)`` and Hopf frequency ``omega`` at the requested delays."""

    L: object
    mu: sp.Rational
    lam: sp.Rational
    dps: int
    points: tuple[CriticalPoint, ...]
    D_text: tuple[str, ...] = field(default=())

    def arrays(self):
        """``(D, theta_c, omega)`` as float64 numpy arrays (omega NaN where no crossing)."""
        Ds = np.array([float(p.D) for p in self.points])
        th = np.array([float(p.theta_c) for p in self.points])
        om = np.array([np.nan if p.omega is None else float(p.omega) for p in self.points])
        return Ds, th, om

    def to_json(self) -> dict:
        pts = []
        for i, p in enumerate(self.points):
            d_text = self.D_text[i] if i < len(self.D_text) else format_number(p.D, self.dps, True)
            pts.append(
                {
                    "D": d_text,
                    "theta_c": format_number(p.theta_c, self.dps),
                    "omega": format_number(p.omega, self.dps),
                }
            )
        return {"L": _Lkey(self.L), "points": pts}


def _as_D_list(Dv):
    if isinstance(Dv, (str, bytes)) or not isinstance(Dv, Sequence | np.ndarray):
        Dv = [Dv]
    out = []
    for d in Dv:
        if isinstance(d, np.floating):
            d = float(d)
        if isinstance(d, mpmath.mpf):  # exact binary value of an mpmath number
            if not mpmath.isfinite(d):
                raise SymdelayInputError(f"D must be a finite positive number, got {d}")
            d = sp.Integer(d.man) * sp.Integer(2) ** d.exp if d != 0 else sp.Integer(0)
        out.append(as_positive_number("D", d))
    if not out:
        raise SymdelayInputError("D must list at least one positive delay, e.g. --D 0.5,1,2")
    return out


def _D_text(d) -> str:
    """The delay as the user wrote it (strings) or a short decimal."""
    if isinstance(d, str):
        return d.strip()
    if isinstance(d, mpmath.mpf):
        return mpmath.nstr(d, 20)
    if isinstance(d, float | np.floating):
        return repr(float(d))
    v = sp.sympify(d)
    if v.is_Integer:
        return str(v)
    if v.is_Rational:
        with decimal.localcontext() as ctx:
            ctx.prec = 20
            return str(decimal.Decimal(int(v.p)) / decimal.Decimal(int(v.q)))
    return str(v)


def critical_curve_float(L, mu_value, lam_value, D_values) -> tuple[np.ndarray, np.ndarray]:
    """Fast float64 ``(theta_c, omega)`` arrays for a numpy array of delays.

    Vectorised safeguarded Newton on the SymPy-derived phase; ``theta_c = inf`` and
    ``omega = nan`` where no theta destabilises (L = 1).
    """
    L = as_L_or_inf(L)
    m = float(as_positive_number("mu", mu_value))
    lm = float(as_positive_number("lam", lam_value))
    Dv = np.asarray(D_values, dtype=float)
    if not (np.all(np.isfinite(Dv)) and np.all(Dv > 0)):
        raise SymdelayInputError("D must be positive and finite")
    if not hopf_conditions(L).crosses:
        return np.full(Dv.shape, np.inf), np.full(Dv.shape, np.nan)
    f, fp, kf = _numeric(L)["numpy"]
    x = Dv if L is INFINITE_L else L / Dv
    lo, hi = _bracket(L, m, x, np.tan)
    w = _newton_numpy(f, fp, lo, hi, m, x)
    return kf(w, m, x) / lm, w


def critical_theta(L, mu, lam, D, dps: int = 15) -> CriticalCurve:
    """Critical ``theta_c`` and Hopf frequency at each delay ``D`` (a number or a sequence).

    ``dps <= 15``: float64 vectorised Newton; above, each point is polished by an mpmath
    Newton (warm-started from float64, bracketed) at ``dps`` + guard digits.

    >>> critical_theta(2, 1, 1, [2], dps=20).points[0].theta_c
    mpf('8.0')
    """
    Lv = as_L_or_inf(L)
    dps = as_dps(dps)
    m = as_positive_number("mu", mu)
    lm = as_positive_number("lam", lam)
    Ds = _as_D_list(D)
    texts = tuple(
        _D_text(d)
        for d in (D if isinstance(D, Sequence | np.ndarray) and not isinstance(D, str) else [D])
    )
    crosses = hopf_conditions(Lv).crosses
    with mpmath.workdps(dps + GUARD):
        Dm = [_to_mpf(d) for d in Ds]
        mm, lmm = _to_mpf(m), _to_mpf(lm)
        if not crosses:
            pts = tuple(CriticalPoint(d, mpmath.inf, None) for d in Dm)
            return CriticalCurve(Lv, m, lm, dps, pts, texts)
        x_mp = Dm if Lv is INFINITE_L else [Lv / d for d in Dm]
        with np.errstate(all="ignore"):
            Df = np.array([float(d) for d in Dm])
            ok = np.isfinite(Df) & (Df > 0) & (Df < 1e300)
            th_f, w_f = critical_curve_float(Lv, m, lm, np.where(ok, Df, 1.0))
        if dps <= 15 and ok.all() and np.all(np.isfinite(w_f)):
            pts = tuple(
                CriticalPoint(d, mpmath.mpf(float(t)), mpmath.mpf(float(w)))
                for d, t, w in zip(Dm, th_f, w_f)
            )
            return CriticalCurve(Lv, m, lm, dps, pts, texts)
        f, fp, kf = _numeric(Lv)["mpmath"]
        pts = []
        for i, (d, x) in enumerate(zip(Dm, x_mp)):
            lo, hi = _bracket(Lv, mm, x, mpmath.tan)
            w0 = mpmath.mpf(float(w_f[i])) if ok[i] and np.isfinite(w_f[i]) else None
            w = _newton_mp(f, fp, lo, hi, w0, mm, x, dps)
            pts.append(CriticalPoint(d, kf(w, mm, x) / lmm, w))
        return CriticalCurve(Lv, m, lm, dps, tuple(pts), texts)


# ------------------------------------------------------------------ windows
@dataclass(frozen=True)
class InstabilityWindow:
    """The delays D at which the equilibrium is unstable for fixed theta.

    ``intervals``: open intervals ``(D1, D2)`` as mpmath numbers (``D2`` may be inf), each
    end accurate to ``dps`` digits (a root of an exact polynomial, refined); ``explanation``:
    how the set was found.
    """

    L: object
    theta: sp.Rational
    mu: sp.Rational
    lam: sp.Rational
    dps: int
    intervals: tuple
    explanation: str

    def to_json(self) -> dict:
        return {
            "L": _Lkey(self.L),
            "theta": str(self.theta),
            "intervals": [
                [format_number(a, self.dps), format_number(b, self.dps)] for a, b in self.intervals
            ],
            "explanation": self.explanation,
        }


@cache
def _t_polynomials(L: int):
    """``A(t) + i B(t) = (1 + i t)**L`` and ``D(t)`` numerator/denominator (SymPy)."""
    t = sp.Symbol("t", real=True)
    A, B = sp.expand((1 + sp.I * t) ** L).as_real_imag()
    if sp.expand(A**2 + B**2 - (1 + t**2) ** L) != 0:
        raise VerificationError("|1 + i t|^(2L) != (1 + t^2)^L")
    return t, sp.Poly(A, t), sp.Poly(B, t)


def _window_finite(L, k, m, dps):
    """Exact window for finite L >= 2, via ``Q(t) = k A(t) + mu (1 + t^2)^L``.

    On the crossing curve ``t = tan(alpha) = omega/gamma``, ``gamma = -mu B/(t A)`` and
    ``lam theta_c = -mu (1+t^2)^L / A``; with ``A < 0`` on the first branch,
    ``lam theta > lam theta_c`` iff ``Q(t) < 0``. D = L/gamma increases with t.
    """
    t, A, B = _t_polynomials(L)
    Q = sp.Poly(k * A.as_expr() + m * (1 + t**2) ** L, t)
    Qs = sp.Poly(sp.sqf_part(Q.as_expr()), t)
    iv = _isolate([Qs, A, B])
    iv = sorted(((sp.Rational(a), sp.Rational(b)), idx) for (a, b), idx in iv if b > 0)
    # first positive root of A, then first positive root of B after it
    t0 = next((j for j, (_, idx) in enumerate(iv) if 1 in idx and iv[j][0][0] >= 0), None)
    if t0 is None:
        return []
    t1 = next((j for j in range(t0 + 1, len(iv)) if 2 in iv[j][1]), None)
    if 0 in iv[t0][1]:
        raise VerificationError("Q and A share a root (impossible: Q(t0) = mu (1+t0^2)^L > 0)")
    end = len(iv) if t1 is None else t1
    roots = [iv[j][0] for j in range(t0 + 1, end) if 0 in iv[j][1]]
    # sample points between consecutive roots (exact rationals)
    bounds = (
        [iv[t0][0][1]]
        + [x for ab in roots for x in ab]
        + ([iv[t1][0][0]] if t1 is not None else [None])
    )
    samples = []
    for j in range(len(roots) + 1):
        left, right = bounds[2 * j], bounds[2 * j + 1]
        samples.append(left + 1 if right is None else (left + right) / 2)
    Qe = Q.as_expr()
    negative = [Qe.subs(t, s) < 0 for s in samples]
    with mpmath.workdps(dps + GUARD):
        Qf = sp.lambdify(t, Qs.as_expr(), "mpmath")
        Af = sp.lambdify(t, A.as_expr(), "mpmath")
        Bf = sp.lambdify(t, B.as_expr(), "mpmath")

        def D_of(tv):
            return -L * tv * Af(tv) / (m_mp * Bf(tv))

        m_mp = mpmath.mpf(m.p) / m.q
        troots = []
        for a, b in roots:
            a_, b_ = mpmath.mpf(a.p) / a.q, mpmath.mpf(b.p) / b.q
            if a_ == b_:
                troots.append(a_)
            else:
                troots.append(mpmath.findroot(Qf, (a_, b_), solver="anderson"))
        edges = [mpmath.mpf(0)] + [D_of(x) for x in troots] + [mpmath.inf]
        out = []
        for j, neg in enumerate(negative):
            if neg:
                out.append((edges[j], edges[j + 1]))
    return out


def instability_window(L, theta, mu, lam, dps: int = 15) -> InstabilityWindow:
    """The set ``{D > 0 : the equilibrium has a root with Re r > 0}`` for fixed theta.

    For ``theta >= 0`` it is ``{D : theta > theta_c(D)}``: a union of open intervals found
    exactly (finite L: real roots of a polynomial of degree 2L in ``t = omega/gamma``;
    L = oo: closed form). ``theta < 0`` (routing *towards* longer queues): a real root
    crosses zero at ``lam theta = -mu`` for every D, so the window is all D > 0 when
    ``lam theta < -mu`` and empty otherwise.

    >>> w = instability_window(3, 5, 1, 1)
    >>> [[format_number(a, 6), format_number(b, 6)] for a, b in w.intervals]
    [['1.05543', '11.0938']]
    """
    Lv = as_L_or_inf(L)
    dps = as_dps(dps)
    th = as_parameter("theta", theta, positive=False)
    if not th.is_number:
        raise SymdelayInputError(f"theta must be a number, got '{theta}'")
    m = as_positive_number("mu", mu)
    lm = as_positive_number("lam", lam)
    for name, x in (("theta", th), ("mu", m), ("lam", lm)):
        _require_rational(name, x)
    k = lm * th
    Lname = "L = oo" if Lv is INFINITE_L else f"L = {Lv}"
    if th < 0:
        if k < -m:
            ivs = ((mpmath.mpf(0), mpmath.inf),)
            why = (
                "theta < 0 routes jobs towards the longer queue; lam*theta < -mu, so P(0) = "
                "(mu + lam theta) gamma^L < 0 and a real root is positive for every D"
            )
        else:
            ivs = ()
            why = (
                "theta < 0 routes jobs towards the longer queue; a real root crosses r = 0 at "
                "lam*theta = -mu (for every D); here -mu <= lam*theta < 0 and "
                "|F(i omega)| >= mu gamma^L excludes other crossings: stable for every D"
                + (" (r = 0 is a root: marginal)" if k == -m else "")
            )
        return InstabilityWindow(Lv, th, m, lm, dps, ivs, why)
    if Lv is INFINITE_L:
        if k <= m:
            return InstabilityWindow(
                Lv,
                th,
                m,
                lm,
                dps,
                (),
                f"{Lname}: theta_c(D) decreases from oo to mu/lam; lam*theta <= mu: stable for all D",
            )
        w1 = sp.sqrt(k**2 - m**2)
        D1 = (sp.pi - sp.atan(w1 / m)) / w1
        with mpmath.workdps(dps + GUARD):
            d1 = sp.N(D1, dps + GUARD)
            ivs = ((mpmath.mpf(str(d1)), mpmath.inf),)
        return InstabilityWindow(
            Lv,
            th,
            m,
            lm,
            dps,
            ivs,
            f"{Lname}: theta_c(D) decreases from oo to mu/lam; unstable for D > {D1}",
        )
    if not hopf_conditions(Lv).crosses:
        return InstabilityWindow(
            Lv, th, m, lm, dps, (), f"{Lname}: the phase never reaches pi; stable for all D"
        )
    ivs = tuple(_window_finite(Lv, k, m, dps))
    return InstabilityWindow(
        Lv,
        th,
        m,
        lm,
        dps,
        ivs,
        f"{Lname}: endpoints are the roots t of theta*lam*A(t) + mu*(1+t^2)^L on the first "
        "crossing branch, (1 + i t)^L = A + i B, D = -L t A/(mu B)",
    )


# ------------------------------------------------------------------ worst delay
@dataclass(frozen=True)
class WorstDelay:
    """Worst-case mean delay ``D_star = argmin theta_c`` and ``theta_star = min theta_c``.

    ``attained`` is False when the infimum is approached only as D -> oo (L = oo) or when
    no theta destabilises (L = 1: ``theta_star`` inf, ``D_star`` None). ``closed_form`` maps
    ``"D_star"``/``"theta_star"`` to SymPy expressions in ``mu, lam`` (or None), and
    ``omega_star`` is the Hopf frequency at the worst delay.
    """

    L: object
    mu: sp.Rational
    lam: sp.Rational
    dps: int
    D_star: mpmath.mpf | None
    theta_star: mpmath.mpf
    omega_star: mpmath.mpf | None
    attained: bool
    closed_form: dict
    explanation: str

    def to_json(self) -> dict:
        cf = {k: (None if v is None else str(v)) for k, v in self.closed_form.items()}
        exact = {}
        for key, v in self.closed_form.items():
            exact[key] = (
                None if v is None else str(sp.nsimplify(v.subs({mu: self.mu, lam: self.lam})))
            )
        return {
            "L": _Lkey(self.L),
            "D_star": None if self.D_star is None else format_number(self.D_star, self.dps),
            "theta_star": format_number(self.theta_star, self.dps),
            "omega_star": format_number(self.omega_star, self.dps),
            "attained": self.attained,
            "closed_form": cf,
            "closed_form_at_parameters": exact,
            "explanation": self.explanation,
        }


@cache
def _worst_closed_form(L: int):
    """alpha_star from ``sin((L+1) alpha) = 0`` on the branch; then gamma, lam*theta, omega."""
    p = hopf_parametrisation(L)
    lo, hi = p.interval
    x = sp.Symbol("x")
    zeros = sp.solveset(sp.sin(x), x, sp.Interval((L + 1) * lo, (L + 1) * hi))
    cands = [z / (L + 1) for z in zeros if lo < z / (L + 1) < hi]
    if len(cands) != 1:
        raise VerificationError(f"expected one stationary point on the branch, got {cands}")
    a_star = cands[0]
    g_star = sp.simplify(p.gamma_of_alpha.subs(alpha, a_star))
    k_star = sp.simplify(p.lam_theta_of_alpha.subs(alpha, a_star))
    w_star = sp.simplify(p.omega_of_alpha.subs(alpha, a_star))
    return a_star, sp.simplify(L / g_star), sp.simplify(k_star / lam), w_star


def worst_delay(L, mu, lam, dps: int = 15) -> WorstDelay:
    """The delay D that minimises theta_c(D), and the minimum (closed form and numeric).

    Numerically the stationarity condition ``d log(lam theta)/d alpha = 0`` is solved on the
    branch by bracketed root finding; independently ``sin((L+1) alpha) = 0`` gives the
    closed form, and the two must agree.

    >>> w = worst_delay(3, 1, 1)
    >>> w.closed_form["D_star"], w.closed_form["theta_star"]
    (3/mu, 4*mu/lam)
    """
    Lv = as_L_or_inf(L)
    dps = as_dps(dps)
    m = as_positive_number("mu", mu)
    lm = as_positive_number("lam", lam)
    with mpmath.workdps(dps + GUARD):
        mm, lmm = _to_mpf(m), _to_mpf(lm)
        if Lv is INFINITE_L:
            lim = delay_limits(Lv).large_D_limit
            return WorstDelay(
                Lv,
                m,
                lm,
                dps,
                mpmath.inf,
                mm / lmm,
                mpmath.mpf(0),
                False,
                {"D_star": sp.oo, "theta_star": lim / _LAM},
                "L = oo: theta_c(D) decreases strictly in D; the infimum mu/lam is approached "
                "as D -> oo (omega -> 0) and not attained",
            )
        if not hopf_conditions(Lv).crosses:
            return WorstDelay(
                Lv,
                m,
                lm,
                dps,
                None,
                mpmath.inf,
                None,
                False,
                {"D_star": None, "theta_star": None},
                f"L = {Lv}: the Hopf phase never reaches pi, stable for every theta >= 0 and D > 0",
            )
        p = hopf_parametrisation(Lv)
        S = sp.lambdify(alpha, p.stationarity.xreplace(_P), "mpmath")
        lo, hi = (mpmath.mpf(sp.N(v, dps + GUARD)) for v in p.interval)
        eps = (hi - lo) * mpmath.mpf(10) ** (-8)
        a_num = mpmath.findroot(S, (lo + eps, hi - eps), solver="anderson")
        g_f = sp.lambdify((alpha, _P[_MU]), p.gamma_of_alpha.xreplace(_P), "mpmath")
        k_f = sp.lambdify((alpha, _P[_MU]), p.lam_theta_of_alpha.xreplace(_P), "mpmath")
        D_num = Lv / g_f(a_num, mm)
        th_num = k_f(a_num, mm) / lmm
        w_num = g_f(a_num, mm) * mpmath.tan(a_num)
        a_star, D_cf, th_cf, _ = _worst_closed_form(Lv)
        subs = {_MU: m, _LAM: lm}
        for num, cf in ((D_num, D_cf), (th_num, th_cf)):
            exact = mpmath.mpf(str(sp.N(cf.subs(subs), dps + GUARD)))
            if abs(num - exact) > abs(exact) * mpmath.mpf(10) ** (-(dps + 2)):
                raise VerificationError("numeric worst delay disagrees with the closed form")
        return WorstDelay(
            Lv,
            m,
            lm,
            dps,
            D_num,
            th_num,
            w_num,
            True,
            {"D_star": D_cf, "theta_star": th_cf},
            f"L = {Lv}: d log(lam theta_c)/d alpha = L sin((L+1) alpha)/(cos alpha cos L alpha) "
            f"vanishes once on the branch, at alpha = {a_star} (gamma = mu): a global minimum",
        )


@dataclass(frozen=True)
class WorstDelayTrend:
    """The worst delay for symbolic L and its behaviour as L -> oo (SymPy expressions).

    ``alpha_star = pi/(L+1)`` solves ``sin((L+1) alpha) = 0`` on the branch; there
    ``L alpha = pi - alpha``, which gives ``gamma_star``, ``D_star``, ``theta_star``;
    ``theta_star_limit`` is its limit as L -> oo and ``first_order`` the limit of
    ``L (theta_star - theta_star_limit)``.
    """

    L: sp.Symbol
    alpha_star: sp.Expr
    gamma_star: sp.Expr
    D_star: sp.Expr
    theta_star: sp.Expr
    omega_star: sp.Expr
    theta_star_limit: sp.Expr
    first_order: sp.Expr


@cache
def worst_delay_trend() -> WorstDelayTrend:
    """General-L worst delay and its L -> oo limits.

    >>> w = worst_delay_trend()
    >>> w.D_star, w.theta_star, w.theta_star_limit, w.first_order
    (L/mu, mu*cos(pi/(L + 1))**(-L - 1)/lam, mu/lam, pi**2*mu/(2*lam))
    """
    p = hopf_parametrisation(None)
    Ls = p.L
    a_star = sp.pi / (Ls + 1)

    def at_star(e):
        return sp.simplify(e.subs(Ls * alpha, sp.pi - alpha).subs(alpha, a_star))

    g_star = at_star(p.gamma_of_alpha)
    th_star = sp.simplify(at_star(p.lam_theta_of_alpha) / lam)
    w_star = at_star(p.omega_of_alpha)
    lim = sp.limit(th_star, Ls, sp.oo)
    first = sp.limit(Ls * (th_star - lim), Ls, sp.oo)
    return WorstDelayTrend(
        Ls, a_star, g_star, sp.simplify(Ls / g_star), th_star, w_star, lim, first
    )
