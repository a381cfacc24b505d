"""A critical value at the model's own values (no sweep) says where it was computed: the
unswept parameter is among the record's parameters and the text shows no column of it."""

import json
import subprocess
import sys

from symdelay.analysis.critical import critical
from symdelay.model import load_toml

INFO = "examples/models/information_delay.toml"


def _run(*args):
    out = subprocess.run(
        [sys.executable, "-m", "symdelay", "critical", "--model-file", INFO, *args],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return out.stdout


def test_own_delay_in_parameters_and_no_column():
    d = json.loads(_run("--set", "mu=1", "--set", "lam=1", "--set", "D=1", "--json"))
    assert d["parameters"] == {"mu": "1", "lam": "1", "D": "1"}
    assert [p["D"] for p in d["points"]] == [None]
    text = _run("--set", "mu=1", "--set", "lam=1", "--set", "D=1")
    head, columns = text.splitlines()[:2]
    assert "D = 1" in head and columns.split() == ["theta_c", "omega"]
    # the API's record is the same: at D = 2 another value, and D = 2 named
    model = load_toml(INFO).with_values(mu=1, lam=1, D=2)
    rec = critical(model).to_json()  # a dict, as the CLI prints it
    assert rec["parameters"]["D"] == "2"
    assert rec["points"][0]["theta_c"] != d["points"][0]["theta_c"]


def test_swept_delay_stays_a_column():
    args = ("--set", "mu=1", "--set", "lam=1", "--over", "D", "--at", "1,2", "--json")
    d = json.loads(_run(*args))
    assert "D" not in d["parameters"] and [p["D"] for p in d["points"]] == ["1", "2"]
