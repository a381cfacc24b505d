"""Phase-type fits of general service distributions, of increasing order.

Two constructions, both returning a :class:`~symdelay.models.phase_type.PhaseType` of mean
exactly the target's:

* ``"moments"`` — moment matching. For SCV < 1 the two-moment mixture of Erlang(n-1) and
  Erlang(n) with a common rate (Tijms), n = ceil(1/SCV), the least order that can match;
  for SCV >= 1 the hyperexponential of order k matching the first 2k - 1 moments (Prony:
  the branch means are the roots of the degree-k orthogonal polynomial of the normalised
  moments E[X^j]/j!). A moment that is infinite, a Hankel system that is singular or a root
  that is not a positive real (the moments are not those of a mixture of k exponentials)
  means the order is not supported: :class:`SymdelayInputError`.
* ``"discretise"`` — the Erlang mixture with a common rate 1/h: weight F(kh) - F((k-1)h) on
  Erlang(k), k = 1..n, the tail beyond n h lumped on Erlang(n), h = x_n / n with x_n the
  (1 - 1/n^2)-quantile. It converges weakly to any distribution on (0, oo) as n grows
  (Erlang mixtures are dense), then rescaled to the exact mean.

No maintained Python library for phase-type fitting was found that covers both branches;
the formulas are short and checked in the tests (moments reproduced exactly).

>>> from symdelay.models.sqd.service import parse_service_dist
>>> f = fit(parse_service_dist("weibull:shape=0.5"), 2)
>>> f.phases, f.mean, round(float(f.scv), 10)
(2, 1, 5.0)
>>> fit(parse_service_dist("deterministic"), 4, method="discretise").kind
'erlang-mixture(4)'
"""

from __future__ import annotations

import math

import mpmath

from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.models.phase_type import PhaseType, scaled
from symdelay.models.sqd.service import GeneralService, mp_moment

__all__ = ["fit", "erlang_moment_fit", "hyperexp_moment_fit", "erlang_mixture_fit", "METHODS"]

METHODS = ("auto", "moments", "discretise")

#: Denominator of the rationals a float weight is rounded to (weights stay exact after).
_GRID = 10**15


def _rational(x) -> sp.Rational:
    return sp.Rational(round(float(x) * _GRID), _GRID) if abs(x) < 1e6 else sp.Rational(str(x))


def _chain(weights, rate) -> tuple[sp.Matrix, sp.Matrix]:
    """Erlang mixture on one chain of n phases: Erlang(k) starts k phases before the end."""
    n = len(weights)
    alpha = sp.Matrix([[weights[n - 1 - i] for i in range(n)]])
    S = sp.Matrix(n, n, lambda i, j: -rate if i == j else (rate if j == i + 1 else 0))
    return alpha, S


def erlang_moment_fit(dist: GeneralService) -> PhaseType:
    """Tijms' two-moment fit for SCV < 1: Erlang(n-1) w.p. p, Erlang(n) w.p. 1-p, rate g."""
    c2 = dist.scv  # exact: the moments are
    if not (0 < c2 < 1):
        raise SymdelayInputError(
            f"the two-moment Erlang mixture needs 0 < SCV < 1, got SCV {c2}; "
            "use method 'discretise' (deterministic) or a hyperexponential (SCV >= 1)"
        )
    n = int(sp.ceiling(1 / c2))
    if n == 1:
        return scaled(PhaseType.erlang(1, D=1), dist.mean)
    p = (n * c2 - sp.sqrt(n * (1 + c2) - n**2 * c2)) / (1 + c2)
    p = _rational(sp.N(p, 30))
    g = n - p  # mean (n - p)/g = 1
    w = [sp.Integer(0)] * n
    w[n - 2], w[n - 1] = p, 1 - p
    a, S = _chain(w, g)
    return scaled(PhaseType(a, S, f"erlang-moments({n})"), dist.mean)


def hyperexp_moment_fit(dist, k: int, dps: int = 50) -> PhaseType:
    """Order-k hyperexponential matching ``E[X^j]``, j = 1..2k-1 (Prony), then exact mean."""
    if k < 1:
        raise SymdelayInputError(f"fit order must be >= 1, got {k}")
    for j in range(1, 2 * k):
        m = dist.moment(j) if isinstance(dist, GeneralService) else None
        if m is not None and (m == sp.oo or m.is_finite is False):
            raise SymdelayInputError(
                f"a hyperexponential of order {k} matches {2 * k - 1} moments, but E[X^{j}] "
                f"of {dist.label()} is infinite: use order <= {(j + 1) // 2 - 1 or 1} or method "
                "'discretise'"
            )
    with mpmath.workdps(dps):
        mu = [mp_moment(dist, j, dps) / mpmath.factorial(j) for j in range(2 * k)]
        mu[0] = mpmath.mpf(1)
        H = mpmath.matrix(k, k)
        rhs = mpmath.matrix(k, 1)
        for i in range(k):
            for j in range(k):
                H[i, j] = mu[i + j]
            rhs[i] = -mu[i + k]
        try:
            if k > 1 and abs(mpmath.det(H)) < mpmath.mpf(10) ** (-dps // 2):
                raise ZeroDivisionError
            c = mpmath.lu_solve(H, rhs)
        except ZeroDivisionError:
            raise SymdelayInputError(
                f"the moments of {_label(dist)} do not determine a hyperexponential of order "
                f"{k} (singular Hankel matrix): use a lower order"
            ) from None
        coeffs = [mpmath.mpf(1)] + [c[k - 1 - i] for i in range(k)]
        roots = mpmath.polyroots(coeffs, maxsteps=200, extraprec=2 * dps)
        if any(abs(mpmath.im(x)) > mpmath.mpf(10) ** (-dps // 3) for x in roots) or any(
            mpmath.re(x) <= 0 for x in roots
        ):
            raise SymdelayInputError(
                f"the first {2 * k - 1} moments of {_label(dist)} are not those of a mixture of "
                f"{k} exponentials: order {k} is not supported, use a lower order"
            )
        theta = sorted(mpmath.re(x) for x in roots)
        V = mpmath.matrix(k, k)
        for i in range(k):
            for j in range(k):
                V[i, j] = theta[j] ** i
        p = mpmath.lu_solve(V, mpmath.matrix(mu[:k]))
        if any(x <= 0 for x in p):
            raise SymdelayInputError(
                f"order {k} gives a negative branch probability for {_label(dist)}: "
                "the moments do not support it, use a lower order"
            )
        probs = [_rational(x) for x in p]
        probs[-1] = 1 - sum(probs[:-1])
        rates = [sp.Rational(mpmath.nstr(1 / t, 25)) for t in theta]
    ph = PhaseType(sp.Matrix([probs]), sp.diag(*[-x for x in rates]), f"hyperexp-moments({k})")
    return scaled(ph, dist.mean)


def _label(dist) -> str:
    return dist.label() if isinstance(dist, GeneralService) else str(dist)


def _quantile(dist: GeneralService, q: float) -> float:
    lo, hi = 0.0, float(dist.mean)
    while dist.cdf(hi) < q:
        hi *= 2
        if hi > 1e12:
            break
    for _ in range(200):
        mid = (lo + hi) / 2
        if dist.cdf(mid) < q:
            lo = mid
        else:
            hi = mid
    return hi


def erlang_mixture_fit(dist: GeneralService, n: int) -> PhaseType:
    """Common-rate Erlang mixture of order ``n`` (weak convergence as n grows)."""
    if n < 1:
        raise SymdelayInputError(f"fit order must be >= 1, got {n}")
    if dist.name == "deterministic":
        w = [sp.Integer(0)] * (n - 1) + [sp.Integer(1)]
    else:
        top = _quantile(dist, 1 - 1 / (n + 1) ** 2)
        h = top / n
        cdf = [dist.cdf(k * h) for k in range(n + 1)]
        w = [_rational(cdf[k] - cdf[k - 1]) for k in range(1, n)]
        w = [max(x, sp.Integer(0)) for x in w]
        w.append(1 - sum(w))
    a, S = _chain(w, sp.Integer(1))
    ph = PhaseType(a, S, f"erlang-mixture({n})")
    return scaled(ph, dist.mean)


def fit(dist: GeneralService, order: int, method: str = "auto") -> PhaseType:
    """Phase-type fit of ``dist`` of the given order (see the module text for ``method``).

    ``auto``: SCV < 1 -> ``discretise``; SCV >= 1 -> hyperexponential moment matching.
    ``moments`` with SCV < 1 gives Tijms' fit, whose order is fixed by the SCV: asking for a
    smaller order is refused.
    """
    if method not in METHODS:
        raise SymdelayInputError(f"unknown fit method '{method}': use one of {', '.join(METHODS)}")
    try:
        order = int(order)
    except (TypeError, ValueError):
        raise SymdelayInputError(f"fit order must be an integer >= 1, got {order!r}") from None
    if order < 1:
        raise SymdelayInputError(f"fit order must be an integer >= 1, got {order}")
    scv = dist.scv
    if method == "discretise":
        return erlang_mixture_fit(dist, order)
    if scv == sp.oo or (scv.is_number and scv >= 1):
        return hyperexp_moment_fit(dist, order)
    if method == "auto":
        return erlang_mixture_fit(dist, order)
    if scv == 0:
        raise SymdelayInputError(
            "SCV 0 (deterministic) cannot be matched by a finite phase-type: "
            "use method 'discretise' (Erlang(n), converging as n grows)"
        )
    need = math.ceil(1 / float(scv))
    if order < need:
        raise SymdelayInputError(
            f"SCV {scv} needs at least {need} phases (a phase-type of order n has SCV >= 1/n): "
            f"use order >= {need}"
        )
    return erlang_moment_fit(dist)
