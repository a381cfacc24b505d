"""``verify``: one record whatever the path, one reading of a claim for every model, and
every refutation carries an exact counterexample, also on a sliver along the boundary.

Independent checks, not used by ``verify``: the rightmost root of the founding model's
difference mode ``(r + mu)(r + gamma)^L + lam*theta gamma^L`` by mpmath's ``polyroots`` at
60 digits (``verify`` counts roots exactly by Cauchy indices and re-checks by Routh's
scheme), the rightmost eigenvalue of another model's Jacobian by mpmath's ``eig`` at 60
digits, the claim in exact rationals (Python's ``Fraction``). The near-threshold bounds are
the minimum of the Hopf bound over ``gamma/mu`` (at ``gamma = mu``, the worst delay):
``lam*theta/mu = 1/cos(pi/(L+1))^(L+1)`` (``L = 4``: ``80 sqrt(5) - 176``).
"""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from symdelay.analysis.claims import verify
from symdelay.model import load_toml
from symdelay.models import build_model

DIRS = ("claim_implies_target", "target_implies_claim")


# ------------------------------------------------------------------ independent checks
def _kmin(L) -> mpmath.mpf:
    with mpmath.workdps(60):
        return 1 / mpmath.cos(mpmath.pi / (L + 1)) ** (L + 1)


def _founding_rightmost(L, pt) -> mpmath.mpf:
    """max Re of the roots of (r + mu)(r + gamma)^L + lam*theta gamma^L, mpmath, 60 digits."""
    m, g = (Fraction(pt[k]) for k in ("mu", "gamma"))
    k = Fraction(pt["lam"]) * Fraction(pt["theta"])
    r = sp.Symbol("r")
    poly = sp.Poly(
        (r + sp.Rational(m)) * (r + sp.Rational(g)) ** L + sp.Rational(k * g**L), r
    ).all_coeffs()
    with mpmath.workdps(60):
        roots = mpmath.polyroots(
            [mpmath.mpf(int(c.p)) / int(c.q) for c in poly], maxsteps=400, extraprec=200
        )
        return max(mpmath.re(z) for z in roots)


def _model_rightmost(model, pt) -> mpmath.mpf:
    """max Re of the eigenvalues of the model's Jacobian at the point, mpmath, 60 digits."""
    point = {p: sp.Rational(pt[p.name]) for p in model.free_parameters}
    J = model.jacobian.xreplace(point)
    with mpmath.workdps(60):
        M = mpmath.matrix(
            [[mpmath.mpf(sp.Rational(x).p) / sp.Rational(x).q for x in row] for row in J.tolist()]
        )
        ev = mpmath.eig(M, left=False, right=False)
        return max(mpmath.re(e) for e in ev)


def _bound_holds(pt, c: Fraction, strict=True) -> bool:
    k, m = Fraction(pt["lam"]) * Fraction(pt["theta"]), Fraction(pt["mu"])
    return k < c * m if strict else k <= c * m


def _digits(x: mpmath.mpf, up: bool) -> Fraction:
    """A rational 1e-9..2e-9 above (or below) x: ten significant digits."""
    with mpmath.workdps(60):
        n = int(mpmath.floor(x * 10**9)) + 2 if up else int(mpmath.ceil(x * 10**9)) - 2
    return Fraction(n, 10**9)


# ------------------------------------------------------------------ near-threshold claims
@pytest.mark.parametrize("L", [2, 3, 4, 5, 6])
def test_near_threshold_refutation_carries_its_counterexample(L):
    """``lam*theta < c*mu`` with ``c`` the minimum of the Hopf bound rounded up at 10
    digits: claim => stable fails only on a sliver of width ~1e-10 at gamma = mu; the
    counterexample is exact, and mpmath finds a root right of the axis there."""
    kmin = _kmin(L)
    c = _digits(kmin, up=True)
    cf = mpmath.mpf(c.numerator) / c.denominator
    assert kmin < cf < kmin * (1 + mpmath.mpf("1e-9"))
    res = verify(build_model("erlang", L=L), f"lam*theta < {c.numerator}/{c.denominator}*mu")
    assert res.directions["stability"] == dict.fromkeys(DIRS, "refuted")
    assert res.relation_to_stability == "neither"
    pt = res.counterexamples["stability"]["claim_implies_target"]
    assert pt is not None and all(len(v) <= 24 for v in pt.values()), pt
    assert _bound_holds(pt, c) and Fraction(pt["D"]) * Fraction(pt["gamma"]) == L
    assert _founding_rightmost(L, pt) > 0
    other = res.counterexamples["stability"]["target_implies_claim"]
    assert not _bound_holds(other, c) and _founding_rightmost(L, other) < 0


def test_issue_example_L4():
    """The issue's claim (threshold 80 sqrt(5) - 176 = 2.88543819998...)."""
    res = verify(build_model("erlang", L=4), "lam*theta < 2.8854382*mu")
    pt = res.counterexamples["stability"]["claim_implies_target"]
    assert res.directions["stability"]["claim_implies_target"] == "refuted" and pt
    assert _bound_holds(pt, Fraction("2.8854382")) and _founding_rightmost(4, pt) > 0
    with mpmath.workdps(40):
        k = Fraction(pt["lam"]) * Fraction(pt["theta"]) / Fraction(pt["mu"])
        assert 80 * mpmath.sqrt(5) - 176 < mpmath.mpf(k.numerator) / k.denominator


@pytest.mark.parametrize("L", [2, 3, 4])
def test_near_threshold_stable_implies_claim_on_the_line_gamma_eq_mu(L):
    """``lam*theta < c*mu or gamma != mu`` with ``c`` the minimum rounded down: stable =>
    claim fails only for gamma = mu and c mu <= lam*theta < k_c: a sliver on a line."""
    kmin = _kmin(L)
    c = _digits(kmin, up=False)
    cf = mpmath.mpf(c.numerator) / c.denominator
    assert kmin * (1 - mpmath.mpf("1e-9")) < cf < kmin
    claim = f"lam*theta < {c.numerator}/{c.denominator}*mu or gamma != mu"
    res = verify(build_model("erlang", L=L), claim)
    assert res.directions["stability"]["target_implies_claim"] == "refuted"
    pt = res.counterexamples["stability"]["target_implies_claim"]
    assert pt["gamma"] == pt["mu"] and not _bound_holds(pt, c)
    assert _founding_rightmost(L, pt) < 0


@pytest.mark.parametrize(
    "build",
    [
        lambda: build_model("phase_type", delay="erlang", L=4),
        lambda: build_model("nserver", N=3, L=4),
    ],
    ids=["phase_type", "nserver"],
)
def test_near_threshold_other_models(build):
    """The same sliver on models without the founding specialisation (the decision
    procedure, the one search's lines through its point)."""
    m = build()
    c = _digits(_kmin(4), up=True)
    res = verify(m, f"lam*theta < {c.numerator}/{c.denominator}*mu")
    assert res.directions["stability"]["claim_implies_target"] == "refuted"
    pt = res.counterexamples["stability"]["claim_implies_target"]
    assert _bound_holds(pt, c) and _model_rightmost(m, pt) > 0


def test_every_refuted_direction_has_its_point():
    """A refuted direction without a counterexample cannot be built (the record refuses)."""
    from symdelay.analysis.claim_result import Outcome
    from symdelay.core.errors import VerificationError

    with pytest.raises(VerificationError, match="without its counterexample"):
        Outcome("refuted", "exact class")


# ------------------------------------------------------------------ one record, two paths
PATH_CLAIMS = [
    (2, "lam*theta < mu"),
    (2, "lam*theta < 1"),
    (2, "lam*theta < 2*(mu+gamma)**2/gamma"),
    (2, "lam*theta <= 2*(mu+gamma)**2/gamma"),
    (3, "lam*theta*D < 5"),
    (3, "lam*theta < mu and lam < 5"),
    (2, "lam*theta*D > 1"),
    (1, "4*gamma*lam*theta > (mu-gamma)**2"),
]


def _shape(rec: dict) -> dict:
    out = {"top": sorted(rec)}
    for key in ("directions", "method", "counterexamples", "formula_smt2", "decision"):
        out[key] = {t: sorted(v) for t, v in rec[key].items()}
    out["decision_inner"] = sorted(
        {k for per in rec["decision"].values() for d in per.values() for k in d}
    )
    out["proven"] = sorted(rec["proven"])
    out["search"] = sorted(rec["search"])
    return out


@pytest.mark.parametrize(("L", "claim"), PATH_CLAIMS)
def test_specialised_and_generic_give_one_record(L, claim):
    m = build_model("erlang", L=L)
    fast = verify(m, claim, method="specialised")
    slow = verify(m, claim, method="generic")
    a, b = json.loads(json.dumps(fast.to_json())), json.loads(json.dumps(slow.to_json()))
    assert _shape(a) == _shape(b)
    assert a["L"] == b["L"] == L and a["claim"] == b["claim"]
    for t in ("stability", "oscillation"):
        for d in DIRS:
            sa, sb = a["directions"][t][d], b["directions"][t][d]
            decided = ("proven", "refuted")
            if sa in decided and sb in decided:
                assert sa == sb, (t, d, a["method"][t][d], b["method"][t][d])
            else:  # one path only searched: its record says so
                assert "refuted" not in (sa, sb) or "proven" not in (sa, sb)
                for s, rec in ((sa, a), (sb, b)):
                    if s == "no counterexample found":
                        assert rec["method"][t][d] == "search"
            for rec in (a, b):
                pt = rec["counterexamples"][t][d]
                assert (pt is not None) == (rec["directions"][t][d] == "refuted")
                if pt is not None and t == "stability":
                    assert set(pt) == {"lam", "theta", "mu", "gamma", "D"}
                    right = _founding_rightmost(L, pt)
                    marginal = abs(right) < mpmath.mpf("1e-40")
                    if d == DIRS[0]:
                        assert right > 0 or marginal  # not asymptotically stable
                    else:
                        assert right < 0 and not marginal


# ------------------------------------------------------------------ one reading
def _models():
    return {
        "founding": build_model("erlang", L=2),
        "toml": load_toml("examples/models/inflight_erlang1.toml"),
        "nserver": build_model("nserver", N=2, L=2),
    }


def _reader(model):
    """The claim as verify reads it on this model (the founding specialisation, or the
    decision procedure's / the search's reading)."""
    from symdelay.analysis.decide import _aliases, _claim_formula

    if getattr(model, "SPECIALISATIONS", {}).get("verify"):
        from symdelay.models.erlang.claims import _parse_claim, _Space

        return lambda text: _parse_claim(_Space(model.L, sp.Symbol("gamma")), text)
    from symdelay.analysis.claim_formula import parse_claim

    names = {**_aliases(model, None), **{p.name: v for p, v in model.values.items()}}
    params = tuple(model.free_parameters)
    _ = _claim_formula
    return lambda text: parse_claim(text, params, names, transcendental=True)


# (claim text, the same as a Python predicate of exact values)
CONSTRUCTS = [
    ("lam*theta < mu", lambda v: v["lam"] * v["theta"] < v["mu"]),
    ("lam*theta < mu and mu > 1", lambda v: v["lam"] * v["theta"] < v["mu"] and v["mu"] > 1),
    ("lam*theta < mu & mu > 1", lambda v: v["lam"] * v["theta"] < v["mu"] and v["mu"] > 1),
    ("lam < 1 or mu < 1", lambda v: v["lam"] < 1 or v["mu"] < 1),
    ("lam < 1 | mu < 1", lambda v: v["lam"] < 1 or v["mu"] < 1),
    ("not lam < 1", lambda v: not v["lam"] < 1),
    ("~(lam < 1)", lambda v: not v["lam"] < 1),
    ("0 < lam < mu", lambda v: 0 < v["lam"] < v["mu"]),
    ("lam^2 < mu", lambda v: v["lam"] ** 2 < v["mu"]),
    ("sqrt(mu*gamma) > lam", lambda v: v["mu"] * v["gamma"] > v["lam"] ** 2),
    ("mu**(1/3) > lam", lambda v: v["mu"] > v["lam"] ** 3),
    ("Abs(mu - gamma) < 1", lambda v: abs(v["mu"] - v["gamma"]) < 1),
    ("lam == mu", lambda v: v["lam"] == v["mu"]),
    ("lam != mu", lambda v: v["lam"] != v["mu"]),
    (
        "lam*theta < (3*mu + 1)/(gamma + 2)",
        lambda v: v["lam"] * v["theta"] < (3 * v["mu"] + 1) / (v["gamma"] + 2),
    ),
    (
        "lam*theta < pi*mu",
        lambda v: v["lam"] * v["theta"] < Fraction(314159265358979, 10**14) * v["mu"],
    ),
    ("lam < E", lambda v: v["lam"] < Fraction(271828182845904, 10**14)),
    ("exp(lam) < 3", lambda v: v["lam"] < Fraction(109861228866811, 10**14)),
    ("log(mu) > 0", lambda v: v["mu"] > 1),
    ("sin(lam) > 0", lambda v: v["lam"] < Fraction(314159265358979, 10**14)),
    ("cos(lam) > 0", lambda v: v["lam"] < Fraction(157079632679489, 10**14)),
    ("tanh(lam) < 1/2", lambda v: v["lam"] < Fraction(549306144334054, 10**15)),
]
_VALUES = [Fraction(x) for x in ("1/3", "1/2", "1", "3/2", "2", "5/2", "3")]


@pytest.mark.parametrize(("text", "truth"), CONSTRUCTS, ids=[c for c, _ in CONSTRUCTS])
def test_one_reading_of_every_construct(text, truth):
    """Every construct the README promises reads the same on the founding model, a TOML
    model and nserver: the same truth at exact points (away from the transcendental
    constants' 14 digits)."""
    import itertools

    from symdelay.analysis.counterexample import ClaimEvaluator

    for name, model in _models().items():
        cf = _reader(model)(text)
        names = [s.name for s in cf.free_symbols]
        ev = ClaimEvaluator(cf, names)
        for lam_, mu_, g_ in itertools.product(_VALUES, _VALUES[:4], _VALUES[2:5]):
            v = {"lam": lam_, "mu": mu_, "gamma": g_, "theta": Fraction(1, 2)}
            assert ev.at({k: v[k] for k in names}) is truth(v), (name, text, v)


@pytest.mark.parametrize(
    "args",
    [
        ["--L", "2"],
        ["--model-file", "examples/models/inflight_erlang1.toml"],
        ["--model", "nserver", "--N", "2", "--L", "2"],
    ],
)
def test_pi_is_read_on_every_model(args):
    """The issue's example: ``pi`` is a constant of the claim language on every model (a
    search, labelled as such: exit 3 when a direction is only searched, one line on
    stderr)."""
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "symdelay",
            "verify",
            *args,
            "--claim",
            "lam*theta < pi*mu",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    rec = json.loads(proc.stdout)
    assert "cannot decide pi" in rec["fallback"]
    assert rec["directions"]["stability"]["target_implies_claim"] == "refuted"
    # exit 3 exactly when a direction is only searched (then one line on stderr says so)
    searched = "no counterexample found" in rec["directions"]["stability"].values()
    assert proc.returncode == (3 if searched else 0), proc.stderr
    assert proc.stderr.count("\n") == (1 if searched else 0)
