"""Branches of periodic orbits (``symdelay.cycles``, ``symdelay cycles``): the collocation
cycles against the Hopf normal form near the Hopf point and against Newton shooting, the fold
of cycles on the in-flight model's subcritical side, and bad input in one line."""

from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest

from symdelay.analysis.continuation import CycleBranch, cycles
from symdelay.analysis.cycles import limit_cycle
from symdelay.analysis.normal_form import normal_form
from symdelay.cli import main as cli_main
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model

FOUNDING = ["--L", "2", "--mu", "1", "--lam", "1", "--D", "1"]
#: an in-flight model whose Hopf point in mu is subcritical: ``normal-form --model inflight
#: --L 3 --pattern first --kappa 0.31 --lam 1 --D 1 --theta 90 --in mu`` says l1 > 0
INFLIGHT = {"L": 3, "lam": 1, "D": 1, "theta": 90, "kappa": "0.31", "pattern": "first"}


@pytest.fixture(scope="module")
def founding():
    return build_model("erlang", L=2, mu=1, lam=1, D=1)


@pytest.fixture(scope="module")
def near_hopf(founding):
    """The founding branch from theta_c = 9 up to 9.5 (L = 2, mu = lam = D = 1)."""
    return cycles(founding, "theta", "8", "9.5", intervals=20, max_points=60)


def _run(capsys, argv):
    try:
        status = cli_main(argv)
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr()
    return status, out.out, out.err


def test_amplitudes_near_the_hopf_point_follow_the_normal_form(founding, near_hopf):
    # the founding model's normal form is its own path (structured eigenvectors, closed
    # forms), not the projection the continuation starts from
    nf = normal_form(founding)
    assert float(nf.theta_c) == 9.0
    p, a, _, stable = near_hopf.arrays()
    assert near_hopf.start["kind"] == "Hopf point"
    assert float(near_hopf.start["value"]) == pytest.approx(9.0, abs=1e-12)
    d = p - 9.0
    assert np.all(d > 0) and np.all(np.diff(p) > 0)  # supercritical: the side above
    dev = np.abs(a / nf.amplitude(p) - 1)
    near = d < 0.1
    assert near.sum() >= 4
    # the ratio tends to 1, linearly in theta - theta_c (the next term of the law)
    assert dev[0] < 1e-3
    slope = dev[near] / d[near]
    assert slope.max() < 1.1 * slope.min(), slope
    assert np.all(np.diff(dev[near]) > 0)
    # supercritical: every cycle stable (or undecided right at the Hopf point, never unstable)
    assert not np.any(stable == 0)
    assert np.nansum(stable) >= len(p) - 2


def test_collocation_agrees_with_shooting(founding, near_hopf):
    # the last orbit lands on the range's end, theta = 9.5
    last = near_hopf.points[-1]
    assert near_hopf.stop == "left the range" and last.value == 9.5
    shot = limit_cycle(founding, "9.5")  # Newton shooting, DOP853 at rtol 1e-11
    # digits stated (measured 7e-13 and 1.2e-9): period to 1e-10, amplitude (the piecewise
    # polynomial between the nodes) to 1e-7, relative, at 20 intervals of degree 4
    assert last.period == pytest.approx(shot.period, rel=1e-10)
    assert last.amplitude == pytest.approx(shot.amplitude_x, rel=1e-7)
    # the slowest non-trivial multiplier of the difference system is the full model's too,
    # within the error bound the collocation states for it
    others = [i for i in range(last.multipliers.size) if i != last.trivial_index]
    i = max(others, key=lambda j: abs(last.multipliers[j]))
    ref = max(np.abs(shot.nontrivial))
    assert abs(abs(last.multipliers[i]) - ref) <= last.multiplier_errors[i]
    assert last.multiplier_errors[i] < 1e-6
    assert last.stable is True and shot.stable is True


def test_inflight_subcritical_side_has_a_fold_with_a_stable_outer_cycle():
    model = build_model("inflight", **INFLIGHT)
    nf = normal_form(model, param="mu")
    assert nf.l1 > 0 and nf.criticality == "subcritical"
    b = cycles(model, "mu", "0.9", "1.1", max_points=60)
    assert float(b.start["value"]) == pytest.approx(float(nf.theta_c), rel=1e-12)
    assert float(b.start["l1"]) == pytest.approx(float(nf.l1), rel=1e-8)
    assert b.start["criticality"] == "subcritical"
    folds = [s for s in b.special_points if s.kind == "LPC"]
    assert len(folds) == 1 and folds[0].located
    lpc = folds[0]
    p, a, _, stable = b.arrays()
    k = lpc.between[1]
    # the fold is the largest mu on the branch; the inner cycles (born at the Hopf point)
    # are unstable, the outer ones (beyond the fold) stable
    assert lpc.value >= p.max() - 1e-9
    assert lpc.value > float(nf.theta_c)
    assert np.all(stable[: k - 1] == 0)
    assert np.all(stable[k + 1 :] == 1)
    assert np.all(a[k:] > lpc.amplitude - 1e-9)
    # at the fold a non-trivial multiplier is 1
    assert abs(lpc.multipliers[0] - 1) < 1e-3
    assert b.stop == "left the range" and p[-1] == 0.9
    # the normal form's law holds for the unstable cycles too (it was NaN when subcritical):
    # the first cycle next to the Hopf point against c sqrt(mu - mu_c)
    assert nf.side == "above" and mpmath.isfinite(nf.amplitude_coefficient)
    first = int(np.argmin(np.abs(p - float(nf.theta_c))))
    law = float(nf.amplitude_coefficient) * np.sqrt(abs(p[first] - float(nf.theta_c)))
    assert a[first] == pytest.approx(law, rel=2e-3)


def test_the_command_prints_the_branch_and_its_json(capsys, near_hopf):
    # (--plot: tests/test_cli_plot.py)
    argv = ["cycles", *FOUNDING, "--theta", "8:9.5", "--max-points", "5"]
    status, out, err = _run(capsys, [*argv, "--json"])
    assert status == 0, err
    rec = json.loads(out)
    assert rec["param"] == "theta" and len(rec["branch"]) == 5 and rec["special_points"] == []
    assert {"value", "amplitude", "period", "stable"} <= set(rec["branch"][0])
    assert rec["stop"] == "budget" and rec["kept"] == 5
    # the same orbits as the API's branch (the first five of it)
    for pt, c in zip(rec["branch"], near_hopf.points):
        assert float(pt["value"]) == c.value and float(pt["amplitude"]) == c.amplitude
    text = near_hopf.text()
    assert "amplitude_x" in text and "stopped: left the range" in text
    assert "Hopf point at theta = 9" in text


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["--theta", "8:8.5"], "no Hopf point"),
        (["--theta", "8:12", "--max-points", "5000", "--intervals", "2000"], "--force"),
        (["--theta", "12:8"], "LO < HI"),
        (["--theta", "8:12", "--degree", "9"], "--degree"),
        (["--in", "mu", "--range", "0.5:1"], "leave --mu out"),
    ],
)
def test_bad_input_is_one_line(capsys, argv, says):
    status, _, err = _run(capsys, ["cycles", *FOUNDING, *argv])
    assert status == 2 and err.count("\n") == 1 and says in err, err


def test_a_delay_model_without_its_lag_is_refused_in_one_line(capsys):
    # a delay model's cycles are continued (tests/test_delay_cycles.py); its lag's value
    # is still needed
    argv = ["cycles", "--model-file", "examples/models/constant_action_delay.toml"]
    status, _, err = _run(capsys, [*argv, "--set", "mu=1", "--set", "lam=1", "--theta", "1:20"])
    assert status == 2 and err.count("\n") == 1 and "give D" in err, err


def test_a_multiple_imaginary_pair_starts_no_branch():
    model = build_model("nserver", N=3, L=2, mu=1, lam=1, D=1)
    with pytest.raises(SymdelayInputError, match="multiple"):
        cycles(model, "theta", "1", "20")


def test_from_a_given_cycle_down_to_the_hopf_point(founding):
    # the shooting cycle at theta = 10 (the full drift) continued down: it ends at theta_c
    shot = limit_cycle(founding, "10", method="generic")
    b = cycles(founding, "theta", "8", "10", start=shot, direction=-1, max_points=80)
    assert isinstance(b, CycleBranch) and b.start["kind"] == "given cycle"
    assert b.points[0].amplitude == pytest.approx(shot.amplitude_x, rel=1e-6)
    assert b.points[0].period == pytest.approx(shot.period, rel=1e-9)
    assert b.stop == "ended at a Hopf point"
    p, a, _, _ = b.arrays()
    assert np.all(np.diff(p) < 0) and 9 < p[-1] < 9.01 and a[-1] < 0.02
    assert np.all(a > 1e-3)  # the equilibrium it may reach last is not a cycle, not kept


def test_the_test_functions_of_period_doubling_and_torus_points():
    from symdelay.analysis.continuation import (
        _ns_value,
        _one_value,
        _pd_value,
        _sign_ns,
        _sign_one,
        _sign_pd,
    )

    inside = np.array([-0.9, 0.5 + 0.5j, 0.5 - 0.5j, 0.1])
    outside = np.array([-1.1, 0.5 + 0.5j, 0.5 - 0.5j, 0.1])
    assert _sign_pd(inside) == -_sign_pd(outside)
    assert _pd_value(inside) == pytest.approx(0.1) and _pd_value(outside) == pytest.approx(-0.1)
    assert _sign_ns(inside) == _sign_ns(outside)  # a real multiplier is no torus
    pair = np.array([0.9j + 0.3, 0.3 - 0.9j, 0.2])  # |rho| = 0.9487
    bigger = np.array([1.0j + 0.4, 0.4 - 1.0j, 0.2])  # |rho| = 1.077
    assert _sign_ns(pair) == -_sign_ns(bigger) and _sign_pd(pair) == _sign_pd(bigger)
    assert _ns_value(pair) < 0 < _ns_value(bigger)
    # a real multiplier through +1 (a fold, or without one a branch point of cycles)
    below, above = np.array([0.99, 0.2]), np.array([1.01, 0.2])
    assert _sign_one(below) == -_sign_one(above) and _sign_pd(below) == _sign_pd(above)
    assert _one_value(below) == pytest.approx(-0.01)


def test_the_domain_rule_allows_the_discretisation_error_only():
    from symdelay.analysis.bvp import Collocation, Orbit
    from symdelay.analysis.continuation import _in_domain

    coll = Collocation(4, np.linspace(0.0, 1.0, 11))
    t = coll.node_times()
    U = np.stack([1 + np.cos(2 * np.pi * t), 0.5 + 0 * t], axis=1)  # touches 0 at t = 1/2
    assert _in_domain(Orbit(coll, U, 1.0, 1.0))
    low = U.copy()
    low[:, 0] -= 1e-3  # below zero by far more than its polynomials' error
    assert not _in_domain(Orbit(coll, low, 1.0, 1.0))
    assert coll.error_estimate(U) < 1e-4
