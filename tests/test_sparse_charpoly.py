"""det(rI - B) by cycle covers against SymPy's determinant, Johnson's cycles against a brute
force count, the swept critical path's mode factors from cycle covers against SymPy's sparse
charpoly, and the phase-type family's statement that varying D is gamma = L/D against the
models it builds."""

from __future__ import annotations

import itertools
import random

import flint
import pytest
import sympy as sp

import symdelay.analysis.critical as crit
import symdelay.core.sparse_charpoly as sc
from symdelay.core.symbols import gamma, r, theta
from symdelay.models import build_model

CTX = flint.fmpq_mpoly_ctx.get(("r", "g"), "lex")
R, G = sp.symbols("r g")


def _const(c, e=0):
    return CTX.from_dict({(0, e): c})


def _to_sympy(p):
    return sum(sp.Rational(int(c.p), int(c.q)) * R**a * G**b for (a, b), c in p.to_dict().items())


def _random_block(rng, m, p_off):
    diag = {
        i: _const(rng.randint(-3, 3), rng.randint(0, 2)) for i in range(m) if rng.random() < 0.7
    }
    off = {
        (i, j): _const(rng.choice([-2, -1, 1, 3]), rng.randint(0, 1))
        for i in range(m)
        for j in range(m)
        if i != j and rng.random() < p_off
    }
    return diag, off


def test_cycle_covers_equal_the_determinant():
    rng = random.Random(1)
    checked = 0
    for _ in range(200):
        m = rng.randint(1, 7)
        diag, off = _random_block(rng, m, 0.35)
        got = sc.charpoly_by_cycles(diag, off, m, CTX.gens()[0], CTX)
        assert got is not None
        B = sp.zeros(m, m)
        for (i, j), e in off.items():
            B[i, j] = _to_sympy(e)
        for i, e in diag.items():
            B[i, i] = _to_sympy(e)
        assert sp.expand((R * sp.eye(m) - B).det() - _to_sympy(got)) == 0
        checked += bool(off)
    assert checked > 120


def _brute_cycles(m, edges):
    found = set()
    for k in range(2, m + 1):
        for nodes in itertools.permutations(range(m), k):
            if nodes[0] == min(nodes) and all(
                (a, b) in edges for a, b in zip(nodes, nodes[1:] + nodes[:1])
            ):
                found.add(nodes)
    return found


def test_johnson_finds_every_simple_cycle_once():
    rng = random.Random(7)
    for _ in range(60):
        m = rng.randint(2, 6)
        edges = {(i, j) for i in range(m) for j in range(m) if rng.random() < 0.4}
        adj = {}
        for i, j in edges:
            adj.setdefault(i, []).append(j)
        got = sc.simple_cycles(m, adj)
        norm = set()
        for c in got:
            k = c.index(min(c))
            norm.add(tuple(c[k:] + c[:k]))
        assert len(norm) == len(got)  # none twice
        assert norm == _brute_cycles(m, {(i, j) for i, j in edges if i != j})


def test_too_many_cycles_is_none():
    m = 9  # the complete digraph on 9 nodes has far more than MAX_CYCLES cycles
    off = {(i, j): _const(1) for i in range(m) for j in range(m) if i != j}
    assert sc.simple_cycles(m, {i: [j for j in range(m) if j != i] for i in range(m)}) is None
    assert sc.charpoly_by_cycles({}, off, m, CTX.gens()[0], CTX) is None


@pytest.mark.parametrize(
    "name, options",
    [
        ("phase_type", dict(delay="erlang", L=1)),
        ("phase_type", dict(delay="erlang", L=5)),
        ("phase_type", dict(delay="hypoexp", rates="1,3", D=2)),
        ("phase_type", dict(delay="hyperexp", probs="1/3,2/3", rates="1,4")),
        ("phase_type", dict(delay="coxian", rates="1,2,5", continue_probs="1/2,1/3")),
    ],
)
def test_mode_factors_from_cycles_equal_sympys_charpoly(name, options, monkeypatch):
    m = build_model(name, mu=1, lam=1, **options)
    gens = (r, theta, gamma)
    fast = crit._sparse_modes(m, gens)
    monkeypatch.setattr(crit, "_charpoly_cycles", lambda *a: None)
    slow = crit._sparse_modes(build_model(name, mu=1, lam=1, **options), gens)
    assert fast is not None and slow is not None
    assert sorted((lab, mult, sorted(t.items())) for lab, mult, t in fast) == sorted(
        (lab, mult, sorted(t.items())) for lab, mult, t in slow
    )


@pytest.mark.parametrize("family", ["phase_type", "erlang"])
@pytest.mark.parametrize("L", [1, 2, 3, 7])
def test_families_state_how_D_varies_and_their_builds_agree(family, L):
    extra = {"delay": "erlang"} if family == "phase_type" else {}
    m = build_model(family, L=L, mu=1, lam=1, **extra)
    sub = m.rebuild.substitution("D")
    assert sub is not None
    for D in (sp.Rational(1, 3), 1, sp.Rational(5, 2), 40):
        at = sub(D)
        assert at == {gamma: L / sp.Rational(D)}
        assert crit._same_rates(m.rebuild(D=D), m, at)
    # where the family does not know it, it says so (the sweep then builds at two D)
    assert m.rebuild.substitution("mu") is None
    fixed = build_model(family, L=L, D=2, mu=1, lam=1, **extra)
    assert fixed.rebuild.substitution("D") is None
    if family == "phase_type":
        hypo = build_model("phase_type", delay="hypoexp", rates="1,3", mu=1, lam=1)
        assert hypo.rebuild.substitution("D") is None
