"""The model layer: fluid ODEs, equilibrium, modes, Jacobians (checked numerically too)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symdelay.core.symbols import L, gamma, lam, mu, theta
from symdelay.founding import ActionDelayModel
from symdelay.models.erlang.linearize import structured_difference_jacobian


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_equilibrium_is_the_closed_form(n):
    m = ActionDelayModel(L=n)
    eq = m.equilibrium()
    assert len(eq) == 2 * (n + 1) == len(m.fluid_rhs())
    for q in m.q:
        assert sp.simplify(eq[q] - lam / mu) == 0
    for zi in m.z:
        for z in zi:
            assert sp.simplify(eq[z] - lam / gamma) == 0


def test_numeric_parameters_are_exact():
    m = ActionDelayModel(L=2, mu=0.1, lam=1, theta=2, D=0.5)
    assert m.mu == sp.Rational(1, 10)
    assert m.gamma == 4 and sp.Rational(1, 2) == m.D
    assert m.equilibrium()[m.q[0]] == 10


def _numeric(model, exprs, values):
    f = sp.lambdify(model.state, list(exprs), "numpy")
    return np.array(f(*values), dtype=float)


@pytest.mark.parametrize("n", [1, 3])
def test_difference_system_matches_the_full_system_numerically(n):
    """d(q1-q2)/dt etc. from the full ODEs at random states equal the tanh form."""
    params = {"mu": 1.3, "lam": 0.7, "theta": 2.1, "D": 1.7}
    m = ActionDelayModel(L=n, **params)
    diff = m.difference_system()
    rng = np.random.default_rng(1)
    rhs_full = sp.lambdify(m.state, list(m.fluid_rhs()), "numpy")
    rhs_diff = sp.lambdify(diff.state, list(diff.rhs), "numpy")
    for _ in range(5):
        s = rng.uniform(0, 2, size=len(m.state))
        f = np.array(rhs_full(*s))
        x = s[0] - s[1]
        w = s[2 : 2 + n] - s[2 + n :]
        expected = np.concatenate([[f[0] - f[1]], f[2 : 2 + n] - f[2 + n :]])
        assert np.allclose(rhs_diff(x, *w), expected, rtol=1e-12, atol=1e-12)


def test_sum_mode_is_linear_and_free_of_theta():
    m = ActionDelayModel(L=3)
    s = m.sum_system()
    assert all(not e.has(theta) for e in s.rhs)
    assert s.checks["linear"]


@pytest.mark.parametrize("n", [1, 2, 4])
def test_full_jacobian_against_finite_differences(n):
    params = {"mu": 1.1, "lam": 0.9, "theta": 1.7, "D": 0.8}
    m = ActionDelayModel(L=n, **params)
    J = np.array(m.jacobian(), dtype=float)
    f = sp.lambdify(m.state, list(m.fluid_rhs()), "numpy")
    x0 = np.array([float(v) for v in m.equilibrium().values()])
    h = 1e-6
    fd = np.empty_like(J)
    for k in range(len(x0)):
        e = np.zeros_like(x0)
        e[k] = h
        fd[:, k] = (np.array(f(*(x0 + e))) - np.array(f(*(x0 - e)))) / (2 * h)
    assert np.allclose(J, fd, atol=1e-7)


@pytest.mark.parametrize("n", range(1, 7))
def test_structured_jacobian_equals_explicit(n):
    explicit = ActionDelayModel(L=n).difference_jacobian()
    assert structured_difference_jacobian(L).subs(L, n).as_explicit() == explicit


def test_symbolic_L_model_gives_structured_jacobian():
    m = ActionDelayModel(L=L)
    J = m.difference_jacobian()
    assert isinstance(J, sp.FunctionMatrix)
    assert J.shape == (L + 1, L + 1)
    with pytest.raises(ValueError, match="needs a concrete L"):
        m.fluid_rhs()


def test_logit_identity():
    lhs, rhs = ActionDelayModel(L=1).logit_difference_identity()
    q1, q2 = sp.symbols("q1 q2")
    val = {q1: 0.3, q2: 1.1, theta: 2.5}
    x = sp.Symbol("x")
    assert float(lhs.subs(val)) == pytest.approx(float(rhs.subs({x: -0.8, theta: 2.5})))
