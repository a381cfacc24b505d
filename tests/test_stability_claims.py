"""Stability conditions of the action-delay model, the Hopf boundary, and claim checking."""

from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay import SymdelayInputError, routh_hurwitz
from symdelay.analysis.critical import critical
from symdelay.core.symbols import D, gamma, lam, mu, r, theta
from symdelay.founding import stability_conditions
from symdelay.models.erlang.charpoly import characteristic_polynomial, special_case
from symdelay.models.erlang.claims import verify  # the founding convenience verify(L, claim)
from symdelay.models.erlang.founding import FoundingModel
from symdelay.models.erlang.stability import is_oscillatory_at, oscillation_threshold

POINTS = [(1, 1), (sp.Rational(3, 2), sp.Rational(1, 4)), (sp.Rational(1, 5), 7)]


def critical_lam_theta(L, m, g, dps=30):
    """``lam*theta_c`` at ``mu = m``, ``gamma = g``: the entry at ``lam = 1``, ``D = L/g``."""
    return critical(FoundingModel(L=L, mu=m, lam=1), at=[sp.Integer(L) / g], dps=dps).critical


def is_stable_at(L, m, g, k) -> bool:
    """The test's own oracle: Routh on the explicit rational polynomial, nothing on the
    axis or to its right."""
    poly = characteristic_polynomial(L).subs({mu: m, gamma: g, lam: k, theta: 1})
    res = routh_hurwitz(sp.expand(poly), r)
    return res.rhp_count == 0 and res.imaginary_axis_count == 0


def hopf_by_frequency(L, m, g, dps=40) -> str:
    """Independent path: first w > 0 with atan(w/mu) + L atan(w/gamma) = pi; k = |Q(iw)|/g^L.

    Returns the decimal string of k to ``dps`` digits."""
    m, g = sp.Rational(m), sp.Rational(g)
    with mpmath.workdps(dps + 10):
        m, g = mpmath.mpf(m.p) / m.q, mpmath.mpf(g.p) / g.q
        f = lambda w: mpmath.atan(w / m) + L * mpmath.atan(w / g) - mpmath.pi  # noqa: E731
        hi = mpmath.mpf(1)
        while f(hi) < 0:
            hi *= 2
        w = mpmath.findroot(f, (hi / 2 if f(hi / 2) < 0 else 0, hi), solver="anderson")
        k = mpmath.sqrt(w**2 + m**2) * (w**2 + g**2) ** (mpmath.mpf(L) / 2) / g**L
        return mpmath.nstr(k, dps)


def rightmost_real_part(L, m, g, k):
    """Second path: numpy eigenvalues of the (L+1)x(L+1) difference Jacobian."""
    n = L + 1
    J = np.zeros((n, n))
    J[0, 0], J[0, L], J[1, 0] = -m, g, -k
    for i in range(1, n):
        J[i, i] = -g
        if i >= 2:
            J[i, i - 1] = g
    return max(np.linalg.eigvals(J).real)


def test_L1_never_destabilises_and_oscillation_is_the_paper_inequality():
    res = stability_conditions(1)
    cf = res.closed_forms
    assert cf["conditions_under_assumptions"] == () and cf["stable_for_all_theta"]
    assert [str(c) for c in res.conditions] == ["lam*theta > -mu"]  # theta of either sign
    assert cf["critical_lam_theta"] is None
    assert cf["oscillation_condition"] == special_case(1).oscillation_condition


def test_L2_boundary_found_not_typed():
    cf = stability_conditions(2).closed_forms
    assert sp.simplify(cf["critical_lam_theta"] - 2 * (mu + gamma) ** 2 / gamma) == 0
    assert sp.simplify(cf["critical_lam_theta_in_D"] - (mu * D + 2) ** 2 / D) == 0


@pytest.mark.parametrize("L", [2, 3, 4, 5])
def test_closed_forms_equal_frequency_route(L):
    crit = stability_conditions(L).closed_forms["critical_lam_theta"]
    assert crit is not None
    for m, g in POINTS:
        value = crit.subs({mu: m, gamma: g}).evalf(35)
        assert abs(value - sp.Float(hopf_by_frequency(L, m, g), 40)) < 1e-28


@pytest.mark.parametrize("L", [2, 3, 6, 8])
def test_numeric_route_to_dps_and_two_paths(L):
    m, g = sp.Rational(3, 2), sp.Rational(1, 4)
    kc = critical_lam_theta(L, m, g, dps=40)
    with mpmath.workdps(40):
        other = mpmath.mpf(hopf_by_frequency(L, m, g))
        assert mpmath.almosteq(kc, other, rel_eps=mpmath.mpf(10) ** -35)
    kq = sp.Rational(mpmath.nstr(kc, 30))
    eps = sp.Rational(1, 10**6)
    below, above = kq * (1 - eps), kq * (1 + eps)
    assert is_stable_at(L, m, g, below) and not is_stable_at(L, m, g, above)
    assert (
        routh_hurwitz(
            characteristic_polynomial(L).subs({mu: m, gamma: g, lam: above, theta: 1}), r
        ).rhp_count
        == 2
    )
    assert (
        rightmost_real_part(L, 1.5, 0.25, float(below))
        < 0
        < rightmost_real_part(L, 1.5, 0.25, float(above))
    )


def test_exact_hopf_point_has_imaginary_pair():
    m, g = 1, 1
    poly = sp.expand(characteristic_polynomial(2).subs({mu: m, gamma: g, lam: 8, theta: 1}))
    res = routh_hurwitz(poly, r)
    assert res.imaginary_axis_count == 2 and res.rhp_count == 0 and res.is_stable is False


def test_conditions_are_the_stability_set():
    for L in (2, 3, 4):
        res = stability_conditions(L)
        for m, g in POINTS:
            kc = critical_lam_theta(L, m, g, dps=20)
            for k in (kc / 3, kc * mpmath.mpf("0.999"), kc * mpmath.mpf("1.001"), 3 * kc):
                kq = sp.Rational(mpmath.nstr(k, 15))
                vals = {mu: m, gamma: g, lam: kq, theta: 1}
                truth = all(bool(c.subs(vals)) for c in res.conditions)
                assert truth is is_stable_at(L, m, g, kq)


def test_negative_theta_real_root_crosses_at_minus_mu():
    m, g = sp.Rational(2), sp.Rational(3)
    assert is_stable_at(3, m, g, -m * sp.Rational(99, 100))
    assert not is_stable_at(3, m, g, -m)
    assert not is_stable_at(3, m, g, -m * sp.Rational(101, 100))


def test_L2_oscillation_condition_agrees_with_exact_oracle():
    cond = stability_conditions(2).closed_forms["oscillation_condition"]
    for m, g in POINTS:
        for k in (sp.Rational(1, 100), sp.Rational(1, 2), 2, 30):
            vals = {mu: m, gamma: g, lam: k, theta: 1}
            expected = is_oscillatory_at(2, m, g, k)
            assert bool(cond.subs(vals)) is expected
            roots = np.roots(
                [float(c) for c in sp.Poly(characteristic_polynomial(2).subs(vals), r).all_coeffs()]
            )
            top = max(roots, key=lambda z: z.real)
            assert bool(abs(top.imag) > 1e-9) is expected


def test_verify_paper_claim_L1():
    res = verify(1, "4*gamma*lam*theta > (mu-gamma)**2")
    assert res.relation_to_stability == "sufficient"
    assert res.relation_to_oscillation == "equivalent"
    ce = {k: sp.Rational(v) for k, v in res.counterexample.items()}
    assert set(ce) == {"mu", "lam", "theta", "gamma", "D"}
    assert ce["D"] * ce["gamma"] == 1
    assert not 4 * ce["gamma"] * ce["lam"] * ce["theta"] > (ce["mu"] - ce["gamma"]) ** 2
    assert is_stable_at(1, ce["mu"], ce["gamma"], ce["lam"] * ce["theta"])
    assert res.proven == {"stability": True, "oscillation": True}


def test_verify_L2_boundary_claims():
    exact = verify(2, "lam*theta < 2*(mu+gamma)**2/gamma")
    assert exact.relation_to_stability == "equivalent" and exact.counterexample is None
    assert exact.proven["stability"]
    weak = verify(2, "lam*theta <= 2*(mu+gamma)**2/gamma")
    assert weak.relation_to_stability == "necessary"
    ce = {k: sp.Rational(v) for k, v in weak.counterexample.items()}
    assert not is_stable_at(2, ce["mu"], ce["gamma"], ce["lam"] * ce["theta"])
    loose = verify(2, "lam*theta < 4*(mu+gamma)**2/gamma")
    assert loose.relation_to_stability == "necessary" and loose.proven["stability"]


def test_verify_tests_the_gap_below_a_small_root():
    """The exact class's sign analysis on g = gamma/mu: SymPy isolates a root near 0 in an
    interval (0, b], which left (0, root) without a test point, so stable => claim and
    oscillating => claim were 'proven' here; both are refuted (theta = 0 with gamma/mu below
    1e-7 is stable and oscillates for small theta > 0, and the claim fails there)."""
    res = verify(2, "lam*theta >= mu/10000000 - gamma")
    assert res.relation_to_stability == "neither" and res.relation_to_oscillation == "neither"
    for target in ("stability", "oscillation"):
        pt = res.counterexamples[target]["target_implies_claim"]
        ce = {k: sp.Rational(v) for k, v in pt.items()}
        assert not ce["lam"] * ce["theta"] >= ce["mu"] / 10**7 - ce["gamma"]
        if target == "stability":
            assert is_stable_at(2, ce["mu"], ce["gamma"], ce["lam"] * ce["theta"])
        else:
            assert is_oscillatory_at(2, ce["mu"], ce["gamma"], ce["lam"] * ce["theta"])


def test_verify_theta_real_widens_the_domain():
    res = verify(2, "lam*theta < 2*(mu+gamma)**2/gamma", theta_real=True)
    assert res.relation_to_stability == "necessary"
    ce = {k: sp.Rational(v) for k, v in res.counterexample.items()}
    assert ce["theta"] < 0 and ce["lam"] * ce["theta"] <= -ce["mu"]
    assert "longer queue" in res.explanation


def test_verify_in_D():
    res = verify(3, "lam*theta*D < 5")
    assert res.relation_to_stability == "neither" and res.proven["stability"]


@pytest.mark.parametrize(
    ("claim", "words"),
    [
        ("mu + lam", "is not a relation"),
        ("eta < 1", "unknown symbol 'eta'"),
        ("q < 1", "unknown symbol 'q'"),
        ("mu <", "cannot parse"),
        ("__import__('os') < 1", "__import__"),
    ],
)
def test_verify_bad_claims(claim, words):
    with pytest.raises(SymdelayInputError, match=words) as info:
        verify(1, claim)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"mu": -1, "D": 1}, "mu must be positive"),
        ({"mu": 1, "D": 0}, "D must be"),
        ({"mu": 1, "D": 1, "dps": 4}, "dps must be an integer between 5"),
        ({"mu": 1, "D": 1, "dps": 10001}, "dps must be an integer between 5"),
    ],
)
def test_numeric_route_bad_input(kwargs, words):
    D, dps = kwargs.pop("D"), kwargs.pop("dps", 15)
    with pytest.raises(SymdelayInputError, match=words):
        critical(FoundingModel(L=2, lam=1, **kwargs), at=[D], dps=dps)


@pytest.mark.parametrize("L", [2, 3, 4, 5])
def test_closed_form_exact_at_rational_hopf_points(L):
    """Rational points on the boundary (from P(i w) = 0, linear in mu) satisfy k = k_c exactly."""
    from symdelay.models.erlang.claims import _hopf_points

    crit = stability_conditions(L).closed_forms["critical_lam_theta"]
    points = list(_hopf_points(L))
    assert points
    for m, g, k in points:
        assert sp.simplify(crit.subs({mu: m, gamma: g}) - k) == 0


@pytest.mark.parametrize("L", [1, 2, 3, 4, 5, 6])
def test_oscillation_threshold_against_exact_isolation_and_numpy(L):
    """k > k_o(mu, gamma) (closed form) against exact root isolation and numpy eigenvalues."""
    cond = stability_conditions(L).closed_forms["oscillation_condition"]
    ko = oscillation_threshold(L)
    for m, g in [*POINTS, (1, 3), (2, 1), (1, 1)]:
        base = ko.subs({mu: m, gamma: g})
        ks = [sp.Rational(1, 3), 3] if base == 0 else [base * f for f in (sp.Rational(1, 2), 2)]
        for k in ks:
            expected = is_oscillatory_at(L, m, g, k)
            assert expected is not None
            assert bool(cond.subs({mu: m, gamma: g, lam: k, theta: 1})) is expected
            roots = np.roots(
                [
                    float(c)
                    for c in sp.Poly(
                        characteristic_polynomial(L).subs({mu: m, gamma: g, lam: k, theta: 1}), r
                    ).all_coeffs()
                ]
            )
            top = max(roots, key=lambda z: (z.real, abs(z.imag)))
            assert bool(abs(top.imag) > 1e-6) is expected


def test_oscillation_condition_is_one_minimal_inequality():
    """#8: the L = 2 condition is lam*theta > max(0, 4(gamma-mu)^3/(27 gamma^2)), one bound."""
    for L in range(1, 6):
        cond = stability_conditions(L).closed_forms["oscillation_condition"]
        assert isinstance(cond, sp.StrictGreaterThan)
    cond = stability_conditions(2).closed_forms["oscillation_condition"]
    d = sp.Symbol("d", positive=True)
    assert sp.simplify(cond.rhs.subs(mu, gamma + d)) == 0  # gamma < mu: every k > 0
    assert sp.simplify(cond.rhs.subs(mu, gamma - d) - 4 * d**3 / (27 * gamma**2)) == 0


def test_infinite_L_oscillation_threshold_against_lambert_w():
    ko = oscillation_threshold("inf")
    for m, d in ((1, 1), (sp.Rational(1, 3), 4), (5, sp.Rational(1, 10))):
        k0 = ko.subs({mu: m, D: d})
        for k in (k0 * sp.Rational(9, 10), k0 * sp.Rational(11, 10)):
            with mpmath.workdps(30):
                w = mpmath.lambertw(-mpmath.mpf(k.evalf(30)) * d * mpmath.exp(m * d), 0)
            assert (abs(mpmath.im(w)) > 1e-20) is bool(k > k0)


def test_in_k_refuses_separate_lam_theta():
    from symdelay.models.erlang.stability import _in_k

    with pytest.raises(SymdelayInputError, match="lam and theta separately"):
        _in_k(lam + theta)
