"""The two-queue logit constant-lag model of the dde family: its time paths
(symdelay/models/dde/steps.py) against independent paths.

(a) linear regime: the decay rate and frequency of a small solution are the rightmost root
    of r + mu + lam theta e^{-rD} (Lambert W, the roots entry); (b) the method-of-steps solution satisfies
    the two-queue logit DDE (integral residual with its dense output) and matches a
    fine-step RK4 written here; JiTCDDE agrees when installed; (c) the Erlang(L)
    action-delay fluid trajectories approach the DDE as L grows, and their limit cycles
    approach the DDE's; (d) bad input is a one-line SymdelayInputError.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.roots import roots
from symdelay.core.errors import SymdelayInputError
from symdelay.core.symbols import D, lam, mu, r, theta
from symdelay.models import build_model, builtin_models
from symdelay.models.dde import compare_with_action_delay, family
from symdelay.models.dde import steps as dde
from symdelay.models.dde.build import FoundingLimitModel
from symdelay.models.erlang import charpoly


def model(**options):
    """The family's two-queue logit constant-lag model (the old class's options)."""
    return build_model("dde", **options)


def rightmost_root(m, dps=15):
    """The rightmost root of the difference mode r + mu + lam theta e^{-rD} (the roots
    entry: Lambert W, certified)."""
    found = [z for z in roots(m, dps=dps).roots if z.mode == "difference"]
    return max(found, key=lambda z: z.value.real).value


# ---------------------------------------------------------------- helpers (test-only paths)
def logit_rhs(q_now, q_del, mu_, lam_, th_):
    """The two-queue right-hand side written from the model's definition (logit, not tanh)."""
    e = np.exp(-th_ * np.asarray(q_del, dtype=float))
    p = e / e.sum(axis=0)
    return 2 * lam_ * p - mu_ * np.asarray(q_now, dtype=float)


def rk4_dde(mu_, lam_, th_, D_, T, history, N):
    """Classical RK4 with step h = D/N; delayed values from the exact history for s <= 0,
    else cubic Hermite interpolation of the stored steps (values and derivatives)."""
    h = D_ / N
    n = round(T / h)
    ts = np.arange(n + 1) * h
    Q = np.empty((n + 1, 2))
    F = np.empty((n + 1, 2))
    Q[0] = history(0.0)

    def delayed(s):
        if s <= 1e-13:
            return np.asarray(history(min(s, 0.0)), dtype=float)
        k = min(int(s // h), n - 1)
        u = (s - ts[k]) / h
        h00, h10 = 2 * u**3 - 3 * u**2 + 1, u**3 - 2 * u**2 + u
        h01, h11 = -2 * u**3 + 3 * u**2, u**3 - u**2
        return h00 * Q[k] + h10 * h * F[k] + h01 * Q[k + 1] + h11 * h * F[k + 1]

    def f(t, q):
        return logit_rhs(q, delayed(t - D_), mu_, lam_, th_)

    for k in range(n):
        t, q = ts[k], Q[k]
        k1 = f(t, q)
        F[k] = k1  # the derivative at t_k (right limit: steps start at breakpoints)
        k2 = f(t + h / 2, q + h / 2 * k1)
        k3 = f(t + h / 2, q + h / 2 * k2)
        k4 = f(t + h, q + h * k3)
        Q[k + 1] = q + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        F[k + 1] = f(ts[k + 1], Q[k + 1])
    return ts, Q


def peaks(t, x):
    """Times and values of the local maxima of a finely sampled x, refined by a parabola."""
    i = np.nonzero((x[1:-1] > x[:-2]) & (x[1:-1] >= x[2:]))[0] + 1
    a, b, c = x[i - 1], x[i], x[i + 1]
    off = 0.5 * (a - c) / (a - 2 * b + c)
    return t[i] + off * (t[1] - t[0]), b - 0.25 * (a - c) * off


def require_jitcdde():
    """jitcdde is required under CI (fail), optional on a developer machine (skip)."""
    if importlib.util.find_spec("jitcdde") is not None:
        return
    if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
        pytest.fail("jitcdde is missing under CI: install the optional extra (pip install jitcdde)")
    pytest.skip("jitcdde not installed (pip install jitcdde)")


# ---------------------------------------------------------------- the model
def test_registry_fit():
    assert set(family.INFO) == {"name", "parameters", "description"}
    assert family.INFO["name"] == "dde"
    assert {"N", "mu", "lam", "theta", "D", "choice", "lag"} <= set(family.INFO["parameters"])
    assert builtin_models()["dde"] is family
    m = build_model("dde", mu=1, lam=2, theta=3, D="1/2")
    assert isinstance(m, FoundingLimitModel)
    assert [m.values[s] for s in (mu, lam, theta, D)] == [1, 2, 3, sp.Rational(1, 2)]


def test_characteristic_function_is_the_infinite_L_limit():
    m = model()  # all symbolic
    sum_f, diff_f = (f.factor for f in m.characteristic_factors)
    # charpoly's ansatz e^{rt} in the linear DDE typed there, which it checks equal to
    # SymPy's limit L -> oo of the Erlang equation (charpoly.infinite_L_limit)
    assert sp.simplify(diff_f - charpoly.delayed_information_equation().result) == 0
    assert sp.expand(sum_f - (r + mu)) == 0
    f = model(mu=1, lam=1, theta=2, D=1).characteristic_factors[1].factor
    assert sp.expand(f - (r + 1 + 2 * sp.exp(-r))) == 0


def test_equilibrium_and_modes():
    m = model()
    eq = m.equilibrium
    assert eq.exact and sp.simplify(eq.point[sp.Symbol("q1")] - lam / mu) == 0
    assert eq.point[sp.Symbol("q2")] == eq.point[sp.Symbol("q1")]
    x, xd, row = dde.table_limit(m).mode("difference")
    assert sp.expand(row - (-mu * x - 2 * lam * sp.tanh(theta * xd / 2))) == 0
    # the drift vanishes at q* for numbers too
    m2 = model(mu=2, lam=3, theta=5, D=1)
    assert m2.equilibrium.point[sp.Symbol("q1")] == sp.Rational(3, 2)


def test_rightmost_root_solves_the_equation():
    for th in (1, 5, "1/10"):
        m = model(mu=1, lam=1, theta=th, D=1)
        with mpmath.workdps(40):
            z = rightmost_root(m, dps=40)
            k = mpmath.mpf(1) * sp.Rational(th)
            assert abs(z + 1 + k * mpmath.exp(-z)) < mpmath.mpf(10) ** -35


# ---------------------------------------------------------------- (a) linear regime
@pytest.mark.parametrize(
    ("th", "window"),
    [(1, (10.0, 30.0)), ("1/10", (10.0, 20.0))],  # complex (oscillating) / real rightmost root
)
def test_decay_rate_is_the_rightmost_root(th, window):
    m = model(mu=1, lam=1, theta=th, D=1)
    r0 = complex(rightmost_root(m))
    eps = 1e-4  # small: tanh(theta x/2) = theta x/2 (1 + O(1e-9))
    res = m.integrate(window[1], history=(1 + eps / 2, 1 - eps / 2), dt=0.5, atol=1e-28)
    t = np.linspace(*window, 20001)
    x = res.at(t)[:, 2]
    if r0.imag:
        tp, xp = peaks(t, x)
        assert len(tp) >= 5
        rate = np.polyfit(tp, np.log(xp), 1)[0]
        omega = 2 * np.pi / np.mean(np.diff(tp))
        assert omega == pytest.approx(r0.imag, rel=1e-6)
    else:
        assert np.all(x > 0)
        rate = np.polyfit(t, np.log(x), 1)[0]
    assert rate == pytest.approx(r0.real, rel=1e-6)


# ---------------------------------------------------------------- (b) the DDE itself
def _q(res, times):
    """``(q1, q2)`` of the dense solution at ``times`` (shape ``(2, n)``)."""
    return res.at(times)[:, :2].T


def history_function(s):
    return (0.5 + 0.3 * math.cos(2 * s), 1.0 - 0.2 * s)


@pytest.mark.parametrize("history", [(0.0, 1.0), history_function])
def test_steps_solution_satisfies_the_dde(history):
    mu_, lam_, th_, D_ = 1.0, 1.0, 4.0, 1.0
    res = model(mu=1, lam=1, theta=4, D=1).integrate(8, history=history, dt=0.25)
    assert res.info["breakpoints"] == [float(k) for k in range(9)]
    nodes, weights = np.polynomial.legendre.leggauss(20)
    worst = 0.0
    for a in np.arange(0.0, 8.0, 0.25):  # sub-intervals end on the breakpoints kD
        b = a + 0.25
        u = 0.5 * (b - a) * nodes + 0.5 * (a + b)
        integrand = logit_rhs(_q(res, u), _q(res, u - D_), mu_, lam_, th_)
        integral = 0.5 * (b - a) * integrand @ weights
        jump = _q(res, b)[:, 0] - _q(res, a)[:, 0]
        worst = max(worst, float(np.max(np.abs(jump - integral))))
    assert worst < 1e-11
    # the difference equation's own x agrees with q1 - q2
    assert np.max(np.abs(res["x"] - (res["q1"] - res["q2"]))) < 1e-13
    # the history is reproduced for t < 0
    s = np.linspace(-1, 0, 7)
    h = np.array([(history(v) if callable(history) else history) for v in s]).T
    assert np.max(np.abs(_q(res, s) - h)) < 1e-14


@pytest.mark.parametrize("history", [(0.0, 1.0), history_function])
def test_steps_matches_fine_rk4(history):
    T = 6.0
    res = model(mu=1, lam=1, theta=4, D=1).integrate(T, history=history, dt=0.5)
    hist = history if callable(history) else (lambda s: history)
    ts, Q = rk4_dde(1.0, 1.0, 4.0, 1.0, T, hist, N=200)
    err = np.max(np.abs(_q(res, ts) - Q.T))
    assert err < 1e-9
    # and RK4 converges to it at fourth order: doubling h multiplies the error by ~16
    ts2, Q2 = rk4_dde(1.0, 1.0, 4.0, 1.0, T, hist, N=100)
    assert np.max(np.abs(_q(res, ts2) - Q2.T)) > 12 * err


def test_fast_dense_evaluation_is_odesolution():
    from scipy.integrate import solve_ivp

    sol = solve_ivp(
        lambda t, y: [math.cos(3 * t) * y[0]], (0, 2), [1.0], "DOP853", dense_output=True
    ).sol
    fast = dde._scalar_evaluator(sol)
    ts = np.linspace(0, 2, 1001)
    assert fast.__name__ == "fast"
    assert max(abs(fast(v) - sol(v)[0]) for v in ts) <= 1e-15


def test_other_solve_ivp_methods_agree():
    m = model(mu=1, lam=1, theta=4, D=1)
    a = m.integrate(10, dt=0.1)
    for method in ("RK45", "Radau"):
        b = m.integrate(10, dt=0.1, method=method, rtol=1e-10, atol=1e-12)
        assert np.max(np.abs(a["x"] - b["x"])) < 1e-7, method


def test_sum_mode_is_exact():
    res = model(mu=2, lam=3, theta=1, D="1/2").integrate(3, history=(0.5, 2.0), dt=0.1)
    s_exact = 3.0 + (2.5 - 3.0) * np.exp(-2.0 * res.t)
    assert np.max(np.abs(res["q1"] + res["q2"] - s_exact)) < 1e-14


def test_jitcdde_agrees_with_steps():
    require_jitcdde()
    m = model(mu=1, lam=1, theta=4, D=1)  # past the Hopf point: nonlinear oscillation
    a = m.integrate(20, dt=0.1)
    b = m.integrate(20, dt=0.1, solver="jitcdde", rtol=1e-10, atol=1e-12)
    assert b.info["solver"]["solver"] == "jitcdde"
    assert np.max(np.abs(a["q1"] - b["q1"])) < 1e-8 and np.max(np.abs(a["q2"] - b["q2"])) < 1e-8


# ---------------------------------------------------------------- (c) action delay, L -> oo
def test_erlang_trajectories_approach_the_dde():
    Ls = [1, 2, 4, 8, 16]
    c = compare_with_action_delay(Ls, 1, 1, 2, 1, T=10, dt=0.01)
    d = c.sup_distance
    assert all(d[j + 1] < d[j] for j in range(len(d) - 1)), d
    assert d[-1] < 0.65 * d[-2]  # O(1/L): the ratio tends to 1/2
    assert c.theta_c[0] == math.inf and c.theta_c[1] == pytest.approx(9)  # L=2: 2(g+mu)^2/g
    assert c.theta_c_dde < min(c.theta_c)
    rec = json.loads(json.dumps(c.to_json(), allow_nan=False))
    assert [row["L"] for row in rec["rows"]] == Ls and rec["rows"][0]["theta_c"] == "inf"
    # the paper's empty pipeline is a different start: the distance does not vanish
    e = compare_with_action_delay([16], 1, 1, 2, 1, T=10, dt=0.01, pipeline="empty")
    assert e.sup_distance[0] > 4 * d[-1]


def test_erlang_path_matches_the_generic_model_layer():
    """The comparison's Erlang trajectory (stochastic.fluid) against scipy on the drift of
    build_model("erlang"), with the matched pipeline written out here."""
    from scipy.integrate import solve_ivp

    L, D_, lam_ = 4, 1.0, 1.0
    c = compare_with_action_delay([L], 1, 1, 2, 1, T=5, dt=0.05)
    mdl = build_model("erlang", L=L, mu=1, lam=1, theta=2, D=1)
    states = [s.name for s in mdl.states]
    f = sp.lambdify(mdl.states, list(mdl.drift), modules="numpy")
    p1 = 1 / (1 + math.exp(-2.0))  # logit of the history (0, 1) with theta = 2
    y0 = []
    for s in states:
        if s == "q1":
            y0.append(0.0)
        elif s == "q2":
            y0.append(1.0)
        else:  # z{i}_{l}: the stationary Erlang pipeline of rate 2 lam p_i
            y0.append(2 * lam_ * (p1 if s.startswith("z1") else 1 - p1) * D_ / L)
    sol = solve_ivp(
        lambda t, y: f(*y), (0, 5), y0, t_eval=c.t, method="DOP853", rtol=1e-11, atol=1e-13
    )
    x = sol.y[states.index("q1")] - sol.y[states.index("q2")]
    assert np.max(np.abs(x - c.x_L[L])) < 1e-8


def test_empty_pipeline_tends_to_the_dde_with_nothing_routed_before_zero():
    eps = 1e-3  # the history x = 0 on [-1, -eps], then linear to x(0) = -1

    def nothing_routed(s):
        w = max(0.0, (s + eps) / eps)
        return (0.5 * (1 - w), 0.5 + 0.5 * w)

    ref = model(mu=1, lam=1, theta=2, D=1).integrate(10, history=nothing_routed, dt=0.01)
    e = compare_with_action_delay([4, 8, 16], 1, 1, 2, 1, T=10, dt=0.01, pipeline="empty")
    d = [float(np.max(np.abs(e.x_L[L] - ref["x"]))) for L in (4, 8, 16)]
    assert d[0] > d[1] > d[2] and d[2] < e.sup_distance[2] / 5


@pytest.mark.slow
def test_limit_cycle_amplitudes_converge():
    # theta = 4: past the DDE's Hopf point (2.26) and L = 8, 16's (2.97, 2.58)
    c = compare_with_action_delay([8, 16], 1, 1, 4, 1, T=100, dt=0.01)
    a8, a16 = c.amplitude
    a = c.amplitude_dde
    assert 0.3 < a8 < a16 < a
    assert a - a16 < 0.6 * (a - a8)
    # the DDE's cycle is established: the same amplitude one window earlier
    earlier = dde._amplitude(c.t[c.t <= 75], c.x_dde[c.t <= 75], 1 / 3)
    assert earlier == pytest.approx(a, rel=1e-4)


# ---------------------------------------------------------------- (d) bad input
@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: model(D=0), "D must be positive"),
        (lambda: model(D=-1), "D must be positive"),
        (lambda: model(D=float("nan")), "finite"),
        (lambda: model(mu=float("inf")), "finite"),
        (lambda: model(theta=-1), "theta must be >= 0"),
        (lambda: model(mu=1, lam=1, theta=1, D=1).integrate(0), "T must be positive"),
        (lambda: model(mu=1, lam=1, theta=1, D=1).integrate(-2), "T must be positive"),
        (lambda: model(mu=1, lam=1, theta=1, D=1).integrate(float("nan")), "finite"),
        (lambda: model(mu=1, lam=1, theta=1, D=1).integrate(float("inf")), "finite"),
        (lambda: model(mu=1, lam=1, theta=1, D=1).integrate(1, dt=0), "dt"),
        (lambda: model(lam=1, theta=1, D=1).integrate(1), "mu is symbolic"),
        (lambda: model(mu=1, lam=1, theta=1, D=1).integrate(1, history=(1,)), "two numbers"),
        (lambda: model(mu=1, lam=1, theta=1, D=1).integrate(1, history=(-1, 1)), ">= 0"),
        (lambda: model(mu=1, lam=1, theta=1, D=1).integrate(1, history="ab"), "history"),
        (
            lambda: model(mu=1, lam=1, theta=1, D=1).integrate(1, history=lambda s: (s, 1)),
            "history(-1)",
        ),
        (lambda: model(mu=1, lam=1, theta=1, D=1).integrate(1, solver="euler"), "solver"),
        (lambda: model(mu=1, lam=1, theta=1, D=1).integrate(1, method="x"), "method"),
        (lambda: model(mu=1, lam=1, theta=1, D=1).integrate(1, rtol=-1), "rtol"),
        (lambda: roots(model(mu=1, lam=1, theta=1, D=1), dps=2), "dps"),
        (lambda: dde.integrate(model(N=3, mu=1, lam=1, theta=1, D=1), 1), "two equal queues"),
        (lambda: dde.integrate(model(mu=1, lam=1, theta=1, D=1, lag="uniform"), 1), "constant"),
        (lambda: model(mu=1, lam=1, theta=1, D="1e-6").integrate(1), "shorten T"),
        (lambda: model(mu=1, lam=1, theta=1, D=1).integrate(1, dt=0.5).at(2.0), "times"),
        (lambda: compare_with_action_delay([0], 1, 1, 1, 1, 1), "L must be"),
        (lambda: compare_with_action_delay([], 1, 1, 1, 1, 1), "empty"),
        (lambda: compare_with_action_delay([1], 1, 1, 1, 0, 1), "D must be positive"),
        (lambda: compare_with_action_delay([1], 1, 1, 1, 1, 0), "T must be positive"),
        (lambda: compare_with_action_delay([1], 1, 1, 1, 1, 1, pipeline="full"), "pipeline"),
        (lambda: compare_with_action_delay([1], 1, 1, 1, 1, 1, window=2), "window"),
        (lambda: build_model("dde", D=0), "D must be positive"),
    ],
)
def test_bad_input(call, words):
    with pytest.raises(SymdelayInputError) as err:
        call()
    msg = str(err.value)
    assert isinstance(err.value, ValueError) and "\n" not in msg and words in msg, msg
