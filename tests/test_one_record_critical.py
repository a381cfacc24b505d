"""One record per quantity for the critical curve, windows, the worst delay and extrema:
the specialised path (the founding model's Hopf parametrisation, the in-flight model's exact
crossing curve) and the generic path (exact crossings of the transition table's factors)
give the same key set and the same values to the digits asked
(:func:`_parity.assert_same_record`; only the key naming the path, ``method``, may differ).
The generic path needs a transition table: at ``L = inf`` it refuses, in one line, and the
specialised path alone answers (checked below)."""

from __future__ import annotations

import pytest
from _parity import assert_same_record

from symdelay.analysis.critical import critical
from symdelay.analysis.window import extremum, kappa_star, window, worst_delay
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model
from symdelay.models.inflight.model import InflightModel

DS = ["1/4", "1", "2.5", "7"]


def _both(entry, model, *args, **kw):
    fast = entry(model, *args, method="specialised", **kw)
    slow = entry(model, *args, method="generic", **kw)
    assert (fast.method, slow.method) == ("specialised", "generic")
    return fast, slow


# ------------------------------------------------------------------------ the founding model
@pytest.mark.parametrize("L", [1, 2, 3, 5, 7])
@pytest.mark.parametrize("dps", [15, 30])
def test_critical(L, dps):
    m = build_model("erlang", L=L, mu="1.3", lam="0.7")
    fast, slow = _both(critical, m, at=DS, dps=dps)
    assert_same_record(fast, slow, dps)
    # the family's closed forms come along on both paths, equal (2 <= L <= 5)
    forms = fast.to_json()["closed_forms"]
    assert (forms["theta_c_of_D"] is not None) == (2 <= L <= 5)


def test_critical_at_the_models_own_delay():
    m = build_model("erlang", L=3, mu=1, lam=1, D="0.5")
    fast, slow = _both(critical, m)
    assert_same_record(fast, slow, 15)
    assert fast.to_json()["points"][0]["D"] is None


@pytest.mark.parametrize("L", [1, 2, 3, 5])
@pytest.mark.parametrize("theta", ["5", "40", "-3", "-1/2"])
def test_window_in_D(L, theta):
    m = build_model("erlang", L=L, mu=1, lam=1, theta=theta)
    fast, slow = _both(window, m, "D")
    assert_same_record(fast, slow, 15)
    ends = [e for iv in fast.to_json()["ends"] for e in (iv["lo"], iv["hi"])]
    assert all(bool(e["omega"]) == (e["kind"] == "r = i omega") for e in ends)
    if L == 3 and theta == "5":  # a bounded window: both ends are crossings
        assert [e["kind"] for e in ends] == ["r = i omega"] * 2


@pytest.mark.parametrize("L", [1, 2, 3, 5])
def test_worst_delay_and_extremum(L):
    m = build_model("erlang", L=L, mu="1.5", lam="0.5")
    fast, slow = _both(worst_delay, m)
    assert_same_record(fast, slow, 15)
    rec = fast.to_json()
    assert {"L", "D_star", "theta_star", "closed_form"} <= set(rec)  # the contract
    if L >= 2:
        assert set(rec["closed_form"]) == {"D_star", "theta_star"}
    # the generic extremum (the same question asked as min over D) is the same record
    assert_same_record(fast, extremum(m, "D", kind="min", method="generic"), 15)


def test_L_inf_has_only_the_specialised_path():
    """The generic path cannot answer without a transition table: it says so."""
    for entry, kw in (
        (critical, {"at": ["1.5"]}),
        (worst_delay, {}),
    ):
        m = build_model("erlang", L="inf", mu=1, lam=2)
        assert entry(m, method="specialised", **kw).to_json()["L"] == "inf"
        with pytest.raises(SymdelayInputError, match="transition table"):
            entry(m, method="generic", **kw)
    m = build_model("erlang", L="inf", mu=1, lam=2, theta=3)
    assert window(m, "D", method="specialised").to_json()["intervals"][0][1] == "inf"
    with pytest.raises(SymdelayInputError, match="transition table"):
        window(m, "D", method="generic")


# --------------------------------------------------------------------------- the in-flight model
@pytest.mark.parametrize(
    ("L", "kappa", "pattern"), [(2, "0.05", "all"), (3, "0.1", "all"), (3, "0.4", "last")]
)
def test_inflight_window_in_theta(L, kappa, pattern):
    m = InflightModel(L=L, kappa=kappa, pattern=pattern, mu=1, lam=1, D=1)
    fast, slow = _both(window, m, "theta", lo=0)
    assert_same_record(fast, slow, 15)


@pytest.mark.parametrize(("L", "pattern"), [(2, "all"), (3, "all"), (3, "last")])
def test_inflight_kappa_star(L, pattern):
    m = InflightModel(L=L, kappa="kappa", pattern=pattern, mu=1, lam=1, D=1)
    fast, slow = _both(kappa_star, m, dps=20)
    assert_same_record(fast, slow, 20)
    forms = fast.to_json()["closed_form"]
    assert (forms is not None) == (L == 2 and pattern == "all")  # kappa*: a string or null


def test_inflight_L_inf_kappa_star_only_specialised():
    m = InflightModel(L="inf", kappa="kappa", mu=1, lam=1, D=1)
    assert kappa_star(m, method="specialised").to_json()["kappa_star"].startswith("0.5")
    with pytest.raises(SymdelayInputError, match="transition table"):
        kappa_star(m, method="generic")
