"""Generic certified polynomial roots: against the Erlang solver, mpmath, Routh, exact cases."""

from __future__ import annotations

import random

import mpmath
import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.polyroots import exact_counts, polynomial_roots
from symdelay.analysis.routh import routh_hurwitz
from symdelay.core.errors import SymdelayInputError
from symdelay.core.symbols import gamma, lam, mu, r, theta
from symdelay.models.erlang.charpoly import characteristic_polynomial
from symdelay.models.erlang.roots import characteristic_roots

s = sp.Symbol("s")


def _match(a, b):
    """Pair two lists of mpc by nearest neighbour; return the pairs."""
    b = list(b)
    out = []
    for z in a:
        j = min(range(len(b)), key=lambda k: abs(b[k] - z))
        out.append((z, b.pop(j)))
    return out


@pytest.mark.parametrize("L", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("method", ["fmpz", "acb"])
def test_erlang_same_roots_as_structured_solver(L, method):
    """Generic path on the expanded exact polynomial vs the Erlang branch solver (roots/solve)."""
    dps = 40
    params = {
        mu: sp.Rational(13, 10),
        lam: sp.Rational(7, 10),
        theta: 5,
        gamma: L / sp.Rational(9, 4),
    }
    P = sp.expand(characteristic_polynomial(L).subs(params))
    gen = polynomial_roots(P, r, dps=dps, method=method)
    ref = characteristic_roots(L, "1.3", "0.7", 5, "9/4", dps=dps)
    assert len(gen) == len(ref) == L + 1
    with mpmath.workdps(dps + 20):
        for z, w in _match([z.value for z in gen], [z.value for z in ref]):
            assert abs(z - w) < mpmath.mpf(10) ** (-dps)
        for zg in gen:
            near = min(ref, key=lambda q: abs(q.value - zg.value))
            assert abs(zg.value - near.value) <= zg.radius + near.radius
    assert gen.unstable_count == ref.unstable_count
    assert gen.axis_count == 0


def _random_poly(rng, deg):
    return [rng.randint(-9, 9) or 1 for _ in range(deg)] + [rng.randint(-9, 9)]


@pytest.mark.parametrize("seed", range(6))
def test_random_against_mpmath_polyroots_and_routh(seed):
    rng = random.Random(seed)
    deg = rng.choice([5, 9, 17, 30])
    c = _random_poly(rng, deg)
    c[0] = rng.choice([1, 2, 3, -5])
    P = sum(ci * s ** (deg - i) for i, ci in enumerate(c))
    res = polynomial_roots(P, s, dps=30)
    with mpmath.workdps(60):
        ref = mpmath.polyroots(c, maxsteps=400, extraprec=400)
        for z, w in _match([z.value for z in res], ref):
            assert abs(z - w) < mpmath.mpf(10) ** -28
    # counts: certified discs vs exact Cauchy index (inside) vs Routh-Hurwitz (independent)
    assert res.unstable_count == routh_hurwitz(sp.expand(P), s).rhp_count
    assert res.unstable_count == int(np.sum(np.roots(c).real > 0))


@pytest.mark.parametrize(
    "P,roots,axis,rhp",
    [
        ((s + 1) * (s**2 + 1), [1j, -1j, -1], 2, 0),
        ((s - 2) * (s + 3) * (s**2 + 1) ** 2, [2, 1j, -1j, -3], 4, 1),
        (s**2 * (s**2 + 4) * (s - 1), [1, 2j, 0, -2j], 4, 1),
        ((s - 1) ** 3 * (s + 1) ** 2, [1, -1], 0, 3),
        (s**4 - 1, [1, 1j, -1j, -1], 2, 1),
        ((s - sp.I) * (s + 2), [1j, -2], 1, 0),  # Gaussian-rational coefficients
        (s**2 - sp.sqrt(2) * s + 1, [(1 + 1j) / 2**0.5, (1 - 1j) / 2**0.5], 0, 2),  # algebraic
    ],
)
def test_exact_cases(P, roots, axis, rhp):
    res = polynomial_roots(P, s, dps=25)
    assert res.axis_count == axis and res.unstable_count == rhp
    assert np.allclose([complex(z.value) for z in res], roots, atol=1e-20)
    assert sum(z.multiplicity for z in res) == sp.degree(P, s)
    for z in res:
        assert z.on_axis == (complex(z.value).real == 0)


def test_exact_counts_against_routh_random():
    rng = random.Random(7)
    for _ in range(30):
        deg = rng.randint(1, 12)
        c = _random_poly(rng, deg)
        c[0] = rng.choice([1, -2, 3])
        P = sum(ci * s ** (deg - i) for i, ci in enumerate(c))
        ex = exact_counts(c)
        assert ex.rhp + ex.axis + ex.lhp == deg
        if ex.axis == 0:
            assert ex.rhp == routh_hurwitz(sp.expand(P), s).rhp_count


def test_erlang_on_axis_by_the_generic_path():
    """theta = 4, D = 3, L = 3: (r^2 + 1)(r^2 + 4 r + 5) once expanded."""
    P = sp.expand(characteristic_polynomial(3).subs({mu: 1, lam: 1, theta: 4, gamma: 1}))
    res = polynomial_roots(P, r, dps=30)
    assert res.axis_count == 2 and res.unstable_count == 0
    assert [str(z.to_json(10)["re"]) for z in res][:2] == ["0", "0"]
    assert "Cauchy index (exact)" in res.count_methods


def test_json_and_string_input():
    res = polynomial_roots("s**2 + 2*s + 5", "s", dps=10)
    rec = res.to_json()
    assert rec["parameters"] == {"var": "s", "degree": "2"}
    assert rec["unstable_count"] == 0 and len(rec["roots"]) == 2 and rec["verdict"] == "stable"
    assert rec["roots"][0]["re"] == "-1.000000000"
    assert rec["factors"][0]["factor"] == "s**2 + 2*s + 5"


@pytest.mark.parametrize(
    "args,needle",
    [
        ((s**2 + mu, s), "besides"),
        ((sp.Integer(3), s), "degree < 1"),
        ((s**2 + 1 / s, s), "not a polynomial"),
        ((s**2 + 1, s, 3), "dps must be"),
        ((s**2 + sp.sqrt(2), s, 20, "fmpz"), "rational coefficients"),
        ((s**2 + 1, s, 20, "magic"), "method must be"),
    ],
)
def test_bad_input(args, needle):
    with pytest.raises(SymdelayInputError, match=needle) as exc:
        polynomial_roots(*args)
    assert "\n" not in str(exc.value)
