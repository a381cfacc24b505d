"""Oscillation claims of the founding model decided exactly: the oscillation set
``lam*theta > k_o(mu, gamma)`` (closed form) as a formula for the decision procedure, each
counterexample re-checked by exact real-root isolation, every verdict confirmed here by a
dense numpy scan of the rightmost characteristic root (oscillating = non-real)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

from symdelay import build_model
from symdelay.analysis.claims import verify


def _rightmost_nonreal(L, m, g, k):
    # (r + mu)(r + gamma)^L + k gamma^L
    p = np.polymul([1.0, m], np.poly1d([1.0, g]) ** L)
    p = np.array(p, dtype=float)
    p[-1] += k * g**L
    roots = np.roots(p)
    # the roots with the largest real part (a double real root comes out as a close pair)
    tops = roots[roots.real > roots.real.max() - 1e-6]
    real = np.abs(tops.imag) < 1e-6
    if real.all():
        return False
    if not real.any():
        return True
    return None  # a real root level with a pair: a tie, left out of the scan


def _scan(L, n=3000, seed=7):
    rng = np.random.default_rng(seed)
    m = 10 ** rng.uniform(-2, 2, n)
    g = m * 10 ** rng.uniform(-2, 2, n)
    k = m * 10 ** rng.uniform(-3, 3, n)
    return m, g, k


CASES = [
    # (L, claim, assume, relation to oscillation)
    (2, "lam*theta > 1 and gamma < mu", (), "sufficient"),
    (2, "lam*theta > 0 and gamma <= mu", (), "sufficient"),
    (2, "27*lam*theta*gamma**2 > 4*(gamma - mu)**3 and lam*theta > 0", (), "equivalent"),
    (3, "lam*theta > 1 and gamma < mu", (), "sufficient"),
    (3, "lam*theta > 2*gamma", (), "sufficient"),
    (1, "4*gamma*lam*theta > (gamma - mu)**2", (), "equivalent"),
    (1, "lam*theta > (gamma + mu)**2/gamma", (), "sufficient"),
    (1, "lam*theta > gamma", (), "neither"),
    (2, "lam*theta > 1", ("gamma < mu",), "sufficient"),
    (2, "lam*theta > 0", ("gamma < mu",), "equivalent"),
    (2, "lam*theta < mu", ("gamma < mu",), "neither"),
]


@pytest.mark.parametrize(("L", "claim", "assume", "relation"), CASES)
def test_oscillation_decided_and_confirmed_by_the_scan(L, claim, assume, relation):
    v = verify(build_model("erlang", L=L), claim, assume=assume)
    assert v.proven["oscillation"], v.relation_to_oscillation
    assert v.relation_to_oscillation == relation, v.explanation
    methods = set(v.methods["oscillation"].values())
    assert methods <= {"decision procedure", "exact class", "search"}
    # a "proven" direction is never the search's
    for d, status in v.directions["oscillation"].items():
        if status == "proven":
            assert v.methods["oscillation"][d] in ("decision procedure", "exact class")
    m, g, k = _scan(L)
    env = {"mu": m, "gamma": g, "lam": np.ones_like(k), "theta": k, "np": np}
    holds = eval(claim.replace("and", "&"), {}, env) if "and" not in claim else None
    if holds is None:
        left, right = claim.split(" and ")
        holds = eval(left, {}, env) & eval(right, {}, env)
    keep = np.ones_like(k, dtype=bool)
    for a in assume:
        keep &= eval(a, {}, env)
    osc = [_rightmost_nonreal(L, *x) for x in zip(m, g, k, strict=True)]
    pts = [(h, o) for h, o, kp in zip(holds, osc, keep, strict=True) if kp and o is not None]
    suff_viol = sum(1 for h, o in pts if h and not o)
    nec_viol = sum(1 for h, o in pts if o and not h)
    suff, nec = relation in ("equivalent", "sufficient"), relation in ("equivalent", "necessary")
    # a proven direction: no point of the scan against it; a refuted one: its exact
    # counterexample re-checked by numpy too
    ces = v.counterexamples["oscillation"]
    for d, proven_dir, viol in (
        ("claim_implies_target", suff, suff_viol),
        ("target_implies_claim", nec, nec_viol),
    ):
        if proven_dir:
            assert viol == 0, (claim, d, viol)
        else:
            ce = {s: float(sp.Rational(x)) for s, x in ces[d].items()}
            o = _rightmost_nonreal(L, ce["mu"], ce["gamma"], ce["lam"] * ce["theta"])
            assert o is (d == "target_implies_claim"), (claim, d, ce)
    assert sum(1 for h, _ in pts if h) >= 50


def test_a_conjunction_is_proven_where_the_search_could_not():
    """``lam*theta > 1 and gamma < mu`` is not one bound on lam*theta: the exact class of
    the founding engine does not apply; the decision procedure proves it."""
    v = verify(build_model("erlang", L=2), "lam*theta > 1 and gamma < mu")
    assert v.directions["oscillation"]["claim_implies_target"] == "proven"
    assert v.methods["oscillation"]["claim_implies_target"] == "decision procedure"
    assert v.formulas["oscillation"]["claim_implies_target"]
    ce = v.counterexamples["oscillation"]["target_implies_claim"]
    mu_, g_, k_ = (sp.Rational(ce[s]) for s in ("mu", "gamma", "lam"))
    k_ *= sp.Rational(ce["theta"])
    assert _rightmost_nonreal(2, float(mu_), float(g_), float(k_)) is True
    assert not (k_ > 1 and g_ < mu_)


def test_oscillation_under_assumptions_is_decided():
    v = verify(build_model("erlang", L=3), "lam*theta > 0", assume=["gamma < mu"])
    assert v.relation_to_oscillation == "equivalent"
    assert v.directions["oscillation"] == {
        "claim_implies_target": "proven",
        "target_implies_claim": "proven",
    }
    assert "whole domain only" not in v.explanation
