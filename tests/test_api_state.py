"""What the API hands out cannot change a model's cache; one result type per function; every
result with mathematics renders in a notebook (``_repr_latex_``) with its key numbers."""

from __future__ import annotations

import copy
import pickle
import re

import mpmath
import pytest
import sympy as sp

import symdelay
from symdelay.analysis.stochastic import StationaryVariance as VarianceResult
from symdelay.analysis.stochastic import variance as lna_variance
from symdelay.core.display import ReadOnlyDict
from symdelay.core.symbols import r, theta
from symdelay.model import Model
from symdelay.model.core import Equilibrium
from symdelay.models import build_model
from symdelay.models.erlang.stochastic import variance as founding_variance

q1, q2 = sp.symbols("q1 q2")


def founding(L=2):
    return build_model("erlang", L=L, mu=1, lam=1, D=1)


# ------------------------------------------------------------------ no aliasing of caches


def test_equilibrium_point_cannot_be_changed():
    m = founding()
    point = m.equilibrium.point
    for change in (
        lambda p: p.__setitem__(q1, 5),
        lambda p: p.update({q1: 5}),
        lambda p: p.pop(q1),
        lambda p: p.setdefault(sp.Symbol("new"), 1),
        lambda p: p.__delitem__(q1),
        lambda p: p.clear(),
        lambda p: p.popitem(),
    ):
        with pytest.raises(TypeError, match="read-only"):
            change(point)
    # the factors come from the untouched point: q* = lam/mu = 1, and the difference mode is
    # (r + mu)(r + gamma)^L + lam theta gamma^L with gamma = L/D = 2
    assert point[q1] == point[q2] == 1
    diff = [f.factor for f in m.factors if f.mode == "difference"]
    assert len(diff) == 1
    assert sp.expand(diff[0] - ((r + 1) * (r + 2) ** 2 + 4 * theta)) == 0


def test_copy_of_the_point_is_a_plain_dict_apart_from_the_model():
    m = founding()
    mine = dict(m.equilibrium.point)
    mine[q1] = 5
    also = m.equilibrium.point.copy()
    also[q2] = 7
    assert type(also) is dict
    assert m.equilibrium.point[q1] == 1 and m.equilibrium.point[q2] == 1
    # the changed copy did not reach the Jacobian: its (q1, q1) entry is -mu
    assert m.jacobian[0, 0] == -1


def test_equilibrium_copies_the_dict_it_is_given():
    given = {q1: sp.Integer(1)}
    eq = Equilibrium(given, True)
    given[q1] = 5
    assert eq.point == {q1: 1}
    assert isinstance(eq.point, ReadOnlyDict)


def test_model_mappings_are_read_only_and_with_values_still_works():
    m = build_model("erlang", L=1, mu=1, lam=1, D=1)
    for mapping in (m.values, m.domains, m.latex_names, m.mode_names):
        with pytest.raises(TypeError):
            mapping[sp.Symbol("mu")] = 2
    assert m.values[sp.Symbol("mu")] == 1
    m2 = m.with_values(theta=2)
    assert m2.values[theta] == 2 and theta not in m.values


def test_cached_matrices_are_immutable():
    m = founding(L=1)
    J = m.jacobian
    with pytest.raises(TypeError):
        J[0, 0] = 5
    with pytest.raises(TypeError):
        m.diffusion[0, 0] = 5
    assert m.jacobian[0, 0] == -1


def test_read_only_mappings_pickle_and_copy():
    m = founding(L=1)
    eq = pickle.loads(pickle.dumps(m.equilibrium))
    assert eq == m.equilibrium and isinstance(eq.point, ReadOnlyDict)
    vals = pickle.loads(pickle.dumps(m.values))
    assert vals == m.values and isinstance(vals, ReadOnlyDict)
    deep = copy.deepcopy(m.values)
    assert deep == m.values and isinstance(deep, ReadOnlyDict)


def test_a_model_from_a_table_hands_out_read_only_point():
    m = Model(
        "birth-death",
        ["x"],
        {"a": "positive", "b": "positive"},
        [("birth", {"x": 1}, "a"), ("death", {"x": -1}, "b*x")],
    )
    a, b, x = sp.symbols("a b x")
    with pytest.raises(TypeError):
        m.equilibrium.point[x] = 0
    assert m.equilibrium.point == {x: a / b}
    assert m.charpoly == r + b


# ------------------------------------------------------------------ variance result type


def test_variance_with_kappa_is_a_variance_result():
    v = founding_variance(2, 1, 1, 5, 1, kappa=sp.Rational(1, 10))
    assert isinstance(v, VarianceResult)
    founding_keys = set(founding_variance(2, 1, 1, 5, 1).to_json())
    rec = v.to_json()
    assert founding_keys <= set(rec)
    assert rec["parameters"]["kappa"] == "1/10" and rec["parameters"]["D"] == "1"
    assert rec["weights"] == ["1", "-1", "0", "0", "0", "0"]
    assert v.exact and isinstance(v.var_x_over_eta, sp.Rational)
    with mpmath.workdps(40):
        assert mpmath.mpf(rec["var_x_over_eta"]) == pytest.approx(
            mpmath.mpf(v.var_x_over_eta.p) / v.var_x_over_eta.q, rel=1e-25
        )


def test_variance_with_kappa_zero_is_the_founding_value():
    # kappa = 0 is the founding model: the generic LNA and the founding model's own
    # Lyapunov solve (two independent paths) give the same exact rational
    for L, th in ((1, 3), (2, 5)):
        generic = founding_variance(L, 1, 1, th, 1, kappa=0)
        own = founding_variance(L, 1, 1, th, 1)
        assert isinstance(generic, VarianceResult)
        assert generic.var_x_over_eta == own.var_x_over_eta
        assert generic.parameters["L"] == own.parameters["L"] == L


def test_variance_with_model_is_a_variance_result():
    m = build_model("erlang", L=1, mu=1, lam=1, D=1, theta=0)
    v = lna_variance(m)
    # theta = 0: two independent M/M/oo queues with arrival rate lam: Var = 2 lam / mu
    assert isinstance(v, VarianceResult) and v.var_x_over_eta == 2
    assert float(v) == 2.0
    assert "Var" in v._repr_latex_()
    with pytest.raises(TypeError, match="frob"):
        lna_variance(m, frob=1)


# ------------------------------------------------------------------ _repr_latex_


def rendered(obj) -> str:
    text = obj._repr_latex_()
    assert text.startswith("$\\displaystyle ") and text.endswith("$")
    body = text[len("$\\displaystyle ") : -1]
    depth = 0
    for i, c in enumerate(body):
        if c in "{}" and (i == 0 or body[i - 1] != "\\"):
            depth += 1 if c == "{" else -1
            assert depth >= 0, body
    assert depth == 0, body
    return body


def test_critical_curve_latex():
    # L = 2: theta_c(D) = (D + 2)^2 / D (mu = lam = 1): 9 at D = 1, 8 at D = 2
    body = rendered(symdelay.founding.critical_theta(2, 1, 1, [1, 2]))
    assert "9.0000" in body and "8.0000" in body and r"\theta_c" in body


def test_root_set_latex():
    # L = 1: r^2 + (mu + gamma) r + gamma (mu + lam theta) = r^2 + 2 r + 3: -1 +- i sqrt(2)
    body = rendered(symdelay.founding.characteristic_roots(1, 1, 1, 2, 1, dps=20))
    assert "-1.0000" in body and str(mpmath.sqrt(2))[:8] in body


def test_instability_window_latex():
    # theta_c(D) = (D + 2)^2 / D = 10 at D = 3 -+ sqrt(5)
    body = rendered(symdelay.founding.instability_window(2, 10, 1, 1))
    with mpmath.workdps(20):
        lo, hi = 3 - mpmath.sqrt(5), 3 + mpmath.sqrt(5)
    ends = [mpmath.mpf(x) for x in re.findall(r"\d+\.\d+", body)]
    assert len(ends) == 2
    assert abs(ends[0] - lo) < 1e-12 and abs(ends[1] - hi) < 1e-12


def test_empty_instability_window_latex():
    assert r"\emptyset" in rendered(symdelay.founding.instability_window(2, 1, 1, 1))


def test_routh_latex():
    # s^3 + 2 s^2 + 3 s + 5: Delta_2 = 2*3 - 5 = 1 > 0, stable; s^3 + s^2 + s + 5: 1 - 5 < 0,
    # two roots in the right half-plane
    stable = rendered(symdelay.routh_hurwitz("s**3 + 2*s**2 + 3*s + 5", "s"))
    assert "s^{3}" in stable and r"\text{stable}" in stable and "> 0: 0" in stable
    unstable = rendered(symdelay.routh_hurwitz("s**3 + s**2 + s + 5", "s"))
    assert r"\text{unstable}" in unstable and "> 0: 2" in unstable


def test_claim_latex():
    # L = 1 is stable for all positive parameters: the claim implies stability, not back
    body = rendered(symdelay.verify(symdelay.build_model("erlang", L=1), "lam*theta < 3*mu"))
    assert r"3 \mu" in body and "sufficient" in body


def test_worst_delay_latex():
    w = symdelay.worst_delay(symdelay.build_model("erlang", L=3, mu=1, lam=1))
    body = rendered(w)
    # second path: theta_c(D) on the critical curve is smallest at D_star among its neighbours
    D_star = float(w.D_star)
    curve = symdelay.founding.critical_theta(3, 1, 1, [D_star * 0.9, D_star, D_star * 1.1])
    th = [float(p.theta_c) for p in curve.points]
    assert th[1] < th[0] and th[1] < th[2]
    shown = [float(x) for x in re.findall(r"\d+\.\d+", body)]
    assert any(abs(x - th[1]) < 1e-9 for x in shown), (th[1], body)
    assert any(abs(x - D_star) < 1e-9 for x in shown), (D_star, body)


def test_model_roots_latex():
    from symdelay.analysis.roots import roots

    # L = 1, mu = lam = D = 1, theta = 2: sum factor r + 1 (twice), difference
    # (r + 1)^2 + lam theta gamma = r^2 + 2 r + 3; every root has real part -1
    m = build_model("erlang", L=1, mu=1, lam=1, theta=2, D=1)
    body = rendered(roots(m, dps=15, method="generic"))
    assert "r^{2} + 2 r + 3" in body and "r + 1" in body and "-1" in body


def test_cached_modes_are_immutable():
    m = founding(L=1)
    for mode in m.modes:
        with pytest.raises(TypeError):
            mode.jacobian[0, 0] = 5
        with pytest.raises(TypeError):
            mode.basis[0, 0] = 5
    # the difference block of L = 1 (x, w_1): [[-mu, gamma], [-lam theta, -gamma]]
    diff = next(md for md in m.modes if md.name == "difference")
    assert diff.jacobian == sp.Matrix([[-1, 1], [-theta, -1]])


def test_exact_jacobian_keeps_tiny_exponential_terms():
    # d/dx (a + c e^-40 x - b x) = c e^-40 - b: with b = 1, c = 3 it is 3 e^-40 - 1, not -1
    # (nsimplify rounded such numbers to the nearest simple one)
    m = Model(
        "bd",
        ["x"],
        {"a": "positive", "b": "positive", "c": "positive"},
        [("birth", {"x": 1}, "a + c*exp(-40)*x"), ("death", {"x": -1}, "b*x")],
        values={"a": 1, "b": 1, "c": 3},
    )
    assert m.equilibrium.exact
    assert sp.simplify(m.jacobian[0, 0] - (3 * sp.exp(-40) - 1)) == 0
    assert m.jacobian[0, 0] != -1


def test_one_state_numeric_equilibrium():
    # a e^-x = b x has no closed form; at a = b = 1 it is the omega constant W(1)
    m = Model(
        "bd",
        ["x"],
        {"a": "positive", "b": "positive"},
        [("birth", {"x": 1}, "a*exp(-x)"), ("death", {"x": -1}, "b*x")],
        values={"a": 1, "b": 1},
    )
    eq = m.equilibrium
    assert not eq.exact
    x = eq.point[sp.Symbol("x")]
    with mpmath.workdps(30):
        assert abs(mpmath.mpf(x) - mpmath.lambertw(1).real) < mpmath.mpf(10) ** -25


def test_cached_routh_result_text_cannot_be_changed():
    from symdelay.models.erlang.stability import difference_routh

    res = difference_routh(3)
    before = res.to_json()
    with pytest.raises(TypeError):
        res.printed[0] = (None, "x")
    assert difference_routh(3).to_json() == before
