"""Bad input: one line, exit 2 on the CLI; ValueError with the same words in the API."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp

from symdelay import SymdelayInputError
from symdelay.core.parsing import parse_expression
from symdelay.founding import ActionDelayModel, characteristic_polynomial

CASES = [
    # (API kwargs, CLI args, words in the message)
    ({"L": 0}, ["--L", "0"], "L must be an integer >= 1"),
    ({"L": -2}, ["--L", "-2"], "L must be an integer >= 1"),
    ({"L": 2.5}, ["--L", "2.5"], "L must be an integer >= 1"),
    ({"L": 2, "D": 0}, ["--L", "2", "--D", "0"], "D must be positive"),
    ({"L": 2, "D": -1}, ["--L", "2", "--D", "-1"], "D must be positive"),
    ({"L": 2, "mu": 0}, ["--L", "2", "--mu", "0"], "mu must be positive"),
    ({"L": 2, "mu": -3}, ["--L", "2", "--mu", "-3"], "mu must be positive"),
    ({"L": 2, "lam": 0}, ["--L", "2", "--lam", "0"], "lam must be positive"),
    ({"L": 2, "mu": math.nan}, ["--L", "2", "--mu", "nan"], "mu must be a finite number"),
    ({"L": 2, "D": "inf"}, ["--L", "2", "--D", "inf"], "D must be a finite number"),
    ({"L": 2, "mu": "foo"}, ["--L", "2", "--mu", "foo"], "unknown symbol 'foo'|mu must be a n"),
]


@pytest.mark.parametrize(("kwargs", "argv", "words"), CASES)
def test_api_raises_value_error(kwargs, argv, words):
    words = words.split("|")[0]
    with pytest.raises(ValueError, match=words) as info:
        ActionDelayModel(**kwargs)
    assert isinstance(info.value, SymdelayInputError)
    assert "\n" not in str(info.value)
    n = kwargs.pop("L")
    with pytest.raises(ValueError, match=words):
        characteristic_polynomial(n, **kwargs)


@pytest.mark.parametrize(("kwargs", "argv", "words"), CASES)
def test_cli_one_line_exit_2(run_cli, kwargs, argv, words):
    status, out, err = run_cli("charpoly", *argv, "--json")
    assert status == 2
    assert out == ""
    lines = err.strip().splitlines()
    words = words.split("|")[-1]  # the API's words, or the command line's after '|'
    assert len(lines) == 1 and words in lines[0] and lines[0].startswith("symdelay: error:")


def test_cli_usage_errors_are_one_line():
    proc = subprocess.run(
        [sys.executable, "-m", "symdelay", "charpoly", "--bogus"], capture_output=True, text=True
    )
    assert proc.returncode == 2
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "Traceback" not in proc.stderr


def test_derive_bad_L(run_cli, tmp_path):
    status, _, err = run_cli("derive", "--L", "0", "--out", str(tmp_path))
    assert status == 2 and "L must be an integer >= 1" in err


def test_full_needs_concrete_L(run_cli):
    status, _, err = run_cli("charpoly", "--L", "L", "--full")
    assert status == 2 and "concrete L" in err


def test_parser_refuses_code_and_runs_nothing(tmp_path):
    marker = tmp_path / "ran"
    evil = f"__import__('os').system('touch {marker}')"
    with pytest.raises(ValueError):
        parse_expression(evil)
    with pytest.raises(ValueError):
        ActionDelayModel(L=1, mu=evil)
    assert not marker.exists()
    for text in ["mu.__class__", "(lambda: 1)()", "[1][0]", "mu if 1 else 2", "'a'"]:
        with pytest.raises(ValueError):
            parse_expression(text)


def test_numpy_scalars_are_exact():
    import numpy as np

    m = ActionDelayModel(L=1, mu=np.float64(0.1), lam=np.int64(2), theta=np.float32(0.5), D=1)
    assert (m.mu, m.lam, m.theta) == (sp.Rational(1, 10), 2, sp.Rational(1, 2))


@pytest.mark.parametrize(
    ("argv", "status", "words"),
    [
        (["simulate", "--seed", "-1"], 2, "seed must be an integer >= 0"),
        (["simulate", "--csv", "/nonexistent/x.csv"], 2, "/nonexistent/x.csv"),
        (["derive", "--out", "/proc/forbidden"], 2, "/proc/forbidden"),
        (["report", "--out", "/proc/forbidden"], 2, "/proc/forbidden"),
        (["fluid", "--theta", "1e308", "--T", "2"], 2, "theta"),
    ],
)
def test_reported_tracebacks_are_one_line_or_an_answer(argv, status, words):
    """The shell commands of tracker #13, end to end: one line and exit 2, or a result."""
    proc = subprocess.run([sys.executable, "-m", "symdelay", *argv], capture_output=True, text=True)
    assert proc.returncode == status, proc.stderr
    assert "Traceback" not in proc.stderr and "Warning" not in proc.stderr
    if status:
        assert proc.stdout == "" and proc.stderr.count("\n") == 1
        assert proc.stderr.startswith("symdelay: error:") and words in proc.stderr
    else:
        assert proc.stderr == "" and "nan" not in proc.stdout and "q1=" in proc.stdout


# ------------------------------------------------------------ numbers at the door (#36)
def _cli(*argv):
    """In-process run: (status, stdout, stderr); a parser refusal is exit 2 too."""
    import contextlib
    import io

    from symdelay.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(list(argv))
        except SystemExit as exc:
            status = exc.code
    return status, out.getvalue(), err.getvalue()


def _refused(argv, *words):
    status, out, err = _cli(*argv)
    where = " ".join(argv)
    assert status == 2 and out == "", (where, status, err)
    assert err.count("\n") == 1 and err.startswith("symdelay: error:"), (where, err)
    for w in words:
        assert w in err, (where, err)
    return err


POINT = ["--L", "2", "--mu", "1", "--lam", "1", "--theta", "1", "--D", "1"]


@pytest.mark.parametrize(
    "argv",
    [
        ["stability", *POINT],  # the founding closed forms (it printed 'unstable (exact)')
        ["roots", *POINT],
        ["variance", *POINT],
        ["critical", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1"],
        ["charpoly", "--L", "2", "--mu", "1"],
        ["simulate", "--T", "1", "--eta", "50"],
        ["stability", "--model", "nserver", "--N", "3", "--L", "2", "--mu", "1", "--lam", "1"],
        ["window", "--L", "2", "--theta", "12", "--lam", "1", "--mu", "1"],
    ],
)
@pytest.mark.parametrize("formula", ["2*lam", "mu", "sqrt(2)", "1+1", "lam/2"])
def test_a_formula_where_a_number_is_asked_for_is_refused_at_the_door(argv, formula):
    """Item 1: every option that stands for a number is a number, on every command, and a
    formula is refused naming the option (the founding stability took '2*lam' for mu)."""
    argv = [a for a in argv]
    if "--mu" in argv:
        argv[argv.index("--mu") + 1] = formula
    else:
        argv += ["--mu", formula]
    _refused(argv, "--mu must be a number", "formula")


def test_the_same_point_written_as_numbers_is_answered():
    """The refusal above is of the text, not the point: mu = 2 is stable there (the critical
    lam*theta is 16 at L = 2, gamma = 2, mu = 2)."""
    status, out, _ = _cli("stability", *POINT[:2], "--mu", "2", *POINT[4:], "--json")
    assert status == 0 and json.loads(out)["stable"] is True


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--set", "gamma=2*mu"], ["--set gamma must be a number", "formula"]),
        (["--set", "gamma=nan"], ["--set gamma must be a finite number"]),
        (["--set", "gamma=1,2"], ["--set gamma takes one number"]),
    ],
)
def test_set_values_are_numbers(argv, words):
    model = str(Path(__file__).resolve().parents[1] / "examples" / "models" / "erlang2.toml")
    _refused(["stability", "--model-file", model, *argv], *words)


@pytest.mark.parametrize(
    ("flag", "value", "words"),
    [
        # item 15: the message names the option typed and the rule it broke
        ("--mu", "", ["--mu needs a value"]),
        ("--mu", "1,2", ["--mu takes one number, got a list"]),
        ("--D", "1 2", ["--D takes one number, got several"]),
        ("--theta", "\u0661\u0662", ["--theta: write the number with the digits 0-9"]),
        ("--lam", "9" * 5000, ["--lam", "5000 digits", "at most 4000"]),
        ("--D", "1e100001", ["--D", "exponent"]),
        ("--L", "99999999999999999999", ["L = 99999999999999999999 is beyond every computation"]),
        ("--L", "2.5", ["--L must be an integer >= 1"]),
    ],
)
def test_the_wrong_reason_is_gone(flag, value, words):
    argv = ["stability", *POINT]
    argv[argv.index(flag) + 1] = value
    _refused(argv, *words)


def test_window_names_its_own_bound():
    """``window --lo nan`` blamed D; ``--hi inf`` is the domain's end."""
    base = ["window", "--L", "2", "--theta", "12", "--lam", "1", "--mu", "1"]
    _refused([*base, "--lo", "nan"], "--lo must be a number or inf")
    status, out, _ = _cli(*base, "--hi", "inf", "--json")
    assert status == 0 and json.loads(out)["intervals"]


def test_probs_and_a_long_matrix_entry_are_named():
    _refused(
        ["sqd", "fixed-point", "--service", "hyperexp", "--probs", "0.3,0.8", "--rates", "1,2"],
        "probs",
        "summing to 1",
    )
    err = _refused(
        ["roots", "--model", "phase_type", "--delay", "ph", "--alpha", "1,0", "--S",
         "[[-1e-300,0],[0,-1e300]]", "--mu", "1", "--lam", "1", "--theta", "1"],
        "--S",
        "100 digits",
    )  # fmt: skip
    assert "transition '" not in err  # the option, not the transition it reached
    _refused(["stability", "--model", "nserver", "--mu", "1e300", "--lam", "1"], "--mu: 1e300")


def test_an_option_the_command_does_not_take_is_named_with_the_command():
    err = _refused(["kappa-star", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1"], "--lam")
    assert "takes no --lam" in err and "belongs to" not in err
    _refused(["lb", "fluid", "--stations", "N=5,mu=1", "--lam", "0.5", "--c", "1"], "takes no --c")
    _refused(["stability", "--mu1", "2"], "--mu1", "--model hetero")


@pytest.mark.parametrize(
    "argv",
    [
        ["stability", "--L", "2", "--D", "1", "--D", "2"],
        ["verify", "--L", "2", "--claim", "lam*theta < mu", "--claim", "lam*theta < 2*mu"],
        ["simulate", "--T", "1", "--T", "2"],
        [
            "critical",
            "--L",
            "2",
            "--mu",
            "1",
            "--lam",
            "1",
            "--D",
            "1",
            "--dps",
            "15",
            "--dps",
            "20",
        ],
        ["sqd", "fixed-point", "--lam", "0.5", "--lam", "0.6"],
        ["optimize-weights", "--L", "2", "--theta", "5", "--theta", "6", "--criterion", "decay"],
        ["stability", "--model", "nserver", "--model", "hetero"],
    ],
)
def test_a_single_valued_option_given_twice_is_refused(argv):
    """Item 14: argparse kept the last; the parser refuses a repeat, naming it."""
    flag = next(a for a in argv if a.startswith("--") and argv.count(a) == 2)
    _refused(argv, f"{flag} is given twice")


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["sqd", "fixed-point", "--d", "2", "--lam", "0.5", "--k", "3"], ["--k", "--service erlang"]),
        (["sqd", "fixed-point", "--lam", "0.5", "--rates", "1,2"], ["--rates", "--service exp"]),
        (["sqd", "fixed-point", "--lam", "0.5", "--probs", "1"], ["--probs", "hyperexp"]),
        (["sqd", "fixed-point", "--lam", "0.5", "--alpha", "1"], ["--alpha", "--service ph"]),
        (["sqd", "fixed-point", "--lam", "0.5", "--service", "erlang", "--k", "2", "--S",
          "[[-1]]"], ["--S", "--service erlang", "--service ph"]),
        (["sqd", "simulate", "--service-dist", "deterministic", "--k", "3"], ["--k", "--service-dist"]),
        (["optimize-weights", "--L", "2", "--theta", "5", "--criterion", "decay", "--eps", "0.1"],
         ["--eps", "--criterion decay", "tolerance"]),
        (["optimize-weights", "--L", "2", "--theta", "5", "--criterion", "variance", "--x0", "7"],
         ["--x0", "--criterion variance"]),
        (["lb", "design", "--stations", "N=5,mu=1;N=10,mu=1/2", "--beta", "1", "--target",
          "min-delay", "--ratio", "1,2"], ["--ratio", "--target min-delay"]),
        (["lb", "simulate", "--stations", "N=5,mu=1", "--beta", "1", "--routing", "random",
          "--d", "1"], ["--d", "--routing random"]),
    ],
)  # fmt: skip
def test_an_option_without_effect_is_refused(argv, words):
    """Item 14: one rule (the option's declaration: only with / not with) for every option
    that would be silently ignored."""
    _refused(argv, "has no effect", *words)


def test_an_option_with_effect_is_honoured():
    """The same options where they act: Erlang(3) service is not exponential service."""
    base = ["sqd", "fixed-point", "--d", "2", "--lam", "0.5", "--json"]
    s1, exp_out, _ = _cli(*base)
    s2, erl_out, _ = _cli(*base, "--service", "erlang", "--k", "3")
    assert s1 == s2 == 0
    assert json.loads(exp_out)["service"]["kind"] == "exp"
    assert json.loads(erl_out)["service"]["kind"] == "erlang(3)"
    assert json.loads(exp_out)["mean_queue"] != json.loads(erl_out)["mean_queue"]
