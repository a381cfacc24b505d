"""``normal_form(model, param=NAME, lo=LO, hi=HI)``: the Hopf normal form at a Hopf point of
the equilibrium followed numerically (a model whose equilibrium has no closed form in the
parameter), ``l1`` bounded by Arb balls over the Krawczyk box of the Hopf point.

Independent second paths: the food chain at the rational nearest its Hopf point b1_c, where
the equilibrium is in radicals, through the tables' exact path
(:class:`symdelay.analysis.normal_form.FirstLyapunov`, the closed-form equilibrium, SymPy
derivatives); the amplitudes and periods of the collocation branch of cycles near b1_c; the
Brusselator, whose Hopf point ``b = 1 + a^2``, frequency ``a`` and crossing speed
``r' = 1/2`` are closed forms; the founding model (closed-form equilibrium, the structured
eigenvectors of its specialised path) through the range."""

from __future__ import annotations

import math
from pathlib import Path

import mpmath
import pytest

import symdelay
from symdelay.analysis.normal_form import FirstLyapunov, first_lyapunov, normal_form
from symdelay.cli import main as cli_main
from symdelay.core.errors import SymdelayInputError
from symdelay.core.lazy import sympy as sp
from symdelay.model.core import model_from_dict

FILE = str(Path(__file__).parent / "data" / "food_chain.toml")


@pytest.fixture(scope="module")
def chain():
    return symdelay.load_toml(FILE)


@pytest.fixture(scope="module")
def chain_nf(chain):
    return normal_form(chain, dps=20, param="b1", lo="2.0", hi="2.4")


def test_food_chain_l1_against_the_exact_path_at_the_hopf_value(chain, chain_nf):
    nf = chain_nf
    assert nf.param == "b1" and nf.multiplicity == 1 and nf.observed == "x"
    assert abs(float(nf.theta_c) - 2.113786520614078) < 1e-13  # the cycles' Hopf point
    assert nf.criticality == "supercritical" and nf.side == "above"
    assert 0 < nf.l1_radius < mpmath.mpf(10) ** -17
    assert nf.l1_radius < abs(nf.l1) * 10**-15  # the sign proved with room to spare
    # the exact path at b1 = the rational nearest b1_c to 22 digits (|b1 - b1_c| < 1e-21):
    # there the equilibrium is x = root of (1 - x)(1 + b1 x) = a1 y, y = 1/8, in radicals
    b = sp.Rational(mpmath.nstr(nf.theta_c, 22))
    at = chain.with_values(b1=str(b))
    assert at.equilibrium.exact
    lyap = FirstLyapunov(at, ())
    with mpmath.workdps(40):
        A = mpmath.matrix(3, 3)
        for (i, j), v in lyap.tensors(())[0].items():
            A[i, j] = v
        pair = max(mpmath.eig(A, left=False, right=False), key=mpmath.im)
        assert abs(mpmath.re(pair)) < 1e-19  # b1 is (nearly) the Hopf point
        h = lyap.hopf((), mpmath.im(pair))
        l1_x = mpmath.re(h.c1) / abs(h.q[0]) ** 2 / mpmath.im(pair)  # q_x = 1
        # both agree to the digits the ball and the 1e-21 offset of the point allow
        assert abs(h.l1 - nf.l1_unit) < 1e-17
        assert abs(l1_x - nf.l1) < 1e-17 * abs(nf.l1)
        assert abs(mpmath.im(pair) - nf.omega) < 1e-18


def test_food_chain_amplitude_and_frequency_against_the_collocation_branch(chain, chain_nf):
    nf = chain_nf
    branch = symdelay.cycles(chain, "b1", "2.0", "2.2", max_points=3)
    pc, c = float(nf.theta_c), float(nf.amplitude_coefficient)
    w, dw = float(nf.omega), float(nf.omega_slope)
    pts = [p for p in branch.points if p.value > pc][:2]
    ratios = [p.amplitude / (c * math.sqrt(p.value - pc)) for p in pts]
    assert all(abs(r - 1) < 2e-3 for r in ratios)
    # the ratio is 1 + O(p - p_c): its linear extrapolation to p_c is 1
    (p1, p2), (r1, r2) = [p.value for p in pts], ratios
    r0 = r1 - (r2 - r1) / (p2 - p1) * (p1 - pc)
    assert abs(r0 - 1) < 1e-5
    # the period 2 pi / (omega + d omega/d b1 (b1 - b1_c)): the slope is seen (its
    # first-order change of the period is 1e-3 here, the agreement 1e-6)
    for p in pts:
        assert abs(p.period * (w + dw * (p.value - pc)) / (2 * math.pi) - 1) < 1e-6
        assert abs(p.period * w / (2 * math.pi) - 1) > 5e-4


BRUSSELATOR = {
    "name": "Brusselator",
    "parameters": {"a": "positive", "b": "positive"},
    "values": {"a": 2},
    "state": {"names": ["x", "y"]},
    "transitions": [
        {"name": "feed", "change": {"x": 1}, "rate": "a"},
        {"name": "x to y", "change": {"x": -1, "y": 1}, "rate": "b*x"},
        {"name": "autocatalysis", "change": {"x": 1, "y": -1}, "rate": "x**2*y"},
        {"name": "decay", "change": {"x": -1}, "rate": "x"},
    ],
}


def test_closed_form_table_through_the_range_equals_the_exact_path():
    bru = model_from_dict(BRUSSELATOR)
    nf = normal_form(bru, dps=20, param="b", lo="3", hi="7")
    # b_c = 1 + a^2, omega = a, r' = d(trace/2)/db = 1/2 (the pair a +- i... crosses)
    tol = mpmath.mpf(10) ** -18
    assert abs(nf.theta_c - 5) < tol and abs(nf.omega - 2) < tol
    assert abs(nf.r_prime - mpmath.mpf(1) / 2) < tol
    with mpmath.workdps(30):  # the period at dps digits, not at the precision in force
        assert abs(nf.period - mpmath.pi) < tol
        assert nf.record()["period"] == mpmath.nstr(+mpmath.pi, 20) == "3.1415926535897932385"
    exact = first_lyapunov(bru, ("b",), derivative=True)
    with mpmath.workdps(40):
        h = exact.hopf((mpmath.mpf(5),), mpmath.mpf(2))  # the exact Hopf point
        assert abs(h.l1 - nf.l1_unit) < tol
        assert abs(mpmath.re(h.c1) / abs(h.q[0]) ** 2 / 2 - nf.l1) <= nf.l1_radius + tol
        assert abs(h.r_prime - nf.r_prime) < tol
        # c = 2 |q_x| sqrt(Re r' / |Re c1|) with q_x = 1
        c = 2 * mpmath.sqrt(mpmath.mpf(1) / 2 / abs(nf.l1 * 2))
        assert abs(nf.amplitude_coefficient - c) < tol
    assert nf.criticality == "supercritical" and nf.l1_radius < tol


def test_founding_model_through_the_range_equals_its_own_paths():
    from symdelay.models import build_model

    exact = normal_form(build_model("erlang", L=2, mu=1, lam=1, D=1))  # specialised
    nf = normal_form(build_model("erlang", L=2, mu=1, lam=1, D=1), lo=8, hi=12)
    assert nf.method != exact.method and nf.l1_radius is not None
    assert set(nf.record()) == set(exact.record())  # one record shape
    tol = mpmath.mpf(10) ** -13
    assert abs(nf.theta_c - 9) < tol  # theta_c = 9 at L = 2, mu = lam = D = 1
    for k in ("l1", "l1_unit", "amplitude_coefficient", "c1", "r_prime"):
        assert abs(getattr(nf, k) - getattr(exact, k)) < tol * (1 + abs(getattr(exact, k))), k
    assert nf.record()["l1_normalisation"] == exact.record()["l1_normalisation"]
    assert (nf.L, nf.mu, nf.lam, nf.D) == (exact.L, exact.mu, exact.lam, exact.D)


def test_range_refusals(chain):
    with pytest.raises(SymdelayInputError, match=r"^no Hopf point in \[2.2, 2.4\]: the unstable "
                       r"count is 2 throughout \(at each of the 64 equally spaced values"):  # fmt: skip
        normal_form(chain, param="b1", lo="2.2", hi="2.4")
    with pytest.raises(SymdelayInputError, match="both lo and hi"):
        normal_form(chain, param="b1", lo="2.2")
    with pytest.raises(SymdelayInputError, match="lo < hi"):
        normal_form(chain, param="b1", lo="2.4", hi="2.2")
    with pytest.raises(SymdelayInputError, match="no specialised path"):
        normal_form(chain, param="b1", lo="2", hi="2.4", method="specialised")


def test_cli_range(capsys, chain_nf):
    argv = ["normal-form", "--model-file", FILE, "--in", "b1", "--range", "2.0:2.4"]
    assert cli_main([*argv, "--dps", "20", "--json"]) == 0
    import json

    rec = json.loads(capsys.readouterr().out)
    assert rec == json.loads(json.dumps(chain_nf.to_json()))
    assert rec["hopf_points"][0]["value"] == rec["critical_value"]
    assert cli_main([*argv[:-1], "2.2:2.4"]) == 2
    assert capsys.readouterr().err.startswith(
        "symdelay: error: no Hopf point in [2.2, 2.4]: the unstable count is 2 throughout ("
    )


def test_critical_over_a_range(capsys, chain, chain_nf):
    from symdelay.analysis.critical import critical

    curve = critical(chain, "b1", lo="2.0", hi="2.4", dps=20)
    (pt,) = curve.points
    assert abs(pt.critical - chain_nf.theta_c) < mpmath.mpf(10) ** -19
    assert abs(pt.omega - chain_nf.omega) < mpmath.mpf(10) ** -19
    assert "the unstable count 0 below it and 2 above" in pt.note
    with pytest.raises(SymdelayInputError, match="leave at"):
        critical(chain, "b1", over="a1", at=[5], lo="2.0", hi="2.4")
    argv = ["critical", "--model-file", FILE, "--param", "b1", "--range"]
    assert cli_main([*argv, "2.2:2.4"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        "symdelay: error: no crossing in [2.2, 2.4]: the unstable count is 2 throughout ("
    )
