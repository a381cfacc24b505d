"""One record per quantity (issue 31): for every model family with specialisations and every
entry of the spectrum (roots, stability, charpoly), ``method="specialised"`` and
``method="generic"`` give the same key set and the same values to the digits asked
(:func:`_parity.assert_same_record`); and one verdict at a point (stable, marginal,
unstable) that every command states the same way."""

from __future__ import annotations

import json

import mpmath
import pytest
import sympy as sp
from _parity import assert_same_record

import symdelay
from symdelay.analysis.charpoly import CharPoly, charpoly
from symdelay.analysis.roots import roots
from symdelay.analysis.rootset import RootSet
from symdelay.analysis.stability import Stability, stability
from symdelay.core.errors import SymdelayInputError
from symdelay.core.symbols import D, r
from symdelay.models import build_model
from symdelay.models.erlang.founding import FoundingModel

# ------------------------------------------------------------------ the founding model
NUMERIC = [
    # L, mu, lam, theta, D
    (1, 1, 1, 5, 1),
    (2, 1, 1, 2, 1),  # the model
    (2, 1, 1, 9, 1),  # theta_c exactly: marginal (+-i 2 sqrt 2)
    (2, 1, 1, 10, 1),  # unstable
    (2, 2, 1, 2, 1),  # mu = gamma: the sum mode (r + 2)^3; the difference mode reducible
    (3, 1, 1, 4, 3),  # gamma = mu = 1: (r^2 + 1)(r^2 + 4r + 5), marginal
    (3, 1, 1, -1, 1),  # lam theta = -mu: r = 0, marginal
    (3, 1, 1, -2, 1),  # a real root in Re r > 0
    (3, 1, 1, 0, 2),  # theta = 0: the difference mode is the sum mode (one factor twice)
    (4, "1/3", 2, "-1/2", "7/5"),
    (6, 1, 1, 7, "3/2"),
]
SYMBOLIC = [
    {"L": 1},
    {"L": 2},
    {"L": 3},
    {"L": 4},
    {"L": 2, "mu": 1, "lam": 1, "D": 1},  # theta free
    {"L": 3, "theta": 0},
    {"L": 2, "mu": 2, "D": 1},
    {"L": 3, "mu": 1, "theta": 3},
]


def _founding(L, mu, lam, theta, D):
    return build_model("erlang", L=L, mu=mu, lam=lam, theta=theta, D=D)


@pytest.mark.parametrize("case", NUMERIC, ids=lambda c: ",".join(map(str, c)))
@pytest.mark.parametrize("dps", [15, 40])
def test_founding_roots_one_record(case, dps):
    m = _founding(*case)
    fast = roots(m, dps=dps, method="specialised")
    slow = roots(m, dps=dps, method="generic")
    assert type(fast) is type(slow) is RootSet
    assert fast.to_json()["method"]["path"] == "specialised"
    assert slow.to_json()["method"]["path"] == "generic"
    assert_same_record(fast, slow, dps)
    # every root listed once: the multiplicities add up to the degree 2(L + 1)
    assert sum(z.multiplicity for z in fast) == 2 * (case[0] + 1)


@pytest.mark.parametrize("case", NUMERIC, ids=lambda c: ",".join(map(str, c)))
def test_founding_stability_and_charpoly_one_record_at_numbers(case):
    m = _founding(*case)
    for entry, cls in ((stability, Stability), (charpoly, CharPoly)):
        fast, slow = entry(m, method="specialised"), entry(m, method="generic")
        assert type(fast) is type(slow) is cls
        assert_same_record(fast, slow, 20)
    st = stability(m)
    assert st.verdict == roots(m, dps=20).verdict  # the RootSet's counts say the same


@pytest.mark.parametrize(
    "options", SYMBOLIC, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
)
def test_founding_symbolic_one_record(options):
    m = build_model("erlang", **options)
    for entry in (stability, charpoly):
        assert_same_record(entry(m, method="specialised"), entry(m, method="generic"), 20)


def test_founding_contract_keys_on_both_paths():
    """The keys earlier issues named stay where they were, on both paths."""
    m = build_model("erlang", L=2, mu=1, lam=1, theta=2, D=1)
    for method in ("specialised", "generic"):
        st = stability(m, method=method).to_json()
        assert {"L", "conditions", "critical_lam_theta", "stable", "verdict"} <= set(st)
        assert st["critical_lam_theta"] == "2*(gamma + mu)**2/gamma"
        rs = roots(m, dps=15, method=method).to_json()
        assert {"L", "dps", "roots", "spectral_abscissa", "unstable_count"} <= set(rs)
        cp = charpoly(m, method=method).to_json()
        assert {"L", "polynomial", "latex", "factors"} <= set(cp)
        for f in cp["factors"]:
            assert {"factor", "multiplicity", "mode"} <= set(f)


@pytest.mark.parametrize("L", ["inf", "L"])
def test_founding_inf_and_symbolic_L_only_specialised(L):
    """L = inf and symbolic L have no transition table: the generic path refuses in one line,
    and the specialised record has the finite-L record's keys."""
    finite = build_model("erlang", L=2, mu=1, lam=1, theta=2, D=1)
    nums = {} if L == "L" else {"mu": 1, "lam": 1, "theta": 2, "D": 1}
    m = build_model("erlang", L=L, **nums)
    entries = (charpoly,) if L == "L" else (charpoly, stability, roots)
    for entry in entries:
        with pytest.raises(SymdelayInputError, match="transition table"):
            entry(m, method="generic")
        got = entry(m, method="specialised").to_json()
        assert set(got) == set(entry(finite, method="specialised").to_json())


def test_founding_infinite_L_verdict_against_the_certified_roots():
    """L = inf: the verdict by Hayes' region in certified intervals against the roots'
    argument-principle count (two independent ways), across the Hopf delays and k = -mu."""
    with mpmath.workdps(30):
        k = mpmath.mpf(3)
        d0 = mpmath.acos(-1 / k) / mpmath.sqrt(k**2 - 1)  # D_0 at mu = 1, lam theta = 3
        w = mpmath.sqrt(k**2 - 1)
        d1 = d0 + 2 * mpmath.pi / w
    cases = [("3", mpmath.nstr(d0 * f, 12)) for f in (0.9, 0.999, 1.001, 1.5)]
    cases += [("3", mpmath.nstr(d1 * 1.01, 12)), ("-1", "1"), ("-1.01", "1"), ("1", "5")]
    seen = set()
    for th, Dv in cases:
        m = build_model("erlang", L="inf", mu=1, lam=1, theta=th, D=Dv)
        st, rs = stability(m), roots(m, dps=20, branches=(-3, 3))
        assert st.verdict == rs.verdict and st.unstable_count == rs.unstable_count
        assert st.axis_count == rs.axis_count
        seen.add(st.verdict)
        assert "certified intervals" in st.decided_by or "exact" in st.decided_by
    assert seen == {"stable", "marginal", "unstable"}
    # D_1 = 2.897 < 3: two pairs have crossed (the roots' count says so too)
    three = build_model("erlang", L="inf", mu=1, lam=1, theta=3, D=3)
    assert stability(three).unstable_count == roots(three, dps=20).unstable_count == 4


# ------------------------------------------------------------------ the in-flight family
INFLIGHT = [
    {"L": 2, "mu": 1, "lam": 1, "D": 1, "kappa": "1/2", "theta": 3},
    {"L": 2, "mu": "2/15", "lam": 1, "D": 1, "kappa": "1/10", "theta": 32},  # marginal
    {"L": 1, "mu": 1, "lam": 1, "D": 1, "kappa": "1/10", "theta": "-10/11"},  # r = 0
    {"L": 2, "lam": 1, "D": 1, "kappa": "1/10"},  # mu, theta free
]


@pytest.mark.parametrize("options", INFLIGHT, ids=str)
def test_inflight_family_one_record(options):
    """The in-flight family offers no specialisation of these quantities: the specialised
    path is refused in one line, and the answer is the generic record (the same keys as the
    founding model's, its own parameters)."""
    m = build_model("inflight", **options)
    numbers = not m.free_parameters
    entries = (roots, stability, charpoly) if numbers else (stability, charpoly)
    for entry in entries:
        with pytest.raises(SymdelayInputError, match="offers no specialised"):
            entry(m, method="specialised")
        auto, generic = entry(m), entry(m, method="generic")
        assert_same_record(auto, generic, 20)
        # the option as one display prints it (0.5 for 1/2), the same exact number
        assert sp.Rational(auto.to_json()["parameters"]["kappa"]) == sp.Rational(options["kappa"])
    if numbers:
        assert stability(m).verdict == roots(m).verdict
    if options.get("theta") in (32, "-10/11"):
        assert stability(m).verdict == "marginal"


# ------------------------------------------------------------------ the helper can fail
def test_parity_helper_catches_what_differs():
    good = {
        "a": "1.2345",
        "c": ["lam*theta > -mu"],
        "z": {"re": "1.00", "im": "0", "radius": "0.01"},
    }
    assert_same_record(good, json.loads(json.dumps(good)), 4)
    bad = [
        {**good, "b": 1},  # a key on one side
        {**good, "a": "1.2399"},  # digits
        {**good, "c": ["lam*theta > mu"]},  # a condition that differs (theta < 0)
        {**good, "z": {"re": "1.05", "im": "0", "radius": "0.01"}},  # discs that do not meet
    ]
    for other in bad:
        with pytest.raises(AssertionError):
            assert_same_record(good, other, 4)
    assert_same_record({"e": "(r + 1)*(r + 2)**2 + 8"}, {"e": "r**3 + 5*r**2 + 8*r + 12"}, 4)
    with pytest.raises(AssertionError):
        assert_same_record({"e": "(r + 1)*(r + 2)**2 + 8"}, {"e": "r**3 + 5*r**2 + 8*r"}, 4)


# ------------------------------------------------------------------ records and conveniences
def test_roots_record_lists_each_root_once_with_its_mode():
    rec = roots(_founding(3, 1, 1, 2, 1), dps=20).to_json()
    modes = [f["mode"] for f in rec["factors"]]
    assert modes == ["sum", "difference"] and all(z["mode"] in modes for z in rec["roots"])
    assert "roots" not in rec["factors"][0]  # listed once, not per factor and again on top
    # the factors multiply to det(rI - J) of the full transition table
    full = build_model("erlang", L=3, mu=1, lam=1, theta=2, D=1).charpoly
    prod = sp.Mul(*[sp.sympify(f["factor"]) ** f["multiplicity"] for f in rec["factors"]])
    assert sp.expand(prod - full) == 0


def test_json_size_at_large_L_is_one_list_of_roots():
    """L = 10^4: one list of roots (each tagged), the factors printed once."""
    rs = roots(_founding(10_000, 1, 1, 5, 1), dps=15)
    text = json.dumps(rs.to_json())
    assert len(rs.roots) == 10_003 and text.count('"re"') == 10_003
    assert len(text) < 10_003 * 120 + 20_000


def test_the_founding_factors_are_the_derived_forms():
    """The closed forms the founding path writes for every L: the difference mode's is the
    derived polynomial (Schur complement, rsolve), and the product of both modes is the
    explicit determinant of the full system at concrete L."""
    from symdelay.core.symbols import L, gamma, mu
    from symdelay.models.erlang.charpoly import (
        derive_characteristic_equation,
        founding_factors,
        verify_full_factorisation,
    )

    free = dict.fromkeys(("mu", "lam", "theta", "D"))
    sym = founding_factors(L, free)
    assert sp.simplify(sym[1].factor - derive_characteristic_equation().result) == 0
    assert sp.simplify(sym[0].factor - (r + mu) * (r + gamma) ** L) == 0
    for n in (1, 2, 4):
        f = founding_factors(n, free)
        assert sp.expand(f[0].factor * f[1].factor - verify_full_factorisation(n).explicit) == 0


def test_loose_conveniences():
    res = symdelay.founding.characteristic_roots(
        2, 1, 1, 3, 1, dps=15
    )  # the difference polynomial's
    assert isinstance(res, RootSet) and [f.mode for f in res.factors] == ["difference"]
    full = roots(_founding(2, 1, 1, 3, 1), dps=15)
    assert res.to_json()["roots"] == [
        z for z in full.to_json()["roots"] if z["mode"] == "difference"
    ]
    k = symdelay.founding.characteristic_roots(2, 1, 1, 3, 1, dps=15, kappa="1/2")
    assert [f.mode for f in k.factors] == ["difference"]
    st = symdelay.founding.stability_conditions(1, kappa=1)
    assert isinstance(st, Stability) and st.closed_forms is None
    sym = charpoly(FoundingModel(L="L"))
    assert sym.record()["L"] == "L"
    assert str(sym.polynomial) == "gamma**L*lam*theta + (gamma + r)**L*(mu + r)"
    inf = charpoly(FoundingModel(L="inf"))
    assert inf.polynomial is None and inf.equation.has(D) and inf.equation.has(r)
