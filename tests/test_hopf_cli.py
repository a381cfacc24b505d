"""CLI contracts of ``critical``, ``worst-delay`` and ``window``; bad input is one line, exit 2."""

from __future__ import annotations

import json

import mpmath
import pytest

from symdelay.hopf import critical_theta, instability_window, worst_delay


def _digits(text: str) -> int:
    mant = text.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0")
    return len(mant)


def test_critical_json_contract(run_cli):
    status, out, err = run_cli(
        "critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "0.5,1,2,4", "--json"
    )
    assert status == 0 and err == ""
    rec = json.loads(out)
    assert set(rec) == {"L", "points"} and rec["L"] == 3
    assert [p["D"] for p in rec["points"]] == ["0.5", "1", "2", "4"]
    api = critical_theta(3, 1, 1, [0.5, 1, 2, 4]).points
    for p, q in zip(rec["points"], api):
        assert set(p) == {"D", "theta_c", "omega"}
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
    assert rec1["points"] == [{"D": "2", "theta_c": "inf", "omega": None}]


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
    assert float(rec_inf["theta_star"]) == 2.0 and "not attained" in rec_inf["explanation"]


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
    (("critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "1,,2"), "--D must be"),
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
