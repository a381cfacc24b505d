"""Routh–Hurwitz engine: textbook cases, both special cases, random polynomials from roots."""

from __future__ import annotations

import random

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from symdelay import SymdelayInputError, routh_hurwitz
from symdelay.analysis.routh import EPSILON, hurwitz_matrix

s = sp.Symbol("s")


def exact_counts(poly):
    """(roots with Re > 0, roots with Re = 0), with multiplicity: an independent path.

    Square-free factors (exact) and their roots by mpmath at 60 digits; a real part below
    1e-40 is taken as 0 (the test polynomials have small integer coefficients).
    """
    rhp = imag = 0
    _, factors = sp.sqf_list(sp.Poly(poly, s))
    for f, mult in factors:
        with mpmath.workdps(60):
            roots = mpmath.polyroots(
                [int(c) if c.is_Integer else mpmath.mpf(c.p) / c.q for c in f.all_coeffs()],
                maxsteps=400,
                extraprec=200,
            )
            rhp += mult * sum(1 for x in roots if mpmath.re(x) > mpmath.mpf("1e-40"))
            imag += mult * sum(1 for x in roots if abs(mpmath.re(x)) <= mpmath.mpf("1e-40"))
    return rhp, imag


TEXTBOOK = [
    # (polynomial, rhp, imaginary-axis)
    (s**3 + 2 * s**2 + 3 * s + 1, 0, 0),
    (s**4 + 2 * s**3 + 3 * s**2 + 4 * s + 5, 2, 0),  # Ogata: two sign changes
    (s**4 + s**3 + 3 * s**2 + 3 * s + 3, 2, 0),  # zero first entry: epsilon
    (s**5 + 2 * s**4 + 2 * s**3 + 4 * s**2 + 11 * s + 10, 2, 0),  # epsilon (Nise)
    (s**5 + 2 * s**4 + 24 * s**3 + 48 * s**2 - 25 * s - 50, 1, 2),  # zero row (Ogata)
    ((s**2 + 4) * (s + 1) * (s - 2), 1, 2),
    ((s**2 + 1) ** 2 * (s + 1), 0, 4),  # repeated imaginary roots: two zero rows
    (s * (s + 1), 0, 1),
    (s**2 * (s + 1), 0, 2),
    (s**3 + s, 0, 3),
    ((s**4 + 1) * (s**2 + 1) * (s + 2), 2, 2),
    ((s**2 - 1) ** 2 * (s + 3), 2, 0),
    # epsilon before a zero row: the textbook replacement would say (4, 0)
    ((s**2 + 1) * (s**4 + s**3 + 3 * s**2 + 3 * s + 3), 2, 2),
    (-(s**2) - s - 1, 0, 0),
    (s - 1, 1, 0),
    (s, 0, 1),
]


@pytest.mark.parametrize(("poly", "rhp", "imag"), TEXTBOOK)
def test_textbook_counts(poly, rhp, imag):
    assert exact_counts(poly) == (rhp, imag)  # the expected values are right
    res = routh_hurwitz(poly, s)
    assert (res.rhp_count, res.imaginary_axis_count) == (rhp, imag)
    assert res.is_stable is (rhp == 0 and imag == 0)


def test_epsilon_table_matches_textbook():
    res = routh_hurwitz("s**4 + s**3 + 3*s**2 + 3*s + 3", "s")
    assert res.table[0] == (1, 3, 3) and res.table[1] == (1, 3)
    assert res.table[2] == (EPSILON, 3)
    assert sp.simplify(res.table[3][0] - (3 - 3 / EPSILON)) == 0
    assert res.table[4] == (3,)
    assert res.epsilon_rows == (2,)
    assert res.first_column_signs == (1, 1, 1, -1, 1)


def test_zero_row_uses_auxiliary_polynomial():
    res = routh_hurwitz(s**5 + 2 * s**4 + 24 * s**3 + 48 * s**2 - 25 * s - 50, s)
    (row, A), *_ = res.auxiliary_polynomials
    assert row == 1  # the row above the zero row
    assert sp.expand(A - 2 * (s**4 + 24 * s**2 - 25)) == 0
    assert res.table[2] == (8, 96)  # d/ds of 2 s^4 + 48 s^2 - 50 replaces the zero row


def test_hurwitz_determinants_against_matrix_det():
    rng = random.Random(3)
    for _ in range(10):
        n = rng.randint(1, 7)
        coeffs = [sp.Rational(rng.randint(1, 9), rng.randint(1, 4))] + [
            sp.Rational(rng.randint(-5, 9), rng.randint(1, 4)) for _ in range(n)
        ]
        poly = sum(c * s ** (n - i) for i, c in enumerate(coeffs))
        res = routh_hurwitz(poly, s)
        H = hurwitz_matrix(coeffs)
        for k in range(1, n + 1):
            assert sp.expand(res.hurwitz_determinants[k - 1] - H[:k, :k].det()) == 0


def test_symbolic_cubic_conditions():
    a1, a2, a3 = sp.symbols("a1 a2 a3")
    res = routh_hurwitz(s**3 + a1 * s**2 + a2 * s + a3, s)
    assert [c.lhs for c in res.conditions] == [a1, a1 * a2 - a3, a3]
    assert res.is_stable is None and res.rhp_count is None
    assert (
        res.table[2] == (sp.expand((a1 * a2 - a3) / a1),)
        or sp.simplify(res.table[2][0] - (a1 * a2 - a3) / a1) == 0
    )
    p = sp.symbols("p", positive=True)
    assert routh_hurwitz(s**2 + p * s + p, s).is_stable is True


def test_floats_become_rationals():
    res = routh_hurwitz(s**2 + 0.1 * s + 0.3, s)
    assert res.coefficients == (1, sp.Rational(1, 10), sp.Rational(3, 10))


def test_large_symbolic_polynomial_is_consistent_with_numeric_routh():
    rng = random.Random(1)
    syms = sp.symbols("x0:20")
    coeffs = [
        sum(sp.Rational(rng.randint(1, 9), rng.randint(1, 5)) * rng.choice(syms) for _ in range(2))
        for _ in range(9)
    ]
    poly = sum(c * s ** (8 - i) for i, c in enumerate(coeffs))
    res = routh_hurwitz(poly, s)
    assert res.is_stable is None and len(res.conditions) == 8
    for _ in range(3):  # the symbolic conditions agree with Routh on the substituted polynomial
        point = {x: sp.Rational(rng.randint(1, 30), rng.randint(1, 7)) for x in syms}
        numeric = routh_hurwitz(poly.subs(point), s)
        truth = all(bool(c.lhs.subs(point) > 0) for c in res.conditions)
        assert truth is numeric.is_stable


# ---------------------------------------------------------------- Hypothesis
rationals = st.builds(lambda p, q: sp.Rational(p, q), st.integers(-6, 6), st.integers(1, 3))
positives = st.builds(lambda p, q: sp.Rational(p, q), st.integers(1, 6), st.integers(1, 3))


@settings(max_examples=60, deadline=None)
@given(
    real=st.lists(rationals, max_size=4),
    pairs=st.lists(st.tuples(rationals, positives), max_size=2),
    lead=st.sampled_from([1, 2, sp.Rational(1, 3), -1, -5]),
)
def test_counts_match_roots(real, pairs, lead):
    if not real and not pairs:
        real = [sp.Integer(-1)]
    poly = lead * sp.Mul(*[s - x for x in real]) * sp.Mul(*[(s - a) ** 2 + b**2 for a, b in pairs])
    rhp = sum(1 for x in real if x > 0) + 2 * sum(1 for a, _ in pairs if a > 0)
    imag = sum(1 for x in real if x == 0) + 2 * sum(1 for a, _ in pairs if a == 0)
    res = routh_hurwitz(sp.expand(poly), s)
    assert (res.rhp_count, res.imaginary_axis_count) == (rhp, imag)
    assert res.is_stable is (rhp == 0 and imag == 0)
    truth = all(bool(c) for c in (sp.StrictGreaterThan(c.lhs, 0) for c in res.conditions))
    assert truth is res.is_stable


@settings(max_examples=25, deadline=None)
@given(
    a=st.lists(st.integers(-4, 6), min_size=3, max_size=6),
    pairs=st.lists(positives, max_size=1),
)
def test_epsilon_cases_match_exact_roots(a, pairs):
    """Polynomials with Delta_2 = 0 (a zero first entry), times imaginary-axis pairs."""
    a1, a2 = sp.Integer(abs(a[0]) + 1), sp.Integer(a[1])  # a0 = 1
    a3 = a1 * a2  # Delta_2 = a1 a2 - a0 a3 = 0
    base = s**4 + a1 * s**3 + a2 * s**2 + a3 * s + sp.Integer(a[2])
    poly = sp.expand(base * sp.Mul(*[s**2 + b**2 for b in pairs]))
    if sp.degree(sp.gcd(base, sp.diff(base, s)), s) > 0 or base.subs(s, 0) == 0:
        return
    res = routh_hurwitz(poly, s)
    assert (res.rhp_count, res.imaginary_axis_count) == exact_counts(poly)


# ---------------------------------------------------------------- bad input
@pytest.mark.parametrize(
    ("poly", "words"),
    [
        ("s**2 + exp(s)", "not a polynomial"),
        ("1/s + 1", "not a polynomial"),
        ("3", "degree < 1"),
        ("s**2 + __q", "'__q'"),
        ("s**2 + exp*s", "'exp' is a function"),
        ("s**2 + I*s + 1", "not real"),
        ("s**2 + sqrt(-2)*K*s + 1", "not real"),
        ("s**2 + s/0", "division by zero"),
        ("s**2 + oo*s", "reserved"),
        ("s**2 + (s > 1)", "cannot evaluate"),
        ("s**2 + q(1)", "'q'"),
        ("s**2 +", "cannot parse"),
        ("s > 1", "relation"),
        ("__import__('os')", "__import__"),
        ("__import__('os').system('echo hacked')", "attribute"),
        ("s.real", "attribute"),
    ],
)
def test_bad_polynomials(poly, words):
    with pytest.raises(SymdelayInputError, match=words) as info:
        routh_hurwitz(poly, "s")
    assert "\n" not in str(info.value)


def test_fast_printing_of_big_polynomials_parses_back(monkeypatch):
    """Big entries are printed from flint's text; it must be the same expression."""
    from symdelay.analysis import routh

    monkeypatch.setattr(routh, "_PRINT_FAST_TERMS", 3)
    a = sp.symbols("a0:6")
    poly = sum((a[i] + sp.Rational(i + 1, 3) * a[(i + 2) % 6]) * s ** (5 - i) for i in range(6))
    res = routh_hurwitz(poly, s)
    assert res.printed, "the fast path was not used"
    data = res.to_json()
    names = {str(x): x for x in a}
    for text, cond in zip(data["conditions"], res.conditions):
        back = sp.sympify(text, locals=names)
        assert sp.expand(back.lhs - cond.lhs) == 0
    for row_text, row in zip(data["table"], res.table):
        for text, entry in zip(row_text, row):
            assert sp.cancel(sp.sympify(text, locals=names) - entry) == 0


def test_zero_in_disguise_at_an_algebraic_point():
    """A Routh row that vanishes at an algebraic point written with CRootOf (a zero that
    does not look like one): the special-case rule sees it, and the verdict matches the
    roots (a pair on the imaginary axis: not stable)."""
    import numpy as np
    import sympy as sp

    from symdelay.analysis.routh import routh_hurwitz

    r, x = sp.symbols("r x")
    m = sp.CRootOf(2 * x**2 + 4 * x - 1, 1)
    coeffs = [1, m + 2, 2 * m + 1, m + 3]
    res = routh_hurwitz(sum(c * r ** (3 - i) for i, c in enumerate(coeffs)), r)
    assert res.is_stable is False
    roots = np.roots([float(sp.N(c, 30)) for c in coeffs])
    assert abs(roots.real.max()) < 1e-12
