"""Limit cycles: normal-form amplitude to O(theta - theta_c), stationary period, long fluid
integrations converging onto the computed cycle, Floquet multipliers (variational vs finite
differences; full model = difference mode + sum mode), L large vs the DDE, other models."""

from __future__ import annotations

import numpy as np
import pytest

from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model
from symdelay.models.dde import model as dde_model
from symdelay.models.erlang.nonlinear import (
    ShootingError,
    difference_field,
    limit_cycle,
    normal_form,
)
from symdelay.models.erlang.nonlinear.cycles import _flow
from symdelay.models.erlang.stochastic import fluid


@pytest.mark.parametrize("L", [2, 3, "inf"])
def test_normal_form_amplitude_to_first_order(L):
    nf = normal_form(L, 1, 1, 1)
    th_c = float(nf.theta_c)
    errs, shifts = [], []
    for d in (1e-2, 1e-3):
        c = limit_cycle(L, 1, 1, 1, theta=th_c * (1 + d))
        errs.append(c.amplitude_x / nf.amplitude(th_c * (1 + d)) - 1)
        shifts.append(abs(c.period - float(nf.period)))
        assert c.stable
    # relative error O(theta - theta_c): ten times smaller for a ten times smaller step
    assert abs(errs[0]) < 0.05 and errs[0] / errs[1] == pytest.approx(10, rel=0.1)
    # the period does not move at first order: O((theta - theta_c)^2)
    assert shifts[0] / shifts[1] == pytest.approx(100, rel=0.15)


def _last_period(t, x, T):
    keep = t >= t[-1] - T
    return (x[keep].max() - x[keep].min()) / 2


def _upcrossings(t, x):
    i = np.flatnonzero((x[:-1] < 0) & (x[1:] >= 0))
    return t[i] - x[i] * (t[i + 1] - t[i]) / (x[i + 1] - x[i])


def test_long_fluid_integration_converges_onto_the_cycle():
    """The full 2(L+1) fluid ODE (the package's fluid solver) from near the equilibrium,
    integrated long: its amplitude and period tend to the shooting cycle's."""
    c = limit_cycle(2, 1, 1, 1, theta=12)
    sim = fluid(
        L=2, mu=1, lam=1, theta=12, D=1, T=400, dt=0.005, initial=[1.01, 0.99, 0.5, 0.5, 0.5, 0.5]
    )
    t, x = sim.t, sim["q1"] - sim["q2"]
    assert _last_period(t, x, c.period) == pytest.approx(c.amplitude_x, rel=1e-5)
    up = _upcrossings(t, x)
    assert np.mean(np.diff(up[-10:])) == pytest.approx(c.period, rel=1e-6)


def test_long_dde_integration_converges_onto_the_cycle():
    c = limit_cycle("inf", 1, 1, 1, theta=4)
    res = dde_model(mu=1, lam=1, theta=4, D=1).integrate(T=300, history=(1.05, 0.95), dt=0.002)
    t, x = np.asarray(res.t), res["x"]
    assert _last_period(t, x, c.period) == pytest.approx(c.amplitude_x, rel=1e-5)
    up = _upcrossings(t, x)
    assert np.mean(np.diff(up[-10:])) == pytest.approx(c.period, rel=1e-6)
    assert abs(c.multipliers[np.argmin(abs(c.multipliers - 1))] - 1) < 1e-8


def test_floquet_multipliers_variational_vs_finite_differences():
    th = 15.0
    c = limit_cycle(2, 1, 1, 1, theta=th)
    fld = difference_field(2, 1, 1, 1, th)
    h = 1e-6
    M = np.empty((3, 3))
    base = _flow(fld, c.y0, c.period, False).y[:, -1]
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        M[:, j] = (_flow(fld, c.y0 + e, c.period, False).y[:, -1] - base) / h
    fd = np.sort(np.abs(np.linalg.eigvals(M)))
    assert np.allclose(fd, np.sort(np.abs(c.multipliers)), atol=1e-5)
    assert c.trivial_error < 1e-8 and c.stable


def test_full_fluid_model_cycle_is_the_difference_cycle_plus_the_sum_mode():
    th = 12.0
    d = limit_cycle(2, 1, 1, 1, theta=th)
    f = limit_cycle(2, 1, 1, 1, theta=th, system="full")
    assert f.amplitude_x == pytest.approx(d.amplitude_x, rel=1e-9)
    assert f.period == pytest.approx(d.period, rel=1e-10)
    # sum mode: eigenvalues -mu and -gamma (L-fold) -> multipliers exp(-T), exp(-2T) twice
    expected = np.sort(
        np.concatenate([np.abs(d.multipliers), np.exp(-np.array([1.0, 2.0, 2.0]) * d.period)])
    )
    assert np.allclose(np.sort(np.abs(f.multipliers)), expected, rtol=1e-5, atol=1e-10)


@pytest.mark.slow
def test_large_L_tends_to_the_dde():
    """Amplitude error O(1/L) (halves with each doubling of L); period within 0.1 %."""
    th = 3.0
    ref = limit_cycle("inf", 1, 1, 1, theta=th)
    cyc = {L: limit_cycle(L, 1, 1, 1, theta=th) for L in (16, 32, 64)}
    err = [abs(cyc[L].amplitude_x - ref.amplitude_x) for L in (16, 32, 64)]
    assert err[0] / err[1] == pytest.approx(2, rel=0.1)
    assert err[1] / err[2] == pytest.approx(2, rel=0.1)
    for L in (32, 64):
        assert cyc[L].period == pytest.approx(ref.period, rel=1e-3)


def test_continuation_to_the_relay_regime():
    nf = normal_form(2, 1, 1, 1)
    th_c = float(nf.theta_c)
    fam = limit_cycle(2, 1, 1, 1, theta=f"{1.05 * th_c}:{20 * th_c}:12")
    _, a, _, m = fam.arrays()
    assert np.all(np.diff(a) > 0) and np.all(m < 1)
    assert all(p.stable for p in fam.points)
    assert len(fam.to_json()["points"]) == 12
    # the relay limit of harmonic balance is an upper estimate within 5 %
    assert a[-1] < 8 / (np.pi * th_c) * 1.05 and a[-1] > 8 / (np.pi * th_c) * 0.95


def test_inflight_model_through_the_model_layer():
    """Another model: routing on q_i + kappa sum z_il. The normal form predicts its cycle,
    and in the observed coordinate y the amplitude is 4 theta_c^(-3/2) sqrt(theta-theta_c)."""
    kappa = 0.1
    m = build_model("inflight", L=3, mu=1, lam=1, D=1, kappa="1/10")
    from symdelay.analysis.cycles import limit_cycle as entry
    from symdelay.analysis.normal_form import normal_form as nf_entry

    nf = nf_entry(m)
    th_c = float(nf.theta_c)
    th = th_c * 1.001
    c = entry(m, th)
    assert c.stable
    assert c.amplitude_x / nf.amplitude(th) - 1 == pytest.approx(0, abs=2e-3)
    names = [s.name for s in m.states]
    wy = np.zeros(len(names))
    wy[names.index("q1")], wy[names.index("q2")] = 1, -1
    for ell in range(1, 4):
        wy[names.index(f"z1_{ell}")], wy[names.index(f"z2_{ell}")] = kappa, -kappa
    y = wy @ c.y
    amp_y = (y.max() - y.min()) / 2
    assert amp_y == pytest.approx(4 / th_c**1.5 * np.sqrt(th - th_c), rel=3e-3)


def test_bad_input():
    with pytest.raises(SymdelayInputError, match="not above theta_c = 9"):
        limit_cycle(2, 1, 1, 1, theta=5)
    with pytest.raises(SymdelayInputError, match="no Hopf point"):
        limit_cycle(1, 1, 1, 1, theta=5)
    with pytest.raises(SymdelayInputError, match=r"theta \(item 2\) must be a number"):
        limit_cycle(2, 1, 1, 1, theta="10,x")
    with pytest.raises(ShootingError, match="Fourier modes"):
        limit_cycle("inf", 1, 1, 1, theta=20, max_modes=127)
