"""Routing that counts jobs in flight: derivation, kappa*, unstable windows, criteria, CLI.

Every result is compared with an independent path: explicit determinants, the generic model
layer, numpy eigenvalues on a grid, SciPy's Lyapunov solver, dense sampling.
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys

import mpmath
import numpy as np
import pytest
import sympy as sp

import symdelay
from symdelay.analysis.stochastic import variance as lna_entry
from symdelay.core.errors import SymdelayInputError
from symdelay.core.symbols import gamma, lam, mu, r, theta
from symdelay.models import build_model
from symdelay.models.erlang.stochastic import variance as founding_variance
from symdelay.models.inflight.charpoly import inflight_polynomial, verify_inflight_determinant
from symdelay.models.inflight.criteria import (
    decay_rate,
    imbalance_matrices,
    lna_variance,
    optimize_weights,
    rates,
    tolerance_time,
)
from symdelay.models.inflight.curve import kappa_star, unstable_theta


def _abscissa(L, mu_, lam_, th, D, weights):
    p = rates(L, mu_, lam_, th, D)
    return float(np.max(np.linalg.eigvals(imbalance_matrices(p, weights)[0]).real))


# ----------------------------------------------------------------------- derivation
@pytest.mark.parametrize("n", range(1, 9))
def test_general_formula_equals_explicit_determinant(n):
    assert verify_inflight_determinant(n).equal
    assert verify_inflight_determinant(n, per_phase=True).equal


@pytest.mark.parametrize("n, k", [(1, "1/3"), (2, "1/2"), (3, "2"), (4, "1/7")])
def test_model_layer_difference_factor_matches(n, k):
    m = build_model("inflight", L=n, kappa=k)
    diff = next(md for md in m.modes if md.name == "difference")
    ours = inflight_polynomial(n, sp.Rational(k))
    assert sp.expand(diff.charpoly - ours) == 0


def test_inflight_polynomial_reduces_to_founding_at_kappa_zero():
    for n in range(1, 6):
        P0 = (r + mu) * (r + gamma) ** n + lam * theta * gamma**n
        assert sp.expand(inflight_polynomial(n, 0) - P0) == 0


# ------------------------------------------------------------------------ kappa star
def test_kappa_star_L2_closed_form_and_value():
    ks = kappa_star(2, 1, 1, dps=30)
    g = sp.Integer(2)
    closed = (g / (g + 1 + sp.sqrt(2 * g * (2 * g + 1)))) ** 2
    with mpmath.workdps(40):
        assert abs(ks.kappa_star - mpmath.mpf(str(sp.N(closed, 40)))) < mpmath.mpf(10) ** -28
    assert ks.closed_form is not None


@pytest.mark.parametrize("L, muD", [(2, 0.5), (3, 1), (4, 3), (6, 1), (10, 2)])
def test_kappa_star_brackets_by_numpy_scan(L, muD):
    ks = float(kappa_star(L, mu=1, D=muD, dps=15).kappa_star)
    thetas = np.geomspace(1e-2, 1e6, 2500)
    below = [_abscissa(L, 1, 1, t, muD, ks * 0.97) for t in thetas]
    above = [_abscissa(L, 1, 1, t, muD, ks * 1.03) for t in thetas]
    assert max(below) > 0, "just below kappa* some theta must destabilise"
    assert max(above) < 0, "just above kappa* every theta must be stable"


def test_kappa_star_increases_towards_one_half():
    vals = [float(kappa_star(L, 1, 1, dps=15).kappa_star) for L in (2, 5, 20, 100)]
    assert all(a < b < 0.5 for a, b in itertools.pairwise(vals))
    assert 0.5 - vals[-1] < 0.02
    assert kappa_star("inf").kappa_star == mpmath.mpf(1) / 2


def test_limit_identity_numerically():
    # kappa(w) from Cramer's rule on the L = oo quasi-polynomial, evaluated directly
    for muv, D in ((1, 1), (0.3, 2.5)):
        for w in (0.37, 1.9, 7.3, 40.1):
            A = complex(muv, w)
            B0 = np.exp(-1j * w * D)
            W = complex(muv, w) * (1 - np.exp(-1j * w * D)) / (1j * w)
            kap = -np.imag(np.conj(A) * B0) / np.imag(np.conj(A) * W)
            s, c = math.sin(w * D / 2), math.cos(w * D / 2)
            claim = 0.5 - (w * c + muv * s) ** 2 / (2 * s**2 * (muv**2 + w**2))
            assert kap == pytest.approx(claim, rel=1e-9, abs=1e-12)
            assert kap <= 0.5 + 1e-12


def test_last_phase_only_never_stabilises_at_L3():
    ks = kappa_star(3, 1, 1, pattern="last", dps=15)
    assert ks.kappa_star is None
    thetas = np.geomspace(1e-2, 1e6, 1500)
    for k in (0.5, 3.0, 30.0):
        assert max(_abscissa(3, 1, 1, t, 1, [0, 0, k]) for t in thetas) > 0


# --------------------------------------------------------------------- unstable theta
@pytest.mark.parametrize(
    "L, kappa, muv, lamv, D",
    [(2, "0.05", 1, 1, 1), (2, "0", 1, 1, 1), (3, "0.1", 1, 2, 1), (5, "0.2", 2, 1, "1/2"),
     (4, "0.3", 1, 1, 3)],
)  # fmt: skip
def test_unstable_theta_against_numpy_grid(L, kappa, muv, lamv, D):
    res = unstable_theta(L, kappa, mu=muv, lam=lamv, D=D, dps=15)
    ivals = [(float(a), float(b)) for a, b in res.intervals]
    Df = float(sp.Rational(D))
    for t in np.geomspace(1e-2, 1e5, 1200):
        near = any(abs(t - e) < 1e-6 * e for iv in ivals for e in iv if math.isfinite(e))
        if near:
            continue
        inside = any(a < t < b for a, b in ivals)
        ab = _abscissa(L, muv, lamv, t, Df, float(sp.Rational(kappa)))
        assert (ab > 0) == inside, (t, ab, ivals)


def test_unstable_theta_window_is_bounded_and_matches_generic_candidates():
    res = unstable_theta(2, "0.05", 1, 1, 1, dps=20)
    (lo, hi), = res.intervals  # fmt: skip
    assert math.isfinite(hi)
    crit = symdelay.critical(build_model("inflight", L=2, kappa="0.05", mu=1, lam=1, D=1), dps=20)
    (_factor, found), = crit.points[0].per_factor  # fmt: skip
    cands = [p for p, _ in found.candidates]
    assert abs(cands[0] / lo - 1) < 1e-15 and abs(cands[1] / hi - 1) < 1e-15


# --------------------------------------------------------------------------- criteria
@pytest.mark.parametrize("L, k, th", [(1, "1/2", 3), (2, "1/10", 5), (3, "3/5", 2)])
def test_lna_variance_equals_generic_model_layer(L, k, th):
    m = build_model("inflight", L=L, mu=1, lam=1, theta=th, D=1, kappa=k)
    exact = lna_entry(m).value
    assert lna_variance(rates(L, 1, 1, th, 1), float(sp.Rational(k))) == pytest.approx(
        float(exact), rel=1e-10
    )


def test_decay_rate_equals_certified_rightmost_root():
    from symdelay.analysis.polyroots import polynomial_roots

    for L, k, th in ((2, sp.Rational(1, 4), 7), (4, sp.Rational(1, 2), 3)):
        P = inflight_polynomial(L, k).subs({mu: 1, lam: 1, theta: th, gamma: L})
        roots = polynomial_roots(sp.expand(P), r, dps=20)
        alpha = max(float(mpmath.re(z.value)) for z in roots.roots)
        assert decay_rate(rates(L, 1, 1, th, 1), float(k)) == pytest.approx(-alpha, rel=1e-9)


def test_tolerance_linear_against_dense_expm_and_nonlinear_small_limit():
    from scipy.linalg import expm

    p = rates(2, 1, 1, 5, 1)
    J = imbalance_matrices(p, 0.3)[0]
    T = tolerance_time(p, 0.3, nonlinear=False)
    dt = 1e-3
    step = expm(J * dt)  # exact propagator over dt: a path independent of the eigenvectors
    ts = np.arange(0, T + 5, dt)
    y, xs = np.array([1.0, 0, 0]), np.empty(ts.size)
    for i in range(ts.size):
        xs[i] = y[0]
        y = step @ y
    last = ts[np.nonzero(np.abs(xs) > 0.05)[0][-1]]
    assert abs(last - T) < 2e-3
    # the nonlinear system tends to the linear one for small imbalances
    Tn = tolerance_time(p, 0.3, nonlinear=True, x0=1e-4)
    assert Tn == pytest.approx(tolerance_time(p, 0.3, nonlinear=False, x0=1e-4), rel=1e-3)
    assert tolerance_time(rates(2, 1, 1, 12, 1), 0.0) == math.inf


@pytest.mark.parametrize("criterion", ["decay", "variance", "tolerance-linear"])
def test_optimum_beats_a_fine_grid(criterion):
    res = optimize_weights(2, 1, 1, 5, 1, criterion)
    p = rates(2, 1, 1, 5, 1)
    from symdelay.models.inflight.criteria import MAXIMISE, criterion_value

    grid = [criterion_value(criterion, p, k) for k in np.linspace(0, 2, 801)]
    best = max(grid) if MAXIMISE[criterion] else min(grid)
    if MAXIMISE[criterion]:
        assert res.value >= best - 1e-9
    else:
        assert res.value <= best + 1e-9
    per = optimize_weights(2, 1, 1, 5, 1, criterion, per_phase=True)
    assert (per.value >= res.value - 1e-9) if MAXIMISE[criterion] else per.value <= res.value + 1e-9


def test_bad_inputs_raise_value_errors():
    with pytest.raises(SymdelayInputError):
        unstable_theta(2, "-1")
    with pytest.raises(SymdelayInputError):
        kappa_star(2, pattern="middle")
    with pytest.raises(SymdelayInputError):
        optimize_weights(2, theta=1, criterion="speed")
    with pytest.raises(ValueError):
        rates(2, theta=-1)


# -------------------------------------------------------------------------------- CLI
def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "symdelay", *args], capture_output=True, text=True, timeout=300
    )


def test_cli_contracts():
    out = _cli("unstable-theta", "--L", "2", "--kappa", "0.05", "--mu", "1", "--lam", "1",
               "--D", "1", "--json")  # fmt: skip
    rec = json.loads(out.stdout)
    assert rec["parameters"]["L"] == 2 and rec["parameters"]["kappa"] == "0.05"
    assert len(rec["intervals"]) == 1 and all(isinstance(x, str) for x in rec["intervals"][0])
    rec = json.loads(_cli("unstable-theta", "--L", "2", "--kappa", "0.2", "--json").stdout)
    assert rec["intervals"] == []
    rec = json.loads(_cli("kappa-star", "--L", "3", "--mu", "1", "--D", "1", "--json").stdout)
    assert rec["L"] == 3 and rec["closed_form"] is None
    assert abs(float(rec["kappa_star"]) - float(kappa_star(3, 1, 1).kappa_star)) < 1e-25
    rec = json.loads(_cli("kappa-star", "--L", "2", "--mu", "1", "--D", "1", "--json").stdout)
    from symdelay.core.symbols import SYMBOLS

    assert sp.sympify(rec["closed_form"], locals=SYMBOLS).free_symbols == {gamma, mu}
    rec = json.loads(
        _cli("optimize-weights", "--L", "2", "--mu", "1", "--lam", "1", "--theta", "5", "--D",
             "1", "--criterion", "variance", "--per-phase", "--json").stdout
    )  # fmt: skip
    assert set(rec) >= {"criterion", "kappa", "value", "at_kappa_0", "at_kappa_1"}
    assert isinstance(rec["kappa"], list) and len(rec["kappa"]) == 2
    assert float(rec["value"]) < float(rec["at_kappa_1"]) < float(rec["at_kappa_0"])


@pytest.mark.parametrize(
    "args",
    [
        ("unstable-theta", "--L", "2", "--kappa", "-1"),
        ("unstable-theta", "--L", "0", "--kappa", "1"),
        ("kappa-star", "--L", "2", "--D", "0"),
        ("kappa-star", "--L", "2", "--pattern", "middle"),
        ("optimize-weights", "--L", "2", "--theta", "5", "--criterion", "variance",
         "--kappa-max", "x"),
        ("critical", "--model", "nserver", "--kappa", "1"),
    ],
)  # fmt: skip
def test_cli_bad_input_one_line_exit_2(args):
    out = _cli(*args)
    assert out.returncode == 2
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


@pytest.mark.parametrize(
    "cmd",
    [
        ("critical", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1"),
        ("roots", "--L", "2", "--mu", "1", "--lam", "1", "--theta", "20", "--D", "1"),
        ("variance", "--L", "2", "--mu", "1", "--lam", "1", "--theta", "5", "--D", "1"),
        ("fluid", "--L", "2", "--mu", "1", "--lam", "1", "--theta", "5", "--D", "1", "--T", "2"),
        ("simulate", "--L", "2", "--mu", "1", "--lam", "1", "--theta", "5", "--D", "1", "--T",
         "2", "--eta", "50"),
    ],
)  # fmt: skip
def test_founding_commands_take_kappa(cmd):
    out = _cli(*cmd, "--kappa", "0.05", "--json")
    assert out.returncode == 0, out.stderr
    rec = json.loads(out.stdout)
    assert "in flight" in json.dumps(rec)


def test_python_kappa_keyword():
    v = founding_variance(2, 1, 1, 5, 1, kappa=0.1)
    assert float(v) == pytest.approx(lna_variance(rates(2, 1, 1, 5, 1), 0.1), rel=1e-12)
    crit = symdelay.critical(build_model("inflight", L=2, kappa="0.05", mu=1, lam=1, D=1))
    assert float(crit.to_json()["points"][0]["theta_c"]) == pytest.approx(
        float(unstable_theta(2, "0.05").intervals[0][0]), rel=1e-12
    )


def test_thinned_observation_limits_and_factor():
    from symdelay.models.inflight.partial import thinned_model, thinned_variance

    p5 = rates(2, 1, 1, 5, 1)
    assert thinned_variance(2, 1, theta=5) == pytest.approx(lna_variance(p5, 1.0), rel=1e-12)
    assert thinned_variance(2, 0, theta=5) == pytest.approx(lna_variance(p5, 0.0), rel=1e-12)
    m = thinned_model(2, "1/2", theta=5)
    target = sp.Poly(
        inflight_polynomial(2, sp.Rational(1, 2)).subs({mu: 1, lam: 1, theta: 5, gamma: 2}), r
    ).monic()
    assert any(sp.Poly(f.factor, r).monic() == target for f in m.factors)
    assert thinned_variance(2, "1/2", theta=5) > lna_variance(p5, 0.5)
