"""symdelay lb: JSON contracts and one-line refusals."""

from __future__ import annotations

import json

import mpmath
import pytest

S = "N=50,mu=1;N=100,mu=0.5"


def test_diffusion_json_contract(run_cli):
    status, out, err = run_cli(
        "lb", "diffusion", "--stations", S, "--beta", "0.5", "--xi", "2", "--c", "1,1",
        "--d", "1,1", "--json",
    )  # fmt: skip
    assert status == 0, err
    rec = json.loads(out)
    assert {"p_wait", "mean_queue_scaled", "stations", "closed_form"} <= set(rec)
    assert {"utilisation", "idle_share", "mean_delay_scaled"} <= set(rec["stations"][0])
    # identical rates and a = 1: the classical value, re-evaluated from the closed form text
    b = mpmath.mpf("0.5")
    assert mpmath.almosteq(mpmath.mpf(rec["p_wait"]), 1 / (1 + b * mpmath.ncdf(b) / mpmath.npdf(b)))
    import sympy as sp

    beta = sp.Symbol("beta", positive=True)
    cf = sp.sympify(rec["closed_form"]["p_wait"], locals={"beta": beta}).subs(
        beta, sp.Rational(1, 2)
    )
    assert abs(float(cf) - float(rec["p_wait"])) < 1e-14


def test_simulate_json_contract(run_cli):
    status, out, err = run_cli(
        "lb", "simulate", "--stations", S, "--lam", "90", "--xi-dist", "2:1", "--c", "1,2",
        "--d", "1,1", "--T", "300", "--seed", "1", "--json",
    )  # fmt: skip
    assert status == 0, err
    rec = json.loads(out)
    assert {"parameters", "states", "t", "x1", "x2", "info", "events"} <= set(rec)
    assert "backend" in rec["info"]  # the estimates at the top level (issue 12's contract)
    assert {"p_wait", "p_wait_ci95", "mean_wait", "mean_wait_ci95", "stations"} <= set(rec)
    lo, hi = rec["p_wait_ci95"]
    assert lo <= rec["p_wait"] <= hi and rec["events"] > 10000
    assert all(s["utilisation_ci95"][0] <= s["utilisation"] for s in rec["stations"])
    assert len(rec["stations"]) == 2 and len(rec["x1"]) == len(rec["t"]) == 21
    assert rec["parameters"]["n"] == 150 and rec["parameters"]["lam"] == "90"


def test_design_json_contract(run_cli):
    status, out, err = run_cli(
        "lb", "design", "--stations", S, "--beta", "1", "--target", "equal-delay", "--json"
    )
    assert status == 0, err
    rec = json.loads(out)
    assert {"c", "d", "predicted"} <= set(rec) and rec["c"] == ["1", "1"]


@pytest.mark.parametrize(
    "argv,words",
    [
        (["simulate", "--stations", S, "--lam", "100", "--T", "5"], "capacity"),
        (["diffusion", "--stations", S, "--beta", "0"], "beta"),
        (["diffusion", "--stations", S, "--beta", "1", "--xi-dist", "1:1"], "P(xi >= 2) = 0"),
        (["diffusion", "--stations", S, "--beta", "1", "--xi", "3"], "exceeds"),
        (["diffusion", "--stations", S, "--beta", "1", "--c=-1,1"], "positive"),
        (["diffusion", "--stations", S, "--beta", "1", "--d", "0,1"], "positive"),
        (["diffusion", "--stations", "N=0,mu=1;N=3,mu=1", "--beta", "1"], "servers"),
        (["fluid", "--stations", S, "--lam", "1"], "capacity"),
        (["design", "--stations", S, "--beta", "1", "--target", "delay-ratio"], "ratio"),
    ],
)
def test_bad_input_one_line(run_cli, argv, words):
    status, out, err = run_cli("lb", *argv)
    assert status == 2 and out == ""
    assert err.startswith("symdelay: error: ") and err.count("\n") == 1 and words in err
