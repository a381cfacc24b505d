"""The simulator generated from a transition table: C = Python twin bit for bit, the LNA law
of the founding model's table, the fluid limit of a hyperexponential-delay model, clear
errors."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp
from _founding_law import founding, table

# ---- the hyperexponential-delay model, written here from its definition -----------------
from _hyperexp import (
    HX_PARAMS,
    HX_STATES,
    hyperexp_table,
)
from scipy.integrate import solve_ivp

from symdelay.analysis.simulate import GeneratedKernel
from symdelay.core.checks import time_grid
from symdelay.core.errors import SymdelayInputError


def hyperexp_kernel():
    return GeneratedKernel(HX_STATES, hyperexp_table(), HX_PARAMS)


def founding_kernel(L, **p):
    m = founding(L, **p)
    return m, GeneratedKernel(*table(m))


# ---- two backends, one path ---------------------------------------------------------------


@pytest.mark.parametrize("L", [1, 2, 3])
def test_c_equals_python_twin_founding(L):
    _, k = founding_kernel(L, mu=sp.Rational(3, 2), lam=sp.Rational(7, 10), theta=3, D=2)
    init = np.zeros(2 + 2 * L, dtype=np.int64)
    init[1] = 30
    grid = time_grid(4, 0.25)
    c = k.run_replications(30, init, grid, seed=9, replications=2, backend="c")
    p = k.run_replications(30, init, grid, seed=9, replications=2, backend="python")
    assert (c.backend, p.backend) == ("c", "python")
    assert np.array_equal(c.paths, p.paths)
    assert np.array_equal(c.transition_counts, p.transition_counts)
    assert np.array_equal(c.final, p.final)
    assert c.events == p.events > 100


def test_c_equals_python_twin_hyperexp_and_chunks_do_not_matter():
    k = hyperexp_kernel()
    init = [3, 40, 1, 0, 2, 5]
    grid = time_grid(3, 0.1)
    c = k.run_replications(40, init, grid, seed=4, replications=2, backend="c")
    p = k.run_replications(40, init, grid, seed=4, replications=2, backend="python")
    # tiny chunks: the kernel returns to Python every 7 events and resumes mid-interval
    c7 = k.run_replications(40, init, grid, seed=4, replications=2, backend="c", chunk_events=7)
    p7 = k.run_replications(
        40, init, grid, seed=4, replications=2, backend="python", chunk_events=7
    )
    for other in (p, c7, p7):
        assert np.array_equal(c.paths, other.paths)
        assert np.array_equal(c.transition_counts, other.transition_counts)
    # conservation: jobs now = initial + arrivals - services
    tc = c.transition_counts
    assert np.array_equal(
        c.final.sum(axis=1), sum(init) + tc[:, :4].sum(axis=1) - tc[:, 8:].sum(axis=1)
    )
    assert np.array_equal(c.paths[:, 0, :], np.tile(init, (2, 1)))


def test_reproducible_by_seed_and_thread_count():
    _, k = founding_kernel(2, mu=1, lam=1, theta=2, D=1)
    init = [0, 200, 0, 0, 0, 0]
    grid = time_grid(5, 0.1)
    a = k.run_replications(200, init, grid, seed=42, replications=3)
    b = k.run_replications(200, init, grid, seed=42, replications=3, threads=1)
    c = k.run_replications(200, init, grid, seed=43, replications=3)
    assert np.array_equal(a.paths, b.paths)
    assert not np.array_equal(a.paths, c.paths)
    path, events = k.run(200, init, grid, seed=42)
    assert np.array_equal(path, a.paths[0]) and events == a.events_per_replication[0]


def test_absorbing_state_fills_the_grid():
    x = sp.Symbol("x")
    k = GeneratedKernel([x], [("death", [-1], x)], {})
    for backend in ("c", "python"):
        path, events = k.run(5, [5], time_grid(50, 1), seed=1, backend=backend)
        assert events == 5 and path[-1, 0] == 0 and path[0, 0] == 5


# ---- the founding model: the law of its table --------------------------------------------


def test_founding_kernel_has_the_lna_law_of_its_table():
    """The founding model (its table, L = 2) from the paper's start: the imbalance
    x = q1 - q2 at t = 1.5 (transient, x far from 0) and t = 10 (near stationary) has the
    mean of the fluid path and the variance of the time-dependent LNA along it (computed by
    SciPy from the table: an independent path), two z-tests < 4.5 over 200 paths each."""
    L, eta, R = 2, 2000, 200
    m = founding(L, mu=1, lam=1, theta=2, D=1)
    states, tab, values = table(m)
    k = GeneratedKernel(states, tab, values)
    init = np.zeros(2 + 2 * L, dtype=np.int64)
    init[1] = eta
    grid = time_grid(10, 0.5)
    fl, cov = _fluid_and_lna(states, tab, values, init / eta, grid)
    run = k.run_replications(eta, init, grid, seed=12, replications=R)
    for t_idx in (3, 20):
        x = (run.paths[:, t_idx, 0] - run.paths[:, t_idx, 1]) / eta
        C = cov[t_idx]
        mean, var = fl[t_idx, 0] - fl[t_idx, 1], (C[0, 0] + C[1, 1] - 2 * C[0, 1]) / eta
        z_mean = (x.mean() - mean) / np.sqrt(var / R)
        z_var = (x.var(ddof=1) / var - 1) / np.sqrt(2 / (R - 1))
        assert abs(z_mean) < 4.5 and abs(z_var) < 4.5, (t_idx, z_mean, z_var)
    assert abs(fl[3, 0] - fl[3, 1]) > 0.1  # the transient point is not trivial


# ---- fluid limit of the hyperexponential-delay model -----------------------------------------


def _fluid_and_lna(states, table, params, init_scaled, grid):
    """The fluid ODE F(s) = sum nu beta_nu(s) and the time-dependent LNA covariance
    dSigma/dt = A Sigma + Sigma A^T + B along it (Sigma(0) = 0), by SciPy:
    ``(fluid (len(grid), n), covariances (len(grid), n, n))``; drift, Jacobian and
    diffusion written here from the table (the test's own derivation)."""
    n = len(states)
    nus = [sp.Matrix(list(nu)) for _, nu, _ in table]
    F = sum((nu * rate for nu, (_, _, rate) in zip(nus, table)), sp.zeros(n, 1))
    F = F.xreplace(params)
    J = F.jacobian(list(states))
    B = sum((nu * nu.T * rate for nu, (_, _, rate) in zip(nus, table)), sp.zeros(n, n))
    B = B.xreplace(params)
    f, jf, bf = (sp.lambdify([states], M, "numpy") for M in (F, J, B))

    def rhs(_t, y):
        s, S = y[:n], y[n:].reshape(n, n)
        A = np.array(jf(s), dtype=float)
        dS = A @ S + S @ A.T + np.array(bf(s), dtype=float)
        return np.concatenate([np.array(f(s), dtype=float).ravel(), dS.ravel()])

    y0 = np.concatenate([init_scaled, np.zeros(n * n)])
    sol = solve_ivp(rhs, (grid[0], grid[-1]), y0, t_eval=grid, rtol=1e-10, atol=1e-12)
    assert sol.success
    fl = sol.y[:n].T
    return fl, np.stack([sol.y[n:, k].reshape(n, n) for k in range(grid.size)])


def _fluid_and_lna_variance(init_scaled, grid):
    fl, cov = _fluid_and_lna(HX_STATES, hyperexp_table(), HX_PARAMS, init_scaled, grid)
    return fl, np.stack([np.diag(c) for c in cov])


def test_hyperexp_tracks_its_fluid_limit_at_the_eta_half_rate():
    eta, R = 20_000, 4
    init = np.array([0, eta, 0, 0, 0, 0])
    grid = time_grid(10, 0.1)
    fl, var = _fluid_and_lna_variance(init / eta, grid)
    run = hyperexp_kernel().run_replications(eta, init, grid, seed=5, replications=R)
    err = run.paths / eta - fl[None]
    sd = np.sqrt(var / eta)  # LNA: s(t) - phi(t) ~ N(0, Sigma(t)/eta)
    assert np.all(np.abs(err) <= 5 * sd[None] + 2.0 / eta)
    # and the errors are of that size, not smaller: mean squared z-score ~ 1 (t >= 1)
    later = grid >= 1
    z2 = (err[:, later] / sd[None, later]) ** 2
    assert 0.3 < z2.mean() < 3.0, z2.mean()
    # the fluid path itself moves a lot (the test is not trivial): x goes from -1 to ~0
    assert fl[0, 1] - fl[0, 0] == 1 and abs(fl[-1, 0] - fl[-1, 1]) < 0.05


# ---- errors ---------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["c", "python"])
def test_negative_rate_names_the_transition(backend):
    q, c = sp.symbols("q c")
    k = GeneratedKernel([q], [("arrive", [1], 1), ("leak", [-1], q - c)], {c: sp.Rational(1, 2)})
    with pytest.raises(SymdelayInputError, match=r"'leak'.*finite and >= 0") as e:
        k.run(10, [0], time_grid(5, 1), seed=1, backend=backend)
    assert "\n" not in str(e.value)


@pytest.mark.parametrize("backend", ["c", "python"])
def test_count_going_negative_names_the_transition(backend):
    q = sp.Symbol("q")
    k = GeneratedKernel([q], [("arrive", [1], 1), ("depart", [-1], 2)], {})
    with pytest.raises(SymdelayInputError, match="'depart' would make q negative"):
        k.run(10, [0], time_grid(50, 1), seed=1, backend=backend)


@pytest.mark.parametrize("backend", ["c", "python"])
def test_overflowing_rate_is_reported(backend):
    q = sp.Symbol("q")
    k = GeneratedKernel([q], [("arrive", [1], 1), ("boom", [-1], q * sp.exp(800 * q))], {})
    with pytest.raises(SymdelayInputError, match="'boom'"):
        k.run(1, [3], time_grid(1, 1), seed=1, backend=backend)


def test_bad_tables_are_rejected_in_one_line():
    q, r = sp.symbols("q r")
    bad = [
        (([q], [("a", [1, 0], 1)], {}), "has 2 entries"),
        (([q], [("a", [0], 1)], {}), "zero"),
        (([q], [("a", [1.5], 1)], {}), "integers"),
        (([q], [("a", [1], "q+1")], {}), "SymPy expression"),
        (([q], [("a", [1], r * q)], {}), "r, which is neither"),
        (([q], [("a", [1], r)], {r: float("nan")}), "finite"),
        (([q], [("a", [1], 1), ("a", [-1], q)], {}), "used twice"),
        (([q, q], [("a", [1, 0], 1)], {}), "distinct"),
        (([q], [("a", [1], sp.besselj(0, q))], {}), "cannot generate code"),
    ]
    for args, msg in bad:
        with pytest.raises(SymdelayInputError, match=msg) as e:
            GeneratedKernel(*args)
        assert "\n" not in str(e.value)
    k = GeneratedKernel([q], [("a", [1], 1)], {})
    for kwargs, msg in [
        (dict(eta=0, initial=[0], grid=[0.0]), "eta"),
        (dict(eta=5, initial=[-1], grid=[0.0]), "initial"),
        (dict(eta=5, initial=[0, 0], grid=[0.0]), "1 entries"),
        (dict(eta=5, initial=[0], grid=[1.0, 0.5]), "non-decreasing"),
        (dict(eta=5, initial=[0], grid=[0.0], backend="fortran"), "backend"),
    ]:
        with pytest.raises(SymdelayInputError, match=msg):
            k.run(**kwargs)


def test_c_equals_python_twin_for_other_functions():
    """sqrt, powers, Max, Piecewise, tanh, floats and rationals print alike in both languages."""
    x, y, c = sp.symbols("x y c")
    table = [
        ("birth_x", [1, 0], c * (1 + sp.tanh(y))),
        ("death_x", [-1, 0], sp.sqrt(x) * x + x**2 / (1 + y**3)),
        ("convert", [-1, 1], sp.Max(x - y, 0)),
        ("death_y", [0, -1], sp.Float(0.37) * y + sp.Piecewise((y**2, y > 1), (0, True))),
        ("birth_y", [0, 1], sp.Rational(1, 3) * sp.exp(-x) + c ** sp.Rational(3, 2)),
    ]
    k = GeneratedKernel([x, y], table, {c: 1.7})
    grid = time_grid(5, 0.05)
    a = k.run_replications(50, [20, 70], grid, seed=2, replications=3, backend="c")
    b = k.run_replications(50, [20, 70], grid, seed=2, replications=3, backend="python")
    assert np.array_equal(a.paths, b.paths) and a.events == b.events > 1000
    assert np.all(a.transition_counts > 0)  # every transition fired
    # the rates the kernel uses, by an independent evaluation (lambdify, one rate at a time)
    want = [50 * float(r.subs({x: 0.4, y: 1.4, c: 1.7})) for _, _, r in table]
    assert np.allclose(k.rates_at(50, [20, 70]), want, rtol=1e-14)


def test_generated_source_does_not_depend_on_the_hash_seed():
    """Same table -> same source text in every process (this one has a random hash seed):
    the cache is hit and the paths of a seed are reproducible across runs."""
    code = (
        "import sys, hashlib; sys.path.insert(0, sys.argv[1]); import test_generated_simulator as t;"
        "k = t.hyperexp_kernel(); print(hashlib.sha256((k.c_source + k.python_source).encode()).hexdigest())"
    )
    env = {**os.environ, "PYTHONHASHSEED": "12345"}
    here = str(Path(__file__).parent)
    proc = subprocess.run(
        [sys.executable, "-c", code, here], env=env, capture_output=True, text=True, check=True
    )
    k = hyperexp_kernel()
    assert (
        proc.stdout.strip() == hashlib.sha256((k.c_source + k.python_source).encode()).hexdigest()
    )
