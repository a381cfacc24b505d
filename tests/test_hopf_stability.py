"""The Hopf boundary against the Routh–Hurwitz closed forms of :mod:`symdelay.models.erlang.stability`."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from symdelay.analysis.critical import critical
from symdelay.core.symbols import gamma, mu
from symdelay.models.erlang.founding import FoundingModel
from symdelay.models.erlang.hopf import critical_closed_form, critical_theta, worst_delay
from symdelay.models.erlang.stability import stability_conditions


@pytest.mark.parametrize("L", [2, 3])
def test_closed_forms_agree(L):
    """Eliminating omega from Re/Im of P(i omega) (hopf) = last Hurwitz determinant (stability)."""
    mine, _ = critical_closed_form(L)
    theirs = stability_conditions(L).closed_forms["critical_lam_theta"]
    assert sp.simplify(mine - theirs) == 0


@pytest.mark.parametrize("L", [2, 3, 4, 5, 7])
def test_numeric_boundary_agrees(L):
    for Dv in ("1/3", "2", "11"):
        Dq = sp.Rational(Dv)
        pt = critical_theta(L, "3/2", "1/2", [Dq], dps=30).points[0]
        # the generic path (exact crossings of the transition table's factors) at lam = 1
        m = FoundingModel(L=L, mu="3/2", lam=1)
        k = critical(m, at=[Dq], dps=30, method="generic").critical
        with mpmath.workdps(30):
            assert abs(pt.theta_c / 2 - k) < 1e-25 * k


def test_worst_delay_on_closed_form_L4():
    """L = 4: minimise the Hurwitz closed form k_c(mu, gamma) over gamma numerically."""
    kc = stability_conditions(4).closed_forms["critical_lam_theta"].subs(mu, 1)
    f = sp.lambdify(gamma, kc, "mpmath")
    with mpmath.workdps(30):
        g_star = mpmath.findroot(lambda g: mpmath.diff(f, g), 1.2)
        w = worst_delay(4, 1, 1, dps=25)
        assert abs(4 / g_star - w.D_star) < 1e-18
        assert abs(f(g_star) - w.theta_star) < 1e-18
