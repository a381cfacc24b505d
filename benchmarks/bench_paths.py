"""Benchmark: every specialised path (the founding model's, the in-flight model's) against the
generic path, in one run.

Each analysis entry runs the model family's fast path first (``method="auto"``); the generic
machinery answers for every model (``method="generic"``). Here both answer the same question
on the founding model, each on a freshly built model (so neither reuses the other's caches),
interleaved, and the medians are compared: the generic path's cost as a multiple of the
specialised one, the growth exponent in L of each (a least-squares fit of log time on log L),
and the largest difference between the two answers.

Run:  .venv/bin/python benchmarks/bench_paths.py  (writes benchmarks/results/paths.txt)
      .venv/bin/python benchmarks/bench_paths.py --only in-flight  (some cases, printed only)
"""

from __future__ import annotations

import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import mpmath

import symdelay
from symdelay.models import build_model

OUT = Path(__file__).parent / "results" / "paths.txt"
ROUNDS = 3
BASE = {"mu": 1, "lam": 1, "D": 1}


def founding(L, **values):
    given = {k: v for k, v in {**BASE, **values}.items() if v is not None}
    return build_model("erlang", L=L, **given)


def _critical(L, method):
    c = symdelay.critical(founding(L), at=[1], dps=15, method=method)
    return mpmath.mpf(c.points[0].critical)


def _roots(L, method):
    # one record on both paths: every factor's roots (the spectral abscissa over them all)
    return symdelay.roots(founding(L, theta=3), dps=30, method=method).spectral_abscissa


def _stability(L, method):
    return int(bool(symdelay.stability(founding(L, theta=3), method=method).stable))


def _variance(L, method):
    return mpmath.mpf(str(symdelay.variance(founding(L, theta=1), dps=30, method=method).value))


def _window(L, method):
    from symdelay.analysis.window import window

    w = window(founding(L, theta=12, D=None), vary="D", method=method)
    return mpmath.mpf(w.intervals[0][0]) if w.intervals else mpmath.mpf(0)


def _worst_delay(L, method):
    from symdelay.analysis.window import worst_delay

    return mpmath.mpf(worst_delay(founding(L, D=None), over="D", method=method).critical)


def _normal_form(L, method):
    from symdelay.analysis.normal_form import normal_form

    return mpmath.mpf(normal_form(founding(L), method=method).l1)


def _inflight_window(L, method):
    from symdelay.analysis.window import window

    m = build_model("inflight", L=L, kappa="0.05", **BASE)
    w = window(m, "theta", lo=0, method=method)
    return mpmath.mpf(w.intervals[0][0]) if w.intervals else mpmath.mpf(0)


def _kappa_star(L, method):
    from symdelay.analysis.window import kappa_star

    m = build_model("inflight", L=L, kappa="kappa", **BASE)
    return mpmath.mpf(kappa_star(m, method=method).x_star)


def _stability_map(L, method):
    from symdelay.analysis.stability_map import stability_map

    m = stability_map(
        founding(L, D=None), x=("D", "0.5", 12), y=("theta", 0, 20), cells=16, method=method
    )
    (s,) = [s for s in m.special_points if s["type"] == "turning_y"]
    return mpmath.mpf(s["y"])


#: (quantity, entry call, the L values); the entry call returns a number to compare
CASES = [
    ("critical theta", _critical, [2, 3, 6, 10]),
    ("roots (spectral abscissa)", _roots, [2, 3, 6]),
    ("stability verdict", _stability, [2, 3, 6]),
    ("stationary variance", _variance, [1, 2, 3]),
    ("instability window in D", _window, [2, 3, 6]),
    ("worst delay (theta*)", _worst_delay, [2, 3, 6]),
    ("in-flight theta-window", _inflight_window, [2, 3, 6]),
    ("in-flight kappa*", _kappa_star, [2, 3, 6]),
    ("first Lyapunov coefficient", _normal_form, [2, 3]),
    ("stability map (D, theta)", _stability_map, [2, 3, 6]),
]


def exponent(Ls, ts) -> float:
    if len(Ls) < 2:
        return float("nan")
    x = [math.log(v) for v in Ls]
    y = [math.log(t) for t in ts]
    mx, my = sum(x) / len(x), sum(y) / len(y)
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / sum((a - mx) ** 2 for a in x)


def timed(fn, *args):
    t0 = time.perf_counter()
    value = fn(*args)
    return time.perf_counter() - t0, value


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    # --only TEXT: the cases whose name contains TEXT, printed only (the results file keeps
    # the last full run)
    only = argv[argv.index("--only") + 1] if "--only" in argv else None
    rows = []
    for name, fn, Ls in CASES:
        if only is not None and only not in name:
            continue
        spec_med, gen_med = [], []
        for L in Ls:
            fn(L, "specialised")  # imports and per-process set-up, outside the timing
            fn(L, "generic")
            ts, tg, diff = [], [], 0
            for _ in range(ROUNDS):  # interleaved
                t, a = timed(fn, L, "specialised")
                ts.append(t)
                t, b = timed(fn, L, "generic")
                tg.append(t)
                diff = max(diff, abs(a - b) / max(1, abs(a)))
            s, g = statistics.median(ts), statistics.median(tg)
            spec_med.append(s)
            gen_med.append(g)
            rows.append((name, L, s, g, g / s, float(diff)))
            print(f"{name:<28} L={L:<3} specialised {s:.4f} s  generic {g:.4f} s", flush=True)
        rows.append((name, "exp", exponent(Ls, spec_med), exponent(Ls, gen_med), None, None))
    lines = [
        "bench_paths: the specialised paths (founding, in-flight) against the generic path",
        f"(the same entry, method='specialised' vs 'generic'; fresh model per call; medians of "
        f"{ROUNDS} interleaved runs, seconds)",
        f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; python "
        f"{sys.version.split()[0]}, sympy {__import__('sympy').__version__}, {platform.machine()}",
        "",
        f"{'quantity':<28} {'L':>4} {'specialised s':>14} {'generic s':>11} "
        f"{'generic/spec':>13} {'rel. diff':>10}",
    ]
    for name, L, s, g, ratio, diff in rows:
        if L == "exp":
            lines.append(f"{'':<28} {'exp':>4} {s:>14.2f} {g:>11.2f}   (growth exponent in L)")
        else:
            lines.append(f"{name:<28} {L:>4} {s:>14.4f} {g:>11.4f} {ratio:>13.1f} {diff:>10.1e}")
    lines += [
        "",
        "Both paths return the same record type; the tests compare them (tests/test_*entry*,",
        "tests/test_one_path_*, tests/test_window_specialised.py, tests/test_model_stochastic.py,",
        "tests/test_inflight_specialised.py, tests/test_founding_map.py).",
        "rel. diff: |specialised - generic| / max(1, |specialised|); the simulation's two kernels",
        "draw different streams and are compared statistically in the tests (rel. diff 0 here).",
        "Per-process set-up (imports, the founding symbolic derivations cached per L, the",
        "in-flight crossing curve cached per (L, mu, D, pattern), compiled kernels) runs once",
        "before the timings; the first call of a process pays it.",
    ]
    if only is None:
        OUT.parent.mkdir(exist_ok=True)
        OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
