"""Stability maps: closed forms (the founding worst delay D* = L/mu, theta*), the in-flight
kappa* and theta-window, and every region, curve point and special point checked against an
independent path (numpy eigenvalues of the full Jacobian)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.stability_map import StabilityMap, stability_map
from symdelay.core.errors import SymdelayInputError
from symdelay.model import Model
from symdelay.models import build_model

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def founding():
    return build_model("erlang", L=3, mu=1, lam=1)


@pytest.fixture(scope="module")
def founding_map(founding):
    # the generic continuation (the founding model's own map is tests/test_founding_map.py)
    return stability_map(
        founding, x=("D", "0.5", 12), y=("theta", 0, 20), dps=20, cells=12, method="generic"
    )


@pytest.fixture(scope="module")
def inflight():
    return build_model("inflight", L=2, kappa="kappa", mu=1, lam=1, D=1)


@pytest.fixture(scope="module")
def inflight_map(inflight):
    return stability_map(inflight, x=("kappa", 0, "0.2"), y=("theta", 0, 250), dps=20, cells=12)


def _two_copies():
    """Two founding models (L = 2; D = 1 and D = 2) side by side, routing sensitivities a, b:
    two Hopf curves a = 9, b = 8 crossing at distinct frequencies (a double Hopf point)."""
    states, trans = [], []
    for c, g in (("a", 2), ("b", 1)):
        for i in (1, 2):
            states += [f"q{c}{i}", f"z{c}{i}1", f"z{c}{i}2"]
        for i, j in ((1, 2), (2, 1)):

            def w(k, c=c):
                return f"exp(-{c}*q{c}{k})"

            trans.append((f"arrive {c}{i}", {f"z{c}{i}1": 1}, f"2*{w(i)}/({w(i)} + {w(j)})"))
            trans.append((f"phase {c}{i}", {f"z{c}{i}1": -1, f"z{c}{i}2": 1}, f"{g}*z{c}{i}1"))
            trans.append((f"enter {c}{i}", {f"z{c}{i}2": -1, f"q{c}{i}": 1}, f"{g}*z{c}{i}2"))
            trans.append((f"serve {c}{i}", {f"q{c}{i}": -1}, f"q{c}{i}"))
    sym = [[f"q{c}1", f"q{c}2"] for c in "ab"]
    sym += [[f"z{c}1{k}", f"z{c}2{k}"] for c in "ab" for k in (1, 2)]
    return Model("two founding copies", states, {"a": "real", "b": "real"}, trans, symmetry=sym)


@pytest.fixture(scope="module")
def copies_map():
    m = _two_copies()
    return m, stability_map(m, x=("a", 5, 15), y=("b", 5, 12), dps=20, cells=8)


# ------------------------------------------------------------------ independent path
def _jacobian_fn(model, xname, yname):
    """(x, y) -> the full Jacobian (numpy), D read as gamma = L/D for the founding model."""
    free = list(model.free_parameters)
    f = sp.lambdify(free, model.jacobian, "numpy")

    def at(x, y):
        vals = {}
        for name, v in ((xname, x), (yname, y)):
            if name == "D":
                vals["gamma"] = 3.0 / v
            else:
                vals[name] = v
        return np.array(f(*[vals[str(p)] for p in free]), dtype=float)

    return at


def _numpy_unstable(J):
    return int(np.sum(np.linalg.eigvals(J).real > 1e-9))


def _check_regions(model, m: StabilityMap, seed=7):
    rng = random.Random(seed)
    jac = _jacobian_fn(model, m.x[0], m.y[0])
    labels = np.array(m.cell_regions)
    ny, nx = labels.shape
    xlo, xhi, ylo, yhi = (float(v) for v in (m.x[1], m.x[2], m.y[1], m.y[2]))
    checked = 0
    for k, region in enumerate(m.regions):
        # its representative point: the exact count is numpy's
        px, py = (float(v) for v in region["point"])
        assert _numpy_unstable(jac(px, py)) == region["unstable_roots"]
        # a random point of a random cell of the region whose neighbours are all in it
        inner = [
            (a, b)
            for a in range(1, ny - 1)
            for b in range(1, nx - 1)
            if (labels[a - 1 : a + 2, b - 1 : b + 2] == k).all()
        ]
        if not inner:
            continue
        a, b = rng.choice(inner)
        x = xlo + (b + rng.random()) * (xhi - xlo) / nx
        y = ylo + (a + rng.random()) * (yhi - ylo) / ny
        assert _numpy_unstable(jac(x, y)) == region["unstable_roots"], (x, y, region)
        checked += 1
    assert checked >= 1


def _check_points(model, m: StabilityMap, sample=25, seed=3):
    """At curve points numpy finds an eigenvalue on the axis at +- i omega (or 0)."""
    rng = random.Random(seed)
    jac = _jacobian_fn(model, m.x[0], m.y[0])
    for c in m.curves:
        for p in rng.sample(c.points, min(sample, len(c.points))):
            x, y, w = (float(v) for v in p)
            ev = np.linalg.eigvals(jac(x, y))
            target = 1j * w if c.kind == "hopf" else 0
            d = np.min(np.abs(ev - target))
            assert d < 1e-7 * (1 + abs(w)), (x, y, w, ev)


# ------------------------------------------------------------------ (a) founding, L = 3
def test_founding_minimum_is_the_worst_delay_closed_form(founding_map):
    L, mu, lam = 3, 1, 1
    turning = [s for s in founding_map.special_points if s["type"] == "turning_y"]
    assert len(turning) == 1
    s = turning[0]
    with mpmath.workdps(30):
        D_star = mpmath.mpf(L) / mu
        theta_star = mu * mpmath.sec(mpmath.pi / (L + 1)) ** (L + 1) / lam
        assert abs(s["x"] - D_star) < mpmath.mpf(10) ** -12
        assert abs(s["y"] - theta_star) < mpmath.mpf(10) ** -12
    assert s["certified"]
    # the minimum: every other point of the curve lies above theta*
    assert all(
        p[1] >= s["y"] - mpmath.mpf(10) ** -15 for c in founding_map.curves for p in c.points
    )


@pytest.mark.parametrize("method", ["generic", "specialised"])
def test_founding_other_rates_move_the_minimum(method):
    """mu left free by the model and given by ``fixed``: D* = L/mu, theta* = mu sec^4/lam."""
    m = stability_map(
        build_model("erlang", L=3, lam=3),
        x=("D", "0.5", 4),
        y=("theta", 0, 10),
        fixed={"mu": 2},
        dps=20,
        cells=6,
        method=method,
    )
    assert m.fixed == {"mu": "2"}
    (s,) = [s for s in m.special_points if s["type"] == "turning_y"]
    with mpmath.workdps(30):
        assert abs(s["x"] - mpmath.mpf(3) / 2) < mpmath.mpf(10) ** -12
        assert abs(s["y"] - 2 * mpmath.sec(mpmath.pi / 4) ** 4 / 3) < mpmath.mpf(10) ** -12


def test_founding_regions_and_points_match_numpy(founding, founding_map):
    counts = sorted(g["unstable_roots"] for g in founding_map.regions)
    assert counts == [0, 2]
    _check_regions(founding, founding_map)
    _check_points(founding, founding_map)


def test_founding_crossings_equal_the_exact_window(founding, founding_map):
    """The curve read at D = 1 gives the critical theta of the exact theta-window."""
    from symdelay.analysis.window import unstable_theta

    got = founding_map.crossings(x=1)
    w = unstable_theta(founding.with_values(gamma=3), dps=20, method="generic")
    assert len(got) == 1 and len(w.intervals) == 1
    assert abs(got[0][0] - w.intervals[0].lo.value) < mpmath.mpf(10) ** -15


# ------------------------------------------------------------------ (b) in-flight, L = 2
def test_inflight_turning_point_is_kappa_star(inflight_map):
    from symdelay.models.inflight.curve import kappa_star

    ks = kappa_star(2, 1, 1, dps=30).kappa_star
    turning = [s for s in inflight_map.special_points if s["type"] == "turning_x"]
    assert len(turning) == 1
    assert turning[0]["certified"]
    assert abs(turning[0]["x"] - ks) < mpmath.mpf(10) ** -12 * ks


def test_inflight_theta_window_read_off_the_map(inflight_map):
    from symdelay.analysis.window import unstable_theta

    got = inflight_map.crossings(x="0.05")
    w = unstable_theta(build_model("inflight", L=2, kappa="0.05", mu=1, lam=1, D=1), dps=20)
    (iv,) = w.intervals
    assert len(got) == 2 and all(g[4] for g in got)
    for value, exact in zip((got[0][0], got[1][0]), (iv.lo.value, iv.hi.value)):
        assert abs(value - exact) < mpmath.mpf(10) ** -15 * exact


def test_inflight_regions_match_numpy(inflight, inflight_map):
    _check_regions(inflight, inflight_map)
    _check_points(inflight, inflight_map)


# ------------------------------------------------------------------ double Hopf
def test_double_hopf_agrees_with_eigenvalues(copies_map):
    model, m = copies_map
    (s,) = [s for s in m.special_points if s["type"] == "double_hopf"]
    assert s["certified"]
    x, y = float(s["x"]), float(s["y"])
    ev = np.linalg.eigvals(_jacobian_fn(model, "a", "b")(x, y))
    on_axis = sorted(abs(e.imag) for e in ev if abs(e.real) < 1e-9)
    want = sorted(float(w) for w in s["omega"])
    assert len(on_axis) == 4  # two pairs +- i omega_1, +- i omega_2
    assert np.allclose(on_axis[::2], want, rtol=1e-10)
    assert abs(want[0] - want[1]) > 0.5
    assert sorted(g["unstable_roots"] for g in m.regions) == [0, 2, 2, 4]
    _check_regions(model, m)


# ------------------------------------------------------------------ record, figure, CLI
def test_record_is_json_with_decimal_strings(founding_map):
    rec = founding_map.to_json()
    json.dumps(rec)
    assert rec["x"] == {"name": "D", "lo": "1/2", "hi": "12"}
    assert rec["y"]["name"] == "theta"
    c = rec["curves"][0]
    assert c["kind"] == "hopf" and isinstance(c["factor"], int)
    assert all(isinstance(p["x"], str) and isinstance(p["omega"], str) for p in c["points"])
    assert len(c["points"][0]["y"].replace(".", "").lstrip("0")) >= 20
    assert {s["type"] for s in rec["special_points"]} == {"turning_y"}
    assert all(set(g) == {"unstable_roots", "point", "cells"} for g in rec["regions"])
    assert sum(g["cells"] for g in rec["regions"]) == 144
    assert "lines" in rec["searched"]
    assert "turning" in founding_map.latex()
    assert "turning_y" in founding_map._repr_html_()


def test_figure_draws(founding_map):
    fig = founding_map.plot()
    assert len(fig.axes) == 1 and fig.axes[0].get_xlabel() == "$D$"


@pytest.mark.parametrize(
    ("kwargs", "needle"),
    [
        ({"x": ("foo", 1, 2)}, "not a parameter"),
        ({"x": ("D", 2, 1)}, "empty or inverted"),
        ({"x": ("D", 1, 1)}, "empty or inverted"),
        ({"x": ("D", 0, 1)}, "undefined at D = 0"),
        ({"x": ("D", -1, 1)}, "below the domain"),
        ({"x": ("theta", 0, 1)}, "both theta"),
        ({"fixed": {"eta": 1}}, "not a free parameter"),
        ({"cells": 1000, "method": "generic"}, "--force"),
        ({"cells": 1}, "cells must be"),
        ({"y": ("theta", None, None)}, "give the y range"),
    ],
)
@pytest.mark.parametrize("method", ["auto", "generic"])
def test_bad_input_is_one_line(founding, kwargs, needle, method):
    args = {"x": ("D", 1, 2), "y": ("theta", 0, 10), "method": method, **kwargs}
    with pytest.raises(SymdelayInputError, match=needle) as exc:
        stability_map(founding, **args)
    assert "\n" not in str(exc.value)


def test_cli_map(capsys):
    from symdelay.cli import main

    argv = ["map", "--L", "3", "--mu", "1", "--lam", "1", "--x", "D=1:5", "--y", "theta=0:10"]
    assert main([*argv, "--cells", "4", "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    assert [s["type"] for s in rec["special_points"]] == ["turning_y"]
    assert rec["special_points"][0]["x"].startswith("3.00000000000000")
    for bad in (["--x", "D=0:5"], ["--theta", "2"], ["--fixed", "eta=1"], ["--x", "D"]):
        args = list(argv)
        if bad[0] in args:
            args[args.index(bad[0]) + 1] = bad[1]
        else:
            args += bad
        assert main(args) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("symdelay: error:"), err


def test_cli_inflight_map_frees_kappa(capsys):
    from symdelay.cli import main

    argv = ["map", "--model", "inflight", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1"]
    assert main([*argv, "--x", "kappa=0:0.2", "--y", "theta=0:60", "--cells", "4"]) == 0
    out = capsys.readouterr().out
    assert "turning_x: kappa = 0.0716424552066" in out
    assert main([*argv, "--kappa", "1", "--x", "kappa=0:0.2", "--y", "theta=0:60"]) == 2


def test_routh_count_equals_the_exact_count():
    """The cell counter's Routh array against the Sturm / Cauchy-index count."""
    import flint

    from symdelay.analysis.polyroots import exact_counts
    from symdelay.analysis.stability_map import _routh_rhp

    rng = random.Random(5)
    decided = 0
    for _ in range(400):
        n = rng.randint(1, 7)
        cs = [flint.fmpq(rng.randint(1, 5))]
        cs += [flint.fmpq(rng.randint(-9, 9), rng.randint(1, 4)) for _ in range(n)]
        k = _routh_rhp(cs)
        if k is None:
            continue
        decided += 1
        assert k == exact_counts([sp.Rational(int(c.p), int(c.q)) for c in cs]).rhp
    assert decided > 300


@pytest.mark.parametrize("method", ["generic", "specialised"])
def test_fold_curve_where_lam_theta_is_minus_mu(founding, method):
    """theta < 0 routes to the longer queue: a real root crosses 0 at lam*theta = -mu for
    every D (a fold line), below the Hopf curve; three regions 1, 0, 2."""
    m = stability_map(founding, x=("D", 1, 5), y=("theta", -3, 10), cells=8, method=method)
    folds = [c for c in m.curves if c.kind == "fold"]
    assert len(folds) == 1
    assert all(abs(p[1] + 1) < mpmath.mpf(10) ** -14 and p[2] == 0 for p in folds[0].points)
    assert sorted(g["unstable_roots"] for g in m.regions) == [0, 1, 2]
    assert [s["type"] for s in m.special_points] == ["turning_y"]
    _check_regions(founding, m)
    _check_points(founding, m)


def test_second_net_finds_a_branch_the_grid_lines_missed(founding, monkeypatch):
    """With every grid-line seed suppressed, the count changes between neighbouring cells
    that no traced branch explains are searched, and the Hopf curve is still found."""
    import symdelay.analysis.stability_map as sm

    real = sm._line_crossings

    def grid_blind(num, den, fixed_sym, fixed_val, vary_sym, lo, hi, dps):
        if (lo, hi) in ((1, 5), (0, 10)):  # a whole grid line of the box: pretend nothing
            return [], []
        return real(num, den, fixed_sym, fixed_val, vary_sym, lo, hi, dps)

    monkeypatch.setattr(sm, "_line_crossings", grid_blind)
    m = sm.stability_map(
        founding, x=("D", 1, 5), y=("theta", 0, 10), cells=6, dps=15, method="generic"
    )
    assert [c.kind for c in m.curves] == ["hopf"]
    assert "segments between region cells" in m.searched
    assert not [n for n in m.notes if "no traced boundary" in n]
    (s,) = [s for s in m.special_points if s["type"] == "turning_y"]
    assert abs(s["x"] - 3) < mpmath.mpf(10) ** -12


def test_a_count_change_across_a_bending_curve_is_explained():
    """nserver (lam, theta): the Hopf curve theta = 9/lam bends between cell centres, so the
    traced polyline can pass on the other side of a centre; the exact crossing on the
    segment joining the two centres explains the change (no false note)."""
    m = stability_map(
        build_model("nserver", N=3, L=2, mu=1, D=1), x=("lam", "1/4", 4), y=("theta", 0, 16)
    )
    assert not [n for n in m.notes if "no traced boundary" in n]
    ((th, _omega, kind, _factor, certified),) = m.crossings(x="709/256")
    assert kind == "hopf" and certified and abs(float(th) - 9 / (709 / 256)) < 1e-12


# ------------------------------------------------------------------ zero-Hopf
def _side_population_model(tmp_path, growth="theta**2*s", decay="b*s", extra="b", **values):
    """The founding model (Erlang(2), a TOML file) with a side population s that grows at
    theta^2 s and decays at b s: a fold line theta = sqrt(b) (the factor r - theta^2 + b)
    across the Hopf curve of the difference mode."""
    from symdelay.model import load_toml

    values = values or {"mu": 1, "lam": 1, "b": 100}
    text = (ROOT / "examples" / "models" / "erlang2.toml").read_text()
    text = text.replace('names = ["q1", "q2", "z11", "z12", "z21", "z22"]',
                        'names = ["q1", "q2", "z11", "z12", "z21", "z22", "s"]')  # fmt: skip
    text = text.replace('gamma = "positive"\n', f'gamma = "positive"\n{extra} = "positive"\n', 1)
    text = text.replace(
        "[symmetry]",
        f'[[transitions]]\nname = "side growth"\nchange = {{ s = 1 }}\nrate = "{growth}"\n\n'
        f'[[transitions]]\nname = "side decay"\nchange = {{ s = -1 }}\nrate = "{decay}"\n\n'
        "[symmetry]",
    )
    path = tmp_path / "side.toml"
    path.write_text(text)
    return load_toml(path, **values)


def test_zero_hopf_points_agree_with_eigenvalues_and_the_hopf_curve(tmp_path):
    from symdelay.models.erlang.hopf import critical_theta

    model = _side_population_model(tmp_path)
    m = stability_map(model, x=("D", "0.1", "100"), y=("theta", 0, 40), dps=20)
    zh = [s for s in m.special_points if s["type"] == "zero_hopf"]
    assert len(zh) == 2 and all(s["certified"] for s in zh)
    f = sp.lambdify(list(model.free_parameters), model.jacobian, "numpy")
    names = [str(p) for p in model.free_parameters]
    for s in zh:
        D, theta, w = (float(s[k]) for k in ("x", "y", "omega"))
        assert abs(theta - 10) < 1e-15  # the fold line theta = sqrt(b)
        # independent: numpy eigenvalues of the full 7 x 7 Jacobian there
        vals = {"gamma": 2.0 / D, "theta": theta}
        ev = np.linalg.eigvals(np.array(f(*[vals[n] for n in names]), dtype=float))
        assert np.min(np.abs(ev)) < 1e-9
        assert np.min(np.abs(ev - 1j * w)) < 1e-9
        # and the founding model's own Hopf curve passes through it
        tc = critical_theta(2, 1, 1, [sp.Rational(mpmath.nstr(s["x"], 25))], dps=30)
        assert abs(float(tc.points[0].theta_c) - 10) < 1e-12
    assert "zero-Hopf" in _legend_text(m)


def _legend_text(m) -> str:
    import matplotlib.pyplot as plt

    fig = m.plot()
    fig = getattr(fig, "figure", fig)
    text = " ".join(
        t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()
    )
    plt.close(fig)
    return text


def test_cusp_of_a_fold_curve_is_exact_and_not_a_turning_point(tmp_path):
    """Growth ((theta-5)^2 + 1) s, decay ((a-1)^3 + 1) s: the fold curve
    (theta - 5)^2 = (a - 1)^3 has a cusp at (1, 5), found exactly; the spurious turning
    point the two traced branches meet at is dropped; numpy's eigenvalues of the full
    Jacobian have a zero there and the counts either side of the cusp are numpy's."""
    model = _side_population_model(
        tmp_path,
        growth="((theta - 5)**2 + 1)*s",
        decay="((a - 1)**3 + 1)*s",
        extra="a",
        mu=1,
        lam=1,
        gamma=4,
    )
    m = stability_map(model, x=("a", "0.2", 3), y=("theta", 0, 10), dps=15, cells=16)
    cusps = [s for s in m.special_points if s["type"] == "cusp"]
    assert len(cusps) == 1 and cusps[0]["certified"]
    c = cusps[0]
    assert c["x"] == 1 and c["y"] == 5
    assert not [s for s in m.special_points if s["type"].startswith("turning")]
    jac = _jacobian_fn(model, "a", "theta")
    assert np.min(np.abs(np.linalg.eigvals(jac(1.0, 5.0)))) < 1e-12
    assert _numpy_unstable(jac(2.0, 5.0)) == 0  # inside the cusp: (theta-5)^2 < (a-1)^3
    assert _numpy_unstable(jac(2.0, 7.0)) == 1
    assert "cusp" in m.latex()
    _check_regions(model, m)


def test_two_fold_branches_crossing(tmp_path):
    """Decay ((a-1)^2 + 1) s instead: the fold set is the two lines theta - 5 = +-(a - 1),
    crossing at (1, 5): a fold_crossing (Hessian < 0), exact."""
    model = _side_population_model(
        tmp_path,
        growth="((theta - 5)**2 + 1)*s",
        decay="((a - 1)**2 + 1)*s",
        extra="a",
        mu=1,
        lam=1,
        gamma=4,
    )
    m = stability_map(model, x=("a", "0.2", 3), y=("theta", 0, 10), dps=15, cells=16)
    (c,) = [s for s in m.special_points if s["type"] == "fold_crossing"]
    assert c["certified"] and c["x"] == 1 and c["y"] == 5
    assert not [s for s in m.special_points if s["type"] == "cusp"]
    _check_regions(model, m)
