"""One verdict at a point (issue 31 item 5, issue 36 item 4): ``stability`` decides
stable / marginal / unstable exactly, and every command that states a verdict says the same
at the boundary of the founding model and of other models (nserver, phase_type, a TOML
model, the in-flight model)."""

from __future__ import annotations

import json

import pytest

from symdelay.analysis.roots import roots
from symdelay.analysis.stability import stability
from symdelay.models import build_model

POINT = ["--L", "2", "--mu", "1", "--lam", "1", "--D", "1", "--theta", "9"]  # theta_c = 9

# the boundary of other models, each at an exact Hopf point (found by critical(...) and
# checked: the verdict is marginal there, stable / unstable on either side)
BOUNDARIES = {
    "nserver": ["--model", "nserver", "--N", "3", "--L", "2", "--mu", "1", "--lam", "1",
                "--D", "1", "--theta", "9"],
    "phase_type": ["--model", "phase_type", "--delay", "hypoexp", "--rates", "1,2", "--mu", "1",
                   "--lam", "1", "--theta", "9"],
    "toml": ["--model-file", "examples/models/erlang2.toml", "--set", "mu=1", "--set", "lam=1",
             "--set", "gamma=2", "--set", "theta=9"],
    "inflight": ["--model", "inflight", "--L", "2", "--mu", "2/15", "--lam", "1", "--D", "1",
                 "--kappa", "1/10", "--theta", "32"],
}  # fmt: skip


def test_stability_json_says_marginal_and_names_the_axis_roots(run_cli):
    status, out, err = run_cli("stability", *POINT, "--json")
    assert status == 0 and err == ""
    rec = json.loads(out)
    assert rec["verdict"] == "marginal" and rec["stable"] is False
    assert rec["unstable_count"] == 0 and rec["axis_count"] == 2
    omegas = sorted(float(a["omega"]["value"]) for a in rec["axis_roots"])
    assert [a["mode"] for a in rec["axis_roots"]] == ["difference", "difference"]
    assert abs(omegas[1] - 8**0.5) < 1e-15 and omegas[0] == -omegas[1]
    assert "Routh" in rec["decided_by"]


@pytest.mark.parametrize(
    "theta,verdict", [("8.999", "stable"), ("9", "marginal"), ("9.001", "unstable")]
)
def test_stability_text_and_roots_agree_on_both_sides(run_cli, theta, verdict):
    argv = [*POINT[:-1], theta]
    status, out, _ = run_cli("stability", *argv)
    assert status == 0 and f": {verdict}" in out.splitlines()[-2]
    rec = json.loads(run_cli("roots", *argv, "--dps", "20", "--json")[1])
    assert rec["verdict"] == verdict and rec["stable"] is (verdict == "stable")


def test_every_command_says_marginal_at_theta_c(run_cli):
    status, out, err = run_cli("limit-cycle", *POINT)
    assert status == 2 and "marginal" in err and "stable there" not in err
    status, out, err = run_cli("spectrum", *POINT)
    assert status == 2 and "marginal" in err
    status, out, err = run_cli("variance", *POINT)
    assert status == 2 and "marginal" in err
    status, out, err = run_cli("normal-form", *POINT)
    assert status == 0 and "at theta = 9 the equilibrium is marginal" in out
    rec = json.loads(run_cli("normal-form", *POINT, "--json")[1])
    assert rec["at_theta"]["verdict"] == "marginal"
    status, out, err = run_cli("normal-form", *POINT[:-1], "8")
    assert status == 2 and "stable there" in err
    status, out, err = run_cli("analyze", "--model", "erlang", *POINT)
    assert status == 0 and "verdict: marginal" in out
    rec = json.loads(run_cli("analyze", "--model", "erlang", *POINT, "--json")[1])
    assert rec["stability"]["verdict"] == "marginal" and rec["stability"]["stable"] is False


def test_limit_cycle_names_the_verdict_below_and_at_theta_c(run_cli):
    status, _, err = run_cli("limit-cycle", *POINT[:-1], "8")
    assert status == 2 and "the equilibrium is stable there" in err
    status, _, err = run_cli("limit-cycle", "--L", "inf", "--mu", "1", "--lam", "1", "--D", "1",
                             "--theta", "1")  # fmt: skip
    assert status == 2 and "stable there" in err


def test_sweeps_and_the_explorer_take_the_one_verdict():
    from symdelay.outputs.explorer import Explorer
    from symdelay.sweep import analyses

    assert analyses.stability(2, 1, 1, 9, 1)["verdict"] == "marginal"
    assert analyses.stability(2, 1, 1, 9, 1)["stable"] is False
    assert analyses.roots(2, 1, 1, 9, 1, dps=20)["verdict"] == "marginal"
    rec = analyses.model_stability(model="nserver", N=3, L=2, mu=1, lam=1, D=1, theta=9)
    assert rec["verdict"] == "marginal" and rec["stable"] is False
    ex = Explorer("erlang", {"L": "2", "mu": "1", "lam": "1", "theta": "9", "D": "1"})
    out = ex.update(ex.initial_state, with_map=False)
    assert out["roots"]["verdict"] == "marginal" and out["marker"]["verdict"] == ["marginal"]


@pytest.mark.parametrize("name", sorted(BOUNDARIES))
def test_other_models_on_their_boundary(run_cli, name):
    argv = BOUNDARIES[name]
    # a pair +-i w on the axis in each copy of the difference mode (N - 1 = 2 for nserver)
    axis = 4 if name == "nserver" else 2
    rec = json.loads(run_cli("stability", *argv, "--json")[1])
    assert rec["verdict"] == "marginal" and rec["axis_count"] == axis
    assert sum(a["multiplicity"] for a in rec["axis_roots"]) == axis
    rec = json.loads(run_cli("roots", *argv, "--dps", "20", "--json")[1])
    assert rec["verdict"] == "marginal" and rec["axis_count"] == axis
    status, _, err = run_cli("variance", *argv)
    assert status == 2 and "marginal" in err


def test_the_inflight_boundary_is_a_boundary():
    """mu = 2/15, kappa = 1/10: marginal at theta = 32 exactly, unstable below, stable above
    (the in-flight weight stabilises again), by the exact verdict and the certified roots."""
    for theta, verdict in (("31", "unstable"), ("32", "marginal"), ("33", "stable")):
        m = build_model("inflight", L=2, mu="2/15", lam=1, D=1, kappa="1/10", theta=theta)
        assert stability(m).verdict == roots(m, dps=20).verdict == verdict
