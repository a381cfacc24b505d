"""Periodic orbits of a neutral delay model (the announcement with velocity: ``dot()``
read through the information lag): the branch at p = 0 against the information-delay
model's, the Hopf point against the neutral characteristic equation, the cycle against a
long delay fluid integration, and the Floquet multipliers near the Hopf point against the
equilibrium's roots, the essential radius against ``|theta p|^(T / D)``."""

from __future__ import annotations

import cmath
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq

from symdelay.analysis.continuation import cycles
from symdelay.analysis.dfluid import delay_fluid
from symdelay.model.core import load_toml

ROOT = Path(__file__).resolve().parents[1]
ANN = ROOT / "examples" / "models" / "announcement.toml"
INFO = ROOT / "examples" / "models" / "information_delay.toml"
P = 0.2


def _hopf(p: float) -> tuple[float, float]:
    """The Hopf point of ``r + 1 + theta (1 + p r) exp(-r) = 0`` (mu = lam = D = 1): theta
    is ``-(1 + i w) exp(i w) / (1 + i p w)``, real and positive at the first ``w`` in
    ``(pi / 2, pi)`` where its imaginary part vanishes."""

    def th(w):
        return -(1 + 1j * w) * cmath.exp(1j * w) / (1 + 1j * p * w)

    w = brentq(lambda w: th(w).imag, math.pi / 2 + 1e-9, math.pi - 1e-9)
    return th(w).real, w


def _root(z, th, p):
    """Newton on ``r + 1 + th (1 + p r) exp(-r)`` from ``z``."""
    for _ in range(60):
        e = cmath.exp(-z)
        f = z + 1 + th * (1 + p * z) * e
        df = 1 + th * p * e - th * (1 + p * z) * e
        step = f / df
        z -= step
        if abs(step) < 1e-15 * (1 + abs(z)):
            break
    return z


@pytest.fixture(scope="module")
def ann_branch():
    m = load_toml(ANN, mu=1, lam=1, D=1, p=str(P))
    return cycles(m, "theta", "2", "3", intervals=30, max_points=60)


def test_p_zero_is_the_information_delay_branch():
    a = cycles(load_toml(ANN, mu=1, lam=1, D=1, p=0), "theta", "2", "3", intervals=12,
               max_points=8)  # fmt: skip
    b = cycles(load_toml(INFO, mu=1, lam=1, D=1), "theta", "2", "3", intervals=12, max_points=8)
    assert len(a.points) == len(b.points) == 8
    for x, y in zip(a.points, b.points):
        assert x.value == pytest.approx(y.value, rel=1e-12, abs=1e-12)
        assert x.period == pytest.approx(y.period, rel=1e-10)
        assert x.amplitude == pytest.approx(y.amplitude, rel=1e-9, abs=1e-12)
        assert x.essential_radius is None  # p = 0 reads no dot(): retarded


def test_the_neutral_branch_starts_at_its_hopf_point(ann_branch):
    th_c, w = _hopf(P)
    assert float(ann_branch.start["value"]) == pytest.approx(th_c, rel=1e-10)
    assert ann_branch.points[0].period == pytest.approx(2 * math.pi / w, rel=1e-5)
    assert ann_branch.start["criticality"] == "supercritical"
    assert all(pt.stable is True for pt in ann_branch.points)


def test_the_neutral_cycle_agrees_with_the_delay_fluid_integration(ann_branch):
    c = ann_branch.points[-1]  # theta = 3
    assert c.value == 3.0 and c.mesh_error < 1e-7
    T = c.period
    m = load_toml(ANN, mu=1, lam=1, D=1, p=str(P), theta=3)
    # from the orbit's point at t = 0 held before 0: the derivative's jump at 0 is carried
    # along (neutral) but shrinks by |theta p| <= 0.6 per lag, the rest by the multipliers
    # (0.27 and the essential radius 0.07 per period): below 1e-8 after 14 periods
    res = delay_fluid(m, T=17 * T, dt=0.05, initial=[c.y[0][0], c.y[1][0]], rtol=1e-11,
                      atol=1e-13)  # fmt: skip
    tt = np.linspace(14 * T, 17 * T, 30001)
    y = res.at(tt)
    x = y[:, 0] - y[:, 1]
    up = np.where((x[:-1] < 0) & (x[1:] >= 0))[0]
    tc = tt[up] - x[up] * (tt[up + 1] - tt[up]) / (x[up + 1] - x[up])
    assert (x.max() - x.min()) / 2 == pytest.approx(c.amplitude, rel=1e-6)
    assert (tc[-1] - tc[0]) / (len(tc) - 1) == pytest.approx(T, rel=1e-7)


def test_multipliers_and_essential_radius_near_the_hopf_point(ann_branch):
    c = ann_branch.points[0]
    th, T = c.value, c.period
    # the difference operator w(t) = -theta p w(t - 1) at the equilibrium: radius
    # |theta p|^T, the neutral chain of roots accumulating at Re r = log(theta p)
    assert c.essential_radius == pytest.approx((th * P) ** T, rel=1e-3)
    guesses = [math.log(th * P) + 1j * (2 * k + 1) * math.pi for k in range(-6, 6)]
    roots = {complex(round(z.real, 9), round(z.imag, 9)) for z in
             (_root(g, th, P) for g in guesses)}  # fmt: skip
    roots |= {-1.0 + 0j}  # the sum mode
    roots = sorted(roots, key=lambda z: -z.real)
    assert abs(roots[0].real) < 1e-3  # the Hopf pair
    rho = [cmath.exp(r * T) for r in roots if abs(r.real) > 1e-3]
    for z in rho[:4]:  # within the amplitude's effect (~A^2 = 1e-4)
        d = np.min(np.abs(c.multipliers - z))
        assert d < 2e-3 * abs(z), (z, c.multipliers[:8])
    assert all(abs(z) > c.essential_radius for z in rho[:4])
