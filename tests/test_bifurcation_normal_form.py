"""The Hopf normal form in any parameter (``normal_form(model, param=...)``,
``normal-form --in NAME``): the Hopf point in that parameter and the amplitude law in it.

Independent values: the founding model's difference mode depends on lam and theta only
through k = lam*theta once x is measured as theta*x (the routing is 2 lam tanh(theta x/2),
every other term linear), so at fixed theta0 the law in lam follows from the law in theta
(c_lam = c_theta sqrt(theta0 / lam_c), r'_lam = r'_theta theta0 / lam_c), and a cycle at
(lam_c (1 + d), theta0) is the cycle at (lam_c, theta0 (1 + d)) scaled by (1 + d).
"""

from __future__ import annotations

import json

import mpmath
import pytest

from symdelay.analysis.normal_form import normal_form
from symdelay.cli import main as cli_main
from symdelay.models import build_model

THETA0 = 12  # lam_c = 9 / 12 = 3/4 at mu = D = 1, L = 2


@pytest.fixture(scope="module")
def in_lam():
    return normal_form(build_model("erlang", L=2, mu=1, D=1, theta=THETA0), param="lam")


@pytest.fixture(scope="module")
def in_theta():
    return normal_form(build_model("erlang", L=2, mu=1, lam="3/4", D=1))


def test_hopf_point_in_lam(in_lam, in_theta):
    assert abs(in_lam.theta_c - mpmath.mpf(3) / 4) < mpmath.mpf(10) ** -13
    assert abs(in_theta.theta_c - THETA0) < mpmath.mpf(10) ** -13
    assert abs(in_lam.omega - in_theta.omega) < mpmath.mpf(10) ** -13
    rec = in_lam.record()
    assert rec["param"] == "lam" and rec["theta_c"] is None
    assert rec["criticality"] == "supercritical" and rec["amplitude_side"] == "above"


def test_amplitude_law_in_lam_by_rescaling(in_lam, in_theta):
    lam_c = mpmath.mpf(3) / 4
    assert abs(in_lam.r_prime - in_theta.r_prime * THETA0 / lam_c) < mpmath.mpf(10) ** -12
    expect = in_theta.amplitude_coefficient * mpmath.sqrt(THETA0 / lam_c)
    assert abs(in_lam.amplitude_coefficient / expect - 1) < mpmath.mpf(10) ** -12
    # l1 is the same number (the same normal form, another unfolding parameter)
    assert abs(in_lam.l1 / in_theta.l1 - 1) < mpmath.mpf(10) ** -12


def test_amplitude_law_in_lam_against_a_computed_cycle(in_lam):
    """The cycle at lam = lam_c (1 + d), theta0 is the cycle at lam_c, theta0 (1 + d)
    scaled by (1 + d): computed by shooting, against c_lam sqrt(lam - lam_c)."""
    from symdelay.analysis.cycles import limit_cycle

    d = 1e-4
    cyc = limit_cycle(build_model("erlang", L=2, mu=1, lam="3/4", D=1), THETA0 * (1 + d))
    amplitude = cyc.amplitude_x * (1 + d)
    law = float(in_lam.amplitude_coefficient) * (0.75 * d) ** 0.5
    assert abs(amplitude / law - 1) < 1e-3  # the O(lam - lam_c) correction of the law


def test_cli_in_lam_and_in_mu(capsys):
    assert cli_main(["normal-form", "--L", "2", "--mu", "1", "--D", "1", "--theta", "12",
                     "--in", "lam", "--json"]) == 0  # fmt: skip
    rec = json.loads(capsys.readouterr().out)
    assert rec["param"] == "lam" and float(rec["critical_value"]) == pytest.approx(0.75)
    # mu: a larger service rate stabilises, so the cycles live below mu_c
    assert cli_main(["normal-form", "--L", "2", "--lam", "1", "--D", "1", "--theta", "9",
                     "--in", "mu"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "mu_c = 1.0" in out and "sqrt(mu_c - mu)" in out
    # the parameter varied is not also given
    assert cli_main(["normal-form", "--L", "2", "--lam", "1", "--mu", "1", "--D", "1",
                     "--theta", "9", "--in", "mu"]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "leave --mu out" in err


def test_in_theta_is_the_default_path(capsys):
    base = ["normal-form", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1", "--json"]
    assert cli_main(base) == 0
    a = json.loads(capsys.readouterr().out)
    assert cli_main([*base, "--in", "theta"]) == 0
    b = json.loads(capsys.readouterr().out)
    assert a == b and a["param"] == "theta" and a["theta_c"] == a["critical_value"]


def test_structural_reason_only_where_its_identity_holds(tmp_path, in_theta):
    """The "why l1 < 0" sentence rests on c1 = -(theta^3/4) r'(theta): printed for the
    founding model, withheld for a model file whose routing adds a cubic term (theta then
    is not the slope of the only nonlinearity, and the identity fails)."""
    from pathlib import Path

    assert in_theta.record()["structural_reason"] is not None
    text = (Path(__file__).parents[1] / "examples/models/erlang2.toml").read_text()
    cubic = text.replace("exp(-theta*q1)", "exp(-theta*q1 - q1**3/3)").replace(
        "exp(-theta*q2)", "exp(-theta*q2 - q2**3/3)"
    )
    assert cubic.count("q1**3") >= 2
    path = tmp_path / "cubic.toml"
    path.write_text(cubic)
    from symdelay.model.core import Model

    nf = normal_form(Model.from_toml(path, mu=1, lam=1, gamma=2))
    ratio = nf.c1 / nf.r_prime + nf.theta_c**3 / 4
    assert abs(ratio) > 1e-3 * nf.theta_c**3  # the identity fails here
    assert nf.record()["structural_reason"] is None
