"""Limit cycles: Newton-shooting / collocation against brute-force long integration.

1. A 100-point continuation of the L = 2 cycle (mu = lam = D = 1) from 1.01 theta_c to
   20 theta_c (goal < 10 s), and one L = 10 cycle (goal < 1 s), cold (normal form and
   field set up included) and warm.
2. The peer: brute-force long integration of the same ODE (SciPy DOP853, the same
   tolerances), from near the equilibrium, period by period, until the amplitude of the
   last period is within ``tol`` of the shooting cycle's (the amplitude accuracy of the
   shooting, estimated against a run at a 100x tighter tolerance, floored at 1e-9
   relative). Ratio = brute force /
   shooting, side by side in one run. Same for the DDE (Fourier collocation vs the method
   of steps of ``DelayedInformationModel.integrate``).
Writes benchmarks/results/nonlinear.txt.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import minimize_scalar

import symdelay.models.erlang.nonlinear.cycles as cyc_mod
from symdelay.models.dde import model as dde_model
from symdelay.models.erlang.nonlinear import difference_field, limit_cycle, normal_form

OUT = Path(__file__).parent / "results" / "nonlinear.txt"


def timed(f, repeat=3):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def _half_ptp(f, a, b):
    """Half the peak-to-peak of ``f`` on ``[a, b]``: grid, then bounded refinement."""
    tt = np.linspace(a, b, 2001)
    x = f(tt)
    out = []
    for sign in (1, -1):
        k = int(np.argmax(sign * x))
        lo, hi = tt[max(k - 1, 0)], tt[min(k + 1, len(tt) - 1)]
        r = minimize_scalar(
            lambda s, sign=sign: -sign * f(np.array([s]))[0],
            bounds=(lo, hi),
            method="bounded",
            options={"xatol": 1e-12},
        )
        out.append(max(sign * x[k], -r.fun))
    return (out[0] + out[1]) / 2


def brute_force(L, theta, amp_ref, tol, period, max_periods=3000):
    """Integrate from x = 1e-3 (10 periods at a time) until the last period's half
    peak-to-peak is within ``tol`` of ``amp_ref``; returns (time needed, last amplitude)."""
    fld = difference_field(L, 1, 1, 1, theta)
    y = np.zeros(L + 1)
    y[0] = 1e-3
    t, chunk = 0.0, 10 * period

    def rhs(_t, v):
        return fld.f(v)

    amp = np.nan
    while t < max_periods * period:
        sol = solve_ivp(
            rhs,
            (t, t + chunk),
            y,
            method="DOP853",
            rtol=cyc_mod.RTOL,
            atol=cyc_mod.RTOL * 1e-3,
            dense_output=True,
        )
        amp = _half_ptp(lambda s, sol=sol: sol.sol(s)[0], t + chunk - period, t + chunk)
        y, t = sol.y[:, -1], t + chunk
        if abs(amp - amp_ref) < tol:
            return t, amp
    return np.inf, amp


def main() -> None:
    t_start = time.perf_counter()
    load = os.getloadavg()[0]
    lines = [
        "limit cycles of the difference system, mu = lam = D = 1",
        f"machine: {os.cpu_count()} cores, load average at start {load:.1f} (shared machine)",
        "",
    ]
    nf = normal_form(2, 1, 1, 1)
    th_c = float(nf.theta_c)
    s = np.linspace(np.sqrt(0.01 * th_c), np.sqrt(19 * th_c), 100)
    thetas = list(th_c + s * s)
    cold0 = time.perf_counter()
    fam = limit_cycle(2, 1, 1, 1, theta=thetas)
    cold = time.perf_counter() - cold0
    warm, fam = timed(lambda: limit_cycle(2, 1, 1, 1, theta=thetas), repeat=2)
    lines += [
        f"100-point continuation, L = 2, theta in [{thetas[0]:.4g}, {thetas[-1]:.4g}]:",
        f"  cold {cold:.2f} s, warm (best of 2) {warm:.2f} s  (goal < 10 s); "
        f"{len(fam.path)} cycles on the path, all stable: {all(c.stable for c in fam.path)}",
        f"  max trivial-multiplier error {max(c.trivial_error for c in fam.path):.1e}",
    ]
    nf10 = normal_form(10, 1, 1, 1)
    th10 = 2 * float(nf10.theta_c)
    c0 = time.perf_counter()
    limit_cycle(10, 1, 1, 1, theta=th10)
    cold10 = time.perf_counter() - c0
    warm10, c10 = timed(lambda: limit_cycle(10, 1, 1, 1, theta=th10))
    lines += [
        f"one L = 10 cycle at theta = 2 theta_c = {th10:.5g}: cold {cold10:.2f} s, warm "
        f"(best of 3) {warm10:.2f} s  (goal < 1 s); amplitude {c10.amplitude_x:.10f}",
        "",
        "shooting vs brute-force long integration to the same amplitude accuracy",
        f"{'L':>3} {'theta/th_c':>10} {'shoot (s)':>10} {'tolerance':>10} {'brute (s)':>10} "
        f"{'t needed':>10} {'ratio':>8}",
    ]
    for L, ratio in ((2, 1.01), (2, 1.1), (2, 2.0), (2, 10.0), (5, 2.0)):
        nfL = normal_form(L, 1, 1, 1)
        th = ratio * float(nfL.theta_c)
        ws, c = timed(lambda th=th, L=L: limit_cycle(L, 1, 1, 1, theta=th), repeat=2)
        old = cyc_mod.RTOL
        cyc_mod.RTOL = old / 100
        try:
            ref = limit_cycle(L, 1, 1, 1, theta=th)
        finally:
            cyc_mod.RTOL = old
        err = abs(c.amplitude_x - ref.amplitude_x)
        tol = max(err, 1e-9 * ref.amplitude_x)
        t0 = time.perf_counter()
        t_need, _ = brute_force(L, th, ref.amplitude_x, tol, c.period)
        wb = time.perf_counter() - t0
        note = "" if np.isfinite(t_need) else "  (not reached in 3000 periods: ratio >=)"
        lines.append(
            f"{L:>3} {ratio:>10.2f} {ws:>10.3f} {tol:>10.1e} {wb:>10.3f} {t_need:>10.0f} "
            f"{wb / ws:>7.1f}x{note}"
        )
    # the DDE
    lines += ["", "DDE (L = inf): Fourier collocation vs method of steps (long integration)"]
    T_max = 1500.0
    th_dde = float(normal_form("inf", 1, 1, 1).theta_c)
    for th in (1.05 * th_dde, 3.0, 6.0):
        wc, c = timed(lambda th=th: limit_cycle("inf", 1, 1, 1, theta=th), repeat=2)
        tol = 1e-7
        m = dde_model(mu=1, lam=1, theta=th, D=1)
        t0 = time.perf_counter()
        res = m.integrate(T=T_max, history=(1.001, 0.999), dt=0.5, rtol=1e-11, atol=1e-13)
        wall = time.perf_counter() - t0
        t_need = np.inf
        P = c.period
        for end in np.arange(10 * P, T_max, 10 * P):
            amp = _half_ptp(lambda s, r=res: r.at(s)[:, r.states.index("x")], end - P, end)
            if abs(amp - c.amplitude_x) < tol:
                t_need = end
                break
        wb = wall * t_need / T_max
        lines.append(
            f"  theta = {th:.4g}: collocation {wc:.3f} s (amplitude {c.amplitude_x:.9f}, "
            f"{c.y0.size} nodes); method of steps reaches it within {tol:g} at t = "
            f"{t_need:.0f}: {wb:.2f} s ({wall:.2f} s for t <= {T_max:g}); ratio {wb / wc:.1f}x"
        )
    lines.append(f"wall time {time.perf_counter() - t_start:.1f} s")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
