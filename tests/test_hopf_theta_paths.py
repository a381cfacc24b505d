"""The production theta_c against an independent path: bisection on numpy eigenvalues."""

from __future__ import annotations

import numpy as np
import pytest

from symdelay.models.erlang.linearize import difference_jacobian_numeric
from symdelay.models.erlang.stochastic.stationary import hopf_theta, spectral_abscissa


def bisection_theta(L, mu, lam, D, theta_max=1e6, tol=1e-12) -> float:
    """Smallest theta with spectral abscissa >= 0, by bisection (test-only second path)."""

    def f(th):
        A = difference_jacobian_numeric(L, mu, lam, th, D)
        return float(np.max(np.linalg.eigvals(A).real))

    if f(theta_max) < 0:
        return float("inf")
    lo, hi = 0.0, 1.0
    while f(hi) < 0:
        lo, hi = hi, 2 * hi
    while hi - lo > tol * max(1.0, hi):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < 0 else (lo, mid)
    return (lo + hi) / 2


@pytest.mark.parametrize("L", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("D", [0.3, 1.0, 4.0])
def test_hopf_theta_equals_eigenvalue_bisection(L, D):
    got, ref = hopf_theta(L, 1, 0.5, D), bisection_theta(L, 1.0, 0.5, D)
    if np.isinf(ref):
        assert np.isinf(got)
    else:
        assert got == pytest.approx(ref, rel=1e-9)
        assert (
            spectral_abscissa(L, 1, 0.5, got * (1 - 1e-6), D)
            < 0
            < spectral_abscissa(L, 1, 0.5, got * (1 + 1e-6), D)
        )
