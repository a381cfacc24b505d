"""Benchmark (issue 22): kappa* from the closed factors, and the swept generic critical path,
each side by side with the path it replaced, interleaved, in one run.

A. ``kappa_star(L, 1, 1, dps=30)`` (weight on every phase): new = closed factors
   (1 + i omega/gamma)^L, certified cover (``symdelay.models.inflight.fastcurve``); old =
   the expanded exact polynomials and Arb isolation of all their complex roots
   (``curve._kappa_star_exact`` on a freshly built ``curve._curve``, still the path of the
   other patterns). The printed digits of both are compared where the old one runs.
B. ``critical(model, at=[D...], method="generic")`` on ``phase_type --delay erlang`` and on
   the founding model at L = 2..1000: new = the modes' factors once (symbolic in gamma:
   charpolys by cycle covers, factors of A and B over Q[r, gamma] by flint) + per D the
   crossings from the roots of the factors (``critical_factored``); old = the model rebuilt at every D + resultant/subresultants
   + counts from certified roots (``_swept`` and ``critical_linear`` switched off); the
   founding specialised path for scale. Per point: the curve's time over 8 D values minus
   the one-time part (the sparse mode factors, symbolic in gamma), reported separately.
B''. one curve of 1000 D points at L = 100 (with and without the one-time part).
B'. the per-point solve alone on the founding factor at L = 2..10^4 (``critical_factored``)
   next to the solve before (``critical_linear``: Descartes on the expanded h(w^2)) and the
   founding specialised path.

Run:  .venv/bin/python benchmarks/bench_fast.py  (writes benchmarks/results/fast.txt)
"""

from __future__ import annotations

import math
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import flint
import mpmath
import numpy as np
import sympy as sp

import symdelay.analysis.critical as crit
import symdelay.analysis.crossing as crossing
import symdelay.analysis.crossing_factored as crossing_factored
from symdelay.core.numbers import format_number
from symdelay.models import build_model
from symdelay.models.inflight import curve

OUT = Path(__file__).parent / "results" / "fast.txt"
DPS = 30
N_OLD = 2
lines: list[str] = []


def out(text=""):
    print(text, flush=True)
    lines.append(text)


def timed(f):
    t = time.perf_counter()
    v = f()
    return time.perf_counter() - t, v


def slope(xs, ys):
    return float(np.polyfit(np.log(xs), np.log(ys), 1)[0])


def kstar_new(L):
    ks = curve.kappa_star(L, 1, 1, dps=DPS)
    rec = ks.to_json()
    if ks.turning is not None:  # where the Hopf curve turns at kappa* (the old path's)
        with mpmath.workdps(DPS + 10):
            rec["omega"] = format_number(ks.turning["omega"], DPS)
            rec["lam_theta"] = format_number(ks.turning["lam_theta"], DPS)
    return rec


def kstar_old(L):
    curve._curve.cache_clear()
    Lc, m, D, pat = curve._checked(L, 1, 1, "all")
    k, _unstable, (omega, a) = curve._kappa_star_exact(curve._curve(Lc, m, D, pat), DPS)
    f = lambda x: format_number(x, DPS)  # noqa: E731
    return {"kappa_star": f(k), "omega": f(omega), "lam_theta": f(a)}


def part_a():
    out("A. kappa* (mu D = 1, weight on every phase, dps 30): seconds, medians of interleaved runs")
    out(f"{'L':>6} {'old s':>9} {'new s':>9} {'ratio':>8}  digits equal  kappa*")
    both = {10: 3, 50: 3, 100: 3, 200: 1}
    olds, news = {}, {}
    for L, reps in both.items():
        to, tn = [], []
        for _ in range(reps):
            t, o = timed(lambda L=L: kstar_old(L))
            to.append(t)
            t, n = timed(lambda L=L: kstar_new(L))
            tn.append(t)
        # the record lists the frequencies at kappa* (one here); the old path gives one
        same = (o["kappa_star"], o["omega"], o["lam_theta"]) == (
            n["kappa_star"],
            n["omega"],
            n["lam_theta"],
        )
        olds[L], news[L] = statistics.median(to), statistics.median(tn)
        out(
            f"{L:>6} {olds[L]:>9.4f} {news[L]:>9.4f} {olds[L] / news[L]:>8.1f}  {same!s:>12}  "
            f"{n['kappa_star']}"
        )
    for L in (500, 1000, 2000, 5000, 10000):
        ts = []
        for _ in range(3):
            t, n = timed(lambda L=L: kstar_new(L))
            ts.append(t)
        news[L] = statistics.median(ts)
        out(f"{L:>6} {'-':>9} {news[L]:>9.4f} {'':>8}  {'':>12}  {n['kappa_star']}")
    ko = [L for L in olds if L >= 50]
    kn = [L for L in news if L >= 100]
    out(f"fitted exponent in L: old {slope(ko, [olds[L] for L in ko]):.2f} (L = 50..200), "
        f"new {slope(kn, [news[L] for L in kn]):.2f} (L = 100..10^4)")  # fmt: skip
    out(f"goals: L = 500 < 0.2 s: {news[500]:.3f} s; L = 10^4 < 3 s: {news[10000]:.3f} s")


class _Old:
    """Today's generic path: the model rebuilt at every D, resultants, counted roots."""

    def __enter__(self):
        self.saved = (crit._swept, crossing.critical_linear)
        crit._swept = lambda *a, **k: None
        crossing.critical_linear = lambda *a, **k: None

    def __exit__(self, *exc):
        crit._swept, crossing.critical_linear = self.saved


def _model(fam, L):
    extra = {"delay": "erlang"} if fam == "phase_type" else {}
    return build_model(fam, L=L, mu=1, lam=1, **extra)


def _founding_per_point(L, Ds, reps=3):
    fm = _model("erlang", L)
    crit.critical(fm, at=Ds[:1], method="specialised")
    tf = statistics.median(
        timed(lambda: crit.critical(fm, at=Ds, method="specialised"))[0] for _ in range(reps)
    ) / len(Ds)
    return tf, crit.critical(fm, at=Ds, method="specialised").to_json()["points"]


def part_b():
    out()
    out("B. critical theta over D (mu = lam = 1, dps 15): seconds per D point, medians")
    out("   one-time: the swept preparation on a fresh model (sparse mode factors, symbolic in "
        "gamma); new/pt: the curve over 8 D values on the prepared model, per point")  # fmt: skip
    out(f"{'L':>4} {'model':>11} {'one-time':>9} {'new/pt':>9} {'old/pt':>9} {'founding/pt':>12}"
        f" {'new/founding':>13}  agree")  # fmt: skip
    Ds = [sp.Rational(k, 4) for k in range(1, 9)]
    for L in (2, 10, 30, 100, 300, 1000):
        tf, ref = _founding_per_point(L, Ds)
        for fam in ("phase_type", "erlang"):
            m = _model(fam, L)
            t_once, _ = timed(lambda m=m: crit._swept(m, "theta", "D", Ds[0]))
            # per point: the swept curve on a model whose factors are already computed
            tn = statistics.median(
                timed(lambda m=m: crit.critical(m, at=Ds, method="generic"))[0] for _ in range(3)
            ) / len(Ds)
            new = crit.critical(m, at=Ds, method="generic").to_json()["points"]
            if L <= 10:
                with _Old():
                    to, old = timed(
                        lambda L=L, fam=fam: crit.critical(
                            _model(fam, L), at=Ds[:N_OLD], method="generic"
                        )
                    )
                to /= N_OLD
                old = old.to_json()["points"]
                agree = [p["theta_c"] for p in old] == [p["theta_c"] for p in new[:N_OLD]]
            else:
                to, agree = math.nan, None
            agree_f = [p["theta_c"] for p in ref] == [p["theta_c"] for p in new]
            out(
                f"{L:>4} {fam:>11} {t_once:>9.3f} {tn:>9.4f} {to:>9.4f} {tf:>12.4f} "
                f"{tn / tf:>13.1f}  founding {agree_f}, old {agree}"
            )
    out(
        "(one-time: the modes' charpolys by cycle covers (a delay chain has a few cycles) and "
        "the family's statement that D is gamma = L/D, where it builds the model at two D "
        "otherwise; the model's own build is not in it: at L = 1000 "
        f"{timed(lambda: _model('phase_type', 1000))[0]:.1f} s)"
    )
    out()
    out("B''. L = 100, 1000 D points (D = k/100, k = 1..1000): seconds, one curve")
    Dk = [sp.Rational(k, 100) for k in range(1, 1001)]
    for fam in ("phase_type", "erlang"):
        m = _model(fam, 100)
        t_all, c = timed(lambda m=m: crit.critical(m, at=Dk, method="generic"))
        t_again, _ = timed(lambda m=m: crit.critical(m, at=Dk, method="generic"))
        tf, f = timed(lambda: crit.critical(_model("erlang", 100), at=Dk, method="specialised"))
        same = [p["theta_c"] for p in c.to_json()["points"]] == [
            p["theta_c"] for p in f.to_json()["points"]
        ]
        out(f"  {fam:>11}: with the one-time part {t_all:.2f} s, prepared {t_again:.2f} s; "
            f"founding {tf:.2f} s; equal digits {same}")  # fmt: skip
    out()
    out("B'. one D point, the per-point solve alone: critical_factored on the founding factor "
        "(the roots of r + mu and r + gamma, the phase sum, dps 15, upto = 2, as the swept "
        "path calls it) vs the founding specialised path; before: critical_linear on the "
        "expanded coefficients (Descartes on h(w^2)), the path this replaced")  # fmt: skip
    out(f"{'L':>6} {'solve s':>9} {'before s':>9} {'founding s':>11} {'new/founding':>13} "
        f"{'before/new':>11}  equal")  # fmt: skip
    r, th = sp.symbols("r theta")
    mu, lam = flint.fmpq(1), flint.fmpq(1)
    xs, ys = [], []
    for L in (2, 10, 30, 100, 300, 1000, 3000, 10000):
        D = flint.fmpq(5, 2)
        g = L / D
        x = flint.fmpq_poly([0, 1])
        F = sp.Symbol("F")
        Af = (flint.fmpq(1), [(x + mu, 1), (x + g, L)])
        Bf = (lam * g**L, [])

        def solve(Af=Af, Bf=Bf, F=F):
            return crossing_factored.critical_factored(Af, Bf, r, th, dps=15, upto=2, expression=F)

        fm = _model("erlang", L) if L <= 1000 else None
        Dq = sp.Rational(5, 2)
        if fm is not None:
            crit.critical(fm, at=[Dq], method="specialised")
        reps = 7
        ts, tf, tb = [], [], []
        for _ in range(reps):
            t, c = timed(solve)
            ts.append(t)
            if fm is not None:
                t, f = timed(lambda fm=fm, Dq=Dq: crit.critical(fm, at=[Dq], method="specialised"))
                tf.append(t)
            if L <= 1000 and len(tb) < (3 if L <= 300 else 1):
                A = ((x + mu) * (x + g) ** L).coeffs()
                B = [lam * g**L] + [flint.fmpq(0)] * (len(A) - 1)
                t, cb = timed(
                    lambda A=A, B=B, F=F: crossing.critical_linear(
                        A, B, r, th, dps=15, baseline=0, upto=2, expression=F
                    )
                )
                tb.append(t)
        t = statistics.median(ts)
        tfo = statistics.median(tf) if tf else math.nan
        tbo = statistics.median(tb) if tb else math.nan
        same = None
        if fm is not None:
            same = c.to_json()["p_c"] == f.to_json()["points"][0]["theta_c"]
        if tb:
            same = bool(same) and cb.to_json()["p_c"] == c.to_json()["p_c"]
        xs.append(L)
        ys.append(t)
        out(f"{L:>6} {t:>9.5f} {tbo:>9.4f} {tfo:>11.5f} {t / tfo:>13.2f} {tbo / t:>11.1f}  {same}")
    big = [i for i, L in enumerate(xs) if L >= 30]
    out(f"fitted exponent of the per-point solve in L: "
        f"{slope([xs[i] for i in big], [ys[i] for i in big]):.2f} (L = 30..10^4; the roots "
        "of the factors and the phase sum, O(number of factors) per evaluation)")  # fmt: skip


def main():
    load = os.getloadavg()
    out(f"symdelay bench_fast — {platform.machine()}, Python {sys.version.split()[0]}, "
        f"python-flint {flint.__version__}, load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")  # fmt: skip
    out()
    part_a()
    part_b()
    end = os.getloadavg()
    out()
    out(f"load average at the end: {end[0]:.2f} {end[1]:.2f} {end[2]:.2f} (2 cores, shared)")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
