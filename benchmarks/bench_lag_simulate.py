"""Exact simulation of delay models (``symdelay.simulate`` on a model with lags), side by side
in ONE run:

0. the peers are right before they are timed: at eta = 400, the mean of 30 paths of the
   SimPy process model (benchmarks/simpy_peer_lag.py) and of symdelay lie within their
   confidence bands (Bonferroni over the times and states, family-wise level 10^-3) of the
   fluid path of the same model (``symdelay.fluid``, the method of steps), for
   information_delay (D = 1) and moving_average (Delta = 1), mu = lam = 1, theta = 2, from
   q = (1.5, 1) held before 0; and at eta = 5 (far from the fluid) SimPy and symdelay agree
   in law (means and second moments at eight times; SimPy with a lag 20% short, for the
   power of the check, does not);
1. per-event cost of symdelay on information_delay and moving_average against the same
   table without lags (written here: the rates with ``delayed(q_i, lag)`` replaced by
   ``q_i``), eta = 10^4, one path of ~2 million events, through the entry
   (``symdelay.simulate``), median of 7 interleaved seeds (goal: within 2x);
2. against SimPy on the same systems: the process model (a dispatcher process, a process
   per job; the goal: symdelay >= 30x faster) and SimPy's best case, one process drawing
   the next jump of the whole chain; eta = 1000, T = 50 (~200 000 events), the same
   (eta, T) for symdelay;
3. memory of the history: the kernel's ring of the past (capacity and the most entries in
   use) against the lag and the horizon (goal: bounded by the longest lag: doubling T does
   not grow it, doubling D doubles it), at theta = 1/2 (stable at every lag) from the
   equilibrium, and at theta = 2, D = 4 (oscillating); beside the longest the SimPy peer's
   history got. The figures are read from the record (its ``info["memory"]``, see
   :func:`history_figures`).

4. the announcement (``dot()`` read through the lag: the drift recursion, O(t/D) per
   routing draw, the path kept whole) per jump against the same table without lags at
   T/D = 5, 20, 50 (the 2x goal is per event of a look-up; this cost grows with t/D and is
   reported as measured); ``python benchmarks/bench_lag_simulate.py announcement`` runs
   this section alone (writes benchmarks/results/lag_simulate_announcement.txt).

Times are CPU seconds (time.process_time) of single-threaded runs. ns/event counts the jumps
of the Markov process (arrivals and services; the same count in SimPy). Writes
benchmarks/results/lag_simulate.txt.
"""

from __future__ import annotations

import math
import os
import statistics
import sys
import time
import tomllib
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).parent))

from simpy_peer_lag import simulate_simpy_lag, simulate_simpy_lag_gillespie

from symdelay import fluid, simulate
from symdelay.model import load_toml
from symdelay.model.core import model_from_dict

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "models"
OUT = Path(__file__).parent / "results" / "lag_simulate.txt"
BASE = {"mu": 1, "lam": 1, "theta": 2}
#: the examples timed, with their lag parameters
LAGGED = {
    "information_delay": {"D": 1},
    "moving_average": {"Delta": 1},
    "two_lag_mixture": {"D1": "1/2", "D2": 2, "w": "3/10"},
    "constant_action_delay": {"D": 1},
}
#: the systems of the SimPy peer: example -> (how the peer reads, the lag parameter)
SYSTEMS = {
    "information_delay": ("information", "D"),
    "moving_average": ("moving_average", "Delta"),
}
#: theta of the memory rows: lam theta < mu, stable whatever the lag
THETA_STABLE = 0.5
INITIAL = (1.5, 1.0)  # the models' default start: the equilibrium (1, 1), q1 raised by half


def lag_model(name, lag=None, theta=2):
    values = dict(LAGGED[name])
    if lag is not None:
        values[SYSTEMS[name][1]] = lag
    return load_toml(EXAMPLES / f"{name}.toml", **{**BASE, "theta": theta}, **values)


def no_lag_model(name):
    """The same table without lags: every ``delayed(q_i, lag)`` read as ``q_i``, an
    action-delayed transition taking effect at once."""
    data = tomllib.loads((EXAMPLES / f"{name}.toml").read_text())
    lags = data.pop("lags")
    for param in LAGGED[name]:
        del data["parameters"][param]
    for t in data["transitions"]:
        t.pop("lag", None)
        for lag in lags:
            for q in ("q1", "q2"):
                t["rate"] = t["rate"].replace(f"delayed({q}, {lag})", q)
        assert "delayed" not in t["rate"], t["rate"]
    data["name"] += " (read without lags)"
    return model_from_dict(data, source=f"{name} without lags", values=BASE)


def landings(model, sim) -> int:
    """The action-delayed jumps that took effect during a simulation (the record counts the
    decisions): from the counts' balance, ``final - initial - sum of the other jumps``,
    each action-delayed transition adding one job to a state of its own."""
    acts = [t for t in model.transitions if t.lag]
    if not acts:
        return 0
    change = np.asarray(sim.parameters["initial"], dtype=np.int64) * 0
    for t, c in zip(model.transitions, np.asarray(sim.info["transition_counts"]).sum(axis=0)):
        if not t.lag:
            change += np.asarray(t.change, dtype=np.int64) * int(c)
    net = np.asarray(sim.info["final"]).sum(axis=0) - sim.parameters["initial"] - change
    targets = [tuple(t.change) for t in acts]
    assert len(set(targets)) == len(targets) and all(
        sorted(v) == [0] * (len(v) - 1) + [1] for v in targets
    )
    return int(net.sum())


def jumps(sim) -> int:
    """The jumps of the Markov process in a simulation record (its transitions' counts)."""
    counts = sim.info.get("transition_counts")
    if counts is None:
        return int(np.sum(sim.events))
    return int(np.sum(np.asarray(counts)))


def within_band(P, x, level=1e-3):
    """``(max |mean - x| / se, z)``: the mean of the paths ``P`` (replication, time, state)
    against ``x`` at every time after 0, with the Bonferroni quantile ``z`` of ``level``."""
    P, x = P[:, 1:, :], x[1:, :]
    se = P.std(axis=0, ddof=1) / math.sqrt(len(P))
    z = float(stats.norm.isf(level / (2 * x.size)))
    return float((np.abs(P.mean(axis=0) - x) / se).max()), z


def check_peers(lines) -> None:
    eta, R, T, dt = 400, 30, 8.0, 0.5
    lines.append(
        f"0. the peers against the fluid path: eta = {eta}, mean of {R} paths on t = {dt}, "
        f"{2 * dt}, ..., {T}, in standard errors (band: Bonferroni at family-wise 10^-3)"
    )
    lines.append(f"  {'model':<20} {'SimPy process':>14} {'symdelay':>9} {'band':>6}")
    grid = np.arange(0, T + 1e-9, dt)
    for name, (reads, _) in SYSTEMS.items():
        m = lag_model(name)
        x = fluid(m, T=T, dt=dt).values[0]
        peer = np.array(
            [
                simulate_simpy_lag(eta, 1, 1, 2, 1, T, seed, reads=reads, grid=grid)["paths"]
                for seed in range(R)
            ]
        )
        ours = simulate(m, eta=eta, T=T, dt=dt, seed=5, replications=R).values
        dp, z = within_band(peer, x)
        do, _ = within_band(ours, x)
        lines.append(f"  {name:<20} {dp:>14.2f} {do:>9.2f} {z:>6.2f}")
        if dp > z or do > z:
            raise SystemExit(f"{name}: a simulation is off the fluid path:\n" + "\n".join(lines))
    # small eta: the two exact simulators agree in law (the fluid is far: O(1/eta) bias)
    eta, R, T = 5, 4000, 4.0
    grid = np.arange(0, T + 1e-9, dt)
    lines.append(
        f"  in law at eta = {eta}, from q = (3, 0) (counts 15, 0): {R} paths of each, the mean "
        "and the second moment of q1, q2 at t = 0.5, 1, ..., 4, Welch z of SimPy - symdelay "
        "(band: Bonferroni at family-wise 10^-3); SimPy with the lag 20% short: the check's "
        "power"
    )
    lines.append(f"  {'model':<20} {'max |z|':>8} {'lag 0.8':>8} {'band':>6}")
    for name, (reads, _) in SYSTEMS.items():
        ours = simulate(
            lag_model(name), eta=eta, T=T, dt=dt, seed=9, replications=R, initial=[15, 0]
        ).values[:, 1:, :]
        row = []
        for lag in (1.0, 0.8):
            peer = np.array(
                [
                    simulate_simpy_lag(
                        eta, 1, 1, 2, lag, T, seed, reads=reads, grid=grid, initial=(3, 0)
                    )["paths"]
                    for seed in range(R)
                ]
            )[:, 1:, :]
            zs = [
                (a.mean(0) - b.mean(0)) / np.sqrt((a.var(0, ddof=1) + b.var(0, ddof=1)) / R)
                for a, b in ((peer, ours), (peer**2, ours**2))
            ]
            row.append(float(np.abs(zs).max()))
        z = float(stats.norm.isf(1e-3 / (2 * 2 * ours[0].size)))
        lines.append(f"  {name:<20} {row[0]:>8.2f} {row[1]:>8.2f} {z:>6.2f}")
        if row[0] > z:
            raise SystemExit(f"{name}: SimPy and symdelay differ in law:\n" + "\n".join(lines))
    lines.append("")


def cpu(fn):
    t0 = time.process_time()
    out = fn()
    return time.process_time() - t0, out


def main() -> None:
    load = os.getloadavg()
    lines = [
        "lag_simulate: exact simulation of delay models (symdelay.simulate: the kernel generated",
        "from the table, the lagged values read from the history of the piecewise-constant",
        "path) against the same table without lags and against SimPy",
        f"machine: {os.cpu_count()} cores, load average at start {load[0]:.1f} "
        "(shared machine: absolute numbers vary, the ratios are measured in the same run)",
        "times are CPU seconds of this process (time.process_time; single-threaded runs);",
        "ns/event per jump of the Markov process (arrivals and services)",
        "",
    ]
    check_peers(lines)

    # 1. per-event cost against the table without lags
    eta, T = 10**4, 50.0
    models = {}
    for name in LAGGED:
        models[name] = lag_model(name)
        models[f"{name} without lags"] = no_lag_model(name)
    for m in models.values():  # compile / load outside the timings
        simulate(m, eta=100, T=1, dt=1, seed=0)
    times = {k: [] for k in models}
    kernel_events = {k: [] for k in models}  # the jumps and the landings of action delays
    for rep in range(7):  # interleaved, so all see the same machine load
        for k, m in models.items():
            s, sim = cpu(lambda m=m, rep=rep: simulate(m, eta=eta, T=T, dt=T / 50, seed=rep))
            times[k].append(s / jumps(sim) * 1e9)
            kernel_events[k].append(s / (jumps(sim) + landings(m, sim)) * 1e9)
    lines.append(
        f"1. symdelay per event against the same table without lags: eta = 10^4, T = {T:g}, "
        "one path (~2 million jumps) through symdelay.simulate, median of 7 interleaved seeds "
        "(the action delay's jumps are its decisions and services; each decision also lands "
        "D later, work counted in its cost)"
    )
    lines.append(
        f"  {'model':<22} {'lags ns/ev':>11} {'no lags ns/ev':>14} {'ratio':>7}"
        f"   {'per kernel event (landings included)':>38}"
    )
    ratios, landed = {}, {}
    for name in LAGGED:
        a = statistics.median(times[name])
        b = statistics.median(times[f"{name} without lags"])
        ratios[name] = a / b
        extra = ""
        if any(t.lag for t in models[name].transitions):
            c = statistics.median(kernel_events[name])
            landed[name] = c / b
            extra = f"   {c:>10.1f} ns, {c / b:.2f} x the table without lags"
        lines.append(f"  {name:<22} {a:>11.1f} {b:>14.1f} {a / b:>7.2f}{extra}")
    info = max(v for k, v in ratios.items() if k not in landed)
    lines.append(
        f"  worst ratio of the information lags {info:.2f}, of the action delay per jump "
        f"{max(ratios[k] for k in landed):.2f} and per kernel event "
        f"{max(landed.values()):.2f} (goal <= 2)"
    )
    lines.append("")

    # 2. against SimPy
    eta, T = 1000, 50.0
    lines.append(
        f"2. against SimPy, eta = {eta}, T = {T:g}, one path (~200 000 jumps); SimPy best of 2, "
        "symdelay median of 5"
    )
    lines.append(
        f"  {'model':<20} {'SimPy proc':>11} {'SimPy Gill':>11} {'symdelay':>9} "
        f"{'x proc':>7} {'x Gill':>7}   (ns/event)"
    )
    worst = None
    for name, (reads, _) in SYSTEMS.items():
        peer = {}
        for label, fn in (("proc", simulate_simpy_lag), ("gill", simulate_simpy_lag_gillespie)):
            best = math.inf
            for seed in (1, 2):
                s, out = cpu(
                    lambda fn=fn, seed=seed, reads=reads: fn(eta, 1, 1, 2, 1, T, seed, reads=reads)
                )
                best = min(best, s / out["events"] * 1e9)
            peer[label] = best
        ours = []
        for seed in range(5):
            s, sim = cpu(
                lambda m=models[name], seed=seed: simulate(m, eta=eta, T=T, dt=1, seed=seed)
            )
            ours.append(s / jumps(sim) * 1e9)
        o = statistics.median(ours)
        rp, rg = peer["proc"] / o, peer["gill"] / o
        worst = rp if worst is None else min(worst, rp)
        lines.append(
            f"  {name:<20} {peer['proc']:>11.0f} {peer['gill']:>11.0f} {o:>9.1f} "
            f"{rp:>6.0f}x {rg:>6.0f}x"
        )
    lines.append(f"  symdelay / SimPy process model >= {worst:.0f}x (goal >= 30x)")
    lines.append("")

    # 3. memory of the history
    lines.append(
        "3. memory of the history: the kernel's rings against the lag and the "
        "horizon, eta = 10^4, one path from the equilibrium; the SimPy peer's longest deque "
        "at eta = 1000 for comparison"
    )
    peaks = history_rows(lines)
    growth_T = max(
        peaks[n, lag, 40.0]["peak"] / peaks[n, lag, 20.0]["peak"]
        for n in SYSTEMS
        for lag in (1, 2, 4)
    )
    per_lag = [
        peaks[n, 2 * lag, 40.0]["peak"] / peaks[n, lag, 40.0]["peak"]
        for n in SYSTEMS
        for lag in (1, 2)
    ]
    lines.append(
        f"  peak in use, T = 40 / T = 20: at most {growth_T:.2f} (goal: ~1); lag 2x / lag: "
        f"{min(per_lag):.2f}-{max(per_lag):.2f} (goal: ~2); rings never grew: "
        f"{all(h['grows'] == 0 for h in peaks.values())}"
    )
    lines.append("")
    lines.append(
        f"summary: lags / no lags per event <= {info:.2f} for information lags, "
        f"{max(ratios[k] for k in landed):.2f} per jump for the action delay (goal <= 2); "
        f"symdelay / SimPy process model >= {worst:.0f}x (goal >= 30x); history peak "
        f"T 2x: {growth_T:.2f}x, lag 2x: {min(per_lag):.2f}-{max(per_lag):.2f}x"
    )
    lines.append("")
    growth = announcement_rows(lines)
    lines.append(
        "announcement per jump against the table without lags at T/D = 5, 20, 50: "
        + ", ".join(f"{r:.2f}" for r in growth.values())
    )
    lines.append(f"load average at end {os.getloadavg()[0]:.1f}")
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


def history_figures(model, eta, T, seed=1) -> dict:
    """The history of one run of ``model`` through the entry, read from the record's
    ``info["memory"]``: the ring's capacity per channel when it starts (sized by the entry's
    estimate) and at the end, the times it grew (it doubles), and the most entries in use
    (a channel's head minus its oldest pointer, plus one, kept by the kernel at every
    entry), from the equilibrium held before 0."""
    point = model.equilibrium.point  # from the equilibrium: the stationary history
    X0 = [round(float(point[q]) * eta) for q in model.states]
    s = simulate(model, eta=eta, T=T, dt=T, initial=X0, seed=seed)
    mem = s.info["memory"]
    ch = mem["channels"]
    first, last = ch[0]["capacity_first"], ch[0]["capacity"]
    return {
        "channels": len(ch),
        "first": first,
        "last": last,
        "grows": round(math.log2(last / first)),
        "peak": max(c["peak_in_use"] for c in ch),
        "bytes": mem["bytes_allocated"],
        "events": int(s.events.sum()),
    }


def history_rows(lines) -> dict:
    eta = 10**4
    lines.append(
        f"  {'model':<18} {'lag':>4} {'T':>4} {'events':>10} {'ring (entries)':>21} "
        f"{'grew':>5} {'peak in use':>12} {'MB':>6}"
    )

    def row(name, lag, T, theta):
        h = history_figures(lag_model(name, lag, theta=theta), eta, T)
        ring = f"{h['first']:,}->{h['last']:,}"
        lines.append(
            f"  {name:<18} {lag:>4} {T:>4.0f} {h['events']:>10,} {ring:>21} {h['grows']:>5} "
            f"{h['peak']:>12,} {h['bytes'] / 2**20:>6.1f}"
        )
        return h

    lines.append(f"  theta = {THETA_STABLE} (lam theta < mu: stable at every lag)")
    peaks = {}
    for name in SYSTEMS:
        for lag in (1, 2, 4):
            for T in (20.0, 40.0):
                peaks[name, lag, T] = row(name, lag, T, THETA_STABLE)
    lines.append(
        "  theta = 2, D = 4 (above the critical lag 1.209: the path oscillates and a window "
        "holds more changes while the amplitude grows, at most all arrivals and the services "
        "of the whole system in one queue, ~4 eta per unit time: 160,000 over D = 4)"
    )
    for T in (20.0, 40.0, 80.0):
        row("information_delay", 4, T, 2)
    lines.append(
        "  (ring: entries per channel, one channel per lagged expression (q1, q2): allocated "
        "at the start from the entry's estimate, 2 x events per unit time x the longest lag or T, "
        "rounded up to a power of 2, and at the end; peak in use: head minus the oldest "
        "pointer, plus one, the most at any entry)"
    )
    lines.append(
        f"  SimPy process model, eta = 1000, theta = {THETA_STABLE}: the longest deque of "
        "(time, integrals, state)"
    )
    for name, (reads, _) in SYSTEMS.items():
        cells = []
        for lag in (1, 2):
            for T in (20.0, 40.0):
                out = simulate_simpy_lag(1000, 1, 1, THETA_STABLE, lag, T, 3, reads=reads)
                cells.append(f"lag {lag} T {T:.0f}: {out['history_max']:,}")
        lines.append(f"  {name:<18} " + "; ".join(cells))
    return peaks


# ---------------------------------------------------------------------------------------
# 4. the announcement: dot() read through the lag, the drift recursion
ANNOUNCE = {"D": 1, "p": "1/5"}
ANNOUNCE_OUT = Path(__file__).parent / "results" / "lag_simulate_announcement.txt"


def announcement_pair():
    """The announcement (mu = lam = 1, theta = 2, D = 1, p = 1/5: lam theta p < 1) and the
    same table without lags (every ``delayed(q_i + p*dot(q_i), tau)`` read as ``q_i``)."""
    path = EXAMPLES / "announcement.toml"
    ann = load_toml(path, **BASE, **ANNOUNCE)
    data = tomllib.loads(path.read_text())
    data.pop("lags")
    for param in ANNOUNCE:
        del data["parameters"][param]
    for t in data["transitions"]:
        for q in ("q1", "q2"):
            t["rate"] = t["rate"].replace(f"delayed({q} + p*dot({q}), tau)", q)
        assert "delayed" not in t["rate"], t["rate"]
    data["name"] += " (read without lags)"
    return ann, model_from_dict(data, source="announcement without lags", values=BASE)


def announcement_rows(lines) -> dict:
    """Per jump, the announcement against the same table without lags at T / D = 5, 20, 50
    (eta = 10^4, one path from (1.5, 1) held before 0, median of 5 interleaved seeds), and
    the path the recursion kept (read from the record's ``info["memory"]``)."""
    ann, plain = announcement_pair()
    for m in (ann, plain):  # compile / load outside the timings
        simulate(m, eta=100, T=1, dt=1, seed=0)
    eta = 10**4
    X0 = [round(q * eta) for q in INITIAL]
    lines.append(
        "4. the announcement (dot() read through the lag: at each routing draw the drift "
        "recursion through t - D, t - 2 D, ... down to the history, O(t/D) per draw; the path "
        "kept whole), mu = lam = 1, theta = 2, D = 1, p = 1/5, eta = 10^4, one path from "
        "(1.5, 1) held before 0, per jump against the same table without lags, median of 5 "
        "interleaved seeds"
    )
    lines.append(
        f"  {'T/D':>5} {'jumps':>10} {'lags ns/ev':>11} {'no lags ns/ev':>14} {'ratio':>7} "
        f"{'mean depth':>11} {'ns per level':>13} {'path entries':>13} {'MB':>6}"
    )
    out = {}
    for T in (5.0, 20.0, 50.0):
        times = {"ann": [], "plain": []}
        mem = None
        events = 0
        for rep in range(5):
            for k, m in (("ann", ann), ("plain", plain)):
                s, sim = cpu(
                    lambda m=m, rep=rep, T=T: simulate(
                        m, eta=eta, T=T, dt=T / 50, seed=rep, initial=X0
                    )
                )
                times[k].append(s / jumps(sim) * 1e9)
                if k == "ann":
                    mem, events = sim.info["memory"], jumps(sim)
        a, b = statistics.median(times["ann"]), statistics.median(times["plain"])
        rec = mem["recursion"]
        depth = T / 2.0 / float(ANNOUNCE["D"])  # the mean level count of a draw in [0, T]
        # half of the jumps are routing draws (arrivals: 2 lam; services: 2 mu q ~ 2)
        per_level = (a - b) / (0.5 * depth)
        out[T] = a / b
        lines.append(
            f"  {T:>5.0f} {events:>10,} {a:>11.1f} {b:>14.1f} {a / b:>7.2f} {depth:>11.1f} "
            f"{per_level:>13.1f} {rec['peak_in_use']:>13,} {mem['bytes_allocated'] / 2**20:>6.1f}"
        )
    lines.append(
        "  (the cost grows with t/D: each routing draw evaluates the drift at every level "
        "t - j D >= 0, two exponentials per level here; the issue's 2x per event holds for "
        "lags read by look-up, not for this recursion; the path is one entry of 3 numbers per jump)"
    )
    return out


def announcement_main() -> None:
    lines = [
        "lag_simulate_announcement: exact simulation of the announcement (symdelay.simulate)",
        f"machine: {os.cpu_count()} cores, load average at start {os.getloadavg()[0]:.1f} "
        "(shared machine: absolute numbers vary, the ratios are measured in the same run)",
        "times are CPU seconds of this process (time.process_time; single-threaded runs)",
        "",
    ]
    announcement_rows(lines)
    lines.append(f"load average at end {os.getloadavg()[0]:.1f}")
    ANNOUNCE_OUT.parent.mkdir(exist_ok=True)
    ANNOUNCE_OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    if sys.argv[1:] == ["announcement"]:  # section 4 only (the SimPy peers take minutes)
        announcement_main()
    else:
        main()
