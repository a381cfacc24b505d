"""Speed of the simulator generated from a transition table (symdelay.analysis.simulate),
side by side in ONE run:

1. against today's hand-written C kernel (symdelay.simulate) on the founding model, Erlang
   L = 2, eta = 10^4, T = 20, mu = lam = 1, theta = 2, D = 1, from Q1 = 0, Q2 = eta
   (goal: the generated kernel within 2x of the hand-written one, events per second);
2. against SimPy on the hyperexponential-delay model (delay: rate g_a = 1/2 with probability
   3/10, rate g_b = 5 otherwise; benchmarks/simpy_peer_hyperexp.py), same parameters
   (goal: >= 50x the faster SimPy peer); eta = 10^3 over T = 200 and eta = 10^4 over
   T = 20, about 1.2 million events each.

Also: the one-off cost of generating (SymPy cse + printing) and compiling (gcc, cold cache).
Writes benchmarks/results/generated_simulator.txt.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import sympy as sp

sys.path.insert(0, str(Path(__file__).parent))

from simpy_peer_hyperexp import simulate_simpy_hyperexp, simulate_simpy_hyperexp_gillespie

import symdelay
from symdelay.analysis.simulate import GeneratedKernel
from symdelay.core.checks import time_grid
from symdelay.models.erlang.stochastic.simulate import simulate
from symdelay.models.erlang.stochastic.transitions import transition_table

OUT = Path(__file__).parent / "results" / "generated_simulator.txt"
ERLANG = {"L": 2, "mu": 1, "lam": 1, "theta": 2, "D": 1}
HX = {"mu": 1, "lam": 1, "theta": 2, "pa": 0.3, "ga": 0.5, "gb": 5.0}
T = 20


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


def main() -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        "generated_simulator: the kernel generated from a transition table vs the hand-written",
        "C kernel and vs SimPy; exact Gillespie simulation, events per second (best of repeats)",
        f"machine: {os.cpu_count()} cores, load average at start {load:.1f} "
        "(shared machine: absolute numbers vary, the ratios are measured in the same run)",
        "times are CPU seconds of this process (time.process_time; every run is single-threaded),",
        "so other jobs on the machine slow the numbers less than wall-clock time would",
        "",
    ]
    head = f"  {'implementation':<40} {'events':>12} {'CPU s':>9} {'events/s':>14}"

    # one-off costs: generation (SymPy) and a cold compile into an empty cache directory
    m = symdelay.ActionDelayModel(**ERLANG)
    table = transition_table(m)
    t0 = time.perf_counter()
    k_erlang = GeneratedKernel(m.state, table, {})
    t_gen = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        old = os.environ.get("SYMDELAY_CACHE_DIR")
        os.environ["SYMDELAY_CACHE_DIR"] = tmp
        try:
            t0 = time.perf_counter()
            assert GeneratedKernel(m.state, table, {}).c_function() is not None
            t_cc = time.perf_counter() - t0
        finally:
            if old is None:
                del os.environ["SYMDELAY_CACHE_DIR"]
            else:
                os.environ["SYMDELAY_CACHE_DIR"] = old
    k_erlang.c_function()  # the normal cache, outside the timings
    simulate(eta=100, seed=0, **ERLANG)
    lines.append(
        f"one-off, Erlang L=2 table ({len(table)} transitions): generate C + Python source "
        f"{t_gen:.2f} s, gcc -O2 (cold cache) {t_cc:.2f} s; later runs reuse the cached .so"
    )
    lines.append("")

    # 1. generated vs hand-written, founding model
    eta = 10**4
    grid = time_grid(T, 0.1)
    init = np.zeros(6, dtype=np.int64)
    init[1] = eta
    t_h = t_g = float("inf")
    ev_h = ev_g = 0
    for rep in range(7):  # interleaved, so both see the same machine load
        th, r = best_of(lambda rep=rep: simulate(eta=eta, T=T, dt=0.1, seed=rep, **ERLANG), 1)
        tg, (_, eg) = best_of(lambda rep=rep: k_erlang.run(eta, init, grid, seed=rep), 1)
        if r.events / th > ev_h / t_h:
            t_h, ev_h = th, r.events
        if eg / tg > ev_g / t_g:
            t_g, ev_g = tg, eg
    ratio1 = (ev_g / t_g) / (ev_h / t_h)
    lines.append(f"1. founding model {ERLANG}, eta = 10^4, T = {T}, one path, best of 7 seeds")
    lines.append(head)
    lines.append(row("hand-written C kernel (symdelay.simulate)", ev_h, t_h))
    lines.append(row("generated C kernel", ev_g, t_g))
    lines.append(f"  ratio generated / hand-written: {ratio1:.2f} (goal >= 0.5, i.e. within 2x)")
    lines.append("")

    # 2. generated vs SimPy, hyperexponential delay
    k_hx = hyperexp_kernel()
    k_hx.c_function()
    lines.append(f"2. hyperexponential delay {HX} (p_b = 0.7), one path from Q1 = 0, Q2 = eta")
    lines.append(head)
    best_ratio = None
    for e, horizon in ((10**3, 10 * T), (10**4, T)):  # ~1.2 million events each
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
        lines.append(f"  eta = {e}, T = {horizon}")
        for name, (ev, t) in peers.items():
            lines.append(row(name, ev, t))
        lines.append(row("generated C kernel", eg, tg))
        faster = max(ev / t for ev, t in peers.values())
        ratio = (eg / tg) / faster
        best_ratio = ratio if best_ratio is None else min(best_ratio, ratio)
        lines.append(f"  ratio generated / faster SimPy peer: {ratio:.0f}x (goal >= 50x)")
    lines.append("")
    lines.append(
        f"summary: generated / hand-written = {ratio1:.2f} (goal >= 0.5); "
        f"generated / SimPy >= {best_ratio:.0f}x over the eta above (goal >= 50x)"
    )
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
