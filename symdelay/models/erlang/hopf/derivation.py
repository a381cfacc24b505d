"""SymPy derivations: Hopf conditions, the explicit crossing curve, closed forms, limits in D."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import INFINITE_L, as_L, as_L_or_inf
from symdelay.core.result import Result
from symdelay.core.symbols import D, gamma, lam, mu, r, theta
from symdelay.models.erlang.charpoly import characteristic_polynomial, infinite_L_limit
from symdelay.models.erlang.hopf._common import _P, _k, _Lpos, _plain, alpha, omega


@dataclass(frozen=True)
class HopfConditions(Result):
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
class HopfParametrisation(Result):
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
class DelayLimits(Result):
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
