"""Experiment (not a speed test): the fluid limit holds at rate eta^(-1/2).

For L = 1 and 2 and eta in {10^2, 10^3, 10^4, 10^5}: 20 replications each of the exact
simulation from the paper's initial state (Q1 = 0, Q2 = eta, Z = 0) on [0, 20]; the sup over
the grid (dt = 0.05) and over all coordinates of |scaled path - fluid solution|; the log-log
slope of the mean distance with a bootstrap 95% interval. Writes
benchmarks/results/fluid_limit.txt.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from tqdm import tqdm

from symdelay.models.erlang.stochastic.convergence import fluid_limit_study

OUT = Path(__file__).parent / "results" / "fluid_limit.txt"
PARAMS = {"mu": 1, "lam": 1, "theta": 10, "D": 1}
ETAS = (10**2, 10**3, 10**4, 10**5)
REPS = 20


def main() -> None:
    t0 = time.perf_counter()
    with tqdm(total=2 * len(ETAS) * REPS, file=sys.stderr, desc="fluid limit") as bar:
        study = fluid_limit_study(
            Ls=(1, 2), etas=ETAS, replications=REPS, **PARAMS, T=20, dt=0.05, seed=2024,
            n_boot=4000, progress=bar.update,
        )  # fmt: skip
    wall = time.perf_counter() - t0
    lines = [
        "fluid limit: sup_t max_k |S_k(t)/eta - s_k(t)| on [0, 20], grid dt = 0.05",
        f"parameters: mu={PARAMS['mu']} lam={PARAMS['lam']} theta={PARAMS['theta']} "
        f"D={PARAMS['D']}; start Q1=0, Q2=eta, Z=0; {REPS} replications per cell",
        "(L=1: damped; L=2: lam*theta=10 > 2(mu+gamma)^2/gamma=9, unstable -> limit cycle)",
        "",
        f"{'L':>2} {'eta':>8} {'mean sup distance':>18} {'std error':>10} {'sqrt(eta)*mean':>15}",
    ]
    for L, eta, m, se in study.rows():
        lines.append(f"{L:>2} {eta:>8} {m:>18.5f} {se:>10.5f} {m * eta**0.5:>15.3f}")
    lines.append("")
    for L, (s, (lo, hi)) in study.slopes.items():
        lines.append(
            f"L={L}: log-log slope {s:.3f}, bootstrap 95% interval [{lo:.3f}, {hi:.3f}] "
            f"(theory -1/2: {'inside' if lo <= -0.5 <= hi else 'outside'})"
        )
    for L, (s, (lo, hi)) in study.slopes_without_smallest.items():
        lines.append(
            f"L={L}, fit on eta >= {ETAS[1]}: slope {s:.3f}, interval [{lo:.3f}, {hi:.3f}] "
            f"(theory -1/2: {'inside' if lo <= -0.5 <= hi else 'outside'})"
        )
    lines.append(f"events simulated: {study.events:,}; wall time {wall:.1f} s")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
