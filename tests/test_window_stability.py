"""Stability for every length of a moving-average window, exactly: the moving average
``r + mu + lam theta (1 - exp(-r Delta))/(r Delta)`` is stable for every ``Delta > 0`` iff
``mu > m lam theta``, ``m = -min sin(phi)/phi``. Checked against mpmath's root of
``tan(phi) = phi`` (an independent second path to the constant), against the certified
lag-parameter analysis at numbers on both sides of the threshold (a proof of stability
for every Delta below it; a finite critical Delta above it, where the closed crossing
equations give the same Delta), and for the CLI text and JSON."""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import pytest
import sympy as sp

import symdelay
from symdelay.analysis.delayindep import window_constant, window_stability
from symdelay.cli import main as cli_main

MODELS = Path(__file__).resolve().parent.parent / "examples" / "models"


@pytest.fixture(scope="module")
def moving():
    return symdelay.load_toml(MODELS / "moving_average.toml")


def test_the_constant_against_mpmath():
    m, phi = window_constant()
    with mpmath.workdps(40):
        root = mpmath.findroot(lambda x: mpmath.tan(x) - x, 4.49)
        assert abs(float(phi.mid()) - float(root)) < 1e-15
        import flint

        with flint.ctx.workprec(200):  # mpmath's 40 digits agree with the balls (1e-44)
            assert abs(phi - flint.arb(mpmath.nstr(root, 40))) < flint.arb("1e-38")
            assert abs(m - flint.arb(mpmath.nstr(-mpmath.sin(root) / root, 40))) < flint.arb(
                "1e-38"
            )
        # it is the global minimum: a dense sample never goes below -m
        xs = [mpmath.mpf(k) / 100 for k in range(1, 20000)]
        assert min(mpmath.sin(x) / x for x in xs) >= -float(m.mid()) - 1e-12


def test_the_condition_for_the_moving_average(moving):
    w = window_stability(moving)
    assert w["param"] == "Delta" and w["exact"] is True
    assert w["conditions"] == ["-lam*m*theta + mu > 0"]
    assert symdelay.load_toml(MODELS / "information_delay.toml") is not None
    assert window_stability(symdelay.load_toml(MODELS / "information_delay.toml")) is None


@pytest.mark.parametrize("side", [-1, 1])
def test_against_the_certified_lag_analysis(moving, side):
    """lam*theta just below 1/m: proved stable for every Delta by the scale-family search;
    just above: a finite critical Delta, whose crossing satisfies the closed equations."""
    from symdelay.analysis.critical import critical

    m = float(window_constant()[0].mid())
    k = sp.Rational(1 / m).limit_denominator(10**6) * (1 + sp.Rational(side, 1000))
    model = moving.with_values(mu=1, lam=1, theta=k)
    point = critical(model, "Delta").record()["points"][0]
    if side < 0:
        assert point["Delta_c"] == "inf" and "stable for every Delta > 0 (proved" in point["note"]
    else:
        dc = float(point["Delta_c"])
        # the first crossing: 1 + k sin(phi)/phi = 0 with w = k (1 - cos phi)/phi, Delta =
        # phi/w; the two roots phi near phi* give two crossings, the first is the smaller Delta
        kf = float(k)
        cands = []
        star = float(window_constant()[1].mid())
        for bracket in ((mpmath.pi, star), (star, 2 * mpmath.pi)):
            phi = mpmath.findroot(lambda x: 1 + kf * mpmath.sin(x) / x, bracket, solver="anderson")
            cands.append(float(phi / (kf * (1 - mpmath.cos(phi)) / phi)))
        assert abs(dc - min(cands)) < 1e-9 * dc


def test_cli_text_and_json(capsys):
    f = str(MODELS / "moving_average.toml")
    assert cli_main(["analyze", "--model-file", f]) == 0
    out = capsys.readouterr().out
    assert "stable for every Delta > 0 exactly when" in out and "1/m = 4.60333884875170" in out
    assert cli_main(["stability", "--model-file", f, "--set", "mu=1", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)["for_every_lag"]
    assert rec["conditions"] == ["-lam*m*theta + 1 > 0"]


@pytest.mark.parametrize("theta", ["6", "4"])
def test_window_over_every_length_without_hi(moving, theta):
    """window --in Delta without hi: every switch lies below the proved bound, so the answer
    holds on (0, oo); the same switches as a search up to a large hi (an independent run
    of the 2-D search over a range the bound did not choose), and at theta = 6 the two
    switches of the closed crossing equations (1 + 6 sin(phi)/phi = 0)."""
    from symdelay.analysis.window import window

    model = moving.with_values(mu=1, lam=1, theta=sp.Rational(theta))
    free = window(model, "Delta").record()
    wide = window(model, "Delta", hi=40).record()
    assert free["range"] == ["0", "inf"]
    assert free["intervals"] == wide["intervals"]
    assert any("no switch beyond Delta" in n for n in free["method"]["notes"])
    if theta == "6":
        star = float(window_constant()[1].mid())
        ds = []
        for bracket in ((mpmath.pi, star), (star, 2 * mpmath.pi)):
            phi = mpmath.findroot(lambda x: 1 + 6 * mpmath.sin(x) / x, bracket, solver="anderson")
            ds.append(float(phi / (6 * (1 - mpmath.cos(phi)) / phi)))
        got = [float(x) for x in free["intervals"][0]]
        assert all(abs(g - d) < 1e-10 * d for g, d in zip(got, sorted(ds), strict=True))
    else:
        assert free["intervals"] == []
