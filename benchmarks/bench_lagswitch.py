"""Critical-lag curves of 1000 theta points (issue goal: < 1 s), side by side in one run.

1. r + mu + lam theta exp(-r tau) (Pender, Rand & Wesson; mu = lam = 1, theta in
   (1, 11]): the closed form tau_c = arccos(-mu/(lam theta)) / sqrt((lam theta)^2 - mu^2)
   vectorised in numpy, against the generic certified path
   (:func:`symdelay.analysis.lagswitch.critical_lag_curve`: per point exact factorisation,
   resultant Res_z, Arb isolation to 15 digits, direction proved), and their largest
   relative difference.
2. A 2 x 2 system with exp(-2 r tau): det([[r + 1/2, theta z^2], [-2, r + 1 + z]]), theta in
   (1/2, 3/2], the generic certified path (no closed form).
3. ``lag_switches`` (every switch, unbounded range) of Cooke & Grossman's
   r^2 + r/10 + 1 + exp(-r tau)/2 at 15 and 100 digits.
Writes benchmarks/results/lagswitch.txt.
"""

from __future__ import annotations

import os
import platform
import time
from pathlib import Path

import numpy as np
import sympy as sp

from symdelay.analysis.lagswitch import critical_lag_curve, lag_switches

OUT = Path(__file__).parent / "results" / "lagswitch.txt"
N = 1000


def timed(f, repeat=3):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def timed_cpu(f, repeat=3):
    """Best wall time of ``repeat`` runs, the CPU time of that run and of the first (cold)
    run's wall time: the machine is shared, so CPU time is stated beside the wall."""
    best, cpu, first, out = np.inf, None, None, None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        out = f()
        wall, c = time.perf_counter() - t0, time.process_time() - c0
        first = wall if first is None else first
        if wall < best:
            best, cpu = wall, c
    return best, cpu, first, out


def main() -> int:
    r, tau, th = sp.symbols("r tau theta")
    z = sp.exp(-r * tau)
    thetas = [sp.Rational(k, 100) + 1 for k in range(1, N + 1)]  # (1, 11]
    x = np.array([float(t) for t in thetas])

    def closed():
        return np.arccos(-1.0 / x) / np.sqrt(x**2 - 1.0)

    t_closed, tc = timed(closed, 5)
    F = r + 1 + th * z
    t_gen, c_gen, f_gen, curve = timed_cpu(lambda: critical_lag_curve(F, tau, th, thetas))
    gen = np.array([float(t) for t, _w in curve])
    rel = float(np.max(np.abs(gen - tc) / tc))

    F2 = sp.expand(sp.Matrix([[r + sp.Rational(1, 2), th * z**2], [-2, r + 1 + z]]).det())
    thetas2 = [sp.Rational(1, 2) + sp.Rational(k, N) for k in range(1, N + 1)]
    t_2x2, c_2x2, f_2x2, curve2 = timed_cpu(lambda: critical_lag_curve(F2, tau, th, thetas2))
    finite = sum(1 for t, _w in curve2 if np.isfinite(float(t)))

    G = r**2 + r / 10 + 1 + z / 2
    t_s15, s15 = timed(lambda: lag_switches(G, tau, dps=15), 3)
    t_s100, _ = timed(lambda: lag_switches(G, tau, dps=100), 3)

    lines = [
        "critical-lag curves, 1000 theta points each (python "
        f"{platform.python_version()}, {platform.machine()})",
        "",
        "r + mu + lam theta exp(-r tau), mu = lam = 1, theta in (1, 11]:",
        f"  closed form (numpy, float64)           {t_closed * 1e3:9.3f} ms",
        f"  generic certified (15 digits)          {t_gen * 1e3:9.1f} ms "
        f"({t_gen / N * 1e3:.2f} ms per point; goal < 1000 ms: "
        f"{'met' if t_gen < 1 else 'NOT met'})",
        f"    CPU {c_gen * 1e3:.1f} ms; first run {f_gen * 1e3:.1f} ms wall",
        f"  largest relative difference            {rel:.1e}",
        "",
        "2 x 2, det([[r + 1/2, theta z^2], [-2, r + 1 + z]]), theta in (1/2, 3/2]:",
        f"  generic certified (15 digits)          {t_2x2 * 1e3:9.1f} ms "
        f"({t_2x2 / N * 1e3:.2f} ms per point; {finite} finite critical lags; goal < 1000 ms: "
        f"{'met' if t_2x2 < 1 else 'NOT met'})",
        f"    CPU {c_2x2 * 1e3:.1f} ms; first run {f_2x2 * 1e3:.1f} ms wall",
        "",
        "every switch of r^2 + r/10 + 1 + exp(-r tau)/2 (unbounded range, "
        f"{len(s15.switches)} switches, stability switches: {s15.stability_switches}):",
        f"  15 digits                              {t_s15 * 1e3:9.1f} ms",
        f"  100 digits                             {t_s100 * 1e3:9.1f} ms",
        "",
        "curves: best wall time of 3 runs (the CPU time of that run beside it); load average "
        "at end " + " ".join(f"{x:.2f}" for x in os.getloadavg()) + f" ({os.cpu_count()} cores)",
    ]
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
