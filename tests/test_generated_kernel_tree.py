"""The generated kernel's sum tree, dependency graph and caches: the incrementally kept tree
is the tree rebuilt from the state (bit for bit), every C shape (constant cases up to
_SPECIALIZE_MAX_M transitions, shape classes above and with count classes, loops over the
tables beyond _MAX_SHAPES shapes) equals the Python twin, results are reproducible by seed,
and the generation cache gives the same kernel (the law of the founding model's kernel:
tests/test_stochastic_simulate.py and tests/test_generated_simulator.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.kernel import expo
from symdelay.analysis.kernel import tuning as gen
from symdelay.analysis.roots import default_initial
from symdelay.analysis.simulate import GeneratedKernel, generated_kernel
from symdelay.core.checks import time_grid
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model

P = dict(mu=1, lam=1, theta=2, D=1)


def nserver_kernel(N, L):
    m = build_model("nserver", N=N, L=L, **P)
    return m, generated_kernel(m)


# ---- the tree kept incrementally is the rebuilt tree ---------------------------------------


@pytest.mark.parametrize("counted", [True, False])
@pytest.mark.parametrize("N, L", [(2, 3), (4, 8), (5, 24)])
def test_every_c_shape_equals_the_python_twin_and_the_rebuilt_tree(N, L, counted, monkeypatch):
    """chunk_events=1: every event starts a new call, which rebuilds the whole tree (and the
    count classes' integer trees) from the counts; a stale leaf or ancestor of the incremental
    trees would change R (the total) and with it the paths. One case per transition up to
    _SPECIALIZE_MAX_M transitions (with count classes: the Erlang phases of one rate, the
    servers of one rate, up to _COUNT_SPECIALIZE_MAX_M), shape classes above (N = 4, L = 8:
    M = 40; N = 5, L = 24: M = 130); without count classes: _COUNT_CLASS_MIN out of reach."""
    monkeypatch.setenv("SYMDELAY_NO_GEN_CACHE", "1")  # the constant is not in the cache key
    if not counted:
        monkeypatch.setattr(gen, "_COUNT_CLASS_MIN", 10**9)
    m, k = nserver_kernel(N, L)
    M = len(k.names)
    table_driven = M > gen._SPECIALIZE_MAX_M
    assert table_driven == (N == 5)
    assert (k.classes["count_classes"] == 2) == counted  # the delay phases, the servers
    assert k.classes["count"] == (N * L + N if counted else 0)
    assert ("m = (int64_t)(v * coef[" in k.c_source) == counted  # a count class drawn
    limit = gen._COUNT_SPECIALIZE_MAX_M if counted else gen._SPECIALIZE_MAX_M
    specialized = len(k.names) <= limit
    assert specialized == ((N, L) == (2, 3) or ((N, L) == (4, 8) and not counted))
    assert (f"case {M - 1}:" in k.c_source) == specialized
    assert ("switch (r[0])" in k.c_source) == (not specialized)
    eta = 6 if table_driven else 20
    init = np.rint(default_initial(m) * eta).astype(np.int64)
    grid = time_grid(2.0 if table_driven else 3.0, 0.05)
    c = k.run_replications(eta, init, grid, seed=3, replications=2, backend="c")
    c1 = k.run_replications(eta, init, grid, seed=3, replications=2, backend="c", chunk_events=1)
    p = k.run_replications(eta, init, grid, seed=3, replications=2, backend="python")
    for other in (c1, p):
        assert np.array_equal(c.paths, other.paths)
        assert np.array_equal(c.transition_counts, other.transition_counts)
        assert np.array_equal(c.final, other.final)
    assert c.events > 1000
    # every kind of transition fired (arrivals, every phase, services): all leaves are reached
    assert np.count_nonzero(c.transition_counts.sum(axis=0)) > 0.9 * M
    # conservation: jobs now = jobs before + arrivals - services
    arrivals = [j for j, nm in enumerate(k.names) if nm.startswith("arrival")]
    services = [j for j, nm in enumerate(k.names) if nm.startswith("service")]
    tc = c.transition_counts
    assert np.array_equal(
        c.final.sum(axis=1), init.sum() + tc[:, arrivals].sum(axis=1) - tc[:, services].sum(axis=1)
    )


def test_dependency_graph_recomputes_exactly_the_rates_of_changed_states():
    """The generated kernel's state after every event: the rates it keeps (leaves of the tree)
    equal an independent evaluation of every rate (lambdify, rates_at) at that state. Checked
    at the end of runs of 1, 2, ... events (each run returns with its tree rebuilt, so the
    check is on the leaves the last events left)."""
    x, y, c = sp.symbols("x y c")
    table = [
        ("birth_x", [1, 0], c * (1 + sp.tanh(y))),  # general, depends on y
        ("death_x", [-1, 0], 2 * x),  # linear
        ("convert", [-1, 1], x * y / (1 + x)),  # general, depends on x and y
        ("death_y", [0, -1], c * y),  # linear, coefficient from a parameter
        ("birth_y", [0, 1], sp.Rational(1, 3)),  # constant
    ]
    k = GeneratedKernel([x, y], table, {c: sp.Rational(3, 2)})
    assert k.classes == {
        "linear": 2, "general": 3, "groups": 3, "lazy": 0, "weighted": 0, "count": 0,
        "count_classes": 0,
    }  # fmt: skip
    init = np.array([7, 4])
    grid = np.array([0.0, 50.0])
    for events in (1, 2, 5, 40):
        # max events per call: stop after `events` events and look at the leaves
        fn = k.c_function()
        X = init.copy()
        rs = np.array([1, 2, 3, 4], dtype=np.uint64)
        clock = np.zeros(4)
        status = np.zeros(3, dtype=np.int64)
        tree = np.zeros(4 * k._P2)  # the kernel's workspace: 2 P2 used, the rest read as 0
        cs = np.zeros(len(table), dtype=np.int64)
        out = np.zeros((2, 2), dtype=np.int64)
        args = (k._par, k._coef, k._ix, 10.0, X, rs, clock, grid, 2, out, cs, events, status)
        iw = np.zeros(k.integer_workspace_size, dtype=np.int64)
        assert fn(*args, np.zeros(1), tree, iw) >= 0
        assert cs.sum() == events
        leaves = tree[k._P2 : k._P2 + len(table)]
        want = k.rates_at(10, X)[k._order]
        assert np.allclose(leaves, want, rtol=1e-13, atol=0)
        # the root is the pairwise sum of the leaves, exactly
        t = tree[k._P2 : 2 * k._P2].copy()
        while t.size > 1:
            t = t[0::2] + t[1::2]
        assert clock[3] == t[0] == tree[1]


def test_many_servers_hold_the_fluid_equilibrium():
    """N = 8, L = 16 (M = 144, the table-driven kernel), from a perturbed start: the mean
    scaled queue over servers relaxes to the fluid equilibrium lam/mu = 1 (the sum mode is
    free of theta and decays at rate mu; its fluctuations are O(1/sqrt(N eta)))."""
    m, k = nserver_kernel(8, 16)
    eta = 2000
    start = default_initial(m)
    qi = [j for j, s in enumerate(m.states) if s.name.startswith("q")]
    assert len(qi) == 8 and start[qi].mean() > 1.05  # the start is off the equilibrium
    init = np.rint(start * eta).astype(np.int64)
    grid = time_grid(6, 0.1)
    run = k.run_replications(eta, init, grid, seed=8)
    mean_q = (run.paths[0] / eta)[:, qi].mean(axis=1)
    assert abs(mean_q[grid >= 3].mean() - P["lam"] / P["mu"]) < 0.02, mean_q[grid >= 3].mean()


# ---- reproducible by seed, caches -------------------------------------------------------------


def test_reproducible_by_seed_and_the_generation_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("SYMDELAY_CACHE_DIR", str(tmp_path))
    m = build_model("nserver", N=3, L=4, **P)
    table = [(t.name, t.change, t.rate) for t in m.transitions]
    k1 = GeneratedKernel(m.states, table, m.values)
    k2 = GeneratedKernel(m.states, table, m.values)  # from the disk cache
    assert (k1.generation_cached, k2.generation_cached) == (False, True)
    assert k1.c_source == k2.c_source and k1.python_source == k2.python_source
    assert np.array_equal(k1._ix, k2._ix) and np.array_equal(k1._coef, k2._coef)
    assert np.array_equal(k1._par, k2._par)
    eta = 50
    init = np.rint(default_initial(m) * eta).astype(np.int64)
    grid = time_grid(3, 0.1)
    a = k1.run_replications(eta, init, grid, seed=5, replications=2)
    b = k2.run_replications(eta, init, grid, seed=5, replications=2)
    c = k2.run_replications(eta, init, grid, seed=6, replications=2)
    assert np.array_equal(a.paths, b.paths)
    assert np.array_equal(a.transition_counts, b.transition_counts)
    assert not np.array_equal(a.paths, c.paths)
    # other parameter values: the same cached generation, other coefficients, another law
    fast = {p: (v * 3 if str(p) == "mu" else v) for p, v in m.values.items()}
    k3 = GeneratedKernel(m.states, table, fast)
    assert k3.generation_cached and k3.c_source == k1.c_source
    assert not np.array_equal(k3._coef, k1._coef)
    d = k3.run_replications(eta, init, grid, seed=5, replications=2)
    assert d.paths[:, -1, :].sum() < a.paths[:, -1, :].sum()  # mu x 3: shorter queues
    # another rate: another key, generated again
    mu = next(p for p in m.values if str(p) == "mu")
    q1 = m.states[0]
    edited = [(n, ch, r * 2 if r.has(mu) and r.has(q1) else r) for n, ch, r in table]
    k4 = GeneratedKernel(m.states, edited, m.values)
    assert not k4.generation_cached


def test_cached_generation_survives_another_hash_seed(tmp_path):
    """The cache key is the same in a process with another hash seed (sums and products are
    stored in a hash-seed dependent order): the second process loads the generation."""
    import os
    import subprocess
    import sys

    code = (
        "from symdelay.models import build_model;"
        "from symdelay.analysis.simulate import GeneratedKernel;"
        "m = build_model('nserver', N=3, L=2, mu=1, lam=1, theta=2, D=1);"
        "k = GeneratedKernel(m.states, [(t.name, t.change, t.rate) for t in m.transitions],"
        " m.values); print(int(k.generation_cached), k._cache_key())"
    )
    outs = []
    for seed in ("1", "987"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "SYMDELAY_CACHE_DIR": str(tmp_path)}
        proc = subprocess.run(
            [sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True
        )
        outs.append(proc.stdout.split())
    assert outs[0][0] == "0" and outs[1][0] == "1"
    assert outs[0][1] == outs[1][1]


@pytest.mark.parametrize("backend", ["c", "python"])
def test_errors_of_the_table_driven_kernel_name_the_transition(backend):
    """Above the threshold the C kernel takes its jumps and linear rates from index arrays: a
    count going negative and a negative linear rate are still reported by transition name."""
    n = gen._SPECIALIZE_MAX_M + 2
    xs = sp.symbols(f"x0:{n}")
    c = sp.Symbol("c")
    e = np.eye(n, dtype=int)
    table = [(f"birth_{i}", e[i], xs[(i + 1) % n] / 4) for i in range(n)]  # linear
    k = GeneratedKernel(xs, [*table, ("depart", -e[0], 2)], {})
    assert len(k.names) > gen._SPECIALIZE_MAX_M and "switch (r[0])" in k.c_source
    with pytest.raises(SymdelayInputError, match="'depart' would make x0 negative") as err:
        k.run(10, [1] * n, time_grid(50, 1), seed=1, backend=backend)
    assert "\n" not in str(err.value)
    k = GeneratedKernel(xs, [*table, ("leak", -e[1], -c * xs[1])], {c: 1})
    with pytest.raises(SymdelayInputError, match=r"'leak'.*finite and >= 0"):
        k.run(10, [1] * n, time_grid(5, 1), seed=1, backend=backend)


@pytest.mark.parametrize("many_shapes", [False, True])
def test_table_driven_shape_classes_and_loops_equal_the_python_twin(many_shapes):
    """Above the threshold: one C case per shape class (indices from records), or, with more
    shape classes than _MAX_SHAPES (jumps of many sizes), loops over the index tables; both
    give the Python twin's paths bit for bit, also when every event starts a new call."""
    n = gen._SPECIALIZE_MAX_M + 2
    xs = sp.symbols(f"x0:{n}")
    e = np.eye(n, dtype=int)
    size = [1 + (i % (2 * gen._MAX_SHAPES) if many_shapes else i % 2) for i in range(n)]
    table = [(f"in_{i}", size[i] * e[i], sp.Rational(1, 2)) for i in range(n)]
    table += [(f"move_{i}", e[(i + 1) % n] - e[i], xs[i]) for i in range(n)]
    table += [(f"out_{i}", -e[i], xs[i] ** 2 / (1 + xs[(i + 1) % n])) for i in range(0, n, 3)]
    k = GeneratedKernel(xs, table, {})
    assert ("switch (r[0])" in k.c_source) == (not many_shapes)
    assert ("for (int64_t e = jp[j]" in k.c_source) == many_shapes
    grid = time_grid(1.5, 0.05)
    init = np.arange(n) % 4
    c = k.run_replications(4, init, grid, seed=2, replications=2, backend="c")
    c1 = k.run_replications(4, init, grid, seed=2, replications=2, backend="c", chunk_events=1)
    p = k.run_replications(4, init, grid, seed=2, replications=2, backend="python")
    for other in (c1, p):
        assert np.array_equal(c.paths, other.paths)
        assert np.array_equal(c.transition_counts, other.transition_counts)
    assert c.events > 1000


def test_ziggurat_waiting_times_are_exponential():
    """The waiting-time sampler (ziggurat, Python twin of the C one; the C/Python path
    equality tests tie the two together): Kolmogorov-Smirnov against Exp(1), the mean, the
    variance and the tail beyond the ziggurat's last layer (r = 7.697) by counts."""
    from scipy.stats import kstest

    from symdelay.core.rng import next_u64, unif

    st = [12345, 678, 91011, 1213]
    n = 200_000
    x = np.array([expo._exp_variate(lambda: next_u64(st), lambda: unif(st)) for _ in range(n)])
    assert kstest(x, "expon").pvalue > 1e-3
    assert abs(x.mean() - 1) < 5 / np.sqrt(n)
    assert abs(x.var() - 1) < 5 * np.sqrt(8 / n)  # Var of (X - 1)^2 is 8 for Exp(1)
    for cut in (expo._ZE_R, 3.0):  # the tail branch and a layer boundary region
        want = n * np.exp(-cut)
        assert abs((x > cut).sum() - want) < 5 * np.sqrt(want) + 1


def test_a_damaged_generation_cache_entry_is_generated_again(tmp_path, monkeypatch):
    """A cache entry cut short, or whole JSON with keys missing, is not trusted: the table is
    generated again (same sources, same paths) and the entry rewritten."""
    monkeypatch.setenv("SYMDELAY_CACHE_DIR", str(tmp_path))
    m = build_model("nserver", N=2, L=3, **P)
    table = [(t.name, t.change, t.rate) for t in m.transitions]
    k0 = GeneratedKernel(m.states, table, m.values)
    (entry,) = tmp_path.glob("gen-*.json")
    good = entry.read_text()
    data = json.loads(good)
    broken = {**data}
    del broken["ix"]
    for text in (good[: len(good) // 2], json.dumps(broken)):
        entry.write_text(text)
        k = GeneratedKernel(m.states, table, m.values)
        assert not k.generation_cached
        assert k.c_source == k0.c_source and np.array_equal(k._ix, k0._ix)
        assert GeneratedKernel(m.states, table, m.values).generation_cached  # rewritten
    init = np.rint(default_initial(m) * 30).astype(np.int64)
    a = k0.run_replications(30, init, time_grid(2, 0.1), seed=4)
    b = k.run_replications(30, init, time_grid(2, 0.1), seed=4)
    assert np.array_equal(a.paths, b.paths)


@pytest.mark.parametrize("M", [1, 2, 3, 4, 5, 9, 16, 17, 33, 100])
def test_trees_of_every_depth_equal_the_python_twin(M):
    """Trees of 1 to 128 leaves (distinct coefficients: no count classes): the C descent
    (plain branches up to _BRANCHY_MAX_P2 leaves; above, blends with lookahead loads and the
    last levels peeled off) picks the leaf the Python twin picks, event by event."""
    n = max(M - 1, 1)  # a chain: in -> x0 -> ... -> x_{n-1} -> out (M transitions)
    xs = sp.symbols(f"x0:{n}")
    e = np.eye(n, dtype=int)
    table = [("in", e[0], sp.Integer(3))]
    table += [(f"move_{i}", e[i + 1] - e[i], (i + 1) * xs[i]) for i in range(n - 1)]
    if M > 1:
        table.append(("out", -e[n - 1], xs[n - 1] / 2))
    k = GeneratedKernel(xs, table, {})
    assert len(k.names) == M
    grid = np.linspace(0, 5, 11)
    c = k.run_replications(20, [0] * n, grid, seed=2, replications=2, backend="c")
    p = k.run_replications(20, [0] * n, grid, seed=2, replications=2, backend="python")
    assert c.events > 500 and np.all(c.transition_counts.sum(axis=0) > 0)
    assert np.array_equal(c.paths, p.paths)
    assert np.array_equal(c.transition_counts, p.transition_counts)
