"""SQ(d) with an Erlang(L, mean D) action delay: simulation and a finite mean field.

The dispatcher samples d queues at the arrival instant and picks the shortest by the
*current* lengths; the job reaches that server only after an Erlang(L, D) delay. Jobs in
flight are invisible to later samplings, so during one delay many arrivals pick the same
short queues (herding).

Mean field (exponential service of mean 1). A queue's type is ``(k, n_1..n_L)``: its length
and the numbers of jobs in flight to it in each delay phase. With ``f`` the fractions of
types and ``s_k`` the fraction of queues of length >= k (in-flight jobs not counted), a
queue of length k receives dispatches at rate ``lam P_d(s_k, s_{k+1})``; in-flight jobs
move through the phases at rate ``gamma = L/D``, landing adds one to k, and service removes
one at rate 1. This is a finite ODE once k <= K and n_1 + ... + n_L <= M (mass that would
leave the box is kept at its edge, and the mass at the edge is reported).

>>> mf = delayed_fixed_point(2, "0.5", L=1, D="0.5", K=12, M=6)
>>> abs(mf.tail[0] - 0.5) < 1e-6
True
"""

from __future__ import annotations

import itertools
from collections import deque
from dataclasses import dataclass
from heapq import heappop, heappush

import numpy as np

from symdelay.core.errors import SymdelayInputError
from symdelay.core.result import Result
from symdelay.models.sqd.batches import BLOCK, _finish
from symdelay.models.sqd.fixed_point import as_lam
from symdelay.models.sqd.meanfield import as_d

__all__ = ["run_delayed", "DelayedFixedPoint", "delayed_fixed_point", "as_delay"]


def as_delay(L, D) -> tuple[int, float]:
    try:
        Li = int(str(L))
        Df = float(D)
    except (TypeError, ValueError):
        raise SymdelayInputError(
            f"the delay needs an integer L >= 1 and D >= 0, got {L}, {D}"
        ) from None
    if Li < 1 or not Df >= 0:
        raise SymdelayInputError(f"the delay needs an integer L >= 1 and D >= 0, got {L}, {D}")
    return Li, Df


def run_delayed(N, d, lam, draw, rng, T, warmup, batches, levels, delay):
    """Event loop with in-flight jobs (a heap of landings); sojourn = landing to departure.
    Returns (batch mean sojourns, batch tails, events, the tails at each batch boundary)."""
    L, D = as_delay(*delay)
    rate = lam * N
    queues = [deque() for _ in range(N)]
    free_at = [0.0] * N
    last = [warmup] * N
    occ = [0.0] * (levels + 1)
    width = (T - warmup) / batches
    bounds = [warmup + (b + 1) * width for b in range(batches)]
    soj_sum, soj_n = [0.0] * batches, [0] * batches
    occ_batches, snaps = [], []
    flight: list = []  # (landing time, seq, server, batch of its dispatch)
    seq = itertools.count()
    events, t, b, next_bound, cap = 0, 0.0, -1, warmup, levels

    def pop_until(i, tt, b):
        nonlocal events
        q = queues[i]
        while q and q[0] <= tt:
            dep = q.popleft()
            events += 1
            if b >= 0:
                Lq = len(q) + 1
                occ[Lq if Lq < cap else cap] += dep - last[i]
                last[i] = dep

    def land(tau, i, serv, b):
        nonlocal events
        pop_until(i, tau, b)
        q = queues[i]
        if b >= 0:
            Lq = len(q)
            occ[Lq if Lq < cap else cap] += tau - last[i]
            last[i] = tau
        f = free_at[i]
        dep = (f if f > tau else tau) + serv
        free_at[i] = dep
        q.append(dep)
        events += 1
        return dep - tau

    while True:
        gaps = rng.exponential(1.0 / rate, BLOCK).tolist()
        picks = rng.integers(0, N, (BLOCK, d)).tolist()
        serv = draw(BLOCK).tolist()
        delays = (rng.gamma(L, D / L, BLOCK) if D > 0 else np.zeros(BLOCK)).tolist()
        for n in range(BLOCK):
            t += gaps[n]
            while flight and flight[0][0] <= t:
                tau, _, i, sv, bb = heappop(flight)
                s = land(tau, i, sv, b)
                if bb >= 0:
                    soj_sum[bb] += s
                    soj_n[bb] += 1
            while t >= next_bound:
                tb = next_bound
                snap = [0] * levels
                for i in range(N):
                    pop_until(i, tb, b)
                    Lq = len(queues[i])
                    if b >= 0:
                        occ[Lq if Lq < cap else cap] += tb - last[i]
                    last[i] = tb
                    for k in range(min(Lq, levels)):
                        snap[k] += 1
                snaps.append([v / N for v in snap])
                if b >= 0:
                    occ_batches.append(occ)
                    occ = [0.0] * (levels + 1)

                b += 1
                if b >= batches:
                    return (*_finish(soj_sum, soj_n, occ_batches, levels, N, width, events), snaps)
                next_bound = bounds[b]
            best, bl = -1, 1 << 62
            for i in picks[n]:
                pop_until(i, t, b)
                if len(queues[i]) < bl:
                    bl, best = len(queues[i]), i
            events += 1  # the dispatch
            heappush(flight, (t + delays[n], next(seq), best, serv[n], b))


# ---------------------------------------------------------------- mean field
@dataclass
class DelayedFixedPoint(Result):
    """Stationary point of the delayed mean field: tails, mean station sojourn, edge mass,
    and the rightmost eigenvalue of its (finite-difference) Jacobian."""

    d: int
    lam: object
    L: int
    D: float
    tail: list
    mean_sojourn: float
    edge_mass: float
    rightmost: complex


def _types(L: int, K: int, M: int):
    comps = [c for c in itertools.product(range(M + 1), repeat=L) if sum(c) <= M]
    types = [(k, *c) for k in range(K + 1) for c in comps]
    return types, {t: i for i, t in enumerate(types)}


def delayed_drift(d, lam, L, D, K, M):
    """``F(f)`` of the delayed mean field on the box, and the type list."""
    types, index = _types(L, K, M)
    n = len(types)
    gamma = L / D
    kk = np.array([t[0] for t in types])
    moves = []  # (from, to, base rate, kind)
    for i, t in enumerate(types):
        k, c = t[0], list(t[1:])
        if sum(c) < M:
            c2 = c.copy()
            c2[0] += 1
            moves.append((i, index[(k, *c2)], 1.0, "arrive"))
        for ell in range(L):
            if c[ell] == 0:
                continue
            c2 = c.copy()
            c2[ell] -= 1
            if ell < L - 1:
                c2[ell + 1] += 1
                moves.append((i, index[(k, *c2)], gamma * c[ell], "lin"))
            elif k < K:
                moves.append((i, index[(k + 1, *c2)], gamma * c[ell], "lin"))
        if k >= 1:
            moves.append((i, index[(k - 1, *c)], 1.0, "lin"))
    lin = [(a, b, r) for a, b, r, kind in moves if kind == "lin"]
    arr = [(a, b) for a, b, r, kind in moves if kind == "arrive"]
    la, lb, lr = (np.array(v) for v in zip(*lin))
    aa, ab = (np.array(v) for v in zip(*arr))

    def F(f):
        s = np.array([f[kk >= k].sum() for k in range(K + 2)])
        s[K + 1] = 0.0
        P = sum(s[: K + 1] ** i * s[1 : K + 2] ** (d - 1 - i) for i in range(d))
        out = np.zeros(n)
        flow = lr * f[la]
        np.add.at(out, la, -flow)
        np.add.at(out, lb, flow)
        af = lam * P[kk[aa]] * f[aa]
        np.add.at(out, aa, -af)
        np.add.at(out, ab, af)
        return out

    return F, types, kk


def delayed_fixed_point(d=2, lam="0.9", *, L=1, D="1", K=20, M=10) -> DelayedFixedPoint:
    """Integrate to near stationarity, polish with SciPy's root finder, and linearise."""
    from scipy.integrate import solve_ivp
    from scipy.optimize import root

    d = as_d(d)
    lamf = float(as_lam(lam))
    L, Df = as_delay(L, D)
    if not Df > 0:
        raise SymdelayInputError("the mean-field delay needs D > 0 (D = 0 is plain SQ(d))")
    F, types, kk = delayed_drift(d, lamf, L, Df, int(K), int(M))
    n = len(types)
    f0 = np.zeros(n)
    f0[0] = 1.0
    sol = solve_ivp(lambda _t, y: F(y), (0, 200), f0, method="LSODA", rtol=1e-9, atol=1e-12)
    f = sol.y[:, -1]

    # polish: drop one equation (mass is conserved) for the normalisation
    def G(y):
        out = F(y)
        out[0] = y.sum() - 1.0
        return out

    r = root(G, f, method="hybr", tol=1e-13)
    if r.success and np.all(r.x > -1e-9):
        f = r.x
    h = 1e-7
    J = np.empty((n, n))
    base = F(f)
    for j in range(n):
        e = f.copy()
        e[j] += h
        J[:, j] = (F(e) - base) / h
    ev = np.linalg.eigvals(J)
    # one zero eigenvalue from conservation of mass: drop the one nearest 0
    ev = np.delete(ev, np.argmin(np.abs(ev)))
    right = complex(ev[np.argmax(ev.real)])
    s = [float(f[kk >= k].sum()) for k in range(1, int(K) + 1)]
    edge = float(sum(f[i] for i, t in enumerate(types) if t[0] == K or sum(t[1:]) == M))
    soj = sum(s) / lamf
    return DelayedFixedPoint(d, lamf, L, Df, s, soj, edge, right)
