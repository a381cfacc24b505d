"""Fluid integration, the transition table, the LNA variance, the wave through the phases."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy as sp
from scipy.linalg import expm, solve_continuous_lyapunov

from symdelay.analysis.waves import fluid_wave_peaks
from symdelay.core import symbols as S
from symdelay.core.errors import SymdelayInputError
from symdelay.models import ActionDelayModel
from symdelay.models.erlang.stochastic import (
    closed_form_variance,
    fluid,
    fluid_difference,
    fluid_limit_study,
    hopf_theta,
    lna_matrices,
    minimising_theta,
    simulated_variance,
    spectral_abscissa,
    variance,
)


@pytest.mark.parametrize("L", [1, 2])
def test_fluid_default_solver_agrees_with_radau(L):
    a = fluid(L=L, mu=1, lam=5, theta=4, D=1, T=10, dt=0.1)
    b = fluid(L=L, mu=1, lam=5, theta=4, D=1, T=10, dt=0.1, method="Radau", rtol=1e-10,
              atol=1e-12)  # fmt: skip
    assert np.max(np.abs(a.values - b.values)) < 1e-6


def test_fluid_small_perturbation_follows_linearisation():
    """Near the equilibrium the exact tanh dynamics follow exp(A t) up to O(eps^3)."""
    L, eps = 2, 1e-4
    d = fluid_difference(L=L, mu=1, lam=1, theta=2, D=1, T=10, dt=0.5, initial=(eps,))
    A = np.array(ActionDelayModel(L=L, mu=1, lam=1, theta=2, D=1).difference_jacobian(), float)
    lin = np.array([expm(A * t) @ np.r_[eps, 0, 0] for t in d.t])
    assert np.max(np.abs(lin[:, 0] - d["x"])) < 1e-9
    assert np.max(np.abs(lin[:, 1:].T - d["w"])) < 1e-9


def test_fluid_full_and_difference_mode_agree():
    L = 2
    f = fluid(L=L, mu=1, lam=1, theta=10, D=4, T=30, dt=0.5, initial=[1.25, 0.75] + [0.5] * 4)
    d = fluid_difference(L=L, mu=1, lam=1, theta=10, D=4, T=30, dt=0.5, initial=(0.5, 0, 0))
    x, w = f["q1"] - f["q2"], f["z1"] - f["z2"]
    assert np.max(np.abs(x - d["x"])) < 1e-8 and np.max(np.abs(w - d["w"])) < 1e-8


@pytest.mark.parametrize("L", [1, 2, 3])
def test_transition_table_drift_is_fluid_rhs(L):
    """The founding model's table (the source) has the model layer's fluid right-hand side
    as its drift."""
    from symdelay.models import build_model

    table = build_model("erlang", L=L)
    m = ActionDelayModel(L=L)
    assert tuple(table.states) == tuple(m.state)
    for d, f in zip(table.drift, m.fluid_rhs(), strict=True):
        assert sp.simplify(d - f) == 0


@pytest.mark.parametrize(
    "params", [{"mu": 1, "lam": 5, "theta": 4, "D": 1}, {"mu": 0.2, "lam": 2, "theta": 5, "D": 2.5}]
)
def test_peak_order_wave_through_delay_phases(params):
    f = fluid(L=2, **params, T=20, dt=0.005)
    for t0 in (5.0, 8.0, 12.0):
        z11, z12, q1 = fluid_wave_peaks(f, t_from=t0)
        assert z11 < z12 < q1
        assert q1 - z12 > z12 - z11  # the step into service is the slowest
        nxt = fluid_wave_peaks(f, t_from=z11)[0]  # q1 peaks before the next swing
        assert nxt is None or q1 < nxt


def test_section_figure_parameters_show_the_stated_behaviour():
    from symdelay.outputs.sections.stochastic import FIGURE_PARAMETERS as P
    from symdelay.outputs.sections.stochastic import PHASE_PARAMETERS as Q

    assert spectral_abscissa(1, **P) < 0 < spectral_abscissa(2, **P)
    assert spectral_abscissa(1, **Q) < 0 < spectral_abscissa(2, **Q)
    f2 = fluid(L=2, **P, T=40, dt=0.01)
    x = f2["q1"] - f2["q2"]
    late = np.abs(x[2000:]).max()  # t in [20, 40]: the saturated limit cycle
    mid = np.abs(x[(x.size // 8) : (x.size // 4)]).max()  # t in [5, 10]
    assert late > mid > 0.5  # grows, then saturates (bounded: |x| <= 2 lam/mu)
    assert late < 2 * P["lam"] / P["mu"]
    f1 = fluid(L=1, **P, T=40, dt=0.01)
    x1 = f1["q1"] - f1["q2"]
    assert np.abs(x1[2000:]).max() < 0.01 * np.abs(x1[:2000]).max()  # damped ...
    assert np.count_nonzero(np.diff(np.sign(x1[:2000])) != 0) >= 4  # ... oscillation


def test_hopf_threshold_from_eigenvalues_matches_formula():
    for mu, lam, D in ((1, 1, 1), (2, 0.5, 3), (0.3, 2, 0.7)):
        g = 2 / D
        expected = 2 * (mu + g) ** 2 / g / lam
        assert hopf_theta(2, mu, lam, D) == pytest.approx(expected, rel=1e-9)
        assert spectral_abscissa(2, mu, lam, 0.99 * expected, D) < 0
        assert spectral_abscissa(2, mu, lam, 1.01 * expected, D) > 0
    assert hopf_theta(1, 1, 1, 1) == float("inf")


def test_lna_diffusion_matrix_l1():
    A, B = lna_matrices(1)
    assert sp.Matrix([[-S.mu, S.gamma], [-S.lam * S.theta, -S.gamma]]) == A
    assert sp.Matrix([[4 * S.lam, -2 * S.lam], [-2 * S.lam, 4 * S.lam]]) == B


@pytest.mark.parametrize(
    "L,mu,lam,theta,D", [(1, 1, 1, 2, 1), (1, 2, 3, 0.5, 0.25), (2, 1, 1, 2, 1), (2, 1.5, 2, 1, 3)]
)
def test_closed_form_equals_exact_and_scipy(L, mu, lam, theta, D):
    v = variance(L=L, mu=mu, lam=lam, theta=theta, D=D)
    vals = {S.mu: sp.nsimplify(mu), S.lam: sp.nsimplify(lam), S.theta: sp.nsimplify(theta),
            S.D: sp.nsimplify(D)}  # fmt: skip
    assert v.exact and sp.simplify(v.closed_form.subs(vals) - v.var_x_over_eta) == 0
    X = solve_continuous_lyapunov(np.array(v.A, float), -np.array(v.B, float))
    assert float(v.var_x_over_eta) == pytest.approx(X[0, 0], rel=1e-10)
    assert sp.Matrix(v.sigma).is_symmetric()


def test_random_routing_variance_is_poisson():
    # theta = 0: the two queues are independent Poisson(eta lam/mu) in equilibrium
    for L in (1, 2, 3):
        assert variance(L=L, mu=2, lam=3, theta=0, D=1).var_x_over_eta == 3


def test_variance_above_hopf_threshold_is_refused():
    # exactly at the threshold: the one verdict says marginal (two roots on the axis)
    with pytest.raises(SymdelayInputError, match=r"no stationary variance.*marginal"):
        variance(L=2, mu=1, lam=1, theta=9, D=1)
    with pytest.raises(SymdelayInputError, match=r"no stationary variance.*unstable"):
        variance(L=3, mu=1, lam=1, theta=6, D=1)
    assert float(variance(L=2, mu=1, lam=1, theta=8.9, D=1)) > 10


def test_variance_u_shape_for_l2_and_monotone_for_l1():
    v1 = [float(variance(L=1, theta=t, closed_form=False)) for t in (0, 1, 5, 20)]
    assert all(a > b for a, b in itertools.pairwise(v1))
    tstar, vstar = minimising_theta(2, 1, 1, 1)
    assert 0 < tstar < 9 and vstar < 2
    assert float(variance(L=2, theta=tstar * 0.5)) > vstar < float(variance(L=2, theta=8))


@pytest.mark.parametrize("L,theta", [(1, 2), (2, 3)])
def test_lna_variance_matches_long_simulation(L, theta):
    lna = float(variance(L=L, mu=1, lam=1, theta=theta, D=1, closed_form=False))
    sv = simulated_variance(L=L, eta=300, theta=theta, T=3000, burn_in=30, dt=0.25,
                            batches=20, seed=5, level=0.99)  # fmt: skip
    assert sv.interval[0] <= lna <= sv.interval[1]
    assert sv.halfwidth < 0.15 * lna  # the check has power


def test_closed_form_l1_expression():
    cf = closed_form_variance(1)
    D, lam, mu, theta = S.D, S.lam, S.mu, S.theta
    # independent check: the 2x2 Lyapunov equation solved by hand (gamma = 1/D)
    g = 1 / D
    s00, s01, s11 = sp.symbols("s00 s01 s11")
    eqs = [2 * (-mu * s00 + g * s01) + 4 * lam,
           -mu * s01 + g * s11 - lam * theta * s00 - g * s01 - 2 * lam,
           2 * (-lam * theta * s01 - g * s11) + 4 * lam]  # fmt: skip
    sol = sp.solve(eqs, [s00, s01, s11], dict=True)[0]
    assert sp.simplify(sol[s00] - cf) == 0


def test_fluid_limit_reduced():
    st = fluid_limit_study(Ls=(1,), etas=(100, 400, 1600), replications=8, mu=1, lam=1,
                           theta=2, D=1, T=10, dt=0.05, n_boot=300)  # fmt: skip
    means = [r[2] for r in st.rows()]
    slope, (lo, hi) = st.slopes[1]
    assert means[0] > means[1] > means[2]
    assert lo <= -0.5 <= hi or (-0.7 < slope < -0.3)


def test_closed_form_singularity_is_the_hopf_threshold():
    from symdelay.models.erlang.stochastic import closed_form_singularity, closed_form_theta_limit

    sing = closed_form_singularity(2)
    g = 2 / S.D
    assert sp.simplify(sing - 2 * (S.mu + g) ** 2 / g / S.lam) == 0
    assert closed_form_singularity(1) is None
    lim = closed_form_theta_limit(1)
    assert sp.simplify(lim - 2 * S.lam * S.D / (S.D * S.mu + 1)) == 0


@pytest.mark.parametrize("theta", [1e6, 1e20, 1e90])
def test_fluid_huge_theta_agrees_with_the_tanh_difference_mode(theta):
    """The full system (the logit probabilities evaluated with the largest exponent
    subtracted) and the difference mode (tanh) are two evaluations of the routing; at
    theta -> oo both are join-the-shortest-queue."""
    import warnings

    kw = dict(L=2, mu=1, lam=1, theta=theta, D=1, T=20, dt=0.5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no overflow warnings from the right-hand side
        f = fluid(**kw)
        d = fluid_difference(**kw, initial=(-1.0,))  # x(0) = q1 - q2 = -1, w = 0
    assert np.all(np.isfinite(f.values))
    # the right-hand side is a step in x up to a layer of width 1/theta: the error control
    # meets it at each crossing, so the two integrations agree to 1e-4, not to rtol
    x, w = f["q1"] - f["q2"], f["z1"] - f["z2"]
    assert np.max(np.abs(x - d["x"])) < 1e-4 and np.max(np.abs(w - d["w"])) < 1e-4
    assert np.max(np.abs(d["x"])) > 0.2  # the delayed JSQ oscillation does not die out
    # the sum mode does not see theta: q1 + q2 = 2 lam/mu + O(e^{-t}) relaxes alike
    g = fluid(**{**kw, "theta": 2})
    assert np.max(np.abs((f["q1"] + f["q2"]) - (g["q1"] + g["q2"]))) < 1e-8


def test_fluid_stiff_rates_switch_solver_and_match_the_no_delay_limit():
    """D -> 0: the delay is instantaneous and the sum mode solves s' = 2 lam - mu s,
    s(0) = 1, so s(t) = 2 - exp(-t) for lam = mu = 1 (closed form)."""
    f = fluid(L=1, mu=1, lam=1, theta=2, D=1e-9, T=20, dt=0.5)
    assert f.info["solver"]["method"] == "LSODA"
    s = f["q1"] + f["q2"] + f["z1_1"] + f["z2_1"]
    assert np.max(np.abs(s - (2 - np.exp(-f.t)))) < 1e-6
    assert fluid(L=1, T=2, dt=0.5).info["solver"]["method"] == "DOP853"


@pytest.mark.parametrize(
    "kw,words",
    [
        ({"theta": "1e400"}, "theta"),
        ({"theta": "1e308"}, "theta"),
        ({"lam": "1e-320"}, "lam"),
        ({"mu": "1e301"}, "mu"),
    ],
)
def test_fluid_outside_double_range_is_one_line(kw, words):
    with pytest.raises(SymdelayInputError, match=words) as info:
        fluid(**{"L": 1, "T": 1, **kw})
    assert "\n" not in str(info.value) and len(str(info.value)) < 200


def test_fluid_records_its_parameters():
    f = fluid(L=1, mu="1/2", lam=1, theta=2, D=1, T=1, dt=0.5, initial=[0.5, 0.5, 0, 0])
    p = f.to_json()["parameters"]
    assert p["mu"] == "1/2" and p["D"] == "1" and p["L"] == 1 and p["T"] == 1 and p["dt"] == 0.5
    assert p["initial"] == [0.5, 0.5, 0, 0] and f.to_json()["info"]["solver"]["method"] == "DOP853"
    header, rows, _ = f.csv_table()
    assert header == ["t", "q1", "q2", "z1_1", "z2_1"] and rows.shape == (3, 5)


@pytest.mark.parametrize("dps", [20, 60])
def test_variance_beyond_exact_range_honours_dps(monkeypatch, dps):
    """Above EXACT_MAX_L the double-precision solve is refined to dps digits: equal to the
    exact rational solve (forced here by raising the limit) in every printed digit."""
    import importlib

    V = importlib.import_module("symdelay.models.erlang.stochastic.variance")
    refined = V.variance(L=3, theta=3, closed_form=False, dps=dps)  # exact path (L <= 12)
    monkeypatch.setattr(V, "EXACT_MAX_L", 2)
    approx = V.variance(L=3, theta=3, closed_form=False, dps=dps)
    assert refined.exact and not approx.exact
    assert approx.decimal() == refined.decimal()
    assert len(approx.decimal().replace(".", "").lstrip("0")) == dps


@pytest.mark.parametrize("mode", ["full", "difference"])
def test_compiled_jacobian_is_the_symbolic_jacobian(mode):
    """The compiled right-hand side (softmax ratios as symbols, evaluated with the largest
    exponent subtracted) and its sparse Jacobian (the chain rule through them) equal the model
    layer's own right-hand side and SymPy's dense Jacobian of it, at a generic state."""
    from symdelay.analysis.fluid import compile_rhs

    L, mu, lam, theta, D = 2, sp.Integer(1), sp.Rational(3, 2), sp.Integer(3), sp.Integer(2)
    if mode == "full":
        m = ActionDelayModel(L=L, mu=mu, lam=lam, theta=theta, D=D)
        state, rhs = m.state, m.fluid_rhs()
    else:
        ds = ActionDelayModel(L=L).difference_system()
        vals = {S.mu: mu, S.lam: lam, S.theta: theta, S.gamma: sp.Integer(L) / D}
        state, rhs = ds.state, [e.subs(vals) for e in ds.rhs]
    c = compile_rhs(state, rhs)
    y = np.linspace(0.3, 1.1, len(state))
    point = dict(zip(state, (sp.Float(v) for v in y)))
    dense = np.array(sp.Matrix(rhs).jacobian(sp.Matrix(state)).subs(point), dtype=float)
    assert np.allclose(c.jac(0.0, y), dense, rtol=1e-12, atol=1e-14)
    assert np.allclose(c.f(0.0, y), np.array([e.subs(point) for e in rhs], dtype=float))
