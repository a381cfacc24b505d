"""The stochastic system of any model: generated simulator against the fluid limit, LNA
variance against the founding model's closed forms."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symdelay
from symdelay.analysis.roots import model_fluid
from symdelay.analysis.stochastic import model_simulate, model_variance
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model


@pytest.mark.parametrize("L", [1, 2])
@pytest.mark.parametrize("pars", [(1, 1, 2, 1), (2, "1/2", 1, 3), ("1/3", 2, "1/5", 2)])
def test_lna_variance_equals_the_closed_form(L, pars):
    mu, lam, theta, D = pars
    m = build_model("erlang", L=L, mu=mu, lam=lam, theta=theta, D=D)
    v, ln = model_variance(m)
    ref = symdelay.variance(L=L, mu=mu, lam=lam, theta=theta, D=D)
    assert ln.exact
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
    sim = model_simulate(m, eta, 10, dt=0.1, seed=7)
    flu = model_fluid(m, 10, points=101)
    for s in m.states:
        assert np.max(np.abs(sim[s.name][0] - flu[s.name])) < 8 / np.sqrt(eta)


def test_same_seed_same_paths_and_backends_agree():
    m = build_model("inflight", L=1, mu=1, lam=1, theta=2, D=1, kappa=1)
    a = model_simulate(m, 200, 2, seed=5, backend="c")
    b = model_simulate(m, 200, 2, seed=5, backend="python")
    assert np.array_equal(a.paths, b.paths) and a.events == b.events
    assert a.to_json()["seed"] == 5 and a.to_json()["parameters"]["theta"] == "2"


def test_stochastic_bad_input():
    m = build_model("erlang", L=2, mu=1, lam=1, D=1)
    with pytest.raises(SymdelayInputError, match="theta"):
        model_simulate(m, 100, 1)
    unstable = build_model("erlang", L=2, mu=1, lam=1, D=1, theta=20)
    with pytest.raises(SymdelayInputError, match="not stable"):
        model_variance(unstable)
    ok = build_model("erlang", L=2, mu=1, lam=1, D=1, theta=1)
    with pytest.raises(SymdelayInputError, match="seed"):
        model_simulate(ok, 100, 1, seed=-1)
    with pytest.raises(SymdelayInputError, match="dt"):
        model_simulate(ok, 100, 1, dt=0)
