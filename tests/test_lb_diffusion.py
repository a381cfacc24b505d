"""LB(xi, c, d) Halfin-Whitt diffusion: symbolic reduction, numeric second paths, Erlang C."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from symdelay.core.errors import SymdelayInputError
from symdelay.models.lb import LBPolicy, diffusion, halfin_whitt_reduction, stationary_law
from symdelay.models.lb.diffusion import BETA, A, collapse


def classical(beta) -> mpmath.mpf:
    b = mpmath.mpf(beta)
    return 1 / (1 + b * mpmath.ncdf(b) / mpmath.npdf(b))


def test_symbolic_reduction_to_halfin_whitt():
    d = halfin_whitt_reduction()
    assert d["a"].expr.rhs == 1
    assert d["reach"].expr.rhs == 1
    # the reduced formula, evaluated, is the classical one (independent numeric evaluation)
    f = sp.lambdify(BETA, d.result, "mpmath")
    with mpmath.workdps(30):
        for b in ("0.1", "0.5", "1", "2.5"):
            assert mpmath.almosteq(f(mpmath.mpf(b)), classical(b), 1e-25)


@pytest.mark.parametrize("a", ["1/3", "1", "9/8", "4"])
@pytest.mark.parametrize("beta", ["0.2", "1", "2"])
def test_stationary_law_against_quadrature(a, beta):
    """P(wait), E[Y+], E[Y-] of the derived law against mpmath quadrature of the density."""
    law = stationary_law()
    ar, br = sp.Rational(a), sp.Rational(beta)
    with mpmath.workdps(30):
        af, bf = mpmath.mpf(ar.p) / ar.q, mpmath.mpf(br.p) / br.q

        def dens(y):
            return mpmath.exp(-bf * y) if y >= 0 else mpmath.exp(-bf * y - af * y * y / 2)

        Z = mpmath.quad(dens, [-mpmath.inf, 0, mpmath.inf])
        up = mpmath.quad(dens, [0, mpmath.inf]) / Z
        EQ = mpmath.quad(lambda y: y * dens(y), [0, mpmath.inf]) / Z
        EI = mpmath.quad(lambda y: -y * dens(y), [-mpmath.inf, 0]) / Z
        sub = {A: ar, BETA: br}
        assert mpmath.almosteq(mpmath.mpf(law.result.subs(sub).evalf(30)), up, 1e-20)
        assert mpmath.almosteq(
            mpmath.mpf(law["mean_queue"].expr.rhs.subs(sub).evalf(30)), EQ, 1e-20
        )
        assert mpmath.almosteq(mpmath.mpf(law["mean_idle"].expr.rhs.subs(sub).evalf(30)), EI, 1e-20)
        # zero mean drift in stationarity: -beta + a E[Y-] = 0
        assert mpmath.almosteq(EI, bf / af, 1e-20)


@pytest.mark.parametrize(
    "xi,c,d",
    [("2", "1,1,1", "1,1,1"), ("3", "1,5,2", "3,1,7"), (None, "2,1,1", "1,1,9")],
)
def test_identical_stations_give_classical_value(xi, c, d):
    p = LBPolicy.from_text("N=30,mu=2;N=30,mu=2;N=30,mu=2", xi=xi, c=c, d=d)
    for b in ("0.3", "1.7"):
        r = diffusion(p, b, dps=25)
        assert r.collapse.a == 1
        with mpmath.workdps(25):
            assert mpmath.almosteq(r.p_wait, classical(b), 1e-20)


def test_erlang_c_converges_to_diffusion():
    """Identical stations: the pooled M/M/n's Erlang C approaches the limit as n grows."""
    gaps = []
    for n in (50, 800, 12800):
        p = LBPolicy.from_text(f"N={n // 2},mu=1;N={n // 2},mu=1", xi="2")
        beta = mpmath.mpf(1)
        lam = n - beta * mpmath.sqrt(n)
        term = tot = mpmath.mpf(1)
        for k in range(1, n):
            term = term * lam / k
            tot += term
        last = term * lam / n / (1 - lam / n)
        erlang = last / (tot + last)
        gaps.append(abs(erlang - diffusion(p, 1, dps=20).p_wait))
    assert gaps[0] > gaps[1] > gaps[2] and gaps[2] < 0.01


def test_collapse_shares_and_delays():
    p = LBPolicy.from_text("N=50,mu=1;N=100,mu=0.5", xi="2", c="1,3", d="2,1")
    col = collapse(p)
    assert col.idle_shares == (sp.Rational(1, 5), sp.Rational(4, 5))  # (1/3)/2 : (2/3)/1
    r = diffusion(p, "0.8", dps=20)
    s1, s2 = r.stations
    with mpmath.workdps(20):
        ratio_w = s1["mean_delay_scaled"] / s2["mean_delay_scaled"]
        ratio_i = s1["idle_ratio_scaled"] / s2["idle_ratio_scaled"]
        assert mpmath.almosteq(ratio_w, 3, 1e-18)
        assert mpmath.almosteq(ratio_i, mpmath.mpf(1) / 2, 1e-18)
    # Little: overall sqrt(n) E[W] = E[Q]/sqrt(n) / mu_bar, and the station delays average to it
    nu = p.capacity_shares
    with mpmath.workdps(20):
        avg = sum(mpmath.mpf(v.p) / v.q * s["mean_delay_scaled"] for v, s in zip(nu, r.stations))
        assert mpmath.almosteq(avg, r.mean_delay_scaled, 1e-18)


def test_weak_sampling_and_bad_beta_refused():
    p = LBPolicy.from_text("N=100,mu=1;N=5,mu=1;N=5,mu=1", xi_dist="1:0.9,3:0.1")
    with pytest.raises(SymdelayInputError, match="cannot balance"):
        diffusion(p, 1)
    q = LBPolicy.from_text("N=10,mu=1;N=10,mu=1", xi="2")
    for b in ("0", "-1", "nan"):
        with pytest.raises(SymdelayInputError):
            diffusion(q, b)
