"""Fluctuations of delay models: the linear-noise variance (a certified integral of the
spectrum G B G^*) and the spectrum, through the one variance and spectrum entries — each
against an independent statement: Kuechler & Mensch's closed form of the delayed
Ornstein-Uhlenbeck process, the founding table's exact Lyapunov answer for an Erlang chain
written as a phase-type lag, the Lyapunov answer of the table without its lag as the lag
shrinks, and Pender, Rand & Wesson's critical delay for the Hopf frequency."""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from symdelay.analysis.spectrum import spectrum
from symdelay.analysis.stochastic import variance
from symdelay.core.errors import SymdelayInputError
from symdelay.model import load_toml
from symdelay.model.core import Model
from symdelay.models import build_model

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "models"
LOGIT = "2*lam*exp(-theta*{a})/(exp(-theta*{a}) + exp(-theta*{b}))"
PARAMS = {"mu": "positive", "lam": "positive", "theta": "positive", "D": "positive"}


def two_queues(lags=None, *, seen=("q1", "q2"), action=None, values=None):
    """Two infinite-server queues with logit routing on ``seen``; with ``action`` the
    routed job lands after that lag."""
    a, b = seen
    arrivals = [
        ("arrival to 1", {"q1": 1}, LOGIT.format(a=a, b=b)),
        ("arrival to 2", {"q2": 1}, LOGIT.format(a=b, b=a)),
    ]
    if action:
        arrivals = [(*t, action) for t in arrivals]
    rows = [*arrivals, ("service 1", {"q1": -1}, "mu*q1"), ("service 2", {"q2": -1}, "mu*q2")]
    return Model(
        "two queues",
        ["q1", "q2"],
        dict(PARAMS),
        rows,
        symmetry=[["q1", "q2"]],
        lags=lags or {},
        values=values,
    )


def delayed_ou(b, tau):
    """dX = -b X(t - tau) dt + sqrt(2) dW as a table: up at rate exp(b (1 - x(t - tau))),
    down at rate 1 (equilibrium x* = 1, diffusion 1 + 1 = 2)."""
    return Model(
        "delayed OU",
        ["x"],
        {"b": "positive", "D": "positive"},
        [("up", {"x": 1}, "exp(b*(1 - delayed(x, tau)))"), ("down", {"x": -1}, "1")],
        lags={"tau": {"kind": "constant", "value": "D"}},
        values={"b": b, "D": tau},
    )


def test_delayed_ou_is_kuechler_mensch():
    """Var = sigma^2 (1 + sin(b tau)) / (2 b cos(b tau)) for 0 < b tau < pi/2 (Kuechler &
    Mensch 1992), sigma^2 = 2: the certified interval holds it."""
    b, tau = sp.Rational(1), sp.Rational(6, 5)
    v = variance(delayed_ou(b, tau), dps=7, weights=[1])
    exact = mpmath.mpf(2) * (1 + mpmath.sin(1.2)) / (2 * mpmath.cos(1.2))
    assert v.error_bound is not None and float(v.error_bound) <= 1e-7 * float(exact)
    assert abs(mpmath.mpf(str(v.value)) - exact) <= float(v.error_bound) + 10.0 ** -(v.dps + 1)
    assert v.decimal() == mpmath.nstr(exact, 7, strip_zeros=False)


@pytest.mark.parametrize("L", [3])
def test_erlang_chain_equals_its_phase_type_lag(L):
    """The founding table (the Erlang(L) chain of phases written out, each phase step with
    its own noise; exact Lyapunov solve) against the same delay as a phase-type action lag
    (the delay path: a rational kernel, the decision noise entering unfiltered) to 18
    digits: the noise of an action delay is the whole jump's, not |K|^2 of it."""
    vals = {"mu": 1, "lam": sp.Rational(3, 2), "theta": 1, "D": sp.Rational(1, 3)}
    table = variance(build_model("erlang", L=L, **vals))
    g = f"{L}/D"
    S = [[(f"-{g}" if i == j else g if j == i + 1 else "0") for j in range(L)] for i in range(L)]
    lag = {"ph": {"kind": "phase_type", "alpha": ["1"] + ["0"] * (L - 1), "S": S}}
    delay = variance(two_queues(lag, action="ph", values=vals), dps=18)
    assert table.exact and not delay.exact
    assert abs(delay.value - table.value) <= delay.error_bound + sp.Rational(1, 10**19)
    with mpmath.workdps(40):
        assert delay.decimal() == mpmath.nstr(
            mpmath.mpf(table.value.p) / table.value.q, 18, strip_zeros=False
        )
    # the spectrum of the two paths at a few frequencies (a second quantity)
    w = [0.0, 0.7, 2.5]
    s_table = spectrum(build_model("erlang", L=L, **vals), omegas=w, points=3).S
    s_delay = spectrum(two_queues(lag, action="ph", values=vals), omegas=w, points=3).S
    assert max(abs(x - y) / abs(x) for x, y in zip(s_table, s_delay)) < 1e-12


@pytest.mark.parametrize("kind", ["information", "action"])
def test_a_vanishing_lag_gives_the_lyapunov_answer_without_it(kind):
    """A constant lag of 10^-6 (information or action): within O(tau) of the exact Lyapunov
    variance of the same table without the lag."""
    vals = {"mu": 1, "lam": 1, "theta": 1, "D": sp.Rational(1, 10**6)}
    lyapunov = variance(two_queues(values=vals))
    lag = {"tau": {"kind": "constant", "value": "D"}}
    if kind == "information":
        m = two_queues(lag, seen=("delayed(q1, tau)", "delayed(q2, tau)"), values=vals)
    else:
        m = two_queues(lag, action="tau", values=vals)
    v = variance(m, dps=10)
    assert lyapunov.exact and lyapunov.value == 1  # 4 lam / (2 (mu + lam theta))
    assert abs(float(v.value) - float(lyapunov.value)) < 1e-5
    assert abs(float(v.value) - float(lyapunov.value)) > 1e-8  # the lag is seen


def _critical():
    """Pender, Rand & Wesson: at D = 1, mu = lam = 1 the critical theta solves
    arccos(-1/theta) = sqrt(theta^2 - 1); the crossing frequency is sqrt(theta^2 - 1)."""
    theta = mpmath.findroot(lambda t: mpmath.acos(-1 / t) - mpmath.sqrt(t * t - 1), 2.2)
    return float(theta), float(mpmath.sqrt(theta**2 - 1))


def test_spectrum_peak_approaches_the_crossing_frequency():
    theta_c, omega_c = _critical()
    m = load_toml(EXAMPLES / "information_delay.toml")
    peaks = []
    for frac in ("0.9", "0.999"):
        th = sp.Rational(frac) * sp.Float(theta_c, 30)
        s = spectrum(
            m.with_values(mu=1, lam=1, D=1, theta=sp.Rational(str(th.evalf(20)))), points=21
        )
        peaks.append((abs(s.peak_frequency - omega_c), s.quality_factor, s.variance))
    (far, q_far, v_far), (near, q_near, v_near) = peaks
    assert near < far and near < 2e-3
    assert q_near > 10 * q_far and v_near > 10 * v_far


def test_unstable_neutral_and_over_budget_are_refused_in_one_line():
    """An unstable equilibrium, a neutral model whose difference operator is not stable
    (lam theta p >= 1) and a digit count over the budget: one line each."""
    m = load_toml(EXAMPLES / "information_delay.toml").with_values(mu=1, lam=1, theta=3, D=1)
    for f in (variance, spectrum):
        with pytest.raises(SymdelayInputError, match="unstable") as exc:
            f(m)
        assert "\n" not in str(exc.value)
    ann = load_toml(EXAMPLES / "announcement.toml").with_values(
        mu=1, lam=1, theta=sp.Rational(3, 2), D=1, p=sp.Rational(2, 3)
    )  # lam theta p = 1: the difference operator's roots on the axis
    for f in (variance, spectrum):
        with pytest.raises(SymdelayInputError, match="difference operator") as exc:
            f(ann)
        assert "\n" not in str(exc.value)
    with pytest.raises(SymdelayInputError, match="--dps"):
        variance(delayed_ou(1, 1), dps=30, weights=[1])


def test_table_and_delay_records_have_the_same_keys(run_cli):
    vals = {"mu": 1, "lam": 1, "theta": 1, "D": 1}
    table = two_queues(values=vals)
    lag = {"tau": {"kind": "constant", "value": "D"}}
    delay = two_queues(lag, seen=("delayed(q1, tau)", "delayed(q2, tau)"), values=vals)
    dvar = variance(delay, dps=6)  # the digits the spectrum asks for: computed once
    assert dvar.sigma.shape == (1, 1) and dvar.coordinates == ("q1 - q2",)  # what --plot draws
    tv, dv = variance(table).to_json(), dvar.to_json()
    assert set(tv) == set(dv) and tv["error_bound"] is None and float(dv["error_bound"]) < 1e-6
    ts, ds = (spectrum(m, omegas=[0.5], points=1).to_json() for m in (table, delay))
    assert set(ts) == set(ds)
    # the command line: the same record, exit 0
    args = ["--model-file", str(EXAMPLES / "moving_average.toml")]
    args += ["--set", "mu=1", "--set", "lam=1", "--set", "theta=1.5", "--set", "Delta=2"]
    code, out, err = run_cli("variance", *args, "--dps", "5", "--json")
    assert code == 0, err
    rec = json.loads(out)
    assert rec["imbalance"] == "q1 - q2" and float(rec["error_bound"]) < 1e-5 * 1.7

    # its difference mode is the scalar y' = -mu y - lam theta (K * y): mpmath's quadrature
    def S(w):
        K = (1 - mpmath.exp(-2j * w)) / (2j * w) if w else 1
        return 4 / abs(1j * w + 1 + mpmath.mpf(3) / 2 * K) ** 2

    expected = mpmath.quad(S, [0, 1, 10, 100, mpmath.inf]) / mpmath.pi
    assert abs(float(rec["var_x_over_eta"]) - float(expected)) <= 1e-4  # one unit of digit 5
