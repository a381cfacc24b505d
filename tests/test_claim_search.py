"""Claims the decision procedure cannot decide (a transcendental function) fall back to a
search labelled as such (:mod:`symdelay.analysis.claim_search`, through
:func:`symdelay.analysis.claims.verify` and ``symdelay verify``).

Every counterexample is checked here by paths the search does not use: numpy eigenvalues of
the model's full Jacobian at the point (mpmath eigenvalues at 50 digits when the rightmost
real part is within 1e-8 of 0) and the claim (and assumptions) evaluated by mpmath at 50
digits. A true claim is proven true by hand (see each test), and the search must leave it
``no counterexample found``, never a relation.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.claim_search import OPEN, search_claim
from symdelay.analysis.claims import verify
from symdelay.analysis.decide import decide
from symdelay.core.errors import SymdelayInputError, TranscendentalClaimError
from symdelay.model import load_toml
from symdelay.models import build_model

WORDS = ("equivalent", "necessary", "sufficient", "neither")
DIRS = ("claim_implies_target", "target_implies_claim")


def hypoexp2():
    return build_model("phase_type", delay="hypoexp", rates=[1, 2])


def erlang2():
    return build_model("erlang", L=2)


# ------------------------------------------------------------------ independent checks
def _point(model, rec):
    by_name = {p.name: p for p in model.free_parameters}
    return {by_name[k]: sp.Rational(v) for k, v in rec.items() if k in by_name}


def _rightmost(model, rec) -> float:
    """The largest real part of the Jacobian's eigenvalues at the point (numpy; mpmath at
    50 digits when numpy's is within 1e-8 of 0)."""
    J = model.jacobian.xreplace(_point(model, rec))
    A = np.array(J.evalf(30).tolist(), dtype=float)
    top = float(np.max(np.linalg.eigvals(A).real))
    if abs(top) > 1e-8 * max(1.0, float(np.abs(A).max())):
        return top
    with mpmath.workdps(50):
        M = mpmath.matrix(
            [[mpmath.mpf(sp.Rational(x).p) / sp.Rational(x).q for x in row] for row in J.tolist()]
        )
        ev, _ = mpmath.eig(M)
        return float(max(mpmath.re(e) for e in ev))


def _truth(model, text, rec) -> bool:
    """The claim at the point, by mpmath at 50 digits (SymPy's parse of the text, with the
    model's names; ``D = L/gamma`` for the founding model)."""
    names = {p.name: p for p in model.free_parameters}
    if "gamma" in names and "D" not in names and hasattr(model, "L"):
        names["D"] = sp.Integer(model.L) / names["gamma"]
    expr = sp.parse_expr(text.replace("^", "**"), local_dict=names, evaluate=False)
    pt = _point(model, rec)
    with mpmath.workdps(50):
        f = sp.lambdify(list(pt), expr, "mpmath")
        return bool(f(*[mpmath.mpf(v.p) / v.q for v in pt.values()]))


def _check_counterexamples(model, claim, res, assume=()):
    for d in DIRS:
        pt = res.counterexamples["stability"][d]
        if res.directions["stability"][d] == "refuted":
            assert pt is not None
            top = _rightmost(model, pt)
            holds = _truth(model, claim, pt)
            if d == "claim_implies_target":
                assert holds and top > 0, (claim, pt, top)
            else:
                assert not holds and top < 0, (claim, pt, top)
            for a in assume:
                assert _truth(model, a, pt), (a, pt)
        else:
            assert res.directions["stability"][d] == OPEN and pt is None


def _labelled(res):
    assert res.methods["stability"] == dict.fromkeys(DIRS, "search")
    assert res.fallback and "cannot decide" in res.fallback and "search" in res.fallback
    decided = res.proven["stability"]
    assert decided == all(res.directions["stability"][d] == "refuted" for d in DIRS)
    if decided:
        assert res.relation_to_stability == "neither"
    else:
        assert res.relation_to_stability not in WORDS
        assert OPEN in res.relation_to_stability


# ------------------------------------------------------------------ the decision procedure
def test_decide_still_refuses_with_the_precise_error():
    for claim, name in (
        ("exp(lam) < 4", "exp"),
        ("lam*theta < pi*mu", "pi"),
        ("log(mu) > 0", "log"),
    ):
        with pytest.raises(TranscendentalClaimError, match="cannot decide") as exc:
            decide(hypoexp2(), claim)
        assert exc.value.function == name and "\n" not in str(exc.value)
        assert isinstance(exc.value, SymdelayInputError)


# ------------------------------------------------------------------ refuted
def test_false_claim_on_a_sliver_refuted_exactly():
    """At L = 2 stability is 0 <= lam*theta < 2 (mu + gamma)^2 / gamma (theta >= 0; the
    founding engine proves that bound equivalent): a bound 0.1% larger is necessary but not
    sufficient, and fails only on a sliver along the boundary (the bisection finds it)."""
    m = erlang2()
    claim = "lam*theta < 2*(mu+gamma)**2/gamma*exp(1/1000)"
    res = search_claim(m, claim, assume=("theta >= 0",))
    assert res.directions["stability"] == {
        "claim_implies_target": "refuted",
        "target_implies_claim": OPEN,
    }
    assert res.relation_to_stability == "not sufficient; necessity: no counterexample found"
    _labelled(res)
    _check_counterexamples(m, claim, res, ("theta >= 0",))
    s = res.search
    assert s["points"] > s["boundary_points"] > 0 and s["skipped"] == 0
    assert set(s["ranges"]) == {"lam", "theta", "mu", "gamma"}


@pytest.mark.parametrize(
    "claim",
    ["exp(lam) < 4", "sin(mu) < lam", "cos(theta) > 1/2", "log(lam) < mu", "lam*theta*pi < mu"],
)
def test_transcendental_claims_generic_model(claim):
    m = hypoexp2()
    res = verify(m, claim)
    _labelled(res)
    _check_counterexamples(m, claim, res, ("theta >= 0",))
    assert res.directions["stability"]["target_implies_claim"] == "refuted"


# ------------------------------------------------------------------ true: never a relation
def test_true_claim_no_counterexample_never_a_relation():
    """``lam*theta < mu*exp(-1)`` implies stability, by hand: the difference mode of a
    phase-type delay is ``r + mu + lam*theta*phi(r) = 0`` (hypoexponential: ``phi(r) =
    prod_i a_i/(r + a_i)``; Erlang(L): ``(gamma/(r+gamma))^L``), and ``|phi(r)| <= 1`` for
    ``Re r >= 0``; with ``0 <= k = lam*theta < mu/e < mu``, ``|r + mu| >= mu > k >= |k
    phi(r)|`` there, so no root has ``Re r >= 0`` (the sum mode is stable anyway). The
    search must find nothing and give no relation; the converse fails (k just below k_c)."""
    for m in (hypoexp2(), erlang2()):
        claim = "lam*theta < mu*exp(-1)"
        res = search_claim(m, claim, assume=("theta >= 0",))
        assert res.directions["stability"]["claim_implies_target"] == OPEN
        assert res.directions["stability"]["target_implies_claim"] == "refuted"
        assert not res.proven["stability"]
        assert res.relation_to_stability == "not necessary; sufficiency: no counterexample found"
        _labelled(res)
        _check_counterexamples(m, claim, res, ("theta >= 0",))
        assert "not decided" in res.explanation and "not proven" in res.explanation


def test_undecidable_sign_points_are_skipped():
    """``sin(pi*lam) == 0`` holds exactly at integer lam, where no interval excludes 0: those
    points are skipped (counted), never a counterexample; elsewhere it is false."""
    m = hypoexp2()
    res = verify(m, "sin(pi*lam) == 0")
    _labelled(res)
    assert res.search["skipped"] > 0
    assert res.directions["stability"]["claim_implies_target"] == OPEN
    pt = res.counterexamples["stability"]["target_implies_claim"]
    assert pt is not None and sp.Rational(pt["lam"]).q > 1
    assert _rightmost(m, pt) < 0


# ------------------------------------------------------------------ assumptions
def test_assumptions_respected_and_may_be_transcendental():
    m = hypoexp2()
    assume = ("lam < 1", "mu > exp(1)")
    res = verify(m, "exp(lam) < 2", assume=assume)
    _labelled(res)
    assert res.assume == (*assume, "theta >= 0")
    _check_counterexamples(m, "exp(lam) < 2", res, (*assume, "theta >= 0"))
    hi = res.search["ranges"]["lam"][1]
    assert float(hi) < 1 and float(res.search["ranges"]["mu"][0]) > 2.7
    assert res.search["outside_assumptions"] > 0
    # a polynomial claim under a transcendental assumption: searched too
    res = verify(m, "lam*theta < mu", assume=("mu < exp(1)",))
    _labelled(res)
    assert "cannot decide E (exp(1))" in res.fallback
    _check_counterexamples(m, "lam*theta < mu", res, ("mu < exp(1)", "theta >= 0"))


# ------------------------------------------------------------------ founding model
@pytest.mark.parametrize("L", [2, "inf"])
def test_founding_engine_labels_the_fallback(L):
    res = verify(build_model("erlang", L=L), "exp(lam) < 4")
    assert "cannot decide exp" in res.fallback
    for t in ("stability", "oscillation"):
        assert res.methods[t] == dict.fromkeys(DIRS, "search")
        assert res.directions[t] == dict.fromkeys(DIRS, "refuted")
    assert res.explanation.startswith(res.fallback)
    if L == 2:
        _check_counterexamples(build_model("erlang", L=2), "exp(lam) < 4", res)


def test_founding_engine_exact_paths_unchanged():
    res = verify(build_model("erlang", L=2), "lam*theta < 2*(mu+gamma)**2/gamma")
    assert res.relation_to_stability == "equivalent" and res.fallback is None


def test_founding_with_assumptions_uses_the_search():
    m = erlang2()
    res = verify(m, "lam*theta < mu*exp(-1)", assume=("mu < gamma",))
    _labelled(res)
    assert res.L == 2 and res.directions["stability"]["claim_implies_target"] == OPEN
    pt = res.counterexamples["stability"]["target_implies_claim"]
    assert sp.Rational(pt["gamma"]) * sp.Rational(pt["D"]) == 2
    _check_counterexamples(m, "lam*theta < mu*exp(-1)", res, ("mu < gamma",))


# ------------------------------------------------------------------ model file, record
def test_model_file():
    m = load_toml("examples/models/inflight_erlang1.toml")
    res = verify(m, "exp(kappa) < 2")
    _labelled(res)
    _check_counterexamples(m, "exp(kappa) < 2", res, ("theta >= 0",))
    # stable with kappa >= log 2 somewhere (e.g. lam*theta small)
    assert res.directions["stability"]["target_implies_claim"] == "refuted"
    assert set(res.search["ranges"]) == {"mu", "lam", "theta", "gamma", "kappa"}


def test_record_and_points_argument():
    m = hypoexp2()
    res = search_claim(m, "lam*theta < mu*exp(-1)", assume=("theta >= 0",), points=50)
    rec = json.loads(json.dumps(res.to_json()))
    assert rec["method"] == {"stability": dict.fromkeys(DIRS, "search")}
    assert rec["fallback"] and rec["search"]["random_points"] <= 50
    for key in ("points", "boundary_points", "skipped", "ranges", "structure", "seed"):
        assert key in rec["search"]
    again = search_claim(m, "lam*theta < mu*exp(-1)", assume=("theta >= 0",), points=50)
    assert again.counterexamples == res.counterexamples  # deterministic (the seed)
    with pytest.raises(SymdelayInputError, match="points"):
        search_claim(m, "exp(lam) < 4", points=1)


# ------------------------------------------------------------------ the command line
def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "symdelay", *args], capture_output=True, text=True, timeout=300
    )


def test_cli_json_search_refuting_both_ways_exit_0():
    proc = _cli(
        "verify",
        "--model",
        "phase_type",
        "--delay",
        "hypoexp",
        "--rates",
        "1,2",
        "--claim",
        "sin(mu) < lam",
        "--json",
    )
    # both directions refuted by exact, re-checked points: proven, though found by search
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(proc.stdout)
    assert rec["method"] == {"stability": dict.fromkeys(DIRS, "search")}
    assert rec["relation_to_stability"] == "neither" and "cannot decide sin" in rec["fallback"]
    assert not proc.stderr


def test_cli_text_model_file_exit_3():
    proc = _cli(
        "verify",
        "--model-file",
        "examples/models/inflight_erlang1.toml",
        "--claim",
        "lam*theta < mu*exp(-1)",
    )
    assert proc.returncode == 3  # an answer from a search, not a proof
    assert "claim => stable: no counterexample found (search: not proven)" in proc.stdout
    assert "searched: " in proc.stdout and "cannot decide exp" in proc.stdout
    assert proc.stderr.count("\n") == 1 and "cannot decide exp" in proc.stderr
    assert "answer from a search, not a proof" in proc.stderr


def test_cli_founding_search_and_exact_claim_exit_0():
    # exp(lam) < 4 is refuted both ways by exact points: proven, with its fallback noted
    proc = _cli("verify", "--L", "inf", "--claim", "exp(lam) < 4", "--json")
    rec = json.loads(proc.stdout)
    assert rec["fallback"] and proc.returncode == (0 if all(rec["proven"].values()) else 3)
    assert proc.stderr.count("\n") == (0 if proc.returncode == 0 else 1)
    proc = _cli("verify", "--L", "2", "--claim", "lam*theta < mu", "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["fallback"] is None


def test_claim_truth_exact_where_rational_interval_elsewhere():
    from symdelay.analysis.counterexample import claim_truth

    mu, gamma, lam = sp.symbols("mu gamma lam")
    third = sp.Rational(1, 3)
    # rational relations are decided exactly, also at equality (no interval straddles 0)
    assert claim_truth(sp.StrictLessThan(mu, gamma), {"mu": third, "gamma": third}) is False
    assert claim_truth(sp.LessThan(mu, gamma), {"mu": third, "gamma": third}) is True
    assert claim_truth(sp.Eq(1 / (mu - gamma), 1), {"mu": third, "gamma": third}) is False
    # transcendental: interval arithmetic, None where no precision separates the sides
    e = sp.Eq(sp.sin(sp.pi * lam), 0, evaluate=False)
    assert claim_truth(e, {"lam": sp.Integer(2)}) is None
    assert claim_truth(e, {"lam": sp.Rational(1, 2)}) is False
    close = sp.StrictLessThan(sp.exp(lam), sp.Rational(271828182845904523536, 10**20))
    with mpmath.workdps(50):  # e - rhs = 2.87e-22 > 0: the claim is false at lam = 1
        assert mpmath.e > mpmath.mpf(271828182845904523536) / 10**20
    assert claim_truth(close, {"lam": sp.Integer(1)}) is False
    assert claim_truth(sp.log(mu) > 0, {"mu": -third}) is False  # undefined: false
