"""Periodic orbits of delay models (``cycles`` and ``limit-cycle`` on a model with lags):
the collocation cycle against the delay fluid integration of the same model, the Floquet
multipliers near the Hopf point against the equilibrium's characteristic roots (Lambert W),
the amplitude against the harmonic-balance (Lindstedt) law of the constant-lag model, a lag
longer than the period, the Erlang action lag against the phase-chain ODE, and bad input."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import brentq
from scipy.special import lambertw

from symdelay.analysis.continuation import cycles
from symdelay.analysis.cycles import limit_cycle
from symdelay.analysis.dfluid import delay_fluid
from symdelay.cli import main as cli_main
from symdelay.core.errors import SymdelayInputError
from symdelay.model.core import load_toml
from symdelay.models import build_model

ROOT = Path(__file__).resolve().parents[1]
INFO = ROOT / "examples" / "models" / "information_delay.toml"

#: The founding model's L = 2 phase chain as an Erlang action lag (same mean 2/gamma).
ERLANG_LAG = """
name = "two queues, logit routing, Erlang(2) action lag"
[parameters]
mu = "positive"
lam = "positive"
theta = "positive"
gamma = "positive"
[lags]
phases = { kind = "gamma", shape = "2", mean = "2/gamma" }
[state]
names = ["q1", "q2"]
[[transitions]]
name = "arrival to 1"
change = { q1 = 1 }
lag = "phases"
rate = "2*lam*exp(-theta*q1)/(exp(-theta*q1) + exp(-theta*q2))"
[[transitions]]
name = "arrival to 2"
change = { q2 = 1 }
lag = "phases"
rate = "2*lam*exp(-theta*q2)/(exp(-theta*q1) + exp(-theta*q2))"
[[transitions]]
name = "service 1"
change = { q1 = -1 }
rate = "mu*q1"
[[transitions]]
name = "service 2"
change = { q2 = -1 }
rate = "mu*q2"
[symmetry]
swap = [["q1", "q2"]]
"""


#: Routing on a sharpened imbalance: the arrival split ``1 / (1 + exp(+-h))``,
#: ``h = z + 2 c z^3 / (1 + z^4)`` of ``z = theta (q1 - q2)`` seen D ago; the same
#: linearisation as the logit's, but for ``c > 1/24`` the cubic term turns the Hopf point
#: subcritical, and the saturation folds the branch back (a fold of cycles with a stable
#: outer cycle).
SHARPENED = """
name = "two queues, routing on a sharpened imbalance seen D ago"
[parameters]
mu = "positive"
lam = "positive"
theta = "positive"
D = "positive"
c = "positive"
[lags]
tau = { kind = "constant", value = "D" }
[state]
names = ["q1", "q2"]
[[transitions]]
name = "arrival to 1"
change = { q1 = 1 }
assume_nonnegative = true
rate = "2*lam/(1 + exp(theta*(delayed(q1, tau) - delayed(q2, tau)) + 2*c*(theta*(delayed(q1, tau) - delayed(q2, tau)))**3/(1 + (theta*(delayed(q1, tau) - delayed(q2, tau)))**4)))"
[[transitions]]
name = "arrival to 2"
change = { q2 = 1 }
assume_nonnegative = true
rate = "2*lam/(1 + exp(theta*(delayed(q2, tau) - delayed(q1, tau)) + 2*c*(theta*(delayed(q2, tau) - delayed(q1, tau)))**3/(1 + (theta*(delayed(q2, tau) - delayed(q1, tau)))**4)))"
[[transitions]]
name = "service 1"
change = { q1 = -1 }
rate = "mu*q1"
[[transitions]]
name = "service 2"
change = { q2 = -1 }
rate = "mu*q2"
[symmetry]
swap = [["q1", "q2"]]
"""


def _theta_c(D: float) -> tuple[float, float]:
    """The Hopf point of ``x' = -x - 2 tanh(theta x(t - D) / 2)`` (mu = lam = 1): omega in
    (pi / 2D, pi / D) with ``tan(omega D) = -omega``, ``theta_c = sqrt(1 + omega^2)``."""
    w = brentq(lambda w: math.sin(w * D) + w * math.cos(w * D), math.pi / (2 * D), math.pi / D)
    return math.sqrt(1 + w * w), w


@pytest.fixture(scope="module")
def info_branch():
    """information_delay (mu = lam = D = 1) from its Hopf point to theta = 3."""
    m = load_toml(INFO, mu=1, lam=1, D=1)
    return cycles(m, "theta", "2", "3", intervals=30, max_points=60)


def test_the_branch_starts_at_the_hopf_point_with_the_lindstedt_amplitude(info_branch):
    th_c, w = _theta_c(1.0)
    assert float(info_branch.start["value"]) == pytest.approx(th_c, rel=1e-12)
    assert float(info_branch.start["omega"]) == pytest.approx(w, rel=1e-12)
    assert info_branch.start["criticality"] == "supercritical"
    p, a, T, stable = info_branch.arrays()
    assert np.all(p > th_c) and np.all(stable == 1.0)
    assert info_branch.stop == "left the range" and p[-1] == 3.0
    # x' = -x - 2 tanh(theta x_D / 2): harmonic balance of the odd nonlinearity (Lindstedt's
    # leading order, Novitzky et al. 2019) gives A^2 = 16 (1 - theta_c / theta) / theta^2
    law = np.sqrt(16 * (1 - th_c / p) / p**2)
    near = p < th_c + 0.01
    assert near.sum() >= 3
    # the ratio -> 1 linearly in theta - theta_c (the law's next order)
    dev = np.abs(a[near] / law[near] - 1)
    assert np.all(dev < 0.5 * (p[near] - th_c) + 1e-6)
    assert dev[0] < 5e-5
    # the period starts at 2 pi / omega
    assert T[0] == pytest.approx(2 * math.pi / w, rel=1e-6)


def test_multipliers_near_the_hopf_point_are_the_equilibrium_roots(info_branch):
    c = info_branch.points[0]
    th, T = c.value, c.period
    assert c.trivial_index == 0 and abs(c.multipliers[0] - 1) < 1e-7
    # r + 1 + theta exp(-r) = 0 (difference mode) and r = -1 (sum mode)
    roots = [-1 + complex(lambertw(-th * math.e, k)) for k in range(-4, 5)] + [-1.0]
    roots.sort(key=lambda z: -z.real)
    rho = np.array([np.exp(r * T) for r in roots])
    # the pair on the axis: the trivial multiplier and the amplitude direction's, which is
    # exp(-2 Re(r) T) to leading order
    assert c.multipliers[1].imag == 0
    assert c.multipliers[1].real == pytest.approx(math.exp(-2 * roots[0].real * T), abs=2e-6)
    for z in rho[2:6]:  # the next four: within the amplitude's effect (~A^2 = 1e-4)
        d = np.min(np.abs(c.multipliers - z))
        assert d < 1e-3 * abs(z), (z, c.multipliers[:8])


def test_the_cycle_agrees_with_the_delay_fluid_integration(info_branch):
    c = info_branch.points[-1]  # theta = 3
    T = c.period
    m = load_toml(INFO, mu=1, lam=1, D=1, theta=3)
    # the history: the orbit on [-D, 0] at 11 points, linearly interpolated (an error near
    # 1e-3 that decays by max|rho| = 0.24 per period: below 1e-13 after 20 periods)
    th = np.linspace(-1.0, 0.0, 11)
    yh = [np.interp(th + T, c.t, row) for row in c.y]
    hist = {"t": list(th), "q1": list(yh[0]), "q2": list(yh[1])}
    res = delay_fluid(m, T=26 * T, dt=0.05, history=hist, rtol=1e-11, atol=1e-13)
    tt = np.linspace(21 * T, 26 * T, 40001)
    y = res.at(tt)
    x = y[:, 0] - y[:, 1] if y.shape[1] == 2 else y[0] - y[1]
    amp = (x.max() - x.min()) / 2
    up = np.where((x[:-1] < 0) & (x[1:] >= 0))[0]
    tc = tt[up] - x[up] * (tt[up + 1] - tt[up]) / (x[up + 1] - x[up])
    period = (tc[-1] - tc[0]) / (len(tc) - 1)
    assert c.mesh_error < 1e-7
    assert amp == pytest.approx(c.amplitude, rel=1e-6)
    assert period == pytest.approx(T, rel=1e-7)


def test_the_cycle_the_delay_fluid_path_settles_on_starts_the_branch(info_branch):
    # start=VALUE: the returns of symdelay.fluid's path to the section x = mid-range; its
    # period (the fluid path's, before any collocation) and the corrected cycle against the
    # branch continued from the Hopf point to the same theta
    c = info_branch.points[-1]  # theta = 3
    m = load_toml(INFO, mu=1, lam=1, D=1)
    b = cycles(m, "theta", "2", "4", start="3", intervals=30, max_points=2)
    assert b.start["kind"] == "settled cycle" and b.start["laps"] == 1
    assert float(b.start["fluid_period"]) == pytest.approx(c.period, rel=1e-7)
    first = b.points[0]
    assert first.value == 3.0 and first.stable is True
    assert first.period == pytest.approx(c.period, rel=1e-8)
    assert first.amplitude == pytest.approx(c.amplitude, rel=1e-6)
    # below the Hopf point the path goes to the equilibrium: refused in one line
    with pytest.raises(SymdelayInputError, match="settles on the equilibrium"):
        cycles(m, "theta", "1", "4", start="1.5", intervals=30, max_points=2)


def test_a_lag_longer_than_the_period_reads_the_periodic_profile(info_branch):
    # the cycle at D = 1 solves the model with D + k T too (its look-back wraps k periods)
    c = info_branch.points[-1]
    for k in (2,):
        m = load_toml(INFO, mu=1, lam=1, D=repr(1 + k * c.period))
        b = cycles(m, "theta", "2", "4", start=c, max_points=2, intervals=30)
        c2 = b.points[0]
        assert b.start["kind"] == "given cycle"
        assert c2.period == pytest.approx(c.period, rel=1e-8)
        assert c2.amplitude == pytest.approx(c.amplitude, rel=1e-5)
        assert c2.stable is not None  # decided: the monodromy spans k + 1 periods


@pytest.fixture(scope="module")
def short_info():
    """The information_delay cycle at theta = 2.6 (16 intervals)."""
    return cycles(load_toml(INFO, mu=1, lam=1, D=1), "theta", "2", "2.6", intervals=16)


@pytest.mark.parametrize(
    "name, values",
    [
        # a mixture of two equal lags is the lag
        ("two_lag_mixture.toml", {"D1": 1, "D2": 1, "w": "0.3"}),
        # an arrival decided at t - D on the state then, in effect at t: the same equations
        # as routing at t on the state seen D ago
        ("constant_action_delay.toml", {"D": 1}),
    ],
)
def test_the_same_equations_written_otherwise_give_the_same_cycle(short_info, name, values):
    m = load_toml(ROOT / "examples" / "models" / name, mu=1, lam=1, **values)
    a = cycles(m, "theta", "2", "2.6", intervals=16).points[-1]
    b = short_info.points[-1]
    assert a.value == b.value == 2.6
    assert a.amplitude == pytest.approx(b.amplitude, rel=1e-9)
    assert a.period == pytest.approx(b.period, rel=1e-10)


def test_a_window_lag_starts_at_its_hopf_point():
    # moving averages over [0, 2]: r + 1 + theta (1 - exp(-2 r)) / (2 r) = 0 at r = i omega
    m = load_toml(ROOT / "examples" / "models" / "moving_average.toml", mu=1, lam=1, Delta=2)
    b = cycles(m, "theta", "4", "6", intervals=12, max_points=3)
    th_c, w = float(b.start["value"]), float(b.start["omega"])
    r = 1j * w
    assert abs(r + 1 + th_c * (1 - np.exp(-2 * r)) / (2 * r)) < 1e-12
    c = b.points[0]
    assert c.period == pytest.approx(2 * math.pi / w, rel=1e-5)
    # the sum mode (r = -1) is a multiplier exp(-T)
    assert np.min(np.abs(c.multipliers - math.exp(-c.period))) < 1e-6


@pytest.mark.parametrize(
    "lag",
    [
        'phases = { kind = "gamma", shape = "2", mean = "2/gamma" }',
        # the same law written as a phase-type one
        'phases = { kind = "phase_type", alpha = ["1", "0"], '
        'S = [["-gamma", "gamma"], ["0", "-gamma"]] }',
    ],
)
def test_the_erlang_action_lag_gives_the_phase_chain_cycles(tmp_path, lag):
    f = tmp_path / "erlang_lag.toml"
    text = ERLANG_LAG.replace('phases = { kind = "gamma", shape = "2", mean = "2/gamma" }', lag)
    assert lag in text
    f.write_text(text)
    lag = cycles(load_toml(f, mu=1, lam=1, gamma=2), "theta", "5", "9.6", intervals=16)
    ode = cycles(
        load_toml(ROOT / "examples" / "models" / "erlang2.toml", mu=1, lam=1, gamma=2),
        "theta",
        "5",
        "9.6",
        intervals=16,
    )
    assert float(lag.start["value"]) == pytest.approx(9.0, abs=1e-12)
    a, b = lag.points[-1], ode.points[-1]
    assert a.value == b.value == 9.6
    assert a.amplitude == pytest.approx(b.amplitude, rel=1e-9)
    assert a.period == pytest.approx(b.period, rel=1e-10)
    assert a.stable is b.stable is True
    assert np.allclose(
        np.sort(np.abs(a.nontrivial))[::-1][:3], np.sort(np.abs(b.nontrivial))[::-1][:3], atol=1e-8
    )


def test_the_branch_is_dde_biftools():
    # DDE-BIFTOOL's periodic-orbit continuation of the same model (degree 4, 20 intervals),
    # recorded by benchmarks/bench_delay_cycles_peer.py
    peer = json.loads((ROOT / "benchmarks" / "results" / "delay_cycles_peer.json").read_text())
    assert peer["values"] == {"mu": 1, "lam": 1, "D": 1}
    theirs = [c for c in peer["cycles"] if c[0] <= 3]
    picks = [theirs[1], theirs[len(theirs) // 2], theirs[-1]]
    fam = limit_cycle(load_toml(INFO, mu=1, lam=1, D=1), [repr(c[0]) for c in picks])
    for (th, period, amp, rho, _), c in zip(picks, fam.points):
        assert c.theta == th
        assert c.period == pytest.approx(period, rel=1e-7)
        assert c.amplitude_x == pytest.approx(amp, abs=2e-6)  # the peer's mesh error
        assert float(np.max(np.abs(c.nontrivial))) == pytest.approx(rho, abs=1e-5)
        assert c.stable is True


def test_a_subcritical_hopf_point_folds_back_to_a_stable_outer_cycle(tmp_path):
    from symdelay.analysis.stability import stability

    f = tmp_path / "sharpened.toml"
    f.write_text(SHARPENED)
    m = load_toml(f, mu=1, lam=1, D=1, c="0.2")
    b = cycles(m, "theta", "1", "2.6", intervals=16)
    th_c, _ = _theta_c(1.0)
    assert float(b.start["value"]) == pytest.approx(th_c, rel=1e-12)
    assert b.start["criticality"] == "subcritical" and b.start["side"] == "below"
    (lpc,) = b.special_points
    assert lpc.kind == "LPC" and lpc.located
    p, a, _, stable = b.arrays()
    assert lpc.value <= p.min() + 1e-12 and p.min() - lpc.value < 0.01
    assert abs(lpc.multipliers[0] - 1) < 1e-3  # a second multiplier at 1 on the fold
    i, j = lpc.between
    assert np.all(stable[: i + 1] == 0.0) and np.all(stable[j:] == 1.0)
    assert np.all(a[j:] > lpc.amplitude)
    # between the fold and the Hopf point the equilibrium is stable too: bistability
    mid = (lpc.value + th_c) / 2
    assert stability(load_toml(f, mu=1, lam=1, D=1, c="0.2", theta=repr(mid))).verdict == "stable"


def _run(capsys, argv):
    try:
        status = cli_main(argv)
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr()
    return status, out.out, out.err


MODEL = ["--model-file", str(INFO), "--set", "mu=1", "--set", "lam=1"]


def test_cli_cycles_in_the_lag_and_limit_cycle(capsys):
    status, out, err = _run(
        capsys,
        ["cycles", *MODEL, "--set", "theta=4", "--in", "D", "--range", "0.3:0.6", "--json"],
    )
    assert status == 0, err
    rec = json.loads(out)
    th = 4.0
    # theta_c(D) = 4 where sqrt(1 + w^2) = 4, tan(w D) = -w: D_c = (pi - atan(w)) / w
    w = math.sqrt(th * th - 1)
    D_c = (math.pi - math.atan(w)) / w
    assert float(rec["start"]["value"]) == pytest.approx(D_c, rel=1e-10)
    assert rec["param"] == "D" and rec["branch"] and rec["special_points"] == []
    assert all(pt["stable"] is True for pt in rec["branch"])
    status, out, err = _run(capsys, ["limit-cycle", *MODEL, "--set", "D=1", "--theta", "2"])
    assert status == 2 and "no Hopf point" in err and "\n" not in err.strip()


def test_bad_input_is_refused_in_one_line():
    m = load_toml(INFO, mu=1, lam=1, D=1)
    with pytest.raises(SymdelayInputError, match="range"):
        cycles(m, "theta", "3", "2")
    with pytest.raises(SymdelayInputError, match="start-fraction"):
        limit_cycle(m, 3, start_fraction=0.1)
    with pytest.raises(SymdelayInputError, match="no parameter"):
        cycles(m, "kappa", "1", "2")
    # three symmetric queues: the imaginary pair is double (S_3), no single branch
    three = build_model("dde", N=3, mu=1, lam=1, D=1)
    with pytest.raises(SymdelayInputError, match="multiple"):
        cycles(three, "theta", "1", "6")
