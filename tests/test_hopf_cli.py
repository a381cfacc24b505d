"""CLI contracts of ``critical``, ``worst-delay`` and ``window``; bad input is one line, exit 2."""

from __future__ import annotations

import json

import mpmath
import pytest

from symdelay.models.erlang.hopf import critical_theta, instability_window, worst_delay


def _digits(text: str) -> int:
    mant = text.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0")
    return len(mant)


def test_critical_json_contract(run_cli):
    status, out, err = run_cli(
        "critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "0.5,1,2,4", "--json"
    )
    assert status == 0 and err == ""
    rec = json.loads(out)
    assert set(rec) >= {"L", "points"} and rec["L"] == 3  # keys kept; closed forms added
    assert [p["D"] for p in rec["points"]] == ["0.5", "1", "2", "4"]
    api = critical_theta(3, 1, 1, [0.5, 1, 2, 4]).points
    for p, q in zip(rec["points"], api):
        assert set(p) == {"D", "theta_c", "omega", "mode"}  # mode: the one record's key
        assert float(p["theta_c"]) == pytest.approx(float(q.theta_c), rel=1e-14)
        assert float(p["omega"]) == pytest.approx(float(q.omega), rel=1e-14)
        assert _digits(p["theta_c"]) == 15


def test_critical_dps_and_inf(run_cli):
    rec = json.loads(
        run_cli(
            "critical",
            "--L",
            "inf",
            "--mu",
            "1",
            "--lam",
            "2",
            "--D",
            "1.5",
            "--dps",
            "30",
            "--json",
        )[1]
    )
    assert rec["L"] == "inf"
    (p,) = rec["points"]
    assert _digits(p["theta_c"]) == 30
    with mpmath.workdps(40):
        w = mpmath.mpf(p["omega"])
        # DDE modulus and phase conditions at 30 digits
        assert abs(mpmath.sqrt(1 + w**2) / 2 - mpmath.mpf(p["theta_c"])) < 1e-28
        assert abs(w * mpmath.mpf("1.5") + mpmath.atan(w) - mpmath.pi) < 1e-28
    rec1 = json.loads(
        run_cli("critical", "--L", "1", "--mu", "1", "--lam", "1", "--D", "2", "--json")[1]
    )
    assert rec1["points"] == [{"D": "2", "theta_c": "inf", "omega": None, "mode": "difference"}]


def test_worst_delay_json_contract(run_cli):
    status, out, _ = run_cli("worst-delay", "--L", "3", "--mu", "1", "--lam", "1", "--json")
    assert status == 0
    rec = json.loads(out)
    assert {"L", "D_star", "theta_star", "closed_form"} <= set(rec)
    assert set(rec["closed_form"]) == {"D_star", "theta_star"}
    w = worst_delay(3, 1, 1)
    assert float(rec["D_star"]) == pytest.approx(float(w.D_star), rel=1e-14)
    assert float(rec["theta_star"]) == pytest.approx(float(w.theta_star), rel=1e-14)
    rec_inf = json.loads(
        run_cli("worst-delay", "--L", "inf", "--mu", "2", "--lam", "1", "--json")[1]
    )
    assert rec_inf["D_star"] == "inf" and rec_inf["attained"] is False
    assert float(rec_inf["theta_star"]) == 2.0 and rec_inf["attained"] is False
    assert any("not attained" in n for n in rec_inf["method"]["notes"])


def test_window_json_contract(run_cli):
    status, out, _ = run_cli(
        "window", "--L", "4", "--theta", "3", "--mu", "1", "--lam", "1", "--json"
    )
    assert status == 0
    rec = json.loads(out)
    api = instability_window(4, 3, 1, 1).intervals
    assert len(rec["intervals"]) == len(api) >= 1
    for (a, b), (x, y) in zip(rec["intervals"], api):
        assert float(a) == pytest.approx(float(x), rel=1e-14)
        assert (b == "inf") == bool(mpmath.isinf(y))
    rec = json.loads(
        run_cli("window", "--L", "10", "--theta", "2", "--mu", "1", "--lam", "1", "--json")[1]
    )
    assert rec["intervals"][-1][1] == "inf"


def test_human_output(run_cli):
    status, out, _ = run_cli("critical", "--L", "1", "--mu", "1", "--lam", "1", "--D", "1")
    assert status == 0 and "stable for every theta" in out
    status, out, _ = run_cli("window", "--L", "3", "--theta", "-5", "--mu", "1", "--lam", "1")
    assert status == 0 and "longer queue" in out


BAD = [
    (("critical", "--L", "0", "--mu", "1", "--lam", "1", "--D", "1"), "L must be"),
    (("critical", "--L", "-2", "--mu", "1", "--lam", "1", "--D", "1"), "L must be"),
    (("critical", "--L", "2.5", "--mu", "1", "--lam", "1", "--D", "1"), "L must be"),
    (("critical", "--L", "3", "--mu", "0", "--lam", "1", "--D", "1"), "mu must be positive"),
    (("critical", "--L", "3", "--mu", "-1", "--lam", "1", "--D", "1"), "mu must be positive"),
    (("critical", "--L", "3", "--mu", "nan", "--lam", "1", "--D", "1"), "mu must be"),
    (("critical", "--L", "3", "--mu", "1", "--lam", "0", "--D", "1"), "lam must be positive"),
    (("critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "0"), "D must be positive"),
    (("critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "1,-2"), "D must be positive"),
    (("critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "nan"), "D must be"),
    (("critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "1,,2"), "--D takes numbers"),
    (("critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "1", "--dps", "4"), "dps"),
    (("critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "1", "--dps", "10001"), "dps"),
    (("worst-delay", "--L", "0", "--mu", "1", "--lam", "1"), "L must be"),
    (("worst-delay", "--L", "3", "--mu", "nan", "--lam", "1"), "mu must be"),
    (("window", "--L", "4", "--theta", "nan", "--mu", "1", "--lam", "1"), "theta must be"),
    (("window", "--L", "4", "--theta", "3", "--mu", "-1", "--lam", "1"), "mu must be positive"),
    (("window", "--L", "x", "--theta", "3", "--mu", "1", "--lam", "1"), "L must be"),
]


@pytest.mark.parametrize("argv,needle", BAD, ids=[" ".join(a[:3]) + "..." for a, _ in BAD])
def test_bad_input_is_one_line_exit_2(run_cli, argv, needle):
    status, out, err = run_cli(*argv)
    assert status == 2 and out == ""
    assert err.startswith("symdelay: error: ") and err.count("\n") == 1
    assert needle in err


# ------------------------------------------------------------------ tracker defects
def _closed_L2(m, g):
    """L = 2 in closed form (critical_closed_form): lam theta_c = 2 (mu+g)^2/g, omega^2 = g (g+2mu)."""
    return 2 * (m + g) ** 2 / g, mpmath.sqrt(g * (g + 2 * m))


@pytest.mark.parametrize("D", ["1e-300", "1e-6", "1e6", "1e300"])
def test_critical_extreme_delays_L2_against_closed_form(run_cli, D):
    rec = json.loads(
        run_cli("critical", "--L", "2", "--mu", "1", "--lam", "1", "--D", D, "--json")[1]
    )
    with mpmath.workdps(40):
        k, w = _closed_L2(mpmath.mpf(1), 2 / mpmath.mpf(D))
        assert rec["points"][0]["theta_c"] == mpmath.nstr(k, 15, strip_zeros=False)
        assert rec["points"][0]["omega"] == mpmath.nstr(w, 15, strip_zeros=False)


def test_critical_last_digit_at_default_dps(run_cli):
    """1000004.000004 was printed 1000004.00000399 (float64 rounded twice)."""
    out = run_cli("critical", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1e6")[1]
    assert "1000004.00000400" in out and "0.00200000099999975" in out


def test_critical_tiny_delay_finite_and_dde(run_cli):
    s, out, err = run_cli("critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "1e-300")
    # D -> 0: atan(omega/mu) -> pi/2, omega = gamma tan(pi/6), lam theta_c = 8 gamma/9
    assert s == 0 and err == "" and "nan" not in out and "2.66666666666667e+300" in out
    rec = json.loads(
        run_cli("critical", "--L", "inf", "--mu", "1", "--lam", "1", "--D", "1e-200", "--json")[1]
    )
    # DDE, D -> 0: omega D -> pi/2 and lam theta = sqrt(mu^2 + omega^2)
    assert rec["points"][0]["theta_c"] == "1.57079632679490e+200"


def test_critical_huge_mu_no_traceback(run_cli):
    s, out, err = run_cli("critical", "--L", "3", "--mu", "1e308", "--lam", "1", "--D", "1")
    assert s == 0 and err == "" and "nan" not in out and "inf" not in out
    # mu >> omega: the mu factor adds ~omega/mu ~ 1e-308 to the phase, so 3 atan(omega/3) = pi
    # to within that: omega = 3 tan(pi/3) and lam theta_c = mu (1 + tan^2(pi/3))^(3/2) = 8 mu
    assert "8.00000000000000e+308" in out and "5.19615242270663" in out


def test_window_exact_root_at_large_D_limit(run_cli):
    """lam theta = 4 mu, L = 4: the right end of the window is D = inf (was ZeroDivisionError)."""
    s, out, err = run_cli("window", "--L", "4", "--theta", "4", "--mu", "1", "--lam", "1", "--json")
    assert s == 0 and err == ""
    ((a, b),) = json.loads(out)["intervals"]
    assert b == "inf"
    # theta_c(D) < 4 beyond the left end (independent path: the Hopf phase solver)
    pts = critical_theta(4, 1, 1, [float(a) * 1.001, 1e3, 1e9]).points
    assert all(p.theta_c < 4 for p in pts)
    assert critical_theta(4, 1, 1, [float(a) * 0.999]).points[0].theta_c > 4


def test_window_text_and_huge_theta(run_cli):
    out = run_cli("window", "--L", "1", "--theta", "3", "--mu", "1", "--lam", "1")[1]
    assert "stable for every D in (0, inf)" in out and "unstable for D in no" not in out
    s, out, _ = run_cli("window", "--L", "4", "--theta", "1e300", "--mu", "1", "--lam", "1")
    assert s == 0 and "theta = 1e+300" in out and "0" * 30 not in out


def test_worst_delay_json_one_spelling_of_infinity(run_cli):
    out = run_cli("worst-delay", "--L", "inf", "--mu", "1", "--lam", "1", "--json")[1]
    assert '"oo"' not in out and "-> oo" not in out
    rec = json.loads(out)
    assert rec["D_star"] == rec["closed_form"]["D_star"] == "inf"
