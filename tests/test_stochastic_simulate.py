"""The exact simulator: reproducibility, two implementations, conservation, exact laws."""

from __future__ import annotations

import math

import numpy as np
import pytest

from symdelay.models.erlang.stochastic import fluid, simulate, sup_distance
from symdelay.models.erlang.stochastic._kernel import load_c_kernel


def test_c_kernel_compiles():
    assert load_c_kernel() is not None  # gcc is on every machine here


def test_reproducible_by_seed_and_thread_count():
    a = simulate(L=2, eta=200, T=5, seed=42, replications=3)
    b = simulate(L=2, eta=200, T=5, seed=42, replications=3, threads=1)
    c = simulate(L=2, eta=200, T=5, seed=43, replications=3)
    assert np.array_equal(a.paths, b.paths) and a.events == b.events
    assert not np.array_equal(a.paths, c.paths)
    # a Generator is accepted as seed, and consumed
    g = np.random.default_rng(5)
    assert not np.array_equal(
        simulate(L=1, eta=100, T=2, seed=g).paths, simulate(L=1, eta=100, T=2, seed=g).paths
    )


@pytest.mark.parametrize("L", [1, 2, 3])
def test_c_kernel_equals_python_twin(L):
    kw = dict(L=L, eta=30, mu=1.5, lam=0.7, theta=3, D=2, T=4, dt=0.25, seed=9, replications=2)
    c = simulate(**kw, backend="c")
    p = simulate(**kw, backend="python")
    assert c.backend == "c" and p.backend == "python"
    assert np.array_equal(c.paths, p.paths)
    assert np.array_equal(c.transition_counts, p.transition_counts)
    assert c.events == p.events > 0


def test_counts_nonnegative_and_events_consistent():
    L, eta = 2, 300
    init = [5, 10, 3, 0, 0, 7]
    r = simulate(L=L, eta=eta, T=10, dt=0.05, seed=1, replications=4, initial=init)
    assert np.all(r.paths >= 0)
    counts = r.paths * eta
    assert np.allclose(counts, np.round(counts))
    assert r.events == r.transition_counts.sum()
    assert np.array_equal(r.events_per_replication, r.transition_counts.sum(axis=1))
    arrivals, _, entered, served = r.transition_counts.T
    total_now = np.round(counts[:, -1, :].sum(axis=1))
    assert np.array_equal(total_now, sum(init) + arrivals - served)
    # jobs in service: initial + entered - served
    q_now = np.round(counts[:, -1, :2].sum(axis=1))
    assert np.array_equal(q_now, init[0] + init[1] + entered - served)
    assert np.array_equal(r.final_counts, np.round(counts[:, -1, :]).astype(np.int64))
    assert np.array_equal(np.round(counts[:, 0, :]), np.tile(init, (4, 1)))


def test_grid_and_default_state():
    r = simulate(L=1, eta=100, T=1, dt=0.25, seed=0)
    assert r.t.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert r.q1[0] == 0 and r.q2[0] == 1 and r.z1.shape == (1, 5)
    assert r["events"] == r.events
    assert set(r.to_json()) == {"parameters", "events", "t", "q1", "q2", "z1", "z2"} | {
        "model",
        "symdelay_version",
    }
    par = r.to_json()["parameters"]
    assert par["seed"] == 0 and par["eta"] == 100 and par["T"] == 1 and par["dt"] == 0.25
    assert par["initial"] == [0, 100, 0, 0] and par["replications"] == 1


def test_mean_arrival_count_is_2_eta_lam_T():
    eta, lam, T, R = 50, 0.8, 3.0, 400
    r = simulate(L=1, eta=eta, lam=lam, T=T, dt=T, seed=11, replications=R)
    arrivals = r.transition_counts[:, 0]
    mean = 2 * eta * lam * T  # Poisson: variance = mean
    assert abs(arrivals.mean() - mean) < 4 * math.sqrt(mean / R)
    assert abs(arrivals.var(ddof=1) / mean - 1) < 0.25


def test_random_routing_gives_poisson_queue_with_fluid_mean():
    """theta = 0: Q1(T) is an M/G/oo count from an empty start, exactly Poisson with mean
    eta * q1_fluid(T) (an exact law the simulator must reproduce)."""
    eta, T, R = 40, 3.0, 1500
    r = simulate(L=2, eta=eta, theta=0, T=T, dt=T, seed=3, replications=R)
    m = eta * fluid(L=2, theta=0, T=T, dt=T).q1[-1]
    Q1 = r.paths[:, -1, 0] * eta
    assert abs(Q1.mean() - m) < 4 * math.sqrt(m / R)
    assert abs(Q1.var(ddof=1) / m - 1) < 0.2


@pytest.mark.parametrize("L", [1, 2])
def test_simulation_close_to_fluid_at_rate_eta_to_minus_half(L):
    eta = 10_000
    f = fluid(L=L, T=20, dt=0.05)
    s = simulate(L=L, eta=eta, T=20, dt=0.05, seed=21 + L, replications=4)
    d = sup_distance(s, f)
    # the sup of a Gaussian process of O(1) standard deviation, over 20 time units and
    # 2(L+1) coordinates, is a few units: tolerance 8/sqrt(eta)
    assert np.all(d < 8 / math.sqrt(eta))
    assert np.all(d > 0)


def test_empty_start_and_bad_python_arguments():
    from symdelay.core.errors import SymdelayInputError

    r = simulate(L=2, eta=20, T=2, dt=0.5, seed=0, initial=[0] * 6)
    assert r.paths[0, 0].sum() == 0 and np.all(r.paths >= 0)
    bad = [{"theta": -1}, {"eta": 2.5}, {"replications": True}, {"backend": "fortran"}]
    bad += [{"seed": -1}, {"seed": 1.5}, {"seed": "x"}, {"seed": True}, {"chunk_events": 0}]
    bad += [{"eta": 10**16}, {"D": "1e-320"}, {"lam": "1e300", "eta": 10**6}]
    for kw in bad:
        with pytest.raises(SymdelayInputError):
            simulate(**{"L": 1, "eta": 10, "T": 1, **kw})
    with pytest.raises(SymdelayInputError, match="2 GB"):
        simulate(L=1, eta=10, T=1000, dt=0.001, replications=10_000)


def test_seeds_are_recorded_and_repeatable():
    a = simulate(L=1, eta=50, T=1, seed=None)
    assert isinstance(a.seed, int)  # fresh entropy, recorded so the run can be repeated
    b = simulate(L=1, eta=50, T=1, seed=a.seed)
    assert np.array_equal(a.paths, b.paths)
    ss = np.random.SeedSequence(12)
    assert simulate(L=1, eta=50, T=1, seed=ss).seed == 12
    child = ss.spawn(1)[0]
    assert simulate(L=1, eta=50, T=1, seed=child).seed == {"entropy": 12, "spawn_key": [0]}
    assert simulate(L=1, eta=50, T=1, seed=np.random.default_rng(1)).seed is None
    assert (
        simulate(L=1, eta=50, T=1, seed="7").seed == 7 == simulate(L=1, eta=50, T=1, seed=7.0).seed
    )
