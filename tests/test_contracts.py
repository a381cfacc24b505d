"""The interfaces earlier issues named as contracts, checked on today's code as a user runs them.

Each test names the issue whose contract it checks (``test_issueN_...``). The command line is
run as a subprocess (``python -m symdelay ...``); the Python names are imported as a user
would. A contract is checked for its keys (present; extra keys are allowed), the types and
shapes of its values, and, where the issue states a value, that value against an independent
computation written here from the model's statement (docs/model.md): determinants of
Jacobians built in this file, numpy eigenvalues, scipy's Lyapunov solver and ODE integrator,
mpmath's Lambert W, or a closed form published in the issue.

The commands run concurrently (a small thread pool started with the module), so that the
whole file stays within a few minutes on a loaded two-core machine.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp

ROOT = Path(__file__).resolve().parents[1]
ENV = {
    **{k: v for k, v in os.environ.items() if k != "SYMDELAY_DEBUG"},
    "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
}

NAMES = {n: sp.Symbol(n) for n in ("r", "mu", "gamma", "lam", "theta", "D", "L", "k", "beta")}
r, mu, gamma, lam, theta, D = (NAMES[n] for n in ("r", "mu", "gamma", "lam", "theta", "D"))


def S(text: str) -> sp.Expr:
    """A SymPy string of the JSON, read with symdelay's symbol names (``gamma`` a symbol)."""
    return sp.sympify(text, locals=NAMES)


def same(a, b) -> bool:
    return sp.simplify(sp.expand(a - b)) == 0


# ---------------------------------------------------------------- running the command line


@dataclass(frozen=True)
class Run:
    args: tuple
    rc: int
    out: str
    err: str

    def json(self):
        assert self.rc == 0, f"{' '.join(self.args)} exited {self.rc}: {self.err.strip()[-500:]}"
        return json.loads(self.out)


def _execute(args: tuple) -> Run:
    proc = subprocess.run(
        [sys.executable, "-m", "symdelay", *args],
        capture_output=True,
        text=True,
        env=ENV,
        cwd=ROOT,
        timeout=600,
    )
    return Run(args, proc.returncode, proc.stdout, proc.stderr)


_POOL: ThreadPoolExecutor | None = None
_RUNS: dict[tuple, Future] = {}


def _start(args: tuple) -> Future:
    global _POOL
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=4)
    if args not in _RUNS:
        _RUNS[args] = _POOL.submit(_execute, args)
    return _RUNS[args]


def cli(*args: str) -> Run:
    """The run of a started command, or (not started) the command run now in this thread."""
    future = _RUNS.get(tuple(args))
    return future.result() if future is not None else _execute(tuple(args))


def one_line_refusal(run: Run) -> None:
    """Bad input: exit 2, one line on stderr, no traceback (issues 2-5, 21, 36)."""
    err = run.err.strip()
    assert run.rc == 2, f"{' '.join(run.args)}: exit {run.rc}, stderr {err[-300:]!r}"
    assert "Traceback" not in run.err
    assert len(err.splitlines()) == 1, err


# The commands the tests read, started together when the module begins (slowest first).
CHARPOLY_5 = ("charpoly", "--L", "5", "--json")
CHARPOLY_SYM = ("charpoly", "--L", "L", "--json")
CHARPOLY_INF = ("charpoly", "--L", "inf", "--json")
CHARPOLY_FULL = ("charpoly", "--L", "2", "--full", "--json")
ROUTH_NUM = ("routh", "s**4 + s**3 + 3*s**2 + 3*s + 3", "--var", "s", "--json")
ROUTH_SYM = ("routh", "s**2 + K*s + 1", "--var", "s", "--json")
STABILITY_2 = ("stability", "--L", "2", "--json")
CRITICAL_3 = ("critical", "--L", "3", "--mu", "1", "--lam", "1", "--D", "0.5,1,2,4", "--json")
CRITICAL_1 = ("critical", "--L", "1", "--mu", "1", "--lam", "1", "--D", "1", "--json")
CRITICAL_INF = ("critical", "--L", "inf", "--mu", "1", "--lam", "1", "--D", "1,3", "--json")
WORST_3 = ("worst-delay", "--L", "3", "--mu", "1", "--lam", "1", "--json")
WINDOW_4 = ("window", "--L", "4", "--theta", "3", "--mu", "1", "--lam", "1", "--json")
WINDOW_4_INF = ("window", "--L", "4", "--theta", "4", "--mu", "1", "--lam", "1", "--json")
VERIFY_1 = ("verify", "--L", "1", "--claim", "4*gamma*lam*theta > (mu-gamma)**2", "--json")
ROOTS_200 = ("roots", "--L", "200", "--mu", "1", "--lam", "1", "--theta", "5", "--D", "1")
ROOTS_200 += ("--dps", "50", "--json")
ROOTS_200_K = (*ROOTS_200, "--rightmost", "2")
ROOTS_INF = ("roots", "--L", "inf", "--mu", "1", "--lam", "1", "--theta", "5", "--D", "1")
ROOTS_INF += ("--dps", "40", "--branches", "-3..3", "--json")
SIM_ARGS = ("--L", "2", "--mu", "1", "--lam", "1", "--theta", "2", "--D", "1", "--T", "20")
SIM_ARGS += ("--dt", "0.1")
SIMULATE = ("simulate", *SIM_ARGS, "--eta", "1000", "--seed", "1", "--json")
FLUID = ("fluid", *SIM_ARGS, "--json")
SIMULATE_R2 = ("simulate", "--L", "2", "--eta", "100", "--T", "2", "--dt", "0.5", "--seed", "3")
SIMULATE_R2 += ("--replications", "2", "--json")
SIMULATE_CSV = (*SIMULATE_R2[:-1], "--csv", "-")
VARIANCE_1 = ("variance", "--L", "1", "--mu", "1", "--lam", "1", "--theta", "2", "--D", "1")
VARIANCE_1 += ("--json",)
MODELS = ("models", "--json")
CRITICAL_NSERVER = ("critical", "--model", "nserver", "--N", "4", "--L", "2", "--mu", "1")
CRITICAL_NSERVER += ("--lam", "1", "--D", "1", "--json")
CRITICAL_PH = ("critical", "--model", "phase_type", "--delay", "hypoexp", "--rates", "1,2")
CRITICAL_PH += ("--D", "2", "--mu", "1", "--lam", "1", "--json")
CRITICAL_FILE = ("critical", "--model-file", "examples/models/erlang2.toml", "--set", "mu=1")
CRITICAL_FILE += ("--set", "lam=1", "--set", "gamma=2", "--json")
CHARPOLY_NSERVER = ("charpoly", "--model", "nserver", "--N", "4", "--L", "2", "--full", "--json")
SCRATCH = Path(tempfile.mkdtemp(prefix="symdelay-contracts-"))
TEX_OUT = SCRATCH / "analyze.tex"
DERIVE = ("derive", "--L", "2", "--out", str(SCRATCH / "derive"))
ANALYZE = ("analyze", "examples/models/erlang2.toml", "--json", "--tex", str(TEX_OUT))
UNSTABLE_THETA = ("unstable-theta", "--L", "2", "--kappa", "0.05", "--mu", "1", "--lam", "1")
UNSTABLE_THETA += ("--D", "1", "--json")
KAPPA_STAR_3 = ("kappa-star", "--L", "3", "--mu", "1", "--D", "1", "--json")
KAPPA_STAR_2 = ("kappa-star", "--L", "2", "--mu", "1", "--D", "1", "--json")
OPT = ("optimize-weights", "--L", "2", "--mu", "1", "--lam", "1", "--theta", "5", "--D", "1")
OPT_DECAY = (*OPT, "--criterion", "decay", "--json")
OPT_VARIANCE = (*OPT, "--criterion", "variance", "--json")
OPT_TOLERANCE = (*OPT, "--criterion", "tolerance", "--json")
OPT_PER_PHASE = (*OPT, "--criterion", "variance", "--per-phase", "--json")
CRITICAL_KAPPA = ("critical", "--L", "2", "--kappa", "0.05", "--mu", "1", "--lam", "1")
CRITICAL_KAPPA += ("--D", "1", "--json")
VARIANCE_KAPPA = ("variance", "--L", "2", "--kappa", "0.5", "--mu", "1", "--lam", "1")
VARIANCE_KAPPA += ("--theta", "5", "--D", "1", "--json")
FLUID_KAPPA = ("fluid", "--L", "2", "--kappa", "0.5", "--theta", "5", "--T", "4", "--dt", "0.5")
FLUID_KAPPA += ("--json",)
SIM_KAPPA = ("simulate", "--L", "2", "--kappa", "0.5", "--eta", "100", "--T", "1", "--json")
ROOTS_KAPPA = ("roots", "--L", "2", "--kappa", "0.5", "--mu", "1", "--lam", "1", "--theta", "5")
ROOTS_KAPPA += ("--D", "1", "--dps", "20", "--json")
NORMAL_FORM = ("normal-form", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1", "--json")
CYCLE = ("limit-cycle", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1", "--theta", "10")
CYCLE += ("--json",)
CYCLE_INF = ("limit-cycle", "--L", "inf", "--mu", "1", "--lam", "1", "--D", "1", "--theta")
CYCLE_INF += ("2.5", "--json")
CYCLES = (*CYCLE[:-2], "9.5,10", "--json")
SPECTRUM = ("spectrum", "--L", "2", "--mu", "1", "--lam", "1", "--theta", "8", "--D", "1")
SPECTRUM += ("--json",)
SQD_FP = ("sqd", "fixed-point", "--d", "2", "--lam", "0.9", "--json")
SQD_ERLANG = ("sqd", "fixed-point", "--d", "1", "--lam", "0.5", "--service", "erlang", "--k")
SQD_ERLANG += ("2", "--json")
SQD_HYPER = ("sqd", "fixed-point", "--d", "1", "--lam", "0.5", "--service", "hyperexp")
SQD_HYPER += ("--probs", "0.3,0.7", "--rates", "0.5,2", "--json")
SQD_SIM = ("sqd", "simulate", "--N", "100", "--d", "2", "--lam", "0.9", "--T", "200", "--seed")
SQD_SIM += ("1", "--json")
SQD_FLUID = ("sqd", "fluid", "--d", "2", "--lam", "0.9", "--json")
LB_STATIONS = ("--stations", "N=50,mu=1;N=50,mu=1")
LB_DIFFUSION = ("lb", "diffusion", *LB_STATIONS, "--beta", "0.5", "--xi", "2", "--c", "1,1")
LB_DIFFUSION += ("--d", "1,1", "--json")
LB_SIM = ("lb", "simulate", "--stations", "N=5,mu=1;N=10,mu=0.5", "--lam", "8", "--xi", "2")
LB_SIM += ("--c", "1,1", "--d", "1,1", "--T", "50", "--seed", "1", "--json")
LB_DESIGN = ("lb", "design", "--stations", "N=50,mu=1;N=100,mu=0.5", "--beta", "0.5")
LB_DESIGN += ("--target", "equal-utilisation", "--json")
VERIFY_NSERVER = ("verify", "--model", "nserver", "--N", "3", "--L", "2")
VERIFY_NSERVER += ("--claim", "lam*theta < 8*mu", "--json")
VERIFY_REFUTED = ("verify", "--L", "4", "--claim", "lam*theta < 2.8854382*mu", "--json")
STABILITY_MINIMAL = ("stability", "--L", "2", "--minimal", "--json")
MARGINAL = ("stability", "--L", "2", "--mu", "1", "--lam", "1", "--D", "1", "--theta", "9")
MARGINAL += ("--json",)
MAP = ("map", "--L", "3", "--mu", "1", "--lam", "1", "--x", "D=0.5:20", "--y", "theta=0:10")
MAP += ("--json",)
WORST_NSERVER = ("worst-delay", "--model", "nserver", "--N", "3", "--L", "3", "--mu", "1")
WORST_NSERVER += ("--lam", "1", "--json")
ROOTS_THETA0 = ("roots", "--L", "2", "--mu", "1", "--lam", "1", "--theta", "0", "--D", "1")
ROOTS_THETA0 += ("--json",)

PREFETCH = [
    CYCLES,
    CYCLE,
    CYCLE_INF,
    DERIVE,
    NORMAL_FORM,
    SPECTRUM,
    LB_SIM,
    LB_DIFFUSION,
    LB_DESIGN,
    OPT_TOLERANCE,
    OPT_PER_PHASE,
    SQD_SIM,
    SQD_FLUID,
    VERIFY_REFUTED,
    VERIFY_NSERVER,
    VERIFY_1,
    WORST_3,
    CHARPOLY_INF,
    OPT_DECAY,
    OPT_VARIANCE,
    STABILITY_MINIMAL,
    STABILITY_2,
    MARGINAL,
    CHARPOLY_FULL,
    CHARPOLY_5,
    CHARPOLY_SYM,
    CHARPOLY_NSERVER,
    SQD_FP,
    SQD_ERLANG,
    SQD_HYPER,
    WINDOW_4,
    WINDOW_4_INF,
    CRITICAL_3,
    CRITICAL_PH,
    CRITICAL_NSERVER,
    CRITICAL_FILE,
    CRITICAL_KAPPA,
    VARIANCE_KAPPA,
    VARIANCE_1,
    WORST_NSERVER,
    KAPPA_STAR_2,
    KAPPA_STAR_3,
    UNSTABLE_THETA,
    ANALYZE,
    FLUID,
    SIMULATE,
    SIMULATE_R2,
    SIMULATE_CSV,
    ROOTS_200,
    ROOTS_200_K,
    ROOTS_KAPPA,
    FLUID_KAPPA,
    SIM_KAPPA,
    ROOTS_THETA0,
    ROUTH_NUM,
    ROUTH_SYM,
    MAP,
    MODELS,
    CRITICAL_1,
    CRITICAL_INF,
    ROOTS_INF,
]


@pytest.fixture(scope="module", autouse=True)
def _prefetch(request):
    if len(request.session.items) > 20:  # the whole file: start every command at once
        for args in PREFETCH:
            _start(args)
    yield
    if _POOL is not None:
        _POOL.shutdown(wait=True, cancel_futures=True)


# ---------------------------------------------------------------- the model, written out here
# From the model's statement (docs/model.md): two infinite-server queues, logit routing on
# s_i = q_i + sum_l kappa_l z_{i,l} (kappa = 0: the founding model), Erlang(L) delay of phase
# rate gamma = L/D, service rate mu. State order q1, q2, z1_1..z1_L, z2_1..z2_L.


def difference_jacobian(L, mu_, lam_, theta_, gamma_, kappa=None):
    """(L+1)x(L+1) Jacobian of (x, w_1..w_L), x = q1 - q2, w_l = z1_l - z2_l."""
    weights = [0.0] * L if kappa is None else list(kappa)
    J = np.zeros((L + 1, L + 1))
    J[0, 0] = -mu_
    J[0, L] = gamma_
    J[1, 0] = -lam_ * theta_
    for l in range(1, L + 1):
        J[1, l] += -lam_ * theta_ * weights[l - 1]
        J[l, l] += -gamma_
        if l > 1:
            J[l, l - 1] += gamma_
    return J


def abscissa(J) -> float:
    return float(np.max(np.linalg.eigvals(J).real))


def full_lna(L, mu_, lam_, theta_, gamma_, kappa=None):
    """Drift Jacobian A and diffusion B of the full 2(L+1)-state model at its equilibrium."""
    weights = [0.0] * L if kappa is None else list(kappa)
    n = 2 * (L + 1)
    q = [0, 1]
    z = [[2 + l for l in range(L)], [2 + L + l for l in range(L)]]
    A = np.zeros((n, n))
    jumps = []  # (vector, rate at the equilibrium q* = lam/mu, z* = lam/gamma: every rate lam)
    for i in range(2):
        for j in range(2):  # d(2 lam p_i)/d s_j at the symmetric point: -+ lam theta / 2
            slope = -lam_ * theta_ / 2 if i == j else lam_ * theta_ / 2
            A[z[i][0], q[j]] += slope
            for l in range(L):
                A[z[i][0], z[j][l]] += slope * weights[l]
        for l in range(L):
            A[z[i][l], z[i][l]] -= gamma_
            if l > 0:
                A[z[i][l], z[i][l - 1]] += gamma_
        A[q[i], z[i][L - 1]] += gamma_
        A[q[i], q[i]] -= mu_
        v = np.zeros(n)
        v[z[i][0]] = 1
        jumps.append(v)
        for l in range(L - 1):
            v = np.zeros(n)
            v[z[i][l]], v[z[i][l + 1]] = -1, 1
            jumps.append(v)
        v = np.zeros(n)
        v[z[i][L - 1]], v[q[i]] = -1, 1
        jumps.append(v)
        v = np.zeros(n)
        v[q[i]] = -1
        jumps.append(v)
    B = sum(np.outer(v, v) * lam_ for v in jumps)
    return A, B


def lna_variance(L, mu_, lam_, theta_, gamma_, kappa=None) -> float:
    from scipy.linalg import solve_continuous_lyapunov

    A, B = full_lna(L, mu_, lam_, theta_, gamma_, kappa)
    cov = solve_continuous_lyapunov(A, -B)
    e = np.zeros(len(A))
    e[0], e[1] = 1, -1
    return float(e @ cov @ e)


def fluid_rhs(L, mu_, lam_, theta_, gamma_, kappa=0.0):
    def rhs(_t, s):
        q1, q2 = s[0], s[1]
        z1, z2 = s[2 : 2 + L], s[2 + L :]
        s1, s2 = q1 + kappa * z1.sum(), q2 + kappa * z2.sum()  # routing scores
        p1 = 1 / (1 + math.exp(-theta_ * (s2 - s1)))
        out = np.empty_like(s)
        out[0] = gamma_ * z1[-1] - mu_ * q1
        out[1] = gamma_ * z2[-1] - mu_ * q2
        for zz, p, k in ((z1, p1, 2), (z2, 1 - p1, 2 + L)):
            out[k] = 2 * lam_ * p - gamma_ * zz[0]
            out[k + 1 : k + L] = gamma_ * (zz[:-1] - zz[1:])
        return out

    return rhs


def symbolic_full_jacobian(L):
    """The full Jacobian at the equilibrium, derived here from the fluid ODEs with SymPy."""
    q1, q2 = sp.symbols("q1 q2")
    z1 = sp.symbols(f"z1_1:{L + 1}")
    z2 = sp.symbols(f"z2_1:{L + 1}")
    p1 = sp.exp(-theta * q1) / (sp.exp(-theta * q1) + sp.exp(-theta * q2))
    p2 = 1 - p1
    F = [gamma * z1[-1] - mu * q1, gamma * z2[-1] - mu * q2]
    for zz, p in ((z1, p1), (z2, p2)):
        F.append(2 * lam * p - gamma * zz[0])
        F += [gamma * (zz[l - 1] - zz[l]) for l in range(1, L)]
    state = [q1, q2, *z1, *z2]
    eq = {q1: lam / mu, q2: lam / mu, **{v: lam / gamma for v in (*z1, *z2)}}
    J = sp.Matrix(F).jacobian(state).subs(eq).applyfunc(sp.simplify)
    return J, F, state, eq


def difference_charpoly(L):
    """det(rI - J) of the difference Jacobian of docs/model.md, symbolic."""
    J = sp.zeros(L + 1, L + 1)
    J[0, 0], J[0, L], J[1, 0] = -mu, gamma, -lam * theta
    for l in range(1, L + 1):
        J[l, l] = -gamma
        if l > 1:
            J[l, l - 1] = gamma
    return (r * sp.eye(L + 1) - J).det(method="berkowitz")


def founding_poly(L, mu_, lam_, theta_, gamma_):
    return lambda z: (z + mu_) * (z + gamma_) ** L + lam_ * theta_ * gamma_**L


def crosses_at(L, mu_, lam_, D_, theta_c, omega, kappa=None, rel=1e-6):
    """A Hopf point: stable just below theta_c, unstable above, eigenvalues +-i omega at it."""
    g = L / D_
    below = abscissa(difference_jacobian(L, mu_, lam_, theta_c * (1 - rel), g, kappa))
    above = abscissa(difference_jacobian(L, mu_, lam_, theta_c * (1 + rel), g, kappa))
    at = np.linalg.eigvals(difference_jacobian(L, mu_, lam_, theta_c, g, kappa))
    assert below < 0 < above, (theta_c, below, above)
    assert np.min(np.abs(at - 1j * omega)) < 1e-7 * max(1, omega)


def num(text) -> float:
    return float(mpmath.mpf(text)) if text != "inf" else math.inf


def has_keys(d: dict, keys) -> None:
    missing = set(keys) - set(d)
    assert not missing, f"contract keys missing: {sorted(missing)}; present: {sorted(d)}"


def is_sympy_str(value, symbols) -> None:
    assert isinstance(value, str)
    assert S(value).free_symbols <= {NAMES[s] for s in symbols}


# ================================================================= issue 2: the foundation


def test_issue2_charpoly_L5():
    d = cli(*CHARPOLY_5).json()
    has_keys(d, {"L", "polynomial", "latex"})
    assert d["L"] == 5 and isinstance(d["latex"], str) and d["latex"]
    assert S(d["polynomial"]).free_symbols <= {r, mu, gamma, lam, theta}
    assert same(S(d["polynomial"]), difference_charpoly(5))


def test_issue2_charpoly_symbolic_L():
    d = cli(*CHARPOLY_SYM).json()
    has_keys(d, {"L", "polynomial", "latex"})
    poly = S(d["polynomial"])
    assert NAMES["L"] in poly.free_symbols
    for L in (1, 3, 4):
        assert same(poly.subs(NAMES["L"], L), difference_charpoly(L))


def test_issue2_charpoly_L_inf_equation():
    d = cli(*CHARPOLY_INF).json()
    has_keys(d, {"L", "equation", "latex"})
    eq = S(d["equation"])
    assert eq.free_symbols <= {r, mu, lam, theta, D}
    # the delayed-information model x' = -mu x - lam theta x(t - D), ansatz x = exp(r t)
    t = sp.Symbol("t")
    x = sp.exp(r * t)
    ansatz = sp.simplify((-x.diff(t) - mu * x - lam * theta * x.subs(t, t - D)) / x)
    assert same(eq, -ansatz)


def test_issue2_charpoly_full_factored():
    d = cli(*CHARPOLY_FULL).json()
    has_keys(d, {"L", "polynomial", "latex"})
    J, *_ = symbolic_full_jacobian(2)
    det = (r * sp.eye(6) - J).det(method="berkowitz")
    assert same(S(d["polynomial"]), det)
    assert isinstance(S(d["polynomial"]), sp.Mul)  # factored, not expanded


def test_issue2_derive_and_report_commands():
    run = cli(*DERIVE)
    assert run.rc == 0, run.err
    tex = list((SCRATCH / "derive").glob("*.tex"))
    assert tex and all("\\begin{document}" in p.read_text() for p in tex)
    help_ = cli("report", "--help")  # the report itself takes minutes: its interface only
    assert help_.rc == 0 and "--out" in help_.out


def test_issue2_python_model_and_characteristic_polynomial():
    # Issue 31 (item 6) moved the loose-argument names from the top level into one
    # namespace, symdelay.founding; the contract is checked there.
    from symdelay.founding import ActionDelayModel, characteristic_polynomial

    assert same(characteristic_polynomial(3), difference_charpoly(3))
    Lsym = NAMES["L"]
    general = characteristic_polynomial(Lsym)
    assert same(general.subs(Lsym, 2), difference_charpoly(2))
    m = ActionDelayModel(L=2, mu=1, lam=1, theta=2, D=1)
    for attr in ("fluid_rhs", "equilibrium", "difference_system", "jacobian"):
        assert hasattr(m, attr), attr
    J = sp.Matrix(
        m.difference_jacobian() if callable(m.difference_jacobian) else m.difference_jacobian
    )
    ref = difference_jacobian(2, 1, 1, 2, 2)
    assert np.allclose(np.array(J.evalf(), dtype=float), ref)


# ================================================================= issue 3: stability, critical


def test_issue3_routh_numeric():
    d = cli(*ROUTH_NUM).json()
    has_keys(d, {"table", "conditions", "stable", "rhp_count", "imaginary_axis_count"})
    assert all(isinstance(row, list) and all(isinstance(c, str) for c in row) for row in d["table"])
    assert d["table"][0] == ["1", "3", "3"]
    assert all(isinstance(c, str) for c in d["conditions"])
    z = np.roots([1, 1, 3, 3, 3])
    assert d["rhp_count"] == int(np.sum(z.real > 1e-9))
    assert d["imaginary_axis_count"] == int(np.sum(abs(z.real) <= 1e-9))
    assert d["stable"] is (d["rhp_count"] == 0 and d["imaginary_axis_count"] == 0)


def test_issue3_routh_symbolic_leaves_counts_open():
    d = cli(*ROUTH_SYM).json()
    has_keys(d, {"table", "conditions", "stable", "rhp_count", "imaginary_axis_count"})
    assert d["stable"] is None and d["rhp_count"] is None and d["imaginary_axis_count"] is None
    K = sp.Symbol("K")
    conds = sp.And(*[sp.sympify(c, locals={"K": K}) for c in d["conditions"]])
    for value, stable in ((2, True), (Fraction(1, 10), True), (-1, False)):
        assert bool(conds.subs(K, sp.Rational(value))) is stable


def test_issue3_routh_hurwitz_python():
    from symdelay import routh_hurwitz

    s = sp.Symbol("s")
    res = routh_hurwitz(s**4 + s**3 + 3 * s**2 + 3 * s + 3, s)
    for attr in ("table", "conditions", "is_stable", "rhp_count"):
        assert hasattr(res, attr), attr
    assert res.is_stable is False and res.rhp_count == 2


def test_issue3_stability_L2():
    d = cli(*STABILITY_2).json()
    has_keys(d, {"L", "conditions", "critical_lam_theta"})
    assert d["L"] == 2 and all(isinstance(c, str) for c in d["conditions"])
    is_sympy_str(d["critical_lam_theta"], {"mu", "gamma"})
    # Hurwitz for the cubic (r + mu)(r + gamma)^2 + c gamma^2: a2 a1 = a0 at the boundary
    c = sp.Symbol("c")
    a = sp.Poly(sp.expand((r + mu) * (r + gamma) ** 2 + c * gamma**2), r).all_coeffs()
    boundary = sp.solve(sp.Eq(a[1] * a[2], a[3]), c)[0]
    assert same(S(d["critical_lam_theta"]), boundary)


@pytest.mark.parametrize("args", [CRITICAL_3, CRITICAL_1, CRITICAL_INF], ids=["L3", "L1", "Linf"])
def test_issue3_critical(args):
    d = cli(*args).json()
    has_keys(d, {"L", "points"})
    Ds = args[args.index("--D") + 1].split(",")
    assert [p["D"] for p in d["points"]] == Ds
    for p in d["points"]:
        has_keys(p, {"D", "theta_c", "omega"})
        assert isinstance(p["theta_c"], str)
        if args is CRITICAL_1:  # L = 1: stable for every theta >= 0 (positive coefficients)
            assert p["theta_c"] == "inf"
            continue
        th, om, Dv = num(p["theta_c"]), num(p["omega"]), num(p["D"])
        if args is CRITICAL_3:
            assert d["L"] == 3
            crosses_at(3, 1, 1, Dv, th, om)
        else:  # L = inf: r + mu + lam theta exp(-r D) = 0 at r = i omega, the rightmost root
            assert d["L"] == "inf"
            z = 1j * om
            assert abs(z + 1 + th * np.exp(-z * Dv)) < 1e-10
            rightmost = mpmath.lambertw(-th * Dv * mpmath.e**Dv, 0) / Dv - 1
            assert abs(float(mpmath.re(rightmost))) < 1e-10


def test_issue3_worst_delay():
    d = cli(*WORST_3).json()
    has_keys(d, {"L", "D_star", "theta_star", "closed_form"})
    has_keys(d["closed_form"], {"D_star", "theta_star"})
    L, mu_, lam_ = 3, 1, 1
    # D* = L / mu and theta* = mu / (lam cos^(L+1)(pi/(L+1))): the closed forms of issue 3
    assert num(d["D_star"]) == pytest.approx(L / mu_, rel=1e-13)
    theta_star = mu_ / (lam_ * math.cos(math.pi / (L + 1)) ** (L + 1))
    assert num(d["theta_star"]) == pytest.approx(theta_star, rel=1e-13)
    assert same(S(d["closed_form"]["D_star"]), L / mu)
    assert same(S(d["closed_form"]["theta_star"]), mu / (lam * sp.cos(sp.pi / 4) ** 4))
    # the minimum of theta_c(D): just beside D* the critical theta is larger (numpy bisection)
    for Dv in (L / mu_ * 0.9, L / mu_ * 1.1):
        lo, hi = 0.0, 50.0
        for _ in range(60):
            mid = (lo + hi) / 2
            lo, hi = (
                (lo, mid) if abscissa(difference_jacobian(L, 1, 1, mid, L / Dv)) > 0 else (mid, hi)
            )
        assert hi > theta_star


@pytest.mark.parametrize("args", [WINDOW_4, WINDOW_4_INF], ids=["bounded", "lam_theta_4mu"])
def test_issue3_window(args):
    d = cli(*args).json()
    has_keys(d, {"intervals"})
    assert d["intervals"] and all(len(iv) == 2 for iv in d["intervals"])
    th = float(args[args.index("--theta") + 1])
    for lo, hi in d["intervals"]:
        assert isinstance(lo, str) and isinstance(hi, str)
        for end, inside in ((num(lo), 1), (num(hi), -1)):
            if math.isinf(end):
                continue
            # crossing at the end: stable outside the window, unstable inside it
            out = abscissa(difference_jacobian(4, 1, 1, th, 4 / (end * (1 - inside * 1e-6))))
            inn = abscissa(difference_jacobian(4, 1, 1, th, 4 / (end * (1 + inside * 1e-6))))
            assert out < 0 < inn
    if args is WINDOW_4_INF:  # lam theta = 4 mu: the L = 4 threshold as D -> inf
        assert d["intervals"][-1][1] == "inf"
        assert abscissa(difference_jacobian(4, 1, 1, th, 4 / 1e4)) > 0


def test_issue3_verify():
    d = cli(*VERIFY_1).json()
    has_keys(
        d,
        {"L", "claim", "relation_to_stability", "relation_to_oscillation", "counterexample"}
        | {"explanation"},
    )
    assert d["L"] == 1 and isinstance(d["explanation"], str)
    # L = 1: r^2 + (mu + gamma) r + gamma (mu + lam theta); its roots are complex iff the claim
    # holds (discriminant), and it is stable for every theta >= 0 (positive coefficients)
    disc = sp.discriminant(sp.expand((r + mu) * (r + gamma) + lam * theta * gamma), r)
    assert same(-disc, 4 * gamma * lam * theta - (mu - gamma) ** 2)
    assert d["relation_to_oscillation"] == "equivalent"
    assert d["relation_to_stability"] == "sufficient"
    cx = {k: Fraction(v) for k, v in d["counterexample"].items()}
    assert not 4 * cx["gamma"] * cx["lam"] * cx["theta"] > (cx["mu"] - cx["gamma"]) ** 2
    J = difference_jacobian(1, *(float(cx[k]) for k in ("mu", "lam", "theta", "gamma")))
    assert abscissa(J) < 0


def test_issue3_python_functions():
    from symdelay.founding import critical_theta, instability_window, verify, worst_delay

    curve = critical_theta(3, 1, 1, [1])
    (p,) = curve.points
    crosses_at(3, 1, 1, 1.0, float(p.critical), float(p.omega))
    assert float(worst_delay(3, 1, 1).to_json()["D_star"]) == pytest.approx(3)
    assert instability_window(4, 3, 1, 1).to_json()["intervals"]
    assert verify(1, "lam*theta < mu").to_json()["relation_to_stability"] == "sufficient"


# ================================================================= issue 4: certified roots


def test_issue4_roots_all():
    d = cli(*ROOTS_200).json()
    has_keys(d, {"L", "dps", "roots", "spectral_abscissa", "unstable_count"})
    assert d["L"] == 200 and d["dps"] == 50
    for root in d["roots"]:
        has_keys(root, {"re", "im", "radius"})
    diff = [x for x in d["roots"] if x.get("mode", "difference") == "difference"]
    assert len(diff) == 201
    with mpmath.workdps(70):
        P = founding_poly(200, 1, 1, 5, mpmath.mpf(200))
        zs = [mpmath.mpc(x["re"], x["im"]) for x in diff]
        for z in sorted(zs, key=lambda z: -z.real)[:6]:  # the Newton step at each root
            step = abs(P(z) / ((z + 200) ** 200 + 200 * (z + 1) * (z + 200) ** 199))
            assert step < mpmath.mpf(10) ** -45, step
    digits = len(diff[0]["re"].lstrip("-").replace(".", "").lstrip("0"))
    assert digits >= 45  # decimal strings of dps digits
    sa = max(num(x["re"]) for x in d["roots"])
    assert num(d["spectral_abscissa"]) == pytest.approx(sa, abs=1e-40)
    assert d["unstable_count"] == sum(num(x["re"]) > 0 for x in diff) == 2


def test_issue4_roots_rightmost():
    full, k2 = cli(*ROOTS_200).json(), cli(*ROOTS_200_K).json()
    has_keys(k2, {"L", "dps", "roots", "spectral_abscissa", "unstable_count"})
    assert len(k2["roots"]) == 2
    best = sorted(full["roots"], key=lambda x: -num(x["re"]))[:2]
    assert {(x["re"], x["im"]) for x in k2["roots"]} == {(x["re"], x["im"]) for x in best}


def test_issue4_roots_L_inf_lambert():
    d = cli(*ROOTS_INF).json()
    has_keys(d, {"L", "dps", "roots", "spectral_abscissa", "unstable_count"})
    diff = [x for x in d["roots"] if x.get("mode", "difference") == "difference"]
    assert len(diff) == 7
    with mpmath.workdps(50):
        want = [mpmath.lambertw(-5 * mpmath.e, k) - 1 for k in range(-3, 4)]
        got = [mpmath.mpc(x["re"], x["im"]) for x in diff]
        for w in want:
            assert min(abs(w - g) for g in got) < mpmath.mpf(10) ** -35


def test_issue4_characteristic_roots_python():
    from symdelay.founding import characteristic_roots

    roots = characteristic_roots(3, 1, 1, 5, 1, dps=30)
    items = list(getattr(roots, "roots", roots))
    P = founding_poly(3, 1, 1, 5, 3)
    assert items and all(isinstance(x.value, mpmath.mpc) and x.radius is not None for x in items)
    with mpmath.workdps(40):
        assert all(abs(P(x.value)) < mpmath.mpf(10) ** -20 for x in items if abs(x.value + 3) > 0)
    assert len(list(getattr(characteristic_roots(3, 1, 1, 5, 1, rightmost=2), "roots", []))) == 2


# ================================================================= issue 5: the stochastic system


def test_issue5_simulate_json():
    d = cli(*SIMULATE).json()
    has_keys(d, {"events", "t", "q1", "q2", "z1", "z2"})
    n = len(d["t"])
    assert n == 201 and d["t"][0] == 0 and d["t"][-1] == pytest.approx(20)
    assert isinstance(d["events"], int) and d["events"] > 0
    assert len(d["q1"]) == len(d["q2"]) == n
    assert len(d["z1"]) == len(d["z2"]) == 2 and all(len(z) == n for z in d["z1"] + d["z2"])
    # scaled Q/eta: the path stays near the fluid limit, integrated here (docs/model.md)
    from scipy.integrate import solve_ivp

    start = [0, 1, 0, 0, 0, 0]
    sol = solve_ivp(fluid_rhs(2, 1, 1, 2, 2), (0, 20), start, t_eval=d["t"], rtol=1e-9, atol=1e-12)
    path = np.array([d["q1"], d["q2"], *d["z1"], *d["z2"]])
    assert np.max(np.abs(path - sol.y)) < 0.25  # about 8/sqrt(eta)


def test_issue5_simulate_replications():
    d = cli(*SIMULATE_R2).json()
    has_keys(d, {"events", "replications"})
    reps = d["replications"]
    assert isinstance(reps, list) and len(reps) == 2
    for rep in reps:
        has_keys(rep, {"events", "t", "q1", "q2", "z1", "z2"})
        assert len(rep["q1"]) == len(rep["t"]) == 5
    assert d["events"] == sum(rep["events"] for rep in reps)
    assert reps[0]["q1"] != reps[1]["q1"]


def test_issue5_simulate_csv_same_as_json():
    # issue 5: --csv writes the same as a table; issue 13: to stdout with "-", with the
    # parameters and the seed beside it
    run = cli(*SIMULATE_CSV)
    assert run.rc == 0, run.err
    lines = [ln for ln in run.out.splitlines() if ln and not ln.startswith("#")]
    header = lines[0].split(",")
    assert {"t", "q1", "q2", "z1_1", "z1_2", "z2_1", "z2_2"} <= set(header)
    assert any('"seed": 3' in ln for ln in run.out.splitlines() if ln.startswith("#"))
    rows = [dict(zip(header, ln.split(","), strict=True)) for ln in lines[1:]]
    reps = cli(*SIMULATE_R2).json()["replications"]
    assert len(rows) == sum(len(rep["t"]) for rep in reps)
    first = [float(row["q1"]) for row in rows if int(float(row.get("replication", 0))) == 0]
    assert first == pytest.approx(reps[0]["q1"], abs=1e-12)


def test_issue5_fluid_json():
    d = cli(*FLUID).json()
    has_keys(d, {"t", "q1", "q2", "z1", "z2"})
    assert d["t"] == cli(*SIMULATE).json()["t"]  # the same grid as simulate
    from scipy.integrate import solve_ivp

    sol = solve_ivp(
        fluid_rhs(2, 1, 1, 2, 2), (0, 20), [0, 1, 0, 0, 0, 0], t_eval=d["t"], rtol=1e-11, atol=1e-13
    )
    path = np.array([d["q1"], d["q2"], *d["z1"], *d["z2"]])
    assert np.max(np.abs(path - sol.y)) < 1e-6


def test_issue5_variance_L1():
    d = cli(*VARIANCE_1).json()
    has_keys(d, {"var_x_over_eta", "closed_form"})
    assert isinstance(d["var_x_over_eta"], str)
    want = lna_variance(1, 1, 1, 2, 1)
    assert num(d["var_x_over_eta"]) == pytest.approx(want, rel=1e-10)
    cf = S(d["closed_form"]).subs({mu: 1, lam: 1, theta: 2, D: 1, gamma: 1})
    assert float(cf) == pytest.approx(want, rel=1e-12)


def test_issue5_python_simulate_events():
    # Issue 31 moved the loose-argument conveniences to symdelay.founding (item 6).
    from symdelay.founding import simulate

    res = simulate(L=2, eta=100, mu=1, lam=1, theta=2, D=1, T=2, seed=1)
    events = res["events"]  # "events (item or attribute)": the item is the total
    assert isinstance(events, int) and events > 0
    assert events == int(res.events.sum()) == res.to_json()["events"]


def test_issue5_python_fluid_variance():
    # Issue 31 moved the loose-argument conveniences to symdelay.founding (item 6).
    from symdelay.founding import fluid, variance

    assert fluid(L=2, mu=1, lam=1, theta=2, D=1, T=1).to_json()["q1"]
    v = variance(L=1, mu=1, lam=1, theta=2, D=1).to_json()["var_x_over_eta"]
    assert num(v) == pytest.approx(lna_variance(1, 1, 1, 2, 1), rel=1e-10)


# ================================================================= bad input: exit 2, one line

BAD_INPUT = {
    "issue2_L0": ("charpoly", "--L", "0", "--json"),
    "issue3_dps_below_5": (
        "critical",
        "--L",
        "3",
        "--mu",
        "1",
        "--lam",
        "1",
        "--D",
        "1",
        "--dps",
        "3",
    ),
    "issue4_dps_above_10000": (*ROOTS_200[:-3], "--dps", "10001"),
    "issue5_eta_below_1": ("simulate", "--eta", "0.5", "--T", "1"),
    "issue11_lam_at_capacity": ("sqd", "fixed-point", "--d", "2", "--lam", "1"),
    "issue12_beta_not_positive": ("lb", "diffusion", *LB_STATIONS, "--beta", "0", "--xi", "2"),
    "issue13_run_over_budget": ("simulate", "--eta", "1e11", "--T", "100"),
    "issue18_option_without_effect": (*ROOTS_THETA0[:-1], "--branches", "-1..1"),
    "issue36_formula_as_number": (
        "stability",
        "--L",
        "2",
        "--mu",
        "2*lam",
        "--lam",
        "1",
        "--D",
        "1",
        "--theta",
        "1",
    ),
    "issue36_option_twice": (
        "critical",
        "--L",
        "3",
        "--mu",
        "1",
        "--lam",
        "1",
        "--D",
        "1",
        "--D",
        "2",
    ),
}


@pytest.mark.parametrize("args", list(BAD_INPUT.values()), ids=list(BAD_INPUT))
def test_bad_input_exit_2_one_line(args):
    run = cli(*args)
    one_line_refusal(run)
    if args[0] == "simulate" and "1e11" in args:
        assert "--force" in run.err


def test_issue2_api_bad_input_is_value_error():
    from symdelay.founding import characteristic_polynomial

    with pytest.raises(ValueError):
        characteristic_polynomial(0)


# ================================================================= issue 8: models as tables


def test_issue8_models_json():
    d = cli(*MODELS).json()
    assert isinstance(d, list)
    for m in d:
        has_keys(m, {"name", "parameters", "description"})
        assert isinstance(m["parameters"], list) and isinstance(m["description"], str)
    assert {"erlang", "phase_type", "nserver", "hetero", "inflight", "dde"} <= {
        m["name"] for m in d
    }


@pytest.mark.parametrize(
    "args", [CRITICAL_NSERVER, CRITICAL_PH, CRITICAL_FILE], ids=["nserver", "phase_type", "file"]
)
def test_issue8_critical_keeps_keys_for_every_model(args):
    d = cli(*args).json()
    has_keys(d, {"L", "points"})
    (p,) = d["points"]
    has_keys(p, {"D", "theta_c", "omega"})
    th, om = num(p["theta_c"]), num(p["omega"])
    if args is CRITICAL_PH:
        # hypoexponential delay, rates (1, 2) rescaled to mean D = 2: phase rates 3/4, 3/2;
        # the difference mode (r + mu)(r + a)(r + b) + lam theta a b (derived like Erlang's)
        a, b = 0.75, 1.5
        z = 1j * om
        assert abs((z + 1) * (z + a) * (z + b) + th * a * b) < 1e-9
        A = np.array([[-1, 0, b], [-th, -a, 0], [0, a, -b]])
        Ab = A.copy()
        Ab[1, 0] = -th * (1 - 1e-6)
        Aa = A.copy()
        Aa[1, 0] = -th * (1 + 1e-6)
        assert abscissa(Ab) < 0 < abscissa(Aa)
    else:  # N servers and the founding model as a file: the two-server L = 2 curve at D = 1
        crosses_at(2, 1, 1, 1.0, th, om)


def test_issue8_charpoly_nserver_factors():
    d = cli(*CHARPOLY_NSERVER).json()
    has_keys(d, {"factors"})
    total = 0
    diff = sp.expand((r + mu) * (r + gamma) ** 2 + lam * theta * gamma**2)
    copies = 0
    for f in d["factors"]:
        has_keys(f, {"factor", "multiplicity", "mode"})
        assert isinstance(f["multiplicity"], int) and isinstance(f["mode"], str)
        expr = S(f["factor"])
        total += sp.Poly(expr, r).degree() * f["multiplicity"]
        if same(expr, diff):
            copies += f["multiplicity"]
    assert total == 4 * 3  # N (L + 1) states
    assert copies == 3  # N - 1 copies of the two-server difference equation


def test_issue8_analyze_toml():
    d = cli(*ANALYZE).json()
    keys = {"name", "state", "parameters", "equilibrium", "jacobian", "charpoly", "factors"}
    has_keys(d, keys | {"stability"})
    has_keys(d["stability"], {"conditions", "stable"})
    J, F, state, _eq = symbolic_full_jacobian(2)
    assert d["state"] == ["q1", "q2", "z11", "z12", "z21", "z22"]
    # the equilibrium zeroes the drift written here
    point = {s: S(d["equilibrium"][n]) for s, n in zip(state, d["state"], strict=True)}
    assert all(sp.simplify(f.subs(point)) == 0 for f in F)
    got = sp.Matrix([[S(c) for c in row] for row in d["jacobian"]])
    assert (got - J).applyfunc(sp.simplify) == sp.zeros(6, 6)
    assert same(S(d["charpoly"]), (r * sp.eye(6) - J).det(method="berkowitz"))
    for f in d["factors"]:
        has_keys(f, {"factor", "multiplicity", "mode"})
    assert d["stability"]["stable"] in (True, False, None)
    assert "\\begin{document}" in TEX_OUT.read_text()  # --tex writes the derivation


def test_issue8_model_from_toml_python():
    import symdelay

    m = symdelay.Model.from_toml(ROOT / "examples/models/erlang2.toml")
    assert [str(s) for s in m.states] == ["q1", "q2", "z11", "z12", "z21", "z22"]


# ================================================================= issue 9: jobs in flight


def test_issue9_unstable_theta_keys():
    d = cli(*UNSTABLE_THETA).json()
    has_keys(d, {"L", "kappa", "intervals"})
    assert d["L"] == 2 and d["kappa"] == "0.05"


def test_issue9_unstable_theta_intervals():
    d = cli(*UNSTABLE_THETA).json()
    assert d["intervals"] and all(len(iv) == 2 for iv in d["intervals"])
    kap = [0.05, 0.05]
    (lo, hi), *_ = d["intervals"]
    # published in issue 9's closing note: (15.2590..., 188.7409...)
    assert num(lo) == pytest.approx(15.2590, abs=1e-4)
    assert num(hi) == pytest.approx(188.7409, abs=1e-4)
    for end, inside in ((num(lo), 1), (num(hi), -1)):
        out = abscissa(difference_jacobian(2, 1, 1, end * (1 - inside * 1e-7), 2, kap))
        inn = abscissa(difference_jacobian(2, 1, 1, end * (1 + inside * 1e-7), 2, kap))
        assert out < 0 < inn


def _stable_for_all_theta(L, kappa, thetas) -> bool:
    g = L  # mu D = 1 with mu = D = 1
    Js = np.array([difference_jacobian(L, 1, 1, th, g, [kappa] * L) for th in thetas])
    return bool(np.all(np.linalg.eigvals(Js).real.max(axis=1) < 0))


@pytest.mark.parametrize("args", [KAPPA_STAR_3, KAPPA_STAR_2], ids=["L3", "L2"])
def test_issue9_kappa_star(args):
    d = cli(*args).json()
    has_keys(d, {"L", "kappa_star", "closed_form"})
    L = d["L"]
    assert int(args[args.index("--L") + 1]) == L
    k = num(d["kappa_star"])
    thetas = np.logspace(-1, 4, 3000)
    assert _stable_for_all_theta(L, k * 1.03, thetas)
    assert not _stable_for_all_theta(L, k * 0.97, thetas)
    if L == 3:
        assert d["closed_form"] is None
        assert k == pytest.approx(0.14608, abs=1e-5)  # issue 9's table (mu D = 1)
    else:
        # issue 9's closing note: kappa* = (gamma/(gamma + mu + sqrt(2 gamma (2 gamma + mu))))^2
        g, m_ = 2.0, 1.0
        want = (g / (g + m_ + math.sqrt(2 * g * (2 * g + m_)))) ** 2
        assert k == pytest.approx(want, rel=1e-14)
        assert isinstance(d["closed_form"], str)
        assert float(S(d["closed_form"]).subs({gamma: 2, mu: 1, D: 1})) == pytest.approx(want)


@pytest.mark.parametrize(
    "args",
    [OPT_VARIANCE, OPT_DECAY, OPT_TOLERANCE, OPT_PER_PHASE],
    ids=["variance", "decay", "tolerance", "variance_per_phase"],
)
def test_issue9_optimize_weights(args):
    d = cli(*args).json()
    has_keys(d, {"criterion", "kappa", "value", "at_kappa_0", "at_kappa_1"})
    crit = args[args.index("--criterion") + 1]
    assert d["criterion"] == crit
    per_phase = "--per-phase" in args
    kap = [num(x) for x in d["kappa"]] if per_phase else [num(d["kappa"])] * 2
    assert isinstance(d["kappa"], list if per_phase else str) and len(kap) == 2
    value, at0, at1 = num(d["value"]), num(d["at_kappa_0"]), num(d["at_kappa_1"])
    assert value <= min(at0, at1) + 1e-9 if crit != "decay" else value >= max(at0, at1) - 1e-9
    if crit == "variance":
        assert at0 == pytest.approx(lna_variance(2, 1, 1, 5, 2, [0, 0]), rel=1e-8)
        assert at1 == pytest.approx(lna_variance(2, 1, 1, 5, 2, [1, 1]), rel=1e-8)
        assert value == pytest.approx(lna_variance(2, 1, 1, 5, 2, kap), rel=1e-8)
    if crit == "decay":
        rate = lambda w: -abscissa(difference_jacobian(2, 1, 1, 5, 2, w))  # noqa: E731
        assert at0 == pytest.approx(rate([0, 0]), rel=1e-8)
        assert at1 == pytest.approx(rate([1, 1]), rel=1e-8)
        assert value == pytest.approx(rate(kap), rel=1e-8)
        assert kap[0] == pytest.approx(1.733, abs=1e-3)  # issue 9's closing note
    if crit == "tolerance":
        assert kap[0] == pytest.approx(0.637, abs=1e-3)  # issue 9's closing note


@pytest.mark.parametrize(
    "args",
    [CRITICAL_KAPPA, VARIANCE_KAPPA, ROOTS_KAPPA, FLUID_KAPPA, SIM_KAPPA],
    ids=["critical", "variance", "roots", "fluid", "simulate"],
)
def test_issue9_kappa_option(args):
    d = cli(*args).json()
    k = float(args[args.index("--kappa") + 1])
    if args is CRITICAL_KAPPA:
        has_keys(d, {"L", "points"})
        (p,) = d["points"]
        crosses_at(2, 1, 1, 1.0, num(p["theta_c"]), num(p["omega"]), kappa=[k, k])
    elif args in (FLUID_KAPPA, SIM_KAPPA):
        has_keys(d, {"t", "q1", "q2", "z1", "z2"} | ({"events"} if args is SIM_KAPPA else set()))
        if args is FLUID_KAPPA:  # the in-flight fluid model, integrated here
            from scipy.integrate import solve_ivp

            path = np.array([d["q1"], d["q2"], *d["z1"], *d["z2"]])
            start = path[:, 0]  # the family's own default start; the dynamics are checked
            rhs = fluid_rhs(2, 1, 1, 5, 2, kappa=k)
            sol = solve_ivp(rhs, (0, 4), start, t_eval=d["t"], rtol=1e-11, atol=1e-13)
            assert np.max(np.abs(path - sol.y)) < 1e-6
    elif args is VARIANCE_KAPPA:
        has_keys(d, {"var_x_over_eta", "closed_form"})
        want = lna_variance(2, 1, 1, 5, 2, [k, k])
        assert num(d["var_x_over_eta"]) == pytest.approx(want, rel=1e-10)
    else:
        has_keys(d, {"L", "dps", "roots", "spectral_abscissa", "unstable_count"})
        want = abscissa(difference_jacobian(2, 1, 1, 5, 2, [k, k]))
        diff = [num(x["re"]) for x in d["roots"] if x.get("mode") == "difference"]
        assert max(diff) == pytest.approx(want, abs=1e-10)
        # the sum mode adds -mu and -gamma
        assert num(d["spectral_abscissa"]) == pytest.approx(max(want, -1.0), abs=1e-10)


# ================================================================= issue 10: beyond linear


def test_issue10_normal_form():
    d = cli(*NORMAL_FORM).json()
    keys = {"L", "theta_c", "omega", "l1", "criticality", "amplitude_coefficient", "closed_form"}
    has_keys(d, keys)
    has_keys(d["closed_form"], {"l1", "amplitude_coefficient"})
    # L = 2, mu = lam = D = 1 (gamma = 2): Hurwitz a2 a1 = a0 gives theta_c = 2 (gamma + mu)^2
    # / gamma = 9 and omega^2 = a1 = 2 mu gamma + gamma^2 = 8
    assert num(d["theta_c"]) == pytest.approx(9, rel=1e-13)
    assert num(d["omega"]) == pytest.approx(math.sqrt(8), rel=1e-13)
    assert d["criticality"] == "supercritical"
    # issue 10's structural result: A ~ 4 theta_c^(-3/2) sqrt(theta - theta_c)
    assert num(d["amplitude_coefficient"]) == pytest.approx(4 * 9**-1.5, rel=1e-12)
    assert num(d["l1"]) < 0


def _simulated_amplitude(theta_, L=2, mu_=1.0, lam_=1.0, D_=1.0):
    """Half the peak-to-peak of x after a long run of the nonlinear difference system."""
    from scipy.integrate import solve_ivp

    g = L / D_

    def rhs(_t, y):
        x, w = y[0], y[1:]
        out = np.empty_like(y)
        out[0] = g * w[-1] - mu_ * x
        out[1] = -2 * lam_ * math.tanh(theta_ * x / 2) - g * w[0]
        out[2:] = g * (w[:-1] - w[1:])
        return out

    sol = solve_ivp(rhs, (0, 600), [0.1] + [0.0] * L, rtol=1e-10, atol=1e-12, dense_output=True)
    t = np.linspace(560, 600, 40001)
    x = sol.sol(t)[0]
    return (x.max() - x.min()) / 2


def test_issue10_limit_cycle():
    d = cli(*CYCLE).json()
    has_keys(d, {"theta", "amplitude_x", "period", "floquet_multipliers", "stable", "method"})
    assert d["theta"] == "10" and d["stable"] is True and isinstance(d["method"], str)
    mults = d["floquet_multipliers"]
    assert isinstance(mults, list) and mults
    absval = [
        abs(complex(num(m["re"]), num(m["im"]))) if isinstance(m, dict) else abs(m) for m in mults
    ]
    assert min(abs(a - 1) for a in absval) < 1e-6  # the trivial multiplier
    assert num(d["amplitude_x"]) == pytest.approx(_simulated_amplitude(10.0), rel=1e-4)
    assert num(d["period"]) == pytest.approx(2 * math.pi / math.sqrt(8), rel=0.01)


def test_issue10_limit_cycle_L_inf():
    d = cli(*CYCLE_INF).json()
    has_keys(d, {"theta", "amplitude_x", "period", "floquet_multipliers", "stable", "method"})
    assert d["stable"] is True
    # the delayed-information DDE x' = -mu x - 2 lam tanh(theta x(t - D)/2), Euler steps
    h, lag, th = 1 / 4000, 4000, 2.5
    x = [0.1] * (lag + 1)
    for _ in range(160 * lag):
        x.append(x[-1] + h * (-x[-1] - 2 * math.tanh(th * x[-1 - lag] / 2)))
    tail = x[-20 * lag :]
    assert num(d["amplitude_x"]) == pytest.approx((max(tail) - min(tail)) / 2, rel=5e-3)
    # near the DDE's Hopf point the period is 2 pi / omega, omega D = pi - atan(omega / mu)
    omega = float(mpmath.findroot(lambda w: w - math.pi + mpmath.atan(w), 2))
    assert num(d["period"]) == pytest.approx(2 * math.pi / omega, rel=0.01)


def test_issue10_limit_cycle_continuation():
    d = cli(*CYCLES).json()
    has_keys(d, {"points"})
    assert [p["theta"] for p in d["points"]] == ["9.5", "10"]
    single = cli(*CYCLE).json()
    for p in d["points"]:
        has_keys(p, {"theta", "amplitude_x", "period", "floquet_multipliers", "stable"})
    assert num(d["points"][1]["amplitude_x"]) == pytest.approx(num(single["amplitude_x"]), rel=1e-6)


def test_issue10_spectrum():
    d = cli(*SPECTRUM).json()
    grid = d.get("omega") or d.get("frequencies")
    assert isinstance(grid, list) and len(grid) > 10
    has_keys(d, {"peak_frequency", "quality_factor"})
    Svals = d.get("S") or d.get("spectrum")
    assert len(Svals) == len(grid)
    A, B = full_lna(2, 1, 1, 8, 2)
    e = np.zeros(6)
    e[0], e[1] = 1, -1
    for i in (0, len(grid) // 3, len(grid) // 2):
        w = grid[i]
        R = np.linalg.solve(1j * w * np.eye(6) - A, np.eye(6))
        assert Svals[i] == pytest.approx(float((e @ R @ B @ R.conj().T @ e).real), rel=1e-8)
    peak = num(d["peak_frequency"])
    assert abs(peak - math.sqrt(8)) < 0.3  # the peak sits near the Hopf frequency below theta_c
    assert num(d["quality_factor"]) > 1


def test_issue10_python_functions_model_first():
    import inspect

    import symdelay

    for name in ("normal_form", "limit_cycle", "spectrum"):
        f = getattr(symdelay, name)
        assert next(iter(inspect.signature(f).parameters)) == "model", name
    from symdelay.core.result import Result

    assert hasattr(Result, "plot") and hasattr(Result, "_repr_latex_")


# ================================================================= issue 11: SQ(d)


def test_issue11_sqd_fixed_point_exponential():
    d = cli(*SQD_FP).json()
    keys = {"d", "lam", "service", "tail", "mean_queue", "mean_sojourn", "closed_form"}
    has_keys(d, keys | {"truncation"})
    assert d["d"] == 2 and d["lam"] == "0.9" and isinstance(d["service"], dict)
    assert isinstance(d["truncation"], int) and isinstance(d["closed_form"], str)
    lam_ = Fraction(9, 10)
    for k, s in enumerate(d["tail"], start=1):  # s_k = lam^((d^k - 1)/(d - 1))
        assert num(s) == pytest.approx(float(lam_ ** (2**k - 1)), rel=1e-12, abs=1e-15)
        assert float(S(d["closed_form"]).subs({NAMES["k"]: k, lam: lam_})) == pytest.approx(
            float(lam_ ** (2**k - 1))
        )
    sojourn = sum(0.9 ** (2**k - 2) for k in range(1, 40))
    assert num(d["mean_sojourn"]) == pytest.approx(sojourn, rel=1e-12)
    assert num(d["mean_queue"]) == pytest.approx(0.9 * sojourn, rel=1e-12)  # Little


@pytest.mark.parametrize("args", [SQD_ERLANG, SQD_HYPER], ids=["erlang2", "hyperexp"])
def test_issue11_sqd_fixed_point_services(args):
    d = cli(*args).json()
    keys = {"d", "lam", "service", "tail", "mean_queue", "mean_sojourn", "closed_form"}
    has_keys(d, keys | {"truncation"})
    if args is SQD_ERLANG:
        scv = 1 / 2
    else:  # rates 0.5, 2 with probabilities 0.3, 0.7, scaled to mean 1
        m1 = 0.3 / 0.5 + 0.7 / 2
        m2 = 2 * (0.3 / 0.5**2 + 0.7 / 2**2)
        scv = m2 / m1**2 - 1
    # d = 1 is M/G/1: Pollaczek-Khinchine with mean service 1
    pk = 1 + 0.5 * (1 + scv) / (2 * (1 - 0.5))
    assert num(d["mean_sojourn"]) == pytest.approx(pk, rel=1e-12)
    assert num(d["mean_queue"]) == pytest.approx(0.5 * pk, rel=1e-12)


def test_issue11_sqd_simulate_keys():
    d = cli(*SQD_SIM).json()
    has_keys(d, {"mean_sojourn", "ci95", "tail", "events"})


def test_issue11_sqd_fluid():
    d = cli(*SQD_FLUID).json()
    has_keys(d, {"t", "states"})
    paths = [d[name] for name in d["states"]] if d["states"][0] in d else d["x"]
    assert all(len(p) == len(d["t"]) for p in paths)
    final = np.array([p[-1] for p in paths])  # fractions of servers with k = 1.. jobs
    tails = np.cumsum(final[::-1])[::-1]
    for k in (1, 2, 3):
        assert tails[k - 1] == pytest.approx(0.9 ** (2**k - 1), abs=0.02)


def test_issue11_python_sqd_namespace():
    import symdelay.sqd as sqd

    assert callable(sqd.fixed_point) and callable(sqd.simulate)


# ================================================================= issue 12: LB(xi, c, d)


def test_issue12_lb_diffusion_halfin_whitt():
    from scipy.stats import norm

    d = cli(*LB_DIFFUSION).json()
    has_keys(d, {"p_wait", "mean_queue_scaled", "stations", "closed_form"})
    has_keys(d["closed_form"], {"p_wait"})
    assert len(d["stations"]) == 2
    for s in d["stations"]:
        has_keys(s, {"utilisation", "idle_share", "mean_delay_scaled"})
    beta = 0.5
    hw = 1 / (1 + beta * norm.cdf(beta) / norm.pdf(beta))
    assert num(d["p_wait"]) == pytest.approx(hw, rel=1e-12)
    cf = d["closed_form"]["p_wait"]
    assert cf is None or float(S(cf).subs(NAMES["beta"], sp.Rational(1, 2))) == pytest.approx(hw)


def test_issue12_lb_simulate_keys():
    d = cli(*LB_SIM).json()
    has_keys(d, {"p_wait", "p_wait_ci95", "mean_wait", "stations", "events"})


def test_issue12_lb_design():
    d = cli(*LB_DESIGN).json()
    has_keys(d, {"c", "d", "predicted"})
    assert len(d["c"]) == len(d["d"]) == 2 and isinstance(d["predicted"], dict)
    assert all(num(x) > 0 for x in d["c"] + d["d"])
    # equal utilisation, checked by the diffusion command at the designed weights
    stations = "N=50,mu=1;N=100,mu=0.5"
    check = cli(
        "lb", "diffusion", "--stations", stations, "--beta", "0.5", "--xi", "2",
        "--c", ",".join(d["c"]), "--d", ",".join(d["d"]), "--json",
    ).json()  # fmt: skip
    u = [num(s["utilisation"]) for s in check["stations"]]
    assert u[0] == pytest.approx(u[1], rel=1e-9)


def test_issue12_python_lb_namespace():
    import symdelay.lb as lb

    assert callable(lb.diffusion)


# ================================================================= issue 13: output to keep


def test_issue13_latex_fields():
    stab = cli(*STABILITY_2).json()
    assert len(stab["conditions_latex"]) == len(stab["conditions"])
    routh = cli(*ROUTH_NUM).json()
    assert len(routh["conditions_latex"]) == len(routh["conditions"])
    assert isinstance(cli(*VERIFY_1).json()["latex"], str)
    cf = cli(*CRITICAL_3).json()["closed_forms"]
    assert any(k.endswith("_latex") and v for k, v in cf.items())
    sim = cli(*SIMULATE).json()
    assert sim["parameters"]["seed"] == 1  # parameters and seed in the JSON


def test_issue13_interrupt_exits_130():
    proc = subprocess.Popen(
        [sys.executable, "-m", "symdelay", "simulate", "--eta", "1e8", "--T", "100", "--force"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=ENV,
        cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, (proc.returncode, err[-500:])
    assert "Traceback" not in err and "interrupted" in err


# ================================================================= issue 14: sweeps


def _write_spec(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    spec = folder / "spec.toml"
    spec.write_text(text)
    return spec


ROOTS_SPEC = """name = "contract sweep"
analysis = "roots"
[parameters]
L = 2
mu = 1
lam = 1
dps = 15
[grid]
theta = [1, 12]
D = [1, 2]
"""


def test_issue14_sweep_run_and_status(tmp_path):
    import pandas as pd

    spec = _write_spec(tmp_path, ROOTS_SPEC)
    out = tmp_path / "r.parquet"
    run = cli("sweep", "run", str(spec), "--out", str(out), "--serial")
    assert run.rc == 0, run.err
    d = cli("sweep", "status", str(out), "--json").json()
    has_keys(d, {"total", "done", "failed", "spec_hash"})
    assert (d["total"], d["done"], d["failed"]) == (4, 4, 0) and isinstance(d["spec_hash"], str)
    png = tmp_path / "map.png"
    plot = cli("sweep", "plot", str(out), "--x", "theta", "--y", "D", "--z", "unstable_count",
               "--out", str(png))  # fmt: skip
    assert plot.rc == 0 and png.read_bytes()[:4] == b"\x89PNG", plot.err
    table = pd.read_parquet(out)
    for _, row in table.iterrows():
        J = difference_jacobian(2, 1, 1, float(row["theta"]), 2 / float(row["D"]))
        assert float(row["spectral_abscissa"]) == pytest.approx(abscissa(J), abs=1e-12)


def test_issue14_sweep_python_and_examples(tmp_path):
    import inspect

    from symdelay import sweep

    params = inspect.signature(sweep.run).parameters
    assert {"spec", "out", "client"} <= set(params)
    assert callable(sweep.to_xarray)
    names = {p.name for p in (ROOT / "examples/sweeps").glob("*.toml")}
    assert {"stability_map.toml", "replications.toml"} <= names
    for name in ("stability_map.toml", "replications.toml"):
        sweep.load_spec(ROOT / "examples/sweeps" / name)
    spec = _write_spec(tmp_path, ROOTS_SPEC.replace("[1, 12]", "[12]").replace("[1, 2]", "[1]"))
    table = sweep.run(sweep.load_spec(spec), out=tmp_path / "x.parquet", client=None, serial=True)
    J = difference_jacobian(2, 1, 1, 12.0, 2.0)
    assert float(table["spectral_abscissa"].iloc[0]) == pytest.approx(abscissa(J), abs=1e-12)
    assert sweep.to_xarray(tmp_path / "x.parquet") is not None


# ================================================================= issue 18: one model, one path


def test_issue18_model_first_entries():
    import inspect

    import symdelay

    for name in (
        "critical", "roots", "stability", "simulate", "fluid", "variance",
        "limit_cycle", "window", "worst_delay", "verify",
    ):  # fmt: skip
        f = getattr(symdelay, name)
        assert next(iter(inspect.signature(f).parameters)) == "model", name
    m = symdelay.build_model("erlang", L=2, mu=1, lam=1, theta=2, D=1)
    rec = symdelay.stability(m).to_json()
    rec = json.loads(rec) if isinstance(rec, str) else rec
    has_keys(rec, {"model", "symdelay_version"})


def test_issue18_worst_delay_other_model():
    d = cli(*WORST_NSERVER).json()
    has_keys(d, {"L", "D_star", "theta_star"})
    assert num(d["D_star"]) == pytest.approx(3, rel=1e-12)  # D* = L/mu, any N
    assert num(d["theta_star"]) == pytest.approx(1 / math.cos(math.pi / 4) ** 4, rel=1e-12)


# ================================================================= issue 19: verify any model


def _check_counterexample(point: dict, L: int, claim, want_stable: bool) -> None:
    v = {k: Fraction(x) for k, x in point.items()}
    g = v.get("gamma", Fraction(L) / v["D"] if "D" in v else None)
    J = difference_jacobian(L, float(v["mu"]), float(v["lam"]), float(v["theta"]), float(g))
    assert (abscissa(J) < 0) is want_stable
    assert claim(v) is not want_stable


def test_issue19_verify_any_model():
    d = cli(*VERIFY_NSERVER).json()
    keys = {"relation_to_stability", "relation_to_oscillation", "proven", "directions"}
    has_keys(d, keys | {"counterexamples", "explanation", "method"})
    for direction, how in d["method"]["stability"].items():
        assert isinstance(how, str), direction
    # the N-server difference factor is the two-server one: stable iff lam theta < 2 (gamma +
    # mu)^2 / gamma, whose minimum over gamma is 8 mu: the claim is sufficient, not necessary
    assert d["relation_to_stability"] == "sufficient"
    assert d["directions"]["stability"]["claim_implies_target"] == "proven"
    point = d["counterexamples"]["stability"]["target_implies_claim"]
    _check_counterexample(point, 2, lambda v: v["lam"] * v["theta"] < 8 * v["mu"], True)


def test_issue19_stability_minimal():
    d = cli(*STABILITY_MINIMAL).json()
    has_keys(d, {"conditions", "conditions_latex"})
    (cond,) = d["conditions"]
    c = sp.sympify(cond, locals=NAMES)
    boundary = lam * theta - 2 * (gamma + mu) ** 2 / gamma
    for vals in ({mu: 1, gamma: 2, lam: 1, theta: 8}, {mu: 1, gamma: 2, lam: 1, theta: 10}):
        assert bool(c.subs(vals)) is bool(boundary.subs(vals) < 0)


# ================================================================= issue 20: maps


def test_issue20_map():
    d = cli(*MAP).json()
    has_keys(d, {"curves", "special_points", "regions"})
    for curve in d["curves"]:
        assert curve["points"] and all("omega" in p for p in curve["points"])
    turning = [p for p in d["special_points"] if "turning" in p["type"]]
    assert turning
    # D* = L/mu, theta* = mu sec^(L+1)(pi/(L+1))/lam at L = 3
    assert num(turning[0]["x"]) == pytest.approx(3, rel=1e-12)
    assert num(turning[0]["y"]) == pytest.approx(1 / math.cos(math.pi / 4) ** 4, rel=1e-12)
    for region in d["regions"]:
        x, y = (float(Fraction(region["point"][k])) for k in ("x", "y"))
        eig = np.linalg.eigvals(difference_jacobian(3, 1, 1, y, 3 / x))
        assert region["unstable_roots"] == int(np.sum(eig.real > 0))
    import symdelay

    assert callable(symdelay.stability_map)


def test_issue20_explore_port_in_use():
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        cmd = [sys.executable, "-m", "symdelay", "explore", "--port", str(port)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env=ENV, cwd=ROOT, timeout=120)
        run = Run(tuple(cmd[3:]), proc.returncode, proc.stdout, proc.stderr)
    one_line_refusal(run)


# ================================================================= issue 21: no code from a file


def test_issue21_build_model_unknown_option_is_value_error():
    import symdelay

    with pytest.raises(ValueError) as info:
        symdelay.build_model("erlang", frob=1)
    assert isinstance(info.value, symdelay.SymdelayInputError)


def test_issue21_sweep_file_cannot_name_code(tmp_path):
    sentinel = tmp_path / "ran"
    spec = _write_spec(
        tmp_path,
        f'name = "hostile"\nanalysis = "os:system"\n[parameters]\ncommand = "touch {sentinel}"\n'
        "[grid]\nx = [1]\n",
    )
    run = cli("sweep", "run", str(spec), "--out", str(tmp_path / "h.parquet"), "--serial")
    one_line_refusal(run)
    assert not sentinel.exists()


def test_issue21_variance_with_kappa_is_a_record():
    from symdelay.core.result import Result
    from symdelay.founding import variance

    res = variance(L=2, mu=1, lam=1, theta=5, D=1, kappa=0.5)
    assert isinstance(res, Result)
    assert num(res.to_json()["var_x_over_eta"]) == pytest.approx(
        lna_variance(2, 1, 1, 5, 2, [0.5, 0.5]), rel=1e-10
    )


# ================================================================= issue 22: sweeps of any model


def test_issue22_model_stability_sweep(tmp_path):
    import pandas as pd

    (tmp_path / "erlang2.toml").write_text((ROOT / "examples/models/erlang2.toml").read_text())
    spec = _write_spec(
        tmp_path,
        'name = "any model"\nanalysis = "model-stability"\n[parameters]\n'
        'model_file = "erlang2.toml"\nmu = 1\nlam = 1\ndps = 15\n[grid]\ntheta = [1, 12]\n'
        "D = [1]\n",
    )
    out = tmp_path / "m.parquet"
    run = cli("sweep", "run", str(spec), "--out", str(out), "--serial")
    assert run.rc == 0, run.err
    table = pd.read_parquet(out)
    assert len(table) == 2
    for _, row in table.iterrows():
        eig = np.linalg.eigvals(difference_jacobian(2, 1, 1, float(row["theta"]), 2.0))
        assert int(row["unstable_count"]) == int(np.sum(eig.real > 0))


# ================================================================= issue 36: round two


def test_issue36_marginal_verdict():
    d = cli(*MARGINAL).json()
    has_keys(d, {"verdict", "stable"})
    # theta_c = 2 (gamma + mu)^2 / (gamma lam) = 9 at L = 2, mu = lam = D = 1: the pair +-i sqrt(8)
    eig = np.linalg.eigvals(difference_jacobian(2, 1, 1, 9, 2))
    assert np.min(np.abs(eig - 1j * math.sqrt(8))) < 1e-9
    assert d["verdict"] == "marginal" and d["stable"] is False


def test_issue36_refutation_carries_its_counterexample():
    d = cli(*VERIFY_REFUTED).json()
    assert d["directions"]["stability"]["claim_implies_target"] == "refuted"
    point = d["counterexamples"]["stability"]["claim_implies_target"]
    assert point is not None
    # the L = 4 threshold is 80 sqrt(5) - 176 < 2.8854382 (issue 36): the point lies between
    v = {k: Fraction(x) for k, x in point.items()}
    assert v["lam"] * v["theta"] < Fraction("2.8854382") * v["mu"]  # the claim holds there
    lam_theta_c = 80 * sp.sqrt(5) - 176  # mu = gamma: the exact L = 4 threshold
    assert v["mu"] == v["gamma"] and sp.Rational(v["lam"] * v["theta"] / v["mu"]) > lam_theta_c
    J = difference_jacobian(4, *(float(v[k]) for k in ("mu", "lam", "theta", "gamma")))
    assert abscissa(J) > 0  # unstable: the claim does not imply stability


def test_issue36_theta_zero_answered():
    d = cli(*ROOTS_THETA0).json()
    has_keys(d, {"roots", "spectral_abscissa", "unstable_count"})
    assert num(d["spectral_abscissa"]) == pytest.approx(-1, abs=1e-40)  # -mu; -gamma twice
    values = {(num(x["re"]), num(x["im"])) for x in d["roots"]}
    assert values == {(-1.0, 0.0), (-2.0, 0.0)}
    assert d["unstable_count"] == 0


def test_issue36_failed_sweep_tasks_exit_nonzero(tmp_path):
    # issue 36: a spec whose tasks all fail must not end with exit 0
    spec = _write_spec(tmp_path, ROOTS_SPEC.replace("mu = 1", "mu = \"__import__('os')\""))
    out = tmp_path / "f.parquet"
    run = cli("sweep", "run", str(spec), "--out", str(out), "--serial")
    assert run.rc in (1, 2) and "Traceback" not in run.err, (run.rc, run.err[-300:])
