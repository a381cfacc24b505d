"""The explorer's page without a browser: every option of ``symdelay explore`` takes effect
on the page it builds or is refused in one line (the option walk of tests/test_option_walk.py
cannot run a server), and the panels' data agree with independent paths: the shaded map with
the certified roots, the fluid panel's difference system with the full fluid ODEs, a model
file's coarse map with the founding model's closed form.
"""

from __future__ import annotations

import argparse
import random
from fractions import Fraction

import numpy as np
import pytest

from symdelay.cli import build_parser
from symdelay.cli import main as cli_main
from symdelay.core.errors import SymdelayInputError

FOUND = ["--L", "2", "--mu", "1", "--lam", "1", "--theta", "2", "--D", "1"]
NSERVER = ["--model", "nserver", "--N", "2", "--L", "1", "--mu", "1", "--lam", "1"]
FILE = ["--model-file", "examples/models/erlang2.toml", "--set", "gamma=1"]

#: a changed value for each option (by flag)
OTHER = {
    "--x": "mu",
    "--y": "lam",
    "--port": "5007",
    "--model": "hetero",
    "--model-file": "examples/models/erlang2.toml",
    "--set": "mu=2",
    "--L": "3",
    "--N": "3",
    "--mu": "2",
    "--lam": "0.5",
    "--theta": "3",
    "--D": "2",
    "--delay": "hypoexp",
    "--rates": "1,2",
    "--probs": "0.5,0.5",
    "--continue-probs": "0.5",
    "--alpha": "1,0",
    "--S": "[[-2,1],[0,-3]]",
}
AGAIN = {
    "--L": "4",
    "--mu": "3",
    "--lam": "0.75",
    "--theta": "4",
    "--D": "3",
    "--N": "4",
    "--model-file": "examples/models/hyperexp_delay.toml",
}


def _parser(argv):
    parser = build_parser(["explore", *argv])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return parser, sub.choices["explore"]


def _flags(argv):
    _, p = _parser(argv)
    out = []
    for a in p._actions:
        flags = [s for s in a.option_strings if s.startswith("--")]
        if flags and flags[0] != "--help":
            out.append((flags[0], a.nargs != 0))
    return out


def page(argv):
    """What ``symdelay explore ARGV`` serves, without serving it: ``("refused", line)`` or
    ``("page", fingerprint)`` (port, browser, sliders, axes, the panels' data)."""
    from bokeh.document import Document

    from symdelay.cli import door
    from symdelay.cli.commands.explore import explorer_from_args, port_from_args
    from symdelay.outputs.explorer import build_document

    try:
        parser, _ = _parser(argv)
        args = parser.parse_args(["explore", *argv])
        door.check(args)
        port = port_from_args(args)
        ex = explorer_from_args(args)
        out = build_document(Document(), ex)
    except SystemExit as exc:  # argparse: one line, exit 2
        assert exc.code == 2
        return "refused", "argparse"
    except SymdelayInputError as exc:
        assert "\n" not in str(exc)
        return "refused", str(exc)
    src = out["sources"]
    fingerprint = (
        port,
        ex.open_browser,
        tuple((s.name, s.value, s.start, s.end) for s in ex.sliders),
        tuple(sorted(ex.fixed.items())),
        out["map"].xaxis[0].axis_label,
        out["map"].yaxis[0].axis_label,
        tuple(src["roots_source"].data["re"]),
        tuple(src["fluid_source"].data["x"][:50]),
        tuple(src["map_curve_source"].data["y"][:20]),
    )
    return "page", fingerprint


def _changed(argv, flag, takes_value):
    argv = list(argv)
    if not takes_value:
        return [*argv, flag]
    value = OTHER[flag]
    if flag in argv:
        i = argv.index(flag)
        argv[i + 1] = AGAIN.get(flag, value) if argv[i + 1] == value else value
        return argv
    return [*argv, flag, value]


BASES = [("founding", FOUND), ("nserver", NSERVER), ("file", FILE)]
CASES = [
    pytest.param(base, flag, takes, id=f"{name}|{flag}")
    for name, base in BASES
    for flag, takes in _flags(base)
]


@pytest.mark.parametrize(("base", "flag", "takes_value"), CASES)
def test_every_explore_option_takes_effect_or_is_refused(base, flag, takes_value):
    kind0, page0 = page(base)
    assert kind0 == "page", page0
    kind, got = page(_changed(base, flag, takes_value))
    if kind == "refused":
        return
    assert got != page0, f"{flag} changed nothing on the page"


def test_the_walk_knows_every_explore_option():
    """A new option of explore must get a changed value here (and so be walked)."""
    for _, base in BASES:
        for flag, takes in _flags(base):
            assert not takes or flag in OTHER, f"no changed value for {flag}: add one to OTHER"


def test_the_axes_options_move_the_map():
    kind, fp = page([*FOUND, "--x", "mu", "--y", "D"])
    assert kind == "page" and fp[4:6] == ("mu", "D")
    kind, fp = page(FOUND)
    assert fp[4:6] == ("D", "theta")  # the founding default
    kind, fp = page(FILE)
    assert fp[4:6] == ("gamma", "theta")  # a model without D: its phase rate


def test_an_axis_range_sets_the_map_and_its_slider():
    from bokeh.document import Document

    from symdelay.outputs.explorer import build_document

    ex = _explorer(x="D=0.5:4", y="theta=0:25")
    assert (ex.x, ex.y) == ("D", "theta")
    assert (ex.slider("D").start, ex.slider("D").end) == (0.5, 4.0)
    out = build_document(Document(), ex)
    assert (out["map"].x_range.start, out["map"].x_range.end) == (0.5, 4.0)
    assert (out["map"].y_range.start, out["map"].y_range.end) == (0, 25)
    assert (out["sliders"]["D"].start, out["sliders"]["D"].end) == (0.5, 4.0)
    curve = out["sources"]["map_curve_source"].data["x"]
    assert abs(curve[0] - 0.5) < 1e-12 and abs(curve[-1] - 4) < 1e-12


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--x", "D=4:0.5"], ["inverted"]),
        (["--x", "D=2:5"], ["does not hold the starting D = 1"]),
        (["--x", "D=0:5"], ["> 0"]),
        (["--x", "D=1"], ["NAME=LO:HI"]),
        (["--x", "L=1.5:4", "--y", "theta"], ["integers"]),
        (["--x", "kappa"], ["--x kappa", "choose one of L, mu, lam, theta, D"]),
        (["--y", "gamma"], ["--y gamma", "not a parameter"]),
        (["--x", "theta", "--y", "theta"], ["both theta"]),
        (["--port", "http"], ["--port"]),
        (["--port", "70000"], ["--port"]),
        (["--L", "inf"], ["finite L"]),
        (["--set", "mu=1"], ["--set"]),
    ],
)
def test_bad_explore_input_is_one_line_exit_2(capsys, argv, words):
    status = cli_main(["explore", "--no-browser", *argv])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1 and err.startswith("symdelay: error:"), err
    for w in words:
        assert w in err, err


def test_ctrl_c_while_serving_exits_130(capsys, monkeypatch):
    import symdelay.outputs.explorer as explorer

    def interrupted(ex, port, announce):
        announce(f"symdelay explore: serving http://127.0.0.1:{port}/ (Ctrl-C stops)")
        raise KeyboardInterrupt

    monkeypatch.setattr(explorer, "serve", interrupted)
    status = cli_main(["explore", "--no-browser", "--port", "5999"])
    out = capsys.readouterr()
    assert status == 130
    assert out.out == "symdelay explore: serving http://127.0.0.1:5999/ (Ctrl-C stops)\n"
    assert out.err == "symdelay: interrupted\n"


def _explorer(**kw):
    from symdelay.outputs.explorer import Explorer

    options = {"L": "3", "mu": "1", "lam": "1", "theta": "2", "D": "1"}
    options.update(kw.pop("options", {}))
    return Explorer("erlang", options, **kw)


def _unstable(state) -> bool:
    from symdelay.analysis.roots import roots
    from symdelay.models import build_model

    rs = roots(build_model("erlang", **state))
    return rs.unstable_count > 0


def test_the_shaded_side_of_the_boundary_is_where_the_certified_roots_are_unstable():
    """(D, theta): just below the plotted theta_c(D) the roots are all stable, just above
    one pair is unstable (the roots come from the Erlang branch structure, not the Hopf
    phase the curve solves)."""
    ex = _explorer()
    state = ex.initial_state
    m = ex.map_data(state)
    D, th = np.array(m["curve_x"]), np.array(m["curve_y"])
    rng = random.Random(3)
    for i in rng.sample(range(len(D)), 6):
        for factor, want in ((0.99, False), (1.01, True)):
            point = {**state, "D": repr(float(D[i])), "theta": repr(float(th[i] * factor))}
            assert _unstable(point) is want, point
    shade = m["shade"]
    assert shade["x"] == m["curve_x"] and shade["y2"][0] == ex.slider("theta").end


def test_the_shaded_cells_of_a_map_without_theta_agree_with_the_roots():
    """(mu, lam) at theta = 2, L = 3, D = 1: each shaded cell (theta > theta_c there) is a
    point where the certified roots are unstable, each clear cell one where they are not."""
    ex = _explorer(x="mu", y="lam")
    m = ex.map_data(ex.initial_state)
    img = np.array(m["image"]["image"][0])
    gx, gy = ex.axis_grid("mu", img.shape[1]), ex.axis_grid("lam", img.shape[0])
    assert 0 < img.sum() < img.size  # both sides are in the box
    rng = random.Random(5)
    cells = [(j, i) for j in range(img.shape[0]) for i in range(img.shape[1])]
    chosen = rng.sample([c for c in cells if img[c]], 5) + rng.sample(
        [c for c in cells if not img[c]], 5
    )
    for j, i in chosen:
        point = {**ex.initial_state, "mu": repr(float(gx[i])), "lam": repr(float(gy[j]))}
        assert _unstable(point) is bool(img[j, i]), point


def test_the_fluid_panel_is_the_full_fluid_system_from_the_same_start():
    """The panel integrates the closed difference system; the full 2(L+1) ODEs through the
    entry, from q1 = q* + e, q2 = q* - e and every phase at equilibrium, give the same
    q1 - q2 (the sum mode stays at equilibrium)."""
    from symdelay.analysis.fluid import fluid
    from symdelay.models import build_model
    from symdelay.outputs.explorer import FLUID_DT, FLUID_T, PERTURBATION

    for L, theta, D in ((2, "10.5", 0.7), (4, "3", 0.7), (6, "30", 0.2)):  # last: LSODA
        ex = _explorer(options={"L": str(L), "theta": theta, "lam": "1.5", "D": repr(D)})
        state = ex.initial_state
        panel = ex.fluid_data(state)
        q = 1.5 / 1.0  # q* = lam/mu
        z = 1.5 * D / L  # each phase: lam D/L
        e = PERTURBATION * q
        y0 = [q + e, q - e] + [z] * (2 * L)
        full = fluid(build_model("erlang", **state), T=FLUID_T, dt=FLUID_DT, initial=y0)
        assert np.allclose(panel["t"], full.t)
        assert np.max(np.abs(np.array(panel["x"]) - (full["q1"] - full["q2"]))) < 1e-6
        assert abs(panel["x"][0] - 2 * e) < 1e-15


def test_a_model_files_coarse_map_is_the_founding_closed_form():
    """The model file erlang2.toml is the founding model at L = 2 with gamma = 2/D: its
    first crossing from symdelay.analysis.critical at each gamma of the coarse grid equals
    theta_c(D) = (D + 2)^2 / D (mu = lam = 1)."""
    from symdelay.outputs.explorer import Explorer

    ex = Explorer(file="examples/models/erlang2.toml", settings={"gamma": "1"})
    state = ex.initial_state
    param, over, values, transposed = ex.generic_map_plan(state)
    assert (param, over, transposed) == ("theta", "gamma", False)
    for v in (values[3], values[5]):
        D = 2 / Fraction(v)
        assert abs(ex.generic_map_point(state, v) - float((D + 2) ** 2 / D)) < 1e-9


def test_a_generic_model_updates_its_panels():
    from symdelay.analysis.roots import roots
    from symdelay.models import build_model
    from symdelay.outputs.explorer import Explorer

    opts = {"N": "2", "L": "1", "mu": "1", "lam": "1", "theta": "2", "D": "1"}
    ex = Explorer("nserver", opts)
    assert (ex.x, ex.y, ex.founding) == ("D", "theta", False)
    out = ex.update({**ex.initial_state, "theta": "5.5"})
    assert not out["errors"] and out["map"] is None
    rs = roots(build_model("nserver", **{**opts, "theta": "5.5"}))
    top = max(float(z.value.real) for z in rs.roots)
    assert abs(max(out["roots"]["re"]) - top) < 1e-12
    assert out["marker"]["verdict"] == ["stable" if rs.is_stable else "unstable"]
