"""The curve of folds of cycles of a delay model in two parameters, from the Bautin point
of its stability map (:func:`symdelay.analysis.fold_cycles.fold_of_cycles` on the delay
collocation of :mod:`symdelay.analysis.dbvp`).

The model: routing on a sharpened imbalance seen ``D`` ago (tests/test_delay_l1.py). Its
Hopf curve in ``(c, theta)`` is the line ``theta = theta_c`` of the constant information
lag (``c`` does not enter the linearisation), and ``l1 = l1(0) (1 - 24 c)`` along it: one
Bautin point, at ``c = 1/24`` exactly. The Bautin normal form
``rho' = rho (beta + a rho^2 + b rho^4)`` puts the fold of cycles at ``rho^2 = -a/(2b)``,
``beta = -a rho^2 / 2``: the curve leaves the Bautin point tangent to the Hopf line
(``theta_c - theta ~ (c - 1/24)^2``), and at the fold the amplitude is ``sqrt 2`` times the
Hopf law's at the same distance from ``theta_c`` (``A^2 = 2 C(c)^2 |theta - theta_c|``,
``C(c)^2 (24 c - 1)`` constant since ``l1`` is linear in ``c``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from symdelay.analysis.continuation import cycles
from symdelay.analysis.fold_cycles import fold_of_cycles
from symdelay.analysis.stability_map import stability_map
from symdelay.model.core import Model
from tests.test_delay_l1 import SHARPENED

C_B = 1 / 24


def _hopf_line():
    """``(theta_c, omega)`` of ``x' = -x - 2 tanh(theta x(t - 1) / 2)``: ``tan omega =
    -omega`` with omega in ``(pi/2, pi)``, ``theta_c = sqrt(1 + omega^2)``."""
    w = brentq(lambda w: math.sin(w) + w * math.cos(w), math.pi / 2, math.pi)
    return math.sqrt(1 + w * w), w


@pytest.fixture(scope="module")
def sharpened(tmp_path_factory):
    path = tmp_path_factory.mktemp("dfold") / "sharpened.toml"
    path.write_text(SHARPENED)
    return path


@pytest.fixture(scope="module")
def curve(sharpened):
    th_c, w = _hopf_line()
    m = Model.from_toml(sharpened, mu=1, lam=1, D=1)
    hopf = [(c, th_c, w) for c in np.linspace(0.01, 0.1, 25)]
    return fold_of_cycles(m, ("c", "0.01", "0.1"), ("theta", "1.5", "3"), (C_B, th_c, w),
                          hopf=hopf, intervals=30)  # fmt: skip


def test_the_fold_curve_ends_at_the_bautin_point_tangent_to_the_hopf_line(curve):
    th_c, _ = _hopf_line()
    assert curve.ends == ("Bautin point", "box edge")
    assert float(curve.start["residual"]) < 1e-10
    # started from the fold the Bautin normal form predicts (l2 < 0: where l1 > 0)
    assert curve.start["kind"] == "fold predicted by the Bautin normal form"
    assert float(curve.start["l2"]) < 0 < float(curve.start["l1"])
    x, y, _, A = curve.arrays()
    assert (x[0], y[0], A[0]) == (C_B, th_c, 0.0)
    assert x[-1] == pytest.approx(0.1, abs=1e-12)  # landed on the box's edge
    dc, dth = x[1:] - C_B, th_c - y[1:]
    assert np.all(dc > 0) and np.all(np.diff(dc) > 0)  # the subcritical side, c > 1/24
    assert dc[0] < 1e-4
    # accurate points (theta to ~1e-9 against theta_c - theta >= 4e-7) near the Bautin point
    near = (A[1:] > 0.03) & (A[1:] < 0.07)
    assert near.sum() >= 3
    slope, curv = dth[near] / dc[near], dth[near] / dc[near] ** 2
    assert np.all(dth[near] > 0)
    # tangent: the slope d theta / d c goes to 0 linearly (theta_c - theta ~ k (c - 1/24)^2)
    assert slope[0] < 0.5 * slope[-1] and slope[0] < 0.02
    assert np.ptp(curv) < 0.15 * np.mean(curv)
    # the fold's amplitude against the Hopf law at the same c: A^2 = 2 C(c)^2 (theta_c - theta)
    c0 = float(curve.start["fixed"]["value"])
    K2 = float(curve.start["amplitude_coefficient"]) ** 2 * (24 * c0 - 1)
    ratio = A[1:][near] ** 2 * (24 * x[1:][near] - 1) / (K2 * dth[near])
    assert np.all(np.abs(ratio - 2) < 0.15)
    # it tends to 2 as the amplitude goes to 0 (the correction is of order A^2)
    assert abs(ratio[0] - 2) < abs(ratio[-1] - 2) or abs(ratio[0] - 2) < 0.03


def test_a_point_of_the_curve_is_the_fold_of_an_independent_branch(curve, sharpened):
    """At c = 0.07 (not the start's value), the curve's fold against the LPC located on the
    one-parameter delay branch in theta (its own mesh, from its own Hopf point)."""
    _, th, T, A = curve.at(c="0.07")
    m = Model.from_toml(sharpened, mu=1, lam=1, D=1, c="0.07")
    b = cycles(m, "theta", "1.5", "3", intervals=30)
    (lpc,) = [s for s in b.special_points if s.kind == "LPC"]
    assert lpc.located
    assert th == pytest.approx(lpc.value, abs=1e-8)
    assert pytest.approx(lpc.period, rel=1e-7) == T
    assert pytest.approx(lpc.amplitude, rel=1e-6) == A


@pytest.fixture(scope="module")
def delay_map(sharpened):
    m = Model.from_toml(sharpened, mu=1, lam=1, D=1)
    return stability_map(m, x=("c", "0.035", "0.06"), y=("theta", "2", "2.5"), cells=3)


def test_the_delay_map_carries_and_draws_the_curve(delay_map, curve):
    """The map's record has the curve from its (certified) Bautin point, as a table's map;
    its fold at c = 0.05 is the standalone curve's (a coarser mesh: within 1e-8)."""
    import json

    import matplotlib

    (b,) = [s for s in delay_map.special_points if s["type"] == "bautin"]
    (fc,) = delay_map.fold_of_cycles
    assert fc.bautin[0] == pytest.approx(float(b["x"]), abs=1e-15)
    assert fc.ends == ("Bautin point", "box edge")
    rec = json.loads(json.dumps(delay_map.record()))
    assert len(rec["fold_of_cycles"]) == 1
    assert len(rec["fold_of_cycles"][0]["points"]) == len(fc.points)
    assert fc.at(c="0.05")[1] == pytest.approx(curve.at(c="0.05")[1], abs=1e-8)
    matplotlib.use("Agg")
    ax = delay_map.plot().axes[0]
    lines = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-."]
    assert len(lines) == 1 and len(lines[0].get_xdata()) == len(fc.points)


def test_bad_input_is_refused_in_one_line(sharpened):
    from symdelay.core.errors import SymdelayInputError

    th_c, w = _hopf_line()
    m = Model.from_toml(sharpened, mu=1, lam=1, D=1)
    with pytest.raises(SymdelayInputError, match="no second parameter 'kappa'") as e:
        fold_of_cycles(m, ("c", "0.01", "0.1"), ("kappa", "1", "3"), (C_B, 2, w))
    assert "\n" not in str(e.value)
    with pytest.raises(SymdelayInputError, match="must lie in the box"):
        fold_of_cycles(m, ("c", "0.05", "0.1"), ("theta", "1.5", "3"), (C_B, th_c, w))
    free = Model.from_toml(sharpened, mu=1, lam=1)
    with pytest.raises(SymdelayInputError, match="give D"):
        fold_of_cycles(free, ("c", "0.01", "0.1"), ("theta", "1.5", "3"), (C_B, th_c, w))
