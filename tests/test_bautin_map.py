"""Bautin points on the stability map's Hopf curves (where the first Lyapunov coefficient l1
changes sign), against a closed form and the generic normal form at fixed parameters.

The test model is the founding model at L = 2 (gamma = mu = lam = 1, so D = 2) with a cubic
term in the routing weights, ``exp(-theta (q - 1) - b (q - 1)^3)`` (q* = lam/mu = 1): the
linearisation is the founding one (Hopf at theta = theta_c(2) = (D + 2)^2/D = 8 for every b,
omega = sqrt(3)), and the difference drift of the first phase is
``-2 tanh((theta x + b x^3/4)/2) = -theta x + (theta^3/12 - b/4) x^3 + ...`` with no quadratic
term (the sum mode is linear and decoupled). On the centre manifold c1 is that cubic
coefficient times ``3 |q_x|^2 q_x conj(p_w1)``, whose real part has one sign at the crossing
(it is ``-Re r'(theta) / lam`` times a positive factor): l1 changes sign exactly where
``b = theta^3/3 = 512/3``."""

from __future__ import annotations

import json

import mpmath
import pytest

from symdelay.analysis.normal_form import first_lyapunov, normal_form
from symdelay.analysis.stability_map import stability_map
from symdelay.model import Model
from symdelay.models import build_model


def cubic_routing_model() -> Model:
    states = ["q1", "q2", "z11", "z12", "z21", "z22"]

    def w(i):
        return f"exp(-theta*(q{i} - 1) - b*(q{i} - 1)**3)"

    trans = []
    for i, j in ((1, 2), (2, 1)):
        trans.append((f"arrive {i}", {f"z{i}1": 1}, f"2*{w(i)}/({w(i)} + {w(j)})"))
        trans.append((f"phase {i}", {f"z{i}1": -1, f"z{i}2": 1}, f"z{i}1"))
        trans.append((f"enter {i}", {f"z{i}2": -1, f"q{i}": 1}, f"z{i}2"))
        trans.append((f"serve {i}", {f"q{i}": -1}, f"q{i}"))
    return Model(
        "cubic routing",
        states,
        {"theta": "real", "b": "real"},
        trans,
        symmetry=[["q1", "q2"], ["z11", "z21"], ["z12", "z22"]],
    )


@pytest.fixture(scope="module")
def cubic_map():
    m = cubic_routing_model()
    # the fold-of-cycles curve from its Bautin point is tested in test_fold_cycles
    res = stability_map(
        m, x=("theta", 6, 10), y=("b", 100, 250), dps=20, cells=6, fold_cycles=False
    )
    return m, res


def test_bautin_point_at_the_closed_form(cubic_map):
    _, res = cubic_map
    (s,) = [s for s in res.special_points if s["type"] == "bautin"]
    assert s["certified"]
    with mpmath.workdps(30):
        assert abs(s["x"] - 8) < mpmath.mpf(10) ** -15
        assert abs(s["y"] - mpmath.mpf(512) / 3) < mpmath.mpf(10) ** -16
        assert abs(s["omega"] - mpmath.sqrt(3)) < mpmath.mpf(10) ** -15
    assert (s["l1_left"] < 0) != (s["l1_right"] < 0)
    rec = res.to_json()
    json.dumps(rec)
    (b,) = [p for p in rec["special_points"] if p["type"] == "bautin"]
    assert set(b) == {
        "type", "x", "y", "omega", "factor", "certified", "l1_left", "l1_right",
        "l2", "l2_radius", "fold_side", "l2_note",
    }  # fmt: skip
    # l2 < 0 (the finite-difference second path of tests/test_bautin_l2.py agrees): the folds
    # of cycles lie where l1 > 0, the b > 512/3 side of theta = 8
    assert float(b["l2"]) < 0 and float(b["l2_radius"]) < 1e-6 * abs(float(b["l2"]))
    assert b["fold_side"] == "l1 > 0" and b["l2_note"] is None
    assert b["y"].startswith("170.666666666")
    assert any("1 Bautin point" in n for n in res.notes)


def test_l1_signs_match_the_generic_normal_form(cubic_map):
    """Below b = 512/3 supercritical, above subcritical: the map's l1 along the curve and
    normal_form at fixed b (theta the crossing parameter) agree in sign."""
    model, res = cubic_map
    (curve,) = [c for c in res.curves if c.kind == "hopf"]
    l1 = res._details["l1"][res.curves.index(curve)]
    for p, v in list(zip(curve.points, l1))[::14]:
        if abs(p[1] - mpmath.mpf(512) / 3) < 5:
            continue
        nf = normal_form(model.with_values(b=mpmath.nstr(p[1], 15)), dps=15)
        assert abs(nf.theta_c - p[0]) < 1e-12
        assert (nf.l1 < 0) == (v < 0) == (p[1] < mpmath.mpf(512) / 3)
    nf = normal_form(model.with_values(b="512/3"), dps=15)
    assert abs(nf.l1) < 1e-20


def test_map_l1_is_the_normal_form_l1(cubic_map):
    """One l1: the map's value at a point of its Hopf curve (the double-precision scan) and
    the one computation evaluated in mpmath there both equal the generic normal form's l1
    (the same normalisation <q, q> = 1) at that point's b, where theta_c = 8 for every b."""
    model, res = cubic_map
    (curve,) = [c for c in res.curves if c.kind == "hopf"]
    l1 = res._details["l1"][res.curves.index(curve)]
    lyap = first_lyapunov(model, ("theta", "b"))
    checked = 0
    for p, v in list(zip(curve.points, l1))[::10]:
        b = mpmath.nstr(p[1], 25)
        nf = normal_form(model.with_values(b=b), dps=25)
        assert float(nf.l1_unit) == pytest.approx(v, rel=1e-8, abs=1e-12)
        with mpmath.workdps(35):
            at = lyap(nf.theta_c, mpmath.mpf(b), nf.omega)
            assert abs(at - nf.l1_unit) < mpmath.mpf(10) ** -20 * (1 + abs(at))
        checked += 1
    assert checked >= 3


@pytest.mark.parametrize("L", [2, 3])
def test_founding_map_has_no_bautin_point(L):
    """The founding model is supercritical on every Hopf curve (issue 10: c1 = -(theta^3/4)
    r'(theta) |q_x|^2): no Bautin point, and l1 < 0 at every curve point, as the founding
    normal form says at sampled delays."""
    from symdelay.models.erlang.founding import FoundingModel

    model = build_model("erlang", L=L, mu=1, lam=1)
    res = stability_map(
        model, x=("D", "0.5", 12), y=("theta", 0, 20), cells=6, method="generic", bautin=True
    )
    assert [s["type"] for s in res.special_points] == ["turning_y"]
    (values,) = res._details["l1"].values()
    assert values and all(v is not None and v < 0 for v in values)
    curve = res.curves[0]
    for p in curve.points[:: len(curve.points) // 4]:
        nf = normal_form(FoundingModel(L=L, mu=1, lam=1, D=mpmath.nstr(p[0], 15)), dps=15)
        assert nf.l1 < 0 and abs(nf.theta_c - p[1]) < 1e-9 * p[1]
        # the founding fast path's l1 (structured eigenvectors) is the map's, <q, q> = 1
        v = values[curve.points.index(p)]
        assert float(nf.l1_unit) == pytest.approx(v, rel=1e-8)
    # the explicit map says why, without computing l1
    fast = stability_map(model, x=("D", "0.5", 12), y=("theta", 0, 20), cells=6, bautin=True)
    assert any("no Bautin point" in n for n in fast.notes)
    assert not [s for s in fast.special_points if s["type"] == "bautin"]


def test_bautin_off_skips_the_search(cubic_map):
    model, _ = cubic_map
    res = stability_map(model, x=("theta", 6, 10), y=("b", 100, 250), cells=4, bautin=False)
    assert not [s for s in res.special_points if s["type"] == "bautin"]
    assert res._details["l1"] == {}


def test_the_bautin_proof_fails_where_l1_does_not_vanish(cubic_map):
    """The proof is not a formality: at Hopf points of the same curve away from b = 512/3
    (l1 of one sign on the whole small piece) it does not go through."""
    from symdelay.analysis.stability_map import _bautin_proof

    model, res = cubic_map
    (curve,) = [c for c in res.curves if c.kind == "hopf"]
    lyap = first_lyapunov(model, ("theta", "b"))
    system = res._details["systems"][(curve.factor, "hopf")]
    with mpmath.workdps(30):
        for p in (curve.points[5], curve.points[-5]):
            assert abs(p[1] - mpmath.mpf(512) / 3) > 10
            assert _bautin_proof(lyap, system, list(p), 1, 20) is False
        # and at the located point it does
        (s,) = [s for s in res.special_points if s["type"] == "bautin"]
        assert _bautin_proof(lyap, system, [s["x"], s["y"], s["omega"]], 1, 20) is True


def quadratic_routing_model(a) -> Model:
    """The cubic routing model with a quadratic term ``a (q - 1)^2`` in the weights too:
    second derivatives of the drift that do not vanish at the equilibrium, beside third ones
    (the normal form's quadratic terms, through the sum mode)."""
    states = ["q1", "q2", "z11", "z12", "z21", "z22"]

    def w(i):
        return f"exp(-theta*(q{i} - 1) - {a}*(q{i} - 1)**2 - b*(q{i} - 1)**3)"

    trans = []
    for i, j in ((1, 2), (2, 1)):
        trans.append((f"arrive {i}", {f"z{i}1": 1}, f"2*{w(i)}/({w(i)} + {w(j)})"))
        trans.append((f"phase {i}", {f"z{i}1": -1, f"z{i}2": 1}, f"z{i}1"))
        trans.append((f"enter {i}", {f"z{i}2": -1, f"q{i}": 1}, f"z{i}2"))
        trans.append((f"serve {i}", {f"q{i}": -1}, f"q{i}"))
    return Model(
        "quadratic routing",
        states,
        {"theta": "real", "b": "real"},
        trans,
        symmetry=[["q1", "q2"], ["z11", "z21"], ["z12", "z22"]],
    )


def test_l1_with_quadratic_terms_matches_the_generic_normal_form():
    """With second derivatives beside third ones the map's l1 (doubles and Arb) has the
    generic normal form's sign at every sampled curve point, and its Bautin point is a zero
    of the generic normal form's l1 (the tensors were once read in the wrong order here)."""
    import flint

    model = quadratic_routing_model(3)
    res = stability_map(model, x=("theta", 6, 10), y=("b", 0, 400), dps=15, cells=6)
    (curve,) = [c for c in res.curves if c.kind == "hopf"]
    l1 = res._details["l1"][res.curves.index(curve)]
    lyap = first_lyapunov(model, ("theta", "b"))
    signs = set()
    for p, v in list(zip(curve.points, l1))[::12]:
        nf = normal_form(model.with_values(b=mpmath.nstr(p[1], 15)), dps=15)
        if abs(nf.l1) < 1e-6:
            continue
        with flint.ctx.workprec(120):
            ball = lyap.arb(*(flint.arb(mpmath.nstr(t, 25)) for t in p))
        assert (v < 0) == (nf.l1 < 0) == (ball < 0)
        signs.add(nf.l1 < 0)
    assert signs == {True, False}
    (s,) = [s for s in res.special_points if s["type"] == "bautin"]
    assert s["certified"]
    nf = normal_form(model.with_values(b=mpmath.nstr(s["y"], 15)), dps=15)
    assert abs(nf.l1) < 1e-10 and abs(nf.theta_c - s["x"]) < 1e-10
