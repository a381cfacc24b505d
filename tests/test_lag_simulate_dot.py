"""The exact simulation of a model reading ``dot()`` through a constant lag (the announcement
of Novitzky, Pender, Rand & Wesson 2020): in the stochastic system ``dot(x)`` at ``s`` is the
drift of ``x`` at ``s`` (the sum over the transitions of their change of ``x`` times their
rate at ``s``, over eta, each rate with the lagged values it reads at ``s``), so the announced
value at a routing draw at ``t`` is a recursion through ``t - D, t - 2 D, ...`` down to the
history. Checked here: the compiled kernel and its twin give the same paths (the path array
and the levels grown from their smallest sizes); the announced value at every routing draw
equals a recomputation from the recorded jump path by an independent recursion (the fluid
drift formula written out here, the history's derivative before 0: 0 held, a table's slope);
p = 0 is information_delay's path for the same seed; the law of large numbers (the mean of
the paths within its Bonferroni band of ``symdelay.fluid`` of the same model, the sup
distance falling about 2x per 4x eta); and what is not built is refused in one line."""

from __future__ import annotations

import math
import threading
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from symdelay import fluid, simulate
from symdelay.analysis.kernel.lagrun import LagRun
from symdelay.analysis.kernel.pytwin import python_function
from symdelay.analysis.simulate import generated_kernel
from symdelay.core.errors import SymdelayInputError
from symdelay.core.rng import seed_states
from symdelay.model import load_toml

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "models"
ANN = EXAMPLES / "announcement.toml"
VALUES = {"mu": 1, "lam": 1, "theta": 3, "D": 1, "p": "0.2"}
#: a history table (scaled states) back to -D: its slope is the derivative before 0
TABLE = (np.array([-1.0, -0.6, -0.2, 0.0]), np.array([[1.0, 1.4], [1.5, 1.1], [0.8, 1.3],
                                                      [1.2, 0.9]]))  # fmt: skip


def announcement(**over):
    return load_toml(ANN, **(VALUES | over))


def traced(k, eta, X0, T, seed, history=None):
    """One replication by the twin with its trace (replication 0 of ``seed``, chunks of 97
    events; the path and the levels start at their smallest sizes and grow)."""
    trace: list = []
    fn = python_function(k.python_source, trace)
    lag = LagRun(k, eta, X0, history, 0.0)
    rs = seed_states(np.random.default_rng(seed), 1)[0].copy()
    X = np.array(X0, dtype=np.int64)
    g = np.linspace(0.0, T, 5)
    out = np.zeros((g.size, len(X0)), dtype=np.int64)
    c = np.zeros(len(k.names), dtype=np.int64)
    mem, _ = k._drive(fn, "python", float(eta), X, rs, g, out, c, 97, threading.Event(), None, lag)
    return trace, mem


@pytest.mark.parametrize("history", [None, "table"])
def test_twin_equals_compiled_kernel(history):
    """Same seed, same paths, counts and final state; T = 12 D: the levels grow past their
    first 8, the path from 64 entries."""
    k = generated_kernel(announcement())
    past = TABLE if history else None
    grid = np.linspace(0, 12, 13)
    kw = {"history": past, "rate": 0.0}
    c = k.run_replications(30, [30, 40], grid, 5, 2, backend="c", **kw)
    py = k.run_replications(30, [30, 40], grid, 5, 2, backend="python", chunk_events=97, **kw)
    assert c.backend == "c" and py.backend == "python"
    assert np.array_equal(c.paths, py.paths)
    assert np.array_equal(c.transition_counts, py.transition_counts)
    assert np.array_equal(c.final, py.final)
    assert c.events > 1000
    mem = c.lag_memory[0]
    assert mem["levels"] >= 16 and mem["path_capacity"] >= mem["path_entries"] > 500


def _announced_by_recursion(trace, X0, eta, v, history):
    """The announced values ``q_i(s) + p q_i'(s)`` at ``s = t - D`` for a draw at ``t``,
    from the recorded jump path alone: ``q' `` is the drift ``2 lam softmax_i(-theta a(s))
    - mu q_i(s)`` with ``a(s)`` the announced values at ``s`` (the same recursion one level
    down); before 0 the history's states (counts rounded as the kernel keeps them) and its
    derivative (0 held, the table's slope)."""
    times, states = [0.0], [np.asarray(X0) / eta]
    for step in trace:
        if step[0] == "event":
            times.append(step[1])
            states.append(np.asarray(step[4]) / eta)
    mu, lam, theta, D, p = (float(v[k]) for k in ("mu", "lam", "theta", "D", "p"))

    def past(u):
        if history is None:
            return np.asarray(X0) / eta, np.zeros(2)
        t, x = history
        q = np.array([math.floor(np.interp(u, t, x[:, i]) * eta + 0.5) / eta for i in (0, 1)])
        k = min(int(np.searchsorted(t, u, side="right")) - 1, len(t) - 2)
        return q, (x[k + 1] - x[k]) / (t[k + 1] - t[k])

    def announced(t):
        u = t - D
        if u < 0:
            q, dq = past(u)
            return q + p * dq
        q = states[int(np.searchsorted(times, u, side="right")) - 1]
        a = announced(u)
        w = np.exp(-theta * a)
        return q + p * (2 * lam * w / w.sum() - mu * q)

    return announced


@pytest.mark.parametrize("history", [None, "table"])
def test_announced_value_at_every_draw_is_the_recursion_of_the_path(history):
    m = announcement()
    k = generated_kernel(m)
    eta, X0 = 40, [50, 30]
    past = TABLE if history else None
    trace, _ = traced(k, eta, X0, 7.0, 3, past)
    announced = _announced_by_recursion(trace, X0, eta, VALUES, past)
    draws = [s for s in trace if s[0] == "lazy"]
    assert len(draws) > 400 and draws[-1][1] > 6.0  # recursions 7 levels deep
    worst = max(float(np.max(np.abs(np.asarray(lv) - announced(tn)))) for _, tn, _, lv, _ in draws)
    assert worst < 1e-12
    # and the routing probabilities are the logit of those values
    for _, _, _, lv, rates in draws[::37]:
        w = np.exp(-3 * np.asarray(lv))
        assert np.allclose(np.asarray(rates) / sum(rates), w / w.sum(), rtol=1e-12)


def test_p_zero_is_the_information_delay_path():
    """At p = 0 the announced value is q(t - D): the path of information_delay for the same
    seed (the same tree, the same draws, the same doubles)."""
    a = simulate(announcement(p=0), eta=60, T=8, dt=0.5, seed=11, replications=2)
    info = load_toml(EXAMPLES / "information_delay.toml", mu=1, lam=1, theta=3, D=1)
    b = simulate(info, eta=60, T=8, dt=0.5, seed=11, replications=2)
    assert np.array_equal(a.values, b.values)
    assert np.array_equal(a.info["transition_counts"], b.info["transition_counts"])
    mem = a.info["memory"]["recursion"]
    assert mem["states"] == ["q1", "q2"] and mem["levels"] >= 10
    assert "drift" in a.info["lags"]["tau"]


# ------------------------------------------------------------------ law of large numbers
ETAS = (100, 400, 1600)
R, T, DT = 60, 6.0, 0.5
ALPHA = 1e-3


def test_mean_path_tends_to_the_fluid_path():
    """(a) the mean of R paths at every grid time within its Bonferroni band of the fluid
    path (family-wise level ALPHA); (b) the mean sup distance falls by 2 per 4x eta (between
    1.5 and 2.7: the exponents 0 and 1 are outside)."""
    m = announcement(theta=2)
    start = [1.5, 1.0]
    fl = fluid(m, T=T, dt=DT, initial=start)
    x = fl.values[0][:, :2]
    z = float(stats.norm.isf(ALPHA / (2 * len(ETAS) * x.size)))
    sups = []
    for i, eta in enumerate(ETAS):
        counts = [round(1.5 * eta), eta]
        s = simulate(m, eta=eta, T=T, dt=DT, seed=40 + i, replications=R, initial=counts)
        v = s.values[:, :, :2]
        mean, sd = v.mean(axis=0), v.std(axis=0, ddof=1)
        assert np.all(np.abs(mean - x) <= z * sd / math.sqrt(R) + 1e-12), eta
        sups.append(np.abs(v - x).max(axis=(1, 2)).mean())
    ratios = [sups[i] / sups[i + 1] for i in range(len(sups) - 1)]
    assert all(1.5 < r < 2.7 for r in ratios), ratios
    # the band is not loose: at the largest eta it rejects the fluid path without the
    # velocity term (p = 0, information_delay's)
    other = fluid(announcement(theta=2, p=0), T=T, dt=DT, initial=start).values[0][:, :2]
    assert np.any(np.abs(mean - other) > z * sd / math.sqrt(R))


# ------------------------------------------------------------------ refusals
LAG = 'tau = { kind = "constant", value = "D" }'
Q2 = "delayed(q2 + p*dot(q2), tau)"
ARRIVAL_1 = (
    'rate = "2*lam*exp(-theta*delayed(q1 + p*dot(q1), tau))/(exp(-theta*delayed(q1 + '
    'p*dot(q1), tau)) + exp(-theta*delayed(q2 + p*dot(q2), tau)))"'
)
#: (replacements in announcement.toml, its symmetry dropped; a word of the refusal)
VARIANTS = {
    # dot() through a distributed lag: the drift at every past time
    "uniform": ([(LAG, 'tau = { kind = "uniform", low = "0", high = "D" }')], "distributed"),
    # a second lag beside it (q2 announced 2 D ago): the recursion would branch
    "two lags": (
        [
            (LAG, LAG + '\ntau2 = { kind = "constant", value = "2*D" }'),
            (Q2, Q2.replace("tau)", "tau2)")),
        ],
        "branch",
    ),
    # an action-delayed transition in such a model
    "action": ([("change = { q1 = -1 }", 'change = { q1 = -1 }\nlag = "tau"')], "action"),
    # a rate reading it outside a class of constant total (no normalisation)
    "open": (
        [(ARRIVAL_1, 'rate = "lam*exp(-theta*delayed(q1 + p*dot(q1), tau))"')],
        "constant total",
    ),
}


@pytest.mark.parametrize("case", sorted(VARIANTS))
def test_refuses_what_it_does_not_build(tmp_path, case):
    text = ANN.read_text()
    text = text[: text.index("[symmetry]")]
    subs, word = VARIANTS[case]
    for old, new in subs:
        assert old in text
        text = text.replace(old, new)
    (tmp_path / "variant.toml").write_text(text)
    m = load_toml(tmp_path / "variant.toml", **VALUES)
    with pytest.raises(SymdelayInputError, match=word) as exc:
        generated_kernel(m)
    assert "\n" not in str(exc.value) and "fluid" in str(exc.value)


def test_refuses_an_unstable_difference_operator_and_memory_over_budget():
    with pytest.raises(SymdelayInputError, match="difference operator"):
        simulate(announcement(theta=2, p="0.5"), eta=10, T=1)  # lam theta p = 1
    from symdelay.analysis.stochastic import _lag_run

    m = announcement()
    k = generated_kernel(m)
    eta = 10**9  # the path kept whole: ~4 eta T entries of 40 bytes
    with pytest.raises(SymdelayInputError, match=r"drift recursion.*--force") as exc:
        _lag_run(m, k, eta, np.array([eta, eta]), None, False, 100.0)
    assert "\n" not in str(exc.value)
