"""SQ(d) fixed point: Newton against the closed form, against long integration, Little's
law s_1 = lam, the proved tail bound, truncation, CLI contract and bad input."""

from __future__ import annotations

import json

import mpmath
import pytest

from symdelay.core.errors import SymdelayInputError
from symdelay.models.sqd import fixed_point, fluid
from symdelay.models.sqd.fixed_point import geometric_certificate, tail_bound, truncation_level
from symdelay.models.sqd.fluid import tails
from symdelay.models.sqd.service import exponential, mp_moment, residual_means, service_from_options

ERL2 = service_from_options("erlang", k=2)
H2 = service_from_options("hyperexp", probs="0.3,0.7", rates="0.5,2")
COX = service_from_options("coxian", rates="1,2,4", probs="0.5,0.25")


@pytest.mark.parametrize("d", [1, 2, 3, 5])
@pytest.mark.parametrize("lam", ["0.5", "0.9", "0.99"])
def test_newton_equals_closed_form(d, lam):
    if d == 1 and lam == "0.99":
        lam = "0.95"  # M/M/1: K ~ 1000 levels at 30 digits; keep the test short
    a = fixed_point(d, lam, dps=30, method="closed")
    b = fixed_point(d, lam, dps=30, method="newton")
    assert a.truncation == b.truncation
    with mpmath.workdps(40):
        worst = max(abs(x - y) for x, y in zip(a.tail, b.tail))
        assert worst < mpmath.mpf(10) ** -27
        assert abs(a.mean_sojourn - b.mean_sojourn) < mpmath.mpf(10) ** -26 * a.mean_sojourn
        # the sojourn series of the derivation, summed independently
        lamm = mpmath.mpf(lam.split("/")[0]) if "/" not in lam else None
        if d > 1:
            series = mpmath.nsum(lambda k: lamm ** ((d**k - d) / (d - 1)), [1, mpmath.inf])
            assert abs(series - a.mean_sojourn) < mpmath.mpf(10) ** -25


@pytest.mark.parametrize("svc", [ERL2, H2, COX], ids=["erlang2", "hyperexp", "coxian"])
def test_newton_vs_long_integration(svc):
    fp = fixed_point(2, "0.8", svc, dps=20)
    tr = fluid(2, "0.8", svc, T=600, K=fp.truncation, points=3)
    end = tails(tr)[-1]
    assert max(abs(float(fp.tail[k]) - end[k]) for k in range(fp.truncation)) < 1e-7


@pytest.mark.parametrize("svc", [ERL2, H2, COX], ids=["erlang2", "hyperexp", "coxian"])
@pytest.mark.parametrize("d", [1, 2, 3])
def test_little_law_and_tail_bound(svc, d):
    fp = fixed_point(d, "0.85", svc, dps=25, method="newton")
    with mpmath.workdps(30):
        assert abs(fp.tail[0] - mpmath.mpf("0.85")) < mpmath.mpf(10) ** -22
    b = tail_bound(svc, d, "0.85", fp.truncation)
    assert all(float(s) <= bk * (1 + 1e-12) for s, bk in zip(fp.tail, b))
    assert fp.error < mpmath.mpf(10) ** -24
    # every truncation is proved now (d = 1: the matrix-geometric certificate)
    assert fp.method == "newton"


def test_exponential_bound_is_the_exact_recursion():
    b = tail_bound(exponential(), 2, "0.9", 6)
    fp = fixed_point(2, "0.9", dps=20)
    assert max(abs(x - float(y)) for x, y in zip(b, fp.tail)) < 1e-15


def test_more_service_variability_longer_sojourn():
    t = [fixed_point(2, "0.9", s).mean_sojourn for s in (ERL2, exponential(), H2)]
    assert t[0] < t[1] < t[2]


def test_cli_contract(run_cli):
    status, out, _ = run_cli(
        "sqd",
        "fixed-point",
        "--d",
        "2",
        "--lam",
        "0.9",
        "--service",
        "erlang",
        "--k",
        "2",
        "--json",
    )
    assert status == 0
    rec = json.loads(out)
    for key in (
        "d",
        "lam",
        "service",
        "tail",
        "mean_queue",
        "mean_sojourn",
        "closed_form",
        "truncation",
    ):
        assert key in rec
    assert rec["d"] == 2 and rec["lam"] == "0.9" and rec["closed_form"] is None
    assert rec["truncation"] == len(rec["tail"])
    status, out, _ = run_cli("sqd", "fixed-point", "--d", "3", "--lam", "0.5", "--json")
    rec = json.loads(out)
    assert rec["closed_form"] == "lam**(3**k/2 - 1/2)" or "3**k" in rec["closed_form"]


@pytest.mark.parametrize(
    "argv,words",
    [
        (["--lam", "1"], "unstable"),
        (["--lam", "1.2"], "unstable"),
        (["--d", "0"], "d must be"),
        (["--d", "2.5"], "d must be"),
        (["--service", "ph", "--alpha", "0.5,0.4", "--S", "[[-1,0],[0,-2]]"], "sum to 1"),
        (["--service", "ph", "--alpha", "1,0", "--S", "[[-1,2],[0,-2]]"], "sub-generator"),
        (["--service", "erlang"], "--k"),
        (["--lam", "0.6", "--mean", "2"], "unstable"),
    ],
)
def test_bad_input_one_line(run_cli, argv, words):
    status, out, err = run_cli("sqd", "fixed-point", *argv)
    assert status == 2 and out == ""
    assert err.startswith("symdelay: error:") and err.count("\n") == 1 and words in err


def test_python_bad_input():
    with pytest.raises(SymdelayInputError):
        fixed_point(2, "nan")
    with pytest.raises(SymdelayInputError):
        fixed_point(2, "0.5", method="closed", service=ERL2)


# ---------------------------------------------------------------- d = 1: M/PH/1, proved bound
@pytest.mark.parametrize("svc", [H2, COX, ERL2], ids=["hyperexp", "coxian", "erlang2"])
@pytest.mark.parametrize("lam", ["1/2", "0.8"])
def test_d1_certificate_bounds_the_exact_matrix_geometric_tail(svc, lam):
    """The certified bound const c^k lies above the exact M/PH/1 tail at every level, decays
    at (nearly) the true rate eta = sp(R), and the exact law itself has s_1 = rho and the
    Pollaczek-Khinchine mean queue length (an independent closed form)."""
    cert = geometric_certificate(svc, lam, dps=20)
    n = cert.levels + 40
    exact = cert.exact_tail(n, svc, lam, dps=40)
    with mpmath.workdps(40):
        lamm = mpmath.mpf(sp_rational(lam).p) / sp_rational(lam).q
        assert abs(exact[0] - lamm) < mpmath.mpf(10) ** -35  # s_1 = rho (mean 1)
        m2 = mp_moment(svc, 2, dps=40)
        pk = lamm + lamm**2 * m2 / (2 * (1 - lamm))
        rest = cert.const * cert.c ** (n + 1) / (1 - cert.c)  # bound on sum_{k > n} s_k
        total = mpmath.fsum(exact)
        assert total <= pk <= total + mpmath.mpf(rest.p) / rest.q + mpmath.mpf(10) ** -30
        ratio = exact[-1] / exact[-2]
    assert abs(float(ratio) - cert.eta) < 1e-6  # the tail decays at the spectral radius
    assert cert.eta < float(cert.c) < 1
    for k in range(1, n + 1):
        b = cert.const * cert.c**k
        assert exact[k - 1] <= mpmath.mpf(b.p) / b.q, k
    # tight: the bound is within a constant factor of the truth (no loss in the rate)
    last = cert.const * cert.c**n
    assert float(last) / float(exact[-1]) < 1e4
    # the truncation it implies: the first level whose successor's bound is below 1e-23
    assert (
        float(cert.const * cert.c**cert.levels)
        < 1e-23
        <= float(cert.const * cert.c ** (cert.levels - 1))
    )


def test_d1_certificate_needs_c_above_the_spectral_radius():
    """Below sp(R) the linear solve for w gives a non-positive entry, so a wrong c cannot
    pass as a certificate (Perron-Frobenius: R is positive here)."""
    import sympy as sp

    cert = geometric_certificate(H2, "0.8", dps=15)
    assert all(v > 0 for v in cert.R)
    c = sp.Rational(int(cert.eta * 0.999 * 10**9), 10**9)
    w = (sp.eye(2) - cert.R / c).LUsolve(sp.ones(2, 1))
    assert any(v <= 0 for v in w)
    c = cert.c
    w = (sp.eye(2) - cert.R / c).LUsolve(sp.ones(2, 1))
    assert all(v >= 1 for v in w) and all(v <= c * wv for v, wv in zip(cert.R * w, w))


@pytest.mark.parametrize("lam", ["1/2", "0.8"])
def test_d1_newton_with_proved_truncation_matches_matrix_geometric(lam):
    """lam r_max >= 1 for this H2 (r_max = 40/19): the Little recursion does not decay, the
    certificate gives K; Newton's tails agree with the exact matrix-geometric tails."""
    assert float(sp_rational(lam)) * max(float(v) for v in residual_means(H2)) >= 1
    fp = fixed_point(1, lam, H2, dps=20, method="newton")
    cert = geometric_certificate(H2, lam, dps=20)
    assert fp.method == "newton" and fp.truncation == cert.levels - 1
    assert fp.truncation == truncation_level(H2, 1, sp_rational(lam), 20)
    exact = cert.exact_tail(fp.truncation, H2, lam, dps=30)
    with mpmath.workdps(30):
        assert max(abs(a - b) for a, b in zip(fp.tail, exact)) < mpmath.mpf(10) ** -19


def sp_rational(text):
    import sympy as sp

    return sp.Rational(text)


def test_d1_matrix_geometric_path_near_saturation():
    """d = 1, phase-type service: the exact matrix-geometric law needs no truncation, so it
    also answers where a proved truncation would need thousands of levels (lam = 0.95, H2);
    it agrees with Newton on the truncated system and with Pollaczek-Khinchine."""
    import sympy as sp

    from symdelay.models.phase_type import PhaseType
    from symdelay.models.sqd.fixed_point import fixed_point

    svc = PhaseType.hyperexp(["1/10", "9/10"], ["1/5", "9/5"])
    for lam in ("9/10", "19/20"):
        fp = fixed_point(1, lam, svc, dps=20)
        assert fp.method.startswith("matrix-geometric")
        l = sp.Rational(lam)
        m2 = 2 * (svc.alpha * svc.S.inv() ** 2 * sp.ones(2, 1))[0]
        rho = l * svc.mean
        pk = rho + l**2 * m2 / (2 * (1 - rho))
        assert abs(float(fp.mean_queue) / float(pk) - 1) < 1e-15
    newton = fixed_point(1, "9/10", svc, dps=15, method="newton")
    exact = fixed_point(1, "9/10", svc, dps=15)
    assert abs(float(newton.mean_queue) / float(exact.mean_queue) - 1) < 1e-12
    for a, b in zip(newton.tail[:50], exact.tail[:50], strict=False):
        assert abs(float(a) - float(b)) < 1e-13
