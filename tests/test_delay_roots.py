"""Certified rightmost roots of delay models (``roots`` on a model with exp(-r tau) mode
functions) against Lambert W (the scalar r + mu + a e^{-r tau}) and against the spectral
collocation of the generator (an independent, uncertified path)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import mpmath
import pytest

from symdelay.analysis.roots import roots
from symdelay.core.errors import SymdelayInputError
from symdelay.model import load_toml

ROOT = Path(__file__).resolve().parents[1]
INFO = ROOT / "examples" / "models" / "information_delay.toml"
MIX = ROOT / "examples" / "models" / "two_lag_mixture.toml"


def _lambert(mu, a, tau, branches=range(-40, 41)):
    """Every root -mu + W_k(-a tau e^{mu tau})/tau of r + mu + a e^{-r tau} on the branches,
    rightmost first."""
    with mpmath.workdps(40):
        z = -a * tau * mpmath.exp(mu * tau)
        out = [-mu + mpmath.lambertw(z, k) / tau for k in branches]
    return sorted(out, key=lambda v: (-v.real, -v.imag))


def _info(**values):
    return load_toml(INFO).with_values(**values)


@pytest.mark.parametrize(
    ("theta", "D", "k"),
    [(2, 1, 6), (2, 2, 5), ("0.7", 3, 8), (5, "0.5", 4)],
)
def test_rightmost_roots_are_the_lambert_roots(theta, D, k):
    mu, lam = 1, 1
    res = roots(_info(mu=mu, lam=lam, theta=theta, D=D), dps=25, rightmost=k)
    with mpmath.workdps(40):
        a = mpmath.mpf(lam) * mpmath.mpf(str(theta))
        expected = _lambert(mpmath.mpf(mu), a, mpmath.mpf(str(D)))
    diff = [z for z in res if z.mode == "difference"]
    # the listed roots of the difference mode are the rightmost Lambert roots, in order
    assert len(diff) >= 2
    for z, w in zip(diff, expected):
        with mpmath.workdps(40):
            assert abs(z.value - w) <= z.radius + mpmath.mpf(10) ** -30
        assert z.radius < mpmath.mpf(10) ** -20 * (1 + abs(w))
    # and none is missing: the next Lambert root lies left of every listed one, or the
    # list stopped at the proved abscissa
    listed = {(round(float(z.value.real), 9), round(float(z.value.imag), 9)) for z in diff}
    right = [w for w in expected if w.real > min(z.value.real for z in diff) + 1e-12]
    assert {(round(float(w.real), 9), round(float(w.imag), 9)) for w in right} <= listed
    # the sum mode r + mu: its root -mu, exactly
    assert all(z.value == -mu for z in res if z.mode == "sum")
    # the count and the verdict: Lambert's principal branch decides
    rhp = sum(1 for w in expected if w.real > 0)
    assert res.unstable_count == rhp
    assert res.verdict == ("unstable" if rhp else "stable")
    rec = res.to_json()
    assert {"roots", "spectral_abscissa", "unstable_count", "verdict"} <= set(rec)
    assert set(rec["roots"][0]) >= {"re", "im", "radius"}
    assert mpmath.mpf(rec["spectral_abscissa"]) == pytest.approx(float(expected[0].real))


def test_box_holds_exactly_the_lambert_roots_in_it():
    res = roots(_info(mu=1, lam=1, theta=3, D=1), dps=20, box=("-2.5", "0.5", "-1", "30"))
    expected = [
        w for w in _lambert(mpmath.mpf(1), mpmath.mpf(3), mpmath.mpf(1)) if -2.5 < w.real < 0.5
    ]
    expected = [w for w in expected if -1 < w.imag < 30]
    diff = [z for z in res if z.mode == "difference"]
    assert len(diff) == len(expected) >= 3
    for z, w in zip(diff, expected):
        with mpmath.workdps(40):
            assert abs(z.value - w) <= z.radius + mpmath.mpf(10) ** -25
    assert res.scope == "box"


def test_two_lags_against_the_collocation():
    import numpy as np

    from symdelay.analysis.collocation import collocation_eigenvalues
    from symdelay.analysis.lagroots import _mode_groups

    m = load_toml(MIX).with_values(mu=1, lam=1, theta=3, D1=1, D2="2.5", w="0.3")
    res = roots(m, dps=20, rightmost=8)
    lags = {k: lag.xreplace(m.values) for k, lag in m.lags.items()}
    (_n, lin, _f, _c) = next(g for g in _mode_groups(m) if g[0] == "difference")
    spec = collocation_eigenvalues(lin, lags)
    ev = np.asarray(spec.eigenvalues)
    for z in res:
        if z.mode != "difference":
            continue
        near = np.min(np.abs(ev - complex(z.value)))
        assert near < 1e-7
    # the collocation finds no eigenvalue right of the proved abscissa that is not listed
    cut = min(float(z.value.real) for z in res if z.mode == "difference")
    extra = [e for e in ev if e.real > cut + 1e-6]
    assert len(extra) == sum(1 for z in res if z.mode == "difference" and z.value.real > cut)
    assert res.unstable_count == spec.count_right() == 2


def test_degree_ten_companion_form_against_the_collocation():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from bench_lagroots import quasi

    from symdelay.analysis.collocation import collocation_eigenvalues
    from symdelay.analysis.delayroots import mode_roots

    lin, lags = quasi(10, 2)
    res = mode_roots(lin, lags, rightmost=6, dps=20)
    ev = collocation_eigenvalues(lin, lags).eigenvalues
    for (c, _rad), e in zip(res.roots, ev):
        assert abs(complex(c) - complex(e)) < 1e-7
    assert res.count.unstable == 4
    assert res.complete[0] == "right_of"


def test_bad_input_is_one_line():
    m = _info(mu=1, lam=1, theta=2, D=1)
    with pytest.raises(SymdelayInputError, match="x0 < x1"):
        roots(m, box=(1, 0, 0, 1))
    with pytest.raises(SymdelayInputError, match="four numbers"):
        roots(m, box=(1, 0, 0))
    with pytest.raises(SymdelayInputError, match="branches"):
        roots(m, branches=(-1, 1))
    with pytest.raises(SymdelayInputError, match="rightmost"):
        roots(m, rightmost=0)
    with pytest.raises(SymdelayInputError, match="numbers only"):
        roots(load_toml(INFO).with_values(mu=1, lam=1, theta=2))


def test_cli_rightmost_and_box():
    base = [sys.executable, "-m", "symdelay", "roots", "--model-file", str(INFO)]
    base += ["--set", "mu=1", "--set", "lam=1", "--set", "theta=2", "--set", "D=1"]
    out = subprocess.run([*base, "--rightmost", "3", "--json"], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    import json

    rec = json.loads(out.stdout)
    assert rec["verdict"] == "stable" and rec["unstable_count"] == 0
    assert len(rec["roots"]) == 3
    bad = subprocess.run([*base, "--rightmost", "3", "--box=-1,1,0,3"], capture_output=True)
    assert bad.returncode == 2 and b"Traceback" not in bad.stderr


def test_quasi_polynomial_of_rational_entries_equals_the_symbolic_determinant():
    """The determinant expanded in QQ[r, y] directly (rational entries) against the same
    determinant of the symbolic matrix r I - A0 - sum (r if neutral else 1) M_k y_k, expanded
    by SymPy: equal groups on random blocks with one to three lags, neutral terms included."""
    import random

    import sympy as sp

    from symdelay.analysis.delayroots import QuasiMatrix
    from symdelay.model.lags import Lag, Linearisation, LinearTerm

    rng = random.Random(32)

    def q():
        return sp.Rational(rng.randint(-5, 5), rng.randint(1, 4)) if rng.random() < 0.6 else 0

    for n, nt in [(2, 1), (3, 2), (2, 3)]:
        lags, terms = {}, []
        for k in range(nt):
            lag = Lag(f"t{k}", "constant", {"value": sp.Rational(k + 1, 2)})
            lags[lag.name] = lag
            M = sp.ImmutableMatrix(n, n, lambda i, j: q())
            terms.append(LinearTerm(M, lag.laplace(), (lag.name,), k == 1))
        lin = Linearisation(sp.ImmutableMatrix(n, n, lambda i, j: q()), tuple(terms))
        cm = QuasiMatrix(lin, lags)
        r = cm._r
        ys = [sp.Symbol(f"_y{k}") for k in range(len(cm.terms))]
        D = r * sp.eye(n) - sp.Matrix(cm.A0)
        for (M, _K, _o, deriv), y in zip(cm.terms, ys):
            D -= sp.Matrix(M) * (r * y if deriv else y)
        groups: dict = {}
        for monom, c in sp.Poly(sp.expand(D.det(method="berkowitz")), r, *ys).terms():
            groups.setdefault(monom[1:], {})[monom[0]] = c
        assert cm._expanded == [(b, groups[b]) for b in sorted(groups)]
