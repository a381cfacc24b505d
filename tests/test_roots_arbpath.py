"""All roots refined and certified in Arb alone (arbpath) against the general path and an
independent root finder (flint's acb_poly.roots on the exact polynomial)."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import flint
import mpmath
import pytest
import sympy as sp

from symdelay.analysis.certify import to_acb
from symdelay.analysis.rootset import order_key
from symdelay.core.errors import CertificationError
from symdelay.founding import characteristic_roots
from symdelay.models.erlang.roots import arbpath, solve

CASES = [
    # L, mu, lam, theta, D
    (1, 1, 1, 5, 1),
    (2, 1, 1, 5, 1),
    (3, 1, 1, "1/2", 1),
    (5, 1, 1, 5, 1),
    (6, 10, 1, -3, 1),  # theta < 0, gamma < mu
    (8, 1, 1, "1/100", 1),  # real roots in the sector of -a
    (13, "3/7", 2, 5, "11/3"),
    (20, 1, 1, 5, 1),
    (24, 1, 3, "-7/5", "1/9"),
    (31, 1, 1, 5, 1),  # above arbpath.MAX_L: sector seeds, refined in Arb
    (64, 2, 1, 3, 5),
]


def _sorted(roots):
    return sorted(roots, key=lambda z: (float(-z.value.real), float(-z.value.imag)))


def _params(mu, lam, theta, D):
    return solve._params(*(sp.Rational(v) for v in (mu, lam, theta, D)))


@pytest.mark.parametrize("case", CASES)
def test_arb_path_equals_general_path_to_the_digits(case):
    L, *rest = case
    p = _params(*rest)
    dps = 30
    work = solve._work(dps, L)
    fast = _sorted(solve._all_roots(L, p, dps).roots)
    slow = _sorted(solve._general_all_roots(L, p, work))
    assert len(fast) == len(slow) == L + 1
    with mpmath.workdps(work + 20):
        for a, b in zip(fast, slow):
            # each disc is a proof: two discs around the same root intersect
            assert abs(a.value - b.value) <= a.radius + b.radius
            assert a.radius < mpmath.mpf(10) ** (-dps - 3) * (1 + abs(a.value))
            assert mpmath.nstr(a.value, dps) == mpmath.nstr(b.value, dps)
            if a.value.imag != 0:
                assert a.branch == b.branch
            else:  # real: the sector of arg u = 0 or pi, per the half-open definition
                u = 1 + a.value.real * p["D"] / L
                assert a.branch == (0 if u > 0 else math.ceil(L / 2 - 0.5))
            assert (a.value.imag == 0) == (b.value.imag == 0)
    count_fast = solve._disc_count(fast)
    assert count_fast == solve._disc_count(slow)


def test_mirrored_conjugates_are_exact():
    # the conjugate of a refined root is taken, not refined: it must be exact (an earlier
    # draft rounded it to 53 bits when it left the working precision)
    for L in (1, 4, 9):
        roots = arbpath.certified_roots(L, Fraction(1), Fraction(5), Fraction(1), 300)
        with mpmath.workdps(120):
            values = {(z.value.real, z.value.imag) for z in roots}
            for z in roots:
                assert (z.value.real, -z.value.imag) in values
                if z.value.imag:
                    assert z.value.imag._mpf_[3] > 200  # full precision, not a double


def test_disjoint_discs_cover_every_root_of_the_exact_polynomial():
    # independent: flint's own isolation on the exact integer polynomial
    L, mu, lam, theta, D = 12, 1, 2, -3, 1
    res = characteristic_roots(L, mu, lam, theta, D, dps=40).mode_roots("difference")
    g = L // D
    coeffs = [0] * (L + 2)  # (r + mu)(r + g)^L + lam theta g^L, lowest first
    from math import comb

    for j in range(L + 1):
        b = comb(L, j) * g ** (L - j)  # coefficient of r^j in (r + g)^L
        coeffs[j + 1] += b
        coeffs[j] += mu * b
    coeffs[0] += lam * theta * g**L
    with flint.ctx.workprec(400):
        ref = flint.acb_poly(coeffs).roots(tol=flint.arb(10) ** -60)
        for z in res:
            disc = to_acb(z.value)
            near = [w for w in ref if (w - disc).abs_lower() <= flint.arb(z.radius) + w.rad()]
            assert len(near) == 1


def test_fallback_to_the_general_path(monkeypatch):
    def refuse(*args, **kw):
        raise CertificationError("forced")

    before = characteristic_roots(7, 1, 1, 5, 1, dps=30)
    monkeypatch.setattr(arbpath, "certified_roots", refuse)
    after = characteristic_roots(7, 1, 1, 5, 1, dps=30)
    with mpmath.workdps(50):
        for a, b in zip(before, after):
            assert abs(a.value - b.value) <= a.radius + b.radius
    assert before.unstable_count == after.unstable_count


def test_tiny_delay_all_roots(run_cli):
    # gamma = 3e40: the double-precision convergence test of the general path's seeds
    # failed here ("found only 2 of the 4 roots"); refined in Arb the seeds suffice
    args = ["roots", "--L", "3", "--theta", "0.5", "--D", "1e-40", "--mu", "1", "--lam", "1"]
    status, out, err = run_cli(*args, "--json")
    assert status == 0, err
    rec = json.loads(out)
    diff = [z for z in rec["roots"] if rec["factors"][z["factor"]]["mode"] == "difference"]
    assert len(diff) == 4 and rec["unstable_count"] == 0
    # against the exact polynomial in s = r/gamma: (s + mu/gamma)(s + 1)^3 + lam theta/gamma
    gq = sp.Rational(3) / sp.Rational("1e-40")
    _, co = solve._scaled_coefficients(3, _params(1, 1, "1/2", "1e-40"))
    with flint.ctx.workprec(600):
        P = flint.acb_poly([flint.acb(flint.fmpq(int(c.p), int(c.q))) for c in reversed(co)])
        ref = [w * flint.acb(flint.fmpq(int(gq.p), int(gq.q))) for w in P.roots()]
        for item in diff:
            z = flint.acb(flint.arb(item["re"]), flint.arb(item["im"]))
            rad = flint.arb(item["radius"])
            near = [w for w in ref if (w - z).abs_lower() <= rad + w.rad()]
            assert len(near) == 1


# ------------------------------------------- the ordered Arb path against the existing one
# characteristic_roots takes certified_roots(..., ordered=True): the roots sorted, the
# axis test and the unstable count decided on the Arb balls, no _mark_axis_roots, sort or
# _disc_count on mpmath numbers. Checked against that pipeline (the general path's roots
# through it, and the unordered Arb roots through it), for every L of the Arb path and a
# few beyond, including clustered and nearly double roots and a root on the axis.
PARAMS = [
    # mu, lam, theta, D
    (1, 1, 5, 1),
    ("3/10", 2, "-3/2", "7/10"),
    (1, 1, "1e-3", 1),
    ("5/2", 1, "2/5", 3),
    (10, 1, -3, 1),  # gamma < mu
    (1, "1/2", -2, "1e-9"),  # gamma = L 10^9: solved in the time unit 1/gamma
]
CLUSTERED = [
    # L, mu, lam, theta, D
    (1, 3, 1, "0.9999999999999999", 1),  # real roots -2 -+ 1e-8 (closer: both paths fail)
    (1, 3, 1, "1.00000000000000000001", 1),  # a complex pair -2 +- 1e-10 i: nearly real
    (3, 3, 1, "1e-24", 1),  # four roots within 1e-5 of -3 (mu = gamma)
    (6, 6, 1, "1e-30", 1),  # seven roots within 1e-4 of -6
    (2, 1, 1, -1, 1),  # mu + lam theta = 0: r = 0 is a root (on the axis)
]


def _reference(L, p, dps, roots):
    """The pipeline _all_roots ran on every root list before ``ordered=True``."""
    work = solve._work(dps, L)
    with mpmath.workdps(work):
        roots, axis = solve._mark_axis_roots(list(roots), L, p, solve._bits(work))
    roots.sort(key=order_key)
    count = sum(1 for z in roots if not z.on_axis and z.value.real > 0)
    if not axis:
        count = solve._disc_count(roots)
    return roots, count, axis


def _fraction(v) -> Fraction:
    return Fraction(int(v.p), int(v.q))


def _solved_parameters(L, p):
    """The parameters solve._rescaled solves for: ``p`` itself, or in the time unit
    ``1/gamma`` when gamma = L/D is far from 1."""
    gq = sp.Rational(L) / p["D"]
    if sp.Rational(1, solve.RESCALE) <= gq <= solve.RESCALE:
        return p
    return {"mu": p["mu"] / gq, "lam": p["lam"] / gq, "theta": p["theta"], "D": sp.Integer(L)}


def _same_root(a, b, dps):
    with mpmath.workdps(solve._work(dps, 1) + 30):
        d = abs(a.value - b.value)
        assert d <= a.radius + b.radius  # two discs around one root meet
        assert d <= mpmath.mpf(10) ** (-dps) * (1 + abs(a.value))  # the digits asked for
        assert a.radius < mpmath.mpf(10) ** (-dps - 3) * (1 + abs(a.value))
    assert a.on_axis == b.on_axis
    assert (a.value.imag == 0) == (b.value.imag == 0)


@pytest.mark.parametrize(
    "case",
    [(L, *prm) for L in range(1, 26) for prm in PARAMS] + CLUSTERED,
    ids=lambda c: "L={}:{}".format(c[0], ",".join(map(str, c[1:]))),
)
@pytest.mark.parametrize("dps", [15, 50])
def test_ordered_arb_path_against_the_existing_pipeline(case, dps):
    L, *rest = case
    p = _params(*rest)
    res = characteristic_roots(L, *rest, dps=dps).mode_roots("difference")
    roots = list(res.roots)
    assert len(roots) == L + 1
    assert roots == sorted(roots, key=order_key)  # rightmost first, the records' order
    # the general path (SymPy-derived F, contraction proofs), through the old pipeline
    work = solve._work(dps, L)
    scaled = _solved_parameters(L, p)
    general, count, axis = _reference(L, scaled, dps, solve._general_all_roots(L, scaled, work))
    assert (res.unstable_count, res.axis_count) == (count, axis)
    if scaled is p:  # not rescaled: the discs themselves compare
        for a, b in zip(roots, general):
            _same_root(a, b, dps)
            if a.value.imag != 0:
                assert a.branch == b.branch
    # the unordered Arb roots through the old pipeline: the very same result, bit for bit
    if scaled is p and L <= arbpath.MAX_L and not axis:
        mu, D = _fraction(p["mu"]), _fraction(p["D"])
        lt = _fraction(p["lam"]) * _fraction(p["theta"])
        prec = solve._bits(work)
        try:
            plain = arbpath.certified_roots(L, mu, lt, D, prec)
        except CertificationError:  # clustered seeds: the general path answered above
            return
        ordered = arbpath.certified_roots(L, mu, lt, D, prec, ordered=True)
        old, old_count, _ = _reference(L, p, dps, plain)
        assert ordered.roots == old and ordered.rhp == old_count and not ordered.meets_axis
        assert [z.value for z in roots] == [z.value for z in old]
        assert [z.radius for z in roots] == [z.radius for z in old]
        assert [z.branch for z in roots] == [z.branch for z in old]
