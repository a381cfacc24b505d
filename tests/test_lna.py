"""The linear-noise approximation: the full-state Lyapunov solve of the founding model's
table equals its closed forms and its imbalance fast path (exactly), the numeric path agrees
with SciPy, unstable A is rejected, and the LNA of a hyperexponential model written as a
table of its own matches a long simulation."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp
from scipy.linalg import solve_continuous_lyapunov

from symdelay.analysis.lna import stationary_covariance
from symdelay.analysis.simulate import GeneratedKernel
from symdelay.analysis.stochastic import variance
from symdelay.core.checks import time_grid
from symdelay.core.errors import SymdelayInputError
from symdelay.model import Model
from symdelay.models import build_model
from symdelay.models.erlang.stochastic import closed_form_variance

R = sp.Rational
PARAMETER_SETS = [
    dict(mu=1, lam=1, theta=2, D=1),
    dict(mu=R(3, 2), lam=R(7, 10), theta=3, D=2),
    dict(mu=2, lam=R(1, 3), theta=R(1, 2), D=R(1, 4)),
    dict(mu=1, lam=1, theta=0, D=5),  # random routing: two independent M/M/oo, Var = 2 lam/mu
]


@pytest.mark.parametrize("L", [1, 2])
@pytest.mark.parametrize("params", PARAMETER_SETS)
def test_full_state_lna_equals_closed_form_variance(L, params):
    m = build_model("erlang", L=L, **params)
    A, B = sp.Matrix(m.jacobian), sp.Matrix(m.diffusion)
    S = stationary_covariance(A, B)
    w = sp.Matrix([1, -1] + [0] * (2 * L))  # x = q1 - q2 from the FULL covariance
    var_x = (w.T * S * w)[0, 0]
    fast = variance(m, method="specialised")  # the imbalances only, exact
    assert var_x == fast.value and isinstance(var_x, sp.Rational)
    cf = closed_form_variance(L).subs({sp.Symbol(k): v for k, v in params.items()})
    assert cf == var_x  # and the SymPy closed form in mu, lam, theta, D
    if params["theta"] == 0:
        assert var_x == R(2 * params["lam"], params["mu"])
    # Sigma solves the Lyapunov equation and is symmetric positive definite
    assert sp.zeros(*S.shape) == A * S + S * A.T + B
    assert S == S.T and all(S[:k, :k].det() > 0 for k in range(1, S.shape[0] + 1))


def test_numeric_path_agrees_with_exact_and_with_scipy():
    A = sp.Matrix([[-3, 1, 0], [R(1, 2), -2, 1], [0, -1, -1]])
    B = sp.Matrix([[2, 1, 0], [1, 3, R(1, 3)], [0, R(1, 3), 1]])
    exact = stationary_covariance(A, B)
    assert all(e.is_Rational for e in exact)
    assert A * exact + exact * A.T + B == sp.zeros(3, 3)
    # the same matrices with one irrational entry go through mpmath at dps
    A2 = A.copy()
    A2[0, 1] = sp.sqrt(2)
    num = stationary_covariance(A2, B, dps=40)
    assert all(isinstance(e, sp.Float) for e in num)
    with mpmath.workdps(40):
        resid = A2 * num + num * A2.T + B
        assert max(abs(sp.N(e, 40)) for e in resid) < sp.Float("1e-35")
    ref = solve_continuous_lyapunov(np.array(A2, dtype=float), -np.array(B, dtype=float))
    assert np.allclose(np.array(num, dtype=float), ref, rtol=1e-12, atol=1e-12)
    # a Float copy of a rational problem: numeric = exact to the working precision
    numf = stationary_covariance(A.applyfunc(lambda e: sp.Float(e, 50)), B, dps=50)
    assert max(abs(numf[i] - exact[i]) for i in range(9)) < sp.Float("1e-45")


def test_not_hurwitz_is_rejected():
    # founding model L=2 above the Hopf threshold lam*theta = 2(mu+gamma)^2/gamma = 9
    m = build_model("erlang", L=2, mu=1, lam=1, theta=10, D=1)
    with pytest.raises(SymdelayInputError, match="not Hurwitz") as e:
        stationary_covariance(m.jacobian, m.diffusion)
    assert "\n" not in str(e.value)
    with pytest.raises(SymdelayInputError, match="not Hurwitz"):  # exactly on the boundary
        stationary_covariance(sp.Matrix([[0, 1], [-1, 0]]), sp.eye(2))
    with pytest.raises(SymdelayInputError, match="not Hurwitz"):  # B only semidefinite
        stationary_covariance(sp.Matrix([[1, 0], [0, -1]]), sp.Matrix([[0, 0], [0, 1]]))
    with pytest.raises(SymdelayInputError, match="not Hurwitz at 30 digits"):
        stationary_covariance(sp.Matrix([[sp.sqrt(2) - 1, 0], [0, -1]]), sp.eye(2))


def test_refined_path_equals_the_exact_one():
    """The double-precision solve refined to dps digits (large systems) against the exact
    solve on the founding model's imbalances at L = 8."""
    from symdelay.models.erlang.stochastic import lna_matrices

    A_s, B_s = lna_matrices(8)
    vals = {sp.Symbol("mu"): 1, sp.Symbol("lam"): R(1, 2), sp.Symbol("theta"): 3,
            sp.Symbol("gamma"): 4}  # fmt: skip
    A, B = A_s.xreplace(vals), B_s.xreplace(vals)
    exact = stationary_covariance(A, B)
    refined = stationary_covariance(A, B, dps=40, exact=False)
    with mpmath.workdps(50):
        assert max(abs(mpmath.mpf(sp.N(a - b, 50))) for a, b in zip(exact, refined)) < 1e-38


def test_bad_input():
    a = sp.symbols("a")
    for A, B, msg in [
        (sp.Matrix([[a]]), sp.Matrix([[1]]), "substitute values for a"),
        (sp.Matrix([[-1, 0]]), sp.eye(2), "square"),
        (-sp.eye(2), sp.Matrix([[1, 2], [0, 1]]), "symmetric"),
    ]:
        with pytest.raises(SymdelayInputError, match=msg):
            stationary_covariance(A, B)
    mm = Model("M/M/oo", ["q"], {"lam": "positive", "mu": "positive"},
               [("arrive", {"q": 1}, "lam"), ("leave", {"q": -1}, "mu*q")],
               values={"lam": 2, "mu": 1})  # fmt: skip
    assert variance(mm, weights=[1]).value == 2  # Var(Q)/eta = lam/mu
    with pytest.raises(SymdelayInputError, match="weights must have 1 entries"):
        variance(mm, weights=[1, 0])


# ---- simulation of the hyperexponential-delay model vs its LNA -------------------------------

from _hyperexp import (  # noqa: E402
    HX_PARAMS,
    ga,
    gb,
    hyperexp_table,
    lam,
    mu,
    pa,
    pb,
    q1,
    q2,
    z1a,
    z1b,
    z2a,
    z2b,
)
from _hyperexp import HX_STATES as HX  # noqa: E402


def test_hyperexp_stationary_variance_simulation_vs_lna():
    P = HX_PARAMS
    q = P[lam] / P[mu]
    za, zb = P[lam] * P[pa] / P[ga], P[lam] * P[pb] / P[gb]
    eq = {q1: q, q2: q, z1a: za, z1b: zb, z2a: za, z2b: zb} | P
    model = Model(
        "hyperexp",
        [s.name for s in HX],
        {str(k): "real" for k in P},
        hyperexp_table(),
        symmetry=[["q1", "q2"], ["z1a", "z2a"], ["z1b", "z2b"]],
        values={str(k): v for k, v in P.items()},
    )
    assert all(model.equilibrium.point[s] - eq[s] == 0 for s in HX)
    lna = variance(model, weights=[1, -1, 0, 0, 0, 0])
    assert lna.exact
    v_lna = lna.value
    assert v_lna == R(5516, 5517)  # regression value of the exact solve (checked below)
    # one long path from the rounded equilibrium, batch means of (X - mean X)^2 / eta
    eta, T, burn, batches = 400, 3000, 50, 20
    init = [round(float(eq[s]) * eta) for s in HX]
    k = GeneratedKernel(HX, hyperexp_table(), P)
    run = k.run_replications(eta, init, time_grid(T, 0.25), seed=3)
    X = (run.paths[0, :, 0] - run.paths[0, :, 1]).astype(float)[run.grid >= burn]
    n = X.size // batches
    Xb = X[: n * batches].reshape(batches, n)
    est_b = ((Xb - X.mean()) ** 2).mean(axis=1) / eta
    est, se = est_b.mean(), est_b.std(ddof=1) / np.sqrt(batches)
    # sampling error (4 standard errors) + an O(1/eta) finite-size allowance of 3%
    assert abs(est - float(v_lna)) < 4 * se + 0.03 * float(v_lna), (est, se, v_lna)
    assert se < 0.05  # the check has teeth: random routing would give 2, no delay 2/3
