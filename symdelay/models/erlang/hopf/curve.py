"""Critical theta curves theta_c(D) with the Hopf frequency, to any precision.

One algorithm, two number types. The phase condition derived in
:func:`~symdelay.models.erlang.hopf.derivation.hopf_conditions` is a sum of arctangents (plus ``omega D``
for the DDE); :func:`_phase_terms` reads its terms off the SymPy expression, and
:func:`_phase_structure` writes them down without running the derivation (tests check the two
agree), so the numeric path needs no SymPy work. The residual

    f(omega) = sum_i m_i atan(omega / a_i) [+ omega D] - pi,     a_i in {mu, gamma},

is evaluated without cancellation at any scale: ``atan(q) = pi/2 - atan(1/q)`` for
``q > 1`` and the multiples of ``pi/2`` are summed as an integer first, so the parts that
nearly cancel at extreme delays (``D = 1e-300``, ``D = 1e300``, ``mu = 1e308``) are small
numbers computed to full relative precision. The root is found by Newton in ``log omega``
(the derivative ``omega f'(omega)`` is as well conditioned), safeguarded by geometric
bisection in a proved bracket; then ``lam theta_c = prod_i |i omega + a_i|^{m_i} / gamma^L``.

:func:`specialised_critical` (the founding model's fast path of
:func:`symdelay.analysis.critical.critical`, and so of :func:`critical_theta`) runs it in
mpmath at ``dps`` + guard digits and rounds once, when printing; with ``float64=True`` it runs the same code on float64 numpy arrays (for plots and
scans), and recomputes in mpmath the points whose numbers leave the float range.

>>> p = critical_theta(2, 1, 1, ["1e6"]).points[0]
>>> format_number(p.theta_c, 15), format_number(p.omega, 15)
('1000004.00000400', '0.00200000099999975')
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import cache

import mpmath

from symdelay.analysis.critical import (
    ColumnPoints,
    CriticalCurve,
    CriticalPoint,
    CurveFactor,
    critical_record,
    point_label,
)
from symdelay.core.errors import SymdelayInputError, VerificationError
from symdelay.core.exact import exact_fraction
from symdelay.core.exact import to_float as _float
from symdelay.core.lazy import loaded, module
from symdelay.core.lazy import sympy as sp
from symdelay.core.numbers import format_exact, format_number  # noqa: F401
from symdelay.core.params import as_dps, as_positive_number, is_infinite_L
from symdelay.core.precision import GUARD

np = module("numpy")  # imported at first use: a few delays are solved in mpmath alone

# The numeric path (the solver, the entry's fast path, the float curve) needs no SymPy: its
# inputs are the model's checked Fractions; the derivation it is checked against, the closed
# forms and inputs given as SymPy expressions import what they need where they need it.


@cache
def _phase_terms(L):
    """The derived phase as ``((m_i, name_i), ...), linear``: ``sum m_i atan(omega/name_i)``
    plus ``omega D`` when ``linear`` (L = oo). The modulus is checked to be the product of
    the matching factors ``|i omega + a_i|^m_i`` (over ``gamma^L``) for small L.

    >>> _phase_terms(3)
    (((3, 'gamma'), (1, 'mu')), False)
    >>> _phase_terms(sp.oo)
    (((1, 'mu'),), True)
    """
    from symdelay.core.symbols import D, gamma, mu
    from symdelay.models.erlang.hopf._common import _P, omega
    from symdelay.models.erlang.hopf.derivation import hopf_conditions

    names = {"mu": _P[mu], "gamma": _P[gamma]}
    h = hopf_conditions(L)
    back = {v: k for k, v in names.items()}
    terms, linear = [], False
    for term in sp.Add.make_args(sp.expand(h.phase)):
        c, rest = term.as_coeff_Mul()
        if isinstance(rest, sp.atan) and c.is_Integer and sp.cancel(omega / rest.args[0]) in back:
            terms.append((int(c), back[sp.cancel(omega / rest.args[0])]))
        elif sp.expand(term - omega * _P[D]) == 0:
            linear = True
        else:
            raise VerificationError(f"unexpected term {term} in the Hopf phase")
    terms.sort(key=lambda t: t[1])
    if is_infinite_L(L) or L <= 6:
        mod = sp.Mul(*(sp.sqrt(names[n] ** 2 + omega**2) ** m for m, n in terms))
        if not is_infinite_L(L):
            mod = mod / _P[gamma] ** L
        if sp.simplify(mod - h.lam_theta) != 0:
            raise VerificationError("the Hopf modulus is not the product of the phase factors")
    return tuple(terms), linear


class _Doubles:
    """float64 numpy arrays (NumPy imported at the first use): ``atan`` is numpy's
    ``arctan``, every other function numpy's of the same name."""

    pi = math.pi
    tol = 1e-14
    maxit = 200

    def __getattr__(self, name):
        return getattr(np, "arctan" if name == "atan" else name)

    @staticmethod
    def all(x):
        return bool(np.all(x))


_Float = _Doubles()


class _Mp:
    """mpmath scalars at the working precision in force when it is created."""

    atan, sqrt = staticmethod(mpmath.atan), staticmethod(mpmath.sqrt)
    exp, tan = staticmethod(mpmath.exp), staticmethod(mpmath.tan)
    minimum, maximum = staticmethod(min), staticmethod(max)

    def __init__(self):
        self.pi = +mpmath.pi
        # Newton converges quadratically: once a step is below 10^-(dps/2 + 2) the value
        # after it is right to about 10^-(dps + 4), so the step is taken and the loop ends
        self.tol = mpmath.mpf(10) ** (-(mpmath.mp.dps // 2 + 2))
        self.maxit = 4 * mpmath.mp.prec + 200

    @staticmethod
    def where(c, a, b):
        return a if c else b

    @staticmethod
    def all(x):
        return bool(x)


def _residual(w, scales, lin, xp, n=1):
    """``f(omega)`` (multiples of pi/2 summed exactly) and ``omega f'(omega)``; ``n``: the
    branch, whose phase is ``n pi`` (1: the critical curve)."""
    K, rem, dlog = 0, 0, 0
    for m, a in scales:
        q = w / a
        big = q > 1
        K = K + m * xp.where(big, 1, 0)
        rem = rem + m * xp.where(big, -xp.atan(1 / q), xp.atan(q))
        dlog = dlog + m / (q + 1 / q)
    if lin is not None:
        rem = rem + w * lin
        dlog = dlog + w * lin
    return (K - 2 * n) * (xp.pi / 2) + rem, dlog


def _bracket(L, m, g, Dv, xp, n=1):
    """A proved bracket of the frequency of branch ``n`` (phase ``n pi``; every phase term
    increases with omega).

    Finite L (``n < (L+1)/2``): the phase is <= n pi at ``min(gamma, mu) tan(n pi/(L+1))``
    and >= n pi at ``max(...)``; for ``2n < L`` also ``gamma tan((2n-1) pi/(2L)) < omega <
    gamma tan(n pi/L)`` (``atan(omega/mu)`` lies in ``(0, pi/2)``). DDE: ``(2n-1) pi/(2D) <
    omega < n pi/D``. Widened by 1e-8 against rounding.
    """
    if is_infinite_L(L):
        lo, hi = xp.pi / (2 * Dv) * (2 * n - 1), xp.pi / Dv * n
    else:
        c = xp.tan(xp.pi * n / (L + 1))
        lo, hi = xp.minimum(g, m) * c, xp.maximum(g, m) * c
        if 2 * n < L:
            lo = xp.maximum(lo, g * xp.tan(xp.pi * (2 * n - 1) / (2 * L)))
            hi = xp.minimum(hi, g * xp.tan(xp.pi * n / L))
    return lo * (1 - 1e-8), hi * (1 + 1e-8)


def _solve(L, m, g, Dv, xp, w0=None, n=1):
    """``(omega, |lam theta|)`` on branch ``n`` (1: the critical curve): Newton in log omega,
    geometric bisection as safeguard."""
    terms, linear = _phase_structure(L)
    scales = [(k, m if n == "mu" else g) for k, n in terms]
    lin = Dv if linear else None
    lo, hi = _bracket(L, m, g, Dv, xp, n)
    mid = xp.sqrt(lo) * xp.sqrt(hi)
    w = mid if w0 is None else xp.where((w0 > lo) & (w0 < hi), w0, mid)
    for _ in range(xp.maxit):
        f, d = _residual(w, scales, lin, xp, n)
        lo = xp.where(f < 0, w, lo)
        hi = xp.where(f > 0, w, hi)
        step = f / d
        wn = w * xp.exp(-step)
        inside = (wn >= lo) & (wn <= hi)
        done = inside & (abs(step) <= xp.tol)
        w = xp.where(inside, wn, xp.sqrt(lo) * xp.sqrt(hi))
        if xp.all(done | (hi <= lo * (1 + xp.tol))):
            break
    else:
        raise VerificationError("Newton iteration on the Hopf phase did not converge")
    k = 1
    for e, a in scales:
        q = w / a
        s = xp.where(q > 1, q * xp.sqrt(1 + 1 / (q * q)), xp.sqrt(1 + q * q))  # sqrt(1+q^2)
        k = k * (s**e if a is g and lin is None else (a * s) ** e)
    return w, k


#: Largest L whose critical lam*theta has a closed form (Hopf polynomial of degree <= 2).
_CLOSED_MAX_L = 5


def _phase_structure(L):
    """The terms of the Hopf phase, as :func:`_phase_terms` reads them off the derivation,
    without running it: ``L atan(omega/gamma) + atan(omega/mu)`` for finite L,
    ``atan(omega/mu) + omega D`` for L = oo (tests/test_hopf_critical.py checks the two
    agree). The numeric path needs no SymPy derivation.

    >>> _phase_structure(3) == _phase_terms(3)
    True
    """
    if is_infinite_L(L):
        return ((1, "mu"),), True
    return ((L, "gamma"), (1, "mu")), False


def _crosses(L) -> bool:
    """Whether some theta > 0 destabilises (:attr:`HopfConditions.crosses`: the phase's
    supremum ``(L + 1) pi / 2`` exceeds pi, i.e. ``L >= 2``; always for L = oo).

    >>> [_crosses(n) for n in (1, 2)], _crosses(sp.oo)
    ([False, True], True)
    """
    return is_infinite_L(L) or L >= 2


def critical_closed_forms(model) -> dict:
    """The founding family's closed forms of the critical theta (its ``CLOSED_FORMS``
    entry, attached by both paths of :func:`symdelay.analysis.critical.critical`):
    ``critical_lam_theta``, ``lam*theta_c(mu, gamma)``, the smallest positive root of the
    Hopf polynomial when SymPy gives it in radicals (``2 <= L <= 5``, see
    :attr:`symdelay.analysis.stability.Stability.critical_lam_theta`), and ``theta_c_of_D``,
    it at ``gamma = L/D`` and this model's ``mu``, divided by its ``lam`` (None when its
    numbers are too long to print). None for ``L = 1`` (no crossing), ``L >= 6`` and
    ``L = inf`` (no closed form).

    >>> f = critical_theta(2, 1, 1, [2]).closed_forms
    >>> f["critical_lam_theta"], f["theta_c_of_D"]
    (2*(gamma + mu)**2/gamma, (D + 2)**2/D)
    """
    from symdelay.core.exact import printable

    L = model.phases
    none = {"critical_lam_theta": None, "theta_c_of_D": None}
    if is_infinite_L(L) or not isinstance(L, int) or not 2 <= L <= _CLOSED_MAX_L:
        return none
    from symdelay.core.symbols import D, gamma, lam, mu
    from symdelay.models.erlang.stability import founding_closed_forms

    k_c = founding_closed_forms(L)["critical_lam_theta"]
    if k_c is None:  # pragma: no cover - a closed form exists for 2 <= L <= 5
        return none
    o = model.numbers
    m = mu if o["mu"] is None else _sympy_number(o["mu"])
    lm = lam if o["lam"] is None else _sympy_number(o["lam"])
    th = sp.factor(k_c.subs({gamma: L / D, mu: m}) / lm)
    return {"critical_lam_theta": k_c, "theta_c_of_D": th if printable(th) else None}


def _sympy_number(v):
    return sp.Rational(v.numerator, v.denominator) if isinstance(v, Fraction) else v


def _mpf(x) -> mpmath.mpf:
    """An exact number (a ``Fraction`` without SymPy) at the current working precision."""
    if isinstance(x, Fraction | int) and not isinstance(x, bool):
        return mpmath.mpf(x.numerator) / x.denominator
    from symdelay.models.erlang.hopf._common import _to_mpf

    return _to_mpf(x)


#: from this many delays on (or once NumPy is imported anyway), the mpmath Newton runs start
#: from one float64 run over all of them; fewer start from the proved bracket without
#: importing NumPy (the same answer to the digits asked: the seed only saves iterations, the
#: bracket safeguards every step)
_SEED_POINTS = 8


def _is_array(x) -> bool:
    return loaded("numpy") and isinstance(x, np.ndarray)


def _positive(name: str, value):
    """A positive number for the numeric path: the ``Fraction`` a number denotes (no SymPy),
    or the exact SymPy number of anything else (an expression: refused if not a number)."""
    try:
        f = exact_fraction(name, value)
    except SymdelayInputError:
        f = None  # not a plain number: as_positive_number says what it is
    return f if f is not None and f > 0 else as_positive_number(name, value)


def _as_D_list(Dv):
    if isinstance(Dv, (str, bytes)) or not (isinstance(Dv, Sequence) or _is_array(Dv)):
        Dv = [Dv]
    out = []
    for d in Dv:
        if loaded("numpy") and isinstance(d, np.floating):
            d = float(d)
        if isinstance(d, mpmath.mpf):  # exact binary value of an mpmath number
            if not mpmath.isfinite(d):
                raise SymdelayInputError(f"D must be a finite positive number, got {d}")
            d = Fraction(int(d.man)) * Fraction(2) ** int(d.exp) if d != 0 else Fraction(0)
        out.append(_positive("D", d))
    if not out:
        raise SymdelayInputError("D must list at least one positive delay, e.g. --D 0.5,1,2")
    return out


def _solve_mp(L, m, g, Dv, w0=None):
    """The mpmath run of :func:`_solve` at the current working precision (scalars)."""
    return _solve(L, m, g, Dv, _Mp(), w0)


def _float_curve(L, mq, lq, Dv):
    """float64 ``(theta_c, omega)`` arrays at the delays ``Dv`` (a float array): the same
    solver vectorised in float64 (about 14 digits, no certificate); points whose numbers
    leave the float range are recomputed in mpmath and rounded to float (``inf`` if
    theta_c itself exceeds it). ``theta_c = inf``, ``omega = nan`` where no theta
    destabilises (L = 1)."""
    if not (np.all(np.isfinite(Dv)) and np.all(Dv > 0)):
        raise SymdelayInputError("D must be positive and finite")
    if not _crosses(L):
        return np.full(Dv.shape, np.inf), np.full(Dv.shape, np.nan)
    m, lm = _float(mq), _float(lq)
    with np.errstate(all="ignore"):
        g = Dv if is_infinite_L(L) else L / Dv
        x = np.where(np.isfinite(g) & (g > 0), g, 1.0)
        w, k = _solve(L, m, x, Dv, _Float)
        th = k / lm
    bad = ~(np.isfinite(g) & (g > 0) & np.isfinite(w) & (w > 0) & np.isfinite(th) & (th > 0))
    bad |= not (np.isfinite(m) and m > 0 and np.isfinite(lm) and lm > 0)
    if bad.any():
        with mpmath.workdps(17 + GUARD):
            mm, lmm = _mpf(mq), _mpf(lq)
            for i in np.flatnonzero(bad.ravel()):
                d = mpmath.mpf(float(Dv.ravel()[i]))
                wi, ki = _solve_mp(L, mm, None if is_infinite_L(L) else L / d, d)
                th.ravel()[i], w.ravel()[i] = float(ki / lmm), float(wi)
    return th, w


def specialised_critical(model, param="theta", over="D", at=None, dps=15, float64=False):
    """The founding model's critical theta at each mean delay (``at``; None: the model's
    own ``D``): the Hopf phase solved by Newton in mpmath at ``dps`` + guard digits (seeded
    by the float64 run of the same solver), rounded once when printed, so every printed
    digit is right; ``L = inf`` too. ``float64``: the same solver run in float64 over all
    the delays at once (plots, scans; about 14 digits, the record's ``dps`` says 14).
    Declines (None) another parameter or another swept option.
    """
    if param != "theta" or over != "D":
        return None
    o = model.numbers
    if o["theta"] is not None:
        raise SymdelayInputError(f"theta has a value ({o['theta']}): leave it free")
    missing = [n for n in ("mu", "lam") if o[n] is None]
    if at is None and o["D"] is None:
        missing.append("D")
    if missing:
        raise SymdelayInputError(
            "the critical theta needs numbers for " + ", ".join(missing) + ": give them"
        )
    Lv = model.phases  # math.inf for the limit: no SymPy on this path
    dps = as_dps(dps)
    m = _positive("mu", o["mu"])
    lm = _positive("lam", o["lam"])
    factor = (_difference_factor(Lv, m, lm, o["D"]),)
    if float64:
        Dv = np.asarray([float(o["D"])] if at is None else at, dtype=float)
        th, w = _float_curve(Lv, m, lm, Dv)
        pts = ColumnPoints(None if at is None else Dv, th, w, "difference")
        return critical_record(model, "theta", "D", pts, 14, "specialised", factor)
    given = [o["D"]] if at is None else list(at)
    Ds = _as_D_list(given)
    texts = [point_label(d) for d in given]
    if at is None:  # the model's own delay: a point without a swept value, as every path's
        texts = [None]

    def curve(points):
        return critical_record(model, "theta", "D", points, dps, "specialised", factor)

    with mpmath.workdps(dps + GUARD):
        Dm = [_mpf(d) for d in Ds]
        if not _crosses(Lv):
            return curve(
                CriticalPoint(None if t is None else d, mpmath.inf, None, "difference", label=t)
                for d, t in zip(Dm, texts)
            )
        mm, lmm = _mpf(m), _mpf(lm)
        seeds = [None] * len(Dm)
        if len(Dm) >= _SEED_POINTS or loaded("numpy"):  # float64 seeds where numbers fit
            with np.errstate(all="ignore"):
                Df = np.array([float(d) for d in Dm])
                ok = np.isfinite(Df) & (Df > 1e-250) & (Df < 1e250) & (1e-250 < _float(m) < 1e250)
                if ok.any():
                    gf = Df if is_infinite_L(Lv) else Lv / Df
                    w_f, _ = _solve(
                        Lv, _float(m), np.where(ok, gf, 1.0), np.where(ok, Df, 1.0), _Float
                    )
                    seeds = [
                        mpmath.mpf(float(w)) if good and np.isfinite(w) else None
                        for w, good in zip(w_f, ok)
                    ]
        pts = []
        for i, d in enumerate(Dm):
            w0 = seeds[i]
            w, k = _solve_mp(Lv, mm, None if is_infinite_L(Lv) else Lv / d, d, w0)
            at_d = None if texts[i] is None else d
            pts.append(CriticalPoint(at_d, k / lmm, w, "difference", label=texts[i]))
        return curve(pts)


def _exact_text(x) -> str:
    """An exact number as SymPy text, also beyond Python's printing of long integers."""
    try:
        return str(x)
    except ValueError:  # 1e20000: flint prints it
        import flint

        return str(flint.fmpq(x.numerator, x.denominator))


def _difference_factor(L, mu, lam, D) -> CurveFactor:
    """The difference mode's characteristic function as text (no SymPy): ``(r + mu)(r +
    gamma)^L + lam theta gamma^L`` (``gamma = L/D`` when ``D`` is given), ``r + mu + lam
    theta exp(-r D)`` for ``L = inf``."""

    def num(x):
        plain = isinstance(x, int | Fraction) and x >= 0 and Fraction(x).denominator == 1
        return _exact_text(x) if plain else f"({_exact_text(x)})"

    if is_infinite_L(L):
        d = "D" if D is None else num(D)
        return CurveFactor(f"r + {num(mu)} + {num(lam)}*theta*exp(-{d}*r)", "difference")
    g = "gamma" if D is None else num(Fraction(L) / D)
    text = f"(r + {num(mu)})*(r + {g})**{L} + {num(lam)}*theta*{g}**{L}"
    return CurveFactor(text, "difference")


def critical_theta(L, mu, lam, D, dps: int = 15) -> CriticalCurve:
    """The critical routing sensitivity ``theta_c`` and the Hopf frequency of the founding model
    at each mean delay ``D``: the convenience of :func:`symdelay.critical` over ``D``
    (another model: ``critical(build_model(name, ...), at=D)``).

    Parameters
    ----------
    L : int, str or float
        The number of Erlang phases, an integer ``>= 1``, or ``"inf"`` / ``math.inf`` (the
        delay equation). At ``L = 1`` no ``theta`` destabilises (``theta_c = inf``).
    mu : number or str
        The service rate (``> 0``), made exact.
    lam : number or str
        The arrival rate per queue (``> 0``).
    D : number, str or sequence of them
        The mean delay(s) (``> 0``), each made exact: one point per value.
    dps : int, default 15
        Significant digits (5..10000) of ``theta_c`` and ``omega``.

    Returns
    -------
    CriticalCurve
        One point per ``D`` (``theta_c``, ``omega``) and the family's closed forms
        (``critical_lam_theta`` in ``mu, gamma``; ``theta_c_of_D`` for ``2 <= L <= 5``).

    Examples
    --------
    >>> critical_theta(2, 1, 1, [2], dps=20).points[0].theta_c
    mpf('8.0')
    >>> critical_theta(1, 1, 1, 2).points[0].theta_c
    mpf('+inf')
    """
    from symdelay.analysis.critical import critical
    from symdelay.models.erlang.founding import FoundingModel

    return critical(FoundingModel(L=L, mu=mu, lam=lam), at=D, dps=dps)
