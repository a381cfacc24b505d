"""The hyperexponential-delay model written as a SimPy discrete-event model (benchmark-only
peer of the generated kernel, symdelay.analysis.simulate).

Two infinite-server queues; arrivals at rate 2*eta*lam are routed to server i with the logit
probability of the current scaled queues; the job's action delay is ONE exponential phase,
of rate g_a with probability p_a and of rate g_b otherwise (a hyperexponential delay); then an
Exp(mu) service. Each ``yield env.timeout`` is one transition of the Markov jump process
(arrival, entering service, service completion), so event counts compare directly with the
generated kernel's. Needs the extra ``bench`` (simpy); never imported by the package.
"""

from __future__ import annotations

import math
import random

import simpy


def simulate_simpy_hyperexp(eta, mu, lam, theta, pa, ga, gb, T, seed):
    """Paper-style process model: one SimPy process per job. Returns ``(events, (Q, Z))``
    with ``Z[i] = [jobs in phase a, jobs in phase b]`` for server i."""
    rnd = random.Random(seed)
    env = simpy.Environment()
    Q = [0, eta]
    Z = [[0, 0], [0, 0]]
    counter = {"events": 0}

    def job(i, b):
        yield env.timeout(rnd.expovariate(gb if b else ga))
        Z[i][b] -= 1
        Q[i] += 1
        counter["events"] += 1
        yield env.timeout(rnd.expovariate(mu))
        Q[i] -= 1
        counter["events"] += 1

    def initial_job(i):
        yield env.timeout(rnd.expovariate(mu))
        Q[i] -= 1
        counter["events"] += 1

    def arrivals():
        rate = 2 * eta * lam
        while True:
            yield env.timeout(rnd.expovariate(rate))
            arg = theta * (Q[0] - Q[1]) / eta
            p1 = 0.0 if arg > 700 else 1.0 / (1.0 + math.exp(arg))
            i = 0 if rnd.random() < p1 else 1
            b = 0 if rnd.random() < pa else 1
            Z[i][b] += 1
            env.process(job(i, b))
            counter["events"] += 1

    for _ in range(eta):
        env.process(initial_job(1))
    env.process(arrivals())
    env.run(until=T)
    return counter["events"], (Q, Z)


def simulate_simpy_hyperexp_gillespie(eta, mu, lam, theta, pa, ga, gb, T, seed):
    """SimPy's best case: ONE process drawing the next jump of the whole chain (Gillespie
    inside SimPy: one ``timeout`` per transition)."""
    rnd = random.Random(seed)
    env = simpy.Environment()
    Q = [0, eta]
    Z = [[0, 0], [0, 0]]
    counter = {"events": 0}
    a = 2 * eta * lam

    def chain():
        while True:
            za = Z[0][0] + Z[1][0]
            zb = Z[0][1] + Z[1][1]
            qtot = Q[0] + Q[1]
            R = a + ga * za + gb * zb + mu * qtot
            yield env.timeout(rnd.expovariate(R))
            v = rnd.random() * R
            if v < a:
                arg = theta * (Q[0] - Q[1]) / eta
                p1 = 0.0 if arg > 700 else 1.0 / (1.0 + math.exp(arg))
                i = 0 if rnd.random() < p1 else 1
                Z[i][0 if rnd.random() < pa else 1] += 1
            elif (v := v - a) < ga * za:
                i = 0 if int(v / ga) < Z[0][0] else 1
                Z[i][0] -= 1
                Q[i] += 1
            elif (v := v - ga * za) < gb * zb:
                i = 0 if int(v / gb) < Z[0][1] else 1
                Z[i][1] -= 1
                Q[i] += 1
            else:
                m = min(int((v - gb * zb) / mu), qtot - 1)
                Q[0 if m < Q[0] else 1] -= 1
            counter["events"] += 1

    env.process(chain())
    env.run(until=T)
    return counter["events"], (Q, Z)
