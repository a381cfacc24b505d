"""The founding model's own stability map in (D, theta) (symdelay/models/erlang/hopf/map.py)
against independent paths: the critical-theta entry, the worst-delay closed form, the generic
continuation map, numpy eigenvalues of the full Jacobian, certified Lambert-W root counts."""

from __future__ import annotations

import itertools
import random

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.critical import critical
from symdelay.analysis.roots import roots
from symdelay.analysis.stability_map import stability_map
from symdelay.core.errors import SymdelayInputError
from symdelay.core.numbers import format_number
from symdelay.models import build_model

DPS = 20


@pytest.fixture(scope="module", params=[2, 3, 8, "inf"])
def founding_map(request):
    L = request.param
    m = build_model("erlang", L=L, mu=1, lam=1)
    # L = inf: a branch (phase n pi) for every n, about lam theta D / pi of them in a box
    x, y = (
        (("D", "0.2", 3), ("theta", 0, 8)) if L == "inf" else (("D", "0.5", 12), ("theta", 0, 20))
    )
    return L, m, stability_map(m, x=x, y=y, dps=DPS, cells=10)


def _first_branch(res):
    """The curve points of the lowest positive-theta branch (the critical curve)."""
    hopf = [c for c in res.curves if c.kind == "hopf"]
    return min(hopf, key=lambda c: min(p[1] for p in c.points))


def test_specialised_path_answers(founding_map):
    _, _, res = founding_map
    assert res.method.startswith("closed form")
    assert all(c.factor == 2 for c in res.curves)


def test_branch_zero_is_the_critical_curve(founding_map):
    _L, model, res = founding_map
    curve = _first_branch(res)
    sample = curve.points[:: max(1, len(curve.points) // 12)]
    Ds = [sp.Rational(mpmath.nstr(p[0], 40)) for p in sample]
    crit = critical(model, at=Ds, dps=DPS)
    for p, c in zip(sample, crit.points):
        assert format_number(p[1], DPS) == format_number(c.theta_c, DPS)
        assert format_number(p[2], DPS) == format_number(c.omega, DPS)


def test_turning_point_is_the_worst_delay(founding_map):
    L, model, res = founding_map
    turning = [s for s in res.special_points if s["type"] == "turning_y"]
    if L == "inf":
        # no turning point: theta_c(D) decreases strictly in D towards mu/lam = 1
        from symdelay.models.erlang.hopf.derivation import delay_limits

        assert turning == []
        pts = sorted(_first_branch(res).points, key=lambda p: p[0])
        ths = [p[1] for p in pts]
        assert all(a > b for a, b in itertools.pairwise(ths))
        assert delay_limits("inf").large_D_limit == sp.Symbol("mu")
        far = critical(model, at=["1e6"], dps=DPS).points[0].theta_c
        assert 1 < far < 1 + mpmath.mpf(10) ** -5 and ths[-1] > far
        assert any("no turning point" in n for n in res.notes)
        return
    (s,) = turning
    with mpmath.workdps(30):
        assert abs(s["x"] - mpmath.mpf(L)) < mpmath.mpf(10) ** -(DPS + 2)
        th = mpmath.sec(mpmath.pi / (L + 1)) ** (L + 1)
        assert abs(s["y"] - th) < mpmath.mpf(10) ** -(DPS + 2) * th
        assert abs(s["omega"] - mpmath.tan(mpmath.pi / (L + 1))) < mpmath.mpf(10) ** -(DPS + 2)
    assert s["certified"]
    # it is the minimum of the curve, and the curve passes through it
    pts = _first_branch(res).points
    with mpmath.workdps(40):
        assert all(p[1] >= s["y"] - mpmath.mpf(10) ** -(DPS) for p in pts)
    assert any(p[0] == s["x"] for p in pts)


def _jacobian(model, L):
    free = list(model.free_parameters)
    f = sp.lambdify(free, model.jacobian, "numpy")

    def at(D, theta):
        vals = {"gamma": L / D, "theta": theta}
        return np.array(f(*[vals[str(p)] for p in free]), dtype=float)

    return at


def _interior_points(res, rng, per_region=1):
    labels = np.array(res.cell_regions)
    ny, nx = labels.shape
    xlo, xhi, ylo, yhi = (float(v) for v in (*res.x[1:], *res.y[1:]))
    for k, region in enumerate(res.regions):
        inner = [
            (a, b)
            for a in range(1, ny - 1)
            for b in range(1, nx - 1)
            if (labels[a - 1 : a + 2, b - 1 : b + 2] == k).all()
        ]
        for a, b in rng.sample(inner, min(per_region, len(inner))):
            x = xlo + (b + rng.random()) * (xhi - xlo) / nx
            y = ylo + (a + rng.random()) * (yhi - ylo) / ny
            yield region["unstable_roots"], x, y


def test_region_counts_against_an_independent_path(founding_map):
    L, model, res = founding_map
    rng = random.Random(11)
    checked = 0
    assert sorted({g["unstable_roots"] for g in res.regions})[:2] == [0, 2]
    if L == "inf":
        for count, D, th in _interior_points(res, rng):
            m = build_model(
                "erlang", L="inf", mu=1, lam=1, theta=mpmath.nstr(th, 12), D=mpmath.nstr(D, 12)
            )
            assert roots(m, dps=15).unstable_count == count, (D, th)
            checked += 1
    else:
        jac = _jacobian(model, L)
        for count, D, th in _interior_points(res, rng, per_region=3):
            got = int(np.sum(np.linalg.eigvals(jac(D, th)).real > 1e-9))
            assert got == count, (D, th)
            checked += 1
    assert checked >= 2


@pytest.mark.parametrize(
    ("L", "box"),
    [
        (2, (("D", "0.25", 10), ("theta", 0, 30))),
        (3, (("D", "0.5", 12), ("theta", 0, 20))),
        (8, (("D", 1, 12), ("theta", -30, 30))),
    ],
)
def test_agrees_with_the_generic_continuation(L, box):
    """Same curves (1e-10 relative at the specialised curve's delays, read off the generic
    map's certified crossings) and the same exact counts in every cell; L = 8 with theta < 0
    has the fold line lam theta = -mu and the second branch (phase 2 pi) below it."""
    model = build_model("erlang", L=L, mu=1, lam=1)
    x, y = box
    fast = stability_map(model, x=x, y=y, dps=DPS, cells=10, method="specialised")
    slow = stability_map(model, x=x, y=y, dps=DPS, cells=10, method="generic")
    assert fast.cell_counts == slow.cell_counts
    assert [g["unstable_roots"] for g in fast.regions] == [
        g["unstable_roots"] for g in slow.regions
    ]
    assert sorted(c.kind for c in fast.curves) == sorted(c.kind for c in slow.curves)
    assert [s["type"] for s in fast.special_points] == [s["type"] for s in slow.special_points]
    for a, b in zip(fast.special_points, slow.special_points):
        assert abs(a["x"] - b["x"]) < 1e-12 and abs(a["y"] - b["y"]) < 1e-12 * abs(b["y"])
    for c in fast.curves:
        if c.kind != "hopf":
            assert all(p[1] == -1 for p in c.points)
            continue
        for p in c.points[1:-1:25]:
            D = sp.Rational(mpmath.nstr(p[0], 30))
            got = [g for g in slow.crossings(x=D) if g[2] == "hopf"]
            near = min(got, key=lambda g: abs(g[0] - p[1]))
            assert abs(near[0] - p[1]) < 1e-10 * abs(p[1])
            assert abs(near[1] - p[2]) < 1e-10 * p[2]
    if L == 8:
        assert {g["unstable_roots"] for g in fast.regions} >= {1, 2, 3}


def test_axes_in_either_order():
    model = build_model("erlang", L=3, mu=1, lam=1)
    a = stability_map(model, x=("D", 1, 6), y=("theta", 0, 10), cells=6)
    b = stability_map(model, x=("theta", 0, 10), y=("D", 1, 6), cells=6)
    assert b.method == a.method
    assert np.array_equal(np.array(a.cell_counts), np.array(b.cell_counts).T)
    (sa,), (sb,) = a.special_points, b.special_points
    assert (sa["x"], sa["y"]) == (sb["y"], sb["x"])
    assert (sa["type"], sb["type"]) == ("turning_y", "turning_x")
    generic = stability_map(model, x=("theta", 0, 10), y=("D", 1, 6), cells=6, method="generic")
    assert [s["type"] for s in generic.special_points] == ["turning_x"]
    assert generic.cell_counts == b.cell_counts
    assert [(p[1], p[0], p[2]) for p in a.curves[0].points] == list(b.curves[0].points)
    assert a.crossings(x=2) == b.crossings(y=2) and len(a.crossings(x=2)) == 1
    assert a.crossings(y=5) == b.crossings(x=5) and len(a.crossings(y=5)) == 1


def test_crossings_read_off_the_explicit_map():
    model = build_model("erlang", L=3, mu=1, lam=1)
    res = stability_map(model, x=("D", "0.5", 12), y=("theta", 0, 20), dps=DPS, cells=4)
    (c,) = res.crossings(x=1)
    want = critical(model, at=[1], dps=DPS).points[0]
    assert abs(c[0] - want.theta_c) < mpmath.mpf(10) ** -(DPS - 1) and c[4]
    got = res.crossings(y=5)  # the U-shaped critical curve meets theta = 5 twice
    assert len(got) == 2
    for D, _w, kind, _f, ok in got:
        th = critical(model, at=[sp.Rational(mpmath.nstr(D, 30))], dps=DPS).points[0].theta_c
        assert kind == "hopf" and ok and abs(th - 5) < 1e-15


def test_more_branches_when_theta_is_large():
    """L = inf: branch n (phase n pi) has lam theta >= sqrt(((n - 1/2) pi / D)^2 + mu^2); the
    count 2 k above the k-th positive branch, checked at the region points by Lambert W."""
    res = stability_map(
        build_model("erlang", L="inf", mu=1, lam=1), x=("D", 2, 6), y=("theta", 0, 6), cells=8
    )
    hopf = [c for c in res.curves if c.kind == "hopf"]
    assert len(hopf) >= 3
    assert {g["unstable_roots"] for g in res.regions} >= {0, 2, 4}


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"x": ("D", 0, 1)}, "undefined at D = 0"),
        ({"x": ("D", -2, -1)}, "below the domain"),
        ({"x": ("mu", 1, 2)}, r"in \(D, theta\) only"),
        ({"fixed": {"eta": 1}}, "not a free parameter"),
        ({"fixed": {"mu": 2}}, "already has a value"),
        ({"seeds": 3}, "leave seeds out"),
        ({"cells": 1}, "cells must be"),
        ({"x": ("D", 2, 1)}, "empty or inverted"),
    ],
)
def test_L_inf_bad_input_is_one_line(kwargs, needle):
    model = build_model("erlang", L="inf", mu=1, lam=1)
    args = {"x": ("D", 1, 2), "y": ("theta", 0, 10), **kwargs}
    with pytest.raises(SymdelayInputError, match=needle) as exc:
        stability_map(model, **args)
    assert "\n" not in str(exc.value)


def test_cli_map_at_L_inf(capsys):
    from symdelay.cli import main

    argv = ["map", "--L", "inf", "--mu", "1", "--lam", "1", "--x", "D=0.1:10", "--y", "theta=0:10"]
    assert main([*argv, "--cells", "6"]) == 0
    out = capsys.readouterr().out
    assert "hopf curve (factor 2)" in out and "region: 0 unstable roots" in out
    assert "no turning point" in out
    assert main([*argv, "--seeds", "3"]) == 2
    assert "leave seeds out" in capsys.readouterr().err


def test_L1_never_crosses():
    """L = 1: the phase never reaches pi (no Hopf branch); theta < 0 only the fold line."""
    model = build_model("erlang", L=1, mu=1, lam=1)
    res = stability_map(model, x=("D", "0.5", 12), y=("theta", -5, 20), cells=6)
    assert res.method.startswith("closed form")
    assert [c.kind for c in res.curves] == ["fold"] and res.special_points == ()
    slow = stability_map(model, x=("D", "0.5", 12), y=("theta", -5, 20), cells=6, method="generic")
    assert res.cell_counts == slow.cell_counts
    assert sorted(g["unstable_roots"] for g in res.regions) == [0, 1]


def test_a_cell_centre_on_the_curve_counts_as_the_exact_count_does():
    """L = 2: theta_c(2) = (D + 2)^2/D = 8 exactly; the centre (2, 8) has the pair on the
    axis, not unstable, as the generic path's exact count says."""
    model = build_model("erlang", L=2, mu=1, lam=1)
    box = {"x": ("D", 1, 3), "y": ("theta", 6, 10), "cells": 3, "dps": 20}
    fast = stability_map(model, **box)
    assert fast.cell_counts == stability_map(model, **box, method="generic").cell_counts
    assert fast.cell_counts[1][1] == 0
    assert any("lie on a Hopf branch" in n for n in fast.notes)
