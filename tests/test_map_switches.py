"""``symdelay map --bautin auto|yes|no --fold-cycles auto|yes|no``: the stability map's
``bautin=`` and ``fold_cycles=`` (None, True, False) from the command line.

The two-lag mixture at theta = 6, w = 0.8 has two certified Bautin points in
``D1 in [0.3, 0.6], D2 in [3.5, 5]`` (tests/test_delay_l1.py checks them against the closed
form), and by default the map continues a curve of folds of cycles from each (about 45 s):
``--fold-cycles no`` must skip exactly that, and the command line must give the record the
API gives for the same keywords."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from symdelay import SymdelayInputError, build_model, load_toml, stability_map
from symdelay.analysis.stability_map import NO_BAUTIN, NO_FOLD_CYCLES
from symdelay.cli import main as cli_main
from symdelay.cli.commands._common import json_default

MIX = Path(__file__).resolve().parent.parent / "examples" / "models" / "two_lag_mixture.toml"
VALUES = {"mu": 1, "lam": 1, "theta": 6, "w": "0.8"}
BOX = {"x": "D1=0.3:0.6", "y": "D2=3.5:5", "cells": 2}
CLI = ["map", "--model-file", str(MIX), *(a for k, v in VALUES.items() for a in ("--set", f"{k}={v}")),
       "--x", BOX["x"], "--y", BOX["y"], "--cells", str(BOX["cells"]), "--json"]  # fmt: skip


def _cli(capsys, *extra):
    status = cli_main([*CLI, *extra])
    out = capsys.readouterr()
    assert status == 0, out.err
    return json.loads(out.out)


def _api(**keywords):
    m = load_toml(MIX, **VALUES)
    res = stability_map(m, **BOX, **keywords)
    return json.loads(json.dumps(res.to_json(), default=json_default))


def test_fold_cycles_no_skips_the_curves_and_says_so(capsys):
    got = _cli(capsys, "--fold-cycles", "no")
    assert got == _api(fold_cycles=False)
    bautin = [s for s in got["special_points"] if s["type"] == "bautin"]
    assert len(bautin) == 2 and all(s["certified"] for s in bautin)  # points to start from
    assert got["fold_of_cycles"] == []
    assert NO_FOLD_CYCLES in got["notes"] and "--fold-cycles no" in NO_FOLD_CYCLES


def test_bautin_no_skips_the_search_and_says_so(capsys):
    got = _cli(capsys, "--bautin", "no")
    assert got == _api(bautin=False)
    assert not [s for s in got["special_points"] if s["type"] == "bautin"]
    assert got["fold_of_cycles"] == []
    assert NO_BAUTIN in got["notes"]
    assert not any(n.startswith("first Lyapunov coefficient") for n in got["notes"])
    assert got["curves"]  # the rest of the map is there


def test_the_default_search_declined_is_said_and_yes_asks_for_it():
    """The founding model at L = 6 has 14 states, over the default's 12: auto looks for no
    Bautin point and says why; bautin=True scans l1 along the Hopf curve (negative
    everywhere: the founding model's l1 < 0, erlang/hopf/map.py)."""
    m = build_model("erlang", L=6, mu=1, lam=1)
    box = {"x": "D=0.5:2", "y": "theta=0:40", "cells": 2, "seeds": 3}
    auto = stability_map(m, **box)
    (note,) = [n for n in auto.notes if n.startswith("no Bautin point looked for")]
    assert "1 Hopf curve(s) and 14 states" in note and "--bautin yes" in note
    yes = stability_map(m, **box, bautin=True)
    (l1,) = [n for n in yes.notes if n.startswith("first Lyapunov coefficient")]
    assert " 0 positive" in l1 and "0 Bautin point(s)" in l1
    assert auto.curves == yes.curves


def test_fold_cycles_yes_looks_for_bautin_points_on_the_founding_map():
    """The founding model's explicit map looks for no Bautin point by default; asked for
    the fold-of-cycles curves it states why there are none (l1 < 0 on every branch)."""
    m = build_model("erlang", L=2, mu=1, lam=1)
    auto = stability_map(m, x="D=0.5:2", y="theta=0:20", cells=4)
    yes = stability_map(m, x="D=0.5:2", y="theta=0:20", cells=4, fold_cycles=True)
    assert not any("Bautin" in n for n in auto.notes)
    assert any(n.startswith("no Bautin point: l1 < 0") for n in yes.notes)
    assert yes.fold_of_cycles == ()


@pytest.mark.parametrize(
    "extra",
    [
        ["--bautin", "maybe"],
        ["--bautin", ""],
        ["--bautin", "True"],
        ["--fold-cycles", "0"],
        ["--fold-cycles"],
        ["--bautin", "no", "--bautin", "no"],
        ["--bautin", "no", "--fold-cycles", "yes"],
        ["--bautin", "no", "--fold-cycles", "no"],
    ],
)
def test_bad_values_exit_2_with_one_line(capsys, extra):
    try:  # refused before any work: by the parser (SystemExit) or once the line is read
        status = cli_main(["map", "--L", "2", "--x", "D=0.5:2", "--y", "theta=0:20", *extra])
    except SystemExit as exc:
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("symdelay: error:"), err
    assert "--bautin" in err or "--fold-cycles" in err


@pytest.mark.parametrize(
    ("keywords", "words"),
    [
        ({"bautin": "no"}, "bautin must be None"),
        ({"fold_cycles": 0}, "fold_cycles must be None"),
        ({"bautin": False, "fold_cycles": True}, "needs the Bautin points"),
    ],
)
def test_the_api_refuses_what_would_not_take_effect(keywords, words):
    m = build_model("erlang", L=2, mu=1, lam=1)
    with pytest.raises(SymdelayInputError, match=words):
        stability_map(m, x="D=0.5:2", y="theta=0:20", cells=4, **keywords)


@pytest.mark.parametrize("keywords", [{"bautin": True}, {"fold_cycles": True}])
def test_a_moving_equilibrium_map_refuses_the_bautin_search(keywords):
    """The moving-equilibrium path (hetero, mu2 moves the equilibrium) has no Bautin search:
    asking for it is refused before the map is computed."""
    m = build_model("hetero", L=2, mu1=1, lam=1, D=1)
    with pytest.raises(SymdelayInputError, match="no Bautin search yet"):
        stability_map(m, x=("mu2", "1/2", 2), y=("theta", 0, 20), cells=4, **keywords)


def test_the_help_states_the_entry_defaults():
    """The numbers --bautin's help gives are the entry's."""
    from symdelay.analysis.lagbautin import L1_POINTS
    from symdelay.analysis.stability_map import BAUTIN_CURVES, BAUTIN_STATES
    from symdelay.cli import build_parser

    p = build_parser(["map"])
    sub = next(a for a in p._actions if a.dest == "command")
    text = " ".join(sub.choices["map"].format_help().split())
    assert f"at most {BAUTIN_CURVES} Hopf curves of a model of at most {BAUTIN_STATES}" in text
    assert f"at up to {L1_POINTS} points" in text
