"""``unstable-theta`` and ``kappa-star`` answer for any model named on the command line: the
window in theta from 0 and the smallest stabilising weight kappa, by the generic entries
(`window`, `kappa_star`) that the in-flight model's own fast paths sit behind. A model file
that writes the in-flight model by hand gives the built-in model's answers to every digit
(generic exact crossing curves against the closed factors of the specialisation)."""

from __future__ import annotations

import json

import pytest

from symdelay.analysis.window import window

INFLIGHT2 = """
name = "in-flight Erlang(2), weight kappa on both phases"
[parameters]
mu = "positive"
lam = "positive"
theta = "real"
g = "positive"
kappa = "nonnegative"
[state]
names = ["q1", "q2", "a1", "b1", "a2", "b2"]
[[transitions]]
change = { a1 = 1 }
rate = "2*lam*exp(-theta*(q1 + kappa*(a1+b1)))/(exp(-theta*(q1 + kappa*(a1+b1))) + exp(-theta*(q2 + kappa*(a2+b2))))"
[[transitions]]
change = { a2 = 1 }
rate = "2*lam*exp(-theta*(q2 + kappa*(a2+b2)))/(exp(-theta*(q1 + kappa*(a1+b1))) + exp(-theta*(q2 + kappa*(a2+b2))))"
[[transitions]]
change = { a1 = -1, b1 = 1 }
rate = "g*a1"
[[transitions]]
change = { a2 = -1, b2 = 1 }
rate = "g*a2"
[[transitions]]
change = { b1 = -1, q1 = 1 }
rate = "g*b1"
[[transitions]]
change = { b2 = -1, q2 = 1 }
rate = "g*b2"
[[transitions]]
change = { q1 = -1 }
rate = "mu*q1"
[[transitions]]
change = { q2 = -1 }
rate = "mu*q2"
[symmetry]
swap = [["q1", "q2"], ["a1", "a2"], ["b1", "b2"]]
"""


@pytest.fixture
def inflight_file(tmp_path):
    path = tmp_path / "inflight2.toml"
    path.write_text(INFLIGHT2)
    return str(path)


def _json(run_cli, *argv):
    status, out, err = run_cli(*argv, "--json")
    assert status == 0, err
    return json.loads(out)


def test_kappa_star_of_a_model_file_equals_the_built_in_to_every_digit(run_cli, inflight_file):
    # g = 2 is the phase rate of Erlang(2) with mean D = 1
    mine = _json(run_cli, "kappa-star", "--model-file", inflight_file, "--set", "mu=1",
                 "--set", "g=2", "--set", "lam=1")  # fmt: skip
    built = _json(run_cli, "kappa-star", "--L", "2", "--mu", "1", "--D", "1")
    assert mine["x_star"] == built["kappa_star"]
    assert mine["method"]["path"] == "generic"
    assert mine["method"]["algorithm"].startswith("exact candidates")


def test_unstable_theta_of_a_model_file_equals_the_built_in(run_cli, inflight_file):
    mine = _json(run_cli, "unstable-theta", "--model-file", inflight_file, "--set", "mu=1",
                 "--set", "g=2", "--set", "lam=1", "--set", "kappa=0.05")  # fmt: skip
    built = _json(run_cli, "unstable-theta", "--L", "2", "--kappa", "0.05")
    assert mine["intervals"] == built["intervals"] and len(mine["intervals"]) == 1  # bounded


@pytest.mark.parametrize(
    "argv, build",
    [
        (["--model", "nserver", "--N", "3", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1"],
         ("nserver", {"N": 3, "L": 2, "mu": 1, "lam": 1, "D": 1})),
        (["--model", "phase_type", "--delay", "hypoexp", "--rates", "1,2,3", "--mu", "1",
          "--lam", "1"], None),
        (["--model", "erlang", "--L", "3", "--mu", "1", "--lam", "1", "--D", "1"],
         ("erlang", {"L": 3, "mu": 1, "lam": 1, "D": 1})),
    ],
)  # fmt: skip
def test_unstable_theta_for_other_models_is_their_theta_window(run_cli, argv, build):
    from symdelay.models import build_model

    rec = _json(run_cli, "unstable-theta", *argv)
    assert rec["range"][0] == "0" and rec["intervals"]
    if build is not None:
        direct = window(build_model(build[0], **build[1]), "theta", lo=0).to_json()
        assert rec["intervals"] == direct["intervals"]
    if build is not None and build[0] in ("nserver", "erlang") and build[1]["L"] == 2:
        assert rec["intervals"][0][0] == "9.00000000000000"  # (D + 2)^2 / D


def test_kappa_star_refuses_a_model_without_kappa_and_a_given_theta(run_cli, inflight_file):
    status, _, err = run_cli("kappa-star", "--model", "nserver", "--N", "3", "--L", "2",
                             "--mu", "1", "--lam", "1", "--D", "1")  # fmt: skip
    assert status == 2 and "no parameter kappa" in err and err.count("\n") == 1
    status, _, err = run_cli("unstable-theta", "--model", "nserver", "--theta", "1")
    assert status == 2 and err.count("\n") == 1
    status, _, err = run_cli("kappa-star", "--model-file", inflight_file, "--set", "kappa=1",
                             "--set", "mu=1", "--set", "g=2", "--set", "lam=1")  # fmt: skip
    assert status == 2 and "leave it free" in err
