"""Benchmark: a stability map of the founding model by continuation against an eigenvalue grid.

The question: where in the box D in [0.1, 100], theta in [0, 40] (L = 3, mu = lam = 1) is
the equilibrium unstable, and where is the boundary? Two answers, side by side:

* ``stability_map(..., method="generic")`` (continuation of the Hopf curve from exact grid-line crossings, every
  point certified by Krawczyk at 15 digits, exact unstable counts on 32 x 32 cells, the
  turning point located): the boundary to about 1e-15;
* a numpy grid: the full 8 x 8 Jacobian at every grid point, its eigenvalues (numpy's batched
  ``eigvals``), unstable where one has Re > 0. Its boundary is known to within one grid
  cell: the error is measured against the exact critical theta at every grid column
  (``crossings`` of the map, Newton at 25 digits).

The founding model's own map (its default path, explicit Hopf branches) is timed beside
the continuation and compared with it.

Times are CPU seconds (``time.process_time``; every path is single-threaded), medians of
ROUNDS runs on one model (built once, outside the timing). The grid
is run at 100 x 100 and 200 x 200 and 400 x 400 (all fit in seconds here). Last, the
in-flight (kappa, theta) map at L = 10, its turning point against kappa*.

Run:  .venv/bin/python benchmarks/bench_map.py  (writes benchmarks/results/map.txt)
"""

from __future__ import annotations

import os
import platform
import statistics
import sys
import time
from pathlib import Path

import mpmath
import numpy as np
import sympy as sp

from symdelay.analysis.stability_map import stability_map
from symdelay.models import build_model

OUT = Path(__file__).parent / "results" / "map.txt"
ROUNDS = 5
MINIMA: dict = {}  # the fastest run of each timing (the machine is shared: medians vary)
L = 3
BOX = (0.1, 100.0, 0.0, 40.0)


def _median(f):
    times, out = [], None
    for _ in range(ROUNDS):
        t = time.process_time()
        out = f()
        times.append(time.process_time() - t)
    MINIMA[f] = min(times)
    return statistics.median(times), out


def _grid(model, n):
    """Unstable flags on an n x n grid of cell centres (numpy eigenvalues, batched)."""
    free = list(model.free_parameters)  # theta, gamma
    Jac = model.jacobian
    f = sp.lambdify(free, [[Jac[i, j] for j in range(Jac.cols)] for i in range(Jac.rows)], "numpy")
    xlo, xhi, ylo, yhi = BOX
    D = xlo + (np.arange(n) + 0.5) * (xhi - xlo) / n
    th = ylo + (np.arange(n) + 0.5) * (yhi - ylo) / n
    DD, TT = np.meshgrid(D, th)
    vals = {"theta": TT.ravel(), "gamma": L / DD.ravel()}
    size = DD.size
    entries = f(*[vals[str(p)] for p in free])
    J = np.empty((size, 2 * (L + 1), 2 * (L + 1)))
    for i, row in enumerate(entries):
        for j, e in enumerate(row):
            J[:, i, j] = np.broadcast_to(e, (size,))
    unstable = (np.linalg.eigvals(J).real > 0).any(axis=1).reshape(n, n)
    return D, th, unstable


def _grid_error(D, th, unstable, exact):
    """Largest |theta boundary of the grid - exact theta_c| over the columns (the boundary
    of a column read as the midpoint between its last stable and first unstable centre)."""
    errs = []
    for k in range(len(D)):
        col = unstable[:, k]
        if not col.any() or col.all():
            continue
        j = int(np.argmax(col))
        est = 0.5 * (th[j - 1] + th[j]) if j > 0 else th[0]
        errs.append(abs(est - exact[k]))
    return max(errs)


def main() -> None:
    model = build_model("erlang", L=L, mu=1, lam=1)
    xlo, xhi, ylo, yhi = BOX
    box = {"x": ("D", "0.1", "100"), "y": ("theta", "0", "40")}
    t = time.process_time()
    # the first call also derives the model's factors in (D, theta)
    stability_map(model, **box, method="generic")
    t_cold = time.process_time() - t
    fmap = lambda: stability_map(model, **box, dps=15, method="generic")  # noqa: E731
    t_map, m = _median(fmap)
    # the founding model's own map (explicit Hopf branches), the default path
    t_fast, mf = _median(lambda: stability_map(model, **box, dps=15))
    with mpmath.workdps(25):
        fast_err = 0
        for c in mf.curves:
            for p in c.points[1:-1:20]:
                (g,) = m.crossings(x=sp.Rational(mpmath.nstr(p[0], 30)))
                fast_err = max(fast_err, abs(g[0] - p[1]) / p[1])
    same_counts = mf.cell_counts == m.cell_counts
    n_points = sum(len(c.points) for c in m.curves)
    (turn,) = [s for s in m.special_points if s["type"] == "turning_y"]
    # the map's own accuracy: its points against the exact theta-window at their D
    lines = []
    rows = []
    for n in (100, 200, 400):
        fn = lambda n=n: _grid(model, n)  # noqa: E731
        t_grid, (D, th, unstable) = _median(fn)
        fastest = MINIMA[fn]
        with mpmath.workdps(25):
            exact = []
            for d in D:
                c = m.crossings(x=sp.Rational(repr(float(d))))
                exact.append(float(c[0][0]) if c else np.inf)
        err = _grid_error(D, th, unstable, exact)
        rows.append((n, t_grid, err, fastest))
    with mpmath.workdps(30):
        ts = mpmath.sec(mpmath.pi / (L + 1)) ** (L + 1)
        turn_err = max(abs(turn["x"] - L), abs(turn["y"] - ts))
    lines.append("stability map of the founding model, L = 3, mu = lam = 1")
    lines.append(
        f"box: D in [{xlo}, {xhi}], theta in [{ylo}, {yhi}]; CPU seconds, medians of {ROUNDS} runs"
    )
    lines.append(
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
        f"{os.cpu_count()} cores, load average {' '.join(f'{v:.2f}' for v in os.getloadavg())}"
    )
    lines.append("")
    lines.append(
        f"A. the default path, stability_map(model, ...): the founding model's explicit Hopf "
        f"branches, each continued in D (Newton warm-started from the previous delay, "
        f"in doubles, then carried to 25 digits in Arb) at 200 log-spaced exact delays, every point proved by "
        f"Arb; counts by the branch order, each region's count checked by the exact Routh "
        f"array: {t_fast:.4f} s, {sum(len(c.points) for c in mf.curves)} points; largest "
        f"relative difference from B's crossings {mpmath.nstr(fast_err, 3)}; same cell counts "
        f"as B: {same_counts}"
    )
    lines.append(
        f"B. the generic continuation, method='generic' (pseudo-arclength on (D, theta, omega) "
        f"from exact grid-line crossings, every point certified by Krawczyk at 15 digits, exact "
        f"unstable counts on 32 x 32 cells, l1 scan for Bautin points): {t_map:.4f} s, "
        f"{n_points} certified points, turning point D* = {mpmath.nstr(turn['x'], 17)}, "
        f"theta* = {mpmath.nstr(turn['y'], 17)} (closed-form error {mpmath.nstr(turn_err, 3)})"
    )
    lines.append(
        f"(the first call on the model derives its factors in (D, theta): {t_cold:.3f} s, "
        "once per model; the grid's first call lambdifies the Jacobian, also outside its timing)"
    )
    lines.append("")
    lines.append("numpy eigenvalue grid (8x8 Jacobian at every cell centre, batched eigvals):")
    lines.append(
        f"{'grid':>9} {'median s':>9} {'fastest s':>9} {'boundary error (theta)':>23} "
        f"{'A faster':>9} {'B faster':>9}"
    )
    for n, t, err, _tmin in rows:
        lines.append(
            f"{n:>4}x{n:<4} {t:9.3f} {_tmin:9.3f} {err:23.3e} {t / t_fast:8.1f}x {t / t_map:8.1f}x"
        )
    n, t, err, _ = rows[-1]
    lines.append("")
    lines.append(
        f"At 400x400 the grid places the boundary to {err:.2e} in theta (half a cell, "
        f"{(yhi - ylo) / 400 / 2:.3f}) in {t:.2f} s; the map gives it to ~1e-15 with every "
        f"point certified: A in {t_fast:.3f} s ({t / t_fast:.0f}x, goal >= 50x), B in "
        f"{t_map:.3f} s ({t / t_map:.1f}x). A grid with the map's accuracy would need "
        f"~{(yhi - ylo) / 1e-15:.0e} rows per column."
    )
    # the in-flight (kappa, theta) map at L = 10: its turning point against kappa*
    from symdelay.models.inflight.curve import kappa_star

    inflight = build_model("inflight", L=10, kappa="kappa", mu=1, lam=1, D=1)
    kbox = {"x": ("kappa", "0", "0.6"), "y": ("theta", "0", "100")}
    t = time.process_time()
    stability_map(inflight, **kbox, dps=15)
    t_cold = time.process_time() - t
    t_k, mk = _median(lambda: stability_map(inflight, **kbox, dps=15))
    (tk,) = [s for s in mk.special_points if s["type"] == "turning_x"]
    ks = kappa_star(10, 1, 1, dps=30).kappa_star
    lines.append("")
    lines.append(
        f"in-flight model, L = 10, mu = D = lam = 1, box kappa in [0, 0.6], theta in [0, 100]: "
        f"{t_k:.3f} s (first call {t_cold:.3f} s), {sum(len(c.points) for c in mk.curves)} "
        f"certified points; turning point kappa = {mpmath.nstr(tk['x'], 16)} against "
        f"kappa* = {mpmath.nstr(ks, 16)} (difference {mpmath.nstr(abs(tk['x'] - ks), 3)})"
    )
    # two unequal servers in (mu2/mu1, theta): the equilibrium moves with both axes
    hetero = build_model("hetero", L=2, mu1=1, lam=1, D=1)
    hbox = {"x": ("mu2", "1/2", "2"), "y": ("theta", "0", "20")}
    t = time.process_time()
    stability_map(hetero, **hbox, dps=15, cells=16)
    t_cold = time.process_time() - t
    t_h, mh = _median(lambda: stability_map(hetero, **hbox, dps=15, cells=16))
    (ht,) = [s for s in mh.special_points if s["type"] == "turning_y"]
    lines.append("")
    lines.append(
        f"two unequal servers, L = 2, mu1 = lam = D = 1, box mu2 in [1/2, 2], theta in [0, 20] "
        f"(the equilibrium moves with both axes: continued with every crossing, each point "
        f"proved with it): {t_h:.3f} s (first call {t_cold:.3f} s), "
        f"{sum(len(c.points) for c in mh.curves)} certified points; least critical theta "
        f"{mpmath.nstr(ht['y'], 12)} at mu2 = {mpmath.nstr(ht['x'], 12)} (certified: "
        f"{ht['certified']})"
    )
    text = "\n".join(lines) + "\n"
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(text)
    sys.stdout.write(text)


if __name__ == "__main__":
    main()
