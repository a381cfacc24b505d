"""Critical theta_c(D): eigenvalues, Lambert W, closed forms, limits, precision."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp
from _hopf_helpers import float_curve, lambert_rightmost, rightmost_eigenvalue
from hypothesis import given, settings
from hypothesis import strategies as st

from symdelay.core.errors import SymdelayInputError
from symdelay.core.symbols import gamma, lam, mu, r, theta
from symdelay.founding import ActionDelayModel
from symdelay.models.erlang.charpoly import characteristic_polynomial
from symdelay.models.erlang.hopf import (
    critical_closed_form,
    critical_theta,
    delay_limits,
    hopf_conditions,
)

REL = 1e-5


@pytest.mark.parametrize("L", [2, 3, 5, 10])
@pytest.mark.parametrize("Dv", [0.3, 2.0, 9.0])
def test_eigenvalue_crosses_at_theta_c(L, Dv):
    m, lm = 1.3, 0.7
    pt = critical_theta(L, "1.3", "0.7", [Dv]).points[0]
    tc, w = float(pt.theta_c), float(pt.omega)
    below = rightmost_eigenvalue(L, m, lm, tc * (1 - REL), Dv)
    above = rightmost_eigenvalue(L, m, lm, tc * (1 + REL), Dv)
    at = rightmost_eigenvalue(L, m, lm, tc, Dv)
    assert below.real < 0 < above.real
    assert abs(at.real) < 1e-9 * (1 + w)
    assert at.imag == pytest.approx(w, rel=1e-8)


def test_eigenvalues_of_model_jacobian():
    """Second Jacobian source: the model's own difference Jacobian, lambdified."""
    J = ActionDelayModel(L=3).difference_jacobian()
    f = sp.lambdify((mu, lam, theta, gamma), J, "numpy")
    for Dv in (0.5, 3.0, 12.0):
        pt = critical_theta(3, 2, 1, [Dv]).points[0]
        tc, w = float(pt.theta_c), float(pt.omega)
        spec = [
            np.linalg.eigvals(np.array(f(2.0, 1.0, tc * s, 3 / Dv), float))
            for s in (1 - REL, 1, 1 + REL)
        ]
        tops = [ev[np.argmax(ev.real)] for ev in spec]
        assert tops[0].real < 0 < tops[2].real
        assert abs(tops[1].imag) == pytest.approx(w, rel=1e-8)


@pytest.mark.parametrize("Dv", [0.2, 1.0, 5.0, 40.0])
def test_dde_against_lambert_w(Dv):
    pt = critical_theta("inf", 1, 2, [Dv], dps=30).points[0]
    tc, w = pt.theta_c, pt.omega
    below = lambert_rightmost(1, 2, tc * (1 - mpmath.mpf(REL)), str(Dv))
    above = lambert_rightmost(1, 2, tc * (1 + mpmath.mpf(REL)), str(Dv))
    at = lambert_rightmost(1, 2, tc, str(Dv))
    assert below.real < 0 < above.real
    assert abs(at.real) < 1e-20
    assert abs(at.imag - w) < 1e-20 * w


def test_dde_conditions_from_sympy():
    h = hopf_conditions("inf")
    om = sp.Symbol("omega", positive=True)
    m = sp.Symbol("mu", positive=True)
    d = sp.Symbol("D", positive=True)
    assert sp.simplify(h.lam_theta - sp.sqrt(m**2 + om**2)) == 0
    assert sp.simplify(h.phase - (om * d + sp.atan(om / m))) == 0


def test_L1_is_stable_for_every_theta():
    assert not hopf_conditions(1).crosses
    assert hopf_conditions(1).phase_sup == sp.pi
    pts = critical_theta(1, 1, 1, [0.1, 1, 10]).points
    assert all(mpmath.isinf(p.theta_c) and p.omega is None for p in pts)
    # eigenvalues stay in the left half-plane even for huge theta
    for Dv in (0.1, 1, 10):
        assert rightmost_eigenvalue(1, 1, 1, 1e6, Dv).real < 0


@pytest.mark.parametrize("L", [2, 3])
def test_closed_form_matches_numeric(L):
    """lam theta_c(gamma) by eliminating omega from Re/Im parts (SymPy) vs the phase solver."""
    k_expr, w2_expr = critical_closed_form(L)
    for Dv in ("0.25", "1", "7/2", "30"):
        g = sp.Rational(L) / sp.Rational(Dv)
        pt = critical_theta(L, 2, 3, [sp.Rational(Dv)], dps=40).points[0]
        k_exact = k_expr.subs({gamma: g, mu: 2})
        w_exact = sp.sqrt(w2_expr.subs({gamma: g, mu: 2}))
        with mpmath.workdps(50):
            assert abs(pt.theta_c * 3 - mpmath.mpf(str(sp.N(k_exact, 50)))) < 1e-35 * pt.theta_c
            assert abs(pt.omega - mpmath.mpf(str(sp.N(w_exact, 50)))) < 1e-35 * pt.omega


def test_dps_honoured_and_residual():
    Ds = ["0.37", "1.7", "12"]
    for L in (2, 3, 7, "inf"):
        lo = critical_theta(L, 1, "0.8", Ds, dps=15).points
        hi = critical_theta(L, 1, "0.8", Ds, dps=50).points
        if L == "inf":
            f = None
        else:
            f = sp.lambdify((r, mu, lam, theta, gamma), characteristic_polynomial(L), "mpmath")
        for p15, p50, d in zip(lo, hi, Ds):
            assert abs(p15.theta_c - p50.theta_c) < 1e-14 * p50.theta_c
            with mpmath.workdps(70):
                iw = mpmath.mpc(0, p50.omega)
                D = mpmath.mpf(sp.Rational(d).p) / sp.Rational(d).q
                k = mpmath.mpf("0.8") * p50.theta_c
                if f is None:
                    res = abs(iw + 1 + k * mpmath.exp(-iw * D)) / k
                else:
                    g = L / D
                    res = abs(f(iw, 1, mpmath.mpf("0.8"), p50.theta_c, g)) / (k * g**L)
                assert res < 1e-45


def test_large_L_approaches_dde():
    Ds = np.array([0.5, 2.0, 8.0])
    dde, _ = float_curve("inf", 1, 1, Ds)
    errs = []
    for L in (10, 100, 1000):
        th, _ = float_curve(L, 1, 1, Ds)
        errs.append(np.max(np.abs(th / dde - 1)))
    assert errs[0] > errs[1] > errs[2]
    assert errs[2] < 5e-3


@pytest.mark.parametrize("L", [2, 3, 6, "inf"])
def test_limits_in_D(L):
    """SymPy's limits of the parametrised curve vs the numerical curve at extreme D."""
    lim = delay_limits(L)
    small = float(lim.small_D_coefficient)
    Ds = np.array([1e-6, 1e6])
    th, _ = float_curve(L, 1, 1, Ds)
    assert th[0] * Ds[0] == pytest.approx(small, rel=1e-4)
    if lim.large_D_growth is not None:
        assert th[1] / Ds[1] == pytest.approx(float(lim.large_D_growth.subs(mu, 1)), rel=1e-4)
    else:
        assert th[1] == pytest.approx(float(lim.large_D_limit.subs(mu, 1)), rel=1e-4)
    if L == 2:
        assert lim.large_D_limit is sp.oo
    elif L != "inf":
        assert lim.large_D_limit.subs(mu, 1).is_finite


def test_fast_and_precise_paths_agree():
    Ds = np.logspace(-2, 2, 60)
    th, w = float_curve(4, 1, 1, Ds)
    pts = critical_theta(4, 1, 1, [float(d) for d in Ds[::7]], dps=30).points
    for p, t, o in zip(pts, th[::7], w[::7]):
        assert float(p.theta_c) == pytest.approx(t, rel=1e-13)
        assert float(p.omega) == pytest.approx(o, rel=1e-13)


@settings(max_examples=25, deadline=None)
@given(
    L=st.integers(min_value=2, max_value=8),
    log_mu=st.floats(min_value=-1.5, max_value=1.5),
    log_lam=st.floats(min_value=-1.5, max_value=1.5),
    log_D=st.floats(min_value=-1.5, max_value=1.5),
)
def test_random_parameters_eigenvalue_crossing(L, log_mu, log_lam, log_D):
    m, lm, Dv = 10.0**log_mu, 10.0**log_lam, 10.0**log_D
    pt = critical_theta(L, m, lm, [Dv]).points[0]
    tc, w = float(pt.theta_c), float(pt.omega)
    assert rightmost_eigenvalue(L, m, lm, tc * (1 - 1e-4), Dv).real < 0
    assert rightmost_eigenvalue(L, m, lm, tc * (1 + 1e-4), Dv).real > 0
    assert rightmost_eigenvalue(L, m, lm, tc, Dv).imag == pytest.approx(w, rel=1e-6)


@pytest.mark.parametrize(
    "call,needle",
    [
        (lambda: critical_theta(3, 1, 1, float("nan")), "D must be"),
        (lambda: critical_theta(3, 1, 1, []), "at least one"),
        (lambda: critical_theta(0, 1, 1, 1), "L must be"),
        (lambda: critical_theta(3.5, 1, 1, 1), "L must be"),
        (lambda: critical_theta(3, -1, 1, 1), "mu must be positive"),
        (lambda: critical_theta(3, 1, 1, 1, dps=4), "dps must be"),
        (lambda: critical_theta(3, 1, 1, 1, dps=10001), "dps must be"),
        (lambda: float_curve(3, 1, 1, np.array([1.0, np.nan])), "D must be"),
    ],
)
def test_api_bad_input(call, needle):
    with pytest.raises(SymdelayInputError, match=needle) as exc:
        call()
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("L", [3, 10, "inf"])
def test_against_certified_roots(L):
    """Third path (symdelay.models.erlang.roots, interval-certified): the sign flips within 1e-15 of theta_c."""
    from symdelay.models.erlang.roots import characteristic_roots

    pt = critical_theta(L, 1, "1/2", ["5/2"], dps=40).points[0]
    with mpmath.workdps(45):
        tc = sp.Rational(mpmath.nstr(pt.theta_c, 40))
        eps = sp.Rational(1, 10**15)
        for th, sign in ((tc * (1 - eps), -1), (tc * (1 + eps), 1)):
            rs = characteristic_roots(L, 1, sp.Rational(1, 2), th, sp.Rational(5, 2), dps=40)
            assert sign * rs.spectral_abscissa > 0
            assert rs.unstable_count == (0 if sign < 0 else 2)
            top = max(rs.values, key=lambda z: (mpmath.re(z), abs(mpmath.im(z))))
            assert abs(abs(mpmath.im(top)) - pt.omega) < 1e-12 * pt.omega


@pytest.mark.parametrize("L", [2, 3, 7, "inf"])
def test_every_printed_digit_is_right(L):
    """At the default 15 digits the printed theta_c, omega equal the 45-digit values rounded
    once to 15 digits (guard digits, no float64 in between), over 1e-12 <= D <= 1e12."""
    rng = np.random.default_rng(3)
    Ds = [f"{10**x:.6e}" for x in rng.uniform(-12, 12, 25)]
    lo = critical_theta(L, "1.3", "0.7", Ds).to_json()["points"]
    hi = critical_theta(L, "1.3", "0.7", Ds, dps=45).points
    for a, b in zip(lo, hi):
        with mpmath.workdps(60):
            assert a["theta_c"] == mpmath.nstr(b.theta_c, 15, strip_zeros=False)
            assert a["omega"] == mpmath.nstr(b.omega, 15, strip_zeros=False)


def test_float_path_is_the_same_solver_at_extreme_scales():
    """The float64 run (critical(..., float64=True)): float64 run of the same solver, mpmath where floats overflow."""
    Ds = np.array([1e-300, 1e-6, 1.0, 1e6, 1e300])
    for L in (2, 5, "inf"):
        th, w = float_curve(L, 1, 1, Ds)
        ref = critical_theta(L, 1, 1, [float(d) for d in Ds], dps=30).points
        for t, o, p in zip(th, w, ref):
            assert t == pytest.approx(float(p.theta_c), rel=1e-13)
            assert o == pytest.approx(float(p.omega), rel=1e-13)
