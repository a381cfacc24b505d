"""Two-lag stability crossing curves against a grid of rightmost roots, one run.

The difference mode of examples/models/two_lag_mixture.toml (mu = 1, lam = 1, theta = 3,
w = 1/2): F(r) = r + 1 + (3/2) e^{-r D1} + (3/2) e^{-r D2}, on the box D1, D2 in [0.05, 6].

* curves: :func:`symdelay.analysis.lagmap.two_lag_curves` (Gu, Niculescu & Chen's closed
  form, every point in Arb at an exact omega, 15 digits), best of 3;
* the grid peer: the certified rightmost root (:func:`symdelay.analysis.delayroots.mode_roots`,
  ``rightmost=1``: Newton in Arb, the contraction proof and the argument-principle proof that
  none is missing) at every point of a 400 x 400 grid. 160000 points at ~0.1 s each do not
  fit a benchmark run on a shared machine: the time is measured on SAMPLE points spread
  over the grid and multiplied by 160000 / SAMPLE (stated in the results);
* an uncertified peer: the rightmost eigenvalue of the spectral collocation at the grid's
  points (measured on COLLOC_SAMPLE points, extrapolated the same way).

The curves are checked against direct roots: at every 25th point mpmath.findroot, started
at i omega, converges to i omega (F(i omega) = 0 at the computed (D1, D2)).
Writes benchmarks/results/lagmap.txt.
"""

from __future__ import annotations

import time
from pathlib import Path

import mpmath
import sympy as sp

from symdelay.analysis.collocation import collocation_eigenvalues
from symdelay.analysis.delayroots import mode_roots
from symdelay.analysis.lagmap import two_lag_curves
from symdelay.core.symbols import r

OUT = Path(__file__).parent / "results" / "lagmap.txt"
GRID = 400
SAMPLE = 24
COLLOC_SAMPLE = 200
LO, HI = sp.Rational(1, 20), sp.Integer(6)
A = sp.Rational(3, 2)


class _Lag:
    def __init__(self, name, value):
        self.name, self.kind, self.args = name, "constant", {"value": value}


class _Term:
    def __init__(self, matrix, lag):
        self.matrix, self.lags, self.derivative = matrix, (lag.name,), False
        self.kernel = sp.exp(-r * lag.args["value"])


class _Lin:
    def __init__(self, A0, terms):
        self.A0, self.terms = A0, terms


def linearisation(d1, d2):
    lags = {"tau1": _Lag("tau1", d1), "tau2": _Lag("tau2", d2)}
    M = sp.ImmutableMatrix([[-A]])
    terms = (_Term(M, lags["tau1"]), _Term(M, lags["tau2"]))
    return _Lin(sp.ImmutableMatrix([[-1]]), terms), lags


def grid_points(n):
    """``n`` points of the 400 x 400 grid, spread over it (a fixed stride)."""
    step = (GRID * GRID) // n
    out = []
    for k in range(n):
        idx = k * step + step // 2
        i, j = divmod(idx, GRID)
        x = LO + (HI - LO) * sp.Rational(2 * i + 1, 2 * GRID)
        y = LO + (HI - LO) * sp.Rational(2 * j + 1, 2 * GRID)
        out.append((x, y))
    return out


def main() -> None:
    t_start = time.perf_counter()
    box = (LO, HI, LO, HI)
    best, curves = float("inf"), None
    for _ in range(3):
        t0 = time.perf_counter()
        curves = two_lag_curves(r + 1, A + 0 * r, A + 0 * r, sp.Integer(1), sp.Integer(1),
                                box, r, 15)  # fmt: skip
        best = min(best, time.perf_counter() - t0)
    n_points = sum(len(c.points) for c in curves)
    # direct root check of the curves
    checked, worst = 0, mpmath.mpf(0)
    with mpmath.workdps(30):
        for c in curves:
            for x, y, w in c.points[::25]:
                f = lambda z, x=x, y=y: z + 1 + 1.5 * mpmath.exp(-z * x) + 1.5 * mpmath.exp(-z * y)  # noqa: E731
                z = mpmath.findroot(f, mpmath.mpc(0, w))
                worst = max(worst, abs(z - mpmath.mpc(0, w)))
                checked += 1
    # the certified grid peer, sampled
    pts = grid_points(SAMPLE)
    t0 = time.perf_counter()
    abscissae = []
    for x, y in pts:
        lin, lags = linearisation(x, y)
        res = mode_roots(lin, lags, rightmost=1, dps=15)
        abscissae.append(float(res.roots[0][0].real))
    per_cert = (time.perf_counter() - t0) / SAMPLE
    # the uncertified collocation peer, sampled
    pts_c = grid_points(COLLOC_SAMPLE)
    t0 = time.perf_counter()
    for x, y in pts_c:
        lin, lags = linearisation(x, y)
        collocation_eigenvalues(lin, lags).eigenvalues[0]
    per_colloc = (time.perf_counter() - t0) / COLLOC_SAMPLE
    grid_cert = per_cert * GRID * GRID
    grid_colloc = per_colloc * GRID * GRID
    lines = [
        "two-lag stability crossing curves vs a 400 x 400 grid of rightmost roots (seconds)",
        "F(r) = r + 1 + 3/2 e^{-r D1} + 3/2 e^{-r D2}, D1, D2 in [0.05, 6]",
        "",
        f"crossing curves (closed form, certified points, 15 digits), best of 3: {best:.3f} s",
        f"  {len(curves)} curves, {n_points} certified points; direct root check at "
        f"{checked} points (mpmath.findroot from i omega): max |r - i omega| = "
        f"{mpmath.nstr(worst, 3)}",
        f"certified rightmost root per grid point: {per_cert:.4f} s (mean of {SAMPLE} points "
        "spread over the grid)",
        f"  400 x 400 grid, extrapolated: {grid_cert:.0f} s   ratio grid / curves: "
        f"{grid_cert / best:.0f}x",
        f"uncertified collocation per grid point: {per_colloc:.5f} s (mean of {COLLOC_SAMPLE})",
        f"  400 x 400 grid, extrapolated: {grid_colloc:.0f} s   ratio grid / curves: "
        f"{grid_colloc / best:.0f}x",
        "",
        "goal: curves >= 50x faster than the grid of rightmost roots: "
        + ("met" if grid_cert / best >= 50 else "NOT met"),
        f"wall time {time.perf_counter() - t_start:.1f} s",
    ]
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
