"""LaTeX of delay models: delayed(E, tau) as E(t - tau) or a kernel convolution, dot(x) as
a dotted state, the lags' laws against their Laplace transforms, analyze --tex / derive."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import sympy as sp
from conftest import require_pdflatex

from symdelay import load_toml
from symdelay.core.latex import lag_printing, tex
from symdelay.model.lags import Lag
from symdelay.outputs.model_tex import lag_density, model_document

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "models"
DELAY_MODELS = (
    "information_delay",
    "moving_average",
    "announcement",
    "two_lag_mixture",
    "constant_action_delay",
)

delayed, dot = sp.Function("delayed"), sp.Function("dot")
q1, q2, tau, avg, D, D1, D2, p, theta = sp.symbols("q1 q2 tau avg D D1 D2 p theta")


def test_constant_lag_prints_the_state_at_t_minus_tau():
    assert tex(theta * delayed(q1, tau), lags={"tau": D}, states=[q1]) == r"\theta q_{1}(t - D)"
    # every state of a compound expression is shifted, dot(x) is the dotted state
    got = tex(delayed(q1 + p * dot(q1), tau), lags={"tau": D}, states=[q1, q2])
    assert got == r"\left(p \dot{q}_{1}(t - D) + q_{1}(t - D)\right)"
    # without the states, the compound expression is shifted as a whole
    got = tex(delayed(q1 + p * dot(q1), tau), lags={"tau": D})
    assert got == r"\left(p \dot{q}_{1} + q_{1}\right)(t - D)"
    # lags add up when one is seen through another (an action lag around a rate)
    got = tex(delayed(2 * delayed(q1, tau), avg), lags={"tau": D1, "avg": D2}, states=[q1])
    assert "q_{1}(t - D_{1} - D_{2})" in got


def test_distributed_lag_prints_a_kernel_convolution():
    assert tex(delayed(q1, avg), lags={"avg": None}) == r"\left(k_{\mathrm{avg}} * q_{1}\right)(t)"
    got = tex(delayed(q1 - q2, avg), lags={"avg": None}, states=[q1, q2])
    assert got == r"\left(k_{\mathrm{avg}} * \left(q_{1} - q_{2}\right)\right)(t)"
    # an exponent applies to the whole convolution
    got = tex(delayed(q1, avg) ** 2, lags={"avg": None})
    assert got == r"\left(\left(k_{\mathrm{avg}} * q_{1}\right)(t)\right)^{2}"


def test_plain_expressions_print_as_before():
    e = sp.exp(-theta * q1) / (sp.exp(-theta * q1) + sp.exp(-theta * q2))
    names = {theta: r"\theta"}
    assert tex(e, lags={}) == sp.latex(e, symbol_names=names)
    assert tex(e) == sp.latex(e, symbol_names=names)


def test_model_latex_prints_the_delay_equations():
    info = load_toml(EXAMPLES / "information_delay.toml").latex()
    assert r"e^{- \theta q_{1}(t - D)}" in info and "delayed" not in info
    ma = load_toml(EXAMPLES / "moving_average.toml").latex()
    assert r"\left(k_{\mathrm{avg}} * q_{1}\right)(t)" in ma
    ann = load_toml(EXAMPLES / "announcement.toml").latex()
    assert r"\left(p \dot{q}_{1}(t - D) + q_{1}(t - D)\right)" in ann
    # the action lag: the routing decided at t - D on the lengths then, in effect at t
    act = load_toml(EXAMPLES / "constant_action_delay.toml").latex()
    assert r"- \mu q_{1} + \frac{2 \lambda e^{- q_{1}(t - D) \theta}}" in act
    # a model without lags: its drift, as before
    plain = load_toml(EXAMPLES / "erlang2.toml")
    first = tex(plain.drift[0], plain.latex_names)
    assert plain.latex().startswith(r"\begin{aligned}\dot {q_{1}} &= " + first)


def test_lag_printing_reads_the_kinds():
    m = load_toml(EXAMPLES / "two_lag_mixture.toml")
    got = lag_printing(m.lags)
    assert got == {"tau1": sp.Symbol("D1"), "tau2": sp.Symbol("D2"), "mix": None}


@pytest.mark.parametrize(
    "spec",
    [
        {"kind": "uniform", "low": "0", "high": "Delta"},
        {"kind": "uniform", "low": "a", "high": "b"},
        {"kind": "gamma", "shape": "3", "mean": "m"},
        {"kind": "gamma", "shape": "5/2", "mean": "m"},
        {"kind": "exponential", "mean": "m"},
    ],
    ids=lambda s: f"{s['kind']}-{'-'.join(str(v) for v in s.values())}",
)
def test_printed_density_has_the_lags_laplace_transform(spec):
    """The density the document prints, integrated (SymPy), is the law's transform."""
    symbols = {n: sp.Symbol(n, positive=True) for n in ("Delta", "a", "b", "m")}
    lag = Lag.make("x", spec, symbols)
    u, s = sp.Symbol("u", nonnegative=True), sp.Symbol("s", positive=True)
    k = lag_density(lag).xreplace({sp.Symbol("u", nonnegative=True): u})
    lo, hi = (lag.args["low"], lag.args["high"]) if lag.kind == "uniform" else (0, sp.oo)
    if lag.kind == "uniform":
        transform = sp.integrate(k * sp.exp(-s * u), (u, lo, hi), conds="none")
    else:
        transform = sp.integrate(k * sp.exp(-s * u), (u, 0, sp.oo), conds="none")
    assert sp.simplify(sp.integrate(k, (u, lo, hi), conds="none") - 1) == 0
    assert sp.simplify(transform - lag.laplace(s)) == 0


def test_delay_document_states_every_part():
    text = model_document(load_toml(EXAMPLES / "announcement.toml"))
    for part in (
        r"\section{Lags}",
        r"\hat K_{\mathrm{tau}}(r) = e^{- D r}",
        r"\Delta(r) = rI - A_0 - M_{1}^{(\mathrm{tau})}\, \hat K_{\mathrm{tau}}(r) - r\, M_{2}",
        r"\chi_{\mathrm{difference}}(r) = ",
        "neutral",
    ):
        assert part in text, part
    act = model_document(load_toml(EXAMPLES / "constant_action_delay.toml"))
    assert "$t + D$ (lag tau)" in act  # the action-delayed jump, marked
    assert r"D \lambda" in act  # the mass in transit


@pytest.mark.parametrize("stem", DELAY_MODELS)
def test_analyze_tex_writes_the_derivation(stem, tmp_path):
    out = tmp_path / f"{stem}.tex"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "symdelay",
            "analyze",
            str(EXAMPLES / f"{stem}.toml"),
            "--tex",
            str(out),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert r"\chi_{\mathrm{difference}}(r)" in text and "delayed(" not in text


def test_derive_a_delay_model_at_numbers_compiles(tmp_path):
    require_pdflatex()
    proc = subprocess.run(
        [
            sys.executable, "-m", "symdelay", "derive", "--pdf", "--out", str(tmp_path),
            "--model-file", str(EXAMPLES / "moving_average.toml"),
            "--set", "mu=1", "--set", "lam=1", "--set", "theta=10", "--set", "Delta=2",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    tex_file = next(tmp_path.glob("*.tex")).read_text()
    assert "Verdict: unstable" in tex_file  # two roots: the certified count at theta = 10
    assert next(tmp_path.glob("*.pdf")).stat().st_size > 1000
