"""Benchmark: a 1000-point theta_c(D) curve at 15 digits, Hopf phase solver vs eigenvalue bisection.

The phase solver is the entry :func:`symdelay.analysis.critical.critical` with
``float64=True`` (vectorised safeguarded Newton on the derived phase, float64, returning the
one record) and the public :func:`symdelay.founding.critical_theta` at ``dps=15`` (same path plus exact parsing of every D and mpmath result objects). The peer is
bisection in theta on the sign of the spectral abscissa of the numeric (L+1)x(L+1)
difference Jacobian (``numpy.linalg.eigvals``), bracketed in [0, 2 theta_hi] and run to the
same relative tolerance (1e-14) — the generic method a user would otherwise write.

Run:  .venv/bin/python benchmarks/bench_critical.py   (writes benchmarks/results/critical.txt)
"""

from __future__ import annotations

import platform
import sys
import time
from pathlib import Path

import numpy as np

from symdelay.analysis.critical import critical
from symdelay.models.erlang.founding import FoundingModel
from symdelay.models.erlang.hopf import critical_theta

N = 1000
D = np.logspace(-2, 2, N)
MU, LAM = 1.0, 1.0
RTOL = 1e-14
OUT = Path(__file__).parent / "results" / "critical.txt"


def jacobian(L, k, g):
    J = np.zeros((L + 1, L + 1))
    J[0, 0], J[0, L], J[1, 0] = -MU, g, -k
    idx = np.arange(1, L + 1)
    J[idx, idx] = -g
    J[idx[1:], idx[:-1]] = g
    return J


def abscissa(L, theta, Dv):
    return np.linalg.eigvals(jacobian(L, LAM * theta, L / Dv)).real.max()


def bisection_curve(L):
    """theta_c by bisection on the sign of the spectral abscissa, each D separately."""
    out = np.empty(N)
    for i, Dv in enumerate(D):
        lo, hi = 0.0, 1.0
        while abscissa(L, hi, Dv) < 0:
            hi *= 2
        while hi - lo > RTOL * hi:
            mid = 0.5 * (lo + hi)
            if abscissa(L, mid, Dv) < 0:
                lo = mid
            else:
                hi = mid
        out[i] = 0.5 * (lo + hi)
    return out


def float_curve(L, D_values):
    """The entry's float64 run: ``(theta_c, omega)`` arrays."""
    _, th, om = critical(FoundingModel(L=L, mu=MU, lam=LAM), at=D_values, float64=True).arrays()
    return th, om


def best_of(fn, repeat):
    best, value = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - t0)
    return best, value


def main() -> int:
    rows = []
    for L in (3, 10):
        float_curve(L, D[:4])  # NumPy imported
        critical_theta(L, MU, LAM, [1.0])
        t_fast, (th, _) = best_of(lambda L=L: float_curve(L, D), 5)
        t_api, curve = best_of(lambda L=L: critical_theta(L, MU, LAM, list(D), dps=15), 3)
        th_api = np.array([float(p.theta_c) for p in curve.points])
        t_bis, th_bis = best_of(lambda L=L: bisection_curve(L), 1)
        agree = np.max(np.abs(th / th_bis - 1))
        agree_api = np.max(np.abs(th_api / th - 1))
        rows.append((L, t_fast, t_api, t_bis, t_bis / t_fast, t_bis / t_api, agree, agree_api))
    lines = [
        "bench_critical: 1000-point theta_c(D) curve, D log-spaced in [0.01, 100], mu = lam = 1,",
        "15 significant digits; peer: bisection on numpy eigenvalues of the difference Jacobian",
        f"(spectral-abscissa sign, relative tolerance {RTOL:g}). Best of 5 / 3 / 1 runs.",
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}",
        "",
        f"{'L':>3} {'phase Newton s':>15} {'critical_theta s':>17} {'bisection s':>12} "
        f"{'ratio(Newton)':>14} {'ratio(API)':>11} {'max rel diff':>13} {'API vs Newton':>14}",
    ]
    for L, tf, ta, tb, rf, ra, ag, aa in rows:
        lines.append(
            f"{L:>3} {tf:>15.4f} {ta:>17.4f} {tb:>12.2f} {rf:>14.0f} {ra:>11.0f} "
            f"{ag:>13.2e} {aa:>14.2e}"
        )
    ok = all(r[1] < 1 and r[2] < 1 for r in rows)
    lines += ["", f"goal (< 1 s per 1000-point curve at 15 digits): {'met' if ok else 'MISSED'}"]
    text = "\n".join(lines) + "\n"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(text)
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
