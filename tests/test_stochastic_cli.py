"""CLI contracts of simulate / fluid / variance, bad input, and the report section."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from symdelay.models.erlang.stochastic import simulate as founding_simulate
from symdelay.outputs.report import ReportContext

BASE = ["--L", "2", "--eta", "100", "--mu", "1", "--lam", "1", "--theta", "2", "--D", "1"]


def test_simulate_json_contract(run_cli):
    st, out, err = run_cli("simulate", *BASE, "--T", "2", "--seed", "1", "--dt", "0.5", "--json")
    assert st == 0 and err == ""
    d = json.loads(out)
    contract = {"parameters", "events", "t", "q1", "q2", "z1", "z2"}  # issue 2's keys
    assert set(d) == contract | {"model", "symdelay_version", "kind", "states", "info"}
    assert d["parameters"] == {
        "L": 2, "eta": 100, "mu": "1", "lam": "1", "theta": "2", "D": "1",
        "T": 2.0, "dt": 0.5, "seed": 1, "replications": 1, "initial": [0, 100, 0, 0, 0, 0],
    }  # fmt: skip
    assert d["kind"] == "simulation" and d["info"]["backend"] == "c"
    assert d["states"] == ["q1", "q2", "z1_1", "z1_2", "z2_1", "z2_2"]
    assert d["t"] == [0.0, 0.5, 1.0, 1.5, 2.0]
    assert d["q2"][0] == 1.0 and d["q1"][0] == 0.0
    assert len(d["z1"]) == 2 and all(len(z) == 5 for z in d["z1"] + d["z2"])
    assert isinstance(d["events"], int) and d["events"] > 0

    r = founding_simulate(L=2, eta=100, mu=1, lam=1, theta=2, D=1, T=2, seed=1, dt=0.5)
    assert r.to_json() == d and r.events[0] == d["events"]


def test_simulate_replications_json_and_csv(run_cli, tmp_path):
    f = tmp_path / "p.csv"
    args = ["simulate", *BASE, "--T", "1", "--dt", "0.5", "--replications", "3"]
    st, out, _ = run_cli(*args, "--json", "--csv", str(f))
    assert st == 0
    d = json.loads(out)
    assert set(d) == {"parameters", "events", "replications"} | {
        "model", "symdelay_version", "kind", "states", "t", "info",
    }  # fmt: skip
    assert len(d["replications"]) == 3
    assert d["parameters"]["replications"] == 3 and d["parameters"]["seed"] == 1
    assert d["events"] == sum(r["events"] for r in d["replications"])
    assert all(set(r) == {"events", "t", "q1", "q2", "z1", "z2"} for r in d["replications"])
    lines = f.read_text().splitlines()
    assert lines[0].startswith("# symdelay ") and "simulate; parameters: {" in lines[0]
    assert json.loads(lines[0].split("parameters: ", 1)[1]) == d["parameters"]
    rows = list(csv.reader(lines[1:]))
    assert rows[0] == ["t", "replication", "q1", "q2", "z1_1", "z1_2", "z2_1", "z2_2"]
    assert len(rows) == 1 + 3 * 3
    assert rows[4][:2] == ["0", "1"] and float(rows[4][3]) == d["replications"][1]["q2"][0]


def test_fluid_json_contract(run_cli):
    st, out, _ = run_cli("fluid", "--L", "1", "--T", "1", "--dt", "0.5", "--json")
    d = json.loads(out)
    contract = {"parameters", "t", "q1", "q2", "z1", "z2"}
    assert st == 0 and set(d) == contract | {"model", "symdelay_version", "kind", "states", "info"}
    assert d["kind"] == "fluid" and d["info"]["solver"]["method"] == "DOP853"
    assert d["parameters"]["L"] == 1 and d["parameters"]["theta"] == "2"
    assert d["t"] == [0.0, 0.5, 1.0] and d["q2"][0] == 1.0 and len(d["z1"]) == 1


def test_variance_json_contract(run_cli):
    st, out, _ = run_cli("variance", "--L", "1", "--mu", "1", "--lam", "1", "--theta", "2",
                         "--D", "1", "--json")  # fmt: skip
    d = json.loads(out)
    keys = {"parameters", "dps", "exact", "var_x_over_eta", "closed_form"}
    assert st == 0 and keys | {"model", "symdelay_version"} <= set(d)
    assert d["parameters"]["theta"] == "2" and d["dps"] == 30 and d["exact"] is True
    assert d["var_x_over_eta"].startswith("1.3333333333")  # 4/3 from the closed form
    assert "theta" in d["closed_form"]
    st, out, _ = run_cli("variance", "--L", "3", "--theta", "1", "--json")
    assert json.loads(out)["closed_form"] is None


@pytest.mark.parametrize(
    "args,needle",
    [
        (["simulate", "--eta", "0.5"], "eta"),
        (["simulate", "--eta", "0"], "eta"),
        (["simulate", "--T", "0"], "T must be positive"),
        (["simulate", "--T", "-1"], "T must be positive"),
        (["simulate", "--dt", "0"], "dt"),
        (["simulate", "--T", "1", "--dt", "2"], "dt"),
        (["simulate", "--replications", "0"], "replications"),
        (["simulate", "--L", "1", "--initial", "0,-1,0,0"], "counts >= 0"),
        (["simulate", "--L", "1", "--initial", "0,1,0"], "needs 4 job counts"),
        (["simulate", "--L", "1", "--initial", "0,1.5,0,0"], "whole"),
        (["simulate", "--mu", "0"], "mu"),
        (["simulate", "--lam", "-1"], "lam"),
        (["simulate", "--D", "0"], "D"),
        (["simulate", "--theta", "nan"], "theta"),
        (["simulate", "--mu", "nan"], "mu"),
        (["fluid", "--T", "0"], "T"),
        (["fluid", "--D", "-2"], "D"),
        (["fluid", "--L", "1", "--initial", "0,1"], "needs 4 finite values"),
        (["variance", "--L", "2", "--theta", "10"], "unstable"),
        (["variance", "--mu", "nan"], "mu"),
        (["simulate", "--seed", "-1"], "seed must be an integer >= 0"),
        (["simulate", "--seed", "1.5"], "seed"),
        (["simulate", "--eta", "1e11", "--T", "100"], "--force"),
        (["simulate", "--eta", "1e16"], "eta"),
        (["simulate", "--D", "1e-320"], "digits"),
        (["fluid", "--theta", "1e308"], "theta"),
        (["simulate", "--json", "--csv", "-"], "standard output"),
        (["fluid", "--json", "--csv", "-"], "standard output"),
        (["fluid", "--theta", "1e400"], "theta"),
        (["variance", "--dps", "3"], "dps"),
    ],
)
def test_bad_input_one_line_exit_2(run_cli, args, needle):
    st, out, err = run_cli(*args)
    assert st == 2 and out == ""
    assert err.startswith("symdelay: error:") and err.count("\n") == 1
    assert needle in err


def test_report_section_quick(tmp_path):
    from symdelay.outputs.sections import stochastic

    ctx = ReportContext(Path(tmp_path), quick=True)
    sec = stochastic.build(ctx)
    assert stochastic.ORDER == 60
    assert len(sec.figures) == 8
    for f in sec.figures:
        assert (tmp_path / f).stat().st_size > 1000
        assert f in sec.body
    assert "slope" in sec.body and "Hopf" in sec.body and "\\begin{tabular}" in sec.body


def test_fluid_huge_theta_is_a_right_answer(run_cli):
    """Join-the-shortest-queue in the limit: finite paths, the same at theta = 1e90 as at
    theta = 1e20 (the softmax routing evaluated with the largest exponent subtracted)."""
    a = json.loads(run_cli("fluid", "--theta", "1e90", "--T", "5", "--json")[1])
    b = json.loads(run_cli("fluid", "--theta", "1e20", "--T", "5", "--json")[1])
    assert all(abs(x - y) < 1e-6 for x, y in zip(a["q1"], b["q1"]))


@pytest.mark.parametrize(
    "argv",
    [["simulate", "--eta", "50"], ["fluid"]],
    ids=["simulate", "fluid"],
)
def test_csv_to_standard_output(run_cli, argv):
    command = argv[0]
    st, out, err = run_cli(*argv, "--L", "1", "--T", "1", "--dt", "0.5", "--csv", "-")
    assert st == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith("# symdelay ") and f"{command}; parameters: " in lines[0]
    params = json.loads(lines[0].split("parameters: ", 1)[1])
    assert params["L"] == 1 and params["T"] == 1.0
    if command == "simulate":
        assert params["seed"] == 1 and params["eta"] == 50
    rows = list(csv.reader(lines[1:]))
    assert rows[0][:3] == (
        ["t", "replication", "q1"] if command == "simulate" else ["t", "q1", "q2"]
    )
    assert len(rows) == 4


def test_fluid_csv_file_matches_json(run_cli, tmp_path):
    f = tmp_path / "f.csv"
    st, out, _ = run_cli("fluid", "--L", "2", "--T", "1", "--dt", "0.25", "--csv", str(f), "--json")
    assert st == 0
    d = json.loads(out)
    lines = f.read_text().splitlines()
    assert json.loads(lines[0].split("parameters: ", 1)[1]) == d["parameters"]
    rows = list(csv.reader(lines[1:]))
    assert rows[0] == ["t", "q1", "q2", "z1_1", "z1_2", "z2_1", "z2_2"]
    assert [float(r[1]) for r in rows[1:]] == d["q1"]  # 17 significant digits round-trip
    assert [float(r[6]) for r in rows[1:]] == d["z2"][1]


def test_summary_says_what_it_shows(run_cli):
    st, out, _ = run_cli("simulate", *BASE, "--T", "1", "--replications", "4", "--seed", "3")
    assert st == 0 and "(seed 3)" in out and "over the 4 replications" in out and "sd" in out
    st, out, _ = run_cli("simulate", *BASE, "--T", "1")
    assert st == 0 and "simulated 1 path(s) of two queues" in out and "(seed 1)" in out
    assert "at t=1: q1=" in out and "sd" not in out
    st, out, _ = run_cli("fluid", "--L", "2", "--T", "1")
    assert st == 0 and "fluid path of two queues" in out and "(DOP853, rtol=1e-10" in out


@pytest.mark.parametrize("command", ["simulate", "fluid", "variance"])
def test_help_has_a_description(command, capsys):
    from symdelay.cli import main

    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    rest = text.split("\n\n", 1)[1]  # after the usage lines
    assert not rest.startswith("options:") and len(rest.split("options:")[0]) > 100


def test_variance_without_closed_form_honours_dps(run_cli):
    st, out, _ = run_cli("variance", "--L", "13", "--theta", "1", "--dps", "40", "--json")
    d = json.loads(out)
    assert st == 0 and d["closed_form"] is None and d["exact"] is False
    assert len(d["var_x_over_eta"].replace(".", "")) == 40
    st, out, _ = run_cli("variance", "--L", "13", "--theta", "1", "--dps", "12")
    assert out.strip().endswith(" 1.88670629236")
