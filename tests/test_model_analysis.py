"""Model-level roots and fluid paths against the founding model's specialised paths."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

import symdelay
from symdelay.analysis.fluid import fluid
from symdelay.analysis.roots import roots
from symdelay.analysis.stochastic import variance
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model
from symdelay.models.erlang import stochastic as founding


@pytest.mark.parametrize("L", [1, 2, 3, 4, 5, 6])
def test_generic_roots_equal_the_erlang_fast_path(L):
    pars = {"mu": 1, "lam": 1, "theta": sp.Rational(5, 2), "D": sp.Rational(3, 2)}
    m = build_model("erlang", L=L, **pars)
    generic = roots(m, dps=30, method="generic")
    diff = generic.mode_roots("difference")
    fast = symdelay.founding.characteristic_roots(
        L, pars["mu"], pars["lam"], pars["theta"], pars["D"], dps=30
    )
    assert len(diff) == len(fast) == L + 1
    for z in fast:
        d = min(abs(z.value - w.value) for w in diff)
        assert d < mpmath.mpf(10) ** -25
    assert diff.unstable_count == fast.unstable_count
    # the sum mode adds -mu and -gamma (L times), all stable
    assert generic.unstable_count == fast.unstable_count


def test_root_exactly_on_the_axis_is_counted_exactly():
    # L = 3, mu = lam = 1, theta = 4, D = 3: roots +-i exactly (the worst-delay point)
    m = build_model("erlang", L=3, mu=1, lam=1, theta=4, D=3)
    res = roots(m, dps=20, method="generic")
    assert res.axis_count == 2 and res.unstable_count == 0 and not res.is_stable


def test_roots_need_numbers():
    with pytest.raises(SymdelayInputError, match="theta"):
        roots(build_model("erlang", L=2, mu=1, lam=1, D=1))


def test_generic_fluid_equals_the_founding_fluid():
    m = build_model("erlang", L=2, mu=1, lam=1, theta=2, D=1)
    y0 = np.zeros(6)
    y0[1] = 1.0
    g = fluid(m, 20, 0.1, initial=y0, method="generic")
    ref = founding.fluid(L=2, mu=1, lam=1, theta=2, D=1, T=20, dt=0.1)
    assert g.to_json() == ref.to_json()  # one record, one path, the paper's start
    names = [s.name for s in m.states]
    assert names == ["q1", "q2", "z1_1", "z1_2", "z2_1", "z2_2"]
    # an independent path: the model layer's exact (tanh) difference dynamics
    d = founding.fluid_difference(L=2, mu=1, lam=1, theta=2, D=1, T=20, dt=0.1, initial=(-1,))
    assert np.allclose(g["q1"] - g["q2"], d["x"], atol=1e-8)


def test_fluid_tends_to_the_proved_equilibrium_of_unequal_servers():
    m = build_model("hetero", mu1=1, mu2=2, lam=1, theta=1, D=1, L=1)
    path = fluid(m, 80)
    end = path.values[0, -1]
    eq = np.array([float(m.equilibrium.point[s]) for s in m.states])
    assert np.allclose(end, eq, atol=1e-6)


def test_fluid_bad_input():
    m = build_model("erlang", L=1, mu=1, lam=1, theta=1, D=1)
    with pytest.raises(SymdelayInputError, match="T must be"):
        fluid(m, -1)
    with pytest.raises(SymdelayInputError, match="initial state"):
        fluid(m, 1, initial=[1, 2], method="generic")
    with pytest.raises(SymdelayInputError, match="initial state needs 4"):
        fluid(m, 1, initial=[1, 2])  # the founding model: the same path


@pytest.mark.parametrize("L", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("D", ["1/2", "3"])
def test_generic_critical_theta_equals_the_hopf_parametrisation(L, D):
    from symdelay.analysis.critical import critical

    m = build_model("erlang", L=L, mu=1, lam=2, D=D)
    generic = critical(m, "theta", dps=25, method="generic")
    fast = symdelay.founding.critical_theta(L, 1, 2, [D], dps=25).to_json()["points"][0]
    assert generic.mode == "difference"
    with mpmath.workdps(30):
        tol = mpmath.mpf(10) ** -20
        assert abs(generic.critical - mpmath.mpf(fast["theta_c"])) < tol * generic.critical
        assert abs(generic.omega - mpmath.mpf(fast["omega"])) < tol * generic.omega


def test_counting_jobs_in_flight_removes_the_crossing_and_n_does_not_matter():
    from symdelay.analysis.critical import critical

    assert critical(build_model("inflight", L=3, mu=1, lam=1, D=1, kappa=1)).critical == mpmath.inf
    two = critical(build_model("erlang", L=3, mu=1, lam=1, D=1), method="generic").critical
    four = critical(build_model("nserver", N=4, L=3, mu=1, lam=1, D=1)).critical
    assert abs(two - four) < 1e-12 * two


def test_critical_bad_input():
    from symdelay.analysis.critical import critical

    with pytest.raises(SymdelayInputError, match="not a parameter"):
        critical(build_model("erlang", L=2, mu=1, lam=1, D=1), "kappa")
    for method in ("auto", "generic"):
        with pytest.raises(SymdelayInputError, match="needs numbers for"):
            critical(build_model("erlang", L=2, mu=1, D=1), "theta", method=method)
    with pytest.raises(SymdelayInputError, match="does not apply"):
        critical(build_model("erlang", L=2, mu=1, lam=1, D=1), "kappa", method="specialised")
    with pytest.raises(SymdelayInputError, match="cannot vary D"):
        critical(build_model("nserver", N=3, L=2, mu=1, lam=1, D=1).with_values(), at=[1])


def test_shapes_with_scv_at_least_one_never_cross_checked_by_routh():
    from symdelay.analysis.routh import routh_hurwitz
    from symdelay.core.symbols import r, theta
    from symdelay.models.phase_type import critical_by_shape, model, scaled, shape_families

    pts = critical_by_shape([2], k_max=3)
    assert all(p.theta_c == mpmath.inf for p in pts if p.scv >= 1)
    assert all(p.theta_c < mpmath.inf for p in pts if p.scv < 1)
    # independent path: exact Routh verdicts at theta over eight decades
    for d in shape_families(3)["hyperexp"]:
        m = model(scaled(d, 2), mu=1, lam=1)
        for f in m.factors:
            for k in range(-2, 7):
                assert routh_hurwitz(f.factor.subs(theta, sp.Integer(10) ** k), r).is_stable


def test_critical_when_the_equilibrium_moves_with_theta():
    from symdelay.analysis.critical import critical

    # unequal-server model with equal servers: no symmetry declared, numeric equilibrium at
    # every theta; must find the founding model's exact theta_c = 5.12 (L = 3, D = 1)
    m = build_model("hetero", mu1=1, mu2=1, lam=1, D1=1, D2=1, L=3)
    c = critical(m)
    assert c.method == "generic" and "proved by Krawczyk" in c.note
    assert abs(c.critical - mpmath.mpf("5.12")) < 1e-14 * 5.12
    exact = critical(build_model("erlang", L=3, mu=1, lam=1, D=1), method="generic")
    assert abs(c.omega - exact.omega) < 1e-14 * exact.omega
    # unequal servers: the crossing is one of the full Jacobian at the proved equilibrium
    m2 = build_model("hetero", mu1=1, mu2=2, lam=1, D=1, L=2)
    c2 = critical(m2)
    at = m2.with_values(theta=sp.Rational(mpmath.nstr(c2.critical, 25)))
    J = np.array(at.drift_jacobian.subs(at.equilibrium.point).evalf(30).tolist(), dtype=complex)
    ev = np.linalg.eigvals(J)
    k = np.argmin(np.abs(ev - 1j * float(c2.omega)))
    assert abs(ev[k].real) < 1e-10 and abs(ev[k].imag - float(c2.omega)) < 1e-10
    # below it stable, above it unstable (eigenvalues at the proved equilibrium)
    for f, want in ((0.999, 0), (1.001, 2)):
        at = m2.with_values(theta=sp.Rational(mpmath.nstr(c2.critical * f, 20)))
        J = np.array(at.drift_jacobian.subs(at.equilibrium.point).evalf(30).tolist(), dtype=float)
        assert int(np.sum(np.linalg.eigvals(J).real > 0)) == want


def test_founding_functions_take_model_and_agree_with_their_own_path():
    from symdelay.analysis.critical import critical

    m = build_model("erlang", L=2, mu=1, lam=1, D=1)
    via_model = critical(m, dps=20, method="generic")
    own = symdelay.founding.critical_theta(2, 1, 1, [1], dps=20).to_json()["points"][0]
    with mpmath.workdps(25):
        assert abs(via_model.critical - mpmath.mpf(own["theta_c"])) < mpmath.mpf(10) ** -18
    mt = m.with_values(theta=2)
    generic = variance(mt, method="generic")
    assert (
        generic.value
        == sp.nsimplify(
            founding.variance(L=2, mu=1, lam=1, theta=2, D=1).to_json()["var_x_over_eta"][:25]
        )
        or abs(float(generic) - float(founding.variance(L=2, theta=2))) < 1e-14
    )
    assert symdelay.founding.stability_conditions(2) is symdelay.founding.stability_conditions("2")
    assert symdelay.roots(mt, dps=15).unstable_count == 0
    with pytest.raises(TypeError):  # the model goes to the entry, critical(model)
        symdelay.founding.critical_theta(2, model=m)
