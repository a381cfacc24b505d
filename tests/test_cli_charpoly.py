"""``symdelay charpoly`` JSON contract, checked against independent determinants."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import sympy as sp

from symdelay.core.symbols import D, L, gamma, lam, mu, r, theta
from symdelay.founding import ActionDelayModel

NAMES = {"r": r, "mu": mu, "gamma": gamma, "lam": lam, "theta": theta, "L": L, "D": D}


def _parse(text):
    return sp.sympify(text, locals=NAMES)


@pytest.mark.parametrize("n", [1, 5])
def test_charpoly_json_equals_determinant(run_cli, n):
    status, out, err = run_cli("charpoly", "--L", str(n), "--json")
    assert status == 0 and err == ""
    rec = json.loads(out)
    assert {"L", "polynomial", "latex"} <= set(rec) and rec["L"] == n  # the contract
    assert [f["mode"] for f in rec["factors"]] == ["sum", "difference"]
    prod = sp.Mul(*[_parse(f["factor"]) ** f["multiplicity"] for f in rec["factors"]])
    full = ActionDelayModel(L=n).jacobian().charpoly(r).as_expr()
    assert sp.expand(prod - full) == 0  # the factors by mode multiply to det(rI - J)
    J = ActionDelayModel(L=n).difference_jacobian()
    det = (r * sp.eye(n + 1) - J).det(method="berkowitz")
    assert sp.expand(_parse(rec["polynomial"]) - det) == 0


def test_charpoly_general_L(run_cli):
    rec = json.loads(run_cli("charpoly", "--L", "L", "--json")[1])
    P = _parse(rec["polynomial"])
    for n in (2, 4):
        J = ActionDelayModel(L=n).difference_jacobian()
        assert sp.expand(P.subs(L, n) - J.charpoly(r).as_expr()) == 0


def test_charpoly_inf(run_cli):
    rec = json.loads(run_cli("charpoly", "--L", "inf", "--json")[1])
    assert rec["L"] == "inf"
    eq = _parse(rec["equation"])
    # the characteristic equation of x' = -mu x - lam theta x(t - D) by the ansatz e^{rt}
    t = sp.Symbol("t")
    ansatz = sp.diff(sp.exp(r * t), t) + mu * sp.exp(r * t) + lam * theta * sp.exp(r * (t - D))
    assert sp.simplify(eq - ansatz / sp.exp(r * t)) == 0


def test_charpoly_full(run_cli):
    rec = json.loads(run_cli("charpoly", "--L", "2", "--full", "--json")[1])
    P = _parse(rec["polynomial"])
    assert isinstance(P, sp.Mul)  # printed factored
    J = ActionDelayModel(L=2).jacobian()
    assert sp.expand(P - J.charpoly(r).as_expr()) == 0


def test_charpoly_numeric_parameters(run_cli):
    rec = json.loads(
        run_cli(
            "charpoly",
            "--L",
            "3",
            "--mu",
            "1",
            "--lam",
            "0.5",
            "--theta",
            "2",
            "--D",
            "1.5",
            "--json",
        )[1]
    )
    J = ActionDelayModel(L=3, mu=1, lam="1/2", theta=2, D="3/2").difference_jacobian()
    assert sp.expand(_parse(rec["polynomial"]) - J.charpoly(r).as_expr()) == 0
    assert _parse(rec["polynomial"]).free_symbols == {r}


def test_console_script_runs():
    proc = subprocess.run(
        [sys.executable, "-m", "symdelay", "charpoly", "--L", "1", "--json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(proc.stdout)["L"] == 1
