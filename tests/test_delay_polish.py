"""What a user sees of the certified delay paths: the window's undecided pieces in its first
line and its record, ``critical --force`` reaching the lag search's budget, and the proof
that a scale-family kernel's scalar mode is stable for every lag."""

from __future__ import annotations

import mpmath
import pytest

import symdelay
from symdelay.cli import main as cli_main
from symdelay.core.lazy import sympy as sp

EX = "examples/models/"


def _model(name, **values):
    return symdelay.load_toml(EX + name + ".toml").with_values(**values)


def _run(capsys, argv):
    try:
        status = cli_main(argv)
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr()
    return status, out.out, out.err


# ------------------------------------------------------------ 1. undecided pieces
def test_window_headline_and_record_carry_the_undecided_piece():
    """The announcement with velocity below its neutral boundary theta_N = 1/(lam p) = 2:
    the piece between the end of the crossing scan and theta_N is undecided. It is in the
    record (``undecided``), ``certified`` is false, and the first line of the text says it."""
    from symdelay.analysis.window import window
    from symdelay.cli.commands.window import text_lines

    w = window(_model("announcement", mu=1, lam=2, D=1, p="1/4"), "theta", hi=3, dps=15)
    d = w.to_json()
    ((a, b),) = d["undecided"]
    assert mpmath.mpf(b) == 1 / (mpmath.mpf(2) / 4)  # theta_N = 1/(lam p), closed form
    # the undecided piece is exactly the gap between the two unstable intervals
    (_lo1, hi1), (lo2, _hi2) = d["intervals"]
    assert (a, b) == (hi1, lo2) and d["certified"] is False
    head = text_lines(d, "theta")[0]
    assert head.endswith(f"; undecided in ({a}, {b})"), head
    assert head.count("undecided") == 1
    assert r"\text{undecided in }" in w.latex()


def test_undecided_is_always_a_key_and_empty_when_certified():
    """Every path's record has ``undecided`` (one key set); [] with ``certified`` true."""
    from symdelay.analysis.window import lag_window, window
    from symdelay.cli.commands.window import text_lines
    from symdelay.models import build_model

    r, tau = sp.symbols("r tau")
    table = window(build_model("erlang", L=2, mu=1, lam=1, D=1), "theta", lo=0).to_json()
    lag = lag_window(r + 1 + 2 * sp.exp(-r * tau), tau, hi=10).to_json()
    for d in (table, lag):
        assert d["undecided"] == [] and d["certified"] is True
        assert "undecided" not in text_lines(d, "x")[0]
    assert set(lag) == set(table) - set(table["parameters"])


def test_stable_text_is_not_claimed_over_an_undecided_piece():
    """No interval proved unstable but a piece undecided: the line must not say 'stable for
    every'."""
    from symdelay.cli.commands.window import text_lines

    d = {
        "model": "m",
        "parameters": {},
        "range": ["0", "3"],
        "intervals": [],
        "undecided": [["1", "2"]],
        "method": {"path": "generic", "algorithm": "a", "notes": []},
    }
    head = text_lines(d, "theta")[0]
    assert "stable for every" not in head and head.endswith("; undecided in (1, 2)")


# ------------------------------------------------------- 2. critical --force
MA = ["--model-file", EX + "moving_average.toml", "--param", "Delta"]
MA_SET = ["--set", "mu=1", "--set", "lam=1", "--set", "theta=5"]


@pytest.fixture
def tiny_lag_budget(monkeypatch):
    """The budget of the certified lag search only made tiny (the model's other estimates
    keep theirs): a run is over it unless forced."""
    import symdelay.core.budget as budget

    real = budget.check_budget

    def check(what, estimate, **kw):
        if what.startswith("the crossing search over"):
            kw["budget"] = budget.Budget(seconds=1e-12)
        return real(what, estimate, **kw)

    monkeypatch.setattr(budget, "check_budget", check)


def test_critical_force_reaches_the_lag_search_budget(capsys, tiny_lag_budget):
    status, _out, err = _run(capsys, ["critical", *MA, *MA_SET])
    assert status == 2 and "crossing search over Delta" in err and "--force" in err
    assert err.count("\n") == 1
    status, out, err = _run(capsys, ["critical", *MA, *MA_SET, "--force", "--json"])
    assert status == 0, err
    import json

    (pt,) = json.loads(out)["points"]
    # the first switch against the closed form of the moving average at theta = 5:
    # lam theta sin(phi)/phi = -mu, Delta = phi / w with w = lam theta (1 - cos phi)/phi;
    # two roots phi in (pi, 2 pi) (either side of the minimum of sin(phi)/phi near 4.49),
    # the first switch is the smaller Delta
    with mpmath.workdps(30):
        found = []  # (Delta, omega)
        for bracket in ((mpmath.pi, 4.49), (4.49, 2 * mpmath.pi)):
            phi = mpmath.findroot(lambda f: 5 * mpmath.sin(f) / f + 1, bracket, solver="anderson")
            w = 5 * (1 - mpmath.cos(phi)) / phi
            found.append((phi / w, w))
        delta, w = min(found)
        assert abs(mpmath.mpf(pt["Delta_c"]) - delta) < mpmath.mpf(10) ** -12
        assert abs(mpmath.mpf(pt["omega"]) - w) < mpmath.mpf(10) ** -12


def test_critical_force_in_the_api(tiny_lag_budget):
    from symdelay.analysis.critical import critical

    m = _model("moving_average", mu=1, lam=1, theta=5)
    with pytest.raises(symdelay.SymdelayInputError, match="force"):
        critical(m, "Delta")
    assert critical(m, "Delta", force=True).points[0].critical > 2


# ------------------------------------- 3. stable for every lag: a scale-family kernel
def _ma_threshold():
    """mu/lam * min over phi in (pi, 2 pi) of -phi/sin(phi) (mu = lam = 1): the moving
    average is stable for every Delta exactly below it (tan phi = phi at the minimum)."""
    with mpmath.workdps(30):
        phi = mpmath.findroot(lambda f: mpmath.tan(f) - f, 4.49)
        return -phi / mpmath.sin(phi)


def _ma_switches(theta):
    """The Deltas where r = i w: theta sin(phi)/phi = -1, w = theta (1 - cos phi)/phi,
    Delta = phi/w, one root phi either side of the minimum of sin(phi)/phi."""
    with mpmath.workdps(30):
        out = []
        for bracket in ((mpmath.pi, 4.4934), (4.4934, 2 * mpmath.pi)):
            phi = mpmath.findroot(
                lambda f: theta * mpmath.sin(f) / f + 1, bracket, solver="anderson"
            )
            w = theta * (1 - mpmath.cos(phi)) / phi
            out.append((phi / w, w))
        return sorted(out)


def test_moving_average_stable_for_every_delta_below_the_closed_form_threshold():
    from symdelay.analysis.critical import critical
    from symdelay.analysis.window import window

    star = _ma_threshold()
    assert abs(star - mpmath.mpf("4.6033")) < 1e-4 and 4.5 < star < 4.7
    for theta in (3, "9/2"):
        m = _model("moving_average", mu=1, lam=1, theta=theta)
        (pt,) = critical(m, "Delta").points
        assert pt.critical == mpmath.inf and pt.omega is None
        assert pt.note.startswith("stable for every Delta > 0 (proved:")
    # the certified window over Delta agrees on a range holding every switch of theta = 4.7
    w = window(m, "Delta", hi=10)
    assert w.certified and not w.intervals and w.counts == (0,)


def test_moving_average_above_the_threshold_has_its_switch():
    from symdelay.analysis.critical import critical
    from symdelay.analysis.lagparam import stable_for_every
    from symdelay.analysis.window import window

    m = _model("moving_average", mu=1, lam=1, theta="47/10")
    assert stable_for_every(m, "Delta") is None
    (pt,) = critical(m, "Delta").points
    (d1, w1), (d2, _w2) = _ma_switches(mpmath.mpf(47) / 10)
    assert abs(pt.critical - d1) < 1e-12 and abs(pt.omega - w1) < 1e-12
    ((lo, hi),) = [tuple(iv) for iv in window(m, "Delta", hi=10).intervals]
    assert abs(lo - d1) < 1e-12 and abs(hi - d2) < 1e-12


def test_gamma_kernel_threshold_against_its_closed_form(tmp_path):
    """A gamma lag of shape kappa and mean Delta: k(i phi) = cos(psi)^kappa e^{-i kappa psi}
    with tan psi = phi/kappa; Re(c k) = -mu with Im < 0 first becomes possible at
    psi = pi/(kappa + 1), so lam theta* = mu cos(pi/(kappa + 1))^-(kappa + 1)."""
    from pathlib import Path

    from symdelay.analysis.critical import critical

    src = Path(EX + "moving_average.toml").read_text()
    old = 'avg = { kind = "uniform", low = "0", high = "Delta" }'
    assert old in src
    path = tmp_path / "gamma.toml"
    path.write_text(src.replace(old, 'avg = { kind = "gamma", shape = "3/2", mean = "Delta" }'))
    star = mpmath.cos(mpmath.pi / mpmath.mpf(2.5)) ** mpmath.mpf(-2.5)  # 18.838...
    for factor, stable in ((mpmath.mpf("0.99"), True), (mpmath.mpf("1.01"), False)):
        theta = mpmath.nstr(star * factor, 10)
        m = symdelay.load_toml(str(path)).with_values(mu=1, lam=1, theta=theta)
        (pt,) = critical(m, "Delta").points
        assert (pt.critical == mpmath.inf) is stable, (theta, pt)
        if stable:
            assert "gamma kernel" in pt.note
