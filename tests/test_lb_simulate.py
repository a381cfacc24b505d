"""LB exact simulator: C kernel vs Python twin, exact closed forms, the diffusion as n grows."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symdelay.core.errors import SymdelayInputError
from symdelay.models.lb import LBPolicy, arrival_rate, diffusion
from symdelay.models.lb._kernel import load_c_kernel
from symdelay.models.lb.compare import convergence, erlang_c_random
from symdelay.models.lb.simulate import simulate

HETERO = "N=8,mu=1;N=12,mu=0.5;N=5,mu=2"


@pytest.mark.parametrize(
    "routing,xi_dist,c,d",
    [
        ("lb", "1:0.2,2:0.5,3:0.3", "1,2,1", "2,1,1"),
        ("lb", "3:1", "1,1,1", "1,1,1"),
        ("shortest", "2:1", None, None),
        ("random", "2:1", None, None),
    ],
)
def test_c_kernel_equals_python_twin(routing, xi_dist, c, d):
    assert load_c_kernel() is not None, "the C kernel must compile here"
    p = LBPolicy.from_text(HETERO, xi_dist=xi_dist, c=c, d=d)
    a = simulate(p, 20, 40, seed=11, routing=routing, backend="c", batches=4)
    b = simulate(p, 20, 40, seed=11, routing=routing, backend="python", batches=4)
    ja, jb = a.to_json(), b.to_json()
    assert (ja["info"].pop("backend"), jb["info"].pop("backend")) == ("c", "python")
    assert a.events[0] == b.events[0] > 1000
    assert ja == jb  # the estimates and the states at the batch boundaries


def test_random_routing_matches_erlang_c():
    """Random routing by capacity: each station is M/M/N_j; Erlang C is exact."""
    p = LBPolicy.from_text("N=10,mu=1;N=20,mu=0.5", xi="2")
    lam = 17
    pw, mw = erlang_c_random(p, lam, dps=20)
    r = simulate(p, lam, 20000, seed=5, routing="random").info
    assert r["p_wait"].covers(pw, slack=0.005)
    assert r["mean_wait"].covers(mw, slack=0.005)


@pytest.mark.parametrize("routing", ["lb", "shortest", "random"])
def test_throughput_balance(routing):
    """Stationary flow balance sum_j mu_j E[busy_j] = lam (any routing)."""
    p = LBPolicy.from_text(HETERO, xi="2", d="1,3,1")
    lam = 21
    r = simulate(p, lam, 5000, seed=2, routing=routing).info["stations"]
    served = sum(float(s.mu) * s.N * st["utilisation"].value for s, st in zip(p.stations, r))
    half = sum(float(s.mu) * s.N * st["utilisation"].half_width for s, st in zip(p.stations, r))
    assert abs(served - lam) <= half + 0.01 * lam


def test_identical_stations_full_information_near_mmn():
    """xi = J = 2, identical stations: close to the pooled M/M/n (Erlang C), P(wait) and delay."""
    p = LBPolicy.from_text("N=100,mu=1;N=100,mu=1", xi="2")
    lam = float(arrival_rate(p, 1).evalf())
    r = simulate(p, sp.Rational(repr(lam)), 3000, seed=3).info
    n, a = 200, lam
    term = tot = 1.0
    for k in range(1, n):
        term *= a / k
        tot += term
    last = term * a / n / (1 - a / n)
    erlang = last / (tot + last)
    assert r["p_wait"].covers(erlang, slack=0.03)


@pytest.mark.slow
def test_scaled_values_converge_to_diffusion():
    """Heterogeneous stations, xi = 2, c, d unequal: the simulated sqrt(n)-scaled values
    approach the diffusion's; the error at the largest n is within its interval plus a
    slack, and the P(wait) error does not grow with n."""
    shape = LBPolicy.from_text("N=1,mu=1;N=2,mu=0.5", xi="2", c="1,2", d="1,2")
    pts = convergence(shape, 1, [150, 2400], T=6000, seed=3)
    big = pts[-1]
    th = big.theory
    assert big.p_wait.covers(th["p_wait"], slack=0.02)
    assert big.mean_delay_scaled.covers(th["mean_delay_scaled"], slack=0.06)
    for est, val in zip(big.idle_ratio_scaled, th["idle_ratio_scaled"]):
        assert est.covers(val, slack=0.08)
    err = [abs(p.p_wait.value - p.theory["p_wait"]) for p in pts]
    assert err[-1] <= err[0] + 2 * big.p_wait.half_width


def test_bad_simulation_input():
    p = LBPolicy.from_text("N=10,mu=1;N=10,mu=1", xi="2")
    for kw in ({"lam": 20}, {"lam": 25}, {"lam": 5, "T": -1}, {"lam": 5, "batches": 1}):
        with pytest.raises(SymdelayInputError):
            simulate(p, **{"T": 10, **kw})


def test_simulated_idleness_matches_collapse_direction():
    """d = (1, 4): station 1 keeps ~4x the idleness ratio of station 2 (collapse)."""
    p = LBPolicy.from_text("N=100,mu=1;N=100,mu=1", xi="2", d="1,4")
    lam = sp.Rational(repr(float(arrival_rate(p, 2).evalf())))
    r = simulate(p, lam, 2000, seed=9)
    i1, i2 = (s["idle_ratio"].value for s in r.info["stations"])
    # the states at the batch boundaries: scaled numbers X_j / n, station 1 the emptier
    assert r.states == ("x1", "x2") and r.values.shape == (1, 21, 2)
    assert r["x1"].mean() < r["x2"].mean() <= 0.5
    pred = diffusion(p, 2, dps=15).stations
    assert float(pred[0]["idle_ratio_scaled"] / pred[1]["idle_ratio_scaled"]) == pytest.approx(4)
    assert 3.0 < i1 / i2 < 5.0
    assert np.isfinite(i1)
