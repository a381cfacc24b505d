"""Piecewise-smooth rates (Min, Max, Abs, Heaviside, Piecewise): the parser, the sign check,
the equilibrium on the smooth pieces and the refusal on a kink, the Jacobian, the simulator
(C against its Python twin) and the command line.

What each answer is compared with: the closed form lam/mu of the M/M/c-like fluid below its
capacity and its Jacobian -mu; a central finite difference of the drift (an independent
derivative); the same model written with Abs instead of Min; the same model with infinite
servers (mu*q, smooth), whose linearisation it shares below capacity; the fluid path of the
drift; the time average of exact simulations with its confidence interval; the rates of
the generated kernel against a lambdify evaluation.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.simulate import GeneratedKernel
from symdelay.core.checks import time_grid
from symdelay.core.errors import SymdelayInputError
from symdelay.core.parsing import parse_rate
from symdelay.model import Model, load_toml
from symdelay.model.pieces import as_piecewise, select, switches

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "models" / "many_server.toml"

MIN = "mu*Min(q, c)"
ABS = "mu*(q + c - Abs(q - c))/2"  # the same function: min(q, c) = (q + c - |q - c|)/2


def one_queue(service: str, arrival: str = "lam", **values) -> Model:
    return Model(
        "c servers",
        ["q"],
        {"lam": "positive", "mu": "positive", "c": "positive", "K": "positive"},
        [("arrive", {"q": 1}, arrival), ("serve", {"q": -1}, service)],
        values=values,
    )


def drift_derivative(model, point, h=1e-6):
    """d(drift)/dq at ``point`` by a central difference of the drift (an independent path)."""
    (q,) = model.states
    F = sp.lambdify([q], model.drift[0], "mpmath")
    x = float(point[q])
    return (float(F(x + h)) - float(F(x - h))) / (2 * h)


# ---- the parser ---------------------------------------------------------------------------


def test_parser_builds_the_functions_and_nothing_runs():
    V = ["q", "lam", "K", "c"]
    assert parse_rate("Min(q, c)", V) == sp.Min(*sp.symbols("q c"))
    assert parse_rate("Max(q - 1, 0, c)", V).func is sp.Max
    q, K = sp.symbols("q K")
    assert parse_rate("Heaviside(K - q)", V) == sp.Heaviside(K - q)
    assert parse_rate("Heaviside(K - q, 1)", V) == sp.Heaviside(K - q, 1)
    pw = parse_rate("Piecewise((lam, q < K and q > 1), (0, True))", V)
    assert isinstance(pw, sp.Piecewise) and pw.args[-1][1] is sp.true


@pytest.mark.parametrize(
    "text, words",
    [
        ("Piecewise((1, q == K), (0, True))", "<, <=, > or >="),
        ("Piecewise((1, q < K))", "(EXPR, True)"),
        ("lam*(q < K)", "outside a Piecewise condition"),
        ("Min(q)", "fewer than two"),
        ("Heaviside(K - q, 2)", "in [0, 1]"),
        ("Piecewise((1, q), (0, True))", "is not a condition"),
        ("Piecewise((1, q < K), (0, True), (1, True))", None),  # a later branch is fine
        ("Min(q, __import__('os'))", "cannot use"),
        ("Piecewise((q < 1, q < K), (0, True))", "outside a Piecewise condition"),
    ],
)
def test_parser_refuses_in_one_line(text, words):
    V = ["q", "lam", "K", "c"]
    if words is None:
        assert isinstance(parse_rate(text, V), sp.Piecewise)
        return
    with pytest.raises(SymdelayInputError) as exc:
        parse_rate(text, V)
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_pieces_select_the_branch_of_each_side():
    q, c = sp.symbols("q c")
    (s,) = switches(sp.Min(q, c), [q])
    below = {s: 1 if s.coeff(q) > 0 else -1}  # q - c > 0 or c - q > 0: q above c
    assert select(sp.Min(q, c), below, [q]) == c
    above = {s: -below[s]}
    assert select(sp.Min(q, c), above, [q]) == q
    # the derivative branch by branch, where SymPy's own of Abs of a plain symbol is unusable
    assert sp.diff(as_piecewise(sp.Abs(q - c)), q).subs({q: 3, c: 1}) == 1


# ---- signs at the door ------------------------------------------------------------------------


def test_rates_are_proven_nonnegative_or_refused_with_a_point():
    one_queue(MIN)  # proven
    one_queue(ABS)
    one_queue("mu*q", arrival="lam*Heaviside(K - q)")
    with pytest.raises(SymdelayInputError, match="is negative at"):
        one_queue("mu*Min(q, c - 2)")
    with pytest.raises(SymdelayInputError, match="is negative at"):
        one_queue("mu*q", arrival="Piecewise((lam*(K - q), q < 2*K), (0, True))")


# ---- the many-server fluid: equilibrium, Jacobian, kink -----------------------------------


@pytest.mark.parametrize("service", [MIN, ABS])
@pytest.mark.parametrize(
    "lam, mu, c",
    [(1, 2, 1), ("3/2", 1, 2), ("0.7", "1.3", 3), (5, 1, 7)],
)
def test_many_server_equilibrium_below_capacity(service, lam, mu, c):
    m = one_queue(service, lam=lam, mu=mu, c=c)
    lam_, mu_ = sp.Rational(str(lam)), sp.Rational(str(mu))
    assert lam_ < mu_ * sp.Rational(c)  # below capacity
    eq = m.equilibrium
    (q,) = m.states
    assert eq.exact and eq.point[q] == lam_ / mu_  # the closed form
    assert m.jacobian == sp.Matrix([[-mu_]])
    assert drift_derivative(m, eq.point) == pytest.approx(float(-mu_), rel=1e-8)
    assert m.charpoly == sp.Symbol("r") + mu_


def test_abs_and_min_forms_give_the_same_answers():
    for vals in ({"lam": 1, "mu": 3, "c": 2}, {"lam": "2/3", "mu": 1, "c": "3/4"}):
        a, b = one_queue(MIN, **vals), one_queue(ABS, **vals)
        assert a.equilibrium.point == b.equilibrium.point
        assert a.jacobian == b.jacobian and a.diffusion == b.diffusion
        assert sp.expand(a.charpoly - b.charpoly) == 0


@pytest.mark.parametrize("service, word", [(MIN, "Min"), (ABS, "Abs")])
@pytest.mark.parametrize("lam, mu, c", [(1, 1, 1), (6, 2, 3), ("3/2", "1/2", 3)])
def test_equilibrium_on_the_kink_is_refused(service, word, lam, mu, c):
    m = one_queue(service, lam=lam, mu=mu, c=c)
    with pytest.raises(SymdelayInputError) as exc:
        m.jacobian  # noqa: B018
    text = str(exc.value)
    assert "\n" not in text
    assert f"lies on the kink of {word}(" in text and "transition 'serve'" in text
    assert f"q = {sp.Rational(str(c))}" in text and "move a parameter off it" in text


def test_side_depending_on_free_parameters_is_refused_naming_the_condition():
    with pytest.raises(SymdelayInputError, match=r"holds only where .* give numbers"):
        one_queue(MIN).equilibrium  # noqa: B018


def test_side_decided_for_every_parameter_value_keeps_them_free():
    # q* = lam/mu < lam/mu + c for every value: a symbolic equilibrium and Jacobian
    m = one_queue("mu*Min(q, lam/mu + c)")
    lam, mu = sp.symbols("lam mu")
    assert m.equilibrium.point[m.states[0]] == lam / mu
    assert m.jacobian == sp.Matrix([[-mu]])


def test_overloaded_queue_has_no_equilibrium():
    m = one_queue(MIN, lam=3, mu=1, c=2)
    with pytest.raises(SymdelayInputError, match="no equilibrium off the switches of"):
        m.equilibrium  # noqa: B018


# ---- the finite buffer: answered inside it, refused on its step ----------------------------


@pytest.mark.parametrize("arrival", ["lam*Heaviside(K - q)", "Piecewise((lam, q < K), (0, True))"])
def test_finite_buffer(arrival):
    inside = one_queue("mu*q", arrival=arrival, lam=1, mu=2, K=1)
    (q,) = inside.states
    assert inside.equilibrium.point[q] == sp.Rational(1, 2)
    assert inside.jacobian == sp.Matrix([[-2]])  # the step is flat off its switch
    assert drift_derivative(inside, inside.equilibrium.point) == pytest.approx(-2, rel=1e-8)
    # lam = mu K: the equilibrium of the inner piece is the step itself
    with pytest.raises(SymdelayInputError, match=r"lies on the (step|switch) of .* 'arrive'"):
        one_queue("mu*q", arrival=arrival, lam=2, mu=2, K=1).equilibrium  # noqa: B018
    # lam > mu K: the fluid limit rests at the full buffer, on the step: refused
    with pytest.raises(SymdelayInputError, match="no equilibrium off the switches"):
        one_queue("mu*q", arrival=arrival, lam=3, mu=2, K=1).equilibrium  # noqa: B018


# ---- two stations: symmetric and asymmetric -------------------------------------------------


def test_example_file_matches_infinite_servers_below_capacity():
    """Below capacity the c-server stations linearise as infinite-server ones (mu*q)."""
    m = load_toml(EXAMPLE)
    text = EXAMPLE.read_text().replace("mu*Min(q1, c)", "mu*q1").replace("mu*Min(q2, c)", "mu*q2")
    smooth = Model.from_toml(_write(text))
    assert m.equilibrium.point == smooth.equilibrium.point
    assert {f.mode: f.factor for f in m.factors} == {f.mode: f.factor for f in smooth.factors}
    lam, theta = sp.Rational(3, 2), sp.Symbol("theta")
    r = sp.Symbol("r")
    diff = next(f.factor for f in m.factors if f.mode == "difference")
    assert sp.expand(diff - (r + 1 + lam * theta)) == 0  # r + mu + lam theta (logit)
    with pytest.raises(SymdelayInputError, match="lies on the kink of Min"):
        load_toml(EXAMPLE, lam=2).equilibrium  # noqa: B018 - lam = mu c


def _write(text: str) -> Path:
    import tempfile

    f = Path(tempfile.mkdtemp()) / "model.toml"
    f.write_text(text)
    return f


def test_asymmetric_stations_numeric_equilibrium_on_a_piece():
    """Unequal servers, no symmetry: the equilibrium has no closed form; Newton + Krawczyk
    on the piece where station 1 is saturated, checked against the fluid path and a finite
    difference Jacobian."""
    m = Model(
        "unequal",
        ["q1", "q2"],
        {"lam": "positive", "theta": "real", "c": "positive"},
        [
            ("a1", {"q1": 1}, "2*lam*exp(-theta*q1)/(exp(-theta*q1) + exp(-theta*q2))"),
            ("a2", {"q2": 1}, "2*lam*exp(-theta*q2)/(exp(-theta*q1) + exp(-theta*q2))"),
            ("s1", {"q1": -1}, "Min(q1, c)"),
            ("s2", {"q2": -1}, "3*q2"),
        ],
        values={"lam": 1, "theta": "1/2", "c": "1/2"},
    )
    eq = m.equilibrium
    assert not eq.exact and eq.radius < 1e-20
    q1, q2 = m.states
    assert float(eq.point[q1]) > 0.5  # station 1 saturated: Min(q1, c) = c there
    # the fluid path of the drift ends there
    from symdelay.analysis.fluid import fluid

    path = fluid(m, T=200, dt=1, initial=[0.1, 0.1])
    assert path.values[0, -1] == pytest.approx([float(eq.point[q1]), float(eq.point[q2])], abs=1e-7)
    F = sp.lambdify([q1, q2], list(m.drift), "mpmath")
    x = [float(eq.point[q1]), float(eq.point[q2])]
    h = 1e-6
    for j in range(2):
        up, dn = list(x), list(x)
        up[j] += h
        dn[j] -= h
        col = [(float(a) - float(b)) / (2 * h) for a, b in zip(F(*up), F(*dn))]
        assert col == pytest.approx([float(m.jacobian[i, j]) for i in range(2)], abs=1e-7)
    assert m.jacobian[0, 0] == pytest.approx(float(m.jacobian[0, 0]))
    assert abs(float(m.jacobian[1, 1]) + 3) > 0.1  # routing enters; service 2 is -3


# ---- simulation ---------------------------------------------------------------------------


def test_simulation_of_the_min_model_tracks_the_fluid_equilibrium():
    """Time averages of independent exact paths of the c-server queue (started at the
    equilibrium) against q* = lam/mu: the mean of the replications' averages within its
    99.9% confidence interval (so the test can fail: a wrong kernel rate moves the mean by
    many standard errors at this eta)."""
    from symdelay.analysis.stochastic import simulate

    m = one_queue(MIN, lam=3, mu=1, c=4, K=1)  # q* = 3 < c = 4 (K is not used)
    eta = 400
    sim = simulate(m, eta, T=40, dt=0.5, initial=[3 * eta], seed=5, replications=12)
    t = np.asarray(sim.t)
    late = sim.values[:, t >= 10, 0].mean(axis=1)
    mean, se = late.mean(), late.std(ddof=1) / np.sqrt(len(late))
    assert abs(mean - 3) < 3.3 * se + 1e-3  # the O(1/eta) bias of a nonlinear rate is tiny here
    assert se < 0.02


def test_c_kernel_equals_python_twin_on_piecewise_rates():
    """Min, Max, Abs, Heaviside and Piecewise print alike in C (fmin, fmax, fabs,
    conditionals) and Python: the same paths bit for bit, and the kernel's rates equal an
    independent lambdify evaluation."""
    x, y, c, K = sp.symbols("x y c K")
    table = [
        ("in_x", [1, 0], c * sp.Heaviside(K - x)),
        ("out_x", [-1, 0], 2 * sp.Min(x, c)),
        ("move", [-1, 1], sp.Max(x - y, 0) + sp.Abs(x - 2 * y) / 4),
        ("in_y", [0, 1], sp.Piecewise((c, (y < K) & (x > 1)), (c / 2, y < 2 * K), (0, True))),
        ("out_y", [0, -1], sp.Min(y, 1) + sp.Heaviside(y - 1, 1) * y),
    ]
    k = GeneratedKernel([x, y], table, {c: 1.5, K: 1.25})
    grid = time_grid(6, 0.05)
    a = k.run_replications(40, [10, 70], grid, seed=3, replications=3, backend="c")
    b = k.run_replications(40, [10, 70], grid, seed=3, replications=3, backend="python")
    assert np.array_equal(a.paths, b.paths) and a.events == b.events > 1000
    assert np.all(a.transition_counts > 0)
    for X in ([10, 70], [40, 40], [50, 20], [80, 100], [0, 0]):
        pt = {x: X[0] / 40, y: X[1] / 40, c: 1.5, K: 1.25}
        want = [40 * float(r.subs(pt)) for _, _, r in table]
        assert np.allclose(k.rates_at(40, X), want, rtol=1e-14, atol=0)


# ---- the command line --------------------------------------------------------------------


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "symdelay", *args], capture_output=True, text=True, cwd=ROOT
    )


def test_cli_refuses_the_kink_in_one_line_and_answers_below_capacity():
    out = _cli("analyze", str(EXAMPLE), "--set", "lam=2")
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "lies on the kink of Min(" in lines[0]
    assert "transition 'service 1'" in lines[0] and "Traceback" not in out.stderr
    ok = _cli("stability", "--model-file", str(EXAMPLE), "--set", "theta=1")
    assert ok.returncode == 0 and "stable" in ok.stdout
