"""Lags in a model: the [lags] table, delayed()/dot() in rates, lag = on transitions, and the
characteristic matrix Delta(r) they linearise to — each against an independent statement
(closed forms of the papers, the explicit phase chains of the same delay, SymPy's own
determinant of a hand-built matrix)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import sympy as sp

from symdelay.core.errors import SymdelayInputError
from symdelay.model import load_toml
from symdelay.model.core import DelayModelError, Model

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "models"
r, mu, lam, theta, D, p = sp.symbols("r mu lam theta D p")

LOGIT = "2*lam*exp(-theta*{a})/(exp(-theta*{a}) + exp(-theta*{b}))"


def two_queues(*, lag: dict, seen=("q1", "q2"), action: str | None = None, extra=None):
    """The two-queue logit model with the routing reading ``seen`` (a lag applied by the
    caller's text) or, with ``action``, its arrivals after that lag."""
    a, b = seen
    rows = [
        ("arrival to 1", {"q1": 1}, LOGIT.format(a=a, b=b)),
        ("arrival to 2", {"q2": 1}, LOGIT.format(a=b, b=a)),
        ("service 1", {"q1": -1}, "mu*q1"),
        ("service 2", {"q2": -1}, "mu*q2"),
    ]
    if action:
        rows = [(*t, action) if i < 2 else t for i, t in enumerate(rows)]
    params = {"mu": "positive", "lam": "positive", "theta": "positive", "D": "positive"}
    params.update(extra or {})
    return Model("two queues", ["q1", "q2"], params, rows, symmetry=[["q1", "q2"]], lags=lag)


def difference(model):
    (f,) = [f.factor for f in model.characteristic_factors if f.mode == "difference"]
    return f


# ---------------------------------------------------------------------- the linearisation
def test_constant_information_lag_is_the_founding_limit():
    """Pender, Rand & Wesson: r + mu + lam theta exp(-r D) (per-server lam), the founding
    model's L -> oo limit; the sum mode r + mu."""
    m = load_toml(EXAMPLES / "information_delay.toml")
    assert sp.simplify(difference(m) - (r + mu + lam * theta * sp.exp(-r * D))) == 0
    (s,) = [f.factor for f in m.characteristic_factors if f.mode == "sum"]
    assert sp.expand(s - (r + mu)) == 0
    # the characteristic matrix, its determinant taken directly
    M = m.characteristic_matrix
    K = sp.exp(-r * D)
    expected = sp.Matrix(
        [
            [r + mu + lam * theta * K / 2, -lam * theta * K / 2],
            [-lam * theta * K / 2, r + mu + lam * theta * K / 2],
        ]
    )
    assert (M - expected).applyfunc(sp.simplify) == sp.zeros(2, 2)
    assert sp.simplify(M.det() - (r + mu) * difference(m)) == 0


def test_constant_action_delay_has_the_same_linearisation():
    """The founding paper's headline: an action delay and an information delay of the same
    law share the linearisation; the action delay keeps lam D per queue in transit."""
    info = load_toml(EXAMPLES / "information_delay.toml")
    act = load_toml(EXAMPLES / "constant_action_delay.toml")
    assert sp.simplify(difference(info) - difference(act)) == 0
    assert {k: sp.sympify(v) for k, v in act.in_transit().items()} == {
        "arrival to 1": D * lam,
        "arrival to 2": D * lam,
    }
    assert info.in_transit() == {}


@pytest.mark.parametrize("L", [1, 2, 3, 5])
def test_erlang_lag_equals_the_explicit_chain(L):
    """A gamma lag of integer shape L as an action delay gives the founding polynomial
    (r + mu)(r + gamma)^L + lam theta gamma^L with gamma = L/D — the characteristic
    polynomial of the explicit chain of phases (the founding table), up to its sign."""
    from symdelay.models import build_model

    m = two_queues(lag={"tau": {"kind": "gamma", "shape": L, "mean": "D"}}, action="tau")
    ours = difference(m)
    gamma = sp.Symbol("gamma")
    founding = (r + mu) * (r + gamma) ** L + lam * theta * gamma**L
    founding = sp.expand(founding.xreplace({gamma: sp.Integer(L) / D}))
    assert sp.simplify(ours - founding) == 0
    # the founding table's own factor (the chain written out), at numbers
    values = dict(mu=1, lam=sp.Rational(3, 2), theta=2, D=sp.Rational(1, 3))
    table = build_model("erlang", L=L, **values)
    (tf,) = [f.factor for f in table.factors if f.mode.startswith("difference")]
    at = {mu: 1, lam: sp.Rational(3, 2), theta: 2, D: sp.Rational(1, 3)}
    assert (
        sp.expand(
            sp.Poly(tf, r).monic().as_expr() - sp.Poly(ours.xreplace(at), r).monic().as_expr()
        )
        == 0
    )
    # every factor is a polynomial: the polynomial analyses answer (stability conditions)
    assert all(sp.Poly(f.factor, r) for f in m.factors)


def test_phase_type_lag_equals_its_chain_written_out():
    """A Coxian phase-type lag (phase 1 at rate a, then to phase 2 with probability q or out)
    against the same delay written as transitions between chain states: same difference-mode
    polynomial."""
    a, b, q = sp.Rational(3), sp.Rational(1, 2), sp.Rational(2, 5)
    lag = {
        "ph": {
            "kind": "phase_type",
            "alpha": ["1", "0"],
            "S": [[str(-a), str(a * q)], ["0", str(-b)]],
        }
    }
    m = two_queues(lag=lag, action="ph")
    # the chain: y_i1 -> y_i2 (rate a q y_i1), y_i1 -> q_i (rate a (1-q) y_i1), y_i2 -> q_i
    rows = []
    for i, j in ((1, 2), (2, 1)):
        rows += [
            (f"route {i}", {f"y{i}1": 1}, LOGIT.format(a=f"q{i}", b=f"q{j}")),
            (f"1->2 ({i})", {f"y{i}1": -1, f"y{i}2": 1}, f"{a * q}*y{i}1"),
            (f"1->out ({i})", {f"y{i}1": -1, f"q{i}": 1}, f"{a * (1 - q)}*y{i}1"),
            (f"2->out ({i})", {f"y{i}2": -1, f"q{i}": 1}, f"{b}*y{i}2"),
            (f"service {i}", {f"q{i}": -1}, f"mu*q{i}"),
        ]
    chain = Model(
        "chain",
        ["q1", "q2", "y11", "y12", "y21", "y22"],
        {"mu": "positive", "lam": "positive", "theta": "positive"},
        rows,
        symmetry=[["q1", "q2"], ["y11", "y21"], ["y12", "y22"]],
    )
    (cf,) = [f.factor for f in chain.factors if f.mode == "difference"]
    ours = difference(m)
    assert sp.expand(sp.Poly(cf, r).monic().as_expr() - sp.Poly(ours, r).monic().as_expr()) == 0
    # the law's mean: (1/a) + q (1/b)
    assert sp.simplify(m.lags["ph"].mean() - (1 / a + q / b)) == 0


def test_mixture_of_exponentials_is_the_hyperexponential_example():
    """The shipped hyperexponential action delay (two branches written out) against a
    mixture lag of two exponentials: the same difference-mode polynomial."""
    ex = load_toml(EXAMPLES / "hyperexp_delay.toml")
    (ef,) = [f.factor for f in ex.factors if f.mode == "difference"]
    lag = {
        "a": {"kind": "exponential", "mean": "2"},  # g1 = 1/2
        "b": {"kind": "exponential", "mean": "1/2"},  # g2 = 2
        "h": {"kind": "mixture", "lags": ["a", "b"], "weights": ["3/10", "7/10"]},
    }
    m = two_queues(lag=lag, action="h")
    ours = difference(m)
    assert sp.expand(sp.Poly(ef, r).monic().as_expr() - sp.Poly(ours, r).monic().as_expr()) == 0


def test_kernels_laplace_transforms_and_means():
    """Each kind's transform against its defining integral (SymPy), its mean against
    -K'(0), and K(0) = 1."""
    from symdelay.model.lags import Lag

    s = sp.Symbol("s", positive=True)
    u = sp.Symbol("u", positive=True)
    sym = {"D": D, "Delta": sp.Symbol("Delta"), "m": sp.Symbol("m")}
    cases = {
        ("constant", (("value", "D"),)): None,
        ("uniform", (("low", "1"), ("high", "3"))): sp.integrate(sp.exp(-s * u) / 2, (u, 1, 3)),
        ("gamma", (("shape", "3"), ("mean", "2"))): sp.integrate(
            u**2 * sp.exp(-u * sp.Rational(3, 2)) * sp.Rational(3, 2) ** 3 / 2 * sp.exp(-s * u),
            (u, 0, sp.oo),
        ),
        ("exponential", (("mean", "5"),)): sp.integrate(
            sp.exp(-u / 5) / 5 * sp.exp(-s * u), (u, 0, sp.oo)
        ),
    }
    for (kind, args), integral in cases.items():
        lag = Lag.make("k", {"kind": kind, **dict(args)}, sym)
        K = lag.laplace(s)
        if integral is not None:
            assert sp.simplify(K - integral) == 0, kind
        assert sp.limit(K, s, 0) == 1, kind
        assert sp.simplify(-sp.limit(sp.diff(K, s), s, 0) - lag.mean()) == 0, kind


def test_announcement_with_velocity_is_neutral():
    """Novitzky et al.: routing on q(t - D) + p q'(t - D) gives r + mu + lam theta (1 + p r)
    exp(-r D); the term carries the delayed derivative."""
    m = load_toml(EXAMPLES / "announcement.toml")
    assert m.linearisation.neutral
    expected = r + mu + lam * theta * (1 + p * r) * sp.exp(-r * D)
    assert sp.simplify(difference(m) - expected) == 0


def test_moving_average_and_mixture_functions():
    m = load_toml(EXAMPLES / "moving_average.toml")
    Delta = sp.Symbol("Delta")
    expected = r + mu + lam * theta * (1 - sp.exp(-r * Delta)) / (r * Delta)
    assert sp.simplify(difference(m) - expected) == 0
    m = load_toml(EXAMPLES / "two_lag_mixture.toml")
    D1, D2, w = sp.symbols("D1 D2 w")
    expected = r + mu + lam * theta * (w * sp.exp(-r * D1) + (1 - w) * sp.exp(-r * D2))
    assert sp.simplify(difference(m) - expected) == 0


def test_rational_lag_stability_conditions_match_the_founding_ones():
    """An Erlang(2) action lag: Routh-Hurwitz on the chain's polynomial gives the founding
    boundary lam theta = k_c; at mu = lam = D = 1 theta_c = 9, and theta = 9 is marginal."""
    from symdelay.analysis.stability import stability
    from symdelay.models import build_model

    m = two_queues(lag={"tau": {"kind": "gamma", "shape": 2, "mean": "D"}}, action="tau")
    for th, verdict in ((8, "stable"), (9, "marginal"), (10, "unstable")):
        at = m.with_values(mu=1, lam=1, D=1, theta=th)
        assert stability(at).verdict == verdict
        founding = build_model("erlang", L=2, mu=1, lam=1, D=1, theta=th)
        assert stability(founding).verdict == verdict


# ---------------------------------------------------------------------- what is refused
@pytest.mark.parametrize(
    "lag, rate, needle",
    [
        (
            {"tau": {"kind": "constant", "value": "D"}},
            "mu*delayed(q1, sigma)",
            "not a declared lag",
        ),
        (
            {"tau": {"kind": "constant", "value": "D"}},
            "mu*delayed(delayed(q1, tau), tau)",
            "lag of a lag",
        ),
        ({"tau": {"kind": "constant", "value": "-D"}}, "mu*delayed(q1, tau)", "must be > 0"),
        ({"tau": {"kind": "constant", "value": "0"}}, "mu*delayed(q1, tau)", "must be > 0"),
        (
            {"tau": {"kind": "uniform", "low": "2", "high": "1"}},
            "mu*delayed(q1, tau)",
            "high must exceed low",
        ),
        (
            {"tau": {"kind": "gamma", "shape": "0", "mean": "1"}},
            "mu*delayed(q1, tau)",
            "shape must be > 0",
        ),
        ({"tau": {"kind": "exponential", "mean": "-1"}}, "mu*delayed(q1, tau)", "mean must be > 0"),
        (
            {
                "a": {"kind": "constant", "value": "1"},
                "b": {"kind": "constant", "value": "2"},
                "tau": {"kind": "mixture", "lags": ["a", "b"], "weights": ["1/2", "1/3"]},
            },
            "mu*delayed(q1, tau)",
            "sum to 1",
        ),
        (
            {
                "a": {"kind": "constant", "value": "1"},
                "b": {"kind": "mixture", "lags": ["a"], "weights": ["1"]},
                "tau": {"kind": "mixture", "lags": ["b"], "weights": ["1"]},
            },
            "mu*delayed(q1, tau)",
            "lag of a lag",
        ),
        ({"tau": {"kind": "constant", "value": "D"}}, "mu*q1 + delayed(mu, tau)", "holds no state"),
        ({"tau": {"kind": "constant", "value": "D"}}, "mu*q1*(1 + dot(q1))", "only inside delayed"),
        ({"tau": {"kind": "constant", "value": "D"}}, "mu*q1*tau", "used as a number"),
        ({"tau": {"kind": "erlang", "value": "D"}}, "mu*q1", "is not one of"),
        ({"tau": {"kind": "constant", "mean": "D"}}, "mu*q1", "unknown key 'mean'"),
        ({"tau": {"kind": "constant", "value": "x"}}, "mu*q1", "'x'"),
        ({"mu": {"kind": "constant", "value": "D"}}, "mu*q1", "name of a state or a parameter"),
        (
            {"tau": {"kind": "phase_type", "alpha": ["1", "0"], "S": [["-1", "1"], ["0", "0"]]}},
            "mu*delayed(q1, tau)",
            "invertible",
        ),
    ],
)
def test_bad_lags_are_refused_in_one_line(lag, rate, needle):
    with pytest.raises(SymdelayInputError) as exc:
        Model(
            "m",
            ["q1"],
            {"mu": "positive", "D": "positive"},
            [("in", {"q1": 1}, "1"), ("out", {"q1": -1}, rate)],
            lags=lag,
        )
    msg = str(exc.value)
    assert needle in msg and "\n" not in msg, msg


def test_action_lag_must_be_declared():
    with pytest.raises(SymdelayInputError, match="not a declared lag"):
        Model(
            "m",
            ["q1"],
            {"mu": "positive"},
            [("in", {"q1": 1}, "1", "tau"), ("out", {"q1": -1}, "mu*q1")],
        )


def test_delay_model_refuses_what_it_does_not_have():
    """No ODE drift, Jacobian or diffusion; the simulation of a neutral model whose
    difference operator is not stable refuses in one line (never an answer that ignores the
    lag; the fluid path is the delay fluid's: tests/test_delay_fluid.py; the simulation:
    tests/test_lag_simulate.py, the neutral announcement's tests/test_lag_simulate_dot.py)."""
    m = load_toml(EXAMPLES / "constant_action_delay.toml", mu=1, lam=1, theta=2, D=1)
    for attr in ("drift", "jacobian", "diffusion", "modes"):
        with pytest.raises(DelayModelError, match="has lags"):
            getattr(m, attr)
    from symdelay.analysis.stochastic import simulate

    neutral = load_toml(EXAMPLES / "announcement.toml", mu=1, lam=1, theta=2, D=1, p="0.5")
    with pytest.raises(SymdelayInputError, match=r"difference operator"):
        simulate(neutral, eta=10, T=1)  # lam theta p = 1


@pytest.mark.parametrize(
    "args, settings",
    [
        (["simulate", "--T", "5"], ("mu=1", "lam=1", "theta=2", "D=1", "p=0.5")),
    ],
)
def test_cli_refuses_time_paths_of_a_delay_model(run_cli, args, settings):
    status, out, err = run_cli(
        *args,
        "--model-file",
        str(EXAMPLES / "announcement.toml"),
        *[x for k in settings for x in ("--set", k)],
    )
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert "has lags" in err or "difference operator" in err, err


def test_cli_charpoly_of_every_delay_example(run_cli):
    for name in (
        "information_delay",
        "moving_average",
        "announcement",
        "two_lag_mixture",
        "constant_action_delay",
    ):
        status, out, err = run_cli(
            "charpoly", "--model-file", str(EXAMPLES / f"{name}.toml"), "--json"
        )
        assert status == 0, err
        import json

        rec = json.loads(out)
        assert {f["mode"] for f in rec["factors"]} == {"sum", "difference"}


def test_toml_lag_keys_and_refusals(tmp_path):
    text = (EXAMPLES / "constant_action_delay.toml").read_text()
    path = tmp_path / "m.toml"
    path.write_text(text.replace('lag = "tau"', 'lag = "nope"', 1))
    with pytest.raises(SymdelayInputError, match="lag 'nope' is not a declared lag"):
        load_toml(path)
    path.write_text(text.replace('lag = "tau"', "lag = 3", 1))
    with pytest.raises(SymdelayInputError, match="'lag' must be a string"):
        load_toml(path)
    path.write_text(text.replace("[lags]", "lags = 3\n[nothing]"))
    with pytest.raises(SymdelayInputError):
        load_toml(path)
    assert sys.modules  # the loader imported nothing it should not (startup tests check it)


# ---------------------------------------------------------------------- windows, critical
def _closed_tau_c(a, mu_):
    import mpmath

    with mpmath.workdps(40):
        return +(mpmath.acos(-mu_ / a) / mpmath.sqrt(a * a - mu_ * mu_))


@pytest.mark.parametrize("name", ["information_delay", "constant_action_delay"])
@pytest.mark.parametrize("th", [2, 3, sp.Rational(7, 2)])
def test_window_over_the_lag_is_pender_rand_wesson(name, th):
    """Unstable for D above Delta_c = arccos(-mu/(lam theta)) / sqrt((lam theta)^2 - mu^2)
    (per-server lam), through the model's own window and critical entries."""
    import mpmath

    from symdelay.analysis.critical import critical
    from symdelay.analysis.window import window

    m = load_toml(EXAMPLES / f"{name}.toml", mu=1, lam=1, theta=th)
    w = window(m, "D", lo=0, hi=10, dps=20).to_json()
    th = sp.Rational(th)
    with mpmath.workdps(40):
        expected = _closed_tau_c(mpmath.mpf(th.p) / th.q, 1)
        (lo, hi), *_ = w["intervals"]
        assert abs(mpmath.mpf(lo) - expected) < mpmath.mpf(10) ** -18
        assert mpmath.mpf(hi) == 10
        pt = critical(m, "D", dps=20).to_json()["points"][0]
        assert abs(mpmath.mpf(pt["D_c"]) - expected) < mpmath.mpf(10) ** -18


def test_critical_theta_over_D_is_the_lambert_closed_form():
    """theta_c(D) of r + mu + lam theta exp(-r D): lam theta cos(w D) = -mu and
    w = lam theta sin(w D), solved here by mpmath from the closed form's first branch."""

    from symdelay.analysis.critical import critical

    m = load_toml(EXAMPLES / "information_delay.toml", mu=1, lam=1)
    pts = critical(m, "theta", over="D", at=["1/2", 1, 2], dps=20).to_json()["points"]
    for pt, Dv in zip(pts, (sp.Rational(1, 2), 1, 2)):
        _check_theta_c(pt, Dv)


def _check_theta_c(pt, Dv):
    import mpmath

    with mpmath.workdps(40):
        Dv = mpmath.mpf(sp.Rational(Dv).p) / sp.Rational(Dv).q
        # w solves w = -tan(w D) on (pi/(2D), pi/D): then a = -mu / cos(w D)
        w = mpmath.findroot(
            lambda x: x + mpmath.tan(x * Dv),
            (mpmath.pi / (2 * Dv) + 1e-9, mpmath.pi / Dv - 1e-9),
            solver="anderson",
        )
        a = -1 / mpmath.cos(w * Dv)
        assert abs(mpmath.mpf(pt["theta_c"]) - a) < mpmath.mpf(10) ** -18, (pt, a)
        assert abs(mpmath.mpf(pt["omega"]) - w) < mpmath.mpf(10) ** -18


def test_window_in_theta_at_a_fixed_lag_agrees_with_the_lag_switches():
    """Two paths: the window in theta at D = 1 (the quasi-polynomial scan) starts where the
    lag's switches put D_c = 1 (the exact path) for that theta."""
    import mpmath

    from symdelay.analysis.critical import critical
    from symdelay.analysis.window import window

    m = load_toml(EXAMPLES / "information_delay.toml", mu=1, lam=1, D=1)
    (lo, _hi), *_ = window(m, "theta", lo=0, hi=20, dps=15).to_json()["intervals"]
    th = sp.Rational(mpmath.nstr(mpmath.mpf(lo), 15))
    m2 = load_toml(EXAMPLES / "information_delay.toml", mu=1, lam=1, theta=th)
    d_c = mpmath.mpf(critical(m2, "D", dps=15).to_json()["points"][0]["D_c"])
    assert abs(d_c - 1) < 1e-12


@pytest.mark.parametrize("name", ["information_delay", "constant_action_delay"])
def test_stability_entry_of_a_delay_model_on_both_sides_of_the_critical_delay(name):
    """stability(model) at numbers: the certified count (argument principle) says stable
    just below Pender-Rand-Wesson's Delta_c and unstable (two roots) just above."""
    import mpmath

    from symdelay.analysis.stability import stability

    tc = _closed_tau_c(mpmath.mpf(2), 1)
    for factor, verdict, count in (("0.999", "stable", 0), ("1.001", "unstable", 2)):
        Dv = sp.Rational(mpmath.nstr(tc * mpmath.mpf(factor), 20))
        m = load_toml(EXAMPLES / f"{name}.toml", mu=1, lam=1, theta=2, D=Dv)
        res = stability(m)
        assert res.verdict == verdict and res.unstable_count == count
        assert set(res.to_json()) >= {"verdict", "stable", "factors", "conditions"}


def test_analyze_a_delay_model_with_and_without_numbers(run_cli):
    f = str(EXAMPLES / "information_delay.toml")
    status, out, err = run_cli("analyze", f)
    # without numbers: the delay-independent conditions (exact for one constant lag)
    assert status == 0 and "mu >= lam*theta" in out and "exp(-D*r)" in out, err
    assert "for every value of the lags" in out, out
    status, out, err = run_cli(
        "analyze", f, "--set", "mu=1", "--set", "lam=1", "--set", "theta=3", "--set", "D=1"
    )
    assert status == 0 and out.strip().endswith("verdict: unstable"), out


def test_long_rational_chains_are_estimated_and_refused(run_cli, tmp_path):
    """A gamma lag of shape 100000 stands for a polynomial of degree 100001: estimated and
    refused in one line (not run for hours); a small shape answers."""
    text = (EXAMPLES / "constant_action_delay.toml").read_text()
    path = tmp_path / "g.toml"
    path.write_text(
        text.replace(
            '{ kind = "constant", value = "D" }', '{ kind = "gamma", shape = 100000, mean = "D" }'
        )
    )
    sets = [x for k in ("mu=1", "lam=1", "theta=3", "D=1") for x in ("--set", k)]
    status, out, err = run_cli("stability", "--model-file", str(path), *sets)
    assert (
        status == 2
        and out == ""
        and err.count("\n") == 1
        and "--force" in err
        and "100000 phases" in err
    ), err
    path.write_text(
        text.replace(
            '{ kind = "constant", value = "D" }', '{ kind = "gamma", shape = 3, mean = "D" }'
        )
    )
    status, _out, err = run_cli("stability", "--model-file", str(path), *sets)
    assert status == 0, err


def test_window_over_a_distributed_lags_argument_is_certified():
    """The mean of a gamma(5/2) action delay varied: the certified lag-parameter path
    answers (it used to refuse); the verdicts of stability at a point on each side of the
    switch agree with the window's counts."""
    from symdelay.analysis.stability import stability
    from symdelay.analysis.window import window

    m = two_queues(
        lag={"tau": {"kind": "gamma", "shape": "5/2", "mean": "D"}}, action="tau"
    ).with_values(mu=1, lam=1, theta=9)
    w = window(m, "D", lo=0, hi=5)
    assert len(w.breakpoints) == 1 and w.counts == (0, 2)
    x = w.breakpoints[0].value
    for at, verdict in ((x * 0.9, "stable"), (x * 1.1, "unstable")):
        assert stability(m.with_values(D=format(float(at), ".12g"))).verdict == verdict
