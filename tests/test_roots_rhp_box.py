"""The argument-principle box of the founding roots holds every unstable root: the certified
unstable count equals numpy's count on the same polynomial over a grid of (L, theta, D),
including the report's root locus (L = 20, theta = 3, where a box as tall as it was wide
missed a pair)."""

from __future__ import annotations

import numpy as np
import pytest

from symdelay import characteristic_roots


@pytest.mark.parametrize("L", [1, 3, 20])
@pytest.mark.parametrize("D", [0.3, 1, 4])
def test_unstable_count_matches_numpy(L, D):
    g = L / D
    for theta in (0.35, 1, 3, 7, 30):
        poly = np.poly1d([1, 1]) * np.poly1d([1, g]) ** L + theta * g**L
        expected = int(sum(np.roots(poly.coeffs).real > 0))
        assert characteristic_roots(L, 1, 1, theta, D, dps=20).unstable_count == expected
