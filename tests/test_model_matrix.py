"""Every transition-table built-in (the founding model's own paths are tested elsewhere)
through every analysis command, each answer checked by an
independent path (numpy eigenvalues, SciPy's Lyapunov solver, the fluid limit)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.linalg
import sympy as sp

from symdelay.analysis.fluid import fluid
from symdelay.models import build_model
from symdelay.models.phase_type import PhaseType

#: (CLI options, Python constructor) of a stable parameter point of each built-in model.
MODELS = {
    "phase_type": (
        [
            "--model",
            "phase_type",
            "--delay",
            "coxian",
            "--rates",
            "1,2,4",
            "--continue-probs",
            "0.5,0.25",
        ],
        lambda **kw: build_model(
            "phase_type",
            delay=PhaseType.coxian([1, 2, 4], ["0.5", "0.25"]),
            **{k: v for k, v in kw.items() if k != "D"},
        ),
    ),
    "nserver": (
        ["--model", "nserver", "--N", "3", "--L", "2"],
        lambda **kw: build_model("nserver", N=3, L=2, **kw),
    ),
    "hetero": (
        ["--model", "hetero", "--mu1", "1", "--mu2", "2", "--L", "1"],
        lambda **kw: build_model(
            "hetero", mu1=1, mu2=2, L=1, **{k: v for k, v in kw.items() if k != "mu"}
        ),
    ),
    "inflight": (
        ["--model", "inflight", "--L", "2", "--kappa", "0.5"],
        lambda **kw: build_model("inflight", L=2, kappa="0.5", **kw),
    ),
}
POINT = {"mu": "1", "lam": "1", "theta": "2", "D": "1"}


def opts(name, **over):
    cli, _ = MODELS[name]
    pts = {**POINT, **over}
    extra = []
    for k, v in pts.items():
        if v is None:
            continue
        if name == "hetero" and k == "mu":
            continue
        if name == "phase_type" and k == "D":
            continue
        extra += [f"--{k}", v]
    return cli + extra


def numeric_jacobian(m) -> np.ndarray:
    return np.array(m.jacobian.evalf(30).tolist(), dtype=float)


def model_at(name, **over):
    pts = {**POINT, **over}
    return MODELS[name][1](**pts)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_charpoly_and_stability_vs_numpy(name, run_cli):
    status, out, err = run_cli("charpoly", *opts(name), "--full", "--json")
    assert status == 0, err
    rec = json.loads(out)
    r = sp.Symbol("r")
    poly = sp.Mul(
        *[
            sp.nsimplify(sp.sympify(f["factor"], locals={"r": r})) ** f["multiplicity"]
            for f in rec["factors"]
        ]
    )
    m = model_at(name)
    eig = np.linalg.eigvals(numeric_jacobian(m))
    coeffs = np.array(sp.Poly(sp.expand(poly), r).all_coeffs(), dtype=float)
    assert np.allclose(np.real(np.poly(eig)), coeffs, rtol=1e-7, atol=1e-9)
    status, out, err = run_cli("stability", *opts(name), "--json")
    assert status == 0, err
    assert json.loads(out)["stable"] is bool(eig.real.max() < 0)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_roots_vs_numpy(name, run_cli):
    status, out, err = run_cli("roots", *opts(name), "--dps", "20", "--json")
    assert status == 0, err
    rec = json.loads(out)
    roots = []  # every root once, with its multiplicity in det(rI - J)
    for z in rec["roots"]:
        roots += [complex(float(z["re"]), float(z["im"]))] * z.get("multiplicity", 1)
    eig = np.linalg.eigvals(numeric_jacobian(model_at(name)))
    assert len(roots) == len(eig)
    for z in roots:
        assert np.min(np.abs(eig - z)) < 1e-5 * (1 + abs(z))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_critical_vs_numpy_on_both_sides(name, run_cli):
    args = opts(name, theta=None)
    status, out, err = run_cli("critical", *args, "--json")
    assert status == 0, err
    th = json.loads(out)["points"][0]["theta_c"]
    if th == "inf":
        # no crossing: stable at theta over six decades by numpy
        for k in range(-2, 5):
            m = model_at(name, theta=str(10**k))
            assert numeric_jacobian(m).shape[0] > 0
            assert np.linalg.eigvals(numeric_jacobian(m)).real.max() < 0
        return
    th = float(th)
    below = model_at(name, theta=str(sp.Rational(th * (1 - 1e-3)).limit_denominator(10**9)))
    above = model_at(name, theta=str(sp.Rational(th * (1 + 1e-3)).limit_denominator(10**9)))
    assert np.linalg.eigvals(numeric_jacobian(below)).real.max() < 0
    assert np.linalg.eigvals(numeric_jacobian(above)).real.max() > 0


def _path(rec: dict, name: str) -> list:
    """A state's path in a time-series record's JSON: its own key, or row n of its group
    ``base`` (states ``base_1 .. base_n``)."""
    if name in rec:
        return rec[name]
    base, _, n = name.rpartition("_")
    return rec[base][int(n) - 1]


@pytest.mark.parametrize("name", sorted(MODELS))
def test_fluid_and_simulation(name, run_cli):
    status, out, err = run_cli("fluid", *opts(name), "--T", "60", "--dt", "1", "--json")
    assert status == 0, err
    flu = json.loads(out)
    m = model_at(name)
    eq = {s.name: float(v) for s, v in m.equilibrium.point.items()}
    assert all(abs(_path(flu, k)[-1] - v) < 1e-6 for k, v in eq.items())  # stable: tends to it
    eta = 20000
    status, out, err = run_cli(
        "simulate",
        *opts(name),
        "--eta",
        str(eta),
        "--T",
        "5",
        "--dt",
        "0.5",
        "--seed",
        "3",
        "--json",
    )
    assert status == 0, err
    sim = json.loads(out)
    ref = fluid(m, 5, 0.5)
    for s in m.states:
        assert np.max(np.abs(np.array(_path(sim, s.name)) - ref[s.name])) < 8 / np.sqrt(eta)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_variance_vs_scipy_lyapunov(name, run_cli):
    status, out, err = run_cli("variance", *opts(name), "--json")
    if name == "hetero":  # no symmetry: no default imbalance, said in one line
        assert status == 2 and "weights" in err
        return
    assert status == 0, err
    rec = json.loads(out)
    m = model_at(name)
    A = numeric_jacobian(m)
    x = {s: float(v) for s, v in m.equilibrium.point.items()}
    B = np.zeros_like(A)
    for t in m.transitions:
        v = np.array(t.change, dtype=float)
        B += np.outer(v, v) * float(t.rate.xreplace(m.values).xreplace(x))
    S = scipy.linalg.solve_continuous_lyapunov(A, -B)
    w = np.array([float(sp.sympify(c)) for c in rec["weights"]])
    assert float(rec["var_x_over_eta"]) == pytest.approx(w @ S @ w, rel=1e-8)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_derive_writes_a_document(name, run_cli, tmp_path):
    status, _, err = run_cli(
        "derive", *[a for a in opts(name) if a not in ("--T",)], "--out", str(tmp_path)
    )
    assert status == 0, err
    text = next(tmp_path.glob("*.tex")).read_text()
    assert (
        "\\section{Stability}" in text
        and "\\text{False}" not in text
        and "\\text{True}" not in text
    )
