"""LB fluid model: closed-form equilibrium vs long integration of the model layer's drift,
the drift vs the direct preference-order routing, and vs simulation at large n."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.simulate import generated_kernel
from symdelay.analysis.stability import is_stable
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model
from symdelay.models.lb import LBPolicy
from symdelay.models.lb.fluid import fluid_equilibrium, fluid_path, routing_probabilities
from symdelay.models.lb.simulate import simulate

CASES = [
    ("N=50,mu=1;N=100,mu=0.5", "2", None, "1,1", "1,2", "1/2", [0.0, 0.6]),
    ("N=50,mu=1;N=100,mu=0.5;N=30,mu=2", None, "1:0.2,2:0.8", "1,2,1", "1,2,3", "4/5",
     [0.0, 0.6, 0.1]),
]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_equilibrium_vs_long_integration(case):
    st, xi, xid, c, d, lam, x0 = case
    p = LBPolicy.from_text(st, xi=xi, xi_dist=xid, c=c, d=d)
    e = fluid_equilibrium(p, lam)
    path = fluid_path(p, lam, x0, T=20, h=4e-3)
    eq = np.array([float(v) for v in e.point])
    assert np.max(np.abs(path.info["average"] - eq)) < 5e-3
    # utilisation ratios set by d: (1 - u_i) d_i equal
    k = {(1 - u) * dj for u, dj in zip(e.utilisations, p.d)}
    assert k == {e.kappa}
    assert sum(s.mu * x for s, x in zip(p.stations, e.point)) == e.lam


def test_model_drift_equals_direct_routing():
    p = LBPolicy.from_text("N=50,mu=1;N=100,mu=0.5;N=30,mu=2", xi_dist="1:0.2,2:0.8", c="1,2,1",
                           d="1,2,3")  # fmt: skip
    m = build_model("lb", stations="N=50,mu=1;N=100,mu=0.5;N=30,mu=2", xi_dist="1:0.2,2:0.8",
                    c="1,2,1", d="1,2,3", lam="4/5")  # fmt: skip
    F = sp.lambdify([m.states], list(m.drift), "numpy")
    rng = np.random.default_rng(4)
    w = np.array([float(v) for v in p.shares])
    mu = np.array([float(s.mu) for s in p.stations])
    for _ in range(40):
        x = w * rng.uniform(0.3, 1.7, size=3)
        direct = 0.8 * routing_probabilities(p, x) - mu * np.minimum(x, w)
        assert np.allclose(np.asarray(F(x), dtype=float), direct, atol=1e-12)
    assert sum(p.rank_probabilities()) == 1


def test_model_layer_pipeline():
    m = build_model("lb", stations="N=50,mu=1;N=100,mu=0.5", xi=2, d="1,2", lam="1/2")
    assert is_stable(m) is True
    assert m.charpoly == sp.Symbol("r") + m.idle_rate
    rec = m.to_json()
    assert rec["equilibrium"] == {"x1": "2/9", "x2": "5/9"}
    # the model layer's own generated simulator, run from the transition table, settles there
    n = 20000
    out, events = generated_kernel(m).run(n, [0, 2 * n // 3], np.linspace(0, 40, 161), seed=2)
    late = out[40:].mean(axis=0) / n
    assert events > 10000
    assert np.allclose(late, [2 / 9, 5 / 9], atol=0.01)
    # the fluid entry answers with the family's Euler path (the drift slides on the balanced
    # set), which settles at the same closed-form equilibrium
    from symdelay.analysis.fluid import fluid

    path = fluid(m, 40, initial=[0, 2 / 3])
    assert path.info["solver"] == {"method": "Euler", "h": 0.001}
    assert np.allclose(path.values[0, -1], [2 / 9, 5 / 9], atol=0.01)
    with pytest.raises(SymdelayInputError, match="Euler"):
        fluid(m, 5, rtol=1e-6)


def test_fluid_vs_simulation_large_n():
    """n = 3000, load 0.8: simulated utilisations near the fluid's 1 - kappa/d_j."""
    p = LBPolicy.from_text("N=1000,mu=1;N=2000,mu=0.5", xi="2", d="1,2")
    e = fluid_equilibrium(p, "0.53")
    lam = sp.Rational("0.53") * p.n
    r = simulate(p, lam, 60, seed=1)
    for st, u in zip(r.info["stations"], e.utilisations):
        assert st["utilisation"].covers(u, slack=0.01)


def test_beyond_capacity_and_weak_sampling_refused():
    p = LBPolicy.from_text("N=50,mu=1;N=100,mu=0.5", xi="2")
    with pytest.raises(SymdelayInputError, match="capacity"):
        fluid_equilibrium(p, "2/3")
    q = LBPolicy.from_text("N=100,mu=1;N=5,mu=1;N=5,mu=1", xi_dist="1:0.9,3:0.1")
    with pytest.raises(SymdelayInputError, match="sampling"):
        fluid_equilibrium(q, "0.9")
