"""The exact shortcuts in front of nlsat (symdelay.analysis.decide): a rational upper bound
substituted into a sign certificate, a condition weakened by a positive term, factors
positive on the domain divided out. Each is checked on edge cases where it must *not*
apply (the set touches the boundary) and against z3's nlsat on random formulas: whenever a
shortcut says "impossible", nlsat must not find a point."""

from __future__ import annotations

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from symdelay.analysis.claim_formula import neg, rel
from symdelay.analysis.decide import _impossible_by_signs, _positive_factors_out, _solve

x, y, z = sp.symbols("x y z", real=True)
DOMS = {x: "nonnegative", y: "positive", z: "positive"}


def impossible(nodes, symbols=(x, y, z), doms=DOMS):
    return _impossible_by_signs(list(nodes), list(symbols), None, doms)


def nlsat(nodes, symbols=(x, y, z), doms=DOMS):
    import symdelay.analysis.decide as dec

    real = dec._witness
    try:  # nlsat alone: no sampled witness, no certificate
        dec._witness = lambda *a, **k: None
        return _solve(list(nodes), list(symbols), None, 20_000, (), doms)[0]
    finally:
        dec._witness = real


def domain(symbols=(x, y, z)):
    return [rel(s, ">" if DOMS[s] == "positive" else ">=") for s in symbols]


BOUND = y**2 - x * (1 + y)  # x < y^2/(1 + y)


def test_rational_upper_bound_inside():
    # 0 <= x < y^2/(1 + y) implies 2 y^2 - x (1 + y) > 0 (and y^3 - x (1 + y) y + y > 0)
    hyp = [*domain(), rel(BOUND, ">")]
    assert impossible([*hyp, neg(rel(2 * y**2 - x * (1 + y), ">"))])
    assert impossible([*hyp, neg(rel(y * BOUND + y, ">"))])
    assert nlsat([*hyp, neg(rel(2 * y**2 - x * (1 + y), ">"))]) == "unsat"


def test_rational_upper_bound_closed_end_is_checked():
    # x <= y^2/(1 + y) reaches BOUND = 0: not BOUND > 0 holds there
    nodes = [*domain(), rel(BOUND, ">="), neg(rel(BOUND, ">"))]
    assert not impossible(nodes)
    assert nlsat(nodes) == "sat"
    # ... but BOUND + y > 0 holds on the closed set too
    assert impossible([*domain(), rel(BOUND, ">="), neg(rel(BOUND + y, ">"))])


def test_rational_bound_needs_a_positive_coefficient():
    # x (1 - y) < y^2 bounds x only where y < 1: no substitution; half of it is false
    nodes = [*domain(), rel(y**2 - x * (1 - y), ">"), neg(rel(y**2 - 2 * x * (1 - y), ">"))]
    assert not impossible(nodes)
    assert nlsat(nodes) == "sat"
    # x >= 0 matters: 2 y^2 + x (1 + y) > 0 fails for x very negative
    free = {x: "real", y: "positive", z: "positive"}
    nodes = [rel(y, ">"), rel(BOUND, ">"), neg(rel(2 * y**2 + x * (1 + y), ">"))]
    assert not impossible(nodes, doms=free)
    assert nlsat(nodes, doms=free) == "sat"
    assert impossible([rel(x, ">="), *nodes], doms=free)


def test_a_condition_weakened_by_a_positive_term():
    H = x * y - z**2 + 1
    assert impossible([*domain(), rel(H, ">"), neg(rel(H + y**3, ">"))])
    assert impossible([*domain(), rel(H, ">="), neg(rel(H + y**3, ">"))])  # y^3 > 0 strictly
    assert impossible([*domain(), rel(H, ">"), neg(rel(2 * H + x, ">"))])  # x >= 0, H > 0
    # H >= 0 and 2 H + x <= 0 at H = 0, x = 0: no certificate
    nodes = [*domain(), rel(H, ">="), neg(rel(2 * H + x, ">"))]
    assert not impossible(nodes)
    assert nlsat(nodes) == "sat"
    # a term that is not positive
    nodes = [*domain(), rel(H, ">"), neg(rel(H - y, ">"))]
    assert not impossible(nodes)


def test_positive_factors_are_divided_out():
    key = ((x, y, z), None, tuple(sorted((str(k), v) for k, v in DOMS.items())))
    P = sp.expand((y**2 + x + 1) * (x - y) * z**3)
    assert _positive_factors_out(P, key) == x - y
    assert _positive_factors_out(sp.expand((x - 1) * (x + y)), key) == x - 1  # x + y > 0
    Q = sp.expand((x - 1) * (x - y))  # neither factor is positive: kept
    assert sp.expand(_positive_factors_out(Q, key) - Q) == 0
    # a negative constant keeps its sign: -(y + 1)(x - y) > 0 is y - x > 0
    R = sp.expand(-(y + 1) * (x - y))
    assert _positive_factors_out(R, key) == y - x
    # x >= 0 only: x is not positive, so x (x - y) keeps x
    S = sp.expand(x * (x - y))
    assert sp.expand(_positive_factors_out(S, key) - S) == 0


polys = st.lists(
    st.tuples(
        st.integers(-3, 3),
        st.integers(0, 2),
        st.integers(0, 2),
        st.integers(0, 1),
    ),
    min_size=1,
    max_size=5,
)


def poly(terms):
    return sp.expand(sum(c * x**a * y**b * z**e for c, a, b, e in terms))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    h=polys,
    b=polys,
    last=polys,
    strict=st.booleans(),
    op=st.sampled_from([">", ">="]),
)
def test_no_certificate_where_nlsat_finds_a_point(h, b, last, strict, op):
    """Random conjunctions with a rational bound x < b/(1 + y), a hypothesis H > 0 and a
    last relation: every "impossible" is confirmed by nlsat (never sat)."""
    B = poly(b) - x * (1 + y)
    nodes = [*domain(), rel(B, ">" if strict else ">="), rel(poly(h), op)]
    L = poly(last)
    for last_node in (neg(rel(L, ">")), neg(rel(L + poly(h), ">")), rel(-L, ">=")):
        full = [n for n in (*nodes, last_node)]
        if any(n[0] in ("true", "false") for n in full):
            continue
        if impossible(full):
            assert nlsat(full) != "sat", full


@pytest.mark.parametrize(
    "claim",
    [
        "lam*theta < 8*(gamma + mu)**3/(3*gamma + mu)**2",
        "lam*theta*(3*gamma+mu)**2 < 4*(gamma+mu)**3",
    ],
)
def test_edge_claims_are_certified_and_nlsat_does_not_disagree(claim):
    """The in-flight L = 3 bounds tangent to the boundary at kappa = 0: proven by the
    rational-bound certificate (the check log says so), refuted the other way by an exact
    counterexample."""
    from symdelay.analysis.decide import decide
    from symdelay.models import build_model

    m = build_model("inflight", L=3, kappa="kappa")
    d = decide(m, claim, assume=["theta >= 0"], timeout_ms=10_000)
    assert d.relation_to_stability == "sufficient"
    rec = d.to_json()
    text = str(rec)
    assert "sign certificate" in text
