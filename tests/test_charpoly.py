"""The characteristic equation: general L vs explicit determinants, special cases, limits."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from symdelay.core.symbols import D, L, gamma, lam, mu, r, theta
from symdelay.founding import ActionDelayModel
from symdelay.models.erlang import charpoly


def test_general_formula_is_the_published_closed_form():
    closed = (r + mu) * (r + gamma) ** L + lam * theta * gamma**L
    assert sp.simplify(charpoly.characteristic_polynomial(L) - closed) == 0


@pytest.mark.parametrize("n", range(1, 13))
def test_explicit_determinant_matches_general_formula(n):
    check = charpoly.verify_difference_determinant(n)
    assert check.agrees and check.structured_agrees


@pytest.mark.parametrize("method", charpoly.DETERMINANT_METHODS)
@pytest.mark.parametrize("n", [1, 3, 5])
def test_determinant_methods_agree(method, n):
    assert charpoly.verify_difference_determinant(n, method).agrees


@pytest.mark.parametrize("n", range(1, 7))
def test_full_polynomial_factors_into_modes(n):
    check = charpoly.verify_full_factorisation(n)
    assert check.agrees
    assert sp.expand(check.sum_factor - (r + mu) * (r + gamma) ** n) == 0
    assert sp.expand(check.factored - check.explicit) == 0
    assert sp.degree(check.explicit, r) == 2 * (n + 1)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_eigenvector(n):
    """(rI - J) v = (P(r)/(r+gamma)^L) e_1: v is an eigenvector exactly at the roots."""
    J = ActionDelayModel(L=n).difference_jacobian()
    v = sp.Matrix(charpoly.eigenvector(n))
    res = ((r * sp.eye(n + 1) - J) * v).applyfunc(sp.simplify)
    P = charpoly.characteristic_polynomial(n)
    assert sp.simplify(res[0] - P / (r + gamma) ** n) == 0
    assert all(e == 0 for e in res[1:])


def _difference_jacobian_numeric(n, m, l, t, g):
    J = np.zeros((n + 1, n + 1))
    J[0, 0], J[0, n], J[1, 0] = -m, g, -l * t
    for k in range(1, n + 1):
        J[k, k] = -g
        if k >= 2:
            J[k, k - 1] = g
    return J


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(1, 8),
    m=st.floats(0.2, 3),
    l=st.floats(0.2, 3),
    t=st.floats(0, 5),
    d=st.floats(0.2, 4),
)
def test_polynomial_matches_numpy_eigenvalues(n, m, l, t, d):
    """Coefficients rebuilt from numpy's eigenvalues equal the derived polynomial's.

    (Coefficients, not roots: at theta = 0 there is an L-fold root at -gamma whose
    numerical eigenvalues scatter by eps**(1/L).)
    """
    g = n / d
    poly = sp.Poly(charpoly.characteristic_polynomial(n, mu=m, lam=l, theta=t, D=d), r)
    exact = np.array([float(c) for c in poly.all_coeffs()])
    from_eig = np.real(np.poly(np.linalg.eigvals(_difference_jacobian_numeric(n, m, l, t, g))))
    scale = np.abs(exact).max()
    assert np.max(np.abs(exact - from_eig)) < 1e-9 * scale


def test_L1_oscillation_condition():
    case = charpoly.special_case(1)
    disc = sp.discriminant(sp.Poly(case.polynomial, r))
    assert sp.expand(case.discriminant - disc) == 0
    assert case.stable_for_all_nonnegative_theta is True
    cond = case.oscillation_condition
    # compare with the sign of the imaginary part of the numeric roots
    rng = np.random.default_rng(0)
    seen = set()
    for _ in range(200):
        vals = {
            mu: rng.uniform(0.1, 3),
            gamma: rng.uniform(0.1, 3),
            lam: 1,
            theta: rng.uniform(0, 3),
        }
        coeffs = [float(c.subs(vals)) for c in case.coefficients]
        complex_roots = bool(np.abs(np.roots(coeffs).imag).max() > 1e-9)
        holds = bool(cond.subs(vals))
        assert holds == complex_roots
        assert np.roots(coeffs).real.max() < 0  # stable either way
        seen.add(holds)
    assert seen == {True, False}


def test_L2_is_a_cubic():
    case = charpoly.special_case(2)
    assert sp.degree(case.polynomial, r) == 3
    assert sp.expand(case.polynomial - charpoly.characteristic_polynomial(2)) == 0


def test_infinite_limit_and_dde():
    lim = charpoly.infinite_L_limit().result
    assert sp.simplify(lim - (r + mu + lam * theta * sp.exp(-r * D))) == 0
    assert sp.simplify(charpoly.delayed_information_equation().result - lim) == 0
    # numerically: divided Erlang equation approaches the limit as L grows
    vals = {r: sp.Rational(3, 10) + sp.I / 2, mu: 1, lam: 1, theta: 2, D: sp.Rational(3, 2)}
    target = complex(lim.subs(vals))
    errs = []
    for n in (10, 100, 1000):
        P = charpoly.characteristic_polynomial(n).subs(gamma, sp.Rational(n) / vals[D])
        val = complex((P / (r + n / vals[D]) ** n).subs(vals))
        errs.append(abs(val - target))
    assert errs[0] > errs[1] > errs[2] and errs[2] < 1e-2


def test_erlang_information_delay_equals_action_delay():
    d = charpoly.erlang_information_equation()
    P = charpoly.characteristic_polynomial(L)
    for n in (1, 2, 7):
        lhs = sp.expand(sp.simplify(d.result.subs(L, n) * (r + gamma) ** n))
        assert sp.expand(lhs - P.subs(L, n)) == 0


def test_cached_derivation_cannot_be_changed_by_a_caller():
    d = charpoly.derive_characteristic_equation()
    n = len(d.steps)
    with pytest.raises(TypeError, match="read-only"):
        d.add("extra", "a step a caller appended", sp.Integer(0))
    with pytest.raises(AttributeError):
        d.steps.append(None)
    assert len(charpoly.derive_characteristic_equation().steps) == n
    e = d.copy()
    e.add("extra", "extending a copy is fine", sp.Integer(0))
    assert len(e.steps) == n + 1 and len(d.steps) == n


@settings(max_examples=200, deadline=None)
@given(
    L=st.integers(1, 12),
    m=st.fractions(min_value=sp.Rational(1, 12), max_value=50, max_denominator=12),
    D=st.fractions(min_value=sp.Rational(1, 12), max_value=20, max_denominator=12),
    k=st.fractions(min_value=-30, max_value=30, max_denominator=12),
)
def test_founding_factor_text_is_sympys_print(L, m, D, k):
    """The founding factors' text written without SymPy (what a command prints) is what
    SymPy prints for the factor it builds: one text whichever is read."""
    from fractions import Fraction

    values = {"mu": m, "lam": Fraction(1), "theta": k, "D": D}
    for f in charpoly.founding_factors(L, values):
        text = charpoly._founding_text(L, values, f.mode == "difference")
        assert text is None or text == str(f.factor), (text, str(f.factor))
    assert charpoly._founding_text(L, values, True) is not None  # (small numbers: written)
