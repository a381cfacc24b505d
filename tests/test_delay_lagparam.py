"""The lag-parameter direction for every delay model: the certified crossings of
``symdelay.analysis.lagparam`` behind ``window(model, LAGPARAM)`` and
``critical(model, LAGPARAM)``, against closed forms (the moving average's parametrisation by
``phi = w Delta``; Pender et al.'s critical delay), the exact constant-lag path, certified
counts on both sides of each switch and the spectral collocation of the generator."""

from __future__ import annotations

from pathlib import Path

import mpmath
import pytest

from symdelay.analysis.collocation import collocation_eigenvalues
from symdelay.analysis.critical import critical
from symdelay.analysis.lagparam import lag_crossings
from symdelay.analysis.lagroots import _mode_groups, unstable_count
from symdelay.analysis.window import window
from symdelay.core.errors import CertificationError, SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.model.core import load_toml

EX = Path(__file__).resolve().parent.parent / "examples" / "models"


def _model(name, **values):
    return load_toml(EX / f"{name}.toml", **values)


def _close(a, b, digits=12):
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    assert abs(a - b) <= abs(b) * mpmath.mpf(10) ** (-digits), (a, b)


def _moving_average_switches(c, mu, hi):
    """Every (Delta, w) with r = i w a root of r + mu + c (1 - e^{-r Delta})/(r Delta):
    c sin(phi)/phi = -mu, w = c (1 - cos phi)/phi, Delta = phi/w (phi = w Delta), solved
    on each branch of sin(phi)/phi = -mu/c by mpmath (bracketed, independent of Arb)."""
    out = []
    with mpmath.workdps(40):
        g = lambda x: c * mpmath.sin(x) / x + mu  # noqa: E731
        k = 1
        while True:
            a, b = (2 * k - 1) * mpmath.pi, 2 * k * mpmath.pi
            m = mpmath.findroot(lambda x: mpmath.diff(g, x), (a + b) / 2)  # the branch's minimum
            if g(m) >= 0:
                break
            for lo, hi_ in ((a, m), (m, b)):
                phi = mpmath.findroot(g, (lo, hi_), solver="anderson")
                w = c * (1 - mpmath.cos(phi)) / phi
                if phi / w < hi:
                    out.append((phi / w, w))
            k += 1
    return sorted(out)


def test_moving_average_window_and_critical_against_the_phi_parametrisation():
    m = _model("moving_average", mu=1, lam=1, theta=6)
    w = window(m, "Delta", hi=10, dps=15)
    expect = _moving_average_switches(6, 1, 10)
    assert len(expect) == 2 and len(w.breakpoints) == 2
    for end, (d, om) in zip(w.breakpoints, expect):
        _close(end.value, d)
        _close(end.omega[0], om)
        assert end.lower < sp.Rational(str(mpmath.nstr(d, 30))) < end.upper
    assert w.counts == (0, 2, 0)
    assert len(w.intervals) == 1
    rec = w.to_json()
    assert "certified (lag parameter)" in rec["method"]["algorithm"]
    assert "does not apply" in rec["method"]["notes"][0]
    # critical: the first switch from stable
    c = critical(m, "Delta")
    _close(c.points[0].critical, expect[0][0])
    _close(c.points[0].omega, expect[0][1])


def test_moving_average_worst_threshold_below_which_no_delta_destabilises():
    """lam theta* = mu min_{phi in (pi, 2 pi)} -phi/sin(phi) (tan phi = phi): just above it
    a window of unstable Delta opens, just below it none in the range."""
    with mpmath.workdps(30):
        phi = mpmath.findroot(lambda x: mpmath.tan(x) - x, 4.49)
        star = -phi / mpmath.sin(phi)
    above = sp.Rational(str(mpmath.nstr(star * (1 + mpmath.mpf(1) / 100), 20)))
    below = sp.Rational(str(mpmath.nstr(star * (1 - mpmath.mpf(1) / 100), 20)))
    up = lag_crossings(_model("moving_average", mu=1, lam=1, theta=above), "Delta", 0, 8, dps=12)
    assert [s[4] for s in up.switches] == [2, -2] and up.counts == (0, 2, 0)
    for s, (d, _w) in zip(up.switches, _moving_average_switches(above, 1, 8)):
        _close(s[0], d, 10)
    # the two switches straddle the phi* Delta of the double root, near phi*/w*
    w_star = star * (1 - mpmath.cos(phi)) / phi
    assert up.switches[0][0] < phi / w_star < up.switches[1][0]
    down = lag_crossings(_model("moving_average", mu=1, lam=1, theta=below), "Delta", 0, 8)
    assert down.switches == () and down.counts == (0,)


def test_information_delay_new_path_agrees_with_the_exact_path_and_pender():
    m = _model("information_delay", mu=1, lam=1, theta=3)
    exact = window(m, "D", hi=6, dps=15)
    assert "Res_z" in exact.algorithm  # the exact constant-lag path stays first
    new = lag_crossings(m, "D", 0, 6, dps=15)
    assert len(new.switches) == len(exact.breakpoints) == 3
    for s, e in zip(new.switches, exact.breakpoints):
        _close(s[0], e.value, 13)
        _close(s[3][0], e.omega[0], 13)
    assert new.counts == exact.counts
    with mpmath.workdps(30):
        pender = mpmath.acos(-mpmath.mpf(1) / 3) / mpmath.sqrt(8)
    _close(new.critical[0], pender, 13)
    # the critical lag: the entry takes the exact path; the certified search agrees
    from symdelay.analysis.lagparam import first_switch

    exact_c = critical(m, "D").points[0]
    assert "certified lag-parameter path" not in (exact_c.note or "")
    v, om, mode, _note = first_switch(m, "D", dps=15)
    _close(v, exact_c.critical, 13)
    _close(om, exact_c.omega, 13)
    assert mode == "difference"


def test_two_lag_mixture_switches_against_counts_on_both_sides():
    m = _model("two_lag_mixture", mu=1, lam=1, theta=3, D2=2, w=sp.Rational(1, 2))
    w = window(m, "D1", hi=6, dps=15)
    assert "exp(-2*r) is a second lag" in w.to_json()["method"]["notes"][0]
    assert len(w.breakpoints) == 3
    (_name, lin, _f, copies), = [g for g in _mode_groups(m) if g[0] == "difference"]  # fmt: skip
    for i, end in enumerate(w.breakpoints):
        for side, expect in ((-1, w.counts[i]), (1, w.counts[i + 1])):
            x = sp.Rational(str(mpmath.nstr(end.value, 20))) * (1 + sp.Rational(side, 1000))
            lags = {k: lag.xreplace({**m.values, sp.Symbol("D1"): x}) for k, lag in m.lags.items()}
            assert copies * unstable_count(lin, lags, dps=20).unstable == expect
    assert w.counts == (0, 2, 4, 2)


def test_announcement_against_collocation_at_sample_lags():
    m = _model("announcement", mu=1, lam=1, theta=3, p=sp.Rational(1, 4))
    s = lag_crossings(m, "D", 0, 3, dps=12)
    assert s.counts == (0, 2, 4)
    assert any("neutral" in n for n in s.notes)
    (_name, lin, _f, copies), = [g for g in _mode_groups(m) if g[0] == "difference"]  # fmt: skip
    D = sp.Symbol("D")
    for x, expect in zip(s.points, s.counts):
        lags = {k: lag.xreplace({**m.values, D: x}) for k, lag in m.lags.items()}
        spec = collocation_eigenvalues(lin, lags)
        assert copies * spec.count_right(radius=float(s.bound) + 1, tol=1e-6) == expect
    c = critical(m, "D")
    _close(c.points[0].critical, s.switches[0][0])


def test_gamma_lag_of_noninteger_shape_against_the_modulus_argument_equations(tmp_path):
    """A gamma lag of shape k = 5/2 whose mean m varies: r + mu + c (1 + r m/k)^(-k) = 0 at
    r = i w with x = w m / k reads atan(w/mu) = pi - k atan(x) and
    (1 + x^2)^(-k/2) = |i w + mu| / c: one equation in x (mpmath, bracketed), m = x k / w."""
    text = (EX / "information_delay.toml").read_text()
    text = text.replace('D = "positive"', 'm = "positive"').replace(
        'tau = { kind = "constant", value = "D" }',
        'tau = { kind = "gamma", shape = "5/2", mean = "m" }',
    )
    f = tmp_path / "gamma.toml"
    f.write_text(text)
    model = load_toml(f, mu=1, lam=1, theta=10)
    s = lag_crossings(model, "m", 0, 4, dps=15)
    with mpmath.workdps(30):
        k, c = mpmath.mpf(5) / 2, 10

        def w_of(x):
            return mpmath.tan(mpmath.pi - k * mpmath.atan(x))

        def g(x):
            return (1 + x**2) ** (-k / 2) - mpmath.sqrt(1 + w_of(x) ** 2) / c

        x0 = mpmath.tan(mpmath.pi / 2 / k)  # w -> inf there; g < 0 just above, > 0 at x = 1
        x = mpmath.findroot(g, (x0 * (1 + mpmath.mpf(10) ** -6), 1), solver="anderson")
        w = w_of(x)
        m_c = x * k / w
    assert len(s.switches) >= 1 and s.counts[0] == 0 and s.counts[1] == 2
    _close(s.switches[0][0], m_c, 12)
    _close(s.switches[0][3][0], w, 12)


def test_refusals_and_undecided():
    # a neutral equation whose difference operator is unstable: a property, not a switch
    bad = _model("announcement", mu=1, lam=1, theta=3, p=sp.Rational(1, 2))
    with pytest.raises(SymdelayInputError, match="difference operator"):
        window(bad, "D", hi=2)
    m = _model("moving_average", mu=1, lam=1, theta=6)
    # a mixture with a second, fixed lag is no scale family: no bound on its switches
    mix = _model("two_lag_mixture", mu=1, lam=1, theta=6, D2=1, w=sp.Rational(1, 2))
    with pytest.raises(SymdelayInputError, match="finite hi"):
        window(mix, "D1")
    # out of budget: the search says where it stopped, never guesses
    with pytest.raises(CertificationError, match="undecided"):
        lag_crossings(m, "Delta", 0, 10, max_boxes=50)
    # no switch from stable anywhere searched: the search's critical value is undecided, not
    # inf (critical answers inf here from a proof: tests/test_delay_polish.py)
    from symdelay.analysis.lagparam import first_switch

    low = _model("moving_average", mu=1, lam=1, theta=3)
    with pytest.raises(CertificationError, match="larger Delta was not searched"):
        first_switch(low, "Delta")


def test_worst_delta_of_the_moving_average_brackets_the_closed_form():
    """worst-delay over Delta: theta* = mu/lam * min_phi -phi/sin(phi) (tan phi = phi), at
    Delta* = phi*/w*, w* = lam theta* (1 - cos phi*)/phi*: the certified bracket holds it,
    and so does the unstable interval of Delta at the bracket's upper end."""
    from symdelay.analysis.lagparam import lag_worst

    with mpmath.workdps(30):
        phi = mpmath.findroot(lambda x: mpmath.tan(x) - x, 4.49)
        star = -phi / mpmath.sin(phi)
        d_star = phi / (star * (1 - mpmath.cos(phi)) / phi)
    m = _model("moving_average", mu=1, lam=1)
    w = lag_worst(m, "Delta", "theta", 0, 5, digits=2)
    assert w.digits >= 2
    assert w.critical_lo < sp.Rational(str(mpmath.nstr(star, 25))) <= w.critical_hi
    assert w.x_lower < sp.Rational(str(mpmath.nstr(d_star, 25))) < w.x_upper
    assert not w.at_end
