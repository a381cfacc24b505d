"""The cases of SymPy's own Routh-table tests, checked against independent paths.

From ``sympy/physics/control/tests/test_routh_table.py`` (``RouthHurwitz``,
``negative_real_part_conditions``): the generic quartic in ``b_0..b_4``, a zero in the first
column, a zero row, and the 24-symbol polynomial of SymPy issue #28010 (which once made
SymPy hang). Verdicts are compared with exact root counts (numeric cases) or with numpy
roots at random parameter values (symbolic cases).
"""

from __future__ import annotations

import random

import mpmath
import numpy as np
import sympy as sp

from symdelay import routh_hurwitz

s = sp.Symbol("s")


def exact_counts(poly):
    """(Re > 0, Re = 0) with multiplicity: square-free factors, mpmath roots at 60 digits."""
    rhp = imag = 0
    _, factors = sp.sqf_list(sp.Poly(poly, s))
    for f, mult in factors:
        with mpmath.workdps(60):
            coeffs = [mpmath.mpf(c.p) / c.q for c in f.all_coeffs()]
            roots = mpmath.polyroots(coeffs, maxsteps=400, extraprec=200)
            rhp += mult * sum(1 for x in roots if mpmath.re(x) > mpmath.mpf("1e-40"))
            imag += mult * sum(1 for x in roots if abs(mpmath.re(x)) <= mpmath.mpf("1e-40"))
    return rhp, imag


def numpy_stable(poly, point):
    """Stability of ``poly`` at ``point`` from numpy roots; None if too close to call."""
    P = sp.Poly(sp.expand(poly.xreplace(point)), s)
    if P.LC() == 0:
        return None
    rightmost = max(np.roots([float(c) for c in P.all_coeffs()]).real)
    return None if abs(rightmost) < 1e-7 else bool(rightmost < 0)


def holds(res, point):
    return all(bool(c.lhs.xreplace(point) > 0) for c in res.conditions)


def test_generic_quartic_table_and_conditions():
    b0, b1, b2, b3, b4 = sp.symbols("b_0 b_1 b_2 b_3 b_4")
    p1 = b4 * s**4 + b3 * s**3 + b2 * s**2 + b1 * s + b0
    res = routh_hurwitz(p1, s)
    # SymPy's expected table (upstream test), row by row
    expected = [
        [b4, b2, b0],
        [b3, b1],
        [-b1 * b4 / b3 + b2, b0],
        [(b0 * b3**2 + b1 * (b1 * b4 - b2 * b3)) / (b1 * b4 - b2 * b3)],
        [b0],
    ]
    assert len(res.table) == 5
    for row, want in zip(res.table, expected):
        assert len(row) == len(want)
        assert all(sp.cancel(x - y) == 0 for x, y in zip(row, want))
    assert res.is_stable is None and not res.auxiliary_polynomials
    rng = random.Random(7)
    seen = set()
    for _ in range(60):
        point = {x: sp.Rational(rng.randint(-9, 9), rng.randint(1, 4)) for x in (b0, b1, b2, b3)}
        point[b4] = sp.Rational(rng.choice([-1, 1]) * rng.randint(1, 9), rng.randint(1, 4))
        if rng.random() < 0.5:  # bias towards stable points: all coefficients positive
            point = {x: abs(v) or 1 for x, v in point.items()}
        expected_verdict = numpy_stable(p1, point)
        if expected_verdict is None:
            continue
        assert holds(res, point) is expected_verdict
        seen.add(expected_verdict)
    assert seen == {True, False}


def test_zero_in_first_column():
    p2 = s**4 + s**3 + 3 * s**2 + 3 * s + 3
    res = routh_hurwitz(p2, s)
    assert res.epsilon_rows and (res.rhp_count, res.imaginary_axis_count) == exact_counts(p2)
    assert res.is_stable is False


def test_zero_row():
    p3 = s**6 + 2 * s**5 + 8 * s**4 + 12 * s**3 + 20 * s**2 + 16 * s + 16
    res = routh_hurwitz(p3, s)
    (_, A), *_ = res.auxiliary_polynomials
    assert sp.expand(A - (2 * s**4 + 12 * s**2 + 16)) == 0  # SymPy's auxiliary polynomial
    assert res.table[2] == (2, 12, 16)
    assert res.table[3] == (8, 24)  # d/ds of the auxiliary polynomial replaces the zero row
    assert (res.rhp_count, res.imaginary_axis_count) == exact_counts(p3) == (0, 4)
    assert res.is_stable is False


def test_negative_real_part_condition_cases():
    b0, b1, b3 = sp.symbols("b_0 b_1 b_3")
    res = routh_hurwitz(-3 * s**2 - 2 * s - b0, s)  # upstream: [true, 8*b0 > 0]
    for value in (-1, 0, sp.Rational(1, 5), 4):
        assert holds(res, {b0: value}) is bool(value > 0)
        verdict = numpy_stable(-3 * s**2 - 2 * s - b0, {b0: value})
        assert verdict is None or verdict is bool(value > 0)
    a = sp.Symbol("a", nonpositive=True)
    assert routh_hurwitz(b0 * s**2 + a * s + 3, s).is_stable is False  # upstream: false
    res = routh_hurwitz(b0 * s**2 + a * s - 3, s)
    assert res.is_stable is None
    for pa, pb in [(-1, -2), (-1, 2), (-3, -1)]:
        point = {a: pa, b0: pb}
        assert holds(res, point) is numpy_stable(b0 * s**2 + a * s - 3, point)
    p6 = b0 + b1 * s**2 + b1 * s + b3 * s**4 + b3 * s**3  # Delta_2 = 0 identically
    assert routh_hurwitz(p6, s).is_stable is False


def _issue_28010():
    names = "I_L I_T d_L d_T l_L m_L m_T g"
    I_L, I_T, d_L, d_T, l_L, m_L, m_T, g = sp.symbols(names, nonnegative=True, real=True)
    k_00, k_01, k_02, k_03, k_10, k_11, k_12, k_13 = sp.symbols("k_00:04 k_10:14")
    s_00, s_01, s_02, s_03, s_10, s_11, s_12, s_13 = sp.symbols("s_00:04 s_10:14")
    den = (
        I_L * I_T
        + I_L * d_T**2 * m_T
        + I_T * d_L**2 * m_L
        + I_T * l_L**2 * m_T
        + d_L**2 * d_T**2 * m_L * m_T
    )
    c3 = (
        I_L * k_13 * s_13 + I_T * k_02 * s_02 - I_T * k_03 * s_03 - I_T * k_12 * s_12
        + I_T * k_13 * s_13 + d_L**2 * k_13 * m_L * s_13 + d_T**2 * k_02 * m_T * s_02
        - d_T**2 * k_03 * m_T * s_03 - d_T**2 * k_12 * m_T * s_12 + d_T**2 * k_13 * m_T * s_13
        - d_T * k_03 * l_L * m_T * s_03 - d_T * k_12 * l_L * m_T * s_12
        + 2 * d_T * k_13 * l_L * m_T * s_13 + k_13 * l_L**2 * m_T * s_13
    )  # fmt: skip
    c2 = (
        I_L * d_T * g * m_T - I_L * k_11 * s_11 + I_T * d_L * g * m_L + I_T * g * l_L * m_T
        - I_T * k_00 * s_00 + I_T * k_01 * s_01 + I_T * k_10 * s_10 - I_T * k_11 * s_11
        + d_L**2 * d_T * g * m_L * m_T - d_L**2 * k_11 * m_L * s_11
        + d_L * d_T**2 * g * m_L * m_T + d_T**2 * g * l_L * m_T**2
        - d_T**2 * k_00 * m_T * s_00 + d_T**2 * k_01 * m_T * s_01
        + d_T**2 * k_10 * m_T * s_10 - d_T**2 * k_11 * m_T * s_11 + d_T * g * l_L**2 * m_T**2
        + d_T * k_01 * l_L * m_T * s_01 + d_T * k_10 * l_L * m_T * s_10
        - 2 * d_T * k_11 * l_L * m_T * s_11 + k_02 * k_13 * s_02 * s_13
        - k_03 * k_12 * s_03 * s_12 - k_11 * l_L**2 * m_T * s_11
    )  # fmt: skip
    c1 = (
        d_L * g * k_13 * m_L * s_13 + d_T * g * k_02 * m_T * s_02 - d_T * g * k_03 * m_T * s_03
        - d_T * g * k_12 * m_T * s_12 + d_T * g * k_13 * m_T * s_13 + g * k_13 * l_L * m_T * s_13
        - k_00 * k_13 * s_00 * s_13 + k_01 * k_12 * s_01 * s_12 - k_02 * k_11 * s_02 * s_11
        + k_03 * k_10 * s_03 * s_10
    )  # fmt: skip
    c0 = (
        d_L * d_T * g**2 * m_L * m_T - d_L * g * k_11 * m_L * s_11 + d_T * g**2 * l_L * m_T**2
        - d_T * g * k_00 * m_T * s_00 + d_T * g * k_01 * m_T * s_01 + d_T * g * k_10 * m_T * s_10
        - d_T * g * k_11 * m_T * s_11 - g * k_11 * l_L * m_T * s_11 + k_00 * k_11 * s_00 * s_11
        - k_01 * k_10 * s_01 * s_10
    )  # fmt: skip
    poly = sp.PurePoly(s**4 + (c3 * s**3 + c2 * s**2 + c1 * s + c0) / den, s)
    return poly, den, (I_L, I_T, d_L, d_T, l_L, m_L, m_T, g)


def test_issue_28010_many_symbols():
    """The polynomial that once made SymPy hang: coefficients in Q(24 symbols)."""
    poly, den, nonneg = _issue_28010()
    res = routh_hurwitz(poly, s)
    assert sp.expand(res.multiplier - den) == 0
    cleared = [sp.cancel(c * den) for c in poly.all_coeffs()]
    assert all(sp.expand(x - y) == 0 for x, y in zip(cleared, res.coefficients))
    assert res.is_stable is None and len(res.conditions) == 4
    symbols = sorted(poly.free_symbols - {s}, key=str)
    rng = random.Random(28010)
    seen = set()
    for _ in range(12):
        point = {
            x: sp.Rational(rng.randint(1 if x in nonneg else -9, 9), rng.randint(1, 3))
            for x in symbols
        }
        expected = numpy_stable(poly.as_expr(), point)
        if expected is None:
            continue
        assert holds(res, point) is expected
        seen.add(expected)
    assert False in seen
