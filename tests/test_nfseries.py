"""The centre-manifold normal form by truncated power series (symdelay.analysis.nfseries).

Compared against: a planar field that is already in normal form to degree 5 (its
coefficients come back exactly); and Kuznetsov's projection formula for ``c1``
(symdelay.analysis.projection, an independent path) on a field with quadratic terms.
"""

from __future__ import annotations

import mpmath
import pytest

from symdelay.analysis.nfseries import SeriesUnsupported, centre_normal_form, series_of
from symdelay.core.lazy import sympy as sp

x, y = sp.symbols("x y", real=True)
W = sp.Rational(3, 2)


C2 = (sp.Rational(1, 3), -1)


def _planar(extra_x=0, extra_y=0, c1=(-1, 2), c2=C2):
    """``z' = i w z + c1 z |z|^2 + c2 z |z|^4`` with ``z = x + i y``, plus extra terms."""
    z = x + sp.I * y
    r2 = x**2 + y**2
    f = sp.I * W * z + (c1[0] + sp.I * c1[1]) * z * r2 + (c2[0] + sp.I * c2[1]) * z * r2**2
    f = sp.expand(f)
    return [sp.re(f) + extra_x, sp.im(f) + extra_y]


def _reduce(drift):
    J = mpmath.matrix([[0, -W], [W, 0]])
    q = [mpmath.mpf(1) / 2, mpmath.mpc(0, -0.5)]
    pc = [mpmath.mpf(1), mpmath.mpc(0, 1)]
    out = centre_normal_form(
        drift, [x, y], [mpmath.mpf(0)] * 2, {}, J, mpmath.mpf(W), [q], [pc], order=5
    )
    mono, G = out["mono"], out["G"]
    return (lambda a, b: G[0][mono.index[(a, b)]]), q, pc, J


def test_a_field_in_normal_form_comes_back_exactly():
    with mpmath.workdps(30):
        g, *_ = _reduce(_planar())
        assert abs(g(1, 0) - mpmath.mpc(0, W)) < 1e-28
        assert abs(g(2, 1) - mpmath.mpc(-1, 2)) < 1e-28
        assert abs(g(3, 2) - mpmath.mpc(mpmath.mpf(1) / 3, -1)) < 1e-28
        for a, b in ((3, 0), (0, 3), (1, 2), (4, 1), (5, 0), (1, 4)):
            assert abs(g(a, b)) < 1e-28  # not resonant: no term kept


def test_cubic_coefficient_against_the_projection_formula():
    """With quadratic terms the degree-3 coefficient goes through the centre manifold's
    second-order part: Kuznetsov's ``c1`` from the derivative tensors."""
    from symdelay.analysis.projection import c1_coefficient

    extra = (x**2 - 2 * x * y + sp.Rational(1, 2) * sp.exp(y) - sp.Rational(1, 2) - y / 2,
             3 * y**2 + x * y)  # fmt: skip
    drift = _planar(*extra)
    with mpmath.workdps(30):
        g, q, pc, J = _reduce(drift)
        states = [x, y]
        H, T = {}, {}
        for i, F in enumerate(drift):
            for a in range(2):
                for b in range(2):
                    d2 = sp.diff(F, states[a], states[b]).subs({x: 0, y: 0})
                    H[i, a, b] = mpmath.mpf(d2)
                    for c in range(2):
                        d3 = sp.diff(F, states[a], states[b], states[c]).subs({x: 0, y: 0})
                        T[i, a, b, c] = mpmath.mpf(d3)

        def solve(k, rhs):
            v = mpmath.lu_solve(J - mpmath.mpc(0, k * W) * mpmath.eye(2), mpmath.matrix(rhs))
            return [v[0], v[1]]

        c1 = c1_coefficient(q, pc, H, T, solve)
        assert abs(g(2, 1) - c1) < 1e-25 * abs(c1)
        assert abs(g(2, 1) - mpmath.mpc(-1, 2)) > 1e-3  # the quadratic terms changed it


def test_a_function_without_expansion_is_refused_in_one_line():
    from symdelay.analysis.nfseries import Monomials, Series

    mono = Monomials(2, 3)
    states = {x: Series(mono, [1, 1, 0] + [0] * (mono.size - 3), 3)}
    with pytest.raises(SeriesUnsupported, match="Max") as err:
        series_of(sp.Max(x, 1 - x), {}, states, mono, 3, {})
    assert "\n" not in str(err.value)
