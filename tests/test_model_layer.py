"""The generic model layer against independent paths: the built-in founding model's
derivation, explicit determinants, numpy eigenvalues, and the phase-type closed form."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import symdelay
from symdelay.analysis.stability import is_stable, stability
from symdelay.core.symbols import gamma, lam, mu, r, theta
from symdelay.model import Model, load_toml, model_from_dict
from symdelay.models import ActionDelayModel, build_model
from symdelay.models.erlang.charpoly import characteristic_polynomial
from symdelay.models.phase_type import PhaseType, characteristic_function


def founding_toml(L: int) -> dict:
    """The founding model written as the TOML tables a user would write."""
    names = ["q1", "q2"] + [f"z{i}{l}" for i in (1, 2) for l in range(1, L + 1)]
    logit = {i: f"2*lam*exp(-theta*q{i})/(exp(-theta*q1) + exp(-theta*q2))" for i in (1, 2)}
    tr = []
    for i in (1, 2):
        tr.append({"name": f"arrival {i}", "change": {f"z{i}1": 1}, "rate": logit[i]})
        for l in range(1, L):
            tr.append(
                {
                    "name": f"phase {i}{l}",
                    "change": {f"z{i}{l}": -1, f"z{i}{l + 1}": 1},
                    "rate": f"gamma*z{i}{l}",
                }
            )
        tr.append(
            {"name": f"enter {i}", "change": {f"z{i}{L}": -1, f"q{i}": 1}, "rate": f"gamma*z{i}{L}"}
        )
        tr.append({"name": f"service {i}", "change": {f"q{i}": -1}, "rate": f"mu*q{i}"})
    return {
        "name": f"founding L={L}",
        "parameters": {"mu": "positive", "lam": "positive", "theta": "real", "gamma": "positive"},
        "state": {"names": names},
        "transitions": tr,
        "symmetry": {"swap": [["q1", "q2"]] + [[f"z1{l}", f"z2{l}"] for l in range(1, L + 1)]},
    }


@pytest.mark.parametrize("L", [1, 2, 3, 4])
def test_founding_model_as_toml_matches_builtin(L):
    m = model_from_dict(founding_toml(L), source=f"founding{L}.toml")
    ref = ActionDelayModel(L=L)
    # equilibrium, coordinate by coordinate (z_il <-> z{i}_{l})
    eq = {s.name: v for s, v in m.equilibrium.point.items()}
    ref_eq = {s.name.replace("_", ""): v for s, v in ref.equilibrium().items()}
    assert eq == ref_eq
    diff = [f for f in m.factors if f.mode == "difference"]
    assert len(diff) == 1 and diff[0].multiplicity == 1
    assert sp.expand(diff[0].factor - characteristic_polynomial(L)) == 0
    # the difference block is similar to the built-in difference Jacobian: equal charpolys
    block = next(md for md in m.modes if md.name == "difference").jacobian
    assert (
        sp.expand(block.charpoly(r).as_expr() - ref.difference_jacobian().charpoly(r).as_expr())
        == 0
    )
    # sum mode: (r + mu)(r + gamma)^L, free of theta
    sum_poly = sp.Mul(*[f.factor**f.multiplicity for f in m.factors if f.mode == "sum"])
    assert sp.expand(sum_poly - (r + mu) * (r + gamma) ** L) == 0
    # independent path: the explicit determinant of the full 2(L+1) Jacobian
    J = ref.jacobian()
    assert sp.expand(m.charpoly - J.charpoly(r).as_expr()) == 0


def test_example_founding_file_equals_generated_tables():
    m = load_toml("examples/models/erlang2.toml")
    g = model_from_dict(founding_toml(2))
    assert sp.expand(m.charpoly - g.charpoly) == 0
    assert is_stable(m) is None  # depends on lam*theta


@pytest.mark.parametrize(
    "delay",
    [
        PhaseType.erlang(3, D=2),
        PhaseType.hypoexp([1, 2, 3]),
        PhaseType.hyperexp([0.3, 0.7], [0.5, 2]),
        PhaseType.coxian([1, 2, 4], [0.5, 0.25]),
        PhaseType.general([0.5, 0.5], [[-2, 1], [1, -3]]),
    ],
    ids=["erlang", "hypoexp", "hyperexp", "coxian", "ph"],
)
def test_phase_type_difference_equation_is_the_mode_determinant(delay):
    m = build_model("phase_type", delay=delay)
    diff = [f for f in m.factors if f.mode == "difference"]
    block = next(md for md in m.modes if md.name == "difference")
    # closed form r + mu + lam theta alpha (rI-S)^{-1} s, cleared of det(rI - S)
    S = delay.S
    closed = characteristic_function(delay) * (r * sp.eye(S.rows) - S).det()
    assert sp.simplify(closed - block.charpoly) == 0
    assert sp.expand(sp.Mul(*[f.factor**f.multiplicity for f in diff]) - block.charpoly) == 0
    # the sum mode does not depend on theta
    assert not any(f.factor.has(theta) for f in m.factors if f.mode == "sum")


def test_phase_type_moments():
    d = PhaseType.erlang(4, D=2)
    assert (d.mean, d.scv) == (2, sp.Rational(1, 4))
    h = PhaseType.hyperexp([sp.Rational(1, 2)] * 2, [1, 3])
    # E = 1/2 + 1/6, E2 = 2(1/2 + 1/18)
    assert h.mean == sp.Rational(2, 3)
    assert h.second_moment == sp.Rational(10, 9)


@pytest.mark.parametrize("N", [3, 4])
def test_nserver_modes_are_copies_of_the_two_server_equation(N):
    m = build_model("nserver", N=N, L=2)
    diff = [f for f in m.factors if f.mode.startswith("difference")]
    assert len(diff) == 1 and diff[0].multiplicity == N - 1
    assert sp.expand(diff[0].factor - characteristic_polynomial(2)) == 0
    # independent path at numbers: eigenvalues of the full Jacobian
    vals = {mu: 1, lam: sp.Rational(1, 2), theta: 3, gamma: 2}
    J = np.array(m.jacobian.subs(vals).tolist(), dtype=float)
    from_numpy = np.real(np.poly(np.linalg.eigvals(J)))
    product = sp.Poly(sp.expand(m.charpoly.subs(vals)), r).all_coeffs()
    assert np.allclose(from_numpy, np.array(product, dtype=float), rtol=1e-9, atol=1e-9)


def test_inflight_with_zero_weight_is_the_founding_model():
    a = build_model("inflight", L=2, kappa=0)
    b = build_model("erlang", L=2)
    assert sp.expand(a.charpoly - b.charpoly) == 0


def test_hetero_equilibrium_is_proved_and_jacobian_matches_numpy():
    from scipy.optimize import fsolve

    m = build_model("hetero", mu1=1, mu2=2, lam=1, theta=2, D1=1, D2="1/2", L=2)
    eq = m.equilibrium
    assert not eq.exact and 0 < eq.radius < 1e-20
    # independent path: scipy's fsolve on the drift
    F = sp.lambdify([m.states], list(m.drift))
    x = fsolve(F, np.ones(len(m.states)), xtol=1e-12)
    mid = np.array([float(eq.point[s]) for s in m.states])
    assert np.allclose(x, mid, atol=1e-10)
    # Jacobian eigenvalues vs roots of the characteristic polynomial
    Jnum = sp.lambdify([m.states], m.drift_jacobian)(x)
    eig = np.sort_complex(np.linalg.eigvals(np.array(Jnum, dtype=float)))
    coeffs = [float(c) for c in sp.Poly(m.charpoly, r).all_coeffs()]
    assert np.allclose(np.sort_complex(np.roots(coeffs)), eig, atol=1e-8)
    assert is_stable(m) is (bool(max(eig.real) < 0))


def test_diffusion_matrix_founding_model():
    m = build_model("erlang", L=1)
    B = m.diffusion
    # arrivals at rate lam into z1_1 and z2_1; entries into service gamma z*; services mu q*
    i = {s.name: k for k, s in enumerate(m.states)}
    assert B[i["z1_1"], i["z1_1"]] == 2 * lam  # arrival lam + move to service gamma*lam/gamma
    assert B[i["z1_1"], i["q1"]] == -lam
    assert B[i["q1"], i["q1"]] == 2 * lam
    assert B[i["q1"], i["q2"]] == 0


def test_symbolic_birth_death_doc_model_is_stable():
    m = Model(
        "bd",
        ["x"],
        {"a": "positive", "b": "positive"},
        [("b", {"x": 1}, "a"), ("d", {"x": -1}, "b*x")],
    )
    assert is_stable(m) is True
    assert stability(m).conditions == ()


def test_python_api_exports():
    assert symdelay.Model is Model
    assert callable(symdelay.load_toml)


def test_equal_routing_exponents_give_the_exact_equilibrium():
    """Unequal delays before equal servers: with lam, theta free the equilibrium has every
    queue at lam/mu (the routing exponents equal); it equals the numeric Newton + Krawczyk
    point once numbers are given, and unequal servers are still refused symbolically."""
    import sympy as sp

    from symdelay.core.errors import SymdelayInputError
    from symdelay.models import build_model

    m = build_model("hetero", mu1=1, mu2=1, D1=1, D2=2, L=2)
    eq = m.equilibrium
    assert eq.exact and "equal routing exponents" in eq.method
    lam = next(p for p in m.free_parameters if p.name == "lam")
    for s, v in eq.point.items():
        assert sp.simplify(v / lam).is_Rational, (s, v)
    num = build_model("hetero", mu1=1, mu2=1, D1=1, D2=2, L=2, lam="3/2", theta=2).equilibrium
    assert not num.exact
    for s, v in eq.point.items():
        other = next(x for x in num.point if x.name == s.name)
        assert abs(sp.N(v.subs(lam, sp.Rational(3, 2))) - num.point[other]) < 1e-20
    with pytest.raises(SymdelayInputError, match="no closed-form equilibrium"):
        _ = build_model("hetero", mu1=1, mu2=2, D1=1, D2=2, L=1).equilibrium
