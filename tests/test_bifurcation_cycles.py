"""Limit cycles: a model file reaches the cycle computation from the command line, and a
cycle's stability is decided from its Floquet multipliers with their error bounds (true,
false, or null when a multiplier is within its error of the unit circle).

Independent values: the built-in founding model at the same numbers (the model file is
the founding model at L = 2), the radial multiplier of a cycle just past a Hopf point
``exp(-2 Re r'(theta_c) (theta - theta_c) T)`` from the normal form's transversality
derivative, and a planar Hopf normal form whose multipliers are known in closed form.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from symdelay.analysis.cycles import (
    LimitCycle,
    VectorField,
    _finish,
    _flow,
    decide_stability,
    limit_cycle,
    shoot,
)
from symdelay.cli import main as cli_main
from symdelay.models import build_model

ROOT = Path(__file__).resolve().parents[1]
FOUND = ["--L", "2", "--mu", "1", "--lam", "1", "--D", "1"]


def _json(capsys, argv):
    try:
        status = cli_main([*argv, "--json"])
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr()
    assert status == 0, out.err
    return json.loads(out.out)


@pytest.fixture(scope="module")
def founding():
    return build_model("erlang", L=2, mu=1, lam=1, D=1)


def test_model_file_reaches_the_cycle_and_agrees_with_the_founding_model(capsys):
    """erlang2.toml with gamma = 2 is the founding model at L = 2, D = 2/gamma = 1: the
    generic path (full drift of the file's table) against the founding specialisation
    (its exact difference system), both from the command line."""
    path = str(ROOT / "examples" / "models" / "erlang2.toml")
    sets = ["--set", "mu=1", "--set", "lam=1", "--set", "gamma=2"]
    f = _json(capsys, ["limit-cycle", "--model-file", path, *sets, "--theta", "9.5"])
    b = _json(capsys, ["limit-cycle", *FOUND, "--theta", "9.5"])
    assert float(f["amplitude_x"]) == pytest.approx(float(b["amplitude_x"]), rel=1e-8)
    assert float(f["period"]) == pytest.approx(float(b["period"]), rel=1e-9)
    assert f["stable"] is True and b["stable"] is True
    # the non-trivial multipliers of the 3-dimensional difference system appear among the
    # full system's (the others belong to the sum mode, exp(-gamma T), exp(-mu T) ...)
    full = [complex(float(m["re"]), float(m["im"])) for m in f["floquet_multipliers"]]
    for m in b["floquet_multipliers"]:
        if m["trivial"] or float(m["abs"]) < 1e-3:
            continue
        z = complex(float(m["re"]), float(m["im"]))
        assert min(abs(z - w) for w in full) < 1e-7
    assert sum(m["trivial"] for m in f["floquet_multipliers"]) == 1


def test_cycle_just_past_a_supercritical_hopf_point_is_not_unstable(founding):
    """theta = theta_c + 1e-9 (theta_c = 9): the radial multiplier is 1 - 2.7e-10. Before,
    it was decided unstable (within 1e-8 of the circle); now it is compared with its error
    and with the normal form's prediction ``exp(-2 Re r' eps T)``."""
    from symdelay.analysis.normal_form import normal_form

    nf = normal_form(founding)
    eps = 1e-9
    c = limit_cycle(founding, "9.000000001")
    assert c.stable is not False
    k = c.trivial_index
    assert abs(c.multipliers[k] - 1) < 1e-12  # the flow direction's multiplier
    rest = np.delete(c.multipliers, k)
    errs = np.delete(c.multiplier_errors, k)
    i = int(np.argmin(np.abs(rest - 1)))
    predicted = np.exp(-2 * float(nf.record()["r_prime"]["re"]) * eps * c.period)
    assert abs(rest[i] - predicted) <= errs[i]  # the bound covers the true error
    assert errs[i] < 1e-9  # and says something
    if c.stable is None:
        assert "within its error" in c.stability_reason
    else:
        assert abs(rest[i]) < 1 - errs[i]


def test_too_close_to_the_hopf_point_is_undecided_not_a_verdict(founding, capsys):
    """theta_c + 1e-11: the radial multiplier 1 - 2.7e-12 is within its error (~1e-10)."""
    rec = _json(capsys, ["limit-cycle", *FOUND, "--theta", "9.00000000001"])
    assert rec["stable"] is None
    assert "within its error" in rec["stability_reason"]
    assert cli_main(["limit-cycle", *FOUND, "--theta", "9.00000000001"]) == 0
    out = capsys.readouterr().out
    assert "undecided" in out


def _hopf_field(a: float) -> VectorField:
    """``z' = i z + a z (|z|^2 - 1)``: the cycle |z| = 1, period 2 pi, multipliers 1 and
    ``exp(4 pi a)`` exactly (stable for a < 0, unstable for a > 0)."""

    def f(y):
        x, v = y
        r2 = x * x + v * v - 1
        return np.array([-v + a * x * r2, x + a * v * r2])

    def jac(y):
        x, v = y
        r2 = x * x + v * v - 1
        return np.array(
            [
                [a * r2 + 2 * a * x * x, -1 + 2 * a * x * v],
                [1 + 2 * a * x * v, a * r2 + 2 * a * v * v],
            ]
        )

    return VectorField("hopf", 2, f, jac, np.array([1.0, 0.0]), -np.eye(2), ("x", "v"), np.zeros(2))


@pytest.mark.parametrize("a, stable", [(-0.1, True), (0.1, False), (1e-13, None)])
def test_decision_against_closed_form_multipliers(a, stable):
    fld = _hopf_field(a)
    if stable is None:  # every circle is nearly a cycle: start on the exact one
        y0, T = np.array([0.0, 1.0]), 2 * np.pi
        sol = _flow(fld, y0, T / 2, True, dense=True)
        Phi, k, res = sol.y[2:, -1].reshape(2, 2), 0, 0.0
    else:
        y0, T, Phi, k, res, sol = shoot(fld, np.array([0.0, 1.001]), 2 * np.pi + 0.01)
    c = _finish(fld, y0, T, Phi, k, res, sol, 1.0, "test")
    assert isinstance(c, LimitCycle)
    assert pytest.approx(2 * np.pi, rel=1e-10) == T
    m = c.multipliers
    assert abs(m[c.trivial_index] - 1) < 1e-9
    other = np.delete(m, c.trivial_index)[0]
    err = np.delete(c.multiplier_errors, c.trivial_index)[0]
    assert abs(other - np.exp(4 * np.pi * a)) <= err
    assert c.stable is stable
    assert c.record()["stable"] is stable


def test_decide_stability_rules():
    assert decide_stability([1, 0.5], [1e-3, 1e-3], 0)[0] is True
    assert decide_stability([1, 1.01], [1e-3, 1e-3], 0)[0] is False
    assert decide_stability([1, 1.0005], [1e-3, 1e-3], 0)[0] is None
    # the trivial multiplier is excluded whatever its size
    assert decide_stability([1.5, 0.5], [1e-3, 1e-3], 0)[0] is True
