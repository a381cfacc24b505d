"""The exact simulation of delay models (the generated kernel's sections LAGS): the compiled
kernel and its Python twin give the same paths; the lagged values a routing reads are those
of the path itself (recomputed here from the twin's trace of every jump), and the routing
choices follow their logit probabilities (chi-square); an action-delayed jump lands exactly
its delay after its decision; what cannot be simulated exactly, and bad histories, are
refused in one line."""

from __future__ import annotations

import bisect
import itertools
import math
import threading
from pathlib import Path

import numpy as np
import pytest

from symdelay.analysis.kernel.lagrun import LagRun
from symdelay.analysis.kernel.pytwin import python_function
from symdelay.analysis.simulate import generated_kernel
from symdelay.analysis.stochastic import simulate
from symdelay.core.errors import SymdelayInputError
from symdelay.core.rng import seed_states
from symdelay.model import load_toml

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "models"
BASE = {"mu": 1, "lam": 1, "theta": 2}
MODELS = {
    "information_delay": {"D": 1},
    "moving_average": {"Delta": "1.5"},
    "two_lag_mixture": {"D1": "0.5", "D2": 2, "w": "0.3"},
    "constant_action_delay": {"D": 1},
}


def model(name, **over):
    return load_toml(EXAMPLES / f"{name}.toml", **(BASE | MODELS.get(name, {}) | over))


def traced(k, eta, X0, grid, seed, history=None):
    """One replication by the twin with its trace (as ``run_replications`` runs replication
    0 of ``seed``; the rings start at their smallest size, so they grow during the run)."""
    trace: list = []
    fn = python_function(k.python_source, trace)
    lag = LagRun(k, eta, X0, history, 0.0)
    rs = seed_states(np.random.default_rng(seed), 1)[0].copy()
    n, M = len(k.states), len(k.names)
    X = np.array(X0, dtype=np.int64)
    g = np.asarray(grid, dtype=float)
    out = np.zeros((g.size, n + lag.NA), dtype=np.int64)  # the counts, the in transit
    c = np.zeros(M, dtype=np.int64)
    k._drive(fn, "python", float(eta), X, rs, g, out, c, 97, threading.Event(), None, lag)
    return trace, out[:, :n], c


@pytest.mark.parametrize("name", sorted(MODELS))
def test_twin_equals_compiled_kernel(name):
    """Same seed, same paths, counts and final state: the C kernel (rings grown from their
    smallest size, chunks of 2^20 events) and the twin (chunks of 97 events)."""
    m = model(name)
    k = generated_kernel(m)
    grid = np.linspace(0, 4, 9)
    c = k.run_replications(40, [30, 70], grid, 5, 2, backend="c", rate=0.0)
    py = k.run_replications(40, [30, 70], grid, 5, 2, backend="python", chunk_events=97)
    assert c.backend == "c" and py.backend == "python"
    assert np.array_equal(c.paths, py.paths)
    assert np.array_equal(c.transition_counts, py.transition_counts)
    assert np.array_equal(c.final, py.final)
    assert c.events > 500


def _path(trace, X0):
    """The jump path from the twin's trace: change times and the counts from each on (the
    initial counts from -infinity)."""
    times, states = [-math.inf], [np.asarray(X0)]
    for step in trace:
        if step[0] == "event":
            times.append(step[1])
            states.append(np.asarray(step[4]))
    return times, states


def _at(times, states, u):
    return states[bisect.bisect_right(times, u) - 1]


def _integral(times, states, a, b):
    """int_a^b of the counts path (piecewise constant)."""
    total = np.zeros(len(states[0]))
    k = bisect.bisect_right(times, a) - 1
    lo = a
    while lo < b:
        hi = min(b, times[k + 1]) if k + 1 < len(times) else b
        total += states[k] * (hi - lo)
        lo, k = hi, k + 1
    return total


def _routing_check(m, lagged_value):
    """Each routing draw read the lagged values of the recorded path (exactly, or to
    rounding for a window), and the arrivals to queue 1 follow the logit of them: a
    chi-square over five bins of the probability."""
    from scipy import stats

    k = generated_kernel(m)
    eta, X0 = 25, [10, 40]
    trace, _, _ = traced(k, eta, X0, [0.0, 60.0], 3)
    times, states = _path(trace, X0)
    theta = 2.0
    probs, chose1 = [], []
    order = k._order.tolist()
    for step in (s for s in trace if s[0] == "lazy"):
        _, tn, slot, lv, rates = step
        want = lagged_value(times, states, tn) / eta
        assert np.allclose(lv, want, rtol=1e-12, atol=1e-12), (tn, lv, want)
        p1 = 1.0 / (1.0 + math.exp(-theta * (want[1] - want[0])))
        assert math.isclose(rates[0] / (rates[0] + rates[1]), p1, rel_tol=1e-12)
        probs.append(p1)
        chose1.append(k.names[order[slot]] == "arrival to 1")
    probs, chose1 = np.array(probs), np.array(chose1)
    assert len(probs) > 2500
    edges = np.quantile(probs, np.linspace(0, 1, 6))
    bins = np.clip(np.searchsorted(edges, probs, side="right") - 1, 0, 4)
    chi2 = 0.0
    for b in range(5):
        sel = bins == b
        exp1 = probs[sel].sum()
        exp2 = sel.sum() - exp1
        obs1 = chose1[sel].sum()
        chi2 += (obs1 - exp1) ** 2 / exp1 + (sel.sum() - obs1 - exp2) ** 2 / exp2
    assert stats.chi2.sf(chi2, 5) > 1e-4, chi2
    return probs


def test_constant_lag_reads_the_path_d_ago():
    _routing_check(model("information_delay"), lambda ts, xs, u: _at(ts, xs, u - 1.0))


def test_mixture_reads_the_weighted_lags():
    def value(ts, xs, u):
        return 0.3 * _at(ts, xs, u - 0.5) + 0.7 * _at(ts, xs, u - 2.0)

    _routing_check(model("two_lag_mixture"), value)


def test_window_reads_the_running_integral():
    def value(ts, xs, u):
        return _integral(ts, xs, u - 1.5, u) / 1.5

    # a window from the stored running integral: equal up to the rounding of the integrals
    m = model("moving_average")
    k = generated_kernel(m)
    trace, _, _ = traced(k, 25, [10, 40], [0.0, 10.0], 3)
    times, states = _path(trace, [10, 40])
    draws = [s for s in trace if s[0] == "lazy"]
    assert len(draws) > 400
    for _, tn, _, lv, _ in draws:
        assert np.allclose(lv, value(times, states, tn) / 25, rtol=1e-9, atol=1e-9)


def test_action_delay_lands_exactly_its_delay_later():
    """A FIFO per transition: every decision lands D after it, in order; the jobs in transit
    at 0 (the initial state's Poisson decisions of [-D, 0)) land in (0, D]."""
    m = model("constant_action_delay")
    k = generated_kernel(m)
    trace, _, counts = traced(k, 40, [30, 70], [0.0, 6.0], 2)
    D = 1.0
    order = k._order.tolist()
    p1 = 1.0 / (1.0 + math.exp(-2.0 * (70 - 30) / 40))  # the logit at the initial state
    for slot in {s[2] for s in trace if s[0] == "decide"}:
        decided = [s[1] for s in trace if s[0] == "decide" and s[2] == slot]
        landed = [s[1] for s in trace if s[0] == "event" and s[2] == slot and s[3]]
        early = len(landed) - len([t for t in decided if t + D <= 6.0])
        pre, post = landed[:early], landed[early:]
        assert all(0.0 < t <= D for t in pre) and pre == sorted(pre)
        assert post == [t + D for t in decided[: len(post)]]
        # in transit at 0: Poisson with mean eta * beta(x0) * D
        mean = 2 * 40 * (p1 if k.names[order[slot]] == "arrival to 1" else 1 - p1) * D
        assert len(post) > 100 and abs(early - mean) < 5 * math.sqrt(mean), (early, mean)
    # decisions are counted as the transition's events, landings are not
    ndec = sum(1 for s in trace if s[0] == "decide")
    assert ndec == sum(counts[q] for q in range(len(order)) if "arrival" in k.names[order[q]])


def test_empty_history_has_nothing_in_transit():
    m = model("constant_action_delay")
    k = generated_kernel(m)
    trace, _, _ = traced(k, 40, [30, 70], [0.0, 2.0], 2, history="empty")
    first = min(s[1] for s in trace if s[0] == "decide")
    landed = [s[1] for s in trace if s[0] == "event" and s[3]]
    assert landed and min(landed) == first + 1.0


def test_history_table_in_counts(tmp_path):
    """A history table: the lagged values before 0 are round(eta * value) of its linear
    interpolation."""
    m = model("information_delay")
    k = generated_kernel(m)
    t = np.array([-2.0, -0.5, 0.0])
    v = np.array([[0.2, 1.6], [1.4, 0.3], [1.0, 1.0]])
    eta = 25
    trace, _, _ = traced(k, eta, [25, 25], [0.0, 1.0], 4, history=(t, v))
    draws = [s for s in trace if s[0] == "lazy" and s[1] < 1.0]
    assert len(draws) > 20
    for _, tn, _, lv, _ in draws:
        u = tn - 1.0
        want = [math.floor(eta * np.interp(u, t, v[:, i]) + 0.5) / eta for i in range(2)]
        assert list(lv) == want, (u, lv, want)
    # the entry reads the same table from a file, its last row the start
    f = tmp_path / "h.csv"
    f.write_text("t,q1,q2\n" + "\n".join(f"{a},{b},{c}" for a, (b, c) in zip(t, v)) + "\n")
    s = simulate(m, eta=eta, T=1, dt=0.5, seed=4, history=str(f))
    assert s.parameters["initial"] == [25, 25] and s.info["history"]["rows"] == 3
    assert s.values.shape == (1, 3, 2)


def test_entry_record_and_cli(run_cli):
    for name in MODELS:
        s = simulate(model(name), eta=30, T=2, dt=1, seed=1)
        acts = [t.name for t in model(name).transitions if t.lag]  # + their in_transit
        assert s.values.shape == (1, 3, 2 + len(acts)) and s.info["lags"] and s.events[0] > 50
        assert s.states[2:] == tuple(f"in_transit[{a}]" for a in acts)
    sets = [x for kv in ("mu=1", "lam=1", "theta=2", "D=1") for x in ("--set", kv)]
    file = str(EXAMPLES / "information_delay.toml")
    status, out, err = run_cli("simulate", "--model-file", file, *sets, "--T", "1", "--eta", "20")
    assert status == 0 and "simulated 1 path" in out, err
    # the announcement (dot() through the lag: the drift recursion,
    # tests/test_lag_simulate_dot.py) answers; with lam theta p = 1 its difference operator
    # is not stable: refused in one line, as the fluid path refuses it
    neutral = str(EXAMPLES / "announcement.toml")
    status, out, err = run_cli(
        "simulate", "--model-file", neutral, *sets, "--set", "p=0.1", "--T", "1", "--eta", "20"
    )
    assert status == 0 and "simulated 1 path" in out, err
    status, out, err = run_cli(
        "simulate", "--model-file", neutral, *sets, "--set", "p=0.5", "--T", "1"
    )
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert "difference operator" in err, err


def test_refusals(tmp_path):
    m = model("information_delay")
    # the history's memory, estimated first
    with pytest.raises(SymdelayInputError, match=r"history of the lagged values.*--force"):
        simulate(model("information_delay", D=3), eta=10**7, T=3, dt=3)
    with pytest.raises(SymdelayInputError, match=r"empty.*reads information"):
        simulate(m, eta=10, T=1, history="empty")
    with pytest.raises(SymdelayInputError, match="shorter than the longest lag"):
        simulate(m, eta=10, T=1, history={"t": [-0.5, 0], "q1": [1, 1], "q2": [1, 1]})
    with pytest.raises(SymdelayInputError, match="columns must be t and the states"):
        simulate(m, eta=10, T=1, history={"t": [-2, 0], "q1": [1, 1]})
    with pytest.raises(SymdelayInputError, match=">= 0"):
        simulate(m, eta=10, T=1, history={"t": [-2, 0], "q1": [1, -1], "q2": [1, 1]})
    bad = tmp_path / "bad.csv"
    bad.write_text("t,q1,q2\n-2,1,x\n0,1,1\n")
    with pytest.raises(SymdelayInputError, match="every value must be a number"):
        simulate(m, eta=10, T=1, history=str(bad))
    with pytest.raises(SymdelayInputError, match="cannot read"):
        simulate(m, eta=10, T=1, history=str(tmp_path / "missing.csv"))
    from symdelay.models import build_model

    plain = build_model("nserver", N=2, L=1, mu=1, lam=1, theta=2, D=1)
    with pytest.raises(SymdelayInputError, match="history is for a model with lags"):
        simulate(plain, eta=10, T=1, history="empty")


FEEDBACK = """
name = "admission by the queue length seen D ago"
[parameters]
mu = "positive"
lam = "positive"
theta = "positive"
D = "positive"
[lags]
tau = { kind = "constant", value = "D" }
[state]
names = ["q"]
[[transitions]]
name = "arrival"
change = { q = 1 }
rate = "lam*exp(-theta*delayed(q, tau))"
[[transitions]]
name = "service"
change = { q = -1 }
rate = "mu*q"
"""


def test_eager_rate_reading_a_lag_changes_at_scheduled_times(tmp_path):
    """A rate outside a class of constant total (admission control on the length seen D
    ago) is updated when the lagged value changes, at (change time + D): the arrivals are
    then a Poisson process of intensity eta lam exp(-theta q(t - D)), and rescaled by its
    integral along the recorded path their gaps are Exp(1) (the time-rescaling theorem;
    Kolmogorov-Smirnov). The twin equals the compiled kernel."""
    from scipy import stats

    f = tmp_path / "feedback.toml"
    f.write_text(FEEDBACK)
    m = load_toml(f, mu=1, lam=2, theta=3, D="0.7")
    k = generated_kernel(m)
    grid = np.linspace(0, 4, 9)
    c = k.run_replications(50, [20], grid, 3, 2, backend="c", rate=0.0)
    py = k.run_replications(50, [20], grid, 3, 2, backend="python", chunk_events=89)
    assert np.array_equal(c.paths, py.paths) and np.array_equal(c.final, py.final)
    eta, T, D = 4, 600.0, 0.7  # a few jobs: each jump moves the intensity by e^(-3/4)
    trace, _, _ = traced(k, eta, [4], [0.0, T], 8)
    times, states = _path(trace, [4])
    order = k._order.tolist()
    arrivals = [s[1] for s in trace if s[0] == "event" and k.names[order[s[2]]] == "arrival"]
    # the intensity is piecewise constant, changing at the path's change times + D
    cuts = sorted({0.0, T, *[u + D for u in times[1:] if u + D < T]})

    def intensity(u):
        return eta * 2.0 * math.exp(-3.0 * _at(times, states, u - D)[0] / eta)

    pieces = [intensity(a) * (b - a) for a, b in itertools.pairwise(cuts)]
    Lam = np.concatenate([[0.0], np.cumsum(pieces)])

    def compensator(u):
        i = bisect.bisect_right(cuts, u) - 1
        return Lam[i] + intensity(cuts[i]) * (u - cuts[i])

    z = np.diff([0.0, *[compensator(u) for u in arrivals]])
    assert len(z) > 1000
    assert stats.kstest(z, "expon").pvalue > 1e-4


CHAIN = """
name = "two queues, logit routing on lengths seen through an {kind} lag"
[parameters]
mu = "positive"
lam = "positive"
theta = "positive"
D = "positive"
[lags]
{lags}
[state]
names = ["q1", "q2"]
[[transitions]]
name = "arrival to 1"
change = {{ q1 = 1 }}
rate = "2*lam*exp(-theta*delayed(q1, tau))/(exp(-theta*delayed(q1, tau)) + exp(-theta*delayed(q2, tau)))"
[[transitions]]
name = "arrival to 2"
change = {{ q2 = 1 }}
rate = "2*lam*exp(-theta*delayed(q2, tau))/(exp(-theta*delayed(q1, tau)) + exp(-theta*delayed(q2, tau)))"
[[transitions]]
name = "service 1"
change = {{ q1 = -1 }}
rate = "mu*q1"
[[transitions]]
name = "service 2"
change = {{ q2 = -1 }}
rate = "mu*q2"
"""


def _erlang3(x):
    from scipy import stats

    return stats.gamma.cdf(x, 3, scale=0.8 / 3)


def _phase_type(x):
    """1 - alpha exp(S x) 1 for alpha = (0.7, 0.2) (an atom 0.1 at 0), S = [[-2, 1.5], [0,
    -3]]: exp(S x) in closed form (triangular, eigenvalues -2 and -3)."""
    e2, e3 = np.exp(-2 * x), np.exp(-3 * x)
    return 1 - 0.7 * (e2 + 1.5 * (e2 - e3)) - 0.2 * e3


@pytest.mark.parametrize(
    "kind, lags, cdf, weight",
    [
        ("Erlang", 'tau = { kind = "gamma", shape = "3", mean = "D" }', _erlang3, 1.0),
        (
            "exponential mixed",
            'c = { kind = "constant", value = "D" }\n'
            'e = { kind = "exponential", mean = "D" }\n'
            'tau = { kind = "mixture", lags = ["c", "e"], weights = ["0.25", "0.75"] }',
            lambda x: 1 - np.exp(-x / 0.8),
            0.75,
        ),
        (
            "phase-type",
            'tau = { kind = "phase_type", alpha = ["0.7", "0.2"], '
            'S = [["-2", "1.5"], ["0", "-3"]] }',
            _phase_type,
            1.0,
        ),
    ],
    ids=["erlang", "exponential-mixture", "phase-type"],
)
def test_chain_lag_reads_the_kernel_average(tmp_path, kind, lags, cdf, weight):
    """An exponential, Erlang or phase-type information lag: the value the routing read is
    the kernel average of the recorded path, int E(t - u) g(u) du (an atom at 0 included),
    here summed piece by piece with the lag's distribution function (SciPy's gamma, or the
    phase-type law's closed form: an independent path); the twin equals the compiled
    kernel."""
    f = tmp_path / "chain.toml"
    f.write_text(CHAIN.format(kind=kind, lags=lags))
    m = load_toml(f, mu=1, lam=1, theta=2, D="0.8")
    k = generated_kernel(m)
    if weight == 1:  # the chains' C code (the mixture adds nothing to it: one compile less)
        grid = np.linspace(0, 3, 7)
        c = k.run_replications(40, [30, 70], grid, 5, 2, backend="c", rate=0.0)
        py = k.run_replications(40, [30, 70], grid, 5, 2, backend="python", chunk_events=83)
        assert np.array_equal(c.paths, py.paths) and np.array_equal(c.final, py.final)
    eta, X0 = 25, [10, 40]
    trace, _, _ = traced(k, eta, X0, [0.0, 8.0], 3)
    times, states = _path(trace, X0)
    draws = [s for s in trace if s[0] == "lazy"]
    assert len(draws) > 300
    for _, tn, _, lv, _ in draws[::15]:
        # pieces [times[i], times[i+1]) of the path before tn (the first from -infinity;
        # the draw at tn sees the state before the jump it makes)
        edges = np.array(times[1:])
        edges = edges[edges < tn]
        F = cdf(tn - edges)  # the weight of the lags reaching back before each edge
        upper = np.concatenate([[1.0], F])  # F(tn - a) for each piece's start a
        lower = np.concatenate([F, [0.0]])  # F(tn - b) for its end b (F(0-) = 0)
        piece = np.array(states[: len(upper)], dtype=float) / eta
        want = weight * ((upper - lower)[:, None] * piece).sum(axis=0)
        if weight < 1:  # the constant member of the mixture
            want += (1 - weight) * _at(times, states, tn - 0.8) / eta
        assert np.allclose(lv, want, rtol=1e-9, atol=1e-12), (tn, lv, want)


@pytest.mark.parametrize(
    "lags, match",
    [
        ('tau = { kind = "gamma", shape = "2.5", mean = "D" }', "gamma lag"),
        ('tau = { kind = "gamma", shape = "501", mean = "D" }', "shapes 1..500"),
    ],
)
def test_information_lags_not_read_exactly_are_refused(tmp_path, lags, match):
    f = tmp_path / "chain.toml"
    f.write_text(CHAIN.format(kind="other", lags=lags))
    m = load_toml(f, mu=1, lam=1, theta=2, D="0.8")
    with pytest.raises(SymdelayInputError, match=match):
        simulate(m, eta=10, T=1)


def test_memory_sized_by_the_run_when_shorter_than_the_lag():
    """A run much shorter than the lag holds the changes of the run (information, held
    history) and, for an action delay, the jobs landing before T (those of the past that
    land later are counted, not kept): both run at D = 1e5, eta = 1e5, T = 0.01 in small
    rings and FIFOs. The record's info["memory"] says what was held."""
    big, eta = {"D": 100000}, 10**5
    s = simulate(model("information_delay", **big), eta=eta, T=0.01, dt=0.01)
    mem = s.info["memory"]
    assert [c["lookback"] for c in mem["channels"]] == [1e5, 1e5]
    assert all(c["peak_in_use"] <= c["capacity"] <= 2**16 for c in mem["channels"])
    assert mem["bytes_estimated"] <= mem["budget_bytes"] and s.events[0] < 10**4
    act = model("constant_action_delay", **big)
    s = simulate(act, eta=eta, T=0.01, dt=0.01, initial=[150000, 100000])
    fifos = s.info["memory"]["fifos"]
    assert [f["delay"] for f in fifos] == [1e5, 1e5]
    assert all(f["peak_in_use"] <= f["capacity"] <= 2**16 for f in fifos)
    # in transit at 0: the decisions of [-D, 0) at the held state's rates, Poisson
    w = np.exp(-2 * np.array([1.5, 1.0]))
    mean = eta * 2 * w / w.sum() * 1e5  # eta beta_i D
    got = s.values[0, 0, 2:] * eta
    assert np.all(np.abs(got - mean) < 5 * np.sqrt(mean)), (got, mean)
    # from an empty past nothing lands before T: every decision is still in its FIFO
    s = simulate(act, eta=eta, T=0.01, dt=0.01, history="empty")
    fifos = s.info["memory"]["fifos"]
    counts = s.info["transition_counts"][0][:2]
    assert [f["peak_in_use"] for f in fifos] == list(counts)
    assert np.allclose(s.values[0, -1, 2:] * eta, counts)
