"""One entry per quantity: the founding model's specialisation (method="specialised") against
the generic machinery (method="generic") on the same model, and both give the same record
class. Windows and worst delays (exact generic eliminations vs the Hopf parametrisation),
the normal form (SymPy closed form of l1 vs Kuznetsov's formula on the full drift), limit
cycles (difference system vs the full drift), and verify (founding only for now)."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

from symdelay.analysis.claims import ClaimResult, verify
from symdelay.analysis.cycles import LimitCycle, limit_cycle
from symdelay.analysis.normal_form import NormalForm, normal_form
from symdelay.analysis.window import Extremum, Window, window, worst_delay
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model

DPS = 15


def _agree(a, b, digits=DPS):
    if mpmath.isinf(a) or mpmath.isinf(b):
        return a == b
    return abs(a - b) <= mpmath.mpf(10) ** (-digits) * max(abs(a), abs(b))


@pytest.mark.parametrize("L,theta", [(2, 12), (3, 5), (3, "4.5")])
def test_window_specialised_equals_generic(L, theta):
    m = build_model("erlang", L=L, mu=1, lam=1, theta=theta)
    fast = window(m, "D", dps=DPS, method="specialised")
    slow = window(m, "D", dps=DPS, method="generic")
    assert type(fast) is type(slow) is Window
    assert (fast.method, slow.method) == ("specialised", "generic")
    assert set(fast.to_json()) == set(slow.to_json())
    assert len(fast.intervals) == len(slow.intervals) >= 1
    for f, g in zip(fast.intervals, slow.intervals, strict=True):
        assert _agree(f.lo.value, g.lo.value, DPS - 1) and _agree(f.hi.value, g.hi.value, DPS - 1)
    # auto takes the specialisation; another parameter goes generic
    assert window(m, "D", dps=DPS).method == "specialised"


def test_window_specialisation_declines_for_theta():
    m = build_model("erlang", L=2, mu=1, lam=1, D=1)
    w = window(m, "theta", lo=0)
    assert isinstance(w, Window) and w.method == "generic"
    with pytest.raises(SymdelayInputError, match="does not apply"):
        window(m, "theta", lo=0, method="specialised")


@pytest.mark.parametrize("L", [2, 3])
def test_worst_delay_specialised_equals_generic(L):
    mu, lam = sp.Rational(3, 2), 1
    m = build_model("erlang", L=L, mu=mu, lam=lam)
    fast = worst_delay(m, "D", dps=DPS, method="specialised")
    slow = worst_delay(m, "D", dps=DPS, method="generic")
    assert type(fast) is type(slow) is Extremum
    # D* = L/mu exactly (the closed form), and the generic extremum finds it
    assert fast.lower == fast.upper == sp.Rational(L) / mu
    with mpmath.workdps(DPS + 5):
        D_star = mpmath.mpf(L) / mpmath.mpf(mu)
    assert _agree(fast.x_star, D_star, DPS - 1) and _agree(slow.x_star, D_star, DPS - 2)
    assert _agree(fast.critical, slow.critical, DPS - 2)
    assert fast.theta_star == fast.critical
    assert fast.attained and slow.attained


@pytest.mark.parametrize("L", [2, 3])
def test_normal_form_closed_l1_equals_generic(L):
    m = build_model("erlang", L=L, mu=1, lam=1, D=1)
    fast = normal_form(m, dps=20, method="specialised")
    slow = normal_form(m, dps=20, method="generic")
    assert type(fast) is type(slow) is NormalForm
    # the closed form is the family's: attached on both paths (issue 31)
    assert fast.closed_l1 is not None and slow.closed_l1 == fast.closed_l1
    closed = sp.N(
        fast.closed_l1.subs({sp.Symbol("mu"): 1, sp.Symbol("lam"): 1, sp.Symbol("D"): 1}), 30
    )
    assert abs(mpmath.mpf(str(closed)) - slow.l1) < mpmath.mpf(10) ** -16 * abs(slow.l1)
    assert abs(fast.l1 - slow.l1) < mpmath.mpf(10) ** -16 * abs(slow.l1)


def test_limit_cycle_specialised_and_generic_same_class():
    m = build_model("erlang", L=2, mu=1, lam=1, D=1)
    fast = limit_cycle(m, 10, method="specialised")
    slow = limit_cycle(m, 10, method="generic")
    assert type(fast) is type(slow) is LimitCycle
    assert fast.amplitude_x == pytest.approx(slow.amplitude_x, rel=1e-7)
    assert fast.period == pytest.approx(slow.period, rel=1e-8)
    with pytest.raises(SymdelayInputError, match="--system is for the founding model"):
        limit_cycle(m, 10, system="full", method="generic")


def test_verify_founding_and_generic_give_one_record():
    res = verify(build_model("erlang", L=1), "lam*theta < 3*mu")
    assert isinstance(res, ClaimResult) and res.relation_to_stability == "sufficient"
    assert res.to_json()["model"]
    # any other model: the decision procedure (issue 19), the same record
    other = verify(build_model("nserver", N=2, L=1), "lam*theta < mu")
    assert isinstance(other, ClaimResult) and other.proven == {"stability": True}
    generic = verify(build_model("erlang", L=1), "lam*theta < 3*mu", method="generic")
    assert isinstance(generic, ClaimResult)
    assert generic.relation_to_stability == res.relation_to_stability
    assert set(generic.methods["stability"].values()) == {"decision procedure"}
    with pytest.raises(SymdelayInputError, match="decided over all parameter values"):
        verify(build_model("erlang", L=1, mu=1), "lam*theta < mu")
