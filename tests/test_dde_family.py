"""The information-delay family ``dde`` (symdelay/models/dde/): a Model with a lag, checked
against closed forms and independent constructions written here.

(a) two queues, logit, constant lag: the founding L = inf closed forms (the model's
    specialisations) against the generic lag path on many points -- same record keys,
    values equal to the digits asked -- and both against Pender, Rand & Wesson's critical
    delay, Hayes' region, the Hopf delays D_n and the Lambert-W rightmost root computed here;
(b) N = 3 and unequal service rates: the characteristic function against the determinant of
    the characteristic matrix built here from the routing rule;
(c) a CCDF choice function (Lomax, and exp(-theta x^2)): Doldo & Pender's rule, the gain of
    the linearisation is the arrival rate times the hazard rate at the equilibrium;
(d) uniform and gamma lags against the lag core's example files and the Erlang chain;
(e) bad input: one line each.
"""

from __future__ import annotations

import math
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from symdelay.analysis.critical import critical
from symdelay.analysis.roots import roots
from symdelay.analysis.stability import stability
from symdelay.analysis.window import window, worst_delay
from symdelay.core.errors import SymdelayInputError
from symdelay.core.symbols import D, lam, mu, r, theta
from symdelay.model import load_toml
from symdelay.models import build_model
from symdelay.models.dde.build import FoundingLimitModel, InformationDelayModel

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "models"


def _num(text):
    return mpmath.mpf(text) if text not in (None, "inf") else text


def _same_record(a: dict, b: dict, skip=("method", "decided_by", "note", "algorithm")):
    """Same keys everywhere; every value equal (numbers as the printed digits)."""
    assert set(a) == set(b), (sorted(a), sorted(b))
    for k in a:
        if k in skip or k == "symdelay_version":
            continue
        x, y = a[k], b[k]
        if isinstance(x, dict):
            _same_record(x, y, skip)
        elif isinstance(x, list):
            assert len(x) == len(y), k
            for u, v in zip(x, y):
                if isinstance(u, dict):
                    _same_record(u, v, skip)
                else:
                    assert u == v, (k, u, v)
        else:
            assert x == y, (k, x, y)


def pender_critical_delay(mu_, k):
    """Pender, Rand & Wesson: D_c = acos(-mu/k)/sqrt(k^2 - mu^2) (k = lam theta > mu)."""
    return mpmath.acos(-mu_ / k) / mpmath.sqrt(k**2 - mu_**2)


# ---------------------------------------------------------------- (a) the founding limit
POINTS = [(1, 1, 2), (1, "0.5", 5), (2, 1, 3), ("0.3", "1.7", "0.9"), (1, 2, "0.75"), (3, 1, 7)]


@pytest.mark.parametrize(("m_", "l_", "t_"), POINTS)
def test_critical_delay_is_pender_rand_wesson(m_, l_, t_):
    model = build_model("dde", mu=m_, lam=l_, theta=t_)
    assert isinstance(model, FoundingLimitModel)
    dps = 30
    spec = critical(model, "D", dps=dps, method="specialised")
    gen = critical(model, "D", dps=dps, method="generic")
    _same_record(spec.to_json(), gen.to_json())
    with mpmath.workdps(dps + 10):
        mu_ = mpmath.mpf(sp.Rational(str(m_)))
        k = mpmath.mpf(sp.Rational(str(l_)) * sp.Rational(str(t_)))
        if k <= mu_:  # Hayes: delay-independent
            assert spec.critical == gen.critical == mpmath.inf
            return
        want = pender_critical_delay(mu_, k)
        for c in (spec, gen):
            assert abs(c.critical - want) < abs(want) * mpmath.mpf(10) ** (-dps)
            assert abs(c.omega - mpmath.sqrt(k**2 - mu_**2)) < mpmath.mpf(10) ** (-dps + 1)


def test_lam_theta_equal_mu_is_delay_independent():
    # equality included: r + mu + mu e^{-rD} has no root on the axis for any D
    model = build_model("dde", mu=2, lam=1, theta=2)
    for method in ("specialised", "generic"):
        assert critical(model, "D", method=method).critical == mpmath.inf
    for D_ in ("0.1", "10", "1000"):
        m = build_model("dde", mu=2, lam=1, theta=2, D=D_)
        assert stability(m, method="generic").verdict == "stable"
        assert stability(m, method="specialised").verdict == "stable"


@pytest.mark.parametrize(("m_", "l_", "t_"), POINTS[:4])
def test_hayes_region_on_many_points(m_, l_, t_):
    """Stable exactly when lam theta <= mu or D < D_c: the certified generic count and the
    founding interval verdict agree with the rule at D_c (1 -+ 1/100) and far from it."""
    mu_ = sp.Rational(str(m_))
    k = sp.Rational(str(l_)) * sp.Rational(str(t_))
    Dc = float(pender_critical_delay(mpmath.mpf(mu_), mpmath.mpf(k))) if k > mu_ else 3.0
    for f in (0.2, 0.99, 1.01, 2.5):
        Dv = sp.Rational(round(f * Dc * 10**6), 10**6)
        model = build_model("dde", mu=m_, lam=l_, theta=t_, D=Dv)
        want = "stable" if k <= mu_ or f < 1 else "unstable"
        spec = stability(model, method="specialised")
        gen = stability(model, method="generic")
        assert spec.verdict == gen.verdict == want, (f, spec.verdict, gen.verdict)
        _same_record(spec.to_json(), gen.to_json())
        assert spec.unstable_count == gen.unstable_count


def test_unstable_counts_are_the_hopf_delays():
    """Each Hopf delay D_n = (acos(-mu/k) + 2 pi n)/omega adds a pair (Hayes): the generic
    window over D finds them all, with counts 0, 2, 4, ...; the stability counts agree."""
    m_, k = 1, 2
    w = window(build_model("dde", mu=m_, lam=1, theta=k), "D", hi=30)
    omega = mpmath.sqrt(k**2 - m_**2)
    Dn = [(mpmath.acos(-mpmath.mpf(m_) / k) + 2 * mpmath.pi * n) / omega for n in range(20)]
    Dn = [d for d in Dn if d < 30]
    assert len(w.breakpoints) == len(Dn)
    for e, d in zip(w.breakpoints, Dn):
        assert abs(e.value - d) < 1e-12 and abs(e.omega[0] - omega) < 1e-12
    assert list(w.counts) == [2 * n for n in range(len(Dn) + 1)]
    for n in (1, 2):  # between D_n and D_{n+1}: 2(n+1) roots on the right, both paths
        Dv = sp.Rational(round(float(Dn[n] + Dn[n + 1]) / 2 * 1000), 1000)
        model = build_model("dde", mu=m_, lam=1, theta=k, D=Dv)
        counts = {stability(model, method=p).unstable_count for p in ("specialised", "generic")}
        assert counts == {2 * (n + 1)}


@pytest.mark.parametrize("D_", [1, "0.5", 2, "3.7"])
def test_critical_theta_paths_agree_and_solve_the_hopf_condition(D_):
    model = build_model("dde", mu=1, lam=1, D=D_)
    dps = 25
    spec = critical(model, dps=dps, method="specialised")
    gen = critical(model, dps=dps, method="generic")
    _same_record(spec.to_json(), gen.to_json())
    # independent: at r = i w, k cos(wD) = -mu and k sin(wD) = w, first w in (pi/2D, pi/D)
    with mpmath.workdps(dps + 10):
        d = mpmath.mpf(sp.Rational(str(D_)))
        a, b = mpmath.pi / (2 * d), mpmath.pi / d
        w = mpmath.findroot(
            lambda x: mpmath.sin(x * d) + x * mpmath.cos(x * d),
            (a * 1.000001, b),
            solver="anderson",
        )
        k = mpmath.sqrt(1 + w**2)
        assert abs(spec.critical - k) < mpmath.mpf(10) ** (-dps + 1)
    # swept: the founding Newton path and the generic crossing at several D, one record
    at = [1, "0.5", 2]
    _same_record(
        critical(build_model("dde", mu=1, lam=1), at=at, method="specialised").to_json(),
        critical(build_model("dde", mu=1, lam=1), at=at, method="generic").to_json(),
    )


@pytest.mark.parametrize("t_", [1, 5, "1/10", "0.37"])
def test_rightmost_root_is_lambert_w(t_):
    model = build_model("dde", mu=1, lam=1, theta=t_, D=2)
    res = roots(model, dps=30)
    diff = [z for z in res.roots if z.mode == "difference"]
    top = max(diff, key=lambda z: z.value.real).value
    with mpmath.workdps(40):
        k, d = mpmath.mpf(sp.Rational(str(t_))), mpmath.mpf(2)
        want = -1 + mpmath.lambertw(-k * d * mpmath.exp(d), 0) / d
        assert abs(top.real - want.real) < 1e-28 and abs(abs(top.imag) - abs(want.imag)) < 1e-28
    # its verdict is the certified generic count's
    assert res.verdict == stability(model, method="generic").verdict
    assert res.model_name == model.name and [f.mode for f in res.factors] == ["sum", "difference"]


def test_worst_delay_is_the_infimum():
    model = build_model("dde", mu=1, lam=2)
    w = worst_delay(model)
    assert w.x_star == mpmath.inf and not w.attained
    assert w.critical == mpmath.mpf(1) / 2  # mu/lam, approached as D -> oo
    assert str(w.closed_form["theta_star"]) == "mu/lam"
    # the generic critical theta decreases towards it along D
    crit = [critical(build_model("dde", mu=1, lam=2, D=d)).critical for d in (1, 10, 100)]
    assert crit[0] > crit[1] > crit[2] > mpmath.mpf(1) / 2
    assert crit[2] - mpmath.mpf(1) / 2 < 1e-3


def test_closed_forms_are_attached_by_both_paths():
    model = build_model("dde", mu=1, lam=1, theta=2)
    for method in ("specialised", "generic"):
        forms = critical(model, "D", method=method).to_json()["closed_forms"]
        assert sp.sympify(forms["critical_delay"]) == sp.acos(-sp.Rational(1, 2)) / sp.sqrt(3)


def test_the_toml_example_is_the_same_model():
    """examples/models/information_delay.toml (the lag core's example) and the family."""
    values = {"mu": 1, "lam": "0.5", "theta": 3, "D": "1.5"}
    a = load_toml(EXAMPLES / "information_delay.toml", **values)
    b = build_model("dde", **values)
    assert [
        sp.simplify(f.factor - g.factor)
        for f, g in zip(a.characteristic_factors, b.characteristic_factors, strict=True)
    ] == [0, 0]
    assert stability(a).verdict == stability(b).verdict


# ---------------------------------------------------------------- (b) N queues, unequal
def _routing_matrix(rates, G, q, lam_):
    """``d(N lam G(q_i)/sum_j G(q_j))/dq_j`` at ``q`` (written here from the rule)."""
    N = len(q)
    xs = sp.symbols(f"y1:{N + 1}")
    g = [G(x) for x in xs]
    rows = [N * lam_ * gi / sp.Add(*g) for gi in g]
    return sp.Matrix(N, N, lambda i, j: sp.diff(rows[i], xs[j]).subs(dict(zip(xs, q))))


def test_three_queues_against_the_determinant():
    N = 3
    model = build_model("dde", N=N)  # symbolic mu, lam, theta, D
    assert type(model) is InformationDelayModel
    qs = lam / mu
    B = _routing_matrix(None, lambda x: sp.exp(-theta * x), [qs] * N, lam)
    delta = r * sp.eye(N) + mu * sp.eye(N) - B * sp.exp(-r * D)
    det = sp.factor(sp.simplify(delta.det()))
    got = sp.Mul(*[f.factor**f.multiplicity for f in model.characteristic_factors])
    assert sp.simplify(det - got) == 0
    assert [(f.mode, f.multiplicity) for f in model.characteristic_factors] == [
        ("sum", 1),
        ("difference (2 copies)", 2),
    ]
    # and the critical theta of the N - 1 difference modes is the two-queue one
    c3 = critical(build_model("dde", N=3, mu=1, lam=1, D=1)).critical
    c2 = critical(build_model("dde", mu=1, lam=1, D=1), method="generic").critical
    assert abs(c3 - c2) < 1e-13


def test_unequal_service_rates_against_the_determinant():
    rates, lam_, th, D_ = (1, 2), 1, 2, 1
    model = build_model("dde", service_rates="1,2", lam=lam_, theta=th, D=D_)
    assert model.permutation is None and not model.equilibrium.exact
    # the equilibrium solved here: 2 lam p_i(q) = mu_i q_i
    with mpmath.workdps(40):

        def F(a, b):
            p1 = 1 / (1 + mpmath.exp(-th * (b - a)))
            return [2 * lam_ * p1 - rates[0] * a, 2 * lam_ * (1 - p1) - rates[1] * b]

        q = mpmath.findroot(F, (0.8, 0.6))
        for s, v in zip(model.states, q):
            assert abs(mpmath.mpf(str(model.equilibrium.point[s])) - v) < 1e-25
        qv = [sp.Float(str(v), 40) for v in q]
    B = _routing_matrix(None, lambda x: sp.exp(-th * x), qv, lam_)
    delta = r * sp.eye(2) + sp.diag(*rates) - B * sp.exp(-r * D_)
    det = delta.det()
    (f,) = model.characteristic_factors
    for z in (sp.Rational(1, 3), sp.I, 2 + 3 * sp.I, -sp.Rational(1, 2) + sp.I / 5):
        a, b = complex(det.subs(r, z).evalf(40)), complex(f.factor.subs(r, z).evalf(40))
        assert abs(a - b) < 1e-20 * (1 + abs(a))
    assert stability(model).verdict in ("stable", "unstable")


# ---------------------------------------------------------------- (c) choice functions
@pytest.mark.parametrize(
    ("text", "G"),
    [
        ("(1 + theta*x)**(-3)", lambda x: (1 + theta * x) ** -3),  # Lomax, shape 3
        ("exp(-theta*x**2)", lambda x: sp.exp(-theta * x**2)),
        ("1/(1 + theta*x)", lambda x: 1 / (1 + theta * x)),  # Lomax, shape 1
    ],
)
@pytest.mark.parametrize("N", [2, 3])
def test_a_choice_function_acts_through_its_hazard_rate(text, G, N):
    """Doldo & Pender: routing proportional to a survival function G linearises, at the
    symmetric equilibrium q* = lam/mu, to the logit with theta replaced by the hazard rate
    h(q*) = -G'(q*)/G(q*): the delayed term is -lam h(q*) (I - J/N)."""
    model = build_model("dde", N=N, choice=text)
    x = sp.Symbol("x")
    h = sp.simplify(-sp.diff(G(x), x) / G(x)).subs(x, lam / mu)
    (term,) = model.linearisation.terms
    assert term.kernel == sp.exp(-D * r)
    want = -lam * h * (sp.eye(N) - sp.ones(N, N) / N)
    assert sp.simplify(sp.Matrix(term.matrix) - want) == sp.zeros(N, N)
    diff = [f.factor for f in model.characteristic_factors if f.mode.startswith("difference")]
    assert sp.simplify(diff[0] - (r + mu + lam * h * sp.exp(-D * r))) == 0
    # at numbers: the critical delay is Pender's with k = lam h(q*)
    at = {mu: 1, lam: 2, theta: sp.Rational(3, 2)}
    k = h.subs(at) * 2
    m = build_model("dde", N=N, choice=text, mu=1, lam=2, theta="1.5")
    c = critical(m, "D", dps=20)
    if k <= 1:
        assert c.critical == mpmath.inf
        return
    with mpmath.workdps(30):
        want = pender_critical_delay(mpmath.mpf(1), mpmath.mpf(str(sp.N(k, 40))))
        got = mpmath.mpf(c.to_json()["points"][0]["D_c"])  # the 20 digits printed
        assert abs(got - want) < want * mpmath.mpf(10) ** -19


# ---------------------------------------------------------------- (d) distributed lags
def test_uniform_lag_is_the_moving_average_example():
    """The uniform lag of mean D is the moving average over 2D: moving_average.toml at
    Delta = 2D (the lag core's example), factor for factor, in the verdicts and the
    theta window (any lag kind now)."""
    a = load_toml(EXAMPLES / "moving_average.toml", mu=1, lam=1, Delta=3)
    b = build_model("dde", lag="uniform", mu=1, lam=1, D="1.5")
    for f, g in zip(a.characteristic_factors, b.characteristic_factors, strict=True):
        assert sp.simplify(f.factor - g.factor) == 0 and f.mode == g.mode
    # the theta scan reads the uniform kernel in Arb: both give the same window
    wa, wb = window(a, "theta", hi=40), window(b, "theta", hi=40)
    assert wa.record()["intervals"] == wb.record()["intervals"] and wa.intervals
    for th in ("2", "30"):
        sa = stability(a.with_values(theta=th))
        sb = stability(b.with_values(theta=th))
        assert sa.verdict == sb.verdict and sa.unstable_count == sb.unstable_count


@pytest.mark.parametrize("k", [1, 2, 3])
def test_integer_gamma_lag_is_the_erlang_chain(k):
    """A gamma lag of integer shape k and mean D is Erlang(k): the information delay has the
    founding action-delay model's characteristic polynomial at L = k (the founding paper's
    equivalence of the two kinds of delay), so the critical theta is the same."""
    info = build_model("dde", lag="gamma", lag_shape=k, mu=1, lam=1, D=1)
    action = build_model("erlang", L=k, mu=1, lam=1, D=1)
    a = critical(info).critical
    b = critical(action).critical
    assert a == b or abs(a - b) < 1e-13
    exp_lag = build_model("dde", lag="exponential", mu=1, lam=1, D=1)
    if k == 1:  # exponential = gamma of shape 1
        assert critical(exp_lag).critical == a == mpmath.inf


def test_non_integer_gamma_shape_is_counted_or_refused_in_one_line():
    m = build_model("dde", lag="gamma", lag_shape="2.5", mu=1, lam=1, theta=2, D=1)
    assert stability(m).verdict == "stable"
    # the window in theta (the kernel (1 + r/2.5)^-2.5 in Arb): theta = 2 lies outside it
    w = window(build_model("dde", lag="gamma", lag_shape="2.5", mu=1, lam=1, D=1), "theta", hi=9)
    assert all(not (a < 2 < b) for a, b in w.intervals)


# ---------------------------------------------------------------- rebuild and time paths
def test_with_values_keeps_the_family_and_its_specialisations():
    m = build_model("dde", mu=1, lam=1)
    assert type(m.with_values(theta=2, D=1)) is FoundingLimitModel
    assert type(m.rebuild(theta=2, D=1)) is FoundingLimitModel
    assert critical(m.with_values(D=1)).method == "specialised"
    assert critical(build_model("dde", N=3, mu=1, lam=1, D=1)).method == "generic"


def test_the_integrator_is_reached_from_the_model():
    from symdelay.models.dde import integrate

    m = build_model("dde", mu=1, lam=1, theta=2, D=1)
    a, b = m.integrate(3, dt=0.5), integrate(m, 3, dt=0.5)
    assert a.model_name == m.name and list(a["x"]) == list(b["x"])


# ---------------------------------------------------------------- (e) bad input
@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"N": 1}, "N must be an integer >= 2"),
        ({"N": "2.5"}, "N"),
        ({"choice": "theta"}, "does not depend on x"),
        ({"choice": "exp(-a*x)"}, "choice"),
        ({"choice": "__import__('os')"}, "choice"),
        ({"choice": "x > 1"}, "choice"),
        ({"choice": ""}, "choice"),
        ({"lag": "weird"}, "lag must be one of"),
        ({"lag": "gamma"}, "lag_shape"),
        ({"lag_shape": 2}, "gamma lag"),
        ({"lag": "gamma", "lag_shape": -1}, "lag_shape must be positive"),
        ({"service_rates": "1,2,3"}, "one rate per queue"),
        ({"service_rates": "1,-2"}, "mu2 must be positive"),
        ({"service_rates": "1,2", "mu": 1}, "not both"),
        ({"D": 0}, "D must be positive"),
        ({"theta": -1}, "theta must be >= 0"),
        ({"frob": 1}, "has no option 'frob'"),
    ],
)
def test_bad_input(options, words):
    with pytest.raises(SymdelayInputError) as err:
        build_model("dde", **options)
    msg = str(err.value)
    assert "\n" not in msg and words in msg, msg


def test_a_choice_function_negative_somewhere_is_refused():
    with pytest.raises(SymdelayInputError) as err:
        build_model("dde", choice="1 - theta*x")
    assert "\n" not in str(err.value)


def test_time_paths_of_other_members_are_refused_in_one_line():
    from symdelay.models.dde import integrate

    for options in ({"N": 3}, {"lag": "uniform"}, {"choice": "(1 + theta*x)**(-2)"}):
        m = build_model("dde", mu=1, lam=1, theta=1, D=1, **options)
        with pytest.raises(SymdelayInputError) as err:
            integrate(m, 1)
        assert "\n" not in str(err.value)
    assert math.isfinite(1.0)
