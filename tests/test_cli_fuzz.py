"""Hostile values for every value-taking option of every model command: a right answer or
one line with exit 2 (1 for a result that could not be certified), never a traceback, never
the error boundary's "internal error" (a bug), never a hang (each run has 60 s)."""

from __future__ import annotations

import signal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_option_walk import BASES, _parser_options

from symdelay.cli import main as cli_main

HOSTILE = [
    "nan",
    "inf",
    "-inf",
    "1e308",
    "-1e308",
    "1e-300",
    "0",
    "-1",
    "",
    "abc",
    "1e1000000000",
    "9" * 400,
    "1/0",
    "1,2,3",
    "[[1]]",
    "__import__('os')",
    "1.0000000000000000000001",
]

CASES = [
    (command, base, flag)
    for command, base in BASES
    for flag, takes_value in _parser_options(command, base)
    if takes_value and flag not in ("--csv", "--tex", "--out", "--model-file", "--model")
]


class _Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise _Hang


def _run(capsys, argv):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(60)
    try:
        status = cli_main(argv)
    except SystemExit as exc:
        status = exc.code
    except _Hang:
        pytest.fail(f"no answer within 60 s: symdelay {' '.join(argv)}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    out = capsys.readouterr()
    return status, out.out, out.err


@settings(
    max_examples=int(__import__("os").environ.get("SYMDELAY_FUZZ", "80")),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
    derandomize=True,
)
@given(case=st.sampled_from(CASES), value=st.sampled_from(HOSTILE))
def test_hostile_values_give_an_answer_or_one_line(capsys, case, value):
    command, base, flag = case
    argv = [command, *base]
    if flag in argv:
        argv[argv.index(flag) + 1] = value
    else:
        argv += [flag, value]
    status, _, err = _run(capsys, argv)
    where = f"symdelay {' '.join(argv)}"
    assert "Traceback" not in err, where
    assert "internal error" not in err, f"{where}: {err}"
    assert status in (0, 1, 2), f"{where}: exit {status}"
    if status:
        assert err.count("\n") == 1 and err.startswith("symdelay:"), f"{where}: {err!r}"
