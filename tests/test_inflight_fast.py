"""kappa* from the closed factors (symdelay.models.inflight.fastcurve) against the exact
polynomial path it replaced for the weight on every phase (``_kappa_star_exact`` on the
expanded polynomials, still the path of the other patterns): every printed digit."""

import cmath
import itertools
import math

import flint
import mpmath
import pytest
import sympy as sp

from symdelay.core.numbers import format_number
from symdelay.models.inflight.curve import (
    _checked,
    _curve,
    _kappa_star_closed_factors,
    _kappa_star_exact,
    hopf_curve,
    kappa_star,
)
from symdelay.models.inflight.fastcurve import _Curve


def _old(L, mu, D, dps):
    Lc, m, Dd, pat = _checked(L, mu, D, "all")
    k, unstable, (omega, lam_theta) = _kappa_star_exact(_curve(Lc, m, Dd, pat), dps)
    f = lambda x: format_number(x, dps)  # noqa: E731
    return f(k), f(omega), f(lam_theta), [[f(a), f(b)] for a, b in unstable]


@pytest.mark.parametrize(
    "L, mu, D",
    [(2, 1, 1), (3, 1, 1), (10, 1, 1), (50, 1, 1), (2, 1, "0.5"), (4, 1, 3), (10, 2, "0.3"),
     (30, "0.1", 7), (7, 3, "1/3")],
)  # fmt: skip
@pytest.mark.parametrize("dps", [15, 30])
def test_closed_factors_agree_with_exact_path_to_every_digit(L, mu, D, dps, monkeypatch):
    import symdelay.models.inflight.curve as curve

    monkeypatch.setattr(curve, "EXACT_MAX_L", 1)  # the closed factors at every L here
    new = kappa_star(L, mu, D, dps=dps)
    assert new.algorithm.startswith("closed factors")
    # kappa*, where the curve turns (omega, lam theta) and the unstable weights, to every digit
    Lc, m, Dd, _pat = _checked(L, mu, D, "all")
    k, unstable, (omega, lam_theta) = _kappa_star_closed_factors(Lc, m, Dd, dps)
    f = lambda x: format_number(x, dps)  # noqa: E731
    fast = f(k), f(omega), f(lam_theta), [[f(a), f(b)] for a, b in unstable]
    assert fast == _old(L, mu, D, dps)
    assert new.to_json()["kappa_star"] == fast[0]


def test_L2_closed_form_still_checked_on_the_fast_path(monkeypatch):
    import symdelay.models.inflight.curve as curve

    monkeypatch.setattr(curve, "EXACT_MAX_L", 1)
    ks = kappa_star(2, 1, 1, dps=40)
    assert ks.closed_form["kappa_star"] is not None and ks.algorithm.startswith("closed factors")
    assert any("closed form" in c for c in ks.notes)


def test_the_faster_certified_path_is_chosen_by_L():
    """The exact crossing curve up to EXACT_MAX_L (faster there), the closed factors above."""
    from symdelay.models.inflight.curve import EXACT_MAX_L

    assert kappa_star(EXACT_MAX_L, 1, 1).algorithm.startswith("exact crossing curve")
    assert kappa_star(EXACT_MAX_L + 1, 1, 1).algorithm.startswith("closed factors")


@pytest.mark.parametrize("L", [2, 5, 40])
def test_pair_algebra_and_tail_identity(L):
    """kappa, a from the pair algebra equal the exact rational functions, and the identity
    behind the tail bound: kappa = omega Im(w/(mu + i omega))/(1 - Re w), |kappa| <= |w|/(1-|w|)."""
    mu, D = sp.Rational(3, 2), sp.Rational(2)
    cv = hopf_curve(L, mu, D)
    g = sp.Rational(L) / D
    fast = _Curve(L, flint.fmpq(int(g.p), int(g.q)), flint.fmpq(3, 2))
    for t in (sp.Rational(1, 7), sp.Rational(5, 2), sp.Rational(40)):
        u = t / g**2
        k, a = fast.point(flint.arb(flint.fmpq(int(u.p), int(u.q))))
        assert k.contains(flint.arb(cv.kappa_of(flint.fmpq(int(t.p), int(t.q)))))
        assert a.contains(flint.arb(cv.a_of(flint.fmpq(int(t.p), int(t.q)))))
        om, muf, gf = math.sqrt(float(t)), float(mu), float(g)
        w = (1 + 1j * om / gf) ** (-L)
        kap = om * (w / (muf + 1j * om)).imag / (1 - w.real)
        assert kap == pytest.approx(float(k.mid()), rel=1e-9)
        assert abs(kap) <= abs(w) / (1 - abs(w)) and abs(cmath.phase(1 - w)) < math.pi / 2


def test_large_L_certified_and_below_one_half():
    vals = [kappa_star(L, 1, 1, dps=20).kappa_star for L in (100, 500, 2000)]
    assert all(a < b < mpmath.mpf(1) / 2 for a, b in itertools.pairwise(vals))
    assert 0.5 - float(vals[-1]) < 1e-3


def test_other_patterns_keep_the_exact_path():
    ks = kappa_star(4, 1, 1, pattern="first-half", dps=15)
    assert ks.algorithm == "exact crossing curve + Arb root isolation"
    assert kappa_star(3, 1, 1, pattern="last", dps=15).kappa_star is None
    # the per-phase list of ones is the weight on every phase
    a = kappa_star(3, 1, 1, pattern=["1", "1", "1"], dps=15).to_json()["kappa_star"]
    assert a == kappa_star(3, 1, 1, dps=15).to_json()["kappa_star"]
