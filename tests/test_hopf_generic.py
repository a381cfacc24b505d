"""Generic critical parameter: Erlang vs the Hopf solver, DDE vs Lambert W, random families
vs eigenvalue bisection."""

from __future__ import annotations

import random

import mpmath
import numpy as np
import pytest
import sympy as sp
from _hopf_helpers import lambert_rightmost

from symdelay.analysis.crossing import critical_parameter
from symdelay.core.errors import SymdelayInputError
from symdelay.core.symbols import gamma, lam, mu, r, theta
from symdelay.models.erlang.charpoly import characteristic_polynomial
from symdelay.models.erlang.hopf import critical_theta

DPS = 30


@pytest.mark.parametrize("L", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("Dv", ["1/4", "1", "7/2", "20"])
def test_erlang_agrees_with_hopf_solver(L, Dv):
    F = characteristic_polynomial(L).subs({mu: sp.Rational(13, 10), lam: sp.Rational(7, 10)})
    F = F.subs(gamma, L / sp.Rational(Dv))
    c = critical_parameter(F, r, theta, dps=DPS)
    ref = critical_theta(L, "1.3", "0.7", [Dv], dps=DPS).points[0]
    if L == 1:
        assert c.p_c == mpmath.inf and mpmath.isinf(ref.theta_c)
        return
    with mpmath.workdps(DPS + 10):
        assert abs(c.p_c - ref.theta_c) <= mpmath.mpf(10) ** (1 - DPS) * ref.theta_c
        assert abs(c.omega - ref.omega) <= mpmath.mpf(10) ** (1 - DPS) * ref.omega
    assert (c.rhp_below, c.rhp_above) == (0, 2)
    rec = c.to_json()
    assert rec["p_c"] == mpmath.nstr(ref.theta_c, DPS, strip_zeros=False)


@pytest.mark.parametrize("Dv", ["1/5", "1", "5"])
def test_dde_against_closed_form_and_lambert(Dv):
    """L = oo: omega D + atan(omega/mu) = pi, lam theta = sqrt(mu^2 + omega^2) (Hopf solver),
    and the rightmost Lambert-W root changes sign across p_c."""
    m, lm = 1, 2
    F = r + m + lm * theta * sp.exp(-r * sp.Rational(Dv))
    c = critical_parameter(F, r, theta, dps=25)
    with mpmath.workdps(40):
        w = c.omega
        d = mpmath.mpf(sp.Rational(Dv).p) / sp.Rational(Dv).q
        assert abs(w * d + mpmath.atan(w / m) - mpmath.pi) < mpmath.mpf(10) ** -23
        assert abs(lm * c.p_c - mpmath.sqrt(m**2 + w**2)) < mpmath.mpf(10) ** -22
        ref = critical_theta("inf", m, lm, [Dv], dps=25).points[0]
        assert abs(c.p_c - ref.theta_c) < mpmath.mpf(10) ** -23 * ref.theta_c
    below = lambert_rightmost(m, lm, c.p_c * (1 - mpmath.mpf("1e-6")), Dv)
    above = lambert_rightmost(m, lm, c.p_c * (1 + mpmath.mpf("1e-6")), Dv)
    assert below.real < 0 < above.real
    assert (c.rhp_below, c.rhp_above) == (0, 2)


def _companion_abscissa(coeffs):
    c = np.asarray(coeffs, float)
    c = c / c[0]
    n = len(c) - 1
    M = np.zeros((n, n))
    M[0, :] = -c[1:]
    M[1:, :-1] += np.eye(n - 1)
    return np.linalg.eigvals(M).real.max()


def _bisection(Q, S, s, pgrid):
    """Smallest p on the grid where the companion spectral abscissa is >= 0, then bisection."""

    def absc(pv):
        return _companion_abscissa(sp.Poly(Q + pv * S, s).all_coeffs())

    prev = None
    for pv in pgrid:
        if absc(pv) >= 0:
            lo, hi = (prev if prev is not None else 0.0), pv
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                lo, hi = (mid, hi) if absc(mid) < 0 else (lo, mid)
            return 0.5 * (lo + hi)
        prev = pv
    return np.inf


@pytest.mark.parametrize("seed", range(5))
def test_random_family_against_eigenvalue_bisection(seed):
    rng = random.Random(seed)
    s, p = sp.symbols("s p")
    Q = sp.Integer(1)
    for _ in range(rng.randint(1, 2)):
        Q *= s + sp.Rational(rng.randint(1, 9), rng.randint(1, 4))
    for _ in range(rng.randint(1, 2)):
        Q *= s**2 + sp.Rational(rng.randint(1, 9), 4) * s + rng.randint(1, 9)
    S = sum(rng.randint(-3, 3) * s**k for k in range(rng.randint(0, 2))) + rng.randint(1, 5)
    c = critical_parameter(sp.expand(Q + p * S), s, p, dps=20)
    ref = _bisection(sp.expand(Q), S, s, np.geomspace(1e-3, 1e4, 400))
    if np.isinf(ref):
        assert c.p_c == mpmath.inf or c.p_c > 9e3
    else:
        assert float(c.p_c) == pytest.approx(ref, rel=1e-7)
        assert c.rhp_below == 0 < c.rhp_above


def test_tangency_is_not_a_crossing():
    """(r^2 + 1 - p)^2 ... a pair touching the axis at p = 1 and leaving again is skipped."""
    s, p = sp.symbols("s p")
    F = sp.expand((s**2 + (p - 1) ** 2 * s + 1) * (s + 1))
    c = critical_parameter(F, s, p, dps=20)
    assert c.p_c == mpmath.inf and len(c.candidates) == 1
    assert abs(c.candidates[0][0] - 1) < 1e-18


@pytest.mark.parametrize(
    "args,needle",
    [
        ((r**2 + mu * theta, r, theta), "besides"),
        ((r**2 + 1, r, theta), "does not depend"),
        ((r**2 + theta * sp.exp(-r * sp.sqrt(2)), r, theta), "rational tau"),
        ((r + theta**2 * sp.exp(-r), r, theta), "linear in"),
        ((r + theta * r * sp.exp(-r), r, theta), "retarded"),
        ((r**2 + theta, r, theta, 4), "dps must be"),
    ],
)
def test_bad_input(args, needle):
    with pytest.raises(SymdelayInputError, match=needle) as exc:
        critical_parameter(*args)
    assert "\n" not in str(exc.value)
