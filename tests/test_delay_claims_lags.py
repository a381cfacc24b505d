"""Claims that bound a lag (stability at the given lag values) and the delay-independent
conditions of a neutral equation (the announcement model), against closed forms and the
certified counts at numbers."""

from __future__ import annotations

import cmath
import math
from pathlib import Path

import pytest
import sympy as sp

import symdelay
from symdelay.analysis.claim_result import DIRECTIONS, OPEN, PROVEN, REFUTED
from symdelay.analysis.claims import verify
from symdelay.core.errors import SymdelayInputError

MODELS = Path(__file__).resolve().parent.parent / "examples" / "models"
PENDER = "D < acos(-mu/(lam*theta))/sqrt((lam*theta)**2 - mu**2)"
HAYES = (
    "mu + lam*theta > 0 and (lam*theta <= mu or "
    "D*sqrt((lam*theta)**2 - mu**2) < acos(-mu/(lam*theta)))"
)


@pytest.fixture(scope="module")
def info():
    return symdelay.load_toml(MODELS / "information_delay.toml")


def _at(model, point: dict):
    """The verdict at a point by the model-level path (a model at numbers, its
    stability entry): independent of the search's substitution into the linearisation."""
    from symdelay.analysis.stability import stability

    return stability(model.with_values(**{k: sp.Rational(v) for k, v in point.items()})).verdict


def test_pender_critical_delay_is_proven_equivalent(info):
    res = verify(info, PENDER, assume=("lam*theta > mu",))
    assert res.relation_to_stability == "equivalent"
    assert res.directions["stability"] == dict.fromkeys(DIRECTIONS, PROVEN)
    assert set(res.methods["stability"].values()) == {"decision procedure"}
    assert res.exit_status == "proven"


def test_the_proof_agrees_with_certified_counts_on_both_sides(info):
    # mu = 1, lam*theta = 2: D_c = acos(-1/2)/sqrt(3) = 2 pi/(3 sqrt 3) = 1.2092
    from symdelay.analysis.claim_formula import parse_claim
    from symdelay.analysis.lagclaims import claim_at, stability_oracle

    cf = parse_claim(PENDER, info.free_parameters, transcendental=True)
    at = stability_oracle(info)
    dc = 2 * math.pi / (3 * math.sqrt(3))
    for D, stable in (("1.2", True), ("1.22", False), ("0.05", True), ("6", False)):
        assert (float(D) < dc) is stable  # the closed form
        p = {s: sp.Rational(v) for s, v in zip(info.free_parameters, ("1", "2", "1", D))}
        assert claim_at(cf, p) is stable
        assert (at(p)[0] == "stable") is stable


def test_two_wrong_variants_are_refuted_with_rechecked_points(info):
    # a factor 2 off: claim => stable fails (a point between D_c and 2 D_c)
    twice = PENDER.replace("D < ", "D < 2*")
    res = verify(info, twice, assume=("lam*theta > mu",), points=200)
    assert res.directions["stability"][DIRECTIONS[0]] == REFUTED
    assert res.directions["stability"][DIRECTIONS[1]] == PROVEN
    pt = res.counterexamples["stability"][DIRECTIONS[0]]
    assert _at(info, pt) == "unstable" == res.verdicts["stability"][DIRECTIONS[0]]
    mu, k, D = (sp.Rational(pt[n]) for n in ("mu", "lam", "D"))
    k *= sp.Rational(pt["theta"])
    dc = sp.acos(-mu / k) / sp.sqrt(k**2 - mu**2)
    assert dc < D < 2 * dc  # the closed form says why
    # a sign off: stable => claim fails; the claim is still sufficient (acos(x) < acos(-x))
    sign = PENDER.replace("acos(-mu", "acos(mu")
    res = verify(info, sign, assume=("lam*theta > mu",), points=200)
    assert res.directions["stability"][DIRECTIONS[0]] == PROVEN
    assert res.directions["stability"][DIRECTIONS[1]] == REFUTED
    pt = res.counterexamples["stability"][DIRECTIONS[1]]
    assert _at(info, pt) == "stable"
    mu, k, D = (sp.Rational(pt[n]) for n in ("mu", "lam", "D"))
    k *= sp.Rational(pt["theta"])
    root = sp.sqrt(k**2 - mu**2)
    assert sp.acos(mu / k) / root < D < sp.acos(-mu / k) / root


def test_hayes_theorem_in_general_with_either_sign(tmp_path):
    # theta real: b = lam*theta of either sign; Hayes' full statement is equivalent, the
    # statement without a + b > 0 is refuted at a point where b < -a (a real root > 0)
    text = (MODELS / "information_delay.toml").read_text()
    path = tmp_path / "real_theta.toml"
    path.write_text(text.replace('theta = "positive"', 'theta = "real"'))
    model = symdelay.load_toml(path)
    res = verify(model, HAYES)
    assert res.relation_to_stability == "equivalent"
    wrong = HAYES.replace("mu + lam*theta > 0 and ", "")
    res = verify(model, wrong, points=200)
    assert res.directions["stability"][DIRECTIONS[0]] == REFUTED
    pt = res.counterexamples["stability"][DIRECTIONS[0]]
    assert sp.Rational(pt["lam"]) * sp.Rational(pt["theta"]) < -sp.Rational(pt["mu"])
    assert _at(model, pt) == "unstable"


def test_moving_average_lag_claim_goes_to_the_labelled_search():
    # moving average: at a crossing phi = omega Delta in (pi, 2 pi) and
    # Delta_c = phi^2/(k (1 - cos phi)) > pi^2/(2 k), so k Delta < pi^2/2 is sufficient
    model = symdelay.load_toml(MODELS / "moving_average.toml")
    claim = "lam*theta <= mu or lam*theta*Delta < pi**2/2"
    res = verify(model, claim, points=24, box={"Delta": ("0.1", "4")})
    assert res.methods["stability"] == dict.fromkeys(DIRECTIONS, "search")
    assert res.directions["stability"][DIRECTIONS[0]] == OPEN
    assert res.exit_status == "search" and res.search["points"] == 24
    assert res.directions["stability"][DIRECTIONS[1]] == REFUTED
    assert _at(model, res.counterexamples["stability"][DIRECTIONS[1]]) == "stable"
    with pytest.raises(SymdelayInputError, match="box"):
        verify(model, claim, box={"Delta": ("0", "4")})
    with pytest.raises(SymdelayInputError, match="names none"):
        verify(model, "lam*theta <= mu", points=40)


def test_cli_exit_code_of_the_search():
    import subprocess
    import sys

    def run(*args):
        return subprocess.run(
            [sys.executable, "-m", "symdelay", "verify", *args],
            capture_output=True,
            text=True,
            timeout=300,
        )

    # an answer from the search exits 3 (a proof or a refutation exits 0, as before)
    ma = str(MODELS / "moving_average.toml")
    claim = "lam*theta <= mu or lam*theta*Delta < pi**2/2"
    out = run("--model-file", ma, "--claim", claim, "--points", "10", "--box", "Delta=0.1:1")
    assert out.returncode == 3, out.stderr
    assert "no counterexample in 10 points searched" in out.stdout
    assert "answer from a search, not a proof" in out.stderr


# ------------------------------------------------------------------ neutral: announcement
@pytest.fixture(scope="module")
def announcement():
    return symdelay.load_toml(MODELS / "announcement.toml")


def test_announcement_conditions_are_the_closed_form(announcement):
    # r + mu + k (1 + p r) e^{-r D}: strongly stable difference operator iff k p < 1;
    # |i w + mu|^2 - k^2 |1 + i p w|^2 = (1 - k^2 p^2) w^2 + mu^2 - k^2 > 0 for every
    # w > 0 iff (given k p < 1) mu >= k
    from symdelay.analysis.delayindep import EXACT, independent_conditions

    mu, lam, theta, p = (sp.Symbol(n) for n in ("mu", "lam", "theta", "p"))
    ic = independent_conditions(announcement)
    assert ic.exact == EXACT
    want = {sp.Lt(lam * theta * p, 1), sp.Ge(mu, lam * theta)}
    got = set(ic.conditions)
    assert {sp.simplify(c) for c in got} == {sp.simplify(c) for c in want}
    diff = next(m for m in ic.modes if m.difference)
    assert diff.difference and "strongly stable" in ic.why


def test_announcement_conditions_against_certified_counts(announcement):
    from symdelay.analysis.stability import stability

    def verdict(mu, lam, p, D):
        m = announcement.with_values(
            mu=sp.Rational(mu), lam=sp.Rational(lam), theta=1, p=sp.Rational(p), D=sp.Rational(D)
        )
        return stability(m).verdict

    # inside: k = 1/2 <= mu = 1, k p = 1/2 < 1: stable at short and long lags
    assert {verdict("1", "1/2", "1", D) for D in ("1/10", "5", "40")} == {"stable"}
    # k p = 3/2 > 1: the difference operator is unstable; the count refuses in one line
    with pytest.raises(SymdelayInputError, match="difference operator"):
        verdict("1", "1/2", "3", "1")
    # k = 2 > mu = 1, k p = 1/2: H(u) = 3u/4 - 3 vanishes at w = 2; the first crossing lag
    # from e^{-i w D} = -(i w + mu)/(k (1 + i p w)), stable below it, unstable above
    w, k, p, mu = 2.0, 2.0, 0.25, 1.0
    x = -(1j * w + mu) / (k * (1 + 1j * p * w))
    assert abs(abs(x) - 1) < 1e-12
    Dc = ((-cmath.phase(x)) % (2 * math.pi)) / w
    lo, hi = (f"{Dc * f:.6f}" for f in (0.9, 1.1))
    assert verdict("1", "2", "1/4", lo) == "stable"
    assert verdict("1", "2", "1/4", hi) == "unstable"


def test_announcement_stability_prints_and_verify_decides(announcement):
    from symdelay.analysis.stability import stability

    text = stability(announcement).text()
    assert "lam*p*theta < 1" in text and "mu >= lam*theta" in text
    assert "exactly when" in text  # the retarded case's labelling: exact
    res = verify(announcement, "lam*theta <= mu and lam*theta*p < 1")
    assert res.relation_to_stability == "equivalent" and res.exit_status == "proven"
    res = verify(announcement, "lam*theta <= mu")
    assert res.relation_to_stability == "necessary"
    pt = res.counterexamples["stability"][DIRECTIONS[0]]
    assert sp.Rational(pt["lam"]) * sp.Rational(pt["theta"]) * sp.Rational(pt["p"]) >= 1


def test_announcement_lag_claim_counts_an_unstable_difference_operator(announcement):
    # without lam*theta*p < 1 the claim holds where the difference operator 1 + k p e^{-rD}
    # is unstable (k p > 1: roots with Re r near ln(k p)/D > 0); the model-level count
    # refuses such a point saying why, the search calls it unstable
    from symdelay.analysis.stability import stability

    res = verify(announcement, "lam*theta <= mu or D*lam*theta < 1", points=60)
    assert res.directions["stability"][DIRECTIONS[0]] == REFUTED
    pt = res.counterexamples["stability"][DIRECTIONS[0]]
    assert res.verdicts["stability"][DIRECTIONS[0]] == "unstable"
    kp = sp.prod(sp.Rational(pt[n]) for n in ("lam", "theta", "p"))
    if kp > 1:
        with pytest.raises(SymdelayInputError, match="infinitely many roots"):
            stability(announcement.with_values(**{k: sp.Rational(v) for k, v in pt.items()}))
    else:
        assert _at(announcement, pt) == "unstable"


def test_a_claim_that_never_holds_is_said_to_be_vacuous(info):
    """acos(2) is undefined, so "D < acos(2)" holds nowhere: "claim => stable" is proven,
    and the record says it holds vacuously; Pender's condition holds somewhere (no note)."""
    vac = verify(info, "D < acos(2)")
    assert vac.directions["stability"][DIRECTIONS[0]] == PROVEN
    assert any("holds vacuously" in n for n in vac.remarks)
    real = verify(info, PENDER, assume=("lam*theta > mu",))
    assert not any("vacuously" in n for n in real.remarks)
