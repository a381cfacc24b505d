"""Speed of the SQ(d) tools, side by side with their peers in one run.

1. Fixed point, phase-type service with 3 phases (Erlang(3) and a 3-phase Coxian) at
   lam = 0.99, d = 2, 15 digits: Newton with the proved truncation (goal < 1 s) against
   integrating the ODE to steady state (SciPy BDF, analytic Jacobian) to 1e-10.
2. Simulation events/s at N = 10^4, d = 2, lam = 0.9, exponential service: symdelay's event
   loop against a SimPy model of the same system (one process per job). Writes
   benchmarks/results/sqd.txt.
"""

from __future__ import annotations

import heapq  # noqa: F401  (the SimPy peer below is self-contained)
import os
import random
import time
from pathlib import Path

import simpy

from symdelay.sqd import fixed_point, fluid
from symdelay.sqd.service import service_from_options
from symdelay.sqd.simulate import simulate

OUT = Path(__file__).parent / "results" / "sqd.txt"


def simpy_sqd(N, d, lam, T, seed):
    """SimPy peer: every server a Resource(capacity=1); every job a process (FCFS)."""
    rnd = random.Random(seed)
    env = simpy.Environment()
    servers = [simpy.Resource(env, capacity=1) for _ in range(N)]
    count = {"events": 0, "soj": 0.0, "n": 0}

    def job(i, t0):
        with servers[i].request() as req:
            yield req
            yield env.timeout(rnd.expovariate(1.0))
        count["events"] += 1
        count["soj"] += env.now - t0
        count["n"] += 1

    def arrivals():
        while True:
            yield env.timeout(rnd.expovariate(lam * N))
            best, bl = 0, 1 << 60
            for _ in range(d):
                i = rnd.randrange(N)
                q = len(servers[i].queue) + servers[i].count
                if q < bl:
                    best, bl = i, q
            env.process(job(best, env.now))
            count["events"] += 1

    env.process(arrivals())
    env.run(until=T)
    return count


def main() -> None:
    load = os.getloadavg()[0]
    lines = [
        "sqd: SQ(d) fixed point and simulation",
        f"machine: {os.cpu_count()} cores, load average at start {load:.1f} (shared machine; "
        "ratios are measured in the same run)",
        "",
        "1. fixed point, d = 2, lam = 0.99, 15 digits (best of 3)",
    ]
    for name, svc in (
        ("Erlang(3)", service_from_options("erlang", k=3)),
        ("Coxian(1,2,4; 1/2,1/4)", service_from_options("coxian", rates="1,2,4", probs="0.5,0.25")),
    ):
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            fp = fixed_point(2, "0.99", svc, dps=15)
            best = min(best, time.perf_counter() - t0)
        t0 = time.perf_counter()
        T = 50.0
        while True:  # integrate until the tail stops moving (1e-10)
            tr = fluid(2, "0.99", svc, T=T, K=fp.truncation, points=3)
            if max(abs(tr.tail[-1][k] - float(fp.tail[k])) for k in range(fp.truncation)) < 1e-10:
                break
            T *= 2
        t_ode = time.perf_counter() - t0
        lines.append(
            f"  {name:<24} K = {fp.truncation:>3}  Newton {best:.3f} s (goal < 1 s)  "
            f"E[T] = {fp.mean_sojourn}  |  ODE to steady state (T = {T:g}): {t_ode:.2f} s  "
            f"ratio {t_ode / best:.0f}x"
        )
    lines += ["", "2. simulation, N = 10^4, d = 2, lam = 0.9, Exp(1) service"]
    N, Tsim = 10**4, 100.0
    simulate(100, 2, "0.9", T=10, seed=0)
    r = simulate(N, 2, "0.9", T=Tsim, seed=1)
    t0 = time.perf_counter()
    c = simpy_sqd(N, 2, 0.9, Tsim, 1)
    t_s = time.perf_counter() - t0
    ev_s = c["events"] / t_s
    lines.append(f"  {'implementation':<28} {'events':>12} {'seconds':>9} {'events/s':>12}  E[T]")
    lines.append(
        f"  {'SimPy (process per job)':<28} {c['events']:>12,} {t_s:>9.2f} {ev_s:>12,.0f}  {c['soj'] / c['n']:.4f} (all jobs, from empty)"
    )
    lines.append(
        f"  {'symdelay.sqd.simulate':<28} {r.events:>12,} {r.seconds:>9.2f} {r.events_per_second:>12,.0f}  {r.mean_sojourn:.4f} (after warm-up)"
    )
    lines.append(f"  ratio symdelay / SimPy: {r.events_per_second / ev_s:.1f}x")
    r5 = simulate(10**5, 2, "0.9", T=20, seed=2)
    lines.append(f"  N = 10^5, T = 20: {r5.events:,} events, {r5.events_per_second:,.0f} events/s")
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
