"""The second Lyapunov coefficient ``l2`` (the Bautin normal form's ``Re c2 / omega``) of one
path, :func:`symdelay.analysis.dnormal.bautin_l2`, for tables and delay models: against the
finite-difference second path on a table (``tests/_lyapunov2.py``), an Erlang action lag
against the same model written as its phase chain, DDE-BIFTOOL's ``nmfm_genh`` at a delay
Bautin point (recorded by benchmarks/bench_bautin_peer.py), and the fold of cycles of a
one-parameter delay branch near that Bautin point against the amplitude ``l2`` predicts."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import flint
import mpmath
import pytest
from _lyapunov2 import second_lyapunov
from test_bautin_map import cubic_routing_model
from test_delay_cycles import SHARPENED

from symdelay.analysis.continuation import cycles
from symdelay.analysis.dnormal import _ball, bautin_l2
from symdelay.analysis.normal_form import normal_form
from symdelay.cli import main as cli_main
from symdelay.model.core import Model

ROOT = Path(__file__).resolve().parents[1]


def _w(i):
    return f"exp(-theta*(q{i} - 1) - b*(q{i} - 1)**3)"


#: The cubic-routing table of test_bautin_map with its two-phase chain (each phase of rate
#: 1) written as an Erlang(2) action lag of mean 2.
CUBIC_LAG = f"""
name = "cubic routing, Erlang(2) action lag"
[parameters]
theta = "real"
b = "real"
[lags]
phases = {{ kind = "gamma", shape = "2", mean = "2" }}
[state]
names = ["q1", "q2"]
[[transitions]]
name = "arrival to 1"
change = {{ q1 = 1 }}
lag = "phases"
rate = "2*{_w(1)}/({_w(1)} + {_w(2)})"
[[transitions]]
name = "arrival to 2"
change = {{ q2 = 1 }}
lag = "phases"
rate = "2*{_w(2)}/({_w(1)} + {_w(2)})"
[[transitions]]
name = "service 1"
change = {{ q1 = -1 }}
rate = "q1"
[[transitions]]
name = "service 2"
change = {{ q2 = -1 }}
rate = "q2"
[symmetry]
swap = [["q1", "q2"]]
"""


def _filtered(seen: str) -> str:
    """The cubic routing on the queues seen through a filter: ``seen`` names the observed
    queue i ({i}) as an expression."""
    w1, w2 = (f"exp(-theta*({seen.format(i=i)} - 1) - b*({seen.format(i=i)} - 1)**3)"
              for i in (1, 2))  # fmt: skip
    text = '[parameters]\ntheta = "real"\nb = "real"\n'
    for i, (a, c) in enumerate(((w1, w2), (w2, w1)), start=1):
        text += (f'[[transitions]]\nname = "arrival to {i}"\nchange = {{ q{i} = 1 }}\n'
                 f'rate = "2*{a}/({a} + {c})"\n'
                 f'[[transitions]]\nname = "service {i}"\nchange = {{ q{i} = -1 }}\n'
                 f'rate = "q{i}"\n')  # fmt: skip
    return text


#: The cubic routing on the queues seen through an Erlang(2) information lag (mean 1) ...
SEEN_LAG = (
    'name = "cubic routing, Erlang(2) information lag"\n'
    + _filtered("delayed(q{i}, seen)")
    + '[lags]\nseen = { kind = "gamma", shape = "2", mean = "1" }\n'
    + '[state]\nnames = ["q1", "q2"]\n[symmetry]\nswap = [["q1", "q2"]]\n'
)
#: ... and through its two-phase filter y' = 2 (q - y), written as transitions (a table)
SEEN_CHAIN = (
    'name = "cubic routing, two-phase filter"\n'
    + _filtered("y{i}2")
    + "".join(
        f'[[transitions]]\nname = "{name} {i}"\nchange = {{ {var} = {sign} }}\nrate = "2*{src}"\n'
        for i in (1, 2)
        for name, var, sign, src in (
            ("in 1", f"y{i}1", 1, f"q{i}"),
            ("out 1", f"y{i}1", -1, f"y{i}1"),
            ("in 2", f"y{i}2", 1, f"y{i}1"),
            ("out 2", f"y{i}2", -1, f"y{i}2"),
        )
    )
    + '[state]\nnames = ["q1", "q2", "y11", "y12", "y21", "y22"]\n'
    + '[symmetry]\nswap = [["q1", "q2"], ["y11", "y21"], ["y12", "y22"]]\n'
)


def test_the_model_texts_validate_against_the_schema():
    """The texts above are built by f-strings and functions, which the schema test's
    collector cannot read from the source (it lists this module as such): checked here."""
    import tomllib

    from test_model_schema import schema_errors

    for text in (CUBIC_LAG, SEEN_LAG, SEEN_CHAIN):
        assert schema_errors(tomllib.loads(text)) == [], text.splitlines()[0]


def test_an_erlang_information_lag_has_the_l2_of_its_filter_chain(tmp_path):
    """A lagged observation (the kernel's derivative in the occurrences) against the same
    filter as phase states, at the Hopf point theta = 9, omega = 2 sqrt 2 (b = 2: l1 < 0,
    away from a Bautin point, where the two normal forms agree as well)."""
    out = []
    for text, weights in ((SEEN_LAG, [1, -1]), (SEEN_CHAIN, [1, -1, 0, 0, 0, 0])):
        f = tmp_path / "seen.toml"
        f.write_text(text)
        m = Model.from_toml(f, b="2")
        with flint.ctx.workprec(200):
            out.append(bautin_l2(m, "theta", flint.arb(9), flint.arb(8).sqrt(), weights))
    assert out[0].overlaps(out[1]) and float(out[0].rad()) < 1e-40
    assert float(out[0].mid()) == pytest.approx(0.3497903123840866668, rel=1e-15)


def _l2(model, weights, b, bits=200):
    """l2 at the cubic model's Hopf point theta = 8 (omega = sqrt 3) for the given b."""
    with flint.ctx.workprec(bits):
        value = (flint.arb(8), flint.arb(b.numerator) / b.denominator)
        return bautin_l2(model, "theta", value, flint.arb(3).sqrt(), weights, others=("b",))


def test_table_l2_is_the_finite_difference_value_at_the_bautin_point():
    """The cubic-routing table at its Bautin point (theta, b) = (8, 512/3): ``normal_form``
    in theta at b = 512/3 (l1 zero to the digits: "degenerate", l2 given) against central
    differences in mpmath (|q| = 1 there, rescaled to q_x = 1)."""
    model = cubic_routing_model()
    ref = second_lyapunov(model, ("theta", "b"), ("8", "512/3"), mpmath.sqrt(3), dps=20)
    assert abs(ref.l1) < 1e-15
    expect = float(ref.l2 / abs(ref.q[0] - ref.q[1]) ** 4)
    nf = normal_form(model.with_values(b="512/3"))
    assert nf.theta_c == 8 and nf.criticality == "degenerate"
    assert float(nf.l2) == pytest.approx(expect, rel=1e-13) and nf.l2_radius < 1e-12
    assert float(nf.l2) == pytest.approx(-98.5344459416961, rel=1e-13)
    assert nf.bautin_note.startswith("l2 < 0")


@pytest.mark.parametrize("b", [Fraction(512, 3), Fraction(100)])
def test_an_erlang_action_lag_has_the_l2_of_its_phase_chain(tmp_path, b):
    """The Erlang(2) action lag (its kernel and the kernel's derivative at the secular modes
    of h21, h31) against the same law as a chain of two phase states (a table)."""
    f = tmp_path / "cubic_lag.toml"
    f.write_text(CUBIC_LAG)
    lagged = _l2(Model.from_toml(f), [1, -1], b)
    chain = _l2(cubic_routing_model(), [1, -1, 0, 0, 0, 0], b)
    assert lagged.overlaps(chain) and float(lagged.rad()) < 1e-40
    assert abs(float(lagged.mid())) > 1  # not a vanishing coefficient


@pytest.fixture(scope="module")
def sharpened(tmp_path_factory):
    f = tmp_path_factory.mktemp("bautin") / "sharpened.toml"
    f.write_text(SHARPENED)
    return f


def test_the_delay_bautin_point_has_dde_biftools_l2(sharpened):
    """The sharpened-routing delay model at c = 1/24: l1 = 0 exactly, l2 in Arb balls
    against DDE-BIFTOOL's nmfm_genh (doubles, its derivatives by Cauchy integrals)."""
    peer = json.loads((ROOT / "benchmarks" / "results" / "bautin_peer.json").read_text())
    assert peer["values"] == {"mu": 1, "lam": 1, "D": 1, "c": "1/24"}
    assert peer["hopf_corrected"]
    nf = normal_form(Model.from_toml(sharpened, mu=1, lam=1, D=1, c="1/24"), dps=20)
    assert nf.l1 == 0 and nf.l1_radius == 0 and nf.criticality == "degenerate"
    assert float(nf.theta_c) == pytest.approx(peer["theta_c"], rel=1e-14)
    assert float(nf.omega) == pytest.approx(peer["omega"], rel=1e-14)
    assert abs(peer["L1_qx"]) < 1e-13
    assert nf.l2_radius < 1e-18
    assert float(nf.l2) == pytest.approx(peer["L2_qx"], rel=1e-10)
    rec = nf.to_json()
    assert rec["l2"].startswith("-1.2151776884153") and float(rec["l2_radius"]) < 1e-18
    assert "cycles are born stable" in nf.bautin_note


def test_normal_form_prints_l2_where_l1_vanishes(sharpened, capsys):
    argv = ["normal-form", "--model-file", str(sharpened)]
    argv += ["--set", "mu=1", "--set", "lam=1", "--set", "D=1"]
    assert cli_main([*argv, "--set", "c=1/24"]) == 0
    out = capsys.readouterr().out
    (line,) = [ln for ln in out.splitlines() if ln.strip().startswith("l2 = ")]
    assert "-1.2151776884" in line and "fold of cycles lies on the side where l1 > 0" in line


def test_the_fold_of_a_delay_branch_approaches_the_l2_prediction(sharpened):
    """Just past the Bautin point (c > 1/24: l1 > 0, l2 < 0) the branch of cycles in theta
    folds back; its LPC's amplitude against the Bautin normal form's ``A = 2 rho``,
    ``rho^2 = -l1 / (2 l2)`` (q_x = 1): the ratio tends to 1 as c -> 1/24 (its deviation
    of the order of the amplitude)."""
    dev = []
    for delta in (Fraction(1, 1600), Fraction(1, 6400)):
        m = Model.from_toml(sharpened, mu=1, lam=1, D=1, c=str(Fraction(1, 24) + delta))
        nf = normal_form(m)
        assert nf.criticality == "subcritical"
        with flint.ctx.workprec(120), mpmath.workdps(30):
            l2 = bautin_l2(m, "theta", _ball(nf.theta_c, 1e-25), _ball(nf.omega, 1e-25), [1, -1])
        assert l2 < 0
        predicted = 2 * (-float(nf.l1) / (2 * float(l2.mid()))) ** 0.5
        th = float(nf.theta_c)
        b = cycles(m, "theta", repr(th - 0.002), repr(th + 0.001), intervals=12)
        (lpc,) = [s for s in b.special_points if s.kind == "LPC"]
        assert lpc.value < th  # the fold on the stable side of the equilibrium
        dev.append(lpc.amplitude / predicted - 1)
    assert abs(dev[1]) < 0.08 and abs(dev[1]) < 0.5 * abs(dev[0]), dev
