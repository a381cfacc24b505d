"""The founding model's roots, stability and characteristic polynomial: the specialised path
(closed forms, Erlang branch structure) against the generic one (the transition table) on
the same model, both through one entry and one record class."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp

import symdelay
from symdelay.analysis.charpoly import CharPoly, charpoly
from symdelay.analysis.roots import roots
from symdelay.analysis.rootset import RootSet
from symdelay.analysis.stability import Stability, stability
from symdelay.core.errors import SymdelayInputError
from symdelay.core.symbols import D, gamma, lam, mu, r, theta
from symdelay.models import build_model
from symdelay.models.erlang.founding import FoundingModel

DPS = 25


def _sorted(values):
    return sorted(values, key=lambda z: (mpmath.nstr(z.real, 12), mpmath.nstr(z.imag, 12)))


@pytest.mark.parametrize("L", [1, 2, 3, 6])
def test_roots_specialised_equal_generic(L):
    m = build_model("erlang", L=L, mu=1, lam=1, theta=sp.Rational(7, 2), D=sp.Rational(3, 2))
    fast = roots(m, dps=DPS, method="specialised")
    slow = roots(m, dps=DPS, method="generic")
    assert type(fast) is type(slow) is RootSet
    assert fast.model_name == slow.model_name == m.name
    diff = slow.mode_roots("difference")
    assert len(fast) == len(diff) == L + 1
    tol = mpmath.mpf(10) ** -(DPS - 3)
    for a, b in zip(_sorted(fast.values), _sorted(diff.values)):
        assert abs(a - b) < tol
    assert fast.unstable_count == diff.unstable_count == slow.unstable_count
    assert roots(m, dps=DPS).per_factor == ()  # auto: the specialisation answers


def test_roots_auto_is_specialised_and_json_keys_kept():
    m = build_model("erlang", L=3, mu=1, lam=1, theta=3, D=1)
    rec = roots(m, dps=15).to_json()
    assert {"L", "dps", "roots", "spectral_abscissa", "unstable_count", "axis_count"} <= set(rec)
    assert rec["model"] == m.name
    g = roots(build_model("nserver", N=2, L=1, mu=1, lam=1, theta=2, D=1), dps=15)
    assert {"factors", "stable", "notes"} <= set(g.to_json())
    with pytest.raises(SymdelayInputError, match="founding model"):
        roots(build_model("nserver", N=2, L=1, mu=1, lam=1, theta=2, D=1), rightmost=1)


def test_roots_infinite_L_has_only_the_specialisation():
    m = FoundingModel(L="inf", mu=1, lam=1, theta=3, D=1)
    assert roots(m, dps=15, branches=(-1, 1)).L == "inf"
    with pytest.raises(SymdelayInputError):
        roots(m, dps=15, method="generic")


@pytest.mark.parametrize("L", [1, 2, 3])
@pytest.mark.parametrize("th", [sp.Rational(1, 2), 3, 9, 20, sp.Rational(-1, 2), -2])
def test_stability_verdict_specialised_equals_generic(L, th):
    m = build_model("erlang", L=L, mu=1, lam=1, theta=th, D=1)
    fast = stability(m, method="specialised")
    slow = stability(m, method="generic")
    assert type(fast) is type(slow) is Stability
    assert fast.stable is slow.stable
    assert fast.stable is not None


@pytest.mark.parametrize("L", [1, 2, 3, 4])
def test_stability_conditions_equivalent_at_rational_points(L):
    """The founding conditions (in mu, gamma, lam*theta, under theta >= 0) and the generic
    ones (in the table's parameters) agree at rational sample points, exactly."""
    fast = stability(FoundingModel(L=L), method="specialised")
    generic_model = build_model("erlang", L=L)
    slow = stability(generic_model, method="generic")
    names = {str(s): s for s in generic_model.parameters}
    points = [
        (1, 1, sp.Rational(1, 2), 1),
        (1, 2, 3, sp.Rational(1, 3)),
        (sp.Rational(1, 2), 1, 7, 2),
        (2, sp.Rational(3, 2), 11, sp.Rational(1, 4)),
        (1, 1, 40, 5),
        (3, 1, 2, 1),
    ]
    for m_, l_, t_, g_ in points:
        f_ok = bool(sp.And(*fast.conditions).subs({mu: m_, lam: l_, theta: t_, gamma: g_}))
        at = {names["mu"]: m_, names["lam"]: l_, names["theta"]: t_}
        at.update({v: g_ for k, v in names.items() if k not in ("mu", "lam", "theta", "D")})
        if "D" in names:
            at[names["D"]] = sp.Integer(L) / g_
        s_ok = bool(sp.And(*slow.conditions).subs(at)) if slow.conditions else True
        exact = stability(
            build_model("erlang", L=L, mu=m_, lam=l_, theta=t_, D=sp.Integer(L) / g_),
            method="generic",
        ).stable
        assert f_ok == s_ok == exact, (L, m_, l_, t_, g_)


def test_stability_founding_record_keys_and_cache():
    res = symdelay.stability_conditions(2)
    assert isinstance(res, Stability) and res.stable is None
    rec = res.to_json()
    for key in ("L", "conditions", "critical_lam_theta", "hopf_polynomial", "routh_conditions"):
        assert key in rec
    assert symdelay.stability_conditions(2) is res
    at = stability(build_model("erlang", L=2, mu=1, lam=1, theta=3, D=1))
    assert at.stable is True and at.to_json()["values"]["theta"] == "3"
    assert at.conditions == res.conditions


def test_charpoly_specialised_equals_generic():
    m = build_model("erlang", L=3, mu=1, lam=2, theta=3, D=1)
    fast = charpoly(m, method="specialised")
    slow = charpoly(m, method="generic")
    assert type(fast) is type(slow) is CharPoly
    assert sp.expand(fast.polynomial - slow.polynomial) == 0
    sym = charpoly(FoundingModel(L="L"))
    assert sym.record()["L"] == "L"
    assert str(sym.polynomial) == "gamma**L*lam*theta + (gamma + r)**L*(mu + r)"
    inf = charpoly(FoundingModel(L="inf"))
    assert inf.polynomial is None and inf.equation.has(D) and inf.equation.has(r)


def test_loose_functions_keep_kappa():
    res = symdelay.characteristic_roots(2, 1, 1, 3, 1, dps=15, kappa=0.5)
    assert isinstance(res, RootSet) and res.per_factor
    st = symdelay.stability_conditions(1, kappa=1)
    assert isinstance(st, Stability) and st.L is None
    p = symdelay.characteristic_polynomial(1, kappa=0, mu=1, lam=1, theta=1, D=1)
    assert isinstance(p, sp.Expr)
