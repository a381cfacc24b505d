"""The exact LB(xi, c, d) jump-process kernel: a small C function (compiled once with the system
C compiler, loaded with :mod:`ctypes`) and a pure-Python twin that makes the same draws.

Gillespie direct method. State: ``X_j`` customers at station j. Total rate
``R = lam + sum_j mu_j min(X_j, N_j)``; waiting time ``-log(1-U)/R``; ``V = U' R`` picks an
arrival (``V < lam``) or the station of a service completion (cumulative scan). An arrival is
routed by the policy code:

* 0 — LB(xi, c, d): draw xi from its law, sample xi stations by a partial Fisher–Yates shuffle,
  join the largest ``d_j ((N_j - X_j)/N_j)`` among sampled stations with an idle server, else
  the least ``c_j ((X_j - N_j + 1)/(N_j mu_j))``;
* 1 — shortest of the sample by ``X_j`` (power-of-d; JSQ when xi = J);
* 2 — random, station j with probability ``route_cum[j] - route_cum[j-1]``.

Ties are broken uniformly (reservoir: the k-th tied station replaces the choice when
``U k < 1``; a draw is made only at a tie). Statistics are accumulated per batch of
``batch_len`` time units after ``t_warm``: per station, time integrals of busy servers and of
the queue, arrivals routed there, arrivals that found no idle server there, and the sum of
their expected waits ``(X_j - N_j + 1)/(N_j mu_j)`` (FCFS, exponential service: the exact
conditional mean of the wait given the state at arrival). The state ``X`` is recorded at
every batch boundary ``t_warm + b batch_len``, ``b = 0..nbatch`` (``snap``, right-continuous:
an event at a boundary is included; ``pos[0]`` the next boundary to record).
"""

from __future__ import annotations

import ctypes
import math

import numpy as np

from symdelay.core.cbuild import load_library
from symdelay.core.rng import C_SOURCE as RNG_C_SOURCE
from symdelay.core.rng import unif as _unif

__all__ = ["C_SOURCE", "load_c_kernel", "run_python", "NSTAT", "MASK64"]

#: Statistics per (batch, station): busy integral, queue integral, arrivals, waits, wait sum.
NSTAT = 5
MASK64 = (1 << 64) - 1

C_SOURCE = (
    r"""
#include <stdint.h>
#include <math.h>
"""
    + RNG_C_SOURCE
    + r"""

static void integ(double t0, double t1, int64_t J, const int64_t *N, const int64_t *X,
                  double t_warm, int64_t nbatch, double blen, double *acc) {
    if (t1 <= t_warm) return;
    if (t0 < t_warm) t0 = t_warm;
    while (t0 < t1) {
        int64_t b = (int64_t)((t0 - t_warm) / blen);
        if (t_warm + (double)(b + 1) * blen <= t0) b++;
        if (b >= nbatch) return;
        double bend = t_warm + (double)(b + 1) * blen;
        double e = t1 < bend ? t1 : bend;
        double dt = e - t0;
        for (int64_t j = 0; j < J; j++) {
            int64_t busy = X[j] < N[j] ? X[j] : N[j];
            int64_t q = X[j] - busy;
            acc[(b * J + j) * 5 + 0] += dt * (double)busy;
            acc[(b * J + j) * 5 + 1] += dt * (double)q;
        }
        t0 = e;
    }
}

int64_t lb_run(int64_t J, const int64_t *N, const double *mu, double lam, int64_t policy,
               int64_t K, const int64_t *xi_val, const double *xi_cum, const double *c,
               const double *d, const double *route_cum, int64_t *X, int64_t *perm,
               uint64_t *rng, double *clock, double t_warm, int64_t nbatch, double blen,
               double *acc, int64_t *snap, int64_t *pos, int64_t *counts,
               int64_t max_events) {
    double t = clock[0];
    double t_end = t_warm + (double)nbatch * blen;
    for (int64_t ev = 0; ev < max_events; ev++) {
        double R = lam;
        for (int64_t j = 0; j < J; j++) R += mu[j] * (double)(X[j] < N[j] ? X[j] : N[j]);
        double tn = t - log(1.0 - unif(rng)) / R;
        while (pos[0] <= nbatch && t_warm + (double)pos[0] * blen < tn) {
            for (int64_t j = 0; j < J; j++) snap[pos[0] * J + j] = X[j];
            pos[0]++;
        }
        if (tn >= t_end) {
            integ(t, t_end, J, N, X, t_warm, nbatch, blen, acc);
            for (; pos[0] <= nbatch; pos[0]++)
                for (int64_t j = 0; j < J; j++) snap[pos[0] * J + j] = X[j];
            clock[0] = t_end;
            return 0;
        }
        integ(t, tn, J, N, X, t_warm, nbatch, blen, acc);
        t = tn;
        counts[0]++;
        double V = unif(rng) * R;
        if (V < lam) {
            int64_t best = -1;
            if (policy == 2) {
                double U = unif(rng);
                best = J - 1;
                for (int64_t j = 0; j < J - 1; j++) {
                    if (U < route_cum[j]) { best = j; break; }
                }
            } else {
                double U = unif(rng);
                int64_t k = xi_val[K - 1];
                for (int64_t i = 0; i < K; i++) {
                    if (U < xi_cum[i]) { k = xi_val[i]; break; }
                }
                for (int64_t i = 0; i < k; i++) {
                    int64_t r = i + (int64_t)(unif(rng) * (double)(J - i));
                    if (r >= J) r = J - 1;
                    int64_t tmp = perm[i]; perm[i] = perm[r]; perm[r] = tmp;
                }
                double bs = 0.0;
                int64_t ties = 0;
                /* station j with score s: the best so far (the largest when up, else the
                   least), a tie replacing it with probability 1/ties (a draw at ties only) */
#define CONSIDER(up) \
                if (best < 0 || ((up) ? s > bs : s < bs)) { best = j; bs = s; ties = 1; } \
                else if (s == bs) { ties++; if (unif(rng) * (double)ties < 1.0) best = j; }
                for (int64_t i = 0; policy == 0 && i < k; i++) {
                    const int64_t j = perm[i];
                    if (X[j] >= N[j]) continue;
                    const double s = d[j] * ((double)(N[j] - X[j]) / (double)N[j]);
                    CONSIDER(1)
                }
                const int full = best < 0; /* LB: every sampled station busy */
                for (int64_t i = 0; (policy == 1 || full) && i < k; i++) {
                    const int64_t j = perm[i];
                    const double s = policy == 1 ? (double)X[j]
                        : c[j] * ((double)(X[j] - N[j] + 1) / ((double)N[j] * mu[j]));
                    CONSIDER(0)
                }
            }
            counts[1]++;
            if (t >= t_warm) {
                int64_t b = (int64_t)((t - t_warm) / blen);
                if (b >= nbatch) b = nbatch - 1;
                double *a = acc + (b * J + best) * 5;
                a[2] += 1.0;
                if (X[best] >= N[best]) {
                    a[3] += 1.0;
                    a[4] += (double)(X[best] - N[best] + 1) / ((double)N[best] * mu[best]);
                }
            }
            X[best]++;
        } else {
            double W = V - lam;
            int64_t j = 0;
            double cum = 0.0;
            for (j = 0; j < J - 1; j++) {
                cum += mu[j] * (double)(X[j] < N[j] ? X[j] : N[j]);
                if (W < cum) break;
            }
            while (X[j] == 0 && j > 0) j--;
            X[j]--;
            counts[2]++;
        }
    }
    clock[0] = t;
    return 1;
}
"""
)


def _bind(lib):
    fn = lib.lb_run
    i64 = np.ctypeslib.ndpointer(np.int64, flags="C_CONTIGUOUS")
    u64 = np.ctypeslib.ndpointer(np.uint64, flags="C_CONTIGUOUS")
    f64 = np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS")
    I, D = ctypes.c_int64, ctypes.c_double
    fn.argtypes = [I, i64, f64, D, I, I, i64, f64, f64, f64, f64, i64, i64, u64, f64]
    fn.argtypes += [D, I, D, f64, i64, i64, i64, I]
    fn.restype = I
    return fn


def load_c_kernel():
    """The compiled kernel (cached by a hash of the source), or ``None`` (no compiler, or
    ``SYMDELAY_NO_C`` set)."""
    return load_library(C_SOURCE, "lbkernel", "the LB kernel", _bind)


def run_python(
    J, N, mu, lam, policy, K, xi_val, xi_cum, c, d, route_cum, X, perm, rng, clock,
    t_warm, nbatch, blen, acc, snap, pos, counts, max_events,
):  # fmt: skip
    """The pure-Python twin of ``lb_run`` (same arguments, same draws, same arithmetic)."""
    s = [int(v) for v in rng]
    N = [int(v) for v in N]
    mu = [float(v) for v in mu]
    c = [float(v) for v in c]
    d = [float(v) for v in d]
    Xl = [int(v) for v in X]
    P = [int(v) for v in perm]

    def unif() -> float:
        return _unif(s)

    def pick(scored, up: bool) -> int:
        """The C loop's choice among ``(station, score)`` (same draws at the same ties)."""
        best, bs, ties = -1, 0.0, 0
        for j, sc in scored:
            if best < 0 or (sc > bs if up else sc < bs):
                best, bs, ties = j, sc, 1
            elif sc == bs:
                ties += 1
                if unif() * float(ties) < 1.0:
                    best = j
        return best

    def integ(t0, t1):
        if t1 <= t_warm:
            return
        t0 = max(t0, t_warm)
        while t0 < t1:
            b = int((t0 - t_warm) / blen)
            if t_warm + float(b + 1) * blen <= t0:
                b += 1
            if b >= nbatch:
                return
            bend = t_warm + float(b + 1) * blen
            e = t1 if t1 < bend else bend
            dt = e - t0
            for j in range(J):
                busy = min(Xl[j], N[j])
                acc[b, j, 0] += dt * float(busy)
                acc[b, j, 1] += dt * float(Xl[j] - busy)
            t0 = e

    t = float(clock[0])
    t_end = t_warm + float(nbatch) * blen
    status, p = 1, int(pos[0])
    for _ in range(max_events):
        R = lam
        for j in range(J):
            R += mu[j] * float(min(Xl[j], N[j]))
        tn = t - math.log(1.0 - unif()) / R
        while p <= nbatch and t_warm + float(p) * blen < tn:
            snap[p * J : (p + 1) * J] = Xl
            p += 1
        if tn >= t_end:
            integ(t, t_end)
            while p <= nbatch:
                snap[p * J : (p + 1) * J] = Xl
                p += 1
            t = t_end
            status = 0
            break
        integ(t, tn)
        t = tn
        counts[0] += 1
        v = unif() * R
        if v < lam:
            best = -1
            if policy == 2:
                u = unif()
                best = J - 1
                for j in range(J - 1):
                    if u < route_cum[j]:
                        best = j
                        break
            else:
                u = unif()
                k = int(xi_val[K - 1])
                for i in range(K):
                    if u < xi_cum[i]:
                        k = int(xi_val[i])
                        break
                for i in range(k):
                    r = min(i + int(unif() * float(J - i)), J - 1)
                    P[i], P[r] = P[r], P[i]
                if policy == 0:
                    idle = [
                        (j, d[j] * (float(N[j] - Xl[j]) / float(N[j])))
                        for j in P[:k]
                        if Xl[j] < N[j]
                    ]
                    best = pick(idle, True)
                    if best < 0:
                        best = pick(
                            [(j, c[j] * (float(Xl[j] - N[j] + 1) / (float(N[j]) * mu[j])))
                             for j in P[:k]],
                            False,
                        )  # fmt: skip
                else:
                    best = pick([(j, float(Xl[j])) for j in P[:k]], False)
            counts[1] += 1
            if t >= t_warm:
                b = min(int((t - t_warm) / blen), nbatch - 1)
                acc[b, best, 2] += 1.0
                if Xl[best] >= N[best]:
                    acc[b, best, 3] += 1.0
                    acc[b, best, 4] += float(Xl[best] - N[best] + 1) / (float(N[best]) * mu[best])
            Xl[best] += 1
        else:
            w = v - lam
            cum = 0.0
            j = 0
            while j < J - 1:
                cum += mu[j] * float(min(Xl[j], N[j]))
                if w < cum:
                    break
                j += 1
            while Xl[j] == 0 and j > 0:
                j -= 1
            Xl[j] -= 1
            counts[2] += 1
    clock[0] = t
    pos[0] = p
    X[:] = Xl
    perm[:] = P
    rng[:] = np.array(s, dtype=np.uint64)
    return status
