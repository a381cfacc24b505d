"""Hostile values for every option of every command: an answer or one line, never a bug.

The cases, built from the parsers themselves (every base run of the option walk, sub-commands
of ``sqd`` and ``lb`` and the in-flight commands included, and ``routh``, ``models``):

* **values**: every option that takes a value is given each of :data:`HOSTILE` (zero, signs,
  nan, inf, subnormals, 1e400, 5000-digit integers, unicode digits, expressions, lists,
  empty text, boundary values);
* **twice**: every single-valued option given twice is refused (exit 2);
* **foreign**: an option of another model family, or of none, is refused (exit 2) unless the
  command's model declares it.

The contract every run keeps: exit status 0, 2 or 130 (1 is outside it, 70 is a bug of
symdelay), no traceback, exactly one line on stderr when it refuses, no warning of NumPy or
SciPy (recorded in-process: each would reach stderr on the command line), an answer within 60
s. The suite runs a seeded sample of the cases (``SYMDELAY_FUZZ`` of them, default 120: a
few minutes); ``python tests/test_cli_fuzz.py [--workers N]`` runs them all and prints the
counts tried and any case that breaks the contract.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import random
import signal
import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_option_walk import AGAIN, BASES, OTHER, command_parser

from symdelay.cli import main as cli_main

#: the values of the issue's hostile round, for every option that takes one
HOSTILE = [
    "0",
    "-0",
    "-1",
    "+1",
    "0.5",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "Infinity",
    "5e-324",  # the smallest subnormal
    "1e-320",
    "2.2250738585072014e-308",  # the smallest normal double
    "1e-300",
    "1e308",
    "1.8e308",  # beyond the largest double
    "1e400",
    "-1e400",
    "1e-400",
    "1e99999",
    "1e100001",
    "9" * 5000,  # beyond Python's 4300-digit integer conversion
    "0." + "0" * 4990 + "1",
    "99999999999999999999",
    "1e9",
    "2.5",
    "3/7",
    "1/0",
    "1.0000000000000000000001",
    "\u0661\u0662",  # Arabic-Indic digits 12
    "\uff11\uff12",  # full-width digits 12
    "2*lam",
    "mu",
    "sqrt(2)",
    "1,2",
    "1 2",
    "",
    " ",
    "[[1]]",
    "0x10",
    "1_000",
    "__import__('os')",
]

#: options of other families (or of none): refused unless the command's model has them
FOREIGN = [
    ["--mu1", "1"],
    ["--N", "3"],
    ["--kappa", "0.5"],
    ["--delay", "hypoexp"],
    ["--rates", "1,2"],
    ["--stations", "N=5,mu=1"],
    ["--k", "3"],
    ["--nonexistent", "1"],
]

#: options whose values are paths (written or read): not fuzzed here
PATHS = {"--csv", "--tex", "--out", "--model-file"}

#: base runs besides the option walk's: commands that build no model
EXTRA = [("routh", ["s**3 + 2*s**2 + 3*s + 1"]), ("models", [])]

#: exit statuses of the contract: an answer, a refusal in one line, an interruption
CONTRACT = (0, 2, 130)


def _actions(command, base):
    """``(flag, action)`` of every option the command's parser takes (no --help)."""
    p = command_parser(command, base)
    out = []
    for action in p._actions:
        flags = [s for s in action.option_strings if s.startswith("--")]
        if flags and flags[0] != "--help":
            out.append((flags[0], action))
    return out


def _with(argv, flag, *values):
    """``argv`` with ``flag`` set to ``values`` (replaced where the base gives it)."""
    argv = list(argv)
    if flag in argv:
        i = argv.index(flag)
        del argv[i : i + 2]
    for v in values:
        argv += [flag, v]
    return argv


def cases():
    """Every case: ``(kind, argv)``; kind is ``value``, ``twice`` or ``foreign``."""
    out = []
    for command, base in [*BASES, *EXTRA]:
        argv = [*command.split(), *base]
        actions = _actions(command, base)
        declared = {flag for flag, _ in actions}
        for flag, action in actions:
            if action.nargs == 0 or flag in PATHS:
                continue
            for value in HOSTILE:
                out.append(("value", _with(argv, flag, value)))
            repeatable = isinstance(action, argparse._AppendAction)
            first = base[base.index(flag) + 1] if flag in base else OTHER.get(flag)
            second = OTHER.get(flag) if flag in base else AGAIN.get(flag, OTHER.get(flag))
            if not repeatable and first is not None and second is not None:
                out.append(("twice", _with(argv, flag, first, second)))
        # --kappa with the founding model selects the in-flight family (cli.door.select):
        # declared by every command that reads a family model, when no other model is named
        named = argv[argv.index("--model") + 1] if "--model" in argv else "erlang"
        founding = "--mu" in declared and named == "erlang" and "--model-file" not in argv
        for extra in FOREIGN:
            if extra[0] not in declared and not (founding and extra[0] == "--kappa"):
                out.append(("foreign", [*argv, *extra]))
    return out


class _Hang(BaseException):
    pass


def _alarm(signum, frame):
    raise _Hang


#: warnings the command line shows by default (Python hides these categories)
_HIDDEN = (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning)


def run(argv, seconds=60):
    """One run in this process: ``(status, stdout, stderr, warnings shown)``; status is
    ``"hang"`` past ``seconds`` of CPU time (the machine may be shared: wall time is allowed
    ten times as much, for what runs outside this process)."""
    out, err = io.StringIO(), io.StringIO()
    old = signal.signal(signal.SIGALRM, _alarm), signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.alarm(10 * seconds)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                try:
                    status = cli_main(list(argv))
                except SystemExit as exc:  # argparse: one line, exit 2
                    status = exc.code
    except _Hang:
        status = "hang"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old[0])
        signal.signal(signal.SIGPROF, old[1])
    shown = [
        f"{w.category.__name__}: {w.message}" for w in caught if not issubclass(w.category, _HIDDEN)
    ]
    return status, out.getvalue(), err.getvalue(), shown


def broken(kind, result) -> str | None:
    """What breaks the contract in one run's result (None: nothing)."""
    status, _out, err, shown = result
    if status == "hang":
        return "no answer within 60 s of CPU time"
    if status not in CONTRACT:
        return f"exit {status}"
    if "Traceback" in err or "internal error" in err:
        return f"a bug: {err.strip()[:300]}"
    if shown:
        return f"warnings reach stderr: {shown[:2]}"
    if status and not (err.count("\n") == 1 and err.startswith("symdelay:")):
        return f"not one line: {err[:300]!r}"
    if kind in ("twice", "foreign") and status != 2:
        return f"{kind}: exit {status}, not refused"
    return None


ALL = cases()
SAMPLE = random.Random(36).sample(ALL, min(len(ALL), int(os.environ.get("SYMDELAY_FUZZ", "120"))))


@pytest.mark.parametrize(("kind", "argv"), SAMPLE, ids=[" ".join(a)[:120] for _, a in SAMPLE])
def test_hostile_values_give_an_answer_or_one_line(kind, argv):
    problem = broken(kind, run(argv))
    assert problem is None, f"symdelay {' '.join(argv)}: {problem}"


def test_the_cases_cover_every_command_and_option():
    """Every command of the walk, every option that takes a value, each hostile value."""
    commands = {a[0] if a[0] not in ("sqd", "lb") else " ".join(a[:2]) for _, a in ALL}
    assert commands >= {c for c, _ in BASES}
    assert sum(kind == "twice" for kind, _ in ALL) >= 100
    assert len(ALL) >= 10_000


def _worker(case):
    kind, argv = case
    problem = broken(kind, run(argv))
    return kind, argv, problem


def main(argv=None) -> int:
    """Run every case (``--workers`` processes) and print the counts and the failures."""
    import collections
    import json
    import multiprocessing
    import time

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--report", default=None, help="write every failure as JSON here")
    ap.add_argument("--only", default=None, help="only cases whose command line holds this")
    ap.add_argument("--sample", type=int, default=None, help="a seeded sample of this size")
    opts = ap.parse_args(argv)
    todo = [c for c in ALL if opts.only is None or opts.only in " ".join(c[1])]
    if opts.sample is not None:
        todo = random.Random(1).sample(todo, min(opts.sample, len(todo)))
    t0 = time.time()
    counts, failures = collections.Counter(), []
    with multiprocessing.get_context("fork").Pool(opts.workers, maxtasksperchild=200) as pool:
        for done, (kind, args, problem) in enumerate(
            pool.imap_unordered(_worker, todo, chunksize=4), 1
        ):
            counts[kind] += 1
            if problem is not None:
                failures.append({"kind": kind, "argv": args, "problem": problem})
                print(f"FAIL {kind}: symdelay {' '.join(args)[:200]}: {problem[:200]}", flush=True)
            if done % 500 == 0:
                print(f"{done}/{len(todo)} in {time.time() - t0:.0f} s", flush=True)
    print(
        f"tried {sum(counts.values())} cases ({dict(counts)}) in {time.time() - t0:.0f} s: "
        f"{len(failures)} outside the contract"
    )
    if opts.report:
        Path(opts.report).write_text(json.dumps(failures, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
