"""Two queues routed on old information, written as a SimPy discrete-event model (the
benchmark-only peer of ``symdelay.simulate`` on examples/models/information_delay.toml and
moving_average.toml).

The system: two infinite-server queues; jobs arrive in one Poisson stream of total rate
``2 lam eta``; the dispatcher sends each to queue 1 with the logit probability
``1 / (1 + exp(theta (a1 - a2)))`` of what it sees, ``a_i`` being

- ``information``: queue i's length ``D`` time units ago, ``Q_i(t - D) / eta``
  (information_delay.toml, a constant lag);
- ``moving_average``: queue i's average length over the last ``Delta`` time units,
  ``(1/Delta) int_{t-Delta}^t Q_i(s) ds / eta`` (moving_average.toml, a uniform lag on
  ``[0, Delta]``);

each job is served for an Exp(mu) time. Before time 0 the queues are held at their initial
lengths (the fluid's and the simulation's history contract).

Written as SimPy invites: a dispatcher process (one ``timeout`` per arrival), a process per
job (one ``timeout`` for its service), and the history the dispatcher reads kept as a deque
of ``(time, I1, I2, Q1, Q2)`` -- the state after every change and the running integrals of
the queue lengths at that time -- trimmed at each arrival to the window it still needs (the
last entry at or before ``t - D``, resp. ``t - Delta``). The running integrals make the
moving average O(1) per arrival (a peer that re-summed the window per arrival would be
quadratic: not a fair opponent). Each ``timeout`` of an arrival or a service is one
transition of the Markov jump process, so ``events`` compares with the jump counts of
``symdelay.simulate``.

:func:`simulate_simpy_lag_gillespie` is SimPy's best case for comparison: ONE process that
draws the next jump of the whole chain (Gillespie inside SimPy: one ``timeout`` per
transition, a heap of size 1), with the same history.

Needs the extra ``bench`` (simpy); never imported by the package.
"""

from __future__ import annotations

import math
import random
from collections import deque

import simpy

__all__ = ["simulate_simpy_lag", "simulate_simpy_lag_gillespie"]

READS = ("information", "moving_average")


class _History:
    """What the dispatcher reads: a deque of ``(time, I1, I2, Q1, Q2)``, the state from
    ``time`` on and the running integrals ``I_i = int_{-lag}^{time} Q_i ds``, trimmed to the
    last entry at or before ``t - lag`` whenever it is read."""

    def __init__(self, reads, lag, Q):
        if reads not in READS:
            raise ValueError(f"reads must be one of {READS}, got {reads!r}")
        if not lag > 0:
            raise ValueError(f"the lag must be > 0, got {lag}")
        self.average = reads == "moving_average"
        self.lag = lag
        self.entries = deque([(-lag, 0.0, 0.0, Q[0], Q[1])])
        self.longest = 1

    def changed(self, now, Q):
        """The state after a change at ``now`` (with the integrals up to now)."""
        t0, i1, i2, q1, q2 = self.entries[-1]
        h = now - t0
        self.entries.append((now, i1 + q1 * h, i2 + q2 * h, Q[0], Q[1]))

    def seen(self, t):
        """What the dispatcher reads at ``t`` (in jobs): the lengths at ``t - D``, or the
        averages over ``[t - Delta, t]``."""
        back = t - self.lag
        entries = self.entries
        while len(entries) > 1 and entries[1][0] <= back:
            entries.popleft()
        if len(entries) > self.longest:
            self.longest = len(entries)
        t0, i1, i2, q1, q2 = entries[0]
        if not self.average:
            return q1, q2
        # I(t - Delta) from the first entry, I(t) from the last one
        h0 = back - t0
        t1, j1, j2, p1, p2 = entries[-1]
        h1 = t - t1
        return (j1 + p1 * h1 - i1 - q1 * h0) / self.lag, (j2 + p2 * h1 - i2 - q2 * h0) / self.lag


def _route(rnd, theta, eta, seen) -> int:
    """Queue 0 with the logit probability of what the dispatcher sees, else queue 1."""
    arg = theta * (seen[0] - seen[1]) / eta
    p1 = 0.0 if arg > 700 else 1.0 / (1.0 + math.exp(arg))
    return 0 if rnd.random() < p1 else 1


def _recorder(env, grid, T, Q, eta, paths):
    """A process writing the scaled queues at the grid times before T (SimPy stops before
    the events at T: those rows are filled after the run)."""
    for k, tk in enumerate(grid):
        if tk >= T:
            return
        if tk > env.now:
            yield env.timeout(tk - env.now)
        paths[k] = (Q[0] / eta, Q[1] / eta)


def _finish(stats, Q, eta, paths, history):
    if paths is not None:
        paths = [p if p is not None else (Q[0] / eta, Q[1] / eta) for p in paths]
    return {**stats, "final": tuple(Q), "paths": paths, "history_max": history.longest}


def simulate_simpy_lag(
    eta, mu, lam, theta, lag, T, seed, *, reads="information", initial=(1.5, 1.0), grid=None
):
    """The process model: one path on ``[0, T]`` from ``round(eta * initial)`` jobs (held so
    before 0).

    ``lag`` is ``D`` (``reads="information"``) or ``Delta`` (``reads="moving_average"``).
    Returns a dict: ``events`` (arrivals + services), ``arrivals``, ``final`` (the two
    counts at T), ``paths`` (the scaled queues at the times of ``grid``, a list of pairs,
    when a grid is given) and ``history_max`` (the longest the dispatcher's history got).
    """
    rnd = random.Random(seed)
    env = simpy.Environment()
    Q = [round(eta * initial[0]), round(eta * initial[1])]
    history = _History(reads, lag, Q)
    stats = {"events": 0, "arrivals": 0}

    def job(i):
        yield env.timeout(rnd.expovariate(mu))
        Q[i] -= 1
        history.changed(env.now, Q)
        stats["events"] += 1

    def dispatcher():
        rate = 2 * lam * eta
        while True:
            yield env.timeout(rnd.expovariate(rate))
            i = _route(rnd, theta, eta, history.seen(env.now))
            Q[i] += 1
            history.changed(env.now, Q)
            stats["events"] += 1
            stats["arrivals"] += 1
            env.process(job(i))

    for i in (0, 1):
        for _ in range(Q[i]):
            env.process(job(i))
    env.process(dispatcher())
    paths = None if grid is None else [None] * len(grid)
    if grid is not None:
        env.process(_recorder(env, [float(t) for t in grid], T, Q, eta, paths))
    env.run(until=T)
    return _finish(stats, Q, eta, paths, history)


def simulate_simpy_lag_gillespie(
    eta, mu, lam, theta, lag, T, seed, *, reads="information", initial=(1.5, 1.0), grid=None
):
    """SimPy's best case: ONE process drawing the next jump of the whole chain (total rate
    ``2 lam eta + mu (Q1 + Q2)``), the same history; same arguments and result as
    :func:`simulate_simpy_lag`."""
    rnd = random.Random(seed)
    env = simpy.Environment()
    Q = [round(eta * initial[0]), round(eta * initial[1])]
    history = _History(reads, lag, Q)
    stats = {"events": 0, "arrivals": 0}
    a = 2 * lam * eta

    def chain():
        while True:
            R = a + mu * (Q[0] + Q[1])
            yield env.timeout(rnd.expovariate(R))
            v = rnd.random() * R
            if v < a:
                Q[_route(rnd, theta, eta, history.seen(env.now))] += 1
                stats["arrivals"] += 1
            else:
                Q[0 if v - a < mu * Q[0] else 1] -= 1
            history.changed(env.now, Q)
            stats["events"] += 1

    env.process(chain())
    paths = None if grid is None else [None] * len(grid)
    if grid is not None:
        env.process(_recorder(env, [float(t) for t in grid], T, Q, eta, paths))
    env.run(until=T)
    return _finish(stats, Q, eta, paths, history)
