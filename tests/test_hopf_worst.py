"""Worst-case delay D* and delay-independent threshold theta*."""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest
import sympy as sp
from _hopf_helpers import float_curve

from symdelay.core.symbols import lam, mu
from symdelay.models.erlang.hopf import critical_theta, worst_delay


@pytest.mark.parametrize("L", [2, 3, 4, 7])
def test_worst_delay_is_minimum_on_grid(L):
    w = worst_delay(L, "1.5", "0.5", dps=30)
    assert w.attained
    Ds = float(w.D_star) * np.exp(np.linspace(-3, 3, 401))
    th, _ = float_curve(L, 1.5, 0.5, Ds)
    assert np.all(th >= float(w.theta_star) * (1 - 1e-14))
    assert th.min() == pytest.approx(float(w.theta_star), rel=1e-6)
    at = critical_theta(L, "1.5", "0.5", [w.D_star], dps=30).points[0]
    with mpmath.workdps(30):
        assert abs(at.theta_c - w.theta_star) < 1e-25 * w.theta_star
        (omega_star,) = w.omega
        assert abs(at.omega - omega_star) < 1e-25 * omega_star
    for s in (0.999, 1.001):
        side = critical_theta(L, "1.5", "0.5", [w.D_star * s], dps=30).points[0]
        assert side.theta_c > w.theta_star


@pytest.mark.parametrize("L", [2, 3])
def test_closed_form_small_L(L):
    w = worst_delay(L, 1, 1)
    cf = w.closed_form
    assert cf["D_star"] is not None and cf["theta_star"] is not None
    val = {mu: sp.Rational(3, 2), lam: sp.Rational(1, 2)}
    w2 = worst_delay(L, "1.5", "0.5", dps=40)
    with mpmath.workdps(40):
        assert abs(w2.D_star - mpmath.mpf(str(sp.N(cf["D_star"].subs(val), 45)))) < 1e-35
        assert abs(w2.theta_star - mpmath.mpf(str(sp.N(cf["theta_star"].subs(val), 45)))) < 1e-35
    # scaling: D* ~ 1/mu, theta* ~ mu/lam
    assert sp.simplify(cf["D_star"] * mu).free_symbols == set()
    assert sp.simplify(cf["theta_star"] * lam / mu).free_symbols == set()


def test_trend_in_L():
    """theta*(L) decreases to the L = oo infimum mu/lam; D*(L) grows without bound."""
    ths, Ds = [], []
    for L in (2, 3, 5, 10, 40):
        w = worst_delay(L, 1, 1)
        ths.append(float(w.theta_star))
        Ds.append(float(w.D_star))
    assert all(a > b for a, b in itertools.pairwise(ths))
    assert all(a < b for a, b in itertools.pairwise(Ds))
    inf = worst_delay("inf", 1, 1)
    assert not inf.attained and mpmath.isinf(inf.D_star)
    assert float(inf.theta_star) == 1.0
    assert all(t > 1 for t in ths) and ths[-1] < 1.2
    # the L = oo curve approaches its infimum from above as D grows
    th, _ = float_curve("inf", 1, 1, np.array([10.0, 100.0, 1000.0]))
    assert np.all(np.diff(th) < 0) and np.all(th > 1) and th[-1] < 1.001


def test_L1_has_no_threshold():
    w = worst_delay(1, 1, 1)
    assert not w.attained and w.D_star is None and mpmath.isinf(w.theta_star)
    rec = w.to_json()
    assert rec["theta_star"] == "inf"
    assert any("stable for every theta" in n for n in rec["method"]["notes"])
