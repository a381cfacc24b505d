"""The founding model stated once: the transition table is the source.

The equations of MODEL.md are written out *here* (the only hand-written copy outside the
table) and compared with what the package reads off the table: the fluid drift, the
derivation view (ActionDelayModel), the exact difference system, the one symbolic-L
statement (structured Jacobian, characteristic polynomial) for L = 1..6, the numeric
fields built from them, and the delay-differential limit read off the same table.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symdelay.core.errors import VerificationError
from symdelay.core.symbols import L, gamma, lam, mu, r, theta
from symdelay.models import ActionDelayModel, build_model
from symdelay.models.dde import difference_functions
from symdelay.models.dde.steps import table_limit
from symdelay.models.delayed_routing import lag_limit, swap_mode
from symdelay.models.erlang.charpoly import characteristic_polynomial, infinite_L_limit
from symdelay.models.erlang.founding import FoundingModel, symbolic_founding
from symdelay.models.erlang.linearize import (
    difference_jacobian_numeric,
    structured_difference_jacobian,
)
from symdelay.models.erlang.nonlinear.fields import difference_field

q1, q2, x = sp.symbols("q1 q2 x")


def model_md_fluid(n):
    """MODEL.md's fluid limit, written from the page: states and right-hand sides."""
    z = [sp.symbols(f"z{i}_1:{n + 1}") for i in (1, 2)]
    e = [sp.exp(-theta * q1), sp.exp(-theta * q2)]
    p = [e[0] / (e[0] + e[1]), e[1] / (e[0] + e[1])]
    dq = [gamma * z[i][-1] - mu * (q1, q2)[i] for i in (0, 1)]
    dz = [
        [2 * lam * p[i] - gamma * z[i][0]]
        + [gamma * z[i][k - 1] - gamma * z[i][k] for k in range(1, n)]
        for i in (0, 1)
    ]
    return (q1, q2, *z[0], *z[1]), (*dq, *dz[0], *dz[1])


def model_md_difference(n):
    """MODEL.md's exact difference dynamics in (x, w_1..w_L)."""
    w = sp.symbols(f"w1:{n + 1}")
    rhs = [gamma * w[-1] - mu * x, -2 * lam * sp.tanh(theta * x / 2) - gamma * w[0]]
    rhs += [gamma * (w[k - 1] - w[k]) for k in range(1, n)]
    return (x, *w), rhs


@pytest.mark.parametrize("n", range(1, 7))
def test_table_drift_is_model_md(n):
    states, rhs = model_md_fluid(n)
    table = symbolic_founding(n)
    assert table.states == states
    assert all(sp.expand(a - b) == 0 for a, b in zip(table.drift, rhs, strict=True))
    view = ActionDelayModel(L=n)
    assert view.state == states and view.fluid_rhs() == tuple(table.drift)


@pytest.mark.parametrize("n", range(1, 7))
def test_difference_system_and_one_symbolic_statement_against_the_table(n):
    """The derived difference system is MODEL.md's; its Jacobian, the table's difference
    block and the structured symbolic-L matrix at L = n are one matrix; the block's
    polynomial is the general characteristic polynomial; the equilibrium is q* = lam/mu,
    z* = lam/gamma."""
    view = ActionDelayModel(L=n)
    ds = view.difference_system()
    state, rhs = model_md_difference(n)
    assert ds.state == state
    assert all(sp.expand(a - b) == 0 for a, b in zip(ds.rhs, rhs, strict=True))
    block = next(m for m in symbolic_founding(n).modes if m.name == "difference").jacobian
    assert ds.jacobian() == block == view.difference_jacobian()
    assert structured_difference_jacobian(L).subs(L, n).as_explicit() == block
    assert sp.expand(block.charpoly(r).as_expr() - characteristic_polynomial(n)) == 0
    factor = next(f for f in symbolic_founding(n).factors if f.mode == "difference")
    assert sp.expand(factor.factor - characteristic_polynomial(n)) == 0
    eq = view.equilibrium()
    assert {eq[q1], eq[q2]} == {lam / mu} and {eq[z] for z in view.z[0] + view.z[1]} == {
        lam / gamma
    }


def test_view_with_values_is_the_model_object_with_values():
    """Substituting into the symbolic table (the view) and building the table with the
    numbers (the model object the analyses take) give the same point and Jacobians."""
    view = ActionDelayModel(L=3, mu="1.5", lam="0.7", theta=3, D=2)
    numeric = view.model
    assert isinstance(numeric, FoundingModel) and numeric.options["mu"] == sp.Rational(3, 2)
    assert view.equilibrium() == dict(numeric.equilibrium.point)
    assert view.jacobian() == numeric.jacobian
    block = next(m for m in numeric.modes if m.name == "difference").jacobian
    assert view.difference_jacobian() == block
    built = build_model("erlang", L=3, mu=1.5, lam=0.7, theta=3, D=2)
    assert view.difference_jacobian() == built.modes[1].jacobian


@pytest.mark.parametrize("n", [1, 2, 5, 40])
def test_numeric_difference_jacobian_evaluates_the_statement(n):
    rng = np.random.default_rng(n)
    m, l, t, d = rng.uniform(0.2, 3.0, size=4)
    J = difference_jacobian_numeric(n, m, l, t, d)
    g = n / d
    expected = np.diag(np.r_[-m, [-g] * n]) + np.diag(np.r_[0.0, [g] * (n - 1)], -1)
    expected[0, n] += g
    expected[1, 0] -= l * t
    assert np.array_equal(J, expected)
    if n <= 5:
        exact = ActionDelayModel(L=n, mu=m, lam=l, theta=t, D=d).difference_jacobian()
        assert np.allclose(np.array(exact, dtype=float), J, rtol=1e-14, atol=0)


@pytest.mark.parametrize("n", [2, 5, 8])
def test_difference_field_is_the_table_system_beyond_its_own_check(n):
    """The numeric field (structured Jacobian at theta = 0 + the table's routing term) is the
    table's exact difference system at random points, also above the L it checks itself."""
    params = {"mu": 1.3, "lam": 0.7, "theta": 2.9, "D": 1.7}
    fld = difference_field(n, params["mu"], params["lam"], params["D"], params["theta"])
    ds = ActionDelayModel(L=n, **params).difference_system()
    f = sp.lambdify(ds.state, list(ds.rhs), "numpy")
    jac = sp.lambdify(ds.state, sp.Matrix(ds.rhs).jacobian(ds.state), "numpy")
    rng = np.random.default_rng(7)
    for _ in range(4):
        y = rng.uniform(-2, 2, size=n + 1)
        assert np.allclose(fld.f(y), f(*y), rtol=1e-13, atol=1e-13)
        assert np.allclose(fld.jac(y), np.array(jac(*y), dtype=float), rtol=1e-12, atol=1e-13)


def test_dde_is_the_lag_limit_of_the_table_and_the_limit_of_the_polynomial():
    """The DDE read off the information-delay table (delayed(q_i, tau) -> q_i(t - D)) is
    Pender-Rand-Wesson's, written here, and the founding table's lag limit (Erlang delay ->
    its mean); its characteristic function is the L -> oo limit of the Erlang polynomial."""
    m = build_model("dde")
    lim = table_limit(m)
    now, lag = sp.symbols("now1 now2"), sp.symbols("lag1 lag2")
    e = [sp.exp(-theta * lag[0]), sp.exp(-theta * lag[1])]
    for i, f in enumerate(lim.drift(now, lag)):
        expected = 2 * lam * e[i] / (e[0] + e[1]) - mu * now[i]
        assert sp.simplify(f - expected) == 0
    x, xd, row = lim.mode("difference")
    assert sp.expand(row - (-mu * x - 2 * lam * sp.tanh(theta * xd / 2))) == 0
    diff = m.characteristic_factors[1].factor
    assert sp.expand(diff - infinite_L_limit().result) == 0
    # the limit is the same whichever L the founding table is read at, and is this table's
    for n in (1, 3):
        found = lag_limit(symbolic_founding(n))
        assert found.queues == (q1, q2) and found.served == (mu * q1, mu * q2)
        assert all(sp.simplify(a - b) == 0 for a, b in zip(found.routed, lim.routed))
    with pytest.raises(ValueError, match="kappa = 0"):
        lag_limit(build_model("inflight", L=2, kappa=0.5))


def test_dde_functions_and_derivatives():
    f, fx, fd = difference_functions("numpy")
    xs, xd = np.linspace(-3, 3, 7), np.linspace(2, -1, 7)
    mu_, lam_, th = 0.9, 1.3, 2.2
    assert np.allclose(f(xs, xd, mu_, lam_, th), -mu_ * xs - 2 * lam_ * np.tanh(th * xd / 2))
    assert np.allclose(fx(xs, xd, mu_, lam_, th), -mu_)
    sech2 = 1 / np.cosh(th * xd / 2) ** 2
    assert np.allclose(fd(xs, xd, mu_, lam_, th), -lam_ * th * sech2, rtol=1e-13)


def test_swap_mode_refuses_an_open_mode():
    a, b, c = sp.symbols("a b c")
    with pytest.raises(VerificationError, match="not closed"):
        swap_mode([(a * b, b * a + b)], [(a, b, c)], "difference")
