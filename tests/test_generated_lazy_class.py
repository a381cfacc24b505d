"""General rates whose total is free of the state (arrivals routed by probabilities that sum
to one) form one lazy class of the generated kernel: one leaf holding their constant total,
the rates evaluated only when it is drawn, one of them then by a new uniform. The event
drawn from a fixed state has the law of the exact rate ratios (chi-square, against rates
evaluated by lambdify), C and the Python twin agree, and a negative factor is reported.

Above four such rates, a weighted class: rates k * w_g / sum_h w_h keep their weights w_g
(one exponential per changed state) in a sum tree of their own; the class drawn, one rate is
found by descending it. The same law, twin and error checks apply."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from _kernel_helpers import one_event_counts
from scipy.stats import chisquare

from symdelay.analysis.simulate import GeneratedKernel
from symdelay.core.errors import SymdelayInputError


def _routing_kernel(lam_value=2, n=3, theta="3/2"):
    states = sp.symbols(f"x0:{n}") if n != 3 else sp.symbols("x y z")
    lam, th = sp.symbols("lam theta")
    w = [sp.exp(-th * s) for s in states]
    e = np.eye(n, dtype=int)
    table = [(f"arrive_{s}", e[i], n * lam * w[i] / sum(w)) for i, s in enumerate(states)]
    table += [(f"serve_{s}", -e[i], (i % 3 + 1) * s) for i, s in enumerate(states)]
    return GeneratedKernel(states, table, {lam: lam_value, th: sp.Rational(theta)})


def test_event_frequencies_from_a_fixed_state_match_the_rate_ratios():
    k = _routing_kernel()
    assert k.classes["lazy"] == 3 and k.classes["groups"] == 0
    eta, X0 = 10, [14, 3, 9]  # unequal queues: routing probabilities far from 1/3
    rates = k.rates_at(eta, X0)  # lambdify: independent of the generated code
    draws = 40_000
    c = one_event_counts(k, eta, X0, draws, "c")
    assert chisquare(c, rates / rates.sum() * draws).pvalue > 1e-4
    arrivals = rates[:3] / rates[:3].sum()
    assert arrivals.max() / arrivals.min() > 5  # a test that can tell the members apart
    p = one_event_counts(k, eta, X0, 300, "python")
    assert np.array_equal(p, one_event_counts(k, eta, X0, 300, "c"))


def test_paths_of_the_lazy_class_equal_the_python_twin():
    k = _routing_kernel()
    grid = np.linspace(0, 4, 41)
    c = k.run_replications(30, [0, 30, 60], grid, seed=4, replications=2, backend="c")
    c1 = k.run_replications(30, [0, 30, 60], grid, seed=4, replications=2, backend="c",
                            chunk_events=1)  # fmt: skip
    p = k.run_replications(30, [0, 30, 60], grid, seed=4, replications=2, backend="python")
    assert c.events > 1000
    for other in (c1, p):
        assert np.array_equal(c.paths, other.paths)
        assert np.array_equal(c.transition_counts, other.transition_counts)


def test_rates_not_provably_nonnegative_are_not_lazy():
    x, y = sp.symbols("x y")
    p = sp.exp(x) / (sp.exp(x) + sp.exp(y))
    table = [("a", [1, 0], p - sp.Rational(1, 2)), ("b", [0, 1], 1 - p + sp.Rational(1, 2))]
    table += [("c", [-1, 0], x), ("d", [0, -1], y)]
    k = GeneratedKernel([x, y], table, {})
    assert k.classes["lazy"] == 0  # the sum is 1, but rate "a" can be negative
    with pytest.raises(SymdelayInputError, match=r"'a'.*finite and >= 0"):
        k.run(10, [0, 5], np.array([0.0, 5.0]), seed=1)


@pytest.mark.parametrize("backend", ["c", "python"])
def test_a_negative_factor_of_a_lazy_rate_is_reported(backend):
    k = _routing_kernel(lam_value=-1)
    assert k.classes["lazy"] == 3
    with pytest.raises(SymdelayInputError, match=r"'arrive_x'.*finite and >= 0"):
        k.run(10, [1, 1, 1], np.array([0.0, 1.0]), seed=1, backend=backend)


def test_weighted_class_draws_events_with_the_rate_ratios():
    k = _routing_kernel(n=7)
    assert k.classes["weighted"] == 7 and k.classes["lazy"] == 0 and k.classes["groups"] == 7
    eta, X0 = 10, [14, 3, 9, 0, 22, 5, 11]
    rates = k.rates_at(eta, X0)  # lambdify: independent of the generated code
    arrivals = rates[:7] / rates[:7].sum()
    assert arrivals.max() / arrivals.min() > 20  # the members are far apart
    draws = 40_000
    c = one_event_counts(k, eta, X0, draws, "c")
    live = rates > 0  # the empty queue's service cannot fire
    assert not c[~live].any() and (~live).sum() == 1
    assert chisquare(c[live], rates[live] / rates.sum() * draws).pvalue > 1e-4
    p = one_event_counts(k, eta, X0, 300, "python")
    assert np.array_equal(p, one_event_counts(k, eta, X0, 300, "c"))


def test_paths_of_the_weighted_class_equal_the_python_twin_and_the_law():
    """Paths: C, C one event per call (the weights' tree rebuilt each call) and the Python
    twin agree."""
    k = _routing_kernel(n=6)
    grid = np.linspace(0, 4, 41)
    init = [0, 30, 60, 10, 5, 20]
    c = k.run_replications(30, init, grid, seed=4, replications=2, backend="c")
    c1 = k.run_replications(30, init, grid, seed=4, replications=2, backend="c",
                            chunk_events=1)  # fmt: skip
    p = k.run_replications(30, init, grid, seed=4, replications=2, backend="python")
    assert c.events > 1000
    for other in (c1, p):
        assert np.array_equal(c.paths, other.paths)
        assert np.array_equal(c.transition_counts, other.transition_counts)


def test_shared_denominators_that_are_not_the_sum_are_eager():
    x, y, z = sp.symbols("x y z")
    den = 1 + sp.exp(-x) + sp.exp(-y) + sp.exp(-z)  # the sum of the numerators plus one
    e = np.eye(3, dtype=int)
    ws = [sp.exp(-x), sp.exp(-y), sp.exp(-z), sp.Integer(1), sp.exp(-x) / 2]
    table = [(f"a{i}", e[i % 3], ws[i] / den) for i in range(5)]
    table += [(f"s{i}", -e[i], s) for i, s in enumerate((x, y, z))]
    k = GeneratedKernel([x, y, z], table, {})
    assert k.classes["weighted"] == 0 and k.classes["lazy"] == 0


@pytest.mark.parametrize("backend", ["c", "python"])
def test_a_negative_factor_of_a_weighted_class_is_reported(backend):
    k = _routing_kernel(lam_value=-1, n=6)
    assert k.classes["weighted"] == 6
    with pytest.raises(SymdelayInputError, match=r"'arrive_x0'.*finite and >= 0"):
        k.run(10, [1] * 6, np.array([0.0, 1.0]), seed=1, backend=backend)


@pytest.mark.parametrize("backend", ["c", "python"])
def test_weights_out_of_double_range_are_reported(backend):
    """exp(theta s) overflows long before the rates (ratios of such terms) do: the error
    names the class and says what to change, instead of a wrong draw."""
    k = _routing_kernel(n=6, theta=-800)
    assert k.classes["weighted"] == 6
    with pytest.raises(SymdelayInputError, match=r"one denominator.*weight of 'arrive_x.'") as e:
        k.run(1, [0, 2, 0, 0, 0, 0], np.array([0.0, 1.0]), seed=1, backend=backend)
    assert "\n" not in str(e.value)
