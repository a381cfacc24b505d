"""The curve of folds of cycles from a Bautin point of a stability map
(:mod:`symdelay.analysis.fold_cycles`), against the Bautin normal form and an independent
one-parameter path.

The model is the cubic-routing model of ``test_bautin_map`` (the founding model at L = 2 with
a cubic term ``b (q - 1)^3`` in the routing weights): its Hopf curve in ``(theta, b)`` is the
line ``theta = 8`` (the linearisation does not depend on ``b``, omega = sqrt 3) and its Bautin
point is ``b = 512/3`` in closed form. The Bautin normal form ``rho' = rho (beta + a rho^2 + b
rho^4)`` has its fold of cycles where ``a + 2 b rho^2 = 0`` and ``beta = -a rho^2 / 2``: the
curve leaves the Bautin point tangentially to the Hopf curve (``beta`` of order ``a^2``,
the distance along it of order ``a``), and at each fold the real part of the critical
eigenvalues of the equilibrium equals ``-Re c1 rho^2 / 2``, ``rho`` the normal form's
amplitude (half the amplitude of ``x`` over the critical eigenvector's ``x`` component),
whatever ``b``: a prediction without the second Lyapunov coefficient."""

from __future__ import annotations

import json

import mpmath
import numpy as np
import pytest
from test_bautin_map import cubic_routing_model

from symdelay.analysis.continuation import cycles
from symdelay.analysis.fold_cycles import FoldCurve, fold_of_cycles
from symdelay.analysis.normal_form import first_lyapunov
from symdelay.analysis.stability_map import stability_map
from symdelay.core.errors import SymdelayInputError

BOX_X, BOX_Y = ("theta", 6, 10), ("b", 100, 250)
B_STAR = 512 / 3


@pytest.fixture(scope="module")
def cubic():
    model = cubic_routing_model()
    res = stability_map(model, x=BOX_X, y=BOX_Y, cells=4, seeds=3)
    return model, res


def test_the_map_carries_the_curve_from_its_bautin_point(cubic):
    _, res = cubic
    (s,) = [s for s in res.special_points if s["type"] == "bautin"]
    (fc,) = res.fold_of_cycles
    assert isinstance(fc, FoldCurve)
    x, y, T, A = fc.arrays()
    # the first point is the map's Bautin point (amplitude 0), the last on the box's edge
    assert fc.ends == ("Bautin point", "box edge")
    assert (x[0], y[0], A[0]) == (float(s["x"]), float(s["y"]), 0.0)
    assert T[0] == pytest.approx(2 * np.pi / np.sqrt(3), rel=1e-12)
    assert y[-1] == 250 and 6 < x[-1] < 8
    # the folds grow from the Bautin point outward, on the subcritical side (b > 512/3,
    # where l1 > 0) and on the side where the equilibrium is stable (theta < 8)
    assert np.all(np.diff(A) > 0) and np.all(np.diff(y) > 0)
    assert np.all(x[1:] < 8) and np.all(y[1:] > B_STAR)
    assert A[1] < 0.04 * A[-1]
    rec = res.to_json()
    json.dumps(rec)
    (f,) = rec["fold_of_cycles"]
    assert set(f["points"][0]) == {"x", "y", "period", "amplitude"}
    assert f["ends"] == ["Bautin point", "box edge"] and f["x"] == "theta" and f["y"] == "b"
    assert float(f["start"]["residual"]) < 1e-9


def test_the_curve_leaves_the_bautin_point_tangent_to_the_hopf_curve(cubic):
    """The angle between the chord from the Bautin point and the Hopf curve (in the box's
    scaled coordinates) tends to 0 linearly with the distance: the curve is tangent to the
    Hopf curve there, a parabola theta - 8 ~ -k (b - 512/3)^2."""
    _, res = cubic
    (fc,) = res.fold_of_cycles
    x, y, _, A = fc.arrays()
    (hopf,) = [c for c in res.curves if c.kind == "hopf"]
    hx, hy, _ = hopf.arrays()
    # the Hopf curve's direction at the Bautin point, from the map's certified points
    k = int(np.argmin(np.abs(hy - B_STAR)))
    S = np.array([4.0, 150.0])
    d = np.array([hx[k + 1] - hx[k - 1], hy[k + 1] - hy[k - 1]]) / S
    d /= np.linalg.norm(d)
    chord = np.stack([x[1:] - x[0], y[1:] - y[0]], axis=1) / S
    dist = np.linalg.norm(chord, axis=1)
    angle = np.arccos(np.clip(np.abs(chord @ d) / dist, 0, 1))
    near = A[1:] < 0.05
    assert near.sum() >= 5
    assert angle[0] < 1e-4
    slope = angle[near] / dist[near]
    assert slope.max() < 1.3 * slope.min(), slope
    # the closed form's Hopf line theta = 8: theta - 8 is quadratic in b - 512/3
    k2 = (8 - x[1:][near]) / (y[1:][near] - B_STAR) ** 2
    assert k2.max() < 1.3 * k2.min(), k2


def test_the_folds_follow_the_bautin_normal_form(cubic):
    """At each fold the critical eigenvalues' real part (eigenvalues of the Jacobian at the
    fold's parameters) against ``-Re c1 rho^2 / 2`` (``c1`` of the Hopf point theta = 8 at
    the same b, from the normal form's one computation): the ratio tends to 1, its deviation
    proportional to the amplitude squared (the next order of the normal form)."""
    import sympy as sp

    model, res = cubic
    (fc,) = res.fold_of_cycles
    x, y, _, A = fc.arrays()
    states = list(model.states)
    theta, b = sp.symbols("theta b")
    J = model.drift_jacobian.xreplace(dict(model.equilibrium.point))
    jac = sp.lambdify((theta, b), J, "numpy")
    lyap = first_lyapunov(model, ("theta", "b"))
    w = np.zeros(len(states))
    w[states.index(sp.Symbol("q1"))], w[states.index(sp.Symbol("q2"))] = 1, -1
    ratios = []
    for xi, yi, ai in zip(x[1:], y[1:], A[1:]):
        beta = float(np.max(np.linalg.eigvals(np.array(jac(xi, yi), dtype=float)).real))
        with mpmath.workdps(25):
            h = lyap.hopf((mpmath.mpf(8), mpmath.mpf(yi)), mpmath.sqrt(3))
            cq = mpmath.fsum(w[j] * h.q[j] for j in range(len(w)))
            rc = float(mpmath.re(h.c1) / abs(cq) ** 2)
        ratios.append(beta / (-rc * ai**2 / 8))
    ratios = np.array(ratios)
    dev = np.abs(ratios - 1)
    assert dev[0] < 1e-3
    # beta ~ 1e-9 at the smallest folds: the eigenvalues' rounding (1e-14) shows there
    near = (A[1:] > 0.01) & (A[1:] < 0.05)
    assert near.sum() >= 3
    c = dev[near] / A[1:][near] ** 2
    assert c.max() < 1.3 * c.min(), c
    assert np.all(dev < 0.15)


def test_a_point_of_the_curve_is_a_fold_of_a_one_parameter_branch(cubic):
    """The curve's point at b = 220 (``FoldCurve.at``: corrected onto the fold's defining
    system) against the fold located on the branch of cycles in theta at b = 220 (the
    continuation's test function, an independent path); and the end landed on the box's
    edge is at b = 250 exactly."""
    model, res = cubic
    (fc,) = res.fold_of_cycles
    x, y, T, A = fc.at(b="220")
    assert y == 220 and 7.5 < x < 8
    branch = cycles(model.with_values(b=220), "theta", "7", "8.5", max_points=60)
    (lpc,) = [s for s in branch.special_points if s.kind == "LPC"]
    assert lpc.located
    assert lpc.value == pytest.approx(x, rel=1e-9)
    assert lpc.amplitude == pytest.approx(A, rel=1e-6)
    assert lpc.period == pytest.approx(T, rel=1e-8)
    with pytest.raises(SymdelayInputError, match="does not reach"):
        fc.at(b=120)


def test_the_figure_draws_the_curve(cubic):
    import matplotlib

    matplotlib.use("Agg")
    _, res = cubic
    fig = res.plot()
    ax = fig.axes[0]
    lines = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-."]
    assert len(lines) == 1 and len(lines[0].get_xdata()) == len(res.fold_of_cycles[0].points)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "fold of cycles" in labels


def test_the_command_lists_the_curve(cubic, capsys, monkeypatch):
    import symdelay.analysis.stability_map as sm
    from symdelay.cli import main as cli_main

    _, res = cubic
    monkeypatch.setattr(sm, "stability_map", lambda *a, **k: res)
    status = cli_main(["map", "--L", "2", "--mu", "1", "--lam", "1", "--x", "D=1:2",
                       "--y", "theta=0:5"])  # fmt: skip
    out = capsys.readouterr().out
    assert status in (0, None)
    (line,) = [ln for ln in out.splitlines() if ln.startswith("fold of cycles")]
    assert "[Bautin point, box edge]" in line and "amplitude 0.0)" in line


def test_bad_input_is_one_line(cubic):
    model, _ = cubic
    with pytest.raises(SymdelayInputError, match="must lie in the box"):
        fold_of_cycles(model, BOX_X, BOX_Y, (9, 300, 1.7))
    with pytest.raises(SymdelayInputError, match="max_points"):
        fold_of_cycles(model, BOX_X, BOX_Y, (8, B_STAR, 1.7), max_points=1)
    with pytest.raises(SymdelayInputError, match="start"):
        fold_of_cycles(model, BOX_X, BOX_Y, (8, B_STAR, 1.7), start=("mu", 1))


def test_the_curve_draws_alone(cubic):
    import matplotlib

    matplotlib.use("Agg")
    _, res = cubic
    (fc,) = res.fold_of_cycles
    ax = fc.plot().axes[0]
    (line,) = [ln for ln in ax.get_lines() if ln.get_linestyle() == "-."]
    assert list(line.get_ydata()) == [p[1] for p in fc.points]


def test_the_fold_amplitude_follows_the_second_lyapunov_coefficient(cubic):
    """Near the Bautin point the fold's amplitude is the Bautin normal form's,
    ``rho^2 = -Re c1 / (2 Re c2)`` (``x`` has amplitude ``2 rho |q_x|``), with ``c1`` and ``c2``
    at the Hopf point theta = 8 of the fold's b (:func:`second_lyapunov`, the forms by
    differences of the drift); the ratio tends to 1, its deviation proportional to
    b - 512/3. The l1 of the same computation is the normal form's (symbolic derivatives),
    and l2 < 0 at the Bautin point: the folds are on the side l1 > 0."""
    from _lyapunov2 import second_lyapunov

    model, res = cubic
    (fc,) = res.fold_of_cycles
    _, y, _, A = fc.arrays()
    lyap = first_lyapunov(model, ("theta", "b"))
    w3 = mpmath.sqrt(3)
    at = second_lyapunov(model, ("theta", "b"), ("8", "512/3"), w3, dps=12)
    assert abs(at.l1) < 1e-9 and at.l2 < -0.5
    states = [s.name for s in model.states]
    dev = []
    # folds of amplitude 0.01 to 0.05 (closer to the Bautin point the fold's b is known to
    # about 1e-7 only, as l1 ~ 1e-4 there, so the prediction's own error shows)
    ks = np.flatnonzero((A > 0.01) & (A < 0.05))
    assert len(ks) >= 3
    for k in ks[[0, len(ks) // 2, -1]]:
        bc = second_lyapunov(model, ("theta", "b"), (8, y[k]), w3, dps=12)
        with mpmath.workdps(20):
            assert abs(bc.l1 - lyap(8, mpmath.mpf(y[k]), w3)) < 1e-10 * abs(bc.l1)
        qx = abs(complex(bc.q[states.index("q1")] - bc.q[states.index("q2")]))
        rho2 = -float(mpmath.re(bc.c1)) / (2 * float(mpmath.re(bc.c2)))
        dev.append((A[k] ** 2 / (4 * qx**2 * rho2) - 1) / (y[k] - B_STAR))
    assert abs(dev[0] * (y[ks[0]] - B_STAR)) < 5e-3
    assert max(dev) < 1.3 * min(dev) and min(dev) > 0, dev
