"""The in-flight weight optimiser searches where its criterion is defined and trusted.

Issue 36, item 3: ``--kappa-max 1e300`` reported kappa = 8.0e193 with variance -4.5e-179
(doubles fail for weights beyond about 1e16), and item 16: Brent's and Powell's parabolic
steps on an infinite value printed RuntimeWarnings. The optimum is compared with an
independent exact minimisation: the linear-noise variance of the L = 2 difference mode as a
rational function of kappa (SymPy solves the Lyapunov equation with kappa symbolic), whose
derivative's real roots give kappa* exactly.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import sympy as sp

from symdelay.models.inflight.criteria import (
    _Evaluator,
    imbalance_matrices,
    optimize_weights,
    rates,
)


def _exact_variance_curve(theta=5):
    """V(kappa) = Var(Q1 - Q2)/eta of the L = 2 difference mode, mu = lam = D = 1, exactly."""
    k = sp.Symbol("kappa", nonnegative=True)
    g, a = sp.Integer(2), sp.Integer(theta)  # gamma = L/D, lam*theta
    J = sp.Matrix([[-1, 0, g], [-a, -a * k - g, -a * k], [0, g, -g]])
    jumps = [(0, 1, 0), (0, -1, 1), (1, 0, -1), (-1, 0, 0)]  # arrival, phase, landing, service
    G = 2 * sum((sp.Matrix(v) * sp.Matrix(v).T for v in jumps), sp.zeros(3))
    S = sp.Matrix(3, 3, lambda i, j: sp.Symbol(f"s{min(i, j)}{max(i, j)}"))
    sol = sp.solve(list(J * S + S * J.T + G), list(S.free_symbols), dict=True)[0]
    return k, sp.cancel(S[0, 0].subs(sol))


def _no_warnings(fn, *args, **kw):
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        out = fn(*args, **kw)
    shown = [str(w.message) for w in said if not issubclass(w.category, DeprecationWarning)]
    assert not shown, shown
    return out


def test_the_optimum_is_the_exact_minimum():
    k, V = _exact_variance_curve()
    crit = [r for r in sp.Poly(sp.numer(sp.together(sp.diff(V, k))), k).real_roots() if 0 < r < 2]
    values = [(V.subs(k, r), r) for r in crit] + [(V.subs(k, 0), 0), (V.subs(k, 2), 2)]
    v_star, k_star = min(values, key=lambda item: item[0])
    res = _no_warnings(optimize_weights, 2, 1, 1, 5, 1, "variance")
    assert abs(res.kappa - float(k_star)) < 1e-6
    assert abs(res.value - float(v_star)) < 1e-11 * float(v_star)


@pytest.mark.parametrize("kappa_max", [1e20, 1e300, math.inf])
def test_a_huge_range_finds_the_same_minimum_and_no_impossible_value(kappa_max):
    k, V = _exact_variance_curve()
    res = _no_warnings(optimize_weights, 2, 1, 1, 5, 1, "variance", kappa_max=kappa_max)
    assert res.value > 0
    ref = optimize_weights(2, 1, 1, 5, 1, "variance")  # the range [0, 2], its exact minimum
    assert abs(res.kappa - ref.kappa) < 1e-6 and abs(res.value - ref.value) < 1e-11
    assert abs(res.value - float(V.subs(k, sp.Rational(str(res.kappa))))) < 1e-12
    assert "kappa/(1+kappa)" in res.method  # the grid reaches every scale
    # the limit kappa -> oo (1.6) is above the minimum: the large weights were searched
    assert float(sp.limit(V, k, sp.oo)) > res.value


def test_a_weight_beyond_double_precision_is_evaluated_exactly():
    """At kappa = 1e20 doubles give a variance of -3.6e-5; the exact path gives V(1e20)."""
    k, V = _exact_variance_curve()
    p = rates(2, 1, 1, 5, 1)
    kappa = np.full(2, 1e20)
    J = imbalance_matrices(p, kappa)[0]
    assert np.max(np.abs(J)) > 1e10 * abs(np.max(np.linalg.eigvals(J).real))  # untrusted
    ev = _Evaluator("variance", p, {})
    v = _no_warnings(ev, kappa)
    assert ev.exact == 1 and abs(v - float(V.subs(k, sp.Integer(10) ** 20))) < 1e-15
    dec = _Evaluator("decay", p, {})
    # the spectral abscissa of the difference mode tends to -mu = -1 as kappa grows
    assert abs(dec(kappa) - 1) < 1e-9 and dec.exact == 1


def test_decay_and_tolerance_over_a_huge_range():
    base = optimize_weights(2, 1, 1, 5, 1, "decay")
    wide = _no_warnings(optimize_weights, 2, 1, 1, 5, 1, "decay", kappa_max=1e30)
    # the decay rate has a corner at its maximum (two eigenvalues meet): Brent's digits there
    assert abs(wide.kappa - base.kappa) < 1e-5 and abs(wide.value - base.value) < 1e-7
    assert "evaluated exactly" in wide.method
    tol = _no_warnings(optimize_weights, 2, 1, 1, 5, 1, "tolerance-linear", kappa_max=1e30)
    assert "left out" in tol.method  # no exact path for a settling time: said, not guessed
    ref = optimize_weights(2, 1, 1, 5, 1, "tolerance-linear")
    assert abs(tol.value - ref.value) < 1e-6


def test_per_phase_search_prints_no_warning():
    """Item 16: Powell's line search saw inf (unstable weights) and printed RuntimeWarnings."""
    one = optimize_weights(6, 1, 1, 5, 1, "variance")
    per = _no_warnings(optimize_weights, 6, 1, 1, 5, 1, "variance", per_phase=True)
    assert per.value <= one.value + 1e-12 and len(per.kappa) == 6
    assert all(0 <= w <= 2 for w in per.kappa)
    assert per.at_kappa_1 == pytest.approx(12 / 11, rel=1e-9)  # weight 1 on every phase
