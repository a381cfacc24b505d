"""The stochastic system of any model: generated simulator against the fluid limit, LNA
variance against the founding model's closed forms."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symdelay
from symdelay.analysis.fluid import fluid
from symdelay.analysis.stochastic import simulate, variance
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model


@pytest.mark.parametrize("L", [1, 2])
@pytest.mark.parametrize("pars", [(1, 1, 2, 1), (2, "1/2", 1, 3), ("1/3", 2, "1/5", 2)])
def test_lna_variance_equals_the_closed_form(L, pars):
    mu, lam, theta, D = pars
    m = build_model("erlang", L=L, mu=mu, lam=lam, theta=theta, D=D)
    generic = variance(m, method="generic")
    v = generic.value
    ref = variance(m, method="specialised")
    assert generic.exact and type(generic) is type(ref)
    assert sp.nsimplify(ref.to_json()["var_x_over_eta"]) == v or abs(
        float(v) - float(ref.to_json()["var_x_over_eta"])
    ) < 1e-25 * float(v)
    closed = sp.sympify(
        ref.to_json()["closed_form"], locals={n: sp.Symbol(n) for n in ("D", "lam", "mu", "theta")}
    )
    vals = {sp.Symbol(k): sp.Rational(str(x)) for k, x in zip(("mu", "lam", "theta", "D"), pars)}
    assert sp.simplify(closed.subs(vals) - v) == 0


def test_simulation_tracks_the_fluid_limit_for_a_hyperexponential_delay():
    d = symdelay.PhaseType.hyperexp(["0.3", "0.7"], ["0.5", 2])
    m = build_model("phase_type", delay=d, mu=1, lam=1, theta=2)
    eta = 10**5
    sim = simulate(m, eta, 10, dt=0.1, seed=7)
    flu = fluid(m, 10, 0.1)
    for s in m.states:
        assert np.max(np.abs(sim[s.name] - flu[s.name])) < 8 / np.sqrt(eta)


def test_same_seed_same_paths_and_backends_agree():
    m = build_model("inflight", L=1, mu=1, lam=1, theta=2, D=1, kappa=1)
    a = simulate(m, 200, 2, seed=5, backend="c")
    b = simulate(m, 200, 2, seed=5, backend="python")
    assert np.array_equal(a.values, b.values) and np.array_equal(a.events, b.events)
    assert a.to_json()["parameters"]["seed"] == 5 and a.to_json()["parameters"]["theta"] == "2"


def test_stochastic_bad_input():
    m = build_model("erlang", L=2, mu=1, lam=1, D=1)
    with pytest.raises(SymdelayInputError, match="theta"):
        simulate(m, 100, 1)
    unstable = build_model("erlang", L=2, mu=1, lam=1, D=1, theta=20)
    with pytest.raises(SymdelayInputError, match="the equilibrium is unstable"):
        variance(unstable, method="generic")
    with pytest.raises(SymdelayInputError, match="the equilibrium is unstable"):
        variance(unstable)  # the one verdict, on the founding model's own path too
    ok = build_model("erlang", L=2, mu=1, lam=1, D=1, theta=1)
    with pytest.raises(SymdelayInputError, match="seed"):
        simulate(ok, 100, 1, seed=-1, method="generic")
    with pytest.raises(SymdelayInputError, match="dt"):
        simulate(ok, 100, 1, dt=0)


# ------------------------------------------------- the founding model: one path, the generic one


@pytest.mark.parametrize("L", [1, 2, 3])
def test_founding_variance_specialised_equals_generic(L):
    m = build_model("erlang", L=L, mu=1, lam="1/2", theta=3, D=2)
    fast = variance(m, dps=40, method="specialised")
    generic = variance(m, dps=40, method="generic")
    assert type(fast) is type(generic)
    assert fast.exact and generic.exact and fast.value == generic.value
    assert (
        fast.decimal() == generic.decimal()
        and len(fast.decimal().replace(".", "").lstrip("0")) == 40
    )
    assert variance(m).closed_form is not None or L > 2  # auto: the founding record
    # one record whatever the path: the same keys, and every value but the path's name equal
    a, b = fast.to_json(), generic.to_json()
    assert set(a) == set(b)
    assert {k for k in a if a[k] != b[k]} == {"method"}
    assert (fast.closed_form is None) == (L > 2) and fast.closed_form == generic.closed_form


def test_founding_variance_beyond_exact_l_equals_generic():
    """L = 13: the fast path's double-precision solve refined to dps digits against the
    generic path's exact rational solve of the full table."""
    m = build_model("erlang", L=13, mu=1, lam=1, theta=1, D=1)
    fast = variance(m, dps=25, method="specialised")
    generic = variance(m, dps=25, method="generic")
    assert not fast.exact and generic.exact
    assert fast.decimal() == generic.decimal()
    assert set(fast.to_json()) == set(generic.to_json())


@pytest.mark.parametrize("L", [1, 3])
def test_founding_fluid_is_the_generic_path_to_its_tolerance(L):
    """The founding model's fluid path is the table's drift (no specialisation): the
    default tolerances agree with a 1000x tighter run and with the stiff solver to 1e-8."""
    m = build_model("erlang", L=L, mu=1, lam=1, theta=3, D=1)
    y0 = [0.2, 1.5] + [0.3] * L + [0.1] * L
    auto = fluid(m, T=20, dt=0.1, initial=y0)
    assert auto.to_json()["info"]["solver"]["method"] == "DOP853"
    assert np.array_equal(auto.values, fluid(m, T=20, dt=0.1, initial=y0, method="generic").values)
    tight = fluid(m, T=20, dt=0.1, initial=y0, rtol=1e-13, atol=1e-15)
    stiff = fluid(m, T=20, dt=0.1, initial=y0, solver="LSODA")
    assert np.max(np.abs(auto.values - tight.values)) < 1e-8
    assert np.max(np.abs(stiff.values - tight.values)) < 1e-8
    with pytest.raises(SymdelayInputError, match="no specialised fluid"):
        fluid(m, T=1, method="specialised")


def _imbalance_variances(sim, eta, burn_in):
    """Per replication: the time-averaged variance of Q1 - Q2, divided by eta."""
    X = (sim.state("q1") - sim.state("q2")) * eta
    X = X[:, sim.t >= burn_in]
    return X.var(axis=1) / eta


def test_founding_simulation_agrees_with_the_lna():
    """The founding model's simulation (the kernel generated from its table): the stationary
    imbalance variance agrees with the LNA's closed value 3/2 within its confidence interval
    (a wrong rate in the kernel moves it by far more); no specialised kernel remains."""
    from scipy import stats

    eta, R = 200, 8
    m = build_model("erlang", L=1, mu=1, lam=1, theta=1, D=1)
    start = [eta, eta, eta, eta]  # the equilibrium q = lam/mu = 1, z = lam D / L = 1
    kw = dict(eta=eta, T=400, dt=0.5, initial=start, seed=11, replications=R)
    sim = simulate(m, **kw)
    assert sim.to_json()["parameters"]["seed"] == 11
    with pytest.raises(SymdelayInputError, match="no specialised simulate"):
        simulate(m, **kw, method="specialised")
    lna = float(variance(m).value)  # 3/2
    assert lna == 1.5
    t = stats.t.ppf(0.995, R - 1)  # 99 % two-sided (theta = 2 instead of 1 fails it)
    v = _imbalance_variances(sim, eta, burn_in=20)
    mean, se = float(v.mean()), float(v.std(ddof=1) / np.sqrt(R))
    # the LNA is exact to O(1/eta): allow 3 % for it on top of the interval
    assert abs(mean - lna) < t * se + 0.03 * lna, (mean, se)
    assert se < 0.03 * lna  # the interval is narrow enough to catch a wrong kernel
