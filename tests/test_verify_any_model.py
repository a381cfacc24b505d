"""``verify`` for any model with polynomial characteristic factors (issue 19), through the
entry (:func:`symdelay.analysis.claims.verify`) and the command line.

Every model gets claims of each kind (equivalent, necessary only, sufficient only, neither),
each decided in both directions (proven or refuted, never undecided), and each verdict is
confirmed by paths the engine does not use (the helpers of ``tests/test_decide.py``): a dense
scan of random points of the domain with numpy eigenvalues of the model's Jacobian (a proven
direction shows no violation, and its premise holds at enough points), and every
counterexample re-checked from the Jacobian's own characteristic polynomial (SymPy's exact
root count in the closed right half-plane) with the claim evaluated exactly.

The founding model: the 35-claim catalogue (``tests/test_verify_catalogue.py``) and claims
outside the exact homogeneous class: no finite-L stability direction is left to the search.
"""

from __future__ import annotations

import functools
import json
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp
from test_decide import (
    KC2,
    KC3,
    _draw,
    _exact_claim,
    _exact_stable,
    _numeric_truth,
    _point,
    _toml_model,
    two_queue_toml,
)

from symdelay.analysis.claims import ClaimResult, verify
from symdelay.core.errors import SymdelayInputError
from symdelay.model import load_toml
from symdelay.models import build_model

MODELS = {
    "hypoexp2": lambda: build_model("phase_type", delay="hypoexp", rates=[1, 2]),
    "hypoexp3": lambda: build_model("phase_type", delay="hypoexp", rates=[1, 2, 3]),
    "hyperexp": lambda: build_model("phase_type", delay="hyperexp", rates=[1, 3], probs="1/2,1/2"),
    "nserver3": lambda: build_model("nserver", N=3),
    "nserver4": lambda: build_model("nserver", N=4, L=3),
    "inflight1": lambda: load_toml("examples/models/inflight_erlang1.toml"),
    "inflight2": lambda: _toml_model("vinflight2", two_queue_toml(2, kappa="kappa")),
    "inflight3": lambda: _toml_model("vinflight3", two_queue_toml(3, kappa="kappa")),
    "own_names": lambda: _toml_model(
        "vown", two_queue_toml(3, service="srv", arrival="arr", sens="beta", rate="g")
    ),
}

#: the L = 3 in-flight condition with weight kappa (theta >= 0), as the minimal condition
KC3_KAPPA = (
    "8*gamma**5 + 33*gamma**4*kappa*lam*theta - 9*gamma**4*lam*theta + 24*gamma**4*mu"
    " + 30*gamma**3*kappa**2*lam**2*theta**2 - 6*gamma**3*kappa*lam**2*theta**2"
    " + 51*gamma**3*kappa*lam*mu*theta - 6*gamma**3*lam*mu*theta + 24*gamma**3*mu**2"
    " + 9*gamma**2*kappa**3*lam**3*theta**3 - gamma**2*kappa**2*lam**3*theta**3"
    " + 36*gamma**2*kappa**2*lam**2*mu*theta**2 - 2*gamma**2*kappa*lam**2*mu*theta**2"
    " + 35*gamma**2*kappa*lam*mu**2*theta - gamma**2*lam*mu**2*theta + 8*gamma**2*mu**3"
    " + 9*gamma*kappa**3*lam**3*mu*theta**3 + 18*gamma*kappa**2*lam**2*mu**2*theta**2"
    " + 9*gamma*kappa*lam*mu**3*theta + 3*kappa**3*lam**3*mu**2*theta**3"
    " + 3*kappa**2*lam**2*mu**3*theta**2 > 0"
)
KC3_OWN = "8*(g + srv)**3/(3*g + srv)**2"

# (model, assume, theta_real, claim, relation to stability, reason)
CASES = [
    # hypoexponential (rates 1, 2): k_c = (3 mu^2 + 9 mu + 6)/2 >= 3 (theta >= 0)
    ("hypoexp2", (), False, "lam*theta < (3*mu**2+9*mu+6)/2", "equivalent", "Delta_2"),
    ("hypoexp2", (), False, "lam*theta < (3*mu**2+9*mu+6)/2 + 1", "necessary", "above k_c"),
    ("hypoexp2", (), False, "lam*theta < 3", "sufficient", "k_c >= 3"),
    ("hypoexp2", (), False, "lam*theta < 4", "neither", "k_c(0+) = 3 < 4"),
    ("hypoexp2", (), False, "lam*theta < 3 | lam*theta < mu", "sufficient", "both below k_c"),
    ("hypoexp2", ("mu > 1",), False, "lam*theta < 9", "sufficient", "k_c > 9 for mu > 1"),
    # hypoexponential (rates 1, 2, 3): k_c = 10 (mu+1)(mu+2)(mu+3)/(mu+6)^2 >= 5/3
    (
        "hypoexp3",
        (),
        False,
        "lam*theta*(mu+6)**2 < 10*(mu+1)*(mu+2)*(mu+3)",
        "equivalent",
        "Delta_3 factor",
    ),
    ("hypoexp3", (), False, "lam*theta < 10*(mu+1)", "necessary", "k_c < 10 (mu+1)"),
    ("hypoexp3", (), False, "lam*theta < 5/3", "sufficient", "min k_c = 5/3 at mu -> 0"),
    ("hypoexp3", (), False, "lam*theta < 2", "neither", "k_c(0+) = 5/3 < 2"),
    # hyperexponential (rates 1, 3): stable for every theta >= 0; over real theta a_0 > 0
    ("hyperexp", (), True, "lam*theta > -mu", "equivalent", "a_0 = 3 (mu + k)"),
    ("hyperexp", (), True, "lam*theta > -2*mu", "necessary", "k between -2 mu and -mu"),
    ("hyperexp", (), True, "theta >= 0", "sufficient", "always stable for theta >= 0"),
    ("hyperexp", (), True, "theta > -1/2", "neither", "lam large at theta = -1/4"),
    ("hyperexp", (), False, "mu > 0", "equivalent", "always stable for theta >= 0"),
    # three servers, Erlang(2): the difference factor is the founding L = 2 one
    ("nserver3", (), False, f"lam*theta < {KC2}", "equivalent", "as L = 2"),
    ("nserver3", (), False, f"lam*theta < {KC2} + mu", "necessary", "above k_c"),
    ("nserver3", (), False, "lam*theta < 8*mu", "sufficient", "k_c >= 8 mu"),
    ("nserver3", (), False, "lam*theta < 9*mu", "neither", "k_c = 8 mu at gamma = mu"),
    # four servers, Erlang(3): three copies of the founding L = 3 difference factor
    ("nserver4", (), False, f"lam*theta < {KC3}", "equivalent", "as L = 3"),
    ("nserver4", (), False, f"lam*theta <= {KC3}", "necessary", "boundary not stable"),
    ("nserver4", (), False, "lam*theta < mu", "sufficient", "k_c > mu"),
    ("nserver4", (), False, "lam*theta < 8*mu", "neither", "k_c = 4 mu at gamma = mu"),
    ("nserver4", ("mu < gamma",), False, "lam*theta < 4*mu", "sufficient", "k_c >= 4 mu"),
    # in flight, Exp delay, weight kappa a parameter (real theta): stable iff a_0 > 0
    (
        "inflight1",
        (),
        True,
        "lam*theta*(gamma + kappa*mu) > -gamma*mu",
        "equivalent",
        "a_0 > 0 implies a_1 > 0",
    ),
    ("inflight1", (), True, "lam*theta > -mu", "necessary", "gamma mu/(gamma + kappa mu) <= mu"),
    ("inflight1", (), True, "theta >= 0 and kappa > 1", "sufficient", "stable for theta >= 0"),
    ("inflight1", (), True, "kappa > 1", "neither", "negative theta"),
    # in flight, Erlang(2), kappa a parameter (theta >= 0): stable if kappa >= 1/5
    ("inflight2", (), False, f"kappa >= 1/5 or lam*theta < {KC2}", "sufficient", "see decide"),
    ("inflight2", (), False, f"lam*theta < {KC2} or kappa > 0", "necessary", "kappa = 0: L = 2"),
    ("inflight2", (), False, "kappa > 1/10", "neither", "5 kappa - 1 < 0"),
    (
        "inflight2",
        (),
        False,
        "2*gamma + 5*kappa*lam*theta + 4*mu + (2*kappa**2*(lam*theta)**2 + 4*kappa*lam*theta*mu"
        " + 2*mu**2)/gamma + (kappa**2*(lam*theta)**2*mu + kappa*lam*theta*mu**2)/gamma**2"
        " > lam*theta",
        "equivalent",
        "the minimal condition over gamma^2",
    ),
    # in flight, Erlang(3), kappa a parameter
    ("inflight3", (), False, KC3_KAPPA, "equivalent", "the minimal condition"),
    # (a bound on lam*theta proven sufficient here, e.g. lam*theta < mu, takes nlsat over 10 s
    # with five parameters: lam and theta enter only as lam*theta, not used yet)
    ("inflight3", (), False, "mu > 0", "necessary", "holds everywhere; small kappa unstable"),
    ("inflight3", (), False, "kappa >= 1/3", "sufficient", "weights >= 1/3 make it stable"),
    ("inflight3", (), False, "kappa >= 1", "sufficient", "weights of 1 make it stable"),
    ("inflight3", (), False, "kappa > 1/100", "neither", "small kappa, large k"),
    ("inflight3", (), False, f"lam*theta < {KC3} + gamma + mu", "neither", "crosses"),
    # a TOML model in names of its own (srv, arr, beta, g): the founding L = 3
    ("own_names", ("beta >= 0",), False, f"arr*beta < {KC3_OWN}", "equivalent", "as L = 3"),
    ("own_names", ("beta >= 0",), False, f"arr*beta <= {KC3_OWN}", "necessary", "boundary"),
    ("own_names", ("beta >= 0",), False, "arr*beta < srv", "sufficient", "k_c > srv"),
    ("own_names", ("beta >= 0",), False, "arr*beta < 1", "neither", "small srv"),
    ("own_names", ("beta >= 0",), False, "arr*beta*(srv + g) < srv*g", "sufficient", "k < srv"),
]


@functools.cache
def model_of(key):
    return MODELS[key]()


@functools.cache
def _scan(key, n=2500):
    """Random points of the domain, stable by numpy eigenvalues of the Jacobian (None: too
    close to the boundary to tell)."""
    model = model_of(key)
    rng = np.random.default_rng(20261203)
    params = list(model.free_parameters)
    cols = _draw(model, n, rng)
    J = sp.lambdify(params, model.jacobian, "numpy")
    stable = []
    for i in range(n):
        ev = np.linalg.eigvals(np.array(J(*[cols[p][i] for p in params]), dtype=float))
        top, size = ev.real.max(), max(1.0, np.abs(ev).max())
        stable.append(None if abs(top) < 1e-7 * size else bool(top < 0))
    return params, cols, stable


def confirm(key, claim, res: ClaimResult):
    """Each direction of ``res`` against the scan and the exact re-check."""
    model = model_of(key)
    params, cols, stable = _scan(key)
    ok = np.ones(len(stable), dtype=bool)
    for a in res.assume:
        ok &= np.array([t is True for t in _numeric_truth(model, a, params, cols)])
    truth = _numeric_truth(model, claim, params, cols)
    pts = [(t, s) for t, s, k in zip(truth, stable, ok) if k and t is not None and s is not None]
    violations = {
        "claim_implies_target": sum(1 for t, s in pts if t and not s),
        "target_implies_claim": sum(1 for t, s in pts if s and not t),
    }
    for rec in res.direction_records():
        suff = rec["direction"] == "claim_implies_target"
        assert rec["method"] == "decision procedure"
        assert rec["status"] in ("proven", "refuted"), rec
        if rec["status"] == "proven":
            assert rec["counterexample"] is None and rec["formula_smt2"]
            assert violations[rec["direction"]] == 0, (claim, rec["direction"])
            premise = sum(1 for t, s in pts if (t if suff else s))
            assert premise >= 20, f"the scan barely meets the premise of {rec['direction']}"
        else:
            p = _point(model, rec["counterexample"])
            for a in res.assume:
                assert _exact_claim(model, a, p), (a, p)
            holds, st = _exact_claim(model, claim, p), _exact_stable(model, p)
            assert (holds and not st) if suff else (st and not holds), (claim, rec, holds, st)


@pytest.mark.parametrize(("key", "assume", "theta_real", "claim", "relation", "why"), CASES)
def test_decided_and_confirmed(key, assume, theta_real, claim, relation, why):
    res = verify(model_of(key), claim, assume=assume, theta_real=theta_real)
    assert isinstance(res, ClaimResult)
    assert res.proven == {"stability": True}, res.explanation
    assert res.relation_to_stability == relation, (why, res.explanation)
    assert res.relation_to_oscillation is None
    assert ("theta >= 0" in res.assume) == (
        not theta_real and any(p.name == "theta" for p in model_of(key).free_parameters)
    )
    confirm(key, claim, res)


def test_every_kind_for_every_model():
    kinds = {}
    for key, _, _, _, rel, _ in CASES:
        kinds.setdefault(key, set()).add(rel)
    full = {"equivalent", "necessary", "sufficient", "neither"}
    for key in MODELS:
        assert kinds[key] == full, key


# ------------------------------------------------------------------ the record
def test_json_shape():
    res = verify(model_of("nserver3"), "lam*theta < 8*mu")
    rec = json.loads(json.dumps(res.to_json()))
    for k in (
        "relation_to_stability",
        "relation_to_oscillation",
        "proven",
        "directions",
        "counterexamples",
        "explanation",
        "method",
        "formula_smt2",
        "assume",
        "model",
    ):
        assert k in rec, k
    dirs = ("claim_implies_target", "target_implies_claim")
    assert rec["directions"] == {"stability": {dirs[0]: "proven", dirs[1]: "refuted"}}
    assert rec["method"] == {"stability": dict.fromkeys(dirs, "decision procedure")}
    assert "(check-sat)" in rec["formula_smt2"]["stability"][dirs[0]][0]
    assert rec["counterexamples"]["stability"][dirs[0]] is None
    assert rec["counterexample"] == rec["counterexamples"]["stability"][dirs[1]]
    assert rec["relation_to_oscillation"] is None and rec["L"] is None


def test_timeout_is_undecided_never_a_relation(monkeypatch):
    import symdelay.analysis.decide as dec

    real = dec._solve

    def slow(nodes, symbols, fixed, timeout_ms, *rest, **kw):
        if len(nodes) <= 2:  # the consistency check of the assumptions
            return real(nodes, symbols, fixed, timeout_ms, *rest, **kw)
        return "unknown", "timeout", "", 0.0

    monkeypatch.setattr(dec, "_solve", slow)
    res = verify(model_of("hypoexp2"), "lam*theta < 3", timeout_ms=7)
    assert res.proven == {"stability": False}
    assert set(res.directions["stability"].values()) == {"undecided within the budget"}
    assert "undecided within the budget" in res.relation_to_stability
    assert all("7 ms per check" in d["tried"] for d in res.details["stability"].values())


# ------------------------------------------------------------------ the founding model
def test_founding_open_directions_go_to_the_decision_procedure():
    """A conjunction is outside the exact class: the search found no counterexample to
    claim => stable; the decision procedure proves it (never left to sampling)."""
    res = verify(build_model("erlang", L=2), "lam*theta < mu and lam < 5")
    assert res.relation_to_stability == "sufficient" and res.proven["stability"]
    assert res.methods["stability"]["claim_implies_target"] == "decision procedure"
    assert res.formulas["stability"]["claim_implies_target"]
    assert res.relation_to_oscillation == "neither"  # the founding engine's
    assert "decision procedure (z3 nlsat, exact)" in res.explanation


FOUNDING_OUTSIDE_THE_CLASS = [
    (2, "lam*theta < mu and lam < 5", "sufficient"),
    (3, "lam*theta < mu or lam*theta < gamma/2", "sufficient"),
    (4, "lam*theta*D > 1 and mu < 2", "neither"),
    (2, "lam*theta > 4*((gamma-mu+Abs(gamma-mu))/2)**3/(27*gamma**2)", "neither"),
    (3, "lam*theta < mu and theta < 10", "sufficient"),
]


def test_no_founding_finite_L_direction_left_to_the_search():
    """The 35-claim catalogue and claims outside the exact class: every finite-L stability
    direction is proven or refuted (by the exact class, an exact counterexample, or the
    decision procedure), none left at 'no counterexample found'."""
    from test_verify_catalogue import CATALOGUE

    claims = [(L, c, None) for L, c, *_ in CATALOGUE if L != "inf"]
    claims += FOUNDING_OUTSIDE_THE_CLASS
    for L, claim, rel in claims:
        res = verify(build_model("erlang", L=L), claim)
        for d, status in res.directions["stability"].items():
            assert status in ("proven", "refuted"), (L, claim, d, res.explanation)
            how = res.methods["stability"][d]
            if status == "proven":
                assert how in ("exact class", "decision procedure"), (L, claim, d, how)
        if rel is not None:
            assert res.relation_to_stability == rel, (L, claim)


def test_founding_with_assumptions_and_alias_D():
    res = verify(build_model("erlang", L=3), "lam*theta*D < 4", assume=["mu < gamma"])
    # oscillation is decided under the same assumptions (k_o in closed form)
    assert res.L == 3 and res.proven == {"stability": True, "oscillation": True}
    assert res.relation_to_oscillation in ("equivalent", "necessary", "sufficient", "neither")
    for pt in [
        *res.counterexamples["stability"].values(),
        *res.counterexamples["oscillation"].values(),
    ]:
        if pt:
            assert sp.Rational(pt["gamma"]) * sp.Rational(pt["D"]) == 3
            assert sp.Rational(pt["mu"]) < sp.Rational(pt["gamma"])


# ------------------------------------------------------------------ bad input
def test_bad_input_one_line():
    m = model_of("hypoexp2")
    for claim, words in (
        ("lam*theta < nu", "unknown symbol 'nu'"),
        ("lam*theta + mu", "is not a relation"),
    ):
        with pytest.raises(SymdelayInputError) as exc:
            verify(m, claim)
        assert words in str(exc.value) and "\n" not in str(exc.value)
    # a transcendental claim is no longer refused: the decision procedure still cannot
    # decide it (decide raises), verify falls back to a search labelled as such
    # (tests/test_claim_search.py checks the search itself)
    from symdelay.analysis.decide import decide
    from symdelay.core.errors import TranscendentalClaimError

    with pytest.raises(TranscendentalClaimError, match="cannot decide") as exc:
        decide(m, "exp(lam) < 4")
    assert exc.value.function == "exp" and "\n" not in str(exc.value)
    res = verify(m, "exp(lam) < 4")
    assert res.methods == {"stability": dict.fromkeys(res.directions["stability"], "search")}
    assert "cannot decide exp" in res.fallback and "search" in res.fallback
    with pytest.raises(SymdelayInputError, match="theta_real"):
        verify(model_of("own_names"), "srv > 0", theta_real=True)
    with pytest.raises(SymdelayInputError, match="timeout_ms"):
        verify(m, "mu > 0", timeout_ms=0)


# ------------------------------------------------------------------ the command line
def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "symdelay", *args], capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(
    ("key", "argv", "claim", "relation"),
    [
        (
            "hypoexp3",
            ["--model", "phase_type", "--delay", "hypoexp", "--rates", "1,2,3"],
            "lam*theta < 5/3",
            "sufficient",
        ),
        (
            "nserver4",
            ["--model", "nserver", "--N", "4", "--L", "3"],
            f"lam*theta < {KC3}",
            "equivalent",
        ),
    ],
)
def test_cli_json(key, argv, claim, relation):
    proc = _cli("verify", *argv, "--claim", claim, "--json")
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(proc.stdout)
    assert rec["relation_to_stability"] == relation and rec["proven"] == {"stability": True}
    res = verify(model_of(key), claim)
    assert rec["directions"] == res.directions and rec["counterexamples"] == res.counterexamples
    confirm(key, claim, res)


def test_cli_model_file_text_and_assume(tmp_path):
    path = tmp_path / "own.toml"
    path.write_text(two_queue_toml(2, service="srv", arrival="arr", sens="beta", rate="g"))
    proc = _cli(
        "verify",
        "--model-file",
        str(path),
        "--claim",
        "arr*beta < 8*srv",
        "--assume",
        "beta >= 0",
        "--timeout",
        "20",
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "relation to stability: sufficient   (proven)" in out
    assert "claim => stable: proven (decision procedure (z3 nlsat, exact)" in out
    assert "stable but claim fails: " in out and "assuming: beta >= 0" in out
    assert "oscillation" not in out  # a target only the founding model has: not printed


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (
            ["--model", "nserver", "--N", "3", "--L", "2", "--claim", "lam*theta < nu"],
            "unknown symbol 'nu'",
        ),
        (["--model", "nserver", "--N", "3", "--L", "2", "--claim", "lam*theta"], "not a relation"),
        (["--L", "2", "--claim", "mu > 0", "--timeout", "0"], "--timeout takes a positive"),
        (["--L", "inf", "--claim", "mu > 0", "--assume", "mu < 1"], "finite L"),
        (
            [
                "--model-file",
                "examples/models/inflight_erlang1.toml",
                "--claim",
                "mu > 0",
                "--theta-real",
                "--set",
                "theta=1",
            ],
            "theta_real",
        ),
    ],
)
def test_cli_bad_input_one_line_exit_2(argv, words):
    proc = _cli("verify", *argv)
    assert proc.returncode == 2, proc.stdout
    assert words in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert not proc.stdout


def test_cli_transcendental_claim_refuted_both_ways_exit_0():
    """A claim the decision procedure cannot read is searched; the search found exact,
    re-checked counterexamples both ways, so the answer is proven (exit 0, not 2: it is
    no bad input) and it says how it was reached."""
    proc = _cli("verify", "--model", "nserver", "--N", "3", "--L", "2", "--claim", "exp(mu) < lam")
    assert proc.returncode == 0, proc.stderr
    assert "cannot decide exp" in proc.stdout and "neither   (proven)" in proc.stdout
    assert "searched" not in proc.stdout and not proc.stderr


def test_cli_non_polynomial_model_refused(tmp_path):
    path = tmp_path / "sq.toml"
    path.write_text(
        'name = "square death"\n[parameters]\na = "positive"\nb = "positive"\n'
        '[state]\nnames = ["x"]\n'
        '[[transitions]]\nname = "birth"\nchange = { x = 1 }\nrate = "a"\n'
        '[[transitions]]\nname = "death"\nchange = { x = -1 }\nrate = "b*x**2"\n'
    )
    proc = _cli("verify", "--model-file", str(path), "--claim", "a > b")
    assert proc.returncode == 2
    assert "decision procedure" in proc.stderr and proc.stderr.count("\n") == 1


def test_cli_nserver_decided_now():
    """The fixture verify_nserver (tests/fixtures/window_main) refused; now decided."""
    proc = _cli("verify", "--model", "nserver", "--N", "2", "--L", "1", "--claim", "lam*theta < mu")
    assert proc.returncode == 0, proc.stderr
    assert "relation to stability: sufficient   (proven)" in proc.stdout


def test_stability_minimal_cli():
    proc = _cli("stability", "--L", "2", "--minimal", "--json")
    assert proc.returncode == 0, proc.stderr
    rec = json.loads(proc.stdout)
    assert len(rec["conditions"]) == 1 and rec["minimal"] and rec["assume"] == ["theta >= 0"]
    assert rec["conditions_latex"][0].endswith("> 0")
    assert rec["dropped"] and all(d["formula_smt2"] and d["latex"] for d in rec["dropped"])
    text = _cli(
        "stability", "--model", "phase_type", "--delay", "hypoexp", "--rates", "1,2", "--minimal"
    ).stdout
    assert "stable exactly when (minimal" in text and "dropped 1 condition(s)" in text


def test_ctrl_c_during_the_solver_exits_130():
    """z3 turns Ctrl-C into an 'unknown' answer; verify must stop (exit 130), not report
    the claim 'undecided within the budget'."""
    import signal
    import time

    # sufficiency is undecided after 20 s of nlsat (two square roots as auxiliary variables)
    claim = "lam*theta < sqrt(mu*gamma) + kappa*sqrt(gamma)"
    argv = [sys.executable, "-m", "symdelay", "verify", "--model", "inflight", "--L", "3"]
    p = subprocess.Popen(
        [*argv, "--kappa", "kappa", "--claim", claim],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(6)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, (out, err)
    assert "undecided" not in out and "Traceback" not in err
