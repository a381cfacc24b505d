"""The delay-differential limit's characteristic function and Lambert-W roots are stored as
code (``symdelay.models.erlang.roots.solve``) so that ``roots --L inf`` needs no SymPy; here
they are re-derived (the L -> oo limit of the founding characteristic equation, SymPy's
solve of it) and compared, symbolically and at 40 digits on every branch listed."""

from __future__ import annotations

import random
import subprocess
import sys
from fractions import Fraction

import flint
import mpmath
import sympy as sp

from symdelay.core.symbols import D, lam, mu, r, theta
from symdelay.models.erlang.charpoly import infinite_L_limit
from symdelay.models.erlang.roots import solve
from symdelay.models.erlang.roots.equations import ball_functions, lambert_w_roots_formula


def test_stored_forms_equal_the_derivation_symbolically():
    stored_G = r + mu + lam * theta * sp.exp(-D * r)
    assert sp.simplify(infinite_L_limit().result - stored_G) == 0
    derived = lambert_w_roots_formula()
    (k,) = (s for s in derived.free_symbols if s.name == "k")  # the branch index
    stored_root = -mu + sp.LambertW(-lam * theta * D * sp.exp(mu * D), k) / D
    assert sp.simplify(derived - stored_root) == 0


def test_stored_roots_equal_the_lambdified_derivation_on_every_branch():
    rng = random.Random(7)
    derived = sp.lambdify((mu, lam, theta, D, sp.Symbol("k")), lambert_w_roots_formula(), "mpmath")
    with mpmath.workdps(40):
        for _ in range(20):
            v = [mpmath.mpf(rng.randint(1, 400)) / rng.randint(1, 40) for _ in range(4)]
            v[2] *= rng.choice((-1, 1))  # theta of either sign
            for kk in range(-3, 4):
                a, b = solve._lambert_root(*v, kk), derived(*v, kk)
                assert abs(a - b) <= mpmath.mpf(10) ** -35 * (1 + abs(b))


def test_stored_balls_enclose_the_lambdified_derivation():
    rng = random.Random(11)
    derived = ball_functions(limit=True)
    with flint.ctx.workprec(200):
        for _ in range(30):
            p = [flint.arb(flint.fmpq(rng.randint(1, 300), rng.randint(1, 30))) for _ in range(4)]
            z = flint.acb(flint.arb(rng.uniform(-3, 3)), flint.arb(rng.uniform(-30, 30)))
            for mine, theirs in zip(solve._dde_balls(z, *p), derived(z, *p), strict=True):
                assert mine.overlaps(theirs)
                assert abs(mine - theirs).abs_upper() < 1e-50 * (1 + abs(theirs).abs_upper())


def test_roots_of_the_limit_run_without_sympy_and_with_fractions():
    code = (
        "import sys; from symdelay.cli import main; "
        "main(['roots', '--L', 'inf', '--mu', '1', '--lam', '2', '--theta', '1', '--D', '1']); "
        "print('sympy' in sys.modules, 'numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "False False"
    p = solve._params(*(Fraction(x) for x in (1, 2, 1, 1)), exact=Fraction)
    assert all(isinstance(v, Fraction) for v in p.values())
