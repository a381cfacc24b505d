"""The equilibrium from every real zero of the drift, and the Hopf start of a followed
equilibrium, on the Hastings-Powell food chain (tests/data/food_chain.toml), whose closed
form with b1 free is not singled out (its interior equilibrium exists for some b1 only).

Independent second paths: the interior equilibrium solved by hand from the ODEs of the
file's header (y = d2 / (a2 - b2 d2) = 1/8 from the top predator, x from the quadratic
(1 - x)(1 + b1 x) = a1 y, z from the predator's equation), the Jacobian by central
differences of those ODEs written out here, and numpy's eigenvalues."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import symdelay
from symdelay.core.errors import SymdelayInputError
from symdelay.model.core import model_from_dict
from symdelay.model.equilibrium import _certified, certified_equilibrium
from symdelay.model.realsolve import real_zeros

FILE = str(Path(__file__).parent / "data" / "food_chain.toml")
A1, A2, B2, D1, D2 = 5.0, 0.1, 2.0, 0.4, 0.01


def _odes(s, b1):
    x, y, z = s
    f1 = A1 * x / (1 + b1 * x)
    f2 = A2 * y / (1 + B2 * y)
    return np.array([x * (1 - x) - f1 * y, f1 * y - f2 * z - D1 * y, f2 * z - D2 * z])


def _interior(b1):
    """The interior equilibrium by hand (module docstring)."""
    y = D2 / (A2 - B2 * D2)
    # (1 - x)(1 + b1 x) = a1 y  <=>  b1 x^2 + (1 - b1) x + (a1 y - 1) = 0, the positive root
    c = A1 * y - 1
    x = ((b1 - 1) + np.sqrt((1 - b1) ** 2 - 4 * b1 * c)) / (2 * b1)
    z = (A1 * x / (1 + b1 * x) - D1) * (1 + B2 * y) / A2
    return np.array([x, y, z])


def _jacobian(s, b1, h=1e-6):
    J = np.empty((3, 3))
    for j in range(3):
        e = np.zeros(3)
        e[j] = h
        J[:, j] = (_odes(s + e, b1) - _odes(s - e, b1)) / (2 * h)
    return J


@pytest.fixture(scope="module")
def chain():
    return symdelay.load_toml(FILE)


def test_every_real_zero_and_the_closed_form_at_numbers(chain):
    m = chain.with_values(b1="5/2")
    eq = _certified(m)
    # the closed form with b1 = 5/2 (the file's header): x = 3/10 + sqrt(6)/5, z = 8 sqrt(6) - 8
    exact = {"x": sp.Rational(3, 10) + sp.sqrt(6) / 5, "y": sp.Rational(1, 8)}
    exact["z"] = 8 * sp.sqrt(6) - 8
    assert not eq.exact and eq.radius < 1e-25
    for s in m.states:
        assert abs(sp.N(eq.point[s] - exact[s.name], 40)) < 1e-25
    # six real zeros at b1 = 5/2: the origin, (1, 0, 0), the predator-prey one, the two
    # roots of the quadratic (one with x < 0) and one with y = 1/8, x = 0, z < 0
    zeros = real_zeros(m.steady_drift, m.states)
    assert len(zeros) == 6
    assert sorted(z.signs for z in zeros).count((1, 1, 1)) == 1


def test_default_start_does_not_solve_in_radicals(chain):
    m = chain.with_values(b1="2.2")
    y0 = m.default_start()
    assert "equilibrium" not in m.__dict__  # SymPy's solve was not run
    want = _interior(2.2)
    want[0] *= 1.5
    assert np.allclose(y0, want, rtol=1e-12, atol=0)


def test_free_parameter_refused_in_one_line_from_a_sample(chain):
    with pytest.raises(SymdelayInputError) as exc:
        chain.equilibrium  # noqa: B018
    text = str(exc.value)
    assert "\n" not in text
    # at b1 = 16 the interior equilibrium is gone: z < 0 by hand
    assert _interior(16.0)[2] < 0 and _interior(2.2)[2] > 0
    assert (
        "b1 = 16" in text
        and "none with every state positive" in text
        and "give numbers for b1" in text
    )


def test_several_positive_equilibria_refused():
    # x' = 3 x^2 - 2 x - x^3 = -x (x - 1)(x - 2): two positive equilibria, 1 and 2
    bistable = model_from_dict(
        {
            "name": "bistable",
            "parameters": {"c": "positive"},
            "values": {"c": 1},
            "state": {"names": ["x"]},
            "transitions": [
                {"name": "birth", "change": {"x": 1}, "rate": "3*x**2"},
                {"name": "death", "change": {"x": -1}, "rate": "2*x + x**3"},
            ],
        }
    )
    signs = sorted(z.signs for z in real_zeros(bistable.steady_drift, bistable.states))
    assert signs == [(0,), (1,), (1,)]
    with pytest.raises(SymdelayInputError, match="3 equilibria with every state >= 0"):
        _certified(bistable)
    assert certified_equilibrium(bistable) is None


def test_hopf_point_of_the_followed_equilibrium(chain):
    from symdelay.analysis.hopf_numeric import moving_hopf_points

    mh = moving_hopf_points(chain, "b1", "2.0", "2.4")
    (h,) = mh.points
    assert mh.stop is None and h.signs[0] == -h.signs[1]
    b1 = float(h.value)
    assert abs(b1 - 2.113787) < 1e-6  # the file's header: 2.11379
    s = _interior(b1)
    assert np.allclose([float(v) for v in h.state], s, rtol=1e-12)
    ev = np.linalg.eigvals(_jacobian(s, b1))
    pair = ev[np.argmax(ev.imag)]
    assert abs(pair.real) < 1e-8 and abs(pair.imag - float(h.omega)) < 1e-8
    # the pair crosses: stable below, unstable above
    for d, sign in ((-1e-3, -1), (1e-3, 1)):
        ev = np.linalg.eigvals(_jacobian(_interior(b1 + d), b1 + d))
        assert np.sign(np.max(ev.real)) == sign


def test_cycles_start_at_the_hopf_point(chain):
    branch = symdelay.cycles(chain, "b1", "2.0", "2.2", max_points=6)
    assert branch.start["kind"] == "Hopf point"
    assert abs(float(branch.start["value"]) - 2.1137865206) < 1e-9
    assert branch.start["criticality"] == "supercritical"
    p0 = branch.points[0]
    assert p0.value > 2.1137865 and p0.stable is True
    # the period near the Hopf point is 2 pi / omega (numpy's, at the located b1)
    b1 = float(branch.start["value"])
    w = np.max(np.linalg.eigvals(_jacobian(_interior(b1), b1)).imag)
    assert abs(p0.period * w / (2 * np.pi) - 1) < 0.01


def test_stability_with_an_equilibrium_in_radicals(chain):
    m = chain.with_values(b1="2.2")  # x = 3/11 + sqrt(474)/44: algebraic coefficients
    st = symdelay.stability(m)
    assert np.max(np.linalg.eigvals(_jacobian(_interior(2.2), 2.2)).real) > 0
    assert st.verdict == "unstable"


def test_casus_irreducibilis_picked_from_every_real_zero():
    # x' = 3 x + 1 - x^3: three real roots, SymPy's radicals complex (casus irreducibilis),
    # so the closed form cannot tell their signs; at numbers every real zero is enumerated
    # and the one positive root is the equilibrium
    cubic = model_from_dict(
        {
            "name": "cubic",
            "parameters": {"c": "positive"},
            "values": {"c": 1},
            "state": {"names": ["x"]},
            "transitions": [
                {"name": "birth", "change": {"x": 1}, "rate": "3*x + c"},
                {"name": "death", "change": {"x": -1}, "rate": "x**3"},
            ],
        }
    )
    eq = cubic.equilibrium
    (want,) = [r.real for r in np.roots([-1, 0, 3, 1]) if r.real > 0]
    (x,) = cubic.states
    assert not eq.exact and "every real zero" in eq.method
    assert abs(float(eq.point[x]) - want) < 1e-12 and eq.radius < 1e-25
    assert abs(float(eq.point[x]) - 2 * np.cos(np.pi / 9)) < 1e-12  # the trigonometric form
