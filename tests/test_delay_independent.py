"""Delay-independent stability (analysis/delayindep.py, stability of a delay model with free
parameters, verify against a delay model, critical --param D): against Hayes' closed form
(r + mu + a e^{-r D} is stable for every D >= 0 exactly when |a| <= mu) checked by the
certified counts of analysis/lagroots.py at several lags, and Pender-Rand-Wesson's critical
delay D_c = acos(-mu/(lam theta)) / sqrt((lam theta)^2 - mu^2)."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
import sympy as sp

from symdelay import load_toml
from symdelay.analysis.claims import verify
from symdelay.analysis.delayindep import EXACT, SUFFICIENT, independent_conditions
from symdelay.analysis.stability import stability

MODELS = Path(__file__).resolve().parents[1] / "examples" / "models"
INFO = MODELS / "information_delay.toml"
MIX = MODELS / "two_lag_mixture.toml"
AVG = MODELS / "moving_average.toml"


def Q(x) -> sp.Rational:
    x = Fraction(x)
    return sp.Rational(x.numerator, x.denominator)


def critical_delay(mu, k):
    """Pender-Rand-Wesson's (per-server lam): the first lag at which a pair reaches the axis."""
    mu, k = (
        x
        if isinstance(x, mpmath.mpf)
        else mpmath.mpf(Fraction(x).numerator) / Fraction(x).denominator
        for x in (mu, k)
    )
    return mpmath.acos(-mu / k) / mpmath.sqrt(k**2 - mu**2)


def count(model, **values):
    """The certified number of roots in Re r > 0 of every mode at these numbers."""
    m = model.with_values(**{k: Q(v) for k, v in values.items()})
    res = stability(m)
    assert res.verdict in ("stable", "unstable", "marginal"), res.decided_by
    return res.unstable_count


def holds(conditions, point) -> bool:
    sub = {sp.Symbol(k): Q(v) for k, v in point.items()}
    return all(bool(c.xreplace(sub)) for c in conditions)


def test_scalar_mode_condition_is_lam_theta_at_most_mu_exact():
    res = stability(load_toml(INFO))
    assert res.delay_independent == EXACT and res.stable is None and res.verdict is None
    assert [str(c) for c in res.conditions] == ["mu >= lam*theta"]
    assert "necessary and sufficient" in res.note
    assert "exactly when" in res.text()


def test_scalar_mode_against_certified_counts_on_both_sides_and_at_equality():
    model = load_toml(INFO)
    conds = stability(model).conditions
    rng = random.Random(32)
    points = []
    for _ in range(4):
        mu = Fraction(rng.randint(1, 20), rng.randint(1, 10))
        lam = Fraction(rng.randint(1, 20), rng.randint(1, 10))
        points += [
            (mu, lam, mu / lam * Fraction(rng.randint(1, 9), 10)),  # below
            (mu, lam, mu / lam),  # equality
            (mu, lam, mu / lam * Fraction(rng.randint(11, 30), 10)),  # above
        ]
    for mu, lam, theta in points:
        k = lam * theta
        inside = holds(conds, {"mu": mu, "lam": lam, "theta": theta})
        assert inside == (k <= mu)
        if inside:  # stable at every lag tried (equality included: no root reaches the axis)
            for D in (Fraction(1, 10), 1, 7, 40):
                assert count(model, mu=mu, lam=lam, theta=theta, D=D) == 0, (mu, k, D)
        else:  # a pair is in Re r > 0 just past the critical delay, none just before it
            Dc = critical_delay(mu, k)
            before = Fraction(mpmath.nstr(Dc * mpmath.mpf("0.98"), 15))
            after = Fraction(mpmath.nstr(Dc * mpmath.mpf("1.02"), 15))
            assert count(model, mu=mu, lam=lam, theta=theta, D=before) == 0
            assert count(model, mu=mu, lam=lam, theta=theta, D=after) == 2


def test_two_lags_condition_never_contradicted_by_counts():
    """Two independent constant lags in one scalar mode: |P0| > |P1| + |P2| for every
    omega > 0 (a closed polygon otherwise): exact here, mu >= lam*theta; where it holds
    the counts find no unstable root at any pair of lags tried, and where it fails some
    pair of lags destabilises."""
    model = load_toml(MIX)
    ic = independent_conditions(model)
    assert ic.exact == EXACT
    conds = stability(model).conditions
    lags = (Fraction(1, 5), 1, 3, 11)
    for mu, k, w in ((2, 1, Fraction(1, 3)), (2, 2, Fraction(1, 2)), (1, 3, Fraction(1, 4))):
        point = {"mu": mu, "lam": 1, "theta": k, "w": w}
        inside = holds(conds, point)
        counts = [count(model, **point, D1=a, D2=b) for a in lags for b in lags]
        if inside:
            assert not any(counts)
        else:
            assert any(counts)


def test_distributed_lag_condition_is_labelled_sufficient_and_holds():
    model = load_toml(AVG)
    res = stability(model)
    assert res.delay_independent == SUFFICIENT
    assert "sufficient, not necessary" in res.note
    # the delay-independent lines never say "exactly" (the window's own exact condition,
    # for every Delta, is a separate statement: tests/test_window_stability.py)
    assert not any(
        "exactly when" in line for line in res.text().splitlines() if "value of the lags" in line
    )
    # where it holds, no window of averaging destabilises
    for Delta in (Fraction(1, 3), 2, 9):
        assert count(model, mu=2, lam=1, theta=2, Delta=Delta) == 0


@pytest.mark.parametrize(
    ("claim", "relation"),
    [
        ("lam*theta <= mu", "equivalent"),
        ("lam*theta < mu", "sufficient"),
        ("lam*theta <= 2*mu", "necessary"),
        ("lam*theta < mu/2", "sufficient"),
    ],
)
def test_verify_polynomial_claims_both_directions(claim, relation):
    model = load_toml(INFO)
    res = verify(model, claim)
    assert res.relation_to_stability == relation and res.exit_status == "proven"
    for direction, point in res.counterexamples["stability"].items():
        if point is None:
            continue
        # the counterexample is exact and re-checked here by the certified counts
        pt = {k: Fraction(v) for k, v in point.items() if k in ("mu", "lam", "theta")}
        k = pt["lam"] * pt["theta"]
        claim_holds = res.condition.xreplace({sp.Symbol(n): Q(v) for n, v in pt.items()})
        claim_holds = bool(claim_holds)
        if direction == "claim_implies_target":
            assert claim_holds and k > pt["mu"]
            Dc = critical_delay(pt["mu"], k)
            after = Fraction(mpmath.nstr(Dc * mpmath.mpf("1.02"), 15))
            assert count(model, **pt, D=after) == 2
        else:
            assert not claim_holds and k <= pt["mu"]
            assert count(model, **pt, D=5) == 0


def test_verify_decides_a_claim_on_the_lag_at_the_given_lags():
    # a claim that names the lag is about stability at that lag (tests/test_delay_claims_lags.py)
    res = verify(load_toml(INFO), "D < 1", points=50)
    assert res.relation_to_stability == "neither"
    assert res.verdicts["stability"] == {
        "claim_implies_target": "unstable",
        "target_implies_claim": "stable",
    }


def _cli(*argv):
    proc = subprocess.run(
        [sys.executable, "-m", "symdelay", *argv], capture_output=True, text=True, check=False
    )
    return proc.returncode, proc.stdout, proc.stderr


@pytest.mark.parametrize(
    ("mu", "lam", "theta"), [("1", "1", "2"), ("0.5", "2", "1.5"), ("3", "1", "4")]
)
def test_cli_critical_lag_against_pender_rand_wesson(mu, lam, theta):
    code, out, err = _cli(
        "critical", "--model-file", str(INFO), "--set", f"mu={mu}", "--set", f"lam={lam}",
        "--set", f"theta={theta}", "--param", "D", "--dps", "20", "--json",
    )  # fmt: skip
    assert code == 0, err
    point = json.loads(out)["points"][0]
    k = Fraction(lam) * Fraction(theta)
    with mpmath.workdps(30):
        want = critical_delay(Fraction(mu), k)
        assert abs(mpmath.mpf(point["D_c"]) - want) < mpmath.mpf(10) ** -18 * want


def test_cli_critical_lag_is_inf_when_delay_independent():
    code, out, err = _cli(
        "critical", "--model-file", str(INFO), "--set", "mu=1", "--set", "lam=1",
        "--set", "theta=1", "--param", "D", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["points"][0]["D_c"] == "inf"


def test_cli_critical_theta_per_lag_of_a_model_file():
    code, out, err = _cli(
        "critical", "--model-file", str(INFO), "--set", "mu=1", "--set", "lam=1",
        "--over", "D", "--at", "0.5,1,2", "--json",
    )  # fmt: skip
    assert code == 0, err
    points = json.loads(out)["points"]
    for p in points:  # the critical theta at D is the theta whose critical delay is D
        D = Fraction(str(p["D"]))
        k = mpmath.mpf(p["theta_c"])  # lam = 1
        assert abs(critical_delay(1, k) - mpmath.mpf(D.numerator) / D.denominator) < 1e-12


def test_cli_stability_and_verify_of_a_delay_model():
    code, out, _ = _cli("stability", "--model-file", str(INFO))
    assert code == 0 and "mu >= lam*theta" in out and "exactly when" in out
    code, out, _ = _cli("verify", "--model-file", str(INFO), "--claim", "lam*theta <= mu")
    assert code == 0 and "equivalent" in out
