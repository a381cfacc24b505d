"""Every analysis command takes --model / --model-file and answers as the model layer does."""

from __future__ import annotations

import json

import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.fluid import fluid
from symdelay.analysis.stochastic import variance
from symdelay.models import build_model
from symdelay.models.phase_type import PhaseType

HYPER = ["--model", "phase_type", "--delay", "hyperexp", "--probs", "0.3,0.7", "--rates", "0.5,2"]


def test_stability_model(run_cli):
    status, out, err = run_cli("stability", "--model", "nserver", "--N", "3", "--L", "2", "--json")
    assert status == 0, err
    rec = json.loads(out)
    assert rec["stable"] is None and len(rec["conditions"]) >= 1
    # the condition is the two-server one: lam*theta < 2(gamma+mu)^2/gamma
    g, lam, mu, th = sp.symbols("gamma lam mu theta")
    conds = [
        sp.sympify(c, locals={"gamma": g, "lam": lam, "mu": mu, "theta": th})
        for c in rec["conditions"]
    ]
    at = lambda k: all(bool(c.subs({g: 2, mu: 1, lam: 1, th: k})) for c in conds)  # noqa: E731
    assert at(sp.Rational(89, 10)) and not at(sp.Rational(91, 10))


def test_fluid_model_matches_api(run_cli):
    status, out, err = run_cli("fluid", *HYPER, "--T", "5", "--dt", "0.5", "--json")
    assert status == 0, err
    rec = json.loads(out)
    d = PhaseType.hyperexp(["0.3", "0.7"], ["0.5", 2])
    m = build_model("phase_type", delay=d, mu=1, lam=1, theta=2)
    ref = fluid(m, 5, 0.5)
    assert rec["parameters"]["theta"] == "2"
    assert np.allclose(rec["q1"], ref["q1"], atol=1e-9) and rec["states"][0] == "q1"


def test_simulate_model_json_and_csv(run_cli, tmp_path):
    status, out, err = run_cli(
        "simulate", *HYPER, "--eta", "500", "--T", "2", "--seed", "4", "--json"
    )
    assert status == 0, err
    rec = json.loads(out)
    assert rec["parameters"]["seed"] == 4 and rec["events"] > 0 and len(rec["t"]) == 21
    csv = tmp_path / "p.csv"
    status, _, err = run_cli(
        "simulate", *HYPER, "--eta", "500", "--T", "2", "--seed", "4", "--csv", str(csv)
    )
    assert status == 0, err
    lines = csv.read_text().splitlines()
    assert lines[0].startswith("# symdelay") and lines[1].startswith("t,replication,q1,q2")
    first = np.array(lines[2].split(","), dtype=float)
    assert first[2] == rec["q1"][0]


def test_variance_model_equals_api_and_founding(run_cli):
    status, out, _ = run_cli(
        "variance", "--model", "nserver", "--N", "2", "--L", "2", "--theta", "2", "--json"
    )
    rec = json.loads(out)
    status2, out2, _ = run_cli("variance", "--L", "2", "--theta", "2", "--json")
    assert status == status2 == 0
    assert rec["var_x_over_eta"][:20] == json.loads(out2)["var_x_over_eta"][:20]
    v = variance(build_model("nserver", N=2, L=2, mu=1, lam=1, theta=2, D=1)).value
    assert sp.Rational(rec["exact_value"]) == v


def test_derive_model_writes_the_document(run_cli, tmp_path):
    status, _, err = run_cli("derive", "--model", "inflight", "--L", "1", "--out", str(tmp_path))
    assert status == 0, err
    tex = next(tmp_path.glob("*.tex")).read_text()
    assert "\\section{Stability}" in tex and "\\text{False}" not in tex


def test_model_file_needs_values_for_numeric_commands(run_cli):
    status, _, err = run_cli("fluid", "--model-file", "examples/models/erlang2.toml", "--T", "1")
    assert status == 2 and "--set" in err and err.count("\n") == 1
    # a model with lags is simulated exactly (the dde family: a constant information lag;
    # the announcement: a derivative read through a lag, the drift recursion); its
    # difference operator unstable (lam theta p >= 1) is refused in one line
    status, out, err = run_cli("simulate", "--model", "dde", "--T", "2", "--eta", "50")
    assert status == 0 and "simulated 1 path(s)" in out, err
    ann = "examples/models/announcement.toml"
    sets = ["--set", "mu=1", "--set", "lam=1", "--set", "theta=1", "--set", "D=1"]
    status, out, err = run_cli("simulate", "--model-file", ann, *sets, "--set", "p=0.1")
    assert status == 0 and "simulated 1 path(s)" in out, err
    status, _, err = run_cli("simulate", "--model-file", ann, *sets, "--set", "p=1")
    assert status == 2 and "difference operator" in err and err.count("\n") == 1


def test_critical_model_equals_founding_for_n_servers(run_cli):
    status, out, err = run_cli(
        "critical",
        "--model",
        "nserver",
        "--N",
        "4",
        "--L",
        "3",
        "--mu",
        "1",
        "--lam",
        "1",
        "--D",
        "0.5,2",
        "--json",
    )
    assert status == 0, err
    generic = json.loads(out)["points"]
    status, out, _ = run_cli(
        "critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "0.5,2", "--json"
    )
    founding = json.loads(out)["points"]
    assert [p["theta_c"] for p in generic] == [p["theta_c"] for p in founding]
    assert [p["omega"] for p in generic] == [p["omega"] for p in founding]


def test_roots_model_counts(run_cli):
    status, out, err = run_cli(
        "roots",
        "--model",
        "nserver",
        "--N",
        "3",
        "--L",
        "2",
        "--mu",
        "1",
        "--lam",
        "1",
        "--theta",
        "10",
        "--D",
        "1",
        "--dps",
        "20",
        "--json",
    )
    assert status == 0, err
    rec = json.loads(out)
    # theta = 10 > theta_c = 9: one unstable pair per difference mode, two copies
    assert rec["unstable_count"] == 4 and rec["axis_count"] == 0 and rec["stable"] is False
    status, out, _ = run_cli(
        "roots", "--L", "2", "--mu", "1", "--lam", "1", "--theta", "10", "--D", "1", "--json"
    )
    assert json.loads(out)["unstable_count"] == 2


def test_verify_answers_for_other_models(run_cli):
    """verify was founding-only; the decision procedure decides nserver's claims (issue 19)."""
    status, out, err = run_cli(
        "verify", "--claim", "lam*theta < mu", "--L", "3", "--model", "nserver", "--json"
    )
    assert status == 0, err
    rec = json.loads(out)
    assert rec["proven"] == {"stability": True} and rec["relation_to_stability"] == "sufficient"


def test_window_and_worst_delay_answer_for_other_models(run_cli):
    """nserver's non-sum modes are the founding difference equation: the same window and
    worst delay, by the generic exact path against the founding closed forms."""
    found = json.loads(
        run_cli("window", "--L", "3", "--theta", "6", "--mu", "1", "--lam", "1", "--json")[1]
    )
    gen = json.loads(
        run_cli(
            "window", "--model", "nserver", "--N", "3", "--L", "3", "--theta", "6", "--mu", "1",
            "--lam", "1", "--json",
        )[1]
    )  # fmt: skip
    assert len(found["intervals"]) == len(gen["intervals"]) == 1
    (a, b), (c, d) = found["intervals"][0], gen["intervals"][0]
    assert float(c) == pytest.approx(float(a), rel=1e-12)
    assert float(d) == pytest.approx(float(b), rel=1e-12)
    w = json.loads(
        run_cli(
            "worst-delay",
            "--model",
            "nserver",
            "--N",
            "3",
            "--L",
            "3",
            "--mu",
            "1",
            "--lam",
            "1",
            "--json",
        )[1]
    )
    assert float(w["x_star"]) == pytest.approx(3.0, rel=1e-12)  # D* = L/mu
    assert float(w["critical"]) == pytest.approx(4.0, rel=1e-12)  # mu sec^4(pi/4)/lam


def test_simulate_model_refuses_a_run_too_long(run_cli):
    status, _, err = run_cli(
        "simulate", "--model", "nserver", "--N", "3", "--eta", "1e9", "--T", "100"
    )
    assert status == 2 and "--force" in err and "events" in err and err.count("\n") == 1
