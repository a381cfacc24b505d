"""CLI contracts of ``normal-form``, ``limit-cycle`` and ``spectrum``; bad input: one line,
exit 2; results display themselves (LaTeX, figures)."""

from __future__ import annotations

import json

import pytest

from symdelay.models.erlang.nonlinear import limit_cycle, normal_form, spectrum


def test_normal_form_json_contract(run_cli):
    status, out, err = run_cli(
        "normal-form", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1", "--dps", "30", "--json"
    )
    assert status == 0 and err == ""
    rec = json.loads(out)
    assert {
        "L",
        "theta_c",
        "omega",
        "l1",
        "criticality",
        "amplitude_coefficient",
        "closed_form",
    } <= set(rec)
    assert rec["L"] == 2 and rec["criticality"] == "supercritical"
    assert set(rec["closed_form"]) == {"l1", "amplitude_coefficient"}
    api = normal_form(2, 1, 1, 1, dps=30)
    assert float(rec["l1"]) == pytest.approx(float(api.l1), rel=1e-15)
    assert rec["theta_c"].startswith("9.0000000000000000000000000000")
    # the closed forms parse back and give the numbers
    import sympy as sp

    l1 = sp.sympify(rec["closed_form"]["l1"]).subs({"mu": 1, "lam": 1, "D": 1})
    assert float(l1) == pytest.approx(float(rec["l1"]), rel=1e-14)


def test_normal_form_inf_and_model(run_cli):
    rec = json.loads(
        run_cli("normal-form", "--L", "inf", "--mu", "1", "--lam", "1", "--D", "1", "--json")[1]
    )
    assert rec["L"] == "inf" and rec["closed_form"]["l1"] is None
    assert rec["criticality"] == "supercritical"
    status, out, _ = run_cli(
        "normal-form",
        "--model",
        "erlang",
        "--L",
        "2",
        "--mu",
        "1",
        "--lam",
        "1",
        "--D",
        "1",
        "--kappa",
        "0",
        "--json",
    )
    assert status == 0
    assert float(json.loads(out)["l1"]) == pytest.approx(float(rec_l1_l2()), rel=1e-12)


def rec_l1_l2():
    return normal_form(2, 1, 1, 1).l1


def test_limit_cycle_json_contract(run_cli):
    status, out, err = run_cli(
        "limit-cycle", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1", "--theta", "10", "--json"
    )
    assert status == 0 and err == ""
    rec = json.loads(out)
    assert {"theta", "amplitude_x", "period", "floquet_multipliers", "stable", "method"} <= set(rec)
    assert rec["theta"] == "10" and rec["stable"] is True
    api = limit_cycle(2, 1, 1, 1, theta=10)
    assert float(rec["amplitude_x"]) == pytest.approx(api.amplitude_x, rel=1e-12)
    assert len(rec["floquet_multipliers"]) == 3


def test_limit_cycle_list_range_and_inf(run_cli):
    rec = json.loads(
        run_cli(
            "limit-cycle",
            "--L",
            "3",
            "--mu",
            "1",
            "--lam",
            "1",
            "--D",
            "1",
            "--theta",
            "6:8:3",
            "--json",
        )[1]
    )
    assert [float(p["theta"]) for p in rec["points"]] == [6.0, 7.0, 8.0]
    amps = [float(p["amplitude_x"]) for p in rec["points"]]
    assert amps == sorted(amps)
    rec = json.loads(
        run_cli(
            "limit-cycle",
            "--L",
            "inf",
            "--mu",
            "1",
            "--lam",
            "1",
            "--D",
            "1",
            "--theta",
            "3,4",
            "--json",
        )[1]
    )
    assert [p["theta"] for p in rec["points"]] == ["3", "4"]
    assert all(p["stable"] for p in rec["points"])


def test_spectrum_json_contract(run_cli):
    status, out, err = run_cli(
        "spectrum",
        "--L",
        "2",
        "--mu",
        "1",
        "--lam",
        "1",
        "--theta",
        "8",
        "--D",
        "1",
        "--points",
        "51",
        "--json",
    )
    assert status == 0 and err == ""
    rec = json.loads(out)
    assert {"omega", "S", "peak_frequency", "quality_factor"} <= set(rec)
    assert len(rec["omega"]) == len(rec["S"]) == 51
    api = spectrum(2, 1, 1, 8, 1)
    assert float(rec["peak_frequency"]) == pytest.approx(api.peak_frequency, rel=1e-8)
    assert float(rec["quality_factor"]) == pytest.approx(api.quality_factor, rel=1e-6)


@pytest.mark.parametrize(
    "argv,needle",
    [
        (
            ["limit-cycle", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1", "--theta", "5"],
            "not above theta_c = 9",
        ),
        (
            ["limit-cycle", "--L", "1", "--mu", "1", "--lam", "1", "--D", "1", "--theta", "5"],
            "no Hopf point",
        ),
        (
            ["limit-cycle", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1", "--theta", "10,ten"],
            "(item 2) must be a number",
        ),
        (
            ["limit-cycle", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1", "--theta", "1:x:3"],
            "(range stop) must be a number",
        ),
        (["normal-form", "--L", "1", "--mu", "1", "--lam", "1", "--D", "1"], "no Hopf point"),
        (["normal-form", "--L", "2", "--mu", "1", "--lam", "1"], "--D"),
        (
            ["spectrum", "--L", "2", "--mu", "1", "--lam", "1", "--theta", "10", "--D", "1"],
            "the equilibrium is unstable",
        ),
        (
            [
                "spectrum",
                "--L",
                "2",
                "--mu",
                "1",
                "--lam",
                "1",
                "--theta",
                "2",
                "--D",
                "1",
                "--points",
                "two",
            ],
            "--points",
        ),
    ],
)
def test_bad_input_is_one_line_exit_2(run_cli, argv, needle):
    status, out, err = run_cli(*argv)
    assert status == 2 and out == ""
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_beyond_convergence_is_one_line(run_cli, monkeypatch):
    """The DDE collocation with a small mode budget: a clear error with what was tried."""
    from symdelay.models.erlang.nonlinear import dde_cycles

    monkeypatch.setattr(dde_cycles, "N_MAX", 127)
    monkeypatch.setattr(dde_cycles.dde_limit_cycle, "__kwdefaults__", {"max_modes": 127})
    status, _out, err = run_cli(
        "limit-cycle", "--L", "inf", "--mu", "1", "--lam", "1", "--D", "1", "--theta", "20"
    )
    assert status == 2 and "Fourier modes" in err and "stopped at theta" in err
    assert err.count("\n") == 1


def test_results_display_and_plot():
    nf = normal_form(3, 1, 1, 1)
    assert "\\ell_1" in nf._repr_latex_()
    fam = limit_cycle(3, 1, 1, 1, theta=[6, 8])
    assert "\\theta" in fam._repr_latex_() and "A_x" in fam.points[0]._repr_latex_()
    s = spectrum(2, 1, 1, 6, 1, points=101)
    assert "omega" in s._repr_latex_()
    for fig in (nf.plot(fam), fam.plot(), fam.points[0].plot(), s.plot()):
        assert fig.axes
