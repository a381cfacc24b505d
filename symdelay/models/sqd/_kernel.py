"""The SQ(d) event loop as a small C function (compiled once with the system C compiler,
cached by a hash of the source, loaded with :mod:`ctypes`) and a pure-Python twin that makes
the same draws and the same IEEE-754 operations in the same order.

Randomness. Inter-arrival times and the ``d`` sampled servers come from one xoshiro256**
stream (``-log(1-U)/(lam N)``; a server index by Lemire's multiply-and-reject, exactly
uniform on ``0..N-1``). Service times come from the caller in blocks (numpy draws from the
true distribution, one per arrival, consumed in order). Both implementations consume both
in the same order, so for equal inputs they return identical arrays (the tests check this:
the twin is the second, independent implementation of the loop).

Data. Every server keeps the departure times of its jobs (FCFS: known at arrival) in a
FIFO, a linked list in one pool of nodes shared by all servers (:data:`NODE_DTYPE`; free
nodes form a list); a server's fields share one cache line (:data:`SERVER_DTYPE`). A server's length is brought up to date lazily, only when it is
sampled or at a batch boundary; it keeps its head's departure time, so a sampled server
costs one cache line unless it has departures to pop. The d samples of the next arrival
are drawn at the end of the current one and their servers prefetched (the order of draws:
the samples of arrival 0, then per arrival its gap and the samples of the next one). The pool grows in Python when it runs out.

A call returns a status: ``NEED_SERVICE`` (the service block is used up: give a new one),
``NEED_NODES`` (the pool is empty: grow it) or ``DONE``. Each check happens before an
arrival draws anything, so a run in many calls is the same as one call.
"""

from __future__ import annotations

import ctypes
import math

import numpy as np

from symdelay.core.cbuild import load_library
from symdelay.core.rng import C_SOURCE as RNG_C_SOURCE
from symdelay.core.rng import next_u64 as _next_u64

__all__ = [
    "C_SOURCE",
    "NEED_SERVICE",
    "DONE",
    "NEED_NODES",
    "SERVER_DTYPE",
    "NODE_DTYPE",
    "load_c_kernel",
    "run_python",
]

NEED_SERVICE, DONE, NEED_NODES = 0, 1, 2

#: Slots of the integer position array ``ip``.
IP_SPOS, IP_NBI, IP_FREE, IP_NFREE, IP_EVENTS = range(5)

C_SOURCE = (
    r"""
#include <stdint.h>
#include <math.h>
"""
    + RNG_C_SOURCE
    + r"""

/* uniform on 0..n-1, exactly (Lemire 2019) */
static inline int64_t below(uint64_t *s, uint64_t n) {
    __uint128_t m = (__uint128_t)next_u64(s) * n;
    uint64_t l = (uint64_t)m;
    if (l < n) {
        const uint64_t th = (0 - n) % n;
        while (l < th) { m = (__uint128_t)next_u64(s) * n; l = (uint64_t)m; }
    }
    return (int64_t)(m >> 64);
}

typedef struct { double head_dep, last; int32_t head, tail, qlen, pad; } server_t;
typedef struct { double dep; int64_t nxt; } node_t;

/* pop the head of server q (its departure time dp = q->head_dep) */
#define POP(q, L) do { \
        const int64_t node_ = (q)->head; \
        const double dp_ = (q)->head_dep; \
        const int64_t nx_ = pool[node_].nxt; \
        pool[node_].nxt = fh; fh = node_; nfree++; \
        if (b >= 0) oc[(L) < levels ? (L) : levels] += dp_ - (q)->last; \
        (q)->last = dp_; \
        (L)--; events++; \
        if ((L) > 0) { (q)->head = (int32_t)nx_; (q)->head_dep = pool[nx_].dep; } \
    } while (0)

/* ip: spos, next bound index, free-list head, free count, events, picks pending (0/1),
   then (from ip[8]) the d pending samples: the samples of the next arrival are drawn at the
   end of the previous one, so their servers can be prefetched. */
int64_t sqd_run(int64_t N, int64_t d, double rate, uint64_t *rng,
                const double *serv, int64_t nserv, int64_t *ip,
                node_t *pool, server_t *srv, const double *bounds, int64_t batches,
                int64_t levels, double *occ, int64_t *snap, double *soj_sum, int64_t *soj_n,
                double *clock) {
    int64_t spos = ip[0], nbi = ip[1], fh = ip[2], nfree = ip[3], events = ip[4];
    int64_t *pend = ip + 8;
    int64_t b = nbi - 1, status;
    const int64_t W = levels + 1;
    double t = clock[0];
    double next_bound = bounds[nbi];
    double *oc = occ + (b >= 0 ? b : 0) * W;
    if (!ip[5]) {
        for (int64_t j = 0; j < d; j++) pend[j] = below(rng, (uint64_t)N);
        ip[5] = 1;
    }
    for (;;) {
        if (spos >= nserv) { status = 0; break; }
        if (nfree < 1) { status = 2; break; }
        t += -log(1.0 - unif(rng)) / rate;
        while (t >= next_bound) {
            const double tb = next_bound;
            int64_t *sn = snap + nbi * levels;
            for (int64_t i = 0; i < N; i++) {
                server_t *q = srv + i;
                int64_t L = q->qlen;
                while (L > 0 && q->head_dep <= tb) POP(q, L);
                q->qlen = (int32_t)L;
                if (b >= 0) oc[L < levels ? L : levels] += tb - q->last;
                q->last = tb;
                for (int64_t k = 0; k < L && k < levels; k++) sn[k]++;
            }
            b++; nbi++;
            if (b >= batches) { status = 1; goto out; }
            oc = occ + b * W;
            next_bound = bounds[nbi];
        }
        int64_t best = 0, bl = INT64_MAX;
        for (int64_t j = 0; j < d; j++) {
            const int64_t i = pend[j];
            server_t *q = srv + i;
            int64_t L = q->qlen;
            while (L > 0 && q->head_dep <= t) POP(q, L);
            q->qlen = (int32_t)L;
            if (L < bl) { bl = L; best = i; }
        }
        server_t *q = srv + best;
        const int64_t L = q->qlen;
        if (b >= 0) oc[L < levels ? L : levels] += t - q->last;
        q->last = t;
        const double start = L > 0 ? pool[q->tail].dep : t;
        const double dp = (start > t ? start : t) + serv[spos++];
        const int64_t node = fh;
        fh = pool[node].nxt; nfree--;
        pool[node].dep = dp; pool[node].nxt = -1;
        if (L == 0) { q->head = (int32_t)node; q->head_dep = dp; }
        else pool[q->tail].nxt = node;
        q->tail = (int32_t)node;
        q->qlen = (int32_t)(L + 1);
        events++;
        if (b >= 0) { soj_sum[b] += dp - t; soj_n[b] += 1; }
        for (int64_t j = 0; j < d; j++) {
            pend[j] = below(rng, (uint64_t)N);
            __builtin_prefetch(srv + pend[j], 1);
        }
    }
out:
    ip[0] = spos; ip[1] = nbi; ip[2] = fh; ip[3] = nfree; ip[4] = events;
    clock[0] = t;
    return status;
}
"""
)

#: One server (32 bytes: one cache line holds two) and one node of the departure-time pool.
SERVER_DTYPE = np.dtype(
    [("head_dep", "f8"), ("last", "f8"), ("head", "i4"), ("tail", "i4"), ("qlen", "i4"),
     ("pad", "i4")]
)  # fmt: skip
NODE_DTYPE = np.dtype([("dep", "f8"), ("nxt", "i8")])

_MASK = (1 << 64) - 1


def run_python(
    N, d, rate, rng, serv, ip, pool, srv, bounds, batches, levels, occ, snap, soj_sum, soj_n,
    clock,
) -> int:  # fmt: skip
    """The pure-Python twin of the C kernel (same arguments, same draws, same result)."""
    s = [int(v) for v in rng]

    def next_u64() -> int:
        return _next_u64(s)

    def below(n: int) -> int:
        m = next_u64() * n
        lo = m & _MASK
        if lo < n:
            th = (-n) % n
            while lo < th:
                m = next_u64() * n
                lo = m & _MASK
        return m >> 64

    spos, nbi, fh, nfree, events = (int(v) for v in ip[:5])
    pend = [int(v) for v in ip[8 : 8 + d]]
    if not ip[5]:
        pend = [below(N) for _ in range(d)]
        ip[5] = 1
    sv = serv.tolist()
    nserv = len(sv)
    dep_, nxt_ = pool["dep"].tolist(), pool["nxt"].tolist()
    head_, tail_, qlen_ = srv["head"].tolist(), srv["tail"].tolist(), srv["qlen"].tolist()
    hdep_, last_, bnd = srv["head_dep"].tolist(), srv["last"].tolist(), bounds.tolist()
    occ_, snap_ = occ.tolist(), snap.tolist()
    ssum, sn_ = soj_sum.tolist(), soj_n.tolist()
    W = levels + 1
    b = nbi - 1
    t = float(clock[0])
    next_bound = bnd[nbi]
    base = (b if b >= 0 else 0) * W
    log = math.log

    def pop(i: int, L: int) -> int:
        nonlocal fh, nfree, events
        node = head_[i]
        dp = hdep_[i]
        nx = nxt_[node]
        nxt_[node] = fh
        fh = node
        nfree += 1
        if b >= 0:
            occ_[base + (L if levels > L else levels)] += dp - last_[i]
        last_[i] = dp
        L -= 1
        events += 1
        if L > 0:
            head_[i] = nx
            hdep_[i] = dep_[nx]
        return L

    while True:
        if spos >= nserv:
            status = NEED_SERVICE
            break
        if nfree < 1:
            status = NEED_NODES
            break
        t += -log(1.0 - float(next_u64() >> 11) * 2.0**-53) / rate
        finished = False
        while t >= next_bound:
            tb = next_bound
            sb = nbi * levels
            for i in range(N):
                L = qlen_[i]
                while L > 0 and hdep_[i] <= tb:
                    L = pop(i, L)
                qlen_[i] = L
                if b >= 0:
                    occ_[base + (L if levels > L else levels)] += tb - last_[i]
                last_[i] = tb
                for k in range(min(L, levels)):
                    snap_[sb + k] += 1
            b += 1
            nbi += 1
            if b >= batches:
                finished = True
                break
            base = b * W
            next_bound = bnd[nbi]
        if finished:
            status = DONE
            break
        best, bl = 0, 1 << 62
        for i in pend:
            L = qlen_[i]
            while L > 0 and hdep_[i] <= t:
                L = pop(i, L)
            qlen_[i] = L
            if bl > L:
                bl, best = L, i
        L = qlen_[best]
        if b >= 0:
            occ_[base + (L if levels > L else levels)] += t - last_[best]
        last_[best] = t
        start = dep_[tail_[best]] if L > 0 else t
        dp = (start if start > t else t) + sv[spos]
        spos += 1
        node = fh
        fh = nxt_[node]
        nfree -= 1
        dep_[node] = dp
        nxt_[node] = -1
        if L == 0:
            head_[best] = node
            hdep_[best] = dp
        else:
            nxt_[tail_[best]] = node
        tail_[best] = node
        qlen_[best] = L + 1
        events += 1
        if b >= 0:
            ssum[b] += dp - t
            sn_[b] += 1
        pend = [below(N) for _ in range(d)]
    ip[:5] = [spos, nbi, fh, nfree, events]
    ip[8 : 8 + d] = pend
    clock[0] = t
    rng[:] = np.array(s, dtype=np.uint64)
    pool["dep"], pool["nxt"] = dep_, nxt_
    srv["head"], srv["tail"], srv["qlen"] = head_, tail_, qlen_
    srv["head_dep"], srv["last"] = hdep_, last_
    occ[:], snap[:], soj_sum[:], soj_n[:] = occ_, snap_, ssum, sn_
    return status


def _bind(lib):
    c = lib.sqd_run
    i64, dbl = ctypes.c_int64, ctypes.c_double
    i64p = np.ctypeslib.ndpointer(np.int64, flags="C_CONTIGUOUS")
    u64p = np.ctypeslib.ndpointer(np.uint64, flags="C_CONTIGUOUS")
    f64p = np.ctypeslib.ndpointer(np.float64, flags="C_CONTIGUOUS")
    poolp = np.ctypeslib.ndpointer(NODE_DTYPE, flags="C_CONTIGUOUS")
    srvp = np.ctypeslib.ndpointer(SERVER_DTYPE, flags="C_CONTIGUOUS")
    c.argtypes = [i64, i64, dbl, u64p, f64p, i64, i64p, poolp, srvp, f64p, i64, i64]
    c.argtypes += [f64p, i64p, f64p, i64p, f64p]
    c.restype = i64

    def fn(
        N, d, rate, rng, serv, ip, pool, srv, bounds, batches, levels, occ, snap,
        soj_sum, soj_n, clock,
    ) -> int:  # fmt: skip
        return int(
            c(N, d, rate, rng, serv, len(serv), ip, pool, srv, bounds, batches, levels,
              occ, snap, soj_sum, soj_n, clock)
        )  # fmt: skip

    return fn


def load_c_kernel():
    """The compiled kernel as a Python callable with :func:`run_python`'s signature, or
    ``None`` (no compiler, or ``SYMDELAY_NO_C`` set)."""
    return load_library(C_SOURCE, "sqdkernel", "the SQ(d) kernel", _bind)
