"""Model files: the shipped examples, the CLI faces, and one clear line for each bad file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp
from conftest import require_pdflatex

from symdelay.core.errors import SymdelayInputError
from symdelay.model import load_toml
from symdelay.models import build_model

EXAMPLES = sorted(Path("examples/models").glob("*.toml"))

GOOD = """
name = "m"
[parameters]
mu = "positive"
lam = "positive"
[state]
names = ["q1", "q2"]
[[transitions]]
name = "in 1"
change = { q1 = 1 }
rate = "lam"
[[transitions]]
name = "in 2"
change = { q2 = 1 }
rate = "lam"
[[transitions]]
name = "out 1"
change = { q1 = -1 }
rate = "mu*q1"
[[transitions]]
name = "out 2"
change = { q2 = -1 }
rate = "mu*q2"
[symmetry]
swap = [["q1", "q2"]]
"""


def write(tmp_path, text, name="m.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_examples_ship_three_models():
    assert len(EXAMPLES) >= 3


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_each_example_runs_through_analyze(path, run_cli):
    status, out, err = run_cli("analyze", str(path), "--json")
    assert status == 0, err
    rec = json.loads(out)
    assert set(rec) >= {
        "name",
        "state",
        "parameters",
        "equilibrium",
        "jacobian",
        "charpoly",
        "factors",
        "stability",
    }
    m = load_toml(path)
    # the printed polynomial parses back and equals the product of the printed factors
    names = {s.name: s for s in m.free_parameters} | {"r": sp.Symbol("r")}
    total = sp.sympify(rec["charpoly"], locals=names)
    prod = sp.Mul(
        *[sp.sympify(f["factor"], locals=names) ** f["multiplicity"] for f in rec["factors"]]
    )
    assert sp.expand(total - prod) == 0
    assert rec["stability"]["stable"] in (True, False, None)


def test_inflight_example_matches_builtin():
    m = load_toml("examples/models/inflight_erlang1.toml", kappa=1)
    b = build_model("inflight", L=1, kappa=1)
    assert sp.expand(m.charpoly.subs(sp.Symbol("gamma"), sp.Symbol("gamma")) - b.charpoly) == 0


BAD = {
    "missing name": (GOOD.replace('name = "m"\n', "", 1), "missing key 'name'"),
    "unknown name in a rate": (
        GOOD.replace('rate = "mu*q1"', 'rate = "nu*q1"'),
        "unknown name 'nu'",
    ),
    "change names unknown state": (
        GOOD.replace("change = { q1 = -1 }", "change = { q3 = -1 }"),
        "unknown state 'q3'",
    ),
    "negative rate": (GOOD.replace('rate = "mu*q1"', 'rate = "mu*(q1 - 5)"'), "negative"),
    "symmetry not held": (GOOD.replace('rate = "mu*q2"', 'rate = "2*mu*q2"'), "symmetry"),
    "unknown domain": (GOOD.replace('mu = "positive"', 'mu = "big"'), "domain"),
    "not TOML": ("name = ", "not valid TOML"),
    "missing rate": (GOOD.replace('rate = "lam"\n', "", 1), "missing key 'rate'"),
    "code in a rate": (
        GOOD.replace('rate = "lam"', "rate = \"__import__('os')\"", 1),
        "cannot use",
    ),
    "no equilibrium": (
        GOOD.replace('rate = "mu*q1"', 'rate = "mu"').replace('rate = "mu*q2"', 'rate = "mu"'),
        "equilibrium",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_file_gets_one_line_naming_file_and_entry(case, tmp_path, run_cli):
    text, words = BAD[case]
    path = write(tmp_path, text)
    with pytest.raises(SymdelayInputError) as info:
        m = load_toml(path)
        m.to_json()
    msg = str(info.value)
    assert "\n" not in msg and str(path) in msg and words in msg, msg
    status, out, err = run_cli("analyze", str(path), "--json")
    assert status == 2 and out == ""
    assert err.startswith("symdelay: error: ") and err.count("\n") == 1 and words in err


def test_missing_file(run_cli):
    status, _, err = run_cli("analyze", "/nonexistent/model.toml")
    assert status == 2 and "no such model file" in err


def test_models_json_contract(run_cli):
    status, out, _ = run_cli("models", "--json")
    rec = json.loads(out)
    assert status == 0 and {"erlang", "phase_type", "nserver", "hetero", "inflight"} <= {
        r["name"] for r in rec
    }
    assert all(set(r) == {"name", "parameters", "description"} for r in rec)


def test_charpoly_factors_for_nserver(run_cli):
    status, out, err = run_cli("analyze", "--model", "nserver", "--N", "4", "--L", "2", "--json")
    assert status == 0, err
    f = json.loads(out)["factors"]
    assert [x["multiplicity"] for x in f if x["mode"].startswith("difference")] == [3]


def test_bad_phase_type_options(run_cli):
    status, _, err = run_cli(
        "analyze", "--model", "phase_type", "--delay", "hyperexp", "--rates", "1,2"
    )
    assert status == 2 and "--probs" in err
    status, _, err = run_cli(
        "analyze", "--model", "phase_type", "--delay", "ph", "--alpha", "1,0", "--S", "[[-2,1],[0]]"
    )
    assert status == 2 and "square" in err
    status, _, err = run_cli("analyze", "--model", "nosuch")
    assert status == 2 and "unknown model" in err


def test_analyze_tex_compiles(tmp_path, run_cli):
    require_pdflatex()
    out = tmp_path / "hyper.tex"
    status, _, err = run_cli("analyze", "examples/models/hyperexp_delay.toml", "--tex", str(out))
    assert status == 0, err
    text = out.read_text()
    assert r"\text{False}" not in text and r"\text{True}" not in text
    proc = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", out.name],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout[-2000:]


def test_cli_module_runs_as_a_new_user_would():
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "symdelay",
            "analyze",
            "--model",
            "inflight",
            "--L",
            "1",
            "--kappa",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "difference" in proc.stdout


def test_charpoly_model_contract(run_cli):
    status, out, err = run_cli(
        "charpoly", "--model", "nserver", "--N", "4", "--L", "2", "--full", "--json"
    )
    assert status == 0, err
    rec = json.loads(out)
    assert {"factor", "multiplicity", "mode"} <= set(rec["factors"][0])
    r = sp.Symbol("r")
    names = {n: sp.Symbol(n) for n in ("mu", "lam", "theta", "gamma")} | {"r": r}
    total = sp.sympify(rec["polynomial"], locals=names)
    prod = sp.Mul(
        *[sp.sympify(f["factor"], locals=names) ** f["multiplicity"] for f in rec["factors"]]
    )
    assert sp.expand(total - prod) == 0 and sp.degree(total, r) == 12
    # the founding model keeps its keys and gains the factors with --full
    status, out, _ = run_cli("charpoly", "--L", "3", "--full", "--json")
    rec = json.loads(out)
    assert {"L", "polynomial", "latex", "factors"} <= set(rec)
    # --L has the family's default (2); --mu takes effect (the polynomial at mu = 1)
    status, out, err = run_cli("charpoly", "--mu", "1", "--json")
    rec = json.loads(out)
    assert status == 0 and rec["L"] == 2 and "mu" not in rec["polynomial"]


def test_analyze_delay_differential_model(run_cli):
    status, out, err = run_cli(
        "analyze", "--model", "dde", "--mu", "1", "--lam", "1", "--theta", "2", "--D", "1", "--json"
    )
    assert status == 0, err
    rec = json.loads(out)
    eq = sp.sympify(rec["characteristic_function"], locals={"r": sp.Symbol("r")})
    assert sp.simplify(eq - (sp.Symbol("r") + 1 + 2 * sp.exp(-sp.Symbol("r")))) == 0
    status, _, err = run_cli("analyze", "--model", "dde", "--tex", "/tmp/x.tex")
    assert status == 2 and "--tex" in err


def test_model_json_latex_matches_the_formulas(run_cli):
    from symdelay import parse_output, tex

    status, out, err = run_cli("analyze", "--model", "nserver", "--N", "3", "--L", "2", "--json")
    assert status == 0, err
    rec = json.loads(out)
    for f in rec["factors"]:
        assert f["latex"] == tex(parse_output(f["factor"]))
        assert "lam" not in f["latex"].replace("\\lambda", "")
    conds = rec["stability"]["conditions"]
    assert [tex(parse_output(c)) for c in conds] == rec["stability"]["conditions_latex"]
