"""Benchmark: kappa* and optimal weights for routing that counts jobs in flight, side by side
with a brute-force scan on numpy eigenvalues.

symdelay: ``kappa_star(L, mu=1, D=1, dps=15)`` (exact crossing curve, Arb-certified) and
``optimize_weights`` for the linear criteria (decay, tolerance-linear, variance).
Peer: what a user writes without it — for kappa*, bisection in kappa on "is any theta on a
log grid of 400 points in [1e-2, 1e6] unstable?" (numpy eigenvalues of the (L+1)x(L+1)
difference Jacobian), to a relative tolerance of 1e-6; for the optimum, the criterion on a
uniform grid of 2001 weights in [0, 2].

Run:  .venv/bin/python benchmarks/bench_inflight.py  (writes benchmarks/results/inflight.txt)
"""

from __future__ import annotations

import platform
import sys
import time
from pathlib import Path

import numpy as np

from symdelay.models.inflight.criteria import (
    MAXIMISE,
    criterion_value,
    optimize_weights,
    rates,
)
from symdelay.models.inflight.curve import kappa_star

OUT = Path(__file__).parent / "results" / "inflight.txt"
THETAS = np.geomspace(1e-2, 1e6, 400)


def difference_jacobian_numeric(p, kappa):
    """The (L+1)x(L+1) Jacobian of the imbalances (x, w_1..w_L), written out by hand as a
    user without symdelay would (the peer's own)."""
    n, g, a = p.L, p.gamma, p.lam * p.theta
    J = np.zeros((n + 1, n + 1))
    J[0, 0], J[0, n] = -p.mu, g
    J[1, 0] = -a
    J[1, 1:] = -a * kappa
    J[1, 1] -= g
    for i in range(2, n + 1):
        J[i, i - 1], J[i, i] = g, -g
    return J


def brute_kappa_star(L, D=1.0):
    def unstable(k):
        for th in THETAS:
            J = difference_jacobian_numeric(rates(L, 1, 1, th, D), k)
            if np.max(np.linalg.eigvals(J).real) > 0:
                return True
        return False

    lo, hi = 0.0, 1.0
    while hi - lo > 1e-6 * hi:
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if unstable(mid) else (lo, mid)
    return hi


def brute_optimum(L, theta, criterion):
    p = rates(L, 1, 1, theta, 1)
    ks = np.linspace(0, 2, 2001)
    vals = [criterion_value(criterion, p, k) for k in ks]
    return ks[int(np.argmax(vals) if MAXIMISE[criterion] else np.argmin(vals))]


def main():
    lines = [f"# {platform.platform()}, Python {sys.version.split()[0]}", ""]
    lines.append("kappa* (mu D = 1, 15 digits) vs brute-force bisection on numpy eigenvalues")
    lines.append(f"{'L':>4} {'symdelay s':>11} {'kappa*':>20} {'brute s':>9} {'brute':>12} ratio")
    for L in (2, 3, 5, 10, 20, 50):
        t0 = time.perf_counter()
        ks = kappa_star(L, 1, 1, dps=15)
        t1 = time.perf_counter()
        bk = brute_kappa_star(L) if L <= 20 else float("nan")
        t2 = time.perf_counter()
        ratio = (t2 - t1) / (t1 - t0) if L <= 20 else float("nan")
        lines.append(
            f"{L:>4} {t1 - t0:>11.4f} {float(ks.kappa_star):>20.15f} "
            f"{(t2 - t1) if L <= 20 else float('nan'):>9.2f} {bk:>12.8f} {ratio:>6.0f}x"
        )
        print(lines[-1], flush=True)
    lines.append("")
    lines.append("optimal single weight (L = 2, theta = 5) vs a 2001-point grid")
    for c in ("decay", "tolerance-linear", "variance"):
        t0 = time.perf_counter()
        res = optimize_weights(2, 1, 1, 5, 1, c)
        t1 = time.perf_counter()
        bk = brute_optimum(2, 5, c)
        t2 = time.perf_counter()
        lines.append(
            f"{c:>17}: symdelay {t1 - t0:.3f} s kappa = {res.kappa:.6f}; grid {t2 - t1:.3f} s "
            f"kappa = {bk:.4f}; ratio {(t2 - t1) / (t1 - t0):.0f}x"
        )
        print(lines[-1], flush=True)
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
