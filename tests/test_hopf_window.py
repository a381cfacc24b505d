"""Instability windows in D for fixed theta, checked by eigenvalues and closed forms."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp
from _hopf_helpers import lambert_rightmost, rightmost_eigenvalue

from symdelay.core.symbols import gamma, mu
from symdelay.models.erlang.hopf import critical_closed_form, critical_theta, instability_window

CASES = [(2, 9), (3, 5), (3, 9), (4, 3), (5, 3), (10, "1.6"), (10, 2), ("inf", 2), ("inf", "1.2")]


def _abscissa(L, theta, D, m=1.0, lm=1.0):
    if L == "inf":
        return float(lambert_rightmost(m, lm, theta, D).real)
    return rightmost_eigenvalue(L, m, lm, float(theta), D).real


def _probe_points(intervals):
    """Points inside each interval and outside all of them (log-midpoints)."""
    inside, outside = [], []
    edges = [0.0]
    for a, b in intervals:
        a, b = float(a), float(b)
        inside.append(np.sqrt(a * b) if np.isfinite(b) else a * 3)
        inside.append(a * 1.001 if np.isfinite(b) else a * 50)
        if np.isfinite(b):
            inside.append(b * 0.999)
        edges += [a, b]
    edges.append(np.inf)
    for lo, hi in zip(edges[::2], edges[1::2]):
        if hi == lo:
            continue
        if lo == 0:
            outside += [hi * 0.999, hi * 0.2, hi * 1e-3] if np.isfinite(hi) else [0.01, 1, 100]
        elif np.isfinite(hi):
            outside += [lo * 1.001, hi * 0.999]
        else:
            outside += [lo * 1.001, lo * 5, lo * 100]
    return inside, outside


@pytest.mark.parametrize("L,theta", CASES)
def test_window_by_sampling_eigenvalues(L, theta):
    w = instability_window(L, theta, 1, 1)
    assert w.intervals, "these cases were chosen above theta*"
    inside, outside = _probe_points(w.intervals)
    for d in inside:
        assert _abscissa(L, theta, d) > 0, d
    for d in outside:
        assert _abscissa(L, theta, d) < 0, d
    # the finite endpoints are points of the critical curve
    ends = [x for ab in w.intervals for x in ab if mpmath.isfinite(x) and x > 0]
    pts = critical_theta(L, 1, 1, [float(x) for x in ends]).points
    for p in pts:
        assert float(p.theta_c) == pytest.approx(float(sp.Rational(theta)), rel=1e-10)


def test_bounded_window_L2_closed_form():
    """L = 2: endpoints solve lam theta_c(gamma = 2/D) = lam theta with the SymPy closed form."""
    k_expr, _ = critical_closed_form(2)
    Dsym = sp.Symbol("Dv", positive=True)
    exact = sorted(sp.solve(k_expr.subs({gamma: 2 / Dsym, mu: 1}) - 9, Dsym))
    w = instability_window(2, 9, 1, 1, dps=40)
    assert len(w.intervals) == 1
    a, b = w.intervals[0]
    with mpmath.workdps(40):
        assert abs(a - mpmath.mpf(str(sp.N(exact[0], 45)))) < 1e-35
        assert abs(b - mpmath.mpf(str(sp.N(exact[1], 45)))) < 1e-35


def test_window_shapes():
    """Below theta* empty; between theta* and the D->oo limit bounded; above it unbounded."""
    assert instability_window(3, "3.9", 1, 1).intervals == ()
    ((_, b),) = instability_window(3, "4.5", 1, 1).intervals
    assert mpmath.isfinite(b)
    ((_, b),) = instability_window(3, "8.5", 1, 1).intervals
    assert mpmath.isinf(b)
    assert instability_window(1, 1000, 1, 1).intervals == ()
    assert instability_window("inf", "0.99", 1, 1).intervals == ()


@pytest.mark.parametrize("L", [2, 3, "inf"])
def test_negative_theta(L):
    """theta < 0: a real root crosses r = 0 at lam theta = -mu, for every D."""
    w = instability_window(L, "-2.5", 2, 1)
    assert len(w.intervals) == 1 and w.intervals[0][0] == 0 and mpmath.isinf(w.intervals[0][1])
    assert any("longer queue" in n for n in w.notes)
    assert instability_window(L, "-1.5", 2, 1).intervals == ()
    for d in (0.1, 1.0, 10.0):
        assert _abscissa(L, -2.5, d, m=2.0) > 0
        assert _abscissa(L, -1.5, d, m=2.0) < 0


def test_window_dps():
    lo = instability_window(4, 3, 1, 1, dps=15).intervals[0]
    hi = instability_window(4, 3, 1, 1, dps=60).intervals[0]
    for x, y in zip(lo, hi):
        assert abs(x - y) < 1e-14 * y
    rec = instability_window(4, 3, 1, 1, dps=60).to_json()
    assert len(rec["intervals"][0][0].replace(".", "")) >= 60


@pytest.mark.parametrize(
    "L,th,m",
    [
        (3, "5", "1e-300"),
        (3, "5", "1"),
        (4, "3.99999999999", "1"),
        (6, "2", "0.5"),
        (4, "4", "1"),
        (4, "1e300", "1"),  # was 3.1e-26 (A/mu lost every digit); right: 2.27e-300
    ],
)
def test_window_ends_are_on_the_critical_curve(L, th, m):
    """theta_c(D) = theta at every finite end (the phase solver, an independent path),
    theta_c < theta inside, including tiny mu (was (0, inf)) and ends near D -> oo."""
    w = instability_window(L, th, m, 1, dps=25)
    assert w.intervals
    for a, b in w.intervals:
        ends = [e for e in (a, b) if e != 0 and not mpmath.isinf(e)]
        for e in ends:
            tc = critical_theta(L, m, 1, [e], dps=30).points[0].theta_c
            with mpmath.workdps(40):
                assert abs(tc - mpmath.mpf(th)) < mpmath.mpf(10) ** -20 * mpmath.mpf(th)
        inside = a * 1.01 if mpmath.isinf(b) else (a + b) / 2
        assert critical_theta(L, m, 1, [inside], dps=20).points[0].theta_c < mpmath.mpf(th)
