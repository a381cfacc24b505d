"""``symdelay verify``: what it prints and its exit status (issue 35, item 4).

Exit 0: every direction proven or refuted by an exact counterexample; 3: an answer from a
search (a direction with no counterexample found); 2: bad input. Only the evidence that
decided is printed: no search line under a proven verdict, no note about an L it is not.
The proven directions are cross-checked here at exact random points against an exact
stability oracle that ``verify`` does not use (SymPy's ``Poly.count_roots`` of the
Hurwitz-shifted polynomial is not it: the oracle is the sign pattern of the exact
Routh–Hurwitz determinants computed from scratch by SymPy matrices).
"""

from __future__ import annotations

import random
import subprocess
import sys
from fractions import Fraction

import pytest
import sympy as sp

from symdelay.core.errors import SymdelayInputError
from symdelay.models.erlang.claims import verify


def _cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "symdelay", "verify", *args], capture_output=True, text=True
    )


def test_both_directions_proven_no_search_exit_0():
    proc = _cli("--L", "2", "--claim", "lam*theta < 2*(gamma+mu)**2/gamma")
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "relation to stability: equivalent   (proven)" in out
    assert "searched" not in out and not proc.stderr
    # only what applies to L = 2: no L = 1 argument, no L > 8 bound
    assert "L = 1" not in out and "L > 8" not in out and "at L = 2" in out


def test_proven_verdict_prints_no_search_line():
    proc = _cli("--L", "3", "--claim", "lam*theta > mu")
    assert proc.returncode == 0, proc.stderr
    assert "neither   (proven)" in proc.stdout and "searched" not in proc.stdout


def test_search_answer_exit_3_labelled():
    proc = _cli(
        "--model-file", "examples/models/inflight_erlang1.toml", "--claim", "lam*theta < mu*exp(-1)"
    )
    assert proc.returncode == 3, proc.stderr
    assert "no counterexample found (search: not proven)" in proc.stdout
    assert "searched: " in proc.stdout  # the search is the evidence: it is shown
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1 and "answer from a search, not a proof" in err
    assert "exit 3" in err


def test_help_documents_exit_codes():
    proc = _cli("--help")
    text = " ".join(proc.stdout.split())
    assert "3 an answer from a search, not a proof" in text and "2 bad input" in text


@pytest.mark.parametrize(
    ("claim", "fix"),
    [
        ("lam*theta < 2(gamma+mu)^2/gamma", "write 2*(gamma + mu)"),
        ("lam*theta < (mu+1)(gamma+1)", "write (mu + 1)*(gamma + 1)"),
        ("lam*theta < mu(gamma+1)", "write mu*(gamma + 1)"),
    ],
)
def test_missing_star_is_named(claim, fix):
    proc = _cli("--L", "2", "--claim", claim)
    assert proc.returncode == 2
    err = proc.stderr.strip()
    assert len(err.splitlines()) == 1 and "missing '*'" in err and fix in err
    assert "attribute access" not in err
    with pytest.raises(SymdelayInputError, match=r"missing '\*'"):
        verify(2, claim)


def test_unknown_function_still_named():
    with pytest.raises(SymdelayInputError, match="'foo'"):
        verify(2, "lam*theta < foo(mu)")


# ------------------------------------------------------------------ cross-check
def _stable_oracle(L: int, m, g, k) -> bool:
    """Every root of (r + m)(r + g)^L + k g^L in Re r < 0: all Hurwitz determinants of the
    expanded polynomial positive (SymPy matrices, exact rationals)."""
    r = sp.Symbol("r")
    c = sp.Poly(sp.expand((r + m) * (r + g) ** L + k * g**L), r).all_coeffs()
    n = len(c) - 1

    def a(i):
        return c[i] if 0 <= i <= n else 0

    H = sp.Matrix(n, n, lambda i, j: a(2 * j - i + 1))
    return all(H[:p, :p].det() > 0 for p in range(1, n + 1))


@pytest.mark.parametrize(
    ("L", "claim", "holds"),
    [
        (2, "lam*theta < 2*(gamma+mu)**2/gamma", lambda m, g, k: k < 2 * (g + m) ** 2 / g),
        (2, "lam*theta < mu", lambda m, g, k: k < m),
        (3, "lam*theta < 4*mu", lambda m, g, k: k < 4 * m),
        (1, "lam*theta < 5*mu", lambda m, g, k: k < 5 * m),
    ],
)
def test_proven_directions_cross_checked_at_random_points(L, claim, holds):
    """Each proven direction holds at exact random points (an independent stability
    oracle); a counterexample is where it says."""
    res = verify(L, claim)
    dirs = res.directions["stability"]
    rng = random.Random(35 + L)
    checked = 0
    for _ in range(60):
        m = Fraction(rng.randint(1, 40), rng.randint(1, 40))
        g = Fraction(rng.randint(1, 40), rng.randint(1, 40))
        k = m * Fraction(rng.randint(0, 80), 40) * rng.choice((1, 10))  # k/mu in [0, 20]
        stable, claim_true = _stable_oracle(L, m, g, k), holds(m, g, k)
        if dirs["claim_implies_target"] == "proven" and claim_true:
            assert stable, (m, g, k)
            checked += 1
        if dirs["target_implies_claim"] == "proven" and stable:
            assert claim_true, (m, g, k)
            checked += 1
    assert checked > 10
    for d, pt in res.counterexamples["stability"].items():
        if pt is None:
            continue
        v = {n: Fraction(x) for n, x in pt.items()}
        m, g, k = v["mu"], v["gamma"], v["lam"] * v["theta"]
        if d == "claim_implies_target":
            assert holds(m, g, k) and not _stable_oracle(L, m, g, k)
        else:
            assert not holds(m, g, k) and _stable_oracle(L, m, g, k)
