"""CLI contracts of routh, stability and verify; bad input exits 2 with one line."""

from __future__ import annotations

import json

import pytest
import sympy as sp

from symdelay import routh_hurwitz
from symdelay.core.parsing import parse_expression, parse_output


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
    # theta of either sign: lam*theta > -mu; under theta >= 0 (the paper's domain) none
    assert data["critical_lam_theta"] is None and data["conditions"] == ["lam*theta > -mu"]
    assert data["closed_forms"]["conditions_under_assumptions"] == []
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
        (["routh", "s**2 + z.real"], "attribute access"),
        (["routh", "s**2 + I*s + 1"], "not real"),
        (["routh", "s**2 + exp*s + 1"], "'exp' is a function"),
        (["routh", "s**2 + s/0"], "division by zero"),
        (["routh", "s**2 + (s > 1)"], "cannot evaluate"),
        (["routh", "s**2 + 1", "--var", "pi"], "not a variable"),
        (["routh", "s**2 + 1", "--var", "2s"], "invalid variable name"),
        (["routh", "s**2 +"], "cannot parse"),
        (["stability", "--L", "0"], "L must be an integer >= 1"),
        (["verify", "--L", "1", "--claim", "mu + 1"], "not a relation"),
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


# ------------------------------------------------- coefficients beyond Q[symbols]
def _routh_json(run_cli, poly, var="s"):
    status, out, err = run_cli("routh", poly, "--var", var, "--json")
    assert status == 0 and err == ""
    return json.loads(out)


def test_routh_sqrt2_and_pi(run_cli):
    data = _routh_json(run_cli, "s**2 + sqrt(2)*s + 1")
    assert data["table"][1] == ["sqrt(2)"] and data["stable"] is True
    assert (data["rhp_count"], data["imaginary_axis_count"]) == (0, 0)
    data = _routh_json(run_cli, "s**3 + pi*s**2 + s + 3")  # pi*1 - 3 > 0
    assert data["stable"] is True
    data = _routh_json(run_cli, "s**3 + pi*s**2 + s + 22/7")  # pi - 22/7 < 0: two roots
    assert data["stable"] is False and data["rhp_count"] == 2
    assert parse_output(data["conditions"][1]).lhs == sp.pi - sp.Rational(22, 7)
    status, out, _ = run_cli("routh", "s**2 + sqrt(2)*s + 1")
    assert status == 0 and "stable: True" in out and "sqrt(2)" in out


@pytest.mark.parametrize("name", ["K", "a_1", "tau", "b_0", "Kp2"])
def test_routh_any_parameter_name(run_cli, name):
    data = _routh_json(run_cli, f"s**3 + 2*s**2 + {name}*s + 1")
    k = sp.Symbol(name)
    assert data["stable"] is None and data["rhp_count"] is None
    lhs = [parse_output(c).lhs for c in data["conditions"]]
    assert sp.expand(lhs[1] - (2 * k - 1)) == 0
    # the same as the Python API on the same text and on the SymPy object
    api = routh_hurwitz(f"s**3 + 2*s**2 + {name}*s + 1", "s")
    assert [str(c) for c in api.conditions] == data["conditions"]
    s = sp.Symbol("s")
    obj = routh_hurwitz(s**3 + 2 * s**2 + k * s + 1, s)
    assert obj.conditions == api.conditions
    status, out, _ = run_cli("routh", f"s**2 + {name}*s + 1")
    assert status == 0 and f"{name} > 0" in out and "depends on the symbols" in out


def test_routh_rational_function_coefficient(run_cli):
    data = _routh_json(run_cli, "s**2 + s/a + 1")
    assert data["multiplier"] == "a"
    a = sp.Symbol("a")
    conds = [parse_output(c) for c in data["conditions"]]
    for value in (-2, -sp.Rational(1, 3), sp.Rational(1, 3), 2):
        assert all(bool(c.subs(a, value)) for c in conds) is bool(value > 0)
    status, out, _ = run_cli("routh", "s**2 + s/a + 1")
    assert status == 0 and "multiplied by a" in out


def test_routh_canonical_names_stay_canonical(run_cli):
    from symdelay.core.symbols import gamma, lam

    data = _routh_json(run_cli, "s**2 + gamma*s + lam")
    assert {c for x in data["conditions"] for c in parse_output(x).free_symbols} == {gamma, lam}
