"""Speed of the SQ(d) tools, side by side with their peers in one run.

1. Fixed point, phase-type service with 3 phases (Erlang(3) and a 3-phase Coxian) at
   lam = 0.99, d = 2, 15 digits: Newton with the proved truncation (goal < 1 s) against
   integrating the ODE to steady state (SciPy BDF, analytic Jacobian) to 1e-10.
2. Simulation events/s at N = 10^3, 10^4, 10^5, d = 2, lam = 0.9, exponential service:
   symdelay's event loop (the compiled kernel; the pure-Python twin once, for scale) against
   a SimPy model of the same system (one process per job), all in one run. SimPy's
   events/s hardly depends on the horizon, so it runs ~10^6 events per N; symdelay runs a
   longer horizon (~2 10^7 events) so that its setup does not dominate. Writes
   benchmarks/results/sqd.txt.
3. Convergence to the mean field in N (the report's study, same parameters): d = 2,
   lam = 0.9, Exp(1), N = 10^2 .. 10^5, 10 independent replications per N, 10^8 measured
   events per N; bias of E[T] and fluctuations of s_k(t) with the fitted rates.
"""

from __future__ import annotations

import heapq  # noqa: F401  (the SimPy peer below is self-contained)
import os
import random
import time
from pathlib import Path

import simpy

from symdelay.models.sqd import fixed_point, fluid
from symdelay.models.sqd.convergence import convergence_in_N
from symdelay.models.sqd.fluid import tails
from symdelay.models.sqd.service import service_from_options
from symdelay.models.sqd.simulate import simulate

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


def _record(r):
    """The figures of a run: its events, backend, seconds, events per second, mean sojourn."""
    from types import SimpleNamespace

    i = r.info
    return SimpleNamespace(
        events=int(r.events.sum()), backend=i["backend"], seconds=i["seconds"],
        events_per_second=i["events_per_second"], mean_sojourn=i["mean_sojourn"],
    )  # fmt: skip


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
            end = tails(fluid(2, "0.99", svc, T=T, K=fp.truncation, points=3))[-1]
            if max(abs(end[k] - float(fp.tail[k])) for k in range(fp.truncation)) < 1e-10:
                break
            T *= 2
        t_ode = time.perf_counter() - t0
        lines.append(
            f"  {name:<24} K = {fp.truncation:>3}  Newton {best:.3f} s (goal < 1 s)  "
            f"E[T] = {fp.mean_sojourn}  |  ODE to steady state (T = {T:g}): {t_ode:.2f} s  "
            f"ratio {t_ode / best:.0f}x"
        )
    lines += ["", "2. simulation, d = 2, lam = 0.9, Exp(1) service (events: arrivals + departures)"]
    simulate(100, 2, "0.9", T=10, seed=0)  # compile the kernel outside the timings
    lines.append(
        f"  {'N':>7}  {'implementation':<30} {'T':>6} {'events':>12} {'seconds':>8} "
        f"{'events/s':>12}  E[T]"
    )
    for N in (10**3, 10**4, 10**5):
        T_sim = 2.0e7 / (1.9 * 0.9 * N)  # ~2e7 events after warm-up
        r = _record(simulate(N, 2, "0.9", T=T_sim, seed=1))
        T_py = 1.0e6 / (1.9 * 0.9 * N)
        t0 = time.perf_counter()
        c = simpy_sqd(N, 2, 0.9, T_py, 1)
        t_s = time.perf_counter() - t0
        ev_s = c["events"] / t_s
        lines.append(
            f"  {N:>7}  {'SimPy (process per job)':<30} {T_py:>6.3g} {c['events']:>12,} "
            f"{t_s:>8.2f} {ev_s:>12,.0f}  {c['soj'] / c['n']:.4f} (all jobs, from empty)"
        )
        lines.append(
            f"  {N:>7}  {'symdelay.models.sqd.simulate (' + r.backend + ')':<30} {T_sim:>6.3g} "
            f"{r.events:>12,} {r.seconds:>8.2f} {r.events_per_second:>12,.0f}  "
            f"{r.mean_sojourn:.4f} (after warm-up)"
        )
        if N == 10**4:
            rp = _record(simulate(N, 2, "0.9", T=T_py, seed=1, backend="python"))
            lines.append(
                f"  {N:>7}  {'  same, pure-Python twin':<30} {T_py:>6.3g} {rp.events:>12,} "
                f"{rp.seconds:>8.2f} {rp.events_per_second:>12,.0f}  (fallback without a "
                "C compiler)"
            )
        lines.append(f"  {N:>7}  ratio symdelay / SimPy: {r.events_per_second / ev_s:.0f}x")
    lines += ["", "3. convergence to the mean field, d = 2, lam = 0.9, Exp(1) (95% half-widths)"]
    t0 = time.perf_counter()
    cv = convergence_in_N(
        2, "0.9", Ns=(100, 300, 1000, 3000, 10000, 30000, 100000), replications=10,
        events_per_N=1e8, seed=11,
    )  # fmt: skip
    lines.append(
        f"  mean field E[T] = {cv.mean_field_sojourn:.6f}; warm-up {cv.warmup:g} per run; "
        f"{time.perf_counter() - t0:.0f} s in all"
    )
    lines.append(
        f"  {'N':>7} {'R x T':>11} {'bias E[T]':>22} {'N*bias':>8} {'bias s_1':>20} "
        f"{'bias s_3':>20}  sqrt(N) sd(s_1..3(t))"
    )
    for row in cv.rows:
        b, b1, b3 = row.sojourn_bias, row.tail_bias[0], row.tail_bias[2]
        lines.append(
            f"  {row.N:>7} {row.replications:>3} x {row.T:<7.4g} {b.value:>+11.2e} +- {b.half:.1e} "
            f"{row.N * b.value:>8.2f} {b1.value:>+9.1e} +- {b1.half:.1e} "
            f"{b3.value:>+9.1e} +- {b3.half:.1e}  "
            + " ".join(f"{e.value * row.N**0.5:.3f}" for e in row.fluct_sd)
        )
    for name, f in [("bias E[T]", cv.bias_fit), ("bias s_2", cv.tail_bias_fits[1]),
                    ("bias s_3", cv.tail_bias_fits[2])] + [
        (f"sd s_{k + 1}(t)", g) for k, g in enumerate(cv.fluct_fits)
    ]:  # fmt: skip
        if f is not None:
            lines.append(
                f"  fit {name:<12} ~ C N^-p: p = {f.p:.3f}  95% [{f.lo:.3f}, {f.hi:.3f}]  "
                f"C = {f.C:.3g}  chi2/dof = {f.chi2_dof:.2f}"
            )
    lines += [f"  note: {n}" for n in cv.notes]
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
