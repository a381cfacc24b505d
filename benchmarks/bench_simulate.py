"""Speed: events per second of symdelay.simulate (the C kernel generated from the founding
model's transition table) vs SimPy models of the same
process (benchmarks/simpy_peer.py), same parameters, same run: L = 2, eta = 10^4, T = 20,
mu = lam = 1, theta = 2, D = 1, start Q1 = 0, Q2 = eta, Z = 0.

Two SimPy peers: the paper-style process model (one SimPy process per job, one timeout per
transition) and SimPy's best case (one process running the Gillespie chain). The ratio is
taken against the FASTER peer. Also: single-path throughput against eta, and the
multi-replication (threaded) throughput. Writes benchmarks/results/simulate.txt.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from simpy_peer import simulate_simpy, simulate_simpy_gillespie

from symdelay.models.erlang.stochastic.simulate import simulate

OUT = Path(__file__).parent / "results" / "simulate.txt"
P = {"L": 2, "mu": 1, "lam": 1, "theta": 2, "D": 1, "T": 20}


def best_of(fn, repeat):
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> None:
    simulate(eta=100, seed=0, **P)  # compile/load the kernel outside the timing
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        "simulate: exact Gillespie simulation, events per second (best of repeats)",
        f"parameters: {P}, start Q1=0, Q2=eta, Z=0",
        f"machine: {os.cpu_count()} cores, load average at start {load:.1f} "
        "(shared machine: absolute numbers vary, the ratios are measured in the same run)",
        "",
    ]
    eta = 10**4
    t_p, (ev_p, _) = best_of(lambda: simulate_simpy(eta=eta, seed=1, **P), 1)
    t_g, (ev_g, _) = best_of(lambda: simulate_simpy_gillespie(eta=eta, seed=1, **P), 2)
    t_c, r = best_of(lambda: simulate(eta=eta, seed=1, dt=0.1, **P), 7)
    ev_c = int(r.events.sum())
    rates = {"p": ev_p / t_p, "g": ev_g / t_g, "c": ev_c / t_c}
    lines.append(f"eta = 10^4, one path, L=2, T=20 (symdelay backend: {r.info['backend']})")
    lines.append(f"  {'implementation':<34} {'events':>12} {'seconds':>9} {'events/s':>14}")
    lines.append(
        f"  {'SimPy, process per job (paper)':<34} {ev_p:>12,} {t_p:>9.3f} {rates['p']:>14,.0f}"
    )
    lines.append(
        f"  {'SimPy, one Gillespie process':<34} {ev_g:>12,} {t_g:>9.3f} {rates['g']:>14,.0f}"
    )
    lines.append(f"  {'symdelay (C kernel)':<34} {ev_c:>12,} {t_c:>9.3f} {rates['c']:>14,.0f}")
    best = max(rates["p"], rates["g"])
    lines.append(
        f"  ratio symdelay / faster SimPy peer (single path): {rates['c'] / best:.0f}x "
        f"(goal >= 50x); vs process model: {rates['c'] / rates['p']:.0f}x"
    )
    lines.append("")
    lines.append("scaling with eta (one path, L=2, T=20; SimPy process model not run above 10^3)")
    lines.append(
        f"  {'eta':>8} {'SimPy proc ev/s':>16} {'SimPy Gill ev/s':>16} {'symdelay ev/s':>14} "
        f"{'ratio':>7}"
    )
    for e in (10**2, 10**3, 10**4, 10**5):
        if e <= 10**3:
            ts, (es, _) = best_of(lambda e=e: simulate_simpy(eta=e, seed=2, **P), 1)
            proc = f"{es / ts:>16,.0f}"
        else:
            proc = f"{'-':>16}"
        if e <= 10**4:
            tg, (eg, _) = best_of(lambda e=e: simulate_simpy_gillespie(eta=e, seed=2, **P), 1)
            gill_rate = eg / tg
            gill = f"{gill_rate:>16,.0f}"
        else:
            gill_rate, gill = float("nan"), f"{'-':>16}"
        tc, rc = best_of(lambda e=e: simulate(eta=e, seed=2, dt=0.1, **P), 3)
        rate = int(rc.events.sum()) / tc
        ratio = f"{rate / gill_rate:>7.0f}" if gill_rate == gill_rate else f"{'':>7}"
        lines.append(f"  {e:>8} {proc} {gill} {rate:>14,.0f} {ratio}")
    lines.append("")
    tm, rm = best_of(lambda: simulate(eta=eta, seed=3, dt=0.1, replications=8, **P), 3)
    lines.append(
        f"8 replications at eta = 10^4 in 2 threads: {int(rm.events.sum()):,} events in {tm:.3f} s = "
        f"{int(rm.events.sum()) / tm:,.0f} events/s over all replications"
    )
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
