"""Bad input: one line, exit 2 on the CLI; ValueError with the same words in the API."""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
import sympy as sp

from symdelay import ActionDelayModel, SymdelayInputError, characteristic_polynomial
from symdelay.core.parsing import parse_expression

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
        (["fluid", "--theta", "1e308", "--T", "2"], 0, ""),
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
