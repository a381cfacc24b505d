"""The argument-principle box of the founding roots holds every unstable root: the certified
unstable count equals numpy's count on the same polynomial over a grid of (L, theta, D),
including the report's root locus (L = 20, theta = 3, where a box as tall as it was wide
missed a pair)."""

from __future__ import annotations

import numpy as np
import pytest

from symdelay.founding import characteristic_roots


@pytest.mark.parametrize("L", [1, 3, 20])
@pytest.mark.parametrize("D", [0.3, 1, 4])
def test_unstable_count_matches_numpy(L, D):
    g = L / D
    for theta in (0.35, 1, 3, 7, 30):
        poly = np.poly1d([1, 1]) * np.poly1d([1, g]) ** L + theta * g**L
        expected = int(sum(np.roots(poly.coeffs).real > 0))
        assert characteristic_roots(L, 1, 1, theta, D, dps=20).unstable_count == expected


@pytest.mark.parametrize("L", [1, 2, 5, 12, 40])
def test_disc_count_equals_argument_principle_and_routh(L):
    """The all-roots count read off the L + 1 certified discs (complete by degree) against two
    independent counts: the argument principle on the box that holds every root with
    Re r >= 0, and (L <= 12) the exact Routh array of the rational polynomial."""
    import sympy as sp

    from symdelay.analysis.routh import routh_hurwitz
    from symdelay.core.symbols import gamma, lam, mu, r, theta
    from symdelay.models.erlang.charpoly import characteristic_polynomial
    from symdelay.models.erlang.roots.solve import _arb_functions, _bits, _rhp_count

    checked = 0
    for th in ("0.35", "1", "3", "7", "30"):
        for Dv in ("0.3", "1", "4"):
            res = characteristic_roots(L, 1, 1, sp.Rational(th), sp.Rational(Dv), dps=20)
            p = {"mu": sp.Integer(1), "lam": sp.Integer(1), "theta": sp.Rational(th),
                 "D": sp.Rational(Dv)}  # fmt: skip
            F, _dF, _both = _arb_functions(p, L, _bits(40))
            assert _rhp_count(F, p, L) == res.unstable_count
            if L <= 12:
                poly = characteristic_polynomial(L).subs(
                    {mu: 1, lam: 1, theta: p["theta"], gamma: sp.Rational(L) / p["D"]}
                )
                assert int(routh_hurwitz(sp.expand(poly), r).rhp_count) == res.unstable_count
            checked += 1
    assert checked == 15
