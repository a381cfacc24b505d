"""Hopf normal form: closed form vs numeric, fast path vs general projection formula vs the
model layer, the structural identity c1 = -(theta^3/4) r', transversality by finite
differences of the eigenvalues, and harmonic balance."""

from __future__ import annotations

import itertools

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.projection import c1_coefficient, eigenvectors
from symdelay.core.errors import SymdelayInputError
from symdelay.models.erlang.linearize import difference_jacobian_numeric
from symdelay.models.erlang.nonlinear import (
    describing_function_amplitude,
    describing_function_series,
    normal_form,
    symbolic_normal_form,
)

CASES = [(2, 1, 1, 1), (2, "1/2", 3, "7/4"), (3, 1, 1, 1), (3, 2, "1/3", "5/2")]


@pytest.mark.parametrize("L,mu,lam,D", CASES)
def test_closed_form_l1_matches_numeric_at_30_digits(L, mu, lam, D):
    nf = normal_form(L, mu, lam, D, dps=30)
    assert nf.closed_l1 is not None and nf.closed_amplitude is not None
    vals = {
        sp.Symbol("mu"): sp.Rational(mu),
        sp.Symbol("lam"): sp.Rational(lam),
        sp.Symbol("D"): sp.Rational(D),
    }
    with mpmath.workdps(40):
        l1 = mpmath.mpf(str(sp.N(nf.closed_l1.subs(vals), 40)))
        c = mpmath.mpf(str(sp.N(nf.closed_amplitude.subs(vals), 40)))
        assert abs(l1 - nf.l1) < mpmath.mpf(10) ** -28 * abs(l1)
        assert abs(c - nf.amplitude_coefficient) < mpmath.mpf(10) ** -28 * c


@pytest.mark.parametrize("L", [2, 3, 4, 5])
def test_identity_c1_over_rprime_is_minus_theta_cubed_over_four(L):
    s = symbolic_normal_form(L)
    assert sp.simplify(s.ratio + sp.Symbol("theta") ** 3 / 4) == 0
    assert s.quadratic_zero


@pytest.mark.parametrize("L", [2, 4, 7])
def test_fast_path_matches_general_projection_formula(L):
    """Structured eigenvector recursions vs generic null vectors and Kuznetsov's formula
    on the matrix (cubic form from the derived coefficient)."""
    nf = normal_form(L, 1, 2, "3/2", dps=25)
    with mpmath.workdps(40):
        th, w = nf.theta_c, nf.omega
        g = mpmath.mpf(L) / mpmath.mpf(1.5)
        n = L + 1
        A = mpmath.matrix(n, n)
        A[0, 0], A[0, L] = -1, g
        A[1, 0] = -2 * th
        for ell in range(1, n):
            A[ell, ell] = -g
            if ell > 1:
                A[ell, ell - 1] = g
        g3 = 2 * th**3 / 2
        eig = eigenvectors(A, w, pin=0)
        q = [eig.q[i] for i in range(n)]
        pc = [mpmath.conj(eig.p[i]) for i in range(n)]
        c1 = c1_coefficient(q, pc, {}, {(1, 0, 0, 0): g3}, None)  # no quadratic terms
        rp = pc[1] * -2 * q[0]  # <p, A_theta q>: A_theta has the one entry -lam = -2
        assert abs(c1 - nf.c1) < mpmath.mpf(10) ** -22 * abs(c1)
        assert abs(rp - nf.r_prime) < mpmath.mpf(10) ** -22 * abs(rp)


def test_model_layer_path_matches_fast_path():
    from symdelay.analysis.normal_form import normal_form as entry
    from symdelay.models import build_model

    nf = normal_form(2, 1, 1, 1, dps=20)
    gen = entry(build_model("erlang", L=2, mu=1, lam=1, D=1), dps=20, method="generic")
    assert gen.checks["quadratic_terms"] is False
    for a, b in (
        (gen.l1, nf.l1),
        (gen.amplitude_coefficient, nf.amplitude_coefficient),
        (gen.theta_c, nf.theta_c),
    ):
        assert abs(a - b) < mpmath.mpf(10) ** -18 * abs(b)


@pytest.mark.parametrize(
    "L,mu,lam,D",
    list(itertools.product([2, 3, 6], ["1/5", 1, 4], [1], ["1/2", 3]))[:12],
)
def test_supercritical_and_transversal_by_finite_differences(L, mu, lam, D):
    """Re r'(theta_c) from the projection vs the rightmost eigenvalue of the numeric
    Jacobian at theta_c +- h (numpy): same sign (> 0), same value; l1 < 0."""
    nf = normal_form(L, mu, lam, D)
    assert nf.criticality == "supercritical" and nf.l1 < 0
    th = float(nf.theta_c)
    h = 1e-6 * th
    re = []
    for t in (th - h, th + h):
        ev = np.linalg.eigvals(
            difference_jacobian_numeric(
                L, float(sp.Rational(mu)), float(lam), t, float(sp.Rational(D))
            )
        )
        re.append(ev.real.max())
    fd = (re[1] - re[0]) / (2 * h)
    assert fd > 0
    assert fd == pytest.approx(float(mpmath.re(nf.r_prime)), rel=1e-5)
    assert float(nf.amplitude_coefficient) == pytest.approx(4 / th**1.5, rel=1e-13)


def test_dde_normal_form_and_limits():
    """L = inf: the DDE formula; the finite-L coefficients tend to it (O(1/L))."""
    nf = normal_form("inf", 1, 1, 1, dps=20)
    assert nf.criticality == "supercritical"
    errs = [abs(normal_form(L, 1, 1, 1).l1 - nf.l1) for L in (10, 20, 40)]
    assert errs[0] > errs[1] > errs[2]
    assert float(errs[1] / errs[2]) == pytest.approx(2, rel=0.15)


def test_harmonic_balance():
    N, c = describing_function_series()
    a, th_c = sp.Symbol("a", positive=True), sp.Symbol("theta_c", positive=True)
    assert sp.simplify(N - (1 - a**2 / 4)) == 0
    assert sp.simplify(c - 4 / th_c ** sp.Rational(3, 2)) == 0
    th_c = 9.0
    small = describing_function_amplitude([th_c * (1 + 1e-6)], th_c)[0]
    assert small == pytest.approx(4 / th_c**1.5 * np.sqrt(th_c * 1e-6), rel=1e-5)
    relay = describing_function_amplitude([th_c * 1e7], th_c)[0]
    assert relay == pytest.approx(8 / (np.pi * th_c), rel=1e-5)


def test_l1_has_no_hopf_point():
    with pytest.raises(SymdelayInputError, match="no Hopf point"):
        normal_form(1, 1, 1, 1)


@pytest.mark.parametrize("L", [2, 3, 4])
def test_one_normal_form_record_from_both_paths(L):
    """The founding fast path (structured eigenvectors of the imbalances) and the generic
    path (the one l1 computation on the full drift): the same keys, the same values to the
    digits asked (the frequency's slope is zero up to rounding on both), the same closed
    forms (attached from the family on both), l1 in both normalisations."""
    import mpmath

    from symdelay.analysis.normal_form import normal_form as entry
    from symdelay.models import build_model

    m = build_model("erlang", L=L, mu=1, lam="1/2", D=2)
    a, b = entry(m, dps=25), entry(m, dps=25, method="generic")
    ra, rb = a.to_json(), b.to_json()
    assert set(ra) == set(rb)
    differ = {k for k in ra if ra[k] != rb[k]}
    assert differ <= {"method", "checks", "omega_slope"}
    with mpmath.workdps(40):
        assert abs(a.omega_slope - b.omega_slope) < mpmath.mpf(10) ** -25 * abs(a.omega)
        assert abs(a.l1_unit - b.l1_unit) < mpmath.mpf(10) ** -24 * abs(a.l1_unit)
    assert (ra["closed_form"]["l1"] is None) == (L > 3)
