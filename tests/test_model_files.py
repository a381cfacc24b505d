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


def test_analyze_delay_differential_model(run_cli, tmp_path):
    status, out, err = run_cli(
        "analyze", "--model", "dde", "--mu", "1", "--lam", "1", "--theta", "2", "--D", "1", "--json"
    )
    assert status == 0, err
    rec = json.loads(out)
    r = sp.Symbol("r")
    diff = next(f for f in rec["factors"] if f["mode"] == "difference")["factor"]
    eq = sp.sympify(diff, locals={"r": r})
    assert sp.simplify(eq - (r + 1 + 2 * sp.exp(-r))) == 0
    assert rec["stability"]["verdict"] == "stable" and rec["lags"]["tau"]["kind"] == "constant"
    # the derivation of a delay model: its lag, delay equations and, with parameters free,
    # the stability conditions of the family's closed forms (Hayes' region)
    status, _, err = run_cli("analyze", "--model", "dde", "--tex", str(tmp_path / "x.tex"))
    assert status == 0, err
    text = (tmp_path / "x.tex").read_text()
    assert "Stable exactly when" in text and r"\arccos" in text


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


# ------------------------------------------------------------- the sign of every rate
ONE_STATE = """
name = "one queue"
[parameters]
lam = "positive"
mu = "positive"
p = "probability"
theta = "real"
[state]
names = ["q"]
[[transitions]]
name = "arrival"
change = { q = 1 }
rate = "RATE"
ASSERT
[[transitions]]
name = "service"
change = { q = -1 }
rate = "mu*q"
"""


def one_state(tmp_path, rate, asserted=False):
    text = ONE_STATE.replace("RATE", rate)
    text = text.replace("ASSERT", "assume_nonnegative = true" if asserted else "")
    return write(tmp_path, text)


#: rates negative somewhere on q >= 0 (lam, mu > 0, 0 <= p <= 1, theta real); several
#: negative only far out or on a sliver that sampling misses
NEGATIVE = [
    "lam*(1 - q/10**12)",  # the issue's: negative for q > 10^12
    "lam - 2*q",
    "lam*(q - 1)*(q - 1 - 1/10**6)",  # negative on (1, 1 + 10^-6) only
    "lam*(q - 1)**2 - mu/10**9",  # negative near q = 1 when mu is small against lam
    "sqrt(q) - 1",
    "lam - mu*q",
    "lam*(p - 1/2)",
    "theta*q",  # theta may be negative
    "lam*(exp(-q) - 2)",  # an exponential, bounded: negative everywhere
    "lam*(1/(1 + q) - 1/2)",
]

#: rates >= 0 wherever they are defined, each for a reason the decision must find
NONNEGATIVE = [
    "2*lam*exp(-theta*q)/(exp(-theta*q) + exp(-theta*(lam - q)))",  # logit routing
    "lam*(q**2 - 3*q + 3)",  # no real root: nlsat, not term signs
    "lam*(1 - q/(1 + q))",
    "mu*q*exp(-theta*q)",  # a positive exponential times a decidable factor
    "sqrt(lam - q)",  # wherever it is real
    "Abs(q - lam)",
    "lam*tanh(q)",  # tanh has the sign of its argument
    "lam*(cos(q) + 1)",
    "lam*(exp(q) - q - 1/2)",  # exp(q) >= 1 + q
    "p*(1 - p)*lam",
    "lam*exp(-exp(-exp(q)))",
    "(lam - q)**2",
]


def _negative_at(rate: str, witness: str) -> bool:
    """The rate at the printed point, in 50-digit arithmetic (an independent check)."""
    import mpmath

    from symdelay.core.parsing import parse_expression

    expr = parse_expression(rate, ["q", "lam", "mu", "p", "theta"])
    point = {}
    for item in witness.split(", "):
        name, value = item.split("=")
        point[sp.Symbol(name)] = sp.Rational(value)
    with mpmath.workdps(50):
        return sp.N(expr.xreplace(point), 50) < 0


@pytest.mark.parametrize("rate", NEGATIVE)
def test_a_rate_negative_somewhere_is_refused_with_a_point_where_it_is(tmp_path, run_cli, rate):
    import re

    path = one_state(tmp_path, rate)
    status, out, err = run_cli("analyze", str(path))
    assert status == 2 and out == "" and err.count("\n") == 1, err
    m = re.search(r"is negative at (.*): a rate must be >= 0", err)
    assert m and "transition 'arrival'" in err, err
    assert _negative_at(rate, m.group(1))
    # and asserting it does not make it so
    status, _, err = run_cli("analyze", str(one_state(tmp_path, rate, asserted=True)))
    assert status == 2 and "is negative at" in err


@pytest.mark.parametrize("rate", NONNEGATIVE)
def test_a_rate_nonnegative_on_the_state_space_is_accepted(rate):
    from symdelay.model import Model

    m = Model(
        "one queue",
        ["q"],
        {"lam": "positive", "mu": "positive", "p": "probability", "theta": "real"},
        [("arrival", {"q": 1}, rate), ("service", {"q": -1}, "mu*q")],
    )
    assert m.assumed_nonnegative == ()


#: rates >= 0 that the relaxations cannot show, or that have no real-arithmetic form
UNDECIDED = [
    ("lam*(2 - 4*q*exp(-q))", "exp replaced by bounds"),  # q e^-q <= 1/e < 1/2
    ("lam*q**theta", "exponent that is not a number"),
    ("lam*(3/2 + sin(q) + cos(q))", "replaced by bounds"),  # sin + cos >= -sqrt(2)
]


@pytest.mark.parametrize(("rate", "why"), UNDECIDED)
def test_an_undecided_rate_is_refused_in_one_line_unless_asserted(tmp_path, run_cli, rate, why):
    status, _, err = run_cli("analyze", str(one_state(tmp_path, rate)))
    assert status == 2 and err.count("\n") == 1, err
    assert "cannot decide that it is >= 0 on the state space" in err and why in err
    assert "assume_nonnegative = true" in err
    m = load_toml(one_state(tmp_path, rate, asserted=True))
    assert m.assumed_nonnegative == ("arrival",)


def test_an_assertion_names_a_transition_and_is_true_or_false(tmp_path):
    from symdelay.model import Model

    with pytest.raises(SymdelayInputError, match="assume_nonnegative names no transition 'x'"):
        Model("m", ["q"], {"a": "positive"}, [("in", {"q": 1}, "a")], assume_nonnegative=["x"])
    path = write(
        tmp_path, ONE_STATE.replace("RATE", "lam").replace("ASSERT", "assume_nonnegative = 1")
    )
    with pytest.raises(SymdelayInputError, match="assume_nonnegative must be true or false"):
        load_toml(path)


def test_a_rate_shape_is_decided_once(monkeypatch):
    """200 delay phases share one shape (gamma*z), beside the logit arrivals and the
    service: a handful of decisions, not one per transition."""
    import symdelay.model.core as core
    import symdelay.model.signs as signs

    calls = []
    real = signs.nonnegative_on

    def counted(expr, *a, **k):
        calls.append(expr)
        return real(expr, *a, **k)

    monkeypatch.setattr(signs, "nonnegative_on", counted)
    monkeypatch.setattr(core, "_RATE_DECISIONS", {})
    m = build_model("erlang", L=100)
    assert len(m.transitions) == 204
    assert 0 < len(calls) <= 6, calls


# ------------------------------------------------------------- equilibria that zero the drift
SQRT_ARRIVALS = [
    # (arrival rate, the closed-form equilibrium q* of arrival = mu*q, derived by hand)
    ("sqrt(lam - q)", "(sqrt(4*lam*mu**2 + 1) - 1)/(2*mu**2)"),  # the model
    ("sqrt(lam + q)", "(sqrt(4*lam*mu**2 + 1) + 1)/(2*mu**2)"),
    ("sqrt(lam*q + 1)", "(lam + sqrt(lam**2 + 4*mu**2))/(2*mu**2)"),
    # real only for lam < 2 mu (none otherwise): zero wherever it is defined
    ("sqrt(1 + lam**2*q**2/4)", "2/sqrt(4*mu**2 - lam**2)"),
]


@pytest.mark.parametrize(("rate", "closed"), SQRT_ARRIVALS)
def test_a_radical_equilibrium_is_certified_and_zeroes_the_drift(run_cli, tmp_path, rate, closed):
    """The printed equilibrium is exact, and at random rational parameters it zeroes the
    drift to 60 digits (mpmath, an independent evaluation) and equals the hand-derived
    closed form."""
    import mpmath

    path = one_state(tmp_path, rate)
    status, out, err = run_cli("analyze", str(path), "--json")
    assert status == 0, err
    rec = json.loads(out)
    assert rec["equilibrium_exact"] is True
    names = {n: sp.Symbol(n) for n in ("lam", "mu", "p", "theta")}
    q = sp.sympify(rec["equilibrium"]["q"], locals=names)
    want = sp.sympify(closed, locals=names)
    rate_expr = sp.sympify(rate, locals={**names, "q": sp.Symbol("q")})
    for lam_, mu_ in [(sp.Rational(7, 3), 2), (sp.Rational(1, 9), sp.Rational(2, 5)), (5, 3)]:
        at = {names["lam"]: lam_, names["mu"]: mu_}
        with mpmath.workdps(60):
            qv = sp.N(q.xreplace(at), 60)
            assert abs(qv - sp.N(want.xreplace(at), 60)) < 1e-50
            drift = sp.N(rate_expr.xreplace({**at, sp.Symbol("q"): q.xreplace(at)}), 60)
            assert abs(drift - mu_ * qv) < 1e-50


def test_the_same_model_with_numbers_is_exact_too(run_cli, tmp_path):
    path = one_state(tmp_path, "sqrt(lam - q)")
    status, out, err = run_cli("analyze", str(path), "--set", "lam=2", "--set", "mu=1", "--json")
    assert status == 0, err
    rec = json.loads(out)
    assert rec["equilibrium_exact"] is True and sp.sympify(rec["equilibrium"]["q"]) == 1


def test_an_undecided_equilibrium_check_is_one_line_and_numbers_go_numeric(
    run_cli, tmp_path, monkeypatch
):
    """Where the check of a closed form cannot be decided: one line naming the parameters
    to give; with them, Newton and the Krawczyk test find the same point."""
    import symdelay.model.equilibrium as eq

    path = one_state(tmp_path, "sqrt(lam - q)")
    monkeypatch.setattr(eq, "_is_zero", lambda *a, **k: None)
    status, _, err = run_cli("analyze", str(path))
    assert status == 2 and err.count("\n") == 1, err
    assert "cannot decide that the closed-form equilibrium" in err and "give numbers for" in err
    status, out, err = run_cli("analyze", str(path), "--set", "lam=2", "--set", "mu=1", "--json")
    assert status == 0, err
    rec = json.loads(out)
    assert rec["equilibrium_exact"] is False and abs(float(rec["equilibrium"]["q"]) - 1) < 1e-25


def test_a_symmetry_holds_when_the_rates_are_equal_as_functions(tmp_path):
    """The swap maps sqrt(q1^2 + 2 q1 + 1) onto q2 + 1 on q >= 0 (equal there, not as
    formulas); sqrt(q1^2 + 2 q1 + 2) it does not."""
    base = GOOD.replace('rate = "lam"', 'rate = "RATE1"', 1)
    base = base.replace('rate = "lam"', 'rate = "lam*(q2 + 1)"', 1)
    ok = load_toml(write(tmp_path, base.replace("RATE1", "lam*sqrt(q1**2 + 2*q1 + 1)")))
    assert ok.permutation is not None
    with pytest.raises(SymdelayInputError, match="symmetry"):
        load_toml(write(tmp_path, base.replace("RATE1", "lam*sqrt(q1**2 + 2*q1 + 2)"), "b.toml"))


# ------------------------------------------------------------- the decisions themselves
X, LAM = sp.symbols("x lam")
POS = {X: "positive", LAM: "positive"}
REAL = {X: "real", LAM: "real"}

#: (expression, domains, zero wherever defined?): identities, and expressions a hair away
#: from one (10^-40 off, or off only where a sign matters)
ZEROES = [
    (sp.sqrt(2) + sp.sqrt(3) - sp.sqrt(5 + 2 * sp.sqrt(6)), {}, True),
    (sp.sqrt(2) + sp.sqrt(3) - sp.sqrt(5 + 2 * sp.sqrt(6)) + sp.Rational(1, 10**40), {}, False),
    (sp.sqrt(LAM**2) - LAM, POS, True),
    (sp.sqrt(LAM**2) - LAM, REAL, False),  # lam < 0
    (sp.sqrt(X**2 + sp.Rational(1, 10**30)) - X, POS, False),
    ((X**3) ** sp.Rational(1, 3) - X, POS, True),
    (sp.Abs(X - LAM) - (X - LAM), POS, False),
    (sp.sqrt(X + 2 * sp.sqrt(X) + 1) - sp.sqrt(X) - 1, POS, True),
    (sp.sqrt(X + 2 * sp.sqrt(X) + 1) - sp.sqrt(X) - 1 + X / 10**40, POS, False),
    (sp.tanh(X) - (sp.exp(2 * X) - 1) / (sp.exp(2 * X) + 1), REAL, True),
    (sp.exp(X) - 1 - X - X**2 / 2, POS, False),
    ((X**2 - LAM**2) / (X - LAM) - X - LAM, REAL, True),
    ((X**2 - LAM**2) / (X - LAM) - X + LAM, REAL, False),
]


@pytest.mark.parametrize(("expr", "domains", "zero"), ZEROES, ids=lambda v: str(v)[:40])
def test_zero_is_decided_exactly(expr, domains, zero):
    from symdelay.model.signs import zero_on

    assert zero_on(expr, domains) is zero


def test_a_refuted_rate_comes_with_a_point_checked_exactly():
    """Random quadratics a x^2 + b x + c in x >= 0: the decision agrees with the exact
    answer (minimum over x >= 0 from the vertex or the end), and every refutation's point
    gives a negative value in exact arithmetic."""
    import random

    from symdelay.model.signs import nonnegative_on

    rng = random.Random(36)
    for _ in range(40):
        a, b, c = (sp.Rational(rng.randint(-9, 9), rng.randint(1, 9)) for _ in range(3))
        poly = a * X**2 + b * X + c
        if a < 0:
            truth = False  # unbounded below
        elif a == 0:
            truth = c >= 0 and b >= 0
        else:
            vertex = max(sp.Integer(0), -b / (2 * a))
            truth = poly.subs(X, vertex) >= 0
        got = nonnegative_on(poly, {X: "nonnegative"})
        assert got.holds is bool(truth), (poly, got)
        if not truth:
            assert poly.subs(got.witness) < 0


def test_number_signs_close_to_zero():
    from symdelay.model.signs import number_sign

    assert number_sign(sp.pi - sp.Rational(355, 113)) == -1  # 2.7e-7 below
    assert number_sign(sp.E - sp.Rational(2718281828459045, 10**15)) == 1
    assert number_sign(sp.sqrt(2) * sp.sqrt(3) - sp.sqrt(6)) == 0
    assert number_sign((sp.sqrt(2) + 1) ** 2 - 3 - 2 * sp.sqrt(2)) == 0
    assert number_sign(sp.exp(-100) - sp.Rational(1, 10**44)) == 1  # 3.7e-44


@pytest.mark.parametrize(
    "rate", ["q*sqrt(-lam)", "sqrt(-lam - q)", "log(-q - 1)", "sqrt(-1)", "log(0)*q"]
)
def test_a_rate_real_nowhere_is_refused(tmp_path, run_cli, rate):
    """Nonnegative "wherever it is defined" holds of a rate defined nowhere: refused, and
    not with the advice to assert it."""
    status, _, err = run_cli("analyze", str(one_state(tmp_path, rate, asserted=True)))
    assert status == 2 and err.count("\n") == 1, err
    assert "not real at any point" in err or "not a finite real number" in err, err


@pytest.mark.parametrize(
    ("stations", "xi"),
    [
        ("N=10,mu=1;N=10,mu=1;N=10,mu=1", None),
        ("N=10,mu=1;N=20,mu=1/2;N=10,mu=1;N=10,mu=2", None),
        ("N=10,mu=1;N=10,mu=1;N=10,mu=1;N=10,mu=1", "3"),
        ("N=50,mu=1;N=100,mu=0.5", "2"),
    ],
)
def test_lb_routing_at_ties_is_a_probability_and_the_direct_one(stations, xi):
    """The exact rate check found the LB table's arrival rates negative where stations tie
    (C(m, k - 1) at a half-integer m): at ties, at random points and at the balanced
    equilibrium (a tie), the table's routing equals the direct preference-order routing
    (ties shared equally; an independent path) and sums to 1."""
    import itertools

    import numpy as np

    from symdelay.models.lb import LBPolicy
    from symdelay.models.lb.fluid import routing_probabilities

    p = LBPolicy.from_text(stations, xi=xi)
    m = build_model("lb", stations=stations, xi=xi, lam="1/2")
    arrivals = [t.rate.xreplace(m.values) for t in m.transitions if t.name.startswith("arrive")]
    w = [sp.Rational(v) for v in p.shares]
    rng = np.random.default_rng(36)
    levels = [sp.Rational(1, 2), sp.Rational(3, 4), 1, sp.Rational(5, 4)]
    points = [
        tuple(wj * f for wj, f in zip(w, fs)) for fs in itertools.product(levels, repeat=len(w))
    ]
    points += [tuple(wj * sp.Rational(int(rng.integers(1, 40)), 20) for wj in w) for _ in range(5)]
    points.append(tuple(m.equilibrium.point[s] for s in m.states))
    for x in points[:60]:
        at = dict(zip(m.states, x))
        table = [r.xreplace(at) / sp.Rational(1, 2) for r in arrivals]
        assert sum(table) == 1 and all(v >= 0 for v in table), (x, table)
        direct = routing_probabilities(p, [float(v) for v in x])
        assert np.allclose([float(v) for v in table], direct, atol=1e-12), (x, table, direct)
