"""Fluid paths of models with lags (symdelay/analysis/dfluid.py) against independent paths.

(a) x' = -a x(t - tau) against its exact piecewise-polynomial solution by the method of
    steps, computed here with SymPy (a held and a linear history table, from a CSV file);
(b) information_delay.toml against the dde family's steps path (the specialisation, the same
    record; JiTCDDE is compared with that path in tests/test_dde_model.py) and a fixed-step
    RK4 with cubic Hermite look-ups written here, which must converge to it; (c) the founding model's Erlang(L) chain (its transition table) equals
    the constant action delay model with a gamma(L) action lag (exact chain states, the mass
    in transit equal to the chain's phases), and tends to the constant action delay with a
    distance ~ 1/L; (d) moving_average against the same model written with running integrals
    by hand (a constant lag on an integral state); (e) the neutral announcement model
    satisfies its equation (integral residual, dot() from the dense solution); (f) above the
    critical theta the path oscillates with the period 2 pi / omega of `critical`;
    (g) bad input is one line.
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.fluid import fluid
from symdelay.core.errors import SymdelayInputError
from symdelay.model import Model, load_toml
from symdelay.models import build_model

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "models"


def example(name, **values):
    return load_toml(EXAMPLES / f"{name}.toml", **values)


def variant(tmp_path, name, old, new, **values):
    """An example model file with one line replaced (a different lag), loaded."""
    text = (EXAMPLES / f"{name}.toml").read_text()
    assert old in text
    path = tmp_path / f"{name}_variant.toml"
    path.write_text(text.replace(old, new))
    return load_toml(path, **values)


# ---------------------------------------------------------------- (a) exact linear DDE
def scalar_model(a="1/2", D=1):
    return Model(
        "scalar delay", ["x"], {"a": "positive", "D": "positive"},
        [("leave", {"x": -1}, "a*delayed(x, tau)")],
        lags={"tau": {"kind": "constant", "value": "D"}}, values={"a": a, "D": D},
    )  # fmt: skip


def steps_exact(a, tau, phi, pieces):
    """The exact solution of x' = -a x(t - tau) on [k tau, (k+1) tau], k < pieces, from the
    history phi on [-tau, 0] (SymPy polynomials in t)."""
    t, s = sp.symbols("t s")
    out, prev = [], phi
    for k in range(pieces):
        start = prev.subs(t, k * tau) if k else phi.subs(t, 0)
        nxt = start - a * sp.integrate(prev.subs(t, s - tau), (s, k * tau, t))
        out.append(sp.expand(nxt))
        prev = nxt
    return t, out


@pytest.mark.parametrize("history", ["held", "table"])
def test_linear_dde_against_the_exact_method_of_steps(history, tmp_path):
    a, tau = sp.Rational(1, 2), 1
    t = sp.Symbol("t")
    phi = sp.Integer(1) if history == "held" else 1 + t / 2
    tt, exact = steps_exact(a, tau, phi, 2)
    kw = {"initial": [1.0]}
    if history == "table":
        path = tmp_path / "h.csv"
        path.write_text("# a linear history\nt,x\n-1,0.5\n0,1\n")
        kw = {"history": str(path)}
    res = fluid(scalar_model(), T=2, dt=0.125, rtol=1e-12, atol=1e-14, **kw)
    assert res.info["solver"]["breakpoints"] == [0.0, 1.0, 2.0]
    ref = [float(exact[min(int(u // tau), 1)].subs(tt, sp.Rational(u))) for u in res.t]
    assert np.max(np.abs(res["x"] - ref)) < 1e-12
    # the dense solution between grid points, and the history before 0
    u = np.linspace(-1, 2, 61)
    want = [
        float(phi.subs(tt, sp.Rational(v))) if v < 0 else
        float(exact[min(int(v // tau), 1)].subs(tt, sp.Rational(v)))
        for v in u
    ]  # fmt: skip
    assert np.max(np.abs(res.at(u)[:, 0] - want)) < 1e-12


# ---------------------------------------------------------------- (b) information delay
def rk4_hermite(f, y0, D, T, N):
    """Classical RK4 with step D/N for y' = f(y(t), y(t - D)), held history y0; look-ups
    by cubic Hermite interpolation of the stored steps (values and slopes): fourth order."""
    h = D / N
    n = round(T / h)
    Y = np.empty((n + 1, len(y0)))
    F = np.empty_like(Y)
    Y[0] = y0

    def past(u):
        if u <= 0:
            return np.asarray(y0, float), np.zeros(len(y0))
        j = min(int(u // h), n - 1)
        x = (u - j * h) / h
        h00, h10 = 2 * x**3 - 3 * x**2 + 1, x**3 - 2 * x**2 + x
        h01, h11 = -2 * x**3 + 3 * x**2, x**3 - x**2
        return h00 * Y[j] + h10 * h * F[j] + h01 * Y[j + 1] + h11 * h * F[j + 1], None

    for k in range(n):
        t = k * h
        d0, dm, d1 = past(t - D)[0], past(t + h / 2 - D)[0], past(t + h - D)[0]
        F[k] = f(Y[k], d0)
        k1 = F[k]
        k2 = f(Y[k] + h / 2 * k1, dm)
        k3 = f(Y[k] + h / 2 * k2, dm)
        k4 = f(Y[k] + h * k3, d1)
        Y[k + 1] = Y[k] + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        F[k + 1] = f(Y[k + 1], past(t + h - D + h)[0] if t + 2 * h - D <= t + h else d1)
    return np.arange(n + 1) * h, Y


def logit_rhs(mu, lam, theta):
    def f(q, qd):
        e = np.exp(-theta * (qd - qd.min()))
        return 2 * lam * e / e.sum() - mu * q

    return f


def test_information_delay_against_the_dde_family_and_rk4():
    T = 6.0
    m = example("information_delay", mu=1, lam=1, theta=4, D=1)
    generic = fluid(m, T=T, dt=0.25, initial=[0, 1], rtol=1e-12, atol=1e-14)
    fam = build_model("dde", mu=1, lam=1, theta=4, D=1)
    fast = fluid(fam, T=T, dt=0.25, initial=[0, 1], rtol=1e-12, atol=1e-14, method="specialised")
    slow = fluid(fam, T=T, dt=0.25, initial=[0, 1], rtol=1e-12, atol=1e-14, method="generic")
    assert fast.info["solver"]["scheme"] != slow.info["solver"]["scheme"]  # two paths
    # one record: the same keys, the same states, the same numbers
    assert fast.record().keys() == slow.record().keys() == generic.record().keys()
    assert fast.info["solver"].keys() == slow.info["solver"].keys()
    assert np.max(np.abs(generic.values - slow.values)) < 1e-12
    assert np.max(np.abs(fast.values - slow.values)) < 1e-10
    ts, Y = rk4_hermite(logit_rhs(1.0, 1.0, 4.0), [0.0, 1.0], 1.0, T, 100)
    err = np.max(np.abs(generic.at(ts) - Y))
    assert err < 1e-7
    ts2, Y2 = rk4_hermite(logit_rhs(1.0, 1.0, 4.0), [0.0, 1.0], 1.0, T, 50)
    assert np.max(np.abs(generic.at(ts2) - Y2)) > 8 * err  # RK4 converges to it
    # JiTCDDE (the optional extra; 12 s to compile here) is compared with the steps path,
    # which this test compares with the generic one: tests/test_dde_model.py


# ---------------------------------------------------------------- (c) action delay chains
GAMMA_LINE = 'tau = { kind = "constant", value = "D" }'


def founding_table(L, T, dt):
    """The founding model (Erlang(L) action delay written as phases in its table), from
    q = (0, 1) with the pipeline matched to the held history: z_{i,l} = 2 lam p_i D / L."""
    m = build_model("erlang", L=L, mu=1, lam=1, theta=2, D=1)
    p1 = 1 / (1 + math.exp(-2.0))  # the logit of (0, 1) at theta = 2
    y0 = []
    for s in m.states:
        name = s.name
        if name in ("q1", "q2"):
            y0.append(0.0 if name == "q1" else 1.0)
        else:
            y0.append(2 * (p1 if name.startswith("z1") else 1 - p1) / L)
    return m, fluid(m, T=T, dt=dt, initial=y0, rtol=1e-11, atol=1e-13)


def test_gamma_action_lag_is_the_founding_chain(tmp_path):
    L = 3
    _, table = founding_table(L, 6, 0.25)
    gamma = variant(
        tmp_path, "constant_action_delay", GAMMA_LINE,
        f'tau = {{ kind = "gamma", shape = "{L}", mean = "D" }}', mu=1, lam=1, theta=2, D=1,
    )  # fmt: skip
    res = fluid(gamma, T=6, dt=0.25, initial=[0, 1], rtol=1e-11, atol=1e-13)
    assert np.max(np.abs(res["q1"] - table["q1"])) < 1e-9
    assert np.max(np.abs(res["q2"] - table["q2"])) < 1e-9
    # the mass in transit is the chain's phases, and Little's law at the equilibrium
    z1 = np.sum(table["z1"], axis=0)
    z2 = np.sum(table["z2"], axis=0)
    assert np.max(np.abs(res["in_transit[arrival to 1]"] - z1)) < 1e-9
    assert np.max(np.abs(res["in_transit[arrival to 2]"] - z2)) < 1e-9
    assert gamma.in_transit() == {"arrival to 1": "1", "arrival to 2": "1"}


def test_erlang_chain_tends_to_the_constant_action_delay():
    m = example("constant_action_delay", mu=1, lam=1, theta=2, D=1)
    ref = fluid(m, T=8, dt=0.05, initial=[0, 1], rtol=1e-11, atol=1e-13)
    # the constant lag's mass in transit at 0: the held history's rate times D
    p1 = 1 / (1 + math.exp(-2.0))
    assert ref["in_transit[arrival to 1]"][0] == pytest.approx(2 * p1, rel=1e-12)
    Ls = (8, 16, 32)
    dist = []
    for L in Ls:
        _, table = founding_table(L, 8, 0.05)
        dist.append(float(np.max(np.abs(table["q1"] - ref["q1"]))))
    ratios = [b / a for a, b in itertools.pairwise(dist)]
    # O(1/L): the distance nearly halves as L doubles (measured 0.61, 0.56; 0.68 from 4)
    assert all(0.45 < q < 0.65 for q in ratios) and ratios[1] < ratios[0]
    assert all(abs(L * d / (Ls[0] * dist[0]) - 1) < 0.5 for L, d in zip(Ls, dist))


# ---------------------------------------------------------------- (d) moving average
HAND = """
name = "moving average by hand"
[parameters]
mu = "positive"
lam = "positive"
theta = "positive"
Delta = "positive"
[lags]
back = { kind = "constant", value = "Delta" }
[state]
names = ["q1", "q2", "I1", "I2"]
[[transitions]]
name = "arrival to 1"
change = { q1 = 1 }
rate = "2*lam*exp(-theta*(I1 - delayed(I1, back))/Delta)/(exp(-theta*(I1 - delayed(I1, back))/Delta) + exp(-theta*(I2 - delayed(I2, back))/Delta))"
[[transitions]]
name = "arrival to 2"
change = { q2 = 1 }
rate = "2*lam*exp(-theta*(I2 - delayed(I2, back))/Delta)/(exp(-theta*(I1 - delayed(I1, back))/Delta) + exp(-theta*(I2 - delayed(I2, back))/Delta))"
[[transitions]]
name = "service 1"
change = { q1 = -1 }
rate = "mu*q1"
[[transitions]]
name = "service 2"
change = { q2 = -1 }
rate = "mu*q2"
[[transitions]]
name = "integral 1"
change = { I1 = 1 }
rate = "q1"
[[transitions]]
name = "integral 2"
change = { I2 = 1 }
rate = "q2"
"""


def test_moving_average_against_integrals_written_by_hand(tmp_path):
    values = dict(mu=1, lam=1, theta=3, Delta=2)
    m = example("moving_average", **values)
    res = fluid(m, T=12, dt=0.25, initial=[0.5, 1.5], rtol=1e-12, atol=1e-14)
    assert res.info["solver"]["lags"]["constant look-backs"] == [2.0]
    path = tmp_path / "hand.toml"
    path.write_text(HAND)
    hand = load_toml(path, **values)
    # the held history (0.5, 1.5) and the integrals I_i(u) = q_i (u + Delta), exact when linear
    hist = {"t": [-2.0, 0.0], "q1": [0.5, 0.5], "q2": [1.5, 1.5], "I1": [0.0, 1.0],
            "I2": [0.0, 3.0]}  # fmt: skip
    ref = fluid(hand, T=12, dt=0.25, history=hist, rtol=1e-12, atol=1e-14)
    assert np.max(np.abs(res["q1"] - ref["q1"])) < 1e-10
    assert np.max(np.abs(res["q2"] - ref["q2"])) < 1e-10


# ---------------------------------------------------------------- (e) neutral
def test_announcement_satisfies_its_neutral_equation():
    mu, lam, theta, D, p = 1.0, 1.0, 2.0, 1.0, 0.3
    m = example("announcement", mu=1, lam=1, theta=2, D=1, p="3/10")
    res = fluid(m, T=3, dt=0.5, initial=[0, 1], rtol=1e-12, atol=1e-14)
    assert res.info["solver"]["breakpoints"] == [0.0, 1.0, 2.0, 3.0]
    nodes, weights = np.polynomial.legendre.leggauss(16)
    eps = 1e-5

    def slope(u):  # the dense solution's derivative, by central differences
        return (res.at(u + eps) - res.at(u - eps)) / (2 * eps)

    worst = 0.0
    for a in np.arange(1.0, 3.0, 0.25):  # past the history, inside pieces
        b = a + 0.25
        u = 0.5 * (b - a) * nodes + 0.5 * (a + b)
        seen = res.at(u - D) + p * slope(u - D)
        e = np.exp(-theta * (seen - seen.min(axis=1, keepdims=True)))
        rhs = 2 * lam * e / e.sum(axis=1, keepdims=True) - mu * res.at(u)
        jump = res.at(np.array([b]))[0] - res.at(np.array([a]))[0]
        worst = max(worst, float(np.max(np.abs(jump - 0.5 * (b - a) * weights @ rhs))))
    assert worst < 1e-8


# ---------------------------------------------------------------- (f) the Hopf period
def test_unstable_theta_oscillates_with_the_critical_period():
    from symdelay.analysis.critical import critical

    point = critical(example("information_delay", mu=1, lam=1, D=1), "theta").points[0]
    theta_c, omega = float(point.critical), float(point.omega)
    theta = sp.Rational(round(theta_c * 1.03 * 1000), 1000)
    m = example("information_delay", mu=1, lam=1, theta=theta, D=1)
    res = fluid(m, T=50, dt=0.01, initial=[1.01, 0.99])
    x = res["q1"] - res["q2"]
    late = res.t > 15
    up = np.nonzero(late[1:] & (x[:-1] < 0) & (x[1:] >= 0))[0]
    crossings = res.t[up] - x[up] * (res.t[up + 1] - res.t[up]) / (x[up + 1] - x[up])
    period = float(np.mean(np.diff(crossings)))
    assert len(crossings) >= 10
    assert period == pytest.approx(2 * math.pi / omega, rel=0.02)
    assert np.max(np.abs(x[late])) > 0.01  # it grows: unstable


# ---------------------------------------------------------------- (g) bad input
def write(tmp_path, text):
    path = tmp_path / "h.csv"
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("history", "words"),
    [
        ("t,q1\n-1,0\n0,0\n", "missing q2"),
        ("t,q1,q2,q3\n-1,0,1,0\n0,0,1,0\n", "unknown q3"),
        ("t,q1,q2\n0,0,1\n-1,0,1\n", "strictly increasing"),
        ("t,q1,q2\n-0.5,0,1\n0,0,1\n", "shorter than the longest lag"),
        ("t,q1,q2\n-1,0,1\n-0.5,0,1\n", "end at t = 0"),
        ("t,q1,q2\n-1,x,1\n0,0,1\n", "number"),
        ("t,q1,q2\n-1,-1,1\n0,0,1\n", ">= 0"),
    ],
)
def test_bad_history_tables(history, words, tmp_path):
    m = example("information_delay", mu=1, lam=1, theta=2, D=1)
    with pytest.raises(SymdelayInputError, match=words):
        fluid(m, T=1, dt=0.5, history=write(tmp_path, history))


def test_refusals(tmp_path):
    info = example("information_delay", mu=1, lam=1, theta=2, D=1)
    with pytest.raises(SymdelayInputError, match="for action delays"):
        fluid(info, T=1, history="empty")
    with pytest.raises(SymdelayInputError, match="has none"):
        fluid(build_model("erlang", L=1, mu=1, lam=1, theta=1, D=1), T=1, history="empty")
    with pytest.raises(SymdelayInputError, match="difference operator"):
        fluid(example("announcement", mu=1, lam=1, theta=2, D=1, p=1), T=1)
    with pytest.raises(SymdelayInputError, match="explicit Runge-Kutta"):
        fluid(example("announcement", mu=1, lam=1, theta=2, D=1, p="1/10"), T=1, solver="BDF")
    frac = variant(
        tmp_path, "constant_action_delay", GAMMA_LINE,
        'tau = { kind = "gamma", shape = "3/2", mean = "D" }', mu=1, lam=1, theta=2, D=1,
    )  # fmt: skip
    with pytest.raises(SymdelayInputError, match="non-integer shape"):
        fluid(frac, T=1)
    with pytest.raises(SymdelayInputError, match="every parameter"):
        fluid(example("information_delay", mu=1, lam=1, theta=2), T=1)


def test_empty_pipeline_delivers_nothing_before_the_lag():
    m = example("constant_action_delay", mu=1, lam=1, theta=2, D=1)
    res = fluid(m, T=3, dt=0.25, initial=[0, 1], history="empty")
    early = res.t <= 1
    # nothing arrives before D: pure service, q2 = e^{-t}
    assert np.max(np.abs(res["q2"][early] - np.exp(-res.t[early]))) < 1e-10
    assert np.all(res["q1"][early] == 0)
    # what is routed meanwhile is in transit: 2 lam t in all at t <= D
    total = res["in_transit[arrival to 1]"] + res["in_transit[arrival to 2]"]
    assert np.max(np.abs(total[early] - 2 * res.t[early])) < 1e-10


# ---------------------------------------------------------------- (h) more lag kinds
FILTER = """
name = "logit on exponentially filtered lengths, by hand"
[parameters]
mu = "positive"
lam = "positive"
theta = "positive"
D = "positive"
[state]
names = ["q1", "q2", "y1", "y2"]
[[transitions]]
name = "arrival to 1"
change = { q1 = 1 }
rate = "2*lam*exp(-theta*y1)/(exp(-theta*y1) + exp(-theta*y2))"
[[transitions]]
name = "arrival to 2"
change = { q2 = 1 }
rate = "2*lam*exp(-theta*y2)/(exp(-theta*y1) + exp(-theta*y2))"
[[transitions]]
name = "service 1"
change = { q1 = -1 }
rate = "mu*q1"
[[transitions]]
name = "service 2"
change = { q2 = -1 }
rate = "mu*q2"
[[transitions]]
name = "filter 1 up"
change = { y1 = 1 }
rate = "q1/D"
[[transitions]]
name = "filter 1 down"
change = { y1 = -1 }
rate = "y1/D"
[[transitions]]
name = "filter 2 up"
change = { y2 = 1 }
rate = "q2/D"
[[transitions]]
name = "filter 2 down"
change = { y2 = -1 }
rate = "y2/D"
"""


def test_exponential_lag_is_a_filter_written_by_hand(tmp_path):
    m = build_model("dde", mu=1, lam=1, theta=3, D=2, lag="exponential")
    res = fluid(m, T=10, dt=0.25, initial=[0.2, 1.4], rtol=1e-12, atol=1e-14)
    path = tmp_path / "filter.toml"
    path.write_text(FILTER)
    hand = load_toml(path, mu=1, lam=1, theta=3, D=2)  # a plain table: the ODE fluid
    ref = fluid(hand, T=10, dt=0.25, initial=[0.2, 1.4, 0.2, 1.4], rtol=1e-12, atol=1e-14)
    assert np.max(np.abs(res.values[0] - ref.values[0][:, :2])) < 1e-10


@pytest.mark.parametrize(
    "lag",
    [
        'tau = { kind = "constant", value = "D" }',
        'tau = { kind = "uniform", low = "D/2", high = "3*D/2" }',
        'tau = { kind = "phase_type", alpha = ["1/2", "1/4"], S = [["-2", "1"], ["0", "-3"]] }',
    ],
)
def test_action_delay_conserves_the_mass_in_transit(lag, tmp_path):
    """d/dt (q1 + q2 + in transit) = 2 lam - mu (q1 + q2) on any path (decided jobs are
    either in transit or in a queue); at the equilibrium the mass in transit is Little's."""
    m = variant(tmp_path, "constant_action_delay", GAMMA_LINE, lag, mu=1, lam=1, theta=2, D=1)
    res = fluid(m, T=4, dt=0.5, initial=[0.1, 1.7], rtol=1e-12, atol=1e-14)
    nodes, weights = np.polynomial.legendre.leggauss(16)
    for a in np.arange(0.0, 4.0, 0.25):
        b = a + 0.25
        u = 0.5 * (b - a) * nodes + 0.5 * (a + b)
        q = res.at(u)
        rhs = 2 - (q[:, 0] + q[:, 1])
        total = res.at(np.array([a, b])).sum(axis=1)
        assert abs(total[1] - total[0] - 0.5 * (b - a) * weights @ rhs) < 1e-9
    eq = fluid(m, T=2, dt=1, initial=[1, 1])
    little = [float(sp.sympify(v)) for v in m.in_transit().values()]
    assert np.max(np.abs(eq.values[0][:, 2:] - little)) < 1e-12


def test_a_mixture_of_one_lag_is_that_lag_and_a_table_history_held_is_held():
    one = example("two_lag_mixture", mu=1, lam=1, theta=3, D1=1, D2="1/2", w=1)
    res = fluid(one, T=6, dt=0.5, initial=[0, 1])
    ref = fluid(example("information_delay", mu=1, lam=1, theta=3, D=1), T=6, dt=0.5,
                initial=[0, 1])  # fmt: skip
    assert np.max(np.abs(res.values - ref.values)) < 1e-9
    # a gamma (chain) lag from a table that holds the state is the held history
    m = build_model("dde", mu=1, lam=1, theta=3, D=1, lag="gamma", lag_shape=2)
    held = fluid(m, T=4, dt=0.5, initial=[0, 1])
    table = fluid(m, T=4, dt=0.5, history={"t": [-3, -1, 0], "q1": [0, 0, 0], "q2": [1, 1, 1]})
    assert np.max(np.abs(held.values - table.values)) < 1e-9


def test_action_delay_over_a_moving_average_from_a_held_table(tmp_path):
    """An action-delayed rate that reads a moving average: the history table (holding the
    state) is integrated piece by piece; it gives the held history's path."""
    text = (EXAMPLES / "constant_action_delay.toml").read_text()
    text = text.replace("[lags]\n", '[lags]\navg = { kind = "uniform", low = "0", high = "D/2" }\n')
    for i in "12":
        text = text.replace(f"exp(-theta*q{i})", f"exp(-theta*delayed(q{i}, avg))")
    path = tmp_path / "action_on_average.toml"
    path.write_text(text)
    m = load_toml(path, mu=1, lam=1, theta=2, D=1)
    held = fluid(m, T=4, dt=0.5, initial=[0.3, 1])
    table = {"t": [-3, -0.7, 0], "q1": [0.3] * 3, "q2": [1] * 3}
    assert np.max(np.abs(held.values - fluid(m, T=4, dt=0.5, history=table).values)) < 1e-9


# ---------------------------------------------------------------- the command line
def test_cli_fluid_of_a_delay_model(run_cli, tmp_path):
    import json

    base = ["fluid", "--model-file", str(EXAMPLES / "constant_action_delay.toml"), "--set",
            "mu=1", "--set", "lam=1", "--set", "theta=2", "--set", "D=1", "--T", "2",
            "--dt", "0.5", "--initial", "0,1"]  # fmt: skip
    status, out, err = run_cli(*base, "--history", "empty", "--json")
    assert status == 0, err
    rec = json.loads(out)
    api = fluid(example("constant_action_delay", mu=1, lam=1, theta=2, D=1), T=2, dt=0.5,
                initial=[0, 1], history="empty")  # fmt: skip
    assert rec["in_transit[arrival to 1]"] == api["in_transit[arrival to 1]"].tolist()
    assert rec["parameters"]["history"] == "empty"
    assert rec["info"]["solver"]["scheme"] == "method of steps"
    # a history table, and its refusal in one line
    path = tmp_path / "h.csv"
    path.write_text("t,q1,q2\n-1,0,1\n0,0,1\n")
    status, out, err = run_cli(*base, "--history", str(path), "--json")
    assert status == 0, err
    held = fluid(example("constant_action_delay", mu=1, lam=1, theta=2, D=1), T=2, dt=0.5,
                 initial=[0, 1])  # fmt: skip
    assert np.max(np.abs(np.array(json.loads(out)["q1"]) - held["q1"])) < 1e-9
    path.write_text("t,q1,q2\n-0.5,0,1\n0,0,1\n")
    status, out, err = run_cli(*base, "--history", str(path))
    assert status == 2 and out == "" and err.count("\n") == 1 and "longest lag" in err
