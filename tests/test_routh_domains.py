"""Routh–Hurwitz over every coefficient domain: algebraic numbers, pi, parameters, Q(a).

Verdicts are compared with an independent path: roots by mpmath (numeric polynomials built
from known roots, so the expected counts are known exactly) or numpy roots at random
parameter values (symbolic polynomials).
"""

from __future__ import annotations

import random

import mpmath
import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from symdelay import routh_hurwitz
from symdelay.analysis.routh import _number_sign

s = sp.Symbol("s")
K, a, b = sp.symbols("K a b")


def numpy_stable(poly, point):
    """True/False from numpy roots of ``poly`` at ``point``; None when too close to call."""
    P = sp.Poly(sp.expand(poly.subs(point)), s)
    if P.degree() < 1 or P.LC() == 0:
        return None
    coeffs = [complex(sp.N(c, 30)) for c in P.all_coeffs()]
    if any(abs(c.imag) > 1e-12 for c in coeffs):
        return None
    rightmost = max(np.roots([c.real for c in coeffs]).real)
    if abs(rightmost) < 1e-6:
        return None
    return bool(rightmost < 0)


def conditions_hold(res, point):
    """The symbolic conditions at ``point``: decided exactly by SymPy (not by routh.py)."""
    return all(bool(c.lhs.subs(point) > 0) for c in res.conditions)


def mp_counts(poly, dps=60, tol="1e-40"):
    """(Re > 0, Re = 0) counts from mpmath roots of the numeric coefficients at ``dps``."""
    with mpmath.workdps(dps):
        coeffs = [sp.N(c, dps + 10) for c in sp.Poly(poly, s).all_coeffs()]
        roots = mpmath.polyroots(
            [mpmath.mpf(str(c)) for c in coeffs], maxsteps=500, extraprec=4 * dps
        )
        t = mpmath.mpf(tol)
        return (
            sum(1 for x in roots if mpmath.re(x) > t),
            sum(1 for x in roots if abs(mpmath.re(x)) <= t),
        )


# --------------------------------------------------------------- exact constants
def test_sqrt2_and_pi_coefficients():
    for c in (sp.sqrt(2), sp.pi, sp.E, sp.log(3), sp.sqrt(2) * sp.pi):
        res = routh_hurwitz(s**2 + c * s + 1, s)
        assert res.is_stable is True and (res.rhp_count, res.imaginary_axis_count) == (0, 0)
        res = routh_hurwitz(s**2 - c * s + 1, s)
        assert res.is_stable is False and res.rhp_count == 2


@pytest.mark.parametrize(
    "poly",
    [
        s**3 + sp.sqrt(2) * s**2 + s + 3,
        s**3 + sp.sqrt(2) * s**2 + s + 1,
        s**4 + sp.sqrt(3) * s**3 + 3 * s**2 + 3 * sp.sqrt(3) * s + 3,  # epsilon row
        (s**2 + 2) * (s + sp.sqrt(2)),  # zero row, imaginary pair
        (s**2 + sp.pi) * (s - sp.pi) * (s + 1),
        sp.expand((s - sp.sqrt(2) + 1) * (s**2 + sp.sqrt(3) * s + sp.pi)),
        sp.expand((s + sp.E) * (s**2 - (sp.pi - 3) * s + 7)),
        s**5 + sp.sqrt(5) * s**4 + 2 * s**3 + sp.sqrt(20) * s**2 + 11 * s + 10,
    ],
)
def test_constant_coefficients_against_mpmath_roots(poly):
    res = routh_hurwitz(sp.expand(poly), s)
    assert (res.rhp_count, res.imaginary_axis_count) == mp_counts(sp.expand(poly))
    assert res.is_stable is (res.rhp_count == 0 and res.imaginary_axis_count == 0)


def test_signs_need_more_than_double_precision():
    # (1 - sqrt(2))**40 = A - B sqrt(2) with A, B ~ 1e15 and a value ~ 5e-16: in doubles
    # A - B sqrt(2) is 0 or of either sign; the proof needs ~120 bits
    tiny_pos = sp.expand((1 - sp.sqrt(2)) ** 40)
    assert tiny_pos.is_Add and sp.N(tiny_pos, 50) > 0
    assert float(tiny_pos.args[0]) + float(tiny_pos.args[1]) <= 0  # what a double sees
    assert routh_hurwitz(s**2 + s + tiny_pos, s).is_stable is True
    assert routh_hurwitz(s**2 + s - tiny_pos, s).rhp_count == 1
    digits = sp.Rational(314159265358979323846264338327950288, 10**35)
    assert routh_hurwitz(s**2 + (sp.pi - digits) * s + 1, s).is_stable is True
    assert routh_hurwitz(s**2 + (digits - sp.pi) * s + 1, s).rhp_count == 2


def test_number_sign_is_proven_or_open():
    assert _number_sign(sp.sqrt(2) - sp.Rational(665857, 470832)) == -1
    assert _number_sign(sp.pi - sp.Rational(355, 113)) == -1
    assert _number_sign(sp.exp(sp.pi) - sp.pi**sp.E) == 1
    assert _number_sign(sp.Integer(0)) == 0
    # an algebraic zero that SymPy does not simplify away is recognised exactly
    z = sp.sqrt(2 + sp.sqrt(3)) - (sp.sqrt(2) + sp.sqrt(6)) / 2
    assert z != 0 and _number_sign(z) == 0


# --------------------------------------------------------------- parameters
def test_symbol_times_constants():
    res = routh_hurwitz(s**2 + sp.sqrt(2) * K * s + 1, s)
    assert res.is_stable is None
    assert [sp.expand(c.lhs) for c in res.conditions] == [sp.sqrt(2) * K, 1]
    res = routh_hurwitz(s**3 + sp.pi * s**2 + K * s + 1, s)
    assert sp.expand(res.conditions[1].lhs - (sp.pi * K - 1)) == 0


def test_rational_function_coefficients_are_cleared():
    res = routh_hurwitz(s**2 + s / a + 1, s)
    assert res.multiplier == a
    assert res.coefficients == (a, 1, a)
    assert res.is_stable is None
    for value in (-3, -1, sp.Rational(1, 2), 2):
        assert conditions_hold(res, {a: value}) is bool(value > 0)
    res = routh_hurwitz(s**3 + s**2 / a + K * s / (a * b) + 1, s)
    assert sp.expand(res.multiplier - a * b) == 0
    rng = random.Random(5)
    for _ in range(30):
        point = {x: sp.Rational(rng.randint(-20, 20) or 1, rng.randint(1, 5)) for x in (K, a, b)}
        expected = numpy_stable(res.polynomial, point)
        if expected is not None:
            assert conditions_hold(res, point) is expected


def test_known_sign_of_last_coefficient_decides():
    """SymPy's negative_real_part_conditions cases: a <= 0 rules stability out."""
    a_np = sp.Symbol("a", nonpositive=True)
    b0 = sp.Symbol("b_0")
    assert routh_hurwitz(b0 * s**2 + a_np * s + 3, s).is_stable is False
    assert routh_hurwitz(b0 * s**2 + a_np * s - 3, s).is_stable is None
    res = routh_hurwitz(-3 * s**2 - 2 * s - b0, s)
    for value in (-2, 0, 1, 5):
        assert conditions_hold(res, {b0: value}) is bool(value > 0)
    b1, b3 = sp.symbols("b_1 b_3")
    assert routh_hurwitz(b0 + b1 * s**2 + b1 * s + b3 * s**4 + b3 * s**3, s).is_stable is False


# --------------------------------------------------------------- Hypothesis
rationals = st.builds(lambda p, q: sp.Rational(p, q), st.integers(-6, 6), st.integers(1, 3))
positives = st.builds(lambda p, q: sp.Rational(p, q), st.integers(1, 6), st.integers(1, 3))
irrationals = st.sampled_from([sp.sqrt(2), sp.pi, sp.sqrt(3) / 2, sp.E - 2, 1 - sp.sqrt(2)])
reals = st.one_of(rationals, st.builds(lambda q, c: q * c, rationals, irrationals))
pos_reals = st.one_of(positives, st.builds(lambda q, c: q * abs(c), positives, irrationals))


@settings(max_examples=40, deadline=None)
@given(
    real=st.lists(reals, max_size=3),
    pairs=st.lists(st.tuples(reals, pos_reals), max_size=2),
    lead=st.sampled_from([1, sp.sqrt(2), -sp.pi, sp.Rational(1, 3)]),
)
def test_counts_match_roots_with_constants(real, pairs, lead):
    """Roots chosen as rationals times sqrt(2), pi, ...; the counts follow from their signs."""
    if not real and not pairs:
        real = [sp.Integer(-1)]
    poly = lead * sp.Mul(*[s - x for x in real]) * sp.Mul(*[(s - u) ** 2 + v**2 for u, v in pairs])
    rhp = sum(1 for x in real if x.is_positive) + 2 * sum(1 for u, _ in pairs if u.is_positive)
    imag = sum(1 for x in real if x.is_zero) + 2 * sum(1 for u, _ in pairs if u.is_zero)
    res = routh_hurwitz(sp.expand(poly), s)
    assert (res.rhp_count, res.imaginary_axis_count) == (rhp, imag)
    assert res.is_stable is (rhp == 0 and imag == 0)


coefficient = st.one_of(
    rationals,
    st.builds(lambda q, c: q * c, positives, irrationals),
    st.builds(lambda q, r: q * K + r, rationals, rationals),
    st.builds(lambda q, c: q * c * K, positives, irrationals),
    st.builds(lambda q, r: q / a + r, positives, rationals),
    st.builds(lambda q: q * K / a, positives),
)


@settings(max_examples=40, deadline=None)
@given(coeffs=st.lists(coefficient, min_size=2, max_size=5), seed=st.integers(0, 10**6))
def test_symbolic_conditions_match_numpy_roots(coeffs, seed):
    """Conditions with K, a, sqrt(2), pi in the coefficients vs numpy at random K, a."""
    n = len(coeffs)
    poly = s**n + sum(c * s ** (n - 1 - i) for i, c in enumerate(coeffs))
    res = routh_hurwitz(poly, s)
    rng = random.Random(seed)
    for _ in range(4):
        point = {K: sp.Rational(rng.randint(-40, 40), rng.randint(1, 8)), a: rng.choice([-1, 1])}
        point[a] *= sp.Rational(rng.randint(1, 40), rng.randint(1, 8))
        expected = numpy_stable(poly, point)
        if expected is None:
            continue
        assert conditions_hold(res, point) is expected
        numeric = routh_hurwitz(sp.expand(poly.subs(point)), s)
        assert numeric.is_stable is expected
