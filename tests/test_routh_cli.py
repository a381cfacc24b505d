"""CLI contracts of routh, stability and verify; bad input exits 2 with one line."""

from __future__ import annotations

import json

import pytest
import sympy as sp

from symdelay.parsing import parse_expression


def test_routh_json_contract(run_cli):
    status, out, _ = run_cli("routh", "s**4 + s**3 + 3*s**2 + 3*s + 3", "--var", "s", "--json")
    assert status == 0
    data = json.loads(out)
    assert data["table"][0] == ["1", "3", "3"] and data["table"][1] == ["1", "3"]
    assert data["stable"] is False and data["rhp_count"] == 2
    assert data["imaginary_axis_count"] == 0
    assert all(isinstance(c, str) for c in data["conditions"])


@pytest.mark.parametrize(
    ("poly", "rhp", "imag"), [("s**3 + s", 0, 3), ("(s**2 + 4)*(s + 1)*(s - 2)", 1, 2)]
)
def test_routh_json_zero_row(run_cli, poly, rhp, imag):
    status, out, _ = run_cli("routh", poly, "--json")
    data = json.loads(out)
    assert status == 0 and (data["rhp_count"], data["imaginary_axis_count"]) == (rhp, imag)
    assert data["auxiliary_polynomials"]


def test_routh_symbolic_json_and_text(run_cli):
    status, out, _ = run_cli("routh", "r**3 + mu*r**2 + gamma*r + lam", "--var", "r", "--json")
    data = json.loads(out)
    assert status == 0 and data["stable"] is None and data["rhp_count"] is None
    conds = [parse_expression(c) for c in data["conditions"]]
    assert sp.Symbol("mu") * sp.Symbol("gamma") - sp.Symbol("lam") in [c.lhs for c in conds]
    status, out, _ = run_cli("routh", "s**2 + 2*s + 1")
    assert status == 0 and "stable: True" in out and "s^2" in out


def test_stability_json_contract(run_cli):
    status, out, _ = run_cli("stability", "--L", "2", "--json")
    data = json.loads(out)
    assert status == 0 and data["L"] == 2
    crit = parse_expression(data["critical_lam_theta"])
    mu, gamma = sp.symbols("mu gamma")
    assert sp.simplify(crit - 2 * (mu + gamma) ** 2 / gamma) == 0
    assert data["conditions"] and data["oscillation_condition"]
    status, out, _ = run_cli("stability", "--L", "1", "--json")
    data = json.loads(out)
    assert data["critical_lam_theta"] is None and data["conditions"] == []
    assert "4*gamma*lam*theta" in data["oscillation_condition"]


def test_verify_json_contract(run_cli):
    status, out, _ = run_cli(
        "verify", "--L", "1", "--claim", "4*gamma*lam*theta > (mu-gamma)**2", "--json"
    )
    data = json.loads(out)
    assert status == 0
    assert set(data) >= {
        "L",
        "claim",
        "relation_to_stability",
        "relation_to_oscillation",
        "counterexample",
        "explanation",
    }
    assert data["relation_to_stability"] == "sufficient"
    assert data["relation_to_oscillation"] == "equivalent"
    assert {k: str(sp.Rational(v)) for k, v in data["counterexample"].items()} == data[
        "counterexample"
    ]


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["routh", "s**2 + exp(s)"], "not a polynomial"),
        (["routh", "7", "--var", "s"], "degree < 1"),
        (["routh", "s**2 + z"], "unknown symbol 'z'"),
        (["routh", "s**2 +"], "cannot parse"),
        (["stability", "--L", "0"], "L must be an integer >= 1"),
        (["verify", "--L", "1", "--claim", "mu + 1"], "not an inequality"),
        (["verify", "--L", "1", "--claim", "foo < 1"], "unknown symbol 'foo'"),
        (["verify", "--L", "1", "--claim", "mu <"], "cannot parse"),
        (["verify", "--L", "-1", "--claim", "mu < 1"], "L must be an integer >= 1"),
    ],
)
def test_bad_input_exit_2(run_cli, argv, words):
    status, out, err = run_cli(*argv)
    assert status == 2 and out == ""
    assert words in err and err.count("\n") == 1


@pytest.mark.parametrize("command", ["routh", "verify"])
def test_import_is_refused_and_runs_nothing(run_cli, tmp_path, command):
    target = tmp_path / "pwned"
    payload = f"__import__('pathlib').Path('{target}').touch()"
    argv = (
        ["routh", payload]
        if command == "routh"
        else ["verify", "--L", "1", "--claim", payload + " < 1"]
    )
    status, _, err = run_cli(*argv)
    assert status == 2 and "cannot use" in err
    assert not target.exists()
