"""The branch of cycles of the founding model at L = inf (the family's specialisation of the
``cycles`` entry: its constant-action-delay table continued by collocation), against the
delay normal form's amplitude law, the L = inf Fourier-collocation ``limit_cycle`` (an
independent discretisation of the same DDE), the ``dde`` family's table of the same
equation, and finite L's record shape."""

from __future__ import annotations

import itertools
import json
import math

import pytest

from symdelay.analysis.continuation import cycles
from symdelay.analysis.cycles import limit_cycle
from symdelay.analysis.normal_form import normal_form
from symdelay.cli import main as cli_main
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model

OPTIONS = {"mu": 1, "lam": 1, "D": 1}


@pytest.fixture(scope="module")
def founding():
    return build_model("erlang", L="inf", **OPTIONS)


@pytest.fixture(scope="module")
def branch(founding):
    # 40 mesh intervals (as limit_cycle's delay path); the orbits at 3 and 8 landed exactly
    return cycles(founding, "theta", "2", "9", intervals=40, _targets=(3.0, 8.0))


def test_first_cycles_follow_the_normal_form_amplitude_law(founding, branch):
    nf = normal_form(founding)
    th_c, c = float(nf.theta_c), float(nf.amplitude_coefficient)
    assert float(branch.start["value"]) == pytest.approx(th_c, rel=1e-12)
    assert branch.model_name == founding.name and "Erlang(inf)" in branch.model_name
    near = [p for p in branch.points if p.value - th_c < 0.01]
    assert len(near) >= 3
    for p in near:
        eps = p.value - th_c
        assert eps > 0  # supercritical: the cycles live above theta_c
        ratio = p.amplitude / (c * math.sqrt(eps))
        # the law is first order: the ratio is 1 + O(theta - theta_c)
        assert abs(ratio - 1) < 0.5 * eps + 1e-6, (p.value, ratio)
    assert abs(near[0].amplitude / (c * math.sqrt(near[0].value - th_c)) - 1) < 1e-4


def test_landed_cycles_agree_with_the_fourier_limit_cycle(founding, branch):
    for theta in ("3", "8"):
        fourier = limit_cycle(founding, theta)
        assert "Fourier" in fourier.method  # the other discretisation of the same DDE
        c = branch.landed[float(theta)]
        # to the digits of the coarser: collocation's own error estimate (x3: it is an
        # estimate between the nodes) and the Fourier orbit's (~1e-7 at theta = 8)
        tol = 3 * c.mesh_error + 1e-7
        assert c.amplitude == pytest.approx(fourier.amplitude_x, abs=tol)
        assert c.period == pytest.approx(fourier.period, abs=tol)
    # the Fourier cycle (x = q1 - q2 alone) starts a branch: lifted to the queues, corrected
    given = cycles(founding, "theta", "2.5", "9", start=fourier, intervals=40, max_points=2)
    assert given.start["kind"] == "given cycle" and given.points[0].value == 8.0
    g = given.points[0]  # on a uniform mesh (the landed orbit's was adapted)
    assert g.amplitude == pytest.approx(fourier.amplitude_x, abs=3 * g.mesh_error + 1e-7)


def test_same_branch_as_the_dde_family_and_generic_refuses(founding):
    dde = build_model("dde", **OPTIONS)  # the same equation, its information-lag table
    a = cycles(founding, "theta", "2", "4", max_points=4)
    b = cycles(dde, "theta", "2", "4", max_points=4)
    assert [p.value for p in a.points] == pytest.approx([p.value for p in b.points], rel=1e-9)
    assert [p.amplitude for p in a.points] == pytest.approx(
        [p.amplitude for p in b.points], rel=1e-7
    )
    with pytest.raises(SymdelayInputError, match="L = inf"):
        cycles(founding, "theta", "2", "4", method="generic")


def _json(capsys, L):
    argv = ["cycles", "--L", L, "--mu", "1", "--lam", "1", "--D", "1", "--theta", "2:30"]
    status = cli_main([*argv, "--max-points", "3", "--json"])
    out = capsys.readouterr()
    assert status == 0, out.err
    return json.loads(out.out)


def test_cli_record_has_finite_L_keys(capsys):
    inf, two = _json(capsys, "inf"), _json(capsys, "2")
    assert set(inf) == set(two)
    assert set(two["start"]) <= set(inf["start"])  # the delay normal form adds l1_radius...
    assert inf["model"] == "two queues, logit routing, Erlang(inf) action delay"
    assert float(inf["start"]["value"]) == pytest.approx(2.2618263341146516, rel=1e-12)


def test_branch_approaches_the_exact_relay_limit(founding):
    """theta -> inf: x' = -mu x - 2 lam sgn x(t - D) rises for D after each upward zero, so
    its cycle's amplitude is (2 lam / mu)(1 - e^{-mu D}) = 1.26424 (mu = lam = D = 1); the
    branch rises towards it from below (the describing function's 8/(pi theta_c) = 1.126
    is already passed at theta = 8)."""
    exact = 2 * (1 - math.exp(-1))
    b = cycles(founding, "theta", "2", "150", intervals=40)
    amps = [p.amplitude for p in b.points]
    assert all(a < exact for a in amps)
    assert all(x <= y + 1e-9 for x, y in itertools.pairwise(amps))  # rising
    # the relay cycle is approached: at theta = 150 within 1% (O(1/theta) smoothing)
    assert b.points[-1].value > 140 and exact - amps[-1] < 0.01 * exact
