"""l1 of delay models read from the one normal-form path (``analysis/dnormal.py``) by the
branch of cycles and by the stability map.

* The stability map: l1 at the points of the information lag's curves in (D, theta), of
  the two-lag mixture's in (D1, D2) (with two Bautin points) and of the moving average's
  (a map by columns) against the scalar closed forms; the Bautin point located by the
  columns' scan against the closed-form curves' location.
* The branch of cycles of the constant information lag, in theta and in D: the start
  record's ``l1`` and amplitude coefficient against the closed forms of the scalar equation
  ``x' = -mu x - 2 lam tanh(theta x(t - D)/2)`` (tests/test_delay_normal_form.py), and the
  first cycles' amplitudes, computed by collocation (an independent path), against
  ``c sqrt|p - p_c|``: the ratio tends to 1.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import symdelay
from symdelay.model.core import Model
from tests.test_delay_cycles import SHARPENED as _SHARPENED_TEXT

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "models"
INFO = EXAMPLES / "information_delay.toml"


def _closed(param, mu, lam, theta, D, w):
    """``(l1, c)`` of the scalar equation at a Hopf point: ``c1 = -(theta^2/4) z / (1 + D z)``
    (``z = mu + i w``), ``l1 = Re c1 / w``; the amplitude coefficient in theta
    ``4 theta^(-3/2)``, in D ``4 w / (theta sqrt(mu + lam^2 theta^2 D))``."""
    z = mu + 1j * w
    c1 = -(theta**2) / 4 * z / (1 + D * z)
    coef = (
        4 * theta**-1.5
        if param == "theta"
        else 4 * w / theta / np.sqrt(mu + (lam * theta) ** 2 * D)
    )
    return c1.real / w, coef


@pytest.mark.parametrize(
    "param, fixed, rng",
    [("theta", {"D": 1}, (2.0, 2.6)), ("D", {"theta": 3}, (0.5, 0.8))],
)
def test_branch_start_from_the_delay_normal_form(param, fixed, rng):
    m = Model.from_toml(INFO, mu=1, lam=1, **fixed)
    branch = symdelay.cycles(m, param, *rng, max_points=5)
    st = branch.start
    pc, w = float(st["value"]), float(st["omega"])
    theta = pc if param == "theta" else 3.0
    D = pc if param == "D" else 1.0
    l1, coef = _closed(param, 1, 1, theta, D, w)
    assert float(st["l1"]) == pytest.approx(l1, rel=1e-10)
    assert float(st["l1_radius"]) < 1e-15
    assert float(st["amplitude_coefficient"]) == pytest.approx(coef, rel=1e-10)
    assert st["criticality"] == "supercritical" and st["side"] == "above"
    assert st["side_check"].startswith("agrees")
    # the collocation orbits against the law: the ratio tends to 1 as the amplitude shrinks
    near = [p for p in branch.points if p.value > pc and p.amplitude <= 0.07]
    assert len(near) >= 3 and near[0].amplitude < 0.015
    dev = [abs(p.amplitude / (coef * np.sqrt(p.value - pc)) - 1) for p in near]
    assert dev[0] < 2e-4 and max(dev) < 2e-3, dev


# ------------------------------------------------------------------ the stability map
def _scalar_l1(mu, lam, theta, w, lags):
    """``l1`` of ``x' = -mu x - 2 lam tanh(theta y/2)``, ``y`` the mixture
    ``sum_k w_k x(t - D_k)`` of constant lags (``lags`` = ``[(w_k, D_k)]``), at a Hopf point
    with frequency ``w``: ``c1 = 3 c |K|^2 K / Delta'(i w)``, ``c = lam theta^3 / 12``,
    ``Delta(r) = r + mu + lam theta K(r)``; and ``|Delta(i w)|`` (zero on a Hopf curve)."""
    import mpmath

    iw = mpmath.mpc(0, w)
    lags = [(mpmath.mpf(a), mpmath.mpf(d)) for a, d in lags]
    K = mpmath.fsum(a * mpmath.exp(-iw * d) for a, d in lags)
    dK = -mpmath.fsum(a * d * mpmath.exp(-iw * d) for a, d in lags)
    b, c = lam * theta, lam * theta**3 / 12
    c1 = 3 * c * abs(K) ** 2 * K / (1 + b * dK)
    return mpmath.re(c1) / w, abs(iw + mu + b * K)


def test_information_lag_map_every_point_supercritical_by_the_closed_form():
    import mpmath

    from symdelay.analysis.stability_map import stability_map

    m = Model.from_toml(INFO, mu=1, lam=1)
    res = stability_map(m, x=("D", "0.05", 8), y=("theta", "0.1", 4), cells=4)
    values = res._details["l1"]
    n = 0
    with mpmath.workdps(30):
        for ci, c in enumerate(res.curves):
            for (D, th, w), v in zip(c.points, values[ci]):
                if v is None:
                    continue
                ref, res_ = _scalar_l1(1, 1, th, w, [(1, D)])
                assert res_ < 1e-12 and v == pytest.approx(float(ref), rel=1e-12)
                assert v < 0
                n += 1
    assert n >= 50
    note = next(t for t in res.notes if t.startswith("first Lyapunov coefficient"))
    assert f"l1 at {n} Hopf points: {n} negative (supercritical), 0 positive" in note
    assert not [s for s in res.special_points if s["type"] == "bautin"]


def test_two_lag_mixture_bautin_points_against_the_closed_form():
    """Routing on the mixture 0.8 x(t - D1) + 0.2 x(t - D2) at theta = 6: l1 changes sign
    along the Hopf curves in (D1, D2). The located points: on the curve, the closed-form l1
    zero there (to the location's accuracy) and of opposite signs just either side along
    the curve; the sign proved (certified)."""
    import mpmath

    from symdelay.analysis.stability_map import stability_map

    m = Model.from_toml(EXAMPLES / "two_lag_mixture.toml", mu=1, lam=1, theta=6, w="0.8")
    res = stability_map(m, x=("D1", "0.3", "0.6"), y=("D2", "3.5", 5), cells=4, fold_cycles=False)
    bautin = [s for s in res.special_points if s["type"] == "bautin"]
    assert len(bautin) == 2 and all(s["certified"] for s in bautin)
    values = res._details["l1"]
    with mpmath.workdps(30):
        for ci, c in enumerate(res.curves):  # every evaluated point: the closed form
            for (x, y, w), v in zip(c.points, values[ci]):
                if v is not None:
                    ref, _ = _scalar_l1(1, 1, 6, w, [("0.8", x), ("0.2", y)])
                    assert v == pytest.approx(float(ref), rel=1e-9, abs=1e-13)
        scale = max(abs(v) for ls in values.values() for v in ls if v is not None)
        for s in bautin:
            lags = [("0.8", s["x"]), ("0.2", s["y"])]
            l1, miss = _scalar_l1(1, 1, 6, s["omega"], lags)
            assert miss < 1e-12 and abs(l1) < 1e-12 * scale
            assert s["l1_left"] * s["l1_right"] < 0
            # l2 decided there; the folds of cycles on the side where l1 has its opposite sign
            assert abs(s["l2"]) > s["l2_radius"]
            assert s["fold_side"] == ("l1 > 0" if s["l2"] < 0 else "l1 < 0")
    note = next(t for t in res.notes if t.startswith("first Lyapunov coefficient"))
    assert "2 Bautin point(s)" in note and "positive (subcritical)" in note
    assert {p["type"] for p in res.record()["special_points"]} == {"bautin"}
    # the scan of a map by columns (lagbautin.column_l1_scan: Hopf points proved by
    # Krawczyk at exact columns, the zero located in the column coordinate) from two
    # columns D1 = 0.38, 0.40 either side of the first point: the same Bautin point
    from symdelay.analysis.lagbautin import column_l1_scan

    first = min(bautin, key=lambda s: s["x"])
    pts, cols = [], {}
    with mpmath.workdps(30):
        for q in (Fraction(38, 100), Fraction(40, 100)):
            c = mpmath.mpf(q.numerator) / q.denominator

            def eqs(y, w, c=c):
                v = _mixture(c, y, mpmath.mpc(0, w))
                return [mpmath.re(v), mpmath.im(v)]

            y, w = mpmath.findroot(eqs, [first["y"], first["omega"]])
            pts.append((c, y, w))
            cols[c] = sp.Rational(q.numerator, q.denominator)
    notes = []
    found, vals = column_l1_scan(
        m, [(first["factor"], pts)], ("D1", "D2"), "y", cols, 15, notes, lambda i: 1
    )
    (b,) = found
    assert b["certified"] and vals[0][0] < 0 < vals[0][1]
    for k in ("x", "y", "omega"):
        assert abs(b[k] - first[k]) < 1e-12 * abs(first[k])


def _mixture(D1, D2, z):
    """The difference mode of the mixture at theta = 6, w = 0.8 (mu = lam = 1)."""
    import mpmath

    return (
        z
        + 1
        + 6 * (mpmath.mpf("0.8") * mpmath.exp(-z * D1) + mpmath.mpf("0.2") * mpmath.exp(-z * D2))
    )


def test_moving_average_map_by_columns_against_the_closed_form():
    """The uniform lag on [0, Delta] (a map by columns): l1 at every certified crossing
    equals the scalar closed form c1 = 3 c |K|^2 K / Delta'(i w) (tests/
    test_delay_normal_form.py), supercritical."""
    import mpmath

    from symdelay.analysis.stability_map import stability_map

    m = Model.from_toml(EXAMPLES / "moving_average.toml", mu=1, lam=1)
    res = stability_map(m, x=("Delta", "0.1", 5), y=("theta", "0.1", 10), cells=4)
    (values,) = [v for v in res._details["l1"].values() if v]
    (curve,) = [c for c in res.curves if c.kind == "hopf"]
    with mpmath.workdps(30):
        for (Dl, th, w), v in zip(curve.points, values):
            iw = mpmath.mpc(0, w)

            def K(z, Dl=Dl):
                return (1 - mpmath.exp(-Dl * z)) / (Dl * z)

            k, dk = K(iw), mpmath.diff(K, iw)
            assert abs(iw + 1 + th * k) < 1e-12  # a Hopf point
            c1 = 3 * (th**3 / 12) * abs(k) ** 2 * k / (1 + th * dk)
            assert v < 0 and v == pytest.approx(float(mpmath.re(c1) / w), rel=1e-10)
    assert len(values) >= 3
    assert any("l1 at" in t and "negative (supercritical), 0 positive" in t for t in res.notes)


def test_a_map_with_an_equilibrium_in_radicals_refuses_in_one_line(tmp_path):
    """Quadratic service mu q^2 at lam/mu = 1/5: the equilibrium sqrt(5)/5 makes the mode
    function's coefficients irrational; the map (exact rationals) says so (it ended in an
    internal error)."""
    from symdelay.analysis.stability_map import stability_map
    from symdelay.core.errors import SymdelayInputError

    text = INFO.read_text().replace('"mu*q1"', '"mu*q1**2"').replace('"mu*q2"', '"mu*q2**2"')
    path = tmp_path / "quadratic.toml"
    path.write_text(text)
    m = Model.from_toml(path, mu=1, lam="1/5")
    with pytest.raises(SymdelayInputError, match="irrational coefficient sqrt"):
        stability_map(m, x=("D", "0.05", 8), y=("theta", "0.1", 6), cells=4)


#: routing on a sharpened imbalance: tests/test_delay_cycles.py's subcritical example
SHARPENED = _SHARPENED_TEXT


def test_sharpened_routing_has_its_bautin_point_at_c_one_24th(tmp_path):
    """Routing on u = theta y + 2 c (theta y)^3 / (1 + (theta y)^4), y = x(t - D): the
    difference equation x' = -mu x - 2 lam tanh(u/2) has the cubic 2 lam theta^3 (c - 1/24)
    y^3, so l1 = l1(c = 0) (1 - 24 c) on the Hopf line theta = theta_c(D) of the constant
    information lag: the map in (c, theta) (by columns: c is no lag and no coefficient of
    the delayed term) has one Bautin point, at c = 1/24, proved."""
    import mpmath

    from symdelay.analysis.normal_form import normal_form
    from symdelay.analysis.stability_map import stability_map

    path = tmp_path / "sharpened.toml"
    path.write_text(SHARPENED)
    m = Model.from_toml(path, mu=1, lam=1, D=1)
    res = stability_map(
        m, x=("c", "0.01", "0.1"), y=("theta", "1.5", 3), cells=4, fold_cycles=False
    )
    th_c = normal_form(Model.from_toml(INFO, mu=1, lam=1, D=1)).theta_c  # critical()
    (b,) = [s for s in res.special_points if s["type"] == "bautin"]
    assert b["certified"]
    assert abs(b["x"] - mpmath.mpf(1) / 24) < 1e-14
    assert abs(b["y"] - th_c) < 1e-13 * th_c
    # its l2 (in (c, theta), balls around the located point) is the normal form's at
    # c = 1/24 (DDE-BIFTOOL's nmfm_genh: tests/test_bautin_l2.py): the folds where l1 > 0
    assert float(b["l2"]) == pytest.approx(-1.2151776884153432, rel=1e-12)
    assert b["l2_radius"] < 1e-10 and b["fold_side"] == "l1 > 0"
    (rb,) = [s for s in res.record()["special_points"] if s["type"] == "bautin"]
    assert rb["fold_side"] == "l1 > 0" and float(rb["l2"]) < 0
    (curve,) = [c for c in res.curves if c.kind == "hopf"]
    (values,) = [v for v in res._details["l1"].values() if v]
    with mpmath.workdps(30):
        for (c, th, w), v in zip(curve.points, values):
            z = 1 + 1j * float(w)
            l1_0 = (-(float(th) ** 2) / 4 * z / (1 + z)).real / float(w)
            assert v == pytest.approx(l1_0 * (1 - 24 * float(c)), rel=1e-9)
    assert sum(v > 0 for v in values) >= 1 and sum(v < 0 for v in values) >= 1


SETS = ["--set", "mu=1", "--set", "lam=1", "--set", "D=1", "--set", "c=1/24"]


def test_at_the_bautin_point_l1_is_proved_zero_and_nothing_divides_by_it(tmp_path):
    """At c = 1/24 the cubic term vanishes exactly: l1 = 0 in an exact ball, "degenerate",
    no amplitude law and no frequency slope (both divide by Re c1), the CLI says why."""
    import subprocess
    import sys

    path = tmp_path / "sharpened.toml"
    path.write_text(SHARPENED)
    nf = symdelay.normal_form(Model.from_toml(path, mu=1, lam=1, D=1, c="1/24"))
    assert nf.l1 == 0 and nf.l1_radius == 0 and nf.criticality == "degenerate"
    assert nf.side is None
    rec = nf.record()
    assert rec["amplitude_coefficient"] == "nan" and rec["omega_slope"] == "nan"
    out = subprocess.run(
        [sys.executable, "-m", "symdelay", "normal-form", "--model-file", str(path), *SETS],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "second Lyapunov coefficient decides" in out.stdout
    assert "not defined where l1 = 0" in out.stdout
