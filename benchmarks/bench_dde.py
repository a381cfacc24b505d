"""The delayed-information DDE: method of steps vs JiTCDDE, and action vs information delay.

1. Accuracy and wall time of ``DelayedInformationModel.integrate`` (method of steps,
   ``solve_ivp`` DOP853 per interval [kD, (k+1)D]) and of the peer JiTCDDE (compiled C,
   Bogacki--Shampine, optional) on mu = lam = D = 1, theta = 4 (past the Hopf point:
   a limit cycle), history (0, 1), T = 50, grid dt = 0.1; error = max over the grid of
   |q - q_ref|, reference = method of steps at rtol 1e-13, atol 1e-15.
2. ``compare_with_action_delay``: sup_t |x_dde - x_L| on [0, 10] at theta = 2 (below every
   Hopf point) for the matched and the empty (paper's) delay pipeline, and the limit-cycle
   amplitudes at theta = 4 on [0, 150] (last quarter). Writes benchmarks/results/dde.txt.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from symdelay.models.dde import compare_with_action_delay, model

OUT = Path(__file__).parent / "results" / "dde.txt"


def timed(f, repeat=3):
    best, out = np.inf, None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = f()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    t_start = time.perf_counter()
    m = model(mu=1, lam=1, theta=4, D=1)
    ref = m.integrate(50, dt=0.1, rtol=1e-13, atol=1e-15)
    lines = [
        "delayed-information DDE, mu=lam=D=1, theta=4, history (0, 1), T=50, grid dt=0.1",
        "error = max_grid |q - q_ref|, q_ref = method of steps at rtol 1e-13, atol 1e-15",
        "",
        f"{'solver':<10} {'rtol':>7} {'atol':>7} {'best of 3 (s)':>14} {'error':>10}",
    ]
    for rtol, atol in ((1e-8, 1e-10), (1e-10, 1e-12), (1e-12, 1e-14)):
        wall, res = timed(
            lambda rtol=rtol, atol=atol: m.integrate(50, dt=0.1, rtol=rtol, atol=atol)
        )
        err = max(np.max(np.abs(res["q1"] - ref["q1"])), np.max(np.abs(res["q2"] - ref["q2"])))
        lines.append(f"{'steps':<10} {rtol:>7.0e} {atol:>7.0e} {wall:>14.3f} {err:>10.2e}")
    try:
        import jitcdde  # noqa: F401

        have_jit = True
    except ImportError:
        have_jit = False
        lines.append("jitcdde    not installed (pip install jitcdde)")
    if have_jit:
        for rtol, atol in ((1e-6, 1e-8), (1e-8, 1e-10), (1e-10, 1e-12)):
            wall, res = timed(
                lambda rtol=rtol, atol=atol: m.integrate(
                    50, dt=0.1, solver="jitcdde", rtol=rtol, atol=atol
                )
            )
            err = max(np.max(np.abs(res["q1"] - ref["q1"])), np.max(np.abs(res["q2"] - ref["q2"])))
            lines.append(f"{'jitcdde':<10} {rtol:>7.0e} {atol:>7.0e} {wall:>14.3f} {err:>10.2e}")
        lines.append("(jitcdde times include generating and compiling its C code on every call)")

    Ls = (1, 2, 4, 8, 16, 32, 64)
    lines += [
        "",
        "action delay (Erlang(L), mean D) vs information delay (the DDE): x = q1 - q2",
        "mu=lam=D=1, theta=2 (DDE Hopf point 2.2618), q(0) = (0, 1), T=10, grid dt=0.01",
        "matched: pipeline z_{i,l}(0) = 2 lam p_i(q(0)) D/L; empty: the paper's z = 0",
        "",
        f"{'L':>3} {'sup matched':>12} {'L * sup':>8} {'sup empty':>10} {'theta_c(L)':>11}",
    ]
    mt = compare_with_action_delay(Ls, 1, 1, 2, 1, T=10, dt=0.01)
    em = compare_with_action_delay(Ls, 1, 1, 2, 1, T=10, dt=0.01, pipeline="empty")
    for L, d, e, tc in zip(Ls, mt.sup_distance, em.sup_distance, mt.theta_c):
        lines.append(f"{L:>3} {d:>12.5f} {L * d:>8.4f} {e:>10.5f} {tc:>11.4f}")
    Lc = (4, 8, 16, 32)
    cyc = compare_with_action_delay(Lc, 1, 1, 4, 1, T=150, dt=0.01)
    lines += [
        "",
        "limit cycles at theta=4, T=150: amplitude = (max x - min x)/2 on [112.5, 150]",
        f"{'L':>3} {'amplitude':>10} {'DDE - amplitude':>16} {'theta_c(L)':>11}",
    ]
    for L, a, tc in zip(Lc, cyc.amplitude, cyc.theta_c):
        note = "" if tc < 4 else "  (stable: decaying remainder)"
        lines.append(f"{L:>3} {a:>10.5f} {cyc.amplitude_dde - a:>16.5f} {tc:>11.4f}{note}")
    lines.append(f"DDE {cyc.amplitude_dde:>10.5f} {'':>16} {cyc.theta_c_dde:>11.4f}")
    lines.append(f"wall time {time.perf_counter() - t_start:.1f} s")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
