"""Branch switching at a period doubling (``cycles(..., switch=LEVELS)``, ``symdelay cycles
--switch``) on the Hastings-Powell food chain (tests/data/food_chain.toml): the PD on
the period-1 branch in b1 against the multiplier of the variational equation integrated by
an ODE solver, the doubled branch's period and multipliers at the PD, its own PD against a
branch continued from a period-2 cycle of a long fluid integration (no switch), and that
integration's period and amplitude against the doubled branch."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import symdelay
from symdelay.analysis.bvp import OrbitField
from symdelay.analysis.continuation import cycles
from symdelay.cli import main as cli_main
from symdelay.core.errors import SymdelayInputError

FILE = str(Path(__file__).parent / "data" / "food_chain.toml")


@pytest.fixture(scope="module")
def chain():
    return symdelay.load_toml(FILE)


def _returns(path, laps):
    """From a fluid path: the state's section returns (x up through the middle of its
    range over the tail); ``(times, start cycle of ``laps`` returns)``."""
    df = path.to_pandas()
    tail = df[df.t >= df.t.iloc[-1] / 2]
    t, Y = tail.t.to_numpy(), tail[["x", "y", "z"]].to_numpy().T
    x = Y[0]
    c = (x.max() + x.min()) / 2
    k = np.nonzero((x[:-1] < c) & (x[1:] >= c))[0]
    tc = t[k] + (c - x[k]) / (x[k + 1] - x[k]) * (t[k + 1] - t[k])
    a, b = k[-1 - laps], k[-1]
    return tc, t[a : b + 1] - t[a], Y[:, a : b + 1], Y


@pytest.fixture(scope="module")
def switched(chain):
    """The period-1 branch from the cycle a fluid path settles on at b1 = 2.2, up to 2.4, and
    the branch of doubled cycles from its period doubling (one level)."""
    path = symdelay.fluid(chain.with_values(b1="2.2"), T=1200, dt=0.05, initial=[0.8, 0.2, 10])
    tc, t, y, _ = _returns(path, 1)
    start = SimpleNamespace(value=2.2, t=t, y=y, period=tc[-1] - tc[-2])
    return cycles(chain, "b1", "2.15", "2.4", start=start, intervals=40, switch=1)


def test_the_period_doubling_has_a_multiplier_minus_one(chain, switched):
    (pd,) = [s for s in switched.special_points if s.kind == "PD"]
    assert pd.located and 2.28 < pd.value < 2.30
    k = pd.between[1]
    stable = [c.stable for c in switched.points]
    assert all(stable[:k]) and not any(stable[k:])
    # an independent path: the variational equation integrated by an ODE solver over the
    # located orbit's period gives the multiplier -1
    F = OrbitField(chain, "b1")
    y0 = pd.orbit.coll.evaluate(pd.orbit.U, np.array([0.0]))[0]

    def rhs(t, w):
        y, Phi = w[:3], w[3:].reshape(3, 3)
        J = F.jac_dense(y[None], pd.value)[0]
        return np.concatenate([F.f(y[None], pd.value)[0], (J @ Phi).ravel()])

    w0 = np.concatenate([y0, np.eye(3).ravel()])
    sol = solve_ivp(rhs, (0, pd.period), w0, method="LSODA", rtol=1e-11, atol=1e-12)
    ev = np.linalg.eigvals(sol.y[3:, -1].reshape(3, 3))
    assert np.min(np.abs(ev + 1)) < 1e-5
    assert np.min(np.abs(ev - 1)) < 1e-5  # the trivial one


def test_the_doubled_branch_starts_at_twice_the_period(switched):
    (pd,) = [s for s in switched.special_points if s.kind == "PD"]
    (doubled,) = switched.doubled
    assert doubled.start["kind"] == "period doubling"
    assert float(doubled.start["value"]) == pd.value
    assert doubled.intervals == 2 * switched.intervals
    first = doubled.points[0]
    assert abs(first.value - pd.value) < 1e-3
    assert first.period / (2 * pd.period) == pytest.approx(1, abs=1e-3)
    # its multipliers are the squares of the PD cycle's: the critical -1 is now +1 (leaving
    # it into the unit disc: the doubled cycles are stable, a supercritical doubling)
    crit = sorted(np.abs(first.nontrivial))
    assert crit[-1] < 1 and crit[-1] > 0.9
    rho2 = min(np.abs(pd.orbit.point.nontrivial) ** 2)
    assert crit[0] == pytest.approx(rho2, rel=0.05, abs=1e-3)
    # a true period 2 T: the orbit differs from its half-period shift
    y = first.y
    shift = np.roll(y, -(y.shape[1] - 1) // 2, axis=1)
    assert np.max(np.abs(y - shift)) > 1e-3
    # the next level of the cascade: the doubled branch has its own PD, stable before it
    (pd2,) = [s for s in doubled.special_points if s.kind == "PD"]
    assert pd2.located and 2.37 < pd2.value < 2.39
    k = pd2.between[1]
    assert all(c.stable for c in doubled.points[1:k])
    rec = json.loads(json.dumps(switched.record()))
    (d,) = rec["doubled_branches"]
    assert d["start"]["kind"] == "period doubling" and d["observed"] == "x"
    assert [s["kind"] for s in d["special_points"]] == ["PD"]


def test_a_long_fluid_integration_settles_on_the_doubled_cycle(chain, switched):
    (doubled,) = switched.doubled
    p = np.array([c.value for c in doubled.points])
    orbit = doubled.points[int(np.argmin(np.abs(p - 2.35)))]
    m = chain.with_values(b1=repr(orbit.value))
    path = symdelay.fluid(m, T=2500, dt=0.05, initial=[0.8, 0.2, 10])
    tc, t, y, tail = _returns(path, 2)
    laps = np.diff(tc)
    assert abs(laps[-1] - laps[-2]) > 0.1  # two different laps: a period-2 cycle
    assert tc[-1] - tc[-3] == pytest.approx(orbit.period, rel=1e-4)
    amp = (tail[0].max() - tail[0].min()) / 2
    assert amp == pytest.approx(orbit.amplitude, rel=1e-4)
    # the same PD of the period-2 cycles from this cycle, continued without a switch
    start = SimpleNamespace(value=orbit.value, t=t, y=y, period=tc[-1] - tc[-3])
    again = cycles(chain, "b1", "2.3", "2.4", start=start, intervals=40)
    (pd2,) = [s for s in again.special_points if s.kind == "PD"]
    (ref,) = [s for s in doubled.special_points if s.kind == "PD"]
    assert pd2.value == pytest.approx(ref.value, abs=1e-6)


def test_bad_switch_is_refused(chain, capsys):
    with pytest.raises(SymdelayInputError, match="switch must be an integer from 0 to 4"):
        cycles(chain, "b1", "2.15", "2.4", start="2.2", switch=5)
    argv = ["cycles", "--model-file", FILE, "--in", "b1", "--range", "2.15:2.4", "--switch", "9"]
    try:
        status = cli_main(argv)
    except SystemExit as exc:
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2 and "--switch must be from 0 to 4" in err
    assert len(err.strip().splitlines()) == 1


def test_the_settled_cycle_of_a_fluid_path_is_the_doubled_one(chain, switched):
    # LSODA's section returns (the start of a branch from a value) against the collocation
    from symdelay.analysis.doubling import settled_cycle

    (doubled,) = switched.doubled
    p = np.array([c.value for c in doubled.points])
    orbit = doubled.points[int(np.argmin(np.abs(p - 2.35)))]
    F = OrbitField(chain, "b1")
    t, y, period, laps = settled_cycle(F, orbit.value, [0.8, 0.2, 10], chunk=1200)
    assert laps == 2 and t[-1] == period
    assert period == pytest.approx(orbit.period, rel=1e-7)
    assert (y[0].max() - y[0].min()) / 2 == pytest.approx(orbit.amplitude, rel=1e-4)
    with pytest.raises(SymdelayInputError, match="outside the range"):
        cycles(chain, "b1", "2.15", "2.4", start="2.5")


#: The Mackey-Glass equation ``x' = beta x(t - D) / (1 + x(t - D)^10) - gamma x`` as a
#: delay model: its cycles born at the Hopf point double their period as the lag grows.
MACKEY_GLASS = """
name = "Mackey-Glass production with a delayed feedback"
[parameters]
beta = "positive"
gamma = "positive"
D = "positive"
[lags]
tau = { kind = "constant", value = "D" }
[state]
names = ["x"]
[[transitions]]
name = "production"
change = { x = 1 }
rate = "beta*delayed(x, tau)/(1 + delayed(x, tau)**10)"
[[transitions]]
name = "clearance"
change = { x = -1 }
rate = "gamma*x"
"""


def test_a_delay_models_period_doubling_switches_to_the_doubled_branch(tmp_path):
    from symdelay.analysis.doubling import settled_delay_cycle

    f = tmp_path / "mackey_glass.toml"
    f.write_text(MACKEY_GLASS)
    m = symdelay.load_toml(str(f), beta=2, gamma=1)
    b = cycles(m, "D", "0.4", "1.5", intervals=20, max_points=40, switch=1)
    (pd,) = [s for s in b.special_points if s.kind == "PD"]
    assert pd.located and 1.3 < pd.value < 1.35
    assert abs(pd.multipliers[0] + 1) < 1e-6
    k = pd.between[1]
    assert all(c.stable for c in b.points[1:k]) and not any(c.stable for c in b.points[k:])
    (doubled,) = b.doubled
    first, last = doubled.points[0], doubled.points[-1]
    assert first.period / (2 * pd.period) == pytest.approx(1, abs=1e-3)
    assert last.value == 1.5 and last.stable is True
    # an independent path: the delay fluid path at D = 1.5 settles on a cycle of two laps
    # (its section returns alternate), with the doubled branch's period and amplitude
    t, y, period, laps = settled_delay_cycle(m.with_values(D="1.5"), [1.0], horizon=120,
                                             lookback=1.5)  # fmt: skip
    assert t[-1] == period
    assert laps == 2
    assert period == pytest.approx(last.period, rel=1e-6)
    assert (y[0].max() - y[0].min()) / 2 == pytest.approx(last.amplitude, rel=1e-4)
