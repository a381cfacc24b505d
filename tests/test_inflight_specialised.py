"""The in-flight model's fast paths are specialisations behind the generic entries: its exact
theta-window (the crossing curve ``kappa(t), a(t)``) against the generic window (exact
crossing polynomials of the model's factors), its kappa* (the closed-factor cover or the
expanded crossing curve) against the generic extremum over a free kappa, and kappa* once
more against numpy eigenvalues of the full Jacobian on either side of the turning point.
Both paths give the same record class and the same JSON keys (the in-flight record adds
its own); another varied parameter, range or extremum goes to the generic path."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp
from _parity import assert_same_record

from symdelay.analysis.window import Extremum, Window, extremum, kappa_star, window
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model
from symdelay.models.inflight.model import InflightModel

R = sp.Rational
DPS = 15

THETA_CASES = [
    (2, "0.05", None),
    (3, "0.1", None),
    (5, "0.05", None),
    (5, "0.1", None),
    (3, ["0", "0.1", "0.2"], None),  # one weight per phase
    (4, "0.1", "last"),  # a pattern times kappa
    (2, "0", None),  # kappa = 0: the founding model, theta_c = 9
]


def _ids(cases):
    return [f"L={c[0]}-kappa={c[1]}-{c[2] or 'all'}" for c in cases]


@pytest.mark.parametrize("L, kappa, pattern", THETA_CASES, ids=_ids(THETA_CASES))
def test_theta_window_specialised_equals_generic(L, kappa, pattern):
    m = build_model("inflight", L=L, kappa=kappa, pattern=pattern, mu=1, lam="1.5", D=1)
    assert isinstance(m, InflightModel)
    fast = window(m, "theta", lo=0, dps=DPS, method="specialised")
    slow = window(m, "theta", lo=0, dps=DPS, method="generic")
    assert type(fast) is type(slow) is Window
    assert (fast.method, slow.method) == ("specialised", "generic")
    assert_same_record(fast, slow, DPS)  # one record: the same keys and values
    # and the proofs behind them: the same counts between the same crossings, each exact
    # bracket of the fast path holding the generic path's (and the other way)
    assert fast.counts == slow.counts
    assert [iv.unstable_roots for iv in fast.intervals] == [
        iv.unstable_roots for iv in slow.intervals
    ]
    assert len(fast.breakpoints) == len(slow.breakpoints)
    for f, g in zip(fast.breakpoints, slow.breakpoints, strict=True):
        assert f.lower <= g.upper and g.lower <= f.upper
    # auto takes the specialisation
    assert window(m, "theta", lo=0, dps=DPS).method == "specialised"


def test_theta_window_declines_to_generic():
    m = build_model("inflight", L=2, kappa="0.05", mu=1, lam=1, D=1)
    # another range: negative theta too (a real root through 0), or an upper end
    for kw in ({}, {"lo": -5}, {"lo": 0, "hi": 100}):
        w = window(m, "theta", **kw)
        assert isinstance(w, Window) and w.method == "generic"
        with pytest.raises(SymdelayInputError, match="does not apply"):
            window(m, "theta", method="specialised", **kw)
    # another varied parameter: the mean delay
    md = build_model("inflight", L=2, kappa="0.02", mu=1, lam=1, theta=30)
    w = window(md, "D", dps=DPS)
    assert w.method == "generic" and w.intervals
    with pytest.raises(SymdelayInputError, match="does not apply"):
        window(md, "D", method="specialised")


def test_unstable_theta_convenience_is_the_entry():
    from symdelay.models.inflight.curve import unstable_theta

    res = unstable_theta(2, "0.05", mu=1, lam=1, D=1, dps=DPS)
    entry = window(build_model("inflight", L=2, kappa="0.05", mu=1, lam=1, D=1), "theta", lo=0)
    assert type(res) is Window and res.to_json() == entry.to_json()


# -------------------------------------------------------------------------------- kappa*
KAPPA_CASES = [(2, None), (3, None), (3, "1,0.5,0.25"), (4, "first-half"), (3, "last")]


@pytest.mark.parametrize("L, pattern", KAPPA_CASES, ids=[f"L={c[0]}-{c[1]}" for c in KAPPA_CASES])
def test_kappa_star_specialised_equals_generic(L, pattern):
    m = build_model("inflight", L=L, kappa="kappa", pattern=pattern, mu=1, lam=1, D=1)
    fast = kappa_star(m, dps=DPS, method="specialised")
    slow = kappa_star(m, dps=DPS, method="generic")
    assert type(fast) is type(slow) is Extremum
    assert_same_record(fast, slow, DPS)  # one record: the same keys and values
    fj = fast.to_json()
    assert fj["kappa_star"] == fj["x_star"]
    if slow.lower is not None:  # the generic exact bracket holds the fast value (printed)
        x, tol = sp.Rational(str(fast.x_star)), R(1, 10 ** (DPS - 1))
        assert slow.lower - tol * x <= x <= slow.upper + tol * x
    # the entry asked directly gives the same
    direct = extremum(m, "kappa", param="theta", kind="stable", dps=DPS)
    assert direct.to_json()["kappa_star"] == fj["kappa_star"]


def _max_re(model, **values):
    J = model.with_values(**values).jacobian
    A = np.array(J.evalf(30).tolist(), dtype=float)
    return float(np.linalg.eigvals(A).real.max())


@pytest.mark.parametrize("L", [3, 4])
def test_kappa_star_against_full_jacobian_at_the_turning_point(L):
    """Just below kappa* a theta near the turning point destabilises (a root of the full
    (2L+2)-state Jacobian in Re > 0); just above, no theta on a wide grid does."""
    m = build_model("inflight", L=L, kappa="kappa", mu=1, lam=1, D=1)
    ks = kappa_star(m, dps=DPS)
    k, lam_theta = ks.x_star, ks.turning["lam_theta"]
    below = sp.Rational(str(mpmath.nstr(k * (1 - mpmath.mpf("1e-3")), 20)))
    above = sp.Rational(str(mpmath.nstr(k * (1 + mpmath.mpf("1e-3")), 20)))
    th = sp.Rational(str(mpmath.nstr(lam_theta, 20)))
    assert _max_re(m, kappa=below, theta=th) > 0
    for t in [*np.geomspace(0.5, 20 * float(th), 12), float(th)]:
        assert _max_re(m, kappa=above, theta=sp.Rational(repr(float(t)))) < 0
    # the window of the weight just below is a narrow interval around the turning point
    w = window(m.with_values(kappa=below), "theta", lo=0)
    ((a, b),) = [tuple(iv) for iv in w.intervals]
    assert a < th < b


def test_kappa_star_declines_to_generic():
    m = build_model("inflight", L=2, kappa="kappa", mu=1, lam=1, D=1)
    # another extremum over kappa: the smallest theta_c (generic), a range of kappa
    for kw in ({"kind": "min"}, {"kind": "stable", "hi": 1}):
        with pytest.raises(SymdelayInputError, match="does not apply"):
            extremum(m, "kappa", method="specialised", **kw)
    e = extremum(m, "kappa", kind="stable", hi=1, dps=DPS)
    assert e.method == "generic" and e.x_star is not None
    # over another parameter (kappa a number): the worst delay
    md = build_model("inflight", L=2, kappa="0.02", mu=1, lam=1)
    with pytest.raises(SymdelayInputError, match="does not apply"):
        extremum(md, "D", method="specialised")


def test_kappa_star_limit_and_free_kappa_bad_input():
    inf = build_model("inflight", L="inf", kappa="kappa", mu=1, D=1)
    ks = kappa_star(inf, dps=DPS)
    assert ks.x_star == mpmath.mpf(1) / 2 and ks.to_json()["closed_form"] == "1/2"
    with pytest.raises(SymdelayInputError, match="no transition table"):
        kappa_star(inf, method="generic")
    with pytest.raises(SymdelayInputError, match="not a list"):
        build_model("inflight", L=2, kappa=["kappa", "1"])
    with pytest.raises(SymdelayInputError, match="not both"):
        build_model("inflight", L=2, kappa=["1", "1"], pattern="last")
    with pytest.raises(SymdelayInputError, match="kappa"):
        build_model("inflight", kappa=None)


def test_kappa_star_with_rates_beyond_doubles_answers(run_cli):
    """mu = 1e308: the double scan of the closed-factor path overflows (it then defers to the
    exact path) instead of an internal error; at L = 2 the closed form confirms the value."""
    import json

    status, out, err = run_cli("kappa-star", "--L", "2", "--mu", "1e308", "--dps", "15", "--json")
    assert status == 0, err
    rec = json.loads(out)
    g, m = mpmath.mpf(2), mpmath.mpf(10) ** 308
    with mpmath.workdps(30):
        closed = g**2 / (mpmath.sqrt(2 * g * (2 * g + m)) + g + m) ** 2
    assert abs(mpmath.mpf(rec["kappa_star"]) - closed) < closed * mpmath.mpf(10) ** -13
    assert rec["omega"] == []  # the turning point is the specialised path's, not the record's
