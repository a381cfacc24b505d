"""The positive roots of the crossing polynomial h(w^2) by Descartes bisection (complete,
certified), the pruned candidate search of the swept path, and the sparse mode factors: each
against an independent second path (every complex root of h by flint, the resultant path,
the founding model's closed-form Hopf path, the model's dense mode decomposition)."""

import random

import flint
import mpmath
import pytest
import sympy as sp

import symdelay.analysis.critical as crit
import symdelay.analysis.crossing as crossing
from symdelay.analysis.crossing import _isolate_positive, critical_linear, critical_parameter
from symdelay.core.symbols import r as R
from symdelay.model.core import _symbol
from symdelay.models import build_model

r, p = sp.symbols("r p")


def _close(a, b, digits):
    if a == mpmath.inf or b == mpmath.inf:
        return a == b
    return abs(a - b) <= mpmath.mpf(10) ** -digits * abs(b)


def _holds(ball, q):
    """The ball holds the rational q (converted at 1000 bits, far below its radius)."""
    with flint.ctx.workprec(1000):
        return ball.contains(flint.arb(q))


def _positive_by_complex_roots(h):
    """The positive roots of h from every complex root (flint), the second path."""
    out = []
    for c, mult in h.complex_roots():
        if c.imag.is_exact() and c.imag == 0 and c.real > 0:
            out.extend([c.real] * mult)
    return sorted(out, key=lambda b: float(b.mid()))


# ------------------------------------------------------------------ the isolation
def _from_roots(roots, extra=()):
    """Integer polynomial with the rational ``roots`` (and the quadratic factors ``extra``)."""
    h = flint.fmpq_poly([1])
    for q in roots:
        h *= flint.fmpq_poly([-q, 1])
    for c in extra:
        h *= flint.fmpq_poly(c)
    return h.numer()


@pytest.mark.parametrize("seed", range(6))
def test_isolation_finds_every_positive_root_of_random_polynomials(seed):
    rng = random.Random(seed)
    roots = [
        flint.fmpq(rng.randint(1, 10**6), rng.randint(1, 10**4)) for _ in range(rng.randint(1, 9))
    ]
    roots += [-flint.fmpq(rng.randint(1, 100), 7) for _ in range(rng.randint(0, 4))]
    roots = sorted(set(roots))
    extra = [[rng.randint(1, 50), rng.randint(-3, 3), 1] for _ in range(rng.randint(0, 3))]
    h = _from_roots(roots, [[c[0] + c[1] ** 2, c[1], 1] for c in extra])  # no real roots
    got = _isolate_positive(h, 80, 224)
    want = [q for q in roots if q > 0]
    assert got is not None and len(got) == len(want)
    for ball, q in zip(got, want):
        assert _holds(ball, q)
        assert ball.rad() <= abs(ball.mid()) * flint.arb(2) ** -78


def test_isolation_near_zero_close_pairs_and_exact_split_points():
    tiny = flint.fmpq(1, 10**12)
    h = _from_roots([tiny, 2 * tiny, flint.fmpq(1), flint.fmpq(1) + flint.fmpq(1, 10**9), 4])
    got = _isolate_positive(h, 100, 264)
    ref = _positive_by_complex_roots(h)
    assert got is not None and len(got) == len(ref) == 5
    for a, b in zip(got, ref):
        assert a.overlaps(b)
    # roots at the split points tried first (powers of two): moved off, each found once
    want = [flint.fmpq(1, 2), flint.fmpq(1), flint.fmpq(2), flint.fmpq(3), flint.fmpq(4)]
    got = _isolate_positive(_from_roots(want), 60, 184)
    assert len(got) == len(want) and all(_holds(b, q) for b, q in zip(got, want))


def test_isolation_gives_up_on_a_double_root_and_discards_root_free_input():
    assert _isolate_positive(_from_roots([flint.fmpq(3, 2), flint.fmpq(3, 2), 5]), 60, 184) is None
    assert _isolate_positive(_from_roots([-1, -2], [[1, 0, 1]]), 60, 184) == []
    (only,) = _isolate_positive(_from_roots([0, 0, flint.fmpq(7, 3)]), 60, 184)
    assert _holds(only, flint.fmpq(7, 3))


# ------------------------------------------------------------- critical_linear
def _coeffs(expr, n=None):
    c = sp.Poly(expr, r).all_coeffs()[::-1]
    return c + [sp.Integer(0)] * ((n or len(c)) - len(c))


CASES = [
    ("(r+1)**3", "1"),  # Routh: p_c = 8
    ("(r+1)**9", "1"),  # two crossings at p > 0 (arg (i w + 1)^9 = pi, 3 pi)
    ("(r+2)*(r+1)**4", "r+3"),
    ("(r+13/10)*(r+4)**6", "7*4**6/10"),
    ("r**6 + r**5 + 2*r**3 + r + 3", "1"),  # h = -(s - 1)^2 (a double root): the fallback
    ("(r + 1/1000)*(r+1)**2", "1"),  # a crossing near w = 0 and a tiny root of A
]


@pytest.mark.parametrize("a, b", CASES)
def test_linear_path_agrees_with_every_complex_root_and_the_resultant(a, b, monkeypatch):
    A, B = sp.sympify(a, locals={"r": r}), sp.sympify(b, locals={"r": r})
    n = sp.degree(A, r) + 1
    ca, cb = _coeffs(A), _coeffs(B, n)
    with monkeypatch.context() as mp:  # the resultant and subresultant path
        mp.setattr(crossing, "critical_linear", lambda *a, **k: None)
        res = critical_parameter(sp.expand(A + p * B), r, p, dps=20)
    with monkeypatch.context() as mp:  # every complex root of h (the path before)
        mp.setattr(crossing, "_isolate_positive", lambda *a, **k: None)
        old = critical_linear(ca, cb, r, p, dps=20)
        old_proved = critical_linear(ca, cb, r, p, dps=20, baseline=0)
    new = critical_linear(ca, cb, r, p, dps=20)
    proved = critical_linear(ca, cb, r, p, dps=20, baseline=0)
    pruned = critical_linear(ca, cb, r, p, dps=20, baseline=0, upto=2)
    for c in (old, old_proved, new, proved, pruned):
        assert _close(c.p_c, res.p_c, 18), (a, c.p_c, res.p_c)
        assert (c.omega is None) == (res.omega is None)
        if res.omega is not None:
            assert abs(c.omega - res.omega) <= 1e-18 * max(1, abs(res.omega))
        assert (c.rhp_below, c.rhp_above) == (res.rhp_below, res.rhp_above)
    # the unpruned searches list every candidate, as the resultant does
    for c in (old, new, proved):
        assert len(c.candidates) == len(res.candidates)
        for (p1, w1), (p2, w2) in zip(c.candidates, res.candidates):
            assert _close(p1, p2, 18) and abs(w1 - w2) <= 1e-18 * max(1, abs(w2))
    # the pruned one: every candidate up to 2 p_c (where the proof applies), a prefix
    k = len(pruned.candidates)
    assert all(_close(x[0], y[0], 18) for x, y in zip(pruned.candidates, res.candidates[:k]))
    assert all(q > 2 * res.p_c for q, _ in res.candidates[k:])
    assert proved.checks == old_proved.checks


def test_two_crossings_listed_in_order():
    ca, cb = _coeffs(sp.expand((r + 1) ** 9)), _coeffs(sp.Integer(1), 10)
    c = critical_linear(ca, cb, r, p, dps=25, baseline=0)
    assert len(c.candidates) == 2 and c.candidates[0][0] < c.candidates[1][0]
    for (pv, wv), k in zip(c.candidates, (1, 3)):  # closed form: w = tan(k pi/9)
        with mpmath.workdps(30):
            w = mpmath.tan(k * mpmath.pi / 9)
            assert abs(wv - w) < mpmath.mpf(10) ** -24
            assert abs(pv - (1 + w**2) ** mpmath.mpf(4.5)) < mpmath.mpf(10) ** -22 * pv
    assert (c.rhp_below, c.rhp_above) == (0, 2)
    assert len(critical_linear(ca, cb, r, p, dps=25, baseline=0, upto=2).candidates) == 1


@pytest.mark.parametrize("L", [1, 2, 10, 100, 300])
def test_founding_factor_per_point_agrees_with_the_closed_form_hopf_path(L):
    from symdelay.analysis.critical import critical

    mu, lam = sp.Rational(13, 10), sp.Rational(7, 10)
    fm = build_model("erlang", L=L, mu=mu, lam=lam)
    for D in (sp.Rational(1, 3), sp.Rational(5, 2), sp.Integer(9)):
        g = L / D
        A = _coeffs(sp.expand((r + mu) * (r + g) ** L))
        B = [lam * g**L] + [sp.Integer(0)] * (len(A) - 1)
        c = critical_linear(A, B, r, p, dps=20, baseline=0, upto=2, expression=sp.Symbol("F"))
        f = critical(fm, at=[D], dps=20, method="specialised").points[0]
        assert _close(c.p_c, f.critical, 17), (L, D, c.p_c, f.critical)
        assert "transversal" in c.checks[0]
        if L == 1:  # no crossing for any theta > 0 (both paths)
            assert c.p_c == mpmath.inf and c.omega is None and f.omega is None
            continue
        assert _close(c.omega, f.omega, 17)
        assert (c.rhp_below, c.rhp_above) == (0, 2)


def test_upto_must_exceed_one():
    from symdelay.core.errors import SymdelayInputError

    with pytest.raises(SymdelayInputError, match="upto"):
        critical_linear([1, 3, 3, 1], [1, 0, 0, 0], r, p, upto=1)


# ------------------------------------------------------------- the sparse modes
@pytest.mark.parametrize("family", ["erlang", "phase_type"])
@pytest.mark.parametrize("L", [1, 2, 6])
def test_sparse_modes_equal_the_models_mode_factors(family, L):
    extra = {"delay": "erlang"} if family == "phase_type" else {}
    m = build_model(family, L=L, mu=1, lam=sp.Rational(3, 4), **extra)
    gens = (R, _symbol("theta"), _symbol("gamma"))
    sparse = crit._sparse_modes(m, gens)
    ctx = flint.fmpq_mpoly_ctx.get(tuple(str(x) for x in gens), "lex")
    dense = []
    for f in m.factors:  # the dense SymPy decomposition (symdelay.model.modes)
        P = sp.Poly(f.factor, *gens)
        q = ctx.from_dict({mo: flint.fmpq(int(c.p), int(c.q)) for mo, c in P.terms()})
        dense.append((f.mode, f.multiplicity, q))
    got = [(lab, mult, ctx.from_dict(t)) for lab, mult, t in sparse]
    assert len(got) == len(dense)
    for lab, mult, q in dense:
        assert any(lab == l2 and mult == m2 and q == q2 for l2, m2, q2 in got), lab


def test_swept_path_without_the_dense_factors_at_L_60():
    """At L = 60 the dense mode decomposition costs over ten seconds (and its cost estimate
    refuses it); the sparse modes answer, equal to the founding closed-form path."""
    from symdelay.analysis.critical import critical

    DS = ["1/4", "1", "7"]
    m = build_model("phase_type", delay="erlang", L=60, mu="1.3", lam="0.7")
    slow = critical(m, at=DS, method="generic")
    assert "factors" not in vars(m)  # the dense decomposition was not computed
    fast = critical(build_model("erlang", L=60, mu="1.3", lam="0.7"), at=DS, method="specialised")
    for a, b in zip(slow.points, fast.points):
        assert _close(a.critical, b.critical, 12) and _close(a.omega, b.omega, 12)
        assert (a.per_factor[0][1].rhp_below, a.per_factor[0][1].rhp_above) == (0, 2)
