"""Certified characteristic roots: against numpy eigenvalues, closed forms, Vieta, higher dps."""

from __future__ import annotations

import flint
import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy.optimize import linear_sum_assignment

from symdelay import CertificationError
from symdelay.analysis.certify import to_acb, to_arb
from symdelay.core.symbols import L, gamma, lam, mu, r, theta
from symdelay.founding import ActionDelayModel, characteristic_roots
from symdelay.models.erlang.charpoly import characteristic_polynomial
from symdelay.models.erlang.roots.crosscheck import (
    difference_jacobian_numeric,
    lambert_convergence,
    numpy_discrepancy,
)
from symdelay.models.erlang.roots.equations import branch_equation

PARAMS = (1, 1, 5, 1)  # mu, lam, theta, D


def _match(a, b):
    cost = np.abs(np.asarray(a)[:, None] - np.asarray(b)[None, :])
    i, j = linear_sum_assignment(cost)
    return cost[i, j].max()


def test_u_equation_is_the_closed_form():
    eq = branch_equation()
    assert sp.simplify(eq.a - (mu - gamma) / gamma) == 0
    assert sp.simplify(eq.c - lam * theta / gamma) == 0
    u = sp.Symbol("u")
    n = 6
    P = characteristic_polynomial(n).subs(r, gamma * (u - 1))
    assert sp.expand(P - gamma ** (n + 1) * eq.lhs.subs({L: n})) == 0


@pytest.mark.parametrize("n", [1, 2, 5, 12])
def test_roots_match_model_jacobian_eigenvalues(n):
    vals = {mu: 1, lam: 1, theta: 5, gamma: n}
    Jsym = ActionDelayModel(L=n).difference_jacobian()
    J = np.array(sp.lambdify([], Jsym.subs(vals), "numpy")(), dtype=float)
    # the numeric pattern used for large L is the same matrix
    assert np.array_equal(J, difference_jacobian_numeric(n, *PARAMS))
    res = characteristic_roots(n, *PARAMS, dps=40)
    assert len(res) == n + 1
    assert _match([complex(z.value) for z in res], np.linalg.eigvals(J)) < 1e-10
    eig_unstable = int(np.sum(np.linalg.eigvals(J).real > 0))
    assert res.unstable_count == eig_unstable


def test_negative_theta_and_mu_above_gamma():
    # theta < 0 (c < 0) and gamma < mu (a > 0, the extra root near u = -a < 0)
    res = characteristic_roots(4, 10, 1, -3, 1, dps=30)
    J = difference_jacobian_numeric(4, 10, 1, -3, 1)
    assert _match([complex(z.value) for z in res], np.linalg.eigvals(J)) < 1e-10
    assert res.unstable_count == int(np.sum(np.linalg.eigvals(J).real > 0))


def test_quadratic_closed_form():
    # L = 1: r^2 + (mu + gamma) r + gamma (mu + lam theta) = 0
    res = characteristic_roots(1, 1, 1, 5, 1, dps=60)
    with mpmath.workdps(120):  # the reference well below the radii (~1e-76)
        exact = [-1 + mpmath.sqrt(5) * 1j, -1 - mpmath.sqrt(5) * 1j]
        for z, e in zip(res, exact):
            assert abs(z.value - e) <= z.radius
            assert z.radius < mpmath.mpf(10) ** -60


@pytest.mark.parametrize("n", [30, 257])
def test_radius_contains_higher_precision_root_and_vieta(n):
    lo = characteristic_roots(n, *PARAMS, dps=30)
    hi = characteristic_roots(n, *PARAMS, dps=60)
    g = sp.Integer(n)
    with mpmath.workdps(80):
        for a, b in zip(lo, hi):
            assert abs(a.value - b.value) <= a.radius + b.radius
            assert a.radius < mpmath.mpf(10) ** -30
        # Vieta: the roots sum to -(mu + L gamma), coefficient of r^L
        total = mpmath.fsum(z.value for z in hi)
        assert abs(total + (1 + n * g)) < mpmath.mpf(10) ** -50


def test_polynomial_vanishes_on_each_disc_and_discs_disjoint():
    n = 20
    res = characteristic_roots(n, *PARAMS, dps=30)
    P = sp.lambdify(r, characteristic_polynomial(n).subs({mu: 1, lam: 1, theta: 5, gamma: n}))
    with flint.ctx.workprec(200):
        for z in res:
            rad = to_arb(z.radius)
            c = to_acb(z.value)
            disc = flint.acb(flint.arb(c.real.mid(), rad), flint.arb(c.imag.mid(), rad))
            assert P(disc).contains(0)
            # just outside the disc P is not zero (it is a simple root)
            far = c + flint.acb(100 * rad)
            assert not P(far).contains(0) or z.radius == 0
    with mpmath.workdps(40):
        for i, a in enumerate(res):
            for b in res.roots[i + 1 :]:
                assert abs(a.value - b.value) > a.radius + b.radius


def test_rightmost_mode_equals_top_of_all_roots():
    full = characteristic_roots(600, *PARAMS, dps=30)
    top = characteristic_roots(600, *PARAMS, dps=30, rightmost=3)
    assert len(top) == 3
    for a, b in zip(full, top):
        assert abs(a.value - b.value) <= a.radius + b.radius
    assert top.unstable_count == full.unstable_count == 2


def test_rightmost_at_huge_L_near_lambert_w():
    top = characteristic_roots(10**6, *PARAMS, dps=30, rightmost=2)
    w = characteristic_roots("inf", *PARAMS, dps=30, branches=(-1, 1))
    with mpmath.workdps(40):
        assert abs(top[0].value - top[1].value.conjugate()) < 1e-25
        err = abs(top[0].value - w[0].value)
    assert 1e-7 < err < 1e-5  # ~ 2/L


def test_lambert_w_roots_solve_the_dde():
    dps = 40
    res = characteristic_roots("inf", 1, 1, 5, 1, dps=dps, branches=(-4, 4))
    assert len(res) == 9
    with mpmath.workdps(dps + 20):
        for z in res:
            resid = z.value + 1 + 5 * mpmath.exp(-z.value)
            assert abs(resid) < mpmath.mpf(10) ** (-(dps - 5))
            assert z.radius < mpmath.mpf(10) ** (-dps)
    # principal branch is the rightmost; the count is the pair W_0, W_-1
    assert res[0].branch in (0, -1) and res.unstable_count == 2


def test_erlang_roots_converge_like_one_over_L():
    conv = lambert_convergence([100, 1000, 10000], *PARAMS, dps=20)
    assert conv.errors[0] > conv.errors[1] > conv.errors[2]
    assert -1.1 < conv.slope < -0.9


def test_numpy_eigenvalues_fine_numpy_roots_not():
    eig = numpy_discrepancy(50, *PARAMS)
    bad = numpy_discrepancy(50, *PARAMS, method="roots")
    assert eig.max_rel < 1e-12
    assert bad.max_abs > 1.0  # wrong in the first digit


def test_double_root_is_reported_not_dropped():
    # L = 1, mu = 3, gamma = 1, lam theta = 1: discriminant (mu - gamma)^2 - 4 gamma lam theta = 0
    with pytest.raises(CertificationError, match=r"multiple root|contraction|overlap|converge"):
        characteristic_roots(1, 3, 1, 1, 1, dps=20)


def test_precision_is_not_leaked():
    before_mp, before_flint = mpmath.mp.dps, flint.ctx.prec
    characteristic_roots(7, *PARAMS, dps=70)
    characteristic_roots("inf", *PARAMS, dps=70)
    assert mpmath.mp.dps == before_mp and flint.ctx.prec == before_flint


def test_real_roots_centred_on_axis_and_still_enclosed():
    # small theta: two real roots in the sector of -a (the overdamped regime)
    lo = characteristic_roots(50, 1, 1, "1/100", 1, dps=25)
    hi = characteristic_roots(50, 1, 1, "1/100", 1, dps=50)
    real = [z for z in lo if z.value.imag == 0]
    assert len(real) >= 2
    with mpmath.workdps(70):
        for z in real:
            best = min(abs(z.value - w.value) for w in hi)
            assert best <= z.radius
