"""The options that give the command line the keywords its entries already had
(tests/test_api_cli_parity.py found them missing): each gives the record the API gives for
the same keyword, and a bad value is refused in one line (exit 2).

``roots --force``, ``worst-delay --lo``, ``stability --dps`` and ``--minimal --assume /
--timeout``, ``fluid --solver / --rtol / --atol``, ``simulate --backend``, ``variance`` and
``spectrum --weights``, ``cycles --step / --max-step``.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from symdelay import build_model, fluid, minimal_conditions, simulate, stability, worst_delay
from symdelay.cli import main as cli_main
from symdelay.cli.commands._common import json_default
from symdelay.core.errors import SymdelayInputError

FOUND = ["--mu", "1", "--lam", "1"]


def _run(capsys, argv):
    try:
        status = cli_main(argv)
    except SystemExit as exc:  # refused by the parser
        status = exc.code
    out = capsys.readouterr()
    return status, out.out, out.err


def _json(capsys, argv):
    status, out, err = _run(capsys, [*argv, "--json"])
    assert status == 0, err
    return json.loads(out)


def _same(record):
    """A record as the command line prints it (JSON text read back)."""
    return json.loads(json.dumps(record, default=json_default))


def test_roots_force_lifts_the_budget_the_refusal_names(capsys, monkeypatch):
    """roots told the user to pass --force and had none: over a (tiny) budget it refuses
    naming --force, and with --force it answers."""
    from symdelay.core import budget

    monkeypatch.setattr(budget, "DEFAULT_BUDGET", budget.Budget(seconds=1e-9))
    argv = ["roots", "--model", "nserver", "--N", "3", "--L", "2", *FOUND, "--theta", "1"]
    argv += ["--D", "1", "--dps", "15"]
    status, _, err = _run(capsys, argv)
    assert status == 2 and "--force" in err and err.count("\n") == 1
    status, out, err = _run(capsys, [*argv, "--force"])
    assert status == 0, err
    assert "stable" in out


def test_worst_delay_over_a_range_is_the_apis_and_the_end_of_the_range(capsys):
    """The founding model at L = 3: D* = L/mu = 3 over the whole domain; over [1/2, 2]
    theta_c(D) decreases to the end, so the worst delay of the range is D = 2 with
    theta* = theta_c(2) (the critical entry at D = 2, a second path)."""
    from symdelay import critical

    got = _json(capsys, ["worst-delay", "--L", "3", *FOUND, "--lo", "0.5", "--hi", "2"])
    m = build_model("erlang", L=3, mu=1, lam=1)
    assert got == _same(worst_delay(m, lo="0.5", hi="2").to_json())
    assert Fraction(got["D_star"]) == 2 and got["closed_form"] is None
    at2 = critical(build_model("erlang", L=3, mu=1, lam=1, D=2)).to_json()
    theta_c = float(Fraction(at2["points"][0]["theta_c"]))
    assert float(Fraction(got["theta_star"])) == pytest.approx(theta_c, rel=1e-13)
    status, out, _ = _run(capsys, ["worst-delay", "--L", "3", *FOUND, "--lo", "0.5"])
    assert status == 0 and "searched D from 0.5 to the top of its domain only" in out


def test_stability_dps_and_minimal_assume_timeout(capsys):
    m = build_model("nserver", N=3, L=2, mu=1, lam=1, theta=1, D=1)
    base = ["stability", "--model", "nserver", "--N", "3", "--L", "2", *FOUND]
    got = _json(capsys, [*base, "--theta", "1", "--D", "1", "--dps", "30"])
    assert got == _same(stability(m, dps=30, force=False).to_json()) and got["dps"] == 30
    sym = build_model("erlang", L=2)
    got = _json(capsys, ["stability", "--L", "2", "--minimal", "--assume", "mu < gamma",
                         "--timeout", "5"])  # fmt: skip
    ref = _same(
        minimal_conditions(sym, assume=("theta >= 0", "mu < gamma"), timeout_ms=5000).to_json()
    )

    def drop_smt2(rec):  # z3 numbers its let-variables afresh in every run
        return {k: v for k, v in rec.items() if k != "dropped"}, [
            c["condition"] for c in rec["dropped"]
        ]

    assert drop_smt2(got) == drop_smt2(ref) and "mu < gamma" in got["assume"]


@pytest.mark.parametrize(
    "extra",
    [
        ["--assume", "mu < gamma"],  # without --minimal
        ["--timeout", "5"],
        ["--minimal", "--dps", "30"],
        ["--minimal", "--timeout", "0"],
        ["--minimal", "--assume", "mu <<< gamma"],
    ],
)
def test_stability_refuses_what_takes_no_effect(capsys, extra):
    status, _, err = _run(capsys, ["stability", "--L", "2", *extra])
    assert status == 2 and err.count("\n") == 1 and err.startswith("symdelay: error:"), err


def test_fluid_solver_and_tolerances_are_the_apis(capsys):
    argv = ["fluid", "--T", "2", "--dt", "0.5", "--solver", "RK45", "--rtol", "1e-6"]
    got = _json(capsys, [*argv, "--atol", "1e-9"])
    m = build_model("erlang", L=2, mu=1, lam=1, theta=2, D=1)  # the command's defaults
    ref = fluid(m, T="2", dt="0.5", solver="RK45", rtol=1e-6, atol=1e-9)
    assert got == _same(ref.to_json())
    assert got["info"]["solver"] == {"method": "RK45", "rtol": 1e-6, "atol": 1e-9}


@pytest.mark.parametrize(
    "extra",
    [["--solver", "rk45"], ["--rtol", "0"], ["--rtol", "-1"], ["--atol", "0"], ["--atol", "x"]],
)
def test_fluid_bad_values(capsys, extra):
    status, _, err = _run(capsys, ["fluid", "--T", "2", "--dt", "0.5", *extra])
    assert status == 2 and err.count("\n") == 1 and err.startswith("symdelay: error:"), err


def test_simulate_backend_python_draws_the_same_paths(capsys):
    """The Python twin of the C kernel: the same numbers, the record says which ran."""
    argv = ["simulate", "--T", "1", "--eta", "50"]
    py = _json(capsys, [*argv, "--backend", "python"])
    assert py["info"]["backend"] == "python"
    m = build_model("erlang", L=2, mu=1, lam=1, theta=2, D=1)
    c = _same(simulate(m, eta=50, T=1, backend="c").to_json())
    assert c["info"]["backend"] == "c"
    assert {k: v for k, v in py.items() if k != "info"} == {
        k: v for k, v in c.items() if k != "info"
    }
    assert py["info"]["transition_counts"] == c["info"]["transition_counts"]


def test_variance_weights_are_a_quadratic_form(capsys):
    """Var(w . X) through --weights on the founding model at L = 1: by the symmetry,
    Var(q1 - q2) + Var(q1 + q2) = 2 (Var q1 + Var q2) = 4 Var q1, exactly."""
    from symdelay import variance

    def var(w):
        rec = _json(capsys, ["variance", "--weights", w])
        return Fraction(rec["exact_value"]), rec

    minus, rec = var("1,-1,0,0")
    plus, _ = var("1,1,0,0")
    one, _ = var("1,0,0,0")
    assert minus + plus == 4 * one and minus > 0
    m = build_model("erlang", L=1, mu=1, lam=1, theta=2, D=1)
    assert rec == _same(variance(m, weights=[1, -1, 0, 0]).to_json())
    assert minus == Fraction(_json(capsys, ["variance"])["exact_value"])  # the default


def test_spectrum_weights_are_the_apis(capsys):
    from symdelay import spectrum

    argv = ["spectrum", "--L", "1", *FOUND, "--theta", "1", "--D", "1", "--points", "11"]
    got = _json(capsys, [*argv, "--weights", "1,0,0,0"])
    m = build_model("erlang", L=1, mu=1, lam=1, theta=1, D=1)
    assert got == _same(spectrum(m, points=11, weights=[1, 0, 0, 0]).to_json())


@pytest.mark.parametrize(
    "argv",
    [
        ["variance", "--weights", "1,2"],  # 4 states
        ["variance", "--weights", "1,,0,0"],
        ["spectrum", "--L", "1", *FOUND, "--theta", "1", "--D", "1", "--weights", "a,b,c,d"],
        ["cycles", "--L", "2", *FOUND, "--D", "1", "--theta", "8:9.5", "--step", "0"],
        ["cycles", "--L", "2", *FOUND, "--D", "1", "--theta", "8:9.5", "--max-step", "-1"],
        ["cycles", "--L", "2", *FOUND, "--D", "1", "--theta", "8:9.5", "--step", "1e999"],
        ["worst-delay", "--L", "3", *FOUND, "--lo", "2", "--hi", "1"],
        ["worst-delay", "--L", "3", *FOUND, "--lo", "nan"],
    ],
)
def test_bad_values_exit_2_with_one_line(capsys, argv):
    status, _, err = _run(capsys, argv)
    assert status == 2 and err.count("\n") == 1 and err.startswith("symdelay: error:"), err


# ------------------------------------------------ limit-cycle --start-fraction, --max-modes
def test_limit_cycle_start_fraction_moves_the_start_of_the_path(capsys):
    """The founding model's cycles (L = 2: theta_c = 9) are found by
    Newton straight at the smallest theta from the harmonic-balance amplitude; with
    start_fraction the continuation marches from the normal form's cycle at
    theta_c (1 + start_fraction) instead: the record's path_start moves there, the CLI's
    record is the API's, and the orbits asked for are the same ones."""
    from symdelay import limit_cycle

    argv = ["limit-cycle", "--L", "2", *FOUND, "--D", "1", "--theta", "9.5,10"]
    got = _json(capsys, [*argv, "--start-fraction", "0.02"])
    m = build_model("erlang", L=2, mu=1, lam=1, D=1)
    ref = limit_cycle(m, "9.5,10", start_fraction=0.02)
    assert got == _same(ref.to_json())
    default = limit_cycle(m, "9.5,10").to_json()
    assert float(got["theta_c"]) == pytest.approx(9, rel=1e-12)  # L = 2, mu = lam = D = 1
    assert float(got["path_start"]) == pytest.approx(9 * 1.02, rel=1e-12)
    assert float(default["path_start"]) == 9.5  # the direct start at the smallest theta
    for a, b in zip(got["points"], default["points"]):  # the same orbits, reached otherwise
        assert float(a["amplitude_x"]) == pytest.approx(float(b["amplitude_x"]), rel=1e-7)
        assert float(a["period"]) == pytest.approx(float(b["period"]), rel=1e-7)


def test_limit_cycle_max_modes_caps_the_collocation(capsys):
    """At L = inf theta = 6 the DDE cycle needs more than the collocation's first 63 Fourier
    modes: capped there it is refused in one line naming the cap (the API raises the same);
    capped at 127 it is computed on 127 nodes, the CLI's record the API's."""
    from symdelay import limit_cycle
    from symdelay.analysis.cycles import ShootingError

    argv = ["limit-cycle", "--L", "inf", *FOUND, "--D", "1", "--theta", "6"]
    status, _, err = _run(capsys, [*argv, "--max-modes", "63"])
    assert status == 2 and "63 Fourier modes" in err and err.count("\n") == 1, err
    m = build_model("erlang", L="inf", mu=1, lam=1, D=1)
    with pytest.raises(ShootingError, match="63 Fourier modes"):
        limit_cycle(m, 6, max_modes=63)
    got = _json(capsys, [*argv, "--max-modes", "127"])
    ref = limit_cycle(m, "6", max_modes=127)
    assert got == _same(ref.to_json()) and ref.y0.size == 127


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["--L", "2", "--theta", "10", "--max-modes", "127"], "--max-modes is for L = inf"),
        (["--L", "inf", "--theta", "3", "--start-fraction", "0.01"], "--start-fraction is for"),
        (["--L", "inf", "--theta", "3", "--system", "full"], "--system full is for finite L"),
        (["--L", "2", "--theta", "10", "--start-fraction", "0"], "--start-fraction must be"),
        (["--L", "2", "--theta", "10", "--start-fraction", "-1e-3"], "--start-fraction must"),
        (["--L", "2", "--theta", "10", "--start-fraction", "nan"], "--start-fraction"),
        (["--L", "inf", "--theta", "3", "--max-modes", "62"], "--max-modes must be from 63"),
        (["--L", "inf", "--theta", "3", "--max-modes", "4095"], "--max-modes must be from 63"),
        (["--L", "inf", "--theta", "3", "--max-modes", "63.5"], "--max-modes"),
        (["--model", "nserver", "--N", "2", "--L", "1", "--theta", "5", "--max-modes", "127"],
         "--max-modes is for the founding model at L = inf"),
    ],
)  # fmt: skip
def test_limit_cycle_refuses_where_the_options_take_no_effect(capsys, argv, needle):
    status, out, err = _run(capsys, ["limit-cycle", *FOUND, "--D", "1", *argv])
    assert status == 2 and out == "" and needle in err and err.count("\n") == 1, err


def test_limit_cycle_api_refuses_the_same():
    from symdelay import limit_cycle

    fin = build_model("erlang", L=2, mu=1, lam=1, D=1)
    inf = build_model("erlang", L="inf", mu=1, lam=1, D=1)
    table = build_model("nserver", N=2, L=1, mu=1, lam=1, D=1)
    for model, kw, needle in [
        (fin, {"max_modes": 127}, "--max-modes is for L = inf"),
        (inf, {"start_fraction": 0.01}, "--start-fraction is for finite L"),
        (table, {"max_modes": 127}, "--max-modes is for the founding model"),
        (fin, {"start_fraction": 0}, "start_fraction must be a finite number > 0"),
        (fin, {"start_fraction": True}, "start_fraction must be"),
        (inf, {"max_modes": 100.0}, "max_modes must be an integer"),
    ]:
        with pytest.raises(SymdelayInputError, match=needle):
            limit_cycle(model, 10, **kw)


# ------------------------------------------------------------ fluid: atol 0, one rule
def test_fluid_atol_zero_is_refused_by_the_api_as_by_the_command(capsys):
    """atol = 0 on the founding model (phases that start at 0) made RK45's error control
    stall: the entry refuses it with the command's own rule (check_tolerance), before any
    path runs."""
    m = build_model("erlang", L=2, mu=1, lam=1, theta=2, D=1)
    for kw in ({"atol": 0}, {"atol": -1e-9}, {"rtol": 0}, {"atol": float("nan")}):
        with pytest.raises(SymdelayInputError, match="must be a finite number > 0"):
            fluid(m, T=2, dt=0.5, solver="RK45", **kw)
    status, _, err = _run(capsys, ["fluid", "--T", "2", "--dt", "0.5", "--atol", "0"])
    assert status == 2 and "--atol must be a finite number > 0 (0 is pure" in err, err


# ------------------------------------------------- worst-delay --param NAME, --kind
def test_worst_delay_param_minimises_another_critical_value(capsys):
    """worst-delay --param lam (theta given): the founding model's theta* = 4 mu / lam at
    L = 3 read for lam: lam* = 4 mu / theta at D* = 3 / mu; the record is the API's."""
    argv = ["worst-delay", "--L", "3", "--mu", "1", "--theta", "8", "--param", "lam"]
    got = _json(capsys, argv)
    ref = worst_delay(build_model("erlang", L=3, mu=1, theta=8), "D", param="lam")
    assert got == _same(ref.to_json())
    assert got["param"] == "lam" and got["parameters"]["theta"] == "8"
    assert Fraction(got["lam_star"]) == Fraction(1, 2)  # 4 mu / theta
    assert Fraction(got["D_star"]) == 3  # L / mu


@pytest.mark.parametrize(
    ("extra", "needle"),
    [
        (["--lam", "1", "--theta", "4"], "leave --theta out"),  # theta searched by default
        (["--theta", "4", "--param", "lam", "--lam", "1"], "leave --lam out"),
        (["--lam", "1", "--param", "D"], "name the same parameter"),
        (["--lam", "1", "--param", " "], "--param needs a NAME"),
        (["--lam", "1", "--param", "kappa"], "kappa"),
        (["--lam", "1", "--kind", "MAX"], "--kind"),
    ],
)
def test_worst_delay_param_and_kind_refusals(capsys, extra, needle):
    status, out, err = _run(capsys, ["worst-delay", "--L", "3", "--mu", "1", *extra])
    assert status == 2 and out == "" and needle in err and err.count("\n") == 1, err


def test_worst_delay_kind_max_is_extremum_max(capsys):
    """--kind max over [1, 5]: theta_c is least at D = 3 and grows on both sides, so its
    maximum is at an end, the larger of theta_c(1) and theta_c(5) (critical, the other
    entry); the record is extremum(kind="max")'s and the text says it is a maximum."""
    from symdelay import critical, extremum

    argv = ["worst-delay", "--L", "3", *FOUND, "--kind", "max", "--lo", "1", "--hi", "5"]
    got = _json(capsys, argv)
    m = build_model("erlang", L=3, mu=1, lam=1)
    assert got == _same(extremum(m, "D", kind="max", lo="1", hi="5").to_json())
    ends = critical(m, at=["1", "5"]).points
    big = max(ends, key=lambda p: p.critical)
    assert got["kind"] == "max" and Fraction(got["D_star"]) == Fraction(str(big.at))
    assert float(got["theta_star"]) == pytest.approx(float(big.critical), rel=1e-13)
    status, out, _ = _run(capsys, argv)
    assert status == 0 and "(the maximum of theta_c over D)" in out


def test_worst_delay_kind_stable_is_kappa_stars(capsys):
    """--kind stable over a model file's kappa: the kappa-star of that model (the API's
    kappa_star, extremum kind="stable")."""
    from symdelay import load_toml
    from symdelay.analysis.window import kappa_star

    path = str(Path(__file__).parent.parent / "examples" / "models" / "inflight_erlang1.toml")
    sets = ["--set", "mu=1", "--set", "lam=1", "--set", "gamma=2"]
    argv = ["worst-delay", "--model-file", path, *sets, "--over", "kappa", "--kind", "stable"]
    got = _json(capsys, argv)
    ref = kappa_star(load_toml(path, mu=1, lam=1, gamma=2))
    assert got == _same(ref.to_json())
    assert got["kind"] == "stable" and got["stable_set"]
