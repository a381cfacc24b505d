"""Distributed action delays in the generated kernel: each decision's delay is drawn from its
law by a small program (the same draws in C and in the twin) and its jump kept in a heap
until it lands. Checked: the twin equals the compiled kernel; the drawn delays follow the
law (Kolmogorov-Smirnov against its distribution function); every jump lands at the time
drawn for it; the jobs in transit at 0 are as many as a stationary past leaves (Poisson,
mean rate x E[X])."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from test_lag_simulate import traced

from symdelay import fluid
from symdelay.analysis.simulate import generated_kernel
from symdelay.analysis.stochastic import simulate
from symdelay.core.errors import SymdelayInputError
from symdelay.model import load_toml

#: a model text of its own (the schema test reads it); KIND and the lag line are replaced
TABLE = """
name = "two queues, logit routing, KIND action delay"
[parameters]
mu = "positive"
lam = "positive"
theta = "positive"
D = "positive"
[lags]
tau = { kind = "constant", value = "D" }
[state]
names = ["q1", "q2"]
[[transitions]]
name = "arrival to 1"
change = { q1 = 1 }
lag = "tau"
rate = "2*lam*exp(-theta*q1)/(exp(-theta*q1) + exp(-theta*q2))"
[[transitions]]
name = "arrival to 2"
change = { q2 = 1 }
lag = "tau"
rate = "2*lam*exp(-theta*q2)/(exp(-theta*q1) + exp(-theta*q2))"
[[transitions]]
name = "service 1"
change = { q1 = -1 }
rate = "mu*q1"
[[transitions]]
name = "service 2"
change = { q2 = -1 }
rate = "mu*q2"
"""

PH_S = np.array([[-2.0, 1.5], [0.0, -3.0]])  # its mean by a linear solve, an independent path
LAWS = {
    # kind: (lag declarations, distribution function of the delay at D = 1, its mean)
    "exponential": (
        'tau = { kind = "exponential", mean = "D" }',
        lambda x: 1 - np.exp(-x),
        1.0,
    ),
    "gamma": (
        'tau = { kind = "gamma", shape = "3", mean = "D" }',
        lambda x: stats.gamma.cdf(x, 3, scale=1 / 3),
        1.0,
    ),
    "uniform": (
        'tau = { kind = "uniform", low = "0.5", high = "D + 1" }',
        lambda x: np.clip((x - 0.5) / 1.5, 0, 1),
        1.25,
    ),
    "phase_type": (
        'tau = { kind = "phase_type", alpha = ["0.8", "0.2"], S = [["-2", "1.5"], ["0", "-3"]] }',
        # 1 - alpha exp(S x) 1, exp(S x) in closed form (S triangular, eigenvalues -2, -3)
        lambda x: (
            1
            - 0.8 * (np.exp(-2 * x) + 1.5 * (np.exp(-2 * x) - np.exp(-3 * x)))
            - 0.2 * np.exp(-3 * x)
        ),
        float(np.array([0.8, 0.2]) @ np.linalg.solve(-PH_S, np.ones(2))),
    ),
    "mixture": (
        'c = { kind = "constant", value = "D" }\n'
        'e = { kind = "exponential", mean = "2*D" }\n'
        'tau = { kind = "mixture", lags = ["c", "e"], weights = ["0.4", "0.6"] }',
        None,  # an atom at 1 (weight 0.4), else exponential of mean 2: checked apart
        0.4 + 1.2,
    ),
}


DEFAULT_LAG = 'tau = { kind = "constant", value = "D" }'


def _table(kind, lags):
    return TABLE.replace("KIND", kind).replace(DEFAULT_LAG, lags)


def action_model(tmp_path, kind, lags=None):
    f = tmp_path / f"{kind}.toml"
    f.write_text(_table(kind, lags or LAWS[kind][0]))
    return load_toml(f, mu=1, lam=1, theta=2, D=1)


@pytest.mark.parametrize("kind", sorted(LAWS))
def test_distributed_action_delay(tmp_path, kind):
    m = action_model(tmp_path, kind)
    k = generated_kernel(m)
    # the twin equals the compiled kernel (its heap grown from its smallest size)
    grid = np.linspace(0, 3, 7)
    c = k.run_replications(40, [30, 70], grid, 9, 2, backend="c", rate=0.0)
    py = k.run_replications(40, [30, 70], grid, 9, 2, backend="python", chunk_events=101)
    assert np.array_equal(c.paths, py.paths) and np.array_equal(c.final, py.final)
    assert np.array_equal(c.transition_counts, py.transition_counts)
    # the delays drawn follow the law; every jump lands when it was drawn to
    T = 30.0
    trace, _, _ = traced(k, 30, [30, 30], [0.0, T], 5)
    decided = [s for s in trace if s[0] == "decide"]
    delays = np.array([due - t for _, t, _, due in decided])
    cdf, mean = LAWS[kind][1], LAWS[kind][2]
    if cdf is None:  # the mixture: the atom's share (binomial), the rest exponential
        atom = np.abs(delays - 1.0) < 1e-9  # (t + 1) - t is 1 to rounding
        assert stats.binomtest(int(atom.sum()), atom.size, 0.4).pvalue > 1e-4
        cdf, delays = (lambda x: 1 - np.exp(-x / 2)), delays[~atom]
    assert stats.kstest(delays, cdf).pvalue > 1e-4
    landed = Counter((s[1], s[2]) for s in trace if s[0] == "event" and s[3])
    due = Counter((d, j) for _, _, j, d in decided if d <= T)
    early = landed - due
    assert not due - landed  # each decision before T - delay landed at its time
    # in transit at 0: Poisson(eta * (beta1 + beta2) * E[X]) = Poisson(2 lam eta E[X])
    n0 = sum(early.values())
    mu0 = 2 * 30 * mean
    assert abs(n0 - mu0) < 5 * math.sqrt(mu0), (n0, mu0)
    assert all(t > 0 for t, _ in early)


def test_empty_history_and_entry(tmp_path):
    m = action_model(tmp_path, "gamma")
    s = simulate(m, eta=20, T=2, dt=1, seed=2, history="empty")
    assert s.info["history"] == "empty" and s.events[0] > 20
    trace, _, _ = traced(generated_kernel(m), 20, [20, 20], [0.0, 2.0], 2, history="empty")
    first = min(s[1] for s in trace if s[0] == "decide")
    assert min(s[1] for s in trace if s[0] == "event" and s[3]) > first


def test_non_integer_gamma_action_delay_refused(tmp_path):
    lags = 'tau = { kind = "gamma", shape = "2.5", mean = "D" }'
    m = action_model(tmp_path, "g", lags)
    with pytest.raises(SymdelayInputError, match="non-integer shape"):
        simulate(m, eta=10, T=1)


@pytest.mark.parametrize(
    ("kind", "history", "T"),
    [("constant", None, 3), ("constant", "empty", 3), ("mixture", None, 3),
     ("constant", None, 0.5), ("mixture", None, 0.5)],
)  # fmt: skip
def test_in_transit_against_fluid(tmp_path, kind, history, T):
    """The record's ``in_transit[<transition>]`` (jobs decided and not yet landed, over
    eta): the mean over R replications lies within its band of the fluid path's column
    (Bonferroni over the times and transitions, family-wise 10^-3), a band that rejects the
    fluid of half the delay; twin equals C on the columns too. With T shorter than the
    delay, the jobs of the past landing after T are counted, not scheduled."""
    lags = 'tau = { kind = "constant", value = "D" }' if kind == "constant" else None
    m = action_model(tmp_path, kind, lags)
    R, eta, dt = 40, 400, T / 6
    s = simulate(m, eta=eta, T=T, dt=dt, seed=4, replications=R, history=history,
                 initial=[600, 400])  # fmt: skip
    cols = [f"in_transit[arrival to {i}]" for i in (1, 2)]
    assert s.states[2:] == tuple(cols)
    f = fluid(m, T=T, dt=dt, initial=[1.5, 1.0], history=history)
    assert f.states[2:] == tuple(cols)
    x, y = s.values[:, :, 2:], f.values[0, :, 2:]
    if history == "empty":
        assert not x[:, 0].any()  # nothing in transit at 0
    mean, sd = x.mean(axis=0), x.std(axis=0, ddof=1)
    z = stats.norm.ppf(1 - 1e-3 / (2 * mean.size))
    assert np.all(np.abs(mean - y) <= z * sd / math.sqrt(R) + 1e-12), (mean, y)
    half = m.with_values(D=Fraction(1, 2))
    wrong = fluid(half, T=T, dt=dt, initial=[1.5, 1.0], history=history).values[0, :, 2:]
    assert np.any(np.abs(mean - wrong) > z * sd / math.sqrt(R))
    py = simulate(m, eta=30, T=T, dt=dt, seed=1, history=history, backend="python")
    c = simulate(m, eta=30, T=T, dt=dt, seed=1, history=history, backend="c")
    assert np.array_equal(py.values, c.values)
    assert py.info["memory"] == c.info["memory"]  # the peaks kept alike


@pytest.mark.parametrize("kind", sorted(LAWS))
def test_in_transit_draws_follow_the_laws(tmp_path, kind):
    """The jobs in transit at 0 are drawn vectorised (numpy): a delay from its law, and the
    time still to go of a job decided in a stationary past from the equilibrium excess law,
    density ``P(X > s) / E[X]`` (Kolmogorov-Smirnov against its distribution function, the
    running integral of the law's survival function: an independent path)."""
    from scipy.integrate import quad

    from symdelay.analysis.kernel.lagplan import program
    from symdelay.analysis.kernel.lagrun import _excess_many, _sample_many

    m = action_model(tmp_path, kind)
    g = program(m.lags["tau"], dict(m.values), "t")
    gen = np.random.default_rng(11)
    cdf, mean = LAWS[kind][1], LAWS[kind][2]
    if cdf is None:  # the mixture: an atom at 1 (weight 0.4), else exponential of mean 2
        cdf = lambda x: 0.4 * (np.asarray(x) >= 1) + 0.6 * (1 - np.exp(-np.asarray(x) / 2))  # noqa: E731
        x = _sample_many(g, 0, 4000, gen)
        atom = x == 1.0
        assert stats.binomtest(int(atom.sum()), atom.size, 0.4).pvalue > 1e-4
        assert stats.kstest(x[~atom], lambda y: 1 - np.exp(-y / 2)).pvalue > 1e-4
    else:
        assert stats.kstest(_sample_many(g, 0, 4000, gen), cdf).pvalue > 1e-4
    tail = quad(lambda s: 1 - cdf(s), 0, 1)[0] + quad(lambda s: 1 - cdf(s), 1, np.inf)[0]
    assert math.isclose(tail, mean, rel_tol=1e-6)  # E[X] = int P(X > s) ds

    x = _excess_many(g, 0, 4000, gen)
    grid = np.linspace(0, x.max() + 1, 200_001)  # the excess law's cdf: the survival's
    surv = 1 - cdf(grid)  # running integral by the trapezoid rule (error ~1e-10 here)
    F = np.concatenate([[0], np.cumsum((surv[1:] + surv[:-1]) / 2 * np.diff(grid))]) / mean
    assert stats.kstest(x, lambda y: np.interp(y, grid, F)).pvalue > 1e-4


def test_long_distributed_delay_from_a_held_past(tmp_path):
    """A held past and a distributed delay much longer than T: the past's jobs are all
    drawn (their time estimated first and refused over the budget, one line), those landing
    after T counted, not kept: the heap stays small and in_transit counts them all."""
    f = tmp_path / "m.toml"
    f.write_text(_table("mixture", LAWS["mixture"][0]))
    with pytest.raises(SymdelayInputError, match=r"drawing the jobs in transit at 0.*--force"):
        simulate(load_toml(f, mu=1, lam=1, theta=2, D=10**5), eta=10**4, T=0.01, dt=0.01)
    eta, D = 10**3, 100  # E[X] = 0.4 D + 0.6 (2 D) = 160: ~1.6e5 jobs in transit
    s = simulate(load_toml(f, mu=1, lam=1, theta=2, D=D), eta=eta, T=0.01, dt=0.01,
                 initial=[1500, 1000])  # fmt: skip
    heap = s.info["memory"]["heap"]
    assert heap["peak_in_use"] <= heap["capacity"] <= 1024  # not the 1.6e5 in transit
    w = np.exp(-2 * np.array([1.5, 1.0]))
    mean = eta * 2 * w / w.sum() * 1.6 * D  # Poisson(eta beta_i E[X])
    got = s.values[0, 0, 2:] * eta
    assert np.all(np.abs(got - mean) < 5 * np.sqrt(mean)), (got, mean)


def test_simulated_variance_reads_the_states_not_in_transit(tmp_path):
    """The simulated variance of an action-delay model weighs its states (the record's
    in_transit columns follow them): the same number as the weighted states by hand."""
    from symdelay.analysis.stochastic import simulated_variance

    lags = 'tau = { kind = "constant", value = "D" }'
    m = action_model(tmp_path, "constant", lags).with_values(theta=1)
    kw = {"burn_in": 10, "dt": 0.5, "batches": 5, "seed": 3}
    sv = simulated_variance(m, eta=50, T=60, weights=[1, -1], **kw)
    point = m.equilibrium.point
    init = [round(float(point[q]) * 50) for q in m.states]
    s = simulate(m, 50, 60, dt=0.5, initial=init, seed=3)
    x = (s.values[0, :, 0] - s.values[0, :, 1]) * 50  # q1 - q2 in counts
    kept = x[s.t > 10]
    assert s.values.shape[2] == 4 and sv.samples == kept.size
    assert math.isclose(sv.estimate, kept.var() / 50, rel_tol=0.3), (sv.estimate, kept.var())


def test_simulated_variance_without_symmetry_asks_for_weights():
    """A model without a symmetry has no imbalance: one line asking for weights (it was a
    numpy error), and weights of the wrong length are refused too."""
    from symdelay.analysis.stochastic import simulated_variance
    from symdelay.core.errors import SymdelayInputError
    from symdelay.models import build_model

    m = build_model("hetero", L=1, mu1=1, mu2=2, lam=1, theta=1, D=1)
    with pytest.raises(SymdelayInputError, match="declares no symmetry"):
        simulated_variance(m, 100, T=100)
    with pytest.raises(SymdelayInputError, match="one number per state"):
        simulated_variance(m, 100, T=100, weights=[1, 2])
