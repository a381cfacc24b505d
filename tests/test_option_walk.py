"""Every option takes effect or is refused: each command that runs a model, with the founding
model and with a generic one, and every option its parser accepts.

For each (command, option) the option is changed from a base run (a value replaced, a flag
added, an absent option given): the run must print something else, or be refused with one
line and exit status 2. ``--force`` is checked where it acts: a run over the budget is
refused without it and names it.
"""

from __future__ import annotations

import argparse

import pytest

from symdelay.cli import build_parser
from symdelay.cli import main as cli_main

FOUND = ["--mu", "1", "--lam", "1"]
MAP_GRID = ["--cells", "4", "--seeds", "3"]
INFLIGHT_SET = ["--set", "mu=1", "--set", "gamma=1", "--set", "lam=1"]
NSERVER = ["--model", "nserver", "--N", "3", "--L", "2", "--mu", "1", "--lam", "1"]
SHAPE = ["--probs", "0.5,0.5", "--rates", "1,3"]
STATIONS = "N=5,mu=1;N=10,mu=1/2"

#: (command, base arguments): small, fast runs
BASES = [
    ("charpoly", ["--L", "2"]),
    ("stability", ["--L", "2"]),
    ("critical", ["--L", "2", *FOUND, "--D", "1"]),
    ("roots", ["--L", "2", *FOUND, "--theta", "2", "--D", "1", "--dps", "15"]),
    ("fluid", ["--T", "2", "--dt", "0.5"]),
    ("simulate", ["--T", "1", "--eta", "50"]),
    ("variance", []),
    ("window", ["--L", "2", "--theta", "12", *FOUND]),
    ("worst-delay", ["--L", "3", *FOUND]),
    ("verify", ["--L", "1", "--claim", "lam*theta < mu"]),
    ("normal-form", ["--L", "2", *FOUND, "--D", "1"]),
    ("limit-cycle", ["--L", "2", *FOUND, "--D", "1", "--theta", "10"]),
    ("cycles", ["--L", "2", *FOUND, "--D", "1", "--theta", "8:9.5", "--max-points", "4"]),
    ("spectrum", ["--L", "1", *FOUND, "--theta", "1", "--D", "1", "--points", "11"]),
    ("analyze", ["--model", "erlang", "--L", "1", *FOUND, "--theta", "1", "--D", "1"]),
    ("map", ["--L", "2", *FOUND, "--x", "D=0.5:2", "--y", "theta=0:20", *MAP_GRID]),
    ("charpoly", NSERVER),
    ("stability", [*NSERVER, "--theta", "1", "--D", "1"]),
    ("critical", [*NSERVER, "--D", "1"]),
    ("roots", [*NSERVER, "--theta", "1", "--D", "1", "--dps", "15"]),
    ("fluid", [*NSERVER, "--T", "2", "--dt", "0.5"]),
    ("simulate", [*NSERVER, "--T", "1", "--eta", "50"]),
    ("variance", [*NSERVER, "--theta", "1", "--D", "1"]),
    ("analyze", [*NSERVER, "--theta", "1", "--D", "1"]),
    ("window", [*NSERVER, "--theta", "12"]),
    ("worst-delay", NSERVER),
    ("map", [*NSERVER, "--x", "D=0.5:2", "--y", "theta=0:20", *MAP_GRID]),
    # the in-flight family's own commands (their flags are that family's options)
    ("unstable-theta", ["--L", "2", "--kappa", "0.05"]),
    ("kappa-star", ["--L", "2", "--dps", "15"]),
    # ... and for a model named on the command line (the generic entries)
    ("unstable-theta", [*NSERVER, "--D", "1"]),
    ("kappa-star", ["--model-file", "examples/models/inflight_erlang1.toml", *INFLIGHT_SET]),
    ("optimize-weights", ["--L", "2", "--theta", "5", "--criterion", "decay", "--kappa-max", "1"]),
    # the families with sub-commands of their own (service shapes, LB weights, designs)
    ("sqd fixed-point", ["--d", "2", "--lam", "0.5"]),
    ("sqd fixed-point", ["--d", "2", "--lam", "0.5", "--service", "hyperexp", *SHAPE]),
    ("sqd fluid", ["--d", "2", "--lam", "0.5", "--T", "2", "--points", "3"]),
    ("sqd simulate", ["--N", "20", "--d", "2", "--lam", "0.5", "--T", "300", "--batches", "5"]),
    ("lb fluid", ["--stations", STATIONS, "--lam", "0.5"]),
    ("lb diffusion", ["--stations", STATIONS, "--beta", "1", "--dps", "15"]),
    ("lb design", ["--stations", STATIONS, "--beta", "1", "--target", "min-delay"]),
    ("lb simulate", ["--stations", STATIONS, "--beta", "1", "--T", "300", "--batches", "5"]),
]

#: commands the walk does not run, with the reason; each names the test that checks instead
#: that its every option takes effect or is refused
NOT_RUN = {
    "explore": "serves a page until Ctrl-C (tests/test_explore.py walks its options on the "
    "page it builds, tests/test_explore_browser.py runs the server)",
}

#: a changed value for each option (by flag)
OTHER = {
    "--L": "3",
    "--N": "4",
    "--mu": "2",
    "--lam": "2",
    "--theta": "3",
    "--D": "2",
    "--param": "D",
    "--at": "2",
    "--dps": "25",  # not 20: the default of stability
    "--T": "3",
    "--dt": "0.25",
    "--eta": "60",
    "--seed": "7",
    "--replications": "2",
    "--rightmost": "2",
    "--box": "0,1,0,20",
    "--branches": "-1..1",
    "--claim": "lam*theta < 2*mu",
    "--assume": "mu < gamma",
    "--timeout": "5",
    "--system": "full",
    "--points": "21",
    "--omega-max": "3",
    "--kappa": "0.5",
    "--pattern": "last",
    "--delay": "hypoexp",
    "--rates": "1,2",
    "--probs": "0.5,0.5",
    "--continue-probs": "0.5",
    "--alpha": "1,0",
    "--S": "[[-2,1],[0,-3]]",
    "--model": "hetero",
    "--model-file": "examples/models/erlang2.toml",
    "--set": "mu=1",
    "--in": "theta",
    "--over": "mu",
    "--lo": "1",
    "--hi": "5",
    "--x": "D=1:3",
    "--y": "theta=0:30",
    "--fixed": "eta=2",
    "--cells": "5",
    "--seeds": "4",
    "--bautin": "no",
    "--solver": "RK45",
    "--rtol": "1e-6",
    "--atol": "1e-9",
    "--fold-cycles": "no",
    "--criterion": "variance",
    "--kappa-max": "2",
    "--eps": "0.1",
    "--d": "3",
    "--K": "4",
    "--k": "3",
    "--mean": "2",
    "--service": "erlang",
    "--service-dist": "deterministic",
    "--warmup": "5",
    "--batches": "4",
    "--backend": "python",
    "--delay-L": "2",
    "--delay-D": "0.5",
    "--start": "fixed",
    "--stations": "N=5,mu=1;N=10,mu=2",
    "--xi": "1",
    "--xi-dist": "1:1",
    "--c": "1,2",
    "--beta": "2",
    "--target": "equal-delay",
    "--ratio": "1,2",
    "--d-max": "5",
    "--routing": "random",
    "--history": "empty",
    "--range": "1:2",
    "--intervals": "10",
    "--degree": "3",
    "--max-points": "4",
    "--direction": "down",
    "--switch": "1",
    "--step": "0.01",
    "--max-step": "0.001",
    "--weights": "1,0,0,0",
    "--start-fraction": "0.01",
    "--max-modes": "127",
    "--kind": "max",
}
#: a second value, where the base run already has the first
AGAIN = {
    "--L": "4",
    "--eta": "70",
    "--T": "4",
    "--dt": "0.2",
    "--set": "mu=2",
    "--criterion": "tolerance-linear",
    "--kappa-max": "3",
    "--d": "3",
    "--lam": "0.6",
    "--points": "4",
    "--probs": "0.25,0.75",
    "--rates": "1,2",
    "--N": "5",
    "--beta": "2",
    "--target": "equal-delay",
    "--dps": "20",
    "--max-points": "3",
}
#: options checked elsewhere in this file (--json: the walk compares JSON where there is one)
SPECIAL = {"--help", "--force", "--json"}


def command_parser(command, argv=()):
    """The parser of ``command`` (``"sqd fixed-point"``: a sub-command's own)."""
    words = command.split()
    p = build_parser([*words, *argv])
    for word in words:
        sub = next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))
        p = sub.choices[word]
    return p


def _parser_options(command, argv):
    p = command_parser(command, argv)
    out = []
    for action in p._actions:
        flags = [s for s in action.option_strings if s.startswith("--")]
        if not flags or flags[0] in SPECIAL:
            continue
        flag = flags[0]
        takes_value = action.nargs != 0
        out.append((flag, takes_value))
    return out


def _changed(argv, flag, takes_value, tmp_path):
    argv = list(argv)
    if not takes_value:
        return [*argv, flag]
    value = OTHER.get(flag)
    if flag in ("--csv", "--tex"):
        value = str(tmp_path / ("out.csv" if flag == "--csv" else "out.tex"))
    if flag == "--out":
        value = str(tmp_path / "other")
    if flag == "--plot":  # the run writes a figure (checked in tests/test_cli_plot.py)
        value = str(tmp_path / "figure.png")
    if flag == "--initial":
        value = "1,0,0,0,0,0" if "--eta" not in argv else "50,0,0,0,0,0"
    if flag == "--x0":
        value = "0.5"
    if flag == "--in" and argv[0] in ("normal-form", "cycles"):  # their default is theta
        value = "lam"
    assert value is not None, f"no changed value for {flag}: add one to OTHER"
    if flag in argv:
        i = argv.index(flag)
        if argv[i + 1] == value:
            value = AGAIN[flag]
        argv[i + 1] = value
        return argv
    return [*argv, flag, value]


def _has_json(command):
    return any("--json" in a.option_strings for a in command_parser(command)._actions)


_JSON = {c for c, _ in BASES if _has_json(c)}


def _run(capsys, argv):
    try:
        status = cli_main(argv)
    except SystemExit as exc:  # argparse refuses an option (one line, exit 2)
        status = exc.code
    out = capsys.readouterr()
    return status, out.out, out.err


CASES = []
for command, base in BASES:
    options = _parser_options(command, base)
    if command in _JSON:
        base = [*base, "--json"]
    for flag, takes_value in options:
        CASES.append(
            pytest.param(command, base, flag, takes_value, id=f"{command}|{base[:2]}|{flag}")
        )


@pytest.mark.parametrize(("command", "base", "flag", "takes_value"), CASES)
def test_every_option_takes_effect_or_is_refused(
    capsys, tmp_path, command, base, flag, takes_value
):
    words = command.split()
    status0, out0, err0 = _run(capsys, [*words, *base])
    assert status0 == 0, err0
    argv = _changed([*words, *base], flag, takes_value, tmp_path)
    status, out, err = _run(capsys, argv)
    if status == 2:
        assert err.count("\n") == 1 and err.startswith("symdelay: error:"), err
        return
    assert status == 0, err
    wrote = list(tmp_path.rglob("*"))
    assert out != out0 or wrote, f"{' '.join(argv)} printed the same as without {flag}"


def test_the_walk_covers_every_model_command():
    """Every command that builds its model at the door is walked."""
    from symdelay.cli import door

    walked = {c for c, _ in BASES}
    parser = build_parser(["--help"])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    takes_model = {
        name
        for name, p in sub.choices.items()
        if any("--model" in a.option_strings for a in p._actions)
    }
    assert takes_model - walked <= {"derive", *NOT_RUN}, takes_model - walked
    assert not walked & set(NOT_RUN)
    assert door.DEFAULT_FAMILY == "erlang"


def test_force_takes_effect(capsys):
    """Over the budget a run is refused and the message names --force."""
    status, _, err = _run(capsys, ["simulate", "--eta", "1000000000", "--T", "1000000"])
    assert status == 2 and "--force" in err


def test_a_named_command_alone_gets_the_parser_of_the_full_build():
    """build_parser registers only the named command's module when the module has its name:
    every command's options, defaults and help equal those of the parser with every module."""
    import argparse

    import symdelay.cli as cli

    full = cli.build_parser(["--help-not-a-command"])
    sub = next(a for a in full._actions if isinstance(a, argparse._SubParsersAction))
    assert len(sub.choices) >= 25
    alone = 0
    for name, ref in sub.choices.items():
        parser = cli.build_parser([name])
        got = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        alone += len(got.choices) < len(sub.choices)
        mine = got.choices[name]
        assert mine.format_help() == ref.format_help(), name
        assert [(a.dest, a.default) for a in mine._actions] == [
            (a.dest, a.default) for a in ref._actions
        ], name
    assert alone >= 20, alone  # most commands are registered alone
