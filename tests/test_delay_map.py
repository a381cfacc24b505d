"""Maps of delay models: the two-lag stability crossing curves (Gu, Niculescu & Chen 2005)
against direct root checks and against the exact stability switches along a line (an
independent path: lag_switches in one lag at the other fixed); the (D, theta) curves of the
constant information lag against Pender, Rand & Wesson's closed form; region counts against
the certified count at other cells."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from symdelay.analysis.stability import delay_stability
from symdelay.analysis.stability_map import stability_map
from symdelay.core.errors import SymdelayInputError
from symdelay.model import load_toml

ROOT = Path(__file__).resolve().parents[1]
MIX = ROOT / "examples" / "models" / "two_lag_mixture.toml"
INFO = ROOT / "examples" / "models" / "information_delay.toml"
r, D1, D2 = sp.symbols("r D1 D2")


@pytest.fixture(scope="module")
def two_lag():
    m = load_toml(MIX).with_values(mu=1, lam=1, theta=3, w="0.5")
    return m, stability_map(m, x=("D1", "0.05", 6), y=("D2", "0.05", 6), cells=10)


def _F(x, y, z):
    return z + 1 + mpmath.mpf(3) / 2 * (mpmath.exp(-z * x) + mpmath.exp(-z * y))


def test_every_curve_point_is_a_root_on_the_axis(two_lag):
    _m, res = two_lag
    assert res.curves and all(c.kind == "hopf" for c in res.curves)
    with mpmath.workdps(40):
        for c in res.curves:
            for x, y, w in c.points:
                assert abs(_F(x, y, mpmath.mpc(0, w))) < mpmath.mpf(10) ** -14
            x, y, w = c.points[len(c.points) // 2]
            z = mpmath.findroot(lambda z, x=x, y=y: _F(x, y, z), mpmath.mpc("0.01", w))
            assert abs(z - mpmath.mpc(0, w)) < mpmath.mpf(10) ** -14


@pytest.mark.parametrize("x", ["2", "7/2"])
def test_counts_change_by_two_exactly_at_the_drawn_crossings_of_a_line(two_lag, x):
    """Along D1 = x: the certified count (argument principle, an independent path) is
    constant between the drawn crossings and changes by 2 (a pair) across each."""
    m, res = two_lag
    xv = sp.Rational(x)
    drawn = sorted(v for v, *_ in res.crossings(x=float(xv)))
    assert drawn
    cuts = [0.05, *drawn, 6.0]
    counts = []
    for a, b in itertools.pairwise(cuts):
        mid = sp.Rational(str(round((a + b) / 2, 6)))
        v = delay_stability(m.with_values(D1=xv, D2=mid))
        counts.append(sum(f[1] for f in v.factor_verdicts))
    assert all(abs(p - q) == 2 for p, q in itertools.pairwise(counts))
    # each drawn crossing: an axis root there (findroot from i omega)
    with mpmath.workdps(30):
        for y, w, *_ in res.crossings(x=float(xv)):
            z = mpmath.findroot(lambda z, y=y: _F(mpmath.mpf(xv.p) / xv.q, y, z), mpmath.mpc(0, w))
            assert abs(z.real) < 1e-4  # crossings(): interpolated between certified points


def test_region_counts_agree_with_the_count_at_interior_cells(two_lag):
    m, res = two_lag
    counts, labels = res.cell_counts, res.cell_regions
    ny, nx = len(counts), len(counts[0])
    lo, hi = sp.Rational(1, 20), sp.Integer(6)
    checked = 0
    for j in range(1, ny - 1, 3):
        for k in range(1, nx - 1, 3):
            block = {labels[j + a][k + b] for a in (-1, 0, 1) for b in (-1, 0, 1)}
            if len(block) != 1:
                continue
            cx = lo + (hi - lo) * sp.Rational(2 * k + 1, 2 * nx)
            cy = lo + (hi - lo) * sp.Rational(2 * j + 1, 2 * ny)
            v = delay_stability(m.with_values(D1=cx, D2=cy))
            assert sum(f[1] for f in v.factor_verdicts) == counts[j][k]
            checked += 1
    assert checked >= 2
    assert {g["unstable_roots"] for g in res.record()["regions"]} >= {0, 2}


def test_lag_and_theta_curves_follow_pender_rand_wesson():
    m = load_toml(INFO).with_values(mu=1, lam=1)
    res = stability_map(m, x=("D", "0.05", 8), y=("theta", "0.1", 4), cells=8)
    assert res.curves
    with mpmath.workdps(30):
        for c in res.curves:
            for D, th, w in c.points:
                # lam theta > mu, w = sqrt((lam theta)^2 - mu^2), D w = arccos(-mu/(lam theta)) + 2 pi k
                assert w == pytest.approx(float(mpmath.sqrt(th**2 - 1)), rel=1e-12)
                k = (D * w - mpmath.acos(-1 / th)) / (2 * mpmath.pi)
                assert abs(k - mpmath.nint(k)) < 1e-10
    # below theta = mu/lam = 1 stable for every D (delay independent)
    rec = res.record()
    assert all(g["unstable_roots"] == 0 for g in rec["regions"] if sp.Rational(g["point"]["y"]) < 1)
    assert set(rec) >= {"x", "y", "curves", "regions", "special_points", "grid", "notes"}


def test_refusals():
    m = load_toml(INFO).with_values(mu=1, lam=1)
    with pytest.raises(SymdelayInputError, match="seeds"):
        stability_map(m, x=("D", "0.1", 2), y=("theta", "0.1", 3), seeds=3)
    with pytest.raises(SymdelayInputError, match="above 0"):
        stability_map(m, x=("D", "0", 2), y=("theta", "0.1", 3))


def test_cli_map_of_a_model_file(tmp_path):
    cmd = [sys.executable, "-m", "symdelay", "map", "--model-file", str(MIX), "--set", "mu=1",
           "--set", "lam=1", "--set", "theta=3", "--set", "w=0.5", "--x", "D1=0.1:3",
           "--y", "D2=0.1:3", "--cells", "6", "--json", "--plot", str(tmp_path / "m.png")]  # fmt: skip
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert rec["curves"] and rec["regions"]
    assert (tmp_path / "m.png").stat().st_size > 1000


def test_a_distributed_kernel_is_mapped_by_columns_not_empty():
    """The uniform kernel has no closed-form curve: the map scans columns of certified
    crossings (tests/test_delay_theta.py checks the points and counts)."""
    m = load_toml(ROOT / "examples" / "models" / "moving_average.toml").with_values(mu=1, lam=1)
    res = stability_map(m, x=("Delta", "0.1", 5), y=("theta", "0.1", 10), cells=2)
    assert "columns" in res.searched
    flat = [n for row in res.cell_counts for n in row]
    assert min(flat) == 0 and max(flat) >= 2  # stable at small theta, unstable at large
