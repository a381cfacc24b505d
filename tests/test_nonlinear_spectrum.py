"""LNA spectrum: closed form (L = 1, 2) vs the matrix formula, its integral vs the exact
Lyapunov variance, the model layer vs the founding path, the sharpening peak, and the Welch
periodogram of simulated paths; the simulated oscillation above theta_c vs the fluid cycle."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from scipy.integrate import quad

from symdelay.analysis.spectrum import lna_spectrum_matrix
from symdelay.analysis.spectrum import spectrum as spectrum_entry
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model
from symdelay.models.erlang.nonlinear import periodogram, spectrum, spectrum_closed_form
from symdelay.models.erlang.nonlinear.oscillation import simulated_oscillation
from symdelay.models.erlang.stochastic import simulate, variance


@pytest.mark.parametrize("L,theta,D", [(1, 3, 1), (1, "1/2", 4), (2, 5, 1), (2, 2, "5/2")])
def test_closed_form_matches_matrix_formula(L, theta, D):
    s = spectrum(L, 1, "3/2", theta, D, points=301)
    cf = spectrum_closed_form(L)
    w = next(x for x in cf.free_symbols if x.name == "omega")
    vals = {
        x: {
            "mu": 1,
            "lam": sp.Rational(3, 2),
            "theta": sp.Rational(theta),
            "gamma": sp.Rational(L) / sp.Rational(D),
        }[x.name]
        for x in cf.free_symbols
        if x.name != "omega"
    }
    f = sp.lambdify(w, cf.subs(vals))
    assert np.allclose(f(s.omega), s.S, rtol=1e-12)


@pytest.mark.parametrize("L,theta", [(1, 2), (2, 5), (3, 3)])
def test_integral_is_the_exact_lyapunov_variance(L, theta):
    s = spectrum(L, 1, 1, theta, 1, points=11)
    exact = float(variance(L=L, mu=1, lam=1, theta=theta, D=1).var_x_over_eta)
    from symdelay.models.erlang.stochastic.variance import lna_matrices

    As, Bs = lna_matrices(L)
    sub = {
        sp.Symbol("mu"): 1,
        sp.Symbol("lam"): 1,
        sp.Symbol("theta"): theta,
        sp.Symbol("gamma"): L,
    }
    An = np.array(As.subs(sub), dtype=float)
    Bn = np.array(Bs.subs(sub), dtype=float)
    c = [1] + [0] * L
    val = quad(
        lambda v: lna_spectrum_matrix(An, Bn, c, [v])[0],
        0,
        np.inf,
        limit=400,
        epsabs=0,
        epsrel=1e-11,
    )[0]
    assert val / np.pi == pytest.approx(exact, rel=1e-8)
    assert s.variance == pytest.approx(exact, rel=1e-9)


@pytest.mark.parametrize("L,theta", [(1, 3), (2, 6), (3, 4)])
def test_specialised_spectrum_equals_generic(L, theta):
    """One record whatever the path: the founding fast path (imbalance matrices derived once
    per L) against the generic path on the model's own table (and its generic variance)."""
    m = build_model("erlang", L=L, mu=1, lam=1, D=1, theta=theta)
    a = spectrum_entry(m, points=201, method="generic")
    b = spectrum_entry(m, omegas=a.omega, method="specialised")
    assert np.allclose(a.S, b.S, rtol=1e-10)
    assert a.peak_frequency == pytest.approx(b.peak_frequency, rel=1e-8)
    ra, rb = a.to_json(), b.to_json()
    assert set(ra) == set(rb)
    assert ra["variance_x_over_eta"] == rb["variance_x_over_eta"]  # both exact
    same = {"L", "parameters", "closed_form", "closed_form_latex", "imbalance", "normalisation"}
    assert all(ra[k] == rb[k] for k in same)
    assert (ra["closed_form"] is None) == (L > 2)


def test_spectrum_of_another_model_equals_the_founding_one():
    """nserver with N = 2 is the founding model written as a table of its own."""
    m = build_model("nserver", N=2, L=2, mu=1, lam=1, D=1, theta=6)
    a = spectrum_entry(m, points=201)
    b = spectrum(2, 1, 1, 6, 1, omegas=a.omega)
    assert np.allclose(a.S, b.S, rtol=1e-10)
    assert float(a.variance) == float(b.variance) and a.closed_form is None


def test_peak_sharpens_towards_theta_c():
    """Q grows like 1/(theta_c - theta); the peak frequency tends to omega_c = 2 sqrt 2."""
    qs = [spectrum(2, 1, 1, 9 - e, 1, points=11) for e in (0.1, 0.01, 0.001)]
    assert qs[0].quality_factor < qs[1].quality_factor < qs[2].quality_factor
    assert qs[1].quality_factor / qs[0].quality_factor == pytest.approx(10, rel=0.1)
    assert qs[2].peak_frequency == pytest.approx(2 * np.sqrt(2), rel=1e-3)


def test_periodogram_of_simulated_paths_matches_the_lna():
    eta, theta = 2000, 6
    q = 1.0
    init = np.rint(eta * np.array([q, q, 0.5, 0.5, 0.5, 0.5])).astype(np.int64)
    sim = simulate(
        L=2,
        eta=eta,
        mu=1,
        lam=1,
        theta=theta,
        D=1,
        T=1200,
        dt=0.05,
        seed=3,
        replications=4,
        initial=init,
    )
    w, S_hat, se = periodogram(sim, eta, burn_in=20, segment=60)
    s = spectrum(2, 1, 1, theta, 1, omegas=w)
    band = (w > 0.3) & (w < 6)
    z = (S_hat[band] - s.S[band]) / se[band]
    assert np.mean(np.abs(z) < 3) > 0.9  # pointwise within 3 standard errors
    assert np.mean(S_hat[band] / s.S[band]) == pytest.approx(1, abs=0.05)
    k = np.argmax(S_hat)
    assert abs(w[k] - s.peak_frequency) <= 2 * (w[1] - w[0])


def test_spectrum_refuses_unstable_theta():
    with pytest.raises(SymdelayInputError, match="theta = 10, D = 1: the equilibrium is unstable"):
        spectrum(2, 1, 1, 10, 1)


@pytest.mark.slow
def test_simulated_oscillation_tends_to_the_fluid_cycle():
    """Above theta_c: amplitude and period at eta = 10^2, 10^3, 10^4 (6 paths each, 95 %
    intervals); at 10^4 both intervals (widened by the O(1/sqrt eta) bias, 1 %) hold the
    fluid values, and the amplitude error shrinks with eta."""
    rows = [
        simulated_oscillation(2, eta, 1, 1, 18, 1, T=100, replications=6)
        for eta in (100, 1000, 10000)
    ]
    errs = [abs(r.amplitude - r.fluid_amplitude) for r in rows]
    assert errs[2] < errs[0]
    r = rows[2]
    assert abs(r.amplitude - r.fluid_amplitude) < r.amplitude_halfwidth + 0.01 * r.fluid_amplitude
    assert abs(r.period - r.fluid_period) < r.period_halfwidth + 0.01 * r.fluid_period
