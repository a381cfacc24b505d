"""theta_c checked by Routh-Hurwitz: 0 right-half-plane roots just below, 2 just above."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from symdelay.analysis import routh
from symdelay.core.symbols import gamma, lam, mu, r, theta
from symdelay.models.erlang.charpoly import characteristic_polynomial
from symdelay.models.erlang.hopf import critical_theta

EPS = sp.Rational(1, 10**6)


def _rational(x) -> sp.Rational:
    with mpmath.workdps(40):
        return sp.Rational(mpmath.nstr(x, 30))


@pytest.mark.parametrize("L", [2, 3, 5, 10])
@pytest.mark.parametrize("Dv", ["1/4", "3", "20"])
def test_rhp_count_changes_from_0_to_2(L, Dv):
    m, lm, Dq = sp.Rational(3, 2), sp.Rational(1, 2), sp.Rational(Dv)
    tc = _rational(critical_theta(L, m, lm, [Dq], dps=30).points[0].theta_c)
    base = characteristic_polynomial(L).subs({mu: m, lam: lm, gamma: L / Dq})
    for th, expected in ((tc * (1 - EPS), 0), (tc * (1 + EPS), 2)):
        poly = sp.expand(base.subs(theta, th))
        assert routh.routh_hurwitz(poly, r).rhp_count == expected


def test_L1_never_unstable_routh():
    for th in (sp.Integer(1), sp.Integer(10**6)):
        poly = sp.expand(characteristic_polynomial(1).subs({mu: 1, lam: 1, gamma: 3, theta: th}))
        assert routh.routh_hurwitz(poly, r).rhp_count == 0
