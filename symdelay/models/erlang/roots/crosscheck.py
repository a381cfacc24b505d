"""Double precision against the certified roots: numpy eigenvalues, numpy.roots, L -> oo.

* :func:`difference_jacobian_numeric` builds the (L+1)x(L+1) difference Jacobian from its
  pattern (rows x, w_1..w_L) in floating point;
* :func:`numpy_discrepancy` matches ``numpy.linalg.eigvals`` of it (or ``numpy.roots`` of the
  expanded polynomial, the cautionary case) to the certified roots with
  ``scipy.optimize.linear_sum_assignment`` and reports the largest error;
* :func:`lambert_convergence` measures how fast the rightmost Erlang root approaches the
  rightmost Lambert-W root as L grows (log-log slope).

>>> J = difference_jacobian_numeric(2, 1, 1, 5, 1)
>>> J.tolist()
[[-1.0, 0.0, 2.0], [-5.0, -2.0, 0.0], [0.0, 2.0, -2.0]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from symdelay.core.result import Result
from symdelay.models.erlang.linearize import difference_jacobian_numeric
from symdelay.models.erlang.roots.solve import _float, characteristic_roots

__all__ = [
    "difference_jacobian_numeric",
    "expanded_coefficients",
    "numpy_discrepancy",
    "Discrepancy",
    "lambert_convergence",
    "Convergence",
    "RootLocus",
    "root_locus",
    "trust_limit",
]


def expanded_coefficients(L: int, mu, lam, theta, D) -> np.ndarray:
    """Float coefficients (highest first) of (r+mu)(r+g)^L + lam theta g^L: they grow like g^L.

    Computed exactly (Fractions) and rounded once; ``+-inf`` where a coefficient overflows.
    """
    from symdelay.core.exact import exact_fraction
    from symdelay.models.erlang.charpoly import difference_coefficients

    q = exact_fraction
    g = Fraction(L) / q("D", D)
    exact = difference_coefficients(L, q("mu", mu), g, q("lam", lam) * q("theta", theta))
    return np.array([_float(v) for v in exact])


@dataclass(frozen=True)
class Discrepancy(Result):
    """Largest |double - certified| over all roots (absolute and relative to 1 + |r|)."""

    L: int
    method: str
    max_abs: float
    max_rel: float
    rightmost_abs: float


def numpy_discrepancy(L, mu, lam, theta, D, roots=None, method: str = "eigvals") -> Discrepancy:
    """Compare double-precision roots (``eigvals`` or ``roots``) with the certified ones."""
    from scipy.optimize import linear_sum_assignment

    if roots is None:
        roots = characteristic_roots(L, mu, lam, theta, D, dps=30)
    exact = np.array([complex(z.value) for z in roots])
    if method == "eigvals":
        approx = np.linalg.eigvals(difference_jacobian_numeric(L, mu, lam, theta, D))
    elif method == "roots":
        coeffs = expanded_coefficients(L, mu, lam, theta, D)
        if not np.all(np.isfinite(coeffs)):
            return Discrepancy(L, method, math.inf, math.inf, math.inf)
        with np.errstate(all="ignore"):
            approx = np.roots(coeffs)
    else:
        raise ValueError(f"unknown method {method!r}")
    if len(approx) != len(exact) or not np.all(np.isfinite(approx)):  # overflow: no answer
        return Discrepancy(L, method, math.inf, math.inf, math.inf)
    cost = np.abs(exact[:, None] - approx[None, :])
    rows, cols = linear_sum_assignment(cost)
    err = cost[rows, cols]
    rel = err / (1 + np.abs(exact[rows]))
    i0 = int(np.argmax(exact.real))
    return Discrepancy(
        L, method, float(err.max()), float(rel.max()), float(err[list(rows).index(i0)])
    )


@dataclass(frozen=True)
class Convergence(Result):
    """|r_L - r_oo| of the rightmost root for each L, and the fitted log-log slope."""

    Ls: tuple
    errors: tuple
    limit: mpmath.mpc
    slope: float
    constant: float


def lambert_convergence(Ls, mu, lam, theta, D, dps: int = 30) -> Convergence:
    """Rightmost Erlang root (Im >= 0) vs the rightmost Lambert-W root, for each L in ``Ls``."""
    limit = characteristic_roots("inf", mu, lam, theta, D, dps=dps, branches=(-1, 1))[0].value
    errs = []
    for n in Ls:
        top = characteristic_roots(n, mu, lam, theta, D, dps=dps, rightmost=2)
        z = max(top, key=lambda t: (t.value.real, t.value.imag)).value
        errs.append(float(abs(z - limit)))
    x, y = np.log(np.array(Ls, float)), np.log(np.array(errs))
    slope, intercept = np.polyfit(x, y, 1)
    return Convergence(tuple(Ls), tuple(errs), limit, float(slope), float(math.exp(intercept)))


@dataclass(frozen=True)
class RootLocus(Result):
    """Roots for each ``theta`` in ``thetas``: ``finite[L][i]`` (all L + 1 roots) and ``dde[i]``."""

    thetas: tuple
    finite: dict
    dde: tuple


def root_locus(Ls, thetas, mu, lam, D, dps: int = 20, branches=(-4, 4)) -> RootLocus:
    """All certified roots for each L in ``Ls`` and the Lambert-W roots, as theta varies."""
    finite = {
        n: tuple(
            np.array([complex(z.value) for z in characteristic_roots(n, mu, lam, t, D, dps=dps)])
            for t in thetas
        )
        for n in Ls
    }
    dde = tuple(
        np.array(
            [
                complex(z.value)
                for z in characteristic_roots("inf", mu, lam, t, D, dps=dps, branches=branches)
            ]
        )
        for t in thetas
    )
    return RootLocus(tuple(thetas), finite, dde)


def trust_limit(discrepancies, tol: float = 1e-8) -> tuple[float, float, float]:
    """Fit ``max_rel ~ C L^p`` to double-precision discrepancies; return ``(p, C, L_tol)``.

    ``L_tol`` is the extrapolated L at which the relative error reaches ``tol`` (where double
    precision stops giving ``-log10(tol)`` trustworthy digits); ``inf`` if it does not grow.

    >>> trust_limit([Discrepancy(10, "eigvals", 0, 1e-15, 0), Discrepancy(1000, "eigvals", 0, 1e-13, 0)])
    (1.0, 1e-16, 100000000.0)
    """
    Ls = np.array([d.L for d in discrepancies], float)
    rel = np.array([d.max_rel for d in discrepancies])
    p, logc = np.polyfit(np.log10(Ls), np.log10(rel), 1)
    p, C = round(float(p), 6), float(10 ** round(float(logc), 6))
    if p <= 0:
        return p, C, math.inf
    return p, C, float(10 ** round((math.log10(tol) - math.log10(C)) / p, 6))
