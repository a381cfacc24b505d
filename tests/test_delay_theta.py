"""The theta direction of delay models with any lag kind (lagcross): window in theta,
critical theta over a lag, neutral equations, each against an independent derivation."""

from __future__ import annotations

import itertools

import mpmath
import pytest

import symdelay
from symdelay.core.lazy import sympy as sp

EX = "examples/models/"


def _model(name, **values):
    return symdelay.load_toml(EX + name + ".toml").with_values(**values)


def _moving_average_theta_c(mu, lam, Delta):
    """Pender, Rand & Wesson's moving average, r + mu + lam theta (1 - e^{-r Delta})/(r Delta):
    at r = i w, phi = w Delta, lam theta sin(phi)/phi = -mu and w = lam theta (1 - cos phi)/phi,
    so phi/Delta + mu (1 - cos phi)/sin phi = 0 (first root with sin phi < 0)."""
    with mpmath.workdps(30):

        def g(phi):
            return phi / Delta + mu * (1 - mpmath.cos(phi)) / mpmath.sin(phi)

        # bracket the first root in (pi, 2 pi) on a grid, then findroot
        xs = [mpmath.pi * (1 + k / 400) for k in range(1, 400)]
        for a, b in itertools.pairwise(xs):
            if g(a) * g(b) < 0:
                phi = mpmath.findroot(g, (a, b), solver="anderson")
                break
        theta = -mu * phi / (lam * mpmath.sin(phi))
        return theta, phi / Delta


@pytest.mark.parametrize("Delta", [1, 2])
def test_moving_average_critical_and_window_agree_with_closed_form(Delta):
    from symdelay.analysis.critical import critical
    from symdelay.analysis.window import window

    m = _model("moving_average", mu=1, lam=1)
    c = critical(m, "theta", over="Delta", at=[Delta], dps=20).points[0]
    theta, w = _moving_average_theta_c(1, 1, Delta)
    assert abs(c.critical - theta) < mpmath.mpf(10) ** -15
    assert abs(c.omega - w) < mpmath.mpf(10) ** -12
    win = window(m.with_values(Delta=Delta), "theta", hi=10, dps=15)
    ((a, b),) = [tuple(iv) for iv in win.intervals]
    assert abs(a - theta) < mpmath.mpf(10) ** -12 and b == 10
    assert win.certified


def test_gamma_integer_shape_matches_the_erlang_polynomial_path(tmp_path):
    """A gamma lag of shape 2 is the Erlang chain: its kernel is rational, so the exact
    polynomial window answers too; lagcross (the Arb kernel path) must give the same end."""
    from symdelay.analysis import lagcross
    from symdelay.analysis.window import window

    with open(EX + "moving_average.toml") as fh:
        body = fh.read()
    body = body.replace(
        'avg = { kind = "uniform", low = "0", high = "Delta" }',
        'avg = { kind = "gamma", shape = "SHAPE", mean = "Delta" }',
    )
    f = tmp_path / "g.toml"
    f.write_text(body.replace("SHAPE", "2"))
    m = symdelay.load_toml(str(f)).with_values(mu=1, lam=1, Delta=1)
    exact = window(m, "theta", hi=40, dps=15)  # the polynomial path (rational kernel)
    sw = lagcross.switches(m, "theta", sp.Integer(0), sp.Integer(40), 15)
    assert exact.intervals and sw.breakpoints
    assert abs(exact.intervals[0][0] - sw.breakpoints[0][0].p) < mpmath.mpf(10) ** -12
    assert sw.counts[0] == 0 and sw.counts[1] == 2
    # a non-integer shape (no polynomial): the crossing against the count on both sides
    f.write_text(body.replace("SHAPE", "3/2"))
    m = symdelay.load_toml(str(f)).with_values(mu=1, lam=1, Delta=1)
    sw = lagcross.switches(m, "theta", sp.Integer(0), sp.Integer(40), 15)
    pc = sw.breakpoints[0][0].p
    modes = lagcross.model_modes(m, "theta")
    th = sp.Symbol("theta")
    assert lagcross.count_at(modes, th, sp.Rational(mpmath.nstr(pc * 0.999, 10))) == 0
    assert lagcross.count_at(modes, th, sp.Rational(mpmath.nstr(pc * 1.001, 10))) == 2


def test_two_lag_mixture_critical_theta_against_collocation():
    from symdelay.analysis.collocation import collocation_eigenvalues
    from symdelay.analysis.critical import critical
    from symdelay.analysis.lagcross import _subs_lin, model_modes

    m = _model("two_lag_mixture", mu=1, lam=1, D2=2, w="1/3")
    c = critical(m, "theta", over="D1", at=["1/2"], dps=15).points[0]
    mm = m.with_values(D1=sp.Rational(1, 2))
    ((_name, lin, _copies, lags),) = [x for x in model_modes(mm, "theta") if x[0] == "difference"]
    th = sp.Symbol("theta")

    def rightmost(v):
        spec = collocation_eigenvalues(_subs_lin(lin, th, sp.Rational(v)), lags, degree=40)
        return max(float(e.real) for e in spec.eigenvalues)

    lo, hi = float(c.critical) - 0.05, float(c.critical) + 0.05
    assert rightmost(lo) < 0 < rightmost(hi)
    for _ in range(30):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if rightmost(mid) < 0 else (lo, mid)
    assert abs(lo - float(c.critical)) < 1e-6


def test_announcement_window_ends_against_certified_counts():
    """The neutral model: every end of the window against the certified verdict on either
    side, and the neutral boundary theta_N = 1/(lam p) as an end."""
    from symdelay.analysis.stability import stability
    from symdelay.analysis.window import window

    m = _model("announcement", mu=1, lam=2, D=1, p="1/4")
    win = window(m, "theta", hi=3, dps=15)
    ends = [e for iv in win.intervals for e in (iv.lo, iv.hi)]
    kinds = {e.kind for e in ends}
    assert "neutral boundary" in kinds
    (nb,) = [e for e in ends if e.kind == "neutral boundary"]
    assert nb.value == mpmath.mpf(1) / (2 * mpmath.mpf(1) / 4)  # 1/(lam p) = 2
    first = win.intervals[0].lo
    assert first.kind == "r = i omega"
    v = first.value
    below = stability(m.with_values(theta=sp.Rational(mpmath.nstr(v * 0.99, 10))))
    above = stability(m.with_values(theta=sp.Rational(mpmath.nstr(v * 1.01, 10))))
    assert below.verdict == "stable" and above.verdict == "unstable"
    # beyond theta_N the difference operator is unstable: the certified count refuses there
    with pytest.raises(symdelay.SymdelayInputError, match="difference operator"):
        stability(m.with_values(theta=sp.Rational(21, 10)))
    assert not win.certified  # the gap next to theta_N is labelled undecided


@pytest.mark.parametrize(("lam", "p", "proved"), [(1, 2, True), (2, "1/3", False)])
def test_neutral_boundary_is_one_over_lam_p(lam, p, proved):
    from symdelay.analysis.critical import critical

    m = _model("announcement", mu=3, lam=lam, p=p)
    c = critical(m, "theta", over="D", at=[1], dps=15).points[0]
    # lam theta > mu is needed for a crossing; with 1/p <= mu none comes before theta_N
    assert c.critical == 1 / (lam * sp.Rational(p))
    assert "neutral boundary" in c.note
    # |i w + 3|^2 - theta_N^2 lam^2 |1 + i p w|^2 is 35/4 > 0 for (1, 2): no crossing below
    # theta_N, proved; identically 0 for (2, 1/3) (lam theta_N = mu): only searched
    assert ("proved" in c.note) == proved


def test_not_affine_refused_in_one_line():
    from symdelay.analysis import lagcross

    r, th = sp.symbols("r theta")
    lin = type("L", (), {})()
    lin.A0 = sp.Matrix([[-1]])
    t = type("T", (), {})()
    t.matrix, t.kernel, t.lags, t.derivative = sp.Matrix([[-(th**2)]]), sp.exp(-r), ("tau",), False
    lin.terms = (t,)
    tau = type("Lag", (), {"kind": "constant", "args": {"value": 1}, "name": "tau"})()
    with pytest.raises(symdelay.SymdelayInputError, match="not affine"):
        lagcross.mode_crossings(lin, {"tau": tau}, "theta", 0, sp.Integer(5))


def test_moving_average_map_by_columns_against_closed_form_and_counts():
    """map in (Delta, theta) for the uniform lag: every curve point is the closed-form
    theta_c at its Delta (the first crossing), every cell's count against the verdict."""
    from symdelay.analysis.stability import stability
    from symdelay.analysis.stability_map import stability_map

    m = symdelay.load_toml(EX + "moving_average.toml").with_values(mu=1, lam=1)
    res = stability_map(m, x=("Delta", "1/2", 3), y=("theta", "1/100", 10), cells=3, dps=15)
    assert "columns" in res.searched and res.curves
    for cv in res.curves:
        for x, y, w in cv.points:
            theta, omega = _moving_average_theta_c(1, 1, x)
            assert abs(y - theta) < 1e-10 and abs(w - omega) < 1e-10
    cx = [sp.Rational(1, 2) + (3 - sp.Rational(1, 2)) * (2 * k + 1) / 6 for k in range(3)]
    cy = [sp.Rational(1, 100) + (10 - sp.Rational(1, 100)) * (2 * j + 1) / 6 for j in range(3)]
    for j, k in [(0, 0), (2, 2), (2, 0)]:
        v = stability(m.with_values(Delta=cx[k], theta=cy[j]))
        assert res.cell_counts[j][k] == v.unstable_count
    # the drawn regions: away from the curve every point lies only in polygons of the
    # count the closed form gives, up to the box's edges (the curve is known at column
    # centres only; beyond the last one the cells are drawn, not one strip)
    from matplotlib.path import Path

    from symdelay.outputs.plots_map import region_polygons

    polys = [(n, Path(v)) for n, v in region_polygons(res)]
    for x in (0.55, 1.2, 2.0, 2.7, 2.95):
        theta_c = _moving_average_theta_c(1, 1, sp.Rational(str(x)))[0]
        for y in (0.5, 1.7, 3.0, 6.0, 9.5):
            if abs(y - theta_c) < 0.5:
                continue
            drawn = {n for n, path in polys if path.contains_point((x, y))}
            assert drawn == {2 if y > theta_c else 0}, (x, y, theta_c, drawn)


def test_announcement_map_has_the_neutral_boundary():
    from symdelay.analysis.stability_map import stability_map

    m = symdelay.load_toml(EX + "announcement.toml").with_values(mu=1, lam=2, p="1/4")
    res = stability_map(m, x=("D", "1/2", 1), y=("theta", "1/100", 3), cells=2, dps=10)
    (line,) = [c for c in res.curves if c.kind == "neutral"]
    assert all(y == 2 for _x, y, _w in line.points)  # theta_N = 1/(lam p)
    assert res.cell_counts[1] == (-1, -1)  # theta = 2.25 > theta_N: infinitely many roots


def test_critical_parameter_of_a_distributed_kernel_expression_is_refused_in_one_line():
    """An expression alone does not say which law a kernel is: one line pointing to the
    model entries (it was an internal PolynomialError)."""
    from symdelay.analysis.crossing import critical_parameter

    with pytest.raises(symdelay.SymdelayInputError) as err:
        critical_parameter("r + 1 + p*(1 - exp(-r))/r", "r", "p")
    assert "\n" not in str(err.value) and "critical(model" in str(err.value)
