"""Spectral collocation of the generator (analysis/collocation.py) against closed forms:
Lambert W roots of a constant lag, the polynomial roots of rational (Erlang, phase-type)
kernels realised as extra states, and the certified roots of a neutral equation."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.collocation import chebyshev_differentiation, collocation_eigenvalues
from symdelay.analysis.delayroots import mode_roots
from symdelay.core.errors import SymdelayInputError
from symdelay.core.symbols import r
from tests._lag_helpers import lag, linearisation, scalar, term


@pytest.mark.parametrize("mu,a,tau", [(1, 2, 1), (1, 3, 2), (sp.Rational(1, 2), -2, 1)])
def test_constant_lag_against_lambert_w(mu, a, tau):
    """r + mu + a e^{-r tau} = 0 has the roots W_k(-a tau e^{mu tau})/tau - mu."""
    lin, lags = scalar(sp.sympify(mu), sp.sympify(a), lag("constant", value=sp.sympify(tau)))
    ev = collocation_eigenvalues(lin, lags).eigenvalues
    m, t = float(mu), float(tau)
    exact = [complex(mpmath.lambertw(-a * t * mpmath.exp(m * t), k) / t - m) for k in range(-3, 3)]
    exact.sort(key=lambda z: -z.real)
    for z in exact[:4]:
        assert np.min(np.abs(ev - z)) < 1e-8 * (1 + abs(z))


@pytest.mark.parametrize("L", [1, 2, 5])
def test_erlang_kernel_is_the_founding_polynomial(L):
    """A gamma lag of integer shape L is realised exactly: the eigenvalues are the roots of
    (r + mu)(r + gamma)^L + lam theta gamma^L."""
    mu, lt, D = 1, 3, 2
    g = sp.Rational(L, D)
    lin, lags = scalar(mu, lt, lag("gamma", shape=sp.Integer(L), mean=sp.Integer(D)))
    spec = collocation_eigenvalues(lin, lags)
    roots = np.roots(
        [complex(c) for c in sp.Poly((r + mu) * (r + g) ** L + lt * g**L, r).all_coeffs()]
    )
    assert spec.size == L + 1 and spec.degree == 0
    assert len(spec.eigenvalues) == len(roots)
    for z in roots:
        assert np.min(np.abs(spec.eigenvalues - z)) < 1e-9


def test_phase_type_equals_the_explicit_chain():
    """A phase-type lag with alpha = (1, 0) and S = [[-2, 2], [0, -2]] is Erlang(2, mean 1)."""
    ph = lag("phase_type", alpha=(1, 0), S=((-2, 2), (0, -2)))
    er = lag("gamma", shape=sp.Integer(2), mean=sp.Integer(1))
    e1 = collocation_eigenvalues(*scalar(1, 4, ph)).eigenvalues
    e2 = collocation_eigenvalues(*scalar(1, 4, er)).eigenvalues
    assert len(e1) == len(e2)
    for z in e2:
        assert np.min(np.abs(e1 - z)) < 1e-10


def test_degree_convergence_and_differentiation_matrix():
    x, D = chebyshev_differentiation(12)
    assert np.allclose(D @ x**3, 3 * x**2)
    lin, lags = scalar(1, 2, lag("uniform", low=sp.Rational(1, 2), high=sp.Integer(3)))
    a = collocation_eigenvalues(lin, lags, degree=30).eigenvalues[:4]
    b = collocation_eigenvalues(lin, lags, degree=60).eigenvalues[:4]
    assert np.allclose(a, b, atol=1e-9)


@pytest.mark.parametrize(
    "lg",
    [
        lag("uniform", low=0, high=sp.Integer(2)),
        lag(
            "mixture",
            lags=(lag("constant", value=1), lag("exponential", mean=sp.Integer(2))),
            weights=(sp.Rational(1, 2), sp.Rational(1, 2)),
        ),
    ],
    ids=["uniform", "mixture"],
)
def test_rightmost_eigenvalues_hold_certified_roots(lg):
    """The rightmost collocation eigenvalues lie within 1e-8 of the certified roots (Arb
    discs from Newton and the contraction test, every root right of the last proved
    present by the argument principle)."""
    lin, lags = scalar(1, 3, lg)
    ev = collocation_eigenvalues(lin, lags).eigenvalues
    zs = ev[:6]
    box = (
        # right of the exponential member's pole r = -1/2 (the mixture's transform has it)
        max(float(min(zs.real)) - 0.25, -0.45),
        float(max(zs.real)) + 0.25,
        float(min(zs.imag)) - 0.25,
        float(max(zs.imag)) + 0.25,
    )
    cert = mode_roots(lin, lags, box=box, dps=20)  # every root in the box, proved
    assert cert.roots
    for v, _rad in cert.roots:
        assert np.min(np.abs(ev - complex(v))) < 1e-8


def test_neutral_equation_against_certified_roots():
    """r + 1 + 3 e^{-2r} - r e^{-2r}/2 (a generalised eigenproblem): eigenvalues within
    1e-8 of the certified roots."""
    lin, lags = scalar(1, 3, lag("constant", value=sp.Integer(2)), derivative=sp.Rational(1, 2))
    ev = collocation_eigenvalues(lin, lags).eigenvalues
    cert = mode_roots(lin, lags, rightmost=4, dps=20)
    assert cert.roots
    for v, _rad in cert.roots:
        assert np.min(np.abs(ev - complex(v))) < 1e-8


def test_two_by_two_product_kernel():
    """A term whose kernel is the product of a constant and an exponential lag (delay then
    filter): eigenvalues of the realisation satisfy det Delta = 0."""
    t, e = lag("constant", name="t", value=1), lag("exponential", name="e", mean=sp.Integer(2))
    lin = linearisation([[-1, 1], [0, -2]], term([[0, 0], [-2, 0]], [t, e]))
    spec = collocation_eigenvalues(lin, {"t": t, "e": e})
    A0, M = np.array([[-1, 1], [0, -2]]), np.array([[0, 0], [-2, 0]])
    assert spec.size == 2 * (spec.degree + 1) + 2
    for z in spec.eigenvalues[:5]:
        if abs(z + 0.5) < 1e-9:
            continue  # the kernel's pole -1/m: an eigenvalue of the (non-minimal) realisation
        delta = z * np.eye(2) - A0 - M * np.exp(-z) / (1 + 2 * z)
        # det Delta vanishes there (relative to the size of its terms)
        assert abs(np.linalg.det(delta)) < 1e-8 * (1 + abs(z)) ** 2


def test_non_integer_gamma_is_refused():
    lin, lags = scalar(1, 2, lag("gamma", shape=sp.Rational(5, 2), mean=sp.Integer(1)))
    with pytest.raises(SymdelayInputError, match="integer shape"):
        collocation_eigenvalues(lin, lags)


def test_a_box_that_holds_a_kernel_pole_is_refused():
    """The argument principle counts zeros minus poles: a box around the pole r = -1/2 of an
    exponential lag's transform is refused, never answered with a root missing."""
    from symdelay.core.errors import SymdelayInputError

    lg = lag(
        "mixture",
        lags=(lag("constant", value=1), lag("exponential", mean=sp.Integer(2))),
        weights=(sp.Rational(1, 2), sp.Rational(1, 2)),
    )
    lin, lags = scalar(1, 3, lg)
    with pytest.raises(SymdelayInputError, match=r"pole r = -0\.5"):
        mode_roots(lin, lags, box=(-3, 1, -10, 10), dps=20)
