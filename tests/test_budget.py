"""The shared cost guard: hostile sizes are refused in one line (exit 2) before any work,
--force lifts the refusal, and the slow cases that are polynomial-size problems answer
(checked against independent paths: closed forms, numpy / mpmath roots)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
import sympy as sp

import symdelay.core.budget as budget
from symdelay.analysis.polyroots import exact_counts
from symdelay.core.budget import Budget, check_budget, check_memory, duration, size_text
from symdelay.core.errors import SymdelayInputError

FOUNDING = ["--L", "2", "--mu", "1", "--lam", "1", "--D", "1"]


def refused(status, out, err, *words):
    """Exit 2, nothing on stdout, one line on stderr naming --force and the words."""
    assert status == 2, err
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("symdelay: error: ")
    assert "Traceback" not in err
    for w in words:
        assert w in err, (w, err)


# ----------------------------------------------------------------------------- mechanism
def test_check_budget_returns_under_and_refuses_over_with_what_to_shrink():
    assert check_budget("x", 59.0, shrink="y") == 59.0
    with pytest.raises(SymdelayInputError) as info:
        check_budget("the Routh array of degree 900", 61.0, shrink="a lower degree")
    msg = str(info.value)
    assert isinstance(info.value, ValueError) and "\n" not in msg
    assert "degree 900" in msg and "a lower degree" in msg and "--force" in msg
    assert "61 seconds" in msg and "60 seconds budget" in msg
    assert check_budget("x", 1e12, force=True, shrink="y") == 1e12


@pytest.mark.parametrize("bad", [math.inf, math.nan])
def test_unbounded_or_unknown_estimates_count_as_over(bad):
    with pytest.raises(SymdelayInputError, match="--force"):
        check_budget("x", bad, shrink="y")


def test_memory_budget_and_custom_budget():
    assert check_memory("grid", 2**30, shrink="fewer points") == 2**30
    with pytest.raises(SymdelayInputError, match=r"8 GiB of memory \(over the 4 GiB budget\)"):
        check_memory("grid", 8 * 2**30, shrink="fewer points")
    with pytest.raises(SymdelayInputError, match="over the 1 seconds budget"):
        check_budget("x", 2.0, shrink="y", budget=Budget(seconds=1))
    assert duration(7200) == "2 hours" and size_text(3 * 2**20) == "3 MiB"


# ----------------------------------------------------------------- refusals (one line)
HOSTILE = [
    (["stability", "--L", "40"], "L = 40"),
    (["variance", "--L", "100000"], "L = 100000"),
    (["fluid", "--L", "1000000000"], "memory"),
    (["simulate", "--L", "1000000000"], "transition table"),
    (["simulate", "--model", "nserver", "--N", "1000000"], "--N"),
    (["analyze", "--model", "nserver", "--N", "1000"], "--N"),
    (
        [
            "analyze",
            "--model",
            "phase_type",
            "--delay",
            "hyperexp",
            "--probs",
            "0.5,0.5",
            "--rates",
            "1e-300,1e300",
        ],
        "digits",
    ),
    (["kappa-star", "--L", "1000000"], "L = 1000000"),
    (["limit-cycle", *FOUNDING, "--theta", "9.5:180:1000000"], "1000000 points"),
    (["spectrum", *FOUNDING, "--theta", "2", "--points", "100000000"], "--points"),
    (["routh", "s**9000 + k*s + 1"], "degree 9000"),
]


@pytest.mark.parametrize(("argv", "word"), HOSTILE, ids=[" ".join(a[:2]) for a, _ in HOSTILE])
def test_hostile_sizes_are_refused_in_one_line(run_cli, argv, word):
    status, out, err = run_cli(*argv)
    refused(status, out, err, word)
    # the hard limits have no --force (a list of values holds at most 100000 points)
    hard = ("2 GB", "10^6", "more than 100 digits", "more than 100000")
    if not any(h in err for h in hard):
        assert "--force" in err


def test_derive_refuses_a_huge_L(run_cli, tmp_path):
    refused(*run_cli("derive", "--L", "100000", "--out", str(tmp_path)), "L = 100000", "--force")
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(
    "argv",
    [
        ["limit-cycle", *FOUNDING, "--theta", "1e308"],
        ["optimize-weights", "--L", "2", "--theta", "1e308", "--criterion", "variance"],
        ["roots", "--L", "2", "--mu", "1", "--lam", "1", "--theta", "5", "--D", "1e300"],
        ["roots", "--L", "inf", "--mu", "1", "--lam", "1", "--theta", "1e308", "--D", "1"],
    ],
    ids=["limit-cycle", "optimize-weights", "roots", "roots-inf"],
)
def test_values_beyond_double_range_are_refused_without_a_traceback(run_cli, argv):
    """Answered (the certified roots at D = 1e300 are found at raised precision) or refused
    in one line; never a traceback."""
    status, out, err = run_cli(*argv)
    if status == 0:
        assert err == "" and out
    else:
        refused(status, out, err)


# ------------------------------------------------------------------ --force takes effect
@pytest.mark.parametrize(
    "argv",
    [
        ["stability", "--L", "2"],
        ["routh", "s**3 + 2*s**2 + 3*s + 1"],
        ["spectrum", *FOUNDING, "--theta", "2", "--points", "11"],
        ["variance", "--L", "1", "--theta", "1"],
        ["kappa-star", "--L", "2"],
        ["fluid", "--L", "1", "--T", "1"],
        ["analyze", "--model", "nserver", "--N", "2", "--L", "1"],
        ["limit-cycle", *FOUNDING, "--theta", "10"],
    ],
    ids=lambda a: a[0],
)
def test_force_runs_what_the_budget_refuses(run_cli, monkeypatch, argv):
    import symdelay.models.erlang.stability

    monkeypatch.setattr(symdelay.models.erlang.stability, "_DONE", set())  # as if never computed
    monkeypatch.setattr(budget, "DEFAULT_BUDGET", Budget(seconds=1e-12, bytes=1))
    refused(*run_cli(*argv), "--force")
    status, out, err = run_cli(*argv, "--force")
    assert status == 0 and out and err == ""


# --------------------------------------------------------------------- Routh made fast
def _rhp_numpy(coeffs, tol=1e-6):
    z = np.roots([float(c) for c in coeffs])
    return int(np.sum(z.real > tol)), int(np.sum(np.abs(z.real) <= tol))


@pytest.mark.parametrize("n", [40, 199, 200])
def test_routh_of_s_to_the_n_plus_1_counts_the_right_half_plane(run_cli, n):
    from symdelay.analysis.routh import routh_hurwitz

    res = routh_hurwitz(f"s**{n} + 1", "s")
    # closed form: the roots exp(i pi (2k+1)/n), none on the axis (n even: (2k+1)/n != 1/2)
    rhp = sum(1 for k in range(n) if math.cos(math.pi * (2 * k + 1) / n) > 0)
    assert (res.rhp_count, res.imaginary_axis_count, res.is_stable) == (rhp, 0, False)
    assert _rhp_numpy([1] + [0] * (n - 1) + [1]) == (rhp, 0)
    status, out, _ = run_cli("routh", f"s**{n} + 1")
    assert status == 0 and f"roots in Re > 0: {rhp}" in out and "stable: False" in out


def test_routh_special_cases_agree_with_numpy_and_the_classical_array():
    import symdelay.analysis.routh as R

    s = sp.Symbol("s")
    cases = [
        (s**2 + 1) ** 2 * (s + 1) * (s - 2),
        (s**2 + 4) * (s**4 + s**3 + 3 * s**2 + 3 * s + 3),
        s**6 + s**5 - 2 * s**4 - 3 * s**3 - 7 * s**2 - 4 * s - 4,
        (s**2 + 1) * (s**2 + 2) * (s - 1) * (s + 3),
        s**8 + 1,
    ]
    for p in cases:
        coeffs = sp.Poly(sp.expand(p), s).all_coeffs()
        fast = R.routh_hurwitz(sp.expand(p), s)
        assert _rhp_numpy(coeffs) == (fast.rhp_count, fast.imaginary_axis_count), p
        ex = exact_counts(coeffs)  # gcd and Cauchy index, not the Routh array
        assert (ex.rhp, ex.axis) == (fast.rhp_count, fast.imaginary_axis_count)
        rows, _, _, _ = R._special(coeffs, s, R._EpsExpr)  # in SymPy, the same rules
        for a, b in zip(fast.table, rows):
            assert all(sp.cancel(x - y) == 0 for x, y in zip(a, b)), p


# --------------------------------------------------------------- roots at extreme scales
def _mp_roots(L, mu, lam, theta, D):
    """Independent path: mpmath polyroots of (r+mu)(r+gamma)^L + lam theta gamma^L."""
    r = sp.Symbol("r")
    g = sp.Rational(L) / sp.Rational(D)
    P = sp.Poly(
        (r + sp.Rational(mu)) * (r + g) ** L + sp.Rational(lam) * sp.Rational(theta) * g**L, r
    )
    with mpmath.workdps(80):
        cs = [mpmath.mpf(c.p) / c.q for c in P.all_coeffs()]
        # r = scale * s: coefficient k of s is c_k / scale^k, all at most 1 (polyroots likes it)
        scale = max(abs(c) ** (mpmath.mpf(1) / k) for k, c in enumerate(cs) if k and c)
        zs = mpmath.polyroots([c / scale**k for k, c in enumerate(cs)], maxsteps=500, extraprec=400)
        zs = [z * scale for z in zs]
        return sorted((complex(z) for z in zs), key=lambda z: (-z.real, -z.imag))


@pytest.mark.parametrize(
    "params",
    [
        ("1", "1", "5", "1e20"),
        ("1", "1", "5", "1e33"),
        ("1", "1", "5", "1e40"),
        ("1e-300", "1e300", "5", "1"),
        ("1", "1", "1e308", "1"),
    ],
    ids=["D=1e20", "D=1e33", "D=1e40", "mu=1e-300,lam=1e300", "theta=1e308"],
)
def test_roots_at_extreme_scales_answer_correctly(params):
    from symdelay.models.erlang.roots import characteristic_roots

    mu, lam, theta, D = params
    res = characteristic_roots(2, mu, lam, theta, D, dps=20)
    got = sorted((complex(z.value) for z in res), key=lambda z: (-z.real, -z.imag))
    want = _mp_roots(2, mu, lam, theta, D)
    assert len(got) == 3
    for a, b in zip(got, want):
        assert abs(a - b) <= 1e-12 * abs(b)
    assert res.unstable_count == sum(1 for z in want if z.real > 0)
    for z in res:
        assert z.radius <= 1e-15 * abs(z.value)


def test_roots_command_at_D_1e20_prints_the_certified_roots(run_cli):
    status, out, err = run_cli("roots", "--L", "2", "--mu", "1", "--lam", "1", "--theta", "5",
                               "--D", "1e20", "--dps", "15")  # fmt: skip
    assert status == 0 and err == "" and "0 with Re r > 0" in out
    # (r + 1)(r + g)^2 + 5 g^2 with g = 2e-20: r = -g +- i sqrt(5) g to first order
    assert "-2.00000000000000e-20 + 4.47213595499958e-20i  +- " in out


# ----------------------------------------------------------------- limit cycle, spectrum
def test_limit_cycle_just_above_theta_c_matches_the_normal_form():
    from symdelay.models.erlang.nonlinear import limit_cycle
    from symdelay.models.erlang.nonlinear.normal_form import normal_form

    nf = normal_form(2, 1, 1, 1)
    assert float(nf.theta_c) == pytest.approx(9.0, rel=1e-12)  # 2 (gamma + mu)^2 / gamma
    cyc = limit_cycle(2, 1, 1, 1, "9.0000001")
    predicted = float(nf.amplitude_coefficient) * math.sqrt(1e-7)
    assert cyc.amplitude_x == pytest.approx(predicted, rel=1e-3)
    assert cyc.period == pytest.approx(2 * math.pi / float(nf.omega), rel=1e-4)


def test_spectrum_at_theta_0_is_two_independent_infinite_server_queues(run_cli):
    from symdelay.models.erlang.nonlinear import spectrum

    # theta = 0: Q1, Q2 independent Poisson(eta lam/mu) -> Var(Q1 - Q2)/eta = 2 lam/mu
    for th in (0, "0", "0.0"):
        s = spectrum(2, mu=2, lam=3, theta=th, D=1)
        assert s.variance == pytest.approx(3.0, rel=1e-9)
    refused(*run_cli("spectrum", *FOUNDING, "--theta", "-1"), "theta")


def test_forced_covers_nested_estimates_and_ends_with_its_block():
    from symdelay.core.budget import forced

    with forced():
        assert check_budget("inner", 1e9, shrink="y") == 1e9
        with forced(False):  # an inner block cannot un-force the run
            assert check_budget("inner", 1e9, shrink="y") == 1e9
    with pytest.raises(SymdelayInputError):
        check_budget("after", 1e9, shrink="y")
