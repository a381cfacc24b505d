"""Speed of the simulator generated from a transition table (symdelay.analysis.simulate),
side by side in ONE run:

1. the founding model, Erlang L = 2, 8, 32, eta = 10^4, mu = lam = 1, theta = 2, D = 1,
   from Q1 = 0, Q2 = eta: ``symdelay.simulate(L=...)`` (the entry, the one path since the
   hand-written kernel went: the generated kernel was within 1.04x of it on these rows,
   measured side by side before its removal) against the bare kernel (goal: the entry's
   overhead within 1.1x in ns/event, every L);
2. against SimPy on the hyperexponential-delay model (delay: rate g_a = 1/2 with probability
   3/10, rate g_b = 5 otherwise; benchmarks/simpy_peer_hyperexp.py), same parameters
   (goal: >= 50x the faster SimPy peer); eta = 10^3 over T = 200 and eta = 10^4 over
   T = 20, about 1.2 million events each;
3. the M sweep: ns/event of N servers with Erlang(L) delays (``build_model("nserver")``,
   M = N (L + 2) transitions) for N = 2..16, L = 2..32, from the fluid equilibrium, with the
   fitted exponent of ns/event against M (goal: N = 16, L = 32 within 1.5x of N = 2, L = 2);
4. build times at M = 8 and M = 544: cold (empty cache: SymPy generation + gcc) and cached
   (a new process: the generation result and the shared library from the cache), the
   median of fresh processes (goal: cold < 5 s, cached < 50 ms at M = 544).

Times are CPU seconds (time.process_time) of single-threaded runs, medians of interleaved
repeats. Writes benchmarks/results/generated_simulator.txt.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import numpy as np
import sympy as sp

sys.path.insert(0, str(Path(__file__).parent))

from simpy_peer_hyperexp import simulate_simpy_hyperexp, simulate_simpy_hyperexp_gillespie

from symdelay.analysis.roots import default_initial
from symdelay.analysis.simulate import GeneratedKernel, generated_kernel
from symdelay.core.checks import time_grid
from symdelay.models import build_model
from symdelay.models.erlang.stochastic.simulate import simulate

OUT = Path(__file__).parent / "results" / "generated_simulator.txt"
HX = {"mu": 1, "lam": 1, "theta": 2, "pa": 0.3, "ga": 0.5, "gb": 5.0}
T_HX = 20


def hyperexp_kernel() -> GeneratedKernel:
    q1, q2, z1a, z1b, z2a, z2b = states = sp.symbols("q1 q2 z1a z1b z2a z2b")
    lam, mu, theta, pa, pb, ga, gb = sp.symbols("lam mu theta p_a p_b g_a g_b")
    p1 = sp.exp(-theta * q1) / (sp.exp(-theta * q1) + sp.exp(-theta * q2))
    p2 = sp.exp(-theta * q2) / (sp.exp(-theta * q1) + sp.exp(-theta * q2))
    e = np.eye(6, dtype=int)
    table = [
        ("arrive_1a", e[2], 2 * lam * p1 * pa),
        ("arrive_1b", e[3], 2 * lam * p1 * pb),
        ("arrive_2a", e[4], 2 * lam * p2 * pa),
        ("arrive_2b", e[5], 2 * lam * p2 * pb),
        ("enter_1a", e[0] - e[2], ga * z1a),
        ("enter_1b", e[0] - e[3], gb * z1b),
        ("enter_2a", e[1] - e[4], ga * z2a),
        ("enter_2b", e[1] - e[5], gb * z2b),
        ("service_1", -e[0], mu * q1),
        ("service_2", -e[1], mu * q2),
    ]
    values = {lam: HX["lam"], mu: HX["mu"], theta: HX["theta"], pa: sp.Rational(3, 10)}
    values |= {pb: sp.Rational(7, 10), ga: sp.Rational(1, 2), gb: 5}
    return GeneratedKernel(states, table, values)


def best_of(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.process_time()  # CPU seconds: the machine is shared, wall time is noisy
        out = fn()
        best = min(best, time.process_time() - t0)
    return best, out


def row(name, events, seconds):
    return f"  {name:<40} {events:>12,} {seconds:>9.3f} {events / seconds:>14,.0f}"


PARAMS = {"mu": 1, "lam": 1, "theta": 2, "D": 1}
BUILD_SNIPPET = """
import sys, time
from symdelay.models import build_model
from symdelay.analysis.simulate import GeneratedKernel
m = build_model("nserver", N=int(sys.argv[1]), L=int(sys.argv[2]), mu=1, lam=1, theta=2, D=1)
table = [(t.name, t.change, t.rate) for t in m.transitions]
t0 = time.perf_counter()
k = GeneratedKernel(m.states, table, m.values)
assert k.c_function() is not None
print(time.perf_counter() - t0, int(k.generation_cached))
"""


def build_time(N, L, cache):
    """Wall seconds of GeneratedKernel(...) + c_function() in a fresh process (the model is
    built before the clock starts) and whether the generation came from the cache."""
    env = {**os.environ, "SYMDELAY_CACHE_DIR": cache}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parent.parent)
    out = subprocess.run(
        [sys.executable, "-c", BUILD_SNIPPET, str(N), str(L)],
        env=env, capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    return float(out[0]), out[1] == "1"


def ns_per_event(kernel, eta, init, T, seed):
    t0 = time.process_time()
    _, events = kernel.run(eta, init, time_grid(T, T / 50), seed=seed)
    return (time.process_time() - t0) / events * 1e9, events


def child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def gillespy2_rows(kernels) -> list:
    """GillesPy2's SSACSolver (C++; it runs as a child process, so its CPU time is that of
    the children) against the generated kernel, founding model L = 2, eta = 10^4, T = 20.
    GillesPy2 does not report its number of events: the generated kernel's mean count over
    the same seeds stands for it (the same process, the same expected number of events)."""
    head = "1b. GillesPy2 SSACSolver (compiled C++ SSA), founding model L = 2, eta = 10^4, T = 20"
    try:
        import gillespy2  # noqa: F401
    except ImportError:
        return [head, "  GillesPy2 is not installed (pip install gillespy2): no row"]
    from gillespy2_peer import build_model as gp_model
    from gillespy2_peer import build_solver, run

    # GillesPy2 runs SCons with the base interpreter: let it find the installed SCons
    site = sysconfig.get_paths()["purelib"]
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (site, os.environ.get("PYTHONPATH")) if p)
    eta, T, L = 10**4, 20.0, 2
    t0 = time.perf_counter()
    solver = build_solver(gp_model(L, eta, T=T, **PARAMS))
    t_build = time.perf_counter() - t0
    init = np.zeros(2 + 2 * L, dtype=np.int64)
    init[1] = eta
    tg, eg, tp = [], [], []
    for rep in range(5):
        ns, ev = ns_per_event(kernels[L], eta, init, T, rep)
        tg.append(ns)
        eg.append(ev)
        c0 = child_cpu() + time.process_time()
        out = run(solver, rep + 1)
        tp.append(child_cpu() + time.process_time() - c0)
        assert abs(out["Q1"][-1] / eta - 1) < 0.2  # the equilibrium q = lam/mu = 1
    events = float(np.mean(eg))
    p_ns = statistics.median(tp) / events * 1e9
    g_ns = statistics.median(tg)
    return [
        head + f" (its C++ build {t_build:.1f} s, excluded), median of 5",
        f"  {'implementation':<40} {'ns/event':>9}",
        f"  {'GillesPy2 SSACSolver (solve only)':<40} {p_ns:>9.1f}",
        f"  {'generated C kernel':<40} {g_ns:>9.1f}",
        f"  ratio GillesPy2 / generated: {p_ns / g_ns:.1f}x",
    ]


def main() -> None:
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    lines = [
        "generated_simulator: the kernel generated from a transition table (sum tree of the",
        "rates; count classes: the linear rates of one coefficient, e.g. the delay phases and",
        "the servers, as one leaf c * S with an integer tree of their counts, descended",
        "branch free; dependency graph, arrivals as one lazy class of constant total (N <= 4)",
        "or a weighted class with a tree of its own weights (N > 4: one exponential per",
        "changed queue), shape classes with int32 records, ziggurat waiting times, -O2",
        "-march=native -mno-avx): the founding model through its entry, GillesPy2 and SimPy;",
        "exact Gillespie simulation",
        f"machine: {os.cpu_count()} cores, load average at start {load[0]:.1f} "
        "(shared machine: absolute numbers vary, the ratios are measured in the same run)",
        "times are CPU seconds of this process (time.process_time; every run is single-threaded),",
        "medians of interleaved repeats",
        "",
    ]
    head = f"  {'implementation':<40} {'events':>12} {'CPU s':>9} {'events/s':>14}"

    # 1. the founding model: the entry (the one path) against the bare kernel, L = 2, 8, 32
    eta = 10**4
    lines.append(
        "1. founding model (mu = lam = 1, theta = 2, D = 1), eta = 10^4, one path from "
        "Q1 = 0, Q2 = eta, ~1.5-3 million events, median of 7 interleaved seeds: "
        "symdelay.simulate(L=...) (a new model each call: the entry's checks, the cost "
        "estimate, the record) against the kernel generated from the table alone"
    )
    lines.append(
        f"  {'L':>3} {'M':>4} {'simulate ns/ev':>15} {'kernel ns/ev':>13} {'simulate/kernel':>16}"
    )
    ratios, kernels_1 = {}, {}
    for L in (2, 8, 32):
        erl = {"L": L, **PARAMS}
        k = generated_kernel(build_model("erlang", **erl))
        k.c_function()
        kernels_1[L] = k
        simulate(eta=100, seed=0, **erl)  # compile / load outside the timings
        T = max(2.0, 3e6 / (eta * 2 * (L + 2)))
        init = np.zeros(2 + 2 * L, dtype=np.int64)
        init[1] = eta
        te, tk = [], []
        for rep in range(7):  # interleaved, so both see the same machine load
            t0 = time.process_time()
            r = simulate(eta=eta, T=T, dt=T / 50, seed=rep, **erl)
            te.append((time.process_time() - t0) / int(r.events.sum()) * 1e9)
            tk.append(ns_per_event(k, eta, init, T, rep)[0])
        e, g = statistics.median(te), statistics.median(tk)
        ratios[L] = e / g
        lines.append(f"  {L:>3} {len(k.names):>4} {e:>15.1f} {g:>13.1f} {e / g:>16.2f}")
    worst = max(ratios.values())
    lines.append(f"  worst simulate / kernel over L: {worst:.2f} (goal <= 1.1)")
    lines.append("")

    # 1b. GillesPy2's compiled SSA on the same model (solve only: its C++ build excluded)
    lines.extend(gillespy2_rows(kernels_1))
    lines.append("")

    # 2. generated vs SimPy, hyperexponential delay
    k_hx = hyperexp_kernel()
    k_hx.c_function()
    lines.append(f"2. hyperexponential delay {HX} (p_b = 0.7), one path from Q1 = 0, Q2 = eta")
    lines.append(head)
    best_ratio = None
    for e, horizon in ((10**3, 10 * T_HX), (10**4, T_HX)):  # ~1.2 million events each
        init = np.array([0, e, 0, 0, 0, 0])
        g = time_grid(horizon, 0.1)
        tg, (_, eg) = best_of(lambda e=e, init=init, g=g: k_hx.run(e, init, g, seed=1), 9)
        peers = {}
        if e <= 10**3:
            tp, (ep, _) = best_of(
                lambda e=e, h=horizon: simulate_simpy_hyperexp(e, T=h, seed=1, **HX), 1
            )
            peers["SimPy, process per job (paper)"] = (ep, tp)
        tq, (eq, _) = best_of(
            lambda e=e, h=horizon: simulate_simpy_hyperexp_gillespie(e, T=h, seed=1, **HX), 2
        )
        peers["SimPy, one Gillespie process"] = (eq, tq)
        lines.append(f"  eta = {e}, T = {horizon} (best of repeats)")
        for name, (ev, t) in peers.items():
            lines.append(row(name, ev, t))
        lines.append(row("generated C kernel", eg, tg))
        faster = max(ev / t for ev, t in peers.values())
        ratio = (eg / tg) / faster
        best_ratio = ratio if best_ratio is None else min(best_ratio, ratio)
        lines.append(f"  ratio generated / faster SimPy peer: {ratio:.0f}x (goal >= 50x)")
    lines.append("")

    # 3. the M sweep
    eta = 1000
    grid_NL = [(N, L) for N in (2, 4, 8, 16) for L in (2, 8, 32)]
    kernels = {}
    for N, L in grid_NL:
        m = build_model("nserver", N=N, L=L, **PARAMS)
        k = generated_kernel(m)
        k.c_function()
        init = np.rint(default_initial(m) * eta).astype(np.int64)
        kernels[N, L] = (k, init, 1.5e6 / (eta * N * (L + 2)))
    times = {key: [] for key in kernels}
    for rep in range(5):  # interleaved over the configurations
        for key, (k, init, T) in kernels.items():
            times[key].append(ns_per_event(k, eta, init, T, rep)[0])
    lines.append(
        "3. M sweep: N servers, Erlang(L) delay, mu = lam = 1, theta = 2, D = 1, eta = 1000, "
        "from the fluid equilibrium, ~1.5 million events, median of 5"
    )
    lines.append(f"  {'N':>3} {'L':>3} {'M':>5} {'ns/event':>9}")
    Ms, ns = [], []
    for key in grid_NL:
        k = kernels[key][0]
        med = statistics.median(times[key])
        Ms.append(len(k.names))
        ns.append(med)
        lines.append(f"  {key[0]:>3} {key[1]:>3} {len(k.names):>5} {med:>9.1f}")
    slope = np.polyfit(np.log(Ms), np.log(ns), 1)[0]
    top = statistics.median(times[16, 32]) / statistics.median(times[2, 2])
    lines.append(f"  fitted exponent of ns/event against M: {slope:.2f} (O(M) would be 1)")
    lines.append(f"  N = 16, L = 32 / N = 2, L = 2: {top:.2f} (goal <= 1.5)")
    lines.append("")

    # 4. build times, fresh processes
    lines.append(
        "4. build (GeneratedKernel + c_function, wall seconds in a fresh process, the model "
        "built before the clock)"
    )
    lines.append(
        f"  {'N':>3} {'L':>3} {'M':>5} {'cold':>8} {'cached: median of 9':>20} {'fastest':>8}"
    )
    builds = {}
    for N, L in ((2, 2), (16, 32)):
        with tempfile.TemporaryDirectory() as tmp:
            cold, hit = build_time(N, L, tmp)
            assert not hit
            warm = []
            for _ in range(9):
                t, hit = build_time(N, L, tmp)
                assert hit
                warm.append(t)
        builds[N, L] = (cold, statistics.median(warm))
        M = N * (L + 2)
        lines.append(
            f"  {N:>3} {L:>3} {M:>5} {cold:>7.2f}s {statistics.median(warm) * 1e3:>18.1f}ms "
            f"{min(warm) * 1e3:>6.1f}ms"
        )
    lines.append("  (goal at M = 544: cold < 5 s, cached < 50 ms)")
    lines.append("")
    cold, warm = builds[16, 32]
    lines.append(
        f"summary: founding simulate / its kernel <= {worst:.2f} over L = 2, 8, 32 (goal <= 1.1); "
        f"M = 544 / M = 8 ns/event {top:.2f} (goal <= 1.5), exponent {slope:.2f}; "
        f"build at M = 544 cold {cold:.2f} s (goal < 5), cached {warm * 1e3:.0f} ms (goal < 50); "
        f"generated / SimPy >= {best_ratio:.0f}x (goal >= 50x)"
    )
    end = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    lines.append(f"load average at end {end[0]:.1f}")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
