"""SQ(d) fixed point: Newton against the closed form, against long integration, Little's
law s_1 = lam, the proved tail bound, truncation, CLI contract and bad input."""

from __future__ import annotations

import json

import mpmath
import pytest

from symdelay.errors import SymdelayInputError
from symdelay.sqd import fixed_point, fluid
from symdelay.sqd.fixed_point import tail_bound
from symdelay.sqd.service import exponential, service_from_options

ERL2 = service_from_options("erlang", k=2)
H2 = service_from_options("hyperexp", probs="0.3,0.7", rates="0.5,2")
COX = service_from_options("coxian", rates="1,2,4", probs="0.5,0.25")


@pytest.mark.parametrize("d", [1, 2, 3, 5])
@pytest.mark.parametrize("lam", ["0.5", "0.9", "0.99"])
def test_newton_equals_closed_form(d, lam):
    if d == 1 and lam == "0.99":
        lam = "0.95"  # M/M/1: K ~ 1000 levels at 30 digits; keep the test short
    a = fixed_point(d, lam, dps=30, method="closed")
    b = fixed_point(d, lam, dps=30, method="newton")
    assert a.truncation == b.truncation
    with mpmath.workdps(40):
        worst = max(abs(x - y) for x, y in zip(a.tail, b.tail))
        assert worst < mpmath.mpf(10) ** -27
        assert abs(a.mean_sojourn - b.mean_sojourn) < mpmath.mpf(10) ** -26 * a.mean_sojourn
        # the sojourn series of the derivation, summed independently
        lamm = mpmath.mpf(lam.split("/")[0]) if "/" not in lam else None
        if d > 1:
            series = mpmath.nsum(lambda k: lamm ** ((d**k - d) / (d - 1)), [1, mpmath.inf])
            assert abs(series - a.mean_sojourn) < mpmath.mpf(10) ** -25


@pytest.mark.parametrize("svc", [ERL2, H2, COX], ids=["erlang2", "hyperexp", "coxian"])
def test_newton_vs_long_integration(svc):
    fp = fixed_point(2, "0.8", svc, dps=20)
    tr = fluid(2, "0.8", svc, T=600, K=fp.truncation, points=3)
    end = tr.tail[-1]
    assert max(abs(float(fp.tail[k]) - end[k]) for k in range(fp.truncation)) < 1e-7


@pytest.mark.parametrize("svc", [ERL2, H2, COX], ids=["erlang2", "hyperexp", "coxian"])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_little_law_and_tail_bound(svc, d):
    fp = fixed_point(d, "0.85", svc, dps=25)
    with mpmath.workdps(30):
        assert abs(fp.tail[0] - mpmath.mpf("0.85")) < mpmath.mpf(10) ** -22
    b = tail_bound(svc, d, "0.85", fp.truncation)
    assert all(float(s) <= bk * (1 + 1e-12) for s, bk in zip(fp.tail, b))
    assert fp.error < mpmath.mpf(10) ** -24
    # the bound decays (proved truncation) unless d = 1 and lam r_max >= 1
    assert ("a-posteriori" in fp.method) == (d == 1 and svc is H2)


def test_exponential_bound_is_the_exact_recursion():
    b = tail_bound(exponential(), 2, "0.9", 6)
    fp = fixed_point(2, "0.9", dps=20)
    assert max(abs(x - float(y)) for x, y in zip(b, fp.tail)) < 1e-15


def test_more_service_variability_longer_sojourn():
    t = [fixed_point(2, "0.9", s).mean_sojourn for s in (ERL2, exponential(), H2)]
    assert t[0] < t[1] < t[2]


def test_cli_contract(run_cli):
    status, out, _ = run_cli(
        "sqd",
        "fixed-point",
        "--d",
        "2",
        "--lam",
        "0.9",
        "--service",
        "erlang",
        "--k",
        "2",
        "--json",
    )
    assert status == 0
    rec = json.loads(out)
    for key in (
        "d",
        "lam",
        "service",
        "tail",
        "mean_queue",
        "mean_sojourn",
        "closed_form",
        "truncation",
    ):
        assert key in rec
    assert rec["d"] == 2 and rec["lam"] == "0.9" and rec["closed_form"] is None
    assert rec["truncation"] == len(rec["tail"])
    status, out, _ = run_cli("sqd", "fixed-point", "--d", "3", "--lam", "0.5", "--json")
    rec = json.loads(out)
    assert rec["closed_form"] == "lam**(3**k/2 - 1/2)" or "3**k" in rec["closed_form"]


@pytest.mark.parametrize(
    "argv,words",
    [
        (["--lam", "1"], "unstable"),
        (["--lam", "1.2"], "unstable"),
        (["--d", "0"], "d must be"),
        (["--d", "2.5"], "d must be"),
        (["--service", "ph", "--alpha", "0.5,0.4", "--S", "[[-1,0],[0,-2]]"], "sum to 1"),
        (["--service", "ph", "--alpha", "1,0", "--S", "[[-1,2],[0,-2]]"], "sub-generator"),
        (["--service", "erlang"], "--k"),
        (["--lam", "0.6", "--mean", "2"], "unstable"),
    ],
)
def test_bad_input_one_line(run_cli, argv, words):
    status, out, err = run_cli("sqd", "fixed-point", *argv)
    assert status == 2 and out == ""
    assert err.startswith("symdelay: error:") and err.count("\n") == 1 and words in err


def test_python_bad_input():
    with pytest.raises(SymdelayInputError):
        fixed_point(2, "nan")
    with pytest.raises(SymdelayInputError):
        fixed_point(2, "0.5", method="closed", service=ERL2)
