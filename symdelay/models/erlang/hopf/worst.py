"""Worst-case mean delay D* and the delay-independent threshold theta*."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import mpmath

from symdelay.analysis.window import Extremum
from symdelay.core.errors import VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import (
    INFINITE_L,
    as_dps,
    as_L_or_inf,
    as_positive_number,
    printable,
)
from symdelay.core.precision import GUARD
from symdelay.core.result import Result
from symdelay.core.symbols import lam
from symdelay.models.erlang.hopf._common import _LAM, _MU, _P, _to_mpf, alpha, require_numbers
from symdelay.models.erlang.hopf.derivation import (
    delay_limits,
    hopf_conditions,
    hopf_parametrisation,
)


def worst_delay_closed_forms(model) -> dict:
    """The founding family's closed forms of the worst delay (its ``CLOSED_FORMS`` entry,
    attached by both paths of :func:`symdelay.analysis.window.worst_delay`): ``D_star``
    and ``theta_star`` in ``mu, lam`` (``D_star = oo`` for L = inf, an infimum; None for
    L = 1, where no theta destabilises).

    >>> worst_delay(3, 1, 1).closed_form
    ClosedForms({'D_star': 3/mu, 'theta_star': 4*mu/lam})
    """
    L = model.L
    if L is INFINITE_L or sp.oo == L:
        return {"D_star": sp.oo, "theta_star": delay_limits(INFINITE_L).large_D_limit / _LAM}
    if not isinstance(L, int) or not hopf_conditions(L).crosses:
        return {"D_star": None, "theta_star": None}
    _a, D_cf, th_cf, _w = worst_delay_closed_form(L)
    return {"D_star": D_cf, "theta_star": th_cf}


@cache
def worst_delay_closed_form(L: int):
    """alpha_star from ``sin((L+1) alpha) = 0`` on the branch; then gamma, lam*theta, omega."""
    p = hopf_parametrisation(L)
    lo, hi = p.interval
    x = sp.Symbol("x")
    zeros = sp.solveset(sp.sin(x), x, sp.Interval((L + 1) * lo, (L + 1) * hi))
    cands = [z / (L + 1) for z in zeros if lo < z / (L + 1) < hi]
    if len(cands) != 1:
        raise VerificationError(f"expected one stationary point on the branch, got {cands}")
    a_star = cands[0]
    # simplify's trigonometric rules expand cos(pi/(L+1))**(L+1) term by term: beyond a few
    # thousand phases the substituted forms (already cos/tan powers) are kept as they are
    tidy = sp.simplify if L <= SIMPLIFY_MAX_L else (lambda e: e)
    g_star = tidy(p.gamma_of_alpha.subs(alpha, a_star))
    k_star = tidy(p.lam_theta_of_alpha.subs(alpha, a_star))
    w_star = tidy(p.omega_of_alpha.subs(alpha, a_star))
    return a_star, tidy(L / g_star), tidy(k_star / lam), w_star


#: the largest L whose closed forms of the worst delay go through SymPy's simplify
SIMPLIFY_MAX_L = 1000


def worst_delay(L, mu, lam, dps: int = 15) -> Extremum:
    """The mean delay ``D*`` that minimises ``theta_c(D)`` for the founding model, and the
    minimum, in closed form and numerically: the convenience of :func:`symdelay.worst_delay`.

    Numerically the stationarity condition ``d log(lam theta)/d alpha = 0`` is solved on the
    branch by bracketed root finding; independently ``sin((L+1) alpha) = 0`` gives the closed
    form ``D* = L/mu``, and the two must agree.

    Parameters
    ----------
    L : int, str or float
        The number of Erlang phases, an integer ``>= 1`` (``L = 1`` has no Hopf crossing:
        no worst delay), or ``"inf"`` / ``math.inf`` (``theta_c`` decreases towards
        ``mu/lam`` as ``D -> inf``: approached, not attained).
    mu : number or str
        The service rate (``> 0``), made exact.
    lam : number or str
        The arrival rate per queue (``> 0``).
    dps : int, default 15
        Significant digits (5..10000) of ``D*`` and ``theta*``.

    Returns
    -------
    Extremum
        ``D_star``, ``theta_star`` and their ``closed_form``.

    Examples
    --------
    >>> w = worst_delay(3, 1, 1)
    >>> w.closed_form["D_star"], w.closed_form["theta_star"], w.to_json()["D_star"]
    (3/mu, 4*mu/lam, '3.00000000000000')
    """
    from symdelay.analysis.window import worst_delay as entry
    from symdelay.models.erlang.family import model

    return entry(model(L=L, mu=mu, lam=lam), "D", dps=dps, method="specialised")


def specialised_worst_delay(
    model, over="D", *, param="theta", lo=None, hi=None, dps=15, force=False
):
    """The founding model's worst delay over D (closed form, any L including inf);
    ``None`` (the generic extremum) for another parameter, a range or ``force``."""
    o = model.options
    if over != "D" or param != "theta" or lo is not None or hi is not None or force:
        return None
    if o["D"] is not None or o["theta"] is not None:
        return None
    require_numbers(o, ("mu", "lam"), "the worst delay")
    return _closed(model.name, model.L, o["mu"], o["lam"], dps)


def _closed(name, L, mu, lam, dps):
    Lv = as_L_or_inf(L)
    dps = as_dps(dps)
    m = as_positive_number("mu", mu)
    lm = as_positive_number("lam", lam)
    with mpmath.workdps(dps + GUARD):
        mm, lmm = _to_mpf(m), _to_mpf(lm)
        if Lv is INFINITE_L:
            found = (mpmath.inf, mm / lmm, mpmath.mpf(0), False)
            why = (
                "L = inf: theta_c(D) decreases strictly in D; the infimum mu/lam is approached "
                "as D -> inf (omega -> 0) and not attained"
            )
        elif not hopf_conditions(Lv).crosses:
            found = (None, mpmath.inf, None, False)
            why = (
                f"L = {Lv}: the Hopf phase never reaches pi, stable for every theta >= 0 and D > 0"
            )
        else:
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
            a_star, D_cf, th_cf, _ = worst_delay_closed_form(Lv)
            subs = {_MU: m, _LAM: lm}
            for num, cf in ((D_num, D_cf), (th_num, th_cf)):
                exact = mpmath.mpf(str(sp.N(cf.subs(subs), dps + GUARD)))
                if abs(num - exact) > abs(exact) * mpmath.mpf(10) ** (-(dps + 2)):
                    raise VerificationError("numeric worst delay disagrees with the closed form")
            found = (D_num, th_num, w_num, True)
            why = (
                f"L = {Lv}: d log(lam theta_c)/d alpha = L sin((L+1) alpha)/(cos alpha cos L "
                f"alpha) vanishes once on the branch, at alpha = {a_star} (gamma = mu): a global "
                "minimum"
            )
    # the worst delay as the one Extremum (over D, of theta; the family's closed forms are
    # attached by the entry): not attained when the infimum is only approached as D -> oo
    # (L = oo) or when no theta destabilises (L = 1: critical inf, x_star None); an attained
    # D* is L/mu, exact: its bracket is the point itself
    D_star, theta_star, omega_star, attained = found
    lower = upper = sp.Rational(Lv) / m if attained and printable(Lv / m) else None
    omega = () if omega_star is None else (omega_star,)
    point = (D_star, lower, upper, theta_star, omega, attained)
    how = "closed form: the founding model's Hopf parametrisation (sin((L+1) alpha) = 0)"
    return Extremum(name, "D", "theta", "min", {}, dps, *point, (), (), how, (why,))


@dataclass(frozen=True)
class WorstDelayTrend(Result):
    """The worst delay for symbolic L and its behaviour as L -> oo (SymPy expressions): a
    derivation of the founding family for every L at once (another question than the
    :class:`~symdelay.analysis.window.Extremum` of one model, whose closed forms it
    explains; the committed derivation and the report print it).

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
