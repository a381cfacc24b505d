"""The exact decision procedure (``symdelay.analysis.decide``) on every kind of model.

Each verdict is confirmed by a path the engine does not use:

* a dense numeric scan: random points of the domain (log-uniform over five decades), the
  claim evaluated in floating point (SymPy's ``lambdify`` of the claim) and stability read off
  ``numpy.linalg.eigvals`` of the model's Jacobian; a proven direction must show no
  violation on the scan (and its premise must hold at enough points for the scan to mean
  something);
* every counterexample re-checked exactly from the Jacobian: its characteristic polynomial
  (``Matrix.charpoly``, not the engine's factors) and SymPy's exact complex root count in
  the closed right half-plane rectangle (``Poly.count_roots``), and the claim evaluated
  exactly by SymPy.

The expected relations are facts about the models, each with its reason.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import sympy as sp

from symdelay.analysis.claim_formula import parse_claim
from symdelay.analysis.decide import decide, minimal_conditions, stability_formula
from symdelay.analysis.entry import family_options
from symdelay.core.errors import SymdelayInputError
from symdelay.model import Model, load_toml
from symdelay.models import build_model

KC3 = "8*(gamma + mu)**3/(3*gamma + mu)**2"  # the L = 3 Hopf bound (stability_conditions(3))
KC2 = "2*(mu+gamma)**2/gamma"


def two_queue_toml(L, service="mu", arrival="lam", sens="theta", rate="gamma", kappa=None):
    """The two-queue logit-routing model with an Erlang(L) delay as TOML text, in the names
    given (``kappa``: the name of the weight of jobs in flight, a parameter, or None)."""

    def z(i, j):
        return f"z{i}_{j}"

    def observed(i):
        if not kappa:
            return f"q{i}"
        return f"q{i} + {kappa}*(" + " + ".join(z(i, j) for j in range(1, L + 1)) + ")"

    lines = [
        f'name = "two queues, Erlang({L}) delay, own names"',
        "[parameters]",
        f'{service} = "positive"',
        f'{arrival} = "positive"',
        f'{sens} = "real"',
        f'{rate} = "positive"',
    ]
    if kappa:
        lines.append(f'{kappa} = "nonnegative"')
    states = ["q1", "q2"] + [z(i, j) for i in (1, 2) for j in range(1, L + 1)]
    lines += ["[state]", "names = [" + ", ".join(f'"{s}"' for s in states) + "]"]

    def transition(name, change, rate_):
        ch = ", ".join(f"{k} = {v}" for k, v in change.items())
        lines.extend(["[[transitions]]", f'name = "{name}"', f"change = {{ {ch} }}"])
        lines.append(f'rate = "{rate_}"')

    e = {i: f"exp(-{sens}*({observed(i)}))" for i in (1, 2)}
    for i in (1, 2):
        transition(f"arrival to {i}", {z(i, 1): 1}, f"2*{arrival}*{e[i]}/({e[1]} + {e[2]})")
        for j in range(1, L):
            transition(f"phase {j} of {i}", {z(i, j): -1, z(i, j + 1): 1}, f"{rate}*{z(i, j)}")
        transition(f"enter service {i}", {z(i, L): -1, f"q{i}": 1}, f"{rate}*{z(i, L)}")
        transition(f"service {i}", {f"q{i}": -1}, f"{service}*q{i}")
    pairs = [("q1", "q2")] + [(z(1, j), z(2, j)) for j in range(1, L + 1)]
    lines += ["[symmetry]", "swap = [" + ", ".join(f'["{a}", "{b}"]' for a, b in pairs) + "]"]
    return "\n".join(lines) + "\n"


_TMP = {}


def _toml_model(key, text):
    import tempfile
    from pathlib import Path

    if key not in _TMP:
        d = Path(tempfile.mkdtemp(prefix="decide_"))
        path = d / f"{key}.toml"
        path.write_text(text)
        _TMP[key] = load_toml(path)
    return _TMP[key]


MODELS = {
    "erlang1": lambda: build_model("erlang", L=1),
    "erlang2": lambda: build_model("erlang", L=2),
    "erlang3": lambda: build_model("erlang", L=3),
    "hypoexp2": lambda: build_model("phase_type", delay="hypoexp", rates=[1, 2]),
    "hypoexp3": lambda: build_model("phase_type", delay="hypoexp", rates=[1, 2, 3]),
    "hyperexp": lambda: build_model("phase_type", delay="hyperexp", rates=[1, 3], probs="1/2,1/2"),
    "nserver3": lambda: build_model("nserver", N=3),
    "inflight1": lambda: load_toml("examples/models/inflight_erlang1.toml"),
    "inflight2": lambda: build_model("inflight", L=2),
    "inflight2_kappa": lambda: _toml_model("inflight2", two_queue_toml(2, kappa="kappa")),
    # unequal delays before equal servers: the equilibrium (every queue at lam/mu) is exact
    "hetero1": lambda: build_model("hetero", mu1=1, mu2=1, D1=1, D2=2, L=1),
    "hetero2": lambda: build_model("hetero", mu1=1, mu2=1, D1=1, D2=2, L=2),
    "own_names": lambda: _toml_model(
        "own", two_queue_toml(2, service="srv", arrival="arr", sens="beta", rate="g")
    ),
}


@functools.cache
def model_of(key):
    return MODELS[key]()


# (model, assume, claim, relation to stability, reason)
CASES = [
    # L = 1 over real theta: the difference factor r^2 + (mu+gamma) r + gamma (mu + k)
    ("erlang1", (), "lam*theta > -mu", "equivalent", "a_0 = gamma (mu + k) > 0"),
    ("erlang1", (), "lam*theta > -2*mu", "necessary", "-2 mu < k < -mu is unstable"),
    ("erlang1", (), "theta >= 0", "sufficient", "stable for every theta >= 0"),
    ("erlang1", (), "theta > -1", "neither", "lam large or small at theta = -1/2"),
    ("erlang1", ("theta >= 0",), "mu > 0", "equivalent", "stable for every theta >= 0"),
    # L = 2: stable iff k < 2 (mu + gamma)^2 / gamma (theta >= 0)
    ("erlang2", ("theta >= 0",), f"lam*theta < {KC2}", "equivalent", "the Hopf boundary"),
    ("erlang2", ("theta >= 0",), f"lam*theta <= {KC2}", "necessary", "boundary not stable"),
    ("erlang2", ("theta >= 0",), "lam*theta < mu", "sufficient", "k_c >= 8 mu"),
    ("erlang2", ("theta >= 0",), "lam*theta*D < 3", "sufficient", "k_c > 3 gamma / 2"),
    ("erlang2", ("theta >= 0",), "lam*theta < 1", "neither", "small mu"),
    ("erlang2", ("theta >= 0",), "sqrt(mu*gamma) > lam*theta", "sufficient", "sqrt <= (mu+g)/2"),
    ("erlang2", ("theta >= 0",), "lam*theta < 1 and mu > 1", "sufficient", "k < 1 < 8 mu"),
    ("erlang2", ("theta >= 0",), "lam*theta < mu | lam*theta < gamma", "sufficient", "both < k_c"),
    ("erlang2", ("theta >= 0",), "not (lam*theta >= 8*mu)", "sufficient", "k < 8 mu <= k_c"),
    ("erlang2", ("theta >= 0",), "lam*theta < 1/(mu-1)", "neither", "undefined at mu = 1"),
    ("erlang2", ("theta >= 0", "mu < gamma"), "lam*theta < 8*mu", "sufficient", "k_c >= 8 mu"),
    # L = 3
    ("erlang3", ("theta >= 0",), f"lam*theta < {KC3}", "equivalent", "the Hopf boundary"),
    ("erlang3", ("theta >= 0",), f"lam*theta < {KC3} + gamma", "necessary", "above k_c"),
    ("erlang3", ("theta >= 0",), "lam*theta < mu", "sufficient", "k_c > mu"),
    ("erlang3", ("theta >= 0",), "lam*theta < 8*mu", "neither", "k_c = 4 mu at gamma = mu"),
    # hypoexponential (rates 1, 2): k_c = (3 mu^2 + 9 mu + 6)/2 >= 3
    ("hypoexp2", ("theta >= 0",), "lam*theta < (3*mu**2+9*mu+6)/2", "equivalent", "Delta_2"),
    ("hypoexp2", ("theta >= 0",), "lam*theta < (3*mu**2+9*mu+6)/2 + 1", "necessary", "above"),
    ("hypoexp2", ("theta >= 0",), "lam*theta < 3", "sufficient", "k_c >= 3"),
    ("hypoexp2", ("theta >= 0",), "lam*theta < 4", "neither", "k_c(0+) = 3 < 4"),
    # hypoexponential (rates 1, 2, 3): k_c = 10 (mu+1)(mu+2)(mu+3)/(mu+6)^2 >= 5/3
    (
        "hypoexp3",
        ("theta >= 0",),
        "lam*theta*(mu+6)**2 < 10*(mu+1)*(mu+2)*(mu+3)",
        "equivalent",
        "Delta_3 factor",
    ),
    ("hypoexp3", ("theta >= 0",), "lam*theta < 5/3", "sufficient", "min k_c = 5/3 at mu -> 0"),
    ("hypoexp3", ("theta >= 0",), "lam*theta < 2", "neither", "k_c(0+) = 5/3 < 2"),
    ("hypoexp3", ("theta >= 0",), "lam*theta < 10*(mu+1)", "necessary", "k_c < 10 (mu+1)"),
    # hyperexponential (rates 1, 3): stable for every theta >= 0; over real theta, a_0 > 0
    ("hyperexp", (), "lam*theta > -mu", "equivalent", "a_0 = 3 (mu + k); Delta_2 follows"),
    ("hyperexp", (), "lam*theta > -2*mu", "necessary", "k between -2 mu and -mu"),
    ("hyperexp", (), "theta >= 0", "sufficient", "always stable for theta >= 0"),
    ("hyperexp", (), "theta > -1/2", "neither", "lam large at theta = -1/4"),
    # three servers, Erlang(2): the difference factor is the founding L = 2 one
    ("nserver3", ("theta >= 0",), f"lam*theta < {KC2}", "equivalent", "as L = 2"),
    ("nserver3", ("theta >= 0",), f"lam*theta < {KC2} + mu", "necessary", "above k_c"),
    ("nserver3", ("theta >= 0",), "lam*theta < 8*mu", "sufficient", "k_c >= 8 mu"),
    ("nserver3", ("theta >= 0",), "lam*theta < 9*mu", "neither", "k_c = 8 mu at gamma = mu"),
    # in flight, Exp delay, weight kappa a parameter (example file): stable iff a_0 > 0,
    # i.e. k (gamma + kappa mu) > -gamma mu (a_1 > 0 follows), so |k| < mu is needed
    (
        "inflight1",
        (),
        "lam*theta*(gamma + kappa*mu) > -gamma*mu",
        "equivalent",
        "a_0 > 0 implies a_1 > 0",
    ),
    ("inflight1", (), "lam*theta > -mu", "necessary", "gamma mu / (gamma + kappa mu) <= mu"),
    ("inflight1", (), "theta >= 0 and kappa > 1", "sufficient", "always stable, theta >= 0"),
    ("inflight1", (), "kappa > 1", "neither", "negative theta"),
    # in flight, Erlang(2), kappa = 1 (built-in): stable for theta >= 0
    ("inflight2", ("theta >= 0",), "mu > 0", "equivalent", "always stable"),
    ("inflight2", ("theta >= 0",), "lam*theta < mu", "sufficient", "always stable"),
    # in flight, Erlang(2), kappa a parameter: stable if kappa >= 1/5, else a bound on k
    ("inflight2_kappa", ("theta >= 0",), "kappa >= 1/5", "sufficient", "5 kappa - 1 >= 0"),
    (
        "inflight2_kappa",
        ("theta >= 0",),
        f"lam*theta < {KC2} or kappa > 0",
        "necessary",
        "kappa = 0 is L = 2",
    ),
    ("inflight2_kappa", ("theta >= 0",), "kappa > 1/10", "neither", "5 kappa - 1 < 0"),
    (
        "inflight2_kappa",
        ("theta >= 0",),
        f"kappa >= 1/5 or lam*theta < {KC2}",
        "sufficient",
        "kappa in (0, 1/5) allows more than k_c",
    ),
    # unequal delays (D1 = 1, D2 = 2, mu1 = mu2 = 1), L = 1, theta real: one full mode
    # r^3 + 5 r^2/2 + (2 + 3k/4) r + (1 + k)/2, stable iff k > -1 (11 k + 36 > 0 follows)
    ("hetero1", (), "lam*theta > -1", "equivalent", "a_0 = (1 + k)/2"),
    ("hetero1", (), "lam*theta > -2", "necessary", "-2 < k <= -1 unstable"),
    ("hetero1", (), "theta >= 0", "sufficient", "stable for every theta >= 0"),
    ("hetero1", (), "theta > -1", "neither", "lam = 2, theta = -1/2 unstable"),
    # L = 2, theta >= 0: stable iff 75 k^3 + 218 k^2 < 6588 k + 46656 (k < k_c = 10.713...)
    (
        "hetero2",
        ("theta >= 0",),
        "75*(lam*theta)**3 + 218*(lam*theta)**2 < 6588*lam*theta + 46656",
        "equivalent",
        "Delta_4 factor; k < 216/5 follows",
    ),
    ("hetero2", ("theta >= 0",), "lam*theta < 11", "necessary", "k_c = 10.713 < 11"),
    ("hetero2", ("theta >= 0",), "lam*theta < 10", "sufficient", "10 < k_c"),
    ("hetero2", ("theta >= 0",), "lam*theta < 11 and lam > 1", "neither", "k = 10.9; lam = 1/2"),
    # a TOML model in names of its own: srv, arr, beta, g (the founding L = 2)
    ("own_names", ("beta >= 0",), "arr*beta < 2*(srv+g)**2/g", "equivalent", "as L = 2"),
    ("own_names", ("beta >= 0",), "arr*beta <= 2*(srv+g)**2/g", "necessary", "boundary"),
    ("own_names", ("beta >= 0",), "arr*beta < 8*srv", "sufficient", "k_c >= 8 srv"),
    ("own_names", ("beta >= 0",), "arr*beta < 1", "neither", "small srv"),
]


# ------------------------------------------------------------------ independent checks
def _draw(model, n, rng):
    cols = {}
    for p in model.free_parameters:
        dom = model.domains[p]
        mag = 10 ** rng.uniform(-2.5, 2.5, n)
        if dom == "positive":
            cols[p] = mag
        elif dom == "nonnegative":
            cols[p] = np.where(rng.random(n) < 0.1, 0.0, mag)
        elif dom == "probability":
            cols[p] = rng.random(n)
        else:
            cols[p] = np.where(rng.random(n) < 0.5, -mag, mag)
    return cols


@functools.cache
def _scan(key, n=2500):
    """Random points, their stability by numpy eigenvalues of the Jacobian (None: too close
    to the boundary to tell)."""
    model = model_of(key)
    rng = np.random.default_rng(20261202)
    params = list(model.free_parameters)
    cols = _draw(model, n, rng)
    J = sp.lambdify(params, model.jacobian, "numpy")
    stable = []
    for i in range(n):
        ev = np.linalg.eigvals(np.array(J(*[cols[p][i] for p in params]), dtype=float))
        top, size = ev.real.max(), max(1.0, np.abs(ev).max())
        stable.append(None if abs(top) < 1e-7 * size else bool(top < 0))
    return params, cols, stable


def _numeric_truth(model, text, params, cols):
    """The claim at the scan points (floats), None where a relation is within 1e-9 of 0."""
    cf = parse_claim(text, params, aliases=_names(model))
    f = sp.lambdify(params, cf.condition, "numpy")
    n = len(cols[params[0]])
    with np.errstate(all="ignore"):
        truth = np.broadcast_to(np.asarray(f(*[cols[p] for p in params]), dtype=bool), (n,))
        close = np.zeros(n, dtype=bool)
        for leaf in cf.leaves:
            if leaf in (sp.true, sp.false):
                continue
            g = sp.lambdify(params, [leaf.lhs, leaf.rhs], "numpy")
            a, b = (
                np.broadcast_to(np.asarray(v, dtype=float), (n,))
                for v in g(*[cols[p] for p in params])
            )
            close |= np.abs(a - b) <= 1e-9 * (1 + np.abs(a) + np.abs(b))
    return [None if c else bool(t) for t, c in zip(truth, close)]


def _names(model):
    gamma = next((p for p in model.free_parameters if p.name == "gamma"), None)
    L = (family_options(model) or {}).get("L")
    return {"D": sp.Integer(L) / gamma} if isinstance(L, int) and gamma is not None else {}


def _exact_stable(model, point) -> bool:
    """Stability at a rational point from the Jacobian's own characteristic polynomial:
    no root in the closed right half-plane (SymPy's exact complex root count)."""
    x = sp.Symbol("x")
    J = model.jacobian.xreplace(point)
    P = sp.Poly(J.charpoly(x).as_expr(), x)
    c = P.all_coeffs()
    R = 1 + max(abs(a / c[0]) for a in c[1:]) if len(c) > 1 else 1
    return P.count_roots(-R * sp.I, R + R * sp.I) == 0


def _exact_claim(model, text, point) -> bool:
    cf = parse_claim(text, list(model.free_parameters), aliases=_names(model))
    try:
        return bool(cf.condition.xreplace(point))
    except TypeError:  # undefined there (a zero denominator): the claim does not hold
        return False


def _point(model, rec):
    """The free parameters of a counterexample; the names a claim may use besides them
    (``D = L/gamma``) are given too and must agree."""
    by_name = {p.name: p for p in model.free_parameters}
    point = {by_name[k]: sp.Rational(v) for k, v in rec.items() if k in by_name}
    for k, v in _names(model).items():
        if k in rec:
            assert sp.Rational(rec[k]) == v.xreplace(point), (k, rec)
    return point


def _confirm(model, key, assume, claim, d):
    params, cols, stable = _scan(key)
    ok = np.ones(len(stable), dtype=bool)
    for a in assume:
        ok &= np.array([t is True for t in _numeric_truth(model, a, params, cols)])
    truth = _numeric_truth(model, claim, params, cols)
    pts = [(t, s) for t, s, k in zip(truth, stable, ok) if k and t is not None and s is not None]
    suff_viol = sum(1 for t, s in pts if t and not s)
    nec_viol = sum(1 for t, s in pts if s and not t)
    for rec in d.direction_records():
        assert rec["method"] == "decision procedure"
        assert rec["status"] in ("proven", "refuted"), rec
        suff = rec["direction"] == "claim_implies_target"
        if rec["status"] == "proven":
            assert rec["counterexample"] is None and rec["formula_smt2"]
            assert (suff_viol if suff else nec_viol) == 0, (claim, rec["direction"])
            premise = sum(1 for t, s in pts if (t if suff else s))
            assert premise >= 20, f"the scan barely meets the premise of {rec['direction']}"
        else:
            p = _point(model, rec["counterexample"])
            for a in assume:
                assert _exact_claim(model, a, p), (a, p)
            holds, st = _exact_claim(model, claim, p), _exact_stable(model, p)
            assert (holds and not st) if suff else (st and not holds), (claim, rec, holds, st)


@pytest.mark.parametrize(("key", "assume", "claim", "relation", "why"), CASES)
def test_decided_and_confirmed(key, assume, claim, relation, why):
    model = model_of(key)
    d = decide(model, claim, assume=assume)
    assert d.proven == {"stability": True}
    assert d.relation_to_stability == relation, (why, d.explanation)
    _confirm(model, key, assume, claim, d)


def test_every_kind_for_every_model():
    kinds = {}
    for key, _, _, rel, _ in CASES:
        kinds.setdefault(key, set()).add(rel)
    full = {"equivalent", "necessary", "sufficient", "neither"}
    for key in ("erlang1", "erlang2", "erlang3", "hypoexp2", "hypoexp3", "hyperexp"):
        assert kinds[key] == full, key
    for key in ("nserver3", "inflight1", "own_names"):
        assert kinds[key] == full, key


# ------------------------------------------------------------------ the record
def test_record_keys_and_smt2_reruns():
    import z3

    d = decide(model_of("erlang2"), f"lam*theta < {KC2}", assume=["theta >= 0"])
    rec = d.to_json()
    for k in (
        "relation_to_stability",
        "relation_to_oscillation",
        "proven",
        "directions",
        "counterexamples",
        "explanation",
        "model",
        "symdelay_version",
    ):
        assert k in rec
    assert rec["relation_to_oscillation"] is None
    json.dumps(rec)
    assert rec["method"] == {
        "stability": dict.fromkeys(rec["directions"]["stability"], "decision procedure")
    }
    for direction in d.direction_records():
        assert direction["method"] == "decision procedure"
        for text in direction["formula_smt2"]:
            s = z3.Solver()
            s.from_string(text)
            assert s.check() == z3.unsat
    # a refuted direction's formula is sat when re-run
    d = decide(model_of("erlang2"), "lam*theta < 1", assume=["theta >= 0"])
    s = z3.Solver()
    s.from_string(d.formulas["stability"]["claim_implies_target"][-1])
    assert s.check() == z3.sat
    assert d.counterexamples["stability"]["claim_implies_target"] is not None


def test_algebraic_counterexample_kept_exact():
    """``mu**2 == 2`` holds only at an irrational mu: the counterexample to claim => stable
    is algebraic, kept as SymPy text, and re-checked here in floating point."""
    m = model_of("erlang2")
    d = decide(m, "mu**2 == 2 and lam*theta > 100*mu", assume=["theta >= 0"])
    rec = d.direction_records()[0]
    assert rec["status"] == "refuted" and rec["counterexample_kind"] == "algebraic"
    p = {q: sp.sympify(rec["counterexample"][q.name]) for q in m.free_parameters}
    mu = next(q for q in p if q.name == "mu")
    x = sp.Symbol("x")
    assert sp.minimal_polynomial(p[mu], x) == x**2 - 2 and p[mu] > 0
    J = np.array(m.jacobian.xreplace(p).evalf(30), dtype=float)
    assert np.linalg.eigvals(J).real.max() > 1e-6


def test_scaling_used_only_when_the_claim_is_invariant():
    m = model_of("erlang2")
    assert "fixed to 1" in decide(m, "lam*theta < mu", assume=["theta >= 0"]).scaling
    assert "not invariant" in decide(m, "lam*theta < 1", assume=["theta >= 0"]).scaling
    assert "not homogeneous" in decide(model_of("hypoexp2"), "lam*theta < 3").scaling


def test_timeout_gives_undecided_never_a_relation(monkeypatch):
    import symdelay.analysis.decide as dec

    monkeypatch.setattr(dec, "_solve", lambda *a, **k: ("unknown", "timeout", "", 0.0))
    d = decide(model_of("erlang2"), "lam*theta < mu", assume=["theta >= 0"], timeout_ms=1)
    assert d.proven == {"stability": False}
    assert all(x["status"] == "undecided within the budget" for x in d.direction_records())
    assert d.relation_to_stability not in ("equivalent", "necessary", "sufficient", "neither")
    assert "undecided within the budget" in d.relation_to_stability
    assert all("tried" in x for x in d.direction_records())


# ------------------------------------------------------------------ minimal conditions
def test_minimal_conditions_l2():
    m = model_of("erlang2")
    full = stability_formula(m).conditions
    mc = minimal_conditions(m)
    assert len(mc.conditions) == 2 and set(mc.conditions) <= set(full)
    res = minimal_conditions(m, assume=["theta >= 0"])
    assert len(res.conditions) == 1 and len(res.dropped) == len(full) - 1
    assert res.to_json()["minimal"] is True and res.conditions_latex[0].endswith("> 0")
    # the one condition left is the Hopf bound: equivalent to it
    text = str(res.conditions[0])
    assert decide(m, text, assume=["theta >= 0"]).relation_to_stability == "equivalent"
    assert decide(m, f"lam*theta < {KC2}", assume=["theta >= 0"]).relation_to_stability == (
        "equivalent"
    )


@pytest.mark.parametrize("key", ["erlang3", "hypoexp3", "inflight2_kappa", "own_names"])
def test_minimal_conditions_equivalent_to_stability(key):
    m = model_of(key)
    assume = ("beta >= 0",) if key == "own_names" else ("theta >= 0",)
    mc = minimal_conditions(m, assume=assume)
    text = " and ".join(f"({c})" for c in mc.conditions) or "1 > 0"
    d = decide(m, text, assume=assume)
    assert d.relation_to_stability == "equivalent"
    _confirm(m, key, assume, text, d)
    # every drop re-runs as unsat; irredundant: for each kept condition a scan point where
    # the others hold and it fails
    import z3

    for _, smt2 in mc.dropped:
        s = z3.Solver()
        s.from_string(smt2)
        assert s.check() == z3.unsat
    params, cols, _ = _scan(key)
    truths = [_numeric_truth(m, str(c), params, cols) for c in mc.conditions]
    base = [True] * len(cols[params[0]])
    for a in assume:
        base = [b and t is True for b, t in zip(base, _numeric_truth(m, a, params, cols))]
    for i in range(len(mc.conditions)):
        if len(mc.conditions) == 1:
            break
        witness = [
            b
            and truths[i][n] is False
            and all(truths[j][n] is True for j in range(len(truths)) if j != i)
            for n, b in enumerate(base)
        ]
        assert any(witness), mc.conditions[i]


# ------------------------------------------------------------------ the catalogue
def test_agrees_with_the_homogeneous_engine_on_the_catalogue():
    from test_verify_catalogue import CATALOGUE

    from symdelay.models.erlang.claims import verify

    checked = 0
    for L, claim, *_ in CATALOGUE:
        if L == "inf":
            continue
        today = verify(L, claim)
        if not today.proven["stability"]:
            continue
        ours = decide(build_model("erlang", L=L), claim, assume=["theta >= 0"])
        assert ours.proven["stability"], (L, claim)
        assert ours.relation_to_stability == today.relation_to_stability, (L, claim)
        checked += 1
    assert checked >= 25


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    ("claim", "words"),
    [
        ("lam*theta < nu", "unknown symbol 'nu'"),
        ("lam*theta + mu", "is not a relation"),
        ("exp(theta) < 2", "cannot decide"),
        ("sin(mu) < lam", "cannot decide"),
        ("lam*theta <", "cannot parse"),
        ("", "empty claim"),
    ],
)
def test_bad_claims_one_line(claim, words):
    with pytest.raises(SymdelayInputError) as exc:
        decide(model_of("erlang2"), claim)
    assert words in str(exc.value) and "\n" not in str(exc.value)


def test_bad_assumption_and_contradiction():
    with pytest.raises(SymdelayInputError, match="unknown symbol 'zz'"):
        decide(model_of("erlang2"), "mu > 0", assume=["zz > 0"])
    with pytest.raises(SymdelayInputError, match="contradict"):
        decide(model_of("erlang2"), "mu > 0", assume=["mu < 0"])
    with pytest.raises(SymdelayInputError, match="target"):
        decide(model_of("erlang2"), "mu > 0", target="oscillation")


def test_non_polynomial_factors_refused():
    # the equilibrium x = sqrt(a/b) is not rational in the parameters
    m = Model(
        "square death",
        states=["x"],
        parameters={"a": "positive", "b": "positive"},
        transitions=[("birth", {"x": 1}, "a"), ("death", {"x": -1}, "b*x**2")],
    )
    with pytest.raises(SymdelayInputError) as exc:
        decide(m, "a > b")
    assert "decision procedure" in str(exc.value) and "\n" not in str(exc.value)


def test_claim_language():
    m = model_of("own_names")
    d = decide(m, "~(arr*beta >= 8*srv) & (g > 0 | srv > 0)", assume="beta >= 0")
    assert d.relation_to_stability == "sufficient"
    d = decide(m, "0 < arr*beta < 8*srv", assume="beta >= 0")  # a chain
    assert d.relation_to_stability == "sufficient"
    d = decide(m, "arr*beta < (srv*g)**(1/2) + Abs(srv - g)", assume="beta >= 0")
    assert d.proven["stability"]
    _confirm(m, "own_names", ("beta >= 0",), "arr*beta < (srv*g)**(1/2) + Abs(srv - g)", d)


def test_import_is_light():
    code = textwrap.dedent(
        """
        import sys
        import symdelay.analysis.decide, symdelay.analysis.claim_formula
        print('z3' in sys.modules)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "False", out.stderr


# ------------------------------------------------------------------ reductions
@pytest.mark.parametrize(
    ("key", "claim"),
    [
        ("erlang2", "lam*theta < mu"),
        ("erlang2", "lam*theta < 1"),
        ("inflight2_kappa", "kappa > 1/10"),
        ("hypoexp2", "lam*theta < 3"),
        ("own_names", "arr*beta < 8*srv"),
    ],
)
def test_products_and_witnesses_change_no_verdict(monkeypatch, key, claim):
    """``lam*theta`` as one variable and the sampled witnesses are shortcuts: the verdicts
    equal those of nlsat on the full variable set, and a refutation stays exact."""
    import symdelay.analysis.decide as dec

    m = model_of(key)
    assume = ("beta >= 0",) if key == "own_names" else ("theta >= 0",)
    fast = decide(m, claim, assume=assume)
    product = "arr*beta" if key == "own_names" else "lam*theta"
    assert f"{product} one variable" in fast.scaling
    monkeypatch.setattr(dec, "_products", lambda *a: ())
    monkeypatch.setattr(dec, "_witness", lambda *a, **k: None)
    slow = decide(m, claim, assume=assume)
    assert "one variable" not in slow.scaling
    assert fast.relation_to_stability == slow.relation_to_stability
    assert fast.directions == slow.directions
    _confirm(m, key, assume, claim, fast)


def test_a_product_is_kept_apart_when_a_relation_splits_it():
    m = model_of("erlang2")
    d = decide(m, "lam < 2 and lam*theta < mu", assume=["theta >= 0"])
    assert "one variable" not in d.scaling and d.relation_to_stability == "sufficient"


def test_sign_certificate_is_sound_at_the_edge():
    """The coefficient-sign certificate proves only strict positivity: ``x >= 1`` and
    ``not (x - 1 > 0)`` is satisfiable (x = 1), ``x > 1`` and ``not (x - 1 > 0)`` is not."""
    from symdelay.analysis.claim_formula import neg, rel
    from symdelay.analysis.decide import _impossible_by_signs, _solve

    x, y = sp.symbols("x y")
    doms = {x: "real", y: "positive"}
    edge = [rel(x - 1, ">="), neg(rel(x - 1, ">"))]
    assert not _impossible_by_signs(edge, [x, y], None, doms)
    assert _solve(edge, [x, y], None, 5000, (), doms)[0] == "sat"
    inside = [rel(x - 1, ">"), neg(rel(x - 1, ">"))]
    assert _impossible_by_signs(inside, [x, y], None, doms)
    # a positive constant term makes it strict: x >= 1, y > 0, x*y + x - 1 + 1/2 > 0
    assert _impossible_by_signs(
        [rel(x - 1, ">="), neg(rel(x * y + x - sp.Rational(1, 2), ">"))], [x, y], None, doms
    )
    # a negative coefficient: no certificate (x*y - y can be negative for x = 1 ... it is 0)
    assert not _impossible_by_signs(
        [rel(x - 1, ">="), neg(rel(x * y - 2 * y + 1, ">"))], [x, y], None, doms
    )


@pytest.mark.parametrize("L", [2, 3])
def test_sign_certificate_agrees_with_nlsat(monkeypatch, L):
    import symdelay.analysis.decide as dec

    m = build_model("inflight", L=L, kappa="kappa")
    fast = decide(m, "kappa >= 1", assume=["theta >= 0"])
    assert fast.relation_to_stability == "sufficient"
    monkeypatch.setattr(dec, "_impossible_by_signs", lambda *a: False)
    slow = decide(m, "kappa >= 1", assume=["theta >= 0"], timeout_ms=60_000)
    assert slow.directions == fast.directions


def test_sign_certificate_on_a_box():
    """Two-sided bounds: ``0 <= x <= 1`` and ``not (x (1 - x) > 0)`` holds at the ends;
    with ``0 < x < 1`` it cannot; ``x (2 - x) > 0`` is certified on ``0 < x <= 1``, which
    needs the end ``x = 1`` checked too."""
    from symdelay.analysis.claim_formula import neg, rel
    from symdelay.analysis.decide import _impossible_by_signs

    x = sp.Symbol("x")
    doms = {x: "real"}
    P = x * (1 - x)
    assert not _impossible_by_signs(
        [rel(x, ">="), rel(1 - x, ">="), neg(rel(P, ">"))], [x], None, doms
    )
    assert _impossible_by_signs([rel(x, ">"), rel(1 - x, ">"), neg(rel(P, ">"))], [x], None, doms)
    Q = x * (2 - x)
    assert _impossible_by_signs([rel(x, ">"), rel(1 - x, ">="), neg(rel(Q, ">"))], [x], None, doms)
    R = x * (sp.Rational(9, 10) - x)  # negative at x = 1, positive on (0, 9/10)
    assert not _impossible_by_signs(
        [rel(x, ">"), rel(1 - x, ">="), neg(rel(R, ">"))], [x], None, doms
    )


@pytest.mark.parametrize("L", [3, 4])
def test_boxed_certificate_agrees_with_the_scan(L):
    """``lam*theta < mu`` for the in-flight model with the weight free: proven with the
    two-sided certificate (nlsat alone: undecided in 30 s at L = 3), confirmed by the
    eigenvalue scan of the Jacobian."""
    m = build_model("inflight", L=L, kappa="kappa")
    d = decide(m, "lam*theta < mu", assume=["theta >= 0"])
    assert d.relation_to_stability == "sufficient"
    rec = d.direction_records()[0]
    assert any(c.get("by") == "sign certificate" for c in rec["checks"])
    key = f"inflight{L}_free"
    MODELS[key] = lambda m=m: m
    _confirm(m, key, ("theta >= 0",), "lam*theta < mu", d)
