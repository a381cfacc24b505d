"""Convergence in N, measured: the rate fits against planted power laws, the d = 1 system
(independent M/M/1 queues: no bias, binomial fluctuations, both exact for every N), and the
measured rates for SQ(2) at small N (bias O(1/N), fluctuations O(1/sqrt N))."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symdelay.core.errors import SymdelayInputError
from symdelay.models.sqd.convergence import convergence_in_N, power_fit


def test_power_fit_recovers_planted_exponents():
    rng = np.random.default_rng(0)
    Ns = np.array([100, 300, 1000, 3000, 10000])
    y = 3.0 * Ns**-1.0
    half = 0.05 * y
    noisy = y + rng.normal(0, half / 1.96)
    f = power_fit(Ns, noisy, half)
    assert f.lo < 1.0 < f.hi and f.hi - f.lo < 0.1 and abs(f.C - 3) < 0.5
    g = power_fit(Ns, 0.4 * Ns**-0.5, 0.01 * 0.4 * Ns**-0.5, log=True)
    assert abs(g.p - 0.5) < 1e-9 and g.lo < 0.5 < g.hi
    # a planted 1/N law is told apart from 1/sqrt(N) by the interval
    assert not f.lo < 0.5 < f.hi
    assert power_fit([1, 2], [1, 2], [1, 1]) is None  # too few points


def test_d1_is_unbiased_with_binomial_fluctuations():
    """d = 1: every server is an independent stationary M/M/1 queue, so for every N the
    bias is 0 and s_k(t) is Binomial(N, lam^k)/N: sd = sqrt(lam^k (1 - lam^k) / N)."""
    lam = 0.5
    r = convergence_in_N(1, "0.5", Ns=(50, 200), replications=8, events_per_N=4e6, seed=2)
    for row in r.rows:
        e = row.sojourn_bias
        assert e.lo - e.half < 0 < e.hi + e.half, (row.N, e)
        for k in range(3):
            exact = math.sqrt(lam ** (k + 1) * (1 - lam ** (k + 1)) / row.N)
            sd = row.fluct_sd[k]
            assert abs(sd.value - exact) < 2 * sd.half + 0.03 * exact, (row.N, k, sd, exact)


def test_sqd2_bias_is_order_one_over_N_and_fluctuations_one_over_sqrt_N():
    """SQ(2), lam = 0.9, N = 50..400 (where the bias is large enough to resolve in seconds)."""
    r = convergence_in_N(
        2, "0.9", Ns=(50, 100, 200, 400), replications=12, events_per_N=2.4e7, seed=3
    )
    f = r.bias_fit
    assert f.lo < 1 < f.hi and f.lo > 0.5, f  # O(1/N), and not O(1/sqrt N)
    assert all(row.sojourn_bias.lo > 0 for row in r.rows)  # the finite-N system is slower
    for q in r.fluct_fits:
        assert q.lo < 0.5 < q.hi and q.hi < 1 and q.lo > 0, q
    for row in r.rows:  # s_1 has no bias for any N (a server is busy a fraction lam)
        e = row.tail_bias[0]
        assert abs(e.value) < 2 * e.half, (row.N, e)
    assert r.to_json()["bias_fit"]["ci95"][0] == f.lo


def test_bad_input():
    with pytest.raises(SymdelayInputError):
        convergence_in_N(2, "0.9", Ns=(1, 10), replications=4)
    with pytest.raises(SymdelayInputError):
        convergence_in_N(2, "0.9", Ns=(10,), replications=2)
