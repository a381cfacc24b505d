"""A branch of 100 limit cycles of the founding model (``symdelay.cycles``: orthogonal
collocation, pseudo-arclength continuation, Floquet multipliers of every orbit with their
error bounds, special points tested on every step), at L = 2, 5, 10 (mu = lam = D = 1, theta
from the Hopf point up), in one process.

For each L: the whole call (the Hopf point from the exact window, its normal form in mpmath,
the generated NumPy code of the drift and its Jacobian, then the branch), best of 3, and the
branch alone (the continuation loop, as the record's ``seconds``); beside it, Newton shooting
(``limit_cycle``, DOP853 variational equations of the exact difference system) at the same
100 values of theta, the path there was before. The goal (issue 34): 100 cycles at L <= 10 in
under 5 s. Writes benchmarks/results/cycles.txt.
"""

from __future__ import annotations

import time
from pathlib import Path

OUT = Path(__file__).parent / "results" / "cycles.txt"
POINTS = 100


def main() -> None:
    from symdelay.analysis.continuation import cycles
    from symdelay.analysis.cycles import limit_cycle
    from symdelay.models import build_model

    lines = [
        f"branch of {POINTS} cycles, founding model, mu = lam = D = 1, theta from the Hopf "
        "point (20 intervals, degree 4, adapted mesh, max_step 0.5); best of 3, seconds",
        f"{'L':>3} {'states':>6} {'call':>8} {'cpu':>8} {'branch':>8} {'theta_end':>10} "
        f"{'shooting_same_thetas':>21}",
    ]
    for L in (2, 5, 10):
        best, loop, cpu, b = float("inf"), None, None, None
        for _ in range(3):
            model = build_model("erlang", L=L, mu=1, lam=1, D=1)  # nothing cached
            t0, c0 = time.perf_counter(), time.process_time()
            b = cycles(model, "theta", "1", "60", max_points=POINTS, max_step=0.5, force=True)
            dt = time.perf_counter() - t0
            if dt < best:
                best, loop, cpu = dt, b.seconds, time.process_time() - c0
        thetas = ",".join(repr(c.value) for c in b.points[1:])
        model = build_model("erlang", L=L, mu=1, lam=1, D=1)
        t0 = time.perf_counter()
        limit_cycle(model, thetas)
        shoot = time.perf_counter() - t0
        n = len(b.points)
        lines.append(
            f"{L:>3} {2 * (L + 1):>6} {best:>8.2f} {cpu:>8.2f} {loop:>8.2f} "
            f"{b.points[-1].value:>10.4g} "
            f"{shoot:>21.2f}" + ("" if n == POINTS else f"  ({n} cycles: {b.stop_reason})")
        )
    text = "\n".join(lines) + "\n"
    OUT.write_text(text)
    print(text, end="")


if __name__ == "__main__":
    main()
