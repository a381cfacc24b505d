"""Stability maps whose equilibrium moves with the axes and has no closed form: two unequal
servers in (mu2 / mu1, theta). Checked against the founding closed form at mu2 = mu1 and
against numpy eigenvalues of the full Jacobian at the model's proved equilibrium."""

from __future__ import annotations

import json
import random

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.stability_map import stability_map
from symdelay.core.errors import SymdelayInputError
from symdelay.models import build_model
from symdelay.models.erlang.hopf.map import branch_point


@pytest.fixture(scope="module")
def hetero():
    return build_model("hetero", L=2, mu1=1, lam=1, D=1)


@pytest.fixture(scope="module")
def hmap(hetero):
    return stability_map(hetero, x=("mu2", "1/2", 2), y=("theta", 0, 20), cells=12, dps=15)


def _eigs(model, mu2, theta):
    """Eigenvalues of the Jacobian at the equilibrium the model solves and proves itself."""
    m = model.with_values(mu2=sp.Rational(mu2), theta=sp.Rational(theta))
    point = m.equilibrium.point
    J = np.array(m.drift_jacobian.subs(point).evalf(30).tolist(), dtype=complex)
    return np.linalg.eigvals(J)


def test_equal_servers_give_the_founding_critical_theta(hmap):
    # mu2 = mu1: the difference mode is the founding model's: theta_c(L = 2, D = 1) = 9
    (c,) = hmap.crossings(x=1)
    theta, w, kind, _factor, certified = c
    th0, w0, ok = branch_point(2, 1, 1, 1, 1, dps=15)
    assert ok and certified and kind == "hopf"
    assert abs(theta - th0) < mpmath.mpf(10) ** -14 * th0
    assert abs(w - w0) < mpmath.mpf(10) ** -14 * w0


def test_curve_points_are_crossings_of_the_full_jacobian(hetero, hmap):
    (curve,) = [c for c in hmap.curves if c.kind == "hopf"]
    assert curve.ends == ("box edge", "box edge")
    pts = curve.points
    for p in pts[:: max(1, len(pts) // 6)]:
        mu2, theta, w = (sp.Rational(mpmath.nstr(v, 25)) for v in p)
        ev = _eigs(hetero, mu2, theta)
        k = np.argmin(np.abs(ev - 1j * float(w)))
        assert abs(ev[k].real) < 1e-9 and abs(ev[k].imag - float(w)) < 1e-9
        # the pair is the rightmost: every other root to the left
        others = np.delete(ev, [k, np.argmin(np.abs(ev + 1j * float(w)))])
        assert np.all(others.real < -1e-6)


def test_region_counts_against_numpy_at_random_interior_points(hetero, hmap):
    rng = random.Random(7)
    assert sorted(g["unstable_roots"] for g in hmap.regions) == [0, 2]
    xlo, xhi = float(hmap.x[1]), float(hmap.x[2])
    ylo, yhi = float(hmap.y[1]), float(hmap.y[2])
    n = len(hmap.cell_counts)
    for g in hmap.regions:
        # a random point inside a cell of the region whose neighbours are all in the region
        inner = [
            (j, k)
            for j, k in g["cell_list"]
            if all(
                0 <= j + a < n
                and 0 <= k + b < n
                and hmap.cell_counts[j + a][k + b] == g["unstable_roots"]
                for a in (-1, 0, 1)
                for b in (-1, 0, 1)
            )
        ]
        j, k = rng.choice(inner)
        mu2 = xlo + (k + rng.random()) * (xhi - xlo) / n
        theta = ylo + (j + rng.random()) * (yhi - ylo) / n
        ev = _eigs(hetero, repr(mu2), repr(theta))
        assert int(np.sum(ev.real > 0)) == g["unstable_roots"]


def test_turning_point_is_the_least_critical_theta(hmap):
    (t,) = [s for s in hmap.special_points if s["type"] == "turning_y"]
    x0, y0 = t["x"], t["y"]
    assert 0.5 < x0 < 1 and y0 < 9 and t["certified"]
    # the crossings on lines beside it lie above it, symmetrically to second order (the
    # cubic term makes them differ by ~2 c3 h^3, 3e-3 of the rise at h = 1e-3)
    h = mpmath.mpf("1e-5")
    left = [c[0] for c in hmap.crossings(x=sp.Rational(mpmath.nstr(x0 - h, 20)))]
    right = [c[0] for c in hmap.crossings(x=sp.Rational(mpmath.nstr(x0 + h, 20)))]
    (a,), (b,) = left, right
    assert a > y0 and b > y0
    # |a - b| ~ 4 c2 h |x0 - vertex|: the vertex is at x0 to ~1e-7
    assert abs(a - b) < 0.05 * (a - y0)


def test_json_and_plot(hmap, tmp_path):
    rec = json.loads(json.dumps(hmap.to_json()))
    assert rec["x"]["name"] == "mu2" and rec["curves"][0]["kind"] == "hopf"
    assert any("moves with the axes" in n for n in rec["notes"])
    fig = hmap.plot()
    fig.savefig(tmp_path / "map.png")
    assert (tmp_path / "map.png").stat().st_size > 1000


def test_bad_input(hetero):
    with pytest.raises(SymdelayInputError, match="mu3"):
        stability_map(hetero, x=("mu3", 1, 2), y=("theta", 0, 20))
    with pytest.raises(SymdelayInputError, match="mu2"):
        stability_map(hetero, x=("mu2", 0, 2), y=("theta", 0, 20), cells=4)
    with pytest.raises(SymdelayInputError, match="empty or inverted"):
        stability_map(hetero, x=("mu2", 2, 1), y=("theta", 0, 20))
    unset = build_model("hetero", L=2, mu1=1, D=1)
    with pytest.raises(SymdelayInputError, match="lam"):
        stability_map(unset, x=("mu2", 1, 2), y=("theta", 0, 20))


def test_the_turning_proof_fails_away_from_the_minimum(hmap):
    """The slope's sign-change proof is not a formality: at certified curve points away
    from the minimum (the slope far from 0 on the whole small piece) it does not go
    through; the located minimum itself was proved by the map."""
    from symdelay.analysis.stability_map import prove_zero_along
    from symdelay.analysis.stability_map_moving import _slope_arb

    system = hmap._details["systems"][(0, "hopf")]
    ((kind, pts),) = hmap._details["full"]
    assert kind == "hopf"
    (t,) = [s for s in hmap.special_points if s["type"] == "turning_y"]
    assert t["certified"]
    with mpmath.workdps(25):
        far = [z for z in pts if abs(z[0] - t["x"]) > 0.3]
        assert len(far) > 10
        for z in far[:: len(far) // 4]:
            assert (
                prove_zero_along(system, z, 0, 15, lambda pt: _slope_arb(system, pt, 1, 0)) is False
            )
