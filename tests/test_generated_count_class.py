"""Count classes of the generated kernel: linear rates of one coefficient c * X_i, c * X_i',
... are one leaf c * S of the sum tree (S the sum of their counts, kept exact in an integer
tree); the class drawn, m = floor(v / c) of the rest of the draw picks the member holding the
m-th job. The event drawn from a fixed state has the law of the exact rate ratios (chi-square
against rates evaluated by lambdify), members that share a state or have no jobs included;
C equals the Python twin at every tree depth; the kernel with count classes and the kernel
without them have one law; a bad coefficient names a transition of its class."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from _founding_law import founding, kind, table
from _kernel_helpers import one_event_counts
from scipy.stats import chisquare

from symdelay.analysis.kernel import tuning as gen
from symdelay.analysis.simulate import GeneratedKernel
from symdelay.core.errors import SymdelayInputError

P = dict(mu=1, lam=1, theta=2, D=1)


def _chain_kernel(n=6, c="3/2", shared=True):
    """in -> x0 -> ... -> x_{n-1} -> out, every step at rate c * x_i (one count class), a
    leak from x0 at the same rate (two members on one state) and a service of x_{n//2} at
    another rate (a linear rate of its own)."""
    xs = sp.symbols(f"x0:{n}")
    cs, d = sp.symbols("c d")
    e = np.eye(n, dtype=int)
    table = [("in", e[0], sp.Integer(2))]
    table += [(f"move_{i}", e[i + 1] - e[i], cs * xs[i]) for i in range(n - 1)]
    table.append(("out", -e[n - 1], cs * xs[n - 1]))
    if shared:
        table.append(("leak", -e[0], cs * xs[0]))
    table.append(("serve", -e[n // 2], d * xs[n // 2]))
    return GeneratedKernel(xs, table, {cs: sp.Rational(c), d: sp.Rational(1, 3)})


def test_event_frequencies_from_a_fixed_state_match_the_rate_ratios():
    k = _chain_kernel()
    assert k.classes["count"] == 7 and k.classes["count_classes"] == 1  # 5 moves, out, leak
    eta, X0 = 10, [9, 0, 4, 1, 17, 2]  # unequal counts, an empty member, x0 read twice
    rates = k.rates_at(eta, X0)  # lambdify: independent of the generated code
    draws = 40_000
    c = one_event_counts(k, eta, X0, draws, "c")
    names = list(k.names)
    assert c[names.index("move_1")] == 0  # x1 = 0: never drawn
    expected = rates / rates.sum() * draws
    live = expected > 0
    assert chisquare(c[live], expected[live]).pvalue > 1e-4
    assert c[names.index("leak")] > 0 and c[names.index("move_0")] > 0  # both on x0
    p = one_event_counts(k, eta, X0, 300, "python")
    assert np.array_equal(p, one_event_counts(k, eta, X0, 300, "c"))


@pytest.mark.parametrize("n", [2, 6, 17, 40, 130])
def test_paths_equal_the_python_twin_at_every_depth(n):
    """Classes of 3 to 132 members (integer trees of depth 2 to 8: the unrolled descent and
    its lookahead loads); every event starting a new call rebuilds the integer trees."""
    k = _chain_kernel(n)
    assert k.classes["count_classes"] == 1
    grid = np.linspace(0, 6, 31)
    init = np.arange(n) % 5
    c = k.run_replications(12, init, grid, seed=2, replications=2, backend="c")
    c1 = k.run_replications(12, init, grid, seed=2, replications=2, backend="c", chunk_events=1)
    p = k.run_replications(12, init, grid, seed=2, replications=2, backend="python")
    assert c.events > 500
    for other in (c1, p):
        assert np.array_equal(c.paths, other.paths)
        assert np.array_equal(c.transition_counts, other.transition_counts)
        assert np.array_equal(c.final, other.final)


def test_founding_model_counts_its_phases_and_servers():
    """The Erlang phases (rate gamma) and the two servers (rate mu) are two count classes:
    four leaves in the sum tree (the arrivals' lazy class keeps two slots) for 2L + 4
    transitions."""
    for L in (2, 8, 32):
        k = GeneratedKernel(*table(founding(L, **P)))
        assert k.classes["count"] == 2 * L + 2 and k.classes["count_classes"] == 2
        assert (k._H0, k._Mt, k._P2) == (2, 4, 4)


def test_the_kernel_with_and_without_count_classes_has_one_law(monkeypatch):
    """Founding model, L = 4: the number of events of each kind per path (arrival, phase,
    entering service, service) has the same mean with count classes and with one leaf per
    rate (two-sample z < 4.5 on 300 paths each)."""
    m = founding(4, **P)
    k1 = GeneratedKernel(*table(m))
    monkeypatch.setenv("SYMDELAY_NO_GEN_CACHE", "1")
    monkeypatch.setattr(gen, "_COUNT_CLASS_MIN", 10**9)
    k0 = GeneratedKernel(*table(m))
    assert k1.classes["count_classes"] == 2 and k0.classes["count_classes"] == 0
    eta, R = 40, 300
    init = np.zeros(len(m.states), dtype=np.int64)
    init[1] = eta
    grid = np.linspace(0, 4, 9)
    a = k1.run_replications(eta, init, grid, seed=31, replications=R)
    b = k0.run_replications(eta, init, grid, seed=32, replications=R)
    for what in ("arrival", "phase", "enter_service", "service"):
        cols = [j for j, nm in enumerate(k1.names) if kind(nm) == what]
        assert cols, what
        x = a.transition_counts[:, cols].sum(axis=1).astype(float)
        y = b.transition_counts[:, cols].sum(axis=1).astype(float)
        z = (x.mean() - y.mean()) / np.sqrt(x.var(ddof=1) / R + y.var(ddof=1) / R)
        assert abs(z) < 4.5, (what, x.mean(), y.mean())
    # and the law is not trivially shared: another arrival rate moves the counts
    assert a.paths[:, -1].sum() != b.paths[:, -1].sum()


@pytest.mark.parametrize("backend", ["c", "python"])
def test_a_negative_class_coefficient_names_a_transition_of_its_class(backend):
    k = _chain_kernel(c="-1/2")
    assert k.classes["count_classes"] == 1
    with pytest.raises(SymdelayInputError, match=r"'(move_\d|out|leak)'.*finite and >= 0") as e:
        k.run(10, [3, 1, 0, 0, 0, 0], np.linspace(0, 1, 3), seed=1, backend=backend)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("backend", ["c", "python"])
def test_a_zero_class_coefficient_never_fires(backend):
    """c = 0: the class's leaf is 0 and its members never fire (1/c is inf, never used)."""
    k = _chain_kernel(c="0")
    paths, _ = k.run(10, [3, 1, 0, 2, 0, 0], np.linspace(0, 5, 6), seed=1, backend=backend)
    still = [1, 2, 4, 5]  # only x0 grows (in) and x3 drains (serve)
    assert np.all(paths[:, still] == paths[0, still])
    assert paths[-1, 0] > paths[0, 0] and paths[-1, 3] <= paths[0, 3]
