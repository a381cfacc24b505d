"""The exact simulator of the founding model (the kernel generated from its transition
table): reproducibility, two backends, conservation, exact laws, one check at the door."""

from __future__ import annotations

import math

import numpy as np
import pytest
from _founding_law import counts_by_kind, expected_counts

from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model
from symdelay.models.erlang.stochastic import fluid, simulate, sup_distance


def test_reproducible_by_seed_and_thread_count():
    a = simulate(L=2, eta=200, T=5, seed=42, replications=3)
    b = simulate(L=2, eta=200, T=5, seed=42, replications=3, threads=1)
    c = simulate(L=2, eta=200, T=5, seed=43, replications=3)
    assert np.array_equal(a.values, b.values) and np.array_equal(a.events, b.events)
    assert not np.array_equal(a.values, c.values)
    # a Generator is accepted as seed, and consumed
    g = np.random.default_rng(5)
    assert not np.array_equal(
        simulate(L=1, eta=100, T=2, seed=g).values, simulate(L=1, eta=100, T=2, seed=g).values
    )


@pytest.mark.parametrize("L", [1, 2, 3])
def test_c_kernel_equals_python_twin(L):
    kw = dict(L=L, eta=30, mu=1.5, lam=0.7, theta=3, D=2, T=4, dt=0.25, seed=9, replications=2)
    c = simulate(**kw, backend="c")
    p = simulate(**kw, backend="python")
    assert c.info["backend"] == "c" and p.info["backend"] == "python"
    assert np.array_equal(c.values, p.values)
    assert np.array_equal(c.info["transition_counts"], p.info["transition_counts"])
    assert np.array_equal(c.events, p.events) and c.events.sum() > 0


def test_counts_nonnegative_and_events_consistent():
    L, eta = 2, 300
    init = [5, 10, 3, 0, 0, 7]
    r = simulate(L=L, eta=eta, T=10, dt=0.05, seed=1, replications=4, initial=init)
    assert np.all(r.values >= 0)
    counts = r.values * eta
    assert np.allclose(counts, np.round(counts))
    tc = r.info["transition_counts"]
    assert np.array_equal(r.events, tc.sum(axis=1))
    by = counts_by_kind(r.info["transitions"], tc)
    total_now = np.round(counts[:, -1, :].sum(axis=1))
    assert np.array_equal(total_now, sum(init) + by["arrival"] - by["service"])
    # jobs in service: initial + entered - served
    q_now = np.round(counts[:, -1, :2].sum(axis=1))
    assert np.array_equal(q_now, init[0] + init[1] + by["enter_service"] - by["service"])
    assert np.array_equal(r.info["final"], np.round(counts[:, -1, :]).astype(np.int64))
    assert np.array_equal(np.round(counts[:, 0, :]), np.tile(init, (4, 1)))


def test_grid_default_state_and_the_contract_keys():
    r = simulate(L=1, eta=100, T=1, dt=0.25, seed=0)
    assert r.t.tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert r["q1"][0] == 0 and r["q2"][0] == 1 and r["z1"].shape == (1, 5)
    j = r.to_json()
    assert {"events", "t", "q1", "q2", "z1", "z2", "parameters"} <= set(j)
    assert j["events"] == int(r.events[0]) and j["z1"] == [r["z1_1"].tolist()]
    par = j["parameters"]
    assert par["seed"] == 0 and par["eta"] == 100 and par["T"] == 1 and par["dt"] == 0.25
    assert par["initial"] == [0, 100, 0, 0] and par["replications"] == 1
    assert par["L"] == 1 and par["theta"] == "2"
    many = simulate(L=1, eta=100, T=1, dt=0.5, seed=0, replications=2).to_json()
    assert many["events"] == sum(p["events"] for p in many["replications"])
    assert all({"events", "t", "q1", "q2", "z1", "z2"} <= set(p) for p in many["replications"])


@pytest.mark.parametrize("L, theta", [(1, 2), (3, 5), (8, 0.5)])
def test_counts_of_each_kind_have_the_exact_means(L, theta):
    """The law, not the digits: the events of each kind (arrivals, phase steps, entries into
    service, services) have the exact means of the linear total dynamics
    (tests/_founding_law.py, one matrix exponential), z < 4.5 over 300 paths, from the
    paper's start and from a crowded one."""
    eta, R, T, mu, lam, D = 40, 300, 4.0, 1.2, 0.8, 1.5
    for init in (None, [30, 5] + [3] * (2 * L)):
        r = simulate(L=L, eta=eta, mu=mu, lam=lam, theta=theta, D=D, T=T, dt=T, seed=21,
                     replications=R, initial=init)  # fmt: skip
        start = r.parameters["initial"]
        want = expected_counts(L, eta, mu, lam, D, T, start)
        got = counts_by_kind(r.info["transitions"], r.info["transition_counts"])
        for k, mean in want.items():
            x = got[k].astype(float)
            if mean == 0:
                assert x.sum() == 0, k
                continue
            z = (x.mean() - mean) / (x.std(ddof=1) / math.sqrt(R))
            assert abs(z) < 4.5, (k, x.mean(), mean)


def test_mean_arrival_count_is_2_eta_lam_T():
    eta, lam, T, R = 50, 0.8, 3.0, 400
    r = simulate(L=1, eta=eta, lam=lam, T=T, dt=T, seed=11, replications=R)
    arrivals = counts_by_kind(r.info["transitions"], r.info["transition_counts"])["arrival"]
    mean = 2 * eta * lam * T  # Poisson: variance = mean
    assert abs(arrivals.mean() - mean) < 4 * math.sqrt(mean / R)
    assert abs(arrivals.var(ddof=1) / mean - 1) < 0.25


def test_random_routing_gives_poisson_queue_with_fluid_mean():
    """theta = 0: Q1(T) is an M/G/oo count from an empty start, exactly Poisson with mean
    eta * q1_fluid(T) (an exact law the simulator must reproduce)."""
    eta, T, R = 40, 3.0, 1500
    r = simulate(L=2, eta=eta, theta=0, T=T, dt=T, seed=3, replications=R)
    m = eta * fluid(L=2, theta=0, T=T, dt=T)["q1"][-1]
    Q1 = r["q1"][:, -1] * eta
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
    r = simulate(L=2, eta=20, T=2, dt=0.5, seed=0, initial=[0] * 6)
    assert r.values[0, 0].sum() == 0 and np.all(r.values >= 0)
    bad = [{"eta": 2.5}, {"replications": True}, {"backend": "fortran"}, {"L": "inf"}]
    bad += [{"seed": -1}, {"seed": 1.5}, {"seed": "x"}, {"seed": True}, {"chunk_events": 0}]
    bad += [{"eta": 10**16}, {"D": "1e-320"}, {"lam": "1e300", "eta": 10**6}, {"mu": 0}]
    bad += [{"initial": [1, 2]}, {"initial": [0, -1, 0, 0]}, {"initial": [0.5, 0, 0, 0]}]
    for kw in bad:
        with pytest.raises(SymdelayInputError):
            simulate(**{"L": 1, "eta": 10, "T": 1, **kw})
    with pytest.raises(SymdelayInputError, match="2 GB"):
        simulate(L=1, eta=10, T=1000, dt=0.001, replications=10_000, force=True)


def test_one_check_at_the_model_door():
    """simulate(L=...) builds the founding model, whose door is the only check: what the
    model takes (theta < 0: routing towards the longer queue) is simulated, and the same
    options give the same answer as the model-first entry."""
    from symdelay.analysis.stochastic import simulate as entry

    a = simulate(L=2, eta=50, theta=-1, T=2, dt=1, seed=4)
    b = entry(build_model("erlang", L=2, mu=1, lam=1, theta=-1, D=1), eta=50, T=2, dt=1, seed=4)
    assert np.array_equal(a.values, b.values) and a.parameters["theta"] == "-1"
    with pytest.raises(SymdelayInputError, match="L must be"):
        simulate(L=0, eta=10, T=1)


def test_seeds_are_recorded_and_repeatable():
    a = simulate(L=1, eta=50, T=1, seed=None)
    seed = a.parameters["seed"]
    assert isinstance(seed, int)  # fresh entropy, recorded so the run can be repeated
    b = simulate(L=1, eta=50, T=1, seed=seed)
    assert np.array_equal(a.values, b.values)
    ss = np.random.SeedSequence(12)
    assert simulate(L=1, eta=50, T=1, seed=ss).parameters["seed"] == 12
    child = ss.spawn(1)[0]
    assert simulate(L=1, eta=50, T=1, seed=child).parameters["seed"] == {
        "entropy": 12,
        "spawn_key": [0],
    }
    assert simulate(L=1, eta=50, T=1, seed=np.random.default_rng(1)).parameters["seed"] is None
    assert (
        simulate(L=1, eta=50, T=1, seed="7").parameters["seed"]
        == 7
        == simulate(L=1, eta=50, T=1, seed=7.0).parameters["seed"]
    )
