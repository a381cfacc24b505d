"""Critical theta curves theta_c(D) with the Hopf frequency, to any precision."""

from __future__ import annotations

import decimal
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache

import mpmath
import numpy as np
import sympy as sp

from ..errors import SymdelayInputError, VerificationError
from ..params import INFINITE_L, as_dps, as_L_or_inf, as_positive_number
from ..symbols import D, gamma, mu
from ._common import _P, GUARD, _Lkey, _to_mpf, omega
from .derivation import hopf_conditions


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
