"""``verify`` on a catalogue of claims with known answers, L = 1..5 and L = inf.

Every counterexample is re-checked here by a path that ``verify`` does not use: numpy
eigenvalues of the (L+1)x(L+1) difference Jacobian (finite L) and the Lambert-W formula
for the rightmost root (L = inf), in floating point with a margin (counterexamples must
be strictly inside the regions). The expected verdicts are facts about the model, each
with its reason in the catalogue.
"""

from __future__ import annotations

import json
import subprocess
import sys

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.core.parsing import parse_relational
from symdelay.core.symbols import D, gamma, lam, mu, theta
from symdelay.models.erlang.claims import verify  # the founding convenience verify(L, claim)
from symdelay.models.erlang.stability import stability_conditions

MARGIN = 1e-9


def _kc(L) -> str:
    return str(stability_conditions(L).closed_forms["critical_lam_theta"])


# (L, claim, stability relation, oscillation relation, reason)
CATALOGUE = [
    # not homogeneous in the rates: the old sampler called these "sufficient" (tracker #13)
    (3, "lam*theta < 1", "neither", "neither", "unstable at mu = 1/100, D = 300"),
    (3, "theta < 1", "neither", "neither", "lam large makes lam*theta large"),
    (3, "lam*theta > mu", "neither", "neither", "D = 0.15: rightmost root real"),
    (2, "lam*theta < 1", "neither", "neither", "small mu"),
    (5, "theta < 1", "neither", "neither", "lam large"),
    ("inf", "lam*theta < 1", "neither", "neither", "small mu, long delay"),
    ("inf", "theta < 1", "neither", "neither", "lam large"),
    (4, "lam*theta*D > 1", "neither", "sufficient", "k_o < 256 gamma/3125 < gamma/4"),
    # homogeneous single bounds, decided exactly
    (1, "4*gamma*lam*theta > (mu-gamma)**2", "sufficient", "equivalent", "paper, L = 1"),
    (1, "lam*theta < mu", "sufficient", "neither", "L = 1 is always stable"),
    (1, "lam*theta < 1", "sufficient", "neither", "L = 1 is always stable"),
    (4, "theta < 1", "neither", "neither", "lam large"),
    (2, "lam*theta < mu", "sufficient", "neither", "k_c >= 8 mu"),
    (3, "lam*theta < mu", "sufficient", "neither", "k_c > mu"),
    (4, "lam*theta < mu", "sufficient", "neither", "k_c > mu"),
    (5, "lam*theta < mu", "sufficient", "neither", "k_c > mu"),
    (12, "lam*theta < mu", "sufficient", "neither", "min k_c = mu/cos(pi/13)^13 > mu"),
    (2, "lam*theta*D < 2", "sufficient", "neither", "k_c = 2(mu+gamma)^2/gamma > gamma"),
    (3, "lam*theta*D < 5", "neither", "neither", "crosses k_c"),
    (2, f"lam*theta < {_kc(2)}", "equivalent", "neither", "the Hopf boundary"),
    (3, f"lam*theta < {_kc(3)}", "equivalent", "neither", "the Hopf boundary"),
    (4, f"lam*theta < {_kc(4)}", "equivalent", "neither", "the Hopf boundary"),
    (5, f"lam*theta < {_kc(5)}", "equivalent", "neither", "the Hopf boundary"),
    (2, f"lam*theta <= {_kc(2)}", "necessary", "neither", "boundary points are not stable"),
    ("inf", "lam*theta < mu", "sufficient", "neither", "|k| <= mu is stable for every D"),
    ("inf", "lam*theta*D < 1", "sufficient", "neither", "k D < pi/2 is stable; certified"),
    ("inf", "lam*theta < 2/D + mu", "necessary", "neither", "k_c < mu + 2/D; certified"),
    ("inf", "lam*theta*D < 2", "neither", "neither", "2 > pi/2: unstable for small mu D"),
    ("inf", "lam*theta*D > 1", "neither", "sufficient", "k_o = e^{-1-mu D}/D < 1/D"),
    ("inf", "lam*theta*D > 1/3", "neither", "neither", "1/3 < 1/e"),
    (2, "lam*theta*D < 3", "sufficient", "neither", "2(mu+gamma)^2/gamma > 3 gamma/2"),
    (3, "lam*theta < 8*mu", "neither", "neither", "k_c = 4 mu at gamma = mu"),
    (2, "sqrt(mu*gamma) > lam*theta", "sufficient", "neither", "a square root, exactly"),
    (2, "mu > 0", "necessary", "necessary", "holds everywhere"),
    (3, "lam*theta < 1/(mu-1)", "neither", "neither", "undefined at mu = 1"),
]


def _rationals(pt: dict) -> dict:
    return {k: sp.Rational(v) for k, v in pt.items()}


def _float_roots(L, p):
    m, k = float(p["mu"]), float(p["lam"] * p["theta"])
    if L == "inf":
        d = float(p["D"])
        with mpmath.workdps(30):
            z = mpmath.lambertw(-k * d * mpmath.exp(m * d), 0)
            r0 = complex(-m + z / d)
        return [r0]  # W_0 is the rightmost root
    g = float(p["gamma"])
    n = L + 1
    J = np.zeros((n, n))
    J[0, 0], J[0, L], J[1, 0] = -m, g, -k
    for i in range(1, n):
        J[i, i] = -g
        if i >= 2:
            J[i, i - 1] = g
    return list(np.linalg.eigvals(J))


def _stable(L, p) -> bool:
    top = max(z.real for z in _float_roots(L, p))
    assert abs(top) > MARGIN, f"on the stability boundary: {p}"
    return top < 0


def _oscillating(L, p) -> bool:
    roots = _float_roots(L, p)
    if L == "inf":
        return abs(roots[0].imag) > MARGIN
    scale = max(abs(z) for z in roots)
    complex_re = [z.real for z in roots if abs(z.imag) > 1e-7 * scale]
    real_re = [z.real for z in roots if abs(z.imag) <= 1e-7 * scale]
    if not complex_re:
        return False
    if not real_re:
        return True
    gap = max(complex_re) - max(real_re)
    assert abs(gap) > 1e-7 * scale, f"a tie between real and complex roots: {p}"
    return gap > 0


def _claim(L, claim, p) -> bool:
    cond = parse_relational(claim, variables=())
    vals = {mu: p["mu"], lam: p["lam"], theta: p["theta"], D: p["D"]}
    if L != "inf":
        vals[gamma] = p["gamma"]
        assert p["gamma"] * p["D"] == L
    try:
        return bool(cond.subs(vals))
    except TypeError:  # a relation undefined at the point (1/0) is false: the claim language
        return False


def _check_point(L, claim, target, direction, pt, on_boundary_ok=False):
    p = _rationals(pt)
    assert p["mu"] > 0 and p["lam"] > 0 and p["D"] > 0 and p["theta"] >= 0
    for v in pt.values():  # simple: short rationals
        assert len(v) <= 24, pt
    holds = _claim(L, claim, p)
    if target == "stability" and on_boundary_ok:
        assert holds and direction == "claim_implies_target"
        return
    t = _stable(L, p) if target == "stability" else _oscillating(L, p)
    if direction == "claim_implies_target":
        assert holds and not t, (claim, target, pt)
    else:
        assert t and not holds, (claim, target, pt)


@pytest.mark.parametrize(("L", "claim", "stab", "osc", "why"), CATALOGUE)
def test_catalogue(L, claim, stab, osc, why):
    res = verify(L, claim)
    assert (res.relation_to_stability, res.relation_to_oscillation) == (stab, osc), why
    assert res.proven == {"stability": True, "oscillation": True}
    boundary = claim.startswith("lam*theta <=")
    for target, rel in (("stability", stab), ("oscillation", osc)):
        dirs = res.directions[target]
        for direction, holds_if in (
            ("claim_implies_target", ("sufficient", "equivalent")),
            ("target_implies_claim", ("necessary", "equivalent")),
        ):
            pt = res.counterexamples[target][direction]
            if rel in holds_if:
                assert dirs[direction] == "proven" and pt is None
            else:
                assert dirs[direction] == "refuted" and pt is not None
                _check_point(L, claim, target, direction, pt, on_boundary_ok=boundary)


def test_the_three_claims_of_the_issue_are_refuted_where_the_issue_says():
    """The points of tracker #13 are counterexamples by the independent float path too."""
    pts = [
        (3, "lam*theta < 1", "stability", dict(mu="1/100", lam="1", theta="1/2", D="300")),
        (3, "theta < 1", "stability", dict(mu="1", lam="100", theta="1/2", D="3")),
        (3, "lam*theta > mu", "oscillation", dict(mu="1", lam="1", theta="3/2", D="3/20")),
    ]
    for L, claim, target, pt in pts:
        pt["gamma"] = str(L / sp.Rational(pt["D"]))
        _check_point(L, claim, target, "claim_implies_target", pt)
        rel = getattr(verify(L, claim), f"relation_to_{target}")
        assert rel == "neither"


def test_unproven_is_never_called_sufficient():
    """A conjunction has no exact route; the search finds no counterexample to sufficiency
    (k D < 1 is sufficient at L = inf, see the catalogue), so it says just that."""
    res = verify("inf", "lam*theta*D < 1 and lam < 5")
    assert res.proven["stability"] is False
    assert res.directions["stability"] == {
        "claim_implies_target": "no counterexample found",
        "target_implies_claim": "refuted",
    }
    rel = res.relation_to_stability
    assert rel.startswith("not necessary") and "no counterexample found" in rel
    assert rel not in ("sufficient", "equivalent")
    assert res.search["points"] > 20000 and res.search["line_points"] > 0
    assert set(res.search["ranges"]) == {"lam", "theta", "mu", "D"}
    assert "no counterexample found" in res.explanation and "not proven" in res.explanation


def test_oscillation_boundary_written_with_abs_is_proven_by_the_decision_procedure():
    """k > 4 max(0, gamma-mu)^3/(27 gamma^2) is the L = 2 oscillation set; written with Abs it
    is outside the exact class and the search finds nothing either way; the decision
    procedure (Abs as an auxiliary variable, the oscillation set from k_o) proves both."""
    claim = "lam*theta > 4*((gamma-mu+Abs(gamma-mu))/2)**3/(27*gamma**2)"
    res = verify(2, claim)
    assert res.directions["oscillation"] == {
        "claim_implies_target": "proven",
        "target_implies_claim": "proven",
    }
    assert set(res.methods["oscillation"].values()) == {"decision procedure"}
    assert res.relation_to_oscillation == "equivalent"
    assert res.relation_to_stability == "neither" and res.proven["stability"]


def test_conjunction_is_decided():
    """k D > 1 and mu < 2 implies k > gamma/4 > k_o (oscillation); a conjunction is
    outside the exact class: the decision procedure proves sufficiency, and necessity is
    refuted by a point re-checked here."""
    res = verify(4, "lam*theta*D > 1 and mu < 2")
    assert res.relation_to_stability == "neither" and res.proven["stability"]
    assert res.relation_to_oscillation == "sufficient"
    assert res.methods["oscillation"]["claim_implies_target"] == "decision procedure"
    pt = res.counterexamples["oscillation"]["target_implies_claim"]
    _check_point(4, "lam*theta*D > 1 and mu < 2", "oscillation", "target_implies_claim", pt)


def test_theta_real_keeps_the_exact_necessity():
    res = verify(2, f"lam*theta < {_kc(2)}", theta_real=True)
    assert res.relation_to_stability == "necessary" and res.proven["stability"]
    ce = _rationals(res.counterexample)
    assert ce["theta"] < 0 and ce["lam"] * ce["theta"] <= -ce["mu"]


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "symdelay", "verify", *args], capture_output=True, text=True
    )


def test_cli_text_shows_both_counterexamples_each_way():
    proc = _cli("--L", "3", "--claim", "lam*theta > mu")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for words in (
        "relation to stability: neither",
        "relation to oscillation: neither",
        "claim holds but unstable: lam=",
        "stable but claim fails: lam=",
        "claim holds but not oscillating: lam=",
        "oscillating but claim fails: lam=",
    ):
        assert words in out, out
    # every direction refuted by an exact point: the search that found them is no evidence
    assert "searched" not in out and "sufficient" not in out


def test_cli_json_keeps_the_old_keys_and_adds_new_ones():
    proc = _cli("--L", "inf", "--claim", "lam*theta < mu", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    old = {
        "L",
        "claim",
        "theta_real",
        "relation_to_stability",
        "relation_to_oscillation",
        "counterexample",
        "oscillation_counterexample",
        "proven",
        "explanation",
    }
    assert old <= set(data) and {"directions", "counterexamples", "search"} <= set(data)
    assert data["L"] == "inf" and data["relation_to_stability"] == "sufficient"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--L", "inf", "--claim", "gamma < 1"], "gamma = L/D is not defined for L = inf"),
        (["--L", "1000", "--claim", "mu < 1"], "verify supports L <= 64 or inf"),
        (["--L", "0", "--claim", "mu < 1"], "L must be an integer >= 1"),
    ],
)
def test_cli_bad_input_one_line_exit_2(args, words):
    proc = _cli(*args)
    assert proc.returncode == 2
    assert words in proc.stderr and proc.stderr.count("\n") == 1
