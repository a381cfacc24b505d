"""The first crossing from the factors of A and B (critical_factored) against the expanded path
(critical_linear, every candidate and counts from certified roots) and closed forms."""

from __future__ import annotations

import random

import flint
import mpmath
import pytest
import sympy as sp

from symdelay.analysis.crossing import critical_linear, critical_parameter
from symdelay.analysis.crossing_factored import METHOD, critical_factored
from symdelay.analysis.polyroots import polynomial_roots
from symdelay.core.errors import SymdelayInputError

r, p = sp.symbols("r p")


def _expand(side):
    c, factors = side
    out = flint.fmpq_poly([c])
    for f, m in factors:
        out *= flint.fmpq_poly(f) ** m
    return out.coeffs()


def _random_case(rng):
    factors = []
    for _ in range(rng.randint(1, 3)):
        deg = rng.choice([1, 1, 2, 2, 3])
        cs = [flint.fmpq(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(deg)]
        cs[0] = cs[0] or flint.fmpq(1)
        factors.append((flint.fmpq_poly([*cs, 1]), rng.randint(1, 4)))
    slope = []
    if sum(f.degree() * m for f, m in factors) >= 3 and rng.random() < 0.5:
        slope.append((flint.fmpq_poly([rng.randint(1, 5), 1]), 1))
    return (flint.fmpq(rng.choice([1, 2, -1])), factors), (
        flint.fmpq(rng.choice([1, 3, -2])),
        slope,
    )


def _count(A, B, pv):
    coeffs = [a + pv * b for a, b in zip(A, B + [0] * (len(A) - len(B)))]
    poly = sp.Poly.from_list([sp.Rational(int(c.p), int(c.q)) for c in coeffs][::-1], r)
    return polynomial_roots(poly, r, dps=30).unstable_count


def test_factored_equals_expanded_on_random_factorisations():
    """300 random products (real and complex roots on both sides of the axis, multiplicities
    up to 4, crossings through 0 and at w > 0): p_c, omega and the counts on both sides equal
    those of the expanded path, which isolates every candidate and counts certified roots; at
    least 250 are decided by the factored path."""
    rng = random.Random(1)
    decided = crossings = 0
    for _ in range(300):
        A, B = _random_case(rng)
        got = critical_factored(A, B, r, p, dps=20, upto=2)
        if got is None:
            continue
        decided += 1
        a, b = _expand(A), _expand(B)
        ref = critical_linear(a, b, r, p, dps=20)
        if ref is None:  # h = 0 and the like: the resultant path
            try:
                ref = critical_parameter(got.expression, r, p, dps=20)
            except SymdelayInputError:  # A/B real on the whole axis: no isolated crossing
                assert got.p_c == mpmath.inf
                continue
        assert got.method == METHOD
        if ref.p_c == mpmath.inf:
            assert got.p_c == mpmath.inf, (A, B)
            continue
        crossings += 1
        assert abs(got.p_c - ref.p_c) <= mpmath.mpf(10) ** -17 * ref.p_c, (A, B)
        assert abs(got.omega - ref.omega) <= mpmath.mpf(10) ** -17 * max(1, ref.omega)
        assert (got.rhp_below, got.rhp_above) == (ref.rhp_below, ref.rhp_above), (A, B)
    assert decided >= 250 and crossings >= 100, (decided, crossings)


def test_counts_on_both_sides_are_the_certified_root_counts():
    """The transversality counts against certified roots of the expanded F at p_c (1 -+ 1e-6),
    for 40 random cases with a finite p_c."""
    rng = random.Random(7)
    checked = 0
    while checked < 40:
        A, B = _random_case(rng)
        got = critical_factored(A, B, r, p, dps=20, upto=2)
        if got is None or got.p_c == mpmath.inf:
            continue
        a, b = _expand(A), _expand(B)
        pq = flint.fmpq(int(mpmath.nint(got.p_c * 10**12)), 10**12)
        eps = flint.fmpq(1, 10**6)
        assert _count(a, b, pq * (1 - eps)) == got.rhp_below, (A, B)
        assert _count(a, b, pq * (1 + eps)) == got.rhp_above, (A, B)
        checked += 1


@pytest.mark.parametrize("L", [1, 2, 5, 40, 1000])
def test_founding_factor_closed_form(L):
    """(r + mu)(r + gamma)^L + p gamma^L: the crossing at w with atan(w/mu) + L atan(w/gamma) =
    pi, p = |i w + mu| (1 + w^2/gamma^2)^(L/2) (mu = 13/10, gamma = L/D, D = 7/10); L = 1:
    none (stable for every p)."""
    mu, g = flint.fmpq(13, 10), flint.fmpq(10 * L, 7)
    A = (flint.fmpq(1), [(flint.fmpq_poly([mu, 1]), 1), (flint.fmpq_poly([g, 1]), L)])
    B = (g**L, [])
    got = critical_factored(A, B, r, p, dps=30, upto=2)
    if L == 1:
        assert got.p_c == mpmath.inf and got.omega is None
        return
    with mpmath.workdps(50):
        muf, gf = mpmath.mpf(13) / 10, mpmath.mpf(10 * L) / 7
        w = mpmath.findroot(lambda x: mpmath.atan(x / muf) + L * mpmath.atan(x / gf) - mpmath.pi,
                            mpmath.pi / (mpmath.mpf(7) / 10) / 2)  # fmt: skip
        pc = mpmath.sqrt(w**2 + muf**2) * (1 + (w / gf) ** 2) ** (mpmath.mpf(L) / 2)
        assert abs(got.p_c - pc) < mpmath.mpf(10) ** -28 * pc
        assert abs(got.omega - w) < mpmath.mpf(10) ** -28 * w
    assert (got.rhp_below, got.rhp_above) == (0, 2)


def test_not_applicable_is_none():
    """A root on the axis, deg B >= deg A, or a multiple root inside a factor: None (the
    expanded path decides)."""
    one = (flint.fmpq(1), [])
    on_axis = (flint.fmpq(1), [(flint.fmpq_poly([3, 0, 1]), 1)])  # r^2 + 3
    assert critical_factored(on_axis, one, r, p) is None
    same_degree = (flint.fmpq(1), [(flint.fmpq_poly([1, 1]), 1)])
    assert critical_factored(same_degree, same_degree, r, p) is None
    square = (flint.fmpq(1), [(flint.fmpq_poly([1, 2, 1]), 1)])  # (r + 1)^2 as one factor
    assert critical_factored(square, one, r, p) is None
