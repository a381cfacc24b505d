"""The least critical value over a constant lag: ``worst-delay`` / ``extremum(kind="min")``
of a delay model whose mode function is ``F = P(r; p) + Q(r; p) exp(-g r tau)``.

``p_c(tau)`` is the first ``p > 0`` at which the equilibrium is unstable at the lag ``tau``.
With ``Q(r; 0) = 0`` and ``P(r; 0)`` stable (the equilibrium is stable at ``p = 0`` for
every lag; decided exactly) and ``deg_r Q < deg_r P`` (retarded: no root comes from
infinity), roots cross the imaginary axis only at ``r = i omega`` with
``|P(i omega; p)| = |Q(i omega; p)|``, i.e. ``H(s, p) = 0`` with ``s = omega^2`` (an exact
polynomial), and then at the lags ``tau = (arg(-Q/P) + 2 pi k) / (g omega)``, ``k`` any
integer giving ``tau > 0``. Every ``omega`` with a root ``p`` of ``H`` is realised by some
lag (``k`` large), so over ``tau in (0, oo)``

    inf_tau p_c(tau) = inf { p > 0 : H(s, p) = 0 for some s > 0 },

the lower end of the projection of the crossing curve on ``p``: the minimum of a lower
envelope is the least minimum of its branches, whatever ``k``. The projection's ends are
among the exact roots in ``p`` of ``Res_s(H, dH/ds)`` (a fold: two frequencies merge; the
minimum is *attained*, at ``omega*`` and the lags ``tau*_k``), of ``H(0, p)`` (``omega -> 0``:
the lag grows without bound; approached as ``tau -> oo``, *not attained*: the
delay-independent threshold) and of the leading coefficient of ``H`` in ``s``
(``omega -> oo``). The number of positive roots ``s`` is constant between consecutive
candidates (counted exactly at a rational point of each gap), so the first gap that has
one decides ``p*``. A machine check confirms it with the independent first-crossing
computation (:func:`symdelay.analysis.lagswitch.critical_lag_curve`): just below ``p*`` no lag
destabilises; just above, one does.

>>> from symdelay.core.lazy import sympy as sp
>>> r, D, th = sp.symbols("r D theta")
>>> e = lag_extremum(r + 1 + th * sp.exp(-r * D), D, th, dps=10)
>>> e.x_star, e.critical, e.attained
(mpf('+inf'), mpf('1.0'), False)
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath

from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.lazy import sympy as sp

__all__ = ["lag_extremum", "delay_worst", "exact_worst_refusal", "LagExtremum"]


@dataclass(frozen=True)
class LagExtremum:
    """The least critical value over a lag: ``x_star`` (the lag; ``inf`` when approached as
    it grows, None when no parameter value destabilises), ``critical`` (``p*``), ``omega``
    (the crossing frequency at a fold), ``attained``, ``notes`` and ``algorithm`` (what the
    entry's :class:`~symdelay.analysis.window.Extremum` record carries)."""

    x_star: object
    critical: object
    omega: tuple
    attained: bool
    notes: tuple
    algorithm: str


LAG_EXTREMUM_ALGORITHM = (
    "exact projection of the crossing curve |P(i w)| = |Q(i w)| on the parameter "
    "(Res_s(H, H_s), H(0, p), the leading coefficient; positive roots in s counted exactly "
    "in every gap), the lag at the fold from the phase (mpmath), checked by the certified "
    "first crossing just below and above"
)


def _refuse(msg):
    raise SymdelayInputError(msg)


def _parts(F, tau, param, var):
    """``(P, Q, g)``: ``F = P + Q exp(-g var tau)``, polynomials in ``var`` and ``param``."""
    from symdelay.analysis.lagswitch import lag_parts

    parts = lag_parts(F, tau, var, params=(param,))
    if parts.n != 1:
        _refuse(
            f"the worst {tau} needs F = P + Q exp(-r {tau}) (one power of the delay factor); "
            f"this mode has powers up to {parts.n}"
        )
    P = Q = sp.Integer(0)
    for (k, j, e), c in parts.terms.items():
        term = sp.Rational(c) * var**k * param**e
        if j == 0:
            P += term
        else:
            Q += term
    return sp.expand(P), sp.expand(Q), sp.Rational(parts.scale)


def _positive_roots(poly_s, s):
    """The number of roots of a polynomial in ``s`` (rational coefficients) in ``s > 0``."""
    P = sp.Poly(poly_s, s)
    if P.is_zero:
        return None
    n = P.count_roots(0, None)
    return n - (1 if P.eval(0) == 0 else 0)


def _rational_between(a, b):
    """A simple rational strictly between the reals ``a < b`` (``b`` None: above ``a``)."""
    if b is None:
        return sp.floor(a) + 1 if a >= 0 else sp.Integer(0)
    lo, hi = sp.Rational(0), sp.Rational(0)
    k = 1
    while True:
        lo = sp.Rational(sp.floor(a * 2**k), 2**k)
        hi = lo + sp.Rational(1, 2**k)
        if a < hi < b:
            return hi
        k += 1


def lag_extremum(F, tau, param, dps: int = 15, *, var=None, name: str = "F"):
    """The least critical ``param`` over the lag ``tau`` in ``(0, oo)`` (module docstring);
    the entry :func:`symdelay.analysis.window.extremum` makes it its Extremum record.

    Parameters
    ----------
    F : sympy.Expr
        One mode's characteristic function ``P + Q exp(-g var tau)``.
    tau : sympy.Symbol
        The lag (or the parameter of a constant lag).
    param : sympy.Symbol
        The parameter whose critical value is minimised.
    dps : int, default 15
        Significant digits.
    var : sympy.Symbol, optional
        The spectral variable (default ``r``).
    name : str, default "F"
        The model's name, in the messages.

    Returns
    -------
    LagExtremum
        ``x_star`` (``inf`` when the minimum is approached as the lag grows), ``critical``
        (``p*``, exact algebraic, to ``dps`` digits), ``omega``, ``attained``.
    """
    from symdelay.analysis.polyroots import exact_counts
    from symdelay.core.params import as_dps
    from symdelay.core.precision import GUARD
    from symdelay.core.symbols import r as R_SYMBOL

    dps = as_dps(dps)
    var = R_SYMBOL if var is None else var
    P, Q, g = _parts(F, tau, param, var)
    if Q.subs(param, 0) != 0:
        _refuse(
            f"the delayed part of {name} does not vanish at {param} = 0: the worst {tau} "
            f"needs a {param} that switches the delayed feedback on"
        )
    if sp.degree(Q, var) >= sp.degree(P, var):
        _refuse(
            f"{name} is neutral in {tau} (the delayed part has the degree of the rest): the "
            f"worst {tau} is for retarded equations"
        )
    P0 = sp.Poly(P.subs(param, 0), var)
    base = exact_counts([sp.Rational(c) for c in P0.all_coeffs()])
    if base.rhp or base.axis:
        _refuse(
            f"{name} at {param} = 0 has {base.rhp} roots in Re r > 0 and {base.axis} on the "
            f"axis: {param}_c is 0 at every {tau}, there is nothing to minimise"
        )
    w = sp.Symbol("_w", real=True)
    p = sp.Symbol("_p", real=True)
    s = sp.Symbol("_s")
    Pw = sp.expand(P.subs({var: sp.I * w, param: p}))
    Qw = sp.expand(Q.subs({var: sp.I * w, param: p}))
    H2 = sp.expand(sp.re(Pw) ** 2 + sp.im(Pw) ** 2 - sp.re(Qw) ** 2 - sp.im(Qw) ** 2)  # even in w
    Hw = sp.Poly(H2, w, p)
    H = sp.Integer(0)
    for (ew, ep), c in Hw.terms():
        if ew % 2:
            raise VerificationError("|P(iw)|^2 - |Q(iw)|^2 has an odd power of w")
        H += c * s ** (ew // 2) * p**ep
    H = sp.sqf_part(sp.expand(H), s, p) if H.free_symbols >= {s, p} else sp.expand(H)
    Hs = sp.Poly(H, s)
    fold = sp.Poly(sp.resultant(H, sp.diff(H, s), s), p) if Hs.degree() > 1 else None
    end0 = sp.Poly(H.subs(s, 0), p)
    lead = sp.Poly(Hs.LC(), p)
    cands = set()
    tags: dict = {}
    for tag, poly in (("fold", fold), ("zero", end0), ("infinity", lead)):
        if poly is None or poly.is_zero or poly.degree() < 1:
            continue
        for root in sp.Poly(poly, p).real_roots():
            if root > 0:
                cands.add(root)
                tags.setdefault(root, set()).add(tag)
    cands = sorted(cands, key=lambda v: sp.N(v, 30))
    bounds = [sp.Integer(0), *cands]
    first = None
    for i, a in enumerate(bounds):
        b = bounds[i + 1] if i + 1 < len(bounds) else None
        q = _rational_between(a, b)
        n = _positive_roots(H.subs(p, q), s)
        if n:
            first = i
            break
    notes = []
    with mpmath.workdps(dps + GUARD):
        if first is None:
            notes.append(f"no {param} > 0 puts a root on the imaginary axis at any {tau}")
            return LagExtremum(None, mpmath.inf, (), False, tuple(notes), LAG_EXTREMUM_ALGORITHM)
        if first == 0:
            raise VerificationError(
                f"crossings for arbitrarily small {param}: the stability at {param} = 0 "
                "was proved, so this is a bug"
            )
        pstar = bounds[first]
        kinds = tags[pstar]
        pval = mpmath.mpf(sp.N(pstar, dps + GUARD + 5))
        if kinds == {"zero"}:
            ratio = -(P.subs({var: 0, param: pstar})) / Q.subs({var: 0, param: pstar})
            if sp.simplify(ratio - 1) == 0:
                _refuse(
                    f"at {param}* = {sp.N(pstar, dps)} r = 0 is a root for every {tau}: the "
                    "worst lag is not decided by crossings"
                )
            x_star, omega, attained = mpmath.inf, (), False
            notes.append(
                f"the minimum is approached as {tau} -> oo and not attained: {param}_c({tau}) "
                f"> {param}* for every {tau} > 0 and tends to {param}* (the crossing "
                f"frequency tends to 0); {param}* is the positive root of |P(0)| = |Q(0)| "
                f"at {param} = {pstar} (exact)"
            )
        elif kinds == {"fold"}:
            # the double root s* of H(s, p*): a simple root of dH/ds (full precision),
            # where H vanishes too
            Hf = sp.Poly(H.subs(p, pval), s)
            dHf = Hf.diff(s)
            ss = [
                z.real
                for z in mpmath.polyroots(
                    [mpmath.mpf(sp.N(c, dps + GUARD + 5)) for c in dHf.all_coeffs()],
                    maxsteps=200,
                    extraprec=4 * dps,
                )
                if abs(z.imag) < mpmath.mpf(10) ** (-dps) and z.real > 0
            ]
            ss = [x for x in ss if abs(Hf.eval(x)) < mpmath.mpf(10) ** (-dps // 2) * (1 + x)]
            if not ss:
                raise VerificationError("no double root s > 0 at a fold of the crossing curve")
            sstar = min(ss, key=lambda x: abs(Hf.eval(x)))
            om = mpmath.sqrt(sstar)
            Pv = complex_eval(P, var, param, pval, om)
            Qv = complex_eval(Q, var, param, pval, om)
            # e^{-i g om tau} = -P/Q
            phase = -mpmath.arg(-Pv / Qv)
            two_pi = 2 * mpmath.pi
            phase = phase % two_pi
            if phase == 0:
                phase = two_pi
            x_star = phase / (mpmath.mpf(int(g.p)) / int(g.q) * om)
            omega, attained = (om,), True
            period = two_pi / (mpmath.mpf(int(g.p)) / int(g.q) * om)
            notes.append(
                f"attained at a fold of the crossing curve (two crossing frequencies merge), "
                f"at {tau}* and at every {tau}* + k {mpmath.nstr(period, 8)}, k = 1, 2, ..."
            )
        else:
            _refuse(
                f"the least critical {param} over {tau} is at a degenerate end of the crossing "
                f"curve ({', '.join(sorted(kinds))}): not decided by this analysis"
            )
        _check(F, tau, param, var, pstar, dps)
    return LagExtremum(x_star, pval, tuple(omega), attained, tuple(notes), LAG_EXTREMUM_ALGORITHM)


def complex_eval(E, var, param, pval, om):
    """``E(i om; pval)`` in mpmath (a polynomial with rational coefficients)."""
    poly = sp.Poly(E, var, param)
    total = mpmath.mpc(0)
    for (k, e), c in poly.terms():
        total += mpmath.mpf(sp.Rational(c).p) / sp.Rational(c).q * (1j * om) ** k * pval**e
    return total


def _check(F, tau, param, var, pstar, dps):
    """The independent first crossing: no lag destabilises just below ``p*``, one does just
    above (:func:`~symdelay.analysis.lagswitch.critical_lag_curve`)."""
    from symdelay.analysis.lagswitch import critical_lag_curve

    below = sp.Rational(sp.floor(sp.N(pstar, 30) * (1 - sp.Rational(1, 10**6)) * 10**12), 10**12)
    above = sp.Rational(sp.ceiling(sp.N(pstar, 30) * (1 + sp.Rational(1, 10**3)) * 10**12), 10**12)
    (tb, _wb), (ta, _wa) = critical_lag_curve(
        F, tau, param, [below, above], dps=min(dps, 15), var=var
    )
    if not (tb == mpmath.inf and ta < mpmath.inf):
        raise VerificationError(
            f"the first crossing disagrees with {param}* = {sp.N(pstar, 12)}: critical lag "
            f"{tb} just below, {ta} just above"
        )


def delay_worst(model, over, param, kind, lo, hi, param_lo, param_hi, dps):
    """``extremum`` of a delay model (the entry's delay path): ``kind="min"`` over a
    constant lag's parameter on its whole domain, ``param`` from 0 (module docstring)."""
    from symdelay.analysis.polyroots import exact_counts
    from symdelay.model.core import _symbol

    x, p = _symbol(over), _symbol(param)
    for sym, nm in ((x, over), (p, param)):
        if sym not in model.domains:
            _refuse(
                f"'{nm}' is not a parameter of {model.name}: use one of "
                + ", ".join(str(q) for q in model.parameters)
            )
        if sym in model.values:
            _refuse(f"{nm} has a value ({model.values[sym]}) in {model.name}: leave it free")
    if kind != "min":
        _refuse(
            f"extremum kind={kind!r} of a delay model is not available: the delay path gives "
            f"the least critical {param} over a lag (kind='min', worst-delay)"
        )
    if lo is not None or hi is not None or param_hi is not None or not _zero(param_lo):
        _refuse(
            f"the worst {over} of a delay model is over its whole domain (0, oo) and {param} "
            f"from 0: leave lo, hi, param_lo and param_hi out (--lo, --hi of worst-delay)"
        )
    free = [q for q in model.free_parameters if q not in (x, p)]
    if free:
        _refuse("give numbers for " + ", ".join(map(str, free)) + " (every other parameter)")
    lagged, other = [], []
    for f in model.characteristic_factors:
        (lagged if any(x in e.free_symbols for e in f.factor.atoms(sp.exp)) else other).append(f)
    if len(lagged) != 1:
        _refuse(
            f"{model.name} has {len(lagged)} mode functions with a lag in {over}: the worst "
            f"{over} takes exactly one"
        )
    from symdelay.core.symbols import r

    for f in other:
        if f.factor.free_symbols - {r}:
            _refuse(f"the {f.mode} mode depends on {param} or {over} without the lag")
        coeffs = [sp.Rational(c) for c in sp.Poly(f.factor, r).all_coeffs()]
        c = exact_counts(coeffs)
        if c.rhp or c.axis:
            _refuse(f"the {f.mode} mode is unstable for every {param}: nothing to minimise")
    return lag_extremum(lagged[0].factor, x, p, dps, var=r, name=model.name)


def exact_worst_refusal(model, over, param) -> str | None:
    """None when the exact projection (:func:`delay_worst`) applies to the worst ``over``
    (``over`` the parameter of one constant lag, ``F = P + Q exp(-g r over)``), or when
    ``over`` is not a lag's parameter (:func:`delay_worst` then refuses as before);
    otherwise the one line saying why not (a distributed lag, a second fixed lag, a neutral
    equation): the entry then takes :func:`symdelay.analysis.lagparam.lag_worst`."""
    from symdelay.analysis.lagswitch import lag_parts
    from symdelay.model.core import _symbol

    x, p = _symbol(over), _symbol(param)
    if not any(x in lag.parameters() for lag in model.lags.values()):
        return None
    F = sp.Mul(*[f.factor for f in model.characteristic_factors])
    try:
        lag_parts(F, x, params=(p,))
    except SymdelayInputError as exc:
        if "besides" in str(exc):  # other parameters without numbers: refused downstream
            return None
        return str(exc)
    return None


def _zero(v) -> bool:
    from symdelay.core.params import as_parameter

    try:
        return as_parameter("param_lo", v, positive=False) == 0
    except SymdelayInputError:
        return False
