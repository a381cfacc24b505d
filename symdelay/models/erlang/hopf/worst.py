"""Worst-case mean delay D* and the delay-independent threshold theta*."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import mpmath

from symdelay.analysis.window import Extremum
from symdelay.core.display import latex_number
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp
from symdelay.core.params import (
    INFINITE_L,
    as_dps,
    as_L_or_inf,
    as_positive_number,
    exact_decimal,
    printable,
)
from symdelay.core.precision import GUARD
from symdelay.core.result import Result
from symdelay.core.symbols import lam, mu
from symdelay.models.erlang.hopf._common import _LAM, _MU, _P, _Lkey, _to_mpf, alpha
from symdelay.models.erlang.hopf.curve import format_exact, format_number
from symdelay.models.erlang.hopf.derivation import (
    delay_limits,
    hopf_conditions,
    hopf_parametrisation,
)


def _json_expr(v):
    """A SymPy value for JSON, infinity spelled ``inf`` like every number symdelay prints."""
    if v is None:
        return None
    if v in (sp.oo, -sp.oo):
        return "inf" if v == sp.oo else "-inf"
    return str(v)


def _exact_text(v, dps: int):
    """A closed form at exact parameters: exactly when short (``3e-40``, ``3/4``,
    ``4*sqrt(2)``), else its value to ``dps`` significant digits (all shown, so a rounded
    value never looks exact) computed from the exact expression, never through a float."""
    v = sp.sympify(v)
    if v in (sp.oo, -sp.oo):
        return _json_expr(v)
    if v.is_Rational:
        d = exact_decimal(v)
        if d is not None and len(d) <= 40:
            return d
    text = str(v) if printable(v, 60) else ""
    if text and len(text) <= 60:
        return text
    with mpmath.workdps(dps + GUARD):
        x = _to_mpf(v) if v.is_Rational else mpmath.mpf(str(sp.N(v, dps + GUARD)))
        return mpmath.nstr(x, dps, strip_zeros=False, min_fixed=-4, max_fixed=dps)


def _founding_extremum(
    name, L, m, lm, dps, D_star, theta_star, omega_star, attained, closed_form, why
):
    """The worst delay as the generic :class:`~symdelay.analysis.window.Extremum` (over
    ``D``, of ``theta``), with the founding record's own keys: ``L``, ``D_star``,
    ``theta_star``, ``omega_star``, ``closed_form`` (SymPy expressions in ``mu, lam``),
    ``closed_form_at_parameters``, ``explanation``. ``attained`` is False when the infimum
    is approached only as D -> oo (L = oo) or when no theta destabilises (L = 1:
    ``theta_star`` inf, ``D_star`` None)."""
    cf = {k: _json_expr(v) for k, v in closed_form.items()}
    exact = {
        key: None if v is None else _exact_text(v.subs({mu: m, lam: lm}), dps)
        for key, v in closed_form.items()
    }
    extra = {
        "L": _Lkey(L),
        "D_star": None if D_star is None else format_number(D_star, dps),
        "theta_star": format_number(theta_star, dps),
        "omega_star": format_number(omega_star, dps),
        "attained": attained,
        "closed_form": cf,
        "closed_form_at_parameters": exact,
        "explanation": why,
    }
    lower = upper = None
    D_cf = closed_form.get("D_star")
    if attained and D_cf is not None:
        exact_D = sp.Rational(D_cf.subs({mu: m, lam: lm}))
        if printable(exact_D):  # a bracket of exact rationals (1e20000: its value only)
            lower = upper = exact_D
    details = {
        "L": L,
        "mu": m,
        "lam": lm,
        "D_star": D_star,
        "theta_star": theta_star,
        "omega_star": omega_star,
        "closed_form": closed_form,
        "explanation": why,
    }
    details["latex"] = _latex(extra, closed_form, attained)
    return Extremum(
        name,
        "D",
        "theta",
        "min",
        {"mu": format_exact(m, dps), "lam": format_exact(lm, dps)},
        dps,
        D_star,
        lower,
        upper,
        theta_star,
        () if omega_star is None else (omega_star,),
        attained,
        (),
        (),
        "closed form: the founding model's Hopf parametrisation (sin((L+1) alpha) = 0)",
        (why,),
        extra,
        details,
    )


def _latex(rec, closed_form, attained) -> str:
    """The worst delay and the smallest critical theta, closed forms beside."""
    from symdelay.core.latex import tex as _tex

    def line(name, key):
        cf = closed_form.get(key)
        closed = "" if cf is None else f"{_tex(cf)} = "
        return rf"{name} = {closed}{latex_number(rec[key])}"

    lines = [
        line("D^*", "D_star"),
        line(r"\theta^*", "theta_star"),
        rf"\omega^* = {latex_number(rec['omega_star'])}",
    ]
    if not attained:
        lines.append(r"\text{(an infimum, not attained)}")
    return r"\begin{gathered}" + r" \\ ".join(lines) + r"\end{gathered}"


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
    g_star = sp.simplify(p.gamma_of_alpha.subs(alpha, a_star))
    k_star = sp.simplify(p.lam_theta_of_alpha.subs(alpha, a_star))
    w_star = sp.simplify(p.omega_of_alpha.subs(alpha, a_star))
    return a_star, sp.simplify(L / g_star), sp.simplify(k_star / lam), w_star


def worst_delay(L, mu, lam, dps: int = 15) -> Extremum:
    """The delay D that minimises theta_c(D), and the minimum (closed form and numeric): the
    founding model's :func:`symdelay.analysis.window.worst_delay` (its closed form).

    Numerically the stationarity condition ``d log(lam theta)/d alpha = 0`` is solved on the
    branch by bracketed root finding; independently ``sin((L+1) alpha) = 0`` gives the
    closed form, and the two must agree.

    >>> w = worst_delay(3, 1, 1)
    >>> w.closed_form["D_star"], w.closed_form["theta_star"]
    (3/mu, 4*mu/lam)
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
    missing = [n for n in ("mu", "lam") if o[n] is None]
    if missing:
        raise SymdelayInputError(
            "the worst delay of the founding model needs numbers for "
            + ", ".join(missing)
            + " (--"
            + ", --".join(missing)
            + ")"
        )
    return _closed(model.name, model.L, o["mu"], o["lam"], dps)


def _closed(name, L, mu, lam, dps):
    Lv = as_L_or_inf(L)
    dps = as_dps(dps)
    m = as_positive_number("mu", mu)
    lm = as_positive_number("lam", lam)
    with mpmath.workdps(dps + GUARD):
        mm, lmm = _to_mpf(m), _to_mpf(lm)
        if Lv is INFINITE_L:
            lim = delay_limits(Lv).large_D_limit
            return _founding_extremum(
                name,
                Lv,
                m,
                lm,
                dps,
                mpmath.inf,
                mm / lmm,
                mpmath.mpf(0),
                False,
                {"D_star": sp.oo, "theta_star": lim / _LAM},
                "L = inf: theta_c(D) decreases strictly in D; the infimum mu/lam is approached "
                "as D -> inf (omega -> 0) and not attained",
            )
        if not hopf_conditions(Lv).crosses:
            return _founding_extremum(
                name,
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
        a_star, D_cf, th_cf, _ = worst_delay_closed_form(Lv)
        subs = {_MU: m, _LAM: lm}
        for num, cf in ((D_num, D_cf), (th_num, th_cf)):
            exact = mpmath.mpf(str(sp.N(cf.subs(subs), dps + GUARD)))
            if abs(num - exact) > abs(exact) * mpmath.mpf(10) ** (-(dps + 2)):
                raise VerificationError("numeric worst delay disagrees with the closed form")
        return _founding_extremum(
            name,
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
class WorstDelayTrend(Result):
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
