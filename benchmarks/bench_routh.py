"""Routh–Hurwitz engine vs the SymPy baseline (SymPy 1.14 has no Routh–Hurwitz).

SymPy 1.14 has no ``Poly.hurwitz_conditions`` (checked below), so the baseline is the
Hurwitz determinants by ``Matrix.det`` (Berkowitz, then ``expand``), the standard way to get
the same conditions in SymPy. Both sides give expanded, exact polynomials; the benchmark
checks they agree. Results: ``benchmarks/results/routh.txt``.
"""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path

import sympy as sp

from symdelay.analysis.routh import hurwitz_matrix, routh_hurwitz
from symdelay.core.symbols import r
from symdelay.models.erlang.charpoly import characteristic_polynomial

OUT = Path(__file__).parent / "results" / "routh.txt"


def baseline(coeffs):
    H = hurwitz_matrix(coeffs)
    n = len(coeffs) - 1
    return [sp.expand(H[:k, :k].det(method="berkowitz")) for k in range(1, n)]


def timed(f, *args, repeat=1):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f(*args)
        best = min(best, time.perf_counter() - t0)
    return best, out


def large_polynomial(n_symbols=20, degree=8, seed=1):
    rng = random.Random(seed)
    syms = sp.symbols(f"x0:{n_symbols}")
    coeffs = [
        sum(sp.Rational(rng.randint(1, 9), rng.randint(1, 5)) * rng.choice(syms) for _ in range(2))
        for _ in range(degree + 1)
    ]
    s = sp.Symbol("s")
    return sum(c * s ** (degree - i) for i, c in enumerate(coeffs)), s


def main() -> None:
    has = hasattr(sp.Poly(r**2 + 1, r), "hurwitz_conditions")
    lines = [
        f"SymPy {sp.__version__}: Poly.hurwitz_conditions exists: {has}",
        "baseline: Hurwitz determinants Delta_1..Delta_(n-1) by Matrix.det(berkowitz) + expand",
        "",
        f"{'case':<34}{'symdelay s':>12}{'baseline s':>12}{'ratio':>8}{'agree':>7}",
    ]
    cases = [
        (f"action delay L={L} (deg {L + 1})", sp.expand(characteristic_polynomial(L)), r)
        for L in range(1, 9)
    ]
    cases.append(("degree 8, 20 symbols (x2 terms)", *large_polynomial()))
    for name, poly, var in cases:
        t_ours, res = timed(routh_hurwitz, poly, var, repeat=3)
        coeffs = sp.Poly(poly, var).all_coeffs()
        t_base, dets = timed(baseline, coeffs)
        n = len(coeffs) - 1
        agree = all(sp.expand(res.hurwitz_determinants[k] - dets[k]) == 0 for k in range(n - 1))
        lines.append(f"{name:<34}{t_ours:>12.4f}{t_base:>12.4f}{t_base / t_ours:>8.1f}{agree!s:>7}")
        print(lines[-1], flush=True)
    lines.append("")
    lines.append("other coefficient domains (ring chosen by the domain; signs proven with arb)")
    lines.append(f"{'case':<34}{'symdelay s':>12}{'baseline s':>12}{'ratio':>8}{'agree':>7}")
    s = sp.Symbol("s")
    K, a = sp.symbols("K a")
    others = [
        (
            "deg 6, sqrt(2), sqrt(3) (Q<a>)",
            sp.expand((s + sp.sqrt(2)) ** 3 * (s**3 + sp.sqrt(3) * s + 2)),
        ),
        ("deg 6, pi, E (Q[pi, E])", sp.expand((s + sp.pi) ** 3 * (s**3 + sp.E * s**2 + s + 1))),
        ("deg 6, sqrt(2)*K (Q<a>[K])", sp.expand((s + sp.sqrt(2) * K) ** 3 * (s**3 + K * s + 2))),
        ("deg 6, 1/a (Q(a), cleared)", sp.expand((s + 1 / a) ** 3 * (s**3 + s / a + 2))),
    ]
    for (
        name,
        poly,
    ) in others:
        t_ours, res = timed(routh_hurwitz, poly, s, repeat=3)
        t_base, dets = timed(baseline, list(res.coefficients))
        n = len(res.coefficients) - 1
        agree = all(sp.cancel(res.hurwitz_determinants[k] - dets[k]) == 0 for k in range(n - 1))
        lines.append(f"{name:<34}{t_ours:>12.4f}{t_base:>12.4f}{t_base / t_ours:>8.1f}{agree!s:>7}")
        print(lines[-1], flush=True)
    sys.path.insert(0, str(Path(__file__).parent.parent / "tests"))
    from test_routh_upstream import _issue_28010

    poly28010, _, _ = _issue_28010()
    t_ours, res = timed(routh_hurwitz, poly28010, s)
    lines.append(
        f"{'SymPy issue 28010 (24 symbols)':<34}{t_ours:>12.4f}{'-':>12}{'-':>8}{'-':>7}"
        "  (Q(x) coefficients; SymPy once hung on it)"
    )
    poly, var = large_polynomial(n_symbols=24)
    t0 = time.perf_counter()
    data = routh_hurwitz(poly, var).to_json()
    t_json = time.perf_counter() - t0
    lines.append("")
    lines.append(
        f"degree 8, 24 symbols: routh_hurwitz + to_json (CLI path) {t_json:.2f} s, "
        f"{len(str(data)) // 1000} kB of JSON"
    )
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
